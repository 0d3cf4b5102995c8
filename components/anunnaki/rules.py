"""Anunnaki's own rules (seed-games.md §1.4): what the generic checks cannot express.

The movement table (data.pieces) and the personal sheet's boxes (data.sheet_boxes)
are data in game.yaml; these rules check them against each other and against the
pieces, and point at the line in game.yaml (or the item) that is wrong.
"""

from collections import Counter

from pnpkit.checks.rules import rule
from pnpkit.pack.checker import did_you_mean


def _colours(ctx) -> list:
    return list(ctx.pack.data.get("colours", {}))


def _items(ctx, group) -> list:
    """The items of a group the data names; none when it names no group (rather than all items)."""
    return ctx.pack.items(group) if group in ctx.pack.groups else []


def _listing(names) -> str:
    """['a', 'b', 'c'] -> 'a, b and c'."""
    names = [str(n) for n in names]
    return " and ".join(names) if len(names) < 3 else f"{', '.join(names[:-1])} and {names[-1]}"


def _piece_name(piece: str, number: int) -> str:
    return f"{piece} {number}" if number else piece


@rule("start-planet", {"group": "group", "planet": "string"}, required=("group", "planet"))
def start_planet(ctx):
    """The Solar Map's track holds the given planet, and Nibiru starts there."""
    planet = ctx.opts["planet"]
    for item in ctx.pack.items(ctx.opts["group"]):
        planets, start = item.fields.get("planets") or [], item.fields.get("start")
        if planet not in planets:
            yield (
                f"the track of '{item.id}' has no {planet}; Nibiru starts there",
                item.field_where["planets"],
            )
        if start != planet:
            yield (
                f"'{item.id}' starts Nibiru on {start}; the game starts it on {planet}",
                item.field_where["start"],
            )
        twice = sorted(p for p, n in Counter(planets).items() if n > 1)
        if twice:
            yield (
                f"the track of '{item.id}' names {', '.join(twice)} more than once",
                item.field_where["planets"],
            )


@rule("sheet-boxes")
def sheet_boxes(ctx):
    """ANU-C06: every gold box on the personal sheet has exactly one piece of each colour, and every
    carrier or numbered piece exactly one box."""
    pieces, boxes = ctx.pack.data.get("pieces", {}), ctx.pack.data.get("sheet_boxes", [])
    seen = {}
    for i, box in enumerate(boxes):
        key = (box.get("piece"), box.get("number", 0))
        where = ctx.data_at("sheet_boxes", i)
        if key[0] not in pieces:
            yield (
                f"sheet box {i + 1} is for '{key[0]}', which is not a piece of "
                f"data.pieces{did_you_mean(key[0], pieces)}",
                where,
            )
            continue
        if key in seen:
            yield (
                f"the sheet has two boxes for {_piece_name(*key)} "
                f"(boxes {seen[key] + 1} and {i + 1})",
                where,
            )
            continue
        seen[key] = i
        group = pieces[key[0]].get("group")
        for colour in _colours(ctx):
            n = sum(
                it.count
                for it in _items(ctx, group)
                if it.fields.get("colour") == colour and it.fields.get("number") == key[1]
            )
            if n != 1:
                yield (
                    f"the {colour} sheet's box for {_piece_name(*key)} has {n} pieces in "
                    f"'{group}'; it needs exactly 1",
                    where,
                )
    for name, spec in pieces.items():
        carrier = (spec.get("capacity") or 0) > 0
        for item in _items(ctx, spec.get("group")):
            number = item.fields.get("number") or 0
            if (carrier or number) and (name, number) not in seen:
                yield (
                    f"piece '{item.id}' ({_piece_name(name, number)}) has no box on the personal "
                    f"sheet",
                    item.field_where.get("number", item.where),
                )


@rule("piece-capacity", {"piece": "string", "exact": "int"}, required=("piece", "exact"))
def piece_capacity(ctx):
    """A piece of the movement table carries exactly `exact` gold."""
    piece, want = ctx.opts["piece"], ctx.opts["exact"]
    spec = ctx.pack.data.get("pieces", {}).get(piece)
    if spec is None:
        yield (
            f"data.pieces has no '{piece}'{did_you_mean(piece, ctx.pack.data.get('pieces', {}))}",
            ctx.at("piece"),
        )
    elif spec.get("capacity") != want:
        yield (
            f"a {piece} carries {spec.get('capacity')} gold; the game says {want}",
            ctx.data_at("pieces", piece, "capacity"),
        )


@rule("hold-capacity", {"hold": "string", "feeder": "string"}, required=("hold", "feeder"))
def hold_capacity(ctx):
    """The hold carries exactly what all of one colour's feeders bring (12 = 3 shuttles x 4)."""
    pieces = ctx.pack.data.get("pieces", {})
    hold, feeder = pieces.get(ctx.opts["hold"], {}), pieces.get(ctx.opts["feeder"], {})
    colours = max(len(_colours(ctx)), 1)
    per_colour = sum(i.count for i in _items(ctx, feeder.get("group"))) / colours
    full = per_colour * (feeder.get("capacity") or 0)
    if hold.get("capacity") != full:
        yield (
            f"the {ctx.opts['hold']} carries {hold.get('capacity')} gold, but {per_colour:g} "
            f"{ctx.opts['feeder']}s of "
            f"{feeder.get('capacity')} bring {full:g}",
            ctx.data_at("pieces", ctx.opts["hold"], "capacity"),
        )


@rule("gold-carriers", {"carriers": "list"}, required=("carriers",))
def gold_carriers(ctx):
    """Exactly the given pieces carry gold off the map: every other piece that moves on tiles
    carries 0."""
    named = ctx.opts["carriers"]
    want = set(named)
    for name, spec in ctx.pack.data.get("pieces", {}).items():
        on_map = isinstance(spec.get("moves"), int)
        cap = spec.get("capacity") or 0
        if on_map and name not in want and cap > 0:
            yield (
                f"a {name} carries {cap} gold; only the {_listing(named)} carry gold on the map",
                ctx.data_at("pieces", name, "capacity"),
            )
        if name in want and (cap <= 0 or not on_map):
            yield (
                f"a {name} must carry gold across the map (it has capacity {cap}, moves "
                f"{spec.get('moves')})",
                ctx.data_at("pieces", name),
            )
    for name in sorted(want - set(ctx.pack.data.get("pieces", {}))):
        yield f"data.pieces has no '{name}'", ctx.at("carriers")


@rule("movement-table")
def movement_table(ctx):
    """ANU-T01: the movement table is consistent: known terrains, a piece may only stop where it may
    enter, moves are steps or base-to-base, and exactly the pieces with a box on the sheet carry
    gold."""
    terrains = ctx.pack.data.get("terrains", [])
    boxed = {box.get("piece") for box in ctx.pack.data.get("sheet_boxes", [])}
    for name, spec in ctx.pack.data.get("pieces", {}).items():
        yield from _terrain_lists(ctx, name, spec, terrains)
        moves = spec.get("moves")
        if not (
            moves == "base"
            or (isinstance(moves, int) and not isinstance(moves, bool) and moves > 0)
        ):
            yield (
                f"'{name}' moves {moves!r}; write a number of tiles or base",
                ctx.data_at("pieces", name, "moves"),
            )
        if spec.get("group") not in ctx.pack.groups:
            yield (
                f"'{name}' is printed in group '{spec.get('group')}', which the pack does not "
                f"have{did_you_mean(spec.get('group'), ctx.pack.groups)}",
                ctx.data_at("pieces", name, "group"),
            )
        if spec.get("stop_with") not in ctx.pack.strings:
            yield (
                f"'{name}' stops with '{spec.get('stop_with')}', which is not a key of strings",
                ctx.data_at("pieces", name, "stop_with"),
            )
        cap = spec.get("capacity")
        if not isinstance(cap, int) or isinstance(cap, bool) or cap < 0:
            yield (
                f"'{name}' carries {cap!r} gold; write a whole number, 0 for none",
                ctx.data_at("pieces", name, "capacity"),
            )
        elif cap > 0 and name not in boxed:
            yield (
                f"a {name} carries {cap} gold but the personal sheet has no box for it",
                ctx.data_at("pieces", name, "capacity"),
            )
        elif cap == 0 and name in boxed:
            yield (
                f"the personal sheet has a gold box for '{name}', which carries no gold",
                ctx.data_at("pieces", name, "capacity"),
            )


def _terrain_lists(ctx, name, spec, terrains):
    for key, verb in (("enter", "may enter"), ("stop", "may stop on")):
        for i, terrain in enumerate(spec.get(key) or []):
            if terrain not in terrains:
                yield (
                    f"'{name}' {verb} '{terrain}', which is not a terrain of "
                    f"data.terrains{did_you_mean(terrain, terrains)}",
                    ctx.data_at("pieces", name, key, i),
                )
    for i, terrain in enumerate(spec.get("stop") or []):
        if terrain not in (spec.get("enter") or []):
            yield (
                f"'{name}' may stop on {terrain} but may not enter it",
                ctx.data_at("pieces", name, "stop", i),
            )
