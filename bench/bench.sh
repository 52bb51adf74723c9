#!/bin/bash
# make bench: tpmbox against tpm2-tools on the same swtpm.
#
# For every workflow: the median wall time of one run over $BENCH_RUNS runs
# (default 25, at least 20), per process, the ratio, and each side's peak
# RSS; with TPMBOX_TINY, the same for the small musl build (make tiny).
# Then the binary sizes.  A workflow is two functions,
#   wf_NAME_tpmbox  and  wf_NAME_t2
# that do the same job and print nothing; register it with
#   workflow NAME PROCS_TPMBOX PROCS_T2 "caption"
# (later: seal+unseal, quote+checkquote).  Any failing command aborts.
set -euo pipefail

TPMBOX=${TPMBOX:-$(cd "$(dirname "$0")/.." && pwd)/tpmbox}
# TPMBOX_TINY: the small musl build (make tiny), measured beside it
TINY=${TPMBOX_TINY:-}
[ -z "$TINY" ] || [ -x "$TINY" ] || { echo "bench: $TINY not built (make tiny)" >&2; exit 3; }
RUNS=${BENCH_RUNS:-25}
# BENCH_ONLY="quote seal": only these workflows, and none of the sections
# after them (escrow, signed policies, keys, TPM 1.2)
ONLY=${BENCH_ONLY:-}
[ "$RUNS" -ge 20 ] || { echo "bench: BENCH_RUNS must be >= 20" >&2; exit 2; }
[ -x "$TPMBOX" ] || { echo "bench: $TPMBOX not built (run make)" >&2; exit 3; }
for c in swtpm tpm2_getrandom tpm2_pcrread tpm2_pcrextend python3 oathtool xxd; do
	command -v "$c" >/dev/null || { echo "bench: $c is not installed" >&2; exit 3; }
done

# shellcheck source=tests/helpers/tools.bash
. "$(dirname "$0")/../tests/helpers/tools.bash"
throwaway_swtpm bench
BENCH_DIR=$THROWAWAY_DIR
export TPM2TOOLS_TCTI="$TPMBOX_TCTI"
for _ in $(seq 1 100); do
	"$TPMBOX" getrandom 1 >/dev/null 2>&1 && break
	sleep 0.05
done

DIGEST=$(printf bench | sha256sum | cut -c1-64)

# ---- workflows ------------------------------------------------------------
# Run processes through "tb ARGS" (tpmbox) and "t2 CMD ARGS" (tpm2-tools),
# so the RSS pass can wrap each process.

WRAP=()
tb() { "${WRAP[@]}" "$TPMBOX" "$@"; }
t2() { "${WRAP[@]}" "$@"; }

wf_getrandom_tpmbox() { tb getrandom 32 >/dev/null; }
wf_getrandom_t2() { t2 tpm2_getrandom 32 >/dev/null; }

wf_pcrread_tpmbox() { tb pcrread sha256:7 >/dev/null; }
wf_pcrread_t2() { t2 tpm2_pcrread sha256:7 >/dev/null; }

# the dictionary-attack state (dalock's answers HMACed; tpm2-tools reads
# the same properties in clear)
wf_dalock_tpmbox() { tb dalock >/dev/null; }
wf_dalock_t2() { t2 tpm2_getcap properties-variable >/dev/null; }

wf_extend_tpmbox() { tb extend 16 -d "$DIGEST" -b sha256; }
wf_extend_t2() { t2 tpm2_pcrextend "16:sha256=$DIGEST"; }

# seal + unseal with a PCR policy (sha256:0,7).  tpm2-tools: the usual flow
# (createprimary, a trial policy session, create, load, a policy session,
# unseal, flushes).
head -c 32 /dev/urandom >"$BENCH_DIR/secret"
"$TPMBOX" takeown >/dev/null
wf_seal_tpmbox() {
	tb seal -p sha256:0,7 -f -o "$BENCH_DIR/s.blob" "$BENCH_DIR/secret"
	tb unseal "$BENCH_DIR/s.blob" >/dev/null
}
wf_seal_t2() {
	local d=$BENCH_DIR
	t2 tpm2_createprimary -Q -C o -c "$d/prim.ctx"
	t2 tpm2_startauthsession -S "$d/trial.ctx"
	t2 tpm2_policypcr -Q -S "$d/trial.ctx" -l sha256:0,7 -L "$d/pol"
	t2 tpm2_flushcontext "$d/trial.ctx"
	t2 tpm2_create -Q -C "$d/prim.ctx" -L "$d/pol" -i "$d/secret" \
		-u "$d/s.pub" -r "$d/s.priv"
	t2 tpm2_flushcontext -t
	t2 tpm2_load -Q -C "$d/prim.ctx" -u "$d/s.pub" -r "$d/s.priv" -c "$d/s.ctx"
	t2 tpm2_startauthsession --policy-session -S "$d/sess.ctx"
	t2 tpm2_policypcr -Q -S "$d/sess.ctx" -l sha256:0,7
	t2 tpm2_unseal -c "$d/s.ctx" -p session:"$d/sess.ctx" >/dev/null
	t2 tpm2_flushcontext "$d/sess.ctx"
	t2 tpm2_flushcontext -t
}

# quote + checkquote (the AK is loaded in every tpm2-tools run, as tpmbox
# loads its AK blob every time).
NONCE=000102030405060708090a0b0c0d0e0f
"$TPMBOX" akcreate -o "$BENCH_DIR/ak.blob" --pub "$BENCH_DIR/ak.pem" >/dev/null
tpm2_createprimary -Q -C o -c "$BENCH_DIR/aprim.ctx"
tpm2_create -Q -C "$BENCH_DIR/aprim.ctx" -G ecc256:ecdsa-sha256:null \
	-a 'fixedtpm|fixedparent|sensitivedataorigin|userwithauth|restricted|sign' \
	-u "$BENCH_DIR/t2ak.pub" -r "$BENCH_DIR/t2ak.priv"
tpm2_flushcontext -t
tpm2_load -Q -C "$BENCH_DIR/aprim.ctx" -u "$BENCH_DIR/t2ak.pub" \
	-r "$BENCH_DIR/t2ak.priv" -c "$BENCH_DIR/t2ak.ctx"
tpm2_readpublic -Q -c "$BENCH_DIR/t2ak.ctx" -f pem -o "$BENCH_DIR/t2ak.pem"
tpm2_flushcontext -t
wf_quote_tpmbox() {
	tb quote -k "$BENCH_DIR/ak.blob" -p sha256:0-7,10 -n "$NONCE" -f \
		-o "$BENCH_DIR/q"
	tb checkquote -k "$BENCH_DIR/ak.pem" -n "$NONCE" "$BENCH_DIR/q" >/dev/null
}
wf_quote_t2() {
	local d=$BENCH_DIR
	t2 tpm2_load -Q -C "$d/aprim.ctx" -u "$d/t2ak.pub" -r "$d/t2ak.priv" \
		-c "$d/t2ak.ctx"
	t2 tpm2_quote -Q -c "$d/t2ak.ctx" -l sha256:0,1,2,3,4,5,6,7,10 \
		-q "$NONCE" -g sha256 -m "$d/m" -s "$d/s" -o "$d/p"
	t2 tpm2_flushcontext -t
	t2 tpm2_checkquote -u "$d/t2ak.pem" -m "$d/m" -s "$d/s" -f "$d/p" \
		-q "$NONCE" >/dev/null
}

# totp show (issue 29): the code at one time step.  tpmbox: one process,
# the TPM computes the HMAC with the key it keeps.  tpm2-tools: the secret
# sealed to the same PCRs, unsealed in a policy session and given to
# oathtool (Heads' flow over tpm2-tools), the key context loaded each run.
"$TPMBOX" totp enroll -p sha256:0,7 -f -o "$BENCH_DIR/totp.blob" --qr none \
	>/dev/null 2>&1
head -c 20 /dev/urandom >"$BENCH_DIR/totp.key"
tpm2_createprimary -Q -C o -c "$BENCH_DIR/tprim.ctx"
tpm2_startauthsession -S "$BENCH_DIR/ttrial.ctx"
tpm2_policypcr -Q -S "$BENCH_DIR/ttrial.ctx" -l sha256:0,7 -L "$BENCH_DIR/tpol"
tpm2_flushcontext "$BENCH_DIR/ttrial.ctx"
tpm2_create -Q -C "$BENCH_DIR/tprim.ctx" -L "$BENCH_DIR/tpol" \
	-i "$BENCH_DIR/totp.key" -u "$BENCH_DIR/tk.pub" -r "$BENCH_DIR/tk.priv"
tpm2_flushcontext -t
wf_totp_tpmbox() { tb totp show --time 59 "$BENCH_DIR/totp.blob" >/dev/null; }
wf_totp_t2() {
	local d=$BENCH_DIR
	t2 tpm2_load -Q -C "$d/tprim.ctx" -u "$d/tk.pub" -r "$d/tk.priv" \
		-c "$d/tk.ctx"
	t2 tpm2_startauthsession --policy-session -S "$d/tsess.ctx"
	t2 tpm2_policypcr -Q -S "$d/tsess.ctx" -l sha256:0,7
	t2 tpm2_unseal -c "$d/tk.ctx" -p session:"$d/tsess.ctx" \
		-o "$d/tk.out"
	t2 oathtool --totp --now @59 "$(t2 xxd -p "$d/tk.out")" >/dev/null
	t2 tpm2_flushcontext "$d/tsess.ctx"
	t2 tpm2_flushcontext -t
}

# ---- measurement ------------------------------------------------------------

WORKFLOWS=()
declare -A PROCS_TB PROCS_T2 CAPTION
workflow() {
	[ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]] || return 0
	WORKFLOWS+=("$1")
	PROCS_TB[$1]=$2
	PROCS_T2[$1]=$3
	CAPTION[$1]=$4
}

workflow getrandom 1 1 "getrandom 32"
workflow pcrread 1 1 "pcrread sha256:7"
workflow extend 1 1 "extend PCR 16 (sha256)"
workflow dalock 1 1 "dalock (DA state)"
workflow seal 2 12 "seal+unseal (PCR policy)"
workflow quote 2 4 "quote+checkquote"
workflow totp 1 8 "totp show (tpm2-tools: unseal, oathtool)"

# now_us: microseconds, without forking
now_us() { local t=${EPOCHREALTIME/./}; echo "$t"; }

# median_us FUNC: median wall time of RUNS runs of FUNC (after 2 warm-ups)
median_us() {
	local f=$1 i t0 t1
	local -a v=()
	"$f"; "$f"
	for ((i = 0; i < RUNS; i++)); do
		t0=${EPOCHREALTIME/./}
		"$f"
		t1=${EPOCHREALTIME/./}
		v+=($((t1 - t0)))
	done
	printf '%s\n' "${v[@]}" | sort -n | awk '{a[NR] = $1}
		END {print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2)}'
}

# peak_kb FUNC: the largest peak RSS (KiB) of the processes FUNC runs,
# each measured on its own (not the shell around it), by GNU time.  Without
# /usr/bin/time (Debian package "time") there is no honest fallback: a
# getrusage wrapper would count its own pre-exec image.
peak_kb() {
	if [ ! -x /usr/bin/time ]; then
		echo "n/a"
		return
	fi
	: > "$BENCH_DIR/rss"
	WRAP=(/usr/bin/time -f %M -a -o "$BENCH_DIR/rss")
	"$1"
	WRAP=()
	sort -n "$BENCH_DIR/rss" | tail -1
}

ms() { awk -v u="$1" 'BEGIN {printf "%.2f", u / 1000}'; }

size=$(stat -c %s "$TPMBOX")
strip -o "$BENCH_DIR/tpmbox.stripped" "$TPMBOX" 2>/dev/null || cp "$TPMBOX" "$BENCH_DIR/tpmbox.stripped"
ssize=$(stat -c %s "$BENCH_DIR/tpmbox.stripped")

echo "tpmbox bench: $RUNS runs per workflow (median), swtpm over a unix socket"
echo "tpmbox: $TPMBOX; tpm2-tools: $(tpm2_getrandom --version 2>/dev/null | sed -n 's/.*version="\([^"]*\)".*/\1/p' | head -1)"
echo
printf '%-26s %9s %9s %12s %12s %8s %10s %10s\n' "workflow" "procs" "" "tpmbox ms" "tpm2-tools" "ratio" "tpmbox RSS" "t2 RSS"
printf '%-26s %9s %9s %12s %12s %8s %10s %10s\n' "" "tpmbox" "t2" "per process" "per process" "" "KiB" "KiB"
worst=0 tworst=0
for w in "${WORKFLOWS[@]}"; do
	a=$(median_us "wf_${w}_tpmbox")
	b=$(median_us "wf_${w}_t2")
	pa=$((a / PROCS_TB[$w]))
	pb=$((b / PROCS_T2[$w]))
	ra=$(peak_kb "wf_${w}_tpmbox")
	rb=$(peak_kb "wf_${w}_t2")
	ratio=$(awk -v a="$pa" -v b="$pb" 'BEGIN {printf "%.3f", a / b}')
	printf '%-26s %9s %9s %12s %12s %8s %10s %10s\n' "${CAPTION[$w]}" \
		"${PROCS_TB[$w]}" "${PROCS_T2[$w]}" "$(ms "$pa")" "$(ms "$pb")" \
		"$ratio" "$ra" "$rb"
	printf '%-26s %9s %9s %12s %12s %8s\n' "  whole workflow" "" "" \
		"$(ms "$a")" "$(ms "$b")" \
		"$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", a / b}')"
	worst=$(awk -v r="$ratio" -v w="$worst" 'BEGIN {print (r > w) ? r : w}')
	# (a workflow is named after its applet: the small build may not
	# have it, as it has no totp)
	if [ -n "$TINY" ] && "$TINY" --list | grep -q "^$w "; then
		glibc=$TPMBOX
		TPMBOX=$TINY
		c=$(median_us "wf_${w}_tpmbox")
		rc=$(peak_kb "wf_${w}_tpmbox")
		TPMBOX=$glibc
		pc=$((c / PROCS_TB[$w]))
		tratio=$(awk -v a="$pc" -v b="$pb" 'BEGIN {printf "%.3f", a / b}')
		printf '%-26s %9s %9s %12s %12s %8s %10s %10s\n' "  musl build (tiny)" "" "" \
			"$(ms "$pc")" "$(ms "$pb")" "$tratio" "$rc" "$rb"
		printf '%-26s %9s %9s %12s %12s %8s\n' "  musl / glibc" "" "" "" "" \
			"$(awk -v a="$pc" -v b="$pa" 'BEGIN {printf "%.3f", a / b}')"
		tworst=$(awk -v r="$tratio" -v w="$tworst" 'BEGIN {print (r > w) ? r : w}')
	fi
done

# ---- escrow copies (issue 10) ------------------------------------------------
# What one escrow recipient of each kind adds to seal (seal -p sha256:0,7
# against the same with --escrow), and recover per process (no TPM).
# Needs openssl and age-keygen; skipped without them.
escrow_bench() {
	local d=$BENCH_DIR/esc k a base w c
	mkdir -p "$d"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/rsa.key" \
		-out "$d/rsa.pem" -subj /CN=bench -days 30 2>/dev/null
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$d/ec.key" -out "$d/ec.pem" -subj /CN=bench -days 30 2>/dev/null
	age-keygen -o "$d/age.txt" 2>/dev/null
	ESC_AGE=$(age-keygen -y "$d/age.txt")
	ESC_D=$d
	echo
	echo "escrow copies: seal -p sha256:0,7 with one recipient, and recover ($RUNS runs, median, per process)"
	printf '%-34s %10s %10s\n' "" "ms" "added ms"
	base=$(median_us wf_esc_seal_plain)
	printf '%-34s %10s\n' "seal (no escrow)" "$(ms "$base")"
	for w in rsa ec age code; do
		a=$(median_us "wf_esc_seal_$w")
		printf '%-34s %10s %10s\n' "seal --escrow $w" "$(ms "$a")" \
			"$(ms $((a - base)))"
	done
	tb seal --escrow "$d/rsa.pem" --escrow "$d/ec.pem" --escrow "$ESC_AGE" \
		--recovery-code-out "$d/code" -f -o "$d/all.blob" "$BENCH_DIR/secret"
	for w in rsa ec age code; do
		a=$(median_us "wf_esc_recover_$w")
		printf '%-34s %10s\n' "recover with $w" "$(ms "$a")"
		if [ -n "$TINY" ]; then
			glibc=$TPMBOX
			TPMBOX=$TINY
			c=$(median_us "wf_esc_recover_$w")
			TPMBOX=$glibc
			printf '%-34s %10s\n' "  same, musl build (tiny)" "$(ms "$c")"
		fi
	done
	echo "goals: an escrow recipient adds < 2 ms to seal; recover < 5 ms"
}
wf_esc_seal_plain() { tb seal -p sha256:0,7 -f -o "$ESC_D/b" "$BENCH_DIR/secret"; }
wf_esc_seal_rsa() { tb seal -p sha256:0,7 --escrow "$ESC_D/rsa.pem" -f -o "$ESC_D/b" "$BENCH_DIR/secret"; }
wf_esc_seal_ec() { tb seal -p sha256:0,7 --escrow "$ESC_D/ec.pem" -f -o "$ESC_D/b" "$BENCH_DIR/secret"; }
wf_esc_seal_age() { tb seal -p sha256:0,7 --escrow "$ESC_AGE" -f -o "$ESC_D/b" "$BENCH_DIR/secret"; }
wf_esc_seal_code() { tb seal -p sha256:0,7 --recovery-code-out "$ESC_D/c" -f -o "$ESC_D/b" "$BENCH_DIR/secret"; }
wf_esc_recover_rsa() { tb recover -k "$ESC_D/rsa.key" "$ESC_D/all.blob" >/dev/null; }
wf_esc_recover_ec() { tb recover -k "$ESC_D/ec.key" "$ESC_D/all.blob" >/dev/null; }
wf_esc_recover_age() { tb recover -k "$ESC_D/age.txt" "$ESC_D/all.blob" >/dev/null; }
wf_esc_recover_code() { tb recover --recovery-code "file:$ESC_D/code" "$ESC_D/all.blob" >/dev/null; }
if [ -n "$ONLY" ]; then :
elif command -v openssl >/dev/null && command -v age-keygen >/dev/null &&
   "$TPMBOX" seal --help | grep -q -- --escrow; then
	escrow_bench
else
	echo
	echo "escrow copies: not measured (needs openssl and age-keygen)"
fi

# ---- signed policies (issue 11) ------------------------------------------------
# unseal of a blob sealed --authorized-by with systemd's JSON (PCR_Read,
# LoadExternal, VerifySignature, PolicyPCR, PolicyAuthorize more than a
# plain blob) against unseal of a PCR blob, and against the same job in
# tpm2-tools (loadexternal, verifysignature, load, startauthsession,
# policypcr, policyauthorize, unseal, flushcontext).
signed_bench() {
	local d=$BENCH_DIR/sig fp a b c
	mkdir -p "$d"
	openssl genrsa -out "$d/k.pem" 2048 2>/dev/null
	openssl rsa -in "$d/k.pem" -pubout -out "$d/k.pub" 2>/dev/null
	tpm2_pcrread sha256:16 -o "$d/v.bin" >/dev/null
	tpm2_startauthsession -S "$d/t.ctx"
	tpm2_policypcr -S "$d/t.ctx" -l sha256:16 -f "$d/v.bin" -L "$d/pol" >/dev/null
	tpm2_flushcontext "$d/t.ctx"
	openssl dgst -sha256 -sign "$d/k.pem" -out "$d/sig" "$d/pol"
	fp=$(openssl rsa -in "$d/k.pem" -RSAPublicKey_out -outform DER 2>/dev/null |
		sha256sum | cut -c1-64)
	printf '{"sha256":[{"pcrs":[16],"pkfp":"%s","pol":"%s","sig":"%s"}]}\n' \
		"$fp" "$(xxd -p -c 64 "$d/pol")" "$(base64 -w0 "$d/sig")" > "$d/sig.json"
	# the SRK persisted, for tpm2_load -C 0x81000001
	"$TPMBOX" takeown >/dev/null 2>&1 || true
	"$TPMBOX" seal --authorized-by "$d/k.pub" -f -o "$d/az.blob" "$BENCH_DIR/secret"
	"$TPMBOX" seal -p sha256:16 -f -o "$d/pcr.blob" "$BENCH_DIR/secret"
	tss2_pieces "$d/az.blob" "$d"
	SIG_D=$d
	echo
	echo "signed policies: unseal per process ($RUNS runs, median)"
	a=$(median_us wf_sig_plain)
	b=$(median_us wf_sig_tpmbox)
	c=$(median_us wf_sig_t2)
	printf '%-40s %10s\n' "unseal (PCR policy)" "$(ms "$a")"
	printf '%-40s %10s\n' "unseal --signature (PolicyAuthorize)" "$(ms "$b")"
	printf '%-40s %10s %8s\n' "tpm2-tools, 8 processes (whole flow)" "$(ms "$c")" \
		"$(awk -v a="$b" -v c="$c" 'BEGIN {printf "%.3f", a / c}')"
}
wf_sig_plain() { tb unseal "$SIG_D/pcr.blob" >/dev/null; }
wf_sig_tpmbox() { tb unseal --signature "$SIG_D/sig.json" "$SIG_D/az.blob" >/dev/null; }
wf_sig_t2() {
	local d=$SIG_D
	t2 tpm2_loadexternal -C o -G rsa -u "$d/k.pub" -c "$d/k.ctx" -n "$d/k.name" >/dev/null
	t2 tpm2_verifysignature -c "$d/k.ctx" -g sha256 -m "$d/pol" -s "$d/sig" \
		-f rsassa -t "$d/tk" >/dev/null
	t2 tpm2_flushcontext -t
	t2 tpm2_load -C 0x81000001 -u "$d/pub" -r "$d/priv" -c "$d/o.ctx" >/dev/null
	t2 tpm2_startauthsession --policy-session -S "$d/s.ctx"
	t2 tpm2_policypcr -S "$d/s.ctx" -l sha256:16 >/dev/null
	t2 tpm2_policyauthorize -S "$d/s.ctx" -i "$d/pol" -n "$d/k.name" -t "$d/tk" >/dev/null
	t2 tpm2_unseal -c "$d/o.ctx" -p session:"$d/s.ctx" >/dev/null
	t2 tpm2_flushcontext -t
}
if [ -n "$ONLY" ]; then :
elif command -v openssl >/dev/null && "$TPMBOX" seal --help | grep -q -- --authorized-by; then
	signed_bench
fi

# ---- keys in the TPM (issue 14) -----------------------------------------------
# sign a SHA-256 digest with a P-256 key that lives in the TPM: tpmbox sign
# (loads the key file under the SRK, signs, flushes: one process) against
# tpm2_sign on a context tpm2_load saved (one process, the key already
# loaded once), tpm2_load + tpm2_sign (the same job as tpmbox's, two
# processes), and openssl with Debian's tpm2-openssl provider (one process,
# which also loads the key under its own SRK).
wf_key_tpmbox() { tb sign -k "$KEY_D/k.pem" -d "$DIGEST" -f -o "$KEY_D/s" ; }
# tpm2-tools leaves the object it loaded in the TPM (swtpm has no resource
# manager): a flush is part of each job, as tpmbox's own flush is
wf_key_t2() {
	t2 tpm2_sign -Q -c "$KEY_D/k.ctx" -g sha256 -d -o "$KEY_D/s2" "$KEY_D/dgst"
	t2 tpm2_flushcontext -t
}
wf_key_t2load() {
	t2 tpm2_load -Q -C 0x81000001 -u "$KEY_D/pub" -r "$KEY_D/priv" -c "$KEY_D/l.ctx"
	t2 tpm2_sign -Q -c "$KEY_D/l.ctx" -g sha256 -d -o "$KEY_D/s3" "$KEY_D/dgst"
	t2 tpm2_flushcontext -t
}
wf_key_ossl() {
	t2 openssl pkeyutl -sign -provider tpm2 -provider default \
		-inkey "$KEY_D/k.pem" -in "$KEY_D/dgst" -out "$KEY_D/s4"
}
sign_bench() {
	local d=$BENCH_DIR/key a b c o
	mkdir -p "$d"
	KEY_D=$d
	"$TPMBOX" takeown >/dev/null 2>&1 || true
	"$TPMBOX" keycreate --ecc -o "$d/k.pem" --pub "$d/k.pub.pem" >/dev/null
	printf '%s' "$DIGEST" | xxd -r -p > "$d/dgst"
	tss2_pieces "$d/k.pem" "$d"
	tpm2_flushcontext -t
	tpm2_load -Q -C 0x81000001 -u "$d/pub" -r "$d/priv" -c "$d/k.ctx"
	tpm2_flushcontext -t
	# the signature verifies, or the rows mean nothing
	wf_key_tpmbox; wf_key_t2; wf_key_t2load
	openssl pkeyutl -verify -pubin -inkey "$d/k.pub.pem" -in "$d/dgst" \
		-sigfile "$d/s" >/dev/null
	echo
	echo "keys in the TPM: sign a SHA-256 digest with a P-256 key ($RUNS runs, median)"
	a=$(median_us wf_key_tpmbox)
	b=$(median_us wf_key_t2)
	c=$(median_us wf_key_t2load)
	printf '%-44s %6s %10s %8s\n' "workflow" "procs" "ms" "ratio"
	printf '%-44s %6s %10s\n' "tpmbox sign (load, sign)" 1 "$(ms "$a")"
	printf '%-44s %6s %10s %8s\n' "tpm2_sign (ContextLoad) + flushcontext" 2 \
		"$(ms "$b")" "$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", a / b}')"
	printf '%-44s %6s %10s %8s\n' "tpm2_load + tpm2_sign + flushcontext" 3 \
		"$(ms "$c")" "$(awk -v a="$a" -v b="$c" 'BEGIN {printf "%.3f", a / b}')"
	if TPM2OPENSSL_TCTI=$TPMBOX_TCTI wf_key_ossl 2>/dev/null; then
		o=$(TPM2OPENSSL_TCTI=$TPMBOX_TCTI median_us wf_key_ossl)
		printf '%-44s %6s %10s %8s\n' "openssl pkeyutl -provider tpm2" 1 \
			"$(ms "$o")" "$(awk -v a="$a" -v b="$o" 'BEGIN {printf "%.3f", a / b}')"
	else
		echo "openssl with tpm2-openssl: not measured (provider missing or it cannot load the key)"
	fi
}
if [ -n "$ONLY" ]; then :
elif "$TPMBOX" sign --help >/dev/null 2>&1 && command -v xxd >/dev/null; then
	sign_bench
else
	echo
	echo "keys in the TPM: not measured (this tpmbox has no sign applet)"
fi

# ---- TPM 1.2 (issue 12) ------------------------------------------------------
# swtpm in 1.2 mode and tcsd as the tests start them (tests/helpers/tcsd.bash,
# sourced in a subshell), ownership taken by tpm_takeownership -y -z.
# tpm-tools needs tcsd running (it holds swtpm's one connection), tpmbox
# needs it stopped: each side is measured alone.  tpm-tools has no
# getrandom or pcrread: tpm_version (one GetCapability through tcsd) is
# the floor of a tpm-tools process.
wf12_rand() { tb getrandom 32 >/dev/null; }
wf12_pcr() { tb pcrread sha1:7 >/dev/null; }
wf12_seal() {
	tb seal -p 0,7 -f -o "$T12/b" "$BENCH_DIR/secret"
	tb unseal "$T12/b" >/dev/null
}
wf12_tools_seal() {
	t2 tpm_sealdata -z -p 0 -p 7 -i "$BENCH_DIR/secret" -o "$T12/t.tss"
	rm -f "$T12/t.out"
	t2 tpm_unsealdata -z -i "$T12/t.tss" -o "$T12/t.out"
}
# tpm_version writes 4 binary bytes to stderr each time (tpm-tools 1.3.9.2
# here): they went into make bench's output
wf12_tools_version() { t2 tpm_version >/dev/null 2>&1; }
wf12_tcsd() { tcsd_stop; tcsd_start >/dev/null; }
tpm12_bench() (
	set +u
	bats_load_library() { :; }
	BATS_TEST_DIRNAME=$(cd "$(dirname "$0")/../tests" && pwd)
	BATS_FILE_TMPDIR=$BENCH_DIR/t12
	T12=$BATS_FILE_TMPDIR
	mkdir -p "$T12"
	# shellcheck source=/dev/null
	. "$BATS_TEST_DIRNAME/helpers/common.bash"
	# shellcheck source=/dev/null
	. "$BATS_TEST_DIRNAME/helpers/tcsd.bash"
	# common.bash's tb has no RSS wrapper: the bench's again.
	tb() { "${WRAP[@]}" "$TPMBOX" "$@"; }
	trap tpm12_oracle_stop EXIT
	swtpm12_tcp_start >/dev/null && tcsd_start >/dev/null &&
		tpm_takeownership -y -z >/dev/null 2>&1 || exit 3
	head -c 64 /dev/urandom > "$BENCH_DIR/secret"
	tv=$(median_us wf12_tools_version)
	ts=$(median_us wf12_tools_seal)
	rs=$(peak_kb wf12_tools_seal)
	runs=$RUNS
	RUNS=5
	tc=$(median_us wf12_tcsd)
	RUNS=$runs
	tcsd_stop
	a=$(median_us wf12_rand)
	b=$(median_us wf12_pcr)
	c=$(median_us wf12_seal)
	rc=$(peak_kb wf12_seal)
	echo
	echo "TPM 1.2 (swtpm 1.2 over TCP; tpm-tools through tcsd; $RUNS runs, median)"
	printf '%-34s %6s %12s %12s %8s %10s %10s\n' "workflow" "procs" "tpmbox ms" "tpm-tools" "ratio" "tpmbox RSS" "tools RSS"
	printf '%-34s %6s %12s %12s %8s\n' "getrandom 32 / tpm_version" "1" "$(ms "$a")" "$(ms "$tv")" \
		"$(awk -v a="$a" -v b="$tv" 'BEGIN {printf "%.3f", a / b}')"
	printf '%-34s %6s %12s %12s %8s\n' "pcrread sha1:7 / tpm_version" "1" "$(ms "$b")" "$(ms "$tv")" \
		"$(awk -v a="$b" -v b="$tv" 'BEGIN {printf "%.3f", a / b}')"
	printf '%-34s %6s %12s %12s %8s %10s %10s\n' "seal+unseal (PCRs 0,7)" "2" "$(ms "$c")" "$(ms "$ts")" \
		"$(awk -v a="$c" -v b="$ts" 'BEGIN {printf "%.3f", a / b}')" "$rc" "$rs"
	echo "tpm-tools also needs tcsd running: stop + start $(ms "$tc") ms (median of 5)"
)
if [ -n "$ONLY" ]; then :
elif command -v tcsd >/dev/null && command -v tpm_sealdata >/dev/null &&
   [ "$(id -u)" = 0 ]; then
	tpm12_bench
else
	echo
	echo "TPM 1.2: not measured (needs tcsd and tpm-tools, and root for tcsd)"
fi

# ---- the builds for boards' CPUs (issue 28) -------------------------------------
# make tiny ARCH=... under qemu-user on this machine: sizes (the small
# build and the initramfs profile) and the per-process time of getrandom
# and seal+unseal, as ratios to the x86-64 small build's.  That is the
# cost of emulation here (qemu translating every instruction, the swtpm
# on this machine), not the speed of any board.
# (TPMBOX_CROSS_DIR: where tpmbox-tiny-ARCH are; BENCH_CROSS_ARCHES: some
# of them only)
CROSS_DIR=${TPMBOX_CROSS_DIR:-}
cross_bench() {
	local a bin ibin q g s g0 s0 isz
	echo
	echo "cross builds (make tiny ARCH=...) under qemu-user ($RUNS runs, median, per process): the cost"
	echo "of emulation on this machine, as ratios to the x86-64 small build; not a board's speed"
	printf '%-9s %10s %12s %13s %7s %15s %7s\n' "ARCH" "tiny B" "initramfs B" \
		"getrandom ms" "ratio" "seal+unseal ms" "ratio"
	glibc=$TPMBOX
	TPMBOX=$TINY
	g0=$(median_us wf_getrandom_tpmbox)
	s0=$(($(median_us wf_seal_tpmbox) / 2))
	isz=n/a
	[ -z "${TPMBOX_INITRAMFS:-}" ] || isz=$(stat -c %s "$TPMBOX_INITRAMFS")
	printf '%-9s %10s %12s %13s %7s %15s %7s\n' x86-64 "$(stat -c %s "$TINY")" \
		"$isz" "$(ms "$g0")" 1.000 "$(ms "$s0")" 1.000
	for a in ${BENCH_CROSS_ARCHES:-$CROSS_ARCHES}; do
		bin=$CROSS_DIR/tpmbox-tiny-$a ibin=$CROSS_DIR/tpmbox-initramfs-$a
		q=$(command -v "$(cross_qemu "$a")") || q=
		if [ ! -x "$bin" ] || [ -z "$q" ]; then
			printf '%-9s not measured (make tiny ARCH=%s; qemu-user-static)\n' "$a" "$a"
			continue
		fi
		isz=n/a
		[ ! -x "$ibin" ] || isz=$(stat -c %s "$ibin")
		TPMBOX=$bin
		WRAP=("$q")
		g=$(median_us wf_getrandom_tpmbox)
		s=$(($(median_us wf_seal_tpmbox) / 2))
		WRAP=()
		printf '%-9s %10s %12s %13s %7s %15s %7s\n' "$a" "$(stat -c %s "$bin")" \
			"$isz" "$(ms "$g")" \
			"$(awk -v a="$g" -v b="$g0" 'BEGIN {printf "%.2f", a / b}')" \
			"$(ms "$s")" \
			"$(awk -v a="$s" -v b="$s0" 'BEGIN {printf "%.2f", a / b}')"
	done
	TPMBOX=$glibc
	echo "(riscv64 is a static glibc build: Debian 12 has no riscv64 musl)"
}
# ---- LUKS2 tokens (issue 27) ------------------------------------------------
# luks unlock of a clevis tpm2 token (PCR 7) against `clevis luks pass`
# on the same image (clevis-decrypt-tpm2: tpm2_createprimary, tpm2_load,
# tpm2_unseal and jose, one shell pipeline); the swtpm has no resource
# manager, so each clevis run is followed by tpm2_flushcontext -t
# (counted on clevis's side: 1 process, a few ms).  And luks unlock of a
# systemd-cryptenroll PCR 7 token (systemd's own unlock path needs
# /dev/tpmrmN: no host peer; its TPM commands are in tests/cmdcount.bats).
luks_bench() {
	local d=$BENCH_DIR/luks a b c
	mkdir -p "$d"
	printf pw > "$d/pw"
	truncate -s 32M "$d/cl.img"
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 \
		--pbkdf-force-iterations 1000 "$d/cl.img" "$d/pw"
	cp "$d/cl.img" "$d/sd.img"
	clevis luks bind -y -d "$d/cl.img" -k "$d/pw" tpm2 '{"pcr_ids":"7"}' >/dev/null 2>&1
	tpm2_flushcontext -t >/dev/null 2>&1 || true
	PASSWORD=pw systemd-cryptenroll --tpm2-device="$TPMBOX_TCTI" \
		--tpm2-pcrs=7 "$d/sd.img" >/dev/null 2>&1
	tpm2_flushcontext -t >/dev/null 2>&1 || true
	LUKS_D=$d
	[ "$(tb luks unlock "$d/cl.img")" = "$(clevis luks pass -d "$d/cl.img" -s 1)" ]
	tpm2_flushcontext -t >/dev/null 2>&1 || true
	echo
	echo "LUKS2 tokens: unlock per process ($RUNS runs, median)"
	a=$(median_us wf_luks_tpmbox_clevis)
	b=$(median_us wf_luks_clevis)
	c=$(median_us wf_luks_tpmbox_sd)
	printf '%-44s %10s\n' "clevis luks pass (clevis token, PCR 7)" "$(ms "$b")"
	printf '%-44s %10s %8s\n' "tpmbox luks unlock (the same token)" "$(ms "$a")" \
		"$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", a / b}')"
	printf '%-44s %10s\n' "tpmbox luks unlock (systemd-tpm2, PCR 7)" "$(ms "$c")"
}
wf_luks_tpmbox_clevis() { tb luks unlock "$LUKS_D/cl.img" >/dev/null; }
wf_luks_tpmbox_sd() { tb luks unlock "$LUKS_D/sd.img" >/dev/null; }
wf_luks_clevis() {
	clevis luks pass -d "$LUKS_D/cl.img" -s 1 >/dev/null
	tpm2_flushcontext -t >/dev/null 2>&1 || true
}
if [ -n "$ONLY" ]; then :
elif command -v clevis >/dev/null && command -v systemd-cryptenroll >/dev/null &&
     command -v cryptsetup >/dev/null && "$TPMBOX" --list | grep -q '^luks '; then
	luks_bench
else
	echo
	echo "LUKS2 tokens: not measured (needs clevis, systemd-cryptenroll and cryptsetup)"
fi

if [ -n "$ONLY" ]; then :
elif [ -n "$CROSS_DIR" ] && [ -n "$TINY" ]; then
	cross_bench
else
	echo
	echo "cross builds: not measured (make bench builds them; needs TPMBOX_TINY and TPMBOX_CROSS_DIR)"
fi

echo
echo "tpmbox binary: $size bytes ($ssize stripped), statically linked: $(file -L "$TPMBOX" | grep -q 'statically linked' && echo yes || echo no)"
if [ -n "$TINY" ]; then
	echo "tpmbox musl build: $(stat -c %s "$TINY") bytes, statically linked: $(file -L "$TINY" | grep -q 'statically linked' && echo yes || echo no)"
	echo "worst ratio musl build/tpm2-tools: $tworst"
fi
[ -x /usr/bin/time ] || echo "peak RSS: n/a (install GNU time, Debian package 'time')"
echo "worst ratio tpmbox/tpm2-tools: $worst (goal: <= 0.25)"
