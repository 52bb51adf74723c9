#!/usr/bin/env bats
# pcrread against tpm2_pcrread on the same swtpm.

load helpers/common

setup_file() {
	swtpm_start
	# Make the PCRs differ from each other, with tpm2-tools (not us).
	for i in 0 1 7 8 14 23; do
		tpm2_pcrextend "$i:sha1=$(printf '%040x' $((i + 1))),sha256=$(printf '%064x' $((i + 2))),sha384=$(printf '%096x' $((i + 3))),sha512=$(printf '%0128x' $((i + 4)))" || return 1
	done
}
teardown_file() { swtpm_stop; }

all_sel() { t2_banks | sed 's/$/:all/' | paste -sd+; }

@test "pcrread: default output equals tpm2_pcrread, every bank, every PCR" {
	expected=$(t2_pcrread_text "$(all_sel)")
	[ "$(echo "$expected" | wc -l)" -eq $(( $(t2_banks | wc -l) * 24 )) ]
	run tb pcrread
	assert_success
	[ "$output" = "$expected" ] || { diff <(echo "$output") <(echo "$expected"); false; }
	# the values are not all alike (the extends above took effect)
	[ "$(echo "$output" | awk '{print $2}' | sort -u | wc -l)" -gt 8 ]
}

@test "pcrread: 'all' and BANK:all equal tpm2_pcrread" {
	run tb pcrread all
	assert_success
	[ "$output" = "$(t2_pcrread_text "$(all_sel)")" ]
	for b in $(t2_banks); do
		run tb pcrread "$b:all"
		assert_success
		[ "$(echo "$output" | wc -l)" -eq 24 ]
		[ "$output" = "$(t2_pcrread_text "$b:all")" ]
	done
}

@test "pcrread: a mixed selection keeps the order given" {
	run tb pcrread "sha256:14,0-1+sha1:7+sha512:23"
	assert_success
	expected="$(t2_pcrread_text sha256:0,1,14)
$(t2_pcrread_text sha1:7)
$(t2_pcrread_text sha512:23)"
	[ "$output" = "$expected" ]
	assert_line --index 0 --regexp '^sha256:0 [0-9a-f]{64}$'
	assert_line --index 3 --regexp '^sha1:7 [0-9a-f]{40}$'
}

@test "pcrread --json: valid JSON, same values as tpm2_pcrread" {
	run tb pcrread --json
	assert_success
	echo "$output" | python3 -m json.tool >/dev/null
	flat=$(echo "$output" | jq -r 'to_entries[] | .key as $b | .value | to_entries[] | "\($b):\(.key) \(.value)"')
	[ "$flat" = "$(t2_pcrread_text "$(all_sel)")" ]
	[ "$(echo "$output" | jq -r '.sha256."7"')" = "$(t2_pcrread_text sha256:7 | awk '{print $2}')" ]
	[ "$(echo "$output" | jq -r 'keys_unsorted | join(",")')" = "$(t2_banks | paste -sd,)" ]
}

@test "pcrread -o: raw digests in selection order, equal to tpm2_pcrread -o" {
	d=$BATS_TEST_TMPDIR
	sel="sha256:0,7,14+sha1:1,8"
	run tb pcrread -o "$d/raw" "$sel"
	assert_success
	[ "$(stat -c %s "$d/raw")" -eq $((3 * 32 + 2 * 20)) ]
	[ "$(xxd -p "$d/raw" | tr -d '\n')" = "$(echo "$output" | awk '{printf "%s", $2}')" ]
	tpm2_pcrread -o "$d/t2raw" "$sel" >/dev/null
	cmp "$d/raw" "$d/t2raw"
}

@test "pcrread -o: refuses to overwrite without -f, replaces with -f" {
	d=$BATS_TEST_TMPDIR
	echo old > "$d/raw"
	run tb pcrread -o "$d/raw" sha1:0
	assert_failure 3
	assert_output --partial "already exists (use -f to replace it)"
	[ "$(cat "$d/raw")" = old ]
	run tb pcrread -f -o "$d/raw" sha1:0
	assert_success
	[ "$(stat -c %s "$d/raw")" -eq 20 ]
}

@test "pcrread: unknown bank -> 2" {
	run tb pcrread foo:1
	assert_failure 2
	assert_output --partial "unknown PCR bank 'foo'"
}

@test "pcrread: a bank the TPM did not allocate -> 2" {
	run tb pcrread sm3_256:0
	assert_failure 2
	assert_output --partial "PCR bank sm3_256 is not allocated on this TPM"
}

@test "pcrread: index 24 and 32 -> 2" {
	run tb pcrread sha256:24
	assert_failure 2
	assert_output --partial "PCR 24 is out of range: this TPM has PCRs 0-23"
	run tb pcrread sha256:0,32
	assert_failure 2
	assert_output --partial "bad PCR index '32'"
}

@test "pcrread: malformed selections -> 2" {
	for s in "" sha256 sha256: sha256:1, sha256:3-1 + "sha256:1+sha256:2" "sha1:1+"; do
		run tb pcrread "$s"
		[ "$status" -eq 2 ] || { echo "'$s' -> $status: $output"; false; }
		assert_output --regexp "^tpmbox pcrread: (bad PCR|empty PCR|no PCR|trailing|bank sha256 appears)"
	done
}

@test "pcrread: two selections, unknown option -> 2" {
	run tb pcrread sha1:0 sha256:0
	assert_failure 2
	assert_output --partial "expected at most one SELECTION"
	run tb pcrread --bogus
	assert_failure 2
}

@test "pcrread: a TPM with only sha256 allocated (swtpm_setup --pcr-banks)" {
	d=$BATS_TEST_TMPDIR/one
	mkdir -p "$d"
	swtpm_setup --tpm2 --tpmstate "$d" --pcr-banks sha256 >/dev/null 2>&1
	swtpm socket --tpm2 --server type=unixio,path="$d/sock" \
		--ctrl type=unixio,path="$d/sock.ctrl" --tpmstate dir="$d" \
		--flags not-need-init,startup-clear --pid file="$d/pid" \
		>/dev/null 2>&1 &
	for _ in $(seq 1 100); do [ -S "$d/sock" ] && break; sleep 0.05; done
	export TPMBOX_TCTI=swtpm:path=$d/sock TPM2TOOLS_TCTI=swtpm:path=$d/sock
	run tb pcrread
	st=$status out=$output
	run tb pcrread sha1:0
	st1=$status out1=$output
	t2=$(t2_pcrread_text sha256:all)
	kill "$(cat "$d/pid")"
	[ "$st" -eq 0 ]
	[ "$(echo "$out" | wc -l)" -eq 24 ]
	[ "$out" = "$t2" ]
	[ "$st1" -eq 2 ]
	[[ "$out1" == *"PCR bank sha1 is not allocated on this TPM"* ]]
}
