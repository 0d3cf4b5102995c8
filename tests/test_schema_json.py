"""The JSON Schemas editors use agree with the validator: every pack passes both, a broken pack
fails both, and the committed schema files are exactly what `pnpkit schema` writes."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path

import jsonschema
import pytest

from conftest import ROOT
from pnpkit.build import pipeline as build
from pnpkit.commands import json_schema
from pnpkit.pack import groups, schema
from pnpkit.pack.items import FIELD_KEYS, ITEM_KEYS
from pnpkit.pack.loader import load_yaml
from pnpkit.pack.model import KINDS

M = "components/mammoth-herd"
PACKS = sorted(p for p in (ROOT / "components").iterdir() if (p / "game.yaml").is_file())


def schema_problems(pack: Path, schemas: dict | None = None) -> list[str]:
    """Every JSON Schema error of every file of a pack, read as pnpkit reads it (YAML 1.2
    booleans)."""
    schemas = schemas or json_schema.schemas()
    found = []
    for path in sorted(pack.glob("*.yaml")):
        doc, problems = load_yaml(path)
        if problems:
            found += [str(p) for p in problems]
            continue
        kind = "game" if path.name == "game.yaml" else "components"
        validator = jsonschema.Draft7Validator(schemas[kind])
        found += [
            f"{path.name}: {'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(doc.data)
        ]
    return found


def test_the_schemas_are_valid_draft_7():
    for s in json_schema.schemas().values():
        jsonschema.Draft7Validator.check_schema(s)


def test_the_committed_schema_files_are_what_pnpkit_schema_writes(tmp_path, kit):
    assert {
        p.name: p.read_text(encoding="utf-8") for p in (ROOT / "schema").glob("*.json")
    } == json_schema.texts()
    run = kit.run("schema", str(tmp_path / "out"))
    assert run.code == 0
    assert {
        p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "out").iterdir()
    } == json_schema.texts()


@pytest.mark.parametrize("pack", PACKS, ids=[p.name for p in PACKS])
def test_every_pack_passes_the_validator_and_the_schema(pack):
    assert not build.validate(pack).errors
    assert schema_problems(pack) == []


@pytest.mark.parametrize("pack", PACKS, ids=[p.name for p in PACKS])
def test_every_pack_file_names_its_schema_on_its_first_line(pack):
    for path in sorted(pack.glob("*.yaml")):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first == json_schema.modeline(path, ROOT / "schema"), path
        target = (path.parent / first.split("$schema=")[1]).resolve()
        assert target.is_file() and target.parent == ROOT / "schema"


# (file, text, replacement): each breaks the pack's structure in one way a designer might
BROKEN = [
    ("tiles.yaml", "  kind: tile", "  kidn: tile"),  # a misspelt group key
    ("tiles.yaml", "kind: tile", "kind: tyle"),  # not a kind
    ("tiles.yaml", "size: 45x45mm", "size: 45mm"),  # not a size
    (
        "tiles.yaml",
        "{type: bool, default: true",
        "{type: boolean, default: true",
    ),  # not a field type
    (
        "tiles.yaml",
        "{id: bonus-01,",
        "{id: bonus-01, count: no,",
    ),  # YAML 1.1's 'no' is not a number
    ("tiles.yaml", "{id: bonus-01,", "{id: bonus-01, count: 0,"),  # at least 1
    ("tiles.yaml", "{id: bonus-01,", "{id: bonus-01, count: 1, per_player: 1,"),  # one or the other
    ("tiles.yaml", "resource: wood, provenance: design}", "resource: wood, provenance: designed}"),
    ("tiles.yaml", "{id: bonus-01, ", "{"),  # an item without an id
    ("herd.yaml", "    tab: {type: number", "    count: {type: number"),  # a reserved field name
    ("herd.yaml", "  front: mammoth-herd/herd-standee.svg.j2\n", ""),  # no front template
    ("game.yaml", "bleed: 3mm", "bleed: 3"),  # a length needs a unit
    ("game.yaml", "margin: 5mm", "margn: 5mm"),  # a misspelt print key
    ("game.yaml", "paper: a4", "paper: a5"),  # not a paper
    ("game.yaml", "backs: long-edge", "backs: long"),
    ("game.yaml", "players: {min: 2, max: 4}", "players: {max: 4}"),
    ("game.yaml", "languages: [pl, en]", "langs: [pl, en]"),
    ("game.yaml", "exact: 16,", "exactly: 16,"),  # an option the rule does not have
    ("game.yaml", "exact: 16,", "exact: 16, level: fatal,"),
]


@pytest.mark.parametrize(
    "file, old, new", BROKEN, ids=[f"{f}:{n.strip()[:30]}" for f, o, n in BROKEN]
)
def test_a_broken_pack_fails_the_validator_and_the_schema(kit, file, old, new):
    kit.edit(f"{M}/{file}", old, new)
    assert build.validate(kit.pack).errors
    found = schema_problems(kit.root / M)
    assert found and all(line.startswith(file) for line in found), found


def test_a_key_the_validator_learns_must_be_described(monkeypatch):
    """Generation fails loudly rather than leave a key out of the editor's schema."""
    monkeypatch.setattr(groups, "GROUP_KEYS", groups.GROUP_KEYS + ("stack",))
    with pytest.raises(KeyError, match="describes no group key stack"):
        json_schema.schemas()


def test_every_key_and_choice_of_the_validator_is_in_the_schema():
    s = json_schema.schemas()
    d = s["game"]["definitions"]
    assert list(s["game"]["properties"]) == list(schema.GAME_KEYS)
    assert list(d["print"]["properties"]) == list(schema.PRINT_KEYS)
    assert list(d["group"]["properties"]) == list(groups.GROUP_KEYS)
    assert list(d["item"]["properties"]) == list(ITEM_KEYS)
    assert list(d["field"]["anyOf"][1]["properties"]) == list(FIELD_KEYS)
    assert d["group"]["properties"]["kind"]["enum"] == list(KINDS)
    rules = {branch["if"]["properties"]["rule"]["const"] for branch in d["check"]["allOf"]}
    from pnpkit.kinds.registry import default_registry

    assert rules == set(default_registry().rules)
    assert json.loads(json.dumps(s)) == s  # plain JSON


# ---------------------------------------------------------------- a real editor's language server

YAML_LS = shutil.which("yaml-language-server")
needs_yaml_ls = pytest.mark.skipif(
    YAML_LS is None,
    reason="yaml-language-server is not installed (npm install -g yaml-language-server): "
    "the editor test needs the language server VS Code, Neovim and Helix use for YAML",
)


class LanguageServer:
    """yaml-language-server over stdio (the Language Server Protocol), as an editor runs it."""

    def __init__(self, root: Path):
        self.proc = subprocess.Popen(
            [YAML_LS, "--stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.messages: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        self.request(
            "initialize",
            processId=os.getpid(),
            rootUri=root.as_uri(),
            capabilities={
                "workspace": {"configuration": True},
                "textDocument": {"completion": {}, "publishDiagnostics": {}},
            },
        )
        self.notify("initialized")
        self.notify(
            "workspace/didChangeConfiguration",
            settings={"yaml": {"validate": True, "completion": True}},
        )

    def close(self):
        self.proc.kill()
        self.proc.wait(30)

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while (line := out.readline().decode().strip()) or length is None:
                if not line and out.closed:
                    return
                if line.lower().startswith("content-length:"):
                    length = int(line.split(":")[1])
            self.messages.put(json.loads(out.read(length)))

    def _send(self, message: dict):
        data = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.proc.stdin.write(f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
        self.proc.stdin.flush()

    def notify(self, method: str, **params):
        self._send({"method": method, "params": params})

    def request(self, method: str, **params):
        self.next_id += 1
        wanted = self.next_id
        self._send({"id": wanted, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == wanted and "method" not in m).get("result")

    def wait(self, found, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                message = self.messages.get(timeout=1)
            except queue.Empty:
                continue
            if "method" in message and "id" in message:  # the server asks the editor something
                settings = {"validate": True, "completion": True, "schemaStore": {"enable": False}}
                items = (
                    message["params"].get("items", [])
                    if message["method"] == "workspace/configuration"
                    else None
                )
                self._send(
                    {
                        "id": message["id"],
                        "result": [settings for _ in items] if items is not None else None,
                    }
                )
            elif found(message):
                return message
        raise AssertionError("the language server did not answer")


@needs_yaml_ls
def test_an_editor_flags_mistakes_and_completes_keys_from_the_schema(kit):
    """The modeline leads the editor's YAML server to the schema: as one types, a misspelt key is
    flagged and the keys a group may still have are offered."""
    shutil.copytree(ROOT / "schema", kit.root / "schema")
    server = LanguageServer(kit.root)
    try:
        path = kit.root / M / "tiles.yaml"
        text = path.read_text(encoding="utf-8").replace("  kind: tile", "  kidn: tile")
        uri = path.as_uri()
        server.notify(
            "textDocument/didOpen",
            textDocument={"uri": uri, "languageId": "yaml", "version": 1, "text": text},
        )
        diagnostics = server.wait(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri
                and m["params"]["diagnostics"]
            )
        )["params"]["diagnostics"]
        said = {(d["range"]["start"]["line"] + 1, d["message"]) for d in diagnostics}
        assert (6, "Property kidn is not allowed.") in said
        lines = text.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("  size:"))
        lines.insert(at, "  ")
        server.notify(
            "textDocument/didChange",
            textDocument={"uri": uri, "version": 2},
            contentChanges=[{"text": "\n".join(lines) + "\n"}],
        )
        result = server.request(
            "textDocument/completion",
            textDocument={"uri": uri},
            position={"line": at, "character": 2},
        )
        offered = {
            item["label"] for item in (result["items"] if isinstance(result, dict) else result)
        }
        assert {"kind", "bleed", "items_from", "doc"} <= offered  # the group keys not used yet
        assert "size" not in offered and "front" not in offered  # already there
    finally:
        server.close()


@pytest.mark.parametrize(
    "check, errors",
    [
        (
            "{rule: count, group: g, where: {resource: [wood, stone]}, each: resource, "
            "min: {max: [cards, cost]}}",
            0,
        ),
        (
            "{rule: capacity, group: g, field: f, where: {big: true}, each: resource, "
            "at_least: {max: [cards, cost]}}",
            0,
        ),
        ("{rule: count, group: g, where: wood}", 1),
        ("{rule: count, group: g, where: {resource: {a: 1}}}", 1),
        ("{rule: capacity, group: g, field: f, each: 3}", 1),
        ("{rule: capacity, group: g, field: f, at_least: {max: [cards]}}", 1),
    ],
)
def test_the_schema_knows_where_each_and_max_bounds(check, errors):
    """An editor completes and flags where/each/{max: …} as the validator reads them."""
    import yaml

    game = json_schema.schemas()["game"]
    validator = jsonschema.Draft7Validator(
        {"definitions": game["definitions"], "$ref": "#/definitions/check"}
    )
    found = list(validator.iter_errors(yaml.safe_load(check)))
    assert len(found) == errors, [e.message for e in found]
