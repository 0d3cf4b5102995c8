"""What a second core can give at best: the same cold `pnpkit build` alone, then N at once.

A build split over N processes cannot finish sooner than N whole builds run side by side
allow, with no hand-over at all between them: each of the N concurrent builds is as slow
as the machine makes it while the others run (shared caches, memory bandwidth, a virtual
machine's cores sharing one physical core). So `ceiling = N x (time alone) / (time of N at
once)` bounds what any split of the work over processes can gain on
this machine for this deck. Runs alternate (alone, together, alone, ...), each a new
process with an empty --out, byte-compiled as an installed pnpkit is.

    .venv/bin/python scripts/bench_cores.py [--cards 1000] [--runs 3] [--processes 2] [--quick]
"""

from __future__ import annotations

import argparse
import compileall
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


def together(pack: Path, outs: list[Path]) -> float:
    """Wall seconds until every one of len(outs) cold builds started at once has finished;
    each build's own time is what the slowest of them took."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(SRC)
    for out in outs:
        shutil.rmtree(out, ignore_errors=True)
    logs = [out.with_name(out.name + ".log") for out in outs]  # a pipe could fill and stall
    started = time.perf_counter()
    running: list[subprocess.Popen[bytes]] = []
    try:
        for out, log in zip(outs, logs):
            with log.open("wb") as log_file:
                command = [sys.executable, "-m", "pnpkit", "build", str(pack), "--out", str(out)]
                running.append(subprocess.Popen(command, stdout=log_file, stderr=log_file, env=env))
        codes = [p.wait() for p in running]
    finally:  # an interrupted run leaves no build behind
        for p in running:
            p.kill()
            p.wait()
    for code, log in zip(codes, logs):
        if code:
            said = log.read_text(encoding="utf-8", errors="replace")[-2000:]
            raise SystemExit(f"a build failed (exit {code}):\n{said}")
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--processes", type=int, default=2, help="builds at once (default 2)")
    ap.add_argument("--quick", action="store_true", help="3 cards, one run (CI)")
    args = ap.parse_args()
    if args.quick:
        args.cards, args.runs = 3, 1
    compileall.compile_dir(str(SRC), quiet=1)
    alone: list[float] = []
    many: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        pack = make_pack(Path(tmp), args.cards)
        outs = [Path(tmp) / f"out{n}" for n in range(args.processes)]
        for run in range(args.runs):
            alone.append(together(pack, outs[:1]))
            many.append(together(pack, outs))
            print(
                f"run {run + 1}: alone {alone[-1]:.2f} s, {args.processes} at once "
                f"{many[-1]:.2f} s (load {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs)",
                flush=True,
            )
    one, all_ = statistics.median(alone), statistics.median(many)
    print(
        f"{args.cards} cards, median of {args.runs}: alone {one:.2f} s, "
        f"{args.processes} at once {all_:.2f} s: a {args.processes}-process split gains "
        f"at most {args.processes * one / all_:.2f}x"
    )


if __name__ == "__main__":
    main()
