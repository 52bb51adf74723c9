#!/usr/bin/env bats
# The remembered SRK pin (issue 30): takeown writes the SRK's public key to
# /etc/tpmbox/srk.pem (a device, as root) or TPMBOX_SRK_FILE, and every
# later TPM 2.0 applet pins to it when no other pin is given, exactly as
# with --srk-pub.  The interposer's attacks (tests/helpers/interposer.c,
# as in interposer.bats) run again with only the remembered file: each is
# refused; with no file each works, the control that lets these tests
# fail.  This suite keeps its file under its temp dir and never reads or
# writes /etc (checked with strace).

load helpers/common
load helpers/interposer

setup_file() {
	# once, in the default pass: the other builds run the same source
	[ -z "${TPMBOX_SECOND_PASS:-}" ] || return 0
	interposer_start
	export TPMBOX_SRK_FILE="$BATS_FILE_TMPDIR/srk.pem"
	# takeown remembers the SRK: its file, mode 0644 whatever the umask
	SRKNAME=$(umask 077 && "$TPMBOX" takeown --srk-pub "$BATS_FILE_TMPDIR/pub.pem")
	export SRKNAME
}

teardown_file() { [ -n "${TPMBOX_SECOND_PASS:-}" ] || swtpm_stop; }
setup() {
	[ -z "${TPMBOX_SECOND_PASS:-}" ] ||
		skip "the remembered pin is checked once, in the default pass"
}

# nofile CMD...: the same run with no remembered file (today's behaviour;
# a new path each time: a takeown there remembers what it saw)
nofile() { TPMBOX_SRK_FILE="$BATS_TEST_TMPDIR/none-$RANDOM$RANDOM.pem" "$@"; }

@test "remembered: takeown writes the SRK's public key (mode 0644 under umask 077, what --srk-pub wrote); again it is left alone; --no-remember and --dry-run write none" {
	cmp "$TPMBOX_SRK_FILE" "$BATS_FILE_TMPDIR/pub.pem"
	[ "$(stat -c %a "$TPMBOX_SRK_FILE")" = 644 ]
	ino=$(stat -c %i "$TPMBOX_SRK_FILE")
	run tb takeown -v
	assert_success
	assert_line "$SRKNAME"
	assert_output --partial "the SRK is remembered in $TPMBOX_SRK_FILE"
	[ "$(stat -c %i "$TPMBOX_SRK_FILE")" = "$ino" ]
	f=$BATS_TEST_TMPDIR/other.pem
	TPMBOX_SRK_FILE=$f tb takeown --no-remember >/dev/null
	[ ! -e "$f" ]
	TPMBOX_SRK_FILE=$f tb takeown --dry-run >/dev/null
	[ ! -e "$f" ]
	# a name that is not a standard SRK's public key: refused before the
	# TPM is asked anything (exit 2 or 3, naming the remembered SRK)
	echo junk > "$BATS_TEST_TMPDIR/junk.pem"
	run env TPMBOX_SRK_FILE="$BATS_TEST_TMPDIR/junk.pem" "$TPMBOX" getrandom 4
	assert_failure
	[ "$status" -le 3 ]
	assert_output --partial "the remembered SRK"
}

@test "remembered: a swtpm socket never reads or writes /etc/tpmbox without TPMBOX_SRK_FILE (strace)" {
	# LeakSanitizer refuses to run under ptrace (strace)
	[ -z "${TPMBOX_SANITIZED:-}" ] || skip "strace and the sanitizer build do not mix"
	command -v strace >/dev/null || skip "strace is not installed (make check installs it)"
	run env -u TPMBOX_SRK_FILE strace -f -e trace=%file -o "$BATS_TEST_TMPDIR/st" \
		"$TPMBOX" takeown
	assert_success
	run env -u TPMBOX_SRK_FILE strace -f -e trace=%file -o "$BATS_TEST_TMPDIR/st2" \
		"$TPMBOX" getrandom 4
	assert_success
	run grep -h /etc/tpmbox "$BATS_TEST_TMPDIR/st" "$BATS_TEST_TMPDIR/st2"
	[ "$status" = 1 ]
	# the control: with the variable, the file is opened
	strace -f -e trace=%file -o "$BATS_TEST_TMPDIR/st3" "$TPMBOX" getrandom 4 >/dev/null
	grep -q "$TPMBOX_SRK_FILE" "$BATS_TEST_TMPDIR/st3"
}

@test "remembered: substituted SRK - seal, takeown, nvread and nvwrite send nothing secret with only the remembered file; with no file the secret leaks" {
	b=$BATS_TEST_TMPDIR/s.blob
	# the control: no file, trust on first use hands the secret over
	ip srk
	run nofile tb seal -o "$b" "$BATS_FILE_TMPDIR/secret"
	assert_success
	run grep -c "param Create .*$SECRET_HEX" "$BATS_TEST_TMPDIR/ilog"
	assert_output 1
	rm -f "$b"
	# the remembered file alone: the session is salted to the key it
	# holds, without asking for the key, so there is nothing to
	# substitute; the interposer derives no session key and sees no
	# secret, and the blob is the real TPM's
	ip srk
	run tb seal -o "$b" "$BATS_FILE_TMPDIR/secret"
	assert_success
	run ilog
	refute_output --partial "srk substituted"
	refute_output --partial "session key derived"
	run grep -c "$SECRET_HEX" "$BATS_TEST_TMPDIR/ilog"
	assert_output 0
	run real unseal "$b"
	assert_success
	rm -f "$b"
	# takeown: the control leaks the new value, pinned nothing is sent
	ip srk,dropchange
	run nofile tb takeown --owner-auth str:newowner
	assert_success
	run grep -c "param HierarchyChangeAuth $(hexof newowner)" "$BATS_TEST_TMPDIR/ilog"
	assert_output 1
	ip srk,dropchange
	run tb takeown --owner-auth str:newowner
	assert_failure 1
	run ilog
	refute_output --partial "param HierarchyChangeAuth"
	refute_output --partial "session key derived"
	run real info
	assert_output --partial "owner auth set: no"
	# NV: the control guesses the index's value and forges the data
	real nvdefine 0x01500021 -s 16 --auth str:1234 -a "authread|authwrite"
	printf 'realdata12345678' | real nvwrite 0x01500021 -i - --auth str:1234
	ip srk,nvforge
	run nofile tb nvread 0x01500021 --auth str:1234
	assert_success
	assert_output "FFFFFFFFFFFFFFFF"
	# the file: the forged data fails its HMAC, no value is learnt
	ip srk,nvforge
	run tb nvread 0x01500021 --auth str:1234
	assert_failure 1
	assert_output --partial "TPM2_NV_Read: the response HMAC does not verify"
	run ilog
	refute_output --partial "auth 0x01500021"
	# and a write goes to the real TPM encrypted, its value unlearnt
	ip srk
	run bash -c "printf 'notseenbyattack!' | '$TPMBOX' nvwrite 0x01500021 -i - --auth str:1234"
	assert_success
	run ilog
	refute_output --partial "param NV_Write"
	refute_output --partial "auth 0x01500021"
	run real nvread 0x01500021 --auth str:1234
	assert_output "notseenbyattack!"
	real nvrelease 0x01500021
}

@test "remembered: getrandom and extend get the salted session - forged bytes and a dropped PCR_Extend are refused; with no file they pass, as documented" {
	o=$BATS_TEST_TMPDIR/r.bin
	ip random
	run nofile tb getrandom --hex 8
	assert_success
	assert_output 4141414141414141
	ip random
	run tb getrandom -o "$o" 32
	assert_failure 1
	assert_output --partial "TPM2_GetRandom: the response HMAC does not verify"
	[ ! -e "$o" ]
	before=$(real pcrread sha256:9)
	ip dropextend
	run nofile tb extend 9 -s cap
	assert_success
	[ "$(real pcrread sha256:9)" = "$before" ]
	ip dropextend
	run tb extend 9 -s cap
	assert_failure 1
	assert_output --partial "TPM2_PCR_Extend: the response HMAC does not verify"
	[ "$(real pcrread sha256:9)" = "$before" ]
	# pcrread: a salted session too (its command count shows it)
	run tb --trace pcrread sha256:0
	assert_success
	assert_output --partial "TPM2_StartAuthSession"
	run nofile tb --trace pcrread sha256:0
	refute_output --partial "TPM2_StartAuthSession"
}

@test "remembered: an explicit pin wins; TPMBOX_SRK=none runs unpinned on purpose and says so with --trace" {
	ip srk
	# --srk-name of the real SRK: refused as with the file (the same key)
	run tb seal --srk-name "$SRKNAME" -o "$BATS_TEST_TMPDIR/b" "$BATS_FILE_TMPDIR/secret"
	assert_failure 1
	assert_output --partial "(--srk-name)"
	# none: the substitution passes, as with no file
	ip srk
	run env TPMBOX_SRK=none "$TPMBOX" --trace getrandom 4
	assert_success
	assert_output --partial "TPMBOX_SRK=none: the SRK is not pinned (trust on first use)"
	[ "$(echo "$output" | grep -c 'TPMBOX_SRK=none')" = 1 ]
	run env TPMBOX_SRK=none "$TPMBOX" seal -o "$BATS_TEST_TMPDIR/b" "$BATS_FILE_TMPDIR/secret"
	assert_success
}

@test "remembered: a TPM cleared behind tpmbox's back - exit 1 with the hint, no hang; takeown --force re-pins; clearall removes the file it makes stale" {
	cp "$TPMBOX_SRK_FILE" "$BATS_TEST_TMPDIR/keep.pem"
	tpm2_clear -c p
	run timeout 20 "$TPMBOX" getrandom 4
	assert_failure 1
	assert_output --partial "the remembered SRK $TPMBOX_SRK_FILE"
	assert_output --partial "this TPM was cleared or replaced: then 'tpmbox takeown --force' persists and remembers its SRK"
	run timeout 20 "$TPMBOX" takeown
	assert_failure 1
	# takeown --force: the new SRK, remembered; pinned runs work again
	run tb takeown --force
	assert_success
	new=$output
	[ "$new" != "$SRKNAME" ]
	run tb getrandom --hex 4
	assert_success
	run cmp -s "$TPMBOX_SRK_FILE" "$BATS_TEST_TMPDIR/keep.pem"
	[ "$status" = 1 ]
	# clearall (pinned, the SRK matches): the TPM cleared, the file gone
	run tb clearall --yes
	assert_success
	assert_line cleared
	assert_output --partial "removed the remembered SRK $TPMBOX_SRK_FILE"
	[ ! -e "$TPMBOX_SRK_FILE" ]
	# no file: today's behaviour, and takeown remembers the new SRK
	tb getrandom 4 >/dev/null
	run tb takeown
	assert_success
	[ -e "$TPMBOX_SRK_FILE" ]
	run tb --trace getrandom 4
	assert_output --partial "TPM2_StartAuthSession"
}

# TPM_PT_LOCKOUT_COUNTER, as tpm2-tools reads it
da_count() {
	printf '%d\n' "$(tpm2_getcap properties-variable |
		awk '/TPM2_PT_LOCKOUT_COUNTER/ { print $2 }')"
}

@test "remembered: a stale file costs no dictionary-attack failure - another key at 0x81000001 is asked for before the session authorizes an NV index or lockout" {
	# the SRK now (the test before re-took the TPM), persisted, remembered
	name=$(tb takeown)
	real nvdefine 0x01500022 -s 8 --auth str:1234 -a "authread|authwrite"
	real nvdefine 0x01500023 -t counter --auth str:1234 -a "authread|authwrite"
	t2_flush
	tpm2_dictionarylockout -c >/dev/null
	# another key at 0x81000001 (another template's primary), the file
	# still naming the standard SRK
	tpm2_evictcontrol -C o -c 0x81000001 >/dev/null
	tpm2_createprimary -C o -G ecc256:aes128cfb \
		-a "fixedtpm|fixedparent|sensitivedataorigin|userwithauth|restricted|decrypt" \
		-c "$BATS_TEST_TMPDIR/other.ctx" >/dev/null
	tpm2_evictcontrol -C o -c "$BATS_TEST_TMPDIR/other.ctx" 0x81000001 >/dev/null
	t2_flush
	[ "$(da_count)" = 0 ]
	printf 'datadata' > "$BATS_TEST_TMPDIR/d8"
	run tb nvwrite 0x01500022 -i "$BATS_TEST_TMPDIR/d8" --auth str:1234
	assert_failure 1
	assert_output --partial "is not the pinned SRK: pinned $name (the remembered SRK"
	# nvincrement's first use of the session authorizes the index: the
	# key is asked for first (without that, measured: the counter went
	# from 0 to 1 here)
	run tb nvincrement 0x01500023 --auth str:1234
	assert_failure 1
	assert_output --partial "is not the pinned SRK: pinned $name (the remembered SRK"
	[ "$(da_count)" = 0 ]
	run tb clearall --yes
	assert_failure 1
	assert_output --partial "is not the pinned SRK"
	[ "$(da_count)" = 0 ]
	# lockout's value still works (a failed lockout authorization would
	# have locked it out for the recovery time)
	tpm2_dictionarylockout -c >/dev/null
	# the control: a wrong value, unpinned, is counted
	run env TPMBOX_SRK=none "$TPMBOX" nvwrite 0x01500022 -i "$BATS_TEST_TMPDIR/d8" --auth str:4321
	assert_failure 4
	[ "$(da_count)" = 1 ]
	tpm2_dictionarylockout -c >/dev/null
	# back: the standard SRK persisted again, the file matching it
	t2_flush
	tpm2_evictcontrol -C o -c 0x81000001 >/dev/null
	run tb takeown
	assert_success
	assert_output "$name"
	real nvrelease 0x01500022
	real nvrelease 0x01500023
}
