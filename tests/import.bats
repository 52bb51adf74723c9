#!/usr/bin/env bats
# Duplication done on the host (lib/tpm2/dup.c, the base of seal --to): a
# sealed data object made and wrapped here, with no TPM, for a parent key
# on a TPM that is not here.  Driven by tests/helpers/dupwrap.c built from
# lib/.  Oracle: tpm2-tools' tpm2_import + tpm2_load + tpm2_unseal on the
# target TPM (swtpm) take the pieces in and give the secret back.

load helpers/common

setup_file() {
	export DW="$BATS_FILE_TMPDIR/dupwrap"
	local root="$BATS_TEST_DIRNAME/.."
	cc -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -Werror -I"$root/include" \
		-o "$DW" "$root/tests/helpers/dupwrap.c" "$root"/lib/*.c \
		"$root"/lib/*/*.c -lmbedcrypto
	# A second TPM first: its SRK is a parent that is not the target's.
	swtpm_start
	export OTHER_DIR=$SWTPM_DIR OTHER_TCTI=$TPMBOX_TCTI
	tb takeown >/dev/null
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
