"""Path segments in user space: the basic shapes' outlines, path data (`d`) and its arcs,
and segments moved by a transform."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from types import MappingProxyType
from typing import cast

from pnpkit import workspace
from pnpkit.svg.ops import Matrix, SegList, Segs
from pnpkit.svg.values import _NUM, _NUM_RE, _SEPS, MAX_NUMBER, _numbers

_KAPPA = 0.5522847498  # control-point distance of a quarter-circle Bézier, per unit radius
_PATH_ARGC = MappingProxyType(
    {"m": 2, "l": 2, "h": 1, "v": 1, "c": 6, "s": 4, "q": 4, "t": 2, "a": 7, "z": 0}
)
_ARC_RE = re.compile(r"[\s,]*".join([_NUM] * 3 + ["[01]"] * 2 + [_NUM] * 2) + r"[\s,]*")

# Path segments are (PDFPathObject method name, args) pairs in user space.


def _rect_segs(x: float, y: float, w: float, h: float, rx: float = 0.0, ry: float = 0.0) -> SegList:
    r, b = x + w, y + h
    if not (rx and ry):
        return [
            ("moveTo", (x, y)),
            ("lineTo", (r, y)),
            ("lineTo", (r, b)),
            ("lineTo", (x, b)),
            ("close", ()),
        ]
    kx, ky = rx * (1 - _KAPPA), ry * (1 - _KAPPA)
    return [
        ("moveTo", (x + rx, y)),
        ("lineTo", (r - rx, y)),
        ("curveTo", (r - kx, y, r, y + ky, r, y + ry)),
        ("lineTo", (r, b - ry)),
        ("curveTo", (r, b - ky, r - kx, b, r - rx, b)),
        ("lineTo", (x + rx, b)),
        ("curveTo", (x + kx, b, x, b - ky, x, b - ry)),
        ("lineTo", (x, y + ry)),
        ("curveTo", (x, y + ky, x + kx, y, x + rx, y)),
        ("close", ()),
    ]


def _ellipse_segs(cx: float, cy: float, rx: float, ry: float) -> SegList:
    kx, ky = rx * _KAPPA, ry * _KAPPA
    return [
        ("moveTo", (cx + rx, cy)),
        ("curveTo", (cx + rx, cy + ky, cx + kx, cy + ry, cx, cy + ry)),
        ("curveTo", (cx - kx, cy + ry, cx - rx, cy + ky, cx - rx, cy)),
        ("curveTo", (cx - rx, cy - ky, cx - kx, cy - ry, cx, cy - ry)),
        ("curveTo", (cx + kx, cy - ry, cx + rx, cy - ky, cx + rx, cy)),
        ("close", ()),
    ]


def _poly_segs(value: str, closed: bool) -> SegList:
    pts = _numbers(value, "points")
    if len(pts) % 2 or not pts:
        raise ValueError(f"points need an even, non-zero count of numbers (got '{value}')")
    segs: SegList = [
        ("moveTo" if i == 0 else "lineTo", (pts[i], pts[i + 1])) for i in range(0, len(pts), 2)
    ]
    return [*segs, ("close", ())] if closed else segs


def _check_path_data(d: str) -> None:
    """Reject path data that normalise_svg_path would silently truncate or misread."""
    parts = re.split(r"([MmLlHhVvCcSsQqTtAaZz])", d)
    if parts[0].strip(_SEPS) or (len(parts) > 1 and parts[1] not in "Mm"):
        raise ValueError(f"path data must start with M or m (got '{d[:20]}')")
    for cmd, args in zip(parts[1::2], parts[2::2], strict=True):
        if cmd in "Aa":
            pos = len(args) - len(args.lstrip(_SEPS))
            while pos < len(args) and (match := _ARC_RE.match(args, pos)):
                pos = match.end()
            ok = pos == len(args) and args.strip(_SEPS)
        else:
            count, argc = len(_NUM_RE.findall(args)), _PATH_ARGC[cmd.lower()]
            ok = not _NUM_RE.sub("", args).strip(_SEPS) and (
                count % argc == 0 and count if argc else not count
            )
        if not ok:
            raise ValueError(f"bad arguments '{args.strip()}' for '{cmd}' in path data")
        if not all(abs(float(n)) <= MAX_NUMBER for n in _NUM_RE.findall(args)):
            raise ValueError(
                f"bad arguments '{args.strip()[:40]}' for '{cmd}' in "
                f"path data (each at most {MAX_NUMBER:g} either way)"
            )


# Path data split at its commands, each command's numbers found by its pattern and taken in
# groups of the command's count of arguments; an arc's flags are one digit each ("a1 1 0 01 5 5").
_COMMANDS_RE = re.compile("([achlmqstvz])", re.I)
_FLOATS_RE = re.compile(r"(-?\d*\.?\d*(?:[eE][+-]?\d+)?)")
_ARC_ARGS_RE = re.compile(
    r"[\s,]*" + r"[\s,]*".join([f"({_NUM})"] * 3 + ["([01])"] * 2 + [f"({_NUM})"] * 2)
)


def _normalised(d: str) -> list[str | list[float]]:
    """Each command of the path data (checked: _check_path_data) followed by its numbers, a
    move's further pairs lines."""
    result: list[str | list[float]] = []
    op = ""
    for item in _COMMANDS_RE.split(d.strip()):
        if not item.strip():
            continue
        if len(item) == 1 and item.lower() in _PATH_ARGC:
            op = item
            if not _PATH_ARGC[op.lower()]:  # Z, z
                result += [op, []]
            continue
        argc = _PATH_ARGC[op.lower()]
        if argc == 7:  # an arc: its flags need not be apart from what follows them
            at = 0
            while match := _ARC_ARGS_RE.match(item, at):
                result += [op, [float(number) for number in match.groups()]]
                at = match.end()
            op = cast(str, result[-2])
            continue
        floats = [float(number) for number in _FLOATS_RE.findall(item) if number]
        for i in range(0, len(floats), argc):
            if i > 0 and op in ("m", "M"):
                op = "l" if op == "m" else "L"
            result += [op, floats[i : i + argc]]
        op = cast(str, result[-2])
    return result


@workspace.memoized(1024)  # a deck's cards share most of their path data
def _path_segs(d: str) -> Segs:
    _check_path_data(d)
    items = _normalised(d)
    segs: SegList = []
    x, y, start = 0.0, 0.0, (0.0, 0.0)
    cubic: tuple[float, float] | None = None
    quad: tuple[float, float] | None = None  # last control points, reflected by S and T
    # normalise_svg_path alternates a command and its numbers
    for cmd, a in zip(
        cast(list[str], items[::2]), cast(list[list[float]], items[1::2]), strict=True
    ):
        op, rel = cmd.upper(), cmd.islower()
        dx, dy = (x, y) if rel else (0.0, 0.0)
        next_cubic = next_quad = None
        if op in "ML":
            x, y = a[0] + dx, a[1] + dy
            segs.append(("moveTo" if op == "M" else "lineTo", (x, y)))
            start = (x, y) if op == "M" else start
        elif op == "H":
            x = a[0] + dx
            segs.append(("lineTo", (x, y)))
        elif op == "V":
            y = a[0] + dy
            segs.append(("lineTo", (x, y)))
        elif op in "CS":
            seg, (x, y), next_cubic = _cubic(op, a, x, y, dx, dy, cubic)
            segs.append(seg)
        elif op in "QT":
            seg, (x, y), next_quad = _quadratic(op, a, x, y, dx, dy, quad)
            segs.append(seg)
        elif op == "A":
            end = (a[5] + dx, a[6] + dy)
            if a[0] and a[1]:
                arc = _arc_curves((x, y), abs(a[0]), abs(a[1]), a[2], bool(a[3]), bool(a[4]), end)
                segs.extend(("curveTo", curve) for curve in arc)
            else:  # a zero radius makes a straight line (SVG implementation notes)
                segs.append(("lineTo", end))
            x, y = end
        else:  # Z
            segs.append(("close", ()))
            x, y = start
        cubic, quad = next_cubic, next_quad
    return tuple(segs)


Point = tuple[float, float]
Seg = tuple[str, tuple[float, ...]]


def _cubic(
    op: str, a: list[float], x: float, y: float, dx: float, dy: float, cubic: Point | None
) -> tuple[Seg, Point, Point]:
    """C or S from (x, y): its curveTo, its end and its second control point (S reflects the
    previous one)."""
    c1 = (
        (a[0] + dx, a[1] + dy)
        if op == "C"
        else (2 * x - cubic[0], 2 * y - cubic[1])
        if cubic
        else (x, y)
    )
    x2, y2, x, y = (v + (dx, dy)[i % 2] for i, v in enumerate(a[-4:]))
    return ("curveTo", (*c1, x2, y2, x, y)), (x, y), (x2, y2)


def _quadratic(
    op: str, a: list[float], x: float, y: float, dx: float, dy: float, quad: Point | None
) -> tuple[Seg, Point, Point]:
    """Q or T from (x, y) as the same curve in cubic form: its curveTo, its end and its control
    point (T reflects the previous one)."""
    q = (
        (a[0] + dx, a[1] + dy)
        if op == "Q"
        else (2 * x - quad[0], 2 * y - quad[1])
        if quad
        else (x, y)
    )
    end = (a[-2] + dx, a[-1] + dy)
    # the same curve as a cubic: its control points two thirds of the way to q
    c1 = (x + 2 / 3 * (q[0] - x), y + 2 / 3 * (q[1] - y))
    c2 = (c1[0] + 1 / 3 * (end[0] - x), c1[1] + 1 / 3 * (end[1] - y))
    return ("curveTo", (*c1, *c2, *end)), end, q


def _arc_curves(
    start: tuple[float, float],
    rx: float,
    ry: float,
    phi: float,
    large: bool,
    sweep: bool,
    end: tuple[float, float],
) -> list[tuple[float, ...]]:
    """An SVG elliptical arc as cubic curves (control points and end), each of at most 90°:
    its centre and angles from its end points as the SVG 1.1 implementation notes give them
    (F.6.5; radii too small for the end points scaled up, F.6.6), then each piece's control
    points along the tangents at its ends (4/3 tan(piece/4) of them). None when the ends meet."""
    (x1, y1), (x2, y2) = start, end
    if start == end:
        return []
    cos_phi, sin_phi = math.cos(math.radians(phi)), math.sin(math.radians(phi))
    hx, hy = (x1 - x2) / 2, (y1 - y2) / 2
    xp, yp = cos_phi * hx + sin_phi * hy, -sin_phi * hx + cos_phi * hy  # the start, unrotated
    excess = (xp / rx) ** 2 + (yp / ry) ** 2
    if excess > 1:
        rx, ry = rx * math.sqrt(excess), ry * math.sqrt(excess)
    spread = (rx * yp) ** 2 + (ry * xp) ** 2
    root = math.sqrt(max(0.0, (rx * ry) ** 2 - spread) / spread)
    if large == sweep:
        root = -root
    cxp, cyp = root * rx * yp / ry, -root * ry * xp / rx
    cx = cos_phi * cxp - sin_phi * cyp + (x1 + x2) / 2
    cy = sin_phi * cxp + cos_phi * cyp + (y1 + y2) / 2
    ux, uy, vx, vy = (xp - cxp) / rx, (yp - cyp) / ry, (-xp - cxp) / rx, (-yp - cyp) / ry
    theta = math.atan2(uy, ux)
    extent = math.atan2(ux * vy - uy * vx, ux * vx + uy * vy)
    if sweep and extent < 0:
        extent += 2 * math.pi
    elif not sweep and extent > 0:
        extent -= 2 * math.pi
    pieces = max(1, math.ceil(abs(extent) / (math.pi / 2) - 1e-6))  # a half turn: 2
    step = extent / pieces
    k = 4 / 3 * math.tan(step / 4)

    def at(t: float) -> tuple[float, float, float, float]:
        """The point of the ellipse at angle t and its tangent (d/dt)."""
        c, s = math.cos(t), math.sin(t)
        return (
            cx + rx * c * cos_phi - ry * s * sin_phi,
            cy + rx * c * sin_phi + ry * s * cos_phi,
            -rx * s * cos_phi - ry * c * sin_phi,
            -rx * s * sin_phi + ry * c * cos_phi,
        )

    curves: list[tuple[float, ...]] = []
    px, py, dpx, dpy = at(theta)
    for n in range(1, pieces + 1):
        qx, qy, dqx, dqy = at(theta + n * step)
        curves.append((px + k * dpx, py + k * dpy, qx - k * dqx, qy - k * dqy, qx, qy))
        px, py, dpx, dpy = qx, qy, dqx, dqy
    return curves


def _transform_segs(segs: Iterable[tuple[str, tuple[float, ...]]], m: Matrix) -> SegList:
    a, b, c, d, e, f = m
    return [
        (
            name,
            tuple(
                v
                for i in range(0, len(args), 2)
                for v in (a * args[i] + c * args[i + 1] + e, b * args[i] + d * args[i + 1] + f)
            ),
        )
        for name, args in segs
    ]
