"""`build --changes`: which faces differ from the previous build in the same output folder.

The previous build left the exact SVG of every face in
OUT/<game>/svg/<lang>/<group>/<id>-<side>.svg, so "changed" means what prints differs, whatever edit
caused it (a sheet cell, a template, a shared string). An item is reprinted whole: if either side
changed, both go into the changes PDF, so fronts and backs still pair up on the paper.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from pnpkit.pack.model import Face


@dataclass
class Changes:
    """One language's comparison with the previous build."""

    lang: str
    previous: bool  # was there a previous build to compare with?
    added: list[str] = field(default_factory=list)  # "group/item-side"
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        if not self.previous:
            return [
                f"{self.lang}: no previous build to compare with; the changes PDF holds every face"
            ]
        out = [
            f"{self.lang}: {what} {name}"
            for what, names in (
                ("added", self.added),
                ("changed", self.changed),
                ("removed", self.removed),
            )
            for name in names
        ]
        if self.added or self.changed:
            return out
        if out:  # faces were only removed
            return out + [f"{self.lang}: nothing to reprint, so no changes PDF"]
        return [f"{self.lang}: nothing changed since the previous build, so no changes PDF"]


def _read(path: Path) -> bytes | None:
    """A previous face's SVG; a symlink planted in the output is not followed (it is no face of
    ours)."""
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )  # a FIFO must not hang us
    except OSError:
        return None
    with open(fd, "rb") as f:
        return f.read() if stat.S_ISREG(os.fstat(fd).st_mode) else None


def compare(faces: list[Face], previous: Path, lang: str) -> tuple[Changes, list[Face]]:
    """The comparison, and the faces to reprint: every side of each item with a new or changed
    side."""
    if not previous.is_dir():
        return Changes(lang, False), list(faces)
    report = Changes(lang, True)
    seen, reprint = set(), set()
    for face in faces:
        name = f"{face.group}/{face.item}-{face.side}"
        seen.add(name)
        old = _read(previous / f"{name}.svg")
        if old is None:
            report.added.append(name)
            reprint.add((face.group, face.item))
            continue
        if old != face.svg.encode("utf-8"):
            report.changed.append(name)
            reprint.add((face.group, face.item))
    old_names = (
        p.relative_to(previous).with_suffix("").as_posix() for p in previous.glob("*/*.svg")
    )
    report.removed = sorted(name for name in old_names if name not in seen)
    return report, [f for f in faces if (f.group, f.item) in reprint]
