"""Pack -> faces: every side of every item rendered through its Jinja2 SVG template.

Templates see plain values: `item` (its fields in the build language), `face`
(trim size, bleed, safe zone in mm), `s` (the pack's strings), `data`, `lang`,
and `text_box()` for wrapped, measured text. Template errors, undefined
variables, text that overflows and glyphs the font lacks come back as
located problems, never as tracebacks.
"""

from __future__ import annotations

import math
import os
import re
import sys
import weakref
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from pathlib import Path
from types import CodeType, FrameType, MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

import jinja2
import jinja2.bccache
import jinja2.meta
from jinja2.defaults import DEFAULT_NAMESPACE
from jinja2.exceptions import SecurityError
from jinja2.sandbox import SandboxedEnvironment, modifies_known_mutable, safe_range
from jinja2.tests import TESTS as DEFAULT_TESTS
from markupsafe import Markup, escape

from pnpkit import filelimits, memo, workspace
from pnpkit.checks import trust
from pnpkit.errors import Location, Problem
from pnpkit.faces import budget, icons, pyfaces, sharedreads
from pnpkit.faces.frozen import FROZEN, FrozenDict, FrozenList, freeze
from pnpkit.faces.packloader import PackLoader, TemplateRefused
from pnpkit.pack import paths
from pnpkit.pack.checker import did_you_mean
from pnpkit.pack.loader import display_path
from pnpkit.pack.model import Face, Group, Item, Pack
from pnpkit.svg import compiler as svgdraw
from pnpkit.typeset import fonts, richtext
from pnpkit.typeset.text import PT, fit, svg_text, text_attributes

if TYPE_CHECKING:
    from pnpkit.kinds.registry import Registry

BUILTIN_TEMPLATES = (
    Path(__file__).resolve().parent.parent / "templates"
)  # _face.svg.j2, _icons.svg.j2


def template_dirs(pack: Pack) -> list[Path]:
    """Where templates are looked up, first match wins: the pack's own templates/, the shared
    templates/ beside components/, then the base templates that come with pnpkit."""
    dirs = [d for d in (pack.root / "templates", shared_templates(pack)) if d.is_dir()]
    return dirs + [BUILTIN_TEMPLATES]


def shared_templates(pack: Pack) -> Path:
    """templates/ beside components/: found from the pack folder as named (made absolute, so that
    `pnpkit build .` finds it too, but with links not followed, so a linked pack finds its own)."""
    return Path(os.path.abspath(pack.root)).parent.parent / "templates"


def template_loader(pack: Pack) -> PackLoader:
    """Looks templates up in template_dirs(pack) and reads none from outside the pack, the shared
    templates/ folder or pnpkit's own (see packloader)."""
    return PackLoader(template_dirs(pack), paths.template_roots(pack.root, shared_templates(pack)))


# The types whose attributes and methods a template may use. Everything else a template
# meets (text_box's own state, a Path, the Pack) is opaque to it: the sandbox alone would
# let a template call Path.write_text() on an object it was handed. Helpers that return
# objects of their own add the class to the registry (Registry.add_type).
READABLE: frozenset[type] = frozenset(
    {
        str,
        int,
        float,
        bool,
        type(None),
        dict,
        list,
        tuple,
        FrozenDict,
        FrozenList,
        Markup,
        jinja2.runtime.LoopContext,
        jinja2.runtime.Macro,
        jinja2.utils.Namespace,
        jinja2.utils.Cycler,
        jinja2.utils.Joiner,
        jinja2.environment.TemplateModule,
    }
)


class Sandbox(SandboxedEnvironment):
    """Jinja's sandbox, narrowed to the types in READABLE and the registry's, and on a budget
    (budget.py): each face's render is started with budget.start(). The pack's data reaches
    templates frozen (frozen.py) and its changing methods are refused (PackDataRefused); the
    lists and dicts a template makes are its own to change."""

    readable: frozenset[type] = READABLE
    intercepted_binops = frozenset(budget.OPERATORS)
    code_generator_class = budget.BudgetedCode
    pnpkit_code: tuple[bool, float] | None = (
        None  # the build's trust and time limit (build sets it)
    )

    def is_safe_attribute(self, obj: object, attr: str, value: object) -> bool:
        return (
            type(obj) in self.readable
            and super().is_safe_attribute(obj, attr, value)
            and not (type(obj) in FROZEN and modifies_known_mutable(obj, attr))
        )

    def unsafe_undefined(self, obj: Any, attribute: str) -> jinja2.Undefined:
        """What `item.tags.append` is: an undefined value that, used, raises PackDataRefused,
        which the render turns into a message naming the value and what to write instead."""
        if type(obj) not in FROZEN or not modifies_known_mutable(obj, attribute):
            return super().unsafe_undefined(obj, attribute)

        def refused(message: str) -> PackDataRefused:
            return PackDataRefused(message, obj, attribute)

        # Jinja raises whatever it is given called with the message (see Undefined)
        return self.undefined(
            f"the pack's data cannot be changed ({attribute})",
            obj=obj,
            name=attribute,
            exc=refused,  # type: ignore[arg-type]
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._trees: dict[str, jinja2.nodes.Template] = {}  # parse()'s, by source: see there
        self.budget = budget.Budget()
        self.out_of_time: set[str] = set()  # templates a face of which ran out: see render_face
        self.filters.update(budget.FILTERS)
        self.filters.update(budget.TREE_FILTERS)
        self.globals["lipsum"] = budget.lipsum

    def call_binop(
        self, context: jinja2.runtime.Context, operator: str, left: Any, right: Any
    ) -> Any:
        if type(left) in _NUMBERS and type(right) in _NUMBERS:  # most of a face's arithmetic
            if operator in _SMALL_OPERATORS or (
                operator == "*" and (type(left) is float or type(right) is float)
            ):
                return budget.OPERATORS[operator](left, right)
        return budget.binop(operator, left, right)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """A string's format() or format_map() as the sandbox wraps it, its widths checked."""
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        fmt = value.__self__

        def checked(*args: Any, **kwargs: Any) -> str:
            budget.check_format(fmt, args, kwargs)
            return wrapped(*args, **kwargs)

        return checked

    def parse(
        self, source: str, name: str | None = None, filename: str | None = None
    ) -> jinja2.nodes.Template:
        """Jinja's parse, the tree also kept for the compile of the same source: a cold build
        parses a template's family (template_family(), for the faces' keys) before it compiles
        the template. Only _parsed() asks, and reads the tree without changing it. Without
        extensions only: one's preprocessing may read the name, which parse() is not given."""
        tree = super().parse(source, name, filename)
        if not self.extensions:
            self._trees[source] = tree
        return tree

    def _parse(self, source: str, name: str | None, filename: str | None) -> jinja2.nodes.Template:
        """Jinja's parse (of a compile, or of parse()), what the tree says read for _parsed() on
        the way: template_family() asks for it of the templates a validation compiled, which it
        parsed a second time (0.05-0.1 s of a small pack's). Read now, as Jinja's code generator
        then rewrites the tree in place (its optimiser folds constants); a tree parse() kept is
        handed to one compile, never two."""
        tree = self._trees.pop(source, None)
        if tree is None:
            tree = super()._parse(source, name, filename)
            _read_tree((_settings(self), source), tree)
        return tree

    def getattr(self, obj: Any, attribute: str) -> Any:
        """`item.title` on a dict without asking for a `title` attribute first: the sandbox's
        way raises and catches an AttributeError for each of a deck's ~100,000 look-ups. A
        dict's own attributes (`items`, `get`, ...) still go the sandbox's way."""
        if type(obj) in _DICTS and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)

    # __self, __context, __obj: Jinja's names, which no keyword of a template's call can clash with
    @jinja2.utils.internalcode
    def call(
        __self, __context: jinja2.runtime.Context, __obj: Any, *args: Any, **kwargs: Any
    ) -> Any:
        """A call from a template; text_box() and the templates' macros (a deck's faces make tens
        of thousands of such calls) without the sandbox's and the context's checks, which let
        both through unchanged: neither is marked unsafe nor a str.format method, and neither
        asks for the context or environment. A macro asks for the evaluation context (whether
        to escape where it is called: `{% autoescape false %}`), and gets it as Context.call()
        gives it. Their arguments are Jinja's as the context passes them (without its loop and
        block variables). Each call is a step of the face's budget, and what it returns is
        measured (a macro's output too); a string's method is asked about first."""
        __self.budget.step()
        kind = type(__obj)
        if kind not in _PLAIN_CALLS:
            budget.check_method(__obj, args, kwargs)
            result = super().call(__context, __obj, *args, **kwargs)
            budget.check_grown(__obj)  # `xs.extend(xs)` doubles a template's own list
            return budget.sized(result)
        kwargs.pop("_block_vars", None)
        kwargs.pop("_loop_vars", None)
        if kind is jinja2.runtime.Macro:
            args = (__context.eval_ctx, *args)
        try:
            return budget.sized(__obj(*args, **kwargs))
        except StopIteration:  # as Context.call() says it
            return __context.environment.undefined(
                "value was undefined because a callable raised a StopIteration exception"
            )

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals as a plain dict, the environment's overlaid by its own, where Jinja
        makes a ChainMap view of the two: every render copies them into its context, and every
        `{% import %}` compares their names with its own, each name a Python call through a
        ChainMap (a tenth of rendering a deck's faces). environment() sets the environment's
        globals before any template loads and nothing changes them after (as Jinja asks), so
        the copy holds what the view would show; a template's own still stay its own."""
        return {**self.globals, **(d or {})}


_DICT_ATTRIBUTES = frozenset(dir(dict))
_DICTS = frozenset({dict, FrozenDict})
_SMALL_OPERATORS = frozenset(
    {"+", "%"}
)  # on numbers, they cannot make a large one (nor * on a float)
_NUMBERS = frozenset({int, float})


class PackDataRefused(SecurityError):
    """A template called a method that would change the pack's data (`item.tags.append(x)`):
    the value it was called on and the method's name, for the message (refused_change)."""

    def __init__(self, message: str, obj: object, name: str):
        super().__init__(message)
        self.obj, self.name = obj, name


class UnknownName(jinja2.UndefinedError):
    """An undefined variable, with the name asked for and the value it was asked of (jinja2's
    `missing` for a top-level name), so the message can say which names exist."""

    def __init__(self, message: str, obj: object, name: object):
        super().__init__(message)
        self.obj, self.name = obj, name


class Undefined(jinja2.StrictUndefined):
    """StrictUndefined whose error carries what was asked for (see unknown_name)."""

    __slots__ = ()

    def __init__(
        self,
        hint: str | None = None,
        obj: object = jinja2.utils.missing,
        name: str | None = None,
        exc: type[jinja2.TemplateRuntimeError] = jinja2.UndefinedError,
    ) -> None:
        def unknown(message: str) -> UnknownName:
            return UnknownName(message, obj, name)

        # Jinja raises whatever it is given called with the message, so a factory serves as the
        # type.
        super().__init__(hint, obj, name, unknown if exc is jinja2.UndefinedError else exc)  # type: ignore[arg-type]


def environment(pack: Pack, reg: Registry) -> Sandbox:
    """Templates come from strangers' packs, so they run in Jinja's sandbox: they can read the
    values they are given, make and change lists and dicts of their own and call the registry's
    helpers, but not reach Python internals (`__class__`, `__globals__`, ...) nor change the
    pack's data, which every face shares and the cache keys describe (it reaches them frozen:
    pack_context, face_context)."""
    env = Sandbox(
        loader=_FailFast(template_loader(pack)),
        autoescape=True,
        undefined=Undefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # One environment serves one validation (watch makes a new one for every rebuild), so
        # a template never changes under it: no stat() of its files on every face.
        auto_reload=False,
        # ...and it keeps every template it loaded in a plain dict: Jinja's default, a locked LRU
        # of 400, is asked on every {% extends %} and {% import %} of every face
        cache_size=-1,
        bytecode_cache=_COMPILED.here(),
    )
    env.readable = READABLE | {TextBlock} | frozenset(reg.types)
    env.globals.update(reg.helpers)
    return env


class _Compiled(jinja2.BytecodeCache):
    """The templates compiled in this process, by the settings they were compiled with, name, file
    and source: each validation makes an environment of its own, and `watch` would otherwise
    compile every template again after each save. A template's code does not depend on the
    environment it runs in but through those settings (Jinja's own bytecode caches rest on that).
    """

    KEEP = 512  # templates; more, and the cache starts afresh

    def __init__(self) -> None:
        self.codes: dict[str, tuple[str, CodeType]] = {}

    def get_bucket(
        self, environment: jinja2.Environment, name: str, filename: str | None, source: str
    ) -> jinja2.bccache.Bucket:
        key = f"{_settings(environment)}\0{name}\0{filename}"
        bucket = jinja2.bccache.Bucket(environment, key, self.get_source_checksum(source))
        self.load_bytecode(bucket)
        return bucket

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        kept = self.codes.get(bucket.key)
        if kept is not None and kept[0] == bucket.checksum:
            bucket.code = kept[1]

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.code is None:
            return
        memo.remember(self.codes, bucket.key, (bucket.checksum, bucket.code), self.KEEP)


def _settings(env: jinja2.Environment) -> str:
    """What a template's code and its parse depend on besides its source."""
    return repr(
        (
            type(env).__qualname__,
            env.autoescape,
            env.optimized,
            env.finalize,
            env.is_async,
            env.trim_blocks,
            env.lstrip_blocks,
            env.keep_trailing_newline,
            env.newline_sequence,
            env.block_start_string,
            env.block_end_string,
            env.variable_start_string,
            env.variable_end_string,
            env.comment_start_string,
            env.comment_end_string,
            env.line_statement_prefix,
            env.line_comment_prefix,
            sorted(env.filters),
            sorted(env.tests),
            sorted(env.extensions),
        )
    )


_COMPILED = workspace.Slot("render.compiled", _Compiled)


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


class _FailFast(jinja2.BaseLoader):
    """A loader that remembers which templates do not compile: a syntax error in a template
    every face imports would otherwise be compiled again for every face (seconds for a deck)."""

    def __init__(self, inner: jinja2.BaseLoader) -> None:
        self.inner = inner
        self.broken: dict[str, jinja2.TemplateSyntaxError] = {}
        self.said: set[tuple[Location, str]] = (
            set()
        )  # missing templates reported: (where named, name)

    def get_source(
        self, environment: jinja2.Environment, name: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        return self.inner.get_source(environment, name)

    def list_templates(self) -> list[str]:
        return self.inner.list_templates()

    def load(
        self, environment: jinja2.Environment, name: str, globals: Any = None
    ) -> jinja2.Template:  # noqa: A002 (the base class's name)
        if name in self.broken:
            raise self.broken[name].with_traceback(None)
        try:
            return self.inner.load(environment, name, globals)
        except jinja2.TemplateSyntaxError as exc:
            self.broken[name] = exc
            raise


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
    where = item.where
    if name in getattr(env, "out_of_time", ()):
        return None  # said once, for the first face: the others would run out too
    drawn = alike.get((name, group.name, side)) if alike is not None else None
    if drawn is not None:
        return item_face(group, item, side, drawn, name, broken=False)
    if pyfaces.is_python(name):
        svg = (py or {}).get((group.name, item.id, side))
        if svg is None:  # python_faces() said why
            return None
        return item_face(group, item, side, svg, name, broken=False)  # as a template's face
    try:
        template = env.get_template(name)
    except TemplateRefused as exc:
        problems.append(
            Problem(
                item.template_where[side],
                f"template '{name}' for the {side} of '{item.id}': {exc.message}",
                "paths",
            )
        )
        return None
    except jinja2.TemplateNotFound:
        problems += _not_found(env, pack, group, item, side, name)
        return None
    except jinja2.TemplateSyntaxError as exc:
        problems.append(_syntax_problem(exc))
        return None
    before = len(problems)
    context = {
        **shared,
        **face_context(pack, group, item, side, lang),
        "text_box": TextBoxes(pack, item, lang, name, problems, env),
    }
    spent = getattr(env, "budget", None) or budget.Budget()
    spent.start()
    try:
        svg = template.render(context)
    except jinja2.TemplateSyntaxError as exc:
        problems.append(_syntax_problem(exc))
        return None
    except Exception as exc:  # UndefinedError, TypeError in an expression, ...
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
        problems.append(
            Problem(
                where,
                f"template '{name}'{line}: {what} (rendering the {side} of '{item.id}')",
                rule,
            )
        )
        return None
    if alike is not None and len(problems) == before and same_for_every_item(env, name):
        alike[name, group.name, side] = svg
    return item_face(group, item, side, svg, name, any(p.is_error for p in problems[before:]))


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


def _names_set(tree: jinja2.nodes.Template) -> Iterator[str]:
    """The names a template gives values of its own: set, looped over, imported, macros."""
    for node in tree.find_all((jinja2.nodes.Name, jinja2.nodes.Import, jinja2.nodes.FromImport)):
        if isinstance(node, jinja2.nodes.Name) and node.ctx in ("store", "param"):
            yield node.name
        elif isinstance(node, jinja2.nodes.Import):
            yield node.target
        elif isinstance(node, jinja2.nodes.FromImport):
            yield from (n if isinstance(n, str) else n[1] for n in node.names)
    yield from (macro.name for macro in tree.find_all(jinja2.nodes.Macro))


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


class TextBlock(Markup):
    """What text_box() returns: the SVG, plus the room it took, so a template can stack boxes:
    `{% set t = text_box(...) %}{{ t }}{{ text_box(more, x, t.bottom + 2, ...) }}`."""

    height: float  # mm
    top: float
    bottom: float
    lines: int
    size: float  # pt

    @classmethod
    def of(
        cls, svg: str, y: float, h: float, height: float, valign: str, lines: int, size_pt: float
    ) -> TextBlock:
        block = cls(svg)
        top = (
            y if valign == "top" else y + (h - height) / 2 if valign == "middle" else y + h - height
        )
        block.height, block.top, block.bottom = height, top, top + height  # mm
        block.lines, block.size = lines, size_pt
        return block


def icon_files(pack: Pack) -> list[tuple[str, str]]:
    """(name, content hash) of the pack's icon files: their aspect ratios shape faces' SVG."""
    folder = icons.folder(pack)
    return (
        [(p.name, filelimits.sha256(p).hex()) for p in folder.glob("*.svg") if p.is_file()]
        if folder.is_dir()
        else []
    )


class TextBoxError(ValueError):
    """A text_box() call with bad arguments."""


class TextBoxes:
    """text_box() as templates call it; records overflow, glyph and size problems for the item."""

    def __init__(
        self,
        pack: Pack,
        item: Item,
        lang: str,
        template: str,
        problems: list[Problem],
        env: jinja2.Environment | None = None,
    ) -> None:
        self.pack, self.item, self.lang, self.template, self.problems = (
            pack,
            item,
            lang,
            template,
            problems,
        )
        self.env = env
        self._icons: dict[str, icons.Icon] | None = None

    MAX_SIZE_PT = (
        1000.0  # 35cm letters; the shrink loop steps 0.25pt from here, so the size bounds its time
    )
    MAX_LEADING = 10.0

    def __call__(
        self,
        text: object,
        x: float,
        y: float,
        w: float,
        h: float,
        size: float = 9,
        bold: bool = False,
        italic: bool = False,
        anchor: str = "start",
        valign: str = "top",
        fill: str = "#000000",
        leading: float = 1.2,
        shrink: bool = True,
        family: str = fonts.DEFAULT_FAMILY,
        paragraph: float = 1.0,
        markup: bool = True,
    ) -> TextBlock:
        self._check_numbers(x=x, y=y, w=w, h=h, size=size, leading=leading, paragraph=paragraph)
        if not 0 <= paragraph <= self.MAX_LEADING:
            raise TextBoxError(
                "text_box paragraph must be from 0 to "
                f"{self.MAX_LEADING:g} (line steps; got {paragraph:g})"
            )
        if anchor not in ("start", "middle", "end") or valign not in ("top", "middle", "bottom"):
            raise TextBoxError(
                "text_box anchor must be start|middle|end and "
                f"valign top|middle|bottom (got {anchor}, {valign})"
            )
        font = fonts.face_name(family, bool(bold), bool(italic))
        if font is None:
            raise TextBoxError(
                f"font family '{family}' is not available (use {', '.join(fonts.families())})"
            )
        text = "" if text is None else str(text)
        where = self._where(text)
        min_pt = self.pack.print.min_font_pt
        if (
            size < min_pt - 1e-9
        ):  # the template's choice, not the data's: report it once, at the call
            msg = f"font size {size:g}pt is below the minimum {min_pt:g}pt"
            self._add(Problem(calling_template() or self.item.where, msg, "font-size"))
        if markup and richtext.has_markup(text):
            return self.rich(
                text,
                where,
                x,
                y,
                w,
                h,
                size,
                bool(bold),
                bool(italic),
                anchor,
                valign,
                fill,
                leading,
                min(min_pt, size) if shrink else size,
                family,
                paragraph,
            )
        missing = fonts.missing_glyphs(font, text)
        if missing:
            chars = ", ".join(f"'{c}' (U+{ord(c):04X})" for c in missing)
            self._problem(where, f"no glyph for {chars} in {family}: {_excerpt(text)}", "glyphs")
        fitted = fit(text, font, size, min(min_pt, size) if shrink else size, w, h, leading)
        if not fitted.fits:
            self._problem(
                where,
                f"text overflows its {w:g}x{h:g}mm box (needs {fitted.needed} lines "
                f"at {fitted.size_pt:g}pt, room for {fitted.room}): {_excerpt(text)}",
                "text-fits",
            )
        svg = svg_text(
            fitted,
            family,
            bool(bold),
            bool(italic),
            x,
            y,
            w,
            h,
            anchor,
            valign,
            fill,
            leading,
            not missing,
        )
        height = (
            fitted.size_pt * PT * (1 + leading * (len(fitted.lines) - 1)) if fitted.lines else 0.0
        )
        return TextBlock.of(svg, y, h, height, valign, len(fitted.lines), fitted.size_pt)

    def rich(
        self,
        text: str,
        where: Location,
        x: float,
        y: float,
        w: float,
        h: float,
        size: float,
        bold: bool,
        italic: bool,
        anchor: str,
        valign: str,
        fill: str,
        leading: float,
        min_pt: float,
        family: str,
        paragraph: float,
    ) -> TextBlock:
        """text_box() for marked-up or right-to-left text (richtext.py)."""
        parsed = richtext.parse(text, bold, italic)
        for message in parsed.problems:
            self._problem(where, f"{message}: {_excerpt(text)}", "markup")
        icons = self.icons()
        for name in dict.fromkeys(parsed.icons):
            if name not in icons:
                self._problem(
                    where,
                    f"unknown icon ':{name}:'{did_you_mean(name, list(icons))} "
                    "(icons: the pack's icons/ folder and _icons.svg.j2)",
                    "icons",
                )
        chunks: dict[tuple[bool, bool], list[str]] = {}  # the text of each style, in order
        for para in parsed.paragraphs:
            for given in para:
                for word in given:
                    for s in word:
                        if not s.icon:
                            chunks.setdefault((s.bold, s.italic), []).append(s.text)
        every_glyph = True  # in every face the text uses: else svgdraw reports them too
        for b, i in sorted(chunks):
            face = fonts.face_name(family, b, i)
            if face is None:
                raise TextBoxError(
                    f"font family '{family}' has no "
                    f"{'bold ' if b else ''}{'italic' if i else ''} face".replace(
                        " face", " face"
                    ).strip()
                )
            missing = fonts.missing_glyphs(face, "".join(chunks[b, i]))
            if missing:
                every_glyph = False
                chars = ", ".join(f"'{c}' (U+{ord(c):04X})" for c in missing)
                self._problem(where, f"no glyph for {chars} in {face}: {_excerpt(text)}", "glyphs")
        aspects = {name: icons[name][0] for name in parsed.icons if name in icons}
        current = size
        while True:
            layout = richtext.Layout(family, current * PT, aspects)
            lines = richtext.wrap(parsed, layout, w)
            # an icon is one em tall on the baseline: on the first line it stands above the ascent
            lift = (
                max(0.0, 1 - layout.ascent) * current * PT
                if lines and any(r[1] is None for r in lines[0].runs)
                else 0.0
            )
            height = richtext.block_height(lines, current * PT, leading, paragraph) + lift
            fits = height <= h + 1e-6 and all(line.width <= w + 1e-6 for line in lines)
            if fits or current - 0.25 < min_pt - 1e-9:
                break
            current -= 0.25
        if not fits:
            self._problem(
                where,
                f"text overflows its {w:g}x{h:g}mm box (needs {height:.1f}mm "
                f"at {current:g}pt, {len(lines)} lines): {_excerpt(text)}",
                "text-fits",
            )
        size_mm = current * PT
        top = (
            y if valign == "top" else y + (h - height) / 2 if valign == "middle" else y + h - height
        )
        spans, extra = [], []
        laid: richtext.Laid = []
        for line, base in zip(
            lines, richtext.baselines(lines, top + lift, layout.ascent, size_mm, leading, paragraph)
        ):
            side = {"start": 0.0, "middle": 0.5, "end": 1.0}[anchor]
            lx = x + w * (1.0 - side if line.rtl else side)
            inner, after, laid_line = richtext.line_svg(
                line, lx, base, anchor, (x, w), layout, (bold, italic), self.icon_svg
            )
            spans.append(inner)
            extra.append(after)
            laid = None if laid is None or laid_line is None else laid + laid_line
        own = text_attributes(family, size_mm, fill, anchor, bold, italic)
        attrs = " ".join(f'{name}="{escape(value)}"' for name, value in own.items())
        element = f"<text {attrs}>{''.join(spans)}</text>"
        if laid is not None and every_glyph and svgdraw.layable(family, fill):
            key = f"{svgdraw.c14n_text_start(own)}{''.join(k for k, _ in laid)}</text>"
            laid_out = svgdraw.LaidText(family, bold, italic, tuple(line for _, line in laid))
            svgdraw.lay_out(key, laid_out)
        svg = Markup(element + "".join(extra))
        return TextBlock.of(svg, y, h, height, valign, len(lines), current)

    def icons(self) -> dict[str, icons.Icon]:
        """name -> (aspect ratio, source): the pack's icons/*.svg files, then the icon
        template's names."""
        if self._icons is None:  # once per build: the environment lives as long as the build
            memo = getattr(self.env, "pnpkit_icons", None) if self.env is not None else None
            if memo is None or memo[0] is not self.pack:
                memo = (self.pack, icons.available(self.pack, self.env))
                if self.env is not None:
                    self.env.pnpkit_icons = memo  # type: ignore[attr-defined]  # a memo on the build's env
            self._icons = memo[1]
        return self._icons

    def icon_svg(self, name: str, x: float, y: float, w: float, h: float) -> str:
        return (
            icons.markup(self.icons()[name], self.env, x, y, w, h) if name in self.icons() else ""
        )

    def _check_numbers(self, **numbers: Any) -> None:
        """Finite numbers only: a NaN size never shrinks to fit, so the fitting loop would never
        end."""
        for name, value in numbers.items():
            try:
                finite = not isinstance(value, bool) and math.isfinite(value)
            except (TypeError, OverflowError):  # a string, None, an int too large for a float
                finite = False
            if not finite:
                raise TextBoxError(
                    f"text_box {name} must be a finite number (got {_excerpt(str(value))})"
                )
        if not 0 < numbers["size"] <= self.MAX_SIZE_PT:
            raise TextBoxError(
                "text_box size must be more than 0 and at most "
                f"{self.MAX_SIZE_PT:g} (pt; got {numbers['size']:g})"
            )
        if not 0 < numbers["leading"] <= self.MAX_LEADING:
            raise TextBoxError(
                "text_box leading must be more than 0 and at most "
                f"{self.MAX_LEADING:g} (got {numbers['leading']:g})"
            )

    def _where(self, text: str) -> Location:
        """The field the text came from, if it came from one; else the item."""
        for name, value in self.item.fields.items():
            if value == text or (isinstance(value, dict) and value.get(self.lang) == text):
                return self.item.field_where.get(name, self.item.where)
        return self.item.where

    def _problem(self, where: Location, message: str, rule: str) -> None:
        self._add(
            Problem(where, f"{message} (language {self.lang}, template '{self.template}')", rule)
        )

    def _add(self, problem: Problem) -> None:
        if problem not in self.problems:
            self.problems.append(problem)


# What Sandbox.call() calls as Context.call() would, without asking: text_box() and macros.
_PLAIN_CALLS = frozenset({TextBoxes, jinja2.runtime.Macro})


def calling_template() -> Location | None:
    """Where in a template the current call stands (Jinja maps its compiled lines back)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        template = frame.f_globals.get("__jinja_template__")
        if template is not None and template.filename:
            line = template.get_corresponding_lineno(frame.f_lineno)
            return Location(display_path(Path(template.filename)), line, 1)
        frame = frame.f_back
    return None


def _excerpt(text: str, n: int = 40) -> str:
    flat = " ".join(text.split())
    return f"'{flat[:n]}…'" if len(flat) > n else f"'{flat}'"


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


# Families already found, per environment (one environment per validation): a template error
# on every face of a deck asks for the same family once per face, and parsing is slow.
_FAMILIES = workspace.Slot[
    weakref.WeakKeyDictionary[jinja2.Environment, dict[str, list[tuple[str, str, str]]]]
]("render.families", weakref.WeakKeyDictionary)


def template_family(env: jinja2.Environment, name: str) -> list[tuple[str, str, str]]:
    """The template and every one it extends, includes or imports (all of them when it names
    one by a variable), in the order met, as (name, file, source). Raises jinja2.TemplateError."""
    known = _FAMILIES.here().setdefault(env, {})
    if name not in known:
        known[name] = _family(env, name)
    return known[name]


class _Parsed(NamedTuple):
    """What a template's source says, read from one parse."""

    references: tuple[str | None, ...]  # the templates it names (None: one named by a variable)
    reads: frozenset[str]  # the names it reads
    sets: frozenset[str]  # the names it gives values: set, looped over, parameters, imports, macros
    filters: frozenset[str]
    tests: frozenset[str]
    shared: sharedreads.Reads  # the keys of `s` and `data` it reads (sharedreads.py)


_PARSED = workspace.Memo[tuple[str, str], _Parsed](
    "render.parsed"
)  # by settings and source, as _COMPILED


def _parsed(env: jinja2.Environment, source: str) -> _Parsed:
    """What a source says; raises jinja2.TemplateSyntaxError. Parsed once per process (watch
    asks again after every save)."""
    key = (_settings(env), source)
    known = _PARSED.get(key)
    # a Sandbox's parse reads its tree itself (Sandbox._parse): a template it compiled is known
    return known if known is not None else _read_tree(key, env.parse(source))


def _read_tree(key: tuple[str, str], tree: jinja2.nodes.Template) -> _Parsed:
    """What a freshly parsed tree says, kept for _parsed() under key (settings and source)."""
    names = list(tree.find_all(jinja2.nodes.Name))
    parsed = _Parsed(
        tuple(jinja2.meta.find_referenced_templates(tree)),
        frozenset(n.name for n in names if n.ctx == "load"),
        frozenset(_names_set(tree)),
        frozenset(node.name for node in tree.find_all(jinja2.nodes.Filter)),
        frozenset(node.name for node in tree.find_all(jinja2.nodes.Test)),
        sharedreads.tree_reads(tree),
    )
    return memo.remember(_PARSED, key, parsed, _Compiled.KEEP)


def shared_reads(env: jinja2.Environment, name: str) -> sharedreads.Reads:
    """The keys of the pack-wide tables template `name` and its family read (sharedreads.py);
    raises jinja2.TemplateError."""
    parses = [_parsed(env, source) for _, _, source in template_family(env, name)]
    for table, used in (("globals", "reads"), ("filters", "filters"), ("tests", "tests")):
        if sharedreads.asks_for_context(env, (n for p in parses for n in getattr(p, used)), table):
            return sharedreads.EVERYTHING
    return sharedreads.merged(p.shared for p in parses)


def _referenced(env: jinja2.Environment, source: str) -> list[str | None]:
    """The templates a source names (None: one named by a variable); raises
    jinja2.TemplateSyntaxError."""
    return list(_parsed(env, source).references)


def _family(env: jinja2.Environment, name: str) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    todo = [name]
    assert env.loader is not None  # the build's environment has the pack's loader
    while todo:
        current = todo.pop(0)
        if current in seen:
            continue
        seen.add(current)
        source, filename, _ = env.loader.get_source(env, current)
        assert filename is not None  # our loaders read files
        refs = _referenced(env, source)
        out.append((current, filename, source))
        if None in refs:
            todo += sorted(env.list_templates())
        todo += [r for r in refs if r]
    return out
