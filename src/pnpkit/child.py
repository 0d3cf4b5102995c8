"""Part of a build's work done in a forked child process while the build goes on.

The build hands work to a child in three places (build._SvgWriter, build._IndexWriter,
preflight.Ahead); this is what each needs, in one place:
- no fork (a system without it, or one that refuses): no child, and the caller does the work;
- the child never returns into the build: it leaves with os._exit, its status saying whether
  the work was done;
- the build can always end it. wait() keeps the child's pid until waitpid() has returned, so
  an interrupt in the wait (Ctrl-C) leaves it for stop() to kill and reap, instead of a child
  running on into a folder the build has removed, and holding the output folder's lock.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable


def fork() -> int:
    """os.fork(), or -1 where there is none or it fails."""
    try:
        return os.fork() if hasattr(os, "fork") else -1
    except OSError:
        return -1


class Child:
    """work() run in a forked child (no child when `work` is None or there is no fork:
    `started` says which)."""

    def __init__(self, work: Callable[[], object] | None) -> None:
        self.pid = fork() if work is not None else -1
        if self.pid == 0:  # the child: never returns into the build
            code = 1
            try:
                assert work is not None  # a child is forked only for some work
                work()
                code = 0
            finally:
                os._exit(code)

    @property
    def started(self) -> bool:
        return self.pid > 0

    def wait(self) -> int:
        """Wait for the child and reap it; its exit status (-1: there is none, or it was
        reaped already)."""
        if self.pid <= 0:
            return -1
        status = os.waitpid(self.pid, 0)[1]  # interrupted: the pid stays for stop()
        self.pid = -1
        return os.waitstatus_to_exitcode(status)

    def stop(self) -> None:
        """End the child now, if it is still there, and reap it."""
        if self.pid > 0:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self.wait()
