"""Worker processes render and compile a large build: the kit is byte for byte the one a single
process makes, problems and all, and where no process can be had the build does it all itself."""

from __future__ import annotations

import concurrent.futures
import os
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, colour_pack
from pnpkit import build, cli, parallel
from pnpkit.cache import Cache


def outputs(folder: Path) -> dict:
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in files}


made_by_workers: list[list[int]] = []  # small_pool's: per build and language, by a worker


@pytest.fixture
def small_pool(monkeypatch):
    """Workers for any build, in tasks of three faces; counts the faces they made."""
    monkeypatch.setattr(parallel, "MIN_FACES", 1)
    monkeypatch.setattr(parallel, "CHUNK", 3)
    made = []
    prepare = parallel.prepare

    def counting(*args, **kwargs):
        ahead = prepare(*args, **kwargs)
        made.append(len(ahead.faces))
        by_workers.append(ahead.by_workers)
        return ahead

    by_workers: list[int] = []
    made_by_workers.append(by_workers)

    monkeypatch.setattr(parallel, "prepare", counting)
    return made


def both(pack: Path, out: Path) -> tuple[build.Result, build.Result]:
    """The pack built by one process into out/one and by two into out/two."""
    results = []
    for name, jobs in (("one", 1), ("two", 2)):
        shutil.rmtree(out / name, ignore_errors=True)
        results.append(
            build.build(
                pack,
                out / name,
                cache=Cache(out / name / "cache", jobs=jobs),
                code=build.Code(True),
            )
        )
    return results[0], results[1]


@pytest.mark.parametrize("game", ["mammoth-herd", "star-cargo"])
def test_a_kit_built_by_workers_is_the_kit_one_process_builds(game, tmp_path, small_pool):
    one, two = both(ROOT / "components" / game, tmp_path)
    assert not one.errors and one.written and two.written
    assert small_pool[0] == 0 and sum(small_pool[1:]) > 0  # --jobs 1 made nothing ahead; 2 did
    # the worker took tasks from the end, this process the rest (texts checked by both)
    assert 0 < sum(made_by_workers[-1]) < sum(small_pool)
    assert one.problems == two.problems
    assert outputs(tmp_path / "one" / game) == outputs(tmp_path / "two" / game)


BROKEN = """{% extends "_face.svg.j2" %}{% block content %}
{% if item.id == 'c3' %}{{ item.nothing.deeper }}{% endif %}
{% if item.id == 'c5' %}<mask id="m"/>{% endif %}
<rect x="0" y="0" width="10" height="10" fill="{{ item.colour }}"/>
{% endblock %}
"""


def test_workers_report_the_same_problems_in_the_same_order(tmp_path, small_pool):
    pack = colour_pack(tmp_path / "pack", n=12)
    (pack / "templates" / "solid.svg.j2").write_text(BROKEN)
    one, two = both(pack, tmp_path)
    assert sum(small_pool[1:]) > 0
    assert [str(p) for p in one.errors] == [str(p) for p in two.errors]
    assert {p.rule for p in one.errors} == {"template", "svg"}
    assert not one.written and not two.written


TEXTS = """{% extends "_face.svg.j2" %}{% block content %}
<rect x="0" y="0" width="{{ face.w }}" height="{{ face.h }}" fill="{{ item.colour }}"/>
{{ text_box(item.id ~ ' on its colour', 1, 10, 40, 8, size=9, fill='#808080') }}
<text x="-2" y="5" font-family="DejaVu Sans" font-size="2">{{ item.id }} cut</text>
{% endblock %}
"""


def test_the_text_checks_done_ahead_are_the_ones_the_build_makes(tmp_path, small_pool):
    pack = colour_pack(tmp_path / "pack", n=12)
    (pack / "templates" / "solid.svg.j2").write_text(TEXTS)
    one, two = both(pack, tmp_path)
    assert 0 < sum(made_by_workers[-1]) < sum(small_pool)
    said = [str(p) for p in one.problems]
    assert said == [str(p) for p in two.problems]
    assert any("contrast" in p for p in said) and any("cut line" in p for p in said)


def test_without_processes_the_build_does_it_all_itself(tmp_path, small_pool, monkeypatch):
    def refused(*args, **kwargs):
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", refused)  # imported by prepare()
    pack = ROOT / "components" / "mammoth-herd"
    one, two = both(pack, tmp_path)
    assert not two.errors and small_pool == [0, 0, 0, 0]  # each language, each build: nothing ahead
    assert outputs(tmp_path / "one" / "mammoth-herd") == outputs(tmp_path / "two" / "mammoth-herd")


def test_a_small_build_starts_no_workers(tmp_path, monkeypatch):
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", None)  # would fail if called
    pack = colour_pack(tmp_path / "pack", n=parallel.MIN_FACES // 2 - 1)
    result = build.build(pack, tmp_path / "out", cache=Cache(jobs=2), code=build.Code(True))
    assert result.written and not result.errors


FACE_PY = """from pnpkit.pyfaces import drawing


def draw(ctx):
    d = drawing(ctx)
    d.add(d.rect((10, 10), (20, 20), fill="#00aa00"))
    return d
"""


def test_faces_drawn_by_the_packs_python_never_go_to_workers(tmp_path, small_pool):
    pack = colour_pack(tmp_path / "pack", n=6)
    (pack / "board.py").write_text(FACE_PY)
    cards = pack / "cards.yaml"
    cards.write_text(cards.read_text().replace("front: solid.svg.j2", "front: board.py:draw"))
    one, two = both(pack, tmp_path)
    assert not one.errors and two.written
    assert small_pool[1:] == [6]  # the backs only
    assert outputs(tmp_path / "one" / "probe") == outputs(tmp_path / "two" / "probe")


@pytest.mark.parametrize("cores, load", [(2, 0.0), (2, 1.3), (1, 0.0), (8, 0.5)])
def test_by_default_one_process_whatever_the_cores_and_load(cores, load, monkeypatch):
    """A pool does not shorten a build yet (issue 16): --jobs N is opt-in."""
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    assert parallel.default_jobs() == 1


@pytest.mark.parametrize("argv, jobs", [([], 1), (["--jobs", "2"], 2)])
def test_the_cli_starts_workers_only_when_asked(argv, jobs, tmp_path, small_pool, monkeypatch):
    """`pnpkit build` without --jobs renders in this process alone, even for a large pack."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))  # an idle machine
    pack = colour_pack(tmp_path / "pack", n=12)
    code = cli.main(["build", str(pack), "--out", str(tmp_path / "out"), "--trust", *argv])
    assert code == 0
    assert small_pool == ([0] if jobs == 1 else [24])  # faces made ahead, by the pool's processes


def test_without_fork_the_svg_files_and_the_kit_are_the_same(tmp_path, small_pool, monkeypatch):
    """No fork at all: no workers, no child drawing forms, no child writing the face SVGs;
    this process does everything and the kit is byte for byte the same."""
    pack = colour_pack(tmp_path / "pack", n=12)  # no rules.py: its child is another matter
    build.build(pack, tmp_path / "forked", cache=Cache(jobs=2), code=build.Code(True))

    def refused():
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(os, "fork", refused)
    result = build.build(pack, tmp_path / "alone", cache=Cache(jobs=2), code=build.Code(True))
    assert result.written and not result.errors
    svgs = [p for p in (tmp_path / "alone").rglob("*.svg")]
    assert len(svgs) == 24
    assert outputs(tmp_path / "alone") == outputs(tmp_path / "forked")
