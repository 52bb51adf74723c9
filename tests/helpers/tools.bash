# Shell helpers the bats suites (through common.bash), make demo
# (tests/helpers/demo.sh) and make bench (bench/bench.sh) share; nothing
# here needs bats.

# throwaway_swtpm NAME: a TPM 2.0 swtpm on a unix socket in a new
# directory ${TMPDIR:-/tmp}/tpmbox-NAME.XXXXXX ($THROWAWAY_DIR: its state,
# sock, sock.ctrl, swtpm.log), stopped and removed when the script exits;
# $SWTPM_PID, TPMBOX_TCTI exported.  The caller waits until it answers.
throwaway_swtpm() {
	THROWAWAY_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tpmbox-$1.XXXXXX")
	SWTPM_PID=
	trap throwaway_cleanup EXIT
	trap 'exit 130' INT TERM
	swtpm socket --tpm2 \
		--server type=unixio,path="$THROWAWAY_DIR/sock" \
		--ctrl type=unixio,path="$THROWAWAY_DIR/sock.ctrl" \
		--tpmstate dir="$THROWAWAY_DIR" \
		--flags not-need-init,startup-clear \
		>"$THROWAWAY_DIR/swtpm.log" 2>&1 &
	SWTPM_PID=$!
	export TPMBOX_TCTI="swtpm:path=$THROWAWAY_DIR/sock"
}

throwaway_cleanup() {
	[ -n "$SWTPM_PID" ] && kill "$SWTPM_PID" 2>/dev/null
	[ -n "$SWTPM_PID" ] && wait "$SWTPM_PID" 2>/dev/null
	rm -rf "$THROWAWAY_DIR"
}

# tss2_pieces BLOB DIR: the TSS2 PRIVATE KEY block of BLOB taken apart for
# tpm2-tools: DIR/pub (pubkey, TPM2B_PUBLIC), DIR/priv (privkey,
# TPM2B_PRIVATE; the duplicate of an importable key) and, when present,
# DIR/seed (secret [2], TPM2B_ENCRYPTED_SECRET).
tss2_pieces() {
	mkdir -p "$2"
	sed -n '/BEGIN TSS2/,/END TSS2/p' "$1" | sed '1d;$d' | base64 -d |
	python3 -c '
import sys
d = sys.stdin.buffer.read()
def tlv(b, i):
    t = b[i]; n = b[i + 1]; i += 2
    if n & 0x80:
        k = n & 0x7f; n = int.from_bytes(b[i:i + k], "big"); i += k
    return t, b[i:i + n], i + n
t, body, _ = tlv(d, 0)
i = 0; out = {}
while i < len(body):
    t, v, i = tlv(body, i)
    if t == 0xa2: out["seed"] = tlv(v, 0)[1]
    if t == 0x04: out["pub" if "pub" not in out else "priv"] = v
for k, v in out.items():
    open(sys.argv[1] + "/" + k, "wb").write(v)
' "$2"
}

# Issue 28: the cross builds (make tiny ARCH=...) run under qemu-user.
# CROSS_ARCHES: those the Makefile builds; cross_qemu ARCH: the emulator
# that runs ARCH's binaries (qemu-user-static, no binfmt needed).
CROSS_ARCHES="arm64 armhf s390x riscv64"
cross_qemu() {
	case $1 in
	arm64) echo qemu-aarch64-static ;;
	armhf) echo qemu-arm-static ;;
	s390x) echo qemu-s390x-static ;;
	riscv64) echo qemu-riscv64-static ;;
	*) echo "cross_qemu: no such ARCH: $1" >&2; return 2 ;;
	esac
}

# cross_wrapper ARCH BIN OUT: OUT, a script that runs BIN under ARCH's
# qemu with its own arguments, the name it was called by as BIN's
# argv[0] (qemu -0): a link to OUT named after an applet runs that
# applet, as a link to tpmbox does.  It can stand for $TPMBOX.
cross_wrapper() {
	local q
	q=$(command -v "$(cross_qemu "$1")") || {
		echo "$(cross_qemu "$1") is not installed (install-deps.sh cross)" >&2
		return 3
	}
	printf '#!/bin/sh\nexec '\''%s'\'' -0 "${0##*/}" '\''%s'\'' "$@"\n' "$q" "$2" > "$3" &&
		chmod 755 "$3"
}
