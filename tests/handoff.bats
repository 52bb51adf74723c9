#!/usr/bin/env bats
# The hand-off (issue 29): shutdown and lockdown on swtpm, read back with
# tpm2-tools (tpm2_getcap, tpm2_pcrread, tpm2_startup, tpm2_changeauth),
# Python's hashlib and swtpm's own log of the commands it received; on a
# TPM 1.2 with swtpm_bios (TPM_Startup(ST_STATE)) and TPM_ForceClear.

load helpers/common

setup() {
	[ "${TPMBOX_SECOND_PASS:-}" != tiny ] ||
		skip "the small build has no shutdown or lockdown (tested here and in the sanitizer pass)"
	unset TPMBOX_SRK_FILE TPMBOX_SRK
	LOG=$BATS_TEST_TMPDIR/swtpm.log
}
teardown() { swtpm_stop; }

# A TPM 2.0 swtpm that logs every command it receives.
start2() { swtpm_start unix --log "file=$LOG,level=20"; }

# restart_bare: swtpm again on the same state with no TPM2_Startup sent
# (the test sends the one it wants with tpm2_startup).
restart_bare() {
	swtpm_stop
	rm -f "$SWTPM_DIR/sock" "$SWTPM_DIR/sock.ctrl" "$SWTPM_DIR/pid"
	swtpm socket --tpm2 \
		--server type=unixio,path="$SWTPM_DIR/sock" \
		--ctrl type=unixio,path="$SWTPM_DIR/sock.ctrl" \
		--tpmstate dir="$SWTPM_DIR" --flags not-need-init \
		--pid file="$SWTPM_DIR/pid" >>"$SWTPM_DIR/swtpm.out" 2>&1 &
	for _ in $(seq 1 100); do
		[ -S "$SWTPM_DIR/sock" ] && [ -s "$SWTPM_DIR/pid" ] && return 0
		sleep 0.05
	done
	return 1
}

# The commands swtpm received since the log was emptied, by name.
sent() {
	awk 'f { n = split($0, b, " "); cc = b[7] b[8] b[9] b[10];
		 print names[cc] ? names[cc] : "cc" cc; f = 0 }
	     /SWTPM_IO_Read/ { f = 1 }
	     BEGIN {
		names["00000176"] = "StartAuthSession"
		names["0000017A"] = "GetCapability"
		names["00000145"] = "Shutdown"
		names["00000151"] = "PolicySecret"
		names["00000165"] = "FlushContext"
		names["0000017B"] = "GetRandom"
		names["00000129"] = "HierarchyChangeAuth"
		names["00000121"] = "HierarchyControl"
		names["00000127"] = "ClearControl"
		names["00000126"] = "Clear"
		names["00000182"] = "PCR_Extend"
		names["0000017E"] = "PCR_Read"
		names["00000173"] = "ReadPublic"
		names["00000131"] = "CreatePrimary"
	     }' "$LOG" | paste -sd' '
}
# Commands that change the TPM's state, as sent() names them.
CHANGING="HierarchyChangeAuth HierarchyControl ClearControl Clear PCR_Extend Shutdown"
no_change() {
	local c got
	got=$(sent)
	for c in $CHANGING; do
		[[ " $got " != *" $c "* ]] || { echo "sent $c: $got"; return 1; }
	done
}

# One TPM property from tpm2_getcap properties-variable ("orderly",
# "phEnable", "disableClear", "TPM2_PT_LOCKOUT_COUNTER").
prop() {
	tpm2_getcap properties-variable | awk -v p="$1:" '$1 == p { print $2 }'
}
pcr() {	# BANK:N -> hex, lower case
	tpm2_pcrread "$1" | awk 'NR > 1 { print tolower($NF) }' | sed 's/^0x//'
}
# expect_pcr ALG HEX_OLD DATA...: H(old || H(data)) of each DATA in turn
# ("sep": the 4 zero bytes of the separator).
expect_pcr() {
	python3 - "$@" <<'PY'
import hashlib, sys
alg, v = sys.argv[1], bytes.fromhex(sys.argv[2])
for d in sys.argv[3:]:
    d = b"\0\0\0\0" if d == "sep" else d.encode()
    v = hashlib.new(alg, v + hashlib.new(alg, d).digest()).digest()
print(v.hex())
PY
}

# A key with an auth value and noDA clear: using it is a DA-protected
# authorization, which makes an unorderly next start count a failure.
da_key() {
	tpm2_createprimary -Q -C o -c "$BATS_TEST_TMPDIR/p.ctx"
	tpm2_evictcontrol -Q -C o -c "$BATS_TEST_TMPDIR/p.ctx" 0x81000005
	t2_flush
	tpm2_create -Q -C 0x81000005 -p daval -G ecc \
		-u "$BATS_TEST_TMPDIR/k.pub" -r "$BATS_TEST_TMPDIR/k.priv"
	t2_flush
	echo data > "$BATS_TEST_TMPDIR/m"
}
da_use() {
	tpm2_load -Q -C 0x81000005 -u "$BATS_TEST_TMPDIR/k.pub" \
		-r "$BATS_TEST_TMPDIR/k.priv" -c "$BATS_TEST_TMPDIR/k.ctx"
	tpm2_sign -Q -c "$BATS_TEST_TMPDIR/k.ctx" -p daval \
		-o "$BATS_TEST_TMPDIR/sig" "$BATS_TEST_TMPDIR/m"
	t2_flush
}

ZERO32=0000000000000000000000000000000000000000000000000000000000000000
ZERO20=0000000000000000000000000000000000000000

@test "handoff: shutdown, then a restart: no DA failure counted, orderly; a restart without it after a DA-protected use counts one (the control)" {
	start2
	[ "$(prop TPM2_PT_LOCKOUT_COUNTER)" = 0x0 ]
	# no DA-protected use, no shutdown: not orderly, nothing counted
	swtpm_restart
	[ "$(prop orderly)" = 0 ]
	[ "$(prop TPM2_PT_LOCKOUT_COUNTER)" = 0x0 ]
	# (the key's parent has noDA clear too: making the key uses it)
	da_key
	# the control: a DA-protected use, no shutdown: one failure
	da_use
	swtpm_restart
	[ "$(prop orderly)" = 0 ]
	[ "$(prop TPM2_PT_LOCKOUT_COUNTER)" = 0x1 ]
	# the same with shutdown (STATE, then CLEAR): nothing counted
	da_use
	tb shutdown
	swtpm_restart
	[ "$(prop orderly)" = 1 ]
	[ "$(prop TPM2_PT_LOCKOUT_COUNTER)" = 0x1 ]
	da_use
	tb shutdown --clear
	swtpm_restart
	[ "$(prop orderly)" = 1 ]
	[ "$(prop TPM2_PT_LOCKOUT_COUNTER)" = 0x1 ]
	# a DA-protected use after the shutdown nullifies it
	da_use
	tb shutdown
	da_use
	swtpm_restart
	[ "$(prop orderly)" = 0 ]
	[ "$(prop TPM2_PT_LOCKOUT_COUNTER)" = 0x2 ]
}

@test "handoff: shutdown saves the state TPM2_Startup(STATE) restores (PCR 9); after none, after --clear or after an extend of PCR 9 the TPM refuses it" {
	start2
	tb extend 9 -s handoff
	local v
	v=$(pcr sha256:9)
	[ "$v" = "$(expect_pcr sha256 $ZERO32 handoff)" ]
	tb shutdown
	restart_bare
	tpm2_startup
	[ "$(pcr sha256:9)" = "$v" ]
	# --clear: orderly, but nothing for a resume
	tb shutdown --clear
	restart_bare
	run tpm2_startup
	assert_failure
	tpm2_startup -c
	[ "$(pcr sha256:9)" = "$ZERO32" ]
	[ "$(prop orderly)" = 1 ]
	# no shutdown at all
	restart_bare
	run tpm2_startup
	assert_failure
	tpm2_startup -c
	# an extend of a saved PCR after the shutdown nullifies it
	tb shutdown
	tb extend 9 -s later
	restart_bare
	run tpm2_startup
	assert_failure
	tpm2_startup -c
}

@test "handoff: shutdown sends 2 commands (the family probe, Shutdown); with the pin 2 (the salted session, Shutdown ending it)" {
	start2
	: > "$LOG"
	tb shutdown
	[ "$(sent)" = "GetCapability Shutdown" ]
	export TPMBOX_SRK_FILE=$BATS_TEST_TMPDIR/srk.pem
	tb takeown >/dev/null
	: > "$LOG"
	tb shutdown
	[ "$(sent)" = "StartAuthSession Shutdown" ]
	echo "# shutdown: $(sent)" >&3
}

@test "handoff: shutdown while a PCR allocation waits: TPM_RC_TYPE (exit 1) with a hint, --clear goes" {
	start2
	run tb pcrallocate sha256
	assert_failure 7
	run tb shutdown
	assert_failure 1
	assert_output --partial "TPM_RC_TYPE"
	assert_output --partial "only shutdown --clear is allowed"
	tb shutdown --clear
}

@test "handoff: shutdown's usage errors (exit 2), and no TPM (exit 3)" {
	run tb shutdown now
	assert_failure 2
	run tb shutdown --state
	assert_failure 2
	run tb -T swtpm:path=$BATS_TEST_TMPDIR/none shutdown
	assert_failure 3
}

@test "handoff: lockdown --extend: the separator and a string's digest in every bank (tpm2_pcrread); a second run finds the PCRs so and sends no extend" {
	start2
	tb lockdown --extend 16 --extend 23=hand-off
	[ "$(pcr sha256:16)" = "$(expect_pcr sha256 $ZERO32 sep)" ]
	[ "$(pcr sha1:16)" = "$(expect_pcr sha1 $ZERO20 sep)" ]
	[ "$(pcr sha256:23)" = "$(expect_pcr sha256 $ZERO32 hand-off)" ]
	# what it remembers: pcrread's format, each bank's value after it
	f=$(grep -l '^sha256:16 ' "$TPMBOX_RUN_DIR"/lockdown-*)	# the separator's
	[ "$(echo "$f" | wc -l)" = 1 ]
	[ "$(stat -c %a "$TPMBOX_RUN_DIR")" = 700 ]
	grep -q "^sha256:16 $(expect_pcr sha256 $ZERO32 sep)\$" "$TPMBOX_RUN_DIR"/lockdown-*
	: > "$LOG"
	run tb lockdown --extend 16 --extend 23=hand-off
	assert_success
	assert_line "extend 16: already so (it holds what lockdown's extend of the separator left in sha1,sha256,sha384,sha512 (kept in $TPMBOX_RUN_DIR))"
	assert_line --partial "extend 23: already so (it holds what lockdown's extend of the string's digest left"
	no_change
	[ "$(pcr sha256:16)" = "$(expect_pcr sha256 $ZERO32 sep)" ]
	[ "$(pcr sha256:23)" = "$(expect_pcr sha256 $ZERO32 hand-off)" ]
	# --dry-run says the same
	run tb lockdown --dry-run --extend 16
	assert_success
	assert_output --partial "extend 16: already so"
	# another string into the same PCR is another extend
	run tb lockdown --extend 16=other
	assert_success
	assert_output "extend 16: done (the string's digest in sha1,sha256,sha384,sha512)"
	[ "$(pcr sha256:16)" = "$(expect_pcr sha256 $ZERO32 sep other)" ]
	# something else extended after lockdown: the PCR no longer ends
	# with the separator, so lockdown extends it again
	tpm2_pcrextend 23:sha256=$ZERO32
	run tb lockdown --extend 23=hand-off
	assert_output --partial "extend 23: done"
	# a TPM restart resets the PCRs: lockdown extends again
	swtpm_restart
	run tb lockdown --extend 16
	assert_output --partial "extend 16: done"
	[ "$(pcr sha256:16)" = "$(expect_pcr sha256 $ZERO32 sep)" ]
	run tb lockdown --extend 16
	assert_output --partial "extend 16: already so"
	# a directory others can write is not believed (nor written): every
	# run extends, and says why nothing is kept
	chmod 0777 "$TPMBOX_RUN_DIR"
	run tb lockdown --extend 16
	assert_success
	assert_output "extend 16: done (the separator (4 zero bytes) in sha1,sha256,sha384,sha512 (not kept for a second run: $TPMBOX_RUN_DIR is not a directory of this user's that only it can write))"
	[ "$(pcr sha256:16)" = "$(expect_pcr sha256 $ZERO32 sep sep)" ]
	chmod 0700 "$TPMBOX_RUN_DIR"
	# every bank must hold its kept value: the sha256 one made to match
	# the PCR (sep sep) while sha1's still says sep is no proof
	sed -i "s/^sha256:16 .*/sha256:16 $(expect_pcr sha256 $ZERO32 sep sep)/" "$f"
	grep -q "^sha256:16 $(expect_pcr sha256 $ZERO32 sep sep)\$" "$f"
	grep -q "^sha1:16 $(expect_pcr sha1 $ZERO20 sep)\$" "$f"
	run tb lockdown --extend 16
	assert_output --partial "extend 16: done"
}

@test "handoff: lockdown --disable-clear --platform read back with tpm2-tools; a second run and --dry-run send nothing that changes the TPM" {
	start2
	: > "$LOG"
	run tb lockdown --dry-run --extend 16 --disable-clear --platform
	assert_success
	assert_line "disable-clear: needed (TPM2_ClearControl with the lockout value (empty; not tried))"
	assert_line "platform: needed (a random value set (the value is empty now))"
	[ "$(sent)" = "GetCapability GetCapability GetCapability PCR_Read StartAuthSession PolicySecret FlushContext" ]
	no_change
	[ "$(prop disableClear)" = 0 ]
	[ "$(pcr sha256:16)" = "$ZERO32" ]
	tpm2_changeauth -c p		# the empty platform value works
	: > "$LOG"
	run tb lockdown --disable-clear --platform
	assert_success
	assert_line "disable-clear: done (disableClear set with the lockout value)"
	assert_line "platform: done (a random value, never stored, until the next TPM2_Startup)"
	echo "# lockdown, first run: $(sent)" >&3
	[ "$(prop disableClear)" = 1 ]
	[ "$(prop phEnable)" = 1 ]
	run tpm2_changeauth -c p
	assert_failure			# the empty value no longer works
	run tpm2_clear -c l
	assert_failure			# TPM2_Clear refused (disableClear)
	: > "$LOG"
	run tb lockdown --disable-clear --platform
	assert_success
	assert_line "disable-clear: already so (disableClear is set)"
	assert_line "platform: already so (a platform value is set (the empty value is refused))"
	[ "$(sent)" = "GetCapability GetCapability StartAuthSession PolicySecret FlushContext" ]
	no_change
	: > "$LOG"
	run tb lockdown --dry-run --disable-clear --platform
	assert_success
	no_change
	# a restart (TPM2_Startup(CLEAR)): the platform value is empty again,
	# disableClear stays
	swtpm_restart
	tpm2_changeauth -c p
	[ "$(prop disableClear)" = 1 ]
}

@test "handoff: lockdown --platform=disable: phEnable 0, then already so; back after TPM2_Startup(CLEAR) and (STATE); --json" {
	start2
	run tb lockdown --platform=disable --json
	assert_success
	python3 -c 'import json, sys
j = json.loads(sys.argv[1])
assert j["family"] == "2.0" and j["dry_run"] is False, j
assert j["steps"] == [{"step": "platform", "result": "done", "detail": "the platform hierarchy is disabled until the next TPM2_Startup(CLEAR)"}], j' "$output"
	[ "$(prop phEnable)" = 0 ]
	: > "$LOG"
	run tb lockdown --platform=disable --json
	assert_success
	[ "$(sent)" = "GetCapability GetCapability" ]
	python3 -c 'import json, sys
j = json.loads(sys.argv[1])
assert [s["result"] for s in j["steps"]] == ["already"], j' "$output"
	# --platform (random) on a disabled hierarchy: already closed
	run tb lockdown --platform
	assert_success
	assert_output "platform: already so (the platform hierarchy is disabled (phEnable clear))"
	swtpm_restart
	[ "$(prop phEnable)" = 1 ]
	tb lockdown --platform=disable
	tb shutdown
	restart_bare
	tpm2_startup
	[ "$(prop phEnable)" = 1 ]
}

@test "handoff: lockdown --disable-clear with a lockout value: missing is exit 4 with nothing sent that changes the TPM; given, it is set; a wrong one is exit 4, then blocked (exit 5); none set: a value given is not tried" {
	start2
	tpm2_changeauth -c l lockval
	: > "$LOG"
	run tb lockdown --disable-clear
	assert_failure 4
	assert_output --partial "the lockout auth value is set; give it with --lockout-auth"
	no_change
	[ "$(prop disableClear)" = 0 ]
	printf lockval > "$BATS_TEST_TMPDIR/lock"
	run tb lockdown --disable-clear --lockout-auth "file:$BATS_TEST_TMPDIR/lock"
	assert_success
	[ "$(prop disableClear)" = 1 ]
	# a wrong value, on a new TPM
	swtpm_stop
	start2
	tpm2_changeauth -c l lockval
	run tb lockdown --disable-clear --lockout-auth str:wrong
	assert_failure 4
	assert_output --partial "lockout recovery time"
	run tb lockdown --disable-clear --lockout-auth str:lockval
	assert_failure 5
	[ "$(prop disableClear)" = 0 ]
	# none set: a value given is not tried (the empty one is used)
	swtpm_stop
	start2
	tb lockdown --disable-clear --lockout-auth str:unused
	[ "$(prop disableClear)" = 1 ]
	[ "$(prop TPM2_PT_LOCKOUT_COUNTER)" = 0x0 ]
}

@test "handoff: lockdown's refusals: the platform value set and unknown (exit 4), a DRTM PCR (exit 1, the TPM's TPM_RC_LOCALITY)" {
	start2
	tb lockdown --platform
	run tb lockdown --platform=disable
	assert_failure 4
	assert_output --partial "the platform hierarchy cannot be disabled: its auth value is set and not known here"
	[ "$(prop phEnable)" = 1 ]
	run tb lockdown --extend 17
	assert_failure 1
	assert_output --partial "TPM_RC_LOCALITY"
	assert_output --partial "a higher locality"
	[ "$(pcr sha256:17)" = ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff ]
}

@test "handoff: lockdown's usage errors (exit 2), before anything is sent" {
	start2
	: > "$LOG"
	local args
	for args in "" "--dry-run" "--json" "--platform=maybe" "--platform=" \
		"--extend 16 --lockout-auth str:x" "--extend x" "--extend 32" \
		"--extend =s" "--extend 1x=s" "--extend 16 operand" "--bogus"; do
		run tb lockdown $args
		[ "$status" -eq 2 ] || { echo "lockdown $args: $status $output"; false; }
	done
	[ -z "$(sent)" ]
	run tb lockdown --extend 16 --lockout-auth str:x
	assert_output --partial "--lockout-auth is for --disable-clear"
	run tb lockdown
	assert_output --partial "nothing to do"
	# 25 extends: one too many
	run tb lockdown $(printf -- '--extend 16 %.0s' $(seq 1 25))
	assert_failure 2
	assert_output --partial "at most 24"
	# out of this TPM's range (24 PCRs): said after the allocation
	run tb lockdown --extend 24
	assert_failure 2
	assert_output --partial "this TPM has PCRs 0-23"
	no_change
}

@test "handoff: TPM 1.2: shutdown is TPM_SaveState (TPM_Startup(ST_STATE) keeps PCR 10); lockdown --extend (once) and --disable-clear (TPM_ForceClear refused until the next start); the rest refused" {
	swtpm12_start
	tb extend 10 -s handoff
	local v
	v=$(tb pcrread sha1:10)
	tb shutdown
	swtpm_stop
	rm -f "$SWTPM_DIR/sock" "$SWTPM_DIR/sock.ctrl" "$SWTPM_DIR/pid"
	swtpm socket --server type=unixio,path="$SWTPM_DIR/sock" \
		--ctrl type=unixio,path="$SWTPM_DIR/sock.ctrl" \
		--tpmstate dir="$SWTPM_DIR" --flags not-need-init \
		--pid file="$SWTPM_DIR/pid" >>"$SWTPM_DIR/swtpm.out" 2>&1 &
	for _ in $(seq 1 100); do [ -S "$SWTPM_DIR/sock" ] && break; sleep 0.05; done
	swtpm_bios --unix "$SWTPM_DIR/sock" -s -o
	[ "$(tb pcrread sha1:10)" = "$v" ]
	# the family's refusals
	run tb shutdown --clear
	assert_failure 2
	assert_output --partial "TPM 1.2: its one shutdown is TPM_SaveState"
	run tb lockdown --platform
	assert_failure 2
	assert_output --partial "no platform hierarchy"
	run tb lockdown --platform=disable
	assert_failure 2
	run tb lockdown --disable-clear --lockout-auth str:x
	assert_failure 2
	assert_output --partial "no lockout value"
	# the parts that exist
	tb takeown >/dev/null
	run tb lockdown --dry-run --disable-clear --extend 16 --json
	assert_success
	assert_output '{"family":"1.2","dry_run":true,"steps":[{"step":"extend","pcr":16,"result":"needed","detail":"the separator (4 zero bytes) in sha1"},{"step":"disable-clear","result":"needed","detail":"TPM_DisableForceClear"}]}'
	[ "$(tb pcrread sha1:16)" = "sha1:16 $ZERO20" ]
	run tb lockdown --disable-clear --extend 16
	assert_success
	assert_line "disable-clear: done (TPM_ForceClear disabled until the next TPM_Startup(ST_CLEAR))"
	[ "$(tb pcrread sha1:16)" = "sha1:16 $(expect_pcr sha1 $ZERO20 sep)" ]
	run tb lockdown --disable-clear --extend 16
	assert_success
	assert_output "extend 16: already so (it holds what lockdown's extend of the separator left in sha1 (kept in $TPMBOX_RUN_DIR))
disable-clear: already so (disableForceClear is set)"
	[ "$(tb pcrread sha1:16)" = "sha1:16 $(expect_pcr sha1 $ZERO20 sep)" ]
	run tb clearall --yes --physical-presence
	assert_failure 1
	assert_output --partial "TPM_CLEAR_DISABLED"
	# the control: after a TPM_Startup(ST_CLEAR) it clears
	swtpm_stop
	rm -f "$SWTPM_DIR/sock" "$SWTPM_DIR/sock.ctrl" "$SWTPM_DIR/pid"
	swtpm socket --server type=unixio,path="$SWTPM_DIR/sock" \
		--ctrl type=unixio,path="$SWTPM_DIR/sock.ctrl" \
		--tpmstate dir="$SWTPM_DIR" --flags not-need-init,startup-clear \
		--pid file="$SWTPM_DIR/pid" >>"$SWTPM_DIR/swtpm.out" 2>&1 &
	swtpm_wait "swtpm 1.2"
	run tb lockdown --dry-run --disable-clear
	assert_output "disable-clear: needed (TPM_DisableForceClear)"
	run tb clearall --yes --physical-presence
	assert_success
}
