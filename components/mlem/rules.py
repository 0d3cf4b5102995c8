"""MLEM: Space Agency's own rules: what the generic checks cannot express.

The ids are those of shared/reference/seed-games.md §3.4. The track, moons, planets
and deep space live in game.yaml's `data`; their problems point at the data there.
"""

from collections import Counter

from pnpkit.checks.rules import rule

FACES = ("1", "2", "3", "4", "afterburner")


def _spaces(ctx):
    spaces = ctx.pack.data.get("track", {}).get("spaces")
    return spaces if isinstance(spaces, list) else []


def _is_count(value):
    return isinstance(value, int) and not isinstance(value, bool)


# ------------------------------------------------------------------ components


@rule("astronaut-sets")
def astronaut_sets(ctx):
    """MLEM-C01: every colour has exactly one astronaut of each of the 8 abilities."""
    abilities = ctx.pack.data.get("abilities", [])
    for colour in ctx.pack.data.get("colours", {}):
        seen = {}
        for item in ctx.pack.items("astronauts"):
            if item.fields["colour"] != colour:
                continue
            ability = item.fields["ability"]
            if ability in seen:
                yield (
                    (
                        f"astronaut '{item.id}' repeats the ability '{ability}' of "
                        f"'{seen[ability].id}'; "
                        f"each colour has one of each"
                    ),
                    item.field_where["ability"],
                )
            seen.setdefault(ability, item)
        for ability in abilities:
            if ability not in seen:
                yield f"colour '{colour}' has no astronaut with the ability '{ability}'"


@rule("one-per-colour", {"group": "group"}, required=("group",))
def one_per_colour(ctx):
    """MLEM-C02: one item of the group for each player colour."""
    counts = Counter(item.fields.get("colour") for item in ctx.pack.items(ctx.opts["group"]))
    for colour in ctx.pack.data.get("colours", {}):
        if counts[colour] != 1:
            yield (
                f"group '{ctx.opts['group']}' has {counts[colour]} items of colour '{colour}'; "
                "the game needs one"
            )


@rule("rocket-seats")
def rocket_seats(ctx):
    """MLEM-C04: the rocket has a seat for every player (seat 1 is the commander's)."""
    most = ctx.pack.players[1]
    for item in ctx.pack.items("rocket"):
        seats = item.fields["seats"]
        if seats < most:
            yield (
                f"rocket '{item.id}' has {seats} seats; {most} players need at least {most}",
                item.field_where["seats"],
            )


@rule("distinct-objectives")
def distinct_objectives(ctx):
    """MLEM-C05: each objective condition is on one token only, so one player can claim it."""
    first = {}
    for item in ctx.pack.items("objectives"):
        condition = item.fields["condition"]
        if condition in first:
            yield (
                (
                    f"objective '{item.id}' repeats the condition '{condition}' of "
                    f"'{first[condition].id}'; "
                    f"each can be claimed once"
                ),
                item.field_where["condition"],
            )
        first.setdefault(condition, item)


@rule("score-supply")
def score_supply(ctx):
    """MLEM-C06: the score tokens can pay every score the game gives, and hold enough points in
    all."""
    tokens = ctx.pack.items("score-tokens")
    values = sorted({t.fields["value"] for t in tokens})
    for points, what, where in _scores(ctx):
        if not _payable(points, values):
            yield (
                f"{what} is worth {points}, which the score tokens "
                f"({', '.join(map(str, values))}) cannot pay",
                where,
            )
    total = sum(t.fields["value"] * t.count for t in tokens)
    need = ctx.pack.data.get("scoring", {}).get("supply_at_least", 0)
    if total < need:
        yield (
            f"the score tokens hold {total} points; the game needs at least {need}",
            ctx.data_at("scoring", "supply_at_least"),
        )


def _scores(ctx):
    """Every score a player can take: (points, what gives it, where it is defined)."""
    data = ctx.pack.data
    factor = (1, 2) if data.get("scoring", {}).get("doubled_by_abilities") else (1,)
    for i, space in enumerate(_spaces(ctx)):
        for j, moon in enumerate(space.get("moons") or []):
            for f in factor:
                yield (
                    moon * f,
                    f"the moon {moon} of space {space.get('space')}"
                    + (" (doubled)" if f == 2 else ""),
                    ctx.data_at("track", "spaces", i, "moons", j),
                )
    for name, planet in data.get("planets", {}).items():
        for key in ("first", "second", "other"):
            for f in factor:
                yield (
                    planet.get(key, 0) * f,
                    f"planet '{name}' ({key})" + (" doubled" if f == 2 else ""),
                    ctx.data_at("planets", name, key),
                )
    for key in ("comet", "galaxy"):
        for f in factor:
            yield (
                data.get("deep_space", {}).get(key, 0) * f,
                f"the {key}" + (" (doubled)" if f == 2 else ""),
                ctx.data_at("deep_space", key),
            )
    for item in ctx.pack.items("objectives"):
        yield item.fields["value"], f"objective '{item.id}'", item.field_where["value"]


def _payable(points, values) -> bool:
    """Whether some tokens of these values add up to exactly `points` (supply aside)."""
    reach = {0}
    for total in range(1, points + 1):
        if any(total - v in reach for v in values if v <= total):
            reach.add(total)
    return points in reach


@rule("failure-track")
def failure_track(ctx):
    """MLEM-C07: the failure track runs to the 11th crash, which ends the game."""
    crashes = ctx.pack.data.get("failure_track", {}).get("crashes")
    if crashes != 11:
        yield (
            f"the failure track ends at crash {crashes}; the game ends at the 11th crash",
            ctx.data_at("failure_track", "crashes"),
        )


# ------------------------------------------------------------------ the cosmic track


@rule("track-spaces")
def track_spaces(ctx):
    """MLEM-T01: 26 spaces numbered 0 to 25 in order; the last, and only the last, is deep space."""
    spaces = _spaces(ctx)
    if len(spaces) != 26:
        yield (
            f"the track has {len(spaces)} spaces; the game has 26 (0-25)",
            ctx.data_at("track", "spaces"),
        )
    for i, space in enumerate(spaces):
        if space.get("space") != i:
            yield (
                f"space {i} of the track is numbered {space.get('space')}",
                ctx.data_at("track", "spaces", i, "space"),
            )
        deep = space.get("deep_space", False)
        if deep and i != len(spaces) - 1:
            yield (
                f"space {i} is deep space, but only the last space is",
                ctx.data_at("track", "spaces", i, "deep_space"),
            )
        if not deep and i == len(spaces) - 1:
            yield f"the last space ({i}) must be deep space", ctx.data_at("track", "spaces", i)


@rule("space-faces")
def space_faces(ctx):
    """MLEM-T02: each space before deep space allows 2-3 different die faces; where the afterburner
    is allowed the space shows its move (at least 1), and nowhere else."""
    spaces = _spaces(ctx)
    for i, space in enumerate(spaces[:-1]):
        faces = space.get("faces") or []
        where = ctx.data_at("track", "spaces", i, "faces")
        names = [str(f) for f in faces]
        if not 2 <= len(set(names)) <= 3 or len(set(names)) != len(names):
            yield (
                f"space {i} allows {len(faces)} faces ({', '.join(names)}); a space allows 2 or "
                f"3 different faces",
                where,
            )
        for name in names:
            if name not in FACES:
                yield (
                    f"space {i} allows '{name}', which is not a die face ({', '.join(FACES)})",
                    where,
                )
        ab = space.get("ab")
        if "afterburner" in names and ab is None:
            yield (
                f"space {i} allows the afterburner but gives it no move; add ab: 1 or more",
                ctx.data_at("track", "spaces", i),
            )
        elif "afterburner" in names and not (_is_count(ab) and ab >= 1):
            yield (
                f"space {i} gives the afterburner a move of {ab!r}; it needs 1 or more",
                ctx.data_at("track", "spaces", i, "ab"),
            )
        if "afterburner" not in names and ab is not None:
            yield (
                f"space {i} gives the afterburner a move (ab: {ab}) but does not allow it",
                ctx.data_at("track", "spaces", i, "ab"),
            )


@rule("published-track")
def published_track(ctx):
    """MLEM-T03: a pack that says it reproduces the published track has its known spaces: 0 =
    {afterburner, 1, 2}, 5 = {1, 4}."""
    track = ctx.pack.data.get("track", {})
    if not track.get("published"):
        return
    spaces = _spaces(ctx)
    for i, want in ((0, {"afterburner", "1", "2"}), (5, {"1", "4"})):
        got = {str(f) for f in (spaces[i].get("faces") or [])} if i < len(spaces) else set()
        if got != want:
            yield (
                (
                    f"space {i} allows {', '.join(sorted(got))}; "
                    f"the published track allows {', '.join(sorted(want))} there"
                    f" (or set track.published: false)"
                ),
                ctx.data_at("track", "spaces", i, "faces"),
            )


@rule("landing-sites")
def landing_sites(ctx):
    """MLEM-T04: nobody lands before space 6; a landing space has moons or exactly one planet, not
    both."""
    start = ctx.pack.data.get("track", {}).get("landing_from")
    if start != 6:
        yield (
            f"landing starts at space {start}; the game allows it from space 6",
            ctx.data_at("track", "landing_from"),
        )
    for i, space in enumerate(_spaces(ctx)):
        moons, planet = space.get("moons"), space.get("planet")
        if (moons or planet) and i < (start or 6):
            yield (
                f"space {i} has a landing site; nobody lands before space {start}",
                ctx.data_at("track", "spaces", i),
            )
        if moons and planet:
            yield (
                f"space {i} has both moons and a planet; a landing space has one or the other",
                ctx.data_at("track", "spaces", i, "planet"),
            )
        if planet is not None and not isinstance(planet, str):
            yield (
                f"space {i} names its planet as {planet!r}; it lies beside exactly one planet",
                ctx.data_at("track", "spaces", i, "planet"),
            )


@rule("moons")
def moons_rule(ctx):
    """MLEM-T05: a moon holds one astronaut; the moons of a space have distinct values (the
    highest free one is taken)."""
    capacity = ctx.pack.data.get("track", {}).get("moon_capacity")
    if capacity != 1:
        yield (
            f"a moon holds {capacity} astronauts; it holds one",
            ctx.data_at("track", "moon_capacity"),
        )
    for i, space in enumerate(_spaces(ctx)):
        values = space.get("moons") or []
        where = ctx.data_at("track", "spaces", i, "moons")
        bad = [v for v in values if not (_is_count(v) and v >= 1)]
        if bad:
            yield f"space {i} has a moon worth {bad[0]!r}; moons are worth 1 point or more", where
        repeated = sorted(v for v, n in Counter(values).items() if n > 1 and _is_count(v))
        if repeated:
            yield (
                f"space {i} has two moons worth {repeated[0]}; the moons of a space need "
                f"different values",
                where,
            )


@rule("planets")
def planets_rule(ctx):
    """MLEM-T06: five planets, each beside one space, holding any number of astronauts, scoring
    first >= second >= other >= 0."""
    planets = ctx.pack.data.get("planets", {})
    if len(planets) != 5:
        yield f"the game has {len(planets)} planets; it needs 5", ctx.data_at("planets")
    beside = Counter(space.get("planet") for space in _spaces(ctx) if space.get("planet"))
    for i, space in enumerate(_spaces(ctx)):
        name = space.get("planet")
        if name and name not in planets:
            yield (
                f"space {i} lies beside the planet '{name}', which is not in data.planets",
                ctx.data_at("track", "spaces", i, "planet"),
            )
    for name, planet in planets.items():
        if beside[name] != 1:
            yield (
                f"planet '{name}' lies beside {beside[name]} spaces; it needs exactly one",
                ctx.data_at("planets", name),
            )
        scores = [planet.get(k) for k in ("first", "second", "other")]
        if not all(_is_count(v) for v in scores) or not scores[0] >= scores[1] >= scores[2] >= 0:
            yield (
                f"planet '{name}' scores {'/'.join(map(str, scores))}; the game needs first >= "
                f"second >= other >= 0",
                ctx.data_at("planets", name),
            )
        if planet.get("capacity") != "unlimited":
            yield (
                f"planet '{name}' holds {planet.get('capacity')} astronauts; planets hold any "
                f"number (unlimited)",
                ctx.data_at("planets", name, "capacity"),
            )


@rule("deep-space")
def deep_space(ctx):
    """MLEM-T07: deep space gives the commander the comet (7) and everyone else the galaxy (5),
    room for all."""
    deep = ctx.pack.data.get("deep_space", {})
    for key, want in (("comet", 7), ("galaxy", 5)):
        if deep.get(key) != want:
            yield (
                f"the {key} gives {deep.get(key)} points; the game gives {want}",
                ctx.data_at("deep_space", key),
            )
    if deep.get("capacity") != "unlimited":
        yield (
            f"deep space holds {deep.get('capacity')} astronauts; it holds everyone (unlimited)",
            ctx.data_at("deep_space", "capacity"),
        )
