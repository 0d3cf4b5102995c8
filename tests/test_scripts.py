"""The benchmark scripts run (at a tiny size), so `make bench` cannot rot unnoticed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_script(
    script: str, *args: str, timeout: int = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """scripts/<script> run with args in a new process, as a user runs it; its output kept."""
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


SCRIPTS = [  # every scripts/bench_*.py, with --quick (tiny sizes, one run) and what it prints
    ("bench_cards.py", "pnpkit build, new process, one card edited: median"),
    ("bench_cores.py", "-process split gains at most"),
    ("bench_export.py", "files that differ between the cold and the warm output: "),
    ("bench_files.py", "linked: median"),
    ("bench_incremental.py", "one card changed, new `pnpkit build` process: median"),
    ("bench_png.py", "faces/s"),
    ("bench_sheet.py", "read and validated 20 items in"),
    ("bench_side.py", "one card edited / cold: this"),
    ("bench_startup.py", "warm build: this"),
    ("bench_studio.py", "studio, edit saved -> rebuilt face served: median"),
    ("bench_writeback.py", "set_value() median"),
    ("bench_text.py", "rich  this     median CPU"),
]


@pytest.mark.parametrize("script, says", SCRIPTS, ids=[s for s, _ in SCRIPTS])
def test_benchmark_script_runs(script: str, says: str) -> None:
    run = run_script(script, "--quick")
    assert run.returncode == 0, run.stderr[-2000:]
    assert says in run.stdout


def test_every_benchmark_script_is_run() -> None:
    """A new bench_*.py joins SCRIPTS (and so takes --quick), or it could rot unnoticed."""
    assert sorted(p.name for p in (ROOT / "scripts").glob("bench_*.py")) == sorted(
        s for s, _ in SCRIPTS
    )


def test_sheet_search_runs_and_keeps_the_build_as_it_was() -> None:
    """scripts/sheet_search.py swaps the packer's orders and the room between blocks for its
    trials: it prints a row of sheet counts per kit, and puts both back (the count of a second
    kit is its count as built)."""
    herd = str(ROOT / "components" / "mammoth-herd")
    run = run_script("sheet_search.py", herd, herd, "--orders", "2", "--pads", "0.5")
    assert run.returncode == 0, run.stderr[-2000:]
    rows = [line.split() for line in run.stdout.splitlines() if line.startswith("mammoth-herd")]
    assert len(rows) == 2 and rows[0] == rows[1]
    built, searched, narrow = map(int, rows[0][1:])
    assert searched <= built and narrow <= built


def test_the_fuzz_script_runs_a_campaign_for_a_user_who_trusts_nothing(tmp_path) -> None:
    """scripts/fuzz.py, the campaign README shows, keeps a trust list of its own as the suite
    does: run by someone whose own list is empty (XDG_CONFIG_HOME an empty folder), it builds
    Star Cargo (whose board is a Python face) and runs its mutants, and leaves that list empty;
    a mutant kept to reproduce by hand is built with --trust, as the campaign built it."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    kit = ("--kit", "star-cargo", "--seed", "5")
    run = run_script("fuzz.py", *kit, "--count", "2", "--workers", "1", env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "failures: 0" in run.stdout.splitlines()
    assert not (tmp_path / "config").exists()  # the user's own trust list untouched
    kept = run_script("fuzz.py", *kit, "--keep", str(tmp_path / "m"), timeout=60, env=env)
    commands = [line for line in kept.stdout.splitlines() if line.startswith("cd ")]
    assert commands and all(line.endswith(" --trust") for line in commands)


MAKERS = [  # scripts that write a shipped file, and the file
    ("make_cmyk_icc.py", "src/pnpkit/icc/pnpkit-coated-cmyk.icc"),
    ("make_test_font.py", "tests/fonts/WQYMicroHei-subset.ttf"),
]


@pytest.mark.parametrize("script, writes", MAKERS, ids=[s for s, _ in MAKERS])
def test_a_script_that_writes_a_shipped_file_explains_itself_on_help(script, writes) -> None:
    """`--help` prints the script's usage and writes nothing: make_cmyk_icc.py took no
    options, so `--help` computed the ICC profile again and wrote it over the shipped one;
    make_test_font.py read `--help` as the font to subset and stopped with a traceback."""
    before = (ROOT / writes).stat().st_mtime_ns
    run = run_script(script, "--help", timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith(f"usage: {script}")
    assert (ROOT / writes).stat().st_mtime_ns == before
