"""How thrifty the imposition is: sheets imposed per kit against a lower bound.

The lower bound is the total area of the printed faces (trim, every copy; with
gutter-fold the backs too, as they share the side) divided by the printable
area of one sheet (the paper inside print.margin). No layout can use fewer
sheets, so imposed ÷ bound says how much paper the packer wastes. Faces may in
fact use less than that: not the footer band above the bottom margin, where the
page's label goes (paper.ink_area). The second bound, `usable`, divides by that
area instead: tighter, and still no layout beats it (the crop marks' room is not
taken off: faces printed without marks, such as die nets, may use it). Each kit is
imposed in its first language with its own print settings (variants as the pack
chooses them); validation runs as in `pnpkit validate --lang` of that language.

    .venv/bin/python scripts/sheet_count.py [PACK…] [--paper a4] [--backs long-edge] [--sheets]

`--sheets` also lists every sheet: how much of it the faces cover (a split face's part: the
window it prints) and how many of each group it holds, and which parts of split faces, to see
where paper is lost.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pnpkit.build import pipeline as build  # noqa: E402
from pnpkit.impose.fill import coverage  # noqa: E402
from pnpkit.impose.page import part_names  # noqa: E402
from pnpkit.impose.paper import ink_area  # noqa: E402
from pnpkit.pack.schema import load_pack  # noqa: E402
from pnpkit.units import SIZES  # noqa: E402


def count(pack_dir: Path, overrides: dict, listing: bool = False) -> tuple[int, float, float]:
    """(sheets imposed, lower bound inside the margin, lower bound in the area faces may use) for
    one pack in its first language; `listing` prints each sheet."""
    pack, _ = load_pack(pack_dir)  # its languages: only the first is imposed and counted
    langs = pack.languages[:1] if pack is not None else None
    result = build.validate(pack_dir, langs, overrides=overrides, code=build.Code(True))
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
    if listing:
        for n, page in enumerate(p for p in pages if p.side == "front"):
            groups: dict[str, int] = {}
            for p in page.placements:
                groups[p.face.group] = groups.get(p.face.group, 0) + 1
            covered = coverage(page, s)
            held = ", ".join(f"{k} {v}" for k, v in groups.items())
            if page.parts:
                held += "; parts of split faces: " + ", ".join(part_names(page))
            print(f"  sheet {n + 1:>2}: {covered:5.0%}  {held}")
    left, top, right, bottom = ink_area(s, (w, h))
    usable = (right - left) * (bottom - top)
    return sheets, area / ((w - 2 * s.margin) * (h - 2 * s.margin)), area / usable


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("packs", nargs="*", type=Path, default=sorted((ROOT / "components").iterdir()))
    ap.add_argument("--paper", choices=sorted(SIZES))
    ap.add_argument("--backs")
    ap.add_argument("--sheets", action="store_true", help="list each sheet: how full, which groups")
    args = ap.parse_args()
    overrides = {k: v for k, v in (("paper", args.paper), ("backs", args.backs)) if v}
    total_sheets, total_bound, total_usable = 0, 0.0, 0.0
    print("bound: face area ÷ the paper inside print.margin; usable: ÷ the area faces may use")
    print("(inside the margin less the footer band); each ratio is sheets ÷ that bound")
    print(f"{'pack':<16} {'sheets':>6} {'bound':>6} {'ratio':>6} {'usable':>6} {'ratio':>6}")
    for pack in args.packs:
        sheets, bound, usable = count(pack, overrides, args.sheets)
        total_sheets += sheets
        total_bound += bound
        total_usable += usable
        print(
            f"{pack.name:<16} {sheets:>6} {math.ceil(bound):>6} {sheets / bound:>6.2f} "
            f"{math.ceil(usable):>6} {sheets / usable:>6.2f}   "
            f"(bound {bound:.2f}, usable {usable:.2f})"
        )
    print(
        f"{'all':<16} {total_sheets:>6} {math.ceil(total_bound):>6} "
        f"{total_sheets / total_bound:>6.2f} {math.ceil(total_usable):>6} "
        f"{total_sheets / total_usable:>6.2f}"
    )


if __name__ == "__main__":
    main()
