"""Side by side: what every `pnpkit` command pays before its real work, by this tree and another.

Times, each in a new process: `import pnpkit.commands.cli`, `pnpkit --help`, `pnpkit validate PACK
--trust` and a warm `pnpkit build PACK --trust` (its --out built once first, untimed), the
small pack designers rebuild all day. Runs alternate (this tree, the other, this tree, ...) so
a machine whose load changes treats both alike. Prints every time with the load average, then
per command the medians, the minimums and the ratio of the medians. Both trees are
byte-compiled first and the processes may use their bytecode, as an installed pnpkit does.

    .venv/bin/python scripts/bench_startup.py --baseline /tmp/old/src [--runs 9]
        [--pack components/mammoth-herd] [--quick]
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
sys.path.insert(0, str(ROOT / "scripts"))

from bench_cards import timed_process  # noqa: E402


def commands(pack: Path, out: Path) -> dict[str, list[str]]:
    """What each timed process runs (after the interpreter), by name."""
    return {
        "import": ["-c", "import pnpkit.commands.cli"],
        "help": ["-m", "pnpkit", "--help"],
        "validate": ["-m", "pnpkit", "validate", str(pack), "--trust"],
        "warm build": ["-m", "pnpkit", "build", str(pack), "--trust", "--out", str(out)],
    }


def timed(src: Path, args: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one process running the code in src."""
    return timed_process([sys.executable, *args], src)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, help="the other checkout's src/ folder")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--pack", type=Path, default=ROOT / "components" / "mammoth-herd")
    ap.add_argument(
        "--quick",
        action="store_true",
        help="one run, this tree against itself (timed once) unless --baseline: checks that "
        "the script works (CI)",
    )
    args = ap.parse_args()
    if args.quick:
        args.runs = 1
        args.baseline = args.baseline or SRC
    if args.baseline is None:
        ap.error("--baseline is required (the other checkout's src/ folder)")
    trees = {"this": SRC, "baseline": args.baseline}
    if args.baseline.resolve() == SRC.resolve():  # this tree against itself: time it once
        del trees["baseline"]
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        runs = {name: commands(args.pack.resolve(), Path(tmp) / name) for name in trees}
        for name, src in trees.items():
            compileall.compile_dir(str(src), quiet=1)
            timed(src, runs[name]["warm build"])  # the build that makes the next ones warm
        for run in range(args.runs):
            for command in runs["this"]:
                for name, src in trees.items():
                    spent = timed(src, runs[name][command])
                    times.setdefault((name, command), []).append(spent)
                    print(
                        f"run {run + 1} {command:10} {name:8}: {spent[0]:.3f} s "
                        f"(CPU {spent[1]:.3f} s) (load {os.getloadavg()[0]:.1f})",
                        flush=True,
                    )
    print(f"baseline = {args.baseline}")
    for command in runs["this"]:
        this = times[("this", command)]
        base = times.get(("baseline", command), this)
        med = [statistics.median(w for w, _ in t) for t in (this, base)]
        cpu = [statistics.median(c for _, c in t) for t in (this, base)]
        least = [min(w for w, _ in t) for t in (this, base)]
        print(
            f"{command}: this {med[0]:.3f} s, baseline {med[1]:.3f} s "
            f"(median of {args.runs}; min {least[0]:.3f} / {least[1]:.3f} s; "
            f"CPU {cpu[0]:.3f} / {cpu[1]:.3f} s): {med[1] / med[0]:.2f}x"
        )


if __name__ == "__main__":
    main()
