"""The sandbox protects the pack's data, not the template's own values (issue 35, item 4): the
lists and dicts a template makes may be changed (`{% set _ = pts.append(x) %}`, as packs written
before the sandbox do), the pack's data may not, and a refused change says what to write."""

from __future__ import annotations

import pickle

import pytest

from conftest import ROOT
from pnpkit.faces import render
from pnpkit.faces.frozen import FrozenDict, FrozenList, freeze
from pnpkit.faces.sandbox import Sandbox
from pnpkit.pack.schema import load_pack

WHERE = "components/mammoth-herd/tiles.yaml:16:7: error: template 'mammoth-herd/bonus-back.svg.j2'"
FACE = "(rendering the back of 'bonus-01') [template]"


def _template_line(kit, line: str) -> None:
    kit.edit(
        "templates/mammoth-herd/bonus-back.svg.j2",
        "{% block content %}\n",
        "{% block content %}\n" + line + "\n",
    )


@pytest.mark.parametrize(
    "source, shown",
    [
        (
            "{% set pts = [] %}{% for i in range(3) %}{% set _ = pts.append(i * 2) %}"
            "{% endfor %}{{ pts | join(',') }}",
            "0,2,4",
        ),
        ("{% set xs = [1] %}{% set _ = xs.extend([2, 3]) %}{{ xs.pop() }}|{{ xs }}", "3|[1, 2]"),
        (
            "{% set d = {'a': 1} %}{% set _ = d.update({'b': 2}) %}"
            "{% set _ = d.setdefault('c', 3) %}{{ d }}",
            "{'a': 1, 'b': 2, 'c': 3}",
        ),
        # a copy of the pack's data is the template's own
        (
            "{% set tags = item.tags | list %}{% set _ = tags.append('new') %}{{ tags }}",
            "['a', 'new']",
        ),
        (
            "{% set d = dict(data.bonus) %}{% set _ = d.update(x=2) %}{{ d }}|{{ data.bonus }}",
            "{'icon': 'tool', 'x': 2}|{'icon': 'tool'}",
        ),
    ],
)
def test_a_template_may_change_the_lists_and_dicts_it_made(source, shown):
    env = Sandbox(autoescape=False)
    context = {"item": freeze({"tags": ["a"]}), "data": freeze({"bonus": {"icon": "tool"}})}
    assert env.from_string(source).render(context) == shown


TAGS = "item.tags is the pack's data and cannot be changed: make a list of your own: "
BONUSES = "data.bonuses is the pack's data and cannot be changed: make a dict of your own: "


@pytest.mark.parametrize(
    "line, why",
    [
        ("{% set _ = item.tags.append('x') %}", TAGS + "{% set tags = item.tags | list %}"),
        ("{% set _ = item.tags.extend(['x']) %}", TAGS + "{% set tags = item.tags | list %}"),
        ("{% set _ = item.tags.pop() %}", TAGS + "{% set tags = item.tags | list %}"),
        (
            "{% set _ = data.bonuses.update({}) %}",
            BONUSES + "{% set bonuses = dict(data.bonuses) %}",
        ),
        (  # once refused as any template's change was (tests/test_trust.py)
            "{{ data.update({'dice_in_game': 1}) }}",
            "data is the pack's data and cannot be changed: make a dict of your own: "
            "{% set data = dict(data) %}",
        ),
        (
            "{% set _ = data.bonuses.tool.pop('icon') %}",
            "data.bonuses.tool is the pack's data and cannot be changed: make a dict of your own: "
            "{% set tool = dict(data.bonuses.tool) %}",
        ),
        (
            "{% set _ = item.clear() %}",
            "item is the pack's data and cannot be changed: make a dict of your own: "
            "{% set item = dict(item) %}",
        ),
        (  # found by what it is, not by the loop's name
            "{% for b in data.bonuses.values() %}{% set _ = b.setdefault('x', 1) %}{% endfor %}",
            "data.bonuses.tool is the pack's data and cannot be changed: make a dict of your own: "
            "{% set tool = dict(data.bonuses.tool) %}",
        ),
        (  # not found by a name: within a list
            "{% set _ = data.steps[0].update(x=1) %}",
            "this dict is the pack's data and cannot be changed: make a dict of your own: "
            "{% set mine = dict(the_dict) %}",
        ),
        (
            "{% set _ = data.steps[1].reverse() %}",
            "this list is the pack's data and cannot be changed: make a list of your own: "
            "{% set mine = the_list | list %}",
        ),
    ],
)
def test_changing_the_packs_data_is_a_located_error_saying_what_to_write(kit, line, why):
    kit.edit("components/mammoth-herd/game.yaml", "data:\n", "data:\n  steps: [{a: 1}, [1, 2]]\n")
    _template_line(kit, line)
    run = kit.validate()
    assert run.code == 1
    assert run.lines[0] == f"{WHERE} line 5: {why} {FACE}"


def test_a_template_written_before_the_sandbox_validates_and_draws_its_list(kit):
    _template_line(
        kit,
        "{% set pts = [] %}{% for i in range(4) %}{% set _ = pts.append(i * 10) %}{% endfor %}"
        '<polyline points="{{ pts | join(\',\') }}" stroke="#000000" fill="none"/>',
    )
    assert kit.validate().code == 0
    assert kit.build().code == 0
    svgs = list((kit.root / "build" / "mammoth-herd").rglob("*bonus-01*back*.svg"))
    assert svgs and all('points="0,10,20,30"' in p.read_text() for p in svgs)


def test_a_template_grows_its_own_list_within_its_budget(kit):
    _template_line(
        kit, "{% set xs = [1] %}{% for i in range(30) %}{% set _ = xs.extend(xs) %}{% endfor %}"
    )
    run = kit.validate()
    assert run.lines[0] == (
        f"{WHERE} line 5: over budget: a list of 1,048,576 items (a template may make at most "
        f"1,000,000) (see docs/strangers.md) {FACE}"
    )


@pytest.mark.parametrize("game", ["anunnaki", "mammoth-herd", "mlem", "star-cargo"])
def test_the_frozen_data_prints_as_the_data_did_so_the_faces_keys_stay(game):
    """The faces' cache keys hold repr() of what templates see; `{{ x }}`, `| tojson` and
    `| pprint` print what they saw: frozen, all read as the plain values did."""
    pack, _ = load_pack(ROOT / "components" / game)
    assert pack is not None
    for lang in pack.languages:
        shared = render.pack_context(pack, lang)
        assert type(shared["data"]) is FrozenDict
        assert repr(shared["data"]) == repr(pack.data)
        for group in pack.groups.values():
            for item in group.items:
                seen = render.item_values(item, lang)
                plain = _thawed(seen)
                assert type(seen["tags"]) is FrozenList and type(plain["tags"]) is list
                assert repr(seen) == repr(plain) and seen == plain


def _thawed(value):
    if isinstance(value, dict):
        return {k: _thawed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_thawed(v) for v in value]
    return value


def test_frozen_data_refuses_python_changes_and_survives_pickling():
    data = freeze({"a": [1, {"b": (2, [3])}]})
    for change in (
        lambda: data.update(x=1),
        lambda: data.__setitem__("x", 1),
        lambda: data["a"].append(1),
        lambda: data["a"][1].pop("b"),
        lambda: data["a"][1]["b"][1].sort(),
    ):
        with pytest.raises(TypeError, match="the pack's data is read-only"):
            change()
    again = pickle.loads(pickle.dumps(data))
    assert again == data and type(again["a"][1]) is FrozenDict
    assert type(data.copy()) is dict and type(data["a"] + [2]) is list  # copies are one's own
