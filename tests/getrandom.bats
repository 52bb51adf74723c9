#!/usr/bin/env bats
# getrandom: exact sizes, hex, files, refusals.

load helpers/common

setup_file() { swtpm_start; }
teardown_file() { swtpm_stop; }

@test "getrandom: exactly N bytes for 1, 32, 64, 65, 1000 and 1 MiB" {
	for n in 1 32 64 65 1000 1048576; do
		[ "$(tb getrandom "$n" | wc -c)" -eq "$n" ] || { echo "N=$n"; false; }
	done
}

@test "getrandom: 1 MiB looks random (does not compress, two runs differ)" {
	d=$BATS_TEST_TMPDIR
	tb getrandom 1048576 > "$d/a"
	tb getrandom 1048576 > "$d/b"
	! cmp -s "$d/a" "$d/b" || false
	z=$(gzip -c "$d/a" | wc -c)
	[ "$z" -gt 1048576 ] || { echo "gzip: $z"; false; }
	# every byte value appears
	[ "$(xxd -p -c1 "$d/a" | sort -u | wc -l)" -eq 256 ]
}

@test "getrandom: the TPM is asked in chunks it can answer (trace)" {
	run bash -c "'$TPMBOX' --trace getrandom 200 2>&1 >/dev/null | grep -c '^> TPM2_GetRandom'"
	assert_success
	[ "$output" -ge 4 ]
}

@test "getrandom --hex: 2N lowercase hex digits and a newline" {
	for n in 1 16 100; do
		out=$(tb getrandom --hex "$n")
		[ "${#out}" -eq $((2 * n)) ]
		[[ "$out" =~ ^[0-9a-f]+$ ]]
		[ "$(tb getrandom --hex "$n" | wc -c)" -eq $((2 * n + 1)) ]
	done
}

@test "getrandom -o: mode 0600, exact size, refuses to overwrite without -f" {
	d=$BATS_TEST_TMPDIR
	run tb getrandom -o "$d/r" 48
	assert_success
	assert_output ""
	[ "$(stat -c %a "$d/r")" = 600 ]
	[ "$(stat -c %s "$d/r")" -eq 48 ]
	cp "$d/r" "$d/r.before"
	run tb getrandom -o "$d/r" 48
	assert_failure 3
	assert_output --partial "$d/r already exists (use -f to replace it)"
	cmp "$d/r" "$d/r.before"
	run tb getrandom -f -o "$d/r" 16
	assert_success
	[ "$(stat -c %s "$d/r")" -eq 16 ]
	[ "$(stat -c %a "$d/r")" = 600 ]
	run tb getrandom --hex -o "$d/h" 8
	assert_success
	[ "$(stat -c %s "$d/h")" -eq 17 ]
	# no temp files left behind
	[ "$(ls "$d" | grep -c tmp)" -eq 0 ]
}

@test "getrandom -o: unwritable directory -> 3" {
	run tb getrandom -o /nonexistent-dir/r 8
	assert_failure 3
	assert_output --partial "cannot create a file in /nonexistent-dir"
}

@test "getrandom: N=0, -1, abc, 99999999999, 16 MiB + 1 -> 2" {
	for n in 0 abc 99999999999 16777217 1.5 "" 0x; do
		run tb getrandom "$n"
		[ "$status" -eq 2 ] || { echo "N='$n' -> $status"; false; }
		assert_output --partial "bad byte count '$n' (1 to 16777216)"
	done
	run tb getrandom -- -1
	assert_failure 2
	assert_output --partial "bad byte count '-1'"
	run tb getrandom -1
	assert_failure 2
}

@test "getrandom: missing N, two N, unknown option -> 2" {
	run tb getrandom
	assert_failure 2
	assert_output --partial "expected one byte count N"
	run tb getrandom 1 2
	assert_failure 2
	assert_output --partial "expected one byte count N"
	run tb getrandom --bogus 1
	assert_failure 2
}

@test "getrandom: 0x10 means 16, 010 means 10" {
	[ "$(tb getrandom 0x10 | wc -c)" -eq 16 ]
	[ "$(tb getrandom 010 | wc -c)" -eq 10 ]
}

@test "getrandom: a closed stdout -> 3" {
	run bash -c "'$TPMBOX' getrandom 100000 >&-"
	assert_failure 3
	assert_output --partial "writing to stdout"
}
