"""Benchmark: one studio edit of the 1,000-card deck (bench_cards.py), in YAML and in CSV.

Times, per edit of a card's title (a different card each time, the file written):
sources.sources() (what the studio shows beside a face) and writeback.set_value(); and, side by
side in alternation, yamledit's two ways to the same new text: the item's lines alone
(yamledit.apply) against the whole file parsed twice (the operation on the whole text).

    .venv/bin/python scripts/bench_writeback.py [--cards 1000] [--edits 10] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

import bench_cards  # noqa: E402
from pnpkit.edit import sources, writeback, yamledit  # noqa: E402
from pnpkit.pack import loader, schema  # noqa: E402


def timed(f: Callable[..., object], *args: object) -> float:
    start = time.perf_counter()
    f(*args)
    return time.perf_counter() - start


def edits(cards: int, n: int, sheet: bool) -> None:
    pack = bench_cards.make_pack(Path(tempfile.mkdtemp()), cards, sheet=sheet)
    got, _ = schema.load_pack(pack)
    assert got is not None
    ids = [i.id for i in got.items()]
    shown, written = [], []
    for k in range(n):
        item = ids[(k * 97) % len(ids)]
        shown.append(timed(sources.sources, got, "cards", item))
        written.append(timed(writeback.set_value, got, "cards", item, "title", f"E {k}"))
    kind = "CSV " if sheet else "YAML"
    print(
        f"{kind}: sources() median {statistics.median(shown) * 1000:.0f} ms, "
        f"set_value() median {statistics.median(written) * 1000:.0f} ms ({n} edits)"
    )
    if not sheet:
        side_by_side(pack / "cards.yaml", n)


def side_by_side(file: Path, n: int) -> None:
    doc, _ = loader.load_yaml(file)
    text = file.read_text(encoding="utf-8")
    items = ("cards", "items")
    alone, whole = [], []
    for k in range(n):
        index = (k * 97) % len(doc.data["cards"]["items"])  # type: ignore[index]

        def op(t: str, its: tuple, i: int, k: int = k) -> str:  # type: ignore[type-arg]
            return yamledit.set_value(t, its + (i,), ("title",), f"S {k}")

        alone.append(timed(yamledit.apply, file, text, doc, items, index, op))
        whole.append(timed(op, text, items, index))
    print(
        f"YAML, one new text, alternated: the item's lines alone "
        f"{statistics.median(alone) * 1000:.0f} ms, the whole file "
        f"{statistics.median(whole) * 1000:.0f} ms (medians of {n})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="20 cards, 2 edits (the tests)")
    args = parser.parse_args()
    if args.quick:
        args.cards, args.edits = 20, 2
    for sheet in (False, True):
        edits(args.cards, args.edits, sheet)


if __name__ == "__main__":
    main()
