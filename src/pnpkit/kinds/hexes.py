"""Hex tiles: geometry for templates and a packer that lays hexes edge to edge, sharing cut lines.

A hex face's `size` is the box around the hex. Its shorter side is the distance
across the flats (flat-to-flat, the size people quote for hex tiles); its longer
side is the distance across the corners, flat x 2/sqrt(3). A face wider than tall
is flat-topped (flat edges at the top and bottom); one taller than wide is
pointy-topped. A hex 50 mm across the flats is `size: 57.74x50mm` or `50x57.74mm`.

The packer puts the hexes of a page on one lattice, so neighbours share every
edge: one cut separates two tiles. Each placement is clipped to its hex, grown
by the bleed only on the sides where no neighbour lies; the page's `lines` are
the hex edges themselves (each shared edge once), the path to cut along.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pnpkit.errors import Problem
from pnpkit.impose.page import Page, Placement
from pnpkit.impose.paper import paper_sizes, printable_area
from pnpkit.pack.model import Face, PrintSettings

if TYPE_CHECKING:
    from pnpkit.kinds.registry import Registry

SQRT3 = math.sqrt(3.0)
TOLERANCE = 0.1  # mm the corner-to-corner side may differ from flat x 2/sqrt(3) (rounding in YAML)
_EPS = 1e-6


class HexSizeError(ValueError):
    """A hex face whose box does not have a regular hexagon's proportions."""


@dataclass(frozen=True)
class HexShape:
    """A regular hexagon: its distance across the flats and which way it points."""

    flat: float
    pointy: bool  # True: corners at top and bottom; False: flat edges at top and bottom

    @property
    def side(self) -> float:
        return self.flat / SQRT3

    @property
    def corner(self) -> float:
        """Distance across the corners (twice the side)."""
        return 2 * self.side


def shape_of(size: tuple[float, float]) -> HexShape:
    """The hex a face size describes; HexSizeError when its sides are not in a hex's proportion."""
    w, h = size
    flat, across = min(w, h), max(w, h)
    want = flat * 2 / SQRT3
    if abs(across - want) > TOLERANCE:
        good = f"{want:.2f}x{flat:g}mm" if w >= h else f"{flat:g}x{want:.2f}mm"
        raise HexSizeError(
            f"a hex {w:g}x{h:g}mm is not regular: {flat:g}mm "
            f"across the flats is {want:.2f}mm across "
            f"the corners (size is the box around the hex: write {good})"
        )
    return HexShape(flat, pointy=h > w)


def corners(
    cx: float, cy: float, flat: float, pointy: bool = False, inset: float = 0.0
) -> list[tuple[float, float]]:
    """The six corners of a hex centred on (cx, cy), `inset` mm inside its edges, clockwise on
    the page."""
    side = (flat - 2 * inset) / SQRT3
    start = 30.0 if pointy else 0.0
    return [
        (
            cx + side * math.cos(math.radians(start + 60 * k)),
            cy + side * math.sin(math.radians(start + 60 * k)),
        )
        for k in range(6)
    ]


def _points(pts: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{x:.3f},{y:.3f}" for x, y in pts)


# ------------------------------------------------------------------ template helpers


def hex_corners(
    cx: float, cy: float, flat: float, pointy: bool = False, inset: float = 0.0
) -> list[tuple[float, float]]:
    """Corners of a hex centred on (cx, cy) with `flat` mm across the flats: [(x, y), ...]."""
    return corners(float(cx), float(cy), float(flat), bool(pointy), float(inset))


def hex_points(cx: float, cy: float, flat: float, pointy: bool = False, inset: float = 0.0) -> str:
    """The same corners as a <polygon points="..."> value."""
    return _points(hex_corners(cx, cy, flat, pointy, inset))


def hex_info(face: dict[str, float]) -> dict[str, float | bool]:
    """The face's own hex: {cx, cy, flat, side, corner, pointy}; an error if the face is not
    hex-shaped."""
    shape = shape_of((face["w"], face["h"]))
    return {
        "cx": face["w"] / 2,
        "cy": face["h"] / 2,
        "flat": shape.flat,
        "side": shape.side,
        "corner": shape.corner,
        "pointy": shape.pointy,
    }


def face_hex(face: dict[str, float], inset: float = 0.0) -> str:
    """The face's own hex outline as polygon points, `inset` mm inside its trim (0 = the cut
    line)."""
    info = hex_info(face)
    return _points(
        corners(info["cx"], info["cy"], info["flat"], bool(info["pointy"]), float(inset))
    )


# ------------------------------------------------------------------ the packer
#
# The lattice is worked out in (a, b): a runs along the corner axis (x for flat-topped
# hexes, y for pointy-topped ones), b along the flat axis. Hexes stand in columns
# along b, one flat apart; every other column is shifted by half a flat, so each
# column nests into the next and neighbours share whole edges.


@dataclass(frozen=True)
class _Lattice:
    shape: HexShape
    bleed: float

    @property
    def pad_a(self) -> float:
        """How far bleed reaches past the outermost corners (the corner sits between two grown
        edges)."""
        return self.bleed * 2 / SQRT3

    def columns(self, room_a: float, room_b: float) -> list[int]:
        """How many hexes each column holds in an area of room_a x room_b mm (bleed room
        included)."""
        s, f = self.shape.side, self.shape.flat
        a, b = room_a - 2 * self.pad_a, room_b - 2 * self.bleed
        if a < 2 * s - _EPS or b < f - _EPS:
            return []
        n = int(math.floor((a - 2 * s) / (1.5 * s) + _EPS)) + 1
        even, odd = int(math.floor(b / f + _EPS)), int(math.floor((b - f / 2) / f + _EPS))
        cols = [even if i % 2 == 0 else odd for i in range(n)]
        return [c for c in cols if c > 0] if odd > 0 else cols[:1]

    def centres(self, cols: list[int], n: int) -> list[tuple[float, float]]:
        """Centres (a, b) of the first n hexes, filling column by column, from a lattice origin
        at 0."""
        s, f = self.shape.side, self.shape.flat
        out: list[tuple[float, float]] = []
        for i, rows in enumerate(cols):
            for j in range(rows):
                if len(out) == n:
                    return out
                out.append((s + 1.5 * s * i, f / 2 + f * j + (f / 2 if i % 2 else 0.0)))
        return out


def pack_hexes(copies: list[Face], s: PrintSettings) -> tuple[list[Page], list[Problem]]:
    """Hex faces onto pages, edge to edge; each run of one size starts a new page."""
    pages: list[Page] = []
    problems: list[Problem] = []
    for run in _runs(copies):
        try:
            lattice = _Lattice(shape_of(run[0].size), run[0].bleed)
        except HexSizeError as exc:
            problems.append(Problem(run[0].where, f"hex '{run[0].group}': {exc}", "layout"))
            continue
        found, more = _pack_run(run, lattice, s)
        pages += found
        problems += more
    return pages, problems


def _runs(copies: list[Face]) -> list[list[Face]]:
    runs: list[list[Face]] = []
    for face in copies:
        if runs and (runs[-1][0].size, runs[-1][0].bleed) == (face.size, face.bleed):
            runs[-1].append(face)
        else:
            runs.append([face])
    return runs


def _pack_run(
    run: list[Face], lattice: _Lattice, s: PrintSettings
) -> tuple[list[Page], list[Problem]]:
    """Pages of hexes; each takes the paper orientation and the bleed (all of it, half, none)
    that hold the most."""
    pages: list[Page] = []
    i = 0
    while i < len(run):
        best = None
        for size in paper_sizes(s):
            for bleed in (
                run[i].bleed,
                run[i].bleed / 2,
                0.0,
            ):  # outer bleed gives way before a row does
                cols = lattice.columns(*_room(lattice, printable_area(s, size, bleed, marks=False)))
                n = min(sum(cols), len(run) - i)
                if n > 0 and (best is None or n > best[2]):
                    best = (size, cols, n, bleed)
        if best is None:
            face = run[i]
            msg = (
                f"hex '{face.item}' ({lattice.shape.flat:g}mm "
                f"across the flats, {face.bleed:g}mm bleed) "
                f"does not fit on {s.paper} paper inside {s.margin:g}mm margins"
            )
            return pages, [Problem(face.where, msg, "layout")]
        size, cols, n, bleed = best
        pages.append(_page(run[i : i + n], lattice, cols, size, s, bleed))
        i += n
    return pages, []


def _room(lattice: _Lattice, area: tuple[float, float, float, float]) -> tuple[float, float]:
    """The area's extent along the corner axis and along the flat axis."""
    _, _, w, h = area
    return (h, w) if lattice.shape.pointy else (w, h)


def _page(
    faces: list[Face],
    lattice: _Lattice,
    cols: list[int],
    size: tuple[float, float],
    s: PrintSettings,
    bleed: float,
) -> Page:
    """One page: the hexes on their lattice, centred in the area, with outlines and cut lines."""
    shape = lattice.shape
    ab = lattice.centres(cols, len(faces))
    left, top, w, h = printable_area(s, size, bleed, marks=False)  # the outlines are the cut lines
    # centre the block of trims in the area
    a_lo, a_hi = min(a for a, _ in ab) - shape.side, max(a for a, _ in ab) + shape.side
    b_lo, b_hi = min(b for _, b in ab) - shape.flat / 2, max(b for _, b in ab) + shape.flat / 2
    room_a, room_b = _room(lattice, (left, top, w, h))
    da, db = (room_a - (a_hi - a_lo)) / 2 - a_lo, (room_b - (b_hi - b_lo)) / 2 - b_lo

    def xy(a: float, b: float) -> tuple[float, float]:
        a, b = a + da, b + db
        return (left + b, top + a) if shape.pointy else (left + a, top + b)

    centres = [xy(a, b) for a, b in ab]
    page = Page(
        size[0],
        size[1],
        "front",
        packed=True,
        fold=size[0] / 2 if s.backs == "gutter-fold" else None,
    )
    taken = {_key(c) for c in centres}
    for face, (cx, cy) in zip(faces, centres):
        outline = _outline(cx, cy, shape, bleed, taken)
        fw, fh = face.size
        x, y = cx - fw / 2, cy - fh / 2
        reach = (
            max(0.0, x - min(p[0] for p in outline)),
            max(0.0, y - min(p[1] for p in outline)),
            max(0.0, max(p[0] for p in outline) - x - fw),
            max(0.0, max(p[1] for p in outline) - y - fh),
        )
        page.placements.append(Placement(face, x, y, reach, 0, None, tuple(outline)))
    page.lines = cut_lines(centres, shape)
    return page


def _normals(shape: HexShape) -> list[float]:
    """Angles (degrees, page axes, y down) of the outward normals of edges 0..5; edge k runs
    from corner k to k+1."""
    start = 30.0 if shape.pointy else 0.0
    return [start + 60 * k + 30 for k in range(6)]


def _key(p: tuple[float, float]) -> tuple[int, int]:
    return round(p[0] * 100), round(p[1] * 100)


def _outline(
    cx: float, cy: float, shape: HexShape, bleed: float, taken: set[tuple[int, int]]
) -> list[tuple[float, float]]:
    """The hex grown by `bleed` on each edge that has no neighbour; shared edges stay on the cut
    line.

    Corner k is where the lines of edges k-1 and k meet. Where both are grown it
    moves out along its bisector; where one is shared it slides along the shared
    line, so neighbours' outlines never overlap.
    """
    lines = []
    for angle in _normals(shape):
        nx, ny = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        neighbour = _key((cx + shape.flat * nx, cy + shape.flat * ny)) in taken
        lines.append((nx, ny, cx * nx + cy * ny + shape.flat / 2 + (0.0 if neighbour else bleed)))
    out = []
    for k in range(6):
        (ax, ay, ad), (bx, by, bd) = lines[k - 1], lines[k]
        det = ax * by - ay * bx
        out.append(((ad * by - ay * bd) / det, (ax * bd - ad * bx) / det))
    return out


def cut_lines(
    centres: list[tuple[float, float]], shape: HexShape
) -> list[tuple[float, float, float, float]]:
    """Every hex edge once, as (x1, y1, x2, y2): a shared edge is one cut for two tiles."""
    seen, out = set(), []
    for cx, cy in centres:
        pts = corners(cx, cy, shape.flat, shape.pointy)
        for k in range(6):
            p, q = pts[k], pts[(k + 1) % 6]
            key = tuple(sorted((_key(p), _key(q))))
            if key not in seen:
                seen.add(key)
                out.append((p[0], p[1], q[0], q[1]))
    return out


def register(reg: Registry) -> None:
    """The hex packer and the hex helpers templates call."""
    reg.add_packer("hex", pack_hexes)
    for helper in (hex_corners, hex_points, hex_info, face_hex):
        reg.add_helper(helper)
