"""The preview page: build/<game>/index.html, a gallery of every face beside links to the PDFs.

Each face is shown from the SVG the build wrote (svg/<lang>/<group>/<id>-<side>.svg),
at true relative size, with its id, count, and the warnings located in its
item. A browser draws an SVG shown as an image without loading the files it
links to, so a face that draws art from the pack gets a preview copy linking to
one copy of each file (preview/art/), shown in a sandboxed frame instead. Served by `pnpkit watch --serve`, the page asks the
server for the build state twice a second: it reloads itself after a rebuild
and shows the problems while the pack is broken. Opened as a file it is
simply a static page.
"""

from __future__ import annotations

import hashlib
import html
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from lxml import etree

from pnpkit import paths
from pnpkit.errors import Problem
from pnpkit.model import Face, Item, Pack

if TYPE_CHECKING:  # build imports this module
    from pnpkit.build import Result

STATE_URL = "/__pnpkit/state"  # what watch --serve answers with the build state (JSON)
_BUILD_META = re.compile(rb'<meta name="pnpkit-build" content="([0-9a-f]+)">')
_XLINK = "{http://www.w3.org/1999/xlink}href"


def write_index(result: Result, folder: Path) -> Path:
    """Write folder/index.html for a successful build (folder holds its PDFs and svg/)."""
    assert result.pack is not None  # only a successful build has an index
    pack: Pack = result.pack
    owners = _owners(pack)
    by_item: dict[str, list[Problem]] = {}
    general: list[Problem] = []
    for problem in result.problems:
        owner = _owner(owners, problem)
        (by_item.setdefault(owner, []) if owner else general).append(problem)
    pdfs = sorted(p.name for p in folder.glob("*.pdf"))
    sections = [_language(pack, lang, faces, by_item, folder) for lang, faces in result.faces.items()]
    total = sum(len(faces) for faces in result.faces.values())
    body = "\n".join([
        f"<header><h1>{_e(pack.name[pack.languages[0]])}</h1>",
        "<nav>" + " ".join(f'<a class="pdf" href="{_e(name)}">{_e(name)}</a>' for name in pdfs)
        + (" " + " ".join(f'<a href="#lang-{_e(lang)}">{_e(lang)}</a>' for lang in result.faces) if len(result.faces) > 1 else "")
        + "</nav>",
        '<p class="controls"><label>size <input id="zoom" type="range" min="1" max="8" step="0.5" value="2.5"></label> '
        '<label><input id="lines" type="checkbox"> trim and safe lines</label> '
        f'<span id="status">{total} faces</span></p>',
        _warnings(general), '<div id="problems" hidden></div></header>',
        *sections,
    ])
    title = _e(f"{pack.name[pack.languages[0]]} · {total} faces")
    build = hashlib.sha256(f"{title}\n{body}".encode()).hexdigest()[:16]  # what the page shows
    page = PAGE.replace("@BUILD@", build).replace("@TITLE@", title).replace("@BODY@", body)  # the pack's text last
    path = folder / "index.html"
    path.write_text(page, encoding="utf-8")
    return path


def build_id(folder: Path) -> str:
    """The build fingerprint written into folder/index.html, or '' if there is none."""
    try:
        match = _BUILD_META.search((folder / "index.html").read_bytes()[:4096])
    except OSError:
        return ""
    return match.group(1).decode() if match else ""


def waiting_page(title: str) -> str:
    """What watch --serve shows before the pack has ever built: the problems, live."""
    body = f'<header><h1>{_e(title)}</h1><p id="status">no successful build yet</p><div id="problems" hidden></div></header>'
    return PAGE.replace("@BUILD@", "").replace("@TITLE@", _e(title)).replace("@BODY@", body)


# ---------------------------------------------------------------- sections


def _language(pack: Pack, lang: str, faces: list[Face], by_item: dict[str, list[Problem]], folder: Path) -> str:
    items: dict[tuple[str, str], dict[str, Face]] = {}
    for face in faces:
        items.setdefault((face.group, face.item), {})[face.side] = face
    parts = [f'<section id="lang-{_e(lang)}"><h2>{_e(lang)}</h2>']
    for group in pack.groups.values():
        members = [(item, items[(group.name, item.id)]) for item in group.items if (group.name, item.id) in items]
        if not members:
            continue
        w, h = group.size
        designs = f"{len(members)} design{'s' if len(members) != 1 else ''}"
        parts.append(f'<h3>{_e(group.name)} <small>{_e(group.kind)} · {w:g}×{h:g} mm · '
                     f'{designs} · {group.total} printed</small></h3><div class="grid">')
        for item, sides in members:
            parts.append(_figure(pack, lang, item, sides, by_item.get(item.id, []), folder))
        parts.append("</div>")
    parts.append("</section>")
    return "\n".join(parts)


def _figure(pack: Pack, lang: str, item: Item, sides: dict[str, Face], problems: list[Problem], folder: Path) -> str:
    images = "".join(_image(pack, lang, face, folder) for side in ("front", "back") if (face := sides.get(side)))
    notes = "".join(f'<li class="{p.level}">{_e(p.level)}: {_e(p.message)} <small>{_e(str(p.where))} [{_e(p.rule)}]</small></li>'
                    for p in problems)
    count = f' <span class="count">×{item.count}</span>'
    return (f'<figure class="item" id="{_e(lang)}-{_e(item.id)}" data-id="{_e(item.id)}" data-count="{item.count}">'
            f'<div class="sides">{images}</div><figcaption><b>{_e(item.id)}</b>{count}'
            f'{f"<ul>{notes}</ul>" if notes else ""}</figcaption></figure>')


def _image(pack: Pack, lang: str, face: Face, folder: Path) -> str:
    rel = f"svg/{lang}/{face.group}/{face.item}-{face.side}.svg"
    version = hashlib.sha256(face.svg.encode("utf-8")).hexdigest()[:12]
    shown = f'<img src="{_e(rel)}?v={version}" alt="{_e(face.item)} {face.side}" loading="lazy">'
    if _draws_files(face):
        rel = f"preview/{lang}/{face.group}/{face.item}-{face.side}.svg"
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(_linked_art(face.svg, pack.root, folder / ART))
        shown = f'<iframe sandbox src="{_e(rel)}?v={version}" title="{_e(face.item)} {face.side}" loading="lazy" tabindex="-1"></iframe>'
    fw, fh = face.full_size
    trim, safe = _inset(face.bleed, fw, fh), _inset(face.bleed + pack.print.safe, fw, fh)
    return (f'<a class="face {face.side}" href="{_e(rel)}" target="_blank" style="--w:{fw:.2f};--h:{fh:.2f}" '
            f'title="{_e(face.item)} ({face.side})" data-face="{_e(lang)}/{_e(face.group)}/{_e(face.item)}/{face.side}">'
            f'{shown}'
            f'<i class="trim" style="{trim}"></i><i class="safe" style="{safe}"></i><span class="side">{face.side}</span></a>')


def _inset(d: float, w: float, h: float) -> str:
    """CSS placing a box d mm inside a face of w x h mm, in percentages so it follows the zoom."""
    x, y = 100 * d / w, 100 * d / h
    return f"left:{x:.3f}%;right:{x:.3f}%;top:{y:.3f}%;bottom:{y:.3f}%"


def _draws_files(face: Face) -> bool:
    ops = getattr(face.drawing, "ops", ())
    return any(op[0] == "image" and isinstance(op[1], str) for op in ops)


ART = "preview/art"  # the pack's image files, one copy each, that preview copies of faces link to


def _linked_art(svg: str, root: Path, art: Path) -> bytes:
    """The SVG with every <image> that names a file of the pack linking to one copy of the file in
    `art`, made once per build however many faces draw it (a 48 MB picture on 32 cards is 48 MB,
    not 2 GB). An <img> would not load the linked files, so the page shows these copies in a
    sandboxed frame (no scripts), sized to the frame as an <img> would be."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True)
    tree = etree.fromstring(svg.encode("utf-8"), parser)
    tree.set("width", "100%")
    tree.set("height", "100%")
    for el in tree.iter("{http://www.w3.org/2000/svg}image"):
        for attr in ("href", _XLINK):
            href = el.get(attr)
            if not href or href.startswith("data:"):
                continue
            try:  # found again the way the build found it (paths.image_file): nothing outside the pack
                found = paths.image_file(root, href)
            except (OSError, ValueError):  # ValueError: paths.Outside
                found = None
            if found is None:
                continue  # compiling the face has reported it
            source = Path(found)
            with open(source, "rb") as f:
                suffix = ".png" if f.read(4) == b"\x89PNG" else ".jpg"
            name = hashlib.sha256(str(source).encode("utf-8")).hexdigest()[:16] + suffix
            if not (art / name).exists():
                art.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, art / name)
            el.set(attr, f"../../art/{name}")  # from preview/<lang>/<group>/
    return etree.tostring(tree, xml_declaration=True, encoding="UTF-8")


# ---------------------------------------------------------------- problems


def _owners(pack: Pack) -> dict[str, list[tuple[int, int, str]]]:
    """Per file, the line span of every item: from its first line to the last line it is known to use."""
    spans: dict[str, list[tuple[int, int, str]]] = {}
    for item in pack.items():
        lines = [item.where.line] + [w.line for w in item.field_where.values() if w.file == item.where.file]
        spans.setdefault(item.where.file, []).append((item.where.line, max(lines), item.id))
    return spans


def _owner(owners: dict[str, list[tuple[int, int, str]]], problem: Problem) -> str | None:
    for first, last, item_id in owners.get(problem.where.file, ()):
        if first <= problem.where.line <= last:
            return item_id
    return None


def _warnings(problems: list[Problem]) -> str:
    if not problems:
        return ""
    rows = "".join(f'<li class="{p.level}">{_e(str(p))}</li>' for p in problems)
    return f'<ul class="general">{rows}</ul>'


def _e(text: str) -> str:
    return html.escape(str(text), quote=True)


# ---------------------------------------------------------------- the page

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="pnpkit-build" content="@BUILD@">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>@TITLE@</title>
<style>
:root { --mm: 2.5px; font-family: "DejaVu Sans", sans-serif; color: #222; background: #eceae4; }
body { margin: 0 1.5rem 3rem; }
header { position: sticky; top: 0; background: #eceae4ee; padding: .5rem 0; z-index: 2; border-bottom: 1px solid #ccc; }
h1 { font-size: 1.3rem; margin: .3rem 0; } h2 { margin-top: 1.5rem; } h3 small { font-weight: normal; color: #666; }
nav a.pdf { display: inline-block; margin-right: .8rem; padding: .2rem .6rem; background: #3b2f5c; color: #fff; border-radius: 4px; text-decoration: none; }
.controls { font-size: .85rem; color: #444; } .controls label { margin-right: 1rem; }
.grid { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
figure.item { margin: 0; padding: .4rem; background: #fff; border-radius: 6px; box-shadow: 0 1px 3px #0002; }
.sides { display: flex; gap: .4rem; }
a.face { position: relative; display: block; width: calc(var(--w) * var(--mm)); height: calc(var(--h) * var(--mm)); }
a.face img, a.face iframe { width: 100%; height: 100%; display: block; border: 0; }
a.face iframe { pointer-events: none; }
a.face img.failed { outline: 3px solid #c00; }
a.face i { position: absolute; display: none; pointer-events: none; }
body.lines a.face i.trim { display: block; border: 1px dashed #d00; }
body.lines a.face i.safe { display: block; border: 1px dotted #06c; }
a.face .side { position: absolute; right: 2px; bottom: 2px; font-size: 9px; background: #fffc; padding: 0 3px; border-radius: 3px; color: #555; }
figcaption { font-size: .8rem; margin-top: .3rem; max-width: 30rem; }
figcaption .count { color: #666; } figcaption ul, ul.general { margin: .3rem 0 0; padding-left: 1.1rem; }
li.warning { color: #8a5a00; } li.error { color: #b00; }
#problems { background: #b00; color: #fff; padding: .5rem 1rem; border-radius: 6px; font-family: "DejaVu Sans Mono", monospace; font-size: .8rem; white-space: pre-wrap; }
#status.stale { color: #b00; font-weight: bold; }
</style></head>
<body>
@BODY@
<script>
(function () {
  const build = document.querySelector('meta[name="pnpkit-build"]').content;
  const title = document.title, body = document.body;
  const zoom = document.getElementById('zoom'), lines = document.getElementById('lines');
  const status = document.getElementById('status'), problems = document.getElementById('problems');
  function setZoom(v) { document.documentElement.style.setProperty('--mm', v + 'px'); }
  if (zoom) {
    zoom.value = localStorage.getItem('pnpkit-zoom') || zoom.value; setZoom(zoom.value);
    zoom.addEventListener('input', () => { setZoom(zoom.value); localStorage.setItem('pnpkit-zoom', zoom.value); });
  }
  if (lines) {
    lines.checked = localStorage.getItem('pnpkit-lines') === '1'; body.classList.toggle('lines', lines.checked);
    lines.addEventListener('change', () => { body.classList.toggle('lines', lines.checked); localStorage.setItem('pnpkit-lines', lines.checked ? '1' : '0'); });
  }
  document.querySelectorAll('a.face img').forEach(img => img.addEventListener('error', () => {
    img.classList.add('failed'); img.alt = 'your browser could not draw this SVG';
  }));
  if (!location.protocol.startsWith('http')) return;
  let base = status ? status.textContent : '';
  async function poll() {
    let delay = 500;
    try {
      const state = await (await fetch('@STATE@', {cache: 'no-store'})).json();
      if (state.build && state.build !== build) { location.reload(); return; }
      const broken = !state.ok;
      problems.hidden = !broken;
      problems.textContent = broken ? state.problems.join('\\n') : '';
      status.classList.toggle('stale', broken);
      status.textContent = base + ' · build ' + state.serial + ' at ' + state.time +
        (broken ? ' · ' + state.errors + ' error(s): showing the last good build' : '');
      document.title = (broken ? '\\u26a0 ' : '') + title + ' · build ' + state.serial;
    } catch (e) {
      if (status) status.textContent = base + ' · watch is not running';
      delay = 2000;
    }
    setTimeout(poll, delay);
  }
  poll();
})();
</script>
</body></html>
""".replace("@STATE@", STATE_URL)
