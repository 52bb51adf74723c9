#!/bin/bash
# Static analysis gate (issue 5): cppcheck and clang's scan-build over
# lib/, applets/, main.c and applet.c must report nothing.  Exit 0 when clean, 1 on
# any finding (printed), 3 when a tool is missing.
cd "$(dirname "$0")/.." || exit 3
for tool in cppcheck scan-build clang; do
	command -v $tool >/dev/null || { echo "static: $tool not found" >&2; exit 3; }
done
fail=0
dir=$(mktemp -d "${TMPDIR:-/tmp}/tpmbox-static.XXXXXX")
trap 'rm -rf "$dir"' EXIT

echo "== cppcheck $(cppcheck --version | sed 's/^Cppcheck //')"
if ! cppcheck -q --enable=warning,portability,performance \
	--error-exitcode=1 --inline-suppr -D__GNUC__ -Iinclude \
	lib applets main.c applet.c; then
	echo "static: cppcheck reported the findings above"
	fail=1
fi

# A private build dir: the analysis sees every file compiled (no stale
# objects), the real build is untouched.
echo "== scan-build"
scan-build -o "$dir/report" --status-bugs \
	make -s BUILD="$dir/build" BIN="$dir/build/tpmbox" CC=clang STATIC= \
	-j"$(nproc)" > "$dir/log" 2>&1
rc=$?
grep -E "warning:|error:|bugs found|No bugs found" "$dir/log" | sort -u
if [ $rc -ne 0 ]; then
	echo "static: scan-build found the bugs above (exit $rc)"
	fail=1
fi
exit $fail
