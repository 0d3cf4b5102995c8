"""pnpkit.build.child: work in a forked child, which the build can always end."""

from __future__ import annotations

import os
import signal
import time

import pytest

from pnpkit.build import child
from pnpkit.build.child import Child, Message


def test_an_interrupted_wait_leaves_the_child_for_stop_to_end(tmp_path):
    """Ctrl-C while the build waits for its child: the child is still known, and stop() kills
    and reaps it before it can write anything more (here, a file after a long sleep)."""
    late = tmp_path / "late.txt"

    def slow():
        time.sleep(5)
        late.write_text("written after the build ended")

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    forked = child.Child(slow)
    assert forked.started
    old = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        with pytest.raises(KeyboardInterrupt):
            forked.wait()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert forked.started  # not forgotten by the interrupted wait
    forked.stop()
    assert not forked.started
    with pytest.raises(ChildProcessError):  # reaped: nothing left running or waiting
        os.waitpid(-1, os.WNOHANG)
    assert not late.exists()


def test_the_work_done_and_failed_give_the_exit_status_and_no_fork_gives_no_child(
    monkeypatch, tmp_path
):
    done = tmp_path / "done.txt"
    assert child.Child(lambda: done.write_text("x")).wait() == 0 and done.exists()

    def failing():
        raise OSError("disk full")

    assert child.Child(failing).wait() == 1
    monkeypatch.setattr(os, "fork", lambda: (_ for _ in ()).throw(OSError("no more processes")))
    refused = child.Child(lambda: None)
    assert not refused.started and refused.wait() == -1
    refused.stop()  # nothing to end


def test_a_message_arrives_though_a_later_child_holds_its_end_and_is_none_when_never_sent():
    """Message: sent once, ended by a NUL, so the receiver has it while a child forked after
    still holds the sending end (a pipe closed by all would need that child to end first)."""
    word, answer = Message(), Message()

    def echo() -> None:
        word.receiving()
        answer.sending()
        answer.send(word.receive() or b"nothing")

    child = Child(echo)
    word.sending()
    answer.receiving()
    later = Child(lambda: time.sleep(60))  # holds copies of both ends
    try:
        started = time.monotonic()
        assert word.send(b"folder") and not word.send(b"again")
        assert answer.receive() == b"folder"
        assert time.monotonic() - started < 30
        assert child.wait() == 0
    finally:
        later.stop()
        child.stop()
    never = Message()
    never.receiving()  # the only sending end gone, nothing sent
    assert never.receive() is None
