"""The checked game pack: plain frozen data, no I/O.

Everything here has passed the schema, so later stages trust it: lengths are
millimetres, counts are whole numbers, text is a {language: string} mapping.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict

from pnpkit.errors import Location

# Declared with the format; re-exported, as the rest of pnpkit reads them from here.
from pnpkit.pack.packformat import BACK_MODES as BACK_MODES
from pnpkit.pack.packformat import KINDS as KINDS
from pnpkit.pack.packformat import ORIENTATIONS as ORIENTATIONS

if TYPE_CHECKING:  # the loader's types, for annotations only
    from pnpkit.pack.yamldoc import Document, Path_

Shape = tuple[str, float]  # ("rect" | "rounded" | "circle" | "hex", radius mm or 0)

SIDES = ("front", "back")
DUPLEX_MODES = ("long-edge", "short-edge")  # printed on both sides of the sheet
PROVENANCE = ("seed", "public", "inferred", "design")


@dataclass(frozen=True)
class PrintSettings:
    """How faces go onto paper: the `print:` settings (packformat.PRINT declares each key,
    its default and its bounds; a test checks that these fields follow it)."""

    paper: str = "a4"
    orientation: str = "auto"  # auto | portrait | landscape
    margin: float = 5.0
    bleed: float = 3.0
    safe: float = 3.0
    gap: float = 0.0
    shape_gap: float = 2.0  # mm between round pieces' cut lines: room for scissors or a punch
    backs: str = "long-edge"
    back_offset: tuple[float, float] = (0.0, 0.0)
    min_font_pt: float = 6.0
    crop_marks: bool = True
    back_marks: bool = (
        True  # crop marks on back pages too; off keeps a duplex drift from showing them
    )
    overlap: float = 12.0  # mm shared by neighbouring sheets of a face split over pages
    stamp: bool = False  # the pack's version and the build date in small print on every face
    variants: tuple[str, ...] | None = (
        None  # the groups' variants that print; None: every group prints
    )
    # Not a pack setting: only `--max-faces` raises it, so a stranger's pack cannot. 20,000 is
    # ten times a large card game (about 2,000 cards) and 80 times our largest kit (240).
    max_faces: int = 20_000
    # Not a pack setting either: `--no-guide` leaves the kit guide (guide.py) out of the PDFs.
    guide: bool = True

    def prints(self, variant: str) -> bool:
        """Whether faces of this variant ("" for none) are imposed: no variant, or a chosen one."""
        return not variant or self.variants is None or variant in self.variants

    @property
    def duplex(self) -> bool:
        """Printed on both sides: every front page then needs its back page, even a blank one,
        or the next front would land on the back of this sheet."""
        return self.backs in DUPLEX_MODES


class PrintOverrides(TypedDict, total=False):
    """PrintSettings fields the user sets on the command line (options.print_overrides)."""

    paper: str
    backs: str
    back_offset: tuple[float, float]
    max_faces: int
    variants: tuple[str, ...]
    guide: bool


@dataclass(frozen=True)
class FieldSpec:
    """A field that a group's items carry, as declared in the group."""

    name: str
    type: str  # text | string | int | number | bool | enum | list
    required: bool = True
    default: object = None
    values: tuple[Any, ...] = ()  # enum values
    min: float | None = None
    max: float | None = None
    item: FieldSpec | None = None  # list element spec
    rule: str = "schema"  # the rule id a bad value is reported under
    doc: str = ""


@dataclass(frozen=True)
class Item:
    """One distinct component design; printed `count` times."""

    id: str
    group: str
    count: int
    fields: dict[str, Any]  # field name -> value, as checked
    tags: tuple[str, ...]
    provenance: dict[str, str]  # field name (or "count", "*") -> provenance tag
    templates: dict[str, str]  # side -> template name
    where: Location
    field_where: dict[str, Location]  # field name -> Location
    template_where: dict[
        str, Location
    ]  # side -> Location of the template's name (item's own, else the group's)
    provenance_where: dict[str, Location] = field(
        default_factory=dict
    )  # provenance key -> where that note is written


@dataclass(frozen=True)
class TuckSpec:
    """`tuckbox:` on a deck: a box net sized from the cards (tuckbox.py)."""

    thickness: float = 0.3  # mm per card
    clearance: float = 1.0  # mm added to the deck's width, height and depth


@dataclass(frozen=True)
class GuideSpec:
    """`guide:` in game.yaml: what the kit guide (guide.py) cannot work out from the pack."""

    given: bool = False  # game.yaml has `guide:`: the kit's PDFs open with a guide
    cover: tuple[str, str] | None = None  # (group, item) whose front is the cover picture
    names: dict[str, dict[str, str]] = field(default_factory=dict)  # group -> lang -> name
    supplies: tuple[dict[str, str], ...] = ()  # what the player fetches, each per language
    steps: tuple[dict[str, str], ...] = ()  # the pack's own assembly steps, each per language


@dataclass(frozen=True)
class Group:
    """Items of one kind that share a size, templates and declared fields."""

    name: str
    kind: str
    size: tuple[float, float]
    bleed: float
    templates: dict[str, str]  # side -> template name (back may be absent)
    fields: dict[str, FieldSpec]  # name -> FieldSpec
    items: tuple[Item, ...]
    where: Location
    doc: str = ""
    variant: str = ""  # one of several ways to make the same components; print.variants chooses
    shape: Shape = (
        "rect",
        0.0,
    )  # ("rect", 0) | ("rounded", radius mm) | ("circle", 0) | ("hex", 0): cut guide and clip
    base: float = 0.0  # a fold-over standee's base tab depth, mm (0: not declared)
    labels: str = ""  # a label sheet (labels.py) the group prints on, cell by cell
    tuckbox: TuckSpec | None = None  # a tuck box net for this deck (tuckbox.py)

    @property
    def total(self) -> int:
        return sum(item.count for item in self.items)


@dataclass(frozen=True)
class Check:
    """One configured game rule: which rule, its id for messages, its options."""

    rule: str
    id: str
    level: str
    options: dict[str, Any]
    where: Location
    doc: Document  # so rules can locate their options
    path: Path_  # where the check's mapping sits in doc


@dataclass(frozen=True)
class Pack:
    """A whole game pack, checked."""

    root: Path
    id: str
    name: dict[str, str]  # language -> title
    languages: tuple[str, ...]
    players: tuple[int, int]
    print: PrintSettings
    groups: dict[str, Group]  # name -> Group, in file order
    strings: dict[str, dict[str, str]]  # key -> {language: text}
    data: dict[str, Any]  # free-form game data for rules and templates
    checks: tuple[Check, ...]
    where: Location
    manifest: Document | None = (
        None  # game.yaml as the loader read it: manifest.at(path) locates any of its values
    )
    rules_file: Path | None = None
    version: str = ""  # the designer's version of the pack, for print.stamp
    fonts: dict[str, dict[tuple[bool, bool], tuple[str, str]]] = field(
        default_factory=dict
    )  # family -> {(bold, italic): (path, sha)} (packfonts.py)
    player_colours: tuple[str, str | None] | None = (
        None  # players.colours: data key, field (cvd.py)
    )
    guide: GuideSpec = field(default_factory=GuideSpec)  # game.yaml's guide: (guide.py)

    def provenance(self) -> list[tuple[Location, str, str]]:
        """Each distinct note of where values come from: (place, what, tag), file order. A note that
        many items share (a group's defaults, a generator, a sheet's one cell) is one line."""
        notes: dict[tuple[Location, str, str, str], list[Item]] = {}
        for item in self.items():
            for name, tag in item.provenance.items():
                written = item.provenance_where.get(name, item.where)
                notes.setdefault((written, item.group, name, tag), []).append(item)
        out = []
        for (written, group, name, tag), items in notes.items():
            values = "all values" if name == "*" else f"'{name}'"
            if len(items) == 1:
                item = items[0]
                where = item.where if name == "*" else item.field_where.get(name, item.where)
                out.append((where, f"{item.id}, {values}", tag))
            else:
                ids = (
                    f"{items[0].id} ... {items[-1].id}"
                    if len(items) > 2
                    else f"{items[0].id}, {items[1].id}"
                )
                out.append((written, f"{len(items)} items of '{group}' ({ids}), {values}", tag))
        return out

    def items(self, group: str | None = None, tag: str | None = None) -> list[Item]:
        """Items of one group, or with one tag, or all, in file order."""
        out = []
        for g in self.groups.values():
            if group is not None and g.name != group:
                continue
            out += [i for i in g.items if tag is None or tag in i.tags]
        return out


@dataclass
class Face:
    """One rendered side of one item: SVG text plus what layout needs."""

    group: str
    item: str
    side: str
    count: int
    size: tuple[float, float]  # trim, mm
    bleed: float
    kind: str
    svg: str
    where: Location
    drawing: object = None  # svg.drawing.Drawing once compiled
    template: str = ""  # the template (or Python face) that drew it: where its problems point
    broken: bool = False  # drawing it failed (its problems are reported): nothing more is checked
    shape: Shape = ("rect", 0.0)  # the group's shape: cut guide and clip on the sheet
    variant: str = ""  # the group's variant: imposed only when print.variants chooses it
    labels: str = ""  # the label sheet the group prints on (labels.py), if any

    # Whether svg_key is the name of the face's PDF form (a digest of its SVG) rather than the
    # text: a large build's faces (cache.KeptFace), whose text waits in a file
    svg_key_is_name: ClassVar[bool] = False

    @property
    def svg_key(self) -> str:
        """What tells this face's SVG from another's in a build's tables: the text itself (a
        look-up costs nothing, Python keeping a string's hash); see svg_key_is_name."""
        return self.svg

    @property
    def full_size(self) -> tuple[float, float]:
        """Size including bleed on every side."""
        return self.size[0] + 2 * self.bleed, self.size[1] + 2 * self.bleed
