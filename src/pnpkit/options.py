"""Command-line options shared by `build` and `watch`: the print settings one may override."""

from __future__ import annotations

import argparse
from pathlib import Path

from pnpkit.model import BACK_MODES
from pnpkit.units import PAPERS


def back_offset(text: str) -> tuple[float, float]:
    """'0.5,-1' -> (0.5, -1.0) mm; anything else is a usage error."""
    try:
        x, y = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be X,Y in mm such as 0.5,-1 (got '{text}')") from None
    return x, y


def add_print_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", type=Path, default=Path("build"), help="output folder (default: build)")
    p.add_argument("--paper", choices=PAPERS, help="paper size (default: the pack's print.paper)")
    p.add_argument("--backs", choices=BACK_MODES, help="how backs are printed: duplex long-edge or short-edge flip, gutter-fold, or none")
    p.add_argument("--variant", action="append", metavar="NAME", help="print this variant of the components (repeatable; default: the pack's print.variants, else all)")
    p.add_argument("--back-offset", type=back_offset, metavar="X,Y", help="shift every back page by X,Y mm to correct a duplex printer's misregistration, e.g. 0.5,-1")


def print_overrides(args: argparse.Namespace) -> dict:
    """The print settings given on the command line, as PrintSettings fields."""
    chosen = {"paper": args.paper, "backs": args.backs, "back_offset": args.back_offset,
              "variants": tuple(args.variant) if args.variant else None}
    return {k: v for k, v in chosen.items() if v}
