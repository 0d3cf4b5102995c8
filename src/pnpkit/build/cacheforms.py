"""The cache's drawings as the PDF draws them (cache.py): FormDrawing, a compiled drawing that
keeps its finished PDF form bytes by font codes, and FormPlan, which gives a PDF's fonts every
character its forms use in a fixed order first, so that those codes hold.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Protocol, TypeGuard, cast

from reportlab import rl_config
from reportlab.pdfbase import pdfdoc, pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from pnpkit import memo
from pnpkit.build import soundops
from pnpkit.build.cachefile import (
    Dep3,
    Entry,
    Spilled,
    _AsSaved,
    _ReadBack,
    _Spill,
    _unpack_rows,
)
from pnpkit.pdf.forms import Kept
from pnpkit.pdf.internals import FontStateInside
from pnpkit.svg.drawing import Drawing
from pnpkit.svg.ops import Gradient, ImageOp, Op, TextOp, ops_from_rows, ops_to_rows
from pnpkit.typeset import fonts, shaping

if TYPE_CHECKING:
    from pnpkit.build.cache import Cache
    from pnpkit.impose.page import Page

FORM_KEYS_KEPT = 8  # form keys a drawing remembers (its PDFs: the kit, A3, changes, ...)


class _Rowed(_AsSaved):
    """The drawings' entries as saved: an entry whose rows _lean() dropped gets them again from
    its drawing's ops (an entry whose drawing is gone too is left out: it costs a compile)."""

    def __init__(
        self, entries: dict[bytes, Entry], spill: _Spill, *held: dict[bytes, FormDrawing]
    ) -> None:
        super().__init__(entries, spill)
        self.held = held

    def __getitem__(self, key: bytes) -> Entry:
        entry = self.entries[key]
        stored = entry[1]
        if isinstance(stored, tuple) and len(stored) == 4 and isinstance(stored[3], Spilled):
            try:
                return [entry[0], (*stored[:3], self.spill.read(stored[3])), *entry[2:]]
            except ValueError:  # the spill file is closed or unreadable: left out (a compile more)
                raise KeyError(key) from None
        if not (isinstance(stored, tuple) and len(stored) == 4 and stored[3] is None):
            return entry
        drawing = next((d[key] for d in self.held if key in d), None)
        if drawing is None:
            raise KeyError(key)
        rows = ops_to_rows(drawing.ops)
        return [entry[0], (*stored[:3], rows), *entry[2:]]


_NO_CHARS: frozenset[str] = frozenset()


def _by_font(drawings: list[FormDrawing]) -> dict[str, list[str]]:
    """font -> the characters each drawing sets in it: gathered as strings and put in a set once
    a font, not one set update a drawing (a 1,000-card deck's plan: a quarter less)."""
    by_font: dict[str, list[str]] = {}
    for d in drawings:
        for font, used in d.chars.items():
            by_font.setdefault(font, []).append(used)
    return by_font


class FormPlan:
    """What one PDF's forms need: every character each font draws, and the cache to replay from."""

    def __init__(
        self, cache: Cache, drawings: list[FormDrawing], chars: dict[str, set[str]] | None = None
    ) -> None:
        self.cache = cache
        self.chars: dict[str, set[str]] = chars if chars is not None else {}
        for font, used in _by_font(drawings).items():
            self.chars.setdefault(font, set()).update("".join(used))
        # the drawings whose characters it holds, by id (held: their ids stay theirs), which
        # form_key() need not check one by one
        self.members = {id(d): d for d in drawings}

    def holds(self, drawing: FormDrawing) -> bool:
        """Whether the fonts are given every character the drawing sets."""
        if self.members.get(id(drawing)) is drawing:
            return True
        return all(
            self.chars.get(font, _NO_CHARS).issuperset(chars)
            for font, chars in drawing.chars.items()
        )

    def seed(self, canvas: Canvas) -> bytes:
        """Give the document's fonts every character, in order; the font state that results
        (b"" when it cannot be had, which turns replaying off for this PDF)."""
        done: bytes | None = getattr(canvas, "_pnpkit_fonts", None)
        if done is not None:
            return done
        inside = _inside(canvas)
        h = hashlib.sha256()
        try:
            doc = inside._doc
            for name in sorted(self.chars):
                font = pdfmetrics.getFont(fonts.known(name))
                if not isinstance(font, TTFont):  # the only fonts ReportLab subsets as it goes
                    raise TypeError(name)
                font.splitString("".join(sorted(self.chars[name])), doc)
                state = font.state[doc]
                for subset in range(len(state.subsets)):
                    font.getSubsetInternalName(subset, doc)
                assignments = cast(FontStateInside, state).assignments
                h.update(repr((name, state.internalName, sorted(assignments.items()))).encode())
            done = h.digest()
        except (AttributeError, KeyError, TypeError):  # another ReportLab inside: draw everything
            done = b""
        inside._pnpkit_fonts = done
        return done


class FormDrawing(Drawing):
    """A compiled drawing that knows its cache key and, once bound to a PDF's plan, replays the
    content it drew into a PDF form with the same font state."""

    def __init__(
        self,
        width_mm: float,
        height_mm: float,
        viewbox: tuple[float, float, float, float],
        ops: tuple[Op, ...],
        *,
        key: bytes,
    ) -> None:
        self._again: Callable[[], tuple[Op, ...]] | None = None
        super().__init__(width_mm, height_mm, viewbox, ops)
        self.key = key
        self.plan: FormPlan | None = None  # the PDF it replays for, while bound (pdf_forms)
        # form_key()'s answers by font state and canvas settings, kept while a long-lived cache
        # hands this drawing to the next build
        self.form_keys: dict[tuple[object, ...], bytes] = {}
        # text_key()'s answers by settings, with the files drawn they were made for; kept alike
        self.text_keys: dict[object, tuple[object, bytes]] = {}
        # images, chars and shaped, worked out on first use. Attributes set here, not
        # functools.cached_property's: that writes into the instance's __dict__, which makes the
        # dict an object of its own (0.7 kB a drawing, a 10,000-card deck's 7 MB at its peak)
        self._images: bool | None = None
        self._chars: dict[str, str] | None = None
        self._shaped: tuple[tuple[str, str, shaping.Shaped], ...] | None = None

    @property  # the field, or made again once released
    def ops(self) -> tuple[Op, ...]:
        ops = self._ops
        if ops is None:
            assert self._again is not None, "only release() forgets them"
            return self._again()  # not kept: a released drawing stays small
        return ops

    @ops.setter
    def ops(self, ops: tuple[Op, ...]) -> None:
        self._ops: tuple[Op, ...] | None = ops

    @property
    def held(self) -> bool:
        """Whether it holds its ops (not released)."""
        return self._ops is not None

    def release(self, again: Callable[[], tuple[Op, ...]]) -> None:
        """Forget the ops and the shaped runs they hold (most of a drawing's memory): a large
        build keeps only what its PDF reads once the form's bytes are in the cache
        (earlyforms.py): the characters, whether it draws images, its form keys. `again` makes
        the ops anew for whatever asks for them after all (a form drawn again, an export)."""
        _ = self.chars, self.images  # worked out while the ops are here
        self._shaped = None
        self._again = again
        self._ops = None

    @property
    def images(self) -> bool:
        """Images and gradients cannot be replayed: their XObjects and shadings belong to each
        document."""
        if self._images is None:
            self._images = any(isinstance(op, (ImageOp, Gradient)) for op in self.ops)
        return self._images

    @property
    def chars(self) -> dict[str, str]:
        """font -> the characters this drawing sets in it, each once, in order. A string, not a
        set: a set of a card's forty characters takes 2 kB, the string a tenth of it, and every
        drawing of a deck keeps its own until the PDF is written."""
        if self._chars is None:
            chars: dict[str, set[str]] = {}
            for op in self.ops:
                if isinstance(op, TextOp):
                    chars.setdefault(op.font, set()).update(op.text)
            self.renew()
            self._chars = {font: "".join(sorted(used)) for font, used in chars.items()}
        return self._chars

    def renew(self) -> None:
        """Make the glyphs of its shaped runs that have no character of their own known to
        their fonts (before the fonts are seeded): on first use, and again when a later
        build takes this drawing over."""
        for font, text, data in self.shaped:
            shaping.register_private(font, text, data)

    @property
    def shaped(self) -> tuple[tuple[str, str, shaping.Shaped], ...]:
        """The shaped runs it sets that hold glyphs standing as private-use characters, all that
        renew() registers: (font, characters, shape data). Most drawings have none, so taking
        one over costs no step per run (watch takes a thousand over after each save)."""
        if self._shaped is None:
            self._shaped = tuple(
                (op.font, op.text, op.shaping)
                for op in self.ops
                if isinstance(op, TextOp)
                and op.shaping is not None
                and shaping.has_private(op.text)
            )
        return self._shaped

    def form_key(self, canvas: Canvas, bbox: tuple[float, float]) -> bytes | None:
        """What the PDF form this drawing makes in canvas's document depends on: the drawing,
        its box, the canvas's settings and the codes its characters have in the document's
        fonts (FormStore). None when it cannot be kept: not bound to a PDF's plan, fonts
        not seeded with its characters, or images and gradients (objects of their own)."""
        plan = self.plan
        if plan is None:
            return None
        state = plan.seed(canvas)  # the first form of a PDF seeds its fonts, whatever it draws
        if not state or self.images or not plan.holds(self):
            return None
        inside = _inside(canvas)
        canvas_settings = (bbox, inside._preamble, inside._pageCompression, type(canvas))
        library = (rl_config.useA85, rl_config.wrapA85, rl_config.invariant)
        # The seeded state names every code the fonts gave this drawing's characters (all of
        # them seeded, so none changes later in the document): the same state, the same key.
        asked = (state, canvas_settings, library)
        known = self.form_keys.get(asked)
        if known is None:
            known = self._form_key(inside, canvas_settings, library)
            memo.remember(self.form_keys, asked, known, FORM_KEYS_KEPT)
        return known

    def _form_key(
        self, inside: _CanvasInside, canvas_settings: tuple[object, ...], library: tuple[int, ...]
    ) -> bytes:
        h = hashlib.sha256(self.key)
        h.update(repr(canvas_settings).encode())
        h.update(repr(library).encode())
        for font, chars in sorted(self.chars.items()):  # each font's characters, sorted
            ttf = pdfmetrics.getFont(font)  # a TTFont, registered: seed() checked
            assert isinstance(ttf, TTFont), "seed() turns replaying off for other fonts"
            fstate = ttf.state[inside._doc]
            assigned = cast(FontStateInside, fstate).assignments
            # None: no code of its own, which splitString() turns into 0 (or 32 for U+00A0)
            codes = tuple(map(assigned.get, map(ord, chars)))
            h.update(repr((font, fstate.internalName, codes)).encode())
        return h.digest()

    def text_key(self, deps: object, settings: object) -> bytes:
        """The key of its text check's findings (Cache.text_findings) under settings, the files
        it draws being deps: its own key, deps and settings, hashed. A long-lived process keeps
        it for the next build, which takes this drawing over (watch: a thousand per save)."""
        kept = self.text_keys.get(settings)
        if kept is not None and kept[0] == deps:
            return kept[1]
        key = hashlib.sha256(self.key + repr((deps, settings)).encode()).digest()
        if memo.handing_on():
            memo.remember(self.text_keys, settings, (deps, key), FORM_KEYS_KEPT)
        return key

    def kept_form(self, key: bytes) -> Kept | None:
        """The form bytes kept under key, by this build or an earlier one (or what reads them
        back from where a large build keeps them: Kept)."""
        plan = self.plan
        assert plan is not None, "form_key() gave the key"
        cache = plan.cache
        entry = cache.forms.get(key)
        if entry is None:
            return None
        data, needs = entry[1], entry[2]
        if isinstance(data, Spilled):
            data = _ReadBack(cache._spill, data)
        elif not isinstance(data, bytes):
            return None
        if not (
            isinstance(needs, tuple) and len(needs) == 2 and all(type(n) is int for n in needs)
        ):
            return None
        entry[0] = cache.generation
        cache.stats["forms reused"] += 1
        return data, (int(needs[0]), int(needs[1]))

    def keep_form(self, key: bytes, kept: Kept) -> None:
        """Keep a form's bytes (and the PDF version its drawing asked for) under key: in a
        large build's spill file (Cache.packed), where the PDF reads them when it is saved."""
        plan = self.plan
        assert plan is not None, "form_key() gave the key"
        cache = plan.cache
        data, needs = kept
        assert isinstance(data, bytes), "a form drawn in this document"
        cache.forms[key] = [
            cache.generation,
            cache._spill.keep(data) if cache.packed else data,
            needs,
        ]
        cache.stats["forms drawn"] += 1


class _CanvasInside(Protocol):
    """What a form's key reads of ReportLab's Canvas (types-reportlab declares none of it): the
    operators every form starts with, whether streams are compressed, the document (fonts),
    and the font state seed() reached."""

    _preamble: str
    _pageCompression: int
    _doc: pdfdoc.PDFDocument
    _pnpkit_fonts: bytes  # set by seed(): absent before, so read it with getattr()


def _inside(canvas: Canvas) -> _CanvasInside:
    return cast(_CanvasInside, canvas)


def _sound_deps(deps: object) -> TypeGuard[tuple[Dep3, ...]]:
    """Whether a drawing entry's files are (href, path or None, hash or None) as drawing() keeps
    them."""
    return isinstance(deps, tuple) and all(
        isinstance(dep, tuple)
        and len(dep) == 3
        and isinstance(dep[0], str)
        and all(part is None or isinstance(part, str) for part in dep[1:])
        for dep in deps
    )


def _drawing_of(
    key: bytes, stored: tuple[object, ...], spill: _Spill, deps: tuple[Dep3, ...]
) -> FormDrawing | None:
    """The drawing a cache entry holds, if it is one the compiler could have made, drawing no
    file but those its SVG names now (soundops: the entry's `deps`, each checked by drawing()
    against the file resolved inside the pack for this build); None for anything else (a
    damaged or planted entry), which is compiled again."""
    w, h, viewbox, rows = stored
    try:
        rows = spill.read(rows) if isinstance(rows, Spilled) else rows
        rows = _unpack_rows(rows) if isinstance(rows, bytes) else rows
        ops = ops_from_rows(rows)  # type: ignore[arg-type]  # checked below
    except (ValueError, TypeError, IndexError, KeyError, EOFError):  # rows of another shape
        return None
    if not (
        soundops.numbers((w, h))
        and soundops.numbers(viewbox, 4)
        and soundops.sound(ops, {path for _, path, _ in deps if path is not None})
    ):
        return None
    return FormDrawing(w, h, viewbox, ops, key=key)  # type: ignore[arg-type]  # checked above


@contextlib.contextmanager
def pdf_forms(cache: Cache, pages: list[Page]) -> Iterator[FormPlan]:
    """While one PDF of these pages is written, its faces take their forms' finished bytes
    from the cache (face_form), and keep the ones drawn afresh there."""
    owned = [
        (f, d)
        for f in {id(p.face): p.face for page in pages for p in page.placements}.values()
        if isinstance(d := f.drawing, FormDrawing)
    ]
    drawings = list({id(d): d for _, d in owned}.values())
    plan = FormPlan(cache, drawings)
    # bound in place, not as copies: a copy's own __dict__ cost 0.4 kB a face at a large
    # build's peak; one PDF is written at a time, so no drawing is bound to two plans
    for d in drawings:
        d.plan = plan
    try:
        yield plan
    finally:
        for d in drawings:
            d.plan = None
