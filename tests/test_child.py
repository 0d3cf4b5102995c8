"""pnpkit.build.child: work in a forked child beside the build, which the build can always end,
and only where a child is safe and has a core to run on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from pnpkit.build import child

WHEN = """
import os, threading
from pnpkit.build import child
alone = child.may_fork()
stop = threading.Event()
beside = threading.Thread(target=stop.wait)
beside.start()
threaded = child.may_fork()
stop.set()
beside.join()
os.sched_setaffinity(0, {0})
print(alone, threaded, child.may_fork())
"""


@pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="a child is forked only on two cores or more",
)
def test_a_child_only_with_no_other_thread_and_a_second_core():
    done = subprocess.run([sys.executable, "-c", WHEN], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["True", "False", "False"], done.stderr


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
