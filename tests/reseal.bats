#!/usr/bin/env bats
# reseal: an old blob to a new one in one step, the secret never in a file.
# Unsealed here while the old blob still unseals, else recovered from its
# escrow copy (-k, --recovery-code); sealed again with the new options.
# Oracles: unseal on the same swtpm, openssl cms -decrypt and age -d on
# the new blob's escrow copies.

load helpers/common

setup_file() {
	swtpm_start
	K=$BATS_FILE_TMPDIR/keys
	mkdir -p "$K"
	cd "$K"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout rsa.key \
		-out rsa.crt -subj /CN=escrow-rsa -days 30 2>/dev/null
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-384 -nodes \
		-keyout ec384.key -out ec384.crt -subj /CN=escrow-ec384 \
		-days 30 2>/dev/null
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
		-out ec256.key 2>/dev/null
	openssl pkey -in ec256.key -pubout -out ec256.pub
	openssl pkey -in rsa.key -pubout -out rsa.pub
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 \
		-out other-rsa.key 2>/dev/null
	openssl req -x509 -key other-rsa.key -out other-rsa.crt \
		-subj /CN=escrow-rsa -days 30 2>/dev/null
	age-keygen -o age.txt 2>/dev/null
	age-keygen -y age.txt > age.rcpt
	age-keygen -o other-age.txt 2>/dev/null
	export K
}

teardown_file() { swtpm_stop; }

setup() {
	W=$BATS_TEST_TMPDIR
	cd "$W"
	AGE_R=$(cat "$K/age.rcpt")
	# PCR 16 (debug, resettable by locality 0) is this suite's own
	tb extend 16 -s "reseal-test-start-$BATS_TEST_NUMBER"
}

# old: sealed to PCR 16 with every kind of escrow copy and a code
seal_old() {
	tb seal -p sha256:16 --escrow "$K/rsa.crt" --escrow "$K/ec256.pub" \
		--escrow "$AGE_R" --recovery-code-out old.code -o old s
}

ALL_ESCROW=()
all_escrow() {
	ALL_ESCROW=(--escrow "$K/rsa.crt" --escrow "$K/ec256.pub" --escrow "$AGE_R")
}

@test "reseal: after a PCR change, with the escrow key; the new blob unseals in the new state, the old one still refused" {
	echo "disk key after the update" > s
	seal_old
	tb extend 16 -s "an update moved the PCRs"
	run tb unseal old
	assert_failure 4
	# no key: refused like unseal, nothing written, and told what to do
	all_escrow
	run tb reseal -p sha256:16 "${ALL_ESCROW[@]}" \
		--recovery-code-out new.code -o new old
	assert_failure 4
	assert_output --partial "sha256:16 differ"
	assert_output --partial "-k KEYFILE or --recovery-code"
	[ ! -e new ]
	[ ! -e new.code ]
	for key in rsa.key ec256.key age.txt; do
		rm -f new new.code
		run tb reseal -k "$K/$key" -p sha256:16 "${ALL_ESCROW[@]}" \
			--recovery-code-out new.code -o new old
		assert_success
		[ "$(stat -c %a new)" = 600 ]
		tb unseal new | cmp - s
		run tb unseal old
		assert_failure 4
	done
	# and the same by the old blob's recovery code
	rm -f new new.code
	tb reseal --recovery-code file:old.code -p sha256:16 \
		"${ALL_ESCROW[@]}" -o new old
	tb unseal new | cmp - s
	# the new state moves on: the new blob is refused like the old
	tb extend 16 -s "another update"
	run tb unseal new
	assert_failure 4
}

@test "reseal: while the old blob still unseals, no key is needed; new PCRs and password" {
	echo "still unseals" > s
	tb seal -p sha256:16 --auth str:old-pw -o old s
	# the old blob's password is --old-auth; without it: exit 4, asked
	run tb reseal -p sha256:16 --auth str:new-pw -o new old
	assert_failure 4
	assert_output --partial "--old-auth"
	[ ! -e new ]
	tb reseal --old-auth str:old-pw -p sha256:16,23 --auth str:new-pw \
		-o new old
	tb unseal --auth str:new-pw new | cmp - s
	run tb unseal new
	assert_failure 4
	assert_output --partial "give --auth"
	# a blob with no policy at all, resealed to one
	tb seal -o plain s
	tb reseal -p sha256:16 -o new2 plain
	tb unseal new2 | cmp - s
	tb extend 16 -s moved
	run tb unseal new2
	assert_failure 4
	tb unseal plain | cmp - s
}

@test "reseal: the new blob keeps the recipients (openssl cms -decrypt and age -d open its copies) and the old recovery code" {
	head -c 3000 /dev/urandom > s
	seal_old
	all_escrow
	tb reseal --recovery-code file:old.code -p sha256:16 \
		"${ALL_ESCROW[@]}" --escrow-out copy -o new old
	tb unseal new | cmp - s
	# re-encrypted, not copied
	not cmp -s <(pem_cut CMS old) <(pem_cut CMS new)
	not cmp -s <(pem_cut "AGE ENCRYPTED FILE" old) \
		<(pem_cut "AGE ENCRYPTED FILE" new)
	openssl cms -decrypt -inform PEM -in new -inkey "$K/rsa.key" | cmp - s
	openssl cms -decrypt -inform PEM -in new -inkey "$K/ec256.key" | cmp - s
	pem_cut "AGE ENCRYPTED FILE" new | age -d -i "$K/age.txt" | cmp - s
	openssl cms -decrypt -inform PEM -in copy.cms -inkey "$K/rsa.key" | cmp - s
	age -d -i "$K/age.txt" copy.age | cmp - s
	# the written-down code opens the new blob too, and needs no TPM
	TPMBOX_TCTI=swtpm:path=$W/none tb recover --recovery-code \
		file:old.code new | cmp - s
}

@test "reseal: a new recovery code replaces the old one for the new blob" {
	echo "rotate the code" > s
	seal_old
	all_escrow
	tb reseal --recovery-code file:old.code --recovery-code-out new.code \
		-p sha256:16 "${ALL_ESCROW[@]}" -o new old
	[ "$(stat -c %a new.code)" = 600 ]
	not cmp -s old.code new.code
	tb recover --recovery-code file:new.code new | cmp - s
	run tb recover --recovery-code file:old.code new
	assert_failure 4
	# the old blob still opens with its own code
	tb recover --recovery-code file:old.code old | cmp - s
	# no --recovery-code: a new code can still be made (the old
	# blob's code is then not needed)
	tb reseal --recovery-code-out new2.code -p sha256:16 \
		"${ALL_ESCROW[@]}" -o new2 old
	tb recover --recovery-code file:new2.code new2 | cmp - s
}

@test "reseal: a blob that holds no recipients (a secret under 16 bytes): its escrow is not dropped silently (exit 2, nothing written); --drop-escrow drops it" {
	# 15 bytes: too short to key the recipients' authenticator, so the
	# blob does not hold them (tests/reseal-stored.bats: those that do)
	printf 'keep recipients' > s
	seal_old
	not grep -q "TPMBOX ESCROW RECIPIENTS" old
	all_escrow
	# recipients not given again
	run tb reseal --recovery-code file:old.code -p sha256:16 -o new old
	assert_failure 2
	assert_output --partial "give them again with --escrow"
	assert_output --partial "1 RSA key(s), 1 EC key(s)"
	assert_output --partial "its secret (15 bytes) is too short to key the recipients' authenticator"
	[ ! -e new ]
	# the recovery code neither kept nor replaced
	run tb reseal -p sha256:16 "${ALL_ESCROW[@]}" -o new old
	assert_failure 2
	assert_output --partial "has a recovery code"
	[ ! -e new ]
	# some of them only: each RSA/EC recipient is matched by the name
	# the copy gives it, the age recipients by count
	run tb reseal --recovery-code file:old.code -p sha256:16 \
		--escrow "$K/rsa.crt" --escrow "$AGE_R" -o new old
	assert_failure 2
	assert_output --partial "1 RSA/EC recipient(s) of the old blob are not among --escrow"
	[ ! -e new ]
	run tb reseal --recovery-code file:old.code -p sha256:16 \
		--escrow "$K/other-rsa.crt" --escrow "$K/ec256.pub" \
		--escrow "$AGE_R" -o new old
	assert_failure 2
	assert_output --partial "1 RSA/EC recipient(s)"
	[ ! -e new ]
	run tb reseal --recovery-code file:old.code -p sha256:16 \
		--escrow "$K/rsa.crt" --escrow "$K/ec256.pub" -o new old
	assert_failure 2
	assert_output --partial "1 age recipient(s) for 0 given"
	[ ! -e new ]
	# the same key as a certificate, where the old blob had it bare
	tb seal --escrow "$K/rsa.pub" -o bare s
	tb reseal --escrow "$K/rsa.crt" -o bare2 bare
	openssl cms -decrypt -inform PEM -in bare2 -inkey "$K/rsa.key" | cmp - s
	# more recipients than before: fine
	tb reseal --escrow "$K/rsa.pub" --escrow "$K/other-rsa.crt" -o bare3 bare
	openssl cms -decrypt -inform PEM -in bare3 -inkey "$K/other-rsa.key" | cmp - s
	# told to drop them
	tb reseal --drop-escrow --escrow "$K/rsa.crt" -p sha256:16 -o sub old
	openssl cms -decrypt -inform PEM -in sub -inkey "$K/rsa.key" | cmp - s
	run tb recover -k "$K/age.txt" sub
	assert_failure 4
	tb reseal --drop-escrow -p sha256:16 -o new old
	tb unseal new | cmp - s
	run tb recover -k "$K/rsa.key" new
	assert_failure 6
	# a blob without escrow needs none
	tb seal -o plain s
	tb reseal -o new2 plain
	tb unseal new2 | cmp - s
}

@test "reseal: a wrong key or code -> exit 4, a mistyped group -> 2, nothing written" {
	echo "wrong keys" > s
	seal_old
	all_escrow
	tb extend 16 -s moved
	run tb reseal -k "$K/other-rsa.key" -p sha256:16 "${ALL_ESCROW[@]}" \
		--recovery-code-out new.code -o new old
	assert_failure 4
	assert_output --partial "does not unseal here"
	[ ! -e new ]
	[ ! -e new.code ]
	run tb reseal -k "$K/other-age.txt" -p sha256:16 "${ALL_ESCROW[@]}" \
		--recovery-code-out new.code -o new old
	assert_failure 4
	[ ! -e new ]
	[ ! -e new.code ]
	# a code of the right shape that is not this blob's
	tb seal --recovery-code-out other.code -o other s
	run tb reseal --recovery-code file:other.code -p sha256:16 \
		"${ALL_ESCROW[@]}" -o new old
	assert_failure 4
	assert_output --partial "recovery code is wrong"
	[ ! -e new ]
	# one digit changed: the group's check names it
	awk '{ d = substr($0, 1, 1); d = (d + 1) % 10; print d substr($0, 2) }' \
		old.code > typo.code
	run tb reseal --recovery-code file:typo.code -p sha256:16 \
		"${ALL_ESCROW[@]}" -o new old
	assert_failure 2
	assert_output --partial "group 1"
	[ ! -e new ]
	# while the old blob still unseals, a code that is not its own is
	# refused too: it would be kept for the new blob
	tb seal -p sha256:16 --escrow "$AGE_R" --recovery-code-out live.code \
		-o live s
	run tb reseal --recovery-code file:other.code -p sha256:16 \
		--escrow "$AGE_R" -o new live
	assert_failure 4
	[ ! -e new ]
}

@test "reseal: the motherboard was replaced (a cleared TPM): the escrow key reseals to the new SRK" {
	echo "the old chip is gone" > s
	tb seal -p sha256:16 --escrow "$K/ec384.crt" --escrow "$AGE_R" -o old s
	run tb clearall --yes
	assert_success
	run tb unseal old
	assert_failure 1
	assert_output --partial "sealed under another SRK"
	run tb reseal -p sha256:16 --escrow "$K/ec384.crt" --escrow "$AGE_R" \
		-o new old
	assert_failure 1
	[ ! -e new ]
	tb reseal -k "$K/ec384.key" -p sha256:16 --escrow "$K/ec384.crt" \
		--escrow "$AGE_R" -o new old
	tb unseal new | cmp - s
	openssl cms -decrypt -inform PEM -in new -inkey "$K/ec384.key" | cmp - s
}

@test "reseal: NEW exists -> exit 3 and kept, unless -f" {
	echo "exists" > s
	tb seal -o old s
	echo keep > new
	run tb reseal -o new old
	assert_failure 3
	assert_output --partial "already exists"
	[ "$(cat new)" = keep ]
	tb reseal -f -o new old
	tb unseal new | cmp - s
}

@test "reseal: the secret is never in a file: the only file written is NEW's temp, renamed, mode 0600" {
	# LeakSanitizer refuses to run under ptrace (strace)
	[ -z "${TPMBOX_SANITIZED:-}" ] || skip "strace and the sanitizer build do not mix"
	command -v strace >/dev/null || skip "strace is not installed"
	head -c 48 /dev/urandom | base64 -w0 > s
	seal_old
	tb extend 16 -s moved
	all_escrow
	mkdir out
	strace -f -o trace -e trace=openat,open,creat,rename,renameat,renameat2,link,linkat \
		"$TPMBOX" reseal -k "$K/rsa.key" -p sha256:16 "${ALL_ESCROW[@]}" \
		--recovery-code-out out/new.code -o out/new old
	# every file opened for writing is one of the two outputs' temps
	local w
	w=$(grep -E 'O_WRONLY|O_RDWR|O_CREAT|creat\(' trace |
		grep -v '"/dev/' | grep -Eo '"[^"]*"' | sort -u)
	echo "$w"
	[ -n "$w" ]
	not grep -Ev '^"out/new(\.code)?\.tmp\.[A-Za-z0-9]{6}"$' <<< "$w"
	grep -Eq 'rename.*"out/new\.tmp\.[A-Za-z0-9]{6}", .*"out/new"' trace
	[ "$(stat -c %a out/new)" = 600 ]
	ls out
	[ "$(ls out | sort | tr '\n' ' ')" = "new new.code " ]
	# and no file holds the secret in clear
	not grep -rlF "$(cat s)" out old
	tb unseal out/new | cmp - s
}

@test "reseal: refusals (options)" {
	echo x > s
	tb seal -o old s
	run tb reseal old
	assert_failure 2
	assert_output --partial "-o NEW is required"
	run tb reseal -o - old
	assert_failure 2
	run tb reseal -o new
	assert_failure 2
	run tb reseal -k "$K/rsa.key" --recovery-code file:x -o new old
	assert_failure 2
	assert_output --partial "not both"
	run tb reseal --escrow-out p -o new old
	assert_failure 2
	run tb reseal --escrow "$K/rsa.key.none" -o new old
	assert_failure 6
	run tb reseal -p sha256:99 -o new old
	assert_failure 2
	run tb reseal --old-auth str:pw -o new old
	assert_failure 2
	assert_output --partial "drop --old-auth"
	run tb reseal -o new no-such-blob
	assert_failure 6
	echo "not a blob" > junk
	run tb reseal -o new junk
	assert_failure 1
	[ ! -e new ]
}

@test "reseal: the old code asked on the terminal without echo; --new-recovery-code shown once" {
	command -v script >/dev/null || skip "script (util-linux) is not installed"
	echo "terminal" > s
	tb seal -p sha256:16 --recovery-code-out old.code -o old s
	tb extend 16 -s moved
	local code
	code=$(cat old.code)
	# asked: kept for the new blob, never echoed
	run script -qec "'$TPMBOX' reseal --recovery-code -p sha256:16 -o new old" \
		/dev/null < <(sleep 1; echo "$code")
	assert_success
	assert_output --partial "Recovery code of the old blob:"
	refute_output --partial "$code"
	tb unseal new | cmp - s
	tb recover --recovery-code file:old.code new | cmp - s
	# a new code, shown once, opens the newer blob; not the old code
	run script -qec "'$TPMBOX' reseal --new-recovery-code -p sha256:16 -o newer new" \
		/dev/null
	assert_success
	assert_output --partial "Recovery code for newer (shown once: write it down):"
	local new
	new=$(echo "$output" | grep -Eo '([0-9]{6}-){7}[0-9]{6}')
	[ -n "$new" ]
	[ "$new" != "$code" ]
	echo "$new" > new.code
	tb recover --recovery-code file:new.code newer | cmp - s
	run tb recover --recovery-code file:old.code newer
	assert_failure 4
	# no terminal (setsid: none controlling): refused, nothing written
	run setsid -w "$TPMBOX" reseal --new-recovery-code -p sha256:16 -o newest new < /dev/null
	assert_failure 2
	assert_output --partial "--new-recovery-code"
	[ ! -e newest ]
}

@test "reseal: with the SRK pinned (--srk-name), both paths; another pinned name -> exit 1, nothing written" {
	echo "pinned" > s
	local name wrong
	name=$(tb takeown --srk-pub srk.pem)
	[ -n "$name" ]
	wrong=000b$(printf '%064d' 0)
	tb seal --srk-name "$name" -p sha256:16 --escrow "$AGE_R" -o old s
	tb reseal --srk-name "$name" -p sha256:16 --escrow "$AGE_R" -o new old
	tb unseal --srk-pub srk.pem new | cmp - s
	run tb reseal --srk-name "$wrong" -p sha256:16 --escrow "$AGE_R" \
		-o new2 old
	assert_failure 1
	assert_output --partial "not the pinned SRK"
	[ ! -e new2 ]
	# the escrow path: the unseal fails on the PCRs, the seal is pinned
	tb extend 16 -s moved
	tb reseal --srk-pub srk.pem -k "$K/age.txt" -p sha256:16 \
		--escrow "$AGE_R" -o new3 old
	tb unseal new3 | cmp - s
	run tb reseal --srk-name "$wrong" -k "$K/age.txt" -p sha256:16 \
		--escrow "$AGE_R" -o new4 old
	assert_failure 1
	assert_output --partial "not the pinned SRK"
	[ ! -e new4 ]
}
