"""Draw a documented SVG subset straight onto a ReportLab canvas.

svglib is too slow for hundreds of cards and silently drops what it does not
understand. Here an SVG is parsed strictly and compiled once into plain tuples
(picklable, no lxml objects); `Drawing.draw` replays them cheaply. Anything
outside the subset is a problem located by SVG line, and all problems of a
document are raised together in one `SvgError`.

Subset: root `<svg>` with width/height in mm and a viewBox (always stretched;
if its aspect ratio differs from width/height, preserveAspectRatio="none" is
required); `g`, `defs`, `use`, nested `svg` (x y width height viewBox), `rect`,
`circle`, `ellipse`, `line`, `polyline`, `polygon`, `path`, `text`/`tspan`,
`image` (PNG/JPEG), `clipPath`; `title`/`desc`/`metadata` are not drawn. Lengths
are plain numbers in user units. Presentation properties may be attributes or
`style` declarations; see `_PARSERS` for the inherited ones.

What is not drawn is checked all the same: `display="none"` content is compiled
and dropped, and every element the compiler did not read (inside `metadata`,
`title`, `desc` or an unsupported element) is searched for what would load or
run something in a browser (_unchecked). DOCTYPEs, so DTDs and entities, and
processing instructions are refused.

Deliberate differences from a browser:
- `opacity` on `g`/`use`/`svg` is multiplied into each descendant's fill and
  stroke alpha instead of compositing the group as one layer, so overlapping
  children show through each other.
- A clipPath's children are combined into one path under its clip-rule; under
  nonzero, overlapping children of opposite winding cancel rather than unite.
- The root and nested `svg` clip to their viewport, as browsers do.
- Text is shaped with HarfBuzz (kerning, ligatures, joining) and each line is
  reordered with the Unicode bidi algorithm (shaping.py); without a
  `direction` attribute a line takes its direction from its first strong
  character (a browser would assume ltr), and in a right-to-left line
  text-anchor start is the right end. Inline `tspan`s (no x/y/dy) change font
  or paint mid-line and are measured with their own font. Whitespace
  collapses to single spaces, trimmed per line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lxml import etree

from pnpkit.errors import MAX_QUOTED, one_line
from pnpkit.svg.drawing import Drawing
from pnpkit.svg.images import image_source
from pnpkit.svg.ops import El, Resolver, Restore, Save, SvgError, Transform
from pnpkit.svg.structure import document
from pnpkit.svg.values import _tag
from pnpkit.svg.walker import Compiler, _fresh_memos

MAX_REACH = 1e16  # mm from the face's origin; ReportLab cannot write a PDF number of 1e21
# no op holds a larger number: each is at most MAX_NUMBER, a clip's transformed by one more
_OP_MAX = 1e15


def _too_far(drawing: Drawing) -> str | None:
    """Each number is bounded, but scales multiply: scale(1e7) inside scale(1e7), or a viewBox
    1e-9 wide, would put points where the PDF cannot reach. Follows the ops' transforms with a
    bound on how far they can carry a point (in mm), and says why when it is too far."""
    w, h = drawing.viewbox[2:]
    scale = max(drawing.width_mm / w, drawing.height_mm / h)
    shift = scale * max(abs(drawing.viewbox[0]), abs(drawing.viewbox[1]))
    saved: list[tuple[float, float]] = []
    for op in drawing.ops:
        if isinstance(op, Save):
            saved.append((scale, shift))
        elif isinstance(op, Restore):
            scale, shift = saved.pop()
        elif isinstance(op, Transform):
            a, b, c, d, e, f = op.matrix
            shift += scale * max(abs(e), abs(f))
            scale *= max(abs(a) + abs(c), abs(b) + abs(d))
        if (
            scale * _OP_MAX + shift > MAX_REACH and scale * _largest(op) + shift > MAX_REACH
        ):  # the scan only when it could fail
            return (
                f"the drawing reaches more than {MAX_REACH:g}mm from the "
                "face (transforms or a viewBox that scale it up that far)"
            )
    return None


def _largest(values: Iterable[object]) -> float:
    """The largest magnitude among the numbers in an op's arguments (nested tuples included)."""
    best = 0.0
    for v in values:
        if isinstance(v, (tuple, list)):
            best = max(best, _largest(v))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            best = max(best, abs(v))
    return best


# Checked wherever they sit, even where nothing is drawn (<metadata>, <title>, <desc>, inside an
# unsupported element): what would run or load something if a browser opened the SVG.
_NEVER = frozenset(
    {
        "script",
        "style",
        "foreignObject",
        "iframe",
        "object",
        "embed",
        "link",
        "feImage",
        "audio",
        "video",
        "handler",
        "listener",
        "include",
        "animation",
        "discard",
        "set",
        "animate",
    }
)
_LINK_ATTRS = frozenset({"href", "src"})
_CSS_URL_RE = re.compile(r"url\(\s*['\"]?\s*(?!#)", re.I)


def _unchecked(compiler: Compiler, root: El) -> None:
    """Report what could load or run something in the elements the compiler did not read."""
    for el in root.iter(etree.Element):
        if el in compiler.checked:
            continue
        tag = _tag(el)
        if etree.QName(el).localname in _NEVER:
            compiler.problem(el, f"unsupported element <{tag}>")
        for name, value in el.attrib.items():
            local = etree.QName(name).localname
            shown = f"'{value[:60]}…'" if len(value) > 60 else f"'{value}'"
            if local in _LINK_ATTRS and tag == "image":
                image_source(compiler, el, value)
            elif local in _LINK_ATTRS and not value.startswith("#"):
                compiler.problem(el, f"<{tag}> links to {shown}: only an <image> may name a file")
            elif local.startswith("on") or _CSS_URL_RE.search(value):
                compiler.problem(el, f"unsupported attribute '{local}' on <{tag}>")


_NO_DTD = "<!DOCTYPE> and <!ENTITY> are not supported (no DTDs or entities in a face)"


def _doctype_line(svg: str) -> int:
    return svg.count("\n", 0, max(svg.find("<!DOCTYPE"), 0)) + 1


def _preamble(svg: str, compiler: Compiler, root: El) -> None:
    """DTDs (and so entities) and processing instructions are refused: they can pull in files."""
    if root.getroottree().docinfo.doctype:
        compiler.problems[(_doctype_line(svg), _NO_DTD)] = None
    for node in [*root.itersiblings(preceding=True), *root.itersiblings(), *root.iter(etree.PI)]:
        if isinstance(node, etree._ProcessingInstruction):
            compiler.problem(node, f"processing instruction <?{node.target}?> is not supported")


def compile_svg(svg: str, resolve_href: Resolver | None = None) -> Drawing:
    """Parse strictly and compile. Raise SvgError listing EVERY problem found (not just the first).

    resolve_href maps an <image> href to a file path, or None when there is no such image.
    """
    _fresh_memos()
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    try:
        root = etree.fromstring(svg.encode(), parser)
    except etree.XMLSyntaxError as e:  # an entity bomb fails here: say what is not allowed
        raise SvgError(
            [(_doctype_line(svg), _NO_DTD)]
            if "<!DOCTYPE" in svg
            else [(e.lineno, one_line(e.msg, MAX_QUOTED))]
        ) from None
    compiler = Compiler(root, resolve_href)
    _preamble(svg, compiler, root)
    drawing = document(compiler, root)
    _unchecked(compiler, root)
    too_far = _too_far(drawing) if drawing is not None and not compiler.problems else None
    if too_far:
        compiler.problem(root, too_far)
    if compiler.problems:
        raise SvgError(sorted(compiler.problems, key=lambda problem: problem[0]))
    assert drawing is not None  # document() gives None only after a problem
    return drawing
