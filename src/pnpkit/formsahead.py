"""A large PDF's new face forms drawn on the second core while this process writes the PDF.

Drawing each distinct face into its PDF form is most of writing a PDF. The cache
(cache.FormDrawing) already replays a form's content from an earlier build when the
document's font state is the same; this module makes such entries during the build
itself: a forked child starts the same document (pnpkit.pdf.start_canvas: the same
fonts, the same print-check pages, so the same font state), draws the later share of the
faces' forms and hands the cache entries back through a pipe. This process writes the
PDF as always, drawing the earlier faces itself; at the first form it does not find, it
takes the child's entries (waiting for them once). An entry is keyed by the font state it
was drawn with, so one the child made under any other state is simply never found and
that form is drawn here: the PDF is byte for byte the one a single process writes.

Only a build that compiled at least MIN_FORMS drawings afresh (a cold build of a large
pack) forks: after a one-card edit the forms come from the cache and a child would cost
more than it saves. Where fork is missing, or the child fails, everything is drawn here.
"""

from __future__ import annotations

import marshal
import os
import signal
from collections.abc import Callable
from typing import TypeVar

MIN_FORMS = 100  # drawings compiled in this build below which a child does not pay for itself
SHARE = (
    0.6  # of the distinct faces, the later part the child draws: this process also lays out pages
)

Entries = dict[bytes, list[object]]  # the cache's forms: key -> [generation, content, states]


class Ahead:
    """A child drawing forms; collect() its entries (once, waiting for it), close() in the end."""

    def __init__(self, pid: int, fd: int, keys: set[bytes]) -> None:
        self.pid, self.fd = pid, fd
        self.keys = keys  # the drawings whose forms the child draws
        self.taken = False

    def entries_for(self, key: bytes) -> Entries:
        """On a form not found: the child's entries if the child draws this drawing (waiting for
        them the first time), else {}: the earlier faces are drawn here meanwhile."""
        return self.collect() if key in self.keys else {}

    def collect(self) -> Entries:
        """The child's entries; {} after the first call, or when it failed."""
        if self.taken:
            return {}
        self.taken = True
        chunks = []
        while chunk := os.read(self.fd, 1 << 20):
            chunks.append(chunk)
        self.close()
        try:
            entries = marshal.loads(b"".join(chunks)) if chunks else {}
        except (EOFError, ValueError, TypeError):
            return {}
        return entries if isinstance(entries, dict) else {}

    def close(self) -> None:
        """End the child (if it still runs) and reap it; idempotent."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        if self.pid > 0:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
            self.pid = 0


def start(compiled: int, draw: Callable[[], Entries], keys: set[bytes]) -> Ahead | None:
    """Fork a child that runs draw() and sends back the entries it returns, when `compiled`
    (drawings compiled afresh in this build) makes it pay; else None. `keys`: the cache keys
    of the drawings it draws."""
    if compiled < MIN_FORMS or not hasattr(os, "fork") or (os.cpu_count() or 1) < 2:
        return None
    try:
        read, write = os.pipe()
        pid = os.fork()
    except OSError:
        return None
    if pid == 0:  # the child: never returns into the build
        code = 1
        try:
            os.close(read)
            data = marshal.dumps(draw())
            view = memoryview(data)
            while view:
                view = view[os.write(write, view) :]
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    return Ahead(pid, read, keys)


T = TypeVar("T")


def later_share(faces: list[T], share: float = SHARE) -> list[T]:
    """The last `share` of faces: the ones this process reaches last while it writes."""
    return faces[int(len(faces) * (1 - share)) :]
