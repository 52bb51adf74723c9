#!/usr/bin/env bats
# luks enroll and luks remove: a keyslot with a new random passphrase and
# a token naming it, in systemd's, clevis' and tpmbox's forms, on LUKS2
# images (swtpm).  The oracles: cryptsetup open --test-passphrase for
# every passphrase, cryptsetup token export/luksDump for the header,
# clevis luks pass for the clevis form.  systemd's own token plugin reads
# only /dev/tpmrmN: its test of the systemd form is make vmtest's.

load helpers/common
load helpers/luks
bats_require_minimum_version 1.5.0

setup_file() {
	local tool
	if ! "$TPMBOX" --list | grep -q '^luks '; then
		export LUKS_ABSENT=1
		return 0
	fi
	for tool in cryptsetup clevis; do
		command -v "$tool" >/dev/null ||
			{ echo "$tool is not installed (make check installs it)"; return 1; }
	done
	swtpm_start
	D=$BATS_FILE_TMPDIR/le
	export D
	mkdir -p "$D"
	printf pw > "$D/pw"
	mkimg "$D/base.img"
}

teardown() { [ -n "${LUKS_ABSENT:-}" ] || t2_flush; }

# img NAME: a fresh copy of the base image (passphrase "pw" in keyslot 0)
img() { cp "$D/base.img" "$D/$1"; }

# opens IMG [ARGS]: luks unlock's passphrase, which cryptsetup accepts
opens() {
	local img=$1
	shift
	tb luks unlock "$D/$img" "$@" > "$BATS_TEST_TMPDIR/pass"
	[ -s "$BATS_TEST_TMPDIR/pass" ]
	cryptsetup open --test-passphrase --key-file="$BATS_TEST_TMPDIR/pass" \
		"$D/$img"
}

# slots IMG: the keyslot and token ids, as luksDump names them
slots() {
	cryptsetup luksDump "$1" | awk '/^Keyslots:/{s=1;t=0;next} /^Tokens:/{t=1;s=0;next}
		/^[A-Z]/{s=0;t=0} (s||t) && /^  [0-9]+: /{print (s?"k":"t") $1}' | tr -d ':' | tr '\n' ' '
}

@test "luks enroll --as systemd: PCR 7; the token is systemd's form; unlock opens; after extend 7 exit 4" {
	img sd.img
	run tb luks enroll "$D/sd.img" --as systemd -p sha256:7 --unlock-key-file "$D/pw"
	assert_success
	assert_output --partial "keyslot 1, token 0 (systemd-tpm2)"
	cryptsetup token export --token-id 0 "$D/sd.img" > "$BATS_TEST_TMPDIR/tok"
	python3 - "$BATS_TEST_TMPDIR/tok" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
assert t["type"] == "systemd-tpm2" and t["keyslots"] == ["1"], t
assert t["tpm2-pcrs"] == [7] and t["tpm2-pcr-bank"] == "sha256"
assert t["tpm2-primary-alg"] == "ecc" and t["tpm2-pin"] is False
assert len(t["tpm2-policy-hash"]) == 64
PY
	cryptsetup luksDump "$D/sd.img" | grep -q 'systemd-tpm2'
	opens sd.img
	# the passphrase opens keyslot 1 only
	cryptsetup open --test-passphrase --key-slot 1 --key-file="$BATS_TEST_TMPDIR/pass" "$D/sd.img"
	not cryptsetup open --test-passphrase --key-slot 0 --key-file="$BATS_TEST_TMPDIR/pass" "$D/sd.img"
	tb extend 7 -b sha256 -d "$(printf enroll | sha256sum | cut -c1-64)"
	run tb luks unlock "$D/sd.img"
	assert_failure 4
	[ -z "$output" ] || [[ "$output" != *"$(cat "$BATS_TEST_TMPDIR/pass")"* ]]
}

@test "luks enroll --as systemd: PCR 0+7 with --pin (stdin holds the old passphrase), no PCRs" {
	img sdpin.img
	printf 1234 > "$BATS_TEST_TMPDIR/pin"
	tb luks enroll "$D/sdpin.img" --as systemd -p sha256:0,7 \
		--pin "file:$BATS_TEST_TMPDIR/pin" < "$D/pw"
	cryptsetup token export --token-id 0 "$D/sdpin.img" | grep -q '"tpm2-pin":true'
	opens sdpin.img --pin str:1234
	run tb luks unlock "$D/sdpin.img" --pin str:4321
	assert_failure 4
	tb dalock --reset >/dev/null 2>&1 || true
	img sdnone.img
	tb luks enroll "$D/sdnone.img" --as systemd -p none --unlock-key-file "$D/pw"
	cryptsetup token export --token-id 0 "$D/sdnone.img" | grep -q '"tpm2-pcrs":\[\]'
	opens sdnone.img
}

@test "luks enroll --as clevis: clevis luks pass prints luks unlock's passphrase, which cryptsetup accepts" {
	img cl.img
	tb luks enroll "$D/cl.img" --as clevis -p sha256:0,7 --unlock-key-file "$D/pw"
	opens cl.img
	t2_flush
	TPM2TOOLS_TCTI="swtpm:path=$SWTPM_DIR/sock" clevis luks pass -d "$D/cl.img" -s 1 > "$BATS_TEST_TMPDIR/clpass"
	cmp "$BATS_TEST_TMPDIR/clpass" "$BATS_TEST_TMPDIR/pass"
	# no PCRs: clevis reads that form too
	t2_flush
	img cl0.img
	tb luks enroll "$D/cl0.img" --as clevis -p none --unlock-key-file "$D/pw"
	opens cl0.img
	t2_flush
	TPM2TOOLS_TCTI="swtpm:path=$SWTPM_DIR/sock" clevis luks pass -d "$D/cl0.img" -s 1 > "$BATS_TEST_TMPDIR/clpass"
	cmp "$BATS_TEST_TMPDIR/clpass" "$BATS_TEST_TMPDIR/pass"
}
