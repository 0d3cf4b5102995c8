"""<linearGradient> and <radialGradient>: a shape filled with one (pad spread, opaque stops)."""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

from pnpkit.svg.ops import RGB, El, Gradient, GradientSpec, Op, Own, Style
from pnpkit.svg.values import (
    _IDENTITY,
    _SKIPPED,
    _colour,
    _fraction,
    _is_element,
    _number,
    _opacity,
    _tag,
    _transform,
    compose,
)

if TYPE_CHECKING:  # the compiler imports this module: its type only
    from pnpkit.svg.walker import Compiler


def gradient(
    comp: Compiler, el: El, ident: str, segs: Sequence[tuple[str, tuple[float, ...]]], st: Style
) -> Gradient | None:
    """A Gradient op painting a shape with a <linearGradient> or <radialGradient> (pad spread,
    opaque stops)."""
    target = comp.ids.get(ident)
    if target is None or _tag(target) not in ("linearGradient", "radialGradient"):
        comp.problem(
            el, f"fill 'url(#{ident})' does not refer to a <linearGradient> or <radialGradient>"
        )
        return None
    found = gradient_spec(comp, target)
    alpha = st["fill-opacity"] * st["alpha"]
    if found is None or not st["visibility"] or alpha <= 0:
        return None
    kind, coords, colours, offsets, units, transform = found
    matrix = transform
    if units == "objectBoundingBox":
        xs = [a[i] for _, a in segs for i in range(0, len(a), 2)]
        ys = [a[i] for _, a in segs for i in range(1, len(a), 2)]
        bw, bh = max(xs) - min(xs), max(ys) - min(ys)
        if not (bw and bh):  # SVG: a bounding-box gradient on a zero-area box paints nothing
            return None
        matrix = compose((bw, 0, 0, bh, min(xs), min(ys)), transform)
    return Gradient(tuple(segs), st["fill-rule"], kind, coords, colours, offsets, matrix, alpha)


# the coordinates' initial values
_DEFAULTS = MappingProxyType(
    {"x1": "0%", "y1": "0%", "x2": "100%", "y2": "0%", "cx": "50%", "cy": "50%", "r": "50%"}
)


def gradient_spec(comp: Compiler, g: El) -> GradientSpec | None:
    """(kind, coords, colours, offsets, units, transform) of a gradient element, or None
    after problems."""
    tag = _tag(g)
    own, props = comp.attributes(g, tag)
    before = len(comp.problems)
    units = own.get("gradientUnits", "objectBoundingBox")
    if units not in ("objectBoundingBox", "userSpaceOnUse"):
        comp.problem(g, f"bad gradientUnits '{units}' (use objectBoundingBox or userSpaceOnUse)")
    if own.get("spreadMethod", "pad") != "pad":
        comp.problem(g, "spreadMethod must be pad (reflect and repeat are not supported)")
    if "href" in own:
        comp.problem(
            g, "a gradient cannot take its stops from another (href): give it its own <stop>s"
        )
    transform = comp.value(
        g, _transform, own.get("gradientTransform", ""), "gradientTransform", _IDENTITY
    )
    bbox = units == "objectBoundingBox"
    names = ("x1", "y1", "x2", "y2") if tag == "linearGradient" else ("cx", "cy", "r")
    defaults = _DEFAULTS
    coords = tuple(
        comp.value(g, _fraction if bbox else _number, own.get(n, defaults[n]), n, 0.0)
        for n in names
    )
    if tag == "radialGradient":
        for f, c in (("fx", "cx"), ("fy", "cy")):
            if f in own and own[f] != own.get(c, defaults[c]):
                comp.problem(g, f"{f} must equal {c} (a moved focal point is not supported)")
    colours, offsets = _stops(comp, g, tag)
    if not colours:
        comp.problem(g, f"<{tag}> needs at least one <stop>")
    if len(comp.problems) > before:
        return None
    if len(colours) == 1:
        colours, offsets = colours * 2, [0.0, 1.0]
    return (
        "linear" if tag == "linearGradient" else "radial",
        coords,
        tuple(colours),
        tuple(offsets),
        units,
        transform,
    )


def _stops(comp: Compiler, g: El, tag: str) -> tuple[list[RGB], list[float]]:
    """The colours and offsets of a gradient's <stop>s (offsets never decreasing)."""
    colours: list[RGB] = []
    offsets: list[float] = []
    last = 0.0
    for stop in filter(_is_element, g):
        if _tag(stop) != "stop":
            if _tag(stop) not in _SKIPPED:
                comp.problem(stop, f"unsupported element <{_tag(stop)}> inside <{tag}>")
            continue
        sown, sprops = comp.attributes(stop, "stop")
        offset = min(
            max(comp.value(stop, _fraction, sown.get("offset", "0"), "offset", 0.0), last), 1.0
        )
        colour = comp.value(
            stop, _colour, sprops.get("stop-color", "black"), "stop-color", (0.0, 0.0, 0.0)
        )
        if comp.value(stop, _opacity, sprops.get("stop-opacity", "1"), "stop-opacity", 1.0) < 1:
            comp.problem(
                stop,
                "stop-opacity below 1 is not supported (PDF "
                "shadings are opaque; use fill-opacity on the shape)",
            )
        colours.append(colour or (0.0, 0.0, 0.0))
        offsets.append(offset)
        last = offset
    return colours, offsets


def h_gradient(comp: Compiler, el: El, own: Own, st: Style, body: list[Op]) -> None:
    gradient_spec(comp, el)  # never drawn itself; compiled to report problems
