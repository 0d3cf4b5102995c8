"""Tabletop Simulator dice: each die a Custom_Model of type Dice, our OBJ cube and a texture of
its faces, checked by reading the files back as TTS would: the OBJ parsed, the texture looked at
through its coordinates, the rotations applied."""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path

import pytest
from PIL import Image

from conftest import ROOT, write_pack
from pnpkit.build import pipeline as build
from pnpkit.export import export, profile

# a d6 with pips (Star Cargo's template) and one face that is a word
DICE = """dice:
  kind: die
  size: 60x76mm
  bleed: 0mm
  front: die.svg.j2
  fields:
    faces: {type: list, item: string}
  items:
    - {id: pips, faces: ['1', '2', '3', '4', '5', '6']}
    - {id: named, count: 2, faces: ['1', '2', '3', '4', '5', 'X']}
"""

DIE_TEMPLATE = (ROOT / "templates/star-cargo/die.svg.j2").read_text()


def dice_pack(root: Path, template: str = DIE_TEMPLATE, langs: str = "[en]", **more: str) -> Path:
    """A probe pack of the dice above (and `more` files), drawn by Star Cargo's die template."""
    return write_pack(
        root,
        {
            "game.yaml": f"name: Probe\nlanguages: {langs}\nplayers: {{min: 1, max: 1}}\n",
            "dice.yaml": DICE,
            "templates/die.svg.j2": template,
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates/_face.svg.j2").read_text(),
            **more,
        },
    )


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """The probe exported for Tabletop Simulator: (save JSON, its folder, the faces)."""
    root = tmp_path_factory.mktemp("dice")
    pack = dice_pack(root / "probe")
    result = build.validate(pack)
    assert not result.errors, [str(p) for p in result.errors]
    tts, _ = profile.load("tabletop-simulator")
    problems = export.export(result.pack, result.faces, root / "out", tts)
    assert [str(p) for p in problems] == []
    folder = root / "out" / "probe" / "tabletop-simulator" / "en"
    save = json.loads((folder / "probe-en.json").read_text(encoding="utf-8"))
    return save, folder, {f.item: f for f in result.faces["en"]}


def _dice(save: dict) -> list[dict]:
    out = []
    for obj in save["ObjectStates"]:
        out += obj.get("ContainedObjects", [obj])
    return [o for o in out if o["Name"] == "Custom_Model"]


def _path(url: str) -> Path:
    assert url.startswith("file://")
    return Path(url.removeprefix("file://"))


def read_obj(text: str) -> list[dict]:
    """The OBJ's faces grouped by normal: [{normal, corners: [(xyz, uv)]}]."""
    vs, vts, vns, faces = [], [], [], {}
    for line in text.splitlines():
        kind, *rest = line.split() or [""]
        if kind == "v":
            vs.append(tuple(float(x) for x in rest))
        elif kind == "vt":
            vts.append(tuple(float(x) for x in rest))
        elif kind == "vn":
            vns.append(tuple(float(x) for x in rest))
        elif kind == "f":
            refs = [tuple(int(i) - 1 for i in r.split("/")) for r in rest]
            assert len(refs) == 3 and len({r[2] for r in refs}) == 1
            a, b, c = (vs[r[0]] for r in refs)
            n = vns[refs[0][2]]
            # wound counter-clockwise seen from outside: the cross product is the normal
            cross = _cross(_sub(b, a), _sub(c, a))
            assert _dot(cross, n) > 0 and _dot(a, n) > 0
            entry = faces.setdefault(n, {"normal": n, "corners": set()})
            entry["corners"] |= {(vs[r[0]], vts[r[1]]) for r in refs}
    assert len(faces) == 6 and all(len(f["corners"]) == 4 for f in faces.values())
    return list(faces.values())


def _sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


def _dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _box(corners, size):
    """The pixel box of the texture a face's coordinates span."""
    us, vs = [uv[0] for _, uv in corners], [uv[1] for _, uv in corners]
    w, h = size
    return (
        round(min(us) * w),
        round((1 - max(vs)) * h),
        round(max(us) * w),
        round((1 - min(vs)) * h),
    )


def pips(image: Image.Image) -> int:
    """Dark round marks in a face: connected dark regions of a 64 px copy, away from its edge (the
    fold and cut lines)."""
    small = image.convert("L").resize((64, 64))
    dark = {(x, y) for x in range(6, 58) for y in range(6, 58) if small.getpixel((x, y)) < 110}
    count = 0
    while dark:
        todo = [dark.pop()]
        size = 0
        while todo:
            x, y = todo.pop()
            size += 1
            for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if n in dark:
                    dark.remove(n)
                    todo.append(n)
        count += size >= 6  # a pip is about 11 px across at this size; specks are not
    return count


def _up(rotation: dict, normal) -> tuple[float, ...]:
    """Where a face's normal points after TTS's rotation (Unity: z, then x, then y; x of the OBJ
    negated on import)."""
    v = (-normal[0], normal[1], normal[2])
    for axis in ("z", "x", "y"):
        a = math.radians(rotation[axis])
        c, s = math.cos(a), math.sin(a)
        x, y, z = v
        if axis == "z":
            v = (c * x - s * y, s * x + c * y, z)
        elif axis == "x":
            v = (x, c * y - s * z, s * y + c * z)
        else:
            v = (c * x + s * z, y, -s * x + c * z)
    return tuple(round(t, 6) for t in v)


def test_every_die_is_a_custom_model_die_with_the_fields_tts_requires(saved):
    save, folder, _ = saved
    dice = _dice(save)
    assert [d["Nickname"] for d in dice] == ["pips", "named", "named"]  # one per printed copy
    for die in dice:
        mesh = die["CustomMesh"]
        assert mesh["TypeIndex"] == 2 and mesh["MaterialIndex"] == 3 and mesh["Convex"] is True
        for key in ("MeshURL", "DiffuseURL"):
            assert _path(mesh[key]).is_file(), key
        assert mesh["ColliderURL"] == "" and mesh["NormalURL"] == ""
        assert len(die["RotationValues"]) == 6
        assert {"posX", "rotX", "scaleX"} <= die["Transform"].keys()
    # in the order the net marks its squares; a face that is not a number is named
    assert [v["Value"] for v in dice[1]["RotationValues"]] == [1, 2, "X", 5, 3, 4]
    # a 16 mm die: the mesh is in inches, TTS's unit, at scale 1
    text = _path(dice[0]["CustomMesh"]["MeshURL"]).read_text(encoding="utf-8")
    xs = [float(line.split()[1]) for line in text.splitlines() if line.startswith("v ")]
    assert max(xs) - min(xs) == pytest.approx(16 / 25.4, abs=1e-5)
    assert dice[0]["Transform"]["scaleX"] == 1.0


def test_each_face_of_the_mesh_shows_its_face_and_turns_up_as_its_value(saved):
    """Through the OBJ's texture coordinates each side of the cube shows the face whose value
    RotationValues names for the rotation that turns that side up: counted pips on the texture."""
    save, _, _ = saved
    die = _dice(save)[0]
    faces = read_obj(_path(die["CustomMesh"]["MeshURL"]).read_text(encoding="utf-8"))
    texture = Image.open(_path(die["CustomMesh"]["DiffuseURL"])).convert("RGB")
    seen = {}
    for face in faces:
        shown = pips(texture.crop(_box(face["corners"], texture.size)))
        up = [
            v["Value"]
            for v in die["RotationValues"]
            if _up(v["Rotation"], face["normal"]) == (0, 1, 0)
        ]
        assert up == [shown], (face["normal"], up, shown)
        seen[face["normal"]] = shown
    # a d6: opposite sides add up to 7, as the net was drawn
    for n, value in seen.items():
        assert value + seen[tuple(-x for x in n)] == 7


def test_the_folds_of_the_net_are_the_edges_of_the_cube(saved):
    """Two squares side by side on the paper meet on the cube along the edge they share on the
    paper: the texture is wrapped as the paper die folds (so each face is the right way up)."""
    save, _, faces_by_item = saved
    die = _dice(save)[0]
    svg = faces_by_item["pips"].svg
    squares = {}  # value -> (column, row) on the paper
    rects = re.findall(
        r'<rect x="([\d.]+)" y="([\d.]+)" width="16" height="16"[^>]*data-die-face="(\w)"', svg
    )
    assert len(rects) == 6
    x0, y0 = min(float(r[0]) for r in rects), min(float(r[1]) for r in rects)
    for x, y, value in rects:
        squares[int(value)] = (round((float(x) - x0) / 16), round((float(y) - y0) / 16))
    faces = read_obj(_path(die["CustomMesh"]["MeshURL"]).read_text(encoding="utf-8"))
    texture = Image.open(_path(die["CustomMesh"]["DiffuseURL"])).convert("RGB")
    by_value = {pips(texture.crop(_box(f["corners"], texture.size))): f for f in faces}
    assert sorted(by_value) == [1, 2, 3, 4, 5, 6]
    folds = 0
    for a, b in itertools.permutations(range(1, 7), 2):
        (ca, ra), (cb, rb) = squares[a], squares[b]
        if (cb - ca, rb - ra) not in ((1, 0), (0, 1)):
            continue
        folds += 1
        shared = {p for p, _ in by_value[a]["corners"]} & {p for p, _ in by_value[b]["corners"]}
        assert len(shared) == 2, (a, b)  # neighbours on paper are neighbours on the cube
        edge_a = _edge(by_value[a]["corners"], shared)
        edge_b = _edge(by_value[b]["corners"], shared)
        want = ("right", "left") if cb > ca else ("bottom", "top")
        assert (edge_a, edge_b) == want, (a, b)
    assert folds == 5  # a net of six squares has five folds


def _edge(corners, shared) -> str:
    """Which edge of its texture cell a face's shared corners lie on."""
    uvs = [uv for p, uv in corners]
    u0, u1 = min(u for u, _ in uvs), max(u for u, _ in uvs)
    v1 = max(v for _, v in uvs)
    us = {uv[0] for p, uv in corners if p in shared}
    vs = {uv[1] for p, uv in corners if p in shared}
    if us == {u0}:
        return "left"
    if us == {u1}:
        return "right"
    return "top" if vs == {v1} else "bottom"


def test_a_die_without_marked_squares_stays_images_with_a_warning(tmp_path):
    pack = dice_pack(tmp_path / "probe", DIE_TEMPLATE.replace(' data-die-face="{{ value }}"', ""))
    result = build.validate(pack)
    tts, _ = profile.load("tabletop-simulator")
    problems = export.export(result.pack, result.faces, tmp_path / "out", tts)
    assert [p.message for p in problems] == [
        "group 'dice' (die) is exported as images only: a die becomes a TTS die when its template "
        "marks the six squares of its net with data-die-face (see docs/export.md); without them "
        "pnpkit cannot tell its faces apart"
    ]
    save = json.loads(
        (tmp_path / "out/probe/tabletop-simulator/en/probe-en.json").read_text(encoding="utf-8")
    )
    assert save["ObjectStates"] == []
    assert (tmp_path / "out/probe/tabletop-simulator/en/01-dice/001a-pips-front.png").is_file()


def test_the_game_crafter_gets_six_images_per_die(tmp_path):
    pack = dice_pack(tmp_path / "probe")
    result = build.validate(pack)
    tgc, _ = profile.load("thegamecrafter")
    problems = export.export(result.pack, result.faces, tmp_path / "out", tgc)
    assert problems == []  # a die's faces have no bleed to lack, and the die is a product
    folder = tmp_path / "out/probe/thegamecrafter/en/01-dice"
    images = sorted(folder.glob("001-pips-face-*.png"))
    assert len(images) == 6
    counted = []
    for path in images:
        image = Image.open(path)
        assert image.size == (180, 180)  # TGC's custom d6: the central 0.6 in of a 16 mm face
        counted.append(pips(image))
    assert counted == [1, 2, 6, 5, 3, 4]  # the net's order, as face-1 ... face-6 say


# ------------------------------------------------------------------ a save others can open


def _probe(root: Path) -> Path:
    cards = (
        "cards:\n  kind: card\n  size: poker\n  front: die.svg.j2\n  fields:\n"
        "    faces: {type: list, item: string}\n  items:\n"
        "    - {id: a, faces: ['1', '2', '3', '4', '5', '6']}\n"
        "    - {id: b, faces: ['1', '2', '3', '4', '5', '6']}\n"
    )
    return dice_pack(root, langs="[en, de]", **{"cards.yaml": cards})


def _urls(value) -> list[str]:
    if isinstance(value, dict):
        return [u for v in value.values() for u in _urls(v)]
    if isinstance(value, list):
        return [u for v in value for u in _urls(v)]
    return [value] if isinstance(value, str) and "://" in value else []


def test_a_save_with_an_image_url_names_every_image_under_it_and_the_upload_folder_holds_them(
    tmp_path,
):
    from pnpkit.commands.cli import main

    pack = _probe(tmp_path / "probe")
    base = "https://example.org/games/probe"
    code = main(
        [
            "build",
            str(pack),
            "--out",
            str(tmp_path / "out"),
            "--profile",
            "tabletop-simulator",
            "--image-url",
            base + "/",
        ]
    )
    assert code == 0
    folder = tmp_path / "out/probe/tabletop-simulator"
    for lang in ("en", "de"):
        text = (folder / lang / f"probe-{lang}.json").read_text(encoding="utf-8")
        assert "file://" not in text
        urls = set(_urls(json.loads(text)))
        assert urls and all(u.startswith(f"{base}/{lang}/") for u in urls)
        # upload/ holds exactly the files the saves name, where the URLs say
        named = {u.removeprefix(base + "/") for u in urls}
        held = {
            p.relative_to(folder / "upload").as_posix()
            for p in (folder / "upload" / lang).rglob("*")
            if p.is_file()
        }
        assert held == named
        assert {p.name for p in (folder / lang).iterdir()} == {f"probe-{lang}.json"}
    assert "upload/<lang>/<file>" in (folder / "README.txt").read_text(encoding="utf-8")


def test_without_an_image_url_the_save_names_its_files(tmp_path):
    from pnpkit.commands.cli import main

    pack = _probe(tmp_path / "probe")
    out = tmp_path / "out"
    assert main(["build", str(pack), "--out", str(out), "--profile", "tabletop-simulator"]) == 0
    folder = out / "probe/tabletop-simulator"
    urls = _urls(json.loads((folder / "en/probe-en.json").read_text(encoding="utf-8")))
    assert urls and all(u.startswith("file://") and _path(u).is_file() for u in urls)
    assert not (folder / "upload").exists()


def test_an_image_url_without_a_tabletop_profile_is_a_usage_error(tmp_path, capsys):
    from pnpkit.commands.cli import main

    pack = _probe(tmp_path / "probe")
    out = tmp_path / "out"
    assert (
        main(["build", str(pack), "--out", str(out), "--image-url", "https://example.org/g"]) == 2
    )
    assert capsys.readouterr().err == (
        "pnpkit: error: --image-url names the images of a Tabletop Simulator save: "
        "give --profile tabletop-simulator too\n"
    )
    assert not out.exists()


def test_an_image_url_that_is_not_a_web_address_is_a_usage_error(tmp_path, capsys):
    from pnpkit.commands.cli import main

    pack = _probe(tmp_path / "probe")
    with pytest.raises(SystemExit) as stop:
        main(["build", str(pack), "--profile", "tabletop-simulator", "--image-url", "ftp://x/a b"])
    assert stop.value.code == 2
    assert (
        "pnpkit build: error: argument --image-url: must be an http:// or https:// address "
        "without spaces or quotes, such as https://example.org/my-game (got 'ftp://x/a b')"
    ) in capsys.readouterr().err


def test_a_profile_image_url_must_be_a_web_address(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = (ROOT / "src/pnpkit/profiles/tabletop-simulator.yaml").read_text()
    Path("my-tts.yaml").write_text(
        text.replace('image_url: ""', 'image_url: "C:\\\\games\\\\kit"'), encoding="utf-8"
    )
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith("image_url"))
    assert [str(p) for p in profile.load("my-tts.yaml")[1]] == [
        f"my-tts.yaml:{line}:12: error: 'image_url' must be empty or an http:// or https:// "
        "address without spaces or quotes (got 'C:\\games\\kit') [profile]"
    ]


def _net_svg(cells, extra: str = "", wrap: str = "") -> str:
    rects = "".join(
        f'<rect x="{c * 10}" y="{r * 10}" width="10" height="10" data-die-face="{n}"{extra}/>'
        for n, (c, r) in enumerate(cells, 1)
    )
    if wrap:
        rects = f"<g {wrap}>{rects}</g>"
    return f'<svg xmlns="http://www.w3.org/2000/svg">{rects}</svg>'


CROSS = [(1, 0), (0, 1), (1, 1), (2, 1), (3, 1), (1, 2)]


@pytest.mark.parametrize(
    ("svg", "message"),
    [
        (_net_svg(CROSS[:5]), "a die's net marks its six squares with data-die-face (found 5)"),
        (
            _net_svg([(c, 0) for c in range(6)]),
            "these six squares do not fold into a cube (two land on the same side)",
        ),
        (
            _net_svg(CROSS[:5] + [(5, 5)]),
            "the squares of a cube net must all be joined edge to edge",
        ),
        (
            _net_svg(CROSS, wrap='transform="rotate(90)"'),
            "data-die-face marks a <rect> without transforms (got <rect>)",
        ),
        (
            _net_svg(CROSS).replace('x="10" y="0"', 'x="nan" y="0"'),
            "a data-die-face <rect> needs a finite position and a positive size",
        ),
        (
            _net_svg(CROSS).replace('x="0" y="10"', 'x="0.5" y="10"'),
            "the marked squares of a die's net must be equal squares edge to edge",
        ),
    ],
)
def test_a_net_that_is_no_die_says_why(svg, message):
    from pnpkit.kinds.dice import DieError, die_squares

    with pytest.raises(DieError) as error:
        die_squares(svg)
    assert str(error.value) == message


def test_a_cross_folds_with_opposite_faces_opposite():
    from pnpkit.kinds.dice import die_squares

    squares = die_squares(_net_svg(CROSS))
    normal = {int(s.value): s.normal for s in squares}
    # the cross: 1 above 3, 6 below it, 2 4 5 beside it; 1-6, 2-4 and 3-5 are opposite
    for a, b in ((1, 6), (2, 4), (3, 5)):
        assert normal[a] == tuple(-v for v in normal[b])
    assert {s.side for s in squares} == {10.0} and (squares[0].x, squares[0].y) == (10.0, 0.0)


def test_a_group_with_one_unmarked_die_is_no_custom_d6_but_custom_card_stock(tmp_path):
    """Every die of a group must mark its net for the group to go to TGC as custom d6s."""
    marked_once = DIE_TEMPLATE.replace(
        ' data-die-face="{{ value }}"',
        '{% if item.id == "pips" %} data-die-face="{{ value }}"{% endif %}',
    )
    result = build.validate(dice_pack(tmp_path / "probe", marked_once))
    tgc, _ = profile.load("thegamecrafter")
    problems = export.export(result.pack, result.faces, tmp_path / "out", tgc)
    # not custom d6s: its nets go on TGC's custom card stock, to be folded, with no warning
    assert [p.message for p in problems if "product" in p.message] == []
    folder = tmp_path / "out/probe/thegamecrafter/en/01-dice"
    assert sorted(p.name for p in folder.iterdir()) == [
        "slug-01-cut.svg",
        "slug-01-front.png",
        "slug-02-cut.svg",
        "slug-02-front.png",
    ]
    manifest = (tmp_path / "out/probe/thegamecrafter/en/manifest.csv").read_text()
    assert manifest.count("custom small card stock (2 a slug)") == 4
