"""Incremental builds: only faces whose inputs changed are rendered again, and the output is
always byte for byte what a build from nothing gives (the cache can never serve a stale face)."""

from __future__ import annotations

import gc
import io
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pypdfium2
import pytest
from PIL import Image
from reportlab.pdfgen.canvas import Canvas

from conftest import ROOT, cache_read_back, colour_pack, write_pack
from pnpkit.build import cache, cachefile, cacheforms, earlyforms, preview
from pnpkit.build import pipeline as build
from pnpkit.build.cache import Cache
from pnpkit.faces import render, sandbox, templates
from pnpkit.faces.templates import _parsed, _read_tree, _settings
from pnpkit.pack import schema
from pnpkit.pdf import calibration
from pnpkit.pdf import writer as pdf
from pnpkit.pdf.forms import face_form
from pnpkit.typeset import fonts

M = "components/mammoth-herd"
FACES = 16 * 2 + 1 + 2  # per language: bonus tiles front and back, the herd, the reference card


def incremental(kit, out="build"):
    """A build of the kit through one long-lived cache kept in out/pnpkit-cache, as watch does."""
    c = Cache(kit.root / out / build.CACHE_DIR)

    def run():
        result = build.build(kit.pack, build.BuildOptions(kit.root / out, cache=c))
        assert not result.errors, [str(p) for p in result.errors]
        return dict(c.stats)

    return run


def outputs(folder: Path) -> dict:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def cold_build_equals(kit, out: str = "build") -> None:
    """The kit built from nothing into another folder gives exactly the same files."""
    shutil.rmtree(kit.root / "cold", ignore_errors=True)
    assert not build.build(kit.pack, build.BuildOptions(kit.root / "cold", cache=Cache())).errors
    assert outputs(kit.root / out / "mammoth-herd") == outputs(kit.root / "cold" / "mammoth-herd")


def test_a_rebuild_of_an_unchanged_pack_renders_and_compiles_nothing(kit):
    run = incremental(kit)
    first = run()
    assert set(first) == {"faces rendered", "drawings compiled", "forms drawn", "forms reused"}
    assert first["faces rendered"] == 2 * FACES
    assert first["forms reused"] > 0  # a form the Polish PDF made, with the same font codes
    before = outputs(kit.root / "build" / "mammoth-herd")
    again = run()
    assert again == {
        "faces reused": 2 * FACES,
        "drawings reused": first["drawings compiled"],
        "forms reused": first["forms drawn"] + first["forms reused"],
    }
    assert outputs(kit.root / "build" / "mammoth-herd") == before


def test_changing_one_item_renders_only_its_faces(kit):
    run = incremental(kit)
    run()
    kit.edit(
        f"{M}/reference.yaml",
        "Stand the herd next to the stack.",
        "Stand the herd beside the stack.",
    )
    stats = run()
    assert (
        stats["faces rendered"] == 2
    )  # the reference card's front and back in English; Polish is unchanged
    assert (
        stats["drawings compiled"] == 1
    )  # the text is on the front: the back's SVG is the same as before
    assert stats["faces reused"] == 2 * FACES - 2
    assert (
        stats["forms drawn"] == 1
    )  # only that front is drawn into the PDF again; the rest is replayed
    kit.edit(
        f"{M}/tiles.yaml",
        "{id: bonus-03, first: gold2, all: brick1, resource: wood,",
        "{id: bonus-03, first: gold2, all: brick1, resource: gold,",
    )
    stats = run()
    assert stats["faces rendered"] == 2 * 2  # its front and back, in pl and en
    assert (
        stats.get("drawings compiled", 0) == 0
    )  # the front shows no resource; the back is the other gold tiles' back
    cold_build_equals(kit)


def test_a_character_new_to_the_pdf_redraws_its_forms_correctly(kit):
    """Form bytes depend on the fonts' character codes: a new character moves the codes of the
    characters sorted after it, and only the forms using one of those are drawn again."""
    run = incremental(kit)
    first = run()
    kit.edit(
        f"{M}/reference.yaml",
        "Stand the herd next to the stack.",
        "Stand the herd next to the stack Ω.",
    )
    stats = run()
    english = (first["forms drawn"] + first["forms reused"]) // 2
    assert 1 <= stats["forms drawn"] < english, stats  # the edited face, and few others
    cold_build_equals(kit)


def test_a_long_lived_cache_hands_the_next_build_its_decoded_drawings(kit):
    """watch's cache: the next build takes over the drawings (and the form keys they worked out)
    whose entries still match, and its files are still those of a build from nothing, also
    after a new character has moved the fonts' codes."""
    c = Cache(kit.root / "build" / build.CACHE_DIR)

    def drawings() -> dict[str, object]:
        result = build.build(kit.pack, build.BuildOptions(kit.root / "build", cache=c))
        assert not result.errors
        return {f.svg: f.drawing for faces in result.faces.values() for f in faces}

    first = drawings()
    assert all(d.form_keys for d in first.values() if not d.images)
    again = drawings()
    assert all(again[svg] is d for svg, d in first.items())
    kit.edit(f"{M}/reference.yaml", "Stand the herd next to the stack.", "Stand the herd Ω.")
    edited = drawings()
    assert sum(svg not in first for svg in edited) == 1  # the reference card's English front
    assert all(edited[svg] is first[svg] for svg in edited if svg in first)
    assert c.stats["forms drawn"] >= 1
    cold_build_equals(kit)
    assert all(d is not edited[svg] for svg, d in drawings_of_a_new_cache(kit).items())


def drawings_of_a_new_cache(kit) -> dict[str, object]:
    result = build.build(kit.pack, build.BuildOptions(kit.root / "build"))
    return {f.svg: f.drawing for faces in result.faces.values() for f in faces}


def test_changing_a_template_renders_the_faces_that_use_it(kit):
    run = incremental(kit)
    run()
    kit.edit("templates/mammoth-herd/bonus-back.svg.j2", 'fill="#5a3d26"', 'fill="#5a3d27"')
    assert run()["faces rendered"] == 16 * 2
    kit.edit(
        "templates/_icons.svg.j2", 'fill="#8a5a2b"', 'fill="#8a5a2c"'
    )  # imported by every template
    assert run()["faces rendered"] == 2 * FACES
    cold_build_equals(kit)


def test_changing_pack_wide_inputs_renders_the_faces_that_read_them(kit):
    run = incremental(kit)
    run()
    kit.edit(
        f"{M}/game.yaml",
        'all_label: {pl: "wszystko", en: "all"}',
        'all_label: {pl: "wszystko", en: "all!"}',
    )
    # s.all_label: only the 16 bonus tiles' fronts read it, in the language that changed
    assert run()["faces rendered"] == 16
    kit.edit(f"{M}/game.yaml", "safe: 3mm", "safe: 3.5mm")
    assert run()["faces rendered"] == 2 * FACES  # face.safe
    cold_build_equals(kit)


def test_print_settings_a_face_does_not_see_change_the_pdf_but_render_nothing(kit):
    run = incremental(kit)
    run()
    pdf = kit.root / "build" / "mammoth-herd" / "mammoth-herd-en.pdf"
    before = pdf.read_bytes()
    kit.edit(f"{M}/game.yaml", "margin: 5mm", "margin: 8mm")
    stats = run()
    assert stats.get("faces rendered", 0) == 0
    assert pdf.read_bytes() != before
    cold_build_equals(kit)


def test_new_art_in_the_same_svg_is_drawn_again(tmp_path, monkeypatch):
    """The drawing of an SVG that shows a file of the pack is keyed by that file's content too."""
    monkeypatch.chdir(tmp_path)
    root = write_pack(
        tmp_path / "components" / "art",
        {
            "game.yaml": "name: Art\nlanguages: [en]\nplayers: "
            "{min: 1, max: 1}\nprint: {bleed: 0mm}\n",
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n  "
            "front: art.svg.j2\n  items:\n    - id: one\n",
            "templates/art.svg.j2": '{% extends "_face.svg.j2" %}{% block content %}'
            '<image href="art/picture.png" x="0" y="0" width="{{ face.w '
            '}}" height="{{ face.h }}" preserveAspectRatio="none"/>'
            "{% endblock %}",
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text(),
        },
    )
    (root / "art").mkdir()
    out = tmp_path / "build"
    c = Cache(out / build.CACHE_DIR)
    colours = [(200, 30, 30), (30, 30, 200)]
    for _n, colour in enumerate(colours):
        Image.new("RGB", (8, 8), colour).save(root / "art" / "picture.png")
        assert not build.build(root, build.BuildOptions(out, cache=c)).errors
        assert c.stats["drawings compiled"] == 1
        page = pypdfium2.PdfDocument(str(out / "art" / "art-en.pdf"))[
            calibration.page_count("long-edge")
        ]
        image = page.render(scale=50 / 72).to_pil().convert("RGB")
        centre = image.getpixel((image.width // 2, image.height // 2))
        assert all(abs(a - b) < 20 for a, b in zip(centre, colour)), (centre, colour)
    assert c.stats.get("faces reused") == 1  # the SVG did not change, only the file it draws


def test_deleting_or_damaging_the_cache_only_costs_time(kit):
    run = incremental(kit)
    run()
    before = outputs(kit.root / "build" / "mammoth-herd")
    cache_file = kit.root / "build" / build.CACHE_DIR / "mammoth-herd.marshal"
    assert cache_file.is_file()
    cache_file.write_bytes(cache_file.read_bytes()[:1000])  # cut short, as by a full disk
    assert kit.build().code == 0
    assert outputs(kit.root / "build" / "mammoth-herd") == before
    shutil.rmtree(kit.root / "build" / build.CACHE_DIR)
    assert kit.build().code == 0
    assert outputs(kit.root / "build" / "mammoth-herd") == before


def test_a_new_process_reads_the_cache_from_the_build_folder(kit):
    assert kit.build().code == 0
    fresh = Cache(kit.root / "build" / build.CACHE_DIR)
    assert not build.build(kit.pack, build.BuildOptions(kit.root / "build", cache=fresh)).errors
    assert fresh.stats.get("faces rendered", 0) == 0


def test_a_cache_file_of_an_older_format_is_ignored(kit):
    """Format 4 writes the file in parts: a file of format 3 (one marshal) is never read."""
    assert kit.build().code == 0
    path = kit.root / "build" / build.CACHE_DIR / "mammoth-herd.marshal"
    data = path.read_bytes()
    assert data.startswith(cachefile.FORMAT) and cachefile.FORMAT == b"pnpkit-cache 4\n"
    path.write_bytes(b"pnpkit-cache 3\n" + data[len(cachefile.FORMAT) :])
    fresh = Cache(kit.root / "build" / build.CACHE_DIR)
    assert not build.build(kit.pack, build.BuildOptions(kit.root / "build", cache=fresh)).errors
    assert fresh.stats["faces rendered"] == 2 * FACES and fresh.stats["drawings reused"] == 0


def test_the_cache_file_is_written_in_parts_and_read_back_whole(kit, monkeypatch):
    """Each table is marshalled PART entries at a time (a large deck's cache is never made whole
    in memory); a new process reads every entry back, and a file cut short reads as none."""
    monkeypatch.setattr(cachefile, "PART", 3)
    first = Cache(kit.root / "build" / build.CACHE_DIR)
    assert not build.build(kit.pack, build.BuildOptions(kit.root / "build", cache=first)).errors
    path = kit.root / "build" / build.CACHE_DIR / "mammoth-herd.marshal"
    read = cachefile._load_marshalled(path, 3)
    assert read is not None
    assert read == (first.generation, [first.faces, first.drawings, first.forms])
    data = path.read_bytes()
    parts, at = 0, len(cachefile.FORMAT + cachefile.engine())
    while at < len(data):
        at += 8 + int.from_bytes(data[at : at + 8], "little")
        parts += 1
    assert at == len(data)
    tables = (first.faces, first.drawings, first.forms)
    assert parts == 1 + sum(-(-len(t) // 3) for t in tables) and parts > 4
    fresh = Cache(kit.root / "build" / build.CACHE_DIR)
    assert not build.build(kit.pack, build.BuildOptions(kit.root / "build", cache=fresh)).errors
    assert fresh.stats["faces rendered"] == 0 and fresh.stats["drawings compiled"] == 0
    path.write_bytes(data[:-5])
    assert cachefile._load_marshalled(path, 3) is None
    assert cachefile._load_marshalled(path.with_name("missing.marshal"), 3) is None
    assert sorted(p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")) == []


def test_a_save_stopped_between_parts_leaves_the_files_and_saves_later_what_it_would_have(
    kit, monkeypatch
):
    """watch's save when idle asks `stop` before each part: stopped, the cache's file is as it
    was, byte for byte (no scratch file left; the text checks' file, written first, is as it
    was when stopped among its own parts), and the cache is still to save; the save after
    writes what an uninterrupted save of the same builds writes (read back: marshal's bytes
    follow the objects' reference counts)."""
    monkeypatch.setattr(cachefile, "PART", 3)
    caches = {out: Cache(kit.root / out / build.CACHE_DIR, deferred=True) for out in ("a", "b")}

    def built() -> None:
        for out, c in caches.items():
            assert not build.build(
                kit.pack, build.BuildOptions(kit.root / out, cache=c, watch=build.WatchHooks())
            ).errors

    def read(out: str) -> tuple:
        path = kit.root / out / build.CACHE_DIR / "mammoth-herd.marshal"
        return cachefile._load_marshalled(path, 3), cachefile._load_marshalled(
            cachefile._texts_path(path), 1
        )

    def stopping(at: int, asked: list[int]) -> Callable[[], bool]:  # true when asked the at-th time
        def stop() -> bool:
            asked.append(1)
            return len(asked) >= at

        return stop

    built()
    for c in caches.values():
        c.save(force=True)
    saved = outputs(kit.root / "a" / build.CACHE_DIR)
    first = read("a")
    assert first == read("b") and None not in first
    kit.edit(f"{M}/herd.yaml", "tab: 12", "tab: 14")
    built()
    c = caches["a"]
    texts_parts = -(-len(cachefile._recent(c.texts.entries, c.generation - cachefile.KEEP)) // 3)
    assert texts_parts > 1
    texts = cachefile._texts_path(c.path).name
    # in the text checks' file (its first part, its last), the cache's (its first, further on)
    for stop_at in (1, texts_parts, texts_parts + 1, texts_parts + 4):
        asked: list[int] = []
        c.save(force=True, stop=stopping(stop_at, asked))
        assert len(asked) == stop_at and c.dirty
        now, before = outputs(kit.root / "a" / build.CACHE_DIR), dict(saved)
        if stop_at > texts_parts:  # the text checks' file, written first, is the new one
            del now[texts], before[texts]
        assert now == before  # no scratch file either
    caches["a"].save(force=True)
    caches["b"].save(force=True)
    assert not caches["a"].dirty and read("a") == read("b") != first


def test_a_large_build_drops_its_rows_until_save_makes_them_again(kit, monkeypatch):
    """From LEAN drawings, the entries' rows are dropped while the PDF is written and made again
    from the drawings' ops when the file is saved: the file holds what it holds otherwise."""
    path = kit.root / "build" / build.CACHE_DIR / "mammoth-herd.marshal"
    assert kit.build().code == 0
    usual = cachefile._load_marshalled(path, 3)
    before = outputs(kit.root / "build" / "mammoth-herd")
    shutil.rmtree(kit.root / "build")
    monkeypatch.setattr(cache, "LEAN", 1)
    lean = Cache(kit.root / "build" / build.CACHE_DIR)
    rows_while_writing = []
    write_pdf = pdf.write_pdf

    def writing(*args, **kwargs):
        rows_while_writing.extend(e[1][3] for e in lean.drawings.values())
        return write_pdf(*args, **kwargs)

    monkeypatch.setattr(pdf, "write_pdf", writing)
    assert not build.build(kit.pack, build.BuildOptions(kit.root / "build", cache=lean)).errors
    assert rows_while_writing and all(rows is None for rows in rows_while_writing)
    assert outputs(kit.root / "build" / "mammoth-herd") == before
    saved = cachefile._load_marshalled(path, 3)
    assert usual is not None and saved is not None
    assert saved[1][1] == usual[1][1] and len(saved[1][1]) == len(lean.drawings)
    again = Cache(kit.root / "build" / build.CACHE_DIR)  # a new process, from the file
    assert not build.build(kit.pack, build.BuildOptions(kit.root / "build", cache=again)).errors
    assert again.stats["drawings compiled"] == 0 and again.stats["drawings reused"] > 0
    assert outputs(kit.root / "build" / "mammoth-herd") == before
    assert all(e[1][3] is None for e in again.drawings.values())  # lean again
    assert not build.build(
        kit.pack, build.BuildOptions(kit.root / "build", cache=again)
    ).errors  # the same cache
    assert again.stats["drawings compiled"] == 0


def test_a_cache_that_saves_later_keeps_its_rows(kit, monkeypatch):
    """watch saves when idle: its cache's entries keep their rows whatever the build's size."""
    monkeypatch.setattr(cache, "LEAN", 1)
    c = Cache(kit.root / "build" / build.CACHE_DIR, deferred=True)
    assert not build.build(kit.pack, build.BuildOptions(kit.root / "build", cache=c)).errors
    assert all(isinstance(e[1][3], tuple) for e in c.drawings.values())


def test_faces_alike_share_one_copy_of_their_svg(kit):
    """A deck's backs are one string, whether rendered or served from the cache."""
    for _ in range(2):  # rendered, then from the cache file in a new process
        c = Cache(kit.root / "build" / build.CACHE_DIR)
        result = build.build(kit.pack, build.BuildOptions(kit.root / "build", cache=c))
        faces = [f for fs in result.faces.values() for f in fs]
        backs = [f.svg for f in faces if f.group == "bonus-tiles" and f.side == "back"]
        assert len(backs) == 2 * 16 and len(set(backs)) < 16  # backs repeat
        assert len({id(svg) for svg in backs}) == len(set(backs))
        for f in faces:  # the cache's entry holds the face's own string
            assert any(e[1] is f.svg for e in c.faces.values())


def test_another_engine_never_reuses_an_entry(kit, monkeypatch):
    run = incremental(kit)
    run()
    monkeypatch.setattr(cachefile, "engine", lambda: b"pnpkit with other code or fonts")
    assert run()["faces rendered"] == 2 * FACES


def test_the_engine_names_the_installed_library_versions():
    """library_versions() reads what importlib.metadata would find, without importing it, and
    the zlib every kept stream is compressed by."""
    import importlib.metadata
    import zlib

    versions = dict(cachefile.library_versions())
    assert versions.pop("zlib") == zlib.ZLIB_RUNTIME_VERSION
    for name, version in versions.items():
        assert version == importlib.metadata.version(name), name


def test_the_engine_reads_the_packages_regular_files_alone(tmp_path):
    """An editor's dangling lock link (Emacs writes `.#name.py`) or a FIFO among pnpkit's files
    is no file of its code: the engine leaves it out instead of failing (or waiting) on it."""
    (tmp_path / "code.py").write_text("x = 1\n")
    (tmp_path / "fonts").mkdir()
    (tmp_path / "fonts" / "face.ttf").write_bytes(b"ttf")
    (tmp_path / ".#code.py").symlink_to("user@host.1234:1700000000")  # dangling
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "code.cpython-311.pyc").write_bytes(b"pyc")
    assert cachefile._package_files(tmp_path) == [
        tmp_path / "code.py",
        tmp_path / "fonts" / "face.ttf",
    ]


def test_no_pack_s_cache_file_is_another_pack_s_side_file():
    """The text checks' file beside a pack's cache file has a name no pack id gives its own
    (a '+'): pack 'foo.texts' would otherwise share pack 'foo''s file."""
    from pnpkit.pack.paths import name_problem

    main_file = Path("out/foo.marshal")
    for side in (cachefile._texts_path(main_file),):
        assert side.parent == main_file.parent and side.name.startswith("foo")
        assert name_problem(side.name.removesuffix(".marshal"), "pack id") is not None


def test_the_engine_changes_with_a_library_version(monkeypatch):
    """A new ReportLab may draw differently: it makes another engine, so no entry made by the
    old one is served."""
    import reportlab

    before = cachefile.engine.__wrapped__()
    monkeypatch.setattr(reportlab, "Version", reportlab.Version + ".post1")
    assert cachefile.engine.__wrapped__() != before
    monkeypatch.undo()
    assert cachefile.engine.__wrapped__() == before
    for module, attribute in (("PIL", "__version__"), ("zlib", "ZLIB_RUNTIME_VERSION")):
        with monkeypatch.context() as m:  # ReportLab encodes images through Pillow, streams zlib
            m.setattr(sys.modules[module], attribute, "0.0-other")
            assert cachefile.engine.__wrapped__() != before, module


def test_faces_with_problems_are_rendered_and_reported_every_time(kit):
    kit.edit(f"{M}/herd.yaml", 'en: "Mammoth herd"', 'en: "' + "Mammoth herd " * 40 + '"')
    c = Cache()
    first = build.validate(kit.pack, cache=c)
    second = build.validate(kit.pack, cache=c)
    assert [p for p in first.problems if p.rule == "text-fits"]
    assert second.problems == first.problems
    assert (
        c.stats["faces rendered"] == 1
    )  # the overflowing herd (en); every other face came from the cache


def test_a_face_from_the_cache_is_the_face_render_makes(kit):
    warm = Cache()
    build.validate(kit.pack, cache=warm)
    cached = build.validate(kit.pack, cache=warm)
    fresh = build.validate(kit.pack, cache=Cache())
    assert warm.stats["faces reused"] == 2 * FACES
    for lang in ("pl", "en"):
        for a, b in zip(cached.faces[lang], fresh.faces[lang], strict=True):
            fields = (
                "group",
                "item",
                "side",
                "count",
                "size",
                "bleed",
                "kind",
                "svg",
                "where",
                "template",
                "broken",
            )
            assert [getattr(a, f) for f in fields] == [getattr(b, f) for f in fields]


def test_the_key_covers_every_name_a_template_sees(kit, monkeypatch):
    """The key hashes the very context templates get: every name but text_box comes from it."""
    seen = set()
    real = jinja2.Template.render

    def spy(self, *args, **kwargs):
        seen.update(dict(*args, **kwargs))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(jinja2.Template, "render", spy)
    result = build.validate(kit.pack, cache=Cache())
    group = next(iter(result.pack.groups.values()))
    item = group.items[0]
    keyed = set(render.pack_context(result.pack, "pl")) | set(
        render.face_context(result.pack, group, item, "front", "pl")
    )
    assert seen - keyed == {"text_box"}


def test_a_change_in_data_only_a_template_reads_renders_again(kit):
    """Nothing the template sees escapes the key: a data value no field names still counts."""
    c = Cache()
    build.validate(kit.pack, cache=c)
    kit.edit(
        "components/mammoth-herd/game.yaml",
        "tool: {icon: tool, amount: 1}",
        "tool: {icon: tool, amount: 2}",
    )
    c.stats.clear()
    build.validate(kit.pack, cache=c)
    # data.bonuses, which only the bonus tiles' fronts read: those, in both languages
    assert c.stats["faces rendered"] == 2 * 16


def test_entries_unused_for_many_builds_are_dropped(tmp_path):
    root = colour_pack(tmp_path / "p", n=2)
    c = Cache(tmp_path / "cache")
    assert not build.validate(root, cache=c).errors
    c.save()
    (root / "cards.yaml").write_text(
        (root / "cards.yaml").read_text().replace("id: c0,", "id: c9,")
    )
    for _ in range(cachefile.KEEP):
        build.validate(root, cache=c)
        c.save()
    assert len(c.faces) == 4  # c9 and c1, front and back; c0 is gone
    again = Cache(tmp_path / "cache")
    build.validate(root, cache=again)
    assert again.stats.get("faces rendered", 0) == 0


def test_a_build_that_fails_late_leaves_the_last_one_as_it_was(kit, monkeypatch):
    """Unchanged SVGs are linked from the last build, not rewritten; a failure leaves it whole
    and no staging."""
    assert kit.build().code == 0
    out = kit.root / "build" / "mammoth-herd"
    before = outputs(out)
    kit.edit(
        f"{M}/tiles.yaml",
        "resource: wood, provenance: design}",
        "resource: gold, provenance: design}",
    )

    def broken(result, folder, previous=None):
        raise OSError("disk full")

    monkeypatch.setattr(preview, "index_page", broken)
    with pytest.raises(OSError):
        build.build(kit.pack, build.BuildOptions(kit.root / "build"))
    assert outputs(out) == before
    assert not list((kit.root / "build").glob(".*"))


def test_a_form_whose_characters_the_fonts_were_not_given_is_drawn_not_kept():
    """Keeping a form's bytes is only safe when the PDF's fonts were seeded with every character
    of the form: then its codes are known before it is drawn."""
    fonts.for_canvas()
    c = Cache()
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="20mm" height="10mm" viewBox="0 0 20 10">'
        '<text x="1" y="5" font-family="DejaVu Sans" font-size="3">{}</text></svg>'
    )
    seen, unseen = (c.drawing(svg.format(text), None) for text in ("AB", "AZ"))
    face = SimpleNamespace(drawing=seen)  # a PDF of one face, whose text is "AB"
    with cacheforms.pdf_forms(c, [SimpleNamespace(placements=[SimpleNamespace(face=face)])]):
        plan = face.drawing.plan
    assert face.drawing is seen and seen.plan is None  # bound in place while the PDF is written
    for drawing, kept in ((seen, True), (unseen, False)):
        canvas = Canvas(io.BytesIO(), invariant=1)
        drawing.plan = plan
        assert (drawing.form_key(canvas, (20.0, 10.0)) is not None) is kept


def test_a_kept_form_is_the_form_drawing_makes(tmp_path):
    """The bytes a form replays are the bytes ReportLab writes for it, in another document too."""
    fonts.for_canvas()
    c = Cache()
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="20mm" height="10mm" viewBox="0 0 20 10">'
        '<rect width="20" height="10" fill="#ff0000" fill-opacity="0.5"/>'
        '<text x="1" y="5" font-family="DejaVu Sans" font-size="3">Zażółć</text></svg>'
    )
    face = SimpleNamespace(
        drawing=c.drawing(svg, None),
        svg=svg,
        svg_key=svg,
        svg_key_is_name=False,
        full_size=(20.0, 10.0),
        scale=1.0,
    )
    made = []
    for n in range(3):
        with cacheforms.pdf_forms(c, [SimpleNamespace(placements=[SimpleNamespace(face=face)])]):
            canvas = Canvas(str(tmp_path / f"{n}.pdf"), invariant=1, pageCompression=1)
            canvas.doForm(face_form(canvas, face, {}))
            canvas.showPage()
            canvas.save()
        made.append((tmp_path / f"{n}.pdf").read_bytes())
        if n == 1:
            c.forms.clear()  # the third is drawn again
    assert c.stats == {"drawings compiled": 1, "forms drawn": 2, "forms reused": 1}
    assert made[0] == made[1] == made[2]
    assert b"%PDF-1.4" in made[1]  # the opacity's version, though the form was not drawn


def test_a_build_hands_the_collector_back_what_it_held(tmp_path):
    root = colour_pack(tmp_path / "p", n=2)
    c = Cache(tmp_path / "cache")
    result = build.validate(root, cache=c)
    assert gc.isenabled()
    held = gc.get_freeze_count()
    face = result.faces["en"][0]
    walked = gc.get_objects()  # the generations the collector walks: the frozen are not in them
    assert gc.is_tracked(face) and not any(o is face for o in walked)  # held for the build
    del walked
    build.validate(root, cache=c)  # a build that stopped before save(): begin() let go first
    assert gc.get_freeze_count() < 2 * held
    assert not build.build(root, build.BuildOptions(tmp_path / "out", cache=c)).errors
    assert gc.isenabled() and gc.get_freeze_count() == 0  # save() handed everything back


def test_a_template_is_compiled_once_per_process_until_its_source_changes(tmp_path, monkeypatch):
    """Each validation makes its own environment (watch: one per save); a template compiled in
    one with the same settings, name, file and source is not compiled again, a changed one is."""
    pack = colour_pack(tmp_path / "p", n=2)
    compiled: list[str | None] = []
    compile_ = jinja2.Environment.compile

    def counted(self, source, name=None, filename=None, raw=False, defer_init=False):
        compiled.append(name)
        return compile_(self, source, name, filename, raw, defer_init)

    monkeypatch.setattr(jinja2.Environment, "compile", counted)
    first = build.validate(pack)
    assert not first.errors
    build.forget_kept()  # as a new process starts
    assert not build.validate(pack).errors
    assert compiled and set(compiled) == {"solid.svg.j2", "_face.svg.j2"}
    compiled.clear()
    templates._FAMILIES.here().clear()  # the families found: looked for again
    again = build.validate(pack)
    assert compiled == [] and [f.svg for f in again.faces["en"]] == [
        f.svg for f in first.faces["en"]
    ]
    template = pack / "templates" / "solid.svg.j2"
    template.write_text(template.read_text().replace("<rect", "<!-- new -->\n<rect"))
    edited = build.validate(pack)
    assert compiled == ["solid.svg.j2"]
    assert all("<!-- new -->" in f.svg for f in edited.faces["en"])


def test_what_a_compile_reads_of_a_template_is_what_a_parse_of_its_own_says(kit, monkeypatch):
    """Sandbox._parse reads each tree a compile parses for template_family(), before Jinja's
    optimiser folds its constants (a constant's filter and test calls would be gone): the same
    as a parse of its own, for every template of the kits and one the optimiser rewrites."""
    from pnpkit.kinds.registry import default_registry

    (kit.root / "templates" / "folded.svg.j2").write_text(
        '{% import "_icons.svg.j2" as icons %}{{ "x" | upper }}{% if 1 is odd %}y{% endif %}'
    )
    pack, _ = schema.load_pack(kit.pack)
    build.forget_kept()  # as a new process: compiled
    env = sandbox.environment(pack, default_registry())
    names = [n for n in env.list_templates() if n.endswith(".j2")]
    assert "folded.svg.j2" in names and len(names) > 10
    for name in names:
        source = env.loader.get_source(env, name)[0]
        key = (_settings(env), source)
        monkeypatch.setattr(templates, "_PARSED", {})
        env.get_template(name)
        read = templates._PARSED[key]
        monkeypatch.setattr(templates, "_PARSED", {})
        own = _read_tree(key, jinja2.Environment._parse(env, source, None, None))
        assert read == own, name
    folded = _parsed(env, (kit.root / "templates" / "folded.svg.j2").read_text())
    assert "upper" in folded.filters and "odd" in folded.tests
    assert folded.references == ("_icons.svg.j2",)


def test_a_cold_build_parses_each_template_once_and_writes_what_it_wrote(
    kit, monkeypatch, tmp_path
):
    """A cold build parses a template's family for the faces' keys, then compiles it: the
    compile takes the tree parse() kept (Sandbox.parse), so each source is parsed once, and the
    kit is what a build whose compiles parse afresh writes, byte for byte."""
    parsed: list[str] = []
    parse = jinja2.Environment._parse

    def counted(self, source, name, filename):
        parsed.append(source)
        return parse(self, source, name, filename)

    def cold(out: Path) -> dict[Path, bytes]:
        build.forget_kept()  # as a new process: nothing parsed nor compiled
        monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
        assert not build.build(kit.pack, build.BuildOptions(out)).errors
        return {p.relative_to(out): p.read_bytes() for p in out.rglob("*.pdf")}

    monkeypatch.setattr(jinja2.Environment, "_parse", counted)
    once = cold(tmp_path / "once")
    assert parsed and len(parsed) == len(set(parsed))
    monkeypatch.setattr(sandbox.Sandbox, "parse", jinja2.Environment.parse)  # keeps no tree
    parsed.clear()
    assert cold(tmp_path / "twice") == once and len(parsed) > len(set(parsed))


def test_a_faces_key_describes_all_its_template_sees(kit):
    """The key's context is made in parts, once per item and group side: it must stay exactly
    repr(face_context()), whatever face_context() comes to hold."""
    pack, _ = schema.load_pack(kit.pack)
    c = Cache()
    c.begin(pack)
    for group in pack.groups.values():
        for item in group.items:
            for side in item.templates:
                for lang in pack.languages:
                    made = c.keys._context_repr(pack, group, item, side, lang)
                    assert made == repr(render.face_context(pack, group, item, side, lang))


def test_a_cache_that_cannot_be_saved_is_a_warning_and_the_build_stands(kit, monkeypatch):
    """pnpkit build reports a save of the cache that fails as a warning, the build still fine."""

    def failing_save(self, force=False):
        self.error = "could not save the build cache: disk full"

    monkeypatch.setattr(Cache, "save", failing_save)
    run = kit.run("build", str(kit.pack), "--out", "full")
    assert run.code == 0
    assert "pnpkit: warning: could not save the build cache: disk full" in run.err
    assert (kit.root / "full" / "mammoth-herd" / "mammoth-herd-en.pdf").is_file()


def test_a_large_build_saves_its_cache_with_its_spilled_rows_read_back(kit, monkeypatch):
    """A streamed build keeps its drawings' rows and forms' bytes in a spill file: the cache
    the command saves reads them back, the file build() saves itself."""
    monkeypatch.setattr(earlyforms, "STREAM_FROM", 1)
    monkeypatch.setattr(cachefile._Spill, "BUFFER", 4096)  # most of them written to the file
    assert kit.build().code == 0
    assert build.build(kit.pack, build.BuildOptions(kit.root / "here")).written
    build_cache, here = (
        cache_read_back(kit.root / out / build.CACHE_DIR / "mammoth-herd.marshal")
        for out in ("build", "here")
    )
    assert build_cache == here and here[1]  # drawings among them
