"""What a long-lived process (watch) keeps of each item between builds: the checked item read from
an unchanged YAML mapping (schema), its faces' cache keys (cache). A rebuild that takes them
must give what a build from nothing gives: the same pack, places and problems, the same keys,
and a kit identical byte for byte after every kind of edit a designer makes."""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import ROOT, SOLID, colour_pack
from pnpkit import workspace
from pnpkit.build import cachefile, output
from pnpkit.build import pipeline as build
from pnpkit.build.cache import Cache
from pnpkit.pack import items as pack_items
from pnpkit.pack import schema
from pnpkit.pack.items import _ITEMS
from pnpkit.pack.reparse import _LAST
from pnpkit.pdf.forms import _NAMES

sys.path.insert(0, str(ROOT / "scripts"))
import bench_cards  # noqa: E402


def cold_load(pack: Path) -> tuple[str, list[str]]:
    """load_pack with nothing kept from before (nor kept for after)."""
    items, parses = dict(_ITEMS), dict(_LAST.here())
    _ITEMS.clear()
    _LAST.here().clear()
    try:
        made, problems = schema.load_pack(pack)
    finally:
        _ITEMS.clear()
        _ITEMS.update(items)
        _LAST.here().clear()
        _LAST.here().update(parses)
    return repr(made), [str(p) for p in problems]


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """The ids of the items read afresh (not taken from an earlier load)."""
    read: list[str] = []
    now = pack_items._read_item

    def spy(r, game, group, value, *rest):
        read.append(value.get("id", "?") if isinstance(value, dict) else "?")
        return now(r, game, group, value, *rest)

    monkeypatch.setattr(pack_items, "_read_item", spy)
    monkeypatch.setattr(workspace.current(), "hand_on", True)  # as in watch's builds
    _ITEMS.clear()
    _LAST.here().clear()
    return read


LINE_EDITS = [  # (old, new) written over a card's line, or inserted before it (new only)
    ("colour: '#", "colour: '#0"),  # a broken colour? no: a longer string, still a string
    ("colour: '", "colour: 12, x: '"),  # a wrong type and an unknown key: problems
    ("{id: c", "{count: 2, id: c"),  # a count
    ("{id: c", "{count: true, id: c"),  # 1 == True, but a bool is no count
    ("{id: c", "{count: 1.0, id: c"),  # nor is a float
    (None, "    - {id: new{0}, colour: '#000000'}"),  # a card more: every later line moves
    (None, "    - id: tall{0}\n      colour: '#101010'\n    # note"),
    (None, "    # a comment line"),
    ("    - {id: c", "    - {front: solid.svg.j2, id: c"),  # its own template
]


def test_random_edits_load_as_a_cold_load_does(tmp_path, reads):
    pack = colour_pack(tmp_path, n=30)
    path = pack / "cards.yaml"
    rng, few = random.Random(3), 0  # loads that read few items afresh
    assert schema.load_pack(pack)[0] is not None and len(reads) == 30
    for step in range(120):
        lines = path.read_text(encoding="utf-8").split("\n")
        cards = [i for i, line in enumerate(lines) if line.startswith("    - {")]
        at = rng.choice(cards)
        old, new = rng.choice(LINE_EDITS)
        if rng.random() < 0.2:
            del lines[at]
        elif old is None:
            lines[at:at] = new.replace("{0}", str(step)).split("\n")
        else:
            lines[at] = lines[at].replace(old, new, 1)
        if step % 10 == 9:  # a good file again now and then
            lines = (colour_pack(tmp_path / str(step), n=30) / "cards.yaml").read_text().split("\n")
        if step % 17 == 16:  # the group's templates move: the items that use them see it
            lines[lines.index("  fields:") : lines.index("  fields:")] = ["  # moved"]
        path.write_text("\n".join(lines), encoding="utf-8")
        before = len(reads)
        made, problems = schema.load_pack(pack)
        few += len(reads) - before < 10
        assert (repr(made), [str(p) for p in problems]) == cold_load(pack), step
    assert few > 45  # the others were taken from the load before


def test_an_unchanged_item_is_the_same_object_and_moves_with_its_lines(tmp_path, reads):
    pack = colour_pack(tmp_path, n=6)
    path = pack / "cards.yaml"
    first = schema.load_pack(pack)[0]
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("{id: c2, colour: '#", "{id: c2, colour: '#f"), encoding="utf-8")
    second = schema.load_pack(pack)[0]
    assert reads == [f"c{i}" for i in range(6)] + ["c2"]
    old, new = first.groups["cards"].items, second.groups["cards"].items
    assert [a is b for a, b in zip(old, new)] == [True, True, False, True, True, True]
    c2 = next(line for line in text.split("\n") if "id: c2," in line)
    path.write_text(text.replace(c2, c2.replace("{", "").replace(", ", "\n      ")[:-1]))
    third = schema.load_pack(pack)[0]
    assert reads[-1:] == ["c2"] and len(reads) == 8  # c2 on two lines: the later ones moved
    moved = third.groups["cards"].items
    assert [m.where.line - o.where.line for o, m in zip(old, moved)] == [0, 0, 0, 1, 1, 1]
    assert [m is o for o, m in zip(old, moved)] == [True, True, False, False, False, False]
    assert [m.template_where == o.template_where for o, m in zip(old, moved)] == [True] * 6
    assert repr(third) == cold_load(pack)[0]


CONTEXT_EDITS = [  # what an item's reading depends on outside its own mapping
    ("cards.yaml", "    colour: string", "    colour: string\n    extra: {type: int, default: 1}"),
    ("cards.yaml", "default: 1}", "default: true}"),  # equal to 1, yet another value
    ("cards.yaml", "default: true}", "default: 1.0}"),
    ("cards.yaml", "  front: solid.svg.j2", "  front: other.svg.j2"),
    ("cards.yaml", "    - {id: c0,", "    - {per_player: 2, id: c0,"),
    ("game.yaml", "max: 1}", "max: 3}"),  # per_player counts print for the most players
    ("cards.yaml", "extra: {type: int,", "extra: {type: int, required: true,"),
    ("cards.yaml", "    colour: string", "    colour: string\n    colr: string"),  # a typo
]


@pytest.mark.parametrize("upto", range(1, len(CONTEXT_EDITS) + 1))
def test_an_item_is_read_again_when_its_group_or_game_changes(tmp_path, reads, upto):
    pack = colour_pack(tmp_path, n=4)
    (pack / "templates" / "other.svg.j2").write_text(SOLID.replace("<rect", "<rect id='o'"))
    for n, (name, old, new) in enumerate(CONTEXT_EDITS[:upto]):
        if n == upto - 1:
            schema.load_pack(pack)
            before = len(reads)
        text = (pack / name).read_text(encoding="utf-8")
        assert old in text, old
        (pack / name).write_text(text.replace(old, new, 1), encoding="utf-8")
    made, problems = schema.load_pack(pack)
    fresh = reads[before:]
    assert (repr(made), [str(p) for p in problems]) == cold_load(pack)
    assert fresh == (
        ["c0"] if "per_player" in CONTEXT_EDITS[upto - 1][2] else ["c0", "c1", "c2", "c3"]
    )


def test_face_keys_taken_from_the_last_build_are_the_keys_made_afresh(tmp_path):
    """Cache._face_key of an item seen in the last build gives the digest a fresh cache makes:
    after the item, its template, its group's size or the pack's bleed changed."""
    pack = colour_pack(tmp_path, n=5)
    warm = Cache(None, deferred=True)  # watch's
    edits = [
        ("cards.yaml", "'#255bb7'", "'#255bb8'"),  # c1's colour
        ("templates/solid.svg.j2", "<rect", "<rect data-x='1'"),
        ("cards.yaml", "size: poker", "size: bridge"),
        ("game.yaml", "bleed: 3mm", "bleed: 2mm"),
        ("cards.yaml", "fields:", "bleed: 1mm\n  fields:"),
    ]
    assert not build.validate(pack, cache=warm).errors
    for name, old, new in edits:
        text = (pack / name).read_text(encoding="utf-8")
        assert old in text
        (pack / name).write_text(text.replace(old, new, 1), encoding="utf-8")
        before = set(warm.faces)
        assert not build.validate(pack, cache=warm).errors
        used = {k for k, entry in warm.faces.items() if entry[0] == warm.generation}
        assert used - before  # each edit changes some face
        cold = Cache(None)
        assert not build.validate(pack, cache=cold).errors
        assert used == set(cold.faces), name


def kit_files(folder: Path) -> dict[Path, bytes]:
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def swapped(text: str, first: str, second: str) -> str:
    """text with the line holding `first` and the one holding `second` swapped."""
    lines = text.split("\n")
    a, b = (next(i for i, x in enumerate(lines) if key in x) for key in (first, second))
    lines[a], lines[b] = lines[b], lines[a]
    return "\n".join(lines)


def colour_of(card: str, value: str) -> Callable[[str], str]:
    return lambda t: re.sub(rf"(id: {card},.*colour: )('#[0-9a-f]+'|\d+)", rf"\g<1>{value}", t)


EDITS: list[tuple[str, Callable[[str], str]]] = [  # a designer's saves, in turn
    ("cards.yaml", lambda t: t.replace("title: 'Card 3 ", "title: 'Card 3 longer ", 1)),
    ("cards.yaml", lambda t: t.replace("title: 'Card 5 ", "title: 'Card 5 Žluťoučký ŋ ", 1)),
    ("cards.yaml", lambda t: t.replace("{id: card-0007,", "{count: 3, id: card-0007,", 1)),
    ("cards.yaml", lambda t: swapped(t, "id: card-0010,", "id: card-0011,")),
    ("cards.yaml", colour_of("card-0009", "7")),  # broken: a number for a string
    ("cards.yaml", colour_of("card-0009", "'#123456'")),  # mended
    ("../../templates/bench/front.svg.j2", lambda t: t.replace("%}\n<rect", "%}<!-- e -->\n<rect")),
    (
        "cards.yaml",
        lambda t: t.replace("    - {id: card-0002,", "    # more\n    - {id: card-0002,"),
    ),
]


def test_every_rebuild_writes_what_a_cold_build_writes(tmp_path, monkeypatch):
    """A long-lived process's rebuilds (as watch makes them: one cache, the spare kit) after
    each kind of edit give, file for file and byte for byte, a build from nothing; a broken pack
    reports the problems a cold build reports, where it reports them."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    root = bench_cards.make_pack(tmp_path / "deck", 24, sheet=False)
    out = tmp_path / "out"
    cache = Cache(out / build.CACHE_DIR, deferred=True)
    build.forget_kept()

    def warm() -> build.Result:
        result = build.build(root, build.BuildOptions(out, cache=cache, watch=build.WatchHooks()))
        with output.locked(out, "test"):
            output.keep_spares(out)
        return result

    assert warm().written
    failed = []
    for n, (name, edit) in enumerate(EDITS):
        path = root / name
        text = path.read_text(encoding="utf-8")
        assert edit(text) != text, name
        path.write_text(edit(text), encoding="utf-8")
        rebuilt = warm()
        build.forget_kept()
        fresh = build.build(root, build.BuildOptions(tmp_path / f"cold{n}", cache=Cache(None)))
        assert [str(p) for p in rebuilt.problems] == [str(p) for p in fresh.problems], n
        assert rebuilt.written == fresh.written == (not fresh.errors), n
        if fresh.written:
            assert kit_files(out / "bench") == kit_files(tmp_path / f"cold{n}" / "bench"), n
        else:
            failed += [p.where.line for p in fresh.errors]
    assert failed == [21]  # card-0009's colour, on its line


def test_drawing_keys_and_form_names_kept_by_svg_are_those_made_afresh(tmp_path, monkeypatch):
    """An SVG keyed in the last build is not hashed again, unless pnpkit's code or the fonts
    (the key's prefix) changed; a form's name is its SVG's hash, however often it is asked."""
    import hashlib

    from pnpkit.pdf.forms import form_name
    from pnpkit.typeset import fonts

    cache = Cache(None, deferred=True)  # watch's
    pack = colour_pack(tmp_path, n=3)
    assert not build.validate(pack, cache=cache).errors
    faces = build.validate(pack, cache=cache).faces["en"]  # the second build: keys taken over
    assert cache._svg_keys and len(cache._memo.svg_keys) == 3  # a card draws both sides alike
    for face in faces:
        prefix = cachefile.engine() + fonts.signature().encode()
        made = hashlib.sha256(prefix + face.svg.encode("utf-8")).digest()
        assert cache._drawing_key(face.svg) == made
        name = "F" + hashlib.sha1(face.svg.encode("utf-8")).hexdigest()[:16]
        assert form_name(face.svg) == form_name(face.svg) == name
    monkeypatch.setattr(cachefile, "engine", lambda: b"another pnpkit")
    prefix = b"another pnpkit" + fonts.signature().encode()
    svg = faces[0].svg
    assert cache._drawing_key(svg) == hashlib.sha256(prefix + svg.encode("utf-8")).digest()


def test_a_layout_taken_from_an_earlier_build_is_what_impose_lays_out(monkeypatch):
    """layout.impose_again() gives impose()'s pages and problems, with the faces it is given on
    them, after each change of what impose reads of a face or of the settings; a change of a
    face's SVG alone takes the kept layout."""
    import dataclasses

    from pnpkit.errors import Location
    from pnpkit.impose import layout
    from pnpkit.pack.model import Face, PrintSettings
    from registered import REGISTRY

    here = Location("x.yaml", 1, 1)

    def deck(n: int, change: dict | None = None) -> list[Face]:
        out, change = [], change or {}
        for i in range(n):
            for side in ("front", "back"):
                face = Face("cards", f"c{i}", side, 1, (63.5, 88.9), 3.0, "card", f"<{i}>", here)
                out.append(dataclasses.replace(face, **change.get(i, {})))
        return out

    settings = PrintSettings(paper="a4")
    steps = [
        (deck(20), settings, False),
        (deck(20), settings, True),  # new faces, the same shape: kept
        (deck(20, {3: {"svg": "<other>"}}), settings, True),
        (deck(20, {3: {"count": 4}}), settings, False),
        (deck(20, {3: {"count": 4}, 5: {"size": (88.9, 63.5)}}), settings, False),
        (deck(20, {7: {"where": Location("x.yaml", 9, 1)}}), settings, False),
        (deck(20, {0: {"size": (400.0, 300.0)}}), settings, False),  # split over sheets
        (deck(20), PrintSettings(paper="a4", backs="gutter-fold"), False),
        (deck(20), PrintSettings(paper="letter"), False),
        (deck(20, {2: {"variant": "x"}}), PrintSettings(paper="a4", variants=("y",)), False),
        (deck(2, {0: {"count": 30_000}}), settings, False),  # too many: a problem
        (deck(2, {0: {"count": 30_000}}), settings, True),
        (deck(20, {3: {"count": 4}}), settings, True),  # the eighth newest: still kept
        (deck(20), settings, False),  # the ninth: gone
        (deck(20, {1: {"kind": "hex"}}), settings, False),  # a registry's packer: never kept
        (deck(20, {1: {"kind": "hex"}}), settings, False),
    ]
    layout._LAYOUTS.here().clear()
    monkeypatch.setattr(workspace.current(), "hand_on", True)  # as in watch's builds
    impose, calls = layout.impose, []
    monkeypatch.setattr(layout, "impose", lambda *a: calls.append(1) or impose(*a))
    for n, (faces, settings, taken) in enumerate(steps):
        before = len(calls)
        pages, problems = layout.impose_again(faces, settings, REGISTRY.packers)
        assert (len(calls) == before) is taken, n
        assert (pages, problems) == impose(faces, settings, REGISTRY.packers), n
        assert {id(p.face) for page in pages for p in page.placements} <= {id(f) for f in faces}
        for page in pages:  # as build._label does: the kept layout must not see it
            page.label, page.lines = "changed by the caller", [(0, 0, 1, 1)]
    assert layout.impose_again(faces, settings, REGISTRY.packers)[0][0].label == ""


def test_a_one_shot_build_keeps_nothing_per_item_for_a_next_build(tmp_path, monkeypatch):
    """`pnpkit build` (a cache that saves at once) has no next build: it keeps no item, face
    key, layout, form name nor item figure for one, and writes what watch's first build writes."""
    from pnpkit.build import preview
    from pnpkit.impose import layout

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    root = bench_cards.make_pack(tmp_path / "deck", 6, sheet=False)
    build.forget_kept()
    cache = Cache(tmp_path / "one" / build.CACHE_DIR)
    assert build.build(root, build.BuildOptions(tmp_path / "one", cache=cache)).written
    assert not (_ITEMS or layout._LAYOUTS.here() or _NAMES or preview._FIGURES.here())
    assert not cache.keys.made
    watched = Cache(tmp_path / "two" / build.CACHE_DIR, deferred=True)
    assert build.build(
        root, build.BuildOptions(tmp_path / "two", cache=watched, watch=build.WatchHooks())
    ).written
    assert _ITEMS and layout._LAYOUTS.here() and _NAMES and preview._FIGURES.here().items
    assert watched.keys.made
    assert kit_files(tmp_path / "one" / "bench") == kit_files(tmp_path / "two" / "bench")


def test_font_streams_kept_from_the_last_pdf_are_those_formatted_afresh(tmp_path, monkeypatch):
    """A long-lived process writes each font subset's file (and ToUnicode map) as it formatted
    an equal stream for the PDF before, compressing none again while the faces' characters stay
    the same; a character new to the PDF changes the subset, which is formatted afresh. Each
    PDF is byte for byte a cold build's."""
    from reportlab.pdfbase import pdfdoc

    root = _watched_deck(tmp_path, monkeypatch)
    formatted: list[int] = []
    fmt = pdfdoc.PDFStream.format

    def spy(stream, document):
        if "Length1" in stream.dictionary.dict:  # a font file: its subset's length
            formatted.append(stream.dictionary["Length1"])
        return fmt(stream, document)

    monkeypatch.setattr(pdfdoc.PDFStream, "format", spy)
    steps = [
        (lambda t: t, True),  # the first build formats them
        (colour_of("card-0003", "'#123456'"), False),  # the same characters: taken
        (lambda t: t.replace("text: 'player", "text: '§player", 1), True),  # '§': a new subset
        (lambda t: t.replace("title: 'Card 5 ", "title: 'Card 5x ", 1), False),
        (lambda t: t.replace("text: '§player", "text: 'player", 1), False),  # '§' gone: kept
    ]
    _kept_against_cold(tmp_path, root, steps, formatted, taken=0)


def _watched_deck(tmp_path, monkeypatch) -> Path:
    """A 24-card deck for _kept_against_cold, dated as the reference builds are."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    build.forget_kept()
    return bench_cards.make_pack(tmp_path / "deck", 24, sheet=False)


def _kept_against_cold(tmp_path, root, steps, made: list, taken: int) -> None:
    """Build root after each step's edit of its cards.yaml in one long-lived process (its cache,
    the spare kit kept as watch keeps it): `made` (what the build drew or formatted afresh) grows
    by more than `taken` exactly when the step says so. Then each step's cards are built from
    nothing, with nothing kept between them: each kit is byte for byte the kept build's."""
    out = tmp_path / "out"
    cache = Cache(out / build.CACHE_DIR, deferred=True)
    cards = root / "cards.yaml"
    texts, kits = [], []
    for n, (edit, again) in enumerate(steps):
        cards.write_text(edit(cards.read_text(encoding="utf-8")), encoding="utf-8")
        before = len(made)
        assert build.build(
            root, build.BuildOptions(out, cache=cache, watch=build.WatchHooks())
        ).written
        with output.locked(out, "test"):
            output.keep_spares(out)
        assert (len(made) - before > taken) is again, n
        texts.append(cards.read_text(encoding="utf-8"))
        kits.append(kit_files(out / "bench"))
    for n, text in enumerate(texts):
        cards.write_text(text, encoding="utf-8")
        build.forget_kept()
        assert build.build(
            root, build.BuildOptions(tmp_path / f"cold{n}", cache=Cache(None))
        ).written
        assert kits[n] == kit_files(tmp_path / f"cold{n}" / "bench"), n


def test_text_keys_kept_by_a_drawing_are_those_made_afresh(tmp_path, monkeypatch):
    """A drawing watch takes over keeps its text-check key per settings, for the files it drew
    then: the key made afresh from its own key, those files and the settings, and made again
    when either differs."""
    import hashlib

    monkeypatch.setattr(workspace.current(), "hand_on", True)  # as in watch's builds
    cache = Cache(None, deferred=True)
    result = build.validate(colour_pack(tmp_path, n=2), cache=cache)
    drawing = result.faces["en"][0].drawing
    deps = cache.drawings[drawing.key][2]

    def fresh(deps: object, settings: object) -> bytes:
        return hashlib.sha256(drawing.key + repr((deps, settings)).encode()).digest()

    for settings in [((69.5, 94.9), 3.0, 6.0, 3.0, True), ((69.5, 94.9), 3.0, 0.0, 3.0, True)]:
        for files in [deps, (("art.png", "/p/art.png", "ab12"),), deps]:
            assert drawing.text_key(files, settings) == fresh(files, settings)
            assert drawing.text_key(files, settings) == fresh(files, settings)  # kept
    assert drawing.text_keys  # kept, by settings


def test_item_spans_kept_by_the_item_are_those_made_afresh(tmp_path, reads):
    """The preview finds which item a problem belongs to by the items' spans of lines; a span
    kept by its item is the one made afresh after edits that move the items' lines."""
    from pnpkit.build import preview

    pack = colour_pack(tmp_path, n=6)
    path = pack / "cards.yaml"
    preview._SPANS.clear()
    for edit in [
        lambda t: t,
        lambda t: t.replace("    - {id: c2,", "    # a comment\n    - {id: c2,"),
        lambda t: t.replace("{id: c4, colour: '#", "{id: c4, colour: '#f"),
    ]:
        path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
        made = schema.load_pack(pack)[0]
        kept = preview._owners(made)
        with pytest.MonkeyPatch.context() as fresh:
            fresh.setattr(preview, "_SPANS", {})
            assert kept == preview._owners(made)
    assert 6 < len(preview._SPANS) < 3 * 6  # items moved or changed anew, the others kept
