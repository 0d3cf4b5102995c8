"""Render and compile a build's uncached faces on every core, ahead of the build's own loop.

The build loop (cache.Cache.render, then build._compile) stays the only place
that decides what a face is, in what order problems come and what the cache
keeps; this module only does its expensive part earlier, in forked workers,
and hands the results over by face and by SVG. So a build with workers makes
the same faces, drawings, problems and PDF bytes as one without.

This process does its share too: the tasks go to the workers last first while it does
them first first, taking back each task no worker has started, so the two ends meet where
the speeds put them and a worker slowed by a busy machine delays nothing. Each face is
rendered, compiled and its texts checked (textcheck, what build._check_texts reports) in
one go, by whichever process has it.

Workers run pnpkit's own code only: templates in the same sandboxed Jinja
environment (inherited through fork), the SVG compiler and the text check. Faces drawn by
a pack's Python are never sent to them (their SVG comes from pyfaces' time-limited
child, run once in the parent). Where fork is missing, or a worker cannot be
started or dies, nothing is done ahead and the build loop does it all itself.
A pool costs tens of milliseconds to start, so it is used only for MIN_FACES or more.
"""

from __future__ import annotations

import gc
import marshal
import pickle
from collections.abc import Callable
from typing import Any

import jinja2

from pnpkit import paths, pyfaces, render, svgdraw, textcheck
from pnpkit.errors import Problem
from pnpkit.model import Face, Pack

MIN_FACES = 200  # below this a second process does not pay for its start
CHUNK = 25  # faces per task: small, so the two ends meet near the middle; large enough to batch
FaceId = tuple[str, int, str]  # (group, index of the item in it, side)
Rendered = tuple[Face | None, list[Problem]]
Rows = tuple[tuple[Any, ...], ...]  # svgdraw.ops_to_rows()
# A compiled SVG: the drawing (made here) or its fields marshalled (made by a worker: plain
# data, quicker to pass than pickled), or None after SvgError problems; the hrefs it resolved.
Compiled = tuple[svgdraw.Drawing | bytes | None, tuple[str, ...], list[tuple[int, str]]]
TextKey = tuple[str, tuple[float, float], float]  # (svg, full size, bleed): what textcheck reads
Texts = list[tuple[str, str]]  # textcheck.problems(): (text, message)
Done = tuple[dict[FaceId, Rendered], dict[str, Compiled], dict[TextKey, Texts]]


class Ahead:
    """What was made ahead: faces by (group, item, side), compiled drawings by SVG text, and
    the text checks of each compiled face at the pack's minimum size (build._check_texts)."""

    def __init__(self) -> None:
        self.faces: dict[FaceId, Rendered] = {}
        self.drawings: dict[str, Compiled] = {}
        self.texts: dict[TextKey, Texts] = {}
        self.by_workers = 0  # faces the workers made (the rest were made in this process)

    def take_face(self, face_id: FaceId) -> Rendered | None:
        return self.faces.pop(face_id, None)

    def compile(self, svg: str, resolve: Callable[[str], str | None]) -> svgdraw.Drawing:
        """compile_svg(svg, resolve) as it was done ahead (see compile_rows)."""
        return self.compile_rows(svg, resolve)[0]

    def compile_rows(
        self, svg: str, resolve: Callable[[str], str | None]
    ) -> tuple[svgdraw.Drawing, Rows]:
        """compile_svg(svg, resolve) as it was done ahead, and the drawing's ops as rows for the
        cache (a worker's come as rows already): resolve sees the same hrefs in the same order
        (so the cache records the same files), and the same SvgError is raised."""
        done = self.drawings.pop(svg, None)  # the build compiles each distinct SVG once
        if done is None:
            drawing = svgdraw.compile_svg(svg, resolve)
            return drawing, svgdraw.ops_to_rows(drawing.ops)
        made, hrefs, problems = done
        if made is None:  # a failure is not cached: the files it reached do not matter
            raise svgdraw.SvgError(problems)
        for href in hrefs:
            resolve(href)
        if isinstance(made, svgdraw.Drawing):
            return made, svgdraw.ops_to_rows(made.ops)
        width, height, viewbox, rows = marshal.loads(made)
        return svgdraw.Drawing(width, height, viewbox, svgdraw.ops_from_rows(rows)), rows


def default_jobs() -> int:
    """--jobs when the user gives none: 1, this process alone, whatever the cores and the load.

    Measured on a 2-core machine (issue 16), a cold 1,000-card build took the same wall time
    with 2 processes as with 1 and 3 s more CPU: each face costs both processes 25-35 % more
    CPU while the other runs (shared caches, the pool's result thread in this one, each
    process warming its own font and text caches), this process still turns the workers'
    drawings into the cache's rows, and the part that can be shared (render, compile, text
    checks) is under half of the build. On the same machine busy (load 4, other users' builds),
    `bench_side.py --jobs 2` against --jobs 1: cold 13.6 s against 10.3 s wall, 8.7 s against
    6.9 s CPU (medians of 3). So a pool is opt-in (--jobs N), for machines with idle cores."""
    return 1


# The work of one build, set in the parent before the workers fork from it.
_work: tuple[jinja2.Environment, Pack, str, dict[str, object]] | None = None
# What this process has compiled and checked for the build so far (each process its own copy):
# a deck's backs are one SVG, made once per process rather than once per task.
_sent: set[str] = set()
_checked: set[TextKey] = set()


def prepare(
    env: jinja2.Environment,
    pack: Pack,
    lang: str,
    shared: dict[str, object],
    todo: list[FaceId],
    jobs: int,
) -> Ahead:
    """Render, compile and check the texts of the faces `todo` names, (group, item's index in
    it, side), here and in `jobs - 1` workers; nothing when they are too few to pay for a pool.

    The tasks go to the workers last first, while this process does them first first, taking
    back every task no worker has started yet: the two ends meet wherever the speeds put them
    (this process needs no hand-over for its own), so no core waits for another."""
    ahead = Ahead()
    if jobs < 2:  # the default: every build comes here, so nothing more is looked at
        return ahead
    # multiprocessing and concurrent.futures cost every command ~40 ms to import: only a pool
    # needs them
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    todo = [t for t in todo if not pyfaces.is_python(pack.groups[t[0]].items[t[1]].templates[t[2]])]
    if len(todo) < MIN_FACES or "fork" not in multiprocessing.get_all_start_methods():
        return ahead
    global _work
    _work = (env, pack, lang, shared)
    _sent.clear()
    _checked.clear()
    tasks = [todo[n : n + CHUNK] for n in range(0, len(todo), CHUNK)]
    try:
        _take(ahead, _run(tasks[0], here=True))  # first: the workers inherit fonts and templates
        gc.freeze()  # the objects so far stay put: the workers' pages stay shared with this one
        with ProcessPoolExecutor(jobs - 1, mp_context=multiprocessing.get_context("fork")) as pool:
            queued = [(task, pool.submit(_run, task)) for task in reversed(tasks[1:])][::-1]
            for task, future in queued:
                if future.cancel():  # no worker has started it
                    _take(ahead, _run(task, here=True))
            for task, future in queued:
                if not future.cancelled():
                    _take(ahead, future.result())
                    ahead.by_workers += len(task)
    except (OSError, BrokenProcessPool, pickle.PicklingError):  # the build does it all itself
        return Ahead()
    finally:
        gc.unfreeze()
        _work = None
        _sent.clear()
        _checked.clear()
    return ahead


def _take(ahead: Ahead, done: Done) -> None:
    ahead.faces.update(done[0])
    ahead.drawings.update(done[1])
    ahead.texts.update(done[2])


def _run(task: list[FaceId], here: bool = False) -> Done:
    """Render each face of the task, compile each distinct SVG it made and check the texts of
    each compiled face; in a worker, or `here` (its drawings stay objects)."""
    assert _work is not None
    env, pack, lang, shared = _work
    faces: dict[FaceId, Rendered] = {}
    compiled: dict[str, tuple[svgdraw.Drawing | None, tuple[str, ...], list[tuple[int, str]]]] = {}
    texts: dict[TextKey, Texts] = {}
    for group_name, n, side in task:
        group = pack.groups[group_name]
        item = group.items[n]
        found: list[Problem] = []
        name = item.templates[side]
        face = render.render_face(env, pack, group, item, side, name, lang, shared, found)
        faces[(group_name, n, side)] = (face, found)
        if face is None or face.broken:
            continue
        if face.svg not in _sent:
            _sent.add(face.svg)
            compiled[face.svg] = _compile(pack, face.svg)
        drawing = compiled[face.svg][0] if face.svg in compiled else None
        key = (face.svg, face.full_size, face.bleed)
        if drawing is not None and key not in _checked:
            _checked.add(key)
            texts[key] = _texts(pack, face, drawing)
    if here:
        return faces, dict(compiled), texts
    return faces, {svg: (_marshalled(d), h, p) for svg, (d, h, p) in compiled.items()}, texts


def _compile(
    pack: Pack, svg: str
) -> tuple[svgdraw.Drawing | None, tuple[str, ...], list[tuple[int, str]]]:
    hrefs: list[str] = []

    def resolve(href: str) -> str | None:
        hrefs.append(href)
        return paths.image_file(pack.root, href)

    try:
        return svgdraw.compile_svg(svg, resolve), tuple(hrefs), []
    except svgdraw.SvgError as exc:
        return None, tuple(hrefs), exc.problems


def _marshalled(d: svgdraw.Drawing | None) -> bytes | None:
    """A worker's drawing as marshal's plain data (it takes tuples, not NamedTuples)."""
    if d is None:
        return None
    return marshal.dumps((d.width_mm, d.height_mm, d.viewbox, svgdraw.ops_to_rows(d.ops)))


def _texts(pack: Pack, face: Face, drawing: svgdraw.Drawing) -> Texts:
    """textcheck.problems() of the face drawn as `drawing`, as build._check_texts asks for it
    when no text_box() size was refused (then it checks the sizes itself)."""
    face.drawing = drawing
    try:
        return textcheck.problems(
            face, pack.print.min_font_pt, safe=pack.print.safe, contrasts=True
        )
    finally:
        face.drawing = None  # the face goes back as rendered: the build's loop compiles it
