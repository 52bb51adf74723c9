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
