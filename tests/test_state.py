"""One owner for state: no module of pnpkit keeps mutable state of its own; what a process keeps
between builds lives in a Workspace (workspace.py), made by a build or by watch."""

from __future__ import annotations

import ast
from pathlib import Path

import pnpkit

SRC = Path(pnpkit.__file__).parent
# Calls that make a container a module could change
MUTABLE_CALLS = frozenset(
    {
        "dict",
        "list",
        "set",
        "bytearray",
        "OrderedDict",
        "defaultdict",
        "deque",
        "Counter",
        "WeakKeyDictionary",
        "WeakValueDictionary",
        "WeakSet",
        "ContextVar",  # the one below: workspace's current workspace
    }
)
CACHES = frozenset({"cache", "lru_cache", "cached_property"})
# The only module-level state allowed, and why (module.name: reason)
ALLOWED = {
    # A context variable: each thread's current Workspace (the owner of every other state), set
    # by Workspace.active() and reset after; nothing else is kept in it.
    "workspace._CURRENT": "the current workspace, per thread",
    # PyYAML's loader configuration, a dict by its API: set once at import, read after
    "pack.yamldoc._Loader.yaml_implicit_resolvers": "YAML 1.2 booleans",
}


def _name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")


def _mutable(value: ast.expr | None, classes: set[str]) -> bool:
    """A literal or comprehension of a dict, list or set, or a call making a mutable container
    or an object of a class of the module (a stateful singleton)."""
    if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
        return True
    if isinstance(value, ast.Call):
        called = _name(value.func)
        return called in MUTABLE_CALLS or called in classes
    return False


def _immutable(node: ast.ClassDef) -> bool:
    """A frozen dataclass or a NamedTuple: its objects cannot change."""
    frozen = any(
        isinstance(d, ast.Call)
        and _name(d.func) == "dataclass"
        and any(k.arg == "frozen" and ast.unparse(k.value) == "True" for k in d.keywords)
        for d in node.decorator_list
    )
    return frozen or any(_name(base) == "NamedTuple" for base in node.bases)


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements run at import: the body, and the branches of its if and try blocks."""
    out: list[ast.stmt] = []
    for node in body:
        out.append(node)
        if isinstance(node, ast.If):
            out += _top_level(node.body) + _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            out += _top_level(node.body) + _top_level(node.orelse) + _top_level(node.finalbody)
            for handler in node.handlers:
                out += _top_level(handler.body)
    return out


def _assigned(node: ast.stmt) -> tuple[str, ast.expr | None] | None:
    if isinstance(node, ast.Assign):
        return ast.unparse(node.targets[0]), node.value
    if isinstance(node, ast.AnnAssign):
        return ast.unparse(node.target), node.value
    return None


def module_state(path: Path) -> list[str]:
    """Every place a module keeps mutable state: 'module:line: what'."""
    module = path.relative_to(SRC).with_suffix("").as_posix().replace("/", ".")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef) and not _immutable(n)}
    found = []
    for node in _top_level(tree.body):
        assigned = _assigned(node)
        if assigned and _mutable(assigned[1], classes):
            found.append((node.lineno, assigned[0], "a mutable value at module level"))
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if _name(target) in CACHES:
                    found.append((node.lineno, node.name, "a cache kept by the module"))
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                assigned = _assigned(member)
                if assigned and _mutable(assigned[1], set()):
                    name = f"{node.name}.{assigned[0]}"
                    found.append((member.lineno, name, "a mutable class attribute"))
                if isinstance(member, ast.FunctionDef):
                    for decorator in member.decorator_list:
                        target = decorator.func if isinstance(decorator, ast.Call) else decorator
                        if _name(target) in CACHES - {"cached_property"}:
                            name = f"{node.name}.{member.name}"
                            found.append((member.lineno, name, "a cache kept by the class"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.append((node.lineno, ", ".join(node.names), "a global statement"))
    return [
        f"{module}:{line}: {name}: {what}"
        for line, name, what in found
        if f"{module}.{name}" not in ALLOWED
    ]


def test_no_module_keeps_mutable_state():
    found = [line for path in sorted(SRC.rglob("*.py")) for line in module_state(path)]
    assert not found, "module-level state (keep it in a workspace.Slot):\n" + "\n".join(found)


def test_every_allowed_exception_still_exists():
    names = set()
    for path in SRC.rglob("*.py"):
        module = path.relative_to(SRC).with_suffix("").as_posix().replace("/", ".")
        for node in _top_level(ast.parse(path.read_text(encoding="utf-8")).body):
            assigned = _assigned(node)
            if assigned:
                names.add(f"{module}.{assigned[0]}")
    assert set(ALLOWED) <= names


def test_the_scan_finds_each_kind_of_state(tmp_path, monkeypatch):
    """The scan is not blind: each kind of module state in a module is named with its line."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "bad.py").write_text(
        "import functools\n"
        "from types import MappingProxyType\n"
        "SEEN = {}\n"  # 3
        "NAMES: list[str] = []\n"  # 4
        "OK = MappingProxyType({'a': 1})\n"
        "ALSO_OK = frozenset({1})\n"
        "class Thing:\n"
        "    memo = {}\n"  # 8
        "ONE = Thing()\n"  # 9
        "@functools.lru_cache(maxsize=4)\n"
        "def f(x):\n"  # 11
        "    global SEEN\n"  # 12
        "    return x\n"
        "try:\n"
        "    LATE = set()\n"  # 15
        "except ImportError:\n"
        "    pass\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(__import__(__name__), "SRC", package)
    assert [line.split(": ")[0] for line in module_state(package / "bad.py")] == [
        "bad:3",
        "bad:4",
        "bad:8",
        "bad:9",
        "bad:11",
        "bad:15",
        "bad:12",
    ]
