"""Export a built kit for a print-on-demand service or a virtual tabletop (`build --profile NAME`).

Every face is drawn one per page into a PDF whose page is the face's trim plus
the profile's bleed, TrimBox and BleedBox set. That PDF is the deliverable of
the page services (DriveThruCards, PrintNinja), and it is also the source the
PNGs of the image services (The Game Crafter, MakePlayingCards, Tabletop
Simulator) are rasterised from with pypdfium2, so what you see is what prints.

Faces are drawn with the pack's bleed and never stretched: when a profile wants
more bleed than the art has, a located warning says so and the difference stays
blank. Output goes to OUT/<game>/<profile>/<lang>/, names that sort in deck
order: NN-<group>/NNNa-<item>-front.png, NNNb-<item>-back.png, back.png.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pnpkit.build import output
from pnpkit.errors import Location, Problem
from pnpkit.export import facepages, punchout, rastercache
from pnpkit.export.decks import Deck, face_stem, group_faces
from pnpkit.export.facepages import Sheet, Shot, rasterise_faces
from pnpkit.export.profile import MM_PER_IN, Product, Profile, difference
from pnpkit.export.rastercache import RasterCache, combine, sheet_key
from pnpkit.pack.model import Face, Pack

if TYPE_CHECKING:
    from pnpkit.build.pipeline import Result

EPS = 0.01  # mm: bleed differences smaller than this are rounding
MAX_PIXELS = (
    150 * 10**6
)  # an image a service could take (a 1 m board at 300 dpi is 26 MP); 600 MB of RGB to rasterise


# ------------------------------------------------------------------ entry points


def run(result: Result, out: Path, chosen: list[Profile] | None, strict: bool = False) -> None:
    """After a successful build, export it for each chosen profile; problems go onto
    result.problems."""
    if result.pack is None or result.errors or (strict and result.problems):
        return
    for profile in chosen or []:
        result.problems += export(result.pack, result.faces, out, profile, strict)


def export(
    pack: Pack, faces: dict[str, list[Face]], out: Path, profile: Profile, strict: bool = False
) -> list[Problem]:
    """Write the kit in the profile's form to out/<pack id>/<profile id>/; return what the profile
    found.

    `faces` is {lang: [Face]} as build.validate() gives it. With strict, a
    warning means nothing is written for this profile.
    """
    if profile.output == "sheets":  # the engine's own output, already in out/<pack id>/
        return []
    problems = check(pack, faces, profile)
    if (strict and problems) or any(p.is_error for p in problems):
        return problems
    final = out / pack.id / profile.id
    try:
        with output.locked(out, f"exporting {pack.id} for {profile.id}"):
            output.tidy(final.parent)  # a killed export's staging folder
            raster = rastercache.for_output(out)
            _write(pack, faces, profile, final, raster)
            raster.prune()
    except (output.Busy, output.NotKit) as exc:
        problems.append(Problem(Location(str(out)), str(exc), "output"))
    return problems


def _write(
    pack: Pack, faces: dict[str, list[Face]], profile: Profile, final: Path, raster: RasterCache
) -> None:
    """The export into a staging folder, swapped in whole: a failed export leaves the previous
    one."""
    output.replaceable(final)
    staging = output.new_staging(final)
    try:
        for lang, lang_faces in faces.items():
            folder = staging / lang
            folder.mkdir()
            decks = group_faces(pack, lang_faces)
            if profile.output == "images":
                write_images(decks, profile, folder, raster)
            elif profile.output == "low-ink":
                from pnpkit.export import lowink

                lowink.write(
                    pack,
                    lang_faces,
                    folder,
                    lang,
                    lowink.Rule(profile.keep / 100, float(profile.min_area)),
                )
            elif profile.output == "showcase":
                from pnpkit.export import (
                    showcase,  # here, not at the top: showcase builds on this module
                )

                showcase.write(decks, profile, folder)
            elif profile.output == "pages":
                write_pages(decks, profile, folder, pack.name[lang], raster)
            else:
                from pnpkit.export import tts  # here, not at the top: tts builds on this module

                tts.write(pack, lang, decks, profile, folder, final / lang, raster)
        (staging / "README.txt").write_text(_readme(pack, profile), encoding="utf-8")
        output.swap_in(staging, final)
    finally:
        output.remove_kit(staging)


def _readme(pack: Pack, profile: Profile) -> str:
    hosted = ""
    if profile.output == "tts" and profile.image_url:
        hosted = (
            f"\nThe saves name their images under {profile.image_url}/<lang>/: put the contents "
            f"of upload/ on any static web host (a web server, a bucket, GitHub Pages) so that "
            f"{profile.image_url}/<lang>/<file> serves upload/<lang>/<file>, every file, keeping "
            "its folders; nothing else is needed. Then share the JSON.\n"
        )
    return (
        f"{profile.name}: {pack.id}, exported by pnpkit with the profile '{profile.id}'.\n\n"
        f"{profile.notes.strip()}\n{hosted}"
    )


# ------------------------------------------------------------------ checks


def check(pack: Pack, faces: dict[str, list[Face]], profile: Profile) -> list[Problem]:
    """Warnings about the pack for this profile: too little bleed, sizes the service does not
    sell."""
    if profile.output in (
        "sheets",
        "showcase",
        "low-ink",
    ):  # the home sheets and their kin; store images
        return []
    problems = []
    decks = group_faces(pack, next(iter(faces.values()), []))
    if profile.output == "tts":
        return [
            p for d in decks if (p := _tts_warning(pack, d, profile.objects[d.kind])) is not None
        ]
    if profile.pdfx:
        problems += _pdfx_check(next(iter(faces.values()), []), profile)
    # a die's faces printed on a die product have no bleed to lack
    short = [d for d in decks if profile.bleed - d.bleed > EPS and die_product(d, profile) is None]
    if short:
        problems += _bleed_warnings(pack, short, profile)
    if profile.products:
        for deck in decks:
            fits = die_product(deck, profile) or profile.fitting(*_sized(deck))[0]
            if fits is None and sheet_plan(deck, profile) is None:
                problems.append(_unknown_size(pack, deck, profile))
    if profile.output in ("images", "showcase"):
        problems += [
            _too_many_pixels(pack, d, profile) for d in decks if _pixels(d, profile) > MAX_PIXELS
        ]
    return problems


def _sized(deck: Deck) -> tuple[tuple[float, float], float, str]:
    """What a group is matched to products by: its trim, its bleed and, for a die or a hexagon,
    the kind of product it takes (such groups match such products alone)."""
    front = next((i.front for i in deck.items if i.front is not None), None)
    hexagon = deck.kind == "hex" or (front is not None and front.shape[0] == "hex")
    return deck.size, deck.bleed, "die" if deck.kind == "die" else "hex" if hexagon else ""


def die_side(deck: Deck) -> float | None:
    """The side (mm) of the squares of a die group's nets, when every die's net marks them and
    all are the same size."""
    from pnpkit.kinds.dice import DieError, die_squares

    if deck.kind != "die":
        return None
    try:
        sides = {die_squares(i.front.svg)[0].side for i in deck.items if i.front is not None}
    except DieError:
        return None
    return sides.pop() if len(sides) == 1 else None


def die_product(deck: Deck, profile: Profile) -> Product | None:
    """The die product (a die's face) that a die group's squares fit, if the profile sells one."""
    side = die_side(deck)
    if side is None:
        return None
    return profile.fitting((side, side), 0.0, "die")[0]


def sheet_plan(deck: Deck, profile: Profile) -> punchout.Plan | None:
    """For a group no product of its size fits (nor, a die group, a die product): its pieces
    laid out on TGC's custom punchout or card stock, if the profile sells one they fit."""
    if die_product(deck, profile) is not None or profile.fitting(*_sized(deck))[0] is not None:
        return None
    return punchout.plan(deck, profile)


def _pixels(deck: Deck, profile: Profile) -> int:
    w, h = image_pixels(deck.size, profile, deck.bleed, _sized(deck)[2])
    return w * h


def _too_many_pixels(pack: Pack, deck: Deck, profile: Profile) -> Problem:
    w, h = image_pixels(deck.size, profile, deck.bleed, _sized(deck)[2])
    return Problem(
        pack.groups[deck.name].where,
        (
            f"group '{deck.name}' would be {w} x {h} px images at "
            f"{profile.dpi} dpi, over the {MAX_PIXELS // 10**6} "
            f"megapixels an image may have; export it at a lower dpi"
        ),
        "export",
    )


def _pdfx_check(faces: list[Face], profile: Profile) -> list[Problem]:
    """What PDF/X-1a will change or the press will not like: transparency (flattened), ink over
    the limit."""
    from pnpkit.export import pdfx  # here: only PDF/X exports need littleCMS

    return pdfx.transparency_problems(faces) + pdfx.ink_problems(
        faces, pdfx.separation(profile.press), profile.id
    )


def _bleed_warnings(pack: Pack, short: list[Deck], profile: Profile) -> list[Problem]:
    """One warning where the bleed is set: game.yaml's print.bleed for groups that take it, else
    the group."""
    own = [d for d in short if d.bleed != pack.print.bleed]
    inherited = [d for d in short if d.bleed == pack.print.bleed]
    problems = []
    want = f"{_mm(profile.bleed)} mm ({profile.bleed / MM_PER_IN:.3g} in)"
    if inherited:
        names = _and([d.name for d in inherited])
        lack = profile.bleed - pack.print.bleed
        problems.append(
            Problem(
                _print_bleed_where(pack),
                (
                    f"bleed is {pack.print.bleed:g} mm; {profile.id} "
                    f"wants {want} on every side: the outer {_mm(lack)} mm "
                    f"of every face of {names} stays blank (art is never stretched); "
                    f"set print.bleed to {profile.bleed / MM_PER_IN:g}in for this service"
                ),
                "export",
                "warning",
            )
        )
    for deck in own:
        lack = profile.bleed - deck.bleed
        group = pack.groups[deck.name]
        problems.append(
            Problem(
                group.where,
                (
                    f"group '{deck.name}' has {deck.bleed:g} mm bleed; {profile.id} "
                    f"wants {want} on every side: the outer {_mm(lack)} mm "
                    f"of its faces stays blank (art is never stretched)"
                ),
                "export",
                "warning",
            )
        )
    return problems


def _mm(value: float) -> str:
    return f"{round(value, 3):g}"


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _print_bleed_where(pack: Pack) -> Location:
    """Where game.yaml sets print.bleed (or print, or the file's start)."""
    assert pack.manifest is not None  # a pack read from its game.yaml
    return pack.manifest.at(("print", "bleed"))


def _tts_warning(pack: Pack, deck: Deck, kind: str) -> Problem | None:
    """What the Tabletop Simulator export cannot do for a group, said where the group is."""
    group = pack.groups[deck.name]
    if kind == "die":
        from pnpkit.export.tts import die_ready  # here: tts builds on this module

        if die_ready(deck):
            return None
        why = (
            "a die becomes a TTS die when its template marks the six squares of its net with "
            "data-die-face (see docs/export.md); without them pnpkit cannot tell its faces apart"
        )
    elif kind == "image" and deck.kind == "die":
        # TTS's own Custom_Dice takes an image laid out like the template TTS installs, whose face
        # positions no source we could read gives; `die: die` makes pnpkit's own model instead
        why = "the profile's objects say 'die: image'; 'die: die' makes each die a TTS die"
    elif kind == "image":
        why = "Tabletop Simulator has no object pnpkit can make for it; import the images by hand"
    elif kind == "figurine" and group.base == 0:
        return Problem(
            group.where,
            (
                f"group '{deck.name}' becomes a figurine of its "
                "whole print layout (tabs and the upside-down panel "
                "included); declare its fold-over layout, e.g. "
                "standee: {base: 12mm}, and the figure is cut out"
            ),
            "export",
            "warning",
        )
    else:
        return None
    return Problem(
        group.where,
        f"group '{deck.name}' ({deck.kind}) is exported as images only: {why}",
        "export",
        "warning",
    )


def _unknown_size(pack: Pack, deck: Deck, profile: Profile) -> Problem:
    w, h = deck.size
    side = die_side(deck)
    kind = _sized(deck)[2]
    want = (side, side) if side else deck.size
    closest = [
        f"{p.name}, {_mm(p.trim[0])} x {_mm(p.trim[1])} mm: {difference(p, want)}"
        for p in profile.closest(want, kind=kind)
    ]
    hint = f" (closest: {'; '.join(closest)}; {profile.holding(want, kind)})" if closest else ""
    if side is not None and closest:
        hint = f" (its dice are {_mm(side)} mm; closest: {'; '.join(closest)})"
    if profile.output == "images":
        px = image_pixels(deck.size, profile, deck.bleed, kind)
        what = f"its images are {px[0]} x {px[1]} px, trim plus bleed at {profile.dpi} dpi"
    else:
        what = "its pages are trim plus bleed"
    return Problem(
        pack.groups[deck.name].where,
        (
            f"group '{deck.name}' is {w:g} x {h:g} mm, which matches "
            f"no product in the {profile.id} profile{hint}; {what}"
        ),
        "export",
        "warning",
    )


# ------------------------------------------------------------------ sizes


def image_pixels(
    size: tuple[float, float], profile: Profile, bleed: float = 0.0, kind: str = ""
) -> tuple[int, int]:
    """The image size for a face of this trim (and bleed): the pixels of the product that fits it,
    else the product's trim + 2 x bleed at the dpi, else the face's own."""
    product, turned = profile.fitting(size, bleed, kind)
    if product is not None and product.pixels is not None:
        return (product.pixels[1], product.pixels[0]) if turned else product.pixels
    trim = product_trim(size, profile, bleed, kind)
    return round((trim[0] + 2 * profile.bleed) / MM_PER_IN * profile.dpi), round(
        (trim[1] + 2 * profile.bleed) / MM_PER_IN * profile.dpi
    )


def product_trim(
    size: tuple[float, float], profile: Profile, bleed: float, kind: str = ""
) -> tuple[float, float]:
    """The trim the service cuts a face of this size to: the fitting product's (turned like the
    face), else the face's own."""
    product, turned = profile.fitting(size, bleed, kind)
    if product is None or profile.product_for(size, kind=kind)[0] is not None:  # its own size
        return size
    return (product.trim[1], product.trim[0]) if turned else product.trim


def product_label(size: tuple[float, float], profile: Profile, bleed: float, kind: str = "") -> str:
    """The product a group is uploaded as, for manifest.csv; says so when the face is centred on a
    product of another size (within the profile's `fit`)."""
    product, _ = profile.fitting(size, bleed, kind)
    if product is None:
        return "(true size)"
    trim = product_trim(size, profile, bleed, kind)
    if trim == size:
        return product.name
    return (
        f"{product.name} ({_mm(trim[0])} x {_mm(trim[1])} "
        f"mm; the {_mm(size[0])} x {_mm(size[1])} mm "
        f"face centred on it)"
    )


def pixels_to_mm(px: tuple[int, int], dpi: int) -> tuple[float, float]:
    return px[0] / dpi * MM_PER_IN, px[1] / dpi * MM_PER_IN


# ------------------------------------------------------------------ images: one PNG per face


def write_images(
    decks: list[Deck], profile: Profile, folder: Path, raster: RasterCache | None = None
) -> None:
    """One PNG per distinct face at the product's pixel size, a shared back once; manifest.csv
    lists them."""
    sheets: list[Sheet] = []
    shots: list[Shot] = []
    rows: list[list[object]] = []
    dice: dict[int, list[tuple[Path, tuple[int, int, int, int]]]] = {}
    slugged: list[punchout.Slugged] = []
    for deck in decks:
        (folder / deck.folder).mkdir()
        die = die_product(deck, profile)
        if die is not None:
            rows += _die_faces(deck, die, profile, folder, sheets, shots, dice)
            continue
        plan = sheet_plan(deck, profile)
        if plan is not None:
            group, slug_rows = punchout.add_shots(deck, plan, profile, folder, sheets, shots)
            slugged.append(group)
            rows += slug_rows
            continue
        size, _, kind = _sized(deck)
        px = image_pixels(size, profile, deck.bleed, kind)
        label = product_label(size, profile, deck.bleed, kind)
        page = pixels_to_mm(px, profile.dpi)
        shared = deck.shared_back if profile.shared_back == "once" else None
        for face, stem, count in _image_faces(deck, shared):
            path = folder / deck.folder / f"{stem}.png"
            shots.append(Shot(len(sheets), px, profile.dpi, path))
            sheets.append(Sheet(face, page))
            rows.append(
                [
                    f"{deck.folder}/{path.name}",
                    deck.name,
                    face.item if stem != "back" else "",
                    face.side,
                    count,
                    px[0],
                    px[1],
                    profile.dpi,
                    label,
                ]
            )
    images = rasterise_faces(sheets, shots, folder, raster)
    for index, crops in dice.items():
        image = images[index]
        assert image is not None  # a die's net is rasterised without a path: it comes back
        for path, box in crops:
            image.crop(box).save(path, dpi=(profile.dpi, profile.dpi))
    for group in slugged:
        punchout.write_slugs(group, images, profile.dpi)
    with open(folder / "manifest.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(
            ["file", "group", "item", "side", "copies", "width_px", "height_px", "dpi", "product"]
        )
        writer.writerows(rows)


def _die_faces(
    deck: Deck,
    product: Product,
    profile: Profile,
    folder: Path,
    sheets: list[Sheet],
    shots: list[Shot],
    dice: dict[int, list[tuple[Path, tuple[int, int, int, int]]]],
) -> list[list[object]]:
    """A die product's images: each die's net rasterised at the dpi, and from each square of it
    the product's pixels, centred (a die's face has no bleed); manifest rows, net order."""
    from pnpkit.kinds.dice import die_squares

    assert product.pixels is not None  # a die product of an image profile has its pixels
    pw, ph = product.pixels
    mm = profile.dpi / MM_PER_IN  # pixels per mm
    rows: list[list[object]] = []
    for item in deck.items:
        if item.front is None:
            continue
        px = (round(deck.size[0] * mm), round(deck.size[1] * mm))
        shots.append(Shot(len(sheets), px, profile.dpi, None))
        sheets.append(Sheet(item.front, deck.size))
        crops = dice.setdefault(len(shots) - 1, [])
        for k, sq in enumerate(die_squares(item.front.svg), 1):
            cx, cy = (sq.x + sq.side / 2) * mm, (sq.y + sq.side / 2) * mm
            left, top = round(cx - pw / 2), round(cy - ph / 2)
            path = folder / deck.folder / f"{item.number:03d}-{item.id}-face-{k}.png"
            crops.append((path, (left, top, left + pw, top + ph)))
            rows.append(
                [
                    f"{deck.folder}/{path.name}",
                    deck.name,
                    item.id,
                    f"face {k}: {sq.value}",
                    item.count,
                    pw,
                    ph,
                    profile.dpi,
                    product.name,
                ]
            )
    return rows


def _image_faces(deck: Deck, shared: Face | None) -> Iterator[tuple[Face, str, int]]:
    """(face, file stem, copies) in deck order: each item's front and own back, then the shared
    back."""
    for item in deck.items:
        if item.front is not None:
            yield item.front, face_stem(item, "front"), item.count
        if item.back is not None and shared is None:
            yield item.back, face_stem(item, "back"), item.count
    if shared is not None:
        yield shared, "back", deck.copies


# ------------------------------------------------------------------ pages: one PDF per group


def write_pages(
    decks: list[Deck], profile: Profile, folder: Path, title: str, raster: RasterCache | None = None
) -> None:
    """One PDF per group, a face per page, in the order and with the copies the service expects.

    A group whose pages are all as before is copied from the cache (the PDF is invariant):
    it is keyed by the faces as drawn, so for PDF/X a hit skips flattening them too."""
    raster = raster or RasterCache(None)
    separation = None
    if profile.pdfx:
        from pnpkit.export import pdfx

        separation = pdfx.separation(profile.press)
    for deck in decks:
        trim = product_trim(deck.size, profile, deck.bleed, _sized(deck)[2])
        page = (trim[0] + 2 * profile.bleed, trim[1] + 2 * profile.bleed)
        faces = page_order(deck, profile)
        name = f"{title} · {deck.name}"
        k = combine(
            [sheet_key(Sheet(face, page, trim)) for face in faces],
            f"pages {name} {_press_key(profile)} {trim}",
        )

        def make(
            path: Path,
            faces: list[Face] = faces,
            page: tuple[float, float] = page,
            trim: tuple[float, float] = trim,
            name: str = name,
        ) -> None:
            sheets = [Sheet(face, page, trim) for face in _press_ready(faces, profile)]
            facepages.write_faces_pdf(sheets, path, name, separation)

        raster.made(k, folder / f"{deck.folder}.pdf", make)


def _press_key(profile: Profile) -> str:
    """What of the profile shapes a page PDF's bytes: PDF/X or not, and the press (its ICC
    profile's content)."""
    if not profile.pdfx:
        return "rgb"
    press = profile.press
    icc = getattr(press, "icc", None)
    content = hashlib.sha256(Path(icc).read_bytes()).hexdigest() if icc else ""
    return f"pdfx {press!r} {content}"


def _press_ready(faces: list[Face], profile: Profile) -> list[Face]:
    """For PDF/X, faces with transparency flattened to images; otherwise the faces as they are."""
    if not profile.pdfx:
        return faces
    from pnpkit.export import pdfx

    return pdfx.flatten(faces)


def page_order(deck: Deck, profile: Profile) -> list[Face]:
    """The faces of a group in the order the service wants its pages."""
    shared = deck.shared_back if profile.shared_back == "once" else None
    n = (lambda item: item.count) if profile.copies == "each" else (lambda item: 1)
    fronts, backs, pairs = [], [], []
    for item in deck.items:
        for _ in range(n(item)):
            front = [item.front] if item.front is not None else []
            back = [item.back] if item.back is not None and shared is None else []
            fronts += front
            backs += back
            pairs += front + back
    if profile.order == "front-back":
        faces = pairs
    else:
        faces = fronts + backs
    return faces + ([shared] if shared is not None else [])
