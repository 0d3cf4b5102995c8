"""Content-keyed cache of rendered faces and compiled drawings: a rebuild redoes only what changed.

A face's SVG is looked up under a hash of everything its template sees (the
item's values, the face geometry, the pack's strings, data and name, the
language, the minimum font size), the source of its template and of every
template it extends, imports or includes, the pack's rules.py (it may add
template globals), and the engine itself (pnpkit's code and fonts, the
versions of the libraries that shape the output). A compiled drawing is looked
up under a hash of its SVG and checked against the content of every file the
SVG draws (art). So an entry is never served for inputs that differ from the
ones it was made from, and deleting the cache only costs time.

Only faces rendered without any problem are stored: a face with a problem is
rendered again on every build, so its problems are always reported.

Writing the PDF is the larger half of a rebuild, and most of it is drawing
each face into its PDF form. pdf_forms() lets the faces of a PDF replay their
form's content from the cache instead (FormDrawing). That content depends on
the document only through its fonts: which PDF font name and which character
code each glyph gets. So before the first form is drawn the fonts are given
every character the forms use, in a fixed order, and the entry's key includes
the resulting font state. A character that appears for the first time changes
that state, and every form is drawn again (correctly, just not faster).

The cache of a pack is one file, OUT/pnpkit-cache/<pack id>.marshal (marshal: fast,
and unlike pickle it cannot run code). Entries unused for KEEP builds in a row
are dropped when it is saved.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import importlib.metadata
import marshal
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol, cast

import jinja2
from reportlab.pdfbase import pdfdoc, pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from pnpkit import fonts, parallel, render, shaping, svgdraw
from pnpkit.errors import Problem
from pnpkit.layout import Page
from pnpkit.model import Face, Group, Item, Pack

FORMAT = b"pnpkit-cache 3\n"  # 3: drawing ops stored as svgdraw.op_row() rows
KEEP = 20  # builds an unused entry survives (other languages, --paper variants, undo)
LIBRARIES = ("jinja2", "lxml", "reportlab", "svglib", "pyyaml", "uharfbuzz", "python-bidi")

# [generation, *what the entry keeps]: a list, so that using it renews it in place. It holds
# plain data for marshal, so its parts are narrowed with isinstance() where they are read.
Entry = list[object]
Dep = tuple[str | None, str | None]  # a file an SVG draws: (resolved path, hash of its content)


@functools.lru_cache(maxsize=1)
def engine() -> bytes:
    """A hash of what turns the same inputs into different output: pnpkit's code and fonts,
    the Python and library versions. Computed once per process, i.e. of the code it runs."""
    h = hashlib.sha256(sys.version.encode())
    for name in LIBRARIES:
        try:
            h.update(f"{name} {importlib.metadata.version(name)}".encode())
        except importlib.metadata.PackageNotFoundError:
            h.update(name.encode())
    package = Path(__file__).resolve().parent
    for path in sorted(
        p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    ):
        h.update(str(path.relative_to(package)).encode())
        h.update(path.read_bytes())
    return h.digest()


class Cache:
    """Faces and drawings of one pack, in memory, optionally kept in a folder between processes.

    begin(pack) starts a build; render() and drawing() serve or make entries;
    save() writes the pack's file. `stats` counts what the last build did.
    """

    def __init__(self, folder: Path | None = None, deferred: bool = False, jobs: int = 0):
        self.folder = folder
        self.deferred = deferred  # save() writes only when forced (watch writes when idle)
        self.jobs = jobs or 1  # processes rendering a large build (opt-in: see parallel.py)
        self.ahead = parallel.Ahead()  # what they made, taken by render() and drawing()
        self.dirty = False
        self.path: Path | None = None
        self.faces: dict[bytes, Entry] = {}  # key -> [generation, svg]
        self.drawings: dict[bytes, Entry] = {}  # key -> [generation, drawing fields, deps]
        self.forms: dict[bytes, Entry] = {}  # key -> [generation, PDF content, graphics states]
        self.generation = 0
        self.stats: Counter[str] = Counter()
        self.error = ""  # why the last save failed, if it did
        self._memo = _Memo()

    # ------------------------------------------------------------ lifecycle

    def begin(self, pack: Pack) -> None:
        """Start a build of pack: load its cache file the first time it is seen."""
        path = self.folder / f"{pack.id}.marshal" if self.folder else None
        if path != self.path:
            self.path = path
            self.generation, self.faces, self.drawings, self.forms = _read(path)
        self.generation += 1
        self.dirty = True
        self.stats = Counter()
        self._memo = _Memo()

    def save(self, force: bool = False) -> None:
        """Drop entries unused for KEEP builds; write the file atomically (a failure only costs
        time)."""
        if (self.deferred and not force) or not self.dirty:
            return
        oldest = self.generation - KEEP
        self.faces = _recent(self.faces, oldest)
        self.drawings = _recent(self.drawings, oldest)
        self.forms = _recent(self.forms, oldest)
        self.dirty = False
        if self.path is None:
            return
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            data = (
                FORMAT
                + engine()
                + marshal.dumps((self.generation, self.faces, self.drawings, self.forms))
            )
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(data)
            os.replace(tmp, self.path)
            self.error = ""
        except (OSError, ValueError) as exc:  # ValueError: marshal met a value it cannot write
            self.error = f"could not save the build cache: {exc}"
        finally:
            tmp.unlink(missing_ok=True)

    # ------------------------------------------------------------ faces

    def render(
        self, pack: Pack, lang: str, env: jinja2.Environment
    ) -> tuple[list[Face], list[Problem]]:
        """render.render(), serving unchanged faces from the cache."""
        faces: list[Face] = []
        problems: list[Problem] = []
        shared = render.pack_context(pack, lang)
        py = render.python_faces(env, pack, lang, shared, problems)
        keys = {
            (group.name, n, side): self._face_key(pack, group, item, side, name, lang, shared, env)
            for group in pack.groups.values()
            for n, item in enumerate(group.items)
            for side, name in item.templates.items()
        }
        todo = [k for k, v in keys.items() if self.faces.get(v or b"") is None]
        self.ahead = parallel.prepare(env, pack, lang, shared, todo, self.jobs)  # large builds only
        for group in pack.groups.values():
            for n, item in enumerate(group.items):
                for side, name in item.templates.items():
                    key = keys[group.name, n, side]
                    entry = self.faces.get(key) if key else None
                    svg = entry[1] if entry is not None else None
                    face: Face | None
                    if entry is not None and isinstance(svg, str):
                        entry[0] = self.generation
                        face = render.item_face(group, item, side, svg, name, broken=False)
                        self.stats["faces reused"] += 1
                    else:
                        found: list[Problem] = []
                        made = self.ahead.take_face((group.name, n, side))
                        if made is not None:
                            face, found = made
                        else:
                            face = render.render_face(
                                env, pack, group, item, side, name, lang, shared, found, py
                            )
                        problems += found
                        self.stats["faces rendered"] += 1
                        if face is not None and not found and key:
                            self.faces[key] = [self.generation, face.svg]
                    if face is not None:
                        faces.append(face)
        return faces, problems

    def _face_key(
        self,
        pack: Pack,
        group: Group,
        item: Item,
        side: str,
        name: str,
        lang: str,
        shared: dict[str, object],
        env: jinja2.Environment,
    ) -> bytes | None:
        """Everything the face's SVG depends on, hashed; None if its template cannot be read.

        The context is the one render_face() hands the template (bar text_box, whose
        behaviour depends on the minimum font size, hashed with the pack's part)."""
        base = self._base(pack, lang, shared)
        source = self._template_sources(env, name)
        if source is None:
            return None
        h = hashlib.sha256(base)
        h.update(source)
        h.update(repr(render.face_context(pack, group, item, side, lang)).encode())
        return h.digest()

    def _base(self, pack: Pack, lang: str, shared: dict[str, object]) -> bytes:
        """The pack-wide part of a face's inputs in one language, hashed once per build."""
        bases = self._memo.bases
        if lang not in bases:
            h = hashlib.sha256(engine())
            for part in (
                shared,
                pack.print.min_font_pt,
                fonts.signature(),
                sorted(render.icon_files(pack)),
            ):
                h.update(repr(part).encode() + b"\0")
            if pack.rules_file is not None:  # it may register template functions
                h.update(_file_bytes(pack.rules_file))
            bases[lang] = h.digest()
        return bases[lang]

    def _template_sources(self, env: jinja2.Environment, name: str) -> bytes | None:
        """The file names and sources of a template and every template it uses (all of them
        when it names one by a variable), hashed; None if one cannot be read or parsed."""
        templates = self._memo.templates
        if name not in templates:
            templates[name] = _family_hash(env, name)
        return templates[name]

    # ------------------------------------------------------------ drawings

    def drawing(self, svg: str, resolve: svgdraw.Resolver) -> svgdraw.Drawing:
        """svgdraw.compile_svg(svg, resolve), from the cache while the SVG and the files it draws
        are unchanged. Raises svgdraw.SvgError as compile_svg does (failures are not stored)."""
        key = hashlib.sha256(engine() + fonts.signature().encode() + svg.encode("utf-8")).digest()
        done = self._memo.drawings.get(key)
        if done is not None:
            return done
        entry = self.drawings.get(key)
        stored, deps_then = (entry[1], entry[2]) if entry is not None else (None, None)
        drawing: FormDrawing
        if (
            entry is not None
            and isinstance(stored, tuple)
            and isinstance(deps_then, tuple)
            and all(self._dep(href, resolve) == tuple(dep) for href, *dep in deps_then)
        ):
            entry[0] = self.generation
            self.stats["drawings reused"] += 1
            w, h, viewbox, rows = stored
            ops = svgdraw.ops_from_rows(rows)
            drawing = FormDrawing(w, h, viewbox, ops, key=key)
        else:
            deps: list[tuple[str, str | None, str | None]] = []

            def recording(href: str) -> str | None:
                resolve(href)  # a file outside the pack raises here, for compile_svg to report
                dep = self._dep(href, resolve)
                deps.append((href, *dep))
                return dep[0]

            compiled, rows = self.ahead.compile_rows(svg, recording)  # rows: what marshal takes
            self.stats["drawings compiled"] += 1
            fields = (compiled.width_mm, compiled.height_mm, compiled.viewbox, compiled.ops)
            self.drawings[key] = [self.generation, (*fields[:3], rows), tuple(deps)]
            drawing = FormDrawing(*fields, key=key)
        self._memo.drawings[key] = drawing
        return drawing

    def _dep(self, href: str, resolve: svgdraw.Resolver) -> Dep:
        """(resolved path, hash of its content) of a file an SVG draws; (None, None) if there is
        none."""
        try:
            path = resolve(href)
        except ValueError:  # it now leads outside the pack: no cached drawing matches
            return (None, None)
        if path is None:
            return (None, None)
        files = self._memo.files
        if path not in files:
            files[path] = hashlib.sha256(_file_bytes(Path(path))).hexdigest()
        return (path, files[path])

    # ------------------------------------------------------------ PDF forms

    @contextlib.contextmanager
    def pdf_forms(self, pages: list[Page]) -> Iterator[_FormPlan]:
        """While one PDF of these pages is written, its faces replay their form content from the
        cache."""
        owned = [
            (f, d)
            for f in {id(p.face): p.face for page in pages for p in page.placements}.values()
            if isinstance(d := f.drawing, FormDrawing)
        ]
        drawings = {id(d): d for _, d in owned}
        plan = _FormPlan(self, list(drawings.values()))
        bound = {k: d.bound(plan) for k, d in drawings.items()}
        for face, d in owned:
            face.drawing = bound[id(d)]
        try:
            yield plan
        finally:
            for face, _ in owned:
                if isinstance(face.drawing, FormDrawing):  # as bound above
                    face.drawing = face.drawing.unbound


class _FormPlan:
    """What one PDF's forms need: every character each font draws, and the cache to replay from."""

    def __init__(self, cache: Cache, drawings: list[FormDrawing]) -> None:
        self.cache = cache
        self.ahead: Callable[[bytes], dict[bytes, Entry]] | None = (
            None  # forms drawn elsewhere meanwhile (formsahead)
        )
        self.chars: dict[str, set[str]] = {}
        for d in drawings:
            for font, chars in d.chars.items():
                self.chars.setdefault(font, set()).update(chars)

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
                font = pdfmetrics.getFont(name)
                if not isinstance(font, TTFont):  # the only fonts ReportLab subsets as it goes
                    raise TypeError(name)
                font.splitString("".join(sorted(self.chars[name])), doc)
                state = font.state[doc]
                for subset in range(len(state.subsets)):
                    font.getSubsetInternalName(subset, doc)
                assignments = state.assignments  # type: ignore[attr-defined]  # not in the stubs
                h.update(repr((name, state.internalName, sorted(assignments.items()))).encode())
            done = h.digest()
        except (AttributeError, KeyError, TypeError):  # another ReportLab inside: draw everything
            done = b""
        inside._pnpkit_fonts = done
        return done


class FormDrawing(svgdraw.Drawing):
    """A compiled drawing that knows its cache key and, once bound to a PDF's plan, replays the
    content it drew into a PDF form with the same font state."""

    def __init__(
        self,
        width_mm: float,
        height_mm: float,
        viewbox: tuple[float, float, float, float],
        ops: tuple[svgdraw.Op, ...],
        *,
        key: bytes,
    ) -> None:
        super().__init__(width_mm, height_mm, viewbox, ops)
        self.key = key
        self.plan: _FormPlan | None = None
        self.unbound = self

    @functools.cached_property
    def images(self) -> bool:
        """Images and gradients cannot be replayed: their XObjects and shadings belong to each
        document."""
        return any(isinstance(op, (svgdraw.ImageOp, svgdraw.Gradient)) for op in self.ops)

    @functools.cached_property
    def chars(self) -> dict[str, set[str]]:
        """font -> the characters this drawing sets in it."""
        chars: dict[str, set[str]] = {}
        for op in self.ops:
            if isinstance(op, svgdraw.TextOp):
                if op.shaping is not None:  # glyphs with no character of their own: known first
                    shaping.register_private(op.font, op.text, op.shaping)
                chars.setdefault(op.font, set()).update(op.text)
        return chars

    @functools.cached_property
    def paints(self) -> bool:
        """Whether drawing calls setFillAlpha/setStrokeAlpha (svgdraw._set_paint), which mark
        the PDF as 1.4."""
        return any(
            (isinstance(op, (svgdraw.PathOp, svgdraw.TextOp)) and (op.fill or op.stroke))
            or isinstance(op, svgdraw.Gradient)
            for op in self.ops
        )

    def bound(self, plan: _FormPlan) -> FormDrawing:
        """This drawing, replaying for the PDF of plan."""
        twin = copy.copy(self)
        twin.plan = plan
        return twin

    def draw(self, canvas: Canvas, x_pt: float = 0, y_pt: float = 0) -> None:
        """Drawing.draw(), or the content it drew before into a PDF form with the same font
        state."""
        plan = self.plan
        if plan is None:
            return super().draw(canvas, x_pt, y_pt)
        state = plan.seed(canvas)
        seeded = bool(state) and all(
            chars <= plan.chars.get(font, set()) for font, chars in self.chars.items()
        )
        inside = _inside(canvas)
        fresh_form = not inside._code and not inside._extgstate._c  # nothing drawn before it
        if not (seeded and fresh_form) or self.images:
            return super().draw(canvas, x_pt, y_pt)
        cache = plan.cache
        key = hashlib.sha256(self.key + state + repr((x_pt, y_pt)).encode()).digest()
        entry = cache.forms.get(key)
        if entry is None and plan.ahead is not None:  # perhaps drawn by formsahead's child
            cache.forms.update(plan.ahead(self.key))
            entry = cache.forms.get(key)
        content, states = (entry[1], entry[2]) if entry is not None else (None, None)
        if entry is not None and isinstance(content, str) and isinstance(states, tuple):
            entry[0] = cache.generation
            inside._code.append(content)
            inside._extgstate._c.update(dict(states))
            if self.paints:  # what setFillAlpha() would have said
                inside._doc.ensureMinPdfVersion("transparency")
            cache.stats["forms reused"] += 1
            return None
        super().draw(canvas, x_pt, y_pt)
        cache.forms[key] = [
            cache.generation,
            "\n".join(inside._code),
            tuple(inside._extgstate._c.items()),
        ]
        cache.stats["forms drawn"] += 1
        return None


class _GraphicsStates(Protocol):
    _c: dict[tuple[str, object], str]  # (key, value) -> the ExtGState's name in the resources


class _CanvasInside(Protocol):
    """What replaying a form reads and writes of ReportLab's Canvas (types-reportlab declares
    none of it): the operators of the page or form being drawn, its graphics states (alpha),
    the document (fonts, PDF version), and the font state seed() reached."""

    _code: list[str]
    _extgstate: _GraphicsStates
    _doc: pdfdoc.PDFDocument
    _pnpkit_fonts: bytes  # set by seed(): absent before, so read it with getattr()


def _inside(canvas: Canvas) -> _CanvasInside:
    return cast(_CanvasInside, canvas)


class _Memo:
    """What one build computes once: the pack-wide hash of each language's faces, the hash of
    each template family, compiled drawings by key, file hashes by path."""

    def __init__(self) -> None:
        self.bases: dict[str, bytes] = {}
        self.templates: dict[str, bytes | None] = {}
        self.drawings: dict[bytes, FormDrawing] = {}
        self.files: dict[str, str] = {}


def _recent(entries: dict[bytes, Entry], oldest: int) -> dict[bytes, Entry]:
    """The entries used since generation `oldest`."""
    return {k: v for k, v in entries.items() if isinstance(v[0], int) and v[0] > oldest}


def _family_hash(env: jinja2.Environment, name: str) -> bytes | None:
    try:
        family = render.template_family(env, name)
    except jinja2.TemplateError:
        return None
    h = hashlib.sha256()
    for current, filename, source in family:
        h.update(f"{current}\0{filename}\0{source}\0".encode())
    return h.digest()


def _file_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _read(
    path: Path | None,
) -> tuple[int, dict[bytes, Entry], dict[bytes, Entry], dict[bytes, Entry]]:
    """A cache file's generation and entries; nothing if it is missing, damaged or from another
    engine."""
    empty: tuple[int, dict[bytes, Entry], dict[bytes, Entry], dict[bytes, Entry]]
    empty = (0, {}, {}, {})
    if path is None:
        return empty
    try:
        data = path.read_bytes()
    except OSError:
        return empty
    head = FORMAT + engine()
    if not data.startswith(head):
        return empty
    try:
        generation, faces, drawings, forms = marshal.loads(data[len(head) :])
    except (EOFError, ValueError, TypeError):
        return empty
    if not (
        isinstance(generation, int) and all(isinstance(d, dict) for d in (faces, drawings, forms))
    ):
        return empty
    return generation, faces, drawings, forms
