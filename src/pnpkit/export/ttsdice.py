"""Tabletop Simulator dice: a die of a pack as a Custom_Model of type Dice.

TTS's own Custom_Dice takes one image laid out like a template whose face
positions no source we could read documents, so pnpkit brings its own model
instead: a cube as OBJ text (vertices, texture coordinates, normals) whose
texture coordinates pnpkit chooses, a texture atlas of the die's six faces
laid out to match them (three columns, two rows, in the order the net marks its
squares), and `RotationValues` naming, for each face, the rotation that turns
it up, so TTS reports the rolled face's value or name.

The faces come from the die's net as drawn: the template marks each square with
data-die-face (dice.die_squares), and folding the net says which way each
square faces on the cube and which way its top points. Each atlas cell is that
square of the rasterised net, untouched; the cube's texture coordinates put the
square's top edge where the paper's top edge ends up, so the die shows what the
folded paper die shows.

OBJ is right-handed with y up (as Blender writes it); TTS, like Unity, is
left-handed and reads an OBJ with x negated, which the rotations account for.
The mesh is in inches, TTS's unit, so a scale-1 model is the printed die.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from pnpkit.kinds.dice import DieSquare, Vec
from pnpkit.units import MM_PER

COLUMNS, ROWS = 3, 2  # the atlas: six cells, in the order of the net's marked squares
# The object's fields as public TTS type definitions give them (Benjamin-Dobell/tts-types
# tts/ObjectState.def.lua: CustomMesh's MeshURL, DiffuseURL, ColliderURL, NormalURL, Convex,
# MaterialIndex, TypeIndex, CustomShader, CastShadows; RotationValues of {Value, Rotation}; the
# material types Plastic, Wood, Metal, Cardboard, Glass = 0..4), and typed-tabletop-simulator's
# model types (Generic 0, Figurine 1, Dice 2, Coin 3, Board 4, Chip 5, Bag 6, Infinite 7).
DICE_TYPE = 2  # CustomMesh.TypeIndex: Dice
MATERIAL = 3  # CustomMesh.MaterialIndex: Cardboard (a paper die)


def atlas_cell(k: int, cell: int) -> tuple[int, int, int, int]:
    """The pixel box (left, top, right, bottom) of square k's cell in an atlas of `cell` px
    cells."""
    col, row = k % COLUMNS, k // COLUMNS
    return col * cell, row * cell, (col + 1) * cell, (row + 1) * cell


def _add(*vs: tuple[float, ...]) -> tuple[float, float, float]:
    x, y, z = (sum(c) for c in zip(*vs))
    return x, y, z


def _scaled(v: Vec, f: float) -> tuple[float, float, float]:
    return v[0] * f, v[1] * f, v[2] * f


def obj_text(squares: Sequence[DieSquare], name: str) -> str:
    """The die as OBJ: a cube of the squares' side (inches), centred on the origin, each face two
    triangles wound counter-clockwise seen from outside, textured by its atlas cell."""
    h = squares[0].side / MM_PER["in"] / 2
    lines = [
        f"# {name}: a d6 by pnpkit; texture: a {COLUMNS} x {ROWS} atlas of its faces",
        f"o {name}",
    ]
    for sq in squares:
        centre = _scaled(sq.normal, h)
        up, right = _scaled(sq.up, h), _scaled(sq.right, h)
        down, left = _scaled(sq.up, -h), _scaled(sq.right, -h)
        for corner in ((up, left), (up, right), (down, right), (down, left)):  # TL TR BR BL
            lines.append("v {:.6f} {:.6f} {:.6f}".format(*_add(centre, *corner)))
    for k in range(len(squares)):
        col, row = k % COLUMNS, k // COLUMNS
        u0, u1 = col / COLUMNS, (col + 1) / COLUMNS
        v1, v0 = 1 - row / ROWS, 1 - (row + 1) / ROWS  # v counts up from the image's bottom
        for u, v in ((u0, v1), (u1, v1), (u1, v0), (u0, v0)):
            lines.append(f"vt {u:.6f} {v:.6f}")
    for sq in squares:
        lines.append("vn {} {} {}".format(*sq.normal))
    for k in range(len(squares)):
        tl, tr, br, bl = (4 * k + i + 1 for i in range(4))
        n = k + 1
        for a, b, c in ((tl, bl, br), (tl, br, tr)):
            lines.append(f"f {a}/{a}/{n} {b}/{b}/{n} {c}/{c}/{n}")
    return "\n".join(lines) + "\n"


def _matrix(axis: str, degrees: float) -> list[list[float]]:
    c, s = round(math.cos(math.radians(degrees))), round(math.sin(math.radians(degrees)))
    if axis == "x":
        return [[1, 0, 0], [0, c, -s], [0, s, c]]
    return [[c, -s, 0], [s, c, 0], [0, 0, 1]]


def _apply(m: list[list[float]], v: Sequence[float]) -> tuple[float, ...]:
    return tuple(sum(m[i][j] * v[j] for j in range(3)) for i in range(3))


def up_rotation(normal: Vec) -> tuple[int, int]:
    """Euler angles (x, z) in degrees that turn a face of this OBJ normal up in TTS: Unity applies
    z, then x (then y, left at 0); TTS sees the OBJ with x negated."""
    tts = (-normal[0], normal[1], normal[2])
    for x, z in itertools.product((0, 90, 180, -90), repeat=2):
        if _apply(_matrix("x", x), _apply(_matrix("z", z), tts)) == (0, 1, 0):
            return x, z
    raise AssertionError(f"no rotation turns {normal} up")  # every axis direction has one


def rotation_values(squares: Sequence[DieSquare]) -> list[dict[str, Any]]:
    """TTS's RotationValues: each face's value (a number, or its name) and the rotation that
    shows it up."""
    out = []
    for sq in squares:
        x, z = up_rotation(sq.normal)
        value: Any = int(sq.value) if sq.value.lstrip("-").isdigit() else sq.value
        out.append({"Value": value, "Rotation": {"x": float(x), "y": 0.0, "z": float(z)}})
    return out


def custom_mesh(mesh_url: str, texture_url: str) -> dict[str, Any]:
    """The CustomMesh of a die: our mesh and texture, collider from the (convex) mesh."""
    return {
        "MeshURL": mesh_url,
        "DiffuseURL": texture_url,
        "NormalURL": "",
        "ColliderURL": "",
        "Convex": True,
        "MaterialIndex": MATERIAL,
        "TypeIndex": DICE_TYPE,
        "CustomShader": {
            "SpecularColor": {"r": 1.0, "g": 1.0, "b": 1.0},
            "SpecularIntensity": 0.0,
            "SpecularSharpness": 2.0,
            "FresnelStrength": 0.0,
        },
        "CastShadows": True,
    }
