"""How thrifty the imposition is: sheets imposed per kit against a lower bound.

The lower bound is the total area of the printed faces (trim, every copy; with
gutter-fold the backs too, as they share the side) divided by the printable
area of one sheet (the paper inside print.margin). No layout can use fewer
sheets, so imposed ÷ bound says how much paper the packer wastes. Each kit is
imposed in its first language with its own print settings (variants as the pack
chooses them); validation runs as in `pnpkit validate`.

    .venv/bin/python scripts/sheet_count.py [PACK…] [--paper a4] [--backs long-edge]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pnpkit import build  # noqa: E402
from pnpkit.units import SIZES  # noqa: E402


def count(pack_dir: Path, overrides: dict) -> tuple[int, float]:
    """(sheets imposed, lower bound) for one pack in its first language."""
    result = build.validate(pack_dir, overrides=overrides, code=build.Code(True))
    if result.pack is None or result.errors:
        raise SystemExit(f"{pack_dir}: does not validate: {result.errors[:1]}")
    s = result.pack.print
    lang = result.pack.languages[0]
    pages = result.pages[lang]
    sheets = sum(1 for p in pages if p.side == "front")
    sides = ("front", "back") if s.backs == "gutter-fold" else ("front",)
    printed = [f for f in result.faces[lang] if f.side in sides and s.prints(f.variant)]
    area = sum(f.size[0] * f.size[1] * f.count for f in printed)
    w, h = SIZES[s.paper]
    return sheets, area / ((w - 2 * s.margin) * (h - 2 * s.margin))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("packs", nargs="*", type=Path, default=sorted((ROOT / "components").iterdir()))
    ap.add_argument("--paper", choices=sorted(SIZES))
    ap.add_argument("--backs")
    args = ap.parse_args()
    overrides = {k: v for k, v in (("paper", args.paper), ("backs", args.backs)) if v}
    total_sheets, total_bound = 0, 0.0
    print(f"{'pack':<16} {'sheets':>6} {'bound':>6} {'ratio':>6}")
    for pack in args.packs:
        sheets, bound = count(pack, overrides)
        total_sheets += sheets
        total_bound += bound
        print(f"{pack.name:<16} {sheets:>6} {math.ceil(bound):>6} {sheets / bound:>6.2f}   (bound {bound:.2f})")
    print(f"{'all':<16} {total_sheets:>6} {math.ceil(total_bound):>6} {total_sheets / total_bound:>6.2f}")


if __name__ == "__main__":
    main()
