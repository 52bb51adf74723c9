#!/usr/bin/env python3
"""Rewrite TCG PC Client boot event logs for tests/pcrpredict.bats (an
independent reader and writer: nothing here comes from tpmbox).

  evlog.py list LOG
      one line per event: NUM PCR TYPE(hex) then BANK=HEX per digest, and
      for a UEFI_VARIABLE_DATA event var=NAME datahash=ok|bad (whether
      every digest is the hash of the event data)
  evlog.py set-digest LOG OUT NUM BANK=HEX...
      event NUM with those digests
  evlog.py drop LOG OUT NUM
      the log without event NUM
  evlog.py set-var LOG OUT NAME FILE
      every EV_EFI_VARIABLE_DRIVER_CONFIG event for variable NAME with
      VariableData = FILE's bytes and its digests the hashes of the new
      event data
  evlog.py esl OUT DERFILE...
      an EFI_SIGNATURE_LIST of X.509 certificates (one list per cert)
"""
import hashlib
import struct
import sys
import uuid

ALGS = {0x0004: "sha1", 0x000B: "sha256", 0x000C: "sha384", 0x000D: "sha512"}
EV_NO_ACTION = 3
EV_VAR_CONFIG = 0x80000001
VAR_TYPES = (0x80000001, 0x80000002, 0x8000000C, 0x800000E0)


def parse(b):
    """[(pcr, type, [(alg, digest)], data)], header sizes or None."""
    ev, pos, sizes = [], 0, None
    while pos < len(b):
        if sizes is None:
            pcr, typ = struct.unpack_from("<II", b, pos)
            digs = [(4, b[pos + 8:pos + 28])]
            n = struct.unpack_from("<I", b, pos + 28)[0]
            data = b[pos + 32:pos + 32 + n]
            pos += 32 + n
            if not ev and typ == EV_NO_ACTION and data[:16] == b"Spec ID Event03\0":
                k = struct.unpack_from("<I", data, 24)[0]
                sizes = {}
                for i in range(k):
                    a, s = struct.unpack_from("<HH", data, 28 + 4 * i)
                    sizes[a] = s
                ev.append((pcr, typ, digs, data, True))
                continue
            ev.append((pcr, typ, digs, data, False))
            continue
        pcr, typ, cnt = struct.unpack_from("<III", b, pos)
        pos += 12
        digs = []
        for _ in range(cnt):
            a = struct.unpack_from("<H", b, pos)[0]
            digs.append((a, b[pos + 2:pos + 2 + sizes[a]]))
            pos += 2 + sizes[a]
        n = struct.unpack_from("<I", b, pos)[0]
        ev.append((pcr, typ, digs, b[pos + 4:pos + 4 + n], False))
        pos += 4 + n
    return ev, sizes


def write(ev, sizes):
    out = b""
    for i, (pcr, typ, digs, data, legacy_fmt) in enumerate(ev):
        if sizes is None or legacy_fmt:
            out += struct.pack("<II", pcr, typ) + digs[0][1]
        else:
            out += struct.pack("<III", pcr, typ, len(digs))
            for a, d in digs:
                out += struct.pack("<H", a) + d
        out += struct.pack("<I", len(data)) + data
    return out


def var(data):
    if len(data) < 32:
        return None
    nl, vl = struct.unpack_from("<QQ", data, 16)
    if 32 + 2 * nl + vl != len(data):
        return None
    return data[32:32 + 2 * nl].decode("utf-16-le"), data[32 + 2 * nl:]


def h(alg, data):
    return hashlib.new(ALGS[alg], data).digest()


def main():
    a = sys.argv[1:]
    if a[0] == "list":
        ev, _ = parse(open(a[1], "rb").read())
        for i, (pcr, typ, digs, data, _) in enumerate(ev):
            line = "%d %d 0x%08x %s" % (i, pcr, typ, " ".join(
                "%s=%s" % (ALGS.get(al, hex(al)), d.hex()) for al, d in digs))
            v = var(data) if typ in VAR_TYPES else None
            if v:
                ok = all(al in ALGS and h(al, data) == d for al, d in digs)
                line += " var=%s datahash=%s" % (v[0], "ok" if ok else "bad")
            print(line)
    elif a[0] == "set-digest":
        b = open(a[1], "rb").read()
        ev, sizes = parse(b)
        num = int(a[3])
        new = dict((k, bytes.fromhex(v)) for k, v in (x.split("=") for x in a[4:]))
        pcr, typ, digs, data, l = ev[num]
        digs = [(al, new.get(ALGS.get(al), d)) for al, d in digs]
        ev[num] = (pcr, typ, digs, data, l)
        open(a[2], "wb").write(write(ev, sizes))
    elif a[0] == "drop":
        ev, sizes = parse(open(a[1], "rb").read())
        del ev[int(a[3])]
        open(a[2], "wb").write(write(ev, sizes))
    elif a[0] == "set-var":
        ev, sizes = parse(open(a[1], "rb").read())
        val = open(a[4], "rb").read()
        for i, (pcr, typ, digs, data, l) in enumerate(ev):
            v = var(data) if typ == EV_VAR_CONFIG else None
            if not v or v[0] != a[3]:
                continue
            nl = struct.unpack_from("<Q", data, 16)[0]
            nd = data[:24] + struct.pack("<Q", len(val)) + data[32:32 + 2 * nl] + val
            ev[i] = (pcr, typ, [(al, h(al, nd)) for al, _ in digs], nd, l)
        open(a[2], "wb").write(write(ev, sizes))
    elif a[0] == "esl":
        x509 = uuid.UUID("a5c059a1-94e4-4aa7-87b5-ab155c2bf072").bytes_le
        owner = uuid.UUID("77fa9abd-0359-4d32-bd60-28f4e78f784b").bytes_le
        out = b""
        for f in a[2:]:
            der = open(f, "rb").read()
            sig = owner + der
            out += x509 + struct.pack("<III", 28 + len(sig), 0, len(sig)) + sig
        open(a[1], "wb").write(out)
    else:
        sys.exit(__doc__)


main()
