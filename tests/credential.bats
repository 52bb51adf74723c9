#!/usr/bin/env bats
# Credential activation: makecredential (no TPM) and activatecredential,
# both ways against tpm2-tools (tpm2_makecredential -T none,
# tpm2_activatecredential) on swtpm.

load helpers/common

setup_file() {
	swtpm_start
	export CD="$BATS_FILE_TMPDIR/c"
	mkdir -p "$CD"
	tb takeown >/dev/null
	tb akcreate -o "$CD/ak.blob" --tpm-public "$CD/ak.pub" \
		--name "$CD/ak.name" > "$CD/ak.hex"
	tpm2_createek -c "$CD/ek.ctx" -G ecc -u "$CD/ek.pub" >/dev/null
	tpm2_readpublic -c "$CD/ek.ctx" -f pem -o "$CD/ek.pem" >/dev/null
	t2_flush
	head -c 32 /dev/urandom > "$CD/secret"
}
teardown_file() { swtpm_stop; }

setup() { D=$BATS_TEST_TMPDIR; t2_flush; }

@test "activatecredential opens what tpm2_makecredential -T none made for this EK and AK" {
	tpm2_makecredential -T none -e "$CD/ek.pub" -s "$CD/secret" \
		-n "$(tr -d '\n' < "$CD/ak.hex")" -o "$D/cred" 2>/dev/null
	tb activatecredential -k "$CD/ak.blob" -i "$D/cred" -o "$D/out"
	cmp "$D/out" "$CD/secret"
	[ "$(stat -c %a "$D/out")" = 600 ]
}

@test "makecredential with no TPM; tpm2_activatecredential opens it" {
	"$TPMBOX" -T "swtpm:path=$D/none" makecredential --ek "$CD/ek.pub" \
		--name "$CD/ak.name" -i "$CD/secret" -o "$D/cred"
	# tpm2-tools' file: 0xBADCC0DE, version 1
	[ "$(head -c 8 "$D/cred" | od -An -tx1 | tr -d ' \n')" = \
		badcc0de00000001 ]
	tss2_pieces "$CD/ak.blob" "$D/ak"
	tpm2_load -C 0x81000001 -u "$D/ak/pub" -r "$D/ak/priv" \
		-c "$D/ak.ctx" >/dev/null
	tpm2_createek -c "$D/ek.ctx" -G ecc >/dev/null
	tpm2_flushcontext -t >/dev/null
	tpm2_startauthsession --policy-session -S "$D/s.ctx"
	tpm2_policysecret -S "$D/s.ctx" -c e >/dev/null
	tpm2_activatecredential -c "$D/ak.ctx" -C "$D/ek.ctx" -i "$D/cred" \
		-o "$D/out" -P "session:$D/s.ctx" >/dev/null
	tpm2_flushcontext "$D/s.ctx"
	cmp "$D/out" "$CD/secret"
}

@test "makecredential then activatecredential: an RSA EK persisted at 0x81010001 (PEM), the name in hex, 1 and 64 bytes" {
	tpm2_createek -c 0x81010001 -G rsa -u "$D/ekr.pub" >/dev/null
	tpm2_readpublic -c 0x81010001 -f pem -o "$D/ekr.pem" >/dev/null
	local n
	for n in 1 64; do
		head -c "$n" /dev/urandom > "$D/s$n"
		tb makecredential --ek "$D/ekr.pem" \
			--name "$(tr -d '\n' < "$CD/ak.hex")" -i "$D/s$n" \
			-o "$D/c$n"
		tb activatecredential -k "$CD/ak.blob" -i "$D/c$n" | cmp - "$D/s$n"
	done
	tpm2_evictcontrol -C o -c 0x81010001 >/dev/null
}

@test "activatecredential: another AK, a flipped bit, another TPM's EK: exit 4 or 1, nothing written" {
	tb makecredential --ek "$CD/ek.pub" --name "$CD/ak.name" \
		-i "$CD/secret" -o "$D/cred"
	tb akcreate -o "$D/ak2.blob" >/dev/null
	run tb activatecredential -k "$D/ak2.blob" -i "$D/cred" -o "$D/out"
	assert_failure 4
	assert_output --partial "not for this AK"
	# the HMAC's last byte (credentialBlob: size, TPM2B_DIGEST hmac, ...)
	cp "$D/cred" "$D/bad"
	python3 -c 'import sys; p=sys.argv[1]; b=bytearray(open(p,"rb").read()); b[8+2+2+31]^=1; open(p,"wb").write(b)' "$D/bad"
	run tb activatecredential -k "$CD/ak.blob" -i "$D/bad" -o "$D/out"
	assert_failure 4
	# made for an EK of another TPM: its seed does not decrypt here
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
		-out "$D/other.key" 2>/dev/null
	openssl pkey -in "$D/other.key" -pubout -out "$D/other.pem"
	tb makecredential --ek "$D/other.pem" --name "$CD/ak.name" \
		-i "$CD/secret" -o "$D/oc"
	run tb activatecredential -k "$CD/ak.blob" -i "$D/oc" -o "$D/out"
	assert_failure
	[ ! -e "$D/out" ]
	# the check can pass
	tb activatecredential -k "$CD/ak.blob" -i "$D/cred" | cmp - "$CD/secret"
}

@test "activatecredential: malformed credential files are refused before the TPM (exit 1)" {
	tb makecredential --ek "$CD/ek.pub" --name "$CD/ak.name" \
		-i "$CD/secret" -o "$D/cred"
	head -c 40 "$D/cred" > "$D/short"
	run tb activatecredential -k "$CD/ak.blob" -i "$D/short"
	assert_failure 1
	assert_output --partial "credential: truncated"
	{ cat "$D/cred"; printf x; } > "$D/long"
	run tb activatecredential -k "$CD/ak.blob" -i "$D/long"
	assert_failure 1
	assert_output --partial "after the secret"
	{ printf '\xde\xc0\xdc\xba'; tail -c +5 "$D/cred"; } > "$D/magic"
	run tb activatecredential -k "$CD/ak.blob" -i "$D/magic"
	assert_failure 1
	assert_output --partial "0xBADCC0DE"
	run tb activatecredential -k "$D/cred" -i "$D/cred"
	assert_failure 1
}

@test "activatecredential: the secret does not cross the bus in clear" {
	printf 'CREDENTIAL-SECRET-MARKER-0123456' > "$D/s"
	tb makecredential --ek "$CD/ek.pub" --name "$CD/ak.name" -i "$D/s" \
		-o "$D/cred"
	tb --trace activatecredential -k "$CD/ak.blob" -i "$D/cred" \
		-o "$D/out" 2> "$D/trace"
	cmp "$D/out" "$D/s"
	# the answer is in the trace: in clear, the secret would be too
	grep -q "^< TPM2_ActivateCredential" "$D/trace"
	local hex
	hex=$(od -An -tx1 "$D/s" | tr -d ' \n')
	! tr -d ' \n' < "$D/trace" | grep -q "$hex" || false
}

@test "makecredential refusals: 65 bytes, no name, an SRK for an EK, missing options" {
	head -c 65 /dev/urandom > "$D/big"
	run tb makecredential --ek "$CD/ek.pub" --name "$CD/ak.name" \
		-i "$D/big" -o "$D/c"
	assert_failure 2
	assert_output --partial "1 to 64"
	run tb makecredential --ek "$CD/ek.pub" --name 000bdead -i \
		"$CD/secret" -o "$D/c"
	assert_failure 6
	run tb makecredential --ek "$CD/ek.pub" --name "$CD/ek.pub" \
		-i "$CD/secret" -o "$D/c"
	assert_failure 2
	assert_output --partial "not a name"
	tpm2_readpublic -c 0x81000001 -o "$D/srk.pub" >/dev/null
	run tb makecredential --ek "$D/srk.pub" --name "$CD/ak.name" \
		-i "$CD/secret" -o "$D/c"
	assert_failure 2
	assert_output --partial "standard EK"
	run tb makecredential --ek "$CD/ek.pub" -i "$CD/secret" -o "$D/c"
	assert_failure 2
	run tb activatecredential -i "$D/c"
	assert_failure 2
	[ ! -e "$D/c" ]
}
