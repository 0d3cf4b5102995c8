"""The registration targets of a split board keep off its texts (pdf/marks.py), in the same
places on both parts that share a strip; and in the kits no target lands on a label."""

from __future__ import annotations

import dataclasses

import pytest

from conftest import ROOT
from pnpkit.build.pipeline import validate
from pnpkit.impose.cuts import texts
from pnpkit.impose.page import Tile
from pnpkit.pdf.marks import TARGET, alignment_marks

LEFT = Tile(0, 0, 1, 2, (0.0, 0.0, 200.0, 280.0), (10.0, 10.0), 12.0)
RIGHT = Tile(0, 1, 1, 2, (188.0, 0.0, 380.0, 280.0), (10.0, 10.0), 12.0)


def meets(point, box):
    x, y = point
    left, top, right, bottom = box
    return left < x + TARGET and x - TARGET < right and top < y + TARGET and y - TARGET < bottom


def test_without_texts_targets_sit_at_the_strips_quarters():
    assert alignment_marks(LEFT) == [(194.0, 70.0), (194.0, 210.0)]
    assert alignment_marks(RIGHT) == alignment_marks(LEFT)


def test_a_target_over_a_label_slides_to_the_nearest_clear_place_on_both_parts():
    label = (185.0, 66.0, 205.0, 74.0)  # a word across the strip at the first quarter
    marks = alignment_marks(dataclasses.replace(LEFT, texts=(label,)))
    assert marks == alignment_marks(dataclasses.replace(RIGHT, texts=(label,)))
    assert marks[1] == (194.0, 210.0)  # the other target does not move
    (x, y), _ = marks
    assert x == 194.0 and not meets((x, y), label)
    assert y == pytest.approx(79.0)  # as near below the word (74 + 4.5 + 0.5) as above: down first


def test_a_target_with_no_clear_place_in_its_half_stays_put():
    band = (180.0, 0.0, 210.0, 140.0)  # the strip's whole first half is text
    assert alignment_marks(dataclasses.replace(LEFT, texts=(band,)))[0] == (194.0, 70.0)


@pytest.mark.parametrize(
    ("kit", "paper"),
    [("star-cargo", "letter"), ("star-cargo", "a4"), ("anunnaki", "a4"), ("mlem", "a4")],
)
def test_no_kit_target_lands_on_a_label(kit, paper):
    result = validate(ROOT / "components" / kit, overrides={"paper": paper})
    lang = result.pack.languages[0]
    parts = [p for page in result.pages[lang] for p in page.parts]
    assert parts, "the kit splits a board on this paper"
    for part in parts:
        boxes = [box for _, box in texts(part.face)]
        x0, y0, x1, y1 = part.tile.window
        on_part = [b for b in boxes if b[0] < x1 and x0 < b[2] and b[1] < y1 and y0 < b[3]]
        for point in alignment_marks(part.tile):
            hit = [b for b in on_part if meets(point, b)]
            assert not hit, (kit, paper, part.face.item, part.tile.name, point, hit)
