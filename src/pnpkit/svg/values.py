"""Reading an SVG's attribute values: numbers, colours, paint, transforms, the inherited
properties with their initial values, and which element takes which attribute."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, cast

from lxml import etree
from reportlab.lib import colors

from pnpkit import workspace
from pnpkit.svg.ops import RGB, El, Fill, Matrix, Stroke, Style, T
from pnpkit.typeset import fonts

_IDENTITY: tuple[float, float, float, float, float, float] = (1, 0, 0, 1, 0, 0)
_SVG = "{http://www.w3.org/2000/svg}"

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_NUM_RE = re.compile(_NUM)
_ONE_NUM_RE = re.compile(rf"\s*({_NUM})\s*")
_MM_RE = re.compile(rf"\s*({_NUM})mm\s*")
_SEPS = " \t\r\n,"
_XML_SPACE_RE = re.compile(r"[ \t\r\n]+")  # not \s: a no-break space must survive
_HEX_RE = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_RGB_RE = re.compile(rf"rgb\(\s*({_NUM})(%?)\s*,\s*({_NUM})(%?)\s*,\s*({_NUM})(%?)\s*\)")
_URL_RE = re.compile(r"\s*url\(\s*['\"]?#([^'\")\s]+)['\"]?\s*\)\s*")
_TRANSFORM_RE = re.compile(r"[\s,]*(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)[\s,]*")
_TRANSFORM_ARGC = MappingProxyType(
    {
        "matrix": (6,),
        "translate": (1, 2),
        "scale": (1, 2),
        "rotate": (1, 3),
        "skewX": (1,),
        "skewY": (1,),
    }
)


def _named_colours() -> dict[str, RGB | None]:
    named: dict[str, RGB | None] = {
        name: (c.red, c.green, c.blue)
        for name, c in colors.getAllNamedColors().items()
        if name.isalpha()
        and name.islower()
        and name not in {"cornflower", "fidblue", "fidlightblue", "fidred"}
    }
    named.update(
        lightgray=named["lightgrey"],
        rebeccapurple=(0x66 / 255, 0x33 / 255, 0x99 / 255),
        transparent=None,
    )
    return named


_NAMED: Mapping[str, RGB | None] = MappingProxyType(_named_colours())

# Parsers take (value, property name) and raise ValueError with the problem text.


# Every number of the SVG, in user units. The PDF cannot hold a coordinate of 1e21 (ReportLab
# raises while writing), and no face needs more than this: 2 m in micrometres is 2e6.
MAX_NUMBER = 1e7


def _number(value: str, prop: str, nonneg: bool = False) -> float:
    match = _ONE_NUM_RE.fullmatch(value)
    if not match:
        raise ValueError(f"bad number '{value}' for {prop} (use a plain number in user units)")
    number = float(match.group(1))
    if not abs(number) <= MAX_NUMBER:  # 1e999 is infinite, NaN fails every comparison
        raise ValueError(f"bad number '{value}' for {prop} (at most {MAX_NUMBER:g} either way)")
    if nonneg and number < 0:
        raise ValueError(f"{prop} must not be negative (got '{value}')")
    return number


def _fraction(value: str, prop: str) -> float:
    """A number, or a percentage as a fraction ("50%" -> 0.5)."""
    text = value.strip()
    return _number(text[:-1], prop) / 100 if text.endswith("%") else _number(text, prop)


def _nonneg(value: str, prop: str) -> float:
    return _number(value, prop, nonneg=True)


def _numbers(value: str, prop: str) -> list[float]:
    if _NUM_RE.sub("", value).strip(_SEPS):
        raise ValueError(f"bad number list '{value}' for {prop}")
    numbers = [float(n) for n in _NUM_RE.findall(value)]
    if not all(abs(n) <= MAX_NUMBER for n in numbers):
        raise ValueError(
            f"bad number list '{value[:60]}' for {prop} (each at most {MAX_NUMBER:g} either way)"
        )
    return numbers


@workspace.memoized(256)
def _colour(value: str, prop: str) -> RGB | None:
    if value == "none":
        return None
    if match := _HEX_RE.fullmatch(value):
        h = match.group(1)
        h = "".join(ch * 2 for ch in h) if len(h) == 3 else h
        return cast(RGB, tuple(int(h[i : i + 2], 16) / 255 for i in (0, 2, 4)))
    match = _RGB_RE.fullmatch(value)
    if match and len(set(match.groups()[1::2])) == 1:  # all percentages or none
        scale = 100 if match.group(2) else 255
        return cast(RGB, tuple(min(max(float(n) / scale, 0.0), 1.0) for n in match.groups()[::2]))
    if value.lower() in _NAMED:
        return _NAMED[value.lower()]
    raise ValueError(f"bad colour '{value}' for {prop}")


def _fill(value: str, prop: str) -> RGB | tuple[str, str] | None:
    """A colour, or ("url", id) of a gradient (shapes only; see gradient)."""
    match = _URL_RE.fullmatch(value)
    return ("url", match.group(1)) if match else _colour(value, prop)


def _is_url(paint: object) -> bool:
    return isinstance(paint, tuple) and len(paint) == 2 and paint[0] == "url"


def _opacity(value: str, prop: str) -> float:
    return min(max(_number(value, prop), 0.0), 1.0)


def _dasharray(value: str, prop: str) -> tuple[float, ...]:
    dash = () if value == "none" else tuple(_numbers(value, prop))
    if any(d < 0 for d in dash):
        raise ValueError(f"{prop} must not be negative (got '{value}')")
    return dash if sum(dash) > 0 else ()  # all zeros means solid, as in SVG


def _font_family(value: str, prop: str) -> str:
    family = value.split(",")[0].strip().strip("'\"")
    if fonts.face_name(family) is None:
        raise ValueError(
            f"font family '{family}' is not available (use one of: {', '.join(fonts.families())})"
        )
    return family


def _font_weight(value: str, prop: str) -> bool:
    if value not in ("normal", "bold"):
        raise ValueError(f"font-weight must be normal or bold (got '{value}')")
    return value == "bold"


def _enum(choices: dict[str, T]) -> Callable[[str, str], T]:
    def parse(value: str, prop: str) -> T:
        if value not in choices:
            raise ValueError(f"bad value '{value}' for {prop} (use one of: {', '.join(choices)})")
        return choices[value]

    return parse


@workspace.memoized(512)
def _transform(value: str, prop: str = "transform") -> Matrix:
    """The matrix (a, b, c, d, e, f) of an SVG transform list."""
    matrix, pos, value = _IDENTITY, 0, value.strip()
    while pos < len(value):
        match = _TRANSFORM_RE.match(value, pos)
        args = _numbers(match.group(2), prop) if match else []
        if not match or len(args) not in _TRANSFORM_ARGC[match.group(1)]:
            raise ValueError(f"bad transform '{value}'")
        matrix = compose(matrix, _basic_matrix(match.group(1), args))
        pos = match.end()
    return matrix


def _basic_matrix(name: str, a: list[float]) -> Matrix:
    if name == "matrix":
        return cast(Matrix, tuple(a))
    if name == "translate":
        return (1, 0, 0, 1, a[0], a[1] if len(a) > 1 else 0)
    if name == "scale":
        return (a[0], 0, 0, a[-1], 0, 0)
    if name in ("skewX", "skewY"):
        t = math.tan(math.radians(a[0]))
        return (1, 0, t, 1, 0, 0) if name == "skewX" else (1, t, 0, 1, 0, 0)
    cos, sin = math.cos(math.radians(a[0])), math.sin(math.radians(a[0]))
    rotation = (cos, sin, -sin, cos, 0, 0)
    if len(a) == 1:
        return rotation
    return compose(compose((1, 0, 0, 1, a[1], a[2]), rotation), (1, 0, 0, 1, -a[1], -a[2]))


def compose(m: Matrix, n: Matrix) -> Matrix:
    """The matrix applying n first, then m (what canvas.transform(m); transform(n) does)."""
    a, b, c, d, e, f = m
    return (
        a * n[0] + c * n[1],
        b * n[0] + d * n[1],
        a * n[2] + c * n[3],
        b * n[2] + d * n[3],
        a * n[4] + c * n[5] + e,
        b * n[4] + d * n[5] + f,
    )


def apply(m: Matrix, p: tuple[float, float]) -> tuple[float, float]:
    """The point p = (x, y) moved by the matrix m."""
    return m[0] * p[0] + m[2] * p[1] + m[4], m[1] * p[0] + m[3] * p[1] + m[5]


_RULE = _enum({"nonzero": False, "evenodd": True})
# Inherited properties: parser and SVG initial value (parsed).
_PARSERS: Mapping[str, tuple[Callable[[str, str], Any], Any]] = MappingProxyType(
    {
        "fill": (_fill, (0.0, 0.0, 0.0)),
        "stroke": (_colour, None),
        "stroke-width": (_nonneg, 1.0),
        "stroke-linecap": (_enum({"butt": 0, "round": 1, "square": 2}), 0),
        "stroke-linejoin": (_enum({"miter": 0, "round": 1, "bevel": 2}), 0),
        "stroke-miterlimit": (lambda v, p: max(_nonneg(v, p), 1.0), 4.0),
        "stroke-dasharray": (_dasharray, ()),
        "stroke-dashoffset": (_number, 0.0),
        "fill-opacity": (_opacity, 1.0),
        "stroke-opacity": (_opacity, 1.0),
        "fill-rule": (_RULE, False),
        "clip-rule": (_RULE, False),
        "font-family": (_font_family, fonts.DEFAULT_FAMILY),
        "font-size": (_nonneg, 16.0),
        "font-weight": (_font_weight, False),
        "font-style": (_enum({"normal": False, "italic": True, "oblique": True}), False),
        "text-anchor": (
            _enum({"start": 0.0, "middle": 0.5, "end": 1.0}),
            0.0,
        ),  # share of the line width to shift left
        "direction": (
            _enum({"ltr": "ltr", "rtl": "rtl"}),
            "auto",
        ),  # auto: from the first strong character
        "visibility": (_enum({"visible": True, "hidden": False}), True),
    }
)
_DEFAULT_STYLE = {prop: initial for prop, (_, initial) in _PARSERS.items()} | {"alpha": 1.0}
_DISPLAY = _enum({"inline": True, "none": False})

_INHERITED = frozenset(_PARSERS)
_ALL_PROPS = _INHERITED | {"opacity", "display", "transform", "clip-path"}
_SHAPES = MappingProxyType(
    {
        "rect": {"x", "y", "width", "height", "rx", "ry"},
        "circle": {"cx", "cy", "r"},
        "ellipse": {"cx", "cy", "rx", "ry"},
        "line": {"x1", "y1", "x2", "y2"},
        "polyline": {"points"},
        "polygon": {"points"},
        "path": {"d"},
    }
)
_CLIP_SHAPES = frozenset({"rect", "circle", "ellipse", "path", "polygon"})
# tag -> (own attributes, presentation properties allowed as attributes or in style)
_ELEMENTS = MappingProxyType(
    {
        "svg": (
            {
                "x",
                "y",
                "width",
                "height",
                "viewBox",
                "preserveAspectRatio",
                "version",
                "baseProfile",
            },
            _ALL_PROPS,
        ),
        "g": (set(), _ALL_PROPS),
        "defs": (set(), set()),
        "use": ({"x", "y", "href"}, _ALL_PROPS),
        "text": ({"x", "y"}, _ALL_PROPS),
        "tspan": ({"x", "y", "dy"}, _INHERITED),
        "image": ({"x", "y", "width", "height", "href", "preserveAspectRatio"}, _ALL_PROPS),
        "clipPath": ({"clipPathUnits"}, {"transform", "clip-rule"}),
        "linearGradient": (
            {"x1", "y1", "x2", "y2", "gradientUnits", "gradientTransform", "spreadMethod", "href"},
            set(),
        ),
        "radialGradient": (
            {
                "cx",
                "cy",
                "r",
                "fx",
                "fy",
                "gradientUnits",
                "gradientTransform",
                "spreadMethod",
                "href",
            },
            set(),
        ),
        "stop": ({"offset"}, {"stop-color", "stop-opacity"}),
        **{tag: (geometry, _ALL_PROPS) for tag, geometry in _SHAPES.items()},
    }
)
_SKIPPED = frozenset({"title", "desc", "metadata"})


def _paint(st: Style) -> tuple[Fill | None, Stroke | None]:
    """(fill, stroke) tuples for _set_paint, or None for each part that paints nothing."""
    if not st["visibility"]:
        return None, None
    fill, stroke, alpha = st["fill"], st["stroke"], st["alpha"]
    fill_alpha, stroke_alpha, width = (
        st["fill-opacity"] * alpha,
        st["stroke-opacity"] * alpha,
        st["stroke-width"],
    )
    if (
        stroke and stroke_alpha > 0 and width > 0
    ):  # width 0 would be PDF's thinnest line, SVG draws nothing
        dash = st["stroke-dasharray"]
        cycle = sum(dash) * (2 if len(dash) % 2 else 1)
        offset = st["stroke-dashoffset"] % cycle if dash else 0  # PDF wants a non-negative phase
        r, g, b = stroke
        stroke = Stroke(
            r,
            g,
            b,
            stroke_alpha,
            width,
            st["stroke-linecap"],
            st["stroke-linejoin"],
            st["stroke-miterlimit"],
            dash,
            offset,
        )
    else:
        stroke = None
    painted = Fill(fill[0], fill[1], fill[2], fill_alpha) if fill and fill_alpha > 0 else None
    return painted, stroke


def _tag(el: El) -> str:
    tag = cast(str, el.tag)  # an element's (comments and PIs are never asked)
    if tag.startswith(_SVG):
        return tag[len(_SVG) :]
    qname = etree.QName(el)
    return (
        f"{el.prefix}:{qname.localname}"
        if el.prefix
        else f"{{{qname.namespace or ''}}}{qname.localname}"
    )


def _is_element(node: El) -> bool:
    return isinstance(node.tag, str)  # comments and processing instructions have callables here
