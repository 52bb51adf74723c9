#!/usr/bin/env bats
# nvdefine, nvwrite, nvread and nvrelease on a TPM 1.2 (issue 12): swtpm
# in 1.2 mode with NV locked (swtpm_setup --lock-nvram: permissions are
# enforced), owned by tpmbox with the owner password "opass".  tpm-tools
# through tcsd read back what tpmbox did and write what tpmbox reads
# (tcsd runs only while they do: swtpm takes one client at a time).
# Auth values are SHA-1 of the password on both sides: a password that
# works with tpm-tools' -p/-o/-a works with tpmbox's str:.

load helpers/common
load helpers/tcsd

setup_file() {
	swtpm12_tcp_start || return 1
	"$TPMBOX" takeown --owner-auth str:opass >/dev/null
}
teardown_file() { tpm12_oracle_stop; }

teardown() { tcsd_stop; }

OWN=(--owner-auth str:opass)

# The dictionary-attack count back to 0 (swtpm 1.2 defends from the 5th
# failure): tests that try wrong values start with it.
da_reset() { "$TPMBOX" dalock --reset --owner-auth str:opass >/dev/null; }

# The count of commands named $1 in a --trace run of the rest.
count() {
	local name=$1
	shift
	"$TPMBOX" --trace "$@" 2>&1 >/dev/null | grep -c "^> $name "
}

@test "tpm12-nv: 1 byte and 5000 bytes (two chunks of the TPM's input buffer) round trip, owner-authorized" {
	d=$BATS_TEST_TMPDIR
	run tb nvdefine 0x00011001 -s 1 "${OWN[@]}"
	assert_success
	printf 'Z' | tb nvwrite 0x00011001 "${OWN[@]}"
	run tb nvread 0x00011001 "${OWN[@]}"
	assert_success
	assert_output Z
	head -c 5000 /dev/urandom >"$d/big"
	tb nvdefine 0x00011002 -s 5000 "${OWN[@]}"
	# swtpm's TPM_CAP_PROP_INPUT_BUFFER is 4096: 3968 bytes a command
	[ "$(count TPM_NV_WriteValue nvwrite 0x00011002 -i "$d/big" "${OWN[@]}")" = 2 ]
	[ "$(count TPM_NV_ReadValue nvread 0x00011002 -o "$d/back" "${OWN[@]}")" = 2 ]
	cmp "$d/big" "$d/back"
	# one OSAP session for both chunks, ended by the last command
	[ "$(count TPM_OSAP nvread 0x00011002 -o "$d/back2" "${OWN[@]}")" = 1 ]
	[ "$(count TPM_FlushSpecific nvread 0x00011002 -o "$d/back3" "${OWN[@]}")" = 0 ]
	# a piece at an offset
	run tb nvread 0x00011002 --offset 4000 -s 16 --hex "${OWN[@]}"
	assert_output "$(tail -c 1000 "$d/big" | head -c 16 | xxd -p)"
	printf 'abc' | tb nvwrite 0x00011002 --offset 3967 "${OWN[@]}"
	run tb nvread 0x00011002 --offset 3966 -s 5 --hex "${OWN[@]}"
	assert_output "$(head -c 3967 "$d/big" | tail -c 1 | xxd -p)616263$(head -c 3971 "$d/big" | tail -c 1 | xxd -p)"
	# --trace masks the data both ways (the command's data, the answer)
	mark=$(printf 'SECRETNVDATA' | xxd -p)
	run bash -c 'printf SECRETNVDATA | "$TPMBOX" --trace nvwrite 0x00011002 --owner-auth str:opass 2>&1'
	assert_success
	assert_output --partial "> TPM_NV_WriteValue (79 bytes)"
	[[ "$(echo "$output" | tr -d ' \n')" != *"$mark"* ]]
	run bash -c '"$TPMBOX" --trace nvread 0x00011002 -s 12 --owner-auth str:opass 2>&1 >/dev/null'
	assert_success
	assert_output --partial "< TPM_NV_ReadValue (67 bytes)"
	[[ "$(echo "$output" | tr -d ' \n')" != *"$mark"* ]]
	run tb nvread 0x00011002 -s 12 "${OWN[@]}"
	assert_output SECRETNVDATA
	tb nvrelease 0x00011001 "${OWN[@]}"
	tb nvrelease 0x00011002 "${OWN[@]}"
	run tb nvlist
	refute_output --partial 0x00011001
	refute_output --partial 0x00011002
}

@test "tpm12-nv: the default permissions: OWNERREAD|OWNERWRITE, AUTHREAD|AUTHWRITE with --auth" {
	tb nvdefine 0x00011003 -s 4 "${OWN[@]}"
	tb nvdefine 0x00011004 -s 4 --auth str:ipass "${OWN[@]}"
	run tb nvlist
	assert_line --partial "0x00011003 size=4 attrs=OWNERREAD|OWNERWRITE "
	assert_line --partial "0x00011004 size=4 attrs=AUTHREAD|AUTHWRITE "
	tb nvrelease 0x00011003 "${OWN[@]}"
	tb nvrelease 0x00011004 "${OWN[@]}"
}

@test "tpm12-nv: index-authorized (AUTHREAD|AUTHWRITE): its value writes and reads; a wrong one is exit 4; the owner's is refused" {
	da_reset
	tb nvdefine 0x00011005 -s 8 -a "AUTHREAD|AUTHWRITE" --auth str:ipass "${OWN[@]}"
	printf 'idxdata!' | tb nvwrite 0x00011005 --auth str:ipass
	run tb nvread 0x00011005 --auth str:ipass
	assert_output 'idxdata!'
	# the index value, over OSAP on the index (TPM_ET_NV)
	[ "$(count TPM_NV_ReadValueAuth nvread 0x00011005 --auth str:ipass)" = 1 ]
	run bash -c 'printf xxxxxxxx | "$TPMBOX" nvwrite 0x00011005 --auth str:wrong'
	assert_failure 4
	assert_output --partial "tpmbox nvwrite: the index's value is wrong"
	run tb nvread 0x00011005 --auth str:wrong
	assert_failure 4
	assert_output --partial "tpmbox nvread: the index's value is wrong"
	# without --auth: the well-known secret, which is not its value
	run tb nvread 0x00011005
	assert_failure 4
	assert_output --partial "the well-known secret was tried"
	run tb nvread 0x00011005 "${OWN[@]}"
	assert_failure 2
	assert_output --partial "does not take the owner's value for reading (no OWNERREAD): give its own (--auth)"
	run bash -c 'printf xxxxxxxx | "$TPMBOX" nvwrite 0x00011005 --owner-auth str:opass'
	assert_failure 2
	assert_output --partial "(no OWNERWRITE)"
	run tb nvread 0x00011005 --auth str:ipass
	assert_output 'idxdata!'
	# an index without a value: no --auth
	tb nvdefine 0x00011006 -s 4 -a "OWNERWRITE" "${OWN[@]}"
	run tb nvread 0x00011006 --auth str:x
	assert_failure 2
	assert_output --partial "(no AUTHREAD): it needs none"
	run tb nvread 0x00011006 --hex
	assert_success
	assert_output ffffffff
	[ "$(count TPM_OSAP nvread 0x00011006)" = 0 ]
	tb nvrelease 0x00011005 "${OWN[@]}"
	tb nvrelease 0x00011006 "${OWN[@]}"
}

@test "tpm12-nv: a wrong owner value is exit 4 for nvdefine, nvwrite, nvread and nvrelease" {
	da_reset
	tb nvdefine 0x00011007 -s 4 "${OWN[@]}"
	run tb nvdefine 0x00011008 -s 4 --owner-auth str:wrong
	assert_failure 4
	assert_output --partial "tpmbox nvdefine: the owner value is wrong"
	run bash -c 'printf abcd | "$TPMBOX" nvwrite 0x00011007 --owner-auth str:wrong'
	assert_failure 4
	assert_output --partial "tpmbox nvwrite: the owner value is wrong"
	run tb nvread 0x00011007 --owner-auth str:wrong
	assert_failure 4
	assert_output --partial "tpmbox nvread: the owner value is wrong"
	run tb nvrelease 0x00011007 --owner-auth str:wrong
	assert_failure 4
	assert_output --partial "tpmbox nvrelease: the owner value is wrong"
	da_reset
	# the well-known secret is not this owner's value either
	run tb nvrelease 0x00011007
	assert_failure 4
	assert_output --partial "the well-known secret was tried"
	run tb nvlist
	assert_line --partial 0x00011007
	refute_output --partial 0x00011008
	tb nvrelease 0x00011007 "${OWN[@]}"
}

@test "tpm12-nv: an undefined index is exit 6 for nvwrite, nvread and nvrelease" {
	run bash -c 'printf a | "$TPMBOX" nvwrite 0x00011f00 --owner-auth str:opass'
	assert_failure 6
	assert_output --partial "tpmbox nvwrite: NV index 0x00011f00 is not defined"
	run tb nvread 0x00011f00
	assert_failure 6
	assert_output --partial "tpmbox nvread: NV index 0x00011f00 is not defined"
	run tb nvrelease 0x00011f00 "${OWN[@]}"
	assert_failure 6
	assert_output --partial "tpmbox nvrelease: NV index 0x00011f00 is not defined"
	# the words and the hint a TPM 2.0 gives (lib/tpm12/nv.c)
	assert_output --partial "hint: nvlist shows the defined indices"
}

@test "tpm12-nv: PPWRITE and PPREAD are refused without physical presence (exit 4), and work once it is asserted" {
	tb nvdefine 0x00011009 -s 4 -a "PPREAD|PPWRITE" "${OWN[@]}"
	run bash -c 'printf pppp | "$TPMBOX" nvwrite 0x00011009'
	assert_failure 4
	assert_output --partial "tpmbox nvwrite: NV index 0x00011009 has PPWRITE: writing it needs physical presence, which is not asserted"
	assert_output --partial "hint: the platform asserts physical presence"
	run tb nvread 0x00011009
	assert_failure 4
	assert_output --partial "tpmbox nvread: NV index 0x00011009 has PPREAD: reading it needs physical presence, which is not asserted"
	# presence asserted (TSC_PhysicalPresence(PRESENT)), as swtpm allows
	[ "$(tpm12_raw 00c10000000c4000000a0008)" = 00c40000000a00000000 ]
	printf pppp | tb nvwrite 0x00011009
	run tb nvread 0x00011009
	assert_output pppp
	# and NOTPRESENT again
	[ "$(tpm12_raw 00c10000000c4000000a0010)" = 00c40000000a00000000 ]
	run tb nvread 0x00011009
	assert_failure 4
	tb nvrelease 0x00011009 "${OWN[@]}"
}

@test "tpm12-nv: WRITEDEFINE needs --allow-irreversible; nvwrite --lock locks it for good (a TPM restart too); the owner still releases it" {
	run tb nvdefine 0x0001100a -s 4 -a "OWNERREAD|OWNERWRITE|WRITEDEFINE" "${OWN[@]}"
	assert_failure 2
	assert_output --partial "WRITEDEFINE can lock the index"
	tb nvdefine 0x0001100a -s 4 -a "OWNERREAD|OWNERWRITE|WRITEDEFINE" --allow-irreversible "${OWN[@]}"
	printf 'once' | tb nvwrite 0x0001100a "${OWN[@]}"
	tb nvwrite 0x0001100a --lock "${OWN[@]}"
	run tb nvlist
	assert_line --partial "0x0001100a size=4 attrs=OWNERREAD|WRITEDEFINE|OWNERWRITE read_pcrs=none write_pcrs=none read_stclear=no write_stclear=yes write_define=yes"
	run bash -c 'printf 'twic' | "$TPMBOX" nvwrite 0x0001100a --owner-auth str:opass'
	assert_failure 1
	assert_output --partial "tpmbox nvwrite: NV index 0x0001100a is write-locked for good (WRITEDEFINE)"
	swtpm12_restart
	run bash -c 'printf 'twic' | "$TPMBOX" nvwrite 0x0001100a --owner-auth str:opass'
	assert_failure 1
	run tb nvread 0x0001100a "${OWN[@]}"
	assert_output once
	tb nvrelease 0x0001100a "${OWN[@]}"
	run tb nvlist
	refute_output --partial 0x0001100a
}

@test "tpm12-nv: WRITE_STCLEAR: --lock holds until the next TPM startup" {
	tb nvdefine 0x0001100b -s 4 -a "OWNERREAD|OWNERWRITE|WRITE_STCLEAR" --allow-irreversible "${OWN[@]}"
	printf 'aaaa' | tb nvwrite 0x0001100b "${OWN[@]}"
	tb nvwrite 0x0001100b --lock "${OWN[@]}"
	run bash -c 'printf bbbb | "$TPMBOX" nvwrite 0x0001100b --owner-auth str:opass'
	assert_failure 1
	assert_output --partial "is write-locked until the next TPM startup (WRITE_STCLEAR)"
	swtpm12_restart
	printf 'bbbb' | tb nvwrite 0x0001100b "${OWN[@]}"
	run tb nvread 0x0001100b "${OWN[@]}"
	assert_output bbbb
	tb nvrelease 0x0001100b "${OWN[@]}"
}

@test "tpm12-nv: READ_STCLEAR: nvread --lock holds until the next TPM startup" {
	tb nvdefine 0x0001100e -s 4 -a "OWNERREAD|OWNERWRITE|READ_STCLEAR" --allow-irreversible "${OWN[@]}"
	printf 'rrrr' | tb nvwrite 0x0001100e "${OWN[@]}"
	run tb nvread 0x0001100e "${OWN[@]}"
	assert_output rrrr
	run tb nvread 0x0001100e --lock "${OWN[@]}"
	assert_success
	assert_output ""
	run tb nvread 0x0001100e "${OWN[@]}"
	assert_failure 1
	assert_output --partial "tpmbox nvread: NV index 0x0001100e is read-locked until the next TPM startup (READ_STCLEAR)"
	# writing is still allowed
	printf 'ssss' | tb nvwrite 0x0001100e "${OWN[@]}"
	swtpm12_restart
	run tb nvread 0x0001100e "${OWN[@]}"
	assert_output ssss
	run tb nvread 0x0001100e --lock -s 1 "${OWN[@]}"
	assert_failure 2
	assert_output --partial "--lock reads no data"
	tb nvdefine 0x0001100f -s 4 "${OWN[@]}"
	run tb nvread 0x0001100f --lock "${OWN[@]}"
	assert_failure 2
	assert_output --partial "NV index 0x0001100f has no READ_STCLEAR: --lock would change nothing"
	tb nvrelease 0x0001100e "${OWN[@]}"
	tb nvrelease 0x0001100f "${OWN[@]}"
}

@test "tpm12-nv: WRITEALL: only the whole index in one write" {
	tb nvdefine 0x0001100c -s 8 -a "OWNERREAD|OWNERWRITE|WRITEALL" "${OWN[@]}"
	run bash -c 'printf abcd | "$TPMBOX" nvwrite 0x0001100c --owner-auth str:opass'
	assert_failure 2
	assert_output --partial "NV index 0x0001100c has WRITEALL: write all 8 bytes at offset 0"
	printf 'abcdefgh' | tb nvwrite 0x0001100c "${OWN[@]}"
	run tb nvread 0x0001100c "${OWN[@]}"
	assert_output abcdefgh
	tb nvrelease 0x0001100c "${OWN[@]}"
}

@test "tpm12-nv: refusals before the TPM is asked (exit 2)" {
	run tb nvdefine 0x10000100 -s 4 "${OWN[@]}"
	assert_failure 2
	assert_output --partial "has the D bit (0x10000000)"
	run tb nvrelease 0x1000f000 "${OWN[@]}"
	assert_failure 2
	assert_output --partial "has the D bit (0x10000000)"
	run tb nvdefine 0xffffffff -s 4 "${OWN[@]}"
	assert_failure 2
	assert_output --partial "TPM_NV_INDEX_LOCK"
	run tb nvdefine 0 -s 4 "${OWN[@]}"
	assert_failure 2
	assert_output --partial "global lock"
	run tb nvdefine 0x100000000 -s 4
	assert_failure 2
	assert_output --partial "bad NV index"
	run tb nvdefine 0x00011010 -s 4 -a "OWNERREAD|AUTHREAD|OWNERWRITE"
	assert_failure 2
	assert_output --partial "OWNERREAD and AUTHREAD exclude each other"
	run tb nvdefine 0x00011010 -s 4 -a "OWNERREAD|AUTHWRITE|OWNERWRITE"
	assert_failure 2
	assert_output --partial "OWNERWRITE and AUTHWRITE exclude each other"
	run tb nvdefine 0x00011010 -s 4 -a "OWNERREAD|BOGUS"
	assert_failure 2
	assert_output --partial "unknown TPM 1.2 permission 'BOGUS'"
	run tb nvdefine 0x00011010 -s 4 -a "0x00000100"
	assert_failure 2
	assert_output --partial "are not TPM 1.2 NV permissions"
	for o in READ_STCLEAR WRITE_STCLEAR GLOBALLOCK; do
		run tb nvdefine 0x00011010 -s 4 -a "OWNERREAD|OWNERWRITE|$o"
		assert_failure 2
		assert_output --partial "$o can lock the index"
	done
	run tb nvdefine 0x00011010 "${OWN[@]}"
	assert_failure 2
	assert_output --partial "a TPM 1.2 index needs -s SIZE"
	run tb nvdefine 0x00011010 -s 0 "${OWN[@]}"
	assert_failure 2
	assert_output --partial "a size of 0 releases an index"
	run tb nvdefine 0x00011010 -s 4 -t counter
	assert_failure 2
	assert_output --partial "this TPM is a TPM 1.2: its NV indices have no types (-t)"
	run tb nvdefine 0x00011010 -s 4 -g sha1
	assert_failure 2
	assert_output --partial "no name algorithm (-g)"
	run tb nvdefine 0x00011010 -s 4 --platform-auth str:x
	assert_failure 2
	assert_output --partial "no platform hierarchy (--platform-auth)"
	run tb nvrelease 0x00011010 --platform-auth str:x
	assert_failure 2
	assert_output --partial "no platform hierarchy (--platform-auth)"
	run tb nvlist
	refute_output --partial 0x00011010
	# defined already: a 1.2 would replace it, data lost
	tb nvdefine 0x00011011 -s 4 "${OWN[@]}"
	printf keep | tb nvwrite 0x00011011 "${OWN[@]}"
	run tb nvdefine 0x00011011 -s 8 "${OWN[@]}"
	assert_failure 1
	assert_output --partial "NV index 0x00011011 is defined already (4 bytes)"
	run tb nvread 0x00011011 "${OWN[@]}"
	assert_output keep
	# ranges and data
	run tb nvread 0x00011011 --offset 4 "${OWN[@]}"
	assert_failure 2
	assert_output --partial "offset 4 is past the end"
	run tb nvread 0x00011011 --offset 2 -s 3 "${OWN[@]}"
	assert_failure 2
	assert_output --partial "go past the end"
	run bash -c 'printf abcde | "$TPMBOX" nvwrite 0x00011011 --owner-auth str:opass'
	assert_failure 2
	assert_output --partial "the data does not fit"
	run bash -c 'printf "" | "$TPMBOX" nvwrite 0x00011011 --owner-auth str:opass'
	assert_failure 2
	assert_output --partial "no data to write"
	run tb nvwrite 0x00011011 --lock "${OWN[@]}"
	assert_failure 2
	assert_output --partial "has neither WRITEDEFINE nor WRITE_STCLEAR: --lock would change nothing"
	run tb nvwrite 0x00011011 --lock -i /dev/null
	assert_failure 2
	assert_output --partial "--lock writes no data"
	run bash -c 'printf a | "$TPMBOX" nvwrite 0'
	assert_failure 2
	assert_output --partial "NV index 0 holds no data"
	run tb nvwrite 0 --lock "${OWN[@]}"
	assert_failure 2
	assert_output --partial "the global lock (NV index 0) takes no authorization"
	run tb nvread 0x00011011 --auth str:a --owner-auth str:b
	assert_failure 2
	assert_output --partial "give --auth or --owner-auth, not both"
	tb nvrelease 0x00011011 "${OWN[@]}"
}

@test "tpm12-nv: GLOBALLOCK: nvwrite 0 --lock locks it until the next TPM startup" {
	tb nvdefine 0x0001100d -s 4 -a "OWNERREAD|OWNERWRITE|GLOBALLOCK" --allow-irreversible "${OWN[@]}"
	printf gggg | tb nvwrite 0x0001100d "${OWN[@]}"
	tb nvwrite 0 --lock
	run bash -c 'printf hhhh | "$TPMBOX" nvwrite 0x0001100d --owner-auth str:opass'
	assert_failure 1
	assert_output --partial "is write-locked until the next TPM startup (GLOBALLOCK)"
	swtpm12_restart
	printf hhhh | tb nvwrite 0x0001100d "${OWN[@]}"
	run tb nvread 0x0001100d "${OWN[@]}"
	assert_output hhhh
	tb nvrelease 0x0001100d "${OWN[@]}"
}

@test "tpm12-nv: tpm_nvinfo shows what tpmbox nvdefine made, as tpm_nvdefine makes it with the same words" {
	i=0
	for perm in "OWNERREAD|OWNERWRITE" "AUTHREAD|AUTHWRITE" "PPREAD|OWNERWRITE|WRITEALL" \
		"OWNERREAD|AUTHWRITE|WRITEDEFINE" "AUTHREAD|OWNERWRITE|WRITE_STCLEAR|READ_STCLEAR|GLOBALLOCK"; do
		i=$((i + 1))
		tb nvdefine "0x0001120$i" -s $((i * 10)) -a "$perm" --allow-irreversible --auth str:ipass "${OWN[@]}"
	done
	tcsd_start
	i=0
	for perm in "OWNERREAD|OWNERWRITE" "AUTHREAD|AUTHWRITE" "PPREAD|OWNERWRITE|WRITEALL" \
		"OWNERREAD|AUTHWRITE|WRITEDEFINE" "AUTHREAD|OWNERWRITE|WRITE_STCLEAR|READ_STCLEAR|GLOBALLOCK"; do
		i=$((i + 1))
		tpm_nvdefine -i "0x0001130$i" -s $((i * 10)) -p "$perm" -oopass -aipass >/dev/null
		tpm_nvinfo -i "0x0001120$i" >"$BATS_TEST_TMPDIR/ours"
		tpm_nvinfo -i "0x0001130$i" >"$BATS_TEST_TMPDIR/theirs"
		grep -q "^NVRAM index *: 0x0001120$i " "$BATS_TEST_TMPDIR/ours"
		grep -q "^Size *: $((i * 10)) " "$BATS_TEST_TMPDIR/ours"
		# every other line: permissions by name, PCRs, localities, size
		diff <(sed 1d "$BATS_TEST_TMPDIR/theirs") <(sed 1d "$BATS_TEST_TMPDIR/ours")
		want=$(echo "$perm" | tr '|' '\n' | sort | tr '\n' ' ')
		got=$(awk '/^Permissions/ { gsub(/[()]/, "", $4); print $4 }' "$BATS_TEST_TMPDIR/ours" |
			sed 's/TPM_NV_PER_//g' | tr '|' '\n' | sort | tr '\n' ' ')
		[ "$want" = "$got" ] || { echo "$perm: tpm_nvinfo says $got"; false; }
	done
	for i in 1 2 3 4 5; do tpm_nvrelease -i "0x0001130$i" -oopass >/dev/null; done
	tcsd_stop
	for i in 1 2 3 4 5; do tb nvrelease "0x0001120$i" "${OWN[@]}"; done
}

@test "tpm12-nv: tpm_nvwrite then tpmbox nvread, and tpmbox nvwrite then tpm_nvread (owner and index values)" {
	da_reset
	d=$BATS_TEST_TMPDIR
	tb nvdefine 0x00011501 -s 2000 -a "OWNERREAD|OWNERWRITE" "${OWN[@]}"
	tb nvdefine 0x00011502 -s 64 -a "AUTHREAD|AUTHWRITE" --auth str:ipass "${OWN[@]}"
	head -c 2000 /dev/urandom >"$d/a"
	head -c 64 /dev/urandom >"$d/b"
	tcsd_start
	tpm_nvwrite -i 0x00011501 -f "$d/a" -popass >/dev/null
	tpm_nvwrite -i 0x00011502 -f "$d/b" -pipass >/dev/null
	tcsd_stop
	tb nvread 0x00011501 -o "$d/a.back" "${OWN[@]}"
	tb nvread 0x00011502 -o "$d/b.back" --auth str:ipass
	cmp "$d/a" "$d/a.back"
	cmp "$d/b" "$d/b.back"
	# and the other way, at an offset too
	head -c 2000 /dev/urandom >"$d/a2"
	head -c 32 /dev/urandom >"$d/b2"
	tb nvwrite 0x00011501 -i "$d/a2" "${OWN[@]}"
	tb nvwrite 0x00011502 --offset 32 -i "$d/b2" --auth str:ipass
	tcsd_start
	# tpm_nvread itself fails on 2000 bytes at once (TSS_E_TSP_AUTHFAIL
	# from trousers 0.3.15, on what tpm_nvwrite wrote too; 1500 pass):
	# two reads of 1000 at offsets
	tpm_nvread -i 0x00011501 -s 1000 -f "$d/a2.back1" -popass >/dev/null
	tpm_nvread -i 0x00011501 -s 1000 -n 1000 -f "$d/a2.back2" -popass >/dev/null
	cat "$d/a2.back1" "$d/a2.back2" >"$d/a2.back"
	tpm_nvread -i 0x00011502 -s 64 -f "$d/b2.back" -pipass >/dev/null
	cmp "$d/a2" "$d/a2.back"
	cmp <(head -c 32 "$d/b"; cat "$d/b2") "$d/b2.back"
	# a wrong value fails there too: the values are the same SHA-1s
	run tpm_nvread -i 0x00011502 -s 64 -f "$d/bad" -pwrong
	assert_failure
	tcsd_stop
}

@test "tpm12-nv: tpm_nvdefine then tpmbox nvrelease; tpm_nvinfo then lists it no more" {
	tcsd_start
	tpm_nvdefine -i 0x00011401 -s 16 -p "OWNERREAD|OWNERWRITE" -oopass >/dev/null
	tpm_nvdefine -i 0x00011402 -s 16 -p "AUTHREAD|AUTHWRITE" -oopass -aipass >/dev/null
	# PCR bindings: the public part goes back as TPM_CAP_NV_INDEX gave it
	tpm_nvdefine -i 0x00011403 -s 8 -p "OWNERWRITE|READ_STCLEAR" -r 0 -r 7 -w 16 -oopass >/dev/null
	run tpm_nvinfo
	assert_output --partial 0x00011401
	assert_output --partial 0x00011403
	tcsd_stop
	run tb nvlist
	assert_line --partial "0x00011403 size=8 attrs=READ_STCLEAR|OWNERWRITE read_pcrs=0,7 write_pcrs=16 "
	tb nvrelease 0x00011401 "${OWN[@]}"
	tb nvrelease 0x00011402 "${OWN[@]}"
	tb nvrelease 0x00011403 "${OWN[@]}"
	tcsd_start
	run tpm_nvinfo
	refute_output --partial 0x00011401
	refute_output --partial 0x00011402
	refute_output --partial 0x00011403
	tcsd_stop
}
