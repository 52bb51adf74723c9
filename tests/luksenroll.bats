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

# blob IMG ID: the tpmbox token's blob, as seal writes it
blob() {
	cryptsetup token export --token-id "$2" "$1" |
		python3 -c 'import json,sys,base64; sys.stdout.buffer.write(base64.b64decode(json.load(sys.stdin)["tpmbox-blob"]))'
}

@test "luks enroll --as tpmbox with -p and --escrow: list shows it, unlock opens, recover and the recovery code open the blob" {
	img tb.img
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
		-out "$D/esc.key" 2>/dev/null
	openssl pkey -in "$D/esc.key" -pubout -out "$D/esc.pub"
	tb luks enroll "$D/tb.img" --as tpmbox -p sha256:7 -p sha256:0,7 \
		--escrow "$D/esc.pub" --recovery-code-out "$D/code" \
		--unlock-key-file "$D/pw"
	[ "$(stat -c %a "$D/code")" = 600 ]
	run tb luks list "$D/tb.img"
	assert_success
	assert_output --partial "0: tpmbox, keyslot 1"
	assert_output --partial "(any one state: PolicyOR)"
	assert_output --partial "escrow: 0 RSA, 1 EC, 0 age, a recovery code"
	assert_output --partial "match: yes"
	tb luks list "$D/tb.img" --json | python3 -c '
import json, sys
t = json.load(sys.stdin)["tokens"][0]
assert t["type"] == "tpmbox" and t["match"] == "yes" and len(t["states"]) == 2, t'
	opens tb.img
	blob "$D/tb.img" 0 > "$D/tb.blob"
	tb recover -k "$D/esc.key" -o "$BATS_TEST_TMPDIR/r1" "$D/tb.blob"
	cmp "$BATS_TEST_TMPDIR/r1" "$BATS_TEST_TMPDIR/pass"
	tb recover --recovery-code "file:$D/code" -o "$BATS_TEST_TMPDIR/r2" "$D/tb.blob"
	cmp "$BATS_TEST_TMPDIR/r2" "$BATS_TEST_TMPDIR/pass"
	# unseal opens the same blob
	tb unseal "$D/tb.blob" > "$BATS_TEST_TMPDIR/r3"
	cmp "$BATS_TEST_TMPDIR/r3" "$BATS_TEST_TMPDIR/pass"
}

@test "luks recover: a tpmbox token's escrow copy opens with the recovery code or the key, with no TPM at all; the refusals" {
	img rc.img
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
		-out "$D/rc.key" 2>/dev/null
	openssl pkey -in "$D/rc.key" -pubout -out "$D/rc.pub"
	tb luks enroll "$D/rc.img" --as tpmbox -p sha256:16 --escrow "$D/rc.pub" \
		--recovery-code-out "$D/rc.code" --unlock-key-file "$D/pw" >/dev/null
	opens rc.img
	cp "$BATS_TEST_TMPDIR/pass" "$D/rc.pass"
	tb extend 16 -s moved >/dev/null
	run tb luks unlock "$D/rc.img"
	assert_failure 4
	# no TPM: a socket that is not there
	local none="swtpm:path=$BATS_TEST_TMPDIR/no.sock"
	code=$(grep -E '^[0-9]{6}(-[0-9]{6}){7}$' "$D/rc.code")
	echo "$code" | tr - ' ' | "$TPMBOX" -T "$none" luks recover "$D/rc.img" \
		--recovery-code file:- > "$BATS_TEST_TMPDIR/r1"
	cmp "$BATS_TEST_TMPDIR/r1" "$D/rc.pass"
	cryptsetup open --test-passphrase --key-file="$BATS_TEST_TMPDIR/r1" "$D/rc.img"
	"$TPMBOX" -T "$none" luks recover "$D/rc.img" -k "$D/rc.key" -o "$BATS_TEST_TMPDIR/r2"
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/r2")" = 600 ]
	cmp "$BATS_TEST_TMPDIR/r2" "$D/rc.pass"
	# one digit wrong: its group named, exit 2, nothing on stdout
	bad=$(echo "$code" | sed 's/^\(.\)/\1X/; s/X[0-9]/X/; s/X/'"$(( (${code:1:1} + 1) % 10 ))"'/')
	run --separate-stderr "$TPMBOX" -T "$none" luks recover "$D/rc.img" --recovery-code "str:$bad"
	assert_failure 2
	[ -z "$output" ]
	[[ "$stderr" == *"group 1"* ]]
	# another key: exit 4
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
		-out "$D/other.key" 2>/dev/null
	run --separate-stderr "$TPMBOX" -T "$none" luks recover "$D/rc.img" -k "$D/other.key"
	assert_failure 4
	[ -z "$output" ]
	# a volume with no tpmbox token, a token that is not tpmbox's, usage
	img sdr.img
	tb luks enroll "$D/sdr.img" --as systemd -p sha256:7 --unlock-key-file "$D/pw" >/dev/null
	run "$TPMBOX" -T "$none" luks recover "$D/sdr.img" -k "$D/rc.key"
	assert_failure 1
	assert_output --partial "has no tpmbox token: only tpmbox's keep escrow copies"
	run "$TPMBOX" -T "$none" luks recover "$D/sdr.img" --token-id 0 -k "$D/rc.key"
	assert_failure 1
	assert_output --partial "token 0 (systemd-tpm2) is not a tpmbox token"
	run tb luks recover "$D/rc.img"
	assert_failure 2
	run tb luks recover "$D/rc.img" -k "$D/rc.key" --recovery-code str:1
	assert_failure 2
	run tb luks unlock "$D/rc.img" -k "$D/rc.key"
	assert_failure 2
	tpm2_pcrreset 16
}

@test "luks remove: the token and its keyslot go, the others stay; the last keyslot only with --force and consent" {
	img rm.img
	tb luks enroll "$D/rm.img" --as systemd -p sha256:7 --unlock-key-file "$D/pw"
	[ "$(slots "$D/rm.img")" = "k0 k1 t0 " ]
	run tb luks remove "$D/rm.img" --token-id 0
	assert_success
	assert_output --partial "token 0 and keyslot 1 removed"
	[ "$(slots "$D/rm.img")" = "k0 " ]
	cryptsetup open --test-passphrase --key-file="$D/pw" "$D/rm.img"
	# no such token
	run tb luks remove "$D/rm.img" --token-id 0
	assert_failure 1
	assert_output --partial "has no token 0"
	# a token that is not a TPM token is left alone
	echo '{"type":"x-other","keyslots":["0"]}' | cryptsetup token import --token-id 3 "$D/rm.img"
	run tb luks remove "$D/rm.img" --token-id 3
	assert_failure 1
	assert_output --partial "not a TPM token"
	# the last keyslot: refused without --force, then without consent
	img last.img
	tb luks enroll "$D/last.img" --as systemd -p sha256:7 --unlock-key-file "$D/pw"
	cryptsetup luksKillSlot -q "$D/last.img" 0
	[ "$(slots "$D/last.img")" = "k1 t0 " ]
	run tb luks remove "$D/last.img" --token-id 0
	assert_failure 1
	assert_output --partial "the volume's last"
	run tb luks remove "$D/last.img" --token-id 0 --force < /dev/null
	assert_failure 2
	assert_output --partial "without --yes"
	[ "$(slots "$D/last.img")" = "k1 t0 " ]
	run tb luks remove "$D/last.img" --token-id 0 --force --yes
	assert_success
	[ "$(slots "$D/last.img")" = "" ]
}

@test "luks remove: a keyslot another token names too is refused, nothing removed" {
	img two.img
	tb luks enroll "$D/two.img" --as systemd -p sha256:7 --unlock-key-file "$D/pw"
	echo '{"type":"x-other","keyslots":["1"]}' | cryptsetup token import --token-id 5 "$D/two.img"
	run tb luks remove "$D/two.img" --token-id 0
	assert_failure 1
	assert_output --partial "keyslot 1 of token 0 is also token 5's"
	[ "$(slots "$D/two.img")" = "k0 k1 t0 t5 " ]
}

@test "luks enroll: a token import that fails takes the keyslot with it (a fake cryptsetup; a full JSON area)" {
	img fail.img
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	real=$(command -v cryptsetup)
	cat > "$BATS_TEST_TMPDIR/bin/cryptsetup" <<EOS
#!/bin/sh
[ "\$1 \$2" = "token import" ] && { cat >/dev/null; echo "fake: import refused" >&2; exit 1; }
exec $real "\$@"
EOS
	chmod +x "$BATS_TEST_TMPDIR/bin/cryptsetup"
	cryptsetup luksDump "$D/fail.img" > "$BATS_TEST_TMPDIR/before"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run tb luks enroll "$D/fail.img" --as systemd -p sha256:7 --unlock-key-file "$D/pw"
	assert_failure 1
	assert_output --partial "importing token 0"
	assert_output --partial "keyslot 1 removed again"
	[ "$(slots "$D/fail.img")" = "k0 " ]
	# keyslot 0 is as it was (its salt and area)
	cryptsetup luksDump "$D/fail.img" > "$BATS_TEST_TMPDIR/after"
	diff <(sed -n '/^Keyslots:/,/^Tokens:/p' "$BATS_TEST_TMPDIR/before") \
	     <(sed -n '/^Keyslots:/,/^Tokens:/p' "$BATS_TEST_TMPDIR/after")
	# a JSON area too small for the token: cryptsetup's own refusal
	img full.img
	python3 -c 'import json; print(json.dumps({"type":"x-fill","keyslots":[],"pad":"x"*11000}))' |
		cryptsetup token import --token-id 7 "$D/full.img"
	cryptsetup luksDump "$D/full.img" > "$BATS_TEST_TMPDIR/before"
	run tb luks enroll "$D/full.img" --as clevis -p sha256:7 --unlock-key-file "$D/pw"
	assert_failure 1
	assert_output --partial "keyslot 1 removed again"
	[ "$(slots "$D/full.img")" = "k0 t7 " ]
	cryptsetup luksDump "$D/full.img" > "$BATS_TEST_TMPDIR/after"
	diff <(sed -n '/^Keyslots:/,/^Digests:/p' "$BATS_TEST_TMPDIR/before") \
	     <(sed -n '/^Keyslots:/,/^Digests:/p' "$BATS_TEST_TMPDIR/after")
}

@test "luks enroll: refused before anything is written (32 tokens, bad options, a wrong passphrase): the image byte for byte as before" {
	img tok32.img
	for i in $(seq 0 31); do
		echo '{"type":"x-f","keyslots":[]}' | cryptsetup token import --token-id "$i" "$D/tok32.img"
	done
	cp "$D/tok32.img" "$BATS_TEST_TMPDIR/copy"
	run tb luks enroll "$D/tok32.img" --as systemd --unlock-key-file "$D/pw"
	assert_failure 1
	assert_output --partial "no free token id"
	cmp "$D/tok32.img" "$BATS_TEST_TMPDIR/copy"
	img neg.img
	cp "$D/neg.img" "$BATS_TEST_TMPDIR/copy"
	run tb luks enroll "$D/neg.img" --unlock-key-file "$D/pw"
	assert_failure 2
	assert_output --partial "needs --as"
	run tb luks enroll "$D/neg.img" --as luks2 --unlock-key-file "$D/pw"
	assert_failure 2
	run tb luks enroll "$D/neg.img" --as clevis --pin str:1 --unlock-key-file "$D/pw"
	assert_failure 2
	assert_output --partial "--pin is for --as systemd"
	run tb luks enroll "$D/neg.img" --as systemd --escrow "$D/pw" --unlock-key-file "$D/pw"
	assert_failure 2
	run tb luks enroll "$D/neg.img" --as systemd -p sha256:7 -p sha256:0 --unlock-key-file "$D/pw"
	assert_failure 2
	assert_output --partial "one PCR selection"
	run tb luks enroll "$D/neg.img" --as systemd -p sha256:7=00 --unlock-key-file "$D/pw"
	assert_failure 2
	run tb luks enroll "$D/neg.img" --as systemd --token-id 1 --unlock-key-file "$D/pw"
	assert_failure 2
	run tb luks remove "$D/neg.img"
	assert_failure 2
	assert_output --partial "needs --token-id"
	run tb luks remove "$D/neg.img" --token-id 0 --yes
	assert_failure 2
	printf wrong > "$BATS_TEST_TMPDIR/wrong"
	run tb luks enroll "$D/neg.img" --as systemd --unlock-key-file "$BATS_TEST_TMPDIR/wrong"
	assert_failure 4
	assert_output --partial "refused the existing passphrase"
	cmp "$D/neg.img" "$BATS_TEST_TMPDIR/copy"
	# not a LUKS2 image
	truncate -s 1M "$BATS_TEST_TMPDIR/zero"
	run tb luks enroll "$BATS_TEST_TMPDIR/zero" --as systemd --unlock-key-file "$D/pw"
	assert_failure 1
}

@test "luks reseal: after extend 7 the token moves to the new value with its escrow recipient kept; unlock opens again" {
	img rs.img
	[ -s "$D/esc.key" ] || { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$D/esc.key" 2>/dev/null; openssl pkey -in "$D/esc.key" -pubout -out "$D/esc.pub"; }
	tb luks enroll "$D/rs.img" --as tpmbox -p sha256:7 --escrow "$D/esc.pub" --unlock-key-file "$D/pw"
	opens rs.img
	cp "$BATS_TEST_TMPDIR/pass" "$BATS_TEST_TMPDIR/pass0"
	tb extend 7 -b sha256 -d "$(printf reseal | sha256sum | cut -c1-64)"
	run tb luks unlock "$D/rs.img"
	assert_failure 4
	# the old one no longer unseals: its escrow copy, with the key
	run tb luks reseal "$D/rs.img" -p sha256:7
	assert_failure
	[ "$(slots "$D/rs.img")" = "k0 k1 t0 " ]
	# a replace that fails leaves the old token as it was
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\n[ "$1 $2" = "token import" ] && exit 1\nexec %s "$@"\n' \
		"$(command -v cryptsetup)" > "$BATS_TEST_TMPDIR/bin/cryptsetup"
	chmod +x "$BATS_TEST_TMPDIR/bin/cryptsetup"
	cryptsetup token export --token-id 0 "$D/rs.img" > "$BATS_TEST_TMPDIR/tok0"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run tb luks reseal "$D/rs.img" -p sha256:7 -k "$D/esc.key"
	assert_failure 1
	cryptsetup token export --token-id 0 "$D/rs.img" | cmp - "$BATS_TEST_TMPDIR/tok0"
	run tb luks reseal "$D/rs.img" -p sha256:7 -k "$D/esc.key"
	assert_success
	assert_output --partial "token 0 resealed in place (keyslot 1)"
	[ "$(slots "$D/rs.img")" = "k0 k1 t0 " ]
	opens rs.img
	cmp "$BATS_TEST_TMPDIR/pass" "$BATS_TEST_TMPDIR/pass0"
	# the recipient kept: the new blob's copy opens with the same key
	blob "$D/rs.img" 0 > "$D/rs.blob"
	tb recover -k "$D/esc.key" -o "$BATS_TEST_TMPDIR/r" "$D/rs.blob"
	cmp "$BATS_TEST_TMPDIR/r" "$BATS_TEST_TMPDIR/pass0"
	# not a tpmbox token
	tb luks enroll "$D/rs.img" --as systemd -p sha256:7 --unlock-key-file "$D/pw"
	run tb luks reseal "$D/rs.img" --token-id 1 -p sha256:7
	assert_failure 1
	assert_output --partial "not a tpmbox token"
	run tb luks reseal "$D/rs.img"
	assert_failure 2
}

@test "luks enroll: cryptsetup killed between the keyslot and the token: the keyslot is taken away again" {
	img kill.img
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	real=$(command -v cryptsetup)
	cat > "$BATS_TEST_TMPDIR/bin/cryptsetup" <<EOS
#!/bin/sh
[ "\$1 \$2" = "token import" ] && kill -9 \$\$
exec $real "\$@"
EOS
	chmod +x "$BATS_TEST_TMPDIR/bin/cryptsetup"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run tb luks enroll "$D/kill.img" --as tpmbox -p sha256:7 --unlock-key-file "$D/pw"
	assert_failure 1
	assert_output --partial "signal 9"
	assert_output --partial "keyslot 1 removed again"
	[ "$(slots "$D/kill.img")" = "k0 " ]
	cryptsetup open --test-passphrase --key-file="$D/pw" "$D/kill.img"
}

@test "luks enroll, reseal, remove: the other refusals" {
	img ref.img
	run tb luks enroll "$D/ref.img" --as systemd --pin - --unlock-key-file "$D/pw"
	assert_failure 2
	run tb luks enroll "$D/ref.img" --as systemd --recovery-code-out "$BATS_TEST_TMPDIR/c" --unlock-key-file "$D/pw"
	assert_failure 2
	assert_output --partial "for --as tpmbox"
	run tb luks enroll "$D/ref.img" --as tpmbox -k "$D/pw" --unlock-key-file "$D/pw"
	assert_failure 2
	assert_output --partial "-k is for luks reseal"
	run tb luks remove "$D/ref.img" --token-id 0 -p sha256:7
	assert_failure 2
	run tb luks reseal "$D/ref.img" --as tpmbox -p sha256:7
	assert_failure 2
	run tb luks reseal "$D/ref.img" -p sha256:7
	assert_failure 1
	assert_output --partial "has no tpmbox token"
	run tb luks enroll "$D/ref.img" --as tpmbox -p sha256:7 --unlock-key-file "$D/pw"
	assert_success
	run tb luks enroll "$D/ref.img" --as tpmbox -p sha256:7 --unlock-key-file "$D/pw"
	assert_success
	run tb luks reseal "$D/ref.img" -p sha256:7
	assert_failure 2
	assert_output --partial "several tpmbox tokens"
	run tb luks reseal "$D/ref.img" -p sha256:7 --token-id 1
	assert_success
	assert_output --partial "token 1 resealed in place (keyslot 2)"
	# an empty existing passphrase on stdin: refused before the TPM
	img ref2.img
	cp "$D/ref2.img" "$BATS_TEST_TMPDIR/copy"
	run tb luks enroll "$D/ref2.img" --as clevis < /dev/null
	assert_failure 2
	assert_output --partial "existing passphrase is empty"
	cmp "$D/ref2.img" "$BATS_TEST_TMPDIR/copy"
}
