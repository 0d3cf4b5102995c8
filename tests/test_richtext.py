"""Rich text, pack fonts, shaping, SVG art and Python faces (issue 11), on a scratch pack."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pypdfium2
import pytest
import uharfbuzz as hb
from PIL import Image, ImageChops

from pnpkit.build import pipeline as build
from pnpkit.commands.cli import main
from pnpkit.svg.compiler import compile_svg
from pnpkit.svg.ops import SvgError
from pnpkit.typeset import fonts, richtext, shaping

FONTS = Path(__file__).parent / "fonts"
GAME = """id: rt
name: RT
languages: [en, he, ar, zh]
players: {min: 1, max: 2}
print: {bleed: 0mm, backs: none, crop_marks: false}
"""
CARD = """{% extends "_face.svg.j2" %}
{% block content %}
{% set t = text_box(item.text, 2, 2, 56, 30, size=10, family=item.family) %}{{ t }}
<rect x="2" y="{{ '%.3f' % t.bottom }}" width="56" height="0.5" fill="#ff0000"/>
{% endblock %}
"""


@pytest.fixture(autouse=True)
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # problems name files relative to the cwd


def pack(tmp_path: Path, text, family="DejaVu Sans", extra="", files=None) -> Path:
    root = tmp_path / "rt"
    (root / "templates").mkdir(parents=True)
    (root / "icons").mkdir()
    (root / "game.yaml").write_text(GAME + extra, encoding="utf-8")
    (root / "templates" / "card.svg.j2").write_text(CARD, encoding="utf-8")
    (root / "icons" / "gem.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10">'
        '<rect width="20" height="10" fill="#00aa00"/></svg>',
        encoding="utf-8",
    )
    (root / "cards.yaml").write_text(
        "cards:\n  kind: card\n  size: 60x40mm\n  front: card.svg.j2\n"
        f"  fields: {{text: text, family: {{type: string, default: '{family}'}}}}\n"
        f"  items:\n    - {{id: c1, text: {text}}}\n",
        encoding="utf-8",
    )
    for name, data in (files or {}).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data) if isinstance(data, bytes) else (root / name).write_text(
            data, encoding="utf-8"
        )
    return root


def run(capsys, *args) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out + out.err


def built_svg(out: Path, lang: str) -> str:
    return (out / "rt" / "svg" / lang / "cards" / "c1-front.svg").read_text(encoding="utf-8")


def raster(svg: str, root: Path, scale: float = 10) -> Image.Image:
    """The SVG drawn by svgdraw into a PDF and rasterised: what prints."""
    from reportlab.pdfgen.canvas import Canvas

    drawing = compile_svg(svg, lambda h: str(root / h))
    pdf = root.parent / "one.pdf"
    canvas = Canvas(
        str(pdf), pagesize=(drawing.width_mm * 72 / 25.4, drawing.height_mm * 72 / 25.4)
    )
    drawing.draw(canvas)
    canvas.save()
    return (
        pypdfium2.PdfDocument(str(pdf))[0]
        .render(scale=scale * 25.4 / 72, no_smoothpath=True)
        .to_pil()
        .convert("RGB")
    )


def columns(img: Image.Image, test) -> list[int]:
    w, h = img.size
    px = img.load()
    return [x for x in range(w) if any(test(px[x, y]) for y in range(h))]


def rows(img: Image.Image, test) -> list[int]:
    w, h = img.size
    px = img.load()
    return [y for y in range(h) if any(test(px[x, y]) for x in range(w))]


def green(p):
    return p[1] > 120 and p[0] < 60 and p[2] < 60


def test_inline_icon_sits_on_the_baseline_after_its_word(tmp_path, capsys):
    root = pack(tmp_path, '"Gain :gem: now"')
    code, out = run(capsys, "build", str(root), "--out", str(tmp_path / "out"), "--lang", "en")
    assert code == 0, out
    img = raster(built_svg(tmp_path / "out", "en"), root)
    size = 10 * 25.4 / 72  # the font size in mm
    gain = fonts.string_width("Gain ", "DejaVu Sans", size)
    xs, ys = columns(img, green), rows(img, green)
    # x: after "Gain ", width 2:1 at one em; y: bottom on the first baseline
    assert xs[0] == pytest.approx((2 + gain) * 10, abs=1.5)
    assert xs[-1] - xs[0] + 1 == pytest.approx(2 * size * 10, abs=1.5)
    assert ys[-1] + 1 == pytest.approx(
        (2 + size) * 10, abs=1.5
    )  # the line moved down so the icon stays in the box
    assert ys[-1] - ys[0] + 1 == pytest.approx(size * 10, abs=1.5)


def test_bold_span_uses_the_bold_face_and_height_is_reported(tmp_path, capsys):
    root = pack(tmp_path, '"plain **bold** *it*\\n\\nnext paragraph"')
    code, out = run(capsys, "build", str(root), "--out", str(tmp_path / "out"), "--lang", "en")
    assert code == 0, out
    svg = built_svg(tmp_path / "out", "en")
    assert (
        '>plain <tspan font-weight="bold">bold '
        '</tspan><tspan font-style="italic">it</tspan></tspan>' in svg
    )
    size = 10 * 25.4 / 72
    # two lines a paragraph apart: em + 1 step + 1 paragraph step
    assert f'y="{2 + size * (1 + 1.2 * 2):.3f}"' in svg
    pdffonts = shutil.which("pdffonts")
    if pdffonts:
        listed = subprocess.run(
            [pdffonts, str(tmp_path / "out" / "rt" / "rt-en.pdf")], capture_output=True, text=True
        ).stdout
        assert "DejaVuSans-Bold" in listed and "DejaVuSans-Oblique" in listed
    from pypdf import PdfReader

    names = {
        str(f["/BaseFont"])
        for page in PdfReader(tmp_path / "out" / "rt" / "rt-en.pdf").pages
        for f in page["/Resources"]["/Font"].values()
    }
    assert any(n.endswith("DejaVuSans-Bold") for n in names), names


@pytest.mark.parametrize(
    "text, message",
    [
        ('"Gain :wod:"', "unknown icon ':wod:' (did you mean 'wood'?)"),
        ('"**never closed"', "'**' opens bold text that is never closed"),
    ],
)
def test_bad_markup_is_one_located_line(tmp_path, capsys, text, message):
    root = pack(tmp_path, text)
    code, out = run(capsys, "validate", str(root), "--lang", "en")
    assert code == 1
    errors = [line for line in out.splitlines() if ": error: " in line]
    assert (
        len(errors) == 1
        and message in errors[0]
        and errors[0].startswith(f"{root.name}/cards.yaml:7:")
        or errors[0].endswith("]")
    ), out


def hb_reference(text: str, font: str, size_mm: float, scale: float):
    """HarfBuzz's own shaping of text, straight from uharfbuzz: the reference."""
    hbfont, upem = shaping._hb(font)
    buf = hb.Buffer()
    buf.add_str(text)
    buf.guess_segment_properties()
    hb.shape(hbfont, buf, dict(shaping.FEATURES))
    return buf, upem


def test_hebrew_and_arabic_match_harfbuzz(tmp_path):
    """Each line as svgdraw draws it equals HarfBuzz's glyph sequence and advances, right to
    left."""
    fonts.known("DejaVu Sans")
    for text in ("שלום עולם", "السلام عليكم"):
        chars, data, width = shaping.shape(text, "DejaVu Sans", True)
        buf, upem = hb_reference(text, "DejaVu Sans", 1, 1)
        gids = [info.codepoint for info in buf.glyph_infos]
        face = (
            __import__("reportlab.pdfbase.pdfmetrics", fromlist=["x"]).getFont("DejaVu Sans").face
        )
        assert [face.charToGlyph[ord(c)] for c in chars] == gids  # same glyphs, in visual order
        assert width == pytest.approx(sum(p.x_advance for p in buf.glyph_positions) / upem)
        # drawn: the ink runs from the right end leftwards and matches the reference raster
        svg = (
            '<svg xmlns="http://www.w3.org/2000/svg" '
            'width="60mm" height="12mm" viewBox="0 0 60 12">'
            f'<text x="58" y="8" font-size="6" font-family="DejaVu Sans">{text}</text></svg>'
        )
        root = tmp_path / "x"
        root.mkdir(exist_ok=True)
        ours = raster(svg, root)
        ref = reference_raster(text, chars, data, tmp_path)
        diff = ImageChops.difference(ours.convert("L"), ref.convert("L"))
        ink = sum(1 for v in ref.convert("L").tobytes() if v < 128)
        # edge pixels differ by rounding (TJ adjustments vs one position per glyph); a reversed or
        # unjoined line differs in most of its ink
        assert ink > 500 and sum(1 for v in diff.tobytes() if v > 128) < ink * 0.05


def reference_raster(text, chars, data, tmp_path):
    """Each HarfBuzz glyph placed at its own pen position, one drawString per glyph."""
    from reportlab.pdfgen.canvas import Canvas

    pdf = tmp_path / "ref.pdf"
    k = 72 / 25.4
    canvas = Canvas(str(pdf), pagesize=(60 * k, 12 * k))
    canvas.setFont("DejaVu Sans", 6 * k)
    total = sum(d[1] for d in data) / 1000 * 6
    x = 58 - total
    for ch, d in zip(chars, data):
        canvas.drawString((x + d[3] / 1000 * 6) * k, (12 - 8 + d[4] / 1000 * 6) * k, ch)
        x += d[1] / 1000 * 6
    canvas.save()
    return (
        pypdfium2.PdfDocument(str(pdf))[0]
        .render(scale=10 * 25.4 / 72, no_smoothpath=True)
        .to_pil()
        .convert("RGB")
    )


def test_cjk_with_a_pack_font_is_embedded(tmp_path, capsys):
    font = (FONTS / "WQYMicroHei-subset.ttf").read_bytes()
    root = pack(
        tmp_path,
        '{en: "a", he: "a", ar: "a", zh: "你好世界"}',
        family="Hei",
        extra="fonts: {Hei: fonts/hei.ttf}\n",
        files={"fonts/hei.ttf": font},
    )
    code, out = run(capsys, "build", str(root), "--out", str(tmp_path / "out"), "--lang", "zh")
    assert code == 0, out
    from pypdf import PdfReader

    reader = PdfReader(tmp_path / "out" / "rt" / "rt-zh.pdf")
    assert "你好世界" in "".join(p.extract_text() for p in reader.pages)
    embedded = [
        f
        for page in reader.pages
        for f in page["/Resources"]["/Font"].values()
        if "Hei" in str(f["/BaseFont"])
    ]
    assert embedded and all("+" in str(f["/BaseFont"]) for f in embedded)
    assert (
        "/FontFile2" in embedded[0]["/DescendantFonts"][0]["/FontDescriptor"]
        if "/DescendantFonts" in embedded[0]
        else "/FontFile2" in embedded[0]["/FontDescriptor"]
    )


def test_pack_font_problems_are_located(tmp_path, capsys):
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.t2CharStringPen import T2CharStringPen

    fb = FontBuilder(1000, isTTF=False)
    fb.setupGlyphOrder([".notdef", "a"])
    fb.setupCharacterMap({ord("a"): "a"})
    pen = T2CharStringPen(500, None)
    pen.moveTo((0, 0))
    pen.lineTo((400, 0))
    pen.lineTo((400, 400))
    pen.closePath()
    fb.setupCFF(
        "Cff", {"FullName": "Cff"}, {".notdef": pen.getCharString(), "a": pen.getCharString()}, {}
    )
    fb.setupHorizontalMetrics({".notdef": (500, 0), "a": (500, 0)})
    fb.setupHorizontalHeader(ascent=800, descent=-200)
    fb.setupNameTable({"familyName": "Cff", "styleName": "Regular"})
    fb.setupOS2()
    fb.setupPost()
    cff = tmp_path / "cff.otf"
    fb.save(str(cff))
    root = pack(
        tmp_path,
        '"a"',
        extra="fonts: {Cff: fonts/cff.otf, Gone: fonts/none.ttf, Out: ../cff.otf}\n",
        files={"fonts/cff.otf": cff.read_bytes()},
    )
    code, out = run(capsys, "validate", str(root))
    assert code == 1
    lines = sorted(line for line in out.splitlines() if ": error: " in line)
    assert lines == [  # a CFF .otf is made into TrueType (test_fontformats.py): no problem
        "rt/game.yaml:6:35: error: font 'fonts/none.ttf' not found in rt [references]",
        "rt/game.yaml:6:56: error: font '../cff.otf' lies outside "
        "the pack rt; it must be a file inside it [references]",
    ]


def test_missing_glyph_in_a_pack_font_is_located(tmp_path, capsys):
    font = (FONTS / "WQYMicroHei-subset.ttf").read_bytes()
    root = pack(
        tmp_path,
        '"你好 Ω"',
        family="Hei",
        extra="fonts: {Hei: fonts/hei.ttf}\n",
        files={"fonts/hei.ttf": font},
    )
    code, out = run(capsys, "validate", str(root), "--lang", "en")
    assert code == 1
    assert "rt/cards.yaml:7:" in out and "no glyph for 'Ω' (U+03A9) in Hei" in out


ART = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
    '<defs><linearGradient id="g"><stop offset="0" stop-color="#ff0000"/><stop '
    'offset="1" stop-color="#0000ff"/></linearGradient></defs>'
    '<rect width="10" height="10" fill="#00aa00"/></svg>'
)


def test_svg_art_is_drawn_as_paths(tmp_path, capsys):
    root = pack(
        tmp_path,
        '"x"',
        files={
            "art/a.svg": ART.replace("<defs>", "<!-- -->").split("<linearGradient")[0]
            + '<rect width="10" height="10" fill="#00aa00"/></svg>'
        },
    )
    (root / "templates" / "card.svg.j2").write_text(
        '{% extends "_face.svg.j2" %}{% block content %}<image '
        'href="art/a.svg" x="10" y="10" width="20" height="20"/>{% endblock %}'
    )
    code, out = run(capsys, "build", str(root), "--out", str(tmp_path / "out"), "--lang", "en")
    assert code == 0, out
    from pypdf import PdfReader

    reader = PdfReader(tmp_path / "out" / "rt" / "rt-en.pdf")
    for page in reader.pages:  # vectors: no image XObject anywhere
        for xobj in (page["/Resources"].get("/XObject") or {}).values():
            assert xobj.get_object()["/Subtype"] != "/Image"
    img = raster(built_svg(tmp_path / "out", "en"), root)
    xs, ys = columns(img, green), rows(img, green)
    assert (xs[0], xs[-1], ys[0], ys[-1]) == pytest.approx((100, 299, 100, 299), abs=1.5)


def test_broken_svg_art_points_into_the_file(tmp_path, capsys):
    root = pack(
        tmp_path,
        '"x"',
        files={
            "art/a.svg": '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">\n'
            '<foreignObject width="1" height="1"/>\n</svg>'
        },
    )
    (root / "templates" / "card.svg.j2").write_text(
        '{% extends "_face.svg.j2" %}{% block content %}<image '
        'href="art/a.svg" x="10" y="10" width="20" height="20"/>{% endblock %}'
    )
    code, out = run(capsys, "validate", str(root), "--lang", "en")
    assert code == 1
    assert [line for line in out.splitlines() if ": error: " in line] == [
        "rt/art/a.svg:2:1: error: unsupported element <foreignObject> [svg]"
    ]


FACE_PY = """from pnpkit.faces.pyfaces import drawing


def draw(ctx):
    d = drawing(ctx)
    d.add(d.rect((10, 10), (20, 20), fill="#00aa00"))
    d.add(ctx["text_box"]("Made :gold: in Python", 2, 32, 56, 6, size=8))
    return d


def broken(ctx):
    values = {}
    return values["missing"]
"""


def test_python_face_builds_only_when_trusted_and_errors_are_located(tmp_path, capsys, monkeypatch):
    root = pack(tmp_path, '"x"', files={"board.py": FACE_PY})
    (root / "cards.yaml").write_text(
        (root / "cards.yaml").read_text().replace("front: card.svg.j2", "front: board.py:draw")
    )
    code, out = run(
        capsys, "build", str(root), "--out", str(tmp_path / "out"), "--lang", "en", "--trust"
    )
    assert code == 0, out
    img = raster(built_svg(tmp_path / "out", "en"), root)
    assert (columns(img, green)[0], rows(img, green)[0]) == pytest.approx((100, 100), abs=1.5)
    (root / "cards.yaml").write_text(
        (root / "cards.yaml").read_text().replace("board.py:draw", "board.py:broken")
    )
    code, out = run(capsys, "validate", str(root), "--lang", "en", "--trust")
    assert code == 1
    assert [line for line in out.splitlines() if ": error: " in line] == [
        "rt/board.py:13:1: error: Python face board.py:broken raised "
        "KeyError: 'missing' (drawing front of 'c1') [python-face]"
    ]
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "nobody"))
    code, out = run(capsys, "validate", str(root), "--lang", "en")
    assert code == 1
    assert [line for line in out.splitlines() if ": error: " in line] == [
        "rt/cards.yaml:4:10: error: the pack is not trusted, so its "
        "Python faces (board.py:broken: 1 face(s)) were not drawn; "
        "if you trust its author: pnpkit trust rt (or --trust for one run) [trust]"
    ]


MACRO_PY = """from pnpkit.faces.pyfaces import drawing


def draw(ctx):
    d = drawing(ctx)
    marks = ctx["macros"]("marks.svg.j2")
    for n in range(marks.COUNT):
        d.add(marks.square(5 + n * 20, 5, 10))
    return d


def missing(ctx):
    return ctx["macros"]("marks.svg.j2").nope(1, 2, 3)
"""
MARKS = """{% set COUNT = 3 %}
{% macro square(x, y, size) %}<rect x="{{ x }}" y="{{ y }}" width="{{ size }}" height="{{ size }}" fill="{{ data.ink }}"/>
{{ text_box(s.mark, x, y + size, size, 4, size=6) }}{% endmacro %}
"""  # noqa: E501 (data: markup and YAML kept as written)


def test_python_face_draws_with_the_kits_template_macros(tmp_path, capsys):
    """A Python face calls a template's macros with the face's context (data, s, text_box), as
    `{% import … with context %}` would; a missing macro is an error at the Python line."""
    root = pack(
        tmp_path,
        '"x"',
        extra="data: {ink: '#0000ff'}\nstrings: {mark: {en: Mark, he: Mark, ar: Mark, zh: Mark}}\n",
        files={"board.py": MACRO_PY, "templates/marks.svg.j2": MARKS},
    )
    (root / "cards.yaml").write_text(
        (root / "cards.yaml").read_text().replace("front: card.svg.j2", "front: board.py:draw")
    )
    code, out = run(
        capsys, "build", str(root), "--out", str(tmp_path / "out"), "--lang", "en", "--trust"
    )
    assert code == 0, out
    svg = built_svg(tmp_path / "out", "en")
    assert svg.count('fill="#0000ff"') == 3 and svg.count(">Mark</ns0:tspan>") == 3
    img = raster(svg, root)
    blue = lambda p: p[2] > 200 and p[0] < 60  # noqa: E731
    xs = columns(img, blue)
    spans = [
        (a, b)
        for a, b in zip(
            [xs[0]] + [x for p, x in zip(xs, xs[1:]) if x > p + 1],
            [p for p, x in zip(xs, xs[1:]) if x > p + 1] + [xs[-1]],
        )
    ]
    assert [v for span in spans for v in span] == pytest.approx(
        [50, 149, 250, 349, 450, 549], abs=2
    )  # 10 mm squares, 10 px/mm
    (root / "cards.yaml").write_text(
        (root / "cards.yaml").read_text().replace("board.py:draw", "board.py:missing")
    )
    code, out = run(capsys, "validate", str(root), "--lang", "en", "--trust")
    assert code == 1
    assert [line for line in out.splitlines() if ": error: " in line] == [
        "rt/board.py:13:1: error: Python face board.py:missing "
        "raised AttributeError: 'TemplateModule' object has no "
        "attribute 'nope' (drawing front of 'c1') [python-face]"
    ]


@pytest.mark.parametrize(
    "gradient, left, right",
    [
        (
            '<linearGradient id="g"><stop offset="0" stop-color="#ff0000"/><stop '
            'offset="100%" stop-color="#0000ff"/></linearGradient>',
            (255, 0, 0),
            (0, 0, 255),
        ),
        (
            '<radialGradient id="g" r="0.5"><stop offset="0.2" '
            'stop-color="#ffffff"/><stop offset="1" stop-color="#000000"/></radialGradient>',
            (0, 0, 0),
            (0, 0, 0),
        ),
    ],
)
def test_gradient_renders(tmp_path, gradient, left, right):
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="40mm" height="20mm" viewBox="0 0 40 20">'
        f'<defs>{gradient}</defs><rect x="0" y="0" width="40" height="20" fill="url(#g)"/></svg>'
    )
    img = raster(svg, tmp_path)
    px = img.load()
    near = lambda a, b: all(abs(x - y) < 30 for x, y in zip(a, b))  # noqa: E731
    assert near(px[3, 100], left) and near(px[396, 100], right), (px[3, 100], px[396, 100])
    middle = px[200, 100]
    assert near(middle, (128, 0, 128)) if "linear" in gradient else near(middle, (255, 255, 255)), (
        middle
    )


def test_gradient_problems_are_located():
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="40mm" height="20mm" viewBox="0 0 40 20">\n'
        '<linearGradient id="g" spreadMethod="repeat"><stop offset="0" '
        'stop-color="red" stop-opacity="0.5"/></linearGradient>\n'
        '<rect width="40" height="20" fill="url(#g)"/><text '
        'fill="url(#g)">x</text><rect width="1" height="1" fill="url(#nope)"/></svg>'
    )
    with pytest.raises(SvgError) as exc:
        compile_svg(svg)
    assert [p[:2] for p in exc.value.problems] == [
        (2, "spreadMethod must be pad (reflect and repeat are not supported)"),
        (
            2,
            "stop-opacity below 1 is not supported (PDF "
            "shadings are opaque; use fill-opacity on the shape)",
        ),
        (3, "a gradient fills shapes only, not text"),
        (3, "fill 'url(#nope)' does not refer to a <linearGradient> or <radialGradient>"),
    ]


def test_a_python_face_keeps_its_groups_shape(tmp_path):
    root = pack(tmp_path, '"x"', files={"board.py": FACE_PY})
    cards = (root / "cards.yaml").read_text().replace("front: card.svg.j2", "front: board.py:draw")
    (root / "cards.yaml").write_text(
        cards.replace("  kind: card\n", "  kind: card\n  shape: rounded(3mm)\n")
    )
    result = build.validate(root, ["en"])  # the suite trusts its scratch packs (conftest)
    assert [str(p) for p in result.errors] == []
    [face] = [f for f in result.faces["en"] if f.item == "c1"]
    assert face.shape[0] == "rounded" and face.template == "board.py:draw"


def test_a_short_number_keeps_to_the_word_before_it():
    """The aids had "0." alone on a line; a short number now breaks with its neighbour."""
    layout = richtext.Layout("DejaVu Sans", 3.0, {})
    width = layout.width([("free space", False, False)]) + 0.1
    lines = richtext.wrap(richtext.parse("free space 0."), layout, width)
    assert ["".join(r[0] for r in line.runs) for line in lines] == ["free", "space 0."]
    lines = richtext.wrap(richtext.parse("free space now"), layout, width)
    assert ["".join(r[0] for r in line.runs) for line in lines] == ["free space", "now"]


CJK_FONT = Path(__file__).parent / "fonts" / "WQYMicroHei-subset.ttf"


def _whole_line(text: str, font: str) -> tuple:
    """shaping.shape's answer with the line shaped whole by HarfBuzz (no word shapes)."""
    buf = shaping._run(text, font, False, None, 0)
    codes, data, plain, total = shaping._glyphs(text, font, buf, False)
    if plain:
        return text, None, shaping.pdfmetrics.stringWidth(text, font, 1.0)
    return "".join(map(chr, codes)), data, total / shaping._hb(font)[1]


def test_lines_put_together_from_word_shapes_are_harfbuzz_own():
    """Lines of the kits' words (kerning pairs inside words and next to spaces, accents, quotes,
    digits in Latin lines) in every shipped face, and CJK in a pack font: word by word is exact."""
    import random
    import re

    root = Path(__file__).resolve().parents[1] / "components"
    texts = [f.read_text(encoding="utf-8") for f in sorted(root.rglob("*.yaml"))]
    words = sorted({w for text in texts for w in re.findall(r"\S+", text)})
    words += [
        "AVA",
        "To",
        "Wa",
        "L'Yeti",
        "“Ta”",
        "10,",
        "1.",
        "fi",
        "ff",
        "e\u0301te\u0301",
        "\u0301x",
        "—",
    ]
    rng = random.Random(0)
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(2, 9))) for _ in range(1500)]
    lines += [" " + line for line in lines[:50]] + [line + " " for line in lines[50:100]]
    faces = [fonts.face_name("DejaVu Sans", b, i) for b in (False, True) for i in (False, True)]
    for font in faces:
        for line in lines:
            assert shaping.shape(line, font) == _whole_line(line, font), (font, line)
    assert shaping._word("one", faces[0], "Latn") is not None  # the words are really used
    assert shaping._word("\u0301x", faces[0], "Latn") is None  # a mark would cling to the space
    cjk = "pnpkit-test-cjk"
    from reportlab.pdfbase import pdfmetrics

    if cjk not in pdfmetrics.getRegisteredFontNames():
        from reportlab.pdfbase.ttfonts import TTFont

        pdfmetrics.registerFont(TTFont(cjk, str(CJK_FONT)))
    face = hb.Face(hb.Blob(CJK_FONT.read_bytes()))
    han = "".join(chr(c) for c in sorted(face.unicodes) if 0x4E00 <= c <= 0x9FFF)[:40]
    for n in range(40):
        line = " ".join(han[(n + k) % len(han) :][:3] for k in range(4)) + " AV 10"
        assert shaping.shape(line, cjk) == _whole_line(line, cjk), line


def test_a_width_at_any_size_is_the_unit_width_scaled_exactly():
    """Lines are shaped once, at one font unit per em unit and no ppem (HarfBuzz neither hints
    nor rounds to a pixel grid), and scaled: the width at a size is bit for bit the size times
    the unit width, so fitting may try many sizes of one text and shape it once."""
    import random

    rng = random.Random(1)
    words = "AVA To Wa L'Yeti zażółć gęślą jaźń ĉiuĵaŭde perché 10, fi ff — שלום مرحبا".split()
    for font in [fonts.face_name("DejaVu Sans", b, i) for b in (0, 1) for i in (0, 1)]:
        hb_font, upem = shaping._hb(font)
        assert hb_font.scale == (upem, upem) and hb_font.ppem == (0, 0)
        for _ in range(300):
            line = " ".join(rng.choice(words) for _ in range(rng.randint(1, 8)))
            size = rng.choice([0.1, 1.0, 2.5, 3.175, 7.0 / 3, rng.uniform(0.5, 40)])
            assert fonts.string_width(line, font, size) == fonts.unit_width(line, font) * size
            unscaled = shaping.shape(line, font)[2]
            if not shaping.needs_bidi(line):
                assert fonts.string_width(line, font, size) == size * unscaled


def test_parse_word_by_word_is_the_character_scan() -> None:
    """parse() takes text without line breaks or escapes word by word; a word without '*' or
    ':' whole. That must give what the character-by-character scan gives, spans that stay open
    across words and stray markup characters included."""
    rng = random.Random(11)
    pieces = ["ab", "c", " ", "  ", "\t", "\u00a0", "*", "**", ":", ":wood:", ":x", "é", "0.", "12"]
    # every other character str.split() and the scan's whitespace test both cut at
    pieces += ["\r", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u3000", "\u200b"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 24)))
        for bold, italic in ((False, False), (True, False), (False, True)):
            scan = richtext._Scan(bold, italic)
            scan.feed(text)
            scan.end_word()
            fast = richtext.parse(text, bold, italic)
            assert fast.paragraphs == scan.out.paragraphs, repr(text)
            assert fast.icons == scan.out.icons, repr(text)
            assert bool(fast.problems) == (scan.b or scan.i), repr(text)


def _wrapped(lines: list[richtext.Line]) -> list[tuple]:
    return [(line.runs, line.width, line.paragraph, line.rtl) for line in lines]


def test_wrap_word_by_word_is_the_general_path() -> None:
    """wrap() adds a word of one text run after text without the general path (runs, spaces,
    merging by style); with fast=False every word takes the general path. Both must give the
    same lines, widths to the bit, on text of every kind: spans of both styles open across
    words, icons before, after and inside words, short numbers that join the word before them,
    right-to-left paragraphs, words wider than the box, boxes of every width."""
    rng = random.Random(12)
    words = ["a", "word", "AVA", "zażółć", "perché", "0.", "6", "12,", "fi", "ff", "—", "x" * 40]
    words += ["שלום", "مرحبا", ":wood:", "a:wood:", ":wood:,", "**b**", "*i*", "**", "*", ":x"]
    breaks = [" ", " ", " ", "  ", "\n", "\n\n"]
    layouts = [richtext.Layout("DejaVu Sans", size, {"wood": 1.6}) for size in (1.0, 3.0, 7.5)]
    joined = 0  # lines where a word was added to the run before it: the fast path's case
    for _ in range(1500):
        text = "".join(rng.choice(words) + rng.choice(breaks) for _ in range(rng.randint(1, 30)))
        parsed = richtext.parse(text, rng.random() < 0.2, rng.random() < 0.2)
        layout = rng.choice(layouts)
        width = rng.choice([0.0, 1.0, rng.uniform(2, 30), rng.uniform(30, 200), 1e9])
        fast = richtext.wrap(parsed, layout, width)
        general = richtext.wrap(parsed, layout, width, fast=False)
        assert _wrapped(fast) == _wrapped(general), (text, width)
        joined += sum(any(" " in r[0].strip() for r in line.runs) for line in fast)
    assert joined > 1000


def test_a_large_build_keeps_its_shaped_words_up_to_its_vocabulary(monkeypatch):
    """shaping.forget_shapes() (after each batch of a large build) lets every shaped text go,
    and the shaped words once they are more than WORDS_KEPT; a word shaped again is the same."""
    font = fonts.face_name("DejaVu Sans", False, False)
    shaping.forget_shapes()
    shaping._word.cache_clear()
    first = shaping.shape("Card 17 draws two", font)
    words = shaping._word.size()
    assert words >= 3 and shaping.shape.size() == 1
    monkeypatch.setattr(shaping, "WORDS_KEPT", words)
    shaping.forget_shapes()
    assert shaping.shape.size() == 0
    assert shaping._word.size() == words  # the vocabulary stays
    assert shaping.shape("Card 18 draws two", font) != first
    shaping.forget_shapes()  # one word more than kept: all go
    assert shaping._word.size() == 0
    assert shaping.shape("Card 17 draws two", font) == first
