"""Content-keyed cache of rendered faces and compiled drawings: a rebuild redoes only what changed.

A face's SVG is looked up under a hash of everything its template sees (the item's
values, the face geometry, the strings and data its templates read (sharedreads.py), the
pack's name, the language, the minimum font size), the source of its template and of
every template it extends, imports or includes, the pack's rules.py (it may add template
globals), and the engine itself (pnpkit's code and fonts, the versions of the libraries
that shape the output). A compiled drawing is looked up under a hash of its SVG and
checked against the content of every file the SVG draws (art). So an entry is never
served for inputs that differ from the ones it was made from, and deleting the cache
only costs time.

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

import gc
import hashlib
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import jinja2

from pnpkit.build import cachefile
from pnpkit.build.cachefile import (
    _FACE_FIELDS,
    KEEP,
    Dep,
    Entry,
    Findings,
    KeptFace,
    Spilled,
    TextChecks,
    _file_bytes,
    _pack_rows,
    _read,
    _recent,
    _save_marshalled,
    _Spill,
    _Stopped,
    _Texted,
    _Unspilled,
)
from pnpkit.build.cacheforms import FormDrawing, _drawing_of, _Rowed, _sound_deps
from pnpkit.build.facekeys import FaceKeys
from pnpkit.errors import Problem
from pnpkit.faces import render, textplaces
from pnpkit.pack.model import Face, Pack
from pnpkit.svg import compiler as svgdraw
from pnpkit.svg.drawing import Drawing
from pnpkit.svg.ops import Resolver, ops_to_rows
from pnpkit.typeset import fonts

LEAN = 2000  # drawings in a build from which their entries' rows wait for save() (_lean)


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
        # key -> [generation, svg or a large build's KeptFace, its text_box calls (packed)]
        self.faces: dict[bytes, Entry] = {}
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
        self.keys = FaceKeys(deferred)  # the faces' keys (facekeys.py)
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
        self._decoded = self._memo.drawings
        self._svg_keys = self._memo.svg_keys
        self.keys.begin(same=path == self.path)
        if path != self.path:
            self.path = path
            self.generation, self.faces, self.drawings, self.forms = _read(path)
            self._decoded, self._svg_keys = {}, {}
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
            (group.name, n, side): self.keys.key(pack, group, item, side, name, lang, shared, env)
            for group in pack.groups.values()
            for n, item in enumerate(group.items)
            for side, name in item.templates.items()
        }
        self.keys.items.clear()  # every face is keyed: their items' reprs (0.7 kB each) go
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
                        face.drawn = textplaces.unpacked(entry[2])
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
                            kept = face if self.packed else face.svg
                            self.faces[key] = [self.generation, kept, textplaces.packed(face.drawn)]
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
        parts = (cachefile.engine(), fonts.signature())  # each the same object from call to call
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


class _Memo:
    """What one build computes once: the pack-wide hash of each language's faces, the hash of
    each template family, what the face keys of a group side take from outside their items,
    compiled drawings by key, file hashes by path."""

    def __init__(self) -> None:
        self.drawings: dict[bytes, FormDrawing] = {}
        self.files: dict[str, str] = {}
        self.svgs: dict[str, str] = {}  # each face SVG text once (Cache._one_copy)
        self.svgs_kept: dict[str, Spilled] = {}  # where keep_texts() wrote an SVG, by its form name
        self.svg_keys: dict[str, tuple[bytes, bytes]] = {}  # SVG -> (code and fonts, its key)
        # the code and fonts part of svg_keys, once, by engine() and fonts.signature()
        self.prefixes: dict[tuple[bytes, str], bytes] = {}
