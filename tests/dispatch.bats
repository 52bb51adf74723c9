#!/usr/bin/env bats
# main.c: dispatch by name or link, --list, --install, --version, help,
# global options anywhere, TPM selection precedence, make install.

load helpers/common
bats_require_minimum_version 1.5.0

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)

setup_file() { swtpm_start; }
teardown_file() { swtpm_stop; }

applets() { "$TPMBOX" --list | awk '{print $1}'; }

@test "dispatch: the binary is statically linked" {
	run file -L "$TPMBOX"
	assert_success
	assert_output --partial "statically linked"
	refute_output --partial "dynamically linked"
}

@test "dispatch: the default build hardens every object (fortify, stack protector)" {
	d=$BATS_TEST_TMPDIR/hb
	run env -u CFLAGS make -C "$ROOT" -n -B BUILD="$d" "$d/lib/err.o"
	assert_success
	assert_output --partial "-D_FORTIFY_SOURCE=2"
	assert_output --partial "-fstack-protector-strong"
	assert_output --partial "-O2"
	run env -u CFLAGS make -C "$ROOT" -s BUILD="$d" "$d/lib/err.o" "$d/lib/tpm2/session.o"
	assert_success
	# The flags took effect: checked libc calls and the canary check.
	run nm "$d/lib/err.o"
	assert_line --regexp " U __vsnprintf_chk$"
	assert_line --regexp " U __stack_chk_fail$"
	run nm "$d/lib/tpm2/session.o"
	assert_line --regexp " U __memcpy_chk$"
	assert_line --regexp " U __stack_chk_fail$"
}

@test "dispatch: --list names every applet in applets/, with a summary" {
	run tb --list
	assert_success
	# (the tree may hold applets newer than the binary under test)
	for a in $(applets); do [ -f "$ROOT/applets/$a.c" ] || { echo "$a"; false; }; done
	[ "$(applets | sort -u | wc -l)" -eq "$(applets | wc -l)" ]
	for a in getrandom pcrread extend info; do
		assert_line --regexp "^$a +[a-zA-Z].+"
	done
}

@test "dispatch: --version" {
	run tb --version
	assert_success
	assert_output --regexp '^tpmbox [0-9]+\.[0-9]+'
}

@test "dispatch: unknown applet -> 127 with how to list them" {
	run -127 tb frobnicate
	assert_failure 127
	assert_output --partial "tpmbox: unknown applet 'frobnicate'"
	assert_output --partial "'tpmbox --list' lists the applets"
	run tb
	assert_failure 2
	assert_output --partial "usage: tpmbox"
}

@test "dispatch: -h and --help for every applet: usage first, option lines, exit 0" {
	for a in $(applets); do
		for h in -h --help; do
			run tb "$a" "$h"
			[ "$status" -eq 0 ] || { echo "$a $h -> $status"; false; }
			[[ "${lines[0]}" == "usage: $a"* ]] || { echo "$a: ${lines[0]}"; false; }
			assert_output --partial "  -T, --tcti CONF"
		done
	done
	run tb --help
	assert_success
	assert_output --partial "usage: tpmbox"
}

@test "dispatch: 'tpmbox pcrread' equals a hard link named pcrread (--install DIR)" {
	d=$BATS_TEST_TMPDIR/bin
	mkdir -p "$d"
	run tb --install "$d"
	assert_success
	[ "$(ls "$d" | sort)" = "$(applets | sort)" ]
	for a in $(applets); do
		[ ! -L "$d/$a" ] && [ "$d/$a" -ef "$(readlink -f "$TPMBOX")" ] || { echo "$a"; false; }
	done
	[ "$("$d/pcrread" sha256:0-3+sha1:7)" = "$(tb pcrread sha256:0-3+sha1:7)" ]
	run "$d/getrandom" --hex 8
	assert_success
	assert_output --regexp '^[0-9a-f]{16}$'
	run "$d/extend" -h
	assert_line --index 0 --partial "usage: extend"
	# --install again replaces the links
	run tb --install "$d"
	assert_success
}

@test "dispatch: --install -s DIR makes symbolic links that work" {
	d=$BATS_TEST_TMPDIR/sbin
	mkdir -p "$d"
	run tb --install -s "$d"
	assert_success
	for a in $(applets); do
		[ -L "$d/$a" ] && [ "$(readlink -f "$d/$a")" = "$(readlink -f "$TPMBOX")" ] || { echo "$a"; false; }
	done
	[ "$("$d/pcrread" sha256:7)" = "$(tb pcrread sha256:7)" ]
	run "$d/info" --json
	assert_success
	[ "$(echo "$output" | jq -r .manufacturer)" = IBM ]
}

@test "dispatch: --install refusals" {
	run tb --install
	assert_failure 2
	assert_output --partial "usage: tpmbox --install [-s] DIR"
	run tb --install "$BATS_TEST_TMPDIR/does/not/exist"
	assert_failure 3
}

@test "dispatch: a link with an unknown name falls back to argv[1]" {
	ln -s "$TPMBOX" "$BATS_TEST_TMPDIR/mytpm"
	run "$BATS_TEST_TMPDIR/mytpm" getrandom --hex 2
	assert_success
	assert_output --regexp '^[0-9a-f]{4}$'
}

@test "dispatch: -T before and after the applet name, and --tcti=" {
	good=$TPMBOX_TCTI
	export TPMBOX_TCTI=device:/nonexistent/tpm0
	run tb -T "$good" getrandom 4
	assert_success
	run tb getrandom -T "$good" 4
	assert_success
	run tb getrandom 4 --tcti "$good"
	assert_success
	run tb "--tcti=$good" pcrread sha1:0
	assert_success
	run tb "-T$good" pcrread sha1:0
	assert_success
	# and the bad one from the environment is used without -T
	run tb getrandom 4
	assert_failure 3
	assert_output --partial "/nonexistent/tpm0 does not exist"
	# -T after the applet beats -T before it
	run tb -T "$good" getrandom -T device:/nonexistent/x 4
	assert_failure 3
	assert_output --partial "/nonexistent/x does not exist"
	run tb getrandom 4 -T
	assert_failure 2
	assert_output --partial "-T needs a value"
}

@test "dispatch: -T after -- is an argument, not an option" {
	run tb extend 9 -s x -- -T foo
	assert_failure 2
	assert_output --partial "expected one PCR index"
}

@test "dispatch: TPMBOX_TCTI wins over TPM2TOOLS_TCTI; TPM2TOOLS_TCTI is used alone" {
	good=$TPMBOX_TCTI
	run env TPMBOX_TCTI="$good" TPM2TOOLS_TCTI=device:/nonexistent/t2 "$TPMBOX" getrandom 4
	assert_success
	run env TPMBOX_TCTI=device:/nonexistent/tb TPM2TOOLS_TCTI="$good" "$TPMBOX" getrandom 4
	assert_failure 3
	assert_output --partial "/nonexistent/tb does not exist"
	run env -u TPMBOX_TCTI TPM2TOOLS_TCTI="$good" "$TPMBOX" pcrread sha256:0
	assert_success
	run env -u TPMBOX_TCTI TPM2TOOLS_TCTI=device:/nonexistent/t2 "$TPMBOX" getrandom 4
	assert_failure 3
	assert_output --partial "/nonexistent/t2 does not exist"
	# an empty TPMBOX_TCTI counts as unset
	run env TPMBOX_TCTI= TPM2TOOLS_TCTI="$good" "$TPMBOX" getrandom 4
	assert_success
}

@test "dispatch: with nothing configured, /dev/tpmrm0 then /dev/tpm0" {
	run env -u TPMBOX_TCTI -u TPM2TOOLS_TCTI "$TPMBOX" getrandom 4
	if [ -e /dev/tpmrm0 ] || [ -e /dev/tpm0 ]; then
		# a real TPM here: the default must reach it or fail on it
		[[ "$output" != *"unknown TPM"* ]]
	else
		assert_failure 3
		assert_output --partial "no TPM found: /dev/tpm0 does not exist"
	fi
}

@test "dispatch: make install DESTDIR PREFIX puts binary, links, man pages, completion" {
	d=$BATS_TEST_TMPDIR/root
	run make -s -C "$ROOT" -o "$TPMBOX" BIN="$TPMBOX" BUILD="${BUILD:-build}" \
		install DESTDIR="$d" PREFIX=/usr
	assert_success
	[ -x "$d/usr/bin/tpmbox" ]
	cmp "$d/usr/bin/tpmbox" "$TPMBOX"
	for a in $(applets); do
		[ "$(readlink "$d/usr/bin/$a")" = tpmbox ] || { echo "link $a"; false; }
		[ -e "$d/usr/share/bash-completion/completions/$a" ] || { echo "completion $a"; false; }
	done
	[ "$("$d/usr/bin/pcrread" sha1:0)" = "$(tb pcrread sha1:0)" ]
	[ -f "$d/usr/share/man/man1/tpmbox.1" ]
	[ "$(ls "$d/usr/share/man/man1" | sort)" = "$(ls "$ROOT/man" | grep '\.1$' | sort)" ]
	for a in getrandom pcrread extend info; do
		[ -f "$d/usr/share/man/man1/$a.1" ] || { echo "man $a"; false; }
	done
	cmp "$d/usr/share/bash-completion/completions/tpmbox" "$ROOT/completions/tpmbox.bash"
	bash -n "$d/usr/share/bash-completion/completions/tpmbox"
}

@test "dispatch: make demo's script runs every step and leaves no swtpm behind" {
	run bash "$ROOT/tests/helpers/demo.sh"
	assert_success
	assert_output --partial "manufacturer: IBM"
	assert_line --regexp '^[0-9a-f]{64}$'
	# PCR 9 after the extend, computed here: H(zeros || H(data))
	want=$( (printf '%064d' 0 | xxd -r -p; printf 'initramfs stage 2' | openssl dgst -sha256 -binary) | openssl dgst -sha256 -binary | xxd -p -c64)
	[ "$(echo "$output" | grep -c "^sha256:9 $want\$")" -eq 2 ]
	assert_output --partial "\"9\": \"$want\""
	# the sealing story: unseal works, then is refused after extend 7
	assert_line "correct horse battery staple"
	assert_output --partial "(sha256:7 differ)"
	assert_line "(exit 4)"
	assert_line "provisioned 2026-12-03"
	# checkquote prints the verified PCR 7: H(zeros || H(data))
	want7=$( (printf '%064d' 0 | xxd -r -p; printf 'an unexpected boot loader' | openssl dgst -sha256 -binary) | openssl dgst -sha256 -binary | xxd -p -c64)
	assert_line "sha256:7 $want7"
	dir=$(echo "$output" | sed -n 's/^tpmbox demo: a throwaway swtpm in \([^ ]*\) .*/\1/p')
	[ -n "$dir" ] && [ ! -e "$dir" ]
	! pgrep -f "tpmstate dir=$dir" >/dev/null
}

@test "dispatch: make bench's script prints a row per workflow, ratio and size" {
	run env BENCH_RUNS=20 bash "$ROOT/bench/bench.sh"
	assert_success
	for w in "getrandom 32" "pcrread sha256:7" "extend PCR 16 (sha256)" \
		 "seal+unseal (PCR policy)" "quote+checkquote"; do
		assert_line --regexp "^$(printf '%s' "$w" | sed 's/[()+]/\\&/g') +[0-9]+ +[0-9]+ +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{3} "
	done
	assert_line --regexp "^  whole workflow +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{3}$"
	# tests/asan.sh runs this suite on a (necessarily dynamic) sanitizer
	# build; the static-link test itself is its one expected failure.
	linked=yes
	[ -n "${TPMBOX_SANITIZED:-}" ] && linked=no
	assert_line --regexp "^tpmbox binary: $(stat -c %s "$TPMBOX") bytes \([0-9]+ stripped\), statically linked: $linked$"
	assert_line --regexp '^worst ratio tpmbox/tpm2-tools: [0-9.]+ '
	run env BENCH_RUNS=5 bash "$ROOT/bench/bench.sh"
	assert_failure 2
	assert_output --partial "BENCH_RUNS must be >= 20"
}
