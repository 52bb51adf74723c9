#!/bin/bash
# Build and run every libFuzzer target in tests/fuzz (fuzz_*.c) against
# the lib/ sources (clang, -fsanitize=fuzzer,address,undefined), each for
# FUZZ_SECONDS (default 10).  Seeds: tests/fuzz/corpus/NAME/ (kept small),
# plus the real event logs in ../shared/fixtures/eventlog when present.
# New inputs go to $FUZZ_BUILD/corpus/NAME, crashes to $FUZZ_BUILD/crash-*.
#
#   tests/fuzz/run.sh [TARGET...]       fuzz (all targets by default)
#   tests/fuzz/run.sh --coverage        line coverage of lib/ reached by
#                                       the corpora (seeds + found inputs)
# Exit 0 when no target crashed, leaked or timed out.
cd "$(dirname "$0")/../.." || exit 3
FUZZ_SECONDS=${FUZZ_SECONDS:-10}
B=${FUZZ_BUILD:-${TMPDIR:-/tmp}/fuzz-build}
CC=${FUZZ_CC:-clang}
FIX=../shared/fixtures/eventlog
mode=fuzz
if [ "${1:-}" = --coverage ]; then
	mode=coverage
	shift
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for f in tests/fuzz/fuzz_*.c; do
		targets+=("$(basename "$f" .c)")
	done
fi

# lib/ without the real transport: xport_stub.c serves the fuzzer's bytes.
LIB_SRC=$(ls lib/*/*.c | grep -v '^lib/tpm/transport\.c$')
CFLAGS_COMMON="-std=c11 -D_GNU_SOURCE -g -Iinclude -Itests/fuzz -Wall -Wextra -Werror"
if [ $mode = fuzz ]; then
	OBJ=$B/obj
	CFLAGS="$CFLAGS_COMMON -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
	LINK="-fsanitize=fuzzer,address,undefined"
else
	OBJ=$B/covobj
	CFLAGS="$CFLAGS_COMMON -O0 -fprofile-instr-generate -fcoverage-mapping -fsanitize=fuzzer-no-link"
	LINK="-fsanitize=fuzzer -fprofile-instr-generate -fcoverage-mapping"
fi
mkdir -p "$OBJ" "$B/corpus"

objs=()
for s in $LIB_SRC tests/fuzz/xport_stub.c; do
	o=$OBJ/$(echo "$s" | tr / _ | sed 's/\.c$/.o/')
	if [ ! -e "$o" ] || [ "$s" -nt "$o" ] ||
	   [ -n "$(find include -newer "$o" -name '*.h' | head -1)" ]; then
		$CC $CFLAGS -c -o "$o" "$s" || exit 3
	fi
	objs+=("$o")
done

corpora() {	# NAME: the seed and work corpus directories
	local t=$1
	mkdir -p "$B/corpus/$t"
	echo "$B/corpus/$t"
	[ -d "tests/fuzz/corpus/$t" ] && echo "tests/fuzz/corpus/$t"
	if [ -d "$FIX" ]; then
		case $t in
		fuzz_eventlog) mkdir -p "$B/fix-evl"
			cp "$FIX"/*.bin "$B/fix-evl/" 2>/dev/null
			rm -f "$B"/fix-evl/sml-*; echo "$B/fix-evl" ;;
		fuzz_imalog) mkdir -p "$B/fix-ima"
			cp "$FIX"/sml-*.bin "$B/fix-ima/" 2>/dev/null
			echo "$B/fix-ima" ;;
		esac
	fi
}

fail=0
profs=()
bins=()
for t in "${targets[@]}"; do
	bin=$B/$t
	[ $mode = coverage ] && bin=$B/$t.cov
	$CC $CFLAGS $LINK -o "$bin" "tests/fuzz/$t.c" "${objs[@]}" \
		-lmbedx509 -lmbedcrypto || exit 3
	mapfile -t dirs < <(corpora "$t")
	if [ $mode = fuzz ]; then
		echo "== $t: ${FUZZ_SECONDS}s"
		"$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 \
			-rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
			-artifact_prefix="$B/crash-$t-" "${dirs[@]}" \
			> "$B/$t.log" 2>&1
		rc=$?
		grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' \
			"$B/$t.log" | tail -2
		if [ $rc -ne 0 ]; then
			echo "FAIL $t (exit $rc):"
			grep -E 'ERROR|runtime error|SUMMARY' "$B/$t.log" | head -5
			fail=1
		fi
	else
		LLVM_PROFILE_FILE="$B/$t.profraw" "$bin" -runs=0 \
			"${dirs[@]}" > "$B/$t.covlog" 2>&1
		profs+=("$B/$t.profraw")
		bins+=("$bin")
	fi
done

if [ $mode = coverage ]; then
	llvm-profdata merge -o "$B/all.profdata" "${profs[@]}" || exit 3
	args=("${bins[0]}")
	for b in "${bins[@]:1}"; do args+=(-object "$b"); done
	llvm-cov report "${args[@]}" -instr-profile="$B/all.profdata" \
		$LIB_SRC | tee "$B/coverage.txt"
fi
exit $fail
