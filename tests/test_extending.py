"""The "Extending pnpkit" recipe (docs/extending.md), run as written: one module, one
registration line, and every command lays out and checks with it."""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
from pathlib import Path

import pikepdf
import pytest

from conftest import write_pack
from pnpkit.build import pipeline as build
from pnpkit.commands.cli import main
from pnpkit.kinds import registry
from pnpkit.pdf import calibration

ROOT = Path(__file__).resolve().parents[1]
TOKEN = (
    '{% extends "_face.svg.j2" %}{% block content %}'
    '<rect x="0" y="0" width="{{ face.w }}" height="{{ face.h }}" fill="#336699"/>{% endblock %}\n'
)


def recipe() -> tuple[str, str]:
    """The module and the registration line, as docs/extending.md shows them."""
    page = (ROOT / "docs" / "extending.md").read_text(encoding="utf-8")
    module, line = re.findall(r"```python\n(.*?)```", page, re.S)
    return module, line


@pytest.fixture
def alone(tmp_path, monkeypatch):
    """The page's module, loaded from a file, and its registration line applied to PLUGINS."""
    module_text, line = recipe()
    path = tmp_path / "alone.py"
    path.write_text(module_text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("alone", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "alone", module)
    spec.loader.exec_module(module)
    namespace = {**vars(registry), "alone": module}
    # the line after its "# src/pnpkit/kinds/registry.py" comment
    exec(line.split("\n", 1)[1], namespace)
    monkeypatch.setattr(registry, "PLUGINS", namespace["PLUGINS"])
    return module


def test_the_documented_line_is_the_real_one_plus_the_new_module():
    _, line = recipe()
    shown = line.strip().splitlines()[-1]
    assert shown.replace(", alone)", ")") in inspect.getsource(registry)


def token_pack(root: Path, big: int) -> Path:
    return write_pack(
        root,
        {
            "game.yaml": (
                "name: Alone\nlanguages: [en]\nplayers: {min: 1, max: 1}\n"
                "print: {backs: none}\n"
                "checks:\n  - {rule: at-most-copies, id: T1, group: tokens, copies: 4}\n"
            ),
            "tokens.yaml": (
                "tokens:\n  kind: token\n  size: 30x20mm\n  front: token.svg.j2\n  items:\n"
                f"    - {{id: small, count: 1}}\n    - {{id: big, count: {big}}}\n"
            ),
            "templates/token.svg.j2": TOKEN,
        },
    )


def test_the_new_rule_reports_through_the_cli(alone, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    token_pack(tmp_path / "pack", big=5)
    assert main(["validate", "pack"]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert out == ["pack/tokens.yaml:7:7: error: 'big' prints 5 copies; the game allows 4 [T1]"]


def test_without_the_line_the_rule_is_unknown(tmp_path, capsys):
    pack = token_pack(tmp_path / "pack", big=3)
    assert main(["validate", str(pack)]) == 1
    assert "unknown rule 'at-most-copies'" in capsys.readouterr().out


def test_the_new_packer_lays_out_every_copy_alone_and_centred(alone, tmp_path):
    pack = token_pack(tmp_path / "pack", big=3)
    result = build.validate(pack)
    assert result.errors == []
    pages = result.pages["en"]
    shown = [[p.face.item for p in page.placements] for page in pages]
    assert shown == [["small"], ["big"], ["big"], ["big"]]
    for page in pages:
        [p] = page.placements
        assert (p.x + p.w / 2, p.y + p.h / 2) == pytest.approx((105.0, 148.5))  # A4's centre
    assert main(["build", str(pack), "--out", str(tmp_path / "out")]) == 0
    with pikepdf.open(tmp_path / "out" / "pack" / "pack-en.pdf") as pdf:
        assert len(pdf.pages) == calibration.page_count("none") + 4
