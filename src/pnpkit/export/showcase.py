"""Store-page images (`build --profile showcase`): a fanned hand, a grid of every face, a hero per
board.

Rendered from the same faces as the PDF: each distinct front is drawn trim only
(a cut piece shows no bleed) into a PDF and rasterised with pypdfium2 on
white paper, cut to the piece's outline (rounded corners for cards, the hexagon
for hex tiles, the rectangle otherwise), laid out with Pillow on a transparent
or coloured background with a soft drop shadow, and scaled to exactly the
profile's `width`. Per group, into OUT/<game>/showcase/<lang>/:

* `NN-<group>-hand.png` (cards): up to `hand` distinct fronts fanned as held;
* `NN-<group>-grid.png` (every group that is not a board or sheet): every
  distinct front in rows;
* `NN-<group>-<item>-hero.png` (boards and sheets): the front alone.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw, ImageFilter

from pnpkit.export import facepages
from pnpkit.kinds import hexes
from pnpkit.pack.model import Face

if TYPE_CHECKING:  # export imports this module
    from pnpkit.export.decks import Deck
    from pnpkit.export.profile import Profile

CARD_CORNER = 3.175  # mm: the 1/8 in corner of a playing card
TILE_CORNER = 0.8  # mm: a die-cut tile's slight rounding
FAN_STEP = 7.0  # degrees between neighbouring cards of a hand
SHADOW = (0, 0, 0, 110)  # colour of the drop shadow under every piece
PNG_COMPRESS = 6


def write(decks: list[Deck], profile: Profile, folder: Path) -> list[Path]:
    """Every image of one language's decks; returns the files written."""
    written = []
    for deck in decks:
        fronts = _distinct([item.front for item in deck.items if item.front is not None])
        if not fronts:
            continue
        stem = folder / deck.folder
        if deck.kind in ("board", "sheet"):
            for item in deck.items:
                if item.front is not None:
                    written.append(
                        _save(hero(item.front, profile), Path(f"{stem}-{item.id}-hero.png"))
                    )
            continue
        held = _hand(deck, profile.hand)
        if deck.kind == "card" and len(held) > 1:
            written.append(_save(hand(held, profile), Path(f"{stem}-hand.png")))
        written.append(_save(grid(fronts, profile), Path(f"{stem}-grid.png")))
    return written


def _hand(deck: Deck, size: int) -> list[Face]:
    """The first cards one would draw: distinct fronts first, then copies, up to `size`."""
    fronts = _distinct([item.front for item in deck.items if item.front is not None])
    copies = [
        item.front for item in deck.items if item.front is not None for _ in range(item.count - 1)
    ]
    return (fronts + copies)[:size]


def _distinct(faces: list[Face]) -> list[Face]:
    seen, out = set(), []
    for face in faces:
        if face.svg not in seen:
            seen.add(face.svg)
            out.append(face)
    return out


def _save(image: Image.Image, path: Path) -> Path:
    image.save(path, compress_level=PNG_COMPRESS)
    return path


# ------------------------------------------------------------------ the three layouts


def hand(faces: list[Face], profile: Profile) -> Image.Image:
    """Cards fanned about a point below the hand, the first on the left, each over the one
    before."""
    pieces = pieces_of(faces, profile.width * 0.5)
    w, h = pieces[0].size
    pivot_below = h * 1.6  # distance from a card's centre to the point the fan turns about
    angles = [FAN_STEP * (i - (len(pieces) - 1) / 2) for i in range(len(pieces))]
    layer = []
    for piece, angle in zip(pieces, angles):
        turned = piece.rotate(-angle, resample=Image.Resampling.BICUBIC, expand=True)
        cx = pivot_below * math.sin(math.radians(angle))
        cy = -pivot_below * math.cos(math.radians(angle)) + pivot_below
        layer.append((turned, cx - turned.width / 2, cy - turned.height / 2))
    return _compose(layer, profile)


def grid(faces: list[Face], profile: Profile) -> Image.Image:
    """Every distinct face in rows, as near to a 3:2 picture as the count allows."""
    n = len(faces)
    aspect = faces[0].size[0] / faces[0].size[1]
    cols = max(1, min(n, round(math.sqrt(n * 1.5 / aspect))))
    pieces = pieces_of(faces, profile.width / cols)
    cell_w = max(p.width for p in pieces) * 1.08
    cell_h = max(p.height for p in pieces) * 1.08
    layer = [
        (
            p,
            (i % cols) * cell_w + (cell_w - p.width) / 2,
            (i // cols) * cell_h + (cell_h - p.height) / 2,
        )
        for i, p in enumerate(pieces)
    ]
    return _compose(layer, profile)


def hero(face: Face, profile: Profile) -> Image.Image:
    """One board or sheet, whole."""
    [piece] = pieces_of([face], profile.width)
    return _compose([(piece, 0.0, 0.0)], profile)


# ------------------------------------------------------------------ pieces and the picture


def pieces_of(faces: list[Face], width_px: float) -> list[Image.Image]:
    """Each face's trim as an RGBA image about width_px wide, cut to the piece's outline."""
    sizes = [
        (max(8, round(width_px)), max(8, round(width_px * f.size[1] / f.size[0]))) for f in faces
    ]
    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp) / "pieces.pdf"
        facepages.write_faces_pdf([facepages.Sheet(f, f.size) for f in faces], pdf, "showcase")
        shots = [facepages.Shot(i, px, 72.0) for i, px in enumerate(sizes)]
        images = facepages.rasterise(pdf, shots)
    out = []
    for face, px, shot in zip(faces, sizes, images):
        assert shot is not None  # a shot without a path comes back as an image
        image = shot.convert("RGBA")
        image.putalpha(outline(face, px))
        out.append(image)
    return out


def outline(face: Face, px: tuple[int, int], supersample: int = 3) -> Image.Image:
    """The piece's shape as an antialiased mask: a card's rounded corners, a hex, or a slightly
    rounded rectangle."""
    w, h = px[0] * supersample, px[1] * supersample
    scale = w / face.size[0]  # pixels per mm
    mask = Image.new("L", (w, h), 0)
    draw = ImageDraw.Draw(mask)
    if face.kind == "hex":
        try:
            shape = hexes.shape_of(face.size)
            points = hexes.corners(face.size[0] / 2, face.size[1] / 2, shape.flat, shape.pointy)
            draw.polygon([(x * scale, y * scale) for x, y in points], fill=255)
        except hexes.HexSizeError:
            draw.rectangle((0, 0, w, h), fill=255)
    else:
        radius = (CARD_CORNER if face.kind == "card" else TILE_CORNER) * scale
        draw.rounded_rectangle((0, 0, w - 1, h - 1), radius=radius, fill=255)
    return mask.reduce(supersample)  # a box filter: antialiased edges, far quicker than a resize


def _compose(layer: list[tuple[Image.Image, float, float]], profile: Profile) -> Image.Image:
    """Pieces (image, left, top) in drawing order on the background, each with its shadow,
    scaled to the width."""
    left = min(x for _, x, _ in layer)
    top = min(y for _, _, y in layer)
    right = max(x + p.width for p, x, _ in layer)
    bottom = max(y + p.height for p, _, y in layer)
    size = max(right - left, bottom - top)
    blur = max(2.0, size * 0.012)
    offset = blur * 0.8
    margin = blur * 3 + offset
    canvas = Image.new(
        "RGBA", (round(right - left + 2 * margin), round(bottom - top + 2 * margin)), (0, 0, 0, 0)
    )
    pad = round(blur * 3)
    for piece, x, y in layer:
        at = (round(x - left + margin), round(y - top + margin))
        shadow = Image.new(
            "RGBA", (piece.width + 2 * pad, piece.height + 2 * pad), SHADOW[:3] + (0,)
        )
        alpha = Image.new("L", shadow.size, 0)
        alpha.paste(piece.getchannel("A").point(lambda a: a * SHADOW[3] // 255), (pad, pad))
        shadow.putalpha(alpha.filter(ImageFilter.GaussianBlur(blur)))
        canvas.alpha_composite(shadow, (at[0] + round(offset) - pad, at[1] + round(offset) - pad))
        canvas.alpha_composite(piece, at)
    height = max(1, round(canvas.height * profile.width / canvas.width))
    canvas = canvas.resize((profile.width, height), Image.Resampling.LANCZOS, reducing_gap=2.0)
    if profile.background != "transparent":
        back = Image.new("RGBA", canvas.size, profile.background)
        back.alpha_composite(canvas)
        canvas = back.convert("RGB")
    return canvas
