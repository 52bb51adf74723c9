#!/usr/bin/env python3
"""PE files for tests/pcrpredict.bats.

  pe.py pe32 OUT              a small PE32 (i386) image: two sections and
                              13 bytes of trailing data
  pe.py pe32plus OUT          the same as PE32+ (x86-64)
  pe.py digest ALG FILE       FILE's Authenticode digest (hashlib ALG)
  pe.py damage KIND IN OUT    IN with one fault (the KINDs in damage()),
                              or swap-sections, four-dirs (valid)
"""
import hashlib
import struct
import sys


def pe32(plus=False):
    dos = bytearray(0x80)
    dos[0:2] = b"MZ"
    struct.pack_into("<I", dos, 0x3C, 0x80)
    nsect = 2
    optsz = 240 if plus else 224
    coff = struct.pack("<HHIIIHH", 0x8664 if plus else 0x14C, nsect, 0, 0, 0,
                       optsz, 0x0022 if plus else 0x0102)
    opt = bytearray(optsz)
    struct.pack_into("<HBB", opt, 0, 0x20B if plus else 0x10B, 14, 0)
    struct.pack_into("<III", opt, 4, 0x200, 0x200, 0)       # code/data sizes
    struct.pack_into("<II", opt, 16, 0x1000, 0x1000)        # entry, code base
    if plus:
        struct.pack_into("<QII", opt, 24, 0x140000000, 0x1000, 0x200)
    else:
        struct.pack_into("<IIII", opt, 24, 0x2000, 0x400000, 0x1000, 0x200)
    struct.pack_into("<I", opt, 56, 0x3000)                 # SizeOfImage
    struct.pack_into("<I", opt, 60, 0x200)                  # SizeOfHeaders
    struct.pack_into("<I", opt, 64, 0x12345678)             # CheckSum
    struct.pack_into("<HH", opt, 68, 10, 0)                 # EFI application
    struct.pack_into("<I", opt, 108 if plus else 92, 16)    # NumberOfRvaAndSizes
    sects = b""
    for name, rva, ptr in ((b".text", 0x1000, 0x200), (b".data", 0x2000, 0x400)):
        sects += struct.pack("<8sIIIIIIHHI", name, 0x200, rva, 0x200, ptr,
                             0, 0, 0, 0, 0x60000020)
    hdr = bytes(dos) + b"PE\0\0" + coff + bytes(opt) + sects
    hdr += b"\0" * (0x200 - len(hdr))
    body = bytes(range(256)) * 2 + bytes((i * 7) & 255 for i in range(512))
    return hdr + body + b"trailing-data"


def offsets(b):
    pe = struct.unpack_from("<I", b, 0x3C)[0]
    nsect, optsz = struct.unpack_from("<H", b, pe + 6)[0], struct.unpack_from("<H", b, pe + 20)[0]
    opt = pe + 24
    magic = struct.unpack_from("<H", b, opt)[0]
    dirs = opt + (96 if magic == 0x10B else 112)
    return pe, opt, dirs, opt + optsz, nsect


def damage(kind, b):
    b = bytearray(b)
    pe, opt, dirs, sects, nsect = offsets(b)
    if kind == "swap-sections":
        # Valid: the table out of file order (the digest sorts by
        # PointerToRawData; pesign 116 hashes in table order instead).
        b[sects:sects + 80] = b[sects + 40:sects + 80] + b[sects:sects + 40]
        return b
    if kind == "four-dirs":
        # Valid: no Certificate Table entry at all (NumberOfRvaAndSizes 4):
        # the headers after CheckSum are hashed whole, as EDK2 does (pesign
        # 116 still skips the 8 bytes where the entry would be).
        struct.pack_into("<I", b, dirs - 4, 4)
        return b
    if kind == "truncated-header":
        return b[: opt + 40]
    if kind == "no-mz":
        b[0:2] = b"ZM"
    elif kind == "no-pe":
        b[pe:pe + 4] = b"PX\0\0"
    elif kind == "bad-magic":
        struct.pack_into("<H", b, opt, 0x30B)
    elif kind == "lfanew-beyond":
        struct.pack_into("<I", b, 0x3C, 0xFFFFFFF0)
    elif kind == "section-beyond":
        # The last section (in the table) points past the end of the file.
        struct.pack_into("<I", b, sects + 40 * (nsect - 1) + 20, len(b) - 16)
    elif kind == "section-overflow":
        struct.pack_into("<II", b, sects + 16, 0xFFFFFFFF, 0xFFFFFF00)
    elif kind == "headers-beyond":
        struct.pack_into("<I", b, opt + 60, len(b) + 1)
    elif kind == "too-many-rva":
        struct.pack_into("<I", b, dirs - 4, 0x10000000)
    elif kind == "too-many-sections":
        struct.pack_into("<H", b, pe + 6, 0xFFFF)
    elif kind == "cert-not-at-end":
        size = 24
        b += b"\0" * size + b"tail"
        struct.pack_into("<II", b, dirs + 32, len(b) - size - 4, size)
    elif kind == "cert-beyond":
        struct.pack_into("<II", b, dirs + 32, len(b) - 8, 0xFFFFFFF0)
    else:
        sys.exit("unknown damage " + kind)
    return b


def digest(alg, b):
    """The Authenticode digest as the spec words it (checks left out)."""
    pe, opt, dirs, sects, nsect = offsets(b)
    hdrs = struct.unpack_from("<I", b, opt + 60)[0]
    nrva = struct.unpack_from("<I", b, dirs - 4)[0]
    m = hashlib.new(alg)
    m.update(b[:opt + 64])
    cert_len = 0
    if nrva > 4:
        m.update(b[opt + 68:dirs + 32])
        m.update(b[dirs + 40:hdrs])
        cert_len = struct.unpack_from("<I", b, dirs + 36)[0]
    else:
        m.update(b[opt + 68:hdrs])
    done = hdrs
    table = []
    for i in range(nsect):
        size, ptr = struct.unpack_from("<II", b, sects + 40 * i + 16)
        if size:
            table.append((ptr, size))
    for ptr, size in sorted(table, key=lambda t: t[0]):
        m.update(b[ptr:ptr + size])
        done += size
    m.update(b[done:len(b) - cert_len])
    return m.hexdigest()


def main():
    a = sys.argv[1:]
    if a[0] in ("pe32", "pe32plus"):
        open(a[1], "wb").write(pe32(a[0] == "pe32plus"))
    elif a[0] == "digest":
        print(digest(a[1], open(a[2], "rb").read()))
    elif a[0] == "damage":
        open(a[3], "wb").write(damage(a[1], open(a[2], "rb").read()))
    else:
        sys.exit(__doc__)


main()
