"""Part of a build's work done in a forked child process while the build goes on.

The build hands work to children (svgfiles.SvgWriter, preflight.Ahead); this is what each needs,
in one place:
- no fork (a system without it, or one that refuses): no child, and the caller does the work;
- the child never returns into the build: it leaves with os._exit, its status saying whether
  the work was done;
- the build can always end it. wait() keeps the child's pid until waitpid() has returned, so
  an interrupt in the wait (Ctrl-C) leaves it for stop() to kill and reap, instead of a child
  running on into a folder the build has removed, and holding the output folder's lock;
- a child that starts its work early and waits for a word from the build before the rest
  (preflight.Ahead) is told through a Message.
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


class Message:
    """One message sent once through a pipe, from the process that made it to a child it forks
    after (or back): send() in the one, receive() in the other, each process closing the end it
    does not use first (sending(), receiving()). The message ends with a NUL, not with the
    pipe's close: children the build forks later hold copies of the sending end until they end.
    Where no pipe can be made it is not `open`, and a child waiting for it is not forked."""

    def __init__(self) -> None:
        try:
            self.reading, self.writing = os.pipe()
        except OSError:
            self.reading = self.writing = -1

    @property
    def open(self) -> bool:
        return self.reading >= 0 or self.writing >= 0

    def sending(self) -> None:
        """This process sends: its copy of the reading end goes."""
        self.reading = _closed(self.reading)

    def receiving(self) -> None:
        """This process receives: its copy of the sending end goes."""
        self.writing = _closed(self.writing)

    def send(self, data: bytes = b"") -> bool:
        """Send data (no NUL in it, less than a pipe holds: a path), once; whether it was sent
        (not: sent already, or the receiver is gone)."""
        if self.writing < 0:
            return False
        try:
            os.write(self.writing, data + b"\0")
            return True
        except OSError:
            return False
        finally:
            self.writing = _closed(self.writing)

    def receive(self) -> bytes | None:
        """Wait for the message; None when every sender ended without sending it."""
        data = b""
        try:
            while not data.endswith(b"\0"):
                part = os.read(self.reading, 4096)
                if not part:
                    return None
                data += part
        except OSError:  # no reading end here
            return None
        return data[:-1]

    def close(self) -> None:
        self.reading = _closed(self.reading)
        self.writing = _closed(self.writing)


def _closed(fd: int) -> int:
    """Close fd if it is open; -1."""
    if fd >= 0:
        os.close(fd)
    return -1
