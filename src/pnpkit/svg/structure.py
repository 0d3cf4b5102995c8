"""The elements that hold others: the root <svg> (its size in mm and viewBox), nested <svg>,
<g>, <defs> and <use>."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pnpkit.svg.drawing import Drawing
from pnpkit.svg.ops import Box, El, Matrix, Op, Own, Placed, Style
from pnpkit.svg.values import (
    _DEFAULT_STYLE,
    _DISPLAY,
    _MM_RE,
    _ONE_NUM_RE,
    _SVG,
    MAX_NUMBER,
    _numbers,
    compose,
)

if TYPE_CHECKING:  # the compiler imports this module: its type only
    from pnpkit.svg.walker import Compiler


def h_group(comp: Compiler, el: El, own: Own, st: Style, body: list[Op]) -> None:
    comp.children(el, st, body)


def h_defs(comp: Compiler, el: El, own: Own, st: Style, body: list[Op]) -> None:
    comp.children(el, st, [])  # compiled only to report problems; drawn through <use>


def h_svg(comp: Compiler, el: El, own: Own, st: Style, body: list[Op]) -> Placed | None:
    x, y = comp.num(el, own, "x"), comp.num(el, own, "y")
    w, h = comp.num(el, own, "width", None, True), comp.num(el, own, "height", None, True)
    if w is None or h is None:
        comp.problem(el, "nested <svg> needs width and height")
        return None
    inner: Matrix = (1, 0, 0, 1, x, y)
    if "viewBox" in own:
        vx, vy, vw, vh = viewbox(comp, el, own["viewBox"])
        check_aspect(comp, el, own, w, h, vw, vh)
        inner = compose(inner, (w / vw, 0, 0, h / vh, -vx * w / vw, -vy * h / vh))
    comp.children(el, st, body)
    return inner, (x, y, w, h)


def check_aspect(
    comp: Compiler, el: El, own: Own, w: float, h: float, vw: float, vh: float
) -> None:
    """A viewBox is always stretched; where a browser would letterbox instead, make the
    author say so."""
    if (
        w
        and h
        and abs(vw / vh - w / h) > 1e-3 * vw / vh
        and own.get("preserveAspectRatio", "").strip() != "none"
    ):
        comp.problem(
            el,
            'viewBox and width/height differ in aspect ratio: add preserveAspectRatio="none"',
        )


def viewbox(comp: Compiler, el: El, value: str) -> Box:
    try:
        box = _numbers(value, "viewBox")
    except ValueError:
        box = []
    if len(box) != 4 or box[2] <= 0 or box[3] <= 0:
        comp.problem(el, f"bad viewBox '{value}' (use 'min-x min-y width height')")
        return (0.0, 0.0, 1.0, 1.0)
    return box[0], box[1], box[2], box[3]


def h_use(comp: Compiler, el: El, own: Own, st: Style, body: list[Op]) -> Placed:
    comp.no_children(el)
    href = own.get("href", "")
    target = comp.ids.get(href[1:]) if href.startswith("#") else None
    if target is None:
        comp.problem(el, f"<use> refers to unknown id '{href}'")
    elif href in comp.using:
        comp.problem(el, f"<use> of '{href}' is circular")
    else:
        comp.using.add(href)
        comp.element(target, st, body)
        comp.using.discard(href)
    return (1, 0, 0, 1, comp.num(el, own, "x"), comp.num(el, own, "y")), None


def document(comp: Compiler, root: El) -> Drawing | None:
    """Compile the root <svg>; width/height in mm and the viewBox fix the drawing's size."""
    if root.tag != _SVG + "svg":
        comp.problem(root, "root element must be <svg> in the SVG namespace")
        return None
    own, props = comp.attributes(root, "svg")
    known = len(comp.problems)
    size: list[float] = []
    for name in ("width", "height"):
        match = _MM_RE.fullmatch(own.get(name, ""))
        size.append(float(match.group(1)) if match else 0.0)
        if not 0 < size[-1] <= MAX_NUMBER:
            comp.problem(
                root,
                f"{name} must be a positive number in mm like '63mm' (got '{own.get(name, '')}')",
            )
    box = viewbox(comp, root, own.get("viewBox", ""))
    if len(comp.problems) > known:  # a placeholder size and box keep the rest of the checks going
        size = [s if s > 0 else 1.0 for s in size]
    else:
        check_aspect(comp, root, own, size[0], size[1], box[2], box[3])
    ops: list[Op] = []
    if comp.value(root, _DISPLAY, props.get("display", "inline"), "display", True):
        st = comp.style(root, _DEFAULT_STYLE, props)
        body: list[Op] = []
        comp.children(root, st, body)
        comp.emit(root, props, body, ops, viewport=box)
    return Drawing(size[0], size[1], box, tuple(ops))


def art_document(comp: Compiler, root: El) -> tuple[Box, tuple[Op, ...]]:
    """The root <svg> of an art file: its viewBox (or plain width and height) is its drawing
    box; it is scaled into the <image> box that draws it."""
    if root.tag != _SVG + "svg":
        comp.problem(root, "root element must be <svg> in the SVG namespace")
        return (0.0, 0.0, 1.0, 1.0), ()
    own, props = comp.attributes(root, "svg")
    if "viewBox" in own:
        box = viewbox(comp, root, own["viewBox"])
    else:
        mw, mh = (
            _ONE_NUM_RE.fullmatch(own.get(n, "").removesuffix("px")) for n in ("width", "height")
        )
        if mw is None or mh is None or min(float(mw.group(1)), float(mh.group(1))) <= 0:
            comp.problem(root, "an SVG image needs a viewBox (or a plain width and height)")
            return (0.0, 0.0, 1.0, 1.0), ()
        box = (0.0, 0.0, float(mw.group(1)), float(mh.group(1)))
    ops: list[Op] = []
    if comp.value(root, _DISPLAY, props.get("display", "inline"), "display", True):
        st = comp.style(root, _DEFAULT_STYLE, props)
        body: list[Op] = []
        comp.children(root, st, body)
        comp.emit(
            root, {k: v for k, v in props.items() if k != "transform"}, body, ops, viewport=box
        )
    return box, tuple(ops)
