"""The compiler's walk over the element tree: each element's attributes and computed style
(remembered across the cards of a deck), its handler by tag, and what wraps its ops (transform,
clip, viewport), within a bound on elements and nesting."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, overload

from lxml import etree

from pnpkit import filelimits, memo, workspace
from pnpkit.errors import MAX_QUOTED, one_line
from pnpkit.svg.geometry import _rect_segs
from pnpkit.svg.gradients import h_gradient
from pnpkit.svg.images import h_image
from pnpkit.svg.ops import (
    Box,
    Clip,
    D,
    El,
    Matrix,
    Op,
    Own,
    Placed,
    Resolver,
    Restore,
    Save,
    Style,
    SvgError,
    T,
    Transform,
)
from pnpkit.svg.shapes import clip_ref, h_clip_path, h_shape
from pnpkit.svg.structure import art_document, h_defs, h_group, h_svg, h_use
from pnpkit.svg.text import _fresh_laid, h_text
from pnpkit.svg.values import (
    _DISPLAY,
    _ELEMENTS,
    _PARSERS,
    _SHAPES,
    _SKIPPED,
    MAX_NUMBER,
    _is_element,
    _is_url,
    _nonneg,
    _number,
    _opacity,
    _tag,
    _transform,
)
from pnpkit.typeset import fonts

_NS_PREFIX = MappingProxyType(
    {
        "http://www.w3.org/1999/xlink": "xlink",
        "http://www.w3.org/XML/1998/namespace": "xml",
    }
)


# Memos shared by every compile: the cards of a deck repeat most of their markup. Bounded by
# emptying them when full. Each card also has markup of its own (its colour, its id: about five
# entries a card, 2 kB each with their ops), which only fills them: under a bound of 20,000 a
# 10,000-card deck held 90 MB of them until the last batch, and once emptied that memory stayed
# the process's, as free blocks of one size. 4,096 keeps a 1,000-card deck's whole markup.
_MEMO_SIZE = 4096
# (id of the parent style, properties) -> (parent style, style): Compiler.style
_STYLES = workspace.Memo[tuple[int, tuple[tuple[str, str], ...]], tuple[Style, Style]](
    "svgdraw.styles"
)
# (tag, attributes, id of the inherited style) -> (that style, ops): Compiler.leaf
_LEAVES = workspace.Memo[
    tuple[str, tuple[tuple[str, str], ...], int], tuple[Style, tuple[Op, ...]]
]("svgdraw.leaves")
# (tag, attributes) -> (own, props, problem messages): Compiler.attributes
_ATTRIBUTES = workspace.Memo[
    tuple[str, tuple[tuple[str, str], ...]], tuple[Own, dict[str, str], tuple[str, ...]]
]("svgdraw.attributes")
_MEMO_STATE = workspace.Memo[int, object]("svgdraw.memo_state")  # what they were valid under: 0


def _fresh_memos() -> None:
    """Empty the memos when what decides whether a value is valid has changed: the fonts a pack
    brings (font-family) or the bound on numbers."""
    state = (fonts.signature(), MAX_NUMBER)
    if state != _MEMO_STATE.get(0):
        _STYLES.clear()
        _LEAVES.clear()
        _ATTRIBUTES.clear()
        _MEMO_STATE[0] = state
    _fresh_laid()  # laid out under other fonts: never drawn with these


class Compiler:
    def __init__(
        self,
        root: El,
        resolve_href: Resolver | None,
        depth: int = 0,
        art_stack: frozenset[str] = frozenset(),
        level: int = 0,
    ) -> None:
        self.resolve_href, self.depth, self.art_stack = resolve_href, depth, art_stack
        # elements open around the one compiled, counted from the face's root through the art
        # files that draw this one; and elements compiled so far, every <use> and art drawn
        self.level, self.drawn = level, 0
        self.problems: dict[tuple[Any, ...], None] = {}  # (line, message[, file]): ordered, unique
        self.ids: dict[str, El] = {}
        self.clips: dict[El, Clip | None] = {}
        self.using: set[str] = set()
        self.checked: set[El] = (
            set()
        )  # elements attributes() has read; _unchecked() looks at all the others
        self.said: list[str] | None = None  # messages of problem() while a memo listens
        for el in root.iter(etree.Element):
            ident = el.get("id")
            if ident in self.ids:
                self.problem(el, f"duplicate id '{ident}'")
            elif ident is not None:
                self.ids[ident] = el

    def problem(self, el: El, message: str) -> None:
        self.problems[(el.sourceline or 0, message)] = None
        if self.said is not None:
            self.said.append(message)

    def heard(self, work: Callable[[], T]) -> tuple[T, list[str]]:
        """work()'s result and the messages of the problems it reported (a memo keeps them)."""
        outer, self.said = self.said, []
        try:
            result = work()
            said = self.said
        finally:
            self.said = outer
        if outer is not None:
            outer += said
        return result, said

    def value(
        self, el: El, parse: Callable[[str, str], T], value: str, prop: str, default: D
    ) -> T | D:
        try:
            return parse(value, prop)
        except ValueError as e:
            self.problem(el, str(e))
            return default

    @overload
    def num(
        self, el: El, own: Own, name: str, default: float = 0.0, nonneg: bool = False
    ) -> float: ...
    @overload
    def num(
        self, el: El, own: Own, name: str, default: None, nonneg: bool = False
    ) -> float | None: ...

    def num(
        self, el: El, own: Own, name: str, default: float | None = 0.0, nonneg: bool = False
    ) -> float | None:
        value = own.get(name)
        return (
            default
            if value is None
            else self.value(el, _nonneg if nonneg else _number, value, name, default)
        )

    def attributes(self, el: El, tag: str) -> tuple[Own, dict[str, str]]:
        """(own attributes, presentation properties) of el; style wins over attributes.

        The same markup recurs on every card of a deck, so what a tag and its attributes give
        is remembered (the dicts are shared: nobody changes them), with the messages of its
        problems, which are reported again at this element's line."""
        attrib = tuple(el.attrib.items())
        key = (tag, attrib)
        done = _ATTRIBUTES.get(key)
        if done is not None:
            self.checked.add(el)
            for message in done[2]:
                self.problem(el, message)
            return done[0], done[1]
        (own, props), said = self.heard(lambda: self.read_attributes(el, tag))
        if not any(name[0] == "{" for name, _ in attrib):  # else: the element's nsmap counts
            memo.remember(_ATTRIBUTES, key, (own, props, tuple(said)), _MEMO_SIZE)
        return own, props

    def read_attributes(self, el: El, tag: str) -> tuple[Own, dict[str, str]]:
        """attributes(), read afresh."""
        own_names, prop_names = _ELEMENTS[tag]
        own: Own = {}
        props: dict[str, str] = {}
        style: str | None = None
        self.checked.add(el)
        for name, value in el.attrib.items():
            if name[0] == "{":
                ns, local = name[1:].split("}")
                prefix = _NS_PREFIX.get(ns) or next((p for p, u in el.nsmap.items() if u == ns), ns)
                name = "href" if (prefix, local) == ("xlink", "href") else f"{prefix}:{local}"
            if (
                name == "href" and "href" in own
            ):  # a browser would take one, we would check the other
                self.problem(el, f"<{tag}> has both href and xlink:href: give one")
            if name in own_names:
                own[name] = value
            elif name in prop_names:
                props[name] = value.strip()
            elif name == "style":
                style = value
            elif name not in ("id", "class") and not name.startswith("data-"):
                self.problem(el, f"unsupported attribute '{name}' on <{tag}>")
        for decl in (style or "").split(";"):
            name, colon, value = (s.strip() for s in decl.partition(":"))
            if not (name or colon or value):
                continue
            if not (name and colon and value):
                self.problem(el, f"bad style declaration '{decl.strip()}'")
            elif name in prop_names and name != "transform":  # CSS transforms have other syntax
                props[name] = value
            else:
                self.problem(el, f"unsupported attribute '{name}' on <{tag}>")
        return own, props

    def style(self, el: El, parent: Style, props: dict[str, str]) -> Style:
        """The computed inherited style of el; shares parent's dict when el changes nothing.

        Remembered by the parent style (held, so its id stays its own) and the properties, when
        they parse without a problem: the same style object then comes back for the same
        inputs, in every compile, and _LEAVES can recognise it."""
        key = (id(parent), tuple(props.items()))
        done = _STYLES.get(key)
        if done is not None and done[0] is parent:
            return done[1]
        st, said = self.heard(lambda: self.computed_style(el, parent, props))
        if not said:
            memo.remember(_STYLES, key, (parent, st), _MEMO_SIZE)
        return st

    def computed_style(self, el: El, parent: Style, props: dict[str, str]) -> Style:
        """style(), computed afresh."""
        st = parent
        for prop, value in props.items():
            if prop in _PARSERS and value != "inherit":
                parsed = self.value(el, _PARSERS[prop][0], value, prop, st[prop])
                if parsed != st[prop]:
                    st = dict(st) if st is parent else st
                    st[prop] = parsed
        if "opacity" in props:  # folded into descendants' alphas, see the module docstring
            st = dict(st) if st is parent else st
            st["alpha"] *= self.value(el, _opacity, props["opacity"], "opacity", 1.0)
        return st

    def children(self, el: El, st: Style, out: list[Op]) -> None:
        for child in el:
            if _is_element(child):
                self.element(child, st, out)

    def no_children(self, el: El) -> None:
        for child in el:
            if _is_element(child) and _tag(child) not in _SKIPPED:
                self.problem(child, f"unsupported element <{_tag(child)}>")

    def element(self, el: El, st: Style, out: list[Op]) -> None:
        tag = _tag(el)
        if tag in _SKIPPED:
            return
        handler = _HANDLERS.get(tag)
        if handler is None:
            self.problem(el, f"unsupported element <{tag}>")
            return
        if not self.budget(el, 1):
            return
        if tag in _SHAPES and not len(el):
            self.leaf(el, tag, handler, st, out)
            return
        self.level += 1
        try:
            self.draw(el, tag, handler, st, out)
        finally:
            self.level -= 1

    def budget(self, el: El, elements: int) -> bool:
        """Whether el, standing for that many elements, may be drawn: the drawing's elements
        (each <use> and art file expanded) and their nesting are bounded, like YAML's aliases,
        so that ten <use>s of ten <use>s nine times over, or nesting that would exhaust
        Python's stack, are a located problem rather than gigabytes or a RecursionError."""
        if self.level >= MAX_NESTING:
            self.problem(
                el,
                f"elements nest more than {MAX_NESTING} deep (counting <use> and the art files "
                "that draw this one); pnpkit draws at most that",
            )
            return False
        self.drawn += elements
        if self.drawn <= MAX_ELEMENTS:
            return True
        if self.drawn - elements <= MAX_ELEMENTS:  # said once, where the budget ran out
            self.problem(el, _TOO_MANY)
        return False

    def leaf(self, el: El, tag: str, handler: Handler, st: Style, out: list[Op]) -> None:
        """A shape without children: its ops depend only on its tag, its attributes and the
        inherited style (unless it refers to an id), so they are remembered (_LEAVES)."""
        attrib = tuple(el.attrib.items())
        key = (tag, attrib, id(st))
        done = _LEAVES.get(key)
        if done is not None and done[0] is st:
            self.checked.add(el)
            out += done[1]
            return
        ops: list[Op] = []
        _, said = self.heard(lambda: self.draw(el, tag, handler, st, ops))
        out += ops
        if not said and not _is_url(st["fill"]) and not any("url(" in v for _, v in attrib):
            memo.remember(_LEAVES, key, (st, tuple(ops)), _MEMO_SIZE)

    def draw(self, el: El, tag: str, handler: Handler, st: Style, out: list[Op]) -> None:
        """Compile el, a supported element, and append its ops to out when it is shown."""
        own, props = self.attributes(el, tag)
        shown = self.value(el, _DISPLAY, props.get("display", "inline"), "display", True)
        st = self.style(el, st, props)
        body: list[Op] = []
        inner, viewport = handler(self, el, own, st, body) or (None, None)
        if (
            shown
        ):  # display="none" is compiled all the same: hidden content is checked like the rest
            self.emit(el, props, body, out, inner, viewport)

    def emit(
        self,
        el: El,
        props: dict[str, str],
        body: list[Op],
        out: list[Op],
        inner: Matrix | None = None,
        viewport: Box | None = None,
    ) -> None:
        """Append body to out, wrapped in el's transform, clip-path and viewport when it has
        them."""
        matrix = (
            self.value(el, _transform, props["transform"], "transform", None)
            if "transform" in props
            else None
        )
        clip = clip_ref(self, el, props["clip-path"]) if "clip-path" in props else None
        if not body:
            return
        prologue: list[Op] = [Transform(matrix)] if matrix else []
        prologue += [clip] if clip else []
        prologue += [Clip(tuple(_rect_segs(*viewport)), False)] if viewport else []
        prologue += [Transform(inner)] if inner else []
        if prologue:
            out += [Save(), *prologue, *body, Restore()]
        else:
            out += body

    def compile_art(self, path: str, size: float = 0.0) -> tuple[Box, tuple[Op, ...]]:
        """(viewBox, ops) of the art file at path, drawn from here (images.art) `size` large:
        SvgError with (line, message, file) problems."""
        return _compile_art(
            path, self.resolve_href, self.depth + 1, self.art_stack | {path}, self.level + 2, size
        )


# elements nested in each other, through <use> and art files (an art file counts two): Python's
# stack takes four calls a level (250 nested <g> were a RecursionError)
MAX_NESTING = 100
# elements in one drawing, each <use> and art file expanded (its ops counted): 10^9 from nine
# levels of ten <use>s, 3.5 GB from art files nested 7 deep each drawing the next 10 times. The
# shipped kits' largest face has 937; 50,000 compile in about 2.5 s
MAX_ELEMENTS = 50_000
_TOO_MANY = (
    f"the drawing has more than {MAX_ELEMENTS:,} elements once each <use> and art file is "
    f"expanded; pnpkit draws at most {MAX_ELEMENTS:,} in one drawing"
)


@workspace.memoized(128)
def _art_bytes_compiled(
    data: bytes,
    path: str,
    resolve_href: Resolver | None,
    depth: int,
    art_stack: frozenset[str],
    level: int,
    size: float = 0.0,
) -> tuple[Box, tuple[Op, ...]] | SvgError:
    """The art's (viewBox, ops), or the SvgError saying why not: a failure is kept too, so a
    file drawing a broken one ten times compiles it once."""
    from pnpkit.svg import normalise as svgnorm  # loaded by the first art file, not by a face
    from pnpkit.svg import raster as svgraster

    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False
    )
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as e:
        return SvgError([(e.lineno, one_line(e.msg, MAX_QUOTED), path)])
    docinfo = root.getroottree().docinfo
    if docinfo.doctype and not svgnorm.plain_doctype(data, docinfo.public_id):
        return SvgError([(1, "an SVG image must not have a DOCTYPE or entities", path)])
    if svgraster.expanded_size(root, MAX_ELEMENTS) > MAX_ELEMENTS:  # a <use> bomb: refused now
        return SvgError([(root.sourceline or 1, _TOO_MANY, path)])
    normalised = svgnorm.normalise(root, size) if svgnorm.needs_work(data) else None
    compiler = Compiler(root, resolve_href, depth, art_stack, level)
    for line, message in normalised.problems if normalised else ():
        compiler.problems[(line, message)] = None
    box, ops = art_document(compiler, root)
    if compiler.problems:
        return SvgError(
            sorted(
                ((p[0], p[1], p[2] if len(p) > 2 else path) for p in compiler.problems),
                key=lambda p: p[0],
            )
        )
    return box, ops


def _compile_art(
    path: str,
    resolve_href: Resolver | None,
    depth: int,
    art_stack: frozenset[str],
    level: int,
    size: float = 0.0,
) -> tuple[Box, tuple[Op, ...]]:
    """(viewBox, ops) of an SVG art file drawn `size` (its larger side, in the drawing's
    units: mm) large; SvgError with (line, message, file) problems."""
    from pnpkit.svg import normalise as svgnorm

    try:
        data = filelimits.read(path, filelimits.MAX_ART_BYTES)
    except OSError as exc:
        raise SvgError([(0, f"cannot read image: {exc.strerror}", path)]) from None
    # the memo's key: the size matters only to what is drawn as an image (0: the default)
    size = size if svgnorm.may_raster(data) and math.isfinite(size) else 0.0
    compiled = _art_bytes_compiled(data, path, resolve_href, depth, art_stack, level, size)
    if isinstance(compiled, SvgError):
        raise SvgError(compiled.problems)
    return compiled


Handler = Callable[["Compiler", El, Own, Style, list[Op]], "Placed | None"]
_HANDLERS: Mapping[str, Handler] = MappingProxyType(
    {
        "svg": h_svg,
        "g": h_group,
        "defs": h_defs,
        "use": h_use,
        "text": h_text,
        "image": h_image,
        "clipPath": h_clip_path,
        "linearGradient": h_gradient,
        "radialGradient": h_gradient,
        **{tag: h_shape for tag in _SHAPES},
    }
)
