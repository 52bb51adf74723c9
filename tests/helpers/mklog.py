#!/usr/bin/env python3
"""Build small measurement logs for tests/logs.bats.

  mklog.py boot OUT [--legacy] [--banks sha1,sha256] [--locality N]
                    [--no-spec-id] PCR:TYPE:TEXT...
      A TCG PC Client event log: crypto-agile (Spec ID Event03 header)
      or, with --legacy, SHA-1 TCG_PCClientPCREvent records.  Each event's
      digest is the bank's hash of TEXT; TYPE is a number (3 =
      EV_NO_ACTION, 4 = EV_SEPARATOR, 13 = EV_IPL...).  --locality adds
      the StartupLocality EV_NO_ACTION event.  --no-digests makes the
      next event carry no digest at all (and extend nothing, so nothing is
      printed for it).  Prints one line per digest
      that a TPM would extend: "PCR BANK HEX".

  mklog.py ima OUT [--template ima|ima-ng|ima-sig|ima-buf] [--alg sha256]
                   [--pcr 10] [--banks sha1,sha256] [--empty-sig] PATH...
      An IMA binary_runtime_measurements list (little-endian).  A PATH
      starting with '!' is a violation (all-zero template hash).  The file
      digest is the hash of the path text (ima-buf: the buffer is
      "buf:" PATH).  --empty-sig: ima-sig entries with an empty signature.
      Prints one line per entry with what the kernel extends into each of
      --banks: "PCR sha1=HEX sha256=HEX"; a bank written "sha384:padded"
      gets the SHA-1 template hash zero-padded (a kernel that could not
      allocate sha384 extends that).

  mklog.py raw OUT HEX...    concatenated hex chunks (for malformed logs)
"""
import hashlib
import struct
import sys

ALGS = {"sha1": (0x0004, 20), "sha256": (0x000b, 32),
        "sha384": (0x000c, 48), "sha512": (0x000d, 64)}


def h(bank, data):
    return hashlib.new(bank, data).digest()


def le32(v):
    return struct.pack("<I", v)


def spec_id(banks):
    body = b"Spec ID Event03\0" + le32(0) + bytes([0, 2, 0, 2])
    body += le32(len(banks))
    for b in banks:
        body += struct.pack("<HH", *ALGS[b])
    body += b"\0"
    return body


def legacy_event(pcr, etype, digest, data):
    return le32(pcr) + le32(etype) + digest + le32(len(data)) + data


def agile_event(pcr, etype, banks, digests, data):
    out = le32(pcr) + le32(etype) + le32(len(banks))
    for b in banks:
        out += struct.pack("<H", ALGS[b][0]) + digests[b]
    return out + le32(len(data)) + data


def boot(args):
    out, legacy, banks, loc, specid, events = None, False, ["sha1",
                                                              "sha256"], \
        None, True, []
    bare = False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--legacy":
            legacy = True
        elif a == "--banks":
            i += 1
            banks = args[i].split(",")
        elif a == "--locality":
            i += 1
            loc = int(args[i])
        elif a == "--no-spec-id":
            specid = False
        elif a == "--no-digests":
            bare = True
        elif out is None:
            out = a
        else:
            pcr, etype, text = a.split(":", 2)
            events.append((int(pcr), int(etype, 0), text.encode(), bare))
            bare = False
        i += 1
    if legacy:
        banks = ["sha1"]
    log = b""
    if not legacy:
        log += legacy_event(0, 3, bytes(20), spec_id(banks))
    elif specid:
        body = b"Spec ID Event00\0" + le32(0) + bytes([2, 1, 0, 2]) + b"\0"
        log += legacy_event(0, 3, bytes(20), body)
    if loc is not None:
        data = b"StartupLocality\0" + bytes([loc])
        zero = {b: bytes(ALGS[b][1]) for b in banks}
        log += (legacy_event(0, 3, bytes(20), data) if legacy else
                agile_event(0, 3, banks, zero, data))
    for pcr, etype, text, nodig in events:
        d = {b: h(b, text) for b in banks}
        if nodig and not legacy:
            log += agile_event(pcr, etype, [], {}, text)
            continue
        log += (legacy_event(pcr, etype, d["sha1"], text) if legacy else
                agile_event(pcr, etype, banks, d, text))
        if etype != 3:
            for b in banks:
                print(pcr, b, d[b].hex())
    open(out, "wb").write(log)


def ima(args):
    out, template, alg, pcr, paths = None, "ima-ng", "sha256", 10, []
    banks, emptysig = ["sha1", "sha256"], False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--template":
            i += 1
            template = args[i]
        elif a == "--alg":
            i += 1
            alg = args[i]
        elif a == "--pcr":
            i += 1
            pcr = int(args[i])
        elif a == "--banks":
            i += 1
            banks = args[i].split(",")
        elif a == "--empty-sig":
            emptysig = True
        elif out is None:
            out = a
        else:
            paths.append(a)
        i += 1
    log = b""
    for p in paths:
        invalid = p.startswith("!")
        name = p.lstrip("!").encode()
        if template == "ima":
            fd = h("sha1", name)
            tdata = fd + le32(len(name)) + name
            hashed = fd + name.ljust(256, b"\0")
        elif template == "ima-buf":
            # What the kernel measures as a buffer (kernel_version, keys):
            # d-ng over the buffer, its name, the buffer itself.
            buf = b"buf:" + name
            fields = [alg.encode() + b":\0" + h(alg, buf), name + b"\0", buf]
            tdata = b"".join(le32(len(f)) + f for f in fields)
            hashed = tdata
        else:
            fd = h(alg, name)
            fields = [alg.encode() + b":\0" + fd, name + b"\0"]
            if template == "ima-sig" and emptysig:
                fields.append(b"")
            elif template == "ima-sig":
                # An arbitrary signature blob: the parser does not verify
                # it, only carries it.
                fields.append(bytes([3, 2]) + h("sha256", name)[:8])
            tdata = b"".join(le32(len(f)) + f for f in fields)
            hashed = tdata
        # A bank "sha384:padded" gets what a kernel that could not
        # allocate sha384 extends: the SHA-1 template hash zero-padded.
        th = {}
        for bk in banks:
            b, _, mode = bk.partition(":")
            if mode == "padded":
                th[b] = h("sha1", hashed).ljust(len(h(b, b"")), b"\0")
            else:
                th[b] = h(b, hashed)
        ext = {b: (b"\xff" * len(th[b]) if invalid else th[b]) for b in th}
        rec = le32(pcr) + (bytes(20) if invalid else h("sha1", hashed))
        rec += le32(len(template)) + template.encode()
        if template != "ima":
            rec += le32(len(tdata))
        log += rec + tdata
        print(pcr, " ".join(b + "=" + ext[b].hex() for b in th))
    open(out, "wb").write(log)


def raw(args):
    open(args[0], "wb").write(bytes.fromhex("".join(args[1:])))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("boot", "ima", "raw"):
        sys.stderr.write(__doc__)
        sys.exit(2)
    {"boot": boot, "ima": ima, "raw": raw}[sys.argv[1]](sys.argv[2:])
