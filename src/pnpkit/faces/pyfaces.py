"""Faces written in Python: `front: board.py:draw` names a function in a file of the pack.

The function gets what a template gets (item, face, s, data, lang, pack and
text_box, as a dict, plus macros: a template's macros callable from Python) and returns an SVG
drawing (drawing(ctx), an svgwrite Drawing set up like _face.svg.j2) or SVG text. That SVG then goes
through the same renderer, cache and checks as a template's. It is the pack's own code, so
it runs only when the user trusts the pack (trust.py), and then all of one
build's Python faces run together in one child process with the build's time
and memory limit (packcode.py); only SVG text and problems come back, as JSON.

svgwrite (archived upstream, used with debug=False: its validator rejects
valid path data) is imported here and nowhere else.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast
from xml.etree import ElementTree

from pnpkit.checks import packcode
from pnpkit.errors import Location, Problem
from pnpkit.pack.paths import display_path, inside, pack_roots

if TYPE_CHECKING:
    import svgwrite

    from pnpkit.faces.textboxes import TextBoxes
    from pnpkit.pack.model import Pack

FaceKey = tuple[str, str, str]  # (group, item, side)
# (key, spec, where, template context, found problems -> the face's text_box())
Job = tuple[FaceKey, str, Location, dict[str, Any], Callable[[list[Problem]], "TextBoxes"]]

SPEC = re.compile(r"^([\w./-]+\.py):([A-Za-z_]\w*)$")


def is_python(name: str) -> bool:
    return SPEC.match(name) is not None


def drawing(ctx: dict[str, Any]) -> svgwrite.Drawing:
    """An svgwrite Drawing of the face: millimetres, (0, 0) at the trim's top-left, bleed
    outside."""
    import svgwrite

    f = ctx["face"]
    b, w, h = f["bleed"], f["w"] + 2 * f["bleed"], f["h"] + 2 * f["bleed"]
    return svgwrite.Drawing(
        size=(f"{w:.3f}mm", f"{h:.3f}mm"), viewBox=f"{-b:.3f} {-b:.3f} {w:.3f} {h:.3f}", debug=False
    )


class Markup:
    """SVG markup (what text_box() returns) that can be added to an svgwrite drawing:
    `d.add(ctx["text_box"](...))`; it keeps text_box's height, top, bottom, lines and size."""

    def __init__(self, block: object) -> None:
        self.svg = str(block)
        for name in ("height", "top", "bottom", "lines", "size"):
            setattr(self, name, getattr(block, name, None))

    def get_xml(self) -> ElementTree.Element:
        return ElementTree.fromstring(f'<g xmlns="http://www.w3.org/2000/svg">{self.svg}</g>')

    def __str__(self) -> str:
        return self.svg


class Macros:
    """ctx["macros"]("kit/icons.svg.j2").icon("fuel", x, y, 5): a template's macros, called from
    Python with the face's context (as `{% import … with context %}` would), so a Python face
    draws the kit's icons and tables from the same macros its templates use. The template is
    found, confined and sandboxed as any template is."""

    def __init__(self, env: Any, context: dict[str, Any]) -> None:
        self.env, self.context = env, context
        self.modules: dict[str, _MacroModule] = {}

    def __call__(self, template: str) -> _MacroModule:
        if template not in self.modules:
            self.modules[template] = _MacroModule(
                self.env.get_template(template).make_module(self.context)
            )
        return self.modules[template]


class _MacroModule:
    def __init__(self, module: Any) -> None:
        self.module = module

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.module, name)  # an AttributeError names the missing macro
        if not callable(value):
            return value  # a template constant ({% set PLANET_COLOURS = [...] %})
        return lambda *args, **kwargs: Markup(value(*args, **kwargs))


def _marked(boxes: Callable[..., object]) -> Callable[..., Markup]:
    """text_box() for Python faces: its SVG comes back marked as SVG, not as text to escape."""
    return lambda *args, **kwargs: Markup(boxes(*args, **kwargs))


def _svg_text(result: object) -> str:
    if isinstance(result, str):
        return result
    if hasattr(result, "tostring"):
        text: str = result.tostring()
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + text
    raise TypeError(
        f"a Python face must return drawing(ctx) or SVG text (got {type(result).__name__})"
    )


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"pnpkit_face_{abs(hash(str(path)))}", path)
    assert spec is not None and spec.loader is not None  # a .py file always has a spec
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _where_in(path: Path, exc: BaseException) -> int:
    """The last line of the face's file in the traceback."""
    line = 1
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == path.resolve():
            line = frame.lineno or 1
    return line


def run(
    pack: Pack, jobs: list[Job], trusted: bool, seconds: float
) -> tuple[dict[FaceKey, str], list[Problem]]:
    """Draw every Python face of a build. jobs: [(key, spec, where, context, make_text_box)].
    Returns ({key: svg}, problems)."""
    if not jobs:
        return {}, []
    if not trusted:
        return {}, [_untrusted(pack, jobs)]
    problems: list[Problem] = []
    runnable = _runnable(pack, jobs, problems)
    outcome = packcode.run(lambda step: _draw(pack, runnable, step), seconds)
    faces: dict[FaceKey, str] = {}
    if not outcome.done:
        n = outcome.step if isinstance(outcome.step, int) else 0
        what = (
            f"did not finish within {seconds:g} s and was "
            "stopped (if it is just slow: --code-timeout SECONDS)"
            if outcome.timed_out
            else f"was stopped: {outcome.crashed}"
        )
        if runnable:
            problems.append(
                Problem(runnable[n][2], f"Python face {runnable[n][1]} {what}", "python-face")
            )
        return faces, problems
    for n, svg, error, found in cast(list[list[Any]], outcome.value):  # _draw()'s, through JSON
        key, spec, where = runnable[n][:3]
        problems += [Problem(Location(*row[:3]), *row[3:]) for row in found]
        if error is not None:
            file, line, message = error
            problems.append(
                Problem(
                    Location(file, line, 1),
                    f"Python face {spec} raised {message} (drawing {key[2]} of '{key[1]}')",
                    "python-face",
                )
            )
        else:
            faces[key] = svg
    return faces, problems


def _untrusted(pack: Pack, jobs: list[Job]) -> Problem:
    """Why no Python face was drawn: the pack is not trusted."""
    names = sorted({spec for _, spec, *_ in jobs})
    return Problem(
        jobs[0][2],
        "the pack is not trusted, so its Python faces "
        f"({', '.join(names)}: {len(jobs)} face(s)) "
        f"were not drawn; if you trust its author: pnpkit trust {display_path(pack.root)} "
        "(or --trust for one run)",
        "trust",
    )


def _runnable(pack: Pack, jobs: list[Job], problems: list[Problem]) -> list[Job]:
    """The jobs whose file lies inside the pack and exists; a problem for each other one."""
    runnable: list[Job] = []
    for job in jobs:
        file = SPEC.match(job[1]).group(1)  # type: ignore[union-attr]  # is_python() chose it
        path = pack.root / file
        if inside(path, pack_roots(pack.root), itself=False) is None:
            problems.append(
                Problem(
                    job[2],
                    f"Python face file '{file}' lies outside the pack; it must be a file inside it",
                    "references",
                )
            )
        elif not path.is_file():
            problems.append(
                Problem(
                    job[2],
                    f"Python face file '{file}' not found in {display_path(pack.root)}",
                    "references",
                )
            )
        else:
            runnable.append(job)
    return runnable


def _draw(pack: Pack, runnable: list[Job], step: Callable[[object], None]) -> list[list[Any]]:
    """Each runnable face drawn by the pack's code (in packcode's child): [n, svg, error,
    problems] rows, plain data for the way back."""
    out: list[list[Any]] = []
    modules: dict[str, ModuleType] = {}
    for n, (_key, spec, _where, context, make_text_box) in enumerate(runnable):
        step(n)
        file, fn_name = SPEC.match(spec).groups()  # type: ignore[union-attr]
        path = pack.root / file
        found: list[Problem] = []
        try:
            if file not in modules:
                modules[file] = _load(path)
            fn = getattr(modules[file], fn_name, None)
            if not callable(fn):
                raise AttributeError(f"{file} has no function '{fn_name}'")
            boxes = make_text_box(found)
            svg = _svg_text(
                fn(
                    {
                        **context,
                        "text_box": _marked(boxes),
                        "macros": Macros(boxes.env, {**context, "text_box": boxes}),
                    }
                )
            )
            out.append([n, svg, None, [_dump(p) for p in found]])
        except Exception as exc:  # noqa: BLE001 (the pack's code)
            out.append(
                [
                    n,
                    None,
                    [display_path(path), _where_in(path, exc), f"{type(exc).__name__}: {exc}"],
                    [_dump(p) for p in found],
                ]
            )
    return out


def _dump(p: Problem) -> list[object]:
    return [p.where.file, p.where.line, p.where.column, p.message, p.rule, p.level]
