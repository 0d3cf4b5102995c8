"""memo: a bounded memo emptied when full; workspace: what a process keeps between builds."""

from __future__ import annotations

from pnpkit import memo, workspace


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


def test_two_workspaces_never_see_each_other_s_entries():
    seen = workspace.Memo[str, int]("test.seen")
    first, second = workspace.Workspace(), workspace.Workspace()
    with first.active():
        seen["a"] = 1
        assert workspace.current() is first
        with second.active():
            assert "a" not in seen and len(seen) == 0
            seen["b"] = 2
        assert dict(seen) == {"a": 1}  # the outer one is current again
    with second.active():
        assert dict(seen) == {"b": 2}
    first.forget()
    with first.active():
        assert not seen and seen.get("a") is None


def test_a_memoized_function_keeps_its_results_per_workspace_up_to_its_cap():
    calls = []

    @workspace.memoized(2)
    def double(n: int, *, twice: bool = True) -> int:
        calls.append(n)
        return 2 * n if twice else n

    with workspace.Workspace().active():
        assert [double(1), double(1), double(2), double(1, twice=False)] == [2, 2, 4, 1]
        assert calls == [1, 2, 1] and double.size() == 2  # at most cap
        assert double(2) == 4 and calls == [1, 2, 1]  # kept
        assert double(1) == 2 and calls == [1, 2, 1, 1]  # the least recently used went first
        double.cache_clear()
        assert double.size() == 0
    with workspace.Workspace().active():
        assert double(2) == 4 and calls == [1, 2, 1, 1, 2]  # another workspace: made again


def test_a_thread_has_a_workspace_of_its_own():
    import threading

    mine = workspace.current()
    theirs = []
    thread = threading.Thread(target=lambda: theirs.append(workspace.current()))
    thread.start()
    thread.join()
    assert theirs and theirs[0] is not mine and workspace.current() is mine
