"""A face's render on a budget: a stranger's template is data, yet Jinja runs it as code, so
what one face may make and how long it may take is bounded (docs/strangers.md, Templates).

The sandbox (render.Sandbox) asks here before it multiplies, raises to a power, adds or
formats (its intercepted operators), calls a method or one of the filters below that can
make much from little, and after it joins strings (`~`, `{% set %}` blocks). Its code
(BudgetedCode) counts every loop iteration and call as a step, and every character written
before Jinja joins them; every so many steps the face's CPU time is looked at. Going over
is a BudgetError, which the render reports like any template error: located at the item,
naming the face and the template's line.
"""

from __future__ import annotations

import functools
import math
import operator
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, Protocol, cast

import jinja2
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.filters import FILTERS as JINJAS_FILTERS
from jinja2.utils import generate_lorem_ipsum
from jinja2.visitor import NodeTransformer

TEXT = 1_000_000  # characters of a string, items of a list, one operation may make
DIGITS = 4_000  # digits of an integer
STEPS = 1_000_000  # loop iterations and calls in one face
SECONDS = 1.0  # CPU time of one face (the kits' slowest takes 0.05 s)
OUTPUT = 20_000_000  # characters one face's template writes (its SVG, macros, set blocks)
LIPSUM = (100, 1_000)  # lipsum(): paragraphs, words a paragraph

_BITS = int(DIGITS * math.log2(10))
_GUESS = 10 * TEXT  # what an operation may be guessed to make before it is refused
_CHECK_EVERY = 1_000  # steps between two looks at the clock

# The names of the filters a budgeted tree calls: no template can write them (a space)
LOOP, SIZED, PRINTED, WRITE, WROTE = (
    "pnpkit loop",
    "pnpkit sized",
    "pnpkit printed",
    "pnpkit write",
    "pnpkit wrote",
)


class BudgetError(Exception):
    """A template went over one of its face's budgets; the message says which."""


class OutOfTime(BudgetError):
    """Over the steps or the time: the template's other faces would run out too."""


class Budget:
    """One face's steps, characters written and CPU time, started afresh for each face."""

    def __init__(self) -> None:
        self.start()

    def start(self) -> None:
        self.steps = 0
        self.written = 0  # characters the face's template wrote: its SVG, its macros' output
        self.check_at = _CHECK_EVERY
        self.deadline = time.process_time() + SECONDS

    def step(self, n: int = 1) -> None:
        self.steps += n
        if self.steps >= self.check_at:
            self._check()

    def _check(self) -> None:
        if self.steps > STEPS:
            raise OutOfTime(f"more than {STEPS:,} loop iterations and calls in one face")
        if time.process_time() > self.deadline:
            raise OutOfTime(f"more than {SECONDS:g} s of CPU time on one face")
        self.check_at = self.steps + _CHECK_EVERY

    def loop(self, iterable: Any) -> Any:
        """What a `{% for %}` loops over, its iterations counted as steps: all at once when
        they can be counted (nested loops over range(100000) stop at the tenth outer one)."""
        try:
            n = len(iterable)
        except TypeError:
            return self._counted(iterable)
        self.step(n)
        return iterable

    def _counted(self, iterable: Iterable[Any]) -> Iterator[Any]:
        for n, value in enumerate(iterable, 1):
            if not n % 256:
                self.step(256)
            yield value

    def write(self, n: int) -> None:
        """n more characters written (before escaping): at most OUTPUT in one face."""
        self.written += n
        if self.written > OUTPUT:
            raise BudgetError(f"the face's template writes more than {OUTPUT:,} characters")

    def output(self, value: Any) -> Any:
        """What `{{ value }}` writes, counted (a list or dict by what it prints as)."""
        if isinstance(value, str):
            self.write(len(value))
        elif isinstance(value, _CONTAINERS):
            self.write(printed(value))
        elif isinstance(value, int):
            self.write(len(str(value)))
        return value


_SEQUENCES = (str, list, tuple)


def sized(value: Any) -> Any:
    """value, if it is not a string or list longer than TEXT."""
    if isinstance(value, _SEQUENCES) and len(value) > TEXT:
        raise _too_long(value, len(value))
    return value


def _too_long(value: Any, n: int) -> BudgetError:
    what = "string" if isinstance(value, str) else "dict" if isinstance(value, dict) else "list"
    unit = "characters" if isinstance(value, str) else "items"
    return BudgetError(f"a {what} of {n:,} {unit} (a template may make at most {TEXT:,})")


# --- the operators -----------------------------------------------------------------------------

OPERATORS: Mapping[str, Callable[[Any, Any], Any]] = MappingProxyType(
    {
        "+": operator.add,
        "*": operator.mul,
        "**": operator.pow,
        "%": operator.mod,
    }
)


def binop(op: str, left: Any, right: Any) -> Any:
    """`left op right` for the operators in OPERATORS, refused before it is worked out when
    its result would be too large."""
    if type(left) in _NUMBERS and type(right) in _NUMBERS:  # most of a template's arithmetic
        if op == "**":
            _power(left, right)
        elif op == "*":
            _times(left, right)
        return OPERATORS[op](left, right)  # a float stays small (or raises OverflowError)
    if op == "**":
        _power(left, right)
    elif op == "*":
        _times(left, right)
    elif op == "+" and isinstance(left, _SEQUENCES) and isinstance(right, _SEQUENCES):
        if len(left) + len(right) > TEXT:
            raise _too_long(left, len(left) + len(right))
    elif op == "%" and isinstance(left, str):
        check_format(left, right if isinstance(right, tuple) else (right,), {})
    return sized(OPERATORS[op](left, right))


def _too_big_integer() -> BudgetError:
    return BudgetError(f"an integer of more than {DIGITS:,} digits")


def _power(base: Any, exponent: Any) -> None:
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
        if exponent * math.log2(abs(base)) > _BITS:
            raise _too_big_integer()


def _times(left: Any, right: Any) -> None:
    if isinstance(left, int) and isinstance(right, int):
        if left.bit_length() + right.bit_length() > _BITS:
            raise _too_big_integer()
        return
    sequence, times = (left, right) if isinstance(right, int) else (right, left)
    if isinstance(sequence, _SEQUENCES) and isinstance(times, int):
        if len(sequence) * times > TEXT:
            raise _too_long(sequence, len(sequence) * times)
        if not isinstance(sequence, str) and weight(sequence) * times > _GUESS:
            raise BudgetError(
                f"a list of {len(sequence) * times:,} items that prints as more than "
                f"{_GUESS:,} characters"
            )


# widths and precisions in '%' conversions and '{}' fields: '%0999999999d', '{:>999999999}'
_WIDTHS = re.compile(r"%(?:\(\w*\))?[-#0 +]*(\d*)(?:\.(\d*))?|\{[^{}]*?(\d+)(?:\.(\d+))?[^{}\d]*\}")


def check_format(fmt: str, args: Iterable[Any], kwargs: dict[str, Any]) -> None:
    """A format string (`%`, the format filter, str.format) whose widths are in reason. Its
    numbers count by their digits, unless it takes a width from them ('%*d', '{:{w}}')."""
    if len(fmt) > 1_000 or _LONG_NUMBER.search(fmt):  # else its widths sum to under 1,000,000
        for match in _WIDTHS.finditer(fmt):
            if any(g and int(g) > TEXT for g in match.groups()):
                raise BudgetError(f"a format width over {TEXT:,} ({match.group()!r})")
    values = [*args, *kwargs.values()]
    if "*" in fmt or ("{" in fmt and _NESTED.search(fmt)):
        _guess(fmt, *values)
    elif not all(type(v) in _NUMBERS for v in values):  # numbers print as their digits
        _guess(fmt, *(len(str(v)) if type(v) is int else v for v in values))


_LONG_NUMBER = re.compile(r"\d{4}")
_NUMBERS = frozenset({int, float, bool})
_NESTED = re.compile(r"\{[^{}]*\{")


# --- calls and filters -------------------------------------------------------------------------


def _size(value: Any) -> int:
    """How much value weighs in what an operation makes of it: a string's characters, a list's
    weight(), an integer's value."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, _CONTAINERS):
        return weight(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) if value.bit_length() < 64 else 1 << 64
    return 0


_CONTAINERS = (list, tuple, dict)


def weight(value: Any) -> int:
    """About how many characters a list, tuple or dict prints as: its items, and the strings
    in it and in the lists in it, walked until the sum passes _GUESS (a list of a thousand
    references to one long list is short, yet prints as a long text)."""
    total, todo = 0, [value]
    while todo and total <= _GUESS:
        container = todo.pop()
        items = container.items() if isinstance(container, dict) else container
        total += len(container) * 2
        for item in items:
            if isinstance(item, str):
                total += len(item)
            elif isinstance(item, _CONTAINERS):
                todo.append(item)
            if total > _GUESS:
                break
    return total


def printed(value: Any) -> int:
    """About how long a list or dict prints, refused over TEXT."""
    n = weight(value)
    if n > TEXT:
        raise BudgetError(f"a {type(value).__name__} that prints as more than {TEXT:,} characters")
    return n


def _guess(*args: Any) -> None:
    """Refuse a call whose arguments could make more than _GUESS: the largest one times the
    sum of the others (a text whose every letter is replaced by another text, a width of a
    billion spaces, a list of a thousand long texts joined)."""
    sizes = [_size(a) for a in args]
    largest = max(sizes, default=0)
    if (1 + largest) * (1 + sum(sizes) - largest) > _GUESS:
        raise BudgetError(
            f"an operation on values this large could make more than {_GUESS:,} characters"
        )


def check_method(method: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Before a template calls a method of a string (`s.ljust(n)`, `s.replace(a, b)`, ...;
    format() is the sandbox's own wrapper, which checks its widths: Sandbox.wrap_str_format)."""
    owner = getattr(method, "__self__", None)
    if not isinstance(owner, str):
        return
    _guess(owner, *args, *kwargs.values())


def check_grown(method: Any) -> None:
    """After a template called a method of a list or dict of its own (`xs.append(x)`,
    `xs.extend(ys)`, `d.update(e)`): the list or dict, if it holds at most TEXT items. Each call
    at most doubles it, so it never holds more than twice that."""
    owner = getattr(method, "__self__", None)
    if isinstance(owner, (list, dict)) and len(owner) > TEXT:
        raise _too_long(owner, len(owner))


def _budgeted(name: str) -> Callable[..., Any]:
    """Jinja's filter `name`, refused before it runs when its arguments could make too much."""
    original = JINJAS_FILTERS[name]

    @functools.wraps(original)  # keeps how Jinja passes it the environment or context
    def run(*args: Any, **kwargs: Any) -> Any:
        if name == "format" and args and isinstance(args[0], str):
            check_format(args[0], args[1:], kwargs)
        else:
            _guess(*args, *kwargs.values())
        return sized(original(*args, **kwargs))

    return run


# Jinja's filters that can make much from little: a width, a count, a text repeated
# (or print a list: a list of a thousand references to one long text, made by `+` in a loop)
_GROWING = (
    *("batch", "center", "format", "indent", "join", "replace", "slice", "sum", "wordwrap"),
    *("pprint", "string", "tojson"),
)
FILTERS: Mapping[str, Callable[..., Any]] = MappingProxyType(
    {
        **JINJAS_FILTERS,
        **{name: _budgeted(name) for name in _GROWING},
    }
)


def lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:  # noqa: A002
    """Jinja's lipsum(), at most LIPSUM paragraphs and words."""
    paragraphs, words = LIPSUM
    if not (0 <= n <= paragraphs and 0 <= min <= words and 0 <= max <= words):
        raise BudgetError(
            f"lipsum() makes at most {paragraphs} paragraphs of at most {words:,} words"
        )
    return generate_lorem_ipsum(n, html, min, max)


# --- the tree ----------------------------------------------------------------------------------


class _HasBudget(Protocol):
    budget: Budget


def _budget_of(context: jinja2.runtime.Context) -> Budget:
    """The render's budget, which render.Sandbox (an import of this module) carries."""
    return cast(_HasBudget, context.environment).budget


@jinja2.pass_context  # never worked out while compiling (a context is needed)
def _loop(context: jinja2.runtime.Context, iterable: Any) -> Any:
    return _budget_of(context).loop(iterable)


@jinja2.pass_context
def _sized(context: jinja2.runtime.Context, value: Any) -> Any:
    return sized(value)


@jinja2.pass_context
def _printed(context: jinja2.runtime.Context, value: Any) -> Any:
    if isinstance(value, _CONTAINERS):
        printed(value)
    return value


@jinja2.pass_context
def _write(context: jinja2.runtime.Context, value: Any) -> Any:
    budget = _budget_of(context)
    if isinstance(value, str):  # the same as budget.output(), inline: a face writes many
        budget.written += len(value)
    elif type(value) is float or (type(value) is int and -_SHORT < value < _SHORT):
        budget.written += 24
    else:
        return budget.output(value)
    if budget.written > OUTPUT:
        budget.write(0)  # raises
    return value


_SHORT = 10**20


@jinja2.pass_context
def _wrote(context: jinja2.runtime.Context, n: int) -> str:
    _budget_of(context).write(n)
    return ""


TREE_FILTERS = MappingProxyType(
    {LOOP: _loop, SIZED: _sized, PRINTED: _printed, WRITE: _write, WROTE: _wrote}
)


class _Budgeted(NodeTransformer):
    def __init__(self) -> None:
        self.repeated = 0  # inside a loop, macro or call block: its text may be written often

    def _repeated(self, node: nodes.Node) -> None:
        self.repeated += 1
        self.generic_visit(node)
        self.repeated -= 1

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self._repeated(node)
        node.iter = _filter(node.iter, LOOP, node.lineno)
        return node

    def visit_Macro(self, node: nodes.Macro) -> nodes.Node:
        self._repeated(node)
        return node

    def visit_CallBlock(self, node: nodes.CallBlock) -> nodes.Node:
        self._repeated(node)
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        node.nodes = [_filter(n, PRINTED, n.lineno) for n in node.nodes]
        return _filter(node, SIZED, node.lineno)

    def visit_AssignBlock(self, node: nodes.AssignBlock) -> nodes.Node:
        self.generic_visit(node)
        node.filter = _filter(node.filter, SIZED, node.lineno)
        return node

    def visit_Output(self, node: nodes.Output) -> list[nodes.Node]:
        """Every character written counted before it is joined (into the SVG, a macro's
        output, a {% set %} block): each {{ value }} by a call, and the text of a loop, macro
        or call block by one call (elsewhere it is written once: as long as the file)."""
        self.generic_visit(node)
        text = self.repeated and sum(
            len(n.data) for n in node.nodes if isinstance(n, nodes.TemplateData)
        )
        node.nodes = [
            n if isinstance(n, nodes.TemplateData) else _filter(n, WRITE, n.lineno)
            for n in node.nodes
        ]
        if not text:
            return [node]
        count = nodes.ExprStmt(_filter(nodes.Const(text), WROTE, node.lineno), lineno=node.lineno)
        return [count, node]


def _filter(node: nodes.Node | None, name: str, lineno: int) -> nodes.Filter:
    return nodes.Filter(node, name, [], [], None, None, lineno=lineno)


class BudgetedCode(CodeGenerator):
    """Jinja's code for a template, every loop's iterations and every character it writes
    counted, every join of strings (`~`, a `{% set %}` block) measured: the tree is rewritten
    as it is compiled (each parse is compiled once; what a parse says is read before it is:
    render._read_tree)."""

    def visit_Template(self, node: nodes.Template, frame: Frame | None = None) -> None:
        _Budgeted().visit(node)
        super().visit_Template(node, frame)
