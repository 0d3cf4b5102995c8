"""The pack format, declared once: each key of game.yaml, of its `print:` settings and of a
group, with its type, default, bounds and what it means.

The validator (schema.py) reads `print:` from PRINT and takes its key lists from GAME and
GROUP; the JSON Schemas (json_schema.py) and the README's reference tables (`readme()`,
between `<!-- format:NAME -->` markers, kept current by a test) are generated from the
same tables. Adding a print setting is one line here plus its field in model.PrintSettings
(a test fails when the two disagree).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from pnpkit.units import PAPERS, SIZES

KINDS = ("card", "tile", "hex", "token", "standee", "sheet", "board", "die")
BACK_MODES = ("long-edge", "short-edge", "gutter-fold", "none")
ORIENTATIONS = ("auto", "portrait", "landscape")

# Print lengths are checked against the narrowest paper (A4's 210mm), as --paper may choose any.
NARROWEST = min(min(SIZES[paper]) for paper in PAPERS)
MAX_BLEED = 25.0  # mm; print services ask for 3mm to 1/4in, and a larger one is a slip of the unit
MAX_SAFE = (
    50.0  # mm; templates draw with it, so it is bounded like every length that reaches the PDF
)
MAX_BACK_OFFSET = 20.0  # mm either way; a duplex printer misregisters by a few


@dataclass(frozen=True)
class Key:
    """One key of the format. `type` says how it is read: choice (one of `choices`), length
    (a length with its unit, never negative, at most `max` mm), bool, offset ({x, y} lengths,
    each at most `max` mm either way), font size (a length, kept in points as `attr`),
    names (a list of variant names), or doc-only for keys schema.py reads itself."""

    name: str
    type: str
    default: object  # as a pack would write it; None: nothing (the key's absence means something)
    doc: str
    choices: tuple[str, ...] = ()
    max: float | None = None  # mm
    why: str = ""  # follows "must be at most Xmm" in the message for a value over max
    attr: str = ""  # the model's attribute, when it is not the key's name

    @property
    def field(self) -> str:
        return self.attr or self.name


PRINT = (
    Key("paper", "choice", "a4", "Paper size.", choices=PAPERS),
    Key(
        "orientation",
        "choice",
        "auto",
        "auto picks the orientation that fits more faces.",
        choices=ORIENTATIONS,
    ),
    Key(
        "margin",
        "length",
        "5mm",
        "Unprintable margin of the paper: never inked (most printers cannot).",
        max=NARROWEST / 4,
        why=", a quarter of A4's width, to leave half the sheet to print on",
    ),
    Key(
        "bleed",
        "length",
        "3mm",
        "Art beyond the trim line on every side of a face (a group may set its own).",
        max=MAX_BLEED,
        why="; print services ask for 3mm to 1/4in",
    ),
    Key(
        "safe",
        "length",
        "3mm",
        "Safe zone inside the trim; templates get it as face.safe.",
        max=MAX_SAFE,
        why="; a safe zone is a few millimetres",
    ),
    Key(
        "gap",
        "length",
        "0mm",
        "Space between faces: 0 = shared cut lines; more = gutters "
        "(less than half the printable width of A4).",
    ),
    Key(
        "shape_gap",
        "length",
        "2mm",
        "Space between round pieces' cut lines (at least `gap`): room for scissors or a punch.",
        max=20.0,
        why="; a punch needs a few millimetres",
    ),
    Key(
        "backs",
        "choice",
        "long-edge",
        "Duplex long-edge or short-edge flip, gutter-fold, or no backs.",
        choices=BACK_MODES,
    ),
    Key(
        "back_offset",
        "offset",
        "{x: 0mm, y: 0mm}",
        "Shift of every back page, to correct a printer's "
        "duplex misregistration: the number read off "
        "the print check's back. Positive x moves every back right and positive y moves it down, "
        "as the back page is seen printed side up.",
        max=MAX_BACK_OFFSET,
        why=" either way; a duplex printer misregisters by a few",
    ),
    Key(
        "min_font_size",
        "font size",
        "6pt",
        "text_box() refuses smaller text, e.g. 6pt.",
        attr="min_font_pt",
    ),
    Key("crop_marks", "bool", True, "Crop marks on every trim line."),
    Key(
        "back_marks",
        "bool",
        True,
        "Crop marks on back pages too; off when a duplex drift would show them on the backs.",
    ),
    Key(
        "overlap",
        "length",
        "12mm",
        "Shared strip of a face split over several sheets "
        "(at most half the printable width of A4).",
    ),
    Key(
        "stamp",
        "bool",
        False,
        "Print the pack's id, version and the build date small on every face, in the band "
        "between trim and safe area, to tell printings apart.",
    ),
    Key(
        "variants",
        "names",
        None,
        "Which variants print (groups marked variant: NAME); default: every group. "
        "--variant overrides.",
    ),
)

GAME = (
    Key("id", "name", None, "The pack's id (default: the folder name); names build/<id>/."),
    Key("name", "text", None, "The game's title, per language (required)."),
    Key(
        "version",
        "string",
        None,
        "The designer's version of the pack, e.g. 0.3; print.stamp prints it on every face.",
    ),
    Key(
        "languages",
        "list",
        None,
        "Language codes, e.g. [pl, en] (required); every text needs each one; "
        "the first is the default.",
    ),
    Key(
        "players",
        "mapping",
        None,
        "Player counts {min, max} (required; colours: "
        "where the player colours are, checked for colour-blind "
        "players); per_player counts print for max.",
    ),
    Key(
        "print",
        "mapping",
        None,
        "How faces go onto paper: paper, margins, bleed, backs, marks (each setting is optional).",
    ),
    Key("strings", "mapping", None, "Labels the templates print (as s.NAME), per language."),
    Key("data", "mapping", None, "Free-form game data for templates (data.KEY) and rules."),
    Key("checks", "list", None, "The game's rules, each under the game's own id."),
    Key(
        "rules", "string", None, "The pack's Python rules file (default: rules.py if there is one)."
    ),
    Key(
        "fonts",
        "mapping",
        None,
        "The pack's own fonts by family (TrueType, OpenType, WOFF, WOFF2): a file, "
        "{file, instance} for a variable font, or {regular, bold, italic, bold_italic} of those; "
        "fallback: the families that draw a character a face lacks, in order (docs/fonts.md).",
    ),
    Key(
        "guide",
        "mapping",
        None,
        "Open each PDF with a kit guide (docs/kit-guide.md); optional: cover (GROUP/ITEM), "
        "names of groups, supplies and steps, each text per language.",
    ),
)

GROUP = (
    Key("kind", "choice", None, "What the items are (required).", choices=KINDS),
    Key(
        "size",
        "size",
        None,
        "Trim size (required): a name or WxH with a unit, e.g. 63x88mm, 2.5x3.5in.",
    ),
    Key("bleed", "length", None, "This group's bleed (default: print.bleed)."),
    Key(
        "shape",
        "string",
        "rect",
        "rect, rounded(3mm), circle or hex: the cut guide printed and the bleed's clip.",
    ),
    Key(
        "variant",
        "name",
        None,
        "One of several ways to make the same components; print.variants chooses which print.",
    ),
    Key("labels", "choice", None, "Print on this label sheet, one face per label, no crop marks."),
    Key(
        "front",
        "template",
        None,
        "Template of the front of each item, or a Python "
        "function of the pack (board.py:draw; trusted packs only).",
    ),
    Key(
        "back",
        "template",
        None,
        "Template (or Python function) of the back (optional; an item may override it).",
    ),
    Key(
        "fields", "mapping", None, "What each item carries: name: type, or name: {type: ..., ...}."
    ),
    Key(
        "defaults",
        "mapping",
        None,
        "Values every item of the group has unless it gives its own: fields, tags, "
        "provenance, count, ...",
    ),
    Key(
        "items",
        "list",
        None,
        "The distinct designs of this group: a list, or a sheet beside this file (cards.csv, "
        "cards.tsv, cards.xlsx, cards.ods; {from: cards.xlsx, "
        "sheet: Deck}) whose header row names the columns.",
    ),
    Key(
        "generate",
        "mapping",
        None,
        "Items made as the product of value lists, e.g. {product: {suit: [...], rank: "
        "[...]}, id: '{suit}-{rank}'}; 'items' then holds only the extras.",
    ),
    Key(
        "items_from",
        "string",
        None,
        "Take the items and fields of another group, with this group's kind, size and templates.",
    ),
    Key(
        "standee",
        "mapping",
        None,
        "A fold-over standee: base tab, upside-down back panel, fold, upright front "
        "panel, base tab. Templates get the tab as "
        "face.base; exports cut the figure out of the layout.",
    ),
    Key(
        "tuckbox",
        "mapping",
        None,
        "A deck's tuck box net, sized from the cards: true, or {thickness: 0.3mm (a card), "
        "clearance: 1mm} (docs/kit-guide.md).",
    ),
    Key(
        "fit",
        "choice",
        "exact",
        "shrink: a sheet too large for the paper prints whole, scaled down (the scale printed "
        "on it), not split; sheets only (docs/printing.md).",
        choices=("exact", "shrink"),
    ),
    Key("doc", "string", None, "What the group is, for people reading the pack."),
)

TABLES = MappingProxyType({"game": GAME, "print": PRINT, "group": GROUP})


def names(table: tuple[Key, ...]) -> tuple[str, ...]:
    return tuple(key.name for key in table)


def over_max(key: Key, name: str, given: object) -> str:
    """The message for a value above key.max (name: the key as written, e.g. 'x' of back_offset)."""
    return f"'{name}' must be at most {key.max:g}mm{key.why} (got {given})"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _default(key: Key) -> str:
    if key.default is None:
        return ""
    if isinstance(key.default, bool):
        return f"`{str(key.default).lower()}`"
    return f"`{key.default}`"


def _type(key: Key) -> str:
    if key.type == "choice" and key.choices:
        return " \\| ".join(f"`{c}`" for c in key.choices)
    words = {"names": "list of names", "offset": "{x, y} lengths"}.get(key.type, key.type)
    if key.max is not None:
        words += f", at most {key.max:g}mm" + (" either way" if key.type == "offset" else "")
    return words


def readme(name: str) -> str:
    """The README's reference table of one part of the format (game, print or group)."""
    table = TABLES[name]
    with_defaults = any(k.default is not None for k in table)
    head = (
        "| key | type | default | meaning |\n| --- | --- | --- | --- |\n"
        if with_defaults
        else "| key | type | meaning |\n| --- | --- | --- |\n"
    )
    rows = []
    for key in table:
        cells = (
            [f"`{key.name}`", _type(key)] + ([_default(key)] if with_defaults else []) + [key.doc]
        )
        rows.append("| " + " | ".join(_cell(c) if i > 1 else c for i, c in enumerate(cells)) + " |")
    return head + "\n".join(rows) + "\n"


MARK = "<!-- format:{} -->"
END = "<!-- /format:{} -->"


def readme_text(text: str) -> str:
    """The README with every generated section between its markers replaced by readme(name)."""
    for name in TABLES:
        start, end = MARK.format(name), END.format(name)
        if start in text and end in text:
            before, rest = text.split(start, 1)
            _, after = rest.split(end, 1)
            text = f"{before}{start}\n{readme(name)}{end}{after}"
    return text


def main(argv: list[str]) -> int:
    """`python -m pnpkit.pack.packformat README.md`: rewrite the generated tables in place."""
    from pathlib import Path

    for name in argv:
        path = Path(name)
        path.write_text(readme_text(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
