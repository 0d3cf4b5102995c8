"""Export profiles: what a print-on-demand service or a virtual tabletop wants, as data.

A profile is a YAML file (the shipped ones live in src/pnpkit/profiles/; any
other file can be named by its path) read with the project's YAML loader and
checked with located errors like a game pack. Adding a service means writing a
profile, not code: its output form, bleed, dpi, the products it sells with their
pixel sizes, the page order it expects.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast

from pnpkit.errors import Location, Problem
from pnpkit.pack.checker import Reader, did_you_mean
from pnpkit.pack.loader import load_yaml
from pnpkit.pack.model import KINDS
from pnpkit.pack.yamldoc import Path_
from pnpkit.units import MM_PER

if TYPE_CHECKING:  # pdfx is imported only where a profile asks for PDF/X
    from pnpkit.export.pdfx import Press

PROFILE_DIR = Path(__file__).parent.parent / "profiles"
OUTPUTS = ("sheets", "images", "pages", "tts", "showcase", "low-ink")
TTS_OBJECTS = ("deck", "tile", "hex-tile", "round-tile", "rounded-tile", "figurine", "die", "image")
KINDS_FOR_TTS = KINDS  # every kind says how Tabletop Simulator shows it

PDFX_KEYS = ("pdfx", "icc", "output_condition", "ink_limit", "rich_black")
# The keys each output form understands; any other key is an error with a "did you mean".
KEYS = MappingProxyType(
    {
        "sheets": ("name", "output", "notes"),
        "images": (
            "name",
            "output",
            "dpi",
            "bleed",
            "products",
            "fit",
            "grow",
            "shared_back",
            "notes",
        ),
        "pages": (
            "name",
            "output",
            "bleed",
            "copies",
            "order",
            "shared_back",
            "products",
            "fit",
            "grow",
            "notes",
            *PDFX_KEYS,
        ),
        "tts": ("name", "output", "dpi", "sheet", "image_url", "objects", "tile_width", "notes"),
        "showcase": ("name", "output", "width", "background", "hand", "notes"),
        "low-ink": ("name", "output", "keep", "min_area", "notes"),
    }
)
PRODUCT_KEYS = ("name", "trim", "pixels", "safe", "source", "kind")
# A product for one kind of component only: `die`, a die's face (trim: the die's side; pixels: the
# printed area, no bleed), matched by the squares of a die's net; `hex`, a piece cut as a hexagon,
# for hex groups (kind hex, or shape hex). Every other product is for any other group.
# `punchout` and `cardstock`: TGC's custom sheets (a slug), on which pieces no other product fits
# are laid out with a cut file (punchout.py); pixels: the slug itself, the pieces bring their bleed.
PRODUCT_KINDS = ("die", "hex", "punchout", "cardstock")
# How sure a figure is, the first word of a product's `source`: the service's own page or template,
# a third party quoting it, or our arithmetic from those (print-standards.md's tags).
SOURCE_TAGS = ("primary", "secondary", "inferred")
SHEET_KEYS = ("columns", "rows", "max_pixels")
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
_PIXELS = re.compile(r"^\s*(\d+)\s*x\s*(\d+)\s*$")
_URL = re.compile(r"^https?://[^\s\"'<>\\]+$")  # a save names images by it: nothing to escape
MM_PER_IN = MM_PER["in"]


@dataclass(frozen=True)
class Product:
    """Something a service sells: its trim (mm) and, for image services, its image size in
    pixels."""

    name: str
    trim: tuple[float, float]
    pixels: tuple[int, int] | None = None
    safe: float | None = None  # mm inside the trim that text and key art keep clear of
    source: str = ""  # "primary|secondary|inferred: where the figures come from"
    kind: str = ""  # "die": a die's face, matched by a net's squares; "hex": hex groups; "": others


@dataclass(frozen=True)
class Profile:
    """One export profile, checked."""

    id: str  # the file's name without .yaml; names the output folder
    name: str
    output: str  # sheets | images | pages | tts
    where: Location
    dpi: int = 300
    bleed: float = 0.0  # mm on every side of every face
    copies: str = "once"  # pages: "each" repeats a face for every printed copy
    order: str = "front-back"  # pages: front-back | fronts-then-backs
    shared_back: str = "once"  # a back common to a whole group: once, or after each front
    products: tuple[Product, ...] = ()
    notes: str = ""
    sheet: tuple[int, int, int] = (10, 7, 4096)  # tts: columns, rows, max pixels a side
    image_url: str = ""
    objects: dict[str, str] = field(default_factory=dict)  # tts: kind -> object
    tile_width: float = 50.8  # tts: mm a scale-1 tile stands for
    fit: float = (
        0.0  # mm a product's trim may differ from a group's on each side and still be its product
    )
    grow: float | None = (
        None  # mm a product may be larger a side (within the art's bleed); None: fit
    )
    pdfx: bool = False  # pages: PDF/X-1a:2003 in CMYK, separated for `press`
    press: Press | None = None  # pdfx.Press: ICC profile, output condition, ink limit, rich black
    width: int = 1600  # showcase: pixels across every image
    background: str = "transparent"  # showcase: transparent, or a colour #rrggbb
    hand: int = 7  # showcase: cards in a fanned hand at most
    keep: int = 35  # low-ink: % of the ink large fills keep
    min_area: int = 100  # low-ink: mm^2 from which a fill counts as large

    def product_for(
        self, size: tuple[float, float], tolerance: float = 0.25, kind: str = ""
    ) -> tuple[Product | None, bool]:
        """The product whose trim is this size within `tolerance` mm, and whether it is turned
        90°."""
        for product in self.products:
            if product.kind != kind:
                continue
            pw, ph = product.trim
            if abs(pw - size[0]) <= tolerance and abs(ph - size[1]) <= tolerance:
                return product, False
            if abs(ph - size[0]) <= tolerance and abs(pw - size[1]) <= tolerance:
                return product, True
        return None, False

    def fitting(
        self, size: tuple[float, float], bleed: float, kind: str = ""
    ) -> tuple[Product | None, bool]:
        """The product for a group of this trim and bleed: its own size, else the closest whose
        every side lies at most `fit` mm inside the group's trim or `grow` mm outside it, and then
        inside the art's bleed (the cut must not show blank paper); and whether it is turned 90°.
        A die (kind 'die', size its net's square) takes a die product within `fit`, bleed aside."""
        product, turned = self.product_for(size, kind=kind)
        grow = self.fit if self.grow is None else self.grow
        if kind == "die":
            grow, bleed = self.fit, self.fit  # a die's face is printed on the die: no cut
        if product is not None or max(self.fit, grow) <= 0:
            return product, turned
        found: list[tuple[float, int, bool]] = []
        for i, p in enumerate(self.products):
            for turn in (False, True) if p.kind == kind else ():
                pw, ph = (p.trim[1], p.trim[0]) if turn else p.trim
                dw, dh = (pw - size[0]) / 2, (ph - size[1]) / 2  # how far each side moves
                if -self.fit - 1e-9 <= min(dw, dh) and max(dw, dh) <= min(grow, bleed) + 1e-9:
                    found.append((abs(dw) + abs(dh), i, turn))
        if not found:
            return None, False
        _, i, turn = min(found)
        return self.products[i], turn

    def holding(self, size: tuple[float, float], kind: str = "") -> str:
        """What a warning says of the smallest product a group would fit inside (either way
        round): its name and how much larger it is, or that none is that large."""
        inside = [
            p
            for p in self.products
            if p.kind == kind
            and (min(p.trim) >= min(size) - self.fit and max(p.trim) >= max(size) - self.fit)
        ]
        if not inside:
            return "no product is that large"
        p = min(inside, key=lambda p: p.trim[0] * p.trim[1])
        return (
            f"the smallest that holds it, {p.name} ({_n(p.trim[0])} x {_n(p.trim[1])} mm), is "
            f"{difference(p, size)}: more than the {_n(self.grow or self.fit)} mm a side "
            "its bleed may cover"
        )

    def closest(self, size: tuple[float, float], n: int = 3, kind: str = "") -> list[Product]:
        """The n products closest in size (either way round), for a helpful message."""

        def distance(p: Product) -> float:
            return min(
                abs(p.trim[0] - size[0]) + abs(p.trim[1] - size[1]),
                abs(p.trim[1] - size[0]) + abs(p.trim[0] - size[1]),
            )

        return sorted((p for p in self.products if p.kind == kind), key=distance)[:n]


def difference(product: Product, size: tuple[float, float]) -> str:
    """How a product's trim differs from a group's, the product turned the nearer way round:
    "34.4 mm wider, 136.4 mm taller" (a side the same within 0.05 mm is not named)."""
    pw, ph = product.trim
    if abs(ph - size[0]) + abs(pw - size[1]) < abs(pw - size[0]) + abs(ph - size[1]):
        pw, ph = ph, pw
    parts = [
        f"{round(abs(d), 1):g} mm {more if d > 0 else less}"
        for d, more, less in (
            (pw - size[0], "wider", "narrower"),
            (ph - size[1], "taller", "shorter"),
        )
        if abs(d) >= 0.05
    ]
    return ", ".join(parts) or "the same size"


def _n(value: float) -> str:
    return f"{round(value, 2):g}"


def names() -> list[str]:
    """The shipped profiles, by name."""
    return sorted(p.stem for p in PROFILE_DIR.glob("*.yaml"))


def find(name: str) -> Path | None:
    """A shipped profile by name, or a profile file by its path."""
    if name in names():
        return PROFILE_DIR / f"{name}.yaml"
    path = Path(name)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        return path
    return None


def _not_found(name: str) -> str:
    """Why NAME names no profile: a file name (docs/export.md's `--profile my-service.yaml`,
    typed before the file is written) is a missing file, not an unknown shipped name."""
    if Path(name).suffix in (".yaml", ".yml"):
        return f"no profile file '{name}' (no such file; a shipped profile is named without .yaml)"
    return (
        f"no export profile '{name}'{did_you_mean(name, names())}; profiles: "
        f"{', '.join(names())}, or a .yaml file"
    )


def load(name: str) -> tuple[Profile | None, list[Problem]]:
    """Read and check a profile named NAME (shipped) or given by its path."""
    path = find(name)
    if path is None:
        return None, [Problem(Location(name, 0, 0), _not_found(name), "usage")]
    doc, problems = load_yaml(path)
    if problems:
        return None, problems
    r = Reader(doc, problems)
    profile = _read(r, path.stem)
    # the shared readers file length and size errors under the pack's [schema]; here they are the
    # profile's
    problems = [
        dataclasses.replace(p, rule="profile") if p.rule == "schema" else p for p in problems
    ]
    if any(p.is_error for p in problems):
        return None, problems
    return profile, problems


def _read(r: Reader, ident: str) -> Profile | None:
    data = r.doc.data
    if not isinstance(data, dict):
        r.problem((), "an export profile must be a mapping with 'name' and 'output'", "profile")
        return None
    output = r.choice(r.get(data, (), "output"), ("output",), OUTPUTS, "profile")
    if output is None:
        return None
    r.mapping(data, (), KEYS[output], f"a profile with output '{output}'", "profile")
    values: dict[str, Any] = {"id": ident, "output": output, "where": r.doc.at(())}
    values["name"] = r.typed(r.get(data, (), "name"), ("name",), "string", "profile")
    if "notes" in data:
        values["notes"] = r.typed(data["notes"], ("notes",), "string", "profile")
    if "dpi" in data:
        dpi = r.typed(data["dpi"], ("dpi",), "int", "profile")
        if dpi is not None and not 36 <= dpi <= 2400:
            r.problem(("dpi",), f"'dpi' must be between 36 and 2400 (got {dpi})", "profile")
        values["dpi"] = dpi
    if "bleed" in data:
        values["bleed"] = _length(r, data["bleed"], ("bleed",))
    for key, options in (
        ("copies", ("once", "each")),
        ("order", ("front-back", "fronts-then-backs")),
        ("shared_back", ("once", "each")),
    ):
        if key in data:
            values[key] = r.choice(data[key], (key,), options, "profile")
    if "image_url" in data:
        url = r.typed(data["image_url"], ("image_url",), "string", "profile")
        if url and not _URL.match(url.rstrip("/")):
            r.problem(
                ("image_url",),
                f"'image_url' must be empty or an http:// or https:// address without spaces or "
                f"quotes (got '{url}')",
                "profile",
            )
            url = None
        values["image_url"] = url.rstrip("/") if url else url
    if "tile_width" in data:
        values["tile_width"] = _length(r, data["tile_width"], ("tile_width",))
    for key in ("fit", "grow"):
        if key in data:
            values[key] = _fit(r, data[key], key)
    if "sheet" in data:
        values["sheet"] = _sheet(r, data["sheet"])
    if output == "pages":
        values.update(_press(r, data, Path(r.doc.file).parent))
    if output == "showcase":
        values.update(_showcase(r, data))
    if output == "low-ink":
        values.update(_ints(r, data, (("keep", 5, 100), ("min_area", 1, 100000))))
    if output == "tts":
        values["objects"] = _objects(r, data.get("objects", {}))
    products = _products(
        r, data.get("products", []), values.get("dpi") or 300, values.get("bleed") or 0.0, output
    )
    values["products"] = tuple(products)
    if any(v is None for v in values.values()):
        return None
    return Profile(**values)


def _ints(
    r: Reader, data: dict[str, Any], bounds: tuple[tuple[str, int, int], ...]
) -> dict[str, Any]:
    """Whole-number keys, each between its bounds."""
    values: dict[str, Any] = {}
    for key, low, high in bounds:
        if key in data:
            n = r.typed(data[key], (key,), "int", "profile")
            if n is not None and not low <= n <= high:
                r.problem((key,), f"'{key}' must be between {low} and {high} (got {n})", "profile")
                n = None
            values[key] = n
    return values


def _showcase(r: Reader, data: dict[str, Any]) -> dict[str, Any]:
    values = _ints(r, data, (("width", 200, 8000), ("hand", 1, 12)))
    if "background" in data:
        colour = r.typed(data["background"], ("background",), "string", "profile")
        if colour is not None and colour != "transparent" and not _COLOUR.match(colour):
            r.problem(
                ("background",),
                f"'background' must be transparent or a colour #rrggbb (got '{colour}')",
                "profile",
            )
            colour = None
        values["background"] = colour
    return values


def _press(r: Reader, data: dict[str, Any], folder: Path) -> dict[str, Any]:
    """pdfx and the press it is separated for; an icc path is relative to the profile file."""
    from pnpkit.export.pdfx import (
        Press,  # here: pdfx needs Pillow's ImageCms, which only PDF/X exports use
    )

    pdfx = r.typed(data.get("pdfx", False), ("pdfx",), "bool", "profile")
    press: Press | None
    press = Press()
    if "icc" in data:
        name = r.typed(data["icc"], ("icc",), "string", "profile")
        icc = (folder / name) if name else None
        if icc is not None and not icc.is_file():
            r.problem(
                ("icc",),
                f"no ICC profile '{name}' (a path relative to the profile file)",
                "profile",
            )
            icc = None
        elif icc is not None and not _is_cmyk_output_profile(icc):
            r.problem(("icc",), f"'{name}' is not a CMYK output ICC profile", "profile")
            icc = None
        if icc is None:
            return {"pdfx": None}
        press = dataclasses.replace(press, icc=icc)
    if "output_condition" in data:
        press = dataclasses.replace(
            press,
            condition=r.typed(data["output_condition"], ("output_condition",), "string", "profile"),
        )
    if "ink_limit" in data:
        limit = r.typed(data["ink_limit"], ("ink_limit",), "int", "profile")
        if limit is not None and not 100 <= limit <= 400:
            r.problem(
                ("ink_limit",),
                f"'ink_limit' is a total ink coverage in %, 100 to 400 (got {limit})",
                "profile",
            )
            limit = None
        press = dataclasses.replace(press, ink_limit=float(limit)) if limit is not None else None
    if "rich_black" in data and press is not None:
        black = _rich_black(r, data["rich_black"])
        press = dataclasses.replace(press, rich_black=black) if black else None
    if press is not None and sum(press.rich_black) * 100 > press.ink_limit + 1e-6:
        r.problem(
            ("rich_black",) if "rich_black" in data else ("ink_limit",),
            f"the rich black {'/'.join(f'{v * 100:g}' for v in press.rich_black)} "
            f"is {sum(press.rich_black) * 100:g} % ink, "
            f"over the ink limit of {press.ink_limit:g} %",
            "profile",
        )
        press = None
    return {"pdfx": pdfx, "press": press}


def _rich_black(r: Reader, value: Any) -> tuple[float, float, float, float] | None:
    if not (
        isinstance(value, list)
        and len(value) == 4
        and all(isinstance(v, int) and 0 <= v <= 100 for v in value)
    ):
        r.problem(
            ("rich_black",),
            "'rich_black' must be [C, M, Y, K] in % such as [60, 40, 40, 100]",
            "profile",
        )
        return None
    c, m, y, k = (v / 100 for v in value)
    return c, m, y, k


def _is_cmyk_output_profile(path: Path) -> bool:
    head = path.read_bytes()[:128]
    return len(head) == 128 and head[16:20] == b"CMYK" and head[36:40] == b"acsp"


def _length(r: Reader, value: Any, path: Path_) -> float | None:
    mm = r.length(value, path)
    if mm is not None and mm < 0:
        r.problem(path, f"'{path[-1]}' must not be negative", "profile")
        return None
    return mm


def _sheet(r: Reader, value: Any) -> tuple[int, int, int] | None:
    spec = r.mapping(value, ("sheet",), SHEET_KEYS, "'sheet'", "profile")
    if spec is None:
        return None
    out: list[int | None] = []
    for key, default, low in (("columns", 10, 1), ("rows", 7, 1), ("max_pixels", 4096, 64)):
        n = r.typed(spec.get(key, default), ("sheet", key), "int", "profile")
        if n is not None and n < low:
            r.problem(("sheet", key), f"'{key}' must be at least {low} (got {n})", "profile")
            n = None
        out.append(n)
    if None in out:
        return None
    columns, rows, pixels = cast(list[int], out)
    if (
        not 2 <= columns * rows <= 100
    ):  # a face and the hidden image; card ids are sheet x 100 + slot
        r.problem(
            ("sheet",),
            "a deck sheet needs 2 to 100 cells, a face and the "
            f"hidden image at least (got {out[0]} x {out[1]})",
            "profile",
        )
        return None
    return columns, rows, pixels


def _objects(r: Reader, value: Any) -> dict[str, str] | None:
    spec = r.mapping(value, ("objects",), KINDS_FOR_TTS, "'objects'", "profile")
    if spec is None:
        return None
    out: dict[str, str] = {}
    for kind in KINDS_FOR_TTS:
        if kind not in spec:
            r.problem(
                ("objects",),
                f"'objects' needs the kind '{kind}' (one of {', '.join(TTS_OBJECTS)})",
                "profile",
            )
            continue
        out[kind] = r.choice(spec[kind], ("objects", kind), TTS_OBJECTS, "profile")
    return out if None not in out.values() and len(out) == len(KINDS_FOR_TTS) else None


def _products(r: Reader, value: Any, dpi: int, bleed: float, output: str) -> list[Product]:
    if not isinstance(value, list):
        r.problem(("products",), "'products' must be a list of {name, trim, pixels}", "profile")
        return []
    out = []
    for i, spec in enumerate(value):
        path = ("products", i)
        spec = r.mapping(spec, path, PRODUCT_KEYS, "a product", "profile")
        if spec is None:
            continue
        name = r.typed(r.get(spec, path, "name"), path + ("name",), "string", "profile")
        trim = r.size(r.get(spec, path, "trim"), path + ("trim",))
        pixels = _pixels(r, spec, path, output)
        safe = _length(r, spec["safe"], path + ("safe",)) if "safe" in spec else None
        source = _source(r, spec, path)
        kind = (
            r.choice(spec["kind"], path + ("kind",), PRODUCT_KINDS, "profile")
            if "kind" in spec
            else ""
        )
        if pixels is not None and trim is not None and kind is not None:
            problem = _pixels_problem(pixels, trim, bleed, dpi, kind)
            if problem:
                r.problem(path + ("pixels",), problem, "profile")
        if name is not None and trim is not None and kind is not None:
            out.append(Product(name, trim, pixels, safe, source, kind))
    return out


def _pixels_problem(
    pixels: tuple[int, int], trim: tuple[float, float], bleed: float, dpi: int, kind: str
) -> str | None:
    """Why a product's pixels do not go with its trim: an image is the trim plus 2 x bleed at the
    dpi, or a larger template the face is centred on (a hex tile's, whose canvas is square-ish);
    a die's face is its printed area, at most the die's side."""
    expected = tuple(round((t + 2 * bleed) / MM_PER_IN * dpi) for t in trim)
    if kind in ("punchout", "cardstock"):
        slug = tuple(round(t / MM_PER_IN * dpi) for t in trim)
        if pixels != slug:
            return (
                f"'pixels' {pixels[0]}x{pixels[1]} of a slug must be its trim at {dpi} dpi "
                f"({slug[0]}x{slug[1]}): the pieces on it bring their own bleed"
            )
        return None
    if kind == "die":
        side = tuple(round(t / MM_PER_IN * dpi) for t in trim)
        if pixels[0] > side[0] or pixels[1] > side[1]:
            return (
                f"'pixels' {pixels[0]}x{pixels[1]} is more than the die's face at {dpi} dpi "
                f"({side[0]}x{side[1]})"
            )
        return None
    if pixels[0] < expected[0] or pixels[1] < expected[1]:
        return (
            f"'pixels' {pixels[0]}x{pixels[1]} is less than the trim plus "
            f"2 x bleed at {dpi} dpi ({expected[0]}x{expected[1]})"
        )
    return None


def _fit(r: Reader, value: object, key: str = "fit") -> float | None:
    """How far (mm a side) a product may be from a group's size: bounded, a few mm at most."""
    mm = _length(r, value, (key,))
    if mm is not None and mm > 5:
        what = "from" if key == "fit" else "larger than"
        r.problem(
            (key,),
            f"'{key}' is how far each side of a product may be {what} a group's trim, "
            f"at most 5 mm (got {mm:g} mm)",
            "profile",
        )
        return None
    return mm


def _source(r: Reader, spec: dict[str, object], path: tuple[str | int, ...]) -> str:
    """`source:` says where a product's figures come from and how sure they are."""
    if "source" not in spec:
        return ""
    text = r.typed(spec["source"], path + ("source",), "string", "profile")
    if text is None:
        return ""
    tag = text.split(":", 1)[0].strip()
    if tag not in SOURCE_TAGS or ":" not in text:
        r.problem(
            path + ("source",),
            f"'source' must start with one of {', '.join(SOURCE_TAGS)} and a colon, "
            f"then say where the figures come from (got '{text[:60]}')",
            "profile",
        )
        return ""
    return str(text)


def _pixels(r: Reader, spec: dict[str, Any], path: Path_, output: str) -> tuple[int, int] | None:
    if "pixels" not in spec:
        return None
    if output != "images":
        r.problem(
            path + ("pixels",),
            "'pixels' only applies to profiles with output 'images'",
            "profile",
            key=True,
        )
        return None
    match = _PIXELS.match(str(spec["pixels"]))
    if not match:
        r.problem(
            path + ("pixels",),
            f"'pixels' must be WIDTHxHEIGHT such as 825x1125 (got '{spec['pixels']}')",
            "profile",
        )
        return None
    return int(match.group(1)), int(match.group(2))


# ------------------------------------------------------------------ command-line options

PROFILE_HELP = (
    "also export for a print service or a virtual tabletop, into OUT/<pack>/NAME/ (repeatable): "
    f"{', '.join(names())}, or a profile .yaml file (default: home, the sheets only)"
)


def profile_option(name: str) -> Profile:
    """argparse type for --profile: a checked profile, or a usage error that says what is wrong."""
    profile, problems = load(name)
    if profile is None:
        raise argparse.ArgumentTypeError(
            "\n".join(p.message if p.rule == "usage" else str(p) for p in problems if p.is_error)
        )
    return profile


def image_url_option(text: str) -> str:
    """argparse type for --image-url BASE: an http(s) URL a save may name images under."""
    base = text.strip().rstrip("/")
    if not _URL.match(base):
        raise argparse.ArgumentTypeError(
            f"must be an http:// or https:// address without spaces or quotes, "
            f"such as https://example.org/my-game (got '{text}')"
        )
    return base


def with_image_url(profile: Profile, base: str | None) -> Profile:
    """A Tabletop Simulator profile whose save names its images under `base` (--image-url)."""
    if not base or profile.output != "tts":
        return profile
    return dataclasses.replace(profile, image_url=base)


def png_option(text: str) -> Profile:
    """argparse type for --png DPI: a plain image profile, trim size, no products."""
    try:
        dpi = int(text)
    except ValueError:
        dpi = 0
    if not 36 <= dpi <= 2400:
        raise argparse.ArgumentTypeError(
            f"must be a whole number of dots per inch from 36 to 2400 (got '{text}')"
        )
    return Profile(
        id=f"png-{dpi}",
        name=f"PNG images at {dpi} dpi",
        output="images",
        where=Location("--png"),
        dpi=dpi,
        notes=f"One PNG per distinct face at {dpi} dpi, trim size "
        "(no bleed); manifest.csv lists them with their copies.",
    )
