"""Tabletop Simulator: deck sheets, single images and a saved object that spawns them.

Cards become deck sheets: at most `columns` x `rows` cells (10 x 7) and at most
`max_pixels` (4096) a side, every cell the same whole number of pixels, and the
last cell of each sheet holding the "hidden" image TTS shows for cards in a hand
(BackIsHidden is set too, so either reading works). A card printed several
times is one cell that the deck lists several times. A back shared by the deck
is its own image; different backs make back sheets laid out like the fronts.
Tiles, tokens, boards and standees are single images. TTS shows the whole
image, so every image is the trim only: no bleed (print-standards.md §5).

The JSON is a TTS saved object (Saves/Saved Objects/<name>.json): one object
per group, side by side. Sizes in TTS are approximate: a scale-1 card is taken
to be poker-sized and a scale-1 tile `tile_width` wide.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, cast

from PIL import Image

from pnpkit.export.decks import Deck, DeckItem, face_stem
from pnpkit.export.facepages import Sheet, Shot, rasterise_faces
from pnpkit.export.profile import MM_PER_IN, Profile
from pnpkit.export.rastercache import RasterCache, combine, key
from pnpkit.pack.model import Face, Pack

Url = Callable[[Path], str]  # a file in the export folder -> the URL the JSON names it by
Piece = tuple[DeckItem, Path | None, Path | None]  # (item, front image, back image)
Cut = tuple[Path, tuple[int, int, int, int], bool]  # (image path, pixel box, upside down)
Atlas = tuple[Path, list[Path], int]  # (a die's texture, its face images in net order, cell px)

POKER = (63.5, 88.9)  # mm: what a scale-1 TTS card stands for
ONE = MappingProxyType({"scaleX": 1.0, "scaleY": 1.0, "scaleZ": 1.0})
TILE_TYPES = MappingProxyType(
    {"tile": 0, "hex-tile": 1, "round-tile": 2, "rounded-tile": 3}
)  # CustomTile.Type
HIDDEN_GREY = (128, 128, 128)


@dataclass
class Grid:
    """One deck sheet: which items, its grid, and its cell size in pixels."""

    items: list[int]  # indexes into the deck's items with a front
    columns: int
    rows: int
    cell: tuple[int, int]
    key: int = 0  # the CustomDeck key (unique in the save); card ids are key * 100 + slot

    @property
    def hidden_slot(self) -> int:
        return self.columns * self.rows - 1


@dataclass
class Plan:
    """Everything to rasterise for one language: faces PDF pages, then how to assemble them."""

    sheets: list[Sheet] = field(default_factory=list)  # one per page of the faces PDF
    shots: list[Shot] = field(default_factory=list)  # one per page
    cells: dict[int, tuple[Path, int, int]] = field(
        default_factory=dict
    )  # page index -> (sheet image path, x, y) for cells of deck sheets
    cuts: dict[int, list[Cut]] = field(
        default_factory=dict
    )  # page index -> [(image path, pixel box, upside down)] for figures
    greys: dict[Path, list[tuple[int, int, int, int]]] = field(
        default_factory=dict
    )  # sheet image path -> [(x, y, w, h)] of hidden cells painted grey

    def add(self, face: Face, px: tuple[int, int], dpi: float, path: Path | None) -> int:
        self.shots.append(Shot(len(self.sheets), px, dpi, path))
        self.sheets.append(Sheet(face, face.size))  # trim only: the page is the face without bleed
        return len(self.sheets) - 1


def write(
    pack: Pack,
    lang: str,
    decks: list[Deck],
    profile: Profile,
    folder: Path,
    final: Path,
    raster: RasterCache | None = None,
) -> None:
    """Write the images and <game>-<lang>.json into folder; URLs point at `final` (where folder
    ends up)."""
    plan = Plan()
    canvases: dict[Path, Image.Image] = {}
    atlases: list[Atlas] = []
    named: set[Path] = set()  # the files the save names
    url = _urls(profile, folder, final, named)
    objects = _objects(pack, decks, profile, folder, plan, canvases, url, atlases)
    _assemble(plan, canvases, folder, raster or RasterCache(None))
    for texture, faces, cell in atlases:
        _atlas(texture, faces, cell)
    (folder / f"{pack.id}-{lang}.json").write_text(
        json.dumps(_save(pack.name[lang], objects), indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    if profile.image_url:
        _to_upload(named, folder)


def _objects(
    pack: Pack,
    decks: list[Deck],
    profile: Profile,
    folder: Path,
    plan: Plan,
    canvases: dict[Path, Image.Image],
    url: Url,
    atlases: list[Atlas],
) -> list[dict[str, Any]]:
    """One TTS object per group that has fronts, side by side along x; planning what to
    rasterise into `plan`, `canvases` and `atlases`."""
    objects: list[dict[str, Any]] = []
    keys = iter(range(1, 10_000))
    x = 0.0
    for deck in decks:
        kind = _shaped(profile.objects[deck.kind], pack.groups[deck.name].shape[0])
        if not any(i.front is not None for i in deck.items):
            continue
        if kind == "deck":
            obj, width = _deck(deck, profile, folder, plan, canvases, keys, url)
        elif kind == "die" and die_ready(deck):
            obj, width = _dice(deck, profile, folder, plan, url, atlases)
        elif kind in ("image", "die"):
            _singles(deck, profile, folder, plan)
            continue
        else:
            obj, width = _pieces(
                deck, kind, profile, folder, plan, url, pack.groups[deck.name].base
            )
        obj["Transform"]["posX"] = round(x + width / 2, 3)
        x += width + 1.0
        objects.append(obj)
    return objects


def _save(name: str, objects: list[dict[str, Any]]) -> dict[str, Any]:
    """A TTS saved object named `name` holding `objects`."""
    return {
        "SaveName": f"{name}",
        "GameMode": "",
        "Gravity": 0.5,
        "PlayArea": 0.5,
        "Date": "",
        "Table": "",
        "Sky": "",
        "Note": "",
        "Rules": "",
        "XmlUI": "",
        "LuaScript": "",
        "LuaScriptState": "",
        "ObjectStates": objects,
        "TabStates": {},
        "VersionNumber": "",
    }


def _to_upload(named: set[Path], folder: Path) -> None:
    """With image_url, the files the save names go to upload/<lang>/ beside the language
    folders: exactly what is to be put under the base URL, and nothing else."""
    upload = folder.parent / "upload" / folder.name
    for path in sorted(named):
        target = upload / path.relative_to(folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(path, target)
    for sub in sorted(folder.iterdir()):  # group folders left empty by the move
        if sub.is_dir() and not any(sub.iterdir()):
            sub.rmdir()


# A tile of a group whose shape pnpkit knows comes in with that outline, not as a square.
SHAPED_TILES = MappingProxyType(
    {"circle": "round-tile", "rounded": "rounded-tile", "hex": "hex-tile"}
)


def _shaped(kind: str, shape: str) -> str:
    return SHAPED_TILES.get(shape, kind) if kind == "tile" else kind


def _assemble(
    plan: Plan, canvases: dict[Path, Image.Image], folder: Path, raster: RasterCache
) -> None:
    """Rasterise the shots, paste the cells into their deck sheets and cut the figures out.
    A sheet or a figure that is as before is copied from the cache, and a face all of whose
    uses are is not rasterised at all."""
    keys = {path: _canvas_key(path, canvas, plan) for path, canvas in canvases.items()}
    done = {path for path, k in keys.items() if _copied(raster, k, path)}
    cut_keys = {
        index: [_cut_key(plan, index, box, turned) for _, box, turned in cuts]
        for index, cuts in plan.cuts.items()
    }
    for index, cuts in plan.cuts.items():
        for (path, _, _), k in zip(cuts, cut_keys[index]):
            if _copied(raster, k, path):
                done.add(path)
    todo = [i for i in range(len(plan.shots)) if _needed(plan, i, done)]
    images = rasterise_faces(plan.sheets, [plan.shots[i] for i in todo], folder, raster)
    for index, image in zip(todo, images):
        if index in plan.cells:
            path, cx, cy = plan.cells[index]
            assert image is not None  # a cell's shot has no path: its image comes back
            canvases[path].paste(image, (cx, cy))
        for (path, box, upside_down), k in zip(plan.cuts.get(index, ()), cut_keys.get(index, ())):
            if path not in done:
                assert image is not None  # a figure's shot has no path: its image comes back
                part = image.crop(box)
                (part.rotate(180) if upside_down else part).save(path, compress_level=6)
                raster.put(k, source=path)
    for path, canvas in canvases.items():
        if path not in done:
            canvas.save(path, compress_level=6)
            raster.put(keys[path], source=path)


def _copied(raster: RasterCache, k: str | None, path: Path) -> bool:
    """Copy path from the cache if it holds k; whether it did."""
    hit = raster.get(k)
    if hit is None:
        return False
    shutil.copyfile(hit, path)
    return True


def _needed(plan: Plan, index: int, done: set[Path]) -> bool:
    """Whether shot `index` must be drawn: its own file, or a sheet or figure not served whole."""
    if plan.shots[index].path is not None:
        return True  # rasterise_faces serves it from the cache if it can
    uses = [plan.cells[index][0]] if index in plan.cells else []
    uses += [path for path, _, _ in plan.cuts.get(index, ())]
    return any(path not in done for path in uses)


def _cut_key(plan: Plan, index: int, box: tuple[int, int, int, int], turned: bool) -> str | None:
    shot = plan.shots[index]
    return combine([key(plan.sheets[shot.page], shot)], repr(("tts figure", box, turned)))


def _canvas_key(path: Path, canvas: Image.Image, plan: Plan) -> str | None:
    """What a deck sheet's pixels depend on: its size, the grey hidden cells painted on it
    before the faces, and each cell's face and place."""
    painted = (canvas.mode, canvas.size, "white", HIDDEN_GREY, plan.greys.get(path, []))
    parts: list[object] = [repr(painted)]
    for index, (target, cx, cy) in sorted(plan.cells.items()):
        if target == path:
            shot = plan.shots[index]
            parts += [key(plan.sheets[shot.page], shot), repr((cx, cy))]
    return combine(parts, "tts sheet")


def _urls(profile: Profile, folder: Path, final: Path, named: set[Path]) -> Url:
    """file path in folder -> the URL the JSON names it by; `named` collects the files."""

    def url(path: Path) -> str:
        named.add(path)
        rel = path.relative_to(folder).as_posix()
        if profile.image_url:
            return f"{profile.image_url.rstrip('/')}/{final.name}/{rel}"
        return (final.resolve() / rel).as_uri()

    return url


# ------------------------------------------------------------------ decks


def sheet_grids(n: int, size: tuple[float, float], profile: Profile) -> list[Grid]:
    """Split n distinct faces over sheets; each takes the smallest grid that holds its faces
    plus the hidden slot."""
    columns, rows, max_px = profile.sheet
    per_sheet = columns * rows - 1
    grids = []
    for start in range(0, n, per_sheet):
        count = min(per_sheet, n - start)
        slots = count + 1
        options = [
            (c, math.ceil(slots / c)) for c in range(1, columns + 1) if math.ceil(slots / c) <= rows
        ]
        # fewest cells, then the squarest sheet in pixels
        c, r = min(
            options,
            key=lambda cr: (cr[0] * cr[1], abs(math.log(cr[0] * size[0] / (cr[1] * size[1])))),
        )
        grids.append(
            Grid(list(range(start, start + count)), c, r, cell_pixels(size, c, r, profile))
        )
    return grids


def cell_pixels(
    size: tuple[float, float], columns: int, rows: int, profile: Profile
) -> tuple[int, int]:
    """A cell at the profile's dpi, shrunk (keeping the shape) until the sheet fits max_pixels a
    side."""
    max_px = profile.sheet[2]
    w, h = (s / MM_PER_IN * profile.dpi for s in size)
    f = min(1.0, max_px / (columns * w), max_px / (rows * h))
    return max(1, math.floor(w * f)), max(1, math.floor(h * f))


def _deck(
    deck: Deck,
    profile: Profile,
    folder: Path,
    plan: Plan,
    canvases: dict[Path, Image.Image],
    keys: Iterator[int],
    url: Url,
) -> tuple[dict[str, Any], float]:
    items = [i for i in deck.items if i.front is not None]
    grids = sheet_grids(len(items), deck.size, profile)
    shared = _shared_back(deck)
    unique_backs = shared is None and any(i.back is not None for i in items)
    sheets = _Sheets(deck, folder, plan, canvases, shared, unique_backs)
    back_path = None if unique_backs else sheets.back_image(grids[0].cell)
    entries, cards = {}, []
    for k, grid in enumerate(grids, 1):
        grid.key = next(keys)
        face_path, back_sheet = sheets.new_sheets(grid, k)
        cards += sheets.fill(grid, items, face_path, back_sheet)
        entries[grid.key] = {
            "FaceURL": url(face_path),
            "BackURL": url(cast(Path, back_sheet or back_path)),  # one of them is set
            "NumWidth": grid.columns,
            "NumHeight": grid.rows,
            "BackIsHidden": True,
            "UniqueBack": unique_backs,
            "Type": 0,
        }
    return _deck_object(deck, cards, entries)


Card = tuple[DeckItem, int, int]  # (item, card id, the key of its CustomDeck)


@dataclass
class _Sheets:
    """A deck's sheet images being planned: the cells to rasterise into them, or paint grey."""

    deck: Deck
    folder: Path
    plan: Plan
    canvases: dict[Path, Image.Image]
    shared: Face | None  # the back every card shows, if they share one
    unique_backs: bool  # cards with backs of their own: back sheets laid out like the fronts

    def back_image(self, cell: tuple[int, int]) -> Path:
        """The back as its own image (plain grey when the cards have none)."""
        back_path = self.folder / f"{self.deck.folder}-back.png"
        if self.shared is not None:
            self.plan.add(self.shared, cell, _dpi(self.deck, cell), back_path)
        else:
            Image.new("RGB", cell, HIDDEN_GREY).save(back_path)
        return back_path

    def new_sheets(self, grid: Grid, k: int) -> tuple[Path, Path | None]:
        """The k-th face sheet, and back sheet if the cards have their own backs, as white
        canvases."""
        face_path = self.folder / f"{self.deck.folder}-faces-{k}.png"
        back_sheet = (
            self.folder / f"{self.deck.folder}-backs-{k}.png" if self.unique_backs else None
        )
        for path in filter(None, (face_path, back_sheet)):
            self.canvases[path] = Image.new(
                "RGB", (grid.columns * grid.cell[0], grid.rows * grid.cell[1]), (255, 255, 255)
            )
        return face_path, back_sheet

    def fill(
        self, grid: Grid, items: list[DeckItem], face_path: Path, back_sheet: Path | None
    ) -> list[Card]:
        """The grid's cards in their cells (backs too on a back sheet), then the hidden image."""
        cards = []
        for slot, index in enumerate(grid.items):
            cx, cy = _corner(grid, slot)
            item = items[index]
            assert item.front is not None  # items holds the items with a front
            self.cell(item.front, grid, face_path, cx, cy)
            if back_sheet is not None and item.back is not None:
                self.cell(item.back, grid, back_sheet, cx, cy)
            cards.append((item, grid.key * 100 + slot, grid.key))
        self.hidden(grid, face_path)
        return cards

    def hidden(self, grid: Grid, face_path: Path) -> None:
        """The hidden image goes in the last cell of the grid: the back, or grey."""
        cx, cy = _corner(grid, grid.hidden_slot)
        if self.shared is not None:
            self.cell(self.shared, grid, face_path, cx, cy)
        else:
            self.canvases[face_path].paste(Image.new("RGB", grid.cell, HIDDEN_GREY), (cx, cy))
            self.plan.greys.setdefault(face_path, []).append((cx, cy, *grid.cell))

    def cell(self, face: Face, grid: Grid, path: Path, cx: int, cy: int) -> None:
        """Rasterise face into the cell at (cx, cy) of the sheet image at path."""
        index = self.plan.add(face, grid.cell, _dpi(self.deck, grid.cell), None)
        self.plan.cells[index] = (path, cx, cy)


def _corner(grid: Grid, slot: int) -> tuple[int, int]:
    """The pixel corner of a slot's cell in its sheet."""
    return (slot % grid.columns) * grid.cell[0], (slot // grid.columns) * grid.cell[1]


def _deck_object(
    deck: Deck, cards: list[Card], entries: dict[int, dict[str, Any]]
) -> tuple[dict[str, Any], float]:
    """The deck's cards, each copy its own Card, in a DeckCustom (a lone card stands alone)."""
    sideways = deck.size[0] > deck.size[1]
    scale = {
        "scaleX": round(deck.size[0] / POKER[0], 4),
        "scaleY": 1.0,
        "scaleZ": round(deck.size[1] / POKER[1], 4),
    }
    contained, ids = [], []
    for item, card_id, deck_key in cards:
        for copy in range(item.count):
            ids.append(card_id)
            card = _object("Card", f"{deck.name}/{item.id}/{copy}", item.id, scale, face_down=True)
            card.update(
                CardID=card_id,
                CustomDeck={str(deck_key): entries[deck_key]},
                SidewaysCard=sideways,
                Hands=True,
            )
            contained.append(card)
    width = deck.size[0] / MM_PER_IN
    if len(contained) == 1:
        return contained[0], width
    obj = _object("DeckCustom", deck.name, deck.name, scale, face_down=True)
    obj.update(
        DeckIDs=ids,
        CustomDeck={str(k): v for k, v in entries.items()},
        ContainedObjects=contained,
        SidewaysCard=sideways,
        HideWhenFaceDown=True,
        Hands=True,
    )
    return obj, width


def _shared_back(deck: Deck) -> Face | None:
    """The back all cards of the deck show (also when the deck is a single card)."""
    backs = [i.back for i in deck.items if i.front is not None]
    if backs and all(b is not None for b in backs) and len({b.svg for b in backs if b}) == 1:
        return backs[0]
    return None


def _dpi(deck: Deck, px: tuple[int, int]) -> float:
    return round(px[0] / (deck.size[0] / MM_PER_IN), 2)


# ------------------------------------------------------------------ tiles, tokens, boards, standees


def single_pixels(size: tuple[float, float], profile: Profile) -> tuple[int, int]:
    """A single image at the profile's dpi, shrunk until its long side is at most max_pixels."""
    max_px = profile.sheet[2]
    w, h = (s / MM_PER_IN * profile.dpi for s in size)
    f = min(1.0, max_px / max(w, h))
    return max(1, math.floor(w * f)), max(1, math.floor(h * f))


def _singles(deck: Deck, profile: Profile, folder: Path, plan: Plan) -> list[Piece]:
    """Each item's front and back as its own PNG in NN-group/; returns (item, front path, back
    path)."""
    px = single_pixels(deck.size, profile)
    (folder / deck.folder).mkdir(exist_ok=True)
    out: list[Piece] = []
    for item in deck.items:
        paths: list[Path | None] = []
        for side in ("front", "back"):
            face = getattr(item, side)
            path = (
                folder / deck.folder / f"{face_stem(item, side)}.png" if face is not None else None
            )
            if face is not None:
                plan.add(face, px, _dpi(deck, px), path)
            paths.append(path)
        out.append((item, paths[0], paths[1]))
    return out


def _figures(deck: Deck, base: float, profile: Profile, folder: Path, plan: Plan) -> list[Piece]:
    """A fold-over standee's two panels cut out of its print layout: the upright panel is the
    figure's front, the upside-down one (turned) its back. Returns (item, front path, back path)."""
    px = single_pixels(deck.size, profile)
    h = deck.size[1]
    mm = px[1] / h
    fold = 0.3  # mm: the fold lines lie on the panels' edges; the figure leaves them out
    top, bottom = round((base + fold) * mm), round((h - base - fold) * mm)
    above, below = round((h / 2 - fold) * mm), round((h / 2 + fold) * mm)
    (folder / deck.folder).mkdir(exist_ok=True)
    out: list[Piece] = []
    for item in deck.items:
        if item.front is None:
            continue
        paths = [
            folder / deck.folder / f"{face_stem(item, side)}.png" for side in ("front", "back")
        ]
        index = plan.add(item.front, px, _dpi(deck, px), None)
        plan.cuts[index] = [
            (paths[0], (0, below, px[0], bottom), False),
            (paths[1], (0, top, px[0], above), True),
        ]
        out.append((item, paths[0], paths[1]))
    return out


def _pieces(
    deck: Deck, kind: str, profile: Profile, folder: Path, plan: Plan, url: Url, base: float = 0.0
) -> tuple[dict[str, Any], float]:
    """Tiles or figurines, one per printed copy; several copies go into a bag named after the group.
    A fold-over standee (base > 0) becomes a figure of its panels, not of its whole print layout."""
    scale = round(deck.size[0] / profile.tile_width, 4)
    scales = {"scaleX": scale, "scaleY": 1.0, "scaleZ": scale}
    pieces = []
    cut = kind == "figurine" and base > 0
    for item, front, back in (
        _figures(deck, base, profile, folder, plan)
        if cut
        else _singles(deck, profile, folder, plan)
    ):
        if front is None:
            continue
        image = {
            "ImageURL": url(front),
            "ImageSecondaryURL": url(back) if back else "",
            "ImageScalar": 1.0,
            "WidthScale": 0.0,
        }
        if kind != "figurine":
            image["CustomTile"] = {
                "Type": TILE_TYPES[kind],
                "Thickness": 0.2,
                "Stackable": True,
                "Stretch": False,
            }
        for copy in range(item.count):
            piece = _object(
                "Figurine_Custom" if kind == "figurine" else "Custom_Tile",
                f"{deck.name}/{item.id}/{copy}",
                item.id,
                scales,
            )
            piece["CustomImage"] = dict(image)
            pieces.append(piece)
    width = deck.size[0] / MM_PER_IN
    if len(pieces) == 1:
        return pieces[0], width
    bag = _object("Bag", deck.name, deck.name, ONE)
    bag["ContainedObjects"] = pieces
    return bag, max(width, 2.0)


# ------------------------------------------------------------------ dice


def die_ready(deck: Deck) -> bool:
    """Whether every die of a die group has a net whose squares its template marks
    (dice.die_squares); otherwise the group is exported as images, with a warning."""
    from pnpkit.kinds.dice import DieError, die_squares

    try:
        for item in deck.items:
            if item.front is not None:
                die_squares(item.front.svg)
    except DieError:
        return False
    return True


def _dice(
    deck: Deck, profile: Profile, folder: Path, plan: Plan, url: Url, atlases: list[Atlas]
) -> tuple[dict[str, Any], float]:
    """Each die a Custom_Model of type Dice (ttsdice): its net rasterised with each square
    `cell` px at the profile's dpi, the squares cut out and laid into a texture, an OBJ cube
    textured by it, RotationValues; several dice go into a bag named after the group."""
    from pnpkit.export import ttsdice
    from pnpkit.kinds.dice import die_squares

    (folder / deck.folder).mkdir(exist_ok=True)
    dice, side = [], 0.0
    for item in deck.items:
        if item.front is None:
            continue
        squares = die_squares(item.front.svg)
        side = squares[0].side
        cell = max(1, round(side / MM_PER_IN * profile.dpi))
        k = cell / side  # pixels per mm
        stem = f"{item.number:03d}-{item.id}"
        faces = [folder / deck.folder / f"{stem}-face-{n}.png" for n in range(1, 7)]
        index = plan.add(
            item.front, (round(deck.size[0] * k), round(deck.size[1] * k)), profile.dpi, None
        )
        plan.cuts[index] = [
            (
                path,
                (round(sq.x * k), round(sq.y * k), round(sq.x * k) + cell, round(sq.y * k) + cell),
                False,
            )
            for path, sq in zip(faces, squares)
        ]
        texture, mesh = (
            folder / deck.folder / f"{stem}-texture.png",
            folder / deck.folder / f"{stem}.obj",
        )
        mesh.write_text(ttsdice.obj_text(squares, item.id), encoding="utf-8")
        atlases.append((texture, faces, cell))
        for copy in range(item.count):
            die = _object("Custom_Model", f"{deck.name}/{item.id}/{copy}", item.id, ONE)
            die["CustomMesh"] = ttsdice.custom_mesh(url(mesh), url(texture))
            die["RotationValues"] = ttsdice.rotation_values(squares)
            dice.append(die)
    width = side / MM_PER_IN
    if len(dice) == 1:
        return dice[0], width
    bag = _object("Bag", deck.name, deck.name, ONE)
    bag["ContainedObjects"] = dice
    return bag, max(width, 2.0)


def _atlas(texture: Path, faces: list[Path], cell: int) -> None:
    """A die's texture: its six faces in the cells ttsdice's texture coordinates name."""
    from pnpkit.export import ttsdice

    atlas = Image.new("RGB", (ttsdice.COLUMNS * cell, ttsdice.ROWS * cell), (255, 255, 255))
    for n, path in enumerate(faces):
        with Image.open(path) as face:
            atlas.paste(face.convert("RGB"), ttsdice.atlas_cell(n, cell)[:2])
        path.unlink()  # the texture is what TTS loads (the raster cache keeps the face)
    atlas.save(texture, compress_level=6)


def _object(
    name: str, ident: str, nickname: str, scale: Mapping[str, float], face_down: bool = False
) -> dict[str, Any]:
    """The fields every TTS object carries; the GUID is derived from `ident`, so output is
    reproducible."""
    return {
        "GUID": hashlib.sha1(ident.encode("utf-8")).hexdigest()[:6],
        "Name": name,
        "Transform": {
            "posX": 0.0,
            "posY": 1.0,
            "posZ": 0.0,
            "rotX": 0.0,
            "rotY": 180.0,
            "rotZ": 180.0 if face_down else 0.0,
            **scale,
        },
        "Nickname": nickname,
        "Description": "",
        "GMNotes": "",
        "ColorDiffuse": {"r": 1.0, "g": 1.0, "b": 1.0},
        "Locked": False,
        "Grid": True,
        "Snap": True,
        "Autoraise": True,
        "Sticky": True,
        "Tooltip": True,
        "LuaScript": "",
        "LuaScriptState": "",
        "XmlUI": "",
    }
