"""Everything a pack names stays inside it.

Packs come from strangers as often as from their designers. A pack's names
become file and folder names under --out (language codes, ids, group names,
the pack id), so each must be one plain path component. Every file a pack makes
pnpkit read (component YAML, templates, images) is resolved with symlinks
followed and must lie inside the folders it may come from: the pack folder, the
shared templates/ folder beside components/, pnpkit's own files. A link that
leads elsewhere is reported and never read, so no file of the machine can end up
in the output or in a message.
"""

from __future__ import annotations

import argparse
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

PACKAGE = (
    Path(__file__).resolve().parent.parent
)  # pnpkit's own files: base templates, fonts, profiles

# A BCP-47-like tag: a 2-3 letter language, then subtags (pt-BR, zh-Hant, sr-Latn-RS).
LANG_TAG = re.compile(r"[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*")
MAX_LANG = 35
# A name that becomes one file or folder name: no '/', no '..', no leading dot, no control
# characters.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
MAX_NAME = 64
_DEVICES = frozenset(
    {
        "CON",
        "PRN",
        "AUX",
        "NUL",
        *(f"COM{n}" for n in range(10)),
        *(f"LPT{n}" for n in range(10)),
    }
)


def display_path(path: Path) -> str:
    """Path as the user sees it: relative to where the command was run."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


def lang_problem(value: str) -> str | None:
    """Why value is not a usable language code, or None when it is one."""
    if LANG_TAG.fullmatch(value) and len(value) <= MAX_LANG:
        return None
    return (
        f"language code {_quoted(value)} is not a language "
        "tag like en, pt-BR or zh-Hant (it names files)"
    )


def name_problem(value: str, what: str) -> str | None:
    """Why value cannot name a file (as an id, group name or pack id), or None when it can."""
    if not NAME.fullmatch(value):
        return (
            f"{what} {_quoted(value)} may hold only letters, digits, '.', '_' and '-', "
            "starting with a letter or digit (it names files)"
        )
    if value.endswith(".") or value.split(".")[0].upper() in _DEVICES:
        return f"{what} '{value}' cannot name a file on Windows (a device name, or a final '.')"
    if len(value) > MAX_NAME:
        return (
            f"{what} '{value[:20]}…' is {len(value)} characters "
            f"long; at most {MAX_NAME} (it names files)"
        )
    return None


def lang_option(value: str) -> str:
    """argparse type for --lang: a language tag, else a usage error."""
    problem = lang_problem(value)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return value


def _quoted(value: str) -> str:
    """value as a message shows it: control characters escaped, long values cut."""
    shown = escaped(value)
    return f"'{shown[:40]}…'" if len(shown) > 40 else f"'{shown}'"


def escaped(value: str) -> str:
    """value with its control characters escaped: a message that quotes a pack's text must not
    move the terminal's cursor or colour it."""
    return value.encode("unicode_escape").decode("ascii") if not value.isprintable() else value


class Outside(ValueError):
    """A file a pack names lies outside the folders it may read from."""


def pack_roots(pack_root: Path) -> tuple[Path, ...]:
    """Where a pack's YAML and images may lie: the pack folder itself (as the user named it)."""
    return (pack_root.resolve(),)


def template_roots(pack_root: Path, shared: Path) -> tuple[Path, ...]:
    """Where a pack's templates may lie: the pack, the shared templates/ folder and pnpkit's own.
    The shared folder is taken where it stands, not where a link would lead."""
    return (pack_root.resolve(), shared.parent.resolve() / shared.name, PACKAGE)


def inside(path: Path, roots: Iterable[Path], itself: bool = True) -> Path | None:
    """path with its symlinks followed (in every folder on the way), if it lies below one of roots
    (or is one, when `itself`: a folder may be, a file never is); else None. Roots are compared as
    given, so pass them resolved (pack_roots, template_roots). A name with '..' that climbs out,
    an absolute name and a link that leads out all resolve elsewhere and so give None.

    Every check that a path stays in the pack (or a trusted folder) is this one: a second copy
    would be a second place for a hole."""
    try:
        real = Path(os.path.realpath(path))
    except ValueError:  # a NUL character: the name of no file, in the pack or out of it
        return None
    if any((itself and real == root) or root in real.parents for root in roots):
        return real
    return None


def confined(path: Path, roots: tuple[Path, ...]) -> Path:
    """path resolved (symlinks followed), if it lies inside one of roots; else raise Outside."""
    real = inside(path, roots)
    if real is None:
        raise Outside(f"'{display_path(path)}' leads outside the pack; it was not read")
    return real


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def image_file(pack_root: Path, href: str) -> str | None:
    """The file an <image href> names: resolved, inside the pack folder, a plain file; None if there
    is no such file. Raise Outside for a URL or a path (or link) that leads out of the pack."""
    shown = f"'{href[:60]}…'" if len(href) > 60 else f"'{href}'"
    if _SCHEME.match(href) or href.startswith("//"):
        raise Outside(f"image {shown} is a URL; an image must be a file in the pack or a data: URI")
    try:
        real = confined(pack_root / href, pack_roots(pack_root))
    except Outside:
        raise Outside(
            f"image {shown} leads outside the pack; it was not read "
            "(an image must be a file in the pack or a data: URI)"
        ) from None
    return str(real) if regular_file(real) else None


def regular_file(path: Path) -> bool:
    """Whether path (followed) is a plain file: never a FIFO or device, whose reading could hang."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False
