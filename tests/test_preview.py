"""The preview page, build/<game>/index.html: every face with its id, count and warnings, links
to the PDFs; and, in a real headless browser, the page served by watch --serve loads, shows
every face, and follows the pack as it is edited and broken."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest
from PIL import Image

from browser import Browser, needs_chromium
from conftest import ROOT, colour_pack, write_pack
from pnpkit.build import pipeline as build
from pnpkit.build import preview
from pnpkit.build.cache import Cache
from pnpkit.commands.serve import Server
from pnpkit.commands.watch import Watcher

M = "components/mammoth-herd"


class Page(HTMLParser):
    """The parts of index.html a person looks at."""

    def __init__(self, text: str):
        super().__init__()
        self.figures: dict[str, dict] = {}  # figure id -> {id, count, images, notes}
        self.links: list[str] = []
        self.general: list[str] = []
        self._figure = None
        self._in = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self._in.append((tag, a.get("class", "")))
        if tag == "figure":
            self._figure = self.figures.setdefault(
                a["id"],
                {"id": a["data-id"], "count": int(a["data-count"]), "images": [], "notes": []},
            )
        elif tag in ("img", "iframe") and self._figure is not None:
            self._figure["images"].append(a["src"])
        elif tag == "a" and "pdf" in a.get("class", ""):
            self.links.append(a["href"])

    def handle_endtag(self, tag):
        while self._in and self._in.pop()[0] != tag:
            pass
        if tag == "figure":
            self._figure = None

    def handle_data(self, data):
        if any(tag == "li" for tag, _ in self._in):
            if self._figure is not None:
                self._figure["notes"].append(data)
            elif any(cls == "general" for _, cls in self._in):
                self.general.append(data)


def test_the_page_shows_every_face_with_its_id_and_count_and_links_the_pdfs(kit):
    assert kit.build().code == 0
    out = kit.root / "build" / "mammoth-herd"
    page = Page((out / "index.html").read_text(encoding="utf-8"))
    assert sorted(page.links) == ["mammoth-herd-en.pdf", "mammoth-herd-pl.pdf"]
    assert all((out / link).is_file() for link in page.links)
    result = build.validate(kit.pack)
    for lang, faces in result.faces.items():
        for face in faces:
            figure = page.figures[f"{lang}-{face.item}"]
            assert figure["id"] == face.item and figure["count"] == face.count
            src = f"svg/{lang}/{face.group}/{face.item}-{face.side}.svg"
            [shown] = [s for s in figure["images"] if s.split("?")[0] == src]
            assert (out / src).read_text(encoding="utf-8") == face.svg
    assert sum(len(f["images"]) for f in page.figures.values()) == sum(
        len(f) for f in result.faces.values()
    )


def _checked_pack(tmp_path: Path, more_checks: str = "") -> Path:
    """components/probe: three cards, each warned by check PR-1 (its colour), and more_checks."""
    root = colour_pack(tmp_path / "components" / "probe", n=3)
    with open(root / "game.yaml", "a") as f:
        f.write(
            "checks:\n"
            "  - {rule: fields, id: PR-1, group: cards, "
            "require: {colour: ['#000000']}, level: warning}\n" + more_checks
        )
    return root


def test_warnings_stand_next_to_their_item_and_the_rest_on_top(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _checked_pack(tmp_path, "  - {rule: count, id: PR-2, group: cards, exact: 4, level: warning}\n")
    result = build.build(Path("components/probe"), build.BuildOptions(Path("build")))
    assert not result.errors and len(result.problems) == 4
    page = Page((tmp_path / "build" / "probe" / "index.html").read_text(encoding="utf-8"))
    for i in range(3):
        notes = " ".join(page.figures[f"en-c{i}"]["notes"])
        assert f"item 'c{i}': 'colour' is" in notes and "[PR-1]" in notes
    assert len(page.general) == 1 and "the game needs exactly 4 [PR-2]" in page.general[0]


def test_a_long_lived_process_makes_only_the_figures_that_changed(tmp_path, monkeypatch):
    """watch writes the page of each rebuild taking over the figures of the last one that show
    the same; the page is byte for byte the one a new process writes."""
    monkeypatch.chdir(tmp_path)
    root = _checked_pack(tmp_path)
    c = Cache(deferred=True)  # watch's
    assert not build.build(root, build.BuildOptions(Path("build"), cache=c)).errors
    cards = (root / "cards.yaml").read_text(encoding="utf-8")
    (root / "cards.yaml").write_text(cards.replace("c1", "c1x", 1), encoding="utf-8")
    assert not build.build(root, build.BuildOptions(Path("build"), cache=c)).errors
    assert preview._FIGURES.here().rendered == 1  # c1x's figure: its id and its note changed
    assert preview._FIGURES.here().imaged == 2  # c1x's front and back: the others' are taken over
    page = (tmp_path / "build" / "probe" / "index.html").read_bytes()
    assert "item 'c1x': 'colour' is" in " ".join(Page(page.decode()).figures["en-c1x"]["notes"])
    build.forget_kept()  # as a new process starts
    assert not build.build(root, build.BuildOptions(Path("fresh"), cache=Cache())).errors
    assert preview._FIGURES.here().rendered == 3
    assert preview._FIGURES.here().imaged == 6
    assert (tmp_path / "fresh" / "probe" / "index.html").read_bytes() == page


def test_figures_given_to_the_page_a_few_at_a_time_make_the_page_of_one_at_a_time(
    tmp_path, monkeypatch
):
    """The page's figures are joined into pieces (FIGURES_JOINED) before its template loops over
    them: the page is byte for byte the one written a figure at a time, whatever the pieces' size
    and wherever a group's figures end within one."""
    monkeypatch.chdir(tmp_path)
    pages = {}
    for joined in (1, 2, 3, preview.FIGURES_JOINED):
        monkeypatch.setattr(preview, "FIGURES_JOINED", joined)
        build.forget_kept()  # as a new process starts
        out = tmp_path / f"out{joined}"
        assert not build.build(ROOT / M, build.BuildOptions(out, cache=Cache(out / "cache"))).errors
        pages[joined] = (out / "mammoth-herd" / "index.html").read_bytes()
    assert len(set(pages.values())) == 1
    assert len(Page(pages[1].decode()).figures) > 2 * 3


@pytest.mark.parametrize("change", ["  safe: 6mm\n", "  bleed: 2mm\n"])
def test_a_face_image_is_taken_over_only_while_all_it_shows_is_the_same(
    tmp_path, monkeypatch, change
):
    """The safe area and the bleed change the image's insets (the SVG may stay the same)."""
    monkeypatch.chdir(tmp_path)
    root = _checked_pack(tmp_path)
    c = Cache(deferred=True)  # watch's
    assert not build.build(root, build.BuildOptions(Path("build"), cache=c)).errors
    game = (root / "game.yaml").read_text(encoding="utf-8")
    (root / "game.yaml").write_text(game.replace("  bleed: 3mm\n", change), encoding="utf-8")
    assert not build.build(root, build.BuildOptions(Path("build"), cache=c)).errors
    assert preview._FIGURES.here().imaged == 6
    page = (tmp_path / "build" / "probe" / "index.html").read_bytes()
    build.forget_kept()  # as a new process starts
    assert not build.build(root, build.BuildOptions(Path("fresh"), cache=Cache())).errors
    assert (tmp_path / "fresh" / "probe" / "index.html").read_bytes() == page


def art_pack(tmp_path: Path) -> Path:
    """components/art: one card whose face draws art/p.png (a green 4x4 PNG)."""
    root = write_pack(
        tmp_path / "components" / "art",
        {
            "game.yaml": "name: Art\nlanguages: [en]\nplayers: {min: 1, max: 1}\n",
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n  "
            "front: art.svg.j2\n  items:\n    - id: one\n",
            "templates/art.svg.j2": '{% extends "_face.svg.j2" %}{% block content %}'
            '<image href="art/p.png" x="0" y="0" width="10" height="10"/>{% endblock %}',
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text(),
        },
    )
    (root / "art").mkdir()
    Image.new("RGB", (4, 4), (0, 128, 0)).save(root / "art" / "p.png")
    return root


def test_a_face_that_draws_art_is_previewed_linking_one_copy_of_the_art(tmp_path, monkeypatch):
    """A browser draws an SVG shown as an image without loading the files it names: such a face
    is shown in a sandboxed frame, from a copy that links to the art copied beside it."""
    monkeypatch.chdir(tmp_path)
    root = art_pack(tmp_path)
    assert not build.build(Path("components/art"), build.BuildOptions(Path("build"))).errors
    out = tmp_path / "build" / "art"
    [src] = Page((out / "index.html").read_text(encoding="utf-8")).figures["en-one"]["images"]
    preview = (out / src.split("?")[0]).read_text(encoding="utf-8")
    [art] = (out / "preview" / "art").iterdir()
    assert src.startswith("preview/") and f'href="../../art/{art.name}"' in preview
    assert art.read_bytes() == (root / "art" / "p.png").read_bytes()
    assert '<iframe sandbox src="preview/en/cards/one-front.svg' in (out / "index.html").read_text(
        encoding="utf-8"
    )
    assert (out / "svg" / "en" / "cards" / "one-front.svg").read_text(encoding="utf-8").count(
        'href="art/p.png"'
    ) == 1


def test_the_packs_own_text_is_escaped_on_the_page(tmp_path):
    """The page is a Jinja template with autoescape: a pack's name and its problems are text."""
    root = colour_pack(tmp_path / "p", n=1)
    (root / "game.yaml").write_text(
        (root / "game.yaml")
        .read_text()
        .replace("name: Probe", "name: '<script>alert(1)</script> & \"Co\"'")
    )
    with open(root / "game.yaml", "a") as f:
        f.write(
            "checks:\n  - {rule: count, id: '<b>X</b>', group: cards, exact: 2, level: warning}\n"
        )
    assert not build.build(root, build.BuildOptions(tmp_path / "out")).errors
    text = (tmp_path / "out" / "p" / "index.html").read_text(encoding="utf-8")
    assert text.count("<script>") == 1 and "<b>X</b>" not in text  # only the page's own script
    assert "<h1>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;Co&#34;</h1>" in text
    assert "[&lt;b&gt;X&lt;/b&gt;]</li>" in text


def test_a_rebuild_links_the_preview_files_that_did_not_change(tmp_path, monkeypatch):
    """index.html, a face's preview copy and the art copy are linked from the previous kit when
    their bytes are the same (the same file, not written again); changed art is written anew."""
    monkeypatch.chdir(tmp_path)
    root = art_pack(tmp_path)
    out = tmp_path / "build" / "art"

    def inodes() -> dict[str, int]:
        assert not build.build(Path("components/art"), build.BuildOptions(Path("build"))).errors
        files = [
            out / "index.html",
            out / "preview" / "en" / "cards" / "one-front.svg",
            *(out / "preview" / "art").iterdir(),
        ]
        return {p.relative_to(out).as_posix(): p.stat().st_ino for p in files}

    first = inodes()
    assert inodes() == first
    Image.new("RGB", (4, 4), (0, 0, 128)).save(root / "art" / "p.png")  # same name, new bytes
    again = inodes()
    assert again["index.html"] == first["index.html"]  # the page names the art, not its bytes
    art = [name for name in again if name.startswith("preview/art/")]
    assert len(art) == 1 and again[art[0]] != first[art[0]]
    assert (out / art[0]).read_bytes() == (root / "art" / "p.png").read_bytes()


def test_the_page_is_the_same_for_the_same_build(tmp_path):
    root = colour_pack(tmp_path / "p", n=2)
    for out in ("a", "b"):
        assert not build.build(root, build.BuildOptions(tmp_path / out, cache=Cache())).errors
    assert (tmp_path / "a" / "p" / "index.html").read_bytes() == (
        tmp_path / "b" / "p" / "index.html"
    ).read_bytes()


def _files(folder: Path) -> dict[str, bytes]:
    return {str(f.relative_to(folder)): f.read_bytes() for f in folder.rglob("*") if f.is_file()}


# ---------------------------------------------------------------- a real browser

SHOWN = """(async () => {
  const images = [...document.querySelectorAll('a.face img')];
  images.forEach(img => { img.loading = 'eager'; });
  await Promise.all(images.map(img => img.decode().catch(() => null)));
  return {faces: images.length, drawn: images.filter(img => img.complete && img.naturalWidth > 0).length,
          items: document.querySelectorAll('figure.item').length};
})()"""  # noqa: E501 (data: markup and YAML kept as written)


@needs_chromium
def test_the_served_page_loads_shows_every_face_and_follows_each_rebuild(kit):
    watcher = Watcher(kit.pack, Path("build"))
    assert watcher.rebuild().ok
    server = Server(watcher, port=0)
    browser = Browser()
    try:
        browser.open(server.url)
        shown = browser.wait_for(SHOWN)
        assert shown == {"faces": 2 * 35, "drawn": 2 * 35, "items": 2 * 18}
        assert browser.wait_for("document.getElementById('status').textContent.includes('build 1')")

        front = "document.querySelector('[data-face=\"en/reference/reference/front\"] img').src"
        before = browser.js(front)
        kit.edit(f"{M}/reference.yaml", "- id: reference", "- id: reference\n      count: 3")
        kit.edit(
            f"{M}/reference.yaml",
            "Stand the herd next to the stack.",
            "Stand the herd beside the stack.",
        )
        watcher.rebuild()  # as the watch loop does after a save
        assert browser.wait_for(
            "document.querySelector('#en-reference .count')?.textContent === '×3'"
        )
        assert browser.js(front) != before  # the new face, not the one the browser had
        assert browser.wait_for(SHOWN)["drawn"] == 2 * 35

        kit.edit(f"{M}/herd.yaml", "tab: 12", "tab: no")
        watcher.rebuild()
        problems = browser.wait_for(
            "!document.getElementById('problems').hidden && "
            "document.getElementById('problems').textContent"
        )
        assert "herd.yaml:12:12: error: 'tab' must be a number (got 'no') [schema]" in problems
        assert browser.js("document.title").startswith("\u26a0")
        assert (
            browser.js("document.querySelectorAll('figure.item').length") == 2 * 18
        )  # the last good build stays

        kit.edit(f"{M}/herd.yaml", "tab: no", "tab: 14")
        watcher.rebuild()
        assert browser.wait_for(
            "document.getElementById('problems').hidden && document.title.includes('build 4')"
        )
    finally:
        browser.close()
        server.close()


@needs_chromium
def test_the_page_opened_as_a_file_shows_every_face(kit):
    assert kit.build().code == 0
    browser = Browser()
    try:
        browser.open((kit.root / "build" / "mammoth-herd" / "index.html").as_uri())
        assert browser.wait_for(SHOWN) == {"faces": 70, "drawn": 70, "items": 36}
    finally:
        browser.close()
