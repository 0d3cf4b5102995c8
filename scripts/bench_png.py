"""Benchmark: PNG export at 300 dpi, in faces per second.

The same synthetic deck as bench_cards.py (distinct poker cards with a title,
wrapped text, icons and a frame; one shared back), with 1/8 in of bleed, is
exported with The Game Crafter's profile: every face drawn one per page into the
faces PDF, rasterised with pypdfium2 at 825 x 1125 px (300 dpi) and written as a
PNG, on every core. Validation (load, render, compile) is not timed: it is the
build's, not the export's.

    .venv/bin/python scripts/bench_png.py [--cards 300] [--runs 3] [--quick]
        [--profile thegamecrafter]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_cards import make_pack  # noqa: E402
from pnpkit.build import pipeline as build  # noqa: E402
from pnpkit.export import export, profile  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=300)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument(
        "--profile", default="thegamecrafter", help="an image profile (default: thegamecrafter)"
    )
    ap.add_argument(
        "--quick", action="store_true", help="4 cards, one run: checks that the script works (CI)"
    )
    args = ap.parse_args()
    if args.quick:
        args.cards, args.runs = 4, 1
    chosen, problems = profile.load(args.profile)
    if chosen is None or chosen.output != "images":
        sys.exit(f"{args.profile}: not an image profile {[str(p) for p in problems]}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pack = make_pack(root, args.cards)
        game = pack / "game.yaml"
        game.write_text(game.read_text().replace("bleed: 0mm", "bleed: 0.125in"))
        result = build.validate(pack)
        assert not result.errors, [str(p) for p in result.errors[:5]]
        faces = len(result.faces["en"])
        distinct = faces - args.cards + 1  # the shared back is written once
        times, cpus = [], []
        for run in range(args.runs):
            out = root / f"out{run}"
            started, cpu = time.perf_counter(), _cpu()
            found = export.export(result.pack, result.faces, out, chosen)
            times.append(time.perf_counter() - started)
            cpus.append(_cpu() - cpu)
            assert not found, [str(p) for p in found]
            pngs = list((out / result.pack.id / chosen.id).rglob("*.png"))
            assert len(pngs) == distinct, (len(pngs), distinct)
            shutil.rmtree(out)
    best, median = min(times), statistics.median(times)
    print(
        f"{distinct} PNG faces ({args.cards} fronts + 1 shared "
        f"back) at {chosen.dpi} dpi, profile {chosen.id}, "
        f"{os.cpu_count()} cores"
    )
    print(
        f"  best {best:.2f}s = {distinct / best:.1f} faces/s; "
        f"median {median:.2f}s = {distinct / median:.1f} faces/s"
    )
    cpu = statistics.median(cpus)
    print(
        f"  CPU (this process and its workers): median {cpu:.2f}s = {1000 * cpu / distinct:.1f} "
        f"ms a face"
    )


def _cpu() -> float:
    """User + system seconds of this process and of its finished workers."""
    own, workers = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


if __name__ == "__main__":
    main()
