"""Write pnpkit's own CMYK output profile, src/pnpkit/icc/pnpkit-coated-cmyk.icc (MIT, like pnpkit).

No freely redistributable CMYK profile of a standard press condition reaches us
through PyPI or Debian (Debian's icc-profiles-free and colord-data are RGB and
grey only; Ghostscript's CMYK profiles are AGPL), so pnpkit ships a profile it
computes itself from a small press model:

* Yule-Nielsen modified Neugebauer (n = 2, which stands in for dot gain) over
  16 primaries whose CIELAB values approximate coated offset paper, ISO
  12647-2 paper type 1 (the FOGRA39 kind of condition). It is an approximation,
  NOT a characterisation: the OutputIntent names it "Custom", and a publisher
  whose printer gives a profile should set `icc:` in the export profile.
* Separation (B2A0): medium grey-component replacement, total ink at most
  300 %, out-of-gamut colours clipped to the nearest reachable one (ΔE76).

ICC v2 output ('prtr') profile, CMYK data, Lab PCS, lut16 tables:
A2B0/1/2 share one 9^4 grid, B2A0/1/2 one 17^3 grid, and gamt. Pure Python
(takes about half a minute); run `python scripts/make_cmyk_icc.py` after changing the model.
"""

from __future__ import annotations

import argparse
import math
import struct
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "pnpkit" / "icc" / "pnpkit-coated-cmyk.icc"
D50 = (0.9642, 1.0, 0.8249)
TAC = 3.0  # 300 %
YN = 2.0  # Yule-Nielsen n
A2B_GRID, B2A_GRID = 9, 17

# Absolute CIELAB (D50) of the 16 Neugebauer primaries, keyed by the inks present (c, m, y, k).
# Paper and the solids and two-colour overprints are close to ISO 12647-2 PT1 aims; the
# overprints with black are estimates (all of them are dark, where the eye forgives most).
PRIMARIES = {
    (0, 0, 0, 0): (95.0, 0.0, -2.0),
    (1, 0, 0, 0): (55.0, -37.0, -50.0),
    (0, 1, 0, 0): (48.0, 74.0, -3.0),
    (0, 0, 1, 0): (89.0, -5.0, 93.0),
    (0, 1, 1, 0): (47.0, 68.0, 48.0),
    (1, 0, 1, 0): (50.0, -65.0, 27.0),
    (1, 1, 0, 0): (24.0, 22.0, -46.0),
    (1, 1, 1, 0): (23.0, 0.0, 0.0),
    (0, 0, 0, 1): (16.0, 0.0, 0.0),
    (1, 0, 0, 1): (13.0, -7.0, -10.0),
    (0, 1, 0, 1): (12.0, 10.0, 0.0),
    (0, 0, 1, 1): (15.0, 0.0, 8.0),
    (0, 1, 1, 1): (11.0, 8.0, 5.0),
    (1, 0, 1, 1): (11.0, -8.0, 2.0),
    (1, 1, 0, 1): (9.0, 2.0, -6.0),
    (1, 1, 1, 1): (6.0, 0.0, 0.0),
}


def lab_to_xyz(lab):
    L, a, b = lab
    fy = (L + 16) / 116
    fx, fz = fy + a / 500, fy - b / 200

    def f_inv(t):
        return t**3 if t > 6 / 29 else 3 * (6 / 29) ** 2 * (t - 4 / 29)

    return tuple(w * f_inv(t) for w, t in zip(D50, (fx, fy, fz)))


def xyz_to_lab(xyz):
    def f(t):
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = (f(v / w) for v, w in zip(xyz, D50))
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


PAPER = lab_to_xyz(PRIMARIES[(0, 0, 0, 0)])
# Relative colorimetry: scale XYZ so paper is the PCS white (paper maps to L* 100).
_PRIM = [
    (key, tuple((v * w / p) ** (1 / YN) for v, w, p in zip(lab_to_xyz(lab), D50, PAPER)))
    for key, lab in PRIMARIES.items()
]


def forward(c, m, y, k):
    """Relative CIELAB of ink amounts 0..1 (Demichel weights, Yule-Nielsen n)."""
    acc = [0.0, 0.0, 0.0]
    inks = (c, m, y, k)
    for key, xyz in _PRIM:
        w = 1.0
        for on, amount in zip(key, inks):
            w *= amount if on else 1 - amount
        if w:
            for i in range(3):
                acc[i] += w * xyz[i]
    return xyz_to_lab(tuple(v**YN for v in acc))


def black_aim(L, a, b):
    """How much K a colour should carry: medium GCR, none in light or colourful tones."""
    neutral = max(0.0, 1 - math.hypot(a, b) / 60)
    dark = min(1.0, max(0.0, (72 - L) / 72))
    return neutral * dark**1.3


def _project(x):
    x = [min(1.0, max(0.0, v)) for v in x]
    total = sum(x)
    if total > TAC:  # over the ink limit: take the excess out of C, M and Y, keep K
        cmy = sum(x[:3])
        scale = max(0.0, (TAC - x[3]) / cmy) if cmy else 0.0
        x = [v * scale for v in x[:3]] + [x[3]]
    return x


def _solve4(A, r):
    """Solve the 4x4 system A d = r (Gaussian elimination with partial pivoting)."""
    n = 4
    M = [row[:] + [r[i]] for i, row in enumerate(A)]
    for col in range(n):
        piv = max(range(col, n), key=lambda i: abs(M[i][col]))
        M[col], M[piv] = M[piv], M[col]
        if abs(M[col][col]) < 1e-12:
            continue
        for i in range(col + 1, n):
            f = M[i][col] / M[col][col]
            for j in range(col, n + 1):
                M[i][j] -= f * M[col][j]
    d = [0.0] * n
    for i in reversed(range(n)):
        s = M[i][n] - sum(M[i][j] * d[j] for j in range(i + 1, n))
        d[i] = s / M[i][i] if abs(M[i][i]) > 1e-12 else 0.0
    return d


def separate(target, start):
    """CMYK (0..1) for a relative Lab target: Levenberg-Marquardt on ΔE plus a pull toward the K
    aim."""
    kg = black_aim(*target)
    weight = 12.0

    def residual(x):
        lab = forward(*x)
        return [lab[0] - target[0], lab[1] - target[1], lab[2] - target[2], weight * (x[3] - kg)]

    x = _project(list(start))
    r = residual(x)
    mu = 1e-3
    for _ in range(40):
        J = []
        for j in range(4):
            h = 1e-4
            xp = x[:]
            xp[j] += h
            rp = residual(xp)
            J.append([(rp[i] - r[i]) / h for i in range(4)])  # J[j][i] = d r_i / d x_j
        JtJ = [
            [sum(J[a][i] * J[b][i] for i in range(4)) + (mu if a == b else 0) for b in range(4)]
            for a in range(4)
        ]
        Jtr = [-sum(J[a][i] * r[i] for i in range(4)) for a in range(4)]
        step = _solve4(JtJ, Jtr)
        trial = _project([x[i] + step[i] for i in range(4)])
        rt = residual(trial)
        if sum(v * v for v in rt) < sum(v * v for v in r):
            moved = max(abs(a - b) for a, b in zip(trial, x))
            x, r, mu = trial, rt, mu * 0.3
            if moved < 1e-5:
                break
        else:
            mu *= 10
            if mu > 1e6:
                break
    error = math.sqrt(sum(v * v for v in r[:3]))
    return x, error


# ---------------------------------------------------------------- ICC encoding


def _s15(v):
    return struct.pack(">i", round(v * 65536))


def _u16(v):
    return struct.pack(">H", max(0, min(65535, round(v))))


def _lab16(lab):
    """Legacy (ICC v2) 16-bit Lab: L 0..100 -> 0..0xFF00, a and b -128..128 -> 0..0xFFFF."""
    L, a, b = lab
    return _u16(L * 652.8) + _u16((a + 128) * 256) + _u16((b + 128) * 256)


def _lut16(n_in, n_out, grid, clut: bytes):
    identity = [1, 0, 0, 0, 1, 0, 0, 0, 1]
    head = b"mft2" + b"\0" * 4 + bytes([n_in, n_out, grid, 0]) + b"".join(_s15(v) for v in identity)
    head += struct.pack(">HH", 2, 2)  # two-entry (identity) input and output curves
    curves_in = (_u16(0) + _u16(65535)) * n_in
    curves_out = (_u16(0) + _u16(65535)) * n_out
    return head + curves_in + clut + curves_out


def _text_desc(text):
    ascii_ = text.encode("ascii") + b"\0"
    return (
        b"desc"
        + b"\0" * 4
        + struct.pack(">I", len(ascii_))
        + ascii_
        + struct.pack(">II", 0, 0)
        + struct.pack(">HB", 0, 0)
        + b"\0" * 67
    )


def _text(text):
    return b"text" + b"\0" * 4 + text.encode("ascii") + b"\0"


def _xyz(xyz):
    return b"XYZ " + b"\0" * 4 + b"".join(_s15(v) for v in xyz)


def _lab_of_grid(i, j, k, n):
    v = [x * 65535 / (n - 1) for x in (i, j, k)]
    return (v[0] / 652.8, v[1] / 256 - 128, v[2] / 256 - 128)


def tables():
    a2b = bytearray()
    steps = [i / (A2B_GRID - 1) for i in range(A2B_GRID)]
    for c in steps:  # first input varies slowest, as ICC orders a CLUT
        for m in steps:
            for y in steps:
                for k in steps:
                    a2b += _lab16(forward(c, m, y, k))
    b2a, gamt = bytearray(), bytearray()
    start = [0.0, 0.0, 0.0, 0.0]
    n = B2A_GRID
    for i in range(n):
        for j in range(n):
            row_start = start
            for k in range(n):
                target = _lab_of_grid(i, j, k, n)
                cmyk, error = separate(target, start)
                start = cmyk
                b2a += b"".join(_u16(v * 65535) for v in cmyk)
                gamt += _u16(65535 if error > 2.5 else 0)
            start = row_start
        print(f"B2A row {i + 1}/{n}", file=sys.stderr)
    return bytes(a2b), bytes(b2a), bytes(gamt)


def profile_bytes():
    a2b, b2a, gamt = tables()
    a2b_tag = _lut16(4, 3, A2B_GRID, a2b)
    b2a_tag = _lut16(3, 4, B2A_GRID, b2a)
    gamt_tag = _lut16(3, 1, B2A_GRID, gamt)
    paper = PAPER
    data = [
        (b"desc", _text_desc("pnpkit coated CMYK (approximation of ISO 12647-2 PT1, 300% TAC)")),
        (b"cprt", _text("Generated by pnpkit scripts/make_cmyk_icc.py; MIT licence, no warranty.")),
        (b"wtpt", _xyz(paper)),
        (b"A2B0", a2b_tag),
        (b"B2A0", b2a_tag),
        (b"gamt", gamt_tag),
    ]
    shared = {b"A2B1": b"A2B0", b"A2B2": b"A2B0", b"B2A1": b"B2A0", b"B2A2": b"B2A0"}
    count = len(data) + len(shared)
    offset = 128 + 4 + 12 * count
    table, body, where = b"", b"", {}
    for sig, blob in data:
        while len(blob) % 4:
            blob += b"\0"
        where[sig] = (offset + len(body), len(blob))
        body += blob
    for sig in [s for s, _ in data] + list(shared):
        pos, size = where[shared.get(sig, sig)]
        table += sig + struct.pack(">II", pos, size)
    size = offset + len(body)
    header = (
        struct.pack(">I", size) + b"lcms" + bytes([2, 0x10, 0, 0]) + b"prtr" + b"CMYK" + b"Lab "
    )
    header += struct.pack(">6H", 2026, 1, 1, 0, 0, 0) + b"acsp" + b"\0" * 4 + struct.pack(">I", 0)
    header += b"\0" * 4 + b"\0" * 4 + b"\0" * 8 + struct.pack(">I", 0)
    header += b"".join(_s15(v) for v in D50) + b"pnpk" + b"\0" * 44
    assert len(header) == 128, len(header)
    return header + struct.pack(">I", count) + table + body


if __name__ == "__main__":
    # no options, but --help must explain rather than overwrite the shipped profile
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(profile_bytes())
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")
