"""Command-line options shared by `build` and `watch`: the print settings one may override."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from pnpkit.pack.groups import MAX_BACK_OFFSET
from pnpkit.pack.model import BACK_MODES, PrintOverrides, PrintSettings
from pnpkit.units import PAPERS


def back_offset(text: str) -> tuple[float, float]:
    """'0.5,-1' -> (0.5, -1.0) mm; anything else is a usage error."""
    try:
        x, y = (float(v) for v in text.split(","))
    except ValueError:
        x = y = math.nan
    if not (
        abs(x) <= MAX_BACK_OFFSET and abs(y) <= MAX_BACK_OFFSET
    ):  # float() reads 'nan' and 'inf' too
        raise argparse.ArgumentTypeError(
            "must be X,Y in mm such as 0.5,-1, each at most "
            f"{MAX_BACK_OFFSET:g} either way (got '{text}')"
        )
    return x, y


def max_faces(text: str) -> int:
    """A positive whole number of faces."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(
            f"must be a whole number of faces such as 50000 (got '{text}')"
        )
    return n


def add_limit_options(p: argparse.ArgumentParser) -> None:
    """Limits that keep a stranger's pack from exhausting the machine; only the user may raise
    them."""
    p.add_argument(
        "--max-faces",
        type=max_faces,
        metavar="N",
        help="print at most N faces per pack, every copy counted (default "
        f"{PrintSettings.max_faces}); raise it for a larger game",
    )


def add_print_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", type=Path, default=Path("build"), help="output folder (default: build)")
    p.add_argument("--paper", choices=PAPERS, help="paper size (default: the pack's print.paper)")
    p.add_argument(
        "--backs",
        choices=BACK_MODES,
        help="how backs are printed: duplex long-edge or short-edge flip, gutter-fold, or none",
    )
    p.add_argument(
        "--variant",
        action="append",
        metavar="NAME",
        help="print this variant of the components (repeatable; "
        "default: the pack's print.variants, else all)",
    )
    p.add_argument(
        "--back-offset",
        type=back_offset,
        metavar="X,Y",
        help="shift every back page by X,Y mm to correct a "
        "duplex printer's misregistration, e.g. 0.5,-1",
    )
    p.add_argument(
        "--no-guide",
        action="store_true",
        help="leave the kit guide (cover, contents, sheet map, assembly) out of the PDFs",
    )
    add_limit_options(p)


def print_overrides(args: argparse.Namespace) -> PrintOverrides:
    """The print settings (and limits) given on the command line, as PrintSettings fields."""
    chosen = PrintOverrides()
    if getattr(args, "paper", None):
        chosen["paper"] = args.paper
    if getattr(args, "backs", None):
        chosen["backs"] = args.backs
    if getattr(args, "back_offset", None):
        chosen["back_offset"] = args.back_offset
    if getattr(args, "max_faces", None):
        chosen["max_faces"] = args.max_faces
    if getattr(args, "no_guide", False):
        chosen["guide"] = False
    if getattr(args, "variant", None):
        chosen["variants"] = tuple(args.variant)
    return chosen
