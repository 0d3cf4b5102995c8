"""Benchmark: change one card of a 1,000-card deck and time how long until the updated PDF is there.

Uses the synthetic deck of bench_cards.py (1,000 distinct poker cards with wrapped
text and icons, one shared back, duplex). Measures:

1. the designer's loop: the real watch loop (pnpkit.commands.watch.Watcher, polling) runs
   in a thread; each edit rewrites one card's title (a different card each time)
   and the clock runs from the moment the file is saved to the moment the new
   kit, PDF included, has been swapped into build/ (polling delay included);
2. where the time of one such rebuild goes, stage by stage;
3. the same one-card change built by a new `pnpkit build` process (Python start-up,
   imports, the cache read from build/pnpkit-cache/);
4. for reference, the cold build (empty cache) and a rebuild with nothing changed.

    .venv/bin/python scripts/bench_incremental.py [--cards 1000] [--edits 10] [--quick]
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

import bench_cards  # noqa: E402
from pnpkit.build import cache as cache_module  # noqa: E402
from pnpkit.build import output, preview, svgfiles  # noqa: E402
from pnpkit.build import pipeline as build  # noqa: E402
from pnpkit.build.cache import Cache  # noqa: E402
from pnpkit.commands.watch import Watcher  # noqa: E402
from pnpkit.impose import layout  # noqa: E402
from pnpkit.pack import schema  # noqa: E402
from pnpkit.pdf import writer as pdf  # noqa: E402


def edit_card(pack: Path, n: int, tag: str) -> None:
    """Rename card n's title (n wraps around the deck), as a designer saving one change would,
    with an editor that saves in one step (a new file renamed over the old). Not in place: this
    process's collector, run between emptying the file and writing it, held the watcher (a
    thread of it) for half a second, which then found an empty pack, as no editor's save in a
    process of its own would leave it."""
    path = pack / "cards.yaml"
    text = path.read_text(encoding="utf-8")
    n %= text.count("title: 'Card ")
    old = f"title: 'Card {n} "
    assert old in text, old
    scratch = path.with_name(f".{path.name}.tmp")  # a name the watcher does not look at
    scratch.write_text(text.replace(old, f"title: 'Card {n}{tag} ", 1), encoding="utf-8")
    os.replace(scratch, path)


def watch_loop(pack: Path, out: Path, edits: int) -> tuple[float, list[float], list[float], dict]:
    """The cold first build and, per edit, seconds from the save to the swapped-in kit and
    seconds of it before the rebuild began (the poll finding the save, the settling)."""
    watcher = Watcher(pack, out)
    done: queue.Queue = queue.Queue()
    thread = threading.Thread(
        target=watcher.loop, args=(lambda b: done.put((time.perf_counter(), b)),), daemon=True
    )
    thread.start()
    _, first = done.get(timeout=300)
    assert first.ok, [str(p) for p in first.result.problems[:5]]
    times, waits, stats = [], [], {}
    pdf_path = first.site / f"{pack.name}-en.pdf"
    pauses = random.Random(16)  # the same pauses each run
    for i in range(edits):
        # a person does not save twice within a blink, nor in step with the watcher's looks
        time.sleep(0.3 + pauses.uniform(0, watcher.interval))
        before = pdf_path.read_bytes()
        edit_card(pack, 100 + 37 * i, "w")
        saved = time.perf_counter()
        finished, b = done.get(timeout=300)
        assert b.ok and pdf_path.read_bytes() != before
        times.append(finished - saved)
        waits.append(finished - saved - b.seconds)
        stats = b.stats
    watcher.stop.set()
    thread.join()
    return first.seconds, times, waits, stats


def stages(pack: Path, out: Path, edits: int) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Per stage, the seconds it took in each one-card rebuild (and in the cold build before
    them)."""
    spent: dict[str, list[float]] = {}
    current: dict[str, float] = {}

    def timed(name, fn):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                current[name] = current.get(name, 0.0) + time.perf_counter() - t0

        return wrapper

    originals = {
        (build, "validate"),
        (schema, "load_pack"),
        (cache_module.Cache, "render"),
        (layout, "impose_again"),  # impose(), or the last layout of faces alike
        (pdf, "write_pdf"),
        (svgfiles, "_in_place"),
        (svgfiles, "_write_svgs"),
        (preview, "write_index"),
        (output, "swap_in"),
    }
    saved = {(m, n): getattr(m, n) for m, n in originals}
    for (module, name), fn in saved.items():
        setattr(module, name, timed(f"{name}", fn))  # Cache.render: still binds as a method

    cache = Cache(out / build.CACHE_DIR, deferred=True)  # as watch keeps it: written when idle

    def tidy() -> None:  # as watch does once it has reported the build: not in the clock
        with output.locked(out, "bench"):
            output.keep_spares(out)

    try:
        t0 = time.perf_counter()
        build.build(pack, build.BuildOptions(out, cache=cache, watch=build.WatchHooks()))
        cold = dict(current, total=time.perf_counter() - t0)
        tidy()
        for i in range(edits):
            edit_card(pack, 600 + 13 * i, "s")
            current.clear()
            t0 = time.perf_counter()
            assert not build.build(
                pack, build.BuildOptions(out, cache=cache, watch=build.WatchHooks())
            ).errors
            current["total"] = time.perf_counter() - t0
            tidy()
            for k, v in current.items():
                spent.setdefault(k, []).append(v)
        t0 = time.perf_counter()
        cache.save(force=True)
        spent["(cache saved to disk, when idle)"] = [time.perf_counter() - t0]
    finally:
        for (module, name), fn in saved.items():
            setattr(module, name, fn)
    return spent, cold


def new_process(pack: Path, out: Path, edits: int) -> list[float]:
    """Seconds of `python -m pnpkit build` after a one-card change, the cache on disk."""
    command = [sys.executable, "-m", "pnpkit", "build", str(pack), "--out", str(out)]
    subprocess.run(command, check=True, capture_output=True)  # fills the cache
    times = []
    for i in range(edits):
        edit_card(pack, 900 + 7 * i, "p")
        t0 = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return times


def summary(values: list[float]) -> str:
    return f"median {statistics.median(values):.2f} s, max {max(values):.2f} s (n={len(values)})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=1000)
    ap.add_argument("--edits", type=int, default=10)
    ap.add_argument(
        "--quick", action="store_true", help="12 cards, one edit: checks that the script works (CI)"
    )
    args = ap.parse_args()
    if args.quick:
        args.cards, args.edits = 12, 1
    with tempfile.TemporaryDirectory() as tmp:
        pack = bench_cards.make_pack(Path(tmp) / "a", args.cards)
        cold, loop, waits, stats = watch_loop(pack, Path(tmp) / "a" / "build", args.edits)
        print(f"{args.cards} distinct poker cards + shared back, duplex on A4")
        print(f"cold build (empty cache), in the watch loop: {cold:.2f} s")
        print(
            "one card changed, save -> updated PDF in place "
            f"(watch loop, polling included): {summary(loop)}"
        )
        print(f"  of which save -> rebuild started (polling, settling): {summary(waits)}")
        print(
            f"  last rebuild: {stats.get('faces rendered', 0)} faces "
            f"rendered, {stats.get('faces reused', 0)} from the cache, "
            f"{stats.get('drawings compiled', 0)} drawings compiled"
        )
        pack = bench_cards.make_pack(Path(tmp) / "b", args.cards)
        spent, cold = stages(pack, Path(tmp) / "b" / "build", args.edits)
        print(f"  {'by stage':32} {'cold build':>10}   one-card rebuild (median)")
        for name, values in spent.items():
            before = f"{cold[name]:.3f} s" if name in cold else ""
            print(f"  {name:32} {before:>9}   {statistics.median(values):.3f} s")
        cache = Cache(Path(tmp) / "b" / "build" / build.CACHE_DIR)
        t0 = time.perf_counter()
        build.build(pack, build.BuildOptions(Path(tmp) / "b" / "build", cache=cache))
        print(f"nothing changed, cache read from disk: {time.perf_counter() - t0:.2f} s")
        pack = bench_cards.make_pack(Path(tmp) / "c", args.cards)
        print(
            "one card changed, new `pnpkit build` process: "
            f"{summary(new_process(pack, Path(tmp) / 'c' / 'build', max(3, args.edits // 2)))}"
        )


if __name__ == "__main__":
    main()
