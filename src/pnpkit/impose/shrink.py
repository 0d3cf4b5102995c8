"""`fit: shrink`: a sheet whose size does not matter prints whole on a smaller paper, scaled down.

A player's sheet or a reference sheet of 277 mm does not fit Letter whole; split, it becomes a
sheet and a 33 mm strip cut through its words. With `fit: shrink` on its group, each face of
the group (front and back alike, so the back stays behind its front) is scaled down, by whole
percents, until its trim fits the paper inside the margins, either way up (printed, as any face
that takes the whole sheet, without the bleed and crop marks that find no room), and says so on
the piece ("printed at 97 %", pdf.py). On paper that holds it whole nothing changes.
Cards, tiles, dice and the rest keep their size: their size matters (sleeves, the board's
spaces, each other), so the schema refuses `fit` on any kind but a sheet (pack/guidespec.py).
"""

from __future__ import annotations

import dataclasses
import math

from pnpkit.pack.model import Face

MIN_SCALE = 0.5  # a sheet at under half its size is too small to read: it is split instead


Rect = tuple[float, float, float, float]


def scale(face: Face, areas: list[Rect]) -> float:
    """How much the face is scaled to print whole: 1, or the largest whole percent at which its
    trim fits one of `areas` (the paper inside its margins, each way up it may take:
    paper.whole_areas). A face that fits there whole is printed whole already, its art's edge
    the cut if its bleed and crop marks find no room (split.tile_face): so is a shrunk one."""
    fw, fh = face.size
    best = max((min((r - x) / fw, (b - y) / fh) for x, y, r, b in areas), default=0.0)
    if best >= 1.0 or best < MIN_SCALE:  # whole as it is, or too small to read: split instead
        return 1.0
    return math.floor(best * 100 + 1e-9) / 100


def fitted(faces: list[Face], areas: list[Rect]) -> list[Face]:
    """The faces, those of `fit: shrink` groups scaled to fit one of `areas` (every face of a
    group by its largest front's scale, so fronts and backs match)."""
    scales: dict[str, float] = {}
    for face in faces:
        if face.fit == "shrink" and face.side == "front":
            scales[face.group] = min(scales.get(face.group, 1.0), scale(face, areas))
    if all(v == 1.0 for v in scales.values()):
        return faces
    return [scaled(f, scales[f.group]) if scales.get(f.group, 1.0) < 1 else f for f in faces]


def scaled(face: Face, by: float) -> Face:
    """A face printed at `by` of its size: its trim and bleed scaled, its drawing scaled as it is
    placed (pdf.py); face.scale says how much."""
    w, h = face.size
    return dataclasses.replace(
        face, size=(w * by, h * by), bleed=face.bleed * by, scale=face.scale * by
    )


def note(words: dict[str, str], face: Face) -> str:
    """What the piece says of its scale, in the kit's words: "printed at 94 %"."""
    return words["printed_at"].replace("{scale}", f"{round(face.scale * 100):d}")
