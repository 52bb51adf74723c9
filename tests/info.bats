#!/usr/bin/env bats
# info: compared with tpm2_getcap on the same swtpm.

load helpers/common

setup_file() { swtpm_start; }
teardown_file() { swtpm_stop; }

# prop LIST NAME: the raw value tpm2_getcap shows for a property
# (in decimal; "NAME: 0x3E8" on one line, or "NAME:" then "  raw: 0x...")
prop() {
	local v
	v=$(tpm2_getcap "$1" | awk -v p="$2:" '$1 == p && NF > 1 {print $2; exit} $1 == p {f = 1; next} f && $1 == "raw:" {print $2; exit}')
	[ -n "$v" ] && echo $((v))
}

@test "info: text fields (family 2.0, manufacturer IBM, banks from tpm2_getcap)" {
	run tb info
	assert_success
	assert_line "family: 2.0"
	assert_line "manufacturer: IBM"
	assert_line "banks: $(t2_banks | paste -sd' ')"
	assert_line "pcr count: 24"
	assert_line "persistent handles: none"
	assert_line "nv indices: 0"
	assert_line --regexp '^vendor: SW +TPM$'
	assert_line "owner auth set: no"
}

@test "info --json: valid JSON whose fields match tpm2_getcap" {
	run tb info --json
	assert_success
	j=$output
	echo "$j" | python3 -m json.tool >/dev/null
	[ "$(echo "$j" | jq -r .family)" = "2.0" ]
	[ "$(echo "$j" | jq -r .manufacturer)" = "IBM" ]
	[ "$(echo "$j" | jq -r '.banks | join(" ")')" = "$(t2_banks | paste -sd' ')" ]
	[ "$(echo "$j" | jq -r .pcr_count)" -eq 24 ]
	fw1=$(prop properties-fixed TPM2_PT_FIRMWARE_VERSION_1)
	fw2=$(prop properties-fixed TPM2_PT_FIRMWARE_VERSION_2)
	[ "$(echo "$j" | jq -r .firmware)" = "$((fw1 >> 16)).$((fw1 & 0xffff)).$((fw2 >> 16)).$((fw2 & 0xffff))" ]
	[ "$(echo "$j" | jq -r .dictionary_attack.max_tries)" -eq "$(prop properties-variable TPM2_PT_MAX_AUTH_FAIL)" ]
	[ "$(echo "$j" | jq -r .dictionary_attack.recovery_time)" -eq "$(prop properties-variable TPM2_PT_LOCKOUT_INTERVAL)" ]
	[ "$(echo "$j" | jq -r .dictionary_attack.lockout_recovery)" -eq "$(prop properties-variable TPM2_PT_LOCKOUT_RECOVERY)" ]
	[ "$(echo "$j" | jq -r .dictionary_attack.failures)" -eq 0 ]
	[ "$(echo "$j" | jq -r .dictionary_attack.in_lockout)" = false ]
	[ "$(echo "$j" | jq -r .persistent_handles | jq length)" -eq 0 ]
	[ "$(echo "$j" | jq -r .nv_indices)" -eq 0 ]
	for k in vendor spec_revision spec_year owner_auth_set endorsement_auth_set lockout_auth_set disable_clear; do
		echo "$j" | jq -e "has(\"$k\")" >/dev/null
	done
}

@test "info: persistent handles, NV count and auth flags follow the TPM" {
	d=$BATS_TEST_TMPDIR
	tpm2_createprimary -C o -c "$d/p.ctx" >/dev/null
	tpm2_evictcontrol -C o -c "$d/p.ctx" 0x81000123 >/dev/null
	t2_flush
	tpm2_nvdefine 0x1500016 -C o -s 8 -a "ownerread|ownerwrite" >/dev/null
	tpm2_nvdefine 0x1500017 -C o -s 8 -a "ownerread|ownerwrite" >/dev/null
	tpm2_changeauth -c e endpw
	run tb info --json
	assert_success
	[ "$(echo "$output" | jq -r '.persistent_handles | join(",")')" = "$(tpm2_getcap handles-persistent | sed 's/^- //' | paste -sd,)" ]
	[ "$(echo "$output" | jq -r '.persistent_handles[0]')" = 0x81000123 ]
	[ "$(echo "$output" | jq -r .nv_indices)" -eq 2 ]
	[ "$(echo "$output" | jq -r .endorsement_auth_set)" = true ]
	[ "$(echo "$output" | jq -r .owner_auth_set)" = false ]
	run tb info
	assert_line "persistent handles: 0x81000123"
	assert_line "nv indices: 2"
	assert_line "endorsement auth set: yes"
	tpm2_changeauth -c e -p endpw
	tpm2_evictcontrol -C o -c 0x81000123 >/dev/null
	tpm2_nvundefine 0x1500016 -C o; tpm2_nvundefine 0x1500017 -C o
}

@test "info: the dictionary-attack counter follows failed authorizations" {
	run tb info --json
	assert_success
	[ "$(echo "$output" | jq -r .dictionary_attack.failures)" -eq 0 ]
	# a wrong password for a DA-protected key counts one failure
	tpm2_createprimary -C o -G ecc -c "$BATS_TEST_TMPDIR/k.ctx" -p objpw \
		-a "fixedtpm|fixedparent|sensitivedataorigin|userwithauth|sign" >/dev/null
	run tpm2_sign -c "$BATS_TEST_TMPDIR/k.ctx" -p wrong -g sha256 -o /dev/null <<<"x"
	[ "$status" -ne 0 ]
	t2_flush
	run tb info --json
	assert_success
	[ "$(echo "$output" | jq -r .dictionary_attack.failures)" -eq "$(prop properties-variable TPM2_PT_LOCKOUT_COUNTER)" ]
	[ "$(echo "$output" | jq -r .dictionary_attack.failures)" -ge 1 ]
	tpm2_dictionarylockout -c >/dev/null
}

@test "info: unexpected argument or option -> 2" {
	run tb info extra
	assert_failure 2
	assert_output --partial "unexpected argument 'extra'"
	run tb info --bogus
	assert_failure 2
}
