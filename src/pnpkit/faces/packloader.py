"""The Jinja loader of a pack's templates: looked up as FileSystemLoader does, read only from
inside.

Every template a face uses, whether named in the YAML or reached through
{% extends %}, {% include %} or {% import %}, comes through get_source(): its
file, links followed, must lie inside the pack, the shared templates/ folder or
pnpkit's own templates, and be UTF-8 text; otherwise it is a TemplateRefused
error naming the file, and nothing of it is read.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from pathlib import Path

import jinja2
from jinja2.loaders import split_template_path

from pnpkit import filelimits
from pnpkit.pack import paths


class TemplateRefused(jinja2.TemplateError):
    """A template file that must not be read (outside the pack) or cannot be (not UTF-8 text)."""

    def __init__(self, name: str, message: str):
        super().__init__(message)
        self.name = name


class PackLoader(jinja2.FileSystemLoader):
    """FileSystemLoader over dirs (first match wins) that reads only files inside roots."""

    def __init__(self, dirs: list[Path], roots: tuple[Path, ...]):
        super().__init__([str(d) for d in dirs])
        self.roots = roots

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        pieces = split_template_path(template)  # refuses '..'
        for searchpath in self.searchpath:
            filename = posixpath.join(searchpath, *pieces)
            if os.path.isfile(filename):
                break
        else:
            raise jinja2.TemplateNotFound(template)
        try:
            paths.confined(Path(filename), self.roots)
        except paths.Outside as exc:
            raise TemplateRefused(
                template,
                f"{exc} (templates come from the pack, the shared templates/ folder "
                "or pnpkit's own)",
            ) from None
        try:
            data = filelimits.read(filename, filelimits.MAX_TEMPLATE_BYTES)
            # as open() in text mode reads it: universal newlines
            contents = data.decode(self.encoding).replace("\r\n", "\n").replace("\r", "\n")
        except UnicodeDecodeError as exc:
            raise TemplateRefused(
                template,
                f"'{paths.display_path(Path(filename))}' is not UTF-8 text (byte {exc.start})",
            ) from None
        except OSError as exc:
            raise TemplateRefused(
                template,
                f"cannot read '{paths.display_path(Path(filename))}': {exc.strerror or exc}",
            ) from None
        mtime = os.path.getmtime(filename)
        return contents, os.path.normpath(filename), lambda: _mtime(filename) == mtime


def _mtime(filename: str) -> float | None:
    try:
        return os.path.getmtime(filename)
    except OSError:
        return None
