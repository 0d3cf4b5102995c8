"""One `pnpkit studio` session: the watcher that rebuilds the pack, the token that lets the page
write, the undo journal, and every answer the studio's server gives (studioserver.py).

What the page may do goes through here and nowhere else: read the last good build's faces and an
item's sources, write an edit into the pack (writeback.py does the writing and keeps each file
whole), undo the session's edits, and draw a face with a template's unsaved text
(templatepreview.py). An edit is written only while no build reads the pack: the session's own
builds hold `StudioWatcher.busy` (so an edit waits for the one running), and another process's
build holds the output folder (writeback.output_free), which an edit then refuses to wait for.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnpkit.build.pipeline import Code
from pnpkit.checks import trust
from pnpkit.commands.watch import Build, Watcher
from pnpkit.edit import locate, sources, writeback
from pnpkit.faces import templatepreview
from pnpkit.pack import paths

if TYPE_CHECKING:
    from pnpkit.build.pipeline import Result
    from pnpkit.errors import Problem
    from pnpkit.pack.model import Pack

BUSY_WAIT = 30.0  # seconds an edit waits for the studio's own build to finish


class Refused(Exception):
    """A request the studio will not do: the message for the page, and the HTTP status."""

    def __init__(self, message: str, status: int = 400, more: dict[str, Any] | None = None):
        super().__init__(message)
        self.message, self.status, self.more = message, status, more or {}


class StudioWatcher(Watcher):
    """A Watcher whose builds, and whatever else of it holds the output folder (tidying up,
    linking a spare kit), hold `busy`; and which keeps its last good build apart."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.busy = threading.Lock()
        self.good: Build | None = None

    def _attempt(self, ready: Callable[[], bool] | None = None) -> tuple[Result | None, str, float]:
        with self.busy:
            return super()._attempt(ready)

    def tidy(self, spare: bool = True) -> None:
        with self.busy:  # it holds the output folder a moment, as a build does
            super().tidy(spare)

    def link_spare(self) -> None:
        with self.busy:
            super().link_spare()

    def _keep(self, result: Result | None, crash: str, seconds: float) -> Build:
        kept = super()._keep(result, crash, seconds)
        if kept.ok:
            self.good = kept
        return kept


def problem_json(p: Problem) -> dict[str, Any]:
    """A problem as the page shows it: the located line, and its parts to place it by."""
    w = p.where
    return {
        "text": str(p),
        "where": str(w),
        "file": w.file,
        "line": w.line,
        "column": w.column,
        "sheet": w.sheet,
        "level": p.level,
        "message": p.message,
        "rule": p.rule,
    }


class Studio:
    """The session: its watcher, its token and what the page asks of it."""

    def __init__(self, watcher: StudioWatcher) -> None:
        self.watcher = watcher
        self.token = secrets.token_urlsafe(32)  # the page gets it; any write must send it back
        self.journal = writeback.Journal()  # this session's edits, for undo
        self._faces: tuple[int, dict[str, Any]] | None = None  # by the good build's serial
        self._problems: tuple[int, list[dict[str, Any]]] = (0, [])  # by the last build's serial

    # ------------------------------------------------------------ reading

    def state(self, have: str = "") -> dict[str, Any]:
        """What the page polls: the last build, whether it is good, and its problems, unless the
        page `have`s them already (it names the build it has them from)."""
        last, good = self.watcher.last, self.watcher.good
        serial = last.serial if last else 0
        return {
            "serial": serial,
            "good": good.serial if good else 0,
            "ok": bool(last and last.ok),
            "problems": [] if have == str(serial) else self._problems_of(last),
            "time": last.finished if last else "",
            "seconds": round(last.seconds, 3) if last else 0,
            "undo": len(self.journal.edits),
        }

    def _problems_of(self, last: Build | None) -> list[dict[str, Any]]:
        """The build's problems as the page shows them, made once a build (the page polls)."""
        if last is None:
            return []
        if self._problems[0] != last.serial:
            found = last.result.problems if last.result else []
            crash = [{"text": last.crash, "where": "", "place": "", "line": 0}]
            made = [self.problem_json(p) for p in found] + (crash if last.crash else [])
            self._problems = (last.serial, made)
        return self._problems[1]

    def site(self) -> Path:
        """The folder the last good build wrote (its SVGs and PDFs are served from it)."""
        good = self.watcher.good
        return good.site if good else self.watcher.out / self.watcher.pack.name

    def faces(self) -> dict[str, Any]:
        """Every face of the last good build, by language and group, with its image's URL."""
        good = self.watcher.good
        if good is None or good.result is None or good.result.pack is None:
            return {"serial": 0, "name": self.watcher.pack.name, "pdfs": [], "langs": []}
        if self._faces is not None and self._faces[0] == good.serial:
            return self._faces[1]
        made = _faces_json(good.result, good.result.pack, self.site())
        made["serial"] = good.serial
        self._faces = (good.serial, made)
        return made

    def good_pack(self) -> tuple[Pack, Result]:
        good = self.watcher.good
        if good is None or good.result is None or good.result.pack is None:
            raise Refused("the pack has not built yet: fix the problems listed first", 409)
        return good.result.pack, good.result

    # ------------------------------------------------------------ templates

    def template(self, group: str, item: str, side: str) -> dict[str, Any]:
        """The text of the template that draws a face, its file, and whether it may be saved."""
        pack, result = self.good_pack()
        name = _template_name(pack, group, item, side)
        file = templatepreview.template_file(pack, result.registry, name)
        if file is None:
            raise Refused(f"template '{name}' cannot be read", 404)
        (root,) = paths.pack_roots(self.watcher.pack)
        real = paths.inside(Path(file), (root,))
        return {
            "name": name,
            "file": str(real.relative_to(root)) if real else file,
            "text": Path(file).read_text(encoding="utf-8"),
            "writable": real is not None,
            "why": "" if real else "this template lies outside the pack: edit it in your editor",
        }

    def draw(self, request: dict[str, Any]) -> dict[str, Any]:
        """The face drawn with a template's unsaved text, and the problems at their lines."""
        pack, result = self.good_pack()
        lang, group, item, side = (_text(request, k) for k in ("lang", "group", "item", "side"))
        name, text = _text(request, "name"), _text(request, "text")
        if len(text) > templatepreview.MAX_TEXT:
            raise Refused("the template is too long to preview", 413)
        # the pack's trust as the watcher's builds have it (build.validate's default)
        code = self.watcher.code or Code(trust.is_trusted(self.watcher.pack))
        drawn = templatepreview.draw(
            pack,
            result.registry,
            (code.trusted, code.seconds),
            (lang, group, item, side),
            name,
            text,
        )
        return {
            "svg": drawn.svg,
            "problems": [{**problem_json(p), "at": line} for line, p in drawn.problems],
        }

    # ------------------------------------------------------------ writing

    def sources(self, query: dict[str, str]) -> dict[str, Any]:
        """An item's sources (sources.py): each value with its place, for the page's form."""
        pack, result = self.good_pack()
        last = self.watcher.last  # its problems: those of the pack now, even a broken one
        problems = last.result.problems if last and last.result else result.problems
        group, item = query.get("group", ""), query.get("item", "")
        try:
            info = sources.sources(pack, group, item, problems)
        except sources.Refused as exc:
            raise Refused(str(exc), 404) from None
        return {
            "group": group,
            "item": item,
            "lang": query.get("lang", ""),
            "place": info.file,
            "kind": info.kind,
            "fields": [_value_json(v) for v in info.fields],
            "count": _value_json(info.count),
            "defaults": [_value_json(v) for v in info.defaults],
            "templates": [
                {"side": t.side, "name": t.name, "file": t.path, "place": t.place}
                for t in info.templates
            ],
            "problems": [self.problem_json(p) for p in info.problems],
        }

    def problem_json(self, p: Problem) -> dict[str, Any]:
        """problem_json(), with the place as the page's fields have theirs (pack-relative)."""
        return {**problem_json(p), "place": locate.place(self.watcher.pack, p.where)}

    def edit(self, request: dict[str, Any]) -> dict[str, Any]:
        """Write one edit of an item into the pack: set a field or the count, add, duplicate or
        remove an item; recorded for undo."""
        pack, _ = self.good_pack()
        op, group, item = (_text(request, k) for k in ("op", "group", "item"))
        new_id = request.get("new_id") or None
        if new_id is not None and not isinstance(new_id, str):
            raise Refused("the new id is not text")
        changes: dict[str, Callable[[], writeback.Edit]] = {
            "set": lambda: writeback.set_value(
                pack, group, item, _text(request, "field"), _text(request, "value")
            ),
            "count": lambda: writeback.set_count(pack, group, item, _text(request, "value")),
            "add": lambda: writeback.add_item(pack, group, new_id, after=item),
            "duplicate": lambda: writeback.duplicate_item(pack, group, item, new_id),
            "remove": lambda: writeback.remove_item(pack, group, item),
        }
        if op not in changes:
            raise Refused(f"no such edit: {op}")
        made = self._write(changes[op], record=True)
        return self._written(made, new_id if op in ("add", "duplicate") else None)

    def undo(self, request: dict[str, Any]) -> dict[str, Any]:
        """Put the file of the session's last edit back as it was, byte for byte."""
        return self._written(self._write(lambda: self.journal.undo(self.watcher.pack)))

    def save_template(self, request: dict[str, Any]) -> dict[str, Any]:
        """Write a template's text (the pane's) to its file, which must lie inside the pack."""
        pack, result = self.good_pack()
        name, text = _text(request, "name"), _text(request, "text")
        file = templatepreview.template_file(pack, result.registry, name)
        if file is None or paths.inside(Path(file), paths.pack_roots(self.watcher.pack)) is None:
            raise Refused(f"template '{name}' is not a file of the pack: edit it in your editor")

        # only the pack's own: the shared templates/ beside components/ serves other packs too
        made = self._write(lambda: writeback.set_template(pack, name, text), record=True)
        return self._written(made)

    def _write(self, change: Callable[[], writeback.Edit], record: bool = False) -> writeback.Edit:
        """Make one change to the pack's files while no build reads them (and no other edit
        runs: the journal keeps the edits in the order they were written)."""
        with self.writing():
            try:
                made = change()
            except sources.Refused as exc:
                problem = exc.problem and self.problem_json(exc.problem)
                raise Refused(str(exc), 422, {"problem": problem} if problem else {}) from None
            if record:
                self.journal.record(made)
            return made

    def _written(self, made: writeback.Edit, item: str | None = None) -> dict[str, Any]:
        last = self.watcher.last
        return {
            "file": locate.relative(self.watcher.pack, made.file),
            "what": made.what,
            "serial": last.serial if last else 0,
            "item": item,
            "undo": len(self.journal.edits),
        }

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the pack for an edit: after the studio's own build (which holds `busy`), and
        never while another build holds the output folder (writeback.output_free)."""
        if not self.watcher.busy.acquire(timeout=BUSY_WAIT):
            raise Refused("the studio is still building; try again in a moment", 409)
        try:
            try:
                with writeback.output_free(self.watcher.out, timeout=0):
                    yield
            except sources.Refused as exc:
                raise Refused(str(exc), 409) from None
        finally:
            self.watcher.busy.release()


def _value_json(v: sources.Value) -> dict[str, Any]:
    """A value as the page's form shows it: its text, its place, whether it may be edited."""
    return {
        "name": v.field,
        "value": _shown(v.value),
        "place": v.place,
        "writable": v.editable,
        "why": v.why,
        "origin": v.origin,  # item, defaults, declared, or "" (not written: count 1)
    }


def _shown(value: Any) -> str:
    """A value as the text a form field holds ('' when not written)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return "; ".join(
            _shown(v) for v in value
        )  # a list as a sheet's cell (and writeback) has it
    return json.dumps(value, ensure_ascii=False)


def _template_name(pack: Pack, group: str, item: str, side: str) -> str:
    g = pack.groups.get(group)
    found = next((i for i in g.items if i.id == item), None) if g else None
    if found is None or side not in found.templates:
        raise Refused(f"no face {group}/{item}/{side} in the last good build", 404)
    return found.templates[side]


def _text(request: dict[str, Any], key: str) -> str:
    value = request.get(key)
    if not isinstance(value, str):
        raise Refused(f"the request has no text '{key}'")
    return value


def _faces_json(result: Result, pack: Pack, site: Path) -> dict[str, Any]:
    """The gallery the page draws: per language, per group, each item's faces."""
    # a face that draws the pack's art is shown from the preview's copy, which links to the
    # art, in a sandboxed frame (preview.py): an image would not load the art
    copies = _preview_copies(site / "preview")
    langs = []
    for lang, faces in result.faces.items():
        items: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for face in faces:
            fw, fh = face.full_size
            name = f"{lang}/{face.group}/{face.item}-{face.side}.svg"
            framed = name in copies
            version = hashlib.sha1(face.svg.encode("utf-8")).hexdigest()[:12]
            items.setdefault((face.group, face.item), []).append(
                {
                    "side": face.side,
                    "src": f"{'preview' if framed else 'svg'}/{name}?v={version}",
                    "framed": framed,
                    "w": round(fw, 2),
                    "h": round(fh, 2),
                }
            )
        groups = []
        for group in pack.groups.values():
            members = [
                {"id": i.id, "count": i.count, "faces": items[(group.name, i.id)]}
                for i in group.items
                if (group.name, i.id) in items
            ]
            if members:
                groups.append({"name": group.name, "kind": group.kind, "items": members})
        langs.append({"lang": lang, "groups": groups})
    pdfs = sorted(p.name for p in site.glob("*.pdf"))
    return {"name": pack.name[pack.languages[0]], "pdfs": pdfs, "langs": langs}


def _preview_copies(folder: Path) -> set[str]:
    """The preview's copies of faces (preview/<lang>/<group>/<item>-<side>.svg), by the path below
    the folder: listed once, not looked for face by face (2,000 looks took 0.1 s)."""
    found: set[str] = set()
    for dirpath, _, filenames in os.walk(folder):
        below = os.path.relpath(dirpath, folder).replace(os.sep, "/")
        found.update(f"{below}/{name}" for name in filenames if name.endswith(".svg"))
    return found
