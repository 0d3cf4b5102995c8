"""How far each block's bleed shows (no block's crop marks reach another's bleed, nothing passes
the margins) and where its crop marks go."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

from pnpkit.impose.freerects import Rect
from pnpkit.impose.page import MARK_CLEAR, MARK_LENGTH, Line, Page, Placement
from pnpkit.impose.paper import ink_area
from pnpkit.pack.model import PrintSettings


def box_of(block: list[Placement]) -> Rect:
    """The trims of a block: left, top, right, bottom."""
    return (
        min(p.x for p in block),
        min(p.y for p in block),
        max(p.x + p.w for p in block),
        max(p.y + p.h for p in block),
    )


def centre_vertically(page: Page, area: tuple[float, float, float, float]) -> None:
    top = min(p.y for p in page.placements)
    bottom = max(p.y + p.h for p in page.placements)
    shift = area[1] + (area[3] - area[1] - (bottom - top)) / 2 - top
    page.placements = [p.moved(0, shift) for p in page.placements]


def clamp_reach(page: Page, area: tuple[float, float, float, float]) -> None:
    """Bleed shows only as far as the area allows: the margin and the marks' room stay clear."""
    left, top, right, bottom = area
    page.placements = [clamped(p, area) for p in page.placements]


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
    boxes = {k: box_of(block) for k, block in blocks.items()}
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


def clamped(p: Placement, area: tuple[float, float, float, float]) -> Placement:
    left, top, right, bottom = area
    reach = (
        max(0.0, min(p.reach[0], p.x - left)),
        max(0.0, min(p.reach[1], p.y - top)),
        max(0.0, min(p.reach[2], right - p.x - p.w)),
        max(0.0, min(p.reach[3], bottom - p.y - p.h)),
    )
    return p if reach == p.reach else dataclasses.replace(p, reach=reach)


def marks_of(s: PrintSettings) -> Callable[[list[Placement], Page], list[Line]]:
    """The crop marks a block the grid packer added to another packer's page brought as lines
    (Sheet.finish): fill.py takes them off with the block."""

    def marks(block: list[Placement], page: Page) -> list[Line]:
        return crop_lines(block, ink_area(s, (page.w, page.h))) if s.crop_marks else []

    return marks


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
