"""Starfreight's own rules (seed 003; shared/reference/seed-games.md §4.5).

The board is data in game.yaml: `data.board` (the grid, Home, the void spaces),
`data.planets` (where each planet lies, what it supplies, whether it inspects) and
`data.cargo` (each cargo type and its row of the inspection table). The board
template draws exactly this data, and the rules below read it: CARGO-D01 checks its
shape, the B rules check the map, the C rules the counts, K01 the card kinds.
"""

from __future__ import annotations

import re
from collections import deque

from pnpkit.checks.rules import rule
from pnpkit.pack.checker import did_you_mean
from pnpkit.units import describe

# The seed's inspection table (§4.4): each garbled character is a Webdings glyph, so a
# cargo type; the row it sits in is its fee. Every type not in the table pays 5%.
SEED_FEES = {
    "”": "free",
    "…": "free",
    "‡": "free",
    "®": "free",
    "å": "ten",
    ",": "ten",
    "ô": "ten",
    "Ÿ": "fifteen",
    "§": "fifteen",
    "e": "die",
}
FEES = {
    "free": "0",
    "ten": "10%",
    "fifteen": "15%",
    "die": "10% × die",
    "other": "5% (everything else)",
}
SEED_HOME = "G8"

BOARD_KEYS = ("columns", "rows", "neighbours", "home", "cell", "edge", "band", "void")
PLANET_KEYS = ("cell", "name", "supplies", "inspection")
CARGO_KEYS = ("glyph", "fee", "name")
CELL = re.compile(r"^([A-Z])([1-9][0-9]*)$")


class Board:
    """The map as the rules see it: cells are (column index, row), rows from 1.

    (A plain class: pnpkit loads rules.py without registering it as a module, which
    @dataclass needs.)
    """

    def __init__(
        self,
        columns: str,
        rows: int,
        neighbours: int,
        home: str,
        void: frozenset,
        planets: dict,
        cargo: dict,
    ):
        self.columns, self.rows, self.neighbours, self.home = columns, rows, neighbours, home
        self.void = void
        self.planets = planets  # planet id -> {"cell": str, "supplies": [...], "inspection": bool}
        self.cargo = cargo  # cargo id -> {"fee": str, "glyph": str | None}

    def cell(self, name: str) -> tuple[int, int]:
        m = CELL.match(name)
        return self.columns.index(m.group(1)), int(m.group(2))

    def name(self, col: int, row: int) -> str:
        return f"{self.columns[col]}{row}"

    def steps_from(self, start: str) -> dict[str, int]:
        """Fewest ordinary steps from start to every space reachable through non-void spaces."""
        dist = {start: 0}
        todo = deque([start])
        deltas = [(dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if (dc, dr) != (0, 0)]
        if self.neighbours == 4:
            deltas = [(dc, dr) for dc, dr in deltas if dc == 0 or dr == 0]
        while todo:
            here = todo.popleft()
            col, row = self.cell(here)
            for dc, dr in deltas:
                c, r = col + dc, row + dr
                if 0 <= c < len(self.columns) and 1 <= r <= self.rows:
                    there = self.name(c, r)
                    if there not in self.void and there not in dist:
                        dist[there] = dist[here] + 1
                        todo.append(there)
        return dist


# ------------------------------------------------------------------ reading the data


class _Data:
    """Reads data.board, data.planets and data.cargo; collects located problems."""

    def __init__(self, ctx):
        self.ctx, self.problems = ctx, []
        self.langs = ctx.pack.languages

    def at(self, *path, key: bool = False):
        return self.ctx.data_at(*path, key=key)

    def bad(self, message: str, *path, key: bool = False) -> None:
        self.problems.append((message, self.at(*path, key=key)))

    def mapping(self, value, keys, what: str, *path) -> dict | None:
        if not isinstance(value, dict):
            self.bad(f"{what} must be a mapping (got {describe(value)})", *path)
            return None
        for k in value:
            if keys is not None and k not in keys:
                self.bad(
                    f"unknown key '{k}' in {what}"
                    f"{did_you_mean(k, keys) or ' (known keys: ' + ', '.join(keys) + ')'}",
                    *path,
                    k,
                    key=True,
                )
        return value

    def number(self, spec: dict, key: str, what: str, *path, whole: bool = False):
        value = spec.get(key)
        ok = (
            isinstance(value, int if whole else (int, float))
            and not isinstance(value, bool)
            and value > 0
        )
        if not ok:
            self.bad(
                f"{what} '{key}' must be a positive {'whole number' if whole else 'number'} (got "
                f"{describe(value)})",
                *path,
                key,
            )
            return None
        return value

    def cell(self, value, columns: str, rows: int, what: str, *path) -> str | None:
        m = CELL.match(value) if isinstance(value, str) else None
        if m is None:
            self.bad(f"{what} must be a space such as G8 (got {describe(value)})", *path)
            return None
        if m.group(1) not in columns or not 1 <= int(m.group(2)) <= rows:
            self.bad(
                f"{what} {value} is off the board (columns {columns[0]}–{columns[-1]}, rows "
                f"1–{rows})",
                *path,
            )
            return None
        return value

    def text(self, value, what: str, *path) -> None:
        if not (
            isinstance(value, dict)
            and set(value) == set(self.langs)
            and all(isinstance(v, str) and v for v in value.values())
        ):
            self.bad(
                f"{what} must be text in every language ({', '.join(self.langs)}) (got "
                f"{describe(value)})",
                *path,
            )

    def board(self) -> Board | None:
        data = self.ctx.pack.data
        spec = self.mapping(data.get("board"), BOARD_KEYS, "data.board", "board")
        if spec is None:
            return None
        before = len(self.problems)
        for k in BOARD_KEYS:
            if k not in spec:
                self.bad(f"data.board needs '{k}'", "board")
        columns = spec.get("columns")
        if not (
            isinstance(columns, str)
            and columns
            and re.fullmatch(r"[A-Z]+", columns)
            and len(set(columns)) == len(columns)
        ):
            self.bad(
                f"data.board 'columns' must be distinct capital letters such as ABCDEFGH (got "
                f"{describe(columns)})",
                "board",
                "columns",
            )
            columns = None
        rows = (
            self.number(spec, "rows", "data.board", "board", whole=True) if "rows" in spec else None
        )
        if "neighbours" in spec and spec["neighbours"] not in (4, 8):
            self.bad(
                f"data.board 'neighbours' must be 4 or 8 (got {describe(spec['neighbours'])})",
                "board",
                "neighbours",
            )
        for k in ("cell", "edge", "band"):
            if k in spec:
                self.number(spec, k, "data.board", "board")
        if columns is None or rows is None:
            return None
        home = (
            self.cell(spec.get("home"), columns, rows, "Home", "board", "home")
            if "home" in spec
            else None
        )
        void = self._void(spec.get("void", []), columns, rows)
        if len(self.problems) == before:
            self._fits_the_face(spec, columns, rows)
        planets = self._planets(data.get("planets"), columns, rows)
        cargo = self._cargo(data.get("cargo"))
        if planets is not None and cargo is not None:
            for pid, planet in planets.items():
                for i, c in enumerate(planet["supplies"]):
                    if c not in cargo:
                        self.bad(
                            f"planet '{pid}' supplies '{c}', which is not a cargo type in "
                            f"data.cargo{did_you_mean(c, cargo)}",
                            "planets",
                            pid,
                            "supplies",
                            i,
                        )
        if self.problems or home is None:
            return None
        return Board(columns, rows, spec["neighbours"], home, frozenset(void), planets, cargo)

    def _void(self, value, columns, rows) -> list:
        if not isinstance(value, list):
            self.bad(
                f"data.board 'void' must be a list of spaces (got {describe(value)})",
                "board",
                "void",
            )
            return []
        out = []
        for i, v in enumerate(value):
            cell = self.cell(v, columns, rows, "a void space", "board", "void", i)
            if cell in out:
                self.bad(f"void space {cell} is listed twice", "board", "void", i)
            elif cell:
                out.append(cell)
        return out

    def _fits_the_face(self, spec, columns, rows) -> None:
        """The template draws the grid from these numbers: they must fill the board exactly."""
        boards = [g for g in self.ctx.pack.groups.values() if g.kind == "board"]
        if not boards:
            return
        w, h = boards[0].size
        want_w = 2 * spec["edge"] + len(columns) * spec["cell"]
        want_h = 2 * spec["edge"] + rows * spec["cell"] + spec["band"]
        if abs(want_w - w) > 0.01 or abs(want_h - h) > 0.01:
            self.bad(
                f"the grid needs a board of {want_w:g}x{want_h:g}mm (2 edges + {len(columns)} "
                f"columns x cell, "
                f"2 edges + {rows} rows x cell + band), but group '{boards[0].name}' is "
                f"{w:g}x{h:g}mm",
                "board",
                "cell",
            )

    def _planets(self, value, columns, rows) -> dict | None:
        spec = self.mapping(value, None, "data.planets", "planets")
        if spec is None:
            return None
        out, seen = {}, {}
        for pid, planet in spec.items():
            p = self.mapping(planet, PLANET_KEYS, f"planet '{pid}'", "planets", pid)
            if p is None:
                continue
            for k in PLANET_KEYS:
                if k not in p:
                    self.bad(f"planet '{pid}' needs '{k}'", "planets", pid)
            cell = (
                self.cell(
                    p.get("cell"), columns, rows, f"planet '{pid}' cell", "planets", pid, "cell"
                )
                if "cell" in p
                else None
            )
            if cell in seen:
                self.bad(
                    f"planets '{seen[cell]}' and '{pid}' both lie at {cell}", "planets", pid, "cell"
                )
            seen.setdefault(cell, pid)
            if "name" in p:
                self.text(p["name"], f"planet '{pid}' name", "planets", pid, "name")
            supplies = p.get("supplies")
            if not (
                isinstance(supplies, list)
                and supplies
                and all(isinstance(s, str) for s in supplies)
            ):
                self.bad(
                    f"planet '{pid}' 'supplies' must be a list of cargo types (got "
                    f"{describe(supplies)})",
                    "planets",
                    pid,
                    "supplies",
                )
                supplies = []
            if "inspection" in p and not isinstance(p["inspection"], bool):
                self.bad(
                    f"planet '{pid}' 'inspection' must be true or false (got "
                    f"{describe(p['inspection'])})",
                    "planets",
                    pid,
                    "inspection",
                )
            out[pid] = {
                "cell": cell,
                "supplies": supplies,
                "inspection": p.get("inspection") is True,
            }
        return out

    def _cargo(self, value) -> dict | None:
        spec = self.mapping(value, None, "data.cargo", "cargo")
        if spec is None:
            return None
        out = {}
        for cid, cargo in spec.items():
            c = self.mapping(cargo, CARGO_KEYS, f"cargo type '{cid}'", "cargo", cid)
            if c is None:
                continue
            for k in ("fee", "name"):
                if k not in c:
                    self.bad(f"cargo type '{cid}' needs '{k}'", "cargo", cid)
            if "name" in c:
                self.text(c["name"], f"cargo type '{cid}' name", "cargo", cid, "name")
            if "glyph" in c and not isinstance(c["glyph"], str):
                self.bad(
                    f"cargo type '{cid}' 'glyph' must be the seed's character (got "
                    f"{describe(c['glyph'])})",
                    "cargo",
                    cid,
                    "glyph",
                )
            out[cid] = {"fee": c.get("fee"), "glyph": c.get("glyph")}
        return out


def read_board(ctx) -> tuple[Board | None, list]:
    """The board, or None and the problems that stop it being read."""
    reader = _Data(ctx)
    return reader.board(), reader.problems


def _board_or_report(ctx):
    """For the rules that need the map: the board, or (when CARGO-D01 is not configured to
    report why it is unreadable) its problems, so nothing passes unnoticed."""
    board, problems = read_board(ctx)
    reported = any(c.rule == "data" for c in ctx.pack.checks)
    return board, ([] if reported else problems)


def _planet_where(ctx, pid: str, key: str = "cell"):
    return ctx.data_at("planets", pid, key)


# ------------------------------------------------------------------ rules


@rule("data")
def data_rule(ctx):
    """CARGO-D01: data.board, data.planets and data.cargo are well formed, and the grid they
    describe fills the board group's face exactly."""
    yield from read_board(ctx)[1]


@rule("setup-value", {"key": "string", "equals": "int"}, required=("key", "equals"))
def setup_value(ctx):
    """A number of the setup in data (a dotted key such as setup.hand_size) is the one the game
    states."""
    path = tuple(ctx.opts["key"].split("."))
    node = ctx.pack.data
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
    where = ctx.data_at(*path)
    if node is None:
        yield f"data.{ctx.opts['key']} is missing; the game needs {ctx.opts['equals']}", where
    elif node != ctx.opts["equals"] or isinstance(node, bool):
        shown = node if isinstance(node, int) and not isinstance(node, bool) else describe(node)
        yield f"data.{ctx.opts['key']} is {shown}; the game needs {ctx.opts['equals']}", where


@rule("bank")
def bank_rule(ctx):
    """CARGO-C04: banknotes run from ✯1 to ✯1,000 (both printed, nothing outside), and the bank
    holds at least every player's starting ✯1,000 plus every contract's payoff."""
    notes = ctx.pack.items("banknotes")
    values = {}
    for note in notes:
        v = note.fields["value"]
        if not 1 <= v <= 1000:
            yield (
                f"banknote '{note.id}' is worth ✯{v:,}; notes run from ✯1 to ✯1,000",
                note.field_where["value"],
            )
        elif v in values:
            yield (
                f"banknotes '{values[v]}' and '{note.id}' are both worth ✯{v:,}",
                note.field_where["value"],
            )
        values.setdefault(v, note.id)
    for end in (1, 1000):
        if end not in values:
            yield f"no banknote is worth ✯{end:,}; the notes run from ✯1 to ✯1,000"
    start = ctx.pack.data.get("setup", {}).get("start_money")
    if not isinstance(start, int):
        return  # CARGO-C04's setup-value check reports it
    total = sum(n.fields["value"] * n.count for n in notes)
    payoffs = sum(c.fields["payoff"] * c.count for c in ctx.pack.items("contracts"))
    need = start * ctx.pack.players[1] + payoffs
    if total < need:
        yield (
            f"the bank holds ✯{total:,}; it needs at least ✯{need:,} "
            f"(✯{start:,} for each of {ctx.pack.players[1]} players plus ✯{payoffs:,} of payoffs)"
        )


@rule("player-pieces")
def player_pieces(ctx):
    """CARGO-C05: for each of the most players, exactly one ship and one cargo marker, in a colour
    of their own (so everyone carries one cargo at a time)."""
    most = ctx.pack.players[1]
    colours = ctx.pack.data.get("colours", {})
    sets = {}
    for group in ("ships", "markers"):
        items = ctx.pack.items(group)
        printed = sum(i.count for i in items)
        if printed != most:
            yield (
                f"group '{group}' prints {printed} pieces; the game needs exactly one per "
                f"player, {most}",
                ctx.pack.groups[group].where if group in ctx.pack.groups else ctx.check.where,
            )
        seen = {}
        for item in items:
            colour = item.fields["colour"]
            where = item.field_where["colour"]
            if item.count != 1:
                yield (
                    f"'{item.id}' is printed {item.count} times; each player has exactly one",
                    item.where,
                )
            if colour in seen:
                yield (
                    f"'{seen[colour]}' and '{item.id}' are both {colour}: each player has one "
                    f"piece of their colour",
                    where,
                )
            elif colour not in colours:
                yield f"'{item.id}' is {colour}, which has no entry in data.colours", where
            seen.setdefault(colour, item.id)
        sets[group] = seen
    ships, markers = sets["ships"], sets["markers"]
    for colour in sorted(set(ships) ^ set(markers)):
        have, lack = ("ship", "cargo marker") if colour in ships else ("cargo marker", "ship")
        item = ships.get(colour) or markers.get(colour)
        yield (
            f"colour {colour} has a {have} ('{item}') but no {lack}",
            ctx.pack.items(group="ships" if colour in ships else "markers")[0].where,
        )


@rule("home")
def home_rule(ctx):
    """CARGO-B01: the board has a space G8 named Home; it is open space (not void, not a planet),
    so every ship can enter it on its first turn."""
    board, problems = _board_or_report(ctx)
    yield from problems
    if board is None:
        return
    where = ctx.data_at("board", "home")
    if board.home != SEED_HOME:
        yield f"Home is at {board.home}; the seed puts it at {SEED_HOME}", where
    if board.home in board.void:
        yield f"Home ({board.home}) is a void space; every ship must enter it", where
    for pid, planet in board.planets.items():
        if planet["cell"] == board.home:
            yield (
                f"planet '{pid}' lies on Home ({board.home}); Home is the open space every ship "
                f"starts from",
                _planet_where(ctx, pid),
            )
    if "home" not in ctx.pack.strings:
        yield "the board prints no name for Home: add strings.home (Hejmo / Home)", ctx.pack.where


@rule("contract-planets")
def contract_planets(ctx):
    """CARGO-B02: every planet a contract names (a transport's pickup and destination, a deliver
    contract's destination) is a planet on the board; a transport goes somewhere else."""
    board, problems = _board_or_report(ctx)
    yield from problems
    if board is None:
        return
    for card in ctx.pack.items("contracts"):
        f, where = card.fields, card.field_where
        names = [("destination", f["destination"])]
        if f["kind"] == "transport":
            if f.get("pickup") is None:
                yield f"transport contract '{card.id}' names no pickup planet", card.where
            else:
                names.insert(0, ("pickup", f["pickup"]))
        for key, pid in names:
            if pid not in board.planets:
                yield (
                    f"contract '{card.id}': {key} '{pid}' is not a planet on the "
                    f"board{did_you_mean(pid, board.planets)}",
                    where[key],
                )
        if f["kind"] == "transport" and f.get("pickup") == f["destination"]:
            yield (
                f"transport contract '{card.id}' picks up and delivers at the same planet "
                f"'{f['destination']}'",
                where["destination"],
            )


@rule("cargo-supplied")
def cargo_supplied(ctx):
    """CARGO-B03: every cargo type a deliver contract asks for is supplied by at least one planet
    other than the contract's destination."""
    board, problems = _board_or_report(ctx)
    yield from problems
    if board is None:
        return
    for card in ctx.pack.items("contracts"):
        cargo = card.fields["cargo"]
        if card.fields["kind"] != "deliver" or cargo not in board.cargo:
            continue  # an unknown cargo type is CARGO-B04's
        suppliers = [pid for pid, p in board.planets.items() if cargo in p["supplies"]]
        if not suppliers:
            yield (
                f"deliver contract '{card.id}' asks for {cargo}, which no planet supplies",
                card.field_where["cargo"],
            )
        elif suppliers == [card.fields["destination"]]:
            yield (
                f"deliver contract '{card.id}' asks for {cargo} at '{suppliers[0]}', the only "
                f"planet that supplies it",
                card.field_where["destination"],
            )


@rule("inspection")
def inspection_rule(ctx):
    """CARGO-B04: some planets inspect (the board marks them with a magnifier), and the fee table
    covers every cargo type: each is in exactly one row, the seed's decoded types in the seed's row,
    all others in "everything else" (5%), and every cargo a contract carries is in the table."""
    board, problems = _board_or_report(ctx)
    yield from problems
    if board is None:
        return
    if not any(p["inspection"] for p in board.planets.values()):
        yield (
            "no planet inspects cargo; the seed's board has spaces with a magnifier",
            ctx.data_at("planets"),
        )
    glyphs = {}
    for cid, cargo in board.cargo.items():
        fee, glyph = cargo["fee"], cargo["glyph"]
        where = ctx.data_at("cargo", cid, "fee")
        if fee not in FEES:
            yield (
                f"cargo type '{cid}' pays '{fee}', which is not a row of the fee table "
                f"({', '.join(FEES)}){did_you_mean(str(fee), FEES)}",
                where,
            )
        elif glyph is None and fee != "other":
            yield (
                f"cargo type '{cid}' is not in the seed's table, so it pays 'other' (5%), not "
                f"'{fee}' ({FEES[fee]})",
                where,
            )
        elif glyph is not None and glyph not in SEED_FEES:
            yield (
                f"cargo type '{cid}' has glyph '{glyph}', which is not in the seed's fee table",
                ctx.data_at("cargo", cid, "glyph"),
            )
        elif glyph is not None and SEED_FEES[glyph] != fee:
            yield (
                f"cargo type '{cid}' ('{glyph}') pays '{fee}' ({FEES[fee]}); the seed's table "
                f"puts it at '{SEED_FEES[glyph]}' ({FEES[SEED_FEES[glyph]]})",
                where,
            )
        if glyph is not None and glyph in glyphs:
            yield (
                f"cargo types '{glyphs[glyph]}' and '{cid}' are both the seed's '{glyph}'",
                ctx.data_at("cargo", cid, "glyph"),
            )
        elif glyph is not None:
            glyphs[glyph] = cid
    for glyph, fee in SEED_FEES.items():
        if glyph not in glyphs:
            yield (
                f"no cargo type decodes the seed's '{glyph}' (fee {FEES[fee]})",
                ctx.data_at("cargo"),
            )
    if not any(c["fee"] == "other" for c in board.cargo.values()):
        yield "no cargo type pays the table's 'everything else' rate (5%)", ctx.data_at("cargo")
    for card in ctx.pack.items("contracts"):
        cargo = card.fields["cargo"]
        if cargo not in board.cargo:
            yield (
                f"contract '{card.id}' carries '{cargo}', which is not a cargo type in the fee "
                f"table{did_you_mean(cargo, board.cargo)}",
                card.field_where["cargo"],
            )


@rule("reachable")
def reachable_rule(ctx):
    """CARGO-B05: every planet can be reached from Home with ordinary step cards: a path of steps
    to neighbouring spaces (data.board.neighbours) that never enters a void space."""
    board, problems = _board_or_report(ctx)
    yield from problems
    if board is None or board.home in board.void:
        return  # a void Home is CARGO-B01's
    dist = board.steps_from(board.home)
    for pid, planet in board.planets.items():
        if planet["cell"] in board.void:
            yield (
                f"planet '{pid}' lies on a void space ({planet['cell']}); no ship can enter it",
                _planet_where(ctx, pid),
            )
        elif planet["cell"] not in dist:
            yield (
                f"planet '{pid}' at {planet['cell']} cannot be reached from Home ({board.home}) "
                f"with step cards: void spaces wall it in",
                _planet_where(ctx, pid),
            )


@rule("card-kinds")
def card_kinds(ctx):
    """CARGO-K01: contracts are transport or deliver, and both kinds are in the deck; movement cards
    are steps (move up to N ≥ 1, no jump) or special (with its own text), and at least one special
    card jumps a space."""
    contracts = ctx.pack.items("contracts")
    kinds = {c.fields["kind"] for c in contracts}
    for kind in ("transport", "deliver"):
        if kind not in kinds:
            yield (
                f"the contract deck has no {kind} contract; the game has both kinds",
                ctx.pack.groups["contracts"].where,
            )
    for card in contracts:
        if card.fields["kind"] == "deliver" and card.fields.get("pickup") is not None:
            yield (
                f"deliver contract '{card.id}' names a pickup planet; a deliver contract names a "
                f"cargo type, picked up wherever it is supplied",
                card.field_where["pickup"],
            )
    movement = ctx.pack.items("movement")
    if not any(m.fields["kind"] == "steps" for m in movement):
        yield (
            "the movement deck has no step card (move up to N steps)",
            ctx.pack.groups["movement"].where,
        )
    for card in movement:
        f = card.fields
        if f["kind"] == "steps" and f["steps"] < 1:
            yield (
                f"step card '{card.id}' moves {f['steps']} steps; it must allow at least 1",
                card.field_where["steps"],
            )
        if f["kind"] == "steps" and f["jump"]:
            yield f"step card '{card.id}' jumps; only special cards jump", card.field_where["jump"]
        if f["kind"] == "special" and (f.get("title") is None or f.get("text") is None):
            yield (
                f"special card '{card.id}' needs a title and a text saying how it moves",
                card.where,
            )
    if not any(m.fields["kind"] == "special" and m.fields["jump"] for m in movement):
        yield (
            "no special card jumps a space; the rules rely on jumping over void, occupied and "
            "inspection spaces",
            ctx.pack.groups["movement"].where,
        )
