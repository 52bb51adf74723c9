#!/usr/bin/env bats
# akcreate, quote and checkquote on a TPM 1.2 (swtpm in 1.2 mode, owned by
# tpm_takeownership -y -z through tcsd so that tpm-quote-tools work too).
# Independent answers: the signed bytes are rebuilt here in Python from
# the spec's layout, openssl verifies the signatures, and tpm-quote-tools'
# tpm_mkaik/tpm_getquote make quotes tpmbox checks.  tcsd is stopped
# whenever tpmbox talks to the TPM (swtpm takes one client at a time).

load helpers/common
load helpers/tcsd

setup_file() {
	swtpm12_tcp_start && tcsd_start || return 1
	tpm_takeownership -y -z >"$BATS_FILE_TMPDIR/takeown.out" 2>&1 || return 1
	tcsd_stop
	local d=$BATS_FILE_TMPDIR
	"$TPMBOX" extend 7 -s "quote test" >/dev/null || return 1
	"$TPMBOX" extend 10 -s "ten" >/dev/null || return 1
	"$TPMBOX" akcreate -o "$d/ak.blob" --pub "$d/ak.pem" >"$d/ak.hash" || return 1
	"$TPMBOX" akcreate -o "$d/ak2.blob" --pub "$d/ak2.pem" >/dev/null || return 1
}
teardown_file() { tpm12_oracle_stop; }

D() { echo "$BATS_FILE_TMPDIR"; }

# pcr N: the value pcrread prints for sha1:N.
pcr() { "$TPMBOX" pcrread "sha1:$1" | awk '{print $2}'; }

# flip FILE OFFSET: invert one byte in place.
flip() {
	python3 - "$1" "$2" <<'PY'
import sys
p, o = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, "rb").read())
b[o] ^= 0xff
open(p, "wb").write(bytes(b))
PY
}

# composite SEL_HEX VALUE...: SHA-1 of TPM_PCR_COMPOSITE, hex.
composite() {
	python3 - "$@" <<'PY'
import hashlib, struct, sys
sel = bytes.fromhex(sys.argv[1])
vals = b"".join(bytes.fromhex(v) for v in sys.argv[2:])
m = struct.pack(">H", len(sel)) + sel + struct.pack(">I", len(vals)) + vals
print(hashlib.sha1(m).hexdigest())
PY
}

# osslverify KEY.pem MSG SIG: PKCS#1 v1.5 SHA-1, openssl alone.
osslverify() {
	openssl dgst -sha1 -binary "$2" >"$2.sha1"
	openssl pkeyutl -verify -pubin -inkey "$1" -in "$2.sha1" -sigfile "$3" \
		-pkeyopt digest:sha1
}

@test "tpm12-quote: akcreate makes an AIK: a TPM_KEY of usage TPM_KEY_IDENTITY (tpm_mkaik's form) and its RSA-2048 key as PEM" {
	local d; d=$(D)
	# TPM_KEY: version 1.1.0.0, usage 0x0012, flags 0, authDataUsage
	# never, RSA, no encryption, PKCS#1 v1.5 SHA-1, 2048 bits.
	[ "$(head -c 35 "$d/ak.blob" | xxd -p | tr -d '\n')" = \
		010100000012000000000000000001000100020000000c000008000000000200000000 ]
	run openssl pkey -pubin -in "$d/ak.pem" -noout -text
	assert_success
	assert_output --partial "Public-Key: (2048 bit)"
	# It prints the SHA-1 of its TPM_PUBKEY: parms (from the blob) and
	# the modulus.
	run python3 - "$d/ak.blob" <<'PY'
import hashlib, struct, sys
b = open(sys.argv[1], "rb").read()
pos = 4 + 2 + 4 + 1
plen = struct.unpack(">I", b[pos + 8:pos + 12])[0]
parms = b[pos:pos + 12 + plen]
pos += 12 + plen
pcrlen = struct.unpack(">I", b[pos:pos + 4])[0]
pos += 4 + pcrlen
klen = struct.unpack(">I", b[pos:pos + 4])[0]
print(hashlib.sha1(parms + b[pos:pos + 4 + klen]).hexdigest())
PY
	assert_output "$(cat "$d/ak.hash")"
}

@test "tpm12-quote: quote (TPM_Quote2) then checkquote: the values pcrread shows; -p 0,7 and sha1:0,7 both" {
	local d; d=$(D)
	run tb quote -k "$d/ak.blob" -p 0,7,10 -n 00112233 -o "$d/q2" -v
	assert_success
	p0=$(pcr 0) p7=$(pcr 7) p10=$(pcr 10)
	assert_output "$(printf 'sha1:0 %s\nsha1:7 %s\nsha1:10 %s' "$p0" "$p7" "$p10")"
	[ "$(head -c 8 "$d/q2")" = TBQUO12 ]
	run tb checkquote -k "$d/ak.pem" -n 00112233 -p 0,7,10 "$d/q2"
	assert_success
	assert_output "$(printf 'sha1:0 %s\nsha1:7 %s\nsha1:10 %s' "$p0" "$p7" "$p10")"
	run tb checkquote -k "$d/ak.blob" -n 00112233 -p sha1:0,7,10 "$d/q2"
	assert_success
	run tb checkquote -k "$d/ak.pem" -n 00112233 -p 0,7 "$d/q2"
	assert_failure 1
	assert_output "tpmbox checkquote: PCR selection check failed: the quote covers sha1:0,7,10, not the sha1:0,7 asked for"
	# no -n: verified, with the warning
	run tb checkquote -k "$d/ak.pem" "$d/q2"
	assert_success
	assert_output --partial "warning: no -n given, the nonce was not checked"
}

@test "tpm12-quote: quote --quote1 (TPM_Quote) then checkquote; its TPM_QUOTE_INFO as the spec lays it out" {
	local d; d=$(D)
	run tb quote --quote1 -k "$d/ak.blob" -p sha1:0,7 -n 00112233 -o "$d/q1" --msg "$d/q1.msg" --sig "$d/q1.sig"
	assert_success
	run tb checkquote -k "$d/ak.pem" -n 00112233 "$d/q1"
	assert_success
	assert_output "$(printf 'sha1:0 %s\nsha1:7 %s' "$(pcr 0)" "$(pcr 7)")"
	# 01 01 00 00 'QUOT' SHA-1(composite) nonce; a nonce that is not 20
	# bytes is hashed with SHA-1.
	nonce=$(printf '\x00\x11\x22\x33' | sha1sum | cut -c1-40)
	want=01010000$(printf QUOT | xxd -p)$(composite 810000 "$(pcr 0)" "$(pcr 7)")$nonce
	[ "$(xxd -p "$d/q1.msg" | tr -d '\n')" = "$want" ]
	run osslverify "$d/ak.pem" "$d/q1.msg" "$d/q1.sig"
	assert_success
	assert_output "Signature Verified Successfully"
}

@test "tpm12-quote: openssl verifies tpmbox's TPM_Quote2 (PKCS#1 v1.5 SHA-1 over the TPM_QUOTE_INFO2 rebuilt here); a 20-byte nonce is used as it is" {
	local d; d=$(D)
	n=$(head -c 20 /dev/urandom | xxd -p | tr -d '\n')
	run tb quote -k "$d/ak.blob" -p 0,7 -n "$n" --msg "$d/m2" --sig "$d/s2" --pcrs "$d/p2"
	assert_success
	# 0036 'QUT2' nonce, TPM_PCR_INFO_SHORT: 3 select bytes, locality 0
	# (0x01), digestAtRelease.
	want=0036$(printf QUT2 | xxd -p)${n}000381000001$(composite 810000 "$(pcr 0)" "$(pcr 7)")
	[ "$(xxd -p "$d/m2" | tr -d '\n')" = "$want" ]
	run osslverify "$d/ak.pem" "$d/m2" "$d/s2"
	assert_success
	assert_output "Signature Verified Successfully"
	# another key does not verify it
	run osslverify "$d/ak2.pem" "$d/m2" "$d/s2"
	assert_failure
	# --pcrs: tpm_getquote -p's lines; the pair checks as tpm_getquote's
	run cat "$d/p2"
	assert_output "$(printf '0=%s\n7=%s' "$(pcr 0 | tr a-f A-F)" "$(pcr 7 | tr a-f A-F)")"
	run tb checkquote -k "$d/ak.pem" -n "$n" --sig "$d/s2" --pcrs "$d/p2"
	assert_success
}

@test "tpm12-quote: checkquote refuses a changed nonce, a changed PCR value, a flipped signature byte, another AIK's key (exit 1, named)" {
	local d; d=$(D)
	tb quote -k "$d/ak.blob" -p 0,7 -n aabbcc -o "$d/qa"
	tb quote --quote1 -k "$d/ak.blob" -p 0,7 -n aabbcc -o "$d/qa1"
	for f in qa qa1; do
		run tb checkquote -k "$d/ak.pem" -n aabbcc "$d/$f"
		assert_success
		run tb checkquote -k "$d/ak.pem" -n aabbcd "$d/$f"
		assert_failure 1
		assert_output --partial "tpmbox checkquote: nonce check failed: the quote answers nonce "
		run tb checkquote -k "$d/ak2.pem" -n aabbcc "$d/$f"
		assert_failure 1
		assert_output "tpmbox checkquote: signature check failed: the RSASSA signature does not verify with this key"
		run tb checkquote -k "$d/ak2.blob" -n aabbcc "$d/$f"
		assert_failure 1
		assert_output --partial "signature check failed"
		# the last PCR value: the file's last byte
		cp "$d/$f" "$d/$f.pcr"
		flip "$d/$f.pcr" $(($(stat -c %s "$d/$f") - 1))
		run tb checkquote -k "$d/ak.pem" -n aabbcc "$d/$f.pcr"
		assert_failure 1
		assert_output --partial "tpmbox checkquote: PCR digest check failed: the PCR values hash to another digest than the quoted "
		# a signature byte: magic 8, version 2, UINT32 + signed bytes,
		# UINT32 + signature
		ilen=$((16#$(xxd -s 10 -l 4 -p "$d/$f")))
		cp "$d/$f" "$d/$f.sig"
		flip "$d/$f.sig" $((10 + 4 + ilen + 4 + 100))
		run tb checkquote -k "$d/ak.pem" -n aabbcc "$d/$f.sig"
		assert_failure 1
		assert_output "tpmbox checkquote: signature check failed: the RSASSA signature does not verify with this key"
	done
	# A file cut short, or with a byte more: the reader says so.
	head -c 100 "$d/qa" >"$d/q.short"
	run tb checkquote -k "$d/ak.pem" "$d/q.short"
	assert_failure 1
	assert_output --partial "quote file: truncated"
	{ cat "$d/qa"; printf x; } >"$d/q.long"
	run tb checkquote -k "$d/ak.pem" "$d/q.long"
	assert_failure 1
	assert_output --partial "1 bytes after the PCR values"
}

@test "tpm12-quote: tpm_mkaik + tpm_getquote (through tcsd) verified by tpmbox checkquote; tpmbox quotes with tpm_mkaik's AIK" {
	local d; d=$(D)
	tcsd_start
	tpm_mkaik -z "$d/aik.blob" "$d/aik.pub"
	tpm_mkuuid "$d/aik.uuid"
	tpm_loadkey "$d/aik.blob" "$d/aik.uuid"
	head -c 20 /dev/urandom >"$d/nonce"
	run tpm_getquote -p "$d/gq.pcrs" "$d/aik.uuid" "$d/nonce" "$d/gq.sig" 0 7 10
	tcsd_stop
	assert_success
	n=$(xxd -p "$d/nonce" | tr -d '\n')
	# tpm_mkaik's public key file and its blob both serve as -k
	for k in aik.pub aik.blob; do
		run tb checkquote -k "$d/$k" -n "$n" --sig "$d/gq.sig" --pcrs "$d/gq.pcrs"
		assert_success
		assert_output "$(printf 'sha1:0 %s\nsha1:7 %s\nsha1:10 %s' "$(pcr 0)" "$(pcr 7)" "$(pcr 10)")"
	done
	run tb checkquote -k "$d/aik.pub" -n "$n" -p 0,7,10 --sig "$d/gq.sig" --pcrs "$d/gq.pcrs"
	assert_success
	# refusals: another nonce, a changed value, another AIK, no -n
	run tb checkquote -k "$d/aik.pub" -n "$(printf '%040x' 1)" --sig "$d/gq.sig" --pcrs "$d/gq.pcrs"
	assert_failure 1
	assert_output --partial "signature check failed"
	# PCR 7's first digit changed
	awk 'NR == 2 { $0 = "7=" (substr($0, 3, 1) == "0" ? "1" : "0") substr($0, 4) } { print }' \
		"$d/gq.pcrs" >"$d/gq.bad"
	run cmp -s "$d/gq.pcrs" "$d/gq.bad"
	assert_failure
	run tb checkquote -k "$d/aik.pub" -n "$n" --sig "$d/gq.sig" --pcrs "$d/gq.bad"
	assert_failure 1
	assert_output --partial "signature check failed"
	run tb checkquote -k "$d/ak.pem" -n "$n" --sig "$d/gq.sig" --pcrs "$d/gq.pcrs"
	assert_failure 1
	assert_output --partial "signature check failed"
	run tb checkquote -k "$d/aik.pub" --sig "$d/gq.sig" --pcrs "$d/gq.pcrs"
	assert_failure 2
	assert_output --partial "give it with -n"
	# tpmbox quotes with tpm_mkaik's AIK; checked with its PUB file
	run tb quote -k "$d/aik.blob" -p 0,7 -n "$n" -o "$d/mq"
	assert_success
	run tb checkquote -k "$d/aik.pub" -n "$n" "$d/mq"
	assert_success
	assert_output "$(printf 'sha1:0 %s\nsha1:7 %s' "$(pcr 0)" "$(pcr 7)")"
}

@test "tpm12-quote: checkquote needs no TPM" {
	local d; d=$(D)
	tb quote -k "$d/ak.blob" -p 0 -n 01 -o "$d/nt"
	TPMBOX_TCTI=swtpm:host=127.0.0.1,port=1 run tb checkquote -k "$d/ak.pem" -n 01 "$d/nt"
	assert_success
	assert_output "sha1:0 $(pcr 0)"
}

@test "tpm12-quote: usage errors: another bank, TPM 2.0 options, a non-AIK key" {
	local d; d=$(D)
	run tb quote -k "$d/ak.blob" -p sha256:0 -o "$d/x"
	assert_failure 2
	assert_output --partial "PCR bank sha256: this TPM is a TPM 1.2, which has only the sha1 bank"
	[ ! -e "$d/x" ]
	tb quote -k "$d/ak.blob" -p 0 -o "$d/u"
	run tb checkquote -k "$d/ak.pem" -p sha256:0 "$d/u"
	assert_failure 2
	assert_output --partial "PCR bank sha256: the quote is from a TPM 1.2, which has only the sha1 bank"
	run tb akcreate -o "$d/x" --tpm-public "$d/y"
	assert_failure 2
	assert_output --partial "this TPM is a TPM 1.2: --tpm-public and --name are TPM 2.0's"
	run tb quote -k "$d/ak.blob" --owner-auth x -o "$d/x"
	assert_failure 2
	assert_output --partial "--owner-auth is TPM 2.0's"
	run tb checkquote -k "$d/ak.pem" --eventlog /dev/null "$d/u"
	assert_failure 2
	assert_output --partial "--eventlog is not for a TPM 1.2 quote"
	# a TPM_KEY that is not an identity key: usage byte changed
	cp "$d/ak.blob" "$d/sign.blob"
	printf '\x10' | dd of="$d/sign.blob" bs=1 seek=5 conv=notrunc 2>/dev/null
	run tb quote -k "$d/sign.blob" -o "$d/x"
	assert_failure 1
	assert_output --partial "not an attestation identity key (usage 0x0010"
	run tb checkquote -k "$d/sign.blob" "$d/u"
	assert_failure 1
	assert_output --partial "not an attestation identity key"
	[ ! -e "$d/x" ]
}

@test "tpm12-quote: wrong owner value on akcreate -> exit 4, nothing written; wrong SRK value on quote -> exit 4" {
	local d; d=$(D)
	run tb akcreate -o "$d/bad.blob" --owner-auth str:wrong
	assert_failure 4
	assert_output --partial "tpmbox akcreate: TPM_MakeIdentity: the owner value is wrong (TPM_AUTH2FAIL)"
	[ ! -e "$d/bad.blob" ]
	run tb quote -k "$d/ak.blob" --srk-auth str:wrong -o "$d/bad.q"
	assert_failure 4
	assert_output --partial "TPM_LoadKey2: TPM_AUTHFAIL"
	[ ! -e "$d/bad.q" ]
}

@test "tpm12-quote: a TPM 2.0 AK on the 1.2 and the 1.2 AIK on a TPM 2.0: usage errors naming the family; 2.0 quotes unchanged" {
	local d; d=$(D)
	# a 2.0 swtpm of its own, in a subshell (this suite's TCTI is the 1.2)
	(
		swtpm_start
		trap swtpm_stop EXIT
		"$TPMBOX" akcreate -o "$d/ak20.blob" --pub "$d/ak20.pem" >/dev/null
		"$TPMBOX" quote -k "$d/ak20.blob" -p sha256:0 -n 01 -o "$d/q20"
		"$TPMBOX" quote -k "$d/ak.blob" -p sha1:0 -o "$d/x20" \
			>"$d/cross20.out" 2>&1 && exit 1
		echo "rc=$?" >>"$d/cross20.out"
		"$TPMBOX" akcreate -o "$d/x20" --srk-auth str:x \
			>>"$d/cross20.out" 2>&1 && exit 1
		echo "rc=$?" >>"$d/cross20.out"
		exit 0
	)
	run cat "$d/cross20.out"
	assert_line --index 0 --partial "ak.blob is a TPM 1.2 AIK (a TPM_KEY), and this TPM is a TPM 2.0"
	assert_line --index 2 "rc=2"
	assert_line --index 3 --partial "--srk-auth is for a TPM 1.2"
	assert_line --index 5 "rc=2"
	[ ! -e "$d/x20" ]
	# the 2.0 quote checks as a 2.0 quote
	run tb checkquote -k "$d/ak20.pem" -n 01 "$d/q20"
	assert_success
	assert_output --partial "sha256:0 "
	run tb quote -k "$d/ak20.blob" -p 0 -o "$d/x12"
	assert_failure 2
	assert_output --partial "ak20.blob is a TPM 2.0 attestation key, and this TPM is a TPM 1.2"
	[ ! -e "$d/x12" ]
}
