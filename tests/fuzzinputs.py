"""The fuzz campaign's other inputs (issue 32): spreadsheets, fonts, art SVGs and templates that
run away, mutated or hostile, added to a kit as a careless designer or a stranger would.

Each op edits a Mutant (fuzzmutate.py) from its seeded random source alone, so a mutant stays
reproducible from (kit, seed). HOSTILE names the fixed cases of issue 32, one mutant each.
A file too large to hold in memory is a Sparse: written as its head, then stretched.
"""

from __future__ import annotations

import io
import random
import re
import struct
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import fontmaker
from fuzzmutate import Mutant, _set, _text, pristine
from sheetfiles import write_ods, write_xlsx

ROOT = Path(__file__).resolve().parents[1]
FONT = ROOT / "tests" / "fonts" / "WQYMicroHei-subset.ttf"  # 7.7 kB, TrueType outlines


@dataclass(frozen=True)
class Sparse:
    """A file of `size` bytes that starts with `head` and is zeros after (never in memory)."""

    head: bytes
    size: int


# --- templates that run away (item 5: these must pass on every branch) ------------------------

RUNAWAY = [
    "{{ 'a' * 10**9 }}",
    "{{ 7 ** (10**8) }}",
    "{% set ns = namespace(s='ab') %}{% for i in range(60) %}{% set ns.s = ns.s + ns.s %}"
    "{% endfor %}",
    "{% set ns = namespace(s='ab') %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}"
    "{% endfor %}",
    "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    "{{ lipsum(10**6) }}",
    "{{ 'a' | center(10**9) }}",
    "{{ 'a'.ljust(10**9) }}",
    "{{ '%0999999999d' % 1 }}",
    "{{ '{:>999999999}'.format(1) }}",
    "{% set s = 'a' * 1000000 %}{{ ([s] * 9) | join(s) }}",
    "{% set s = 'a' * 1000000 %}{{ s | replace('a', s) }}",
    "{% set s = 'a' * 1000000 %}{% for i in range(100000) %}{{ s }}{% endfor %}",
    "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(60) }}",
    "{% macro f(n) %}{% if n %}{% set r = f(n - 1) %}{{ r }}{{ r }}{% else %}x{% endif %}"
    "{% endmacro %}{{ f(60) }}",
    "{% set x = range(1000) | list %}{% for a in x %}{% for b in x %}{% for c in x %}"
    "{% endfor %}{% endfor %}{% endfor %}",
]


def _in_content(rng: random.Random, mutant: Mutant, insert: str, what: str) -> None:
    """insert right after a template's `{% block content %}` (every kit's faces have one)."""
    names = [n for n in mutant.files if n.endswith(".j2") and mutant.files[n] is not None]
    rng.shuffle(names)
    for name in names:
        text = _text(mutant, name)
        if text and "{% block content %}" in text:
            new = text.replace("{% block content %}", "{% block content %}" + insert, 1)
            return _set(mutant, name, new, what)


def runaway_template(rng: random.Random, mutant: Mutant, op: str) -> None:
    line = rng.choice(RUNAWAY)
    _in_content(rng, mutant, line, f"{op} {line[:60]!r}")


# --- spreadsheets: star-cargo's banknotes.csv as CSV, XLSX or ODS, broken ----------------------

SHEET_LIST = "components/star-cargo/money.yaml"
SHEET = "components/star-cargo/banknotes.csv"


def _rows() -> list[list[object]]:
    text = pristine("star-cargo").files[SHEET].decode()
    rows: list[list[object]] = [line.split(",") for line in text.splitlines() if line]
    for row in rows[1:]:
        row[1], row[2] = int(str(row[1])), int(str(row[2]))
    return rows


def _use_sheet(mutant: Mutant, name: str, data: bytes | Sparse, what: str) -> None:
    """The banknotes read from components/star-cargo/<name> instead of banknotes.csv."""
    listing = _text(mutant, SHEET_LIST)
    if listing is None or "items: banknotes.csv" not in listing:
        return
    mutant.files[SHEET] = None
    mutant.files[f"components/star-cargo/{name}"] = data  # type: ignore[assignment]
    _set(mutant, SHEET_LIST, listing.replace("banknotes.csv", name, 1), f"sheet {name}: {what}")


def _workbook(kind: str, rows: list[list[object]]) -> bytes:
    out = io.BytesIO()
    (write_xlsx if kind == "xlsx" else write_ods)(out, rows)  # type: ignore[arg-type]
    return out.getvalue()


def _rezip(data: bytes, edit: Callable[[str, bytes], bytes]) -> bytes:
    """A workbook with edit(name, member) applied to each of its members."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, edit(info.filename, src.read(info)))
    return out.getvalue()


def _far_cell(rows: list[list[object]], kind: str, rng: random.Random) -> tuple[bytes, str]:
    """A workbook with one cell far away (xlsx), or a row of cells repeated a million times
    (ods): tiny files that declare a sheet of billions of cells."""
    data = _workbook(kind, rows)
    if kind == "xlsx":
        ref = rng.choice(["XFD99999", "GR99999", "A1048576", "XFD1"])
        row = re.sub("[A-Z]", "", ref)
        cell = f'<row r="{row}"><c r="{ref}" t="n"><v>1</v></c></row></sheetData>'.encode()
        edit = _member("xl/worksheets/", lambda b: b.replace(b"</sheetData>", cell))
        return _rezip(data, edit), f"a cell at {ref}"
    bomb = (
        b'<table:table-row table:number-rows-repeated="1048576"><table:table-cell '
        b'table:number-columns-repeated="16384"/></table:table-row><table:table-row>'
    )
    edit = _member("content.xml", lambda b: b.replace(b"<table:table-row>", bomb, 1))
    return _rezip(data, edit), "a row of 16384 cells repeated 1048576 times"


def _member(prefix: str, edit: Callable[[bytes], bytes]) -> Callable[[str, bytes], bytes]:
    """An edit of the workbook's members whose names start with prefix."""
    return lambda name, data: edit(data) if name.startswith(prefix) else data


def _dimension(data: bytes) -> bytes:
    """An XLSX that declares its sheet the largest there is."""
    big = b'<dimension ref="A1:XFD1048576"/>'
    return _rezip(
        data, _member("xl/worksheets/", lambda b: re.sub(rb'<dimension ref="[^"]*"/>', big, b))
    )


def sheet(rng: random.Random, mutant: Mutant, op: str) -> None:
    """banknotes.csv as a CSV, XLSX or ODS that is truncated, flipped, far-reaching or huge."""
    if mutant.kit != "star-cargo":
        return runaway_template(rng, mutant, "runaway-template")
    rows, kind = _rows(), rng.choice(["csv", "xlsx", "ods"])
    how = rng.choice(["cell", "digits", "truncate", "flip", "far", "long-row", "quote"])
    if how in ("cell", "digits"):
        r, c = rng.randrange(1, len(rows)), rng.randrange(4)
        rows[r][c] = (
            "9" * rng.choice([30, 4400, 5000])  # as an integer cell in a CSV
            if how == "digits"
            else rng.choice(["", "-1", "nan", "1e999", "\u202eevil", "x" * 30000, "=1+2"])
        )
    if kind == "csv":
        data = "".join(",".join(str(v) for v in row) + "\n" for row in rows).encode()
        if how == "long-row":
            data += b"," * rng.choice([100_000, 2_000_000]) + b"\n"
        elif how == "quote":
            data += b'note-x,"' + b"y" * rng.choice([1000, 3_000_000]) + b"\n"
    else:
        data = _workbook(kind, rows)
        if how == "far":
            data, what = _far_cell(rows, kind, rng)
            return _use_sheet(mutant, f"banknotes.{kind}", data, what)
        if how == "long-row" and kind == "xlsx":
            data = _dimension(data)
    if how == "truncate":
        data = data[: rng.randrange(len(data))]
    elif how == "flip":
        data = _flip(rng, data, rng.choice([1, 5, 50]))
    _use_sheet(mutant, f"banknotes.{kind}", data, f"{how} ({len(data):,} bytes)")


def _flip(rng: random.Random, data: bytes, n: int) -> bytes:
    b = bytearray(data)
    for _ in range(n):
        if b:
            b[rng.randrange(len(b))] = rng.randrange(256)
    return bytes(b)


# --- fonts: a family of the pack's own, its file broken ---------------------------------------


def _bad_table_offset(data: bytes, tag: bytes, rng: random.Random) -> bytes:
    """The font with `tag`'s table directory entry pointing past the end of the file."""
    count = struct.unpack(">H", data[4:6])[0]
    for i in range(count):
        at = 12 + 16 * i
        if data[at : at + 4] == tag:
            bad = rng.choice([len(data) + 10, 0xFFFFFFF0, len(data) - 2])
            return data[: at + 8] + struct.pack(">I", bad) + data[at + 12 :]
    return data


def font(rng: random.Random, mutant: Mutant, op: str) -> None:
    """fonts: {Fuzz: fonts/fuzz.ttf} in game.yaml, the file truncated, flipped, pointing astray,
    empty, not a font, or 2.5 GB."""
    game = f"components/{mutant.kit}/game.yaml"
    text = _text(mutant, game)
    if text is None or "\nprint:" not in text:
        return
    data = FONT.read_bytes()
    how = rng.choice(
        ["truncate", "flip", "cmap", "glyf", "head", "empty", "text", "huge", "otf", "woff2"]
    )
    made: bytes | Sparse = {
        # a foundry's formats, which pnpkit converts (fontfiles.py), broken
        "otf": lambda: (
            _flip(rng, fontmaker.cff(), rng.choice([1, 10, 100]))
            if rng.random() < 0.5
            else fontmaker.cff()[: rng.randrange(len(fontmaker.cff()))]
        ),
        "woff2": lambda: _flip(rng, fontmaker.woff("woff2"), rng.choice([1, 10, 100])),
        "truncate": lambda: data[: rng.randrange(len(data))],
        "flip": lambda: _flip(rng, data, rng.choice([1, 10, 100])),
        "cmap": lambda: _bad_table_offset(data, b"cmap", rng),
        "glyf": lambda: _bad_table_offset(data, b"glyf", rng),
        "head": lambda: _bad_table_offset(data, b"head", rng),
        "empty": lambda: b"",
        "text": lambda: b"not a font at all\n",
        "huge": lambda: Sparse(data, 2_500_000_000),
    }[how]()
    mutant.files[f"components/{mutant.kit}/fonts/fuzz.ttf"] = made  # type: ignore[assignment]
    family = (
        "  Fuzz: fonts/fuzz.ttf\n" if rng.random() < 0.5 else "  Fuzz: {regular: fonts/fuzz.ttf}\n"
    )
    _set(mutant, game, text.replace("\nprint:", "\nfonts:\n" + family + "print:", 1), f"{op} {how}")
    if rng.random() < 0.5:  # and a face draws with it
        _in_content(rng, mutant, '<text x="1" y="5" font-family="Fuzz">Fuzz</text>', "uses Fuzz")


# --- art SVGs: drawn by a face, hostile ------------------------------------------------------

SVG_HEAD = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
GOOD_ART = (
    f'{SVG_HEAD} viewBox="0 0 10 10"><rect x="1" y="1" width="8" height="8" fill="#345"/></svg>'
)


def _uses(levels: int, fan: int) -> str:
    """levels of <g>, each drawing the one below `fan` times by <use>: fan**levels rects."""
    defs = ['<g id="u0"><rect width="1" height="1"/></g>']
    for n in range(1, levels + 1):
        defs.append(f'<g id="u{n}">' + f'<use href="#u{n - 1}"/>' * fan + "</g>")
    return (
        f'{SVG_HEAD} viewBox="0 0 10 10"><defs>{"".join(defs)}</defs><use href="#u{levels}"/></svg>'
    )


def _nested_art(depth: int, fan: int) -> dict[str, str]:
    """art/n0.svg draws art/n1.svg `fan` times, ... down to depth."""
    files = {}
    for n in range(depth):
        body = f'<image href="art/n{n + 1}.svg" width="1" height="1"/>' * fan
        files[f"art/n{n}.svg"] = f'{SVG_HEAD} viewBox="0 0 10 10">{body}</svg>'
    files[f"art/n{depth}.svg"] = GOOD_ART
    return files


BIDI = ["\u202eevil", "a\u2066b", "\u2067x", "\u202bx\u202c\u202c"]  # unmatched controls
CYCLE = '<g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g><use href="#a"/>'


def _svg(body: str, box: str = 'viewBox="0 0 10 10"') -> dict[str, str]:
    return {"art/a.svg": f"{SVG_HEAD} {box}>{body}</svg>"}


def _deep_g(rng: random.Random) -> dict[str, str]:
    depth = rng.choice([120, 250, 5000])
    return _svg("<g>" * depth + '<rect width="1" height="1"/>' + "</g>" * depth)


# Art as design tools export it (issue 35): CSS, symbols, patterns, filters drawn by resvg.
CORPUS = Path(__file__).parent / "art"
CSS_PIECES = [
    ".a{fill:red}",
    "#x{stroke:url(#nowhere)}",
    "rect{fill:url(http://x/y)}",
    "@import 'a.css';",
    "@font-face{src:url(/etc/passwd)}",
    ".a{fill:",
    "}}}{{{",
    "g > .a + rect ~ circle{opacity:.5 !important}",
    ":root{fill:blue}",
    ".a::before{content:'x'}",
    "*{filter:url(#f)}",
    ".a{fill:rgba(1,2,3,9)}",
    "\\00041{fill:red}",
]
FILTER = '<filter id="f"><feGaussianBlur stdDeviation="1"/></filter>'
SLOW = [
    '<filter id="f"><feMorphology radius="1e9"/></filter>',
    '<filter id="f"><feTurbulence numOctaves="99999999"/></filter>',
]
LINKS = ["/etc/passwd", "http://x/y.png", "../up.png", "file:///etc/hosts"]


def _filtered(filter_: str, body: str) -> str:
    return f'{filter_}<g filter="url(#f)">{body}</g>'


def _css(rng: random.Random) -> dict[str, str]:
    sheet = " ".join(rng.choice(CSS_PIECES) for _ in range(rng.randrange(1, 6)))
    body = f'<rect class="a" id="x" width="5" height="5" style="{rng.choice(CSS_PIECES)}"/>'
    return _svg(f"<style>{sheet}</style>{FILTER}<g class='a'>{body}</g>")


def _symbols(levels: int, fan: int) -> str:
    """levels of <symbol>, each using the one below `fan` times."""
    defs = ['<symbol id="s0" viewBox="0 0 1 1"><rect width="1" height="1"/></symbol>']
    for n in range(1, levels + 1):
        uses = f'<use href="#s{n - 1}" width="1" height="1"/>' * fan
        defs.append(f'<symbol id="s{n}" viewBox="0 0 1 1">{uses}</symbol>')
    return "".join(defs) + f'<use href="#s{levels}" width="10" height="10"/>'


def _corpus_flipped(rng: random.Random) -> dict[str, str]:
    data = rng.choice(sorted(CORPUS.glob("*.svg"))).read_bytes()
    return {"art/a.svg": _flip(rng, data, rng.choice([1, 5, 20])).decode("latin-1")}


ART: dict[str, Callable[[random.Random], dict[str, str]]] = {  # name: the files, drawn first
    "huge-viewbox": lambda rng: _svg(
        '<rect width="1e308" height="1e12"/>', 'viewBox="0 0 1e308 1e308" width="1e308"'
    ),
    "huge-numbers": lambda rng: _svg(
        f'<circle r="{rng.choice(["nan", "inf", "-1e309", "9" * 400])}"/>'
    ),
    "truncated": lambda rng: {"art/a.svg": _uses(3, 3)[: rng.randrange(20, 200)]},
    "flipped": lambda rng: {"art/a.svg": _flip(rng, _uses(2, 3).encode(), 5).decode("latin-1")},
    "deep-g": _deep_g,
    "many-use": lambda rng: {"art/a.svg": _uses(rng.choice([6, 9]), 10)},
    "use-cycle": lambda rng: _svg(CYCLE),
    "nested-art": lambda rng: _nested_art(rng.choice([3, 7]), 10),
    "self-art": lambda rng: _svg('<image href="art/a.svg" width="5" height="5"/>'),
    "bidi": lambda rng: _svg(f'<text x="1" y="5">{rng.choice(BIDI)}</text>'),
    "long-attribute": lambda rng: _svg(
        f'<path d="M0 0{" L1 1" * rng.choice([1000, 2_100_000])}"/>'
    ),
    "entity": lambda rng: {
        "art/a.svg": '<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
        + _svg("<text>&b;</text>")["art/a.svg"]
    },
    "not-svg": lambda rng: {"art/a.svg": rng.choice(["", "\x00\x01", "<html/>", "<svg"])},
    "css": _css,
    "symbol-fan": lambda rng: _svg(_symbols(rng.choice([3, 6]), 10)),
    "pattern-tiles": lambda rng: _svg(
        f'<pattern id="p" patternUnits="userSpaceOnUse" width="{rng.choice(["1e-9", "0", "-1"])}"'
        ' height="1"><rect width="1" height="1"/></pattern><rect width="9" height="9" '
        'fill="url(#p)"/>'
    ),
    "filter-slow": lambda rng: _svg(_filtered(rng.choice(SLOW), '<rect width="9" height="9"/>')),
    "filter-link": lambda rng: _svg(
        _filtered(FILTER, f'<image href="{rng.choice(LINKS)}" width="5" height="5"/>')
    ),
    "filter-uses": lambda rng: {
        "art/a.svg": _uses(rng.choice([6, 9]), 10)
        .replace("</defs><use", f'{FILTER}</defs><g filter="url(#f)"><use')
        .replace("</svg>", "</g></svg>")
    },
    "corpus-flipped": _corpus_flipped,
}


def art(rng: random.Random, mutant: Mutant, op: str) -> None:
    """An art SVG of the pack (art/...), hostile, drawn by a face with <image href=...>."""
    how = rng.choice(sorted(ART))
    files = ART[how](rng)
    for rel, svg in files.items():
        mutant.files[f"components/{mutant.kit}/{rel}"] = svg.encode("utf-8", "surrogatepass")
    first = next(iter(files))
    _in_content(
        rng, mutant, f'<image href="{first}" x="1" y="1" width="10" height="10"/>', f"{op} {how}"
    )


INPUT_OPS = {  # name: (weight, edit), as fuzzmutate.OPS
    "sheet": (4, sheet),
    "font": (3, font),
    "art": (4, art),
    "runaway-template": (2, runaway_template),
}


# --- the fixed cases of issue 32, one mutant each ----------------------------------------------


def _sheet_case(name: str, make: Callable[[], bytes]) -> Callable[[random.Random, Mutant], None]:
    return lambda rng, mutant: _use_sheet(mutant, name, make(), "issue 32")


def _csv(tail: bytes) -> bytes:
    head = pristine("star-cargo").files[SHEET]
    return head + tail


def _far_xlsx(ref: str) -> Callable[[random.Random, Mutant], None]:
    def make(rng: random.Random, mutant: Mutant) -> None:
        row = re.sub("[A-Z]", "", ref)
        cell = f'<row r="{row}"><c r="{ref}" t="n"><v>1</v></c></row></sheetData>'.encode()
        edit = _member("xl/worksheets/", lambda b: b.replace(b"</sheetData>", cell))
        _use_sheet(mutant, "banknotes.xlsx", _rezip(_workbook("xlsx", _rows()), edit), ref)

    return make


def _font_case(make: Callable[[bytes], bytes | Sparse]) -> Callable[[random.Random, Mutant], None]:
    def edit(rng: random.Random, mutant: Mutant) -> None:
        game = f"components/{mutant.kit}/game.yaml"
        text = _text(mutant, game) or ""
        mutant.files[f"components/{mutant.kit}/fonts/fuzz.ttf"] = make(FONT.read_bytes())  # type: ignore[assignment]
        _set(
            mutant,
            game,
            text.replace("\nprint:", "\nfonts:\n  Fuzz: fonts/fuzz.ttf\nprint:", 1),
            "font",
        )

    return edit


def _art_case(make: Callable[[], dict[str, str]]) -> Callable[[random.Random, Mutant], None]:
    def edit(rng: random.Random, mutant: Mutant) -> None:
        files = make()
        for rel, svg in files.items():
            mutant.files[f"components/{mutant.kit}/{rel}"] = svg.encode()
        image = f'<image href="{next(iter(files))}" x="1" y="1" width="10" height="10"/>'
        _in_content(rng, mutant, image, "art")

    return edit


def _template_case(line: str) -> Callable[[random.Random, Mutant], None]:
    return lambda rng, mutant: _in_content(rng, mutant, line, f"template {line[:50]!r}")


HOSTILE: dict[str, tuple[str, Callable[[random.Random, Mutant], None]]] = {
    **{f"template-{n}": ("mammoth-herd", _template_case(line)) for n, line in enumerate(RUNAWAY)},
    "xlsx-cell-XFD99999": ("star-cargo", _far_xlsx("XFD99999")),
    "xlsx-cell-GR99999": ("star-cargo", _far_xlsx("GR99999")),
    "xlsx-dimension": (
        "star-cargo",
        lambda rng, m: _use_sheet(
            m, "banknotes.xlsx", _dimension(_workbook("xlsx", _rows())), "dimension"
        ),
    ),
    "ods-repeated": (
        "star-cargo",
        lambda rng, m: _use_sheet(
            m, "banknotes.ods", _far_cell(_rows(), "ods", rng)[0], "repeated"
        ),
    ),
    "csv-5000-digits": (
        "star-cargo",
        _sheet_case("banknotes.csv", lambda: _csv(b"note-x," + b"9" * 5000 + b",1,#000000\n")),
    ),
    "csv-20MB-commas": (
        "star-cargo",
        _sheet_case("banknotes.csv", lambda: _csv(b"," * 19_900_000 + b"\n")),
    ),
    "csv-19MB-quote": (
        "star-cargo",
        _sheet_case("banknotes.csv", lambda: _csv(b'note-x,"' + b"y" * 19_000_000)),
    ),
    "font-truncated": ("mammoth-herd", _font_case(lambda d: d[:1000])),
    "font-bad-cmap": (
        "mammoth-herd",
        _font_case(lambda d: _bad_table_offset(d, b"cmap", random.Random(0))),
    ),
    "font-2.5GB": ("mammoth-herd", _font_case(lambda d: Sparse(d, 2_500_000_000))),
    "font-otf-truncated": ("mammoth-herd", _font_case(lambda d: fontmaker.cff()[:3000])),
    "font-woff2-bad-brotli": (
        "mammoth-herd",
        _font_case(lambda d: fontmaker.woff("woff2")[:-200] + bytes(200)),
    ),
    "font-woff2-bomb": ("mammoth-herd", _font_case(lambda d: fontmaker.woff2_bomb())),
    "font-woff-bomb": ("mammoth-herd", _font_case(lambda d: fontmaker.woff_bomb())),
    "svg-250-g": (
        "mammoth-herd",
        _art_case(lambda: _svg("<g>" * 250 + "<rect width='1' height='1'/>" + "</g>" * 250)),
    ),
    "svg-use-9x10": ("mammoth-herd", _art_case(lambda: {"art/a.svg": _uses(9, 10)})),
    "svg-art-7x10": ("mammoth-herd", _art_case(lambda: _nested_art(7, 10))),
    "svg-10MB-attribute": (
        "mammoth-herd",
        _art_case(lambda: _svg(f'<path d="M0 0{" L1 1" * 2_100_000}"/>')),
    ),
    "svg-css-hostile": (
        "mammoth-herd",
        _art_case(lambda: _css(random.Random(35))),
    ),
    "svg-symbol-6x10": ("mammoth-herd", _art_case(lambda: _svg(_symbols(6, 10)))),
    "svg-filter-use-9x10": (
        "mammoth-herd",
        _art_case(lambda: ART["filter-uses"](random.Random(1))),
    ),
    "svg-morphology-1e9": ("mammoth-herd", _art_case(lambda: _svg(_filtered(SLOW[0], "<g/>")))),
    "svg-filter-link": (
        "mammoth-herd",
        _art_case(
            lambda: _svg(_filtered(FILTER, '<image href="/etc/passwd" width="5" height="5"/>'))
        ),
    ),
    "label-U+202E": ("mammoth-herd", _template_case("{{ text_box('a\u202eb', 1, 1, 20, 5) }}")),
    "label-U+2066": ("mammoth-herd", _template_case("{{ text_box('a\u2066b', 1, 1, 20, 5) }}")),
}


def hostile(name: str) -> Mutant:
    """The fixed case `name` of HOSTILE as a mutant (validated)."""
    kit, make = HOSTILE[name]
    mutant = pristine(kit)
    mutant.ops = f"hostile:{name}"
    make(random.Random(name), mutant)
    return mutant
