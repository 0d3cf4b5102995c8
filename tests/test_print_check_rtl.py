"""A right-to-left kit's print check: its words (a pack's Arabic strings, pnpkit's English for
the kit's English PDF) right-aligned and shaped; its settings lines and page labels in Arabic."""

from __future__ import annotations

import unicodedata

import pypdfium2
import pytest
from pypdf import PdfReader

from conftest import write_pack
from pnpkit.build import pipeline as build
from pnpkit.commands.cli import main

AR = {  # a tiny Arabic pack's words for pnpkit (DejaVu Sans, pnpkit's font, has Arabic)
    "print_check": "فحص الطباعة",
    "actual_size": "اطبع بالحجم الفعلي",
    "measure": "يجب أن يقيس الشريط 100 مم تماماً.",
    "scaled": "إن لم يكن كذلك فأعد الطباعة.",
    "duplex": "فحص الوجهين: أمسك الورقة أمام الضوء.",
    "duplex_ticks": "الرقم تحت العلامة الحمراء هو ما تضيفه إلى الإزاحة.",
    "corners": "الزوايا: الصليب الأحمر في مركز الحلقات.",
    "corners_how": "اليسار واليمين متعاكسان: الخلف مُحجَّم.",
    "paper": "الورق: {paper}",
    "backs": "الظهور: {backs} (إزاحة الظهر {x} مم، {y} مم)",
    "spacing": "النزف: {bleed} مم، الهامش: {margin} مم، الفجوة: {gap} مم",
    "made_with": "صنع باستخدام pnpkit",
    "front": "وجه",
    "back": "ظهر",
    "tile": "قص الحافتين اليسرى والعليا وضعه على جاره",
    "fold_pair": "ضع هذه الورقة يسار الأخيرة واطوِ عند الوصلة",
    "label_test": "اختبار الملصقات: اطبع على ورق عادي",
}
PX = 4  # per mm


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    root = tmp_path_factory.mktemp("rtl")
    strings = "".join(f'  pnpkit_{key}: {{ar: "{word}"}}\n' for key, word in AR.items())
    pack = write_pack(
        root / "ar",
        {
            "game.yaml": "name: {ar: لعبة, en: Game}\nlanguages: [ar, en]\n"
            "players: {min: 1, max: 2}\nprint: {backs: long-edge}\nstrings:\n" + strings,
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n  front: t.svg.j2\n"
            "  back: t.svg.j2\n  items:\n    - {id: one}\n",
            "templates/t.svg.j2": '{% extends "_face.svg.j2" %}{% block content %}{% endblock %}\n',
        },
    )
    assert build.validate(pack).problems == []  # every word given: no English fallback
    assert main(["build", str(pack), "--out", str(root / "out")]) == 0
    return root / "out/ar"


def ink_columns(pdf, top_mm: float, bottom_mm: float, right_mm: float = 210) -> tuple[float, float]:
    """The leftmost and rightmost dark column (mm) of the print check between two heights (and
    left of right_mm)."""
    image = pypdfium2.PdfDocument(pdf)[0].render(scale=PX * 25.4 / 72).to_pil().convert("L")
    band = image.crop((0, round(top_mm * PX), round(right_mm * PX), round(bottom_mm * PX)))
    box = band.point(lambda v: 255 if v < 128 else 0).getbbox()
    assert box is not None, (top_mm, bottom_mm)
    return box[0] / PX, box[2] / PX


def text(pdf, page: int) -> str:
    return unicodedata.normalize("NFKC", PdfReader(pdf).pages[page].extract_text())


def test_an_arabic_print_check_is_right_aligned(kit):
    for top, bottom in ((30, 36), (36, 42)):  # sentences under the heading
        left, right = ink_columns(kit / "ar-ar.pdf", top, bottom)
        assert left > 60 and 188 < right < 190.5, (top, left, right)  # end 20 mm from the edge
    left, right = ink_columns(kit / "ar-ar.pdf", 170, 196, right_mm=180)  # settings, not ladder
    assert left > 60 and 165 < right < 170.5, (left, right)  # clear of the Y ladder's ticks
    for top, bottom, right_mm in ((30, 36, 210), (170, 196, 180)):  # the kit's English PDF
        left, right = ink_columns(kit / "ar-en.pdf", top, bottom, right_mm)
        assert 19.5 < left < 21 and right < 150, (top, left, right)  # left-aligned


def test_its_fixed_lines_and_page_labels_are_the_packs_words(kit):
    check = text(kit / "ar-ar.pdf", 0)
    assert "فحص الطباعة" in check and "الورق" in check and "long-edge" in check
    assert "paper:" not in check and "made with pnpkit" not in check
    label = text(kit / "ar-ar.pdf", 2)
    assert "وجه" in label and "front" not in label
    assert "ظهر" in text(kit / "ar-ar.pdf", 3)
    english = text(kit / "ar-en.pdf", 0)  # no `en` given: pnpkit's own English
    assert "Print check" in english and "paper: a4" in english and "made with pnpkit" in english
    assert "front" in text(kit / "ar-en.pdf", 2)
