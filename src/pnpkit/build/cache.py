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
each face into its PDF form and compressing it. pdf_forms() lets the faces of a PDF
take their form's finished bytes (compressed, formatted) from the cache instead
(FormDrawing, FormStore). Those bytes depend on the document only through its
fonts: which PDF font name and which character code each glyph gets. So before the
first form is drawn the fonts are given every character the forms use, in a fixed
order, and an entry's key holds the codes of the form's own characters. A character
that appears for the first time shifts the codes of the characters sorted after it,
and the forms that use those are drawn again (correctly, just not faster).

The cache of a pack is one file, OUT/pnpkit-cache/<pack id>.marshal (marshal: fast,
and unlike pickle it cannot run code). Entries unused for KEEP builds in a row
are dropped when it is saved.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import hashlib
import marshal
import os
import re
import sys
import tempfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, BinaryIO, Protocol, TypeGuard, cast

import jinja2
import lxml.etree
import PIL
import reportlab
import uharfbuzz
import yaml
from reportlab import rl_config
from reportlab.pdfbase import pdfdoc, pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from pnpkit import memo
from pnpkit.build import soundops
from pnpkit.errors import Problem
from pnpkit.faces import render
from pnpkit.faces.templates import template_family
from pnpkit.faces.textboxes import icon_files
from pnpkit.impose.layout import Page
from pnpkit.pack.model import Face, Group, Item, Pack
from pnpkit.pdf import forms
from pnpkit.pdf.forms import form_name
from pnpkit.pdf.internals import FontStateInside
from pnpkit.svg import compiler as svgdraw
from pnpkit.svg.drawing import Drawing
from pnpkit.svg.ops import (
    Gradient,
    ImageOp,
    Op,
    Resolver,
    TextOp,
    ops_from_rows,
    ops_to_rows,
)
from pnpkit.typeset import fonts, shaping

FORMAT = b"pnpkit-cache 4\n"  # 3: drawing ops stored as op_row() rows; 4: in parts
LEAN = 2000  # drawings in a build from which their entries' rows wait for save() (_lean)
KEEP = 20  # builds an unused entry survives (other languages, --paper variants, undo)
MAX_ROWS = 1 << 26  # bytes a drawing's packed rows may inflate to (a deck's: 9 kB)
FORM_KEYS_KEPT = 8  # form keys a drawing remembers (its PDFs: the kit, A3, changes, ...)

# [generation, *what the entry keeps]: a list, so that using it renews it in place. It holds
# plain data for marshal, so its parts are narrowed with isinstance() where they are read.
Entry = list[object]
Dep = tuple[str | None, str | None]  # a file an SVG draws: (resolved path, hash of its content)
Dep3 = tuple[str, str | None, str | None]  # and the href that named it, as an entry keeps it


@functools.lru_cache(maxsize=1)
def engine() -> bytes:
    """A hash of what turns the same inputs into different output: pnpkit's code and fonts,
    the Python and library versions. Computed once per process, i.e. of the code it runs."""
    h = hashlib.sha256(sys.version.encode())
    for name, version in library_versions():
        h.update(f"{name} {version}".encode())
    package = Path(__file__).resolve().parent.parent
    for path in _package_files(package):
        h.update(path.relative_to(package).as_posix().encode())
        h.update(path.read_bytes())
    return h.digest()


def library_versions() -> list[tuple[str, str]]:
    """(distribution, version) of each library that shapes the output, as the modules that the
    build imports anyway say it (their code is what runs): importlib.metadata.version() cost
    every command the import of importlib.metadata (email, zipfile, csv, socket...: 30-40 ms)
    and 10 ms of lookups."""
    return [
        ("jinja2", jinja2.__version__),
        ("lxml", lxml.etree.__version__),
        ("reportlab", reportlab.Version),
        ("pyyaml", yaml.__version__),
        ("uharfbuzz", uharfbuzz.__version__),
        ("pillow", PIL.__version__),  # ReportLab encodes a form's images through it
        ("zlib", zlib.ZLIB_RUNTIME_VERSION),  # every stream of a kept form is compressed by it
    ]


def _package_files(package: Path) -> list[Path]:
    """Every regular file of the package but compiled bytecode, in a fixed order (os.walk:
    pathlib's rglob took 5 ms of the 100 files). os.walk lists whatever is not a folder: an
    editor's dangling lock link (Emacs' `.#cache.py`) or a FIFO is left out, not read."""
    found = []
    for folder, subfolders, files in os.walk(package):
        subfolders[:] = [s for s in subfolders if s != "__pycache__"]
        found += [path for name in files if (path := Path(folder, name)).is_file()]
    return sorted(found)


class Cache:
    """Faces and drawings of one pack, in memory, optionally kept in a folder between processes.

    begin(pack) starts a build; render() and drawing() serve or make entries;
    save() writes the pack's file. `stats` counts what the last build did.
    """

    def __init__(self, folder: Path | None = None, deferred: bool = False):
        self.folder = folder
        self.deferred = deferred  # save() writes only when forced (watch writes when idle)
        self.dirty = False
        self.path: Path | None = None
        self.faces: dict[bytes, Entry] = {}  # key -> [generation, svg, or a large build's KeptFace]
        self.drawings: dict[bytes, Entry] = {}  # key -> [generation, drawing fields, deps]
        self.forms: dict[bytes, Entry] = {}  # key -> [generation, form bytes, PDF version]
        self.generation = 0
        self.stats: Counter[str] = Counter()
        self.error = ""  # why the last save failed, if it did
        self._memo = _Memo()
        # The previous build's decoded drawings by key: a long-lived cache (watch) hands them to
        # the next build while their entries still match, with what they worked out already
        # (characters, form keys), instead of decoding their rows again.
        self._decoded: dict[bytes, FormDrawing] = {}
        self._keyed: dict[tuple[int, str, str], _FaceKey] = {}  # the previous build's face keys
        self._svg_keys: dict[str, tuple[bytes, bytes]] = {}  # and drawing keys (_drawing_key)
        self.texts = TextChecks()  # build._check_texts' findings per drawing, in their own file
        # A large build's drawings keep their entries' rows packed (_pack_rows): a few kB of
        # bytes instead of a tuple per op, as their drawings are released once checked
        # (FormDrawing.release, earlyforms.py). build.validate() sets it for such a build.
        self.packed = False
        # where a large build's packed rows wait for save(), out of memory (_Spill)
        self._spill = _Spill()
        # where its faces' SVG texts wait (KeptFace): a file of its own, which lives as long as
        # the faces reading it (save() closes the other)
        self._svg_file = _Spill()

    # ------------------------------------------------------------ lifecycle

    def begin(self, pack: Pack) -> None:
        """Start a build of pack: load its cache file the first time it is seen."""
        path = self.folder / f"{pack.id}.marshal" if self.folder else None
        gc.unfreeze()  # a build that stopped at an error never reached save()
        self._decoded, self._keyed = self._memo.drawings, self._memo.keys
        self._svg_keys = self._memo.svg_keys
        if path != self.path:
            self.path = path
            self.generation, self.faces, self.drawings, self.forms = _read(path)
            self._decoded, self._keyed, self._svg_keys = {}, {}, {}
        # What exists now (the cache's million tuples, the pack, the modules) lives through the
        # build: the collector need not walk it again and again while the build allocates (a
        # tenth of a no-op rebuild's time); save() hands it back.
        gc.freeze()
        self.generation += 1
        self.dirty = True
        self.stats = Counter()
        self._memo = _Memo()
        self.packed = False  # until build.validate() says this build streams

    def hold(self) -> None:
        """What the build made so far (its faces, drawings and pages) lives through it too:
        frozen as begin() froze the cache's own, so the collector does not walk it again while
        the PDF is written (0.1-0.3 s of a 1,000-card build); save() hands it back."""
        self._lean()
        gc.freeze()

    def _lean(self) -> None:
        """A build of LEAN drawings or more that saves right after (not `deferred`) drops their
        entries' rows while it writes the PDF: the rows repeat the drawings' ops as plain tuples
        (a third of what a drawing holds), and save() makes them again from the ops, a part at a
        time. Below LEAN the rows stay: making them again costs 40-70 ms a 1,000 drawings."""
        made = self._memo.drawings
        if self.deferred or len(made) < LEAN:
            return
        for key in made:
            entry = self.drawings.get(key)
            stored = entry[1] if entry is not None else None
            if entry is not None and isinstance(stored, tuple) and len(stored) == 4:
                if isinstance(stored[3], tuple):  # packed rows (bytes) are small: they stay
                    entry[1] = (*stored[:3], None)

    def save(self, force: bool = False, stop: Callable[[], bool] | None = None) -> None:
        """Drop entries unused for KEEP builds; write the file atomically (a failure only costs
        time). `stop` is asked before each part is written (watch's save when idle: whether the
        pack changed since); True leaves the cache's file as it was (the text checks' file,
        written first, may be the new one already: each entry is keyed by what it says) and
        the cache still to save, so a save holds the build of a change up for a part (a few
        ms), not the whole save (a 1,000-card deck's: 0.1 s)."""
        gc.unfreeze()  # see begin()
        if (self.deferred and not force) or not self.dirty:
            return
        oldest = self.generation - KEEP
        self.faces = _recent(self.faces, oldest)
        self.drawings = _recent(self.drawings, oldest)
        self.forms = _recent(self.forms, oldest)
        self.dirty = False
        try:
            self.texts.save(self.path, oldest, stop)
            if self.path is not None:
                rowed = _Rowed(self.drawings, self._spill, self._memo.drawings, self._decoded)
                forms = _Unspilled(self.forms, self._spill)
                faces = _Texted(self.faces, self._svg_file)
                failure = _save_marshalled(self.path, self.generation, [faces, rowed, forms], stop)
                self.error = f"could not save the build cache: {failure}" if failure else ""
        except _Stopped:
            self.dirty = True
            return
        except BaseException:  # Ctrl-C in the middle: still to save (watch saves as it stops)
            self.dirty = True
            raise
        if not self.deferred:  # a one-shot build's spilled rows were kept for this file alone
            self._spill.close()

    # ------------------------------------------------------------ faces

    def render(
        self, pack: Pack, lang: str, env: jinja2.Environment
    ) -> tuple[list[Face], list[Problem]]:
        """render.render(), serving unchanged faces from the cache."""
        faces: list[Face] = []
        problems: list[Problem] = []
        for batch, found in self.render_batches(pack, lang, env):
            faces += batch
            problems += found
        return faces, problems

    def render_batches(
        self, pack: Pack, lang: str, env: jinja2.Environment, size: int = 0
    ) -> Iterator[tuple[list[Face], list[Problem]]]:
        """render()'s faces in batches of `size` (0: one batch), each with the problems found
        since the batch before: a large build compiles and checks each batch before the next
        is rendered (earlyforms), so what rendering leaves for compiling (svgdraw's laid text)
        and the text shapes it measured are used while they are fresh."""
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
        self._memo.items.clear()  # every face is keyed: their items' reprs (0.7 kB each) go
        alike: render.Alike = {}
        for group in pack.groups.values():
            for n, item in enumerate(group.items):
                for side, name in item.templates.items():
                    key = keys[group.name, n, side]
                    entry = self.faces.get(key) if key else None
                    svg = entry[1] if entry is not None else None
                    if isinstance(svg, KeptFace):  # a face alike earlier in this build
                        svg = svg.svg
                    face: Face | None
                    found: list[Problem] = []
                    if entry is not None and isinstance(svg, str):
                        entry[0] = self.generation
                        face = render.item_face(group, item, side, svg, name, broken=False)
                        self.stats["faces reused"] += 1
                    else:
                        face = render.render_face(
                            env, pack, group, item, side, name, lang, shared, found, py, alike
                        )
                        problems += found
                        self.stats["faces rendered"] += 1
                        entry = None
                    if face is not None:
                        face = self._kept(face)
                        if entry is not None:
                            entry[1] = face if self.packed else face.svg
                        elif not found and key:
                            self.faces[key] = [self.generation, face if self.packed else face.svg]
                        faces.append(face)
                    if size and len(faces) >= size:
                        yield faces, problems
                        faces, problems = [], []
        yield faces, problems

    def _kept(self, face: Face) -> Face:
        """The face as this build keeps it: in a large build (packed), a KeptFace, which its
        table entry holds in place of the text, so that keep_texts() takes the text out of both
        at once; else with the first string of this build equal to its SVG (_one_copy)."""
        if self.packed:
            return KeptFace(*[getattr(face, name) for name in _FACE_FIELDS])
        face.svg = self._one_copy(face.svg)
        return face

    def _one_copy(self, svg: str) -> str:
        """The first string of this build equal to svg: faces alike (a deck's backs) share one
        copy of their SVG text from the build's start to its end, not one each (a large build's
        faces keep theirs in a file instead: KeptFace)."""
        return self._memo.svgs.setdefault(svg, svg)

    def keep_texts(self, faces: list[Face]) -> None:
        """A large build's faces whose drawings are compiled, checked and drawn into their
        forms: their SVG texts go to a temporary file (KeptFace), each SVG once while a face
        alike (a deck's back) comes again within TEXTS_KEPT others."""
        for face in faces:
            if isinstance(face, KeptFace):
                face.keep(self._svg_file, self._memo.svgs_kept)

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
        parts = self._parts(pack, group, side, name, lang, shared, env)
        if parts is None:
            return None
        _, base, source, _ = parts
        if not self.deferred:  # a one-shot build: no next build to hand the key to
            return self._digest(pack, group, item, side, lang, base, source)
        # The same item (schema keeps an unchanged item's object from load to load in watch)
        # with the same template, pack-wide part and geometry: the digest made last build.
        slot = (id(item), lang, side)
        kept = self._keyed.get(slot)
        if kept is None or kept.item is not item or kept.parts != parts:
            kept = _FaceKey(item, parts, self._digest(pack, group, item, side, lang, base, source))
        self._memo.keys[slot] = kept
        return kept.digest

    def _parts(
        self,
        pack: Pack,
        group: Group,
        side: str,
        name: str,
        lang: str,
        shared: dict[str, object],
        env: jinja2.Environment,
    ) -> tuple[str, bytes, bytes, str] | None:
        """What a face's key takes from outside its item, made once per group, side, template
        and language in a build: the template's name, the pack-wide part, the template family's
        hash and the geometry; None if the template cannot be read."""
        made = self._memo.parts
        at = (id(group), side, name, lang)  # ids hold: the groups live through the build
        if at not in made:
            source = self._template_sources(env, name)
            base = self._base(pack, lang, shared)
            made[at] = (
                None if source is None else (name, base, source, self._geometry(pack, group, side))
            )
        return made[at]

    def _digest(
        self, pack: Pack, group: Group, item: Item, side: str, lang: str, base: bytes, source: bytes
    ) -> bytes:
        """The face's key made afresh from the pack-wide part, the template family and the
        face's context."""
        h = hashlib.sha256(base)
        h.update(source)
        h.update(self._context_repr(pack, group, item, side, lang).encode())
        return h.digest()

    def _context_repr(self, pack: Pack, group: Group, item: Item, side: str, lang: str) -> str:
        """repr(render.face_context(...)), its two parts made once per item and per group side
        (a card's front and back see the same item; a group's faces, the same geometry)."""
        memo = self._memo.items
        item_key = (id(item), lang)
        if item_key not in memo:  # ids hold: the pack's groups and items live through the build
            memo[item_key] = repr(render.item_values(item, lang))
        return f"{{'item': {memo[item_key]}, 'face': {self._geometry(pack, group, side)}}}"

    def _geometry(self, pack: Pack, group: Group, side: str) -> str:
        """repr(render.face_geometry(...)), made once per group side and build."""
        memo = self._memo.contexts
        if (id(group), side) not in memo:
            memo[id(group), side] = repr(render.face_geometry(pack, group, side))
        return memo[id(group), side]

    def _base(self, pack: Pack, lang: str, shared: dict[str, object]) -> bytes:
        """The pack-wide part of a face's inputs in one language, hashed once per build."""
        bases = self._memo.bases
        if lang not in bases:
            h = hashlib.sha256(engine())
            for part in (
                shared,
                pack.print.min_font_pt,
                fonts.signature(),
                sorted(icon_files(pack)),
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
            try:
                family = template_family(env, name)
            except jinja2.TemplateError:
                templates[name] = None
            else:
                templates[name] = _family_hash(family)
        return templates[name]

    # ------------------------------------------------------------ drawings

    def drawing(self, svg: str, resolve: Resolver) -> Drawing:
        """svgdraw.compile_svg(svg, resolve), from the cache while the SVG and the files it draws
        are unchanged. Raises SvgError as compile_svg does (failures are not stored)."""
        key = self._drawing_key(svg)
        done = self._memo.drawings.get(key)
        if done is not None:
            return done
        entry = self.drawings.get(key)
        stored, deps_then = (entry[1], entry[2]) if entry is not None else (None, None)
        drawing: FormDrawing | None = None
        if (
            entry is not None
            and isinstance(stored, tuple)
            and len(stored) == 4
            and (stored[3] is not None or key in self._decoded)  # see _lean
            and _sound_deps(deps_then)
            and all(self._dep(href, resolve) == tuple(dep) for href, *dep in deps_then)
        ):
            drawing = self._decoded.get(key)
            if drawing is not None:
                drawing.renew()
            else:
                drawing = _drawing_of(key, stored, self._spill, deps_then)
        if drawing is not None:
            assert entry is not None, "only an entry gives a drawing"
            entry[0] = self.generation
            self.stats["drawings reused"] += 1
        else:
            deps: list[tuple[str, str | None, str | None]] = []

            def recording(href: str) -> str | None:
                resolve(href)  # a file outside the pack raises here, for compile_svg to report
                dep = self._dep(href, resolve)
                deps.append((href, *dep))
                return dep[0]

            compiled = svgdraw.compile_svg(svg, recording)
            rows = ops_to_rows(compiled.ops)  # what marshal takes
            self.stats["drawings compiled"] += 1
            fields = (compiled.width_mm, compiled.height_mm, compiled.viewbox, compiled.ops)
            kept = self._spill.keep(_pack_rows(rows)) if self.packed else rows
            self.drawings[key] = [self.generation, (*fields[:3], kept), tuple(deps)]
            drawing = FormDrawing(*fields, key=key)
        self._memo.drawings[key] = drawing
        return drawing

    def _drawing_key(self, svg: str) -> bytes:
        """The drawing's key: pnpkit's code, the fonts and the SVG, hashed; an SVG the last
        build keyed under the same code and fonts (an unchanged face: most of watch's) is not
        hashed again. Python keeps a string's hash, so the look-up costs next to nothing."""
        parts = (engine(), fonts.signature())  # each the same object from call to call
        prefix = self._memo.prefixes.get(parts)
        if prefix is None:  # one copy per build, not one per SVG kept
            prefix = self._memo.prefixes[parts] = parts[0] + parts[1].encode()
        kept = self._memo.svg_keys.get(svg) or self._svg_keys.get(svg)
        if kept is None or kept[0] != prefix:
            kept = (prefix, hashlib.sha256(prefix + svg.encode("utf-8")).digest())
        if self.deferred:  # a one-shot build keys each SVG once: no next build to hand it to
            self._memo.svg_keys[svg] = kept
        return kept[1]

    def _dep(self, href: str, resolve: Resolver) -> Dep:
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
    def pdf_forms(self, pages: list[Page]) -> Iterator[FormPlan]:
        """While one PDF of these pages is written, its faces take their forms' finished bytes
        from the cache (face_form), and keep the ones drawn afresh there."""
        owned = [
            (f, d)
            for f in {id(p.face): p.face for page in pages for p in page.placements}.values()
            if isinstance(d := f.drawing, FormDrawing)
        ]
        drawings = list({id(d): d for _, d in owned}.values())
        plan = FormPlan(self, drawings)
        # bound in place, not as copies: a copy's own __dict__ cost 0.4 kB a face at a large
        # build's peak; one PDF is written at a time, so no drawing is bound to two plans
        for d in drawings:
            d.plan = plan
        try:
            yield plan
        finally:
            for d in drawings:
                d.plan = None

    def form_plan(self, chars: dict[str, set[str]]) -> FormPlan:
        """A plan for a PDF whose forms use these characters (earlyforms: a scratch document
        seeded as the real one will be)."""
        return FormPlan(self, [], chars)

    # ------------------------------------------------------------ text checks

    def text_findings(
        self, drawing: object, settings: object, check: Callable[[], Findings]
    ) -> Findings:
        """check(): the text check of a drawing under settings, kept per drawing and settings.
        The drawing is named by its cache key (its SVG, pnpkit's code and fonts) and the files
        it draws, which is all a drawing served from the cache depends on."""
        if not isinstance(drawing, FormDrawing) or drawing.key not in self.drawings:
            return check()  # not a drawing of this cache (a flattened raster): checked each time
        deps = self.drawings[drawing.key][2]
        return self.texts.get(self.path, drawing.text_key(deps, settings), self.generation, check)


Findings = list[tuple[str, str]]  # (text, message), as textcheck.problems() gives them


class TextChecks:
    """Text-check findings per drawing and settings: most of a rebuild's checking otherwise.

    They live in a file of their own beside the pack's, <pack id>+texts.marshal, read when a
    build first asks and written by Cache.save(), with the same engine header and ageing."""

    SUFFIX = "+texts.marshal"  # '+': no pack id has it, so no pack's own file is this one

    def __init__(self) -> None:
        self.path: Path | None = None  # the pack cache file these entries belong to
        self.entries: dict[bytes, Entry] = {}  # key -> [generation, ((text, message), ...)]
        self.checked = 0  # checks run (not served) in this process: tests count them

    def get(
        self, path: Path | None, key: bytes, generation: int, check: Callable[[], Findings]
    ) -> Findings:
        if path is not self.path and path != self.path:  # (a Path's == is slow: once a face)
            self.path, self.entries = path, _read_texts(path)
        entry = self.entries.get(key)  # sound: _read_texts() let in no other
        if entry is not None:
            entry[0] = generation
            return list(cast("tuple[tuple[str, str], ...]", entry[1]))
        found = check()
        self.checked += 1
        self.entries[key] = [generation, tuple(found)]
        return found

    def save(self, path: Path | None, oldest: int, stop: Callable[[], bool] | None = None) -> None:
        """Drop entries unused since generation `oldest`; write the file beside path atomically
        (a failure only costs time: the texts are checked again); `stop`: see Cache.save()."""
        if path != self.path:
            return  # nothing asked for this pack's texts
        self.entries = _recent(self.entries, oldest)
        if path is None:
            return
        # a failure only costs time
        _save_marshalled(_texts_path(path), 0, [self.entries], stop)


def _sound(entry: object) -> bool:
    """Whether a text-check entry read from a file is what TextChecks.get() keeps:
    [generation, ((text, message), ...)]."""
    return (
        isinstance(entry, list)
        and len(entry) == 2
        and isinstance(entry[0], int)
        and isinstance(entry[1], tuple)
        and all(_finding(f) for f in entry[1])
    )


def _finding(value: object) -> bool:
    """A (text, message) pair of one-line strings: a planted file's message is printed as a
    warning, where a control character could move the terminal's cursor or fake a line."""
    return (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[0], str)
        and isinstance(value[1], str)
        and _CONTROL.search(value[0] + value[1]) is None
    )


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")  # C0, DEL and C1 control characters


def _texts_path(path: Path) -> Path:
    """The text-check file beside a pack's cache file."""
    return path.with_name(path.name.removesuffix(".marshal") + TextChecks.SUFFIX)


def _read_texts(path: Path | None) -> dict[bytes, Entry]:
    """The text-check entries kept beside a pack's cache file, each checked once here (a
    damaged one is left out: its texts are checked again); none if missing or stale."""
    read = None if path is None else _load_marshalled(_texts_path(path), 1)
    return {k: v for k, v in read[1][0].items() if _sound(v)} if read is not None else {}


class _AsSaved(Mapping[bytes, Entry]):
    """A table's entries as save() writes them: each made whole from what the build kept of
    it (__getitem__), a KeyError leaving it out of the file."""

    def __init__(self, entries: dict[bytes, Entry], spill: _Spill) -> None:
        self.entries = entries
        self.spill = spill

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.entries)


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


class _Unspilled(_AsSaved):
    """The forms' entries as saved: a form's bytes a large build spilled are read back (an entry
    they cannot be read back for is left out: its form is drawn again)."""

    def __getitem__(self, key: bytes) -> Entry:
        entry = self.entries[key]
        if not isinstance(entry[1], Spilled):
            return entry
        try:
            return [entry[0], self.spill.read(entry[1]), *entry[2:]]
        except ValueError:
            raise KeyError(key) from None


class _Texted(_AsSaved):
    """The faces' entries as saved: a large build's hold its face (KeptFace), whose text is
    read back (an entry it cannot be read back for is left out: the face is rendered again).
    Faces alike get one string (`read`), as a build's own table shares one (_one_copy): marshal
    writes a string a part shares once, where a deck's backs read back each would be written
    each (1.2 kB a card more in the file)."""

    def __init__(self, entries: dict[bytes, Entry], spill: _Spill) -> None:
        super().__init__(entries, spill)
        self.read: dict[str, str] = {}  # texts read back, by svg_key: within a part at least

    def __getitem__(self, key: bytes) -> Entry:
        entry = self.entries[key]
        face = entry[1]
        if not isinstance(face, KeptFace):
            return entry
        text = self.read.get(face.svg_key)
        if text is None:
            try:
                text = memo.remember(self.read, face.svg_key, face.svg, PART)
            except OSError:
                raise KeyError(key) from None
        return [entry[0], text, *entry[2:]]


class KeptFace(Face):
    """A face of a large build (Cache.packed) whose SVG text waits in a temporary file once its
    drawing is compiled, checked and drawn into its form (Cache.keep_texts): the texts were a
    10,000-card deck's largest part at its peak, 4.3 kB a card. Its tables know it meanwhile
    by its form's name (svg_key: a digest of the text), and whatever asks for the text (its SVG
    file, the preview page, the cache file) reads it back. Face's fields and __init__, whose
    `self.svg = svg` sets the text through the property."""

    svg_key_is_name = True

    @property  # a field of Face: set by its __init__, read alike
    def svg(self) -> str:
        text = self._text
        if text is not None:
            return text
        assert self._store is not None and self._at is not None, "keep() wrote it"
        try:  # a damaged read fails to decode: a ValueError too
            return self._store.read(self._at).decode("utf-8")
        except ValueError as exc:
            raise OSError(f"a face's SVG kept in a temporary file is lost: {exc}") from exc

    @svg.setter
    def svg(self, text: str) -> None:
        self._text: str | None = text
        self._name = form_name(text)
        self._store: _Spill | None = None
        self._at: Spilled | None = None

    @property
    def svg_key(self) -> str:
        return self._name

    def keep(self, store: _Spill, written: dict[str, Spilled]) -> None:
        """Write the text to store (unless `written` says where a text alike is) and let it go;
        where there is no file, it stays."""
        text = self._text
        if text is None:
            return
        at = written.get(self._name)
        if at is None:
            kept = store.keep(text.encode("utf-8"))
            if not isinstance(kept, Spilled):
                return
            at = memo.remember(written, self._name, kept, TEXTS_KEPT)
        self._store, self._at, self._text = store, at, None


TEXTS_KEPT = 256  # SVGs whose place in the file keep_texts() remembers; more, and it starts afresh
# Face's fields in order, which Cache._kept() copies into a KeptFace (named each time, 4 us more)
_FACE_FIELDS = tuple(f.name for f in dataclasses.fields(Face))


class _ReadBack:
    """What reads a spilled form's bytes when its PDF is saved. The PDF cannot be written
    without them: a spill file that cannot give them back (closed, or unreadable) fails the
    build as a full disk does (OSError), where lost rows of a drawing only cost a compile. An
    object of two slots, not a closure: one per form of a large build, held until its PDF is
    saved (a closure and its cells took 0.25 kB a card more at the peak)."""

    __slots__ = ("spill", "spilled")

    def __init__(self, spill: _Spill, spilled: Spilled) -> None:
        self.spill, self.spilled = spill, spilled

    def __call__(self) -> bytes:
        try:
            return self.spill.read(self.spilled)
        except ValueError as exc:
            raise OSError(f"a PDF form kept in a temporary file is lost: {exc}") from exc


class Spilled:
    """Where _Spill keeps some bytes (in its file, or waiting for it). Not a tuple: marshal
    refuses it, so an entry holding one is never saved as it is by mistake."""

    __slots__ = ("at", "size")

    def __init__(self, at: int, size: int) -> None:
        self.at, self.size = at, size


class _Spill:
    """Bytes a large build keeps on disk: its drawings' packed rows (2.8 kB a card) and forms'
    bytes until the cache is saved (the rows are read only by save(): a drawing made twice in
    a build is taken from the build's memo), and in a file of their own its faces' SVG texts
    (KeptFace); holding them in memory made every card's share of the peak larger. An unnamed
    temporary file (TMPDIR's: the cache's folder may not exist before the build ends well),
    gone with the cache (the texts' file, with the last face that reads it).

    Nothing kept is ever lost: the bytes not yet written wait in `waiting` (written BUFFER at a
    time), and where a write fails (TMPDIR full) they stay there, with any later bytes kept in
    memory (keep() returns them), so the build goes on as one without a file would. The file
    is read with pread, which leaves its position alone: any process sharing it (a forked
    child) reads it safely."""

    BUFFER = 1 << 20  # bytes written at a time: a write call per drawing cost 1 %

    def __init__(self) -> None:
        self.file: IO[bytes] | None = None
        self.written = 0  # the file holds the bytes kept at [0, written)
        self.waiting = bytearray()  # and those kept after them, not written
        self.full = False  # no file could be made, or a write failed: no more are tried
        self.closed = False  # close(): nothing it held is read back

    def keep(self, data: bytes) -> bytes | Spilled:
        """Where data is kept: in the file (or waiting for it), or data itself when there is
        no file."""
        if self.file is None and not (self.full or self.closed):
            try:
                self.file = tempfile.TemporaryFile(buffering=0)
            except OSError:
                self.full = True
        if self.file is None or self.full or self.closed:
            return data
        spilled = Spilled(self.written + len(self.waiting), len(data))
        self.waiting += data
        if len(self.waiting) >= self.BUFFER:
            self._write()
        return spilled

    def _write(self) -> None:
        """Write what waits; where the disk refuses some, it waits on, and no more is tried."""
        assert self.file is not None
        try:
            while self.waiting:
                done = os.pwrite(self.file.fileno(), self.waiting, self.written)
                if done <= 0:
                    raise OSError("nothing written")
                self.written += done
                del self.waiting[:done]
        except OSError:
            self.full = True

    def read(self, spilled: Spilled) -> bytes:
        """The bytes keep() kept (ValueError when they cannot be read: after close(), or the
        file cannot be read)."""
        if self.closed or self.file is None:
            raise ValueError("the spill file is closed")
        at, end = spilled.at, spilled.at + spilled.size
        on_disk = min(end, self.written) - at  # how much of it the file holds: maybe none
        head = self._pread(at, on_disk) if on_disk > 0 else b""
        if end <= self.written:
            return head
        return head + bytes(self.waiting[max(at - self.written, 0) : end - self.written])

    def _pread(self, at: int, size: int) -> bytes:
        assert self.file is not None
        try:
            data = os.pread(self.file.fileno(), size, at)
        except OSError as exc:
            raise ValueError(str(exc)) from exc
        if len(data) != size:
            raise ValueError("the spill file is short")
        return data

    def close(self) -> None:
        """Let the file go once the cache is saved: nothing it held is read back (an entry
        that points into it costs a compile), and any later bytes stay in memory, so they can
        never be read from a file other than the one they were written to."""
        if self.file is not None:
            self.file.close()
            self.file = None
        self.waiting = bytearray()
        self.closed = True


def _pack_rows(rows: tuple[tuple[Any, ...], ...]) -> bytes:
    """A drawing's rows as the bytes an entry keeps in a large build: marshalled, compressed
    fast (a deck's drawing: 9 kB of rows in 2.8 kB, against about 27 kB for its ops)."""
    return zlib.compress(marshal.dumps(rows), 1)


def _unpack_rows(data: bytes) -> tuple[tuple[Any, ...], ...]:
    """The rows _pack_rows() packed (a damaged entry raises ValueError, as marshal does)."""
    inflate = zlib.decompressobj()
    try:
        raw = inflate.decompress(data, MAX_ROWS)
        if inflate.unconsumed_tail:  # a planted entry that inflates without end: never inflated
            raise ValueError("a drawing's rows larger than any drawing's")
        rows = marshal.loads(raw)
    except (zlib.error, EOFError) as exc:
        raise ValueError(str(exc)) from exc
    if not isinstance(rows, tuple):
        raise ValueError("not a drawing's rows")
    return rows


def _partial(path: Path, pid: int) -> Path:
    """Where process pid writes path before it renames it into place."""
    return path.with_name(f".{path.name}.{pid}.tmp")


class _Stopped(Exception):
    """A save's `stop` said to stop: the file is left as it was."""


def _save_marshalled(
    path: Path,
    generation: int,
    tables: Sequence[Mapping[bytes, Entry]],
    stop: Callable[[], bool] | None = None,
) -> str:
    """Write the generation and the tables behind the format and engine header to path atomically,
    each table in parts of at most PART entries; why it failed, or "" when it did not. Raises
    _Stopped, the file left as it was, when `stop` (asked before each part) says so.

    In parts, because marshal makes the bytes of what it is given whole: a 10,000-card deck's
    cache is 100 MB, made at the end of the build while everything else is still held, which
    was its memory's peak. A part's bytes are a few MB."""
    tmp = _partial(path, os.getpid())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(FORMAT + engine())
            _write_part(f, (generation, len(tables)))
            for n, table in enumerate(tables):
                keys = list(table)
                for at in range(0, len(keys), PART):
                    if stop is not None and stop():
                        raise _Stopped
                    part = {k: v for k in keys[at : at + PART] if (v := table.get(k)) is not None}
                    _write_part(f, (n, part))
        os.replace(tmp, path)
        return ""
    except (OSError, ValueError) as exc:  # ValueError: marshal met a value it cannot write
        return str(exc)
    finally:
        tmp.unlink(missing_ok=True)


PART = 256  # entries marshalled at a time (a deck's drawing entry: about 10 kB)
_LENGTH = 8  # bytes of a part's length, before it


def _write_part(f: BinaryIO, value: Any) -> None:  # what marshal takes: typeshed's own type
    data = marshal.dumps(value)
    f.write(len(data).to_bytes(_LENGTH, "little"))
    f.write(data)


def _load_marshalled(path: Path, count: int) -> tuple[int, list[dict[bytes, Entry]]] | None:
    """The generation and the `count` tables _save_marshalled() wrote to path; None if it is
    missing, damaged or from another engine."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = FORMAT + engine()
    if not data.startswith(head):
        return None
    view = memoryview(data)  # parts are read where they lie, never copied out of the file
    parts, at = [], len(head)
    try:
        while at < len(data):
            size = int.from_bytes(view[at : at + _LENGTH], "little")
            at += _LENGTH
            if size <= 0 or at + size > len(data):
                return None
            parts.append(marshal.loads(view[at : at + size]))
            at += size
    except (EOFError, ValueError, TypeError):
        return None
    return _tables(parts, count)


def _tables(parts: list[object], count: int) -> tuple[int, list[dict[bytes, Entry]]] | None:
    """The generation and tables of a cache file's parts; None if they are not what
    _save_marshalled() writes."""
    first = parts[0] if parts else None
    if (
        not isinstance(first, tuple)
        or len(first) != 2
        or not isinstance(first[0], int)
        or first[1] != count
    ):
        return None
    tables: list[dict[bytes, Entry]] = [{} for _ in range(count)]
    for part in parts[1:]:
        if not (isinstance(part, tuple) and len(part) == 2 and isinstance(part[1], dict)):
            return None
        n, table = part
        if not (isinstance(n, int) and 0 <= n < count):
            return None
        tables[n].update(table)
    return first[0], tables


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

    def kept_form(self, key: bytes) -> forms.Kept | None:
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

    def keep_form(self, key: bytes, kept: forms.Kept) -> None:
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


class _FaceKey:
    """A face's key (Cache._face_key) and what it was made from: the item (held, so its id stays
    its own), the template's name, the pack-wide part, the template family's hash, the geometry.
    A plain class, not a dataclass: making one compiles its methods at import, which every
    one-shot build would pay for (about a million instructions)."""

    __slots__ = ("item", "parts", "digest")

    def __init__(self, item: Item, parts: tuple[str, bytes, bytes, str], digest: bytes) -> None:
        self.item, self.parts, self.digest = item, parts, digest


class _Memo:
    """What one build computes once: the pack-wide hash of each language's faces, the hash of
    each template family, what the face keys of a group side take from outside their items,
    compiled drawings by key, file hashes by path."""

    def __init__(self) -> None:
        self.bases: dict[str, bytes] = {}
        self.templates: dict[str, bytes | None] = {}
        self.drawings: dict[bytes, FormDrawing] = {}
        self.files: dict[str, str] = {}
        self.contexts: dict[tuple[int, str], str] = {}  # Cache._geometry's, by group side
        self.items: dict[tuple[int, str], str] = {}  # Cache._context_repr's, by item and language
        self.svgs: dict[str, str] = {}  # each face SVG text once (Cache._one_copy)
        self.svgs_kept: dict[str, Spilled] = {}  # where keep_texts() wrote an SVG, by its form name
        self.keys: dict[tuple[int, str, str], _FaceKey] = {}  # Cache._face_key's, by item
        self.svg_keys: dict[str, tuple[bytes, bytes]] = {}  # SVG -> (code and fonts, its key)
        self.parts: dict[tuple[int, str, str, str], tuple[str, bytes, bytes, str] | None] = {}
        # the code and fonts part of svg_keys, once, by engine() and fonts.signature()
        self.prefixes: dict[tuple[bytes, str], bytes] = {}


def _recent(entries: dict[bytes, Entry], oldest: int) -> dict[bytes, Entry]:
    """The entries used since generation `oldest`."""
    return {k: v for k, v in entries.items() if isinstance(v[0], int) and v[0] > oldest}


def _family_hash(family: list[tuple[str, str, str]]) -> bytes:
    """A hash of a template family's names, files and sources (template_family)."""
    h = hashlib.sha256()
    for current, filename, source in family:
        h.update(f"{current}\0{filename}\0{source}\0".encode())
    return h.digest()


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
    read = None if path is None else _load_marshalled(path, 3)
    if read is None:
        return 0, {}, {}, {}
    generation, (faces, drawings, forms) = read
    return generation, _entries(faces, 2), _entries(drawings, 3), _entries(forms, 3)


def _entries(table: dict[bytes, Entry], size: int) -> dict[bytes, Entry]:
    """The entries of a table read from a file that are shaped as this module keeps them:
    [generation, ...] of `size` parts under a bytes key (the parts are checked where read)."""
    return {
        k: v
        for k, v in table.items()
        if isinstance(k, bytes) and isinstance(v, list) and len(v) == size and type(v[0]) is int
    }
