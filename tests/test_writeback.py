"""The studio's way back (sources.py, writeback.py, yamledit.py, sheetedit.py): an item's values
with their places, and each edit written into its file with every other byte kept."""

from __future__ import annotations

import io
import os
import re
import zipfile
from pathlib import Path

import pytest

from pnpkit.build import output
from pnpkit.edit import sources, writeback, yamledit
from pnpkit.edit.sources import Refused
from pnpkit.pack import loader, schema
from sheetfiles import write_delimited, write_ods, write_xlsx

GAME = """\
id: deck
name: {en: Deck, pl: Talia}
languages: [en, pl]
players: {min: 2, max: 4}
"""
FIELDS = """\
  fields:
    suit: {type: enum, values: [sun, moon]}
    cost: {type: number, min: 0}
    title: text
    note: {type: string, default: ""}
"""
CARDS = (
    """\
# The deck: comments stay where they are
cards:
  kind: card
  size: poker
  front: card.svg.j2
"""
    + FIELDS
    + """\
  defaults:
    suit: sun   # most cards are suns
  items:
    # the first card
    - id: sun-1
      cost: 1   # cheap
      title: {en: Dawn, pl: 'Świt'}
    - {id: sun-2, cost: 2.5, title: {en: Noon, pl: "Południe"}}
    - id: moon-1
      suit: moon
      cost: &three 3
      title:
        en: Dusk
        pl: Zmierzch
      count: 2
    - id: moon-2
      suit: moon
      cost: *three
      title: |
        Night
# the end
"""
)
TEMPLATE = """\
{% extends "_face.svg.j2" %}{% block content %}
<text x="5" y="10" font-size="4">{{ item.title }} {{ item.cost }} x{{ item.count }}</text>
{% endblock %}
"""
SHEET_GROUP = (
    """\
cards:
  kind: card
  size: poker
  front: card.svg.j2
"""
    + FIELDS
    + "  items: ITEMS\n"
)
HEADER = ["id", "suit", "cost", "title.en", "title.pl", "count"]
ROWS = [
    ["sun-1", "sun", 1, "Dawn", "Świt", 2],
    ["sun-2", "sun", 2.5, "Noon, late", "Południe", None],
    ["moon-1", "moon", 3, "Dusk", "Zmierzch", 1],
]


def make_pack(tmp_path: Path, cards: str = CARDS, sheet: tuple[str, list] | None = None) -> Path:
    pack = tmp_path / "deck"
    (pack / "templates").mkdir(parents=True)
    (pack / "game.yaml").write_text(GAME, encoding="utf-8")
    (pack / "templates" / "card.svg.j2").write_text(TEMPLATE, encoding="utf-8")
    if sheet is not None:
        kind, rows = sheet
        writer = {
            "csv": write_delimited,
            "tsv": lambda p, r: write_delimited(p, r, "\t"),
            "xlsx": write_xlsx,
            "ods": write_ods,
        }[kind]
        writer(pack / f"cards.{kind}", rows)
        cards = SHEET_GROUP.replace("ITEMS", f"cards.{kind}")
    (pack / "cards.yaml").write_text(cards, encoding="utf-8")
    return pack


def loaded(pack: Path) -> schema.Pack:
    got, problems = schema.load_pack(pack)
    assert got is not None, [str(p) for p in problems]
    return got


def item(pack: Path, item_id: str):
    return next(i for i in loaded(pack).items() if i.id == item_id)


def changed_lines(before: bytes, after: bytes) -> list[tuple[str, str]]:
    """The lines that differ, when the two texts have as many lines."""
    old, new = before.decode().splitlines(True), after.decode().splitlines(True)
    assert len(old) == len(new)
    return [(a, b) for a, b in zip(old, new) if a != b]


def inserted(before: bytes, after: bytes) -> list[str]:
    """The lines added, when the rest is the old text line for line."""
    old, new = before.decode().splitlines(True), after.decode().splitlines(True)
    i = next((k for k, (a, b) in enumerate(zip(old, new)) if a != b), len(old))
    n = len(new) - len(old)
    assert new[:i] + new[i + n :] == old
    return new[i : i + n]


@pytest.fixture
def deck(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return make_pack(tmp_path)


# ---------------------------------------------------------------- sources


def test_sources_give_each_value_with_its_place_and_origin(deck):
    pack = loaded(deck)
    info = sources.sources(pack, "cards", "sun-1")
    shown = [(v.field, v.value, v.place, v.origin, v.editable) for v in info.fields]
    assert shown == [
        ("suit", "sun", "cards.yaml:12:11", "defaults", True),
        ("cost", 1, "cards.yaml:16:13", "item", True),
        ("title.en", "Dawn", "cards.yaml:17:19", "item", True),
        ("title.pl", "Świt", "cards.yaml:17:29", "item", True),
        ("note", "", "cards.yaml:10:11", "declared", True),
    ]
    assert (info.count.value, info.count.place, info.count.origin) == (1, "cards.yaml:15:7", "")
    assert [(v.field, v.value, v.place) for v in info.defaults] == [
        ("suit", "sun", "cards.yaml:12:11")
    ]
    assert [(t.side, t.name, t.path, t.place) for t in info.templates] == [
        ("front", "card.svg.j2", "templates/card.svg.j2", "cards.yaml:5:10")
    ]
    assert (info.file, info.kind) == ("cards.yaml", "yaml")
    assert info.problems == ()
    info = sources.sources(pack, "cards", "moon-1")
    assert (info.count.value, info.count.place, info.count.origin) == (
        2,
        "cards.yaml:25:14",
        "item",
    )
    assert [v.field for v in info.defaults] == []  # moon-1 writes its own suit


def test_sources_concern_the_problems_on_the_items_lines(deck):
    pack = loaded(deck)
    mine = schema.Problem(schema.Location("deck/cards.yaml", 16, 13), "too dear", "x", "warning")
    other = schema.Problem(schema.Location("deck/cards.yaml", 18, 5), "elsewhere", "x", "warning")
    info = sources.sources(pack, "cards", "sun-1", [mine, other])
    assert info.problems == (mine,)


def test_sources_of_a_missing_item_are_refused(deck):
    with pytest.raises(Refused, match="^there is no item 'nope' in group 'cards' now$"):
        sources.sources(loaded(deck), "cards", "nope")


# ---------------------------------------------------------------- YAML


def test_setting_a_value_changes_that_value_only(deck):
    edit = writeback.set_value(loaded(deck), "cards", "sun-1", "cost", "4")
    assert edit.file == (deck / "cards.yaml").resolve()
    assert edit.after == (deck / "cards.yaml").read_bytes()
    assert changed_lines(edit.before, edit.after) == [
        ("      cost: 1   # cheap\n", "      cost: 4   # cheap\n")
    ]
    assert item(deck, "sun-1").fields["cost"] == 4  # a number, as the field reads it


def test_a_text_keeps_its_quoting_where_it_can(deck):
    pack = loaded(deck)
    edits = [
        writeback.set_value(pack, "cards", "sun-1", "title.pl", "Ranek"),
        writeback.set_value(pack, "cards", "sun-2", "title.en", "Noon, late"),
        writeback.set_value(pack, "cards", "moon-1", "title.pl", "Noc: ciemna"),
    ]
    assert [changed_lines(e.before, e.after) for e in edits] == [
        [
            (
                "      title: {en: Dawn, pl: 'Świt'}\n",
                "      title: {en: Dawn, pl: 'Ranek'}\n",
            )
        ],
        [
            (
                '    - {id: sun-2, cost: 2.5, title: {en: Noon, pl: "Południe"}}\n',
                '    - {id: sun-2, cost: 2.5, title: {en: "Noon, late", pl: "Południe"}}\n',
            )
        ],
        [("        pl: Zmierzch\n", '        pl: "Noc: ciemna"\n')],
    ]
    assert item(deck, "sun-2").fields["title"] == {"en": "Noon, late", "pl": "Południe"}


def test_a_block_text_stays_a_block(deck):
    edit = writeback.set_value(loaded(deck), "cards", "moon-2", "title", "Night\nfall\n")
    assert inserted(edit.before, edit.after) == ["        fall\n"]
    assert item(deck, "moon-2").fields["title"] == {"en": "Night\nfall\n", "pl": "Night\nfall\n"}


def test_one_language_of_a_text_written_once_for_all(deck):
    pack = loaded(deck)
    edit = writeback.set_value(pack, "cards", "moon-2", "title.pl", "Noc")
    assert edit.after.decode().endswith('      title: {en: "Night\\n", pl: Noc}\n# the end\n')
    assert item(deck, "moon-2").fields["title"] == {"en": "Night\n", "pl": "Noc"}


def test_a_value_not_written_is_added_to_the_item(deck):
    pack = loaded(deck)
    block = writeback.set_value(pack, "cards", "sun-1", "note", "first one")
    assert inserted(block.before, block.after) == ["      note: first one\n"]
    flow = writeback.set_value(pack, "cards", "sun-2", "suit", "moon")
    assert changed_lines(flow.before, flow.after) == [
        (
            '    - {id: sun-2, cost: 2.5, title: {en: Noon, pl: "Południe"}}\n',
            '    - {id: sun-2, cost: 2.5, title: {en: Noon, pl: "Południe"}, suit: moon}\n',
        )
    ]
    assert item(deck, "sun-2").fields["suit"] == "moon"
    assert item(deck, "sun-1").fields["note"] == "first one"


def test_setting_and_adding_a_count(deck):
    pack = loaded(deck)
    written = writeback.set_count(pack, "cards", "moon-1", "3")
    assert changed_lines(written.before, written.after) == [
        ("      count: 2\n", "      count: 3\n")
    ]
    added = writeback.set_count(pack, "cards", "sun-1", 5)
    assert inserted(added.before, added.after) == ["      count: 5\n"]
    assert (item(deck, "moon-1").count, item(deck, "sun-1").count) == (3, 5)


def test_a_value_the_schema_refuses_is_not_written(deck):
    pack = loaded(deck)
    before = (deck / "cards.yaml").read_bytes()
    cases = {
        ("cost", "abc"): "'cost' must be a number (got 'abc')",
        ("cost", "-1"): "'cost' must be between 0 and None (got -1)",
        ("suit", "star"): "'suit' must be one of sun, moon (got 'star')",
        ("count", "0"): "'count' must be at least 1 (got 0)",
        ("id", "a b"): "id 'a b' may hold only letters, digits, '.', '_' and '-', starting with a "
        "letter or digit (it names files)",
        ("id", "moon-2"): "the id 'moon-2' is taken; ids are unique in a pack",
        ("colour", "red"): "'colour' is not a field of group 'cards' (suit, cost, title, note)",
    }
    for (name, value), message in cases.items():
        with pytest.raises(Refused) as refused:
            writeback.set_value(pack, "cards", "sun-1", name, value)
        assert str(refused.value) == message
    with pytest.raises(Refused) as refused:
        writeback.set_value(pack, "cards", "sun-1", "cost", "-1")
    assert str(refused.value.problem.where) == "deck/cards.yaml:16:13"
    assert (deck / "cards.yaml").read_bytes() == before


def test_anchored_and_aliased_values_are_refused(deck):
    pack = loaded(deck)
    before = (deck / "cards.yaml").read_bytes()
    with pytest.raises(Refused) as anchored:
        writeback.set_value(pack, "cards", "moon-1", "cost", 4)
    assert str(anchored.value) == (
        "this value carries the anchor &three, which other values may share; edit it in the file"
    )
    with pytest.raises(Refused) as aliased:
        writeback.set_value(pack, "cards", "moon-2", "cost", 4)
    assert str(aliased.value) == (
        "this value is shared with other values through a YAML alias or merge key (written at "
        "line 21); edit it in the file"
    )
    with pytest.raises(Refused) as copied:
        writeback.duplicate_item(pack, "cards", "moon-1")
    assert str(copied.value) == (
        "the item holds a YAML anchor (&) others may use; it cannot be duplicated here"
    )
    with pytest.raises(Refused) as whole:
        writeback.set_value(pack, "cards", "moon-1", "title", "Dusk")
    assert str(whole.value) == "this value is written over several lines; edit one of its values"
    assert (deck / "cards.yaml").read_bytes() == before


def test_sources_say_which_values_cannot_be_edited_and_why(deck):
    pack = loaded(deck)
    moon1 = {v.field: v.why for v in sources.sources(pack, "cards", "moon-1").fields}
    moon2 = {v.field: v.why for v in sources.sources(pack, "cards", "moon-2").fields}
    assert moon1 == {
        "suit": "",
        "cost": "this value carries the anchor &three, which other values may share; edit it "
        "in the file",
        "title.en": "",
        "title.pl": "",
        "note": "",
    }
    assert moon2["cost"] == (
        "this value is shared with other values through a YAML alias or merge key (written at "
        "line 21); edit it in the file"
    )
    assert moon2["title"] == ""


MERGED = """cards:
  kind: card
  size: poker
  front: card.svg.j2
  fields: {cost: number, title: text}
  items:
    - &base {id: a, cost: 1, title: A}
    - {<<: *base, id: b}
"""


def test_a_merged_value_is_set_on_the_item_and_an_anchored_item_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pack = make_pack(tmp_path, MERGED)
    now = loaded(pack)
    with pytest.raises(Refused) as anchored:
        writeback.set_value(now, "cards", "a", "cost", 2)
    assert str(anchored.value) == (
        "this lies in item 1 of 'items' (line 7), which carries the anchor &base other values "
        "may share; "
        "edit it in the file"
    )
    edit = writeback.set_value(now, "cards", "b", "cost", 5)
    assert changed_lines(edit.before, edit.after) == [
        ("    - {<<: *base, id: b}\n", "    - {<<: *base, id: b, cost: 5}\n")
    ]
    assert (item(pack, "a").fields["cost"], item(pack, "b").fields["cost"]) == (1, 5)


def test_an_items_lines_alone_give_the_edit_the_whole_file_gives(deck):
    """The fast way (yamledit.apply on the item's lines) against the plain one (the whole text)."""
    file = deck / "cards.yaml"
    text = file.read_text(encoding="utf-8")
    doc, _ = loader.load_yaml(file)
    items = ("cards", "items")
    ops = [
        lambda t, its, i: yamledit.set_value(t, its + (i,), ("cost",), 8),
        lambda t, its, i: yamledit.set_value(t, its + (i,), ("title", "en"), "A, b: c"),
        lambda t, its, i: yamledit.set_value(t, its + (i,), ("note",), "new"),
        lambda t, its, i: yamledit.duplicate_item(t, its, i, "copy"),
        lambda t, its, i: yamledit.add_item(t, its, i, {"id": "x", "cost": 1, "title": "X"}),
        yamledit.remove_item,
    ]
    assert [yamledit._window(text, doc, items + (i,)) is not None for i in range(4)] == [
        True,
        True,
        False,  # an anchor
        False,  # an alias
    ]
    for index in (0, 1):
        for op in ops:
            assert yamledit.apply(file, text, doc, items, index, op) == op(text, items, index)
    last = "a:\n  items:\n    - {id: x}\n    - id: y\n      c: 1\n\n# b next\nb:\n  kind: card\n"
    file.write_text(last)
    doc, _ = loader.load_yaml(file)
    a, b = yamledit._window(last, doc, ("a", "items", 1))
    assert last[a:b] == "    - id: y\n      c: 1\n\n# b next\n"  # the last item, before b


def test_duplicating_adding_and_removing_items(deck):
    pack = loaded(deck)
    dup = writeback.duplicate_item(pack, "cards", "sun-1")
    assert inserted(dup.before, dup.after) == [
        "    - id: sun-1-copy\n",
        "      cost: 1   # cheap\n",
        "      title: {en: Dawn, pl: 'Świt'}\n",
    ]
    flow = writeback.duplicate_item(pack, "cards", "sun-2", "noon-2")
    assert inserted(flow.before, flow.after) == [
        '    - {id: noon-2, cost: 2.5, title: {en: Noon, pl: "Południe"}}\n'
    ]
    added = writeback.add_item(pack, "cards", "dusk-2", {"cost": "7", "suit": "moon"})
    assert inserted(added.before, added.after) == [
        "    - id: dusk-2\n",
        "      cost: 7\n",
        "      suit: moon\n",
        "      title: dusk-2\n",
    ]
    gone = writeback.remove_item(pack, "cards", "sun-2")
    assert inserted(gone.after, gone.before) == [
        '    - {id: sun-2, cost: 2.5, title: {en: Noon, pl: "Południe"}}\n'
    ]
    ids = [i.id for i in loaded(deck).items()]
    assert ids == ["sun-1", "sun-1-copy", "noon-2", "moon-1", "moon-2", "dusk-2"]
    assert item(deck, "sun-1-copy").fields == item(deck, "sun-1").fields


def test_windows_line_breaks_stay_windows_line_breaks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pack = make_pack(tmp_path, CARDS.replace("\n", "\r\n"))
    now = loaded(pack)
    writeback.set_value(now, "cards", "sun-1", "cost", 5)
    writeback.set_value(now, "cards", "sun-1", "note", "hi")
    writeback.duplicate_item(now, "cards", "sun-2")
    writeback.add_item(now, "cards", "z", {"cost": 1})
    writeback.set_value(now, "cards", "moon-2", "title", "A\nB\n")
    text = (pack / "cards.yaml").read_bytes().decode()
    assert "\n" not in text.replace("\r\n", "")
    assert text.replace("\r\n", "\n") == CARDS.replace(
        "      cost: 1   # cheap\n      title: {en: Dawn, pl: 'Świt'}\n",
        "      cost: 5   # cheap\n      title: {en: Dawn, pl: 'Świt'}\n      note: hi\n",
    ).replace(
        '    - {id: sun-2, cost: 2.5, title: {en: Noon, pl: "Południe"}}\n',
        '    - {id: sun-2, cost: 2.5, title: {en: Noon, pl: "Południe"}}\n'
        '    - {id: sun-2-copy, cost: 2.5, title: {en: Noon, pl: "Południe"}}\n',
    ).replace(
        "      title: |\n        Night\n",
        "      title: |\n        A\n        B\n    - id: z\n      cost: 1\n      title: z\n",
    )


def test_a_list_of_an_items_from_group_is_written_in_its_source_group(breakable):
    kit = breakable("mlem")
    pack = loaded(kit.pack)
    info = sources.sources(pack, "dice-large", "die-2")
    assert (info.source_group, info.file, info.fields[0].place) == (
        "dice",
        "dice.yaml",
        "dice.yaml:17:26",
    )
    assert [(t.side, t.place) for t in info.templates] == [("front", "dice.yaml:30:10")]
    edit = writeback.set_value(pack, "dice-large", "die-2", "faces", "1; 2; 2; 3; 4; 4")
    assert changed_lines(edit.before, edit.after) == [
        (
            "    - {id: die-2, faces: [1, 2, 2, 3, 4, afterburner], opposite: [[1, 2], [2, 4], "
            "[3, afterburner]], provenance: {opposite: design}}\n",
            "    - {id: die-2, faces: [1, 2, 2, 3, 4, 4], opposite: [[1, 2], [2, 4], "
            "[3, afterburner]], provenance: {opposite: design}}\n",
        )
    ]
    with pytest.raises(Refused) as refused:
        writeback.set_value(pack, "dice", "die-2", "faces", "1; 2; 9")
    assert str(refused.value) == "'faces' must be one of 1, 2, 3, 4, afterburner (got '9')"


def test_the_only_item_is_not_removed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pack = make_pack(
        tmp_path, CARDS.split("    # the first")[0] + "    - {id: a, cost: 1, title: A}\n"
    )
    with pytest.raises(Refused, match="^it is the group's only item; a group needs at least one$"):
        writeback.remove_item(loaded(pack), "cards", "a")


def test_undo_puts_the_file_back_byte_for_byte(deck):
    pack = loaded(deck)
    original = (deck / "cards.yaml").read_bytes()
    journal = writeback.Journal()
    journal.record(writeback.set_value(pack, "cards", "sun-1", "cost", 9))
    journal.record(writeback.duplicate_item(pack, "cards", "sun-1"))
    journal.record(writeback.remove_item(pack, "cards", "moon-2"))
    journal.record(writeback.set_value(pack, "cards", "moon-2" if False else "sun-2", "note", "x"))
    while journal.edits:
        journal.undo(deck)
    assert (deck / "cards.yaml").read_bytes() == original
    with pytest.raises(Refused, match="^nothing to undo$"):
        journal.undo(deck)


def test_undo_refuses_when_the_file_changed_since(deck):
    journal = writeback.Journal()
    edit = journal.record(writeback.set_value(loaded(deck), "cards", "sun-1", "cost", 9))
    (deck / "cards.yaml").write_bytes(edit.after + b"# saved in an editor\n")
    with pytest.raises(Refused) as refused:
        journal.undo(deck)
    assert str(refused.value) == (
        "cards.yaml has changed since this edit (cards/sun-1: cost = 9); undo would lose that "
        "change, so the file was left as it is"
    )
    assert (deck / "cards.yaml").read_bytes().endswith(b"# saved in an editor\n")


def test_writes_stay_inside_the_pack_and_never_through_a_link(deck, tmp_path):
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text("x: 1\n")
    with pytest.raises(Refused) as refused:
        writeback.write(deck, writeback.Edit(outside, b"x: 1\n", b"x: 2\n"))
    assert str(refused.value) == (
        "'elsewhere.yaml' leads outside the pack; it was not read; the studio writes only "
        "files inside the pack"
    )
    link = deck / "linked.yaml"
    link.symlink_to(deck / "cards.yaml")
    data = (deck / "cards.yaml").read_bytes()
    with pytest.raises(Refused, match="^linked.yaml is a link"):
        writeback.write(deck, writeback.Edit(link, data, b""))
    assert outside.read_text() == "x: 1\n" and (deck / "cards.yaml").read_bytes() == data


def test_an_edit_waits_for_no_build_and_refuses_while_one_holds_the_output(deck, tmp_path):
    out = tmp_path / "build"
    with output.locked(out, "pnpkit build deck"):
        with pytest.raises(Refused) as refused:
            with writeback.output_free(out, timeout=0.1):
                pass
    assert str(refused.value) == (
        "a build is writing build; the edit was not made (try again when it finishes)"
    )
    with writeback.output_free(out, timeout=0.1):
        writeback.set_value(loaded(deck), "cards", "sun-1", "cost", 2)


def test_a_generated_item_is_not_edited(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    generated = (
        CARDS.split("  defaults:")[0]
        + "  generate: {product: {cost: [1, 2]}, id: 'c-{cost}', title: C, suit: sun}\n"
    )
    pack = loaded(make_pack(tmp_path, generated))
    info = sources.sources(pack, "cards", "c-2")
    assert info.kind == "generated" and not info.fields[0].editable
    assert info.fields[0].why == (
        "made by the generator at cards.yaml:11:13; edit its product or id pattern in the file"
    )
    with pytest.raises(Refused, match="^'c-2' is made by the generator at deck/cards.yaml:11:13"):
        writeback.set_value(pack, "cards", "c-2", "cost", 3)


def test_a_template_is_written_where_the_build_reads_it_and_undone(deck):
    pack = loaded(deck)
    journal = writeback.Journal()
    new = TEMPLATE.replace('font-size="4"', 'font-size="5"')
    edit = journal.record(writeback.set_template(pack, "card.svg.j2", new))
    assert edit.file == (deck / "templates" / "card.svg.j2").resolve()
    assert (deck / "templates" / "card.svg.j2").read_text() == new
    journal.undo(deck)
    assert (deck / "templates" / "card.svg.j2").read_text() == TEMPLATE
    refusals = {
        "_face.svg.j2": "'_face.svg.j2' is one of pnpkit's own templates; copy it into the "
        "pack's templates/ folder to change it",
        "../game.yaml": "'../game.yaml' is not a template's name (a path inside a templates "
        "folder)",
        "nope.svg.j2": "there is no template 'nope.svg.j2'",
    }
    for name, message in refusals.items():
        with pytest.raises(Refused) as refused:
            writeback.set_template(pack, name, "x")
        assert str(refused.value) == message


def test_a_shared_template_beside_components_is_written_and_undone(breakable):
    kit = breakable("mammoth-herd")
    pack = loaded(kit.pack)
    name = "mammoth-herd/herd-standee.svg.j2"
    shared = Path("templates") / name
    before = shared.read_bytes()
    journal = writeback.Journal()
    journal.record(writeback.set_template(pack, name, before.decode() + "<!-- edited -->\n"))
    assert shared.read_bytes().endswith(b"<!-- edited -->\n")
    journal.undo(kit.pack)
    assert shared.read_bytes() == before


# ---------------------------------------------------------------- CSV and TSV


@pytest.mark.parametrize("kind", ["csv", "tsv"])
def test_a_cell_of_a_delimited_sheet_changes_in_its_row_only(tmp_path, monkeypatch, kind):
    monkeypatch.chdir(tmp_path)
    pack = make_pack(tmp_path, sheet=(kind, [HEADER] + ROWS))
    d = "," if kind == "csv" else "\t"
    info = sources.sources(loaded(pack), "cards", "sun-2")
    assert [(v.field, v.value, v.place) for v in info.fields[:4]] == [
        ("suit", "sun", f"cards.{kind}:3:7"),
        ("cost", 2.5, f"cards.{kind}:3:11"),
        ("title.en", "Noon, late", f"cards.{kind}:3:15"),
        ("title.pl", "Południe", f"cards.{kind}:3:{28 if kind == 'csv' else 26}"),
    ]
    pack_now = loaded(pack)
    cost = writeback.set_value(pack_now, "cards", "sun-2", "cost", "7")
    title = writeback.set_value(pack_now, "cards", "sun-1", "title.en", 'Dawn, "early"')
    count = writeback.set_count(pack_now, "cards", "sun-2", 4)
    title_pl = "Południe" if kind == "tsv" else "Południe"
    noon = '"Noon, late"' if kind == "csv" else "Noon, late"
    assert changed_lines(cost.before, cost.after) == [
        (d.join(["sun-2", "sun", "2.5", noon, title_pl, ""]) + "\n",
         d.join(["sun-2", "sun", "7", noon, title_pl, ""]) + "\n")
    ]  # fmt: skip
    assert changed_lines(title.before, title.after) == [
        (d.join(["sun-1", "sun", "1", "Dawn", "Świt", "2"]) + "\n",
         d.join(["sun-1", "sun", "1", '"Dawn, ""early"""', "Świt", "2"]) + "\n")
    ]  # fmt: skip
    assert changed_lines(count.before, count.after)[0][1].endswith(d + "4\n")
    got = item(pack, "sun-2")
    assert (got.fields["cost"], got.count) == (7, 4)
    assert item(pack, "sun-1").fields["title"]["en"] == 'Dawn, "early"'


@pytest.mark.parametrize("kind", ["csv", "tsv"])
def test_rows_are_added_duplicated_and_removed(tmp_path, monkeypatch, kind):
    monkeypatch.chdir(tmp_path)
    pack = make_pack(tmp_path, sheet=(kind, [HEADER] + ROWS))
    d = "," if kind == "csv" else "\t"
    now = loaded(pack)
    dup = writeback.duplicate_item(now, "cards", "sun-1")
    assert inserted(dup.before, dup.after) == [
        d.join(["sun-1-copy", "sun", "1", "Dawn", "Świt", "2"]) + "\n"
    ]
    add = writeback.add_item(now, "cards", "x-1", {"cost": 5, "title": {"en": "X", "pl": "Y"}})
    assert inserted(add.before, add.after) == [d.join(["x-1", "sun", "5", "X", "Y", ""]) + "\n"]
    gone = writeback.remove_item(now, "cards", "moon-1")
    assert inserted(gone.after, gone.before) == [
        d.join(["moon-1", "moon", "3", "Dusk", "Zmierzch", "1"]) + "\n"
    ]
    assert [i.id for i in loaded(pack).items()] == ["sun-1", "sun-1-copy", "sun-2", "x-1"]


def test_a_csv_row_that_spans_lines_and_a_file_without_a_final_break(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pack = make_pack(tmp_path, sheet=("csv", [HEADER] + ROWS))
    text = 'id,suit,cost,title.en,title.pl\r\nsun-1,sun,1,"Two\r\nlines",Dwie\r\nsun-2,sun,2,B,C'
    (pack / "cards.csv").write_bytes(text.encode())
    now = loaded(pack)
    writeback.set_value(now, "cards", "sun-2", "cost", 3)
    writeback.duplicate_item(now, "cards", "sun-2")
    writeback.set_value(now, "cards", "sun-1", "suit", "moon")
    assert (pack / "cards.csv").read_bytes() == (
        b'id,suit,cost,title.en,title.pl\r\nsun-1,moon,1,"Two\r\nlines",Dwie\r\nsun-2,sun,3,B,C'
        b"\r\nsun-2-copy,sun,3,B,C"
    )


# ---------------------------------------------------------------- workbooks


def styled_workbook(path: Path) -> None:
    """The rows with styles: a bold header, a filled cost column with a number format."""
    import openpyxl
    from openpyxl.styles import Font, PatternFill

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Deck"
    for r, row in enumerate([HEADER] + ROWS, 1):
        for c, v in enumerate(row, 1):
            if v is not None:
                ws.cell(r, c, v)
    for c in range(1, len(HEADER) + 1):
        ws.cell(1, c).font = Font(bold=True)
    for r in range(2, 5):
        ws.cell(r, 3).fill = PatternFill("solid", fgColor="FFFF00")
        ws.cell(r, 3).number_format = "0.00"
    ws.cell(3, 4).font = Font(italic=True)
    ws["G1"], ws["G2"] = "note", '="a"&"b"'
    wb.save(path)
    saved_value(path)


def saved_value(path: Path) -> None:
    """G2's formula with the value a spreadsheet saves with it (openpyxl saves none)."""
    with zipfile.ZipFile(path) as z:
        parts = [(i, z.read(i)) for i in z.infolist()]
    old, new = (
        b'<c r="G2"><f>"a"&amp;"b"</f><v></v></c>',
        b'<c r="G2" t="str"><f>"a"&amp;"b"</f><v>ab</v></c>',
    )
    with zipfile.ZipFile(path, "w") as z:
        for info, data in parts:
            assert info.filename != "xl/worksheets/sheet1.xml" or old in data
            z.writestr(info, data.replace(old, new), compress_type=zipfile.ZIP_DEFLATED)


def test_an_xlsx_cell_changes_and_keeps_its_style(tmp_path, monkeypatch):
    import openpyxl
    import python_calamine

    monkeypatch.chdir(tmp_path)
    pack = make_pack(tmp_path, sheet=("xlsx", [HEADER] + ROWS))
    styled_workbook(pack / "cards.xlsx")
    (pack / "cards.yaml").write_text(
        SHEET_GROUP.replace("ITEMS", "{from: cards.xlsx, sheet: Deck}"), encoding="utf-8"
    )
    now = loaded(pack)
    info = sources.sources(now, "cards", "sun-2")
    assert [v.place for v in info.fields[1:3]] == ["cards.xlsx:Deck!C3", "cards.xlsx:Deck!D3"]
    before = (pack / "cards.xlsx").read_bytes()
    writeback.set_value(now, "cards", "sun-2", "cost", "9.5")
    writeback.set_value(now, "cards", "sun-2", "title.en", "Zenith & <dusk>")
    writeback.set_value(now, "cards", "sun-2", "note", "last")  # G3: an empty cell, no style
    writeback.set_count(now, "cards", "sun-2", 3)  # F3, before G3 in the row
    row = re.search(r'<row r="3".*?</row>', zipfile.ZipFile(pack / "cards.xlsx").read(
        "xl/worksheets/sheet1.xml").decode()).group(0)  # fmt: skip
    assert re.findall(r'<c r="([A-Z]+)3"', row) == list("ABCDEFG")
    wb = openpyxl.load_workbook(pack / "cards.xlsx")
    ws = wb["Deck"]
    assert (ws["C3"].value, ws["D3"].value, ws["F3"].value) == (9.5, "Zenith & <dusk>", 3)
    assert ws["G3"].value == "last"
    assert ws["C3"].fill.fgColor.rgb == "00FFFF00" and ws["C3"].number_format == "0.00"
    assert ws["D3"].font.italic and ws["A1"].font.bold and ws["G2"].value == '="a"&"b"'
    rows = (
        python_calamine.CalamineWorkbook.from_path(str(pack / "cards.xlsx"))
        .get_sheet_by_name("Deck")
        .to_python()
    )
    assert rows[2][:6] == ["sun-2", "sun", 9.5, "Zenith & <dusk>", "Południe", 3.0]
    old, new = zipfile.ZipFile(io.BytesIO(before)), zipfile.ZipFile(pack / "cards.xlsx")
    assert [i.filename for i in old.infolist()] == [i.filename for i in new.infolist()]
    for info in old.infolist():
        if info.filename != "xl/worksheets/sheet1.xml":
            assert new.read(info.filename) == old.read(info), info.filename
            assert new.getinfo(info.filename).date_time == info.date_time
    got = item(pack, "sun-2")
    assert (got.fields["cost"], got.fields["title"]["en"], got.count) == (9.5, "Zenith & <dusk>", 3)


def test_an_xlsx_formula_and_rows_are_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pack = make_pack(tmp_path, sheet=("xlsx", [HEADER + ["note"]] + [r + ["x"] for r in ROWS]))
    import openpyxl

    wb = openpyxl.load_workbook(pack / "cards.xlsx")
    wb.active["G2"] = '="a"&"b"'
    wb.save(pack / "cards.xlsx")
    saved_value(pack / "cards.xlsx")
    before = (pack / "cards.xlsx").read_bytes()
    now = loaded(pack)
    with pytest.raises(Refused, match="^cell G2 holds a formula; edit it in your spreadsheet$"):
        writeback.set_value(now, "cards", "sun-1", "note", "y")
    with pytest.raises(Refused) as rows:
        writeback.duplicate_item(now, "cards", "sun-1")
    assert str(rows.value) == (
        "add or remove a workbook's rows in your spreadsheet (pnpkit writes back its cells only)"
    )
    assert (pack / "cards.xlsx").read_bytes() == before


def test_ods_is_refused_with_a_clear_word(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pack = make_pack(tmp_path, sheet=("ods", [HEADER] + ROWS))
    now = loaded(pack)
    assert sources.sources(now, "cards", "sun-1").fields[0].why == sources.ODS_REFUSED
    with pytest.raises(Refused) as refused:
        writeback.set_value(now, "cards", "sun-1", "cost", 2)
    assert str(refused.value) == "edit this in your spreadsheet (ODS cannot be written back whole)"


# ---------------------------------------------------------------- a real kit


def test_an_edit_of_a_real_kit_shows_in_its_rebuilt_pdf(breakable):
    from conftest import page_texts

    kit = breakable("mammoth-herd")
    pack = loaded(kit.pack)
    info = sources.sources(pack, "herd", "herd")
    assert [(v.field, v.place) for v in info.fields[:2]] == [
        ("name.pl", "herd.yaml:11:18"),
        ("name.en", "herd.yaml:11:39"),
    ]
    before = (kit.pack / "herd.yaml").read_text(encoding="utf-8")
    edit = writeback.set_value(pack, "herd", "herd", "name.en", "Woolly Zed")
    assert changed_lines(edit.before, edit.after) == [
        (
            '      name: {pl: "Stado mamutów", en: "Mammoth herd"}\n',
            '      name: {pl: "Stado mamutów", en: "Woolly Zed"}\n',
        )
    ]
    assert before.count("\n") == edit.after.decode().count("\n")
    assert kit.build().code == 0
    text = "\n".join(page_texts(Path("build/mammoth-herd/mammoth-herd-en.pdf")))
    assert "Woolly Zed" in text
    assert os.path.exists("build/mammoth-herd/mammoth-herd-pl.pdf")
