"""The output folder: one writer at a time, and a new kit replaces the old one whole.

A build (or an export) writes its kit into a staging folder beside the live one
(`.<name>.partial`) and, once it is complete, swaps the two in one step. On
Linux that step is renameat2(RENAME_EXCHANGE) and on macOS renamex_np(RENAME_SWAP):
the live name points at the old folder, then at the new one, never at nothing,
so a process killed at any moment leaves either the previous kit or the new one,
each whole. Where neither call exists (or the file system refuses it) the swap
falls back to two renames, final -> `.<name>.old` then staging -> final; a kill
between them leaves no kit under the live name for a moment, and the next build
puts `.old` back before anything else (tidy()).

Writers hold an exclusive lock (flock) on OUT/pnpkit-cache/build.lock while they
touch the output, so two builds into the same --out take turns instead of
renaming folders under each other. The kernel drops the lock when its holder
dies, even by kill -9, so a crash never leaves a stale lock. The holder writes
its pid and what it builds into the file; a build that has to wait says so once
on stderr and gives up after TIMEOUT seconds with an error naming the holder.

Only a kit pnpkit wrote is ever replaced or removed: every kit folder (and every staging
folder, from its first moment) holds the marker file MARKER, and a folder without it is
refused (NotKit), never deleted. --out is kept apart from the pack and the project's
components/ and templates/ folders (clash()), so a kit's folder can never be a pack's.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import io
import os
import shutil
import stat
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import BinaryIO

from pnpkit import workspace
from pnpkit.pack.paths import display_path

fcntl: ModuleType | None
try:
    import fcntl as _fcntl

    fcntl = _fcntl
except ImportError:  # Windows: no flock; builds there are not made exclusive
    fcntl = None

LOCK = Path("pnpkit-cache") / "build.lock"  # under OUT, beside the cache it also protects
TIMEOUT = 300.0  # seconds to wait for another build before giving up
POLL = 0.05  # seconds between attempts to take the lock


MARKER = ".pnpkit-kit"  # in every folder pnpkit writes a kit into: only such a folder is removed
_MARKER_TEXT = "A kit written by pnpkit: the next build into this folder replaces it whole.\n"


def unsafe_cache(out: Path) -> str | None:
    """Why OUT/pnpkit-cache may not be used, or None: it is a link (what the build wrote there
    would go wherever it leads), not a folder, or another user's (what it holds is theirs to
    plant). Such a folder is left alone: the build goes on without a cache, and its lock is
    taken on `out` itself."""
    folder = out / LOCK.parent
    try:
        st = os.lstat(folder)
    except OSError:  # none yet; or OUT is no folder, which writing into it reports
        return None
    if stat.S_ISLNK(st.st_mode):
        problem = "is a link"
    elif not stat.S_ISDIR(st.st_mode):
        problem = "is not a folder"
    elif hasattr(os, "getuid") and st.st_uid != os.getuid():
        problem = "belongs to another user"
    else:
        return None
    return (
        f"{display_path(folder)} {problem}, so it was not used: built without the build cache, "
        "and nothing was written there"
    )


class Busy(Exception):
    """Another build held the output folder for longer than TIMEOUT."""


class NotKit(Exception):
    """A folder a kit would replace was not written by pnpkit (it holds no MARKER)."""


def clash(out: Path, pack: Path) -> str | None:
    """Why `out` may not take `pack`'s kit, or None: it is, holds or lies inside the pack
    folder, the components/ folder the pack lies in or the shared templates/ beside it (a
    kit's folder swapped in there would replace the pack; one inside would mix with it)."""
    real_out = Path(os.path.realpath(out))
    for folder, what in _kept_apart(pack):
        real = Path(os.path.realpath(folder))
        if real == real_out:
            relation = "is"
        elif real in real_out.parents:
            relation = "lies inside"
        elif real_out in real.parents:
            relation = "holds"
        else:
            continue
        return (
            f"--out {display_path(out)} {relation} {what} {display_path(folder)}: a kit written "
            "there would replace or mix with it; choose an output folder apart from the packs "
            "and templates, e.g. --out build"
        )
    return None


def _kept_apart(pack: Path) -> list[tuple[Path, str]]:
    """The folders no kit may be written into, over or around, with what the message calls them:
    the pack; components/ when the pack lies in one; templates/ beside it (render's shared
    templates, found from the pack as named)."""
    named = Path(os.path.abspath(pack))
    kept = [(named, "the pack folder")]
    if named.parent.name == "components":
        kept.append((named.parent, "the packs folder"))
    shared = named.parent.parent / "templates"
    if shared.is_dir():
        kept.append((shared, "the shared templates folder"))
    return kept


def mark(folder: Path) -> None:
    """Mark `folder` as a kit pnpkit writes (see MARKER); staging folders get it when made."""
    (folder / MARKER).write_text(_MARKER_TEXT, encoding="utf-8")


def new_staging(final: Path) -> Path:
    """The staging folder for `final`, made and marked; NotKit if a folder not pnpkit's has its
    name (tidy() removed pnpkit's)."""
    staging = staging_for(final)
    replaceable(staging)
    staging.mkdir(parents=True)
    mark(staging)
    return staging


def is_kit(folder: Path) -> bool:
    """Whether `folder` is a real folder (not a link) holding the marker as a regular file."""
    try:
        return stat.S_ISDIR(os.lstat(folder).st_mode) and stat.S_ISREG(
            os.lstat(folder / MARKER).st_mode
        )
    except OSError:
        return False


def _empty(folder: Path) -> bool:
    """Whether `folder` is a real, empty folder (what a writer killed before marking it left)."""
    try:
        return stat.S_ISDIR(os.lstat(folder).st_mode) and not os.listdir(folder)
    except OSError:
        return False


def replaceable(final: Path) -> None:
    """Raise NotKit unless `final` is free, empty or a kit pnpkit wrote: what a new kit may
    replace."""
    if os.path.lexists(final) and not (is_kit(final) or _empty(final)):
        raise NotKit(
            f"{display_path(final)} was not written by pnpkit (it holds no {MARKER} file), so "
            "the kit was not put there and the folder was left as it is; move it away or "
            "choose another --out"
        )


def remove_kit(folder: Path) -> None:
    """Remove `folder` if it is a kit pnpkit wrote, or empty; anything else stays. The marker
    goes last, so a removal cut short leaves a folder that is still known as a kit."""
    if is_kit(folder):
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name == MARKER:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
        with contextlib.suppress(OSError):
            os.unlink(folder / MARKER)
            os.rmdir(folder)
    elif _empty(folder):
        with contextlib.suppress(OSError):
            os.rmdir(folder)


@contextlib.contextmanager
def locked(
    out: Path, what: str, say: Callable[[str], None] | None = None, timeout: float | None = None
) -> Iterator[None]:
    """Hold the output folder `out` for the block; `what` tells a waiting build who holds it.

    Raises Busy after `timeout` (default TIMEOUT) seconds of waiting, OSError when
    the folder cannot be written."""
    fd, holds_text = _lock_file(out)
    try:
        _acquire(fd, out, timeout if timeout is not None else TIMEOUT, say or _say)
        if holds_text:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()}, {what}\n".encode(), 0)
        yield
        if holds_text:
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # releases the lock


def _lock_file(out: Path) -> tuple[int, bool]:
    """The open file the lock is taken on, and whether it holds the holder's words: LOCK, or,
    when the cache folder may not be used (unsafe_cache), the folder `out` itself, so nothing
    is written through a link or into another user's folder."""
    if unsafe_cache(out) is not None:
        out.mkdir(parents=True, exist_ok=True)
        return os.open(out, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)), False
    path = out / LOCK
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = (
        os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    )  # never truncate a file a symlink names
    return os.open(path, flags, 0o644), True


def _acquire(fd: int, out: Path, timeout: float, say: Callable[[str], None]) -> None:
    if fcntl is None:
        return
    deadline = time.monotonic() + timeout
    told = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        holder = _holder(fd)
        if time.monotonic() >= deadline:
            raise Busy(
                f"{out} is still in use by another build ({holder}) after {timeout:g} s; "
                "wait for it to finish or stop it, then build again"
            )
        if not told:
            say(
                f"pnpkit: {out} is in use by another build ({holder}); waiting for it to finish "
                f"(up to {timeout:g} s, Ctrl-C stops)"
            )
            told = True
        time.sleep(POLL)


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 512, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    return text or "pid unknown"


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- staging and swapping


def put(data: bytes, target: Path, previous: Path | None) -> None:
    """Write `data` to `target` in a staging folder; when `previous`, the live kit's file, holds
    exactly these bytes, hard-link it instead: linking is cheap and steady, while writing
    thousands of files can stall for a second when the disk is busy. Unlike moving, linking
    leaves the live kit as it is, so a build that fails or is killed leaves it whole. Where a
    link is refused, the file is written."""
    if previous is not None and _same(previous, data) and link(previous, target):
        return
    with open(target, "wb") as f:
        f.write(data)


def put_written(written: Path, target: Path, previous: Path | None) -> None:
    """put() for a file written already (`written`, beside `target` in the staging folder): it
    becomes `target`, or, when `previous` holds exactly its bytes, `previous` is linked there
    instead and it goes, as put() links it."""
    if previous is not None and _same_file(previous, written) and link(previous, target):
        os.unlink(written)
    else:
        os.replace(written, target)


def _same_file(path: Path, written: Path) -> bool:
    """Is `path` a regular file (not a symlink) holding exactly the bytes of `written`?"""
    with open(written, "rb") as g:
        return _holds(path, g, os.fstat(g.fileno()).st_size)


def _same(path: Path, data: bytes) -> bool:
    """Is `path` a regular file (not a symlink) holding exactly `data`?"""
    return _holds(path, io.BytesIO(data), len(data))


def _holds(path: Path, other: BinaryIO, size: int) -> bool:
    """Is `path` a regular file (not a symlink) of `size` bytes, those `other` reads? Read a part
    at a time: a large kit's page is 12 MB."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    with open(fd, "rb") as f:
        st = os.fstat(fd)
        if not (stat.S_ISREG(st.st_mode) and st.st_size == size):
            return False
        left = size
        while left:  # reads sized to what is left: a small file gets no MB-sized buffer
            n = min(_PART, left)
            if f.read(n) != other.read(n):
                return False
            left -= n
        return not f.read(1)  # the file grew since fstat


_PART = 1 << 20  # bytes compared at a time


def link(source: str | Path, target: str | Path) -> bool:
    """Hard-link source as target (a file known to hold the bytes); False where it cannot."""
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError:  # a file system without hard links, another device, too many links
        return False
    return True


def staging_for(final: Path) -> Path:
    return final.with_name(f".{final.name}.partial")


def _old_for(final: Path) -> Path:
    return final.with_name(f".{final.name}.old")


def spare_for(final: Path) -> Path:
    return final.with_name(f".{final.name}.spare")


def tidy(folder: Path, keep_spares: bool = False) -> None:
    """Under the lock, before writing into `folder`: put back a kit a killed fallback swap left
    as `.<name>.old`, and remove every staging folder a killed writer left behind, and the
    spare kits watch keeps (keep_spares: watch's own build, which starts from its spare)."""
    if not folder.is_dir():
        return
    for old in folder.glob(".*.old"):
        final = old.with_name(old.name[1 : -len(".old")])
        if os.path.lexists(final) or not is_kit(old):
            remove_kit(old)
            continue
        with contextlib.suppress(OSError):  # if it cannot go back, the new build replaces it anyway
            os.rename(old, final)
    for partial in folder.glob(".*.partial"):
        remove_kit(partial)
    if not keep_spares:
        for spare in folder.glob(".*.spare"):
            remove_kit(spare)


def keep_spares(folder: Path) -> None:
    """Under the lock, after watch has reported a build: each previous kit, left beside the new
    one as a staging folder, becomes that kit's spare (`.<name>.spare`), which watch's next
    build takes as its staging folder instead of linking every file of the kit again. A spare
    is never live: a build that fails or is killed leaves the live kit as it was."""
    if not folder.is_dir():
        return
    for partial in folder.glob(".*.partial"):
        if not is_kit(partial):
            continue
        spare = spare_for(partial.with_name(partial.name[1 : -len(".partial")]))
        remove_kit(spare)
        try:
            os.rename(partial, spare)
        except OSError:
            remove_kit(partial)


def swap_in(staging: Path, final: Path, remove_old: bool = True) -> None:
    """Replace `final` by the complete folder `staging` in one step (the caller holds the lock).
    With remove_old False the previous output may stay behind as a staging folder, for tidy()
    to remove later (watch does once it has said the build is done). Raise NotKit, and change
    nothing, when `final` is not a kit pnpkit wrote."""
    replaceable(final)
    if not os.path.lexists(final):
        os.rename(staging, final)
    elif exchange(staging, final):
        if remove_old:
            remove_kit(staging)  # now the previous output
    else:
        old = _old_for(final)
        remove_kit(old)
        os.rename(
            final, old
        )  # a kill from here to the next line leaves the kit in `old`; tidy() restores it
        os.rename(staging, final)
        remove_kit(old)


def exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths atomically; False where the system or file system cannot."""
    call = _exchange_call()
    if call is None:
        return False
    if call(os.fsencode(a), os.fsencode(b)) == 0:
        return True
    err = ctypes.get_errno()
    if err in _UNSUPPORTED:  # an old kernel, or a file system without the call: two renames will do
        return False
    raise OSError(err, os.strerror(err), str(a), None, str(b))


_UNSUPPORTED = frozenset(
    {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)}
)
_Exchange = Callable[[bytes, bytes], int]


@workspace.memoized(1)
def _exchange_call() -> _Exchange | None:
    """A function (a, b) -> 0 or -1 that swaps two paths, found once; None if the C library has
    none."""
    return _find_exchange()


def _find_exchange() -> _Exchange | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    if sys.platform.startswith("linux") and hasattr(libc, "renameat2"):  # glibc 2.28+, musl 1.2.5+
        fn = libc.renameat2
        fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
        at_fdcwd, rename_exchange = -100, 2
        return lambda a, b: fn(at_fdcwd, a, at_fdcwd, b, rename_exchange)
    if sys.platform == "darwin" and hasattr(libc, "renamex_np"):
        fn = libc.renamex_np
        fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint]
        rename_swap = 2
        return lambda a, b: fn(a, b, rename_swap)
    return None
