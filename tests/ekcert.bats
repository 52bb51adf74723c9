#!/usr/bin/env bats
# ekcert: the EK certificates a manufacturer puts in NV.  The TPM is a
# swtpm manufactured by swtpm_setup --tpm2 --create-ek-cert with a
# swtpm-localca of the suite's own (helpers/common.bash): an RSA-2048
# certificate at 0x01c00002 (EK 0x81010001) and a P-384 one at 0x01c00016
# (the H-3 EK, 0x81010016), issued by an intermediate under a root.
# Oracles: tpm2_nvread + openssl x509 (the certificate's key) against
# tpm2_readpublic (the EK's), and openssl verify for the chain.

load helpers/common

# The small build leaves ekcert out (Makefile TINY_OMIT, docs/tiny.md).
setup_file() {
	"$TPMBOX" --list | grep -q '^ekcert ' || return 0
	swtpm_ekcert_start
	CA=$SWTPM_DIR/ca
	export CA
	cat "$CA/swtpm-localca-rootca-cert.pem" "$CA/issuercert.pem" \
		>"$BATS_FILE_TMPDIR/chain.pem"
	mkdir -p "$BATS_FILE_TMPDIR/cadir"
	cp "$CA/swtpm-localca-rootca-cert.pem" "$BATS_FILE_TMPDIR/cadir/root.pem"
	openssl x509 -in "$CA/issuercert.pem" -outform der \
		-out "$BATS_FILE_TMPDIR/cadir/intermediate.der"
	# another CA, with nothing to do with this TPM
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$BATS_FILE_TMPDIR/other.key" -subj /CN=other-ca \
		-days 2 -out "$BATS_FILE_TMPDIR/other.pem" 2>/dev/null
}
teardown_file() { [ -z "${SWTPM_DIR:-}" ] || swtpm_stop; }
setup() {
	"$TPMBOX" --list | grep -q '^ekcert ' ||
		skip "ekcert is not in this build (make tiny leaves it out)"
	D=$BATS_TEST_TMPDIR; F=$BATS_FILE_TMPDIR; t2_flush
}

@test "ekcert: the RSA certificate at 0x01c00002 is read and its key is the L-1 EK's (openssl and tpm2_readpublic agree)" {
	run tb ekcert -o "$D/rsa.der"
	assert_success
	assert_line "0x01c00002: EK certificate, template L-1 (RSA-2048)"
	assert_line "  issuer: CN=swtpm-localca"
	assert_line "  key: the EK's (persisted at 0x81010001)"
	assert_output --partial "  valid: "
	tpm2_nvread 0x01c00002 -o "$D/nv.bin" 2>/dev/null
	openssl x509 -inform der -in "$D/nv.bin" -outform der -out "$D/want.der"
	cmp "$D/rsa.der" "$D/want.der"
	openssl x509 -inform der -in "$D/rsa.der" -noout -pubkey >"$D/cert.pub"
	tpm2_readpublic -c 0x81010001 -f pem -o "$D/ek.pub" >/dev/null
	cmp "$D/cert.pub" "$D/ek.pub"
	serial=$(openssl x509 -inform der -in "$D/rsa.der" -noout -serial)
	assert_line "  serial: $(printf '%02x' "$((16#${serial#serial=}))")"
}

@test "ekcert --ecc: the P-384 certificate at 0x01c00016 matches the H-3 EK (0x81010016)" {
	run tb ekcert --ecc -o "$D/ecc.der"
	assert_success
	assert_line "0x01c00016: EK certificate, template H-3 (NIST P-384)"
	assert_line "  key: the EK's (persisted at 0x81010016)"
	openssl x509 -inform der -in "$D/ecc.der" -noout -pubkey >"$D/cert.pub"
	tpm2_readpublic -c 0x81010016 -f pem -o "$D/ek.pub" >/dev/null
	cmp "$D/cert.pub" "$D/ek.pub"
}

@test "ekcert --all --json: both certificates" {
	run tb ekcert --all --json
	assert_success
	[ "$(echo "$output" | jq -r '.certificates | map(.index + " " + .template) | join(",")')" = \
	  "0x01c00002 L-1,0x01c00016 H-3" ]
	[ "$(echo "$output" | jq -r '.certificates[1].issuer')" = "CN=swtpm-localca" ]
}

@test "ekcert: a P-521 certificate at 0x01c00018 (H-4) is the H-4 EK's and verifies; one for another P-521 key is refused" {
	[ "${TPMBOX_SECOND_PASS:-}" != tiny ] || skip "no P-521 in the small build"
	tb ekpub --template H-4 -o "$D/h4.pem"
	# a certificate for the H-4 EK, issued by the suite's intermediate
	# (openssl: -force_pubkey puts the EK's key in it)
	openssl req -new -key "$F/other.key" -subj /CN=ek-h4 -out "$D/req.pem"
	openssl x509 -req -in "$D/req.pem" -CA "$CA/issuercert.pem" \
		-CAkey "$CA/signkey.pem" -force_pubkey "$D/h4.pem" -days 2 \
		-set_serial 77 -outform der -out "$D/h4.der" 2>/dev/null
	nv_put 0x01c00018 "$D/h4.der"
	run tb ekcert --all --ca "$F/chain.pem"
	tpm2_nvundefine -C o 0x01c00018 >/dev/null 2>&1 || true
	assert_success
	assert_line "0x01c00018: EK certificate, template H-4 (NIST P-521)"
	[ "$(grep -c '  CA: verified up to CN=swtpm-localca-rootca$' <<<"$output")" = 3 ]
	[ "$(grep -c "  key: the EK's (made from the TCG template)" <<<"$output")" -ge 1 ]
	# the same for a P-521 key that is not the EK
	openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:P-521 \
		-out "$D/x.key" 2>/dev/null
	openssl pkey -in "$D/x.key" -pubout -out "$D/x.pem"
	openssl x509 -req -in "$D/req.pem" -CA "$CA/issuercert.pem" \
		-CAkey "$CA/signkey.pem" -force_pubkey "$D/x.pem" -days 2 \
		-set_serial 78 -outform der -out "$D/x.der" 2>/dev/null
	nv_put 0x01c00018 "$D/x.der"
	run tb ekcert --all
	tpm2_nvundefine -C o 0x01c00018 >/dev/null 2>&1 || true
	assert_failure 1
	assert_output --partial "the certificate at 0x01c00018 is not this TPM's"
}

@test "ekcert --ca: the chain (root + intermediate, one PEM file) verifies up to the root; openssl agrees" {
	run tb ekcert --all --ca "$F/chain.pem"
	assert_success
	[ "$(grep -c '  CA: verified up to CN=swtpm-localca-rootca$' <<<"$output")" = 2 ]
	tb ekcert -o "$D/rsa.der"
	openssl verify -CAfile "$CA/swtpm-localca-rootca-cert.pem" \
		-untrusted "$CA/issuercert.pem" \
		<(openssl x509 -inform der -in "$D/rsa.der")
}

@test "ekcert --ca DIR: a directory holding the root (PEM) and the intermediate (DER)" {
	run tb ekcert --ecc --ca "$F/cadir" --json
	assert_success
	[ "$(echo "$output" | jq -r '.certificates[0].ca')" = "CN=swtpm-localca-rootca" ]
}

@test "ekcert --ca: another CA, or the root without the intermediate, is refused (exit 1)" {
	run tb ekcert --ca "$F/other.pem"
	assert_failure 1
	assert_output --partial "tpmbox ekcert: the certificate at 0x01c00002 does not verify to a CA in $F/other.pem"
	run tb ekcert --ecc --ca "$CA/swtpm-localca-rootca-cert.pem"
	assert_failure 1
	assert_output --partial "does not verify"
	# the intermediate on its own is the anchor then: trusted as given
	run tb ekcert --ca "$CA/issuercert.pem"
	assert_success
	assert_line "  CA: verified up to CN=swtpm-localca"
}

@test "ekcert --ca: a file or directory without certificates is a usage error (exit 2); a missing one exit 6" {
	echo "not a certificate" >"$D/junk.pem"
	run tb ekcert --ca "$D/junk.pem"
	assert_failure 2
	assert_output --partial "$D/junk.pem"
	mkdir "$D/empty"
	run tb ekcert --ca "$D/empty"
	assert_failure 2
	assert_output --partial "no certificate in the directory"
	run tb ekcert --ca "$D/missing.pem"
	assert_failure 6
	run tb ekcert --all -o "$D/x.der"
	assert_failure 2
}

@test "ekcert --ca: the intermediate in NV's chain range (0x01c00100) completes a chain to the root" {
	openssl x509 -in "$CA/issuercert.pem" -outform der -out "$D/int.der"
	# back to back, then padding
	{ cat "$D/int.der"; head -c 16 /dev/zero; } >"$D/chain.bin"
	nv_put 0x01c00100 "$D/chain.bin"
	run tb ekcert --ca "$CA/swtpm-localca-rootca-cert.pem"
	tpm2_nvundefine -C o 0x01c00100 >/dev/null
	assert_success
	assert_line "  CA: verified up to CN=swtpm-localca-rootca"
}

@test "ekcert: the EKs not persisted are made from their templates (L-1, H-3) and still match; ekpub --template H-3 is swtpm_setup's key" {
	tpm2_readpublic -c 0x81010016 -f pem -o "$D/h3.pem" >/dev/null
	run tb ekpub --template H-3 --name -o "$D/ekpub-h3.pem"
	assert_success
	assert_output --partial "(persisted at 0x81010016)"
	cmp "$D/ekpub-h3.pem" "$D/h3.pem"
	tpm2_evictcontrol -C o -c 0x81010001 >/dev/null
	tpm2_evictcontrol -C o -c 0x81010016 >/dev/null
	run tb ekcert --all
	assert_success
	assert_line "  key: the EK's (made from the TCG template)"
	[ "$(grep -c "made from the TCG template" <<<"$output")" = 2 ]
	# tpmbox's H-3 template makes the key swtpm_setup persisted
	run tb ekpub --template H-3 --name -o "$D/made-h3.pem"
	assert_success
	assert_output --partial "(made from the TCG template)"
	cmp "$D/made-h3.pem" "$D/h3.pem"
	run tb ekpub --template H-5
	assert_failure 2
	assert_output --partial "SM3-256"
}

@test "ekcert: a TPM 1.2 style header (10 01 00 SIZE 10 02) and trailing padding are taken off" {
	tpm2_nvread 0x01c00002 -o "$D/nv.bin" 2>/dev/null
	openssl x509 -inform der -in "$D/nv.bin" -outform der -out "$D/c.der"
	n=$(( $(stat -c %s "$D/c.der") + 2 ))
	{ printf '\x10\x01\x00'; printf "\\x$(printf %02x $((n >> 8)))\\x$(printf %02x $((n & 255)))";
	  printf '\x10\x02'; cat "$D/c.der"; head -c 40 /dev/zero | tr '\0' '\377'; } >"$D/hdr.bin"
	cp "$D/nv.bin" "$F/rsa-nv.bin"
	nv_put 0x01c00002 "$D/hdr.bin"
	run tb ekcert -o "$D/out.der"
	assert_success
	assert_line "0x01c00002: EK certificate, template L-1 (RSA-2048)"
	cmp "$D/out.der" "$D/c.der"
	# a header whose size disagrees with the DER is refused
	{ head -c 3 "$D/hdr.bin"; printf '\x00\x10'; tail -c +6 "$D/hdr.bin"; } >"$D/bad.bin"
	nv_put 0x01c00002 "$D/bad.bin"
	run tb ekcert
	assert_failure 1
	assert_output "tpmbox ekcert: NV index 0x01c00002: the certificate after the TCG header is not 14 bytes of DER"
	{ head -c 5 "$D/hdr.bin"; printf '\x10\x03'; tail -c +8 "$D/hdr.bin"; } >"$D/bad.bin"
	nv_put 0x01c00002 "$D/bad.bin"
	run tb ekcert
	assert_failure 1
	assert_output --partial "NV index 0x01c00002: a TCG stored-certificate header"
	nv_put 0x01c00002 "$F/rsa-nv.bin"
	run tb ekcert
	assert_success
}

@test "ekcert: a certificate whose key is not the EK is refused (exit 1)" {
	# the P-384 certificate where the RSA one belongs, then the CA's
	tpm2_nvread 0x01c00016 -o "$D/ecc.bin" 2>/dev/null
	tpm2_nvread 0x01c00002 -o "$D/rsa.bin" 2>/dev/null
	nv_put 0x01c00002 "$D/ecc.bin"
	run tb ekcert
	assert_failure 1
	assert_output --partial "tpmbox ekcert: the certificate at 0x01c00002 is not this TPM's: its public key is not the EK of template L-1"
	openssl x509 -in "$CA/issuercert.pem" -outform der -out "$D/int.der"
	nv_put 0x01c00016 "$D/int.der"
	run tb ekcert --ecc
	assert_failure 1
	assert_output --partial "is not this TPM's"
	nv_put 0x01c00002 "$D/rsa.bin"
	nv_put 0x01c00016 "$D/ecc.bin"
	run tb ekcert --all
	assert_success
}

@test "ekcert: a truncated certificate or garbage in the index is refused (exit 1)" {
	tpm2_nvread 0x01c00002 -o "$D/rsa.bin" 2>/dev/null
	head -c 600 "$D/rsa.bin" >"$D/short.bin"
	nv_put 0x01c00002 "$D/short.bin"
	run tb ekcert
	assert_failure 1
	assert_output --partial "NV index 0x01c00002: not a DER certificate"
	head -c 300 /dev/urandom >"$D/junk.bin"
	printf '\x30\x82\x01\x00' | cat - "$D/junk.bin" >"$D/junk2.bin"
	nv_put 0x01c00002 "$D/junk2.bin"
	run tb ekcert
	assert_failure 1
	assert_output --partial "NV index 0x01c00002: not an X.509 certificate"
	nv_put 0x01c00002 "$D/rsa.bin"
	run tb ekcert
	assert_success
}

@test "ekcert: no certificate in NV is exit 6 (for the selection too)" {
	tpm2_nvread 0x01c00002 -o "$D/rsa.bin" 2>/dev/null
	tpm2_nvundefine -C p 0x01c00002 >/dev/null 2>&1 ||
		tpm2_nvundefine -C o 0x01c00002 >/dev/null
	run tb ekcert --rsa
	assert_failure 6
	assert_output "tpmbox ekcert: no EK certificate in NV for an RSA EK"
	run tb ekcert
	assert_success
	assert_line "0x01c00016: EK certificate, template H-3 (NIST P-384)"
	tpm2_nvundefine -C p 0x01c00016 >/dev/null 2>&1 ||
		tpm2_nvundefine -C o 0x01c00016 >/dev/null
	run tb ekcert --all
	assert_failure 6
	assert_output "tpmbox ekcert: no EK certificate in NV"
}
