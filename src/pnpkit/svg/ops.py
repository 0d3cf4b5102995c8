"""What the SVG compiler makes: one type per drawing operation, the compile's working types,
and the rows the build cache stores them as."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple, TypeVar

from lxml import etree

from pnpkit.typeset import fonts, shaping

# CSS colour names: ReportLab's list minus its own inventions, plus the two it lacks.
RGB = tuple[float, float, float]  # 0..1


class SvgError(Exception):
    """The SVG uses something outside the supported subset, or is malformed."""

    def __init__(self, problems: Iterable[tuple[Any, ...]]) -> None:  # (line, message[, file])
        self.problems = list(problems)
        super().__init__(
            "\n".join(f"line {line}: {message}" for line, message, *_ in self.problems)
        )


# What compile_svg produces and Drawing.draw replays, in SVG user space (y down). One type per
# kind of operation, so the modules that read drawings (cache, pdfx, lowink, textcheck, preview,
# rastercache) name the fields they read. NamedTuples: as cheap to make as the plain tuples they
# replace (compiling makes thousands), immutable and hashable, and op_row() turns one into the
# plain tuples the build cache stores (marshal takes no tuple subclasses).

Matrix = tuple[float, float, float, float, float, float]  # a, b, c, d, e, f as in PDF
Segs = tuple[tuple[str, tuple[float, ...]], ...]  # path-building calls: ("moveTo", (x, y)), ...


class Fill(NamedTuple):
    r: float
    g: float
    b: float
    alpha: float

    @property
    def rgb(self) -> tuple[float, float, float]:
        return self.r, self.g, self.b


class Stroke(NamedTuple):
    r: float
    g: float
    b: float
    alpha: float
    width: float
    cap: int
    join: int
    miter: float
    dash: tuple[float, ...]
    offset: float

    @property
    def rgb(self) -> tuple[float, float, float]:
        return self.r, self.g, self.b


class Save(NamedTuple):
    """Push the graphics state (a transform or a clip follows, undone by the matching Restore)."""


class Restore(NamedTuple):
    """Pop the graphics state."""


class Transform(NamedTuple):
    """Concatenate a matrix (a b c d e f) to the current one (PDF's `cm`)."""

    matrix: Matrix


class Clip(NamedTuple):
    segs: Segs
    evenodd: bool


class PathOp(NamedTuple):
    segs: Segs
    fill: Fill | None
    stroke: Stroke | None
    evenodd: bool


_Shaped = shaping.Shaped


class TextOp(NamedTuple):
    """One run of text in one font, size and paint; (x, y) is its baseline's start."""

    x: float
    y: float
    font: str  # ReportLab's name of the face
    size: float
    text: str
    fill: Fill | None
    stroke: Stroke | None
    shaping: _Shaped | None  # see shaping.shape: glyphs without a character of their own


class ImageOp(NamedTuple):
    source: str | bytes  # a file's path or PNG/JPEG bytes
    x: float
    y: float
    w: float
    h: float
    alpha: float
    keep_aspect: bool  # xMidYMid meet, else stretched


class Gradient(NamedTuple):
    """A shape filled with a linear or radial gradient (pad spread, opaque stops)."""

    segs: Segs
    evenodd: bool
    kind: str  # linear | radial
    coords: tuple[float, ...]
    colours: tuple[tuple[float, float, float], ...]
    offsets: tuple[float, ...]
    matrix: Matrix
    alpha: float


Op = Save | Restore | Transform | Clip | PathOp | TextOp | ImageOp | Gradient
El = etree._Element
Own = dict[str, str]  # an element's own attributes
Style = dict[str, Any]  # the computed inherited properties, parsed (see _PARSERS), and "alpha"
SegList = list[tuple[str, tuple[float, ...]]]  # path-building calls, while they are collected
Box = tuple[float, float, float, float]  # x, y, width, height
Placed = tuple["Matrix | None", "Box | None"]  # what a handler returns: inner matrix, viewport
Line = list[Any]  # one text line while it is collected: [x, y, anchor, direction, runs]
Resolver = Callable[[str], "str | None"]  # an <image> href -> a file path, or None
# (kind, coords, colours, offsets, units, gradientTransform) of a gradient element
GradientSpec = tuple[str, tuple[float, ...], tuple["RGB", ...], tuple[float, ...], str, Matrix]
T = TypeVar("T")
D = TypeVar("D")
OP_TYPES: tuple[type, ...] = (Save, Restore, Transform, Clip, PathOp, TextOp, ImageOp, Gradient)
_PAINTED = (PathOp, TextOp)


_NUMBER: Mapping[type, int] = MappingProxyType({cls: n for n, cls in enumerate(OP_TYPES)})
_FILL_AT: Mapping[type, int] = MappingProxyType(
    {cls: cls._fields.index("fill") for cls in _PAINTED}
)  # stroke: next
_TEXT_FONT = TextOp._fields.index("font")


def op_row(op: Op) -> tuple[Any, ...]:  # numbers, strings, bytes and tuples of them
    """The op as plain tuples (its type's number first), for marshal."""
    at = _FILL_AT.get(type(op))
    if at is None:
        return (_NUMBER[type(op)], *op)
    row = [_NUMBER[type(op)], *op]
    fill, stroke = row[at + 1], row[at + 2]  # Fill and Stroke: tuples, but not plain ones
    row[at + 1] = None if fill is None else tuple(fill)
    row[at + 2] = None if stroke is None else tuple(stroke)
    return tuple(row)


def ops_to_rows(ops: tuple[Op, ...]) -> tuple[tuple[Any, ...], ...]:
    """A drawing's ops as marshal can store them."""
    return tuple(map(op_row, ops))


def ops_from_rows(rows: tuple[tuple[Any, ...], ...]) -> tuple[Op, ...]:
    """The ops that ops_to_rows() wrote."""
    return tuple(map(op_from_row, rows))


def op_from_row(row: tuple[Any, ...]) -> Op:
    """The op that op_row() wrote."""
    cls = OP_TYPES[row[0]]
    at = _FILL_AT.get(cls)
    if at is None:
        plain: Op = cls(*row[1:])
        return plain
    fields = list(row[1:])
    fill, stroke = fields[at], fields[at + 1]
    fields[at] = Fill(*fill) if fill else None
    fields[at + 1] = Stroke(*stroke) if stroke else None
    if cls is TextOp:  # a face named by a drawing from the cache or a worker: see fonts.known
        fonts.known(fields[_TEXT_FONT])
    op: Op = cls(*fields)
    return op
