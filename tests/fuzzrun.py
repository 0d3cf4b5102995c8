"""The fuzz campaign: run mutants of the kits through the CLI, each in a forked, fenced child.

A child is forked from a process that has pnpkit imported and warm, so a mutant costs its own
work only, not an interpreter start-up. Each child has its output captured into files, an
address-space limit (RLIMIT_AS) and a wall-clock limit (SIGUSR1 asks it for a stack dump,
SIGKILL follows), and the parent checks for every mutant:

- the exit code is 0, 1 or 2 and the output holds no traceback;
- it finished within the time and memory limits;
- no file outside the mutant's --out and its pack copy was created, changed or removed
  (its slot folder, the campaign folder with a sentinel folder in it, and the folder above);
- a build that failed left the previous build in --out byte-identical.

Everything about a mutant follows from (kit, seed), so a failure prints the command that
rebuilds it: scripts/fuzz.py --kit KIT --seed SEED --keep DIR.
"""

from __future__ import annotations

import contextlib
import faulthandler
import hashlib
import io
import os
import re
import resource
import shutil
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from fuzzmutate import KITS, SENTINEL, Mutant, mutate, pristine, write_file
from pnpkit.commands import cli
from pnpkit.faces import sandbox

TIME_LIMIT = 10.0  # seconds of wall clock per mutant
MEMORY_LIMIT = 1 << 30  # bytes of address space per mutant
CPU_BACKSTOP = 60  # seconds of CPU after which the kernel ends a child the parent no longer watches
CRASH = 70  # a child's exit code when an exception escaped main()
OUTPUT_KEPT = 4000  # characters of a failing mutant's output in the report


@dataclass
class Outcome:
    mutant: Mutant
    code: int | None = None  # negative: killed by that signal
    seconds: float = 0.0
    max_rss_kb: int = 0
    cpu: float = 0.0  # seconds of CPU, user and system
    output: str = ""
    failures: list = field(default_factory=list)  # (signature, message)
    allowed: bool = False  # every failure is on the allow-list
    retried: Outcome | None = None  # the first run, when it timed out and this is the second

    def report(self) -> str:
        lines = [
            f"mutant {self.mutant.describe()}",
            f"  exit {self.code}, {self.seconds:.2f}s "
            f"({self.cpu:.2f}s CPU), {self.max_rss_kb // 1024} MB"
            + (
                "; a first run timed out after "
                f"{self.retried.seconds:.2f}s ({self.retried.cpu:.2f}s CPU)"
                if self.retried
                else ""
            ),
            *(f"  FAIL [{sig}] {msg}" for sig, msg in self.failures),
            f"  reproduce: {reproducer(self.mutant)}",
            "  output:",
            *("    " + line for line in self.output[:OUTPUT_KEPT].splitlines()),
        ]
        return "\n".join(lines)


def reproducer(mutant: Mutant) -> str:
    """The command that writes this mutant out and prints how to run it (`pnpkit <argv>` in that
    folder)."""
    ops = "" if mutant.ops == "yaml" else f" --ops {mutant.ops}"
    return (
        "PYTHONPATH=src python scripts/fuzz.py --kit "
        f"{mutant.kit} --seed {mutant.seed}{ops} --keep /tmp/mutant"
        f"  # then, in /tmp/mutant: pnpkit {' '.join(mutant.argv('out'))}"
    )


# --- the child ----------------------------------------------------------------------------------


def _child(argv: list[str], cwd: Path, out_file: Path, target: Callable[[list[str]], int]) -> None:
    """In the forked child: fence it, run target(argv) with its output in out_file, exit with
    its code."""
    code = CRASH
    try:
        os.setpgid(0, 0)  # its own process group, so a kill takes anything it started along
        fd = os.open(out_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        sys.stdout = sys.stderr = io.TextIOWrapper(
            io.FileIO(1, "w", closefd=False), encoding="utf-8", line_buffering=True
        )
        sys.stdin = io.StringIO()
        faulthandler.register(signal.SIGUSR1, file=open(2, "w", closefd=False), all_threads=True)
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        resource.setrlimit(
            resource.RLIMIT_CPU, (CPU_BACKSTOP, CPU_BACKSTOP + 1)
        )  # if the parent dies, no runaway
        os.chdir(cwd)
        try:
            code = target(argv)
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        code = code if isinstance(code, int) else CRASH
    except BaseException:  # noqa: BLE001 (the one place a crash must be shown whole)
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
        finally:
            os._exit(code & 0xFF)


# --- watching the files around a mutant ----------------------------------------------------------


def snapshot(root: Path, skip=(), shallow=(), recursive: bool = True) -> dict:
    """{relative path: (kind, size, mtime_ns, inode)} of everything under root but the `skip`
    folders; of a `shallow` folder only its own entries (a sibling's build: a stray write lands at
    its top)."""
    root_s, skip, shallow = str(root), {str(p) for p in skip}, {str(p) for p in shallow}
    found, stack = {}, [root_s]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.path in skip:
                continue
            found[entry.path[len(root_s) + 1 :]] = entry_stat = _entry(entry)
            if entry_stat[0] == "dir" and recursive and folder not in shallow:
                stack.append(entry.path)
    return found


def _entry(entry) -> tuple:
    st = entry.stat(follow_symlinks=False)
    kind = (
        "dir" if entry.is_dir(follow_symlinks=False) else "link" if entry.is_symlink() else "file"
    )
    return (kind, st.st_size if kind == "file" else 0, st.st_mtime_ns, st.st_ino)


def snapshot_entry(path: Path) -> tuple:
    """The snapshot entry of one file."""
    st = os.lstat(path)
    return ("file", st.st_size, st.st_mtime_ns, st.st_ino)


def changes(before: dict, after: dict) -> list[str]:
    return sorted(
        [f"created {p}" for p in after.keys() - before.keys()]
        + [f"removed {p}" for p in before.keys() - after.keys()]
        + [
            f"changed {p}"
            for p in before.keys() & after.keys()
            if before[p] != after[p] and before[p][0] != "dir"
        ]
    )


def hashes(root: Path) -> dict:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


# --- the campaign ------------------------------------------------------------------------------


@dataclass
class Slot:
    """One worker's folder: SLOT/<kit>/ holds a copy of each kit as a user has it
    (components/<kit>/, templates/<kit>/) and its good build (out/); a mutant of the kit runs there,
    as `pnpkit build components/<kit> --out out`."""

    folder: Path
    pid: int | None = None
    outcome: Outcome | None = None
    started: float = 0.0
    signalled: bool = False
    before: dict = field(default_factory=dict)
    out_before: dict = field(default_factory=dict)
    written: dict = field(
        default_factory=dict
    )  # kit -> {relative path: (bytes, snapshot entry) as last written}

    def root(self, kit: str) -> Path:
        return self.folder / kit

    def out(self, kit: str) -> Path:
        return self.folder / kit / "out"

    @property
    def output(self) -> Path:
        return self.folder / "output.txt"

    def skip(self, kit: str) -> tuple[Path, ...]:
        """What a mutant of kit may write: its --out and its pack copy (and the file its output
        goes to)."""
        return (self.root(kit) / "components" / kit, self.out(kit), self.output)

    def others(self, kit: str) -> list[Path]:
        """The other kits' builds: watched at their top only (cheap, and where a stray write
        lands)."""
        return [p for p in self.folder.glob("*/out") if p != self.out(kit)]


class _Bytecode(jinja2.BytecodeCache):
    """Compiled templates in memory, keyed by name, file and source checksum (Jinja's own keys)."""

    def __init__(self):
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket) -> None:
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()


@contextlib.contextmanager
def compiled_templates_kept(cache: _Bytecode):
    """Children reuse the templates the parent compiled while warming up: a mutant leaves most
    templates alone, and compiling them again was half of each run. Jinja checks each source's
    checksum, so an edited template is compiled afresh; nothing else about a run changes."""
    original = sandbox.environment

    def environment(pack, reg):
        env = original(pack, reg)
        env.bytecode_cache = cache
        return env

    sandbox.environment = environment
    try:
        yield
    finally:
        sandbox.environment = original


class Campaign:
    """Mutants of the kits run by `workers` children at a time under base/ (which must be empty)."""

    def __init__(
        self,
        base: Path,
        workers: int = 2,
        target: Callable[[list[str]], int] | None = None,
        allowed: dict | None = None,
        time_limit: float = TIME_LIMIT,
    ):
        self.base, self.target = base, target or cli.main
        self.allowed = allowed or {}
        self.time_limit = time_limit
        self.sentinel = base / "sentinel"
        self.good = base / "good"
        self.slots = [Slot(base / f"w{i}") for i in range(workers)]
        self.outcomes: list[Outcome] = []
        self.good_hashes: dict[str, dict] = {}
        self.good_dirs: list[Path] = []
        self.bytecode = _Bytecode()

    # setup
    def prepare(self, kits=KITS) -> None:
        """Each kit copied into each slot and built there once (the build a failing build must leave
        alone; it also warms the parent up), the sentinel, and the snapshot of the shared
        folders."""
        self.sentinel.mkdir(parents=True)
        (self.sentinel / "keep.txt").write_text("a file no mutant may touch\n")
        with compiled_templates_kept(self.bytecode):
            for kit in kits:
                for n, slot in enumerate(self.slots):
                    self._sync(slot, pristine(kit))
                    if n == 0:
                        code = _quiet(
                            slot.root(kit), ["build", f"components/{kit}", "--out", "out"]
                        )
                        assert code == 0, f"the shipped kit {kit} does not build"
                        shutil.copytree(slot.out(kit), self.good / kit)
                        self.good_hashes[kit] = hashes(self.good / kit)
                        self.good_dirs += [
                            self.good / kit,
                            *(p for p in (self.good / kit).iterdir() if p.is_dir()),
                        ]
                    else:
                        assert _quiet(slot.root(kit), ["validate", f"components/{kit}"]) == 0
                        shutil.copytree(self.good / kit, slot.out(kit))
        self.shared = self._shared()

    def _shared(self) -> dict:
        """What every mutant must leave alone wherever it runs: the campaign folder's own files
        (minus the slots) and the folder above it."""
        own = {
            f"base/{k}": v
            for k, v in snapshot(
                self.base, tuple(s.folder for s in self.slots), self.good_dirs
            ).items()
        }
        above = {
            f"above/{k}": v
            for k, v in snapshot(self.base.parent, (self.base,), recursive=False).items()
        }
        return own | above

    # running
    def run(self, mutants, on_outcome: Callable[[Outcome], None] | None = None) -> list[Outcome]:
        """Run the mutants. One that ran out of time is run again alone, its wall-clock limit
        stretched by the machine's load beyond its cores (another test run beside this one must
        not fail it); it fails if it runs out of time again, or used more CPU than the limit."""
        with compiled_templates_kept(self.bytecode):
            start = len(self.outcomes)  # an earlier run's were retried by that run
            self._run(mutants, self.slots, on_outcome)
            slow = [
                n
                for n, o in enumerate(self.outcomes)
                if n >= start and any(sig.startswith("timeout") for sig, _ in o.failures)
            ]
            for n in slow:
                first = self.outcomes[n]
                limit = self.time_limit
                self.time_limit = limit * min(
                    4.0, max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
                )
                try:
                    self._run([first.mutant], self.slots[:1], None)
                finally:
                    self.time_limit = limit
                self.outcomes[n] = again = self.outcomes.pop()
                again.retried = first
                # what the first run did besides running late still counts (a kill that damaged the
                # last build)
                again.failures[:0] = [f for f in first.failures if not f[0].startswith("timeout")]
                again.allowed = bool(again.failures) and all(
                    sig in self.allowed for sig, _ in again.failures
                )
                if on_outcome:
                    on_outcome(again)
        return self.outcomes[start:]

    def _run(self, mutants, slots: list[Slot], on_outcome) -> list[Outcome]:
        pending = iter(mutants)
        exhausted = False
        while True:
            for slot in slots:
                if slot.pid is None and not exhausted:
                    mutant = next(pending, None)
                    if mutant is None:
                        exhausted = True
                    else:
                        self._start(slot, mutant)
            running = [s for s in slots if s.pid is not None]
            if not running:
                return self.outcomes
            ended = False
            for slot in running:
                pid, status, usage = os.wait4(slot.pid, os.WNOHANG)  # only our own children
                if pid:
                    ended = True
                    outcome = self._finish(slot, status, usage)
                    if on_outcome:
                        on_outcome(outcome)
            if not ended:
                self._police(running)
                time.sleep(0.003)

    def _start(self, slot: Slot, mutant: Mutant) -> None:
        self._sync(slot, mutant)
        out = slot.out(mutant.kit)
        slot.before = snapshot(slot.folder, slot.skip(mutant.kit), slot.others(mutant.kit))
        slot.out_before = snapshot(out) if mutant.command == "build" else {}
        slot.outcome = Outcome(mutant)
        sys.stdout.flush()
        sys.stderr.flush()
        slot.started = time.perf_counter()
        slot.signalled = False
        pid = os.fork()
        if pid == 0:
            _child(mutant.argv("out"), slot.root(mutant.kit), slot.output, self.target)
        slot.pid = pid

    def _sync(self, slot: Slot, mutant: Mutant) -> None:
        """Make SLOT/<kit>/ hold exactly the mutant's files (beside out/), writing only those that
        differ from what is there: the previous mutant mostly differs by a file or two."""
        root = slot.root(mutant.kit)
        wanted = {
            rel: data.replace(SENTINEL.encode(), str(self.sentinel).encode())
            if isinstance(data, bytes)
            else data  # a fuzzinputs.Sparse
            for rel, data in mutant.files.items()
            if data is not None
        }
        written = slot.written.setdefault(mutant.kit, {})
        on_disk = snapshot(root, (root / "out",))
        for rel, (kind, *_stat) in sorted(
            on_disk.items(), reverse=True
        ):  # files before their folders
            if rel not in wanted and not any(w.startswith(rel + os.sep) for w in wanted):
                path = root / rel
                shutil.rmtree(path) if kind == "dir" else path.unlink()
        for rel, data in wanted.items():
            if written.get(rel) == (data, on_disk.get(rel)):
                continue
            path = root / rel
            write_file(path, data)
            written[rel] = (data, snapshot_entry(path))

    def _police(self, running: list[Slot]) -> None:
        """Ask a child over its time for a stack dump, then kill it (and whatever it started)."""
        now = time.perf_counter()
        for slot in running:
            if now - slot.started > self.time_limit and not slot.signalled:
                _signal(slot.pid, signal.SIGUSR1)
                slot.signalled = True
            elif now - slot.started > self.time_limit + 0.5:
                _signal(-slot.pid, signal.SIGKILL)

    def _finish(self, slot: Slot, status: int, usage) -> Outcome:
        outcome, mutant = slot.outcome, slot.outcome.mutant
        outcome.seconds = time.perf_counter() - slot.started
        outcome.max_rss_kb = usage.ru_maxrss
        outcome.cpu = usage.ru_utime + usage.ru_stime
        outcome.code = os.waitstatus_to_exitcode(status)
        _signal(-slot.pid, signal.SIGKILL)  # anything the child left running in its group
        slot.pid = None
        outcome.output = slot.output.read_text(encoding="utf-8", errors="replace")
        self._judge(slot, outcome)
        if outcome.failures and all(sig in self.allowed for sig, _ in outcome.failures):
            outcome.allowed = True
        self.outcomes.append(outcome)
        if mutant.command == "build":
            self._restore(slot, mutant.kit)
        return outcome

    def _judge(self, slot: Slot, outcome: Outcome) -> None:
        mutant, fail = outcome.mutant, outcome.failures.append
        if slot.signalled:
            fail(
                (
                    f"timeout at {_hang_site(outcome.output)}",
                    f"still running after {self.time_limit:.0f}s",
                )
            )
        elif outcome.cpu > TIME_LIMIT:
            fail(("timeout (CPU)", f"{outcome.cpu:.1f}s of CPU"))
        elif outcome.code not in (0, 1, 2):
            fail((crash_signature(outcome.output, outcome.code), f"exit code {outcome.code}"))
        elif "Traceback" in outcome.output:
            fail((crash_signature(outcome.output, outcome.code), "a traceback in the output"))
        else:
            stray = unlocated(outcome.output, outcome.code)
            if stray:
                fail(("unlocated message", f"{stray[0][:200]!r} (and {len(stray) - 1} more)"))
        if outcome.max_rss_kb * 1024 > MEMORY_LIMIT:
            fail(("memory", f"peak memory {outcome.max_rss_kb // 1024} MB"))
        moved = changes(
            slot.before, snapshot(slot.folder, slot.skip(mutant.kit), slot.others(mutant.kit))
        )
        if moved:
            fail(("wrote outside --out", ", ".join(moved[:10])))
        shared = changes(self.shared, self._shared())
        if shared:
            others = [s.outcome.mutant.describe() for s in self.slots if s.pid is not None]
            fail(
                (
                    "wrote outside --out",
                    ", ".join(shared[:10])
                    + (f" (or the mutant beside it: {others})" if others else ""),
                )
            )
            self._clean_shared()
        if mutant.command == "build" and outcome.code != 0 and mutant.kit in self.good_hashes:
            self._judge_previous_build(slot, outcome)

    def _judge_previous_build(self, slot: Slot, outcome: Outcome) -> None:
        """A failed build leaves the kit folders of the last good build byte-identical (its cache
        may learn, and what it left beside them, e.g. a half-written staging folder, is not
        judged)."""
        out, good = slot.out(outcome.mutant.kit), self.good_hashes[outcome.mutant.kit]
        if not changes(slot.out_before, snapshot(out)):
            return
        now = hashes(out)
        kept = {k.split(os.sep)[0] for k in good} - {"pnpkit-cache"}
        bad = sorted(
            k
            for k in good.keys() | now.keys()
            if k.split(os.sep)[0] in kept and good.get(k) != now.get(k)
        )
        if bad:
            how, where = (
                (" by a kill", f" (killed at {_hang_site(outcome.output)})")
                if slot.signalled
                else ("", "")
            )
            outcome.failures.append(
                (
                    f"previous build damaged{how}",
                    f"a failed build changed {', '.join(bad[:10])}{where}",
                )
            )

    def _restore(self, slot: Slot, kit: str) -> None:
        out = slot.out(kit)
        if changes(slot.out_before, snapshot(out)):
            shutil.rmtree(out, ignore_errors=True)
            shutil.copytree(self.good / kit, out)

    def _clean_shared(self) -> None:
        """Put back what a mutant did to the shared folders, so later mutants are not blamed for
        it."""
        for name in os.listdir(self.base):
            path = self.base / name
            if path not in [s.folder for s in self.slots] and path not in (
                self.sentinel,
                self.good,
            ):
                shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink()
        for name in os.listdir(self.sentinel):
            if name != "keep.txt":
                path = self.sentinel / name
                shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink()
        self.shared = self._shared()

    def failed(self, outcomes: list[Outcome] | None = None) -> list[Outcome]:
        """Outcomes (all, or those given) with a failure that is not on the allow-list."""
        return [o for o in outcomes or self.outcomes if o.failures and not o.allowed]

    # figures
    def summary(self, outcomes: list[Outcome] | None = None) -> dict:
        outcomes = outcomes or self.outcomes
        codes: dict = {}
        for o in outcomes:
            codes[o.code] = codes.get(o.code, 0) + 1
        slowest = max(outcomes, key=lambda o: o.seconds, default=None)
        return {
            "mutants": len(outcomes),
            "exits": dict(sorted(codes.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))),
            "slowest_s": round(slowest.seconds, 2) if slowest else 0,
            "most_cpu_s": round(max((o.cpu for o in outcomes), default=0), 2),
            "slowest": slowest.mutant.describe() if slowest else "",
            "peak_mb": max((o.max_rss_kb for o in outcomes), default=0) // 1024,
            "children_cpu_s": round(sum(o.cpu for o in outcomes), 1),
            "parent_cpu_s": round(sum(resource.getrusage(resource.RUSAGE_SELF)[:2]), 1),
            "timeouts_retried": sum(o.retried is not None for o in outcomes),
            "builds": sum(o.mutant.command == "build" for o in outcomes),
            "failures": len(self.failed(outcomes)),
            "allowed": sum(o.allowed for o in outcomes),
        }


def campaign_mutants(first_seed: int, count: int, kits=KITS, ops: str = "yaml"):
    """Mutant i of a campaign is kit i mod 4 with seed first_seed + i."""
    for i in range(count):
        yield mutate(kits[i % len(kits)], first_seed + i, ops)


# a problem as pnpkit says one: file:line:col (or a sheet's file:Sheet!C3): error|warning: ... [tag]
LOCATED = re.compile(r"\S[^:]*:(\d+:\d+|[^:\s]*![A-Z]+\d+|\d+): (error|warning): \S.* \[[^\]\s]+\]")
SAYS = re.compile(r": (error|warning): ")
USAGE = re.compile(r"pnpkit( [\w-]+)?: error: ")  # argparse's, for exit 2


def unlocated(output: str, code: int | None) -> list[str]:
    """The lines of output that say a problem without being one located line."""
    return [
        line
        for line in output.splitlines()
        if SAYS.search(line)
        and not LOCATED.fullmatch(line)
        and not (code == 2 and USAGE.match(line))
    ]


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _quiet(cwd: Path, argv: list[str]) -> int:
    """cli.main(argv) run in cwd, its output dropped."""
    here = os.getcwd()
    try:
        os.chdir(cwd)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return cli.main(argv)
    finally:
        os.chdir(here)


FRAME = re.compile(r'File "([^"]+)", line (\d+),? in (\S+)')


def _site(frames: list[tuple[str, str, str]]) -> str:
    """The innermost frame in pnpkit (or the pack's own code), as module:function."""
    for path, _line, func in reversed(frames):
        if "/pnpkit/" in path or "/components/" in path:
            return f"{Path(path).name}:{func}"
    return f"{Path(frames[-1][0]).name}:{frames[-1][2]}" if frames else "?"


def crash_signature(output: str, code: int | None) -> str:
    """'ExceptionType at module.py:function' from the last traceback in the output."""
    at = output.rfind("Traceback (most recent call last)")
    if at < 0:
        return f"exit {code}"
    tail = output[at:].splitlines()
    frames = FRAME.findall("\n".join(tail))
    error = next((line for line in tail[1:] if line and not line.startswith((" ", "\t"))), "?")
    return f"{error.split(':')[0]} at {_site(frames)}"


def _hang_site(output: str) -> str:
    """Where faulthandler's dump shows the main thread stuck: the first pnpkit frame, most
    recent first."""
    at = output.rfind("most recent call first")
    if at < 0:
        return "?"
    frames = FRAME.findall(output[at:])
    return _site(list(reversed(frames)))
