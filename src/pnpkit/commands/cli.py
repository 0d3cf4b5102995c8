"""The command line: the only place that prints or chooses an exit code.

Exit codes: 0 clean, 1 problems found (errors; warnings too with --strict),
2 usage error.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from pnpkit import __version__
from pnpkit.build import output
from pnpkit.build.buildoptions import BuildOptions
from pnpkit.build.pipeline import Code, Result, build, validate
from pnpkit.checks import trust
from pnpkit.commands.options import add_limit_options, add_print_options, print_overrides
from pnpkit.errors import ALL_WARNINGS_HELP, folded
from pnpkit.export import preflight, rastercache
from pnpkit.export import profile as profiles
from pnpkit.pack.model import PrintOverrides
from pnpkit.pack.paths import lang_option

# export (with facepages' rasteriser and process pool) is imported only by a build that
# exports (--profile, --png): importing it cost every command a tenth of a second.

EPILOG = (
    "Problems print as path:line:col: level: message "
    "[rule-id]. Exit 0 clean, 1 problems, 2 usage error."
)


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; given the command, without the other commands' modules when it
    is one of this module's own (validate, build): a build parses the same without them, and
    their imports (watch's web server) cost it a few hundredths of a second."""
    p = argparse.ArgumentParser(
        prog="pnpkit",
        description="Print-and-play kits for board games: YAML game packs -> printable PDFs.",
        epilog=EPILOG,
    )
    p.add_argument("--version", action="version", version=f"pnpkit {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    v = sub.add_parser(
        "validate",
        help="check game packs and report every problem",
        description="Check game packs: structure, game rules, "
        "templates, text fit and glyphs. Writes nothing.",
        epilog=EPILOG,
    )
    _common(v)
    add_limit_options(v)
    v.add_argument(
        "--provenance",
        action="store_true",
        help="also list every value marked with where it comes from (seed, "
        "public, inferred, design), e.g. to find what is still a design choice",
    )

    _build_parser(sub)
    if command not in OWN_COMMANDS:
        for name in COMMAND_MODULES:
            importlib.import_module(name).configure(sub)
    return p


def _build_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `build` command's parser."""
    b = sub.add_parser(
        "build",
        help="validate, then write the kits' PDFs",
        description="Validate, then write each pack's PDFs (one per language) "
        "and per-face SVGs to OUT/<pack>/. Nothing is written when "
        "there are errors; the previous output stays as it was.",
        epilog=EPILOG,
    )
    _common(b)
    add_print_options(b)
    b.add_argument(
        "--changes",
        action="store_true",
        help="also write <game>-<lang>-changes.pdf with only the faces that differ from the "
        "previous build in --out, and list them (also in changes.txt)",
    )
    b.add_argument(
        "--profile",
        action="append",
        type=profiles.profile_option,
        metavar="NAME",
        help=profiles.PROFILE_HELP,
    )
    b.add_argument(
        "--image-url",
        type=profiles.image_url_option,
        metavar="BASE",
        help="Tabletop Simulator: name every image of the save by BASE/<lang>/<file> instead of "
        "a file:// path, and put the files to upload under BASE in OUT/<pack>/<profile>/upload/",
    )
    b.add_argument(
        "--png",
        type=profiles.png_option,
        metavar="DPI",
        dest="png",
        help="also write one PNG per distinct face, trim "
        "size at DPI (36-2400), into OUT/<pack>/png-DPI/",
    )


# Modules that add a command: each has configure(subparsers), which adds its parser
# and sets `run=function(args) -> exit code` as a default.
COMMAND_MODULES: tuple[str, ...] = (
    "pnpkit.commands.watch",
    "pnpkit.commands.studio",
    "pnpkit.commands.json_schema",
    "pnpkit.commands.scaffold",
    "pnpkit.checks.trust",
    "pnpkit.export.preflight",
)


OWN_COMMANDS = ("validate", "build")


def _command(argv: list[str] | None) -> str | None:
    """The command the arguments name: the first that is not an option (the parser's own options
    take no value), or None."""
    words = sys.argv[1:] if argv is None else argv
    return next((word for word in words if not word.startswith("-")), None)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "packs",
        nargs="+",
        type=Path,
        metavar="PACK",
        help="game pack folder(s), e.g. components/mammoth-herd",
    )
    p.add_argument(
        "--lang",
        action="append",
        metavar="LANG",
        type=lang_option,
        help="only this language (repeatable; default: every language of the pack)",
    )
    p.add_argument("--strict", action="store_true", help="fail on warnings too")
    p.add_argument("--all-warnings", action="store_true", help=ALL_WARNINGS_HELP)
    trust.add_options(p)


def run() -> NoReturn:
    """The `pnpkit` command: main(), then the process ends without taking its objects apart.

    A build ends holding its pack, faces, drawings and caches; Python's own exit then frees
    them one by one and collects them, which took a 1,000-card build's process 0.3-0.7 s after
    its last line was printed (strace: no system call in that time). Exit handlers still run
    (atexit: a temporary folder's finalizer) and the output is flushed; no file is left
    unwritten, as every file pnpkit writes is closed when written."""
    code = main()
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: as Python's own exit says of a failed flush
        code = code or 120
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    _tolerant_output()
    args = parser(_command(argv)).parse_args(argv)
    try:
        return args.run(args) if hasattr(args, "run") else _check_packs(args)
    except KeyboardInterrupt:  # Ctrl-C: the output is as the last whole build left it
        print("\npnpkit: stopped", file=sys.stderr)
        return 130
    except OSError as exc:  # the output folder is not writable, the disk is full, ...
        print(
            f"pnpkit: error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "),
            file=sys.stderr,
        )
        return 1


def _check_packs(args: argparse.Namespace) -> int:
    """validate or build each pack; the exit code of the worst."""
    overrides = print_overrides(args)
    failed = usage = False
    clashes = [output.clash(args.out, p) for p in args.packs if args.command == "build"]
    if any(clashes):  # before any pack is built: the output would replace or mix with a pack
        print(f"pnpkit: error: {next(c for c in clashes if c)}", file=sys.stderr)
        return 2
    if getattr(args, "image_url", None) and not any(p.output == "tts" for p in args.profile or []):
        print(
            "pnpkit: error: --image-url names the images of a Tabletop Simulator save: "
            "give --profile tabletop-simulator too",
            file=sys.stderr,
        )
        return 2
    for pack in args.packs:
        if not pack.is_dir():
            print(f"pnpkit: error: no such pack folder: {pack}", file=sys.stderr)
            return 2
        started = time.perf_counter()
        code = Code(args.trust or trust.is_trusted(pack), args.code_timeout)
        if args.command == "validate":
            result = validate(pack, args.lang, overrides, code=code)
        else:
            result = _build(pack, args, overrides, code)
        failed |= _report(result, args, pack, time.perf_counter() - started)
        usage |= any(
            p.rule == "usage" for p in result.problems
        )  # e.g. --lang the pack does not have
    return 2 if usage else 1 if failed else 0


def _build(pack: Path, args: argparse.Namespace, overrides: PrintOverrides, code: Code) -> Result:
    """Build one pack, export it, and preflight what was written, as a print shop would."""
    chosen = [profiles.with_image_url(p, args.image_url) for p in args.profile or []]
    chosen += [args.png] if args.png else []
    pdfx = {p.id for p in chosen if p.pdfx}
    passed = rastercache.for_output(args.out)  # remembers the files that passed before
    options = BuildOptions(
        args.out,
        args.lang,
        overrides,
        args.strict,
        code=code,
        changed=args.changes,
        keep_drawings=bool(args.profile or args.png),  # the exports draw them
        progress=_progress() if sys.stderr.isatty() else None,
    )
    result = build(pack, options)
    if chosen:
        from pnpkit.export import export  # only here: see the imports

        export.run(result, args.out, chosen, args.strict)
    if result.written:
        assert result.pack is not None  # a build that wrote files read its pack
        result.problems += preflight.check_build(args.out / result.pack.id, pdfx, passed)
    return result


def _tolerant_output() -> None:
    """A file name or a letter the output's encoding cannot show (a non-UTF-8 file name, Polish
    text on a Latin-1 terminal) is printed escaped rather than ending the run with
    UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):  # not a test's capture or a pipe replaced by a StringIO
            stream.reconfigure(errors="backslashreplace")


def _report(result: Result, args: argparse.Namespace, pack: Path, seconds: float) -> bool:
    for problem in result.problems if args.all_warnings else folded(result.problems):
        print(problem)
    for note in result.notes:
        print(f"pnpkit: warning: {note}", file=sys.stderr)
    for changes in result.changes if result.written else ():
        assert result.pack is not None  # as above
        for line in changes.lines():
            print(f"{result.pack.id}: {line}")
    if getattr(args, "provenance", False) and result.pack is not None:
        for where, what, tag in result.pack.provenance():
            print(f"{where}: note: {what}: {tag} [provenance]")
    errors = len(result.errors)
    warnings = len(result.problems) - errors
    bad = errors > 0 or (args.strict and warnings > 0)
    if args.command == "build" and not bad and result.pack is not None:
        where = args.out / result.pack.id
        said = f"; {warnings} warning(s)" if warnings else ""  # every one, folded or not
        print(
            f"built {pack} -> {where} ({', '.join(result.faces)}) in {seconds:.2f}s{said}",
            file=sys.stderr,
        )
    elif bad and args.command == "build":
        what = (
            "the sheets were written, the profile export was not"
            if result.written
            else "nothing written"
        )
        print(f"{pack}: {errors} error(s), {warnings} warning(s); {what}", file=sys.stderr)
    elif args.command == "validate":
        print(f"{pack}: {errors} error(s), {warnings} warning(s)", file=sys.stderr)
    return bad


def _progress() -> Callable[[str, int, int], None]:
    def show(what: str, n: int, total: int) -> None:
        filled = int(30 * n / total)
        sys.stderr.write(f"\r{what}: [{'#' * filled}{'.' * (30 - filled)}] {n}/{total} pages")
        if n == total:
            sys.stderr.write("\r" + " " * 70 + "\r")
        sys.stderr.flush()

    return show
