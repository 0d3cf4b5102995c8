"""One `pnpkit studio` session: the watcher that rebuilds the pack, the token that lets the page
write, the undo journal, and every answer the studio's server gives (studioserver.py).

What the page may do goes through here and nowhere else: read the last good build's faces and an
item's sources, write an edit into the pack (writeback.py does the writing and keeps each file
whole), undo the session's edits, and draw a face with a template's unsaved text
(templatepreview.py). An edit is written only while no build reads the pack: the session's own
builds hold `Studio.busy` (so an edit waits for the one running), and another process's build
holds the output folder (output.locked), which an edit then refuses to wait for.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnpkit import output, templatepreview, trust
from pnpkit.build import Code
from pnpkit.watch import Build, Watcher

if TYPE_CHECKING:
    from pnpkit.build import Result
    from pnpkit.errors import Problem
    from pnpkit.model import Pack

BUSY_WAIT = 30.0  # seconds an edit waits for the studio's own build to finish


class Refused(Exception):
    """A request the studio will not do: the message for the page, and the HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message, self.status = message, status


class StudioWatcher(Watcher):
    """A Watcher whose builds hold `busy`, and which keeps its last good build apart."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.busy = threading.Lock()
        self.good: Build | None = None
        self.built = threading.Condition()  # notified after every build (the benchmark waits)

    def _attempt(self, ready: Callable[[], bool] | None = None) -> tuple[Result | None, str, float]:
        with self.busy:
            return super()._attempt(ready)

    def _keep(self, result: Result | None, crash: str, seconds: float) -> Build:
        kept = super()._keep(result, crash, seconds)
        with self.built:
            if kept.ok:
                self.good = kept
            self.built.notify_all()
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

    def __init__(self, watcher: StudioWatcher, journal: Any = None) -> None:
        self.watcher = watcher
        self.token = secrets.token_urlsafe(32)  # the page gets it; any write must send it back
        self.journal = journal
        self._faces: tuple[int, dict[str, Any]] | None = None  # by the good build's serial

    # ------------------------------------------------------------ reading

    def state(self) -> dict[str, Any]:
        """What the page polls: the last build, whether it is good, and its problems."""
        last, good = self.watcher.last, self.watcher.good
        problems = list(last.result.problems) if last and last.result else []
        said = last.crash if last else ""
        crash = [{"text": said, "where": "", "file": "", "line": 0}] if said else []
        return {
            "serial": last.serial if last else 0,
            "good": good.serial if good else 0,
            "ok": bool(last and last.ok),
            "problems": [problem_json(p) for p in problems] + crash,
            "time": last.finished if last else "",
            "seconds": round(last.seconds, 3) if last else 0,
            "undo": self._undoable(),
        }

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
        inside = _inside(self.watcher.pack, Path(file))
        return {
            "name": name,
            "file": str(Path(file).resolve().relative_to(self.watcher.pack.resolve()))
            if inside
            else file,
            "text": Path(file).read_text(encoding="utf-8"),
            "writable": inside,
            "why": "" if inside else "this template lies outside the pack: edit it in your editor",
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

    @contextlib.contextmanager
    def writing(self, what: str) -> Iterator[None]:
        """Hold the pack for an edit: after the studio's own build, and never while another
        build holds the output folder."""
        if not self.watcher.busy.acquire(timeout=BUSY_WAIT):
            raise Refused("the studio is still building; try again in a moment", 409)
        try:
            try:
                held = output.locked(self.watcher.out, f"studio: {what}", timeout=0)
                held.__enter__()
            except output.Busy as exc:
                raise Refused(f"not written: {exc}", 409) from None
            except OSError as exc:
                raise Refused(f"not written: {exc}", 409) from None
            try:
                yield
            finally:
                held.__exit__(None, None, None)
        finally:
            self.watcher.busy.release()

    def sources(self, query: dict[str, str]) -> dict[str, Any]:
        raise Refused("not yet", 501)

    def edit(self, request: dict[str, Any]) -> dict[str, Any]:
        raise Refused("not yet", 501)

    def undo(self, request: dict[str, Any]) -> dict[str, Any]:
        raise Refused("not yet", 501)

    def save_template(self, request: dict[str, Any]) -> dict[str, Any]:
        raise Refused("not yet", 501)

    def _undoable(self) -> int:
        return 0


def _template_name(pack: Pack, group: str, item: str, side: str) -> str:
    g = pack.groups.get(group)
    found = next((i for i in g.items if i.id == item), None) if g else None
    if found is None or side not in found.templates:
        raise Refused(f"no face {group}/{item}/{side} in the last good build", 404)
    return found.templates[side]


def _inside(root: Path, file: Path) -> bool:
    try:
        file.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def _text(request: dict[str, Any], key: str) -> str:
    value = request.get(key)
    if not isinstance(value, str):
        raise Refused(f"the request has no text '{key}'")
    return value


def _faces_json(result: Result, pack: Pack, site: Path) -> dict[str, Any]:
    """The gallery the page draws: per language, per group, each item's faces."""
    langs = []
    for lang, faces in result.faces.items():
        items: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for face in faces:
            fw, fh = face.full_size
            items.setdefault((face.group, face.item), []).append(
                {
                    "side": face.side,
                    "src": f"svg/{lang}/{face.group}/{face.item}-{face.side}.svg?v="
                    + hashlib.sha1(face.svg.encode("utf-8")).hexdigest()[:12],
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
