"""text_box() hands the runs it shaped and placed to the compiler (lay_out): every face
compiles to the same drawing, with the same problems, as from its SVG text alone; an entry serves
only the <text> text_box() wrote, as it wrote it, under the style it was laid out in."""

from __future__ import annotations

import json
import random
from pathlib import Path

from lxml import etree

from pnpkit.build import pipeline as build
from pnpkit.faces import render
from pnpkit.faces.sandbox import environment
from pnpkit.svg import text as svgtext
from pnpkit.svg.compiler import compile_svg
from pnpkit.svg.ops import SvgError, TextOp
from pnpkit.svg.text import _LAID, LaidText, _text_key, c14n_text_start
from pnpkit.typeset import fonts

GAME = """id: lt
name: LT
languages: [en]
players: {min: 1, max: 2}
print: {bleed: 0mm, backs: none, crop_marks: false}
"""
CARD = """{% extends "_face.svg.j2" %}
{% block content %}
<defs><linearGradient id="g"><stop offset="0" stop-color="#000000"/>
<stop offset="1" stop-color="#ffffff"/></linearGradient></defs>
{% set t = text_box(item.text, 2, 2, 56, 26, size=item.size, anchor=item.anchor,
   bold=item.bold, fill=item.fill) %}
{% set p = text_box(item.plain, 2, 30, 56, 8, size=7, italic=item.bold, anchor=item.anchor) %}
{% if item.wrap == 'none' %}{{ t }}{{ p }}
{% elif item.wrap == 'edit' %}{{ t|replace('zebra', 'zebu') }}{{ p|replace('zebra', 'zebu') }}
{% elif item.wrap == 'twice' %}{{ t }}{{ t }}{{ p }}{{ p }}
{% else %}<g {{ item.wrap|safe }}>{{ t }}{{ p }}</g>{% endif %}
{% endblock %}
"""
WRAPS = [
    "none",
    "edit",  # the template changed text_box()'s text: the entry must not serve it
    "twice",
    'font-weight="bold"',  # the inherited face differs from the one laid out in
    'font-style="italic"',
    'direction="rtl"',
    'fill="url(#g)"',
    'transform="translate(1 2) scale(0.5)"',
    'stroke="#ff0000" stroke-width="0.2"',
    'opacity="0.5"',
    'visibility="hidden"',
    'text-anchor="end"',
]
WORDS = [
    "zebra",
    "two",
    "cards",
    "AVATAR",
    "Té",
    "l'eau",
    'say "hi"',
    "a&b",
    "1<2",
    "x>y",
    "10\u00a0km",
    "città",
    "0.",
    "6",
    ":gem:",
    ":gem:,",
    "**bold**",
    "*it*",
    "**b *bi***",
    "\\*",
    "\\:",
    "\\ lead",
    "שלום",
    "مرحبا",
    "☃",
]


def pack(tmp_path: Path, items: list[dict[str, object]]) -> Path:
    root = tmp_path / "lt"
    (root / "templates").mkdir(parents=True)
    (root / "icons").mkdir()
    (root / "game.yaml").write_text(GAME, encoding="utf-8")
    (root / "templates" / "card.svg.j2").write_text(CARD, encoding="utf-8")
    (root / "icons" / "gem.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10">'
        '<rect width="20" height="10" fill="#00aa00"/></svg>',
        encoding="utf-8",
    )
    fields = (
        "{text: string, plain: string, wrap: string, anchor: string, bold: bool, "
        "fill: string, size: number}"
    )
    lines = [f"cards:\n  kind: card\n  size: 60x40mm\n  front: card.svg.j2\n  fields: {fields}"]
    lines.append("  items:")
    lines += [f"    - {json.dumps(item, ensure_ascii=False)}" for item in items]
    (root / "cards.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def random_items(rng: random.Random, n: int) -> list[dict[str, object]]:
    items = []
    for i in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 30))]
        seps = [rng.choice([" ", " ", " ", "  ", "\n", " \t"]) for _ in words]
        text = "".join(w + s for w, s in zip(words, seps)).strip()
        if rng.random() < 0.3:
            text = text.replace("zebra", "zebra\n\nzebra", 1)  # a paragraph
        plain = " ".join(rng.choice(WORDS[:13]) for _ in range(rng.randint(0, 12)))
        if WRAPS[i % len(WRAPS)] == "edit":  # every text it edits
            text, plain = f"zebra {text}", f"zebra {plain}"
        items.append(
            {
                "id": f"c{i}",
                "text": text,
                "plain": plain,
                "wrap": WRAPS[i % len(WRAPS)],
                "anchor": rng.choice(["start", "middle", "end"]),
                "bold": rng.random() < 0.3 and WRAPS[i % len(WRAPS)] != 'font-weight="bold"',
                "fill": rng.choice(["#000000", "#000000", "#123456", "url(#g)"]),
                "size": rng.choice([6, 8, 9.5, 12]),
            }
        )
    return items


def compiled(svg: str) -> object:
    try:
        return compile_svg(svg)
    except SvgError as exc:
        return exc.problems


def faces_and_entries(root: Path) -> tuple[list, dict[bytes, LaidText]]:
    result = build.validate(root)
    assert result.pack is not None
    env = environment(result.pack, result.registry)
    _LAID.clear()
    faces, _ = render.render(result.pack, "en", env)
    return faces, dict(_LAID)


def test_laid_out_text_compiles_as_its_svg_text(tmp_path, monkeypatch):
    items = random_items(random.Random(11), 150)
    wraps = {item["id"]: item["wrap"] for item in items}
    faces, entries = faces_and_entries(pack(tmp_path, items))
    served: list[str] = []
    laid_text = svgtext.laid_text

    def counted(comp, el, st, body):
        used = laid_text(comp, el, st, body)
        served.extend([el.sourceline] * used)
        return used

    monkeypatch.setattr(svgtext, "laid_text", counted)
    used_by_wrap: dict[str, int] = {}
    for face in faces:
        _LAID.clear()
        _LAID.update(entries)
        served.clear()
        fast = compiled(face.svg)
        wrap = wraps[face.item]
        used_by_wrap[wrap] = used_by_wrap.get(wrap, 0) + len(served)
        _LAID.clear()
        assert compiled(face.svg) == fast, face.item
    # the entries served the texts as written and the harmless wrappers, never the others
    assert used_by_wrap["none"] > 12 and used_by_wrap["twice"] > 12
    assert used_by_wrap['transform="translate(1 2) scale(0.5)"'] > 12
    for wrap in ('font-weight="bold"', 'direction="rtl"', "edit"):
        assert used_by_wrap[wrap] == 0, wrap


def test_every_key_is_the_canonical_xml_of_the_text_written(tmp_path):
    items = [dict(item, wrap="none") for item in random_items(random.Random(5), 120)]
    faces, entries = faces_and_entries(pack(tmp_path, items))
    written = {
        _text_key(text)
        for face in faces
        for text in etree.fromstring(face.svg.encode()).iter("{http://www.w3.org/2000/svg}text")
    }
    assert len(entries) > 100
    assert set(entries) <= written


def test_an_entry_serves_only_its_own_text_under_its_own_fonts(tmp_path, monkeypatch):
    faces, entries = faces_and_entries(
        pack(
            tmp_path,
            [
                random_items(random.Random(1), 1)[0]
                | {"text": "zebra two", "wrap": "none", "fill": "#000000"}
            ],
        )
    )
    (key, laid), *_ = [(k, v) for k, v in entries.items() if b"zebra two" in k]
    svg = faces[0].svg
    # a planted entry for this very element is what the compiler draws: it is used ...
    run = laid.lines[0].runs[0]
    planted = laid._replace(lines=(laid.lines[0]._replace(runs=((run[0], "XY", *run[2:]),)),))
    _LAID[key] = planted
    texts = [op.text for op in compile_svg(svg).ops if type(op) is TextOp]
    assert "XY" in texts
    # ... once, and not after the fonts changed under it
    assert "XY" not in [op.text for op in compile_svg(svg).ops if hasattr(op, "text")]
    _LAID[key] = planted
    monkeypatch.setattr(fonts, "signature", lambda: "other fonts")
    assert "XY" not in [op.text for op in compile_svg(svg).ops if hasattr(op, "text")]


def test_a_text_start_tag_is_canonical():
    value = "a&b<c>d\"e'f"
    written = value.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:x="urn:x"><text fill="{written}"/></svg>'
    key = '<text xmlns="http://www.w3.org/2000/svg" fill="a&amp;b&lt;c>d&quot;e\'f">'
    assert c14n_text_start({"fill": value}) == key
    assert _text_key(etree.fromstring(svg)[0]).decode() == key + "</text>"


def test_a_paths_outline_is_kept_by_the_segs_themselves():
    """textcheck's outlines, kept by the identity of the (held) segs: each path gets its own,
    whatever else was kept or when the memo was emptied."""
    from pnpkit.checks import textcheck

    def square(side: float) -> tuple:
        return tuple(
            [("moveTo", (0.0, 0.0)), ("lineTo", (side, 0.0)), ("lineTo", (side, side))]
            + [("lineTo", (0.0, side)), ("close", ())]
        )

    for n in range(5000):  # past the memo's bound: it starts afresh on the way
        segs = square(float(n + 1))
        assert textcheck._outline(segs)[1] == (0.0, 0.0, n + 1.0, n + 1.0)
        assert textcheck._outline(square(float(n + 1)))[1] == (0.0, 0.0, n + 1.0, n + 1.0)
    assert len(textcheck._OUTLINES) <= 4096
