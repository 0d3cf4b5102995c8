"""The hostile catalogue of issue 13, part 4: every unbounded input ends as a located message,
exit 1 (or 2 for a bad option), quickly, with no traceback."""

from __future__ import annotations

import base64
import os
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfReader

from conftest import ROOT, write_pack
from pnpkit.build import pipeline as build
from pnpkit.commands.cli import main, parser
from pnpkit.commands.options import print_overrides
from pnpkit.errors import Location
from pnpkit.faces import render
from pnpkit.impose import layout
from pnpkit.pack import schema
from pnpkit.pack.model import Face, PrintSettings
from pnpkit.svg import images as svgimages
from pnpkit.svg.compiler import compile_svg
from pnpkit.svg.ops import SvgError

FACE = (ROOT / "src/pnpkit/templates/_face.svg.j2").read_text(encoding="utf-8")


class Timed:
    """A run that must end well inside the 10 s every hostile input is allowed."""

    def __init__(self, limit: float = 10.0):
        self.limit = limit

    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start
        assert exc[0] is not None or self.seconds < self.limit, f"took {self.seconds:.1f}s"


def bomb(levels: int = 9) -> str:
    """The billion laughs in YAML: each level lists the one before nine times."""
    lines = ['lol0: &lol0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        lines.append(f"lol{i}: &lol{i} [" + ", ".join([f"*lol{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- YAML


def test_a_yaml_alias_bomb_is_refused_where_it_goes_off(kit):
    (kit.root / kit.pack / "bomb.yaml").write_text(bomb(), encoding="utf-8")
    with Timed():
        run = kit.validate()
    # lol5 lists nine times lol4 (66,430 values each): 597,871 in all, the first value over the
    # limit (of 100,000 less the 208 keys and values of game.yaml, read first)
    assert run.lines == [
        "components/mammoth-herd/bomb.yaml:6:7: error: "
        "this value expands to 597871 keys and values "
        "(YAML aliases counted at every use); a pack's YAML files may hold "
        "at most 100000 in all, and 99758 are left for this one [limits]"
    ]
    assert run.code == 1


def test_an_alias_that_contains_itself_is_refused(kit):
    (kit.root / kit.pack / "loop.yaml").write_text("loop: &a [1, *a]\n", encoding="utf-8")
    run = kit.validate()
    assert run.lines == [
        "components/mammoth-herd/loop.yaml:1:7: error: a YAML alias "
        "here refers to a value that contains it (a loop) [limits]"
    ]
    assert run.code == 1


def test_a_yaml_file_over_5_mb_is_refused_unread(kit):
    (kit.root / kit.pack / "huge.yaml").write_text("# padding\n" * 500_001, encoding="utf-8")
    run = kit.validate()
    assert run.lines == [
        "components/mammoth-herd/huge.yaml:1:1: error: the "
        "file has 5000010 bytes; pnpkit reads YAML files "
        "of at most 5000000 bytes (split it into several component files) [limits]"
    ]


def test_a_dense_file_is_refused_while_it_streams_not_after_building_its_tree(kit):
    """5 MB of `[1,1,…]` would be 2.4 million nodes: a gigabyte and 90 s to compose."""
    (kit.root / kit.pack / "dense.yaml").write_text(
        "x: [" + "1," * 2_400_000 + "1]\n", encoding="utf-8"
    )
    with Timed():
        run = kit.validate()
    # event 99,793 (after game.yaml's 208): the mapping, its key, the list, then scalars two columns
    # apart
    assert run.lines == [
        "components/mammoth-herd/dense.yaml:1:199515: error: "
        "the file holds more keys and values than this; "
        "a pack's YAML files may hold at most 100000 in "
        "all, and 99758 are left for this one [limits]"
    ]


def test_values_nested_over_100_deep_are_refused(kit):
    (kit.root / kit.pack / "deep.yaml").write_text(
        "deep:" + " {a:" * 150 + " 1" + "}" * 150 + "\n", encoding="utf-8"
    )
    run = kit.validate()
    assert run.lines == [
        "components/mammoth-herd/deep.yaml:1:404: error: "
        "values are nested more than 100 deep here [limits]"
    ]


def test_an_integer_of_5000_digits_is_refused_without_a_traceback(kit):
    kit.edit("components/mammoth-herd/game.yaml", "dice_in_game: 7", "dice_in_game: " + "7" * 5000)
    run = kit.validate()
    assert (
        "components/mammoth-herd/game.yaml:24:17: error: a "
        "number of 5000 digits; numbers have at most 30 [limits]" in run.lines
    )
    assert run.code == 1 and "Traceback" not in run.out + run.err


@pytest.mark.parametrize("spelling", [".nan", ".inf", "-.Inf", "1.0e+400"])
def test_nan_and_infinities_are_refused_in_every_yaml_number(kit, spelling):
    kit.edit(
        "components/mammoth-herd/game.yaml", "dice_in_game: 7", f"dice_in_game: {spelling}"
    )  # free data
    kit.edit(
        "components/mammoth-herd/game.yaml", "exact: 16", f"exact: {spelling}"
    )  # a rule's option
    kit.edit("components/mammoth-herd/game.yaml", "margin: 5mm", f"margin: {spelling}")  # a length
    kit.edit("components/mammoth-herd/herd.yaml", "tab: 12", f"tab: {spelling}")  # a number field
    run = kit.validate()
    refused = [line for line in run.lines if "[numbers]" in line]
    assert refused == [
        "components/mammoth-herd/game.yaml:15:11: error: "
        f"'{spelling}' is not a finite number [numbers]",
        "components/mammoth-herd/game.yaml:24:17: error: "
        f"'{spelling}' is not a finite number [numbers]",
        "components/mammoth-herd/game.yaml:42:59: error: "
        f"'{spelling}' is not a finite number [numbers]",
        "components/mammoth-herd/herd.yaml:12:12: error: "
        f"'{spelling}' is not a finite number [numbers]",
    ]
    assert run.code == 1 and "Traceback" not in run.out + run.err


# ---------------------------------------------------------------- counts


def test_a_count_of_a_hundred_million_is_refused_fast(kit):
    kit.edit(
        "components/mammoth-herd/herd.yaml",
        "    - id: herd\n",
        "    - id: herd\n      count: 100000000\n",
    )
    with Timed():
        run = kit.build()
    assert (
        "components/mammoth-herd/herd.yaml:10:7: error: with its "
        "100000000 copies the pack prints more than 20000 faces, "
        "the limit (a larger game can raise it: --max-faces N) [limits]"
    ) in run.lines
    assert run.code == 1 and not (kit.root / "build" / "mammoth-herd").exists()


def test_the_user_sets_the_face_limit_and_the_pack_cannot(kit):
    """The kit prints 18 faces: the herd, the reference card, then 16 tiles (files in name
    order)."""
    assert kit.run("validate", str(kit.pack), "--max-faces", "18").code == 0
    run = kit.run("validate", str(kit.pack), "--max-faces", "17")
    assert run.lines == [
        "components/mammoth-herd/tiles.yaml:31:7: error: "
        "with 'bonus-16' the pack prints more than 17 faces, "
        "the limit (a larger game can raise it: --max-faces N) [limits]"
    ]
    kit.edit(
        "components/mammoth-herd/game.yaml",
        "  margin: 5mm\n",
        "  margin: 5mm\n  max_faces: 1000000\n",
    )
    assert "unknown key 'max_faces' in print" in kit.validate().out


@pytest.mark.parametrize("value", ["0", "-5", "many", "1e9"])
def test_max_faces_must_be_a_positive_whole_number(kit, value):
    run = kit.run("build", str(kit.pack), "--max-faces", value)
    assert run.code == 2
    assert (
        f"argument --max-faces: must be a whole number of faces such as 50000 (got '{value}')"
        in run.err
    )


# ---------------------------------------------------------------- sizes and paper


@pytest.mark.parametrize("size", ["1000000000x45mm", "1000000x45mm", "45x2001mm", "80x80in"])
def test_a_face_larger_than_2_m_is_refused(kit, size):
    kit.edit("components/mammoth-herd/herd.yaml", "size: 40x100mm", f"size: {size}")
    with Timed():
        run = kit.validate()
    assert run.lines == [
        "components/mammoth-herd/herd.yaml:4:9: error: 'size' "
        "must be at most 2000mm a side, the largest face "
        f"pnpkit prints (got '{size}': is the unit right?) [schema]"
    ]


def test_a_face_may_be_split_over_at_most_100_sheets(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    board = (
        "{% extends '_face.svg.j2' %}{% block content "
        "%}<rect width='10' height='10'/>{% endblock %}"
    )
    write_pack(
        tmp_path / "components" / "big",
        {
            "game.yaml": "name: Big\nlanguages: [en]\nplayers: "
            "{min: 1, max: 1}\nprint: {margin: 40mm}\n",
            "board.yaml": "board:\n  kind: board\n  size: 1990x1990mm\n "
            " front: b.svg.j2\n  items:\n    - id: map\n",
            "templates/b.svg.j2": board,
            "templates/_face.svg.j2": FACE,
        },
    )
    with Timed():
        code = main(["validate", "components/big"])
    # A4 less 40mm margins is 130x217mm; with 12mm of overlap a sheet advances 118x205mm: 17x10
    # sheets
    assert capsys.readouterr().out.splitlines() == [
        "components/big/board.yaml:6:7: error: 'map' (1996x1996mm "
        "with bleed) would take 170 sheets of a4 paper; "
        "a face may take at most 100 (choose larger paper, or split it into parts) [limits]"
    ]
    assert code == 1


@pytest.mark.parametrize("margin", ["99mm", "100mm", "106mm", "52.6mm"])
def test_a_margin_that_leaves_less_than_half_the_sheet_is_refused(kit, margin):
    kit.edit("components/mammoth-herd/game.yaml", "margin: 5mm", f"margin: {margin}")
    with Timed():
        run = kit.build()
    assert run.lines == [
        "components/mammoth-herd/game.yaml:15:11: error: 'margin' "
        "must be at most 52.5mm, a quarter of A4's width, "
        f"to leave half the sheet to print on (got {margin}) [schema]"
    ]
    assert run.code == 1 and "Traceback" not in run.err


def test_the_largest_margin_still_prints_every_face(kit):
    kit.edit("components/mammoth-herd/game.yaml", "margin: 5mm", "margin: 52.5mm")
    run = kit.build()
    assert run.code == 0, run.out
    pages = len(PdfReader(kit.root / "build/mammoth-herd/mammoth-herd-en.pdf").pages)
    assert pages > 2  # the print check and more: the faces are there


@pytest.mark.parametrize(
    "key, value, message",
    [
        (
            "gap",
            "100mm",
            "'gap' must be less than 100mm, half the printable width of A4 (got 100mm)",
        ),
        (
            "overlap",
            "101mm",
            "'overlap' must be at most 100mm, half the printable width of A4 (got 101mm)",
        ),
        (
            "bleed",
            "26mm",
            "'bleed' must be at most 25mm; print services ask for 3mm to 1/4in (got 26mm)",
        ),
        (
            "safe",
            "1000000000000000000000000mm",
            "'safe' must be at most 50mm; a safe zone is a "
            "few millimetres (got 1000000000000000000000000mm)",
        ),
    ],
)
def test_print_lengths_are_checked_against_the_paper(kit, key, value, message):
    kit.edit(
        "components/mammoth-herd/game.yaml", "  margin: 5mm\n", f"  margin: 5mm\n  {key}: {value}\n"
    )
    for given in ("  bleed: 3mm\n", "  safe: 3mm\n"):  # (a second one would be a duplicate key)
        kit.edit("components/mammoth-herd/game.yaml", given, "")
    run = kit.validate()
    assert run.lines == [
        f"components/mammoth-herd/game.yaml:14:{len(key) + 5}: error: {message} [schema]"
    ]


def test_a_back_offset_in_the_pack_is_bounded(kit):
    kit.edit(
        "components/mammoth-herd/game.yaml",
        "  margin: 5mm\n",
        "  margin: 5mm\n  back_offset: {x: 0mm, y: 100000000000000000000000mm}\n",
    )
    run = kit.validate()
    assert run.lines == [
        "components/mammoth-herd/game.yaml:16:28: error: 'y' "
        "must be at most 20mm either way; a duplex printer "
        "misregisters by a few (got 100000000000000000000000mm) [schema]"
    ]


def test_a_group_bleed_is_bounded_too(kit):
    kit.edit(
        "components/mammoth-herd/herd.yaml", "size: 40x100mm", "size: 40x100mm\n  bleed: 1000mm"
    )
    run = kit.validate()
    assert run.lines == [
        "components/mammoth-herd/herd.yaml:5:10: error: 'bleed' must be at "
        "most 25mm; print services ask for 3mm to 1/4in (got 1000mm) [schema]"
    ]


def test_a_face_no_page_can_take_is_an_error_never_silently_dropped():
    """The schema keeps margins sane; should settings ever slip past it, imposition reports the
    loss."""
    where = Location("cards.yaml", 7, 5)
    face = Face("cards", "c1", "front", 3, (63.5, 88.9), 3.0, "card", "<svg/>", where)
    with Timed(2.0):
        pages, problems = layout.impose([face], PrintSettings(margin=100.0), {})
    assert pages == []
    assert [str(p) for p in problems] == [
        "cards.yaml:7:5: error: 3 of the 3 copies of 'c1' (69.5x94.9mm with "
        "bleed) found no place on a4 paper inside 100mm margins [layout]"
    ]


# ---------------------------------------------------------------- text boxes


@pytest.mark.parametrize(
    "args, message",
    [
        ("size=(item.id[:0] ~ 'nan')|float", "text_box size must be a finite number (got 'nan')"),
        ("size=1e9", "text_box size must be more than 0 and at most 1000 (pt; got 1e+09)"),
        ("size=0", "text_box size must be more than 0 and at most 1000 (pt; got 0)"),
        ("leading=0", "text_box leading must be more than 0 and at most 10 (got 0)"),
        ("size='9'", "text_box size must be a finite number (got '9')"),
    ],
)
def test_text_box_numbers_are_finite_and_in_range(kit, args, message):
    template = "templates/mammoth-herd/herd-standee.svg.j2"
    kit.edit(template, "size=7, bold=true, anchor='middle'", f"{args}, bold=true, anchor='middle'")
    with Timed():
        run = kit.validate()
    expected = (
        "components/mammoth-herd/herd.yaml:10:7: error: template "
        f"'mammoth-herd/herd-standee.svg.j2' line 21: {message} "
        f"(rendering the front of 'herd') [template]"
    )
    assert run.lines == [expected]


INF = (
    "((item.id[:0] ~ 'inf')|float)"  # not a constant: Jinja would fold 'inf'|float into a bare name
)


@pytest.mark.parametrize("name", ["x", "w", "h"])
def test_text_box_coordinates_are_finite(kit, name):
    template = "templates/mammoth-herd/herd-standee.svg.j2"
    kit.edit(
        template,
        "text_box(item.name, 2, face.h - tab + 1.2, face.w - 4, tab - 2.4,",
        "text_box(item.name, x="
        + (INF if name == "x" else "2")
        + ", y=face.h - tab + 1.2, w="
        + (INF if name == "w" else "face.w - 4")
        + ", h="
        + ("-" + INF if name == "h" else "tab - 2.4")
        + ",",
    )
    run = kit.validate()
    got = "'-inf'" if name == "h" else "'inf'"
    assert f"line 21: text_box {name} must be a finite number (got {got})" in run.out


# ---------------------------------------------------------------- command line


@pytest.mark.parametrize("value", ["nan,inf", "0,inf", "nan,0", "1e999,0", "1e300,0", "0,-20.5"])
def test_a_back_offset_that_is_not_finite_or_too_large_is_a_usage_error(kit, value):
    """1e300 is finite, but the PDF cannot hold it: ReportLab raised while writing."""
    run = kit.run("build", str(kit.pack), f"--back-offset={value}")
    assert run.code == 2 and "Traceback" not in run.err
    assert (
        "argument --back-offset: must be X,Y in mm such as "
        f"0.5,-1, each at most 20 either way (got '{value}')" in run.err
    )


def test_a_file_name_the_terminal_cannot_encode_is_printed_escaped(tmp_path):
    """A non-UTF-8 name (read as a lone surrogate) on a terminal whose encoding cannot show it."""
    pack = tmp_path / "components" / "mh"
    write_pack(pack, {"game.yaml": "name: X\nlanguages: [en]\nplayers: {min: 1, max: 1}\n"})
    (tmp_path / "components" / "mh").joinpath(os.fsdecode(b"caf\xe9.yaml")).write_bytes(b"x: [\n")
    env = {**os.environ, "PYTHONIOENCODING": "latin-1", "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run(
        [sys.executable, "-m", "pnpkit", "validate", "components/mh"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert out.returncode == 1 and b"Traceback" not in out.stderr
    assert out.stdout.splitlines() == [
        b"components/mh/caf\\udce9.yaml:2:1: error: YAML syntax "
        b"error: did not find expected node content [yaml]"
    ]


# ---------------------------------------------------------------- images


def png_header(width: int, height: int) -> bytes:
    """A PNG claiming width x height pixels, with one tiny (wrong) data chunk: only its header
    is read."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0\0\0\0"))
        + chunk(b"IEND", b"")
    )


def art_pack(root: Path, cards: int = 1) -> Path:
    items = "".join(f"    - {{id: c{i}}}\n" for i in range(cards))
    return write_pack(
        root / "components" / "art",
        {
            "game.yaml": "name: Art\nlanguages: [en]\nplayers: {min: 1, max: 1}\n",
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n "
            f" front: art.svg.j2\n  items:\n{items}",
            "templates/art.svg.j2": "{% extends '_face.svg.j2' %}{% block content %}"
            "<image href='art/p.png' x='0' y='0' width='60' height='80'/>"
            "<rect x='0' width='1' height='1' fill='#{{ '%06x' % (item.id[1:]|int) }}'/>"
            "{% endblock %}",
            "templates/_face.svg.j2": FACE,
        },
    )


def test_a_30000_pixel_square_png_is_refused_by_its_header(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    root = art_pack(tmp_path)
    (root / "art").mkdir()
    (root / "art" / "p.png").write_bytes(png_header(30000, 30000))
    with Timed():
        code = main(["build", "components/art", "--out", "build"])
    assert capsys.readouterr().out.splitlines() == [
        "components/art/cards.yaml:6:7: error: image 'art/p.png' has "
        "30000x30000 = 900000000 pixels; an image may have at most "
        "50000000 (scale it down) (line 3 of the SVG for the front of 'c0') [svg]"
    ]
    assert code == 1


def test_image_bytes_are_bounded_in_files_and_data_uris(monkeypatch):
    monkeypatch.setattr(svgimages, "MAX_IMAGE_BYTES", 100)
    data = png_header(10, 10) + b"\0" * 100
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="10mm" height="10mm" viewBox="0 0 10 10">'
        f'<image href="data:image/png;base64,{base64.b64encode(data).decode()}" '
        'width="5" height="5"/></svg>'
    )
    with pytest.raises(SvgError) as exc:
        compile_svg(svg)
    assert [m for _, m in exc.value.problems] == [
        f"image 'data:image/png;base64,{base64.b64encode(data).decode()[:38]}' "
        f"has {len(data)} bytes; an image may have at most 100"
    ]


def test_an_image_is_embedded_once_per_pdf_and_copied_once_for_the_preview(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    root = art_pack(tmp_path, cards=5)
    (root / "art").mkdir()
    Image.frombytes("RGB", (300, 400), os.urandom(300 * 400 * 3)).save(
        root / "art" / "p.png"
    )  # 360 kB: noise
    assert not build.build(Path("components/art"), build.BuildOptions(Path("build"))).errors
    out = tmp_path / "build" / "art"
    reader = PdfReader(out / "art-en.pdf")
    images = {
        id(obj.get_object())
        for page in reader.pages
        for form in page["/Resources"].get("/XObject", {}).values()
        for obj in form.get_object()["/Resources"].get("/XObject", {}).values()
        if obj.get_object()["/Subtype"] == "/Image"
    }
    assert len(images) == 1  # five faces, five forms, one picture
    [art] = (out / "preview" / "art").iterdir()
    previews = sorted((out / "preview" / "en" / "cards").iterdir())
    assert len(previews) == 5 and all(
        f'href="../../art/{art.name}"' in p.read_text(encoding="utf-8") for p in previews
    )
    assert (
        sum(p.stat().st_size for p in (out / "preview").rglob("*.svg")) < art.stat().st_size
    )  # the art is not in them


def test_svg_numbers_too_large_for_the_pdf_are_refused():
    """1e999 reads as infinity; 1e25 is finite, but ReportLab cannot write it into the PDF."""
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="10mm" height="10mm" viewBox="0 0 10 10">'
        '<rect x="1e999" width="1" height="1"/><rect x="-1e25" '
        'width="1" height="1"/><path d="M0 0L1e999 1"/>'
        '<polygon points="0 0 1 1e400 3 3"/><g transform="scale(1e25)"/></svg>'
    )
    with pytest.raises(SvgError) as exc:
        compile_svg(svg)
    assert [m for _, m in exc.value.problems] == [
        "bad number '1e999' for x (at most 1e+07 either way)",
        "bad number '-1e25' for x (at most 1e+07 either way)",
        "bad arguments '1e999 1' for 'L' in path data (each at most 1e+07 either way)",
        "bad number list '0 0 1 1e400 3 3' for points (each at most 1e+07 either way)",
        "bad number list '1e25' for transform (each at most 1e+07 either way)",
    ]


def test_too_many_distinct_items_are_refused_before_rendering(tmp_path, monkeypatch, capsys):
    """Fifty thousand distinct items would take minutes to render: they are counted first."""
    monkeypatch.chdir(tmp_path)
    items = "".join(f"    - {{id: c{i}}}\n" for i in range(2_001))
    write_pack(
        tmp_path / "components" / "many",
        {
            "game.yaml": "name: Many\nlanguages: [en]\nplayers: {min: 1, max: 1}\n",
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n "
            f" front: c.svg.j2\n  items:\n{items}",
            "templates/c.svg.j2": "{% extends '_face.svg.j2' %}{% block content %}{{ "
            "text_box(item.id, 5, 5, 50, 10) }}{% endblock %}",
            "templates/_face.svg.j2": FACE,
        },
    )

    def no_rendering(*args):
        raise AssertionError("rendered")

    monkeypatch.setattr(render, "render", no_rendering)
    code = main(["validate", "components/many", "--max-faces", "2000"])
    assert capsys.readouterr().out.splitlines() == [
        "components/many/cards.yaml:2006:7: error: with 'c2000' "
        "the pack prints more than 2000 faces, the limit "
        "(a larger game can raise it: --max-faces N) [limits]"
    ]
    assert code == 1


def test_a_pack_of_too_many_yaml_files_is_refused_unread(kit, monkeypatch):
    monkeypatch.setattr(schema, "MAX_FILES", 10)  # 1000 files work the same, only slower to make
    for i in range(7):
        (kit.root / kit.pack / f"g{i}.yaml").write_text("", encoding="utf-8")
    run = kit.validate()
    assert run.lines == [
        "components/mammoth-herd:0:0: error: the pack has "
        "11 YAML files; a pack may have at most 10 [limits]"
    ]


def test_watch_takes_the_face_limit_too():
    args = parser().parse_args(["watch", "components/x", "--max-faces", "50000"])
    assert print_overrides(args) == {"max_faces": 50000}


@pytest.mark.parametrize(
    "body",
    [
        '<g transform="scale(1e7)"><g transform="scale(1e7)"><g '
        'transform="scale(1e7)"><rect width="1e7" height="1"/></g></g></g>',
        '<svg viewBox="0 0 1e-9 1e-9" width="10" height="10"><rect width="1e7" height="1"/></svg>',
        '<g transform="translate(1e7)">' * 3
        + '<rect width="1" height="1"/>'
        + "</g>" * 3,  # adds up, but stays near
    ],
)
def test_transforms_cannot_carry_a_drawing_beyond_what_the_pdf_holds(body):
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="10mm" '
        f'height="10mm" viewBox="0 0 10 10">{body}</svg>'
    )
    if "translate" in body:
        assert compile_svg(svg).ops  # 3e7 mm: far, but a PDF holds it
        return
    with pytest.raises(SvgError) as exc:
        compile_svg(svg)
    assert [m for _, m in exc.value.problems] == [
        "the drawing reaches more than 1e+16mm from the face "
        "(transforms or a viewBox that scale it up that far)"
    ]


@pytest.mark.parametrize("alias", ["", "z: &a 1\nw: *a\n"])
def test_a_file_with_or_without_aliases_reports_the_same_problems(tmp_path, alias):
    """A file without aliases is checked and indexed in one walk, one with aliases by bounds()
    then _index(): the same problems, in the same order, at the same places."""
    from pnpkit.pack.loader import load_yaml

    path = tmp_path / "x.yaml"
    path.write_text("a: 1\nb: {c: 2, c: .nan}\n.inf: 3\na: [4, -.inf]\n" + alias, encoding="utf-8")
    doc, problems = load_yaml(path)
    where = str(doc.file)
    assert [str(p) for p in problems] == [
        f"{where}:2:14: error: '.nan' is not a finite number [numbers]",
        f"{where}:3:1: error: '.inf' is not a finite number [numbers]",
        f"{where}:4:8: error: '-.inf' is not a finite number [numbers]",
        f"{where}:2:11: error: duplicate key 'c' (first at line 2) [yaml]",
        f"{where}:4:1: error: duplicate key 'a' (first at line 1) [yaml]",
    ]
    assert doc.at(("b", "c")) == doc.values[("b", "c")]
    assert (doc.values[("b", "c")].line, doc.values[("b", "c")].column) == (2, 8)
    assert ("a", 0) not in doc.values  # the duplicate's value is not indexed


@pytest.mark.parametrize("alias", ["", "z: &a 1\nw: *a\n"])
def test_too_deep_is_refused_with_or_without_aliases(tmp_path, alias):
    from pnpkit.pack.loader import load_yaml

    path = tmp_path / "x.yaml"
    path.write_text("a: .nan\nb: " + "[" * 120 + "]" * 120 + "\n" + alias, encoding="utf-8")
    doc, problems = load_yaml(path)
    assert [str(p) for p in problems] == [
        f"{doc.file}:2:104: error: values are nested more than 100 deep here [limits]"
    ]
    assert doc.data is None and doc.values == {}
