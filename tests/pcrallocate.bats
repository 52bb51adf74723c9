#!/usr/bin/env bats
# pcrallocate (issue 16): TPM2_PCR_Allocate on swtpm, read back with
# tpm2-tools' getcap after swtpm restarts on the same state (a reboot).

load helpers/common

setup_file() { swtpm_start; }
teardown_file() { swtpm_stop; }

setup() {
	W=$BATS_TEST_TMPDIR
	cd "$W"
}

# the active banks after a restart, by tpm2-tools, on one line
banks_now() { t2_banks | tr '\n' ' ' | sed 's/ $//'; }

@test "pcrallocate: sha256 only, then sha1+sha256, each in effect after a restart (tpm2_getcap pcrs)" {
	before=$(banks_now)
	[ "$before" != "sha256" ]
	run tb pcrallocate sha256
	assert_failure 7
	assert_line "active now: $(echo "$before" | sed 's/ /, /g')"
	assert_line "after the next TPM reset: sha256"
	assert_output --partial "tpmbox pcrallocate: done: the banks change at the next reboot"
	# nothing changes before the reset
	assert_equal "$(banks_now)" "$before"
	swtpm_restart
	assert_equal "$(banks_now)" "sha256"
	# the same again: nothing to change, no PCR_Allocate sent
	run tb --trace pcrallocate sha256
	assert_success
	assert_output --partial "nothing to change"
	refute_output --partial "TPM2_PCR_Allocate"
	run tb pcrallocate sha1,sha256
	assert_failure 7
	assert_line "after the next TPM reset: sha1, sha256"
	swtpm_restart
	assert_equal "$(banks_now)" "sha1 sha256"
	# every PCR of each bank is there (24 on swtpm)
	run tb pcrread sha1:all+sha256:all
	assert_success
	[ "${#lines[@]}" -eq 48 ]
}

@test "pcrallocate: a platform auth value: wrong one exit 4, right one (--platform-auth) works" {
	tpm2_changeauth -c p str:plat >/dev/null
	run tb pcrallocate sha256
	assert_failure 4
	assert_output --partial "the platform auth value is wrong"
	run tb pcrallocate --platform-auth str:plat sha256
	assert_failure 7
	assert_line "after the next TPM reset: sha256"
	# the value keyed a session: it is not in what crossed the bus
	run tb --trace pcrallocate --platform-auth str:plat sha1
	assert_failure 7
	refute_output --partial "$(printf plat | xxd -p)"
	tpm2_changeauth -c p -p str:plat >/dev/null
}

@test "pcrallocate: the platform hierarchy disabled (as firmware leaves it): refused, the hint names the PPI" {
	# (the value the previous test set, should it have stopped midway)
	tpm2_changeauth -c p -p str:plat >/dev/null 2>&1 || true
	tpm2_hierarchycontrol -C p phEnable clear >/dev/null
	run tb pcrallocate sha256
	assert_failure 1
	assert_output --partial "the platform hierarchy is disabled"
	assert_output --partial "PPI operation 23"
	# a restart enables it again
	swtpm_restart
	run tb pcrallocate sha256
	[ "$status" -eq 0 ] || [ "$status" -eq 7 ]
}

@test "pcrallocate: refusals (no bank, unknown bank, a bank the TPM lacks, extra operands)" {
	run tb pcrallocate
	assert_failure 2
	run tb pcrallocate sha3
	assert_failure 2
	assert_output --partial "unknown bank"
	run tb pcrallocate sm3_256
	assert_failure 2
	assert_output --partial "this TPM has no sm3_256 bank"
	assert_output --partial "it implements sha1, sha256"
	run tb pcrallocate sha256 sha1
	assert_failure 2
}
