#!/usr/bin/env bats
# An active attacker on the TPM bus (issue 9): tests/helpers/interposer.c
# between tpmbox and swtpm substitutes its own SRK, derives the session
# keys, learns secrets, forges and drops answers.  Every attack is shown
# to work against a run that gives it a chance (no pin: trust on first
# use, or no session at all) - the control that lets these tests fail -
# and refused with the documented exit code, nothing written, when the
# SRK is pinned or the answer is HMACed in a session the interposer has
# no key for.  Oracles: swtpm's state read back directly (not through the
# interposer), tpm2-tools, openssl.

load helpers/common
load helpers/interposer

setup_file() {
	interposer_start
	export SRKPUB="$BATS_FILE_TMPDIR/srk.pem"
	SRKNAME=$("$TPMBOX" takeown --srk-pub "$SRKPUB")
	export SRKNAME
}

teardown_file() {
	swtpm_stop
}

@test "interposer: substituted SRK - seal learns nothing with a pin (by name: exit 1, nothing sent, no blob; by key: salted to it, nothing to substitute); without one the secret leaks" {
	b=$BATS_TEST_TMPDIR/s.blob
	# the control: trust on first use hands the secret over
	ip srk
	run tb seal -o "$b" "$BATS_FILE_TMPDIR/secret"
	assert_success
	run grep -c "param Create .*$SECRET_HEX" "$BATS_TEST_TMPDIR/ilog"
	assert_output 1
	rm -f "$b"
	# pinned by name: the key is asked for, and the substituted one
	# refused before any session exists
	ip srk
	run tb seal --srk-name "$SRKNAME" -o "$b" "$BATS_FILE_TMPDIR/secret"
	assert_failure 1
	assert_output --partial "the key at 0x81000001 is not the pinned SRK: pinned $SRKNAME"
	assert_output --partial "the TPM answered 000b"
	[ ! -e "$b" ]
	run ilog
	assert_output --partial "srk substituted"
	refute_output --partial "rx StartAuthSession"
	refute_output --partial "rx Create"
	# pinned by its key (the file, as TPMBOX_SRK): the session is salted
	# to that key without asking for it, so there is no answer to
	# substitute; the interposer holds no session key, and the secret
	# goes sealed on the real TPM
	for pin in "--srk-pub $SRKPUB" env; do
		ip srk
		if [ "$pin" = env ]; then
			run env TPMBOX_SRK="$SRKPUB" "$TPMBOX" seal -o "$b" \
				"$BATS_FILE_TMPDIR/secret"
		else
			# shellcheck disable=SC2086
			run tb seal $pin -o "$b" "$BATS_FILE_TMPDIR/secret"
		fi
		assert_success
		run ilog
		refute_output --partial "srk substituted"
		refute_output --partial "session key derived"
		refute_output --partial "rx ReadPublic"
		assert_output --partial "rx Create"
		run grep -c "$SECRET_HEX" "$BATS_TEST_TMPDIR/ilog"
		assert_output 0
		run real unseal "$b"
		assert_success
		rm -f "$b"
	done
	# TPMBOX_SRK as a name works too; the option wins over the variable
	ip srk
	run env TPMBOX_SRK="$SRKNAME" "$TPMBOX" seal -o "$b" "$BATS_FILE_TMPDIR/secret"
	assert_failure 1
	ip pass
	run env TPMBOX_SRK=000b$(printf '%064d' 0) "$TPMBOX" seal --srk-pub "$SRKPUB" -o "$b" "$BATS_FILE_TMPDIR/secret"
	assert_success
	run real unseal "$b"
	assert_success
}

@test "interposer: substituted SRK - takeown sends no auth value with a pin; without one it learns it and fakes the change" {
	# the control: the new value leaks and the dropped change passes
	ip srk,dropchange
	run tb takeown --owner-auth str:newowner
	assert_success
	run grep -c "param HierarchyChangeAuth $(hexof newowner)" "$BATS_TEST_TMPDIR/ilog"
	assert_output 1
	run real info
	assert_output --partial "owner auth set: no"
	# pinned (--srk-name, TPMBOX_SRK): refused before the value is sent
	ip srk,dropchange
	run tb takeown --srk-name "$SRKNAME" --owner-auth str:newowner
	assert_failure 1
	assert_output --partial "is not the pinned SRK"
	run ilog
	refute_output --partial "HierarchyChangeAuth"
	ip srk
	run env TPMBOX_SRK="$SRKPUB" "$TPMBOX" takeown --lockout-auth str:newlock
	assert_failure 1
	run ilog
	refute_output --partial "HierarchyChangeAuth"
	# the real SRK, a dropped change: the answer's HMAC gives it away
	ip dropchange
	run tb takeown --srk-name "$SRKNAME" --owner-auth str:newowner
	assert_failure 1
	assert_output --partial "TPM2_HierarchyChangeAuth: the response HMAC does not verify"
	run real info
	assert_output --partial "owner auth set: no"
}

@test "interposer: substituted SRK - nvread/nvwrite with a pin: no HMAC of the auth value sent; without one it is guessed and data forged" {
	real nvdefine 0x01500020 -s 16 --auth str:1234 -a "authread|authwrite"
	printf 'realdata12345678' | real nvwrite 0x01500020 -i - --auth str:1234
	# the control: 4 digits from one HMAC, forged data accepted
	ip srk,nvforge
	run tb nvread 0x01500020 --auth str:1234
	assert_success
	assert_output "FFFFFFFFFFFFFFFF"
	run ilog
	assert_output --partial "auth 0x01500020 $(hexof 1234)"
	ip srk
	run bash -c "printf 'attackerlearnsit' | '$TPMBOX' nvwrite 0x01500020 -i - --auth str:1234"
	assert_success
	run ilog
	assert_output --partial "param NV_Write $(hexof attackerlearnsit)"
	printf 'realdata12345678' | real nvwrite 0x01500020 -i - --auth str:1234
	# pinned by key: salted to the real SRK without asking for it; the
	# forged data fails its HMAC, and no auth value is learnt
	ip srk,nvforge
	run tb nvread --srk-pub "$SRKPUB" 0x01500020 --auth str:1234
	assert_failure 1
	assert_output --partial "TPM2_NV_Read: the response HMAC does not verify"
	run ilog
	refute_output --partial "srk substituted"
	refute_output --partial "auth 0x01500020"
	# pinned by name: refused before NV_Read/NV_Write
	ip srk,nvforge
	run tb nvread --srk-name "$SRKNAME" 0x01500020 --auth str:1234
	assert_failure 1
	assert_output --partial "is not the pinned SRK"
	run ilog
	refute_output --partial "rx NV_Read"
	ip srk
	run bash -c "printf 'attackerlearnsit' | TPMBOX_SRK='$SRKNAME' '$TPMBOX' nvwrite 0x01500020 -i - --auth str:1234"
	assert_failure 1
	run ilog
	refute_output --partial "rx NV_Write"
	run real nvread 0x01500020 --auth str:1234
	assert_output "realdata12345678"
	# forged data in a session salted to the real SRK: refused, even
	# without a pin
	ip nvforge
	run tb nvread 0x01500020 --auth str:1234 -o "$BATS_TEST_TMPDIR/nv.out"
	assert_failure 1
	assert_output --partial "TPM2_NV_Read: the response HMAC does not verify"
	[ ! -e "$BATS_TEST_TMPDIR/nv.out" ]
	# tpm2-tools reads back what tpmbox wrote
	t2_flush
	run bash -c "tpm2_nvread 0x01500020 -P 1234 2>/dev/null"
	assert_output "realdata12345678"
	real nvrelease 0x01500020
}

@test "interposer: seal --owner-auth with no SRK persisted - with a pin exit 2 and nothing sent; without one the owner value is guessed" {
	b=$BATS_TEST_TMPDIR/o.blob
	t2_flush
	tpm2_evictcontrol -C o -c 0x81000001 >/dev/null
	tpm2_changeauth -c o ownerpw
	# the control (trust on first use): a NULL-hierarchy key salts the
	# session, the interposer answers with its own and guesses the value
	ip srk
	run tb seal --owner-auth str:ownerpw -o "$b" "$BATS_FILE_TMPDIR/secret"
	assert_success
	run ilog
	assert_output --partial "auth 0x40000001 $(hexof ownerpw)"
	rm -f "$b"
	# pinned: exit 2 before any command that would carry it
	ip srk
	run tb seal --srk-pub "$SRKPUB" --owner-auth str:ownerpw -o "$b" "$BATS_FILE_TMPDIR/secret"
	assert_failure 2
	assert_output --partial "refusing to send the owner auth value"
	assert_output --partial "--allow-unsalted"
	[ ! -e "$b" ]
	run ilog
	refute_output --partial "rx CreatePrimary"
	refute_output --partial "session key derived"
	# (one StartAuthSession went out, salted to the pinned key, and the
	# TPM refused it: there is no key at 0x81000001)
	run grep -c "rx StartAuthSession" "$BATS_TEST_TMPDIR/ilog"
	assert_output 1
	# unseal likewise
	real seal --allow-unsalted --owner-auth str:ownerpw -o "$b" "$BATS_FILE_TMPDIR/secret"
	ip srk
	run tb unseal --srk-name "$SRKNAME" --owner-auth str:ownerpw "$b"
	assert_failure 2
	run ilog
	refute_output --partial "rx CreatePrimary"
	# --allow-unsalted takes the risk, and the pin still catches the key
	ip srk
	run tb unseal --srk-name "$SRKNAME" --allow-unsalted --owner-auth str:ownerpw "$b"
	assert_failure 1
	assert_output --partial "the SRK made with TPM2_CreatePrimary is not the pinned SRK"
	refute_output --partial "$SECRET_HEX"
	# on the real bus it works, and the SRK made is the pinned one
	run real unseal --srk-name "$SRKNAME" --allow-unsalted --owner-auth str:ownerpw -o "$BATS_TEST_TMPDIR/out" "$b"
	assert_success
	cmp "$BATS_TEST_TMPDIR/out" "$BATS_FILE_TMPDIR/secret"
	# back to the suite's state: no owner value, the SRK persisted
	t2_flush
	tpm2_changeauth -c o -p ownerpw
	run real takeown
	assert_output "$SRKNAME"
}

@test "interposer: a pinned SRK made with CreatePrimary (none persisted) is checked too" {
	t2_flush
	tpm2_evictcontrol -C o -c 0x81000001 >/dev/null
	b=$BATS_TEST_TMPDIR/c.blob
	ip srk
	run tb seal --srk-pub "$SRKPUB" -o "$b" "$BATS_FILE_TMPDIR/secret"
	assert_failure 1
	assert_output --partial "the SRK made with TPM2_CreatePrimary is not the pinned SRK: pinned $SRKNAME"
	[ ! -e "$b" ]
	run grep -cx "rx Create" "$BATS_TEST_TMPDIR/ilog"
	assert_output 0
	# the one StartAuthSession, salted to the pinned key, was refused
	# (nothing at 0x81000001); none salted to the interposer's key
	run grep -c "rx StartAuthSession" "$BATS_TEST_TMPDIR/ilog"
	assert_output 1
	run ilog
	refute_output --partial "session key derived"
	# the real TPM makes the pinned key
	run real seal --srk-pub "$SRKPUB" -o "$b" "$BATS_FILE_TMPDIR/secret"
	assert_success
	run real unseal "$b"
	assert_success
	run real takeown
	assert_output "$SRKNAME"
}

@test "interposer: swapped AK - akcreate refuses a key made on the way (exit 1, nothing written)" {
	d=$BATS_TEST_TMPDIR
	# the control: trust on first use takes the interposer's AK
	ip srk,akswap
	run tb akcreate -o "$d/ak1.blob" --pub "$d/ak1.pem"
	assert_success
	cmp "$d/ak1.pem" "$d/evilak.pem.pub"
	# the real SRK: the changed TPM2_Create answer fails its HMAC
	ip akswap
	run tb akcreate -o "$d/ak2.blob" --pub "$d/ak2.pem"
	assert_failure 1
	assert_output --partial "TPM2_Create: the response HMAC does not verify"
	[ ! -e "$d/ak2.blob" ]
	[ ! -e "$d/ak2.pem" ]
	# pinned by name: the substituted SRK is refused before TPM2_Create
	ip srk,akswap
	run tb akcreate --srk-name "$SRKNAME" -o "$d/ak2.blob" --pub "$d/ak2.pem"
	assert_failure 1
	assert_output --partial "is not the pinned SRK"
	[ ! -e "$d/ak2.blob" ]
	[ ! -e "$d/ak2.pem" ]
	run ilog
	refute_output --partial "rx Create"
	# pinned by key: salted to the real SRK unasked; the forged
	# TPM2_Create answer fails its HMAC (then the key at 0x81000001 is
	# asked for, and the substituted one named)
	ip srk,akswap
	run tb akcreate --srk-pub "$SRKPUB" -o "$d/ak2.blob" --pub "$d/ak2.pem"
	assert_failure 1
	assert_output --partial "is not the pinned SRK"
	[ ! -e "$d/ak2.blob" ]
	[ ! -e "$d/ak2.pem" ]
	run ilog
	refute_output --partial "session key derived"
}

# imp: the interposer's AK (fresh with each ip) imported under the real
# SRK, straight to swtpm, where akimport hands it out for TPM2_Create.
imp() {
	TPM2TOOLS_TCTI="swtpm:path=$SWTPM_DIR/sock" tpm2_import -Q \
		-C 0x81000001 -G ecc:ecdsa-sha256:null -i "$D/evilak.pem" \
		-u "$D/import.pub" -r "$D/import.priv" \
		-a 'userwithauth|restricted|sign'
	TPM2TOOLS_TCTI="swtpm:path=$SWTPM_DIR/sock" t2_flush
}

@test "interposer: an imported AK - akcreate refuses it (exit 1, nothing written); checkquote refuses its TPM2B_PUBLIC or blob (exit 1) and takes forged quotes with a bare PEM (documented)" {
	d=$BATS_TEST_TMPDIR
	REALT2="swtpm:path=$SWTPM_DIR/sock"
	outs=("$d/ak.blob" "$d/ak.tpub" "$d/ak.name" "$d/ak.pem")
	# substituted SRK, no pin: the interposer signs the answer, and the
	# key is compared with the template
	ip srk,akimport
	imp
	run tb akcreate -o "$d/ak.blob" --tpm-public "$d/ak.tpub" --name "$d/ak.name" --pub "$d/ak.pem"
	assert_failure 1
	assert_output --partial "TPM2_Create: the key made is not the attestation key asked for"
	for f in "${outs[@]}"; do [ ! -e "$f" ]; done
	run ilog
	assert_output --partial "forged Create (an imported key)"
	# the real SRK: the changed answer fails its HMAC first
	ip akimport
	imp
	run tb akcreate -o "$d/ak.blob" --tpm-public "$d/ak.tpub" --name "$d/ak.name" --pub "$d/ak.pem"
	assert_failure 1
	assert_output --partial "TPM2_Create: the response HMAC does not verify"
	for f in "${outs[@]}"; do [ ! -e "$f" ]; done
	run ilog
	assert_output --partial "forged Create (an imported key)"

	# What an akcreate that compared nothing would have written: the
	# answer's two fields, byte for byte the imported key's (tpm2_create
	# notices this answer only because its automatic session's HMAC no
	# longer verifies: with an empty auth value and no salt, an
	# interposer could recompute that one too).  The key loads and quotes
	# on the real TPM, and the attacker, who holds its private key,
	# forges quotes offline with every PCR 0x11.
	ip pass
	imp
	cp "$d/import.pub" "$d/t2.pub"
	cp "$d/import.priv" "$d/t2.priv"
	export TPM2TOOLS_TCTI="$REALT2"
	tpm2_load -Q -C 0x81000001 -u "$d/t2.pub" -r "$d/t2.priv" -c "$d/t2.ctx"
	t2_flush
	tpm2_readpublic -Q -c "$d/t2.ctx" -f pem -o "$d/t2.pem"
	t2_flush
	cmp "$d/t2.pem" "$d/evilak.pem.pub"
	tpm2_encodeobject -Q -C 0x81000001 -u "$d/t2.pub" -r "$d/t2.priv" -o "$d/t2.blob"
	t2_flush
	tpm2_quote -Q -c "$d/t2.ctx" -l sha256:0,7 -q 0102 -g sha256 \
		-m "$d/m0" -s "$d/s0" -o "$d/p0"
	t2_flush
	run tpm2_checkquote -u "$d/t2.pem" -m "$d/m0" -s "$d/s0" -f "$d/p0" -q 0102
	assert_success
	# the forgery: both values (tpm2_quote -o: 132 bytes of selections,
	# a count, a count, then 66 bytes per value), the digest (the
	# attestation's last 32 bytes), the signature
	python3 - "$d" <<'PY'
import hashlib, subprocess, sys
d = sys.argv[1]
m = bytearray(open(d + "/m0", "rb").read())
p = bytearray(open(d + "/p0", "rb").read())
for k in range(2):
    p[142 + 66 * k:174 + 66 * k] = b"\x11" * 32
m[-32:] = hashlib.sha256(b"\x11" * 64).digest()
der = subprocess.run(["openssl", "dgst", "-sha256", "-sign", d + "/evilak.pem"],
                     input=bytes(m), capture_output=True, check=True).stdout
i, rs = 2, []
while i < len(der):
    n = der[i + 1]
    rs.append(int.from_bytes(der[i + 2:i + 2 + n], "big").to_bytes(32, "big"))
    i += 2 + n
open(d + "/m", "wb").write(m)
open(d + "/p", "wb").write(p)
open(d + "/s", "wb").write(bytes.fromhex("0018000b0020") + rs[0] + b"\x00\x20" + rs[1])
PY
	# tpmbox quote does not use the key: not an AK (exit 1)
	run real quote -k "$d/t2.blob" -n 0102 -o "$d/q"
	assert_failure 1
	assert_output --partial "not an attestation key: fixedTPM is not set"
	[ ! -e "$d/q" ]
	q=(-n 0102 --msg "$d/m" --sig "$d/s" --pcrs "$d/p")
	# the control: with the bare PEM the forgery passes (tpm2_checkquote
	# too); checkquote(1) KEYS says so
	run tb checkquote -k "$d/t2.pem" "${q[@]}"
	assert_success
	assert_line "sha256:0 $(printf '11%.0s' $(seq 32))"
	run tpm2_checkquote -u "$d/t2.pem" -m "$d/m" -s "$d/s" -f "$d/p" -q 0102
	assert_success
	# the TPM2B_PUBLIC or the blob: not an AK (exit 1)
	for k in t2.pub t2.blob; do
		run tb checkquote -k "$d/$k" "${q[@]}"
		assert_failure 1
		assert_output --partial "$d/$k: AK: not an attestation key: fixedTPM is not set"
		refute_output --partial "sha256:0"
	done
}

@test "interposer: zeroed PCR values - seal refuses them (exit 1, no blob); only a substituted SRK without a pin lets them through" {
	real extend 7 -s "a boot component"
	b=$BATS_TEST_TMPDIR/z.blob
	ip srk,pcrzero
	run tb seal -p sha256:0,7 -o "$b" "$BATS_FILE_TMPDIR/secret"
	assert_success
	run ilog
	assert_output --partial "forged PCR_Read"
	rm -f "$b"
	for pin in "" "--srk-pub $SRKPUB"; do
		ip pcrzero
		# shellcheck disable=SC2086
		run tb seal $pin -p sha256:0,7 -o "$b" "$BATS_FILE_TMPDIR/secret"
		assert_failure 1
		assert_output --partial "TPM2_PCR_Read: the response HMAC does not verify"
		[ ! -e "$b" ]
	done
	ip srk,pcrzero
	run tb seal --srk-pub "$SRKPUB" -p sha256:0,7 -o "$b" "$BATS_FILE_TMPDIR/secret"
	assert_failure 1
	[ ! -e "$b" ]
	# no PolicyPCR success to forge: the values themselves are HMACed
	run ilog
	refute_output --partial "PolicyPCR"
}

@test "interposer: a lowered PCR count - seal -p sha256:all and pcrread refuse it with a pin or session; unpinned pcrread takes it (documented)" {
	b=$BATS_TEST_TMPDIR/a.blob
	ip srk,pcrcount1
	run tb seal -p sha256:all -o "$b" "$BATS_FILE_TMPDIR/secret"
	assert_success
	rm -f "$b"
	ip pcrcount1
	run tb seal -p sha256:all -o "$b" "$BATS_FILE_TMPDIR/secret"
	assert_failure 1
	assert_output --partial "TPM2_GetCapability: the response HMAC does not verify"
	[ ! -e "$b" ]
	run tb pcrread sha256:all
	assert_success
	assert_output "sha256:0 $(real pcrread sha256:0 | cut -d' ' -f2)"
	run tb pcrread --srk-name "$SRKNAME" sha256:all
	assert_failure 1
	assert_output --partial "TPM2_GetCapability: the response HMAC does not verify"
}

@test "interposer: forged GetRandom bytes - refused with a pin (exit 1, nothing written); without one they pass, as documented" {
	o=$BATS_TEST_TMPDIR/r.bin
	ip random
	run tb getrandom --hex 8
	assert_success
	assert_output 4141414141414141
	run tb getrandom --srk-pub "$SRKPUB" -o "$o" 32
	assert_failure 1
	assert_output --partial "TPM2_GetRandom: the response HMAC does not verify"
	[ ! -e "$o" ]
	run env TPMBOX_SRK="$SRKNAME" "$TPMBOX" getrandom -o "$o" 32
	assert_failure 1
	[ ! -e "$o" ]
	ip srk,random
	run tb getrandom --srk-pub "$SRKPUB" -o "$o" 32
	assert_failure 1
	assert_output --partial "is not the pinned SRK"
	[ ! -e "$o" ]
	# with a pin the bytes cross the bus encrypted: the interposer sees
	# other bytes than tpmbox prints (without one, the same)
	ip pass
	run tb getrandom --hex 32
	assert_success
	run grep -cx "saw GetRandom $output" "$BATS_TEST_TMPDIR/ilog"
	assert_output 1
	ip pass
	run tb getrandom --srk-pub "$SRKPUB" --hex 32
	assert_success
	hex=$output
	run grep -c "saw GetRandom" "$BATS_TEST_TMPDIR/ilog"
	assert_output 1
	run grep -c "$hex" "$BATS_TEST_TMPDIR/ilog"
	assert_output 0
}

@test "interposer: a dropped PCR_Extend - refused with a pin (exit 1); without one it passes for done, as documented" {
	before=$(real pcrread sha256:9)
	ip dropextend
	run tb extend 9 -s cap
	assert_success
	[ "$(real pcrread sha256:9)" = "$before" ]
	run tb extend --srk-pub "$SRKPUB" 9 -s cap
	assert_failure 1
	assert_output --partial "TPM2_PCR_Extend: the response HMAC does not verify"
	[ "$(real pcrread sha256:9)" = "$before" ]
	# the real thing, pinned, through a passive interposer: extended
	ip pass
	run tb extend --srk-pub "$SRKPUB" 9 -s cap
	assert_success
	[ "$(real pcrread sha256:9)" != "$before" ]
	run t2_pcrread_text sha256:9
	assert_output "$(real pcrread sha256:9)"
}

@test "interposer: a swapped ReadPublic and a forged quote - quote checks with the AK blob's key (exit 3, nothing written)" {
	d=$BATS_TEST_TMPDIR
	real akcreate -o "$d/ak.blob" --pub "$d/ak.pem"
	ip quoteswap
	run tb quote -k "$d/ak.blob" -n 0102 -o "$d/q"
	assert_failure 3
	assert_output --partial "the quote does not verify"
	[ ! -e "$d/q" ]
	# the control: the forgery is a valid quote under the interposer's AK
	run ilog
	assert_output --partial "forged Quote"
	run openssl dgst -sha256 -verify "$d/evilak.pem.pub" -signature "$d/forged.sig.der" "$d/forged.msg"
	assert_output "Verified OK"
	# and quote never asks ReadPublic for the AK (one ReadPublic: the
	# SRK's), so there was no answer to swap
	run grep -cx "rx ReadPublic" "$BATS_TEST_TMPDIR/ilog"
	assert_output 1
	run ilog
	refute_output --partial "forged ReadPublic"
}

@test "interposer: TPM_RC_PCR_CHANGED (a PCR extended between PolicyPCR and Unseal) is retried, a bounded number of times" {
	b=$BATS_TEST_TMPDIR/p.blob
	real seal -p sha256:7 -o "$b" "$BATS_FILE_TMPDIR/secret"
	ip pcrchanged=2
	run tb unseal -o "$BATS_TEST_TMPDIR/out" "$b"
	assert_success
	cmp "$BATS_TEST_TMPDIR/out" "$BATS_FILE_TMPDIR/secret"
	run grep -c "injected PCR_Extend" "$BATS_TEST_TMPDIR/ilog"
	assert_output 2
	ip pcrchanged=50
	run tb unseal -o "$BATS_TEST_TMPDIR/out2" "$b"
	assert_failure 4
	assert_output --partial "the PCRs kept changing during unseal (TPM_RC_PCR_CHANGED 5 times in a row)"
	[ ! -e "$BATS_TEST_TMPDIR/out2" ]
	run grep -c "injected PCR_Extend" "$BATS_TEST_TMPDIR/ilog"
	assert_output 5
}

@test "interposer: unseal pins to the blob's SRK name whatever the pin says" {
	b=$BATS_TEST_TMPDIR/u.blob
	real seal -o "$b" "$BATS_FILE_TMPDIR/secret"
	ip srk
	run tb unseal "$b"
	assert_failure 1
	assert_output --partial "was sealed under another SRK"
	run ilog
	refute_output --partial "rx Load"
	refute_output --partial "rx StartAuthSession"
}

@test "interposer: bad pins are usage or file errors before the TPM is touched" {
	ip pass
	run tb getrandom --srk-name zz 4
	assert_failure 2
	assert_output --partial "--srk-name: 'zz' is not an SRK name"
	run tb getrandom --srk-name "$SRKNAME" --srk-pub "$SRKPUB" 4
	assert_failure 2
	assert_output --partial "give --srk-name or --srk-pub, not both"
	run tb getrandom --srk-pub "$BATS_TEST_TMPDIR/none.pem" 4
	assert_failure 6
	run env TPMBOX_SRK="$BATS_TEST_TMPDIR/none.pem" "$TPMBOX" pcrread sha256:0
	assert_failure 6
	assert_output --partial "TPMBOX_SRK"
	echo "not a key" > "$BATS_TEST_TMPDIR/bad.pem"
	run tb seal --srk-pub "$BATS_TEST_TMPDIR/bad.pem" -o "$BATS_TEST_TMPDIR/x" "$BATS_FILE_TMPDIR/secret"
	assert_failure 2
	run ilog
	assert_output ""
	# applets without a pin ignore TPMBOX_SRK; takeown has no --srk-pub pin
	run env TPMBOX_SRK=/nonexistent "$TPMBOX" info
	assert_success
	run tb takeown --srk-name zz
	assert_failure 2
}

@test "interposer: pinned runs work end to end through a passive interposer (TPMBOX_SRK), and every answer they act on is HMACed" {
	d=$BATS_TEST_TMPDIR
	ip pass
	export TPMBOX_SRK=$SRKPUB
	run tb takeown
	assert_success
	assert_output "$SRKNAME"
	tb seal -p sha256:0,7 --auth str:pw -o "$d/s.blob" "$BATS_FILE_TMPDIR/secret"
	tb unseal --auth str:pw -o "$d/out" "$d/s.blob"
	cmp "$d/out" "$BATS_FILE_TMPDIR/secret"
	tb nvdefine 0x01500030 -s 32 --auth str:1234 -a "authread|authwrite"
	tb nvdefine 0x01500031 -s 32 -a "ownerread|ownerwrite"
	head -c 32 "$BATS_FILE_TMPDIR/secret" > "$d/nv"
	tb nvwrite 0x01500030 -i "$d/nv" --auth str:1234
	tb nvread 0x01500030 --auth str:1234 -o "$d/nv.back"
	cmp "$d/nv" "$d/nv.back"
	tb nvwrite 0x01500031 -i "$d/nv"
	tb nvread 0x01500031 -o "$d/nv.back2"
	cmp "$d/nv" "$d/nv.back2"
	tb nvrelease 0x01500030
	tb nvrelease 0x01500031
	tb akcreate -o "$d/ak.blob" --pub "$d/ak.pem"
	tb quote -k "$d/ak.blob" -p sha256:0-7 -n 0102 -o "$d/q"
	run tb checkquote -k "$d/ak.pem" -n 0102 "$d/q"
	assert_success
	tb extend 16 -s pinned
	run tb pcrread sha256:16
	assert_output "$(real pcrread sha256:16)"
	tb getrandom 16 >/dev/null
	# every answer of these kinds came with a session in its command
	# (so HMACed; a changed one fails, as the tests above show).  Not
	# listed: ReadPublic and NV_ReadPublic (the name they return is
	# checked against the pin or bound by the next command's HMAC) and
	# unseal's Load (the name is checked against the blob's public area,
	# and Unseal's policy session HMACs it), Quote (signed by the AK)
	for cc in GetCapability PCR_Read GetRandom PCR_Extend Create \
		  NV_Read NV_Write NV_DefineSpace NV_UndefineSpace \
		  HierarchyChangeAuth Unseal EvictControl; do
		rx=$(grep -cx "rx $cc" "$d/ilog" || true)
		hm=$(grep -cx "hmac $cc" "$d/ilog" || true)
		[ "$rx" = "$hm" ] || { echo "$cc: $rx sent, $hm with a session"; false; }
	done
	[ "$(grep -cx 'rx GetCapability' "$d/ilog")" -gt 0 ]
}
