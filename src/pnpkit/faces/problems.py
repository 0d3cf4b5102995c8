"""A template's problems located in its file: syntax errors, unknown names, refused changes,
the template line that called text_box()."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2
import jinja2.bccache
import jinja2.meta
from jinja2.exceptions import SecurityError

from pnpkit.errors import Location, Problem
from pnpkit.faces import budget
from pnpkit.faces.packloader import TemplateRefused
from pnpkit.pack.checker import did_you_mean
from pnpkit.pack.loader import display_path

if TYPE_CHECKING:
    pass
from pnpkit.faces.sandbox import PackDataRefused, UnknownName
from pnpkit.faces.templates import template_family
from pnpkit.faces.textboxes import TextBoxError


def _syntax_problem(exc: jinja2.TemplateSyntaxError) -> Problem:
    file = display_path(Path(exc.filename)) if exc.filename else exc.name or "template"
    return Problem(
        Location(file, exc.lineno or 0, 1), f"template syntax error: {exc.message}", "template"
    )


def _template_line(exc: BaseException) -> str:
    """Jinja rewrites tracebacks so template frames carry the template's own line numbers."""
    tb, found = exc.__traceback__, ""
    while tb is not None:
        fname = tb.tb_frame.f_code.co_filename
        if fname.endswith(".j2") or fname.endswith(".svg"):
            found = f" line {tb.tb_lineno}"
        tb = tb.tb_next
    return found


def unknown_name(exc: UnknownName, context: dict[str, object]) -> str:
    """'undefined variable: item has no key 'tabs' (did you mean 'tab'?)': which names exist,
    instead of Jinja's "'dict object' has no attribute 'tabs'"."""
    if exc.obj is jinja2.utils.missing:
        names = [k for k in context if not k.startswith("_")]
        return (
            f"undefined variable: '{exc.name}' is "
            f"undefined{_names_hint(exc.name, names, 'the names are')}"
        )
    owner = _owner(exc.obj, context)
    if isinstance(exc.obj, dict):
        return (
            f"undefined variable: {owner} has no key "
            f"{exc.name!r}{_names_hint(exc.name, list(exc.obj), 'its keys are')}"
        )
    if isinstance(exc.obj, (list, tuple)):
        return (
            f"undefined variable: {owner} has no element "
            f"{exc.name!r} (it has {len(exc.obj)} elements)"
        )
    return f"undefined variable: {exc.message}"


def refused_change(exc: PackDataRefused, context: dict[str, object]) -> str:
    """'item.tags is the pack's data and cannot be changed: make a list of your own: {% set
    tags = item.tags | list %}': the value by the name the template knows it by (found in the
    context as _owner finds it), and the copy to make instead."""
    found = _owner(exc.obj, context).strip("'")
    name = found if all(part.isidentifier() for part in found.split(".")) else ""
    var = name.rsplit(".", 1)[-1] if name else "mine"
    if isinstance(exc.obj, dict):
        kind, copy = "dict", f"{{% set {var} = dict({name or 'the_dict'}) %}}"
    else:
        kind, copy = "list", f"{{% set {var} = {name or 'the_list'} | list %}}"
    what = name or f"this {kind}"
    return f"{what} is the pack's data and cannot be changed: make a {kind} of your own: {copy}"


def _names_hint(name: object, names: Sequence[object], these: str) -> str:
    """(did you mean 'x'?), else the names there are when they are few enough to read."""
    hint = did_you_mean(name, names) if isinstance(name, str) else ""
    if hint or not names:
        return hint or " (it is empty)"
    shown = ", ".join(str(n) for n in names[:12])
    return f" ({these} {shown}{', ...' if len(names) > 12 else ''})"


def _owner(obj: object, context: dict[str, object]) -> str:
    """The dotted name under which the template sees obj ('item', 'data.bonuses'), found by
    identity a few levels down the context; 'a mapping' when it is not found there."""
    queue: list[tuple[str, object]] = [
        (k, v) for k, v in context.items() if isinstance(v, (dict, list))
    ]
    for _ in range(2000):  # bounded: a pack's data may be large
        if not queue:
            break
        label, value = queue.pop(0)
        if value is obj:
            return f"'{label}'"
        if isinstance(value, dict) and label.count(".") < 3:
            queue += [(f"{label}.{k}", v) for k, v in value.items() if isinstance(v, (dict, list))]
    return "a list" if isinstance(obj, list) else "a mapping"


def _describe(exc: BaseException) -> str:
    if isinstance(exc, jinja2.UndefinedError):
        return f"undefined variable: {exc.message}"
    if isinstance(exc, TextBoxError):
        return str(exc)
    if isinstance(exc, budget.BudgetError):
        return f"over budget: {exc} (see docs/strangers.md)"
    if isinstance(exc, SecurityError):
        return (
            f"not allowed in a template: {exc} (templates "
            "may use their values and pnpkit's helpers only)"
        )
    if isinstance(exc, TemplateRefused):  # an {% include %}, {% import %} or {% extends %}
        return f"template '{exc.name}': {exc.message}"
    return f"{type(exc).__name__}: {exc}"


_TOKEN = re.compile(r"<([\w:-]+)>|'([\w:-]+)'")


def find_in_template(env: jinja2.Environment, name: str, message: str) -> Location | None:
    """The first line of the template (or a template it extends or imports) naming the element
    or attribute a problem message quotes, e.g. "<mask>" or "'letter-spacing'"."""
    match = _TOKEN.search(message)
    if not match:
        return None
    needle = f"<{match.group(1)}" if match.group(1) else f"{match.group(2)}="
    return _first_line(env, name, needle)


def find_text_in_template(env: jinja2.Environment, name: str, text: str) -> Location | None:
    """The first line of the template (or one it extends or imports) that holds this text
    literally, as a raw <text> written in the template does; None when the text comes from data."""
    needle = text.strip()
    return _first_line(env, name, needle) if needle else None


def _first_line(env: jinja2.Environment, name: str, needle: str) -> Location | None:
    """Where needle first stands in the template or the family it draws on."""
    try:
        family = template_family(env, name)
    except jinja2.TemplateError:
        return None
    for _, filename, source in family:
        if needle not in source:  # most texts a check finds come from data: one scan, not a loop
            continue
        for n, line in enumerate(source.splitlines(), 1):
            col = line.find(needle)
            if col >= 0:
                return Location(display_path(Path(filename)), n, col + 1)
    return None
