"""`pnpkit watch PACK`: rebuild on every save, keep going when the pack is broken, optionally serve
the preview.

The watcher polls: every INTERVAL it lists the pack's folder and its template
folders (name, size, modification time and inode of each file, which is what
an editor's save changes) and compares the list with the last one. Polling a
few dozen files costs about a millisecond, needs no dependency and works
the same on every system and file system. Editors save in several steps, so a
build made from a change counts only once the files have stayed as it read them
for SETTLE seconds after their last change: it starts once the change is WRITTEN
old, and the files are looked at again before its kit replaces the previous one;
if they changed, the build is dropped unseen and the newer files are built.

Rebuilds go through one long-lived cache (cache.py), so only the faces whose
inputs changed are rendered again; it is written to OUT/pnpkit-cache/ when the
watcher has been idle for a moment and when it stops.

With --serve, OUT/<pack>/ is served on 127.0.0.1 and the preview page polls
STATE_URL, reloading itself after each rebuild and listing the problems while
the pack is broken. Ctrl-C stops everything and exits with 0.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, SimpleNamespace
from typing import TYPE_CHECKING, cast

from pnpkit.build import output, pipeline, preview, svgfiles
from pnpkit.build.buildoptions import BuildOptions, WatchHooks
from pnpkit.build.cache import Cache
from pnpkit.build.pipeline import Result
from pnpkit.checks import trust
from pnpkit.commands.options import add_print_options, print_overrides
from pnpkit.errors import ALL_WARNINGS_HELP, folded
from pnpkit.faces import templates
from pnpkit.pack.model import PrintOverrides
from pnpkit.pack.paths import lang_option
from pnpkit.workspace import Workspace

if TYPE_CHECKING:
    from pnpkit.commands.serve import Server
    from pnpkit.pack.model import Pack

INTERVAL = 0.025  # seconds between looks at the files (each costs about a millisecond of CPU)
SETTLE = 0.05  # seconds the files must stay unchanged before a build
WRITTEN = 0.01  # seconds a change must be old before a build starts: the write may go on
SAVE_AFTER = 3.0  # seconds of quiet before the cache is written to disk
IGNORED_SUFFIXES = (".swp", ".swx", ".tmp", "~", ".pyc")  # editors' and Python's scratch files


def configure(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    w = sub.add_parser(
        "watch",
        help="rebuild a pack on every save; --serve shows a live preview",
        description="Build the pack, then rebuild it whenever a "
        "file of the pack, its templates or its art "
        "changes. Only faces whose inputs changed are rendered again. A broken pack prints its "
        "problems and the last good build stays in place "
        "until the next save fixes it. Ctrl-C stops.",
    )
    w.add_argument(
        "pack", type=Path, metavar="PACK", help="game pack folder, e.g. components/mammoth-herd"
    )
    w.add_argument(
        "--lang",
        action="append",
        metavar="LANG",
        type=lang_option,
        help="only this language (repeatable)",
    )
    w.add_argument("--strict", action="store_true", help="treat warnings as failures")
    w.add_argument("--all-warnings", action="store_true", help=ALL_WARNINGS_HELP)
    trust.add_options(w)
    add_print_options(w)
    w.add_argument(
        "--serve",
        action="store_true",
        help="serve the preview on http://127.0.0.1:PORT/; "
        "the open page refreshes itself after each rebuild",
    )
    w.add_argument(
        "--port", type=int, help="port for --serve (default: 8000, or the next free one)"
    )
    w.add_argument(
        "--open", action="store_true", help="with --serve: open the preview in the default browser"
    )
    w.set_defaults(run=run)


def usable(args: argparse.Namespace) -> bool:
    """Whether args.pack can be watched into args.out (watch, studio); says why not, and warns
    of an output folder whose cache may not be used."""
    error = (
        f"no such pack folder: {args.pack}"
        if not args.pack.is_dir()
        else output.clash(args.out, args.pack)
    )
    if error:
        print(f"pnpkit: error: {error}", file=sys.stderr)
        return False
    unsafe = output.unsafe_cache(args.out)
    if unsafe:
        print(f"pnpkit: warning: {unsafe}", file=sys.stderr)
    return True


def run(args: argparse.Namespace) -> int:
    """The watch command: 0 when stopped with Ctrl-C, 2 on a usage error."""
    if not usable(args):
        return 2
    watcher = Watcher(
        args.pack, args.out, args.lang, print_overrides(args), args.strict, code=pack_code(args)
    )
    start: Callable[[], Server] | None = None
    if args.serve:
        from pnpkit.commands.serve import Server  # only here: see serve.py

        start = functools.partial(Server, watcher, args.port)
    return serve_until_stopped(
        watcher,
        start,
        functools.partial(report, all_warnings=args.all_warnings),
        open_page=args.open,
        serving="serving the preview on",
        watching=f"watching {args.pack} and its templates; Ctrl-C stops",
        stopped="stopped watching",
    )


def pack_code(args: argparse.Namespace) -> pipeline.Code:
    """How the pack's own code may run (watch, studio): trusted or sandboxed, and for how long."""
    return pipeline.Code(args.trust or trust.is_trusted(args.pack), args.code_timeout)


def serve_until_stopped(
    watcher: Watcher,
    start: Callable[[], Server] | None,
    say: Callable[..., None],
    *,
    open_page: bool,
    serving: str,
    watching: str,
    stopped: str,
) -> int:
    """The start-up watch --serve and the studio share: start the server (`start`, if any),
    say where it is (`serving` URL) and open it in the browser if asked, say `watching` (unless
    empty), run the watch loop until_stopped and say `stopped` when Ctrl-C or SIGTERM ended
    it. 0 then; 2 when the port is taken or the output cannot be written."""
    server: Server | None = None
    if start is not None:
        try:
            server = start()
        except OSError as exc:  # the port is taken, ...
            print(f"pnpkit: error: {exc}", file=sys.stderr)
            return 2
        print(f"{serving} {server.url}", file=sys.stderr)
        if open_page:
            import webbrowser  # only here, as serve

            webbrowser.open(server.url)
    if watching:
        print(watching, file=sys.stderr)
    result = until_stopped(watcher, server, say)
    if result == 0:
        print(f"\n{stopped}", file=sys.stderr)
    return result


def until_stopped(watcher: Watcher, server: Server | None, say: Callable[..., None]) -> int:
    """Run the watch loop (watch, studio) until Ctrl-C or a SIGTERM (0) or an OSError such as an
    output folder that cannot be written (2, said); then close the server, tidy the output and
    save the cache, whichever way it stopped."""
    previous = stop_on_signals()
    try:
        watcher.loop(say)
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(f"pnpkit: error: {exc}", file=sys.stderr)
        return 2
    finally:
        if server is not None:
            server.close()
        watcher.tidy(spare=False)
        watcher.cache.save(force=True)
        for signum, handler in previous.items():
            if handler is not None:  # None: a handler not set from Python, left as it is
                signal.signal(signum, handler)
    return 0


def stop_on_signals() -> dict[int, signal._HANDLER]:
    """Ctrl-C and a process manager's polite stop (SIGTERM) end the watcher; returns the
    previous handlers (none where signals cannot be set: not the main thread, whose caller
    stops it). Ctrl-C's handler is set too because a process started from a script in the
    background inherits SIGINT ignored, and "Ctrl-C stops" must hold there as well."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous: dict[int, signal._HANDLER] = {}
    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, interrupt)
    except ValueError:
        pass
    return previous


# ---------------------------------------------------------------- watching


@dataclass
class Build:
    """One build attempt, as the watcher reports and serves it."""

    serial: int
    result: Result | None
    seconds: float
    ok: bool
    site: Path  # OUT/<pack id>
    stats: dict[str, int] = field(default_factory=dict)
    crash: str = ""  # a traceback, if pnpkit itself failed
    finished: str = field(default_factory=lambda: time.strftime("%H:%M:%S"))

    def state(self) -> dict[str, object]:
        """What the preview page polls."""
        problems = [str(p) for p in self.result.problems] if self.result else []
        errors = len(self.result.errors) if self.result else 0
        return {
            "serial": self.serial,
            "ok": self.ok,
            "build": preview.build_id(self.site),
            "errors": errors + bool(self.crash),
            "warnings": len(problems) - errors,
            "problems": problems + ([self.crash] if self.crash else []),
            "time": self.finished,
            "seconds": round(self.seconds, 2),
        }


class Watcher:
    """Rebuilds one pack when its files change."""

    def __init__(
        self,
        pack: Path,
        out: Path,
        langs: list[str] | None = None,
        overrides: PrintOverrides | None = None,
        strict: bool = False,
        interval: float = INTERVAL,
        code: pipeline.Code | None = None,
    ):
        self.pack, self.out, self.langs, self.overrides, self.strict = (
            pack,
            out,
            langs,
            overrides or {},
            strict,
        )
        self.interval, self.code = interval, code
        unsafe = output.unsafe_cache(out)  # said by run(); never used, never written
        self.cache = Cache(None if unsafe else out / pipeline.CACHE_DIR, deferred=True)
        self.workspace = Workspace()  # what every build of this watch keeps for the next
        self.last: Build | None = None
        self.stop = threading.Event()

    def folders(self) -> list[Path]:
        """The pack's folder and the template folders it renders with (shared ones included)."""
        # template_dirs reads only the pack's root, which is all a pack that may not parse has
        dirs = [self.pack] + templates.template_dirs(cast("Pack", SimpleNamespace(root=self.pack)))
        return list(dict.fromkeys(d.resolve() for d in dirs if d.is_dir()))

    def snapshot(self) -> Snapshot:
        """Every watched file with what a save changes, and when its inode last changed (ctime,
        kept apart: it says how long the files have been quiet, and a save changes the rest
        too); the output folder is left out."""
        # paths as strings: Path objects cost most of a look (2 ms for a pack of 45 files)
        out = str(self.out.resolve())
        files: dict[str, tuple[int, int, int]] = {}
        changed: dict[str, int] = {}
        for folder in self.folders():
            for dirpath, dirnames, filenames in os.walk(folder):
                dirnames[:] = [
                    d
                    for d in dirnames
                    if not d.startswith(".")
                    and d != "__pycache__"
                    and os.path.join(dirpath, d) != out
                ]
                for name in filenames:
                    if name.startswith((".", "#")) or name.endswith(IGNORED_SUFFIXES):
                        continue
                    path = os.path.join(dirpath, name)
                    try:
                        st = os.stat(path)
                    except OSError:  # deleted between listing and looking
                        continue
                    files[path] = (st.st_size, st.st_mtime_ns, st.st_ino)
                    changed[path] = max(st.st_ctime_ns, st.st_mtime_ns)
        return Snapshot(files, changed)

    def rebuild(self) -> Build:
        """Build once; never raises for a broken pack, and reports a crash of pnpkit itself."""
        return self._keep(*self._attempt())

    def rebuild_settled(self, before: Snapshot, now: Snapshot) -> Build | None:
        """Build the change from `before` to `now` at once, while an editor may still be saving
        it; the build stands (its kit swapped in, the last build) only if the files are still as
        in `now` once they have been quiet for SETTLE (settle_left: what the build would have
        waited for before starting), else None: nothing written, the last build unchanged. The
        wait for the files to settle runs alongside the build instead of before it."""
        deadline = time.monotonic() + settle_left(before, now)
        answer: list[bool] = []

        def settled() -> bool:  # asked before the kit is swapped in, and after the build
            if not answer:
                wait = deadline - time.monotonic()
                quiet = wait <= 0 or not self.stop.wait(wait)
                answer.append(quiet and self.snapshot() == now)
            return answer[0]

        attempt = self._attempt(settled)
        return self._keep(*attempt) if settled() else None

    def written(self, before: Snapshot, now: Snapshot, patient: bool = False) -> Snapshot | None:
        """`now`, or a later look, once the newest change is WRITTEN seconds old: a look taken
        while a file is being written (a large one, a writer the system set aside) starts a
        build bound to be dropped, and one build more before the save's. `patient` (the last
        build was dropped): SETTLE old, as before a build that counts, so files rewritten
        without a pause (a script writing a pack over and over) cost one dropped build, not
        one after every step. None if stopped."""
        while (wait := settle_left(before, now, SETTLE if patient else _written(before, now))) > 0:
            if self.stop.wait(wait):
                return None
            later = self.snapshot()
            if later == now:
                break
            now = later
        return now

    def _attempt(self, ready: Callable[[], bool] | None = None) -> tuple[Result | None, str, float]:
        """A build (None if pnpkit crashed), the crash's traceback, and its seconds; `ready`:
        build.build()'s."""
        started = time.perf_counter()
        result, crash = None, ""
        try:
            options = BuildOptions(
                self.out,
                self.langs,
                self.overrides,
                self.strict,
                cache=self.cache,
                code=self.code,
                workspace=self.workspace,
                watch=WatchHooks(ready),  # the previous kit goes once the build is reported
            )
            result = pipeline.build(self.pack, options)
        except Exception:  # a bug in pnpkit: say so, and keep watching for the save that avoids it
            crash = "pnpkit failed (a bug, please report it):\n" + traceback.format_exc()
        return result, crash, time.perf_counter() - started

    def _keep(self, result: Result | None, crash: str, seconds: float) -> Build:
        """The attempt as the last build, the one reported and served."""
        serial = self.last.serial + 1 if self.last else 1
        ok = (
            result is not None
            and not crash
            and result.pack is not None
            and not (result.errors or (self.strict and result.problems))
        )
        pack_id = (
            result.pack.id
            if result and result.pack
            else (self.last.site.name if self.last else self.pack.name)
        )
        self.last = Build(
            serial, result, seconds, ok, self.out / pack_id, dict(self.cache.stats), crash
        )
        return self.last

    def tidy(self, spare: bool = True) -> None:
        """Keep what the last build left behind (the previous kit) as the spare the next build
        starts from (output.keep_spares), or remove it and the spare (`spare` False: watch
        stops), holding the output folder as builds do; a build that holds it now will tidy it
        itself."""
        left = [".*.partial"] + ([] if spare else [".*.spare"])
        if not self.out.is_dir() or not any(any(self.out.glob(g)) for g in left):
            return  # nothing left behind: no lock taken, no folder made
        with contextlib.suppress(OSError, output.Busy):
            with output.locked(self.out, "watch: tidying up", timeout=0):
                if spare:
                    output.keep_spares(self.out)
                else:
                    output.tidy(self.out)

    def link_spare(self) -> None:
        """Give the last good build's kit a spare of links to its files if it has none (after
        the first build: svgfiles.link_spare), holding the output folder; a build that holds it
        now goes on without."""
        if self.last is None or not self.last.ok:
            return
        if os.path.lexists(output.spare_for(self.last.site)):
            return  # the usual case, after the first build: no lock taken for nothing
        with contextlib.suppress(OSError, output.Busy):
            with output.locked(self.out, "watch: a spare kit", timeout=0):
                svgfiles.link_spare(self.last.site)

    def _changed_since(self, seen: Snapshot) -> Callable[[], bool]:
        """Whether watch is stopped or the files are no longer `seen`, looked at once INTERVAL
        has passed since the last look (a look, not a wait): what stops saving the cache when a
        save of the pack comes in the middle of it (Cache.save: a 1,000-card deck's took 0.1 s,
        all of it added to that save's rebuild)."""
        looked = time.monotonic()

        def changed() -> bool:
            nonlocal looked
            if self.stop.is_set():
                return True
            if time.monotonic() - looked < self.interval:
                return False
            looked = time.monotonic()
            return self.snapshot() != seen

        return changed

    def loop(self, report: Callable[[Build], None]) -> None:
        """Build now, then after every change, until stop is set (or Ctrl-C)."""
        seen = self.snapshot()
        report(self.rebuild())
        self.tidy()
        self.link_spare()
        quiet_since = time.monotonic()
        dropped = False  # the last build was dropped: the files are changing under the builds
        while not self.stop.wait(self.interval):
            current = self.snapshot()
            if current == seen:
                if time.monotonic() - quiet_since > SAVE_AFTER:
                    # cheap when nothing changed since the last save; left for a save it meets
                    self.cache.save(force=True, stop=self._changed_since(seen))
                continue
            written = self.written(seen, current, patient=dropped)
            if written is None:  # stop is set
                continue
            settled = self.rebuild_settled(seen, written)
            dropped = settled is None
            if settled is None:  # the editor went on writing: the next look builds what it wrote
                continue
            report(settled)
            seen = written
            self.tidy()
            self.link_spare()
            quiet_since = time.monotonic()


@dataclass(frozen=True)
class Snapshot:
    """The watched files: path -> (size, modification time, inode), compared between looks, and
    path -> the last change of its inode in ns (ctime, or the modification time if later)."""

    files: dict[str, tuple[int, int, int]]
    changed: dict[str, int] = field(compare=False)


def _written(before: Snapshot, now: Snapshot) -> float:
    """How old the newest change must be before a build: WRITTEN, or SETTLE when a file was
    emptied, which is how a save in place begins (the rest may come after a pause, when the
    system sets the editor aside, and a build of the empty file would be dropped)."""
    emptied = any(v[0] == 0 and before.files.get(k, (0,))[0] for k, v in now.files.items())
    return SETTLE if emptied else WRITTEN


def settle_left(
    before: Snapshot, now: Snapshot, settle: float = SETTLE, clock: Callable[[], float] = time.time
) -> float:
    """Seconds still to wait before the files read for the change from `before` to `now` count as
    saved (Watcher.rebuild_settled looks at them again then): SETTLE less the time since the
    newest change, as the files' own change times tell it. A save found late by the poll counts
    at once, instead of a whole SETTLE after it was seen. A removed file (its time unknown) or a
    time in the future (another clock) waits the whole SETTLE; a file system whose times are
    coarse may make a change look older: its build then counts at once, and a save that goes on
    is built again, as one with steps further apart than SETTLE always was."""
    if before.files.keys() - now.files.keys():
        return settle
    newest = max(
        (now.changed[k] for k, v in now.files.items() if before.files.get(k) != v), default=None
    )
    if newest is None:  # the same files: nothing changed (or back as it was)
        return settle
    quiet = clock() - newest / 1e9
    return settle if quiet < 0 else max(0.0, settle - quiet)


def report(b: Build, all_warnings: bool = False) -> None:
    """Print a build as the terminal shows it: problems (warnings alike folded unless
    `all_warnings`), then one line of what happened."""
    stamp = time.strftime("%H:%M:%S")
    problems = b.result.problems if b.result else []
    for problem in problems if all_warnings else folded(problems):
        print(problem)
    if b.crash:
        print(b.crash, file=sys.stderr)
    if b.ok and b.result is not None:  # an ok build has a result
        langs = ", ".join(b.result.faces)
        rendered, reused = b.stats.get("faces rendered", 0), b.stats.get("faces reused", 0)
        print(
            f"{stamp} built {b.site} ({langs}) in {b.seconds:.2f}s: {rendered} face(s) rendered, "
            f"{reused} unchanged",
            file=sys.stderr,
        )
    else:
        errors = len(b.result.errors) if b.result else 1
        warnings = len(b.result.problems) - errors if b.result else 0
        kept = (
            f"{b.site} keeps the last good build"
            if (b.site / "index.html").is_file()
            else "nothing written"
        )
        print(
            f"{stamp} {errors} error(s), {warnings} warning(s): {kept}; waiting for the next save",
            file=sys.stderr,
        )
    sys.stdout.flush()
