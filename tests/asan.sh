#!/bin/bash
# Sanitizer pass: build tpmbox with clang -fsanitize=address,undefined
# (dynamic; sanitizers do not link statically), run the bats suites against
# that build, then valgrind memcheck on the unit tests (a normal gcc build).
# Any sanitizer report (collected with log_path, so none is lost inside a
# test's captured output) or valgrind error fails the run.
#
#   tests/asan.sh                 every suite
#   SUITES="tests/nv.bats" tests/asan.sh
#   ASAN_SKIP_VALGRIND=1 tests/asan.sh
cd "$(dirname "$0")/.." || exit 3
B=${ASAN_BUILD:-${TMPDIR:-/tmp}/asan-build}
VB=${VALGRIND_BUILD:-${TMPDIR:-/tmp}/valgrind-build}
LOGS=$B/reports
rm -rf "$LOGS"
mkdir -p "$LOGS"

echo "== build: clang -fsanitize=address,undefined ($B)"
make --no-print-directory -s CC=clang STATIC= BUILD="$B" BIN="$B/tpmbox" \
	CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" \
	LDFLAGS="-fsanitize=address,undefined" "$B/tpmbox" || exit 3

# exitcode 99: a finding is never mistaken for one of tpmbox's own codes.
export ASAN_OPTIONS="log_path=$LOGS/asan:exitcode=99:detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1:strict_string_checks=1"
export UBSAN_OPTIONS="log_path=$LOGS/ubsan:print_stacktrace=1:halt_on_error=1:exitcode=99"
export LSAN_OPTIONS="exitcode=99"

echo "== bats suites against $B/tpmbox"
# tpm12-oracle.bats runs no tpmbox command: the default pass covers it.
suites=${SUITES:-$(ls tests/*.bats | grep -v '/tpm12-oracle\.bats$')}
tap=$(mktemp)
jobs=()
if [ "${CHECK_JOBS:-2}" -gt 1 ] && command -v parallel >/dev/null; then
	jobs=(--jobs "${CHECK_JOBS:-2}" --no-parallelize-within-files)
fi
t0=$SECONDS
TPMBOX=$B/tpmbox TPMBOX_SANITIZED=1 TPMBOX_SECOND_PASS=asan \
	bats "${jobs[@]}" --tap --timing $suites > "$tap" 2>&1
bats_rc=$?
p=$(grep -c '^ok ' "$tap"); f=$(grep -c '^not ok ' "$tap")
# A sanitizer build is dynamic by necessity: the static-link check is the
# one failure expected here.  Each other failure is shown with its
# diagnostic lines (bats' "# " lines, up to 40), so a CI log says why.
awk '/^not ok / { n = ($0 ~ /statically linked/) ? 0 : 40; print; next }
	/^(ok|not ok) / { n = 0 }
	/^# / && n > 0 { print; n-- }' "$tap" | head -400
expected=$(grep -c '^not ok .*statically linked' "$tap")
echo "bats on the sanitizer build: $p passed, $f failed ($expected expected: static link), $((SECONDS - t0)) s"
# the slowest tests, as run-all.sh shows them for the other passes
echo "== the sanitizer build's slowest tests (ms):"
sed -n 's/^ok [0-9]* \(.*\) in \([0-9]*\)ms$/\2 \1/p' "$tap" |
	sort -rn | head -8 | cut -c1-100
[ "$f" -eq "$expected" ] && bats_rc=0
rm -f "$tap"

n=$(ls "$LOGS" | wc -l)
if [ "$n" -gt 0 ]; then
	echo "== $n sanitizer reports:"
	for r in "$LOGS"/*; do
		echo "--- $r"
		head -30 "$r"
	done
fi
echo "sanitizer reports: $n"

vg_fail=0
if [ -z "${ASAN_SKIP_VALGRIND:-}" ]; then
	echo "== valgrind memcheck on the unit tests ($VB)"
	t1=$SECONDS
	make --no-print-directory -s BUILD="$VB" CFLAGS="-O1 -g" unit-bin ||
		exit 3
	# two unit tests at a time (CHECK_JOBS), their reports in order
	vg_one() {
		local t=$1 n
		n=$(basename "$t")
		# --track-origins only to report a finding (it doubles the
		# run): the first run finds, the second says where from
		if valgrind -q --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite,indirect \
			"$t" > "$VB/$n.vg" 2>&1
		then
			echo "valgrind ok: $n" > "$VB/$n.res"
		else
			{ echo "valgrind FAIL: $n"
			  valgrind -q --leak-check=full --track-origins=yes \
				--errors-for-leak-kinds=definite,indirect "$t" \
				> "$VB/$n.vg" 2>&1
			  tail -30 "$VB/$n.vg"; } > "$VB/$n.res"
		fi
	}
	export -f vg_one
	export VB
	rm -f "$VB"/test_*.res
	for t in "$VB"/unit/test_*; do
		[ -x "$t" ] && printf '%s\0' "$t"
	done | xargs -0 -r -n 1 -P "${CHECK_JOBS:-2}" bash -c 'vg_one "$1"' _
	for t in "$VB"/unit/test_*; do
		[ -x "$t" ] || continue
		r=$VB/$(basename "$t").res
		if [ -s "$r" ]; then cat "$r"; else echo "valgrind FAIL: $(basename "$t") (no result)"; fi
		grep -q '^valgrind ok: ' "$r" 2>/dev/null || vg_fail=$((vg_fail + 1))
	done
	echo "valgrind failures: $vg_fail ($((SECONDS - t1)) s)"
fi
[ "$n" -eq 0 ] && [ "$bats_rc" -eq 0 ] && [ "$vg_fail" -eq 0 ]
