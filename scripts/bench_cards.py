"""Benchmark: a synthetic deck of 1,000 distinct poker cards, built end to end.

Each card has a title, 4-7 lines of wrapped text, 3 icons and a frame; all share
one back; 9 go on an A4 page, with duplex backs. Prints cards per second for
the whole build (load, check, render, compile, impose, write the PDF) and the
time of each stage, measured in this process; then what a designer waits for:
`pnpkit build` as a new process with every output the command line writes
(PDF, per-face SVGs, preview, cache), cold (empty --out) and after a one-card
edit. --quick runs a small deck once (CI runs it so the script cannot rot).

    .venv/bin/python scripts/bench_cards.py [--cards 1000] [--runs 3] [--quick]
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pnpkit.build import pipeline as build  # noqa: E402
from pnpkit.impose import layout  # noqa: E402
from pnpkit.pdf import writer as pdf  # noqa: E402

RICH = "--rich" in sys.argv
WORDS = (
    "zażółć gęślą jaźń eĥoŝanĝo ĉiuĵaŭde perché più città draw two cards then discard one "
    "gain a wood each player may trade with the bank move the herd score ten points"
).split()
ICONS = [
    "wood",
    "brick",
    "stone",
    "gold",
    "food",
    "tool",
    "field",
    "card",
    "points",
    "person",
    "die",
    "mammoth",
]

FRONT = """{% extends "_face.svg.j2" %}
{% import "_icons.svg.j2" as icons %}
{% block content %}
<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" width="{{ face.w + 2 * face.bleed }}" height="{{ face.h + 2 * face.bleed }}" fill="{{ item.colour }}"/>
<rect x="{{ face.safe }}" y="{{ face.safe }}" width="{{ face.w - 2 * face.safe }}" height="{{ face.h - 2 * face.safe }}" rx="3" fill="#fbf7ec" stroke="#333333" stroke-width="0.6"/>
<rect x="{{ face.safe }}" y="{{ face.safe }}" width="{{ face.w - 2 * face.safe }}" height="11" rx="3" fill="{{ item.colour }}"/>
{{ text_box(item.title, face.safe + 2, face.safe + 1, face.w - 2 * face.safe - 4, 9, size=11, bold=true, anchor='middle', valign='middle', fill='#ffffff') }}
{% for icon in item.icons %}{{ icons.icon(icon, 12 + loop.index0 * 15, 20, 10) }}{% endfor %}
{{ text_box(item.text, face.safe + 3, 34, face.w - 2 * face.safe - 6, 44, size=8) }}
<text x="{{ face.w - face.safe - 2 }}" y="{{ face.h - face.safe - 2 }}" font-family="DejaVu Sans" font-size="2.5" text-anchor="end">{{ item.id }}</text>
{% endblock %}
"""  # noqa: E501 (data: markup and YAML kept as written)
BACK = """{% extends "_face.svg.j2" %}
{% import "_icons.svg.j2" as icons %}
{% block content %}
<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" width="{{ face.w + 2 * face.bleed }}" height="{{ face.h + 2 * face.bleed }}" fill="#3b2f5c"/>
<circle cx="{{ face.w / 2 }}" cy="{{ face.h / 2 }}" r="22" fill="none" stroke="#e8b923" stroke-width="1.5"/>
{{ icons.icon('mammoth', face.w / 2 - 15, face.h / 2 - 15, 30) }}
{% endblock %}
"""  # noqa: E501 (data: markup and YAML kept as written)


SHEET_FROM = 5000  # larger decks list their cards in a CSV sheet: YAML is capped at 100,000 values


def make_pack(root: Path, n: int, sheet: bool | None = None) -> Path:
    """The deck's pack under root (its templates beside it); the cards in cards.yaml, or with
    `sheet` (default: more than SHEET_FROM cards) in cards.csv."""
    rng = random.Random(1)
    sheet = n > SHEET_FROM if sheet is None else sheet
    head = [
        "cards:",
        "  kind: card",
        "  size: poker",
        "  front: bench/front.svg.j2",
        "  back: bench/back.svg.j2",
        "  fields:",
        "    title: text",
        "    text: text",
        "    colour: string",
        "    icons: {type: list, item: string}",
    ]
    rows = []
    for i in range(n):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(18, 34)))
        if RICH:  # rich text in every card: an inline icon, a bold and an italic span
            text = (
                f"Gain :{rng.choice(ICONS)}: and **{rng.choice(WORDS)}** *{rng.choice(WORDS)}*, "
                + text
            )
        colour = f"#{rng.randrange(0x202020, 0xA0A0A0):06x}"
        icons = rng.sample(ICONS, 3)  # before the title's word: the same deck as ever
        rows.append((f"card-{i:04d}", f"Card {i} {rng.choice(WORDS)}", text, colour, icons))
    pack = root / "components" / "bench"
    pack.mkdir(parents=True)
    (pack / "game.yaml").write_text(
        "name: Bench\nlanguages: [en]\nplayers: {min: 1, max: 4}\nprint: {paper: a4, bleed: 0mm, "
        "backs: long-edge}\n"
    )
    if sheet:
        with (pack / "cards.csv").open("w", newline="", encoding="utf-8") as f:
            out = csv.writer(f, lineterminator="\n")
            out.writerow(["id", "title", "text", "colour", "icons"])
            out.writerows([*row[:4], "; ".join(row[4])] for row in rows)
        lines = [*head, "  items: cards.csv"]
    else:
        lines = [*head, "  items:"] + [
            f"    - {{id: {i}, title: '{t}', text: '{x}', colour: '{c}', icons: [{', '.join(k)}]}}"
            for i, t, x, c, k in rows
        ]
    (pack / "cards.yaml").write_text("\n".join(lines) + "\n")
    templates = root / "templates"
    shutil.copytree(ROOT / "templates", templates)
    (templates / "bench").mkdir()
    (templates / "bench" / "front.svg.j2").write_text(FRONT)
    (templates / "bench" / "back.svg.j2").write_text(BACK)
    return pack


def edit_card(pack: Path, n: int, tag: str) -> None:
    """Rename card n's title (n wraps around the deck), as a designer saving one change would."""
    path = pack / "cards.csv" if (pack / "cards.csv").exists() else pack / "cards.yaml"
    text = path.read_text(encoding="utf-8")
    n %= text.count(",Card " if path.suffix == ".csv" else "title: 'Card ")
    old = f"Card {n} "
    assert old in text, old
    path.write_text(text.replace(old, f"Card {n}{tag} ", 1), encoding="utf-8")


def run_once(pack: Path, out: Path) -> dict:
    build.forget_kept()  # what this process kept from the last run: each run starts from scratch
    t0 = time.perf_counter()
    result = build.validate(pack)
    t1 = time.perf_counter()
    assert not result.errors, [str(p) for p in result.errors[:5]]
    faces = result.faces["en"]
    pages, _ = layout.impose(faces, result.pack.print, result.registry.packers)
    t2 = time.perf_counter()
    pdf.write_pdf(pages, out / "bench.pdf", "Bench", True, None)
    t3 = time.perf_counter()
    return {
        "check+render+compile": t1 - t0,
        "impose": t2 - t1,
        "pdf": t3 - t2,
        "total": t3 - t0,
        "pages": len(pages),
    }


def command_line(
    pack: Path, out: Path, runs: int
) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """Wall and CPU seconds of a new `pnpkit build` process: cold (empty --out), then after a
    one-card edit."""
    command = [sys.executable, "-m", "pnpkit", "build", str(pack), "--out", str(out)]
    cold, edited = [], []
    for run in range(runs):
        shutil.rmtree(out, ignore_errors=True)
        cold.append(timed_process(command))
        cards = pack / "cards.yaml"
        text = cards.read_text(encoding="utf-8")
        cards.write_text(
            text.replace("title: 'Card 1 ", f"title: 'Card 1{'x' * (run + 1)} ", 1),
            encoding="utf-8",
        )
        edited.append(timed_process(command))
    return cold, edited


def timed_process(command: list[str], src: Path | None = None) -> tuple[float, float]:
    """Wall and CPU (user + system, the process and its children) seconds of one process; with
    bytecode, as an installed pnpkit runs; with `src` first on its PYTHONPATH, the code of
    that tree (bench_side.py, bench_startup.py)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if src is not None:
        env["PYTHONPATH"] = str(src)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _median(times: list[tuple[float, float]]) -> str:
    wall = statistics.median(t[0] for t in times)
    return f"median {wall:.2f} s, CPU {statistics.median(t[1] for t in times):.2f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument(
        "--quick", action="store_true", help="30 cards, one run: checks that the script works"
    )
    ap.add_argument(
        "--rich",
        action="store_true",
        help="rich text in every card (inline icon, bold and italic spans)",
    )
    args = ap.parse_args()
    if args.quick:
        args.cards, args.runs = 30, 1
    with tempfile.TemporaryDirectory() as tmp:
        pack = make_pack(Path(tmp), args.cards)
        runs = [run_once(pack, Path(tmp)) for _ in range(args.runs)]
        size = (Path(tmp) / "bench.pdf").stat().st_size
        cold, edited = command_line(pack, Path(tmp) / "out", args.runs)
    total = statistics.median(r["total"] for r in runs)
    print(
        f"{args.cards} distinct poker cards + shared back, 9 per A4 "
        f"page, duplex: {runs[0]['pages']} pages, {size / 1e6:.2f} MB"
    )
    for stage in ("check+render+compile", "impose", "pdf", "total"):
        values = " / ".join(f"{r[stage]:.2f}" for r in runs)
        print(f"  {stage:22} {values} s (median {statistics.median(r[stage] for r in runs):.2f} s)")
    print(f"cards per second (end to end, median of {args.runs}): {args.cards / total:.0f}")
    print(f"pnpkit build, new process, empty --out: {_median(cold)} (n={len(cold)})")
    print(f"pnpkit build, new process, one card edited: {_median(edited)} (n={len(edited)})")


if __name__ == "__main__":
    main()
