"""Benchmark: what a kit's per-face SVG files cost the file system, created or hard-linked.

A build writes one SVG file per face; faces drawn alike (a deck's shared back) are hard links
to one file (svgfiles._write_svgs). This times, in a new folder of the output's file system,
creating N small files (the size of a card's SVG) against hard-linking N names to one file,
and prints the time per file of each. On the 2-core VM of issue 16 (ext4): 0.15-0.9 ms to
create a file, varying with the disk's state from one minute to the next, 20-40 us to link one.

    .venv/bin/python scripts/bench_files.py [--files 1000] [--runs 3] [--dir build] [--quick]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

SVG = b"<svg/>" + b" " * 6000  # about a card's SVG


def created(folder: Path, n: int) -> float:
    """Seconds to create n files of SVG's size in folder."""
    started = time.perf_counter()
    for i in range(n):
        with open(folder / f"card-{i:05d}-front.svg", "wb") as f:
            f.write(SVG)
    return time.perf_counter() - started


def linked(folder: Path, n: int) -> float:
    """Seconds to hard-link n names in folder to one file."""
    first = folder / "card-00000-back.svg"
    first.write_bytes(SVG)
    started = time.perf_counter()
    for i in range(1, n):
        os.link(first, folder / f"card-{i:05d}-back.svg")
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", type=Path, default=Path("build"), help="where (default: build)")
    ap.add_argument("--quick", action="store_true", help="50 files, one run (CI)")
    args = ap.parse_args()
    n, runs = (50, 1) if args.quick else (args.files, args.runs)
    args.dir.mkdir(parents=True, exist_ok=True)
    times: dict[str, list[float]] = {"created": [], "linked": []}
    for _ in range(runs):
        for name, way in (("created", created), ("linked", linked)):
            folder = Path(tempfile.mkdtemp(prefix="bench-files-", dir=args.dir))
            try:
                times[name].append(way(folder, n) / n)
            finally:
                shutil.rmtree(folder)
    for name, per_file in times.items():
        print(
            f"{name}: median {statistics.median(per_file) * 1e6:.0f} us per file, "
            f"min {min(per_file) * 1e6:.0f} us ({n} files, {runs} runs, in {args.dir})"
        )


if __name__ == "__main__":
    main()
