"""Pack -> faces: every side of every item rendered through its Jinja2 SVG template.

Templates see plain values: `item` (its fields in the build language), `face`
(trim size, bleed, safe zone in mm), `s` (the pack's strings), `data`, `lang`,
and `text_box()` for wrapped, measured text. Template errors, undefined
variables, text that overflows and glyphs the font lacks come back as
located problems, never as tracebacks.
"""

from __future__ import annotations

import weakref
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import jinja2
import jinja2.bccache
import jinja2.meta
from jinja2.defaults import DEFAULT_NAMESPACE
from jinja2.sandbox import safe_range
from jinja2.tests import TESTS as DEFAULT_TESTS

from pnpkit import workspace
from pnpkit.checks import trust
from pnpkit.errors import Problem
from pnpkit.faces import budget, pyfaces
from pnpkit.faces.frozen import FrozenDict, freeze
from pnpkit.faces.packloader import TemplateRefused
from pnpkit.pack.loader import display_path
from pnpkit.pack.model import Face, Group, Item, Pack

if TYPE_CHECKING:
    pass
from pnpkit.faces.problems import (
    _describe,
    _syntax_problem,
    _template_line,
    refused_change,
    unknown_name,
)
from pnpkit.faces.sandbox import PackDataRefused, UnknownName
from pnpkit.faces.templates import (
    BUILTIN_TEMPLATES,
    _Parsed,
    _parsed,
    template_dirs,
    template_family,
)
from pnpkit.faces.textboxes import TextBoxes


def render(pack: Pack, lang: str, env: jinja2.Environment) -> tuple[list[Face], list[Problem]]:
    """Render every side of every item in the given language, in environment(pack, registry)."""
    faces: list[Face] = []
    problems: list[Problem] = []
    shared = pack_context(pack, lang)
    py = python_faces(env, pack, lang, shared, problems)
    alike: Alike = {}
    for group in pack.groups.values():
        for item in group.items:
            for side, name in item.templates.items():
                face = render_face(
                    env, pack, group, item, side, name, lang, shared, problems, py, alike
                )
                if face is not None:
                    faces.append(face)
    return faces, problems


def pack_context(pack: Pack, lang: str) -> dict[str, Any]:
    """What every template of the pack sees in one language, read-only (frozen.py)."""
    return {
        # a pnpkit_* string may leave a language out (pnpkit's own word stands in)
        "s": FrozenDict({k: v[lang] for k, v in pack.strings.items() if lang in v}),
        "data": freeze(pack.data),
        "lang": lang,
        "pack": freeze({"id": pack.id, "name": pack.name[lang], "players": pack.players}),
    }


def face_context(pack: Pack, group: Group, item: Item, side: str, lang: str) -> dict[str, Any]:
    """What one face's template sees besides pack_context() and text_box()."""
    return {"item": item_values(item, lang), "face": face_geometry(pack, group, side)}


def python_faces(
    env: jinja2.Environment, pack: Pack, lang: str, shared: dict[str, Any], problems: list[Problem]
) -> dict[pyfaces.FaceKey, str]:
    """The SVG of every face drawn by the pack's Python (pyfaces.py), all in one child process;
    (group, item, side) -> svg. The build says through env.pnpkit_code whether that may run."""
    jobs: list[pyfaces.Job] = []
    for group in pack.groups.values():
        for item in group.items:
            for side, name in item.templates.items():
                if pyfaces.is_python(name):
                    context = {**shared, **face_context(pack, group, item, side, lang)}

                    def make(
                        found: list[Problem], item: Item = item, name: str = name
                    ) -> TextBoxes:
                        return TextBoxes(pack, item, lang, name, found, env)

                    jobs.append(
                        (
                            (group.name, item.id, side),
                            name,
                            item.template_where[side],
                            context,
                            make,
                        )
                    )
    if not jobs:
        return {}
    trusted, seconds = getattr(env, "pnpkit_code", None) or (
        trust.is_trusted(pack.root),
        trust.CODE_SECONDS,
    )
    faces, found = pyfaces.run(pack, jobs, trusted, seconds)
    problems += found
    return faces


def render_face(
    env: jinja2.Environment,
    pack: Pack,
    group: Group,
    item: Item,
    side: str,
    name: str,
    lang: str,
    shared: dict[str, Any],
    problems: list[Problem],
    py: dict[pyfaces.FaceKey, str] | None = None,
    alike: Alike | None = None,
) -> Face | None:
    """One face's SVG, or None with the problems recorded; `shared` is pack_context(pack, lang);
    `py` holds the faces python_faces() drew. `alike`, kept by the caller for one language's
    faces: the SVG of each template that draws the same face for every item of a group side
    (same_for_every_item), rendered without a problem, is rendered once and given to the
    group's other items (a deck's backs)."""
    if name in getattr(env, "out_of_time", ()):
        return None  # said once, for the first face: the others would run out too
    drawn = alike.get((name, group.name, side)) if alike is not None else None
    if drawn is not None:
        face = item_face(group, item, side, drawn, name, broken=False)
        face.drawn = ()  # such a template calls no text_box()
        return face
    if pyfaces.is_python(name):
        svg = (py or {}).get((group.name, item.id, side))
        if svg is None:  # python_faces() said why
            return None
        face = item_face(group, item, side, svg, name, broken=False)  # as a template's face
        face.drawn = ()  # its text_box() calls stand in no template
        return face
    template = _template(env, pack, group, item, side, name, problems)
    if template is None:
        return None
    before = len(problems)
    boxes = TextBoxes(pack, item, lang, name, problems, env)
    context = {**shared, **face_context(pack, group, item, side, lang), "text_box": boxes}
    spent = getattr(env, "budget", None) or budget.Budget()
    spent.start()
    try:
        svg = template.render(context)
    except jinja2.TemplateSyntaxError as exc:
        problems.append(_syntax_problem(exc))
        return None
    except Exception as exc:  # UndefinedError, TypeError in an expression, ...
        problems.append(_render_problem(env, exc, context, item, side, name))
        return None
    if alike is not None and len(problems) == before and same_for_every_item(env, name):
        alike[name, group.name, side] = svg
    face = item_face(group, item, side, svg, name, any(p.is_error for p in problems[before:]))
    face.drawn = tuple(boxes.drawn)
    return face


def _template(
    env: jinja2.Environment,
    pack: Pack,
    group: Group,
    item: Item,
    side: str,
    name: str,
    problems: list[Problem],
) -> jinja2.Template | None:
    """The face's template, or None with the problem recorded (refused, not found, broken)."""
    try:
        return env.get_template(name)
    except TemplateRefused as exc:
        problems.append(
            Problem(
                item.template_where[side],
                f"template '{name}' for the {side} of '{item.id}': {exc.message}",
                "paths",
            )
        )
    except jinja2.TemplateNotFound:
        problems += _not_found(env, pack, group, item, side, name)
    except jinja2.TemplateSyntaxError as exc:
        problems.append(_syntax_problem(exc))
    return None


def _render_problem(
    env: jinja2.Environment,
    exc: Exception,
    context: dict[str, Any],
    item: Item,
    side: str,
    name: str,
) -> Problem:
    """What went wrong while a face's template ran, located at the item; a template that ran
    out of time is not run again for the other faces (render_face)."""
    if isinstance(exc, budget.OutOfTime):
        out_of_time: set[str] = getattr(env, "out_of_time", set())
        out_of_time.add(name)
    line = _template_line(exc)
    rule = "paths" if isinstance(exc, TemplateRefused) else "template"
    if isinstance(exc, UnknownName):
        what = unknown_name(exc, {**env.globals, **context})
    elif isinstance(exc, PackDataRefused):
        what = refused_change(exc, context)
    else:
        what = _describe(exc)
    return Problem(
        item.where,
        f"template '{name}'{line}: {what} (rendering the {side} of '{item.id}')",
        rule,
    )


Alike = dict[tuple[str, str, str], str]  # (template, group, side) -> the SVG of every such face

# What a template may read and still draw the same face for every item of a group side: the
# language's pack-wide values, the side's geometry, and Jinja's own globals that give the same
# each time (not lipsum(): it is random).
_SHARED_NAMES = frozenset({"s", "data", "lang", "pack", "face"})
_STEADY_GLOBALS = MappingProxyType(
    {
        **{name: DEFAULT_NAMESPACE[name] for name in ("dict", "namespace", "cycler", "joiner")},
        "range": safe_range,  # the sandbox's own
    }
)
# Jinja's filters (and no test so named) that give another value each time (random) or call
# filters and tests named by their arguments (which might be random); asked of both
_UNSURE = frozenset({"random", "map", "select", "reject", "selectattr", "rejectattr"})
_SAME_FOR_EVERY_ITEM = workspace.Slot[
    weakref.WeakKeyDictionary[jinja2.Environment, dict[str, bool]]
]("render.same_for_every_item", weakref.WeakKeyDictionary)


def same_for_every_item(env: jinja2.Environment, name: str) -> bool:
    """Whether template `name` draws the same SVG for every item of a group side: neither it
    nor any template it extends, includes or imports reads `item`, text_box(), a helper (a
    pack's might read the context), or a name neither shared nor given a value by the
    templates themselves, nor uses a filter or test other than Jinja's own that always gives
    the same. Read from the parses template_family() made; once per template and environment."""
    known = _SAME_FOR_EVERY_ITEM.here().setdefault(env, {})
    if name not in known:
        try:
            parses = [_parsed(env, source) for _, _, source in template_family(env, name)]
        except jinja2.TemplateError:
            parses = []
        own = set().union(*(p.sets for p in parses)) - set(env.globals) - _ITEMS
        known[name] = bool(parses) and all(_reads_only_shared(env, p, own) for p in parses)
    return known[name]


_ITEMS = frozenset({"item", "text_box"})  # what differs from item to item
# Jinja's own local names: a loop's, a macro's extra arguments and its caller
_JINJAS_LOCALS = frozenset({"loop", "varargs", "kwargs", "caller"})


def _reads_only_shared(env: jinja2.Environment, parsed: _Parsed, own: set[str]) -> bool:
    """Whether a template of the family reads only what every item shares (see
    same_for_every_item): a name it reads but does not set comes from the context at run time."""
    for read in parsed.reads - _SHARED_NAMES - own - _JINJAS_LOCALS:
        if read not in env.globals or env.globals[read] is not _STEADY_GLOBALS.get(read):
            return False
    for names, table, jinjas in (
        (parsed.filters, env.filters, budget.FILTERS),
        (parsed.tests, env.tests, DEFAULT_TESTS),
    ):
        for used in names:
            if used in _UNSURE or used not in jinjas or table.get(used) is not jinjas[used]:
                return False
    return True


def item_face(group: Group, item: Item, side: str, svg: str, name: str, broken: bool) -> Face:
    """The face of one item's side drawn as svg by template `name` (the render's and the
    cache's, which serves an unchanged face without rendering it)."""
    face = Face(
        group.name,
        item.id,
        side,
        item.count,
        group.size,
        group.bleed,
        group.kind,
        svg,
        item.where,
        shape=group.shape,
        variant=group.variant,
        labels=group.labels,
        fit=group.fit,
    )
    face.template, face.broken = name, broken
    return face


def _not_found(
    env: jinja2.Environment, pack: Pack, group: Group, item: Item, side: str, name: str
) -> list[Problem]:
    """A missing template, said once where it is named: a group's template once for all the
    items that use it (and once for every language), not once per face."""
    where = item.template_where[side]
    said = getattr(env.loader, "said", None)
    if said is not None:
        if (where, name) in said:
            return []
        said.add((where, name))
    users = [
        i
        for i in group.items
        if i.templates.get(side) == name and i.template_where.get(side) == where
    ]
    whose = f"the {len(users)} items of '{group.name}'" if len(users) > 1 else f"'{item.id}'"
    dirs = ", ".join(
        "pnpkit's own" if d == BUILTIN_TEMPLATES else display_path(d) for d in template_dirs(pack)
    )
    return [
        Problem(
            where,
            f"template '{name}' for the {side} of {whose} not found (looked in {dirs})",
            "references",
        )
    ]


def item_values(item: Item, lang: str) -> dict[str, Any]:
    """`item` as its templates see it, read-only (frozen.py)."""
    values = {k: _localise(v, lang) for k, v in item.fields.items()}
    values.update(id=item.id, count=item.count, tags=list(item.tags))
    return freeze(values)  # type: ignore[no-any-return]


def _localise(value: Any, lang: str) -> Any:
    if (
        isinstance(value, dict)
        and lang in value
        and all(isinstance(v, str) for v in value.values())
    ):
        return value[lang]
    if isinstance(value, list):
        return [_localise(v, lang) for v in value]
    return value


def face_geometry(pack: Pack, group: Group, side: str) -> dict[str, Any]:
    w, h = group.size
    return freeze(  # type: ignore[no-any-return]
        {
            "w": w,
            "h": h,
            "bleed": group.bleed,
            "safe": pack.print.safe,
            "side": side,
            "kind": group.kind,
            "group": group.name,
            "base": group.base,
        }
    )
