"""One orientation per PDF: every page of a kit prints on portrait paper.

A kit that mixes portrait and landscape pages prints wrongly on drivers that auto-rotate:
they turn each landscape page onto the portrait sheet, and some turn a front one way and its
back the other, so the backs come out upside down. So a landscape page (a board, a sheet that
holds more turned) is drawn turned a quarter onto portrait paper instead: its top along the
sheet's left edge (turn the sheet clockwise to read it). Its back page turns the same way,
which keeps it behind its front: a long-edge flip of the portrait sheet is a top-to-bottom
flip of the landscape page, as backs.mirror_axis already mirrors a landscape page's backs.

Geometry in millimetres, origin at the top-left, y down, as in page.py.
"""

from __future__ import annotations


def turned(w: float, h: float) -> bool:
    """Whether a page of this size is drawn turned onto portrait paper."""
    return w > h


def sheet(w: float, h: float) -> tuple[float, float]:
    """The paper a page of this size prints on: the same, or portrait."""
    return (h, w) if turned(w, h) else (w, h)


def on_sheet(x: float, y: float, w: float, h: float) -> tuple[float, float]:
    """Where the point (x, y) of a w x h page lands on its paper."""
    return (y, w - x) if turned(w, h) else (x, y)


def offset_on_page(offset: tuple[float, float], w: float, h: float) -> tuple[float, float]:
    """A back offset measured on the paper (the print check is portrait: X across, Y down), as
    a shift in the page's own axes, so a turned page's backs move as the print check's do."""
    dx, dy = offset
    return (-dy, dx) if turned(w, h) else (dx, dy)
