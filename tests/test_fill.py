"""Leftovers share sheets (fill.py): a near-empty sheet's faces join a fuller sheet, their backs
follow them, and a sheet that stays near-empty is reported."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pypdfium2

from conftest import SOLID, kit_start, write_pack
from pnpkit.build import pipeline as build
from pnpkit.commands.cli import main
from pnpkit.impose import fill
from pnpkit.impose.page import Page, Placement
from pnpkit.pack.model import Face, PrintSettings
from registered import impose
from test_packing import faces

ROOT = Path(__file__).resolve().parents[1]


def herd_kit() -> list[Face]:
    """Mammoth Herd's shape: a tarot reference card, 16 square tiles, a lone 40 x 100 standee
    (no back), which the grid packer leaves alone on a second sheet."""
    return (
        faces(1, (70.0, 120.0), "ref")
        + faces(16, (45.0, 45.0), "tiles")
        + faces(1, (40.0, 100.0), "herd", back=False)
    )


def fronts(pages: list[Page]) -> list[Page]:
    return [p for p in pages if p.side == "front"]


def groups(page: Page) -> set[str]:
    return {p.face.group for p in page.placements}


def test_the_lone_standee_shares_the_reference_cards_sheet(monkeypatch):
    s = PrintSettings(paper="a4", backs="long-edge")
    with monkeypatch.context() as m:  # as imposed without the pass
        m.setattr(fill, "share", lambda pages, s, pack, marks: pages)
        before, _ = impose(herd_kit(), s)
    assert [groups(p) for p in fronts(before)] == [{"ref", "tiles"}, {"herd"}]
    assert fill.coverage(fronts(before)[1], s) < fill.FULL  # 4,000 of 57,400 mm²
    pages, problems = impose(herd_kit(), s)
    assert problems == []
    sheets = fronts(pages)
    assert len(sheets) == 2
    assert groups(sheets[0]) == {"ref", "herd", "tiles"}
    assert groups(sheets[1]) == {"tiles"}
    assert all(fill.coverage(p, s) >= fill.FULL for p in sheets)
    # every tile is printed once, none overlaps another face
    assert sum(p.face.group == "tiles" for q in sheets for p in q.placements) == 16
    for page in sheets:
        rects = [(p.x, p.y, p.x + p.w, p.y + p.h) for p in page.placements]
        for i, a in enumerate(rects):
            for b in rects[i + 1 :]:
                assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


def test_a_sheet_of_small_groups_takes_cards_from_the_full_sheet(monkeypatch):
    # 8 cards fill a sheet; 2 long tiles and 6 tokens alone on the next cover 21 %
    s = PrintSettings(paper="a4", backs="long-edge")
    kit = faces(8, (63.5, 88.9), "cards") + faces(2, (120.0, 40.0), "long")
    kit += faces(6, (20.0, 20.0), "tokens")
    with monkeypatch.context() as m:
        m.setattr(fill, "share", lambda pages, s, pack, marks: pages)
        before, found = impose(kit, s)
    assert [round(fill.coverage(p, s), 2) for p in fronts(before)] == [0.79, 0.21]
    assert [p.message[:46] for p in found] == ["imposed sheet 2 of 2 (long 2, tokens 6) is 21%"]
    pages, problems = impose(kit, s)
    assert problems == []
    assert [round(fill.coverage(p, s), 2) for p in fronts(pages)] == [0.59, 0.41]
    assert [groups(p) for p in fronts(pages)] == [{"cards"}, {"cards", "long", "tokens"}]


def test_a_deck_alone_has_nothing_to_share_its_last_sheet_with():
    s = PrintSettings(paper="a4", backs="long-edge")
    pages, problems = impose(faces(10, (63.5, 88.9), "deck"), s)
    assert problems == []
    assert [len(p.placements) for p in fronts(pages)] == [9, 1]


def test_a_sheet_left_near_empty_is_reported_with_its_coverage():
    # a sheet the fill pass may not change (packed by another packer) beside a grid sheet
    s = PrintSettings(paper="a4", backs="long-edge")
    big = faces(1, (190.0, 270.0), "board", back=False)[0]
    tokens = faces(4, (20.0, 20.0), "tokens", back=False)
    full = Page(210.0, 297.0, "front", [Placement(big, 10.0, 10.0, (0.0,) * 4)])
    lone = Page(
        210.0,
        297.0,
        "front",
        [Placement(f, 20.0 + 25 * i, 20.0, (0.0,) * 4) for i, f in enumerate(tokens)],
        packed=True,
    )
    problems = fill.check([full, lone], s)
    assert [str(p) for p in problems] == [
        "x.yaml:1:1: warning: imposed sheet 2 of 2 (tokens 4) is 3% covered, under 35%: pnpkit "
        "found no other sheet it could share (a size or count that fits the room other sheets "
        "leave lets it share one) [layout]"
    ]
    assert fill.check([lone], s) == []  # nothing else in the kit to share with
    # a label sheet is printed on label stock: it shares with nothing either
    labels = [
        dataclasses.replace(p, face=dataclasses.replace(p.face, labels="avery-l7160"))
        for p in lone.placements
    ]
    assert fill.check([full, dataclasses.replace(lone, placements=labels)], s) == []


# ------------------------------------------------------------------ on the printed sheets


def herd_pack(root: Path) -> Path:
    def group(name: str, size: str, n: int, back: bool, shade: int) -> str:
        colours = [f"#{shade:02x}{i * 13 % 256:02x}{(i * 29 + 40) % 256:02x}" for i in range(n)]
        items = "\n".join(f"    - {{id: {name}{i}, colour: '{c}'}}" for i, c in enumerate(colours))
        back_line = "  back: solid.svg.j2\n" if back else ""
        return (
            f"{name}:\n  kind: tile\n  size: {size}\n  front: solid.svg.j2\n{back_line}"
            f"  fields:\n    colour: string\n  items:\n{items}\n"
        )

    return write_pack(
        root,
        {
            "game.yaml": "name: Herd\nlanguages: [en]\nplayers: {min: 1, max: 1}\n"
            "print:\n  bleed: 3mm\n  backs: long-edge\n",
            "ref.yaml": group("ref", "70x120mm", 1, True, 200),
            "tiles.yaml": group("tiles", "45x45mm", 16, True, 120),
            "herd.yaml": group("herd", "40x100mm", 1, False, 40),
            "templates/solid.svg.j2": SOLID,
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text(),
        },
    )


def render(pdf: Path, index: int):
    return pypdfium2.PdfDocument(str(pdf))[index].render(scale=150 / 72).to_pil().convert("RGB")


def test_each_moved_face_prints_on_its_sheet_with_its_back_behind_it(tmp_path):
    pack = herd_pack(tmp_path / "herd")
    out = tmp_path / "out"
    assert main(["build", str(pack), "--out", str(out)]) == 0
    pdf = out / "herd" / "herd-en.pdf"
    pages = build.validate(pack).pages["en"]
    first = kit_start(pdf)
    assert len(pypdfium2.PdfDocument(str(pdf))) - first == 4  # two sheets, each with its back
    px = 150 / 25.4
    for n in (0, 1):
        front, back = render(pdf, first + 2 * n), render(pdf, first + 2 * n + 1)
        for p in pages[2 * n].placements:
            cx, cy = (p.x + p.w / 2) * px, (p.y + p.h / 2) * px
            f = front.getpixel((round(cx), round(cy)))
            b = back.getpixel((round(front.width - cx), round(cy)))
            if p.face.group == "herd":  # no back: blank behind it
                assert b == (255, 255, 255)
            else:
                assert f != (255, 255, 255) and max(abs(u - v) for u, v in zip(f, b)) <= 2
    herd = [p for p in pages[0].placements if p.face.group == "herd"]
    assert len(herd) == 1  # the standee prints on the first sheet, beside the reference card


def test_on_a3_mlems_last_boards_borrow_the_aid_card_beside_the_track():
    """MLEM on A3: the track's third sheet took an aid card and two player boards beside its part,
    and the last three boards were left alone at 27 %; the smallest block on a split face's sheet
    that brings them to 35 % (the aid card) moves over, its crop marks with it. The track is cut
    evenly, as when this was found: without its drawing no text moves its cuts (cuts.py), which
    leave its last part wider and the boards room enough on a sheet of their own."""
    result = build.validate(ROOT / "components" / "mlem", ["it"], {"paper": "a3"})
    s = result.pack.print
    faces = [dataclasses.replace(f, drawing=None) for f in result.faces["it"]]
    pages, problems = impose(faces, s)
    assert not [p for p in problems if "covered" in p.message]
    sheets = fronts(pages)
    assert min(fill.coverage(page, s) for page in sheets) >= fill.FULL
    (alone,) = [page for page in sheets if fill._grid_only(page)]
    assert sorted(p.face.group for p in alone.placements) == ["aid"] + ["player-boards"] * 3
    (lender,) = [page for page in sheets if page.tile and "player-boards" in groups(page)]
    assert groups(lender) == {"cosmic-track", "player-boards"}
    # every line left on the lender is a mark of a face still on it: none of the aid card's
    boards = [p for p in lender.placements if p.tile is None]
    assert lender.lines and all(
        any(
            min(x1, x2) <= p.x + p.w + 4
            and max(x1, x2) >= p.x - 4
            and min(y1, y2) <= p.y + p.h + 4
            and max(y1, y2) >= p.y - 4
            for p in boards
        )
        for x1, y1, x2, y2 in lender.lines
    )
