"""Benchmark: what a designer waits for in `pnpkit studio` after saving an edit.

The 1,000-card deck of bench_cards.py (its cards in cards.csv), served by the studio in this
process; each run sends one edit of a card's title through the studio's own HTTP API, as the
page does, and times from sending it (the file is written by the studio) until the studio
says a good build newer than the edit is there and the card's face, as served, shows the new
title; and the CPU time the studio's process spent meanwhile (a shared machine's load does not
inflate it). The first build (cold) is not counted. --quick runs a small deck once (CI runs it
so the script cannot rot).

    .venv/bin/python scripts/bench_studio.py [--cards 1000] [--runs 7] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_cards import make_pack  # noqa: E402
from pnpkit.commands import studioserver  # noqa: E402
from pnpkit.commands.studiosession import Studio, StudioWatcher  # noqa: E402


def call(url: str, token: str = "", body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", studioserver.TOKEN_HEADER: token}
    with urllib.request.urlopen(urllib.request.Request(url, data, headers), timeout=120) as r:
        return json.loads(r.read())


def _cpu() -> float:
    """CPU seconds of this process and the children it waited for (a build may fork some)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def one_edit(base: str, token: str, card: str, title: str) -> tuple[float, float, float, float]:
    """Seconds from sending the edit until it is written (the answer), until the build after it
    is done, and until the rebuilt face with the new title is served; and the CPU seconds this
    process (the studio and its client) and its children spent meanwhile, which a shared
    machine's load does not inflate: about what the edit takes on a machine of its own."""
    api = base + studioserver.API.lstrip("/")
    cpu = _cpu()
    started = time.perf_counter()
    edit = {"group": "cards", "item": card, "op": "set", "field": "title", "value": title}
    serial = call(api + "edit", token, {**edit, "lang": "en"})["serial"]
    written = time.perf_counter() - started
    built = 0.0
    while True:
        state = call(api + "state")
        if state["serial"] > serial and not built:
            built = time.perf_counter() - started
        if state["ok"] and state["good"] > serial:
            faces = call(api + "faces")
            src = next(
                f["src"]
                for g in faces["langs"][0]["groups"]
                for i in g["items"]
                if i["id"] == card
                for f in i["faces"]
                if f["side"] == "front"
            )
            with urllib.request.urlopen(base + src, timeout=60) as r:
                if title.encode() in r.read():
                    served = time.perf_counter() - started
                    return written, built, served, _cpu() - cpu
        time.sleep(0.01)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cards", type=int, default=1000)
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--quick", action="store_true", help="a small deck, one run")
    args = p.parse_args()
    if args.quick:
        args.cards, args.runs = 20, 1
    with tempfile.TemporaryDirectory() as tmp:
        pack = make_pack(Path(tmp), args.cards, sheet=True)
        watcher = StudioWatcher(pack, Path(tmp) / "out")
        studio = Studio(watcher)
        server = studioserver.server(studio, 0)
        loop = threading.Thread(target=watcher.loop, args=(lambda b: None,), daemon=True)
        loop.start()
        try:
            while watcher.good is None:
                time.sleep(0.05)
            cards = [f"card-{(7 * run) % args.cards:04d}" for run in range(args.runs)]
            times = [
                one_edit(server.url, studio.token, card, f"Edited {run}")
                for run, card in enumerate(cards)
            ]
        finally:
            watcher.stop.set()
            loop.join()
            server.close()
    shown = ", ".join(f"{t[2]:.3f}" for t in times)
    print(f"{args.cards} cards, {args.runs} edit(s) of one card's title in cards.csv: {shown} s")
    for n, what in enumerate(("written (the edit's answer)", "built (the state says so)")):
        print(f"  {what}: median {statistics.median(t[n] for t in times):.3f} s")
    median = statistics.median(t[2] for t in times)
    cpu = statistics.median(t[3] for t in times)
    print(f"  CPU time of the studio process over the same span: median {cpu:.3f} s")
    print(f"studio, edit saved -> rebuilt face served: median {median:.3f} s")


if __name__ == "__main__":
    main()
