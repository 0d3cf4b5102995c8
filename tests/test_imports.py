"""Every module stands on its own: it imports alone, no two modules import each other (even
inside a function), the stages keep their layer order (import-linter), and nothing is registered
by importing a module (kinds/registry.py)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "pnpkit"
# Dotted names under pnpkit: "errors", "pack.loader", ... (a stage's __init__ names the stage)
MODULES = sorted(
    ".".join(p.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")
    for p in PACKAGE.rglob("*.py")
    if p.relative_to(PACKAGE).as_posix() not in ("__init__.py", "__main__.py")
)


def _python(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )


# Imports every module named on its standard input, each in a child forked from this process
# before any pnpkit module is imported; prints "module: last line of the error" of each that fails.
# The libraries pnpkit imports are imported first, once: a new interpreter per module spent
# ~0.2 s of CPU on them, 30 s for the whole package, where a fork takes milliseconds.
IMPORT_EACH_ALONE = """
import importlib, os, sys, traceback
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except Exception:
        pass  # an optional library, or a name that is not a module: the child imports it or fails
assert not any(m == "pnpkit" or m.startswith("pnpkit.") for m in sys.modules)
for module in sys.stdin.read().split():
    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module("pnpkit." + module)
            code = 0
        except BaseException:
            print(module + ": " + traceback.format_exc().strip().splitlines()[-1], flush=True)
            code = 1
        os._exit(code)
    os.waitpid(pid, 0)
"""


def _libraries() -> list[str]:
    """Every module outside pnpkit that a pnpkit module imports (`from a.b import c`: a.b and
    a.b.c, which may be a module)."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module)
                found.update(f"{node.module}.{a.name}" for a in node.names)
    return sorted(n for n in found if n.split(".")[0] not in ("pnpkit", "__future__"))


def test_every_module_imports_alone():
    """Each module is the first pnpkit module its process imports, and imports (no module needs
    another to have been imported before it, and no two import each other at import time)."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    run = subprocess.run(
        [sys.executable, "-c", IMPORT_EACH_ALONE, *_libraries()],
        input="\n".join(MODULES),
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines() == []


def _imports(tree: ast.Module) -> set[str]:
    """The pnpkit modules a module imports at any depth (functions too), except under
    `if TYPE_CHECKING:`, which never runs."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        skipped = ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        if isinstance(node, ast.If) and ast.unparse(node.test) in skipped:
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "pnpkit":
            base = node.module.removeprefix("pnpkit").removeprefix(".")
            for a in node.names:  # `from pnpkit.pack import loader` names the module pack.loader
                name = f"{base}.{a.name}" if base else a.name
                found.add(name if name in MODULES or not base else base)
        elif isinstance(node, ast.Import):
            found.update(
                a.name[len("pnpkit.") :] for a in node.names if a.name.startswith("pnpkit.")
            )
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def import_graph() -> dict[str, set[str]]:
    graph = {}
    for name in MODULES:
        path = PACKAGE / f"{name.replace('.', '/')}.py"
        if not path.exists():
            path = PACKAGE / name / "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph[name] = {m for m in _imports(tree) if m in MODULES and m != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each import cycle once, as the path that closes it (a depth-first search)."""
    found, state = [], {}  # state: 1 on the current path, 2 done

    def walk(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                found.append(path[path.index(nxt) :] + [nxt])
            elif nxt not in state:
                walk(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node, [node])
    return found


def test_no_module_imports_one_that_imports_it_back():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_a_function_level_import_counts_and_type_checking_does_not():
    tree = ast.parse(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pnpkit import a\n"
        "def f():\n    from pnpkit import b\n    import pnpkit.c\n"
    )
    assert _imports(tree) == {"b", "c"}


def test_the_stages_keep_their_layer_order():
    """import-linter's contracts ([tool.importlinter] in pyproject.toml), as `make lint` runs
    them."""
    lint = Path(sys.executable).parent / "lint-imports"
    run = subprocess.run(
        [str(lint), "--no-cache", "--no-logo"],
        cwd=SRC.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_the_layer_contract_names_every_stage():
    """A new package under src/pnpkit/ is a stage of the layer order, or the contract misses it."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    config = tomllib.loads((SRC.parent / "pyproject.toml").read_text(encoding="utf-8"))
    [contract] = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    layered = {n.strip() for layer in contract["layers"] for n in layer.split("|")}
    top = {m.split(".")[0] for m in MODULES}
    assert top == layered


@pytest.mark.parametrize("first", ["checks.rules", "faces.render", "impose.layout", "kinds.dice"])
def test_the_registry_is_whole_whatever_was_imported_first(first):
    run = _python(
        f"import pnpkit.{first}\nfrom pnpkit.kinds.registry import default_registry\n"
        "r = default_registry()\n"
        "print(sorted(r.packers), 'die-opposites' in r.rules, 'face_hex' in r.helpers)"
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[0] == "['die', 'hex', 'labels'] True True"


def test_importing_a_module_registers_nothing():
    """No module-level registry is left to fill by importing: the plug-ins only have register()."""
    run = _python(
        "import pnpkit.checks.rules as r, pnpkit.faces.render as t, pnpkit.impose.layout as l\n"
        "import pnpkit.kinds.dice, pnpkit.kinds.hexes\n"
        "print([n for n in ('BUILTIN', 'GLOBALS', 'PACKERS', 'template_global') "
        "if hasattr(r, n) or hasattr(t, n) or hasattr(l, n)])"
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_the_help_and_a_build_leave_the_web_server_and_importlib_metadata_unimported(tmp_path):
    """What only some commands use is imported where used: Python's web server only for
    `watch --serve` (serve.py), importlib.metadata never for the engine's library versions
    (30-40 ms each, on every command)."""
    kit = Path(__file__).resolve().parents[1] / "components" / "mammoth-herd"
    run = _python(
        "import sys\n"
        "from pnpkit.commands import cli\n"
        "cli.parser()\n"  # every command's options, as --help shows them
        f"assert cli.main(['build', {str(kit)!r}, '--trust', '--out', {str(tmp_path)!r}]) == 0\n"
        "print(sorted(m for m in ('http.server', 'webbrowser', 'importlib.metadata') "
        "if m in sys.modules))"
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "[]"
