"""A page's PDF objects written by hand and kept across builds: the page's content stream
and resources, compressed once, and the fonts' streams (ReportLab's document objects
formatted as ReportLab would, measured faster; the byte-identical tests hold them to it)."""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable
from types import FunctionType
from typing import BinaryIO, Protocol, cast

from reportlab import rl_config
from reportlab.pdfbase import pdfdoc, pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from pnpkit import memo, workspace
from pnpkit.impose.layout import FOOTER, Page
from pnpkit.pdf.forms import EncodedForm
from pnpkit.pdf.marks import GREY, LABEL_PT, K
from pnpkit.typeset import fonts, shaping

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
_STREAMS = workspace.Memo[tuple[str, int, int], bytes]("pdf.streams")


def _pages_kept() -> int:
    """How many pages of each kind writer._DRAWN and _STREAMS keep in this build."""
    return PAGES_KEPT if memo.handing_on() else ONE_BUILD_PAGES_KEPT


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


class _LabelCanvas(Protocol):
    """What _label_key() reads of ReportLab's Canvas (not in types-reportlab)."""

    bottomup: int
    _enforceColorSpace: object


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
