"""The command line as a user meets it: help, exit codes, what build writes and keeps."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import ROOT
from pnpkit.commands.cli import parser

M = "components/mammoth-herd"


def test_python_dash_m_shows_complete_help():
    out = subprocess.run(
        [sys.executable, "-m", "pnpkit", "--help"], capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 0
    assert "validate" in out.stdout and "build" in out.stdout
    build = subprocess.run(
        [sys.executable, "-m", "pnpkit", "build", "--help"], capture_output=True, text=True
    )
    for option in ("--out", "--paper", "--lang", "--backs", "--back-offset", "--strict"):
        assert option in build.stdout


def test_the_command_ends_with_mains_code_its_output_whole_and_exit_handlers_run(kit):
    """cli.run() leaves the process with os._exit: the exit code, every line printed and the
    exit handlers must be as a normal exit leaves them."""
    program = (
        "import atexit, sys\n"
        "from pnpkit.commands import cli\n"
        "atexit.register(lambda: print('handler ran', flush=True))\n"
        "sys.argv = ['pnpkit', *sys.argv[1:]]\n"
        "cli.run()\n"
    )

    def command(*args: str) -> subprocess.CompletedProcess:
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
        return subprocess.run(
            [sys.executable, "-c", program, *args], capture_output=True, text=True, env=env
        )

    kit.edit(f"{M}/herd.yaml", "herd:", "herd-typo:")  # an unknown key: exit 1
    for args, code in [((M,), 1), (("components/no-such-game",), 2)]:
        in_process = kit.run("validate", *args)
        assert in_process.code == code
        ran = command("validate", *args)
        assert ran.returncode == code
        assert ran.stdout == in_process.out + "handler ran\n"
        assert ran.stderr == in_process.err
    built = command("build", str(ROOT / M), "--out", "build")
    assert built.returncode == 0, built.stderr
    assert built.stdout.endswith("handler ran\n")
    assert (kit.root / "build" / "mammoth-herd" / "mammoth-herd-en.pdf").is_file()


def test_usage_errors_exit_2(kit):
    assert kit.run("build").code == 2
    assert kit.run("build", M, "--paper", "a7").code == 2
    run = kit.run("validate", "components/no-such-game")
    assert run.code == 2 and "no such pack folder" in run.err


def test_not_a_pack_is_a_located_problem(kit, tmp_path):
    (tmp_path / "empty").mkdir()
    run = kit.run("validate", "empty")
    assert run.lines == ["empty:0:0: error: not a game pack: there is no game.yaml here [schema]"]
    assert run.code == 1


def test_build_writes_one_pdf_per_language_and_the_svgs(kit):
    run = kit.build()
    assert run.code == 0, run.out
    out = kit.root / "build" / "mammoth-herd"
    assert sorted(p.name for p in out.glob("*.pdf")) == [
        "mammoth-herd-en.pdf",
        "mammoth-herd-pl.pdf",
    ]
    assert (
        (out / "svg" / "pl" / "bonus-tiles" / "bonus-01-front.svg").read_text().startswith("<?xml")
    )
    assert len(list((out / "svg" / "en").rglob("*.svg"))) == 16 * 2 + 1 + 2


def test_lang_option_builds_one_language(kit):
    assert kit.build("--lang", "en").code == 0
    assert [p.name for p in (kit.root / "build" / "mammoth-herd").glob("*.pdf")] == [
        "mammoth-herd-en.pdf"
    ]
    run = kit.build("--lang", "de")
    assert run.code == 2 and "the pack has no language de (it has pl, en) [usage]" in run.out


def test_failed_build_leaves_the_last_good_output_untouched(kit):
    assert kit.build().code == 0
    out = kit.root / "build" / "mammoth-herd"
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    kit.edit(f"{M}/herd.yaml", "tab: 12", "tab: no")
    run = kit.build()
    assert run.code == 1 and "nothing written" in run.err
    after = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before
    assert not list((kit.root / "build").glob(".*"))  # no half-written leftovers


def test_warnings_fail_only_with_strict(kit):
    kit.edit(f"{M}/game.yaml", "exact: 16,", "exact: 17, level: warning,")
    run = kit.validate()
    assert run.code == 0
    assert run.lines == [
        f"{M}/game.yaml:42:5: warning: group 'bonus-tiles' has "
        "16 components; the game needs exactly 17 [SAM-C01]"
    ]
    assert kit.run("validate", M, "--strict").code == 1
    assert kit.build("--strict").code == 1
    assert kit.build().code == 0


def test_ampersand_and_angle_bracket_print_as_themselves(kit):
    """Text is escaped into the SVG, so markup characters reach the page as text."""
    from pypdf import PdfReader

    kit.edit(f"{M}/herd.yaml", 'en: "Mammoth herd"', 'en: "Salt & Pepper <3"')
    assert kit.build("--lang", "en").code == 0
    text = "".join(
        p.extract_text()
        for p in PdfReader(kit.root / "build/mammoth-herd/mammoth-herd-en.pdf").pages
    )
    assert "Salt & Pepper <3" in text


def test_provenance_lists_what_is_still_a_design_choice(kit):
    run = kit.run("validate", M, "--provenance")
    assert run.code == 0
    assert run.lines[:3] == [
        f"{M}/herd.yaml:12:12: note: herd, 'tab': design [provenance]",
        f"{M}/reference.yaml:16:7: note: reference, all values: design [provenance]",
        f"{M}/tiles.yaml:16:7: note: bonus-01, all values: design [provenance]",
    ]
    assert len(run.lines) == 18


def test_an_output_folder_that_cannot_be_written_is_one_line_not_a_traceback(kit):
    (kit.root / "taken").write_text("a file where the output folder should be")
    run = kit.run("build", str(kit.pack), "--out", "taken")
    assert run.code == 1
    assert run.err.strip() == "pnpkit: error: Not a directory: taken/pnpkit-cache"


def test_pack_named_as_dot_from_inside_it(kit, monkeypatch):
    """`pnpkit build .` in the pack folder: the id is the folder's name, the shared templates
    are found."""
    kit.edit(f"{M}/game.yaml", "id: mammoth-herd\n", "")
    monkeypatch.chdir(kit.root / M)
    run = kit.run("build", ".", "--out", "../../build", "--lang", "en")
    assert run.code == 0, run.out
    assert (kit.root / "build/mammoth-herd/mammoth-herd-en.pdf").is_file()


def test_build_and_validate_parse_alike_without_the_other_commands_modules(capsys):
    """main() leaves out the other commands' modules for a build or a validate: the same
    arguments give the same values, help and usage errors as the parser with every command."""
    for argv in (
        ["build", M, "--out", "o", "--lang", "en", "--changes", "--strict"],
        ["validate", M, "--provenance", "--trust"],
        ["build", "--help"],
        ["build", M, "--paper", "a7"],
        ["validate"],
    ):
        seen = []
        for p in (parser(argv[0]), parser()):
            try:
                seen.append(vars(p.parse_args(argv)))
            except SystemExit as exc:
                seen.append(exc.code)
            seen.append(capsys.readouterr())
        assert seen[:2] == seen[2:]
    # main() itself picks the command from the arguments, options first or not
    code = "import sys; from pnpkit.commands.cli import main; "
    code += (
        "codes = [main(['build', '--strict', 'no-pack', '--out', 'o']), main(['validate', 'p'])]; "
    )
    code += "print(codes, sorted({'pnpkit.commands.watch', 'http.server'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.strip() == "[2, 2] []"  # no pack p: a usage error
