#!/usr/bin/env python3
"""A misbehaving TPM on a unix socket, for transport and parser tests.

usage: faketpm.py SOCKET MODE [LOGFILE]

It accepts one client at a time, reads one command (header size), writes
what MODE says, and records each command code it saw in LOGFILE.
Modes:
  close      read the command, close without answering
  half       send 15 of an announced 20 bytes, close
  hang       read the command, never answer (until killed)
  hangpart   send 6 bytes of a header, never the rest
  bigrandom  answer GetRandom(n) with n+1 bytes
  trailing   answer GetRandom(n) with n bytes and 2 bytes more
  tpm12big   a TPM 1.2 (2.0 tags refused) answering TPM_GetRandom(n)
             with n+1 bytes
  tpm12short a TPM 1.2 answering TPM_GetRandom(n) with at most 1000
             bytes (a real 1.2 may return fewer than asked)
  tpm12trail a TPM 1.2 answering TPM_GetRandom(n) with 2 bytes after it
  badsize    a header announcing 9 bytes
  hugesize   a header announcing 1 MiB
  tpm12      a TPM 1.2 error response (tag 0x00c4)
  retry2     TPM_RC_RETRY twice, then an honest GetRandom answer
  retry      TPM_RC_RETRY for ever
  initialize TPM_RC_INITIALIZE for every command
  handles    answer GetCapability(TPM_CAP_HANDLES) with $FAKETPM_HANDLES
             (default 2100) handles of the asked type, 254 per page with
             moreData; any other command gets TPM_RC_COMMAND_CODE
  full       a TPM that is always out of room: TPM_RC_OBJECT_MEMORY to
             every command, except GetCapability(TPM_CAP_HANDLES), which
             lists 3 transient objects (or loaded sessions), and
             FlushContext, which succeeds
  mutate     forward each command to the swtpm socket $FAKETPM_TARGET and
             damage half of the responses (seeded by $FAKETPM_SEED):
             changed bytes, cut short, junk appended; the header size is
             kept consistent so the parsers behind it are exercised
"""
import os
import random
import socket
import struct
import sys


def read_cmd(c):
    buf = b""
    while len(buf) < 10:
        d = c.recv(4096)
        if not d:
            return None
        buf += d
    size = struct.unpack(">I", buf[2:6])[0]
    while len(buf) < size:
        d = c.recv(4096)
        if not d:
            return None
        buf += d
    return buf


def rsp(tag, rc, body=b""):
    return struct.pack(">HII", tag, 10 + len(body), rc) + body


def random_answer(cmd, extra=0, trailing=b""):
    want = struct.unpack(">H", cmd[10:12])[0] if len(cmd) >= 12 else 1
    data = bytes((i * 7 + 1) & 0xff for i in range(want + extra))
    return rsp(0x8001, 0, struct.pack(">H", len(data)) + data + trailing)


def tpm12_answer(cmd, mode):
    tag, _, ordinal = struct.unpack(">HII", cmd[:10])
    if tag >= 0x8000:
        return rsp(0x00c4, 0x0a)        # TPM_BAD_ORDINAL, as swtpm 1.2
    if ordinal != 0x46:
        return rsp(0x00c4, 0x0a)
    want = struct.unpack(">I", cmd[10:14])[0]
    n = {"tpm12big": want + 1, "tpm12short": min(want, 1000)}.get(mode, want)
    data = bytes((i * 7 + len(cmd)) & 0xff for i in range(n))
    tail = b"\1\2" if mode == "tpm12trail" else b""
    tpm12_answer.calls = getattr(tpm12_answer, "calls", 0) + 1
    data = bytes((b + tpm12_answer.calls) & 0xff for b in data)
    return rsp(0x00c4, 0, struct.pack(">I", n) + data + tail)


def handles_answer(cmd):
    cap, prop, count = struct.unpack(">III", cmd[10:22])
    if struct.unpack(">I", cmd[6:10])[0] != 0x17a or cap != 1:
        return rsp(0x8001, 0x143)
    total = int(os.environ.get("FAKETPM_HANDLES", "2100"))
    first = prop & 0xff000000
    start = prop - first
    n = max(0, min(count, 254, total - start))
    more = 1 if start + n < total else 0
    body = struct.pack(">BII", more, 1, n)
    body += b"".join(struct.pack(">I", first + start + i) for i in range(n))
    return rsp(0x8001, 0, body)


def mutate(r, rnd):
    r = bytearray(r)
    if rnd.random() < 0.5 and len(r) > 10:
        op = rnd.randrange(4)
        if op == 0:
            for _ in range(rnd.randrange(1, 4)):
                r[rnd.randrange(10, len(r))] = rnd.randrange(256)
        elif op == 1:
            r = r[:rnd.randrange(10, len(r))]
        elif op == 2:
            r += bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 40)))
        else:
            r[rnd.randrange(10, len(r))] = rnd.choice([0, 1, 0x7f, 0x80, 0xff])
        r[2:6] = struct.pack(">I", len(r))
    return bytes(r)


def main():
    path, mode = sys.argv[1], sys.argv[2]
    log = sys.argv[3] if len(sys.argv) > 3 else None
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(4)
    seen = 0
    held = []
    rnd = random.Random(int(os.environ.get("FAKETPM_SEED", "1")))
    while True:
        c, _ = s.accept()
        while True:
            cmd = read_cmd(c)
            if cmd is None:
                break
            cc = struct.unpack(">I", cmd[6:10])[0]
            seen += 1
            if log:
                with open(log, "a") as f:
                    f.write("0x%x\n" % cc)
            if mode == "mutate":
                t = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                t.connect(os.environ["FAKETPM_TARGET"])
                t.sendall(cmd)
                r = read_cmd(t)
                t.close()
                c.sendall(mutate(r, rnd))
                continue
            if mode == "close":
                break
            if mode == "half":
                c.sendall(rsp(0x8001, 0, b"\0" * 10)[:15])
                break
            if mode == "hang":
                held.append(c)
                c = None
                break
            if mode == "hangpart":
                c.sendall(rsp(0x8001, 0, b"\0" * 10)[:6])
                held.append(c)
                c = None
                break
            if mode in ("tpm12big", "tpm12short", "tpm12trail"):
                c.sendall(tpm12_answer(cmd, mode))
                continue
            if mode == "bigrandom":
                c.sendall(random_answer(cmd, extra=1))
            elif mode == "trailing":
                c.sendall(random_answer(cmd, trailing=b"\1\2"))
            elif mode == "badsize":
                c.sendall(struct.pack(">HII", 0x8001, 9, 0))
            elif mode == "hugesize":
                c.sendall(struct.pack(">HII", 0x8001, 1 << 20, 0))
            elif mode == "tpm12":
                c.sendall(rsp(0x00c4, 0x1c))
            elif mode == "retry2":
                if seen <= 2:
                    c.sendall(rsp(0x8001, 0x922))
                else:
                    c.sendall(random_answer(cmd))
            elif mode == "retry":
                c.sendall(rsp(0x8001, 0x922))
            elif mode == "initialize":
                c.sendall(rsp(0x8001, 0x100))
            elif mode == "handles":
                c.sendall(handles_answer(cmd))
            elif mode == "full":
                if cc == 0x17a:
                    os.environ["FAKETPM_HANDLES"] = "3"
                    c.sendall(handles_answer(cmd))
                elif cc == 0x165:
                    c.sendall(rsp(0x8001, 0))
                else:
                    c.sendall(rsp(0x8001, 0x902))
            else:
                sys.exit("unknown mode " + mode)
        if c is not None:
            c.close()


if __name__ == "__main__":
    main()
