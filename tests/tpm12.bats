#!/usr/bin/env bats
# getrandom, pcrread, extend and info on a TPM 1.2 (swtpm in 1.2 mode, EK
# made and NV locked by swtpm_setup).  Known answers come from a raw
# client written here in Python (hashlib, the socket) and from sha1sum,
# never from tpmbox itself.

load helpers/common
load helpers/tcsd

setup_file() { swtpm12_start; }
teardown_file() { swtpm_stop; }

FAKE=$BATS_TEST_DIRNAME/helpers/faketpm.py

# raw12 HEX: send one command to the swtpm, print the response in hex.
raw12() {
	python3 - "$SWTPM_DIR/sock" "$1" <<'PY'
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(bytes.fromhex(sys.argv[2]))
r = b""
while len(r) < 6 or len(r) < struct.unpack(">I", r[2:6])[0]:
    d = s.recv(65536)
    if not d:
        break
    r += d
print(r.hex())
PY
}

# The PCR's value by a raw TPM_PcrRead.
pcr12() {
	local r
	r=$(raw12 "00c10000000e00000015$(printf '%08x' "$1")")
	[ "${r:0:20}" = "00c40000001e00000000" ] || { echo "raw PcrRead: $r" >&2; return 1; }
	echo "${r:20}"
}

# SHA-1(old || digest) in hex.
ext() { python3 -c 'import hashlib,sys; print(hashlib.sha1(bytes.fromhex(sys.argv[1]) + bytes.fromhex(sys.argv[2])).hexdigest())' "$1" "$2"; }

fake() {
	F=$BATS_TEST_TMPDIR/fake.sock
	rm -f "$F"
	python3 "$FAKE" "$F" "$1" "$BATS_TEST_TMPDIR/fake.log" 3>&- &
	FAKEPID=$!
	for _ in $(seq 1 100); do [ -S "$F" ] && return 0; sleep 0.05; done
	return 1
}

teardown() {
	[ -z "${FAKEPID:-}" ] || kill "$FAKEPID" 2>/dev/null || true
	[ -z "${OWNPID:-}" ] || kill "$OWNPID" 2>/dev/null || true
}

@test "tpm12: the family comes from the first answer: the 2.0 command, refused by the 1.2, then 1.2 commands only" {
	run bash -c '"$TPMBOX" --trace getrandom 4 2>&1 >/dev/null | grep "^[<>]"'
	assert_success
	assert_line --index 0 "> TPM2_GetRandom (12 bytes)"
	assert_line --index 1 "< TPM2_GetRandom (10 bytes)"
	assert_line --index 2 "> TPM_GetRandom (14 bytes)"
	[ "${#lines[@]}" -eq 4 ]
	# pcrread of PCRs named one by one: TPM2_PCR_Read is the first (no
	# allocation asked for, on a 2.0 either), then the 1.2's own read.
	run bash -c '"$TPMBOX" --trace pcrread sha1:0 2>&1 >/dev/null | grep "^>"'
	assert_output "> TPM2_PCR_Read (20 bytes)
> TPM_PcrRead (14 bytes)"
	# pcrread all and extend: TPM2_GetCapability(PCRS) is the first.
	run bash -c '"$TPMBOX" --trace pcrread 2>&1 >/dev/null | grep "^>" | head -2'
	assert_output "> TPM2_GetCapability (22 bytes)
> TPM_GetCapability (22 bytes)"
	# info asks with the kernel's probe (tpm_family), which swtpm 1.2
	# refuses as TPM_BAD_ORDINAL without doing anything.
	run bash -c '"$TPMBOX" --trace info 2>&1 >/dev/null | grep "^[<>]" | head -3'
	assert_line --index 0 "> TPM2_GetCapability (22 bytes)"
	assert_line --index 1 "< TPM2_GetCapability (10 bytes)"
	assert_line --index 2 "> TPM_GetCapability (18 bytes)"
	[ "$(raw12 8001000000160000017a000000060000012900000001)" = 00c40000000a0000000a ]
}

@test "tpm12: getrandom of 1, 4096 and 100000 bytes" {
	for n in 1 4096 100000; do
		[ "$(tb getrandom "$n" | wc -c)" -eq "$n" ]
	done
	run tb getrandom --hex 16
	assert_success
	[[ "$output" =~ ^[0-9a-f]{32}$ ]]
	[ "$(tb getrandom --hex 32)" != "$(tb getrandom --hex 32)" ]
	tb getrandom -o "$BATS_TEST_TMPDIR/r" 100
	[ "$(stat -c %s "$BATS_TEST_TMPDIR/r")" -eq 100 ]
}

@test "tpm12: getrandom loops when the TPM returns fewer bytes than asked" {
	# swtpm 1.2 gives 4082 of 4096: a second TPM_GetRandom makes up.
	n=$("$TPMBOX" --trace getrandom 4096 2>&1 >/dev/null | grep -c '^> TPM_GetRandom')
	[ "$n" -ge 2 ]
	fake tpm12short
	run bash -c '"$TPMBOX" -T "swtpm:path=$1" getrandom 4096 | wc -c' _ "$F"
	assert_success
	assert_output 4096
	[ "$(grep -c '^0x46$' "$BATS_TEST_TMPDIR/fake.log")" -eq 5 ]
}

@test "tpm12: getrandom refuses more bytes than asked, and trailing bytes" {
	fake tpm12big
	run tb -T "swtpm:path=$F" getrandom 8
	assert_failure 3
	assert_output --partial "TPM_GetRandom: the TPM returned more bytes than the 8 asked for"
	teardown; sleep 0.1
	fake tpm12trail
	run tb -T "swtpm:path=$F" getrandom 8
	assert_failure 3
	assert_output --partial "TPM_GetRandom: 2 unexpected bytes after the response"
}

@test "tpm12: an SRK pin is a usage error on a TPM 1.2, before any session" {
	run tb getrandom --srk-name 000b0000000000000000000000000000000000000000000000000000000000000000 4
	assert_failure 2
	assert_output --partial "this TPM is a TPM 1.2, and an SRK pin (--srk-name, --srk-pub, TPMBOX_SRK) is for a TPM 2.0"
	TPMBOX_SRK=000b0000000000000000000000000000000000000000000000000000000000000000 run tb pcrread sha1:0
	assert_failure 2
	assert_output --partial "an SRK pin"
	# No session command was sent: one 2.0 command (reading the SRK),
	# refused by the 1.2, then nothing.
	run bash -c 'TPMBOX_SRK=000b0000000000000000000000000000000000000000000000000000000000000000 "$TPMBOX" --trace extend 9 -s x 2>&1 | grep "^>"'
	assert_output "> TPM2_ReadPublic (14 bytes)"
}

@test "tpm12: pcrread sha1:0,7 and the bare 0,7 match a raw TPM_PcrRead" {
	tb extend 7 -s boot
	want="sha1:0 $(pcr12 0)
sha1:7 $(pcr12 7)"
	run tb pcrread sha1:0,7
	assert_success
	assert_output "$want"
	run tb pcrread 0,7
	assert_success
	assert_output "$want"
	run tb pcrread --json sha1:7
	assert_success
	[ "$(jq -r '.sha1["7"]' <<< "$output")" = "$(pcr12 7)" ]
}

@test "tpm12: pcrread all lists the 24 sha1 PCRs; 17-22 read FF..FF" {
	run tb pcrread
	assert_success
	[ "${#lines[@]}" -eq 24 ]
	[ "$(grep -vc '^sha1:' <<< "$output")" -eq 0 ]
	for i in 17 18 19 20 21 22; do
		assert_line "sha1:$i ffffffffffffffffffffffffffffffffffffffff"
		[ "$(pcr12 $i)" = ffffffffffffffffffffffffffffffffffffffff ]
	done
	run tb pcrread 16-23
	assert_success
	[ "${#lines[@]}" -eq 8 ]
}

@test "tpm12: pcrread refuses other banks, saying the TPM is 1.2" {
	for sel in sha256:0 sha1:0+sha256:0 sha384:all; do
		run tb pcrread "$sel"
		assert_failure 2
		assert_output --partial "this TPM is a TPM 1.2, which has only the sha1 bank"
	done
	run tb pcrread 24
	assert_failure 2
	run tb pcrread 0,x
	assert_failure 2
	assert_output --partial "bad PCR index"
}

@test "tpm12: extend -s, -f, -d give SHA-1(old || digest)" {
	old=$(pcr12 10)
	d=$(printf %s hello | sha1sum | cut -d' ' -f1)
	tb extend 10 -s hello
	want=$(ext "$old" "$d")
	[ "$(pcr12 10)" = "$want" ]
	printf 'file contents\n' > "$BATS_TEST_TMPDIR/f"
	d=$(sha1sum "$BATS_TEST_TMPDIR/f" | cut -d' ' -f1)
	run tb extend 10 -f "$BATS_TEST_TMPDIR/f" -v
	assert_success
	want=$(ext "$want" "$d")
	assert_output "sha1:10 $want"
	[ "$(pcr12 10)" = "$want" ]
	d=00112233445566778899aabbccddeeff00112233
	tb extend 10 -d "$d" -b sha1
	want=$(ext "$want" "$d")
	[ "$(pcr12 10)" = "$want" ]
	printf 'stdin' | tb extend 11 -f -
}

@test "tpm12: extend refusals: other banks, digest sizes, PCR range, PCRs 17-22 at locality 0" {
	before=$(pcr12 12)
	run tb extend 12 -s x -b sha256
	assert_failure 2
	assert_output --partial "PCR bank sha256: this TPM is a TPM 1.2, which has only the sha1 bank"
	run tb extend 12 -d "$(printf '%064x' 1)"
	assert_failure 2
	assert_output --partial "no allocated bank has 32-byte digests"
	run tb extend 24 -s x
	assert_failure 2
	assert_output --partial "PCR 24 is out of range: this TPM has PCRs 0-23"
	[ "$(pcr12 12)" = "$before" ]
	for i in 17 22; do
		run tb extend $i -s x
		assert_failure 1
		assert_output --partial "TPM_Extend: TPM_BAD_LOCALITY"
		assert_output --partial "PCRs 17-22 need a higher locality"
		[ "$(pcr12 $i)" = ffffffffffffffffffffffffffffffffffffffff ]
	done
}

@test "tpm12: info reports what the TPM says (raw GetCapability as the oracle)" {
	run tb info
	assert_success
	assert_line "family: 1.2"
	# TPM_CAP_VERSION_VAL: tag 0030, version, specLevel, errataRev,
	# vendor id.
	r=$(raw12 00c100000012000000650000001a00000000)
	[ "${r:0:4}${r:12:8}" = 00c400000000 ]
	body=${r:28}
	[ "${body:0:4}" = 0030 ]
	ver=$(printf '%d.%d.%d.%d' 0x${body:4:2} 0x${body:6:2} 0x${body:8:2} 0x${body:10:2})
	assert_line "version: $ver"
	assert_line "spec level: $((0x${body:12:4})), errata revision $((0x${body:16:2}))"
	# swtpm's manufacturer: "IBM" (TPM_CAP_PROP_MANUFACTURER 0x103).
	r=$(raw12 00c10000001600000065000000050000000400000103)
	[ "${r:20:8}" = 00000004 ]
	[ "${r:28:8}" = 49424d00 ]
	assert_line "manufacturer: IBM"
	assert_line "vendor id: IBM"
	assert_line "owner present: no"
	assert_line "enabled: yes"
	assert_line "activated: yes"
	assert_line "nv locked: yes"
	assert_line "pcr count: 24"
	assert_line "banks: sha1"
	assert_line --regexp '^key slots: [0-9]+, [0-9]+ free, 0 loaded$'
	assert_line "nv indices: 0"
	run tb info --json
	assert_success
	[ "$(jq -r .family <<< "$output")" = 1.2 ]
	[ "$(jq -r .version <<< "$output")" = "$ver" ]
	[ "$(jq -r .manufacturer <<< "$output")" = IBM ]
	[ "$(jq -r .owner <<< "$output")" = false ]
	[ "$(jq -r .activated <<< "$output")" = true ]
	[ "$(jq -r .pcr_count <<< "$output")" = 24 ]
}

@test "tpm12: an applet with no 1.2 path says so in one sentence, exit 2" {
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
		-out "$BATS_TEST_TMPDIR/ec.pem" 2>/dev/null
	for a in "nvincrement 0x1500000" "nvsetbits 0x1500000 1" "nvextend 0x1500000 -d 00" \
		"keycreate -o $BATS_TEST_TMPDIR/k" \
		"keyimport --tofu -i $BATS_TEST_TMPDIR/ec.pem -o $BATS_TEST_TMPDIR/k"; do
		tb --list | grep -q "^${a%% *} " || continue
		run tb $a
		assert_failure 2
		assert_output --partial "this TPM is a TPM 1.2, and this applet works only with a TPM 2.0"
		[ ! -e "$BATS_TEST_TMPDIR/k" ]
	done
}

@test "tpm12: a character device (a pty bridged to the 1.2 swtpm) works the same" {
	command -v socat >/dev/null || skip "socat missing"
	socat PTY,link="$BATS_TEST_TMPDIR/tpm0",rawer,echo=0 UNIX-CONNECT:"$SWTPM_DIR/sock" 3>&- &
	FAKEPID=$!
	for _ in $(seq 1 100); do [ -e "$BATS_TEST_TMPDIR/tpm0" ] && break; sleep 0.05; done
	run tb -T "device:$BATS_TEST_TMPDIR/tpm0" pcrread sha1:17
	assert_success
	assert_output "sha1:17 ffffffffffffffffffffffffffffffffffffffff"
}

# A second 1.2 swtpm, owned (owner password "opass"), for the sessions;
# owned12 wk: owned by tpmbox takeown with the well-known values instead
# (the SRK's value 20 zero bytes).
owned12() {
	O=$BATS_TEST_TMPDIR/owned
	mkdir -p "$O"
	if [ "${1:-}" = wk ]; then
		swtpm_setup --tpm-state "$O" --createek --lock-nvram >/dev/null 2>&1
	else
		swtpm_setup --tpm-state "$O" --take-ownership --ownerpass opass \
			--srk-well-known --lock-nvram >/dev/null 2>&1
	fi
	swtpm socket --server type=unixio,path="$O/sock" \
		--ctrl type=unixio,path="$O/sock.ctrl" --tpmstate dir="$O" \
		--flags not-need-init,startup-clear --pid file="$O/pid" \
		>/dev/null 2>&1 3>&- &
	OWNPID=$!
	for _ in $(seq 1 100); do [ -S "$O/sock" ] && break; sleep 0.05; done
	if [ "${1:-}" = wk ]; then
		"$TPMBOX" -T "swtpm:path=$O/sock" takeown >/dev/null
	fi
	S12=$BATS_FILE_TMPDIR/sess12
	local root="$BATS_TEST_DIRNAME/.."
	[ -x "$S12" ] || cc -std=c11 -D_GNU_SOURCE -O1 -I"$root/include" -o "$S12" \
		"$root/tests/helpers/sess12.c" "$root"/lib/*/*.c -lmbedx509 -lmbedcrypto
}

@test "tpm12: OIAP and OSAP sessions: command HMAC accepted, response HMAC verified, session ended; a wrong owner auth is exit 4" {
	owned12
	T="swtpm:path=$O/sock"
	run "$S12" "$T" oiap opass
	assert_success
	# TPM_VERSION 1.2, then the flags: the same through either session.
	[[ "$output" =~ ^0102 ]]
	want=$output
	run "$S12" "$T" osap opass
	assert_success
	assert_output "$want
$want"
	run "$S12" "$T" flush opass
	assert_success
	for m in oiap osap; do
		run "$S12" "$T" $m wrong
		assert_failure 4
		assert_output --partial "TPM_AUTHFAIL"
	done
	# No session is left behind: after 20 runs the TPM lists none
	# (a full TPM would no longer tell: a full one has leftovers flushed).
	for i in $(seq 1 20); do "$S12" "$T" oiap opass >/dev/null; done
	[ "$(loaded12 auth)" = 0 ]
}

# loaded12 key|auth: how many keys or sessions the owned TPM holds
# (TPM_GetCapability TPM_CAP_HANDLE, TPM_RT_KEY 1 or TPM_RT_AUTH 2).
loaded12() {
	local rt=1 r
	[ "$1" = auth ] && rt=2
	r=$(SWTPM_DIR=$O raw12 "00c1000000160000006500000014000000040000000$rt")
	[ "${r:0:4}" = 00c4 ] && [ "${r:12:8}" = 00000000 ] ||
		{ echo "raw GetCapability: $r" >&2; return 1; }
	echo $((16#${r:28:4}))
}

@test "tpm12: keys and sessions a killed process left are flushed when the TPM is full (no resource manager on a 1.2): seal --format tpm-tools and unseal load a key and open sessions in a full TPM" {
	owned12 wk
	T="swtpm:path=$O/sock"
	run "$S12" "$T" fill opass
	assert_success
	echo "$output"
	# The control: the TPM is full (the helper saw TPM_NOSPACE and
	# TPM_RESOURCES), and keeps what the exited process left.
	[[ "$output" =~ ^keys\ ([0-9]+)\ sessions\ ([0-9]+)$ ]]
	keys=${BASH_REMATCH[1]} sess=${BASH_REMATCH[2]}
	[ "$keys" -ge 2 ]
	[ "$sess" -ge 2 ]
	[ "$(loaded12 key)" = "$keys" ]
	[ "$(loaded12 auth)" = "$sess" ]
	head -c 32 /dev/urandom > "$BATS_TEST_TMPDIR/in"
	cd "$BATS_TEST_TMPDIR"
	# TPM_CreateWrapKey and TPM_LoadKey2 with OSAP and OIAP sessions:
	# each finds room once the leftovers are gone.
	run "$TPMBOX" -T "$T" seal --format tpm-tools -o b.tss in
	assert_success
	[ "$(loaded12 key)" = 0 ]
	[ "$(loaded12 auth)" = 0 ]
	"$S12" "$T" fill opass
	run "$TPMBOX" -T "$T" unseal -o out b.tss
	assert_success
	cmp in out
	# The same with a tpmbox blob (TPM_Sealx: sessions only)
	"$S12" "$T" fill opass
	run "$TPMBOX" -T "$T" seal -o b.tpmbox in
	assert_success
	"$S12" "$T" fill opass
	run "$TPMBOX" -T "$T" unseal -o out2 b.tpmbox
	assert_success
	cmp in out2
}

# reset12: TPM_Init and TPM_Startup(ST_CLEAR) on the owned TPM: the
# sessions damaged answers left open are gone (16 slots).
reset12() {
	swtpm_ioctl --unix "$O/sock.ctrl" -i >/dev/null
	[ "$(SWTPM_DIR=$O raw12 00c10000000c000000990001)" = 00c40000000a00000000 ]
}

@test "tpm12: damaged responses: sessions never act on a changed answer; applets fail cleanly" {
	owned12
	srk=$("$TPMBOX" -T "swtpm:path=$O/sock" takeown --owner-auth str:opass)
	seed=${TPM12_SEED:-$RANDOM}
	echo "faketpm mutate seed $seed"
	want=$("$S12" "swtpm:path=$O/sock" oiap opass)
	FAKETPM_TARGET=$O/sock FAKETPM_SEED=$seed fake mutate
	d=$BATS_TEST_TMPDIR
	oks=0 fails=0
	for i in $(seq 1 40); do
		set +e
		timeout 10 "$S12" "swtpm:path=$F" oiap opass > "$d/out" 2> "$d/err"
		rc=$?
		set -e
		case $rc in
		0) oks=$((oks + 1)); [ "$(cat "$d/out")" = "$want" ] ;;
		# A damaged OIAP answer (handle, nonce) makes the TPM refuse
		# the next command (1: bad handle, 4: auth failure, 5: its
		# dictionary-attack defence after a few); 3: tpmbox refused
		# the answer.  Always with a message.
		1|3|4|5) fails=$((fails + 1))
			grep -q '^sess12: ' "$d/err" ;;
		*) echo "sess12 exit $rc"; cat "$d/err"; false ;;
		esac
		# The session's end is not part of the check: a damaged
		# answer can leave it open; flush what is left.
	done
	echo "sessions: $oks ok, $fails refused"
	[ "$fails" -gt 0 ]
	# dalock --reset through the same damage: an exit 0 means the
	# TPM's own count (read raw, past the proxy) is 0 right after.
	reset12
	roks=0 rfails=0
	for i in $(seq 1 30); do
		set +e
		timeout 10 "$TPMBOX" -T "swtpm:path=$F" dalock --reset \
			--owner-auth str:opass > "$d/out" 2> "$d/err"
		rc=$?
		set -e
		case $rc in
		0)	roks=$((roks + 1))
			r=$(SWTPM_DIR=$O raw12 00c100000016000000650000001900000004$(printf '%08x' 2))
			[ "${r:34:4}" = 0000 ] || { echo "exit 0 but count ${r:34:4}: $r"; false; } ;;
		1|3|4|5) rfails=$((rfails + 1))
			grep -q '^tpmbox dalock: ' "$d/err" || { cat "$d/err"; false; } ;;
		*)	echo "dalock exit $rc"; cat "$d/err"; false ;;
		esac
	done
	echo "dalock --reset: $roks ok, $rfails failed cleanly"
	[ "$rfails" -gt 0 ]
	# takeown on the owned TPM through the same damage: an exit 0 means
	# the owner value was confirmed and the SRK is the TPM's own.
	reset12
	toks=0 tfails=0
	for i in $(seq 1 30); do
		set +e
		timeout 10 "$TPMBOX" -T "swtpm:path=$F" takeown \
			--owner-auth str:opass > "$d/out" 2> "$d/err"
		rc=$?
		set -e
		case $rc in
		0)	toks=$((toks + 1))
			[ "$(cat "$d/out")" = "$srk" ] || { echo "exit 0, SRK $(cat "$d/out")"; false; } ;;
		1|3|4|5) tfails=$((tfails + 1))
			grep -q '^tpmbox takeown: ' "$d/err" || { cat "$d/err"; false; } ;;
		*)	echo "takeown exit $rc"; cat "$d/err"; false ;;
		esac
	done
	echo "takeown: $toks ok, $tfails failed cleanly"
	[ "$tfails" -gt 0 ]

	kill "$FAKEPID"; sleep 0.1
	FAKETPM_TARGET=$SWTPM_DIR/sock FAKETPM_SEED=$seed fake mutate
	oks=0 fails=0
	for i in $(seq 1 25); do
		for cmd in "info --json" "pcrread --json sha1:0-23" "getrandom --hex 300" "extend 9 -s x -v" "dalock --json"; do
			set +e
			timeout 10 "$TPMBOX" -T "swtpm:path=$F" $cmd > "$d/out" 2> "$d/err"
			rc=$?
			set -e
			case $rc in
			0)	oks=$((oks + 1))
				case $cmd in
				info*|pcrread*|dalock*) jq . "$d/out" >/dev/null ;;
				esac ;;
			1|2|3)	fails=$((fails + 1))
				grep -q '^tpmbox [a-z]*: ' "$d/err" || { echo "no message: $cmd"; cat "$d/err"; false; } ;;
			*)	echo "$cmd: exit $rc"; cat "$d/err"; false ;;
			esac
		done
	done
	echo "applets: $oks ok, $fails failed cleanly"
	[ "$oks" -gt 0 ]
	[ "$fails" -gt 0 ]
}

@test "tpm12: dalock: the DA state as TPM_DA_INFO says; wrong owner values counted into lockout; --reset with the owner value tpm_takeownership -y -z set; tpm_resetdalock agrees" {
	(
		unset TCSD_DIR SWTPM12_DIR SWTPM12_PORT TSS_TCSD_PORT
		trap tpm12_oracle_stop EXIT
		swtpm12_tcp_start && tcsd_start || exit 1
		tpm_takeownership -y -z || exit 1
		tcsd_stop
		# The raw TPM_DA_INFO: tag 0037, state, currentCount,
		# thresholdCount (the oracle for the counts).
		da() { tpm12_raw 00c100000016000000650000001900000004$(printf '%08x' 2); }
		r=$(da)
		[[ $r == 00c4000000230000000000000015003700* ]] || { echo "raw: $r"; exit 1; }
		max=$((16#${r:38:4}))
		out=$(tb dalock) || exit 1
		echo "$out" | grep -qx "failures: 0 of $max" || { echo "$out"; exit 1; }
		echo "$out" | grep -qx "in lockout: no" || exit 1
		# Wrong owner values: exit 4 each, counted by the TPM.  They
		# go to an owner command other than TPM_ResetLockValue: a
		# failed ResetLockValue also disables ResetLockValue itself
		# for a while (disableResetLock), even with the right value.
		for i in 1 2; do
			rc=0
			tb takeown --owner-auth str:wrong 2>"$BATS_TEST_TMPDIR/err" || rc=$?
			[ $rc = 4 ] || { cat "$BATS_TEST_TMPDIR/err"; exit 1; }
		done
		r=$(da)
		[ "${r:34:4}" = 0002 ] || { echo "raw count after 2: $r"; exit 1; }
		json=$(tb dalock --json) || exit 1
		[ "$(jq .failures <<<"$json")" = 2 ] || { echo "$json"; exit 1; }
		[ "$(jq -r .family <<<"$json")" = 1.2 ] || exit 1
		# The well-known owner value (tpm-tools' -z) resets the count.
		out=$(tb dalock --reset) || { echo "reset: $out"; exit 1; }
		echo "$out" | grep -qx "failures: 0 of $max" || { echo "$out"; exit 1; }
		r=$(da)
		[ "${r:34:4}" = 0000 ] || { echo "raw count after reset: $r"; exit 1; }
		# Into lockout: one more wrong try than the threshold; the TPM
		# defends (state 1) for a time (swtpm: 1 s), the count stays.
		for i in $(seq 1 "$max"); do
			tb takeown --owner-auth str:wrong 2>/dev/null || true
		done
		# libtpms keeps the lockout in whole seconds of its clock
		# (1 s, doubled with each further failure): one that started
		# late in a second may be over at the next second's start.
		# So a "no" is taken only when a second boundary passed
		# between the try and the answer, and then the next wrong
		# try (counted again, 2 s) must show it.
		want=$((max + 1)) locked=
		for attempt in 1 2 3; do
			t0=$(date +%s)
			tb takeown --owner-auth str:wrong 2>/dev/null || true
			json=$(tb dalock --json) || exit 1
			t1=$(date +%s)
			[ "$(jq .failures <<<"$json")" = $want ] || { echo "$json"; exit 1; }
			if [ "$(jq .in_lockout <<<"$json")" = true ]; then
				locked=y; break
			fi
			[ "$t1" -gt "$t0" ] || { echo "no lockout within one second: $json"; exit 1; }
			want=$((want + 1))
		done
		[ -n "$locked" ] || { echo "never in lockout: $json"; exit 1; }
		r=$(da)
		[ "${r:34:4}" = "$(printf '%04x' $want)" ] || { echo "raw: $r"; exit 1; }
		# ... and it ends by itself (at most 4 s here).
		for i in $(seq 1 60); do
			json=$(tb dalock --json) || exit 1
			[ "$(jq .in_lockout <<<"$json")" = false ] && break
			sleep 0.1
		done
		[ "$(jq .in_lockout <<<"$json")" = false ] || { echo "lockout did not end: $json"; exit 1; }
		# tpm-tools' own reset (through tcsd, owner -z) clears it, and
		# tpmbox reads the TPM's word for it.
		tcsd_start || exit 1
		tpm_resetdalock -z || exit 1
		tcsd_stop
		json=$(tb dalock --json) || exit 1
		[ "$(jq .failures <<<"$json")" = 0 ] || { echo "$json"; exit 1; }
		[ "$(jq .in_lockout <<<"$json")" = false ] || { echo "$json"; exit 1; }
		# A wrong value for the reset itself: exit 4, counted, and
		# said so.
		rc=0
		tb dalock --reset --owner-auth str:wrong 2>"$BATS_TEST_TMPDIR/err" || rc=$?
		[ $rc = 4 ] || { cat "$BATS_TEST_TMPDIR/err"; exit 1; }
		grep -q "the owner value is wrong" "$BATS_TEST_TMPDIR/err" || exit 1
		grep -q "refuses even the right value for a while" "$BATS_TEST_TMPDIR/err" || exit 1
		r=$(da)
		[ "${r:34:4}" = 0001 ] || { echo "raw count after a wrong reset: $r"; exit 1; }
		exit 0
	)
}

@test "tpm12: dalock refusals: --set and --lockout-auth have no 1.2 meaning; --owner-auth only with --reset; no owner" {
	run tb dalock --set 3,10,10
	assert_failure 2
	assert_output --partial "this TPM is a TPM 1.2: it has no command to set the dictionary-attack parameters"
	run tb dalock --reset --lockout-auth str:x
	assert_failure 2
	assert_output --partial "it has no lockout value"
	run tb dalock --owner-auth str:x
	assert_failure 2
	assert_output --partial "--owner-auth is for --reset"
	# This suite's TPM has no owner: the reset says so.
	run tb dalock --reset
	assert_failure 1
	assert_output --partial "TPM_ResetLockValue: TPM_NOSRK"
	run tb dalock
	assert_success
	assert_line "in lockout: no"
}

@test "tpm12: takeown: TPM_TakeOwnership with the well-known values; tpm-tools through tcsd then works as owner (tpm_getpubek -z, tpm_nvinfo) and seals under the SRK; a re-run sends no TakeOwnership" {
	(
		unset TCSD_DIR SWTPM12_DIR SWTPM12_PORT TSS_TCSD_PORT
		trap tpm12_oracle_stop EXIT
		swtpm12_tcp_start || exit 1
		d=$BATS_TEST_TMPDIR
		out=$(tb takeown --dry-run) || exit 1
		[ "$out" = "ownership: needed (not owned)" ] || { echo "$out"; exit 1; }
		hash=$(tb takeown -v --srk-pub "$d/srk.pem" 2>"$d/err") || { cat "$d/err"; exit 1; }
		[[ $hash =~ ^[0-9a-f]{40}$ ]] || { echo "$hash"; exit 1; }
		grep -qx "takeown: ownership: done (TPM_TakeOwnership, RSA-2048 SRK)" "$d/err" || exit 1
		openssl pkey -pubin -in "$d/srk.pem" -noout -text | grep -q "(2048 bit)" || exit 1
		# Again: owned, the owner value confirmed, the same SRK, and no
		# TakeOwnership on the wire.
		tb --trace takeown --json >"$d/json" 2>"$d/trace" || exit 1
		grep -q TPM_TakeOwnership "$d/trace" && { echo "TakeOwnership sent again"; exit 1; }
		grep -q TPM_OwnerReadInternalPub "$d/trace" || exit 1
		[ "$(jq -r '.steps[0].result' "$d/json")" = already ] || exit 1
		[ "$(jq -r .srk_hash "$d/json")" = "$hash" ] || exit 1
		# A wrong owner value: exit 4, nothing changed.
		rc=0; tb takeown --owner-auth str:other 2>"$d/err" || rc=$?
		[ $rc = 4 ] || { cat "$d/err"; exit 1; }
		grep -q "has an owner, and the owner value given is not its value" "$d/err" || exit 1
		tb nvdefine 0x00011001 -s 8 >/dev/null || exit 1
		# tpm-tools as the owner (well-known, -z) and under the SRK
		# (well-known): tcsd needs its SRK entry (TPM12.md).
		tcsd_load_ps "$(tcsd_srk_ps)" || exit 1
		tcsd_start || exit 1
		tpm_getpubek -z >"$d/pubek" || exit 1
		grep -qi "public key" "$d/pubek" || { cat "$d/pubek"; exit 1; }
		tpm_takeownership -y -z 2>/dev/null && { echo "owned twice"; exit 1; }
		# tpm_nvinfo lists the index tpmbox defined as this owner
		tpm_nvinfo -n >"$d/nvinfo" || exit 1
		grep -q "0x00011001" "$d/nvinfo" || { cat "$d/nvinfo"; exit 1; }
		head -c 300 /dev/urandom >"$d/in"
		tpm_sealdata -z -i "$d/in" -o "$d/sealed" || exit 1
		tpm_unsealdata -z -i "$d/sealed" -o "$d/out" || exit 1
		cmp "$d/in" "$d/out" || exit 1
		exit 0
	)
}

@test "tpm12: takeown with owner and SRK values: encrypted to the EK, never on the bus; tpm_getpubek takes that owner password (a wrong one refused); no EK: a clear refusal; TPM 2.0 options refused" {
	(
		unset TCSD_DIR SWTPM12_DIR SWTPM12_PORT TSS_TCSD_PORT
		trap tpm12_oracle_stop EXIT
		swtpm12_tcp_start || exit 1
		d=$BATS_TEST_TMPDIR
		tb --trace takeown --owner-auth str:opw-1 --srk-auth str:spw-1 >"$d/hash" 2>"$d/trace" || { cat "$d/trace"; exit 1; }
		for v in opw-1 spw-1; do
			h=$(printf %s "$v" | sha1sum | cut -d' ' -f1)
			grep -qi "$h" "$d/trace" && { echo "$v's auth on the bus"; exit 1; }
		done
		# positive control: the trace has the command's own bytes
		# (tag 00c2, ordinal 0000000d, protocol 0005), so the check
		# above reads what crossed the bus
		grep -q TPM_TakeOwnership "$d/trace" || exit 1
		grep -Eq "^  00c2[0-9a-f]{8}0000000d0005" "$d/trace" || { cat "$d/trace"; exit 1; }
		# the owner value is SHA-1 of the AUTH bytes: dalock --reset
		# (owner-authorized) takes it, and refuses the well-known one
		tb dalock --reset --owner-auth str:opw-1 >/dev/null || exit 1
		rc=0; tb dalock --reset 2>/dev/null || rc=$?
		[ $rc = 4 ] || exit 1
		out=$(tb takeown --owner-auth str:opw-1) || exit 1
		[ "$out" = "$(cat "$d/hash")" ] || exit 1
		rc=0; tb takeown --owner-auth str:opw-1 --max-tries 3 2>"$d/err" || rc=$?
		[ $rc = 2 ] || exit 1
		grep -q "the others are TPM 2.0's" "$d/err" || exit 1
		# tpm-tools as this owner: tpm_getpubek asks for the owner
		# password on the terminal (a pty from script(1)); the wrong
		# one is refused, so the check can fail
		tcsd_start || exit 1
		# (typed once the prompt is up)
		typed() { sleep 1; printf '%s\r' "$1"; sleep 2; }
		typed opw-1 | script -qec tpm_getpubek /dev/null >"$d/pubek" 2>&1 ||
			{ cat "$d/pubek"; exit 1; }
		grep -qi "public key" "$d/pubek" || { cat "$d/pubek"; exit 1; }
		typed opw-2 | script -qec tpm_getpubek /dev/null >"$d/bad" 2>&1 &&
			{ echo "a wrong owner password read the EK"; exit 1; }
		grep -q "Authentication failed" "$d/bad" || { cat "$d/bad"; exit 1; }
		tpm12_oracle_stop
		unset SWTPM12_DIR SWTPM12_PORT
		swtpm12_tcp_start --no-ek || exit 1
		rc=0; tb takeown 2>"$d/err" || rc=$?
		[ $rc = 1 ] || { cat "$d/err"; exit 1; }
		grep -q "has no endorsement key" "$d/err" || exit 1
		grep -q "TPM_CreateEndorsementKeyPair" "$d/err" || exit 1
		exit 0
	)
}

@test "tpm12: clearall: TPM_OwnerClear with the owner value, --reenable (exit 7) and a reboot, tpm-tools takes ownership after it; --physical-presence clears tpm-tools' owner; takeown again" {
	(
		unset TCSD_DIR SWTPM12_DIR SWTPM12_PORT TSS_TCSD_PORT
		trap tpm12_oracle_stop EXIT
		swtpm12_tcp_start || exit 1
		d=$BATS_TEST_TMPDIR
		tb takeown --owner-auth str:own-1 >/dev/null || exit 1
		out=$(tb clearall --dry-run) || exit 1
		[[ $out == "would clear: the owner value, the SRK"* ]] || { echo "$out"; exit 1; }
		rc=0; tb clearall --owner-auth str:own-1 </dev/null 2>"$d/err" >/dev/null || rc=$?
		[ $rc = 2 ] && grep -q "without --yes" "$d/err" || { cat "$d/err"; exit 1; }
		rc=0; tb clearall --yes --owner-auth str:wrong 2>"$d/err" >/dev/null || rc=$?
		[ $rc = 4 ] || { cat "$d/err"; exit 1; }
		rc=0; tb clearall --yes --lockout-auth str:x 2>"$d/err" || rc=$?
		[ $rc = 2 ] && grep -q "it clears with the owner value" "$d/err" || exit 1
		tb info >"$d/info" || exit 1
		grep -qx "owner present: yes" "$d/info" || { cat "$d/info"; exit 1; }
		out=$(tb clearall --yes --owner-auth str:own-1) || exit 1
		echo "$out" | grep -qx cleared || exit 1
		tb info >"$d/info" || exit 1
		grep -qx "owner present: no" "$d/info" || { cat "$d/info"; exit 1; }
		grep -qx "enabled: no" "$d/info" || { cat "$d/info"; exit 1; }
		# Disabled: takeown says how to come back.
		rc=0; tb takeown 2>"$d/err" || rc=$?
		[ $rc = 1 ] && grep -q "clearall --reenable" "$d/err" || { cat "$d/err"; exit 1; }
		rc=0; tb clearall --reenable 2>"$d/err" >/dev/null || rc=$?
		[ $rc = 7 ] || { cat "$d/err"; exit 1; }
		swtpm12_restart || exit 1
		tb info >"$d/info" || exit 1
		grep -qx "enabled: yes" "$d/info" && grep -qx "activated: yes" "$d/info" || { cat "$d/info"; exit 1; }
		# tpm-tools takes ownership of the TPM tpmbox cleared ...
		tcsd_start || exit 1
		tpm_takeownership -y -z || exit 1
		tcsd_stop
		# ... and physical presence (software-asserted, as swtpm
		# allows) clears tpm-tools' owner without its value.
		out=$(tb clearall --yes --physical-presence) || exit 1
		echo "$out" | grep -qx cleared || exit 1
		rc=0; tb clearall --reenable >/dev/null 2>&1 || rc=$?
		[ $rc = 7 ] || exit 1
		swtpm12_restart || exit 1
		tb takeown >/dev/null || exit 1
		grep -q "owner present: yes" <(tb info) || exit 1
		exit 0
	)
}

@test "tpm12: nvlist lists what tpm_nvinfo lists: indices, sizes, permissions (tpm-tools' names), PCR bindings" {
	(
		unset TCSD_DIR SWTPM12_DIR SWTPM12_PORT TSS_TCSD_PORT
		trap tpm12_oracle_stop EXIT
		swtpm12_tcp_start || exit 1
		d=$BATS_TEST_TMPDIR
		out=$(tb nvlist --json) || exit 1
		[ "$out" = "[]" ] || { echo "$out"; exit 1; }
		tb takeown >/dev/null || exit 1
		tcsd_load_ps "$(tcsd_srk_ps)" || exit 1
		tcsd_start || exit 1
		tpm_nvdefine -y -i 0x00011101 -s 32 -p "OWNERREAD|OWNERWRITE" >/dev/null || exit 1
		tpm_nvdefine -y -z -i 0x00011102 -s 100 -p "AUTHREAD|AUTHWRITE|WRITEDEFINE" >/dev/null || exit 1
		tpm_nvdefine -y -i 0x00011103 -s 8 -p "OWNERWRITE|READ_STCLEAR" -r 0 -r 7 -w 16 >/dev/null || exit 1
		tpm_nvinfo >"$d/nvinfo" || exit 1
		tcsd_stop
		tb nvlist --json >"$d/json" || exit 1
		tb nvlist >"$d/text" || exit 1
		# index, size and permission value, from each
		awk '/^NVRAM index/ { i = $4 } /^Size/ { s = $3 }
			/^Permissions/ { p = $3 } /^Size/ { print i, s, p }' "$d/nvinfo" |
			sort >"$d/want"
		jq -r '.[] | "\(.index) \(.size) \(.attributes_value)"' "$d/json" | sort >"$d/got"
		[ "$(wc -l <"$d/want")" -ge 3 ] || { cat "$d/nvinfo"; exit 1; }
		diff "$d/want" "$d/got" || exit 1
		# the names: tpm_nvinfo's TPM_NV_PER_X, tpmbox's X (as sets)
		for i in 0x00011101 0x00011102 0x00011103; do
			w=$(awk -v i="$i" '/^NVRAM index/ { on = ($4 == i) }
				on && /^Permissions/ { gsub(/[()]/, "", $4); print $4 }' "$d/nvinfo" |
				sed 's/TPM_NV_PER_//g' | tr '|' '\n' | sort | tr '\n' ' ')
			g=$(jq -r --arg i "$i" '.[] | select(.index == $i) | .attributes' "$d/json" |
				tr '|' '\n' | sort | tr '\n' ' ')
			[ "$w" = "$g" ] || { echo "$i: tpm_nvinfo '$w', tpmbox '$g'"; exit 1; }
		done
		grep -qx "0x00011103 size=8 attrs=READ_STCLEAR|OWNERWRITE read_pcrs=0,7 write_pcrs=16 read_stclear=no write_stclear=no write_define=no" "$d/text" ||
			{ cat "$d/text"; exit 1; }
		grep -q '"write_define": false' "$d/json" || exit 1
		exit 0
	)
}
