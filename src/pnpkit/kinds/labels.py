"""Label and sticker sheets: a group with `labels: a4-3x7` prints into the cells of that sheet.

A sheet is data (src/pnpkit/labels/NAME.yaml): paper size, cell size, the first
cell's top-left corner, the pitch from cell to cell, columns x rows. Faces are
centred in the cells, without crop marks (the sheet is die-cut already); bleed
shows only as far as the cell leaves room. Each sheet's pages start with a test
page that draws the cells' outlines: print it on plain paper, lay it on a label
sheet against the light, and every outline should sit on a label's edge.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from pnpkit import workspace
from pnpkit.errors import Problem
from pnpkit.impose.page import LABELS, Page, Placement
from pnpkit.pack.model import Face, PrintSettings
from pnpkit.units import parse_length

if TYPE_CHECKING:
    from pnpkit.kinds.registry import Registry

LABEL_DIR = Path(__file__).parent.parent / "labels"
TEST_NOTE = "label_test"  # the test page's note: a print-check word (calibration.WORDS)


@dataclass(frozen=True)
class LabelSheet:
    name: str
    paper: tuple[float, float]  # mm
    cell: tuple[float, float]
    first: tuple[float, float]  # the first cell's top-left corner, from the sheet's top-left
    pitch: tuple[float, float]  # from one cell's corner to the next, across and down
    grid: tuple[int, int]  # columns, rows

    def cells(self) -> list[tuple[float, float]]:
        """Top-left corners of the cells, row by row."""
        cols, rows = self.grid
        return [
            (self.first[0] + c * self.pitch[0], self.first[1] + r * self.pitch[1])
            for r in range(rows)
            for c in range(cols)
        ]


def names() -> list[str]:
    return sorted(p.stem for p in LABEL_DIR.glob("*.yaml"))


@workspace.memoized(256)
def load(name: str) -> LabelSheet:
    """A shipped sheet by name (names() lists them); our own data, so a mistake in it is a bug."""
    data = yaml.safe_load((LABEL_DIR / f"{name}.yaml").read_text(encoding="utf-8"))

    def pair(key: str) -> tuple[float, float]:
        a, b = (parse_length(v) for v in data[key])
        return a, b

    return LabelSheet(
        name,
        pair("paper"),
        pair("cell"),
        pair("first"),
        pair("pitch"),
        (int(data["grid"][0]), int(data["grid"][1])),
    )


def pack_labels(copies: list[Face], s: PrintSettings) -> tuple[list[Page], list[Problem]]:
    """Each sheet's faces: a test page of outlines, then the faces cell by cell."""
    pages: list[Page] = []
    problems: list[Problem] = []
    runs: dict[str, list[Face]] = {}
    for face in copies:
        runs.setdefault(face.labels, []).append(face)
    for name, faces in runs.items():
        sheet = load(name)
        too_big = [
            f for f in faces if f.size[0] > sheet.cell[0] + 0.01 or f.size[1] > sheet.cell[1] + 0.01
        ]
        for face in {f.item: f for f in too_big}.values():
            problems.append(
                Problem(
                    face.where,
                    f"'{face.item}' ({face.size[0]:g}x{face.size[1]:g}mm) is larger than a "
                    f"label of sheet {name} ({sheet.cell[0]:g}x{sheet.cell[1]:g}mm)",
                    "layout",
                )
            )
        if too_big:
            continue
        pages.append(_test_page(sheet))
        cells = sheet.cells()
        for start in range(0, len(faces), len(cells)):
            page = Page(*sheet.paper, "front", packed=True)
            for face, (x, y) in zip(faces[start : start + len(cells)], cells):
                page.placements.append(_in_cell(face, x, y, sheet))
            pages.append(page)
    return pages, problems


def _in_cell(face: Face, x: float, y: float, sheet: LabelSheet) -> Placement:
    """The face centred in the cell; its bleed shown only inside the cell."""
    dx, dy = (sheet.cell[0] - face.size[0]) / 2, (sheet.cell[1] - face.size[1]) / 2
    reach = (min(face.bleed, dx), min(face.bleed, dy), min(face.bleed, dx), min(face.bleed, dy))
    return Placement(face, x + dx, y + dy, reach)


def _test_page(sheet: LabelSheet) -> Page:
    lines = []
    for x, y in sheet.cells():
        w, h = sheet.cell
        lines += [
            (x, y, x + w, y),
            (x + w, y, x + w, y + h),
            (x + w, y + h, x, y + h),
            (x, y + h, x, y),
        ]
    return Page(*sheet.paper, "front", packed=True, lines=lines, note=TEST_NOTE)


def register(reg: Registry) -> None:
    """Faces printed on a label sheet (`labels:`), whatever their kind."""
    reg.add_packer(LABELS, pack_labels)
