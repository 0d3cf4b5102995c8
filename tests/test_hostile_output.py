"""Careless and hostile output, trust and cache (issue 32): nothing lost, nothing leaked.

A kit is never written over or into a pack (--out is kept apart from the pack,
components/ and the shared templates/), and only a folder pnpkit wrote (it holds
the .pnpkit-kit marker) is ever replaced or removed.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import ROOT
from pnpkit import output, trust
from test_hostile_paths import EN, M, files

ADVICE = (
    "a kit written there would replace or mix with it; choose an output folder apart from the "
    "packs and templates, e.g. --out build"
)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every regular file under root with its bytes (links not followed)."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                found[os.path.relpath(path, root)] = Path(path).read_bytes()
    return found


# ---------------------------------------------------------------- the pack is never the output


@pytest.mark.parametrize(
    ("where", "pack", "out", "message"),
    [
        ("components", "mammoth-herd", ".", "--out . holds the pack folder mammoth-herd"),
        (".", M, "components", f"--out components holds the pack folder {M}"),
        (".", M, ".", f"--out . holds the pack folder {M}"),
        (".", M, f"{M}/build", f"--out {M}/build lies inside the pack folder {M}"),
        (".", M, M, f"--out {M} is the pack folder {M}"),
        (".", M, "components/b", "--out components/b lies inside the packs folder components"),
        (".", M, "templates/o", "--out templates/o lies inside the shared templates folder templates"),  # noqa: E501
        (M, ".", "..", "--out .. holds the pack folder ."),
    ],
)  # fmt: skip
def test_output_that_is_holds_or_lies_inside_a_pack_is_a_usage_error(
    kit, monkeypatch, where, pack, out, message
):
    before = snapshot(kit.root)
    monkeypatch.chdir(kit.root / where)
    for command in ("build", "watch"):
        run = kit.run(command, pack, "--out", out, *EN)
        assert (run.code, run.out) == (2, ""), run.err
        assert run.err == f"pnpkit: error: {message}: {ADVICE}\n"
    assert snapshot(kit.root) == before  # the pack whole, nothing written


def test_output_linked_to_the_pack_is_a_usage_error(kit):
    os.symlink(kit.root / M, kit.root / "linked")
    run = kit.run("build", M, "--out", "linked")
    assert run.code == 2
    assert run.err == f"pnpkit: error: --out linked is the pack folder {M}: {ADVICE}\n"


def test_one_clashing_pack_stops_every_pack_before_any_is_built(kit):
    shutil.copytree(ROOT / "components" / "mlem", kit.root / "components" / "mlem")
    run = kit.run("build", "components/mlem", M, "--out", "components/mlem/out")
    assert run.code == 2
    assert run.err.startswith("pnpkit: error: --out components/mlem/out lies inside")
    assert not (kit.root / "components/mlem/out").exists()


# ---------------------------------------------------------------- only pnpkit's kits are replaced


def test_a_folder_pnpkit_did_not_write_is_never_replaced(kit):
    mine = kit.root / "build" / "mammoth-herd"
    mine.mkdir(parents=True)
    (mine / "thesis.txt").write_text("years of work\n")
    run = kit.build(*EN)
    assert run.code == 1
    assert run.out == (
        "build:0:0: error: build/mammoth-herd was not written by pnpkit (it holds no .pnpkit-kit "
        "file), so the kit was not put there and the folder was left as it is; move it away or "
        "choose another --out [output]\n"
    )
    assert snapshot(mine) == {"thesis.txt": b"years of work\n"}
    assert sorted(os.listdir(kit.root / "build")) == ["mammoth-herd", "pnpkit-cache"]


def test_every_kit_holds_the_marker_and_an_empty_folder_is_replaced(kit):
    (kit.root / "build" / "mammoth-herd").mkdir(parents=True)  # nothing in it to lose
    assert kit.build(*EN).code == 0
    kit_folder = kit.root / "build" / "mammoth-herd"
    assert output.is_kit(kit_folder)
    assert (kit_folder / ".pnpkit-kit").read_text().startswith("A kit written by pnpkit")
    assert kit.build(*EN).code == 0  # a kit of its own is replaced
    assert output.is_kit(kit_folder) and (kit_folder / "mammoth-herd-en.pdf").is_file()


def test_swap_in_refuses_a_folder_without_the_marker_and_a_link(tmp_path):
    staging, final = tmp_path / ".kit.partial", tmp_path / "kit"
    staging.mkdir()
    output.mark(staging)
    final.mkdir()
    (final / "game.yaml").write_text("id: kit\n")
    with pytest.raises(output.NotKit):
        output.swap_in(staging, final)
    assert snapshot(final) == {"game.yaml": b"id: kit\n"}
    assert output.is_kit(staging)
    linked = tmp_path / "linked"
    os.symlink(staging, linked)  # a link to a kit is no kit: what it leads to is not replaced
    with pytest.raises(output.NotKit):
        output.swap_in(staging, linked)


def test_tidy_removes_only_marked_or_empty_leftovers(tmp_path):
    for name in (".a.partial", ".b.spare", ".c.old"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "mine.txt").write_text("mine\n")  # not pnpkit's: stays
    (tmp_path / ".d.partial").mkdir()  # a writer killed before marking it: empty, goes
    (tmp_path / ".e.partial" / "svg").mkdir(parents=True)
    output.mark(tmp_path / ".e.partial")  # pnpkit's: goes
    output.tidy(tmp_path)
    assert sorted(files(tmp_path)) == [
        ".a.partial",
        ".a.partial/mine.txt",
        ".b.spare",
        ".b.spare/mine.txt",
        ".c.old",
        ".c.old/mine.txt",
    ]


def test_a_kit_removed_part_way_stays_marked(tmp_path, monkeypatch):
    """The marker goes last: a removal cut short (a kill) leaves a folder still known as a kit,
    which the next build removes."""
    kit = tmp_path / ".k.partial"
    (kit / "svg").mkdir(parents=True)
    (kit / "svg" / "a.svg").write_text("<svg/>")
    output.mark(kit)
    removed: list[str] = []
    real = os.unlink

    def unlink(path, *args, **kwargs):
        removed.append(os.path.basename(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", unlink)
    output.remove_kit(kit)
    assert not kit.exists()
    assert removed[-1] == ".pnpkit-kit"


def test_a_shipped_build_folder_without_markers_is_never_removed(kit):
    """A project archive's build/ folder is not pnpkit's own until pnpkit writes it."""
    shipped = kit.root / "build" / ".mammoth-herd.partial"
    shipped.mkdir(parents=True)
    (shipped / "notes.txt").write_text("keep\n")
    run = kit.build(*EN)
    assert run.code == 1
    assert run.out == (
        "build:0:0: error: build/.mammoth-herd.partial was not written by pnpkit (it holds no "
        ".pnpkit-kit file), so the kit was not put there and the folder was left as it is; move "
        "it away or choose another --out [output]\n"
    )
    assert snapshot(shipped) == {"notes.txt": b"keep\n"}
    assert not (kit.root / "build" / "mammoth-herd").exists()


# ---------------------------------------------------------------- trust stores exact folders


@pytest.fixture
def no_trust(tmp_path, monkeypatch):
    """A trust list of this test's own, empty: the path of its file."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return trust.store()


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("game\n/tmp", "game\\n/tmp"),  # two lines of the list: /…/game and /tmp
        ("game\r", "game\\r"),
        ("game\x1b[2J", "game\\x1b[2J"),
        ("game\x85x", "game\\x85x"),  # a C1 control: NEL, a line break to splitlines()
        ("game\x00", "game\\x00"),
    ],
)
def test_a_folder_named_with_a_control_character_is_never_trusted(kit, no_trust, name, shown):
    if "\x00" not in name:
        (kit.root / name).mkdir(parents=True)
    run = kit.run("trust", name)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"pnpkit: error: the folder '{shown}' (or where it leads) has a control character in "
        "its name; such a folder cannot be trusted (rename it)\n"
    )
    assert not no_trust.exists()
    assert not trust.is_trusted(Path("/tmp")) and not trust.is_trusted(kit.root)


def test_a_folder_reached_through_a_link_named_with_a_newline_is_refused(kit, no_trust):
    (kit.root / "game\n").mkdir()
    os.symlink(kit.root / "game\n", kit.root / "plain")
    run = kit.run("trust", "plain")
    assert run.code == 2 and "has a control character in its name" in run.err
    assert not no_trust.exists()
    with pytest.raises(ValueError, match="holds a control character"):
        trust.remember(kit.root / "plain")


def test_the_trust_list_is_read_strictly(kit, no_trust, capsys):
    good = str(kit.root.resolve() / "components")
    no_trust.parent.mkdir(parents=True)
    lines = [
        good,
        "components",  # relative
        f"{good}/../..",  # not normalised
        f"{good}/",
        f"{good}\r",  # a line of a file saved with Windows line ends
        "/tmp\x85",
        "   ",
        "",
    ]
    no_trust.write_bytes("\n".join(lines).encode("utf-8"))
    assert trust.trusted_folders() == [Path(good)]
    shown = [
        "'components'",
        f"'{good}/../..'",
        f"'{good}/'",
        f"'{good}\\r'",
        "'/tmp\\x85'",
        "'   '",
    ]
    assert capsys.readouterr().err.splitlines() == [
        f"pnpkit: warning: {no_trust}:{n}: line ignored: {s} is not one absolute, normalised "
        "folder path"
        for n, s in zip((2, 3, 4, 5, 6, 7), shown, strict=True)
    ]
    assert not trust.is_trusted(Path("/tmp"))
    assert kit.run("validate", M).lines == []  # trusted through the good line: its rules.py ran


def test_a_trust_list_that_is_not_utf8_trusts_nothing_and_says_so(no_trust, capsys):
    no_trust.parent.mkdir(parents=True)
    no_trust.write_bytes(b"/tmp\xff\n")
    assert trust.trusted_folders() == []
    err = capsys.readouterr().err
    assert err.startswith(f"pnpkit: warning: {no_trust}: ignored, as it cannot be read (")
    assert err.endswith("); no folder is trusted\n")


def test_the_trust_list_is_written_whole_or_not_at_all(kit, no_trust, monkeypatch):
    assert kit.run("trust", "components").code == 0
    before = no_trust.read_bytes()
    assert before == f"{(kit.root / 'components').resolve()}\n".encode()

    def cut(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", cut)
    run = kit.run("trust", M)
    assert run.code == 1 and "No space left on device" in run.err
    assert no_trust.read_bytes() == before  # the old list, whole
    assert os.listdir(no_trust.parent) == [no_trust.name]  # no half-written file left beside it
