"""The free room on a sheet as maximal rectangles (the MaxRects bookkeeping).

A sheet starts as one free rectangle. Each time something takes a rectangle,
every free rectangle it overlaps is replaced by the (up to four) largest
rectangles of it that the taken one leaves, and rectangles inside others are
dropped; so the list always holds every largest empty rectangle and a new block
can go into any corner of the leftover room, whatever sat there before.
Pure geometry in millimetres: (left, top, right, bottom), y pointing down.
"""

from __future__ import annotations

Rect = tuple[float, float, float, float]

_EPS = 1e-6


class FreeRects:
    """The empty room of one sheet."""

    def __init__(self, area: Rect) -> None:
        self.rects: list[Rect] = [area] if _positive(area) else []

    def take(self, used: Rect) -> None:
        """Mark `used` as no longer free."""
        out: list[Rect] = []
        for r in self.rects:
            out += _cut(r, used) if overlaps(r, used) else [r]
        self.rects = _maximal(out)


def _positive(r: Rect) -> bool:
    return r[2] - r[0] > _EPS and r[3] - r[1] > _EPS


def overlaps(a: Rect, b: Rect) -> bool:
    """Whether a and b share some area (touching edges do not count)."""
    return a[0] < b[2] - _EPS and b[0] < a[2] - _EPS and a[1] < b[3] - _EPS and b[1] < a[3] - _EPS


def _cut(r: Rect, used: Rect) -> list[Rect]:
    """The parts of r left, above, right of and below `used` (each as large as it can be)."""
    left, top, right, bottom = r
    parts = [
        (left, top, used[0], bottom),
        (left, top, right, used[1]),
        (used[2], top, right, bottom),
        (left, used[3], right, bottom),
    ]
    return [p for p in parts if _positive(p)]


def _inside(a: Rect, b: Rect) -> bool:
    return (
        a[0] >= b[0] - _EPS and a[1] >= b[1] - _EPS and a[2] <= b[2] + _EPS and a[3] <= b[3] + _EPS
    )


def _maximal(rects: list[Rect]) -> list[Rect]:
    """The rectangles not contained in another (of two equal ones, the first)."""
    keep: list[Rect] = []
    for i, r in enumerate(rects):
        others = (o for j, o in enumerate(rects) if j != i and (not _inside(o, r) or j < i))
        if not any(_inside(r, o) for o in others):
            keep.append(r)
    return keep
