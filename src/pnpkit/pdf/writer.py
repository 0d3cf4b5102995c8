"""Pages -> one PDF with ReportLab: faces as reusable forms, crop marks, page boxes.

Each distinct face SVG is drawn once into a PDF Form XObject and placed with
doForm wherever it is printed, so a back shared by a whole deck costs one
drawing and the file stays small. `invariant=1` makes the bytes depend on
the input only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import MethodType

from reportlab.pdfgen.canvas import Canvas

from pnpkit.impose import orient
from pnpkit.impose.page import Page
from pnpkit.pdf import calibration as calibration_pages
from pnpkit.pdf import dicemarks, foldmarks
from pnpkit.pdf.forms import Extras, _place, face_form
from pnpkit.pdf.internals import inside
from pnpkit.pdf.marks import K, _boxes, _crop_marks, _fold_line, _lines, _shape_guides, _tile_marks
from pnpkit.pdf.pages import (
    WRITE_BUFFER,
    _add_fonts,
    _compress_page,
    _formatting_into,
    _label,
    _streamed_file,
)
from pnpkit.typeset import fonts


def write_pdf(
    pages: list[Page],
    path: Path,
    title: str,
    crop_marks: bool = True,
    calibration: calibration_pages.Info | None = None,
    progress: Callable[[int, int], None] | None = None,
    stamp: str | None = None,
    extras: Extras | None = None,
    folds: foldmarks.Folds = foldmarks.NONE,
) -> None:
    """Write pages to path, after the print-check page(s) when `calibration` is given; `stamp`
    (print.stamp) is a small note on every face, in the band between its trim and its safe area.
    `extras`: pages of pnpkit's own before the print check and after the faces (guide.Kit).
    `folds`: the kit's words for "fold" and "glue", its fold-over and die groups, marked on sheets
    (foldmarks.py, dicemarks.py)."""
    forms: dict[str, str] = {}
    words = (calibration.get("words") if calibration else None) or calibration_pages.WORDS
    before = (lambda c: extras.draw_before(c, forms)) if extras else None
    c, first_page = start_canvas(pages, path, title, calibration, before)
    total = len(pages) + first_page
    for n, page in enumerate(pages, 1):
        w, h = orient.sheet(page.w, page.h)
        c.setPageSize((w * K, h * K))
        if orient.turned(page.w, page.h):  # drawn a quarter turn onto portrait paper (orient.py)
            c.translate(page.h * K, 0)
            c.rotate(90)
        _faces_and_marks(c, page, forms, crop_marks, (stamp, words["printed_at"]), folds)
        if page.label:
            _label(c, page)
        _boxes(c, page)
        c.showPage()
        _compress_page(c)
        if progress:
            progress(n + first_page, total)
    if extras:
        extras.draw_after(c, forms, total + 1)
    _add_fonts(c)
    save(c, path)


def save(canvas: Canvas, path: Path) -> None:
    """canvas.save(), the document written to path an object at a time: ReportLab formats every
    object into a list and joins it before writing, two copies of the whole PDF in memory at
    once (36 MB of a 10,000-card deck's 18 MB PDF, then the build's peak). The same pieces in
    the same order: the same bytes."""
    if inside(canvas)._code:  # what save() shows a page for first
        canvas.showPage()
    doc = inside(canvas)._doc
    with open(path, "wb", buffering=WRITE_BUFFER) as f:
        # this one document's own format(), not the class's (see _formatting_into)
        doc.format = MethodType(_formatting_into(_streamed_file(f)), doc)  # type: ignore[method-assign]
        doc.SaveToFile(f, canvas)


def _faces_and_marks(
    c: Canvas,
    page: Page,
    forms: dict[str, str],
    crop_marks: bool,
    notes: tuple[str | None, str],
    folds: foldmarks.Folds,
) -> None:
    """Everything on the page but its label and boxes."""
    for p in page.placements:  # the forms first, in order (their numbers), at the page's start
        face_form(c, p.face, forms)
    marks = crop_marks and page.marks
    stamp, printed_at = notes  # print.stamp, and the kit's words for a shrunk sheet's scale
    for placement in page.placements:
        _place(c, page, placement, forms, stamp, printed_at)
    for part in page.parts:
        _tile_marks(c, page, part, marks)
    if marks and page.placements and not page.packed and page.tile is None:
        _crop_marks(c, page)
    if marks and page.lines:
        _lines(c, page)
    if marks:
        _shape_guides(c, page)
    foldmarks.standee_folds(c, page, folds)
    dicemarks.die_marks(c, page, folds)
    if page.fold is not None:
        _fold_line(c, page, page.fold, folds.word)


def start_canvas(
    pages: list[Page],
    path: Path | str,
    title: str,
    calibration: calibration_pages.Info | None,
    before: Callable[[Canvas], int] | None = None,
) -> tuple[Canvas, int]:
    """The document write_pdf() draws its faces into, up to its first face: the canvas, and
    how many pages it drew (`before`'s, then the print check's)."""
    fonts.for_canvas()
    first = pages[0] if pages else None
    w, h = orient.sheet(first.w, first.h) if first else (210.0, 297.0)
    size = (w * K, h * K)
    c = Canvas(str(path), pagesize=size, invariant=1, pageCompression=1)
    c.setTitle(title)
    c.setCreator("pnpkit")
    c.setAuthor("pnpkit")
    c.setViewerPreference("PrintScaling", "None")
    drawn = before(c) if before else 0
    return c, drawn + (calibration_pages.draw(c, calibration) if calibration else 0)
