"""A page's label, and what saving the PDF would format, formatted early through ReportLab's
own objects and kept across builds: pages' content streams and the fonts' streams (compressed
once), and the save streamed to the file."""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType
from typing import BinaryIO, Protocol, cast

from reportlab import rl_config
from reportlab.pdfbase import pdfdoc
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from pnpkit import memo, workspace
from pnpkit.impose.page import FOOTER, Page
from pnpkit.pdf.forms import EncodedForm
from pnpkit.pdf.internals import doc_inside, inside
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
    names = {**vars(pdfdoc), "PDFFile": collector}
    return cast(Callable[[pdfdoc.PDFDocument], bytes], FunctionType(own.__code__, names))


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


# Pages' content streams compressed and formatted, by their text: a page seen before is not
# compressed again (a deck's back pages are alike; `watch` writes the same pages after each
# save but those of the faces changed).
PAGES_KEPT = 4096  # pages kept (a few MB); more, and they start afresh
# ...by a build with no next one (memo.handing_on): only its own pages alike come again, a
# deck's backs every other page, and a 10,000-card deck's 2,200 pages all kept held 2 kB each
# (their stream text) at its peak, the PDF's save
ONE_BUILD_PAGES_KEPT = 64
_STREAMS = workspace.Memo[tuple[str, int, int], bytes]("pdf.streams")


def _pages_kept() -> int:
    """How many pages _STREAMS keeps in this build."""
    return PAGES_KEPT if memo.handing_on() else ONE_BUILD_PAGES_KEPT


def _compress_page(c: Canvas) -> None:
    """The page just shown gets its content stream formatted now, as saving would format it,
    or as it was formatted for an earlier page of the same text."""
    doc = inside(c)._doc
    page = doc_inside(doc).Pages.pages[-1]
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


_PLAIN = pdfdoc.NoEncryption


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
    doc = cast(_FontDoc, inside(c)._doc)
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


def _label(c: Canvas, page: Page) -> None:
    """The page's label in the footer under the ink area, shrunk to fit between the margins."""
    left, _, right, bottom = page.ink or (5.0, 5.0, page.w - 5.0, page.h - 5.0 - FOOTER)
    name = fonts.default_face()
    label = page.label  # an Arabic or Hebrew kit's name and words: shaped, in visual order
    if shaping.needs_bidi(label):
        label = shaping.visual_line(label, name)[0]
    size = min(
        LABEL_PT,
        LABEL_PT * (right - left) * K / max(c.stringWidth(label, name, LABEL_PT), 1e-6),
    )
    c.saveState()
    c.setFillColor(GREY)
    c.setFont(name, size)
    c.drawCentredString((left + right) / 2 * K, (page.h - bottom - FOOTER + 0.5) * K, label)
    c.restoreState()
