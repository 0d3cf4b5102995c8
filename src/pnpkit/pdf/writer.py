"""Pages -> one PDF with ReportLab: faces as reusable forms, crop marks, page boxes.

Each distinct face SVG is drawn once into a PDF Form XObject and placed with
doForm wherever it is printed, so a back shared by a whole deck costs one
drawing and the file stays small. `invariant=1` makes the bytes depend on
the input only.
"""

from __future__ import annotations

import hashlib
import math
import re
import weakref
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from types import FunctionType, MethodType
from typing import BinaryIO, Protocol, cast, runtime_checkable

from reportlab import rl_config
from reportlab.lib.colors import Color, black
from reportlab.pdfbase import pdfdoc, pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from pnpkit import memo, workspace
from pnpkit.impose.layout import FOOTER, MARK_CLEAR, MARK_LENGTH, Page, Placement, Tile, round_only
from pnpkit.pack.model import Face
from pnpkit.pdf import calibration as calibration_pages
from pnpkit.pdf import foldmarks
from pnpkit.typeset import fonts, shaping
from pnpkit.units import PT_PER_MM

K = PT_PER_MM
MARK_WIDTH_PT = 0.25  # thinnest line that survives home printers (print-standards §4.5)
LABEL_PT = 6.0  # the page label's size, shrunk to fit the width between the margins
GREY = Color(0.55, 0.55, 0.55)


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
    `folds`: the kit's word for "fold" and its fold-over groups, marked on sheets (foldmarks.py)."""
    forms: dict[str, str] = {}
    before = (lambda c: extras.draw_before(c, forms)) if extras else None
    c, first_page = start_canvas(pages, path, title, calibration, before)
    total = len(pages) + first_page
    for n, page in enumerate(pages, 1):
        c.setPageSize((page.w * K, page.h * K))
        _faces_and_marks(c, page, forms, crop_marks, stamp, folds)
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
    if canvas._code:  # type: ignore[attr-defined]  # what save() shows a page for first
        canvas.showPage()
    doc = canvas._doc  # type: ignore[attr-defined]  # no stub
    with open(path, "wb", buffering=WRITE_BUFFER) as f:
        doc.format = MethodType(_formatting_into(_streamed_file(f)), doc)
        doc.SaveToFile(f, canvas)


# Bytes of the PDF gathered before each write to the file: its objects come a few kB at a time,
# and through the default 8 kB buffer a 1,000-card deck's 1.8 MB (1,300 pieces) took 6-10 ms to
# write on this VM, 3 ms through this one; a MB held is nothing to the build.
WRITE_BUFFER = 1 << 20


def _formatting_into(collector: type[pdfdoc.PDFFile]) -> Callable[[pdfdoc.PDFDocument], bytes]:
    """ReportLab's own PDFDocument.format, collecting the document's pieces in `collector`
    instead of pdfdoc.PDFFile: the same code, run with that one global changed. Given to one
    document alone: patching the module would change every other save in this process (another
    thread's too) while this one runs."""
    own = pdfdoc.PDFDocument.format
    names = {**vars(pdfdoc), "PDFFile": collector, "PDFIndirectObject": _Indirect}
    return cast(Callable[[pdfdoc.PDFDocument], bytes], FunctionType(own.__code__, names))


class _Indirect(pdfdoc.PDFIndirectObject):
    """ReportLab's numbered object, its bytes put together here when its content is formatted
    already (a form, a page's contents, a font stream: EncodedForm) or formats itself (a page:
    _FastPage): what PDFIndirectObject.format() makes of them, without its encoding codec and
    generic format() step per object (a 1,000-card deck's PDF has 1,500 objects)."""

    def format(self, document: pdfdoc.PDFDocument) -> bytes:
        content = self.content
        kind = type(content)
        if kind is not EncodedForm and kind is not _FastPage:
            return super().format(document)
        if document.encrypt.__class__ is not _PLAIN:  # it numbers each object it encrypts
            return super().format(document)
        if not rl_config.invariant and rl_config.pdfComments and hasattr(content, "__Comment__"):
            return super().format(document)  # format() writes the comment first
        n, v = document.idToObjectNumberAndVersion[self.name]
        data = content.format(document)
        end = b"endobj\n" if data.endswith(b"\n") else b"\nendobj\n"
        return b"%d %d obj\n%s%s" % (n, v, data, end)


def _streamed_file(f: BinaryIO) -> type[pdfdoc.PDFFile]:
    """pdfdoc.PDFFile writing each piece to f as it is added (add() still counts the offsets
    the cross-reference table gives), and formatting to nothing: it is all in f."""

    class Streamed(pdfdoc.PDFFile):
        def __init__(self, pdfVersion: tuple[int, int] = pdfdoc.PDF_VERSION_DEFAULT) -> None:
            super().__init__(pdfVersion)  # adds the header to its list
            f.writelines(self.strings)
            self.strings = []
            self.write = f.write  # type: ignore[assignment]  # it returns the count: unread

        def format(self, document: object) -> bytes:
            return b""

    return Streamed


# What drawing a page's faces and marks wrote, by all it depends on (_page_key), and pages'
# content streams compressed and formatted, by their text: a page seen before is not drawn or
# compressed again (a deck's back pages are alike; `watch` writes the same pages after each
# save but those of the faces changed). Only the operators: the label is drawn apart (_label),
# as its characters take their codes in the document's fonts as they come.
PAGES_KEPT = 4096  # pages of each kind kept (a few MB); more, and they start afresh
# ...by a build with no next one (memo.handing_on): only its own pages alike come again, a
# deck's backs every other page, and a 10,000-card deck's 2,200 pages all kept held 4 kB each
# (their operators and stream text) at its peak, the PDF's save
ONE_BUILD_PAGES_KEPT = 64
_DRAWN = workspace.Memo[tuple[object, ...], tuple[list[str], list[str]]]("pdf.drawn")
_STREAMS = workspace.Memo[tuple[str, int, int], bytes]("pdf.streams")


def _pages_kept() -> int:
    """How many pages of each kind _DRAWN and _STREAMS keep in this build."""
    return PAGES_KEPT if memo.handing_on() else ONE_BUILD_PAGES_KEPT


def _faces_and_marks(
    c: Canvas,
    page: Page,
    forms: dict[str, str],
    crop_marks: bool,
    stamp: str | None,
    folds: foldmarks.Folds,
) -> None:
    """Everything on the page but its label and boxes, drawn or as drawn before."""
    names = [face_form(c, p.face, forms) for p in page.placements]  # in order: their numbers
    marks = crop_marks and page.marks
    key = None if stamp or page.parts else (folds, *_page_key(page, names, marks))
    kept = _DRAWN.get(key) if key is not None else None
    if kept is not None:
        c._code.extend(kept[0])  # type: ignore[attr-defined]  # ReportLab's own: no stub
        c._formsinuse.extend(kept[1])  # type: ignore[attr-defined]
        return
    code: list[str] = c._code  # type: ignore[attr-defined]
    used: list[str] = c._formsinuse  # type: ignore[attr-defined]
    start, first_used = len(code), len(used)
    for placement in page.placements:
        _place(c, page, placement, forms, stamp)
    for part in page.parts:
        _tile_marks(c, page, part, marks)
    if marks and page.placements and not page.packed and page.tile is None:
        _crop_marks(c, page)
    if marks and page.lines:
        _lines(c, page)
    if marks:
        _shape_guides(c, page)
    foldmarks.standee_folds(c, page, folds)
    if page.fold is not None:
        _fold_line(c, page, page.fold, folds.word)
    if key is not None:
        memo.remember(_DRAWN, key, (code[start:], used[first_used:]), _pages_kept())


def _page_key(page: Page, names: list[str], marks: bool) -> tuple[object, ...]:
    """All that _faces_and_marks() draws from, for a page without a stamp or a split face."""
    return (
        page.w,
        page.h,
        marks,
        page.packed,
        tuple(page.lines),
        page.fold,
        page.ink,
        tuple(
            (name, p.x, p.y, p.reach, p.block, p.clip, p.outline, p.turn)
            + (p.face.bleed, p.face.shape, p.face.size)
            for name, p in zip(names, page.placements)
        ),
    )


def _compress_page(c: Canvas) -> None:
    """The page just shown gets its content stream formatted now, as saving would format it,
    or as it was formatted for an earlier page of the same text."""
    doc = c._doc  # type: ignore[attr-defined]  # ReportLab's own: no stub
    page = doc.Pages.pages[-1]
    if page.Contents is not None or not page.stream or doc.encrypt.__class__ is not _PLAIN:
        return
    key = (page.stream, page.compression, rl_config.useA85)  # all its bytes depend on
    data = _STREAMS.get(key)
    if data is None:
        stream = pdfdoc.PDFStream()  # as PDFPage.check_format() makes it
        if page.compression:
            stream.filters = (
                [pdfdoc.PDFBase85Encode, pdfdoc.PDFZCompress]
                if rl_config.useA85
                else [pdfdoc.PDFZCompress]
            )
        stream.content = page.stream
        data = stream.format(doc)
        memo.remember(_STREAMS, key, data, _pages_kept())
    page.Contents = EncodedForm(data)
    del page.stream  # formatted: saving reads Contents alone, and the text is 2 kB a page
    if type(page) is pdfdoc.PDFPage:
        page.__class__ = _FastPage  # its dictionary formatted from its shape's (see _FastPage)


_PLAIN = pdfdoc.NoEncryption


class _FastPage(pdfdoc.PDFPage):
    """A page whose dictionary is formatted from the bytes ReportLab gave an earlier page of its
    shape in the same document, with its own contents' number and forms put in: all that differs
    between a deck's pages (ReportLab's own formatting cost 0.2 ms a page, a tenth of watch's
    rebuild of a 1,000-card deck). The shape (_page_shape) is every other attribute the page
    has, so only these two parts can differ; the first two pages of each shape go ReportLab's
    way, the second checking that its bytes are the first's with its own parts."""

    def format(self, document: pdfdoc.PDFDocument) -> bytes:
        shape = _page_shape(self, document)
        if shape is None:
            return super().format(document)
        shapes = _SHAPES.here().setdefault(document, {})
        known = shapes.get(shape)
        if known is not None and known[0] is not None and known[1]:
            return _page_bytes(known[0], self, document)
        contents, xobjects = self.Contents, self.XObjects
        data = super().format(document)
        parts = _page_parts(data, contents, xobjects, document)
        if parts is None:
            shapes[shape] = (None, False)  # not cut: every page of this shape ReportLab's way
        elif known is None:
            shapes[shape] = (parts, False)
        elif known[0] is not None:  # the second page of the shape: trusted if it checks
            self.Contents, self.XObjects = contents, xobjects
            trusted = _page_bytes(known[0], self, document) == data
            shapes[shape] = (known[0] if trusted else None, trusted)
        return data


# per document, per page shape: the page's bytes cut around its contents' number and its forms'
# dictionary, and whether a second page of the shape checked them (None: not to be cut)
_Parts = tuple[bytes, bytes, bytes]
_SHAPES = workspace.Slot[
    weakref.WeakKeyDictionary[object, dict[tuple[object, ...], tuple[_Parts | None, bool]]]
]("pdf.shapes", weakref.WeakKeyDictionary)
_PAGE_OWN = frozenset({"Contents", "XObjects", "stream", "__InternalName__"})
_FORM_NAME = re.compile(r"FormXob\.[A-Za-z0-9_.-]+")


def _page_shape(page: pdfdoc.PDFPage, document: pdfdoc.PDFDocument) -> tuple[object, ...] | None:
    """Every attribute of the page but its contents and forms (their count only), with the
    settings formatting reads; None when the page is not one the fast path formats: its contents
    a stream of its own not numbered yet, its forms plain names, every other value plain data."""
    contents, xobjects = page.Contents, page.XObjects
    if type(contents) is not EncodedForm or hasattr(contents, "__InternalName__"):
        return None
    if document.encrypt.__class__ is not _PLAIN or page.Parent is not None:
        return None
    count = 0
    if xobjects is not None:
        names = getattr(xobjects, "dict", None)
        if type(xobjects) is not pdfdoc.PDFDictionary or type(names) is not dict:
            return None
        for name, ref in names.items():
            if type(ref) is not pdfdoc.PDFObjectReference or ref.name != name:
                return None
            if not _FORM_NAME.fullmatch(name):
                return None
        count = len(names)
    shape: list[object] = [count, rl_config.pdfMultiLine, rl_config.invariant]
    # in the order the attributes were set, not sorted: pages ReportLab makes alike set them
    # alike, and a page that set them otherwise is only a shape of its own
    for name, value in vars(page).items():
        if value is None:  # most of a page's attributes
            shape.append(name)
        elif name in _PAGE_OWN:
            continue
        elif type(value) in _SCALARS:  # most of the others: what _plain gives, without a call
            shape.append((name, (type(value).__name__, value)))
        else:
            plain = _plain(value)
            if plain is _NOT_PLAIN:
                return None
            shape.append((name, plain))
    return tuple(shape)


_NOT_PLAIN = object()


_SCALARS = frozenset({int, float, str, bool})


def _plain(value: object) -> object:
    """value as hashable plain data (its type kept), or _NOT_PLAIN."""
    kind = type(value)
    if value is None or kind in _SCALARS:
        return (kind.__name__, value)
    items: object = value
    if kind is pdfdoc.PDFArray:
        items = cast(pdfdoc.PDFArray, value).sequence
    elif kind is pdfdoc.PDFDictionary:
        items = cast(pdfdoc.PDFDictionary, value).dict
    if type(items) in _CONTAINERS and not items:  # a page's annotations, colours, transition
        return (kind.__name__, ())
    if type(items) in (list, tuple):
        inner = tuple(_plain(v) for v in cast("list[object]", items))
        return _NOT_PLAIN if _NOT_PLAIN in inner else (kind.__name__, inner)
    if type(items) is dict and all(type(k) is str for k in items):
        pairs = tuple((k, _plain(v)) for k, v in sorted(cast("dict[str, object]", items).items()))
        return _NOT_PLAIN if any(v is _NOT_PLAIN for _, v in pairs) else (kind.__name__, pairs)
    return _NOT_PLAIN


_CONTAINERS = frozenset({list, tuple, dict})


def _xobjects(xobjects: pdfdoc.PDFDictionary | None, document: pdfdoc.PDFDocument) -> bytes:
    """The page's forms' dictionary as ReportLab formats it (names checked by _page_shape)."""
    if xobjects is None:
        return b""
    numbers = document.idToObjectNumberAndVersion
    entries: list[bytes] = []
    for i, name in enumerate(sorted(xobjects.dict)):
        if i and i % 6 == 0:  # ReportLab breaks a dictionary every six entries
            entries.append(b"\n ")
        n, version = numbers[name]
        entries.append(b"/%s %d %d R" % (name.encode("ascii"), n, version))
    return b"<<\n" + b" ".join(entries) + b"\n>>"


def _page_parts(
    data: bytes,
    contents: object,
    xobjects: pdfdoc.PDFDictionary | None,
    document: pdfdoc.PDFDocument,
) -> _Parts | None:
    """data, the page ReportLab formatted, cut around its contents' reference and its forms'
    dictionary; None unless each is found once, in that order."""
    number = document.idToObjectNumberAndVersion[getattr(contents, "__InternalName__", "")]
    ref = b"/Contents %d %d R" % number
    forms = _xobjects(xobjects, document)
    if data.count(ref) != 1 or (forms and data.count(forms) != 1):
        return None
    head, rest = data.split(ref)
    if not forms:
        return head, rest, b""
    if rest.count(forms) != 1:
        return None
    mid, tail = rest.split(forms)
    return head, mid, tail


class _PageDoc(Protocol):
    """What _page_bytes() calls of ReportLab's document (untyped in types-reportlab)."""

    Pages: pdfdoc.PDFPages

    def Reference(self, obj: object, name: str | None = None) -> object: ...  # noqa: N802


def _page_bytes(parts: _Parts, page: pdfdoc.PDFPage, document: pdfdoc.PDFDocument) -> bytes:
    """The page's bytes from its shape's parts, its references registered in ReportLab's order
    (the page tree, then the contents)."""
    doc = cast(_PageDoc, document)
    doc.Reference(doc.Pages)
    contents = cast(pdfdoc.PDFObjectReference, doc.Reference(page.Contents))
    head, mid, tail = parts
    ref = b"/Contents %d %d R" % document.idToObjectNumberAndVersion[contents.name]
    return head + ref + mid + _xobjects(page.XObjects, document) + tail


# The fonts' streams (each subset's font file and ToUnicode map) as formatted and compressed,
# by all their bytes depend on: compressing them is most of what saving a PDF whose pages and
# forms were formatted already still does, and watch writes the same subsets after each save.
FONT_STREAMS_KEPT = 64  # streams (a subset's file is tens of kB); more, and they start afresh
_FONT_STREAMS = workspace.Memo[tuple[object, ...], bytes]("pdf.font_streams")
_FILTERS = (pdfdoc.PDFStreamFilterZCompress, pdfdoc.PDFStreamFilterBase85Encode)


class _FontDoc(Protocol):
    """What _add_fonts() reads and writes of ReportLab's document (not in types-reportlab)."""

    delayedFonts: list[TTFont]
    idToObject: dict[str, object]
    encrypt: object


def _add_fonts(c: Canvas) -> None:
    """What saving does first, done just before it: the fonts the pages used add their subsets'
    objects (TTFont.addObjects, in saving's order, which numbers them); then each stream among
    them is written as the bytes an equal stream was formatted to before, if any."""
    doc = cast(_FontDoc, c._doc)  # type: ignore[attr-defined]  # ReportLab's own: no stub
    if doc.encrypt.__class__ is not _PLAIN:
        return
    fonts, doc.delayedFonts = doc.delayedFonts, []
    known = len(doc.idToObject)
    for font in fonts:
        font.addObjects(doc)
    added = list(doc.idToObject.items())[known:]  # names come in order: the fonts' objects
    for name, obj in added:
        key = _stream_key(obj)
        if key is None:
            continue
        data = _FONT_STREAMS.get(key)
        if data is None:
            data = cast(pdfdoc.PDFStream, obj).format(cast(pdfdoc.PDFDocument, doc))
            memo.remember(_FONT_STREAMS, key, data, FONT_STREAMS_KEPT)
        doc.idToObject[name] = EncodedForm(data)  # formatted under the stream's number


def _stream_key(obj: object) -> tuple[object, ...] | None:
    """All a stream's formatted bytes depend on: its content, filters and dictionary (plain
    data, no references) and the settings formatting reads; None for anything else."""
    if type(obj) is not pdfdoc.PDFStream or "__Comment__" in vars(obj):
        return None
    content, filters, dictionary = obj.content, obj.filters, obj.dictionary
    if type(content) not in (bytes, str) or not filters or type(filters) is not list:
        return None
    kinds = tuple(type(f) for f in filters)
    if not all(kind in _FILTERS for kind in kinds) or "Filter" in dictionary.dict:
        return None
    plain = _plain(dictionary)
    if plain is _NOT_PLAIN:
        return None
    library = (rl_config.pdfMultiLine, rl_config.invariant, rl_config.wrapA85)
    return (content, kinds, plain, library)


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
    size = (first.w * K, first.h * K) if first else (595.3, 841.9)
    c = Canvas(str(path), pagesize=size, invariant=1, pageCompression=1)
    c.setTitle(title)
    c.setCreator("pnpkit")
    c.setAuthor("pnpkit")
    c.setViewerPreference("PrintScaling", "None")
    drawn = before(c) if before else 0
    return c, drawn + (calibration_pages.draw(c, calibration) if calibration else 0)


class Extras(Protocol):
    """Pages a PDF holds besides its faces and print check (guide.Kit): drawn through the PDF's
    forms (`forms`, shared with the faces); each returns how many pages it drew."""

    def draw_before(self, c: Canvas, forms: dict[str, str]) -> int: ...

    def draw_after(self, c: Canvas, forms: dict[str, str], first: int) -> int: ...


@runtime_checkable
class Drawable(Protocol):
    """What a face's drawing is once compiled: an svgdraw.Drawing, or a face flattened to pixels
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
        w, h = face.full_size
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
    inside = cast(_Accumulators, c)
    return not inside._code and inside._formData is None and not inside._codeStack


def _register(c: Canvas, name: str, kept: Kept) -> None:
    """What beginForm(), endForm() and _replace() do with an empty form at the start of a page,
    without them: the document gets the kept bytes as the form's object, under the number it
    would have had (the canvas's state and its page's accumulators would end as they began)."""
    doc = _doc(c)
    doc.inForm()
    doc.Reference(EncodedForm(kept[0]), pdfdoc.xObjectName(name))
    doc.inObject = None  # as addForm() leaves it
    if kept[1] >= pdfdoc.PDF_SUPPORT_VERSION["transparency"]:
        c._doc.ensureMinPdfVersion("transparency")  # type: ignore[attr-defined]  # as it did


class _LabelCanvas(Protocol):
    """What _label_key() reads of ReportLab's Canvas (not in types-reportlab)."""

    bottomup: int
    _enforceColorSpace: object


class _Accumulators(Protocol):
    """What _at_page_start() reads of ReportLab's Canvas (not in types-reportlab)."""

    _code: list[str]
    _formData: object
    _codeStack: list[object]


class _Doc(Protocol):
    """What face_form reads and writes of ReportLab's document (not in types-reportlab)."""

    _pdfVersion: tuple[int, int]
    objectcounter: int
    idToObject: dict[str, object]
    inObject: str | None

    def inForm(self) -> None: ...

    def Reference(self, obj: object, name: str | None = None) -> object: ...  # noqa: N802


def _doc(c: Canvas) -> _Doc:
    return cast(_Doc, c._doc)  # type: ignore[attr-defined]  # ReportLab's own: not in its stubs


def _draw_form(c: Canvas, name: str, drawing: Drawable) -> Kept | None:
    """Draw the open form (c.beginForm) and end it; its bytes and the PDF version its drawing
    asked for, or None when they belong to this document only (see _encode)."""
    doc = _doc(c)
    version, doc._pdfVersion = doc._pdfVersion, (0, 0)  # to see what the drawing asks for
    try:
        drawing.draw(c, 0, 0)
    finally:
        needs, doc._pdfVersion = doc._pdfVersion, max(version, doc._pdfVersion)
    used = c._shadingUsed  # type: ignore[attr-defined]  # ReportLab's own: not in its stubs
    shadings: dict[str, str] = dict(used)  # endForm forgets them: read them before it
    _end_form(c, name)
    _give_form_its_resources(c, name, shadings)
    data = _encode(c, name)
    return None if data is None else (data, needs)


# the characters ReportLab's PDFDocEncoding codec (extpdfdoc) cannot encode among the ASCII ones;
# every other ASCII character it encodes as itself
_NOT_PDFDOC = re.compile("[\x18-\x1f]")


def _end_form(c: Canvas, name: str) -> None:
    """c.endForm(), its stream encoded as ReportLab does (pdfdocEnc) but through the codec only
    when it must: a form's operators are ASCII, which the built-in latin-1 codec encodes five
    times faster than extpdfdoc's character map (about 0.2 s of a 1,000-card deck)."""
    code = "\n".join(
        [c._preamble, *c._code]  # type: ignore[attr-defined]  # ReportLab's own: no stub
    )
    c._code = []  # type: ignore[attr-defined]  # endForm encodes the preamble alone
    c.endForm()
    form = _doc(c).idToObject[pdfdoc.xObjectName(name)]
    assert isinstance(form, pdfdoc.PDFFormXObject), "endForm() made it"
    fast = code.isascii() and not _NOT_PDFDOC.search(code)
    form.stream = code.encode("latin-1") if fast else pdfdoc.pdfdocEnc(code)


def _replace(c: Canvas, name: str, kept: Kept) -> None:
    """The form `name` becomes the bytes kept from another document's identical form."""
    data, needs = kept
    _doc(c).idToObject[pdfdoc.xObjectName(name)] = EncodedForm(data)
    if needs >= pdfdoc.PDF_SUPPORT_VERSION["transparency"]:
        c._doc.ensureMinPdfVersion("transparency")  # type: ignore[attr-defined]  # as it did


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
    data = _formatted(c, form)
    assert doc.objectcounter == counted, "formatting a form with no images registers nothing"
    if _OTHER_OBJECT.search(data[: data.index(b"\nstream\n")]):
        return None  # formatted again on save, the same way
    doc.idToObject[pdfdoc.xObjectName(name)] = EncodedForm(data)
    return data


# per document, per form shape (bbox, compression): a form's dictionary as ReportLab formats it,
# cut around its /Length entry; see _formatted
_HEADS = workspace.Slot[
    weakref.WeakKeyDictionary[object, dict[tuple[object, ...], tuple[bytes, bytes]]]
]("pdf.heads", weakref.WeakKeyDictionary)


def _formatted(c: Canvas, form: pdfdoc.PDFFormXObject) -> bytes:
    """form.format(document): the bytes saving would write for it. A deck's forms differ only in
    their stream and its length while their box and resources are the default ones, so ReportLab
    formats the first form of each shape, and the others reuse its dictionary with their own
    /Length (ReportLab's per-form dictionary formatting cost 0.19 ms a form). Only when
    rebuilding that first form from the pieces gives back its exact bytes (no encryption, the
    same filters: zlib's, then ASCII85's if rl_config says so): otherwise every form of that
    shape goes ReportLab's way."""
    doc = c._doc  # type: ignore[attr-defined]  # ReportLab's own: not in its stubs
    stream = form.stream
    given = (form.Resources, form.BBox, form.Matrix, form.Contents)
    # (an empty stream: ReportLab writes a test pattern instead; annotations: it raises)
    plain = not (form.XObjects or form.Annots) and all(v is None for v in given)
    if not plain or not form.compression or not stream or not isinstance(stream, bytes):
        return form.format(doc)
    a85 = rl_config.useA85  # the filters PDFFormXObject.format gives a compressed form
    key = (form.lowerx, form.lowery, form.upperx, form.uppery, form.hasImages, a85)
    heads = _HEADS.here().setdefault(doc, {})
    body = zlib.compress(stream)
    if a85:  # text in ASCII85's alphabet ('!' to 'u', 'z', '~>', line ends), encoded as itself
        body = pdfdoc.PDFBase85Encode.encode(body).encode("latin-1")
    head = heads.get(key)
    if head is not None:
        return _form_bytes(head, body)
    data = form.format(doc)
    length = b"/Length %d" % len(body)
    cut = data.split(b"\nstream\n", 1)[0]
    if cut.count(length) == 1:
        before, after = cut.split(length)
        if _form_bytes((before, after), body) == data:
            heads[key] = (before, after)
    return data


def _form_bytes(head: tuple[bytes, bytes], body: bytes) -> bytes:
    before, after = head
    return b"%s/Length %d%s\nstream\n%sendstream\n" % (before, len(body), after, body)


def _give_form_its_resources(c: Canvas, name: str, shadings: dict[str, str]) -> None:
    """ReportLab 5 leaves a form's ExtGState (transparency) and shadings (gradients) out of its
    resources, so opacity inside a face would print opaque and a gradient not at all: build the
    resources it would, plus the states and shadings."""
    doc: pdfdoc.PDFDocument = c._doc  # type: ignore[attr-defined]  # ReportLab's own: no stub
    form = doc.idToObject[pdfdoc.xObjectName(name)]
    assert isinstance(form, pdfdoc.PDFFormXObject), "beginForm() made it"
    states = form.ExtGState  # type: ignore[attr-defined]  # set by Canvas._setExtGState()
    if not states and not shadings:
        return
    resources = pdfdoc.PDFResourceDictionary(ExtGState=states or {})
    resources.setShading(shadings)
    resources.basicFonts()
    resources.allProcs()
    if form.XObjects:
        resources.XObject = form.XObjects  # type: ignore[attr-defined]  # one of its dict_attributes
    form.Resources = resources


def _place(
    c: Canvas, page: Page, p: Placement, forms: dict[str, str], stamp: str | None = None
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
    c.doForm(name)
    if stamp and p.clip is None:
        _stamp(c, p, stamp)
    c.restoreState()


STAMP_PT = 4.5  # a note for playtesters, not for players
STAMP_RISE = 0.6  # mm between the stamp and the cut


def _stamp(c: Canvas, p: Placement, text: str) -> None:
    """The stamp centred in the bottom edge band of the face (inside the trim, so it survives the
    cut), in the face's coordinates with (0, 0) at the bleed's bottom-left corner. On a round
    face it sits inside the circle, raised until the chord there holds it (else it would print on
    the neighbour's bleed, outside the cut), shrunk if even a chord near the centre is short."""
    b, (w, h) = p.face.bleed, p.face.size
    font, size, y = fonts.default_face(), STAMP_PT, STAMP_RISE
    if p.face.shape[0] == "circle":
        r = min(w, h) / 2
        width = c.stringWidth(text, font, size) / K
        size = min(size, size * 1.6 * r / max(width, 1e-6))  # at most 80 % of the diameter
        half = c.stringWidth(text, font, size) / K / 2 + STAMP_RISE
        y = r - math.sqrt(max(r * r - half * half, 0.0)) + STAMP_RISE
    c.setFillColor(GREY)
    c.setFont(font, size)
    c.drawCentredString((b + w / 2) * K, (b + y) * K, text)  # face axes: turns too


def _extent(block: list[Placement]) -> tuple[float, float, float, float]:
    """A block of faces, bleed included: left, top, right, bottom in mm."""
    return (
        min(p.x - p.reach[0] for p in block),
        min(p.y - p.reach[1] for p in block),
        max(p.x + p.w + p.reach[2] for p in block),
        max(p.y + p.h + p.reach[3] for p in block),
    )


def _crop_marks(c: Canvas, page: Page) -> None:
    """Around each block, a short mark on the line of every trim edge, clear of the bleed."""
    c.saveState()
    c.setLineWidth(MARK_WIDTH_PT)
    c.setStrokeColor(black)
    for block in page.blocks():
        if round_only(block):
            continue
        _marks_around(
            c,
            page,
            _extent(block),
            {round(v, 3) for p in block for v in (p.x, p.x + p.w)},
            {round(v, 3) for p in block for v in (p.y, p.y + p.h)},
        )
    c.restoreState()


def _marks_around(
    c: Canvas,
    page: Page,
    extent: tuple[float, float, float, float],
    xs: Iterable[float],
    ys: Iterable[float],
) -> None:
    """Marks on the lines x in xs and y in ys, beyond the extent (bleed included), never past
    page.ink."""
    left, top, right, bottom = extent
    il, it, ir, ib = page.ink or (0.0, 0.0, page.w, page.h)
    for x in sorted(xs):
        _mark(c, page, (x, top - MARK_CLEAR), (x, max(top - MARK_CLEAR - MARK_LENGTH, it)))
        _mark(c, page, (x, bottom + MARK_CLEAR), (x, min(bottom + MARK_CLEAR + MARK_LENGTH, ib)))
    for y in sorted(ys):
        _mark(c, page, (left - MARK_CLEAR, y), (max(left - MARK_CLEAR - MARK_LENGTH, il), y))
        _mark(c, page, (right + MARK_CLEAR, y), (min(right + MARK_CLEAR + MARK_LENGTH, ir), y))


def _shape_guides(c: Canvas, page: Page) -> None:
    """The cut line of a round token and the corners of a rounded card, on the trim: straight crop
    marks cannot show them."""
    c.saveState()
    c.setLineWidth(MARK_WIDTH_PT)
    c.setStrokeColor(GREY)
    for p in page.placements:
        kind, r = p.face.shape
        x, y = p.x * K, (page.h - p.y - p.h) * K
        if kind == "circle":
            c.circle(x + p.w / 2 * K, y + p.h / 2 * K, p.w / 2 * K, stroke=1, fill=0)
        elif kind == "rounded":
            _corners(c, x, y, p.w * K, p.h * K, r * K)
    c.restoreState()


def _corners(c: Canvas, x: float, y: float, w: float, h: float, r: float) -> None:
    """Four quarter circles of radius r, one in each corner of the rectangle (points)."""
    for cx, cy, start in (
        (x + r, y + r, 180),
        (x + w - r, y + r, 270),
        (x + w - r, y + h - r, 0),
        (x + r, y + h - r, 90),
    ):
        c.arc(cx - r, cy - r, cx + r, cy + r, start, 90)


def _lines(c: Canvas, page: Page) -> None:
    """Cut marks a packer chose itself (for shapes whose edges are not grid lines)."""
    c.saveState()
    c.setLineWidth(MARK_WIDTH_PT)
    c.setStrokeColor(black)
    for x1, y1, x2, y2 in page.lines:
        c.line(x1 * K, (page.h - y1) * K, x2 * K, (page.h - y2) * K)
    c.restoreState()


def _tile_marks(c: Canvas, page: Page, part: Placement, crop_marks: bool) -> None:
    """A part of a split face (part.tile, t) on its sheet: where the next part's edge goes, marks
    to match, the board's cut lines."""
    face, t = part.face, part.tile
    assert t is not None
    x0, y0, x1, y1 = t.window
    left, top = t.origin
    right, bottom = left + x1 - x0, top + y1 - y0

    def px(fx: float) -> float:
        return left + fx - x0

    def py(fy: float) -> float:
        return top + fy - y0

    c.saveState()
    for colour, width, dash in (
        (Color(1, 1, 1), 1.5, ()),
        (black, 0.5, (3, 2)),
    ):  # white under black: shows on any art
        c.setStrokeColor(colour)
        c.setLineWidth(width)
        c.setDash(*dash) if dash else c.setDash()
        if t.col < t.cols - 1:  # the next sheet's cut edge lies on this line
            c.line(
                px(x1 - t.overlap) * K,
                (page.h - top) * K,
                px(x1 - t.overlap) * K,
                (page.h - bottom) * K,
            )
        if t.row < t.rows - 1:
            c.line(
                left * K,
                (page.h - py(y1 - t.overlap)) * K,
                right * K,
                (page.h - py(y1 - t.overlap)) * K,
            )
    c.setDash()
    for fx, fy in alignment_marks(t):
        _target(c, page, px(fx), py(fy))
    if crop_marks:
        fw, fh = face.full_size
        b = face.bleed
        c.setLineWidth(MARK_WIDTH_PT)
        _marks_around(
            c,
            page,
            (left, top, right, bottom),
            {px(fx) for fx in (b, fw - b) if x0 <= fx <= x1},
            {py(fy) for fy in (b, fh - b) if y0 <= fy <= y1},
        )
    c.restoreState()


def alignment_marks(t: Tile) -> list[tuple[float, float]]:
    """Targets in the face's own mm, in the middle of every overlap strip this sheet shares.

    Neighbours compute the same points for their common strip, so the marks
    coincide when the sheets are laid together.
    """
    x0, y0, x1, y1 = t.window
    marks: list[tuple[float, float]] = []
    ys = [y0 + (y1 - y0) * f for f in (0.25, 0.75)]
    xs = [x0 + (x1 - x0) * f for f in (0.25, 0.75)]
    if t.col > 0:
        marks += [(x0 + t.overlap / 2, y) for y in ys]
    if t.col < t.cols - 1:
        marks += [(x1 - t.overlap / 2, y) for y in ys]
    if t.row > 0:
        marks += [(x, y0 + t.overlap / 2) for x in xs]
    if t.row < t.rows - 1:
        marks += [(x, y1 - t.overlap / 2) for x in xs]
    return marks


def _target(c: Canvas, page: Page, x: float, y: float, r: float = 3.0) -> None:
    """A registration target: a circle and a cross, white under black so it shows on any art."""
    for colour, width in ((Color(1, 1, 1), 1.6), (black, 0.5)):
        c.setStrokeColor(colour)
        c.setLineWidth(width)
        c.circle(x * K, (page.h - y) * K, r * K, stroke=1, fill=0)
        c.line((x - r - 1.5) * K, (page.h - y) * K, (x + r + 1.5) * K, (page.h - y) * K)
        c.line(x * K, (page.h - y + r + 1.5) * K, x * K, (page.h - y - r - 1.5) * K)


def _mark(c: Canvas, page: Page, a: tuple[float, float], b: tuple[float, float]) -> None:
    if abs(a[0] - b[0]) + abs(a[1] - b[1]) < 1.0:  # no room in this margin
        return
    c.line(a[0] * K, (page.h - a[1]) * K, b[0] * K, (page.h - b[1]) * K)


def _fold_line(c: Canvas, page: Page, fold: float, word: str) -> None:
    c.saveState()
    c.setStrokeColor(GREY)
    c.setLineWidth(0.5)
    c.setDash(4, 3)
    _, top, _, bottom = page.ink or (0.0, 3.0, page.w, page.h - 3.0)
    c.line(fold * K, (page.h - top) * K, fold * K, (page.h - bottom) * K)
    c.restoreState()
    foldmarks.gutter_fold(c, page, fold, top, word)


def _label(c: Canvas, page: Page) -> None:
    """The page's label in the footer under the ink area, shrunk to fit between the margins;
    as drawn for an earlier PDF when it can be (_LABELS)."""
    left, _, right, bottom = page.ink or (5.0, 5.0, page.w - 5.0, page.h - 5.0 - FOOTER)
    name = fonts.default_face()
    label = page.label  # an Arabic or Hebrew kit's name and words: shaped, in visual order
    if shaping.needs_bidi(label):
        label = shaping.visual_line(label, name)[0]
    key = _label_key(c, label, name, (left, right, bottom, page.h))
    kept = _LABELS.get(key) if key is not None else None
    code: list[str] = c._code  # type: ignore[attr-defined]  # ReportLab's own: no stub
    if kept is not None:
        code.extend(kept)
        c._doc.ensureMinPdfVersion("transparency")  # type: ignore[attr-defined]  # as setFillColor
        return
    start = len(code)
    size = min(
        LABEL_PT,
        LABEL_PT * (right - left) * K / max(c.stringWidth(label, name, LABEL_PT), 1e-6),
    )
    c.saveState()
    c.setFillColor(GREY)
    c.setFont(name, size)
    c.drawCentredString((left + right) / 2 * K, (page.h - bottom - FOOTER + 0.5) * K, label)
    c.restoreState()
    if key is not None and memo.handing_on():
        memo.remember(_LABELS, key, code[start:], PAGES_KEPT)


# Page labels' operators by all they are drawn from (_label_key), kept from one PDF to the next
# by a long-lived process: watch writes the same labels after each save, and ReportLab's text
# object cost 0.05 ms a label (a tenth of a 1,000-card deck's PDF). Within one PDF every label
# differs (its page number), so a one-shot build keeps none.
_LABELS = workspace.Memo[tuple[object, ...], list[str]]("pdf.labels")


def _label_key(
    c: Canvas, label: str, name: str, place: tuple[float, float, float, float]
) -> tuple[object, ...] | None:
    """All a label's operators depend on: its text, place and font, the codes its characters
    have in the document's font and that font's name there, and the canvas settings the text
    object reads. None when drawing it would change the document (a character given its first
    code, the font's first use) or its font is not one ReportLab subsets as it goes."""
    font = pdfmetrics.getFont(name)
    if not isinstance(font, TTFont) or "\xa0" in label:  # U+00A0 is drawn as a space
        return None
    inside = cast(_LabelCanvas, c)
    if type(c) is not Canvas or inside._enforceColorSpace is not None:
        return None  # a canvas that writes its colours otherwise (PDF/X's CMYK)
    state = font.state.get(c._doc)  # type: ignore[attr-defined]  # ReportLab's own: no stub
    if state is None or state.internalName is None:
        return None
    codes = tuple(map(state.assignments.get, map(ord, label)))  # type: ignore[attr-defined]
    if None in codes:  # a first use, or a character the font lacks: drawn, not kept
        return None
    return (label, place, name, font, state.internalName, codes, inside.bottomup)


def _boxes(c: Canvas, page: Page) -> None:
    """TrimBox and BleedBox where a page holds one whole face (print shops read them); none
    otherwise, nor on a sheet of a face split over several, whose trim is not on the page."""
    if not page.single_face or page.tile is not None:
        c.setTrimBox(None)
        c.setBleedBox(None)
        return
    p = page.placements[0]
    left, top, right, bottom = (
        p.reach
    )  # the bleed box is the bleed printed, which the page may have cut short
    x0, y0 = p.x * K, (page.h - p.y - p.h) * K
    c.setTrimBox((x0, y0, x0 + p.w * K, y0 + p.h * K))
    c.setBleedBox((x0 - left * K, y0 - bottom * K, x0 + (p.w + right) * K, y0 + (p.h + top) * K))
