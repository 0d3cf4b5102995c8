"""Which packs may run their own Python (rules.py): the folders the user has trusted.

A pack downloaded from a stranger is data until its user says otherwise: its
YAML, templates and art are checked and drawn, but its rules.py only runs once
the user has trusted the pack's folder, or a folder above it, with
`pnpkit trust PACK` (remembered), or for one run with `--trust`. The list is a
text file of absolute folder paths, one a line, in the user's configuration
folder ($XDG_CONFIG_HOME/pnpkit/trusted-folders.txt, else
~/.config/pnpkit/...), never inside a pack, so a pack cannot trust itself.
Trusting a folder trusts every pack below it, as editors' workspace trust does;
the project's own `make kits` passes --trust.

The list is read strictly: a line that is not one absolute, normalised path
without control characters is ignored, with a warning. A folder whose name holds
a control character (a newline would make two lines of one name) is never
trusted, and the list is written whole under a name of its own, then renamed
into place, so it is never seen half written.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from pathlib import Path

from pnpkit.pack import paths

STORE_NAME = "trusted-folders.txt"
CODE_SECONDS = 10.0  # a pack's own code gets this long per build unless the user gives more


def store() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "pnpkit" / STORE_NAME


def trusted_folders() -> list[Path]:
    """The trusted folders the list holds; a line that is not one is ignored with a warning."""
    path = store()
    try:
        text = path.read_bytes().decode("utf-8")  # bytes: text mode would read "\r" as "\n"
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        _warn(f"{path}: ignored, as it cannot be read ({exc}); no folder is trusted")
        return []
    folders = []
    # split at "\n" alone: splitlines() also splits at \x85, \u2028 and other characters a
    # folder's name may hold, which would make one name two lines
    for n, line in enumerate(text.split("\n"), 1):
        if line and _exact(line):
            folders.append(Path(line))
        elif line:
            _warn(
                f"{path}:{n}: line ignored: {_shown(line)} is not one absolute, normalised "
                "folder path"
            )
    return folders


def _exact(line: str) -> bool:
    """Is line a folder as _save writes one: absolute, normalised, no control characters?"""
    return os.path.isabs(line) and os.path.normpath(line) == line and not control_in(line)


def control_in(name: str) -> bool:
    """Does name hold a control character (C0, DEL or C1: newline, NUL, escape, ...)?"""
    return any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in name)


def _shown(name: str) -> str:
    """name quoted with its control characters escaped, cut when long."""
    shown = name.encode("unicode_escape").decode("ascii")
    return f"'{shown[:80]}…'" if len(shown) > 80 else f"'{shown}'"


def _warn(message: str) -> None:
    print(f"pnpkit: warning: {message}", file=sys.stderr)


def is_trusted(pack: Path) -> bool:
    """True when the pack's real folder is a trusted folder or lies below one."""
    return paths.inside(pack, trusted_folders()) is not None


def remember(folder: Path) -> bool:
    """Trust folder; False if it already was (itself, not through a folder above). ValueError
    when its real name holds a control character."""
    real = folder.resolve()
    if control_in(str(real)):
        raise ValueError(f"{_shown(str(real))} holds a control character")
    folders = trusted_folders()
    if real in folders:
        return False
    _save(folders + [real])
    return True


def forget(folder: Path) -> bool:
    """Stop trusting folder; False if it was not on the list."""
    real = folder.resolve()
    folders = trusted_folders()
    if real not in folders:
        return False
    _save([f for f in folders if f != real])
    return True


def _save(folders: list[Path]) -> None:
    """Write the list whole into a new file of its own, then rename it into place: a reader
    sees the old list or the new one, never half of one."""
    path = store()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{STORE_NAME}.", dir=path.parent)
    try:
        with open(fd, "w", encoding="utf-8") as f:
            f.write("".join(f"{folder}\n" for folder in folders))
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def seconds(text: str) -> float:
    """--code-timeout: a finite, positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 3600:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds from 0 to 3600 (got '{text}')"
        )
    return value


def add_options(p: argparse.ArgumentParser) -> None:
    """--trust and --code-timeout, for every command that checks a pack."""
    p.add_argument(
        "--trust",
        action="store_true",
        help="run the pack's own Python (rules.py) this time, "
        "without remembering it (see 'pnpkit trust')",
    )
    p.add_argument(
        "--code-timeout",
        type=seconds,
        default=CODE_SECONDS,
        metavar="SECONDS",
        help=f"how long a pack's own Python may run per check (default: {CODE_SECONDS:g})",
    )


def configure(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    t = sub.add_parser(
        "trust",
        help="let packs run their own Python (rules.py)",
        description="A pack's rules.py is Python: it runs only "
        "for packs you trust. 'pnpkit trust PACK' "
        "remembers the folder (and every pack below it); --remove forgets it; with no PACK it "
        f"lists the trusted folders. The list is kept in {store()}.",
    )
    t.add_argument(
        "packs", nargs="*", type=Path, metavar="PACK", help="pack folder (or a folder of packs)"
    )
    t.add_argument("--remove", action="store_true", help="stop trusting these folders")
    t.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not args.packs:
        folders = trusted_folders()
        for folder in folders:
            print(folder)
        if not folders:  # said apart from the list, which stays empty for a script reading it
            print(f"no folder is trusted (the list is kept in {store()})", file=sys.stderr)
        return 0
    named = [p for p in args.packs if control_in(str(p)) or control_in(str(p.resolve()))]
    if named:  # a newline in a name would make two lines of the list: one a folder never named
        print(
            f"pnpkit: error: the folder {_shown(str(named[0]))} (or where it leads) has a control "
            "character in its name; such a folder cannot be trusted (rename it)",
            file=sys.stderr,
        )
        return 2
    missing = [p for p in args.packs if not p.is_dir()]
    if missing:
        print(f"pnpkit: error: no such folder: {missing[0]}", file=sys.stderr)
        return 2
    for folder in args.packs:
        if args.remove:
            done = forget(folder)
            print(
                f"{'no longer trusted' if done else 'was not trusted'}: {folder.resolve()}",
                file=sys.stderr,
            )
            above = [f for f in trusted_folders() if paths.inside(folder, (f,), itself=False)]
            if above:
                print(
                    f"still trusted through {above[0]} (pnpkit trust --remove {above[0]})",
                    file=sys.stderr,
                )
        else:
            done = remember(folder)
            print(
                f"{'trusted' if done else 'already trusted'}: {folder.resolve()}", file=sys.stderr
            )
    return 0
