#!/usr/bin/env bats
# Secret hygiene: an AUTH given as file: or env: never shows in
# /proc/PID/cmdline, and the trace (--trace, TPMBOX_TRACE=1) masks auth
# values, sealed data and secret responses.

load helpers/common

setup_file() {
	swtpm_start
	export SD="$BATS_FILE_TMPDIR/sec"
	mkdir -p "$SD"
	export PROXY="$BATS_FILE_TMPDIR/faultproxy"
	faultproxy_build "$PROXY"
	export SOCKD
	SOCKD=$(mktemp -d "${TMPDIR:-/tmp}/sp.XXXXXX")
	# A random marker: its text and its hex must never leak.
	export MARK
	MARK=mk$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
	export MARKHEX
	MARKHEX=$(printf '%s' "$MARK" | od -An -tx1 | tr -d ' \n')
	printf '%s' "$MARK" > "$SD/auth"
	# Secret data (sealed, written to NV): its hex must not leak either.
	head -c 32 /dev/urandom > "$SD/data"
	export DATAHEX
	DATAHEX=$(od -An -tx1 < "$SD/data" | tr -d ' \n')
}

teardown_file() {
	[ -s "$SD/proxy.pid" ] && kill "$(cat "$SD/proxy.pid")" 2>/dev/null
	swtpm_stop
	rm -rf "$SOCKD"
}

# A proxy that never answers: the applet blocks at its first command
# with its arguments parsed, so /proc/PID is there to read.
stall_start() {
	rm -f "$SOCKD/p.sock"
	"$PROXY" -l "$SOCKD/p.sock" -t "$SWTPM_DIR/sock" -m stall -k 1 \
		>/dev/null 2>&1 3>&- &
	echo $! > "$SD/proxy.pid"
	for _ in $(seq 1 100); do
		[ -S "$SOCKD/p.sock" ] && return 0
		sleep 0.01
	done
	return 1
}

stall_stop() {
	kill "$(cat "$SD/proxy.pid")" 2>/dev/null
	wait "$(cat "$SD/proxy.pid")" 2>/dev/null || true
	rm -f "$SD/proxy.pid"
}

# cmdline_of ARGS...: run tpmbox against the stalled proxy, print its
# /proc/PID/cmdline (NULs as spaces), then kill it.
cmdline_of() {
	local pid
	"$TPMBOX" --timeout 5 -T "swtpm:path=$SOCKD/p.sock" "$@" \
		>/dev/null 2>&1 3>&- &
	pid=$!
	# Until the exec is done (the applet name shows), up to 3 s.
	for _ in $(seq 1 300); do
		tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q "$1" && break
		sleep 0.01
	done
	sleep 0.1
	tr '\0' ' ' < "/proc/$pid/cmdline"
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null || true
}

@test "secrets: file: and env: AUTH never appear in /proc/PID/cmdline (str: does)" {
	tb nvdefine 0x01500030 -s 32 --auth "file:$SD/auth"
	stall_start
	# Control: a str: value is visible, so the check below can fail.
	run cmdline_of nvread 0x01500030 --auth "str:$MARK"
	[[ "$output" == *"nvread 0x01500030"* ]]
	[[ "$output" == *"$MARK"* ]]
	run cmdline_of nvread 0x01500030 --auth "file:$SD/auth"
	[[ "$output" == *"nvread 0x01500030"* ]]
	[[ "$output" != *"$MARK"* ]]
	export SECRET_AUTH=$MARK
	run cmdline_of nvread 0x01500030 --auth env:SECRET_AUTH
	[[ "$output" == *"env:SECRET_AUTH"* ]]
	[[ "$output" != *"$MARK"* ]]
	run cmdline_of unseal --auth "file:$SD/auth" "$SD/none"
	[[ "$output" != *"$MARK"* ]]
	stall_stop
}

# The trace of a command, with a check that it traced something.
trace_of() {
	run env TPMBOX_TRACE=1 "$TPMBOX" "$@"
	[[ "$output" == *"> TPM2_"* ]] || { echo "no trace: $output"; return 1; }
}

# The trace prints 32 bytes a line: join the lines so a value that spans
# two is still found.
joined() { printf '%s' "$output" | tr -d ' \n' | tr 'A-F' 'a-f'; }

refute_leak() {
	local low
	low=$(joined)
	[[ "$low" != *"$MARKHEX"* ]] || { echo "auth value in the trace"; return 1; }
	[[ "$output" != *"$MARK"* ]] || { echo "auth text in the output"; return 1; }
	[[ "$low" != *"$DATAHEX"* ]] || { echo "secret data in the trace"; return 1; }
}

@test "secrets: the trace shows traffic (control: unmasked bytes are visible)" {
	# A digest extended into a PCR is no secret: it must show, else the
	# masking checks below prove nothing.
	run env TPMBOX_TRACE=1 "$TPMBOX" extend 16 -d "$DATAHEX" -b sha256
	[ "$status" -eq 0 ]
	[[ "$(joined)" == *"$DATAHEX"* ]]
}

@test "secrets: trace masks nvdefine --auth, nvwrite data, nvread data" {
	trace_of nvdefine 0x01500031 -s 32 --auth "file:$SD/auth"
	[ "$status" -eq 0 ]
	refute_leak
	[[ "$output" == *TPM2_NV_DefineSpace* ]]
	trace_of nvwrite 0x01500031 -i "$SD/data" --auth "file:$SD/auth"
	[ "$status" -eq 0 ]
	refute_leak
	trace_of nvread 0x01500031 --auth "file:$SD/auth"
	[ "$status" -eq 0 ]
	# stdout holds the data; the trace lines must not.
	output=$(printf '%s\n' "$output" | grep -a '^[<> ] ' || true)
	[ -n "$output" ]
	refute_leak
	# The --trace option masks the same way.
	run "$TPMBOX" --trace nvread 0x01500031 --hex --auth "env:MARK"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$DATAHEX"* ]]		# printed on stdout, once
	output=$(printf '%s\n' "$output" | grep -v "^$DATAHEX\$")
	refute_leak
}

@test "secrets: trace masks seal --auth, the sealed data, and unseal's answer" {
	trace_of seal -p sha256:0 --auth "file:$SD/auth" -o "$SD/blob" "$SD/data"
	[ "$status" -eq 0 ]
	refute_leak
	[[ "$output" == *TPM2_Create* ]]
	trace_of unseal --auth "env:MARK" -o "$SD/out" "$SD/blob"
	[ "$status" -eq 0 ]
	refute_leak
	cmp "$SD/out" "$SD/data"
}

@test "secrets: trace masks takeown's new owner auth" {
	trace_of takeown --owner-auth "file:$SD/auth"
	[ "$status" -eq 0 ]
	refute_leak
	[[ "$output" == *TPM2_HierarchyChangeAuth* ]]
	# The owner auth is now set: tpm2-tools agrees (oracle), and a wrong
	# one is refused.
	run tpm2_nvdefine 0x01500032 -C o -s 8 -P "$MARK"
	[ "$status" -eq 0 ]
	run tpm2_nvdefine 0x01500033 -C o -s 8 -P wrong
	[ "$status" -ne 0 ]
	# Put it back for any later test.
	trace_of takeown --old-owner-auth "env:MARK" --owner-auth hex:
	refute_leak
}

@test "secrets: trace masks getrandom's bytes (a secret that crosses in clear)" {
	# Sessions encrypt the secrets above, so those checks hold even
	# without masking; random bytes cross in clear and only the mask
	# keeps them out of the trace.
	run env TPMBOX_TRACE=1 "$TPMBOX" getrandom --hex 48
	[ "$status" -eq 0 ]
	rnd=$(printf '%s\n' "$output" | grep -E '^[0-9a-f]{96}$')
	[ -n "$rnd" ]
	output=$(printf '%s\n' "$output" | grep -v "^$rnd\$")
	[[ "$output" == *"< TPM2_GetRandom"* ]]
	[[ "$(joined)" != *"$rnd"* ]]
	[[ "$(joined)" != *"${rnd:0:32}"* ]]
}
