"""Leftovers share sheets: after imposing, a grid sheet left under FULL covered takes a fuller
sheet's company.

The grid packer fills sheets in order, largest faces first, so what comes last (a small group,
the last copies of a run) can end up alone on a sheet: 16 coins, one standee. It already tries
every sheet's free room first, and several orders, so the faces of such a sheet fit on no other
sheet as they are; instead they are packed again with one fuller grid sheet's: the smallest of
the two sheets' faces, just enough to cover FULL of a sheet, on one, the rest (the near-empty
sheet's larger faces among them) on the other, so neither is near-empty and no sheet is added.
Only the fronts are moved: impose() makes each back from its front afterwards, at the mirror
image of its place, so the backs follow. A sheet that stays under FULL while the kit holds other
groups it could have shared with gets a warning (check()).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from pnpkit.errors import Problem
from pnpkit.pack.model import Face, PrintSettings

if TYPE_CHECKING:
    from pnpkit.impose.page import Page, Placement

FULL = 0.35  # of the paper inside print.margin: a sheet covered less is near-empty
PARTNERS = 8  # fuller sheets tried per near-empty one (the emptiest first): bounds the cost

# faces -> (front pages, problems): the grid packer on its own, starting no other packer's sheet
Pack = Callable[[list[Face]], "tuple[list[Page], list[Problem]]"]
# (a block the grid packer added to another packer's page, that page) -> the block's crop marks,
# drawn there as the page's lines
Marks = Callable[["list[Placement]", "Page"], "list[tuple[float, float, float, float]]"]


def shown(p: Placement) -> float:
    """The area of the page a placement covers: its trim, or the window of a split face's part."""
    if p.clip is None:
        return p.w * p.h
    return (p.clip[2] - p.clip[0]) * (p.clip[3] - p.clip[1])


def coverage(page: Page, s: PrintSettings) -> float:
    """How much of the paper inside the margin the page's faces cover (0..1)."""
    return sum(shown(p) for p in page.placements) / _inside(page, s, False)


def _inside(page: Page, s: PrintSettings, fronts: bool = True) -> float:
    """The paper inside the margin; of a gutter-fold sheet's fronts (its backs not yet beside
    them), the half they may use."""
    inside = (page.w - 2 * s.margin) * (page.h - 2 * s.margin)
    return inside / 2 if fronts and s.backs == "gutter-fold" else inside


def _covered(page: Page, s: PrintSettings) -> float:
    """coverage() of a front page before impose() puts its backs beside it."""
    return sum(shown(p) for p in page.placements) / _inside(page, s)


def _area(faces: list[Face], page: Page, s: PrintSettings) -> float:
    return sum(f.size[0] * f.size[1] for f in faces) / _inside(page, s)


def _grid_only(page: Page) -> bool:
    """A sheet the grid packer made alone (no other packer's content, no split face's part,
    no label sheet): its faces may be packed again from nothing."""
    return (
        page.side == "front"
        and not page.packed
        and not page.own_sheet
        and page.tile is None
        and not page.lines
        and bool(page.placements)
        and not any(p.face.labels or p.clip or p.outline for p in page.placements)
    )


def share(fronts: list[Page], s: PrintSettings, pack: Pack, marks: Marks) -> list[Page]:
    """The front pages with each near-empty grid sheet balanced with a fuller one where the grid
    packer can, or given a block of faces from a split face's sheet (_borrow): as many sheets,
    in the same order."""
    pages = list(fronts)
    for _ in range(len(pages)):  # each step fixes one sheet for good: bounded
        fixed = _fix_one(pages, s, pack) or _borrow(pages, s, pack, marks)
        if fixed is None:
            break
        pages = fixed
    return pages


def _fix_one(pages: list[Page], s: PrintSettings, pack: Pack) -> list[Page] | None:
    """The pages with one near-empty grid sheet fixed, or None when none can be."""
    grid = [i for i, p in enumerate(pages) if _grid_only(p)]
    for u in grid:
        if _covered(pages[u], s) >= FULL:
            continue
        partners = sorted((i for i in grid if i != u), key=lambda i: _covered(pages[i], s))
        for c in partners[:PARTNERS]:
            pair = _balanced(pages[c], pages[u], s, pack)
            if pair is not None:
                new = {c: pair[0], u: pair[1]}
                return [new.get(i, p) for i, p in enumerate(pages)]
    return None


def _borrow(pages: list[Page], s: PrintSettings, pack: Pack, marks: Marks) -> list[Page] | None:
    """The pages with a near-empty grid sheet given a block of faces the grid packer put beside a
    split face's part (on A3, MLEM's track leaves room for an aid card and player boards there,
    and the last boards were left alone): the smallest block that brings the sheet to FULL and
    still packs on it with its own, taken off the part's sheet with its crop marks. None when no
    such block is found."""
    for u, empty in enumerate(pages):
        if not _grid_only(empty) or _covered(empty, s) >= FULL:
            continue
        lenders = [(c, page) for c, page in enumerate(pages) if page.tile is not None]
        offers = sorted(
            (
                (sum(shown(p) for p in block), c, block)
                for c, page in lenders
                for block in _lent(page)
            ),
            key=lambda offer: offer[:2],
        )
        for _, c, block in offers:
            taken = _one_sheet(_faces(empty) + [p.face for p in block], pack)
            if taken is None or _covered(taken, s) < FULL:
                continue
            lender = pages[c]
            gone, lines = set(map(id, block)), set(marks(block, lender))
            kept = dataclasses.replace(
                lender,
                placements=[p for p in lender.placements if id(p) not in gone],
                lines=[line for line in lender.lines if line not in lines],
            )
            if _covered(kept, s) < FULL:
                continue
            new = {c: kept, u: taken}
            return [new.get(i, p) for i, p in enumerate(pages)]
    return None


def _lent(page: Page) -> list[list[Placement]]:
    """The grid packer's blocks on a split face's sheet (every placement but the parts)."""
    blocks: dict[int, list[Placement]] = {}
    for p in page.placements:
        if p.tile is None and p.clip is None and p.outline is None:
            blocks.setdefault(p.block, []).append(p)
    return list(blocks.values())


def _faces(page: Page) -> list[Face]:
    return [p.face for p in page.placements]


def _one_sheet(faces: list[Face], pack: Pack) -> Page | None:
    pages, problems = pack(faces)
    return pages[0] if len(pages) == 1 and not problems else None


def _balanced(fuller: Page, empty: Page, s: PrintSettings, pack: Pack) -> tuple[Page, Page] | None:
    """The two sheets' faces dealt out again: the smallest faces, just enough to cover FULL of a
    sheet, on one; the rest (the larger faces, the leftovers among them) on the other. Not for a
    single group's copies (a deck's last cards): that sheet has nothing else to share with."""
    faces = _faces(fuller) + _faces(empty)
    if len({f.group for f in faces}) < 2:
        return None
    # smallest first, each group's copies together (sorted is stable: runs stay in order)
    small = sorted(faces, key=lambda f: (f.size[0] * f.size[1], f.group))
    k = 1
    while k < len(small) and _area(small[:k], fuller, s) < FULL:
        k += 1
    for cut in _cuts(small, k):
        if _area(small[cut:], fuller, s) < FULL:
            continue
        rest = _one_sheet(small[cut:], pack)
        few = _one_sheet(small[:cut], pack) if rest is not None else None
        if rest is not None and few is not None:
            return rest, few
    return None


def _cuts(small: list[Face], k: int) -> list[int]:
    """Where to cut the smallest faces off, k at least: first at the end of the group the k-th
    face is in (a group left whole on one sheet), then at k, k + 1, ... (it split over both)."""
    end = k
    while end < len(small) and small[end].group == small[k - 1].group:
        end += 1
    return ([end] if end > k else []) + list(range(k, len(small)))


def check(fronts: list[Page], s: PrintSettings) -> list[Problem]:
    """A warning for each imposed sheet still under FULL covered while the kit holds other groups
    on other sheets it could have shared with (a kit of one group's copies has nothing to, nor
    a label sheet, printed on label stock)."""
    sheets = [p for p in fronts if p.side == "front" and p.placements]
    out = []
    for n, page in enumerate(sheets, 1):
        covered = _covered(page, s)
        if covered >= FULL or any(p.face.labels for p in page.placements):
            continue  # a label sheet is its own stock: it shares with nothing
        mine = {p.face.group for p in page.placements}
        others = {p.face.group for q in sheets if q is not page for p in q.placements}
        if not others - mine:
            continue
        groups: dict[str, int] = {}
        for p in page.placements:
            groups[p.face.group] = groups.get(p.face.group, 0) + 1
        held = ", ".join(f"{k} {v}" for k, v in groups.items())
        out.append(
            Problem(
                page.placements[0].face.where,
                f"imposed sheet {n} of {len(sheets)} ({held}) is {covered:.0%} covered, under "
                f"{FULL:.0%}: pnpkit found no other sheet it could share (a size or count "
                "that fits the room other sheets leave lets it share one)",
                "layout",
                "warning",
            )
        )
    return out
