"""Generated items (a product of value lists), group defaults, counting a subset, one provenance
line per note."""

from __future__ import annotations

from pathlib import Path

import pytest

from pnpkit.commands.cli import main
from pnpkit.pack.schema import load_pack

GAME = """\
id: deck
name: Deck
languages: [en]
players: {min: 2, max: 4}
checks:
  - {rule: count, id: ALL, group: cards, exact: 54}
CHECKS
"""
CARDS = """\
cards:
  kind: card
  size: poker
  front: card.svg.j2
  fields:
    suit: {type: enum, values: [hearts, spades, clubs, diamonds, joker]}
    rank: {type: enum, values: [A, 2, 3, 4, 5, 6, 7, 8, 9, 10, J, Q, K, "*"]}
    face: {type: bool, default: false}
  defaults: {provenance: public, tags: [standard]}
  generate:
    product: {suit: [hearts, spades, clubs, diamonds], rank: [A, 2, 3, 4, 5, 6, 7, 8, 9, 10, J, Q, K]}
    id: "{suit}-{rank}"
  items:
    - {id: joker-1, suit: joker, rank: "*", tags: [joker]}
    - {id: joker-2, suit: joker, rank: "*", tags: [joker], provenance: design}
"""  # noqa: E501 (data: markup and YAML kept as written)
SUITS = (
    "  - {rule: count, id: SUITS, group: cards, by: suit, "
    "each: 13, values: [hearts, spades, clubs, diamonds]OTHERS}"
)


def make(root: Path, cards: str = CARDS, checks: str = "") -> Path:
    pack = root / "deck"
    (pack / "templates").mkdir(parents=True)
    (pack / "game.yaml").write_text(GAME.replace("CHECKS", checks), encoding="utf-8")
    (pack / "cards.yaml").write_text(cards, encoding="utf-8")
    (pack / "templates/card.svg.j2").write_text(
        '{% extends "_face.svg.j2" %}{% block content %}<text x="5" y="10" '
        'font-size="4">{{ item.rank }} {{ item.suit }}</text>{% endblock %}'
    )
    return pack


def validate(capsys, pack: Path, *extra) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(["validate", str(pack), *extra])
    return code, capsys.readouterr().out.splitlines()


def test_a_product_of_value_lists_plus_extras_makes_the_deck_with_defaults_under_own_values(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    pack, problems = load_pack(make(tmp_path))
    assert problems == []
    items = pack.items("cards")
    assert [i.id for i in items[:3]] == ["hearts-A", "hearts-2", "hearts-3"] and items[
        13
    ].id == "spades-A"
    assert [i.id for i in items[-2:]] == ["joker-1", "joker-2"]
    assert items[12].fields == {"suit": "hearts", "rank": "K", "face": False}
    assert items[0].tags == ("standard",) and items[-1].tags == (
        "joker",
    )  # the item's own value wins
    assert items[0].provenance == {"*": "public"} and items[-1].provenance == {"*": "design"}
    assert str(items[5].field_where["rank"]) == "deck/cards.yaml:11:78"  # the product value '6'


def test_provenance_lists_a_shared_note_once(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert validate(capsys, make(tmp_path), "--provenance") == (
        0,
        [
            "deck/cards.yaml:9:26: note: 53 items of 'cards' "
            "(hearts-A ... joker-1), all values: public [provenance]",
            "deck/cards.yaml:15:7: note: joker-2, all values: design [provenance]",
        ],
    )


@pytest.mark.parametrize(
    "old, new, line",
    [
        (
            'id: "{suit}-{rank}"',
            'id: "{suit}-{rnak}"',
            "deck/cards.yaml:12:9: error: the id pattern names 'rnak', which is "
            "not a key of 'product' (suit, rank) (did you mean 'rank'?) [schema]",
        ),
        (
            'id: "{suit}-{rank}"',
            'id: "{suit} {rank}"',
            "deck/cards.yaml:12:9: error: the id pattern gives an id that cannot "
            "be used: id 'hearts A' may hold only letters, digits, '.', '_' "
            "and '-', starting with a letter or digit (it names files) [schema]",
        ),
        (
            "clubs, diamonds], rank",
            "clubs, diamond], rank",
            "deck/cards.yaml:11:45: error: 'suit' must be one "
            "of hearts, spades, clubs, diamonds, joker (got "
            "'diamond') (did you mean 'diamonds'?) [schema]",
        ),
        (
            "defaults: {provenance: public",
            "defaults: {provenance: publik",
            "deck/cards.yaml:9:26: error: 'provenance' must be one of seed, public, "
            "inferred, design (got 'publik') (did you mean 'public'?) [schema]",
        ),
        (
            "defaults: {provenance",
            "defaults: {id: x, provenance",
            "deck/cards.yaml:9:14: error: unknown key 'id' in the "
            "defaults of 'cards' (known keys: count, per_player, tags, "
            "provenance, front, back, doc, suit, rank, face) [schema]",
        ),
        (
            '    id: "{suit}-{rank}"\n',
            '    id: "{suit}-{rank}"\n    count: 0\n',
            "deck/cards.yaml:13:12: error: 'count' must be at least 1 (got 0) [schema]",
        ),
    ],
)
def test_a_generator_is_checked_as_written_items_are_and_errors_point_at_it(
    tmp_path, capsys, monkeypatch, old, new, line
):
    monkeypatch.chdir(tmp_path)
    assert old in CARDS
    code, lines = validate(capsys, make(tmp_path, CARDS.replace(old, new)))
    assert (code, lines) == (1, [line])


def test_count_may_count_a_subset_of_a_fields_values(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    strict = make(tmp_path / "strict", checks=SUITS.replace("OTHERS", ""))
    assert validate(capsys, strict) == (
        1,
        [
            "strict/deck/cards.yaml:14:27: error: item 'joker-1' has suit "
            "joker, which is not one of hearts, spades, clubs, diamonds [SUITS]",
            "strict/deck/cards.yaml:15:27: error: item 'joker-2' has suit "
            "joker, which is not one of hearts, spades, clubs, diamonds [SUITS]",
        ],
    )
    subset = (
        SUITS.replace("OTHERS", ", others: ignore")
        + "\n  - {rule: count, id: JOKERS, group: cards, "
        "by: suit, exact: {joker: 3}, others: ignore}"
    )
    assert validate(capsys, make(tmp_path / "subset", checks=subset)) == (
        1,
        [
            "subset/deck/game.yaml:8:62: error: group 'cards' "
            "has 2 with suit joker; the game needs 3 [JOKERS]",
        ],
    )
    wrong = make(
        tmp_path / "wrong",
        CARDS.replace(", K]}", "]}"),
        checks=SUITS.replace("OTHERS", ", others: ignore"),
    )
    code, lines = validate(capsys, wrong)
    assert (
        "wrong/deck/game.yaml:7:5: error: group 'cards' "
        "has 12 hearts; every suit needs exactly 13 [SUITS]" in lines
    )
