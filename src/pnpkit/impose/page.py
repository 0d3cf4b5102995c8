"""What imposition makes: pages of placements (a face at a place on a sheet), the parts of a
face split over sheets, and the page's measures every stage shares (the fold's clearance, the
crop marks' room, the footer). Pure geometry in millimetres, origin at the page's top-left corner,
y pointing down (as on the printed sheet)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pnpkit.errors import Problem
from pnpkit.pack.model import Face, PrintSettings

FOLD_CLEARANCE = 5.0  # mm from the fold line to the nearest bleed (print-standards §4.4)


FOLD_BLOCKS = 1000  # block numbers of gutter-fold backs start here


MARK_CLEAR = 0.5  # mm between the bleed's edge and a crop mark


MARK_LENGTH = 3.0  # mm; with MARK_CLEAR the room crop marks take beyond a block's bleed


FOOTER = 3.0  # mm above the bottom margin for the page's label (6 pt): marks stop above it


# faces keep the room they had when the footer was 2.5 mm (3 x 3 poker cards fit A4 either way):
# a mark under a block at the foot of the sheet is this much shorter, so it ends about a
# millimetre above the label's letters instead of touching them
FOOTER_SHARED = 0.5


@dataclass(frozen=True)
class Placement:
    """A face on a page: trim top-left at (x, y); bleed shown up to `reach` mm beyond each trim
    edge."""

    face: Face
    x: float
    y: float
    reach: tuple[float, float, float, float]  # left, top, right, bottom
    block: int = 0
    clip: tuple[float, float, float, float] | None = (
        None  # page rect (left, top, right, bottom) that overrides reach
    )
    outline: tuple[tuple[float, float], ...] | None = (
        None  # page polygon to clip to instead (e.g. a hex)
    )
    turn: int = 0  # degrees clockwise the face is turned on the page: 0, 90 or 270
    tile: Tile | None = None  # the part of a face split over sheets this shows (clip: where)

    @property
    def w(self) -> float:
        return self.face.size[1] if self.turn % 180 else self.face.size[0]

    @property
    def h(self) -> float:
        return self.face.size[0] if self.turn % 180 else self.face.size[1]

    def moved(self, dx: float, dy: float) -> Placement:
        outline = tuple((x + dx, y + dy) for x, y in self.outline) if self.outline else None
        clip = (
            (self.clip[0] + dx, self.clip[1] + dy, self.clip[2] + dx, self.clip[3] + dy)
            if self.clip
            else None
        )
        tile = self.tile
        if tile is not None:  # its part's place on the page, where its marks are drawn
            tile = dataclasses.replace(tile, origin=(tile.origin[0] + dx, tile.origin[1] + dy))
        # built directly: dataclasses.replace costs more than the rest of a large deck's packing
        return Placement(
            self.face,
            self.x + dx,
            self.y + dy,
            self.reach,
            self.block,
            clip,
            outline,
            self.turn,
            tile,
        )


@dataclass
class Page:
    w: float
    h: float
    side: str  # front | back
    placements: list[Placement] = field(default_factory=list)
    fold: float | None = None  # x of a gutter-fold line
    label: str = ""
    marks: bool = True  # crop marks and cut lines wanted on this page
    lines: list[tuple[float, float, float, float]] = field(
        default_factory=list
    )  # extra cut marks (x1, y1, x2, y2)
    packed: bool = False  # laid out by a packer of its own (hexes, dice, labels): not re-centred
    note: str = ""  # said in the page's label: what the page is for (a calibration.WORDS key)
    own_sheet: bool = (
        False  # a face too large to share the sheet (split or whole): its back cannot sit beside it
    )
    fold_pair: bool = (
        False  # gutter-fold back on a sheet of its own: taped to its front's left edge and folded
    )
    ink: tuple[float, float, float, float] | None = (
        None  # where marks and lines may go (left, top, right, bottom); the label goes below
    )

    @property
    def single_face(self) -> bool:
        return len(self.placements) == 1

    @property
    def parts(self) -> list[Placement]:
        """The parts of faces split over several sheets that this page shows."""
        return [p for p in self.placements if p.tile is not None]

    @property
    def tile(self) -> Tile | None:
        """The first part's tile: set on the pages of a face split over several sheets."""
        return next((p.tile for p in self.placements if p.tile is not None), None)

    def blocks(self) -> list[list[Placement]]:
        out: dict[int, list[Placement]] = {}
        for p in self.placements:
            out.setdefault(p.block, []).append(p)
        return list(out.values())


def part_names(page: Page) -> list[str]:
    """The split faces' parts on a page, top to bottom and left to right, as its label names
    them: which face, which sheet of how many."""
    named = []
    for p in page.parts:
        t = p.tile
        assert t is not None
        named.append((round(t.origin[1]), t.origin[0], f"{p.face.item}: sheet {t.name}", t))
    return [f"{name} of {t.rows}x{t.cols}" for *_, name, t in sorted(named, key=lambda n: n[:2])]


@dataclass(frozen=True)
class Tile:
    """One sheet of a face too large for the paper: which part of it, and where it overlaps."""

    row: int
    col: int
    rows: int
    cols: int
    window: tuple[
        float, float, float, float
    ]  # the part shown, in the face's own mm (bleed box origin)
    origin: tuple[float, float]  # page position of the window's top-left corner
    overlap: float
    # the boxes of the face's texts (its own mm), found once where its cuts were chosen: the
    # registration targets keep off them too (pdf/marks.py)
    texts: tuple[tuple[float, float, float, float], ...] = ()

    @property
    def name(self) -> str:
        return f"{chr(ord('A') + self.row)}{self.col + 1}"


# kind -> function(copies of fronts, settings) -> (front pages, problems). A kind whose faces
# do not sit on a rectangular grid (hex tiles) has its own packer in the registry (registry.py).
Packer = Callable[[list[Face], PrintSettings], "tuple[list[Page], list[Problem]]"]


Backs = Mapping[tuple[str, str], Face]  # (group, item) -> the back face printed behind it


# a way to split a face over sheets: (paper, cols, rows, window w, h, bleed printed)
TilePlan = tuple[tuple[float, float], int, int, float, float, float]


LABELS = "labels"  # the packer of the faces printed on a label sheet, whatever their kind


Line = tuple[float, float, float, float]
