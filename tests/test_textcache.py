"""The text check's findings are kept with the build cache: a rebuild serves them without checking
a text again and prints exactly the warnings a cold build prints; a drawing that changed, in its
SVG or in a file it draws, or other check settings, is checked again."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write_pack
from pnpkit.build import pipeline as build
from pnpkit.build.cache import Cache
from pnpkit.checks import textcheck

CARD = """{% extends "_face.svg.j2" %}{% block content %}
<rect x="-3" y="-3" width="{{ face.w + 6 }}" height="{{ face.h + 6 }}" fill="#ffffff"/>
<text x="30" y="70" font-size="3" fill="#888888">grey</text>
<text x="-1" y="50" font-size="3" fill="#000000">{{ item.name }} over the edge</text>
<image href="art/badge.svg" x="10" y="10" width="20" height="20"/>
{% endblock %}
"""

BADGE = """<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20">
<rect x="0" y="0" width="20" height="20" fill="#ffffff"/>
<text x="2" y="10" font-size="4" fill="{colour}">seal</text>
</svg>
"""


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    items = "\n".join(f"    - {{id: c{n}, name: Card{n}}}" for n in range(4))
    return write_pack(
        tmp_path / "probe",
        {
            "game.yaml": "name: T\nlanguages: [en]\nplayers: {min: 1, max: 1}\n",
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n  front: t.svg.j2\n"
            f"  fields:\n    name: string\n  items:\n{items}\n",
            "templates/t.svg.j2": CARD,
            "art/badge.svg": BADGE.format(colour="#000000"),
        },
    )


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The drawings textcheck.problems() is asked about, by the first text each draws."""
    calls: list[str] = []
    real = textcheck.problems

    def counted(face, *args, **kwargs):
        calls.append(face.item)
        return real(face, *args, **kwargs)

    monkeypatch.setattr(textcheck, "problems", counted)
    return calls


def warnings(pack: Path, out: Path) -> list[str]:
    """A build's text warnings, as printed, through a cache read from out (a new process)."""
    result = build.build(pack, build.BuildOptions(out, cache=Cache(out / build.CACHE_DIR)))
    assert not result.errors, [str(p) for p in result.errors]
    return [str(p) for p in result.problems if p.rule == "text"]


def test_a_rebuild_checks_no_text_and_prints_the_same_warnings(pack, tmp_path, checks):
    out = tmp_path / "out"
    cold = warnings(pack, out)
    assert checks == ["c0", "c1", "c2", "c3"]
    assert (out / build.CACHE_DIR / "probe+texts.marshal").is_file()
    assert len(cold) == 5  # the grey text (once: one template line), each card's name
    assert "t.svg.j2:3:" in cold[-1] and "'grey' has a contrast of 3.5:1" in cold[-1]
    assert cold[0].endswith(
        "probe/cards.yaml:8:7: warning: text 'Card0 over the edge' crosses the cut line "
        "(the front of 'c0') [text]"
    )
    checks.clear()
    assert warnings(pack, out) == cold
    assert checks == []


def test_a_changed_card_is_checked_again(pack, tmp_path, checks):
    out = tmp_path / "out"
    cold = warnings(pack, out)
    cards = pack / "cards.yaml"
    cards.write_text(cards.read_text().replace("name: Card2", "name: Other"))
    checks.clear()
    again = warnings(pack, out)
    assert checks == ["c2"]
    assert again == [w.replace("Card2", "Other") for w in cold]


def test_a_changed_file_the_svg_draws_is_checked_again(pack, tmp_path, checks):
    """The face's SVG is the same, the art it draws is not: its text turns light grey."""
    out = tmp_path / "out"
    cold = warnings(pack, out)
    (pack / "art" / "badge.svg").write_text(BADGE.format(colour="#cccccc"))
    checks.clear()
    again = warnings(pack, out)
    assert checks == ["c0", "c1", "c2", "c3"]
    new = [w.split("probe/", 1)[1] for w in again if w not in cold]
    assert new == [
        f"cards.yaml:{8 + n}:7: warning: text 'seal' has a contrast of 1.6:1 with the colour "
        f"under it, below 4.5:1 (WCAG) (the front of 'c{n}') [text]"
        for n in range(4)
    ]


def test_other_check_settings_check_again(pack, tmp_path, checks):
    out = tmp_path / "out"
    warnings(pack, out)
    game = pack / "game.yaml"
    game.write_text(game.read_text() + "print: {safe: 20mm}\n")
    checks.clear()
    again = warnings(pack, out)
    assert checks == ["c0", "c1", "c2", "c3"]
    assert any("safe zone" in w for w in again)


WORDING = """{% extends "_face.svg.j2" %}{% block content %}
<text x="-2" y="10" font-size="4" fill="#000000">it touches or crosses us</text>
<text x="5" y="45" font-size="4" fill="#000000">Crossed</text>
<text x="8" y="46" font-size="4" fill="#000000">words</text>
{% endblock %}
"""


def test_a_rebuild_keeps_the_rule_of_each_warning(tmp_path, checks):
    """The kept findings carry their rule: the text check's ([text]) and the layout check's
    ([overlap]) come back as they were made, whatever their messages say."""
    pack = write_pack(
        tmp_path / "words",
        {
            "game.yaml": "name: T\nlanguages: [en]\nplayers: {min: 1, max: 1}\n",
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n  front: t.svg.j2\n"
            "  items:\n    - {id: one}\n",
            "templates/t.svg.j2": WORDING,
        },
    )
    out = tmp_path / "out"

    def printed() -> list[tuple[str, str]]:
        result = build.build(pack, build.BuildOptions(out, cache=Cache(out / build.CACHE_DIR)))
        return [(p.message, p.rule) for p in result.problems]

    cold = printed()
    assert cold == [
        ("text 'it touches or crosses us' crosses the cut line", "text"),
        ("text 'Crossed' touches or crosses text 'words'", "overlap"),
    ]
    checks.clear()
    assert printed() == cold
    assert checks == []
