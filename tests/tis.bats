#!/usr/bin/env bats
# A TPM on SPI or I2C with no kernel driver (issue 28): -T spi:... and
# -T i2c:..., the FIFO interface spoken from user space.  Tested through
# the transports' test sockets (spi:sock=, i2c:sock=) served by
# tests/helpers/tissim.py, a simulator of the FIFO registers and both
# buses written from the PTP, in front of swtpm 2.0 and 1.2.  Every job
# is checked against the same job over swtpm's own socket.

load helpers/common

SIM=$BATS_TEST_DIRNAME/helpers/tissim.py

# sim_start NAME SWTPM_SOCKET [tissim options]: a simulator serving
# $SD/NAME.spi and $SD/NAME.i2c, its counters in $SD/NAME.cnt.  Its pid
# goes to $PIDS (the suite's or the test's list).
sim_start() {
	local name=$1 sw=$2
	shift 2
	rm -f "$SD/$name.spi" "$SD/$name.i2c" "$SD/$name.cnt"
	python3 "$SIM" --swtpm "$sw" --spi "$SD/$name.spi" \
		--i2c "$SD/$name.i2c" --counters "$SD/$name.cnt" "$@" \
		2>>"$SD/$name.err" &
	echo $! >> "$PIDS"
	for _ in $(seq 1 100); do
		[ -S "$SD/$name.spi" ] && [ -S "$SD/$name.i2c" ] && return 0
		sleep 0.05
	done
	echo "tissim $name did not start: $(cat "$SD/$name.err")" >&2
	return 1
}
# cnt NAME KEY: a counter of the last client of simulator NAME.  The
# simulator writes its counters when the client's connection closes,
# which can come after tpmbox has exited: wait (up to 5 s) for busy=0.
cnt() {
	local i
	for i in $(seq 1 100); do
		grep -qx busy=0 "$SD/$1.cnt" 2>/dev/null && break
		sleep 0.05
	done
	sed -n "s/^$2=//p" "$SD/$1.cnt"
}

setup_file() {
	# the small build leaves the transports out (TINY_TIS, docs/tiny.md):
	# every test skips (bats 1.8 cannot skip in setup_file)
	if "$TPMBOX" -T spi:sock=/nonexistent getrandom 1 2>&1 |
		grep -q 'left out (TPMBOX_NO_TIS)'; then
		export TIS_ABSENT=1
		return 0
	fi
	export SD=$BATS_FILE_TMPDIR PIDS=$BATS_FILE_TMPDIR/sims
	swtpm12_start || return 1
	export S12=$SWTPM_DIR
	swtpm_start || return 1
	export S20=$SWTPM_DIR
	export D20="swtpm:path=$S20/sock" D12="swtpm:path=$S12/sock"
	sim_start m20 "$S20/sock" || return 1
	sim_start m12 "$S12/sock" --tpm12 || return 1
	"$TPMBOX" -T "$D12" takeown --owner-auth str:opass >/dev/null
}
teardown_file() {
	[ -z "${TIS_ABSENT:-}" ] || return 0
	while read -r p; do kill "$p" 2>/dev/null; done < "$PIDS"
	swtpm_stop
	SWTPM_DIR=$S12 swtpm_stop
}

setup() {
	[ -z "${TIS_ABSENT:-}" ] ||
		skip "this build has no SPI or I2C transport (TPMBOX_NO_TIS)"
	cd "$BATS_TEST_TMPDIR"
	PIDS=$BATS_TEST_TMPDIR/pids
	: > "$PIDS"
}
teardown() {
	while read -r p; do kill "$p" 2>/dev/null; done < "$PIDS"
	true
}

SPI() { tb -T "spi:sock=$SD/m20.spi" "$@"; }
I2C() { tb -T "i2c:sock=$SD/m20.i2c" "$@"; }
SPI12() { tb -T "spi:sock=$SD/m12.spi" "$@"; }
I2C12() { tb -T "i2c:sock=$SD/m12.i2c" "$@"; }

@test "tis: getrandom and pcrread over spi:sock and i2c:sock (also through TPMBOX_TCTI), the PCRs as over swtpm's socket" {
	[ "$(SPI getrandom 100 | wc -c)" -eq 100 ]
	[ "$(cnt m20 commands)" -ge 1 ]
	[ "$(I2C getrandom 4000 | wc -c)" -eq 4000 ]
	[ "$(TPMBOX_TCTI="spi:sock=$SD/m20.spi" tb getrandom 7 | wc -c)" -eq 7 ]
	[ "$(cnt m20 spi_frames)" -gt 0 ]
	[ "$(TPMBOX_TCTI="i2c:sock=$SD/m20.i2c,addr=0x2e" tb getrandom 7 | wc -c)" -eq 7 ]
	[ "$(cnt m20 i2c_msgs)" -gt 0 ]
	tb -T "$D20" extend 16 -s "tis" -b sha256,sha1 >/dev/null
	want=$(tb -T "$D20" pcrread sha256:0,16+sha1:16)
	[ "$(SPI pcrread sha256:0,16+sha1:16)" = "$want" ]
	[ "$(I2C pcrread sha256:0,16+sha1:16)" = "$want" ]
	[[ "$want" == *"sha256:16 "* ]]
	[[ "$want" != *"sha256:16 $(printf '%064d' 0)"* ]]
}

@test "tis: extend over SPI and I2C lands in the TPM as over the socket" {
	SPI extend 23 -s one -b sha256 >/dev/null
	I2C extend 23 -s two -b sha256 >/dev/null
	a=$(tb -T "$D20" pcrread sha256:23)
	tb -T "$D20" extend 23 -s three -b sha256 >/dev/null
	[ "$(I2C pcrread sha256:23)" = "$(tb -T "$D20" pcrread sha256:23)" ]
	[ "$a" != "$(tb -T "$D20" pcrread sha256:23)" ]
	python3 - "$a" <<-'EOF'
	import hashlib, sys
	v = bytes(32)
	for s in (b'one', b'two'):
	    v = hashlib.sha256(v + hashlib.sha256(s).digest()).digest()
	assert sys.argv[1].split()[1] == v.hex(), sys.argv[1]
	EOF
}

@test "tis 2.0: seal/unseal with PCRs and a password across SPI, I2C and the socket; an extend makes unseal exit 4" {
	head -c 1000 /dev/urandom > in
	SPI seal -p sha256:0,7,16 --auth str:pw -o b in
	I2C unseal --auth str:pw -o out.i b
	cmp in out.i
	tb -T "$D20" unseal --auth str:pw -o out.d b
	cmp in out.d
	tb -T "$D20" seal -p sha256:16 -o b2 in
	SPI unseal -o out.s b2
	cmp in out.s
	run I2C unseal --auth str:nope -o out.x b
	assert_failure 4
	[ ! -e out.x ]
	SPI extend 16 -s moved -b sha256 >/dev/null
	run I2C unseal -o out.y b2
	assert_failure 4
	[ ! -e out.y ]
}

@test "tis 2.0: nvdefine/nvwrite/nvread over I2C and SPI, read back over the socket and the other bus" {
	head -c 1500 /dev/urandom > data
	I2C nvdefine 0x01500030 -s 1500
	SPI nvwrite 0x01500030 -i data
	cmp <(I2C nvread 0x01500030) data
	cmp <(tb -T "$D20" nvread 0x01500030) data
	tb -T "$D20" nvwrite 0x01500030 -i data --offset 0 <<< ""
	printf 'xyz' | tb -T "$D20" nvwrite 0x01500030 --offset 10
	[ "$(SPI nvread 0x01500030 --offset 10 -s 3)" = xyz ]
	SPI nvrelease 0x01500030
	run tb -T "$D20" nvread 0x01500030
	assert_failure
}

@test "tis 2.0: akcreate and quote over SPI and I2C; checkquote verifies them and a quote over the socket with the same AK" {
	SPI akcreate -o ak.blob --pub ak.pem --tpm-public ak.pub >/dev/null
	I2C quote -k ak.blob -p sha256:0,16 -n c0ffee -o q1 >/dev/null
	SPI quote -k ak.blob -p sha256:0,16 -n c0ffee -o q2 >/dev/null
	tb -T "$D20" quote -k ak.blob -p sha256:0,16 -n c0ffee -o q3 >/dev/null
	for q in q1 q2 q3; do
		run tb checkquote -k ak.pub -n c0ffee "$q"
		assert_success
	done
	run tb checkquote -k ak.pub -n c0ffef q1
	assert_failure
}

@test "tis 1.2: getrandom, pcrread and extend over SPI and I2C as over the socket" {
	[ "$(SPI12 getrandom 300 | wc -c)" -eq 300 ]
	[ "$(I2C12 getrandom 30 | wc -c)" -eq 30 ]
	SPI12 extend -d 0101010101010101010101010101010101010101 9 >/dev/null
	want=$(tb -T "$D12" pcrread sha1:0,9)
	[ "$(SPI12 pcrread sha1:0,9)" = "$want" ]
	[ "$(I2C12 pcrread sha1:0,9)" = "$want" ]
	[[ "$want" != *"sha1:9 $(printf '%040d' 0)"* ]]
}

@test "tis 1.2: seal/unseal to PCRs across SPI, I2C and the socket; an extend makes it exit 4" {
	head -c 3000 /dev/urandom > in
	SPI12 seal -p 0,9 -o b in
	I2C12 unseal -o o1 b
	cmp in o1
	tb -T "$D12" unseal -o o2 b
	cmp in o2
	tb -T "$D12" seal -p 9 -o b2 in
	SPI12 unseal -o o3 b2
	cmp in o3
	I2C12 extend -d 0202020202020202020202020202020202020202 9 >/dev/null
	run SPI12 unseal -o o4 b2
	assert_failure 4
	[ ! -e o4 ]
}

@test "tis 1.2: nvdefine/nvwrite/nvread over I2C and SPI, read back over the socket" {
	OWN=(--owner-auth str:opass)
	head -c 700 /dev/urandom > data
	I2C12 nvdefine 0x00011031 -s 700 "${OWN[@]}"
	SPI12 nvwrite 0x00011031 -i data "${OWN[@]}"
	cmp <(I2C12 nvread 0x00011031 "${OWN[@]}") data
	cmp <(tb -T "$D12" nvread 0x00011031 "${OWN[@]}") data
	SPI12 nvrelease 0x00011031 "${OWN[@]}"
	run tb -T "$D12" nvread 0x00011031 "${OWN[@]}"
	assert_failure
}

@test "tis 1.2: akcreate (an AIK) and quote over SPI and I2C; checkquote verifies them, and a quote over the socket with the same AIK" {
	OWN=(--owner-auth str:opass)
	I2C12 akcreate -o ak.blob --pub ak.pem "${OWN[@]}" >/dev/null
	SPI12 quote -k ak.blob -p 0,9 -n 0011223344 -o q1 >/dev/null
	I2C12 quote -k ak.blob -p 0,9 -n 5566778899 -o q2 >/dev/null
	tb -T "$D12" quote -k ak.blob -p 0,9 -n aabbccddee -o q3 >/dev/null
	tb checkquote -k ak.pem -n 0011223344 -p 0,9 q1
	tb checkquote -k ak.pem -n 5566778899 -p 0,9 q2
	tb checkquote -k ak.pem -n aabbccddee -p 0,9 q3
	# another nonce is refused (the check can fail)
	run tb checkquote -k ak.pem -n 0011223345 -p 0,9 q1
	assert_failure
}

@test "tis: SPI wait states of 0, 1 and 50 bytes: the same answers; the simulator counts the polled bytes" {
	want=$(tb -T "$D20" pcrread sha256:16)
	for w in 0 1 50; do
		sim_start w$w "$S20/sock" --wait $w
		run tb -T "spi:sock=$SD/w$w.spi" pcrread sha256:16
		assert_success
		assert_output "$want"
		f=$(cnt w$w spi_frames)
		[ "$f" -gt 10 ]
		[ "$(cnt w$w spi_wait_bytes)" -eq $((w * f)) ]
		[ "$(tb -T "spi:sock=$SD/w$w.spi" getrandom 200 | wc -c)" -eq 200 ]
	done
}

@test "tis: burstCount 1, 7 and 200 (a FIFO of a few bytes, one larger than a frame): seal/unseal round trips" {
	head -c 200 /dev/urandom > in
	sim_start b1 "$S20/sock" --burst 1
	tb -T "spi:sock=$SD/b1.spi" seal -o b in
	tb -T "i2c:sock=$SD/b1.i2c" unseal -o o b
	cmp in o
	sim_start b7 "$S20/sock" --burst 7
	tb -T "i2c:sock=$SD/b7.i2c" unseal -o o7 b
	cmp in o7
	# a burstCount past the bus's frame (SPI 64) and message (I2C 32)
	sim_start b200 "$S20/sock" --burst 200
	tb -T "spi:sock=$SD/b200.spi" seal -o b2 in
	tb -T "i2c:sock=$SD/b200.i2c" unseal -o o200 b2
	cmp in o200
}

@test "tis: a TPM that never becomes ready: exit 3 after timeout B (4 s), no command bytes taken, nothing written" {
	sim_start nr "$S20/sock" --mode never-ready
	t0=$(date +%s%N)
	run tb -T "spi:sock=$SD/nr.spi" getrandom -o out 16
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	assert_failure 3
	assert_output --partial "did not become ready for a command within 4000 ms"
	[ "$ms" -ge 4000 ]
	[ "$ms" -lt 8000 ]
	[ "$(cnt nr cmd_bytes)" -eq 0 ]
	[ ! -e out ]
}

@test "tis: a slow TPM (ready after 3.5 s, under timeout B) is waited for" {
	sim_start slow "$S20/sock" --mode slow --slow-ms 3500
	t0=$(date +%s%N)
	[ "$(tb -T "i2c:sock=$SD/slow.i2c" getrandom 16 | wc -c)" -eq 16 ]
	[ $(( ($(date +%s%N) - t0) / 1000000 )) -ge 3400 ]
}

@test "tis: a floating bus (all 0xff) and an I2C address with nothing behind it: exit 3, no TPM answers on this bus" {
	sim_start fl "$S20/sock" --mode floating
	run tb -T "spi:sock=$SD/fl.spi" getrandom -o out 16
	assert_failure 3
	assert_output --partial "no TPM answers on this bus"
	assert_output --partial "DID_VID 0xffffffff"
	run tb -T "i2c:sock=$SD/fl.i2c" getrandom -o out 16
	assert_failure 3
	assert_output --partial "no TPM answers on this bus"
	run I2C -T "i2c:sock=$SD/m20.i2c,addr=0x2f" getrandom -o out 16
	assert_failure 3
	assert_output --partial "no TPM answers on this bus"
	assert_output --partial "address 0x2f did not acknowledge"
	[ ! -e out ]
	sim_start z "$S20/sock" --did-vid 0
	run tb -T "spi:sock=$SD/z.spi" getrandom 16
	assert_failure 3
	assert_output --partial "no TPM answers on this bus"
}

@test "tis: I2C NACKs are retried (every 3rd message refused: seal/unseal still round trip); a TPM that NACKs every message is exit 3" {
	sim_start nk "$S20/sock" --nack 3
	echo secret > in
	tb -T "i2c:sock=$SD/nk.i2c" seal -o b in
	[ "$(cnt nk nacks)" -gt 10 ]
	run tb -T "i2c:sock=$SD/nk.i2c" unseal b
	assert_success
	assert_output secret
	sim_start nk1 "$S20/sock" --nack 1
	run tb -T "i2c:sock=$SD/nk1.i2c" getrandom 16
	assert_failure 3
	assert_output --partial "did not acknowledge 4 tries"
}

@test "tis: I2C guard times from TPM_I2C_INTERFACE_CAPABILITY are kept (255 us, the most: no message comes sooner)" {
	sim_start gt "$S20/sock" --guard 255
	t0=$(date +%s%N)
	[ "$(tb -T "i2c:sock=$SD/gt.i2c" getrandom 16 | wc -c)" -eq 16 ]
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	[ "$(cnt gt guard_violations)" -eq 0 ]
	# every message after the first waits the guard time
	[ "$ms" -ge $(( ($(cnt gt i2c_msgs) - 1) * 255 / 1000 )) ]
}

@test "tis: damaged register answers: one sentence, exit 3, nothing written, no success" {
	for m in sts-damage burst0 expect-stuck expect-early leftover short; do
		sim_start d$m "$S20/sock" --mode $m --burst 5
		run tb -T "spi:sock=$SD/d$m.spi" getrandom -o out 16
		assert_failure 3
		[ ! -e out ]
		case $m in
		sts-damage) assert_output --partial "a damaged register answer" ;;
		burst0) assert_output --partial "reported no room in its FIFO (burstCount 0) within 750 ms" ;;
		expect-stuck) assert_output --partial "still expects bytes after the whole command" ;;
		expect-early) assert_output --partial "stopped expecting command bytes after 5 of 12" ;;
		leftover) assert_output --partial "more response bytes than its header announces" ;;
		short) assert_output --partial "stopped sending after 24 of 28 response bytes" ;;
		esac
		[ "${#lines[@]}" -le 2 ]
		run tb -T "i2c:sock=$SD/d$m.i2c" pcrread sha256:0
		assert_failure 3
		refute_output --partial "sha256:0 "
	done
}

@test "tis: fuzzed TPM_ACCESS and TPM_STS answers (20 seeds over each bus): no crash, no false success" {
	want=$(tb -T "$D20" pcrread sha256:0,16)
	ok=0 bad=0
	for seed in $(seq 1 20); do
		sim_start fz "$S20/sock" --mode fuzz --seed "$seed" --fuzz-rate 15
		for bus in spi i2c; do
			run tb -T "$bus:sock=$SD/fz.$bus" pcrread sha256:0,16
			[ "$status" -lt 64 ]
			if [ "$status" -eq 0 ]; then
				[ "$output" = "$want" ]
				ok=$((ok + 1))
			else
				[ "$status" -eq 3 ]
				bad=$((bad + 1))
			fi
		done
		kill "$(tail -n 1 "$PIDS")"
		sleep 0.05
	done
	echo "# fuzz: $ok succeeded, $bad refused" >&3
	[ "$bad" -gt 0 ]
	[ "$ok" -gt 0 ]
}

@test "tis: bus options: a missing device, bad hz=, locality= and addr= are usage errors; a device that is not SPI or I2C, or one another process holds, is exit 3" {
	run tb -T spi: getrandom 1
	assert_failure 2
	run tb -T "spi:sock=$SD/m20.spi,hz=0" getrandom 1
	assert_failure 2
	assert_output --partial "bad hz="
	run tb -T "spi:sock=$SD/m20.spi,locality=5" getrandom 1
	assert_failure 2
	run tb -T "i2c:sock=$SD/m20.i2c,addr=0x80" getrandom 1
	assert_failure 2
	run tb -T i2c:/nonexistent/i2c-9 getrandom 1
	assert_failure 3
	run tb -T spi:/dev/null getrandom 1
	assert_failure 3
	assert_output --partial "not an SPI device"
	run tb -T "spi:sock=$BATS_TEST_TMPDIR/none" getrandom 1
	assert_failure 3
	# a bus device another process holds (flock) is waited for, then
	# refused; a file that is no bus device is exit 3
	touch bus
	flock bus sleep 3 &
	echo $! >> "$PIDS"
	sleep 0.2
	t0=$(date +%s%N)
	run tb -T i2c:bus --timeout 1 getrandom 1
	assert_failure 3
	assert_output --partial "another process holds bus and did not let go within 1 s"
	[ $(( ($(date +%s%N) - t0) / 1000000 )) -ge 1000 ]
	run tb -T spi:./bus --timeout 1 getrandom 1
	assert_failure 3
	assert_output --partial "another process holds"
	wait
	run tb -T i2c:./bus getrandom 1
	assert_failure 3
	assert_output --partial "I2C transfer on ./bus"
	# another locality works as locality 0 does
	[ "$(tb -T "spi:sock=$SD/m20.spi,locality=3,hz=20000000" getrandom 9 | wc -c)" -eq 9 ]
}

@test "tis: speed: TIS register operations per TPM command, bus bytes per getrandom, SPI frames for a 1 MiB seal" {
	SPI getrandom 32 >/dev/null
	c=$(cnt m20 commands) r=$(cnt m20 reg_reads) w=$(cnt m20 reg_writes)
	sb=$(cnt m20 spi_bytes) sf=$(cnt m20 spi_frames)
	I2C getrandom 32 >/dev/null
	ic=$(cnt m20 commands) ir=$(cnt m20 reg_reads) iw=$(cnt m20 reg_writes)
	ib=$(cnt m20 i2c_bytes) im=$(cnt m20 i2c_msgs)
	echo "# getrandom 32, SPI: $c command(s), $r register reads + $w writes, $sf frames, $sb bus bytes" >&3
	echo "# getrandom 32, I2C: $ic command(s), $ir register reads + $iw writes, $im messages, $ib bus bytes" >&3
	[ $(( (r + w) / c )) -le 30 ]
	[ $(( (ir + iw) / ic )) -le 30 ]
	head -c 1048576 /dev/urandom > big
	SPI seal -o bb big
	echo "# seal of 1 MiB over SPI: $(cnt m20 commands) commands, $(cnt m20 spi_frames) frames, $(cnt m20 spi_bytes) bus bytes, $(cnt m20 cmd_bytes) command bytes" >&3
	cmp <(I2C unseal bb) big
}
