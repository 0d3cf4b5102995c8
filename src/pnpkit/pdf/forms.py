"""Each distinct face as one PDF form (beginForm/doForm), drawn once and placed wherever it
prints; a form's bytes are kept by its drawing and fonts, so a rebuild reuses them."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Protocol, cast, runtime_checkable

from reportlab.pdfbase import pdfdoc
from reportlab.pdfgen.canvas import Canvas

from pnpkit import memo, workspace
from pnpkit.impose.page import Page, Placement
from pnpkit.pack.model import Face
from pnpkit.pdf import calibration
from pnpkit.pdf.internals import FormInside, inside
from pnpkit.pdf.marks import K, _scale_note, _stamp


class Extras(Protocol):
    """Pages a PDF holds besides its faces and print check (guide.Kit): drawn through the PDF's
    forms (`forms`, shared with the faces); each returns how many pages it drew."""

    def draw_before(self, c: Canvas, forms: dict[str, str]) -> int: ...

    def draw_after(self, c: Canvas, forms: dict[str, str], first: int) -> int: ...


@runtime_checkable
class Drawable(Protocol):
    """What a face's drawing is once compiled: an svg.drawing.Drawing, or a face flattened to pixels
    (pdfx.Raster) for PDF/X."""

    def draw(self, canvas: Canvas, x_pt: float = 0, y_pt: float = 0) -> None: ...


# a form object's bytes (or what reads them back when the document is saved: a large build
# keeps them on disk, cache._Spill), the PDF version its drawing needs
Kept = tuple[bytes | Callable[[], bytes], tuple[int, int]]


class FormStore(Protocol):
    """A drawing that remembers the PDF form it became (cache.FormDrawing): the form's finished
    bytes, under a key of everything they depend on in this document (None: not kept here)."""

    def form_key(self, canvas: Canvas, bbox: tuple[float, float]) -> bytes | None: ...

    def kept_form(self, key: bytes) -> Kept | None: ...

    def keep_form(self, key: bytes, kept: Kept) -> None: ...


class EncodedForm(pdfdoc.PDFObject):
    """A form XObject formatted already: what PDFFormXObject.format() gave, written as is when
    the document is saved. Only a form whose bytes name no object but the fonts' dictionary
    (object 1 in every document) is kept so, so its bytes hold in any document. `data` may be
    what reads them back, then, from where a large build keeps them (Kept)."""

    def __init__(self, data: bytes | Callable[[], bytes]) -> None:
        self.data = data

    def format(self, document: pdfdoc.PDFDocument) -> bytes:
        data = self.data
        return data if isinstance(data, bytes) else data()


def face_form(c: Canvas, face: Face, forms: dict[str, str]) -> str:
    """The name of the form holding this face's drawing, drawn into the PDF the first time.

    `forms` is keyed by face.svg_key (the SVG text: Python keeps a string's hash, so a repeat
    costs a lookup); the name comes from its content, so the bytes never depend on build order.
    A form is formatted as soon as it is drawn (its operators give way to its compressed
    bytes), and a drawing that kept those bytes from an earlier build under the same key
    (FormStore: the same font codes) is not drawn at all.
    """
    svg_key = face.svg_key
    if svg_key not in forms:
        name = svg_key if face.svg_key_is_name else form_name(svg_key)
        w, h = (v / face.scale for v in face.full_size)  # a shrunk face's drawing is unshrunk
        # hasattr, not isinstance(Drawable): a runtime protocol's check costs a thousand forms
        # tens of milliseconds
        assert hasattr(face.drawing, "draw"), "faces are compiled before they are written"
        drawing = cast(Drawable, face.drawing)
        store = cast(FormStore, drawing) if hasattr(drawing, "kept_form") else None
        key = store.form_key(c, (w * K, h * K)) if store else None
        kept = store.kept_form(key) if store and key else None
        if kept is not None and _at_page_start(c):
            _register(c, name, kept)
        else:
            c.beginForm(name, 0, 0, w * K, h * K)
            if kept is None:
                made = _draw_form(c, name, drawing)
                if made is not None and store and key:
                    store.keep_form(key, made)
            else:
                c.endForm()  # empty, and replaced at once: the canvas goes through the same states
                _replace(c, name, kept)
        forms[svg_key] = name
    return forms[svg_key]


# Form names by SVG text, kept from one PDF to the next (watch writes the same faces again):
# the string's hash is kept by Python, a look-up costs less than hashing a face's SVG anew.
NAMES_KEPT = 20_000  # SVGs; more, and it starts afresh (it holds the texts: a few kB each)
_NAMES = workspace.Memo[str, str]("pdf.names")


def form_name(svg: str) -> str:
    """The name of the form an SVG is drawn into: a digest of the text."""
    name = _NAMES.get(svg)
    if name is None:
        name = "F" + hashlib.sha1(svg.encode("utf-8")).hexdigest()[:16]
        if memo.handing_on():  # a long-lived process writes the same faces again
            memo.remember(_NAMES, svg, name, NAMES_KEPT)
    return name


def _at_page_start(c: Canvas) -> bool:
    """Nothing drawn on the page yet, nor a form open: where write_pdf() places its forms."""
    inner = inside(c)
    return not inner._code and inner._formData is None and not inner._codeStack


def _register(c: Canvas, name: str, kept: Kept) -> None:
    """What beginForm(), endForm() and _replace() do with an empty form at the start of a page,
    without them: the document gets the kept bytes as the form's object, under the number it
    would have had (the canvas's state and its page's accumulators would end as they began)."""
    doc = _doc(c)
    doc.inForm()
    doc.Reference(EncodedForm(kept[0]), pdfdoc.xObjectName(name))
    doc.inObject = None  # as addForm() leaves it
    if kept[1] >= pdfdoc.PDF_SUPPORT_VERSION["transparency"]:
        inside(c)._doc.ensureMinPdfVersion("transparency")  # as it did


class _Doc(Protocol):
    """What face_form reads and writes of ReportLab's document (not in types-reportlab)."""

    _pdfVersion: tuple[int, int]
    objectcounter: int
    idToObject: dict[str, object]
    inObject: str | None

    def inForm(self) -> None: ...

    def Reference(self, obj: object, name: str | None = None) -> object: ...  # noqa: N802


def _doc(c: Canvas) -> _Doc:
    return cast(_Doc, inside(c)._doc)


def _draw_form(c: Canvas, name: str, drawing: Drawable) -> Kept | None:
    """Draw the open form (c.beginForm) and end it; its bytes and the PDF version its drawing
    asked for, or None when they belong to this document only (see _encode)."""
    doc = _doc(c)
    version, doc._pdfVersion = doc._pdfVersion, (0, 0)  # to see what the drawing asks for
    try:
        drawing.draw(c, 0, 0)
    finally:
        needs, doc._pdfVersion = doc._pdfVersion, max(version, doc._pdfVersion)
    shadings = dict(inside(c)._shadingUsed)  # endForm forgets them: read them before it
    c.endForm()
    _give_form_its_resources(c, name, shadings)
    data = _encode(c, name)
    return None if data is None else (data, needs)


def _replace(c: Canvas, name: str, kept: Kept) -> None:
    """The form `name` becomes the bytes kept from another document's identical form."""
    data, needs = kept
    _doc(c).idToObject[pdfdoc.xObjectName(name)] = EncodedForm(data)
    if needs >= pdfdoc.PDF_SUPPORT_VERSION["transparency"]:
        inside(c)._doc.ensureMinPdfVersion("transparency")  # as it did


_OTHER_OBJECT = re.compile(rb"(?<![0-9])(?!1 0 R)[0-9]+ 0 R")


def _encode(c: Canvas, name: str) -> bytes | None:
    """Format the form now, as saving the document would, and keep only its bytes. None (the
    form left to be formatted on save) when it names another object than the fonts' dictionary:
    an image's or a shading's number belongs to this document."""
    doc = _doc(c)
    form = doc.idToObject[pdfdoc.xObjectName(name)]
    assert isinstance(form, pdfdoc.PDFFormXObject), "endForm() made it"
    resources = form.Resources
    if form.XObjects or (resources is not None and resources.Shading):
        return None
    counted = doc.objectcounter
    data = form.format(doc)
    assert doc.objectcounter == counted, "formatting a form with no images registers nothing"
    if _OTHER_OBJECT.search(data[: data.index(b"\nstream\n")]):
        return None  # formatted again on save, the same way
    doc.idToObject[pdfdoc.xObjectName(name)] = EncodedForm(data)
    return data


def _give_form_its_resources(c: Canvas, name: str, shadings: dict[str, str]) -> None:
    """ReportLab 5 leaves a form's ExtGState (transparency) and shadings (gradients) out of its
    resources, so opacity inside a face would print opaque and a gradient not at all: build the
    resources it would, plus the states and shadings."""
    form = inside(c)._doc.idToObject[pdfdoc.xObjectName(name)]
    assert isinstance(form, pdfdoc.PDFFormXObject), "beginForm() made it"
    states = cast(FormInside, form).ExtGState  # set by Canvas._setExtGState()
    if not states and not shadings:
        return
    resources = pdfdoc.PDFResourceDictionary(ExtGState=states or {}, XObject=form.XObjects or {})
    resources.setShading(shadings)
    resources.basicFonts()
    resources.allProcs()
    form.Resources = resources


def _place(
    c: Canvas,
    page: Page,
    p: Placement,
    forms: dict[str, str],
    stamp: str | None = None,
    printed_at: str = calibration.WORDS["printed_at"],
) -> None:
    """Draw a face clipped to its trim plus the bleed it may show here."""
    name = face_form(c, p.face, forms)
    left, top, right, bottom = p.clip or (
        p.x - p.reach[0],
        p.y - p.reach[1],
        p.x + p.w + p.reach[2],
        p.y + p.h + p.reach[3],
    )
    b = p.face.bleed
    c.saveState()
    clip = c.beginPath()
    if p.outline:
        clip.moveTo(p.outline[0][0] * K, (page.h - p.outline[0][1]) * K)
        for x, y in p.outline[1:]:
            clip.lineTo(x * K, (page.h - y) * K)
        clip.close()
    else:
        clip.rect(left * K, (page.h - bottom) * K, (right - left) * K, (bottom - top) * K)
    c.clipPath(clip, stroke=0, fill=0)
    if (
        p.face.shape[0] == "circle" and not p.outline
    ):  # a round token's bleed is a ring, not a square
        ring = c.beginPath()
        ring.circle((p.x + p.w / 2) * K, (page.h - p.y - p.h / 2) * K, (p.w / 2 + b) * K)
        c.clipPath(ring, stroke=0, fill=0)
    if p.turn == 90:  # the face's top to the right: its top-left corner at the place's top-right
        c.translate((p.x - b) * K, (page.h - p.y + b) * K)
        c.rotate(-90)
    elif p.turn == 270:  # the face's top to the left
        c.translate((p.x + p.w + b) * K, (page.h - p.y - p.h - b) * K)
        c.rotate(90)
    else:
        c.translate((p.x - b) * K, (page.h - p.y - p.h - b) * K)
    if p.face.scale != 1.0:  # shrunk to fit the paper (shrink.py), saying so in the kit's words
        c.saveState()
        c.scale(p.face.scale, p.face.scale)  # its drawing is in the face's own millimetres
        c.doForm(name)
        c.restoreState()
        if p.clip is None:
            _scale_note(c, p, printed_at.replace("{scale}", f"{round(p.face.scale * 100):d}"))
    else:
        c.doForm(name)
    if stamp and p.clip is None:
        _stamp(c, p, stamp)
    c.restoreState()
