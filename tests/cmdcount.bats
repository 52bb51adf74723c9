#!/usr/bin/env bats
# The TPM commands each job sends, counted in swtpm's own log (level 20:
# one "SWTPM_IO_Read" per command), with the remembered SRK pin in force
# as after takeown on a machine.  On a real TPM each command costs
# 1-300 ms, a salted StartAuthSession among the dearest: a new question
# to the TPM shows up here as a failing count.  Each job's sequence is
# the exact list of commands; docs/hardening.md ("Commands per job")
# says why each is there and what the minimum is.

load helpers/common

setup_file() {
	# once, in the default pass: the other builds run the same source
	[ -z "${TPMBOX_SECOND_PASS:-}" ] || return 0
	export CC_LOG="$BATS_FILE_TMPDIR/swtpm.log"
	swtpm_start unix --log "file=$CC_LOG,level=20"
	export TPMBOX_SRK_FILE="$BATS_FILE_TMPDIR/srk.pem"
	tb takeown >/dev/null
	[ -s "$TPMBOX_SRK_FILE" ]
	export D="$BATS_FILE_TMPDIR"
	head -c 32 /dev/urandom > "$D/secret"
	printf 'data4nv!' > "$D/nv8"
	tb nvdefine 0x01500030 -s 8 >/dev/null
	tb akcreate -o "$D/ak.blob" >/dev/null
	# swtpm answers a fresh TPM's first ECC signature TPM_RC_RETRY (its
	# self-test of the algorithm, as a real TPM may), and tpmbox asks
	# again: once here, so that the counts below are the steady ones
	tb quote -k "$D/ak.blob" -p sha256:0 -o "$D/q0" >/dev/null
	tb seal -p sha256:0,7 -o "$D/blob" "$D/secret"
	tb totp enroll -p sha256:0,7 -o "$D/totp" --qr none >/dev/null 2>&1
}

teardown_file() { [ -n "${TPMBOX_SECOND_PASS:-}" ] || swtpm_stop; }
setup() {
	[ -z "${TPMBOX_SECOND_PASS:-}" ] ||
		skip "the commands are counted once, in the default pass"
}

# The commands swtpm received while "$@" ran, by name, one line.
sent() {
	: > "$CC_LOG"
	"$@" >/dev/null || return
	awk 'f { n = split($0, b, " "); cc = b[7] b[8] b[9] b[10];
		 print names[cc] ? names[cc] : "cc" cc; f = 0 }
	     /SWTPM_IO_Read/ { f = 1 }
	     BEGIN {
		names["00000176"] = "StartAuthSession"
		names["0000017E"] = "PCR_Read"
		names["00000153"] = "Create"
		names["00000157"] = "Load"
		names["0000017F"] = "PolicyPCR"
		names["0000015E"] = "Unseal"
		names["00000155"] = "HMAC"
		names["00000165"] = "FlushContext"
		names["00000158"] = "Quote"
		names["0000017B"] = "GetRandom"
		names["0000017A"] = "GetCapability"
		names["00000182"] = "PCR_Extend"
		names["00000169"] = "NV_ReadPublic"
		names["0000014E"] = "NV_Read"
		names["00000137"] = "NV_Write"
		names["00000173"] = "ReadPublic"
		names["00000131"] = "CreatePrimary"
		names["00000145"] = "Shutdown"
		names["00000151"] = "PolicySecret"
		names["00000129"] = "HierarchyChangeAuth"
		names["00000127"] = "ClearControl"
	     }' "$CC_LOG" | paste -sd' '
}

# count JOB EXPECTED...: the job's commands are exactly these.
count() {
	local name=$1 got want
	shift
	want=$1
	shift
	got=$(sent tb "$@")
	echo "# $name: $(echo "$got" | wc -w): $got" >&3
	[ "$got" = "$want" ] || {
		echo "$name sent: $got"
		echo "expected:  $want"
		false
	}
}

@test "cmdcount: seal -p sha256:0,7 sends 3 (salted session, PCR_Read, Create ending it)" {
	rm -f "$D/b2"
	count seal "StartAuthSession PCR_Read Create" \
		seal -p sha256:0,7 -o "$D/b2" "$D/secret"
}

@test "cmdcount: unseal sends 5 (policy session salted to the pinned key, Load, PolicyPCR, Unseal ending it, the object flushed)" {
	count unseal "StartAuthSession Load PolicyPCR Unseal FlushContext" \
		unseal -o "$BATS_TEST_TMPDIR/out" "$D/blob"
	cmp "$BATS_TEST_TMPDIR/out" "$D/secret"
}

@test "cmdcount: totp show sends 5 (policy session salted to the pinned key, Load, PolicyPCR, HMAC ending it, the key flushed)" {
	count totp-show "StartAuthSession Load PolicyPCR HMAC FlushContext" \
		totp show "$D/totp"
}

@test "cmdcount: quote -p sha256:0,7 sends 5 (session, Load, PCR_Read ending it, Quote, the AK flushed)" {
	count quote "StartAuthSession Load PCR_Read Quote FlushContext" \
		quote -k "$D/ak.blob" -p sha256:0,7 -n 0011 -o "$BATS_TEST_TMPDIR/q"
}

@test "cmdcount: pcrread sha256:0,7 sends 2; every bank asks for the allocation once" {
	count pcrread "StartAuthSession PCR_Read" pcrread sha256:0,7
	# sha256:all: the allocation, then 24 PCRs 8 a command
	count pcrread-all "StartAuthSession GetCapability PCR_Read PCR_Read PCR_Read" \
		pcrread sha256:all
}

@test "cmdcount: getrandom 8 sends 2; extend 3 (the allocation: every bank is extended)" {
	count getrandom "StartAuthSession GetRandom" getrandom 8
	count extend "StartAuthSession GetCapability PCR_Extend" \
		extend 16 -s cmdcount
}

@test "cmdcount: nvwrite and nvread send 4 (session, NV_ReadPublic, the buffer size, the access ending the session)" {
	count nvwrite "StartAuthSession NV_ReadPublic GetCapability NV_Write" \
		nvwrite 0x01500030 -i "$D/nv8"
	count nvread "StartAuthSession NV_ReadPublic GetCapability NV_Read" \
		nvread 0x01500030 -s 8
}

@test "cmdcount: info sends 5 (fixed and variable properties, allocation, persistent and NV handles)" {
	count info "GetCapability GetCapability GetCapability GetCapability GetCapability" info
}

@test "cmdcount: akcreate sends 2 (session, Create ending it)" {
	count akcreate "StartAuthSession Create" \
		akcreate -o "$BATS_TEST_TMPDIR/ak2.blob"
}

@test "cmdcount: the count can fail - an unpinned seal asks for the SRK and flushes (the control)" {
	run env -u TPMBOX_SRK_FILE TPMBOX_SRK=none bash -c \
		"$(declare -f sent); CC_LOG='$CC_LOG' sent '$TPMBOX' seal -p sha256:0,7 -o '$BATS_TEST_TMPDIR/b3' '$D/secret'"
	assert_success
	assert_output --partial "ReadPublic"
	[ "$output" != "StartAuthSession PCR_Read Create" ]
}

@test "cmdcount: luks unlock of a systemd-cryptenroll PCR 7 token sends 9 (systemd-cryptsetup 252's own path: 12)" {
	command -v systemd-cryptenroll >/dev/null && command -v cryptsetup >/dev/null ||
		skip "no systemd-cryptenroll or cryptsetup"
	local img="$BATS_TEST_TMPDIR/sd7.img"
	printf pw > "$BATS_TEST_TMPDIR/pw"
	truncate -s 32M "$img"
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 \
		--pbkdf-force-iterations 1000 "$img" "$BATS_TEST_TMPDIR/pw"
	PASSWORD=pw systemd-cryptenroll --tpm2-device=swtpm:path=$SWTPM_DIR/sock \
		--tpm2-pcrs=7 "$img" >/dev/null 2>&1
	tpm2_flushcontext -t >/dev/null 2>&1; tpm2_flushcontext -s >/dev/null 2>&1
	# Measured with systemd-cryptsetup attach (tpm2-device=swtpm:...)
	# on this token: Startup CreatePrimary Load StartAuthSession
	# PCR_Read StartAuthSession PolicyPCR PolicyGetDigest Unseal and
	# three FlushContext.  Here: the process session (pinned SRK) HMACs
	# the PCR read and the legacy primary's CreatePrimary and ends with
	# PolicyPCR; the digest is compared on the host (no PolicyGetDigest).
	count luks-unlock "StartAuthSession PCR_Read CreatePrimary StartAuthSession Load PolicyPCR Unseal FlushContext FlushContext" \
		luks unlock "$img"
	tb luks unlock "$img" | cryptsetup open --test-passphrase --key-file=- "$img"
}

# enroll IMG FORM ARGS: luks enroll on a fresh LUKS2 image
luks_img() {
	rm -f "$D/$1"
	truncate -s 32M "$D/$1"
	printf pw > "$D/lpw"
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 \
		--pbkdf-force-iterations 1000 "$D/$1" "$D/lpw"
}

@test "cmdcount: luks enroll sends 6 (systemd, clevis: the pinned session, the legacy primary, GetRandom and PCR_Read in the session, Create ending it, the primary flushed) or 4 (tpmbox: seal's 3 and GetRandom)" {
	"$TPMBOX" --list | grep -q '^luks ' || skip "luks is not in this build"
	command -v cryptsetup >/dev/null || skip "no cryptsetup"
	luks_img e1.img
	count "luks enroll --as systemd" "StartAuthSession CreatePrimary GetRandom PCR_Read Create FlushContext" \
		luks enroll "$D/e1.img" --as systemd -p sha256:7 --unlock-key-file "$D/lpw"
	luks_img e2.img
	count "luks enroll --as clevis" "StartAuthSession CreatePrimary GetRandom PCR_Read Create FlushContext" \
		luks enroll "$D/e2.img" --as clevis -p sha256:7 --unlock-key-file "$D/lpw"
	luks_img e3.img
	count "luks enroll --as tpmbox" "StartAuthSession GetRandom PCR_Read Create" \
		luks enroll "$D/e3.img" --as tpmbox -p sha256:7 --unlock-key-file "$D/lpw"
}

# Last: lockdown changes the platform value and disableClear, and the
# first command after its HierarchyChangeAuth was answered with a retry
# (measured: luks enroll's Create sent twice when it came after).
@test "cmdcount: shutdown sends 2 (session, Shutdown ending it); lockdown 11 with an extend, then 8 (no command that changes the TPM: the PCR holds what the first run's extend left)" {
	count shutdown "StartAuthSession Shutdown" shutdown
	# the state, the allocation, the PCR read, the extend, ClearControl in the session,
	# the platform probe (a trial session), 32 random bytes, the new
	# platform value ending the session
	count lockdown "StartAuthSession GetCapability GetCapability PCR_Read PCR_Extend ClearControl StartAuthSession PolicySecret FlushContext GetRandom HierarchyChangeAuth" \
		lockdown --extend 16 --disable-clear --platform
	count lockdown-again "StartAuthSession GetCapability GetCapability PCR_Read StartAuthSession PolicySecret FlushContext FlushContext" \
		lockdown --extend 16 --disable-clear --platform
}
