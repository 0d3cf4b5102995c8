"""Render and compile a build's uncached faces on every core, ahead of the build's own loop.

The build loop (cache.Cache.render, then build._compile) stays the only place
that decides what a face is, in what order problems come and what the cache
keeps; this module only does its expensive part earlier, in forked workers,
and hands the results over by face and by SVG. So a build with workers makes
the same faces, drawings, problems and PDF bytes as one without.

Workers run pnpkit's own code only: templates in the same sandboxed Jinja
environment (inherited through fork), and the SVG compiler. Faces drawn by a
pack's Python are never sent to them (their SVG comes from pyfaces' time-limited
child, run once in the parent). Where fork is missing, or a worker cannot be
started or dies, nothing is done ahead and the build loop does it all itself.
A pool costs tens of milliseconds to start, so it is used only for MIN_FACES or more.
It is opt-in (--jobs N): the workers fill their own text and shaping caches, so they
spend more CPU in total than one process, and on a machine shared with other work
that measured slower than one process.
"""

from __future__ import annotations

import gc
import marshal
import multiprocessing
import os
import pickle
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import jinja2

from pnpkit import paths, pyfaces, render, svgdraw
from pnpkit.errors import Problem
from pnpkit.model import Face, Pack

MIN_FACES = 200  # below this a second process does not pay for its start
CHUNK = 50  # faces per task: small enough to balance the workers, large enough to batch
FaceId = tuple[str, int, str]  # (group, index of the item in it, side)
Rendered = tuple[Face | None, list[Problem]]
# (drawing fields, marshalled: plain data, quicker to pass than pickled; hrefs; SvgError problems)
Compiled = tuple[bytes | None, tuple[str, ...], list[tuple[int, str]]]
Done = tuple[dict[FaceId, Rendered], dict[str, Compiled]]  # what a worker hands back


class Ahead:
    """What the workers made: faces by (group, item, side), compiled drawings by SVG text."""

    def __init__(self) -> None:
        self.faces: dict[FaceId, Rendered] = {}
        self.drawings: dict[str, Compiled] = {}

    def take_face(self, face_id: FaceId) -> Rendered | None:
        return self.faces.pop(face_id, None)

    def compile(self, svg: str, resolve: Callable[[str], str | None]) -> svgdraw.Drawing:
        """compile_svg(svg, resolve) as the worker did it: resolve sees the same hrefs in the
        same order (so the cache records the same files), and the same SvgError is raised."""
        done = self.drawings.pop(svg, None)  # the build compiles each distinct SVG once
        if done is None:
            return svgdraw.compile_svg(svg, resolve)
        fields, hrefs, problems = done
        if fields is None:  # a failure is not cached: the files it reached do not matter
            raise svgdraw.SvgError(problems)
        for href in hrefs:
            resolve(href)
        width, height, viewbox, rows = marshal.loads(fields)
        return svgdraw.Drawing(width, height, viewbox, svgdraw.ops_from_rows(rows))


def default_jobs() -> int:
    """--jobs when the user gives none: every core while one of them is idle (the last minute's
    load average leaves a core free), else 1. The workers spend more CPU in all than one
    process (each refills its text caches), so on a busy machine they measured slower, while
    on an idle one they shorten a large build by a third or more."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this system: stay with what is known to be safe
        return 1
    return cores if cores >= 2 and load <= cores - 1 else 1


# The work of one build, set in the parent before the workers fork from it.
_work: tuple[jinja2.Environment, Pack, str, dict[str, object]] | None = None


def prepare(
    env: jinja2.Environment,
    pack: Pack,
    lang: str,
    shared: dict[str, object],
    todo: list[FaceId],
    jobs: int,
) -> Ahead:
    """Render and compile the faces `todo` names, (group, item's index in it, side), in `jobs`
    workers; nothing when they are too few to pay for the pool."""
    ahead = Ahead()
    if jobs < 2:  # the default: every build comes here, so nothing more is looked at
        return ahead
    todo = [t for t in todo if not pyfaces.is_python(pack.groups[t[0]].items[t[1]].templates[t[2]])]
    if len(todo) < MIN_FACES or "fork" not in multiprocessing.get_all_start_methods():
        return ahead
    global _work
    _work = (env, pack, lang, shared)
    tasks = [todo[n : n + CHUNK] for n in range(0, len(todo), CHUNK)]
    try:
        _take(ahead, _run(tasks[0]))  # here first: the workers inherit loaded fonts and templates
        gc.freeze()  # the objects so far stay put: the workers' pages stay shared with this one
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            for done in pool.map(_run, tasks[1:]):
                _take(ahead, done)
    except (OSError, BrokenProcessPool, pickle.PicklingError):  # the build does it all itself
        return Ahead()
    finally:
        gc.unfreeze()
        _work = None
    return ahead


def _take(ahead: Ahead, done: Done) -> None:
    ahead.faces.update(done[0])
    ahead.drawings.update(done[1])


def _run(task: list[FaceId]) -> Done:
    """In a worker: render each face of the task, then compile each distinct SVG it made."""
    assert _work is not None
    env, pack, lang, shared = _work
    faces: dict[FaceId, Rendered] = {}
    drawings: dict[str, Compiled] = {}
    for group_name, n, side in task:
        group = pack.groups[group_name]
        item = group.items[n]
        found: list[Problem] = []
        name = item.templates[side]
        face = render.render_face(env, pack, group, item, side, name, lang, shared, found)
        faces[(group_name, n, side)] = (face, found)
        if face is not None and not face.broken and face.svg not in drawings:
            drawings[face.svg] = _compile(pack, face.svg)
    return faces, drawings


def _compile(pack: Pack, svg: str) -> Compiled:
    hrefs: list[str] = []

    def resolve(href: str) -> str | None:
        hrefs.append(href)
        return paths.image_file(pack.root, href)

    try:
        d = svgdraw.compile_svg(svg, resolve)
    except svgdraw.SvgError as exc:
        return None, tuple(hrefs), exc.problems
    rows = svgdraw.ops_to_rows(d.ops)  # marshal takes plain tuples
    return marshal.dumps((d.width_mm, d.height_mm, d.viewbox, rows)), tuple(hrefs), []
