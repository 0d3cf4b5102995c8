"""<image>: PNG and JPEG files or data URIs, bounded in size, and SVG art files drawn as
vectors (compiled by the same rules, their problems located in them)."""

from __future__ import annotations

import base64
import binascii
import io
import os
import re
from typing import TYPE_CHECKING

from pnpkit.svg.geometry import _rect_segs
from pnpkit.svg.ops import (
    Clip,
    El,
    Gradient,
    ImageOp,
    Op,
    Own,
    PathOp,
    Restore,
    Save,
    Style,
    SvgError,
    TextOp,
    Transform,
)
from pnpkit.svg.values import _XML_SPACE_RE

if TYPE_CHECKING:  # the compiler imports this module: its type only
    from pnpkit.svg.walker import Compiler

_DATA_URI_RE = re.compile(r"data:image/(png|jpeg);base64,(.*)", re.S)
_MAGIC = (b"\x89PNG", b"\xff\xd8")


def h_image(comp: Compiler, el: El, own: Own, st: Style, body: list[Op]) -> None:
    comp.no_children(el)
    x, y = comp.num(el, own, "x"), comp.num(el, own, "y")
    w, h = comp.num(el, own, "width", 0.0, True), comp.num(el, own, "height", 0.0, True)
    aspect = own.get("preserveAspectRatio", "xMidYMid").split()
    if aspect not in (["none"], ["xMidYMid"], ["xMidYMid", "meet"]):
        comp.problem(
            el,
            "preserveAspectRatio on <image> must be none "
            f"or xMidYMid meet (got '{' '.join(aspect)}')",
        )
    href = own.get("href", "")
    if _is_art(href):
        if w and h and st["visibility"]:
            art(comp, el, href, x, y, w, h, aspect != ["none"], st, body)
        return
    source = image_source(comp, el, href)
    if source and w and h and st["visibility"] and st["alpha"] > 0:
        body.append(ImageOp(source, x, y, w, h, st["alpha"], aspect != ["none"]))


def art(
    comp: Compiler,
    el: El,
    href: str,
    x: float,
    y: float,
    w: float,
    h: float,
    meet: bool,
    st: Style,
    body: list[Op],
) -> None:
    """An SVG file drawn as vectors: compiled by the same rules, its problems located in it."""
    path = comp.resolve_href(href) if comp.resolve_href else None
    if path is None:
        comp.problem(el, f"image '{href[:60]}' not found")
        return
    if comp.depth >= ART_DEPTH or path in comp.art_stack:
        comp.problem(
            el, f"image '{href[:60]}' draws itself (or nests deeper than {ART_DEPTH} files)"
        )
        return
    try:
        box, ops = comp.compile_art(path)
    except SvgError as exc:
        for line, message, *where in exc.problems:
            comp.problems[(line, message, where[0] if where else path)] = None
        return
    if not comp.budget(el, len(ops)):
        return
    vx, vy, vw, vh = box
    sx, sy = w / vw, h / vh
    dx = dy = 0.0
    if meet:  # xMidYMid meet: uniform scale, centred
        sx = sy = min(sx, sy)
        dx, dy = (w - vw * sx) / 2, (h - vh * sy) / 2
    ops = _fade(ops, st["alpha"]) if st["alpha"] < 1 else ops
    body += [
        Save(),
        Clip(tuple(_rect_segs(x, y, w, h)), False),
        Transform((sx, 0, 0, sy, x + dx - vx * sx, y + dy - vy * sy)),
        *ops,
        Restore(),
    ]


def image_source(comp: Compiler, el: El, href: str) -> str | bytes | None:
    """The PNG/JPEG bytes of a data: URI or the resolved file path, or None after a problem."""
    source: str | bytes | None
    if href.startswith("data:"):
        match = _DATA_URI_RE.fullmatch(href)
        try:
            data = (
                base64.b64decode(_XML_SPACE_RE.sub("", match.group(2)), validate=True)
                if match
                else None
            )
        except binascii.Error:
            data = None
        if data is None:
            comp.problem(
                el, "image data URI must be data:image/png;base64,… or data:image/jpeg;base64,…"
            )
        head, source = (data or b"")[:4], data
    else:
        try:
            path = comp.resolve_href(href) if comp.resolve_href else None
        except ValueError as exc:  # the resolver refuses it, e.g. it leads outside the pack
            comp.problem(el, str(exc))
            return None
        try:
            if path is None:
                raise FileNotFoundError(href)
            with open(path, "rb") as f:
                head, source = f.read(4), str(path)
        except OSError:  # FileNotFoundError: resolve_href gave None
            comp.problem(el, f"image '{href[:60]}' not found")
            return None
    if source is not None and not head.startswith(_MAGIC):
        comp.problem(el, f"image '{href[:60]}' is not a PNG or JPEG")
        return None
    too_large = image_too_large(source) if source is not None else None
    if too_large:
        comp.problem(el, f"image '{href[:60]}' {too_large}")
        return None
    return source


ART_DEPTH = 8  # art files drawing art files
_ART_SUFFIX = (".svg",)


def _is_art(href: str) -> bool:
    return not href.startswith("data:") and href.lower().endswith(_ART_SUFFIX)


def _fade(ops: tuple[Op, ...], alpha: float) -> tuple[Op, ...]:
    """An <image>'s opacity folded into the art's paint, as group opacity is (see the docstring)."""
    out: list[Op] = []
    for op in ops:
        if isinstance(op, (PathOp, TextOp)):
            op = op._replace(
                fill=op.fill and op.fill._replace(alpha=op.fill.alpha * alpha),
                stroke=op.stroke and op.stroke._replace(alpha=op.stroke.alpha * alpha),
            )
        elif isinstance(op, (ImageOp, Gradient)):
            op = op._replace(alpha=op.alpha * alpha)
        out.append(op)
    return tuple(out)


# An image is decoded whole to go into the PDF (about 10 bytes a pixel at the peak), so a
# stranger's 30000x30000 PNG would take gigabytes. 50 megapixels is a 50x70cm board at
# 300 dpi (it builds in 7 s and 540 MB); 50 MB is more than such a board's PNG needs.
MAX_IMAGE_PIXELS = 50_000_000
MAX_IMAGE_BYTES = 50_000_000


def image_too_large(source: str | bytes) -> str | None:
    """Why the PNG/JPEG (bytes or a file path) is too large to embed, or None. Only its header
    is read."""
    from PIL import (  # the plug-ins skip Pillow's own bomb check
        JpegImagePlugin,
        PngImagePlugin,
        UnidentifiedImageError,
    )

    size = len(source) if isinstance(source, bytes) else os.path.getsize(source)
    if size > MAX_IMAGE_BYTES:
        return f"has {size} bytes; an image may have at most {MAX_IMAGE_BYTES}"
    try:
        with open(source, "rb") if isinstance(source, str) else io.BytesIO(source) as f:
            png = f.read(4) == b"\x89PNG"
            f.seek(0)
            w, h = (PngImagePlugin.PngImageFile if png else JpegImagePlugin.JpegImageFile)(f).size
    except (OSError, SyntaxError, ValueError, UnidentifiedImageError) as exc:
        return f"cannot be read: {exc}"
    if w * h > MAX_IMAGE_PIXELS:
        return (
            f"has {w}x{h} = {w * h} pixels; an image may "
            f"have at most {MAX_IMAGE_PIXELS} (scale it down)"
        )
    return None
