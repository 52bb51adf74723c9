#!/usr/bin/env bats
# ppi: the firmware's physical presence interface under sysfs.  Oracle: a
# fake sysfs tree (TPMBOX_SYSFS) written in the kernel's formats
# (drivers/char/tpm/tpm_ppi.c); the real kernel's run is issue 13's VM.

load helpers/common

# The small build leaves ppi out (Makefile TINY_OMIT, docs/tiny.md).
setup() {
	"$TPMBOX" --list | grep -q '^ppi ' ||
		skip "ppi is not in this build (make tiny leaves it out)"
}

# mktree VERSION: a fake ROOT/class/tpm/tpm0/ppi as QEMU + OVMF gives it
# (ORACLES.md), with operation 24 firmware-only, 33 blocked and 96 without
# confirmation so that each status shows.
mktree() {
	R=$BATS_TEST_TMPDIR/sys
	P=$R/class/tpm/tpm0/ppi
	mkdir -p "$P" "$R/class/tpm/tpm1/ppi"
	echo "$1" > "$P/version"
	echo 0 > "$P/request"
	echo "0: No Recent Request" > "$P/response"
	echo "2: Reboot" > "$P/transition_action"
	{
		for op in 0 5 14 21 22 23; do echo "$op 3: User required"; done
		echo "24 1: BIOS only"
		echo "33 2: Blocked for OS by BIOS"
		echo "96 4: User not required"
		echo "97 3: User required"
	} > "$P/tcg_operations"
	: > "$P/vs_operations"
	export TPMBOX_SYSFS=$R
	unset TPMBOX_TCTI
}

@test "ppi: shows version, request, response, action and operations in words" {
	mktree 1.3
	run tb ppi
	assert_success
	assert_line "version: 1.3"
	assert_line "pending request: none"
	assert_line "last response: no recent request"
	assert_line "to run a request: reboot"
	assert_line "    5 clear: allowed, a person must confirm at boot"
	assert_line "   23 set the PCR banks: allowed, a person must confirm at boot"
	assert_line "   24 change the endorsement primary seed: firmware only"
	assert_line "   33 log all digests: blocked for the OS by the firmware"
	assert_line "   96 enable block SID: allowed, no confirmation"
	refute_line --partial " 1 enable:"
}

@test "ppi --json: the same as JSON" {
	mktree 1.3
	echo "23 6" > "$P/request"
	echo "5 4294967280: User Abort" > "$P/response"
	run tb ppi --json
	assert_success
	run python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["version"] == "1.3", d
assert d["request"] == {"operation": 23, "name": "set the PCR banks to sha256,sha384", "argument": 6}, d["request"]
assert d["response"]["operation"] == 5 and d["response"]["result"] == "declined by the person at the console", d["response"]
assert d["transition_action"]["name"] == "reboot"
ops = {o["operation"]: o for o in d["operations"]}
assert sorted(ops) == [0, 5, 14, 21, 22, 23, 24, 33, 96, 97], sorted(ops)
assert ops[5]["supported"] and ops[5]["confirm"]
assert ops[96]["supported"] and not ops[96]["confirm"]
assert not ops[24]["supported"] and not ops[33]["supported"]
print("ok")' <<< "$output"
	assert_output ok
}

@test "ppi: the response in the kernel's other forms (0xFFFFFFF1, TPM error)" {
	mktree 1.3
	echo "5 0xFFFFFFF1: BIOS Failure" > "$P/response"
	run tb ppi
	assert_line "last response: clear (operation 5) failed in the firmware (0xfffffff1)"
	echo "14 0: Success" > "$P/response"
	run tb ppi
	assert_line "last response: enable, activate and clear (operation 14) succeeded (0x0)"
	echo "5 257: Corresponding TPM error" > "$P/response"
	run tb ppi
	assert_line "last response: clear (operation 5) failed with a TPM error (0x101)"
}

@test "ppi clear --yes: writes 5, reads it back, says a person must confirm at boot" {
	mktree 1.3
	run tb ppi clear --yes
	assert_success
	[ "$(cat "$P/request")" = 5 ]
	assert_line "pending request: clear (operation 5)"
	assert_line "at the next boot: the firmware will clear after a person at the console confirms it (a key press); to get there: reboot"
}

@test "ppi clear: refused without --yes when stdin is not a terminal; nothing written" {
	mktree 1.3
	run tb ppi clear < /dev/null
	assert_failure 2
	assert_output --partial "without --yes"
	[ "$(cat "$P/request")" = 0 ]
}

@test "clearall --ppi: the same as ppi clear, with the same consent" {
	mktree 1.3
	run tb clearall --ppi < /dev/null
	assert_failure 2
	[ "$(cat "$P/request")" = 0 ]
	run tb clearall --ppi --yes
	assert_success
	[ "$(cat "$P/request")" = 5 ]
	assert_line "pending request: clear (operation 5)"
	run tb clearall --ppi --dry-run
	assert_failure 2
}

@test "ppi banks sha256: writes '23 2'; four banks '23 29'; a no-confirm op says so" {
	mktree 1.3
	run tb ppi banks sha256
	assert_success
	[ "$(cat "$P/request")" = "23 2" ]
	assert_line "pending request: set the PCR banks to sha256 (operation 23)"
	run tb ppi banks sha1,sha384,sha512,sm3_256
	assert_success
	[ "$(cat "$P/request")" = "23 29" ]
	sed -i 's/^23 3: User required/23 4: User not required/' "$P/tcg_operations"
	run tb ppi banks sha256
	assert_output --partial "without asking anyone"
}

@test "ppi cancel: writes 0" {
	mktree 1.3
	echo 5 > "$P/request"
	run tb ppi cancel
	assert_success
	[ "$(cat "$P/request")" = 0 ]
	assert_line "pending request: none (cancelled)"
}

@test "ppi on PPI 1.2: shows it; banks refused (operation 23 is 1.3's)" {
	mktree 1.2
	run tb ppi
	assert_success
	assert_line "version: 1.2"
	run tb ppi banks sha256
	assert_failure 1
	assert_output --partial "PPI 1.2 has no operation 23"
	[ "$(cat "$P/request")" = 0 ]
}

@test "ppi: refusals: bad bank names, an operation the firmware keeps, unknown subcommand" {
	mktree 1.3
	run tb ppi banks sha257
	assert_failure 2
	assert_output --partial "unknown bank 'sha257'"
	run tb ppi banks sha256,sha256
	assert_failure 2
	run tb ppi banks ""
	assert_failure 2
	run tb ppi banks
	assert_failure 2
	run tb ppi reboot
	assert_failure 2
	assert_output --partial "unknown subcommand 'reboot'"
	run tb ppi clear --json
	assert_failure 2
	sed -i 's/^5 3: User required/5 2: Blocked for OS by BIOS/' "$P/tcg_operations"
	run tb ppi clear --yes
	assert_failure 1
	assert_output --partial "blocked for the OS by the firmware"
	[ "$(cat "$P/request")" = 0 ]
}

@test "ppi: the folder: -T device:/dev/tpmrm1 picks tpm1; missing folder, non-device TPM: exit 3" {
	mktree 1.3
	run tb -T device:/dev/tpmrm1 ppi
	assert_failure 3
	assert_output --partial "class/tpm/tpm1/ppi/version"
	run tb -T device:/dev/tpm7 ppi
	assert_failure 3
	assert_output --partial "class/tpm/tpm7/ppi: No such file or directory"
	run tb -T swtpm:path=/nonexistent ppi
	assert_failure 3
	assert_output --partial "not a kernel TPM"
	rm -r "$R/class/tpm/tpm0/ppi"
	run tb ppi
	assert_failure 3
	assert_output --partial "tpm0/ppi: No such file or directory"
	TPMBOX_SYSFS=$BATS_TEST_TMPDIR/none run tb ppi
	assert_failure 3
}

@test "ppi: text not in the kernel's format is refused (exit 3)" {
	mktree 1.3
	for bad in "5 3 User required" "256 3: User required" "5 5: Odd" "5 3: User required
5 3: User required" "5 3: "; do
		printf '%s\n' "$bad" > "$P/tcg_operations"
		run tb ppi
		assert_failure 3
		assert_output --partial "tcg_operations: not the kernel's format"
	done
	mktree 1.3
	for bad in "5 2" "x" "99999999999" ""; do
		printf '%s\n' "$bad" > "$P/request"
		run tb ppi
		assert_failure 3
	done
	mktree 1.3
	head -c 9000 /dev/zero | tr '\0' 'a' > "$P/response"
	run tb ppi
	assert_failure 3
	assert_output --partial "longer than"
}

@test "ppi: a read-only request file is a clear error (exit 3)" {
	mktree 1.3
	command -v unshare >/dev/null || skip "no unshare"
	[ "$(id -u)" = 0 ] || skip "needs root for a read-only bind mount"
	unshare -m true 2>/dev/null || skip "no mount namespace here"
	run unshare -m sh -c 'mount --bind -o ro "$1" "$1" && exec "$2" ppi clear --yes' sh "$P" "$TPMBOX"
	assert_failure 3
	assert_output --partial "Read-only file system"
	assert_output --partial "read-only"
	[ "$(cat "$P/request")" = 0 ]
}

@test "ppi: an unprivileged user may read but not write a request (exit 3, needs root)" {
	[ "$(id -u)" = 0 ] || skip "needs root to run as nobody"
	command -v setpriv >/dev/null || skip "no setpriv"
	mktree 1.3
	# nobody must reach the tree: bats' own dirs are private.
	d=$BATS_TEST_TMPDIR
	while [ "$d" != / ]; do chmod o+x "$d"; d=$(dirname "$d"); done
	chmod -R o+rX "$R"
	chmod 644 "$P/request"
	nob() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$TPMBOX" "$@"; }
	run nob ppi
	assert_success
	assert_line "version: 1.3"
	run nob ppi cancel
	assert_failure 3
	assert_output --partial "needs root"
	run nob ppi banks sha256
	assert_failure 3
	[ "$(cat "$P/request")" = 0 ]
}
