"""pnpkit watch: a rebuild after every save, a broken pack that waits for the fix, the preview
server, and Ctrl-C that ends it cleanly."""

from __future__ import annotations

import dataclasses
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import pytest

from pnpkit import workspace
from pnpkit.build import pipeline as build
from pnpkit.build import svgfiles
from pnpkit.build.cache import Cache
from pnpkit.build.output import spare_for
from pnpkit.commands import watch
from pnpkit.commands.serve import Server
from pnpkit.commands.watch import Watcher

M = "components/mammoth-herd"
TIMEOUT = 60  # seconds to wait for a build before the test gives up (a hang, not a speed check)


class Running:
    """A watcher looping in a thread, its builds in a queue."""

    def __init__(self, kit, **options):
        self.watcher = Watcher(kit.pack, Path("build"), interval=0.05, **options)
        self.builds: queue.Queue = queue.Queue()
        self.thread = threading.Thread(
            target=self.watcher.loop, args=(self.builds.put,), daemon=True
        )
        self.thread.start()

    def next(self) -> watch.Build:
        return self.builds.get(timeout=TIMEOUT)

    def quiet(self, seconds: float = 0.5) -> bool:
        """True if no build comes within `seconds`."""
        try:
            self.builds.get(timeout=seconds)
        except queue.Empty:
            return True
        return False

    def stop(self) -> None:
        self.watcher.stop.set()
        self.thread.join(TIMEOUT)
        assert not self.thread.is_alive()


@pytest.fixture
def running(kit):
    started = []

    def start(**options):
        started.append(Running(kit, **options))
        return started[-1]

    yield start
    for r in started:
        r.stop()


def watched_rebuilds(kit, out: Path):
    """A rebuild of the kit into out as watch makes one (a long-lived cache, the previous kit
    kept as the next build's spare), and the cache."""
    from pnpkit.build import output

    cache = Cache(out / build.CACHE_DIR, deferred=True)

    def rebuild() -> None:
        assert not build.build(
            kit.pack, build.BuildOptions(out, cache=cache, watch=build.WatchHooks())
        ).errors
        with output.locked(out, "test"):
            output.keep_spares(out)

    return rebuild, cache


def assert_a_cold_build(kit, kit_folder: Path, out: Path) -> None:
    """kit_folder holds exactly what a cold build of the kit in a fresh process would write to
    out (nothing kept from the builds before)."""
    build.forget_kept()
    assert not build.build(kit.pack, build.BuildOptions(out)).errors
    cold = out / "mammoth-herd"
    assert {p.relative_to(kit_folder): d for p, d in files(kit_folder).items()} == {
        p.relative_to(cold): d for p, d in files(cold).items()
    }


def files(folder: Path) -> dict:
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_builds_at_once_then_after_each_save_rendering_only_what_changed(kit, running):
    w = running()
    first = w.next()
    assert first.ok and first.serial == 1
    assert (kit.root / "build" / "mammoth-herd" / "mammoth-herd-en.pdf").is_file()
    assert first.stats["faces rendered"] == 70
    kit.edit(
        f"{M}/reference.yaml",
        "Stand the herd next to the stack.",
        "Stand the herd beside the stack.",
    )
    second = w.next()
    assert second.ok and second.serial == 2
    assert second.stats["faces rendered"] == 2 and second.stats["faces reused"] == 68
    kit.edit(
        "templates/mammoth-herd/bonus-back.svg.j2", 'fill="#5a3d26"', 'fill="#5a3d27"'
    )  # a shared template folder
    assert w.next().stats["faces rendered"] == 32
    assert w.quiet()  # nothing changed since: no build


def test_a_rebuild_in_the_loop_writes_what_a_cold_build_writes(kit, running):
    """The watcher hands each rebuild what the last one made (drawings, form keys, the page's
    figures, the spare kit: the first one of links to the first build's files): after each
    edit (one that moves the fonts' codes among them, one that changes a back, one that replaces
    an item by another), its kit is byte for byte a new process's build from nothing."""
    w = running()
    assert w.next().ok
    out = kit.root / "build" / "mammoth-herd"
    src = str(Path(watch.__file__).resolve().parents[1])  # the pnpkit this test runs
    edits = [
        ("reference.yaml", "Stand the herd next to the stack.", "Stand the herd Ω."),
        ("tiles.yaml", "all: brick1, resource: wood,", "all: brick1, resource: gold,"),
        ("tiles.yaml", "{id: bonus-16,", "{id: bonus-17,"),  # its files go (the game needs 16)
    ]
    for n, (name, old, new) in enumerate(edits):
        kit.edit(f"{M}/{name}", old, new)
        edited = w.next()
        assert edited.ok, [str(p) for p in edited.result.problems]
        if n == 1:
            assert edited.stats["faces rendered"] == 4  # its front and back, pl and en
        result = subprocess.run(
            [sys.executable, "-m", "pnpkit", "build", kit.pack, "--out", f"cold{n}"],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONPATH=src),
        )
        assert result.returncode == 0, result.stderr
        cold = kit.root / f"cold{n}" / "mammoth-herd"
        assert {p.relative_to(out): data for p, data in files(out).items()} == {
            p.relative_to(cold): data for p, data in files(cold).items()
        }, n


def test_a_broken_pack_prints_its_problems_keeps_the_last_good_build_and_waits(kit, running):
    w = running()
    assert w.next().ok
    out = kit.root / "build" / "mammoth-herd"
    good = files(out)
    kit.edit(f"{M}/herd.yaml", "tab: 12", "tab: no")
    broken = w.next()
    assert not broken.ok
    assert [str(p) for p in broken.result.problems] == [
        f"{M}/herd.yaml:12:12: error: 'tab' must be a number (got 'no') [schema]"
    ]
    assert broken.state()["problems"] == [str(p) for p in broken.result.problems]
    assert files(out) == good
    kit.edit(f"{M}/herd.yaml", "tab: no", "{{ nonsense")  # now not even YAML
    assert not w.next().ok
    assert w.thread.is_alive()
    kit.edit(f"{M}/herd.yaml", "{{ nonsense", "tab: 14")
    fixed = w.next()
    assert fixed.ok and fixed.serial == 4
    assert files(out) != good


def test_new_art_in_the_pack_triggers_a_build(kit, running):
    w = running()
    assert w.next().ok
    (kit.root / M / "art").mkdir()
    (kit.root / M / "art" / "mammoth.png").write_bytes(b"\x89PNG not really")
    assert w.next().ok


def test_editor_scratch_files_and_the_output_folder_are_not_watched(kit):
    watcher = Watcher(kit.pack, kit.pack / "out")
    before = watcher.snapshot()
    for name in (".herd.yaml.swp", "herd.yaml~", "#herd.yaml#", ".#herd.yaml"):
        (kit.root / M / name).write_text("scratch")
    (kit.root / M / "out").mkdir()
    (kit.root / M / "out" / "kit.pdf").write_text("output")
    assert watcher.snapshot() == before
    (kit.root / "templates" / "mammoth-herd" / "extra.svg.j2").write_text("new")
    assert len(watcher.snapshot().files) == len(before.files) + 1


def test_a_save_seen_late_is_built_at_once_a_fresh_one_settles_first(kit):
    watcher = Watcher(kit.pack, kit.pack / "out")
    before = watcher.snapshot()
    herd = kit.root / M / "herd.yaml"
    herd.write_text(herd.read_text() + "\n")
    fresh = watcher.snapshot()
    saved = fresh.changed[str(herd.resolve())] / 1e9  # the save's own time

    def left(snapshot, after):  # seconds to wait, seen `after` seconds after the save
        return watch.settle_left(before, snapshot, clock=lambda: saved + after)

    assert left(fresh, 0.01) == pytest.approx(watch.SETTLE - 0.01)  # just saved: the rest
    assert left(fresh, watch.SETTLE + 0.01) == 0  # found late: at once
    assert left(fresh, -5) == watch.SETTLE  # a time ahead of this clock: the whole wait
    assert 0 <= watch.settle_left(before, fresh) <= watch.SETTLE  # the real clock
    ahead = {k: v + 10 * 10**9 for k, v in fresh.changed.items()}  # another machine's clock
    late = watch.Snapshot(fresh.files, ahead)
    assert late == fresh and watch.settle_left(before, late) == watch.SETTLE
    herd.unlink()  # a removed file has no time: the whole wait
    assert watch.settle_left(fresh, watcher.snapshot(), clock=lambda: saved + 9) == watch.SETTLE


@pytest.mark.parametrize("half", ["tab: 13", "tab: no"])
def test_a_save_written_on_while_it_is_built_is_dropped_unseen(kit, tmp_path, monkeypatch, half):
    """A change is built as soon as it is seen; the editor's next step, written once the build
    has read the half-saved file (which builds, or fails to load), drops that build: nothing is
    swapped in or reported, the live kit and the last build stay (a kit it made is the next
    build's spare). The finished file's build is then a build from nothing's, byte for byte."""
    watcher = Watcher(kit.pack, Path("build"))
    first = watcher.rebuild()
    watcher.tidy()
    out = kit.root / "build" / "mammoth-herd"
    live, seen = files(out), watcher.snapshot()
    taken = []
    take = svgfiles.take_spare
    monkeypatch.setattr(svgfiles, "take_spare", lambda *a: taken.append(take(*a)) or taken[-1])
    kit.edit(f"{M}/herd.yaml", "tab: 12", half)
    halfway = watcher.snapshot()
    validate = build.validate

    def written_on(*args, **kwargs):
        result = validate(*args, **kwargs)
        kit.edit(f"{M}/herd.yaml", half, "tab: 9")  # another size: the look sees it
        return result

    monkeypatch.setattr(build, "validate", written_on)
    assert watcher.rebuild_settled(seen, halfway) is None
    assert watcher.last is first and files(out) == live
    assert not list(out.parent.glob(".*.partial"))
    made = half == "tab: 13"  # a kit made (no spare yet to start from): it is the spare now
    assert taken == ([False] if made else []) and spare_for(out).is_dir() is made
    monkeypatch.setattr(build, "validate", validate)
    finished = watcher.rebuild_settled(seen, watcher.snapshot())
    assert finished is not None and finished.ok and watcher.last is finished
    assert taken[-1] is made  # started from the dropped kit
    assert files(out) != live
    assert_a_cold_build(kit, out, tmp_path / "cold")


def test_a_build_done_before_its_files_settle_waits_for_them(kit, monkeypatch):
    """A build done sooner than SETTLE after the change it read waits out the rest before its
    kit counts, and a step the editor writes in that wait drops it."""
    watcher = Watcher(kit.pack, Path("build"))
    first = watcher.rebuild()
    seen = watcher.snapshot()
    kit.edit(f"{M}/herd.yaml", "tab: 12", "tab: 13")
    now = watcher.snapshot()
    monkeypatch.setattr(watch, "settle_left", lambda before, after: 30.0)  # a slow editor
    waits = []

    def wait(seconds):
        waits.append(seconds)
        if len(waits) == 1:
            kit.edit(f"{M}/herd.yaml", "tab: 13", "tab: 9")  # its last step, in the wait
        return False

    watcher.stop = SimpleNamespace(wait=wait)
    assert watcher.rebuild_settled(seen, now) is None
    assert len(waits) == 1 and 29 < waits[0] <= 30 and watcher.last is first
    assert watcher.rebuild_settled(now, watcher.snapshot()) is not None
    assert len(waits) == 2 and watcher.last.serial == 2


def test_after_a_dropped_build_the_next_change_settles_before_it_is_built(kit):
    """Files rewritten without a pause (a script writing the pack over and over) drop every
    build made while they change: once one is dropped, the next change is built only once it is
    SETTLE old (written(patient=True)), as watch always waited before a build, so the writing
    costs one dropped build, not one per step; after a build that stands, WRITTEN again."""
    watcher = Watcher(kit.pack, Path("build"))
    looks = iter(range(100))
    watcher.snapshot = lambda: watch.Snapshot({"cards.yaml": (next(looks), 0, 0)}, {})
    patience = []

    def written(before, now, patient=False):
        patience.append(patient)
        return now

    watcher.written = written
    answers = iter([None, None, "stands", None])
    reported = []
    watcher.rebuild_settled = lambda before, now: next(answers)
    watcher.tidy = lambda: None
    watcher.stop = SimpleNamespace(wait=lambda seconds: len(patience) == 4)
    watcher.loop(reported.append)
    assert patience == [False, True, True, False]
    assert reported[1:] == ["stands"]  # after the first build, only the one that stood


def test_a_change_seen_younger_than_written_is_looked_at_again_before_a_build(kit, monkeypatch):
    """A look that finds a change less than WRITTEN old (the file may be half written) waits
    until it is, and looks again: a write that went on meanwhile is waited for in turn, and the
    build starts from the finished file. A file emptied (a save in place, begun) waits SETTLE."""
    watcher = Watcher(kit.pack, Path("build"))
    before = watcher.snapshot()
    kit.edit(f"{M}/herd.yaml", "tab: 12", "tab: 1")  # the write has begun
    half = watcher.snapshot()
    saved = max(half.changed.values()) / 1e9
    settle_left = watch.settle_left
    monkeypatch.setattr(  # the clock stopped at the first write: each look is a fresh one
        watch, "settle_left", lambda b, n, s: settle_left(b, n, s, clock=lambda: saved)
    )
    waits = []

    def wait(seconds):
        waits.append(seconds)
        if len(waits) == 1:
            kit.edit(f"{M}/herd.yaml", "tab: 1", "tab: 14")  # the rest of it
        return False

    watcher.stop = SimpleNamespace(wait=wait)
    finished = watcher.written(before, half)
    assert finished is not None and finished != half and finished == watcher.snapshot()
    assert waits == [watch.WRITTEN, watch.WRITTEN]
    herd = kit.root / M / "herd.yaml"
    text = herd.read_text(encoding="utf-8")
    herd.write_text("")  # a save in place empties the file first
    emptied = watcher.snapshot()
    saved = max(emptied.changed.values()) / 1e9
    waits.clear()

    def wait_then_write(seconds):
        waits.append(seconds)
        if len(waits) == 1:
            herd.write_text(text, encoding="utf-8")
        return False

    watcher.stop = SimpleNamespace(wait=wait_then_write)
    assert watcher.written(finished, emptied) == watcher.snapshot() != emptied
    assert waits == [watch.SETTLE, watch.WRITTEN]  # a whole SETTLE for the rest of the write


def test_a_crash_of_pnpkit_is_reported_and_watching_goes_on(kit, running, monkeypatch):
    calls = []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("boom")
        return real(*args, **kwargs)

    real = build.build
    monkeypatch.setattr(watch.pipeline, "build", flaky)
    w = running()
    crashed = w.next()
    assert not crashed.ok and "RuntimeError: boom" in crashed.crash
    kit.edit(f"{M}/herd.yaml", "tab: 12", "tab: 13")
    assert w.next().ok


def test_the_server_answers_the_state_and_serves_the_last_good_build(kit):
    watcher = Watcher(kit.pack, Path("build"))
    server = Server(watcher, port=0)
    try:
        waiting = _get(server.url)
        assert b"no successful build yet" in waiting.read()
        watcher.rebuild()
        state = json.loads(_get(server.url + "__pnpkit/state").read())
        assert state["ok"] and state["serial"] == 1 and len(state["build"]) == 16
        page = _get(server.url)
        assert page.headers["Cache-Control"] == "no-store"
        assert f'content="{state["build"]}"'.encode() in page.read()
        face = _get(server.url + "svg/en/herd/herd-front.svg?v=0123")
        assert face.headers["Cache-Control"].startswith("max-age=")
        assert face.read().startswith(b"<?xml")
        kit.edit(f"{M}/herd.yaml", "tab: 12", "tab: no")
        watcher.rebuild()
        state2 = json.loads(_get(server.url + "__pnpkit/state").read())
        assert not state2["ok"] and state2["errors"] == 1 and state2["build"] == state["build"]
        assert "'tab' must be a number" in state2["problems"][0]
    finally:
        server.close()


def _get(url: str):
    return urllib.request.urlopen(url, timeout=TIMEOUT)


def _ignoring_ctrl_c() -> None:  # as a script's background job starts: SIGINT ignored
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize(
    ("stop", "start"),
    [(signal.SIGINT, None), (signal.SIGINT, _ignoring_ctrl_c), (signal.SIGTERM, None)],
    ids=["ctrl-c", "ctrl-c-started-ignoring-it", "sigterm"],
)
def test_ctrl_c_ends_the_command_cleanly(kit, stop, start):
    """Ctrl-C or SIGTERM ends watch --serve, exit 0, its cache saved; Ctrl-C also when it was
    started with SIGINT ignored (a background job of a script, as `make test &` runs this)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONFAULTHANDLER="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "pnpkit", "watch", M, "--serve", "--port", "0"],
        cwd=kit.root,
        preexec_fn=start,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stderr], daemon=True).start()
    seen = []
    deadline = time.monotonic() + TIMEOUT
    while not any(" built " in line for line in seen) and time.monotonic() < deadline:
        seen.append(lines.get(timeout=TIMEOUT))
    url = next(line.split()[-1] for line in seen if line.startswith("serving"))
    assert json.loads(_get(url + "__pnpkit/state").read())["ok"]
    proc.send_signal(stop)
    try:
        code = proc.wait(TIMEOUT)
    except subprocess.TimeoutExpired:  # say where it hangs: every stack
        proc.send_signal(signal.SIGABRT)  # faulthandler prints them as it aborts
        proc.wait(TIMEOUT)
        time.sleep(0.5)
        pytest.fail("watch did not stop:\n" + "".join(seen + list(lines.queue)))
    assert code == 0
    time.sleep(0.1)
    rest = []
    while not lines.empty():
        rest.append(lines.get())
    err = "".join(seen + rest)
    assert "stopped watching" in err and "Traceback" not in err
    assert (kit.root / "build" / build.CACHE_DIR / "mammoth-herd.marshal").is_file()


def test_the_previous_kit_becomes_the_spare_after_the_rebuild_is_reported(kit):
    """The new kit is in place when the build is reported; the previous one, left beside it,
    becomes the next build's spare right after (under the output folder's lock), not on the way
    to the report; watch's stop removes it."""
    leftover = kit.root / "build" / ".mammoth-herd.partial"
    spare = kit.root / "build" / ".mammoth-herd.spare"
    watcher = Watcher(kit.pack, Path("build"), interval=0.05)
    reported: queue.Queue = queue.Queue()
    thread = threading.Thread(
        target=watcher.loop, args=(lambda b: reported.put((b, leftover.exists())),), daemon=True
    )
    thread.start()
    try:
        first, _ = reported.get(timeout=TIMEOUT)
        assert first.ok
        kit.edit(f"{M}/herd.yaml", "tab: 12", "tab: 14")
        second, left_then = reported.get(timeout=TIMEOUT)
        assert second.ok and left_then  # the previous kit, not moved yet
        deadline = time.monotonic() + TIMEOUT
        while leftover.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not leftover.exists() and (spare / "index.html").is_file()
        assert "tab: 14" in (kit.root / M / "herd.yaml").read_text()
        assert (kit.root / "build" / "mammoth-herd" / "index.html").is_file()
    finally:
        watcher.stop.set()
        thread.join(TIMEOUT)
    watcher.tidy(spare=False)
    assert not spare.exists() and not leftover.exists()


def test_a_kit_started_from_the_spare_is_what_a_cold_build_writes(kit, tmp_path, monkeypatch):
    """watch's build takes the spare (the kit before the live one) as its staging folder and
    keeps the SVG files that are the live kit's own: whatever else the spare holds (a stray
    file, a symlink for a group's folder, a file changed in place through the live kit, faces
    no longer built), the kit is a cold build's, and nothing outside it is touched."""

    out = tmp_path / "w"
    taken = []
    take = svgfiles.take_spare
    monkeypatch.setattr(svgfiles, "take_spare", lambda *a: taken.append(take(*a)) or taken[-1])
    rebuild, cache = watched_rebuilds(kit, out)
    rebuild()
    kit.edit(f"{M}/herd.yaml", "tab: 12", "tab: 14")
    rebuild()
    spare, live = out / ".mammoth-herd.spare", out / "mammoth-herd"
    assert taken == [False, False] and (spare / "svg" / "en" / "herd").is_dir()
    (spare / "svg" / "en" / "bonus-tiles" / "stray.svg").write_text("stray")
    (spare / "svg" / "en" / "bonus-tiles" / "folder").mkdir()
    (spare / "svg" / "xx").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "herd-front.svg").write_text("not ours")
    shutil.rmtree(spare / "svg" / "pl" / "herd")
    (spare / "svg" / "pl" / "herd").symlink_to(outside)
    tampered = live / "svg" / "en" / "bonus-tiles" / "bonus-02-front.svg"
    assert os.path.samefile(tampered, spare / "svg" / "en" / "bonus-tiles" / "bonus-02-front.svg")
    with open(tampered, "r+b") as f:  # in place: the spare's link sees it too
        f.write(b"<!-- changed -->")
    kit.edit(f"{M}/herd.yaml", "tab: 14", "tab: 13")
    rebuild()
    assert taken[-1] is True
    assert [p.name for p in outside.iterdir()] == ["herd-front.svg"]
    assert (outside / "herd-front.svg").read_text() == "not ours"
    assert_a_cold_build(kit, live, tmp_path / "cold")
    assert not any(p.is_symlink() for p in live.rglob("*"))


def test_the_idle_cache_save_stops_once_a_look_sees_a_change_or_watch_stops(kit, monkeypatch):
    """What stops watch's save of its cache when idle (Cache.save's `stop`): a look at the files
    once INTERVAL has passed since the last (none sooner), true once they differ from the
    build's, or at once when watch stops."""
    now = [1000.0]  # the clock, moved by the test alone: a busy machine changes nothing
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    watcher = Watcher(kit.pack, Path("build"), interval=0.05)
    seen = watcher.snapshot()
    looks = []
    snapshot = watcher.snapshot
    watcher.snapshot = lambda: looks.append(1) or snapshot()  # type: ignore[method-assign]
    changed = watcher._changed_since(seen)
    now[0] += 0.04
    assert not changed() and looks == []  # too soon for a look
    now[0] += 0.02
    assert not changed() and len(looks) == 1
    kit.edit(f"{M}/herd.yaml", "tab: 12", "tab: 14")
    now[0] += 0.04
    assert not changed() and len(looks) == 1  # too soon again
    now[0] += 0.02
    assert changed() and len(looks) == 2
    watcher.stop.set()
    assert watcher._changed_since(watcher.snapshot())()


def test_the_first_build_gets_a_spare_of_links_and_the_first_rebuild_starts_from_it(
    kit, tmp_path, monkeypatch
):
    """After watch's first build (no kit before it) the live kit gets a spare whose SVG files are
    links to its own; the first save's rebuild takes it, keeps the files unchanged (no file of
    them linked or written again) and writes a cold build's kit. A kit with a spare gets none."""
    watcher = Watcher(kit.pack, Path("build"))
    assert watcher.rebuild().ok
    watcher.tidy()
    out = kit.root / "build" / "mammoth-herd"
    spare = spare_for(out)
    assert not spare.exists()
    watcher.link_spare()
    live_svgs = sorted(p.relative_to(out) for p in (out / "svg").rglob("*.svg"))
    assert sorted(p.relative_to(spare) for p in spare.rglob("*.svg")) == live_svgs
    assert all(os.path.samefile(out / p, spare / p) for p in live_svgs)
    assert sorted(p.name for p in spare.iterdir()) == [".pnpkit-kit", "svg"]  # marked: a kit
    assert not svgfiles.link_spare(out)  # there is one
    taken, linked = [], []
    take, link = svgfiles.take_spare, svgfiles.output.link
    monkeypatch.setattr(svgfiles, "take_spare", lambda *a: taken.append(take(*a)) or taken[-1])
    monkeypatch.setattr(svgfiles.output, "link", lambda *a: linked.append(a) or link(*a))
    kit.edit(f"{M}/herd.yaml", "tab: 12", "tab: 14")
    assert watcher.rebuild().ok
    assert taken == [True] and len(linked) < len(live_svgs) // 4
    assert_a_cold_build(kit, out, tmp_path / "cold")


def test_a_spare_s_files_linked_to_one_inode_are_judged_by_it_and_each_by_its_listed_inode(
    kit, tmp_path, monkeypatch
):
    """Faces drawn alike are links to one file: the spare's look stats that inode once for all of
    them, and judges each name by the inode its folder lists. A name replaced by another file
    (another inode) is written again; a change in place to the shared inode (through the live
    kit) is seen by every name linked to it; the kit is then a cold build's."""

    out = tmp_path / "w"
    rebuild, cache = watched_rebuilds(kit, out)
    rebuild()
    kit.edit(f"{M}/herd.yaml", "tab: 12", "tab: 14")
    rebuild()
    spare, live = out / ".mammoth-herd.spare", out / "mammoth-herd"
    by_inode: dict[int, list[Path]] = {}
    for path in sorted((spare / "svg").rglob("*.svg")):
        by_inode.setdefault(path.stat().st_ino, []).append(path)
    linked = max(by_inode.values(), key=len)
    folder = linked[0].parent.parent  # one language's: _in_place looks at one at a time
    shared = [path for path in linked if path.parent.parent == folder]
    assert len(shared) >= 3, "the kit has faces drawn alike"
    stats = []
    signature = svgfiles._signature
    monkeypatch.setattr(svgfiles, "_signature", lambda p: stats.append(p) or signature(p))
    first, replaced, *others = shared
    for _ in range(2):  # the untouched spare's look, taken twice (the second is the build's)
        faces = [
            f
            for f in build.validate(kit.pack, cache=cache).faces[folder.name]
            if (folder / svgfiles._svg_name(f)) in shared
        ]
        stats.clear()
        here = svgfiles._in_place(faces, folder, os.path.abspath(live / "svg" / folder.name))
        assert len(faces) == len(shared) and all(here) and len(stats) == 1
    scratch = replaced.with_name("scratch")
    scratch.write_bytes(replaced.read_bytes() + b"<!-- another file -->")
    os.replace(scratch, replaced)
    kit.edit(f"{M}/herd.yaml", "tab: 14", "tab: 13")
    rebuild()
    alike = (live / first.relative_to(spare)).read_bytes()
    assert (live / replaced.relative_to(spare)).read_bytes() == alike
    with open(live / others[0].relative_to(spare), "r+b") as f:  # in place: every link sees it
        f.write(b"<!-- changed -->")
    kit.edit(f"{M}/herd.yaml", "tab: 13", "tab: 15")
    rebuild()
    assert_a_cold_build(kit, live, tmp_path / "cold")


def test_forget_kept_drops_what_a_build_keeps_for_the_next(kit, tmp_path):
    """What a long-lived process keeps from a build (YAML parses, drawn pages and streams,
    compiled templates, written SVG files, the items read, the layouts, the preview's figures,
    the compiler's and the text checks' memos) is in its workspace, and gone after
    build.forget_kept(); the next build, which does all that work again, writes the same kit."""
    kept = {
        "loader.last",
        "schema.items",
        "layout.layouts",
        "pdf.names",
        "pdf.streams",
        "preview.figures",
        "render.compiled",
        "render.parsed",
        "svgfiles.known",
        "svgdraw.fill_code",
        "svgdraw.stroke_code",
        "svgdraw.own",
        "svgdraw.path_code",
        "svgdraw.styles",
        "svgdraw.leaves",
        "svgdraw.attributes",
        "textcheck.outlines",
        "pnpkit.typeset.shaping.shape",
    }
    with workspace.Workspace().active() as mine:
        # watch's cache (deferred): a long-lived process's build keeps its per-item work too
        options = build.BuildOptions(tmp_path / "a", cache=Cache(None, deferred=True))
        build.build(kit.pack, options)
        assert kept <= {name for name, entry in mine.entries.items() if entry}
        build.forget_kept()
        assert mine.entries == {}
        build.build(kit.pack, build.BuildOptions(tmp_path / "b"))
    a, b = (tmp_path / side / "mammoth-herd" for side in "ab")
    assert {p.relative_to(a): d for p, d in files(a).items()} == {
        p.relative_to(b): d for p, d in files(b).items()
    }


def test_a_build_keeps_what_it_keeps_in_the_workspace_it_is_given(kit, tmp_path):
    """watch hands its own workspace to every build: the thread's stays as it was."""
    given = workspace.Workspace()
    with workspace.Workspace().active() as thread_s:
        options = build.BuildOptions(tmp_path / "a", cache=Cache(None, deferred=True))
        assert not build.build(kit.pack, dataclasses.replace(options, workspace=given)).errors
        assert given.entries and given.hand_on and thread_s.entries == {}
