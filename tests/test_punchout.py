"""The Game Crafter's custom punchout and card stock: pieces no product fits, laid out on a slug
with an SVG cut file (punchout.py)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from PIL import Image

from conftest import ROOT, SOLID, write_pack
from pnpkit.build import pipeline as build
from pnpkit.export import export, profile

MM = 300 / 25.4  # pixels per mm at TGC's 300 dpi
EIGHTH = 3.175  # mm: TGC's 1/8 in between cut lines (help article 201)
HALVES = """{% extends "_face.svg.j2" %}{% block content %}
<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" width="{{ face.w / 2 + face.bleed }}" height="{{ face.h + 2 * face.bleed }}" fill="#ff0000"/>
<rect x="{{ face.w / 2 }}" y="{{ -face.bleed }}" width="{{ face.w / 2 + face.bleed }}" height="{{ face.h + 2 * face.bleed }}" fill="#0000ff"/>
{% endblock %}
"""  # noqa: E501 (data: markup kept as written)
COLOURS = {"t0": (200, 30, 30), "t1": (30, 160, 40), "t2": (240, 200, 20)}
BACKS = {"t0": (10, 20, 90), "t1": (90, 90, 90), "t2": (60, 0, 60)}


def _pack(root: Path, kind: str, size: str, counts: tuple[int, ...], halves: bool = False) -> Path:
    """Pieces of one size, fronts in COLOURS and backs in BACKS, 1/8 in bleed."""

    def hexa(rgb: tuple[int, int, int]) -> str:
        return "#" + "".join(f"{v:02x}" for v in rgb)

    items = "\n".join(
        f"    - {{id: {name}, count: {n}, colour: '{hexa(rgb)}', shade: '{hexa(BACKS[name])}'}}"
        for (name, rgb), n in zip(COLOURS.items(), counts)
    )
    return write_pack(
        root,
        {
            "game.yaml": "name: Slug\nlanguages: [en]\nplayers: {min: 1, max: 1}\n"
            "print:\n  bleed: 0.125in\n",
            "pieces.yaml": f"pieces:\n  kind: {kind}\n  size: {size}\n  front: front.svg.j2\n"
            "  back: back.svg.j2\n  fields:\n    colour: string\n    shade: string\n"
            f"  items:\n{items}\n",
            "templates/front.svg.j2": HALVES if halves else SOLID,
            "templates/back.svg.j2": SOLID.replace("{{ item.colour }}", "{{ item.shade }}"),
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text(),
        },
    )


def _export(pack: Path, out: Path):
    result = build.validate(pack)
    assert not result.errors, [str(p) for p in result.errors]
    tgc, _ = profile.load("thegamecrafter")
    assert tgc is not None
    problems = export.export(result.pack, result.faces, out, tgc)
    return problems, out / result.pack.id / "thegamecrafter" / "en", tgc


def _pieces(svg: str) -> list[list[tuple[float, float]]]:
    """Each <path>'s points (the ends of its segments) in mm."""
    return [
        [(float(x), float(y)) for x, y in re.findall(r"(-?[\d.]+) (-?[\d.]+)(?= [LMA]|$)", d)]
        for d in re.findall(r' d="([^"]+)"', svg)
    ]


def _box(points: list[tuple[float, float]]) -> tuple[float, float, float, float]:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def test_tokens_no_product_fits_are_laid_out_on_a_custom_punchout_slug(tmp_path):
    problems, folder, tgc = _export(_pack(tmp_path / "p", "token", "40x40mm", (5, 4, 1)), tmp_path)
    assert not [p for p in problems if "matches no product" in p.message]
    # 10 pieces: 2 medium slugs of 8 (46452 mm2) take less than 5 small ones of 2 or a large one
    slug = next(p for p in tgc.products if p.name == "custom medium punchout")
    assert slug.trim == (203.2, 114.3) and slug.pixels == (2400, 1350)
    rows = [r.split(",") for r in (folder / "manifest.csv").read_text().splitlines()[1:]]
    assert {r[-1] for r in rows} == {"custom medium punchout (8 a slug)"}
    # each slug a front, a back and a cut file
    names = sorted(p.name for p in (folder / "01-pieces").iterdir())
    assert names == [f"slug-0{n}-{s}" for n in (1, 2) for s in ("back.png", "cut.svg", "front.png")]
    for n in (1, 2):
        for side in ("front", "back"):
            image = Image.open(folder / "01-pieces" / f"slug-0{n}-{side}.png")
            assert image.size == slug.pixels and round(image.info["dpi"][0]) == 300

    svg = (folder / "01-pieces" / "slug-01-cut.svg").read_text()
    assert 'width="8in" height="4.5in" viewBox="0 0 203.2 114.3"' in svg
    outlines = _pieces(svg)
    assert len(outlines) == 8
    boxes = [_box(o) for o in outlines]
    for x0, y0, x1, y1 in boxes:  # each cut is the 40 mm trim, 1/8 in or more inside the slug
        assert abs(x1 - x0 - 40) < 0.01 and abs(y1 - y0 - 40) < 0.01
        assert min(x0, y0, 203.2 - x1, 114.3 - y1) >= EIGHTH - 1e-6
    for a, b in itertools.combinations(boxes, 2):  # cut lines at least 1/8 in apart
        assert max(b[0] - a[2], a[0] - b[2], b[1] - a[3], a[1] - b[3]) >= EIGHTH - 1e-6
    for d in re.findall(r' d="([^"]+)"', svg):  # one subpath between each two nicks, 4 nicks
        assert d.count("M ") == 4

    # the pixels: each piece's colour inside its cut, its back at the mirrored place (the second
    # row is t0 t1 t1 t1 on the front, so its back shows t1 t1 t1 t0)
    front = Image.open(folder / "01-pieces" / "slug-01-front.png").convert("RGB")
    back = Image.open(folder / "01-pieces" / "slug-01-back.png").convert("RGB")
    for (x0, y0, x1, y1), name in zip(boxes, ["t0"] * 5 + ["t1"] * 3):
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        assert front.getpixel((round(cx * MM), round(cy * MM))) == COLOURS[name]
        assert back.getpixel((round((203.2 - cx) * MM), round(cy * MM))) == BACKS[name]
        # the art's bleed runs 1/8 in past the cut, and the slug beyond is blank
        assert front.getpixel((round((x0 - 2.5) * MM), round(cy * MM))) == COLOURS[name]
    assert front.getpixel((3, 3)) == (255, 255, 255)
    last = Image.open(folder / "01-pieces" / "slug-02-front.png").convert("RGB")
    cuts = _pieces((folder / "01-pieces" / "slug-02-cut.svg").read_text())
    assert len(cuts) == 2  # the last slug cuts only the pieces on it
    (x0, y0, x1, y1) = _box(cuts[1])
    assert last.getpixel((round((x0 + x1) / 2 * MM), round((y0 + y1) / 2 * MM))) == COLOURS["t2"]


def test_a_piece_that_fits_only_turned_is_turned_on_the_slug_and_its_back_the_other_way(tmp_path):
    # a 107 x 75 mm card is wider than the small slug (82.55 mm): turned, it fits on card stock
    problems, folder, tgc = _export(
        _pack(tmp_path / "p", "card", "107x75mm", (1,), halves=True), tmp_path
    )
    assert not [p for p in problems if "matches no product" in p.message]
    rows = (folder / "manifest.csv").read_text()
    assert "custom small card stock (1 a slug)" in rows
    svg = (folder / "01-pieces" / "slug-01-cut.svg").read_text()
    x0, y0, x1, y1 = _box(_pieces(svg)[0])
    assert abs(x1 - x0 - 75) < 0.01 and abs(y1 - y0 - 107) < 0.01
    front = Image.open(folder / "01-pieces" / "slug-01-front.png").convert("RGB")
    cx = (x0 + x1) / 2
    # turned a quarter left: the face's left half (red) is now the lower half
    assert front.getpixel((round(cx * MM), round((y1 - 10) * MM))) == (255, 0, 0)
    assert front.getpixel((round(cx * MM), round((y0 + 10) * MM))) == (0, 0, 255)


def test_a_group_no_slug_holds_names_the_closest_products_and_by_how_much(tmp_path):
    problems, _, _ = _export(_pack(tmp_path / "p", "token", "300x300mm", (1,)), tmp_path)
    (warning,) = [p for p in problems if "matches no product" in p.message]
    assert warning.message == (
        "group 'pieces' is 300 x 300 mm, which matches no product in the thegamecrafter "
        "profile (closest: large square board / large square mat, 254 x 254 mm: 46 mm narrower, "
        "46 mm shorter; letter perfect-bound book, 215.9 x 279.4 mm: 84.1 mm narrower, 20.6 mm "
        "shorter; jumbo coil book, 209.55 x 254 mm: 90.5 mm narrower, 46 mm shorter; the "
        "smallest that holds it, medium six-fold board (406.4 x 406.4 mm), is 106.4 mm wider, "
        "106.4 mm taller: more than the 3 mm a side its bleed may cover); its images are "
        "3618 x 3618 px, trim plus bleed at 300 dpi"
    )


def test_a_slug_product_whose_pixels_are_not_its_trim_is_a_profile_error(tmp_path):
    path = tmp_path / "slugs.yaml"
    path.write_text(
        "name: S\noutput: images\nbleed: 0.125in\nproducts:\n"
        "  - {name: slug, trim: 3.25x5.25in, pixels: 1050x1650, kind: punchout}\n"
    )
    found, problems = profile.load(str(path))
    assert found is None
    assert [p.message for p in problems] == [
        "'pixels' 1050x1650 of a slug must be its trim at 300 dpi (975x1575): the pieces on it "
        "bring their own bleed"
    ]
