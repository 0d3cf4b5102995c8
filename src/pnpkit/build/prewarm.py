"""A first build's faces made on two cores.

A build with no cache spends most of its time making faces: rendering each template, compiling
its SVG and checking its texts, one face after another. When the pack has many faces and a
second core is free, a forked child makes every other item's faces while this process makes the
rest; the child hands back the cache entries it made (marshal, as the cache file holds them),
and the build's own pass then finds every face in the cache (cache.py).

What the pass writes is what a build on one core writes: an entry is keyed by everything its
face, drawing or text check depends on, so a face whose key the child could not match (its
problems are never cached, nor is anything of a child that failed) is simply made again by the
pass, which also reports every problem. tests/test_prewarm.py compares the kits byte for byte.

Only where it pays and is safe: a one-shot build (watch and the studio keep their own cache and
run threads, and fork is unsafe beside a thread), no entry cached for the pack yet, at least
MIN_FACES faces and fewer than the streamed build's (earlyforms.py), fork available and two cores
this process may run on (`taskset -c 0 pnpkit build ...` keeps a build on one).
"""

from __future__ import annotations

import dataclasses
import marshal
import os
from collections.abc import Callable

from pnpkit.build import child
from pnpkit.build.cache import Cache
from pnpkit.build.cachefile import Entry
from pnpkit.pack.model import Pack

# faces a language: fewer, and there is little to share (MLEM's 127: 13 % less CPU on the path)
MIN_FACES = 100


def worth_it(cache: Cache, faces: int) -> bool:
    """Whether a build of `faces` faces a language (fewer than a streamed build's) with this
    cache should share its faces with a child."""
    return faces >= MIN_FACES and not cache.deferred and not cache.faces and child.may_fork()


def prewarm(pack: Pack, cache: Cache, make: Callable[[Pack], None]) -> None:
    """make(part) makes the faces of `part` (the pack with some of its items) into the cache:
    the child makes the odd items' faces, this process the even ones'; then the child's entries
    join the cache. Whatever goes wrong in the child only leaves its faces to the build's pass."""
    read, write = os.pipe()
    helper = child.Child(lambda: _make_and_send(_part(pack, 1), cache, make, write))
    os.close(write)
    try:
        make(_part(pack, 0))
        data = _read_all(read) if helper.started else b""
        if helper.wait() == 0:
            _take(cache, marshal.loads(data))
    finally:
        os.close(read)
        helper.stop()  # this process failed (Ctrl-C, say): the child's work is not wanted


def _part(pack: Pack, odd: int) -> Pack:
    """The pack with every other item of each group: the even ones (odd=0) or the odd ones.
    Interleaved, so both halves hold as many of each group's (and template's) faces."""
    groups = {
        name: dataclasses.replace(group, items=group.items[odd::2])
        for name, group in pack.groups.items()
    }
    return dataclasses.replace(pack, groups=groups)


def _make_and_send(part: Pack, cache: Cache, make: Callable[[Pack], None], fd: int) -> None:
    """The child's work: part's faces made, and the entries they made sent through fd."""
    make(part)
    view = memoryview(marshal.dumps(_made(cache)))
    while view:
        view = view[os.write(fd, view) :]


Made = tuple[dict[bytes, Entry], dict[bytes, Entry], dict[bytes, Entry]]


def _made(cache: Cache) -> Made:
    """The cache's entries of faces, drawings and text checks made or used in this build."""
    now = cache.generation

    def this(table: dict[bytes, Entry]) -> dict[bytes, Entry]:
        return {key: entry for key, entry in table.items() if entry[0] == now}

    return this(cache.faces), this(cache.drawings), this(cache.texts.entries)


def _take(cache: Cache, made: Made) -> None:
    """The child's _made() joins this build's entries."""
    faces, drawings, texts = made
    for table, entries in ((cache.faces, faces), (cache.drawings, drawings)):
        for key, entry in entries.items():
            table.setdefault(key, entry)
    cache.texts.take(cache.path, texts)


def _read_all(fd: int) -> bytes:
    parts = []
    while chunk := os.read(fd, 1 << 20):
        parts.append(chunk)
    return b"".join(parts)
