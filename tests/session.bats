#!/usr/bin/env bats
# Session paths that no applet takes on its own (bound sessions, unsalted
# sessions, an HMAC session without any key), driven by
# tests/helpers/sesscheck.c built from lib/.  Oracle: tpm2-tools uses the
# auth values the sessions set.  Salted ECC and RSA sessions, parameter
# encryption and the wire check are in takeown.bats and seal.bats; the
# response-HMAC refusal in tests/unit/test_session.c.

load helpers/common

setup_file() {
	export SC="$BATS_FILE_TMPDIR/sesscheck"
	local root="$BATS_TEST_DIRNAME/.."
	cc -std=c11 -D_GNU_SOURCE -O1 -I"$root/include" -o "$SC" \
		"$root/tests/helpers/sesscheck.c" "$root"/lib/*/*.c -lmbedx509 -lmbedcrypto
	swtpm_start
}
teardown_file() { swtpm_stop; }

fresh() { tpm2_clear -c p >/dev/null 2>&1; t2_flush; }

@test "session: bound to the owner and salted: changes owner and endorsement auth" {
	fresh
	tpm2_changeauth -c o bind-old
	run "$SC" "$TPMBOX_TCTI" bound bind-old bind-new
	assert_success
	run tpm2_changeauth -c o -p bind-new bind-new
	assert_success
	run tpm2_changeauth -c e -p bind-new bind-new
	assert_success
}

@test "session: bound with the wrong value is refused by the TPM (exit 4)" {
	fresh
	tpm2_changeauth -c o right
	# The SRK persisted, so only the bound session meets the wrong value.
	tb takeown --old-owner-auth str:right >/dev/null
	run "$SC" "$TPMBOX_TCTI" bound wrong whatever
	assert_failure 4
	assert_output --partial "TPM2_HierarchyChangeAuth: TPM_RC_"
	run tpm2_changeauth -c o -p right right
	assert_success
}

@test "session: unsalted unbound HMAC session changes the owner auth" {
	fresh
	tpm2_changeauth -c o uns-old
	run "$SC" "$TPMBOX_TCTI" unsalted uns-old uns-new
	assert_success
	run tpm2_changeauth -c o -p uns-new uns-new
	assert_success
}

@test "session: no key at all (unsalted, unbound, empty auth): empty HMAC accepted" {
	fresh
	run "$SC" "$TPMBOX_TCTI" emptykey "" first
	assert_success
	run tpm2_changeauth -c o -p first first
	assert_success
}
