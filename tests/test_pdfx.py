"""PDF/X-1a in CMYK, the preflight and the ink limit: files parsed with pikepdf, colours against
littleCMS."""

from __future__ import annotations

import dataclasses
import hashlib
import shutil
import subprocess
from pathlib import Path

import pikepdf
import pypdfium2
import pytest
from PIL import Image, ImageCms
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas

from conftest import ROOT, alpha_pack, write_pack
from pnpkit.build import pipeline as build
from pnpkit.build.cachefile import engine
from pnpkit.commands.cli import main
from pnpkit.export import export, facepages, pdfx, preflight, profile, rastercache

FACE = (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text()
# A card with a colour over the whole bleed, a big black box, black and grey text, and a PNG.
CARD = """{% extends "_face.svg.j2" %}{% block content %}
<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" width="{{ face.w + 2 * face.bleed }}" height="{{ face.h + 2 * face.bleed }}" fill="#c83232"/>
<rect x="5" y="5" width="30" height="20" fill="#000000"/>
<text x="5" y="40" font-size="4" fill="#000000">Black text</text>
<text x="5" y="50" font-size="4" fill="#808080">Grey text</text>
<image x="40" y="60" width="20" height="20" href="art.png"/>
{% endblock %}
"""  # noqa: E501 (data: markup and YAML kept as written)


def card_pack(
    root: Path,
    extra: str = "",
    template: str = CARD,
    art: Image.Image | None = None,
    art_name: str = "art.png",
) -> Path:
    pack = write_pack(
        root,
        {
            "game.yaml": "name: Press\nlanguages: [en]\nplayers: "
            "{min: 1, max: 1}\nprint: {bleed: 0.125in}\n",
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n  front: "
            f"card.svg.j2\n  items:\n    - {{id: one}}\n{extra}",
            "templates/card.svg.j2": template.replace("art.png", art_name),
            "templates/_face.svg.j2": FACE,
        },
    )
    (art or Image.new("RGB", (20, 20), (40, 90, 200))).save(pack / art_name)
    return pack


def shown(problems) -> list[str]:
    """Problems as printed, with absolute paths (the pack's files are named relative to the cwd)."""
    return [
        str(
            dataclasses.replace(
                p, where=dataclasses.replace(p.where, file=str(Path(p.where.file).resolve()))
            )
        )
        for p in problems
    ]


def export_pdfx(pack: Path, out: Path, name: str = "pdfx"):
    result = build.validate(pack)
    assert not result.errors, [str(p) for p in result.errors]
    found, _ = profile.load(name)
    problems = export.export(result.pack, result.faces, out, found)
    return problems, sorted((out / result.pack.id / name / "en").glob("*.pdf"))


def streams(pdf: pikepdf.Pdf):
    """Every content stream: pages and the forms (faces) they draw, as (name, [(operands,
    operator)])."""
    out, seen = [], set()

    def visit(holder, name):
        if holder.objgen in seen:
            return
        seen.add(holder.objgen)
        out.append((name, pikepdf.parse_content_stream(holder)))
        for xname, x in holder.get("/Resources", {}).get("/XObject", {}).items():
            if x.get("/Subtype") == "/Form":
                visit(x, str(xname))

    for n, page in enumerate(pdf.pages, 1):
        visit(page.obj, f"page {n}")
    return out


def images(pdf: pikepdf.Pdf) -> list:
    return [
        obj
        for obj in pdf.objects
        if isinstance(obj, pikepdf.Stream) and obj.get("/Subtype") == "/Image"
    ]


def icc_cmyk(rgb) -> tuple[float, ...]:
    """What littleCMS makes of an sRGB colour with pnpkit's profile (relative colorimetric,
    black-point compensation)."""
    transform = ImageCms.buildTransform(
        ImageCms.createProfile("sRGB"),
        ImageCms.getOpenProfile(str(pdfx.DEFAULT_ICC)),
        "RGB",
        "CMYK",
        ImageCms.Intent.RELATIVE_COLORIMETRIC,
        flags=ImageCms.Flags.BLACKPOINTCOMPENSATION,
    )
    return tuple(
        v / 255
        for v in ImageCms.applyTransform(Image.new("RGB", (1, 1), rgb), transform).getpixel((0, 0))
    )


@pytest.fixture(scope="module")
def press_card(tmp_path_factory):
    root = tmp_path_factory.mktemp("press")
    problems, files = export_pdfx(card_pack(root / "pack"), root / "out")
    return problems, files[0]


def test_pdfx_has_no_rgb_left_and_colours_are_the_icc_conversion(press_card):
    problems, path = press_card
    assert problems == []
    with pikepdf.open(path) as pdf:
        fills = []
        for name, ops in streams(pdf):
            operators = [str(op) for _, op in ops]
            assert not {"rg", "RG", "sc", "scn", "SC", "SCN"} & set(operators), name
            assert all(
                str(operands[0]) in ("/DeviceCMYK", "/DeviceGray")
                for operands, op in ops
                if str(op) in ("cs", "CS")
            )
            fills += [tuple(float(v) for v in operands) for operands, op in ops if str(op) == "k"]
        for image in images(pdf):
            assert image.ColorSpace == "/DeviceCMYK" and "/SMask" not in image
        assert image.read_bytes()[:4] == bytes(
            round(v * 255) for v in icc_cmyk((40, 90, 200))
        )  # the PNG's pixel, separated
    red = icc_cmyk((0xC8, 0x32, 0x32))
    assert any(f == pytest.approx(red, abs=0.001) for f in fills), (red, fills)
    assert (0, 0, 0, 1) in fills  # black text: K only
    assert any(f[:3] == (0, 0, 0) and 0.3 < f[3] < 0.8 for f in fills)  # grey text: K only
    assert (0.6, 0.4, 0.4, 1) in fills  # the 30 x 20 mm black box: rich black


def test_pdfx_output_intent_info_boxes_and_fonts(press_card):
    _, path = press_card
    assert path.read_bytes().startswith(b"%PDF-1.4")
    with pikepdf.open(path) as pdf:
        [intent] = pdf.Root.OutputIntents
        assert intent.S == "/GTS_PDFX" and str(intent.OutputConditionIdentifier) == "Custom"
        assert (
            intent.DestOutputProfile.read_bytes() == pdfx.DEFAULT_ICC.read_bytes()
            and intent.DestOutputProfile.N == 4
        )
        info = pdf.docinfo
        assert str(info.GTS_PDFXVersion) == str(info.GTS_PDFXConformance) == "PDF/X-1a:2003"
        assert (
            info.Trapped == "/False"
            and str(info.Title).startswith("Press")
            and "/CreationDate" in info
        )
        for page in pdf.pages:
            b = 3 * 72 / 25.4  # the pdfx profile's 3 mm bleed around a 2.5 x 3.5 in card
            assert [float(v) for v in page.TrimBox] == pytest.approx([b, b, b + 180, b + 252])
            assert [float(v) for v in page.BleedBox] == pytest.approx(
                [0, 0, 2 * b + 180, 2 * b + 252]
            )
        fonts = [
            f
            for obj in pdf.objects
            if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == "/Font"
            for f in [obj]
        ]
        assert fonts and all(preflight._embedded(f) for f in fonts)
    assert preflight.check(path) == []


def test_pdfx_passes_ghostscript_cleanly(press_card):
    if shutil.which("gs") is None:
        pytest.skip("Ghostscript is not installed")
    run = subprocess.run(
        ["gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=nullpage", str(press_card[1])],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (run.returncode, run.stdout + run.stderr) == (0, "")


def test_transparency_is_flattened_to_a_cmyk_image_with_a_located_warning(tmp_path):
    problems, [path] = export_pdfx(alpha_pack(tmp_path / "alpha", bleed="3mm"), tmp_path / "out")
    assert shown(problems) == [
        f"{tmp_path}/alpha/cards.yaml:6:7: warning: the front of "
        "'a' uses opacity, which PDF/X-1a forbids: it is flattened "
        "to a 300 dpi image in the PDF/X files (text "
        "included); draw it opaque to keep it vector [pdfx]"
    ]
    with pikepdf.open(path) as pdf:
        [image] = images(pdf)
        assert image.ColorSpace == "/DeviceCMYK" and (image.Width, image.Height) == (
            821,
            1121,
        )  # 69.5 x 94.9 mm (3 mm bleed) at 300 dpi
    assert preflight.check(path) == []
    pixel = pypdfium2.PdfDocument(str(path))[0].render(scale=1).to_pil().getpixel((90, 128))
    assert (
        pixel[0] > 200 and 100 < pixel[1] < 190 and 100 < pixel[2] < 190
    )  # half red on white: pink, not red


def test_a_warm_pdfx_export_flattens_nothing_and_writes_the_same_bytes(tmp_path, monkeypatch):
    pack = alpha_pack(tmp_path / "alpha", bleed="3mm")
    build_it = ["build", str(pack), "--out", str(tmp_path / "out"), "--profile", "drivethrucards"]
    assert main(build_it) == 0
    [pdf] = (tmp_path / "out" / "alpha" / "drivethrucards").rglob("*.pdf")
    cold = pdf.read_bytes()

    def no_flattening(*args, **kwargs):
        raise AssertionError("a warm export flattened a face again")

    monkeypatch.setattr(pdfx, "flatten", no_flattening)
    assert main(build_it) == 0
    assert pdf.read_bytes() == cold
    shutil.rmtree(tmp_path / "out" / "pnpkit-cache" / "raster")  # nothing cached: it must flatten
    with pytest.raises(AssertionError, match="flattened a face again"):
        main(build_it)


def test_ink_over_the_limit_is_a_warning_at_the_face(tmp_path):
    """A CMYK JPEG of 100/100/100/100 goes into the file as it is, and is 400 % ink."""
    art = Image.new("CMYK", (20, 20), (255, 255, 255, 255))
    problems, _ = export_pdfx(
        card_pack(tmp_path / "pack", art=art, art_name="art.jpg"), tmp_path / "out"
    )
    assert shown(problems) == [
        f"{tmp_path}/pack/cards.yaml:6:7: warning: the front of 'one' "
        "needs 400 % ink where pdfx allows 300 %: image art.jpg [ink-limit]"
    ]


def test_colours_are_separated_within_a_lower_ink_limit(tmp_path):
    """DriveThruCards' limit is 240 %: a near-black brown that pnpkit's profile puts at 300 %
    keeps its K and loses C, M and Y."""
    template = CARD.replace("#c83232", "#201008")
    problems, [path] = export_pdfx(
        card_pack(tmp_path / "pack", template=template), tmp_path / "out", "drivethrucards"
    )
    assert problems == []
    icc = icc_cmyk((0x20, 0x10, 0x08))
    assert sum(icc) > 2.9  # what the profile alone gives
    scale = (2.4 - icc[3]) / sum(icc[:3])
    want = tuple(v * scale for v in icc[:3]) + (icc[3],)
    with pikepdf.open(path) as pdf:
        fills = [
            tuple(float(v) for v in operands)
            for _, ops in streams(pdf)
            for operands, op in ops
            if str(op) in ("k", "K")
        ]
        images_ink = [
            max(sum(px) for px in zip(*[iter(image.read_bytes())] * 4)) for image in images(pdf)
        ]
    assert any(f == pytest.approx(want, abs=0.002) for f in fills), (want, fills)
    assert max(sum(f) for f in fills) <= 2.4 + 1e-6
    assert (0.4, 0.3, 0.3, 1) in fills  # DriveThruCards' rich black, within its limit
    assert images_ink and max(images_ink) <= 2.4 * 255 + 2


def test_a_rich_black_over_the_ink_limit_is_a_profile_error(tmp_path):
    path = tmp_path / "press.yaml"
    path.write_text(
        "name: P\noutput: pages\npdfx: true\nink_limit: 240\nrich_black: [60, 50, 50, 100]\n",
        encoding="utf-8",
    )
    found, problems = profile.load(str(path))
    assert found is None
    assert [(p.where.line, p.where.column, p.message) for p in problems] == [
        (5, 13, "the rich black 60/50/50/100 is 260 % ink, over the ink limit of 240 %")
    ]


# ------------------------------------------------------------------ the preflight


def bad_pdf(path: Path) -> Path:
    """Everything PDF/X-1a forbids in one file: RGB, an unembedded font, transparency, an RGBA
    image, bad boxes."""
    c = Canvas(str(path), pagesize=(200, 200))
    c.setFillColorRGB(1, 0, 0)
    c.rect(10, 10, 50, 50, fill=1)
    c.setFont("Helvetica", 12)
    c.drawString(10, 100, "Helvetica is never embedded")
    c.setFillAlpha(0.5)
    c.rect(20, 20, 50, 50, fill=1)
    c.drawImage(
        ImageReader(Image.new("RGBA", (4, 4), (0, 0, 255, 128))), 100, 100, 20, 20, mask="auto"
    )
    c.setTrimBox((0, 0, 300, 300))  # bigger than the page
    c.showPage()
    c.save()
    return path


def test_preflight_finds_every_fault_of_a_bad_pdf(tmp_path):
    path = bad_pdf(tmp_path / "bad.pdf")
    got = [str(p) for p in preflight.check(path, "pdfx")]
    at = f"{path}:1:0: error: page 1: "
    assert got == [
        f"{path}:0:0: error: 0 GTS_PDFX OutputIntents; PDF/X needs exactly one [preflight]",
        f"{path}:0:0: error: Info GTS_PDFXVersion is 'missing', not 'PDF/X-1a:2003' [preflight]",
        f"{path}:0:0: error: Info GTS_PDFXConformance "
        "is 'missing', not 'PDF/X-1a:2003' [preflight]",
        f"{at}no BleedBox; a page with bleed needs one [preflight]",
        f"{at}the TrimBox [0 0 300 300] is not inside the BleedBox [0 0 200 200] [preflight]",
        f"{at}font Helvetica in the page is not embedded [preflight]",
        f"{at}transparency: graphics state gRLs0 in the page sets ca 0.5 [preflight]",
        f"{at}RGB colour in the page: 1 operator(s), the first '1 0 0 rg' [preflight]",
        f"{at}colour space DeviceRGB (image FormXob.{_image_name(path)} in the page) [preflight]",
        f"{at}transparency: a soft mask (image "
        f"FormXob.{_image_name(path)} in the page) [preflight]",
    ]
    # for home printing only the fonts and the boxes matter
    assert [p.message for p in preflight.check(path, "home")] == [
        "page 1: the TrimBox [0 0 300 300] is not inside the BleedBox [0 0 200 200]",
        "page 1: font Helvetica in the page is not embedded",
    ]


def _image_name(path: Path) -> str:
    with pikepdf.open(path) as pdf:
        return next(str(n) for n in pdf.pages[0].Resources.XObject.keys()).split(".")[-1]


def test_preflight_command(tmp_path, capsys):
    bad = bad_pdf(tmp_path / "bad.pdf")
    assert main(["preflight", str(bad), "--target", "home"]) == 1
    out, err = capsys.readouterr()
    assert (
        out.splitlines()[0] == f"{bad}:1:0: error: page 1: the TrimBox [0 0 300 300] "
        "is not inside the BleedBox [0 0 200 200] [preflight]"
    )
    assert err == f"{bad}: 2 problem(s)\n"
    assert main(["preflight", str(tmp_path / "missing.pdf")]) == 2
    (tmp_path / "junk.pdf").write_text("not a pdf")
    assert main(["preflight", str(tmp_path / "junk.pdf")]) == 1
    assert "not a readable PDF" in capsys.readouterr().out


def test_a_build_reports_what_the_preflight_finds(tmp_path, monkeypatch, capsys):
    """build runs the preflight on its own output: a fault slipped into a PDF is reported, and
    fails the build."""
    pack = card_pack(tmp_path / "pack")
    real = facepages.write_faces_pdf

    def broken(sheets, path, title, separation=None):
        real(sheets, path, title, separation)
        with pikepdf.open(path, allow_overwriting_input=True) as pdf:
            del pdf.pages[0].obj["/TrimBox"]
            pdf.save(path)

    monkeypatch.setattr(facepages, "write_faces_pdf", broken)
    assert main(["build", str(pack), "--out", str(tmp_path / "out"), "--profile", "pdfx"]) == 1
    out = capsys.readouterr().out
    assert (
        f"{tmp_path}/out/pack/pdfx/en/01-cards.pdf:1:0: error: page "
        "1: no TrimBox; PDF/X needs one on every page [preflight]" in out
    )


def test_a_file_that_passed_is_not_parsed_again_but_a_fault_is_reported_every_time(
    tmp_path, monkeypatch, capsys
):
    pack = card_pack(tmp_path / "pack")
    build_it = ["build", str(pack), "--out", str(tmp_path / "out"), "--profile", "pdfx"]
    assert main(build_it) == 0
    checked = []
    real = preflight.check
    monkeypatch.setattr(
        preflight,
        "check",
        lambda path, target=None: checked.append(path.name) or real(path, target),
    )
    assert main(build_it) == 0
    assert checked == []  # the sheets and the export, byte for byte as before: passed already
    made = sorted((tmp_path / "out" / "pack").rglob("*.pdf"))
    assert len(made) >= 2
    broken = made[0]
    with pikepdf.open(
        broken, allow_overwriting_input=True
    ) as pdf:  # as if a file had changed underneath
        pdf.docinfo["/Title"] = "another"
        pdf.save(broken)
    assert (
        preflight.check_build(
            tmp_path / "out" / "pack", {"pdfx"}, rastercache.for_output(tmp_path / "out")
        )
        == []
    )
    assert checked == [broken.name]  # new bytes: checked, and it passes
    capsys.readouterr()
    bad = tmp_path / "out" / "pack" / "pdfx" / "en" / "01-cards.pdf"
    with pikepdf.open(bad, allow_overwriting_input=True) as pdf:
        del pdf.pages[0].obj["/TrimBox"]
        pdf.save(bad)
    for _ in range(2):  # a fault is never remembered as a pass
        found = preflight.check_build(
            tmp_path / "out" / "pack", {"pdfx"}, rastercache.for_output(tmp_path / "out")
        )
        assert [p.message for p in found] == ["page 1: no TrimBox; PDF/X needs one on every page"]


@pytest.mark.parametrize(
    "game", sorted(p.name for p in (ROOT / "components").iterdir() if (p / "game.yaml").is_file())
)
def test_every_kit_passes_the_preflight(game, tmp_path):
    """The home sheets of every kit (one language), and the PDF/X files of the two smallest kits."""
    extra = ["--profile", "pdfx"] if game in ("mammoth-herd", "anunnaki") else []
    out = tmp_path / "out"
    assert (
        main(["build", str(ROOT / "components" / game), "--out", str(out), "--lang", "en", *extra])
        == 0
    )
    files = sorted(out.rglob("*.pdf"))
    assert files and any("pdfx" in f.parts for f in files) == bool(extra)
    for path in files:
        assert preflight.check(path, "pdfx" if "pdfx" in path.parts else "home") == [], path


GRADIENT_CARD = """{% extends "_face.svg.j2" %}{% block content %}
<defs><linearGradient id="sky" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="#c83232"/>
<stop offset="1" stop-color="#2850c8"/></linearGradient>
<radialGradient id="sun"><stop offset="0" stop-color="#ffffff"/><stop offset="1" stop-color="#e8b923"/></radialGradient></defs>
<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" width="{{ face.w + 2 * face.bleed }}" height="{{ face.h + 2 * face.bleed }}" fill="url(#sky)"/>
<circle cx="30" cy="40" r="15" fill="url(#sun)"/>
{% endblock %}
"""  # noqa: E501 (data: markup and YAML kept as written)


def test_a_gradient_exports_as_pdfx_with_cmyk_shadings(tmp_path):
    problems, [path] = export_pdfx(
        card_pack(tmp_path / "pack", template=GRADIENT_CARD), tmp_path / "out"
    )
    assert problems == []  # no flattening warning: the gradients stay vector
    with pikepdf.open(path) as pdf:
        shadings = [
            s
            for obj in pdf.objects
            if isinstance(obj, pikepdf.Dictionary) and "/ShadingType" in obj
            for s in [obj]
        ]
        assert sorted(int(s.ShadingType) for s in shadings) == [2, 3]  # axial and radial
        assert all(s.ColorSpace == "/DeviceCMYK" for s in shadings)
        assert images(pdf) == []
        [axial] = [s for s in shadings if s.ShadingType == 2]
        pieces = axial.Function.Functions  # a stitching function: one piece per sample step
        assert len(pieces) == pdfx.GRADIENT_STEPS
        ends = [float(v) for v in pieces[0].C0], [float(v) for v in pieces[-1].C1]
        sep = pdfx.separation(pdfx.Press())
        assert ends[0] == pytest.approx(sep.colour((0xC8 / 255, 0x32 / 255, 0x32 / 255)), abs=1e-3)
        assert ends[1] == pytest.approx(sep.colour((0x28 / 255, 0x50 / 255, 0xC8 / 255)), abs=1e-3)
        assert ends[0] == pytest.approx(
            icc_cmyk((0xC8, 0x32, 0x32)), abs=0.01
        )  # the same ICC conversion as flat colours
        middle = [float(v) for v in pieces[len(pieces) // 2].C0]
        assert middle == pytest.approx(
            sep.colour(((0xC8 + 0x28) / 510, (0x32 + 0x50) / 510, (0x32 + 0xC8) / 510)), abs=1e-3
        )
    assert preflight.check(path) == []
    if shutil.which("gs"):
        run = subprocess.run(
            ["gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=nullpage", str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert (run.returncode, run.stdout + run.stderr) == (0, "")


def test_a_gradient_face_prints_in_a_build(tmp_path):
    """A face is a PDF form, and ReportLab leaves a form's shadings out of its resources: the
    build must put them back, or the gradient prints as nothing."""
    pack = card_pack(tmp_path / "pack", template=GRADIENT_CARD)
    assert main(["build", str(pack), "--out", str(tmp_path / "out"), "--lang", "en"]) == 0
    [path] = (tmp_path / "out").glob("*/*-en.pdf")
    with pikepdf.open(path) as pdf:
        forms = [
            x
            for page in pdf.pages
            for x in page.Resources.get("/XObject", {}).values()
            if "/Shading" in x.Resources
        ]
        [form] = forms
        assert sorted(int(s.ShadingType) for s in form.Resources.Shading.values()) == [2, 3]
    doc = pypdfium2.PdfDocument(str(path))
    pixels = [
        px
        for page in doc
        for px in page.render(scale=0.5).to_pil().convert("RGB").get_flattened_data()
    ]
    near = lambda a, b: all(abs(x - y) < 25 for x, y in zip(a, b))  # noqa: E731
    assert any(near(px, (0xC8, 0x32, 0x32)) for px in pixels) and any(
        near(px, (0x28, 0x50, 0xC8)) for px in pixels
    )
    assert any(near(px, (0xE8, 0xB9, 0x23)) for px in pixels)  # the radial gradient's rim


def test_a_preflight_pass_is_keyed_by_the_whole_file_read_a_part_at_a_time(tmp_path):
    """_pass_key hashes the file a MB at a time: the key of the engine, the target and every
    byte of the file, as one hash of them all joined; the same as _file_key() of the file open."""
    path = tmp_path / "big.pdf"
    content = bytes(range(256)) * 12_345  # over three parts, the last one short
    path.write_bytes(content)
    whole = hashlib.sha256(engine() + b"pdfx\0" + content).hexdigest()
    with path.open("rb") as f:
        assert preflight._pass_key(path, "pdfx") == whole == preflight._file_key(f, "pdfx")
    path.write_bytes(content[:-1] + b"!")
    assert preflight._pass_key(path, "pdfx") != whole
    assert preflight._pass_key(tmp_path / "none.pdf", "pdfx") is None
