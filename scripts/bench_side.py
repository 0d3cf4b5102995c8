"""Side by side: `pnpkit build` of bench_cards.py's deck by this tree and by another checkout.

Runs alternate (this tree, the other, this tree, ...) so a machine whose load changes
treats both alike; each run is a new process with an empty --out (cold), then the same
after a one-card edit. Prints every time (wall seconds, and CPU seconds: user + system of
the process and its children) with the load average, the medians and their ratio. Both
trees are byte-compiled first and the builds may use their bytecode, as an installed
pnpkit does (PYTHONDONTWRITEBYTECODE in the environment would otherwise make every run
compile pnpkit's source again).

    .venv/bin/python scripts/bench_side.py --baseline /tmp/old/src [--baseline /tmp/other/src]
        [--cards 1000] [--runs 3] [--quick]
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_cards import make_pack, timed_process  # noqa: E402

SRC = Path(__file__).resolve().parents[1] / "src"


def timed(src: Path, pack: Path, out: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one `pnpkit build` by the code in src."""
    command = [sys.executable, "-m", "pnpkit", "build", str(pack), "--out", str(out)]
    return timed_process(command, src)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--baseline",
        type=Path,
        action="append",
        help="the other checkout's src/ folder (repeatable: each is compared with this tree)",
    )
    ap.add_argument("--cards", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument(
        "--quick",
        action="store_true",
        help="3 cards, one run, this tree against itself unless "
        "--baseline: checks that the script works (CI)",
    )
    args = ap.parse_args()
    if args.quick:
        args.cards, args.runs = 3, 1
        args.baseline = args.baseline or [SRC]
    if args.baseline is None:
        ap.error("--baseline is required (the other checkout's src/ folder)")
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    trees = [("this", SRC)] + [(f"baseline{n or ''}", src) for n, src in enumerate(args.baseline)]
    for _, src in trees:
        compileall.compile_dir(str(src), quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        pack = make_pack(Path(tmp), args.cards)
        cards = pack / "cards.yaml"
        for run in range(args.runs):
            for name, src in trees:
                if name != "this" and src.resolve() == SRC.resolve():
                    continue  # this tree against itself: timed once, as "this"
                out = Path(tmp) / f"out-{name}"
                shutil.rmtree(out, ignore_errors=True)
                text = cards.read_text(encoding="utf-8")
                cold = timed(src, pack, out)
                cards.write_text(
                    text.replace("title: 'Card 1 ", f"title: 'Card 1{'x' * (run + 1)} ", 1),
                    encoding="utf-8",
                )
                edit = timed(src, pack, out)
                cards.write_text(text, encoding="utf-8")
                times.setdefault((name, "cold"), []).append(cold)
                times.setdefault((name, "edit"), []).append(edit)
                print(
                    f"run {run + 1} {name:8}: cold {cold[0]:.2f} s (CPU {cold[1]:.2f} s), "
                    f"one card edited {edit[0]:.2f} s (CPU {edit[1]:.2f} s) "
                    f"(load {os.getloadavg()[0]:.1f})",
                    flush=True,
                )
    for name, _ in trees[1:]:
        for kind in ("cold", "edit"):
            times.setdefault((name, kind), times[("this", kind)])
    med = {(k, n): statistics.median(t[n] for t in v) for k, v in times.items() for n in (0, 1)}
    for name, src in trees[1:]:
        print(f"{name} = {src}")
        for kind in ("cold", "edit"):
            for n, what in ((0, "wall"), (1, "CPU")):
                this, base = med[("this", kind), n], med[(name, kind), n]
                print(
                    f"{kind} {what}: this {this:.2f} s, {name} {base:.2f} s "
                    f"(median of {args.runs}): {base / this:.2f}x"
                )
        this = med[("this", "edit"), 0] / med[("this", "cold"), 0]
        base = med[(name, "edit"), 0] / med[(name, "cold"), 0]
        print(f"one card edited / cold: this {this:.2f}, {name} {base:.2f}")


if __name__ == "__main__":
    main()
