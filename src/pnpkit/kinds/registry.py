"""The one registry of what plugs into pnpkit: packers, template helpers and types, and rules.

Nothing registers itself when it is imported. A module that adds something to
pnpkit has a `register(reg)` function, and default_registry() calls each module
in PLUGINS: the whole list is one line, and every entry point (build,
validate, watch, the JSON Schemas, the tests) takes its registry from here, so
none can see a partial one, whatever it imported first.

A pack's own rules.py adds its rules to a child of the registry
(Registry.child()), made for that pack in the trusted child process and dropped
with it; the registry the build uses never changes while it runs.

Adding a packer or a rule: write the module with its `register(reg)` and add it
to PLUGINS (the README's "Extending pnpkit" shows it; tests/test_extending.py runs it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from pnpkit.checks import rules
from pnpkit.kinds import dice, hexes, labels

if TYPE_CHECKING:
    from pnpkit.checks.rules import Rule
    from pnpkit.errors import Problem
    from pnpkit.impose.page import Page
    from pnpkit.pack.model import Face, PrintSettings

    # copies of fronts, settings -> (front pages, problems)
    Packer = Callable[[list[Face], PrintSettings], tuple[list[Page], list[Problem]]]


@dataclass
class Registry:
    """What layout, render and rules look things up in; filled only by register() calls."""

    packers: dict[str, Packer] = field(default_factory=dict)  # kind (or page.LABELS) -> packer
    helpers: dict[str, Callable[..., object]] = field(default_factory=dict)  # template globals
    types: set[type] = field(default_factory=set)  # classes whose attributes templates may read
    rules: dict[str, Rule] = field(default_factory=dict)  # rule name -> Rule

    def add_packer(self, kind: str, packer: Packer) -> None:
        """Faces of this kind are laid out by `packer` instead of the rectangular grid."""
        self.packers[kind] = packer

    def add_helper(self, fn: Callable[..., object]) -> None:
        """Templates may call fn under its own name."""
        self.helpers[fn.__name__] = fn

    def add_type(self, cls: type) -> None:
        """Templates may read the attributes of cls's instances (plain values a helper returns)."""
        self.types.add(cls)

    def add_rule(self, fn: Callable[..., object]) -> None:
        """A function declared with @rules.rule(...); a later rule of the same name wins."""
        declared = rules.declared(fn)
        self.rules[declared.name] = declared

    def child(self) -> Registry:
        """A copy to add to (a pack's own rules) without changing this one."""
        return Registry(dict(self.packers), dict(self.helpers), set(self.types), dict(self.rules))


class Plugin(Protocol):
    """A module that adds packers, helpers, types or rules."""

    def register(self, reg: Registry) -> None: ...


# Every module with a register(reg), in order (a later one may replace an earlier one's entry).
PLUGINS: tuple[Plugin, ...] = (rules, hexes, dice, labels)


def default_registry() -> Registry:
    """pnpkit's own packers, helpers and rules. Made afresh on each call: it is a few dict
    entries, and no caller can change what another sees."""
    reg = Registry()
    for plugin in PLUGINS:
        plugin.register(reg)
    return reg
