"""How build.pipeline.build() builds a pack: BuildOptions, and Code (whether the pack's own
Python may run), which the command line, watch and the tests make."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pnpkit.checks import trust
from pnpkit.pack.model import PrintOverrides

if TYPE_CHECKING:
    from pnpkit.build.cache import Cache
    from pnpkit.workspace import Workspace


@dataclass(frozen=True)
class Code:
    """Whether a pack's own Python may run, and for how long per check."""

    trusted: bool
    seconds: float = trust.CODE_SECONDS


@dataclass(frozen=True)
class WatchHooks:
    """What only `watch` asks of a build. `ready` is asked once the kit is complete, before it
    replaces the previous one: False leaves the previous kit in place and the new one unseen,
    kept as the next build's spare (the pack changed again while it was built). The previous
    kit is left for output.tidy() to remove, or output.keep_spares() to keep as the next
    build's start (after watch says the build is done)."""

    ready: Callable[[], bool] | None = None


@dataclass(frozen=True)
class BuildOptions:
    """How build.build() builds a pack into `out`/<pack id>/.

    `langs`: the languages (default: all of the pack's); `overrides`: print settings given on
    the command line; `strict`: a warning fails the build. `cache` serves unchanged faces and
    drawings (default: the one kept in out/pnpkit-cache/); `code` says whether the pack's own
    Python may run (default: if the user trusts its folder); `workspace` holds what the
    process keeps between builds (default: this thread's, workspace.current()). `changed`
    also writes <id>-<lang>-changes.pdf and changes.txt: the faces that differ from the
    previous build. `keep_drawings`: every face keeps its compiled drawing for what follows
    the build (the exports), even in a large build, which otherwise releases them once their
    PDF forms are drawn (earlyforms). `progress(what, page, pages)` is told of each page
    written. `watch`: see WatchHooks."""

    out: Path = Path("build")
    langs: list[str] | None = None
    overrides: PrintOverrides | None = None
    strict: bool = False
    cache: Cache | None = None
    code: Code | None = None
    workspace: Workspace | None = None
    changed: bool = False
    keep_drawings: bool = False
    progress: Callable[[str, int, int], None] | None = None
    watch: WatchHooks | None = None
