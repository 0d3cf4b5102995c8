"""Dice: cube nets with fold lines and glue tabs, and sticker sheets, for templates.

A die is defined by its six faces and which face sits opposite which (three
pairs). Everything else is geometry this module works out, for any game:

- `die_net(face, faces, opposite, side, tab)` folds the net on paper in code
  (each square of the net rolls the cube onto its neighbour), so it knows which
  cube face every square becomes, which squares are opposite, and which two
  free edges meet when the cube closes. Each of those 7 seams gets exactly one
  glue tab, on the edge where the tab stays inside the net's footprint when it
  can; the opposite pairs land on opposite squares.
- `die_pairs(faces, opposite)` gives the pairs checked against the faces, for
  sticker sheets that print opposite faces together.
- The packer for `kind: die` sets nets on the page with room between them and no
  grid crop marks: a net is cut along its own printed outline.
- The rule `die-opposites` checks every die's opposite pairs against its faces.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pnpkit.checks.rules import Context, Finding, rule
from pnpkit.errors import Problem
from pnpkit.impose.grid import fill_pages
from pnpkit.impose.page import Page, Placement
from pnpkit.impose.paper import printable_area
from pnpkit.pack.model import Face, PrintSettings
from pnpkit.units import describe

if TYPE_CHECKING:
    from pnpkit.kinds.registry import Registry

# Cells (column, row) of named nets, in the order faces are assigned to them. The
# cross is the classic net: a row of four with one square above and one below the second.
NETS = MappingProxyType(
    {
        "cross": ((1, 0), (0, 1), (1, 1), (2, 1), (3, 1), (1, 2)),
        "column": ((1, 0), (0, 1), (1, 1), (2, 1), (1, 2), (1, 3)),
    }
)
DIRS = MappingProxyType({"up": (0, -1), "right": (1, 0), "down": (0, 1), "left": (-1, 0)})
MAX_TAB = (
    0.4  # a tab's depth as a share of the side: deeper tabs from opposite sides of a gap would meet
)
NET_GAP = 5.0  # mm between nets on a page: room for scissors


class DieError(ValueError):
    """A die or net that cannot be made: the message says why."""


# ------------------------------------------------------------------ folding


Vec = tuple[int, int, int]
Cell = tuple[int, int]  # (column, row) of a square in its net's grid
State = tuple[Vec, Vec, Vec]  # a square's (outward normal, up, right) on the folded cube
Edge = tuple[Cell, str]  # a square's edge: (cell, direction)
Line = tuple[float, float, float, float]  # x1, y1, x2, y2 (mm)
Point = tuple[float, float]


def _as_cells(cells: Iterable[Sequence[int]]) -> list[Cell]:
    """Cells as (column, row) tuples, however they were written (a template gives lists)."""
    return [(c[0], c[1]) for c in cells]


def _neg(v: Vec) -> Vec:
    return (-v[0], -v[1], -v[2])


def _roll(state: tuple[Vec, Vec, Vec], direction: str) -> tuple[Vec, Vec, Vec]:
    """The neighbouring square's (normal, up, right) when the paper folds away from the viewer."""
    n, up, right = state
    if direction == "right":
        return right, up, _neg(n)
    if direction == "left":
        return _neg(right), up, n
    if direction == "up":
        return up, _neg(n), right
    return _neg(up), n, right


def fold(cells: Iterable[Sequence[int]]) -> dict[Cell, State]:
    """Fold a net of six grid cells into a cube: {cell: outward normal}, or DieError.

    The first cell faces the viewer; each other cell's normal follows from rolling
    the cube across the fold it shares with a cell already placed.
    """
    cells = _as_cells(cells)
    if len(cells) != 6 or len(set(cells)) != 6:
        raise DieError(f"a cube net needs six different squares (got {len(set(cells))})")
    states: dict[Cell, State] = {cells[0]: ((0, 0, 1), (0, 1, 0), (1, 0, 0))}
    todo = [cells[0]]
    while todo:
        cell = todo.pop(0)
        for name, (dx, dy) in DIRS.items():
            nxt = (cell[0] + dx, cell[1] + dy)
            if nxt in cells and nxt not in states:
                states[nxt] = _roll(states[cell], name)
                todo.append(nxt)
    if len(states) != 6:
        raise DieError("the squares of a cube net must all be joined edge to edge")
    normals = {c: s[0] for c, s in states.items()}
    if len(set(normals.values())) != 6:
        raise DieError("these six squares do not fold into a cube (two land on the same side)")
    return {c: states[c] for c in cells}


def _edge_vec(state: State, direction: str) -> Vec:
    n, up, right = state
    return {"up": up, "right": right, "down": _neg(up), "left": _neg(right)}[direction]


def seams(cells: Iterable[Sequence[int]]) -> list[tuple[Edge, Edge]]:
    """The 7 pairs of free edges ((cell, direction), (cell, direction)) that meet when the cube
    closes."""
    states = fold(cells)
    by_cube_edge: dict[frozenset[Vec], list[Edge]] = {}
    for cell, state in states.items():
        for name, (dx, dy) in DIRS.items():
            if (cell[0] + dx, cell[1] + dy) in states:
                continue  # a fold, not a free edge
            key = frozenset((state[0], _edge_vec(state, name)))
            by_cube_edge.setdefault(key, []).append((cell, name))
    pairs = [(edges[0], edges[-1]) for edges in by_cube_edge.values()]
    if len(pairs) != 7 or any(
        len(edges) != 2 for edges in by_cube_edge.values()
    ):  # cannot happen for a net that folded
        raise DieError("the free edges of this net do not pair up into 7 seams")
    order = {c: i for i, c in enumerate(states)}
    return sorted(pairs, key=lambda p: sorted((order[e[0]], e[1]) for e in p))


def folds(cells: Iterable[Sequence[int]]) -> list[Edge]:
    """Edges shared by two squares, as (cell, direction) from the first of the two in net order."""
    cells = _as_cells(cells)
    out: list[Edge] = []
    for cell in cells:
        for name in ("right", "down"):
            dx, dy = DIRS[name]
            if (cell[0] + dx, cell[1] + dy) in cells:
                out.append((cell, name))
    return out


def tab_edges(cells: Iterable[Sequence[int]]) -> list[Edge]:
    """One edge per seam to carry the glue tab.

    A tab may not enter an empty grid cell another tab already uses (tabs would
    touch), and should stay within the net's footprint (a smaller sheet). Ties go
    to the later square in net order, so the first square, usually the front, stays clean.
    """
    cells = _as_cells(cells)
    xs, ys = [c[0] for c in cells], [c[1] for c in cells]
    order = {c: i for i, c in enumerate(cells)}
    used: set[Cell] = set()
    chosen: list[Edge] = []
    for pair in seams(cells):

        def cost(edge: Edge) -> tuple[bool, bool, int]:
            (cx, cy), name = edge
            dx, dy = DIRS[name]
            target = (cx + dx, cy + dy)
            outside = not (min(xs) <= target[0] <= max(xs) and min(ys) <= target[1] <= max(ys))
            return (target in used, outside, -order[edge[0]])

        edge = min(pair, key=cost)
        dx, dy = DIRS[edge[1]]
        used.add((edge[0][0] + dx, edge[0][1] + dy))
        chosen.append(edge)
    return chosen


# ------------------------------------------------------------------ dice


def die_pairs(faces: object, opposite: Any) -> list[tuple[Any, Any]]:
    """The opposite pairs as tuples, checked: three pairs that together are exactly the die's
    faces."""
    problem = opposite_problem(faces, opposite)
    if problem:
        raise DieError(problem)
    return [(p[0], p[1]) for p in opposite]


def opposite_problem(faces: object, opposite: object) -> str | None:
    """Why these opposite pairs do not describe this die, or None."""
    if not isinstance(faces, list) or len(faces) != 6:
        return f"a die for a cube net needs 6 faces (got {describe(faces)})"
    if (
        not isinstance(opposite, list)
        or len(opposite) != 3
        or not all(isinstance(p, list) and len(p) == 2 for p in opposite)
    ):
        return (
            "'opposite' must be three pairs of faces, such as "
            f"[[1, 6], [2, 5], [3, 4]] (got {describe(opposite)})"
        )
    used = Counter(str(v) for p in opposite for v in p)
    have = Counter(str(v) for v in faces)
    if used != have:
        return (
            f"the opposite pairs use the faces {sorted(used.elements())}, "
            f"but the die has {sorted(have.elements())}"
        )
    return None


@dataclass(frozen=True)
class NetFace:
    """One square of a net: its trim position (mm) and the die face printed on it."""

    x: float
    y: float
    size: float
    value: object
    cell: Cell
    opposite: int  # index in Net.faces of the square opposite this one


@dataclass(frozen=True)
class Net:
    """A die net laid out inside a face, in the face's mm (trim origin)."""

    x: float
    y: float
    w: float
    h: float
    side: float
    tab: float
    faces: tuple[NetFace, ...]  # in net order
    folds: tuple[Line, ...]  # (x1, y1, x2, y2) dashed fold lines
    tabs: tuple[
        tuple[Point, Point, Point, Point], ...
    ]  # ((x, y), ...) glue-tab polygons, 4 points each
    cuts: tuple[
        Line, ...
    ]  # (x1, y1, x2, y2) solid cut lines: free edges without tabs and the tabs' outer sides
    tab_edges: tuple[Edge, ...]  # ((col, row), direction) of each tab, in the order of `tabs`

    @property
    def fold_path(self) -> str:
        return _path(self.folds)

    @property
    def cut_path(self) -> str:
        return _path(self.cuts)

    def tab_points(self, i: int) -> str:
        return " ".join(f"{x:.3f},{y:.3f}" for x, y in self.tabs[i])


def _path(lines: Iterable[Line]) -> str:
    return " ".join(f"M{x1:.3f} {y1:.3f} L{x2:.3f} {y2:.3f}" for x1, y1, x2, y2 in lines)


def net_extent(cells: Sequence[Cell], side: float, tab: float) -> tuple[float, float, float, float]:
    """Left, top, right, bottom of a net and its tabs, in mm from the cell grid's origin."""
    left, top = min(c[0] for c in cells) * side, min(c[1] for c in cells) * side
    right, bottom = (max(c[0] for c in cells) + 1) * side, (max(c[1] for c in cells) + 1) * side
    for (cx, cy), name in tab_edges(cells):
        dx, dy = DIRS[name]
        left, right = (
            min(left, cx * side + (dx < 0) * -tab),
            max(right, (cx + 1) * side + (dx > 0) * tab),
        )
        top, bottom = (
            min(top, cy * side + (dy < 0) * -tab),
            max(bottom, (cy + 1) * side + (dy > 0) * tab),
        )
    return left, top, right, bottom


def die_net_size(side: float, tab: float, layout: str = "cross") -> tuple[float, float]:
    """Width and height (mm) of a net of squares `side` mm with tabs `tab` mm deep: a die
    group's size."""
    left, top, right, bottom = net_extent(_cells(layout), side, tab)
    return round(right - left, 3), round(bottom - top, 3)


def die_net(
    face: dict[str, Any],
    faces: object,
    opposite: Any,
    side: float,
    tab: float,
    layout: str = "cross",
) -> Net:
    """The net of a die with squares `side` mm and tabs `tab` mm, centred in the face.

    opposite lists three pairs of faces; each pair lands on squares that end up
    opposite each other: the first pair on the first square of the layout and its
    opposite, and so on in the order the layout's squares first show each axis.
    """
    cells = _cells(layout)
    _check_tab(side, tab)
    pairs = die_pairs(faces, opposite)
    left, top, right, bottom = net_extent(cells, side, tab)
    w, h = right - left, bottom - top
    _check_fits(side, tab, (w, h), face)
    ox, oy = (face["w"] - w) / 2 - left, (face["h"] - h) / 2 - top
    net_faces = _net_faces(cells, pairs, ox, oy, side)
    fold_lines = tuple(_edge(ox, oy, side, cell, name) for cell, name in folds(cells))
    tabs, tabbed, cuts = _outline(cells, ox, oy, side, tab)
    return Net(
        ox + left,
        oy + top,
        w,
        h,
        side,
        tab,
        net_faces,
        fold_lines,
        tuple(tabs),
        tuple(cuts),
        tuple(tabbed),
    )


def _check_tab(side: float, tab: float) -> None:
    if not 0 < tab <= MAX_TAB * side:
        raise DieError(
            f"a glue tab must be deeper than 0 and at most {MAX_TAB:g} "
            f"x the side ({MAX_TAB * side:g} mm; got {tab:g} mm)"
        )


def _check_fits(side: float, tab: float, size: tuple[float, float], face: dict[str, Any]) -> None:
    w, h = size
    if w > face["w"] + 1e-6 or h > face["h"] + 1e-6:
        raise DieError(
            f"a net of {side:g} mm squares with {tab:g} mm tabs needs "
            f"{w:g}x{h:g}mm, but the face is {face['w']:g}x{face['h']:g}mm"
        )


def _net_faces(
    cells: list[Cell], pairs: list[tuple[Any, Any]], ox: float, oy: float, side: float
) -> tuple[NetFace, ...]:
    """The squares of a net whose grid origin is at (ox, oy), each with its die face and the
    index of the square opposite it."""
    states = fold(cells)
    values = _assign(cells, states, pairs)
    index = {c: i for i, c in enumerate(cells)}
    normal_at = {states[c][0]: c for c in cells}
    return tuple(
        NetFace(
            ox + c[0] * side,
            oy + c[1] * side,
            side,
            values[c],
            c,
            index[normal_at[_neg(states[c][0])]],
        )
        for c in cells
    )


def _outline(
    cells: list[Cell], ox: float, oy: float, side: float, tab: float
) -> tuple[list[tuple[Point, Point, Point, Point]], list[Edge], list[Line]]:
    """The net's free edges: (glue-tab polygons, the edges they sit on, the cut lines: free edges
    without tabs and the tabs' outer sides)."""
    chosen = tab_edges(cells)
    tabs: list[tuple[Point, Point, Point, Point]] = []
    tabbed: list[Edge] = []
    cuts: list[Line] = []
    for cell in cells:
        for name, (dx, dy) in DIRS.items():
            if (cell[0] + dx, cell[1] + dy) in cells:
                continue
            edge = _edge(ox, oy, side, cell, name)
            if (cell, name) in chosen:
                poly = _tab(edge, (dx, dy), tab)
                tabs.append(poly)
                tabbed.append((cell, name))
                cuts += [(*poly[0], *poly[1]), (*poly[1], *poly[2]), (*poly[2], *poly[3])]
            else:
                cuts.append(edge)
    return tabs, tabbed, cuts


def _cells(name: str) -> list[Cell]:
    if name not in NETS:
        raise DieError(f"unknown net layout '{name}' (known: {', '.join(NETS)})")
    return _as_cells(NETS[name])


def _assign(
    cells: list[Cell], states: dict[Cell, State], pairs: list[tuple[Any, Any]]
) -> dict[Cell, Any]:
    """Each cell's face value: pair k goes on the k-th axis met in net order, its first value on
    that cell."""
    values: dict[Cell, Any] = {}
    axes: list[tuple[int, ...]] = []
    for cell in cells:
        n = states[cell][0]
        axis = tuple(abs(v) for v in n)
        if axis in axes:
            continue
        axes.append(axis)
        a, b = pairs[len(axes) - 1]
        values[cell] = a
        values[next(c for c in cells if states[c][0] == _neg(n))] = b
    return values


def _edge(
    ox: float, oy: float, side: float, cell: Cell, name: str
) -> tuple[float, float, float, float]:
    """A square's edge as a line, clockwise around the square."""
    x0, y0 = ox + cell[0] * side, oy + cell[1] * side
    x1, y1 = x0 + side, y0 + side
    return {
        "up": (x0, y0, x1, y0),
        "right": (x1, y0, x1, y1),
        "down": (x1, y1, x0, y1),
        "left": (x0, y1, x0, y0),
    }[name]


def _tab(edge: Line, out: tuple[int, int], depth: float) -> tuple[Point, Point, Point, Point]:
    """A trapezoid on an edge, its ends cut at 45 degrees so neighbouring tabs never overlap."""
    x1, y1, x2, y2 = edge
    ux, uy = (x2 - x1), (y2 - y1)
    length = math.hypot(ux, uy)
    ux, uy = ux / length, uy / length
    ox, oy = out[0] * depth, out[1] * depth
    return (
        (x1, y1),
        (x1 + ox + ux * depth, y1 + oy + uy * depth),
        (x2 + ox - ux * depth, y2 + oy - uy * depth),
        (x2, y2),
    )


# ------------------------------------------------------------------ the packer for nets


def pack_nets(copies: list[Face], s: PrintSettings) -> tuple[list[Page], list[Problem]]:
    """Nets in rows, NET_GAP apart, each group starting a new page; cut along the printed outlines.

    Pages are `packed`: no grid crop marks (they would mark the net's bounding box,
    which is not a cut line). Each page takes the orientation that holds more nets.
    """

    def too_big(face: Face) -> tuple[list[Page], list[Problem]]:
        size = f"{face.size[0]:g}x{face.size[1]:g}mm"
        return [], [
            Problem(
                face.where,
                f"the die net of '{face.item}' ({size}) does not fit on {s.paper} paper",
                "layout",
            )
        ]

    return fill_pages(
        copies,
        s,
        lambda size: Page(size[0], size[1], "front", packed=True),
        lambda page, rest: _fill_nets(page, rest, s),
        too_big,
    )


def _fill_nets(page: Page, copies: list[Face], s: PrintSettings) -> int:
    """Shelf-pack nets onto the page; centre each row and the rows as a whole. Returns how many
    went on."""
    left, area_top, aw, ah = printable_area(
        s, (page.w, page.h), marks=False
    )  # nets carry their own cut lines
    rows: list[list[Face]] = []
    y, n = 0.0, 0
    for face in copies:
        if rows and face.group != rows[0][0].group:
            break  # each size of net on pages of its own: print only the size you want
        w, h = face.size
        row = rows[-1] if rows else None
        row_w = sum(f.size[0] for f in row) + NET_GAP * len(row) if row else 0.0
        if row and row_w + w <= aw + 1e-6:
            row.append(face)
        else:
            top = y + (max(f.size[1] for f in row) + NET_GAP if row else 0.0)
            if w > aw + 1e-6 or top + h > ah + 1e-6:
                break
            y = top
            rows.append([face])
        n += 1
    total_h = y + (max(f.size[1] for f in rows[-1]) if rows else 0.0)
    top = area_top + (ah - total_h) / 2
    for row in rows:
        row_w = sum(f.size[0] for f in row) + NET_GAP * (len(row) - 1)
        x = left + (aw - row_w) / 2
        for face in row:
            page.placements.append(Placement(face, x, top, (0.0, 0.0, 0.0, 0.0)))
            x += face.size[0] + NET_GAP
        top += max(f.size[1] for f in row) + NET_GAP
    return n


def register(reg: Registry) -> None:
    """The die-net packer, the net helpers (and the types they return) and die-opposites."""
    reg.add_packer("die", pack_nets)
    for helper in (die_pairs, die_net_size, die_net):
        reg.add_helper(helper)
    for cls in (NetFace, Net):
        reg.add_type(cls)
    reg.add_rule(die_opposites_rule)


# ------------------------------------------------------------------ the rule


@rule(
    "die-opposites",
    {"group": "group", "field": "string", "opposite": "string"},
    required=("group",),
)
def die_opposites_rule(ctx: Context) -> Iterator[Finding]:
    """Every die's opposite pairs (field `opposite`) are three pairs that together are exactly
    its faces (field `field`)."""
    faces_field, pairs_field = ctx.opts.get("field", "faces"), ctx.opts.get("opposite", "opposite")
    for item in ctx.pack.items(ctx.opts["group"]):
        problem = opposite_problem(item.fields.get(faces_field), item.fields.get(pairs_field))
        if problem:
            yield f"die '{item.id}': {problem}", item.field_where.get(pairs_field, item.where)


# ------------------------------------------------------------------ a drawn net's squares

# A template marks each square of a die's net with this attribute, naming the face printed on it:
# <rect x=".." y=".." width="16" height="16" data-die-face="3"/>. Exports that need the die's
# faces apart (a Tabletop Simulator die, The Game Crafter's custom dice) read them from the
# drawn face, so a hand-drawn net works as well as one from die_net().
DIE_FACE_ATTR = "data-die-face"


@dataclass(frozen=True)
class DieSquare:
    """One marked square of a drawn net: the face on it, where it is (mm from the trim's corner)
    and where it ends up on the folded cube (outward normal, and where the paper's up and right
    point)."""

    value: str
    x: float
    y: float
    side: float
    normal: Vec
    up: Vec
    right: Vec


def die_squares(svg: str) -> list[DieSquare]:
    """The six squares a face's SVG marks with data-die-face, folded into a cube; DieError says
    why they are not a die (none marked, not six, not equal squares edge to edge, no cube)."""
    return _squares(_parse(svg))


def _parse(svg: str) -> Any:
    from lxml import etree  # here: only exports that take a die apart parse its SVG again

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    return etree.fromstring(svg.encode("utf-8"), parser)


def _squares(root: Any) -> list[DieSquare]:
    marked = [el for el in root.iter() if isinstance(el.tag, str) and el.get(DIE_FACE_ATTR)]
    if len(marked) != 6:
        raise DieError(
            f"a die's net marks its six squares with {DIE_FACE_ATTR} (found {len(marked)})"
        )
    boxes = [_square_box(el) for el in marked]
    side = boxes[0][2]
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    cells: list[Cell] = []
    for x, y, w, h in boxes:
        col, row = round((x - x0) / side), round((y - y0) / side)
        if (
            max(abs(w - side), abs(h - side), abs(x0 + col * side - x), abs(y0 + row * side - y))
            > 0.05
        ):
            raise DieError("the marked squares of a die's net must be equal squares edge to edge")
        cells.append((col, row))
    states = fold(cells)
    return [
        DieSquare(str(el.get(DIE_FACE_ATTR)), x, y, side, *states[cell])
        for el, (x, y, _, _), cell in zip(marked, boxes, cells)
    ]


# A template marks each glue tab of a net with this attribute on a <polygon> whose first and
# last points end its fold: <polygon points=".." data-die-tab="glue"/>; "own" when the
# template writes a word on the tab itself. The PDF writes the kit's words for "glue" and
# "fold" on what is marked (pdf/dicemarks.py).
DIE_TAB_ATTR = "data-die-tab"
Tab = tuple[tuple[Point, ...], bool]  # a glue tab's polygon (mm), and whether it has its own word


@dataclass(frozen=True)
class DrawnNet:
    """What a drawn net shows the one who folds it, in mm from the trim's corner: the fold lines
    between its squares and its marked glue tabs."""

    folds: tuple[Line, ...]
    tabs: tuple[Tab, ...]


def drawn_net(svg: str) -> DrawnNet:
    """The folds and glue tabs of the net a face's SVG marks (data-die-face, data-die-tab);
    DieError says why it marks no net."""
    root = _parse(svg)
    squares = _squares(root)
    side = squares[0].side
    x0, y0 = min(q.x for q in squares), min(q.y for q in squares)
    cells = [(round((q.x - x0) / side), round((q.y - y0) / side)) for q in squares]
    lines = tuple(_edge(x0, y0, side, cell, name) for cell, name in folds(cells))
    tabs = tuple(
        (_tab_points(el), el.get(DIE_TAB_ATTR) == "own")
        for el in root.iter()
        if isinstance(el.tag, str) and el.get(DIE_TAB_ATTR)
    )
    return DrawnNet(lines, tabs)


def _tab_points(el: Any) -> tuple[Point, ...]:
    """The corners (mm) of a marked tab: a <polygon> (or <polyline>, its fold left unstroked)
    without transforms, from one end of its fold round to the other."""
    local = el.tag.rsplit("}", 1)[-1]
    if local not in ("polygon", "polyline") or any(
        a.get("transform") for a in (el, *el.iterancestors())
    ):
        raise DieError(f"{DIE_TAB_ATTR} marks a <polygon> without transforms (got <{local}>)")
    try:
        values = [float(v) for v in el.get("points", "").replace(",", " ").split()]
    except ValueError:
        raise DieError(f"a {DIE_TAB_ATTR} <polygon> needs plain numbers (mm)") from None
    if len(values) < 6 or len(values) % 2 or not all(math.isfinite(v) for v in values):
        raise DieError(f"a {DIE_TAB_ATTR} <polygon> needs three or more finite points")
    return tuple(zip(values[::2], values[1::2]))


def _square_box(el: Any) -> tuple[float, float, float, float]:
    """x, y, width, height (mm) of a marked <rect> drawn in the face's own coordinates."""
    local = el.tag.rsplit("}", 1)[-1]
    if local != "rect" or any(a.get("transform") for a in (el, *el.iterancestors())):
        raise DieError(f"{DIE_FACE_ATTR} marks a <rect> without transforms (got <{local}>)")
    try:
        x, y, w, h = (float(el.get(k, "0")) for k in ("x", "y", "width", "height"))
    except ValueError:
        raise DieError(f"a {DIE_FACE_ATTR} <rect> needs plain numbers (mm)") from None
    if not all(math.isfinite(v) for v in (x, y, w, h)) or min(w, h) <= 0:
        raise DieError(f"a {DIE_FACE_ATTR} <rect> needs a finite position and a positive size")
    return x, y, w, h
