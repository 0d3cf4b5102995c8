"""`pnpkit new NAME`: a small pack that validates and builds as created, and teaches the format.

It holds one of each common thing: a deck of cards with a shared back, a tile,
a die (a foldable net) and a sheet of running text, with their templates in
the pack's own templates/ folder, a game rule, and comments on every line that
is not obvious. The JSON Schemas are written beside components/ (schema/) so
that the files' first lines point at something real and an editor completes
keys from the first keystroke.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from pnpkit import dice, json_schema
from pnpkit.paths import display_path

NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
SIDE, TAB = 16, 5  # the die's squares and glue tabs, mm


def configure(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    n = sub.add_parser("new", help="create a small game pack to start from",
                       description="Create DIR/NAME/: a deck of cards with backs, a tile, a die and a sheet, with "
                                   "templates and comments that explain the format. It validates and builds as "
                                   "created. Also writes the JSON Schemas editors use into schema/ beside DIR. "
                                   "DIR defaults to the project's components/ folder: the one you stand in or "
                                   "below, else components/ here.")
    n.add_argument("name", metavar="NAME", help="the pack's id: lowercase letters, digits and dashes, e.g. my-game")
    n.add_argument("--dir", type=Path, help="where packs live (default: the project's components/ folder)")
    n.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not NAME.match(args.name):
        print(f"pnpkit: error: a pack name is lowercase letters, digits and dashes, such as my-game (got '{args.name}')", file=sys.stderr)
        return 2
    root = (args.dir or packs_folder(Path.cwd())) / args.name
    shown = display_path(root)
    if root.exists():
        print(f"pnpkit: error: {shown} already exists; choose another name or remove it", file=sys.stderr)
        return 2
    try:
        create(root)
    except OSError as exc:
        print(f"pnpkit: error: {exc}", file=sys.stderr)
        return 2
    print(f"created {shown}: game.yaml, cards.yaml, tiles.yaml (with tiles.csv), dice.yaml, sheets.yaml and templates/{args.name}/", file=sys.stderr)
    print(f"next: pnpkit watch {shown} --serve   (rebuilds on every save; the open preview refreshes itself)", file=sys.stderr)
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


def create(root: Path) -> list[Path]:
    """Write the pack into root (which must not exist yet) and the schemas into root/../../schema."""
    name = root.name
    schema_dir = root.parent.parent / "schema"
    json_schema.write(schema_dir)
    w, h = dice.die_net_size(SIDE, TAB)
    values = {"@NAME@": name, "@TITLE@": name.replace("-", " ").title(), "@DIE_SIZE@": f"{w:g}x{h:g}mm",
              "@SIDE@": str(SIDE), "@TAB@": str(TAB)}
    written = []
    root.mkdir(parents=True)
    for rel, text in FILES.items():
        for key, value in values.items():
            text = text.replace(key, value)
            rel = rel.replace(key, value)
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".yaml":
            text = json_schema.modeline(path, schema_dir) + "\n" + text
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


FILES = {
    "game.yaml": """\
# @TITLE@: the manifest of a pnpkit game pack. Every other *.yaml file here holds components.
#   pnpkit watch components/@NAME@ --serve   rebuilds on every save and shows every face
#   pnpkit validate components/@NAME@        lists every problem as file:line:column
id: @NAME@                       # names the output folder build/@NAME@/ (default: the folder's name)
name: {en: "@TITLE@"}            # text is one string for every language, or {lang: text} for each
languages: [en]                  # e.g. [en, pl]: then every text needs both; the first is the default
players: {min: 2, max: 4}        # an item's per_player count prints for max

print:                           # how faces go onto paper; every key is optional
  paper: a4                      # a4 | letter | a3 (pnpkit build --paper overrides it)
  bleed: 3mm                     # art beyond the cut line; lengths need a unit: mm, cm, in or pt
  safe: 3mm                      # keep text this far inside the cut line (templates: face.safe)
  backs: long-edge               # long-edge | short-edge | gutter-fold | none
  min_font_size: 6pt             # text_box() refuses smaller text

strings:                         # labels the templates print, as s.cost
  cost: {en: "cost"}
  rules: {en: "How to play"}

# fonts: {Body: fonts/Body.ttf}   # your own TrueType fonts, by family, from files in this pack:
#                                  text_box(..., family='Body'); {regular:, bold:, italic:, bold_italic:}

data:                            # free-form values for templates (data.colours) and rules
  colours: {red: "#b23a48", blue: "#3b6e8f", green: "#4f7d3a"}

checks:                          # the game's rules; each problem is reported under the check's id
  - {rule: count, id: NEW-C01, group: cards, exact: 6, why: the deck has six cards}
  - {rule: count, id: NEW-C04, group: cards, by: colour, exact: {red: 1}, others: ignore, why: one red card; the other colours are free}
  - {rule: die-faces, id: NEW-C02, group: dice, field: faces, faces: 6, why: a die has six faces}
  - {rule: die-opposites, id: NEW-C03, group: dice, why: each face has one opposite}
""",
    "cards.yaml": """\
# Each top-level key of a component file is a group: items of one kind that share a size,
# templates and declared fields.
cards:
  kind: card                     # card | tile | hex | token | standee | sheet | board | die
  size: poker                    # a name (poker, bridge, tarot, mini, ...) or WxH with a unit: 63x88mm
  front: @NAME@/card-front.svg.j2  # found in this pack's templates/ first, then the shared templates/
  back: @NAME@/card-back.svg.j2    # the same back for every card; an item may name its own
  doc: the action cards
  fields:                        # what each item carries; any other key in an item is an error
    title: text                  # shorthand for {type: text}: text in each language
    cost: {type: int, min: 0, max: 9, doc: what playing the card costs}
    text: text
    colour: {type: enum, values: [red, blue, green], default: blue}   # a default makes it optional
  items:
    - {id: scout, title: Scout, cost: 1, colour: green, text: "Look at the top three cards of the deck and put them back in any order."}
    - id: trader
      count: 2                   # printed twice; `per_player: 1` would print one per player
      title: Trader
      cost: 2
      text: "Swap one of your cards with one of another player's. Both of you draw a card."
    - id: builder
      title: Builder
      cost: 3
      colour: red
      text: "Place a tile next to one of yours."
      provenance: design         # where the numbers come from: seed | public | inferred | design
    - {id: guard, count: 2, title: Guard, cost: 0, text: "Play when another player targets you: nothing happens."}
""",
    "tiles.yaml": """\
# A tile with a front only: no `back`, so nothing prints behind it. Its items come from two
# places: a sheet, tiles.csv (edit it in any spreadsheet; its header row names the columns),
# and a generator, which makes one item for every combination of its value lists.
tiles:
  kind: tile
  size: 50x50mm
  bleed: 2mm                     # a group may set its own bleed
  front: @NAME@/tile.svg.j2
  fields:
    label: text                  # in a sheet: a column `label`, or one per language: label.en, label.pl
    points: {type: int, min: 0}
  defaults: {provenance: design} # every item of the group has these, unless it gives its own
  generate:                      # road-1 and road-2; two lists would make every pair (suit x rank)
    product: {points: [1, 2]}
    id: "road-{points}"
    label: Road                  # any other key is given to every generated item
  items: tiles.csv               # or tiles.tsv, tiles.xlsx, tiles.ods, {from: tiles.xlsx, sheet: Tiles}
""",
    "tiles.csv": """\
id,label,points
start,Start,2
""",
    "dice.yaml": """\
# A die printed as a net to cut out, fold and glue. die_net() in the template places the faces
# so that each pair in `opposite` ends up on opposite sides of the cube.
dice:
  kind: die
  size: @DIE_SIZE@                  # die_net_size(@SIDE@, @TAB@): @SIDE@ mm squares and @TAB@ mm glue tabs
  bleed: 0mm                     # a net is cut along its own printed outline
  front: @NAME@/die.svg.j2
  fields:
    faces: {type: list, item: int}
    opposite: {type: list, item: {type: list, item: int}, doc: the three pairs of opposite faces}
  items:
    - {id: d6, faces: [1, 2, 3, 4, 5, 6], opposite: [[1, 6], [2, 5], [3, 4]]}
""",
    "sheets.yaml": """\
# A sheet: a page of running text, such as a rules summary or a player aid.
sheets:
  kind: sheet
  size: a5                       # 148 x 210 mm
  bleed: 0mm
  front: @NAME@/sheet.svg.j2
  fields:
    paragraphs: {type: list, item: text}
  items:
    - id: rules
      paragraphs:
        - "Shuffle the cards and deal three to each player. Put the start tile in the middle of the table."
        - "On your turn, play a card and pay its **cost**, or roll the die and take that many :points:."
        - "The first player to reach 20 points wins."

# Stickers printed on a sheet of labels (labels: a4-3x7 is 21 labels of 63.5 x 38.1 mm on A4;
# also letter-3x10 and a4-round-40). No crop marks: the sheet is cut already. The first page
# of a label sheet is a test print: lay it on a label sheet against the light.
box-labels:
  kind: sheet
  size: 63.5x38.1mm
  bleed: 0mm
  labels: a4-3x7
  shape: rounded(3mm)            # the corners of the labels, drawn as a guide
  front: @NAME@/box-label.svg.j2
  items:
    - {id: box-label, count: 3}
""",
    "templates/@NAME@/box-label.svg.j2": """\
{#- A label for the game's box: the sheet of labels decides where each one prints. -#}
{% extends "_face.svg.j2" %}
{% block content %}
<rect x="0" y="0" width="{{ face.w }}" height="{{ face.h }}" rx="3" fill="#2d3142"/>
{{ text_box(pack.name, face.safe + 1, face.safe, face.w - 2 * face.safe - 2, face.h - 2 * face.safe, size=14, bold=true, anchor='middle', valign='middle', fill='#e0c872') }}
{% endblock %}
""",
    "templates/@NAME@/card-front.svg.j2": """\
{#- A card's front. Units are millimetres; (0, 0) is the top-left corner of the cut line and the
    bleed lies outside 0..face.w x 0..face.h. `item` holds the card's fields, `s` the strings,
    `data` the pack's data. Write text with text_box(): it wraps, measures and shrinks to fit. -#}
{% extends "_face.svg.j2" %}
{% block content %}
{% set colour = data.colours[item.colour] %}
<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" width="{{ face.w + 2 * face.bleed }}" height="{{ face.h + 2 * face.bleed }}" fill="{{ colour }}"/>
<rect x="{{ face.safe }}" y="{{ face.safe }}" width="{{ face.w - 2 * face.safe }}" height="{{ face.h - 2 * face.safe }}" rx="3" fill="#fbf7ec"/>
{{ text_box(item.title, face.safe + 12, face.safe + 2, face.w - 2 * face.safe - 14, 9, size=12, bold=true, valign='middle') }}
<circle cx="{{ face.safe + 6 }}" cy="{{ face.safe + 6.5 }}" r="4.5" fill="{{ colour }}"/>
{{ text_box(item.cost, face.safe + 2, face.safe + 3, 8, 7, size=11, bold=true, anchor='middle', valign='middle', fill='#ffffff') }}
{{ text_box(item.text, face.safe + 4, 40, face.w - 2 * face.safe - 8, 36, size=9) }}
{{ text_box(s.cost ~ ' ' ~ item.cost ~ ' · ' ~ item.id, face.safe + 4, face.h - face.safe - 7, face.w - 2 * face.safe - 8, 5, size=6, fill='#666666') }}
{% endblock %}
""",
    "templates/@NAME@/card-back.svg.j2": """\
{#- The back every card shares: drawn once into the PDF however many cards use it. -#}
{% extends "_face.svg.j2" %}
{% block content %}
<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" width="{{ face.w + 2 * face.bleed }}" height="{{ face.h + 2 * face.bleed }}" fill="#2d3142"/>
<rect x="{{ face.safe + 2 }}" y="{{ face.safe + 2 }}" width="{{ face.w - 2 * face.safe - 4 }}" height="{{ face.h - 2 * face.safe - 4 }}" rx="4" fill="none" stroke="#e0c872" stroke-width="1"/>
{{ text_box(pack.name, face.safe + 4, face.h / 2 - 8, face.w - 2 * face.safe - 8, 16, size=14, bold=true, anchor='middle', valign='middle', fill='#e0c872') }}
{% endblock %}
""",
    "templates/@NAME@/tile.svg.j2": """\
{#- A square tile; face.bleed is this group's own bleed (2 mm). -#}
{% extends "_face.svg.j2" %}
{% block content %}
<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" width="{{ face.w + 2 * face.bleed }}" height="{{ face.h + 2 * face.bleed }}" fill="#d8c99b"/>
<circle cx="{{ face.w / 2 }}" cy="{{ face.h / 2 }}" r="{{ face.w / 2 - face.safe }}" fill="#f4ecd6" stroke="#5b4a2f" stroke-width="0.6"/>
{{ text_box(item.label, face.safe + 4, face.h / 2 - 9, face.w - 2 * face.safe - 8, 10, size=12, bold=true, anchor='middle', valign='middle') }}
{{ text_box(item.points ~ ' ★', face.safe + 4, face.h / 2 + 2, face.w - 2 * face.safe - 8, 8, size=10, anchor='middle', valign='middle') }}
{% endblock %}
""",
    "templates/@NAME@/die.svg.j2": """\
{#- A foldable die: die_net() works out where each face goes, the fold lines and the glue tabs.
    Cut the solid outline, crease the dashed lines, glue each grey tab under the edge it meets. -#}
{% extends "_face.svg.j2" %}
{% block content %}
{% set net = die_net(face, item.faces, item.opposite, @SIDE@, @TAB@) %}
{% for i in range(net.tabs | length) %}
<polygon points="{{ net.tab_points(i) }}" fill="#c8ccd2"/>
{% endfor %}
{% set pips = {1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]], 4: [[1, 1], [3, 1], [1, 3], [3, 3]],
               5: [[1, 1], [3, 1], [2, 2], [1, 3], [3, 3]], 6: [[1, 1], [3, 1], [1, 2], [3, 2], [1, 3], [3, 3]]} %}
{% for f in net.faces %}
<rect x="{{ '%.3f' % f.x }}" y="{{ '%.3f' % f.y }}" width="{{ f.size }}" height="{{ f.size }}" fill="#fdf6e3"/>
{% for (col, row) in pips[f.value] %}
<circle cx="{{ '%.3f' % (f.x + col * f.size / 4) }}" cy="{{ '%.3f' % (f.y + row * f.size / 4) }}" r="{{ f.size / 11 }}" fill="#222222"/>
{% endfor %}
{% endfor %}
<path d="{{ net.fold_path }}" fill="none" stroke="#5c677d" stroke-width="0.3" stroke-dasharray="1.2 0.9"/>
<path d="{{ net.cut_path }}" fill="none" stroke="#111111" stroke-width="0.3"/>
{% endblock %}
""",
    "templates/@NAME@/sheet.svg.j2": """\
{#- A sheet of running text: one text_box per paragraph, each below the last. Text may hold
    **bold**, *italic* and :icons: (the pack's icons/*.svg, or pnpkit's: wood, gold, points, ...);
    text_box() returns the room it took (t.bottom, t.height), so boxes stack without fixed slots. -#}
{% extends "_face.svg.j2" %}
{% block content %}
<rect x="0" y="0" width="{{ face.w }}" height="{{ face.h }}" fill="#ffffff" stroke="#999999" stroke-width="0.3"/>
{{ text_box(s.rules, 12, 12, face.w - 24, 12, size=16, bold=true) }}
{% set ns = namespace(y=30) %}
{% for paragraph in item.paragraphs %}
{% set t = text_box(paragraph, 12, ns.y, face.w - 24, 40, size=10) %}{{ t }}
{% set ns.y = t.bottom + 4 %}
{% endfor %}
{% endblock %}
""",
}
