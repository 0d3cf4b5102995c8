"""pnpkit's own registry, for tests that call one stage directly as build.validate() would."""

from __future__ import annotations

from pnpkit.errors import Problem
from pnpkit.impose import layout
from pnpkit.impose.page import Page
from pnpkit.kinds.registry import default_registry
from pnpkit.pack.model import Face, PrintSettings

REGISTRY = default_registry()


def impose(faces: list[Face], settings: PrintSettings) -> tuple[list[Page], list[Problem]]:
    """layout.impose with pnpkit's packers (hex, die, labels)."""
    return layout.impose(faces, settings, REGISTRY.packers)
