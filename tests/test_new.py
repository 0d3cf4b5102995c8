"""pnpkit new NAME: a small pack that validates and builds as created and explains itself."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

from conftest import ROOT, Kit
from pnpkit import build, json_schema
from test_schema_json import schema_problems


class Project(Kit):
    """A project folder with the shared templates and no pack yet; run() runs the CLI in it."""

    def __init__(self, root: Path, capsys):
        self.root, self.capsys = root, capsys
        shutil.copytree(ROOT / "templates", root / "templates")


@pytest.fixture
def project(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    return Project(tmp_path, capsys)


def test_a_new_pack_validates_without_a_single_problem_and_builds(project):
    run = project.run("new", "moon-base")
    assert run.code == 0, run.err
    assert "pnpkit watch components/moon-base --serve" in run.err
    pack = Path("components/moon-base")
    result = build.validate(pack)
    assert result.problems == []
    groups = {
        g.name: (g.kind, len(g.items), "back" in g.templates) for g in result.pack.groups.values()
    }
    assert groups == {
        "cards": ("card", 4, True),
        "dice": ("die", 1, False),
        "sheets": ("sheet", 1, False),
        "tiles": ("tile", 3, False),
        "box-labels": ("sheet", 1, False),
    }
    run = project.run("build", str(pack))
    assert run.code == 0, run.out
    pdf = PdfReader(project.root / "build" / "moon-base" / "moon-base-en.pdf")
    text = "".join(page.extract_text() for page in pdf.pages)
    for words in ("Scout", "Guard", "Start", "Road", "How to play", "Moon Base"):
        assert words in text
    # print check and its back; the die with the sheet beside it, a blank back; the cards with the
    # tiles, the cards' backs; the label sheet's test page and the labels, each with a blank back
    assert len(pdf.pages) == 2 + 4 + 4
    assert (project.root / "build" / "moon-base" / "index.html").is_file()


def test_every_file_points_at_the_schema_the_command_writes_and_passes_it(project):
    assert project.run("new", "moon-base").code == 0
    pack = project.root / "components" / "moon-base"
    assert {p.name for p in (project.root / "schema").iterdir()} == set(json_schema.FILES.values())
    for path in pack.glob("*.yaml"):
        assert path.read_text().splitlines()[0] == json_schema.modeline(
            path, project.root / "schema"
        )
    assert schema_problems(pack) == []


def test_the_files_teach_the_format_in_comments(project):
    assert project.run("new", "moon-base").code == 0
    pack = project.root / "components" / "moon-base"
    for path in list(pack.glob("*.yaml")) + list(pack.rglob("*.svg.j2")):
        text = path.read_text()
        comments = [line for line in text.splitlines() if "#" in line or "{#" in line]
        assert len(comments) >= 2, path
    game = (pack / "game.yaml").read_text()
    for key in ("languages", "print", "strings", "data", "checks"):
        assert f"{key}:" in game


def test_a_new_pack_never_overwrites_and_needs_a_plain_name(project):
    assert project.run("new", "moon-base").code == 0
    (project.root / "components" / "moon-base" / "cards.yaml").write_text("mine")
    run = project.run("new", "moon-base")
    assert run.code == 2 and "already exists" in run.err
    assert (project.root / "components" / "moon-base" / "cards.yaml").read_text() == "mine"
    for bad in ("Moon Base", "../escape", "moon_base"):
        run = project.run("new", bad)
        assert run.code == 2 and "lowercase letters, digits and dashes" in run.err
    assert sorted(p.name for p in (project.root / "components").iterdir()) == ["moon-base"]


@pytest.mark.parametrize(
    "stand_in", ["components", "components/old-game", "components/old-game/templates"]
)
def test_new_inside_the_project_uses_its_components_folder(project, monkeypatch, stand_in):
    (project.root / "components/old-game/templates").mkdir(parents=True)
    monkeypatch.chdir(project.root / stand_in)
    run = project.run("new", "moon-base")
    assert run.code == 0, run.err
    expected = os.path.relpath(project.root / "components/moon-base", project.root / stand_in)
    assert f"created {expected}:" in run.err
    assert (project.root / "components/moon-base/game.yaml").is_file()
    assert (project.root / "schema").is_dir()
    assert not (project.root / "components/components").exists()
    assert not (project.root / "components/schema").exists()
