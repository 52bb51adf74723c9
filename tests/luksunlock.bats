#!/usr/bin/env bats
# luks unlock against what no one here wrote: systemd-cryptenroll 252 and
# clevis 19 enroll on LUKS2 images (swtpm); cryptsetup open
# --test-passphrase is the oracle for every passphrase; token forms 252
# cannot make (253+ salted PIN, 254+ tpm2_srk, 257+ arrays) are sealed
# for real with tpm2-tools from the documented layout and imported with
# cryptsetup; clevis encrypt/decrypt for plain JWEs.

load helpers/common
load helpers/luks
bats_require_minimum_version 1.5.0

setup_file() {
	luks_setup lu || return 1
	[ -z "${LUKS_ABSENT:-}" ] || return 0
	# plain JWEs, as clevis encrypt writes them
	printf 'plain secret' > "$D/secret"
	clevis encrypt tpm2 '{}' < "$D/secret" > "$D/tpm2.jwe" || return 1
	t2_flush
	clevis encrypt sss '{"t":1,"pins":{"tpm2":[{"pcr_ids":"7"},{}]}}' \
		< "$D/secret" > "$D/sss1.jwe" || return 1
	t2_flush
	clevis encrypt sss '{"t":2,"pins":{"tpm2":[{"pcr_ids":"7"},{}]}}' \
		< "$D/secret" > "$D/sss2.jwe" || return 1
	t2_flush
}

# unlock IMG [ARGS]: the passphrase cryptsetup accepts
opens() {
	local img=$1
	shift
	tb luks unlock "$D/$img" "$@" > "$BATS_TEST_TMPDIR/pass"
	[ -s "$BATS_TEST_TMPDIR/pass" ]
	# no newline: cryptsetup reads the key file as is
	[ "$(tail -c 1 "$BATS_TEST_TMPDIR/pass" | od -An -c | tr -d ' ')" != '\n' ]
	cryptsetup open --test-passphrase --key-file="$BATS_TEST_TMPDIR/pass" \
		"$D/$img"
}

@test "luks unlock: systemd-cryptenroll PCR 7: cryptsetup accepts the passphrase" {
	need sd7.img
	opens sd7.img
	# the control: a wrong passphrase is refused by the oracle
	printf 'AAAA' > "$BATS_TEST_TMPDIR/bad"
	run cryptsetup open --test-passphrase --key-file="$BATS_TEST_TMPDIR/bad" "$D/sd7.img"
	assert_failure
}

@test "luks unlock: systemd-cryptenroll PCR 0+7 with a PIN (--pin), no PCRs, -o FILE mode 0600" {
	need sdpin.img
	opens sdpin.img --pin str:1234
	opens sdnone.img
	tb luks unlock "$D/sdnone.img" -o "$BATS_TEST_TMPDIR/p"
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/p")" = 600 ]
	cryptsetup open --test-passphrase --key-file="$BATS_TEST_TMPDIR/p" "$D/sdnone.img"
	run tb luks unlock "$D/sdnone.img" -o "$BATS_TEST_TMPDIR/p"
	assert_failure 2
	# the PIN from a file, as AUTH says
	printf 1234 > "$BATS_TEST_TMPDIR/pin"
	opens sdpin.img --pin "file:$BATS_TEST_TMPDIR/pin"
}

da_count() { tb info | sed -n 's/^dictionary attack: \([0-9]*\) failures.*/\1/p'; }

@test "luks unlock: a wrong PIN is exit 4, nothing on stdout, and the DA counter moves" {
	need sdpin.img
	local before after
	before=$(da_count)
	run --separate-stderr tb luks unlock "$D/sdpin.img" --pin str:9999
	assert_failure 4
	[ -z "$output" ]
	[[ "$stderr" == *"the PIN is wrong (the PCRs match)"* ]]
	after=$(da_count)
	[ "$after" -eq $((before + 1)) ]
	# the TPM's own count (tpm2-tools) agrees
	tpm2_getcap properties-variable | grep -q "TPM2_PT_LOCKOUT_COUNTER: 0x$after"
	tb dalock --reset >/dev/null
	[ "$(da_count)" = 0 ]
}

@test "luks unlock: systemd signed policy (systemd-measure sign): --signature opens it, without it exit 2" {
	need sd7.img
	local M=/usr/lib/systemd/systemd-measure
	[ -x "$M" ] || { echo "no $M (make check installs systemd)"; false; }
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 \
		-out "$D/sign.key" 2>/dev/null
	openssl pkey -in "$D/sign.key" -pubout -out "$D/sign.pub"
	printf kernel > "$D/linux"
	$M sign --tpm2-device=swtpm:path=$SWTPM_DIR/sock --linux="$D/linux" \
		--bank=sha256 --private-key="$D/sign.key" \
		--public-key="$D/sign.pub" > "$D/sig.json"
	t2_flush
	cp "$D/base.img" "$D/sdsig.img"
	PASSWORD=pw systemd-cryptenroll --tpm2-device=swtpm:path=$SWTPM_DIR/sock \
		--tpm2-pcrs= --tpm2-public-key="$D/sign.pub" \
		--tpm2-public-key-pcrs=11 "$D/sdsig.img" >/dev/null 2>&1
	t2_flush
	# PCR 11 as a UKI leaves it at "enter-initrd" (what was signed)
	local want
	want=$($M calculate --linux="$D/linux" --bank=sha256 2>/dev/null | grep -m1 '^11:sha256=' | cut -d= -f2)
	tb extend 11 -b sha256 -d "$(printf '.linux\0' | sha256sum | cut -c1-64)"
	tb extend 11 -b sha256 -d "$(printf kernel | sha256sum | cut -c1-64)"
	tb extend 11 -b sha256 -d "$(printf enter-initrd | sha256sum | cut -c1-64)"
	[ "$(tb pcrread sha256:11 | cut -d' ' -f2)" = "$want" ]
	opens sdsig.img --signature "$D/sig.json"
	# none given and none where systemd keeps it: exit 2, saying where
	export TPMBOX_SIGNATURE_ROOT=$D/root
	mkdir -p "$D/root/run/systemd" "$D/root/.extra" "$D/root/etc/systemd"
	run tb luks unlock "$D/sdsig.img"
	assert_failure 2
	assert_output --partial "no tpm2-pcr-signature.json is where systemd keeps it: give --signature SIG.json"
	# where systemd-stub unpacks a UKI's .pcrsig in the initrd, and
	# /run/systemd/ (systemd's places, in its order: /etc first)
	cp "$D/sig.json" "$D/root/.extra/tpm2-pcr-signature.json"
	opens sdsig.img
	cp "$D/sig.json" "$D/root/run/systemd/tpm2-pcr-signature.json"
	echo '{"sha256":[]}' > "$D/root/.extra/tpm2-pcr-signature.json"
	opens sdsig.img
	echo '{"sha256":[]}' > "$D/root/etc/systemd/tpm2-pcr-signature.json"
	run tb luks unlock "$D/sdsig.img"
	assert_failure 4
	assert_output --partial "$D/root/etc/systemd/tpm2-pcr-signature.json"
	unset TPMBOX_SIGNATURE_ROOT
	# a signature by another key: exit 4, no policy by that key
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 \
		-out "$D/other.key" 2>/dev/null
	openssl pkey -in "$D/other.key" -pubout -out "$D/other.pub"
	$M sign --tpm2-device=swtpm:path=$SWTPM_DIR/sock --linux="$D/linux" \
		--bank=sha256 --private-key="$D/other.key" \
		--public-key="$D/other.pub" > "$D/other.json" 2>/dev/null
	run tb luks unlock "$D/sdsig.img" --signature "$D/other.json"
	assert_failure 4
	assert_output --partial "no signed policy in $D/other.json is by the key it was sealed to"
	# the next phase was signed too (systemd-measure signs each)
	tb extend 11 -b sha256 -s leave-initrd
	opens sdsig.img --signature "$D/sig.json"
	# PCR 11 moved off every signed state: exit 4
	tb extend 11 -b sha256 -s not-a-phase
	run tb luks unlock "$D/sdsig.img" --signature "$D/sig.json"
	assert_failure 4
	assert_output --partial "match none of the 4 signed policies"
}

# ---- clevis ----

@test "luks unlock: clevis luks bind tpm2 PCR 7: cryptsetup accepts the passphrase" {
	need cl.img
	opens cl.img
	# clevis' own answer is the same passphrase
	t2_flush
	[ "$(clevis luks pass -d "$D/cl.img" -s 1)" = "$(cat "$BATS_TEST_TMPDIR/pass")" ]
}

@test "luks unlock --jwe: clevis encrypt tpm2, sss t=1 and t=2 over two tpm2 pins give the plaintext" {
	need tpm2.jwe
	run tb luks unlock --jwe "$D/tpm2.jwe"
	assert_success
	[ "$output" = "plain secret" ]
	run tb luks unlock --jwe "$D/sss1.jwe"
	assert_success
	[ "$output" = "plain secret" ]
	run tb luks unlock --jwe "$D/sss2.jwe"
	assert_success
	[ "$output" = "plain secret" ]
}

@test "luks unlock --jwe: bad alg, bad enc, a bad tag: one sentence, exit 1, nothing to the TPM" {
	need tpm2.jwe
	local h rest
	h=$(cut -d. -f1 < "$D/tpm2.jwe")
	rest=$(cut -d. -f2- < "$D/tpm2.jwe")
	hdr() { printf '%s' "$h" | tr '_-' '/+' | base64 -d 2>/dev/null; }
	b64u() { base64 -w0 | tr '/+' '_-' | tr -d '='; }
	hdr | jq -c '.alg = "A128KW"' | b64u > "$BATS_TEST_TMPDIR/h"
	printf '%s.%s' "$(cat "$BATS_TEST_TMPDIR/h")" "$rest" > "$D/badalg.jwe"
	run tb --trace luks unlock --jwe "$D/badalg.jwe"
	assert_failure 1
	assert_output --partial 'has alg "A128KW"; clevis writes "dir"'
	refute_output --partial "bytes)"
	hdr | jq -c '.enc = "A128GCM"' | b64u > "$BATS_TEST_TMPDIR/h"
	printf '%s.%s' "$(cat "$BATS_TEST_TMPDIR/h")" "$rest" > "$D/badenc.jwe"
	run tb --trace luks unlock --jwe "$D/badenc.jwe"
	assert_failure 1
	assert_output --partial 'has enc "A128GCM"'
	refute_output --partial "bytes)"
	# the tag's first character changed: the TPM opens the JWK, GCM
	# refuses the ciphertext
	local t
	t=$(cut -d. -f5 < "$D/tpm2.jwe")
	case $t in A*) t=B${t#?} ;; *) t=A${t#?} ;; esac
	printf '%s.%s' "$(cut -d. -f1-4 < "$D/tpm2.jwe")" "$t" > "$D/badtag.jwe"
	run --separate-stderr tb luks unlock --jwe "$D/badtag.jwe"
	assert_failure 1
	[ -z "$output" ]
	[[ "$stderr" == *"fails its integrity check (a bad tag"* ]]
}

@test "luks unlock: after extend 7 the PCR 7 tokens are exit 4 with nothing on stdout; the PCR-less one still opens" {
	need sd7.img
	tb extend 7 -s unlock-test
	run --separate-stderr tb luks unlock "$D/sd7.img"
	assert_failure 4
	[ -z "$output" ]
	[[ "$stderr" == *"the PCRs sha256:7 do not have the values it was sealed to"* ]]
	run --separate-stderr tb luks unlock "$D/sdpin.img" --pin str:1234
	assert_failure 4
	[[ "$stderr" == *"the PCRs sha256:0,7 do not have"* ]]
	opens sdnone.img
	if [ -s "$D/cl.img" ]; then
		run --separate-stderr tb luks unlock "$D/cl.img"
		assert_failure 4
		[ -z "$output" ]
		# sss t=1: the PCR-less pin opens it; t=2 cannot
		run tb luks unlock --jwe "$D/sss1.jwe"
		assert_success
		run tb luks unlock --jwe "$D/sss2.jwe"
		assert_failure 4
	fi
}

# ---- forms systemd 252 cannot make, sealed for real with tpm2-tools ----

# seal_tools PARENT-CTX SECRET-FILE PCRS AUTH-HEX OUT: tpm2_create under
# the parent with the policy systemd builds (PolicyPCR sha256:PCRS, then
# PolicyAuthValue when AUTH-HEX), fixedtpm|fixedparent; OUT.pub, OUT.priv,
# OUT.policy (the digest)
seal_tools() {
	local parent=$1 secret=$2 pcrs=$3 auth=$4 out=$5
	# no assertion: the digest stays zeros
	head -c 32 /dev/zero > "$out.policy"
	tpm2_startauthsession -S "$out.sess" >/dev/null
	[ -z "$pcrs" ] || tpm2_policypcr -S "$out.sess" -l "sha256:$pcrs" \
		-L "$out.policy" >/dev/null
	[ -z "$auth" ] || tpm2_policyauthvalue -S "$out.sess" \
		-L "$out.policy" >/dev/null
	tpm2_flushcontext "$out.sess"
	tpm2_create -C "$parent" -L "$out.policy" ${auth:+-p "hex:$auth"} \
		-a 'fixedtpm|fixedparent' -i "$secret" -u "$out.pub" \
		-r "$out.priv" >/dev/null
	t2_flush
}

@test "luks unlock: 253+ salted PIN under 254+ tpm2_srk (persistent SRK), and 257+ array blobs" {
	need sd7.img
	local salt auth hs
	# the SRK systemd 254+ persists: the standard ECC template (noDA)
	tpm2_createprimary -C o -G ecc -g sha256 -c "$D/srk.ctx" -a \
		'fixedtpm|fixedparent|sensitivedataorigin|userwithauth|noda|restricted|decrypt' >/dev/null
	tpm2_evictcontrol -C o -c "$D/srk.ctx" 0x81000001 >/dev/null 2>&1 || true
	t2_flush
	tpm2_readpublic -c 0x81000001 -o "$D/srk.pub" -n "$D/srk.name" >/dev/null
	# PIN 2468, salt: authValue = SHA-256(base64(PBKDF2-HMAC-SHA256))
	head -c 16 /dev/urandom > "$D/salt"
	auth=$(python3 -c 'import hashlib,base64,sys
k=hashlib.pbkdf2_hmac("sha256",b"2468",open(sys.argv[1],"rb").read(),10000,32)
print(hashlib.sha256(base64.b64encode(k)).hexdigest())' "$D/salt")
	head -c 32 /dev/urandom > "$D/s1"
	seal_tools 0x81000001 "$D/s1" 7 "$auth" "$D/srkpin"
	local srk
	srk=$(python3 -c 'import struct,base64,sys
pub=open(sys.argv[1],"rb").read(); name=open(sys.argv[2],"rb").read()
print(base64.b64encode(struct.pack(">I",0x81000001)+struct.pack(">H",len(name))+name+struct.pack(">I",1)+pub).decode())' "$D/srk.pub" "$D/srk.name")
	# a keyslot with the passphrase systemd would give: base64 of it
	cp "$D/base.img" "$D/srkpin.img"
	base64 -w0 < "$D/s1" > "$D/s1.pass"
	cryptsetup luksAddKey -q --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--key-file "$D/pw" "$D/srkpin.img" "$D/s1.pass"
	hs=$(xxd -p -c 100 "$D/srkpin.policy")
	jq -nc --arg b "$(cat "$D/srkpin.priv" "$D/srkpin.pub" | base64 -w0)" \
		--arg h "$hs" --arg s "$(base64 -w0 < "$D/salt")" --arg k "$srk" \
		'{type:"systemd-tpm2",keyslots:["1"],"tpm2-blob":$b,"tpm2-pcrs":[7],
		  "tpm2-pcr-bank":"sha256","tpm2-primary-alg":"ecc",
		  "tpm2-policy-hash":$h,"tpm2-pin":true,tpm2_salt:$s,tpm2_srk:$k}' \
		> "$D/srkpin.json"
	cryptsetup token import --token-id 0 --json-file "$D/srkpin.json" "$D/srkpin.img"
	opens srkpin.img --pin str:2468
	cmp "$BATS_TEST_TMPDIR/pass" "$D/s1.pass"
	# the same PIN unsalted (252's form) is the wrong auth value: exit 4
	jq -c 'del(.tpm2_salt)' "$D/srkpin.json" > "$D/nosalt.json"
	cp "$D/srkpin.img" "$D/nosalt.img"
	cryptsetup token remove --token-id 0 "$D/nosalt.img"
	cryptsetup token import --token-id 0 --json-file "$D/nosalt.json" "$D/nosalt.img"
	run tb luks unlock "$D/nosalt.img" --pin str:2468
	assert_failure 4
	assert_output --partial "the PIN is wrong"
	# another SRK named (the helper's made-up key): exit 1, both names
	jq -c --arg k "$(python3 "$BATS_TEST_DIRNAME/helpers/luks2img.py" srk 0x81000001)" \
		'.tpm2_srk = $k' "$D/srkpin.json" > "$D/othersrk.json"
	cp "$D/srkpin.img" "$D/othersrk.img"
	cryptsetup token remove --token-id 0 "$D/othersrk.img"
	cryptsetup token import --token-id 0 --json-file "$D/othersrk.json" "$D/othersrk.img"
	run tb luks unlock "$D/othersrk.img" --pin str:2468
	assert_failure 1
	assert_output --partial "the token's tpm2_srk"
	tpm2_evictcontrol -C o -c 0x81000001 >/dev/null
	t2_flush

	# 257+: two parts under the legacy ECC primary, the passphrase the
	# base64 of both secrets joined
	tpm2_createprimary -C o -G ecc -g sha256 -c "$D/leg.ctx" -a \
		'fixedtpm|fixedparent|sensitivedataorigin|userwithauth|restricted|decrypt' >/dev/null
	head -c 32 /dev/urandom > "$D/a1"
	head -c 32 /dev/urandom > "$D/a2"
	seal_tools "$D/leg.ctx" "$D/a1" "" "" "$D/arr1"
	seal_tools "$D/leg.ctx" "$D/a2" "" "" "$D/arr2"
	tpm2_flushcontext "$D/leg.ctx" 2>/dev/null || t2_flush
	cat "$D/a1" "$D/a2" | base64 -w0 > "$D/arr.pass"
	cp "$D/base.img" "$D/arr.img"
	cryptsetup luksAddKey -q --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--key-file "$D/pw" "$D/arr.img" "$D/arr.pass"
	hs=$(xxd -p -c 100 "$D/arr1.policy")
	jq -nc --arg b1 "$(cat "$D/arr1.priv" "$D/arr1.pub" | base64 -w0)" \
		--arg b2 "$(cat "$D/arr2.priv" "$D/arr2.pub" | base64 -w0)" --arg h "$hs" \
		'{type:"systemd-tpm2",keyslots:["1"],"tpm2-blob":[$b1,$b2],"tpm2-pcrs":[],
		  "tpm2-pcr-bank":"sha256","tpm2-primary-alg":"ecc",
		  "tpm2-policy-hash":[$h,$h]}' > "$D/arr.json"
	# 252's plugin knows no arrays: imported past it
	cryptsetup token import --disable-external-tokens --token-id 0 \
		--json-file "$D/arr.json" "$D/arr.img"
	opens arr.img
	cmp "$BATS_TEST_TMPDIR/pass" "$D/arr.pass"
}

# ---- refusals: one sentence, the exit code, nothing to the TPM first ----

sd_variant() {	# NAME JQ-FILTER [ARGS...]: sd7's token changed, imported
	local name=$1 filter=$2
	shift 2
	cp "$D/base.img" "$D/$name.img"
	cryptsetup token export --token-id 0 "$D/sd7.img" |
		jq -c "$@" "$filter | .keyslots = [\"0\"]" > "$D/$name.json"
	cryptsetup token import --disable-external-tokens --token-id 0 \
		--json-file "$D/$name.json" "$D/$name.img"
}

@test "luks unlock: the legacy RSA primary (tpm2-primary-alg rsa), and clevis sss in a LUKS2 header" {
	need sd7.img
	local hs
	# systemd's legacy RSA template: RSA-2048, 0x00030072, AES-128-CFB,
	# unique empty (tpm2_createprimary -G rsa's defaults)
	tpm2_createprimary -C o -G rsa2048:null:aes128cfb -g sha256 -c "$D/rsa.ctx" -a \
		'fixedtpm|fixedparent|sensitivedataorigin|userwithauth|restricted|decrypt' >/dev/null
	head -c 32 /dev/urandom > "$D/r1"
	seal_tools "$D/rsa.ctx" "$D/r1" 7 "" "$D/rsa"
	tpm2_flushcontext "$D/rsa.ctx" 2>/dev/null || t2_flush
	base64 -w0 < "$D/r1" > "$D/r1.pass"
	cp "$D/base.img" "$D/rsa.img"
	cryptsetup luksAddKey -q --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--key-file "$D/pw" "$D/rsa.img" "$D/r1.pass"
	hs=$(xxd -p -c 100 "$D/rsa.policy")
	jq -nc --arg b "$(cat "$D/rsa.priv" "$D/rsa.pub" | base64 -w0)" --arg h "$hs" \
		'{type:"systemd-tpm2",keyslots:["1"],"tpm2-blob":$b,"tpm2-pcrs":[7],
		  "tpm2-pcr-bank":"sha256","tpm2-primary-alg":"rsa",
		  "tpm2-policy-hash":$h,"tpm2-pin":false}' > "$D/rsa.json"
	cryptsetup token import --token-id 0 --json-file "$D/rsa.json" "$D/rsa.img"
	opens rsa.img
	cmp "$BATS_TEST_TMPDIR/pass" "$D/r1.pass"
	# the same blob said to be under the ECC primary: its Load fails
	jq -c '."tpm2-primary-alg" = "ecc"' "$D/rsa.json" > "$D/rsaecc.json"
	cp "$D/rsa.img" "$D/rsaecc.img"
	cryptsetup token remove --token-id 0 "$D/rsaecc.img"
	cryptsetup token import --token-id 0 --json-file "$D/rsaecc.json" "$D/rsaecc.img"
	run tb luks unlock "$D/rsaecc.img"
	assert_failure 1
	[ "$(echo "$output" | grep -c '^tpmbox luks:')" = 1 ]
	t2_flush
	# clevis sss, threshold 1 over two tpm2 pins, bound in the header
	cp "$D/base.img" "$D/sss.img"
	clevis luks bind -y -d "$D/sss.img" -k "$D/pw" sss \
		'{"t":1,"pins":{"tpm2":[{"pcr_ids":"7"},{}]}}' >/dev/null 2>&1
	t2_flush
	opens sss.img
	clevis luks pass -d "$D/sss.img" -s 1 > "$BATS_TEST_TMPDIR/clpass"
	t2_flush
	cmp "$BATS_TEST_TMPDIR/pass" "$BATS_TEST_TMPDIR/clpass"
	# PCR 7 moved: the PCR-less pin alone still meets t=1
	tb extend 7 -s sss-moved >/dev/null
	opens sss.img
}

@test "luks unlock: in dictionary-attack lockout a PIN token is exit 5, nothing on stdout" {
	# PIN only, no PCRs: earlier tests move PCR 7, and a PCR mismatch
	# fails before the PIN is checked (nothing counted)
	NEWPIN=5678 sd_enroll sdpinonly.img --tpm2-pcrs= --tpm2-with-pin=yes
	tb dalock --reset >/dev/null
	local was
	was=$(tpm2_getcap properties-variable | awk '/MAX_AUTH_FAIL|LOCKOUT_INTERVAL|LOCKOUT_RECOVERY/ {printf "%d ", $2}')
	tpm2_dictionarylockout -s -n 2 -t 600 -l 600 >/dev/null
	for _ in 1 2; do
		run tb luks unlock "$D/sdpinonly.img" --pin str:0000
		assert_failure 4
	done
	tb luks unlock "$D/sdpinonly.img" --pin str:5678 > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" && rc=0 || rc=$?
	tpm2_dictionarylockout -c >/dev/null
	set -- $was
	tpm2_dictionarylockout -s -n "$1" -t "$2" -l "$3" >/dev/null
	[ "$rc" = 5 ]
	[ ! -s "$BATS_TEST_TMPDIR/out" ]
	grep -qi "lockout" "$BATS_TEST_TMPDIR/err"
	# after the reset the right PIN opens it again
	opens sdpinonly.img --pin str:5678
}

@test "luks unlock: a PCR bank this TPM lacks is one sentence, exit 1, nothing loaded" {
	need sd7.img
	# sha384 and sha512 deallocated (a reboot makes it so), then back
	tb pcrallocate sha1,sha256 >/dev/null || [ $? = 7 ]
	swtpm_restart
	run tpm2_pcrread sha384:7
	refute_output --partial "0x"
	sd_variant nobank '."tpm2-pcr-bank" = "sha384"'
	run tb --trace luks unlock "$D/nobank.img"
	tb pcrallocate sha1,sha256,sha384,sha512 >/dev/null || [ $? = 7 ]
	swtpm_restart
	assert_failure 1
	assert_output --partial "sha384"
	[ "$(echo "$output" | grep -c '^tpmbox luks:')" = 1 ]
	refute_output --partial "Load"
	refute_output --partial "Unseal"
	refute_output --partial "CreatePrimary"
	echo "$output" | grep '^tpmbox luks:'
}

@test "luks unlock: pcrlock, a policy hash that is not the object's: exit 1, nothing sent to the TPM" {
	need sd7.img
	local nv
	nv=$(python3 "$BATS_TEST_DIRNAME/helpers/luks2img.py" nvpub 0x01c22000)
	sd_variant pcrlock '.tpm2_pcrlock = true | .tpm2_pcrlock_nv = $n' --arg n "$nv"
	run tb --trace luks unlock "$D/pcrlock.img"
	assert_failure 1
	assert_output --partial "has a pcrlock policy (systemd 255+): unlocking it needs the pcrlock policy file"
	refute_output --partial "bytes)"
	sd_variant badhash '.["tpm2-policy-hash"] = ("00" * 32)'
	run tb --trace luks unlock "$D/badhash.img"
	assert_failure 1
	assert_output --partial "the sealed object's policy is not tpm2-policy-hash"
	refute_output --partial "bytes)"
	# the control: the unchanged token does reach the TPM
	run tb --trace luks unlock "$D/sd7.img"
	assert_output --partial "TPM2_PCR_Read"
}

@test "luks unlock: usage errors exit 2" {
	run tb luks unlock
	assert_failure 2
	run tb luks unlock "$D/base.img" -o x --open y
	assert_failure 2
	run tb luks unlock --jwe x "$D/base.img"
	assert_failure 2
	run tb luks unlock "$D/base.img" --token-id 40
	assert_failure 2
	run tb luks list "$D/base.img" --pin str:1
	assert_failure 2
	run tb luks unlock "$D/base.img"
	assert_failure 1
	assert_output --partial "has no TPM token"
}

@test "luks unlock --open NAME: a fake cryptsetup gets the passphrase on stdin, not in argv or env" {
	need sdnone.img
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cat > "$BATS_TEST_TMPDIR/bin/cryptsetup" <<EOS
#!/bin/sh
printf '%s\n' "\$@" > "$BATS_TEST_TMPDIR/argv"
env > "$BATS_TEST_TMPDIR/env"
cat > "$BATS_TEST_TMPDIR/stdin"
EOS
	chmod +x "$BATS_TEST_TMPDIR/bin/cryptsetup"
	tb luks unlock "$D/sdnone.img" > "$BATS_TEST_TMPDIR/want"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" tb luks unlock "$D/sdnone.img" --open vol
	cmp "$BATS_TEST_TMPDIR/stdin" "$BATS_TEST_TMPDIR/want"
	[ "$(paste -sd' ' "$BATS_TEST_TMPDIR/argv")" = "open --key-file=- $D/sdnone.img vol" ]
	run grep -qF "$(cat "$BATS_TEST_TMPDIR/want")" "$BATS_TEST_TMPDIR/argv" "$BATS_TEST_TMPDIR/env"
	assert_failure 1
	# cryptsetup failing is tpmbox failing
	printf '#!/bin/sh\ncat >/dev/null; exit 5\n' > "$BATS_TEST_TMPDIR/bin/cryptsetup"
	run env PATH="$BATS_TEST_TMPDIR/bin:$PATH" "$TPMBOX" luks unlock "$D/sdnone.img" --open vol
	assert_failure 1
	assert_output --partial "cryptsetup failed (exit 5)"
}
