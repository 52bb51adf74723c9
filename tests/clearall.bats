#!/usr/bin/env bats
# clearall: TPM2_Clear after listing what goes.  Oracle: tpm2-tools
# (getcap handles, nvdefine, clearcontrol, changeauth) on the same swtpm.

load helpers/common

setup_file() { swtpm_start; }
teardown_file() { swtpm_stop; }

prop() { tpm2_getcap properties-variable | awk -v k="$1:" '$1 == k {print $2}'; }

# Owner state to destroy: the SRK, an owner NV index, owner and lockout
# values; plus a platform NV index that TPM2_Clear keeps.
populate() {
	tpm2_clear -c p >/dev/null 2>&1
	tpm2_clearcontrol -C p c >/dev/null 2>&1
	tb takeown --owner-auth str:o1 --lockout-auth str:l1 --lockout-recovery 1 >/dev/null
	tpm2_nvdefine -C o -P o1 -s 8 0x01000010 >/dev/null
	tpm2_nvundefine -C p 0x01400001 >/dev/null 2>&1 || true
	tpm2_nvdefine -C p -s 8 -a "ppwrite|ppread|platformcreate|authread|authwrite" 0x01400001 >/dev/null
	t2_flush
}

@test "clearall --dry-run: lists owner keys and owner NV indices, changes nothing" {
	populate
	run tb clearall --dry-run
	assert_success
	assert_line "persistent 0x81000001"
	assert_line "nv 0x01000010"
	refute_line "nv 0x01400001"
	assert_line --partial "would clear: 1 persistent object, 1 NV index"
	run tpm2_getcap handles-persistent
	assert_output --partial "0x81000001"
	[ "$(prop ownerAuthSet)" = 1 ]
}

@test "clearall: refuses without --yes when stdin is not a terminal (exit 2)" {
	populate
	run tb clearall --lockout-auth str:l1 </dev/null
	assert_failure 2
	assert_output --partial "refusing to clear the TPM without --yes: standard input is not a terminal"
	run tpm2_getcap handles-persistent
	assert_output --partial "0x81000001"
}

@test "clearall: on a terminal it asks; only 'yes' clears (script(1) gives a pty)" {
	populate
	run bash -c "printf 'no\\n' | script -qec '$TPMBOX clearall --lockout-auth str:l1' /dev/null"
	assert_failure 1
	assert_output --partial "Type 'yes'"
	assert_output --partial "not cleared: not confirmed"
	run tpm2_getcap handles-persistent
	assert_output --partial "0x81000001"
	run bash -c "printf 'yes\\n' | script -qec '$TPMBOX clearall --lockout-auth str:l1' /dev/null"
	assert_success
	assert_output --partial "cleared"
	run tpm2_getcap handles-persistent
	refute_output --partial "0x81000001"
}

@test "clearall --yes: the SRK, owner NV and auth values are gone (tpm2-tools agrees)" {
	populate
	run tb clearall --yes --lockout-auth str:l1
	assert_success
	assert_line "persistent 0x81000001"
	assert_line "cleared"
	run tpm2_getcap handles-persistent
	refute_output --partial "0x81000001"
	run tpm2_getcap handles-nv-index
	refute_output --partial "0x1000010"
	[ "$(prop ownerAuthSet)" = 0 ]
	[ "$(prop lockoutAuthSet)" = 0 ]
	run tpm2_changeauth -c o newowner
	assert_success
	tpm2_changeauth -c o -p newowner >/dev/null
}

@test "clearall: the platform NV index survives and is not listed" {
	populate
	run tpm2_getcap handles-nv-index
	assert_output --partial "0x1400001"
	run tb clearall --yes --lockout-auth str:l1
	assert_success
	refute_output --partial "0x01400001"
	run tpm2_getcap handles-nv-index
	assert_output --partial "0x1400001"
	tpm2_nvundefine -C p 0x01400001 >/dev/null
}

@test "clearall --platform: clears with platform authorization" {
	populate
	run tb clearall --platform --yes
	assert_success
	run tpm2_getcap handles-persistent
	refute_output --partial "0x81000001"
}

@test "clearall: a wrong lockout value is refused (exit 4), nothing cleared" {
	populate
	run tb clearall --yes --lockout-auth str:wrong
	assert_failure 4
	assert_output --partial "TPM2_Clear: TPM_RC_AUTH_FAIL"
	assert_output --partial "--lockout-auth"
	run tpm2_getcap handles-persistent
	assert_output --partial "0x81000001"
	# The lockout recovery time is 1 s here.
	sleep 2
}

@test "clearall: disableClear set -> refused with how to lift it; lifted -> clears" {
	populate
	tpm2_clearcontrol -C l -P l1 s
	run tb clearall --yes --lockout-auth str:l1
	assert_failure 1
	assert_output --partial "TPM2_Clear is disabled on this TPM (disableClear is set)"
	assert_output --partial "TPM2_ClearControl(TPM_RH_PLATFORM, NO)"
	run tpm2_getcap handles-persistent
	assert_output --partial "0x81000001"
	tpm2_clearcontrol -C p c
	run tb clearall --yes --lockout-auth str:l1
	assert_success
	run tpm2_getcap handles-persistent
	refute_output --partial "0x81000001"
}

@test "clearall: usage errors exit 2" {
	run tb clearall --platform --lockout-auth str:x --dry-run
	assert_failure 2
	assert_output --partial "give --lockout-auth or --platform, not both"
	run tb clearall now
	assert_failure 2
	assert_output --partial "unexpected argument 'now'"
	run tb clearall --lockout-auth hex:xyz --dry-run
	assert_failure 2
	# the TPM 1.2 options (tests/tpm12.bats)
	for o in "--owner-auth str:x" --physical-presence --reenable; do
		run tb clearall $o --dry-run
		assert_failure 2
	done
	run tb clearall --owner-auth str:x --yes
	assert_failure 2
	assert_output --partial "are for a TPM 1.2"
}
