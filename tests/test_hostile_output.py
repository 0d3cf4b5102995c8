"""Careless and hostile output, trust and cache (issue 32): nothing lost, nothing leaked.

A kit is never written over or into a pack (--out is kept apart from the pack,
components/ and the shared templates/), and only a folder pnpkit wrote (it holds
the .pnpkit-kit marker) is ever replaced or removed.
"""

from __future__ import annotations

import base64
import io
import os
import shutil
import zlib
from pathlib import Path

import pytest
from PIL import Image

from conftest import ROOT, colour_pack
from pnpkit.build import cachefile, output
from pnpkit.build import pipeline as build
from pnpkit.build.cache import Cache
from pnpkit.checks import trust
from pnpkit.export import rastercache
from pnpkit.svg.ops import OP_TYPES, ImageOp, op_row
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


@pytest.mark.parametrize(
    "name",
    [
        "mammoth-herd",  # where the kit goes
        ".mammoth-herd.partial",  # where it is staged: a project archive's build/ may hold one
    ],
)
def test_a_folder_pnpkit_did_not_write_is_never_replaced(kit, name):
    mine = kit.root / "build" / name
    mine.mkdir(parents=True)
    (mine / "thesis.txt").write_text("years of work\n")
    run = kit.build(*EN)
    assert run.code == 1
    assert run.out == (
        f"build:0:0: error: build/{name} was not written by pnpkit (it holds no .pnpkit-kit "
        "file), so the kit was not put there and the folder was left as it is; move it away or "
        "choose another --out [output]\n"
    )
    assert snapshot(mine) == {"thesis.txt": b"years of work\n"}
    assert sorted(os.listdir(kit.root / "build")) == [name, "pnpkit-cache"]


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
    escaped = ["components", f"{good}/../..", f"{good}/", f"{good}\\r", "/tmp\\x85", "   "]
    # a long line is cut at 80 characters (the folder tmp_path names may be long under xdist)
    shown = [f"'{e[:80]}…'" if len(e) > 80 else f"'{e}'" for e in escaped]
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


# ---------------------------------------------------------------- the cache is data, not authority

SECRET = b"SECRET-cache-4b1d-never-in-a-kit"
KIT_PDF = "mammoth-herd/mammoth-herd-en.pdf"


@pytest.fixture
def secret_jpeg(kit) -> Path:
    """A JPEG outside the pack whose bytes carry a secret (ReportLab embeds a JPEG as it is)."""
    folder = kit.root / "outside"
    folder.mkdir()
    buffer = io.BytesIO()
    Image.new("RGB", (16, 16), (200, 30, 30)).save(buffer, "JPEG", comment=SECRET)
    (folder / "secret.jpg").write_bytes(buffer.getvalue())
    return folder / "secret.jpg"


@pytest.fixture
def clean_pdf(kit) -> bytes:
    """The kit's PDF as a build without any cache makes it; the cache is then in build/."""
    assert kit.build(*EN).code == 0
    assert kit.run("build", M, "--out", "clean", *EN).code == 0
    return (kit.root / "clean" / KIT_PDF).read_bytes()


def cache_file(kit) -> Path:
    return kit.root / "build" / "pnpkit-cache" / "mammoth-herd.marshal"


def plant(path: Path, change) -> None:
    """Rewrite a cache file with every drawing entry's rows changed by change(rows) (and no kept
    forms, so every drawing is drawn from its rows)."""
    generation, faces, drawings, _ = cachefile._read(path)
    for entry in drawings.values():
        w, h, viewbox, rows = entry[1]
        rows = cachefile._unpack_rows(rows) if isinstance(rows, bytes) else rows
        entry[1] = (w, h, viewbox, change(rows))
    assert not cachefile._save_marshalled(path, generation, [faces, drawings, {}])


def image_row(source: str) -> tuple:
    return op_row(ImageOp(source, 0.0, 0.0, 20.0, 20.0, 1.0, True))


def poisoned_build(kit, clean_pdf: bytes) -> None:
    """Build with the planted cache: the kit is what a build without it makes, secret-free."""
    run = kit.build(*EN)
    assert (run.code, run.out) == (0, ""), run.out + run.err
    pdf = (kit.root / "build" / KIT_PDF).read_bytes()
    assert SECRET not in pdf
    assert pdf == clean_pdf


@pytest.mark.parametrize(
    "source",
    [
        "outside/secret.jpg",  # relative to where pnpkit runs: outside the pack
        "{root}/outside/secret.jpg",  # absolute
        f"{M}/../../outside/secret.jpg",  # climbing out with ..
    ],
)
def test_a_cached_image_op_naming_a_file_outside_the_pack_is_a_miss(
    kit, secret_jpeg, clean_pdf, source
):
    named = source.format(root=kit.root)
    plant(cache_file(kit), lambda rows: (*rows, image_row(named)))
    poisoned_build(kit, clean_pdf)


def test_a_cached_image_op_naming_a_pack_file_its_svg_does_not_name_is_a_miss(
    kit, secret_jpeg, clean_pdf
):
    inside = kit.root / M / "unnamed.jpg"
    os.replace(secret_jpeg, inside)
    plant(cache_file(kit), lambda rows: (*rows, image_row(str(inside))))
    poisoned_build(kit, clean_pdf)


@pytest.mark.parametrize(
    "change",
    [
        lambda rows: (*rows, (99,)),  # no such op
        lambda rows: (*rows, (2, "not a matrix")),
        lambda rows: (*rows, (4, (("__init__", ()),), None, None, False)),  # a path's method
        lambda rows: (*rows, (4, (("moveTo", (float("nan"), 0.0)),), None, None, False)),
        lambda rows: (*rows, (5, 0.0, 0.0, "Courier-Nowhere", 9.0, "x", None, None, None)),
        lambda rows: "not rows",
    ],
)
def test_cached_ops_the_compiler_never_makes_are_a_miss(kit, clean_pdf, change):
    plant(cache_file(kit), change)
    poisoned_build(kit, clean_pdf)


def test_a_corrupted_cache_file_is_a_miss(kit, clean_pdf):
    path = cache_file(kit)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] + os.urandom(4096))
    poisoned_build(kit, clean_pdf)
    generation, faces, drawings, _ = cachefile._read(path)
    for table in (faces, drawings):  # entries of another shape: left out, never a traceback
        for key in list(table):
            table[key] = ("not", "a list")
    assert not cachefile._save_marshalled(path, generation, [faces, drawings, {b"k": [1, 2]}])
    poisoned_build(kit, clean_pdf)


def test_packed_rows_that_inflate_without_end_are_a_miss():
    bomb = zlib.compress(b"\0" * (cachefile.MAX_ROWS + 1), 9)
    with pytest.raises(ValueError, match="larger than any drawing's"):
        cachefile._unpack_rows(bomb)


def test_a_cache_folder_that_is_a_link_is_ignored_and_never_written(
    kit, secret_jpeg, clean_pdf, tmp_path_factory
):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    shutil.move(kit.root / "build" / "pnpkit-cache", elsewhere / "cache")
    plant(elsewhere / "cache" / "mammoth-herd.marshal", lambda r: (*r, image_row(str(secret_jpeg))))
    os.symlink(elsewhere / "cache", kit.root / "build" / "pnpkit-cache")
    before = snapshot(elsewhere)
    run = kit.build(*EN)
    assert (run.code, run.out) == (0, "")
    warning = (
        "pnpkit: warning: build/pnpkit-cache is a link, so it was not used: built without the "
        "build cache, and nothing was written there\n"
    )
    assert run.err.count(warning) == 1
    assert snapshot(elsewhere) == before  # no lock, no cache file, nothing touched through it
    assert (kit.root / "build" / KIT_PDF).read_bytes() == clean_pdf


def test_a_cache_folder_of_another_user_is_ignored(kit, secret_jpeg, clean_pdf, monkeypatch):
    plant(cache_file(kit), lambda rows: (*rows, image_row(str(secret_jpeg))))
    before = snapshot(kit.root / "build" / "pnpkit-cache")
    uid = os.getuid()
    monkeypatch.setattr(output.os, "getuid", lambda: uid + 1)
    run = kit.build(*EN)
    assert run.code == 0
    assert run.err.count("pnpkit: warning: build/pnpkit-cache belongs to another user") == 1
    assert snapshot(kit.root / "build" / "pnpkit-cache") == before
    assert (kit.root / "build" / KIT_PDF).read_bytes() == clean_pdf


def test_a_raster_cache_never_follows_a_planted_link(tmp_path):
    folder = tmp_path / "raster"
    (folder / "ab").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "old.txt").write_text("mine")
    os.utime(elsewhere / "old.txt", (0, 0))
    os.symlink(elsewhere / "old.txt", folder / "ab" / "ab12.png")
    os.symlink(elsewhere, folder / "cd")
    raster = rastercache.RasterCache(folder)
    assert raster.get("ab12") is None  # a link is no kept file
    assert raster.path("cd34") is None  # nor is a folder that is a link
    raster.prune()
    assert (elsewhere / "old.txt").read_text() == "mine"


RICH = """{% extends "_face.svg.j2" %}{% block content %}
<defs>
  <linearGradient id="l" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/></linearGradient>
  <radialGradient id="r"><stop offset="0" stop-color="#ff0"/><stop offset="1" stop-color="#0a0"/></radialGradient>
  <clipPath id="c"><circle cx="20" cy="20" r="15"/></clipPath>
</defs>
<rect x="0" y="0" width="30" height="20" fill="url(#l)"/>
<ellipse cx="40" cy="60" rx="10" ry="6" fill="url(#r)" opacity="0.5"/>
<g clip-path="url(#c)" transform="rotate(10)"><rect x="5" y="5" width="30" height="30" fill="{{ item.colour }}"/></g>
<path d="M5 70 C 10 80, 20 80, 25 70 Z" fill="none" stroke="#333" stroke-width="0.8" stroke-dasharray="2 1"/>
<image href="art.png" x="30" y="30" width="10" height="10"/>
<image href="data:image/png;base64,{{ dot }}" x="45" y="30" width="5" height="5"/>
<text x="5" y="85" font-size="4" fill="#000">Zażółć ffi {{ item.id }}</text>
{% endblock %}
"""  # noqa: E501 (data: markup kept as written)


def test_every_drawing_the_compiler_makes_is_sound_and_served_from_the_cache(tmp_path):
    """Every kind of op (gradients, clips, transforms, dashes, images from a file and from
    data, shaped text) passes the cache's check: a warm build in a fresh cache compiles none
    (else every planted-entry guard would quietly cost every warm build its cache)."""
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), (0, 90, 200)).save(buffer, "PNG")
    dot = base64.b64encode(buffer.getvalue()).decode()
    pack = colour_pack(tmp_path / "rich", n=3)
    (pack / "art.png").write_bytes(buffer.getvalue())
    (pack / "templates" / "solid.svg.j2").write_text(RICH.replace("{{ dot }}", dot))
    out = tmp_path / "out"
    cold = Cache(out / "pnpkit-cache")
    assert not build.build(pack, build.BuildOptions(out, cache=cold)).errors
    assert cold.stats["drawings compiled"] > 0
    drawn = cachefile._read(out / "pnpkit-cache" / "rich.marshal")[2]
    kinds = {row[0] for entry in drawn.values() for row in entry[1][3]}
    assert kinds == set(range(len(OP_TYPES)))  # every kind of op is in the file
    warm = Cache(out / "pnpkit-cache")
    assert not build.build(pack, build.BuildOptions(out, cache=warm)).errors
    assert warm.stats["drawings reused"] == cold.stats["drawings compiled"]
    assert "drawings compiled" not in warm.stats


@pytest.mark.parametrize(
    ("finding", "kept"),
    [
        (("Zażółć", "text overflows its box by 2.0 mm", "text"), True),
        (("x", "text 'x' touches or crosses text 'y'", "overlap"), True),
        (("x", "overflows\x1b[2J", "text"), False),  # an escape a terminal obeys
        (("x", "fine\ncomponents/x.yaml:1:1: error: forged [x]", "text"), False),  # a second line
        (("x\x85", "message", "text"), False),
        (("x", 3, "text"), False),
        (("x", "message"), False),  # no rule: a file of an older pnpkit
        (("x", "message", "text] forged [x"), False),  # a rule no check gives
    ],
)
def test_a_planted_text_finding_is_printed_only_as_one_plain_line(finding, kept):
    assert cachefile._sound([1, (finding,)]) is kept


def test_a_cache_folder_that_is_a_file_is_ignored(kit):
    (kit.root / "build").mkdir()
    (kit.root / "build" / "pnpkit-cache").write_text("not a folder\n")
    run = kit.build(*EN)
    assert run.code == 0
    assert run.err.count("pnpkit: warning: build/pnpkit-cache is not a folder, so it was") == 1
    assert (kit.root / "build" / "pnpkit-cache").read_text() == "not a folder\n"
    assert (kit.root / "build" / KIT_PDF).is_file()
