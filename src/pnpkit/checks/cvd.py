"""Player colours seen with colour-vision deficiency: pairs that collapse are warnings.

A pack says where its player colours are (`players: {colours: {data: KEY, field: NAME}}`);
each colour is simulated for protanopia, deuteranopia and tritanopia (Machado, Oliveira &
Fernandes 2009, full severity, on linear sRGB) and every pair is compared in CIELAB (D65).
Two colours closer than DELTA_E (CIE76) for one kind of vision are a warning: side by side
on the table they would read as one colour. Symbols or shapes beside the colours are the
fix a designer should reach for; the warning does not know whether they are there.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from pnpkit.errors import Location, Problem
from pnpkit.pack.model import Pack

MAX_COLOURS = 32  # player colours compared pairwise; a game has a handful
DELTA_E = 15.0  # CIE76: 2.3 is just noticeable; below ~15 two flat colours side by side look alike

Row = tuple[float, float, float]
SIMULATIONS: Mapping[str, tuple[Row, Row, Row]] = MappingProxyType(
    {
        "typical vision": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
        "protanopia": (
            (0.152286, 1.052583, -0.204868),
            (0.114503, 0.786281, 0.099216),
            (-0.003882, -0.048116, 1.051998),
        ),
        "deuteranopia": (
            (0.367322, 0.860646, -0.227968),
            (0.280085, 0.672501, 0.047413),
            (-0.011820, 0.042940, 0.968881),
        ),
        "tritanopia": (
            (1.255528, -0.076749, -0.178779),
            (-0.078411, 0.930809, 0.147602),
            (0.004733, 0.691367, 0.303900),
        ),
    }
)
HEX = re.compile(r"#[0-9a-fA-F]{6}")


def linear(hex_colour: str) -> Row:
    """#rrggbb as linear-light sRGB."""
    r, g, b = (int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return _lin(r), _lin(g), _lin(b)


def _lin(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else float(((c + 0.055) / 1.055) ** 2.4)


def seen(hex_colour: str, vision: str) -> Row:
    """The colour as that vision sees it, in CIELAB."""
    rgb = linear(hex_colour)
    m = SIMULATIONS[vision]
    return lab(tuple(sum(a * v for a, v in zip(row, rgb)) for row in m))  # type: ignore[arg-type]


def lab(rgb: Row) -> Row:
    """Linear sRGB (clipped to the gamut) to CIELAB, D65 white."""
    r, g, b = (min(1.0, max(0.0, v)) for v in rgb)
    x = 0.4124 * r + 0.3576 * g + 0.1805 * b
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = 0.0193 * r + 0.1192 * g + 0.9505 * b
    fx, fy, fz = (
        t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
        for t in (x / 0.95047, y, z / 1.08883)
    )
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def collapsed(colours: dict[str, str]) -> list[tuple[str, str, str, float]]:
    """Pairs closer than DELTA_E, as (vision, name, name, distance), closest pair per vision."""
    out = []
    for vision in SIMULATIONS:
        looks = {name: seen(c, vision) for name, c in colours.items()}
        pairs = [(math.dist(looks[a], looks[b]), a, b) for a, b in itertools.combinations(looks, 2)]
        out += [(vision, a, b, d) for d, a, b in sorted(pairs) if d < DELTA_E]
    return out


def problems(pack: Pack) -> list[Problem]:
    """Located problems with the pack's declared player colours (none declared: none)."""
    if pack.player_colours is None:
        return []
    key, field = pack.player_colours
    where = _at(pack, ("players", "colours"))
    colours, bad = _colours(pack.data.get(key), field)
    if colours is None:
        return [
            Problem(
                where,
                f"players.colours names data '{key}', which is not a mapping of "
                "player colours in the pack's data",
                "references",
            )
        ]
    if len(colours) + len(bad) > MAX_COLOURS:
        return [
            Problem(
                where,
                f"players.colours names {len(colours) + len(bad)} colours; at most "
                f"{MAX_COLOURS} are compared",
                "schema",
            )
        ]
    out = [
        Problem(
            where,
            f"player colour '{name}' must be '#rrggbb'"
            + (f" in its field '{field}'" if field else ""),
            "schema",
        )
        for name in bad
    ]
    for vision, a, b, d in collapsed(colours):
        out.append(
            Problem(
                where,
                f"player colours '{a}' and '{b}' look alike with {vision} "
                f"(CIELAB distance {d:.1f}, below {DELTA_E:g})",
                "colours",
                "warning",
            )
        )
    return out


def _colours(table: object, field: str | None) -> tuple[dict[str, str] | None, list[str]]:
    """The colours by name, and the names whose colour is not #rrggbb."""
    if not isinstance(table, dict):
        return None, []
    good, bad = {}, []
    for name, entry in table.items():
        value = entry.get(field) if field and isinstance(entry, dict) else entry
        if isinstance(value, str) and HEX.fullmatch(value):
            good[str(name)] = value
        else:
            bad.append(str(name))
    return good, bad


def _at(pack: Pack, path: Sequence[str]) -> Location:
    manifest = pack.manifest
    at = getattr(manifest, "at", None)
    return at(tuple(path)) if at is not None else pack.where
