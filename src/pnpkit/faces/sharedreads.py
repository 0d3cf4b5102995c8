"""Which keys of the pack-wide tables (`s`, the strings; `data`) a template reads.

A face is keyed on what its templates can see (cache.py). Were the whole strings table part
of every face's key, changing one string would render every face of the language again (in
`watch`, 48 of 48 for one word of one card). Read from the template's parse instead: `s.title`
and `s['title']` read one key; any other use of the name (`s[item.kind]`, `{% for k in s %}`,
`s` handed to a macro, `s.items()`) may read any key, and the face is keyed on the whole table.
A helper, filter or test that asks for the template's context (jinja2.pass_context) may read
any name: a family calling one is keyed on every table whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import jinja2
import jinja2.nodes as nodes

TABLES = ("s", "data")  # pack_context()'s tables keyed by their reads; lang and pack are small
# Per table in TABLES' order: the keys read by a constant name, or None: maybe any key
Reads = tuple[frozenset[str] | None, ...]
EVERYTHING: Reads = (None,) * len(TABLES)
_DICT_ATTRIBUTES = frozenset(dir(dict))  # `s.items` is the dict's method, not the key 'items'
_CONTEXT = getattr(jinja2.pass_context(lambda context: None), "jinja_pass_arg", None)


def tree_reads(tree: nodes.Template) -> Reads:
    """The keys of each table a freshly parsed template reads (see the module's doc)."""
    keys: dict[str, set[str]] = {table: set() for table in TABLES}
    by_key: set[int] = set()  # the Name nodes read as `table.key` or `table['key']`
    for node in tree.find_all((nodes.Getattr, nodes.Getitem)):
        assert isinstance(node, (nodes.Getattr, nodes.Getitem))  # what find_all was asked for
        inner = node.node
        if not (isinstance(inner, nodes.Name) and inner.name in keys and inner.ctx == "load"):
            continue
        key = _constant_key(node)
        if key is not None:
            keys[inner.name].add(key)
            by_key.add(id(inner))
    whole = {
        n.name
        for n in tree.find_all(nodes.Name)
        if n.name in keys and n.ctx == "load" and id(n) not in by_key
    }
    return tuple(None if t in whole else frozenset(keys[t]) for t in TABLES)


def _constant_key(node: nodes.Getattr | nodes.Getitem) -> str | None:
    if isinstance(node, nodes.Getattr):
        return None if node.attr in _DICT_ATTRIBUTES else node.attr
    arg = node.arg
    return arg.value if isinstance(arg, nodes.Const) and isinstance(arg.value, str) else None


def merged(parts: Iterable[Reads]) -> Reads:
    """The reads of a template family: what any of its templates reads."""
    out: list[set[str] | None] = [set() for _ in TABLES]
    for reads in parts:
        for n, keys in enumerate(reads):
            held = out[n]
            if keys is None or held is None:
                out[n] = None
            else:
                held |= keys
    return tuple(None if keys is None else frozenset(keys) for keys in out)


def asks_for_context(env: jinja2.Environment, names: Iterable[str], table: str) -> bool:
    """Whether any of these globals (table 'globals'), filters or tests is handed the
    template's context, where it may read any name."""
    found: Mapping[str, object] = getattr(env, table)
    return any(
        getattr(found.get(name), "jinja_pass_arg", None) is _CONTEXT
        for name in names
        if name in found
    )


def values(shared: Mapping[str, object], reads: Reads) -> str:
    """What a face reading `reads` sees of the tables in `shared` (pack_context()), as text for
    its key: a key read that is absent stays absent (it shows when it is added)."""
    parts = []
    for table, keys in zip(TABLES, reads):
        held = shared[table]
        assert isinstance(held, Mapping)
        if keys is None:
            parts.append(repr(held))
        else:
            parts.append(repr({k: held[k] for k in sorted(keys) if k in held}))
    return "\0".join(parts)
