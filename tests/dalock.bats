#!/usr/bin/env bats
# dalock: the dictionary-attack state, TPM2_DictionaryAttackLockReset and
# the parameters.  Oracle: tpm2_getcap properties-variable.

load helpers/common

setup_file() { swtpm_start; }
teardown_file() { swtpm_stop; }
setup() {
	D=$BATS_TEST_TMPDIR
	# each test from a cleared TPM: no lockout value, default parameters
	tpm2_clear -c p >/dev/null 2>&1 || true
}

# getcap VAR: one variable property's value, in decimal
getcap() {
	local v
	v=$(tpm2_getcap properties-variable | awk -v p="$1:" '$1 == p { print $2 }')
	[ -n "$v" ] && echo $((v))
}

@test "dalock: the state as tpm2_getcap reports it, text and JSON" {
	run tb dalock
	assert_success
	assert_line "failures: 0 of $(getcap TPM2_PT_MAX_AUTH_FAIL)"
	assert_line --partial "recovery time: $(getcap TPM2_PT_LOCKOUT_INTERVAL) s"
	assert_line --partial "lockout recovery: $(getcap TPM2_PT_LOCKOUT_RECOVERY) s"
	assert_line "in lockout: no"
	assert_line "lockout auth: not set"
	run tb dalock --json
	assert_success
	[ "$(echo "$output" | jq .max_tries)" = "$(getcap TPM2_PT_MAX_AUTH_FAIL)" ]
	[ "$(echo "$output" | jq .in_lockout)" = false ]
}

@test "dalock: says whether the lockout auth itself is blocked (a probe that counts no failure and changes nothing); tpm2_dictionarylockout agrees" {
	tb dalock --set 3,1000,0 >/dev/null
	tb takeown --lockout-auth str:lock >/dev/null
	run tb dalock
	assert_success
	assert_line "lockout auth blocked: no"
	run tb dalock --json
	[ "$(echo "$output" | jq .lockout_auth_blocked)" = false ]
	[ "$(echo "$output" | jq .lockout_auth_blocked_max_s)" = null ]
	# ten probes: no failure counted, and the lockout value still works
	for _ in $(seq 10); do tb dalock >/dev/null; done
	[ "$(getcap TPM2_PT_LOCKOUT_COUNTER)" = 0 ]
	run tb dalock --reset --lockout-auth str:lock
	assert_success
	assert_line "lockout auth blocked: no"
	# a wrong lockout value blocks it; with lockout recovery 0, until a reset
	run tb dalock --reset --lockout-auth str:wrong
	assert_failure 4
	run tb dalock
	assert_success
	assert_line "lockout auth blocked: yes (after a wrong lockout value; allowed again after the next TPM reset)"
	run tb dalock --json
	[ "$(echo "$output" | jq .lockout_auth_blocked)" = true ]
	[ "$(echo "$output" | jq .lockout_auth_blocked_max_s)" = null ]
	run tpm2_dictionarylockout -c -p lock
	assert_failure
	assert_output --partial "0x921"
	# a TPM reset lifts it: the probe and tpm2-tools say so
	swtpm_restart
	run tb dalock
	assert_line "lockout auth blocked: no"
	tpm2_dictionarylockout -c -p lock
	tpm2_changeauth -c l -p lock
}

@test "dalock: locked out by wrong unseal passwords, exit 5 naming dalock --reset; reset; the right password unseals" {
	tb dalock --set 2,1000,1000 >/dev/null
	head -c 16 /dev/urandom > "$D/s"
	tb seal --auth str:right -o "$D/b" "$D/s"
	run tb unseal --auth str:wrong "$D/b"
	assert_failure 4
	run tb unseal --auth str:wrong "$D/b"
	assert_failure 4
	run tb unseal --auth str:right "$D/b"
	assert_failure 5
	assert_output --partial "tpmbox dalock --reset"
	run tb dalock
	assert_line --partial "in lockout: yes"
	assert_line "failures: 2 of 2"
	run tb dalock --reset
	assert_success
	assert_line "failures: 0 of 2"
	assert_line "in lockout: no"
	[ "$(getcap TPM2_PT_LOCKOUT_COUNTER)" = 0 ]
	tb unseal --auth str:right "$D/b" | cmp - "$D/s"
}

@test "dalock --set: tpm2_getcap reads the new parameters back" {
	run tb dalock --set 7,120,600
	assert_success
	[ "$(getcap TPM2_PT_MAX_AUTH_FAIL)" = 7 ]
	[ "$(getcap TPM2_PT_LOCKOUT_INTERVAL)" = 120 ]
	[ "$(getcap TPM2_PT_LOCKOUT_RECOVERY)" = 600 ]
	assert_line "failures: 0 of 7"
}

@test "dalock with a lockout value: needed, the right one works, a wrong one is exit 4 and then blocked (exit 5)" {
	tb dalock --set 3,1000,1000 >/dev/null
	tb takeown --lockout-auth str:lock >/dev/null
	run tb dalock
	assert_line "lockout auth: set"
	run tb dalock --reset
	assert_failure 4
	assert_output --partial "give it with --lockout-auth"
	run tb dalock --reset --lockout-auth str:lock
	assert_success
	run tb dalock --set 5,100,1000 --lockout-auth str:wrong
	assert_failure 4
	assert_output --partial "blocked for the lockout recovery time"
	[ "$(getcap TPM2_PT_MAX_AUTH_FAIL)" = 3 ]
	run tb dalock --reset --lockout-auth str:lock
	assert_failure 5
	assert_output --partial "blocked after a wrong lockout value"
	run tb dalock
	assert_success
	assert_line "lockout auth blocked: yes (after a wrong lockout value; allowed again in at most 1000 s)"
	run tb dalock --json
	[ "$(echo "$output" | jq .lockout_auth_blocked_max_s)" = 1000 ]
}

@test "dalock: the lockout value never crosses the bus (the trace has no trace of it)" {
	tb takeown --lockout-auth str:Sekr1tLockoutValue >/dev/null
	tb --trace dalock --reset --lockout-auth str:Sekr1tLockoutValue \
		> /dev/null 2> "$D/trace"
	grep -q "TPM2_DictionaryAttackLockReset" "$D/trace"
	local hex
	hex=$(printf Sekr1tLockoutValue | od -An -tx1 | tr -d ' \n')
	! tr -d ' \n' < "$D/trace" | grep -q "$hex" || false
}

@test "dalock refusals: a bad --set, --lockout-auth alone, operands (exit 2)" {
	run tb dalock --set 1,2
	assert_failure 2
	run tb dalock --set 1,2,x
	assert_failure 2
	run tb dalock --set 1,2,3,4
	assert_failure 2
	run tb dalock --lockout-auth str:x
	assert_failure 2
	run tb dalock now
	assert_failure 2
	# --owner-auth is a TPM 1.2's reset value (tests/tpm12.bats)
	run tb dalock --reset --owner-auth str:x
	assert_failure 2
	assert_output --partial "--owner-auth is for a TPM 1.2; a TPM 2.0 resets with the lockout value"
	run "$TPMBOX" -T "swtpm:path=$D/none" dalock
	assert_failure 3
}
