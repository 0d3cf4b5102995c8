"""The basic shapes (rect, circle, ellipse, line, polyline, polygon, path) and clip paths."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pnpkit.svg.geometry import _ellipse_segs, _path_segs, _poly_segs, _rect_segs, _transform_segs
from pnpkit.svg.gradients import gradient
from pnpkit.svg.ops import Clip, El, Op, Own, PathOp, SegList, Style
from pnpkit.svg.values import (
    _CLIP_SHAPES,
    _IDENTITY,
    _RULE,
    _SKIPPED,
    _URL_RE,
    _is_element,
    _is_url,
    _paint,
    _tag,
    _transform,
    compose,
)

if TYPE_CHECKING:  # the compiler imports this module: its type only
    from pnpkit.svg.walker import Compiler


def clip_ref(comp: Compiler, el: El, value: str) -> Clip | None:
    match = _URL_RE.fullmatch(value)
    target = comp.ids.get(match.group(1)) if match else None
    if target is None or _tag(target) != "clipPath":
        comp.problem(el, f"clip-path '{value}' does not refer to a <clipPath>")
        return None
    if target not in comp.clips:
        comp.clips[target] = clip_op(comp, target)
    return comp.clips[target]


def clip_op(comp: Compiler, clip_el: El) -> Clip:
    """One Clip op from a clipPath's shapes, in the referencing element's user space."""
    own, props = comp.attributes(clip_el, "clipPath")
    if own.get("clipPathUnits", "userSpaceOnUse") != "userSpaceOnUse":
        comp.problem(clip_el, "clipPathUnits must be userSpaceOnUse")
    outer = comp.value(clip_el, _transform, props.get("transform", ""), "transform", _IDENTITY)
    evenodd = comp.value(clip_el, _RULE, props.get("clip-rule", "nonzero"), "clip-rule", False)
    segs: SegList = []
    for child in filter(_is_element, clip_el):
        tag = _tag(child)
        if tag not in _CLIP_SHAPES:
            if tag not in _SKIPPED:
                comp.problem(child, f"unsupported element <{tag}> inside <clipPath>")
            continue
        own, props = comp.attributes(child, tag)
        matrix = compose(
            outer,
            comp.value(child, _transform, props.get("transform", ""), "transform", _IDENTITY),
        )
        segs += _transform_segs(shape_segs(comp, child, tag, own), matrix)
        evenodd = (
            comp.value(child, _RULE, props.get("clip-rule", "nonzero"), "clip-rule", False)
            or evenodd
        )
    return Clip(tuple(segs or _rect_segs(0, 0, 0, 0)), evenodd)  # no shapes: all is clipped


def shape_segs(
    comp: Compiler, el: El, tag: str, own: Own
) -> Sequence[tuple[str, tuple[float, ...]]]:
    try:
        if tag == "path":
            return _path_segs(own.get("d", ""))
        if tag in ("polyline", "polygon"):
            return _poly_segs(own.get("points", ""), tag == "polygon")
    except ValueError as e:
        comp.problem(el, str(e))
        return []

    def n(name: str) -> float:
        return comp.num(el, own, name, nonneg=name in ("width", "height", "r", "rx", "ry"))

    if tag == "line":
        return [("moveTo", (n("x1"), n("y1"))), ("lineTo", (n("x2"), n("y2")))]
    if tag == "circle":
        r = n("r")
        return _ellipse_segs(n("cx"), n("cy"), r, r) if r else []
    if tag == "ellipse":
        rx, ry = n("rx"), n("ry")
        return _ellipse_segs(n("cx"), n("cy"), rx, ry) if rx and ry else []
    w, h = n("width"), n("height")
    given_rx = n("rx") if "rx" in own else None
    given_ry = n("ry") if "ry" in own else None
    # one sets both
    rx = (given_rx if given_rx is not None else given_ry) or 0.0
    ry = (given_ry if given_ry is not None else given_rx) or 0.0
    return _rect_segs(n("x"), n("y"), w, h, min(rx, w / 2), min(ry, h / 2)) if w and h else []


# Handlers fill body and may return (inner matrix, viewport rect) for emit.


def h_shape(comp: Compiler, el: El, own: Own, st: Style, body: list[Op]) -> None:
    comp.no_children(el)
    tag = _tag(el)
    segs = shape_segs(comp, el, tag, own)
    grad = None
    if _is_url(st["fill"]):
        grad = gradient(comp, el, st["fill"][1], segs, st) if tag != "line" and segs else None
        st = {**st, "fill": None}
    fill, stroke = _paint(st)
    fill = None if tag == "line" else fill
    if grad is not None:
        body.append(grad)
    if segs and (fill or stroke):
        body.append(PathOp(tuple(segs), fill, stroke, st["fill-rule"]))


def h_clip_path(comp: Compiler, el: El, own: Own, st: Style, body: list[Op]) -> None:
    clip_op(comp, el)  # never drawn; compiled to report problems
