"""watch renders again only the faces whose inputs changed: a string or data value read by one
face's template renders that face again, not every face of its language."""

from __future__ import annotations

import os
import queue
import threading
from pathlib import Path

import jinja2
import pypdfium2
import pytest

from conftest import write_pack
from pnpkit.commands import watch
from pnpkit.commands.watch import Watcher
from pnpkit.faces import sharedreads

CARD = """{% extends "_face.svg.j2" %}{% block content %}
{{ text_box(item.title, 3, 3, face.w - 6, 12, size=12) }}
{% endblock %}"""
BACK = """{% extends "_face.svg.j2" %}{% block content %}
{{ text_box(s['back_word'], 3, 3, face.w - 6, 12, size=12) }}
{% endblock %}"""
RULES = """{% extends "_face.svg.j2" %}{% block content %}
{{ text_box(s.motto, 3, 3, face.w - 6, 12, size=12) }}
{{ text_box(data.limit | string, 3, 20, face.w - 6, 12, size=12) }}
{% endblock %}"""


def _pack(root: Path) -> Path:
    return write_pack(
        root,
        {
            "game.yaml": "id: tiny\nname: Tiny\nlanguages: [en]\nplayers: {min: 1, max: 2}\n"
            "print: {bleed: 0mm, backs: long-edge}\n"
            "strings:\n  motto: {en: Keep going}\n  back_word: {en: Tiny}\n"
            "data:\n  limit: 7\n  other: 1\n",
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n  front: card.svg.j2\n"
            "  back: back.svg.j2\n  fields: {title: text}\n  items:\n"
            + "".join(f"    - {{id: c{n}, title: Card {n}}}\n" for n in range(3))
            + "rules:\n  kind: card\n  size: poker\n  front: rules.svg.j2\n"
            "  items:\n    - {id: sheet}\n",
            "templates/card.svg.j2": CARD,
            "templates/back.svg.j2": BACK,
            "templates/rules.svg.j2": RULES,
        },
    )


def _edit(path: Path, old: str, new: str) -> None:
    """Save a change as an editor saving in one step does (a new file renamed over the old)."""
    text = path.read_text(encoding="utf-8")
    assert old in text
    scratch = path.with_name(f".{path.name}.tmp")  # a name the watcher does not look at
    scratch.write_text(text.replace(old, new, 1), encoding="utf-8")
    os.replace(scratch, path)


def _ok(b: watch.Build) -> bool:
    assert b.ok, b.crash or [str(p) for p in b.result.problems]
    return True


def _pdf_text(pdf: Path) -> str:
    doc = pypdfium2.PdfDocument(str(pdf))
    return "".join(page.get_textpage().get_text_range() for page in doc)


@pytest.fixture
def watched(tmp_path, monkeypatch):
    """The tiny pack, watched by a watcher looping in a thread: (pack, next build)."""
    monkeypatch.chdir(tmp_path)
    pack = _pack(tmp_path / "tiny")
    watcher = Watcher(pack, tmp_path / "build", interval=0.05)
    builds: queue.Queue = queue.Queue()
    thread = threading.Thread(target=watcher.loop, args=(builds.put,), daemon=True)
    thread.start()
    yield pack, lambda: builds.get(timeout=60)
    watcher.stop.set()
    thread.join(60)


def test_a_string_read_by_one_face_renders_that_face_again(watched, capsys):
    pack, next_build = watched
    first = next_build()
    assert _ok(first)
    assert first.stats["faces rendered"] == 7  # 3 fronts, 3 backs, the rules
    _edit(pack / "game.yaml", "Keep going", "Never stop")
    b = next_build()
    watch.report(b)
    assert _ok(b)
    assert "1 face(s) rendered, 6 unchanged" in capsys.readouterr().err
    text = _pdf_text(b.site / "tiny-en.pdf")
    assert "Never stop" in text and "Keep going" not in text and "Card 2" in text
    _edit(pack / "game.yaml", "back_word: {en: Tiny}", "back_word: {en: Small}")
    b = next_build()  # s['back_word']: the three backs
    assert _ok(b) and (b.stats["faces rendered"], b.stats["faces reused"]) == (3, 4)
    assert "Small" in _pdf_text(b.site / "tiny-en.pdf")
    _edit(pack / "game.yaml", "limit: 7", "limit: 9")
    b = next_build()  # data.limit: the rules sheet
    assert _ok(b) and (b.stats["faces rendered"], b.stats["faces reused"]) == (1, 6)
    _edit(pack / "game.yaml", "other: 1", "other: 2")
    b = next_build()  # data.other: no template reads it
    assert _ok(b) and b.stats.get("faces rendered", 0) == 0
    assert "9" in _pdf_text(b.site / "tiny-en.pdf")


@pytest.mark.parametrize(
    "source, strings, data",
    [
        ("{{ s.a }}{{ s['b'] }}{{ data.c.d }}", {"a", "b"}, {"c"}),
        ("{{ s[item.key] }}", None, set()),  # a key named by a variable: any of them
        ("{% for k in s %}{{ k }}{% endfor %}", None, set()),
        ("{{ s.items() | list }}{{ data }}", None, None),  # the dict's method; the whole table
        ("{{ m(s) }}", None, set()),  # handed on whole
        ("{{ item.s }}{{ lang }}", set(), set()),  # another name's key `s` is not the table
    ],
)
def test_the_keys_a_template_reads(source, strings, data):
    reads = sharedreads.tree_reads(jinja2.Environment().parse(source))
    assert reads == tuple(None if k is None else frozenset(k) for k in (strings, data))
