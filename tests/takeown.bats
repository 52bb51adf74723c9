#!/usr/bin/env bats
# takeown: the standard SRK persisted at 0x81000001, hierarchy auth values
# set over a salted encrypted session, dictionary-attack parameters.
# Oracles: tpm2-tools (readpublic, createprimary, changeauth, getcap) and
# openssl on the same swtpm; swtpm's own command log for the wire check.

load helpers/common

setup_file() { swtpm_start unix --log "file=$BATS_FILE_TMPDIR/wire.log,level=20"; }
teardown_file() { swtpm_stop; }

SRK_ATTRS='fixedtpm|fixedparent|sensitivedataorigin|userwithauth|noda|restricted|decrypt'

# Every byte swtpm saw or sent, as one lowercase hex string.
wire() { grep -v SWTPM "$BATS_FILE_TMPDIR/wire.log" | tr -d ' \n' | tr A-F a-f; }

# Reset between tests that need a fresh owner (platform auth is empty on
# swtpm, so this never depends on the values a test set).
fresh() { tpm2_clear -c p >/dev/null 2>&1; t2_flush; }

# The log's length now, and the command codes swtpm read after line N.
log_lines() { wc -l <"$BATS_FILE_TMPDIR/wire.log"; }
ccs_since() {
	tail -n +"$(($1 + 1))" "$BATS_FILE_TMPDIR/wire.log" |
		awk '/SWTPM_IO_Read/ { getline; print tolower($7 $8 $9 $10) }'
}
# Commands that change the TPM's state as takeown could send them:
# HierarchyChangeAuth, EvictControl, PCR_Allocate,
# DictionaryAttackParameters, DictionaryAttackLockReset, Clear.
CHANGING='00000129|00000120|0000012b|0000013a|00000139|00000126'

prop() { tpm2_getcap properties-variable | awk -v k="$1:" '$1 == k {print $2}'; }

@test "takeown: persists the standard ECC SRK; tpm2-tools shows it, openssl reads --srk-pub" {
	fresh
	run tb takeown --srk-pub "$BATS_TEST_TMPDIR/srk.pem"
	assert_success
	name=$output
	[[ $name =~ ^000b[0-9a-f]{64}$ ]]
	run tpm2_readpublic -c 0x81000001
	assert_success
	assert_line "name: $name"
	assert_line --partial "value: fixedtpm|fixedparent|sensitivedataorigin|userwithauth|noda|restricted|decrypt"
	assert_output --partial "value: NIST p256"
	assert_output --partial "aes"
	# The PEM is the same key tpm2-tools exports.
	tpm2_readpublic -c 0x81000001 -f pem -o "$BATS_TEST_TMPDIR/t2.pem" >/dev/null
	run openssl pkey -pubin -in "$BATS_TEST_TMPDIR/srk.pem" -noout -text
	assert_success
	assert_output --partial "256 bit"
	a=$(openssl pkey -pubin -in "$BATS_TEST_TMPDIR/srk.pem" -outform DER | od -An -tx1 | tr -d ' \n')
	b=$(openssl pkey -pubin -in "$BATS_TEST_TMPDIR/t2.pem" -outform DER | od -An -tx1 | tr -d ' \n')
	[ -n "$a" ]
	[ "$a" = "$b" ]
}

@test "takeown: the SRK is the key tpm2_createprimary makes from the TCG H-2 template (empty unique), not the zero-filled one" {
	fresh
	run tb takeown
	assert_success
	name=$output
	run tpm2_createprimary -C o -g sha256 -G ecc256:null:aes128cfb -a "$SRK_ATTRS" -c "$BATS_TEST_TMPDIR/p.ctx"
	assert_success
	run tpm2_readpublic -c "$BATS_TEST_TMPDIR/p.ctx"
	t2_flush
	assert_line "name: $name"
	# the older template (unique of zeros) makes another key: the check
	# above can tell them apart.  tpm2-tools -u takes TPMU_PUBLIC_ID as
	# C memory: x then y, each a little-endian size and a 128-byte
	# buffer; 32 zero bytes each.
	u=$BATS_TEST_TMPDIR/unique
	{ printf '\x20\x00'; head -c 128 /dev/zero; printf '\x20\x00'; head -c 128 /dev/zero; } >"$u"
	run tpm2_createprimary -C o -g sha256 -G ecc256:null:aes128cfb -a "$SRK_ATTRS" -u "$u" -c "$BATS_TEST_TMPDIR/z.ctx"
	assert_success
	run tpm2_readpublic -c "$BATS_TEST_TMPDIR/z.ctx"
	t2_flush
	refute_line "name: $name"
}

@test "takeown --rsa: the RSA-2048 SRK, same as tpm2_createprimary's; openssl reads it" {
	fresh
	run tb takeown --rsa --srk-pub "$BATS_TEST_TMPDIR/rsa.pem"
	assert_success
	name=$output
	# H-1: the unique field empty
	run tpm2_createprimary -C o -g sha256 -G rsa2048:null:aes128cfb -a "$SRK_ATTRS" -c "$BATS_TEST_TMPDIR/p.ctx"
	assert_success
	run tpm2_readpublic -c "$BATS_TEST_TMPDIR/p.ctx"
	t2_flush
	assert_line "name: $name"
	run openssl pkey -pubin -in "$BATS_TEST_TMPDIR/rsa.pem" -noout -text
	assert_success
	assert_output --partial "2048 bit"
}

@test "takeown: sets owner, endorsement and lockout auth (salted session); tpm2-tools uses them" {
	fresh
	run tb takeown --owner-auth str:own-1 --endorsement-auth hex:e0e1e2 --lockout-auth env:LOCK
	assert_failure 2
	assert_output --partial "LOCK"
	LOCK=lock-1 run tb takeown --owner-auth str:own-1 --endorsement-auth hex:e0e1e2 --lockout-auth env:LOCK
	assert_success
	[ "$(prop ownerAuthSet)" = 1 ]
	[ "$(prop endorsementAuthSet)" = 1 ]
	[ "$(prop lockoutAuthSet)" = 1 ]
	run tpm2_changeauth -c o -p own-1 own-1
	assert_success
	run tpm2_changeauth -c e -p hex:e0e1e2 hex:e0e1e2
	assert_success
	run tpm2_changeauth -c l -p lock-1 lock-1
	assert_success
	# A wrong owner value is refused by the TPM: the check can fail.
	run tpm2_changeauth -c o -p own-2 own-2
	assert_failure
}

@test "takeown --rsa: auth values over an RSA-OAEP salted session" {
	fresh
	run tb takeown --rsa --owner-auth str:rsa-owner
	assert_success
	run tpm2_changeauth -c o -p rsa-owner rsa-owner
	assert_success
}

@test "takeown: twice with the same values succeeds and changes nothing" {
	fresh
	run tb takeown --owner-auth str:same --lockout-auth str:lsame --max-tries 9
	assert_success
	first=$output
	before=$(tpm2_getcap handles-persistent)
	mark=$(log_lines)
	run tb takeown --owner-auth str:same --lockout-auth str:lsame --max-tries 9 -v
	assert_success
	assert_line --index 0 "takeown: srk: already so (ECC P-256 SRK at 0x81000001)"
	assert_line "takeown: owner-auth: already so (set)"
	assert_line "takeown: lockout-auth: already so (set)"
	assert_line --partial "takeown: da-parameters: already so (max tries 9,"
	assert_line "$first"
	# Confirmed with PolicySecret, never set again (swtpm's own log).
	run ccs_since "$mark"
	refute_line 00000129
	assert_line 00000151
	[ "$(tpm2_getcap handles-persistent)" = "$before" ]
	run tpm2_changeauth -c o -p same same
	assert_success
	[ "$(prop TPM2_PT_MAX_AUTH_FAIL)" = 0x9 ]
}

@test "takeown: an auth value already set is not replaced without its current value (exit 4)" {
	fresh
	run tb takeown --owner-auth str:first
	assert_success
	run tb takeown --owner-auth str:second
	assert_failure 4
	assert_output --partial "owner auth value is already set and is not the one given"
	assert_output --partial "--old-owner-auth"
	run tb takeown --owner-auth str:second --old-owner-auth str:wrong
	assert_failure 4
	assert_output --partial "given with --old-owner-auth is wrong"
	run tpm2_changeauth -c o -p first first
	assert_success
	run tb takeown --owner-auth str:second --old-owner-auth str:first
	assert_success
	run tpm2_changeauth -c o -p second second
	assert_success
	run tpm2_changeauth -c o -p first first
	assert_failure
}

@test "takeown: creating the SRK needs the owner value when one is set (exit 4)" {
	fresh
	tpm2_changeauth -c o secret-owner
	run tb takeown
	assert_failure 4
	assert_output --partial "owner auth value is set and creating the SRK needs it"
	run tb takeown --old-owner-auth str:secret-owner
	assert_success
	run tpm2_readpublic -c 0x81000001
	assert_success
}

@test "takeown: dictionary-attack parameters as tpm2_getcap reports them" {
	fresh
	run tb takeown --lockout-auth str:dal --max-tries 7 --recovery-time 9 --lockout-recovery 11
	assert_success
	[ "$(prop TPM2_PT_MAX_AUTH_FAIL)" = 0x7 ]
	[ "$(prop TPM2_PT_LOCKOUT_INTERVAL)" = 0x9 ]
	[ "$(prop TPM2_PT_LOCKOUT_RECOVERY)" = 0xB ]
	# Only one given: the others keep their values.
	run tb takeown --lockout-auth str:dal --max-tries 8
	assert_success
	[ "$(prop TPM2_PT_MAX_AUTH_FAIL)" = 0x8 ]
	[ "$(prop TPM2_PT_LOCKOUT_INTERVAL)" = 0x9 ]
}

@test "takeown: a different object at 0x81000001 is kept without --force" {
	fresh
	tpm2_createprimary -C o -g sha256 -G rsa2048 -c "$BATS_TEST_TMPDIR/o.ctx" >/dev/null
	tpm2_evictcontrol -C o -c "$BATS_TEST_TMPDIR/o.ctx" 0x81000001 >/dev/null
	t2_flush
	other=$(tpm2_readpublic -c 0x81000001 | awk '/^name:/ {print $2}')
	run tb takeown
	assert_failure 1
	assert_output --partial "0x81000001 holds another object, not the standard ECC P-256 SRK"
	assert_output --partial "--force"
	[ "$(tpm2_readpublic -c 0x81000001 | awk '/^name:/ {print $2}')" = "$other" ]
	run tb takeown --force
	assert_success
	new=$output
	[ "$(tpm2_readpublic -c 0x81000001 | awk '/^name:/ {print $2}')" = "$new" ]
	[ "$new" != "$other" ]
	# ECC there and --rsa asked: also a different object.
	run tb takeown --rsa
	assert_failure 1
	assert_output --partial "holds the ECC SRK, not the standard RSA-2048 SRK"
}

@test "takeown --srk-pub: an existing different file is kept without --force" {
	fresh
	tb takeown >/dev/null
	f=$BATS_TEST_TMPDIR/keep.pem
	echo "not a key" >"$f"
	run tb takeown --srk-pub "$f"
	assert_failure
	assert_output --partial "--force"
	[ "$(cat "$f")" = "not a key" ]
	run tb takeown --srk-pub "$f" --force
	assert_success
	run openssl pkey -pubin -in "$f" -noout
	assert_success
}

@test "takeown: new auth values never cross the bus in clear (swtpm log), positive control" {
	fresh
	marker=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
	count() { wire | grep -o "$marker" | wc -l; }
	[ "$(count)" = 0 ]
	run tb takeown --owner-auth "hex:$marker" --endorsement-auth "hex:$marker" --lockout-auth "hex:$marker"
	assert_success
	# Changing it again from the marker (old value in an HMAC only).
	run tb takeown --old-owner-auth "hex:$marker" --owner-auth "hex:$marker"
	assert_success
	[ "$(count)" = 0 ]
	# Positive control: tpm2_changeauth sends it as a password in clear,
	# and the same check sees it.
	run tpm2_changeauth -c o -p "hex:$marker" "hex:$marker"
	assert_success
	[ "$(count)" -ge 1 ]
}

@test "takeown: usage errors exit 2" {
	run tb takeown --max-tries lots
	assert_failure 2
	assert_output --partial "--max-tries: bad number 'lots'"
	run tb takeown extra
	assert_failure 2
	assert_output --partial "unexpected argument 'extra'"
	run tb takeown --owner-auth hex:abc
	assert_failure 2
	assert_output --partial "bad hex"
	run tb takeown --bogus
	assert_failure 2
}

@test "takeown --ek: persists the EK tpm2_createek makes; kept on a re-run, another object only with --force" {
	fresh
	run tb takeown --endorsement-auth str:e1 --ek
	assert_success
	run tpm2_getcap handles-persistent
	assert_line "- 0x81010001"
	tpm2_createek -c "$BATS_TEST_TMPDIR/ek.ctx" -G rsa -P e1 >/dev/null
	t2_name=$(tpm2_readpublic -c "$BATS_TEST_TMPDIR/ek.ctx" | awk '/^name:/ {print $2}')
	tpm2_flushcontext -t
	run tpm2_readpublic -c 0x81010001
	assert_line "name: $t2_name"
	# --ek=ecc: the ECC EK at 0x81010002, the RSA one left alone
	run tb takeown --endorsement-auth str:e1 --ek=ecc -v
	assert_success
	assert_line "takeown: ek: done (ECC P-256 EK at 0x81010002)"
	run tpm2_getcap handles-persistent
	assert_line "- 0x81010001"
	assert_line "- 0x81010002"
	# Another object at the handle: kept without --force.
	tpm2_evictcontrol -C o -c 0x81010001 >/dev/null
	tpm2_createprimary -C o -c "$BATS_TEST_TMPDIR/other.ctx" >/dev/null
	tpm2_evictcontrol -C o -c "$BATS_TEST_TMPDIR/other.ctx" 0x81010001 >/dev/null
	tpm2_flushcontext -t
	run tb takeown --endorsement-auth str:e1 --ek
	assert_failure 1
	assert_output --partial "0x81010001 holds another object, not the RSA-2048 EK at 0x81010001"
	assert_output --partial "--force"
	run tb takeown --endorsement-auth str:e1 --ek --force -v
	assert_success
	assert_line "takeown: ek: done (RSA-2048 EK at 0x81010001, replacing the object there)"
	run tpm2_readpublic -c 0x81010001
	assert_line "name: $t2_name"
	run tb takeown --ek=dsa
	assert_failure 2
}

@test "takeown: the whole provisioning run twice: the second sends no command that changes the TPM (swtpm's log); --dry-run none at all" {
	fresh
	before=$(t2_banks | tr '\n' ' ')
	[ "$before" != "sha256 " ]
	opts=(--owner-auth str:o1 --endorsement-auth str:e1 --lockout-auth str:l1
	      --banks sha256 --ek --max-tries 7 --recovery-time 60 --lockout-recovery 120)
	# A dry run first: every step needed, nothing changed.
	mark=$(log_lines)
	run tb takeown "${opts[@]}" --dry-run
	assert_success
	assert_line "srk: needed (ECC P-256 SRK at 0x81000001)"
	assert_line --partial "pcr-banks: needed (sha256 (active now: "
	assert_line "owner-auth: needed (none set)"
	assert_line "lockout-auth: needed (none set)"
	assert_line "ek: needed (RSA-2048 EK at 0x81010001)"
	assert_line "da-parameters: needed (max tries 7, recovery time 60 s, lockout recovery 120 s)"
	run ccs_since "$mark"
	refute_output --regexp "$CHANGING|00000131"
	run tpm2_getcap handles-persistent
	refute_output --partial 0x81
	# The run itself: exit 7 for the banks, every step done.
	mark=$(log_lines)
	run tb takeown "${opts[@]}" --json
	assert_failure 7
	assert_output --partial "tpmbox takeown: done: the PCR banks change at the next reboot"
	json=$(echo "$output" | grep "^{")
	run jq -r '.steps[] | "\(.step) \(.result)"' <<<"$json"
	assert_output "$(printf '%s\n' 'srk done' 'pcr-banks reboot' 'owner-auth done' \
		'endorsement-auth done' 'lockout-auth done' 'ek done' 'da-parameters done')"
	[ "$(jq -r .reboot <<<"$json")" = true ]
	[ "$(jq -r .srk_name <<<"$json")" = "$(tpm2_readpublic -c 0x81000001 | awk '/^name:/ {print $2}')" ]
	# The positive control: the first run's state-changing commands are
	# in the log (the check below can fail).
	run ccs_since "$mark"
	assert_line 00000129
	assert_line 00000120
	assert_line 0000012b
	assert_line 0000013a
	# The reboot: the banks are now sha256 only.
	swtpm_restart
	assert_equal "$(t2_banks | tr '\n' ' ')" "sha256 "
	[ "$(prop TPM2_PT_MAX_AUTH_FAIL)" = 0x7 ]
	# The second run: every step already so, nothing changed, exit 0.
	mark=$(log_lines)
	run tb takeown "${opts[@]}" --json
	assert_success
	run jq -r '.steps[] | .result' <<<"$output"
	assert_output "$(printf 'already\n%.0s' 1 2 3 4 5 6 7)"
	run ccs_since "$mark"
	refute_output --regexp "$CHANGING|00000131"
	# A dry run now: all already so, the lockout value left untried.
	mark=$(log_lines)
	run tb takeown "${opts[@]}" --dry-run
	assert_success
	assert_line "lockout-auth: not checked (a dry run does not try the lockout value) (set)"
	assert_line "owner-auth: already so (set)"
	run ccs_since "$mark"
	refute_output --regexp "$CHANGING|00000131"
	# PolicySecret twice: the owner and endorsement values, not lockout's
	[ "$(grep -c 00000151 <<<"$output")" -eq 2 ]
	# A dry run with a wrong owner value: refused as the real run would.
	run tb takeown --owner-auth str:wrong --dry-run
	assert_failure 4
	assert_output --partial "owner auth value is already set and is not the one given"
	# Back to both banks for the tests that follow.
	tpm2_clear -c l l1 >/dev/null
	run tb pcrallocate sha1,sha256
	assert_failure 7
	swtpm_restart
}
