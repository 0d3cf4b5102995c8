"""Imposition: faces + print settings -> pages of placements (page.py). Each kind a registry's
packer names lays out its own faces; every other face fills the grid (grid.py: blocks of one
size on sheets, sheet.py; faces larger than the paper split over sheets, split.py), near-empty
sheets share fuller ones' room (fill.py), and in duplex modes a back page follows each front page
with every back at the mirror image of its front's place (backs.py). A watch session's rebuild
that moves no face takes the layout it made before (impose_again).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TypeVar

from pnpkit import memo, workspace
from pnpkit.errors import Location, Problem
from pnpkit.impose import cuts, fill, shrink
from pnpkit.impose.backs import back_page
from pnpkit.impose.bleeds import centre_vertically, clamp_reach, marks_of, part_bleeds
from pnpkit.impose.grid import fill_grid
from pnpkit.impose.page import FOLD_BLOCKS, LABELS, Backs, Packer, Page, Placement
from pnpkit.impose.paper import block_pad, face_area, ink_area, whole_areas
from pnpkit.pack.model import Face, PrintSettings
from pnpkit.units import SIZES


def impose(
    faces: list[Face], settings: PrintSettings, packers: Mapping[str, Packer]
) -> tuple[list[Page], list[Problem]]:
    """Lay out every printed copy of every front; backs follow their fronts' pages. `packers`
    (a registry's) lay out the kinds they name; every other kind fills the grid."""
    faces = [
        f for f in faces if settings.prints(f.variant)
    ]  # the variants chosen (print.variants, --variant)
    faces = shrink.fitted(faces, whole_areas(settings))  # `fit: shrink` sheets made to fit
    too_many = too_many_faces(
        [(f.item, f.count, f.where) for f in faces if f.side == "front"], settings.max_faces
    )
    if too_many:
        return [], too_many
    backs = {(f.group, f.item): f for f in faces if f.side == "back"}
    copies = [f for f in faces if f.side == "front" for _ in range(f.count)]
    fronts, problems = [], []
    grid: list[Face] = []
    for packer, run in _by_packer(copies, packers):
        if packer is fill_grid:  # last: its faces fill the room the other packers' sheets left
            grid = run
            continue
        made, found = packer(run, settings)
        fronts += made
        problems += found
    made, found = fill_grid(grid, settings, fronts)
    fronts += made
    problems += found
    problems += _dropped(faces, fronts, problems, settings)
    # near-empty grid sheets share a fuller one's room (fill.py); backs are made from the fronts
    fronts = fill.share(fronts, settings, lambda run: fill_grid(run, settings), marks_of(settings))
    problems += fill.check(fronts, settings)
    pages: list[Page] = []
    for page in fronts:
        if page.own_sheet:
            pages += _tile_with_back(page, backs, settings)
            continue
        if not page.packed:
            centre_vertically(page, face_area(settings, (page.w, page.h)))
            clamp_reach(page, face_area(settings, (page.w, page.h)))
            page.placements = part_bleeds(page.placements, block_pad(settings))
        back = back_page(page, backs, settings)
        if (
            settings.backs == "gutter-fold"
        ):  # backs on the other half: their own blocks, their own marks
            page.placements += [
                dataclasses.replace(b, block=b.block + FOLD_BLOCKS) for b in back.placements
            ]
            page.lines += back.lines
            pages.append(page)
        else:
            pages += [page, back] if back.placements or settings.duplex else [page]
    for page in pages:
        page.ink = ink_area(settings, (page.w, page.h))
    return pages, problems


# Layouts made by impose_again() in this process, newest first: what impose() read of each face,
# the settings and packers, and the pages with the faces' indexes in place of the faces (a kept
# layout holds no face, nor its drawing). watch rebuilds after an edit that moves no face.
LAYOUTS_KEPT = 8


_LAYOUTS: workspace.Slot[list[_Layout]] = workspace.Slot("layout.layouts", list)


def impose_again(
    faces: list[Face], settings: PrintSettings, packers: Mapping[str, Packer]
) -> tuple[list[Page], list[Problem]]:
    """impose(), or the layout of an earlier call whose faces were alike in all impose() reads
    of them (but their drawings), with these faces on it. Only faces that fill the grid: a
    packer of the registry may read anything of a face."""
    if not memo.handing_on() or any(f.labels or f.kind in packers for f in faces):
        return impose(faces, settings, packers)  # one-shot, or a packer may read anything
    shape: list[tuple[object, ...]] = [
        (f.group, f.item, f.side, f.count, f.size, f.bleed, f.kind, f.where, f.shape, f.variant)
        + (f.fit, f.scale)  # `fit: shrink` changes the layout (shrink.py)
        + (_texts_cut_around(f, settings),)
        for f in faces
    ]
    layouts = _LAYOUTS.here()
    for n, kept in enumerate(layouts):
        if kept.shape == shape and kept.settings == settings and kept.packers == dict(packers):
            layouts.insert(0, layouts.pop(n))
            return kept.pages(faces), list(kept.problems)
    pages, problems = impose(faces, settings, packers)
    index = {id(f): i for i, f in enumerate(faces)}
    if all(id(p.face) in index for page in pages for p in page.placements):
        layouts.insert(0, _Layout(shape, settings, dict(packers), pages, index, problems))
        del layouts[LAYOUTS_KEPT:]
    return pages, problems


def _texts_cut_around(face: Face, s: PrintSettings) -> list[cuts.Named]:
    """The texts of a face the paper may be too small for: where its cuts fall (cuts.py)."""
    if max(face.full_size) <= min(SIZES[s.paper]) - 2 * s.margin:
        return []
    return cuts.texts(face)


class _Layout:
    """One impose() result, its pages kept without their faces."""

    def __init__(
        self,
        shape: list[tuple[object, ...]],
        settings: PrintSettings,
        packers: dict[str, Packer],
        pages: list[Page],
        index: dict[int, int],
        problems: list[Problem],
    ) -> None:
        self.shape, self.settings, self.packers = shape, settings, packers
        self.problems = list(problems)
        self.masters = [
            (
                dataclasses.replace(page, placements=[], lines=list(page.lines)),
                [
                    # its fields by name but the face (a dict: made into a placement faster
                    # than a tuple is, by name or through __init__)
                    (index[id(p.face)], {k: v for k, v in vars(p).items() if k != "face"})
                    for p in page.placements
                ],
            )
            for page in pages
        ]

    def pages(self, faces: list[Face]) -> list[Page]:
        """The pages, each a new one, with these faces placed where the kept ones were."""
        return [
            _made(
                Page,
                {
                    **vars(master),
                    "placements": [
                        _made(Placement, {"face": faces[i], **kept}) for i, kept in rows
                    ],
                    "lines": list(master.lines),
                },
            )
            for master, rows in self.masters
        ]


T = TypeVar("T")


def _made(cls: type[T], fields: dict[str, object]) -> T:
    """An object of the dataclass cls with these fields (every one), as its __init__ sets them
    but without it (neither Page nor Placement has a __post_init__): a frozen dataclass's
    __init__ sets each field through object.__setattr__, and Placement's cost most of watch's
    layout of a 1,000-card deck (dataclasses.replace() goes through __init__ too)."""
    made = object.__new__(cls)
    made.__dict__.update(fields)
    return made


def too_many_faces(items: list[tuple[str, int, Location]], limit: int) -> list[Problem]:
    """Every copy is placed on a page, so a count of a hundred million would fill the memory
    before anything is printed: the copies of the (item, count, where)s are counted first."""
    total = 0
    for item, count, where in items:
        total += count
        if total > limit:
            what = f"its {count} copies" if count > limit else f"'{item}'"
            return [
                Problem(
                    where,
                    f"with {what} the pack prints more than {limit} faces, the limit "
                    f"(a larger game can raise it: --max-faces N)",
                    "limits",
                )
            ]
    return []


def _dropped(
    faces: list[Face], fronts: list[Page], problems: list[Problem], s: PrintSettings
) -> list[Problem]:
    """A face that no page took is an error, never a silently shorter kit."""
    placed: dict[tuple[str, str], int] = {}
    for page in fronts:
        for p in page.placements:
            if p.tile is not None and (p.tile.row, p.tile.col) != (0, 0):
                continue  # a split face counts once, on its first part
            key = (p.face.group, p.face.item)
            placed[key] = placed.get(key, 0) + 1
    reported = {p.where for p in problems if p.is_error}
    out = []
    for face in faces:
        missing = face.count - placed.get((face.group, face.item), 0)
        if face.side == "front" and missing > 0 and face.where not in reported:
            w, h = face.full_size
            out.append(
                Problem(
                    face.where,
                    f"{missing} of the {face.count} copies of "
                    f"'{face.item}' ({w:g}x{h:g}mm with bleed) "
                    f"found no place on {s.paper} paper inside {s.margin:g}mm margins",
                    "layout",
                )
            )
    return out


def _tile_with_back(page: Page, backs: Backs, s: PrintSettings) -> list[Page]:
    """A sheet of a face that takes whole sheets, and (duplex or gutter-fold) the matching sheet
    of its back."""
    backed = [p for p in page.placements if (p.face.group, p.face.item) in backs]
    if not backed or s.backs == "none":
        return [page, Page(page.w, page.h, "back")] if s.duplex else [page]
    back = back_page(page, backs, s)
    back.packed = True  # the split face's own marks are on the front; the back is cut with it
    # gutter-fold: a back too large to sit beside its front gets a sheet of its own, the front's
    # mirror image across the sheet's left edge: lay the two sheets edge to edge, tape, fold there
    back.fold_pair = s.backs == "gutter-fold"
    return [page, back]


def _by_packer(
    copies: list[Face], packers: Mapping[str, Packer]
) -> list[tuple[Packer, list[Face]]]:
    """The faces of each packer, packers in the order their first face comes: a packer sees all of
    its faces at once, so a later group can fill the room an earlier one left."""
    runs: dict[Packer, list[Face]] = {}
    for face in copies:
        packer = packers[LABELS] if face.labels else packers.get(face.kind, fill_grid)
        runs.setdefault(packer, []).append(face)
    return list(runs.items())
