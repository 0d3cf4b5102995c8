"""How far the packer is from the best packing it could find: each kit imposed again with many
random orders of its groups, and with less room between blocks.

sheet_count.py compares the sheets with a lower bound no layout can beat, but that bound ignores
the room every block needs (its crop marks, its bleed at the sheet's edge), so it cannot say
whether a better packer would save a sheet. This script searches instead: the grid packer is
given `--orders N` random orders of the groups (its own five orders by size are tried first),
and then, for comparison only, narrower room between blocks (`--pads`: each block's side of it, in
mm; the build gives each block its crop marks' room, 3.5 mm, so two blocks sit 7 mm apart). It
prints the fewest sheets each search found per kit.

    .venv/bin/python scripts/sheet_search.py [PACK…] [--orders 40] [--pads 3.25 2.5 1]
        [--paper letter]

Each kit is validated once and imposed again for every trial (layout.impose only), in its first
language with its own print settings, as sheet_count.py does.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pnpkit.build import pipeline as build  # noqa: E402
from pnpkit.impose import grid, layout, paper, sheet  # noqa: E402
from pnpkit.units import SIZES  # noqa: E402


def _sheets(faces: list[Any], settings: Any, packers: Any) -> int:
    pages, _ = layout.impose(faces, settings, packers)
    return sum(1 for p in pages if p.side == "front")


def _random_order(rng: random.Random) -> Callable[[Any], tuple[Any, ...]]:
    """An order of the groups drawn at random; faces of one size and bleed stay together."""
    rank: dict[tuple[Any, ...], float] = {}

    def key(face: Any) -> tuple[Any, ...]:
        size = (face.size, face.bleed)
        return (rank.setdefault(size, rng.random()), *size)

    return key


def search(
    pack: Path, orders: int, pads: list[float], seed: int, overrides: dict[str, Any]
) -> list[int]:
    """[sheets as built, fewest over the random orders, fewest with each pad] for one kit."""
    result = build.validate(pack, overrides=overrides, code=build.Code(True))
    if result.pack is None or result.errors:
        raise SystemExit(f"{pack}: does not validate")
    faces = result.faces[result.pack.languages[0]]
    settings, packers = result.pack.print, result.registry.packers
    built = _sheets(faces, settings, packers)
    rng = random.Random(seed)
    own, pad = grid.ORDERS, paper.block_pad
    padded = (layout, sheet)  # the modules that call block_pad
    try:
        found = built
        for _ in range(orders):
            grid.ORDERS = (_random_order(rng),)
            found = min(found, _sheets(faces, settings, packers))
        grid.ORDERS = own
        narrow = []
        for mm in pads:
            for module in padded:
                module.block_pad = lambda s, mm=mm: mm  # type: ignore[attr-defined]
            narrow.append(_sheets(faces, settings, packers))
    finally:
        grid.ORDERS = own
        for module in padded:
            module.block_pad = pad  # type: ignore[attr-defined]
    return [built, found, *narrow]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("packs", nargs="*", type=Path, default=sorted((ROOT / "components").iterdir()))
    ap.add_argument("--orders", type=int, default=40, help="random orders of the groups to try")
    ap.add_argument("--pads", type=float, nargs="*", default=[3.25, 2.5, 1.0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--paper", choices=sorted(SIZES))
    args = ap.parse_args()
    overrides = {"paper": args.paper} if args.paper else {}
    head = ["built", f"{args.orders} orders"] + [f"room {2 * p:g}mm" for p in args.pads]
    print(f"{'pack':16}" + "".join(f"{h:>14}" for h in head))
    totals = [0] * len(head)
    for pack in args.packs:
        row = search(pack, args.orders, args.pads, args.seed, overrides)
        totals = [t + n for t, n in zip(totals, row)]
        print(f"{pack.name:16}" + "".join(f"{n:>14}" for n in row))
    print(f"{'all':16}" + "".join(f"{n:>14}" for n in totals))


if __name__ == "__main__":
    main()
