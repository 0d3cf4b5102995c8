"""A `<pattern>` fill as vectors: the shape as a clip path, the pattern's tile repeated under it.

PDF has tiling patterns, but ReportLab's public API has none; what a pattern draws is the same
as its tile's content drawn once per tile position, each clipped to its tile (a nested
`<svg>` viewport) and all clipped to the shape. So a shape filled with a pattern becomes:

    <g transform="(the shape's)"><clipPath id="…"><(the shape's geometry)/></clipPath>
      <g clip-path="url(#…)" opacity="(fill-opacity)"><g transform="(patternTransform)">
        <svg x y width height><use href="#(the tile's content)"/></svg> … one per tile
      </g></g>
      <(the shape, unfilled, for its stroke)/>
    </g>

for shapes whose box is known exactly (rect, circle, ellipse, and for a pattern in user
space any path or polygon, bounded by its points), up to MAX_TILES tiles; anything else is
left for raster.py, which draws it as an image.
"""

from __future__ import annotations

import copy
import math
import re

from lxml import etree

from pnpkit.svg import artgeometry as svggeom
from pnpkit.svg import css as svgcss
from pnpkit.svg import raster as svgraster

SVG = "{http://www.w3.org/2000/svg}"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
SEAM = 0.01  # of a tile's side: see _replace
MAX_TILES = 2_000  # per shape; each a <use> the compiler counts towards its element budget
MAX_TILES_TOTAL = 20_000  # per art file; past it, patterns are left for raster.py
Box = svggeom.Box
_URL_RE = re.compile(r"\s*url\(\s*['\"]?#([^'\")\s]+)['\"]?\s*\)")
_GEOMETRY = ("d", "x", "y", "width", "height", "rx", "ry", "cx", "cy", "r", "points")


def tile_patterns(root: etree._Element) -> None:
    """Rewrite every shape filled with a pattern that vectors can draw (module docstring)."""
    found = svggeom.ids(root)
    count = total = 0
    for el in list(root.iter(etree.Element)):
        match = _URL_RE.fullmatch(_prop(el, "fill") or "")
        pattern = found.get(match.group(1)) if match else None
        if pattern is None or _tag(pattern) != "pattern" or _tag(el) not in svggeom.BOXES:
            continue
        if svgraster.reason(el, found) != "a pattern" or _url(_prop(el, "stroke")):
            continue  # something else needs an image anyway (or a pattern stroke)
        attrs, content = _resolved(pattern, found)
        tiles = _tiles(el, attrs)
        if tiles is not None and content and total + len(tiles) <= MAX_TILES_TOTAL:
            total += len(tiles)
            count += 1
            _replace(el, attrs, content, tiles, f"{pattern.get('id')}--tile{count}")


def _url(value: str | None) -> bool:
    return bool(value and value.strip().startswith("url("))


def _resolved(
    pattern: etree._Element, found: dict[str, etree._Element]
) -> tuple[dict[str, str], list[etree._Element]]:
    """The pattern's attributes and content, through its href chain (Inkscape's way)."""
    attrs: dict[str, str] = {}
    content: list[etree._Element] = []
    for node in svggeom.chain(pattern, found):
        for name, value in node.attrib.items():
            attrs.setdefault(name, value)
        if not content:
            content = [child for child in node if isinstance(child.tag, str)]
    return attrs, content


def _tiles(el: etree._Element, attrs: dict[str, str]) -> list[Box] | None:
    """The tiles covering the shape, in pattern space; None when vectors cannot do it."""
    bbox_units = attrs.get("patternUnits", "objectBoundingBox") == "objectBoundingBox"
    box = svggeom.BOXES[_tag(el)](el, exact=bbox_units or _content_bbox(attrs))
    if box is None or attrs.get("viewBox"):
        return None
    bx, by, bw, bh = box
    x, y, w, h = (svggeom.number(attrs.get(n, "0")) for n in ("x", "y", "width", "height"))
    if bbox_units:
        x, y, w, h = bx + x * bw, by + y * bh, w * bw, h * bh
    matrix = svggeom.parse(attrs.get("patternTransform", ""))
    inverse = svggeom.inverse(matrix)
    if not (w > 0 and h > 0) or inverse is None or not all(map(math.isfinite, (x, y, w, h))):
        return None
    left, top, wide, high = svggeom.moved(box, inverse)  # the shape's box in pattern space
    if not all(map(math.isfinite, (left, top, wide, high))):
        return None  # a number the compiler refuses (it says where)
    i0, i1 = math.floor((left - x) / w), math.ceil((left + wide - x) / w)
    j0, j1 = math.floor((top - y) / h), math.ceil((top + high - y) / h)
    if (i1 - i0) * (j1 - j0) > MAX_TILES:
        return None
    return [(x + i * w, y + j * h, w, h) for i in range(i0, i1) for j in range(j0, j1)]


def _content_bbox(attrs: dict[str, str]) -> bool:
    return attrs.get("patternContentUnits", "userSpaceOnUse") == "objectBoundingBox"


def _replace(
    el: etree._Element,
    attrs: dict[str, str],
    content: list[etree._Element],
    tiles: list[Box],
    ident: str,
) -> None:
    line = el.sourceline
    outer = _element("g", line)
    if _prop(el, "transform"):
        outer.set("transform", _prop(el, "transform") or "")
    clip = etree.SubElement(outer, SVG + "clipPath", {"id": f"{ident}-clip"})
    shape = etree.SubElement(clip, el.tag)
    for name in _GEOMETRY:
        if el.get(name) is not None:
            shape.set(name, el.get(name) or "")
    rule = _prop(el, "fill-rule")
    if rule:
        shape.set("clip-rule", rule)
    defs = etree.SubElement(outer, SVG + "defs")
    body = etree.SubElement(defs, SVG + "g", {"id": ident})
    for child in content:
        clone = copy.deepcopy(child)
        for node in clone.iter(etree.Element):
            node.attrib.pop("id", None)
        body.append(clone)
    painted = etree.SubElement(outer, SVG + "g", {"clip-path": f"url(#{ident}-clip)"})
    alpha = svgcss.fraction(_prop(el, "fill-opacity") or "1")
    if alpha < 1:
        painted.set("opacity", f"{alpha:g}")
    placed = etree.SubElement(painted, SVG + "g")
    if attrs.get("patternTransform"):
        placed.set("transform", attrs["patternTransform"])
    scale = _content_scale(el, attrs)
    for x, y, w, h in tiles:
        # Each tile's viewport reaches a hair (SEAM) into its neighbours: tiles clipped edge to
        # edge leave a faint line where the two anti-aliased clips meet.
        e = SEAM * min(w, h)
        viewport = etree.SubElement(placed, SVG + "svg", {"x": f"{x - e:g}", "y": f"{y - e:g}"})
        viewport.set("width", f"{w + 2 * e:g}")
        viewport.set("height", f"{h + 2 * e:g}")
        use = etree.SubElement(viewport, SVG + "use", {"href": f"#{ident}"})
        use.set("transform", f"translate({e:g},{e:g}) {scale}".strip())
    stroke = copy.deepcopy(el)
    stroke.attrib.pop("id", None)
    stroke.attrib.pop("transform", None)
    _set(stroke, "fill", "none")
    outer.append(stroke)
    for node in outer.iter(etree.Element):
        svggeom.set_line(node, line)
    outer.tail, el.tail = el.tail, None
    el.getparent().replace(el, outer)  # type: ignore[union-attr]


def _content_scale(el: etree._Element, attrs: dict[str, str]) -> str:
    if not _content_bbox(attrs):
        return ""
    box = svggeom.BOXES[_tag(el)](el, exact=True)
    assert box is not None  # _tiles() found it
    return f"scale({box[2]:g},{box[3]:g})"


def _element(tag: str, line: int | None) -> etree._Element:
    el = etree.Element(SVG + tag)
    svggeom.set_line(el, line)
    return el


def _set(el: etree._Element, name: str, value: str) -> None:
    style = svgcss.style_of(el)
    if name in style:
        style[name] = value
        el.set("style", ";".join(f"{k}:{v}" for k, v in style.items()))
    else:
        el.set(name, value)


def _prop(el: etree._Element, name: str) -> str | None:
    return svgcss.style_of(el).get(name, el.get(name))


def _tag(el: etree._Element | None) -> str:
    return etree.QName(el).localname if el is not None and isinstance(el.tag, str) else ""
