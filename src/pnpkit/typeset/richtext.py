"""Rich text in text_box(): inline icons, bold and italic spans, paragraphs, escapes, both
directions.

Markup (in any text a template hands to text_box()):

    Gain :wood: and **two** cards.      :name: an icon, **bold**, *italic*
    A blank line starts a paragraph.    \\: \\* \\\\ stand for themselves

Text is cut into words at whitespace; a word may mix spans and icons, so an
icon followed by a punctuation mark (":wood:,") never wraps apart from it.
Lines are filled greedily and measured exactly as the renderer draws them:
each run of one style is shaped (shaping.py), an icon is one em tall and as
wide as its aspect ratio makes it, its bottom on the baseline. A line that is one run of the
box's own style is written as before rich text existed (one <tspan> per line),
so plain text gives the same SVG; a line with spans is one <tspan> with inline
style <tspan>s; a line with icons is cut into pieces in visual order, each
placed at its measured x, with the icons drawn beside the <text>.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from markupsafe import escape

from pnpkit.svg.text import LaidLine, c14n_text, laid_line, laid_whitespace
from pnpkit.typeset import fonts, shaping
from pnpkit.units import MM_PER

PT = MM_PER["pt"]  # mm per point
ICON = "\ufffc"  # OBJECT REPLACEMENT CHARACTER: an icon's place in the bidi algorithm (a neutral)
_ICON_RE = re.compile(r":([A-Za-z0-9][A-Za-z0-9_-]*):")
_MARKUP = re.compile(r"[*:\\]|\n[ \t]*\n")
# A stretch of characters parse() takes as they are: no markup character and no whitespace.
_PLAIN = re.compile(r"[^*:\\\s]+")


def has_markup(text: str) -> bool:
    """Whether text needs the rich path at all (plain text keeps the plain one)."""
    return _MARKUP.search(text) is not None or shaping.needs_bidi(text)


class Seg(NamedTuple):
    """A piece of a word: text in one style, or an icon (text is its name). A NamedTuple: a
    text has dozens, and a frozen dataclass is several times slower to make."""

    text: str
    bold: bool = False
    italic: bool = False
    icon: bool = False


Word = tuple[Seg, ...]
# A laid-out run: (text, bold, italic) in one style, or (icon name, None, None).
TextRun = tuple[str, bool, bool]
IconRun = tuple[str, None, None]
Run = TextRun | IconRun
# Draws an icon: (name, x, y, w, h) -> its SVG markup.
IconSvg = Callable[[str, float, float, float, float], str]


@dataclass
class Parsed:
    # [paragraph: [line: [word]]]: explicit newlines keep their line breaks
    paragraphs: list[list[list[Word]]]
    problems: list[str] = field(default_factory=list)  # messages about the markup
    icons: list[str] = field(default_factory=list)  # icon names in order


def parse(text: str, bold: bool = False, italic: bool = False) -> Parsed:
    """The paragraphs, lines and words of marked-up text; the box's own bold/italic are the base."""
    scan = _Scan(bold, italic)
    if "\n" in text or "\\" in text:  # line breaks and escapes: character by character
        scan.feed(text)
    else:  # markup never spans whitespace: word by word, a word without '*' or ':' at once
        line = scan.out.paragraphs[0][0]
        for token in text.split():
            if "*" in token or ":" in token:
                scan.feed(token)
                scan.end_word()
            else:
                line.append((Seg(token, bold or scan.b, italic or scan.i),))
    scan.end_word()
    if scan.b:
        scan.out.problems.append("'**' opens bold text that is never closed (write \\* for a star)")
    if scan.i:
        scan.out.problems.append(
            "'*' opens italic text that is never closed (write \\* for a star)"
        )
    return scan.out


class _Scan:
    """parse()'s state: what it made so far, the word and text it is in, the spans open."""

    def __init__(self, bold: bool, italic: bool) -> None:
        self.bold, self.italic = bold, italic
        self.out = Parsed([[[]]])
        self.word: list[Seg] = []
        self.buf: list[str] = []
        self.b, self.i = False, False

    def flush_text(self) -> None:
        if self.buf:
            self.word.append(Seg("".join(self.buf), self.bold or self.b, self.italic or self.i))
            self.buf.clear()

    def end_word(self) -> None:
        self.flush_text()
        if self.word:
            self.out.paragraphs[-1][-1].append(tuple(self.word))
            self.word.clear()

    def feed(self, text: str) -> None:
        buf, pos = self.buf, 0
        while pos < len(text):
            ch = text[pos]
            if ch == "\\" and pos + 1 < len(text):
                buf.append(text[pos + 1])
                pos += 2
                continue
            if ch == "*":
                self.flush_text()
                if text.startswith("**", pos):
                    self.b, pos = not self.b, pos + 2
                else:
                    self.i, pos = not self.i, pos + 1
                continue
            if ch == ":" and (m := _ICON_RE.match(text, pos)):
                self.flush_text()
                self.word.append(Seg(m.group(1), self.bold or self.b, self.italic or self.i, True))
                self.out.icons.append(m.group(1))
                pos = m.end()
                continue
            if ch == "\n":
                self.end_word()
                blank = re.match(r"\n[ \t]*\n\s*", text[pos:])
                if blank:
                    self.out.paragraphs.append([[]])
                    pos += blank.end()
                else:
                    self.out.paragraphs[-1].append([])
                    pos += 1
                continue
            if ch.isspace():
                self.end_word()
                pos += 1
            elif m := _PLAIN.match(text, pos):  # the rest of the word at once
                buf.append(m.group())
                pos = m.end()
            else:  # a ':' that starts no icon, a '\\' at the very end
                buf.append(ch)
                pos += 1


@dataclass
class Line:
    """One laid-out line: runs (text, bold, italic) or (icon name, None, None), and where it
    belongs."""

    runs: list[Run]
    width: float = 0.0
    paragraph: int = 0  # index of its paragraph
    rtl: bool = False  # its paragraph's direction


class Layout:
    """Measures runs at one font size: text shaped in its style's font, icons by their aspect."""

    def __init__(self, family: str, size_mm: float, aspects: dict[str, float]):
        self.family, self.size, self.aspects = family, size_mm, aspects
        self._faces: dict[tuple[bool, bool], str] = {}  # every new word asks
        self.ascent = fonts.ascent_descent(self.font(False, False))[0]
        self._widths: dict[Run, float] = {}  # words repeat

    def font(self, bold: bool, italic: bool) -> str:
        face = self._faces.get((bold, italic))
        if face is None:
            face = fonts.face_name(self.family, bold, italic)
            # text_box() found the family, and face_name() gives its nearest style
            assert face is not None, (self.family, bold, italic)
            self._faces[bold, italic] = face
        return face

    def icon_size(self, name: str) -> tuple[float, float]:
        h = self.size  # one em: an icon reads as large as a word's capitals and ascenders

        return h * self.aspects.get(name, 1.0), h

    def run_width(self, run: Run) -> float:
        width = self._widths.get(run)
        if width is None:
            text, bold, italic = run
            if bold is None or italic is None:
                width = self.icon_size(text)[0]
            else:
                width = fonts.unit_width(text, self.font(bold, italic)) * self.size
            self._widths[run] = width
        return width

    def width(self, runs: Iterable[Run]) -> float:
        return sum(self.run_width(r) for r in runs)


def _word_runs(word: Word) -> list[Run]:
    if len(word) == 1 and not word[0].icon:  # most words: one run of text
        return [word[0][:3]]
    return [(s.text, None, None) if s.icon else (s.text, s.bold, s.italic) for s in word]


def _extend(out: list[Run], more: Iterable[Run]) -> None:
    """more appended to out in place, merging neighbouring text runs of one style."""
    for r in more:
        if out and r[1] is not None and out[-1][1] is not None and out[-1][1:] == r[1:]:
            out[-1] = (out[-1][0] + r[0], r[1], r[2])
        else:
            out.append(r)


_SHORT_NUMBER = re.compile(r"[0-9]{1,3}[.,;:!?)]?")


def _keep_numbers(words: list[tuple[Seg, ...]]) -> list[tuple[Seg, ...]]:
    """A short number ("0.", "6") joined to the word before it, so it never stands alone at the
    start of a line (the widow "0." under "...the first free space")."""
    out: list[tuple[Seg, ...]] = []
    for word in words:
        if not (out and "0" <= word[0].text[:1] <= "9"):  # most words: no join, no match
            out.append(word)
            continue
        text = "".join(s.text for s in word)
        if not any(s.icon for s in word) and _SHORT_NUMBER.fullmatch(text):
            last = next((s for s in reversed(out[-1]) if not s.icon), Seg(""))
            out[-1] = (*out[-1], Seg(" ", last.bold, last.italic), *word)
        else:
            out.append(word)
    return out


def wrap(parsed: Parsed, layout: Layout, width: float, fast: bool = True) -> list[Line]:
    """Greedy fill; a word wider than the box stands alone on its line. A line is measured as its
    words plus its spaces, each shaped on its own (words repeat, so their shapes are cached); no
    font kerns across a space by more than a hair. fast=False: every word takes the general path
    (the tests compare the two)."""
    lines: list[Line] = []
    run_width = layout.run_width
    for p, paragraph in enumerate(parsed.paragraphs):
        plain = " ".join(s.text for line in paragraph for w in line for s in w if not s.icon)
        rtl = shaping.base_level(plain) == 1
        for given in paragraph:
            current: list[Run] = []
            used = 0.0
            for word in _keep_numbers(given):
                if (
                    fast
                    and len(word) == 1
                    and not word[0].icon
                    and current
                    and current[-1][1] is not None
                ):
                    # most words: one run of text after text; merged into it when of its style
                    one, prev = word[0][:3], current[-1]
                    word_w = run_width(one)
                    trial_w = used + run_width((" ", prev[1], prev[2])) + word_w
                    if trial_w > width:
                        lines.append(Line(current, used, p, rtl))
                        current, used = [one], word_w
                    elif prev[1:] == one[1:]:
                        current[-1] = (f"{prev[0]} {one[0]}", one[1], one[2])
                        used = trial_w
                    else:
                        _extend(current, ((" ", prev[1], prev[2]), one))
                        used = trial_w
                    continue
                runs = _word_runs(word)
                word_w = layout.run_width(runs[0]) if len(runs) == 1 else layout.width(runs)
                if current:
                    last = current[-1]
                    space: TextRun = (
                        (" ", last[1], last[2])
                        if last[1] is not None
                        else (" ", runs[0][1] or False, runs[0][2] or False)
                    )
                    trial_w = used + layout.run_width(space) + word_w
                    if trial_w > width:
                        lines.append(Line(current, used, p, rtl))
                        current, used = [], word_w
                        _extend(current, runs)
                    else:
                        _extend(current, (space, *runs))
                        used = trial_w
                else:
                    _extend(current, runs)
                    used = word_w
            lines.append(Line(current, used, p, rtl))
    return lines


def block_height(lines: list[Line], size_mm: float, leading: float, paragraph: float) -> float:
    """From the top of the first line's em box to the baseline-bottom of the last line's."""
    if not lines:
        return 0.0
    step = size_mm * leading
    breaks = sum(1 for a, b in zip(lines, lines[1:]) if a.paragraph != b.paragraph)
    return size_mm + step * (len(lines) - 1) + step * paragraph * breaks


def baselines(
    lines: list[Line], top: float, ascent: float, size_mm: float, leading: float, paragraph: float
) -> list[float]:
    step, y, out = size_mm * leading, top + ascent * size_mm, []
    for n, line in enumerate(lines):
        if n and line.paragraph != lines[n - 1].paragraph:
            y += step * paragraph
        out.append(y)
        y += step
    return out


def _style(
    bold: bool, italic: bool, base_bold: bool, base_italic: bool, canonical: bool = False
) -> str:
    """The attributes of a span in this style inside a box in the base style: font-weight
    first as written, font-style first in canonical XML's order (`canonical`)."""
    weight = f' font-weight="{"bold" if bold else "normal"}"' if bold != base_bold else ""
    style = f' font-style="{"italic" if italic else "normal"}"' if italic != base_italic else ""
    return style + weight if canonical else weight + style


# A line's <tspan>s as laid out for svgdraw (lay_out): each one's canonical XML and how
# it compiles; None where svgdraw must read them (right-to-left text, unusual whitespace).
Laid = list[tuple[str, LaidLine]] | None


def line_svg(
    line: Line,
    x: float,
    y: float,
    anchor: str,
    box: tuple[float, float],
    layout: Layout,
    base: tuple[bool, bool],
    icon_svg: IconSvg,
) -> tuple[str, str, Laid]:
    """(tspans inside the <text>, icon markup after it, the tspans laid out) for one line.

    x is the anchor point as text_box computed it; box is (x, w) of the text box."""
    texts = [r for r in line.runs if r[1] is not None]
    bidi = shaping.needs_bidi(
        "".join(r[0] for r in texts)
    )  # iff in one of them: a one-character pattern
    if len(texts) == len(line.runs):  # no icons
        tspan, laid = _plain_line(texts, x, y, line.rtl, bidi, layout, base)
        return tspan, "", laid
    return _icon_line(line, x, y, anchor, bidi, layout, base, icon_svg)


def _plain_line(
    texts: list[TextRun],
    x: float,
    y: float,
    rtl: bool,
    bidi: bool,
    layout: Layout,
    base: tuple[bool, bool],
) -> tuple[str, Laid]:
    """A line without icons: one <tspan> at the anchor point, and it laid out."""
    joined = "".join(r[0] for r in texts)
    direction = ' direction="rtl"' if rtl else (' direction="ltr"' if bidi else "")
    inner = "".join(
        escape(text)
        if (bold, italic) == base
        else f"<tspan{_style(bold, italic, *base)}>{escape(text)}</tspan>"
        for text, bold, italic in texts
    )
    x_attr, y_attr = f"{x:.3f}", f"{y:.3f}"
    at = f'x="{x_attr}" y="{y_attr}"'
    tspan = f"<tspan {at}{direction}>{inner}</tspan>"
    if direction or not laid_whitespace(joined):
        return tspan, None
    # each run is one text node: the tspan's text or a span's, or a span's tail
    runs = [(text, layout.font(bold, italic)) for text, bold, italic in texts]
    laid = laid_line(x_attr, y_attr, None, runs)
    if laid is None:
        return tspan, None
    # its canonical XML is the tspan as written, but for quotes (escaped here, not there)
    # and a span's two attributes (sorted there)
    quoted = "'" in joined or '"' in joined
    if quoted or any(b != base[0] and i != base[1] for _, b, i in texts):
        tspan_key = "".join(
            c14n_text(text)
            if (bold, italic) == base
            else f"<tspan{_style(bold, italic, *base, True)}>{c14n_text(text)}</tspan>"
            for text, bold, italic in texts
        )
        return tspan, [(f"<tspan {at}>{tspan_key}</tspan>", laid)]
    return tspan, [(tspan, laid)]


def _icon_line(
    line: Line,
    x: float,
    y: float,
    anchor: str,
    bidi: bool,
    layout: Layout,
    base: tuple[bool, bool],
    icon_svg: IconSvg,
) -> tuple[str, str, Laid]:
    """A line with icons: place every piece where the measured line puts it, in visual order."""
    share = {"start": 0.0, "middle": 0.5, "end": 1.0}[anchor]
    if line.rtl:
        share = 1.0 - share
    cursor = x - share * line.width
    runs_ = [(ICON if r[1] is None else r[0], r) for r in line.runs]
    spans: list[str] = []
    icons: list[str] = []
    pieces: Laid = []
    y_attr = f"{y:.3f}"
    for text, run, rtl in shaping.visual_pieces(runs_, "rtl" if line.rtl else "ltr"):
        if run[1] is None:
            for _ in text:  # one piece may hold two neighbouring icons
                w, h = layout.icon_size(run[0])
                icons.append(icon_svg(run[0], cursor, y - h, w, h))
                cursor += w
            continue
        wanted = pieces is not None and not rtl and not bidi
        total, span, laid = _text_piece(text, run, rtl, cursor, y_attr, layout, base, wanted)
        spans.append(span)
        pieces = None if pieces is None or laid is None else pieces + laid
        cursor += total
    return "".join(spans), "".join(icons), pieces


def _text_piece(
    text: str,
    run: TextRun,
    rtl: bool,
    cursor: float,
    y_attr: str,
    layout: Layout,
    base: tuple[bool, bool],
    wanted: bool,
) -> tuple[float, str, Laid]:
    """A piece of text between icons starting at cursor: (its width, its <tspan> or "" when
    blank, it laid out: [] when blank, None unless `wanted` and layable)."""
    _, bold, italic = run
    font = layout.font(bold, italic)
    whole = len(fonts.split(text, font)) == 1  # else pieces in the faces of its chain
    total = shaping.shape(text, font, rtl)[2] if whole else fonts.unit_width(text, font)
    total *= layout.size
    body = text.strip()
    if not body:
        return total, "", []
    lead = text[: len(text) - len(text.lstrip())]
    lead_w = fonts.string_width(lead, font, layout.size) if lead else 0.0
    x_attr = f"{cursor + total - lead_w if rtl else cursor + lead_w:.3f}"
    span = (
        f'<tspan x="{x_attr}" y="{y_attr}" text-anchor="start" '
        f'direction="{"rtl" if rtl else "ltr"}"'
        f"{_style(bold, italic, *base)}>{escape(body)}</tspan>"
    )
    if not (wanted and laid_whitespace(body)):
        return total, span, None
    piece = laid_line(x_attr, y_attr, 0.0, ((body, font),))
    key = (
        f'<tspan direction="ltr"{_style(bold, italic, *base, True)} '
        f'text-anchor="start" x="{x_attr}" y="{y_attr}">'
        f"{c14n_text(body)}</tspan>"
    )
    return total, span, None if piece is None else [(key, piece)]
