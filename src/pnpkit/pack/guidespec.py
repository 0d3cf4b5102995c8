"""Reading `guide:` (game.yaml) and a deck's `tuckbox:`: what the kit guide (guide.py) and the
tuck box nets (tuckbox.py) take from the pack. Kept apart from those modules so that loading a
pack does not import the drawing code."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pnpkit.pack.checker import Reader, did_you_mean
from pnpkit.pack.model import Group, GuideSpec, TuckSpec
from pnpkit.pack.yamldoc import Path_
from pnpkit.units import describe

GUIDE_KEYS = ("cover", "names", "supplies", "steps")
TUCKBOX_KEYS = ("thickness", "clearance")
MAX_THICKNESS = 5.0  # mm a card: a slip of the unit beyond it
MAX_CLEARANCE = 20.0  # mm
MAX_LINES = 50  # supplies or steps: a guide, not a rule book


def read_guide(r: Reader, value: object, langs: Sequence[str]) -> GuideSpec:
    """`guide: {cover: group/item, names: {group: text}, supplies: [text], steps: [text]}`;
    `guide: {}` (or `guide:` with nothing) for a guide made from the pack alone."""
    if value is None:
        return GuideSpec(given=True)
    spec = r.mapping(value, ("guide",), GUIDE_KEYS, "'guide'")
    if spec is None:
        return GuideSpec(given=True)
    cover = None
    if "cover" in spec:
        text = r.typed(spec["cover"], ("guide", "cover"), "string")
        group, slash, item = (text or "").partition("/")
        if text is not None and not (slash and group and item):
            r.problem(("guide", "cover"), f"'cover' must be GROUP/ITEM (got '{text}')")
        elif text is not None:
            cover = (group, item)
    names = r.table(spec.get("names", {}), ("guide", "names"), "'names'") or {}
    return GuideSpec(
        given=True,
        cover=cover,
        names={
            str(k): t
            for k, v in names.items()
            if (t := r.text(v, ("guide", "names", k), langs)) is not None
        },
        supplies=_texts(r, spec.get("supplies", []), ("guide", "supplies"), langs),
        steps=_texts(r, spec.get("steps", []), ("guide", "steps"), langs),
    )


def _texts(
    r: Reader, value: object, path: Path_, langs: Sequence[str]
) -> tuple[dict[str, str], ...]:
    if not isinstance(value, list) or len(value) > MAX_LINES:
        r.problem(
            path,
            f"'{path[-1]}' must be a list of at most {MAX_LINES} texts (got {describe(value)})",
        )
        return ()
    return tuple(t for i, v in enumerate(value) if (t := r.text(v, path + (i,), langs)) is not None)


def check_guide(r: Reader, guide: GuideSpec, groups: dict[str, Group]) -> None:
    """The cover and the names must name the pack's groups (and the cover one of its items)."""
    for name in guide.names:
        if name not in groups:
            r.problem(
                ("guide", "names", name),
                f"no group '{name}'{did_you_mean(name, list(groups))}",
                key=True,
            )
    if guide.cover is None:
        return
    group, item = guide.cover
    if group not in groups:
        r.problem(("guide", "cover"), f"no group '{group}'{did_you_mean(group, list(groups))}")
    elif item not in (ids := [i.id for i in groups[group].items]):
        r.problem(
            ("guide", "cover"), f"group '{group}' has no item '{item}'{did_you_mean(item, ids)}"
        )


def read_tuckbox(r: Reader, spec: dict[str, Any], path: Path_, kind: str | None) -> TuckSpec | None:
    """`tuckbox: true` or `tuckbox: {thickness: 0.3mm, clearance: 1mm}` on a deck of cards."""
    if "tuckbox" not in spec or spec["tuckbox"] is False:
        return None
    where = path + ("tuckbox",)
    if kind is not None and kind != "card":
        r.problem(
            where, f"'tuckbox' holds a deck of cards; this group's kind is '{kind}'", key=True
        )
        return None
    value = spec["tuckbox"]
    if value is True:
        return TuckSpec()
    layout = r.mapping(value, where, TUCKBOX_KEYS, "'tuckbox'")
    if layout is None:
        return None
    out: dict[str, float] = {}
    for key, top in (("thickness", MAX_THICKNESS), ("clearance", MAX_CLEARANCE)):
        if key not in layout:
            continue
        length = r.length(layout[key], where + (key,))
        if length is None:
            return None
        if not (0 < length <= top if key == "thickness" else 0 <= length <= top):
            r.problem(
                where + (key,),
                f"'{key}' must be {'more than 0' if key == 'thickness' else 'at least 0'} "
                f"and at most {top:g}mm (got {layout[key]})",
            )
            return None
        out[key] = length
    return TuckSpec(**out)
