"""A face drawn with a template's unsaved text: what the studio's template pane shows as the
designer types.

The text is never written: it is handed to a copy of the build's own sandboxed environment
(sandbox.environment, the registry's helpers, the pack's trust) in place of the template's
file, and the face is rendered as a build renders it (render.render_face), so the pane shows
the same SVG and the same located problems the next build would, and runs nothing the command
line would not.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jinja2

from pnpkit.faces import pyfaces, render, sandbox

if TYPE_CHECKING:
    from pnpkit.errors import Problem
    from pnpkit.kinds.registry import Registry
    from pnpkit.pack.model import Pack

MAX_TEXT = 1_000_000  # characters of template text the pane may send: a template, not a book
_LINE = re.compile(r"^template '(?P<name>[^']*)' line (?P<line>\d+)")


@dataclass(frozen=True)
class Drawn:
    """The face's SVG ('' if it could not be drawn) and its problems, each with the line of the
    edited template it points at (0: elsewhere)."""

    svg: str
    problems: list[tuple[int, Problem]]


class _Unsaved(jinja2.BaseLoader):
    """The pack's templates, except `name`, whose text is `text` (as if saved to its file)."""

    def __init__(self, inner: jinja2.BaseLoader, name: str, text: str) -> None:
        self.inner, self.name, self.text = inner, name, text

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        found = self.inner.get_source(environment, template)
        if template != self.name:
            return found
        return self.text, found[1], lambda: False


def template_file(pack: Pack, registry: Registry, name: str) -> str | None:
    """The file template `name` is read from for this pack (its loader's answer), or None."""
    env = sandbox.environment(pack, registry)
    assert env.loader is not None  # sandbox.environment gives one
    try:
        return env.loader.get_source(env, name)[1]
    except jinja2.TemplateError:  # not found, or refused (outside the pack, not text)
        return None


def draw(
    pack: Pack,
    registry: Registry,
    code: tuple[bool, float],
    face: tuple[str, str, str, str],
    name: str,
    text: str,
) -> Drawn:
    """Draw the face (language, group, item id, side) with template `name` reading `text`;
    `code`: the build's trust and time limit (build.Code)."""
    lang, group_name, item_id, side = face
    group = pack.groups.get(group_name)
    item = next((i for i in group.items if i.id == item_id), None) if group else None
    if group is None or item is None or side not in item.templates or pyfaces.is_python(name):
        return Drawn("", [])
    env = sandbox.environment(pack, registry)
    env.pnpkit_code = code
    assert env.loader is not None
    env.loader = _Unsaved(env.loader, name, text)
    problems: list[Problem] = []
    shared: dict[str, Any] = render.pack_context(pack, lang)
    drawn = render.render_face(
        env, pack, group, item, side, item.templates[side], lang, shared, problems
    )
    filename = template_file(pack, registry, name)
    return Drawn(drawn.svg if drawn else "", [(_line(p, name, filename), p) for p in problems])


def _line(problem: Problem, name: str, filename: str | None) -> int:
    """The line of template `name` a problem points at, or 0."""
    match = _LINE.match(problem.message)
    if match and match["name"] == name:
        return int(match["line"])
    where = problem.where.file
    if filename and where and (filename.endswith(where) or where.endswith(name)):
        return problem.where.line
    return 0
