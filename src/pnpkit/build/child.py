"""Part of a build's work done in a forked child process while the build goes on (prewarm.py:
half a first build's faces).

What each needs, in one place:
- may_fork(): only where a child runs beside this process, on a core of its own, and is safe:
  a child forked while another thread runs (watch's and the studio's server) may inherit a lock
  that thread held and hang on it;
- the child never returns into the build: it leaves with os._exit, its status saying whether
  the work was done;
- the build can always end it. wait() keeps the child's pid until waitpid() has returned, so
  an interrupt in the wait (Ctrl-C) leaves it for stop() to kill and reap, instead of a child
  running on after the build.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable


def may_fork() -> bool:
    """Whether work may go to a forked child that runs beside this process."""
    return hasattr(os, "fork") and _cores() >= 2 and threading.active_count() == 1


def _cores() -> int:
    """The cores this process may run on (`taskset -c 0 pnpkit build` keeps a build on one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS: no affinity
        return os.cpu_count() or 1


class Child:
    """work() run in a forked child (no child when `work` is None or fork fails: `started` says
    which)."""

    def __init__(self, work: Callable[[], object] | None) -> None:
        self.pid = -1
        if work is not None:
            with contextlib.suppress(OSError):  # no process to spare: no child
                self.pid = os.fork()
        if self.pid == 0:  # the child: never returns into the build
            code = 1
            try:
                assert work is not None  # a child is forked only for some work
                work()
                code = 0
            except BaseException:  # noqa: BLE001 (Ctrl-C too): the build does the work itself
                pass
            finally:
                os._exit(code)  # no atexit handlers, no buffered output flushed twice

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
