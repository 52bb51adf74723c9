#!/usr/bin/env bats
# akcreate, quote, checkquote.  Oracles: tpm2-tools (tpm2_quote output
# checked by checkquote, our quote checked by tpm2_checkquote, values by
# tpm2_pcrread) and openssl (keys, crafted attestations it signs).

load helpers/common
bats_require_minimum_version 1.5.0

setup_file() {
	swtpm_start
	D=$BATS_FILE_TMPDIR
	export D
	# A tools-made ECC and RSA AK under a tools-made primary.
	tpm2_createprimary -Q -C o -c "$D/prim.ctx"
	t2_flush
	tpm2_create -Q -C "$D/prim.ctx" -G ecc256:ecdsa-sha256:null \
		-a 'fixedtpm|fixedparent|sensitivedataorigin|userwithauth|restricted|sign' \
		-u "$D/t2ak.pub" -r "$D/t2ak.priv"
	t2_flush
	tpm2_create -Q -C "$D/prim.ctx" -G rsa2048:rsassa-sha256:null \
		-a 'fixedtpm|fixedparent|sensitivedataorigin|userwithauth|restricted|sign' \
		-u "$D/t2rsa.pub" -r "$D/t2rsa.priv"
	t2_flush
	# Non-zero PCRs in both banks.
	tb extend 7 -s "boot loader"
	tb extend 10 -s "ima entry"
	t2_quote ak "sha256:0,7,10+sha1:7" c0ffee t2
	t2_quote rsa "sha256:7,10" 0a0b0c t2rsa
	# Our own AKs.
	tb akcreate -o "$D/ak.blob" --pub "$D/ak.pem" >/dev/null
	tb akcreate --rsa -o "$D/rsak.blob" --pub "$D/rsak.pem" >/dev/null
}
teardown_file() { swtpm_stop; }
# A test that persisted the SRK (takeown) takes it away again: others
# count on no persistent SRK.
teardown() {
	if [ -f "$BATS_TEST_TMPDIR/evict-srk" ]; then
		tpm2_evictcontrol -Q -C o -c 0x81000001 >/dev/null 2>&1
		t2_flush
	fi
}

# t2_quote ak|rsa SELECTION NONCE PREFIX: tpm2_quote with a tools AK;
# writes PREFIX.msg/.sig/.pcrs and PREFIX.pem (the AK's public key).
t2_quote() {
	local pub=$D/t2ak.pub priv=$D/t2ak.priv
	[ "$1" = rsa ] && { pub=$D/t2rsa.pub; priv=$D/t2rsa.priv; }
	tpm2_load -Q -C "$D/prim.ctx" -u "$pub" -r "$priv" -c "$D/$4.ctx"
	t2_flush
	tpm2_readpublic -Q -c "$D/$4.ctx" -f pem -o "$D/$4.pem"
	t2_flush
	tpm2_quote -Q -c "$D/$4.ctx" -l "$2" -q "$3" -g sha256 \
		-m "$D/$4.msg" -s "$D/$4.sig" -o "$D/$4.pcrs"
	t2_flush
}

# tpm2_pcrread's values as "bank:idx hex" lines (lower case), in the
# order of a selection like sha256:0,7+sha1:7.
t2_values() {
	local bank idx
	IFS=+ read -ra parts <<<"$1"
	for p in "${parts[@]}"; do
		bank=${p%%:*}
		IFS=, read -ra idxs <<<"${p#*:}"
		for idx in "${idxs[@]}"; do
			v=$(tpm2_pcrread "$bank:$idx" | awk -F': 0x' 'NF==2 {print tolower($2)}')
			echo "$bank:$idx $v"
		done
	done
}

# flip FILE OFFSET: xor one byte with 1 (negative offset: from the end).
flip() {
	local f=$1 off=$2 b
	[ "$off" -lt 0 ] && off=$(( $(stat -c %s "$f") + off ))
	b=$(od -An -tx1 -j "$off" -N1 "$f" | tr -d ' ')
	printf "$(printf '\\x%02x' $(( 0x$b ^ 1 )))" |
		dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
}

# put FILE OFFSET HEX: overwrite bytes.
put() {
	echo "$3" | xxd -r -p | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# --- checkquote on tpm2_quote's output -------------------------------

@test "checkquote verifies tpm2_quote's ECC quote and prints tpm2_pcrread's values" {
	run tb checkquote -k "$D/t2.pem" -n c0ffee --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$D/t2.pcrs"
	assert_success
	[ "$output" = "$(t2_values 'sha256:0,7,10+sha1:7')" ]
	# PCR 7 was really extended: not the reset value
	refute_output --partial "sha256:7 0000000000000000000000000000000000000000000000000000000000000000"
	# tpm2-tools agrees these pieces are good
	run tpm2_checkquote -u "$D/t2.pem" -m "$D/t2.msg" -s "$D/t2.sig" -f "$D/t2.pcrs" -q c0ffee
	assert_success
}

@test "checkquote verifies tpm2_quote's RSA quote (RSASSA-SHA256)" {
	run tb checkquote -k "$D/t2rsa.pem" -n 0a0b0c --msg "$D/t2rsa.msg" --sig "$D/t2rsa.sig" --pcrs "$D/t2rsa.pcrs" --json
	assert_success
	assert_output --partial '"sha256": {'
	assert_output --partial "\"7\": \"$(t2_values sha256:7 | cut -d' ' -f2)\""
	assert_output --partial "\"10\": \"$(t2_values sha256:10 | cut -d' ' -f2)\""
}

@test "checkquote: a quote of 19 PCRs (three digest lists in the pcrs file)" {
	t2_quote ak "sha256:0,1,2,3,4,5,6,7,8,9,10+sha1:0,1,2,3,4,5,6,7" 01 big
	[ "$(stat -c %s "$D/big.pcrs")" -eq 1732 ]
	run tb checkquote -k "$D/big.pem" -n 01 -p sha256:0-10+sha1:0-7 --msg "$D/big.msg" --sig "$D/big.sig" --pcrs "$D/big.pcrs"
	assert_success
	[ "$output" = "$(t2_values 'sha256:0,1,2,3,4,5,6,7,8,9,10+sha1:0,1,2,3,4,5,6,7')" ]
}

@test "checkquote: altered attestation -> signature check fails" {
	cp "$D/t2.msg" "$BATS_TEST_TMPDIR/m"
	flip "$BATS_TEST_TMPDIR/m" 50
	run tb checkquote -k "$D/t2.pem" -n c0ffee --msg "$BATS_TEST_TMPDIR/m" --sig "$D/t2.sig" --pcrs "$D/t2.pcrs"
	assert_failure 1
	assert_output --partial "signature check failed"
	# tpm2-tools rejects it too
	run tpm2_checkquote -u "$D/t2.pem" -m "$BATS_TEST_TMPDIR/m" -s "$D/t2.sig" -f "$D/t2.pcrs" -q c0ffee
	assert_failure
}

@test "checkquote: altered signature (ECDSA s, RSA) -> signature check fails" {
	cp "$D/t2.sig" "$BATS_TEST_TMPDIR/s"
	flip "$BATS_TEST_TMPDIR/s" -1
	run tb checkquote -k "$D/t2.pem" -n c0ffee --msg "$D/t2.msg" --sig "$BATS_TEST_TMPDIR/s" --pcrs "$D/t2.pcrs"
	assert_failure 1
	assert_output --partial "signature check failed"
	cp "$D/t2rsa.sig" "$BATS_TEST_TMPDIR/r"
	flip "$BATS_TEST_TMPDIR/r" 100
	run tb checkquote -k "$D/t2rsa.pem" -n 0a0b0c --msg "$D/t2rsa.msg" --sig "$BATS_TEST_TMPDIR/r" --pcrs "$D/t2rsa.pcrs"
	assert_failure 1
	assert_output --partial "signature check failed: the RSASSA signature does not verify"
}

@test "checkquote: another AK's key -> signature check fails" {
	run tb checkquote -k "$D/t2rsa.pem" -n c0ffee --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$D/t2.pcrs"
	assert_failure 1
	assert_output --partial "signature check failed: an ECDSA signature cannot be checked with an RSA key"
	run tb checkquote -k "$D/ak.pem" -n c0ffee --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$D/t2.pcrs"
	assert_failure 1
	assert_output --partial "signature check failed: the ECDSA signature does not verify"
}

@test "checkquote: wrong or missing nonce" {
	run tb checkquote -k "$D/t2.pem" -n c0ffef --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$D/t2.pcrs"
	assert_failure 1
	assert_output "tpmbox checkquote: nonce check failed: the quote answers nonce 'c0ffee'"
	run tpm2_checkquote -u "$D/t2.pem" -m "$D/t2.msg" -s "$D/t2.sig" -f "$D/t2.pcrs" -q c0ffef
	assert_failure
	# no -n: verified, with a warning on stderr only
	run --separate-stderr tb checkquote -k "$D/t2.pem" --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$D/t2.pcrs"
	assert_success
	[ "$output" = "$(t2_values 'sha256:0,7,10+sha1:7')" ]
	[[ "$stderr" == *"warning: no -n given, the nonce was not checked"* ]]
}

@test "checkquote: altered PCR value -> PCR digest check fails" {
	cp "$D/t2.pcrs" "$BATS_TEST_TMPDIR/p"
	# first digest of the first TPML_DIGEST: 132 + 4 + 4 + 2
	flip "$BATS_TEST_TMPDIR/p" 142
	run tb checkquote -k "$D/t2.pem" -n c0ffee --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$BATS_TEST_TMPDIR/p"
	assert_failure 1
	assert_output --partial "PCR digest check failed"
	run tpm2_checkquote -u "$D/t2.pem" -m "$D/t2.msg" -s "$D/t2.sig" -f "$BATS_TEST_TMPDIR/p" -q c0ffee
	assert_failure
}

@test "checkquote: altered PCR selection -> PCR selection check fails" {
	cp "$D/t2.pcrs" "$BATS_TEST_TMPDIR/p"
	# sha256 pcrSelect[0] at offset 7: PCRs 0,7 -> 1,7 (same count)
	[ "$(od -An -tx1 -j7 -N1 "$BATS_TEST_TMPDIR/p" | tr -d ' ')" = 81 ]
	put "$BATS_TEST_TMPDIR/p" 7 82
	run tb checkquote -k "$D/t2.pem" -n c0ffee --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$BATS_TEST_TMPDIR/p"
	assert_failure 1
	assert_output --partial "PCR selection check failed: the quote covers sha256:0,7,10+sha1:7, the PCR values are for sha256:1,7,10+sha1:7"
	# and a selection the verifier did not ask for
	run tb checkquote -k "$D/t2.pem" -n c0ffee -p sha256:0-10 --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$D/t2.pcrs"
	assert_failure 1
	assert_output --partial "PCR selection check failed: the quote covers sha256:0,7,10+sha1:7, not the sha256:0,1,2,3,4,5,6,7,8,9,10 asked for"
	run tb checkquote -k "$D/t2.pem" -n c0ffee -p sha256:0,7,10+sha1:7 --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$D/t2.pcrs"
	assert_success
}

@test "checkquote: wrong magic and wrong type, signed by a key openssl made" {
	T=$BATS_TEST_TMPDIR
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$T/k.pem" 2>/dev/null
	openssl pkey -in "$T/k.pem" -pubout -out "$T/kpub.pem"
	mksig() {	# TPMT_SIGNATURE: RSASSA, SHA256, 256-byte signature
		{ printf '\x00\x14\x00\x0b\x01\x00'
		  openssl dgst -sha256 -sign "$T/k.pem" "$1"; } > "$2"
	}
	# the genuine attestation re-signed by openssl verifies
	cp "$D/t2.msg" "$T/ok.msg"
	mksig "$T/ok.msg" "$T/ok.sig"
	run tb checkquote -k "$T/kpub.pem" -n c0ffee --msg "$T/ok.msg" --sig "$T/ok.sig" --pcrs "$D/t2.pcrs"
	assert_success
	# magic: not TPM_GENERATED (a signature over host-made data)
	cp "$D/t2.msg" "$T/magic.msg"
	put "$T/magic.msg" 0 ff544348
	mksig "$T/magic.msg" "$T/magic.sig"
	run tb checkquote -k "$T/kpub.pem" -n c0ffee --msg "$T/magic.msg" --sig "$T/magic.sig" --pcrs "$D/t2.pcrs"
	assert_failure 1
	assert_output "tpmbox checkquote: magic check failed: 0xff544348 is not TPM_GENERATED_VALUE (0xff544347)"
	# type: TPM_ST_ATTEST_CERTIFY (0x8017)
	cp "$D/t2.msg" "$T/type.msg"
	put "$T/type.msg" 4 8017
	mksig "$T/type.msg" "$T/type.sig"
	run tb checkquote -k "$T/kpub.pem" -n c0ffee --msg "$T/type.msg" --sig "$T/type.sig" --pcrs "$D/t2.pcrs"
	assert_failure 1
	assert_output "tpmbox checkquote: type check failed: 0x8017 is not TPM_ST_ATTEST_QUOTE (0x8018)"
}

@test "checkquote: a TPM-signed attestation of another type (tpm2_certify) is refused" {
	T=$BATS_TEST_TMPDIR
	tpm2_load -Q -C "$D/prim.ctx" -u "$D/t2ak.pub" -r "$D/t2ak.priv" -c "$T/ak.ctx"
	t2_flush
	tpm2_certify -Q -c "$D/prim.ctx" -C "$T/ak.ctx" -g sha256 -o "$T/cert.msg" -s "$T/cert.sig"
	t2_flush
	run tb checkquote -k "$D/t2.pem" --msg "$T/cert.msg" --sig "$T/cert.sig" --pcrs "$D/t2.pcrs"
	assert_failure 1
	assert_output "tpmbox checkquote: type check failed: 0x8017 is not TPM_ST_ATTEST_QUOTE (0x8018)"
}

@test "checkquote: malformed inputs and usage errors" {
	T=$BATS_TEST_TMPDIR
	run tb checkquote --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$D/t2.pcrs"
	assert_failure 2
	assert_output --partial "-k AK is required"
	run tb checkquote -k "$D/t2.pem" --msg "$D/t2.msg" --sig "$D/t2.sig"
	assert_failure 2
	assert_output --partial "give QUOTE, or all of --msg, --sig and --pcrs"
	run tb checkquote -k "$D/t2.pem" -n xyz "$D/q"
	assert_failure 2
	assert_output --partial "bad nonce 'xyz'"
	run tb checkquote -k "$D/t2.pem" -p sha999:1 --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$D/t2.pcrs"
	assert_failure 2
	assert_output --partial "unknown PCR bank 'sha999'"
	run tb checkquote -k "$T/missing.pem" --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$D/t2.pcrs"
	assert_failure 6
	assert_output --partial "missing.pem"
	echo "not a key" > "$T/bad.pem"
	run tb checkquote -k "$T/bad.pem" --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$D/t2.pcrs"
	assert_failure 2
	assert_output --partial "bad.pem: public key: not an RSA or ECC (P-256, P-384) public key in PEM or DER"
	head -c 600 "$D/t2.pcrs" > "$T/short.pcrs"
	run tb checkquote -k "$D/t2.pem" --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$T/short.pcrs"
	assert_failure 1
	assert_output --partial "pcrs file: size 600 does not match"
	head -c 20 "$D/t2.sig" > "$T/short.sig"
	run tb checkquote -k "$D/t2.pem" --msg "$D/t2.msg" --sig "$T/short.sig" --pcrs "$D/t2.pcrs"
	assert_failure 1
	assert_output --partial "signature: malformed TPMT_SIGNATURE"
	head -c 30 "$D/t2.msg" > "$T/short.msg"
	run tb checkquote -k "$D/t2.pem" --msg "$T/short.msg" --sig "$D/t2.sig" --pcrs "$D/t2.pcrs"
	assert_failure 1
	assert_output --partial "signature check failed"
	printf 'garbage' > "$T/g.quote"
	run tb checkquote -k "$D/t2.pem" "$T/g.quote"
	assert_failure 1
	assert_output --partial "not a tpmbox quote (bad magic)"
}

# --- akcreate and quote ----------------------------------------------

@test "akcreate: a P-256 key openssl reads, a TSS2 PRIVATE KEY with the loadable OID" {
	run openssl pkey -pubin -in "$D/ak.pem" -noout -text
	assert_success
	assert_output --partial "ASN1 OID: prime256v1"
	run openssl pkey -pubin -in "$D/rsak.pem" -noout -text
	assert_success
	assert_output --partial "Public-Key: (2048 bit)"
	head -1 "$D/ak.blob" | grep -qx -- "-----BEGIN TSS2 PRIVATE KEY-----"
	run bash -c "sed '1d;\$d' '$D/ak.blob' | base64 -d | openssl asn1parse -inform DER"
	assert_success
	assert_output --partial "OBJECT            :2.23.133.10.1.3"
	assert_output --partial "BOOLEAN           :255"
	assert_output --partial "INTEGER           :40000001"
	[ "$(stat -c %a "$D/ak.blob")" = 600 ]
}

@test "akcreate: AKBLOB has the ASN.1 layout tpm2_encodeobject writes for a tools AK" {
	T=$BATS_TEST_TMPDIR
	tpm2_encodeobject -Q -C "$D/prim.ctx" -u "$D/t2ak.pub" -r "$D/t2ak.priv" -o "$T/enc.pem"
	t2_flush
	# the element kinds and depths, without offsets, sizes and values
	shape() { sed '1d;$d' "$1" | base64 -d | openssl asn1parse -inform DER |
		sed -E 's/^ *[0-9]+:(d=[0-9]+) +hl= *[0-9]+ +l= *[0-9]+ (prim|cons): ([A-Za-z ]+[^ :]).*/\1 \2 \3/'; }
	run shape "$T/enc.pem"
	want=$output
	[ "${#lines[@]}" -eq 7 ]
	run shape "$D/ak.blob"
	[ "$output" = "$want" ]
}

@test "akcreate: the printed name is the name tpm2-tools computes for the key" {
	T=$BATS_TEST_TMPDIR
	run tb akcreate -o "$T/k.blob"
	assert_success
	name=$output
	[ ${#name} -eq 68 ]
	# tpm2_loadexternal of the public part gives its name
	sed '1d;$d' "$T/k.blob" | base64 -d > "$T/k.der"
	# pubkey OCTET STRING: find it via asn1parse offsets
	off=$(openssl asn1parse -inform DER -in "$T/k.der" | awk -F: '/OCTET STRING/ {print $1+0; exit}')
	openssl asn1parse -inform DER -in "$T/k.der" -strparse "$off" -noout -out "$T/k.pub"
	tpm2_loadexternal -Q -C n -u "$T/k.pub" -c "$T/ext.ctx" -n "$T/ext.name"
	t2_flush
	[ "$(xxd -p "$T/ext.name" | tr -d '\n')" = "$name" ]
}

@test "akcreate --tpm-public/--name: tpm2-tools reads the TPM2B_PUBLIC, the name is the printed one" {
	T=$BATS_TEST_TMPDIR
	run tb akcreate -o "$T/k.blob" --tpm-public "$T/k.tpub" --name "$T/k.name"
	assert_success
	name=$output
	[ "$(xxd -p "$T/k.name" | tr -d '\n')" = "$name" ]
	run tpm2_print -t TPM2B_PUBLIC "$T/k.tpub"
	assert_success
	assert_output --partial "fixedtpm|fixedparent|sensitivedataorigin|userwithauth|restricted|sign"
	tpm2_loadexternal -Q -C n -u "$T/k.tpub" -c "$T/ext.ctx" -n "$T/ext.name"
	t2_flush
	cmp "$T/ext.name" "$T/k.name"
	# existing outputs are refused before the TPM works
	run tb akcreate -o "$T/new.blob" --tpm-public "$T/k.tpub"
	assert_failure 2
	assert_output --partial "exists"
	[ ! -e "$T/new.blob" ]
}

@test "checkquote -k TPM2B_PUBLIC or AK blob: the AK's attributes and qualifiedSigner are checked; a bare key is taken as is" {
	T=$BATS_TEST_TMPDIR
	: > "$T/evict-srk"
	srk=$(tb takeown)
	tb takeown --srk-pub "$T/srk.pem" >/dev/null
	tb akcreate -o "$T/k.blob" --pub "$T/k.pem" --tpm-public "$T/k.tpub" >/dev/null
	tb quote -k "$T/k.blob" -p sha256:0,7 -n 0badcafe -o "$T/q" --msg "$T/m" --sig "$T/s" --pcrs "$T/p"
	want=$(t2_values sha256:0,7)
	for k in k.tpub k.blob; do
		run --separate-stderr tb checkquote -k "$T/$k" -n 0badcafe "$T/q"
		assert_success
		[ "$output" = "$want" ]
		[[ $stderr == *"qualifiedSigner was checked only for its algorithm"* ]]
		run --separate-stderr tb checkquote -k "$T/$k" --srk-name "$srk" -n 0badcafe "$T/q"
		assert_success
		[ "$output" = "$want" ]
		[ -z "$stderr" ]
	done
	run tb checkquote -k "$T/k.blob" --srk-pub "$T/srk.pem" -n 0badcafe --msg "$T/m" --sig "$T/s" --pcrs "$T/p"
	assert_success
	# another TPM's SRK: the AK is not the one that TPM named
	run tb checkquote -k "$T/k.tpub" --srk-name "000b$(printf '%064d' 7)" -n 0badcafe "$T/q"
	assert_failure 1
	assert_output --partial "signer check failed: qualifiedSigner 000b"
	assert_output --partial "is not this AK under this SRK"
	# tpm2-tools takes the same TPM2B_PUBLIC
	run tpm2_checkquote -u "$T/k.tpub" -m "$T/m" -s "$T/s" -f "$T/p" -q 0badcafe
	assert_success
	# a tools AK's TPM2B_PUBLIC (tpm2_create -u, and tpm2_readpublic -o)
	# and its quote, under the tools' own primary: the qualified name
	# checkquote computes is the one the TPM signed
	run --separate-stderr tb checkquote -k "$D/t2ak.pub" -n c0ffee --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$D/t2.pcrs"
	assert_success
	tpm2_readpublic -Q -c "$D/t2.ctx" -o "$T/t2ak.rp"
	t2_flush
	tpm2_readpublic -Q -c "$D/prim.ctx" -n "$T/prim.name"
	t2_flush
	prim=$(xxd -p "$T/prim.name" | tr -d '\n')
	run --separate-stderr tb checkquote -k "$T/t2ak.rp" --srk-name "$prim" -n c0ffee --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$D/t2.pcrs"
	assert_success
	[ -z "$stderr" ]
	run tb checkquote -k "$D/t2ak.pub" --srk-name "$srk" -n c0ffee --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$D/t2.pcrs"
	assert_failure 1
	assert_output --partial "is not this AK under this SRK"
	# another key's TPM2B_PUBLIC: the signature does not verify
	run tb checkquote -k "$D/t2rsa.pub" -n c0ffee --msg "$D/t2.msg" --sig "$D/t2.sig" --pcrs "$D/t2.pcrs"
	assert_failure 1
	assert_output --partial "signature check failed"
	# a restricted signing key that the TPM would let out (no fixedTPM,
	# no fixedParent): its quote verifies with the bare key, is refused
	# with its public area
	tpm2_create -Q -C "$D/prim.ctx" -G ecc256:ecdsa-sha256:null \
		-a 'sensitivedataorigin|userwithauth|restricted|sign' \
		-u "$T/mov.pub" -r "$T/mov.priv"
	t2_flush
	tpm2_load -Q -C "$D/prim.ctx" -u "$T/mov.pub" -r "$T/mov.priv" -c "$T/mov.ctx"
	t2_flush
	tpm2_readpublic -Q -c "$T/mov.ctx" -f pem -o "$T/mov.pem"
	t2_flush
	tpm2_quote -Q -c "$T/mov.ctx" -l sha256:7 -q 01 -g sha256 -m "$T/mm" -s "$T/ms" -o "$T/mp"
	t2_flush
	run tb checkquote -k "$T/mov.pem" -n 01 --msg "$T/mm" --sig "$T/ms" --pcrs "$T/mp"
	assert_success
	run tb checkquote -k "$T/mov.pub" -n 01 --msg "$T/mm" --sig "$T/ms" --pcrs "$T/mp"
	assert_failure 1
	assert_output --partial "not an attestation key: fixedTPM is not set"
	# the SRK pin needs the AK's public area
	run tb checkquote -k "$T/k.pem" --srk-name "$srk" -n 0badcafe "$T/q"
	assert_failure 2
	run tb checkquote -k "$T/k.tpub" --srk-name zz -n 0badcafe "$T/q"
	assert_failure 2
	run tb checkquote -k "$T/k.tpub" --srk-name "$srk" --srk-pub "$T/srk.pem" -n 0badcafe "$T/q"
	assert_failure 2
	run tb checkquote -k "$T/k.tpub" --srk-pub "$T/none.pem" -n 0badcafe "$T/q"
	assert_failure 6
	run tb checkquote -k "$T/k.tpub" --srk-pub "$T/k.tpub" -n 0badcafe "$T/q"
	assert_failure 2
	# a file that is no key at all (the quote): usage, exit 2
	run tb checkquote -k "$T/q" -n 0badcafe "$T/q"
	assert_failure 2
}

@test "quote (ECC): tpm2_checkquote verifies --msg/--sig/--pcrs, checkquote verifies QUOTE" {
	T=$BATS_TEST_TMPDIR
	run tb quote -k "$D/ak.blob" -p sha256:0,7,10+sha1:7 -n 1234abcd -o "$T/q" --msg "$T/m" --sig "$T/s" --pcrs "$T/p"
	assert_success
	assert_output ""
	run tpm2_checkquote -u "$D/ak.pem" -m "$T/m" -s "$T/s" -f "$T/p" -q 1234abcd
	assert_success
	run tb checkquote -k "$D/ak.pem" -n 1234abcd "$T/q"
	assert_success
	[ "$output" = "$(t2_values 'sha256:0,7,10+sha1:7')" ]
	# and the tools-format pieces verify with checkquote too
	run tb checkquote -k "$D/ak.pem" -n 1234abcd --msg "$T/m" --sig "$T/s" --pcrs "$T/p"
	assert_success
	[ "$output" = "$(t2_values 'sha256:0,7,10+sha1:7')" ]
	# the pcrs file is byte for byte what tpm2_quote writes for the same PCRs
	t2_quote ak "sha256:0,7,10+sha1:7" 1234abcd same
	cmp "$T/p" "$D/same.pcrs"
}

@test "quote --rsa AK: tpm2_checkquote and checkquote verify" {
	T=$BATS_TEST_TMPDIR
	run tb quote -k "$D/rsak.blob" -p sha256:7,10 -n 99 -o "$T/q" --msg "$T/m" --sig "$T/s" --pcrs "$T/p"
	assert_success
	run tpm2_checkquote -u "$D/rsak.pem" -m "$T/m" -s "$T/s" -f "$T/p" -q 99
	assert_success
	run tb checkquote -k "$D/rsak.pem" -n 99 "$T/q"
	assert_success
	[ "$output" = "$(t2_values 'sha256:7,10')" ]
	[ "$(head -c 2 "$T/s" | xxd -p)" = 0014 ]
	# the RSA AK's blob: an AK, signing with RSASSA-SHA256
	run --separate-stderr tb checkquote -k "$D/rsak.blob" -n 99 "$T/q"
	assert_success
	[ "$output" = "$(t2_values 'sha256:7,10')" ]
	# not the ECC AK's
	run tb checkquote -k "$D/ak.blob" -n 99 "$T/q"
	assert_failure 1
	assert_output --partial "signature check failed"
}

@test "quote: after an extend the quote carries the new value; the old quote still holds the old" {
	T=$BATS_TEST_TMPDIR
	tb quote -k "$D/ak.blob" -p sha256:10 -n 01 -o "$T/before"
	tb extend 10 -s "another program"
	run tb quote -k "$D/ak.blob" -p sha256:10 -n 02 -o "$T/after" -v
	assert_success
	now=$(t2_values sha256:10)
	[ "$output" = "$now" ]
	run tb checkquote -k "$D/ak.pem" -n 02 "$T/after"
	assert_success
	[ "$output" = "$now" ]
	run tb checkquote -k "$D/ak.pem" -n 01 "$T/before"
	assert_success
	[ "$output" != "$now" ]
	# a replayed old quote fails on the new nonce
	run tb checkquote -k "$D/ak.pem" -n 02 "$T/before"
	assert_failure 1
	assert_output --partial "nonce check failed"
}

@test "quote default selection is every sha256 PCR; no -n means an empty nonce" {
	T=$BATS_TEST_TMPDIR
	run tb quote -k "$D/ak.blob" -o "$T/q"
	assert_success
	run --separate-stderr tb checkquote -k "$D/ak.pem" -p sha256:all "$T/q"
	assert_success
	[[ "$stderr" == *"nonce was not checked (the quote may be a replay)"* ]]
	[ "${#lines[@]}" -eq 24 ]
	[ "${lines[23]}" = "$(t2_values sha256:23)" ]
	# the quote's nonce is empty: any nonce given fails; -n "" is a usage
	# error (omit -n to skip the check), never a silent "empty" check
	run tb checkquote -k "$D/ak.pem" -n 00 -p sha256:all "$T/q"
	assert_failure 1
	assert_output --partial "nonce check failed"
	run tb checkquote -k "$D/ak.pem" -n "" -p sha256:all "$T/q"
	assert_failure 2
	assert_output --partial "empty nonce given with -n (omit -n to skip the nonce check)"
}

@test "QUOTE file: altered attestation, signature, PCR value or selection are each rejected" {
	T=$BATS_TEST_TMPDIR
	tb quote -k "$D/ak.blob" -p sha256:0,7 -n aa -o "$T/q"
	run tb checkquote -k "$D/ak.pem" -n aa "$T/q"
	assert_success
	# layout (docs/quote-format.md): magic 8, version 2, TPM2B attest
	# (2 + 114 for a 2-PCR one-bank quote with a 1-byte nonce), then
	# TPMT_SIGNATURE, selection, values
	asz=$(( 0x$(od -An -tx1 -j10 -N2 "$T/q" | tr -d ' ') ))
	[ "$asz" -eq 114 ]
	[ "$(head -c 10 "$T/q" | xxd -p)" = 544251554f5445000001 ]
	cp "$T/q" "$T/a"; flip "$T/a" 40
	run tb checkquote -k "$D/ak.pem" -n aa "$T/a"
	assert_failure 1
	assert_output --partial "signature check failed"
	cp "$T/q" "$T/s"; flip "$T/s" $(( 12 + asz + 10 ))
	run tb checkquote -k "$D/ak.pem" -n aa "$T/s"
	assert_failure 1
	assert_output --partial "signature check failed"
	cp "$T/q" "$T/v"; flip "$T/v" -1
	run tb checkquote -k "$D/ak.pem" -n aa "$T/v"
	assert_failure 1
	assert_output --partial "PCR digest check failed"
	# selection: 4 + 2 + 1 + 3 bytes from the end of the values; PCRs
	# 0,7 -> 1,7 keeps the count
	cp "$T/q" "$T/l"
	off=$(( $(stat -c %s "$T/q") - 4 - 2 * 34 - 3 ))
	[ "$(od -An -tx1 -j"$off" -N1 "$T/l" | tr -d ' ')" = 81 ]
	put "$T/l" "$off" 82
	run tb checkquote -k "$D/ak.pem" -n aa "$T/l"
	assert_failure 1
	assert_output --partial "PCR selection check failed"
	run tb checkquote -k "$D/ak.pem" -n ab "$T/q"
	assert_failure 1
	assert_output --partial "nonce check failed"
	head -c $(( $(stat -c %s "$T/q") - 1 )) "$T/q" > "$T/t"
	run tb checkquote -k "$D/ak.pem" -n aa "$T/t"
	assert_failure 1
	assert_output --partial "quote file: truncated"
}

@test "quote: refusals" {
	T=$BATS_TEST_TMPDIR
	run tb quote -k "$T/none.blob" -o "$T/q"
	assert_failure 6
	assert_output --partial "none.blob"
	run tb quote -k "$D/ak.blob"
	assert_failure 2
	assert_output --partial "-o QUOTE (or --msg/--sig/--pcrs) is required"
	run tb quote -k "$D/ak.blob" -n 0g -o "$T/q"
	assert_failure 2
	assert_output --partial "bad nonce '0g'"
	run tb quote -k "$D/ak.blob" -n "$(printf 'ab%.0s' $(seq 65))" -o "$T/q"
	assert_failure 2
	run tb quote -k "$D/ak.blob" -p sha256:40 -o "$T/q"
	assert_failure 2
	assert_output --partial "bad PCR index"
	run tb quote -k "$D/ak.blob" -p sm3_256:1 -o "$T/q"
	assert_failure 2
	assert_output --partial "PCR bank sm3_256 is not allocated"
	# a key that is not an AK: the public PEM, a sealed-style blob
	run tb quote -k "$D/ak.pem" -o "$T/q"
	assert_failure 1
	assert_output --partial "AKBLOB: no TSS2 PRIVATE KEY PEM block"
	sed 's/^M/N/' "$D/ak.blob" > "$T/bad.blob"
	run tb quote -k "$T/bad.blob" -o "$T/q"
	assert_failure 1
	assert_output --partial "AKBLOB"
	# existing output kept without -f
	echo keep > "$T/exists"
	run tb quote -k "$D/ak.blob" -p sha256:0 -o "$T/exists"
	assert_failure 2
	assert_output --partial "exists (use -f to replace it)"
	[ "$(cat "$T/exists")" = keep ]
	run tb quote -k "$D/ak.blob" -p sha256:0 -o "$T/exists" -f
	assert_success
	run tb akcreate -o "$T/exists"
	assert_failure 2
	assert_output --partial "exists (use -f to replace it)"
	run tb akcreate
	assert_failure 2
	assert_output --partial "-o AKBLOB is required"
}

@test "quote: the AK loads under the persistent SRK, and beside an RSA one" {
	T=$BATS_TEST_TMPDIR
	# made with a transient SRK (nothing persisted yet)
	run tpm2_getcap handles-persistent
	refute_output --partial 0x81000001
	tb akcreate -o "$T/a.blob" --pub "$T/a.pem" >/dev/null
	# takeown persists the same standard SRK and sets an owner auth: the
	# AK loads under 0x81000001 without it
	tb takeown --owner-auth str:own >/dev/null
	run tpm2_getcap handles-persistent
	assert_output --partial 0x81000001
	run tb quote -k "$T/a.blob" -p sha256:0 -n 01 -o "$T/q1"
	assert_success
	run tb checkquote -k "$T/a.pem" -n 01 "$T/q1"
	assert_success
	# a tools AK under that SRK, encoded by tpm2_encodeobject, quotes too
	tpm2_create -Q -C 0x81000001 -G ecc256:ecdsa-sha256:null \
		-a 'fixedtpm|fixedparent|sensitivedataorigin|userwithauth|restricted|sign' \
		-u "$T/x.pub" -r "$T/x.priv"
	t2_flush
	tpm2_encodeobject -Q -C 0x81000001 -u "$T/x.pub" -r "$T/x.priv" -o "$T/x.blob"
	tpm2_loadexternal -Q -C n -u "$T/x.pub" -c "$T/x.ctx"
	tpm2_readpublic -Q -c "$T/x.ctx" -f pem -o "$T/x.pem"
	t2_flush
	run tb quote -k "$T/x.blob" -p sha256:0 -n 0f -o "$T/qx"
	assert_success
	run tb checkquote -k "$T/x.pem" -n 0f "$T/qx"
	assert_success
	# an RSA SRK at 0x81000001: the ECC parent must be made again, which
	# needs the owner auth
	tb takeown --rsa --force --old-owner-auth str:own --owner-auth str:own >/dev/null
	run tb quote -k "$T/a.blob" -p sha256:0 -n 02 -o "$T/q2"
	assert_failure 4
	assert_output --partial "TPM2_CreatePrimary"
	run tb quote -k "$T/a.blob" -p sha256:0 -n 02 -o "$T/q2" --owner-auth str:own
	assert_success
	run tb checkquote -k "$T/a.pem" -n 02 "$T/q2"
	assert_success
	# and akcreate under the same conditions
	run tb akcreate -o "$T/b.blob" --pub "$T/b.pem" --owner-auth env:OWNER_AUTH_UNSET
	assert_failure
	OWNER=own run tb akcreate -o "$T/b.blob" --pub "$T/b.pem" --owner-auth env:OWNER
	assert_success
	run tb quote -k "$T/b.blob" -p sha256:0 -n 03 -o "$T/q3" --owner-auth str:own
	assert_success
	run tb checkquote -k "$T/b.pem" -n 03 "$T/q3"
	assert_success
}

@test "quote: an AK made under another SRK does not load (owner cleared)" {
	T=$BATS_TEST_TMPDIR
	tpm2_clear -Q -c p	# from whatever the tests before left
	tb akcreate -o "$T/old.blob" --pub "$T/old.pem" >/dev/null
	tpm2_clear -Q -c p
	run tb quote -k "$T/old.blob" -p sha256:0 -o "$T/q"
	assert_failure
	assert_output --partial "TPM2_Load"
	# a fresh AK works again after the clear
	tb akcreate -o "$T/new.blob" --pub "$T/new.pem" >/dev/null
	run tb quote -k "$T/new.blob" -p sha256:0 -n 05 -o "$T/q"
	assert_success
	run tb checkquote -k "$T/new.pem" -n 05 "$T/q"
	assert_success
	run tb checkquote -k "$T/old.pem" -n 05 "$T/q"
	assert_failure 1
	assert_output --partial "signature check failed"
}

# --- checkquote --eventlog / --imalog ----------------------------------
# Logs are built by tests/helpers/mklog.py, which prints the digests a TPM
# extends for them; tpm2_pcrextend puts those into the swtpm, our AK
# quotes, checkquote replays the log against the quote.

mk() { python3 "$BATS_TEST_DIRNAME/helpers/mklog.py" "$@"; }

# PCRs 0-15 reset only with a TPM restart.
reset_pcrs() {
	if ! swtpm_restart; then
		echo "swtpm did not restart" >&2
		return 1
	fi
}

@test "checkquote --eventlog: a boot log that replays to the quoted PCRs" {
	T=$BATS_TEST_TMPDIR
	reset_pcrs
	tb akcreate -o "$T/lak.blob" --pub "$T/lak.pem" >/dev/null
	mk boot "$T/boot.bin" 0:8:crtm 0:1:bios 4:13:loader 7:4:sep > "$T/ext"
	while read -r pcr bank hex; do tpm2_pcrextend "$pcr:$bank=$hex"; done < "$T/ext"
	tb quote -k "$T/lak.blob" -p sha256:0,4,7,10+sha1:0,4,7 -n 77 -o "$T/q" --msg "$T/m" --sig "$T/s" --pcrs "$T/p"
	run tb checkquote -k "$T/lak.pem" -n 77 --eventlog "$T/boot.bin" "$T/q"
	assert_success
	[ "$output" = "$(t2_values 'sha256:0,4,7,10+sha1:0,4,7')" ]
	# tpm2-tools' own check of the same log against the same quote
	run tpm2_checkquote -u "$T/lak.pem" -m "$T/m" -s "$T/s" -f "$T/p" -q 77 -e "$T/boot.bin"
	assert_success
	# the log is not what was measured: one more event in PCR 4
	mk boot "$T/more.bin" 0:8:crtm 0:1:bios 4:13:loader 4:13:evil 7:4:sep > /dev/null
	run tb checkquote -k "$T/lak.pem" -n 77 --eventlog "$T/more.bin" "$T/q"
	assert_failure 1
	assert_output --regexp "event log check failed: sha(1|256):4 replays to [0-9a-f]+, the quote has [0-9a-f]+$"
	# every PCR 4 event removed: PCR 4 replays to its reset value, which
	# is not what the TPM quoted (PCRs 0-7 are checked even untouched)
	mk boot "$T/no4.bin" 0:8:crtm 0:1:bios 7:4:sep > /dev/null
	run tb checkquote -k "$T/lak.pem" -n 77 --eventlog "$T/no4.bin" "$T/q"
	assert_failure 1
	assert_output --regexp "event log check failed: sha(1|256):4 replays to 0+, the quote has [0-9a-f]+$"
	# an event carrying no digests (bound to no bank) is refused
	mk boot "$T/bare.bin" 0:8:crtm 0:1:bios 4:13:loader --no-digests 4:13:fake 7:4:sep > /dev/null
	run tb checkquote -k "$T/lak.pem" -n 77 --eventlog "$T/bare.bin" "$T/q"
	assert_failure 1
	assert_output --partial "event log check failed: $T/bare.bin: event 4 at offset"
	assert_output --partial "0 digests, but the header lists 2 algorithms"
	# a log about PCRs the quote does not cover (only 14; 0-7 then
	# replay to their reset values): refused
	mk boot "$T/other.bin" 14:13:x > /dev/null
	run tb checkquote -k "$T/lak.pem" -n 77 --eventlog "$T/other.bin" "$T/q"
	assert_failure 1
	assert_output --partial "event log check failed: sha"
	# a quote of PCRs outside 0-7 that the log does not extend proves
	# nothing
	tb quote -k "$T/lak.blob" -p sha256:10 -n 77 -o "$T/q10"
	run tb checkquote -k "$T/lak.pem" -n 77 --eventlog "$T/other.bin" "$T/q10"
	assert_failure 1
	assert_output "tpmbox checkquote: event log check failed: the log extends none of the quoted PCRs"
	# a truncated log
	head -c $(( $(stat -c %s "$T/boot.bin") - 3 )) "$T/boot.bin" > "$T/cut.bin"
	run tb checkquote -k "$T/lak.pem" -n 77 --eventlog "$T/cut.bin" "$T/q"
	assert_failure 1
	assert_output --partial "event log check failed: $T/cut.bin: "
	assert_output --partial "truncated"
	run tb checkquote -k "$T/lak.pem" -n 77 --eventlog "$T/none.bin" "$T/q"
	assert_failure 6
	# the quote's own checks come first
	run tb checkquote -k "$T/lak.pem" -n 78 --eventlog "$T/boot.bin" "$T/q"
	assert_failure 1
	assert_output --partial "nonce check failed"
}

@test "checkquote --imalog: an IMA log that replays to PCR 10 in sha1 and sha256" {
	T=$BATS_TEST_TMPDIR
	reset_pcrs
	tb akcreate -o "$T/lak.blob" --pub "$T/lak.pem" >/dev/null
	mk ima "$T/ima.bin" --template ima-ng /usr/bin/a /usr/bin/b '!/usr/bin/c' /usr/bin/d > "$T/ext"
	while read -r pcr a b; do tpm2_pcrextend "$pcr:$a,$b"; done < "$T/ext"
	tb quote -k "$T/lak.blob" -p sha256:10+sha1:10 -n 0102 -o "$T/q"
	run tb checkquote -k "$T/lak.pem" -n 0102 --imalog "$T/ima.bin" "$T/q"
	assert_success
	[ "$output" = "$(t2_values 'sha256:10+sha1:10')" ]
	# the quote covers only sha256: replayed in that bank alone
	tb quote -k "$T/lak.blob" -p sha256:10 -n 0102 -o "$T/q256"
	run tb checkquote -k "$T/lak.pem" -n 0102 --imalog "$T/ima.bin" "$T/q256"
	assert_success
	# an entry the TPM never saw (a hidden program) amid the others
	mk ima "$T/ima2.bin" --template ima-ng /usr/bin/a /usr/bin/hidden /usr/bin/b '!/usr/bin/c' /usr/bin/d > /dev/null
	run tb checkquote -k "$T/lak.pem" -n 0102 --imalog "$T/ima2.bin" "$T/q"
	assert_failure 1
	assert_output --partial "IMA log check failed: no prefix of the list replays to the quoted sha"
	# entries after the last one quoted: the list was read after the
	# quote (the kernel appends before it extends); the quote covers the
	# prefix, and checkquote says how much is left uncovered
	mk ima "$T/ima4.bin" --template ima-ng /usr/bin/a /usr/bin/b '!/usr/bin/c' /usr/bin/d /usr/bin/later > /dev/null
	run tb checkquote -k "$T/lak.pem" -n 0102 --imalog "$T/ima4.bin" "$T/q"
	assert_success
	assert_line "checkquote: IMA log, sha256: 4 of 5 entries match the quote (the rest, beyond it, came after the quote and are not covered)"
	# a bank extended with zero-padded SHA-1 template digests (a kernel
	# that could not allocate sha256); PCR 11, which nothing else here uses
	mk ima "$T/ima5.bin" --template ima-ng --pcr 11 --banks sha1,sha256:padded /usr/bin/a /usr/bin/b > "$T/ext5"
	while read -r pcr a b; do tpm2_pcrextend "$pcr:$a,$b"; done < "$T/ext5"
	tb quote -k "$T/lak.blob" -p sha256:11+sha1:11 -n 0102 -o "$T/q5"
	run tb checkquote -k "$T/lak.pem" -n 0102 --imalog "$T/ima5.bin" "$T/q5"
	assert_success
	assert_line "checkquote: IMA log, sha256: SHA-1 template digests zero-padded; 2 of 2 entries match the quote"
	# an entry left out of the log
	mk ima "$T/ima3.bin" --template ima-ng /usr/bin/a /usr/bin/b '!/usr/bin/c' > /dev/null
	run tb checkquote -k "$T/lak.pem" -n 0102 --imalog "$T/ima3.bin" "$T/q"
	assert_failure 1
	assert_output --partial "IMA log check failed"
	# PCR 10 not quoted
	tb quote -k "$T/lak.blob" -p sha256:0 -n 0102 -o "$T/q0"
	run tb checkquote -k "$T/lak.pem" -n 0102 --imalog "$T/ima.bin" "$T/q0"
	assert_failure 1
	assert_output "tpmbox checkquote: IMA log check failed: the log extends none of the quoted PCRs"
	# malformed
	head -c 30 "$T/ima.bin" > "$T/cut.bin"
	run tb checkquote -k "$T/lak.pem" -n 0102 --imalog "$T/cut.bin" "$T/q"
	assert_failure 1
	assert_output --partial "IMA log check failed: $T/cut.bin: "
	# both logs at once
	mk boot "$T/boot.bin" 7:4:sep > "$T/bext"
	while read -r pcr bank hex; do tpm2_pcrextend "$pcr:$bank=$hex"; done < "$T/bext"
	tb quote -k "$T/lak.blob" -p sha256:7,10 -n 0102 -o "$T/qb"
	run tb checkquote -k "$T/lak.pem" -n 0102 --eventlog "$T/boot.bin" --imalog "$T/ima.bin" "$T/qb"
	assert_success
	run tb checkquote -k "$T/lak.pem" -n 0102 --eventlog "$T/boot.bin" --imalog "$T/ima2.bin" "$T/qb"
	assert_failure 1
	assert_output --partial "IMA log check failed"
}

@test "checkquote -k: SPKI PEM and DER, PKCS#1 RSA PEM; other curves, damaged PEM and trailing bytes refused" {
	T=$BATS_TEST_TMPDIR
	q=(--msg "$D/t2rsa.msg" --sig "$D/t2rsa.sig" --pcrs "$D/t2rsa.pcrs" -n 0a0b0c)
	# the same RSA key in the three encodings OpenSSL writes
	openssl pkey -pubin -in "$D/t2rsa.pem" -outform DER -out "$T/k.der"
	openssl rsa -pubin -in "$D/t2rsa.pem" -RSAPublicKey_out -out "$T/k.rsa.pem" 2>/dev/null
	for k in "$D/t2rsa.pem" "$T/k.der" "$T/k.rsa.pem"; do
		run tb checkquote -k "$k" "${q[@]}"
		assert_success
		assert_line --index 0 --regexp '^sha256:7 [0-9a-f]{64}$'
	done
	# a P-384 key parses (and then does not verify this RSA quote)
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 2>/dev/null | openssl pkey -pubout -out "$T/p384.pem"
	run tb checkquote -k "$T/p384.pem" "${q[@]}"
	assert_failure 1
	assert_output --partial "an RSASSA signature cannot be checked with an ECC key"
	# P-521 and Ed25519 are not keys a TPM quote comes from here
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-521 2>/dev/null | openssl pkey -pubout -out "$T/p521.pem"
	openssl genpkey -algorithm ED25519 2>/dev/null | openssl pkey -pubout -out "$T/ed.pem"
	for k in "$T/p521.pem" "$T/ed.pem"; do
		run tb checkquote -k "$k" "${q[@]}"
		assert_failure 2
		assert_output --partial "public key: not an RSA or ECC (P-256, P-384) public key in PEM or DER"
	done
	# a byte after the DER, a cut DER, a PEM with broken base64
	{ cat "$T/k.der"; printf '\0'; } > "$T/trail.der"
	head -c 100 "$T/k.der" > "$T/cut.der"
	sed '2s/^./!/' "$D/t2rsa.pem" > "$T/b64.pem"
	for k in "$T/trail.der" "$T/cut.der"; do
		run tb checkquote -k "$k" "${q[@]}"
		assert_failure 2
		assert_output --partial "not an RSA or ECC"
	done
	run tb checkquote -k "$T/b64.pem" "${q[@]}"
	assert_failure 2
	assert_output --partial "public key: the PUBLIC KEY PEM block is damaged (not valid base64)"
}
