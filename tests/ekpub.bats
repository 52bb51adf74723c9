#!/usr/bin/env bats
# ekpub: the EK as the TCG EK Credential Profile defines it.  Oracles:
# tpm2_createek (the L-1/L-2 templates, a persisted EK) and, for an EK
# template and nonce in NV (which tpm2_createek 5.4 does not read), a raw
# TPM2_CreatePrimary sent by python with the nonce at the start of the
# unique field.

load helpers/common

setup_file() { swtpm_start; }
teardown_file() { swtpm_stop; }
setup() { D=$BATS_TEST_TMPDIR; t2_flush; }

@test "ekpub: the RSA EK (default) is tpm2_createek's: TPM2B_PUBLIC, PEM and name" {
	run tb ekpub --name -o "$D/ek.pem" --pub "$D/ek.pub"
	assert_success
	assert_output --partial "(made from the TCG template)"
	tpm2_createek -c "$D/ek.ctx" -G rsa -u "$D/t.pub" >/dev/null
	tpm2_readpublic -c "$D/ek.ctx" -f pem -o "$D/t.pem" -n "$D/t.name" \
		>/dev/null
	cmp "$D/ek.pub" "$D/t.pub"
	cmp "$D/ek.pem" "$D/t.pem"
	[ "${output%% *}" = "$(xxd -p -c 100 "$D/t.name")" ]
}

@test "ekpub --ecc: the P-256 EK is tpm2_createek -G ecc's; a persisted one is used as it is" {
	tb ekpub --ecc --pub "$D/ek.pub" > "$D/ek.pem"
	tpm2_createek -c 0x81010002 -G ecc -u "$D/t.pub" >/dev/null
	cmp "$D/ek.pub" "$D/t.pub"
	run tb ekpub --ecc --name -o /dev/null
	assert_success
	assert_output --partial "(persisted at 0x81010002)"
	tpm2_evictcontrol -C o -c 0x81010002 >/dev/null
}

@test "ekpub: a template and nonce in NV (0x01c0000c, 0x01c0000b) make the EK; a raw CreatePrimary agrees" {
	python3 - "$D" <<'PY'
import struct, sys
d = sys.argv[1]
pol = bytes.fromhex("837197674484b3f81a90cc8d46a5d724"
                    "fd52d76e06520b64f2a1da1b331469aa")
t = (struct.pack(">HHI", 0x23, 0xb, 0x000300b2) + struct.pack(">H", 32) +
     pol + struct.pack(">HHHHHH", 6, 128, 0x43, 0x10, 3, 0x10) +
     struct.pack(">H", 32) + bytes(32) + struct.pack(">H", 32) + bytes(32))
open(d + "/tmpl.bin", "wb").write(t)
open(d + "/nonce.bin", "wb").write(b"nonce123")
PY
	tb nvdefine 0x01c0000c -s "$(stat -c %s "$D/tmpl.bin")" >/dev/null
	tb nvwrite 0x01c0000c -i "$D/tmpl.bin"
	tb nvdefine 0x01c0000b -s 8 >/dev/null
	tb nvwrite 0x01c0000b -i "$D/nonce.bin"
	run tb ekpub --ecc --name --pub "$D/nv.pub" -o /dev/null
	assert_success
	assert_output --partial "(made from the template in NV)"
	tb nvrelease 0x01c0000c
	tb nvrelease 0x01c0000b
	tb ekpub --ecc --pub "$D/def.pub" -o /dev/null
	! cmp -s "$D/nv.pub" "$D/def.pub" || false
	# the oracle: CreatePrimary(endorsement) of the template with the
	# unique x = nonce || zeros, y = zeros, sent raw
	python3 - "$D" "$SWTPM_DIR/sock" <<'PY'
import socket, struct, sys
d, path = sys.argv[1], sys.argv[2]
t = open(d + "/tmpl.bin", "rb").read()
t = (t[:-68] + struct.pack(">H", 32) + b"nonce123" + bytes(24) +
     struct.pack(">H", 32) + bytes(32))
auth = struct.pack(">IHBH", 0x40000009, 0, 1, 0)
body = (struct.pack(">I", 0x4000000b) + struct.pack(">I", len(auth)) +
        auth + struct.pack(">HHH", 4, 0, 0) + struct.pack(">H", len(t)) +
        t + struct.pack(">H", 0) + struct.pack(">I", 0))
s = socket.socket(socket.AF_UNIX)
s.connect(path)
s.sendall(struct.pack(">HII", 0x8002, 10 + len(body), 0x131) + body)
r = s.recv(4096)
assert struct.unpack(">I", r[6:10])[0] == 0, "CreatePrimary failed"
h = struct.unpack(">I", r[10:14])[0]
n = struct.unpack(">H", r[18:20])[0]
open(d + "/raw.pub", "wb").write(r[18:20 + n])
s.sendall(struct.pack(">HIII", 0x8001, 14, 0x165, h))
s.recv(100)
PY
	cmp "$D/nv.pub" "$D/raw.pub"
}

@test "ekpub feeds seal --to-ek and makecredential on another machine's side" {
	tb ekpub --ecc -o "$D/ek.pem"
	head -c 32 /dev/urandom > "$D/data"
	"$TPMBOX" -T "swtpm:path=$D/none" seal --to-ek "$D/ek.pem" \
		-o "$D/blob" "$D/data"
	tb unseal "$D/blob" | cmp - "$D/data"
	tb takeown >/dev/null
	tb akcreate -o "$D/ak.blob" --name "$D/ak.name" >/dev/null
	tb ekpub -o "$D/ekr.pem"
	tb makecredential --ek "$D/ekr.pem" --name "$D/ak.name" \
		-i "$D/data" -o "$D/cred"
	tb activatecredential -k "$D/ak.blob" -i "$D/cred" | cmp - "$D/data"
}

@test "ekpub --template H-1, H-2, H-3, H-4, H-6: the high range EKs are what tpm2_createprimary makes from the profile's parts (PolicyB, AES-CFB, empty unique)" {
	A='fixedtpm|fixedparent|sensitivedataorigin|userwithauth|adminwithpolicy|restricted|decrypt'
	echo ca3d0a99a2b93906f7a3342414efcfb3a385d44cd1fd459089d19b5071c0b7a0 |
		xxd -r -p > "$D/b256"
	echo b26e7d28d11a50bc53d882bcf5fd3a1a074148bb35d3b4e4cb1c0ad9bde419cacb47ba09699646150f9fc000f3f80e12 |
		xxd -r -p > "$D/b384"
	echo b8221ca69e8550a4914de3faa6a18c072cc01208073a928d5d66d59ef79e49a4 \
	     29c41a6b269571d57edb25fbdb1838425608b413cd616a5f6db5b6071af99bea |
		tr -d ' ' | xxd -r -p > "$D/b512"
	h4="H-4 sha512 ecc521:aes256cfb b512"
	# the small build's mbedTLS has no P-521 (tiny/mbedtls-config.h)
	if [ "${TPMBOX_SECOND_PASS:-}" = tiny ]; then
		h4=
		run tb ekpub --template H-4
		assert_failure 2
		assert_output --partial "this build has no NIST P-521"
	fi
	for spec in "H-1 sha256 rsa2048:aes128cfb b256" \
		    "H-2 sha256 ecc256:aes128cfb b256" \
		    "H-3 sha384 ecc384:aes256cfb b384" ${h4:+"$h4"} \
		    "H-6 sha384 rsa3072:aes256cfb b384"; do
		set -- $spec
		run tb ekpub --template "$1" --name -o "$D/$1.pem"
		assert_success
		assert_output --regexp " \(made from the TCG template\)$"
		tpm2_createprimary -Q -C e -g "$2" -G "$3" -a "$A" -L "$D/$4" \
			-c "$D/p.ctx"
		want=$(tpm2_readpublic -c "$D/p.ctx" | sed -n 's/^name: //p')
		tpm2_readpublic -c "$D/p.ctx" -f pem -o "$D/t2.pem" >/dev/null
		t2_flush
		[ "${output%% *}" = "$want" ]
		cmp "$D/$1.pem" "$D/t2.pem"
	done
	# what tpmbox does not make: H-5 (SM2: SM3-256 names); H-7
	# (RSA-4096) is made only by a TPM with RSA-4096 (not Debian 12's
	# libtpms)
	run tb ekpub --template H-5
	assert_failure 2
	assert_output --partial "SM3-256"
	for t in H-5 H-8 X-1; do
		run tb ekpub --template "$t"
		assert_failure 2
		assert_output --partial "template '$t'"
	done
	run tb ekpub --template H-7
	[ "$status" = 0 ] || assert_output --partial "making the EK (template H-7)"
}

@test "ekpub refusals: operands, unknown options, an existing file, no TPM" {
	run tb ekpub extra
	assert_failure 2
	run tb ekpub --dsa
	assert_failure 2
	: > "$D/there.pem"
	run tb ekpub -o "$D/there.pem"
	assert_failure 3
	[ ! -s "$D/there.pem" ]
	run "$TPMBOX" -T "swtpm:path=$D/none" ekpub
	assert_failure 3
}
