"""svgdraw: SVG subset drawn onto a ReportLab canvas, checked by rasterising the PDF."""

from __future__ import annotations

import base64
import io
import marshal
import math
import pickle
import random
from pathlib import Path

import pypdfium2
import pytest
from PIL import Image
from pypdf import PdfReader
from reportlab.pdfbase.ttfonts import TTFError
from reportlab.pdfgen.canvas import FILL_EVEN_ODD, FILL_NON_ZERO, Canvas

from pnpkit.svg.compiler import compile_svg
from pnpkit.svg.drawing import (
    MM,
    Drawing,
    _build_path,
    _call_setters,
    _draw_path,
    _draw_text,
    _memo_path_code,
    _path_code,
    _set_paint,
    _split,
    _text_object,
)
from pnpkit.svg.geometry import _PATH_ARGC, _arc_curves, _check_path_data, _normalised
from pnpkit.svg.ops import OP_TYPES, Fill, PathOp, Stroke, SvgError, TextOp, op_from_row, op_row
from pnpkit.typeset import fonts, shaping

NS = 'xmlns="http://www.w3.org/2000/svg"'
DPI = 144
PAGE = (200.0, 200.0)  # pt
AT = (20.0, 30.0)  # where the drawing's bottom-left corner goes, pt

RED, GREEN, BLUE, WHITE = (255, 0, 0), (0, 128, 0), (0, 0, 255), (255, 255, 255)


def svg(
    body: str, w: float = 40, h: float = 40, viewbox: str | None = None, extra: str = ""
) -> str:
    return (
        f'<svg {NS} width="{w}mm" height="{h}mm" '
        f'viewBox="{viewbox or f"0 0 {w} {h}"}"{extra}>\n{body}\n</svg>'
    )


class Page:
    """A drawing rendered on a one-page PDF, with pixel look-ups in the drawing's mm."""

    def __init__(self, tmp_path, drawing: Drawing, smooth_text: bool = True):
        self.path = tmp_path / "page.pdf"
        self.drawing = drawing
        canvas = Canvas(str(self.path), pagesize=PAGE, invariant=1)
        drawing.draw(canvas, *AT)
        canvas.save()
        page = pypdfium2.PdfDocument(str(self.path))[0]
        bitmap = page.render(scale=DPI / 72, no_smoothpath=True, no_smoothtext=not smooth_text)
        self.image = bitmap.to_pil().convert("RGB")

    def pixel_of(self, x_mm: float, y_mm: float) -> tuple[int, int]:
        """Image pixel of the point (x_mm, y_mm) measured from the drawing's top-left corner."""
        x_pt = AT[0] + x_mm * MM
        y_pt = AT[1] + (self.drawing.height_mm - y_mm) * MM
        return round(x_pt * DPI / 72), round((PAGE[1] - y_pt) * DPI / 72)

    def at(self, x_mm: float, y_mm: float) -> tuple[int, int, int]:
        return self.image.getpixel(self.pixel_of(x_mm, y_mm))

    def bbox_mm(self, test=lambda p: sum(p) < 600) -> tuple[float, float, float, float]:
        """(left, top, right, bottom) in drawing mm of the pixels passing test (default: not
        white)."""
        xs, ys = [], []
        width, height = self.image.size
        data = self.image.load()
        for y in range(height):
            for x in range(width):
                if test(data[x, y]):
                    xs.append(x)
                    ys.append(y)
        to_mm_x = lambda px: (px * 72 / DPI - AT[0]) / MM  # noqa: E731
        to_mm_y = lambda py: self.drawing.height_mm - (PAGE[1] - py * 72 / DPI - AT[1]) / MM  # noqa: E731
        return to_mm_x(min(xs)), to_mm_y(min(ys)), to_mm_x(max(xs) + 1), to_mm_y(max(ys) + 1)


def near(colour, expected, tol=40):
    return all(abs(a - b) <= tol for a, b in zip(colour, expected, strict=True))


def render(tmp_path, body: str, **kw) -> Page:
    return Page(tmp_path, compile_svg(svg(body, **kw)))


def problems(source: str, **kw) -> list[tuple[int, str]]:
    with pytest.raises(SvgError) as info:
        compile_svg(source, **kw)
    return info.value.problems


# ---------------------------------------------------------------- geometry


def test_rect_lands_at_true_size_and_position(tmp_path):
    page = render(tmp_path, '<rect x="5" y="5" width="10" height="10" fill="red"/>')
    assert page.drawing.width_mm == 40 and page.drawing.height_mm == 40
    assert near(page.at(10, 10), RED)
    for x, y in [(5.3, 5.3), (14.7, 14.7)]:
        assert near(page.at(x, y), RED)
    for x, y in [(4.7, 10), (15.3, 10), (10, 4.7), (10, 15.3)]:
        assert near(page.at(x, y), WHITE)


def test_top_of_svg_is_top_of_page(tmp_path):
    page = render(tmp_path, '<rect x="0" y="0" width="40" height="3" fill="blue"/>')
    top = page.pixel_of(20, 1)
    assert near(page.image.getpixel(top), BLUE)
    assert near(page.at(20, 38), WHITE)
    # SVG top edge = drawing's top = AT[1] + 40mm up the page, i.e. near the page's top.
    assert top[1] < page.pixel_of(20, 38)[1]
    assert abs(top[1] - (PAGE[1] - AT[1] - 40 * MM + 1 * MM) * DPI / 72) < 2


def test_viewbox_scales_to_physical_size(tmp_path):
    page = render(
        tmp_path,
        '<rect x="1" y="0.5" width="1" height="1" fill="red"/>',
        w=40,
        h=20,
        viewbox="0 0 4 2",
    )
    assert near(page.at(15, 10), RED)
    assert near(page.at(9.5, 10), WHITE) and near(page.at(20.5, 10), WHITE)
    assert near(page.at(15, 4.5), WHITE) and near(page.at(15, 15.5), WHITE)


def test_viewbox_origin_and_non_uniform_scaling(tmp_path):
    body = '<rect x="15" y="10" width="5" height="5" fill="red"/>'
    page = render(
        tmp_path, body, w=40, h=20, viewbox="10 10 10 10", extra=' preserveAspectRatio="none"'
    )
    # user x 15..20 -> 20..40 mm, user y 10..15 -> 0..10 mm
    assert near(page.at(30, 5), RED)
    assert near(page.at(19, 5), WHITE) and near(page.at(30, 11), WHITE)


def test_root_clips_to_its_viewport(tmp_path):
    page = render(tmp_path, '<rect x="-10" y="-10" width="60" height="60" fill="red"/>')
    assert near(page.at(1, 1), RED) and near(page.at(39, 39), RED)
    assert near(page.at(-1, 20), WHITE) and near(page.at(41, 20), WHITE)
    assert near(page.at(20, -1), WHITE) and near(page.at(20, 41), WHITE)


def test_transform_translate_rotate(tmp_path):
    page = render(
        tmp_path, '<rect width="10" height="2" fill="red" transform="translate(20 20) rotate(90)"/>'
    )
    # rotate(90) in y-down space turns +x into +y: the bar covers x 18..20, y 20..30
    assert near(page.at(19, 25), RED)
    assert near(page.at(25, 21), WHITE) and near(page.at(21, 25), WHITE)


def test_transform_rotate_about_centre_scale_skew_matrix(tmp_path):
    body = """
    <rect x="5" y="9" width="10" height="2" fill="red" transform="rotate(90 10 10)"/>
    <rect x="0" y="0" width="2" height="2" fill="blue" transform="scale(2, 3) translate(10 0)"/>
    <rect x="0" y="0" width="4" height="4" fill="green" transform="matrix(1 0 0 1 30 30) skewX(45)"/>"""  # noqa: E501 (data: markup and YAML kept as written)
    page = render(tmp_path, body)
    assert near(page.at(10, 6), RED) and near(page.at(10, 14), RED) and near(page.at(6, 10), WHITE)
    assert (
        near(page.at(23, 5), BLUE) and near(page.at(23, 6.5), WHITE) and near(page.at(19, 3), WHITE)
    )
    # skewX(45) shears x by y: the bottom row (y=33.5) spans x 33.5..37.5
    assert near(page.at(36.5, 33.5), GREEN) and near(page.at(31, 33.5), WHITE)


def test_path_arc(tmp_path):
    page = render(tmp_path, '<path d="M 10 20 A 10 10 0 0 1 30 20 Z" fill="red"/>')
    # sweep-flag 1 from left to right goes over the top: a half disc above y=20, radius 10 about
    # (20, 20)
    assert near(page.at(20, 10.5), RED) and near(page.at(20, 9.5), WHITE)
    assert near(page.at(20, 21), WHITE)
    assert near(page.at(13, 14), RED) and near(page.at(11, 11), WHITE)


@pytest.mark.parametrize(
    "absolute, relative",
    [
        (
            "M10 30 C 10 10 20 10 20 30 S 30 10 35 30 Z",
            "m10 30 c 0 -20 10 -20 10 0 s 10 -20 15 0 z",
        ),
        ("M5 30 Q 10 5 20 30 T 35 30 Z", "m5 30 q 5 -25 15 0 t 15 0 z"),
        ("M5 5 L 30 5 L 30 20 L 5 20 Z", "m5 5 h 25 v 15 H 5 V 5 z"),
        ("M5 5 L 30 5 L 30 20 L 5 20 Z", "M5 5 30 5 30 20 5 20 Z"),
        ("M5 20 A 10 5 30 1 0 35 20 Z", "m5 20 a 10 5 30 1030 0 z"),
    ],
)
def test_relative_and_smooth_path_commands_match_absolute(tmp_path, absolute, relative):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = render(tmp_path / "a", f'<path d="{absolute}" fill="red"/>').image
    b = render(tmp_path / "b", f'<path d="{relative}" fill="red"/>').image
    assert a.tobytes() == b.tobytes()
    assert a.getcolors(1 << 20) and len(a.getcolors(1 << 20)) > 1  # something was drawn


def test_shapes_and_stroke(tmp_path):
    body = """
    <circle cx="10" cy="10" r="5" fill="red"/>
    <ellipse cx="30" cy="10" rx="8" ry="3" fill="blue"/>
    <rect x="5" y="20" width="12" height="12" rx="4" fill="none" stroke="green" stroke-width="1"/>
    <polygon points="25,20 35,20 30,30" fill="red"/>
    <line x1="20" y1="36" x2="38" y2="36" stroke="blue" stroke-width="2"/>"""
    page = render(tmp_path, body)
    assert near(page.at(10, 10), RED) and near(page.at(10, 5.5), RED) and near(page.at(6, 6), WHITE)
    assert (
        near(page.at(37, 10), BLUE)
        and near(page.at(30, 12.5), BLUE)
        and near(page.at(30, 14), WHITE)
    )
    assert near(page.at(11, 20), GREEN) and near(page.at(11, 26), WHITE)  # stroked, not filled
    assert near(page.at(5.3, 20.3), WHITE)  # the rounded corner is cut
    assert near(page.at(30, 22), RED) and near(page.at(26, 28), WHITE)
    assert near(page.at(30, 36.7), BLUE) and near(page.at(30, 37.5), WHITE)


def test_fill_rule_evenodd_leaves_a_hole(tmp_path):
    d = "M 5 5 H 35 V 35 H 5 Z M 15 15 H 25 V 25 H 15 Z"
    page = render(
        tmp_path,
        f'<path d="{d}" fill="red" fill-rule="evenodd"/>'
        f'<path d="{d}" fill="blue" transform="translate(0 100)"/>',
    )
    assert near(page.at(10, 10), RED) and near(page.at(20, 20), WHITE)
    page = render(tmp_path, f'<path d="{d}" style="fill: blue"/>')
    assert near(page.at(20, 20), BLUE)


def test_dasharray_draws_gaps(tmp_path):
    page = render(
        tmp_path,
        '<line x1="0" y1="20" x2="40" y2="20" stroke="black" stroke-width="2" '
        'stroke-dasharray="4, 4"/>',
    )
    assert page.at(2, 20) == (0, 0, 0) and page.at(6, 20) == WHITE and page.at(10, 20) == (0, 0, 0)


# ---------------------------------------------------------------- paint, clip, use, nested svg


def test_colour_syntaxes(tmp_path):
    body = """
    <rect x="0" y="0" width="10" height="10" fill="#f00"/>
    <rect x="10" y="0" width="10" height="10" fill="#0000FF"/>
    <rect x="20" y="0" width="10" height="10" fill="rgb(0, 128, 0)"/>
    <rect x="30" y="0" width="10" height="10" fill="rgb(100%, 0%, 0%)"/>
    <rect x="0" y="10" width="10" height="10" fill="LightGray"/>
    <g fill="blue"><rect x="10" y="10" width="10" height="10"/></g>"""
    page = render(tmp_path, body)
    assert (
        page.at(5, 5) == RED
        and page.at(15, 5) == BLUE
        and page.at(25, 5) == GREEN
        and page.at(35, 5) == RED
    )
    assert page.at(5, 15) == (211, 211, 211) and page.at(15, 15) == BLUE


def test_opacity_gives_mid_colours(tmp_path):
    body = """
    <rect x="0" y="0" width="10" height="10" fill="red" opacity="0.5"/>
    <g opacity="0.5"><rect x="10" y="0" width="10" height="10" fill="blue"/></g>
    <rect x="20" y="0" width="10" height="10" fill="blue" fill-opacity="0.5"/>
    <g opacity="0.5"><rect x="30" y="0" width="10" height="10" fill="blue" opacity="0.5"/></g>"""
    page = render(tmp_path, body)
    assert near(page.at(5, 5), (255, 128, 128), 3)
    assert near(page.at(15, 5), (128, 128, 255), 3)
    assert near(page.at(25, 5), (128, 128, 255), 3)
    assert near(page.at(35, 5), (191, 191, 255), 3)


def test_clip_path_clips(tmp_path):
    body = """
    <defs><clipPath id="round"><circle cx="20" cy="20" r="10"/></clipPath></defs>
    <rect width="40" height="40" fill="red" clip-path="url(#round)"/>"""
    page = render(tmp_path, body)
    assert (
        near(page.at(20, 20), RED) and near(page.at(20, 10.5), RED) and near(page.at(26, 26), RED)
    )
    assert (
        near(page.at(20, 9.5), WHITE)
        and near(page.at(2, 2), WHITE)
        and near(page.at(28, 28), WHITE)
    )


def test_clip_path_on_transformed_group_uses_its_user_space(tmp_path):
    body = """
    <defs><clipPath id="c"><rect x="0" y="0" width="5" height="5" transform="translate(1 1)"/></clipPath></defs>
    <g transform="translate(20 20)" clip-path="url(#c)"><rect width="20" height="20" fill="blue"/></g>"""  # noqa: E501 (data: markup and YAML kept as written)
    page = render(tmp_path, body)
    assert near(page.at(23, 23), BLUE)
    assert near(page.at(20.5, 23), WHITE) and near(page.at(27, 23), WHITE)


def test_use_draws_the_def_translated(tmp_path):
    body = """
    <defs><rect id="sq" width="5" height="5" fill="green"/></defs>
    <use href="#sq" x="10" y="10"/>
    <use xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="#sq" x="30" y="30"/>"""
    page = render(tmp_path, body)
    assert near(page.at(12, 12), GREEN) and near(page.at(32, 32), GREEN)
    assert near(page.at(2, 2), WHITE)  # defs are not drawn in place


def test_use_passes_inherited_style_to_the_target(tmp_path):
    body = (
        '<defs><circle id="dot" r="3"/></defs><use href="#dot" x="10" y="10" fill="red"/>'
        '<use href="#dot" x="30" y="10" fill="blue"/>'
    )
    page = render(tmp_path, body)
    assert near(page.at(10, 10), RED) and near(page.at(30, 10), BLUE)


def test_nested_svg_viewbox_scales_and_clips(tmp_path):
    body = """
    <svg x="10" y="10" width="20" height="20" viewBox="0 0 2 2">
      <rect x="1" y="1" width="1" height="1" fill="blue"/>
      <rect x="0" y="0" width="10" height="0.5" fill="red"/>
    </svg>"""
    page = render(tmp_path, body)
    assert near(page.at(25, 25), BLUE) and near(page.at(15, 18), WHITE)
    assert near(page.at(25, 12), RED) and near(page.at(32, 12), WHITE)  # clipped at the viewport


def test_nested_svg_must_opt_in_to_stretching():
    nested = (
        '<svg x="0" y="0" width="20" height="10" viewBox="0 '
        '0 10 10"{}><rect width="10" height="10"/></svg>'
    )
    assert problems(svg(nested.format(""))) == [
        (2, 'viewBox and width/height differ in aspect ratio: add preserveAspectRatio="none"')
    ]
    compile_svg(svg(nested.format(' preserveAspectRatio="none"')))


def test_display_none_and_visibility_hidden_skip(tmp_path):
    body = """
    <rect width="10" height="10" fill="red" display="none"/>
    <g visibility="hidden"><rect x="10" width="10" height="10" fill="red"/>
      <rect x="20" width="10" height="10" fill="blue" visibility="visible"/></g>"""
    page = render(tmp_path, body)
    assert near(page.at(5, 5), WHITE) and near(page.at(15, 5), WHITE) and near(page.at(25, 5), BLUE)


def _png(size=(4, 4)) -> bytes:
    """Top half red, bottom half blue, rightmost column transparent."""
    image = Image.new("RGBA", size, (0, 0, 255, 255))
    for x in range(size[0]):
        for y in range(size[1]):
            if y < size[1] // 2:
                image.putpixel((x, y), (255, 0, 0, 255))
            if x == size[0] - 1:
                image.putpixel((x, y), (0, 0, 0, 0))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _check_image(page):
    assert near(page.at(12, 12), RED) and near(page.at(12, 18), BLUE)  # upright
    assert near(page.at(19, 12), WHITE)  # alpha kept
    assert near(page.at(8, 12), WHITE) and near(page.at(12, 22), WHITE)


def test_image_from_file_is_upright_with_alpha(tmp_path):
    (tmp_path / "icon.png").write_bytes(_png())
    source = svg('<image href="icon.png" x="10" y="10" width="10" height="10"/>')
    drawing = compile_svg(source, resolve_href=lambda href: str(tmp_path / href))
    _check_image(Page(tmp_path, drawing))


def test_image_from_data_uri(tmp_path):
    uri = "data:image/png;base64," + base64.b64encode(_png()).decode()
    _check_image(render(tmp_path, f'<image href="{uri}" x="10" y="10" width="10" height="10"/>'))


# ---------------------------------------------------------------- text


def test_text_is_upright_and_extractable(tmp_path):
    body = (
        '<text x="2" y="20" font-size="4">Zażółć ĉĝĥĵŝŭ più</text>'
        '<text x="2" y="35" font-size="12">T</text>'
    )
    page = render(tmp_path, body)
    assert "Zażółć ĉĝĥĵŝŭ più" in PdfReader(str(page.path)).pages[0].extract_text()
    # The T stands on its baseline (y=35) with its bar on top: not mirrored.
    bottom = page.bbox_mm(lambda p: sum(p) < 300)[3]
    assert abs(bottom - 35) < 0.5
    bar = [x for x in range(40) if page.at(2 + x * 0.2, 35 - 8.3) == (0, 0, 0)]
    foot = [x for x in range(40) if page.at(2 + x * 0.2, 35 - 0.5) == (0, 0, 0)]
    assert len(bar) > 2 * len(foot) > 0


def test_text_anchor_middle_and_end(tmp_path):
    page = render(tmp_path, '<text x="20" y="20" font-size="5" text-anchor="middle">HHHH</text>')
    left, _, right, _ = page.bbox_mm()
    assert abs((left + right) / 2 - 20) < 0.3
    width = fonts.string_width("HHHH", "DejaVu Sans", 5)
    assert abs((right - left) - width) < 1.5  # ink is a bit narrower than the advance
    page = render(tmp_path, '<text x="35" y="20" font-size="5" text-anchor="end">HHHH</text>')
    assert abs(page.bbox_mm()[2] - 35) < 0.7


def test_mixed_font_line_is_laid_out_without_overlap(tmp_path):
    body = """<text x="20" y="20" font-size="3" text-anchor="middle"><tspan fill="red">mmm</tspan><tspan
      font-weight="bold" font-size="5" fill="blue">WWW</tspan><tspan fill="lime">mmm</tspan></text>"""  # noqa: E501 (data: markup and YAML kept as written)
    page = Page(tmp_path, compile_svg(svg(body)), smooth_text=False)
    red = page.bbox_mm(lambda p: p[0] > 200 and p[1] < 100 and p[2] < 100)
    blue = page.bbox_mm(lambda p: p[2] > 200 and p[0] < 100 and p[1] < 100)
    green = page.bbox_mm(lambda p: p[1] > 200 and p[0] < 100 and p[2] < 100)
    assert red[2] < blue[0] < blue[2] < green[0]
    assert green[0] - blue[2] < 1.0  # no gap as if measured in the wrong font either
    regular = fonts.string_width("mmm", "DejaVu Sans", 3)
    bold = fonts.string_width("WWW", "DejaVu Sans-Bold", 5)
    assert abs((green[2] + red[0]) / 2 - 20) < 0.5  # the whole line is centred
    assert abs((green[2] - red[0]) - (2 * regular + bold)) < 1.0


def test_positioned_tspans_make_lines(tmp_path):
    body = """<text x="5" y="10" font-size="4">
      <tspan x="5" y="10">first</tspan>
      <tspan x="5" dy="5">second <tspan font-style="italic">line</tspan></tspan>
      <tspan x="20" y="30" text-anchor="middle">third</tspan>
    </text>"""
    drawing = compile_svg(svg(body))
    texts = [(op.x, op.y, op.font, op.text) for op in drawing.ops if isinstance(op, TextOp)]
    third_x = 20 - fonts.string_width("third", "DejaVu Sans", 4) / 2
    second_w = fonts.string_width("second ", "DejaVu Sans", 4)
    assert texts == [
        (5, 10, "DejaVu Sans", "first"),
        (5, 15, "DejaVu Sans", "second "),
        (5 + second_w, 15, "DejaVu Sans-Italic", "line"),
        (third_x, 30, "DejaVu Sans", "third"),
    ]


def test_whitespace_collapses_and_trims_but_keeps_no_break_space():
    drawing = compile_svg(svg('<text y="10">\n   a \t  b\n <tspan> c </tspan> d\u00a0e  </text>'))
    assert [op.text for op in drawing.ops if isinstance(op, TextOp)] == ["a b ", "c ", "d\u00a0e"]


def test_font_family_list_takes_the_first(tmp_path):
    drawing = compile_svg(
        svg(
            '<text y="10" style="font-family: \'DejaVu Sans\', sans-serif; font-weight: bold">'
            "x</text>"
        )
    )
    assert [op.font for op in drawing.ops if isinstance(op, TextOp)] == ["DejaVu Sans-Bold"]


def test_drawing_is_picklable():
    drawing = compile_svg(svg('<rect width="5" height="5"/><text y="5">hi</text>'))
    assert pickle.loads(pickle.dumps(drawing)) == drawing


# ---------------------------------------------------------------- problems


def test_unsupported_element():
    source = svg('<defs>\n<mask id="m"/>\n</defs>\n<rect width="1" height="1"/>')
    assert problems(source) == [(3, "unsupported element <mask>")]


def test_unsupported_attribute_as_attribute_or_style():
    source = svg('<text letter-spacing="2">a</text>\n<rect style="fill: red; filter: blur(2px)"/>')
    assert problems(source) == [
        (2, "unsupported attribute 'letter-spacing' on <text>"),
        (3, "unsupported attribute 'filter' on <rect>"),
    ]


def test_font_weight_must_be_normal_or_bold():
    assert problems(svg('<text font-weight="700">a</text>')) == [
        (2, "font-weight must be normal or bold (got '700')")
    ]


def test_unknown_font_family():
    assert problems(svg('<text font-family="Arial, sans-serif">a</text>')) == [
        (2, "font family 'Arial' is not available (use one of: DejaVu Sans)")
    ]


def test_missing_glyph():
    source = svg('<text>\n<tspan font-weight="bold">漢字</tspan></text>')
    assert problems(source) == [
        (3, "no glyph for '漢' (U+6F22) in font DejaVu Sans-Bold"),
        (3, "no glyph for '字' (U+5B57) in font DejaVu Sans-Bold"),
    ]


def test_malformed_xml_reports_the_line():
    assert problems(f"<svg {NS}>\n<rect>\n</svg>") == [
        (3, "Opening and ending tag mismatch: rect line 2 and svg, line 3, column 7")
    ]


def test_bad_colour():
    assert problems(svg('<rect fill="blu"/>\n<rect stroke="currentColor"/>')) == [
        (2, "bad colour 'blu' for fill"),
        (3, "bad colour 'currentColor' for stroke"),
    ]


def test_units_are_not_allowed_in_user_space():
    assert problems(svg('<rect width="10px" height="5"/>')) == [
        (2, "bad number '10px' for width (use a plain number in user units)")
    ]


def test_root_needs_mm_and_a_viewbox():
    assert problems(f'<svg {NS} width="100" height="20mm"/>') == [
        (1, "width must be a positive number in mm like '63mm' (got '100')"),
        (1, "bad viewBox '' (use 'min-x min-y width height')"),
    ]
    assert problems(svg("", w=40, h=20, viewbox="0 0 10 10")) == [
        (1, 'viewBox and width/height differ in aspect ratio: add preserveAspectRatio="none"')
    ]
    assert problems('<svg width="1mm" height="1mm" viewBox="0 0 1 1"/>') == [
        (1, "root element must be <svg> in the SVG namespace")
    ]


def test_bad_path_data_and_transform():
    assert problems(
        svg('<path d="M 0 0 L 5"/>\n<path d="M 0 0 L 5 x"/>\n<rect transform="rotate(1 2)"/>')
    ) == [
        (2, "bad arguments '5' for 'L' in path data"),
        (3, "bad arguments '5 x' for 'L' in path data"),
        (4, "bad transform 'rotate(1 2)'"),
    ]


def test_bad_references():
    source = svg(
        '<use href="#nope"/>\n<g id="loop"><use '
        'href="#loop"/></g>\n<rect clip-path="url(#loop)"/>\n'
        '<image href="x.png" width="1" height="1"/>'
    )
    assert problems(source) == [
        (2, "<use> refers to unknown id '#nope'"),
        (3, "<use> of '#loop' is circular"),
        (4, "clip-path 'url(#loop)' does not refer to a <clipPath>"),
        (5, "image 'x.png' not found"),
    ]


def test_several_problems_are_reported_at_once():
    source = svg("""<g font-weight="bolder">
  <pattern id="p"/>
  <rect fill="nope" stroke-width="-1" width="2" height="2"/>
  <text font-family="Comic Sans" letter-spacing="1">漢</text>
</g>""")
    assert problems(source) == [
        (2, "font-weight must be normal or bold (got 'bolder')"),
        (3, "unsupported element <pattern>"),
        (4, "bad colour 'nope' for fill"),
        (4, "stroke-width must not be negative (got '-1')"),
        (5, "unsupported attribute 'letter-spacing' on <text>"),
        (5, "font family 'Comic Sans' is not available (use one of: DejaVu Sans)"),
        (5, "no glyph for '漢' (U+6F22) in font DejaVu Sans"),
    ]


def test_unresolved_entity_is_a_problem_not_lost_text():
    source = (
        f'<!DOCTYPE svg [<!ENTITY co "Acme">]>\n<svg {NS} '
        'width="9mm" height="9mm" viewBox="0 0 9 9">\n'
        "<text>(c) &co;</text></svg>"
    )
    assert problems(source) == [
        (1, "<!DOCTYPE> and <!ENTITY> are not supported (no DTDs or entities in a face)"),
        (3, "unsupported entity reference &co;"),
    ]


def test_error_message_lists_lines():
    with pytest.raises(SvgError, match=r"line 2: unsupported element <mask>"):
        compile_svg(svg("<mask/>"))


if __name__ == "__main__":  # a quick speed figure; the real benchmark lives elsewhere
    import time

    card = svg(
        "".join(
            f'<rect x="{i}" y="{i}" width="5" height="5" fill="#{i:02x}0000" stroke="black"/>'
            for i in range(15)
        )
        + "".join(
            f'<text x="2" y="{4 * i + 2}" font-size="3">Line {i} of the card text</text>'
            for i in range(8)
        ),
        w=63,
        h=88,
    )
    compile_svg(card)  # registers the fonts
    start = time.perf_counter()
    for _ in range(200):
        compile_svg(card)
    print(f"compile: {(time.perf_counter() - start) / 200 * 1e3:.3f} ms per card")


def test_every_kind_of_op_is_typed_and_comes_back_whole_from_the_cache_rows():
    """The build cache stores ops as plain rows (marshal); each kind comes back the same op."""
    uri = "data:image/png;base64," + base64.b64encode(_png()).decode()
    drawing = compile_svg(
        svg(
            '<defs><clipPath id="c"><rect x="0" y="0" width="30" height="30"/></clipPath>'
            '<linearGradient id="g"><stop offset="0" stop-color="#ff0000"/>'
            '<stop offset="1" stop-color="#0000ff"/></linearGradient></defs>'
            '<g transform="translate(1 2)" clip-path="url(#c)"><rect '
            'x="1" y="1" width="5" height="5"'
            ' fill="#102030" stroke="#405060" stroke-width="0.5" stroke-dasharray="1 1"/></g>'
            '<rect x="10" y="10" width="5" height="5" fill="url(#g)"/>'
            f'<image href="{uri}" x="20" y="20" width="4" height="4" opacity="0.5"/>'
            '<text x="2" y="30" font-size="4" fill="#000000">Ab</text>'
        )
    )
    assert {type(op) for op in drawing.ops} == set(OP_TYPES)  # every kind, so every kind is checked
    rows = marshal.loads(marshal.dumps(tuple(op_row(op) for op in drawing.ops)))
    back = tuple(op_from_row(row) for row in rows)
    assert back == drawing.ops and [type(op) for op in back] == [type(op) for op in drawing.ops]
    painted = [op for op in back if isinstance(op, (PathOp, TextOp))]
    assert all(isinstance(op.fill, Fill) for op in painted)
    assert [type(op.stroke) for op in painted] == [Stroke, type(None)]  # the rect's, the text's
    assert painted[0].stroke.dash == (1.0, 1.0) and painted[0].stroke.width == 0.5


# ---------------------------------------------------------------- remembered markup
# compile_svg remembers what an element's attributes, its style and a childless shape give,
# across compiles (a deck repeats its markup on every card): what it returns must be what a
# fresh compile would.


def test_a_repeated_bad_element_is_reported_at_each_of_its_lines():
    bad = '<rect x="1" y="1" width="2" height="2" fill="#12" frob="1"/>'
    assert problems(svg(f"{bad}\n{bad}")) == [
        (2, "unsupported attribute 'frob' on <rect>"),
        (2, "bad colour '#12' for fill"),
        (3, "unsupported attribute 'frob' on <rect>"),
        (3, "bad colour '#12' for fill"),
    ]
    assert problems(svg(f"\n\n{bad}")) == [  # a later compile, another line
        (4, "unsupported attribute 'frob' on <rect>"),
        (4, "bad colour '#12' for fill"),
    ]


def test_a_remembered_shape_takes_the_style_it_inherits():
    rect = '<rect x="0" y="0" width="4" height="4"/>'
    drawing = compile_svg(svg(f'<g fill="#ff0000">{rect}</g><g fill="#0000ff">{rect}</g>{rect}'))
    fills = [op.fill.rgb for op in drawing.ops if isinstance(op, PathOp)]
    assert fills == [(1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.0, 0.0, 0.0)]


def test_remembered_styles_follow_the_packs_fonts():
    """A family valid for one pack's fonts is an error for a pack without them."""
    font = Path(__file__).parent / "fonts" / "WQYMicroHei-subset.ttf"
    text = '<g font-family="Hei"><rect x="0" y="0" width="4" height="4"/></g>'
    try:
        fonts.use({"Hei": {(False, False): (str(font), "a25bc4b3f7e4")}})
        assert compile_svg(svg(text)).ops
        fonts.use({})
        assert problems(svg(text)) == [
            (2, "font family 'Hei' is not available (use one of: DejaVu Sans)")
        ]
    finally:
        fonts.use({})


def test_the_fonts_signature_follows_the_fonts_in_use_when_one_fails_to_load(tmp_path):
    """Cache keys read fonts.signature(): it says what fonts.use() left in use, also when a
    font of the pack fails to load half way."""
    font = Path(__file__).parent / "fonts" / "WQYMicroHei-subset.ttf"
    broken = tmp_path / "broken.ttf"
    broken.write_bytes(b"not a font")
    try:
        fonts.use({"Hei": {(False, False): (str(font), "a25bc4b3f7e4")}})
        with_hei = fonts.signature()
        with pytest.raises(TTFError):
            fonts.use(
                {
                    "Hei": {(False, False): (str(font), "a25bc4b3f7e4")},
                    "Bad": {(False, False): (str(broken), "0000")},
                }
            )
        assert fonts.face_name("Bad") is None
        assert fonts.signature() != with_hei and "Bad" in fonts.signature()
    finally:
        fonts.use({})
    assert fonts.signature() == "[]"


def _two_canvases() -> tuple[Canvas, Canvas]:
    fonts.for_canvas()
    return tuple(  # type: ignore[return-value]
        Canvas(io.BytesIO(), pagesize=(100, 100), invariant=1, pageCompression=0) for _ in range(2)
    )


_TEXTS = [
    ("Hello (world) \\ 1", None, None),
    ("", (0, 0, 0, 1), None),
    ("Zażółć gęślą jaźń — ΑΒΓ абв", (0.2, 0.4, 0.6, 0.5), None),
    ("outlined", None, (1, 0, 0, 1, 0.5, 0, 0, 4, (), 0)),
    ("both", (0, 0, 1, 1), (1, 0, 0, 1, 0.5, 1, 1, 4, (1, 2), 0.5)),
    # more distinct characters than one subset holds: the runs switch subsets mid-text
    (
        "".join(map(chr, range(0x400, 0x52F))) + "abc" + "".join(map(chr, range(0x370, 0x3FF))),
        (0, 0, 0, 1),
        None,
    ),
]


def _shaped(text: str, font: str) -> tuple[str, object]:
    chars, data, _ = shaping.shape(text, font)
    assert data is not None, "kerned: shaped"
    return chars, data


@pytest.mark.parametrize("order", [1, -1])  # another order: other subset codes, other bytes
@pytest.mark.parametrize("font", ["DejaVu Sans", "DejaVu Sans-Bold"])
def test_direct_text_operators_are_reportlabs(font, order):
    fast, slow = _two_canvases()
    runs = [(text, None, fill, stroke) for text, fill, stroke in _TEXTS]
    runs += [(*_shaped("AVAWAT To (Yo) ść", font), (0, 0, 0, 1), None)]
    runs += [(*_shaped("Ta LTA Vo", font), (0, 0, 0, 1), (1, 0, 0, 1, 0.5, 1, 1, 4, (), 0))]
    marked = _shaped("\u0410\u0301 AVA", font)  # a mark moved up: ReportLab's own formatting
    assert any(glyph[4] for glyph in marked[1])
    short = _shaped("AVAT Yo", font)  # fewer glyphs than characters: the last subset unwritten
    runs += [(*marked, (0, 0, 0, 1), None), (short[0] + "ЖЖ", short[1], (0, 0, 0, 1), None)]
    for n, (text, data, fill, stroke) in enumerate(runs[::order] * 2):  # twice: kept runs
        f = Fill(*fill) if fill else None
        s = Stroke(*stroke) if stroke else None
        op = TextOp(1.5 + n % 5, 20.25 - n / 3, font, 7.3 + n % 3, text, f, s, data)
        _draw_text(fast, op)
        _set_paint(slow, f, s)
        _text_object(slow, op.x, op.y, font, op.size, shaping.drawable(text, data), f, s)
    assert fast._code == slow._code
    drawn = " ".join(fast._code)
    assert "1 Tr" in drawn and "2 Tr" in drawn and "] TJ" in drawn  # kerned runs
    fast.showPage()
    slow.showPage()
    assert fast.getpdfdata() == slow.getpdfdata()  # the same subsets, glyph codes and names


@pytest.mark.parametrize("font", ["DejaVu Sans", "DejaVu Sans-Bold"])
def test_a_split_run_is_what_splitstring_gives_and_assigns(font):
    """_split() in one document, ReportLab's splitString() in another, the same texts in the same
    order: the same runs, and the same codes assigned (so the same later runs and subsets),
    through the first subset's fast path and out of it (new characters, a no-break space,
    characters the font lacks, more than one subset holds)."""
    from reportlab.pdfbase import pdfmetrics

    fast, slow = _two_canvases()
    ttf = pdfmetrics.getFont(font)
    many = "".join(map(chr, range(0x400, 0x52F)))  # past the first subset's 256 codes
    texts = ["Hello", "Hello", "olleH", "", "Hel\xa0lo", "Zażółć gęślą", "gęślą Hello", "\uffff o"]
    texts += [many, "Hello", many[::-1] + "H", "Hel", many[:3], "\u0430\xa0\u0431", "jaźń"]
    for text in texts:
        assert _split(ttf, text, fast._doc) == ttf.splitString(text, slow._doc), text
        ours, theirs = ttf.state[fast._doc], ttf.state[slow._doc]
        assert ours.assignments == theirs.assignments
        assert (ours.nextCode, ours.subsets) == (theirs.nextCode, theirs.subsets)


_PATHS = [
    "M0 0 L10 10 Z",
    "m1,2 3,4 5,6z m-1-2.5.5h3v-4",
    "M 1e2 -1E-2 c1 2 3 4 5 6 7 8 9 10 11 12 s1 2 3 4 S5 6 7 8 Z",
    "M0,0H10V10H0Z M2 2 L4 4 6 6",
    "  M.5.5.5.5l-.5-.5  ",
    "M1-2-3-4",
    "M0 0 A5 5 0 0 1 10 10 Q1 2 3 4 T5 6",  # arcs and quadratic curves: svglib's own
    "M+1 +2 l+3e+1,4",
]


def _random_path(rng: random.Random) -> str:
    def number() -> str:
        text = rng.choice(["0", "1", "12.5", ".5", "3.", "1e2", "2.5E-1", "7"])
        return rng.choice(["", "-", "+"]) + text

    seps = [" ", ",", "  ", " , ", ""]
    parts = [rng.choice("Mm")]
    for _ in range(rng.randint(1, 8)):
        cmd = rng.choice("MmLlHhVvCcSsZz")
        argc = {"m": 2, "l": 2, "h": 1, "v": 1, "c": 6, "s": 4, "z": 0}[cmd.lower()]
        count = argc * rng.randint(1, 3) if argc else 0
        numbers = [number() for _ in range(count + (len(parts) == 1) * 2)]
        parts.append(rng.choice(seps) + rng.choice(seps).join(numbers) + rng.choice(seps))
        parts.append(cmd)
    return "".join(parts[:-1])


def test_path_data_reads_each_command_with_its_numbers():
    """Each command and its numbers; a move's further pairs are lines, an arc's flags one digit
    each even when nothing parts them from what follows."""
    assert _normalised("m1,2 3,4 5,6z m-1-2.5 .5.5h3v-4") == [
        "m", [1.0, 2.0], "l", [3.0, 4.0], "l", [5.0, 6.0], "z", [],
        "m", [-1.0, -2.5], "l", [0.5, 0.5], "h", [3.0], "v", [-4.0],
    ]  # fmt: skip
    assert _normalised("M0 0a1 2 30 01 5 5 1 1 0 1 0 7 8Q1 2 3 4T5 6") == [
        "M", [0.0, 0.0],
        "a", [1.0, 2.0, 30.0, 0.0, 1.0, 5.0, 5.0], "a", [1.0, 1.0, 0.0, 1.0, 0.0, 7.0, 8.0],
        "Q", [1.0, 2.0, 3.0, 4.0], "T", [5.0, 6.0],
    ]  # fmt: skip
    rng = random.Random(16)
    read = 0
    for d in _PATHS + [_random_path(rng) for _ in range(300)]:
        try:
            _check_path_data(d)  # what the compiler reads: the rest is an error
        except ValueError:
            continue
        read += 1
        items = _normalised(d)
        assert all(len(a) == _PATH_ARGC[c.lower()] for c, a in zip(items[::2], items[1::2])), d
    assert read > 40


def _on_ellipse(curves, start, rx, ry, phi):
    """Each piece's start, middle and end, in the ellipse's own frame centred on the origin:
    (x/rx)^2 + (y/ry)^2, 1 on the ellipse."""
    c, s = math.cos(math.radians(phi)), math.sin(math.radians(phi))
    found = []
    x0, y0 = start
    for x1, y1, x2, y2, x3, y3 in curves:
        middle = ((x0 + 3 * x1 + 3 * x2 + x3) / 8, (y0 + 3 * y1 + 3 * y2 + y3) / 8)
        for x, y in ((x0, y0), middle, (x3, y3)):
            u, v = c * x + s * y, -s * x + c * y
            found.append((u / rx) ** 2 + (v / ry) ** 2)
        x0, y0 = x3, y3
    return found


@pytest.mark.parametrize("phi", [0.0, 30.0, -120.0])
@pytest.mark.parametrize(("large", "sweep", "pieces"), [(False, True, 1), (True, False, 3)])
def test_an_arc_s_curves_keep_to_its_ellipse(phi, large, sweep, pieces):
    """From (6, 0) to (0, 3) on the ellipse of radii 6 and 3 about the origin (rotated by phi
    with its ends): a quarter turn one way (small arc, sweep), three quarters the other (large,
    no sweep), in pieces of at most 90 degrees, each ending where the next starts."""
    c, s = math.cos(math.radians(phi)), math.sin(math.radians(phi))
    start, end = (6 * c, 6 * s), (-3 * s, 3 * c)
    curves = _arc_curves(start, 6, 3, phi, large, sweep, end)
    assert len(curves) == pieces and curves[-1][4:] == pytest.approx(end)
    assert _on_ellipse(curves, start, 6, 3, phi) == pytest.approx([1] * 3 * pieces, abs=2e-3)


@pytest.mark.parametrize("sweep", [False, True])
def test_radii_too_small_for_an_arc_s_ends_are_scaled_up(sweep):
    """A radius of 1 between ends 10 apart: the half circle of radius 5 between them, above
    them (negative y) with the sweep flag, below without (SVG's y points down)."""
    curves = _arc_curves((0.0, 0.0), 1, 1, 0, False, sweep, (10.0, 0.0))
    assert len(curves) == 2 and curves[-1][4:] == pytest.approx((10, 0))
    assert curves[0][4:] == pytest.approx((5, -5 if sweep else 5))
    shifted = [(x1 - 5, y1, x2 - 5, y2, x3 - 5, y3) for x1, y1, x2, y2, x3, y3 in curves]
    assert _on_ellipse(shifted, (-5.0, 0.0), 5, 5, 0) == pytest.approx([1] * 6, abs=2e-3)


def test_an_arc_whose_ends_meet_draws_nothing():
    assert _arc_curves((1.0, 2.0), 3, 4, 0, True, True, (1.0, 2.0)) == []


_SEGS = [
    (),
    (("moveTo", (0.0, 1.0)), ("lineTo", (2.5, -3.25)), ("close", ())),
    (("moveTo", (1e-7, 123456.789)), ("curveTo", (1, 2, 3, 4, 5.5, 6.0000001)), ("close", ())),
    (("moveTo", (0, 0)), ("lineTo", (1, 1)), ("moveTo", (2, 2)), ("lineTo", (-0.0, 1 / 3))),
]


@pytest.mark.parametrize("segs", _SEGS)
@pytest.mark.parametrize("evenodd", [False, True])
def test_direct_path_operators_are_reportlabs(segs, evenodd):
    fill, stroke = Fill(0.1, 0.2, 0.3, 1), Stroke(0, 0, 0, 1, 0.5, 0, 0, 4, (), 0)
    for f, s in [(fill, None), (None, stroke), (fill, stroke), (None, None)]:
        fast, slow = _two_canvases()
        _draw_path(fast, PathOp(segs, f, s, evenodd))
        _set_paint(slow, f, s)
        slow.drawPath(
            _build_path(slow, segs),
            stroke=s is not None,
            fill=f is not None,
            fillMode=FILL_EVEN_ODD if evenodd else FILL_NON_ZERO,
        )
        assert fast._code == slow._code
    assert _path_code((("lineTo", (1, 1)),)) is None  # ReportLab refuses it: so do we, alike


def test_a_canvas_of_its_own_draw_path_still_draws_through_it():
    drawn = []

    class Recording(Canvas):  # as pdfx's CmykCanvas, which turns large black fills rich black
        def drawPath(self, aPath, stroke=1, fill=0, fillMode=None):
            drawn.append(aPath.getCode())
            super().drawPath(aPath, stroke, fill, fillMode)

    c = Recording(io.BytesIO())
    _draw_path(c, PathOp(_SEGS[1], Fill(0, 0, 0, 1), None, False))
    assert drawn == ["n 0 1 m 2.5 -3.25 l h"]


_PAINTS = [
    (Fill(0.1, 0.2, 0.3, 1), None),
    (Fill(0.1, 0.2, 0.3, 0.5), Stroke(1, 0, 0, 0.25, 0.5, 1, 2, 4, (1.0, 2.0), 0.5)),
    (None, Stroke(1, 0, 0, 1, 0.5, 1, 2, 4, (), 0)),
    (None, Stroke(1, 0, 0, 1, 0.5, 1, 2, 4, (), 0.0)),  # "0.0 d", not "0 d": setDash's %s
    (Fill(0.1, 0.2, 0.3, 1), Stroke(0, 0, 1, 1, 2, 0, 0, 10, (3.0,), 1.5)),
    (Fill(1, 1, 1, 0.5), Stroke(0, 0, 1, 1, 2, 0, 0, 10, (3.0,), 1.5)),
]


def test_memoised_paint_writes_what_reportlabs_setters_write():
    fast, slow = _two_canvases()
    for _ in range(2):  # the second time from the memo
        for fill, stroke in _PAINTS:
            _set_paint(fast, fill, stroke)
            _call_setters(slow, fill, stroke)
            assert "\n".join(fast._code) == "\n".join(slow._code)
            for attr in ("_fillColorObj", "_strokeColorObj", "_lineWidth", "_lineCap"):
                assert getattr(fast, attr) == getattr(slow, attr)
            for attr in ("_lineJoin", "_miterLimit"):  # not there before a first stroke
                assert getattr(fast, attr, None) == getattr(slow, attr, None)
            assert fast._extgstate._d == slow._extgstate._d  # alphas, for the next gs
    fast.showPage()
    slow.showPage()
    assert fast.getpdfdata() == slow.getpdfdata()


def test_a_colour_enforcing_canvas_gets_its_paint_through_its_setters():
    enforced = []
    canvas = Canvas(io.BytesIO())
    canvas._enforceColorSpace = lambda colour: enforced.append(colour) or colour
    _set_paint(canvas, Fill(1, 0, 0, 1), Stroke(0, 0, 1, 1, 2, 0, 0, 10, (), 0))
    assert enforced == [(1, 0, 0), (0, 0, 1)]


def test_a_kept_path_code_is_the_code_of_every_equal_path():
    first = (("moveTo", (0, 1)), ("lineTo", (2.0, -0.0)), ("close", ()))
    equal = (("moveTo", (0.0, True)), ("lineTo", (2, 0)), ("close", ()))
    assert _memo_path_code(first) == _path_code(first) == "n 0 1 m 2 0 l h"
    assert _memo_path_code(equal) == _path_code(equal)
    other = (("moveTo", (0, 1)), ("lineTo", (2.5, 0)), ("close", ()))
    assert _memo_path_code(other) == "n 0 1 m 2.5 0 l h"
