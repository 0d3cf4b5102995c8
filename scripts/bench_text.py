"""Side by side, CPU and wall: `pnpkit build` of bench_cards.py's deck, plain and rich, by
checkouts.

Each run is a new process with an empty --out; runs alternate between the checkouts
(and the two decks), so a machine whose load changes treats all alike. CPU is the
child's user+sys seconds. The rich deck has an inline icon, a bold and an italic
span in every card (bench_cards.py --rich).

    .venv/bin/python scripts/bench_text.py this=src,base=/tmp/old/src [--runs 3]
        [--decks plain,rich] [--cards 1000]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_cards  # noqa: E402

ROOT_SRC = Path(__file__).resolve().parents[1] / "src"


def timed(src: str, pack: Path, out: Path) -> tuple[float, float]:
    """(CPU, wall) seconds of one cold `pnpkit build` by the code in src."""
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": src}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pnpkit", "build", str(pack), "--out", str(out)],
        check=True,
        capture_output=True,
        env=env,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "trees",
        nargs="?",
        default=f"this={ROOT_SRC}",
        help="name=src-folder pairs, comma-separated (default: this tree)",
    )
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--decks", default="plain,rich")
    ap.add_argument("--cards", type=int, default=1000)
    ap.add_argument(
        "--quick", action="store_true", help="3 cards, one run: checks that the script works (CI)"
    )
    args = ap.parse_args()
    if args.quick:
        args.cards, args.runs = 3, 1
    trees = dict(pair.split("=", 1) for pair in args.trees.split(","))
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        packs = {}
        for deck in args.decks.split(","):
            bench_cards.RICH = deck == "rich"
            packs[deck] = bench_cards.make_pack(Path(tmp) / deck, args.cards)
        for run in range(args.runs):
            for deck, pack in packs.items():
                for name, src in trees.items():
                    cpu, wall = timed(src, pack, Path(tmp) / "out")
                    times.setdefault((deck, name), []).append((cpu, wall))
                    print(
                        f"run {run + 1} {deck:5} {name:8} CPU {cpu:6.2f} s, wall {wall:6.2f} s "
                        f"(load {os.getloadavg()[0]:.1f})",
                        flush=True,
                    )
    for (deck, name), values in times.items():
        cpu = statistics.median(c for c, _ in values)
        wall = statistics.median(w for _, w in values)
        print(f"{deck:5} {name:8} median CPU {cpu:6.2f} s, wall {wall:6.2f} s (n={len(values)})")


if __name__ == "__main__":
    main()
