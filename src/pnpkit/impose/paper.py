"""Where things may go on a sheet of paper: the ink area inside the margins and above the footer,
less the crop marks' room (and the fold's clearance with gutter-fold)."""

from __future__ import annotations

import dataclasses

from pnpkit.impose.freerects import Rect
from pnpkit.impose.page import FOLD_CLEARANCE, FOOTER, FOOTER_SHARED, MARK_CLEAR, MARK_LENGTH
from pnpkit.pack.model import Face, PrintSettings
from pnpkit.units import SIZES


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
    return [whole_sheet(settings, size, False) for size in paper_sizes(settings)]


def printable_area(
    settings: PrintSettings, page: tuple[float, float], bleed: float = 0.0, marks: bool = True
) -> tuple[float, float, float, float]:
    """Left, top, width and height that trims may use when `bleed` must fit around them
    (face_area less bleed)."""
    left, top, right, bottom = face_area(settings, page, marks)
    return left + bleed, top + bleed, right - left - 2 * bleed, bottom - top - 2 * bleed


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


def whole_sheet(
    s: PrintSettings, size: tuple[float, float], marks: bool = True
) -> tuple[float, float, float, float]:
    """A split face takes the whole sheet, also with gutter-fold (its back gets a sheet of its
    own)."""
    return face_area(dataclasses.replace(s, backs="none"), size, marks)
