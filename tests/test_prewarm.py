"""A first build of a large pack makes every other item's faces in a forked child
(build/prewarm.py): the kit and every message are those of a build on one core, and the build's
own pass is served the faces the child made."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pnpkit.build import prewarm

ROOT = Path(__file__).resolve().parents[1]
CARDS = prewarm.MIN_FACES // 2 + 10  # a front and a back each: just past the threshold

# A build as the CLI runs it (no thread beside it), on the cores given, printing what its cache
# did: the faces it rendered and those it was served.
BUILD = """
import json, os, sys
from pathlib import Path
from pnpkit.build import pipeline
from pnpkit.build.cache import Cache
os.sched_setaffinity(0, {int(c) for c in sys.argv[3].split(",")})
out = Path(sys.argv[2])
cache = Cache(out / pipeline.CACHE_DIR)
options = pipeline.BuildOptions(out=out, cache=cache, code=pipeline.Code(True))
result = pipeline.build(Path(sys.argv[1]), options)
print(json.dumps({"stats": dict(cache.stats), "problems": [str(p) for p in result.problems]}))
"""

pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="a build shares its faces with a child only on two cores or more",
)


def _pack(root: Path, broken: bool = False) -> Path:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from bench_cards import make_pack
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    pack = make_pack(root, CARDS)
    if broken:  # an odd item (the child's): its text cannot fit, an error the pass must report
        cards = pack / "cards.yaml"
        text = cards.read_text(encoding="utf-8")
        cards.write_text(text.replace("text: '", "text: '" + "overflowing " * 200, 4))
    return pack


def _build(pack: Path, out: Path, cores: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", BUILD, str(pack), str(out), cores],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_first_build_on_two_cores_writes_the_kit_of_one_core(tmp_path):
    pack = _pack(tmp_path / "pack")
    two = _build(pack, tmp_path / "two", "0,1")
    one = _build(pack, tmp_path / "one", "0")
    faces = 2 * CARDS
    # one core: every face rendered by the build; two: this process rendered its half (the
    # even cards' fronts and backs), and the build's pass was served every face
    assert one["stats"]["faces rendered"] == faces
    assert "faces reused" not in one["stats"]
    assert two["stats"]["faces rendered"] == 2 * ((CARDS + 1) // 2)
    assert two["stats"]["faces reused"] == faces
    assert two["problems"] == one["problems"] and one["problems"]  # the contrast warnings
    kit_two, kit_one = _files(tmp_path / "two" / "bench"), _files(tmp_path / "one" / "bench")
    assert len(kit_one) > faces and kit_two == kit_one


def test_the_childs_problems_are_reported_as_on_one_core(tmp_path):
    pack = _pack(tmp_path / "pack", broken=True)
    two = _build(pack, tmp_path / "two", "0,1")
    one = _build(pack, tmp_path / "one", "0")
    overflows = [p for p in two["problems"] if "text overflows" in p]
    assert len(overflows) == 4, overflows  # cards 0-3: two of them the child's
    assert two["problems"] == one["problems"]
    assert not (tmp_path / "two" / "bench").exists()  # an error: no kit written
