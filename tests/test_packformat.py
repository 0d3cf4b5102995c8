"""The pack format is declared once (packformat.py): the format page's tables
(docs/format.md), the model's defaults and the validator's key lists all follow that
declaration."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pnpkit.commands import json_schema
from pnpkit.pack import packformat, schema
from pnpkit.pack.groups import GROUP_KEYS
from pnpkit.pack.model import PrintSettings
from pnpkit.units import PT_PER_MM, parse_length

PAGE = Path(__file__).resolve().parents[1] / "docs" / "format.md"


@pytest.mark.parametrize("name", list(packformat.TABLES))
def test_the_format_page_tables_are_generated_from_the_declaration(name):
    """Fails when a key is added or changed without
    `python -m pnpkit.pack.packformat docs/format.md`."""
    text = PAGE.read_text(encoding="utf-8")
    start, end = packformat.MARK.format(name), packformat.END.format(name)
    assert start in text and end in text, f"docs/format.md has no {start} ... {end} section"
    assert text.split(start, 1)[1].split(end, 1)[0] == "\n" + packformat.readme(name)


def test_a_stale_format_table_is_noticed():
    text = PAGE.read_text(encoding="utf-8").replace("| `paper` |", "| `papr` |", 1)
    assert text != PAGE.read_text(encoding="utf-8")
    assert packformat.readme_text(text) == PAGE.read_text(encoding="utf-8")


def _default(key: packformat.Key) -> object:
    if key.type == "length":
        return parse_length(key.default)
    if key.type == "font size":
        return parse_length(key.default) * PT_PER_MM
    if key.type == "offset":
        return (0.0, 0.0)
    return key.default


@pytest.mark.parametrize("key", packformat.PRINT, ids=[k.name for k in packformat.PRINT])
def test_every_print_key_is_a_print_setting_with_the_declared_default(key):
    fields = {f.name: f for f in dataclasses.fields(PrintSettings)}
    assert key.field in fields, (
        f"model.PrintSettings has no field '{key.field}' for print.{key.name}"
    )
    assert (
        fields[key.field].default == pytest.approx(_default(key))
        if isinstance(_default(key), float)
        else fields[key.field].default == _default(key)
    )


def test_the_validator_and_the_schemas_take_their_keys_from_the_declaration():
    assert schema.PRINT_KEYS == packformat.names(packformat.PRINT)
    assert schema.GAME_KEYS == packformat.names(packformat.GAME)
    assert GROUP_KEYS == packformat.names(packformat.GROUP)
    d = json_schema.schemas()["game"]["definitions"]
    for key in packformat.PRINT:
        assert d["print"]["properties"][key.name]["description"] == key.doc
    for key in packformat.GROUP:
        assert d["group"]["properties"][key.name]["description"] == key.doc


def test_a_bound_declared_in_the_table_is_enforced_with_its_message(tmp_path, monkeypatch, capsys):
    """`safe` is bounded by its declaration alone: the reader has no code of its own for it."""
    from pnpkit.commands.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "game.yaml").write_text(
        "name: P\nlanguages: [en]\nplayers: {min: 1, max: 2}\nprint: {safe: 60mm}\n"
    )
    assert main(["validate", "p"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "p/game.yaml:4:15: error: 'safe' must be at most 50mm; "
        "a safe zone is a few millimetres (got 60mm) [schema]"
    ]
    safe = next(k for k in packformat.PRINT if k.name == "safe")
    monkeypatch.setattr(
        packformat,
        "PRINT",
        tuple(dataclasses.replace(k, max=70.0) if k is safe else k for k in packformat.PRINT),
    )
    assert main(["validate", "p"]) == 0
