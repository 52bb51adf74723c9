#!/usr/bin/env bats
# Issue 28: the small build for a board's CPU (make tiny ARCH=..., and
# make tiny-initramfs ARCH=...) under qemu-user, talking to this suite's
# swtpm on the host: a chosen set of jobs (getrandom, pcrread, extend,
# seal/unseal with PCRs and a password, escrow recover, NV, akcreate and
# quote, a TPM 1.2 seal/unseal, the initramfs keyscript), and the checks
# only a build for another CPU can make: blobs and quotes made by one
# build are read by the x86-64 build and the other way round,
# quotes are verified by tpm2-tools too, and event and IMA logs (little-
# endian by definition) replay to the same PCRs as on x86-64 and as
# Python says.
#
# One ARCH a run: CROSS_ARCH (arm64, armhf, s390x, riscv64; default
# s390x, the big-endian one).  The binaries: TPMBOX_CROSS and
# TPMBOX_CROSS_INITRAMFS (default tpmbox-tiny-ARCH and
# tpmbox-initramfs-ARCH in the tree); the x86-64 side: TPMBOX_HOST
# (default the tree's tpmbox).  $TPMBOX is not used here, so the same run
# can give the other suites the cross build as $TPMBOX: make check runs
# this suite beside a chosen set of others once for each ARCH
# (tests/run-all.sh); run-all's other passes leave it out.  A binary or an
# emulator missing is a failure, not a skip: install-deps.sh installs the
# tools, make check builds the binaries.

load helpers/common

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
CROSS_ARCH=${CROSS_ARCH:-s390x}
MK=$BATS_TEST_DIRNAME/helpers/mklog.py
FIX=$BATS_TEST_DIRNAME/../../shared/fixtures/eventlog
KS=$ROOT/initramfs/tpmbox-unlock

HOST=${TPMBOX_HOST:-$ROOT/tpmbox}

setup_file() {
	local b
	[ -x "$HOST" ] || { echo "$HOST (the x86-64 build) is not built" >&2; return 1; }
	export XBIN=${TPMBOX_CROSS:-$ROOT/tpmbox-tiny-$CROSS_ARCH}
	export XIBIN=${TPMBOX_CROSS_INITRAMFS:-$ROOT/tpmbox-initramfs-$CROSS_ARCH}
	for b in "$XBIN" "$XIBIN"; do
		[ -x "$b" ] || {
			echo "$b is not built (make tiny ARCH=$CROSS_ARCH; make tiny-initramfs ARCH=$CROSS_ARCH)" >&2
			return 1
		}
	done
	# the wrappers that run them under qemu-user, as $TPMBOX runs
	export XW=$BATS_FILE_TMPDIR/x/tpmbox XIW=$BATS_FILE_TMPDIR/xi/tpmbox
	mkdir -p "${XW%/*}" "${XIW%/*}"
	cross_wrapper "$CROSS_ARCH" "$XBIN" "$XW" &&
		cross_wrapper "$CROSS_ARCH" "$XIBIN" "$XIW" || return 1
	TPMBOX=$XW swtpm_start
	export D=$BATS_FILE_TMPDIR
	head -c 48 /dev/urandom > "$D/secret"
	# the SRK persisted by the cross build (its RSA and ECC work runs
	# emulated), its name kept for the quotes' qualifiedSigner
	x takeown > "$D/takeown"
}

teardown_file() { swtpm_stop; }

# x ARGS: the cross build (under qemu); xi ARGS: its initramfs profile.
x() { "$XW" "$@"; }
xi() { "$XIW" "$@"; }

# replay [LOCALITY]: PCR values from "PCR BANK HEX" lines on stdin (what
# mklog.py says the log extends; a TPM starts from zeros, PCR 0 from the
# startup locality), as pcrread prints them: Python's hashlib, not tpmbox.
replay() {
	python3 -c '
import hashlib, sys
pcr = {}
loc = int(sys.argv[1]) if len(sys.argv) > 1 else 0
for line in sys.stdin:
    i, bank, d = line.split()
    n = hashlib.new(bank).digest_size
    start = bytes(n - 1) + bytes([loc if int(i) == 0 else 0])
    old = pcr.get((bank, int(i)), start)
    pcr[(bank, int(i))] = hashlib.new(bank, old + bytes.fromhex(d)).digest()
for (bank, i) in sorted(pcr, key=lambda k: (k[0], k[1])):
    print("%s:%d %s" % (bank, i, pcr[(bank, i)].hex()))
' "$@"
}

# flip FILE: the PEM FILE with one byte of its body changed.
flip_pem() {
	awk 'NR == 3 { $0 = (substr($0, 1, 1) == "A" ? "B" : "A") substr($0, 2) } { print }' "$1"
}

@test "cross: the ARCH build is ARCH's, static, with make tiny's applets (and tiny-initramfs' profile), and runs by applet name" {
	case $CROSS_ARCH in
	arm64) want="ARM aarch64" ;;
	armhf) want="32-bit LSB .* ARM, EABI5" ;;
	s390x) want="64-bit MSB .* IBM S/390" ;;
	riscv64) want="64-bit LSB .* RISC-V" ;;
	esac
	file -L "$XBIN" | grep -E "$want" | grep -q "statically linked"
	file -L "$XIBIN" | grep -E "$want" | grep -q "statically linked"
	# the same applets as the x86-64 small builds (or the list they are
	# made from, when those are not built)
	if [ -x "$ROOT/tpmbox-tiny" ]; then
		diff <("$ROOT/tpmbox-tiny" --list) <(x --list)
	fi
	if [ -x "$ROOT/tpmbox-initramfs" ]; then
		diff <("$ROOT/tpmbox-initramfs" --list) <(xi --list)
	fi
	[ "$(xi --list | awk '{print $1}' | sort | tr '\n' ' ')" = "extend getrandom pcrread recover unseal " ]
	# the packed --help texts unpack to the default build's bytes
	diff <("$HOST" seal --help) <(x seal --help)
	# argv[0] dispatch: a link named after the applet
	ln -s "$XW" "$BATS_TEST_TMPDIR/getrandom"
	[ "$("$BATS_TEST_TMPDIR/getrandom" 9 | wc -c)" -eq 9 ]
}

@test "cross: getrandom: the sizes asked for, chunked past one answer, never the same twice" {
	a=$(x getrandom --hex 32)
	[[ $a =~ ^[0-9a-f]{64}$ ]]
	[ "$(x getrandom --hex 32)" != "$a" ]
	[ "$(x getrandom 70000 | wc -c)" -eq 70000 ]
	[ "$(xi getrandom 1000 | wc -c)" -eq 1000 ]
}

@test "cross: pcrread and extend: the same values as the x86-64 build and tpm2-tools; the extend is H(old || H(data)) per bank" {
	sel="sha1:0-23+sha256:0-23"
	diff <("$HOST" pcrread "$sel") <(x pcrread "$sel")
	diff <("$HOST" pcrread --json "$sel") <(x pcrread --json "$sel")
	tpm2_pcrreset 16
	x extend 16 -s "cross $CROSS_ARCH" >/dev/null
	want=$(python3 -c 'import hashlib, sys
for b in ("sha1", "sha256"):
    d = hashlib.new(b, sys.argv[1].encode()).digest()
    print("%s:16 %s" % (b, hashlib.new(b, bytes(len(d)) + d).hexdigest()))' "cross $CROSS_ARCH")
	[ "$(x pcrread sha1:16+sha256:16)" = "$want" ]
	[ "$("$HOST" pcrread sha1:16+sha256:16)" = "$want" ]
	tpm2_pcrread sha256:16 | grep -qi "0x${want##* }"
	# a raw digest, and the initramfs profile's extend
	dg=$(printf raw | sha256sum | cut -c1-64)
	old=$(x pcrread sha256:16 | cut -d' ' -f2)
	xi extend 16 -d "$dg" -b sha256
	[ "$(tpm2_pcrread sha256:16 | sed -n 's/.*0x//p' | tr A-F a-f)" = \
	  "$(printf '%s%s' "$old" "$dg" | xxd -r -p | sha256sum | cut -c1-64)" ]
	[ "$(xi pcrread sha256:16)" = "$("$HOST" pcrread sha256:16)" ]
}

@test "cross: seal/unseal to PCRs and a password: unseals on this build and the x86-64 one both ways; wrong password, moved PCR, damaged blob refused" {
	tpm2_pcrreset 16
	x seal -p sha256:0,7,16 --auth str:pw -o "$D/x.blob" "$D/secret"
	cmp <(x unseal --auth str:pw "$D/x.blob") "$D/secret"
	cmp <(xi unseal --auth str:pw "$D/x.blob") "$D/secret"
	# byte order: the cross build's blob on x86-64, and x86-64's here
	cmp <("$HOST" unseal --auth str:pw "$D/x.blob") "$D/secret"
	"$HOST" seal -p sha256:0,7,16 --auth str:pw -o "$D/h.blob" "$D/secret"
	cmp <(x unseal --auth str:pw "$D/h.blob") "$D/secret"
	# the checks can fail: a wrong password, a damaged blob
	run x unseal --auth str:wrong "$D/x.blob"
	assert_failure 4
	flip_pem "$D/h.blob" > "$D/bad.blob"
	! cmp -s "$D/h.blob" "$D/bad.blob" || false
	run x unseal --auth str:pw "$D/bad.blob"
	assert_failure
	[[ $output != *"$(head -c 8 "$D/secret" | tr -d '\0')"* ]] || false
	x dalock --reset >/dev/null
	# the PCR moves: refused by both builds, for both blobs
	tpm2_pcrextend "16:sha256=$(printf x | sha256sum | cut -c1-64)"
	run x unseal --auth str:pw "$D/h.blob"
	assert_failure 4
	run "$HOST" unseal --auth str:pw "$D/x.blob"
	assert_failure 4
	tpm2_pcrreset 16
}

@test "cross: escrow: recover opens the cross build's copies (EC key, age identity, recovery code) on either build; openssl and age open them too" {
	e=$BATS_TEST_TMPDIR
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$e/ec.key" -out "$e/ec.pem" -subj /CN=cross -days 2 2>/dev/null
	age-keygen -o "$e/age.txt" 2>/dev/null
	x seal -p sha256:7 --escrow "$e/ec.pem" --escrow "$(age-keygen -y "$e/age.txt")" \
		--recovery-code-out "$e/code" --escrow-out "$e/esc" -o "$e/b" "$D/secret"
	cmp <(x recover -k "$e/ec.key" "$e/b") "$D/secret"
	cmp <(x recover -k "$e/age.txt" "$e/b") "$D/secret"
	cmp <(x recover --recovery-code "file:$e/code" "$e/b") "$D/secret"
	cmp <(xi recover -k "$e/ec.key" "$e/b") "$D/secret"
	cmp <("$HOST" recover -k "$e/age.txt" "$e/b") "$D/secret"
	cmp <("$HOST" recover --recovery-code "file:$e/code" "$e/b") "$D/secret"
	openssl cms -decrypt -inform PEM -in "$e/esc.cms" -inkey "$e/ec.key" | cmp - "$D/secret"
	age -d -i "$e/age.txt" "$e/esc.age" | cmp - "$D/secret"
	# and the x86-64 build's copies here; a wrong code is refused
	"$HOST" seal -p sha256:7 --escrow "$e/ec.pem" --recovery-code-out "$e/code2" \
		-o "$e/h" "$D/secret"
	cmp <(x recover -k "$e/ec.key" "$e/h") "$D/secret"
	cmp <(xi recover --recovery-code "file:$e/code2" "$e/h") "$D/secret"
	run x recover --recovery-code "file:$e/code" "$e/h"
	assert_failure
}

@test "cross: NV define/write/read: tpm2-tools and the x86-64 build read what it wrote; a counter's 64-bit value reads the same" {
	head -c 1500 /dev/urandom > "$BATS_TEST_TMPDIR/data"
	x nvdefine 0x01500028 -s 1500
	x nvwrite 0x01500028 -i "$BATS_TEST_TMPDIR/data"
	cmp <(x nvread 0x01500028) "$BATS_TEST_TMPDIR/data"
	cmp <("$HOST" nvread 0x01500028) "$BATS_TEST_TMPDIR/data"
	cmp <(tpm2_nvread 0x01500028 -C o) "$BATS_TEST_TMPDIR/data"
	x nvrelease 0x01500028
	run tpm2_nvreadpublic 0x01500028
	assert_failure
	# a counter: 8 bytes, big-endian on the wire
	x nvdefine 0x01500029 -t counter
	x nvincrement 0x01500029
	a=$(tpm2_nvread 0x01500029 -C o | xxd -p)
	[ "$(x nvread 0x01500029 --hex)" = "$a" ]
	x nvincrement 0x01500029
	[ $((0x$(x nvread 0x01500029 --hex) - 0x$a)) -eq 1 ]
	[ "$(x nvread 0x01500029 --hex)" = "$("$HOST" nvread 0x01500029 --hex)" ]
	x nvrelease 0x01500029
}

@test "cross: akcreate/quote: the cross build's quotes verify with the x86-64 build's checkquote and tpm2_checkquote, x86-64's with its own; a wrong nonce fails" {
	q=$BATS_TEST_TMPDIR
	srk=$(grep -E '^[0-9a-f]{68}$' "$D/takeown")
	[ -n "$srk" ]
	x akcreate -o "$q/ak.blob" --pub "$q/ak.pem" --tpm-public "$q/ak.pub" >/dev/null
	x quote -k "$q/ak.blob" -p sha256:0,7,16+sha1:7 -n c0ffee -o "$q/q" \
		--msg "$q/m" --sig "$q/s" --pcrs "$q/p"
	x checkquote -k "$q/ak.pub" -n c0ffee "$q/q" > "$q/xv"
	"$HOST" checkquote -k "$q/ak.pub" -n c0ffee "$q/q" > "$q/hv"
	diff "$q/xv" "$q/hv"
	diff "$q/xv" <("$HOST" pcrread sha256:0,7,16+sha1:7)
	"$HOST" checkquote -k "$q/ak.pub" --srk-name "$srk" -n c0ffee "$q/q" >/dev/null
	tpm2_checkquote -u "$q/ak.pem" -m "$q/m" -s "$q/s" -f "$q/p" -q c0ffee
	"$HOST" checkquote -k "$q/ak.pem" -n c0ffee --msg "$q/m" --sig "$q/s" --pcrs "$q/p" >/dev/null
	run x checkquote -k "$q/ak.pub" -n c0ffef "$q/q"
	assert_failure 1
	assert_output --partial "nonce check failed"
	# RSA, made and quoted by x86-64, checked here
	"$HOST" akcreate --rsa -o "$q/rak.blob" --tpm-public "$q/rak.pub" >/dev/null
	"$HOST" quote -k "$q/rak.blob" -p sha256:0-7 -n 0102 -o "$q/rq"
	diff <(x checkquote -k "$q/rak.pub" -n 0102 "$q/rq") \
		<("$HOST" checkquote -k "$q/rak.pub" -n 0102 "$q/rq")
	# and an attestation altered in one byte fails here
	cp "$q/m" "$q/m2"
	# (xor, not a fixed value: byte 40 is in the AK's name and is 0x55
	# for one AK in 256; the copy was then unchanged and checked fine)
	b=$(od -An -tu1 -j 40 -N1 "$q/m")
	printf "$(printf '\\x%02x' $(( b ^ 0xff )))" |
		dd of="$q/m2" bs=1 seek=40 conv=notrunc 2>/dev/null
	run cmp -s "$q/m" "$q/m2"
	assert_failure
	run x checkquote -k "$q/ak.pem" -n c0ffee --msg "$q/m2" --sig "$q/s" --pcrs "$q/p"
	assert_failure 1
}

@test "cross: event logs and IMA logs replay to the same PCRs as on x86-64 and as Python computes; the real machines' logs to tpm2_eventlog's" {
	l=$BATS_TEST_TMPDIR
	python3 "$MK" boot "$l/boot.bin" --banks sha1,sha256 --locality 3 \
		0:8:crtm 0:4:sep 7:13:grub 4:13:kernel 7:4:sep > "$l/boot.ext"
	replay 3 < "$l/boot.ext" > "$l/boot.want"
	diff <(x eventlog --pcrs "$l/boot.bin") "$l/boot.want"
	diff <(x eventlog "$l/boot.bin") <("$HOST" eventlog "$l/boot.bin")
	python3 "$MK" ima "$l/ima.bin" --template ima-ng --alg sha256 \
		--banks sha1,sha256 /init /usr/bin/a '!/viol' /etc/b > "$l/ima.ext"
	awk '{ for (i = 2; i <= NF; i++) { split($i, a, "="); print $1, a[1], a[2] } }' \
		"$l/ima.ext" | replay > "$l/ima.want"
	diff <(x imalog --pcrs "$l/ima.bin") "$l/ima.want"
	diff <(x imalog "$l/ima.bin") <("$HOST" imalog "$l/ima.bin")
	python3 "$MK" ima "$l/sig.bin" --template ima-sig --banks sha1,sha256 /x /y >/dev/null
	diff <(x imalog --pcrs "$l/sig.bin") <("$HOST" imalog --pcrs "$l/sig.bin")
	# the real machines' logs, when ../shared/fixtures is here
	[ -d "$FIX" ] || return 0
	for b in "$FIX"/*.bin; do
		case $b in
		*/sml-*truncated*) continue ;;
		*/sml-*) diff <(x imalog --pcrs -b sha1 "$b") "${b%.bin}.pcrs" ;;
		*) diff <(x eventlog --pcrs "$b") "${b%.bin}.pcrs"
		   diff <(x eventlog "$b") <("$HOST" eventlog "$b") ;;
		esac || { echo "differs: $b"; return 1; }
	done
}

@test "cross: the initramfs keyscript with the ARCH initramfs build: unseals x86-64's blob, caps the PCR, then falls back to the passphrase; a recovery code opens the blob" {
	k=$BATS_TEST_TMPDIR
	printf '#!/bin/sh\necho "asked: $1" >&2\nprintf "%%s" "$(cat %s)"\n' "$k/typed" > "$k/ask"
	chmod 755 "$k/ask"
	printf fallback-pass > "$k/typed"
	printf 'TPMBOX_CAP_PCR=16\nTPMBOX_ASKPASS=%s\n' "$k/ask" > "$k/conf"
	tpm2_pcrreset 16
	"$HOST" pcrread sha256:7,16 > "$k/pcrs"
	"$HOST" seal -P "$k/pcrs" --recovery-code-out "$k/code" -o "$k/blob" "$D/secret"
	unlock() {
		env TPMBOX="$XIW" TPMBOX_UNLOCK_CONF="$k/conf" CRYPTTAB_NAME=root \
			CRYPTTAB_SOURCE=/dev/sda2 CRYPTTAB_KEY="$k/blob" \
			sh "$KS" "$k/blob" > "$k/out" 2> "$k/err"
	}
	unlock
	cmp "$k/out" "$D/secret"
	[ ! -s "$k/err" ]
	# the cap: H(zeros || H("tpmbox-unlock root")), by Python
	cap=$(python3 -c 'import hashlib; print(hashlib.sha256(bytes(32) + hashlib.sha256(b"tpmbox-unlock root").digest()).hexdigest())')
	[ "$(tpm2_pcrread sha256:16 | sed -n 's/.*0x//p' | tr A-F a-f)" = "$cap" ]
	unlock
	[ "$(cat "$k/out")" = fallback-pass ]
	grep -q "unseal refused (exit 4)" "$k/err"
	# the recovery code typed at the prompt: tpmbox recover, emulated
	grep -E '^[0-9]{6}(-[0-9]{6}){7}$' "$k/code" | tr - ' ' > "$k/typed"
	unlock
	cmp "$k/out" "$D/secret"
	tpm2_pcrreset 16
}

@test "cross: TPM 1.2: takeown, seal/unseal to PCRs with the ARCH build; the x86-64 build unseals its blob and it unseals x86-64's" {
	(
		swtpm12_start || exit 1
		trap swtpm_stop EXIT
		t=$BATS_TEST_TMPDIR
		x takeown > /dev/null || exit 1
		x seal -p 0,7 -o "$t/x12" "$D/secret" || exit 1
		cmp <(x unseal "$t/x12") "$D/secret" || exit 1
		cmp <("$HOST" unseal "$t/x12") "$D/secret" || exit 1
		"$HOST" seal -p 0,7 -o "$t/h12" "$D/secret" || exit 1
		cmp <(xi unseal "$t/h12") "$D/secret" || exit 1
		[ "$(x pcrread 0,7)" = "$("$HOST" pcrread 0,7)" ] || exit 1
		# a 1.2 blob damaged in one byte is refused
		flip_pem "$t/x12" > "$t/bad12"
		rc=0; x unseal "$t/bad12" > "$t/out" 2>/dev/null || rc=$?
		[ "$rc" -ne 0 ] && [ ! -s "$t/out" ] || { echo "damaged blob: exit $rc"; exit 1; }
	)
}

@test "cross: the hardening calls qemu-user passes on: no core file from a killed emulated run, and the process's memory locked (as root)" {
	h=$BATS_TEST_TMPDIR
	mkfifo "$h/in"
	cd "$h"
	ulimit -c unlimited 2>/dev/null || true
	# seal reads its secret from a pipe no one writes to: it waits
	"$XW" seal -p sha256:7 -o "$h/b" < "$h/in" > /dev/null 2>&1 &
	pid=$!
	exec 5> "$h/in"
	for _ in $(seq 1 100); do
		grep -q '^State:.*S' /proc/$pid/status 2>/dev/null &&
			[ "$(readlink /proc/$pid/fd/0 2>/dev/null)" = "$h/in" ] && break
		sleep 0.05
	done
	sleep 0.3
	if [ "$(id -u)" = 0 ]; then
		lck=$(awk '$1 == "VmLck:" { print $2 }' /proc/$pid/status)
		[ "${lck:-0}" -gt 0 ] || { echo "VmLck: $lck"; false; }
	fi
	kill -ABRT $pid
	wait $pid || true
	exec 5>&-
	# neither the kernel's core nor qemu's own guest core (qemu_*.core)
	! ls "$h" | grep -q core || { ls "$h"; false; }
}
