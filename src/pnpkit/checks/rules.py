"""Game rules: generic checks configured per game in game.yaml, plus a game's own Python rules.

game.yaml lists checks; each names a rule, an id shown in messages (the
game's own numbering, e.g. SAM-C01), a level, and the rule's options:

    checks:
      - {rule: count, id: SAM-C01, group: bonus-tiles, exact: 16}

A rule that the generic ones cannot express is a function in the pack's
rules.py, decorated with @rule and added to a child of the build's registry for
that pack only (registry.py). @rule only declares: nothing is registered anywhere
until a registry adds the function. There is deliberately no expression
language: logic is Python, choices are YAML.
"""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard, cast

from pnpkit.checks import packcode
from pnpkit.checks.trust import CODE_SECONDS
from pnpkit.errors import Location, Problem
from pnpkit.pack.checker import Reader, did_you_mean, unknown_key
from pnpkit.pack.loader import display_path
from pnpkit.pack.model import KINDS, Check, Item, Pack
from pnpkit.units import describe

if TYPE_CHECKING:
    from pnpkit.kinds.registry import Registry

Finding = str | tuple[str, Location]  # what a rule yields: a message, or one and where
RuleFn = Callable[["Context"], Iterator[Finding]]
Only = tuple[str, Any] | None  # under `each:`, the field and the value a subset is for


@dataclass(frozen=True)
class Rule:
    name: str
    fn: RuleFn
    # option name -> kind: "group", "int", "list", "any", "mapping", "string", "bool", "quantity"
    options: dict[str, str]
    required: tuple[str, ...]

    @property
    def doc(self) -> str:
        return (self.fn.__doc__ or "").strip()


def rule(
    name: str, options: dict[str, str] | None = None, required: tuple[str, ...] = ()
) -> Callable[[RuleFn], RuleFn]:
    """Declare fn a rule; options maps each option to its kind, required lists the mandatory ones.
    The declaration rides on the function; a registry adds it (Registry.add_rule)."""

    def declare(fn: RuleFn) -> RuleFn:
        setattr(fn, _DECLARED, Rule(name, fn, options or {}, required))
        return fn

    return declare


_DECLARED = "pnpkit_rule"  # the attribute @rule sets


def declared(fn: Callable[..., object]) -> Rule:
    """The Rule that @rule declared on fn."""
    found = getattr(fn, _DECLARED, None)
    if not isinstance(found, Rule):
        raise TypeError(f"{getattr(fn, '__name__', fn)!r} is not declared with @rule")
    return found


def register(reg: Registry) -> None:
    """The generic rules (dice.py adds the die rules)."""
    for fn in (
        count_rule,
        fields_rule,
        capacity_rule,
        setup_draws_rule,
        die_faces_rule,
        reference_rule,
    ):
        reg.add_rule(fn)


@dataclass
class Context:
    """What a rule sees: the pack, its checked options, and where to point."""

    pack: Pack
    check: Check
    opts: dict[str, Any]

    def at(self, option: str) -> Location:
        """Where one of this check's options stands."""
        return self.check.doc.at(self.check.path + (option,))

    def data_at(self, *path: object, key: bool = False) -> Location:
        """Where a value of the pack's `data:` (in game.yaml) stands."""
        assert self.pack.manifest is not None  # a loaded pack has its game.yaml
        return self.pack.manifest.at(("data",) + path, key=key)

    def quantity(self, value: object, only: Only = None) -> float | None:
        """A number, {count: group}, {sum: [group, field]}, {max: [group, field]} or
        {data: key.path}; with `only`, a group's items that have that field value."""
        return quantity(self.pack, value, only)


def load_rules(pack: Pack, base: Registry) -> tuple[Registry, list[Problem]]:
    """A child of `base` with the pack's own rules.py added, if it has one (base stays as it
    was)."""
    reg = base.child()
    if pack.rules_file is None:
        return reg, []
    name = f"pnpkit_rules_{pack.id}"
    try:
        spec = importlib.util.spec_from_file_location(name, pack.rules_file)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {pack.rules_file} as Python")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses and pickling look their module up here
        spec.loader.exec_module(module)
    except Exception as exc:  # a designer's Python: report it, located, instead of a traceback
        line = _exc_line(exc, pack.rules_file)
        return reg, [
            Problem(
                Location(display_path(pack.rules_file), line, 1),
                f"rules file failed to load: {type(exc).__name__}: {exc}",
                "rules",
            )
        ]
    finally:
        sys.modules.pop(name, None)
    for fn in vars(module).values():  # the file's own rules, in order; not ones it imported
        if callable(fn) and getattr(fn, "__module__", None) == name and hasattr(fn, _DECLARED):
            reg.add_rule(fn)
    return reg, []


def check(
    pack: Pack, reg: Registry, trusted: bool = True, seconds: float = CODE_SECONDS
) -> list[Problem]:
    """Run every configured check; return the problems, each under its check's id.

    The built-in rules run here. The pack's own rules (its rules.py) run only when the pack
    is trusted, and then in a child process with a time limit (packcode.py); otherwise a
    warning names the checks left out and how to trust the pack."""
    own: set[str] | None = set()
    problems: list[Problem] = []
    if pack.rules_file is not None:
        own, problems = _run_own(pack, reg, seconds) if trusted else (None, [_untrusted(pack, reg)])
    for chk in pack.checks:
        if own is not None and chk.rule in own:
            continue
        r = reg.rules.get(chk.rule)
        if r is None and own is None:  # rules.py did not run: its rules are unknown, not wrong
            continue
        if r is None:
            known = sorted(set(reg.rules) | (own or set()))
            problems.append(
                Problem(
                    chk.doc.at(chk.path + ("rule",)),
                    f"unknown rule '{chk.rule}'{did_you_mean(chk.rule, known)}",
                    "rules",
                )
            )
            continue
        problems += run_check(pack, chk, r)
    return problems


def run_check(pack: Pack, chk: Check, r: Rule) -> list[Problem]:
    """One check's problems; a rule that crashes is a problem too."""
    problems: list[Problem] = []
    try:
        opts = _options(Reader(chk.doc, problems), chk, r, pack)
        if opts is None:
            return problems
        for found in r.fn(Context(pack, chk, opts)):
            message, where = found if isinstance(found, tuple) else (found, chk.where)
            problems.append(Problem(where, message, chk.id, chk.level))
    except RuleOptionError as exc:
        problems.append(Problem(chk.where, str(exc), "rules"))
    except Exception as exc:  # a game's own rule, or options the table let through
        problems.append(
            Problem(chk.where, f"rule '{chk.rule}' crashed: {type(exc).__name__}: {exc}", chk.id)
        )
    return problems


def _untrusted(pack: Pack, reg: Registry) -> Problem:
    assert pack.rules_file is not None  # asked only for a pack with a rules.py
    left_out = [f"{c.id} ({c.rule})" for c in pack.checks if c.rule not in reg.rules]
    what = {0: "no check of its was skipped", 1: "its check {} was skipped"}.get(
        len(left_out), "its checks {} were skipped"
    )
    what = what.format(", ".join(left_out))
    manifest = pack.manifest
    where = (
        manifest.at(("rules",))
        if manifest is not None and ("rules",) in manifest.values
        else pack.where
    )
    return Problem(
        where,
        "the pack is not trusted, so its Python "
        f"({display_path(pack.rules_file)}) did not run and {what}; "
        f"if you trust its author: pnpkit trust {display_path(pack.root)} (or --trust for one run)",
        "trust",
        "warning",
    )


def _run_own(pack: Pack, reg: Registry, seconds: float) -> tuple[set[str] | None, list[Problem]]:
    """Load rules.py and run the checks that use its rules, in a child with a time limit.
    Returns the names rules.py registered (None when it did not load) and the problems."""
    checks = list(pack.checks)

    def work(step: Callable[[object], None]) -> list[list[object]]:
        loaded, found = load_rules(pack, reg)
        if found:
            return [_dump(p) for p in found]
        own = {name: r for name, r in loaded.rules.items() if r is not reg.rules.get(name)}
        step(sorted(own))
        out: list[Problem] = []
        for i, chk in enumerate(checks):
            if chk.rule in own:
                step(i)
                out += run_check(pack, chk, own[chk.rule])
        return [_dump(p) for p in out]

    outcome = packcode.run(work, seconds)
    names = outcome.step if isinstance(outcome.step, list) else None
    own = set(names) if names is not None else None
    if outcome.done:
        return own, [_load(p) for p in cast(list[list[Any]], outcome.value)]  # what work() returns
    return own, [_stopped(pack, checks, outcome, seconds)]


def _stopped(pack: Pack, checks: list[Check], outcome: packcode.Outcome, seconds: float) -> Problem:
    """The pack's code ran out of time or memory: say where it was."""
    assert pack.rules_file is not None  # asked only for a pack with a rules.py
    if outcome.timed_out:
        what = (
            f"did not finish within {seconds:g} s and was "
            "stopped (if it is just slow: --code-timeout SECONDS)"
        )
    else:
        what = f"was stopped: {outcome.crashed}"
    if isinstance(outcome.step, int):
        chk = checks[outcome.step]
        return Problem(chk.where, f"rule '{chk.rule}' (the pack's own Python) {what}", chk.id)
    return Problem(
        Location(display_path(pack.rules_file), 1, 1), f"loading the rules file {what}", "rules"
    )


def _dump(p: Problem) -> list[object]:
    return [p.where.file, p.where.line, p.where.column, p.message, p.rule, p.level, p.where.sheet]


def _load(row: list[Any]) -> Problem:
    file, line, column, message, rule, level, sheet = row
    return Problem(Location(file, line, column, sheet), message, rule, level)


def _options(reader: Reader, chk: Check, r: Rule, pack: Pack) -> dict[str, Any] | None:
    before = len(reader.problems)
    for key in chk.options:
        if key not in r.options:
            reader.problem(
                chk.path + (key,),
                unknown_key(key, list(r.options), f"rule '{r.name}'"),
                "rules",
                key=True,
            )
    for key in r.required:
        if key not in chk.options:
            reader.problem(chk.path, f"rule '{r.name}' needs the option '{key}'", "rules")
    opts: dict[str, Any] = {}
    for key, kind in r.options.items():
        if key in chk.options:
            opts[key] = _option(reader, chk.options[key], chk.path + (key,), kind, pack)
    return opts if len(reader.problems) == before else None


def _option(reader: Reader, value: object, path: tuple[Any, ...], kind: str, pack: Pack) -> Any:
    if kind == "group":
        return reader.choice(value, path, list(pack.groups), "rules")
    if kind == "kind":
        return reader.choice(value, path, KINDS, "rules")
    if kind == "int or mapping" and not isinstance(value, dict):
        return reader.typed(value, path, "int", "rules")
    if kind == "int or field" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind in ("field", "int or field"):
        return _field_option(reader, value, path, pack, kind)
    if kind == "where":
        return _where_option(reader, value, path, pack)
    if kind in ("int", "string", "bool", "number"):
        return reader.typed(value, path, kind, "rules")
    if kind == "list" and not isinstance(value, list):
        reader.problem(path, f"'{path[-1]}' must be a list (got {describe(value)})", "rules")
    if kind == "mapping" and not isinstance(value, dict):
        reader.problem(path, f"'{path[-1]}' must be a mapping (got {describe(value)})", "rules")
    if kind == "quantity" and quantity(pack, value) is None:
        reader.problem(path, f"'{path[-1]}' {_not_a_quantity(pack, value)}", "rules")
    return value


def _not_a_quantity(pack: Pack, value: object) -> str:
    """Why a bound is none: a field its group does not declare, or not a bound's shape."""
    arg = next(iter(value.values())) if isinstance(value, dict) and len(value) == 1 else None
    if (
        isinstance(arg, list)
        and len(arg) == 2
        and isinstance(arg[0], str)
        and arg[0] in pack.groups
    ):
        fields = pack.groups[arg[0]].fields
        return f"names no field '{arg[1]}' of group '{arg[0]}'{did_you_mean(arg[1], fields)}"
    return (
        "must be a number, {count: group}, {sum: [group, field]}, "
        f"{{max: [group, field]}} or {{data: key}} (got {describe(value)})"
    )


def _pack_fields(pack: Pack) -> list[str]:
    """Every field some group of the pack declares."""
    return sorted({name for g in pack.groups.values() for name in g.fields})


def _field_option(
    reader: Reader, value: object, path: tuple[Any, ...], pack: Pack, kind: str
) -> Any:
    """A field name some group declares (`each: kind`); for count's `each`, also a number."""
    known = _pack_fields(pack)
    if not isinstance(value, str):
        noun = "a field name or a whole number" if kind == "int or field" else "a field name"
        message = f"'{path[-1]}' must be {noun} (got {describe(value)})"
    elif value not in known:
        message = f"'{path[-1]}' names no field of the pack's groups{did_you_mean(value, known)}"
    elif {g.fields[value].type for g in pack.groups.values() if value in g.fields} & {
        "list",
        "text",
    }:
        message = f"'{path[-1]}' needs a field of single values; '{value}' holds lists or texts"
    else:
        return value
    reader.problem(path, message, "rules")
    return value


def _where_option(reader: Reader, value: object, path: tuple[Any, ...], pack: Pack) -> Any:
    """`where: {field: value or [values]}`: each field declared, each value a plain one."""
    if not isinstance(value, dict) or not value:
        reader.problem(
            path,
            "'where' must be a mapping of fields to a value or a list of values "
            f"(got {describe(value)})",
            "rules",
        )
        return value
    known = _pack_fields(pack)
    for name, want in value.items():
        if name not in known:
            reader.problem(
                path + (name,),
                f"unknown field '{name}' in 'where'{did_you_mean(name, known)}",
                "rules",
                key=True,
            )
        elif any(v is None or isinstance(v, (dict, list)) for v in _listed(want)):
            reader.problem(
                path + (name,),
                f"'where: {name}' must be a value or a list of values (got {describe(want)})",
                "rules",
            )
    return value


def _listed(want: object) -> list[Any]:
    """A `where` value as the list of values it allows."""
    return want if isinstance(want, list) else [want]


def quantity(pack: Pack, value: object, only: Only = None) -> float | None:
    """A number, {count: group}, {sum: [group, field]}, {max: [group, field]} or {data: key};
    with `only`, a group's items count when that field has that value."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    if not isinstance(value, dict) or len(value) != 1:
        return None
    ((how, arg),) = value.items()
    if how == "count" and isinstance(arg, str) and arg in pack.groups:
        return sum(i.count for i in _only(pack, arg, only))
    if how not in ("sum", "max") or not isinstance(arg, list) or len(arg) != 2:
        return _data_quantity(pack, how, arg)
    group, field = arg
    if not isinstance(group, str) or group not in pack.groups:
        return None
    if not isinstance(field, str) or field not in pack.groups[group].fields:  # not 0
        return None
    items = _only(pack, group, only)
    if how == "sum":
        return sum((i.fields.get(field) or 0) * i.count for i in items)
    return max((n for n in (i.fields.get(field) for i in items) if _is_number(n)), default=0)


def _only(pack: Pack, group: str, only: Only) -> list[Item]:
    """A group's items; under `each:`, those whose field has the subset's value."""
    return [i for i in pack.items(group) if only is None or i.fields.get(only[0]) == only[1]]


def _data_quantity(pack: Pack, how: object, arg: object) -> float | None:
    if how == "data" and isinstance(arg, str):
        node: object = pack.data
        for part in arg.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        return node if isinstance(node, (int, float)) and not isinstance(node, bool) else None
    return None


def _is_number(value: object) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _exc_line(exc: BaseException, file: Path) -> int:
    if isinstance(exc, SyntaxError):
        return exc.lineno or 1
    tb = exc.__traceback__
    line = 1
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).resolve() == file.resolve():
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


# ---------------------------------------------------------------- generic rules


def _selected(ctx: Context) -> tuple[list[Item], str]:
    """The items a rule counts or checks, and how messages name them."""
    if "group" in ctx.opts:
        items, what = ctx.pack.items(group=ctx.opts["group"]), f"group '{ctx.opts['group']}'"
    elif "tag" in ctx.opts:
        items, what = ctx.pack.items(tag=ctx.opts["tag"]), f"tag '{ctx.opts['tag']}'"
    elif "kind" in ctx.opts:
        groups = [g for g in ctx.pack.groups.values() if g.kind == ctx.opts["kind"]]
        items, what = [i for g in groups for i in g.items], f"kind '{ctx.opts['kind']}'"
    else:
        raise RuleOptionError(f"rule '{ctx.check.rule}' needs 'group', 'tag' or 'kind'")
    where = ctx.opts.get("where", {})
    kept = [i for i in items if all(i.fields.get(f) in _listed(v) for f, v in where.items())]
    said = " and ".join(f"{f} is {' or '.join(map(str, _listed(v)))}" for f, v in where.items())
    return kept, what + (f" (where {said})" if said else "")


class RuleOptionError(ValueError):
    """A rule's options are incomplete in a way the option table cannot say."""


@rule(
    "count",
    {
        "group": "group",
        "tag": "string",
        "kind": "kind",
        "where": "where",
        "exact": "int or mapping",
        "min": "quantity",
        "max": "quantity",
        "per_player": "int",
        "by": "string",
        "each": "int or field",
        "values": "list or data key",
        "others": "string",
    },
)
def count_rule(ctx: Context) -> Iterator[Finding]:
    """The number of printed components of a group, a tag or a kind (`where:` a field has a
    value or one of a list) is exact, in a range, or per_player x the most players; `each: field`
    checks that per value of the field, and a bound that names a group ({count: g}, {sum: [g, f]},
    {max: [g, f]}) counts that group's items with the same value. With `by: field`, counted per
    value of that field: `exact` maps values to numbers, or `each` is the number for every value
    of `values` (a list, or {data: key} for the keys of a data table such as the player colours).
    Values not listed must not occur, unless `others: ignore` (count a subset: 13 of each suit
    while the jokers share the field)."""
    if "by" in ctx.opts:
        yield from _count_by(ctx)
        return
    for key in ("others", "values"):
        if key in ctx.opts:
            raise RuleOptionError(f"'{key}' goes with 'by'")
    if isinstance(ctx.opts.get("each"), int):
        raise RuleOptionError("'each: n' goes with 'by' and 'values'; 'each: field' names a field")
    exact = ctx.opts.get("exact")
    if isinstance(exact, dict):
        raise RuleOptionError("'exact' may be a mapping only with 'by'")
    if "per_player" in ctx.opts:
        exact = ctx.opts["per_player"] * ctx.pack.players[1]
    items, what = _selected(ctx)
    for subset, only in _subsets(ctx, items, [ctx.opts.get("min"), ctx.opts.get("max")]):
        n = sum(i.count for i in subset)
        lo, hi = ctx.quantity(ctx.opts.get("min"), only), ctx.quantity(ctx.opts.get("max"), only)
        named = what + (f" with {only[0]} {only[1]}" if only else "")
        if exact is not None and n != exact:
            yield f"{named} has {n} components{_kinds(ctx)}; the game needs exactly {exact}"
        if lo is not None and n < lo:
            yield f"{named} has {n} components; the game needs at least {lo:g}"
        if hi is not None and n > hi:
            yield f"{named} has {n} components; the game allows at most {hi:g}"


def _subsets(
    ctx: Context, items: list[Item], bounds: list[object]
) -> Iterator[tuple[list[Item], Only]]:
    """The items once, or with `each: field` the items per value of the field: every value the
    items or the groups the bounds name take (and `where` allows); an item without it is left
    out."""
    field = ctx.opts.get("each")
    if not isinstance(field, str):
        yield items, None
        return
    named = [g for b in bounds for g in _bound_groups(ctx.pack, b)]
    values: dict[Any, None] = {}  # in order of first appearance; values may not sort
    for item in items + [i for g in named for i in ctx.pack.items(g)]:
        values.setdefault(item.fields.get(field))
    allowed = ctx.opts.get("where", {}).get(field)
    for value in values:
        if value not in (None, "") and (allowed is None or value in _listed(allowed)):
            yield [i for i in items if i.fields.get(field) == value], (field, value)


def _bound_groups(pack: Pack, bound: object) -> list[str]:
    """The group a bound counts in, if it names one."""
    if not isinstance(bound, dict) or len(bound) != 1:
        return []
    ((how, arg),) = bound.items()
    group = arg[0] if how in ("sum", "max") and isinstance(arg, list) and arg else arg
    return [group] if how in ("count", "sum", "max") and isinstance(group, str) else []


def _kinds(ctx: Context) -> str:
    """For a count by kind, which groups make it up."""
    if "kind" not in ctx.opts or any(k in ctx.opts for k in ("group", "tag", "where", "each")):
        return ""
    groups = [g for g in ctx.pack.groups.values() if g.kind == ctx.opts["kind"]]
    return " (" + (", ".join(f"'{g.name}' {g.total}" for g in groups) or "none") + ")"


def _count_by(ctx: Context) -> Iterator[Finding]:
    if isinstance(ctx.opts.get("each"), str):
        raise RuleOptionError("'each: field' counts per value itself; drop 'by' (or give a number)")
    items, what = _selected(ctx)
    field = ctx.opts["by"]
    got: Counter[Any] = Counter()  # field values
    for item in items:
        got[item.fields.get(field)] += item.count
    want = ctx.opts.get("exact")
    others = ctx.opts.get("others", "error")
    if others not in ("error", "ignore"):
        raise RuleOptionError(f"'others' must be error or ignore (got '{others}')")
    if isinstance(want, dict):
        for value in list(want) + [v for v in got if v not in want and others == "error"]:
            if got[value] != want.get(value, 0):
                yield (
                    f"{what} has {got[value]} with {field} "
                    f"{value}; the game needs {want.get(value, 0)}",
                    ctx.at("exact"),
                )
    elif "each" in ctx.opts:
        values, source = _values(ctx)
        for value in values:
            if got[value] != ctx.opts["each"]:
                yield (
                    f"{what} has {got[value]} {value}; every "
                    f"{field} needs exactly {ctx.opts['each']}"
                )
        for item in items if others == "error" else ():
            value = item.fields.get(field)
            if value not in values:
                yield (
                    f"item '{item.id}' has {field} {value}, which is "
                    f"not one of {source}{did_you_mean(value, values)}",
                    item.field_where.get(field, item.where),
                )
    else:
        raise RuleOptionError(
            "with 'by', give 'exact' (a mapping of values to numbers) or 'each' with 'values'"
        )


def _values(ctx: Context) -> tuple[list[Any], str]:
    values = ctx.opts.get("values")
    if isinstance(values, list):
        return values, ", ".join(map(str, values))
    if (
        isinstance(values, dict)
        and isinstance(values.get("data"), str)
        and isinstance(ctx.pack.data.get(values["data"]), dict)
    ):
        return list(ctx.pack.data[values["data"]]), f"data.{values['data']}"
    raise RuleOptionError(
        "'each' needs 'values': a list, or {data: key} naming a table of the pack's data"
    )


@rule("fields", {"group": "group", "require": "mapping"}, required=("group", "require"))
def fields_rule(ctx: Context) -> Iterator[Finding]:
    """Every item of a group has each required field, with a value from its allowed list (or
    `any`)."""
    for item in ctx.pack.items(ctx.opts["group"]):
        for name, allowed in ctx.opts["require"].items():
            value = item.fields.get(name)
            if value is None:
                yield f"item '{item.id}' has no '{name}'", item.where
            elif allowed != "any" and value not in allowed:
                listed = ", ".join(
                    str(a).lower() if isinstance(a, bool) else str(a) for a in allowed
                )
                yield (
                    f"item '{item.id}': '{name}' is {describe(value)}; the game allows {listed}",
                    item.field_where.get(name, item.where),
                )


@rule(
    "capacity",
    {
        "group": "group",
        "field": "string",
        "where": "where",
        "each": "field",
        "at_least": "quantity",
        "at_most": "quantity",
    },
    required=("group", "field"),
)
def capacity_rule(ctx: Context) -> Iterator[Finding]:
    """Each carrier's capacity field (of the carriers `where:` picks) lies between at_least and
    at_most (numbers, counts, sums, maxima or data); with `each: field`, a bound that names a
    group counts that group's items with the carrier's value of the field."""
    name, each = ctx.opts["field"], ctx.opts.get("each")
    for item in _selected(ctx)[0]:
        only = (each, item.fields.get(each)) if each is not None else None
        if only is not None and only[1] in (None, ""):
            continue  # a carrier without the field is for no value
        lo = ctx.quantity(ctx.opts["at_least"], only) if "at_least" in ctx.opts else None
        hi = ctx.quantity(ctx.opts["at_most"], only) if "at_most" in ctx.opts else None
        cap = item.fields.get(name)
        where = item.field_where.get(name, item.where)
        whose = f" (for {only[0]} {only[1]})" if only else ""
        if not _is_number(cap):
            yield f"item '{item.id}' has no numeric '{name}' (got {describe(cap)})", where
        elif lo is not None and cap < lo:
            yield f"item '{item.id}' holds {cap}; it must hold at least {lo:g}{whose}", where
        elif hi is not None and cap > hi:
            yield f"item '{item.id}' holds {cap}; it may hold at most {hi:g}{whose}", where


@rule("setup-draws", {"group": "group", "tag": "string", "per_player": "int", "fixed": "int"})
def setup_draws_rule(ctx: Context) -> Iterator[Finding]:
    """What setup deals (per_player x the most players, plus fixed) is not more than the deck
    holds."""
    items, what = _selected(ctx)
    deck = sum(i.count for i in items)
    need = ctx.opts.get("per_player", 0) * ctx.pack.players[1] + ctx.opts.get("fixed", 0)
    if need > deck:
        yield (
            f"setup deals {need} from {what} at "
            f"{ctx.pack.players[1]} players, but it holds only {deck}"
        )


@rule(
    "die-faces",
    {"group": "group", "field": "string", "faces": "int", "multiset": "list"},
    required=("group", "field"),
)
def die_faces_rule(ctx: Context) -> Iterator[Finding]:
    """Every die has the set number of faces, and (if given) exactly the given multiset of faces."""
    want = Counter(map(str, ctx.opts.get("multiset", [])))
    for item in ctx.pack.items(ctx.opts["group"]):
        faces = item.fields.get(ctx.opts["field"]) or []
        where = item.field_where.get(ctx.opts["field"], item.where)
        if "faces" in ctx.opts and len(faces) != ctx.opts["faces"]:
            yield f"die '{item.id}' has {len(faces)} faces; it needs {ctx.opts['faces']}", where
        got = Counter(str(f.get("value") if isinstance(f, dict) else f) for f in faces)
        if want and got != want:
            yield (
                f"die '{item.id}' has faces {sorted(got.elements())}; "
                f"the game needs {sorted(want.elements())}",
                where,
            )


@rule(
    "reference",
    {"group": "group", "field": "string", "to_group": "group", "to_data": "string"},
    required=("group", "field"),
)
def reference_rule(ctx: Context) -> Iterator[Finding]:
    """Each value of a field (or each element of a list field) names an item of to_group, or a
    key of data.to_data."""
    if "to_group" in ctx.opts:
        targets, what = (
            {i.id for i in ctx.pack.items(ctx.opts["to_group"])},
            f"an item of '{ctx.opts['to_group']}'",
        )
    else:
        table = ctx.pack.data.get(ctx.opts.get("to_data", ""), {})
        targets, what = (
            set(table) if isinstance(table, dict) else set(),
            f"a key of data.{ctx.opts.get('to_data')}",
        )
    name = ctx.opts["field"]
    for item in ctx.pack.items(ctx.opts["group"]):
        value = item.fields.get(name)
        for v in value if isinstance(value, list) else [value]:
            if v is not None and v not in targets:
                yield (
                    f"item '{item.id}': '{name}' names '{v}', "
                    f"which is not {what}{did_you_mean(v, targets)}",
                    item.field_where.get(name, item.where),
                )
