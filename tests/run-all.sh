#!/bin/bash
# make check: C unit tests, then every bats suite (each starts its own
# swtpm).  Last line: "N passed, N failed".
cd "$(dirname "$0")/.." || exit 3
BUILD=${BUILD:-build}
export TPMBOX=${TPMBOX:-$PWD/tpmbox}
pass=0 fail=0
for t in "$BUILD"/unit/test_*; do
	[ -x "$t" ] || continue
	out=$("$t" 2>&1); rc=$?
	echo "$out"
	p=$(echo "$out" | sed -n 's/^unit: .* \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
	f=$(echo "$out" | sed -n 's/^unit: .* \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
	[ $rc -ne 0 ] && [ "${f:-0}" = 0 ] && fail=$((fail + 1))
done
suites=${SUITES:-$(ls tests/*.bats)}
tap=$(mktemp)
bats --tap $suites 2>&1 | tee "$tap"
p=$(grep -c '^ok ' "$tap"); f=$(grep -c '^not ok ' "$tap")
rm -f "$tap"
pass=$((pass + p)); fail=$((fail + f))
[ "$p" -eq 0 ] && fail=$((fail + 1))
# Issue 5 gates: static analysis (cppcheck, scan-build), every fuzz target
# briefly, then the whole suite again on an ASan+UBSan build plus valgrind
# on the unit tests.  Each gate counts as one test.  CHECK_QUICK=1 skips
# them (for a fast local loop).
if [ -z "${CHECK_QUICK:-}" ]; then
	echo "== static analysis: cppcheck and scan-build"
	if bash tests/static.sh; then
		echo "ok static analysis: cppcheck and scan-build report nothing"
		pass=$((pass + 1))
	else
		echo "not ok static analysis: see above"
		fail=$((fail + 1))
	fi
	echo "== fuzz: every target for ${FUZZ_SECONDS:-3} s"
	if FUZZ_SECONDS=${FUZZ_SECONDS:-3} bash tests/fuzz/run.sh > "${TMPDIR:-/tmp}/tpmbox-fuzz.log" 2>&1; then
		echo "ok fuzz: no crash, leak or timeout in any target"
		pass=$((pass + 1))
	else
		tail -40 "${TMPDIR:-/tmp}/tpmbox-fuzz.log"
		echo "not ok fuzz: see above"
		fail=$((fail + 1))
	fi
	echo "== sanitizers: every suite on an ASan+UBSan build, valgrind on unit tests"
	if bash tests/asan.sh; then
		echo "ok sanitizers: 0 findings"
		pass=$((pass + 1))
	else
		echo "not ok sanitizers: see above"
		fail=$((fail + 1))
	fi
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
