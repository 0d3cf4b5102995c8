"""Game rules: each Mammoth Herd rule fires on a broken copy; each generic rule on a small pack."""

from __future__ import annotations

import pytest

from conftest import write_pack
from pnpkit.build.pipeline import validate
from registered import REGISTRY

M = "components/mammoth-herd"


class TestMammothHerdRules:
    def test_sam_c01_sixteen_bonus_tiles(self, kit):
        kit.edit(f"{M}/tiles.yaml", "    - {id: bonus-16", "    # - {id: bonus-16")
        assert kit.validate().lines == [
            f"{M}/game.yaml:42:5: error: group 'bonus-tiles' has "
            "15 components; the game needs exactly 16 [SAM-C01]"
        ]

    def test_sam_c02_back_resource_must_be_a_capacity_7_area(self, kit):
        kit.edit(
            f"{M}/tiles.yaml",
            "resource: gold, provenance: design}",
            "resource: food, provenance: design}",
        )
        assert kit.validate().lines == [
            f"{M}/tiles.yaml:28:59: error: item 'bonus-13': 'resource' is "
            "'food'; the game allows wood, brick, stone, gold [SAM-C02]",
            f"{M}/tiles.yaml:28:59: error: tile 'bonus-13' sends "
            "the herd to the hunting grounds, which has no "
            "limit on people; the game has only 7 dice [SAM-R04]",
        ]

    def test_sam_c02_scoring_reminder_on_every_back(self, kit):
        kit.edit(
            f"{M}/tiles.yaml",
            "resource: wood, provenance: design}",
            "resource: wood, scoring_icon: false, provenance: design}",
        )
        assert kit.validate().lines == [
            f"{M}/tiles.yaml:16:77: error: item 'bonus-01': 'scoring_icon' "
            "is boolean false; the game allows true [SAM-C02]"
        ]

    def test_sam_c02_bonus_must_be_known(self, kit):
        kit.edit(f"{M}/game.yaml", "    card: {icon: card, amount: 1}\n", "")
        lines = kit.validate().lines
        assert (
            f"{M}/tiles.yaml:21:29: error: item 'bonus-06': 'first' "
            "names 'card', which is not a key of data.bonuses [SAM-C02]" in lines
        )
        assert sum("[SAM-C02]" in line for line in lines) == 3  # bonus-06, -10 and -14 show a card

    def test_sam_c03_one_herd(self, kit):
        kit.edit(f"{M}/herd.yaml", "    - id: herd", "    - id: herd\n      count: 2")
        assert kit.validate().lines == [
            f"{M}/game.yaml:47:5: error: group 'herd' has 2 "
            "components; the game needs exactly 1 [SAM-C03]"
        ]

    def test_sam_r04_dice_sufficiency(self, kit):
        kit.edit(f"{M}/game.yaml", "dice_in_game: 7", "dice_in_game: 6")
        lines = kit.validate().lines
        assert len(lines) == 16
        assert (
            lines[0] == f"{M}/tiles.yaml:16:57: error: tile 'bonus-01' sends the herd "
            "to an area for 7 people; the game has only 6 dice [SAM-R04]"
        )


GAME = """name: Rules probe
languages: [en]
players: {min: 2, max: 4}
checks:
"""
CARD = (
    '{% extends "_face.svg.j2" %}{% block content %}'
    '<rect x="0" y="0" width="{{ face.w }}" height="{{ face.h }}" fill="#eeeeee"/>{% endblock %}'
)


def probe(tmp_path, checks: str, groups: str) -> list[str]:
    from conftest import ROOT

    root = write_pack(
        tmp_path / "probe",
        {
            "game.yaml": GAME + checks,
            "parts.yaml": groups,
            "templates/card.svg.j2": CARD,
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text(),
        },
    )
    return [f"{p.level}: {p.message} [{p.rule}]" for p in validate(root).problems]


DECK = """deck:
  kind: card
  size: poker
  front: card.svg.j2
  fields:
    carry: {type: int, default: 0}
    faces: {type: list, item: string, default: []}
    goes: {type: string, default: ""}
  items:
    - {id: a, count: 3, carry: 4, faces: ['1', '2', '2', '3', '4', 'x'], goes: b}
    - {id: b, count: 2, carry: 12, faces: ['1', '2'], goes: nowhere}
"""


class TestGenericRules:
    def test_every_rule_is_documented(self):
        for rule in REGISTRY.rules.values():
            assert rule.doc, rule.name

    @pytest.mark.parametrize(
        "check, expected",
        [
            (
                "{rule: count, id: K1, group: deck, exact: 6}",
                ["error: group 'deck' has 5 components; the game needs exactly 6 [K1]"],
            ),
            (
                "{rule: count, group: deck, min: 6, max: 4}",
                [
                    "error: group 'deck' has 5 components; the game allows at most 4 [count]",
                    "error: group 'deck' has 5 components; the game needs at least 6 [count]",
                ],
            ),
            (
                "{rule: count, group: deck, per_player: 1}",
                ["error: group 'deck' has 5 components; the game needs exactly 4 [count]"],
            ),
            (
                "{rule: count, group: deck, per_player: 1, level: warning}",
                ["warning: group 'deck' has 5 components; the game needs exactly 4 [count]"],
            ),
            (
                "{rule: count, kind: card, exact: 6}",
                [
                    "error: kind 'card' has 5 components "
                    "('deck' 5); the game needs exactly 6 [count]"
                ],
            ),
            (
                "{rule: count, group: deck, by: goes, exact: {b: 3, nowhere: 1}}",
                ["error: group 'deck' has 2 with goes nowhere; the game needs 1 [count]"],
            ),
            (
                "{rule: count, group: deck, by: goes, each: 3, values: [b, c]}",
                [
                    "error: group 'deck' has 0 c; every goes needs exactly 3 [count]",
                    "error: item 'b' has goes nowhere, which is not one of b, c [count]",
                ],
            ),
            (
                "{rule: count, group: deck, by: goes, each: 3}",
                [
                    "error: 'each' needs 'values': a list, or {data: "
                    "key} naming a table of the pack's data [rules]"
                ],
            ),
            (
                "{rule: setup-draws, group: deck, per_player: 1, fixed: 2}",
                [
                    "error: setup deals 6 from group 'deck' at "
                    "4 players, but it holds only 5 [setup-draws]"
                ],
            ),
            ("{rule: setup-draws, group: deck, per_player: 1, fixed: 1}", []),
            (
                "{rule: capacity, group: deck, field: carry, at_least: 5}",
                ["error: item 'a' holds 4; it must hold at least 5 [capacity]"],
            ),
            (
                "{rule: capacity, id: ANU-K04, group: deck, "
                "field: carry, at_most: {sum: [deck, carry]}}",
                [],
            ),
            (
                "{rule: capacity, group: deck, field: carry, at_most: {count: deck}}",
                ["error: item 'b' holds 12; it may hold at most 5 [capacity]"],
            ),
            (
                "{rule: die-faces, group: deck, field: faces, faces: 6}",
                ["error: die 'b' has 2 faces; it needs 6 [die-faces]"],
            ),
            (
                "{rule: die-faces, group: deck, field: faces, "
                "multiset: ['1', '2', '2', '3', '4', 'x']}",
                [
                    "error: die 'b' has faces ['1', '2']; the game "
                    "needs ['1', '2', '2', '3', '4', 'x'] [die-faces]"
                ],
            ),
            (
                "{rule: reference, group: deck, field: goes, to_group: deck}",
                [
                    "error: item 'b': 'goes' names 'nowhere', "
                    "which is not an item of 'deck' [reference]"
                ],
            ),
            (
                "{rule: fields, group: deck, require: {goes: [b]}}",
                ["error: item 'b': 'goes' is 'nowhere'; the game allows b [fields]"],
            ),
        ],
    )
    def test_rule_fires_exactly(self, tmp_path, check, expected):
        assert probe(tmp_path, f"  - {check}\n", DECK) == expected

    def test_a_misspelt_rule_is_reported_after_other_checks_fail(self, tmp_path):
        assert probe(
            tmp_path,
            "  - {rule: count, group: deck, exact: 6}\n  - {rule: cuont, group: deck}\n",
            DECK,
        ) == [
            "error: group 'deck' has 5 components; the game needs exactly 6 [count]",
            "error: unknown rule 'cuont' (did you mean 'count'?) [rules]",
        ]

    def test_count_needs_a_group_or_a_tag(self, tmp_path):
        assert probe(tmp_path, "  - {rule: count, exact: 6}\n", DECK) == [
            "error: rule 'count' needs 'group', 'tag' or 'kind' [rules]"
        ]

    def test_options_are_checked_like_the_schema(self, tmp_path):
        assert probe(tmp_path, "  - {rule: count, group: dekc, exact: no}\n", DECK) == [
            "error: 'group' must be one of deck (got 'dekc') (did you mean 'deck'?) [rules]",
            "error: 'exact' must be a whole number (got 'no') [rules]",
        ]


def test_a_packs_rules_go_into_a_child_registry_and_leave_the_base_as_it_was(tmp_path):
    """rules.py adds its rules to a copy; a built-in it imports is not taken for one of its own."""
    from pnpkit.checks import rules
    from pnpkit.kinds.registry import default_registry
    from pnpkit.pack import schema

    root = write_pack(
        tmp_path / "pack",
        {
            "game.yaml": "name: Own\nlanguages: [en]\nplayers: {min: 1, max: 1}\n",
            "rules.py": (
                "from pnpkit.checks.rules import count_rule, rule\n\n\n"
                "@rule('mine')\ndef mine(ctx):\n    yield 'always'\n"
            ),
        },
    )
    pack, problems = schema.load_pack(root)
    assert problems == []
    base = default_registry()
    before = dict(base.rules)
    loaded, problems = rules.load_rules(pack, base)
    assert problems == []
    assert base.rules == before
    assert set(loaded.rules) - set(before) == {"mine"}
    assert loaded.rules["count"] is before["count"]
    assert loaded.packers == base.packers and loaded.packers is not base.packers


# A supply of cubes per resource and a market whose cards cost them: "cubes of each resource
# >= the largest cost of a card of that resource" needs where/each, not Python.
SUPPLY = """supply:
  kind: card
  size: poker
  front: card.svg.j2
  fields:
    resource: {type: string, default: ""}
    carry: {type: int, default: 0}
    faces: {type: list, item: string, default: []}
  items:
    - {id: wood-a, count: 3, resource: wood, carry: 2}
    - {id: stone-a, count: 2, resource: stone, carry: 5}
    - {id: first-player, count: 1}
market:
  kind: card
  size: poker
  front: card.svg.j2
  fields:
    resource: {type: string}
    cost: {type: int}
  items:
    - {id: m1, resource: wood, cost: 2}
    - {id: m2, resource: wood, cost: 4}
    - {id: m3, resource: stone, cost: 1}
    - {id: m4, resource: gold, cost: 1}
"""


def located(tmp_path, check: str) -> list[str]:
    """The problems of one check on SUPPLY, as line:column: level: message [rule]."""
    from conftest import ROOT

    root = write_pack(
        tmp_path / "probe",
        {
            "game.yaml": GAME + f"  - {check}\n",
            "parts.yaml": SUPPLY,
            "templates/card.svg.j2": CARD,
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text(),
        },
    )
    return [
        f"{p.where.file.rsplit('/', 1)[-1]}:{p.where.line}:{p.where.column}: "
        f"{p.level}: {p.message} [{p.rule}]"
        for p in validate(root).problems
    ]


class TestWhereAndEach:
    @pytest.mark.parametrize(
        "check, expected",
        [
            (  # every resource any card costs, the first-player marker (no resource) left out
                "{rule: count, group: supply, each: resource, min: {max: [market, cost]}}",
                [
                    "game.yaml:5:5: error: group 'supply' with resource gold has 0 "
                    "components; the game needs at least 1 [count]",
                    "game.yaml:5:5: error: group 'supply' with resource wood has 3 "
                    "components; the game needs at least 4 [count]",
                ],
            ),
            (  # where names the resources that count; gold is no longer one
                "{rule: count, group: supply, where: {resource: [wood, stone]}, "
                "each: resource, min: {max: [market, cost]}}",
                [
                    "game.yaml:5:5: error: group 'supply' (where resource is wood or stone) "
                    "with resource wood has 3 components; the game needs at least 4 [count]"
                ],
            ),
            (
                "{rule: count, group: supply, each: resource, max: {count: market}}",
                [
                    "game.yaml:5:5: error: group 'supply' with resource stone has 2 "
                    "components; the game allows at most 1 [count]",
                    "game.yaml:5:5: error: group 'supply' with resource wood has 3 "
                    "components; the game allows at most 2 [count]",
                ],
            ),
            (
                "{rule: count, group: supply, where: {resource: stone}, exact: 3}",
                [
                    "game.yaml:5:5: error: group 'supply' (where resource is stone) has 2 "
                    "components; the game needs exactly 3 [count]"
                ],
            ),
            (
                "{rule: count, kind: card, where: {resource: wood}, exact: 5}",
                [],
            ),
            (
                "{rule: capacity, group: supply, field: carry, each: resource, "
                "at_least: {max: [market, cost]}}",
                [
                    "parts.yaml:10:53: error: item 'wood-a' holds 2; it must hold "
                    "at least 4 (for resource wood) [capacity]"
                ],
            ),
            (
                "{rule: capacity, group: supply, field: carry, each: resource, "
                "at_most: {sum: [market, cost]}}",
                [
                    "parts.yaml:11:55: error: item 'stone-a' holds 5; it may hold "
                    "at most 1 (for resource stone) [capacity]"
                ],
            ),
            (
                "{rule: capacity, group: supply, field: carry, where: {resource: stone}, "
                "at_most: 4}",
                [
                    "parts.yaml:11:55: error: item 'stone-a' holds 5; "
                    "it may hold at most 4 [capacity]"
                ],
            ),
        ],
    )
    def test_rules_count_per_value_and_only_what_where_picks(self, tmp_path, check, expected):
        assert located(tmp_path, check) == expected

    @pytest.mark.parametrize(
        "check, expected",
        [
            (
                "{rule: count, group: supply, where: {resorce: wood}, min: 1}",
                "game.yaml:5:42: error: unknown field 'resorce' in 'where' "
                "(did you mean 'resource'?) [rules]",
            ),
            (
                "{rule: count, group: supply, wher: {resource: wood}, min: 1}",
                "game.yaml:5:34: error: unknown key 'wher' in rule 'count' "
                "(did you mean 'where'?) [rules]",
            ),
            (
                "{rule: count, group: supply, where: wood, min: 1}",
                "game.yaml:5:41: error: 'where' must be a mapping of fields to a value "
                "or a list of values (got 'wood') [rules]",
            ),
            (
                "{rule: capacity, group: supply, field: carry, where: {resource: {a: 1}}}",
                "game.yaml:5:69: error: 'where: resource' must be a value or a list of "
                "values (got a mapping) [rules]",
            ),
            (
                "{rule: count, group: supply, each: resorce, min: 1}",
                "game.yaml:5:40: error: 'each' names no field of the pack's groups "
                "(did you mean 'resource'?) [rules]",
            ),
            (
                "{rule: capacity, group: supply, field: carry, each: [resource]}",
                "game.yaml:5:57: error: 'each' must be a field name (got a list) [rules]",
            ),
            (  # faces are lists: no one value to count per
                "{rule: count, group: supply, each: faces}",
                "game.yaml:5:40: error: 'each' needs a field of single values; "
                "'faces' holds lists or texts [rules]",
            ),
            (
                "{rule: count, group: supply, each: 3}",
                "game.yaml:5:5: error: 'each: n' goes with 'by' and 'values'; "
                "'each: field' names a field [rules]",
            ),
            (
                "{rule: count, group: supply, by: resource, each: resource}",
                "game.yaml:5:5: error: 'each: field' counts per value itself; "
                "drop 'by' (or give a number) [rules]",
            ),
            (
                "{rule: count, group: supply, each: resource, min: {max: [market]}}",
                "game.yaml:5:55: error: 'min' must be a number, {count: group}, "
                "{sum: [group, field]}, {max: [group, field]} or {data: key} "
                "(got a mapping) [rules]",
            ),
            (  # a misspelt field would otherwise be a bound of 0
                "{rule: capacity, group: supply, field: carry, at_least: {max: [market, cots]}}",
                "game.yaml:5:61: error: 'at_least' names no field 'cots' of group 'market' "
                "(did you mean 'cost'?) [rules]",
            ),
            (
                "{rule: count, group: supply, min: {sum: [[market], [cost]]}}",
                "game.yaml:5:39: error: 'min' must be a number, {count: group}, "
                "{sum: [group, field]}, {max: [group, field]} or {data: key} "
                "(got a mapping) [rules]",
            ),
        ],
    )
    def test_a_bad_where_or_each_is_one_located_error(self, tmp_path, check, expected):
        assert located(tmp_path, check) == [expected]
