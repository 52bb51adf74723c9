#!/usr/bin/env python3
"""Rewrite a LUKS2 image's header for tests/luks.bats, from the LUKS2
on-disk format specification's layout (not from tpmbox's code):
binary header 4096 bytes (magic, u16 version, u64 hdr_size, u64 seqid,
label[48], csum_alg[32], salt[64], uuid[40], subsystem[48], u64
hdr_offset, pad[184], csum[64], pad), JSON area up to hdr_size; the
primary at 0, the secondary at hdr_size; SHA-256 over hdr_size bytes
with csum zeroed.

  luks2img.py json IMG FILE      both copies get FILE's JSON, checksums made
  luks2img.py poke IMG COPY OFF HEX [fix]   write bytes into copy 0/1 at
                                 OFF (fix: the checksum made again)
  luks2img.py srk HANDLE         a serialized ESYS_TR of an ECC SRK, base64
  luks2img.py nvpub INDEX        a TPM2B_NV_PUBLIC, base64
  luks2img.py blob               a systemd-tpm2 blob of a made-up sealed
                                 object (TPM2B_PRIVATE || TPM2B_PUBLIC)
"""
import base64, hashlib, json, os, struct, sys

def hdr_size(f):
    f.seek(8)
    return struct.unpack(">Q", f.read(8))[0]

def fix(f, off, hs):
    f.seek(off)
    area = bytearray(f.read(hs))
    area[448:512] = bytes(64)
    d = hashlib.sha256(area).digest()
    f.seek(off + 448)
    f.write(d + bytes(32))

def cmd_json(img, src):
    text = open(src, "rb").read().strip()
    with open(img, "r+b") as f:
        hs = hdr_size(f)
        assert len(text) < hs - 4096
        for off in (0, hs):
            f.seek(off + 4096)
            f.write(text + bytes(hs - 4096 - len(text)))
            fix(f, off, hs)

def cmd_poke(img, copy, off, hexs, refix=None):
    with open(img, "r+b") as f:
        hs = hdr_size(f)
        base = 0 if copy == "0" else hs
        f.seek(base + int(off, 0))
        f.write(bytes.fromhex(hexs))
        if refix:
            fix(f, base, hs)

def ecc_srk_public():
    # TPMT_PUBLIC: ECC, nameAlg sha256, the SRK attributes, no policy,
    # AES-128-CFB, NULL scheme, P-256, NULL kdf, a point
    x = hashlib.sha256(b"x").digest()
    y = hashlib.sha256(b"y").digest()
    return (struct.pack(">HHI", 0x23, 0x0b, 0x00030072) +
            struct.pack(">H", 0) +
            struct.pack(">HHH", 0x06, 128, 0x43) +
            struct.pack(">HHH", 0x10, 0x03, 0x10) +
            struct.pack(">H", 32) + x + struct.pack(">H", 32) + y)

def cmd_srk(handle):
    pub = ecc_srk_public()
    name = struct.pack(">H", 0x0b) + hashlib.sha256(pub).digest()
    blob = (struct.pack(">I", int(handle, 0)) +
            struct.pack(">H", len(name)) + name + struct.pack(">I", 1) +
            struct.pack(">H", len(pub)) + pub)
    print(base64.b64encode(blob).decode())

def cmd_nvpub(index):
    pol = hashlib.sha256(b"pcrlock").digest()
    body = (struct.pack(">IHI", int(index, 0), 0x0b, 0x00040004) +
            struct.pack(">H", len(pol)) + pol + struct.pack(">H", 32))
    print(base64.b64encode(struct.pack(">H", len(body)) + body).decode())

def cmd_blob():
    # TPMT_PUBLIC keyedhash: nameAlg sha256, fixedTPM|fixedParent, a
    # policy, NULL scheme, a unique digest
    pol = hashlib.sha256(b"policy").digest()
    pub = (struct.pack(">HHI", 0x08, 0x0b, 0x00000012) +
           struct.pack(">H", 32) + pol + struct.pack(">H", 0x10) +
           struct.pack(">H", 32) + hashlib.sha256(b"u").digest())
    priv = os.urandom(64)
    print(base64.b64encode(struct.pack(">H", len(priv)) + priv +
                           struct.pack(">H", len(pub)) + pub).decode())

cmd = sys.argv[1]
{"json": cmd_json, "poke": cmd_poke, "srk": cmd_srk,
 "nvpub": cmd_nvpub, "blob": cmd_blob}[cmd](*sys.argv[2:])
