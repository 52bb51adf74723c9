#!/bin/bash
# make demo: the tpmbox story on a throwaway swtpm.  Each step prints a
# caption, the command, and what it printed.  Later applets add steps.
set -euo pipefail

TPMBOX=${TPMBOX:-$(cd "$(dirname "$0")/../.." && pwd)/tpmbox}
[ -x "$TPMBOX" ] || { echo "demo: $TPMBOX not built (run make)" >&2; exit 3; }
command -v swtpm >/dev/null || { echo "demo: swtpm is not installed" >&2; exit 3; }

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

# shellcheck source=tests/helpers/tools.bash
. "$(dirname "$0")/tools.bash"
throwaway_swtpm demo
DEMO_DIR=$THROWAWAY_DIR
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

caption "Take ownership: persist the standard SRK at 0x81000001 (prints its name)."
run takeown --srk-pub "$DEMO_DIR/srk.pem"

caption "Seal a disk key to PCR 0 and 7 as they are now (no password)."
printf 'correct horse battery staple\n' >"$DEMO_DIR/disk.key"
run seal -p sha256:0,7 -o "$DEMO_DIR/disk.blob" "$DEMO_DIR/disk.key"

caption "Unseal it: the machine is in the state it was sealed to."
run unseal "$DEMO_DIR/disk.blob"

caption "Something changes the boot state: extend PCR 7."
run extend 7 -s "an unexpected boot loader" -b sha256

caption "Unseal is now refused (exit 4), naming the PCR that changed."
if run unseal "$DEMO_DIR/disk.blob"; then
	echo "demo: unseal should have been refused" >&2
	exit 1
else
	rc=$?
	[ "$rc" -eq 4 ] || { echo "demo: expected exit 4, got $rc" >&2; exit 1; }
	echo "(exit $rc)"
fi

caption "Keep a small record in TPM NV memory, read it back, release it."
printf 'provisioned 2026-12-03\n' >"$DEMO_DIR/record"
run nvdefine 0x01500000 -s 64
run nvwrite 0x01500000 -i "$DEMO_DIR/record"
run nvread 0x01500000 -s 23
run nvrelease 0x01500000

caption "Remote attestation: an attestation key, a quote over PCRs 0-7 with a nonce."
run akcreate -o "$DEMO_DIR/ak.blob" --pub "$DEMO_DIR/ak.pem"
nonce=$("$TPMBOX" getrandom --hex 16)
run quote -k "$DEMO_DIR/ak.blob" -p sha256:0-7 -n "$nonce" -o "$DEMO_DIR/quote"

caption "The verifier checks it without a TPM: signature, nonce, PCR digest."
run checkquote -k "$DEMO_DIR/ak.pem" -n "$nonce" "$DEMO_DIR/quote"

printf '\n%sdemo done%s: swtpm stopped, %s removed.\n' "$B" "$N" "$DEMO_DIR"
