"""A component file's groups: each group's kind, size, shape, standee, templates and where its
items come from (written, a sheet, generated: itemsource.py)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pnpkit.errors import Problem
from pnpkit.kinds import labels
from pnpkit.pack import guidespec, packformat
from pnpkit.pack.checker import Reader, did_you_mean
from pnpkit.pack.items import _read_fields, _read_items, _template
from pnpkit.pack.model import (
    KINDS,
    SIDES,
    Group,
    Shape,
)
from pnpkit.pack.yamldoc import Path_
from pnpkit.units import describe

if TYPE_CHECKING:
    from pnpkit.pack.schema import Derived, _Game

GROUP_KEYS = packformat.names(packformat.GROUP)
STANDEE_KEYS = ("base",)


NARROWEST, MAX_BLEED, MAX_SAFE = packformat.NARROWEST, packformat.MAX_BLEED, packformat.MAX_SAFE
MAX_BACK_OFFSET = packformat.MAX_BACK_OFFSET


def bleed_problem(given: object) -> str:
    return packformat.over_max(_PRINT["bleed"], "bleed", given)


_PRINT = MappingProxyType({key.name: key for key in packformat.PRINT})


def _read_groups(r: Reader, game: _Game) -> Iterator[Group]:
    if r.doc.data is None:
        return
    if not isinstance(r.doc.data, dict):
        got = (
            "text" if isinstance(r.doc.data, str) else describe(r.doc.data)
        )  # a whole file of text is not quoted
        r.problem((), f"a component file must map group names to groups (got {got})")
        return
    for name, spec in r.doc.data.items():
        if r.ident(name, (name,), "group name", key=True) is None:
            continue
        group = _read_group(r, game, name, spec)
        if group is not None:
            yield group


def _read_group(r: Reader, game: _Game, name: str, spec: object) -> Group | None:
    path = (name,)
    spec = r.mapping(spec, path, GROUP_KEYS, f"group '{name}'")
    if spec is None:
        return None
    kind = r.choice(r.get(spec, path, "kind"), path + ("kind",), KINDS)
    size = r.size(r.get(spec, path, "size"), path + ("size",))
    bleed = r.length(spec["bleed"], path + ("bleed",)) if "bleed" in spec else game.print.bleed
    if "bleed" in spec and bleed is not None and not 0 <= bleed <= MAX_BLEED:
        r.problem(
            path + ("bleed",),
            bleed_problem(spec["bleed"])
            if bleed > 0
            else f"'bleed' cannot be negative (got {spec['bleed']})",
        )
        bleed = None
    templates = {side: t for side in SIDES if (t := _template(r, spec, path, side)) is not None}
    if "front" not in spec and path + ("front",) not in r.misspelt:
        r.problem(path, f"group '{name}' needs a 'front' template")
    extra: dict[str, Any] = {
        "variant": r.ident(spec["variant"], path + ("variant",), "variant") or ""
        if "variant" in spec
        else "",
        "shape": _shape(r, spec.get("shape"), path + ("shape",), kind, size),
        "labels": _labels(r, spec, path),
        "tuckbox": guidespec.read_tuckbox(r, spec, path, kind),
        "fit": guidespec.read_fit(r, spec, path, kind),
    }
    if "items_from" in spec:
        group = _derived_group(r, game, name, spec, path, kind, size, bleed, templates)
        return group and dataclasses.replace(group, **extra)
    fields = _read_fields(r, spec.get("fields", {}), path + ("fields",))
    items = _read_items(r, game, name, spec, fields, templates)
    base = _standee(r, spec, path, kind, size)
    if kind is None or size is None or bleed is None or base is None or fields is None:
        return None
    return Group(
        name,
        kind,
        size,
        bleed,
        templates,
        fields,
        tuple(items),
        r.doc.at(path, key=True),
        spec.get("doc", ""),
        base=base,
        **extra,
    )


def _labels(r: Reader, spec: dict[str, Any], path: Path_) -> str:
    """`labels: a4-3x7`: a shipped label sheet; its faces are one-sided stickers."""
    if "labels" not in spec:
        return ""
    name = r.choice(spec["labels"], path + ("labels",), labels.names())
    if name and "back" in spec:
        r.problem(
            path + ("back",),
            "a group printed on label sheets has no back (a label is one-sided)",
            key=True,
        )
    return name or ""


SHAPES = ("rect", "rounded(R)", "circle", "hex")
_ROUNDED = re.compile(r"rounded\((.*)\)\Z")


def _shape(
    r: Reader, value: object, path: Path_, kind: str | None, size: tuple[float, float] | None
) -> Shape:
    """`shape: rect | rounded(3mm) | circle | hex` -> ("rect", 0) ... ("rounded", 3.0); a hex
    group is a hex."""
    if value is None:
        return ("hex", 0.0) if kind == "hex" else ("rect", 0.0)
    text = r.typed(value, path, "string")
    if text is None:
        return ("rect", 0.0)
    found = _ROUNDED.match(text.strip())
    if found:
        radius = r.length(found.group(1).strip(), path)
        if radius is None:
            return ("rect", 0.0)
        if size and not 0 < radius <= min(size) / 2:
            r.problem(
                path,
                "the corner radius must be more than 0 and at most half the "
                f"shorter side ({min(size) / 2:g}mm); got {found.group(1).strip()}",
            )
            return ("rect", 0.0)
        return ("rounded", radius)
    if text not in ("rect", "circle", "hex"):
        r.problem(path, f"'shape' must be one of {', '.join(SHAPES)} (got '{text}')")
        return ("rect", 0.0)
    if text == "circle" and size and abs(size[0] - size[1]) > 1e-6:
        r.problem(path, f"a circle needs a square size (got {size[0]:g}x{size[1]:g}mm)")
        return ("rect", 0.0)
    if (text == "hex") != (kind == "hex"):
        r.problem(path, "'shape: hex' goes with 'kind: hex', and a hex group is a hex")
        return ("hex", 0.0) if kind == "hex" else ("rect", 0.0)
    return (text, 0.0)


def _standee(
    r: Reader, spec: dict[str, Any], path: Path_, kind: str | None, size: tuple[float, float] | None
) -> float | None:
    """`standee: {base: 12mm}`: the fold-over layout (base tab, upside-down back panel, fold,
    upright front panel, base tab), so exports can cut out the figure; 0 when not given."""
    if "standee" not in spec:
        return 0.0
    where = path + ("standee",)
    if kind is not None and kind != "standee":
        r.problem(
            where,
            f"'standee' describes a fold-over standee; this group's kind is '{kind}'",
            key=True,
        )
        return None
    layout = r.mapping(spec["standee"], where, STANDEE_KEYS, "'standee'")
    if layout is None:
        return None
    base = r.get(layout, where, "base")
    base = r.length(base, where + ("base",)) if base is not None else None
    if base is None or size is None:
        return None
    if not 0 < 2 * base < size[1]:
        r.problem(
            where + ("base",),
            f"a standee's two base tabs ({base:g} mm each) must "
            f"leave room for its panels in its {size[1]:g} mm height",
        )
        return None
    return base


def _derived_group(
    r: Reader,
    game: _Game,
    name: str,
    spec: dict[str, Any],
    path: Path_,
    kind: str | None,
    size: tuple[float, float] | None,
    bleed: float | None,
    templates: dict[str, str],
) -> Group | None:
    """`items_from: dice`: the items (and fields) of another group, with this group's kind, size
    and templates."""
    source = r.typed(spec["items_from"], path + ("items_from",), "string")
    for key in ("items", "fields", "generate", "defaults"):
        if key in spec:
            r.problem(
                path + (key,),
                f"group '{name}' takes its items and fields "
                f"from '{source}'; it cannot have '{key}' too",
                key=True,
            )
    if kind is None or size is None or bleed is None or source is None:
        return None
    game.derived[name] = (
        source,
        r.doc.at(path + ("items_from",)),
        {s: r.doc.at(path + (s,)) for s in templates},
    )
    return Group(
        name, kind, size, bleed, templates, {}, (), r.doc.at(path, key=True), spec.get("doc", "")
    )


def _items_from(
    groups: dict[str, Group], derived: dict[str, Derived], problems: list[Problem]
) -> dict[str, Group]:
    """Fill each `items_from` group with its source group's items, under its own name and
    templates."""
    out = dict(groups)
    for name, (source, where, template_where) in derived.items():
        if name not in groups:
            continue
        group = groups[name]
        src = groups.get(source)
        if src is None or source in derived:
            why = (
                "which takes its own items from another group"
                if src is not None
                else "which is not a group"
            )
            hint = (
                ""
                if src is not None
                else did_you_mean(source, [g for g in groups if g not in derived])
            )
            problems.append(
                Problem(where, f"group '{name}' takes its items from '{source}', {why}{hint}")
            )
            continue
        items = tuple(
            dataclasses.replace(
                item,
                group=name,
                templates=dict(group.templates),
                template_where=dict(template_where),
            )
            for item in src.items
        )
        out[name] = dataclasses.replace(group, fields=src.fields, items=items)
    return out
