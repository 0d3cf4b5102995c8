"""A panel sized from its text's used height (issue 34): the text is set first, the panel drawn
under it from `.height`, so a short text gets a short panel and a long one a tall panel."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pnpkit.commands.cli import main

GAME = """id: tp
name: TP
languages: [en]
players: {min: 1, max: 2}
print: {bleed: 0mm, backs: none, crop_marks: false}
"""
CARD = """{% extends "_face.svg.j2" %}
{% block content %}
{% set t = text_box(item.text, 5, 5, 50, 80, size=10, markup=false) %}
<rect id="panel" x="3" y="3" width="54" height="{{ '%.3f' % (t.height + 4) }}" fill="#eeeeee"/>
{{ t }}
{% endblock %}
"""
SHORT = "Roll the die."
LONG = " ".join(["Move your ship as many spaces as the die shows, then pay the fee."] * 4)


def panel_and_lines(tmp_path: Path, text: str) -> tuple[float, int]:
    root = tmp_path / "tp"
    (root / "templates").mkdir(parents=True)
    (root / "game.yaml").write_text(GAME, encoding="utf-8")
    (root / "templates" / "card.svg.j2").write_text(CARD, encoding="utf-8")
    (root / "cards.yaml").write_text(
        "cards:\n  kind: card\n  size: 60x90mm\n  front: card.svg.j2\n  fields: {text: text}\n"
        f"  items:\n    - {{id: c1, text: '{text}'}}\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    assert main(["build", str(root), "--out", str(out), "--lang", "en"]) == 0
    svg = (out / "tp" / "svg" / "en" / "cards" / "c1-front.svg").read_text(encoding="utf-8")
    height = re.search(r'<rect id="panel"[^>]* height="([0-9.]+)"', svg)
    assert height, svg
    baselines = [float(y) for y in re.findall(r'<tspan[^>]* y="([0-9.]+)"', svg)]
    assert len(baselines) == svg.count("<tspan"), svg
    # the panel (y 3 .. 3 + height) holds the last line's baseline and its descent
    assert 3 + float(height.group(1)) > baselines[-1] + 0.5
    return float(height.group(1)), len(baselines)


@pytest.mark.parametrize("text, more_than", [(SHORT, 0), (LONG, 5)])
def test_panel_height_is_the_texts_used_height_plus_padding(tmp_path, monkeypatch, text, more_than):
    monkeypatch.chdir(tmp_path)
    height, lines = panel_and_lines(tmp_path, text)
    assert lines > more_than and (lines == 1) == (text == SHORT)
    em = 10 * 25.4 / 72  # 10 pt in mm: the first line, then one 1.2 leading step per line
    assert height == pytest.approx(em * (1 + 1.2 * (lines - 1)) + 4, abs=0.002)
