"""One sheet being filled: blocks of faces of one size placed into the free room its page
leaves (freerects.py), joined to blocks they match, centred and given their crop marks."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

from pnpkit.impose.bleeds import box_of, clamped, crop_lines, part_bleeds
from pnpkit.impose.freerects import FreeRects, Rect, overlaps
from pnpkit.impose.page import Page, Placement
from pnpkit.impose.paper import block_pad, face_area, ink_area, mark_room, piece_settings
from pnpkit.pack.model import Face, PrintSettings


def fits_in(n: float, size: float, gap: float) -> int:
    return max(0, math.floor((n + gap) / (size + gap) + 1e-9))


# (score, (faces, x, y, cols, rows, turn)): a block the grid packer may place
Block = tuple[tuple[float, ...], tuple[int, float, float, int, int, int]]


_OPEN = 1e4  # mm: the free room starts unbounded; the face area bounds the trims


@dataclass
class Sheet:
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
    def around(cls, page: Page, s: PrintSettings, mix: bool = False) -> Sheet:
        """A sheet whose free room is the page less what is on it (grown by the blocks' pad)."""
        free = FreeRects((-_OPEN, -_OPEN, page.w + _OPEN, page.h + _OPEN))
        sheet = cls(page, face_area(s, (page.w, page.h)), free, mix=mix)
        if page.placements:
            ink, content = ink_area(s, (page.w, page.h)), content_box(page)
            sheet.lift = (ink[0] - content[0], ink[1] - content[1])
            if page.tile is not None:
                # a split face's part keeps the room its own marks take round it, and the sheet
                # then has crop marks drawn as lines for the faces that join it (as a packer's)
                r = mark_room(s)
                sheet.lift = (min(0.0, sheet.lift[0] + r), min(0.0, sheet.lift[1] + r))
                page.packed = True
            # to the top left corner, so the room left is in one piece (put back if unused)
            _shift(page, *sheet.lift)
            left, top, right, bottom = content_box(page)
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

    def copied(self, run: list[Face]) -> Sheet:
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
        return Sheet(copy, self.area, free, added, mix=self.mix, blocks=blocks)

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

    def _best_block(self, face: Face, left: int, s: PrintSettings) -> Block | None:
        """The block (faces, place, cols, rows, turn) that holds the most faces, then takes the
        least room, then sits highest and leftmost; None when not one face fits."""
        e = block_pad(s)
        best: Block | None = None
        for fr in self.free.rects:
            x0, y0 = max(fr[0] + e, self.area[0]), max(fr[1] + e, self.area[1])
            room_w, room_h = min(fr[2] - e, self.area[2]) - x0, min(fr[3] - e, self.area[3]) - y0
            turns = (0, 90) if face.size[0] != face.size[1] and not self._large(face) else (0,)
            for turn in turns:
                w, h = face.size[::-1] if turn else face.size
                cols, rows = fits_in(room_w, w, s.gap), fits_in(room_h, h, s.gap)
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

    def _place(self, run: list[Face], block: Block, s: PrintSettings) -> int:
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
        left, top, right, bottom = box_of(block)
        area = _swapped_rect(self.area) if down else self.area
        others = [box_of(b) for b in self.blocks.values() if b[0].block != block[0].block]
        others += self.held
        if down:
            others = [_swapped_rect(r) for r in others]
        pad, step = block_pad(s), w + s.gap
        cols = fits_in(area[2] - right - s.gap, w, s.gap)
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
        l2, t2, r2, b2 = box_of(joined)
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
        mine = [clamped(p, self.area) for p in self.page.placements if id(p) in added]
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
    left, top, right, bottom = content_box(page)
    if right - left > area[2] - area[0] or bottom - top > area[3] - area[1]:
        return
    dx = area[0] + (area[2] - area[0] - (right - left)) / 2 - left
    dy = area[1] + (area[3] - area[1] - (bottom - top)) / 2 - top
    _shift(page, dx, dy)


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


def content_box(page: Page) -> Rect:
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
