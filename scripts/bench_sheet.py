"""Benchmark: a 10,000-row XLSX card list read and validated (structure, rules): time, peak memory.

The workbook has one row per card: id, an enum, a number, an int, text in two
languages, a list and tags, as a designer's deck sheet would. It is written once
with openpyxl; the measurement runs in a fresh process (python -X importtime aside,
imports included) so the peak resident memory is the reader's own. Goal: < 5 s and
< 500 MB on the project's 2-core machine.

    .venv/bin/python scripts/bench_sheet.py [--rows 10000] [--format xlsx|ods|csv] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

GAME = (
    "id: bench\nname: Bench\nlanguages: [en, pl]\nplayers: {min: "
    "2, max: 4}\nchecks:\n  - {rule: count, group: cards, min: 1}\n"
)
CARDS = """\
cards:
  kind: card
  size: poker
  front: card.svg.j2
  fields:
    suit: {type: enum, values: [sun, moon, star, comet]}
    cost: {type: number, min: 0}
    power: int
    title: text
    keys: {type: list, item: int}
  items: cards.FORMAT
"""


def make(root: Path, rows: int, fmt: str) -> Path:
    from sheetfiles import write_delimited, write_ods, write_xlsx

    pack = root / "bench"
    (pack / "templates").mkdir(parents=True)
    (pack / "game.yaml").write_text(GAME)
    (pack / "cards.yaml").write_text(CARDS.replace("FORMAT", fmt))
    (pack / "templates/card.svg.j2").write_text(
        '{% extends "_face.svg.j2" %}{% block content %}{% endblock %}'
    )
    table = [["id", "suit", "cost", "power", "title.en", "title.pl", "keys", "tags"]]
    suits = ["sun", "moon", "star", "comet"]
    for n in range(rows):
        table.append(
            [
                f"card-{n:05d}",
                suits[n % 4],
                n % 7 + 0.5,
                n % 5,
                f"Card number {n}",
                f"Karta numer {n}",
                f"{n % 3}; {n % 11}",
                "common; deck",
            ]
        )
    {"xlsx": write_xlsx, "ods": write_ods, "csv": write_delimited}[fmt](
        pack / f"cards.{fmt}", table
    )
    return pack


MEASURE = """
import json, resource, sys, time
started = time.perf_counter()
from pnpkit.checks import rules
from pnpkit.pack import schema
from pnpkit.kinds.registry import default_registry
pack, problems = schema.load_pack(__import__("pathlib").Path(sys.argv[1]))
problems += rules.check(pack, default_registry(), trusted=False) if pack else []
seconds = time.perf_counter() - started
usage = resource.getrusage(resource.RUSAGE_SELF)
peak = usage.ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "cpu": usage.ru_utime + usage.ru_stime, "peak_mb": peak,
                  "items": len(pack.items()) if pack else 0,
                  "errors": [str(p) for p in problems if p.is_error][:3]}))
"""  # noqa: E501 (data: markup and YAML kept as written)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--format", default="xlsx", choices=("xlsx", "ods", "csv"))
    ap.add_argument(
        "--quick", action="store_true", help="20 rows: checks that the script works (CI)"
    )
    args = ap.parse_args()
    if args.quick:
        args.rows = 20
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        pack = make(Path(tmp), args.rows, args.format)
        size = (pack / f"cards.{args.format}").stat().st_size
        print(
            f"wrote a {args.rows:,}-row {args.format.upper()} "
            f"({size:,} bytes) in {time.perf_counter() - started:.1f} s"
        )
        env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
        out = subprocess.run(
            [sys.executable, "-c", MEASURE, str(pack)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
    result = json.loads(out.stdout)
    ok = (
        result["seconds"] < 5
        and result["peak_mb"] < 500
        and result["items"] == args.rows
        and not result["errors"]
    )
    load = os.getloadavg()[0]
    print(
        f"read and validated {result['items']:,} items in "
        f"{result['seconds']:.2f} s ({result['cpu']:.2f} s of CPU, "
        f"load average {load:.1f} on {os.cpu_count()} "
        f"cores), peak memory {result['peak_mb']:.0f} MB"
        f" (goal: < 5 s, < 500 MB): {'ok' if ok else 'FAILED'}"
    )
    for line in result["errors"]:
        print(f"  {line}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
