"""Imposition: faces + print settings -> pages of placements. Pure geometry in millimetres,
origin at the page's top-left corner, y pointing down (as on the printed sheet).

Faces fill pages in blocks: a block is a grid of faces of one size, centred
across the page; blocks of other sizes stack below it on the same page, far
enough apart that each block gets its own crop marks. In duplex modes a back
page follows each front page with every back at the mirror image of its
front's place: mirroring a rectangle about the page's centre line is the
whole rule, whatever the blocks look like.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from pnpkit import memo, workspace
from pnpkit.checks import textcheck
from pnpkit.errors import Location, Problem
from pnpkit.impose import cuts, fill, orient, shrink
from pnpkit.impose.freerects import FreeRects, Rect, overlaps
from pnpkit.pack.model import Face, PrintSettings
from pnpkit.units import PAPERS, SIZES

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


def impose(
    faces: list[Face], settings: PrintSettings, packers: Mapping[str, Packer]
) -> tuple[list[Page], list[Problem]]:
    """Lay out every printed copy of every front; backs follow their fronts' pages. `packers`
    (a registry's) lay out the kinds they name; every other kind fills the grid."""
    faces = [
        f for f in faces if settings.prints(f.variant)
    ]  # the variants chosen (print.variants, --variant)
    faces = shrink.fitted(faces, whole_areas(settings))  # `fit: shrink` sheets made to fit
    too_many = too_many_faces(
        [(f.item, f.count, f.where) for f in faces if f.side == "front"], settings.max_faces
    )
    if too_many:
        return [], too_many
    backs = {(f.group, f.item): f for f in faces if f.side == "back"}
    copies = [f for f in faces if f.side == "front" for _ in range(f.count)]
    fronts, problems = [], []
    grid: list[Face] = []
    for packer, run in _by_packer(copies, packers):
        if packer is _fill:  # last: its faces fill the room the other packers' sheets left
            grid = run
            continue
        made, found = packer(run, settings)
        fronts += made
        problems += found
    made, found = _fill(grid, settings, fronts)
    fronts += made
    problems += found
    problems += _dropped(faces, fronts, problems, settings)
    # near-empty grid sheets share a fuller one's room (fill.py); backs are made from the fronts
    fronts = fill.share(fronts, settings, lambda run: _fill(run, settings), _marks_of(settings))
    problems += fill.check(fronts, settings)
    pages: list[Page] = []
    for page in fronts:
        if page.own_sheet:
            pages += _tile_with_back(page, backs, settings)
            continue
        if not page.packed:
            _centre_vertically(page, face_area(settings, (page.w, page.h)))
            _clamp_reach(page, face_area(settings, (page.w, page.h)))
            page.placements = part_bleeds(page.placements, block_pad(settings))
        back = _backs(page, backs, settings)
        if (
            settings.backs == "gutter-fold"
        ):  # backs on the other half: their own blocks, their own marks
            page.placements += [
                dataclasses.replace(b, block=b.block + FOLD_BLOCKS) for b in back.placements
            ]
            page.lines += back.lines
            pages.append(page)
        else:
            pages += [page, back] if back.placements or settings.duplex else [page]
    for page in pages:
        page.ink = ink_area(settings, (page.w, page.h))
    return pages, problems


# Layouts made by impose_again() in this process, newest first: what impose() read of each face,
# the settings and packers, and the pages with the faces' indexes in place of the faces (a kept
# layout holds no face, nor its drawing). watch rebuilds after an edit that moves no face.
LAYOUTS_KEPT = 8
_LAYOUTS: workspace.Slot[list[_Layout]] = workspace.Slot("layout.layouts", list)


def impose_again(
    faces: list[Face], settings: PrintSettings, packers: Mapping[str, Packer]
) -> tuple[list[Page], list[Problem]]:
    """impose(), or the layout of an earlier call whose faces were alike in all impose() reads
    of them (but their drawings), with these faces on it. Only faces that fill the grid: a
    packer of the registry may read anything of a face."""
    if not memo.handing_on() or any(f.labels or f.kind in packers for f in faces):
        return impose(faces, settings, packers)  # one-shot, or a packer may read anything
    shape: list[tuple[object, ...]] = [
        (f.group, f.item, f.side, f.count, f.size, f.bleed, f.kind, f.where, f.shape, f.variant)
        + (f.fit, f.scale)  # `fit: shrink` changes the layout (shrink.py)
        + (_texts_cut_around(f, settings),)
        for f in faces
    ]
    layouts = _LAYOUTS.here()
    for n, kept in enumerate(layouts):
        if kept.shape == shape and kept.settings == settings and kept.packers == dict(packers):
            layouts.insert(0, layouts.pop(n))
            return kept.pages(faces), list(kept.problems)
    pages, problems = impose(faces, settings, packers)
    index = {id(f): i for i, f in enumerate(faces)}
    if all(id(p.face) in index for page in pages for p in page.placements):
        layouts.insert(0, _Layout(shape, settings, dict(packers), pages, index, problems))
        del layouts[LAYOUTS_KEPT:]
    return pages, problems


def _texts_cut_around(face: Face, s: PrintSettings) -> list[cuts.Named]:
    """The texts of a face the paper may be too small for: where its cuts fall (cuts.py)."""
    if max(face.full_size) <= min(SIZES[s.paper]) - 2 * s.margin:
        return []
    return cuts.texts(face)


class _Layout:
    """One impose() result, its pages kept without their faces."""

    def __init__(
        self,
        shape: list[tuple[object, ...]],
        settings: PrintSettings,
        packers: dict[str, Packer],
        pages: list[Page],
        index: dict[int, int],
        problems: list[Problem],
    ) -> None:
        self.shape, self.settings, self.packers = shape, settings, packers
        self.problems = list(problems)
        self.masters = [
            (
                dataclasses.replace(page, placements=[], lines=list(page.lines)),
                [
                    # its fields by name but the face (a dict: made into a placement faster
                    # than a tuple is, by name or through __init__)
                    (index[id(p.face)], {k: v for k, v in vars(p).items() if k != "face"})
                    for p in page.placements
                ],
            )
            for page in pages
        ]

    def pages(self, faces: list[Face]) -> list[Page]:
        """The pages, each a new one, with these faces placed where the kept ones were."""
        return [
            _made(
                Page,
                {
                    **vars(master),
                    "placements": [
                        _made(Placement, {"face": faces[i], **kept}) for i, kept in rows
                    ],
                    "lines": list(master.lines),
                },
            )
            for master, rows in self.masters
        ]


T = TypeVar("T")


def _made(cls: type[T], fields: dict[str, object]) -> T:
    """An object of the dataclass cls with these fields (every one), as its __init__ sets them
    but without it (neither Page nor Placement has a __post_init__): a frozen dataclass's
    __init__ sets each field through object.__setattr__, and Placement's cost most of watch's
    layout of a 1,000-card deck (dataclasses.replace() goes through __init__ too)."""
    made = object.__new__(cls)
    made.__dict__.update(fields)
    return made


def too_many_faces(items: list[tuple[str, int, Location]], limit: int) -> list[Problem]:
    """Every copy is placed on a page, so a count of a hundred million would fill the memory
    before anything is printed: the copies of the (item, count, where)s are counted first."""
    total = 0
    for item, count, where in items:
        total += count
        if total > limit:
            what = f"its {count} copies" if count > limit else f"'{item}'"
            return [
                Problem(
                    where,
                    f"with {what} the pack prints more than {limit} faces, the limit "
                    f"(a larger game can raise it: --max-faces N)",
                    "limits",
                )
            ]
    return []


def _dropped(
    faces: list[Face], fronts: list[Page], problems: list[Problem], s: PrintSettings
) -> list[Problem]:
    """A face that no page took is an error, never a silently shorter kit."""
    placed: dict[tuple[str, str], int] = {}
    for page in fronts:
        for p in page.placements:
            if p.tile is not None and (p.tile.row, p.tile.col) != (0, 0):
                continue  # a split face counts once, on its first part
            key = (p.face.group, p.face.item)
            placed[key] = placed.get(key, 0) + 1
    reported = {p.where for p in problems if p.is_error}
    out = []
    for face in faces:
        missing = face.count - placed.get((face.group, face.item), 0)
        if face.side == "front" and missing > 0 and face.where not in reported:
            w, h = face.full_size
            out.append(
                Problem(
                    face.where,
                    f"{missing} of the {face.count} copies of "
                    f"'{face.item}' ({w:g}x{h:g}mm with bleed) "
                    f"found no place on {s.paper} paper inside {s.margin:g}mm margins",
                    "layout",
                )
            )
    return out


def _tile_with_back(page: Page, backs: Backs, s: PrintSettings) -> list[Page]:
    """A sheet of a face that takes whole sheets, and (duplex or gutter-fold) the matching sheet
    of its back."""
    backed = [p for p in page.placements if (p.face.group, p.face.item) in backs]
    if not backed or s.backs == "none":
        return [page, Page(page.w, page.h, "back")] if s.duplex else [page]
    back = _backs(page, backs, s)
    back.packed = True  # the split face's own marks are on the front; the back is cut with it
    # gutter-fold: a back too large to sit beside its front gets a sheet of its own, the front's
    # mirror image across the sheet's left edge: lay the two sheets edge to edge, tape, fold there
    back.fold_pair = s.backs == "gutter-fold"
    return [page, back]


def _by_packer(
    copies: list[Face], packers: Mapping[str, Packer]
) -> list[tuple[Packer, list[Face]]]:
    """The faces of each packer, packers in the order their first face comes: a packer sees all of
    its faces at once, so a later group can fill the room an earlier one left."""
    runs: dict[Packer, list[Face]] = {}
    for face in copies:
        packer = packers[LABELS] if face.labels else packers.get(face.kind, _fill)
        runs.setdefault(packer, []).append(face)
    return list(runs.items())


def paper_size(settings: PrintSettings, landscape: bool) -> tuple[float, float]:
    w, h = SIZES[settings.paper]
    return (h, w) if landscape else (w, h)


def paper_sizes(settings: PrintSettings) -> list[tuple[float, float]]:
    """The page sizes a packer may choose from: the pack's orientation, or both (portrait first)."""
    landscape = {"portrait": [False], "landscape": [True], "auto": [False, True]}[
        settings.orientation
    ]
    return [paper_size(settings, land) for land in landscape]


def ink_area(
    settings: PrintSettings, page: tuple[float, float]
) -> tuple[float, float, float, float]:
    """Left, top, right, bottom of where anything may be inked except the label: inside
    print.margin, which most home printers cannot print (print-standards §4.1), and above the
    footer."""
    m = settings.margin
    return m, m, page[0] - m, page[1] - m - FOOTER


def mark_room(settings: PrintSettings) -> float:
    """Room crop marks take beyond a block's bleed."""
    return MARK_CLEAR + MARK_LENGTH if settings.crop_marks else 0.0


def face_area(
    settings: PrintSettings, page: tuple[float, float], marks: bool = True
) -> tuple[float, float, float, float]:
    """Left, top, right, bottom where faces (bleed included) may go: the ink area less the crop
    marks' room (`marks`), and for gutter-fold only the left half, FOLD_CLEARANCE from the fold."""
    left, top, right, bottom = ink_area(settings, page)
    r = mark_room(settings) if marks else 0.0
    shared = FOOTER_SHARED if marks else 0.0  # art that is its own cut line stays above the label
    left, top, right, bottom = left + r, top + r, right - r, bottom - r + shared
    if settings.backs == "gutter-fold":
        right = min(right, page[0] / 2 - FOLD_CLEARANCE)
    return left, top, right, bottom


def whole_areas(settings: PrintSettings) -> list[Rect]:
    """Where the trim of a face that takes a sheet of its own may go on each way up of the paper,
    printed without its bleed and crop marks (tile_face), also with gutter-fold (its back then
    takes a sheet of its own)."""
    return [_whole_sheet(settings, size, False) for size in paper_sizes(settings)]


def printable_area(
    settings: PrintSettings, page: tuple[float, float], bleed: float = 0.0, marks: bool = True
) -> tuple[float, float, float, float]:
    """Left, top, width and height that trims may use when `bleed` must fit around them
    (face_area less bleed)."""
    left, top, right, bottom = face_area(settings, page, marks)
    return left + bleed, top + bleed, right - left - 2 * bleed, bottom - top - 2 * bleed


def _fits(n: float, size: float, gap: float) -> int:
    return max(0, math.floor((n + gap) / (size + gap) + 1e-9))


def fill_pages(
    copies: list[Face],
    s: PrintSettings,
    new_page: Callable[[tuple[float, float]], Page],
    fill: Callable[[Page, list[Face]], int],
    too_big: Callable[[Face], tuple[list[Page], list[Problem]]],
) -> tuple[list[Page], list[Problem]]:
    """Fill pages in order; each page takes the paper orientation that holds more of what comes
    next.

    new_page(size) makes an empty page, fill(page, faces) places what fits and says how
    many, too_big(face) answers (pages, problems) for a face no page can hold.
    """
    pages: list[Page] = []
    problems: list[Problem] = []
    i = 0
    while i < len(copies):
        best, best_n = None, 0
        for size in paper_sizes(s):
            page = new_page(size)
            n = fill(page, copies[i:])
            if n > best_n:
                best, best_n = page, n
        if best is None:
            more, found = too_big(copies[i])
            pages += more
            problems += found
            i += 1
            continue
        pages.append(best)
        i += best_n
    return pages, problems


# orders the grid packer tries its faces in, largest first by some measure; same-size faces stay
# together (the size breaks ties), and the order that needs the fewest sheets wins
_ORDERS = (
    lambda f: (-f.size[0] * f.size[1], -max(f.size), f.size, f.bleed),
    lambda f: (-max(f.size), -min(f.size), f.size, f.bleed),
    lambda f: (-f.size[1], -f.size[0], f.bleed),
    lambda f: (-f.size[0], -f.size[1], f.bleed),
    lambda f: (-f.size[0] - f.size[1], f.size, f.bleed),
)


def _fill(
    copies: list[Face], s: PrintSettings, started: list[Page] | None = None
) -> tuple[list[Page], list[Problem]]:
    """The grid packer: faces in blocks (a grid of one size, turned a quarter where that holds
    more), each block in any corner of the room a sheet has left; a face larger than the paper is
    split over sheets.

    Runs of one size go largest face first; each fills the room of every sheet made so far
    (first fit; `started` are other packers' sheets, which share their room) before it starts
    sheets of its own, so later groups of any size fill what earlier ones left. Packing is cheap,
    so it is done for each of a few orders of "largest", and the one with the fewest sheets (then
    the fewest blocks to cut) is kept.
    """
    shared = [page for page in started or [] if _shares(page)]
    best: tuple[tuple[int, int], list[Page], list[Page], list[Problem]] | None = None
    tried: set[tuple[int, ...]] = set()
    sizes = {(f.size, f.bleed) for f in copies}
    mixes = (False, True) if len(sizes) > 1 else (False,)
    # which paper a split face's parts go on matters only when a face is split and either may be
    turns = (False, True) if _splits(copies, s) else (False,)
    for order, mix, landscape in itertools.product(_ORDERS, mixes, turns):
        ordered = sorted(copies, key=order)
        seen = (mix, landscape, *map(id, ordered))
        if seen in tried:  # one size (a deck), or orders that agree: the same packing again
            continue
        tried.add(seen)
        trial = [
            dataclasses.replace(p, placements=list(p.placements), lines=list(p.lines))
            for p in shared
        ]
        pages, problems = _pack(ordered, s, trial, mix, landscape)
        score = (len(pages), sum(len(p.blocks()) for p in pages + trial))
        if best is None or score < best[0]:
            best = (score, trial, pages, problems)
    assert best is not None
    _, trial, pages, problems = best
    for page, packed in zip(shared, trial):
        page.placements, page.lines = packed.placements, packed.lines
    return pages, problems


def _splits(copies: list[Face], s: PrintSettings) -> bool:
    """Whether some face is too large for the paper's face area either way up, so it is split
    over sheets, and may be split on portrait or on landscape paper over as many sheets."""
    if len(paper_sizes(s)) < 2:
        return False
    left, top, right, bottom = face_area(s, paper_size(s, False))
    w, h = right - left, bottom - top
    large = {(f.size, f.bleed): f for f in copies}.values()
    for face in large:
        fw, fh = face.full_size
        if (fw <= w and fh <= h) or (fw <= h and fh <= w):
            continue
        plans = _tile_plans(face, s)
        if plans and (
            choose_cuts(face, plans, False, s.overlap).plan[0]
            != choose_cuts(face, plans, True, s.overlap).plan[0]
        ):
            return True
    return False


def _pack(
    ordered: list[Face],
    s: PrintSettings,
    started: list[Page],
    mix: bool = False,
    landscape: bool = False,
) -> tuple[list[Page], list[Problem]]:
    """One packing of the faces in this order: onto the started pages first, then new ones;
    with `mix`, faces join blocks of another size whose rows or columns they match; `landscape`:
    of the ways to split a face that take as many sheets, the one on landscape paper first."""
    sheets = [_Sheet.around(page, s, mix) for page in started]
    filled: dict[tuple[object, ...], tuple[_Sheet, int]] = {}
    pages: list[Page] = []
    problems: list[Problem] = []
    i = 0
    while i < len(ordered):
        n = _run_length(ordered, i)
        run = ordered[i : i + n]
        i += n
        for sheet in sheets:
            run = run[sheet.fill(run, s) :]
        while run:
            fresh, placed = [], []
            for size in paper_sizes(s):
                sheet, n = _fresh(size, run, s, mix, filled)
                fresh.append(sheet)
                placed.append(n)
            # the paper that holds the most; of equals, the one that turns fewer faces
            best = max(
                range(len(fresh)),
                key=lambda k: (placed[k], -sum(bool(p.turn) for p in fresh[k].added)),
            )
            if placed[best] == 0:
                more, found = _split(run[0], s, landscape)
                problems += found
                for page in more:
                    spare = _spare(page, s)
                    if spare and any(sheet.put(page.placements[0], s) for sheet in sheets):
                        continue  # this part shares a sheet another part started
                    pages.append(page)
                    sheets += [_Sheet.around(page, s, mix)] if spare else []
                run = run[1:]
                continue
            sheets.append(fresh[best])
            pages.append(fresh[best].page)
            run = run[placed[best] :]
    for sheet in sheets:
        sheet.finish(s)
    return pages, problems


def _fresh(
    size: tuple[float, float],
    run: list[Face],
    s: PrintSettings,
    mix: bool,
    filled: dict[tuple[object, ...], tuple[_Sheet, int]],
) -> tuple[_Sheet, int]:
    """A new sheet of this paper filled from run, and how many faces it took. A deck's sheets
    are alike: a new sheet's blocks depend only on the faces' size and bleed while more faces
    are left than it holds, so a sheet that was filled before is copied with these faces."""
    key = (size, run[0].size, run[0].bleed)
    known = filled.get(key)
    if known is not None and len(run) >= known[1]:
        return known[0].copied(run), known[1]
    sheet = _Sheet.around(_new_page(size, s), s, mix)
    n = sheet.fill(run, s)
    if 0 < n < len(run):
        filled[key] = (sheet.copied(run), n)
    return sheet, n


def _spare(page: Page, s: PrintSettings) -> bool:
    """Whether a sheet of a split face may take other faces and other split faces' parts beside
    its part. Not with gutter-fold, whose back of a split face is a sheet of its own taped to the
    front's edge."""
    return page.tile is not None and s.backs != "gutter-fold"


def _shares(page: Page) -> bool:
    """Whether a packer's sheet may take grid faces in its leftover room: not a split face's
    sheet, a face's own sheet or a label sheet (its cells are the sheet)."""
    return (
        page.tile is None
        and not page.own_sheet
        and bool(page.placements)
        and not any(p.face.labels for p in page.placements)
    )


def piece_settings(face: Face, s: PrintSettings) -> PrintSettings:
    """The settings a run of faces is laid out with: round pieces keep print.shape_gap between
    their cut lines, as circles on one shared line would touch with no room to cut between."""
    if face.shape[0] == "circle" and s.shape_gap > s.gap:
        return dataclasses.replace(s, gap=s.shape_gap)
    return s


def block_pad(s: PrintSettings) -> float:
    """Room each block keeps clear around its bleed: two blocks' bleeds are the crop marks' room
    plus 1 mm apart, so one block's marks never reach the other's bleed, let alone its trim."""
    return max(mark_room(s), 1.0)


# (score, (faces, x, y, cols, rows, turn)): a block the grid packer may place
_Block = tuple[tuple[float, ...], tuple[int, float, float, int, int, int]]
_OPEN = 1e4  # mm: the free room starts unbounded; the face area bounds the trims


@dataclass
class _Sheet:
    """A page being filled by the grid packer: its free room and the blocks added to it."""

    page: Page
    area: Rect  # where trims may go (face_area)
    free: FreeRects
    added: list[Placement] = field(default_factory=list)
    lift: tuple[float, float] = (0.0, 0.0)  # how far the page's own content was moved (left, up)
    # the page's own content (another packer's, its marks included) or each split face's part
    held: list[Rect] = field(default_factory=list)
    parts: int = 0  # parts of split faces put on this sheet beside the one it was made for
    mix: bool = False  # faces of another size may join a block whose rows (columns) they match
    blocks: dict[int, list[Placement]] = field(default_factory=dict)  # the grid packer's blocks

    @classmethod
    def around(cls, page: Page, s: PrintSettings, mix: bool = False) -> _Sheet:
        """A sheet whose free room is the page less what is on it (grown by the blocks' pad)."""
        free = FreeRects((-_OPEN, -_OPEN, page.w + _OPEN, page.h + _OPEN))
        sheet = cls(page, face_area(s, (page.w, page.h)), free, mix=mix)
        if page.placements:
            ink, content = ink_area(s, (page.w, page.h)), _content(page)
            sheet.lift = (ink[0] - content[0], ink[1] - content[1])
            if page.tile is not None:
                # a split face's part keeps the room its own marks take round it, and the sheet
                # then has crop marks drawn as lines for the faces that join it (as a packer's)
                r = mark_room(s)
                sheet.lift = (min(0.0, sheet.lift[0] + r), min(0.0, sheet.lift[1] + r))
                page.packed = True
            # to the top left corner, so the room left is in one piece (put back if unused)
            _shift(page, *sheet.lift)
            left, top, right, bottom = _content(page)
            sheet.held = [(left, top, right, bottom)]
            pad = block_pad(s)
            free.take((left - pad, top - pad, right + pad, bottom + pad))
        return sheet

    def put(self, part: Placement, s: PrintSettings) -> bool:
        """Put a split face's part (its clip is the window shown) on this sheet if it has room,
        highest then leftmost, as far from everything else as a block keeps; only on a sheet of
        parts, whose faces are placed as they are (pdf draws each part's own marks)."""
        if self.page.tile is None or part.clip is None:
            return False
        e = block_pad(s)
        w, h = part.clip[2] - part.clip[0], part.clip[3] - part.clip[1]
        spots = []
        for fr in self.free.rects:
            x0, y0 = max(fr[0] + e, self.area[0]), max(fr[1] + e, self.area[1])
            if min(fr[2] - e, self.area[2]) - x0 >= w - 1e-9:
                if min(fr[3] - e, self.area[3]) - y0 >= h - 1e-9:
                    spots.append((round(y0, 3), round(x0, 3), x0, y0))
        if not spots:
            return False
        *_, x0, y0 = min(spots)
        moved = part.moved(x0 - part.clip[0], y0 - part.clip[1])
        self.page.placements.append(moved)
        self.held.append((x0, y0, x0 + w, y0 + h))
        self.free.take((x0 - e, y0 - e, x0 + w + e, y0 + h + e))
        self.parts += 1
        return True

    def copied(self, run: list[Face]) -> _Sheet:
        """A copy of this new sheet, filled from nothing with one run, holding run's faces in
        its places (the first faces of run in the order it placed its own)."""
        page = self.page
        faces = iter(run)
        mine = {
            id(p): Placement(next(faces), p.x, p.y, p.reach, p.block, turn=p.turn)
            for p in self.added
        }
        copy = Page(page.w, page.h, page.side, [mine[id(p)] for p in page.placements], page.fold)
        free = FreeRects((0.0, 0.0, 0.0, 0.0))
        free.rects = list(self.free.rects)
        blocks = {k: [mine[id(p)] for p in b] for k, b in self.blocks.items()}
        added = [mine[id(p)] for p in self.added]
        return _Sheet(copy, self.area, free, added, mix=self.mix, blocks=blocks)

    def fill(self, run: list[Face], s: PrintSettings) -> int:
        """Place blocks of run while one fits anywhere; return how many faces went on."""
        s = piece_settings(run[0], s) if run else s
        done = 0
        while done < len(run):
            joined = self._join(run[done:], s) if self.mix else 0
            if joined:
                done += joined
                continue
            best = self._best_block(run[0], len(run) - done, s)
            if best is None:
                break
            done += self._place(run[done:], best, s)
        return done

    def _best_block(self, face: Face, left: int, s: PrintSettings) -> _Block | None:
        """The block (faces, place, cols, rows, turn) that holds the most faces, then takes the
        least room, then sits highest and leftmost; None when not one face fits."""
        e = block_pad(s)
        best: _Block | None = None
        for fr in self.free.rects:
            x0, y0 = max(fr[0] + e, self.area[0]), max(fr[1] + e, self.area[1])
            room_w, room_h = min(fr[2] - e, self.area[2]) - x0, min(fr[3] - e, self.area[3]) - y0
            turns = (0, 90) if face.size[0] != face.size[1] and not self._large(face) else (0,)
            for turn in turns:
                w, h = face.size[::-1] if turn else face.size
                cols, rows = _fits(room_w, w, s.gap), _fits(room_h, h, s.gap)
                n = min(left, cols * rows)
                if n < 1:
                    continue
                shapes = (
                    (min(cols, n), math.ceil(n / min(cols, n))),  # full rows, or full columns
                    (math.ceil(n / min(rows, n)), min(rows, n)),
                )
                for c, r in shapes:
                    bw, bh = c * (w + s.gap) + 2 * e, r * (h + s.gap) + 2 * e
                    score = (n, -round(bw * bh, 3), -round(y0, 3), -round(x0, 3))
                    key = (score, (n, x0, y0, c, r, turn))
                    if best is None or key[0] > best[0]:
                        best = key
        return best

    def _large(self, face: Face) -> bool:
        """A face of half a sheet or more (a board, a rules sheet) keeps its way up: turning it
        would not let anything else share its sheet, and its print (a whole board on A3) stays as
        the designer drew it."""
        area = (self.area[2] - self.area[0]) * (self.area[3] - self.area[1])
        return face.size[0] * face.size[1] > area / 2

    def _place(self, run: list[Face], block: _Block, s: PrintSettings) -> int:
        n, x0, y0, cols, rows, turn = block[1]
        number = max((p.block for p in self.page.placements), default=-1) + 1
        w, h = run[0].size[::-1] if turn % 180 else run[0].size
        placed = []
        for k, f in enumerate(run[:n]):
            row, col = divmod(k, cols)
            x, y = x0 + col * (w + s.gap), y0 + row * (h + s.gap)
            placed.append(Placement(f, x, y, (0.0,) * 4, number, turn=turn))
        placed = _with_reach(placed, s.gap)
        self.page.placements += placed
        self.added += placed
        self.blocks[number] = placed
        e = block_pad(s)
        right = max(p.x + p.w for p in placed)
        bottom = max(p.y + p.h for p in placed)
        self.free.take((x0 - e, y0 - e, right + e, bottom + e))
        return n

    def _join(self, run: list[Face], s: PrintSettings) -> int:
        """Faces as tall as a block's rows join it as whole columns on its right, or as wide as
        its columns as whole rows below it: every cut line still crosses the whole block (a grid
        of uneven columns or rows), and the two crop marks' room between two blocks is saved."""
        face = run[0]
        if self._large(face):
            return 0
        for block in self.blocks.values():
            first = block[0].face
            if (first.bleed, first.shape) != (face.bleed, face.shape) or first.size == face.size:
                continue
            for turn in (0, 90) if face.size[0] != face.size[1] else (0,):
                w, h = face.size[::-1] if turn else face.size
                for down in (False, True):
                    n = self._join_to(block, run, (w, h), turn, down, s)
                    if n:
                        return n
        return 0

    def _join_to(
        self,
        block: list[Placement],
        run: list[Face],
        size: tuple[float, float],
        turn: int,
        down: bool,
        s: PrintSettings,
    ) -> int:
        """Join run to the block (columns on its right, or rows below it when `down`) as far as
        the room allows; how many faces went on."""
        w, h = size
        if down:  # the same as joining columns with x and y swapped
            block = [_swapped(p) for p in block]
            w, h = h, w
        if any(abs(p.h - h) > 1e-6 for p in block):
            return 0
        ys = sorted({p.y for p in block})
        left, top, right, bottom = _box(block)
        area = _swapped_rect(self.area) if down else self.area
        others = [_box(b) for b in self.blocks.values() if b[0].block != block[0].block]
        others += self.held
        if down:
            others = [_swapped_rect(r) for r in others]
        pad, step = block_pad(s), w + s.gap
        cols = _fits(area[2] - right - s.gap, w, s.gap)
        while cols and any(
            overlaps(
                (right, top - pad, right + cols * step + pad, bottom + pad),
                (o[0] - pad, o[1] - pad, o[2] + pad, o[3] + pad),
            )
            for o in others
        ):
            cols -= 1
        n = min(len(run), cols * len(ys))
        if n < 1:
            return 0
        number = block[0].block
        made = []
        for k, f in enumerate(run[:n]):
            col, row = divmod(k, len(ys))
            made.append(Placement(f, right + s.gap + col * step, ys[row], (0.0,) * 4, number))
        if down:
            made = [_swapped(p) for p in made]
        made = [dataclasses.replace(p, turn=turn) for p in made]
        old = self.blocks[number]
        joined = _with_reach(old + made, s.gap)
        new_of = {id(p): q for p, q in zip(old, joined)}
        self.page.placements = [new_of.get(id(p), p) for p in self.page.placements]
        self.page.placements += joined[len(old) :]
        self.added = [new_of.get(id(p), p) for p in self.added] + joined[len(old) :]
        self.blocks[number] = joined
        l2, t2, r2, b2 = _box(joined)
        self.free.take((l2 - pad, t2 - pad, r2 + pad, b2 + pad))
        return n

    def finish(self, s: PrintSettings) -> None:
        """A page of the grid packer's own is centred across (impose centres it down); on another
        packer's page, which pdf draws no crop marks for, the added blocks bring their marks as
        lines."""
        if not self.added:
            if self.parts:  # parts sharing the sheet: together in the middle of it
                _centre(self.page, self.area)
            else:
                _shift(self.page, -self.lift[0], -self.lift[1])
            return
        if not self.page.packed:
            left = min(p.x for p in self.page.placements)
            right = max(p.x + p.w for p in self.page.placements)
            dx = self.area[0] + (self.area[2] - self.area[0] - (right - left)) / 2 - left
            self.page.placements = [p.moved(dx, 0.0) for p in self.page.placements]
            return
        added = {id(p) for p in self.added}
        own = [p for p in self.page.placements if id(p) not in added]
        mine = [_clamped(p, self.area) for p in self.page.placements if id(p) in added]
        mine = part_bleeds(mine, block_pad(s), self.held)
        self.page.placements = own + mine
        blocks: dict[int, list[Placement]] = {}
        for p in mine:
            blocks.setdefault(p.block, []).append(p)
        ink = ink_area(s, (self.page.w, self.page.h))
        if s.crop_marks:
            for block in blocks.values():
                self.page.lines += crop_lines(block, ink)


def _centre(page: Page, area: Rect) -> None:
    """Move everything on the page so that its box sits in the middle of the area, when it fits
    there (a part printed without its bleed may take the crop marks' room too: left as it is)."""
    left, top, right, bottom = _content(page)
    if right - left > area[2] - area[0] or bottom - top > area[3] - area[1]:
        return
    dx = area[0] + (area[2] - area[0] - (right - left)) / 2 - left
    dy = area[1] + (area[3] - area[1] - (bottom - top)) / 2 - top
    _shift(page, dx, dy)


def _box(block: list[Placement]) -> Rect:
    """The trims of a block: left, top, right, bottom."""
    return (
        min(p.x for p in block),
        min(p.y for p in block),
        max(p.x + p.w for p in block),
        max(p.y + p.h for p in block),
    )


def _swapped_rect(r: Rect) -> Rect:
    return r[1], r[0], r[3], r[2]


def _swapped(p: Placement) -> Placement:
    """The placement mirrored about the diagonal (x and y swapped; a face's size too)."""
    turn = 90 if p.turn == 0 else 0  # only its w and h matter while joining
    return Placement(p.face, p.y, p.x, p.reach, p.block, turn=turn)


def _with_reach(block: list[Placement], gap: float) -> list[Placement]:
    """The block's placements with each edge's bleed: all of it where no face of the block is
    beside that edge, half the gap where one is (butted trims cut on one line)."""
    corners = {(round(p.x, 3), round(p.y, 3)) for p in block}
    rights = {(round(p.x + p.w + gap, 3), round(p.y, 3)) for p in block}
    bottoms = {(round(p.x, 3), round(p.y + p.h + gap, 3)) for p in block}
    out = []
    for p in block:
        inner = min(p.face.bleed, gap / 2)
        x, y = round(p.x, 3), round(p.y, 3)
        beside = (
            (x, y) in rights,
            (x, y) in bottoms,
            (round(p.x + p.w + gap, 3), y) in corners,
            (x, round(p.y + p.h + gap, 3)) in corners,
        )
        left, top, right, bottom = (inner if n else p.face.bleed for n in beside)
        out.append(dataclasses.replace(p, reach=(left, top, right, bottom)))
    return out


def _shift(page: Page, dx: float, dy: float) -> None:
    page.placements = [p.moved(dx, dy) for p in page.placements]
    page.lines = [(x1 + dx, y1 + dy, x2 + dx, y2 + dy) for x1, y1, x2, y2 in page.lines]


def _content(page: Page) -> Rect:
    """The box around everything on a page: faces with the bleed they show, outlines, lines."""
    xs: list[float] = []
    ys: list[float] = []
    for p in page.placements:
        if p.clip is not None:  # only this part of the face is shown (a split face's sheet)
            xs += [p.clip[0], p.clip[2]]
            ys += [p.clip[1], p.clip[3]]
            continue
        xs += [p.x - p.reach[0], p.x + p.w + p.reach[2]] + [x for x, _ in p.outline or ()]
        ys += [p.y - p.reach[1], p.y + p.h + p.reach[3]] + [y for _, y in p.outline or ()]
    for x1, y1, x2, y2 in page.lines:
        xs += [x1, x2]
        ys += [y1, y2]
    return min(xs), min(ys), max(xs), max(ys)


def _marks_of(s: PrintSettings) -> Callable[[list[Placement], Page], list[Line]]:
    """The crop marks a block the grid packer added to another packer's page brought as lines
    (_Sheet.finish): fill.py takes them off with the block."""

    def marks(block: list[Placement], page: Page) -> list[Line]:
        return crop_lines(block, ink_area(s, (page.w, page.h))) if s.crop_marks else []

    return marks


Line = tuple[float, float, float, float]


def round_only(block: list[Placement]) -> bool:
    """Whether every piece of a block is round: its circles (pdf's shape guides) are its only cut
    lines, crop marks on the square around them would leave two outlines to choose from."""
    return all(p.face.shape[0] == "circle" for p in block)


def crop_lines(block: list[Placement], ink: Rect) -> list[tuple[float, float, float, float]]:
    """The crop marks of a block as lines (as pdf draws them around a block): on the line of every
    trim edge, MARK_CLEAR beyond the bleed shown, MARK_LENGTH long, never past the ink area.
    None for round pieces (round_only): their circles are their cut lines."""
    if round_only(block):
        return []
    left = min(p.x - p.reach[0] for p in block)
    top = min(p.y - p.reach[1] for p in block)
    right = max(p.x + p.w + p.reach[2] for p in block)
    bottom = max(p.y + p.h + p.reach[3] for p in block)
    il, it, ir, ib = ink
    lines = []
    for x in sorted({round(v, 3) for p in block for v in (p.x, p.x + p.w)}):
        lines += [
            (x, top - MARK_CLEAR, x, max(top - MARK_CLEAR - MARK_LENGTH, it)),
            (x, bottom + MARK_CLEAR, x, min(bottom + MARK_CLEAR + MARK_LENGTH, ib)),
        ]
    for y in sorted({round(v, 3) for p in block for v in (p.y, p.y + p.h)}):
        lines += [
            (left - MARK_CLEAR, y, max(left - MARK_CLEAR - MARK_LENGTH, il), y),
            (right + MARK_CLEAR, y, min(right + MARK_CLEAR + MARK_LENGTH, ir), y),
        ]
    return lines


MAX_SHEETS = 100  # sheets one split face may take: a 2x2m face on A4 takes 88


def _split(
    face: Face, s: PrintSettings, landscape: bool = False
) -> tuple[list[Page], list[Problem]]:
    """A face larger than the paper over several sheets, unless it would take too many (or the
    paper leaves no room to advance: then it is reported as dropped)."""
    plans = _tile_plans(face, s)
    if not plans:
        return [], []
    sheets = min(cols * rows for _, cols, rows, _, _, _ in plans)
    if sheets > MAX_SHEETS:
        w, h = face.full_size
        return [], [
            Problem(
                face.where,
                f"'{face.item}' ({w:g}x{h:g}mm with bleed) "
                f"would take {sheets} sheets of {s.paper} paper; "
                f"a face may take at most {MAX_SHEETS} "
                "(choose larger paper, or split it into parts)",
                "limits",
            )
        ]
    cut = choose_cuts(face, plans, landscape, s.overlap)
    pages = _tile_pages(face, s, cut)
    warning = split_warning(face, s, pages) if len(pages) > 1 else None
    return pages, [w for w in (warning, _crossing(face, s, cut)) if w]


def _crossing(face: Face, s: PrintSettings, cut: Cuts) -> Problem | None:
    """What a face says whose every split over the fewest sheets cuts through a text."""
    if cut.crossed is None:
        return None
    w, h = face.full_size
    return _warning(
        face,
        f"'{face.item}' ({w:g}x{h:g}mm with bleed) is split on {s.paper} paper with no cut "
        f"between its texts: a part's edge crosses {textcheck.excerpt(cut.crossed)} "
        "(leave a gap across the board where it can be cut, or choose other paper)",
    )


def split_warning(face: Face, s: PrintSettings, parts: list[Page]) -> Problem | None:
    """What a face split over these sheets says. Split both ways (four sheets meet at a corner)
    or where a home printer's paper (A4, Letter) holds it whole: the smallest paper pnpkit prints
    on that does. A one-way split that only A3 avoids is the board as designed, printed whole in
    the kit's -a3.pdf already: nothing to say. A face no larger than the paper but split (its
    margins): the largest trim that prints whole. A face larger than every paper: nothing."""
    w, h = face.full_size
    tile = parts[0].tile
    both_ways = tile is not None and tile.rows > 1 and tile.cols > 1
    said = f"'{face.item}' ({w:g}x{h:g}mm with bleed) is split into {len(parts)} parts on {s.paper}"
    for paper in sorted(PAPERS, key=lambda p: SIZES[p][0] * SIZES[p][1]):
        other = dataclasses.replace(s, paper=paper)
        if paper != s.paper and any(p[1] * p[2] == 1 for p in _tile_plans(face, other)):
            if not both_ways and paper == "a3":
                return None
            return _warning(face, f"{said}; {paper} paper holds it whole (--paper {paper})")
    short, long = sorted(face.size)
    if short > min(SIZES[s.paper]) or long > max(SIZES[s.paper]):
        return None
    wide = face.size[0] >= face.size[1]
    most = max(((r - x, b - y) for x, y, r, b in whole_areas(s)), key=lambda a: a[not wide])
    return _warning(
        face,
        f"{said}, as large as it: inside the {s.margin:g}mm margins at most "
        f"{most[0]:g}x{most[1]:g}mm prints whole (its art's edge the cut), "
        "so a board that size is not split",
    )


def _warning(face: Face, message: str) -> Problem:
    return Problem(face.where, message, "layout", "warning")


def _run_length(copies: list[Face], i: int) -> int:
    n = i
    while n < len(copies) and (copies[n].size, copies[n].bleed) == (
        copies[i].size,
        copies[i].bleed,
    ):
        n += 1
    return n - i


def _new_page(size: tuple[float, float], s: PrintSettings) -> Page:
    fold = size[0] / 2 if s.backs == "gutter-fold" else None
    return Page(size[0], size[1], "front", fold=fold)


def tile_face(
    face: Face, s: PrintSettings, plans: list[TilePlan] | None = None, landscape: bool = False
) -> list[Page]:
    """Split a face larger than the paper over sheets that overlap by s.overlap mm.

    Sheet (r, c) shows a window of the face, bleed included, at most the printable size, and
    neighbours repeat the overlap strip: lay the next sheet's cut edge on the line drawn there
    and match the marks. The strips fall between the face's texts where the fewest sheets allow
    it (cuts.py). When dropping the bleed (and with it the crop marks' room: the art's edge is
    then the cut) saves sheets, the face is printed without it. Of the papers that take as many
    sheets, portrait goes first, or landscape (`landscape`): the last parts are narrower strips
    on one and wider on the other, and which leaves less paper unused depends on what shares it.
    """
    return _tile_pages(
        face, s, choose_cuts(face, plans or _tile_plans(face, s), landscape, s.overlap)
    )


def _tile_pages(face: Face, s: PrintSettings, cut: Cuts) -> list[Page]:
    """The sheets of a face split as `cut` says (tile_face)."""
    size, cols, rows, aw, ah, bleed = cut.plan
    if (
        rows == cols == 1
    ):  # whole on one sheet once its bleed is given up: a page of its own, not a split
        area = _whole_sheet(s, size, False)
        x = area[0] + (area[2] - area[0] - face.size[0]) / 2
        y = area[1] + (area[3] - area[1] - face.size[1]) / 2
        return [
            Page(
                size[0],
                size[1],
                "front",
                [Placement(face, x, y, (0.0, 0.0, 0.0, 0.0))],
                packed=True,
                own_sheet=True,
            )
        ]
    pages = []
    area = _whole_sheet(s, size, bleed > 0)
    for r, (y0, y1) in enumerate(cut.rows):
        for c, (x0, x1) in enumerate(cut.cols):
            window = (x0, y0, x1, y1)
            left = area[0] + (area[2] - area[0] - (window[2] - x0)) / 2
            top = area[1] + (area[3] - area[1] - (window[3] - y0)) / 2
            clip = (left, top, left + window[2] - x0, top + window[3] - y0)
            tile = Tile(r, c, rows, cols, window, (left, top), s.overlap)
            trim = Placement(
                face,
                left - x0 + face.bleed,
                top - y0 + face.bleed,
                (0, 0, 0, 0),
                0,
                clip,
                tile=tile,
            )
            pages.append(Page(size[0], size[1], "front", [trim], own_sheet=True))
    return pages


@dataclass(frozen=True)
class Cuts:
    """A way to split a face (`plan`) and its windows along x (`cols`) and y (`rows`), in the
    face's own mm; `crossed`: a text a part's edge crosses (no cut of the fewest sheets is clear
    of every text), or None."""

    plan: TilePlan
    cols: list[tuple[float, float]]
    rows: list[tuple[float, float]]
    crossed: str | None = None


def choose_cuts(face: Face, plans: list[TilePlan], landscape: bool, overlap: float) -> Cuts:
    """Of the ways to split a face over the fewest sheets, the first (with its bleed, then
    portrait paper, or landscape first with `landscape`) whose cuts all fall between its texts
    (both edges of each overlap band, else the seams: cuts.py); when none does, the first one
    cut evenly, and the text its seams cross."""
    fewest = min(p[1] * p[2] for p in plans)
    ordered = sorted(
        (p for p in plans if p[1] * p[2] == fewest),
        key=lambda p: (p[5] < face.bleed, (p[0][0] > p[0][1]) != landscape),
    )
    named = cuts.texts(face) if fewest > 1 else []
    along_x = [(b[0], b[2]) for _, b in named]
    along_y = [(b[1], b[3]) for _, b in named]
    fw, fh = face.full_size
    for far, plan in itertools.product((True, False), ordered):  # both band edges, or the seam
        _, cols, rows, aw, ah, bleed = plan
        inset = face.bleed - bleed  # of the face's bleed, this much is not printed
        xs = cuts.windows(inset, fw - inset, aw, overlap, cols, along_x, far)
        ys = cuts.windows(inset, fh - inset, ah, overlap, rows, along_y, far)
        if xs is not None and ys is not None:
            return Cuts(plan, xs, ys)
    _, cols, rows, aw, ah, bleed = plan = ordered[0]
    inset = face.bleed - bleed
    xs = cuts.even(inset, fw - inset, aw, overlap, cols)
    ys = cuts.even(inset, fh - inset, ah, overlap, rows)
    return Cuts(plan, xs, ys, cuts.crossed(xs, ys, named))


def _whole_sheet(
    s: PrintSettings, size: tuple[float, float], marks: bool = True
) -> tuple[float, float, float, float]:
    """A split face takes the whole sheet, also with gutter-fold (its back gets a sheet of its
    own)."""
    return face_area(dataclasses.replace(s, backs="none"), size, marks)


def _tile_plans(face: Face, s: PrintSettings) -> list[TilePlan]:
    """Every way to split the face: each paper orientation, with its bleed and without."""
    return [
        plan
        for size in paper_sizes(s)
        for bleed in (face.bleed, 0.0)
        if (plan := _tile_plan(face, s, size, bleed))
    ]


def _tile_plan(
    face: Face, s: PrintSettings, size: tuple[float, float], bleed: float
) -> TilePlan | None:
    """(paper, cols, rows, window w, h, bleed printed) for the face on this paper with this much of
    its bleed, or None when a sheet cannot advance past the overlap."""
    left, top, right, bottom = _whole_sheet(s, size, bleed > 0)
    aw, ah = right - left, bottom - top
    if min(aw, ah) <= s.overlap:
        return None
    fw, fh = face.size[0] + 2 * bleed, face.size[1] + 2 * bleed
    cols = 1 if fw <= aw else math.ceil((fw - s.overlap) / (aw - s.overlap))
    rows = 1 if fh <= ah else math.ceil((fh - s.overlap) / (ah - s.overlap))
    return size, cols, rows, aw, ah, bleed


def _centre_vertically(page: Page, area: tuple[float, float, float, float]) -> None:
    top = min(p.y for p in page.placements)
    bottom = max(p.y + p.h for p in page.placements)
    shift = area[1] + (area[3] - area[1] - (bottom - top)) / 2 - top
    page.placements = [p.moved(0, shift) for p in page.placements]


def _clamp_reach(page: Page, area: tuple[float, float, float, float]) -> None:
    """Bleed shows only as far as the area allows: the margin and the marks' room stay clear."""
    left, top, right, bottom = area
    page.placements = [_clamped(p, area) for p in page.placements]


def part_bleeds(
    placements: list[Placement], pad: float, held: list[Rect] | None = None
) -> list[Placement]:
    """Blocks are packed `pad` (the crop marks' room) apart on each side of their trims, as at
    the page's edge: bleed shows on a block's edge only where the room between it and the next
    block is wider than both blocks' marks, shared half and half (`held`: another packer's content
    with its own marks, or split faces' parts, which give up none). So neither block's marks
    reach the other's bleed."""
    blocks: dict[int, list[Placement]] = {}
    for p in placements:
        blocks.setdefault(p.block, []).append(p)
    boxes = {k: _box(block) for k, block in blocks.items()}
    if len(boxes) < 2 and not held:
        return placements
    bleed = max((max(p.reach) for p in placements), default=0.0)
    others = [(k, r, 2.0) for k, r in boxes.items()] + [(-1, r, 1.0) for r in held or []]
    room = {
        k: _room(r, [(o, share) for j, o, share in others if j != k], pad + bleed, pad)
        for k, r in boxes.items()
    }
    return [_within(p, room[p.block]) for p in placements]


def _room(
    box: Rect, others: list[tuple[Rect, float]], near: float, pad: float
) -> tuple[float, float, float, float]:
    """How much bleed each side of a block may show: of the room to the nearest block facing that
    side (within `near` of its span), what both blocks' marks leave, split `share` ways."""
    room = [math.inf] * 4
    left, top, right, bottom = box
    for (ol, ot, o_r, ob), share in others:
        across = ot < bottom + 2 * near and ob > top - 2 * near  # beside it, left or right
        along = ol < right + 2 * near and o_r > left - 2 * near  # above or below it
        for side, gap, facing in (
            (0, left - o_r, across),
            (2, ol - right, across),
            (1, top - ob, along),
            (3, ot - bottom, along),
        ):
            if facing and gap >= -1e-9:
                room[side] = min(room[side], max(0.0, (gap - 2 * pad) / share))
    return room[0], room[1], room[2], room[3]


def _within(p: Placement, room: tuple[float, float, float, float]) -> Placement:
    reach = (
        min(p.reach[0], room[0]),
        min(p.reach[1], room[1]),
        min(p.reach[2], room[2]),
        min(p.reach[3], room[3]),
    )
    return p if reach == p.reach else dataclasses.replace(p, reach=reach)


def _clamped(p: Placement, area: tuple[float, float, float, float]) -> Placement:
    left, top, right, bottom = area
    reach = (
        max(0.0, min(p.reach[0], p.x - left)),
        max(0.0, min(p.reach[1], p.y - top)),
        max(0.0, min(p.reach[2], right - p.x - p.w)),
        max(0.0, min(p.reach[3], bottom - p.y - p.h)),
    )
    return p if reach == p.reach else dataclasses.replace(p, reach=reach)


def mirror_axis(settings: PrintSettings, page: tuple[float, float]) -> str:
    """'x' when backs mirror left-right (flip about the vertical axis), 'y' when top-bottom.

    A long-edge flip turns a portrait sheet about its vertical axis and a
    landscape sheet about its horizontal one; short-edge is the other way.
    """
    portrait = page[0] <= page[1]
    if settings.backs == "gutter-fold":
        return "x"
    return "x" if (settings.backs == "long-edge") == portrait else "y"


def _backs(front: Page, backs: Backs, s: PrintSettings) -> Page:
    page = Page(front.w, front.h, "back", packed=front.packed, marks=s.back_marks)
    if s.backs == "none":
        return page
    axis = mirror_axis(s, (front.w, front.h))
    # the offset is measured on the paper: a page turned onto it (orient.py) shifts in its own axes
    offset = orient.offset_on_page(s.back_offset, front.w, front.h)
    dx, dy = (0.0, 0.0) if s.backs == "gutter-fold" else offset
    across = 2 * front.fold if front.fold is not None else front.w

    def mirror(x: float, y: float) -> tuple[float, float]:
        return (across - x + dx, y + dy) if axis == "x" else (x + dx, front.h - y + dy)

    for p in front.placements:
        back = backs.get((p.face.group, p.face.item))
        if back is None:
            continue
        left, top, right, bottom = p.reach
        reach = (right, top, left, bottom) if axis == "x" else (left, bottom, right, top)
        x, y, _, _ = _mirror_rect((p.x, p.y, p.x + p.w, p.y + p.h), mirror)
        outline = tuple(mirror(x, y) for x, y in p.outline) if p.outline else None
        clip = _mirror_rect(p.clip, mirror) if p.clip else None
        # a turned face's back turns the other way: seen through the sheet, a turn reverses
        turn = (360 - p.turn) % 360
        page.placements.append(Placement(back, x, y, reach, p.block, clip, outline, turn))
    if page.placements:
        backed = [p for p in front.placements if (p.face.group, p.face.item) in backs]
        every = len(backed) == len(front.placements)
        page.lines = [
            (*mirror(x1, y1), *mirror(x2, y2))
            for x1, y1, x2, y2 in front.lines
            if every or _marks_one_of((x1, y1, x2, y2), backed)
        ]
    return page


def _marks_one_of(line: tuple[float, float, float, float], faces: list[Placement]) -> bool:
    """Whether a line is one of these faces' cut lines or marks: it starts on or next to one
    (a mark starts MARK_CLEAR beyond the bleed shown; another block's marks are farther)."""
    x1, y1, x2, y2 = line
    near = MARK_CLEAR + 0.01
    for p in faces:
        left, top = p.x - p.reach[0] - near, p.y - p.reach[1] - near
        right, bottom = p.x + p.w + p.reach[2] + near, p.y + p.h + p.reach[3] + near
        if (
            min(x1, x2) <= right
            and max(x1, x2) >= left
            and min(y1, y2) <= bottom
            and max(y1, y2) >= top
        ):
            return True
    return False


def _mirror_rect(
    rect: tuple[float, float, float, float],
    mirror: Callable[[float, float], tuple[float, float]],
) -> tuple[float, float, float, float]:
    (x1, y1), (x2, y2) = mirror(rect[0], rect[1]), mirror(rect[2], rect[3])
    return (min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))
