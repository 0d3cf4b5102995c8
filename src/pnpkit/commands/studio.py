"""`pnpkit studio PACK`: edit a pack in the browser, beside its faces and printed sheets.

A command of its own rather than `watch --serve --edit`: the studio writes into the pack, which
`watch` never does, so whoever starts a process that may change their files says so by its
name; `watch --serve` stays a read-only preview that may be left running over any folder. Under
the page it is the same watch loop (watch.Watcher, here studiosession.StudioWatcher), with the
same trust, sandbox, print options and output folder as `pnpkit watch`.
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

from pnpkit.checks import trust
from pnpkit.commands import watch
from pnpkit.commands.options import add_print_options, print_overrides
from pnpkit.commands.studiosession import Studio, StudioWatcher
from pnpkit.pack.paths import lang_option


def configure(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser(
        "studio",
        help="edit a pack in the browser, beside its faces (writes into the pack)",
        description="Build the pack and serve a page on 127.0.0.1 with every face and the "
        "printed sheets. Click a face to see where its values come from and change them: the "
        "edit is written into the pack's YAML or spreadsheet, the pack is rebuilt and the page "
        "shows the new face. Templates can be edited beside the face they draw. Every edit can "
        "be undone. Ctrl-C stops.",
    )
    s.add_argument("pack", type=Path, metavar="PACK", help="game pack folder")
    s.add_argument(
        "--lang", action="append", metavar="LANG", type=lang_option, help="only this language"
    )
    trust.add_options(s)
    add_print_options(s)
    s.add_argument("--port", type=int, help="port (default: 8000, or the next free one)")
    s.add_argument("--open", action="store_true", help="open the studio in the default browser")
    s.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """The studio command: 0 when stopped with Ctrl-C, 2 on a usage error."""
    if not watch.usable(args):
        return 2
    watcher = StudioWatcher(
        args.pack, args.out, args.lang, print_overrides(args), code=watch.pack_code(args)
    )
    studio = Studio(watcher)
    from pnpkit.commands import studioserver  # only here: the web server's imports (see serve.py)

    return watch.serve_until_stopped(
        watcher,
        functools.partial(studioserver.server, studio, args.port),
        watch.report,
        open_page=args.open,
        serving="the studio is on",
        watching="",
        stopped="the studio stopped",
    )
