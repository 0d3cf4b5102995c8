"""Store images: which files, their exact width, transparent or chosen backgrounds, shadows, the
faces' own colours."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from conftest import ROOT, SOLID, write_pack
from pnpkit.commands.cli import main
from pnpkit.export import profile

COLOURS = ["#d03030", "#30a040", "#3050d0"]


def shop_pack(root: Path) -> Path:
    """Three poker cards printed twice each, and a board."""
    items = "\n".join(f"    - {{id: c{i}, count: 2, colour: '{c}'}}" for i, c in enumerate(COLOURS))
    return write_pack(
        root,
        {
            "game.yaml": "name: Shop\nlanguages: [en]\nplayers: {min: 1, max: 1}\n",
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n  front: solid.svg.j2\n "
            f" fields:\n    colour: string\n  items:\n{items}\n",
            "board.yaml": "board:\n  kind: board\n  size: 200x150mm\n  "
            "front: solid.svg.j2\n  fields:\n    colour: string\n "
            " items:\n    - {id: map, colour: '#e0c060'}\n",
            "templates/solid.svg.j2": SOLID,
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text(),
        },
    )


def my_profile(root: Path, background: str = "transparent") -> Path:
    text = (ROOT / "src/pnpkit/profiles/showcase.yaml").read_text()
    text = text.replace("width: 1600", "width: 480").replace(
        "background: transparent", f"background: '{background}'"
    )
    path = root / "shop.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    root = tmp_path_factory.mktemp("shop")
    pack = shop_pack(root / "shop")
    assert (
        main(["build", str(pack), "--out", str(root / "out"), "--profile", str(my_profile(root))])
        == 0
    )
    return root / "out" / "shop" / "shop" / "en"


def test_a_hand_and_a_grid_per_deck_and_a_hero_per_board(shop):
    assert sorted(p.name for p in shop.iterdir()) == [
        "01-board-map-hero.png",
        "02-cards-grid.png",
        "02-cards-hand.png",
    ]


def test_every_image_is_the_chosen_width_on_a_transparent_background_with_a_soft_shadow(shop):
    for path in shop.iterdir():
        image = Image.open(path)
        assert image.mode == "RGBA" and image.width == 480, path.name
        alpha = image.getchannel("A")
        corners = [
            alpha.getpixel(p)
            for p in ((0, 0), (479, 0), (0, image.height - 1), (479, image.height - 1))
        ]
        assert corners == [0, 0, 0, 0], path.name
        shades = alpha.histogram()
        assert sum(shades[1:255]) > 500 and shades[255] > 10000, (
            path.name
        )  # a soft shadow around opaque pieces


def test_the_pieces_show_their_own_faces(shop):
    board = Image.open(shop / "01-board-map-hero.png")
    assert board.height == pytest.approx(
        480 * 150 / 200, abs=30
    )  # the board's proportions, plus the shadow's margin
    assert board.getpixel((240, board.height // 2))[:3] == pytest.approx((0xE0, 0xC0, 0x60), abs=3)
    grid = Image.open(shop / "02-cards-grid.png")
    row = [grid.getpixel((x, grid.height // 2)) for x in range(grid.width)]
    seen = []
    for pixel in row:  # the colours left to right along the middle, each once
        for colour in COLOURS:
            rgb = tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
            if (
                pixel[3] == 255
                and pixel[:3] == pytest.approx(rgb, abs=3)
                and (not seen or seen[-1] != colour)
            ):
                seen.append(colour)
    assert seen == COLOURS


def test_a_hand_holds_the_copies_too_and_fans_them(shop):
    hand = Image.open(shop / "02-cards-hand.png")
    assert hand.width > hand.height  # six cards fanned are wider than tall
    top = [hand.getpixel((x, y)) for y in range(hand.height // 3) for x in range(0, hand.width, 4)]
    assert any(p[3] == 255 for p in top)


def test_a_chosen_background_colour(tmp_path):
    pack = shop_pack(tmp_path / "shop")
    assert (
        main(
            [
                "build",
                str(pack),
                "--out",
                str(tmp_path / "out"),
                "--profile",
                str(my_profile(tmp_path, "#f4efe6")),
            ]
        )
        == 0
    )
    image = Image.open(tmp_path / "out" / "shop" / "shop" / "en" / "01-board-map-hero.png")
    assert image.mode == "RGB" and image.getpixel((0, 0)) == (0xF4, 0xEF, 0xE6)


def test_showcase_options_are_checked(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(
        "name: Bad\noutput: showcase\nwidth: 50\nbackground: pink\nhnad: 3\n", encoding="utf-8"
    )
    found, problems = profile.load(str(path))
    assert found is None
    assert [
        (Path(p.where.file).resolve(), p.where.line, p.where.column, p.message) for p in problems
    ] == [
        (
            path,
            5,
            1,
            "unknown key 'hnad' in a profile with output 'showcase' (did you mean 'hand'?)",
        ),
        (path, 3, 8, "'width' must be between 200 and 8000 (got 50)"),
        (path, 4, 13, "'background' must be transparent or a colour #rrggbb (got 'pink')"),
    ]
