"""MLEM: Space Agency: every rule fires on a broken copy; the dice nets and the metre-long track
on paper."""

from __future__ import annotations

import itertools
import math

import pypdfium2
import pytest
from PIL import Image, ImageChops
from pypdf import PdfReader

from conftest import ROOT, Run, as_laid_out, but_overlap, kit_start, page_texts
from pnpkit.build.pipeline import validate
from pnpkit.checks import cvd
from pnpkit.commands.cli import main
from pnpkit.kinds import dice
from pnpkit.pdf.marks import alignment_marks
from registered import impose

M = "components/mlem"
DPI = 300
PX = DPI / 25.4  # pixels per mm


@pytest.fixture
def mlem(reused):
    """A breakable copy of the MLEM kit (the module's one, put back after each test)."""
    return reused("mlem")


def rules(mlem) -> Run:
    """A broken copy validated in Italian alone: its rules look at the pack, not a language
    (the clean kit is validated in both), and one language's faces take half the time."""
    return mlem.run("validate", str(mlem.pack), "--lang", "it")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The kit built once: {lang: PDF path}, the A3 PDFs, and the layout the build used."""
    out = tmp_path_factory.mktemp("mlem")
    every = [
        "--variant",
        "nets-16mm",
        "--variant",
        "nets-25mm",
        "--variant",
        "stickers",
    ]  # each way to make the dice
    assert main(["build", str(ROOT / M), "--out", str(out), *every]) == 0
    variants = {"variants": ("nets-16mm", "nets-25mm", "stickers")}
    result = validate(ROOT / M, ["it"], overrides=variants)  # the tests impose its Italian faces
    pages, problems = impose(result.faces["it"], result.pack.print)
    assert problems == []
    folder = out / "mlem"
    return {
        "it": folder / "mlem-it.pdf",
        "en": folder / "mlem-en.pdf",
        "a3": folder / "mlem-it-a3.pdf",
        "pages": pages,
        "pack": result.pack,
        "first": kit_start(folder / "mlem-it.pdf"),  # layout page 0: after the guide, the check
    }


def render(pdf, index: int) -> Image.Image:
    page = pypdfium2.PdfDocument(str(pdf))[index]
    return (
        page.render(scale=DPI / 72, no_smoothpath=True, no_smoothtext=True).to_pil().convert("RGB")
    )


# ------------------------------------------------------------------ the pack and its rules


def test_the_kit_validates_clean(mlem):
    run = mlem.validate()
    assert run.code == 0 and run.lines == []


class TestComponentRules:
    def test_c01_forty_astronauts_one_of_each_ability_per_colour(self, mlem):
        mlem.edit(
            f"{M}/astronauts.yaml",
            "    - {id: yellow-long-jump, colour: yellow, ability: long_jump}\n",
            "",
        )
        assert rules(mlem).lines == [
            f"{M}/game.yaml:138:5: error: group 'astronauts' has "
            "39 components; the game needs exactly 40 [MLEM-C01]",
            f"{M}/game.yaml:139:5: error: colour 'yellow' has no "
            "astronaut with the ability 'long_jump' [MLEM-C01]",
        ]

    def test_c01_an_ability_twice_in_one_colour(self, mlem):
        mlem.edit(
            f"{M}/astronauts.yaml",
            "colour: blue, ability: moon_double}",
            "colour: blue, ability: parachute}",
        )
        assert rules(mlem).lines == [
            f"{M}/astronauts.yaml:15:53: error: astronaut "
            "'blue-moon-double' repeats the ability 'parachute' of "
            "'blue-parachute'; each colour has one of each [MLEM-C01]",
            f"{M}/game.yaml:139:5: error: colour 'blue' has no "
            "astronaut with the ability 'moon_double' [MLEM-C01]",
        ]

    def test_c02_five_player_boards_one_per_colour(self, mlem):
        mlem.edit(
            f"{M}/boards.yaml",
            "{id: board-yellow, colour: yellow",
            "{id: board-yellow, colour: pink",
        )
        assert rules(mlem).lines == [
            f"{M}/game.yaml:142:5: error: group 'player-boards' has 0 "
            "items of colour 'yellow'; the game needs one [MLEM-C02]",
            f"{M}/game.yaml:142:5: error: group 'player-boards' has "
            "2 items of colour 'pink'; the game needs one [MLEM-C02]",
        ]

    def test_c02_boards_hold_eight(self, mlem):
        mlem.edit(f"{M}/boards.yaml", "colour: green, slots: 8}", "colour: green, slots: 7}")
        assert rules(mlem).lines == [
            f"{M}/boards.yaml:36:47: error: item 'board-green': "
            "'slots' is int 7; the game allows 8 [MLEM-C02]"
        ]

    def test_c02_and_c04_follow_the_most_players(self, mlem):
        mlem.edit(f"{M}/game.yaml", "players: {min: 2, max: 5,", "players: {min: 2, max: 6,")
        assert rules(mlem).lines == [
            f"{M}/boards.yaml:23:33: error: rocket 'rocket-board' "
            "has 5 seats; 6 players need at least 6 [MLEM-C04]",
            f"{M}/game.yaml:140:5: error: group 'player-boards' "
            "has 5 components; the game needs exactly 6 [MLEM-C02]",
        ]

    def test_c03_six_dice(self, mlem):
        mlem.edit(f"{M}/dice.yaml", "    - {id: die-6,", "    # - {id: die-6,")
        assert rules(mlem).lines == [
            f"{M}/game.yaml:143:5: error: group 'dice' has 5 "
            "components; the game needs exactly 6 [MLEM-C03]"
        ]

    def test_c03_faces_of_a_die(self, mlem):
        mlem.edit(
            f"{M}/dice.yaml",
            "{id: die-1, faces: [1, 2, 2, 3, 4, afterburner]",
            "{id: die-1, faces: [1, 2, 3, 3, 4, afterburner]",
        )
        pairs, has = (
            "['1', '2', '2', '3', '4', 'afterburner']",
            "['1', '2', '3', '3', '4', 'afterburner']",
        )
        assert rules(mlem).lines == [
            f"{M}/dice.yaml:16:7: error: template 'mlem/die-net.svg.j2' line "
            f"10: DieError: the opposite pairs use the faces {pairs}, but "
            f"the die has {has} (rendering the front of 'die-1') [template]",
            f"{M}/dice.yaml:16:7: error: template 'mlem/die-stickers.svg.j2' "
            f"line 8: DieError: the opposite pairs use the faces {pairs}, but "
            f"the die has {has} (rendering the front of 'die-1') [template]",
            f"{M}/dice.yaml:16:26: error: die 'die-1' has "
            f"faces {has}; the game needs {pairs} [MLEM-C03]",
            f"{M}/dice.yaml:16:66: error: die 'die-1': the opposite pairs "
            f"use the faces {pairs}, but the die has {has} [MLEM-C03]",
        ]

    def test_c03_opposite_pairs_are_the_faces(self, mlem):
        mlem.edit(
            f"{M}/dice.yaml",
            "{id: die-2, faces: [1, 2, 2, 3, 4, afterburner], "
            "opposite: [[1, 2], [2, 4], [3, afterburner]]",
            "{id: die-2, faces: [1, 2, 2, 3, 4, afterburner], "
            "opposite: [[1, 2], [2, 2], [4, afterburner]]",
        )
        lines = rules(mlem).lines
        assert lines[-1] == (
            f"{M}/dice.yaml:17:66: error: die 'die-2': the opposite pairs "
            "use the faces ['1', '2', '2', '2', '4', 'afterburner'],"
            " but the die has ['1', '2', '2', '3', '4', 'afterburner'] [MLEM-C03]"
        )
        assert len(lines) == 3  # and the net and the stickers cannot be drawn

    def test_c04_a_seat_for_every_player(self, mlem):
        mlem.edit(f"{M}/boards.yaml", "seats: 5", "seats: 4")
        assert rules(mlem).lines == [
            f"{M}/boards.yaml:23:33: error: rocket 'rocket-board' "
            "has 4 seats; 5 players need at least 5 [MLEM-C04]"
        ]

    def test_c05_four_objectives(self, mlem):
        mlem.edit(
            f"{M}/tokens.yaml",
            "    - id: objective-galaxy\n",
            "    - id: objective-galaxy\n      count: 2\n",
        )
        assert rules(mlem).lines == [
            f"{M}/game.yaml:147:5: error: group 'objectives' has "
            "5 components; the game needs exactly 4 [MLEM-C05]"
        ]

    def test_c05_worth_five(self, mlem):
        mlem.edit(
            f"{M}/tokens.yaml",
            "      condition: planet3\n      value: 5",
            "      condition: planet3\n      value: 4",
        )
        assert rules(mlem).lines == [
            f"{M}/tokens.yaml:26:14: error: item 'objective-crowd': "
            "'value' is int 4; the game allows 5 [MLEM-C05]"
        ]

    def test_c05_each_condition_once(self, mlem):
        mlem.edit(f"{M}/tokens.yaml", "      condition: planet3\n", "      condition: planets4\n")
        assert rules(mlem).lines == [
            f"{M}/tokens.yaml:25:18: error: objective 'objective-crowd' "
            "repeats the condition 'planets4' of "
            "'objective-planets'; each can be claimed once [MLEM-C05]"
        ]

    def test_c06_sixty_four_score_tokens(self, mlem):
        mlem.edit(f"{M}/tokens.yaml", "value: 1, count: 20", "value: 1, count: 19")
        assert rules(mlem).lines == [
            f"{M}/game.yaml:150:5: error: group 'score-tokens' has "
            "63 components; the game needs exactly 64 [MLEM-C06]"
        ]

    def test_c06_tokens_pay_every_score(self, mlem):
        mlem.edit(f"{M}/tokens.yaml", "{id: score-1, value: 1,", "{id: score-1, value: 3,")
        assert rules(mlem).lines == [
            f"{M}/game.yaml:102:46: error: the moon 1 of space 6 is worth "
            "1, which the score tokens (2, 3, 5, 10) cannot pay [MLEM-C06]",
            f"{M}/game.yaml:124:76: error: planet 'yarn' (other) is worth "
            "1, which the score tokens (2, 3, 5, 10) cannot pay [MLEM-C06]",
        ]

    def test_c06_enough_points_in_the_supply(self, mlem):
        mlem.edit(f"{M}/game.yaml", "supply_at_least: 250", "supply_at_least: 300")
        assert rules(mlem).lines == [
            f"{M}/game.yaml:135:22: error: the score tokens hold "
            "262 points; the game needs at least 300 [MLEM-C06]"
        ]

    def test_c07_the_eleventh_crash(self, mlem):
        mlem.edit(f"{M}/game.yaml", "failure_track: {crashes: 11}", "failure_track: {crashes: 10}")
        assert rules(mlem).lines == [
            f"{M}/game.yaml:131:28: error: the failure track ends "
            "at crash 10; the game ends at the 11th crash [MLEM-C07]"
        ]


class TestTrackRules:
    @pytest.mark.parametrize(
        "old, new, expected",
        [
            (
                "      - {space: 25, deep_space: true}\n",
                "",
                [
                    "game.yaml:96:7: error: the track has 25 "
                    "spaces; the game has 26 (0-25) [MLEM-T01]",
                    "game.yaml:120:9: error: the last space (24) must be deep space [MLEM-T01]",
                ],
            ),
            (
                "{space: 13,",
                "{space: 31,",
                ["game.yaml:109:17: error: space 13 of the track is numbered 31 [MLEM-T01]"],
            ),
            (
                "moons: [10, 9, 8]}",
                "moons: [10, 9, 8], deep_space: true}",
                [
                    "game.yaml:120:67: error: space 24 is deep "
                    "space, but only the last space is [MLEM-T01]"
                ],
            ),
        ],
        ids=["26-spaces", "numbered-in-order", "deep-space-last"],
    )
    def test_t01(self, mlem, old, new, expected):
        mlem.edit(f"{M}/game.yaml", old, new)
        assert but_overlap(rules(mlem).lines) == [f"{M}/{line}" for line in expected]

    @pytest.mark.parametrize(
        "old, new, expected",
        [
            (
                "{space: 1, faces: [1, 2, 3]}",
                "{space: 1, faces: [1, 2, 3, 4]}",
                [
                    "game.yaml:97:27: error: space 1 allows 4 faces (1, 2, "
                    "3, 4); a space allows 2 or 3 different faces [MLEM-T02]"
                ],
            ),
            (
                "{space: 5, faces: [1, 4]}",
                "{space: 5, faces: [4, 4]}",
                [
                    "game.yaml:101:27: error: space 5 allows 2 faces (4, "
                    "4); a space allows 2 or 3 different faces [MLEM-T02]"
                ],
            ),
            (
                "{space: 2, faces: [2, 4, afterburner], ab: 2}",
                "{space: 2, faces: [2, 4, afterburner]}",
                [
                    "game.yaml:98:9: error: space 2 allows the afterburner "
                    "but gives it no move; add ab: 1 or more [MLEM-T02]"
                ],
            ),
            (
                "{space: 2, faces: [2, 4, afterburner], ab: 2}",
                "{space: 2, faces: [2, 4, afterburner], ab: 0}",
                [
                    "game.yaml:98:52: error: space 2 gives the "
                    "afterburner a move of 0; it needs 1 or more [MLEM-T02]"
                ],
            ),
            (
                "{space: 3, faces: [1, 3, 4]}",
                "{space: 3, faces: [1, 3, 4], ab: 2}",
                [
                    "game.yaml:99:42: error: space 3 gives the afterburner "
                    "a move (ab: 2) but does not allow it [MLEM-T02]"
                ],
            ),
            (
                "{space: 10, faces: [1, 2]",
                "{space: 10, faces: [1, 6]",
                [
                    "boards.yaml:12:7: error: template 'mlem/track.svg.j2' line "
                    "122: undefined variable: a mapping has no key 6 (its keys are "
                    "1, 2, 3, 4) (rendering the front of 'cosmic-track') [template]",
                    "game.yaml:106:28: error: space 10 allows '6', which "
                    "is not a die face (1, 2, 3, 4, afterburner) [MLEM-T02]",
                ],
            ),
        ],
        ids=[
            "four-faces",
            "one-face",
            "no-afterburner-move",
            "zero-move",
            "move-without-afterburner",
            "not-a-face",
        ],
    )
    def test_t02(self, mlem, old, new, expected):
        mlem.edit(f"{M}/game.yaml", old, new)
        assert but_overlap(rules(mlem).lines) == [f"{M}/{line}" for line in expected]

    def test_t03_only_for_a_pack_that_reproduces_the_published_track(self, mlem):
        mlem.edit(f"{M}/game.yaml", "{space: 5, faces: [1, 4]}", "{space: 5, faces: [1, 3]}")
        assert rules(mlem).lines == []  # our own track: T03 does not apply
        mlem.edit(f"{M}/game.yaml", "published: false", "published: true")
        assert rules(mlem).lines == [
            f"{M}/game.yaml:101:27: error: space 5 allows 1, 3; the published "
            "track allows 1, 4 there (or set track.published: false) [MLEM-T03]"
        ]

    @pytest.mark.parametrize(
        "old, new, expected",
        [
            (
                "{space: 3, faces: [1, 3, 4]}",
                "{space: 3, faces: [1, 3, 4], moons: [1, 2]}",
                [
                    "game.yaml:99:9: error: space 3 has a landing "
                    "site; nobody lands before space 6 [MLEM-T04]"
                ],
            ),
            (
                "planet: yarn}",
                "planet: yarn, moons: [3]}",
                [
                    "game.yaml:104:43: error: space 8 has both moons and a "
                    "planet; a landing space has one or the other [MLEM-T04]"
                ],
            ),
            (
                "landing_from: 6",
                "landing_from: 5",
                [
                    "game.yaml:91:19: error: landing starts at space "
                    "5; the game allows it from space 6 [MLEM-T04]"
                ],
            ),
        ],
        ids=["too-early", "moons-and-planet", "landing-from"],
    )
    def test_t04(self, mlem, old, new, expected):
        mlem.edit(f"{M}/game.yaml", old, new)
        assert but_overlap(rules(mlem).lines) == [f"{M}/{line}" for line in expected]

    @pytest.mark.parametrize(
        "old, new, expected",
        [
            (
                "moons: [6, 4]}",
                "moons: [4, 4]}",
                [
                    "game.yaml:109:60: error: space 13 has two moons worth "
                    "4; the moons of a space need different values [MLEM-T05]"
                ],
            ),
            (
                "moon_capacity: 1",
                "moon_capacity: 2",
                ["game.yaml:92:20: error: a moon holds 2 astronauts; it holds one [MLEM-T05]"],
            ),
        ],
        ids=["distinct-values", "one-astronaut"],
    )
    def test_t05(self, mlem, old, new, expected):
        mlem.edit(f"{M}/game.yaml", old, new)
        assert but_overlap(rules(mlem).lines) == [f"{M}/{line}" for line in expected]

    @pytest.mark.parametrize(
        "old, new, expected",
        [
            (
                "    purr: {name:",
                "    # purr: {name:",
                [
                    "boards.yaml:12:7: error: template 'mlem/track.svg.j2' line 104: undefined "
                    "variable: 'data.planets' has no key 'purr' (its keys are yarn, whisker, "
                    "paw, tail) (rendering the front of 'cosmic-track') [template]",
                    "game.yaml:118:64: error: space 22 lies beside the planet 'purr', which is "
                    "not in data.planets [MLEM-T06]",
                    "game.yaml:124:5: error: the game has 4 planets; it needs 5 [MLEM-T06]",
                ],
            ),
            (
                "first: 10, second: 5, other: 2",
                "first: 5, second: 10, other: 2",
                [
                    "game.yaml:126:10: error: planet 'paw' scores 5/10/2; "
                    "the game needs first >= second >= other >= 0 [MLEM-T06]"
                ],
            ),
            (
                'other: 3, capacity: unlimited, hex: "#d9c38c"',
                'other: 3, capacity: 6, hex: "#d9c38c"',
                [
                    "game.yaml:127:86: error: planet 'tail' holds 6 "
                    "astronauts; planets hold any number (unlimited) [MLEM-T06]"
                ],
            ),
            (
                "{space: 19, faces: [1, 4], planet: tail}",
                "{space: 19, faces: [1, 4], planet: purr}",
                [
                    "game.yaml:127:11: error: planet 'tail' lies "
                    "beside 0 spaces; it needs exactly one [MLEM-T06]",
                    "game.yaml:128:11: error: planet 'purr' lies "
                    "beside 2 spaces; it needs exactly one [MLEM-T06]",
                ],
            ),
        ],
        ids=["five-planets", "score-order", "unlimited", "one-space-each"],
    )
    def test_t06(self, mlem, old, new, expected):
        mlem.edit(f"{M}/game.yaml", old, new)
        assert but_overlap(rules(mlem).lines) == [f"{M}/{line}" for line in expected]

    def test_t07_comet_7_galaxy_5_room_for_all(self, mlem):
        mlem.edit(
            f"{M}/game.yaml",
            "deep_space: {comet: 7, galaxy: 5, capacity: unlimited}",
            "deep_space: {comet: 6, galaxy: 7, capacity: 20}",
        )
        assert rules(mlem).lines == [
            f"{M}/game.yaml:130:23: error: the comet gives 6 points; the game gives 7 [MLEM-T07]",
            f"{M}/game.yaml:130:34: error: the galaxy gives 7 points; the game gives 5 [MLEM-T07]",
            f"{M}/game.yaml:130:47: error: deep space holds 20 "
            "astronauts; it holds everyone (unlimited) [MLEM-T07]",
        ]


# ------------------------------------------------------------------ the dice nets on paper

CREAM, GREY = (0xFD, 0xF6, 0xE3), (0xC8, 0xCC, 0xD2)  # a net's squares, its glue tabs
# The cross: T over F; L, F, R, B in a row; D under F. Written out by hand, not taken from dice.py.
T, L, F, R, B, D = (1, 0), (0, 1), (1, 1), (2, 1), (3, 1), (1, 2)
CROSS = {T, L, F, R, B, D}
# The 7 pairs of edges that meet when the cross is folded into a cube.
SEAMS = [
    ((T, "left"), (L, "up")),
    ((T, "right"), (R, "up")),
    ((T, "up"), (B, "up")),
    ((L, "down"), (D, "left")),
    ((R, "down"), (D, "right")),
    ((B, "down"), (D, "down")),
    ((L, "left"), (B, "right")),
]
TABS = {(L, "up"), (R, "up"), (B, "up"), (D, "left"), (D, "right"), (B, "down"), (B, "right")}
OUT = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}


def colour_mask(image: Image.Image, colour, tol: int = 6) -> Image.Image:
    """255 where image has colour (each channel within tol), else 0."""
    diff = ImageChops.difference(image, Image.new("RGB", image.size, colour))
    r, g, b = (band.point(lambda v: 255 if v <= tol else 0) for band in diff.split())
    return ImageChops.multiply(ImageChops.multiply(r, g), b)


def share(mask: Image.Image, box) -> float:
    """Share of mask pixels that are set inside box (px)."""
    part = mask.crop(tuple(round(v) for v in box))
    return part.histogram()[255] / max(1, part.width * part.height)


def net_placements(built, group):
    return [
        (n, p)
        for n, page in enumerate(built["pages"], built["first"])
        for p in page.placements
        if p.face.group == group
    ]


class TestDiceNetsOnPaper:
    @pytest.mark.parametrize("group, side", [("dice", 16), ("dice-large", 25)])
    def test_six_nets_of_six_squares_in_a_cross_with_tabs_on_the_right_edges(
        self, built, group, side
    ):
        placements = net_placements(built, group)
        assert len(placements) == 6
        images = {}
        for n, p in placements:
            if n not in images:  # each page rendered once
                images[n] = as_laid_out(render(built["it"], n), built["pages"][n - built["first"]])
            image = images[n]
            trim = image.crop(tuple(round(v * PX) for v in (p.x, p.y, p.x + p.w, p.y + p.h)))
            cream, grey = colour_mask(trim, CREAM), colour_mask(trim, GREY)
            left, top, right, bottom = cream.getbbox()
            # the squares span 4 x 3 of the set size (the outline's half width aside)
            assert (right - left) / PX == pytest.approx(4 * side, abs=0.5)
            assert (bottom - top) / PX == pytest.approx(3 * side, abs=0.5)
            cell = (right - left) / 4

            def box(c, r, inset=1.0, left=left, top=top, cell=cell):
                return (
                    left + c * cell + inset * PX,
                    top + r * cell + inset * PX,
                    left + (c + 1) * cell - inset * PX,
                    top + (r + 1) * cell - inset * PX,
                )

            # which cells of the 4 x 3 grid are squares of the die: the cross, a net that folds into
            # a cube
            squares = {(c, r) for c in range(4) for r in range(3) if share(cream, box(c, r)) > 0.6}
            empty = {(c, r) for c in range(4) for r in range(3) if share(cream, box(c, r)) < 0.01}
            assert squares == CROSS and len(empty) == 6
            dice.fold(sorted(squares))
            # a glue tab is grey just outside an edge; exactly one on each seam, and where a paper
            # die has them
            tabbed = set()
            for cell_xy, direction in [(c, d) for c in CROSS for d in OUT]:
                dx, dy = OUT[direction]
                if (cell_xy[0] + dx, cell_xy[1] + dy) in CROSS:
                    continue
                cx = left + (cell_xy[0] + 0.5 + dx * 0.5) * cell + dx * 1.2 * PX
                cy = top + (cell_xy[1] + 0.5 + dy * 0.5) * cell + dy * 1.2 * PX
                if (
                    share(grey, (cx - 4, cy - 4, cx + 5, cy + 5)) > 0.9
                ):  # 1.2 mm out: clear of the outline and the word "glue"
                    tabbed.add((cell_xy, direction))
            assert tabbed == TABS
            assert all(sum(edge in tabbed for edge in seam) == 1 for seam in SEAMS)
            # the afterburner (orange) is on B, opposite F (three pips)
            flame = colour_mask(trim, (0xE8, 0x59, 0x0C), tol=12)
            assert [xy for xy in CROSS if share(flame, box(*xy)) > 0.02] == [B]

    def test_folds_are_dashed_and_the_outline_is_solid(self, built):
        ((n, p),) = net_placements(built, "dice")[:1]
        image = render(built["it"], n)
        net = dice.die_net(
            {"w": p.w, "h": p.h},
            [1, 2, 2, 3, 4, "afterburner"],
            [[1, 2], [2, 4], [3, "afterburner"]],
            16,
            5,
        )

        def dark_share(x1, y1, x2, y2):
            steps = 200
            hits = 0
            for i in range(20, steps - 20):  # away from the corners
                x = (p.x + x1 + (x2 - x1) * i / steps) * PX
                y = (p.y + y1 + (y2 - y1) * i / steps) * PX
                hits += any(
                    sum(image.getpixel((round(x) + a, round(y) + b))) < 450
                    for a in (-1, 0, 1)
                    for b in (-1, 0, 1)
                )
            return hits / (steps - 40)

        assert all(0.3 < dark_share(*line) < 0.8 for line in net.folds)
        assert all(dark_share(*line) > 0.98 for line in net.cuts)

    def test_nets_have_no_grid_crop_marks_and_room_between_them(self, built):
        for _n, page in enumerate(built["pages"], built["first"]):
            if page.placements and page.placements[0].face.kind == "die":
                assert page.packed
                for a, b in itertools.combinations(page.placements, 2):
                    if "die" not in (a.face.kind, b.face.kind):
                        continue  # grid faces in the net page's leftover room butt as in a block
                    apart_x = max(a.x, b.x) - min(a.x + a.w, b.x + b.w)
                    apart_y = max(a.y, b.y) - min(a.y + a.h, b.y + b.h)
                    assert max(apart_x, apart_y) >= dice.NET_GAP - 1e-6

    def test_a_sticker_strip_per_die_with_opposite_faces_in_columns(self, built):
        (n, p), *rest = net_placements(built, "die-stickers")
        assert len(rest) == 5 and (p.w, p.h) == (42, 36)  # a caption strip 3 mm inside the cut
        image = render(built["it"], n)
        flame = colour_mask(
            image.crop(tuple(round(v * PX) for v in (p.x, p.y, p.x + 42, p.y + 28))),
            (0xE8, 0x59, 0x0C),
            tol=12,
        )
        cells = {
            (c, r)
            for c in range(3)
            for r in range(2)
            if share(flame, (c * 14 * PX, r * 14 * PX, (c + 1) * 14 * PX, (r + 1) * 14 * PX)) > 0.02
        }
        assert cells == {(2, 1)}  # the third pair is (3, afterburner): its second sticker


# ------------------------------------------------------------------ the cosmic track on paper


class TestTrackOnPaper:
    def sheets(self, built):
        return [
            (n, page)
            for n, page in enumerate(built["pages"], built["first"])
            if page.tile is not None
        ]

    def test_a_metre_over_four_a4_sheets_and_three_a3_sheets(self, built):
        sheets = self.sheets(built)
        assert [page.tile.name for _, page in sheets] == ["A1", "A2", "A3", "A4"]
        face = sheets[0][1].placements[0].face
        assert face.size == (1000, 190)
        windows = [page.tile.window for _, page in sheets]
        # the whole track; its bleed is left off (the art's edge is the cut): with it, and room for
        # its crop marks, the track would not fit one row of landscape A4 inside the margins
        assert windows[0][:2] == (3, 3) and windows[-1][2:] == pytest.approx((1003, 193))
        for a, b in zip(windows, windows[1:]):
            assert a[2] - b[0] == pytest.approx(15)  # the pack's overlap
        text = PdfReader(built["it"]).pages[sheets[0][0]].extract_text()
        assert "cosmic-track: sheet A1 of 1x4" in text
        assert len(PdfReader(built["a3"]).pages) == 4  # print check + the track on three A3 sheets

    def test_neighbours_repeat_the_overlap_and_their_targets_coincide(self, built):
        sheets = self.sheets(built)
        images = [as_laid_out(render(built["it"], n), page) for n, page in sheets]
        for (img1, (_, p1)), (img2, (_, p2)) in zip(
            zip(images, sheets), zip(images[1:], sheets[1:])
        ):
            t1, t2 = p1.tile, p2.tile

            def on(tile, fx, fy):
                return round((tile.origin[0] + fx - tile.window[0]) * PX), round(
                    (tile.origin[1] + fy - tile.window[1]) * PX
                )

            strip = (t2.window[0], t1.window[2])
            same = 0
            centres = alignment_marks(t1)  # the targets, clear of the track's texts
            points = [
                (strip[0] + f * (strip[1] - strip[0]), fy)
                for f in (0.1, 0.3, 0.5, 0.7, 0.9)
                for fy in range(5, 190, 5)
            ]
            points = [
                (x, y) for x, y in points if min(math.dist((x, y), m) for m in centres) > 5
            ]  # off the targets
            for (
                fx,
                fy,
            ) in points:  # within a pixel: the sheets place the track at different fractions of one
                c1, (x2, y2) = img1.getpixel(on(t1, fx, fy)), on(t2, fx, fy)
                near = [img2.getpixel((x2 + dx, y2 + dy)) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
                same += any(max(abs(u - v) for u, v in zip(c1, c2)) <= 2 for c2 in near)
            assert same == len(points) > 150  # the same art on both sheets
            marks = [m for m in centres if strip[0] < m[0] < strip[1]]
            assert (
                marks == [m for m in alignment_marks(t2) if strip[0] < m[0] < strip[1]]
                and len(marks) == 2
            )
            for fx, fy in marks:  # the target's centre cross is printed on both sheets
                for img, t in ((img1, t1), (img2, t2)):
                    x, y = on(t, fx, fy)
                    assert any(
                        sum(img.getpixel((x + a, y + b))) < 150
                        for a in (-2, 0, 2)
                        for b in (-2, 0, 2)
                    )
            # on the first sheet of the pair, a dashed line where the next sheet's cut edge goes
            x = on(t1, t2.window[0], 0)[0]
            hits = sum(
                any(sum(img1.getpixel((x + a, on(t1, 0, fy)[1]))) < 150 for a in (-2, -1, 0, 1, 2))
                for fy in range(0, 190)
            )
            assert 60 < hits < 185

    def test_every_space_shows_its_number(self, built):
        pages = page_texts(built["it"])
        text = "".join(pages[n] for n, _ in self.sheets(built))
        for space in range(26):
            assert str(space) in text
        assert (
            "Spazio profondo" in text
            and "Fallimento cosmico" in text
            and "Cometa" in text
            and "Galassia" in text
        )


# ------------------------------------------------------------------ languages and colours


def test_italian_and_english_text(built):
    it = " ".join(" ".join(t.split()) for t in page_texts(built["it"]))
    en = " ".join(" ".join(t.split()) for t in page_texts(built["en"]))
    for word in (
        "Comandante",
        "Paracadute",
        "Una spedizione",
        "Il primo con 4 astronauti sulle lune",
        "Niente atterraggi",
    ):
        assert word in it, word
    for word in (
        "Commander",
        "Parachute",
        "An expedition",
        "First to have 4 astronauts on moons",
        "No landing",
    ):
        assert word in en, word


def test_one_way_to_make_the_dice_prints_by_default(built):
    """The dice are three variants (16 mm nets, 25 mm nets, stickers); game.yaml prints the 16 mm
    nets. The others are still drawn (their SVGs), for --variant."""
    result = validate(ROOT / M, ["it"])
    assert result.pack.print.variants == ("nets-16mm",)
    printed = {p.face.group for page in result.pages["it"] for p in page.placements}
    assert "dice" in printed and not {"dice-large", "die-stickers"} & printed
    assert {f.group for f in result.faces["it"]} >= {"dice-large", "die-stickers"}


def test_variant_chooses_what_prints(tmp_path):
    from pnpkit.build.pipeline import validate as check

    result = check(ROOT / M, ["en"], {"variants": ("stickers", "nets-25mm")})
    printed = {p.face.group for page in result.pages["en"] for p in page.placements}
    assert {"dice-large", "die-stickers"} <= printed and "dice" not in printed


def test_player_colours_stay_apart_for_colour_blind_players_and_each_has_a_symbol(built):
    colours = built["pack"].data["colours"]
    assert len({c["symbol"] for c in colours.values()}) == len(colours) == 5
    # under each simulated vision (Machado et al. 2009), every pair stays clearly apart in CIELAB
    assert cvd.collapsed({k: c["hex"] for k, c in colours.items()}) == []
