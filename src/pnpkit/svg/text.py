"""<text> and <tspan>: runs collected, whitespace collapsed, shaped with HarfBuzz and
reordered by the bidi algorithm; and the text text_box() has already laid out, taken as it is."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from lxml import etree

from pnpkit import memo, workspace
from pnpkit.svg.ops import El, Fill, Line, Op, Own, Stroke, Style, TextOp, _Shaped
from pnpkit.svg.values import (
    _SKIPPED,
    _XML_SPACE_RE,
    MAX_NUMBER,
    _is_element,
    _is_url,
    _paint,
    _tag,
)
from pnpkit.typeset import fonts, shaping, unibidi

if TYPE_CHECKING:  # the compiler imports this module: its type only
    from pnpkit.svg.walker import Compiler


def _collapse(raw: Sequence[tuple[str, Any, Any]]) -> list[list[Any]]:
    """Runs of one line with whitespace collapsed across run boundaries and trimmed at both ends:
    (text, style, source) in, [text, style, source] out."""
    runs: list[list[Any]] = []
    space_before = True
    for text, st, source in raw:
        text = _XML_SPACE_RE.sub(" ", text)
        text = text.lstrip(" ") if space_before else text
        if text:
            runs.append([text, st, source])
            space_before = text.endswith(" ")
    if runs:  # only a lone " " can empty out; the run before it then ends in a non-space
        runs[-1][0] = runs[-1][0].rstrip(" ")
        runs = runs if runs[-1][0] else runs[:-1]
    return runs


# Text laid out by text_box().
# text_box() has shaped and placed every run of the <text> it writes; h_text() takes those runs
# from here instead of reading the tspans back and shaping them again. An entry is keyed by the
# element's exclusive canonical XML, so it serves only an element whose attributes and content are
# exactly those text_box() wrote (a template that edits the markup gets the full compile), and
# it holds only what that content means whatever the element inherits: h_text() still reads the
# font, size, anchor and paint from the computed style, and takes the entry only when the style
# gives the font family, weight and style text_box() laid the text out in.


# (font, chars, data, advance per unit of font size): a run and what shaping.shape() made of it
LaidRun = tuple[str, str, "_Shaped | None", float]


class LaidLine(NamedTuple):
    x: float
    y: float
    anchor: float | None  # the share text-anchor shifts; None: the <text>'s own
    runs: tuple[LaidRun, ...]


class LaidText(NamedTuple):
    family: str  # the face text_box() laid out in, as the <text>'s computed style must give it
    bold: bool
    italic: bool
    lines: tuple[LaidLine, ...]


_LAID = workspace.Memo[bytes, LaidText]("svgdraw.laid")
_LAID_CAP = 20_000  # texts rendered, not yet compiled (~2.5 kB each); a long session starts afresh
# the fonts and number bound the entries were laid out under, at key 0
_LAID_STATE = workspace.Memo[int, object]("svgdraw.laid_state")


def laid_line(
    x: str, y: str, anchor: float | None, runs: Sequence[tuple[str, str]]
) -> LaidLine | None:
    """A positioned <tspan> as h_text() compiles it: x and y its attributes, anchor its own
    text-anchor (parsed), runs its text nodes' (text, face) in document order. The caller
    vouches that h_text() would find every glyph, leave the line in logical order (no bidi) and
    collapse no whitespace (laid_whitespace); None for a number h_text() would refuse."""
    at_x, at_y = float(x), float(y)  # as _number() reads them: text_box() writes "%.3f"
    if not (abs(at_x) <= MAX_NUMBER and abs(at_y) <= MAX_NUMBER):
        return None
    shape = shaping.shape
    shaped = [(font, *shape(text, font, False)) for text, font in runs if text]
    return LaidLine(at_x, at_y, anchor, tuple(shaped))


def laid_whitespace(line: str) -> bool:
    """Whether _collapse() keeps a line's text nodes (joined: line) as they are: single spaces
    inside the line and no other whitespace the XML parser or the collapse would touch."""
    return not (
        "  " in line
        or line[:1] == " "
        or line[-1:] == " "
        or "\t" in line
        or "\n" in line
        or "\r" in line
    )


def lay_out(key: str, laid: LaidText) -> None:
    """Remember how text_box() laid out the <text> element whose exclusive canonical XML is key
    (c14n_text_start, c14n_text)."""
    _fresh_laid()
    memo.remember(_LAID, key.encode(), laid, _LAID_CAP)


# Exclusive canonical XML (https://www.w3.org/TR/xml-exc-c14n/) of what text_box() writes: the
# SVG namespace declared on the <text>, attributes sorted by name, &, < and > escaped in text,
# & < and " in attribute values. Values holding a tab, a line break or a carriage return (which
# the parser turns into spaces, or a carriage return in text into a line feed) are the callers'
# to refuse (layable): their text is compiled in full.
_RAW_WS = re.compile(r"[\t\n\r]")


def layable(*values: str) -> bool:
    """Whether text_box()'s markup with these values (text and attributes) can be laid out."""
    return not any(_RAW_WS.search(value) for value in values)


def c14n_text_start(attrs: dict[str, str]) -> str:
    """A <text> element's start tag: its attributes as they were written (unqualified)."""
    pairs = "".join(f' {name}="{_c14n_value(attrs[name])}"' for name in sorted(attrs))
    return f'<text xmlns="http://www.w3.org/2000/svg"{pairs}>'


def _c14n_value(value: str) -> str:
    if "&" in value or "<" in value or '"' in value:
        return value.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
    return value


def c14n_text(text: str) -> str:
    if "&" in text or "<" in text or ">" in text:
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text


def _text_key(el: El) -> bytes:
    """el as exclusive canonical XML: its namespace, attributes and content, not its tail or the
    namespaces its document declares."""
    key = etree.tostring(  # type: ignore[call-overload]  # lxml takes with_tail; its stubs do not
        el, method="c14n", exclusive=True, with_tail=False
    )
    return cast(bytes, key)


def _fresh_laid() -> None:
    state = (fonts.signature(), MAX_NUMBER)
    if state != _LAID_STATE.get(0):
        _LAID.clear()
        _LAID_STATE[0] = state


def h_text(comp: Compiler, el: El, own: Own, st: Style, body: list[Op]) -> None:
    if _LAID and laid_text(comp, el, st, body):
        return
    lines: list[Line] = [
        [comp.num(el, own, "x"), comp.num(el, own, "y"), st["text-anchor"], st["direction"], []]
    ]
    text_runs(comp, el, st, lines, nested=False)
    for x, y, anchor, direction, raw in lines:
        runs: list[tuple[str, Any]] = []
        for text, rst, source in _collapse(raw):
            font = fonts.face_name(rst["font-family"], rst["font-weight"], rst["font-style"])
            if font is None:
                style = " ".join(
                    w
                    for w, on in (("bold", rst["font-weight"]), ("italic", rst["font-style"]))
                    if on
                )
                comp.problem(source, f"font family '{rst['font-family']}' has no {style} face")
                continue
            for ch in fonts.missing_glyphs(font, text):
                comp.problem(source, f"no glyph for '{ch}' (U+{ord(ch):04X}) in font {font}")
            if _is_url(rst["fill"]):
                comp.problem(source, "a gradient fills shapes only, not text")
                rst = {**rst, "fill": None}
            paint, size = _paint(rst), rst["font-size"]
            # each piece in the face of the font's chain that draws it
            runs += [(t, (face, size, paint)) for t, face in fonts.split(text, font)]
        line = "".join(text for text, _ in runs)
        ordered: list[tuple[str, Any, bool]]
        if direction != "rtl" and not shaping.needs_bidi(line):  # one left-to-right level
            ordered = [(text, run, False) for text, run in runs if text]
        else:
            unmatched = unibidi.unmatched(line)
            if unmatched:  # drawn all the same: the levels are still defined
                comp.problem(el, unmatched)
            if shaping.base_level(line, direction):  # start and end swap sides in RTL text
                anchor = 1.0 - anchor
            ordered = shaping.visual_pieces(runs, direction)
        pieces: list[tuple[str, float, str, Any, tuple[Fill | None, Stroke | None], float]] = []
        total = 0.0
        for text, (font_name, size, paint), rtl in ordered:
            chars, data, width = shaping.shape(text, font_name, rtl)
            pieces.append((font_name, size, chars, data, paint, width * size))
            total += width * size  # as sum() adds them: left to right, from 0
        x -= anchor * total  # text-anchor applies to the whole line
        for font_name, size, chars, data, (fill, stroke), width in pieces:
            if size and (fill or stroke):
                body.append(TextOp(x, y, font_name, size, chars, fill, stroke, data))
            x += width


def laid_text(comp: Compiler, el: El, st: Style, body: list[Op]) -> bool:
    """h_text() from text_box()'s own layout of el (LaidText), if there is one for it and
    el's style gives the face it was laid out in: the same ops, with no problem to report."""
    try:
        key = _text_key(el)
    except etree.C14NError:  # what canonical XML cannot hold (an unresolved entity): never
        return False  # text_box()'s; the full compile reports it
    laid = _LAID.pop(key, None)
    if (
        laid is None
        or (laid.family, laid.bold, laid.italic)
        != (st["font-family"], st["font-weight"], st["font-style"])
        or st["direction"] == "rtl"
        or _is_url(st["fill"])
    ):
        return False
    comp.checked.update(el.iter())  # what the tspans' attributes() would have added
    size, own_anchor = st["font-size"], st["text-anchor"]
    fill, stroke = _paint(st)
    painted = size and (fill or stroke)
    for x, y, anchor, runs in laid.lines:
        total = 0.0
        for run in runs:
            total += run[3] * size  # as h_text() adds them: left to right, from 0
        x -= (own_anchor if anchor is None else anchor) * total
        for font, chars, data, advance in runs:
            if painted:
                body.append(TextOp(x, y, font, size, chars, fill, stroke, data))
            x += advance * size
    return True


def text_runs(comp: Compiler, el: El, st: Style, lines: list[Line], nested: bool) -> None:
    """Append el's text runs (text, style, source element) to lines; positioned tspans start
    a line."""
    lines[-1][4].append((el.text or "", st, el))
    for child in el:
        tag = _tag(child) if _is_element(child) else None
        if tag == "tspan":
            own, props = comp.attributes(child, tag)
            cst = comp.style(child, st, props)
            if own.keys() & {"x", "y", "dy"}:
                if nested:
                    comp.problem(
                        child, "a <tspan> with x, y or dy must be a direct child of <text>"
                    )
                elif "x" not in own:
                    comp.problem(child, "a <tspan> with y or dy needs x as well")
                else:
                    y = comp.num(child, own, "y", lines[-1][1]) + comp.num(child, own, "dy")
                    lines.append(
                        [comp.num(child, own, "x"), y, cst["text-anchor"], cst["direction"], []]
                    )
            text_runs(comp, child, cst, lines, nested=True)
        elif isinstance(
            child, etree._Entity
        ):  # left unresolved by the parser, so its text would vanish
            comp.problem(el, f"unsupported entity reference {child.text}")
        elif tag is not None and tag not in _SKIPPED:
            comp.problem(child, f"unsupported element <{tag}> inside <text>")
        lines[-1][4].append((child.tail or "", st, el))
