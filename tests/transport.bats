#!/usr/bin/env bats
# Transports (unix socket, TCP, a device through a pty) and what a broken
# or hostile TPM gets: closed connections, silence, oversized or malformed
# responses.  Nothing may hang; the exit code is 3 for the transport.

load helpers/common

FAKE=$BATS_TEST_DIRNAME/helpers/faketpm.py

setup_file() { swtpm_start; }
teardown_file() { swtpm_stop; }

# Background processes started by one test, killed after it.
bg() { echo "$1" >> "$BATS_TEST_TMPDIR/pids"; }
teardown() {
	[ -f "$BATS_TEST_TMPDIR/pids" ] || return 0
	while read -r p; do kill "$p" 2>/dev/null; done < "$BATS_TEST_TMPDIR/pids"
	rm -f "$BATS_TEST_TMPDIR/pids"
}

# fake MODE: start faketpm.py, set $F to its socket
fake() {
	F=$BATS_TEST_TMPDIR/fake.sock
	rm -f "$F"
	python3 "$FAKE" "$F" "$1" "$BATS_TEST_TMPDIR/fake.log" &
	bg $!
	for _ in $(seq 1 100); do [ -S "$F" ] && return 0; sleep 0.05; done
	return 1
}

ms() { echo $(( $(date +%s%N) / 1000000 )); }

@test "transport: swtpm unix socket" {
	[[ "$TPMBOX_TCTI" == swtpm:path=* ]]
	run tb getrandom 32
	assert_success
	[ "$(tb getrandom 32 | wc -c)" -eq 32 ]
	[ "$(tb pcrread sha256:0-23 | wc -l)" -eq 24 ]
}

@test "transport: swtpm TCP (address and localhost), same PCRs as tpm2-tools" {
	d=$BATS_TEST_TMPDIR/tcp; mkdir -p "$d"
	port=$(free_port)
	swtpm socket --tpm2 --server type=tcp,port=$port,bindaddr=127.0.0.1 \
		--ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 \
		--tpmstate dir="$d" --flags not-need-init,startup-clear \
		>/dev/null 2>&1 &
	bg $!
	for _ in $(seq 1 100); do tb -T "swtpm:host=127.0.0.1,port=$port" getrandom 1 >/dev/null 2>&1 && break; sleep 0.05; done
	export TPM2TOOLS_TCTI="swtpm:host=127.0.0.1,port=$port"
	tpm2_pcrextend "5:sha256=$(printf '%064x' 77)"
	run tb -T "swtpm:host=127.0.0.1,port=$port" pcrread sha256:5
	assert_success
	assert_output "$(t2_pcrread_text sha256:5)"
	[ "$output" != "sha256:5 $(printf '%064d' 0)" ]
	run tb -T "swtpm:host=localhost,port=$port" extend 5 -s tcp -v -b sha256
	assert_success
	assert_output "$(t2_pcrread_text sha256:5)"
	[ "$(TPMBOX_TCTI="swtpm:port=$port" tb getrandom 1000 | wc -c)" -eq 1000 ]
}

@test "transport: TCP refusals (names, bad port, nobody listening)" {
	run tb -T "swtpm:host=tpm.example.com,port=2321" getrandom 1
	assert_failure 2
	assert_output --partial "host 'tpm.example.com' is not a numeric address"
	for p in 0 65536 abc ""; do
		run tb -T "swtpm:host=127.0.0.1,port=$p" getrandom 1
		assert_failure 2
		assert_output --partial "bad TCP port '$p'"
	done
	port=$(free_port)
	run tb -T "swtpm:host=127.0.0.1,port=$port" getrandom 1
	assert_failure 3
	assert_output --partial "cannot connect to swtpm tcp 127.0.0.1:$port: Connection refused"
}

@test "transport: unknown TPM configuration -> 2" {
	run tb -T "mssim:host=1.2.3.4" getrandom 1
	assert_failure 2
	assert_output --partial "unknown TPM 'mssim:host=1.2.3.4'"
}

@test "transport: a device through a socat pty bridge (device:PATH and a bare path)" {
	d=$BATS_TEST_TMPDIR
	# swtpm serves one client at a time: give the bridge its own swtpm
	mkdir -p "$d/s2"
	swtpm socket --tpm2 --server type=unixio,path="$d/s2/sock" \
		--ctrl type=unixio,path="$d/s2/sock.ctrl" --tpmstate dir="$d/s2" \
		--flags not-need-init,startup-clear >/dev/null 2>&1 &
	bg $!
	for _ in $(seq 1 100); do [ -S "$d/s2/sock" ] && break; sleep 0.05; done
	socat PTY,link="$d/tpm0",rawer,echo=0 UNIX-CONNECT:"$d/s2/sock" &
	bg $!
	for _ in $(seq 1 100); do [ -e "$d/tpm0" ] && break; sleep 0.05; done
	[ -c "$(readlink -f "$d/tpm0")" ]
	run tb -T "device:$d/tpm0" getrandom 1000
	assert_success
	[ "$(tb -T "device:$d/tpm0" getrandom 1000 | wc -c)" -eq 1000 ]
	# a multi-chunk read (96 PCRs, 8 per TPM2_PCR_Read) and an extend
	run tb -T "$d/tpm0" extend 3 -s pty -b sha1
	assert_success
	run tb -T "$d/tpm0" pcrread
	assert_success
	[ "$(echo "$output" | wc -l)" -eq 96 ]
	assert_line "sha1:3 $(printf '%040d' 0 | xxd -r -p | cat - <(printf pty | openssl dgst -sha1 -binary) | openssl dgst -sha1 -binary | xxd -p)"
	run tb -T "$d/tpm0" info
	assert_success
	assert_line "manufacturer: IBM"
}

@test "transport: a missing device -> 3 with a hint" {
	run tb -T device:/nonexistent/tpm0 getrandom 1
	assert_failure 3
	assert_output --partial "no TPM found: /nonexistent/tpm0 does not exist"
	assert_output --partial "hint: choose a TPM with -T"
	run tb -T /nonexistent/tpmrm0 pcrread
	assert_failure 3
	assert_output --partial "no TPM found: /nonexistent/tpmrm0 does not exist"
	# "device:" alone is the default device, not $TPMBOX_TCTI's socket
	if [ ! -e /dev/tpmrm0 ] && [ ! -e /dev/tpm0 ]; then
		run tb -T device: getrandom 1
		assert_failure 3
		assert_output --partial "no TPM found: neither /dev/tpmrm0 nor /dev/tpm0 exists"
	fi
	run tb -T "swtpm:path=$BATS_TEST_TMPDIR/nosock" getrandom 1
	assert_failure 3
	assert_output --partial "cannot connect to swtpm socket $BATS_TEST_TMPDIR/nosock"
}

@test "transport: a path that is not a TPM (regular file, directory) -> 3" {
	run tb -T /etc getrandom 1
	assert_failure 3
	assert_output --partial "cannot open /etc"
	echo keep > "$BATS_TEST_TMPDIR/file"
	run timeout 5 "$TPMBOX" -T "$BATS_TEST_TMPDIR/file" getrandom 1
	assert_failure 3
	assert_output --partial "$BATS_TEST_TMPDIR/file is not a TPM: not a character device"
	# nothing was written into it
	[ "$(cat "$BATS_TEST_TMPDIR/file")" = keep ]
}

@test "transport: the simulator closes after reading the command -> 3" {
	fake close
	run tb -T "swtpm:path=$F" getrandom 8
	assert_failure 3
	assert_output --partial "TPM2_GetRandom: swtpm socket $F closed the connection after 0 of 10 response bytes"
}

@test "transport: the simulator dies after half a response -> 3" {
	fake half
	run tb -T "swtpm:path=$F" getrandom 8
	assert_failure 3
	assert_output --partial "closed the connection after 15 of 20 response bytes"
}

@test "transport: swtpm killed in the middle of a long run -> 3, no hang, no file" {
	d=$BATS_TEST_TMPDIR/k; mkdir -p "$d"
	swtpm socket --tpm2 --server type=unixio,path="$d/sock" \
		--ctrl type=unixio,path="$d/sock.ctrl" --tpmstate dir="$d" \
		--flags not-need-init,startup-clear --pid file="$d/pid" \
		>/dev/null 2>&1 &
	bg $!
	for _ in $(seq 1 100); do [ -S "$d/sock" ] && break; sleep 0.05; done
	( sleep 0.4; kill -9 "$(cat "$d/pid")" ) &
	t0=$(ms)
	run timeout 20 "$TPMBOX" -T "swtpm:path=$d/sock" getrandom -o "$d/out" 16777216
	t1=$(ms)
	assert_failure 3
	assert_output --regexp "TPM2_GetRandom: (reading from|writing to|swtpm socket).*$d/sock"
	[ $((t1 - t0)) -lt 5000 ]
	[ ! -e "$d/out" ]
	[ -z "$(ls "$d" | grep out.tmp)" ]
}

@test "transport: a TPM that never answers, --timeout 1 -> 3 within 2 s" {
	fake hang
	t0=$(ms)
	run timeout 10 "$TPMBOX" --timeout 1 -T "swtpm:path=$F" getrandom 8
	t1=$(ms)
	assert_failure 3
	assert_output --partial "TPM2_GetRandom: swtpm socket $F did not answer within 1 s"
	[ $((t1 - t0)) -ge 900 ]
	[ $((t1 - t0)) -lt 2000 ]
}

@test "transport: a TPM that stops mid-header, --timeout=1 after the applet -> 3" {
	fake hangpart
	t0=$(ms)
	run timeout 10 "$TPMBOX" -T "swtpm:path=$F" getrandom 8 --timeout=1
	t1=$(ms)
	assert_failure 3
	assert_output --partial "did not answer within 1 s"
	[ $((t1 - t0)) -lt 2000 ]
}

@test "transport: --timeout must be 1-86400 seconds" {
	for v in 0 abc -1 86401 ""; do
		run tb --timeout "$v" getrandom 1
		assert_failure 2
		assert_output --partial "bad --timeout '$v'"
	done
}

@test "transport: TPM_RC_INITIALIZE (swtpm without startup-clear) -> clear message, no Startup sent" {
	d=$BATS_TEST_TMPDIR/ni; mkdir -p "$d"
	swtpm socket --tpm2 --server type=unixio,path="$d/sock" \
		--ctrl type=unixio,path="$d/sock.ctrl" --tpmstate dir="$d" \
		--flags not-need-init >/dev/null 2>&1 &
	bg $!
	for _ in $(seq 1 100); do [ -S "$d/sock" ] && break; sleep 0.05; done
	for a in "getrandom 1" "pcrread sha256:0" "info"; do
		run tb -T "swtpm:path=$d/sock" $a
		assert_failure 1
		assert_output --partial "TPM_RC_INITIALIZE: the TPM was not started"
		assert_output --partial "hint: start it with TPM2_Startup"
	done
	# tpmbox did not start it behind our back: tpm2-tools still sees it down
	run env TPM2TOOLS_TCTI="swtpm:path=$d/sock" tpm2_getrandom 1
	assert_failure
	assert_output --partial "0x100"
}

@test "transport: GetRandom answered with more bytes than asked -> rejected" {
	fake bigrandom
	run tb -T "swtpm:path=$F" getrandom --hex 4
	assert_failure 3
	assert_output --partial "TPM2_GetRandom: the TPM returned more bytes than the 4 asked for"
	refute_output --regexp '^[0-9a-f]+$'
}

@test "transport: bytes left after a response -> rejected" {
	fake trailing
	run tb -T "swtpm:path=$F" getrandom 4
	assert_failure 3
	assert_output --partial "TPM2_GetRandom: 2 unexpected bytes after the response"
}

@test "transport: impossible response sizes -> 3" {
	fake badsize
	run tb -T "swtpm:path=$F" getrandom 4
	assert_failure 3
	assert_output --partial "sent a response with an impossible size (9 bytes)"
	teardown
	sleep 0.1
	fake hugesize
	run tb -T "swtpm:path=$F" getrandom 4
	assert_failure 3
	assert_output --partial "impossible size (1048576 bytes)"
}

@test "transport: a TPM 1.2 answering -> a clear refusal (no 1.2 path) or its rc (1.2 path)" {
	fake tpm12
	run tb -T "swtpm:path=$F" nvincrement 0x1500000
	assert_failure 2
	assert_output --partial "this TPM is a TPM 1.2, and this applet works only with a TPM 2.0"
	# pcrread has a 1.2 path: the family probe, then TPM_GetCapability,
	# whose error (TPM_FAILEDSELFTEST here) is decoded.
	run tb -T "swtpm:path=$F" pcrread
	assert_failure 1
	assert_output --partial "TPM_GetCapability: TPM_FAILEDSELFTEST: the TPM failed its self-test"
}

@test "transport: TPM_RC_RETRY is retried; a TPM that always says RETRY gives up" {
	fake retry2
	run tb -T "swtpm:path=$F" getrandom --hex 4
	assert_success
	assert_output "01080f16"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/fake.log")" -eq 3 ]
	teardown
	sleep 0.1
	rm -f "$BATS_TEST_TMPDIR/fake.log"
	fake retry
	run timeout 30 "$TPMBOX" -T "swtpm:path=$F" getrandom 4
	assert_failure 1
	assert_output --partial "TPM2_GetRandom: TPM_RC_RETRY"
	n=$(wc -l < "$BATS_TEST_TMPDIR/fake.log")
	[ "$n" -gt 3 ]
	[ "$n" -le 20 ]
}

# A policy session started by a client that then goes away without
# flushing it (what a killed process leaves): TPM2_StartAuthSession,
# unbound, unsalted, through tpm2_send; the answer: a 0x03 handle.
leave_session() {
	printf '%s%s%s' 80010000002b00000176 40000007400000070010 \
		000000000000000000000000000000000000010010000b |
		xxd -r -p | tpm2_send -T "swtpm:path=${TPMBOX_TCTI#swtpm:path=}" |
		xxd -p | grep -q '^8001000000200000000003'
}

@test "transport: objects and sessions a killed process left in a TPM without a resource manager are flushed when it is full; another tool's saved session and persistent keys are kept" {
	export TPM2TOOLS_TCTI="swtpm:path=${TPMBOX_TCTI#swtpm:path=}"
	d=$BATS_TEST_TMPDIR
	tb takeown >/dev/null
	pers=$(tpm2_getcap handles-persistent)
	[ -n "$pers" ]
	# tpm2-tools leaves each primary loaded when nothing flushes for
	# it; three fill swtpm, and the fourth is refused (the control)
	for i in 1 2 3; do tpm2_createprimary -C o -G ecc -c "$d/p$i.ctx" >/dev/null; done
	run tpm2_createprimary -C o -G ecc -c "$d/p4.ctx"
	assert_failure
	assert_output --partial "0x902"
	tpm2_startauthsession --policy-session -S "$d/saved.ctx"
	leave_session
	leave_session
	[ "$(tpm2_getcap handles-transient | wc -l)" -eq 3 ]
	[ "$(tpm2_getcap handles-loaded-session | wc -l)" -eq 2 ]
	saved=$(tpm2_getcap handles-saved-session)
	[ -n "$saved" ]
	head -c 32 /dev/urandom > "$d/secret"
	tb seal -p sha256:0 -o "$d/blob" "$d/secret"
	[ -z "$(tpm2_getcap handles-transient)" ]
	# sessions were not short: the two left over are still there
	[ "$(tpm2_getcap handles-loaded-session | wc -l)" -eq 2 ]
	# the other tool's saved session is still there and still works
	[ "$(tpm2_getcap handles-saved-session)" = "$saved" ]
	tpm2_policypcr -S "$d/saved.ctx" -l sha256:0 >/dev/null
	tpm2_flushcontext "$d/saved.ctx"
	tb unseal "$d/blob" | cmp - "$d/secret"
	# sessions full: unseal's sessions find room too
	leave_session
	run tpm2_startauthsession -S "$d/s2.ctx"
	assert_failure
	assert_output --partial "0x903"
	tb unseal "$d/blob" | cmp - "$d/secret"
	[ -z "$(tpm2_getcap handles-loaded-session)" ]
	[ -z "$(tpm2_getcap handles-transient)" ]
	[ "$(tpm2_getcap handles-persistent)" = "$pers" ]
	tb info >/dev/null
}

@test "transport: a TPM that stays full after the flush: one more try, then exit 1 naming OBJECT_MEMORY (no loop)" {
	fake full
	run tb -T "swtpm:path=$F" getrandom 4
	assert_failure 1
	assert_output --partial "TPM2_GetRandom: TPM_RC_OBJECT_MEMORY"
	# GetRandom, the transient handles, three flushes, GetRandom again
	[ "$(tr '\n' ' ' < "$BATS_TEST_TMPDIR/fake.log")" = \
	  "0x17b 0x17a 0x165 0x165 0x165 0x17b " ]
}

@test "transport: 150 damaged responses: no crash, no hang, valid JSON whenever it succeeds" {
	# TRANSPORT_SEED=N replays a run; a failure prints its seed.
	seed=${TRANSPORT_SEED:-$RANDOM}
	echo "faketpm mutate seed $seed"
	FAKETPM_TARGET=${TPMBOX_TCTI#swtpm:path=} FAKETPM_SEED=$seed fake mutate
	d=$BATS_TEST_TMPDIR
	oks=0 fails=0
	for i in $(seq 1 50); do
		for cmd in "info --json" "pcrread --json" "extend 9 -s x -v"; do
			set +e
			timeout 10 "$TPMBOX" -T "swtpm:path=$F" $cmd > "$d/out" 2> "$d/err"
			rc=$?
			set -e
			case $rc in
			0)	oks=$((oks + 1))
				[ "$cmd" = "extend 9 -s x -v" ] || jq . "$d/out" >/dev/null ||
					{ echo "invalid JSON from $cmd:"; cat "$d/out"; false; } ;;
			1|3)	fails=$((fails + 1))
				grep -q '^tpmbox [a-z]*: ' "$d/err" || { echo "no message: $cmd"; cat "$d/err"; false; } ;;
			2)	# A damaged capability answer can make the request
				# itself look wrong for this TPM (PCR 9 out of range,
				# bank not allocated): the message must say so.
				fails=$((fails + 1))
				grep -q '^tpmbox [a-z]*: .*this TPM' "$d/err" || { echo "$cmd -> exit 2"; cat "$d/err"; false; } ;;
			*)	echo "$cmd -> exit $rc"; cat "$d/err"; false ;;
			esac
		done
	done
	echo "ok $oks, refused $fails"
	[ "$fails" -gt 50 ]
}

@test "transport: more handles than tpmbox lists is an error, never a short list" {
	fake handles
	# 2100 NV indices over 9 pages of GetCapability (moreData), after
	# the family probe (nvlist works on a 1.2 too), a GetCapability too
	run tb -T "swtpm:path=$F" nvlist
	assert_failure 1
	assert_output --partial "tpmbox nvlist: the TPM lists more than 2048 handles of type 0x01"
	[ "$(grep -c '^0x17a$' "$BATS_TEST_TMPDIR/fake.log")" -eq 10 ]
	# within the limit: paging goes on to the next command
	kill "$(cat "$BATS_TEST_TMPDIR/pids")"; rm -f "$BATS_TEST_TMPDIR/pids" "$BATS_TEST_TMPDIR/fake.log"
	FAKETPM_HANDLES=600 fake handles
	run tb -T "swtpm:path=$F" nvlist
	assert_failure
	refute_output --partial "more than"
	[ "$(grep -c '^0x17a$' "$BATS_TEST_TMPDIR/fake.log")" -eq 4 ]
	grep -q '^0x169$' "$BATS_TEST_TMPDIR/fake.log"	# then NV_ReadPublic
}
