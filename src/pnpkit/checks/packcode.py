"""Run a pack's own Python in a child process with a time and a memory limit.

A trusted pack's rules.py is still a designer's code: a loop that never ends
or `10**10**10` must cost the user a located message, not their session.
Signals cannot stop a long C-level operation (a huge power runs inside one
bytecode), so the code runs in a forked child that the parent kills when its
time is up. The child reports which step it is on, so the message can name
the check that hung. Results come back as JSON, never as pickles.

Where fork is unavailable (Windows), the code runs in this process without
limits; only trusted packs get this far.
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass

MEMORY_BYTES = 1 << 30  # what the pack's code may add to the process's address space


@dataclass
class Outcome:
    value: object = None  # what fn returned, through JSON
    done: bool = False  # fn returned
    crashed: str = ""  # "TypeError: ..." when the child failed outside fn's own handling
    timed_out: bool = False
    step: object = None  # the last step fn reported before it finished, crashed or was stopped


def run(fn: Callable[[Callable[[object], None]], object], seconds: float) -> Outcome:
    """fn(step) runs in a child; step(x) tells the parent where fn is (x is JSON data).
    fn's return value must be JSON data."""
    if not hasattr(os, "fork"):
        return _inline(fn)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        _child(fn, write)
    os.close(write)
    try:
        return _collect(read, pid, time.monotonic() + seconds)
    finally:
        os.close(read)


def _inline(fn: Callable[[Callable[[object], None]], object]) -> Outcome:
    outcome = Outcome()

    def step(x: object) -> None:
        outcome.step = x

    try:
        outcome.value, outcome.done = fn(step), True
    except Exception as exc:
        outcome.crashed = f"{type(exc).__name__}: {exc}"
    return outcome


def _child(fn: Callable[[Callable[[object], None]], object], fd: int) -> None:
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the parent, which stops us
        _limit_memory()
        result = fn(lambda x: _send(fd, "step", x))
        _send(fd, "done", result)
    except BaseException as exc:  # noqa: BLE001 (anything the pack's code raises, MemoryError too)
        try:
            _send(fd, "crash", f"{type(exc).__name__}: {exc}")
        except BaseException:  # noqa: BLE001
            code = 1
    finally:
        os._exit(code)  # no atexit handlers, no buffered output of the parent's flushed twice


def _limit_memory() -> None:
    try:
        with open("/proc/self/statm") as f:
            used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (used + MEMORY_BYTES, used + MEMORY_BYTES))
    except (OSError, ValueError):  # no /proc, or the limit cannot be lowered: time still bounds it
        pass


def _send(fd: int, kind: str, value: object) -> None:
    data = json.dumps([kind, value]).encode("utf-8")
    view = memoryview(struct.pack(">I", len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _collect(fd: int, pid: int, deadline: float) -> Outcome:
    outcome, buffer = Outcome(), b""
    while True:
        left = deadline - time.monotonic()
        ready = select.select([fd], [], [], max(left, 0))[0] if left > 0 else []
        if not ready:
            outcome.timed_out = True
            break
        chunk = os.read(fd, 1 << 16)
        if not chunk:  # the child is gone without a word (killed by the memory limit, say)
            outcome.crashed = outcome.crashed or "the pack's code stopped without a result"
            break
        buffer += chunk
        buffer = _messages(buffer, outcome)
        if outcome.done or outcome.crashed:
            break
    if outcome.timed_out:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return outcome


def _messages(buffer: bytes, outcome: Outcome) -> bytes:
    """Apply every whole message in buffer to outcome; return what is left over."""
    while len(buffer) >= 4:
        (size,) = struct.unpack(">I", buffer[:4])
        if len(buffer) < 4 + size:
            break
        kind, value = json.loads(buffer[4 : 4 + size])
        buffer = buffer[4 + size :]
        if kind == "step":
            outcome.step = value
        elif kind == "done":
            outcome.value, outcome.done = value, True
        else:
            outcome.crashed = value
    return buffer
