"""Words that say how a piece is made, drawn on the sheet: "fold" (in the kit's language,
guidewords.py) on the middle line of every fold-over standee and beside a gutter-fold sheet's
fold line (a die's net: dicemarks.py). The pack's art cannot know the kit's words, and a
stranger's standee template may draw no fold line at all: pnpkit marks the fold wherever it
lays a fold-over piece out."""

from __future__ import annotations

from dataclasses import dataclass

from reportlab.lib.colors import Color, white
from reportlab.pdfgen.canvas import Canvas

from pnpkit.impose.page import Page, Placement
from pnpkit.pack.model import Pack
from pnpkit.pdf import guidewords
from pnpkit.typeset import fonts
from pnpkit.units import PT_PER_MM

K = PT_PER_MM
WORD_PT = 6.0  # the smallest size a kit prints (the tuck box's fold words too)
INK = Color(0.3, 0.3, 0.3)


@dataclass(frozen=True)
class Folds:
    """What a PDF's fold marks need: the kit's word, and which groups are fold-over standees."""

    word: str = "fold"
    groups: frozenset[str] = frozenset()  # groups with `standee: {base: ...}`
    glue: str = "glue"
    dice: frozenset[str] = frozenset()  # groups of kind die: their nets' marks (dicemarks.py)

    @classmethod
    def of(cls, pack: Pack, lang: str) -> Folds:
        words = guidewords.words(lang, pack.strings)
        return cls(
            words["fold"],
            frozenset(name for name, g in pack.groups.items() if g.base > 0),
            words["glue"],
            frozenset(name for name, g in pack.groups.items() if g.kind == "die"),
        )


NONE = Folds()  # English, no fold-over standees: a PDF of pnpkit's own pages


def standee_folds(c: Canvas, page: Page, folds: Folds) -> None:
    """The word on a white patch just above the middle fold of each fold-over standee: the fold
    between its two panels lies across the middle of its length (base tab, back panel, fold,
    front panel, base tab). A standee without that layout has no fold to mark."""
    for p in page.placements:
        if p.face.group in folds.groups and p.clip is None:
            _on_fold(c, page, p, folds.word)


def _on_fold(c: Canvas, page: Page, p: Placement, word: str) -> None:
    name = fonts.default_face()
    width = fonts.string_width(word, name, WORD_PT)
    across = p.face.size[0] * K  # the piece's width, along its fold
    if width + 2 > across:
        return  # too narrow to carry the word: the template's line says it
    c.saveState()
    c.translate((p.x + p.w / 2) * K, (page.h - p.y - p.h / 2) * K)
    c.rotate(-p.turn)  # the face's own axes: its fold runs along its x axis
    c.setFillColor(white)
    c.rect(-width / 2 - 1, 0.6, width + 2, WORD_PT, stroke=0, fill=1)
    c.setFillColor(INK)
    c.setFont(name, WORD_PT)
    c.drawCentredString(0, 0.6 + WORD_PT * 0.22, word)
    c.restoreState()


def gutter_fold(c: Canvas, page: Page, x: float, top: float, word: str) -> None:
    """The word beside the top of a gutter-fold sheet's fold line (x, top in mm, y down),
    reading along the line."""
    c.saveState()
    c.translate(x * K, (page.h - top) * K)
    c.rotate(90)
    c.setFillColor(INK)
    c.setFont(fonts.default_face(), WORD_PT)
    c.drawRightString(-2, 2.5, word)  # clear of the dashes and of j's tail
    c.restoreState()
