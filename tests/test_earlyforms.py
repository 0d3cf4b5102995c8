"""A large build draws each face's PDF form as soon as the face is checked and lets its drawing
go (earlyforms.py): the kit is byte for byte the kit a build holding every drawing writes."""

from __future__ import annotations

import errno
import gc
import hashlib
import os
import shutil
import weakref
from collections import Counter
from pathlib import Path

import pytest
from markupsafe import Markup
from reportlab.pdfbase import pdfdoc

from conftest import cache_read_back
from pnpkit.build import cachefile, cacheforms, earlyforms, preview
from pnpkit.build import pipeline as build
from pnpkit.build.cache import Cache
from pnpkit.pdf import forms, pages
from pnpkit.pdf import writer as pdf
from pnpkit.pdf.forms import EncodedForm, form_name
from pnpkit.svg.compiler import compile_svg

M = "components/mammoth-herd"
TILE = "templates/mammoth-herd/bonus-front.svg.j2"  # the last faces built are bonus tiles
TILE_LINE = "{{ icons.amount(all.amount, all.icon, face.w / 2 - 3.5, face.h / 2 + 7, 7) }}"
_PWRITE = os.pwrite  # the real one, whatever a test puts in its place


def outputs(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def kit(breakable):
    """The Mammoth Herd kit without its kit guide, whose cover draws a few faces mid-page, where
    a form drawn ahead is not taken: in a streamed build each of those is drawn twice (the
    bytes are the same: test_a_streamed_build_with_the_guide_writes_the_same_kit)."""
    copy = breakable("mammoth-herd")
    game = copy.root / "components" / "mammoth-herd" / "game.yaml"
    text = game.read_text(encoding="utf-8")
    game.write_text(text[: text.index("\nguide:")] + "\n", encoding="utf-8")
    return copy


def test_a_streamed_build_with_the_guide_writes_the_same_kit(breakable, monkeypatch):
    guided = breakable("mammoth-herd")
    held, _ = kit_built(guided, "held", False, monkeypatch)
    streamed, _ = kit_built(guided, "streamed", True, monkeypatch)
    assert streamed == held


def kit_built(kit, out: str, streamed: bool, monkeypatch) -> tuple[dict[str, bytes], Cache]:
    """The kit built from nothing into out, streamed in batches of 4 faces (or not at all)."""
    monkeypatch.setattr(earlyforms, "STREAM_FROM", 1 if streamed else 10**9)
    monkeypatch.setattr(earlyforms, "BATCH", 4)
    shutil.rmtree(kit.root / out, ignore_errors=True)
    c = Cache(kit.root / out / build.CACHE_DIR)
    result = build.build(kit.pack, build.BuildOptions(kit.root / out, cache=c))
    assert not result.errors, [str(p) for p in result.errors]
    return outputs(kit.root / out / "mammoth-herd"), c


@pytest.fixture
def counted(monkeypatch):
    """How many forms the PDFs drew, and how many released drawings were compiled again."""
    counts = {"drawn": 0, "again": 0}
    draw_form, compiler = forms._draw_form, build._compiler

    def drawing(*args):
        counts["drawn"] += 1
        return draw_form(*args)

    def compiling(pack):
        again = compiler(pack)

        def counting(svg):
            counts["again"] += 1
            return again(svg)

        return counting

    monkeypatch.setattr(forms, "_draw_form", drawing)
    monkeypatch.setattr(build, "_compiler", compiling)
    return counts


def test_a_streamed_build_writes_the_kit_a_build_holding_every_drawing_writes(
    kit, monkeypatch, counted
):
    held, held_cache = kit_built(kit, "held", False, monkeypatch)
    drawn_held = counted["drawn"]
    streamed, c = kit_built(kit, "streamed", True, monkeypatch)
    assert streamed == held  # PDFs, SVGs, preview page
    drawings = list(c._memo.drawings.values())
    released = [d for d in drawings if not d.held]
    assert len(released) >= len(drawings) - 2, "every drawing without images goes"
    assert (
        counted["drawn"] - drawn_held == drawn_held
    )  # each form once: early, or in the PDF for the rest
    assert counted["again"] == 0  # no face's codes shifted: none compiled again
    entries = [e[1][3] for e in c.drawings.values()]
    assert entries and all(isinstance(rows, cachefile.Spilled) for rows in entries)  # on disk
    _, _, saved, _ = cachefile._read(c.path)  # the rows, read back from the spill file, saved
    _, _, saved_held, _ = cachefile._read(held_cache.path)
    assert saved.keys() == c.drawings.keys() == saved_held.keys()
    for key, entry in saved.items():
        rows = entry[1][3]
        assert isinstance(rows, bytes) and cachefile._unpack_rows(rows) == saved_held[key][1][3]
    forms = [e[1] for e in c.forms.values()]
    assert forms and all(isinstance(data, cachefile.Spilled) for data in forms)  # on disk too
    # the PDFs above read them back when saved; the cache file holds them as a held build's
    assert cachefile._read(c.path)[3] == cachefile._read(held_cache.path)[3]
    assert c._spill.file is None  # let go once saved: nothing reads it after
    with pytest.raises(ValueError):
        c._spill.read(entries[0])


def test_a_rebuild_from_a_streamed_builds_cache_compiles_nothing(kit, monkeypatch):
    first, _ = kit_built(kit, "streamed", True, monkeypatch)
    again = Cache(kit.root / "streamed" / build.CACHE_DIR)  # a new process, from the file
    assert not build.build(kit.pack, build.BuildOptions(kit.root / "streamed", cache=again)).errors
    assert again.stats["drawings compiled"] == 0 and again.stats["drawings reused"] > 0
    assert again.stats["forms drawn"] == 0
    assert outputs(kit.root / "streamed" / "mammoth-herd") == first
    unstreamed = Cache(kit.root / "streamed" / build.CACHE_DIR)  # the packed rows, read back
    monkeypatch.setattr(earlyforms, "STREAM_FROM", 10**9)
    assert not build.build(
        kit.pack, build.BuildOptions(kit.root / "streamed", cache=unstreamed)
    ).errors
    assert unstreamed.stats["drawings compiled"] == 0
    assert outputs(kit.root / "streamed" / "mammoth-herd") == first


def test_a_character_first_seen_late_has_the_shifted_forms_drawn_again(kit, monkeypatch, counted):
    """A character first used by the last faces sorts before the characters of earlier ones:
    their forms, drawn before it was known, have other codes in the PDF, so their drawings are
    compiled and drawn again there, and the PDF is still the one a build holding them writes."""
    euro = '<text x="9" y="9" font-size="3" font-weight="bold">€</text>'  # sorts before its →
    kit.edit(TILE, TILE_LINE, TILE_LINE + '{% if item.id == "bonus-16" %}' + euro + "{% endif %}")
    held, _ = kit_built(kit, "held", False, monkeypatch)
    streamed, _ = kit_built(kit, "streamed", True, monkeypatch)
    assert counted["again"] > 0
    assert streamed == held


def test_a_released_drawing_makes_the_same_ops_again(kit, monkeypatch):
    monkeypatch.setattr(earlyforms, "STREAM_FROM", 10**9)
    c = Cache()
    result = build.validate(kit.pack, cache=c, code=build.Code(True))
    faces = [f for f in result.faces["en"] if isinstance(f.drawing, cacheforms.FormDrawing)]
    d = faces[0].drawing
    ops, chars = d.ops, d.chars
    again = build._compiler(result.pack)
    d.release(lambda: again(faces[0].svg))
    assert not d.held and d._shaped is None
    assert d.ops == ops and d.chars == chars
    assert d.ops == compile_svg(faces[0].svg, lambda href: None).ops


def test_the_faces_of_a_streamed_build_do_not_keep_its_cache(kit, monkeypatch):
    """The faces outlive the build (the command line checks the PDFs, the exports draw them):
    a released drawing makes its ops again from its SVG without holding on to the cache, whose
    drawings' rows and forms' bytes are then let go with the build."""
    monkeypatch.setattr(earlyforms, "STREAM_FROM", 1)
    monkeypatch.setattr(earlyforms, "BATCH", 4)
    c = Cache(kit.root / "out" / build.CACHE_DIR)
    result = build.build(kit.pack, build.BuildOptions(kit.root / "out", cache=c))
    assert result.written
    faces = [f for f in result.faces["en"] if isinstance(f.drawing, cacheforms.FormDrawing)]
    released = [f for f in faces if not f.drawing.held]
    assert released
    gone = weakref.ref(c)
    del c
    gc.collect()
    assert gone() is None
    face = released[-1]
    assert face.drawing.ops == compile_svg(face.svg, lambda href: None).ops


def test_a_streamed_build_with_an_error_writes_nothing(kit, monkeypatch):
    """An error in a late batch: the forms drawn before it are only in the cache (not saved),
    the previous kit stays whole and no staging folder or temporary file is left."""
    before, _ = kit_built(kit, "build", True, monkeypatch)
    kit.edit(TILE, TILE_LINE, TILE_LINE + '{% if item.id == "bonus-16" %}<mask/>{% endif %}')
    monkeypatch.setattr(earlyforms, "STREAM_FROM", 1)
    result = build.build(
        kit.pack,
        build.BuildOptions(kit.root / "build", cache=Cache(kit.root / "build/pnpkit-cache")),
    )
    assert result.errors and not result.written
    assert outputs(kit.root / "build" / "mammoth-herd") == before
    assert sorted(p.name for p in (kit.root / "build").iterdir()) == [
        "mammoth-herd",
        "pnpkit-cache",
    ]
    assert not [p for p in (kit.root / "build").rglob("*") if p.name.endswith(".tmp")]


def test_pdfs_written_a_piece_at_a_time_are_those_reportlab_writes_whole(kit, monkeypatch):
    """pdf.save() writes each object as it is formatted: the kit (its PDFs, its page) is the
    one Canvas.save() writes, formatting the whole document first, and ReportLab's module is
    never changed, not even while a document is saved (another thread may save one then)."""
    collector = pdfdoc.PDFFile
    streamed = pages._streamed_file
    seen = []

    def watched(f):
        made = streamed(f)

        class Seeing(made):  # type: ignore[misc, valid-type]
            def add(self, s):
                seen.append(pdfdoc.PDFFile is collector)
                return super().add(s)

        return Seeing

    monkeypatch.setattr(pdf, "_streamed_file", watched)
    pieces, _ = kit_built(kit, "pieces", True, monkeypatch)
    assert seen and all(seen) and pdfdoc.PDFFile is collector
    monkeypatch.setattr(pdf, "save", lambda canvas, path: canvas.save())
    whole, _ = kit_built(kit, "whole", True, monkeypatch)
    assert pieces == whole and sum(name.endswith(".pdf") for name in whole) >= 2


@pytest.mark.parametrize("tail", ["", "\n", "\n\n", "x\n", Markup("<b>\n")])
def test_the_preview_page_from_pieces_is_the_page_rendered_whole(tail, tmp_path):
    """preview._write_page hashes and writes the body a piece at a time, its line ends held
    back by _trimmed: the bytes are those of the body joined, stripped of its last line ends,
    hashed and put in the page whole."""
    body = ["<main>", Markup("<i>é</i>\n"), "<p>Zażółć ", "gęślą", " 😀 jaźń", "</main>\n", tail]
    body += ["\n", ""]  # a figure is Markup: the text after its line end is not escaped
    joined = "".join(body).rstrip("\n")
    build_id = hashlib.sha256(f"Deck · 3 faces\n{joined}".encode()).hexdigest()[:16]
    page = preview._templates().get_template("page.html.j2")
    whole = page.render(
        build=build_id, state_url=preview.STATE_URL, title="Deck · 3 faces", body=Markup(joined)
    )
    preview._write_page(tmp_path / "index.html", "Deck · 3 faces", preview._trimmed(body))
    assert (tmp_path / "index.html").read_bytes() == whole.encode("utf-8")


def test_a_size_refused_in_a_late_batch_gives_the_problems_of_a_build_checking_all_at_once(
    kit, monkeypatch
):
    """text_box() refusing a size turns the size checks off for the whole language: when the
    last batch is the first to refuse one, the batches before are checked again without them."""
    small = "{{ text_box('tiny', 2, 2, 20, 5, size=2) if item.id == 'bonus-16' else '' }}"
    early = '{% if item.id == "bonus-01" %}<text x="9" y="9" font-size="1">x</text>{% endif %}'
    kit.edit(TILE, TILE_LINE, TILE_LINE + small + early)  # a size measured in the first batch
    found = {}
    for streamed in (False, True):
        monkeypatch.setattr(earlyforms, "STREAM_FROM", 1 if streamed else 10**9)
        monkeypatch.setattr(earlyforms, "BATCH", 4)
        result = build.build(kit.pack, build.BuildOptions(kit.root / "build", cache=Cache()))
        assert not result.written
        found[streamed] = [str(p) for p in result.problems]
    assert any("[font-size]" in p for p in found[True])
    assert found[True] == found[False]


def test_ctrl_c_during_a_streamed_build_leaves_the_last_kit_and_no_file(kit, monkeypatch):
    before, _ = kit_built(kit, "build", True, monkeypatch)
    listing = sorted(p.relative_to(kit.root).as_posix() for p in kit.root.rglob("*"))
    add, batches = earlyforms.EarlyForms.add, []

    def interrupted(self, faces):
        batches.append(len(faces))
        if len(batches) == 3:
            raise KeyboardInterrupt
        add(self, faces)

    monkeypatch.setattr(earlyforms.EarlyForms, "add", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build.build(
            kit.pack,
            build.BuildOptions(kit.root / "build", cache=Cache(kit.root / "build/pnpkit-cache")),
        )
    assert outputs(kit.root / "build" / "mammoth-herd") == before
    assert sorted(p.relative_to(kit.root).as_posix() for p in kit.root.rglob("*")) == listing


def test_a_build_followed_by_exports_keeps_its_drawings(kit, monkeypatch):
    """--profile and --png draw every face again: a large build they follow releases nothing."""
    monkeypatch.setattr(earlyforms, "STREAM_FROM", 1)
    c = Cache()
    result = build.build(
        kit.pack, build.BuildOptions(kit.root / "build", cache=c, keep_drawings=True)
    )
    assert result.written
    drawings = [f.drawing for faces in result.faces.values() for f in faces]
    assert drawings and all(d.held for d in drawings if isinstance(d, cacheforms.FormDrawing))
    assert c.stats["forms drawn"] > 0  # in the PDFs, as before


def test_a_spilled_form_not_read_back_fails_the_pdf_as_a_full_disk_does():
    """A form's bytes cannot be drawn again when the PDF is saved: a spill file that cannot give
    them back (closed, unreadable) fails the build (OSError, which the command line reports),
    never writes other bytes."""
    spill = cachefile._Spill()
    spilled = spill.keep(b"form bytes")
    assert isinstance(spilled, cachefile.Spilled)
    assert EncodedForm(cachefile._ReadBack(spill, spilled)).format(None) == b"form bytes"
    spill.close()
    with pytest.raises(OSError, match="PDF form"):
        EncodedForm(cachefile._ReadBack(spill, spilled)).format(None)


class FillingDisk:
    """os.pwrite where TMPDIR's unnamed files (spill files) have `room` bytes left: the write
    that reaches the end is cut short, the next is refused (ENOSPC); other files have room.
    `written`: the bytes the unnamed files took."""

    def __init__(self, room: float) -> None:
        self.room, self.written = room, 0
        self.refused: Counter[int] = Counter()  # writes refused, by file
        self.pwrite = _PWRITE

    def __call__(self, fd: int, data: bytes, at: int) -> int:
        if not os.readlink(f"/proc/self/fd/{fd}").endswith(" (deleted)"):
            return self.pwrite(fd, data, at)
        if self.room <= 0:
            self.refused[fd] += 1
            raise OSError(errno.ENOSPC, "No space left on device")
        done = self.pwrite(fd, bytes(data[: int(min(self.room, len(data)))]), at)
        self.room -= done
        self.written += done
        return done


needs_proc = pytest.mark.skipif(
    not Path("/proc/self/fd").is_dir(), reason="FillingDisk tells spill files by /proc/self/fd"
)


@needs_proc
def test_spilled_bytes_read_back_from_the_file_from_memory_or_from_both(monkeypatch):
    spill = cachefile._Spill()
    spill.BUFFER = 20  # written two or three at a time
    disk = FillingDisk(room=50)  # the third write is cut short, inside a kept item
    monkeypatch.setattr(os, "pwrite", disk)
    items = [b"item %03d" % n for n in range(12)]  # 8 bytes each
    kept = [spill.keep(item) for item in items]
    assert disk.written == 50 and sum(disk.refused.values()) == 1  # the rest of it waits
    assert all(isinstance(k, cachefile.Spilled) for k in kept[:9]), "kept before the disk filled"
    assert kept[9:] == items[9:]  # kept after: in memory, never written again
    straddling = next(k for k in kept if k.at < 50 < k.at + k.size)
    assert spill.read(straddling) == items[kept.index(straddling)]  # from the file and memory
    read = [spill.read(k) if isinstance(k, cachefile.Spilled) else k for k in kept]
    assert read == items
    spill.close()
    with pytest.raises(ValueError):
        spill.read(kept[0])
    assert spill.keep(b"later") == b"later"  # after close(): in memory, never in another file


@needs_proc
def test_a_full_tmpdir_costs_a_large_build_nothing(kit, monkeypatch):
    """TMPDIR fills up while a large build spills its drawings' rows, forms' bytes and faces'
    SVG texts: what the disk refused stays in memory (no file is asked twice), and the kit and
    the cache are the kit and the cache of a build with room."""
    monkeypatch.setattr(cachefile._Spill, "BUFFER", 4096)  # written often: the disk fills mid-build
    roomy = FillingDisk(room=float("inf"))
    monkeypatch.setattr(os, "pwrite", roomy)
    kit_roomy, cache_roomy = kit_built(kit, "roomy", True, monkeypatch)
    assert roomy.written > 20_000
    full = FillingDisk(room=roomy.written // 2 + 1)
    monkeypatch.setattr(os, "pwrite", full)
    kit_full, cache_full = kit_built(kit, "full", True, monkeypatch)
    assert full.refused and set(full.refused.values()) == {1}
    assert full.written == roomy.written // 2 + 1
    assert kit_full == kit_roomy  # PDFs, SVGs, preview page
    assert cache_read_back(cache_full.path) == cache_read_back(cache_roomy.path)


def test_a_streamed_builds_faces_read_their_svg_back_as_rendered(kit, monkeypatch):
    """A streamed build's faces let their SVG texts go once drawn (cachefile.KeptFace): read back
    from the file, each is the text a build holding every face renders, the cache file holds
    the faces table that build saves, and the kit (SVG files, preview, PDFs) is the same."""
    held_kit, held_cache = kit_built(kit, "held", False, monkeypatch)
    held = build.validate(kit.pack, code=build.Code(True))
    monkeypatch.setattr(earlyforms, "STREAM_FROM", 1)
    c = Cache(kit.root / "streamed" / build.CACHE_DIR)
    result = build.build(kit.pack, build.BuildOptions(kit.root / "streamed", cache=c))
    assert result.written and outputs(kit.root / "streamed" / "mammoth-herd") == held_kit
    for lang, faces in result.faces.items():
        assert all(isinstance(f, cachefile.KeptFace) and f._text is None for f in faces)  # in file
        assert [f.svg for f in faces] == [f.svg for f in held.faces[lang]]
        assert all(f.svg_key == form_name(f.svg) for f in faces)
    assert cachefile._read(c.path)[1] == cachefile._read(held_cache.path)[1]


def test_a_kept_face_reads_its_svg_back_and_a_lost_one_fails_as_a_full_disk_does():
    """A face's text read back is the text kept, wherever the file's position stands (a forked
    child reads through the same file); faces alike are saved as one string (marshal writes it
    once); lost with the file, it fails the build (OSError), and the cache file leaves the face
    out (rendered again next time)."""
    from pnpkit.errors import Location

    store = cachefile._Spill()
    svg = '<svg xmlns="http://www.w3.org/2000/svg">Zażółć</svg>'

    def face() -> cachefile.KeptFace:
        return cachefile.KeptFace(
            "g", "i", "front", 1, (10.0, 10.0), 0.0, "card", svg, Location("f")
        )

    first, alike = face(), face()
    assert first.svg == svg and first.svg_key == form_name(svg)
    store.BUFFER = 1  # written at once: read back from the file
    store.keep(b"before it")
    first.keep(store, {})
    alike.keep(store, {})  # written again: nothing says where a text alike is
    store.keep(b"more after it")
    store.file.seek(3)
    assert first._text is None and first.svg == svg == alike.svg and store.file.tell() == 3
    table = cachefile._Texted({b"k": [1, first], b"j": [1, alike]}, store)
    assert table.get(b"k") == [1, svg] == table.get(b"j")
    assert table[b"k"][1] is table[b"j"][1]  # one string for both
    store.close()
    with pytest.raises(OSError, match="SVG"):
        _ = first.svg
    assert cachefile._Texted({b"k": [1, first]}, store).get(b"k") is None
