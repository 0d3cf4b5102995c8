"""What PDF vectors cannot express in an art file, drawn as an image by resvg.

A filter (a drop shadow, a blur), a mask that is not one flat shape, a pattern fill, a
gradient whose stops differ in opacity, a blend mode or a marker: the element carrying it is
rendered alone by resvg (a real SVG renderer, through resvg-py) at PRINT_DPI for the size the
art is drawn at, cropped to the pixels it paints, and put back in its place as an `<image>`
of PNG data, under the same ancestors (their transforms, clips and opacity still apply).

The SVG handed to resvg is built here from the parsed, already normalised file: the element,
the transforms and inherited properties of its ancestors, and the file's resources (`defs`,
gradients, filters, masks, patterns). Before resvg sees it, it is checked: SVG elements only,
no link but `#id` and PNG/JPEG `data:` images (so resvg never opens a file), no `url()` of
anything else, a bounded count of elements with each `<use>` expanded, bounded images and
bounded pixels.
"""

from __future__ import annotations

import base64
import copy
import io
import math
import re
from collections.abc import Iterator
from types import MappingProxyType

from lxml import etree

from pnpkit.errors import one_line
from pnpkit.svg import artgeometry as svggeom
from pnpkit.svg import css as svgcss
from pnpkit.typeset import fonts

SVG_NS = "http://www.w3.org/2000/svg"
SVG = "{" + SVG_NS + "}"
XLINK_NS = "http://www.w3.org/1999/xlink"
XLINK_HREF = "{" + XLINK_NS + "}href"
PRINT_DPI = 300
MM_PER_IN = 25.4
MAX_RASTER_PIXELS = 40_000_000  # one render of the art's box (a 42 cm square board at 300 dpi)
MAX_RASTERED = 32  # elements of one art file drawn as images
MAX_ELEMENTS = 50_000  # in one render, each <use> expanded
MAX_IMAGE_PIXELS = 50_000_000  # a data: image inside what resvg draws (svgdraw's bound)
MAX_BOX = 1e7  # the largest number of the art's box (svgdraw.MAX_NUMBER)
MAX_PARTS = 200  # parts of a group whose boxes _overlaps() compares pairwise
MAX_FILTER_WORK = 200_000_000  # pixel visits of one filter primitive (see _slow_filter)
Problems = list[tuple[int, str]]
Matrix = svggeom.Matrix

_RESOURCES = frozenset(
    {
        "linearGradient",
        "radialGradient",
        "pattern",
        "mask",
        "clipPath",
        "filter",
        "marker",
    }
)
_NOT_CANDIDATES = _RESOURCES | {"defs", "stop"}
# What resvg may be handed: SVG's drawing elements and filter primitives (no feImage).
_ALLOWED = _RESOURCES | {
    "svg",
    "g",
    "defs",
    "use",
    "rect",
    "circle",
    "ellipse",
    "line",
    "polyline",
    "polygon",
    "path",
    "text",
    "tspan",
    "image",
    "stop",
    "title",
    "desc",
    *(
        f"fe{name}"
        for name in (
            "Blend ColorMatrix ComponentTransfer Composite ConvolveMatrix DiffuseLighting "
            "DisplacementMap DistantLight DropShadow Flood FuncA FuncB FuncG FuncR GaussianBlur "
            "Merge MergeNode Morphology Offset PointLight SpecularLighting SpotLight Tile "
            "Turbulence"
        ).split()
    ),
}
_INHERITED = (
    "fill stroke stroke-width stroke-linecap stroke-linejoin stroke-miterlimit stroke-dasharray "
    "stroke-dashoffset fill-opacity stroke-opacity fill-rule clip-rule font-family font-size "
    "font-weight font-style text-anchor direction visibility"
).split()
_URL_RE = re.compile(r"url\(\s*['\"]?#([^'\")\s]+)")
_FILE_URL_RE = re.compile(r"url\(\s*['\"]?\s*(?!#)", re.I)
_HASH_RE = re.compile(r"#[\w.-]*")
_DATA_RE = re.compile(r"data:image/(png|jpeg);base64,(.*)", re.S)


def reason(el: etree._Element, found: dict[str, etree._Element]) -> str | None:
    """Why el must be drawn as an image, or None when the compiler draws it as vectors."""
    for name, what in (("filter", "a filter"), ("mask", "a mask")):
        if _prop(el, name, "none") != "none":
            return what
    if svgcss.fraction(_prop(el, "opacity", "1") or "1") < 1 and _overlaps(el):
        return "opacity over overlapping paint"
    if any(_prop(el, f"marker{end}", "none") != "none" for end in ("", "-start", "-mid", "-end")):
        return "markers"
    for paint in ("fill", "stroke"):
        match = _URL_RE.match(_prop(el, paint, "") or "")
        target = found.get(match.group(1)) if match else None
        kind = _tag(target)
        if kind == "pattern":
            return "a pattern"
        if kind in ("linearGradient", "radialGradient"):
            if paint == "stroke":
                return "a gradient stroke"
            if target is not None and _gradient_raster(target, found):
                return "a gradient with stops of differing opacity or a repeating spread"
    return None


def _overlaps(el: etree._Element) -> bool:
    """Whether el's paint overlaps itself, so that opacity folded into each part (what the
    compiler does) would show one part through another: a stroked fill, or two parts of a
    group whose boxes meet (anything but a plain shape counts as meeting everything)."""
    if _tag(el) in svggeom.BOXES:
        return _painted(el, "fill", "black") and _painted(el, "stroke", "none")
    boxes: list[svggeom.Box] = []
    for count, part in enumerate(el.iter(etree.Element)):
        if count > MAX_PARTS:
            return True  # too many to compare pairwise: assume they meet
        kind = _tag(part)
        if part is el or kind in ("g", "title", "desc"):
            continue
        box = svggeom.BOXES[kind](part, exact=False) if kind in svggeom.BOXES else None
        if box is None or (_painted(part, "fill", "black") and _painted(part, "stroke", "none")):
            return True  # a stroked fill overlaps itself, text or an image: assume the worst
        placed = svggeom.moved(box, _matrix_of(list(part.iterancestors())[::-1][1:] + [part]))
        if any(_meet(placed, other) for other in boxes):
            return True
        boxes.append(placed)
    return False


def _painted(el: etree._Element, paint: str, initial: str) -> bool:
    for node in [el, *el.iterancestors()]:
        value = _prop(node, paint, None)
        if value is not None and value != "inherit":
            return value != "none"
    return initial != "none"


def _meet(a: svggeom.Box, b: svggeom.Box) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _gradient_raster(gradient: etree._Element, found: dict[str, etree._Element]) -> bool:
    for node in svggeom.chain(gradient, found):
        if node.get("spreadMethod", "pad") != "pad":
            return True
        stops = [s for s in node if _tag(s) == "stop"]
        if stops:
            return any(svgcss.fraction(_prop(s, "stop-opacity", "1") or "1") < 1 for s in stops)
    return False


def planned(root: etree._Element) -> list[tuple[int, str]]:
    """(line, why) of each element replace() would draw as an image."""
    found = svggeom.ids(root)
    return [(el.sourceline or 0, why) for el, why in _candidates(root, found)]


def replace(root: etree._Element, size_mm: float) -> tuple[Problems, list[tuple[int, str]]]:
    """Draw each element that needs it as an image in its place; return the problems and,
    per element drawn so, (line, why)."""
    found = svggeom.ids(root)
    todo = list(_candidates(root, found))
    problems: Problems = []
    done: list[tuple[int, str]] = []
    if len(todo) > MAX_RASTERED:
        line = todo[MAX_RASTERED][0].sourceline or 0
        return [(line, f"more than {MAX_RASTERED} elements would be drawn as images")], done
    box = _viewbox(root)
    if box is None:
        return problems, done
    for el, why in todo:
        line = el.sourceline or 0
        doc, problem = _document(root, el, box, size_mm)
        problem = problem or _unsafe(doc)
        if problem:
            problems.append((line, f"cannot draw {why} as an image: {problem}"))
            continue
        try:
            png = _render(doc)
        except ValueError as exc:  # resvg's own limits (its count of nodes, say)
            problems.append((line, f"cannot draw {why} as an image: {one_line(str(exc), 200)}"))
            continue
        _put_image(el, png, box)
        done.append((line, why))
    _prune(root)
    return problems, done


def _candidates(
    root: etree._Element, found: dict[str, etree._Element]
) -> Iterator[tuple[etree._Element, str]]:
    """The outermost elements needing an image, in document order (none inside a resource:
    resvg draws those with the element that uses them)."""
    stack: list[etree._Element] = [root]
    while stack:
        el = stack.pop()
        for child in reversed(el):
            if not isinstance(child.tag, str) or _tag(child) in _NOT_CANDIDATES - {"defs"}:
                continue
            why = reason(child, found)
            if why:
                yield child, why
            else:
                stack.append(child)


def _viewbox(root: etree._Element) -> tuple[float, float, float, float] | None:
    """The art's box, or None for one the compiler refuses (it says where)."""
    numbers = [float(n) for n in svggeom.NUM_RE.findall(root.get("viewBox") or "")]
    if len(numbers) != 4:
        sizes = (svggeom.NUM_RE.match(root.get(n) or "") for n in ("width", "height"))
        numbers = [0.0, 0.0, *(float(m.group()) if m else 0.0 for m in sizes)]
    x, y, w, h = numbers
    if not (w > 0 and h > 0 and all(abs(n) <= MAX_BOX for n in numbers)):
        return None
    return x, y, w, h


def _document(
    root: etree._Element,
    el: etree._Element,
    box: tuple[float, float, float, float],
    size_mm: float,
) -> tuple[etree._Element, str | None]:
    """The SVG resvg draws for el: the art's box at PRINT_DPI, its resources, el in place."""
    vx, vy, vw, vh = box
    scale = size_mm / MM_PER_IN * PRINT_DPI / max(vw, vh)
    width, height = max(1, round(vw * scale)), max(1, round(vh * scale))
    if width * height > MAX_RASTER_PIXELS:
        shrink = math.sqrt(MAX_RASTER_PIXELS / (width * height))
        width, height = max(1, int(width * shrink)), max(1, int(height * shrink))
    doc = etree.Element(SVG + "svg", nsmap={None: SVG_NS, "xlink": XLINK_NS})
    doc.set("viewBox", f"{vx} {vy} {vw} {vh}")
    doc.set("width", str(width))
    doc.set("height", str(height))
    doc.set("preserveAspectRatio", "none")
    defs = etree.SubElement(doc, SVG + "defs")
    for node in _outermost_resources(root):
        defs.append(copy.deepcopy(node))
    holder = etree.SubElement(doc, SVG + "g")
    ancestors = list(el.iterancestors())[::-1][1:]  # from the root's child down to the parent
    transform = " ".join(filter(None, (_placement(a) for a in ancestors)))
    if transform:
        holder.set("transform", transform)
    for name in _INHERITED:
        for node in [root, *ancestors]:
            value = _prop(node, name, None)
            if value is not None and value != "inherit":
                holder.set(name, value)
    drawn = copy.deepcopy(el)
    drawn.attrib.pop("id", None)
    drawn.tail = None
    holder.append(drawn)
    return doc, None


def _outermost_resources(node: etree._Element) -> Iterator[etree._Element]:
    """Every <defs> and resource under node that no other one holds, in document order: each
    copied once, with what it holds (a <defs> nested k deep is not copied k times)."""
    for child in node.iterchildren(etree.Element):
        if _tag(child) == "defs" or _tag(child) in _RESOURCES:
            yield child
        else:
            yield from _outermost_resources(child)


def _placement(el: etree._Element) -> str:
    """The transform el applies to its children: a nested <svg>'s viewport, its transform."""
    parts = [_prop(el, "transform", "") or ""]
    if _tag(el) == "svg":
        x, y = (svggeom.number(el.get(n)) for n in ("x", "y"))
        x, y = (v if math.isfinite(v) else 0.0 for v in (x, y))  # the compiler reports it
        parts.append(f"translate({x},{y})")
        numbers = [float(n) for n in svggeom.NUM_RE.findall(el.get("viewBox") or "")]
        w, h = (svggeom.NUM_RE.match(el.get(n) or "") for n in ("width", "height"))
        if len(numbers) == 4 and w and h and numbers[2] > 0 and numbers[3] > 0:
            sx, sy = float(w.group()) / numbers[2], float(h.group()) / numbers[3]
            parts.append(f"matrix({sx},0,0,{sy},{-numbers[0] * sx},{-numbers[1] * sy})")
    return " ".join(p for p in parts if p)


def _unsafe(doc: etree._Element) -> str | None:
    """Why resvg must not be handed doc, or None: see the module docstring."""
    found = svggeom.ids(doc)
    for el in doc.iter():
        if not isinstance(el.tag, str):
            continue
        if etree.QName(el).namespace != SVG_NS or _tag(el) not in _ALLOWED:
            return f"it holds <{_tag(el)}>, which pnpkit does not hand to its renderer"
        for name, value in el.attrib.items():
            local = etree.QName(name).localname
            if local in ("href", "src") and not value.startswith("#"):
                problem = _data_image(value) if _tag(el) == "image" else "a link"
                if problem:
                    return f"{problem} ('{value[:40]}'): only #id and PNG/JPEG data: images"
            if _FILE_URL_RE.search(value) or local.startswith("on"):
                return f"attribute '{local}' is not allowed"
            if local not in ("href", "src", "id") and not _bounded(value):
                return f"a number of {local}='{value[:40]}' is not within {MAX_BOX:g} either way"
    slow = _slow_filter(doc)
    if slow:
        return slow
    if _count(doc, found, {}, set(), MAX_ELEMENTS) > MAX_ELEMENTS:
        return f"it has more than {MAX_ELEMENTS:,} elements once each <use> is expanded"
    return None


def _bounded(value: str) -> bool:
    """Whether every number in an attribute is finite and at most MAX_BOX either way, as the
    compiler has every number of what it draws itself."""
    numbers = svggeom.NUM_RE.findall(_HASH_RE.sub("", value))  # not #3e2723, url(#e5)
    return all(abs(float(n)) <= MAX_BOX for n in numbers)


def _slow_filter(doc: etree._Element) -> str | None:
    """Why a filter primitive would take too long to draw (resvg's morphology looks at every
    pixel of its radius for every pixel, turbulence works once per octave, a convolution once
    per kernel cell), or None. A morphology of radius 25 px over 300 x 300 px took 8 s."""
    pixels = int(doc.get("width", "1")) * int(doc.get("height", "1"))
    per_unit = int(doc.get("width", "1")) / float(doc.get("viewBox", "0 0 1 1").split()[2])
    for el in doc.iter(SVG + "feMorphology", SVG + "feTurbulence", SVG + "feConvolveMatrix"):
        kind = _tag(el)
        numbers = [abs(svggeom.number(n)) for n in svggeom.NUM_RE.findall(el.get(_WORK[kind], ""))]
        numbers = [n for n in numbers if math.isfinite(n)] or [_DEFAULT_WORK[kind]]
        if kind == "feMorphology":
            work = pixels * (2 * max(numbers) * per_unit + 1) ** 2
        elif kind == "feTurbulence":
            work = pixels * max(numbers)
        else:
            work = pixels * numbers[0] * numbers[-1]
        if not work <= MAX_FILTER_WORK:
            return f"its <{kind}> would take too long to draw at {PRINT_DPI} dpi"
    return None


_WORK = MappingProxyType(
    {"feMorphology": "radius", "feTurbulence": "numOctaves", "feConvolveMatrix": "order"}
)
_DEFAULT_WORK = MappingProxyType(
    {"feMorphology": 0.0, "feTurbulence": 1.0, "feConvolveMatrix": 3.0}
)


def _data_image(value: str) -> str | None:
    match = _DATA_RE.fullmatch(value)
    if not match:
        return "a file"
    from PIL import Image, UnidentifiedImageError

    try:
        data = base64.b64decode(re.sub(r"\s+", "", match.group(2)), validate=True)
        with Image.open(io.BytesIO(data), formats=["PNG", "JPEG"]) as image:
            w, h = image.size
    except (ValueError, OSError, UnidentifiedImageError):
        return "an unreadable image"
    return "too large an image" if w * h > MAX_IMAGE_PIXELS else None


def expanded_size(root: etree._Element, limit: int) -> int:
    """Elements the document stands for, each <use> counted as its target, up to limit + 1 (a
    cycle counts as too many): found without expanding anything, so a <use> bomb is refused at
    once rather than after drawing `limit` elements of it."""
    return _count(root, svggeom.ids(root), {}, set(), limit)


def _count(
    el: etree._Element,
    found: dict[str, etree._Element],
    memo: dict[str, int],
    open_: set[str],
    limit: int,
) -> int:
    """Elements el stands for, each <use> counted as its target, up to limit + 1 (a cycle counts
    as too many); a target's count is kept by its id (lxml's element objects are made afresh,
    so not by them)."""
    total = 1
    for child in el:
        if isinstance(child.tag, str):
            total = min(total + _count(child, found, memo, open_, limit), limit + 1)
    ref = _href(el)[1:] if _href(el).startswith("#") else ""
    if _tag(el) == "use" and ref in found:
        if ref in open_:
            return limit + 1
        if ref not in memo:
            open_.add(ref)
            memo[ref] = _count(found[ref], found, memo, open_, limit)
            open_.discard(ref)
        total = min(total + memo[ref], limit + 1)
    return total


def _render(doc: etree._Element) -> bytes:
    import resvg_py

    faces = [str(fonts.FONT_DIR / f) for f in fonts.FAMILIES[fonts.DEFAULT_FAMILY].values()]
    return resvg_py.svg_to_bytes(
        svg_string=etree.tostring(doc, encoding="unicode"),
        skip_system_fonts=True,
        font_files=faces,
        font_family=fonts.DEFAULT_FAMILY,
    )


def _put_image(el: etree._Element, png: bytes, box: tuple[float, float, float, float]) -> None:
    """el replaced by the painted part of its render (nothing if it paints nothing)."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        image.load()
        bounds = image.getchannel("A").getbbox()
        size = image.size
        cropped = image.crop(bounds) if bounds else None
    parent = el.getparent()
    assert parent is not None
    if cropped is None:
        parent.remove(el)
        return
    vx, vy, vw, vh = box
    sx, sy = vw / size[0], vh / size[1]
    left, top, right, bottom = bounds
    out = io.BytesIO()
    cropped.save(out, format="PNG")
    image_el = etree.Element(SVG + "image")
    svggeom.set_line(image_el, el.sourceline)
    inverse = svggeom.inverse(_matrix_of(list(el.iterancestors())[::-1][1:]))
    if inverse is None:  # a degenerate transform: the element covers nothing
        parent.remove(el)
        return
    if inverse != (1.0, 0.0, 0.0, 1.0, 0.0, 0.0):
        image_el.set("transform", "matrix({},{},{},{},{},{})".format(*inverse))
    image_el.set("x", f"{vx + left * sx:g}")
    image_el.set("y", f"{vy + top * sy:g}")
    image_el.set("width", f"{(right - left) * sx:g}")
    image_el.set("height", f"{(bottom - top) * sy:g}")
    image_el.set("preserveAspectRatio", "none")
    image_el.set("href", "data:image/png;base64," + base64.b64encode(out.getvalue()).decode())
    image_el.tail = el.tail
    parent.replace(el, image_el)


def _matrix_of(ancestors: list[etree._Element]) -> Matrix:
    """The matrix of the ancestors' placements (what _placement writes), outermost first."""
    matrix = svggeom.IDENTITY
    for el in ancestors:
        matrix = svggeom.compose(matrix, svggeom.parse(_placement(el)))
    return matrix


def _prune(root: etree._Element) -> None:
    """Remove what only the images needed: filters, masks, patterns, markers, and gradients
    no remaining element paints with (their stop opacities are the compiler's problem only
    when something still draws with them)."""
    used = set()
    for el in root.iter(etree.Element):
        for name in ("fill", "stroke"):
            match = _URL_RE.match(_prop(el, name, "") or "")
            if match:
                used.add(match.group(1))
        ref = _href(el)
        if ref.startswith("#"):
            used.add(ref[1:])
    for el in list(root.iter(etree.Element)):
        kind = _tag(el)
        unused_gradient = kind in ("linearGradient", "radialGradient") and el.get("id") not in used
        if kind in ("filter", "mask", "pattern", "marker") or unused_gradient:
            parent = el.getparent()
            if parent is not None:
                parent.remove(el)


def _prop(el: etree._Element, name: str, default: str | None) -> str | None:
    return svgcss.style_of(el).get(name, el.get(name, default))


def _href(el: etree._Element) -> str:
    return el.get("href") or el.get(XLINK_HREF) or ""


def _tag(el: etree._Element | None) -> str:
    return etree.QName(el).localname if el is not None and isinstance(el.tag, str) else ""
