#!/usr/bin/env bats
# bind and unbind: data encrypted on the host to an RSA key that lives in
# the TPM, opened only there.  Oracles: openssl opens what bind wrote with
# the original of an imported key (pkeyutl for one OAEP block, cms for a
# CMS message) and writes CMS messages unbind opens (cms -encrypt to a
# certificate carrying the key, by issuerAndSerialNumber and by -keyid);
# tpm2_rsadecrypt opens a block with the key file's pieces.

load helpers/common
bats_require_minimum_version 1.5.0

setup_file() {
	swtpm_start
	D=$BATS_FILE_TMPDIR
	export D
	"$TPMBOX" --list | grep -q '^unbind ' || return 0
	tb keycreate --rsa --usage decrypt -o "$D/k.key" --pub "$D/k.pub" \
		>/dev/null
	# an openssl key taken in: its original is the oracle's private key
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 \
		-out "$D/imp.pem" 2>/dev/null
	openssl pkey -in "$D/imp.pem" -pubout -out "$D/imp.pub"
	tb keyimport --tofu --usage decrypt --auth str:OpenSesame \
		-i "$D/imp.pem" -o "$D/imp.key" >/dev/null
	# a certificate carrying the imported key, for openssl cms -encrypt
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$D/ca.key" \
		-subj /CN=bind-test-ca -days 2 -out "$D/ca.crt" 2>/dev/null
	openssl req -new -key "$D/ca.key" -subj /CN=recipient \
		-out "$D/r.csr" 2>/dev/null
	openssl x509 -req -in "$D/r.csr" -CA "$D/ca.crt" -CAkey "$D/ca.key" \
		-CAcreateserial -force_pubkey "$D/imp.pub" -days 2 \
		-extfile <(echo subjectKeyIdentifier=hash) \
		-out "$D/imp.crt" 2>/dev/null
	head -c 190 /dev/urandom > "$D/d190"
	head -c 191 /dev/urandom > "$D/d191"
	head -c 300000 /dev/urandom > "$D/big"
}
teardown_file() { swtpm_stop; }
setup() {
	"$TPMBOX" --list | grep -q '^unbind ' ||
		skip "bind and unbind are not in this build (make tiny leaves them out)"
}
teardown() { t2_flush; }

@test "bind: up to one OAEP block is that block (190 bytes for RSA-2048); openssl pkeyutl and tpm2_rsadecrypt open it, and unbind" {
	tb bind --pub "$D/imp.pub" -i "$D/d190" -o "$D/b190"
	[ "$(stat -c %s "$D/b190")" = 256 ]
	openssl pkeyutl -decrypt -inkey "$D/imp.pem" -pkeyopt rsa_padding_mode:oaep \
		-pkeyopt rsa_oaep_md:sha256 -in "$D/b190" | cmp - "$D/d190"
	tb unbind -k "$D/imp.key" --auth str:OpenSesame -i "$D/b190" -o "$D/o190"
	cmp "$D/o190" "$D/d190"
	[ "$(stat -c %a "$D/o190")" = 600 ]
	# a key made in the TPM: tpm2-tools opens the block with its pieces
	printf 'short secret' | tb bind --pub "$D/k.pub" > "$D/bs"
	tss2_pieces "$D/k.key" "$D/kp"
	tpm2_readpublic -Q -c 0x81000001 >/dev/null 2>&1 || tb persist --srk >/dev/null
	t2_flush
	tpm2_load -Q -C 0x81000001 -u "$D/kp/pub" -r "$D/kp/priv" -c "$D/k.ctx"
	t2_flush
	tpm2_rsadecrypt -c "$D/k.ctx" -s oaep -o "$D/bs.t2" "$D/bs"
	[ "$(cat "$D/bs.t2")" = "short secret" ]
	[ "$(tb unbind -k "$D/k.key" < "$D/bs")" = "short secret" ]
	# the decrypt applet opens a block too
	[ "$(tb decrypt -k "$D/k.key" -i "$D/bs")" = "short secret" ]
}

@test "bind: more than one block is a CMS AuthEnvelopedData that openssl cms -decrypt opens with the original key; unbind opens it" {
	tb bind --pub "$D/imp.pub" -i "$D/d191" -o "$D/b191"
	[ "$(stat -c %s "$D/b191")" -gt 256 ]
	openssl cms -decrypt -binary -inform DER -in "$D/b191" -inkey "$D/imp.pem" |
		cmp - "$D/d191"
	tb bind --pub "$D/imp.pub" -i "$D/big" -o "$D/bbig"
	openssl cms -cmsout -print -inform DER -in "$D/bbig" > "$D/bbig.txt"
	grep -q 'contentType: id-smime-ct-authEnvelopedData' "$D/bbig.txt"
	grep -q 'algorithm: aes-256-gcm' "$D/bbig.txt"
	grep -q 'algorithm: rsaesOaep' "$D/bbig.txt"
	# the recipient is named by the key's subject key identifier
	ski=$(openssl x509 -in "$D/imp.crt" -noout -ext subjectKeyIdentifier 2>/dev/null |
		tail -1 | tr -d ' :' | tr A-F a-f)
	[ ${#ski} = 40 ]
	got=$(sed -n '/d.subjectKeyIdentifier:/,/keyEncryptionAlgorithm:/p' "$D/bbig.txt" |
		sed -En 's/^ *[0-9a-f]{4} - //; T; s/  .*//; s/[- ]//g; p' | tr -d '\n')
	[ "$got" = "$ski" ]
	openssl cms -decrypt -binary -inform DER -in "$D/bbig" -inkey "$D/imp.pem" |
		cmp - "$D/big"
	tb unbind -k "$D/imp.key" --auth str:OpenSesame -i "$D/bbig" | cmp - "$D/big"
	# RSA-3072: 318 bytes still fit one block
	tb keycreate --rsa --bits 3072 --usage decrypt -o "$D/k3.key" \
		--pub "$D/k3.pub" >/dev/null
	head -c 318 "$D/big" | tb bind --pub "$D/k3.pub" > "$D/b318"
	[ "$(stat -c %s "$D/b318")" = 384 ]
	head -c 319 "$D/big" | tb bind --pub "$D/k3.pub" > "$D/b319"
	[ "$(stat -c %s "$D/b319")" -gt 384 ]
	tb unbind -k "$D/k3.key" -i "$D/b318" | cmp - <(head -c 318 "$D/big")
	tb unbind -k "$D/k3.key" -i "$D/b319" | cmp - <(head -c 319 "$D/big")
}

@test "unbind opens what openssl cms -encrypt wrote: issuerAndSerialNumber, -keyid, and the key as second of two recipients" {
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$D/other.key" \
		-subj /CN=other -days 2 -out "$D/other.crt" 2>/dev/null
	for form in "" -keyid; do
		openssl cms -encrypt -binary -aes-256-gcm -outform DER $form \
			-in "$D/big" -out "$D/o.cms" \
			-recip "$D/other.crt" -keyopt rsa_padding_mode:oaep \
			-keyopt rsa_oaep_md:sha256 \
			-recip "$D/imp.crt" -keyopt rsa_padding_mode:oaep \
			-keyopt rsa_oaep_md:sha256
		tb unbind -k "$D/imp.key" --auth str:OpenSesame -i "$D/o.cms" |
			cmp - "$D/big"
	done
	# SHA-1 OAEP (openssl's default OAEP digest) opens too
	openssl cms -encrypt -binary -aes-256-gcm -outform DER -in "$D/d191" \
		-out "$D/o1.cms" -recip "$D/imp.crt" -keyopt rsa_padding_mode:oaep
	tb unbind -k "$D/imp.key" --auth str:OpenSesame -i "$D/o1.cms" |
		cmp - "$D/d191"
	# PKCS#1 v1.5 key transport is not read: a clear refusal
	openssl cms -encrypt -binary -aes-256-gcm -outform DER -in "$D/d191" \
		-out "$D/o15.cms" -recip "$D/imp.crt"
	run tb unbind -k "$D/imp.key" --auth str:OpenSesame -i "$D/o15.cms"
	assert_failure 4
	assert_output --partial "not one the CMS message was made for"
	# AES-CBC EnvelopedData is not what unbind reads
	openssl cms -encrypt -binary -aes-256-cbc -outform DER -in "$D/d191" \
		-out "$D/cbc.cms" -recip "$D/imp.crt" -keyopt rsa_padding_mode:oaep
	run tb unbind -k "$D/imp.key" --auth str:OpenSesame -i "$D/cbc.cms"
	assert_failure 1
}

@test "unbind: neither the data nor the auth value is on the bus" {
	printf 'BoundPlainText99' > "$D/pt"
	tb bind --pub "$D/imp.pub" -i "$D/pt" -o "$D/pt.b"
	tb bind --pub "$D/imp.pub" -i "$D/big" -o "$D/big.b"
	for f in pt.b big.b; do
		tb --trace unbind -k "$D/imp.key" --auth str:OpenSesame -i "$D/$f" \
			-o "$BATS_TEST_TMPDIR/out" -f 2> "$BATS_TEST_TMPDIR/trace"
		grep -q TPM2_RSA_Decrypt "$BATS_TEST_TMPDIR/trace"
		tr -d ' \n' < "$BATS_TEST_TMPDIR/trace" | tr A-F a-f > "$BATS_TEST_TMPDIR/wire"
		# what went to the TPM is on the bus (the check can see)
		grep -q "$(head -c 24 "$D/pt.b" | od -An -tx1 | tr -d ' \n')" \
			"$BATS_TEST_TMPDIR/wire" || [ "$f" = big.b ]
		! grep -q "$(printf BoundPlainText99 | od -An -tx1 | tr -d ' \n')" "$BATS_TEST_TMPDIR/wire" || false
		! grep -q "$(printf OpenSesame | od -An -tx1 | tr -d ' \n')" "$BATS_TEST_TMPDIR/wire" || false
	done
	cmp "$BATS_TEST_TMPDIR/out" "$D/big"
}

@test "refusals: an EC or RSA-1024 key, another TPM key, a wrong auth, damaged or cut input, a signing key" {
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
		-out "$BATS_TEST_TMPDIR/ec.pem" 2>/dev/null
	openssl pkey -in "$BATS_TEST_TMPDIR/ec.pem" -pubout -out "$BATS_TEST_TMPDIR/ec.pub"
	run tb bind --pub "$BATS_TEST_TMPDIR/ec.pub" -i "$D/d190"
	assert_failure 2
	assert_output --partial "not an RSA key"
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 2>/dev/null |
		openssl pkey -pubout -out "$BATS_TEST_TMPDIR/r1024.pub"
	run tb bind --pub "$BATS_TEST_TMPDIR/r1024.pub" -i "$D/d190"
	assert_failure 2
	assert_output --partial "1024 bits"
	run tb bind -i "$D/d190"
	assert_failure 2
	tb bind --pub "$D/k.pub" -i "$D/d190" -o "$BATS_TEST_TMPDIR/x"
	run tb bind --pub "$D/k.pub" -i "$D/d190" -o "$BATS_TEST_TMPDIR/x"
	assert_failure 2
	assert_output --partial "exists"
	# made for the imported key, opened with the created one: exit 4
	tb bind --pub "$D/imp.pub" -i "$D/d190" -o "$D/for-imp"
	tb bind --pub "$D/imp.pub" -i "$D/big" -o "$D/for-imp.cms"
	run tb unbind -k "$D/k.key" -i "$D/for-imp"
	assert_failure 4
	run tb decrypt -k "$D/k.key" -i "$D/for-imp"
	assert_failure 4
	assert_output --partial "the key does not open it"
	run tb unbind -k "$D/k.key" -i "$D/for-imp.cms" -o "$BATS_TEST_TMPDIR/no"
	assert_failure 4
	assert_output --partial "not one the CMS message was made for"
	[ ! -e "$BATS_TEST_TMPDIR/no" ]
	# the wrong auth value
	run tb unbind -k "$D/imp.key" --auth str:wrong -i "$D/for-imp.cms"
	assert_failure 4
	tpm2_dictionarylockout -Q -c >/dev/null 2>&1 || true
	# one byte of the content changed: the GCM tag fails, nothing written
	python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[-100] ^= 1; open(sys.argv[2], "wb").write(b)' \
		"$D/for-imp.cms" "$BATS_TEST_TMPDIR/bad.cms"
	run tb unbind -k "$D/imp.key" --auth str:OpenSesame -i "$BATS_TEST_TMPDIR/bad.cms" \
		-o "$BATS_TEST_TMPDIR/no"
	assert_failure 1
	assert_output --partial "AES-GCM tag does not verify"
	[ ! -e "$BATS_TEST_TMPDIR/no" ]
	# cut short
	head -c 1000 "$D/for-imp.cms" > "$BATS_TEST_TMPDIR/cut.cms"
	run tb unbind -k "$D/imp.key" --auth str:OpenSesame -i "$BATS_TEST_TMPDIR/cut.cms"
	assert_failure 1
	assert_output --partial "neither one 256-byte RSA-OAEP block nor a CMS message"
	# a signing key cannot open anything
	tb keycreate --rsa -o "$BATS_TEST_TMPDIR/s.key" --pub "$BATS_TEST_TMPDIR/s.pub" >/dev/null
	tb bind --pub "$BATS_TEST_TMPDIR/s.pub" -i "$D/d190" -o "$BATS_TEST_TMPDIR/s.b"
	run tb unbind -k "$BATS_TEST_TMPDIR/s.key" -i "$BATS_TEST_TMPDIR/s.b"
	assert_failure 2
	assert_output --partial "not an RSA decryption key"
}

@test "bind -o /dev/stdout or a FIFO of your own is written as it is (an output that exists is refused only when it is a file)" {
	head -c 32 /dev/urandom > "$BATS_TEST_TMPDIR/d"
	tb bind --pub "$D/k.pub" -i "$BATS_TEST_TMPDIR/d" -o /dev/stdout > "$BATS_TEST_TMPDIR/b1"
	[ "$(stat -c %s "$BATS_TEST_TMPDIR/b1")" = 256 ]
	# the FIFO held open for reading first (read-write: no wait), so the
	# write finds its reader; 256 bytes fit in the pipe
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	exec 4<>"$BATS_TEST_TMPDIR/fifo"
	tb bind --pub "$D/k.pub" -i "$BATS_TEST_TMPDIR/d" -o "$BATS_TEST_TMPDIR/fifo"
	head -c 256 <&4 > "$BATS_TEST_TMPDIR/b2"
	exec 4<&-
	[ "$(stat -c %s "$BATS_TEST_TMPDIR/b2")" = 256 ]
	tb unbind -k "$D/k.key" -i "$BATS_TEST_TMPDIR/b2" | cmp - "$BATS_TEST_TMPDIR/d"
	# a file that exists: refused before anything is done, as always
	run tb bind --pub "$D/k.pub" -i "$BATS_TEST_TMPDIR/d" -o "$BATS_TEST_TMPDIR/b2"
	assert_failure 2
	assert_output --partial "exists (use -f to replace it)"
}
