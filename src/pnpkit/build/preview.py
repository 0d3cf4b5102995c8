"""The preview page: build/<game>/index.html, a gallery of every face beside links to the PDFs.

Each face is shown from the SVG the build wrote (svg/<lang>/<group>/<id>-<side>.svg),
at true relative size, with its id, count, and the warnings located in its
item. A browser draws an SVG shown as an image without loading the files it
links to, so a face that draws art from the pack gets a preview copy linking to
one copy of each file (preview/art/), shown in a sandboxed frame instead. Served by
`pnpkit watch --serve`, the page asks the server for the build state twice a second: it
reloads itself after a rebuild and shows the problems while the pack is broken. Opened as a
file it is simply a static page.

The page itself is files shipped in the package (assets/preview/: the Jinja
templates, autoescaped, and the page's CSS and JavaScript); this module only
gathers what they show.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import jinja2
from lxml import etree
from markupsafe import Markup

from pnpkit import memo, workspace
from pnpkit.build import output
from pnpkit.errors import Problem
from pnpkit.pack import paths
from pnpkit.pack.model import Face, Item, Pack
from pnpkit.svg.ops import ImageOp

if TYPE_CHECKING:  # build imports this module
    from pnpkit.build.pipeline import Result

STATE_URL = "/__pnpkit/state"  # what watch --serve answers with the build state (JSON)
_BUILD_META = re.compile(rb'<meta name="pnpkit-build" content="([0-9a-f]+)">')
_XLINK = "{http://www.w3.org/1999/xlink}href"


@workspace.memoized(1)
def _templates() -> jinja2.Environment:
    """The page's templates, from the package (a wheel or a zip install too); HTML is escaped."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("pnpkit", "assets/preview"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


@workspace.memoized(1)
def _figure_macro() -> Callable[[str, _Figure], str]:
    """figure.html.j2's macro: a call costs less than rendering a template, a thousand times."""
    module = _templates().get_template("figure.html.j2").module
    macro: Callable[[str, _Figure], str] = getattr(module, "figure_html")  # noqa: B009
    return macro


_BODY = "\0pnpkit-body\0"  # where the body goes in the page; no template writes a NUL
_UNHASHED = "\0" * 16  # the build fingerprint's place in the head until the body is hashed


def _write_page(path: Path, title: str, body: Iterable[str]) -> None:
    """Write the whole page around a body given in pieces, UTF-8, to path; its build fingerprint
    is a hash of what it shows. The pieces are written and hashed as they come and the
    fingerprint is put in its place last: a 10,000-card page is 12 MB, and its pieces kept,
    encoded and joined took three copies of it at once, with every item's figure."""
    page = _templates().get_template("page.html.j2")
    around = page.render(build=_UNHASHED, state_url=STATE_URL, title=title, body=Markup(_BODY))
    head, tail = (part.encode() for part in around.split(_BODY))  # the template says it once
    fingerprint = hashlib.sha256(f"{title}\n".encode())
    with open(path, "wb") as f:
        f.write(head)
        for piece in body:
            encoded = piece.encode()
            fingerprint.update(encoded)
            f.write(encoded)
        f.write(tail)
        f.seek(head.index(_UNHASHED.encode()))  # the first: the head names it before the title
        f.write(fingerprint.hexdigest()[:16].encode())


def _trimmed(pieces: Iterable[str]) -> Iterator[str]:
    """The pieces of a text with its trailing line ends taken off (str.rstrip("\n")): line ends
    are held back until a piece with more follows them."""
    held = ""
    for piece in pieces:
        text = piece.rstrip("\n")
        # joined, not added: a piece may be Markup, whose + would escape the text beside it
        if text:
            yield "".join((held, text))
            held = piece[len(text) :]
        else:
            held = "".join((held, piece))


def write_index(result: Result, folder: Path, previous: Path | None = None) -> Path:
    """Write folder/index.html for a successful build (folder holds its PDFs and svg/); a file
    the `previous` build's folder holds with the same bytes is linked, not written again
    (output.put_written). Each item's figure is made as the page is written, not all of them
    first."""
    return index_page(result, folder, previous)()


def index_page(result: Result, folder: Path, previous: Path | None = None) -> Callable[[], Path]:
    """write_index() in two steps: what the page shows, and a function that writes the page,
    listing the PDFs the folder holds when it is called. The function is called once: the
    figures are made as it writes them, and then they are gone."""
    assert result.pack is not None  # only a successful build has an index
    pack: Pack = result.pack
    owners = _owners(pack)
    by_item: dict[str, list[Problem]] = {}
    general: list[Problem] = []
    for problem in result.problems:
        owner = _owner(owners, problem)
        (by_item.setdefault(owner, []) if owner else general).append(problem)
    total = sum(len(faces) for faces in result.faces.values())
    name = pack.name[pack.languages[0]]
    figures = _FIGURES.here()
    figures.turn()  # what the last page showed: this one may take it over
    sections = [
        _language(pack, lang, faces, by_item, folder, previous, figures)
        for lang, faces in result.faces.items()
    ]
    langs = list(result.faces)

    def write() -> Path:
        pdfs = sorted(p.name for p in folder.glob("*.pdf"))
        body = (
            _templates()
            .get_template("index.html.j2")
            .generate(  # in pieces: see _write_page
                name=name, pdfs=pdfs, langs=langs, total=total, general=general, sections=sections
            )
        )
        path = folder / "index.html"
        written = folder / ".index.html.tmp"
        _write_page(written, f"{name} · {total} faces", _trimmed(body))
        figures.drop_before()  # what this page showed: all the next one may take over
        output.put_written(written, path, previous and previous / "index.html")
        return path

    return write


def build_id(folder: Path) -> str:
    """The build fingerprint written into folder/index.html, or '' if there is none."""
    try:
        match = _BUILD_META.search((folder / "index.html").read_bytes()[:4096])
    except OSError:
        return ""
    return match.group(1).decode() if match else ""


def waiting_page(title: str) -> str:
    """What watch --serve shows before the pack has ever built: the problems, live."""
    body = Markup(_templates().get_template("waiting.html.j2").render(title=title).rstrip("\n"))
    page = _templates().get_template("page.html.j2")
    return page.render(build="", state_url=STATE_URL, title=title, body=body)


# ---------------------------------------------------------------- sections


# What the templates show, as objects: Jinja reads an attribute at once, where a dict's key costs
# it a failed attribute lookup first (a 1,000-card page reads 47,000 of them).


@dataclass(slots=True, frozen=True)
class _Image:
    side: str
    group: str
    href: str
    framed: bool
    version: str
    w: str
    h: str
    trim: str
    safe: str


@dataclass(slots=True, frozen=True)
class _Figure:  # frozen, of tuples: all it shows is its hash and key (_Figures)
    id: str
    count: int
    faces: tuple[_Image, ...]
    notes: tuple[Problem, ...]


@dataclass(slots=True)
class _Group:
    name: str
    kind: str
    size: str
    printed: int
    designs: str
    figures: Iterable[Markup]  # the items' figures (figure.html.j2), a few hundred a piece


@dataclass(slots=True)
class _Section:
    lang: str
    groups: list[_Group]


def _language(
    pack: Pack,
    lang: str,
    faces: list[Face],
    by_item: dict[str, list[Problem]],
    folder: Path,
    previous: Path | None,
    figures: _Figures,
) -> _Section:
    """What index.html.j2 shows of one language: its groups, each with its items' figures."""
    items: dict[tuple[str, str], dict[str, Face]] = {}
    for face in faces:
        items.setdefault((face.group, face.item), {})[face.side] = face
    groups = []
    for group in pack.groups.values():
        members = [
            (item, items[(group.name, item.id)])
            for item in group.items
            if (group.name, item.id) in items
        ]
        if not members:
            continue
        w, h = group.size
        groups.append(
            _Group(
                name=group.name,
                kind=group.kind,
                size=f"{w:g}×{h:g}",
                printed=group.total,
                designs=f"{len(members)} design{'s' if len(members) != 1 else ''}",
                figures=_joined(
                    figures.of_item(pack, lang, item, sides, by_item.get(item.id, []))
                    or figures.keep_item(
                        pack,
                        lang,
                        item,
                        sides,
                        _figure(
                            pack,
                            lang,
                            item,
                            sides,
                            by_item.get(item.id, []),
                            folder,
                            previous,
                            figures,
                        ),
                    )
                    for item, sides in members
                ),
            )
        )
    return _Section(lang, groups)


FIGURES_JOINED = 256  # figures the page template is given as one piece


def _joined(figures: Iterable[Markup]) -> Iterator[Markup]:
    """The figures joined FIGURES_JOINED at a time: the page is the same text, and the template's
    loop, the page's trimming, encoding, hashing and writing run once a piece, not once a figure
    (a tenth of watch's page for a 1,000-card deck), while a 10,000-card group is still never
    held whole."""
    batch: list[Markup] = []
    for figure in figures:
        batch.append(figure)
        if len(batch) == FIGURES_JOINED:
            yield _markup_joined(batch)
            batch = []
    if batch:
        yield _markup_joined(batch)


def _markup_joined(batch: list[Markup]) -> Markup:
    """Markup("").join(batch) without its escape() of each figure, which gives back the text of
    a Markup as it is, in a copy (a tenth of watch's page)."""
    return Markup("".join(batch))


def _figure(
    pack: Pack,
    lang: str,
    item: Item,
    sides: dict[str, Face],
    problems: list[Problem],
    folder: Path,
    previous: Path | None,
    figures: _Figures,
) -> _Figure:
    faces = tuple(
        figures.image(pack, lang, face, folder, previous)
        for side in ("front", "back")
        if (face := sides.get(side))
    )
    return _Figure(item.id, item.count, faces, tuple(problems))


class _Figures:
    """Each item's figure as figure.html.j2 makes it, by all it shows: the figures `before`
    holds (the previous page's, in a long-lived process such as watch) are taken over, the
    others made. Most of writing a large page is making its figures, and an edit changes few."""

    def __init__(self) -> None:
        self.before: dict[tuple[str, _Figure], Markup] = {}
        self.made: dict[tuple[str, _Figure], Markup] = {}
        self.rendered = 0  # figures made, not taken over
        # the images of faces, by all they show: the SVG's hash and whether it draws files
        # cost more than the rest of a figure (those that draw files are made every time)
        self.images_before: dict[tuple[object, ...], _Image] = {}
        self.images: dict[tuple[object, ...], _Image] = {}
        self.imaged = 0  # images made, not taken over
        # each item's figure by what it is made from (its faces' SVGs, sizes and notes), so an
        # unchanged item makes no image nor figure to look its figure up by; not one whose
        # faces draw files (their preview copies are written each time)
        self.items_before: dict[tuple[object, ...], Markup] = {}
        self.items: dict[tuple[object, ...], Markup] = {}

    def turn(self) -> None:
        """Start a page: what the last one showed becomes what this one may take over."""
        self.before, self.images_before, self.items_before = self.made, self.images, self.items
        self.made, self.images, self.items = {}, {}, {}
        self.rendered = self.imaged = 0

    def drop_before(self) -> None:
        """The page is made: what it did not take over of the last one is not kept."""
        self.before, self.images_before, self.items_before = {}, {}, {}

    def clear(self) -> None:
        """Forget every figure (as a new process starts)."""
        self.turn()
        self.drop_before()

    def __len__(self) -> int:
        return len(self.made) + len(self.images) + len(self.items)

    @staticmethod
    def _item_key(
        pack: Pack, lang: str, item: Item, sides: dict[str, Face], notes: list[Problem]
    ) -> tuple[object, ...]:
        # each side by its place (front, back: None if the item has none), without a loop over
        # them: a tenth of watch's page for a 1,000-card deck went to this key
        front, back = sides.get("front"), sides.get("back")
        return (
            lang,
            item.id,
            item.count,
            pack.print.safe,
            None if front is None else (front.group, front.svg, front.size, front.bleed),
            None if back is None else (back.group, back.svg, back.size, back.bleed),
            tuple(notes),
        )

    def of_item(
        self, pack: Pack, lang: str, item: Item, sides: dict[str, Face], notes: list[Problem]
    ) -> Markup | None:
        """The figure the previous page showed for an item alike in all it shows, or None (a
        one-shot build has no previous page: see memo.handing_on)."""
        if not memo.handing_on():
            return None
        key = self._item_key(pack, lang, item, sides, notes)
        found = self.items_before.get(key)
        if found is not None:
            self.items[key] = found
        return found

    def keep_item(
        self, pack: Pack, lang: str, item: Item, sides: dict[str, Face], figure: _Figure
    ) -> Markup:
        """html() of the item's figure, kept by the item for the next page."""
        made = self.html(lang, figure)
        if memo.handing_on() and not any(image.framed for image in figure.faces):
            self.items[self._item_key(pack, lang, item, sides, list(figure.notes))] = made
        return made

    def image(
        self, pack: Pack, lang: str, face: Face, folder: Path, previous: Path | None
    ) -> _Image:
        """_image(), or the same image the previous page showed."""
        key: tuple[object, ...] = (lang, face.group, face.item, face.side, face.svg)
        key += (face.full_size, face.bleed, pack.print.safe)
        found = self.images_before.get(key)
        if found is None:
            found = _image(pack, lang, face, folder, previous)
            self.imaged += 1
        if not found.framed and memo.handing_on():  # as html() keeps figures
            self.images[key] = found
        return found

    def html(self, lang: str, figure: _Figure) -> Markup:
        key = (lang, figure)  # every field the macro may show, a new one included
        found = self.made.get(key) or self.before.get(key)
        if found is None:
            found = Markup(_figure_macro()(lang, figure))
            self.rendered += 1
        if memo.handing_on():  # a one-shot build has no next page (a 10,000-card one: 30 MB)
            self.made[key] = found
        return found


_FIGURES = workspace.Slot("preview.figures", _Figures)  # the figures of the last page written


def _image(pack: Pack, lang: str, face: Face, folder: Path, previous: Path | None) -> _Image:
    """One side as the page shows it: an image of its SVG, or a framed preview copy (art)."""
    rel = f"svg/{lang}/{face.group}/{face.item}-{face.side}.svg"
    framed = _draws_files(face)
    if framed:
        rel = f"preview/{lang}/{face.group}/{face.item}-{face.side}.svg"
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        data = _linked_art(face.svg, pack.root, folder / ART, previous and previous / ART)
        output.put(data, target, previous and previous / rel)
    fw, fh = face.full_size
    return _Image(
        side=face.side,
        group=face.group,
        href=rel,
        framed=framed,
        version=hashlib.sha256(face.svg.encode("utf-8")).hexdigest()[:12],
        w=f"{fw:.2f}",
        h=f"{fh:.2f}",
        trim=_inset(face.bleed, fw, fh),
        safe=_inset(face.bleed + pack.print.safe, fw, fh),
    )


def _inset(d: float, w: float, h: float) -> str:
    """CSS placing a box d mm inside a face of w x h mm, in percentages so it follows the zoom."""
    x, y = 100 * d / w, 100 * d / h
    return f"left:{x:.3f}%;right:{x:.3f}%;top:{y:.3f}%;bottom:{y:.3f}%"


def _draws_files(face: Face) -> bool:
    if getattr(face.drawing, "images", None) is False:  # cache.FormDrawing: no image at all
        return False  # (a large build's drawings keep that, not their ops: see earlyforms)
    ops = getattr(face.drawing, "ops", ())
    return any(isinstance(op, ImageOp) and isinstance(op.source, str) for op in ops)


ART = "preview/art"  # the pack's image files, one copy each, that preview copies of faces link to


def _linked_art(svg: str, root: Path, art: Path, previous: Path | None = None) -> bytes:
    """The SVG with every <image> that names a file of the pack linking to one copy of the file in
    `art`, made once per build however many faces draw it (a 48 MB picture on 32 cards is 48 MB,
    not 2 GB). An <img> would not load the linked files, so the page shows these copies in a
    sandboxed frame (no scripts), sized to the frame as an <img> would be."""
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True
    )
    tree = etree.fromstring(svg.encode("utf-8"), parser)
    tree.set("width", "100%")
    tree.set("height", "100%")
    for el in tree.iter("{http://www.w3.org/2000/svg}image"):
        for attr in ("href", _XLINK):
            href = el.get(attr)
            if not href or href.startswith("data:"):
                continue
            # found again the way the build found it (paths.image_file): nothing outside the pack
            try:
                found = paths.image_file(root, href)
            except (OSError, ValueError):  # ValueError: paths.Outside
                found = None
            if found is None:
                continue  # compiling the face has reported it
            source = Path(found)
            with open(source, "rb") as f:
                suffix = ".png" if f.read(4) == b"\x89PNG" else ".jpg"
            name = hashlib.sha256(str(source).encode("utf-8")).hexdigest()[:16] + suffix
            if not (art / name).exists():
                art.mkdir(parents=True, exist_ok=True)
                output.put(source.read_bytes(), art / name, previous and previous / name)
            el.set(attr, f"../../art/{name}")  # from preview/<lang>/<group>/
    return etree.tostring(tree, xml_declaration=True, encoding="UTF-8")


# ---------------------------------------------------------------- problems


class _Owners(NamedTuple):
    """Per file, the line span of every item in the pack's order; where no two of a file's spans
    overlap, also the spans sorted by first line and those first lines, to bisect."""

    spans: dict[str, list[tuple[int, int, str]]]
    disjoint: dict[str, tuple[list[int], list[tuple[int, int, str]]]]


def _owners(pack: Pack) -> _Owners:
    """Per file, the line span of every item: from its first line to the last line it is known
    to use."""
    spans: dict[str, list[tuple[int, int, str]]] = {}
    for item in pack.items():
        file, span = _span(item)
        spans.setdefault(file, []).append(span)
    disjoint = {}
    for file, file_spans in spans.items():
        ordered = sorted(file_spans)
        if all(a[1] < b[0] for a, b in zip(ordered, ordered[1:])):
            disjoint[file] = ([span[0] for span in ordered], ordered)
    return _Owners(spans, disjoint)


def _span(item: Item) -> tuple[str, tuple[int, int, str]]:
    """The item's file and span in it (first line, last line, id); kept by the item (which is
    frozen) in a long-lived process, whose next page shows the unchanged items, the same objects
    (schema)."""
    kept = _SPANS.get(id(item))
    if kept is not None and kept[0] is item:
        return kept[1]
    lines = [item.where.line] + [
        w.line for w in item.field_where.values() if w.file == item.where.file
    ]
    made = (item.where.file, (item.where.line, max(lines), item.id))
    if memo.handing_on():
        memo.remember(_SPANS, id(item), (item, made), SPANS_KEPT)
    return made


_SPANS = workspace.Memo[int, tuple[Item, tuple[str, tuple[int, int, str]]]](
    "preview.spans"
)  # by id(item), held
SPANS_KEPT = 100_000  # items; more, and it starts afresh


def _owner(owners: _Owners, problem: Problem) -> str | None:
    """The first item (in the pack's order) whose span holds the problem's line."""
    file, line = problem.where.file, problem.where.line
    if file in owners.disjoint:  # at most one span holds the line: the last starting before it
        firsts, ordered = owners.disjoint[file]
        at = bisect.bisect_right(firsts, line) - 1
        return ordered[at][2] if at >= 0 and line <= ordered[at][1] else None
    for first, last, item_id in owners.spans.get(file, ()):
        if first <= line <= last:
            return item_id
    return None
