#!/bin/bash
# make demo: the tpmbox story on a throwaway swtpm.  Each step prints a
# caption, the command, and what it printed.  Later applets add steps.
set -euo pipefail

TPMBOX=${TPMBOX:-$(cd "$(dirname "$0")/../.." && pwd)/tpmbox}
[ -x "$TPMBOX" ] || { echo "demo: $TPMBOX not built (run make)" >&2; exit 3; }
command -v swtpm >/dev/null || { echo "demo: swtpm is not installed" >&2; exit 3; }

DEMO_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tpmbox-demo.XXXXXX")
SWTPM_PID=
cleanup() {
	[ -n "$SWTPM_PID" ] && kill "$SWTPM_PID" 2>/dev/null
	[ -n "$SWTPM_PID" ] && wait "$SWTPM_PID" 2>/dev/null
	rm -rf "$DEMO_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -t 1 ]; then B=$'\e[1m' D=$'\e[2m' N=$'\e[0m'; else B= D= N=; fi
step=0
# caption TEXT: a numbered heading for the next command(s)
caption() { step=$((step + 1)); printf '\n%s%d. %s%s\n' "$B" "$step" "$1" "$N"; }
# run ARGS...: show "$ tpmbox ARGS" then run it
run() {
	local a shown=
	for a in "$@"; do
		[[ "$a" =~ ^[A-Za-z0-9_./:,+=-]+$ ]] || a=\"$a\"
		shown="$shown $a"
	done
	printf '%s$ tpmbox%s%s\n' "$D" "$shown" "$N"
	"$TPMBOX" "$@"
}

swtpm socket --tpm2 \
	--server type=unixio,path="$DEMO_DIR/sock" \
	--ctrl type=unixio,path="$DEMO_DIR/sock.ctrl" \
	--tpmstate dir="$DEMO_DIR" \
	--flags not-need-init,startup-clear >"$DEMO_DIR/swtpm.log" 2>&1 &
SWTPM_PID=$!
export TPMBOX_TCTI="swtpm:path=$DEMO_DIR/sock"
for _ in $(seq 1 100); do
	"$TPMBOX" getrandom 1 >/dev/null 2>&1 && break
	kill -0 "$SWTPM_PID" 2>/dev/null || { cat "$DEMO_DIR/swtpm.log" >&2; exit 3; }
	sleep 0.05
done
echo "tpmbox demo: a throwaway swtpm in $DEMO_DIR (TPMBOX_TCTI=$TPMBOX_TCTI)"

caption "What TPM is this? Family, vendor, banks, lockout state."
run info

caption "32 random bytes from the TPM's generator, as hex."
run getrandom --hex 32

caption "PCR 9 and 10 in the sha1 and sha256 banks: all zeros after a reset."
run pcrread sha1:9,10+sha256:9,10

caption "Measure something into PCR 9: H(old || H(data)) in every bank at once."
run extend 9 -s "initramfs stage 2" -v

caption "PCR 9 has moved, PCR 10 has not."
run pcrread sha1:9,10+sha256:9,10

caption "The same as JSON, for scripts."
run pcrread --json sha256:9

printf '\n%sdemo done%s: swtpm stopped, %s removed.\n' "$B" "$N" "$DEMO_DIR"
