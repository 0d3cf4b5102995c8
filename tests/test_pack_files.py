"""Every file a pack names is a file of the pack (paths.inside): a link that leads out of it, a
name that climbs out with '..', an absolute name and a name through a linked folder are each
refused, at every place that reads a file the pack names, and the file out there is never read."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pnpkit.checks import trust
from pnpkit.commands.cli import main

FONT = Path(__file__).parent / "fonts" / "WQYMicroHei-subset.ttf"
GAME = """name: Probe
languages: [en]
players: {min: 1, max: 1}
print: {bleed: 0mm, backs: none, crop_marks: false}
"""
CARDS = """cards:
  kind: card
  size: 60x40mm
  front: FRONT
  fields: {text: text}
  items: ITEMS
"""
INLINE = "\n    - {id: c1, text: 'Gain :gem:'}"
CARD = """{% extends "_face.svg.j2" %}{% block content %}
{{ text_box(item.text, 2, 2, 56, 30, size=10) }}
{% endblock %}
"""
GEM = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 1"><rect width="2" height="1"/></svg>'
# The files out of the pack: each, were it read, would show (rules.py and a face write ran.txt).
FACE = """from pathlib import Path
from pnpkit.faces.pyfaces import drawing
def draw(ctx):
    Path("ran.txt").write_text("a face out of the pack ran")
    return drawing(ctx)
"""
RULES = """from pathlib import Path
Path("ran.txt").write_text("rules out of the pack ran")
"""
SECRETS = {"py": FACE, "csv": "id,text\nc1,secret\n", "ttf": FONT.read_bytes()}
# the four ways out, each as the pack names the file: {way: name}, the suffix added
WAYS = {
    "link": "linked",
    "dotdot": "../outside/secret",
    "absolute": "ABSOLUTE/secret",
    "linked folder": "through/secret",
}


@pytest.fixture(autouse=True)
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # problems name files relative to the cwd


def probe(tmp_path: Path, game: str = "", front: str = "card.svg.j2", items: str = INLINE) -> Path:
    """A one-card pack at tmp_path/pack, and tmp_path/outside holding a secret of each kind,
    reached from the pack by pack/linked.* (links to them) and pack/through (links to the
    folder)."""
    root = tmp_path / "pack"
    for rel, text in {
        "game.yaml": GAME + game,
        "cards.yaml": CARDS.replace("FRONT", front).replace("ITEMS", items),
        "templates/card.svg.j2": CARD,
        "icons/gem.svg": GEM,
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    for suffix, data in SECRETS.items():
        secret = outside / f"secret.{suffix}"
        secret.write_bytes(data if isinstance(data, bytes) else data.encode())
        (root / f"linked.{suffix}").symlink_to(secret)
    (outside / "secret.rules.py").write_text(RULES)
    (root / "linked.rules.py").symlink_to(outside / "secret.rules.py")
    (root / "through").symlink_to(outside)
    return root


def validate(capsys, root: Path) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(["validate", str(root)])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, [line for line in out.out.splitlines() if ": error: " in line]


def named(tmp_path: Path, way: str, suffix: str) -> str:
    return WAYS[way].replace("ABSOLUTE", str(tmp_path / "outside")) + f".{suffix}"


# what the pack names a file as: the suffix of its secret, how the pack names it (probe()'s
# arguments) and where that name stands
READERS = {
    "font": ("ttf", lambda name: {"game": f"fonts:\n  Body: '{name}'\n"}, "game.yaml:6:9"),
    "items file": ("csv", lambda name: {"items": f"'{name}'"}, "cards.yaml:6:10"),
    "rules file": ("rules.py", lambda name: {"game": f"rules: '{name}'\n"}, "game.yaml:5:8"),
}


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("what", READERS)
def test_a_file_named_out_of_the_pack_is_refused_and_never_read(tmp_path, capsys, what, way):
    suffix, naming, where = READERS[what]
    name = named(tmp_path, way, suffix)
    root = probe(tmp_path, **naming(name))
    assert validate(capsys, root) == (
        1,
        [
            f"pack/{where}: error: {what} '{name}' lies outside the pack pack; it must be a "
            "file inside it [references]"
        ],
    )
    assert not (tmp_path / "ran.txt").exists()


@pytest.mark.parametrize("way", WAYS)
def test_a_python_face_out_of_the_pack_is_refused_and_never_run(tmp_path, capsys, way):
    name = named(tmp_path, way, "py")
    root = probe(tmp_path, front=f"'{name}:draw'")
    assert validate(capsys, root) == (
        1,
        [
            f"pack/cards.yaml:4:10: error: Python face file '{name}' lies outside the pack; it "
            "must be a file inside it [references]"
        ],
    )
    assert not (tmp_path / "ran.txt").exists()


def test_a_file_name_with_a_control_character_is_refused_and_shown_escaped(tmp_path, capsys):
    """A NUL names no file, in the pack or out of it (and was a traceback); an escape sequence is
    shown escaped, so that it cannot colour the terminal or move its cursor."""
    game = 'fonts:\n  Body: "a\\0b.ttf"\n  Head: "\\e[31mred.ttf"\nrules: "r\\0.py"\n'
    root = probe(tmp_path, game=game, items='"cards\\0.csv"')
    outside = "lies outside the pack pack; it must be a file inside it [references]"
    assert validate(capsys, root) == (
        1,
        [
            f"pack/cards.yaml:6:10: error: items file 'cards\\x00.csv' {outside}",
            f"pack/game.yaml:6:9: error: font 'a\\x00b.ttf' {outside}",
            "pack/game.yaml:7:9: error: font '\\x1b[31mred.ttf' not found in pack [references]",
            f"pack/game.yaml:8:8: error: rules file 'r\\x00.py' {outside}",
        ],
    )


TEMPLATE_LINKED = (
    ": '{link}' leads outside the pack; it was not read (templates come from the pack, the "
    "shared templates/ folder or pnpkit's own) [paths]"
)
TEMPLATE_NOT_FOUND = " not found (looked in pack/templates, pnpkit's own) [references]"


@pytest.mark.parametrize("way", WAYS)
def test_a_template_out_of_the_pack_is_refused(tmp_path, capsys, way):
    """A template name is looked up inside the template folders only: one that climbs out or is
    absolute is not found there; one that a link leads out of them is found and refused."""
    name = named(tmp_path, way, "svg.j2")
    root = probe(tmp_path, front=f"'{name}'")
    (tmp_path / "outside" / "secret.svg.j2").write_text(CARD)
    (root / "templates" / "linked.svg.j2").symlink_to(tmp_path / "outside" / "secret.svg.j2")
    (root / "templates" / "through").symlink_to(tmp_path / "outside")
    why = (
        TEMPLATE_LINKED.format(link=f"pack/templates/{name}")
        if way in ("link", "linked folder")
        else TEMPLATE_NOT_FOUND
    )
    assert validate(capsys, root) == (
        1,
        [f"pack/cards.yaml:4:10: error: template '{name}' for the front of 'c1'{why}"],
    )


@pytest.mark.parametrize("linked", ["icon", "icons folder"])
def test_an_icon_linked_out_of_the_pack_is_no_icon(tmp_path, capsys, linked):
    root = probe(tmp_path)
    (tmp_path / "outside" / "gem.svg").write_text(GEM)
    if linked == "icon":
        (root / "icons" / "gem.svg").unlink()
        (root / "icons" / "gem.svg").symlink_to(tmp_path / "outside" / "gem.svg")
    else:
        shutil.rmtree(root / "icons")
        (root / "icons").symlink_to(tmp_path / "outside")
    assert validate(capsys, root) == (
        1,
        [
            "pack/cards.yaml:7:22: error: unknown icon ':gem:' (icons: the pack's icons/ folder "
            "and _icons.svg.j2) (language en, text_box at pack/templates/card.svg.j2:2:1) [icons]"
        ],
    )


def test_a_link_that_stays_in_the_pack_is_followed(tmp_path, capsys):
    """A pack's own files may be links to others of its files, or lie in a linked folder of it."""
    root = probe(tmp_path)
    (root / "real").mkdir()
    (root / "real" / "cards.csv").write_text("id,text\nc1,Gain :gem:\n")
    (root / "alias").symlink_to(root / "real")
    (root / "faces").mkdir()
    (root / "faces" / "face.py").write_text(FACE)
    (root / "face.py").symlink_to(root / "faces" / "face.py")
    (root / "icons" / "gem.svg").rename(root / "real" / "gem.svg")
    (root / "icons" / "gem.svg").symlink_to(root / "real" / "gem.svg")
    (root / "cards.yaml").write_text(
        CARDS.replace("FRONT", "face.py:draw").replace("ITEMS", "alias/cards.csv")
    )
    assert validate(capsys, root) == (0, [])
    assert (tmp_path / "ran.txt").read_text() == "a face out of the pack ran"  # (it is in it)


def test_a_file_linked_to_itself_is_not_found(tmp_path, capsys):
    """A link loop is no file, and no traceback."""
    root = probe(tmp_path, game="fonts:\n  Body: loop.ttf\n")
    (root / "loop.ttf").symlink_to(root / "loop.ttf")
    assert validate(capsys, root) == (
        1,
        ["pack/game.yaml:6:9: error: font 'loop.ttf' not found in pack [references]"],
    )


def test_a_trusted_folder_trusts_what_lies_in_it_not_what_it_links_to(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    (mine / "pack").mkdir(parents=True)
    theirs.mkdir()
    (mine / "linked").symlink_to(theirs)
    (tmp_path / "to-mine").symlink_to(mine / "pack")
    trust.remember(mine)
    assert trust.is_trusted(mine) and trust.is_trusted(mine / "pack")
    assert trust.is_trusted(tmp_path / "to-mine")  # a link into the folder: its real place counts
    assert not trust.is_trusted(mine / "linked")
    assert not trust.is_trusted(mine / ".." / "theirs")
    assert not trust.is_trusted(tmp_path)
