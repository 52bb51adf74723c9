#!/usr/bin/env bats
# The recipients record and the tpmbox before it (main at 22205e2, the
# last commit without it): a blob that tpmbox made still reseals as it
# did (the recipients given again, and the message says the blob
# predates stored recipients); a blob made now still unseals, recovers
# and reseals with it.  The old binary: $TPMBOX_MAIN, else built here
# from the repository's commit 22205e2 (about a minute on two cores).

load helpers/common

MAIN_COMMIT=22205e2

setup_file() {
	if [ -z "${TPMBOX_MAIN:-}" ]; then
		local src=$BATS_FILE_TMPDIR/main
		git -C "$BATS_TEST_DIRNAME/.." cat-file -e "$MAIN_COMMIT^{commit}" \
			2>/dev/null || return 0
		mkdir -p "$src"
		git -C "$BATS_TEST_DIRNAME/.." archive "$MAIN_COMMIT" | tar -x -C "$src"
		nice make -s -C "$src" -j2 >/dev/null 2>&1 || return 0
		TPMBOX_MAIN=$src/tpmbox
	fi
	export TPMBOX_MAIN
	swtpm_start
	K=$BATS_FILE_TMPDIR/keys
	mkdir -p "$K"
	cd "$K"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout cert.key \
		-out cert.crt -subj /CN=escrow-cert -days 30 2>/dev/null
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
		-out ec.key 2>/dev/null
	openssl pkey -in ec.key -pubout -out ec.pub
	age-keygen -o age.txt 2>/dev/null
	age-keygen -y age.txt > age.rcpt
	export K
}

teardown_file() { [ -z "${SWTPM_DIR:-}" ] || swtpm_stop; }

setup() {
	[ -x "${TPMBOX_MAIN:-}" ] || skip "no tpmbox of $MAIN_COMMIT (not a git checkout, or it did not build)"
	W=$BATS_TEST_TMPDIR
	cd "$W"
	AR=$(cat "$K/age.rcpt")
	tb extend 16 -s "reseal-compat-start-$BATS_TEST_NUMBER"
}

old() { "$TPMBOX_MAIN" "$@"; }

@test "compat: a blob of tpmbox $MAIN_COMMIT reseals as before: the recipients given again, and the message says it predates stored recipients" {
	echo "a secret long enough for a record" > s
	old seal -p sha256:16 --escrow "$K/cert.crt" --escrow "$K/ec.pub" \
		--escrow "$AR" -o old s
	run grep -c "TPMBOX ESCROW RECIPIENTS" old
	assert_output 0
	tb extend 16 -s moved
	run tb reseal -k "$K/cert.key" -p sha256:16 -o new old
	assert_failure 2
	assert_output --partial "and the blob predates stored recipients: it does not hold their public keys"
	assert_output --partial "give them again with --escrow"
	[ ! -e new ]
	run tb reseal -k "$K/cert.key" -p sha256:16 --escrow-out p -o new old
	assert_failure 2
	[ ! -e new ]
	[ ! -e p.cms ]
	run tb reseal -k "$K/cert.key" -p sha256:16 --escrow "$K/cert.crt" -o new old
	assert_failure 2
	assert_output --partial "predates stored recipients"
	[ ! -e new ]
	run tb reseal -k "$K/cert.key" -p sha256:16 --drop-escrow="$AR" -o new old
	assert_failure 2
	assert_output --partial "has no stored recipients to drop one of"
	# given again: today's path; NEW now holds them
	tb reseal -k "$K/cert.key" -p sha256:16 --escrow "$K/cert.crt" \
		--escrow "$K/ec.pub" --escrow "$AR" -o new old
	grep -q "^-----BEGIN TPMBOX ESCROW RECIPIENTS-----$" new
	tb unseal new | cmp - s
	tb extend 16 -s "moved again"
	tb reseal -k "$K/ec.key" -p sha256:16 --escrow-out p -o newer new
	openssl cms -decrypt -inform PEM -in p.cms -inkey "$K/cert.key" | cmp - s
	age -d -i "$K/age.txt" p.age | cmp - s
}

@test "compat: a blob made now unseals, recovers and reseals with tpmbox $MAIN_COMMIT" {
	head -c 200 /dev/urandom > s
	tb seal -p sha256:16 --escrow "$K/cert.crt" --escrow "$AR" \
		--recovery-code-out code -o b s
	grep -q "^-----BEGIN TPMBOX ESCROW RECIPIENTS-----$" b
	old unseal b | cmp - s
	old recover -k "$K/cert.key" b | cmp - s
	old recover -k "$K/age.txt" b | cmp - s
	old recover --recovery-code file:code b | cmp - s
	tb extend 16 -s moved
	old reseal -k "$K/age.txt" --recovery-code-out code2 -p sha256:16 \
		--escrow "$K/cert.crt" --escrow "$AR" -o b2 b
	old unseal b2 | cmp - s
}
