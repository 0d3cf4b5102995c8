"""Where a pack's templates come from (its own, the shared folder, pnpkit's), the process's
cache of compiled templates, and each template's family (what it extends, includes, imports)."""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from types import CodeType
from typing import TYPE_CHECKING, Any, NamedTuple

import jinja2
import jinja2.bccache
import jinja2.meta

from pnpkit import memo, workspace
from pnpkit.errors import Location
from pnpkit.faces import sharedreads
from pnpkit.faces.packloader import PackLoader
from pnpkit.pack import paths
from pnpkit.pack.model import Pack

if TYPE_CHECKING:
    pass


BUILTIN_TEMPLATES = (
    Path(__file__).resolve().parent.parent / "templates"
)  # _face.svg.j2, _icons.svg.j2


def template_dirs(pack: Pack) -> list[Path]:
    """Where templates are looked up, first match wins: the pack's own templates/, the shared
    templates/ beside components/, then the base templates that come with pnpkit."""
    dirs = [d for d in (pack.root / "templates", shared_templates(pack)) if d.is_dir()]
    return dirs + [BUILTIN_TEMPLATES]


def shared_templates(pack: Pack) -> Path:
    """templates/ beside components/: found from the pack folder as named (made absolute, so that
    `pnpkit build .` finds it too, but with links not followed, so a linked pack finds its own)."""
    return Path(os.path.abspath(pack.root)).parent.parent / "templates"


def template_loader(pack: Pack) -> PackLoader:
    """Looks templates up in template_dirs(pack) and reads none from outside the pack, the shared
    templates/ folder or pnpkit's own (see packloader)."""
    return PackLoader(template_dirs(pack), paths.template_roots(pack.root, shared_templates(pack)))


class _Compiled(jinja2.BytecodeCache):
    """The templates compiled in this process, by the settings they were compiled with, name, file
    and source: each validation makes an environment of its own, and `watch` would otherwise
    compile every template again after each save. A template's code does not depend on the
    environment it runs in but through those settings (Jinja's own bytecode caches rest on that).
    """

    KEEP = 512  # templates; more, and the cache starts afresh

    def __init__(self) -> None:
        self.codes: dict[str, tuple[str, CodeType]] = {}

    def get_bucket(
        self, environment: jinja2.Environment, name: str, filename: str | None, source: str
    ) -> jinja2.bccache.Bucket:
        key = f"{_settings(environment)}\0{name}\0{filename}"
        bucket = jinja2.bccache.Bucket(environment, key, self.get_source_checksum(source))
        self.load_bytecode(bucket)
        return bucket

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        kept = self.codes.get(bucket.key)
        if kept is not None and kept[0] == bucket.checksum:
            bucket.code = kept[1]

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.code is None:
            return
        memo.remember(self.codes, bucket.key, (bucket.checksum, bucket.code), self.KEEP)


def _settings(env: jinja2.Environment) -> str:
    """What a template's code and its parse depend on besides its source."""
    return repr(
        (
            type(env).__qualname__,
            env.autoescape,
            env.optimized,
            env.finalize,
            env.is_async,
            env.trim_blocks,
            env.lstrip_blocks,
            env.keep_trailing_newline,
            env.newline_sequence,
            env.block_start_string,
            env.block_end_string,
            env.variable_start_string,
            env.variable_end_string,
            env.comment_start_string,
            env.comment_end_string,
            env.line_statement_prefix,
            env.line_comment_prefix,
            sorted(env.filters),
            sorted(env.tests),
            sorted(env.extensions),
        )
    )


_COMPILED = workspace.Slot("render.compiled", _Compiled)


class _FailFast(jinja2.BaseLoader):
    """A loader that remembers which templates do not compile: a syntax error in a template
    every face imports would otherwise be compiled again for every face (seconds for a deck)."""

    def __init__(self, inner: jinja2.BaseLoader) -> None:
        self.inner = inner
        self.broken: dict[str, jinja2.TemplateSyntaxError] = {}
        self.said: set[tuple[Location, str]] = (
            set()
        )  # missing templates reported: (where named, name)

    def get_source(
        self, environment: jinja2.Environment, name: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        return self.inner.get_source(environment, name)

    def list_templates(self) -> list[str]:
        return self.inner.list_templates()

    def load(
        self, environment: jinja2.Environment, name: str, globals: Any = None
    ) -> jinja2.Template:  # noqa: A002 (the base class's name)
        if name in self.broken:
            raise self.broken[name].with_traceback(None)
        try:
            return self.inner.load(environment, name, globals)
        except jinja2.TemplateSyntaxError as exc:
            self.broken[name] = exc
            raise


def _names_set(tree: jinja2.nodes.Template) -> Iterator[str]:
    """The names a template gives values of its own: set, looped over, imported, macros."""
    for node in tree.find_all((jinja2.nodes.Name, jinja2.nodes.Import, jinja2.nodes.FromImport)):
        if isinstance(node, jinja2.nodes.Name) and node.ctx in ("store", "param"):
            yield node.name
        elif isinstance(node, jinja2.nodes.Import):
            yield node.target
        elif isinstance(node, jinja2.nodes.FromImport):
            yield from (n if isinstance(n, str) else n[1] for n in node.names)
    yield from (macro.name for macro in tree.find_all(jinja2.nodes.Macro))


# Families already found, per environment (one environment per validation): a template error
# on every face of a deck asks for the same family once per face, and parsing is slow.
_FAMILIES = workspace.Slot[
    weakref.WeakKeyDictionary[jinja2.Environment, dict[str, list[tuple[str, str, str]]]]
]("render.families", weakref.WeakKeyDictionary)


def template_family(env: jinja2.Environment, name: str) -> list[tuple[str, str, str]]:
    """The template and every one it extends, includes or imports (all of them when it names
    one by a variable), in the order met, as (name, file, source). Raises jinja2.TemplateError."""
    known = _FAMILIES.here().setdefault(env, {})
    if name not in known:
        known[name] = _family(env, name)
    return known[name]


class _Parsed(NamedTuple):
    """What a template's source says, read from one parse."""

    references: tuple[str | None, ...]  # the templates it names (None: one named by a variable)
    reads: frozenset[str]  # the names it reads
    sets: frozenset[str]  # the names it gives values: set, looped over, parameters, imports, macros
    filters: frozenset[str]
    tests: frozenset[str]
    shared: sharedreads.Reads  # the keys of `s` and `data` it reads (sharedreads.py)


_PARSED = workspace.Memo[tuple[str, str], _Parsed](
    "render.parsed"
)  # by settings and source, as _COMPILED


def _parsed(env: jinja2.Environment, source: str) -> _Parsed:
    """What a source says; raises jinja2.TemplateSyntaxError. Parsed once per process (watch
    asks again after every save)."""
    key = (_settings(env), source)
    known = _PARSED.get(key)
    # a Sandbox's parse reads its tree itself (Sandbox._parse): a template it compiled is known
    return known if known is not None else _read_tree(key, env.parse(source))


def _read_tree(key: tuple[str, str], tree: jinja2.nodes.Template) -> _Parsed:
    """What a freshly parsed tree says, kept for _parsed() under key (settings and source)."""
    names = list(tree.find_all(jinja2.nodes.Name))
    parsed = _Parsed(
        tuple(jinja2.meta.find_referenced_templates(tree)),
        frozenset(n.name for n in names if n.ctx == "load"),
        frozenset(_names_set(tree)),
        frozenset(node.name for node in tree.find_all(jinja2.nodes.Filter)),
        frozenset(node.name for node in tree.find_all(jinja2.nodes.Test)),
        sharedreads.tree_reads(tree),
    )
    return memo.remember(_PARSED, key, parsed, _Compiled.KEEP)


def shared_reads(env: jinja2.Environment, name: str) -> sharedreads.Reads:
    """The keys of the pack-wide tables template `name` and its family read (sharedreads.py);
    raises jinja2.TemplateError."""
    parses = [_parsed(env, source) for _, _, source in template_family(env, name)]
    for table, used in (("globals", "reads"), ("filters", "filters"), ("tests", "tests")):
        if sharedreads.asks_for_context(env, (n for p in parses for n in getattr(p, used)), table):
            return sharedreads.EVERYTHING
    return sharedreads.merged(p.shared for p in parses)


def _referenced(env: jinja2.Environment, source: str) -> list[str | None]:
    """The templates a source names (None: one named by a variable); raises
    jinja2.TemplateSyntaxError."""
    return list(_parsed(env, source).references)


def _family(env: jinja2.Environment, name: str) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    todo = [name]
    assert env.loader is not None  # the build's environment has the pack's loader
    while todo:
        current = todo.pop(0)
        if current in seen:
            continue
        seen.add(current)
        source, filename, _ = env.loader.get_source(env, current)
        assert filename is not None  # our loaders read files
        refs = _referenced(env, source)
        out.append((current, filename, source))
        if None in refs:
            todo += sorted(env.list_templates())
        todo += [r for r in refs if r]
    return out
