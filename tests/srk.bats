#!/usr/bin/env bats
# The SRK tpmbox derives for parent 0x40000001 is the one systemd,
# tpm2-openssl, GnuPG's tpm2d and GRUB derive: the TCG H-2 template with an
# empty unique field (takeown.bats compares it with tpm2_createprimary's,
# keys.bats has tpm2-openssl load a tpmbox key file).  What an older tpmbox
# made under its zero-filled template keeps working: a TPM state and a blob
# and an AK made then are kept as fixtures (tests/fixtures/srk-zeros).

load helpers/common
bats_require_minimum_version 1.5.0

FX=$BATS_TEST_DIRNAME/fixtures/srk-zeros

setup() {
	D=$BATS_TEST_TMPDIR
	mkdir -p "$D/state"
	cp "$FX/tpm2-00.permall" "$D/state/"
	swtpm socket --tpm2 --server type=unixio,path="$D/sock" \
		--ctrl type=unixio,path="$D/sock.ctrl" --tpmstate dir="$D/state" \
		--flags not-need-init,startup-clear --pid file="$D/pid" --daemon
	export TPMBOX_TCTI=swtpm:path=$D/sock TPM2TOOLS_TCTI=swtpm:path=$D/sock
	unset TPMBOX_SRK
}
teardown() { kill "$(cat "$BATS_TEST_TMPDIR/pid")" 2>/dev/null || true; }

@test "srk: a blob sealed under the older zero-filled SRK still unseals, with no SRK persisted and after takeown persists the H-2 one" {
	run tb unseal "$FX/old-seal.blob"
	assert_success
	assert_output "$(cat "$FX/secret")"
	run tb takeown
	assert_success
	h2=$output
	run tb unseal "$FX/old-seal.blob"
	assert_success
	assert_output "$(cat "$FX/secret")"
	# the blob names another SRK than today's (the fallback is what
	# opens it): pinned to today's, it is refused, naming both
	run tb unseal --srk-name "$h2" "$FX/old-seal.blob"
	assert_failure 1
	assert_output --partial "$h2"
	# a new blob goes under today's SRK
	printf 'new' > "$D/n"
	tb seal --srk-name "$h2" -o "$D/new.blob" "$D/n"
	[ "$(tb unseal --srk-name "$h2" "$D/new.blob")" = new ]
}

@test "srk: an AK made under the older SRK still quotes (its load falls back to that SRK), before and after takeown" {
	tb quote -k "$FX/old-ak.blob" -p sha256:0 -n 0011 -o "$D/q" >/dev/null
	tb checkquote -k "$FX/old-ak.pem" -n 0011 "$D/q" >/dev/null
	tb takeown >/dev/null
	tb --trace quote -k "$FX/old-ak.blob" -p sha256:0 -n 0022 -f -o "$D/q" \
		>/dev/null 2>"$D/trace"
	tb checkquote -k "$FX/old-ak.pem" -n 0022 "$D/q" >/dev/null
	# the persisted (H-2) SRK refused the AK (TPM2_Load failed), so the
	# older SRK was made for it: CreatePrimary
	grep -q TPM2_CreatePrimary "$D/trace"
}

@test "srk: a key from another TPM is still refused after every fallback (exit 1, one sentence)" {
	tb keycreate -o "$D/k.pem" >/dev/null 2>&1 || skip "keycreate is not in this build"
	kill "$(cat "$D/pid")"; sleep 0.2
	# another TPM: the key's parent exists in no form there
	rm -rf "$D/state2"; mkdir -p "$D/state2"
	swtpm socket --tpm2 --server type=unixio,path="$D/sock" \
		--ctrl type=unixio,path="$D/sock.ctrl" --tpmstate dir="$D/state2" \
		--flags not-need-init,startup-clear --pid file="$D/pid" --daemon
	run tb sign -k "$D/k.pem" -d "$(printf '%064d' 0)"
	assert_failure 1
	assert_output --partial "another SRK"
}

@test "srk: keycreate where an older tpmbox persisted its zero-filled SRK makes the key under the H-2 one, so tpm2-openssl loads the file; the persisted key is left in place" {
	"$TPMBOX" --list | grep -q '^keycreate ' || skip "keycreate is not in this build"
	# the fixture's state after the older tpmbox's takeown (1fef2c4):
	# its SRK persisted at 0x81000001
	kill "$(cat "$D/pid")"
	sleep 0.2
	cp "$FX/tpm2-00-srk-persisted.permall" "$D/state/tpm2-00.permall"
	swtpm socket --tpm2 --server type=unixio,path="$D/sock" \
		--ctrl type=unixio,path="$D/sock.ctrl" --tpmstate dir="$D/state" \
		--flags not-need-init,startup-clear --pid file="$D/pid" --daemon
	old=$(tpm2_readpublic -c 0x81000001 | sed -n 's/^name: //p')
	[ "$old" = 000b7f23f12c647dcf2ce62d1d16faf674d85000e633845247ed577a9366702b29cf ]
	tb keycreate -o "$D/k.pem" --pub "$D/k.pub" >/dev/null
	printf 'signed through openssl' > "$D/m"
	openssl dgst -sha256 -binary "$D/m" > "$D/m.d"
	TPM2OPENSSL_TCTI=$TPMBOX_TCTI openssl pkeyutl -sign -provider tpm2 \
		-provider default -inkey "$D/k.pem" -in "$D/m.d" -out "$D/m.sig"
	openssl pkeyutl -verify -pubin -inkey "$D/k.pub" -in "$D/m.d" -sigfile "$D/m.sig"
	tb sign -k "$D/k.pem" -i "$D/m" -o "$D/m2.sig"
	openssl dgst -sha256 -verify "$D/k.pub" -signature "$D/m2.sig" "$D/m"
	# nothing replaced: the older SRK is still there, and pinned to it
	# keycreate keeps it (the pin wins over the ecosystem)
	[ "$(tpm2_readpublic -c 0x81000001 | sed -n 's/^name: //p')" = "$old" ]
	tb keycreate --srk-name "$old" -o "$D/kp.pem" >/dev/null
	tss2_pieces "$D/kp.pem" "$D/kpp"
	tpm2_load -Q -C 0x81000001 -u "$D/kpp/pub" -r "$D/kpp/priv" -c "$D/kp.ctx"
	t2_flush
}
