"""Text boxes for templates: wrap with the real font metrics, shrink to fit, report overflow.

svglib-style renderers mis-place inline style changes, and SVG has no
wrapping, so templates never wrap text themselves: they call text_box(),
which measures with the same TTF the PDF embeds and emits one positioned
<tspan> per line.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup, escape

from pnpkit.svg.text import (
    LaidLine,
    LaidText,
    c14n_text,
    c14n_text_start,
    laid_line,
    laid_whitespace,
    lay_out,
    layable,
)
from pnpkit.typeset import fonts
from pnpkit.units import MM_PER

PT = MM_PER["pt"]  # mm per point


@dataclass
class Fit:
    """The result of fitting text into a box."""

    lines: list[str]
    size_pt: float
    fits: bool
    needed: int  # lines needed at the final size
    room: int  # lines that fit at the final size


def wrap(text: str, font: str, size_mm: float, width: float, limit: int | None = None) -> list[str]:
    """Greedy word wrap; explicit newlines are kept; a word wider than the box stands alone.
    With `limit`, stop once there are more lines than that (the size is too large anyway).

    A line's width is the sum of its glyphs' widths, so words are measured once (per font, at
    unit size) and added up; only a sum within a hair of the box's width is measured whole, so
    the breaks are exactly those of measuring every trial line, in linear time (a pasted page
    of rules took seconds)."""
    space = _unit_width(" ", font) * size_mm
    lines: list[str] = []
    for para in text.split("\n"):
        line, line_w = "", 0.0
        for word in para.split():
            word_w = _unit_width(word, font) * size_mm
            if not line:
                line, line_w = word, word_w
                continue
            trial_w = line_w + space + word_w
            if abs(trial_w - width) <= 1e-6 * max(1.0, abs(width)):
                trial_w = fonts.string_width(f"{line} {word}", font, size_mm)
            if trial_w > width:
                lines.append(line)
                if limit is not None and len(lines) > limit:
                    return lines
                line, line_w = word, word_w
            else:
                line, line_w = f"{line} {word}", trial_w
        lines.append(line)
    return lines


_unit_width = fonts.unit_width


def fit(
    text: str, font: str, size_pt: float, min_pt: float, w: float, h: float, leading: float
) -> Fit:
    """Largest size from size_pt down to min_pt (in 0.25 pt steps) at which text fits w x h mm."""
    size = size_pt
    while size * PT > h and size - 0.25 >= min_pt - 1e-9:
        size -= 0.25  # not one line fits at this size: skip the wrapping, which is what costs
    while True:
        room = max(0, int((h - size * PT) // (size * PT * leading)) + 1) if h >= size * PT else 0
        last = size - 0.25 < min_pt - 1e-9
        lines = wrap(
            text, font, size * PT, w, None if last else room
        )  # the last size says how many are needed
        too_wide = any(fonts.string_width(line, font, size * PT) > w + 1e-6 for line in lines)
        if len(lines) <= room and not too_wide:
            return Fit(lines, size, True, len(lines), room)
        if last:
            return Fit(lines, size, False, len(lines), room)
        size -= 0.25


def svg_text(
    fitted: Fit,
    font_family: str,
    bold: bool,
    italic: bool,
    x: float,
    y: float,
    w: float,
    h: float,
    anchor: str,
    valign: str,
    fill: str,
    leading: float,
    every_glyph: bool = False,
) -> Markup:
    """The <text> element for fitted lines, baseline-positioned inside the box. every_glyph: the
    face has every character of the text (svgdraw then takes the lines as laid out here)."""
    size = fitted.size_pt * PT
    face = fonts.face_name(font_family, bold, italic)
    assert face is not None, font_family  # the template helpers check the family before fitting
    ascent, _ = fonts.ascent_descent(face)
    step = size * leading
    block = size + step * (len(fitted.lines) - 1)
    top = y if valign == "top" else y + (h - block) / 2 if valign == "middle" else y + h - block
    lx = {"start": x, "middle": x + w / 2, "end": x + w}[anchor]
    own = text_attributes(font_family, size, fill, anchor, bold, italic)
    attrs = " ".join(f'{k}="{escape(v) if k == "fill" else v}"' for k, v in own.items())
    xs = f"{lx:.3f}"
    at = [(xs, f"{top + ascent * size + i * step:.3f}") for i in range(len(fitted.lines))]
    spans = "".join(
        f'<tspan x="{x}" y="{y}">{escape(line)}</tspan>' for (x, y), line in zip(at, fitted.lines)
    )
    if every_glyph and layable(font_family, fill):
        laid = _laid(fitted.lines, at, face)
        if laid is not None:
            key = f"{c14n_text_start(own)}{laid[0]}</text>"
            lay_out(key, LaidText(font_family, bold, italic, laid[1]))
    return Markup(f"<text {attrs}>{spans}</text>")


def text_attributes(
    family: str, size_mm: float, fill: str, anchor: str, bold: bool, italic: bool
) -> dict[str, str]:
    """A text box's <text> attributes, unescaped, in the order they are written."""
    return {
        "font-family": family,
        "font-size": f"{size_mm:.3f}",
        "fill": fill,
        "text-anchor": anchor,
        **({"font-weight": "bold"} if bold else {}),
        **({"font-style": "italic"} if italic else {}),
    }


def _laid(
    lines: list[str], at: list[tuple[str, str]], face: str
) -> tuple[str, tuple[LaidLine, ...]] | None:
    """svg_text()'s tspans (at: each one's x and y as written) as svgdraw compiles them
    (lay_out), with their canonical XML; None if svgdraw must read them."""
    keys, laid = [], []
    for (x, y), line in zip(at, lines):
        if not laid_whitespace(line):
            return None
        one = laid_line(x, y, None, [(line, face)])
        if one is None:
            return None
        keys.append(f'<tspan x="{x}" y="{y}">{c14n_text(line)}</tspan>')
        laid.append(one)
    return "".join(keys), tuple(laid)
