#!/usr/bin/env bats
# extend: the new value, read back by tpm2_pcrread, equals
# H(old || H(data)) computed here with openssl.

load helpers/common

setup_file() { swtpm_start; }
teardown_file() { swtpm_stop; }

# pcrv BANK PCR: the value per tpm2_pcrread
pcrv() { t2_pcrread_text "$1:$2" | awk '{print $2}'; }
# hashof BANK < data: hex digest
hashof() { openssl dgst -"$1" -binary | xxd -p | tr -d '\n'; }
# ext BANK OLDHEX DIGESTHEX: the value after extending
ext() { echo "$2$3" | xxd -r -p | hashof "$1"; }

@test "extend -s: every allocated bank gets H(old || H(string))" {
	declare -A old
	for b in $(t2_banks); do old[$b]=$(pcrv "$b" 9); done
	run tb extend 9 -s "hello world"
	assert_success
	assert_output ""
	for b in $(t2_banks); do
		want=$(ext "$b" "${old[$b]}" "$(printf 'hello world' | hashof "$b")")
		[ "$(pcrv "$b" 9)" = "$want" ] || { echo "$b: $(pcrv "$b" 9) != $want"; false; }
	done
	# sha256sum agrees with openssl for the inner hash
	[ "$(printf 'hello world' | hashof sha256)" = "$(printf 'hello world' | sha256sum | cut -d' ' -f1)" ]
}

@test "extend -s twice: the chain continues from the current value" {
	a=$(pcrv sha1 10)
	tb extend 10 -s one
	tb extend 10 -s two
	want=$(ext sha1 "$(ext sha1 "$a" "$(printf one | sha1sum | cut -c1-40)")" "$(printf two | sha1sum | cut -c1-40)")
	[ "$(pcrv sha1 10)" = "$want" ]
}

@test "extend -f FILE and -f - hash the file's bytes" {
	f=$BATS_TEST_TMPDIR/data
	head -c 200000 /dev/urandom > "$f"	# larger than one read
	old=$(pcrv sha384 11); old1=$(pcrv sha1 11)
	run tb extend 11 -f "$f"
	assert_success
	[ "$(pcrv sha384 11)" = "$(ext sha384 "$old" "$(hashof sha384 < "$f")")" ]
	[ "$(pcrv sha1 11)" = "$(ext sha1 "$old1" "$(sha1sum < "$f" | cut -c1-40)")" ]
	old=$(pcrv sha512 11)
	run bash -c "printf 'from stdin\n' | '$TPMBOX' extend 11 -f -"
	assert_success
	[ "$(pcrv sha512 11)" = "$(ext sha512 "$old" "$(printf 'from stdin\n' | hashof sha512)")" ]
}

@test "extend -f of an empty file extends H(empty)" {
	: > "$BATS_TEST_TMPDIR/empty"
	old=$(pcrv sha256 12)
	tb extend 12 -f "$BATS_TEST_TMPDIR/empty"
	[ "$(pcrv sha256 12)" = "$(ext sha256 "$old" "$(sha256sum < /dev/null | cut -c1-64)")" ]
}

@test "extend -d: a 32-byte digest goes only to 32-byte banks" {
	d=$(printf 'x' | sha256sum | cut -c1-64)
	o256=$(pcrv sha256 13); o1=$(pcrv sha1 13); o384=$(pcrv sha384 13)
	run tb extend 13 -d "$d"
	assert_success
	[ "$(pcrv sha256 13)" = "$(ext sha256 "$o256" "$d")" ]
	[ "$(pcrv sha1 13)" = "$o1" ]
	[ "$(pcrv sha384 13)" = "$o384" ]
}

@test "extend -d: a 20-byte digest (0x prefix, upper case) goes to sha1" {
	d=$(printf 'y' | sha1sum | cut -c1-40)
	o1=$(pcrv sha1 14); o256=$(pcrv sha256 14)
	run tb extend 14 -d "0x$(echo "$d" | tr a-f A-F)"
	assert_success
	[ "$(pcrv sha1 14)" = "$(ext sha1 "$o1" "$d")" ]
	[ "$(pcrv sha256 14)" = "$o256" ]
}

@test "extend -b: only the banks named change" {
	declare -A old
	for b in $(t2_banks); do old[$b]=$(pcrv "$b" 15); done
	run tb extend 15 -s banks -b sha1,sha384
	assert_success
	[ "$(pcrv sha1 15)" = "$(ext sha1 "${old[sha1]}" "$(printf banks | hashof sha1)")" ]
	[ "$(pcrv sha384 15)" = "$(ext sha384 "${old[sha384]}" "$(printf banks | hashof sha384)")" ]
	[ "$(pcrv sha256 15)" = "${old[sha256]}" ]
	[ "$(pcrv sha512 15)" = "${old[sha512]}" ]
}

@test "extend -v: prints the new values in pcrread's format" {
	run tb extend 16 -s verbose -v -b sha256,sha1
	assert_success
	expected="sha256:16 $(pcrv sha256 16)
sha1:16 $(pcrv sha1 16)"
	[ "$output" = "$expected" ]
	run tb extend 16 -s again -v
	assert_success
	[ "$(echo "$output" | wc -l)" -eq "$(t2_banks | wc -l)" ]
	[ "$output" = "$(tb pcrread "$(t2_banks | sed 's/$/:16/' | paste -sd+)")" ]
}

@test "extend: PCR 0 and 23 work at locality 0" {
	o=$(pcrv sha256 23)
	tb extend 23 -s x -b sha256
	[ "$(pcrv sha256 23)" = "$(ext sha256 "$o" "$(printf x | sha256sum | cut -c1-64)")" ]
	o=$(pcrv sha256 0)
	tb extend 0 -s x -b sha256
	[ "$(pcrv sha256 0)" = "$(ext sha256 "$o" "$(printf x | sha256sum | cut -c1-64)")" ]
}

@test "extend: the TPM's refusal (PCR 17 needs locality 4) -> 1, decoded" {
	o=$(pcrv sha256 17)
	run tb extend 17 -s x
	assert_failure 1
	assert_output --partial "TPM2_PCR_Extend: TPM_RC_LOCALITY"
	[ "$(pcrv sha256 17)" = "$o" ]
}

@test "extend: PCR index out of range or malformed -> 2" {
	run tb extend 24 -s x
	assert_failure 2
	assert_output --partial "PCR 24 is out of range: this TPM has PCRs 0-23"
	run tb extend 32 -s x
	assert_failure 2
	assert_output --partial "bad PCR index '32'"
	for p in abc "" 1x 0x 08x; do
		run tb extend "$p" -s x
		assert_failure 2
		assert_output --partial "bad PCR index"
	done
	run tb extend -s x -- -1
	assert_failure 2
	assert_output --partial "bad PCR index '-1'"
}

@test "extend: source options -> 2 unless exactly one" {
	run tb extend 9
	assert_failure 2
	assert_output --partial "give exactly one of -s, -f, -d"
	run tb extend 9 -s a -d 00
	assert_failure 2
	assert_output --partial "give exactly one of -s, -f, -d"
	run tb extend -s a
	assert_failure 2
	assert_output --partial "expected one PCR index"
	run tb extend 9 10 -s a
	assert_failure 2
	assert_output --partial "expected one PCR index"
	run tb extend 9 -s a -q
	assert_failure 2
}

@test "extend: bad banks -> 2, nothing extended" {
	o=$(pcrv sha1 9)
	run tb extend 9 -s x -b foo
	assert_failure 2
	assert_output --partial "unknown bank 'foo'"
	run tb extend 9 -s x -b sha1,sm3_256
	assert_failure 2
	assert_output --partial "bank sm3_256 is not allocated on this TPM"
	run tb extend 9 -s x -b ,
	assert_failure 2
	assert_output --partial "empty bank list ','"
	run tb extend 9 -s x -b sha1,sha1
	assert_failure 2
	assert_output --partial "bank sha1 given twice"
	[ "$(pcrv sha1 9)" = "$o" ]
}

@test "extend: bad digests -> 2" {
	run tb extend 9 -d zz
	assert_failure 2
	assert_output --partial "bad digest 'zz'"
	run tb extend 9 -d abc
	assert_failure 2
	run tb extend 9 -d ""
	assert_failure 2
	run tb extend 9 -d 00112233445566778899aabbccddeeff
	assert_failure 2
	assert_output --partial "no allocated bank has 16-byte digests"
	run tb extend 9 -d "$(printf '%064x' 1)" -b sha1
	assert_failure 2
	assert_output --partial "a 32-byte digest does not fit bank sha1 (20 bytes)"
	run tb extend 9 -d "$(printf '%0130x' 1)"
	assert_failure 2
}

@test "extend -f: a missing file -> 6, nothing extended" {
	o=$(pcrv sha256 9)
	run tb extend 9 -f "$BATS_TEST_TMPDIR/nope"
	assert_failure 6
	assert_output --partial "cannot open $BATS_TEST_TMPDIR/nope: No such file or directory"
	[ "$(pcrv sha256 9)" = "$o" ]
	run tb extend 9 -f /
	assert_failure 3
	[ "$(pcrv sha256 9)" = "$o" ]
}
