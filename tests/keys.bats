#!/usr/bin/env bats
# Keys that live in the TPM: keycreate, sign, decrypt.  Oracles: openssl
# verifies the signatures and encrypts to the keys; ssh-keygen reads the
# OpenSSH line; tpm2-tools loads the key file's pieces (tpm2_load) and
# signs with them (tpm2_sign); Debian's tpm2-openssl provider signs with a
# tpmbox key file (parent 0x40000001 derived as it derives it).

load helpers/common
bats_require_minimum_version 1.5.0

setup_file() {
	swtpm_start
	D=$BATS_FILE_TMPDIR
	export D
	printf 'a document to sign' > "$D/msg"
	sha256sum "$D/msg" | cut -c1-64 > "$D/msg.hex"
	xxd -r -p "$D/msg.hex" > "$D/msg.dgst"
	# the small build has no keycreate: every test skips (setup)
	"$TPMBOX" --list | grep -q '^keycreate ' || return 0
	tb keycreate -o "$D/ec.key" --pub "$D/ec.pub" --ssh-pub "$D/ec.ssh" \
		> "$D/ec.name"
	tb keycreate --rsa -o "$D/rsa.key" --pub "$D/rsa.pub" \
		--ssh-pub "$D/rsa.ssh" >/dev/null
	tb keycreate --rsa --bits 3072 --usage decrypt --auth str:Decrypt0r \
		-o "$D/dec.key" --pub "$D/dec.pub" >/dev/null
}
teardown_file() {
	[ -z "${OTHER:-}" ] || kill "$(cat "$OTHER/pid")" 2>/dev/null || true
	swtpm_stop
}
setup() {
	"$TPMBOX" --list | grep -q '^sign ' ||
		skip "keycreate, sign and decrypt are not in this build (make tiny leaves them out)"
}
# tpm2-tools leaves what it loaded in the TPM (no resource manager)
teardown() { t2_flush; }

@test "keycreate --ecc, sign: openssl verifies (dgst over the file, pkeyutl over the digest); another key's check fails" {
	tb sign -k "$D/ec.key" -i "$D/msg" -o "$D/ec.sig"
	openssl dgst -sha256 -verify "$D/ec.pub" -signature "$D/ec.sig" "$D/msg"
	tb sign -k "$D/ec.key" -d "$(cat "$D/msg.hex")" -o "$D/ec2.sig"
	openssl pkeyutl -verify -pubin -inkey "$D/ec.pub" -in "$D/msg.dgst" \
		-sigfile "$D/ec2.sig"
	# stdin and stdout
	tb sign -k "$D/ec.key" < "$D/msg" > "$D/ec3.sig"
	openssl dgst -sha256 -verify "$D/ec.pub" -signature "$D/ec3.sig" "$D/msg"
	# a P-256 key and its public file as openssl sees it
	openssl pkey -pubin -in "$D/ec.pub" -noout -text | grep -q 'NIST CURVE: P-256'
	run ! openssl dgst -sha256 -verify "$D/rsa.pub" -signature "$D/ec.sig" "$D/msg"
}

@test "keycreate --rsa, sign --scheme rsassa and rsapss: openssl verifies both" {
	tb sign -k "$D/rsa.key" -i "$D/msg" -o "$D/r.sig"
	openssl dgst -sha256 -verify "$D/rsa.pub" -signature "$D/r.sig" "$D/msg"
	[ "$(stat -c %s "$D/r.sig")" = 256 ]
	tb sign -k "$D/rsa.key" --scheme rsapss -i "$D/msg" -o "$D/p.sig"
	openssl dgst -sha256 -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:-2 \
		-verify "$D/rsa.pub" -signature "$D/p.sig" "$D/msg"
	# the PSS signature is no PKCS#1 v1.5 one
	run ! openssl dgst -sha256 -verify "$D/rsa.pub" -signature "$D/p.sig" "$D/msg"
}

@test "the key files load in tpm2-tools (tpm2_load under the SRK): same name, tpm2_sign signs for PUB.pem" {
	tss2_pieces "$D/ec.key" "$D/ecp"
	tpm2_readpublic -Q -c 0x81000001 >/dev/null 2>&1 ||
		tb persist --srk >/dev/null
	t2_flush
	tpm2_load -Q -C 0x81000001 -u "$D/ecp/pub" -r "$D/ecp/priv" -c "$D/ecp.ctx"
	t2_flush
	[ "$(tpm2_readpublic -c "$D/ecp.ctx" | sed -n 's/^name: //p')" = "$(cat "$D/ec.name")" ]
	t2_flush
	run tpm2_readpublic -c "$D/ecp.ctx"
	t2_flush
	assert_output --partial fixedtpm
	assert_output --partial sensitivedataorigin
	tpm2_sign -c "$D/ecp.ctx" -g sha256 -s ecdsa -f plain -o "$D/t2.sig" "$D/msg"
	openssl dgst -sha256 -verify "$D/ec.pub" -signature "$D/t2.sig" "$D/msg"
}

@test "the OpenSSH line: ssh-keygen reads it, with the fingerprint of the SPKI key" {
	for k in ec rsa; do
		run ssh-keygen -l -f "$D/$k.ssh"
		assert_success
		a=$(echo "$output" | awk '{print $2}')
		b=$(ssh-keygen -i -m PKCS8 -f "$D/$k.pub" | ssh-keygen -l -f - | awk '{print $2}')
		[ -n "$a" ]
		[ "$a" = "$b" ]
	done
	grep -q '^ecdsa-sha2-nistp256 ' "$D/ec.ssh"
	grep -q '^ssh-rsa ' "$D/rsa.ssh"
}

@test "decrypt: what openssl encrypted (OAEP-SHA256) to an RSA-3072 key with a value; the wrong value is exit 4; neither the value nor the plaintext is on the bus" {
	printf 'PlainTextSecret42' > "$D/pt"
	openssl pkeyutl -encrypt -pubin -inkey "$D/dec.pub" \
		-pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha256 \
		-in "$D/pt" -out "$D/ct"
	tb --trace decrypt -k "$D/dec.key" --auth str:Decrypt0r -i "$D/ct" \
		-o "$D/pt.out" 2> "$BATS_TEST_TMPDIR/trace"
	cmp "$D/pt" "$D/pt.out"
	[ "$(stat -c %a "$D/pt.out")" = 600 ]
	grep -q TPM2_RSA_Decrypt "$BATS_TEST_TMPDIR/trace"
	tr -d ' \n' < "$BATS_TEST_TMPDIR/trace" | tr A-F a-f > "$BATS_TEST_TMPDIR/wire"
	# the ciphertext is on the bus (the check can see), the rest is not
	grep -q "$(head -c 24 "$D/ct" | od -An -tx1 | tr -d ' \n')" "$BATS_TEST_TMPDIR/wire"
	! grep -q "$(printf PlainTextSecret42 | od -An -tx1 | tr -d ' \n')" "$BATS_TEST_TMPDIR/wire" || false
	! grep -q "$(printf Decrypt0r | od -An -tx1 | tr -d ' \n')" "$BATS_TEST_TMPDIR/wire" || false
	run tb decrypt -k "$D/dec.key" --auth str:wrong -i "$D/ct"
	assert_failure 4
	tpm2_dictionarylockout -Q -c >/dev/null 2>&1 || true
	# stdout and stdin
	tb decrypt -k "$D/dec.key" --auth str:Decrypt0r < "$D/ct" | cmp - "$D/pt"
}

@test "a key with a value: sign needs it (exit 4 without it), and the value is never on the bus at keycreate" {
	tb --trace keycreate --auth str:SignSecretValue -o "$D/eca.key" \
		--pub "$D/eca.pub" 2> "$BATS_TEST_TMPDIR/trace" >/dev/null
	grep -q TPM2_Create "$BATS_TEST_TMPDIR/trace"
	! tr -d ' \n' < "$BATS_TEST_TMPDIR/trace" | tr A-F a-f |
		grep -q "$(printf SignSecretValue | od -An -tx1 | tr -d ' \n')" || false
	run tb sign -k "$D/eca.key" -i "$D/msg" -o "$D/eca.sig"
	assert_failure 4
	tpm2_dictionarylockout -Q -c >/dev/null 2>&1 || true
	tb sign -k "$D/eca.key" --auth str:SignSecretValue -i "$D/msg" -o "$D/eca.sig"
	openssl dgst -sha256 -verify "$D/eca.pub" -signature "$D/eca.sig" "$D/msg"
}

@test "tpm2-openssl signs with a tpmbox key file (parent 0x40000001); openssl verifies" {
	[ -e /usr/lib/x86_64-linux-gnu/ossl-modules/tpm2.so ] ||
		skip "tpm2-openssl is not installed (make check installs it)"
	TPM2OPENSSL_TCTI=$TPMBOX_TCTI openssl pkeyutl -sign -provider tpm2 \
		-provider default -inkey "$D/ec.key" -in "$D/msg.dgst" \
		-out "$D/o.sig"
	t2_flush
	openssl pkeyutl -verify -pubin -inkey "$D/ec.pub" -in "$D/msg.dgst" \
		-sigfile "$D/o.sig"
	TPM2OPENSSL_TCTI=$TPMBOX_TCTI openssl pkeyutl -sign -provider tpm2 \
		-provider default -inkey "$D/rsa.key" -pkeyopt digest:sha256 \
		-in "$D/msg.dgst" -out "$D/o2.sig"
	t2_flush
	openssl pkeyutl -verify -pubin -inkey "$D/rsa.pub" -pkeyopt digest:sha256 \
		-in "$D/msg.dgst" -sigfile "$D/o2.sig"
	# and tpmbox verifies what tpm2-openssl signed the same way: openssl
	# and tpmbox agree on the RSA signature
	tb sign -k "$D/rsa.key" -d "$(cat "$D/msg.hex")" -o "$D/o3.sig"
	cmp "$D/o2.sig" "$D/o3.sig"
}

@test "keys that sign and decrypt (tpm2-openssl's genpkey, RSA and EC): sign and decrypt take them, openssl verifies and encrypts; single-use keys keep their one use" {
	[ -e /usr/lib/x86_64-linux-gnu/ossl-modules/tpm2.so ] ||
		skip "tpm2-openssl is not installed (make check installs it)"
	local o=$BATS_TEST_TMPDIR alg
	# (EC with -pkeyopt group:P-256: without it genpkey asks for a curve
	# swtpm does not have)
	for alg in EC RSA; do
		TPM2OPENSSL_TCTI=$TPMBOX_TCTI openssl genpkey -provider tpm2 \
			-provider default -algorithm $alg \
			$([ $alg = RSA ] || echo -pkeyopt group:P-256) \
			-out "$o/$alg.key" 2>/dev/null
		t2_flush
		TPM2OPENSSL_TCTI=$TPMBOX_TCTI openssl pkey -provider tpm2 \
			-provider default -in "$o/$alg.key" -pubout -out "$o/$alg.pub"
		t2_flush
		# both uses in its public area (TPMA_OBJECT sign 0x40000, decrypt 0x20000)
		tb sign -k "$o/$alg.key" -i "$D/msg" -o "$o/$alg.sig"
		openssl dgst -sha256 -verify "$o/$alg.pub" -signature "$o/$alg.sig" "$D/msg"
	done
	# RSA: decrypt opens what openssl encrypted to it, unbind what bind did
	head -c 32 /dev/urandom > "$o/pt"
	openssl pkeyutl -encrypt -pubin -inkey "$o/RSA.pub" \
		-pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha256 \
		-in "$o/pt" -out "$o/ct"
	tb decrypt -k "$o/RSA.key" -i "$o/ct" -o "$o/pt2"
	cmp "$o/pt" "$o/pt2"
	tb bind --pub "$o/RSA.pub" -i "$o/pt" -o "$o/bound"
	tb unbind -k "$o/RSA.key" -i "$o/bound" -o "$o/pt3"
	cmp "$o/pt" "$o/pt3"
	# the single-use keys: a sign-only key does not decrypt, a
	# decrypt-only key does not sign (exit 2), each does its own job
	run tb decrypt -k "$D/rsa.key" -i "$o/ct"
	assert_failure 2
	assert_output --partial "not an RSA decryption key"
	run tb sign -k "$D/dec.key" --auth str:Decrypt0r -i "$D/msg"
	assert_failure 2
	assert_output --partial "decryption key: it does not sign"
	tb sign -k "$D/rsa.key" -i "$D/msg" -o "$o/single.sig"
	openssl dgst -sha256 -verify "$D/rsa.pub" -signature "$o/single.sig" "$D/msg"
}

@test "refusals: the wrong use, scheme or digest (exit 2), a damaged key file, a key of another TPM (exit 1, one sentence)" {
	run tb sign -k "$D/dec.key" --auth str:Decrypt0r -i "$D/msg"
	assert_failure 2
	assert_output --partial "decryption key"
	run tb decrypt -k "$D/rsa.key" -i "$D/ct"
	assert_failure 2
	run tb sign -k "$D/rsa.key" --scheme ecdsa -i "$D/msg"
	assert_failure 2
	run tb sign -k "$D/ec.key" --scheme rsapss -i "$D/msg"
	assert_failure 2
	run tb sign -k "$D/ec.key" -d 0011
	assert_failure 2
	run tb sign -k "$D/ec.key" -d "$(cat "$D/msg.hex")" -i "$D/msg"
	assert_failure 2
	run tb sign -k "$D/ec.key" --scheme md5 -i "$D/msg"
	assert_failure 2
	run tb decrypt -k "$D/dec.key" --auth str:Decrypt0r -i "$D/msg"
	assert_failure 2
	assert_output --partial "ciphertext"
	run tb keycreate --ecc --usage decrypt -o "$BATS_TEST_TMPDIR/x"
	assert_failure 2
	run tb keycreate --rsa --bits 1024 -o "$BATS_TEST_TMPDIR/x"
	assert_failure 2
	run tb keycreate --rsa --ecc -o "$BATS_TEST_TMPDIR/x"
	assert_failure 2
	run tb keycreate -o "$D/ec.key"
	assert_failure 2
	assert_output --partial "use -f"
	run tb sign -k "$D/ec.key" -i "$D/msg" -o "$D/ec.sig"
	assert_failure 2
	# a sealed blob is no key
	tb seal -o "$BATS_TEST_TMPDIR/blob" "$D/msg"
	run tb sign -k "$BATS_TEST_TMPDIR/blob" -i "$D/msg"
	assert_failure 1
	assert_output --partial "not a loadable key"
	# a cut key file, and one whose private part is damaged
	head -c 300 "$D/ec.key" > "$BATS_TEST_TMPDIR/cut"
	run tb sign -k "$BATS_TEST_TMPDIR/cut" -i "$D/msg"
	assert_failure
	[ "$status" -le 2 ]
	[ "${#lines[@]}" -le 2 ]
	python3 - "$D/ec.key" "$BATS_TEST_TMPDIR/bad.key" <<'EOF'
import base64, sys
t = open(sys.argv[1]).read().split("\n")
b = bytearray(base64.b64decode("".join(t[1:-2])))
b[-20] ^= 1		# inside the private part's encrypted sensitive area
body = base64.b64encode(bytes(b)).decode()
open(sys.argv[2], "w").write(t[0] + "\n" + "\n".join(body[i:i + 64] for i in range(0, len(body), 64)) + "\n" + t[-2] + "\n")
EOF
	run tb sign -k "$BATS_TEST_TMPDIR/bad.key" -i "$D/msg"
	assert_failure 1
	# a key made in another TPM
	OTHER=$BATS_FILE_TMPDIR/other
	mkdir -p "$OTHER"
	swtpm socket --tpm2 --server type=unixio,path="$OTHER/sock" \
		--ctrl type=unixio,path="$OTHER/sock.ctrl" --tpmstate dir="$OTHER" \
		--flags not-need-init,startup-clear --pid file="$OTHER/pid" --daemon
	"$TPMBOX" -T "swtpm:path=$OTHER/sock" keycreate -o "$BATS_TEST_TMPDIR/other.key" >/dev/null
	kill "$(cat "$OTHER/pid")"
	run tb sign -k "$BATS_TEST_TMPDIR/other.key" -i "$D/msg"
	assert_failure 1
	assert_output --partial "another SRK"
}

@test "keycreate -p: the key signs only while PCR 16 holds its value; its authPolicy is tpm2_createpolicy's; tpm2-tools signs with it in a PolicyPCR session" {
	tb keycreate -p sha256:16 -o "$D/pk.key" --pub "$D/pk.pub" > "$D/pk.name"
	tb sign -k "$D/pk.key" -i "$D/msg" -o "$D/pk.sig"
	openssl dgst -sha256 -verify "$D/pk.pub" -signature "$D/pk.sig" "$D/msg"
	# the oracle's trial policy for the same PCR equals the key's
	tpm2_createpolicy -Q --policy-pcr -l sha256:16 -L "$BATS_TEST_TMPDIR/pol"
	t2_flush
	tss2_pieces "$D/pk.key" "$D/pkp"
	tpm2_readpublic -Q -c 0x81000001 >/dev/null 2>&1 || tb persist --srk >/dev/null
	t2_flush
	tpm2_load -Q -C 0x81000001 -u "$D/pkp/pub" -r "$D/pkp/priv" -c "$D/pk.ctx"
	t2_flush
	run tpm2_readpublic -c "$D/pk.ctx"
	t2_flush
	assert_output --partial "authorization policy: $(xxd -p -c 64 "$BATS_TEST_TMPDIR/pol")"
	refute_output --partial userwithauth
	# tpm2-tools: a policy session with PolicyPCR satisfies it
	tpm2_startauthsession -Q --policy-session -S "$BATS_TEST_TMPDIR/s.ctx"
	tpm2_policypcr -Q -S "$BATS_TEST_TMPDIR/s.ctx" -l sha256:16
	tpm2_sign -c "$D/pk.ctx" -p "session:$BATS_TEST_TMPDIR/s.ctx" -g sha256 \
		-s ecdsa -f plain -o "$BATS_TEST_TMPDIR/t2.sig" "$D/msg"
	tpm2_flushcontext "$BATS_TEST_TMPDIR/s.ctx" 2>/dev/null || true
	openssl dgst -sha256 -verify "$D/pk.pub" -signature "$BATS_TEST_TMPDIR/t2.sig" "$D/msg"
	# PCR 16 moves on: exit 4, saying why, and nothing written
	tpm2_pcrextend 16:sha256=$(printf '%064d' 7)
	run tb sign -k "$D/pk.key" -i "$D/msg" -o "$BATS_TEST_TMPDIR/no.sig"
	assert_failure 4
	assert_output --partial "the PCRs are not in the state the key was made for"
	refute_output --partial "another SRK"
	[ ! -e "$BATS_TEST_TMPDIR/no.sig" ]
	# without the policy (the oracle's password session) the TPM refuses
	run tpm2_sign -c "$D/pk.ctx" -g sha256 -s ecdsa -o "$BATS_TEST_TMPDIR/t3.sig" "$D/msg"
	assert_failure
	tpm2_pcrreset 16
}

@test "keycreate -p SEL=VALUES --auth: a decryption key for a state to come, with a value; the key file states PolicyPCR then PolicyAuthValue" {
	# PCR 16 after one extend with 32 zero bytes, from reset
	tpm2_pcrreset 16
	next=$(printf '%064d%064d' 0 0 | xxd -r -p | sha256sum | cut -c1-64)
	tb keycreate --rsa --usage decrypt --auth str:Pcr0pen \
		-p "sha256:16=$next" -o "$D/pd.key" --pub "$D/pd.pub" >/dev/null
	printf 'ForLater' | tb bind --pub "$D/pd.pub" > "$D/pd.ct"
	run tb unbind -k "$D/pd.key" --auth str:Pcr0pen -i "$D/pd.ct"
	assert_failure 4
	assert_output --partial "the PCRs are not in the state"
	tpm2_pcrextend 16:sha256=$(printf '%064d' 0)
	[ "$(tb unbind -k "$D/pd.key" --auth str:Pcr0pen -i "$D/pd.ct")" = ForLater ]
	[ "$(tb decrypt -k "$D/pd.key" --auth str:Pcr0pen -i "$D/pd.ct")" = ForLater ]
	run tb decrypt -k "$D/pd.key" --auth str:wrong -i "$D/pd.ct"
	assert_failure 4
	assert_output --partial "AUTH_FAIL"
	tpm2_dictionarylockout -Q -c >/dev/null 2>&1 || true
	# the file: no emptyAuth TRUE, policy [1] with the two commands
	sed -n '/BEGIN TSS2/,/END TSS2/p' "$D/pd.key" | sed '1d;$d' | base64 -d |
		openssl asn1parse -inform DER > "$BATS_TEST_TMPDIR/asn1"
	grep -q "cont \[ 1 \]" "$BATS_TEST_TMPDIR/asn1"
	grep -q "INTEGER *:017F" "$BATS_TEST_TMPDIR/asn1"	# PolicyPCR
	grep -q "INTEGER *:016B" "$BATS_TEST_TMPDIR/asn1"	# PolicyAuthValue
	! grep -q "BOOLEAN *:255" "$BATS_TEST_TMPDIR/asn1" || false
	tpm2_pcrreset 16
	# refusals: two states, a bad value, and an AK reader given this key
	run tb keycreate -p sha256:16 -p sha256:17 -o "$BATS_TEST_TMPDIR/x.key"
	assert_failure 2
	run tb keycreate -p sha256:16=zz -o "$BATS_TEST_TMPDIR/x.key"
	assert_failure 2
	[ ! -e "$BATS_TEST_TMPDIR/x.key" ]
	run tb quote -k "$D/pd.key" -n 00 -o "$BATS_TEST_TMPDIR/q"
	assert_failure 1
}

@test "after takeown, keycreate and akcreate name the persistent SRK (0x81000001): tpm2-openssl loads the key with no CreatePrimary, tpmbox signs and quotes with them; before, 0x40000001" {
	[ -e /usr/lib/x86_64-linux-gnu/ossl-modules/tpm2.so ] ||
		skip "tpm2-openssl is not installed (make check installs it)"
	local o=$BATS_TEST_TMPDIR
	# before: the suite's keys (no SRK persisted when they were made)
	openssl asn1parse -in "$D/ec.key" | grep -q 'INTEGER *:40000001'
	tb takeown >/dev/null
	tb keycreate -o "$o/k.key" --pub "$o/k.pub" >/dev/null
	openssl asn1parse -in "$o/k.key" | grep -q 'INTEGER *:81000001'
	# tpm2-openssl: the 0x40000001 key derives the SRK, this one does not
	TSS2_LOG=esys+trace TPM2OPENSSL_TCTI=$TPMBOX_TCTI openssl pkeyutl -sign \
		-provider tpm2 -provider default -inkey "$D/ec.key" \
		-in "$D/msg.dgst" -out "$o/old.sig" 2> "$o/old.log"
	t2_flush
	grep -q Esys_CreatePrimary "$o/old.log"
	TSS2_LOG=esys+trace TPM2OPENSSL_TCTI=$TPMBOX_TCTI openssl pkeyutl -sign \
		-provider tpm2 -provider default -inkey "$o/k.key" \
		-in "$D/msg.dgst" -out "$o/new.sig" 2> "$o/new.log"
	t2_flush
	run grep -q Esys_CreatePrimary "$o/new.log"
	[ "$status" = 1 ]
	openssl pkeyutl -verify -pubin -inkey "$o/k.pub" -in "$D/msg.dgst" \
		-sigfile "$o/new.sig"
	tb sign -k "$o/k.key" -i "$D/msg" -o "$o/tb.sig"
	openssl dgst -sha256 -verify "$o/k.pub" -signature "$o/tb.sig" "$D/msg"
	# the older key files still load, under the same SRK
	tb sign -k "$D/ec.key" -i "$D/msg" -o "$o/tb2.sig"
	tb akcreate -o "$o/ak" --pub "$o/ak.pub" >/dev/null
	openssl asn1parse -in "$o/ak" | grep -q 'INTEGER *:81000001'
	tb quote -k "$o/ak" -p sha256:0 -n 0a0b -o "$o/q"
	tb checkquote -k "$o/ak.pub" -n 0a0b -p sha256:0 "$o/q" >/dev/null
	# a key naming 0x81000001 is loaded under the SRK found and checked
	# as for 0x40000001: with another key persisted there (an RSA
	# primary), the ECC SRK is derived again and the key loads under it
	tpm2_evictcontrol -C o -c 0x81000001 >/dev/null
	tpm2_createprimary -C o -G rsa -c "$o/rsa.ctx" >/dev/null
	tpm2_evictcontrol -C o -c "$o/rsa.ctx" 0x81000001 >/dev/null
	t2_flush
	tb --trace sign -k "$o/k.key" -i "$D/msg" -o "$o/tb3.sig" 2> "$o/trace"
	openssl dgst -sha256 -verify "$o/k.pub" -signature "$o/tb3.sig" "$D/msg"
	grep -q TPM2_CreatePrimary "$o/trace"
	tpm2_evictcontrol -C o -c 0x81000001 >/dev/null
}
