"""Where a face split over sheets is cut: between its texts.

Two neighbouring parts share an overlap band: the next part is cut at the band's near edge and
laid on it, the first part's sheet ends at its far edge. Both lines cross the whole face, so a
word anywhere along either would be cut in two (a word wholly inside the band prints whole on
both parts: a band as wide as a board's cells cannot be free of their labels). When no cuts keep
both edges off every text, the near edge alone will do: it is the seam the assembled board
shows, the far edge lying under the next part, which shows the word whole. Along each axis the
parts' windows start as far along as they may (a whole window each, as without texts) unless a
text is in the way: then that cut moves back to the gap before the text. Pure geometry in the
face's own millimetres (its bleed box's top-left corner the origin).
"""

from __future__ import annotations

from collections.abc import Sequence

from pnpkit.checks import textcheck
from pnpkit.pack.model import Face
from pnpkit.svg.drawing import Drawing

CLEAR = 1.0  # mm kept between a text's box and a part's edge

Box = tuple[float, float, float, float]  # left, top, right, bottom
Span = tuple[float, float]  # from, to along one axis
Named = tuple[str, Box]  # a text and its box


def texts(face: Face) -> list[Named]:
    """The texts a reader sees on the face and their boxes: none when its drawing is not at hand
    (a face that failed to draw, or a large build's drawing already released)."""
    drawing = face.drawing
    if not isinstance(drawing, Drawing):
        return []
    return [
        (t.text, t.box)
        for t in textcheck.texts(drawing)
        if t.text.strip() and (t.fill is not None or t.outline is not None)
    ]


def windows(
    lo: float,
    hi: float,
    window: float,
    overlap: float,
    parts: int,
    spans: Sequence[Span],
    far: bool = True,
) -> list[Span] | None:
    """The parts' windows along one axis of the face (lo..hi printed), each at most `window` long
    and overlapping the next by `overlap`, with neither edge of an overlap band (the near one
    only, without `far`) within CLEAR of a span (a text's extent along this axis); None when the
    parts cannot avoid every span. A cut
    no text is in the way of falls where it falls without texts (the same numbers, to the last
    bit)."""
    step = window - overlap
    near = [(a - CLEAR, b + CLEAR) for a, b in spans]  # the starts a band's near edge may not take
    blocked = near + ([(a - overlap, b - overlap) for a, b in near] if far else [])
    starts, ends = [lo], []
    moved = False
    for k in range(1, parts):
        limit = starts[-1] + step if moved else lo + k * step
        start = _last_free(limit, blocked)
        if start <= starts[-1]:
            return None
        moved = moved or start != limit
        ends.append(start + overlap if start != limit else min(starts[-1] + window, hi))
        starts.append(start)
    if hi - starts[-1] > window + 1e-9:
        return None
    return list(zip(starts, ends + [hi], strict=True))


def _last_free(limit: float, blocked: Sequence[Span]) -> float:
    """The largest start at most `limit` inside none of the blocked open intervals."""
    start = limit
    while True:
        inside = [a for a, b in blocked if a < start < b]
        if not inside:
            return start
        start = min(inside)


def even(lo: float, hi: float, window: float, overlap: float, parts: int) -> list[Span]:
    """The windows without regard to texts: whole windows, the last one what is left."""
    step = window - overlap
    return [(lo + k * step, min(lo + k * step + window, hi)) for k in range(parts)]


def crossed(cols: Sequence[Span], rows: Sequence[Span], named: Sequence[Named]) -> str | None:
    """The first text a seam of these windows (a part's near edge) comes within CLEAR of."""
    for text, (left, top, right, bottom) in named:
        if any(left - CLEAR < x < right + CLEAR for x, _ in cols[1:]) or any(
            top - CLEAR < y < bottom + CLEAR for y, _ in rows[1:]
        ):
            return text
    return None
