"""Player colours that collapse for colour-blind players are located warnings, for any pack."""

from __future__ import annotations

from conftest import write_pack
from pnpkit.build import pipeline as build
from pnpkit.checks import cvd

CARDS = "cards:\n  kind: card\n  size: poker\n  front: t.svg.j2\n  items:\n    - {id: one}\n"
FACE = '{% extends "_face.svg.j2" %}{% block content %}{% endblock %}\n'


def colour_pack(root, players: str, data: str):
    return write_pack(
        root,
        {
            "game.yaml": f"name: T\nlanguages: [en]\nplayers: {players}\ndata:\n{data}",
            "cards.yaml": CARDS,
            "templates/t.svg.j2": FACE,
        },
    )


def lines(result) -> list[str]:
    return [str(p).split("probe/", 1)[-1] for p in result.problems]


def test_red_and_green_collapse_for_deuteranopes(tmp_path):
    root = colour_pack(
        tmp_path / "probe",
        "{min: 2, max: 3, colours: {data: colours, field: fill}}",
        "  colours:\n    red: {fill: '#cc3333'}\n    green: {fill: '#669933'}\n"
        "    blue: {fill: '#0072b2'}\n",
    )
    assert lines(build.validate(root)) == [
        "game.yaml:3:36: warning: player colours 'red' and 'green' look alike with deuteranopia"
        " (CIELAB distance 6.4, below 15) [colours]",
    ]  # 95 apart for typical vision: a brick red and an olive green


def test_okabe_ito_colours_stay_apart_and_plain_hex_entries_are_read(tmp_path):
    root = colour_pack(
        tmp_path / "probe",
        "{min: 2, max: 4, colours: {data: colours}}",
        "  colours: {blue: '#0072B2', orange: '#E69F00', green: '#009E73', pink: '#CC79A7'}\n",
    )
    assert lines(build.validate(root)) == []


def test_a_missing_table_and_a_bad_colour_are_errors(tmp_path):
    root = colour_pack(tmp_path / "probe", "{min: 2, max: 4, colours: {data: nope}}", "  x: 1\n")
    assert lines(build.validate(root)) == [
        "game.yaml:3:36: error: players.colours names data 'nope', which is not a mapping of player"
        " colours in the pack's data [references]"
    ]
    root = colour_pack(
        tmp_path / "probe",
        "{min: 2, max: 4, colours: {data: c, field: hex}}",
        "  c: {a: {hex: '#12345'}, b: {hex: '#123456'}}\n",
    )
    assert lines(build.validate(root)) == [
        "game.yaml:3:36: error: player colour 'a' must be '#rrggbb' in its field 'hex' [schema]"
    ]


def test_the_simulation_moves_colours_as_published():
    # Machado et al.: pure red seen by a protanope is a dark olive, far darker than red
    red, seen = cvd.seen("#ff0000", "typical vision"), cvd.seen("#ff0000", "protanopia")
    assert red[0] > 50 and seen[0] < red[0] - 10
    assert (
        cvd.seen("#808080", "tritanopia") == cvd.seen("#808080", "typical vision")
        or max(
            abs(a - b)
            for a, b in zip(
                cvd.seen("#808080", "tritanopia"), cvd.seen("#808080", "typical vision")
            )
        )
        < 1
    )
