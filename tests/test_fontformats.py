"""Fonts as foundries ship them (issue 35): CFF-flavoured .otf, WOFF, WOFF2 and variable fonts
in a pack's fonts:, made into TrueType, embedded and drawn; fonts: fallback: and the one
warning for a style a font lacks; damaged files as located errors."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pypdfium2
import pytest
from PIL import ImageChops
from pypdf import PdfReader

import fontmaker
from pnpkit.commands.cli import main
from pnpkit.typeset import fontfiles
from test_richtext import run  # the command line's exit code and what it printed

TEXT = "Quiz Box 42, fjord!"
GAME = """id: ff
name: FF
languages: [en, ar]
players: {min: 1, max: 2}
print: {bleed: 0mm, backs: none, crop_marks: false}
"""
CARD = """{% extends "_face.svg.j2" %}
{% block content %}
{{ text_box(item.text, 4, 4, 52, 30, size=14, family=item.family) }}
{% endblock %}
"""


@pytest.fixture(autouse=True)
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # problems name files relative to the cwd


def pack(
    tmp_path: Path,
    fonts: str,
    files: dict[str, bytes],
    text: str = TEXT,
    family="Fmt",
    cards: int = 1,
) -> Path:
    root = tmp_path / "ff"
    (root / "templates").mkdir(parents=True)
    (root / "game.yaml").write_text(GAME + fonts, encoding="utf-8")
    (root / "templates" / "card.svg.j2").write_text(CARD, encoding="utf-8")
    items = "".join(f"    - {{id: c{n}, text: '{text}'}}\n" for n in range(cards))
    (root / "cards.yaml").write_text(
        "cards:\n  kind: card\n  size: 60x40mm\n  front: card.svg.j2\n"
        f"  fields: {{text: text, family: {{type: string, default: '{family}'}}}}\n"
        f"  items:\n{items}",
        encoding="utf-8",
    )
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def build(capsys, root: Path, out: Path, lang: str = "en") -> tuple[Path, str]:
    code, said = run(capsys, "build", str(root), "--out", str(out), "--lang", lang)
    assert code == 0, said
    return out / "ff" / f"ff-{lang}.pdf", said


def page_fonts(pdf: Path) -> dict[str, object]:
    """BaseFont -> font dictionary of every font in the pages' resources."""
    out = {}
    for page in PdfReader(pdf).pages:
        for font in page["/Resources"]["/Font"].values():
            font = font.get_object()
            out[str(font["/BaseFont"])] = font
    return out


def raster(pdf: Path):
    doc = pypdfium2.PdfDocument(pdf)
    page = doc[len(doc) - 1]  # the faces, after the print check
    return page.render(scale=150 / 72).to_pil().convert("L")


def differing(a, b) -> float:
    """Pixels that differ by more than a sixteenth of the range, per pixel of b's ink."""
    diff = ImageChops.difference(a, b).point(lambda v: 255 if v > 16 else 0)
    ink = sum(b.histogram()[:128])
    return diff.histogram()[255] / ink


FORMATS = {
    "otf": (lambda: fontmaker.cff(), "Fmt: fonts/Fmt.otf\n"),
    "woff": (lambda: fontmaker.woff("woff"), "Fmt: fonts/Fmt.woff\n"),
    "woff2": (lambda: fontmaker.woff("woff2"), "Fmt: fonts/Fmt.woff2\n"),
    "variable": (
        lambda: fontmaker.variable(),
        "Fmt: {file: fonts/Fmt.variable, instance: Regular}\n",
    ),
}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The card drawn with the TrueType font the test fonts are made from."""
    tmp = tmp_path_factory.mktemp("ref")
    root = pack(tmp, "fonts: {Fmt: fonts/Fmt.ttf}\n", {"fonts/Fmt.ttf": fontmaker.truetype()})
    code = main(["build", str(root), "--out", str(tmp / "out"), "--lang", "en"])
    assert code == 0
    return raster(tmp / "out" / "ff" / "ff-en.pdf")


@pytest.mark.parametrize("kind", list(FORMATS))
def test_each_format_is_embedded_and_draws_the_glyphs(tmp_path, capsys, reference, kind):
    make, spec = FORMATS[kind]
    name = spec.split("fonts/")[1].split(",")[0].split("\n")[0]
    root = pack(tmp_path, f"fonts:\n  {spec}", {f"fonts/{name}": make()})
    pdf, _ = build(capsys, root, tmp_path / "out")
    embedded = [f for n, f in page_fonts(pdf).items() if "+FmtTest" in n]
    assert embedded, page_fonts(pdf)  # a subset (AAAAAA+) of the font made from the file
    assert all("/FontFile2" in f["/FontDescriptor"] for f in embedded)  # TrueType outlines
    assert TEXT in PdfReader(pdf).pages[-1].extract_text()
    # drawn as the TrueType original draws them: cubic outlines made quadratic within a unit
    assert differing(raster(pdf), reference) < 0.02
    kept = list((tmp_path / "out" / "pnpkit-cache" / "fonts").glob("*.ttf"))
    assert len(kept) == 1  # made once, kept in the build's cache folder


def test_a_variable_font_at_a_named_instance_and_at_axis_values(tmp_path, capsys, reference):
    data = fontmaker.variable()
    widths = {}
    for n, instance in enumerate(["Regular", "Bold", "{wght: 700}", "{wght: 550}"]):
        spec = f"fonts:\n  Fmt: {{file: fonts/V.ttf, instance: {instance}}}\n"
        root = pack(tmp_path / str(n), spec, {"fonts/V.ttf": data})
        pdf, _ = build(capsys, root, tmp_path / str(n) / "out")
        font = next(f for name, f in page_fonts(pdf).items() if "+FmtTest" in name)
        widths[instance] = max(font["/Widths"])
        wider = differing(raster(pdf), reference) > 0.3
        assert wider == (instance != "Regular"), instance  # Regular is the default: as the .ttf
    # at wght 700 every glyph of the test font is a third wider than at 400; at 550 a sixth
    assert widths["Bold"] == widths["{wght: 700}"]
    assert abs(widths["Bold"] - widths["Regular"] * 4 / 3) <= 1
    assert abs(widths["{wght: 550}"] - widths["Regular"] * 7 / 6) <= 1


def test_the_kept_font_is_used_and_a_damaged_one_made_again(tmp_path, capsys, monkeypatch):
    root = pack(tmp_path, "fonts: {Fmt: fonts/Fmt.otf}\n", {"fonts/Fmt.otf": fontmaker.cff()})
    out = tmp_path / "out"
    build(capsys, root, out)
    (kept,) = (out / "pnpkit-cache" / "fonts").glob("*.ttf")
    made = kept.read_bytes()

    def refuse(data, instance=None):
        raise AssertionError("made again")

    with monkeypatch.context() as m:
        m.setattr(fontfiles, "embeddable", refuse)
        build(capsys, root, out)  # served from the cache folder
    kept.write_bytes(made[:500])
    build(capsys, root, out)
    assert kept.read_bytes() == made


def _woff2_bad_brotli() -> bytes:
    data = bytearray(fontmaker.woff("woff2"))
    data[-200:] = bytes(200)  # the compressed stream's end: zeros are no brotli
    return bytes(data)


@pytest.mark.parametrize(
    "fonts, files, message",
    [
        (
            "Fmt: fonts/Fmt.otf",
            {"fonts/Fmt.otf": fontmaker.cff()[:3000]},
            "ff/game.yaml:7:8: error: font 'fonts/Fmt.otf' is damaged or truncated (TTLibError: "
            "unexpected end of 'CFF ' table data",
        ),
        (
            "Fmt: fonts/Fmt.woff2",
            {"fonts/Fmt.woff2": _woff2_bad_brotli()},
            "ff/game.yaml:7:8: error: font 'fonts/Fmt.woff2' is damaged or truncated (",
        ),
        (
            "Fmt: {file: fonts/V.ttf, instance: Black}",
            {"fonts/V.ttf": fontmaker.variable()},
            "ff/game.yaml:7:15: error: font 'fonts/V.ttf' has no instance 'Black' "
            "(it has Regular, Bold) [fonts]",
        ),
        (
            "Fmt: {file: fonts/V.ttf, instance: {wdth: 90}}",
            {"fonts/V.ttf": fontmaker.variable()},
            "ff/game.yaml:7:15: error: font 'fonts/V.ttf' has no axis 'wdth' (it has wght) [fonts]",
        ),
        (
            "Fmt: {regular: {file: fonts/Fmt.ttf, instance: Bold}}",
            {"fonts/Fmt.ttf": fontmaker.truetype()},
            "ff/game.yaml:7:25: error: font 'fonts/Fmt.ttf' is not a variable font, so it has "
            "no instances; leave out 'instance' [fonts]",
        ),
        (
            "Fmt: fonts/Fmt.ttc",
            {"fonts/Fmt.ttc": b"ttcf" + bytes(40)},
            "ff/game.yaml:7:8: error: font 'fonts/Fmt.ttc' is a font collection (.ttc)",
        ),
        (
            "Fmt: fonts/Fmt.ttf\n  fallback: [Fmt, Naskh]",
            {"fonts/Fmt.ttf": fontmaker.truetype()},
            "ff/game.yaml:8:19: error: fonts.fallback names no font family: 'Naskh' "
            "(the families are DejaVu Sans, Fmt) [schema]",
        ),
    ],
)
def test_bad_font_files_are_located_errors(tmp_path, capsys, fonts, files, message):
    root = pack(tmp_path, f"fonts:\n  {fonts}\n", files)
    code, said = run(capsys, "validate", str(root))
    assert code == 1, said
    assert "Traceback" not in said
    errors = [line for line in said.splitlines() if ": error: " in line]
    assert len(errors) == 1 and errors[0].startswith(message), said


ARABIC = "*مرحبا بالعالم*"


def test_arabic_in_italic_is_drawn_upright_with_one_warning(tmp_path, capsys):
    root = pack(tmp_path, "", {}, text=ARABIC, family="DejaVu Sans", cards=3)
    pdf, said = build(capsys, root, tmp_path / "out", "ar")
    warnings = [line for line in said.splitlines() if ": warning: " in line and "[fonts]" in line]
    assert warnings == [
        "ff/templates/card.svg.j2:3:1: warning: DejaVu Sans has no italic glyphs for Arabic: "
        "drawn in DejaVu Sans regular (fonts for Arabic, Hebrew and CJK rarely have an italic; "
        "docs/fonts.md) [fonts]"
    ], said
    names = page_fonts(pdf)
    assert any(n.endswith("+DejaVuSans") for n in names), names  # the upright face draws it
    assert not any("Oblique" in n for n in names), names
    text = PdfReader(pdf).pages[-1].extract_text()
    # drawn joined (presentation forms, which NFKC takes back to the letters typed)
    assert unicodedata.normalize("NFKC", text).count("مرحبا بالعالم") == 3, text


def test_a_character_the_face_lacks_comes_from_the_fallback_families(tmp_path, capsys):
    hei = (Path(__file__).parent / "fonts" / "WQYMicroHei-subset.ttf").read_bytes()
    root = pack(
        tmp_path,
        "fonts:\n  Fmt: fonts/Fmt.otf\n  Hei: fonts/hei.ttf\n  fallback: [Hei]\n",
        {"fonts/Fmt.otf": fontmaker.cff(), "fonts/hei.ttf": hei},
        text="Quiz 你好 Box",
    )
    pdf, said = build(capsys, root, tmp_path / "out")
    assert "[fonts]" not in said and ": error: " not in said, said
    names = page_fonts(pdf)
    assert any("Hei" in n or "WenQuanYi" in n for n in names), names
    assert any("DejaVuSans" in n for n in names), names
    text = PdfReader(pdf).pages[-1].extract_text()
    assert "Quiz" in text and "你好" in text and "Box" in text, text


def test_without_a_fallback_a_missing_character_is_still_an_error(tmp_path, capsys):
    root = pack(
        tmp_path,
        "fonts:\n  Fmt: fonts/Fmt.otf\n",
        {"fonts/Fmt.otf": fontmaker.cff()},
        text="Quiz 你好",
    )
    code, said = run(capsys, "validate", str(root), "--lang", "en")
    assert code == 1
    assert "no glyph for '你' (U+4F60), '好' (U+597D) in Fmt" in said, said


def test_the_type_sample_pack_sets_its_titles_in_its_otf(tmp_path, capsys):
    """components/type-sample (docs/fonts.md): its .otf embedded, what it lacks drawn by its
    fallback, DejaVu Sans."""
    sample = Path(__file__).resolve().parents[1] / "components" / "type-sample"
    code, said = run(capsys, "build", str(sample), "--out", str(tmp_path / "out"), "--lang", "pl")
    assert code == 0 and ": warning: " not in said, said
    pdf = tmp_path / "out" / "type-sample" / "type-sample-pl.pdf"
    names = page_fonts(pdf)
    assert any("+TypeSample-Regular-" in n for n in names), names
    assert any(n.endswith("+DejaVuSans") for n in names), names  # ó, ż, ś of "Targ różności"
    doc = pypdfium2.PdfDocument(pdf)  # pdfium joins the pieces of a line by where they stand
    assert "Targ różności" in doc[len(doc) - 1].get_textpage().get_text_range()


@pytest.mark.parametrize(
    "make, message",
    [
        (fontmaker.woff2_bomb, "unpacks to more than 64 MB; a pack's font may not be that large"),
        (fontmaker.woff_bomb, "is damaged (a table unpacks to more than its size)"),
    ],
)
def test_a_compression_bomb_is_refused_before_it_is_unpacked(make, message):
    with pytest.raises(fontfiles.FontFileError) as caught:
        fontfiles.embeddable(make())
    assert str(caught.value) == message


def test_a_line_is_cut_where_its_face_changes_and_nowhere_else():
    """fonts.split(): letters go to the first face of the chain that has them; spaces,
    punctuation and marks stay with the piece before them when its face has them."""
    from pnpkit.typeset import fonts

    hei = fonts.PackFace(str(Path(__file__).parent / "fonts" / "WQYMicroHei-subset.ttf"), "hei")
    try:
        fonts.use({"Hei": {(False, False): hei}}, ("Hei",))
        regular, italic = fonts.default_face(), fonts.face_name("DejaVu Sans", italic=True)
        assert fonts.split("Quiz 你好 Box", regular) == [
            ("Quiz ", regular),
            ("你好 ", "Hei#hei"),  # the space after its letters: Hei has one
            ("Box", regular),
        ]
        assert fonts.split("你好, Box", regular) == [  # a comma Hei lacks: DejaVu Sans's
            ("你好", "Hei#hei"),
            (", Box", regular),
        ]
        assert fonts.split("*مرحبا بالعالم*", italic) == [
            ("*", italic),
            ("مرحبا بالعالم*", regular),  # the oblique face has no Arabic: the upright draws it
        ]
        assert fonts.missing_glyphs(regular, "Quiz 你好 ☃") == ""  # DejaVu Sans has the snowman
        assert fonts.missing_glyphs(regular, "Quiz 你好 世界") == ""
        assert fonts.missing_glyphs(regular, "牌 𝄞") == "𝄞"  # in no face of the chain
        with_fallback = fonts.signature()
        fonts.use({"Hei": {(False, False): hei}})
        assert fonts.signature() != with_fallback  # cache keys tell the two apart
        assert fonts.split("Quiz 你好", regular) == [("Quiz 你好", regular)]  # no fallback: one
    finally:
        fonts.use({})
