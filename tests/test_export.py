"""Export profiles: pixel sizes, counts, file names, page boxes and Tabletop Simulator's grid
limits."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import re
from pathlib import Path

import pypdfium2
import pytest
from PIL import Image
from pypdf import PdfReader

from conftest import ROOT, SOLID, board_pack, colour_pack, write_pack
from pnpkit.build import pipeline as build
from pnpkit.commands.cli import main
from pnpkit.export import export, facepages, profile, tts
from pnpkit.export.decks import group_faces

PT = 72 / 25.4


def colours(n: int) -> list[tuple[int, int, int]]:
    """The colours colour_pack gives cards c0..c(n-1)."""
    return [((i * 37) % 256, (i * 91) % 256, (200 - i * 17) % 256) for i in range(n)]


def near(a, b, tol: int = 3) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def load(name: str) -> profile.Profile:
    found, problems = profile.load(name)
    assert found is not None, [str(p) for p in problems]
    return found


def exported(pack: Path, out: Path, name: str, strict: bool = False, pdfx: bool | None = None):
    """Validate a pack and export it with one profile (its PDF/X switched as given): (problems,
    the profile's output folder)."""
    result = build.validate(pack)
    assert not result.errors, [str(p) for p in result.errors]
    chosen = load(name) if pdfx is None else dataclasses.replace(load(name), pdfx=pdfx)
    problems = export.export(result.pack, result.faces, out, chosen, strict)
    return problems, out / result.pack.id / name


def cards(
    root: Path,
    n: int = 4,
    count: int = 1,
    bleed: str = "0.125in",
    size: str = "poker",
    shared_back: bool = True,
) -> Path:
    """n cards in colour_pack's colours, each printed `count` times; all with one navy back, or
    each its own colour."""
    items = "\n".join(
        f"    - {{id: c{i}, count: {count}, colour: '#{r:02x}{g:02x}{b:02x}'}}"
        for i, (r, g, b) in enumerate(colours(n))
    )
    back = "navy.svg.j2" if shared_back else "solid.svg.j2"
    return write_pack(
        root,
        {
            "game.yaml": "name: Probe\nlanguages: [en]\nplayers: "
            f"{{min: 1, max: 1}}\nprint:\n  bleed: {bleed}\n",
            "cards.yaml": f"cards:\n  kind: card\n  size: {size}\n  front: solid.svg.j2\n  "
            f"back: {back}\n  fields:\n    colour: string\n  items:\n{items}\n",
            "templates/solid.svg.j2": SOLID,
            "templates/navy.svg.j2": SOLID.replace("{{ item.colour }}", "#102060"),
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text(),
        },
    )


NAVY = (0x10, 0x20, 0x60)


def manifest(folder: Path) -> list[dict]:
    with open(folder / "manifest.csv", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def render(pdf: Path, index: int, dpi: int = 100) -> Image.Image:
    return pypdfium2.PdfDocument(str(pdf))[index].render(scale=dpi / 72).to_pil().convert("RGB")


# ------------------------------------------------------------------ profiles as data


@pytest.mark.parametrize(
    "name",
    [
        "home",
        "thegamecrafter",
        "makeplayingcards",
        "drivethrucards",
        "printninja",
        "tabletop-simulator",
        "pdfx",
        "showcase",
        "low-ink",
    ],
)
def test_every_shipped_profile_loads_clean(name):
    found, problems = profile.load(name)
    assert problems == [] and found.id == name


def test_published_pixel_sizes_are_trim_plus_bleed():
    tgc, mpc = load("thegamecrafter"), load("makeplayingcards")
    assert export.image_pixels((63.5, 88.9), tgc) == (825, 1125)
    assert export.image_pixels((69.85, 120.65), tgc) == (900, 1500)
    assert export.image_pixels((88.9, 63.5), tgc) == (1125, 825)  # a landscape card keeps its shape
    assert export.image_pixels((63.5, 88.9), mpc) == (822, 1122)
    assert export.image_pixels((69.85, 120.65), mpc) == (897, 1497)
    assert export.image_pixels((45, 45), tgc) == (
        606,
        606,
    )  # no such product: trim + 1/8 in a side at 300 dpi


def test_profile_problems_are_located(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("bad.yaml").write_text(
        "name: Bad\n"
        "output: images\n"
        "dpi: 300\n"
        "bleed: 0.125in\n"
        "copys: each\n"
        "products:\n"
        "  - {name: poker, trim: 2.5x3.5in, pixels: 824x1125}\n"
        "  - {name: tarot, trim: 2.75x4.75, pixels: 900x1500}\n",
        encoding="utf-8",
    )
    found, problems = profile.load("bad.yaml")
    assert found is None
    assert [str(p) for p in problems] == [
        "bad.yaml:5:1: error: unknown key 'copys' in a profile "
        "with output 'images' (known keys: name, output, dpi, "
        "bleed, products, fit, grow, shared_back, notes) [profile]",
        "bad.yaml:7:44: error: 'pixels' 824x1125 is less than the "
        "trim plus 2 x bleed at 300 dpi (825x1125) [profile]",
        "bad.yaml:8:25: error: 'trim' must be a size such as "
        "'63x88mm', '2.5x3.5in' or a name (poker, euro-poker, bridge, "
        "tarot, mini, euro-mini, square, small-square, jumbo, business, "
        "micro, a5, a4, a3, letter) (got '2.75x4.75') [profile]",
    ]


def test_profile_output_and_tts_objects_are_checked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("p.yaml").write_text("name: P\noutput: pictures\n", encoding="utf-8")
    assert [str(p) for p in profile.load("p.yaml")[1]] == [
        "p.yaml:2:9: error: 'output' must be one of sheets, images, "
        "pages, tts, showcase, low-ink (got 'pictures') [profile]"
    ]
    text = (
        (ROOT / "src/pnpkit/profiles/tabletop-simulator.yaml")
        .read_text()
        .replace("  board: tile", "  board: bord")
        .replace("  die: die", "  dice: die")
    )
    Path("t.yaml").write_text(text, encoding="utf-8")
    line = {
        key: n
        for n, row in enumerate(text.splitlines(), 1)
        for key in ("objects:", "  card:", "  board:", "  dice:")
        if row.startswith(key)
    }
    assert [str(p) for p in profile.load("t.yaml")[1]] == [
        f"t.yaml:{line['  dice:']}:3: error: unknown key "
        "'dice' in 'objects' (did you mean 'die'?) [profile]",
        f"t.yaml:{line['  board:']}:10: error: 'board' must "
        "be one of deck, tile, hex-tile, round-tile, "
        "rounded-tile, figurine, die, image (got 'bord') [profile]",
        f"t.yaml:{line['  card:']}:3: error: 'objects' needs "
        "the kind 'die' (one of deck, tile, hex-tile, "
        "round-tile, rounded-tile, figurine, die, image) [profile]",
    ]


def test_unknown_profile_is_a_usage_error(kit):
    run = kit.build("--profile", "thegamecrafte")
    assert run.code == 2
    assert (
        "argument --profile: no export profile 'thegamecrafte' (did you mean 'thegamecrafter'?)"
        in run.err
    )
    assert not (kit.root / "build").exists()


def test_a_profile_file_not_there_is_named_as_a_missing_file(kit):
    """docs/export.md's `--profile my-service.yaml`, run before the file is written: the message
    says the file is missing, not that no shipped profile has that name."""
    run = kit.build("--profile", "my-service.yaml")
    assert run.code == 2
    assert (
        "argument --profile: no profile file 'my-service.yaml' (no such file; a shipped profile "
        "is named without .yaml)" in run.err
    )
    assert not (kit.root / "build").exists()


# ------------------------------------------------------- images: The Game Crafter, MakePlayingCards


def test_tgc_writes_one_png_per_face_at_the_product_size(tmp_path):
    problems, out = exported(
        cards(tmp_path / "probe", n=3, shared_back=False), tmp_path / "out", "thegamecrafter"
    )
    assert problems == []
    folder = out / "en" / "01-cards"
    names = sorted(p.name for p in folder.iterdir())
    assert names == [
        "001a-c0-front.png",
        "001b-c0-back.png",
        "002a-c1-front.png",
        "002b-c1-back.png",
        "003a-c2-front.png",
        "003b-c2-back.png",
    ]
    for i, colour in enumerate(colours(3)):
        image = Image.open(folder / f"{i + 1:03d}a-c{i}-front.png")
        assert image.size == (825, 1125) and image.mode == "RGB"
        assert round(image.info["dpi"][0]) == 300
        # the art fills the image to its edges: the bleed is the service's 1/8 in
        for xy in ((0, 0), (824, 1124), (412, 562)):
            assert near(image.getpixel(xy), colour), (i, xy)
    rows = manifest(out / "en")
    assert [r["file"] for r in rows] == sorted(
        r["file"] for r in rows
    )  # file names sort in deck order
    assert {(r["product"], r["width_px"], r["height_px"], r["copies"]) for r in rows} == {
        ("poker deck", "825", "1125", "1")
    }
    assert (out / "README.txt").read_text().startswith("The Game Crafter: probe")


def test_less_bleed_than_the_service_wants_is_a_located_warning_and_stays_blank(tmp_path):
    problems, out = exported(
        colour_pack(tmp_path / "probe", n=1), tmp_path / "out", "thegamecrafter"
    )
    [warning] = problems
    assert (warning.level, warning.rule, warning.where.line, warning.where.column) == (
        "warning",
        "export",
        5,
        10,
    )
    assert warning.where.file.endswith("probe/game.yaml")  # where print.bleed is set
    assert warning.message == (
        "bleed is 3 mm; thegamecrafter wants 3.175 mm (0.125 "
        "in) on every side: the outer 0.175 mm of every face"
        " of cards stays blank (art is never stretched); "
        "set print.bleed to 0.125in for this service"
    )
    image = Image.open(out / "en" / "01-cards" / "001a-c0-front.png")
    assert image.size == (825, 1125)  # the product's size all the same: the art is not stretched
    assert image.getpixel((0, 562)) == (255, 255, 255)  # the missing 0.175 mm (2 px) is blank
    assert near(image.getpixel((3, 562)), colours(1)[0])


def test_a_shared_back_is_written_once_with_the_deck_count(tmp_path):
    problems, out = exported(
        cards(tmp_path / "probe", n=4, count=2), tmp_path / "out", "makeplayingcards"
    )
    assert problems == []  # 1/8 in of bleed covers MPC's 0.12 in
    folder = out / "en" / "01-cards"
    assert sorted(p.name for p in folder.iterdir()) == [
        "001a-c0-front.png",
        "002a-c1-front.png",
        "003a-c2-front.png",
        "004a-c3-front.png",
        "back.png",
    ]
    back = Image.open(folder / "back.png")
    assert back.size == (822, 1122) and near(back.getpixel((411, 561)), NAVY)
    rows = manifest(out / "en")
    assert [(r["side"], r["copies"]) for r in rows] == [("front", "2")] * 4 + [("back", "8")]


def test_sizes_the_service_does_not_sell_are_true_size_with_a_warning(tmp_path):
    # 220 x 280 mm: no card product, and more than TGC's largest custom card stock slug holds
    problems, out = exported(
        cards(tmp_path / "probe", n=1, size="220x280mm", shared_back=False),
        tmp_path / "out",
        "thegamecrafter",
    )
    assert (
        len(problems) == 1
        and problems[0].where.line == 1
        and problems[0].where.file.endswith("cards.yaml")
    )
    assert problems[0].message == (
        "group 'cards' is 220 x 280 mm, which matches no product in the thegamecrafter profile "
        "(closest: letter perfect-bound book, 215.9 x 279.4 mm: 4.1 mm narrower, 0.6 mm shorter; "
        "jumbo coil book, 209.55 x 254 mm: 10.5 mm narrower, 26 mm shorter; large score pad / "
        "jumbo booklet, 203.2 x 254 mm: 16.8 mm narrower, 26 mm shorter; the smallest that holds "
        "it, big mat / small game mat (neoprene) (254 x 406.4 mm), is 34 mm wider, 126.4 mm "
        "taller: more than the 3 mm a side its bleed may cover); its images are 2673 x 3382 px, "
        "trim plus bleed at 300 dpi"
    )
    assert Image.open(out / "en" / "01-cards" / "001a-c0-front.png").size == (2673, 3382)
    assert manifest(out / "en")[0]["product"] == "(true size)"


SOURCE = re.compile(r"^(primary|secondary|inferred): \S")


@pytest.mark.parametrize("name", ["thegamecrafter", "makeplayingcards", "drivethrucards"])
def test_every_product_of_a_service_names_its_source_and_safe_zone(name):
    products = load(name).products
    assert len(products) >= 2
    for p in products:
        assert SOURCE.match(p.source), p
        if p.kind != "die":  # a die's face is printed on the die: nothing is cut
            assert p.safe is not None and 3 <= p.safe <= 3.2, p  # 1/8 in or MPC's 36 px
    names = [p.name for p in products]
    assert len(names) == len(set(names))


def test_the_tgc_catalogue_covers_the_kinds_pnpkit_makes():
    tgc = load("thegamecrafter")
    sizes = {p.name: p.trim for p in tgc.products}
    for name in (
        "small hex tile",
        "medium hex tile",
        "mini hex tile",
        "large hex tile / hex deck",
        "hex shard",
        "custom colour d6 / custom wood d6",
        "large booklet",
        "poker folio",
        "large screen",
        "small square tile",
        "small chit (square or circle)",
        "bi-fold board",
        "quad-fold board",
        "large square board / large square mat",
        "medium game mat (neoprene)",
        "mini deck",
        "small square deck / medium square tile",
        "poker deck",
        "tarot deck",
        "bridge deck",
        "large score pad / jumbo booklet",
    ):
        assert name in sizes
    assert sizes["small hex tile"] == pytest.approx((50.8, 44.45))
    kinds = {p.name: (p.kind, p.pixels) for p in tgc.products}
    assert kinds["medium hex tile"] == ("hex", (825, 750))  # the template: taller than trim + bleed
    assert kinds["custom colour d6 / custom wood d6"] == ("die", (180, 180))
    assert sizes["quad-fold board"] == pytest.approx((457.2, 457.2))


def test_a_source_without_a_tag_is_a_located_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("p.yaml").write_text(
        "name: P\noutput: images\nfit: 7mm\nproducts:\n  - "
        "{name: poker, trim: 2.5x3.5in, source: 'the internet'}\n",
        encoding="utf-8",
    )
    assert [str(p) for p in profile.load("p.yaml")[1]] == [
        "p.yaml:3:6: error: 'fit' is how far each side of a product "
        "may be from a group's trim, at most 5 mm (got 7 mm) [profile]",
        "p.yaml:5:44: error: 'source' must start with "
        "one of primary, secondary, inferred and a colon,"
        " then say where the figures come from (got 'the internet') [profile]",
    ]


def test_a_group_within_fit_of_a_product_is_centred_on_it_and_named(tmp_path):
    """A 12 mm token with 3 mm of bleed is TGC's 1/2 in chit: the image is the chit's template,
    the cut (0.35 mm outside the face's trim) falls in the art's bleed, manifest.csv says so."""
    problems, out = exported(
        cards(tmp_path / "probe", n=1, size="12x12mm", shared_back=False),
        tmp_path / "out",
        "thegamecrafter",
    )
    assert [p for p in problems if "product" in p.message] == []
    image = Image.open(out / "en" / "01-cards" / "001a-c0-front.png")
    assert image.size == (225, 225)
    assert near(image.getpixel((112, 112)), colours(1)[0])
    # the cut (37.5 px in) lies 0.35 mm (4 px) outside the face's trim, inside its 1/8 in of art;
    # only the outer 4 px of the chit's own bleed stay blank (art is never stretched)
    assert near(image.getpixel((6, 112)), colours(1)[0]) and near(
        image.getpixel((37, 112)), colours(1)[0]
    )
    assert image.getpixel((1, 112)) == (255, 255, 255)
    assert manifest(out / "en")[0]["product"] == (
        "small chit (square or circle) (12.7 x 12.7 mm; the 12 x 12 mm face centred on it)"
    )


def test_a_product_never_fits_where_the_cut_would_show_blank_paper(tmp_path):
    tgc = load("thegamecrafter")
    assert tgc.fitting((12, 12), bleed=3)[0].name == "small chit (square or circle)"
    assert tgc.fitting((12, 12), bleed=0)[0] is None  # no bleed: a larger cut shows paper
    assert (
        tgc.fitting((13.5, 13.5), bleed=0)[0].name == "small chit (square or circle)"
    )  # smaller: cut inside the art
    # 1.7 mm a side smaller than the 1 in chit: within `grow` (3 mm) where the art's bleed covers it
    assert tgc.fitting((22, 22), bleed=3)[0].name == "large chit (square or circle) / medium ring"
    assert tgc.fitting((22, 22), bleed=1)[0] is None
    assert tgc.fitting((40, 40), bleed=3)[0] is None  # 5.4 mm a side from the 2 in tile
    # 1.15 mm a side inside the 1/2 in chit's cut is over `fit`; 2 mm outside the 3/4 in chit's
    # is over a 1 mm bleed
    assert tgc.fitting((15, 15), bleed=1)[0] is None
    # a square group never takes a hexagon, a hex group nothing else
    assert tgc.fitting((45, 45), bleed=3)[0].name == "small square tile"
    assert tgc.fitting((57.74, 50), bleed=3, kind="hex")[0].name == "medium hex tile"
    assert tgc.fitting((57.74, 50), bleed=3)[0] is None
    assert tgc.fitting((101.6, 50.8), bleed=3) == (tgc.fitting((50.8, 101.6), bleed=3)[0], True)


def test_page_services_cut_a_fitted_group_at_the_products_trim(tmp_path):
    problems, out = exported(
        cards(tmp_path / "probe", n=1, size="63x88mm", shared_back=False),
        tmp_path / "out",
        "drivethrucards",
    )
    assert [p for p in problems if "product" in p.message] == []
    page = pypdfium2.PdfDocument(str(next((out / "en").glob("*.pdf"))))[0]
    assert [round(v / 72 * 25.4, 2) for v in page.get_mediabox()] == [
        0,
        0,
        69.85,
        95.25,
    ]  # poker + 1/8 in a side
    assert [round(v / 72 * 25.4, 2) for v in page.get_trimbox()] == [3.17, 3.17, 66.67, 92.07]


def test_many_faces_are_rasterised_in_a_process_pool_identically(tmp_path):
    pack = cards(tmp_path / "probe", n=30, shared_back=False)
    result = build.validate(pack)
    decks = group_faces(result.pack, result.faces["en"])
    sheets = [facepages.Sheet(f, export.pixels_to_mm((825, 1125), 300)) for f in result.faces["en"]]
    pdf = tmp_path / "faces.pdf"
    facepages.write_faces_pdf(sheets, pdf, "t")
    shots = [facepages.Shot(i, (825, 1125), 300) for i in range(len(sheets))]
    assert len(shots) >= facepages.POOL_FROM and len(decks[0].items) == 30
    pooled = facepages.rasterise(pdf, shots, workers=2)
    single = facepages.rasterise(pdf, shots, workers=1)
    assert [im.tobytes() for im in pooled] == [im.tobytes() for im in single]
    assert [
        near(im.getpixel((400, 500)), colours(30)[i // 2])
        for i, im in enumerate(pooled)
        if i % 2 == 0
    ] == [True] * 30


def _bench_deck(root: Path, n: int) -> list[facepages.Sheet]:
    """n of the benchmark's text-heavy poker cards (titles, wrapped text, icons), at TGC's page
    size."""
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from bench_cards import make_pack
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    result = build.validate(make_pack(root, n))
    assert not result.errors, [str(p) for p in result.errors[:3]]
    return [facepages.Sheet(f, export.pixels_to_mm((825, 1125), 300)) for f in result.faces["en"]]


def test_drawing_and_rasterising_on_every_core_writes_the_same_bytes_as_one_process(tmp_path):
    sheets = _bench_deck(tmp_path / "deck", 30)
    assert len(sheets) >= facepages.POOL_FROM

    def shots(folder: Path) -> list[facepages.Shot]:
        folder.mkdir()
        return [
            facepages.Shot(i, (825, 1125), 300, folder / f"{i}.png") for i in range(len(sheets))
        ]

    facepages.draw_and_rasterise(
        sheets, shots(tmp_path / "one"), tmp_path / "one.pdf", "t", workers=1
    )
    facepages.draw_and_rasterise(
        sheets, shots(tmp_path / "two"), tmp_path / "two.pdf", "t", workers=2
    )
    one, two = _tree(tmp_path / "one"), _tree(tmp_path / "two")
    assert len(one) == len(sheets) and one == two
    assert sorted(p.name for p in tmp_path.glob("*.pdf")) == []  # the chunks' PDFs are gone
    # the pooled images returned (no path) are the same pixels as the PNG files
    images = facepages.draw_and_rasterise(
        sheets,
        [facepages.Shot(i, (825, 1125), 300) for i in range(len(sheets))],
        tmp_path / "three.pdf",
        "t",
        workers=2,
    )
    assert [im.tobytes() for im in images] == [
        Image.open(tmp_path / "one" / f"{i}.png").tobytes() for i in range(len(sheets))
    ]


def test_without_processes_it_is_all_done_in_one(tmp_path, monkeypatch):
    sheets = _bench_deck(tmp_path / "deck", 12)
    shots = [facepages.Shot(i, (825, 1125), 300) for i in range(len(sheets))]
    single = facepages.draw_and_rasterise(sheets, shots, tmp_path / "one.pdf", "t", workers=1)

    class NoProcesses:
        def __init__(self, *args, **kwargs):
            raise OSError(38, "Function not implemented")

    monkeypatch.setattr(facepages, "ProcessPoolExecutor", NoProcesses)
    monkeypatch.setattr(facepages, "POOL_FROM", 2)
    pooled = facepages.draw_and_rasterise(sheets, shots, tmp_path / "two.pdf", "t", workers=2)
    assert [im.tobytes() for im in pooled] == [im.tobytes() for im in single]


def test_a_png_is_a_valid_rgb_file_with_its_dpi_and_the_rendered_pixels(tmp_path):
    sheets = _bench_deck(tmp_path / "deck", 1)[:1]
    path = tmp_path / "face.png"
    facepages.draw_and_rasterise(
        sheets, [facepages.Shot(0, (825, 1125), 300, path)], tmp_path / "a.pdf", "t"
    )
    [pixels] = facepages.draw_and_rasterise(
        sheets, [facepages.Shot(0, (825, 1125), 300)], tmp_path / "b.pdf", "t"
    )
    png = Image.open(path)
    png.load()  # decodes every chunk: a bad CRC or a short IDAT raises here
    assert (png.format, png.mode, png.size) == ("PNG", "RGB", (825, 1125))
    assert [round(d, 2) for d in png.info["dpi"]] == [300.0, 300.0]
    assert png.tobytes() == pixels.tobytes()
    assert (
        len(pixels.getcolors(maxcolors=10**6)) > 50
    )  # a drawn card: text, icons and a frame, not a blank page


# ------------------------------------------------------------ pages: DriveThruCards, PrintNinja


def test_dtc_pages_are_face_plus_bleed_with_trim_and_bleed_boxes(tmp_path):
    problems, out = exported(
        cards(tmp_path / "probe", n=2, count=2), tmp_path / "out", "drivethrucards", pdfx=False
    )
    assert problems == []
    pdf = out / "en" / "01-cards.pdf"
    reader = PdfReader(pdf)
    assert len(reader.pages) == 8  # 2 cards x 2 copies x (front, back)
    for page in reader.pages:
        assert [float(v) for v in page.mediabox] == pytest.approx(
            [0, 0, 198, 270]
        )  # 2.75 x 3.75 in
        assert [float(v) for v in page.trimbox] == pytest.approx(
            [9, 9, 189, 261]
        )  # 2.5 x 3.5 in, 1/8 in in
        assert [float(v) for v in page.bleedbox] == pytest.approx([0, 0, 198, 270])
        order = [render(pdf, i).getpixel((137, 187)) for i in range(8)]
    c0, c1 = colours(2)
    assert [near(p, c) for p, c in zip(order, [c0, NAVY, c0, NAVY, c1, NAVY, c1, NAVY])] == [
        True
    ] * 8


def test_printninja_prints_every_copy_and_a_shared_back_once_last(tmp_path):
    _, out = exported(
        cards(tmp_path / "probe", n=3, count=2), tmp_path / "out", "printninja", pdfx=False
    )
    pdf = out / "en" / "01-cards.pdf"
    assert len(PdfReader(pdf).pages) == 3 * 2 + 1
    got = [render(pdf, i).getpixel((137, 187)) for i in range(7)]
    c0, c1, c2 = colours(3)
    assert [near(p, c) for p, c in zip(got, [c0, c0, c1, c1, c2, c2, NAVY])] == [True] * 7


def test_printninja_with_own_backs_puts_the_backs_after_the_fronts(tmp_path):
    _, out = exported(
        cards(tmp_path / "probe", n=2, shared_back=False),
        tmp_path / "out",
        "printninja",
        pdfx=False,
    )
    pdf = out / "en" / "01-cards.pdf"
    got = [render(pdf, i).getpixel((137, 187)) for i in range(4)]
    c0, c1 = colours(2)
    assert [near(p, c) for p, c in zip(got, [c0, c1, c0, c1])] == [True] * 4


def test_page_pdfs_are_byte_identical_for_identical_input(tmp_path):
    pack = cards(tmp_path / "probe", n=2)
    _, a = exported(pack, tmp_path / "a", "drivethrucards")
    _, b = exported(pack, tmp_path / "b", "drivethrucards")
    assert (a / "en" / "01-cards.pdf").read_bytes() == (b / "en" / "01-cards.pdf").read_bytes()


# ------------------------------------------------------------------ Tabletop Simulator


def test_tts_sheets_keep_to_10_by_7_and_4096_px(tmp_path):
    n = 150
    problems, out = exported(
        colour_pack(tmp_path / "probe", n=n), tmp_path / "out", "tabletop-simulator"
    )
    assert problems == []
    folder = out / "en"
    save = json.loads((folder / "probe-en.json").read_text())
    [deck] = save["ObjectStates"]
    assert deck["Name"] == "DeckCustom" and len(deck["DeckIDs"]) == n == len(
        deck["ContainedObjects"]
    )
    sheets = sorted(folder.glob("01-cards-faces-*.png"))
    backs = sorted(folder.glob("01-cards-backs-*.png"))  # every card has its own back: back sheets
    assert [p.name for p in sheets] == [
        "01-cards-faces-1.png",
        "01-cards-faces-2.png",
        "01-cards-faces-3.png",
    ]
    assert len(backs) == 3
    seen = []
    for key, entry in deck["CustomDeck"].items():
        k = int(key)
        assert (
            entry["NumWidth"] <= 10
            and entry["NumHeight"] <= 7
            and entry["BackIsHidden"]
            and entry["UniqueBack"]
        )
        sheet = Image.open(Path(entry["FaceURL"].removeprefix("file://")))
        assert sheet.width <= 4096 and sheet.height <= 4096
        cw, ch = sheet.width // entry["NumWidth"], sheet.height // entry["NumHeight"]
        assert (cw * entry["NumWidth"], ch * entry["NumHeight"]) == sheet.size  # whole-pixel cells
        assert abs(cw / ch - 63.5 / 88.9) < 0.01
        ids = [i for i in deck["DeckIDs"] if i // 100 == k]
        assert (
            max(i % 100 for i in ids) < entry["NumWidth"] * entry["NumHeight"] - 1
        )  # the last slot stays hidden
        for card_id in ids:
            slot = card_id % 100
            x, y = (
                (slot % entry["NumWidth"]) * cw + cw // 2,
                (slot // entry["NumWidth"]) * ch + ch // 2,
            )
            seen.append(sheet.getpixel((x, y)))
    assert [near(a, b) for a, b in zip(seen, colours(n))] == [
        True
    ] * n  # each card id shows its own card


def test_tts_counts_copies_and_gives_the_shared_back_its_own_image(tmp_path):
    _, out = exported(
        cards(tmp_path / "probe", n=3, count=2), tmp_path / "out", "tabletop-simulator"
    )
    folder = out / "en"
    [deck] = json.loads((folder / "probe-en.json").read_text())["ObjectStates"]
    [(key, entry)] = deck["CustomDeck"].items()
    assert deck["DeckIDs"] == [int(key) * 100 + s for s in (0, 0, 1, 1, 2, 2)]
    assert (entry["NumWidth"], entry["NumHeight"], entry["UniqueBack"]) == (
        2,
        2,
        False,
    )  # 3 faces + the hidden slot
    back = Image.open(folder / "01-cards-back.png")
    assert entry["BackURL"].endswith("/en/01-cards-back.png")
    assert near(back.getpixel((back.width // 2, back.height // 2)), NAVY)
    sheet = Image.open(folder / "01-cards-faces-1.png")
    cw, ch = sheet.width // 2, sheet.height // 2
    assert near(
        sheet.getpixel((cw + cw // 2, ch + ch // 2)), NAVY
    )  # the hidden slot shows the back
    assert sheet.getpixel((0, 0)) != (
        255,
        255,
        255,
    )  # trim only: the card's colour reaches the cell's corner


def test_tts_boards_are_single_images_within_4096_px(tmp_path):
    problems, out = exported(
        board_pack(tmp_path / "board", size="600x400mm"), tmp_path / "out", "tabletop-simulator"
    )
    assert problems == []
    folder = out / "en"
    image = Image.open(folder / "01-board" / "001a-map-front.png")
    assert image.width == 4096 and image.height == math.floor(4096 * 400 / 600)
    [board] = json.loads((folder / "board-en.json").read_text())["ObjectStates"]
    assert board["Name"] == "Custom_Tile" and board["CustomImage"]["CustomTile"]["Type"] == 0
    assert (
        board["CustomImage"]["ImageURL"]
        == (folder / "01-board" / "001a-map-front.png").resolve().as_uri()
    )


def test_tts_grid_choice():
    tts_profile = load("tabletop-simulator")
    grids = tts.sheet_grids(69 + 69 + 5, (63.5, 88.9), tts_profile)
    assert [(len(g.items), g.columns, g.rows) for g in grids] == [
        (69, 10, 7),
        (69, 10, 7),
        (5, 3, 2),
    ]
    assert grids[0].cell == (409, 573)  # 4096 // 10 wide, the card's shape: 4090 x 4011 px
    assert tts.cell_pixels((63.5, 88.9), 2, 1, tts_profile) == (
        750,
        1050,
    )  # small decks keep 300 dpi


# ---------------------------------------------------------------- the command line and the seed kit


PROFILES = [
    "thegamecrafter",
    "makeplayingcards",
    "drivethrucards",
    "printninja",
    "tabletop-simulator",
]


@pytest.fixture(scope="module")
def every_profile(tmp_path_factory):
    """The Mammoth Herd built once in English with every shipped profile: its output folder."""
    out = tmp_path_factory.mktemp("profiles")
    argv = ["build", str(ROOT / "components/mammoth-herd"), "--out", str(out), "--lang", "en"]
    assert main(argv + [arg for name in PROFILES for arg in ("--profile", name)]) == 0
    return out / "mammoth-herd"


@pytest.mark.parametrize("name", PROFILES)
def test_every_profile_exports_the_mammoth_herd(every_profile, name):
    out = every_profile
    assert (out / "mammoth-herd-en.pdf").is_file()  # the home sheets are still built
    folder = out / name / "en"
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    if name in ("thegamecrafter", "makeplayingcards"):
        # the herd (a fold-over standee), reference front and back, 16 tiles x 2, manifest; on
        # TGC the herd goes on a custom card stock slug: its image and its cut file
        herd_files = 2 if name == "thegamecrafter" else 1
        assert len(files) == herd_files + 2 + 32 + 1
        assert files[:herd_files] == (
            ["01-herd/slug-01-cut.svg", "01-herd/slug-01-front.png"]
            if name == "thegamecrafter"
            else ["01-herd/001a-herd-front.png"]
        )
        assert files[herd_files : herd_files + 3] == [
            "02-reference/001a-reference-front.png",
            "02-reference/001b-reference-back.png",
            "03-bonus-tiles/001a-bonus-01-front.png",
        ]
        tarot = Image.open(folder / "02-reference" / "001a-reference-front.png").size
        assert tarot == {"thegamecrafter": (900, 1500), "makeplayingcards": (897, 1497)}[name]
    elif name in ("drivethrucards", "printninja"):
        assert files == ["01-herd.pdf", "02-reference.pdf", "03-bonus-tiles.pdf"]
        assert [len(PdfReader(folder / f).pages) for f in files] == [1, 2, 32]
    else:
        assert "mammoth-herd-en.json" in files and "02-reference-faces-1.png" in files
        names = [
            o["Name"]
            for o in json.loads((folder / "mammoth-herd-en.json").read_text())["ObjectStates"]
        ]
        assert names == ["Figurine_Custom", "Card", "Bag"]


def test_profiles_are_repeatable_and_strict_refuses_their_warnings(kit):
    run = kit.build(
        "--profile", "thegamecrafter", "--profile", "tabletop-simulator", "--lang", "en"
    )
    assert run.code == 0
    line = next(
        n
        for n, row in enumerate((kit.root / kit.pack / "game.yaml").read_text().splitlines(), 1)
        if row.startswith("  bleed:")
    )
    assert f"game.yaml:{line}:10: warning: bleed is 3 mm; thegamecrafter wants 3.175 mm" in run.out
    out = kit.root / "build" / "mammoth-herd"
    assert (out / "thegamecrafter").is_dir() and (out / "tabletop-simulator").is_dir()
    run = kit.build("--profile", "thegamecrafter", "--lang", "en", "--strict")
    assert run.code == 1
    assert not (out / "thegamecrafter").exists()
    assert "the sheets were written, the profile export was not" in run.err


def test_a_profile_file_given_by_path(kit):
    text = (
        (ROOT / "src/pnpkit/profiles/tabletop-simulator.yaml")
        .read_text()
        .replace('image_url: ""', 'image_url: "https://example.com/kit"')
    )
    (kit.root / "my-tts.yaml").write_text(text, encoding="utf-8")
    assert kit.build("--profile", "my-tts.yaml", "--lang", "en").code == 0
    folder = kit.root / "build" / "mammoth-herd" / "my-tts" / "en"
    save = json.loads((folder / "mammoth-herd-en.json").read_text())
    assert (
        save["ObjectStates"][0]["CustomImage"]["ImageURL"]
        == "https://example.com/kit/en/01-herd/001a-herd-front.png"
    )


def test_transparency_survives_into_exported_pngs(tmp_path):
    """Export draws faces as PDF forms too; a half-opaque red must come out pink, not red."""
    from conftest import alpha_pack, is_pink

    pack = alpha_pack(tmp_path / "alpha", bleed="0.125in")
    assert (
        main(["build", str(pack), "--out", str(tmp_path / "out"), "--profile", "thegamecrafter"])
        == 0
    )
    png = next((tmp_path / "out" / "alpha" / "thegamecrafter").rglob("*.png"))
    assert is_pink(Image.open(png).convert("RGB").getpixel((400, 560)))


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_a_warm_export_rasterises_nothing_and_writes_the_same_bytes(kit, monkeypatch):
    names = (
        "thegamecrafter",
        "makeplayingcards",
        "drivethrucards",
        "printninja",
        "tabletop-simulator",
    )
    profiles = [arg for name in names for arg in ("--profile", name)]
    assert kit.build(*profiles, "--lang", "en").code == 0
    out = kit.root / "build" / "mammoth-herd"
    cold = {name: _tree(out / name) for name in names}

    def no_raster(*args, **kwargs):
        raise AssertionError("a warm export rasterised a face")

    def no_pages(*args, **kwargs):
        raise AssertionError("a warm export drew a page PDF again")

    monkeypatch.setattr(facepages, "rasterise", no_raster)
    monkeypatch.setattr(facepages, "write_faces_pdf", no_pages)
    assert kit.build(*profiles, "--lang", "en").code == 0
    for name, files in cold.items():
        assert _tree(out / name) == files, name


def test_an_edited_face_is_rasterised_again_and_only_it(kit, monkeypatch):
    assert kit.build("--profile", "thegamecrafter", "--lang", "en").code == 0
    rendered = []
    real = facepages.rasterise
    monkeypatch.setattr(
        facepages,
        "rasterise",
        lambda pdf, shots, *a: rendered.extend(shots) or real(pdf, shots, *a),
    )
    kit.edit(
        "components/mammoth-herd/tiles.yaml",
        "{id: bonus-01, first: tool, all: food1",
        "{id: bonus-01, first: tool, all: brick1",
    )
    assert kit.build("--profile", "thegamecrafter", "--lang", "en").code == 0
    assert [s.path.name for s in rendered] == ["001a-bonus-01-front.png"]


def test_png_switch_writes_every_face_at_the_chosen_dpi(kit):
    run = kit.build("--png", "150", "--lang", "en")
    assert run.code == 0, run.out
    folder = kit.root / "build" / "mammoth-herd" / "png-150" / "en"
    tile = Image.open(folder / "03-bonus-tiles" / "001a-bonus-01-front.png")
    assert tile.size == (round(45 / 25.4 * 150), round(45 / 25.4 * 150))  # trim only, no bleed
    assert round(tile.info["dpi"][0]) == 150
    rows = list(csv.DictReader(open(folder / "manifest.csv", encoding="utf-8")))
    assert len(rows) == 1 + 2 + 32 and {r["dpi"] for r in rows} == {"150"}


@pytest.mark.parametrize("value", ["5", "3000", "x", "nan"])
def test_png_switch_refuses_a_silly_dpi(kit, capsys, value):
    with pytest.raises(SystemExit) as exc:
        main(["build", str(kit.pack), "--png", value])
    assert exc.value.code == 2
    assert (
        f"argument --png: must be a whole number of dots per inch from 36 to 2400 (got '{value}')"
        in capsys.readouterr().err
    )


def test_tts_standee_is_the_figure_cut_from_its_fold_over_layout(kit):
    assert kit.build("--profile", "tabletop-simulator", "--lang", "en").code == 0
    folder = kit.root / "build" / "mammoth-herd" / "tabletop-simulator" / "en"
    figure = json.loads((folder / "mammoth-herd-en.json").read_text())["ObjectStates"][0]
    assert figure["Name"] == "Figurine_Custom"
    image = figure["CustomImage"]
    front = Image.open(Path(image["ImageURL"].removeprefix("file://"))).convert("RGB")
    back = Image.open(Path(image["ImageSecondaryURL"].removeprefix("file://"))).convert("RGB")
    mm = (
        1181 / 100
    )  # the 40 x 100 mm standee at 300 dpi; each panel leaves out 0.3 mm of fold line at both ends
    assert front.size == back.size == (472, round((100 - 12 - 0.3) * mm) - round((50 + 0.3) * mm))
    for panel in (front, back):  # the mammoth in the middle, sky above it, grass at its feet
        w, h = panel.size
        assert panel.getpixel((w // 2, h // 2)) == (110, 74, 47)
        assert panel.getpixel((w // 2, 0)) == (223, 233, 239)
        assert panel.getpixel((w // 2, h - 1)) == (185, 204, 142)
    # the back panel is printed upside down: turned, the mammoth faces the same way as on the front
    assert back.getpixel((int(w * 0.8), int(h * 0.55))) == front.getpixel(
        (int(w * 0.8), int(h * 0.55))
    )


def test_a_standee_without_its_layout_is_the_whole_print_with_a_warning(kit):
    kit.edit("components/mammoth-herd/herd.yaml", "  standee: {base: 12mm}", "  # no layout")
    run = kit.build("--profile", "tabletop-simulator", "--lang", "en")
    assert run.code == 0
    assert (
        "components/mammoth-herd/herd.yaml:2:1: warning: group "
        "'herd' becomes a figurine of its whole print layout "
        "(tabs and the upside-down panel included); declare "
        "its fold-over layout, e.g. standee: {base: 12mm}, "
        "and the figure is cut out [export]"
    ) in run.lines


@pytest.mark.parametrize(
    "layout, message",
    [
        (
            "{base: 50mm}",
            "herd.yaml:14:19: error: a standee's two base tabs (50 mm each) "
            "must leave room for its panels in its 100 mm height [schema]",
        ),
        (
            "{bsae: 12mm}",
            "herd.yaml:14:13: error: unknown key 'bsae' "
            "in 'standee' (did you mean 'base'?) [schema]",
        ),
    ],
)
def test_the_standee_layout_is_checked(kit, layout, message):
    kit.edit("components/mammoth-herd/herd.yaml", "standee: {base: 12mm}", f"standee: {layout}")
    run = kit.validate()
    assert run.code == 1
    assert f"components/mammoth-herd/{message}" in run.lines, run.lines


def test_an_image_export_too_large_to_rasterise_is_refused(kit):
    kit.edit("components/mammoth-herd/herd.yaml", "size: 40x100mm", "size: 1900x1900mm")
    kit.edit("components/mammoth-herd/herd.yaml", "  standee: {base: 12mm}", "  # no layout")
    run = kit.build("--png", "300", "--lang", "en")
    assert run.code == 1
    assert (
        "components/mammoth-herd/herd.yaml:2:1: error: group "
        "'herd' would be 22441 x 22441 px images at 300 dpi, "
        "over the 150 megapixels an image may have; export it at a lower dpi [export]"
    ) in run.lines
    assert not (kit.root / "build" / "mammoth-herd" / "png-300").exists()


def test_tts_round_tokens_come_in_as_round_tiles(breakable):
    kit = breakable("anunnaki")
    assert kit.build("--profile", "tabletop-simulator", "--lang", "en").code == 0
    save = json.loads(
        (kit.root / "build/anunnaki/tabletop-simulator/en/anunnaki-en.json").read_text()
    )
    types = {}  # item id -> the CustomTile types its tiles have
    for obj in save["ObjectStates"]:
        for piece in obj.get("ContainedObjects", [obj]):
            if piece["Name"] == "Custom_Tile":
                types.setdefault(piece["Nickname"], set()).add(
                    piece["CustomImage"]["CustomTile"]["Type"]
                )
    round_tile, hex_tile = tts.TILE_TYPES["round-tile"], tts.TILE_TYPES["hex-tile"]
    assert types["gold"] == {round_tile} and types["nibiru-ring"] == {round_tile}  # shape: circle
    hexes = [i for i, kinds in types.items() if kinds == {hex_tile}]
    assert len(hexes) >= 5  # the hex tiles stay hexes


def test_mlem_dice_are_tts_dice(breakable):
    """Each die of MLEM is a Custom_Model die whose rotations name its faces (the model and
    texture, drawn by Star Cargo's template, are checked in test_ttsdice.py)."""
    kit = breakable("mlem")
    run = kit.build("--profile", "tabletop-simulator", "--lang", "en")
    assert run.code == 0 and not [line for line in run.lines if "die" in line]
    save = json.loads((kit.root / "build/mlem/tabletop-simulator/en/mlem-en.json").read_text())
    bags = {o["Nickname"]: o for o in save["ObjectStates"] if o["Name"] == "Bag"}
    for group in ("dice", "dice-large"):
        dice = bags[group]["ContainedObjects"]
        assert [d["Nickname"] for d in dice] == [f"die-{n}" for n in range(1, 7)]
        for die in dice:
            assert die["Name"] == "Custom_Model" and die["CustomMesh"]["TypeIndex"] == 2
            values = sorted(str(v["Value"]) for v in die["RotationValues"])
            assert values == ["1", "2", "2", "3", "4", "afterburner"]
