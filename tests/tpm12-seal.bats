#!/usr/bin/env bats
# seal and unseal on a TPM 1.2 (swtpm in 1.2 mode, EK made and NV locked
# by swtpm_setup; ownership taken by tpm_takeownership -y -z through tcsd,
# so that tpm-tools can seal and unseal too).  tpm-tools is the oracle
# for its own file format both ways; PCR values expected after an extend
# come from Python's hashlib, never from tpmbox.

load helpers/common
load helpers/tcsd

setup_file() {
	swtpm12_tcp_start && tcsd_start &&
		tpm_takeownership -y -z >/dev/null && tcsd_stop
}
teardown_file() { tpm12_oracle_stop; }

setup() { cd "$BATS_TEST_TMPDIR"; }
teardown() {
	tcsd_stop
	# the interposer test's own swtpm and interposer, when a check failed
	[ -z "${LIAR:-}" ] || kill "$LIAR" 2>/dev/null || true
	[ -z "${F:-}" ] || swtpm12_dir_down "$F"
}

# SHA-1(old || digest) in hex.
ext() { python3 -c 'import hashlib,sys; print(hashlib.sha1(bytes.fromhex(sys.argv[1]) + bytes.fromhex(sys.argv[2])).hexdigest())' "$1" "$2"; }


# The blob's one block, decoded, with byte OFF flipped (xor 0xff).
flip12() {
	local f=$1 off=$2 old
	sed -n '/BEGIN TPMBOX TPM12 SEALED/,/END TPMBOX TPM12 SEALED/p' "$f" |
		sed '1d;$d' | base64 -d > "$f.der"
	old=$(od -An -tx1 -j "$off" -N1 "$f.der" | tr -d ' ')
	printf "$(printf '\\x%02x' $(( 0x$old ^ 0xff )))" |
		dd of="$f.der" bs=1 seek="$off" conv=notrunc status=none
	{
		echo "-----BEGIN TPMBOX TPM12 SEALED-----"
		base64 -w 64 "$f.der"
		echo "-----END TPMBOX TPM12 SEALED-----"
	} > "$f"
}

@test "tpm12 seal: round trips of 1 B, 64 KiB and 1 MiB; blob and output mode 0600" {
	for n in 1 65536 1048576; do
		head -c "$n" /dev/urandom > "in.$n"
		run tb seal -o "b.$n" "in.$n"
		assert_success
		[ "$(stat -c %a "b.$n")" = 600 ]
		grep -q -- "-----BEGIN TPMBOX TPM12 SEALED-----" "b.$n"
		run tb unseal -o "out.$n" "b.$n"
		assert_success
		[ "$(stat -c %a "out.$n")" = 600 ]
		cmp "in.$n" "out.$n"
	done
	# stdin in, stdout out.
	run bash -c 'printf s3cret | "$TPMBOX" seal -o b.stdin && "$TPMBOX" unseal b.stdin'
	assert_success
	assert_output "s3cret"
}

@test "tpm12 seal: commands on the bus: the 2.0 job's first (the family), OSAP, TPM_Sealx (no key generation); unseal: OSAP, OIAP, TPM_Unseal (the blob says 1.2: no probe)" {
	printf 'x' > in
	run bash -c '"$TPMBOX" --trace seal -o b in 2>&1 >/dev/null | grep "^>" | cut -d" " -f2'
	assert_success
	assert_output "$(printf 'TPM2_ReadPublic\nTPM_OSAP\nTPM_Sealx')"
	run bash -c '"$TPMBOX" --trace unseal b 2>&1 >/dev/null | grep "^>" | cut -d" " -f2'
	assert_success
	assert_output "$(printf 'TPM_OSAP\nTPM_OIAP\nTPM_Unseal')"
	# The data key crosses the bus masked: the trace shows TPM_Sealx's
	# parameters, and Unseal's answer is masked in traces anyway.
}

@test "tpm12 seal: -p 0,7 binds to the current sha1 values; an extend of 7 makes unseal exit 4 naming PCR 7, no output" {
	printf 'pcr-bound' > in
	run tb seal -p 0,7 -o b in
	assert_success
	run tb unseal b
	assert_success
	assert_output "pcr-bound"
	tb extend -d 0101010101010101010101010101010101010101 7
	run tb unseal -o out b
	assert_failure 4
	assert_output --partial "the PCRs are not in the sealed state (changed: sha1:7)"
	[ ! -e out ]
}

@test "tpm12 seal: predicted values (-p sha1:8=HEX), TPM_PCR_INFO_LONG for PCR 16: unseal only in that state" {
	printf 'later' > in
	old=$(tb pcrread sha1:8 | awk '{print $2}')
	[ ${#old} -eq 40 ]
	d=0202020202020202020202020202020202020202
	want=$(ext "$old" "$d")
	run tb seal -p "sha1:8=$want" -o b in
	assert_success
	run tb unseal b
	assert_failure 4
	assert_output --partial "changed: sha1:8"
	tb extend -d "$d" 8
	run tb unseal b
	assert_success
	assert_output "later"
	# A PCR of 16 or more: the long form (localities); PCR 16 resets.
	run tb seal -p sha1:0,16 -o b16 in
	assert_success
	run tb unseal b16
	assert_success
	assert_output "later"
}

@test "tpm12 seal: --auth: right password opens, wrong one exit 4, none given exit 4 before the TPM, given for a blob without one exit 2" {
	printf 'pw' > in
	run tb seal --auth str:hunter2 -o b in
	assert_success
	run tb unseal --auth str:hunter2 b
	assert_success
	assert_output "pw"
	run tb unseal --auth str:hunter3 -o out b
	assert_failure 4
	assert_output --partial "wrong password (--auth)"
	[ ! -e out ]
	run bash -c '"$TPMBOX" --trace unseal b 2>&1'
	[ "$status" -eq 4 ]
	[[ "$output" == *"sealed with a password: give --auth"* ]]
	[[ "$output" != *"TPM_Unseal"* ]]
	tb seal -o b2 in
	run tb unseal --auth str:x b2
	assert_failure 2
	assert_output --partial "sealed without a password; drop --auth"
}

@test "tpm12 seal: what a 1.2 cannot do is a usage error naming it (exit 2)" {
	printf 'x' > in
	run tb seal -p sha256:0 -o b in
	assert_failure 2
	assert_output --partial "its only PCR bank is sha1, not sha256"
	run tb seal -p 0 -p 7 -o b in
	assert_failure 2
	assert_output --partial "one PCR state"
	run tb seal -p sha1:24 -o b in
	assert_failure 2
	run tb seal --format age -o b in
	assert_failure 2
	assert_output --partial "--format: tpmbox or tpm-tools"
	run tb seal --format tpm-tools --auth str:x -o b in
	assert_failure 2
	assert_output --partial "fixed data value"
	[ ! -e b ]
}

@test "tpm12 seal: a wrong --srk-auth is exit 4 on seal and unseal" {
	printf 'x' > in
	run tb seal --srk-auth str:wrong -o b in
	assert_failure 4
	[ ! -e b ]
	tb seal -o b in
	run tb unseal --srk-auth str:wrong b
	assert_failure 4
	# The well-known value spelled out is the default.
	run tb unseal --srk-auth hex:0000000000000000000000000000000000000000 b
	assert_failure 4	# hex: is the value's bytes, SHA-1'd: not 20 zeros
	run tb unseal b
	assert_success
}

@test "tpm12 seal: damaged blobs are refused before or by the TPM, exit 1, no output" {
	head -c 300 /dev/urandom > in
	tb seal -p 0 -o b in
	# Magic, version, flags.
	cp b m; flip12 m 0
	run tb unseal -o out m
	assert_failure 1
	assert_output --partial "no TB12 magic"
	cp b v; flip12 v 5
	run tb unseal -o out v
	assert_failure 1
	assert_output --partial "format version"
	cp b f; flip12 f 7
	run tb unseal -o out f
	assert_failure 1
	# A recorded PCR value (21 bytes before the IV and tag: the last
	# value's last byte is 29 bytes before the end of the head).
	len=$(sed '1d;$d' b | base64 -d | wc -c)
	cp b r; flip12 r $(( len - 300 - 28 - 1 ))
	run tb unseal -o out r
	assert_failure 1
	assert_output --partial "recorded PCR values are not the ones sealed to"
	# The ciphertext: the GCM tag fails.
	cp b c; flip12 c $(( len - 5 ))
	run tb unseal -o out c
	assert_failure 1
	assert_output --partial "fails its integrity check"
	# The sealed key's encData: the TPM refuses it.
	cp b k; flip12 k 40
	run tb unseal -o out k
	assert_failure 1
	# Truncated.
	head -n 3 b > t
	run tb unseal -o out t
	assert_failure 1
	[ ! -e out ]
}

@test "tpm12 seal: a 2.0 blob on this 1.2 is refused in one sentence" {
	cat > b20 <<'EOF'
-----BEGIN TSS2 PRIVATE KEY-----
MBYGBmeBBQoBBaADAQH/AgRAAAABBAAEAA==
-----END TSS2 PRIVATE KEY-----
EOF
	run tb unseal b20
	assert_failure
	[ "${#lines[@]}" -ge 1 ]
	[[ "${lines[0]}" == "tpmbox unseal: "* ]]
}

# --- tpm-tools' file, both ways --------------------------------------

# tools_seal NAME [PCR...]: tpm_sealdata -z through tcsd.
tools_seal() {
	local name=$1; shift
	local args=() p
	for p in "$@"; do args+=(-p "$p"); done
	tcsd_start
	tpm_sealdata -z -i in -o "$name" "${args[@]}"
	tcsd_stop
}

@test "tpm12 seal: tpmbox unseals tpm_sealdata's files: no PCR, PCRs 0,7, PCRs 0,16" {
	head -c 5000 /dev/urandom > in
	tools_seal nopcr.tss
	tools_seal p07.tss 0 7
	tools_seal p016.tss 0 16
	for f in nopcr p07 p016; do
		run tb unseal -o "$f.out" "$f.tss"
		assert_success
		cmp in "$f.out"
	done
	# After PCR 7 changes, its file is refused (exit 4), the others not.
	tb extend -d 0303030303030303030303030303030303030303 7
	run tb unseal -o p07.out2 p07.tss
	assert_failure 4
	[ ! -e p07.out2 ]
	run tb unseal -o p016.out2 p016.tss
	assert_success
	# --auth means nothing to tpm-tools' file.
	run tb unseal --auth str:password nopcr.tss
	assert_failure 2
}

@test "tpm12 seal: tpm_unsealdata -z opens seal --format tpm-tools: no PCR, PCRs 0,7, PCRs 0,16; refuses after PCR 7 changes" {
	head -c 5000 /dev/urandom > in
	for spec in none 0,7 sha1:0,16; do
		p=(); [ "$spec" = none ] || p=(-p "$spec")
		run tb seal --format tpm-tools "${p[@]}" -o "$spec.tss" in
		assert_success
		head -n 2 "$spec.tss" | tr '\n' '|' | grep -qx -- '-----BEGIN TSS-----|-----TSS KEY-----|'
	done
	tcsd_start
	for spec in none 0,7 sha1:0,16; do
		rm -f out
		tpm_unsealdata -z -i "$spec.tss" -o out
		cmp in out
	done
	tcsd_stop
	tb extend -d 0404040404040404040404040404040404040404 7
	tcsd_start
	run tpm_unsealdata -z -i 0,7.tss -o out2
	assert_failure
	tcsd_stop
	# tpmbox reads its own tpm-tools file back too, and refuses likewise.
	run tb unseal -o o1 none.tss
	assert_success
	cmp in o1
	run tb unseal 0,7.tss
	assert_failure 4
}

@test "tpm12 seal: --format tpm-tools refuses escrow copies (tpm_unsealdata's file has no room)" {
	printf 'x' > in
	openssl req -x509 -newkey rsa:2048 -nodes -keyout k.pem -out c.pem -subj /CN=e -days 1 2>/dev/null
	run tb seal --format tpm-tools --escrow c.pem -o b in
	assert_failure 2
	assert_output --partial "no room for escrow copies"
	# tpmbox's own 1.2 blob carries them, and recover opens them with no TPM.
	run tb seal --escrow c.pem -o b in
	assert_success
	run tb recover -k k.pem b
	assert_success
	assert_output "x"
}

# pcr_liar SOCK TARGET: an interposer that forwards every command to
# TARGET and flips the last byte of each TPM_PcrRead answer (the value).
pcr_liar() {
	python3 - "$1" "$2" <<'PY' 3>&- &
import os, socket, struct, sys
lsn, tgt = sys.argv[1], sys.argv[2]
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(lsn); srv.listen(1)
def recv_msg(s):
    b = b""
    while len(b) < 6 or len(b) < struct.unpack(">I", b[2:6])[0]:
        d = s.recv(65536)
        if not d:
            return None
        b += d
    return b
while True:
    c, _ = srv.accept()
    t = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); t.connect(tgt)
    while True:
        cmd = recv_msg(c)
        if cmd is None:
            break
        t.sendall(cmd)
        r = recv_msg(t)
        if cmd[6:10] == b"\x00\x00\x00\x15" and len(r) == 30:
            r = r[:-1] + bytes([r[-1] ^ 1])
        c.sendall(r)
    c.close(); t.close()
PY
	LIAR=$!
	for _ in $(seq 1 100); do [ -S "$1" ] && return 0; sleep 0.05; done
	return 1
}

@test "tpm12 seal: an interposer that changes TPM_PcrRead's answers cannot get a blob sealed to its values (the TPM's digestAtCreation disagrees): exit 3, no blob" {
	F=$BATS_TEST_TMPDIR/f12
	mkdir -p "$F"
	swtpm_setup --tpm-state "$F" --createek --lock-nvram >/dev/null 2>&1
	swtpm12_dir_up "$F"
	"$TPMBOX" -T "swtpm:path=$F/sock" takeown >/dev/null
	pcr_liar "$F/liar.sock" "$F/sock"
	printf 'x' > in
	for fmt in tpmbox tpm-tools; do
		run "$TPMBOX" -T "swtpm:path=$F/liar.sock" seal --format "$fmt" -p 0,7 -o "b.$fmt" in
		assert_failure 3
		assert_output --partial "the PCR values read are not the TPM's"
		[ ! -e "b.$fmt" ]
	done
	# Given values are not read: the liar changes nothing then, and the
	# blob unseals (the control: the same path works).
	v0=$("$TPMBOX" -T "swtpm:path=$F/sock" pcrread sha1:0 | awk '{print $2}')
	run "$TPMBOX" -T "swtpm:path=$F/liar.sock" seal -p "0=$v0" -o b.given in
	assert_success
	run "$TPMBOX" -T "swtpm:path=$F/sock" unseal b.given
	assert_success
	assert_output "x"
	kill "$LIAR"
	swtpm12_dir_down "$F"
}
