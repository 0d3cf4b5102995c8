"""The output folder: one build at a time, and a kill at any moment leaves a whole kit.

The kill test runs real `python -m pnpkit build` processes and kills them with
SIGKILL at seeded random moments while they hold the output (from taking the
lock to exiting), alternating between two versions of a pack, and checks each
time that the kit folder is byte for byte one of the two whole kits.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, colour_pack
from pnpkit.build import output, svgfiles
from pnpkit.build import pipeline as build

M = "components/mammoth-herd"
ENV = dict(os.environ, PYTHONPATH=str(ROOT / "src"), PYTHONUNBUFFERED="1")
TIMEOUT = 120  # seconds before a test gives up on a process (a hang, not a speed check)


def files(folder: Path) -> dict:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def start_build(pack: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "pnpkit", "build", str(pack), "--out", str(out)],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


# Builds to kill come from a zygote: a Python that has imported pnpkit once and forks a child
# per build, which runs the command line's main() as `python -m pnpkit build` does. Starting
# a fresh interpreter for each of the kills would cost ~1 s of imports each; what is killed
# (the build holding the output) is the same.
ZYGOTE = """
import os, sys
from pnpkit.commands.cli import main
for line in sys.stdin:
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        try:
            code = main(line.split())
        except BaseException:
            code = 70
        os._exit(code)
    print(pid, flush=True)
    _, status = os.waitpid(pid, 0)
    print(status, flush=True)
"""


class Zygote:
    def __init__(self):
        self.proc = subprocess.Popen(
            [sys.executable, "-c", ZYGOTE],
            env=ENV,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def start(self, pack: Path, out: Path) -> int:
        self.proc.stdin.write(f"build {pack} --out {out}\n")
        self.proc.stdin.flush()
        return int(self.proc.stdout.readline())

    def wait(self) -> int:
        """The wait status of the last build: 0 for success, SIGKILL if killed."""
        return int(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(TIMEOUT)


def lock_taken(pid: int, out: Path) -> float | None:
    """Wait until process pid holds the output lock; the monotonic time it was seen, or None if
    it ended first."""
    lock = out / output.LOCK
    mark = f"pid {pid},".encode()
    while (
        Path(f"/proc/{pid}/status").is_file()
        and b"State:\tZ" not in Path(f"/proc/{pid}/status").read_bytes()
    ):
        try:
            if lock.read_bytes().startswith(mark):
                return time.monotonic()
        except OSError:
            pass
        time.sleep(0.002)
    return None


def versions(pack: Path) -> dict[str, str]:
    """Two versions of the pack's cards.yaml, A and B: the first card's colour differs, so do
    its SVG and the PDF."""
    text = (pack / "cards.yaml").read_text()
    first = text[text.index("colour: '") : text.index("}", text.index("colour: '"))]
    return {
        "A": text.replace(first, "colour: '#00aa11'", 1),
        "B": text.replace(first, "colour: '#bb0022'", 1),
    }


@pytest.mark.skipif(
    not Path("/proc/self/status").is_file(), reason="watches processes through /proc"
)
def test_a_kill_at_any_moment_leaves_the_previous_kit_whole(tmp_path):
    pack = colour_pack(tmp_path / "probe", n=120)
    cards = versions(pack)
    out = tmp_path / "out"
    kit = out / "probe"
    zygote = Zygote()
    whole, holding = {}, {}
    for version in (
        "A",
        "B",
        "A",
    ):  # each built whole once: what a kit may look like; and how long it is held
        (pack / "cards.yaml").write_text(cards[version])
        taken = lock_taken(zygote.start(pack, out), out)
        assert zygote.wait() == 0
        holding[version] = time.monotonic() - taken
        assert whole.setdefault(version, files(kit)) == files(
            kit
        )  # a build is byte-for-byte repeatable
    assert whole["A"] != whole["B"]
    # the shortest hold: the first build is cold, and a busy machine makes one slow now and then,
    # while the builds killed below are warm; a kill within it finds the lock held
    held = min(holding.values())
    rng = random.Random(13)
    current, killed = "A", 0
    for _ in range(20):
        target = "B" if current == "A" else "A"
        (pack / "cards.yaml").write_text(cards[target])
        pid = zygote.start(pack, out)
        taken = lock_taken(pid, out)
        if taken is not None:
            time.sleep(max(0.0, taken + rng.uniform(0, held) - time.monotonic()))
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:  # it had finished
            pass
        killed += zygote.wait() == signal.SIGKILL
        now = files(kit)
        assert now in (whole["A"], whole["B"]), (
            f"a kill left a kit that is neither whole build ({len(now)} files)"
        )
        current = "A" if now == whole["A"] else "B"
    zygote.close()
    assert killed >= 12  # most kills hit a build while it held the output, not after
    target = "B" if current == "A" else "A"
    (pack / "cards.yaml").write_text(cards[target])
    proc = start_build(pack, out)  # the next build: a fresh `python -m pnpkit build`
    assert proc.wait(TIMEOUT) == 0, proc.stderr.read()
    assert files(kit) == whole[target]
    assert sorted(p.name for p in out.iterdir()) == [
        "pnpkit-cache",
        "probe",
    ]  # every leftover cleaned


def test_two_builds_into_one_folder_take_turns(tmp_path):
    pack = colour_pack(tmp_path / "probe", n=60)
    alone = tmp_path / "alone"
    assert not build.build(pack, build.BuildOptions(alone)).errors
    out = tmp_path / "out"
    procs = [start_build(pack, out) for _ in range(2)]
    runs = [(p.wait(TIMEOUT), p.stderr.read()) for p in procs]
    assert [code for code, _ in runs] == [0, 0], runs
    assert files(out / "probe") == files(alone / "probe")
    for _, err in runs:  # a build that waited said so once, naming the other
        assert err.count("is in use by another build") <= 1
        assert "Traceback" not in err
    assert sorted(p.name for p in out.iterdir()) == ["pnpkit-cache", "probe"]


def test_a_waiting_build_says_once_which_build_holds_the_folder(tmp_path):
    pack = colour_pack(tmp_path / "probe", n=2)
    out = tmp_path / "out"
    with output.locked(out, "the test's own build"):
        proc = start_build(pack, out)
        first = proc.stderr.readline()
        time.sleep(0.3)  # still waiting: nothing more is said
        assert proc.poll() is None and not (out / "probe").exists()
    assert proc.wait(TIMEOUT) == 0
    rest = proc.stderr.read()
    assert first == (
        f"pnpkit: {out} is in use by another build (pid {os.getpid()}, the test's own build); "
        f"waiting for it to finish (up to {output.TIMEOUT:g} s, Ctrl-C stops)\n"
    )
    assert "in use" not in rest and (out / "probe" / "probe-en.pdf").is_file()


def test_a_build_that_waits_too_long_fails_with_the_holder_named(kit, monkeypatch):
    assert kit.build().code == 0
    before = files(kit.root / "build" / "mammoth-herd")
    kit.edit(f"{M}/herd.yaml", "tab: 12", "tab: 14")
    monkeypatch.setattr(output, "TIMEOUT", 0.3)
    said = []
    monkeypatch.setattr(output, "_say", said.append)
    with output.locked(Path("build"), "building elsewhere"):
        run = kit.build()
    assert run.code == 1
    assert run.lines == [
        "build:0:0: error: build is still in use by another "
        f"build (pid {os.getpid()}, building elsewhere) "
        "after 0.3 s; wait for it to finish or stop it, then build again [output]"
    ]
    assert said == [
        f"pnpkit: build is in use by another build (pid {os.getpid()}, building elsewhere); "
        "waiting for it to finish (up to 0.3 s, Ctrl-C stops)"
    ]
    assert files(kit.root / "build" / "mammoth-herd") == before


def test_unchanged_svgs_are_linked_from_the_live_kit_never_moved(kit, monkeypatch):
    assert kit.build().code == 0
    svg = kit.root / "build" / "mammoth-herd" / "svg" / "en"
    kept, changed = svg / "herd" / "herd-front.svg", svg / "bonus-tiles" / "bonus-01-back.svg"
    inodes = {p: p.stat().st_ino for p in (kept, changed)}
    kit.edit(
        f"{M}/tiles.yaml",
        "resource: wood, provenance: design}",
        "resource: gold, provenance: design}",
    )
    seen = []
    real_swap = output.swap_in

    def look_then_swap(staging, final, **options):  # just before the swap: the live kit whole
        seen.append(kept.is_file() and kept.stat().st_nlink == 2 and changed.is_file())
        real_swap(staging, final, **options)

    monkeypatch.setattr(output, "swap_in", look_then_swap)
    assert kit.build().code == 0
    assert seen == [True]
    assert kept.stat().st_ino == inodes[kept] and kept.stat().st_nlink == 1
    assert changed.stat().st_ino != inodes[changed]


def test_without_an_atomic_exchange_two_renames_still_give_the_new_kit(kit, monkeypatch):
    assert kit.build().code == 0
    monkeypatch.setattr(output, "exchange", lambda a, b: False)
    kit.edit(f"{M}/herd.yaml", "tab: 12", "tab: 14")
    assert kit.build().code == 0
    assert sorted(p.name for p in (kit.root / "build").iterdir()) == [
        "mammoth-herd",
        "pnpkit-cache",
    ]


def test_the_next_build_puts_back_a_kit_a_killed_fallback_swap_left_aside(kit):
    """Killed between the fallback's two renames: the kit is in `.<id>.old`, the staging folder
    beside it."""
    assert kit.build().code == 0
    out = kit.root / "build"
    before = files(out / "mammoth-herd")
    os.rename(out / "mammoth-herd", out / ".mammoth-herd.old")
    (out / ".mammoth-herd.partial" / "svg").mkdir(parents=True)
    output.mark(out / ".mammoth-herd.partial")  # marked from its first moment
    (out / ".other-game.partial").mkdir()  # killed before it was marked: empty
    with output.locked(out, "test"):
        output.tidy(out)
    assert sorted(p.name for p in out.iterdir()) == ["mammoth-herd", "pnpkit-cache"]
    assert files(out / "mammoth-herd") == before
    (
        out / ".mammoth-herd.old"
    ).mkdir()  # a kit and an old one: the swap had finished, the old one goes
    output.tidy(out)
    assert sorted(p.name for p in out.iterdir()) == ["mammoth-herd", "pnpkit-cache"]
    assert files(out / "mammoth-herd") == before


def test_exchange_swaps_two_folders_in_one_step(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for folder in (a, b):
        folder.mkdir()
        (folder / "name").write_text(folder.name)
    if not output.exchange(a, b):
        pytest.skip(
            "this system or file system has no atomic exchange; the fallback is tested above"
        )
    assert (a / "name").read_text() == "b" and (b / "name").read_text() == "a"


def test_the_lock_is_released_when_its_holder_dies(tmp_path):
    """flock belongs to the process: a holder killed with SIGKILL leaves no stale lock."""
    out = tmp_path / "out"
    code = (
        "from pnpkit.build import output; from pathlib import Path; "
        f"import time\nwith output.locked(Path({str(out)!r}), "
        "'x'):\n    print('held', flush=True); time.sleep(60)"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code], env=ENV, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout.readline() == "held\n"
    holder.kill()
    holder.wait(TIMEOUT)
    with output.locked(out, "after", timeout=5):  # Busy if the dead holder still had it
        pass


@pytest.mark.parametrize("how", ["in place", "replaced"])
def test_a_live_svg_changed_by_someone_else_is_compared_again_not_trusted(kit, how):
    """A long-lived process links the SVG files it knows the live kit holds without reading
    them; one written over since (same size, even) is read, found different, and written."""
    assert kit.build().code == 0
    svg = kit.root / "build" / "mammoth-herd" / "svg" / "en" / "herd" / "herd-front.svg"
    right = svg.read_bytes()
    wrong = b"x" * len(right)
    if how == "in place":
        time.sleep(0.01)  # a later modification time, whatever the file system's resolution
        svg.write_bytes(wrong)
    else:
        (svg.parent / "tmp").write_bytes(wrong)
        os.replace(svg.parent / "tmp", svg)
    assert kit.build().code == 0
    assert svg.read_bytes() == right


def _svg_files(kit_folder: Path) -> dict[str, Path]:
    return {p.relative_to(kit_folder).as_posix(): p for p in (kit_folder / "svg").rglob("*.svg")}


def _refusing_links(monkeypatch) -> None:
    monkeypatch.setattr(output, "link", lambda source, target: False)


def test_faces_drawn_alike_are_one_file_each_name_holding_its_own_faces_svg(kit, monkeypatch):
    assert kit.build().code == 0
    linked = _svg_files(kit.root / "build" / "mammoth-herd")
    with monkeypatch.context() as m:  # every file written on its own
        _refusing_links(m)
        assert kit.run("build", str(kit.pack), "--out", "apart").code == 0
    apart = _svg_files(kit.root / "apart" / "mammoth-herd")
    assert sorted(linked) == sorted(apart)
    by_bytes: dict[bytes, set[int]] = {}
    for name, path in linked.items():
        assert path.read_bytes() == apart[name].read_bytes(), name
        by_bytes.setdefault(path.read_bytes(), set()).add(path.stat().st_ino)
    assert all(len(inodes) == 1 for inodes in by_bytes.values())  # alike: one file
    assert len(by_bytes) < len(linked)  # the kit has faces drawn alike, so links were made
    # a face drawn alike in both languages is one file too
    langs = {n.split("/")[1] for n in linked}
    assert langs == {"en", "pl"}
    assert any(
        {linked[n].stat().st_ino for n in linked if n.split("/")[1] == lang}
        & {linked[n].stat().st_ino for n in linked if n.split("/")[1] != lang}
        for lang in langs
    )


def test_svg_files_are_never_written_into_the_live_kit(kit, monkeypatch):
    """A rebuild writes its SVG files into the staging kit: the live kit's files keep their
    inodes and times until the swap, and the result is what a cold build writes."""
    assert kit.build().code == 0
    live = kit.root / "build" / "mammoth-herd"
    kit.edit(f"{M}/herd.yaml", "tab: 12", "tab: 14")
    before = {n: (p.stat().st_ino, p.stat().st_mtime_ns) for n, p in _svg_files(live).items()}
    seen = []
    real_swap = output.swap_in

    def look_then_swap(staging, final, **options):
        seen.append(
            {n: (p.stat().st_ino, p.stat().st_mtime_ns) for n, p in _svg_files(live).items()}
        )
        real_swap(staging, final, **options)

    with monkeypatch.context() as m:
        m.setattr(output, "swap_in", look_then_swap)
        assert kit.build().code == 0
    assert seen == [before]  # the live kit untouched until the swap
    assert kit.run("build", str(kit.pack), "--out", "cold").code == 0
    cold = _svg_files(kit.root / "cold" / "mammoth-herd")
    now = _svg_files(live)
    assert sorted(now) == sorted(cold)
    assert all(now[n].read_bytes() == cold[n].read_bytes() for n in now)


def test_a_twin_refusing_links_gives_way_to_the_next_file_written(kit, monkeypatch):
    """An inode takes so many links (ext4 65,000, NTFS 1,024): when a face's twin refuses one,
    the face's own file, written afresh, is the twin the faces after it link to."""
    first: dict[bytes, str] = {}
    puts: list[str] = []
    real_link, real_put = output.link, output.put

    def link(source, target):
        data = Path(source).read_bytes()
        if first.setdefault(data, str(source)) == str(source) and "svg/" in str(source):
            return False  # the first file of each SVG is full
        return real_link(source, target)

    def put(data, target, previous):
        puts.append(str(target))
        real_put(data, target, previous)

    monkeypatch.setattr(output, "link", link)
    monkeypatch.setattr(output, "put", put)
    assert kit.build().code == 0
    svgs = _svg_files(kit.root / "build" / "mammoth-herd")
    by_bytes: dict[bytes, list[str]] = {}
    for name, path in svgs.items():
        by_bytes.setdefault(path.read_bytes(), []).append(name)
    alike = [names for names in by_bytes.values() if len(names) > 2]
    assert alike  # three or more faces drawn alike: the third links to the second
    assert len(puts) == len(by_bytes) + sum(len(n) > 1 for n in by_bytes.values())


def test_a_one_shot_build_forgets_what_watch_knew_of_the_files_it_replaces(kit):
    """_KNOWN (the SVG and signature of each file a watch-style build wrote, for the next) no
    longer holds once a one-shot build in the same process has replaced the kit's files."""
    from pnpkit.build.cache import Cache

    out = kit.root / "build"
    assert not build.build(
        kit.pack, build.BuildOptions(out, cache=Cache(out / build.CACHE_DIR, deferred=True))
    ).errors
    live = os.path.abspath(out / "mammoth-herd")
    assert any(key.startswith(live) for key in svgfiles._KNOWN)
    assert not build.build(kit.pack, build.BuildOptions(out)).errors  # a one-shot build: no watch
    assert not any(key.startswith(live) for key in svgfiles._KNOWN)
