#!/usr/bin/env bats
# Duplication done on the host (lib/tpm2/dup.c) and seal --to: a sealed
# data object made and wrapped here, with no TPM, for a parent key on a
# TPM that is not here.  The lib half is driven by tests/helpers/dupwrap.c
# built from lib/.  Oracle: tpm2-tools' tpm2_import + tpm2_load +
# tpm2_unseal on the target TPM (swtpm) take the pieces in and give the
# secret back; seal --to's blobs unseal with tpmbox on the target and,
# taken apart, with tpm2-tools.

load helpers/common

setup_file() {
	export DW="$BATS_FILE_TMPDIR/dupwrap"
	local root="$BATS_TEST_DIRNAME/.."
	cc -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -Werror -I"$root/include" \
		-o "$DW" "$root/tests/helpers/dupwrap.c" "$root"/lib/*/*.c -lmbedx509 -lmbedcrypto
	# A second TPM first: its SRK is a parent that is not the target's.
	swtpm_start
	export OTHER_DIR=$SWTPM_DIR OTHER_TCTI=$TPMBOX_TCTI
	tb takeown --srk-pub "$BATS_FILE_TMPDIR/other.pem" >/dev/null
	tpm2_readpublic -c 0x81000001 -o "$BATS_FILE_TMPDIR/other.pub" \
		>/dev/null
	swtpm_start
}

teardown_file() {
	swtpm_stop
	SWTPM_DIR=$OTHER_DIR swtpm_stop
}

setup() {
	D=$BATS_TEST_TMPDIR
	t2_flush
}

# srk ecc|rsa: the target's SRK as tpmbox takeown makes it, its public
# to $D/srk.pub
srk() {
	if [ "$1" = rsa ]; then
		tb takeown --rsa --force >/dev/null
	else
		tb takeown --force >/dev/null
	fi
	tpm2_readpublic -c 0x81000001 -o "$D/srk.pub" >/dev/null
}

# import_unseal DIR [AUTH]: tpm2-tools take DIR's pieces in under the SRK
# and unseal; the secret to stdout
import_unseal() {
	tpm2_import -C 0x81000001 -u "$1/pub" -i "$1/dup" -s "$1/seed" \
		-r "$1/priv" >/dev/null &&
	tpm2_load -C 0x81000001 -u "$1/pub" -r "$1/priv" -c "$1/ctx" \
		>/dev/null &&
	tpm2_unseal -c "$1/ctx" ${2:+-p "$2"}
	local rc=$?
	t2_flush
	return $rc
}

@test "import: ECC SRK: tpm2_import + tpm2_load + tpm2_unseal give back 1 and 128 bytes wrapped on the host" {
	srk ecc
	local n
	for n in 1 128; do
		head -c "$n" /dev/urandom > "$D/data$n"
		mkdir -p "$D/o$n"
		"$DW" "$D/srk.pub" "$D/data$n" "$D/o$n" pw
		import_unseal "$D/o$n" pw > "$D/out$n"
		cmp "$D/out$n" "$D/data$n"
	done
	# the seed is an ECC point (TPMS_ECC_POINT: two 32-byte coordinates)
	[ "$(stat -c %s "$D/o1/seed")" = $((2 + 2 + 32 + 2 + 32)) ]
}

@test "import: RSA SRK: the seed goes RSA-OAEP (label DUPLICATE) and the secret comes back" {
	srk rsa
	head -c 32 /dev/urandom > "$D/data"
	mkdir "$D/o"
	"$DW" "$D/srk.pub" "$D/data" "$D/o"
	[ "$(stat -c %s "$D/o/seed")" = $((2 + 256)) ]
	import_unseal "$D/o" > "$D/out"
	cmp "$D/out" "$D/data"
}

@test "import: the object's auth value holds: the wrong one is refused by the TPM" {
	srk ecc
	head -c 16 /dev/urandom > "$D/data"
	mkdir "$D/o"
	"$DW" "$D/srk.pub" "$D/data" "$D/o" right
	run import_unseal "$D/o" wrong
	assert_failure
	assert_output --partial "authorization failure"
	import_unseal "$D/o" right | cmp - "$D/data"
}

@test "import: wrapped for another TPM's SRK: this TPM refuses to import it" {
	srk ecc
	head -c 32 /dev/urandom > "$D/data"
	mkdir "$D/o"
	"$DW" "$BATS_FILE_TMPDIR/other.pub" "$D/data" "$D/o"
	run tpm2_import -C 0x81000001 -u "$D/o/pub" -i "$D/o/dup" \
		-s "$D/o/seed" -r "$D/o/priv"
	assert_failure
	# and the other TPM takes it in
	TPMBOX_TCTI=$OTHER_TCTI TPM2TOOLS_TCTI=$OTHER_TCTI \
		import_unseal "$D/o" | cmp - "$D/data"
}

@test "import: one flipped bit of the encrypted sensitive area or of the public area fails the integrity check" {
	srk ecc
	head -c 32 /dev/urandom > "$D/data"
	mkdir "$D/o"
	"$DW" "$D/srk.pub" "$D/data" "$D/o"
	local size
	size=$(stat -c %s "$D/o/dup")
	cp -r "$D/o" "$D/bad"
	# the last byte of the encrypted TPM2B_SENSITIVE
	python3 -c 'import sys; p=sys.argv[1]; b=bytearray(open(p,"rb").read()); b[-1]^=1; open(p,"wb").write(b)' "$D/bad/dup"
	[ "$(stat -c %s "$D/bad/dup")" = "$size" ]
	run tpm2_import -C 0x81000001 -u "$D/bad/pub" -i "$D/bad/dup" \
		-s "$D/bad/seed" -r "$D/bad/priv"
	assert_failure
	assert_output --partial "integrity"
	# the public area: its name keys the HMAC (noDA bit cleared)
	cp "$D/o/dup" "$D/bad/dup"
	python3 -c 'import sys; p=sys.argv[1]; b=bytearray(open(p,"rb").read()); b[8]^=0x04; open(p,"wb").write(b)' "$D/bad/pub"
	run tpm2_import -C 0x81000001 -u "$D/bad/pub" -i "$D/bad/dup" \
		-s "$D/bad/seed" -r "$D/bad/priv"
	assert_failure
	# the untouched pieces import (the check can pass)
	import_unseal "$D/o" | cmp - "$D/data"
}

@test "import: refusals on the host: an object fixed to its TPM, 129 bytes, a parent that is not a storage key" {
	srk ecc
	head -c 32 /dev/urandom > "$D/data"
	mkdir "$D/o"
	run "$DW" "$D/srk.pub" "$D/data" "$D/o" "" fixed
	assert_failure
	assert_output --partial "fixed to its TPM or parent"
	head -c 129 /dev/urandom > "$D/big"
	run "$DW" "$D/srk.pub" "$D/big" "$D/o"
	assert_failure
	assert_output --partial "129 data bytes (1 to 128)"
	tb akcreate -o "$D/ak.blob" --tpm-public "$D/ak.pub" >/dev/null
	run "$DW" "$D/ak.pub" "$D/data" "$D/o"
	assert_failure
	assert_output --partial "not a storage key"
	[ ! -e "$D/o/dup" ]
}

# ---- seal --to: the applet ----

# on_other CMD...: run against the second TPM (the target)
on_other() {
	TPMBOX_TCTI=$OTHER_TCTI TPM2TOOLS_TCTI=$OTHER_TCTI "$@"
}

Z64=$(printf '%064d' 0)

@test "seal --to: sealed with no TPM at all for the other TPM's SRK (PEM); unseal there gives 1 byte, 128 bytes and 64 KiB back" {
	local n
	for n in 1 128 65536; do
		head -c "$n" /dev/urandom > "$D/d$n"
		# no TPM: -T names a socket that does not exist
		"$TPMBOX" -T "swtpm:path=$D/none" seal \
			--to "$BATS_FILE_TMPDIR/other.pem" -o "$D/b$n" "$D/d$n"
		grep -q "BEGIN TSS2 PRIVATE KEY" "$D/b$n"
		on_other tb unseal -o "$D/o$n" "$D/b$n"
		cmp "$D/o$n" "$D/d$n"
	done
	# the key file says importable (2.23.133.10.1.4): 06 06 67 81 05 0a 01 04
	sed -n '/BEGIN TSS2/,/END TSS2/p' "$D/b1" | sed '1d;$d' | base64 -d |
		od -An -tx1 | tr -d ' \n' | grep -q "06066781050a0104"
}

@test "seal --to with PCR values and a password: the target unseals it in that state only, with that password" {
	# the target's PCRs 0 and 7 are zeros after startup
	head -c 48 /dev/urandom > "$D/data"
	tb seal --to "$BATS_FILE_TMPDIR/other.pem" \
		-p "sha256:0,7=$Z64,$Z64" --auth str:pw -o "$D/blob" "$D/data"
	on_other tb unseal --auth str:pw "$D/blob" | cmp - "$D/data"
	run on_other tb unseal --auth str:nope "$D/blob"
	assert_failure 4
	assert_output --partial "password is wrong"
	on_other tb extend 7 -s moved >/dev/null
	run on_other tb unseal --auth str:pw "$D/blob"
	assert_failure 4
	assert_output --partial "sha256:7"
}

@test "seal --to: the TPM the blob was not made for cannot unseal it (another SRK, exit 1)" {
	head -c 32 /dev/urandom > "$D/data"
	tb seal --to "$BATS_FILE_TMPDIR/other.pem" -o "$D/blob" "$D/data"
	tb takeown >/dev/null
	run tb unseal "$D/blob"
	assert_failure 1
	assert_output --partial "sealed under another SRK"
}

@test "seal --to: a TPM2B_PUBLIC from tpm2_readpublic -o, and an RSA SRK, work as targets too" {
	head -c 32 /dev/urandom > "$D/data"
	tb seal --to "$BATS_FILE_TMPDIR/other.pub" -o "$D/blob" "$D/data"
	on_other tb unseal "$D/blob" | cmp - "$D/data"
	# this TPM with an RSA SRK as the target
	srk rsa
	tb seal --to "$D/srk.pub" -o "$D/rblob" "$D/data"
	tb unseal "$D/rblob" | cmp - "$D/data"
	tb takeown --force >/dev/null
}

@test "seal --to: tpm2-tools import, load and unseal the key file's pieces (pubkey, privkey as the duplicate, secret as the seed)" {
	head -c 32 /dev/urandom > "$D/data"
	tb seal --to "$BATS_FILE_TMPDIR/other.pem" -o "$D/blob" "$D/data"
	# TPMKey: OID, [2] secret, parent INTEGER, pubkey, privkey
	tss2_pieces "$D/blob" "$D/p"
	mv "$D/p/priv" "$D/p/dup"
	[ -s "$D/p/seed" ]
	[ -s "$D/p/pub" ]
	[ -s "$D/p/dup" ]
	on_other import_unseal "$D/p" | cmp - "$D/data"
}

@test "seal --to: a damaged seed in the blob is refused by the target's TPM_Import (exit 1, nothing written)" {
	head -c 32 /dev/urandom > "$D/data"
	tb seal --to "$BATS_FILE_TMPDIR/other.pem" -o "$D/blob" "$D/data"
	# rewrite the key file with one bit of the seed's point flipped
	python3 - "$D/blob" <<'PY'
import base64, sys
p = sys.argv[1]
t = open(p).read()
a = t.index("-----BEGIN TSS2 PRIVATE KEY-----\n") + 33
b = t.index("-----END TSS2 PRIVATE KEY-----")
d = bytearray(base64.b64decode(t[a:b]))
i = d.index(b"\xa2")          # [2] secret, right after the OID
d[i + 10] ^= 1
body = base64.b64encode(bytes(d)).decode()
lines = "\n".join(body[j:j + 64] for j in range(0, len(body), 64))
open(p, "w").write(t[:a] + lines + "\n" + t[b:])
PY
	run on_other tb unseal -o "$D/out" "$D/blob"
	assert_failure
	assert_output --partial "refused to import"
	[ ! -e "$D/out" ]
}

@test "seal --to refusals: a PCR without its value, 'all', --owner-auth, a key that is no SRK, a missing file" {
	# (A PEM holds a bare key: any P-256 or RSA-2048 key passes as the
	# standard SRK with that key; only that TPM can import the blob.)
	head -c 32 /dev/urandom > "$D/data"
	local to=$BATS_FILE_TMPDIR/other.pem
	run tb seal --to "$to" -p sha256:0,7 -o "$D/b" "$D/data"
	assert_failure 2
	assert_output --partial "the TPM the blob is for is not here"
	run tb seal --to "$to" -p "sha256:0=$Z64+sha256:7" -o "$D/b" "$D/data"
	assert_failure 2
	run tb seal --to "$to" -p all -o "$D/b" "$D/data"
	assert_failure 2
	run tb seal --to "$to" --owner-auth str:x -o "$D/b" "$D/data"
	assert_failure 2
	assert_output --partial "seal for another one"
	# a TPM2B_PUBLIC says what the key is: an AK is no SRK
	tb akcreate -o "$D/ak.blob" --tpm-public "$D/ak.pub" >/dev/null
	run tb seal --to "$D/ak.pub" -o "$D/b" "$D/data"
	assert_failure 2
	assert_output --partial "not the public key of a standard SRK"
	# a PEM key of a size no SRK template has
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 \
		-out "$D/p384.key" 2>/dev/null
	openssl pkey -in "$D/p384.key" -pubout -out "$D/p384.pem"
	run tb seal --to "$D/p384.pem" -o "$D/b" "$D/data"
	assert_failure 2
	assert_output --partial "not the public key of a standard SRK"
	run tb seal --to "$D/nothing.pem" -o "$D/b" "$D/data"
	assert_failure 6
	[ ! -e "$D/b" ]
}

@test "seal --to with an escrow copy and a recovery code: recover opens them, the target unseals" {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$D/esc.key" -out "$D/esc.pem" -subj /CN=esc \
		-days 1 >/dev/null 2>&1
	head -c 300 /dev/urandom > "$D/data"
	tb seal --to "$BATS_FILE_TMPDIR/other.pem" --escrow "$D/esc.pem" \
		--recovery-code-out "$D/code" -o "$D/blob" "$D/data"
	on_other tb unseal "$D/blob" | cmp - "$D/data"
	"$TPMBOX" -T "swtpm:path=$D/none" recover -k "$D/esc.key" "$D/blob" |
		cmp - "$D/data"
	"$TPMBOX" recover --recovery-code "file:$D/code" "$D/blob" |
		cmp - "$D/data"
}

# ---- seal --to-ek (last: it clears the other TPM) ----

@test "seal --to-ek: the target's EK (tpm2_createek's public, PEM or TPM2B_PUBLIC) imports it; the blob survives clearall there, an SRK blob does not" {
	on_other tpm2_createek -c "$D/ek.ctx" -G ecc -u "$D/ek.pub" >/dev/null
	on_other tpm2_readpublic -c "$D/ek.ctx" -f pem -o "$D/ek.pem" >/dev/null
	on_other tpm2_flushcontext -t
	head -c 100 /dev/urandom > "$D/data"
	tb seal --to-ek "$D/ek.pem" -p "sha256:0=$Z64" -o "$D/ek.blob" \
		"$D/data"
	tb seal --to-ek "$D/ek.pub" --auth str:pw -o "$D/ek2.blob" "$D/data"
	tb seal --to "$BATS_FILE_TMPDIR/other.pem" -o "$D/srk.blob" "$D/data"
	on_other tb unseal "$D/ek.blob" | cmp - "$D/data"
	on_other tb unseal --auth str:pw "$D/ek2.blob" | cmp - "$D/data"
	# this TPM has another EK
	run tb unseal "$D/ek.blob"
	assert_failure 1
	assert_output --partial "sealed for another EK"
	# a clear: new owner seed (the SRK blob is lost), same EK
	on_other tb clearall --yes >/dev/null
	run on_other tb unseal "$D/srk.blob"
	assert_failure 1
	assert_output --partial "another SRK"
	on_other tb unseal "$D/ek.blob" | cmp - "$D/data"
	on_other tb unseal --auth str:pw "$D/ek2.blob" | cmp - "$D/data"
	# a persisted EK is used as it is (RSA this time)
	on_other tpm2_createek -c 0x81010001 -G rsa -u "$D/ekr.pub" >/dev/null
	tb seal --to-ek "$D/ekr.pub" -o "$D/ekr.blob" "$D/data"
	on_other tb unseal "$D/ekr.blob" | cmp - "$D/data"
}

@test "seal --to-ek refusals: an SRK's TPM2B_PUBLIC is no EK, an EK's is no SRK" {
	head -c 16 /dev/urandom > "$D/data"
	run tb seal --to-ek "$BATS_FILE_TMPDIR/other.pub" -o "$D/b" "$D/data"
	assert_failure 2
	assert_output --partial "not the public key of a standard EK"
	tpm2_createek -c "$D/ek.ctx" -G ecc -u "$D/ek.pub" >/dev/null
	t2_flush
	run tb seal --to "$D/ek.pub" -o "$D/b" "$D/data"
	assert_failure 2
	assert_output --partial "not the public key of a standard SRK"
	[ ! -e "$D/b" ]
}
