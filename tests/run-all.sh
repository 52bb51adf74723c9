#!/bin/bash
# make check: C unit tests, then every bats suite (each starts its own
# swtpm).  Last line: "N passed, N failed".
cd "$(dirname "$0")/.." || exit 3
BUILD=${BUILD:-build}
# Everything a run leaves (bats' dirs, swtpm states, the fuzz, sanitizer
# and static-analysis builds) goes under one private directory, removed at
# the end: make check leaves nothing in /tmp.
CHECK_TMP=$(mktemp -d "${TMPDIR:-/tmp}/tpmbox-check.XXXXXX") || exit 3
export TMPDIR=$CHECK_TMP
trap 'rm -rf "$CHECK_TMP"' EXIT
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
# cross.bats runs in its own pass below, once per CPU.
suites=${SUITES:-$(ls tests/*.bats | grep -v '/cross\.bats$')}
# Two suites at a time (GNU parallel; each suite's own tests in order):
# a bats process keeps about one of these machines' two cores busy.
# CHECK_JOBS=1 runs them one by one.
BATS_JOBS=()
if [ "${CHECK_JOBS:-2}" -gt 1 ] && command -v parallel >/dev/null; then
	BATS_JOBS=(--jobs "${CHECK_JOBS:-2}" --no-parallelize-within-files)
fi
export CHECK_JOBS=${CHECK_JOBS:-2}
# bats_run LABEL: every suite against $TPMBOX, counted.
bats_run() {
	local tap p f
	tap=$(mktemp)
	local t0=$SECONDS
	echo "== bats: every suite against $1 ($TPMBOX)"
	# --timing: each test's time on its line, for the CI log.
	bats "${BATS_JOBS[@]}" --tap --timing $suites 2>&1 | tee "$tap"
	p=$(grep -c '^ok ' "$tap"); f=$(grep -c '^not ok ' "$tap")
	echo "== $1: $((SECONDS - t0)) s; the slowest tests (ms):"
	sed -n 's/^ok [0-9]* \(.*\) in \([0-9]*\)ms$/\2 \1/p' "$tap" |
		sort -rn | head -8 | cut -c1-100
	rm -f "$tap"
	pass=$((pass + p)); fail=$((fail + f))
	[ "$p" -eq 0 ] && fail=$((fail + 1))
}
bats_run "the default (glibc) build"
# The small static build (make tiny, musl) passes the same suites.
# CHECK_QUICK=1 (or TPMBOX_TINY= empty) skips it for a fast local loop.
if [ -n "${TPMBOX_TINY:-}" ] && [ -z "${CHECK_QUICK:-}" ]; then
	if [ -x "$TPMBOX_TINY" ]; then
		# tpm12-oracle.bats runs no tpmbox command (it records what
		# tpm-tools does): once is enough.
		suites=$(printf '%s\n' $suites | grep -v '/tpm12-oracle\.bats$') \
		TPMBOX=$TPMBOX_TINY TPMBOX_SECOND_PASS=tiny \
		bats_run "the small musl build (make tiny)"
	else
		echo "not ok tiny build: $TPMBOX_TINY was not built"
		fail=$((fail + 1))
	fi
fi
# Issue 28: the builds for a board's CPU (make tiny ARCH=..., built by
# make check) under qemu-user, against swtpm on this machine: for each
# ARCH, tests/cross.bats (the byte-order checks against this machine's
# build, the hardening calls under emulation) beside a chosen set of
# suites run on that build through a wrapper that execs qemu (the jobs
# a board runs: random, PCRs, sealing, NV, quotes, a TPM 1.2, the
# initramfs keyscript).  Not the other suites: every suite four times
# more would not fit (the pass is about 3 minutes on two cores).  A
# binary or qemu missing fails; CHECK_QUICK=1 skips the pass,
# CHECK_CROSS=1 runs it anyway.
CROSS_SUITES="tests/cross.bats tests/getrandom.bats tests/pcrread.bats
	tests/extend.bats tests/seal.bats tests/nv.bats tests/attest.bats
	tests/tpm12-seal.bats tests/initramfs.bats"
if [ -z "${CHECK_QUICK:-}" ] || [ -n "${CHECK_CROSS:-}" ]; then
	# shellcheck source=tests/helpers/tools.bash
	. tests/helpers/tools.bash
	cross_t0=$SECONDS
	for arch in ${CHECK_CROSS_ARCHES:-$CROSS_ARCHES}; do
		xbin=$PWD/tpmbox-tiny-$arch xw=$CHECK_TMP/cross-$arch/tpmbox
		mkdir -p "${xw%/*}"
		if [ ! -x "$xbin" ] || [ ! -x "$PWD/tpmbox-initramfs-$arch" ]; then
			echo "not ok cross $arch: tpmbox-tiny-$arch or tpmbox-initramfs-$arch was not built (make tiny ARCH=$arch)"
			fail=$((fail + 1))
		elif ! cross_wrapper "$arch" "$xbin" "$xw"; then
			echo "not ok cross $arch: no emulator for it (install-deps.sh cross)"
			fail=$((fail + 1))
		else
			suites=$CROSS_SUITES CROSS_ARCH=$arch TPMBOX=$xw \
			TPMBOX_HOST=$TPMBOX TPMBOX_SECOND_PASS=tiny \
			bats_run "the $arch build under qemu-user (make tiny ARCH=$arch)"
		fi
	done
	echo "== cross builds under qemu-user: $((SECONDS - cross_t0)) s"
fi
# Issue 13: a real kernel.  tests/vm/run.sh boots Debian's kernel under
# QEMU (TCG) with OVMF and swtpm and prints one TAP line per guest check;
# each counts like a bats test.  It skips (exit 77, saying why) only when
# QEMU, OVMF or busybox-static cannot be had; install-deps.sh installs
# them.  About 200 s, most of it one QEMU process: it runs beside the
# static-analysis and fuzz gates below (its guests have 150 s each to
# power off and take about 30).  CHECK_QUICK=1 skips it, CHECK_VM=1 runs
# it anyway.
vm_run=
if [ -z "${CHECK_QUICK:-}" ] || [ -n "${CHECK_VM:-}" ]; then
	vm_run=1
	vmlog=$(mktemp)
	vm_t0=$SECONDS
	( VM_DIR=$BUILD/vm bash tests/vm/run.sh > "$vmlog" 2>&1
	  echo $? > "$vmlog.rc" ) &
	vm_pid=$!
fi
# vm_finish: wait for the VM run, print its log, count its TAP lines.
vm_finish() {
	local vrc p f
	[ -n "$vm_run" ] || return 0
	wait "$vm_pid"
	echo "== vmtest: tpmbox against Debian's kernel under QEMU"
	cat "$vmlog"
	vrc=$(cat "$vmlog.rc" 2>/dev/null || echo 1)
	echo "== vmtest: $((SECONDS - vm_t0)) s (beside the gates)"
	p=$(grep -c '^ok ' "$vmlog"); f=$(grep -c '^not ok ' "$vmlog")
	rm -f "$vmlog" "$vmlog.rc"
	if [ "$vrc" = 77 ]; then
		echo "# vmtest skipped: QEMU cannot run here (see above)"
	else
		pass=$((pass + p)); fail=$((fail + f))
		[ "$vrc" != 0 ] && [ "$f" = 0 ] && fail=$((fail + 1))
		[ "$p" = 0 ] && [ "$vrc" = 0 ] && fail=$((fail + 1))
	fi
}
# Issue 5 gates: static analysis (cppcheck, scan-build), every fuzz target
# briefly, then the whole suite again on an ASan+UBSan build plus valgrind
# on the unit tests.  Each gate counts as one test.  CHECK_QUICK=1 skips
# them (for a fast local loop).

# gate NAME WHAT-IT-PROVES COMMAND...: one test, ok or not ok.
gate() {
	local name=$1 proves=$2 t0=$SECONDS rc=0
	shift 2
	"$@" || rc=$?
	echo "== $name: $((SECONDS - t0)) s"
	if [ "$rc" -eq 0 ]; then
		echo "ok $name: $proves"
		pass=$((pass + 1))
	else
		echo "not ok $name: see above"
		fail=$((fail + 1))
	fi
}
fuzz_gate() {
	FUZZ_SECONDS=${FUZZ_SECONDS:-3} bash tests/fuzz/run.sh \
		> "$TMPDIR/tpmbox-fuzz.log" 2>&1 ||
		{ tail -40 "$TMPDIR/tpmbox-fuzz.log"; return 1; }
}
if [ -z "${CHECK_QUICK:-}" ]; then
	echo "== static analysis: cppcheck and scan-build"
	gate "static analysis" "cppcheck and scan-build report nothing" \
		bash tests/static.sh
	echo "== fuzz: every target for ${FUZZ_SECONDS:-3} s"
	gate fuzz "no crash, leak or timeout in any target" fuzz_gate
	vm_finish
	echo "== sanitizers: every suite on an ASan+UBSan build, valgrind on unit tests"
	gate sanitizers "0 findings" bash tests/asan.sh
fi
[ -z "${CHECK_QUICK:-}" ] || vm_finish
echo "== make check's tests: $SECONDS s"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
