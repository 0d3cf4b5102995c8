"""text_box(): the text a template places in a box, wrapped, fitted and shaped, with rich text
and inline icons, written as SVG and laid out for the compiler (svg/text.py)."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from types import FrameType
from typing import Any, NamedTuple

import jinja2
import jinja2.bccache
import jinja2.meta
from markupsafe import Markup, escape

from pnpkit import filelimits, workspace
from pnpkit.errors import Location, Problem
from pnpkit.faces import icons
from pnpkit.pack.checker import did_you_mean
from pnpkit.pack.loader import display_path
from pnpkit.pack.model import Item, Pack
from pnpkit.svg.text import LaidText, c14n_text_start, lay_out, layable
from pnpkit.typeset import fontfallback, fonts, richtext
from pnpkit.typeset.text import PT, fit, svg_text, text_attributes


class TextBlock(Markup):
    """What text_box() returns: the SVG, plus the room it took, so a template can stack boxes:
    `{% set t = text_box(...) %}{{ t }}{{ text_box(more, x, t.bottom + 2, ...) }}`."""

    height: float  # mm
    top: float
    bottom: float
    lines: int
    size: float  # pt

    @classmethod
    def of(
        cls, svg: str, y: float, h: float, height: float, valign: str, lines: int, size_pt: float
    ) -> TextBlock:
        block = cls(svg)
        top = (
            y if valign == "top" else y + (h - height) / 2 if valign == "middle" else y + h - height
        )
        block.height, block.top, block.bottom = height, top, top + height  # mm
        block.lines, block.size = lines, size_pt
        return block


def icon_files(pack: Pack) -> list[tuple[str, str]]:
    """(name, content hash) of the pack's icon files: their aspect ratios shape faces' SVG."""
    folder = icons.folder(pack)
    return (
        [(p.name, filelimits.sha256(p).hex()) for p in folder.glob("*.svg") if p.is_file()]
        if folder.is_dir()
        else []
    )


class TextBoxError(ValueError):
    """A text_box() call with bad arguments."""


class TextBoxes:
    """text_box() as templates call it; records overflow, glyph and size problems for the item."""

    def __init__(
        self,
        pack: Pack,
        item: Item,
        lang: str,
        template: str,
        problems: list[Problem],
        env: jinja2.Environment | None = None,
    ) -> None:
        self.pack, self.item, self.lang, self.template, self.problems = (
            pack,
            item,
            lang,
            template,
            problems,
        )
        self.env = env
        self._icons: dict[str, icons.Icon] | None = None
        self.drawn: list[tuple[str, Location | None]] = []  # each call's text and template line

    MAX_SIZE_PT = (
        1000.0  # 35cm letters; the shrink loop steps 0.25pt from here, so the size bounds its time
    )
    MAX_LEADING = 10.0

    def __call__(
        self,
        text: object,
        x: float,
        y: float,
        w: float,
        h: float,
        size: float = 9,
        bold: bool = False,
        italic: bool = False,
        anchor: str = "start",
        valign: str = "top",
        fill: str = "#000000",
        leading: float = 1.2,
        shrink: bool = True,
        family: str = fonts.DEFAULT_FAMILY,
        paragraph: float = 1.0,
        markup: bool = True,
    ) -> TextBlock:
        _check_numbers(x=x, y=y, w=w, h=h, size=size, leading=leading, paragraph=paragraph)
        font = _font(family, bold, italic, anchor, valign, paragraph)
        text = "" if text is None else str(text)
        call = calling_template()
        self.drawn.append((text, call))
        where, min_pt = self._where(text, call), self.pack.print.min_font_pt
        self._check_size(size, min_pt, call)
        if markup and richtext.has_markup(text):
            return self.rich(
                text,
                where,
                x,
                y,
                w,
                h,
                size,
                bool(bold),
                bool(italic),
                anchor,
                valign,
                fill,
                leading,
                min(min_pt, size) if shrink else size,
                family,
                paragraph,
            )
        return self._plain(
            text,
            where,
            font,
            (x, y, w, h),
            size,
            min(min_pt, size) if shrink else size,
            (bool(bold), bool(italic)),
            anchor,
            valign,
            fill,
            leading,
            family,
        )

    def _check_size(self, size: float, min_pt: float, call: Location | None) -> None:
        """Below the minimum: the template's choice, not the data's; reported once, at the
        call."""
        if size < min_pt - 1e-9:
            msg = f"font size {size:g}pt is below the minimum {min_pt:g}pt"
            self._add(Problem(call or self.item.where, msg, "font-size"))

    def _plain(
        self,
        text: str,
        where: Located,
        font: str,
        box: tuple[float, float, float, float],
        size: float,
        min_size: float,
        style: tuple[bool, bool],
        anchor: str,
        valign: str,
        fill: str,
        leading: float,
        family: str,
    ) -> TextBlock:
        """text_box() for plain text: wrapped and shrunk to fit (text.fit)."""
        (x, y, w, h), (bold, italic) = box, style
        missing = fonts.missing_glyphs(font, text)
        if missing:
            chars = ", ".join(f"'{c}' (U+{ord(c):04X})" for c in missing)
            self._problem(where, f"no glyph for {chars} in {family}: {_excerpt(text)}", "glyphs")
        self._style_fallbacks(family, bold, italic, text)
        fitted = fit(text, font, size, min_size, w, h, leading)
        if not fitted.fits:
            self._problem(
                where,
                f"text overflows its {w:g}x{h:g}mm box (needs {fitted.needed} lines "
                f"at {fitted.size_pt:g}pt, room for {fitted.room}): {_excerpt(text)}",
                "text-fits",
            )
        svg = svg_text(
            fitted,
            family,
            bold,
            italic,
            x,
            y,
            w,
            h,
            anchor,
            valign,
            fill,
            leading,
            not missing and len(fonts.split(text, font)) == 1,  # one face: text_box's layout
        )
        height = (
            fitted.size_pt * PT * (1 + leading * (len(fitted.lines) - 1)) if fitted.lines else 0.0
        )
        return TextBlock.of(svg, y, h, height, valign, len(fitted.lines), fitted.size_pt)

    def rich(
        self,
        text: str,
        where: Located,
        x: float,
        y: float,
        w: float,
        h: float,
        size: float,
        bold: bool,
        italic: bool,
        anchor: str,
        valign: str,
        fill: str,
        leading: float,
        min_pt: float,
        family: str,
        paragraph: float,
    ) -> TextBlock:
        """text_box() for marked-up or right-to-left text (richtext.py)."""
        parsed = richtext.parse(text, bold, italic)
        icons, every_glyph = self._check_rich(parsed, text, where, family)
        aspects = {name: icons[name][0] for name in parsed.icons if name in icons}
        current, layout, lines, lift, height, fits = _fit_rich(
            parsed, family, aspects, size, min_pt, w, h, leading, paragraph
        )
        if not fits:
            self._problem(
                where,
                f"text overflows its {w:g}x{h:g}mm box (needs {height:.1f}mm "
                f"at {current:g}pt, {len(lines)} lines): {_excerpt(text)}",
                "text-fits",
            )
        size_mm = current * PT
        top = (
            y if valign == "top" else y + (h - height) / 2 if valign == "middle" else y + h - height
        )
        spans, extra = [], []
        laid: richtext.Laid = []
        for line, base in zip(
            lines, richtext.baselines(lines, top + lift, layout.ascent, size_mm, leading, paragraph)
        ):
            side = {"start": 0.0, "middle": 0.5, "end": 1.0}[anchor]
            lx = x + w * (1.0 - side if line.rtl else side)
            inner, after, laid_line = richtext.line_svg(
                line, lx, base, anchor, (x, w), layout, (bold, italic), self.icon_svg
            )
            spans.append(inner)
            extra.append(after)
            laid = None if laid is None or laid_line is None else laid + laid_line
        own = text_attributes(family, size_mm, fill, anchor, bold, italic)
        attrs = " ".join(f'{name}="{escape(value)}"' for name, value in own.items())
        element = f"<text {attrs}>{''.join(spans)}</text>"
        if laid is not None and every_glyph and layable(family, fill):
            key = f"{c14n_text_start(own)}{''.join(k for k, _ in laid)}</text>"
            laid_out = LaidText(family, bold, italic, tuple(line for _, line in laid))
            lay_out(key, laid_out)
        svg = Markup(element + "".join(extra))
        return TextBlock.of(svg, y, h, height, valign, len(lines), current)

    def _check_rich(
        self, parsed: richtext.Parsed, text: str, where: Located, family: str
    ) -> tuple[dict[str, icons.Icon], bool]:
        """The pack's icons, and whether every face the text uses has all its glyphs (else the
        compiler reports them too), after reporting the markup's problems, unknown icons and
        missing glyphs."""
        for message in parsed.problems:
            self._problem(where, f"{message}: {_excerpt(text)}", "markup")
        icons = self.icons()
        for name in dict.fromkeys(parsed.icons):
            if name not in icons:
                self._problem(
                    where,
                    f"unknown icon ':{name}:'{did_you_mean(name, list(icons))} "
                    "(icons: the pack's icons/ folder and _icons.svg.j2)",
                    "icons",
                )
        chunks: dict[tuple[bool, bool], list[str]] = {}  # the text of each style, in order
        for para in parsed.paragraphs:
            for given in para:
                for word in given:
                    for s in word:
                        if not s.icon:
                            chunks.setdefault((s.bold, s.italic), []).append(s.text)
        every_glyph = True  # in every face the text uses: else svgdraw reports them too
        for b, i in sorted(chunks):
            face = fonts.face_name(family, b, i)
            assert face is not None  # the family was found by text_box()
            missing = fonts.missing_glyphs(face, "".join(chunks[b, i]))
            self._style_fallbacks(family, b, i, " ".join(chunks[b, i]))
            if len(fonts.split("".join(chunks[b, i]), face)) > 1:
                every_glyph = False  # pieces in other faces: svgdraw cuts the runs
            if missing:
                every_glyph = False
                chars = ", ".join(f"'{c}' (U+{ord(c):04X})" for c in missing)
                self._problem(where, f"no glyph for {chars} in {face}: {_excerpt(text)}", "glyphs")
        return icons, every_glyph

    def icons(self) -> dict[str, icons.Icon]:
        """name -> (aspect ratio, source): the pack's icons/*.svg files, then the icon
        template's names."""
        if self._icons is None:  # once per build: the environment lives as long as the build
            memo = getattr(self.env, "pnpkit_icons", None) if self.env is not None else None
            if memo is None or memo[0] is not self.pack:
                memo = (self.pack, icons.available(self.pack, self.env))
                if self.env is not None:
                    self.env.pnpkit_icons = memo  # type: ignore[attr-defined]  # a memo on the build's env
            self._icons = memo[1]
        return self._icons

    def icon_svg(self, name: str, x: float, y: float, w: float, h: float) -> str:
        return (
            icons.markup(self.icons()[name], self.env, x, y, w, h) if name in self.icons() else ""
        )

    def _where(self, text: str, call: Location | None) -> Located:
        """The field the text came from, if it came from one, and the template line of the call
        that draws it; a text of the template's own stands at the call."""
        field = field_of(self.item, self.lang, text)
        if field is not None:
            return Located(self.item.field_where.get(field, self.item.where), call)
        return Located(call or self.item.where, None)

    def _style_fallbacks(self, family: str, bold: bool, italic: bool, text: str) -> None:
        """A warning for text drawn in another style than asked (fontfallback.py): at the
        template's call, so every card the call draws gives the one warning."""
        for message in fontfallback.notes(family, bold, italic, text):
            self._add(Problem(calling_template() or self.item.where, message, "fonts", "warning"))

    def _problem(self, where: Located, message: str, rule: str) -> None:
        drawn = f"text_box at {where.call}" if where.call else f"template '{self.template}'"
        self._add(Problem(where.at, f"{message} (language {self.lang}, {drawn})", rule))

    def _add(self, problem: Problem) -> None:
        if problem not in self.problems:
            self.problems.append(problem)


class Located(NamedTuple):
    """Where a text_box() problem stands (`at`: the field that supplied the text, else the
    call) and, when `at` is the field, the template line of the call."""

    at: Location
    call: Location | None


def field_of(item: Item, lang: str, text: str) -> str | None:
    """The field whose value (in lang) is the text, as written or as a number prints."""
    for name, value in item.fields.items():
        if isinstance(value, dict):
            value = value.get(lang)
        if value == text or (is_number(value) and str(value) == text):
            return name
    return None


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def calling_template() -> Location | None:
    """Where in a template the current call stands (Jinja maps its compiled lines back)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        template = frame.f_globals.get("__jinja_template__")
        if template is not None and template.filename:
            return _template_line(template, frame.f_lineno, os.getcwd())
        frame = frame.f_back
    return None


@workspace.memoized(cap=4096)
def _template_line(template: jinja2.Template, code_line: int, cwd: str) -> Location:
    """The template's line of a line of its compiled code, as the user sees it from `cwd`:
    each of a deck's cards asks for the same few calls, and making the path relative takes
    longer than drawing the text."""
    line = template.get_corresponding_lineno(code_line)
    return Location(display_path(Path(template.filename or "")), line, 1)


def _excerpt(text: str, n: int = 40) -> str:
    flat = " ".join(text.split())
    return f"'{flat[:n]}…'" if len(flat) > n else f"'{flat}'"


def _fit_rich(
    parsed: richtext.Parsed,
    family: str,
    aspects: dict[str, float],
    size: float,
    min_pt: float,
    w: float,
    h: float,
    leading: float,
    paragraph: float,
) -> tuple[float, richtext.Layout, list[richtext.Line], float, float, bool]:
    """Rich text wrapped at the largest size from size down to min_pt (by 0.25pt) that fits the
    box: (size, layout, lines, lift above the first line, height, whether it fits)."""
    current = size
    while True:
        layout = richtext.Layout(family, current * PT, aspects)
        lines = richtext.wrap(parsed, layout, w)
        # an icon is one em tall on the baseline: on the first line it stands above the ascent
        lift = (
            max(0.0, 1 - layout.ascent) * current * PT
            if lines and any(r[1] is None for r in lines[0].runs)
            else 0.0
        )
        height = richtext.block_height(lines, current * PT, leading, paragraph) + lift
        fits = height <= h + 1e-6 and all(line.width <= w + 1e-6 for line in lines)
        if fits or current - 0.25 < min_pt - 1e-9:
            break
        current -= 0.25
    return current, layout, lines, lift, height, fits


def _check_numbers(**numbers: Any) -> None:
    """Finite numbers only: a NaN size never shrinks to fit, so the fitting loop would never
    end."""
    for name, value in numbers.items():
        try:
            finite = not isinstance(value, bool) and math.isfinite(value)
        except (TypeError, OverflowError):  # a string, None, an int too large for a float
            finite = False
        if not finite:
            raise TextBoxError(
                f"text_box {name} must be a finite number (got {_excerpt(str(value))})"
            )
    if not 0 < numbers["size"] <= TextBoxes.MAX_SIZE_PT:
        raise TextBoxError(
            "text_box size must be more than 0 and at most "
            f"{TextBoxes.MAX_SIZE_PT:g} (pt; got {numbers['size']:g})"
        )
    if not 0 < numbers["leading"] <= TextBoxes.MAX_LEADING:
        raise TextBoxError(
            "text_box leading must be more than 0 and at most "
            f"{TextBoxes.MAX_LEADING:g} (got {numbers['leading']:g})"
        )


def _font(family: str, bold: bool, italic: bool, anchor: str, valign: str, paragraph: float) -> str:
    """The face text_box() draws in; TextBoxError for a choice it cannot make."""
    if not 0 <= paragraph <= TextBoxes.MAX_LEADING:
        raise TextBoxError(
            "text_box paragraph must be from 0 to "
            f"{TextBoxes.MAX_LEADING:g} (line steps; got {paragraph:g})"
        )
    if anchor not in ("start", "middle", "end") or valign not in ("top", "middle", "bottom"):
        raise TextBoxError(
            "text_box anchor must be start|middle|end and "
            f"valign top|middle|bottom (got {anchor}, {valign})"
        )
    font = fonts.face_name(family, bool(bold), bool(italic))
    if font is None:
        raise TextBoxError(
            f"font family '{family}' is not available (use {', '.join(fonts.families())})"
        )
    return font
