#!/usr/bin/env python3
"""Edit a blob's escrow recipients record (docs/blob-format.md, "The
recipients record"), for tests/reseal-stored.bats' attacks.

escrow-record.py BLOB show                 the fields, one a line
escrow-record.py BLOB add-cert CERT.pem    one more certificate recipient
                                           (count + 1, the MAC kept)
escrow-record.py BLOB flip-mac             the MAC's last byte changed
escrow-record.py BLOB flip-salt            the salt's first byte changed
escrow-record.py BLOB iter N               the iteration count set to N
escrow-record.py BLOB remac SECRETFILE     the MAC recomputed with the
                                           secret (what only its holder
                                           can do)
The blob is rewritten in place."""
import base64, hashlib, hmac, re, struct, sys

LABEL = "TPMBOX ESCROW RECIPIENTS"


def block(text, label):
    m = re.search(r"-----BEGIN %s-----\n(.*?)-----END %s-----\n" %
                  (label, label), text, re.S)
    return m, base64.b64decode("".join(m.group(1).split()))


def pem(label, der):
    b = base64.b64encode(der).decode()
    return ("-----BEGIN %s-----\n" % label +
            "".join(b[i:i + 64] + "\n" for i in range(0, len(b), 64)) +
            "-----END %s-----\n" % label)


def parse(rec):
    magic, ver, it = rec[:4], *struct.unpack(">HI", rec[4:10])
    salt, (count,) = rec[10:26], struct.unpack(">H", rec[26:28])
    at, ents = 28, []
    for _ in range(count):
        kind, n = struct.unpack(">BH", rec[at:at + 3])
        ents.append((kind, rec[at + 3:at + 3 + n]))
        at += 3 + n
    return magic, ver, it, salt, ents, rec[at:]


def build(magic, ver, it, salt, ents, mac):
    body = magic + struct.pack(">HI", ver, it) + salt + \
        struct.pack(">H", len(ents))
    for kind, v in ents:
        body += struct.pack(">BH", kind, len(v)) + v
    return body, mac


def main():
    path, op = sys.argv[1], sys.argv[2]
    text = open(path).read()
    m, rec = block(text, LABEL)
    magic, ver, it, salt, ents, mac = parse(rec)
    if op == "show":
        print("version", ver)
        print("iterations", it)
        print("salt", salt.hex())
        for kind, v in ents:
            print("kind", kind, "bytes", len(v))
        print("mac", mac.hex())
        return
    if op == "add-cert":
        m2, der = block(open(sys.argv[3]).read(), "CERTIFICATE")
        ents.insert(0, (1, der))
    elif op == "flip-mac":
        mac = mac[:-1] + bytes([mac[-1] ^ 1])
    elif op == "flip-salt":
        salt = bytes([salt[0] ^ 1]) + salt[1:]
    elif op == "iter":
        it = int(sys.argv[3])
    body, mac = build(magic, ver, it, salt, ents, mac)
    if op == "remac":
        secret = open(sys.argv[3], "rb").read()
        k = hashlib.pbkdf2_hmac("sha256", secret, salt, it, 32)
        _, idx = block(text, "TPMBOX ESCROW")
        msg = (b"tpmbox escrow recipients v1\0" +
               struct.pack(">I", len(body)) + body +
               struct.pack(">I", len(idx)) + idx)
        mac = hmac.new(k, msg, hashlib.sha256).digest()
    text = text[:m.start()] + pem(LABEL, body + mac) + text[m.end():]
    open(path, "w").write(text)


main()
