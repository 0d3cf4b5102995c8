"""The Game Crafter's custom punchout and custom card stock: pieces of a size TGC sells no product
for, laid out on a slug (a sheet TGC cuts with a laser along a cut file we draw).

TGC's rules (help.thegamecrafter.com article 201, "Custom Punchouts and Card Stock"): a slug is
3.25 x 5.25, 8 x 4.5 or 8.25 x 10.5 in (card stock also 2.5 x 3.5 in); any number of shapes may
sit on one, 1/8 in apart from cut line to cut line; every cut line has at least 3 nicks, evenly
spaced, 0.01 in wide (0.02 in on card stock), so the part stays in the slug; the slug's own cut
line is added by TGC. The cut file is an SVG (TGC's API: `cut_id`, "the SVG cut file"); only the
centre of a line is cut, its width does not matter.

Each piece is placed in a cell of its trim plus the profile's bleed on every side, so its art
keeps its whole bleed, its cut is 1/4 in from its neighbours' and 1/8 in from the slug's edge.
The back image is the slug turned over about its vertical axis: a piece's back sits mirrored.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from PIL import Image

from pnpkit.export.decks import Deck, DeckItem
from pnpkit.export.facepages import Sheet, Shot
from pnpkit.export.profile import MM_PER_IN, Product, Profile
from pnpkit.pack.model import Face

# Which custom sheet a kind of group goes on when no product of its own size is sold: chipboard
# for what lies on the table, card stock for what is folded (fold-over standees, dice nets) or
# held like a card. Sheets, hexes (cut as hexagons) and rules stay as they are.
SHEET_FOR_KIND = MappingProxyType(
    {
        "token": "punchout",
        "tile": "punchout",
        "board": "punchout",
        "card": "cardstock",
        "standee": "cardstock",
        "die": "cardstock",
    }
)
SHEET_KINDS = ("punchout", "cardstock")
NICK = MappingProxyType(
    {"punchout": 0.01 * MM_PER_IN, "cardstock": 0.02 * MM_PER_IN}
)  # mm, TGC's widths


@dataclass(frozen=True)
class Slot:
    """Where one piece sits on a slug: its trim's top left (mm from the slug's), its size as
    placed, and whether it is turned 90° (counter-clockwise on the front)."""

    x: float
    y: float
    w: float
    h: float
    turned: bool


@dataclass(frozen=True)
class Plan:
    """A group laid out on slugs of one product: the slots of a slug, and the pieces of each
    slug in order."""

    product: Product
    slots: tuple[Slot, ...]
    slugs: tuple[tuple[DeckItem, ...], ...]
    bleed: float  # mm around each piece's trim that is its art


def sheet_kind(deck: Deck) -> str | None:
    """The custom sheet a group goes on, if its kind goes on one and it is not cut as a hex."""
    front = next((i.front for i in deck.items if i.front is not None), None)
    if front is not None and front.shape[0] == "hex":
        return None
    return SHEET_FOR_KIND.get(deck.kind)


def plan(deck: Deck, profile: Profile) -> Plan | None:
    """The group's pieces laid out on the custom sheet product of its sheet kind that takes them
    on the least slug area in all (the smaller product on a tie), each piece turned where more fit
    a slug; None if no slug holds one."""
    kind = sheet_kind(deck)
    if kind is None or profile.output != "images":
        return None
    pieces = [item for item in deck.items for _ in range(item.count)]
    best: tuple[float, float, Product, tuple[Slot, ...]] | None = None
    for product in (p for p in profile.products if p.kind == kind):
        slots = _best_slots(deck.size, product.trim, profile.bleed)
        if slots:
            area = product.trim[0] * product.trim[1]
            total = math.ceil(len(pieces) / len(slots)) * area
            if best is None or (total, area) < best[:2]:
                best = (total, area, product, slots)
    if best is None:
        return None
    _, _, product, slots = best
    slugs = tuple(tuple(pieces[i : i + len(slots)]) for i in range(0, len(pieces), len(slots)))
    return Plan(product, slots, slugs, profile.bleed)


def _best_slots(
    size: tuple[float, float], slug: tuple[float, float], bleed: float
) -> tuple[Slot, ...]:
    upright = _grid(size, slug, bleed, False)
    turned = _grid((size[1], size[0]), slug, bleed, True)
    return turned if len(turned) > len(upright) else upright


def _grid(
    size: tuple[float, float], slug: tuple[float, float], bleed: float, turned: bool
) -> tuple[Slot, ...]:
    """Cells of trim + 2 x bleed tiling the slug, the grid centred on it."""
    cw, ch = size[0] + 2 * bleed, size[1] + 2 * bleed
    cols, rows = math.floor(slug[0] / cw + 1e-9), math.floor(slug[1] / ch + 1e-9)
    ox, oy = (slug[0] - cols * cw) / 2, (slug[1] - rows * ch) / 2
    return tuple(
        Slot(ox + c * cw + bleed, oy + r * ch + bleed, size[0], size[1], turned)
        for r in range(rows)
        for c in range(cols)
    )


def back_of(deck: Deck, item: DeckItem) -> Face | None:
    return item.back if item.back is not None else deck.shared_back


# ------------------------------------------------------------------ the cut file


def cut_svg(plan: Plan, shape: tuple[str, float], pieces: int) -> str:
    """The SVG cut file of a slug holding `pieces` pieces: each piece's outline (its shape, at
    its trim) broken by nicks at the middle of each side (a circle: at four points)."""
    w, h = plan.product.trim
    nick = NICK[plan.product.kind]
    paths = [
        _outline(slot, shape, nick) for slot in plan.slots[:pieces]
    ]  # one <path> per piece, a subpath between each two nicks
    body = "\n".join(
        f'  <path d="{d}" fill="none" stroke="#000000" stroke-width="0.1"/>' for d in paths
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(w / MM_PER_IN)}in" '
        f'height="{_n(h / MM_PER_IN)}in" viewBox="0 0 {_n(w)} {_n(h)}">\n{body}\n</svg>\n'
    )


def _outline(slot: Slot, shape: tuple[str, float], nick: float) -> str:
    if shape[0] == "circle":
        return _circle(slot, nick)
    radius = shape[1] if shape[0] == "rounded" else 0.0
    return _rounded(slot, min(radius, slot.w / 2, slot.h / 2), nick)


def _rounded(s: Slot, r: float, nick: float) -> str:
    """Four subpaths, each from the nick in the middle of one side round a corner to the nick in
    the middle of the next."""
    x0, y0, x1, y1 = s.x, s.y, s.x + s.w, s.y + s.h
    mx, my, g = s.x + s.w / 2, s.y + s.h / 2, nick / 2
    arc = f"A {_n(r)} {_n(r)} 0 0 1" if r > 0 else "L"
    corners = (  # (start after a nick, before the corner, after the corner, end before a nick)
        ((mx + g, y0), (x1 - r, y0), (x1, y0 + r), (x1, my - g)),
        ((x1, my + g), (x1, y1 - r), (x1 - r, y1), (mx + g, y1)),
        ((mx - g, y1), (x0 + r, y1), (x0, y1 - r), (x0, my + g)),
        ((x0, my - g), (x0, y0 + r), (x0 + r, y0), (mx - g, y0)),
    )
    return " ".join(f"M {_p(a)} L {_p(b)} {arc} {_p(c)} L {_p(d)}" for a, b, c, d in corners)


def _circle(s: Slot, nick: float) -> str:
    r = min(s.w, s.h) / 2
    cx, cy = s.x + s.w / 2, s.y + s.h / 2
    half = nick / 2 / r  # radians each side of a nick
    parts = []
    for k in range(4):
        a, b = k * math.pi / 2 + half, (k + 1) * math.pi / 2 - half
        start = (cx + r * math.cos(a), cy + r * math.sin(a))
        end = (cx + r * math.cos(b), cy + r * math.sin(b))
        parts.append(f"M {_p(start)} A {_n(r)} {_n(r)} 0 0 1 {_p(end)}")
    return " ".join(parts)


def _p(point: tuple[float, float]) -> str:
    return f"{_n(point[0])} {_n(point[1])}"


def _n(value: float) -> str:
    return f"{round(value, 4):g}"


# ------------------------------------------------------------------ the slug images


@dataclass
class Slugged:
    """A group going onto slugs: its plan, and the shot (index) rasterising each distinct face
    at its trim plus the bleed."""

    deck: Deck
    plan: Plan
    folder: Path
    shot_of: dict[str, int]


def add_shots(
    deck: Deck, plan: Plan, profile: Profile, folder: Path, sheets: list[Sheet], shots: list[Shot]
) -> tuple[Slugged, list[list[object]]]:
    """Ask for each distinct face of the group at trim + 2 x bleed, and the manifest rows of its
    slugs: slug-NN-front.png, slug-NN-back.png (when the pieces have backs) and slug-NN-cut.svg,
    each uploaded once to the product."""
    page = (deck.size[0] + 2 * plan.bleed, deck.size[1] + 2 * plan.bleed)
    px = (round(page[0] / MM_PER_IN * profile.dpi), round(page[1] / MM_PER_IN * profile.dpi))
    shot_of: dict[str, int] = {}
    for item in deck.items:
        for face in (item.front, back_of(deck, item)):
            if face is not None and face.svg_key not in shot_of:
                shot_of[face.svg_key] = len(shots)
                shots.append(Shot(len(sheets), px, profile.dpi, None))
                sheets.append(Sheet(face, page))
    assert plan.product.pixels is not None  # a sheet product of an image profile has them
    w, h = plan.product.pixels
    label = f"{plan.product.name} ({len(plan.slots)} a slug)"
    rows: list[list[object]] = []
    backed = any(back_of(deck, i) is not None for i in deck.items)
    for n, pieces in enumerate(plan.slugs, 1):
        ids = " ".join(sorted({p.id for p in pieces}))
        for side in ("front", "back") if backed else ("front",):
            rows.append(
                [
                    f"{deck.folder}/slug-{n:02d}-{side}.png",
                    deck.name,
                    ids,
                    side,
                    1,
                    w,
                    h,
                    profile.dpi,
                    label,
                ]
            )
        rows.append(
            [f"{deck.folder}/slug-{n:02d}-cut.svg", deck.name, ids, "cut", 1, "", "", "", label]
        )
    return Slugged(deck, plan, folder / deck.folder, shot_of), rows


def write_slugs(slugged: Slugged, images: list[Image.Image | None], dpi: int) -> None:
    """Paste each piece's image into its slot of each slug, front and (mirrored) back, and write
    the slug's cut file."""
    deck, plan = slugged.deck, slugged.plan
    assert plan.product.pixels is not None
    mm = dpi / MM_PER_IN
    front_of = next((i.front for i in deck.items if i.front is not None), None)
    shape = front_of.shape if front_of is not None else ("rect", 0.0)
    for n, pieces in enumerate(plan.slugs, 1):
        front = Image.new("RGB", plan.product.pixels, "white")
        back = Image.new("RGB", plan.product.pixels, "white")
        backed = False
        for slot, item in zip(plan.slots, pieces):
            left, top = round((slot.x - plan.bleed) * mm), round((slot.y - plan.bleed) * mm)
            if item.front is not None:
                _paste(
                    front,
                    images[slugged.shot_of[item.front.svg_key]],
                    left,
                    top,
                    Image.Transpose.ROTATE_90 if slot.turned else None,
                )
            face = back_of(deck, item)
            if face is not None:
                backed = True
                mirrored = round((plan.product.trim[0] - slot.x - slot.w - plan.bleed) * mm)
                _paste(
                    back,
                    images[slugged.shot_of[face.svg_key]],
                    mirrored,
                    top,
                    Image.Transpose.ROTATE_270 if slot.turned else None,
                )
        stem = slugged.folder / f"slug-{n:02d}"
        front.save(f"{stem}-front.png", dpi=(dpi, dpi))
        if backed:
            back.save(f"{stem}-back.png", dpi=(dpi, dpi))
        Path(f"{stem}-cut.svg").write_text(cut_svg(plan, shape, len(pieces)), encoding="utf-8")


def _paste(
    slug: Image.Image,
    piece: Image.Image | None,
    left: int,
    top: int,
    turn: Image.Transpose | None,
) -> None:
    assert piece is not None  # a face rasterised without a path comes back
    image = piece.convert("RGBA")
    if turn is not None:
        image = image.transpose(turn)
    slug.paste(image, (left, top), image)
