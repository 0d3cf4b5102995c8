"""What pnpkit reads and writes of ReportLab beyond its public API, in one place.

ReportLab's Canvas keeps the page being drawn and its document in attributes that
types-reportlab does not declare. pnpkit uses a few of them where the public API has no
route, each for a reason given where it is used:

- `_doc`: the document (pdfdoc.PDFDocument, public and typed): the form-byte cache numbers
  a kept form as beginForm would (forms.py), pages' and fonts' streams formatted before
  saving (pages.py), and the save streamed to the file (writer.py);
- `_code` / `_formData` / `_codeStack`: whether a page was started (writer.save shows it
  first, as canvas.save does) or a form is open (forms._at_page_start: a kept form is
  registered without beginForm only at a page's start);
- `_shadingUsed` / `ExtGState`: what ReportLab 5 leaves out of a form's resources
  (forms._give_form_its_resources: a gradient or opacity inside a face would not print);
- `_currentMatrix`: where a path lands on the page (export/pdfx.py: large black fills
  print rich black), and an ImageReader's `_image` (reader_image);
- `_preamble` / `_pageCompression`: the settings a form's bytes depend on, part of its key in
  the form-byte cache (build/cache.py), and `TTFont.State.assignments`: the codes its
  characters have in the document's fonts, the rest of that key.

These Protocols declare those attributes as ReportLab 5.0-5.1 has them (pyproject caps it
below 5.2); `inside()` is the one cast from a Canvas to them.
"""

from __future__ import annotations

from typing import Protocol, cast

from PIL import Image
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfdoc
from reportlab.pdfgen.canvas import Canvas


class CanvasInside(Protocol):
    """The undeclared attributes of reportlab.pdfgen.canvas.Canvas that pnpkit uses."""

    _doc: pdfdoc.PDFDocument
    _code: list[str]
    _shadingUsed: dict[str, str]
    _formData: object
    _codeStack: list[object]
    _preamble: str
    _pageCompression: int
    _currentMatrix: tuple[float, float, float, float, float, float]


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


class _ReaderInside(Protocol):
    _image: Image.Image


def reader_image(reader: ImageReader) -> Image.Image:
    """The PIL image an ImageReader was made from (export/pdfx.py converts it to CMYK): the
    reader keeps it in `_image`, and has no public getter of it."""
    return cast(_ReaderInside, reader)._image


class FormInside(Protocol):
    """What Canvas._setExtGState() sets on a form (pdfdoc.PDFFormXObject) being drawn."""

    ExtGState: dict[str, object] | None


class FontStateInside(Protocol):
    """TTFont.State: the code each character was given in one document (not in the stubs)."""

    assignments: dict[int, int]
    internalName: str | None
