"""Shared fixtures: a scratch copy of a kit to break, and the CLI run as a user runs it."""

from __future__ import annotations

import contextlib
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pypdfium2
import pytest

from pnpkit.build import cachefile
from pnpkit.checks import trust
from pnpkit.commands.cli import main
from pnpkit.impose import orient
from pnpkit.pdf import calibration

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session", autouse=True)
def trusted_here(tmp_path_factory):
    """The suite's own trust list, never the user's: the shipped kits and every scratch copy
    the tests make are trusted (their rules.py are what the tests check); tests of untrusted
    packs point XDG_CONFIG_HOME at an empty folder of their own."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
        trust.remember(ROOT / "components")
        trust.remember(tmp_path_factory.getbasetemp())
        yield


SIDES = ("front", "back")  # a page footer's side, in each language pnpkit speaks


def kit_start(pdf: Path) -> int:
    """The index of a built PDF's first imposed page, whose footer names its side: after the
    kit guide of a pack that asks for one (docs/kit-guide.md) and the print check."""
    sides = "|".join(words[side] for words in calibration.TEXT.values() for side in SIDES)
    doc = pypdfium2.PdfDocument(str(pdf))
    for index in range(len(doc)):
        if re.search(rf" · ({sides}) · \d+/\d+", doc[index].get_textpage().get_text_range()):
            return index
    raise AssertionError(f"{pdf} has no imposed page")


@dataclass
class Run:
    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()


def but_overlap(lines: list[str]) -> list[str]:
    """The lines but the layout check's: a kit edited to break a rule often crowds its drawing
    too (three gold badges in a box for two), which the overlap check rightly reports
    (tests/test_overlap.py tests that check); a rule's test looks at the rule's lines."""
    return [line for line in lines if not line.endswith("[overlap]")]


class Kit:
    """A copy of components/<game> and templates/ under a temporary folder, which is the cwd."""

    def __init__(self, root: Path, game: str, capsys, copy: bool = True):
        """copy=False: root holds the copy already."""
        self.root, self.game, self.capsys = root, game, capsys
        self.pack = Path("components") / game
        if not copy:
            return
        shutil.copytree(ROOT / "components" / game, root / "components" / game)
        shutil.copytree(ROOT / "templates", root / "templates")
        for base in (ROOT / "src/pnpkit/templates").glob(
            "*.j2"
        ):  # the copy is whole: base templates too
            shutil.copy(base, root / "templates" / base.name)

    def edit(self, rel: str, old: str, new: str) -> None:
        """Replace the first `old` in a file of the copy (relative to the copy's root)."""
        path = self.root / rel
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in {rel}"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    def run(self, *args: str) -> Run:
        self.capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse usage errors
            code = exc.code
        captured = self.capsys.readouterr()
        return Run(code, captured.out, captured.err)

    def validate(self) -> Run:
        return self.run("validate", str(self.pack))

    def build(self, *extra: str) -> Run:
        return self.run("build", str(self.pack), "--out", "build", *extra)


@pytest.fixture
def breakable(tmp_path, monkeypatch, capsys):
    """breakable(game): a copy of components/<game> and the templates, to break; the cwd is its
    root."""
    monkeypatch.chdir(tmp_path)
    return lambda game: Kit(tmp_path, game, capsys)


def _put_back(copy: Path, source: Path) -> None:
    """Make the folder `copy` hold what `source` holds again: files that differ rewritten, files
    and folders added removed, files removed copied back (files left as they were keep their
    times, so what a build keeps of them stays good)."""
    for path in sorted(copy.rglob("*"), reverse=True):  # the deepest first
        if not (source / path.relative_to(copy)).exists():
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    for path in source.rglob("*"):
        there = copy / path.relative_to(source)
        if path.is_dir():
            there.mkdir(exist_ok=True)
        elif not there.is_file() or there.read_bytes() != path.read_bytes():
            shutil.copyfile(path, there)


@pytest.fixture(scope="module")
def _shipped():
    """The module's one copy of the project (components/<game> and the templates, base templates
    too) per game, and that copy as shipped, to put it back from: {game: (copy, as shipped)}."""
    return {}


@pytest.fixture
def reused(_shipped, tmp_path_factory, monkeypatch, capsys):
    """reused(game): as breakable(game), but the copy of the module's tests is one folder, put
    back as shipped after each test: the rule tests of a kit edit it and validate it dozens of
    times, and at one path a validation compiles only the templates an edit changed."""
    kits = []

    def make(game: str) -> Kit:
        if game not in _shipped:
            root = tmp_path_factory.mktemp(f"reused-{game}")
            Kit(root, game, capsys)
            _shipped[game] = (root, root.with_name(f"{root.name}-shipped"))
            shutil.copytree(*_shipped[game])
        root, shipped = _shipped[game]
        monkeypatch.chdir(root)
        kits.append(Kit(root, game, capsys, copy=False))
        return kits[-1]

    yield make
    for kit in kits:
        _put_back(*_shipped[kit.game])


@pytest.fixture
def kit(breakable):
    """A breakable copy of the Mammoth Herd kit."""
    return breakable("mammoth-herd")


@pytest.fixture(scope="session")
def built_kit(tmp_path_factory):
    """The Mammoth Herd kit built once for the PDF tests: {lang: Path to PDF}."""
    out = tmp_path_factory.mktemp("out")
    assert main(["build", str(ROOT / "components" / "mammoth-herd"), "--out", str(out)]) == 0
    return {lang: out / "mammoth-herd" / f"mammoth-herd-{lang}.pdf" for lang in ("pl", "en")}


def page_texts(path: Path) -> list[str]:
    """Each page's text as PDFium extracts it: what a reader's search finds. A whole kit's text
    this way takes a second; pypdf's extract_text took 10-25 s a kit on this machine."""
    import pypdfium2

    with contextlib.closing(pypdfium2.PdfDocument(str(path))) as pdf:
        return [page.get_textpage().get_text_range() for page in pdf]


def cache_read_back(path: Path) -> tuple[object, ...]:
    """A cache file's tables (faces, drawings, forms) and its text checks as they read back,
    each drawing's packed rows unpacked: marshal's bytes follow the objects' reference counts,
    so equal rows packed by two builds in one process need not be equal bytes."""
    _, faces, drawings, forms = cachefile._read(path)
    unpacked = {key: _rows_unpacked(entry) for key, entry in drawings.items()}
    return faces, unpacked, forms, cachefile._read_texts(path)


def _rows_unpacked(entry: list) -> list:
    stored = entry[1]
    if isinstance(stored, tuple) and len(stored) == 4 and isinstance(stored[3], bytes):
        return [entry[0], (*stored[:3], cachefile._unpack_rows(stored[3])), *entry[2:]]
    return entry


def as_laid_out(image, page):
    """A page's image (rendered from its PDF) the way up its layout has it: a landscape page
    prints turned a quarter onto portrait paper (orient.py), turned back here so a layout's
    millimetres find their pixels."""
    return image.rotate(-90, expand=True) if orient.turned(page.w, page.h) else image


def write_pack(root: Path, files: dict[str, str]) -> Path:
    """A pack from {relative path: text}; templates/ inside the pack are found first."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


SOLID = """{% extends "_face.svg.j2" %}{% block content %}
<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" width="{{ face.w + 2 * face.bleed }}" height="{{ face.h + 2 * face.bleed }}" fill="{{ item.colour }}"/>
{% endblock %}
"""  # noqa: E501 (data: markup and YAML kept as written)


def colour_pack(root: Path, n: int = 9, size: str = "poker", extra_print: str = "") -> Path:
    """n cards, each front and back a solid colour of its own: a probe for placement and duplex."""
    items = "\n".join(
        f"    - {{id: c{i}, colour: "
        f"'#{(i * 37) % 256:02x}{(i * 91) % 256:02x}{(200 - i * 17) % 256:02x}'}}"
        for i in range(n)
    )
    return write_pack(
        root,
        {
            "game.yaml": "name: Probe\nlanguages: [en]\nplayers: {min: "
            f"1, max: 1}}\nprint:\n  bleed: 3mm\n{extra_print}",
            "cards.yaml": f"cards:\n  kind: card\n  size: {size}\n  front: solid.svg.j2\n  back: "
            f"solid.svg.j2\n  fields:\n    colour: string\n  items:\n{items}\n",
            "templates/solid.svg.j2": SOLID,
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text(),
        },
    )


GRID = """{% extends "_face.svg.j2" %}{% block content %}
<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" width="{{ face.w + 2 * face.bleed }}" height="{{ face.h + 2 * face.bleed }}" fill="#dde8f0"/>
{% for i in range(0, face.w | int, 20) %}<rect x="{{ i }}" y="0" width="10" height="{{ face.h }}" fill="#{{ '%02x' % (i % 256) }}4080"/>{% endfor %}
{% endblock %}
"""  # noqa: E501 (data: markup and YAML kept as written)


def board_pack(root: Path, size: str = "380x270mm") -> Path:
    """One board larger than A4, striped so every column of it has its own colour."""
    return write_pack(
        root,
        {
            "game.yaml": "name: Board\nlanguages: [en]\nplayers: {min: 1, max: 1}\n",
            "board.yaml": f"board:\n  kind: board\n  size: {size}\n  "
            "front: grid.svg.j2\n  items:\n    - id: map\n",
            "templates/grid.svg.j2": GRID,
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text(),
        },
    )


def alpha_pack(root: Path, bleed: str = "0mm") -> Path:
    """One poker card, half-opaque red over its whole bleed: pink if transparency survives, red
    if not."""
    template = (
        '{% extends "_face.svg.j2" %}{% block content %}'
        '<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" width="{{ face.w + 2 * face.bleed }}" '
        'height="{{ face.h + 2 * face.bleed }}" fill="#ff0000" fill-opacity="0.5"/>{% endblock %}'
    )
    return write_pack(
        root,
        {
            "game.yaml": "name: Alpha\nlanguages: [en]\nplayers: {min: "
            f"1, max: 1}}\nprint: {{bleed: {bleed}}}\n",
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n  "
            "front: a.svg.j2\n  items:\n    - {id: a}\n",
            "templates/a.svg.j2": template,
        },
    )


def is_pink(pixel) -> bool:
    r, g, b = pixel[:3]
    return r > 240 and 110 < g < 150 and 110 < b < 150
