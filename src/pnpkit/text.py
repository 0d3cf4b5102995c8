"""Text boxes for templates: wrap with the real font metrics, shrink to fit, report overflow.

svglib-style renderers mis-place inline style changes, and SVG has no
wrapping, so templates never wrap text themselves: they call text_box(),
which measures with the same TTF the PDF embeds and emits one positioned
<tspan> per line.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup, escape

from pnpkit import fonts
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


def wrap(text: str, font: str, size_mm: float, width: float) -> list[str]:
    """Greedy word wrap; explicit newlines are kept; a word wider than the box stands alone."""
    lines: list[str] = []
    for para in text.split("\n"):
        line = ""
        for word in para.split():
            trial = f"{line} {word}" if line else word
            if line and fonts.string_width(trial, font, size_mm) > width:
                lines.append(line)
                line = word
            else:
                line = trial
        lines.append(line)
    return lines


def fit(text: str, font: str, size_pt: float, min_pt: float, w: float, h: float, leading: float) -> Fit:
    """Largest size from size_pt down to min_pt (in 0.25 pt steps) at which text fits w x h mm."""
    size = size_pt
    while size * PT > h and size - 0.25 >= min_pt - 1e-9:
        size -= 0.25  # not one line fits at this size: skip the wrapping, which is what costs
    while True:
        lines = wrap(text, font, size * PT, w)
        room = max(0, int((h - size * PT) // (size * PT * leading)) + 1) if h >= size * PT else 0
        too_wide = any(fonts.string_width(l, font, size * PT) > w + 1e-6 for l in lines)
        if len(lines) <= room and not too_wide:
            return Fit(lines, size, True, len(lines), room)
        if size - 0.25 < min_pt - 1e-9:
            return Fit(lines, size, False, len(lines), room)
        size -= 0.25


def svg_text(fitted: Fit, font_family: str, bold: bool, italic: bool, x: float, y: float, w: float, h: float,
             anchor: str, valign: str, fill: str, leading: float) -> Markup:
    """The <text> element for fitted lines, baseline-positioned inside the box."""
    size = fitted.size_pt * PT
    ascent, _ = fonts.ascent_descent(fonts.face_name(font_family, bold, italic))
    step = size * leading
    block = size + step * (len(fitted.lines) - 1)
    top = y if valign == "top" else y + (h - block) / 2 if valign == "middle" else y + h - block
    lx = {"start": x, "middle": x + w / 2, "end": x + w}[anchor]
    attrs = f'font-family="{font_family}" font-size="{size:.3f}" fill="{escape(fill)}" text-anchor="{anchor}"'
    if bold:
        attrs += ' font-weight="bold"'
    if italic:
        attrs += ' font-style="italic"'
    spans = "".join(
        f'<tspan x="{lx:.3f}" y="{top + ascent * size + i * step:.3f}">{escape(line)}</tspan>'
        for i, line in enumerate(fitted.lines)
    )
    return Markup(f"<text {attrs}>{spans}</text>")
