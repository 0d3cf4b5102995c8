"""Text warnings stand at the item field that supplied the text (a YAML line, a CSV or XLSX cell)
and name the template line of the text_box() call or <text> element that drew it."""

from __future__ import annotations

import re

from conftest import write_pack
from pnpkit.build import pipeline as build
from pnpkit.build.cache import Cache
from sheetfiles import write_delimited, write_xlsx

GAME = "name: T\nlanguages: [en]\nplayers: {min: 1, max: 1}\n"
LOW = "has a contrast of 3.0:1 with the colour under it, below 4.5:1 (WCAG)"

# Grey (#949494) on white: 3.0:1. The title by text_box() inside an {% extends %} child's block,
# the note by a raw <text>; a Jinja comment holds the title's words (the old search found them).
CARD = """{% extends "_face.svg.j2" %}
{#- Grey Wolf is a title -#}
{% block content %}
<rect x="-3" y="-3" width="{{ face.w + 6 }}" height="{{ face.h + 6 }}" fill="#ffffff"/>

{{ text_box(item.title, 5, 5, 50, 8, size=10, fill='#949494') }}
<text x="5" y="40" font-size="3" fill="#000000">ok</text>
<text x="5" y="50" font-size="3"
  fill="#949494">{{ item.note }}</text>
{{ text_box('Legend', 5, 60, 50, 8, size=10, fill='#949494') }}
{% endblock %}
"""
T = "templates/t/card.svg.j2"


def deck(root, items: str, extra: dict | None = None):
    return write_pack(
        root,
        {
            "game.yaml": GAME,
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n  front: t/card.svg.j2\n"
            "  fields: {title: text, note: text}\n" + items,
            "templates/t/card.svg.j2": CARD,
            **(extra or {}),
        },
    )


def warnings(root) -> list[str]:
    result = build.validate(root, cache=Cache())
    assert not result.errors, [str(p) for p in result.errors]
    return [short(root, p) for p in result.problems]


def short(root, problem) -> str:
    """The problem with the paths to the pack left out."""
    return re.sub(rf"[^\s(]*/{root.name}/", "", str(problem))


def test_a_yaml_field_a_raw_text_and_a_template_literal(tmp_path):
    root = deck(
        tmp_path / "p",
        "  items:\n    - {id: wolf, title: Grey Wolf, note: howls at night}\n",
    )
    assert warnings(root) == [
        f"cards.yaml:7:25: warning: text 'Grey Wolf' {LOW} "
        f"(the front of 'wolf', drawn by text_box() at {T}:6:1) [text]",
        f"cards.yaml:7:42: warning: text 'howls at night' {LOW} "
        f"(the front of 'wolf', drawn by <text> at {T}:9:21) [text]",
        f"{T}:10:1: warning: text 'Legend' {LOW} [text]",
    ]


def test_a_csv_cell(tmp_path):
    root = deck(tmp_path / "p", "  items: cards.csv\n")
    write_delimited(root / "cards.csv", [["id", "title", "note"], ["owl", "Grey Owl", "hoots"]])
    assert warnings(root) == [
        f"cards.csv:2:5: warning: text 'Grey Owl' {LOW} "
        f"(the front of 'owl', drawn by text_box() at {T}:6:1) [text]",
        f"cards.csv:2:14: warning: text 'hoots' {LOW} "
        f"(the front of 'owl', drawn by <text> at {T}:9:21) [text]",
        f"{T}:10:1: warning: text 'Legend' {LOW} [text]",
    ]


def test_an_xlsx_cell(tmp_path):
    root = deck(tmp_path / "p", "  items: {from: market.xlsx, sheet: Market}\n")
    rows = [["id", "note", "title"], ["owl", "hoots", "Grey Owl"]]
    write_xlsx(root / "market.xlsx", rows, sheet="Market")
    assert warnings(root) == [
        f"market.xlsx:Market!B2: warning: text 'hoots' {LOW} "
        f"(the front of 'owl', drawn by <text> at {T}:9:21) [text]",
        f"market.xlsx:Market!C2: warning: text 'Grey Owl' {LOW} "
        f"(the front of 'owl', drawn by text_box() at {T}:6:1) [text]",
        f"{T}:10:1: warning: text 'Legend' {LOW} [text]",
    ]


def test_text_box_problems_name_the_call(tmp_path):
    """text_box()'s own findings (here an overflow, an error) stand at the field too."""
    long = "word " * 60
    root = deck(tmp_path / "p", f"  items:\n    - {{id: wolf, title: '{long}', note: ok}}\n")
    result = build.validate(root, cache=Cache())
    (error,) = [short(root, p) for p in result.errors]
    assert error.startswith("cards.yaml:7:25: error: text overflows its 50x8mm box")
    assert error.endswith(f"(language en, text_box at {T}:6:1) [text-fits]")


def test_a_face_the_cache_serves_is_located_alike(tmp_path):
    """The second build renders nothing (every face from the cache): the calls it records come
    from the cache's entries."""
    root = deck(tmp_path / "p", "  items:\n    - {id: wolf, title: Grey Wolf, note: ok}\n")
    cache = Cache()
    first = [short(root, p) for p in build.validate(root, cache=cache).problems]
    again = build.validate(root, cache=cache)
    assert cache.stats["faces rendered"] == 0
    assert [short(root, p) for p in again.problems] == first
    assert f"drawn by text_box() at {T}:6:1" in first[0]
