"""Art files as design tools save them (issue 35): the corpus in tests/art compared pixel by
pixel with resvg, the CSS cascade, what is drawn as vectors and what as an image, the build's
note, and the checks on what resvg is handed."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from lxml import etree
from PIL import Image

import artcompare
from conftest import ROOT, write_pack
from pnpkit.build import pipeline as build
from pnpkit.svg import compiler as svgdraw
from pnpkit.svg import css as svgcss
from pnpkit.svg import normalise as svgnorm
from pnpkit.svg import ops as svgops
from pnpkit.svg import raster as svgraster

CORPUS = Path(__file__).parent / "art"
FILES = sorted(CORPUS.glob("*.svg"))
TOOLS = ("inkscape", "illustrator", "affinity", "figma")


def test_the_corpus_has_each_tool():
    by_tool = {tool: [f for f in FILES if f.name.startswith(tool + "-")] for tool in TOOLS}
    assert len(FILES) >= 30
    assert all(len(files) >= 6 for files in by_tool.values()), by_tool
    assert sum(map(len, by_tool.values())) == len(FILES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_corpus_matches_resvg(path):
    share, ours, ref = artcompare.differing(path)
    assert ours.size == ref.size
    assert share <= 0.01, f"{share:.2%} of the pixels differ"


def test_the_comparison_sees_a_difference(tmp_path):
    """The harness is not blind: a file whose colour pnpkit draws differently from resvg (a
    changed copy compared with the original's reference) fails by far."""
    ours = artcompare.pnpkit_pixels(CORPUS / "illustrator-legacy-st.svg")
    changed = tmp_path / "changed.svg"
    text = (CORPUS / "illustrator-legacy-st.svg").read_text().replace("#1D71B8", "#B8711D")
    changed.write_text(text)
    ref = artcompare.reference_pixels(changed, ours.size)
    assert artcompare.share_differing(ours, ref) > 0.5


def _ops(name: str) -> tuple[svgops.Op, ...]:
    face = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="60mm" height="60mm" viewBox="0 0 60 60">'
        f'<image href="{name}" x="0" y="0" width="60" height="60"/></svg>'
    )
    return svgdraw.compile_svg(face, lambda href: str(CORPUS / href)).ops


VECTORS = [
    "illustrator-specificity.svg",
    "illustrator-symbol.svg",
    "inkscape-pattern.svg",  # tiles under a clip
    "figma-mask-alpha.svg",  # a clip
    "affinity-mask.svg",
    "inkscape-radial-stop-opacity.svg",  # one stop opacity: the fill's
    "inkscape-linear-gradient.svg",
]
IMAGES = {
    "figma-drop-shadow.svg": 1,
    "illustrator-drop-shadow.svg": 1,
    "inkscape-blur.svg": 1,
    "inkscape-mask-gradient.svg": 1,
    "figma-gradient-fade.svg": 1,
    "figma-group-opacity.svg": 2,  # overlapping circles, a stroked fill; not the two apart
}


@pytest.mark.parametrize("name", VECTORS)
def test_drawn_as_vectors(name):
    ops = _ops(name)
    assert not any(isinstance(op, svgops.ImageOp) for op in ops)
    assert any(isinstance(op, (svgops.PathOp, svgops.Gradient)) for op in ops)


@pytest.mark.parametrize("name,count", IMAGES.items())
def test_drawn_as_images(name, count):
    images = [op for op in _ops(name) if isinstance(op, svgops.ImageOp)]
    assert len(images) == count
    mm_per_unit = 60 / max(artcompare.art_box(CORPUS / name))  # drawn 60 mm large
    for image in images:
        with Image.open(io.BytesIO(image.source)) as png:
            dpi = png.size[0] / (image.w * mm_per_unit / 25.4)
        assert 295 < dpi < 305  # PRINT_DPI at the size drawn


def _resolved(svg: str) -> etree._Element:
    root = etree.fromstring(svg.encode())
    assert svgcss.resolve(root) == []
    return root


def test_cascade_specificity_important_and_inline():
    root = _resolved(
        '<svg xmlns="http://www.w3.org/2000/svg"><style>'
        "rect{fill:red;stroke:blue} .a{fill:green} #b{fill:navy} .c{fill:teal!important}"
        "</style>"
        '<rect id="b" class="a"/><rect class="a" style="fill:#123456"/>'
        '<rect class="c" style="fill:black"/><rect/></svg>'
    )
    styles = [el.get("style") for el in root]
    assert styles == [
        "fill:navy;stroke:blue",
        "fill:#123456;stroke:blue",
        "fill:teal;stroke:blue",
        "fill:red;stroke:blue",
    ]
    assert root.find("{http://www.w3.org/2000/svg}style") is None


def test_plain_values():
    root = _resolved(
        '<svg xmlns="http://www.w3.org/2000/svg" color="#abcdef">'
        '<rect style="stroke-width:2px;font-weight:700;isolation:isolate;'
        'fill:rgba(255,0,0,0.5);stroke:currentColor;-inkscape-font-specification:x"/></svg>'
    )
    assert root[0].get("style") == (
        "stroke-width:2;font-weight:bold;fill:rgb(255,0,0);fill-opacity:0.5;stroke:#abcdef"
    )


@pytest.mark.parametrize(
    "css,message",
    [
        ("@import url(x.css);", "CSS @import is not supported in art files"),
        (".a{fill:url(x.svg#p)}", "CSS 'fill: url(x.svg#p)' names a file: only url(#id)"),
        (
            ".a{fill:url('http://x/y')}",
            "CSS 'fill: url(\"http://x/y\")' names a file: only url(#id)",
        ),
    ],
)
def test_css_that_reaches_out_is_refused(css, message):
    svg = f'<svg xmlns="http://www.w3.org/2000/svg">\n<style>{css}</style><rect class="a"/></svg>'
    root = etree.fromstring(svg.encode())
    assert svgcss.resolve(root) == [(2, message)]


def _art_pack(tmp_path: Path, art: str) -> Path:
    face = (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text()
    return write_pack(
        tmp_path / "pack",
        {
            "game.yaml": "name: Art\nlanguages: [en]\nplayers: {min: 1, max: 1}\n",
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n  front: art.svg.j2\n"
            "  items:\n    - {id: one}\n",
            "templates/art.svg.j2": '{% extends "_face.svg.j2" %}{% block content %}'
            '<image href="art/logo.svg" x="5" y="5" width="50" height="50"/>{% endblock %}',
            "templates/_face.svg.j2": face,
            "art/logo.svg": art,
        },
    )


def test_the_build_notes_what_is_drawn_as_an_image(tmp_path):
    art = (CORPUS / "illustrator-drop-shadow.svg").read_text()
    root = _art_pack(tmp_path, art)
    result = build.build(root, build.BuildOptions(tmp_path / "out"))
    notes = [p for p in result.problems if p.rule == "art-image"]
    assert not result.errors
    assert [p.message for p in notes] == [
        "drawn partly as an image at 300 dpi, as PDF vectors cannot express a filter "
        "(line 23); the rest is vectors"
    ]
    assert notes[0].where.file.endswith("logo.svg")
    assert (notes[0].where.line, notes[0].level) == (23, "warning")


def test_vectors_only_art_has_no_note(tmp_path):
    root = _art_pack(tmp_path, (CORPUS / "illustrator-multi-class.svg").read_text())
    result = build.build(root, build.BuildOptions(tmp_path / "out"))
    assert not result.problems


def _raster_problems(svg: str) -> list[tuple[int, str]]:
    root = etree.fromstring(svg.encode())
    return svgnorm.normalise(root, 50).problems


BLUR = '<filter id="f"><feGaussianBlur stdDeviation="2"/></filter><g filter="url(#f)">{}</g>'


@pytest.mark.parametrize(
    "inner,message",
    [
        (
            '<image href="/etc/passwd" width="5" height="5"/>',
            "cannot draw a filter as an image: a file ('/etc/passwd'): only #id and PNG/JPEG "
            "data: images",
        ),
        (
            '<image href="data:image/png;base64,AAAA" width="5" height="5"/>',
            "cannot draw a filter as an image: an unreadable image ('data:image/png;base64,AAAA')"
            ": only #id and PNG/JPEG data: images",
        ),
        (
            '<rect width="5" height="5" fill="url(other.svg#g)"/>',
            "cannot draw a filter as an image: attribute 'fill' is not allowed",
        ),
        (
            '<foreignObject width="5" height="5"/>',
            "cannot draw a filter as an image: it holds <foreignObject>, which pnpkit does not "
            "hand to its renderer",
        ),
    ],
)
def test_what_resvg_is_handed_is_checked(inner, message):
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">\n{BLUR.format(inner)}</svg>'
    )
    assert _raster_problems(svg) == [(2, message)]


@pytest.mark.parametrize(
    "primitive",
    [
        '<feMorphology radius="20"/>',
        '<feTurbulence baseFrequency="0.1" numOctaves="1000000"/>',
        '<feConvolveMatrix order="200" kernelMatrix="1"/>',
    ],
)
def test_filters_that_would_take_too_long_are_refused(primitive):
    kind = primitive.split()[0][1:]
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">\n'
        f'<filter id="f">{primitive}</filter><rect width="9" height="9" filter="url(#f)"/></svg>'
    )
    assert _raster_problems(svg) == [
        (
            2,
            f"cannot draw a filter as an image: its <{kind}> would take too long to draw at "
            "300 dpi",
        )
    ]


def test_use_bombs_are_not_rendered():
    uses = "".join(f'<g id="l{n}">' + f'<use href="#l{n - 1}"/>' * 10 + "</g>" for n in range(1, 7))
    drawn = BLUR.format('<use href="#l6"/>')
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">\n<defs><rect id="l0" '
        f'width="1" height="1"/>{uses}</defs>{drawn}</svg>'
    )
    assert _raster_problems(svg) == [
        (
            2,
            "cannot draw a filter as an image: it has more than 50,000 elements once each "
            "<use> is expanded",
        )
    ]


def test_pixels_are_bounded():
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
        + BLUR.format('<rect width="10" height="10"/>')
        + "</svg>"
    )
    root = etree.fromstring(svg.encode())
    doc, _ = svgraster._document(root, root[1], (0, 0, 10, 10), 1e6)
    assert int(doc.get("width")) * int(doc.get("height")) <= svgraster.MAX_RASTER_PIXELS


def test_nested_defs_are_copied_once_into_the_drawn_document():
    """The document resvg draws holds the art's resources once each: a <defs> nested k deep is
    copied whole once, not once per level (k^2 elements from a file of k)."""
    depth = 40
    nested = (
        "".join(
            f'<defs><linearGradient id="g{k}"><stop offset="0"/></linearGradient>'
            for k in range(depth)
        )
        + "</defs>" * depth
    )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">{nested}'
        + BLUR.format('<rect width="10" height="10" fill="url(#g0)"/>')
        + "</svg>"
    )
    root = etree.fromstring(svg.encode())
    doc, _ = svgraster._document(root, root[-1], (0, 0, 10, 10), 10)
    ids = [el.get("id") for el in doc.iter() if el.get("id", "").startswith("g")]
    assert sorted(ids) == sorted(f"g{k}" for k in range(depth))


def test_a_plain_svg_doctype_is_taken_but_not_an_internal_subset(tmp_path):
    head = (
        '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
        '"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"'
    )
    body = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
        '<rect width="5" height="5"/></svg>'
    )
    (tmp_path / "a.svg").write_text(f"{head}>\n{body}")
    (tmp_path / "b.svg").write_text(f'{head} [<!ENTITY x "y">]>\n{body}')
    face = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="10mm" height="10mm" viewBox="0 0 10 10">'
        '<image href="{}" x="0" y="0" width="10" height="10"/></svg>'
    )
    resolve = lambda href: str(tmp_path / href)  # noqa: E731
    assert svgdraw.compile_svg(face.format("a.svg"), resolve).ops
    with pytest.raises(svgdraw.SvgError, match="must not have a DOCTYPE or entities"):
        svgdraw.compile_svg(face.format("b.svg"), resolve)


def test_blend_modes_stay_a_located_error(tmp_path):
    (tmp_path / "a.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">\n'
        '<rect width="5" height="5" style="mix-blend-mode:multiply"/></svg>'
    )
    face = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="10mm" height="10mm" viewBox="0 0 10 10">'
        '<image href="a.svg" x="0" y="0" width="10" height="10"/></svg>'
    )
    with pytest.raises(svgdraw.SvgError) as caught:
        svgdraw.compile_svg(face, lambda href: str(tmp_path / href))
    assert [p[:2] for p in caught.value.problems] == [
        (2, "unsupported attribute 'mix-blend-mode' on <rect>")
    ]


def test_an_image_part_in_a_png_keeps_its_place():
    """The image replacing a blurred shape sits where resvg painted it: its box holds the
    shape and reaches a little beyond it (the blur), in the art's own units."""
    ops = _ops("inkscape-blur.svg")
    (image,) = [op for op in ops if isinstance(op, svgops.ImageOp)]
    # the ellipse: centre (41, 38), radii 24 x 5, blurred by 2.1
    assert 41 - 24 - 7 < image.x < 41 - 24 and 38 - 5 - 7 < image.y < 38 - 5
    assert 48 < image.w < 48 + 14 and 10 < image.h < 10 + 14
    assert base64.b64encode(image.source[:4]) == base64.b64encode(b"\x89PNG")


def test_the_docs_illustrator_example(tmp_path):
    """docs/templates.md's Illustrator export, in a pack: the build's note is the one the page
    shows, the shadowed rectangle is the one image, the rest vectors."""
    page = (ROOT / "docs/templates.md").read_text()
    art = page.split("```xml\n", 1)[1].split("```", 1)[0]
    shown = page.split("```text\ncomponents/demo/art/badge.svg", 1)[1].split("\n", 1)[0]
    root = _art_pack(tmp_path, art)
    result = build.build(root, build.BuildOptions(tmp_path / "out"))
    (note,) = result.problems
    assert f":{note.where.line}:1: {note.level}: {note.message} [{note.rule}]" == shown
    face = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="50mm" height="35mm" viewBox="0 0 50 35">'
        '<image href="badge.svg" x="0" y="0" width="50" height="35"/></svg>'
    )
    (tmp_path / "badge.svg").write_text(art)
    ops = svgdraw.compile_svg(face, lambda href: str(tmp_path / href)).ops
    kinds = [type(op).__name__ for op in ops if isinstance(op, (svgops.PathOp, svgops.ImageOp))]
    assert kinds == ["PathOp", "ImageOp", "PathOp"]


def test_css_matching_is_bounded():
    rules = "".join(f".c{n}{{fill:red}}" for n in range(2_001))
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg">\n<style>{rules}</style>'
        + '<rect class="c1" style="fill:blue"/>' * 10_000
        + "</svg>"
    )
    root = etree.fromstring(svg.encode())
    assert svgcss.resolve(root) == [
        (
            2,
            "the <style> sheets have 2,001 rules for 10,002 elements; pnpkit matches at most "
            "20,000,000 rule-element pairs",
        )
    ]
    assert root[0].get("style") == "fill:blue"  # the inline style is still read


def test_a_gradient_href_cycle_ends():
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
        '<linearGradient id="a" href="#b"/><linearGradient id="b" href="#a">'
        '<stop offset="0" stop-color="red"/></linearGradient>'
        '<rect width="5" height="5" fill="url(#a)"/></svg>'
    )
    root = etree.fromstring(svg.encode())
    assert svgnorm.normalise(root, 10).problems == []
    assert [s.get("stop-color") for s in root[0]] == ["red"]


def test_pattern_tiles_are_bounded_in_all():
    """Each of 21 shapes needs 1,024 tiles: 19 are tiled (19,456 in all), the last two are
    left for an image, so that many patterned shapes cannot make millions of elements."""
    shapes = "".join(
        f'<rect x="{n * 4}" y="0" width="4" height="4" fill="url(#p)"/>' for n in range(21)
    )
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 84 4"><pattern id="p" '
        'patternUnits="userSpaceOnUse" width="0.125" height="0.125"><rect width="0.0625" '
        f'height="0.0625" fill="red"/></pattern>{shapes}</svg>'
    )
    root = etree.fromstring(svg.encode())
    done = svgnorm.normalise(root, 10)
    assert done.problems == []
    assert [why for _, why in done.rastered] == ["a pattern", "a pattern"]
    uses = [el for el in root.iter("{http://www.w3.org/2000/svg}use")]
    assert len(uses) == 19 * 1_024


@pytest.mark.parametrize(
    "name,old,new,message",
    [
        (
            "inkscape-pattern.svg",
            'width="44"',
            'width="1e999"',
            "cannot draw a pattern as an image: a number of width='1e999' is not within 1e+07 "
            "either way",
        ),
        (
            "figma-drop-shadow.svg",
            'viewBox="0 0 128 96"',
            'viewBox="0 0 1e999 96"',
            "bad viewBox '0 0 1e999 96' (use 'min-x min-y width height')",
        ),
    ],
)
def test_numbers_out_of_bounds_in_art_to_normalise_are_located(tmp_path, name, old, new, message):
    """The normalising step meets the numbers before the compiler refuses them: it leaves
    them for the compiler, whose located error is what the designer sees."""
    (tmp_path / "a.svg").write_text((CORPUS / name).read_text().replace(old, new, 1))
    face = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="30mm" height="30mm" viewBox="0 0 30 30">'
        '<image href="a.svg" x="0" y="0" width="30" height="30"/></svg>'
    )
    with pytest.raises(svgdraw.SvgError) as caught:
        svgdraw.compile_svg(face, lambda href: str(tmp_path / href))
    assert message in [p[1] for p in caught.value.problems]
