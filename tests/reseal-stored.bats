#!/usr/bin/env bats
# reseal keeps its escrow: seal --escrow stores the recipients' public
# keys, certificates and age recipients in the blob, authenticated with a
# MAC keyed by PBKDF2 of the secret (docs/blob-format.md, "The
# recipients record"), and reseal re-encrypts to them, once the secret
# has verified the record, with --escrow adding and --drop-escrow=R
# removing.  Oracles: openssl cms -decrypt and age -d on NEW's copies,
# Python's hashlib for the MAC (helpers/escrow-record.py), unseal on the
# same swtpm.

load helpers/common

setup_file() {
	swtpm_start
	K=$BATS_FILE_TMPDIR/keys
	mkdir -p "$K"
	cd "$K"
	# a certificate, a bare RSA key, a bare EC key, two age identities,
	# one more to add, and an attacker's
	openssl req -x509 -newkey rsa:2048 -nodes -keyout cert.key \
		-out cert.crt -subj /CN=escrow-cert -days 30 2>/dev/null
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 \
		-out rsa.key 2>/dev/null
	openssl pkey -in rsa.key -pubout -out rsa.pub
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
		-out ec.key 2>/dev/null
	openssl pkey -in ec.key -pubout -out ec.pub
	age-keygen -o age1.txt 2>/dev/null
	age-keygen -o age2.txt 2>/dev/null
	age-keygen -y age1.txt > age1.rcpt
	age-keygen -y age2.txt > age2.rcpt
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-384 -nodes \
		-keyout add.key -out add.crt -subj /CN=escrow-add -days 30 \
		2>/dev/null
	openssl req -x509 -newkey rsa:2048 -nodes -keyout evil.key \
		-out evil.crt -subj /CN=evil -days 30 2>/dev/null
	export K
}

teardown_file() { swtpm_stop; }

setup() {
	W=$BATS_TEST_TMPDIR
	cd "$W"
	A1=$(cat "$K/age1.rcpt")
	A2=$(cat "$K/age2.rcpt")
	tb extend 16 -s "reseal-stored-start-$BATS_TEST_NUMBER"
}

rec() { python3 "$BATS_TEST_DIRNAME/helpers/escrow-record.py" "$@"; }

# old: every kind of recipient, sealed to PCR 16; then the PCRs move
seal_old() {
	tb seal -p sha256:16 --escrow "$K/cert.crt" --escrow "$K/rsa.pub" \
		--escrow "$K/ec.pub" --escrow "$A1" --escrow "$A2" -o old s
	tb extend 16 -s "an update moved the PCRs"
}

# opens FILE KEY...: each key opens FILE's CMS copy, each age identity
# its age copy
cms_opens() {
	local f=$1 k
	shift
	for k in "$@"; do
		openssl cms -decrypt -inform PEM -in "$f" -inkey "$K/$k" |
			cmp - s
	done
}
age_opens() {
	local f=$1 k
	shift
	for k in "$@"; do
		pem_cut "AGE ENCRYPTED FILE" "$f" | age -d -i "$K/$k" | cmp - s
	done
}

@test "reseal -k KEY, no --escrow: NEW's copies are for OLD's stored recipients (openssl cms, age -d, recover); --escrow-out writes them" {
	echo "the disk key, 32 bytes or so...." > s
	seal_old
	# the record: 3 CMS recipients (certificate, two keys) and 2 age
	run rec old show
	assert_output --partial "iterations 100000"
	[ "$(grep -c '^kind [12] ' <<<"$output")" = 3 ]
	[ "$(grep -c '^kind 3 bytes 32$' <<<"$output")" = 2 ]
	run tb unseal old
	assert_failure 4
	run tb reseal -k "$K/rsa.key" -p sha256:16 --escrow-out copy -o new old
	assert_success
	assert_output "tpmbox reseal: new's escrow copies are for 2 RSA key(s), 1 EC key(s), 2 age recipient(s) (5 kept from old, 0 added, 0 dropped)"
	tb unseal new | cmp - s
	cms_opens new cert.key rsa.key ec.key
	age_opens new age1.txt age2.txt
	# re-encrypted, not copied; a fresh record (new salt) for NEW
	not cmp -s <(pem_cut CMS old) <(pem_cut CMS new)
	not cmp -s <(rec old show | grep salt) <(rec new show | grep salt)
	for k in cert.key rsa.key ec.key age1.txt age2.txt; do
		TPMBOX_TCTI=swtpm:path=$W/none tb recover -k "$K/$k" new | cmp - s
	done
	openssl cms -decrypt -inform PEM -in copy.cms -inkey "$K/ec.key" | cmp - s
	age -d -i "$K/age2.txt" copy.age | cmp - s
	# NEW's record is for the same recipients: it reseals again, from
	# the age copy this time
	tb extend 16 -s "and again"
	tb reseal -k "$K/age1.txt" -p sha256:16 -o newer new
	cms_opens newer cert.key rsa.key ec.key
	age_opens newer age1.txt age2.txt
}

@test "reseal: --escrow adds one; --drop-escrow=R removes one (its key then fails to open NEW); --drop-escrow drops all" {
	head -c 100 /dev/urandom > s
	seal_old
	run tb reseal -k "$K/ec.key" -p sha256:16 --escrow "$K/add.crt" \
		--escrow "$A1" -o added old
	assert_success
	assert_output --partial "2 RSA key(s), 2 EC key(s), 2 age recipient(s) (5 kept from old, 1 added, 0 dropped)"
	cms_opens added cert.key rsa.key ec.key add.key
	age_opens added age1.txt age2.txt
	# drop the bare RSA key (named by its file) and an age recipient
	run tb reseal -k "$K/ec.key" -p sha256:16 --drop-escrow="$K/rsa.pub" \
		--drop-escrow="$A2" -o dropped old
	assert_success
	assert_output --partial "1 RSA key(s), 1 EC key(s), 1 age recipient(s) (3 kept from old, 0 added, 2 dropped)"
	cms_opens dropped cert.key ec.key
	age_opens dropped age1.txt
	run openssl cms -decrypt -inform PEM -in dropped -inkey "$K/rsa.key"
	assert_failure
	run bash -c "sed -n '/^-----BEGIN AGE ENCRYPTED FILE-----\$/,/^-----END AGE ENCRYPTED FILE-----\$/p' dropped | age -d -i '$K/age2.txt'"
	assert_failure
	run tb recover -k "$K/rsa.key" dropped
	assert_failure 4
	# and NEW keeps the smaller set: reseal it again, nothing comes back
	tb extend 16 -s "again"
	run tb reseal -k "$K/cert.key" -p sha256:16 -o dropped2 dropped
	assert_success
	assert_output --partial "1 RSA key(s), 1 EC key(s), 1 age recipient(s) (3 kept from dropped"
	# the same key given as its certificate's public key matches it
	openssl x509 -in "$K/cert.crt" -pubkey -noout > certkey.pub
	run tb reseal -k "$K/ec.key" -p sha256:16 --drop-escrow=certkey.pub \
		-o dropped3 old
	assert_success
	assert_output --partial "(4 kept from old, 0 added, 1 dropped)"
	# --drop-escrow: every one dropped (today's meaning)
	run tb reseal -k "$K/ec.key" -p sha256:16 --drop-escrow -o none old
	assert_success
	assert_output "tpmbox reseal: none has no escrow copies"
	not grep -q "BEGIN CMS" none
	run tb recover -k "$K/ec.key" none
	assert_failure 6
	tb unseal none | cmp - s
}

@test "reseal: refusals of --drop-escrow=R and --escrow-out (exit 2, nothing written)" {
	head -c 40 /dev/urandom > s
	seal_old
	# not a stored recipient
	run tb reseal -k "$K/ec.key" -p sha256:16 --drop-escrow="$K/add.crt" \
		-o new old
	assert_failure 2
	assert_output --partial "--drop-escrow=$K/add.crt: not one of the old blob's recipients"
	[ ! -e new ]
	run tb reseal -k "$K/ec.key" -p sha256:16 \
		--drop-escrow="$(age-keygen 2>/dev/null | age-keygen -y)" -o new old
	assert_failure 2
	assert_output --partial "not one of the old blob's recipients"
	[ ! -e new ]
	# dropped and added at once
	run tb reseal -k "$K/ec.key" -p sha256:16 --drop-escrow="$A1" \
		--escrow "$A1" -o new old
	assert_failure 2
	assert_output --partial "is given with --escrow too"
	[ ! -e new ]
	# both forms
	run tb reseal -k "$K/ec.key" --drop-escrow --drop-escrow="$A1" -o new old
	assert_failure 2
	assert_output --partial "give one or the other"
	# not a recipient at all
	run tb reseal -k "$K/ec.key" --drop-escrow=age1nope -o new old
	assert_failure 2
	run tb reseal -k "$K/ec.key" --drop-escrow="$W/none.pem" -o new old
	assert_failure 6
	# every one dropped, and --escrow-out
	run tb reseal -k "$K/ec.key" -p sha256:16 --drop-escrow="$K/cert.crt" \
		--drop-escrow="$K/rsa.pub" --drop-escrow="$K/ec.pub" \
		--drop-escrow="$A1" --drop-escrow="$A2" --escrow-out p -o new old
	assert_failure 2
	assert_output --partial "--escrow-out: NEW has no escrow copies"
	run tb reseal -k "$K/ec.key" -p sha256:16 --drop-escrow --escrow-out p \
		-o new old
	assert_failure 2
	assert_output --partial "--escrow-out needs --escrow"
	[ ! -e new ]
	[ ! -e p.cms ]
	[ ! -e p.age ]
	# a blob without escrow copies
	tb seal -o plain s
	run tb reseal --drop-escrow="$A1" -o new plain
	assert_failure 2
	assert_output --partial "has no escrow copies"
	[ ! -e new ]
}

# attack NAME OP...: OLD edited by OP, then reseal refuses with one
# sentence (exit $CODE), nothing written, the attacker's key opens nothing
attack() {
	local code=$1
	shift
	cp old bad
	rec bad "$@"
	run tb reseal -k "$K/rsa.key" -p sha256:16 --escrow-out p -o new bad
	assert_failure "$code"
	[ "${#lines[@]}" -le 2 ]
	[ ! -e new ]
	[ ! -e p.cms ]
	[ ! -e p.age ]
	ls -A | grep -v -x -e old -e bad -e s >&2 && return 1
	not openssl cms -decrypt -inform PEM -in bad -inkey "$K/evil.key" \
		-out /dev/null 2>/dev/null
}

@test "reseal: an altered record (recipient added, MAC, salt, iterations 1 and 2^31) -> exit 1 with one sentence, nothing written; the attacker's key opens nothing" {
	head -c 48 /dev/urandom > s
	seal_old
	attack 1 add-cert "$K/evil.crt"
	assert_output --partial "bad's escrow recipients do not match its secret: altered blob?"
	attack 1 flip-mac
	assert_output --partial "do not match its secret: altered blob?"
	attack 1 flip-salt
	assert_output --partial "do not match its secret: altered blob?"
	# refused before anything is computed: the count is read first
	attack 1 iter 1
	assert_output --partial "asks for 1 PBKDF2 iterations (10000 to 10000000 accepted; altered blob?)"
	attack 1 iter 2147483648
	assert_output --partial "asks for 2147483648 PBKDF2 iterations"
	attack 1 iter 9999
	attack 1 iter 10000001
	# the edge values are accepted by the parser (the MAC then fails)
	attack 1 iter 10000
	assert_output --partial "do not match its secret"
	# a record cut short, or after the index was removed
	cp old bad
	python3 - <<'PY'
import re
t = open("bad").read()
t = re.sub(r"(-----BEGIN TPMBOX ESCROW RECIPIENTS-----\n)[^\n]*\n", r"\1", t)
open("bad", "w").write(t)
PY
	run tb reseal -k "$K/rsa.key" -p sha256:16 -o new bad
	assert_failure 1
	assert_output --partial "bad:"
	[ ! -e new ]
	# the check is what refuses: the same added recipient with the MAC
	# redone by whoever knows the secret is accepted, and the added key
	# opens NEW (which is why the MAC is keyed by the secret)
	cp old bad
	rec bad add-cert "$K/evil.crt"
	rec bad remac s
	run tb reseal -k "$K/rsa.key" -p sha256:16 -o new bad
	assert_success
	assert_output --partial "(6 kept from bad"
	openssl cms -decrypt -inform PEM -in new -inkey "$K/evil.key" | cmp - s
	# and iterations 10000 with the MAC redone: accepted
	cp old bad2
	rec bad2 iter 10000
	rec bad2 remac s
	tb reseal -k "$K/rsa.key" -p sha256:16 -o new2 bad2
	cms_opens new2 cert.key
}

@test "reseal: an altered record with --drop-escrow is not read (every recipient dropped)" {
	head -c 48 /dev/urandom > s
	seal_old
	cp old bad
	rec bad add-cert "$K/evil.crt"
	tb reseal -k "$K/rsa.key" -p sha256:16 --drop-escrow --escrow "$K/ec.pub" \
		-o new bad
	cms_opens new ec.key
	run openssl cms -decrypt -inform PEM -in new -inkey "$K/evil.key"
	assert_failure
}

@test "reseal: a 15-byte secret: seal stores no record and says nothing new; reseal asks for the recipients and says why; 16 bytes: a record" {
	printf '123456789012345' > s
	run tb seal -p sha256:16 --escrow "$K/rsa.pub" --escrow "$A1" -o old s
	assert_success
	assert_output ""
	not grep -q "TPMBOX ESCROW RECIPIENTS" old
	tb extend 16 -s moved
	run tb reseal -k "$K/rsa.key" -p sha256:16 -o new old
	assert_failure 2
	assert_output --partial "its secret (15 bytes) is too short to key the recipients' authenticator (16 bytes at least), so the blob does not hold their public keys"
	assert_output --partial "give them again with --escrow"
	[ ! -e new ]
	run tb reseal -k "$K/rsa.key" -p sha256:16 --escrow-out p -o new old
	assert_failure 2
	assert_output --partial "is too short to key the recipients' authenticator"
	[ ! -e new ]
	[ ! -e p.cms ]
	# given again: today's path, and NEW still has no record
	run tb reseal -k "$K/rsa.key" -p sha256:16 --escrow "$K/rsa.pub" \
		--escrow "$A1" -o new old
	assert_success
	assert_output "tpmbox reseal: new's escrow copies are for 1 RSA key(s), 0 EC key(s), 1 age recipient(s)"
	not grep -q "TPMBOX ESCROW RECIPIENTS" new
	# 16 bytes: stored
	printf '1234567890123456' > s
	tb seal --escrow "$K/rsa.pub" -o old16 s
	grep -q "TPMBOX ESCROW RECIPIENTS" old16
	# a record added to a blob of a short secret is refused, not used
	printf '123456789012345' > s
	tb seal --escrow "$K/rsa.pub" -o short s
	{ grep -v -e '^-----BEGIN TPMBOX ESCROW RECIPIENTS' -e '^-----END TPMBOX ESCROW RECIPIENTS' short
	  pem_cut "TPMBOX ESCROW RECIPIENTS" old16; } > grafted
	run tb reseal -k "$K/rsa.key" -o new2 grafted
	assert_failure 1
	assert_output --partial "altered blob?"
	[ ! -e new2 ]
}

@test "reseal: a recovery code with stored recipients keeps today's rules (kept, replaced, or asked for)" {
	head -c 64 /dev/urandom > s
	tb seal -p sha256:16 --escrow "$K/ec.pub" --recovery-code-out old.code \
		-o old s
	tb extend 16 -s moved
	run tb reseal -k "$K/ec.key" -p sha256:16 -o new old
	assert_failure 2
	assert_output --partial "has a recovery code"
	[ ! -e new ]
	# from the code alone: the record verifies with the secret it opens
	run tb reseal --recovery-code file:old.code -p sha256:16 -o new old
	assert_success
	assert_output --partial "0 RSA key(s), 1 EC key(s), 0 age recipient(s) and a recovery code (1 kept from old"
	cms_opens new ec.key
	tb recover --recovery-code file:old.code new | cmp - s
	tb reseal -k "$K/ec.key" --recovery-code-out new2.code -p sha256:16 -o new2 old
	tb recover --recovery-code file:new2.code new2 | cmp - s
}

@test "blobs with a record: unseal, recover and the stock tools read them as before (the record is a block of its own)" {
	head -c 1000 /dev/urandom > s
	tb seal --escrow "$K/cert.crt" --escrow "$A1" -o b s
	grep -q "^-----BEGIN TPMBOX ESCROW RECIPIENTS-----$" b
	tb unseal b | cmp - s
	tb recover -k "$K/cert.key" b | cmp - s
	openssl cms -decrypt -inform PEM -in b -inkey "$K/cert.key" | cmp - s
	age_opens b age1.txt
	# a damaged record does not stand in recover's way
	rec b flip-mac
	tb recover -k "$K/age1.txt" b | cmp - s
}
