#!/usr/bin/env python3
"""Terminal text of a QR code (totp enroll --qr MODE) to a PGM image.

usage: qrimg.py MODE OUT.pgm < text
MODE: utf8 (half blocks: the glyphs are light modules, a space two dark
ones), ansi (ESC[40m dark / ESC[47m light backgrounds, two spaces a
module), ascii ("##" dark, two spaces light).  Lines from the first
"otpauth:" on are not the code.  Each module becomes an 8x8 block; the
module matrix (1 = dark) also goes to OUT.pgm.txt for comparisons."""
import re
import sys

mode, out = sys.argv[1], sys.argv[2]
rows = []
for line in sys.stdin.read().split("\n"):
    if line.startswith("otpauth:"):
        break
    if not line:
        continue
    if mode == "ascii":
        rows.append([1 if line[i:i + 2] == "##" else 0
                     for i in range(0, len(line), 2)])
    elif mode == "utf8":
        top, bot = [], []
        for ch in line:
            t, b = {"\u2588": (0, 0), "\u2580": (0, 1), "\u2584": (1, 0),
                    " ": (1, 1)}[ch]
            top.append(t)
            bot.append(b)
        rows += [top, bot]
    elif mode == "ansi":
        row, dark = [], None
        for tok in re.findall(r"\x1b\[(\d+)m|(  )", line):
            if tok[0] == "40":
                dark = 1
            elif tok[0] == "47":
                dark = 0
            elif tok[1]:
                row.append(dark)
        rows.append(row)
    else:
        sys.exit("unknown mode " + mode)
w = max(len(r) for r in rows)
if mode == "utf8" and rows and all(rows[-1]):
    rows.pop()   # the half row past the quiet zone (terminal background)
S = 8
with open(out, "wb") as f:
    f.write(b"P5\n%d %d\n255\n" % (w * S, len(rows) * S))
    for r in rows:
        line = bytes(0 if (r[i] if i < len(r) else 0) else 255
                     for i in range(w) for _ in range(S))
        f.write(line * S)
with open(out + ".txt", "w") as f:
    for r in rows:
        f.write("".join("##" if m else "  " for m in r).rstrip() + "\n")
