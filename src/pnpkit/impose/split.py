"""A face larger than the paper over several sheets: the ways to split it, the fewest sheets
chosen, its parts' windows cut between its texts (cuts.py), and what a split face says."""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass

from pnpkit.checks import textcheck
from pnpkit.errors import Problem
from pnpkit.impose import cuts
from pnpkit.impose.page import Page, Placement, Tile, TilePlan
from pnpkit.impose.paper import paper_sizes, whole_areas, whole_sheet
from pnpkit.pack.model import Face, PrintSettings
from pnpkit.units import PAPERS, SIZES

MAX_SHEETS = 100  # sheets one split face may take: a 2x2m face on A4 takes 88


def split_face(
    face: Face, s: PrintSettings, landscape: bool = False
) -> tuple[list[Page], list[Problem]]:
    """A face larger than the paper over several sheets, unless it would take too many (or the
    paper leaves no room to advance: then it is reported as dropped)."""
    plans = tile_plans(face, s)
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
        if paper != s.paper and any(p[1] * p[2] == 1 for p in tile_plans(face, other)):
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
        face, s, choose_cuts(face, plans or tile_plans(face, s), landscape, s.overlap)
    )


def _tile_pages(face: Face, s: PrintSettings, cut: Cuts) -> list[Page]:
    """The sheets of a face split as `cut` says (tile_face)."""
    size, cols, rows, aw, ah, bleed = cut.plan
    if (
        rows == cols == 1
    ):  # whole on one sheet once its bleed is given up: a page of its own, not a split
        area = whole_sheet(s, size, False)
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
    area = whole_sheet(s, size, bleed > 0)
    for r, (y0, y1) in enumerate(cut.rows):
        for c, (x0, x1) in enumerate(cut.cols):
            window = (x0, y0, x1, y1)
            left = area[0] + (area[2] - area[0] - (window[2] - x0)) / 2
            top = area[1] + (area[3] - area[1] - (window[3] - y0)) / 2
            clip = (left, top, left + window[2] - x0, top + window[3] - y0)
            tile = Tile(r, c, rows, cols, window, (left, top), s.overlap, cut.texts)
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
    texts: tuple[cuts.Box, ...] = ()  # of the face's texts, which the cuts keep off


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
            return Cuts(plan, xs, ys, texts=tuple(box for _, box in named))
    _, cols, rows, aw, ah, bleed = plan = ordered[0]
    inset = face.bleed - bleed
    xs = cuts.even(inset, fw - inset, aw, overlap, cols)
    ys = cuts.even(inset, fh - inset, ah, overlap, rows)
    return Cuts(plan, xs, ys, cuts.crossed(xs, ys, named), tuple(box for _, box in named))


def tile_plans(face: Face, s: PrintSettings) -> list[TilePlan]:
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
    left, top, right, bottom = whole_sheet(s, size, bleed > 0)
    aw, ah = right - left, bottom - top
    if min(aw, ah) <= s.overlap:
        return None
    fw, fh = face.size[0] + 2 * bleed, face.size[1] + 2 * bleed
    cols = 1 if fw <= aw else math.ceil((fw - s.overlap) / (aw - s.overlap))
    rows = 1 if fh <= ah else math.ceil((fh - s.overlap) / (ah - s.overlap))
    return size, cols, rows, aw, ah, bleed
