#!/usr/bin/env bats
# The TPM 1.2 oracle itself (tests/helpers/tcsd.bash): swtpm in 1.2 mode,
# tcsd in front of it, tpm-tools and tpm-quote-tools through it.  These
# tests record the facts later 1.2 tests stand on: what tpm-tools writes
# and accepts, and that the helper starts, stops and restarts everything.
# No tpmbox command here: the suite runs whatever tpmbox speaks.

load helpers/common
load helpers/tcsd

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
# The codec checker: tests/unit/test_tss12 FILE... reads each file with
# lib/fmt/tssfile.c and lib/tpm12/structs.c and writes every structure back
# (make builds only what is missing: the unit tests' binary).
CHECKER=$ROOT/${BUILD:-build}/unit/test_tss12

setup_file() {
	make -s -C "$ROOT" "${BUILD:-build}/unit/test_tss12" >&2 || return 1
	swtpm12_tcp_start && tcsd_start
}
teardown_file() { tpm12_oracle_stop; }

D() { echo "$BATS_FILE_TMPDIR"; }

@test "oracle: tpm_version through tcsd names a 1.2 TPM" {
	run tpm_version
	assert_success
	assert_output --partial "TPM 1.2 Version Info"
	assert_output --partial "Chip Version:        1.2."
}

@test "oracle: tpm_takeownership -y -z, then a second one is refused" {
	run tpm_takeownership -y -z
	assert_success
	# tcsd wrote the SRK entry tpm_sealdata will need.
	[ -s "$TCSD_DIR/ps/system.data" ]
	tcsd_save_ps "$(D)/owned-system.data"
	run tpm_takeownership -y -z
	assert_failure
}

# seal_case NAME [PCR...]: tpm_sealdata -z of a 100-byte input, unseal it
# back, keep the file.
seal_case() {
	local name=$1; shift
	local d; d=$(D)
	local args=()
	for p in "$@"; do args+=(-p "$p"); done
	head -c 100 /dev/urandom >"$d/$name.in"
	tpm_sealdata -z -i "$d/$name.in" -o "$d/$name.tss" "${args[@]}"
	tpm_unsealdata -z -i "$d/$name.tss" -o "$d/$name.out"
	cmp "$d/$name.in" "$d/$name.out"
}

# tss_section FILE MARKER: the base64 of one section, decoded, as hex.
tss_section() {
	awk -v m="-----$2-----" '
		/^-----/ { on = ($0 == m); next }
		on && !/^Symmetric Key:/ { print }' "$1" | base64 -d | xxd -p | tr -d '\n'
}

@test "oracle: tpm_sealdata -z / tpm_unsealdata -z with no PCR" {
	seal_case nopcr
	f=$(D)/nopcr.tss
	# The exact header lines and section order tpm_unsealdata wants.
	run grep '^-----' "$f"
	assert_output "$(printf '%s\n' '-----BEGIN TSS-----' \
		'-----TSS KEY-----' '-----ENC KEY-----' \
		'-----ENC DAT-----' '-----END TSS-----')"
	run sed -n '1p;2p;$p' "$f"
	assert_line --index 0 "-----BEGIN TSS-----"
	assert_line --index 1 "-----TSS KEY-----"
	assert_line --index 2 "-----END TSS-----"
	run grep -A1 '^-----ENC KEY-----$' "$f"
	assert_line --index 1 "Symmetric Key: AES-256-CBC"
	# base64 in lines of 64 characters, the last of each section shorter.
	run awk '!/^-----/ && !/^Symmetric/ && length($0) > 64' "$f"
	assert_output ""
	# TSS KEY: a TPM_KEY (version 1.1.0.0), storage usage 0x0011.
	[[ "$(tss_section "$f" "TSS KEY")" == 0101000000110000000401* ]]
	# ENC KEY: TPM_STORED_DATA (1.1.0.0) with sealInfoSize 0.
	[[ "$(tss_section "$f" "ENC KEY")" == 0101000000000000* ]]
	# ENC DAT: 100 bytes + PKCS#7 padding = 7 AES blocks.
	[ "$(tss_section "$f" "ENC DAT" | wc -c)" -eq $((112 * 2)) ]
}

@test "oracle: tpm_sealdata to PCRs 0 and 7 (TPM_PCR_INFO)" {
	seal_case pcr07 0 7
	h=$(tss_section "$(D)/pcr07.tss" "ENC KEY")
	# TPM_STORED_DATA, sealInfoSize 0x2c = TPM_PCR_INFO {selection of
	# sizeOfSelect 2 (TrouSerS' choice below PCR 16): 0002 8100,
	# digestAtRelease, digestAtCreation}.
	[[ "$h" == 010100000000002c00028100* ]]
}

@test "oracle: tpm_sealdata to PCRs 0 and 16 (TPM_STORED_DATA12, TPM_PCR_INFO_LONG)" {
	seal_case pcr16 0 16
	h=$(tss_section "$(D)/pcr16.tss" "ENC KEY")
	# tag 0016, et 0000, sealInfoSize 0x36, PCR_INFO_LONG tag 0006,
	# localities 01/1f, creation selection empty, release 01 00 01.
	[[ "$h" == 00160000000000360006011f00030000000003010001* ]]
}

@test "oracle: tpm_sealdata of 0 and 1 byte, 64 KiB to PCR 15, 1 KiB to PCR 23" {
	local d; d=$(D)
	: >"$d/empty.in"
	tpm_sealdata -z -i "$d/empty.in" -o "$d/empty.tss"
	head -c 1 /dev/urandom >"$d/one.in"
	tpm_sealdata -z -i "$d/one.in" -o "$d/one.tss"
	head -c 65536 /dev/urandom >"$d/big.in"
	tpm_sealdata -z -i "$d/big.in" -o "$d/big.tss" -p 15
	head -c 1024 /dev/urandom >"$d/p23.in"
	tpm_sealdata -z -i "$d/p23.in" -o "$d/p23.tss" -p 23
	for f in empty one big p23; do
		tpm_unsealdata -z -i "$d/$f.tss" -o "$d/$f.out"
		cmp "$d/$f.in" "$d/$f.out"
	done
}

@test "oracle: tpmbox's codecs read every file tpm_sealdata wrote, byte for byte" {
	local d; d=$(D)
	for f in nopcr pcr07 pcr16 empty one big p23; do
		[ -s "$d/$f.tss" ] || fail "$f.tss was not made (an earlier test failed)"
	done
	run "$CHECKER" "$d/nopcr.tss"
	assert_success
	assert_output --partial "key TPM_KEY usage 0x0011, TPM_STORED_DATA, pcr-info none"
	run "$CHECKER" "$d/pcr07.tss"
	assert_success
	assert_output --partial "TPM_STORED_DATA, pcr-info TPM_PCR_INFO sel 2 mask 0x81, data 112 bytes"
	run "$CHECKER" "$d/pcr16.tss"
	assert_success
	assert_output --partial "TPM_STORED_DATA12, pcr-info TPM_PCR_INFO_LONG sel 3 mask 0x10001"
	run "$CHECKER" "$d/empty.tss"
	assert_output --partial "pcr-info none sel 0 mask 0x0, data 16 bytes"
	run "$CHECKER" "$d/one.tss"
	assert_output --partial "pcr-info none sel 0 mask 0x0, data 16 bytes"
	run "$CHECKER" "$d/big.tss"
	assert_output --partial "TPM_STORED_DATA, pcr-info TPM_PCR_INFO sel 2 mask 0x8000, data 65552 bytes"
	run "$CHECKER" "$d/p23.tss"
	assert_output --partial "TPM_STORED_DATA12, pcr-info TPM_PCR_INFO_LONG sel 3 mask 0x800000, data 1040 bytes"
	# And it refuses what tpm_unsealdata refuses.
	sed 's/^Symmetric Key: AES-256-CBC$/Symmetric Key: AES-128-CBC/' \
		"$d/nopcr.tss" >"$d/bad-codec.tss"
	run "$CHECKER" "$d/bad-codec.tss"
	assert_failure
	assert_output --partial 'not "Symmetric Key: AES-256-CBC"'
}

@test "oracle: tpm_unsealdata refuses after the PCR changed (exit 0x18's low byte)" {
	[ -s "$(D)/pcr07.tss" ] || skip "the PCR 0/7 seal test did not run"
	# Extend PCR 7 raw with tcsd stopped: tcsd_stop / start on the way.
	tcsd_stop
	run tpm12_raw 00c1000000220000001400000007$(printf '%040x' 1)
	tcsd_start
	assert_success
	[[ "$output" == 00c40000001e00000000* ]]
	run tpm_unsealdata -z -i "$(D)/pcr07.tss" -o "$(D)/pcr07.out2"
	assert_failure 24
	# The no-PCR file still opens.
	run tpm_unsealdata -z -i "$(D)/nopcr.tss" -o "$(D)/nopcr.out2"
	assert_success
}

@test "oracle: tpm_unsealdata refuses a damaged header line" {
	[ -s "$(D)/nopcr.tss" ] || skip "the no-PCR seal test did not run"
	sed 's/^Symmetric Key: AES-256-CBC$/Symmetric Key: AES-128-CBC/' \
		"$(D)/nopcr.tss" >"$(D)/bad.tss"
	run tpm_unsealdata -z -i "$(D)/bad.tss" -o "$(D)/bad.out"
	assert_failure
	[ ! -s "$(D)/bad.out" ]
}

@test "oracle: NV define/write/read/info with owner permissions, wrong auth refused" {
	run tpm_nvdefine -y -i 0x1100 -s 32 -p "OWNERREAD|OWNERWRITE"
	assert_success
	printf 'hello nv' >"$(D)/nv.in"
	run tpm_nvwrite -z -i 0x1100 -f "$(D)/nv.in"
	assert_success
	run tpm_nvread -z -i 0x1100 -s 8 -f "$(D)/nv.out"
	assert_success
	cmp "$(D)/nv.in" "$(D)/nv.out"
	run tpm_nvinfo -i 0x1100
	assert_success
	assert_output --partial "Permissions   : 0x00020002 (OWNERREAD|OWNERWRITE)"
	assert_output --partial "Size          : 32 (0x20)"
	run tpm_nvread -i 0x1100 -s 8 -pwrong -f "$(D)/nv.bad"
	assert_failure
	assert_output --partial "Authentication failed"
	run tpm_nvrelease -y -i 0x1100
	assert_success
	run tpm_nvinfo -i 0x1100
	refute_output --partial "0x00001100"
}

@test "oracle: tpm_mkaik, tpm_loadkey and tpm_getquote (TPM_Quote2)" {
	local d; d=$(D)
	run tpm_mkaik -z "$d/aik.blob" "$d/aik.pub"
	assert_success
	tpm_mkuuid "$d/aik.uuid"
	tpm_loadkey "$d/aik.blob" "$d/aik.uuid"
	head -c 20 /dev/urandom >"$d/nonce"
	run tpm_getquote -p "$d/pcrvals" "$d/aik.uuid" "$d/nonce" "$d/quote" 0 7
	assert_success
	# The output is the bare signature (RSA-2048); -p writes "N=HEX" lines
	# in upper case.
	[ "$(stat -c %s "$d/quote")" -eq 256 ]
	run cat "$d/pcrvals"
	assert_line --index 0 --regexp '^0=[0-9A-F]{40}$'
	assert_line --index 1 --regexp '^7=[0-9A-F]{40}$'
	# tpm_mkaik's public key file: TrouSerS' blob, a DER SEQUENCE whose
	# OCTET STRING is a TPM_PUBKEY (RSA-2048, default exponent); the
	# modulus is its last 256 bytes.
	[ "$(head -c 2 "$d/aik.pub" | xxd -p)" = 3082 ]
	printf 'asn1=SEQUENCE:rsa\n[rsa]\nn=INTEGER:0x%s\ne=INTEGER:65537\n' \
		"$(tail -c 256 "$d/aik.pub" | xxd -p | tr -d '\n')" >"$d/aik.cnf"
	openssl asn1parse -genconf "$d/aik.cnf" -out "$d/aik.der" >/dev/null
	openssl rsa -RSAPublicKey_in -inform DER -in "$d/aik.der" -pubout \
		-out "$d/aik.pem" 2>/dev/null
	# The signature is PKCS#1 v1.5 SHA-1 over the TPM_QUOTE_INFO2 that
	# tpm12_put_quote_info2 builds: selection of 3 bytes, locality 0
	# (localityAtRelease 0x01), digest of the composite of the values.
	"$CHECKER" quote2 "$(xxd -p "$d/nonce")" 3 1 "$d/pcrvals" | xxd -r -p >"$d/qi2"
	[ "$(stat -c %s "$d/qi2")" -eq 52 ]
	run openssl dgst -sha1 -verify "$d/aik.pem" -signature "$d/quote" "$d/qi2"
	assert_success
	assert_output "Verified OK"
	# Written with a 2-byte selection (as tpm_sealdata's PCR_INFO is), or
	# with another nonce, it does not verify.
	"$CHECKER" quote2 "$(xxd -p "$d/nonce")" 2 1 "$d/pcrvals" | xxd -r -p >"$d/qi2b"
	run openssl dgst -sha1 -verify "$d/aik.pem" -signature "$d/quote" "$d/qi2b"
	assert_failure
	"$CHECKER" quote2 "$(printf '%040x' 7)" 3 1 "$d/pcrvals" | xxd -r -p >"$d/qi2c"
	run openssl dgst -sha1 -verify "$d/aik.pem" -signature "$d/quote" "$d/qi2c"
	assert_failure
}

@test "oracle: tcsd_stop frees swtpm for a raw client; tcsd_start again" {
	tcsd_stop
	# GetCapability(TPM_CAP_VERSION_VAL): TPM_CAP_VERSION_INFO, tag 0030.
	run tpm12_raw 00c100000012000000650000001a00000000
	assert_success
	[[ "$output" == 00c4????????00000000????????00300102* ]]
	tcsd_start
	run tpm_version
	assert_success
}

@test "oracle: ownership taken outside tcsd: sealing needs the kept system.data" {
	# A second TPM whose owner is not known to its tcsd: a fresh PS dir.
	local d; d=$(D)
	(
		unset TCSD_DIR SWTPM12_DIR
		trap tpm12_oracle_stop EXIT
		swtpm12_tcp_start && tcsd_start || exit 1
		tpm_takeownership -y -z || exit 1
		tcsd_stop
		# Lose the SRK entry, as a takeown by another client would.
		rm -f "$TCSD_DIR/ps/system.data"
		tcsd_start || exit 1
		tpm_sealdata -z -i "$d/nopcr.in" -o "$d/lost.tss" 2>"$d/lost.err" &&
			{ echo "sealed without the SRK entry" >&2; exit 1; }
		grep -q 2020 "$d/lost.err" || { cat "$d/lost.err" >&2; exit 1; }
		tcsd_stop
		tcsd_load_ps "$(tcsd_srk_ps)" || exit 1
		tcsd_start || exit 1
		tpm_sealdata -z -i "$d/nopcr.in" -o "$d/kept.tss" || exit 1
		tpm_unsealdata -z -i "$d/kept.tss" -o "$d/kept.out" || exit 1
		cmp "$d/nopcr.in" "$d/kept.out"
	)
}

@test "oracle: swtpm12_tcp_start --no-ek: ReadPubek says TPM_NO_ENDORSEMENT (0x23)" {
	(
		unset TCSD_DIR SWTPM12_DIR SWTPM12_PORT
		trap tpm12_oracle_stop EXIT
		swtpm12_tcp_start --no-ek || exit 1
		# TPM_ReadPubek(antiReplay): the 10-byte error, rc 0x23.
		r=$(tpm12_raw 00c10000001e0000007c$(printf '%040x' 5)) || exit 1
		[ "$r" = 00c40000000a00000023 ] || { echo "got $r" >&2; exit 1; }
	)
	# And this suite's TPM, with its EK, owned: ReadPubek disabled (0x08).
	tcsd_stop
	run tpm12_raw 00c10000001e0000007c$(printf '%040x' 5)
	tcsd_start
	assert_output 00c40000000a00000008
}

@test "oracle: swtpm12_restart: PCRs reset, ownership kept, tcsd and sealing again" {
	tcsd_stop
	run tpm12_raw 00c10000000e0000001500000007
	refute_output "00c40000001e00000000$(printf '%040d' 0)"
	swtpm12_restart
	run tpm12_raw 00c10000000e0000001500000007
	assert_output "00c40000001e00000000$(printf '%040d' 0)"
	tcsd_start
	run tpm_takeownership -y -z
	assert_failure
	run tpm_sealdata -z -i "$(D)/one.in" -o "$(D)/after.tss"
	assert_success
}
