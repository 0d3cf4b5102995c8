"""The icons text_box() can place inline (`:wood:`): a pack's icons/*.svg, then the icon template.

An icon file is SVG art (drawn through svgdraw like any `<image href="….svg">`,
with its problems located in the file); its viewBox gives its aspect ratio.
The icon template is `_icons.svg.j2` as the pack's template folders resolve it
(pnpkit's own unless the pack overrides it): its `shape(name)` macro draws
each icon in a 10 x 10 box, and its names are the ones it tests for
(`name == 'wood'`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2
from lxml import etree

from pnpkit import filelimits
from pnpkit.pack import paths

if TYPE_CHECKING:
    from pnpkit.pack.model import Pack

# name -> (aspect ratio w/h, ("file", href) or ("template", name))
Icon = tuple[float, tuple[str, str]]

ICON_TEMPLATE = "_icons.svg.j2"
_NAME_RE = re.compile(r"name\s*==\s*'([A-Za-z0-9_-]+)'")
_VIEWBOX_RE = re.compile(
    r"\s*([-+.\deE]+)[\s,]+([-+.\deE]+)[\s,]+([-+.\deE]+)[\s,]+([-+.\deE]+)\s*"
)


def folder(pack: Pack) -> Path:
    return pack.root / "icons"


def available(pack: Pack, env: jinja2.Environment | None) -> dict[str, Icon]:
    """name -> (aspect ratio w/h, ("file", href) or ("template", name)); files win."""
    out: dict[str, Icon] = {}
    if env is not None:
        assert env.loader is not None  # the build's environment always has the pack's loader
        try:
            source = env.loader.get_source(env, ICON_TEMPLATE)[0]
        except jinja2.TemplateError:
            source = ""
        out.update({name: (1.0, ("template", name)) for name in _NAME_RE.findall(source)})
    roots = paths.pack_roots(pack.root)
    icons = folder(pack)
    if icons.is_dir():
        for path in sorted(icons.glob("*.svg")):
            # links followed: a pack's files are its own, a link out of it is no icon
            if paths.inside(path, roots, itself=False):
                out[path.stem] = (_aspect(path), ("file", f"icons/{path.name}"))
    return out


def _aspect(path: Path) -> float:
    """w/h of the file's viewBox; 1 when it cannot be read (drawing it reports why)."""
    try:
        if path.stat().st_size > filelimits.MAX_ART_BYTES:
            return 1.0
        parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
        box = etree.parse(str(path), parser).getroot().get("viewBox", "")
        x, y, w, h = (float(v) for v in _VIEWBOX_RE.fullmatch(box).groups())  # type: ignore[union-attr]
        return w / h if w > 0 and h > 0 else 1.0
    except (OSError, etree.XMLSyntaxError, AttributeError, ValueError):
        return 1.0


def markup(
    entry: Icon, env: jinja2.Environment | None, x: float, y: float, w: float, h: float
) -> str:
    """SVG that draws an icon in the box (x, y, w, h)."""
    kind, ref = entry[1]
    if kind == "file":
        return (
            f'<image href="{ref}" x="{x:.3f}" y="{y:.3f}" width="{w:.3f}" '
            f'height="{h:.3f}" preserveAspectRatio="none"/>'
        )
    assert env is not None  # available() finds the template's icons through the environment
    shape = env.get_template(ICON_TEMPLATE).module.shape(ref)  # type: ignore[attr-defined]  # its macro
    return f'<g transform="translate({x:.3f} {y:.3f}) scale({w / 10:.4f} {h / 10:.4f})">{shape}</g>'
