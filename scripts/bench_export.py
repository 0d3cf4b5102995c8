"""Benchmark: every export profile of a kit, cold (empty --out) and warm (nothing changed).

The warm export should redo little: the faces come from the build cache and their
pixels from the raster cache. Both runs are new `pnpkit build` processes, as a
designer runs them; the two output trees are compared byte for byte. CPU seconds
(the build and its worker processes) are printed beside wall time: on a shared
machine they are the steadier figure.

    .venv/bin/python scripts/bench_export.py [--pack components/star-cargo] [--runs 2] [--quick]

--quick exports bench_cards.py's deck of 4 cards once (CI runs it so the script cannot rot).
"""

from __future__ import annotations

import argparse
import filecmp
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from bench_cards import make_pack  # noqa: E402

PROFILES = (
    "thegamecrafter",
    "makeplayingcards",
    "drivethrucards",
    "printninja",
    "tabletop-simulator",
)


def build(pack: Path, out: Path) -> tuple[float, float]:
    command = [sys.executable, "-m", "pnpkit", "build", str(pack), "--out", str(out), "--trust"]
    for name in PROFILES:
        command += ["--profile", name]
    started, cpu = time.perf_counter(), _children_cpu()
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"build failed:\n{run.stdout}{run.stderr}")
    return time.perf_counter() - started, _children_cpu() - cpu


def _children_cpu() -> float:
    """User + system seconds of the finished child processes (and theirs, once waited for)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def differences(a: Path, b: Path, skip: str = "pnpkit-cache") -> list[str]:
    """Files that differ between two output trees (the caches and the lock aside)."""
    found = []
    cmp = filecmp.dircmp(a, b, ignore=[skip, ".pnpkit.lock"])
    found += [str(Path(a, n)) for n in cmp.left_only + cmp.right_only + cmp.diff_files]
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    found += [str(Path(a, n)) for n in mismatch + errors]
    for sub in cmp.common_dirs:
        found += differences(a / sub, b / sub, skip)
    return sorted(set(found))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pack", type=Path, default=ROOT / "components" / "star-cargo")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument(
        "--quick",
        action="store_true",
        help="a 4-card deck, one run: checks that the script works (CI)",
    )
    args = ap.parse_args()
    colds, warms, cold_cpu, warm_cpu = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        if args.quick:
            args.pack, args.runs = make_pack(Path(tmp), 4), 1
        for run in range(args.runs):
            out = Path(tmp) / f"out{run}"
            wall, cpu = build(args.pack, out)
            colds.append(wall)
            cold_cpu.append(cpu)
            reference = Path(tmp) / f"ref{run}"
            subprocess.run(["cp", "-a", str(out), str(reference)], check=True)
            wall, cpu = build(args.pack, out)
            warms.append(wall)
            warm_cpu.append(cpu)
        changed = differences(
            Path(tmp) / "ref0" / args.pack.name, Path(tmp) / "out0" / args.pack.name
        )
    cold, warm = statistics.median(colds), statistics.median(warms)
    print(f"{args.pack.name}, profiles {', '.join(PROFILES)}")
    print(f"cold export (empty --out): median {cold:.2f} s (n={len(colds)})")
    print(
        f"warm export (nothing changed): median {warm:.2f} s "
        f"(n={len(warms)}), {100 * warm / cold:.0f} % of cold"
    )
    c_cpu, w_cpu = statistics.median(cold_cpu), statistics.median(warm_cpu)
    print(
        f"CPU (build and workers): cold {c_cpu:.2f} s, warm "
        f"{w_cpu:.2f} s, {100 * w_cpu / c_cpu:.0f} % of cold"
    )
    print(f"files that differ between the cold and the warm output: {len(changed)}")
    for path in changed[:10]:
        print(f"  {path}")


if __name__ == "__main__":
    main()
