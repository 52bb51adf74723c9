#!/usr/bin/env python3
"""A TPM's FIFO interface on a simulated SPI or I2C bus, in front of swtpm.

usage: tissim.py --swtpm SOCK [--spi PATH] [--i2c PATH] [options]

Written from the TCG PC Client Platform TPM Profile (FIFO interface, SPI
hardware protocol, I2C interface), apart from tpmbox's own transport, so
that lib/tpm/tis.c, spi.c and i2c.c can be tested without a board.  It
serves tpmbox's test sockets:

  spi: per transfer, 1 flag byte (bit 0: keep the chip select asserted
       after it), a 2-byte big-endian length N, N MOSI bytes; the answer
       is N MISO bytes.
  i2c: per message, 1 op byte (0 write, 1 read), the 7-bit address, a
       2-byte big-endian length N, N bytes for a write; the answer is a
       status byte (0 ACK, 1 NACK), then N bytes for an acknowledged read.

Each TPM command (tpmGo) goes to swtpm's data socket (raw command in, raw
response out), over one connection per client.  One client at a time.

Options:
  --burst N        burstCount the TPM reports (1..65535; default 64)
  --wait N         SPI wait states: bytes polled before the ready bit
  --guard US       I2C GUARD_TIME in microseconds (0..255, an 8-bit field;
                   default 250); messages
                   that come sooner after one that needs it are counted as
                   guard_violations
  --addr A         I2C address (default 0x2e)
  --tpm12          report TPM family 1.2 in TPM_STS
  --mode MODE      normal, never-ready (commandReady never set), slow
                   (commandReady after --slow-ms), floating (every bus
                   answer 0xff), sts-damage (TPM_STS answers with
                   read-as-zero bits set), burst0 (burstCount 0 for ever),
                   expect-stuck (Expect stays 1 after a whole command),
                   expect-early (Expect 0 once any byte is in),
                   leftover (4 bytes more than the response's header
                   says), short (4 bytes fewer: dataAvail clears early),
                   fuzz (control registers' answers replaced by
                   random bytes, 1 read in --fuzz-rate, under --seed)
  --slow-ms MS     for slow (default 3500: under timeout B, 4 s)
  --nack N         NACK every Nth I2C message
  --seed S, --fuzz-rate R
  --counters FILE  per client connection, written when it closes:
                   commands, register reads and writes, SPI frames and
                   bytes, wait states, I2C messages and bytes, NACKs,
                   guard violations, command bytes taken; busy=1
                   from accept until the client is gone, then busy=0
"""
import argparse
import os
import random
import select
import signal
import socket
import struct
import sys
import time

ACCESS, INT_ENABLE, INTF_CAP, STS, FIFO, DID_VID, RID = \
    0x00, 0x08, 0x14, 0x18, 0x24, 0xF00, 0xF04
# I2C register map -> the FIFO interface's offsets
I2C_LOC_SEL, I2C_CAP = 0x00, 0x30
I2C_MAP = {0x04: ACCESS, 0x08: INT_ENABLE, 0x14: 0x14, 0x18: STS,
           0x24: FIFO, 0x48: DID_VID, 0x4C: RID}

IDLE, READY, RECEPTION, EXECUTION, COMPLETION = range(5)


class Tpm:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.swtpm = None
        self.reset_conn()

    def reset_conn(self):
        self.active = None
        self.state = IDLE
        self.cmd = b''
        self.rsp = b''
        self.roff = 0
        self.ready_at = None
        self.c = dict(commands=0, reg_reads=0, reg_writes=0, spi_frames=0,
                      spi_bytes=0, spi_wait_bytes=0, i2c_msgs=0,
                      i2c_bytes=0, nacks=0, guard_violations=0,
                      cmd_bytes=0)
        if self.swtpm:
            self.swtpm.close()
            self.swtpm = None

    # -- registers -------------------------------------------------
    def cmd_need(self):
        if len(self.cmd) < 6:
            return None
        return struct.unpack('>I', self.cmd[2:6])[0]

    def expect(self):
        if self.a.mode == 'expect-stuck':
            return 1
        if self.a.mode == 'expect-early' and self.cmd:
            return 0
        n = self.cmd_need()
        return 1 if n is None or len(self.cmd) < n else 0

    def sts(self, loc):
        if self.active != loc:
            return 0xFFFFFFFF
        if self.state == READY and self.ready_at is not None:
            if time.monotonic() >= self.ready_at:
                self.ready_at = None
            else:
                return 0x80 | self.family()      # not ready yet
        v = 0x80
        burst = 0
        if self.state == READY:
            v |= 0x40
            burst = self.a.burst
        elif self.state == RECEPTION:
            v |= self.expect() << 3
            burst = self.a.burst
        elif self.state == COMPLETION:
            left = len(self.rsp) - self.roff
            if left > 0:
                v |= 0x10
                burst = min(self.a.burst, left)
        if self.a.mode == 'burst0':
            burst = 0
        if self.a.mode == 'sts-damage':
            v |= 0x01
        return v | (burst << 8) | self.family()

    def family(self):
        return 0 if self.a.tpm12 else (1 << 26)

    def access(self, loc):
        v = 0x80
        if self.active == loc:
            v |= 0x20
        elif self.active is not None:
            v |= 0x04 if False else 0
        return v

    def value(self, loc, reg):
        if reg == ACCESS:
            return self.access(loc), 1
        if reg == STS:
            return self.sts(loc), 4
        if reg == INTF_CAP:
            return (3 << 28) | (3 << 9) | (1 << 8), 4
        if reg == DID_VID:
            return self.a.did_vid, 4
        if reg == RID:
            return 0x16, 1
        return 0, 4

    def reg_read(self, loc, reg, n):
        self.c['reg_reads'] += 1
        if reg == FIFO:
            out = bytearray()
            for _ in range(n):
                if self.active == loc and self.state == COMPLETION and \
                        self.roff < len(self.rsp):
                    out.append(self.rsp[self.roff])
                    self.roff += 1
                else:
                    out.append(0)
            return bytes(out)
        base = reg
        for r in (ACCESS, STS, INTF_CAP, DID_VID, RID):
            if r <= reg < r + 4:
                base = r
        v, _ = self.value(loc, base)
        data = struct.pack('<I', v & 0xFFFFFFFF)[reg - base:] + b'\0' * n
        data = data[:n]
        if self.a.mode == 'fuzz' and reg in (ACCESS, STS) and \
                self.rng.randrange(self.a.fuzz_rate) == 0:
            data = bytes(self.rng.randrange(256) for _ in range(n))
        return data

    def reg_write(self, loc, reg, data):
        self.c['reg_writes'] += 1
        if reg == ACCESS and data:
            b = data[0]
            if b & 0x02 and self.active is None:
                self.active = loc
            if b & 0x20 and self.active == loc:
                self.active = None
                self.state = IDLE
            return
        if self.active != loc:
            return
        if reg == STS and data:
            b = data[0]
            if b & 0x40:
                self.command_ready()
            if b & 0x20 and self.state == RECEPTION and \
                    (self.expect() == 0 or self.a.mode == 'expect-stuck'):
                self.execute()
            return
        if reg == FIFO:
            if self.state == READY and self.ready_at is None:
                self.state = RECEPTION
                self.cmd = b''
            if self.state == RECEPTION:
                self.cmd += data
                self.c['cmd_bytes'] += len(data)

    def command_ready(self):
        if self.a.mode == 'never-ready':
            self.state = IDLE
            return
        if self.state == RECEPTION or self.state == EXECUTION:
            self.state = IDLE           # abort; ready at the next write
            return
        if self.state == READY:
            return
        self.state = READY
        self.cmd = b''
        self.rsp = b''
        self.roff = 0
        if self.a.mode == 'slow':
            self.ready_at = time.monotonic() + self.a.slow_ms / 1000.0

    def execute(self):
        self.state = EXECUTION
        self.c['commands'] += 1
        self.rsp = self.forward(self.cmd)
        if self.a.mode == 'leftover':
            self.rsp += b'\xde\xad\xbe\xef'
        if self.a.mode == 'short':
            self.rsp = self.rsp[:-4]
        self.roff = 0
        self.state = COMPLETION

    def forward(self, cmd):
        if self.swtpm is None:
            self.swtpm = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.swtpm.connect(self.a.swtpm)
        self.swtpm.sendall(cmd)
        rsp = b''
        need = 10
        while len(rsp) < need:
            chunk = self.swtpm.recv(65536)
            if not chunk:
                raise EOFError('swtpm closed')
            rsp += chunk
            if len(rsp) >= 6:
                need = struct.unpack('>I', rsp[2:6])[0]
        return rsp


def recv_exact(s, n):
    b = b''
    while len(b) < n:
        chunk = s.recv(n - len(b))
        if not chunk:
            raise EOFError
        b += chunk
    return b


class Spi:
    """Frames of the SPI hardware protocol, fed byte by byte."""

    def __init__(self, tpm, a):
        self.tpm, self.a = tpm, a
        self.cs_end()

    def cs_end(self):
        if getattr(self, 'phase', None) == 'data' and not self.rd and \
                self.data:
            self.finish_write()
        self.phase = 'hdr'
        self.hdr = b''
        self.data = b''
        self.rd = False
        self.out = b''

    def finish_write(self):
        self.tpm.reg_write(self.loc, self.reg, bytes(self.data))
        self.phase = 'done'

    def byte(self, mosi):
        if self.phase == 'hdr':
            self.hdr += bytes([mosi])
            if len(self.hdr) < 4:
                return 0
            self.tpm.c['spi_frames'] += 1
            self.rd = bool(self.hdr[0] & 0x80)
            self.n = (self.hdr[0] & 0x3F) + 1
            addr = int.from_bytes(self.hdr[1:4], 'big')
            self.loc = (addr >> 12) & 0xF
            self.reg = addr & 0xFFF
            self.waits = self.a.wait
            if self.waits == 0:
                self.start_data()
                return 1
            self.phase = 'wait'
            return 0
        if self.phase == 'wait':
            self.tpm.c['spi_wait_bytes'] += 1
            self.waits -= 1
            if self.waits == 0:
                self.start_data()
                return 1
            return 0
        if self.phase == 'data':
            i = len(self.data)
            self.data += bytes([mosi])
            v = self.out[i] if self.rd and i < len(self.out) else 0
            if len(self.data) == self.n:
                if not self.rd:
                    self.finish_write()
                else:
                    self.phase = 'done'
            return v
        return 0            # clocked past the frame

    def start_data(self):
        self.phase = 'data'
        if self.rd:
            self.out = self.tpm.reg_read(self.loc, self.reg, self.n)

    def serve(self, s):
        hdr = recv_exact(s, 3)
        keep = hdr[0] & 1
        n = struct.unpack('>H', hdr[1:3])[0]
        mosi = recv_exact(s, n)
        self.tpm.c['spi_bytes'] += n
        if self.a.mode == 'floating':
            s.sendall(b'\xff' * n)
            return
        miso = bytes(self.byte(b) for b in mosi)
        if not keep:
            self.cs_end()
        s.sendall(miso)


class I2c:
    GT_WW, GT_WR, GT_RW, GT_RR = 1 << 17, 1 << 18, 1 << 19, 1 << 20

    def __init__(self, tpm, a):
        self.tpm, self.a = tpm, a
        self.loc = 0
        self.reg = 0
        self.n = 0
        self.last = None        # (was read, time it ended)
        self.cap_read = False
        self.cap = (a.guard << 9) | self.GT_WW | self.GT_WR | \
            self.GT_RW | self.GT_RR

    def check_guard(self, rd):
        # the client knows the guard time once it has read it (until
        # then the PTP's default, 250 us)
        if self.last is None or not self.cap_read:
            return
        lrd, t = self.last
        pair = (self.GT_RR if rd else self.GT_RW) if lrd else \
            (self.GT_WR if rd else self.GT_WW)
        if self.cap & pair and (time.monotonic() - t) * 1e6 < self.a.guard:
            self.tpm.c["guard_violations"] += 1

    def serve(self, s):
        hdr = recv_exact(s, 4)
        rd, addr = hdr[0], hdr[1]
        n = struct.unpack('>H', hdr[2:4])[0]
        data = recv_exact(s, n) if rd == 0 else b''
        c = self.tpm.c
        c['i2c_msgs'] += 1
        c['i2c_bytes'] += 1 + n
        self.check_guard(rd)
        # when the answer leaves (taken before it is sent: the client
        # may get it, wait and send again before this process runs on)
        self.last = (rd, time.monotonic())
        nack = addr != self.a.addr or n > 32 or \
            (self.a.nack and c['i2c_msgs'] % self.a.nack == 0)
        if nack:
            c['nacks'] += 1
            s.sendall(b'\x01')
        elif self.a.mode == 'floating':
            s.sendall(b'\x00' + (b'\xff' * n if rd else b''))
        elif rd:
            ans = b'\x00' + self.read(n)
            self.last = (rd, time.monotonic())
            s.sendall(ans)
        else:
            self.write(data)
            self.last = (rd, time.monotonic())
            s.sendall(b'\x00')

    def write(self, data):
        if not data:
            return
        self.reg = data[0]
        body = data[1:]
        if not body:
            return
        if self.reg == I2C_LOC_SEL:
            self.loc = body[0] & 0x7
            return
        r = I2C_MAP.get(self.reg)
        if r is not None:
            self.tpm.reg_write(self.loc, r, body)

    def read(self, n):
        if self.reg == I2C_LOC_SEL:
            return bytes([self.loc]) + b'\0' * (n - 1)
        if self.reg == I2C_CAP:
            self.tpm.c['reg_reads'] += 1
            self.cap_read = True
            return (struct.pack('<I', self.cap) + b'\0' * n)[:n]
        r = I2C_MAP.get(self.reg)
        if r is None:
            return b'\0' * n
        return self.tpm.reg_read(self.loc, r, n)


def listen(path):
    if not path:
        return None
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(4)
    return s


def write_counters(a, tpm, busy):
    if not a.counters:
        return
    tmp = a.counters + '.tmp'
    with open(tmp, 'w') as f:
        for k, v in tpm.c.items():
            f.write('%s=%d\n' % (k, v))
        # busy=1 from accept until the client has gone: a reader waits
        # for busy=0 to see this client's final counts
        f.write('busy=%d\n' % busy)
    os.replace(tmp, a.counters)


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--swtpm', required=True)
    p.add_argument('--spi')
    p.add_argument('--i2c')
    p.add_argument('--burst', type=int, default=64)
    p.add_argument('--wait', type=int, default=0)
    p.add_argument('--guard', type=int, default=250)
    p.add_argument('--addr', type=lambda x: int(x, 0), default=0x2E)
    p.add_argument('--tpm12', action='store_true')
    p.add_argument('--mode', default='normal',
                   choices=['normal', 'never-ready', 'slow', 'floating',
                            'sts-damage', 'burst0', 'expect-stuck',
                            'expect-early', 'short',
                            'leftover', 'fuzz'])
    p.add_argument('--slow-ms', type=int, default=3500)
    p.add_argument('--nack', type=int, default=0)
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--fuzz-rate', type=int, default=8)
    p.add_argument('--did-vid', type=lambda x: int(x, 0),
                   default=0x001B15D1)
    p.add_argument('--counters')
    a = p.parse_args()
    if not 0 <= a.guard <= 255:
        p.error('--guard: 0 to 255 (GUARD_TIME is 8 bits)')
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    tpm = Tpm(a)
    ls = {}
    for kind, path in (('spi', a.spi), ('i2c', a.i2c)):
        s = listen(path)
        if s:
            ls[s] = kind
    while True:
        r, _, _ = select.select(list(ls), [], [])
        for srv in r:
            conn, _ = srv.accept()
            tpm.reset_conn()
            write_counters(a, tpm, 1)
            bus = Spi(tpm, a) if ls[srv] == 'spi' else I2c(tpm, a)
            try:
                while True:
                    bus.serve(conn)
            except (EOFError, ConnectionError, OSError):
                pass
            conn.close()
            # what a process leaves behind: its locality given back
            write_counters(a, tpm, 0)
            tpm.reset_conn()


if __name__ == '__main__':
    main()
