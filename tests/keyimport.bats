#!/usr/bin/env bats
# keyimport: a private key made by openssl, wrapped on the host and taken
# into the TPM under the SRK (TPM2_Import), or wrapped offline for another
# TPM (--to).  Oracles: openssl makes the keys and verifies what the TPM
# signs with them; tpm2-tools loads the key file's pieces under the SRK
# (tpm2_load -C 0x81000001), signs (tpm2_sign) and decrypts
# (tpm2_rsadecrypt) with them.

load helpers/common
bats_require_minimum_version 1.5.0

setup_file() {
	swtpm_start
	D=$BATS_FILE_TMPDIR
	export D
	tb takeown --srk-pub "$D/srk.pem" >/dev/null
	export TPMBOX_SRK=$D/srk.pem
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
		-out "$D/ec.pem" 2>/dev/null
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 \
		-out "$D/ec384.pem" 2>/dev/null
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 \
		-out "$D/rsa.pem" 2>/dev/null
	printf 'a message for the TPM to sign' > "$D/msg"
}
teardown_file() { swtpm_stop; }
setup() {
	"$TPMBOX" --list | grep -q '^keyimport ' ||
		skip "keyimport is not in this build (make tiny leaves it out)"
}
# tpm2-tools leaves what it loaded in the TPM (no resource manager)
teardown() { t2_flush; }

# load KEYFILE NAME: its pieces loaded under the SRK; NAME.ctx
load_key() {
	tss2_pieces "$1" "$D/$2"
	t2_flush
	tpm2_load -Q -C 0x81000001 -u "$D/$2/pub" -r "$D/$2/priv" \
		-c "$D/$2.ctx"
}

# verify_with ORIGINAL.pem SIG: openssl checks SIG over $D/msg with the
# original key's public half
verify_with() {
	openssl pkey -in "$1" -pubout -out "$BATS_TEST_TMPDIR/orig.pub"
	openssl dgst -sha256 -verify "$BATS_TEST_TMPDIR/orig.pub" \
		-signature "$2" "$D/msg"
}

@test "keyimport: an openssl P-256 key signs in the TPM; openssl verifies with the original; name and public match" {
	run tb keyimport -i "$D/ec.pem" -o "$D/ec.key" --pub "$D/ec.pub"
	assert_success
	name=$output
	openssl pkey -in "$D/ec.pem" -pubout | cmp - "$D/ec.pub"
	load_key "$D/ec.key" ec
	[ "$(tpm2_readpublic -c "$D/ec.ctx" | sed -n 's/^name: //p')" = "$name" ]
	tpm2_sign -c "$D/ec.ctx" -g sha256 -s ecdsa -f plain \
		-o "$D/ec.sig" "$D/msg"
	verify_with "$D/ec.pem" "$D/ec.sig"
	# not made by the TPM: sensitiveDataOrigin, fixedTPM, fixedParent clear
	run tpm2_readpublic -c "$D/ec.ctx"
	refute_output --partial sensitivedataorigin
	refute_output --partial fixedtpm
	# a key file with emptyAuth TRUE (no --auth)
	sed '1d;$d' "$D/ec.key" | base64 -d | openssl asn1parse -inform der |
		grep -A1 'cont \[ 0 \]' | grep -q 'BOOLEAN *:255'
	# and a signature with another key does not verify (the check can fail)
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
		-out "$BATS_TEST_TMPDIR/other.pem" 2>/dev/null
	run ! verify_with "$BATS_TEST_TMPDIR/other.pem" "$D/ec.sig"
}

@test "keyimport: P-384 and RSA-2048 keys sign; an RSA --usage decrypt key opens what openssl encrypted (OAEP-SHA256)" {
	tb keyimport -i "$D/ec384.pem" -o "$D/ec384.key" --pub "$D/ec384.pub" >/dev/null
	openssl pkey -in "$D/ec384.pem" -pubout | cmp - "$D/ec384.pub"
	load_key "$D/ec384.key" ec384
	tpm2_sign -c "$D/ec384.ctx" -g sha256 -s ecdsa -f plain \
		-o "$D/ec384.sig" "$D/msg"
	verify_with "$D/ec384.pem" "$D/ec384.sig"

	tb keyimport -i "$D/rsa.pem" -o "$D/rsa.key" >/dev/null
	load_key "$D/rsa.key" rsa
	tpm2_sign -c "$D/rsa.ctx" -g sha256 -s rsassa -f plain \
		-o "$D/rsa.sig" "$D/msg"
	verify_with "$D/rsa.pem" "$D/rsa.sig"
	# a signing key does not decrypt
	openssl pkey -in "$D/rsa.pem" -pubout -out "$D/rsa.pub"
	openssl pkeyutl -encrypt -pubin -inkey "$D/rsa.pub" \
		-pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha256 \
		-in "$D/msg" -out "$D/ct"
	run ! tpm2_rsadecrypt -c "$D/rsa.ctx" -s oaep -o "$D/pt0" "$D/ct"

	t2_flush
	tb keyimport -i "$D/rsa.pem" --usage decrypt -o "$D/rsad.key" >/dev/null
	load_key "$D/rsad.key" rsad
	tpm2_rsadecrypt -c "$D/rsad.ctx" -s oaep -o "$D/pt" "$D/ct"
	cmp "$D/pt" "$D/msg"
}

@test "keyimport --auth: the key's value is needed to use it (tpm2_sign -p), emptyAuth not TRUE in the file" {
	tb keyimport -i "$D/ec.pem" --auth str:KeyPassw0rd -o "$D/eca.key" >/dev/null
	load_key "$D/eca.key" eca
	run tpm2_sign -c "$D/eca.ctx" -p wrong -g sha256 -s ecdsa -f plain \
		-o "$D/eca.sig" "$D/msg"
	assert_failure
	# the wrong value counted toward lockout: clear it for the next tests
	tpm2_dictionarylockout -Q -c >/dev/null 2>&1 || true
	tpm2_sign -c "$D/eca.ctx" -p KeyPassw0rd -g sha256 -s ecdsa -f plain \
		-o "$D/eca.sig" "$D/msg"
	verify_with "$D/ec.pem" "$D/eca.sig"
	# emptyAuth not TRUE (absent: FALSE)
	sed '1d;$d' "$D/eca.key" | base64 -d | openssl asn1parse -inform der \
		> "$BATS_TEST_TMPDIR/asn1"
	grep -q 'cont \[ 2 \]\|INTEGER' "$BATS_TEST_TMPDIR/asn1"
	! grep -A1 'cont \[ 0 \]' "$BATS_TEST_TMPDIR/asn1" | grep -q 'BOOLEAN *:255' || false
}

@test "keyimport --to: wrapped offline (no TPM) for this TPM's SRK, taken in here, signs; for another SRK the TPM refuses (exit 1)" {
	TPMBOX_TCTI=swtpm:path=/nonexistent run tb keyimport --to "$D/srk.pem" \
		-i "$D/ec.pem" -o "$D/ec.imp"
	assert_success
	grep -q 'BEGIN TSS2 PRIVATE KEY' "$D/ec.imp"
	# the importable OID 2.23.133.10.1.4
	sed '1d;$d' "$D/ec.imp" | base64 -d | openssl asn1parse -inform der |
		grep -q '2.23.133.10.1.4'
	run tb keyimport -i "$D/ec.imp" -o "$D/ec2.key" --pub "$D/ec2.pub"
	assert_success
	openssl pkey -in "$D/ec.pem" -pubout | cmp - "$D/ec2.pub"
	load_key "$D/ec2.key" ec2
	tpm2_sign -c "$D/ec2.ctx" -g sha256 -s ecdsa -f plain \
		-o "$D/ec2.sig" "$D/msg"
	verify_with "$D/ec.pem" "$D/ec2.sig"
	# another TPM's SRK (a P-256 key that is not this TPM's)
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 2>/dev/null |
		openssl pkey -pubout > "$BATS_TEST_TMPDIR/other-srk.pem"
	tb keyimport --to "$BATS_TEST_TMPDIR/other-srk.pem" -i "$D/ec.pem" \
		-o "$BATS_TEST_TMPDIR/other.imp" >/dev/null
	run tb keyimport -i "$BATS_TEST_TMPDIR/other.imp" \
		-o "$BATS_TEST_TMPDIR/other.key"
	assert_failure 1
	assert_output --partial "another TPM"
	[ ! -e "$BATS_TEST_TMPDIR/other.key" ]
}

@test "keyimport: the private scalar never crosses the bus (its public x coordinate does)" {
	local d x
	d=$(openssl ec -in "$D/ec.pem" -text -noout 2>/dev/null |
		sed -n '/^priv:/,/^pub:/p' | sed '1d;$d' | tr -d ' :\n')
	x=$(openssl ec -in "$D/ec.pem" -text -noout 2>/dev/null |
		sed -n '/^pub:/,/^ASN1/p' | sed '1d;$d' | tr -d ' :\n' | cut -c3-66)
	[ ${#d} -ge 62 ]
	[ ${#x} = 64 ]
	tb --trace keyimport -i "$D/ec.pem" -f -o "$D/t.key" >/dev/null \
		2>"$BATS_TEST_TMPDIR/trace"
	grep -q TPM2_Import "$BATS_TEST_TMPDIR/trace"
	tr -d ' \n' < "$BATS_TEST_TMPDIR/trace" | tr A-F a-f > "$BATS_TEST_TMPDIR/wire"
	grep -q "$x" "$BATS_TEST_TMPDIR/wire"
	! grep -q "${d: -40}" "$BATS_TEST_TMPDIR/wire" || false
	# the inner wrapper: TPM2_Import's symmetricAlg is AES-128-CFB (and
	# the TPM took the key in: the inner integrity checked out with the
	# encryptionKey it got in the first parameter, encrypted by the
	# session; that key is tpmbox's only, so the trace cannot show it)
	imp=$(sed -n '/^> TPM2_Import/,/^</p' "$BATS_TEST_TMPDIR/trace" |
		sed '1d;$d' | tr -d ' \n')
	[[ $imp == *000600800043 ]] || { echo "import: $imp"; false; }
}

@test "keyimport refusals: no pin (exit 2 with the hint, nothing sent), --tofu; bad options; keys it cannot take" {
	run env -u TPMBOX_SRK "$TPMBOX" --trace keyimport -i "$D/ec.pem" -o "$BATS_TEST_TMPDIR/k"
	assert_failure 2
	assert_output --partial "no SRK is pinned"
	refute_output --partial "TPM2_"
	assert_output --partial "--tofu"
	[ ! -e "$BATS_TEST_TMPDIR/k" ]
	run env -u TPMBOX_SRK "$TPMBOX" keyimport --tofu -i "$D/ec.pem" -o "$BATS_TEST_TMPDIR/k"
	assert_success
	# outputs exist: -f needed, refused before the TPM is asked
	run tb keyimport -i "$D/ec.pem" -o "$BATS_TEST_TMPDIR/k"
	assert_failure 2
	assert_output --partial "use -f"
	run tb keyimport -o "$BATS_TEST_TMPDIR/k2"
	assert_failure 2
	run tb keyimport -i "$D/ec.pem" -o "$BATS_TEST_TMPDIR/k2" --usage both
	assert_failure 2
	run tb keyimport -i "$D/ec.pem" -o "$BATS_TEST_TMPDIR/k2" --usage decrypt
	assert_failure 2
	assert_output --partial "RSA"
	# an importable file takes no --auth
	run tb keyimport -i "$D/ec.imp" --auth str:x -o "$BATS_TEST_TMPDIR/k2"
	assert_failure 2
	# keys a TPM does not take, and files that are no private key
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-521 \
		-out "$BATS_TEST_TMPDIR/p521.pem" 2>/dev/null
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 \
		-out "$BATS_TEST_TMPDIR/r1024.pem" 2>/dev/null
	openssl genpkey -algorithm ED25519 -out "$BATS_TEST_TMPDIR/ed.pem" 2>/dev/null
	openssl pkey -in "$D/ec.pem" -aes256 -passout pass:x \
		-out "$BATS_TEST_TMPDIR/enc.pem" 2>/dev/null
	for f in p521 r1024 ed enc; do
		run tb keyimport -i "$BATS_TEST_TMPDIR/$f.pem" -o "$BATS_TEST_TMPDIR/k3"
		assert_failure 2
		[ "${#lines[@]}" -le 2 ]
		[ ! -e "$BATS_TEST_TMPDIR/k3" ]
	done
	run tb keyimport -i "$D/ec.pub" -o "$BATS_TEST_TMPDIR/k3"
	assert_failure 2
	run tb keyimport -i "$BATS_TEST_TMPDIR/missing.pem" -o "$BATS_TEST_TMPDIR/k3"
	assert_failure 6
	# a loadable key file is in a TPM already
	run tb keyimport -i "$D/ec.key" -o "$BATS_TEST_TMPDIR/k3"
	assert_failure 2
	assert_output --partial "not importable"
	# a damaged importable file
	sed '5s/./A/;6s/./B/' "$D/ec.imp" > "$BATS_TEST_TMPDIR/bad.imp"
	run tb keyimport -i "$BATS_TEST_TMPDIR/bad.imp" -o "$BATS_TEST_TMPDIR/k3"
	assert_failure
	[ "$status" -le 6 ]
	[ ! -e "$BATS_TEST_TMPDIR/k3" ]
}
