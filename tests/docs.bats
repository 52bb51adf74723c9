#!/usr/bin/env bats
# The documentation stays in step with the applets: man page, README,
# completion and a test suite for every applet in `tpmbox --list`.

load helpers/common

@test "docs: the committed bash completion is what completions/gen.sh makes now" {
	# made from the full build: the small one leaves TINY_OMIT's applets out
	for a in $(sed -n 's/^TINY_OMIT ?= *//p' "$BATS_TEST_DIRNAME/../Makefile"); do
		"$TPMBOX" --list | grep -q "^$a " || skip "$TPMBOX has no $a (make tiny)"
	done
	run bash -c "bash '$BATS_TEST_DIRNAME/../completions/gen.sh' '$TPMBOX' | diff - '$BATS_TEST_DIRNAME/../completions/tpmbox.bash'"
	assert_success
}

@test "docs: the completion is valid bash and completes applets and options" {
	run bash -c "source '$BATS_TEST_DIRNAME/../completions/tpmbox.bash'
		COMP_WORDS=(tpmbox pcrr); COMP_CWORD=1; _tpmbox; echo \"\${COMPREPLY[*]}\"
		COMP_WORDS=(tpmbox getrandom --h); COMP_CWORD=2; _tpmbox; echo \"\${COMPREPLY[*]}\"
		COMP_WORDS=(extend 7 -b sha2); COMP_CWORD=3; _tpmbox; echo \"\${COMPREPLY[*]}\""
	assert_success
	assert_line --index 0 "pcrread"
	assert_line --index 1 "--hex --help"
	assert_line --index 2 "sha256"
}

@test "docs: every applet has a man page, a README entry and a test suite" {
	cd "$BATS_TEST_DIRNAME/.."
	missing=
	for a in $("$TPMBOX" --list | awk '{print $1}'); do
		[ -f "man/tpmbox-$a.1" ] || missing="$missing man:$a"
		grep -q "\`$a\`" README.md || missing="$missing readme:$a"
		grep -lqw -- "$a" tests/*.bats || missing="$missing test:$a"
		grep -q "BR tpmbox-$a (1)" man/tpmbox.1 || missing="$missing see-also:$a"
	done
	[ -z "$missing" ] || { echo "missing:$missing"; false; }
}

@test "docs: man pages render without warnings" {
	cd "$BATS_TEST_DIRNAME/.."
	for m in man/*.1 man/*.8; do
		run bash -c "groff -man -ww -z -Tutf8 '$m' 2>&1"
		[ -z "$output" ] || { echo "$m: $output"; false; }
	done
}
