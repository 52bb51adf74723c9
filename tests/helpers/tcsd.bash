# The TPM 1.2 oracle for bats suites: swtpm in 1.2 mode on TCP, and
# TrouSerS' tcsd in front of it for tpm-tools and tpm-quote-tools
# (recipe and traps: shared/TPM12.md).  Load after helpers/common.
#
#   setup_file()    { swtpm12_tcp_start && tcsd_start; }
#   teardown_file() { tpm12_oracle_stop; }
#
# swtpm takes one client at a time and tcsd holds the connection while it
# runs: call tcsd_stop before tpmbox talks to the TPM, tcsd_start after.
#
# After swtpm12_tcp_start: $SWTPM12_DIR (state, logs), $SWTPM12_PORT
# (data; control on +1), TPMBOX_TCTI exported.  After tcsd_start:
# TSS_TCSD_HOSTNAME and TSS_TCSD_PORT exported for the trousers clients,
# $TCSD_DIR (conf, PS dir, output).  Everything lives under the suite's
# bats temp dir; no fixed port.
#
# Ownership taken by anything but tcsd (tpmbox takeown, a raw client)
# leaves tcsd's system.data without the SRK entry, and tpm_sealdata,
# tpm_unsealdata, tpm_mkaik and tpm_getquote then fail (0x2020).  The
# entry does not depend on the TPM: tcsd_srk_ps makes one system.data by a
# `tpm_takeownership -y -z` on a throw-away swtpm (once per bats run) and
# tcsd_load_ps copies a system.data into the PS dir before tcsd starts.

declare -F free_port >/dev/null || load common

# tpm12_raw HEX: send one raw command to swtpm's data port (tcsd stopped),
# print the response in hex.  Exit 1 on no answer.
tpm12_raw() {
	python3 - "$SWTPM12_PORT" "$1" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(bytes.fromhex(sys.argv[2]))
b = b""
while len(b) < 6 or len(b) < int.from_bytes(b[2:6], "big"):
    c = s.recv(4096)
    if not c:
        break
    b += c
s.close()
if len(b) < 10:
    sys.exit(1)
print(b.hex())
EOF
}

# swtpm12_tcp_start [--no-ek | DIR]: a TPM 1.2 swtpm on a free TCP port
# pair.  With no argument a fresh state with an EK and NV locked
# (`swtpm_setup --createek --lock-nvram`) is made under the suite's temp
# dir; --no-ek: the same without an EK.  DIR: the $SWTPM12_DIR of an
# earlier start, used as it is, on the same port (a reboot: PCRs reset,
# ownership and NV kept).
swtpm12_tcp_start() {
	local ek=--createek
	[ "${1:-}" = --no-ek ] && { ek=; shift; }
	if [ -n "${1:-}" ]; then
		SWTPM12_DIR=$1
	else
		SWTPM12_DIR=$(mktemp -d "${BATS_FILE_TMPDIR:-/tmp}/swtpm12.XXXXXX")
		mkdir -p "$SWTPM12_DIR/state"
		swtpm_setup --tpm-state "$SWTPM12_DIR/state" $ek \
			--lock-nvram >"$SWTPM12_DIR/setup.out" 2>&1 || {
			echo "swtpm_setup failed: $(cat "$SWTPM12_DIR/setup.out")" >&2
			return 1
		}
	fi
	export SWTPM12_DIR
	# A restart keeps its port: tests see the variables setup_file set.
	# A fresh start whose swtpm dies at once (its port taken between
	# free_port and bind) tries another port, up to three times.
	local fixed= try _
	[ -s "$SWTPM12_DIR/port" ] && fixed=1
	for try in 1 2 3; do
		if [ -n "$fixed" ]; then
			SWTPM12_PORT=$(cat "$SWTPM12_DIR/port")
		else
			SWTPM12_PORT=$(free_port) || { echo "no free port" >&2; return 1; }
		fi
		export SWTPM12_PORT
		rm -f "$SWTPM12_DIR/swtpm.pid"
		swtpm socket \
			--server type=tcp,port=$SWTPM12_PORT,bindaddr=127.0.0.1 \
			--ctrl type=tcp,port=$((SWTPM12_PORT + 1)),bindaddr=127.0.0.1 \
			--tpmstate dir="$SWTPM12_DIR/state" \
			--flags not-need-init,startup-clear \
			--pid file="$SWTPM12_DIR/swtpm.pid" \
			>>"$SWTPM12_DIR/swtpm.out" 2>&1 </dev/null 3>&- &
		echo $! >"$SWTPM12_DIR/swtpm.bgpid"
		export TPMBOX_TCTI="swtpm:host=127.0.0.1,port=$SWTPM12_PORT"
		# One raw command (TSC_PhysicalPresence: enable the command)
		# before tcsd starts: swtpm's first answer takes ~250 ms, and
		# tcsd started earlier takes a second more.  It also says the
		# port is up.  Up to 20 s on a loaded machine.
		for _ in $(seq 1 400); do
			if [ -s "$SWTPM12_DIR/swtpm.pid" ] &&
				tpm12_raw 00c10000000c4000000a0020 >/dev/null 2>&1; then
				echo "$SWTPM12_PORT" >"$SWTPM12_DIR/port"
				return 0
			fi
			_tb_alive "$(cat "$SWTPM12_DIR/swtpm.bgpid")" || break
			sleep 0.05
		done
		_tb_kill_wait "$SWTPM12_DIR/swtpm.bgpid"
		[ -z "$fixed" ] || break
	done
	echo "swtpm (1.2) did not start: $(cat "$SWTPM12_DIR/swtpm.out")" >&2
	return 1
}

# _tb_kill_wait PIDFILE: TERM the process, wait up to 2.5 s, then KILL.
# _tb_alive PID: running (a zombie left to a PID 1 that does not reap, as
# in some containers, counts as gone).
_tb_alive() {
	local st
	st=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

_tb_kill_wait() {
	local pid _
	pid=$(cat "$1" 2>/dev/null) || return 0
	rm -f "$1"
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null || return 0
	for _ in $(seq 1 50); do
		_tb_alive "$pid" || return 0
		sleep 0.05
	done
	kill -9 "$pid" 2>/dev/null || true
}

swtpm12_stop() {
	[ -n "${SWTPM12_DIR:-}" ] || return 0
	_tb_kill_wait "$SWTPM12_DIR/swtpm.bgpid"
	_tb_kill_wait "$SWTPM12_DIR/swtpm.pid"
}

# swtpm12_restart: stop and start again on the same state (a reboot);
# tcsd is stopped first and not restarted.
swtpm12_restart() {
	tcsd_stop
	swtpm12_stop
	swtpm12_tcp_start "$SWTPM12_DIR"
}

# tcsd's directory: conf root:tss 0640 (tcsd refuses anything else), the
# PS dir owned by tss.  Made once per suite.
_tcsd_dir() {
	[ -n "${TCSD_DIR:-}" ] && [ -d "$TCSD_DIR" ] && return 0
	TCSD_DIR=$(mktemp -d "${BATS_FILE_TMPDIR:-/tmp}/tcsd.XXXXXX")
	export TCSD_DIR
	chmod 0755 "$TCSD_DIR"
	mkdir -p "$TCSD_DIR/ps"
	chown tss:tss "$TCSD_DIR/ps" && chmod 0700 "$TCSD_DIR/ps"
}

# tcsd_start: tcsd on a free port in front of the running swtpm.
tcsd_start() {
	[ -n "${SWTPM12_PORT:-}" ] || { echo "tcsd_start: no swtpm12" >&2; return 1; }
	if [ "$(id -u)" != 0 ] || ! id tss >/dev/null 2>&1; then
		echo "tcsd_start: tcsd needs root and the tss user (package trousers)" >&2
		return 1
	fi
	_tcsd_dir || return 1
	tcsd_stop
	# One port per suite, kept across restarts (a test's exports do not
	# reach the next test).  A first start whose tcsd dies at once (its
	# port taken) tries another port, up to three times.
	local fixed= try _
	[ -s "$TCSD_DIR/port" ] && fixed=1
	TSS_TCSD_HOSTNAME=127.0.0.1
	for try in 1 2 3; do
		if [ -n "$fixed" ]; then
			TSS_TCSD_PORT=$(cat "$TCSD_DIR/port")
		else
			TSS_TCSD_PORT=$(free_port) || { echo "no free port" >&2; return 1; }
		fi
		export TSS_TCSD_PORT TSS_TCSD_HOSTNAME
		printf 'port = %s\nsystem_ps_file = %s/ps/system.data\n' \
			"$TSS_TCSD_PORT" "$TCSD_DIR" >"$TCSD_DIR/tcsd.conf"
		chown root:tss "$TCSD_DIR/tcsd.conf" && chmod 0640 "$TCSD_DIR/tcsd.conf"
		# -e: without it tcsd ignores the TCP device variables.
		TCSD_TCP_DEVICE_HOSTNAME=127.0.0.1 TCSD_TCP_DEVICE_PORT=$SWTPM12_PORT \
			tcsd -f -e -c "$TCSD_DIR/tcsd.conf" \
			>>"$TCSD_DIR/tcsd.out" 2>&1 </dev/null 3>&- &
		echo $! >"$TCSD_DIR/tcsd.pid"
		# Up when it answers a client (tpm_version asks the TPM through
		# it).  Up to 20 s on a loaded machine.
		for _ in $(seq 1 400); do
			_tb_alive "$(cat "$TCSD_DIR/tcsd.pid")" || break
			if timeout 10 tpm_version >/dev/null 2>&1; then
				echo "$TSS_TCSD_PORT" >"$TCSD_DIR/port"
				return 0
			fi
			sleep 0.05
		done
		tcsd_stop
		[ -z "$fixed" ] || break
	done
	echo "tcsd did not start: $(cat "$TCSD_DIR/tcsd.out")" >&2
	return 1
}

# tcsd_stop: stop tcsd (swtpm is then free for tpmbox).
tcsd_stop() {
	[ -n "${TCSD_DIR:-}" ] || return 0
	_tb_kill_wait "$TCSD_DIR/tcsd.pid"
}

# tcsd_save_ps FILE: keep tcsd's system.data (tcsd stopped or not).
tcsd_save_ps() {
	cp "$TCSD_DIR/ps/system.data" "$1"
}

# tcsd_load_ps FILE: make FILE tcsd's system.data (call with tcsd stopped;
# it is read at start).
tcsd_load_ps() {
	_tcsd_dir || return 1
	install -o tss -g tss -m 0600 "$1" "$TCSD_DIR/ps/system.data"
}

# tcsd_srk_ps: print the path of a system.data holding the SRK entry a
# `tpm_takeownership -y -z` leaves, made once per bats run on a throw-away
# swtpm and tcsd (about 1.5 s), then shared by every suite of the run.
tcsd_srk_ps() {
	local base=${BATS_RUN_TMPDIR:-${BATS_FILE_TMPDIR:-/tmp}}
	local out=$base/tpm12-srk-system.data
	[ -s "$out" ] && { echo "$out"; return 0; }
	(
		unset TCSD_DIR SWTPM12_DIR SWTPM12_PORT TSS_TCSD_PORT
		trap tpm12_oracle_stop EXIT
		ok=1
		swtpm12_tcp_start && tcsd_start &&
			tpm_takeownership -y -z >"$TCSD_DIR/takeown.out" 2>&1 &&
			tcsd_stop &&
			cp "$TCSD_DIR/ps/system.data" "$out.$$" &&
			mv "$out.$$" "$out" && ok=0
		exit $ok
	) || { echo "tcsd_srk_ps: could not make a system.data" >&2; return 1; }
	echo "$out"
}

# tpm12_oracle_stop: everything this helper started (teardown_file).
tpm12_oracle_stop() {
	tcsd_stop
	swtpm12_stop
}

# swtpm12_dir_up DIR: a 1.2 swtpm on DIR/sock (unix) over the state in DIR
# (made by swtpm_setup, kept across restarts: ownership, NV and keys
# stay, PCRs and sessions go); swtpm12_dir_down DIR stops it.  For
# proxies and interposers in front of a 1.2 (tcsd cannot be used then).
swtpm12_dir_up() {
	local d=$1
	rm -f "$d/sock" "$d/sock.ctrl"
	swtpm socket --server type=unixio,path="$d/sock" \
		--ctrl type=unixio,path="$d/sock.ctrl" --tpmstate dir="$d" \
		--flags not-need-init,startup-clear --pid file="$d/pid" \
		>>"$d/swtpm.out" 2>&1 3>&- &
	for _ in $(seq 1 100); do [ -S "$d/sock" ] && return 0; sleep 0.05; done
	echo "swtpm12_dir_up: no socket: $(cat "$d/swtpm.out")" >&2
	return 1
}
swtpm12_dir_down() {
	local pid
	pid=$(cat "$1/pid" 2>/dev/null) || return 0
	kill "$pid" 2>/dev/null
	for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.05; done
	kill -9 "$pid" 2>/dev/null || true
}
