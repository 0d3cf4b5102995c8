"""pnpkit's own print-check page: a long pack name stays on the page, and a pack can give
pnpkit's words for a language pnpkit does not know (else a warning: they print in English)."""

from __future__ import annotations

import re

from conftest import ROOT, write_pack
from pnpkit.build import pipeline as build
from pnpkit.pdf import calibration
from pnpkit.typeset import fonts
from pnpkit.units import PT_PER_MM

CARDS = "cards:\n  kind: card\n  size: poker\n  front: t.svg.j2\n  items:\n    - {id: one}\n"
FACE = '{% extends "_face.svg.j2" %}{% block content %}{% endblock %}\n'
WORDS = "".join(f"  {key}: {{fr: 'mot {n}'}}\n" for n, key in enumerate(calibration.WORD_KEYS))


def pack(root, name="T", strings=""):
    return write_pack(
        root,
        {
            "game.yaml": f"name: {name}\nlanguages: [fr]\nplayers: {{min: 1, max: 1}}\n"
            + (f"strings:\n{strings}" if strings else ""),
            "cards.yaml": CARDS,
            "templates/t.svg.j2": FACE,
        },
    )


def test_a_language_pnpkit_does_not_know_falls_back_to_english_with_a_warning(tmp_path):
    found = [
        str(p).split("probe/", 1)[-1] for p in build.validate(pack(tmp_path / "probe")).problems
    ]
    assert found == [
        f"game.yaml:1:1: warning: pnpkit has no words for its print-check page in 'fr'; it prints"
        f" them in English (strings {', '.join(calibration.WORD_KEYS)} give them: docs/format.md)"
        " [words]"
    ]


def test_a_language_given_some_words_warns_of_the_others_only(tmp_path):
    root = pack(tmp_path / "probe", strings="  pnpkit_print_check: {fr: Contrôle}\n")
    (problem,) = build.validate(root).problems
    assert "pnpkit_print_check," not in problem.message
    assert f"(strings {', '.join(calibration.WORD_KEYS[1:])} give them" in problem.message


def test_the_docs_list_exactly_the_print_check_strings_the_code_reads():
    documented = set(re.findall(r"`(pnpkit_(?!guide_)\w+)`", (ROOT / "docs/format.md").read_text()))
    assert documented == set(calibration.WORD_KEYS)


def test_a_pack_need_not_give_a_language_pnpkit_speaks(tmp_path):
    """`en` left out of a pnpkit_* string: pnpkit's own English prints, not an error; a word the
    pack does give for `en` replaces pnpkit's."""
    root = write_pack(
        tmp_path / "probe",
        {
            "game.yaml": "name: T\nlanguages: [fr, en]\nplayers: {min: 1, max: 1}\nstrings:\n"
            + "".join(
                f"  {key}: {{fr: 'mot {n}'}}\n" for n, key in enumerate(calibration.WORD_KEYS)
            )
            + "  pnpkit_guide_kit: {en: Our kit}\n",
            "cards.yaml": CARDS,
            "templates/t.svg.j2": FACE,
        },
    )
    assert build.validate(root).problems == []
    words = calibration.words("en", {"pnpkit_made_with": {"fr": "fait"}})
    assert words == (calibration.WORDS, [])
    assert calibration.words("en", {"pnpkit_made_with": {"en": "ours"}})[0]["made_with"] == "ours"


def test_the_pack_gives_pnpkit_its_words(tmp_path):
    root = pack(tmp_path / "probe", strings=WORDS)
    assert build.validate(root).problems == []
    assert (
        calibration.words("fr", {k: {"fr": f"w{k}"} for k in calibration.WORD_KEYS})[0][
            "print_check"
        ]
        == "wpnpkit_print_check"
    )


def test_a_long_heading_shrinks_then_wraps_within_the_page():
    bold = fonts.face_name(fonts.DEFAULT_FAMILY, bold=True)
    short, size = calibration.heading("Mammoth Herd — Print check", 170, 6)
    assert short == ["Mammoth Herd — Print check"] and size == 16
    title = "The Extraordinarily Long and Winding Name of a Game About Space Freight — Print check"
    lines, size = calibration.heading(title, 170, 6)
    assert len(lines) == 2 and 6 <= size <= 10
    assert all(fonts.string_width(line, bold, size) <= 170 * PT_PER_MM for line in lines)


def test_a_heading_that_only_fits_below_the_minimum_is_a_warning(tmp_path):
    name = "Supercalifragilisticexpialidocious" * 5  # one word: it cannot wrap
    found = [
        str(p).split("probe/", 1)[-1]
        for p in build.validate(pack(tmp_path / "probe", name, WORDS)).problems
    ]
    assert (
        len(found) == 1
        and "the print-check heading" in found[0]
        and "below the minimum 6pt [words]" in found[0]
    )
