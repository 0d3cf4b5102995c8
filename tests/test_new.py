"""pnpkit new NAME: a small pack that validates and builds as created and explains itself."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

from conftest import ROOT, Kit
from pnpkit.build import pipeline as build
from pnpkit.commands import json_schema
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
    templates = list((project.root / "templates" / "moon-base").glob("*.svg.j2"))
    assert templates
    for path in list(pack.glob("*.yaml")) + templates:
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


def test_new_puts_templates_where_the_kits_keep_theirs_and_a_packs_own_folder_works_too(project):
    """templates/<pack>/ beside components/, as the README and every kit; a pack that carries
    them in its own templates/<pack>/ (as a shared zip might) validates just as well."""
    run = project.run("new", "moon-base")
    assert run.code == 0, run.err
    assert "their templates in templates/moon-base/" in run.err
    pack = project.root / "components" / "moon-base"
    shared = project.root / "templates" / "moon-base"
    assert sorted(p.name for p in shared.iterdir()) == [
        "box-label.svg.j2",
        "card-back.svg.j2",
        "card-front.svg.j2",
        "die.svg.j2",
        "sheet.svg.j2",
        "tile.svg.j2",
    ]
    assert not (pack / "templates").exists()
    assert build.validate(pack).problems == []
    shutil.move(shared, pack / "templates" / "moon-base")
    assert build.validate(pack).problems == []


def test_new_does_not_write_into_a_templates_folder_of_that_name(project):
    (project.root / "templates" / "moon-base").mkdir()
    (project.root / "templates" / "moon-base" / "card-front.svg.j2").write_text("mine")
    run = project.run("new", "moon-base")
    assert (run.code, run.err.strip()) == (
        2,
        "pnpkit: error: templates/moon-base already exists; choose another name or remove it",
    )
    assert not (project.root / "components" / "moon-base").exists()
    assert (project.root / "templates/moon-base/card-front.svg.j2").read_text() == "mine"


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
