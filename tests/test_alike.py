"""A template that reads nothing of the item (a deck's back) is rendered once per group side and
its SVG given to the group's other items (render.same_for_every_item): the same faces and
problems as rendering each item's face, and never for a template whose face might differ."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from conftest import ROOT, write_pack
from pnpkit.build import pipeline as build
from pnpkit.faces import render
from pnpkit.faces.sandbox import environment
from pnpkit.kinds.registry import default_registry
from pnpkit.pack import schema
from pnpkit.pack.model import Pack

FACE = (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text()
BACK = """{% extends "_face.svg.j2" %}{% import "_icons.svg.j2" as icons %}
{% set ring = face.w / 3 %}{% block content %}
<circle cx="{{ face.w / 2 }}" cy="{{ face.h / 2 }}" r="{{ ring }}" fill="{{ s.ink }}"/>
{{ icons.icon('wood', 2, 2, 10) }}{% for n in range(3) %}<rect x="{{ n }}" y="1" width="1"
height="1" fill="#{{ '%02x' % (n * 40) }}0000"/>{% endfor %}
{% endblock %}
"""


def _pack(root: Path, back: str, count: int = 5) -> Path:
    items = "\n".join(f"    - {{id: c{i}, title: 'Card {i}'}}" for i in range(count))
    return write_pack(
        root,
        {
            "game.yaml": "name: Alike\nlanguages: [en, pl]\nplayers: {min: 1, max: 1}\n"
            "strings:\n  ink: {en: '#102030', pl: '#302010'}\n",
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n  front: front.svg.j2\n"
            f"  back: back.svg.j2\n  fields:\n    title: text\n  items:\n{items}\n"
            "tokens:\n  kind: token\n  size: 20x20mm\n  front: back.svg.j2\n"
            "  items:\n    - {id: t0}\n    - {id: t1}\n",
            "templates/front.svg.j2": '{% extends "_face.svg.j2" %}{% block content %}'
            "{{ text_box(item.title, 2, 2, 50, 10) }}{% endblock %}\n",
            "templates/back.svg.j2": back,
            "templates/_face.svg.j2": FACE,
        },
    )


def _loaded(pack_root: Path) -> tuple[Pack, jinja2.Environment]:
    pack, _ = schema.load_pack(pack_root)
    assert pack is not None
    return pack, environment(pack, default_registry())


def _each_alone(pack_root: Path) -> dict[str, object]:
    """Every face rendered on its own (no SVG handed from item to item), with the problems."""
    pack, env = _loaded(pack_root)
    made: dict[str, object] = {}
    for lang in pack.languages:
        shared, problems = render.pack_context(pack, lang), []
        faces = [
            render.render_face(env, pack, group, item, side, name, lang, shared, problems)
            for group in pack.groups.values()
            for item in group.items
            for side, name in item.templates.items()
        ]
        drawn = [(f.item, f.side, f.svg) for f in faces if f is not None]
        made[lang] = (drawn, [str(p) for p in problems])
    return made


def _together(pack_root: Path) -> dict[str, object]:
    pack, env = _loaded(pack_root)
    made: dict[str, object] = {}
    for lang in pack.languages:
        faces, problems = render.render(pack, lang, env)
        made[lang] = ([(f.item, f.side, f.svg) for f in faces], [str(p) for p in problems])
    return made


def _shared(pack_root: Path, name: str = "back.svg.j2") -> bool:
    return render.same_for_every_item(_loaded(pack_root)[1], name)


def test_a_back_that_reads_no_item_is_drawn_once_and_the_faces_are_the_same(tmp_path):
    root = _pack(tmp_path, BACK)
    assert _shared(root) and not _shared(root, "front.svg.j2")
    assert _together(root) == _each_alone(root)
    result = build.validate(root)
    assert not result.errors
    backs = [f for f in result.faces["en"] if f.side == "back"]
    assert len({id(f.svg) for f in backs}) == 1  # one rendering, one string
    tokens = [f for f in result.faces["en"] if f.item.startswith("t")]
    assert tokens[0].svg != backs[0].svg  # another group: another face size
    assert result.faces["pl"][1].svg != backs[0].svg  # another language: its own strings


@pytest.mark.parametrize(
    "change",
    [
        ("{{ ring }}", "{{ item.id | length }}"),  # the item itself
        ("{% set ring = face.w / 3 %}", "{% set ring = item.count %}"),  # through a name it sets
        ("{{ ring }}", "{{ text_box('x', 0, 0, 9, 9) }}"),  # text_box() knows its item
        ("{{ ring }}", "{{ face_hex(1, 2) }}"),  # a helper might read the context
        ("{{ ring }}", "{{ [1, 2] | random }}"),  # another value each time
        ("{{ ring }}", "{{ [1, 2] | map('random') | first }}"),  # a filter named by a filter
        ("{{ ring }}", "{{ lipsum(1) | length }}"),  # random words
        ("{{ ring }}", "{{ nowhere }}"),  # a name it does not set: an error, each item's own
        ("{% block content %}", '{% block content %}{% include "front.svg.j2" %}'),  # reads it
    ],
)
def test_a_template_whose_face_might_differ_is_drawn_for_each_item(tmp_path, change):
    root = _pack(tmp_path, BACK.replace(*change))
    assert not _shared(root)
    if "random" not in change[1] and "lipsum" not in change[1]:  # else: not twice alike
        assert _together(root) == _each_alone(root)


def test_a_back_that_fails_is_reported_for_every_item(tmp_path):
    root = _pack(tmp_path, BACK.replace("{{ ring }}", "{{ face.nothing }}"))
    assert _together(root) == _each_alone(root)
    problems = build.validate(root).problems
    assert sum("rendering the back of" in p.message for p in problems) == 5
