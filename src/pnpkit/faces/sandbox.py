"""The Jinja sandbox templates run in: the types a template may read, the pack's data refused
changes, names it does not know reported, every face on a budget (budget.py)."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import TYPE_CHECKING, Any

import jinja2
import jinja2.bccache
import jinja2.meta
from jinja2.exceptions import SecurityError
from jinja2.sandbox import SandboxedEnvironment, modifies_known_mutable
from markupsafe import Markup

from pnpkit.faces import budget
from pnpkit.faces.frozen import FROZEN, FrozenDict, FrozenList
from pnpkit.pack.model import Pack

if TYPE_CHECKING:
    from pnpkit.kinds.registry import Registry
from pnpkit.faces import templates
from pnpkit.faces.templates import _FailFast, _read_tree, _settings, template_loader
from pnpkit.faces.textboxes import TextBlock, TextBoxes

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
        bytecode_cache=templates._COMPILED.here(),  # the module's: a test starts it afresh
    )
    env.readable = READABLE | {TextBlock} | frozenset(reg.types)
    env.globals.update(reg.helpers)
    return env


# What Sandbox.call() calls as Context.call() would, without asking: text_box() and macros.
_PLAIN_CALLS = frozenset({TextBoxes, jinja2.runtime.Macro})
