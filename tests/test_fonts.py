"""The shipped faces are registered when first named (fonts.known), never all at start: each
takes ReportLab 30-40 ms to read. A process that names only some of them writes the same PDF
as one that registered all four first, and a face named only by a drawing from the cache is
registered all the same, so the cache's forms still replay."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from reportlab.pdfbase.ttfonts import TTFont

from conftest import ROOT, write_pack
from pnpkit.typeset import fonts

SRC = ROOT / "src"
SHIPPED = ["DejaVu Sans", "DejaVu Sans-Bold", "DejaVu Sans-Italic", "DejaVu Sans-BoldItalic"]

CARD = """{% extends "_face.svg.j2" %}{% block content %}
<rect width="{{ face.w }}" height="{{ face.h }}" fill="#f4e8d0"/>
<text x="5" y="20" font-family="DejaVu Sans" font-size="5"{{ style }}>{{ item.title }}</text>
{% endblock %}
"""

# Builds a pack as the command line does (its cache in OUT), the shipped faces registered first
# when asked to, as every process did before; prints what it registered and how the PDF's
# forms went: the font states FormPlan.seed() gave (b"" turns replaying off) and the stats.
BUILD = """
import json, sys
from pathlib import Path
from reportlab.pdfbase import pdfmetrics
from pnpkit.build import pipeline as build, cache, cacheforms
from pnpkit.typeset import fonts

pack, out, eager = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "eager"
if eager:
    for name in list(fonts._SHIPPED):  # every shipped face
        fonts.known(name)
seeded = []
seed = cacheforms.FormPlan.seed
cacheforms.FormPlan.seed = lambda self, canvas: seeded.append(seed(self, canvas)) or seeded[-1]
c = cache.Cache(out / build.CACHE_DIR)
result = build.build(pack, build.BuildOptions(out, cache=c))
assert not result.errors, [str(p) for p in result.errors]
registered = sorted(n for n in pdfmetrics.getRegisteredFontNames() if n.startswith("DejaVu"))
print(json.dumps([registered, [s.hex() for s in seeded], dict(c.stats)]))
"""


def _pack(root: Path, style: str = "") -> Path:
    items = "\n".join(f"    - {{id: c{i}, title: 'Card {i} zażółć'}}" for i in range(6))
    return write_pack(
        root,
        {
            "game.yaml": "name: Faces\nlanguages: [en]\nplayers: {min: 1, max: 1}\n",
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n  front: card.svg.j2\n"
            f"  fields:\n    title: string\n  items:\n{items}\n",
            "templates/card.svg.j2": CARD.replace("{{ style }}", style),
            "templates/_face.svg.j2": (SRC / "pnpkit/templates/_face.svg.j2").read_text(),
        },
    )


def _build(pack: Path, out: Path, eager: bool = False) -> tuple[list[str], list[str], dict]:
    """(shipped faces registered, seeded font states in hex, cache stats) of a build in a new
    process."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "SOURCE_DATE_EPOCH": "0"}
    args = [sys.executable, "-c", BUILD, str(pack), str(out), "eager" if eager else "lazy"]
    run = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    registered, seeded, stats = json.loads(run.stdout.splitlines()[-1])
    return registered, seeded, stats


def _pdf(out: Path) -> bytes:
    return (out / "faces" / "faces-en.pdf").read_bytes()


def test_a_pack_in_the_regular_face_registers_it_and_bold_only_and_prints_the_same(tmp_path):
    """Bold is checked for the pack's name (the print check prints it), the italics never named:
    the same PDF as a process that registered all four faces first."""
    pack = _pack(tmp_path / "faces")
    registered, _, _ = _build(pack, tmp_path / "lazy")
    assert registered == ["DejaVu Sans", "DejaVu Sans-Bold"]
    eager, _, _ = _build(pack, tmp_path / "eager", eager=True)
    assert eager == sorted(SHIPPED)
    assert _pdf(tmp_path / "lazy") == _pdf(tmp_path / "eager")


def test_a_face_named_only_by_drawings_from_the_cache_is_registered_and_forms_replay(tmp_path):
    """A warm build in a new process takes every face's drawing from the cache: no template
    names the italic face in it, yet its forms replay (the fonts' states are seeded, not b"")
    and the PDF is the cold build's, byte for byte."""
    pack = _pack(tmp_path / "faces", style=' font-style="italic"')
    out = tmp_path / "out"
    cold_registered, _, cold = _build(pack, out)
    assert "DejaVu Sans-Italic" in cold_registered and cold["forms drawn"]
    cold_pdf = _pdf(out)
    shutil.rmtree(out / "faces")  # the kit goes, the cache stays
    registered, seeded, warm = _build(pack, out)
    assert warm["drawings reused"] and not warm.get("drawings compiled")
    assert "DejaVu Sans-Italic" in registered
    assert seeded and "" not in seeded
    assert warm["forms reused"] and not warm.get("forms drawn")
    assert _pdf(out) == cold_pdf


def test_a_drawing_read_back_registers_the_faces_it_names():
    """op_from_row() registers a face a drawing from the cache or a worker names."""
    code = (
        "from reportlab.pdfbase import pdfmetrics\n"
        "from pnpkit.svg.ops import TextOp, op_row, ops_from_rows\n"
        "op = TextOp(1.0, 2.0, 'DejaVu Sans-BoldItalic', 3.0, 'x', None, None, None)\n"
        "assert 'DejaVu Sans-BoldItalic' not in pdfmetrics.getRegisteredFontNames()\n"
        "ops_from_rows((op_row(op),))\n"
        "print(sorted(pdfmetrics.getRegisteredFontNames()))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert "DejaVu Sans-BoldItalic" in run.stdout


def test_the_shipped_faces_postscript_names_are_the_files():
    """_SHIPPED_BY_PS_NAME says which shipped face a pack's copy of one shares its object with."""
    by_file = {
        family + fonts._SUFFIX[style]: file
        for family, faces in fonts.FAMILIES.items()
        for style, file in faces.items()
    }
    assert sorted(fonts._SHIPPED_BY_PS_NAME.values()) == sorted(by_file)
    for ps_name, name in fonts._SHIPPED_BY_PS_NAME.items():
        assert TTFont("probe", str(fonts.FONT_DIR / by_file[name])).face.name == ps_name


def test_a_pack_that_ships_a_copy_of_a_shipped_face_draws_with_the_shipped_object(tmp_path):
    """ReportLab keeps one object per PostScript name: registered first, the pack's copy would
    become the shipped face's object too; the shipped face is registered before it instead, as
    when all four were registered at start."""
    copy = tmp_path / "copy.ttf"
    shutil.copy(fonts.FONT_DIR / "DejaVuSans-BoldOblique.ttf", copy)
    code = (
        "import sys\n"
        "from reportlab.pdfbase import pdfmetrics\n"
        "from pnpkit.typeset import fonts\n"
        "fonts.use({'Copy': {(False, False): fonts.PackFace(sys.argv[1], 'abc')}})\n"
        "shipped = pdfmetrics.getFont(fonts.face_name('DejaVu Sans', True, True))\n"
        "assert pdfmetrics.getFont('Copy#abc') is shipped, 'the copy took the shipped face'\n"
        "assert shipped.fontName == 'DejaVu Sans-BoldItalic'\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    run = subprocess.run(
        [sys.executable, "-c", code, str(copy)], capture_output=True, text=True, env=env
    )
    assert run.returncode == 0, run.stderr
