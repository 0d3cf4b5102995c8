"""Imposition: faces + print settings -> pages of placements. Pure geometry, millimetres,
origin at the page's top-left corner with y pointing down (as on the printed sheet).

Fronts fill a centred grid; in duplex modes a back page follows each front
page with every back at the mirror image of its front's place, so the two
line up after the flip. Because the grid is centred, mirroring a slot's
rectangle about the page's centre line is the whole rule, whatever the grid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from pnpkit.errors import Problem
from pnpkit.model import Face, PrintSettings
from pnpkit.units import SIZES

FOLD_CLEARANCE = 5.0  # mm from the fold line to the nearest trim (print-standards §4.4)


@dataclass(frozen=True)
class Placement:
    """A face on a page: trim top-left at (x, y); bleed shown up to `reach` mm beyond each trim edge."""

    face: Face
    x: float
    y: float
    reach: tuple[float, float, float, float]  # left, top, right, bottom

    @property
    def w(self) -> float:
        return self.face.size[0]

    @property
    def h(self) -> float:
        return self.face.size[1]


@dataclass
class Page:
    w: float
    h: float
    side: str  # front | back | calibration
    placements: list[Placement] = field(default_factory=list)
    fold: float | None = None  # x of a gutter-fold line
    label: str = ""

    @property
    def single_face(self) -> bool:
        return len(self.placements) == 1


@dataclass(frozen=True)
class Grid:
    cols: int
    rows: int
    page: tuple[float, float]
    origin: tuple[float, float]  # top-left of the block (of the front half for gutter-fold)
    fold: float | None = None

    @property
    def slots(self) -> int:
        return self.cols * self.rows


def impose(faces: list[Face], settings: PrintSettings) -> tuple[list[Page], list[Problem]]:
    """Lay out every printed copy of every face; backs follow their fronts' pages."""
    backs = {(f.group, f.item): f for f in faces if f.side == "back"}
    fronts = [f for f in faces if f.side == "front"]
    pages: list[Page] = []
    problems: list[Problem] = []
    for run in _runs(fronts):
        grid = choose_grid(run[0], settings)
        if grid is None:
            w, h = run[0].size
            problems.append(Problem(run[0].where, f"'{run[0].group}' faces of {w:g}x{h:g}mm do not fit on {settings.paper} paper with {settings.margin:g}mm margins", "layout"))
            continue
        copies = [f for f in run for _ in range(f.count)]
        for start in range(0, len(copies), grid.slots):
            chunk = copies[start:start + grid.slots]
            pages += _sheet(chunk, grid, backs, settings)
    return pages, problems


def _runs(fronts: list[Face]) -> list[list[Face]]:
    """Consecutive faces of one size and bleed share pages."""
    runs: list[list[Face]] = []
    for f in fronts:
        if runs and (runs[-1][0].size, runs[-1][0].bleed) == (f.size, f.bleed):
            runs[-1].append(f)
        else:
            runs.append([f])
    return runs


def paper_size(settings: PrintSettings, landscape: bool) -> tuple[float, float]:
    w, h = SIZES[settings.paper]
    return (h, w) if landscape else (w, h)


def choose_grid(face: Face, settings: PrintSettings) -> Grid | None:
    """The orientation that holds the most faces (portrait on a tie), or the one the pack fixes."""
    options = {"portrait": [False], "landscape": [True], "auto": [False, True]}[settings.orientation]
    grids = [g for land in options if (g := _grid(face, settings, paper_size(settings, land)))]
    return max(grids, key=lambda g: g.slots, default=None)


def _grid(face: Face, s: PrintSettings, page: tuple[float, float]) -> Grid | None:
    w, h = face.size
    pw, ph = page
    avail_w, avail_h = pw - 2 * s.margin, ph - 2 * s.margin
    if s.backs == "gutter-fold":
        avail_w = (avail_w - 2 * FOLD_CLEARANCE) / 2
    cols = math.floor((avail_w + s.gap) / (w + s.gap) + 1e-9)
    rows = math.floor((avail_h + s.gap) / (h + s.gap) + 1e-9)
    if cols < 1 or rows < 1:
        return None
    block_w, block_h = cols * w + (cols - 1) * s.gap, rows * h + (rows - 1) * s.gap
    top = (ph - block_h) / 2
    if s.backs == "gutter-fold":
        fold = pw / 2
        return Grid(cols, rows, page, (fold - FOLD_CLEARANCE - block_w, top), fold)
    return Grid(cols, rows, page, ((pw - block_w) / 2, top))


def _sheet(chunk: list[Face], grid: Grid, backs: dict, s: PrintSettings) -> list[Page]:
    front = Page(*grid.page, side="front", fold=grid.fold)
    back = Page(*grid.page, side="back")
    for i, face in enumerate(chunk):
        row, col = divmod(i, grid.cols)
        x = grid.origin[0] + col * (face.size[0] + s.gap)
        y = grid.origin[1] + row * (face.size[1] + s.gap)
        front.placements.append(Placement(face, x, y, _reach(face, row, col, grid, s)))
        partner = backs.get((face.group, face.item))
        if partner is not None and s.backs != "none":
            reach = _reach(partner, row, col, grid, s)
            back.placements.append(_back_placement(partner, x, y, reach, grid, s))
    if s.backs == "gutter-fold":
        front.placements += back.placements
        return [front]
    return [front, back] if back.placements else [front]


def _reach(face: Face, row: int, col: int, grid: Grid, s: PrintSettings) -> tuple[float, float, float, float]:
    """How far bleed may show past each trim edge: all of it at the block's edge, half the gap inside."""
    inner = min(face.bleed, s.gap / 2)
    left = face.bleed if col == 0 else inner
    right = face.bleed if col == grid.cols - 1 else inner
    top = face.bleed if row == 0 else inner
    bottom = face.bleed if row == grid.rows - 1 else inner
    return (left, top, right, bottom)


def mirror_axis(settings: PrintSettings, page: tuple[float, float]) -> str:
    """'x' when backs mirror left-right (flip about the vertical axis), 'y' when top-bottom."""
    portrait = page[0] <= page[1]
    return "x" if (settings.backs == "long-edge") == portrait else "y"


def _back_placement(back: Face, x: float, y: float, reach: tuple, grid: Grid, s: PrintSettings) -> Placement:
    """The back at the mirror image of its front's slot, its bleed reach mirrored too."""
    pw, ph = grid.page
    w, h = back.size
    left, top, right, bottom = reach
    if s.backs == "gutter-fold":
        return Placement(back, 2 * grid.fold - x - w, y, (right, top, left, bottom))
    dx, dy = s.back_offset
    if mirror_axis(s, grid.page) == "x":
        return Placement(back, pw - x - w + dx, y + dy, (right, top, left, bottom))
    return Placement(back, x + dx, ph - y - h + dy, (left, bottom, right, top))


def describe(pages: list[Page]) -> str:
    """A text dump of the layout, one line per placement (for tests and debugging)."""
    lines = []
    for n, page in enumerate(pages, 1):
        lines.append(f"p{n} {page.side} {page.w:g}x{page.h:g}")
        for p in page.placements:
            lines.append(f"  {p.face.group}/{p.face.item} {p.face.side} at ({p.x:.2f}, {p.y:.2f}) {p.w:g}x{p.h:g}")
    return "\n".join(lines)
