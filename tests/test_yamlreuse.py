"""A YAML file read again (watch) reuses its last parse and parses only the items that changed:
the result must be what a whole parse gives, data, places (their order too) and problems."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from conftest import colour_pack
from pnpkit.build import pipeline as build
from pnpkit.pack import loader, reparse
from pnpkit.pack.reparse import _LAST
from pnpkit.pack.yamlbounds import MAX_VALUES
from pnpkit.pack.yamldoc import Document


def whole(path: Path) -> tuple[Document, list]:
    """The file parsed whole, its last parse neither used nor kept."""
    doc = Document(loader.display_path(path))
    return loader._parse(doc, path.read_text(encoding="utf-8"), MAX_VALUES)


def same_as_whole(path: Path) -> None:
    reread, found = loader.load_yaml(path)
    cold, expected = whole(path)
    assert reread.data == cold.data
    assert list(reread.values.items()) == list(cold.values.items())
    assert list(reread.keys.items()) == list(cold.keys.items())
    assert found == expected


@pytest.fixture
def patches(monkeypatch) -> list[bool]:
    """One entry per attempt to patch the last parse: whether it could."""
    made: list[bool] = []
    patched = reparse._patched

    def spy(*args):
        now = patched(*args)
        made.append(now is not None)
        return now

    monkeypatch.setattr(reparse, "_patched", spy)
    return made


CARD = "    - {{id: n{0}, title: 'T{0}', colour: '#123456', icons: [a, b]}}"
SNIPPETS = [  # what an edit inserts or writes over a line: good items, broken ones, traps
    CARD,
    "    - id: b{0}\n      title: 'B'\n      colour: '#654321'",
    "    # a comment {0}",
    "",
    "    - {{id: bad{0}, title: .nan, colour: 2, icons: []}}",
    "    - &a {{id: anchor{0}}}",
    "    - *a",
    "  oops{0}: 1",
    "    - {{id: twice{0}, id: 2}}",
    "    - id: lit{0}\n      title: |\n        hello\n\n",
    "\t- tab{0}",
    "    -  {{id: wide{0}, colour: '#111111'}}",
    "    - {{id: m{0}, title: 'two\n      lines', colour: '#111111'}}",
    "    - id: nest{0}\n      icons:\n        - a\n        - b",
    "---",
    "...",
    "      - deeper{0}",
    "    - 123456789012345678901234567890123",
    "    -",
    "- outdented{0}",
]


def test_random_edits_parse_as_the_whole_file_does(tmp_path, patches):
    pack = colour_pack(tmp_path, n=40)
    path = pack / "cards.yaml"
    rng = random.Random(7)
    same_as_whole(path)
    for step in range(300):
        lines = path.read_text(encoding="utf-8").split("\n")
        body = [i for i, line in enumerate(lines) if line.startswith("    ")] or [len(lines) - 1]
        at, snippet = rng.choice(body), rng.choice(SNIPPETS).format(step).split("\n")
        if (op := rng.random()) < 0.35:
            lines[at] = lines[at].replace("#", "#0", 1).replace("c", "k", 1)
        elif op < 0.6:
            lines[at:at] = snippet
        elif op < 0.75:
            del lines[at]
        else:
            lines[at : at + 1] = snippet
        if step % 8 == 7:  # a fresh good file now and then, so that good edits keep coming
            lines = (colour_pack(tmp_path / str(step), n=40) / "cards.yaml").read_text().split("\n")
        path.write_text("\n".join(lines), encoding="utf-8")
        same_as_whole(path)
    assert patches.count(True) > 50  # the reuse was taken, and checked
    assert patches.count(False) > 20  # and refused


@pytest.mark.parametrize(
    "new",
    [
        "    - &x {id: anchored, colour: '#111111'}",  # another &x below: a duplicate anchor
        "    - {id: twice, id: c9, colour: '#111111'}",
        "    - {id: infinite, colour: .inf}",
        "    - id: block\n      colour: |\n        '#111111'",
        "  - {id: outdented, colour: '#111111'}",
    ],
)
def test_an_edit_that_cannot_be_read_alone_parses_the_file_whole(tmp_path, patches, new):
    path = colour_pack(tmp_path, n=9) / "cards.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "    - &x {id: last, colour: '#222222'}\n", encoding="utf-8")
    path.write_text(text.replace("    - {id: c3,", "    - {id: q,", 1), encoding="utf-8")
    same_as_whole(path)  # kept: no alias in the file
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if "id: c4" in line)
    lines[at] = new
    path.write_text("\n".join(lines), encoding="utf-8")
    same_as_whole(path)
    assert patches[-1] is False


def test_an_edit_adding_lines_above_a_broken_item_is_located_as_a_cold_build(tmp_path, patches):
    pack = colour_pack(tmp_path, n=30)
    path = pack / "cards.yaml"
    text = path.read_text(encoding="utf-8").replace(
        "    - {id: c20,", "    - {id: c20, colur: '#000000',", 1
    )
    path.write_text(text, encoding="utf-8")
    first = build.validate(pack)
    assert [p.where.line for p in first.errors] == [29]
    added = "    - id: extra\n      colour: '#abcdef'\n    # a note\n"
    path.write_text(text.replace("    - {id: c5,", added + "    - {id: c5,", 1), encoding="utf-8")
    warm = [str(p) for p in build.validate(pack).problems]
    assert patches == [True]
    _LAST.here().clear()
    cold = [str(p) for p in build.validate(pack).problems]
    assert warm == cold
    assert any(":32:" in p and "unknown key 'colur'" in p for p in warm), warm


@pytest.mark.parametrize(
    "old, new",
    [
        ("{id: c0, colour: '#000000'}", "{id: c0, colour: '#000001'}"),  # a value: in place
        ("{id: c0, colour: '#000000'}", "{id: c0}"),  # its last key gone, the same lines
        ("{id: c0, colour: '#000000'}", "{colour: '#000000'}"),  # its first key gone
        ("{id: c0, colour: '#000000'}", "{colour: '#000000', id: c0}"),  # its keys reordered
        ("{id: c0, colour: '#000000'}", "{id: c0, colour: '#000000', x: 1}"),  # a key more
    ],
)
def test_an_edit_inside_the_first_item_keeps_every_other_place(tmp_path, patches, old, new):
    """The places of an item edited without moving a line take the old ones' slots only when
    they are the same paths in the same order (the first item too: its index is 0)."""
    pack = colour_pack(tmp_path, n=5)
    path = pack / "cards.yaml"
    text = path.read_text(encoding="utf-8")
    first = text.split("\n").index(next(x for x in text.split("\n") if "id: c0" in x))
    lines = text.split("\n")
    lines[first] = f"    - {old}"
    path.write_text("\n".join(lines), encoding="utf-8")
    same_as_whole(path)
    lines[first] = f"    - {new}"
    path.write_text("\n".join(lines), encoding="utf-8")
    same_as_whole(path)
    assert patches[-1]  # the item parsed alone
