"""memo: a bounded memo emptied when full, and the registry build.forget_kept() empties."""

from __future__ import annotations

from collections import OrderedDict

import pytest

from pnpkit import memo


def test_remember_keeps_up_to_cap_entries_then_starts_afresh():
    kept: dict[int, str] = {}
    for n in range(3):
        assert memo.remember(kept, n, f"v{n}", 3) == f"v{n}"
    assert kept == {0: "v0", 1: "v1", 2: "v2"}
    assert memo.remember(kept, 3, "v3", 3) == "v3"  # full: emptied, then the new entry
    assert kept == {3: "v3"}
    memo.remember(kept, 3, "again", 3)  # a key already there: still emptied only when full
    assert kept == {3: "again"}


def test_remember_returns_the_very_value():
    value = ["a"]
    assert memo.remember({}, "k", value, 10) is value


@pytest.fixture
def registry(monkeypatch):
    """An empty registry for the test (the modules' own registrations put back after)."""
    monkeypatch.setattr(memo, "_KEPT", [])


def test_forget_empties_every_registered_cache_and_only_those(registry):
    a: dict[str, int] = {"x": 1}
    b: OrderedDict[str, int] = OrderedDict(y=2)
    c: list[int] = [3]
    other = {"z": 4}
    memo.kept(a, b)
    memo.kept(c)
    assert memo.registered() == (a, b, c)
    memo.forget()
    assert (a, b, c) == ({}, OrderedDict(), [])
    assert other == {"z": 4}
    a["again"] = 5  # still registered after being emptied
    memo.forget()
    assert a == {}


def test_a_cache_registered_twice_is_kept_once_and_equal_caches_both(registry):
    a: dict[str, int] = {}
    b: dict[str, int] = {}  # equal to a, but another cache
    memo.kept(a)
    memo.kept(a, b)
    assert len(memo.registered()) == 2
    assert memo.registered()[0] is a and memo.registered()[1] is b
