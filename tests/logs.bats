#!/usr/bin/env bats
# eventlog and imalog: real machines' logs (../shared/fixtures, when present),
# logs built here (tests/helpers/mklog.py), malformed and truncated logs.
# Oracles: tpm2_eventlog 5.4, the values swtpm computes when the same
# digests are extended with tpm2_pcrextend, the fixtures' .pcrs files.

load helpers/common

FIX="$BATS_TEST_DIRNAME/../../shared/fixtures/eventlog"
MK="$BATS_TEST_DIRNAME/helpers/mklog.py"

setup_file() { swtpm_start; }
teardown_file() { swtpm_stop; }

setup() { T=$BATS_TEST_TMPDIR; LOC_PID=; }

# A private swtpm of one test (the locality test) is stopped even when the
# test fails, so it cannot keep bats waiting.
teardown() { [ -z "$LOC_PID" ] || kill "$(cat "$LOC_PID")" 2>/dev/null || true; }

mk() { python3 "$MK" "$@"; }

# tpm2_eventlog's "pcrs:" section as "bank:index hex" lines.
t2_pcrs() {
	tpm2_eventlog "$1" | awk '
		/^pcrs:/ { on = 1; next }
		on && /^  [a-z0-9_]+:$/ { bank = $1; sub(":", "", bank); next }
		on && /^ +[0-9]+ *: *0x/ { l = $0; gsub(/[ \t]/, "", l); split(l, a, ":")
			sub("0x", "", a[2]); print bank ":" a[1] " " tolower(a[2]) }'
}

# tpm2_pcrread output for a selection as "bank:index hex" lines.
t2_read() {
	tpm2_pcrread "$1" | awk '
		/^  [a-z0-9_]+:$/ { bank = $1; sub(":", "", bank); next }
		/^ +[0-9]+ *: *0x/ { l = $0; gsub(/[ \t]/, "", l); split(l, a, ":")
			sub("0x", "", a[2]); print bank ":" a[1] " " tolower(a[2]) }'
}

# Extend what mklog.py boot printed ("PCR BANK HEX" lines) with tpm2_pcrextend.
t2_extend_boot() {
	local pcr bank hex
	while read -r pcr bank hex; do
		tpm2_pcrextend "$pcr:$bank=$hex" || return 1
	done <"$1"
}

# Extend what mklog.py ima printed ("PCR sha1=HEX sha256=HEX ...").
t2_extend_ima() {
	local pcr d
	while read -r pcr d; do
		tpm2_pcrextend "$pcr:${d// /,}" || return 1
	done <"$1"
}

# The PCRs of a "bank:index hex" list as a tpm2-tools selection.
sel_of() {
	awk '{ split($1, p, ":"); s[p[1]] = s[p[1]] (s[p[1]] ? "," : "") p[2] }
	     END { n = 0; for (b in s) { printf "%s%s:%s", n++ ? "+" : "", b, s[b] } }' "$1"
}

# PCRs 0-15 reset only with a TPM restart.  (Called in an "if" because
# swtpm_stop's "[ -n "$pid" ] && kill -9 ..." fails under bats' errexit
# when the process is already gone.)
reset_pcrs() {
	if ! swtpm_restart; then
		echo "swtpm did not restart" >&2
		return 1
	fi
}

# Offsets where records start, and the length: a cut there is a valid log.
boundaries() {
	"$TPMBOX" "$1" --json "$2" | sed -n 's/.*"offset": \([0-9]*\),.*/\1/p'
	stat -c %s "$2"
}

@test "fixtures: eventlog --pcrs equals tpm2_eventlog's .pcrs for every boot log" {
	[ -d "$FIX" ] || skip "no ../shared/fixtures/eventlog here"
	n=0
	for p in "$FIX"/*.pcrs; do
		case $p in */sml-*) continue ;; esac
		run tb eventlog --pcrs "${p%.pcrs}.bin"
		[ "$status" -eq 0 ] || { echo "$p: $output"; return 1; }
		diff <(echo "$output") "$p" || { echo "differs: $p"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 5 ]
}

@test "fixtures: replay equals tpm2_eventlog run now on the same files" {
	[ -d "$FIX" ] || skip "no ../shared/fixtures/eventlog here"
	for b in "$FIX"/*.bin; do
		case $b in */sml-*) continue ;; esac
		t2_pcrs "$b" >"$T/t2"
		[ -s "$T/t2" ]
		tb eventlog --pcrs "$b" >"$T/tb"
		diff <(sort "$T/t2") <(sort "$T/tb") || { echo "differs: $b"; return 1; }
	done
}

@test "fixtures: every event and digest as tpm2_eventlog lists them" {
	[ -d "$FIX" ] || skip "no ../shared/fixtures/eventlog here"
	for b in "$FIX"/*.bin; do
		case $b in */sml-*) continue ;; esac
		tpm2_eventlog "$b" | sed -n 's/^ *Digest: "\([0-9a-f]*\)"$/\1/p' >"$T/t2"
		tb eventlog "$b" | sed -n 's/^  [a-z0-9_x]* \([0-9a-f]*\)$/\1/p' >"$T/tb"
		[ "$(wc -l <"$T/t2")" -gt 10 ]
		diff "$T/t2" "$T/tb" || { echo "differs: $b"; return 1; }
		[ "$(tpm2_eventlog "$b" | grep -c '^  PCRIndex:')" -eq \
		  "$(tb eventlog "$b" | grep -c '^event ')" ]
	done
}

@test "fixtures: SHA-1 legacy log (event-uefi-sha1-log) replays sha1 only" {
	[ -d "$FIX" ] || skip "no ../shared/fixtures/eventlog here"
	run tb eventlog --pcrs "$FIX/event-uefi-sha1-log.bin"
	[ "$status" -eq 0 ]
	! grep -qv '^sha1:' <<<"$output" || false
	run tb eventlog "$FIX/event-uefi-sha1-log.bin"
	assert_line --partial "event 0: PCR 0 EV_S_CRTM_VERSION"
}

@test "fixtures: imalog --pcrs over sml-ima-ng-sha1 equals its .pcrs" {
	[ -d "$FIX" ] || skip "no ../shared/fixtures/eventlog here"
	run tb imalog --pcrs -b sha1 "$FIX/sml-ima-ng-sha1.bin"
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "$FIX/sml-ima-ng-sha1.pcrs")" ]
	run tb imalog "$FIX/sml-ima-ng-sha1.bin"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 6 ]
	assert_line --index 0 --regexp '^10 [0-9a-f]{40} ima-ng sha1:0{40} boot_aggregate$'
	assert_line --index 1 --regexp '^10 [0-9a-f]{40} ima-ng sha1:[0-9a-f]{40} /init$'
}

@test "fixtures: the truncated ima-sig log reports truncation, exit 1" {
	[ -d "$FIX" ] || skip "no ../shared/fixtures/eventlog here"
	f="$FIX/sml-ima-sig-sha256-truncated.bin"
	for opt in "" --pcrs --json; do
		run tb imalog $opt "$f"
		[ "$status" -eq 1 ]
		assert_output --partial "truncated at offset $(stat -c %s "$f")"
		assert_output --partial "entry 9 (at offset 987)"
	done
}

@test "generated crypto-agile log, sha1+sha256: tpm2_eventlog and swtpm agree" {
	mk boot "$T/a.bin" --banks sha1,sha256 0:8:crtm-1.0 0:1:post 4:13:grub \
		4:5:kernel 7:5:policy 0:4:sep 7:4:sep 4:4:sep >"$T/a.ext"
	tb eventlog --pcrs "$T/a.bin" >"$T/tb"
	[ "$(wc -l <"$T/tb")" -eq 6 ]
	diff <(t2_pcrs "$T/a.bin" | sort) <(sort "$T/tb")
	reset_pcrs
	t2_extend_boot "$T/a.ext"
	diff <(t2_read "$(sel_of "$T/tb")" | sort) <(sort "$T/tb")
	# Banks in the header's order, PCRs ascending.
	[ "$(cut -d' ' -f1 "$T/tb" | tr '\n' ' ')" = \
	  "sha1:0 sha1:4 sha1:7 sha256:0 sha256:4 sha256:7 " ]
}

@test "generated crypto-agile log: --check passes, then names the PCR after one more extend" {
	mk boot "$T/a.bin" 0:8:crtm 4:13:loader 7:5:sb 4:4:sep >"$T/a.ext"
	reset_pcrs
	t2_extend_boot "$T/a.ext"
	run tb eventlog --check "$T/a.bin"
	[ "$status" -eq 0 ]
	assert_output "6 PCRs match the log"
	tb extend 4 -d "$(printf %064x 7)" -b sha256
	run tb eventlog --check "$T/a.bin"
	[ "$status" -eq 1 ]
	assert_output --partial "1 PCR differs from the log: sha256:4"
	assert_line --regexp '^sha256:4 differs: log [0-9a-f]{64} tpm [0-9a-f]{64}$'
	refute_output --partial "sha1:4 differs"
}

@test "generated SHA-1 legacy log: tpm2_eventlog and swtpm agree, --check" {
	mk boot "$T/l.bin" --legacy --no-spec-id 0:8:crtm 0:1:post 2:13:option-rom \
		5:5:gpt 0:4:sep 2:4:sep 5:4:sep >"$T/l.ext"
	tb eventlog --pcrs "$T/l.bin" >"$T/tb"
	[ "$(cut -d' ' -f1 "$T/tb" | tr '\n' ' ')" = "sha1:0 sha1:2 sha1:5 " ]
	diff <(t2_pcrs "$T/l.bin" | sort) <(sort "$T/tb")
	reset_pcrs
	t2_extend_boot "$T/l.ext"
	diff <(t2_read sha1:0,2,5) "$T/tb"
	run tb eventlog --check "$T/l.bin"
	[ "$status" -eq 0 ]
	run tb eventlog "$T/l.bin"
	assert_line --index 0 'event 0: PCR 0 EV_S_CRTM_VERSION size 4: "crtm"'
}

@test "legacy log with a Spec ID Event00 header is SHA-1 and replays the same" {
	mk boot "$T/l0.bin" --legacy --no-spec-id 0:8:crtm 3:4:x >/dev/null
	mk boot "$T/l1.bin" --legacy 0:8:crtm 3:4:x >/dev/null
	diff <(tb eventlog --pcrs "$T/l0.bin") <(tb eventlog --pcrs "$T/l1.bin")
	run tb eventlog "$T/l1.bin"
	assert_line --index 0 --partial "EV_NO_ACTION size 25"
}

@test "StartupLocality 3: PCR 0 replays as swtpm started at locality 3 computes it" {
	mk boot "$T/s.bin" --locality 3 0:8:crtm 0:1:post 0:4:sep 1:4:sep >"$T/s.ext"
	# A private swtpm whose TPM2_Startup comes from locality 3.
	D=$(mktemp -d "$T/loc.XXXX")
	swtpm socket --tpm2 --server type=unixio,path="$D/sock" \
		--ctrl type=unixio,path="$D/sock.ctrl" --tpmstate dir="$D" \
		--flags not-need-init --pid file="$D/pid" </dev/null >"$D/out" 2>&1 3>&- &
	LOC_PID=$D/pid
	for _ in $(seq 1 200); do
		[ -s "$D/pid" ] && [ -S "$D/sock.ctrl" ] && [ -S "$D/sock" ] && break
		sleep 0.05
	done
	swtpm_ioctl --unix "$D/sock.ctrl" -l 3
	python3 -c "
import socket; s = socket.socket(socket.AF_UNIX); s.connect('$D/sock')
s.sendall(bytes.fromhex('80010000000c000001440000'))
assert s.recv(64).hex() == '80010000000a00000000'"
	swtpm_ioctl --unix "$D/sock.ctrl" -l 0
	export TPM2TOOLS_TCTI="swtpm:path=$D/sock" TPMBOX_TCTI="swtpm:path=$D/sock"
	[ "$(tb pcrread sha256:0)" = "sha256:0 $(printf %064x 3)" ]
	t2_extend_boot "$T/s.ext"
	tb eventlog --pcrs "$T/s.bin" >"$T/tb"
	diff <(t2_read sha1:0,1+sha256:0,1) "$T/tb"
	run tb eventlog --check "$T/s.bin"
	[ "$status" -eq 0 ]
	run tb eventlog "$T/s.bin"
	assert_line --index 2 "event 1: PCR 0 EV_NO_ACTION size 17: StartupLocality 3"
	# Without the event the same digests give other PCR 0 values.
	mk boot "$T/n.bin" 0:8:crtm 0:1:post 0:4:sep 1:4:sep >/dev/null
	[ "$(tb eventlog --pcrs "$T/n.bin" | grep ':0 ')" != "$(grep ':0 ' "$T/tb")" ]
	# PCR 1 is unaffected by the locality.
	[ "$(tb eventlog --pcrs "$T/n.bin" | grep ':1 ')" = "$(grep ':1 ' "$T/tb")" ]
}

@test "EV_NO_ACTION events are not extended" {
	mk boot "$T/x.bin" 0:8:crtm 1:3:not-measured 2:3:nor-this 0:4:sep >"$T/x.ext"
	run tb eventlog --pcrs "$T/x.bin"
	[ "$status" -eq 0 ]
	refute_output --partial ":1 "
	refute_output --partial ":2 "
	reset_pcrs
	t2_extend_boot "$T/x.ext"
	run tb eventlog --check "$T/x.bin"
	[ "$status" -eq 0 ]
	assert_output "2 PCRs match the log"
}

@test "eventlog --json: one object per event, digests per bank" {
	mk boot "$T/a.bin" 0:8:crtm 4:13:grub >/dev/null
	tb eventlog --json "$T/a.bin" >"$T/j"
	python3 - "$T/j" <<'EOF'
import json, sys, hashlib
d = json.load(open(sys.argv[1]))
assert d["format"] == "crypto-agile"
ev = d["events"]
assert [e["type"] for e in ev] == ["EV_NO_ACTION", "EV_S_CRTM_VERSION", "EV_IPL"]
assert ev[2]["pcr"] == 4 and ev[2]["data"] == b"grub".hex()
assert ev[2]["digests"]["sha256"] == hashlib.sha256(b"grub").hexdigest()
assert ev[2]["digests"]["sha1"] == hashlib.sha1(b"grub").hexdigest()
EOF
	run tb eventlog --json --pcrs "$T/a.bin"
	python3 -c 'import json,sys; d = json.loads(sys.argv[1]); assert set(d) == {"sha1", "sha256"}; assert set(d["sha1"]) == {"0", "4"}' "$output"
}

@test "IMA ima-ng (sha256 file digests) with a violation: swtpm agrees in sha1 and sha256" {
	mk ima "$T/i.bin" --template ima-ng boot_aggregate /init /usr/bin/sh \
		'!/var/log/violated' /usr/lib/libc.so >"$T/i.ext"
	grep -q "sha1=$(printf 'f%.0s' $(seq 40)) sha256=$(printf 'f%.0s' $(seq 64))" "$T/i.ext"
	reset_pcrs
	t2_extend_ima "$T/i.ext"
	tb imalog --pcrs "$T/i.bin" >"$T/tb"
	diff <(t2_read sha1:10+sha256:10) "$T/tb"
	run tb imalog --check -b sha256,sha1 "$T/i.bin"
	[ "$status" -eq 0 ]
	assert_output "sha256:10 matches the list
sha1:10 matches the list
2 banks match the log"
	# By default every allocated bank: swtpm also has sha384 and sha512,
	# which tpm2_pcrextend did not touch.
	run tb imalog --check "$T/i.bin"
	[ "$status" -eq 1 ]
	assert_output --partial "2 banks differ from the log: sha384:10 sha512:10"
	assert_output --partial "sha384:10: no prefix of the list matches, with sha384 template digests or SHA-1 ones zero-padded"
	run tb imalog "$T/i.bin"
	assert_line --index 3 --regexp "^10 0{40} ima-ng sha256:[0-9a-f]{64} /var/log/violated$"
	assert_line --index 2 "10 $(sed -n '3p' "$T/i.ext" | sed 's/.*sha1=\([0-9a-f]*\).*/\1/') ima-ng sha256:$(printf /usr/bin/sh | sha256sum | cut -c1-64) /usr/bin/sh"
}

@test "IMA --check fails naming PCR 10 after one more extend" {
	mk ima "$T/i.bin" boot_aggregate /init >"$T/i.ext"
	reset_pcrs
	t2_extend_ima "$T/i.ext"
	tb imalog --check -b sha1,sha256 "$T/i.bin"
	tb extend 10 -s one-more -b sha256
	run tb imalog --check -b sha1,sha256 "$T/i.bin"
	[ "$status" -eq 1 ]
	assert_output --partial "1 bank differs from the log: sha256:10"
	run tb imalog --check -b sha1 "$T/i.bin"
	[ "$status" -eq 0 ]
}

@test "IMA 'ima' template (padded name) and ima-sig: swtpm agrees" {
	for tpl in ima ima-sig; do
		mk ima "$T/$tpl.bin" --template $tpl boot_aggregate /sbin/init \
			'!/tmp/x' /usr/bin/bash >"$T/$tpl.ext"
		reset_pcrs
		t2_extend_ima "$T/$tpl.ext"
		tb imalog --pcrs "$T/$tpl.bin" >"$T/tb"
		diff <(t2_read sha1:10+sha256:10) "$T/tb"
	done
	run tb imalog "$T/ima.bin"
	assert_line --index 1 "10 $(sed -n '2p' "$T/ima.ext" | sed 's/.*sha1=\([0-9a-f]*\).*/\1/') ima $(printf /sbin/init | sha1sum | cut -c1-40) /sbin/init"
	run tb imalog "$T/ima-sig.bin"
	assert_line --index 1 --regexp "^10 [0-9a-f]{40} ima-sig sha256:[0-9a-f]{64} /sbin/init 0302[0-9a-f]{16}$"
	run tb imalog --json "$T/ima-sig.bin"
	python3 -c 'import json,sys; e = json.loads(sys.argv[1])["entries"]; assert len(e) == 4 and e[2]["invalid"] and e[1]["path"] == "/sbin/init" and e[1]["signature"].startswith("0302")' "$output"
}

@test "IMA sha384 and sha512 banks replay; unknown or unreplayable banks are refused" {
	mk ima "$T/i.bin" boot_aggregate /init '!/x' >/dev/null
	run tb imalog --pcrs -b sha384,sha512 "$T/i.bin"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	assert_line --index 0 --regexp '^sha384:10 [0-9a-f]{96}$'
	run tb imalog --pcrs -b md5 "$T/i.bin"
	[ "$status" -eq 2 ]
	assert_output --partial "unknown bank 'md5'"
	run tb imalog --pcrs -b sm3_256 "$T/i.bin"
	[ "$status" -eq 2 ]
	assert_output --partial "cannot replay an IMA log in bank sm3_256"
	run tb imalog --pcrs -b sha1,sha1 "$T/i.bin"
	[ "$status" -eq 2 ]
	assert_output --partial "given twice"
}

@test "IMA entry whose data does not match its template hash is refused" {
	mk ima "$T/i.bin" boot_aggregate /init >/dev/null
	python3 - "$T/i.bin" <<'EOF'
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read())
i = b.rfind(b"/init"); b[i + 1] ^= 0x20
open(p, "wb").write(b)
EOF
	run tb imalog "$T/i.bin"
	[ "$status" -eq 1 ]
	assert_output --partial "IMA entry 1 at offset"
	assert_output --partial "template hash does not match its template data"
}

@test "eventlog: every truncation of a small log is reported, exit 1" {
	mk boot "$T/a.bin" --locality 3 0:8:crtm 4:13:grub 0:4:sep >/dev/null
	mk boot "$T/l.bin" --legacy 0:8:crtm 4:13:grub >/dev/null
	: >"$T/empty"
	run tb eventlog "$T/empty"
	[ "$status" -eq 1 ]
	assert_output --partial "event log is empty"
	for f in a l; do
		b=" $(boundaries eventlog "$T/$f.bin" | tr '\n' ' ')"
		[ "$(wc -w <<<"$b")" -ge 4 ]
		len=$(stat -c %s "$T/$f.bin")
		nb=0
		for ((i = 1; i < len; i++)); do
			head -c $i "$T/$f.bin" >"$T/cut"
			run tb eventlog --pcrs "$T/cut"
			if [[ $b == *" $i "* ]]; then
				# Whole records: a shorter, valid log.
				[ "$status" -eq 0 ] || { echo "cut at $i: $output"; return 1; }
				nb=$((nb + 1))
				continue
			fi
			[ "$status" -eq 1 ] || { echo "$f cut at $i: $status $output"; return 1; }
			assert_output --partial "truncated at offset $i"
		done
		[ "$nb" -eq $(($(wc -w <<<"$b") - 2)) ]
	done
}

@test "imalog: every truncation of a small list is reported, exit 1" {
	for tpl in ima ima-ng ima-sig; do
		mk ima "$T/i.bin" --template $tpl boot_aggregate /init >/dev/null
		b=" $(boundaries imalog "$T/i.bin" | tr '\n' ' ')"
		len=$(stat -c %s "$T/i.bin")
		for ((i = 1; i < len; i++)); do
			head -c $i "$T/i.bin" >"$T/cut"
			run tb imalog --pcrs "$T/cut"
			if [[ $b == *" $i "* ]]; then
				[ "$status" -eq 0 ] || { echo "cut at $i: $output"; return 1; }
				[ "${#lines[@]}" -eq 2 ]
				continue
			fi
			[ "$status" -eq 1 ] || { echo "$tpl cut at $i: $status $output"; return 1; }
			assert_output --partial "truncated at offset $i"
		done
	done
	: >"$T/empty"
	run tb imalog "$T/empty"
	[ "$status" -eq 1 ]
	assert_output --partial "IMA log is empty"
}

@test "random bytes and bit flips: exit 0 or 1, never a crash" {
	# A smoke test of the applets' exit codes; the parsers' own fuzzing
	# is tests/fuzz (fuzz_eventlog, fuzz_imalog).  The inputs are made
	# in one Python run (150 runs of Python took 2 minutes of make check).
	mk boot "$T/a.bin" 0:8:crtm 4:13:grub 0:4:sep >/dev/null
	mk ima "$T/i.bin" --template ima-sig boot_aggregate /init >/dev/null
	mkdir -p "$T/rnd"
	python3 - "$T" <<'PY'
import os, random, sys
t = sys.argv[1]
for i in range(60):
    open(f"{t}/rnd/r{i}", "wb").write(os.urandom(random.randrange(1, 701)))
    for f in "ai":
        b = bytearray(open(f"{t}/{f}.bin", "rb").read())
        b[random.randrange(len(b))] = random.randrange(256)
        open(f"{t}/rnd/{f}{i}", "wb").write(b)
PY
	for i in $(seq 0 59); do
		for a in eventlog imalog; do
			run tb $a --pcrs "$T/rnd/r$i"
			[ "$status" -le 1 ] || { cp "$T/rnd/r$i" "$BATS_FILE_TMPDIR/crash.$a"; echo "$a: $status"; return 1; }
		done
		# One random byte of a valid log changed.
		for f in a i; do
			run tb eventlog --json "$T/rnd/$f$i"
			[ "$status" -le 1 ] || { echo "eventlog flip: $status"; return 1; }
			run tb imalog --json "$T/rnd/$f$i"
			[ "$status" -le 1 ] || { echo "imalog flip: $status"; return 1; }
		done
	done
}

@test "malformed logs name what is wrong" {
	# Spec ID header listing sha256 only, then an event with a sha1 digest.
	hdr="00000000 03000000 $(printf '0%.0s' $(seq 40)) 21000000"
	hdr+="$(printf 'Spec ID Event03' | xxd -p)00 00000000 00020002 01000000 0b002000 00"
	mk raw "$T/m1.bin" $hdr "00000000 08000000 01000000 0400" "$(printf '0%.0s' $(seq 40))" "00000000"
	run tb eventlog "$T/m1.bin"
	[ "$status" -eq 1 ]
	assert_output --partial "event 1 at offset 65: digest algorithm 0x0004 is not in the log header"
	# More digests than the header has algorithms.
	mk raw "$T/m2.bin" $hdr "00000000 08000000 02000000"
	run tb eventlog "$T/m2.bin"
	[ "$status" -eq 1 ]
	assert_output --partial "2 digests, but the header lists 1 algorithms"
	# An event data size beyond the limit.
	mk raw "$T/m3.bin" "00000000 08000000 $(printf '0%.0s' $(seq 40)) ffffff7f"
	run tb eventlog "$T/m3.bin"
	[ "$status" -eq 1 ]
	assert_output --partial "data size 2147483647 exceeds the limit"
	# A Spec ID event with no algorithms.
	mk raw "$T/m4.bin" "00000000 03000000 $(printf '0%.0s' $(seq 40)) 1d000000" \
		"$(printf 'Spec ID Event03' | xxd -p)00 00000000 00020002 00000000 00"
	run tb eventlog "$T/m4.bin"
	[ "$status" -eq 1 ]
	assert_output --partial "lists 0 algorithms"
	# PCR index beyond 31 in a replayed event.
	mk raw "$T/m5.bin" "40000000 08000000 $(printf '0%.0s' $(seq 40)) 00000000"
	run tb eventlog "$T/m5.bin"
	[ "$status" -eq 0 ]
	run tb eventlog --pcrs "$T/m5.bin"
	[ "$status" -eq 1 ]
	assert_output --partial "PCR 64 is out of range"
	# IMA: template name length 0, then one over the limit.
	mk raw "$T/i1.bin" "0a000000 $(printf '0%.0s' $(seq 40)) 00000000"
	run tb imalog "$T/i1.bin"
	[ "$status" -eq 1 ]
	assert_output --partial "template name length 0"
	mk raw "$T/i2.bin" "0a000000 $(printf '0%.0s' $(seq 40)) 00010000"
	run tb imalog "$T/i2.bin"
	[ "$status" -eq 1 ]
	assert_output --partial "template name length 256"
	# ima-ng template data whose field length runs past the data.
	mk raw "$T/i3.bin" "0a000000 $(printf '0%.0s' $(seq 40)) 06000000" \
		"$(printf ima-ng | xxd -p) 08000000 ff000000 00000000"
	run tb imalog "$T/i3.bin"
	[ "$status" -eq 1 ]
	assert_output --partial "template field 1 runs past the template data"
	# A big-endian list (a kernel without ima_canonical_fmt on s390).
	mk raw "$T/i4.bin" "0000000a $(printf '0%.0s' $(seq 40)) 00000006"
	run tb imalog "$T/i4.bin"
	[ "$status" -eq 1 ]
	assert_output --partial "PCR 167772160 is out of range"
	assert_output --partial "hint: a big-endian list?"
}

@test "usage errors exit 2; a missing file exits 6" {
	run tb eventlog --bogus
	[ "$status" -eq 2 ]
	run tb eventlog a b
	[ "$status" -eq 2 ]
	assert_output --partial "expected at most one FILE"
	run tb imalog a b
	[ "$status" -eq 2 ]
	run tb eventlog "$T/none"
	[ "$status" -eq 6 ]
	assert_output --partial "$T/none: no such file"
	run tb imalog --pcrs "$T/none"
	[ "$status" -eq 6 ]
	if [ ! -e /sys/kernel/security/tpm0/binary_bios_measurements ]; then
		run tb eventlog
		[ "$status" -eq 6 ]
		assert_output --partial "/sys/kernel/security/tpm0/binary_bios_measurements"
	fi
	if [ ! -e /sys/kernel/security/ima/binary_runtime_measurements ]; then
		run tb imalog
		[ "$status" -eq 6 ]
		assert_output --partial "/sys/kernel/security/ima/binary_runtime_measurements"
	fi
}

@test "--check with no TPM exits 3; a log of banks the TPM lacks is not 'ok'" {
	mk boot "$T/a.bin" 0:8:crtm >/dev/null
	run env TPMBOX_TCTI="swtpm:path=$T/nosock" "$TPMBOX" eventlog --check "$T/a.bin"
	[ "$status" -eq 3 ]
	# A log with only an EV_NO_ACTION event has nothing to compare.
	mk boot "$T/e.bin" 1:3:nothing >/dev/null
	run tb eventlog --check "$T/e.bin"
	[ "$status" -eq 1 ]
	assert_output --partial "no PCR of the log could be compared"
}

@test "--check skips a bank the TPM has not allocated, and says so" {
	mk boot "$T/a.bin" 0:8:crtm 4:13:grub >"$T/a.ext"
	# Only sha256 allocated from the next TPM reset on.
	tpm2_pcrallocate sha1:none+sha256:all >/dev/null
	reset_pcrs
	run tb pcrread sha1:0
	[ "$status" -eq 2 ]
	grep ' sha256 ' "$T/a.ext" >"$T/s.ext"
	t2_extend_boot "$T/s.ext"
	run tb eventlog --check "$T/a.bin"
	[ "$status" -eq 0 ]
	assert_line "sha1:0 not on this TPM; not checked"
	assert_line "sha1:4 not on this TPM; not checked"
	assert_line "2 PCRs match the log"
	# By default imalog checks the allocated banks only: no sha1 here.
	mk ima "$T/i.bin" boot_aggregate /init >"$T/i.ext"
	sed 's/ sha1=[0-9a-f]*//' "$T/i.ext" | while read -r pcr d; do
		tpm2_pcrextend "$pcr:$d"; done
	run tb imalog --check -b sha256 "$T/i.bin"
	[ "$status" -eq 0 ]
	assert_output "sha256:10 matches the list
1 bank matches the log"
	run tb imalog --check -b sha1 "$T/i.bin"
	[ "$status" -eq 1 ]
	assert_output --partial "sha1:10 not on this TPM; not checked"
	assert_output --partial "no PCR of the log could be compared"
	tpm2_pcrallocate sha1:all+sha256:all+sha384:all+sha512:all >/dev/null
	reset_pcrs
}

# Issue 13, found on Debian's 6.1 under QEMU (tests/vm): a kernel that
# cannot allocate a bank's hash extends it with the SHA-1 template digest
# zero-padded, per bank, depending on its configuration.
@test "imalog --check: sha384 extended with zero-padded SHA-1 digests, sha512 with its own" {
	mk ima "$T/i.bin" --banks sha1,sha256,sha384:padded,sha512 \
		boot_aggregate /init '!/var/v' /usr/bin/sh >"$T/i.ext"
	reset_pcrs
	t2_extend_ima "$T/i.ext"
	run tb imalog --check "$T/i.bin"
	[ "$status" -eq 0 ]
	assert_line "sha384:10 matches the list with SHA-1 template digests zero-padded (the kernel could not use sha384)"
	assert_line "sha512:10 matches the list"
	assert_line "sha256:10 matches the list"
	assert_line "4 banks match the log"
	# Now sha256 padded too and sha512 not: each bank on its own.
	mk ima "$T/j.bin" --banks sha1,sha256:padded,sha384,sha512:padded \
		boot_aggregate /init >"$T/j.ext"
	reset_pcrs
	t2_extend_ima "$T/j.ext"
	run tb imalog --check "$T/j.bin"
	[ "$status" -eq 0 ]
	assert_line "sha256:10 matches the list with SHA-1 template digests zero-padded (the kernel could not use sha256)"
	assert_line "sha384:10 matches the list"
	# A list with one entry other than the one extended matches no bank,
	# padded or not.
	reset_pcrs
	t2_extend_ima "$T/i.ext"
	mk ima "$T/k.bin" boot_aggregate /init '!/var/v' /usr/bin/other >/dev/null
	run tb imalog --check "$T/k.bin"
	[ "$status" -eq 1 ]
	assert_output --partial "4 banks differ from the log: sha1:10 sha256:10 sha384:10 sha512:10"
}

# The kernel appends to the list, then extends the PCR: a list read after
# the PCRs may have more entries, never fewer.
@test "imalog --check: the list ahead of the PCRs matches by its prefix and counts the rest" {
	mk ima "$T/i.bin" --banks sha1,sha256,sha384,sha512 \
		boot_aggregate /init /usr/bin/sh /usr/bin/late1 /usr/bin/late2 >"$T/i.ext"
	reset_pcrs
	head -n 3 "$T/i.ext" >"$T/first3"
	t2_extend_ima "$T/first3"
	run tb imalog --check "$T/i.bin"
	[ "$status" -eq 0 ]
	assert_line "sha256:10 matches the list up to entry 3 of 5; 2 beyond it, measured after the PCRs were read, are not covered"
	assert_line "4 banks match the log"
	# The TPM ahead of the list (an entry missing from it) still fails.
	mk ima "$T/short.bin" --banks sha1,sha256 boot_aggregate /init >/dev/null
	run tb imalog --check -b sha256 "$T/short.bin"
	[ "$status" -eq 1 ]
	assert_output --partial "1 bank differs from the log: sha256:10"
	# An entry inserted before the matched prefix breaks it.
	mk ima "$T/ins.bin" --banks sha1,sha256 boot_aggregate /hidden /init /usr/bin/sh >/dev/null
	run tb imalog --check -b sha256 "$T/ins.bin"
	[ "$status" -eq 1 ]
}

# ascii_runtime_measurements: one blank before every field, an empty one
# shows nothing after it; ima-buf shows its buffer in hex.
@test "imalog text: unsigned ima-sig keeps the trailing blank, ima-buf shows its buffer" {
	mk ima "$T/s.bin" --template ima-sig --empty-sig /init >"$T/s.ext"
	run tb imalog "$T/s.bin"
	[ "$status" -eq 0 ]
	[ "$output" = "10 $(sed 's/.*sha1=\([0-9a-f]*\).*/\1/' "$T/s.ext") ima-sig sha256:$(printf /init | sha256sum | cut -c1-64) /init " ]
	mk ima "$T/b.bin" --template ima-buf kernel_version >"$T/b.ext"
	run tb imalog "$T/b.bin"
	[ "$status" -eq 0 ]
	[ "$output" = "10 $(sed 's/.*sha1=\([0-9a-f]*\).*/\1/' "$T/b.ext") ima-buf sha256:$(printf buf:kernel_version | sha256sum | cut -c1-64) kernel_version $(printf buf:kernel_version | xxd -p)" ]
	# and it replays like any other template
	reset_pcrs
	t2_extend_ima "$T/b.ext"
	run tb imalog --check -b sha1,sha256 "$T/b.bin"
	[ "$status" -eq 0 ]
}

@test "eventlog decodes EV_EVENT_TAG (the EFI stub's initrd tag)" {
	# TCG_PCClientTaggedEvent: id 0x8f3b22ec, size 13, "Linux initrd\0"
	# (tpmbox-built log: type 6 with that data as its text is not
	# expressible in mklog's TEXT, so the fixture and the unit test carry
	# the exact bytes; this checks a real boot log when present).
	[ -f "$FIX/event-sd-boot-fedora37.bin" ] || skip "fixtures not present"
	run tb eventlog "$FIX/event-sd-boot-fedora37.bin"
	[ "$status" -eq 0 ]
	assert_line 'event 25: PCR 9 EV_EVENT_TAG size 21: tag 0x8f3b22ec (Linux initrd): "Linux initrd"'
}


# imalog_forge OUT NAME ALG PATH: one ima-ng entry (PCR 10) with these
# bytes as its template name, d-ng algorithm and file name.
imalog_forge() {
	python3 - "$@" <<'PY'
import hashlib, struct, sys
out, name, alg, path = sys.argv[1], *(a.encode().decode("unicode_escape").encode("latin-1") for a in sys.argv[2:])
le = lambda v: struct.pack("<I", v)
d = alg + b":\0" + hashlib.sha256(path).digest()
n = path + b"\0"
td = le(len(d)) + d + le(len(n)) + n
open(out, "wb").write(le(10) + hashlib.sha1(td).digest() + le(len(name)) + name + le(len(td)) + td)
PY
}

@test "imalog: a template name outside the kernel's grammar is exit 1 naming the entry; the algorithm and the path cannot forge a line or break the JSON" {
	fake="10 $(printf '0%.0s' $(seq 40)) ima-ng sha256:00 /etc/forged"
	# a newline in the template name: the text would hold a second entry
	imalog_forge "$T/name.bin" "ima-ng\\n$fake" sha256 /bin/sh
	run tb imalog "$T/name.bin"
	assert_failure 1
	assert_output --partial "IMA entry 0 at offset 0: the template name is not one the kernel writes"
	refute_output --partial "/etc/forged"
	run tb imalog --json "$T/name.bin"
	assert_failure 1
	imalog_forge "$T/quote.bin" 'ima-ng", "x": "y' sha256 /bin/sh
	run tb imalog --json "$T/quote.bin"
	assert_failure 1
	# a custom template's format is a name the kernel writes
	imalog_forge "$T/fmt.bin" 'd-ng|n-ng' sha256 /bin/sh
	run tb imalog --pcrs -b sha1 "$T/fmt.bin"
	assert_success
	# the d-ng algorithm and the path: escaped, one line, valid JSON
	imalog_forge "$T/alg.bin" ima-ng 'sha256\n10 "x' "/bin/sh\\n$fake"
	run tb imalog "$T/alg.bin"
	assert_success
	[ "${#lines[@]}" -eq 1 ]
	assert_line --index 0 --partial ' ima-ng sha256\x0a10\x20\x22x:'
	run tb imalog --json "$T/alg.bin"
	assert_success
	python3 -c 'import json,sys; e = json.loads(sys.argv[1])["entries"]; assert len(e) == 1; assert e[0]["digest_alg"] == "sha256\n10 \"x", e; assert e[0]["path"].startswith("/bin/sh\n10 "), e' "$output"
}

@test "eventlog: an event's text cannot forge a line of the text or break the JSON" {
	fake='event 9: PCR 0 EV_NO_ACTION size 0: forged'
	# a SHA-1 (TPM 1.2 format) log: PCR, type, digest, size, data
	python3 - "$T/e.bin" "$fake" <<'PY'
import hashlib, struct, sys
out, fake = sys.argv[1], sys.argv[2].encode()
le = lambda v: struct.pack("<I", v)
data = b'grub"\\\n' + fake
open(out, "wb").write(le(4) + le(0xd) + hashlib.sha1(data).digest() + le(len(data)) + data)
PY
	run tb eventlog "$T/e.bin"
	assert_success
	refute_line --regexp '^event 9: '
	run tb eventlog --json "$T/e.bin"
	assert_success
	python3 -c 'import json,sys; d = json.loads(sys.argv[1]); assert len(d["events"]) == 1, d' "$output"
}
