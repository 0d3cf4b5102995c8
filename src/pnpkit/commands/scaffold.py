"""`pnpkit new NAME`: a small pack that validates and builds as created, and teaches the format.

It holds one of each common thing: a deck of cards with a shared back, a tile,
a die (a foldable net) and a sheet of running text, with their templates in
the pack's own templates/ folder, a game rule, and comments on every line that
is not obvious. The JSON Schemas are written beside components/ (schema/) so
that the files' first lines point at something real and an editor completes
keys from the first keystroke. The files are in assets/scaffold/, as they are
written (with {@ name @} where the pack's name goes).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import jinja2

from pnpkit.commands import json_schema
from pnpkit.kinds import dice
from pnpkit.pack.paths import display_path

NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
SIDE, TAB = 16, 5  # the die's squares and glue tabs, mm


def configure(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    n = sub.add_parser(
        "new",
        help="create a small game pack to start from",
        description="Create DIR/NAME/: a deck of cards with backs, a tile, a die and a sheet, with "
        "templates and comments that explain the format. It validates and builds as "
        "created. Also writes the JSON Schemas editors use into schema/ beside DIR. "
        "DIR defaults to the project's components/ folder: the one you stand in or "
        "below, else components/ here.",
    )
    n.add_argument(
        "name",
        metavar="NAME",
        help="the pack's id: lowercase letters, digits and dashes, e.g. my-game",
    )
    n.add_argument(
        "--dir", type=Path, help="where packs live (default: the project's components/ folder)"
    )
    n.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not NAME.match(args.name):
        print(
            "pnpkit: error: a pack name is lowercase letters, "
            f"digits and dashes, such as my-game (got '{args.name}')",
            file=sys.stderr,
        )
        return 2
    root = (args.dir or packs_folder(Path.cwd())) / args.name
    shown = display_path(root)
    for there in (root, templates_folder(root)):
        if there.exists():
            print(
                f"pnpkit: error: {display_path(there)} already exists; "
                "choose another name or remove it",
                file=sys.stderr,
            )
            return 2
    try:
        create(root)
    except OSError as exc:
        print(f"pnpkit: error: {exc}", file=sys.stderr)
        return 2
    print(
        f"created {shown}: game.yaml, cards.yaml, tiles.yaml (with tiles.csv), dice.yaml and "
        f"sheets.yaml, and their templates in {display_path(templates_folder(root))}/",
        file=sys.stderr,
    )
    print(
        f"next: pnpkit watch {shown} --serve   (rebuilds "
        "on every save; the open preview refreshes itself)",
        file=sys.stderr,
    )
    return 0


def packs_folder(here: Path) -> Path:
    """Where a new pack goes: the components/ folder we stand in or below (so running inside
    components/ or inside a pack does not nest a second components/), else components/ here."""
    for folder in (here, *here.parents):
        if folder.name == "components":
            return folder
        if (folder / "components").is_dir():
            return folder / "components"
    return here / "components"


# The pack's files are pnpkit's own (assets/scaffold/), rendered with Jinja. Their delimiters
# are {@ ... @}, so the templates/ they hold keep their own {{ ... }} and {% ... %} untouched;
# templates/NAME/ becomes templates/<the pack's name>/ beside components/, where the README
# and every kit keep a pack's templates (a pack's own templates/ folder works too).
SCAFFOLD = "assets/scaffold"
PACK_FOLDER = "templates/NAME/"


def templates_folder(root: Path) -> Path:
    """Where the pack at root gets its templates: templates/<name>/ beside components/."""
    return root.parent.parent / "templates" / root.name


def create(root: Path) -> list[Path]:
    """Write the pack into root and its templates into templates_folder(root) (neither may exist
    yet), the schemas into root/../../schema."""
    name = root.name
    schema_dir = root.parent.parent / "schema"
    json_schema.write(schema_dir)
    w, h = dice.die_net_size(SIDE, TAB)
    values = {
        "name": name,
        "title": name.replace("-", " ").title(),
        "die_size": f"{w:g}x{h:g}mm",
        "side": SIDE,
        "tab": TAB,
    }
    env = _environment()
    written = []
    root.mkdir(parents=True)
    for rel in env.list_templates():
        text = env.get_template(rel).render(values)
        if rel.startswith(PACK_FOLDER):
            path = templates_folder(root) / rel.removeprefix(PACK_FOLDER)
        else:
            path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".yaml":
            text = json_schema.modeline(path, schema_dir) + "\n" + text
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def _environment() -> jinja2.Environment:
    """The scaffold's files as templates: YAML, CSV and Jinja text, so nothing is HTML-escaped."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("pnpkit", SCAFFOLD),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        variable_start_string="{@",
        variable_end_string="@}",
        block_start_string="{@%",
        block_end_string="%@}",
        comment_start_string="{@#",
        comment_end_string="#@}",
    )
