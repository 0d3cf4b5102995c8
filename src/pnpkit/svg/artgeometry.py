"""Small geometry of SVG markup for the normalising step of art files (normalise.py,
pattern.py, raster.py): transform lists as matrices, and the boxes of simple shapes read from
their attributes."""

from __future__ import annotations

import math
import re
from types import MappingProxyType

from lxml import etree

from pnpkit.svg.values import apply as apply  # the matrices of the normalising step
from pnpkit.svg.values import compose as compose

Matrix = tuple[float, float, float, float, float, float]
Box = tuple[float, float, float, float]  # x, y, width, height
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
TRANSFORM_RE = re.compile(r"(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)")
NUM_RE = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def parse(text: str) -> Matrix:
    """The matrix of an SVG transform list (parts it cannot read count as the identity: the
    compiler reports them where it reads the same attribute)."""
    matrix = IDENTITY
    for name, args in TRANSFORM_RE.findall(text):
        numbers = [float(n) for n in NUM_RE.findall(args)]
        matrix = compose(matrix, basic(name, numbers))
    return matrix


def basic(name: str, a: list[float]) -> Matrix:
    if name == "matrix" and len(a) == 6:
        return (a[0], a[1], a[2], a[3], a[4], a[5])
    if name == "translate" and a:
        return (1, 0, 0, 1, a[0], a[1] if len(a) > 1 else 0)
    if name == "scale" and a:
        return (a[0], 0, 0, a[-1], 0, 0)
    if name in ("skewX", "skewY") and a:
        t = math.tan(math.radians(a[0]))
        return (1, 0, t, 1, 0, 0) if name == "skewX" else (1, t, 0, 1, 0, 0)
    if name == "rotate" and a:
        c, s = math.cos(math.radians(a[0])), math.sin(math.radians(a[0]))
        turn: Matrix = (c, s, -s, c, 0, 0)
        if len(a) == 3:
            turn = compose(compose((1, 0, 0, 1, a[1], a[2]), turn), (1, 0, 0, 1, -a[1], -a[2]))
        return turn
    return (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def inverse(m: Matrix) -> Matrix | None:
    a, b, c, d, e, f = m
    det = a * d - b * c
    if not det or not math.isfinite(det):
        return None
    ia, ib, ic, id_ = d / det, -b / det, -c / det, a / det
    return (ia, ib, ic, id_, -(ia * e + ic * f), -(ib * e + id_ * f))


def moved(box: Box, m: Matrix) -> Box:
    """The box holding box moved by m."""
    x, y, w, h = box
    corners = [apply(m, p) for p in ((x, y), (x + w, y), (x, y + h), (x + w, y + h))]
    xs, ys = [c[0] for c in corners], [c[1] for c in corners]
    return min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)


def number(text: str | None) -> float:
    try:
        value = (text or "0").strip()
        return float(value[:-1]) / 100 if value.endswith("%") else float(value)
    except ValueError:
        return math.nan


def set_line(el: etree._Element, line: int | None) -> None:
    """Give a made element the source line of the one it stands for (so the compiler's
    problems point there): lxml takes it, its stubs call it read-only."""
    el.sourceline = line  # type: ignore[misc]


def ids(root: etree._Element) -> dict[str, etree._Element]:
    """The elements of root by id."""
    found: dict[str, etree._Element] = {}
    for el in root.iter(etree.Element):
        ident = el.get("id")
        if ident:
            found[ident] = el
    return found


MAX_CHAIN = 16  # elements an href chain of gradients or patterns is followed through


def chain(el: etree._Element, found: dict[str, etree._Element]) -> list[etree._Element]:
    """el and the elements of its tag its href names, in turn: at most MAX_CHAIN, ending before
    a repeat (a cycle)."""
    out = [el]
    while len(out) < MAX_CHAIN:
        ref = out[-1].get("href") or out[-1].get("{http://www.w3.org/1999/xlink}href") or ""
        node = found.get(ref[1:]) if ref.startswith("#") else None
        if node is None or tag(node) != tag(el) and {tag(node), tag(el)} != _GRADIENTS:
            break
        if any(node is seen for seen in out):  # the list holds them: lxml keeps their objects
            break
        out.append(node)
    return out


_GRADIENTS = frozenset({"linearGradient", "radialGradient"})


def tag(el: etree._Element | None) -> str:
    return etree.QName(el).localname if el is not None and isinstance(el.tag, str) else ""


def rect_box(el: etree._Element, exact: bool) -> Box | None:
    return (
        number(el.get("x")),
        number(el.get("y")),
        number(el.get("width")),
        number(el.get("height")),
    )


def ellipse_box(el: etree._Element, exact: bool) -> Box | None:
    cx, cy = number(el.get("cx")), number(el.get("cy"))
    rx = number(el.get("r") if tag(el) == "circle" else el.get("rx"))
    ry = number(el.get("r") if tag(el) == "circle" else el.get("ry"))
    return cx - rx, cy - ry, 2 * rx, 2 * ry


def points_box(el: etree._Element, exact: bool) -> Box | None:
    """A polygon's box; a path's, bounding its points and control points (and an arc's end
    by its radii): a box that holds the shape, exact only for straight lines."""
    if exact and tag(el) == "path":
        return None
    if tag(el) == "path":
        points = _path_points(el.get("d") or "")
    else:
        numbers = [float(n) for n in NUM_RE.findall(el.get("points") or "")]
        points = list(zip(numbers[::2], numbers[1::2], strict=False))
    if not points:
        return None
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)


_ARGC = MappingProxyType(
    {"m": 2, "l": 2, "h": 1, "v": 1, "c": 6, "s": 4, "q": 4, "t": 2, "a": 7, "z": 0}
)


def _path_points(d: str) -> list[tuple[float, float]]:
    points: list[tuple[float, float]] = []
    x = y = sx = sy = 0.0
    for cmd, args in re.findall(r"([MmLlHhVvCcSsQqTtAaZz])([^MmLlHhVvCcSsQqTtAaZz]*)", d):
        numbers = [float(n) for n in NUM_RE.findall(args)]
        argc, rel = _ARGC[cmd.lower()], cmd.islower()
        if not argc:
            x, y = sx, sy
            continue
        for k in range(0, len(numbers) - argc + 1, argc):
            a = numbers[k : k + argc]
            ox, oy = (x, y) if rel else (0.0, 0.0)
            low = cmd.lower()
            if low == "h":
                x = a[0] + ox
            elif low == "v":
                y = a[0] + oy
            elif low == "a":
                x, y = a[5] + ox, a[6] + oy
                reach = max(abs(a[0]), abs(a[1]))
                points += [(x - 2 * reach, y - 2 * reach), (x + 2 * reach, y + 2 * reach)]
            else:
                for i in range(0, argc - 2, 2):
                    points.append((a[i] + ox, a[i + 1] + oy))
                x, y = a[-2] + ox, a[-1] + oy
            points.append((x, y))
            if low == "m" and k == 0:
                sx, sy = x, y
    return points


BOXES = MappingProxyType(
    {
        "rect": rect_box,
        "circle": ellipse_box,
        "ellipse": ellipse_box,
        "polygon": points_box,
        "path": points_box,
    }
)
