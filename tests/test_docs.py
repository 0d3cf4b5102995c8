"""The pnpkit commands README and docs/ show in their `sh` blocks work as written, for a new
user who trusts nothing: a kit's page once showed a build that exits 1 until its folder is
trusted, which no one noticed because the suite trusts the kits."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

from pnpkit.commands.cli import main

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.DOTALL | re.MULTILINE)


def documented_commands() -> list[tuple[str, list[str]]]:
    """(page:line, argv) of each pnpkit command in the pages' sh blocks, comments dropped.
    `pnpkit` is the command on the PATH or `.venv/bin/pnpkit`; `watch` and `studio` run until
    stopped (tests/test_watch.py and tests/test_studio.py cover them); pytest and the benchmarks
    have tests of their own."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for block in SH_BLOCK.finditer(text):
            first = text.count("\n", 0, block.start(1)) + 1
            for n, line in enumerate(block.group(1).splitlines(), first):
                argv = shlex.split(line, comments=True)
                if argv[:1] in ([".venv/bin/pnpkit"], ["pnpkit"]):
                    argv = ["-m", "pnpkit", *argv[1:]]
                if argv[:2] == ["python", "-m"]:
                    argv = argv[1:]
                if argv[:2] == ["-m", "pnpkit"] and not {"watch", "studio"} & set(argv):
                    found.append((f"{page.relative_to(ROOT)}:{n}", argv))
    return found


def test_the_documented_commands_work_as_written_for_a_user_who_trusts_nothing(
    tmp_path, monkeypatch, capsys
) -> None:
    """Each runs in a copy of the project (the pages' `components/...` are relative to it),
    with an empty trust list of its own: exit 0, no exception, and the list left alone.
    export.md's "profile of your own" is a copy of a shipped one, as that page suggests. The
    commands run in this process, as `pnpkit`'s main() (tests/test_cli.py runs the command
    itself in a process of its own)."""
    project = tmp_path / "project"
    for folder in ("components", "templates", "schema"):
        shutil.copytree(ROOT / folder, project / folder)
    shutil.copy(ROOT / "src/pnpkit/profiles/thegamecrafter.yaml", project / "my-service.yaml")
    config = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.chdir(project)
    commands = documented_commands()
    assert len(commands) >= 10  # the pages' blocks were found
    for where, argv in commands:
        capsys.readouterr()
        try:
            code = main(argv[2:])  # after `-m pnpkit`
        except SystemExit as exc:  # --help
            code = exc.code
        said = capsys.readouterr()
        assert code == 0, f"{where}: {shlex.join(argv)}\n{said.out[-1500:]}{said.err[-1500:]}"
    assert not config.exists()


LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(page: Path) -> set[str]:
    """The anchors of a page's headings, as GitHub and MkDocs make them ("Editor completion:
    the JSON Schemas" -> editor-completion-the-json-schemas); code blocks are skipped."""
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    heads = re.findall(r"^#+ (.+)$", text, re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


def test_every_link_of_the_readme_leads_to_a_page_and_its_heading() -> None:
    """mkdocs build --strict checks the links inside docs/ (make docs); the README lies outside
    the site, so its links to the pages are checked here."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = [t for t in LINK.findall(readme) if not t.startswith(("http://", "https://"))]
    assert "docs/strangers.md" in links and len(links) >= 15
    for target in links:
        path, _, anchor = target.partition("#")
        page = ROOT / path if path else ROOT / "README.md"
        assert page.is_file(), f"README.md links to {target}: no such file"
        if anchor:
            assert anchor in _anchors(page), f"README.md links to {target}: no such heading"


def test_the_anchors_are_made_as_the_sites_make_them() -> None:
    assert {"editor-completion-the-json-schemas", "pnpkit-watch-pack", "pdfx-and-cmyk"} <= (
        _anchors(ROOT / "docs" / "designer-loop.md") | _anchors(ROOT / "docs" / "export.md")
    )
