"""Side by side: `pnpkit build` of bench_cards.py's deck by this tree and by another checkout.

Runs alternate (this tree, the other, this tree, ...) so a machine whose load changes
treats both alike; each run is a new process with an empty --out (cold), then the same
after a one-card edit. Prints every time with the load average, the medians and their ratio.

    .venv/bin/python scripts/bench_side.py --baseline /tmp/old/src [--cards 1000] [--runs 3]
        [--jobs N] [--quick]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_cards import make_pack  # noqa: E402

SRC = Path(__file__).resolve().parents[1] / "src"


def timed(src: Path, pack: Path, out: Path, extra: list[str]) -> float:
    """Seconds of one `pnpkit build` by the code in src."""
    command = [sys.executable, "-m", "pnpkit", "build", str(pack), "--out", str(out), *extra]
    env = {**os.environ, "PYTHONPATH": str(src)}
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env)
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, help="the other checkout's src/ folder")
    ap.add_argument("--cards", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", help="--jobs for this tree's builds (the baseline has no such option)")
    ap.add_argument("--quick", action="store_true", help="3 cards, one run, this tree against itself unless " "--baseline: checks that the script works (CI)")
    args = ap.parse_args()
    if args.quick:
        args.cards, args.runs = 3, 1
        args.baseline = args.baseline or SRC
    if args.baseline is None:
        ap.error("--baseline is required (the other checkout's src/ folder)")
    extra = ["--jobs", args.jobs] if args.jobs else []
    times: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        pack = make_pack(Path(tmp), args.cards)
        cards = pack / "cards.yaml"
        for run in range(args.runs):
            for name, src, flags in (("this", SRC, extra), ("baseline", args.baseline, [])):
                out = Path(tmp) / f"out-{name}"
                shutil.rmtree(out, ignore_errors=True)
                text = cards.read_text(encoding="utf-8")
                cold = timed(src, pack, out, flags)
                cards.write_text(text.replace("title: 'Card 1 ", f"title: 'Card 1{'x' * (run + 1)} ", 1),
                                 encoding="utf-8")
                edit = timed(src, pack, out, flags)
                cards.write_text(text, encoding="utf-8")
                times.setdefault((name, "cold"), []).append(cold)
                times.setdefault((name, "edit"), []).append(edit)
                print(f"run {run + 1} {name:8}: cold {cold:.2f} s, one card edited {edit:.2f} s "
                      f"(load {os.getloadavg()[0]:.1f})", flush=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    for kind in ("cold", "edit"):
        print(f"{kind}: this {med['this', kind]:.2f} s, baseline {med['baseline', kind]:.2f} s "
              f"(median of {args.runs}): {med['baseline', kind] / med['this', kind]:.2f}x")
    print(f"one card edited / cold: this {med['this', 'edit'] / med['this', 'cold']:.2f}, "
          f"baseline {med['baseline', 'edit'] / med['baseline', 'cold']:.2f}")


if __name__ == "__main__":
    main()
