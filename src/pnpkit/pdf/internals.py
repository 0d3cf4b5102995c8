"""What pnpkit reads and writes of ReportLab beyond its public API, in one place.

ReportLab's Canvas keeps the page being drawn and its document in attributes that
types-reportlab does not declare. pnpkit uses a few of them where the public API has no
route, each for a reason given where it is used:

- `_doc`: the document (pdfdoc.PDFDocument, public and typed): the form-byte cache numbers
  a kept form as beginForm would (forms.py), pages' and fonts' streams formatted before
  saving (pages.py), and the save streamed to the file (writer.py);
- `_code` / `_formsinuse`: the page's operators and the forms it places, so a page drawn
  before takes its operators back instead of being drawn again (writer._DRAWN, pages._label);
- `_shadingUsed` / `ExtGState`: what ReportLab 5 leaves out of a form's resources
  (forms._give_form_its_resources: a gradient or opacity inside a face would not print);
- `_formData` / `_codeStack`: whether a form is open or a page started (forms._at_page_start);
- `_preamble` / `_pageCompression` / `bottomup` / `_enforceColorSpace`: the settings a form's
  or a label's bytes depend on, part of their cache keys.

These Protocols declare those attributes as ReportLab 5.0-5.1 has them (pyproject caps it
below 5.2); `inside()` is the one cast from a Canvas to them.
"""

from __future__ import annotations

from typing import Protocol, cast

from reportlab.pdfbase import pdfdoc
from reportlab.pdfgen.canvas import Canvas


class CanvasInside(Protocol):
    """The undeclared attributes of reportlab.pdfgen.canvas.Canvas that pnpkit uses."""

    _doc: pdfdoc.PDFDocument
    _code: list[str]
    _formsinuse: list[str]
    _shadingUsed: dict[str, str]
    _formData: object
    _codeStack: list[object]
    _preamble: str
    _pageCompression: int
    bottomup: int
    _enforceColorSpace: object


def inside(c: Canvas) -> CanvasInside:
    """c, seen with the attributes ReportLab keeps undeclared (CanvasInside)."""
    return cast(CanvasInside, c)


class DocInside(Protocol):
    """What pdfdoc.PDFDocument has and the stubs leave out: its pages, the version it writes."""

    Pages: pdfdoc.PDFPages
    _pdfVersion: tuple[int, int]


def doc_inside(doc: pdfdoc.PDFDocument) -> DocInside:
    """doc, seen with the attributes ReportLab keeps undeclared (DocInside)."""
    return cast(DocInside, doc)


class FormInside(Protocol):
    """What Canvas._setExtGState() sets on a form (pdfdoc.PDFFormXObject) being drawn."""

    ExtGState: dict[str, object] | None


class FontStateInside(Protocol):
    """TTFont.State: the code each character was given in one document (not in the stubs)."""

    assignments: dict[int, int]
    internalName: str | None
