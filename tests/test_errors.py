"""Broken packs: every mistake is one exact, located line, and the exit code says so."""

from __future__ import annotations

import pytest

M = "components/mammoth-herd"
T = "templates/mammoth-herd"

CATALOGUE = [
    (
        "yaml-syntax",
        f"{M}/herd.yaml",
        "tab: 12",
        "tab: [12",
        [f"{M}/herd.yaml:13:17: error: YAML syntax error: did not find expected ',' or ']' [yaml]"],
    ),
    (
        "unknown-key",
        f"{M}/herd.yaml",
        "tab: 12",
        "tab: 12\n      cuont: 2",
        [
            f"{M}/herd.yaml:13:7: error: unknown key 'cuont' in "
            "an item of 'herd' (did you mean 'count'?) [schema]"
        ],
    ),
    (
        "wrong-type-yaml11-bool",
        f"{M}/herd.yaml",
        "tab: 12",
        "tab: no",
        [f"{M}/herd.yaml:12:12: error: 'tab' must be a number (got 'no') [schema]"],
    ),
    (
        "wrong-type-count",
        f"{M}/herd.yaml",
        "tab: 12",
        "tab: 12\n      count: two",
        [f"{M}/herd.yaml:13:14: error: 'count' must be a whole number (got 'two') [schema]"],
    ),
    (
        "duplicate-key",
        f"{M}/herd.yaml",
        "tab: 12",
        "tab: 12\n      tab: 14",
        [f"{M}/herd.yaml:13:7: error: duplicate key 'tab' (first at line 12) [yaml]"],
    ),
    (
        "duplicate-id",
        f"{M}/tiles.yaml",
        "id: bonus-02",
        "id: bonus-01",
        [
            f"{M}/tiles.yaml:17:7: error: duplicate id 'bonus-01' "
            f"(first at {M}/tiles.yaml:16:7) [unique-ids]"
        ],
    ),
    (
        "missing-template",
        f"{M}/herd.yaml",
        "herd-standee.svg.j2",
        "herd.svg.j2",
        [
            f"{M}/herd.yaml:5:10: error: template "
            "'mammoth-herd/herd.svg.j2' for the front of 'herd' not found "
            "(looked in templates, pnpkit's own) [references]"
        ],
    ),
    (
        "undefined-variable",
        f"{T}/herd-standee.svg.j2",
        "item.tab",
        "item.tabs",
        [
            f"{M}/herd.yaml:10:7: error: template 'mammoth-herd/herd-standee.svg.j2' "
            "line 8: undefined variable: 'item' has no key 'tabs' "
            "(did you mean 'tab'?) (rendering the front of 'herd') [template]"
        ],
    ),
    # One root cause, one line (issue 15): what a mistake causes further on is not reported too.
    (
        "undefined-name",
        f"{T}/bonus-front.svg.j2",
        "data.bonuses[item.first]",
        "data.bonuses[itme.first]",
        [
            f"{M}/tiles.yaml:{16 + i}:7: error: template "
            "'mammoth-herd/bonus-front.svg.j2' line 5: undefined variable: 'itme' is "
            "undefined (did you mean 'item'?) (rendering "
            f"the front of 'bonus-{i + 1:02}') [template]"
            for i in range(16)
        ],
    ),
    (
        "undefined-key-listed",
        f"{T}/bonus-front.svg.j2",
        "data.bonuses[item.first]",
        "data.bonuses['x']",
        [
            f"{M}/tiles.yaml:{16 + i}:7: error: template 'mammoth-herd/bonus-front.svg.j2' "
            "line 11: undefined variable: 'data.bonuses' has "
            "no key 'x' (its keys are tool, field, card, gold2, food4, food1, "
            f"wood1, brick1) (rendering the front of 'bonus-{i + 1:02}') "
            "[template]"
            for i in range(16)
        ],
    ),
    (
        "group-template-missing-once",
        f"{M}/tiles.yaml",
        "bonus-front.svg.j2",
        "bonus-fron.svg.j2",
        [
            f"{M}/tiles.yaml:8:10: error: template 'mammoth-herd/bonus-fron.svg.j2' "
            "for the front of the 16 items of 'bonus-tiles' "
            "not found (looked in templates, pnpkit's own) [references]"
        ],
    ),
    (
        "misspelt-fields-key",
        f"{M}/tiles.yaml",
        "  fields:",
        "  feilds:",
        [
            f"{M}/tiles.yaml:10:3: error: unknown key 'feilds' in "
            "group 'bonus-tiles' (did you mean 'fields'?) [schema]"
        ],
    ),
    (
        "misspelt-field-name",
        f"{M}/tiles.yaml",
        "    resource: {type: enum",
        "    resorce: {type: enum",
        [
            f"{M}/tiles.yaml:13:5: error: no item gives the field 'resorce', "
            "but 16 items give 'resource' (is the field misspelt here?) [schema]"
        ],
    ),
    (
        "misspelt-group-key",
        f"{M}/tiles.yaml",
        "  kind: tile",
        "  kin: tile",
        [
            f"{M}/tiles.yaml:6:3: error: unknown key 'kin' in "
            "group 'bonus-tiles' (did you mean 'kind'?) [schema]"
        ],
    ),
    (
        "misspelt-front",
        f"{M}/tiles.yaml",
        "  front: mammoth",
        "  fornt: mammoth",
        [
            f"{M}/tiles.yaml:8:3: error: unknown key 'fornt' in "
            "group 'bonus-tiles' (did you mean 'front'?) [schema]"
        ],
    ),
    (
        "missing-key",
        f"{M}/tiles.yaml",
        "  kind: tile\n",
        "",
        [f"{M}/tiles.yaml:6:3: error: 'bonus-tiles' needs the key 'kind' [schema]"],
    ),
    (
        "missing-size",
        f"{M}/herd.yaml",
        "  size: 40x100mm\n",
        "",
        [f"{M}/herd.yaml:3:3: error: 'herd' needs the key 'size' [schema]"],
    ),
    (
        "template-syntax",
        f"{T}/herd-standee.svg.j2",
        "{% set tab = item.tab %}",
        "{% set tab = item.tab %",
        [f"{T}/herd-standee.svg.j2:8:1: error: template syntax error: unexpected '%' [template]"],
    ),
    (
        "text-overflow",
        f"{M}/herd.yaml",
        'en: "Mammoth herd"',
        'en: "A very long name for a mammoth herd that will never fit in '
        'the small base tab of this standee, however small we print it"',
        [
            f"{M}/herd.yaml:11:13: error: text overflows its 36x9.6mm box (needs 5 "
            "lines at 6pt, room for 3): 'A very long name for a mammoth herd that…' "
            "(language en, template 'mammoth-herd/herd-standee.svg.j2') [text-fits]"
        ],
    ),
    (
        "missing-glyph",
        f"{M}/herd.yaml",
        'en: "Mammoth herd"',
        'en: "Mammoth 漢 herd"',
        [
            f"{M}/herd.yaml:11:13: error: no glyph for '漢' (U+6F22) "
            "in DejaVu Sans: 'Mammoth 漢 herd' (language en, "
            "template 'mammoth-herd/herd-standee.svg.j2') [glyphs]"
        ],
    ),
    (
        "font-too-small",
        f"{T}/bonus-front.svg.j2",
        "size=7, bold=true",
        "size=5, bold=true",
        [f"{T}/bonus-front.svg.j2:12:1: error: font size 5pt is below the minimum 6pt [font-size]"],
    ),
    (
        "svg-unsupported-element",
        f"{T}/bonus-back.svg.j2",
        "<circle",
        '<mask id="m"/><circle',
        [f"{T}/bonus-back.svg.j2:6:1: error: unsupported element <mask> [svg]"],
    ),
    (
        "svg-unsupported-attribute",
        f"{T}/bonus-back.svg.j2",
        'stroke-width="0.6"',
        'stroke-width="0.6" letter-spacing="2"',
        [
            f"{T}/bonus-back.svg.j2:6:137: error: unsupported "
            "attribute 'letter-spacing' on <circle> [svg]"
        ],
    ),
    (
        "missing-language",
        f"{M}/herd.yaml",
        'en: "Mammoth herd"',
        'de: "Mammutherde"',
        [
            f"{M}/herd.yaml:11:13: error: 'name' has no text for language en [schema]",
            f"{M}/herd.yaml:11:35: error: unknown language "
            "'de' in 'name' (the pack has pl, en) [schema]",
        ],
    ),
    (
        "unknown-rule-option",
        f"{M}/game.yaml",
        "exact: 16,",
        "exactly: 16,",
        [
            f"{M}/game.yaml:42:52: error: unknown key 'exactly' "
            "in rule 'count' (did you mean 'exact'?) [rules]"
        ],
    ),
    (
        "unknown-rule",
        f"{M}/game.yaml",
        "rule: herd-area-dice",
        "rule: herd-area-dices",
        [
            f"{M}/game.yaml:50:12: error: unknown rule "
            "'herd-area-dices' (did you mean 'herd-area-dice'?) [rules]"
        ],
    ),
    (
        "enum-values-not-a-list",
        f"{M}/reference.yaml",
        "icon: {type: enum, values: [mammoth, die, points]}",
        "icon: {type: enum, values: 3}",
        [
            f"{M}/reference.yaml:8:11: error: enum field 'icon' needs 'values' [schema]",
            f"{M}/reference.yaml:8:32: error: 'values' must be a list (got int 3) [schema]",
        ],
    ),
    (
        "bound-not-a-number",
        f"{M}/herd.yaml",
        "tab: {type: number,",
        "tab: {type: number, min: x,",
        [f"{M}/herd.yaml:8:30: error: 'min' must be a number (got 'x') [schema]"],
    ),
    (
        "id-that-names-a-folder",
        f"{M}/herd.yaml",
        "- id: herd",
        "- id: ../herd",
        [
            f"{M}/herd.yaml:10:11: error: id '../herd' may hold "
            "only letters, digits, '.', '_' and '-', starting "
            "with a letter or digit (it names files) [schema]"
        ],
    ),
    (
        "overlap-too-large",
        f"{M}/game.yaml",
        "  margin: 5mm",
        "  margin: 5mm\n  overlap: 200mm",
        [
            f"{M}/game.yaml:16:12: error: 'overlap' must be at most "
            "100mm, half the printable width of A4 (got 200mm) [schema]"
        ],
    ),
    (
        "name-glyph",
        f"{M}/game.yaml",
        'en: "Stone Age: The Mammoth Herd"',
        'en: "石器時代: The Mammoth Herd"',
        [
            f"{M}/game.yaml:7:7: error: no glyph for '石' (U+77F3), "
            "'器' (U+5668), '時' (U+6642), '代' (U+4EE3) in DejaVu "
            "Sans: the pack's name is printed on every page [glyphs]"
        ],
    ),
    (
        "bare-number-length",
        f"{M}/game.yaml",
        "bleed: 3mm",
        "bleed: 3",
        [f"{M}/game.yaml:13:10: error: 'bleed' needs a unit: write '3mm', '3in' or '3pt' [schema]"],
    ),
]


@pytest.mark.parametrize("case, file, old, new, expected", CATALOGUE, ids=[c[0] for c in CATALOGUE])
def test_broken_pack_reports_exact_lines(kit, case, file, old, new, expected):
    """validate prints exactly the expected problem lines and exits 1."""
    kit.edit(file, old, new)
    run = kit.validate()
    assert run.lines == expected
    assert run.code == 1


def test_every_problem_is_reported_at_once(kit):
    """Independent structural mistakes in three files come out together, sorted by place."""
    kit.edit(f"{M}/herd.yaml", "tab: 12", "tab: no")
    kit.edit(f"{M}/tiles.yaml", "id: bonus-02", "id: bonus-01")
    kit.edit(f"{M}/game.yaml", "paper: a4", "paper: a5")
    run = kit.validate()
    assert [line.split(": error")[0] for line in run.lines] == [
        f"{M}/game.yaml:12:10",
        f"{M}/herd.yaml:12:12",
        f"{M}/tiles.yaml:17:7",
    ]
    assert run.code == 1


def test_clean_pack_exits_zero(kit):
    run = kit.validate()
    assert run.code == 0 and run.out == ""
    assert "0 error(s), 0 warning(s)" in run.err


def test_rules_file_error_is_located(kit):
    """A crash in the game's own rules.py is a located problem, not a traceback."""
    kit.edit(
        f"{M}/rules.py",
        "from pnpkit.checks.rules import rule",
        "from pnpkit.checks.rules import rule\nundefined_name + 1",
    )
    run = kit.validate()
    assert run.lines == [
        f"{M}/rules.py:4:1: error: rules file failed to load: "
        "NameError: name 'undefined_name' is not defined [rules]"
    ]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", ["game.yaml:1:1: error: game.yaml must be a mapping (got nothing) [schema]"]),
        (
            "id: p\n",
            [
                "game.yaml:1:1: error: game.yaml needs the key 'languages' [schema]",
                "game.yaml:1:1: error: game.yaml needs the key 'name' [schema]",
                "game.yaml:1:1: error: game.yaml needs the key 'players' [schema]",
            ],
        ),
        (
            "name: P\nlanguages: [en]\nplayers: {min: 1, max: 2}\ndata: [1, 2]\n",
            ["game.yaml:4:7: error: data must be a mapping (got a list) [schema]"],
        ),
    ],
)
def test_a_broken_manifest_gives_one_line_per_mistake(
    tmp_path, monkeypatch, capsys, text, expected
):
    """No cascade: each mistake in game.yaml is reported once."""
    from pnpkit.commands.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "game.yaml").write_text(text)
    assert main(["validate", "p"]) == 1
    assert capsys.readouterr().out.splitlines() == [f"p/{line}" for line in expected]
