"""The kit's per-face SVG files: written after the PDFs, or linked to the files of the previous
kit (or of watch's spare kit) that hold the same SVG.

build._write() has a SvgWriter write the staging kit's files before the swap; watch keeps
the previous kit as the next build's spare (take_spare, keep_as_spare, link_spare). What this
process knows of the files it wrote (_KNOWN) is kept in the current workspace for the next
build (watch's): a file that still has the inode, size and time it had holds that SVG.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from pnpkit import memo, workspace
from pnpkit.build import output
from pnpkit.pack.model import Face


class SvgWriter:
    """_write_svgs() of every language, once the PDFs are written. (A forked child writing them
    alongside the PDFs gained 7-9 % of a cold 1,000-card build, measured side by side: under the
    10 % a mechanism must gain, so it went; a thread measured seconds slower still.)

    When this process knows nearly every file the previous build holds (_KNOWN: `watch` after
    a save), it links them rather than writing them. When the folder is `reused` (watch's spare
    kit, take_spare), a file it holds already that is the live kit's own (the same inode, size
    and time) stays, and only the others are replaced."""

    def __init__(self, langs: list[tuple[list[Face], Path, Path]], reused: bool) -> None:
        self.langs = [
            _SvgFiles.of(faces, folder, previous, reused) for faces, folder, previous in langs
        ]
        self.reused = reused

    def write(self) -> None:
        twins: dict[str, str] = {}  # shared: a face drawn alike in two languages is one file
        for files in self.langs:
            _write_svgs(files, self.reused, twins)
        if not memo.handing_on():  # _KNOWN serves only the next build of this process:
            self._forget()  # what it knew of the files this build replaces no longer holds
            return
        for files in self.langs:
            before, staged = os.path.abspath(files.previous), str(files.folder)
            for face, signature in zip(files.faces, files.known):
                # A known file was kept or linked: _KNOWN holds its SVG and signature already,
                # which stand (were a link refused and the file written instead, the next build
                # would find the signature wrong and read the file). Only files written or
                # linked to a twin are looked at and remembered.
                if signature is None:
                    name = _svg_name(face)
                    _remember(before, name, face.svg, _signature(f"{staged}/{name}"))

    def _forget(self) -> None:
        if _KNOWN:  # empty in a one-shot command: nothing to look up
            for files in self.langs:
                before = os.path.abspath(files.previous)
                for face in files.faces:
                    _KNOWN.pop(f"{before}/{_svg_name(face)}", None)


@dataclass
class _SvgFiles:
    """One language's face SVG files: written into `folder` (in the staging kit), where the live
    kit holds them in `previous`. Per face, `known`: _known() of its file in the live kit, or
    the signature of the one the reused folder keeps (`here`)."""

    faces: list[Face]
    folder: Path
    previous: Path
    known: list[Signature | None]
    here: list[bool]

    @classmethod
    def of(cls, faces: list[Face], folder: Path, previous: Path, reused: bool) -> _SvgFiles:
        before = os.path.abspath(previous)
        here = _in_place(faces, folder, before) if reused else [None] * len(faces)
        known = [kept or _known(before, _svg_name(face), face) for face, kept in zip(faces, here)]
        return cls(faces, folder, previous, known, [kept is not None for kept in here])


def keep_as_spare(staging: Path, final: Path) -> None:
    """A complete kit `ready` dropped becomes final's spare in place of the one it started from
    (taken: take_spare), so the next build does not write every SVG file again: the spare's
    files are checked one by one before any is kept (_in_place), as any spare's are."""
    spare = output.spare_for(final)
    output.remove_kit(spare)  # none: this build took it
    try:
        os.rename(staging, spare)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)


def link_spare(final: Path) -> bool:
    """Give the live kit `final` a spare made of hard links to its face SVG files when it has
    none (watch's first build: no kit before it), so the first rebuild starts from a spare as
    every later one does. Without one it linked each file of the live kit itself (a 1,000-card
    deck's 2,000: 60-70 ms of the first save's rebuild); watch makes it once the build is
    reported. Its files are the live kit's own inodes, which _in_place keeps as it keeps any
    spare's (a symlink is copied as one, never followed, and _in_place removes it). The caller
    holds the output folder's lock. False if there was a spare, or nothing to link; a folder
    that cannot be linked whole leaves no spare."""
    spare, svg = output.spare_for(final), final / "svg"
    if os.path.lexists(spare) or not svg.is_dir() or svg.is_symlink():
        return False
    try:
        shutil.copytree(svg, spare / "svg", symlinks=True, copy_function=os.link)
        output.mark(spare)
    except OSError:  # shutil.Error too: the files it could not link
        shutil.rmtree(spare, ignore_errors=True)
        return False
    return True


def take_spare(final: Path, staging: Path, langs: set[str]) -> bool:
    """Start the kit in staging from final's spare (output.keep_spares: the kit before the live
    one, kept by watch), of which only the per-face SVG files of these languages stay, for
    SvgWriter to check one by one; False when there is no spare (or not a plain folder)."""
    spare = output.spare_for(final)
    try:
        if not output.is_kit(spare):  # a plain folder holding the marker: pnpkit's own
            return False
        os.rename(spare, staging)
    except OSError:
        return False
    try:
        _clear(staging, {"svg"})
        if (staging / "svg").is_dir():
            _clear(staging / "svg", langs)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        return False
    return True


def _clear(folder: Path | str, keep: set[str], files: bool = False) -> dict[str, int]:
    """Remove every entry of folder but those named in keep that are real folders (`files`:
    regular files); a symlink is removed, never followed. The entries kept, by name: their
    inode numbers, as the folder lists them."""
    kept: dict[str, int] = {}
    with os.scandir(folder) as entries:
        for entry in entries:
            wanted = entry.is_file if files else entry.is_dir
            if entry.name in keep and wanted(follow_symlinks=False):
                kept[entry.name] = entry.inode()
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
    return kept


def _in_place(faces: list[Face], folder: Path, before: str) -> list[Signature | None]:
    """Per face, in a reused folder: the signature of its file there when that file is the one
    the live kit (`before`) holds and this process knows it holds the face's SVG; else None.
    Every other entry of the folder goes: files of faces no longer built, anything not a file."""
    paths = [_svg_name(face) for face in faces]  # each made once: 2,000 in a 1,000-card deck
    names: dict[str, set[str]] = {}
    for path in paths:
        group, _, file = path.partition("/")
        names.setdefault(group, set()).add(file)
    inodes: dict[str, int] = {}  # of the files kept, by their names in the folder
    try:
        if folder.is_dir():
            _clear(folder, set(names))
            for group, wanted in names.items():
                if (folder / group).is_dir():
                    listed = _clear(folder / group, wanted, files=True)
                    inodes.update((f"{group}/{file}", ino) for file, ino in listed.items())
    except OSError:  # an entry that cannot go: this language's files are written afresh
        shutil.rmtree(folder, ignore_errors=True)
        return [None] * len(faces)
    return _kept_here(faces, paths, str(folder), before, inodes)


def _kept_here(
    faces: list[Face], paths: list[str], staged: str, before: str, inodes: dict[str, int]
) -> list[Signature | None]:
    """_known() of each face's file (`paths`: their _svg_name()s) in the folder `staged`, its
    inode as the folder lists it: files that are links to one inode (a deck's thousand backs,
    drawn alike) are judged by one stat of it, not one each (a stat costs this VM 12-18 us,
    half of watch's look at a 1,000-card spare). A file whose listed inode is not the one kept
    is not the file known."""
    judged: dict[int, Signature | None] = {}  # by inode: its signature, stat'ed once
    found: list[Signature | None] = []
    for face, name in zip(faces, paths):
        kept = _KNOWN.get(f"{before}/{name}")
        ino = inodes.get(name)
        if kept is None or kept[0] != face.svg or ino != kept[1][0]:
            found.append(None)
            continue
        if ino not in judged:
            signature = _signature(f"{staged}/{name}")
            judged[ino] = signature if signature and signature[0] == ino else None
        found.append(judged[ino] if judged[ino] == kept[1] else None)
    return found


def _write_svgs(files: _SvgFiles, occupied: bool, twins: dict[str, str]) -> None:
    """Each face's SVG; one the previous build wrote with the same bytes is linked (output.put),
    without reading it when this process knows what it holds (`known`), and one the reused
    folder holds already (`here`) stays. A face whose SVG a file of this build holds already
    (`twins`: svg_key -> that file; most decks share one back) is linked to it: creating a file
    cost issue 16's VM 0.15-0.9 ms, linking one 20-40 us (scripts/bench_files.py).
    `occupied`: the folder may hold files already (a reused spare),
    each maybe a link to another file, so none is written into. Paths are strings: a thousand
    faces' Path objects cost more than linking their files."""
    for group in {face.group for face in files.faces}:
        (files.folder / group).mkdir(parents=True, exist_ok=True)
    before, staged = os.path.abspath(files.previous), str(files.folder)
    for face, signature, done in zip(files.faces, files.known, files.here):
        key = face.svg_key
        if done:  # (its path made only for the first file of its SVG: a reused kit's are most)
            if key not in twins:
                twins[key] = f"{staged}/{_svg_name(face)}"
            continue
        name = _svg_name(face)
        old, new = f"{before}/{name}", f"{staged}/{name}"
        if occupied:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(new)
        twin = twins.setdefault(key, new)
        linked = signature is not None and output.link(old, new)
        if not linked and not (twin != new and output.link(twin, new)):
            output.put(face.svg.encode("utf-8"), Path(new), Path(old))
            twins[key] = new  # a twin refusing a link (its inode has the most it takes)


def _svg_name(face: Face) -> str:
    return f"{face.group}/{face.item}-{face.side}.svg"


# The face SVG files this process wrote or linked into a kit, by the path they have in the live
# kit after the swap (the next build's `previous`): the SVG each holds, and the file's inode,
# size and modification time then. A file that still has them holds that SVG (as watch judges
# the pack's own files); one changed since, by anyone, is read and compared again.
Signature = tuple[int, int, int]
_KNOWN = workspace.Memo[str, tuple[str, Signature]]("svgfiles.known")
KNOWN_KEPT = 200_000  # files; more, and it starts afresh


def _signature(path: str) -> Signature | None:
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _known(before: str, name: str, face: Face) -> Signature | None:
    """The signature of the previous build's file `name` (in the absolute folder `before`) when
    this process knows it holds the face's SVG; else None (its text read only then: a large
    build's waits in a file, cache.KeptFace)."""
    kept = _KNOWN.get(f"{before}/{name}")
    if kept is None or kept[0] != face.svg:
        return None
    signature = _signature(f"{before}/{name}")
    return signature if signature == kept[1] else None


def _remember(before: str, name: str, svg: str, signature: Signature | None) -> None:
    """The file `name`, whose staged copy has this signature, holds svg; after the swap it is
    the file `name` in `before` (its inode, size and time move with it)."""
    key = f"{before}/{name}"
    if signature is None:
        _KNOWN.pop(key, None)
        return
    memo.remember(_KNOWN, key, (svg, signature), KNOWN_KEPT)
