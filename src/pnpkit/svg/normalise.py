"""An art file as a design tool saved it, made into what the compiler (svgdraw) reads.

Runs on the parsed art file before it is compiled, in this order:
0. (before parsing is done: svgdraw) SVG 1.0/1.1's own DOCTYPE is allowed (plain_doctype);
1. what the editors keep for themselves goes: elements and attributes of other namespaces
   (sodipodi:, inkscape:, serif:, Illustrator's i:), `xml:space`, `enable-background`;
2. the CSS cascade is resolved into each element's `style` (css.py);
3. values are made plain (px lengths, numeric weights, rgba(), currentColor, declarations that
   draw nothing different such as `isolation:isolate`);
4. `<use>` of a `<symbol>` becomes the symbol's content in a nested viewport;
5. what PDF vectors can still express is rewritten as vectors: a gradient taking its stops
   from another gets its own, a gradient whose stops share one stop-opacity (into the shape's
   fill-opacity), a mask of shapes in one flat colour (a clip path and an opacity), a pattern
   fill (its tiles under the shape as a clip, pattern.py);
6. what they cannot (filters, other masks, patterns, stops of differing opacity, blend
   modes, markers) is drawn as an image by resvg (raster.py).
Every step keeps each element's source line, so the compiler's problems still point into the
file as the designer saved it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from types import MappingProxyType

from lxml import etree

from pnpkit.svg import artgeometry as svggeom
from pnpkit.svg import css as svgcss
from pnpkit.svg import pattern as svgpattern
from pnpkit.svg import raster as svgraster

SVG_NS = "http://www.w3.org/2000/svg"
SVG = "{" + SVG_NS + "}"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_DROP_ATTRS = frozenset({"enable-background", "{http://www.w3.org/XML/1998/namespace}space"})
_GEOMETRY = frozenset(
    {"x", "y", "width", "height", "rx", "ry", "cx", "cy", "r", "x1", "y1", "x2", "y2"}
)
# Presentation attributes made plain as their style declarations are (svgcss.plain_value).
_PRESENTATION = set(svgcss.NEUTRAL) | {
    "mask-type",
    "fill",
    "stroke",
    "stop-color",
    "stroke-width",
    "font-size",
    "font-weight",
    "font-family",
    "stroke-dashoffset",
}
MAX_COPIED = 50_000  # elements <use> of <symbol> may copy (svgdraw.MAX_ELEMENTS alike)
Problems = list[tuple[int, str]]


@dataclass
class Normalised:
    problems: Problems = field(default_factory=list)
    rastered: list[tuple[int, str]] = field(default_factory=list)  # (line, why) drawn as image


def needs_work(data: bytes) -> bool:
    """Whether an art file may need more than the compiler reads (a cheap look at its bytes:
    the shipped kits' icons need none, and skip the normalising step)."""
    return any(
        word in data
        for word in (
            b"<style",
            b"style=",
            b"class=",
            b"xmlns:",
            b"symbol",
            b"mask",
            b"filter",
            b"pattern",
            b"opacity",
            b"px",
            b"xml:space",
            b"currentColor",
            b"enable-background",
            b"mix-blend-mode",
        )
    )


_RASTER_WORDS = (
    b"filter",
    b"mask",
    b"pattern",
    b"opacity",  # stop-opacity, and opacity over overlapping paint
    b"marker",
    b"spreadMethod",
    b"stroke:url",
    b'stroke="url',
)
DEFAULT_SIZE_MM = 100.0  # an art file drawn where its size is not known


_SVG_DOCTYPES = frozenset(
    {
        "-//W3C//DTD SVG 1.0//EN",
        "-//W3C//DTD SVG 1.1//EN",
        "-//W3C//DTD SVG 1.1 Basic//EN",
        "-//W3C//DTD SVG 1.1 Tiny//EN",
    }
)


def plain_doctype(data: bytes, public_id: str | None) -> bool:
    """Whether the art file's DOCTYPE is only SVG's own public one, as Affinity and older
    Illustrator write it: no internal subset, so no entity is declared (and the DTD it names
    is never loaded: the parser reads no DTD and has no network)."""
    start = data.find(b"<!DOCTYPE")
    end = data.find(b">", start)
    return public_id in _SVG_DOCTYPES and start >= 0 and b"[" not in data[start:end]


def may_raster(data: bytes) -> bool:
    """Whether anything of the art file may be drawn as an image (then its size matters)."""
    return any(word in data for word in _RASTER_WORDS)


def normalise(root: etree._Element, size_mm: float) -> Normalised:
    """Rewrite root in place (see the module docstring); size_mm: the largest side the art is
    drawn at, for the resolution of what is drawn as an image."""
    done = Normalised(_vector_steps(root))
    problems, rastered = svgraster.replace(root, size_mm if size_mm > 0 else DEFAULT_SIZE_MM)
    done.problems += problems
    done.rastered = rastered
    return done


def _vector_steps(root: etree._Element) -> Problems:
    """Steps 1 to 5 of the module docstring; their problems."""
    _strip_editor(root)
    problems = svgcss.resolve(root)
    _plain_attributes(root)
    problems += _expand_symbols(root)
    _inline_gradient_hrefs(root)
    _fold_stop_opacity(root)
    _masks_as_clips(root)
    svgpattern.tile_patterns(root)
    return problems


def image_note(data: bytes) -> tuple[int, str] | None:
    """(line, message) of the build's note for an art file some of which is drawn as an
    image, or None: one note per file, at its first such element."""
    return _image_note(data) if may_raster(data) else None


def _image_note(data: bytes) -> tuple[int, str] | None:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError:
        return None  # the compile reports it
    _vector_steps(root)
    parts = svgraster.planned(root)
    if not parts:
        return None
    listed = ", ".join(f"{why} (line {line})" for line, why in parts[:5])
    more = f" and {len(parts) - 5} more" if len(parts) > 5 else ""
    return parts[0][0], (
        f"drawn partly as an image at {svgraster.PRINT_DPI} dpi, as PDF vectors cannot "
        f"express {listed}{more}; the rest is vectors"
    )


# The namespaces design tools keep their own settings in (never drawn by any renderer);
# anything of another namespace stays, for the compiler to refuse.
_EDITORS = (
    "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd",
    "http://www.inkscape.org/namespaces/inkscape",
    "http://www.serif.com/",
    "http://ns.adobe.com/",
    "http://www.bohemiancoding.com/sketch/ns",
    "http://www.figma.com/figma/ns",
)


def _editor(namespace: str | None) -> bool:
    return namespace is not None and namespace.startswith(_EDITORS)


def _strip_editor(root: etree._Element) -> None:
    for el in list(root.iter()):
        if not isinstance(el.tag, str):
            continue
        if _editor(etree.QName(el).namespace):
            parent = el.getparent()
            if parent is not None:
                parent.remove(el)
            continue
        for name in list(el.attrib):
            if name in _DROP_ATTRS or _editor(etree.QName(name).namespace):
                del el.attrib[name]


def _plain_attributes(root: etree._Element) -> None:
    for el in root.iter(etree.Element):
        for name in [n for n in el.attrib if n in _PRESENTATION]:
            plain = svgcss.plain_value(el, name, el.attrib[name])
            del el.attrib[name]
            for key, value in (plain or {}).items():
                if key not in svgcss.style_of(el):  # style wins over attributes
                    el.set(key, value)
        for name in _GEOMETRY & set(el.attrib):
            value = el.attrib[name].strip()
            if value.endswith("px"):
                el.set(name, value[:-2])
    for el in root.iter(etree.Element):  # read by currentColor above; not drawn itself
        el.attrib.pop("color", None)
        style = svgcss.style_of(el)
        if "color" in style:
            del style["color"]
            _set_style(el, style)


def _set_style(el: etree._Element, style: dict[str, str]) -> None:
    if style:
        el.set("style", ";".join(f"{k}:{v}" for k, v in style.items()))
    else:
        el.attrib.pop("style", None)


def prop(el: etree._Element, name: str, default: str | None = None) -> str | None:
    """A presentation property of el itself: its style declaration, else its attribute."""
    return svgcss.style_of(el).get(name, el.get(name, default))


def href(el: etree._Element) -> str:
    return el.get("href") or el.get(XLINK_HREF) or ""


def _expand_symbols(root: etree._Element) -> Problems:
    """Each <use> of a <symbol>: a <g> at the use's place holding a copy of the symbol's
    content in a nested <svg> viewport (what SVG says a symbol is when used)."""
    problems: Problems = []
    copied = 0
    for _ in range(8):  # symbols using symbols: a few rounds, each copy bounded
        found = svggeom.ids(root)
        uses = [
            u
            for u in root.iter(SVG + "use")
            if href(u).startswith("#") and _tag(found.get(href(u)[1:])) == "symbol"
        ]
        if not uses:
            break
        for use in uses:
            symbol = found[href(use)[1:]]
            copied += sum(1 for _ in symbol.iter())
            if copied > MAX_COPIED:
                problems.append((use.sourceline or 0, "<use> of <symbol> copies too much"))
                return problems
            _replace_use(use, symbol)
    for symbol in list(root.iter(SVG + "symbol")):
        parent = symbol.getparent()
        if parent is not None:
            parent.remove(symbol)
    return problems


def _tag(el: etree._Element | None) -> str:
    return etree.QName(el).localname if el is not None and isinstance(el.tag, str) else ""


def _replace_use(use: etree._Element, symbol: etree._Element) -> None:
    x, y = use.get("x", "0"), use.get("y", "0")
    group = etree.Element(SVG + "g")
    svggeom.set_line(group, use.sourceline)
    for name, value in use.attrib.items():
        if name not in ("x", "y", "width", "height", "href", XLINK_HREF, "id"):
            group.set(name, value)
    transform = f"{group.get('transform', '')} translate({x},{y})".strip()
    group.set("transform", transform)
    viewport = etree.SubElement(group, SVG + "svg")
    svggeom.set_line(viewport, symbol.sourceline)
    w = use.get("width") or symbol.get("width") or "100%"
    h = use.get("height") or symbol.get("height") or "100%"
    box = symbol.get("viewBox")
    if box and not (w.endswith("%") or h.endswith("%")):
        viewport.set("width", w)
        viewport.set("height", h)
        viewport.set("viewBox", box)
        viewport.set("preserveAspectRatio", _aspect(box, w, h))
        holder = viewport
    else:  # no viewport size: the content at its own coordinates (a <g>)
        holder = group
        group.remove(viewport)
    for child in symbol:
        clone = copy.deepcopy(child)
        for node in clone.iter(etree.Element):
            node.attrib.pop("id", None)  # ids stay unique: the original is the symbol's
        holder.append(clone)
    use.addprevious(group)
    group.tail, use.tail = use.tail, None
    use.getparent().remove(use)  # type: ignore[union-attr]


def _aspect(box: str, w: str, h: str) -> str:
    """'none' when the viewBox and the viewport have one shape (the compiler stretches), else
    the symbol is letterboxed as SVG would: left to the browser's default, which pnpkit's
    compiler asks to be explicit about."""
    try:
        _, _, vw, vh = (float(v) for v in box.replace(",", " ").split())
        same = abs(vw / vh - float(w) / float(h)) < 1e-6
    except (ValueError, ZeroDivisionError):
        same = True
    return "none" if same else "xMidYMid meet"


def _stops(gradient: etree._Element, found: dict[str, etree._Element]) -> list[etree._Element]:
    """The stops of a gradient, through its href chain (Illustrator shares stops this way)."""
    for node in svggeom.chain(gradient, found):
        stops = [child for child in node if _tag(child) == "stop"]
        if stops:
            return stops
    return []


_GRADIENT_ATTRS = MappingProxyType(
    {
        "linearGradient": ("x1", "y1", "x2", "y2"),
        "radialGradient": ("cx", "cy", "r", "fx", "fy"),
    }
)
_SHARED_ATTRS = ("gradientUnits", "gradientTransform", "spreadMethod")


def _inline_gradient_hrefs(root: etree._Element) -> None:
    """A gradient taking its stops and attributes from another (Inkscape's and Illustrator's
    way) gets its own copies, as SVG defines the inheritance; the href goes."""
    found = svggeom.ids(root)
    for el in list(root.iter(SVG + "linearGradient", SVG + "radialGradient")):
        for source in svggeom.chain(el, found)[1:]:
            names = _SHARED_ATTRS + (_GRADIENT_ATTRS[_tag(el)] if _tag(source) == _tag(el) else ())
            for name in names:
                if el.get(name) is None and source.get(name) is not None:
                    el.set(name, source.get(name))  # type: ignore[arg-type]
            if not any(_tag(child) == "stop" for child in el):
                for stop in source:
                    if _tag(stop) == "stop":
                        clone = copy.deepcopy(stop)
                        clone.attrib.pop("id", None)
                        el.append(clone)
    for el in root.iter(SVG + "linearGradient", SVG + "radialGradient"):
        el.attrib.pop("href", None)
        el.attrib.pop(XLINK_HREF, None)


def _fold_stop_opacity(root: etree._Element) -> None:
    """Stops sharing one stop-opacity: it moves into each user's fill-opacity (vectors)."""
    found = svggeom.ids(root)
    uniform: dict[str, float] = {}
    for ident, el in found.items():
        if _tag(el) in ("linearGradient", "radialGradient"):
            alphas = {_opacity(prop(s, "stop-opacity", "1")) for s in _stops(el, found)}
            if len(alphas) == 1 and (alpha := alphas.pop()) < 1:
                uniform[ident] = alpha
    if not uniform:
        return
    for el in root.iter(etree.Element):
        fill = (prop(el, "fill") or "").strip()
        ident = fill[5:-1].strip("'\"") if fill.startswith("url(#") and fill.endswith(")") else ""
        if ident in uniform:
            own = _opacity(prop(el, "fill-opacity", "1"))
            _set_prop(el, "fill-opacity", f"{own * uniform[ident]:g}")
    for ident in uniform:
        for stop in _stops(found[ident], found):
            _set_prop(stop, "stop-opacity", "1")


def _opacity(text: str | None) -> float:
    return svgcss.fraction(text or "1")


def _set_prop(el: etree._Element, name: str, value: str) -> None:
    style = svgcss.style_of(el)
    if name in style:
        style[name] = value
        _set_style(el, style)
    else:
        el.set(name, value)


_SHAPES = frozenset({"rect", "circle", "ellipse", "path", "polygon"})


def _masks_as_clips(root: etree._Element) -> None:
    """A mask of plain shapes all in one flat colour without stroke is a clip path, with the
    colour's luminance (or for mask-type alpha its opacity) as the element's opacity; a mask
    region in user space is a second clip around it. The element's transform moves to the
    group, as the mask is in the element's own user space."""
    found = svggeom.ids(root)
    made: dict[str, list[etree._Element] | None] = {}
    for el in list(root.iter(etree.Element)):
        value = (prop(el, "mask") or "").strip()
        ident = value[5:-1].strip("'\"") if value.startswith("url(#") else ""
        mask = found.get(ident)
        if mask is None:
            continue
        if ident not in made:
            made[ident] = _mask_clips(mask)
        clips = made[ident]
        if clips is None:
            continue
        _drop_prop(el, "mask")
        for clip in clips:
            group = etree.Element(SVG + "g", {"clip-path": f"url(#{clip.get('id')})"})
            svggeom.set_line(group, el.sourceline)
            strength = clip.get("data-strength")
            if strength:
                group.set("opacity", strength)
            _move_transform(el, group)
            el.addprevious(group)
            group.tail, el.tail = el.tail, None
            group.append(el)
            el = group
    for clips in made.values():
        for clip in clips or ():
            clip.attrib.pop("data-strength", None)


def _mask_clips(mask: etree._Element) -> list[etree._Element] | None:
    """The <clipPath>s standing for the mask, put beside it: its shapes (the strength of their
    colour as data-strength), then its region if it is given in user space; None when the
    mask is more than that."""
    found = _mask_clip(mask)
    if found is None:
        return None
    shapes, strength = found
    if strength < 1:
        shapes.set("data-strength", f"{strength:g}")
    clips = [shapes]
    region = [mask.get(n) for n in ("x", "y", "width", "height")]
    if mask.get("maskUnits") == "userSpaceOnUse" and all(region):
        box = etree.Element(SVG + "clipPath", {"id": f"{mask.get('id')}--region"})
        rect = etree.SubElement(box, SVG + "rect")
        for name, value in zip(("x", "y", "width", "height"), region, strict=True):
            rect.set(name, value or "0")
        svggeom.set_line(box, mask.sourceline)
        svggeom.set_line(rect, mask.sourceline)
        clips.append(box)
    for clip in clips:
        mask.addnext(clip)
    return clips


def _move_transform(el: etree._Element, group: etree._Element) -> None:
    transform = prop(el, "transform")
    if transform:
        group.set("transform", transform)
        _drop_prop(el, "transform")


def _drop_prop(el: etree._Element, name: str) -> None:
    el.attrib.pop(name, None)
    style = svgcss.style_of(el)
    if style.pop(name, None) is not None:
        _set_style(el, style)


def _mask_clip(mask: etree._Element) -> tuple[etree._Element, float] | None:
    """(a <clipPath> of the mask's shapes, the strength of its one colour), or None when the
    mask is more than that (then raster.py draws it as an image)."""
    units = mask.get("maskContentUnits", "userSpaceOnUse")
    shapes = [child for child in mask if isinstance(child.tag, str)]
    if units != "userSpaceOnUse" or not shapes or any(_tag(s) not in _SHAPES for s in shapes):
        return None
    alpha_mask = (prop(mask, "mask-type") or "luminance") == "alpha"
    paints = set()
    for shape in shapes:
        stroke = prop(shape, "stroke", "none")
        if stroke not in (None, "none") or prop(shape, "opacity", "1") != "1":
            return None
        paints.add((prop(shape, "fill", "black"), prop(shape, "fill-opacity", "1")))
    if len(paints) != 1:
        return None
    fill, opacity = paints.pop()
    strength = _strength(fill or "black", alpha_mask)
    if strength is None:
        return None
    clip = etree.Element(SVG + "clipPath", {"id": f"{mask.get('id')}--clip"})
    svggeom.set_line(clip, mask.sourceline)
    for shape in shapes:
        copied = etree.SubElement(clip, shape.tag)
        svggeom.set_line(copied, shape.sourceline)
        for name in ("d", "x", "y", "width", "height", "rx", "ry", "cx", "cy", "r", "points"):
            if shape.get(name) is not None:
                copied.set(name, shape.get(name))  # type: ignore[arg-type]
        if prop(shape, "transform"):
            copied.set("transform", prop(shape, "transform"))  # type: ignore[arg-type]
    return clip, strength * _opacity(opacity)


def _strength(fill: str, alpha_mask: bool) -> float | None:
    """How much a mask of this flat fill lets through: 1 for any colour under mask-type
    alpha, else the colour's luminance (grey levels only: a coloured luminance mask is drawn
    as an image)."""
    if fill.startswith("url("):
        return None
    if alpha_mask:
        return 0.0 if fill == "none" else 1.0
    named = {"white": "#ffffff", "black": "#000000", "none": "#000000"}
    text = named.get(fill.lower(), fill.lower())
    if text.startswith("#") and len(text) == 4:
        text = "#" + "".join(c * 2 for c in text[1:])
    if len(text) != 7 or not text.startswith("#") or len({text[1:3], text[3:5], text[5:7]}) != 1:
        return None
    try:
        return int(text[1:3], 16) / 255
    except ValueError:
        return None
