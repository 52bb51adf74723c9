#!/usr/bin/env bats
# The test suites themselves: no check that cannot fail
# (tests/helpers/checklint.awk says which lines bats' set -e ignores).

@test "lint: no '! cmd' line and no '[ a ] && [ b ]' line that set -e ignores, in any suite or helper" {
	[ -z "${TPMBOX_SECOND_PASS:-}" ] ||
		skip "the suites are the same in every pass: checked in the default one"
	lint=$BATS_TEST_DIRNAME/helpers/checklint.awk
	# the control: each kind is found, and a condition or a last line is not
	# (a negated pipeline over two lines: judged by its last line)
	printf '@test "x" {\n\t! grep -q a b\n\t[ -n "$a" ] && [ "$a" = b ]\n\t! grep -q a |\n\t\tgrep b\n\t! grep -q c |\n\t\tgrep d || false\n\tif true &&\n\t   ! false; then :; fi\n\t! x || false\n\t! last |\n\t\tgrep e\n}\n' \
		> "$BATS_TEST_TMPDIR/bad.bats"
	run awk -f "$lint" "$BATS_TEST_TMPDIR/bad.bats"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" == *"bad.bats:2: "*"! grep -q a b" ]]
	[[ "${lines[1]}" == *"bad.bats:3: "* ]]
	[[ "${lines[2]}" == *"bad.bats:4: "*"! grep -q a |" ]]
	run awk -f "$lint" "$BATS_TEST_DIRNAME"/*.bats "$BATS_TEST_DIRNAME"/helpers/*.bash
	[ "$status" -eq 0 ]
	[ -z "$output" ] || { echo "$output"; false; }
}

@test "lint: lib/ and include/ include only from their own floor and those below" {
	[ -z "${TPMBOX_SECOND_PASS:-}" ] ||
		skip "the tree is the same in every pass: checked in the default one"
	floors=$BATS_TEST_DIRNAME/helpers/floors.awk
	root=$BATS_TEST_DIRNAME/..
	# the control: a planted upward include, a header with no floor and a
	# file outside every floor are each found; a sideways one is not
	mkdir -p "$BATS_TEST_TMPDIR/lib/base" "$BATS_TEST_TMPDIR/lib/odd"
	{ cat "$root/lib/base/buf.c"; printf '#include "job/tpm.h"\n#include "applet.h"\n#include "base/err.h"\n'; } \
		> "$BATS_TEST_TMPDIR/lib/base/buf.c"
	printf '#include "base/buf.h"\n' > "$BATS_TEST_TMPDIR/lib/odd/x.c"
	run awk -f "$floors" "$BATS_TEST_TMPDIR/lib/base/buf.c" "$BATS_TEST_TMPDIR/lib/odd/x.c"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" == *'lib/base/buf.c:'*'"job/tpm.h": job is above base' ]]
	[[ "${lines[1]}" == *'lib/base/buf.c:'*'"applet.h": names no floor' ]]
	[[ "${lines[2]}" == *'lib/odd/x.c: not in a floor folder'* ]]
	# the tree: every .c and .h in lib/ and include/ is in a floor folder
	# (include/applet.h is the applets' own, above every floor)
	run find "$root/lib" "$root/include" -maxdepth 1 -type f ! -path "$root/include/applet.h"
	[ -z "$output" ] || { echo "files outside the floors: $output"; false; }
	run awk -f "$floors" "$root"/lib/*/*.c "$root"/include/*/*.h
	[ "$status" -eq 0 ]
	[ -z "$output" ] || { echo "$output"; false; }
}
