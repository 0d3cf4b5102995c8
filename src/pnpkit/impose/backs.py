"""Duplex and gutter-fold backs: each back at the mirror image of its front's place, mirroring
a rectangle about the page's centre line being the whole rule, whatever the blocks look like."""

from __future__ import annotations

from collections.abc import Callable

from pnpkit.impose import orient
from pnpkit.impose.page import MARK_CLEAR, Backs, Page, Placement
from pnpkit.pack.model import PrintSettings


def mirror_axis(settings: PrintSettings, page: tuple[float, float]) -> str:
    """'x' when backs mirror left-right (flip about the vertical axis), 'y' when top-bottom.

    A long-edge flip turns a portrait sheet about its vertical axis and a
    landscape sheet about its horizontal one; short-edge is the other way.
    """
    portrait = page[0] <= page[1]
    if settings.backs == "gutter-fold":
        return "x"
    return "x" if (settings.backs == "long-edge") == portrait else "y"


def back_page(front: Page, backs: Backs, s: PrintSettings) -> Page:
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
