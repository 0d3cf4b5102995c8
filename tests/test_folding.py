"""Warnings alike are one line with a count (--all-warnings lists them); errors are never folded;
a low contrast is one warning per run of text, not one per line."""

from __future__ import annotations

import re

from conftest import write_pack
from pnpkit.build import pipeline as build
from pnpkit.checks import textcheck
from pnpkit.commands import watch
from pnpkit.commands.cli import main
from pnpkit.errors import Location, Problem, folded

GAME = """name: T
languages: [en]
players: {min: 1, max: 1}
checks:
  - {rule: count, id: T-1, group: cards, exact: 5, why: five cards}
  - {rule: count, id: T-2, group: cards, exact: 6, why: six cards}
"""
CARDS = """cards:
  kind: card
  size: poker
  front: t.svg.j2
  fields: {text: text}
  items:
    - {id: one, text: Draw two cards then discard one of them at once}
    - {id: two, text: Gain a wood and trade it with the bank for gold}
    - {id: three, text: Move the herd and score ten points for it now}
    - {id: four, text: Short}
"""
PALE = """{% extends "_face.svg.j2" %}{% block content %}
<rect x="-3" y="-3" width="{{ face.w + 6 }}" height="{{ face.h + 6 }}" fill="#ffffff"/>
{{ text_box(item.text, 8, 20, 40, 30, size=9, fill='#aaaaaa') }}
{% endblock %}
"""
LOW = "has a contrast of 2.3:1 with the colour under it, below 4.5:1 (WCAG)"
ERRORS = [
    "p/game.yaml:5:5: error: group 'cards' has 4 components; the game needs exactly 5 [T-1]",
    "p/game.yaml:6:5: error: group 'cards' has 4 components; the game needs exactly 6 [T-2]",
]


def pale_pack(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    files = {"game.yaml": GAME, "cards.yaml": CARDS, "templates/t.svg.j2": PALE}
    return write_pack(tmp_path / "p", files)


def test_warnings_alike_are_one_line_with_their_count_and_errors_each_their_own(
    tmp_path, monkeypatch, capsys
):
    pale_pack(tmp_path, monkeypatch)
    assert main(["validate", "p"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"p/cards.yaml:7:7: warning: text 'Draw two cards then discard on…' {LOW} "
        "(the front of 'one'); … and 3 more like this; --all-warnings lists them [text]",
        *ERRORS,
    ]
    assert err.splitlines() == ["p: 2 error(s), 4 warning(s)"]  # the summary counts them all


def test_all_warnings_lists_every_one(tmp_path, monkeypatch, capsys):
    pale_pack(tmp_path, monkeypatch)
    assert main(["validate", "p", "--all-warnings"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"p/cards.yaml:7:7: warning: text 'Draw two cards then discard on…' {LOW} "
        "(the front of 'one') [text]",
        f"p/cards.yaml:8:7: warning: text 'Gain a wood and trade it with …' {LOW} "
        "(the front of 'two') [text]",
        f"p/cards.yaml:9:7: warning: text 'Move the herd and score ten po…' {LOW} "
        "(the front of 'three') [text]",
        f"p/cards.yaml:10:7: warning: text 'Short' {LOW} (the front of 'four') [text]",
        *ERRORS,
    ]
    assert err.splitlines() == ["p: 2 error(s), 4 warning(s)"]


def test_a_text_box_of_several_lines_is_one_contrast_warning_quoting_them_all(
    tmp_path, monkeypatch
):
    root = pale_pack(tmp_path, monkeypatch)
    face = build.validate(root).faces["en"][0]
    lines = [t.text for t in textcheck.texts(face.drawing)]
    assert len(lines) >= 2  # the text box wrapped: one TextOp a line
    assert textcheck.problems(face, 6, contrasts=True) == [
        (lines[0], f"text 'Draw two cards then discard on…' {LOW}")
    ]
    assert " ".join(lines) == "Draw two cards then discard one of them at once"


def problem(line: int, message: str, rule: str = "text", level: str = "warning") -> Problem:
    return Problem(Location("p/cards.yaml", line, 7), message, rule, level)


def test_folded_keeps_order_and_tells_apart_rules_levels_and_message_shapes():
    problems = [
        problem(3, "text 'a' prints at 5.1pt, below the minimum 6pt"),
        problem(4, "text 'b' crosses the cut line"),
        problem(5, "text 'c c' prints at 4.0pt, below the minimum 6pt"),
        problem(6, "text 'd' crosses the cut line", rule="svg"),
        problem(7, "text 'e' crosses the cut line", level="error"),
        problem(8, "text 'f' crosses the cut line", level="error"),
        problem(9, "text 'g' prints at 3.5pt, below the minimum 6pt"),
        problem(10, "text 'the player's turn' crosses the cut line"),
    ]
    assert [str(p) for p in folded(problems)] == [
        "p/cards.yaml:3:7: warning: text 'a' prints at 5.1pt, below the minimum 6pt; "
        "… and 2 more like this; --all-warnings lists them [text]",
        "p/cards.yaml:4:7: warning: text 'b' crosses the cut line; "
        "… and 1 more like this; --all-warnings lists them [text]",
        "p/cards.yaml:6:7: warning: text 'd' crosses the cut line [svg]",
        "p/cards.yaml:7:7: error: text 'e' crosses the cut line [text]",
        "p/cards.yaml:8:7: error: text 'f' crosses the cut line [text]",
    ]


def test_watch_folds_warnings_unless_asked_for_all(tmp_path, monkeypatch, capsys):
    root = pale_pack(tmp_path, monkeypatch)
    result = build.validate(root)
    built = watch.Build(1, result, 0.5, False, tmp_path / "out" / "p")
    watch.report(built)
    folded_lines = capsys.readouterr().out.splitlines()
    watch.report(built, all_warnings=True)
    every_line = capsys.readouterr().out.splitlines()
    assert len(folded_lines) == 3 and folded_lines[0].endswith(
        "; … and 3 more like this; --all-warnings lists them [text]"
    )
    assert len(every_line) == 6 and every_line[4:] == ERRORS


def test_validate_build_and_watch_take_all_warnings():
    from pnpkit.commands.cli import parser

    for command in ("validate", "build", "watch"):
        assert parser().parse_args([command, "p", "--all-warnings"]).all_warnings
        assert not parser().parse_args([command, "p"]).all_warnings


def test_a_right_to_left_line_is_quoted_as_typed_not_as_drawn(tmp_path, monkeypatch, capsys):
    """Arabic is drawn in visual order, as joined presentation forms, its numbers and brackets as
    pieces of their own; the message quotes the letters typed, in the order typed."""
    typed = "لا تأخذ 12 بطاقة (أو 3)"
    pale_pack(tmp_path, monkeypatch)
    cards = tmp_path / "p" / "cards.yaml"
    cards.write_text(CARDS.replace("text: Short", f'text: "{typed}"'), encoding="utf-8")
    face = [f for f in build.validate(tmp_path / "p").faces["en"] if f.item == "four"][0]
    drawn = [t.text for t in textcheck.texts(face.drawing)]
    assert len(drawn) > 1 and typed not in drawn  # pieces, in visual order
    main(["validate", "p", "--all-warnings"])
    out = capsys.readouterr().out.splitlines()
    quoted = f"p/cards.yaml:10:7: warning: text '{typed}' {LOW} (the front of 'four') [text]"
    assert out[3] == quoted
    assert textcheck.logical("ﻦﻣ ﺺﻠﺨﺗ") == "تخلص من"  # presentation forms back to letters
    assert textcheck.logical("1 ﻼﻛ") == "كلا 1"  # lam-alef: lam, then alef
    assert textcheck.logical("plain (text) 12") == "plain (text) 12"


def test_a_build_folds_its_warnings_and_its_last_line_counts_them_all(
    tmp_path, monkeypatch, capsys
):
    pale_pack(tmp_path, monkeypatch)
    (tmp_path / "p" / "game.yaml").write_text(GAME.split("checks:")[0], encoding="utf-8")
    assert main(["build", "p", "--out", "out"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"p/cards.yaml:7:7: warning: text 'Draw two cards then discard on…' {LOW} "
        "(the front of 'one'); … and 3 more like this; --all-warnings lists them [text]",
    ]
    assert re.fullmatch(r"built p -> out/p \(en\) in \d+\.\d\ds; 4 warning\(s\)\n", err), err
