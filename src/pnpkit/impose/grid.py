"""The grid packer: copies of fronts in runs of one size onto sheets, in the order that takes
the fewest, faces too large for the paper split over sheets of their own (split.py)."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable

from pnpkit.errors import Problem
from pnpkit.impose.page import Page
from pnpkit.impose.paper import face_area, paper_size, paper_sizes
from pnpkit.impose.sheet import Sheet
from pnpkit.impose.split import choose_cuts, split_face, tile_plans
from pnpkit.pack.model import Face, PrintSettings


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
ORDERS = (
    lambda f: (-f.size[0] * f.size[1], -max(f.size), f.size, f.bleed),
    lambda f: (-max(f.size), -min(f.size), f.size, f.bleed),
    lambda f: (-f.size[1], -f.size[0], f.bleed),
    lambda f: (-f.size[0], -f.size[1], f.bleed),
    lambda f: (-f.size[0] - f.size[1], f.size, f.bleed),
)


def fill_grid(
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
    turns = (False, True) if splits(copies, s) else (False,)
    for order, mix, landscape in itertools.product(ORDERS, mixes, turns):
        ordered = sorted(copies, key=order)
        seen = (mix, landscape, *map(id, ordered))
        if seen in tried:  # one size (a deck), or orders that agree: the same packing again
            continue
        tried.add(seen)
        trial = [
            dataclasses.replace(p, placements=list(p.placements), lines=list(p.lines))
            for p in shared
        ]
        pages, problems = pack_pages(ordered, s, trial, mix, landscape)
        score = (len(pages), sum(len(p.blocks()) for p in pages + trial))
        if best is None or score < best[0]:
            best = (score, trial, pages, problems)
    assert best is not None
    _, trial, pages, problems = best
    for page, packed in zip(shared, trial):
        page.placements, page.lines = packed.placements, packed.lines
    return pages, problems


def splits(copies: list[Face], s: PrintSettings) -> bool:
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
        plans = tile_plans(face, s)
        if plans and (
            choose_cuts(face, plans, False, s.overlap).plan[0]
            != choose_cuts(face, plans, True, s.overlap).plan[0]
        ):
            return True
    return False


def pack_pages(
    ordered: list[Face],
    s: PrintSettings,
    started: list[Page],
    mix: bool = False,
    landscape: bool = False,
) -> tuple[list[Page], list[Problem]]:
    """One packing of the faces in this order: onto the started pages first, then new ones;
    with `mix`, faces join blocks of another size whose rows or columns they match; `landscape`:
    of the ways to split a face that take as many sheets, the one on landscape paper first."""
    sheets = [Sheet.around(page, s, mix) for page in started]
    filled: dict[tuple[object, ...], tuple[Sheet, int]] = {}
    pages: list[Page] = []
    problems: list[Problem] = []
    i = 0
    while i < len(ordered):
        n = run_length(ordered, i)
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
                more, found = split_face(run[0], s, landscape)
                problems += found
                for page in more:
                    spare = _spare(page, s)
                    if spare and any(sheet.put(page.placements[0], s) for sheet in sheets):
                        continue  # this part shares a sheet another part started
                    pages.append(page)
                    sheets += [Sheet.around(page, s, mix)] if spare else []
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
    filled: dict[tuple[object, ...], tuple[Sheet, int]],
) -> tuple[Sheet, int]:
    """A new sheet of this paper filled from run, and how many faces it took. A deck's sheets
    are alike: a new sheet's blocks depend only on the faces' size and bleed while more faces
    are left than it holds, so a sheet that was filled before is copied with these faces."""
    key = (size, run[0].size, run[0].bleed)
    known = filled.get(key)
    if known is not None and len(run) >= known[1]:
        return known[0].copied(run), known[1]
    sheet = Sheet.around(blank_page(size, s), s, mix)
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


def run_length(copies: list[Face], i: int) -> int:
    n = i
    while n < len(copies) and (copies[n].size, copies[n].bleed) == (
        copies[i].size,
        copies[i].bleed,
    ):
        n += 1
    return n - i


def blank_page(size: tuple[float, float], s: PrintSettings) -> Page:
    fold = size[0] / 2 if s.backs == "gutter-fold" else None
    return Page(size[0], size[1], "front", fold=fold)
