"""A child draws a large build's new PDF forms while the build writes the PDF: the kit is byte for
byte the one a single process writes, the child's forms are really used, and a child that fails
only costs time."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import ROOT
from pnpkit import build, formsahead
from pnpkit.cache import Cache


def outputs(folder: Path) -> dict:
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in files}


def built(pack: Path, out: Path) -> Cache:
    shutil.rmtree(out, ignore_errors=True)
    cache = Cache(out / "cache")
    result = build.build(pack, out, cache=cache, code=build.Code(True))
    assert result.written and not result.errors
    return cache


@pytest.mark.parametrize("game", ["mammoth-herd", "star-cargo"])
def test_forms_drawn_by_a_child_make_the_pdf_one_process_makes(game, tmp_path, monkeypatch):
    pack = ROOT / "components" / game
    monkeypatch.setattr(formsahead, "MIN_FORMS", 10**9)
    alone = built(pack, tmp_path / "alone")
    monkeypatch.setattr(formsahead, "MIN_FORMS", 1)
    helped = built(pack, tmp_path / "helped")
    # a cold build replays only forms another language's PDF drew, and what the child drew
    assert helped.stats["forms reused"] > alone.stats["forms reused"]
    assert outputs(tmp_path / "alone" / game) == outputs(tmp_path / "helped" / game)


def test_a_child_that_fails_only_costs_time(tmp_path, monkeypatch):
    pack = ROOT / "components" / "mammoth-herd"
    monkeypatch.setattr(formsahead, "MIN_FORMS", 10**9)
    alone = built(pack, tmp_path / "alone")

    def broken(*args):
        raise RuntimeError("the child breaks")

    monkeypatch.setattr(formsahead, "MIN_FORMS", 1)
    monkeypatch.setattr(build, "_draw_forms", broken)
    cache = built(pack, tmp_path / "failed")
    assert cache.stats == alone.stats
    assert outputs(tmp_path / "alone" / "mammoth-herd") == outputs(
        tmp_path / "failed" / "mammoth-herd"
    )


def test_no_child_for_a_build_that_compiled_few_drawings():
    def never() -> dict:
        raise AssertionError("no child should run")

    assert formsahead.start(formsahead.MIN_FORMS - 1, never, set()) is None


def test_the_child_takes_the_later_share():
    assert formsahead.later_share(list(range(10)), 0.6) == [4, 5, 6, 7, 8, 9]
    assert formsahead.later_share([], 0.6) == []


def test_this_process_waits_only_for_the_child_s_own_drawings(monkeypatch):
    """Forms of the earlier faces are drawn here while the child works: asking for one of them
    must not wait for the child."""

    def child() -> dict:
        return {b"form": [1, "content", ()]}

    ahead = formsahead.start(formsahead.MIN_FORMS, child, {b"later"})
    assert ahead is not None
    try:
        assert ahead.entries_for(b"earlier") == {} and not ahead.taken
        assert ahead.entries_for(b"later") == {b"form": [1, "content", ()]}
        assert ahead.entries_for(b"later") == {}  # once
    finally:
        ahead.close()
