#!/usr/bin/env bats
# luks list against what no one here wrote: systemd-cryptenroll 252 and
# clevis 19 enroll on LUKS2 images (swtpm), cryptsetup's own luksDump and
# token export are the oracles for every field; token forms systemd 252
# cannot make are built from the documented layout (helpers/luks2img.py)
# and imported with cryptsetup.

load helpers/common
load helpers/luks

IMGPY=$BATS_TEST_DIRNAME/helpers/luks2img.py

setup_file() {
	luks_setup luks || return 1
	[ -z "${LUKS_ABSENT:-}" ] || return 0
	# a signed policy (the key's fingerprint, its PCRs)
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 \
		-out "$D/sign.key" 2>/dev/null
	openssl pkey -in "$D/sign.key" -pubout -out "$D/sign.pub"
	sd_enroll sdsig.img --tpm2-pcrs=7 --tpm2-public-key="$D/sign.pub" \
		--tpm2-public-key-pcrs=11 || return 1
	# a second clevis token on cl.img: sss t=1 over two tpm2 pins
	clevis luks bind -y -d "$D/cl.img" -k "$D/pw" sss \
		'{"t":1,"pins":{"tpm2":[{"pcr_ids":"7"},{"pcr_ids":"0,7"}]}}' \
		>/dev/null 2>&1 || return 1
	t2_flush
}

# token N's JSON as cryptsetup exports it (the oracle)
tok() { cryptsetup token export --token-id "$2" "$D/$1"; }
list_json() { tb luks list "$D/$1" --json; }
jtok() { list_json "$1" | jq -c ".tokens[] | select(.id == $2)"; }

@test "luks list: a fresh image: keyslots as luksDump says, no tokens" {
	run tb luks list "$D/base.img"
	assert_success
	assert_output --partial "header: primary copy"
	assert_output --partial "tokens: none"
	[ "$(list_json base.img | jq -c '[.keyslots[].id]')" = \
	  "$(cryptsetup luksDump --dump-json-metadata "$D/base.img" |
		jq -c '[.keyslots | keys[] | tonumber]')" ]
	[ "$(list_json base.img | jq -r .uuid)" = "$(cryptsetup luksUUID "$D/base.img")" ]
}

@test "luks list: systemd-cryptenroll PCR 7: every field as cryptsetup token export says, match yes" {
	need sd7.img
	local o t
	o=$(tok sd7.img 0)
	t=$(jtok sd7.img 0)
	[ "$(echo "$t" | jq -r .type)" = systemd-tpm2 ]
	[ "$(echo "$t" | jq -c '[.keyslots[] | tostring]')" = "$(echo "$o" | jq -c .keyslots)" ]
	[ "$(echo "$t" | jq -c .pcrs)" = "$(echo "$o" | jq -c '."tpm2-pcrs"')" ]
	[ "$(echo "$t" | jq -r .pcr_bank)" = "$(echo "$o" | jq -r '."tpm2-pcr-bank"')" ]
	[ "$(echo "$t" | jq -r .primary.alg)" = "$(echo "$o" | jq -r '."tpm2-primary-alg"')" ]
	[ "$(echo "$t" | jq -r .pin)" = "$(echo "$o" | jq -r '."tpm2-pin"')" ]
	[ "$(echo "$t" | jq -r .match)" = yes ]
	# the keyslots as luksDump names them
	[ "$(list_json sd7.img | jq -c '[.keyslots[].id]')" = \
	  "$(cryptsetup luksDump --dump-json-metadata "$D/sd7.img" |
		jq -c '[.keyslots | keys[] | tonumber]')" ]
	run tb luks list "$D/sd7.img"
	assert_success
	assert_output --partial "0: systemd-tpm2, keyslot 1"
	assert_output --partial "pcrs: sha256:7"
	assert_output --partial "match: yes"
}

@test "luks list: systemd-cryptenroll PCR 0+7 with a PIN: pin yes, PolicyAuthValue in the digest, match yes" {
	need sdpin.img
	local o t
	o=$(tok sdpin.img 0)
	t=$(jtok sdpin.img 0)
	[ "$(echo "$o" | jq -r '."tpm2-pin"')" = true ]
	[ "$(echo "$t" | jq -r .pin)" = true ]
	[ "$(echo "$t" | jq -c .pcrs)" = "$(echo "$o" | jq -c '."tpm2-pcrs"')" ]
	[ "$(echo "$t" | jq -r .match)" = yes ]
}

@test "luks list: systemd-cryptenroll without PCRs: no PCRs, match yes" {
	need sdnone.img
	local o t
	o=$(tok sdnone.img 0)
	t=$(jtok sdnone.img 0)
	[ "$(echo "$o" | jq -c '."tpm2-pcrs"')" = "[]" ]
	[ "$(echo "$t" | jq -c .pcrs)" = "[]" ]
	[ "$(echo "$t" | jq -r .match)" = yes ]
	run tb luks list "$D/sdnone.img"
	assert_output --partial "pcrs: none"
}

@test "luks list: a signed policy: the key's fingerprint (openssl), its PCRs, not checked here" {
	need sdsig.img
	local o t fp
	o=$(tok sdsig.img 0)
	t=$(jtok sdsig.img 0)
	# systemd's pkfp: SHA-256 of the PKCS#1 RSAPublicKey (openssl)
	fp=$(openssl rsa -pubin -in "$D/sign.pub" -RSAPublicKey_out -outform DER 2>/dev/null |
		sha256sum | cut -d' ' -f1)
	[ "$(echo "$t" | jq -r .signed_policy.fingerprint)" = "$fp" ]
	[ "$(echo "$t" | jq -c .signed_policy.pcrs)" = "$(echo "$o" | jq -c .tpm2_pubkey_pcrs)" ]
	[ "$(echo "$t" | jq -r .match)" = unchecked ]
	run tb luks list "$D/sdsig.img"
	assert_output --partial "signed policy: not checked here"
}

# the clevis protected header of token N, decoded by basenc and jq
clevis_hdr() {
	local p
	tok cl.img "$1" | jq -r .jwe.protected | python3 -c 'import base64, sys
s = sys.stdin.read().strip()
print(base64.urlsafe_b64decode(s + "=" * (-len(s) % 4)).decode())'
}

@test "luks list: clevis tpm2 pin: PCRs and bank as its protected header says, match yes" {
	need cl.img
	local h t
	h=$(clevis_hdr 0)
	t=$(jtok cl.img 0)
	[ "$(echo "$t" | jq -r .type)" = clevis ]
	[ "$(echo "$t" | jq -c '[.keyslots[] | tostring]')" = "$(tok cl.img 0 | jq -c .keyslots)" ]
	[ "$(echo "$t" | jq -r '.pins[0].pin')" = tpm2 ]
	[ "$(echo "$t" | jq -r '.pins[0].pcr_bank')" = "$(echo "$h" | jq -r .clevis.tpm2.pcr_bank)" ]
	[ "$(echo "$t" | jq -r '.pins[0].pcrs | map(tostring) | join(",")')" = \
	  "$(echo "$h" | jq -r .clevis.tpm2.pcr_ids)" ]
	[ "$(echo "$t" | jq -r '.pins[0].match')" = yes ]
}

@test "luks list: clevis sss t=1 over two tpm2 pins: threshold, both pins, match yes" {
	need cl.img
	local h t
	h=$(clevis_hdr 1)
	t=$(jtok cl.img 1)
	[ "$(echo "$t" | jq -r '.pins[0].pin')" = sss ]
	[ "$(echo "$t" | jq -r '.pins[0].t')" = "$(echo "$h" | jq -r .clevis.sss.t)" ]
	[ "$(echo "$t" | jq -r '.pins[0].shares')" = "$(echo "$h" | jq -r '.clevis.sss.jwe | length')" ]
	[ "$(echo "$t" | jq -c '[.pins[1:][] | .pin]')" = '["tpm2","tpm2"]' ]
	[ "$(echo "$t" | jq -c '[.pins[1:][] | .parent]')" = '[0,0]' ]
	[ "$(echo "$t" | jq -c '[.pins[1:][] | .match]')" = '["yes","yes"]' ]
	run tb luks list "$D/cl.img"
	assert_output --partial "pin: sss (threshold 1 of 2)"
}

# ---- forms systemd 252 cannot make, built from the documented layout ----

sd_fixture() {	# NAME JQ-FILTER [ARGS...]: sd7's token changed, imported
	local name=$1 filter=$2
	shift 2
	need sd7.img
	cp "$D/base.img" "$D/$name.img"
	tok sd7.img 0 | jq -c "$@" "$filter | .keyslots = [\"0\"]" > "$D/$name.json"
	cryptsetup token import --disable-external-tokens --token-id 0 \
		--json-file "$D/$name.json" "$D/$name.img"
}

@test "luks list: systemd 253+ salted PIN, 254+ tpm2_srk (helper-built, cryptsetup-imported)" {
	local salt srk
	salt=$(head -c 32 /dev/urandom | base64 -w0)
	srk=$(python3 "$IMGPY" srk 0x81000001)
	sd_fixture srk '.["tpm2-pin"] = true | .tpm2_salt = $s | .tpm2_srk = $k' \
		--arg s "$salt" --arg k "$srk"
	# the name the helper serialized: 000b || SHA-256(TPMT_PUBLIC)
	local name
	name=$(printf '%s' "$srk" | base64 -d | xxd -p -c 1000 | cut -c 13-80)
	run tb luks list "$D/srk.img" --json
	assert_success
	[ "$(echo "$output" | jq -r '.tokens[0].salt')" = true ]
	[ "$(echo "$output" | jq -r '.tokens[0].pin')" = true ]
	[ "$(echo "$output" | jq -r '.tokens[0].primary.kind')" = srk ]
	[ "$(echo "$output" | jq -r '.tokens[0].primary.handle')" = 0x81000001 ]
	[ "$(echo "$output" | jq -r '.tokens[0].primary.name')" = "$name" ]
	run tb luks list "$D/srk.img"
	assert_output --partial "primary: persistent SRK 0x81000001, name $name"
	assert_output --partial "pin: yes (salted)"
}

@test "luks list: systemd 257+ array-valued tpm2-blob and tpm2-policy-hash" {
	sd_fixture arr '.["tpm2-blob"] = [."tpm2-blob", ."tpm2-blob"] |
		.["tpm2-policy-hash"] = [."tpm2-policy-hash", ."tpm2-policy-hash"]'
	run tb luks list "$D/arr.img" --json
	assert_success
	[ "$(echo "$output" | jq -r '.tokens[0].blob_parts')" = 2 ]
	[ "$(echo "$output" | jq -r '.tokens[0].match')" = yes ]
	# one part and two digests: refused
	sd_fixture arr2 '.["tpm2-policy-hash"] = [."tpm2-policy-hash", ."tpm2-policy-hash"]'
	run tb luks list "$D/arr2.img"
	assert_failure 1
	assert_output --partial "tpm2-policy-hash does not have one digest per tpm2-blob part"
}

@test "luks list: systemd 255+ pcrlock: the NV index, not checked here" {
	local nv
	nv=$(python3 "$IMGPY" nvpub 0x01c22000)
	sd_fixture pcrlock '.tpm2_pcrlock = true | .tpm2_pcrlock_nv = $n' --arg n "$nv"
	run tb luks list "$D/pcrlock.img" --json
	assert_success
	[ "$(echo "$output" | jq -r '.tokens[0].pcrlock.nv_index')" = 0x01c22000 ]
	[ "$(echo "$output" | jq -r '.tokens[0].match')" = unchecked ]
	run tb luks list "$D/pcrlock.img"
	assert_output --partial "pcrlock: yes (NV index 0x01c22000)"
}

# ---- bad input: one sentence, exit 1, nothing sent to the TPM ----

bad() {	# IMG SENTENCE: exit 1 with it, no TPM command traced
	run tb --trace luks list "$1"
	assert_failure 1
	assert_output --partial "$2"
	refute_output --partial "bytes)"
	[ "$(echo "$output" | grep -c '^tpmbox luks:')" = 1 ]
}

@test "luks list: bad magic, wrong version, no file" {
	head -c 65536 /dev/zero > "$D/zero.img"
	bad "$D/zero.img" "not a LUKS2 header (no LUKS magic)"
	cp "$D/base.img" "$D/ver.img"
	python3 "$IMGPY" poke "$D/ver.img" 0 6 0003
	python3 "$IMGPY" poke "$D/ver.img" 1 6 0003
	bad "$D/ver.img" "the primary copy is LUKS version 3, not 2, the secondary is LUKS version 3, not 2"
	run tb luks list "$D/nonexistent"
	assert_failure 6
}

@test "luks list and unlock: a LUKS1 volume is named as such, one sentence, exit 1, nothing printed" {
	truncate -s 16M "$D/l1.img"
	cryptsetup luksFormat -q --type luks1 --pbkdf-force-iterations 1000 "$D/l1.img" "$D/pw"
	bad "$D/l1.img" "is a LUKS1 volume: tpmbox reads LUKS2 headers and their tokens only"
	run tb --trace luks unlock "$D/l1.img"
	assert_failure 1
	assert_output --partial "is a LUKS1 volume"
	refute_output --partial "bytes)"
	tb luks unlock "$D/l1.img" > "$BATS_TEST_TMPDIR/out" 2>/dev/null || true
	[ ! -s "$BATS_TEST_TMPDIR/out" ]
}

@test "luks list: primary magic or checksum broken: the secondary is used and named; both broken: exit 1" {
	cp "$D/base.img" "$D/m1.img"
	python3 "$IMGPY" poke "$D/m1.img" 0 0 00
	run tb luks list "$D/m1.img"
	assert_success
	assert_output --partial "header: secondary copy at 16384"
	assert_output --partial "the primary copy has no LUKS magic"
	cp "$D/base.img" "$D/c1.img"
	python3 "$IMGPY" poke "$D/c1.img" 0 4000 ff
	run tb luks list "$D/c1.img"
	assert_success
	assert_output --partial "header: secondary copy at 16384"
	assert_output --partial "the primary copy fails its checksum"
	# the secondary alone broken: the primary, which says so
	cp "$D/base.img" "$D/c2.img"
	python3 "$IMGPY" poke "$D/c2.img" 1 4000 ff
	run tb luks list "$D/c2.img"
	assert_success
	assert_output --partial "header: primary copy (seqid"
	assert_output --partial "the secondary copy fails its checksum"
	python3 "$IMGPY" poke "$D/c1.img" 1 4000 ff
	bad "$D/c1.img" "the primary copy fails its checksum, the secondary fails its checksum"
}

@test "luks list: absurd sizes: hdr_size, config.json_size, keyslot areas" {
	cp "$D/base.img" "$D/hs.img"
	# the secondary first: the helper finds it at the primary's size
	python3 "$IMGPY" poke "$D/hs.img" 1 8 0000000000003039
	python3 "$IMGPY" poke "$D/hs.img" 0 8 0000000000003039
	bad "$D/hs.img" "has a header size of 12345 bytes"
	cryptsetup luksDump --dump-json-metadata "$D/base.img" > "$D/meta.json"
	jq -c '.config.json_size = "999999999"' "$D/meta.json" > "$D/m.json"
	cp "$D/base.img" "$D/js.img"
	python3 "$IMGPY" json "$D/js.img" "$D/m.json"
	bad "$D/js.img" "config.json_size (999999999) is not the JSON area's size (12288)"
	jq -c '.keyslots["0"].area.offset = "4096"' "$D/meta.json" > "$D/m.json"
	cp "$D/base.img" "$D/ka.img"
	python3 "$IMGPY" json "$D/ka.img" "$D/m.json"
	bad "$D/ka.img" "keyslot 0: its area"
}

meta_with_token() {	# IMG TOKEN-JSON: base's metadata with token 0 = it
	cryptsetup luksDump --dump-json-metadata "$D/base.img" |
		jq -c --argjson t "$2" '.tokens["0"] = $t' > "$D/m.json"
	cp "$D/base.img" "$1"
	python3 "$IMGPY" json "$1" "$D/m.json"
}

@test "luks list: wrong types, deep nesting, huge values: one sentence each, exit 1" {
	need sd7.img
	local t
	t=$(tok sd7.img 0 | jq -c '.keyslots = ["0"]')
	meta_with_token "$D/wt.img" "$(echo "$t" | jq -c '.["tpm2-pcrs"] = "7"')"
	bad "$D/wt.img" "tpm2-pcrs is not an array"
	meta_with_token "$D/wt.img" "$(echo "$t" | jq -c '.["tpm2-pin"] = "no"')"
	bad "$D/wt.img" "tpm2-pin is not true or false"
	meta_with_token "$D/wt.img" "$(echo "$t" | jq -c '.["tpm2-pcrs"] = [7, 99]')"
	bad "$D/wt.img" "tpm2-pcrs holds something that is not a PCR index 0 to 23"
	meta_with_token "$D/wt.img" "$(echo "$t" | jq -c '.["tpm2-pcr-bank"] = 5')"
	bad "$D/wt.img" "tpm2-pcr-bank is not a PCR bank's name"
	# nested deeper than the reader's 16 levels
	meta_with_token "$D/deep.img" "$(echo "$t" | jq -c ".x = $(printf '[%.0s' $(seq 20))1$(printf ']%.0s' $(seq 20))")"
	bad "$D/deep.img" "nested deeper than this format allows"
	# a string past the reader's 256 KiB: in a header with a 512 KiB
	# metadata area (cryptsetup's --luks2-metadata-size)
	truncate -s 32M "$D/big.img"
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 \
		--pbkdf-force-iterations 1000 --luks2-metadata-size 512k \
		"$D/big.img" "$D/pw"
	cryptsetup luksDump --dump-json-metadata "$D/big.img" |
		jq -c --rawfile s <(head -c 300000 /dev/zero | tr '\0' A) \
		'.tokens["0"] = {"type":"x","keyslots":[],"x":$s}' > "$D/m.json"
	python3 "$IMGPY" json "$D/big.img" "$D/m.json"
	bad "$D/big.img" "a string is longer than this format allows"
}

@test "luks list: bad base64, truncated TPM2B, a token naming a missing keyslot" {
	need sd7.img
	local t
	t=$(tok sd7.img 0 | jq -c '.keyslots = ["0"]')
	meta_with_token "$D/b64.img" "$(echo "$t" | jq -c '.["tpm2-blob"] = "AB!C"')"
	bad "$D/b64.img" "tpm2-blob is not valid base64"
	# the blob cut to its first 60 bytes: the TPM2B_PRIVATE runs past it
	local cut
	cut=$(echo "$t" | jq -r '."tpm2-blob"' | base64 -d | head -c 60 | base64 -w0)
	meta_with_token "$D/tr.img" "$(echo "$t" | jq -c --arg b "$cut" '.["tpm2-blob"] = $b')"
	bad "$D/tr.img" "tpm2-blob holds a truncated or empty TPM2B_PRIVATE"
	meta_with_token "$D/ks.img" "$(echo "$t" | jq -c '.keyslots = ["5"]')"
	bad "$D/ks.img" "token 0 names keyslot 5, which does not exist"
	meta_with_token "$D/cl.bad.img" '{"type":"clevis","keyslots":["0"],"jwe":{"protected":"e30","iv":"!","ciphertext":"","tag":""}}'
	bad "$D/cl.bad.img" "iv is not valid base64url"
}

@test "luks list: no TPM reachable: listed anyway, match unknown, exit 0" {
	need sd7.img
	run tb -T swtpm:path="$D/no-such-sock" luks list "$D/sd7.img"
	assert_success
	assert_output --partial "match: unknown"
	assert_output --partial "note: PCRs not compared"
}

@test "luks list: after extend 7 the PCR 7 tokens say no, the PCR-less one still yes" {
	need sd7.img
	tb extend 7 -s luks-test
	[ "$(jtok sd7.img 0 | jq -r .match)" = no ]
	if [ -s "$D/sdpin.img" ]; then
		[ "$(jtok sdpin.img 0 | jq -r .match)" = no ]
	fi
	if [ -s "$D/sdnone.img" ]; then
		[ "$(jtok sdnone.img 0 | jq -r .match)" = yes ]
	fi
	if [ -s "$D/cl.img" ]; then
		[ "$(jtok cl.img 0 | jq -r '.pins[0].match')" = no ]
		[ "$(jtok cl.img 1 | jq -c '[.pins[1:][] | .match]')" = '["no","no"]' ]
	fi
	run tb luks list "$D/sd7.img"
	assert_output --partial "match: no"
}

@test "luks: usage errors exit 2" {
	run tb luks
	assert_failure 2
	run tb luks frob x
	assert_failure 2
	run tb luks list
	assert_failure 2
}
