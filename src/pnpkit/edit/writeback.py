"""The studio's way back: change an item's value, count or presence in the file that holds it.

API for the studio (no web code here; `pack` is the last good Pack, the item is looked up again
in the files as they are now, see locate.py; `from pnpkit.edit import sources, writeback`):

    edit = writeback.set_value(pack, "cards", "c-07", "cost", "3")      # a form's text is typed
    edit = writeback.set_value(pack, "cards", "c-07", "title.en", "Ox")  # one language of a text
    edit = writeback.set_count(pack, "cards", "c-07", 2)
    edit = writeback.add_item(pack, "cards", "c-new", {"cost": 1})      # after the last item
    edit = writeback.duplicate_item(pack, "cards", "c-07")              # new id: c-07-copy
    edit = writeback.remove_item(pack, "cards", "c-07")
    edit = writeback.set_template(pack, "card.svg.j2", text)           # a template's new text
    journal = writeback.Journal()                                       # one per session
    journal.record(edit); ...; journal.undo(pack.root)                  # byte for byte back

Each returns an `Edit` (file, bytes before, bytes after) that is already written: to a temporary
file beside it, synced, then renamed over it, so a reader sees the old file or the new one. Each
raises `Refused` (writeback.Refused is sources.Refused) with a message for the user, before
writing anything, when:
the value is not what the schema takes (the schema's own message, `.problem` located), the file
is not inside the pack or is a link, the item is generated or lives in an ODS file (ODS_REFUSED),
or the edit cannot keep the rest of the file as it is (yamledit.py, sheetedit.py say which).

Which file kinds: YAML (yamledit.py: every other byte kept), CSV and TSV (sheetedit.py: every
other row byte-identical), XLSX (sheetedit.py: set a cell; the cell's style and every other zip
member kept; adding or removing rows is refused), ODS refused.

Never while a build writes: hold `output_free(out)` around an edit. It takes the build lock of
the output folder (output.locked) for the moment of the edit, so a build never reads half an
edit, and refuses (after `timeout` seconds) while another build holds it. A watch loop that
builds in the same process must not hold the lock while the edit runs.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pnpkit import filelimits
from pnpkit.build import output
from pnpkit.edit import sheetedit, yamledit
from pnpkit.edit.locate import COUNT_KEYS, ODS_REFUSED, Located, locate
from pnpkit.edit.locate import Refused as Refused  # re-exported: what the studio catches
from pnpkit.faces import templates as template_files
from pnpkit.pack import items, itemsource, paths
from pnpkit.pack.model import FieldSpec, Pack


@dataclass(frozen=True)
class Edit:
    """One file changed: its bytes before and after."""

    file: Path  # absolute
    before: bytes
    after: bytes
    what: str = ""  # what changed, in words
    roots: tuple[Path, ...] = ()  # where else than the pack it may be written (shared templates/)


@dataclass
class Journal:
    """The edits of one studio session, newest last; owned by the caller."""

    edits: list[Edit] = field(default_factory=list)

    def record(self, edit: Edit) -> Edit:
        self.edits.append(edit)
        return edit

    def undo(self, root: Path) -> Edit:
        """Put back the file of the last edit byte for byte; refused when that file has changed
        since the edit (saved from an editor, say), which the undo would lose."""
        if not self.edits:
            raise Refused("nothing to undo")
        edit = self.edits[-1]
        now = _read(edit.file)
        if now != edit.after:
            raise Refused(
                f"{edit.file.name} has changed since this edit ({edit.what}); "
                "undo would lose that change, so the file was left as it is"
            )
        back = Edit(edit.file, edit.after, edit.before, f"undo: {edit.what}", edit.roots)
        write(root, back)
        self.edits.pop()
        return back


@contextlib.contextmanager
def output_free(out: Path, timeout: float = 2.0) -> Iterator[None]:
    """Hold the output folder's build lock for an edit; Refused when a build holds it longer
    than timeout seconds."""
    try:
        with output.locked(out, "pnpkit studio: an edit", say=lambda _: None, timeout=timeout):
            yield
    except output.Busy:
        raise Refused(
            f"a build is writing {paths.display_path(out)}; the edit was not made (try again "
            "when it finishes)"
        ) from None


# ---------------------------------------------------------------- the edits


def set_value(pack: Pack, group: str, item_id: str, name: str, value: Any) -> Edit:
    """Set one field (or `title.en`, one language of a text; or count, per_player, id)."""
    at = locate(pack, group, item_id)
    _writable(at)
    key, _, lang = name.partition(".")
    spec = _spec(pack, at, key)
    typed = _typed(value, spec.item if lang and spec and spec.type == "list" else spec, key)
    whole, given = typed, at.raw.get(key)
    if lang:  # one language of a text: the others as written (one text for all, or each)
        others = given if isinstance(given, dict) else dict.fromkeys(pack.languages, given)
        whole = {**(others if given is not None else {}), lang: typed}
    _check(pack, at, key, whole, spec)
    if key == "id":
        _unused(pack, at, str(typed))
    what = f"{group}/{item_id}: {name} = {typed!r}"
    if at.kind == "yaml":
        sub, new = ((key, lang), typed) if lang and isinstance(given, dict) else ((key,), whole)
        return _yaml_edit(at, what, lambda t, its, i: yamledit.set_value(t, its + (i,), sub, new))
    return _bytes_edit(at, what, lambda b: sheetedit.set_cell(b, _sheet(at), name, typed))


def set_count(pack: Pack, group: str, item_id: str, count: Any) -> Edit:
    """Set the item's count (per_player when the item gives that instead)."""
    at = locate(pack, group, item_id)
    key = "per_player" if "per_player" in at.raw else "count"
    return set_value(pack, group, item_id, key, count)


def add_item(
    pack: Pack,
    group: str,
    new_id: str | None = None,
    values: dict[str, Any] | None = None,
    after: str | None = None,
) -> Edit:
    """A new item (after item `after`, else the last), its required fields given a first value
    of their type where `values` does not give one."""
    last = after or _last_id(pack, group)
    at = locate(pack, group, last)
    _writable(at)
    new_id = new_id or _fresh(pack, at, f"{at.group}-new")
    _check(pack, at, "id", new_id, None)
    _unused(pack, at, new_id)
    item: dict[str, Any] = {"id": new_id}
    fields = pack.groups[at.group].fields
    for name, given in (values or {}).items():
        spec = _spec(pack, at, name)
        item[name] = _typed(given, spec, name)
        _check(pack, at, name, item[name], spec)
    defaults = at.spec.get("defaults")
    for name, spec in fields.items():
        if spec.required and name not in item and name not in (defaults or {}):
            item[name] = _first_value(spec, new_id)
    what = f"{at.group}: add {new_id}"
    if at.kind == "yaml":
        return _yaml_edit(at, what, lambda t, its, i: yamledit.add_item(t, its, i, item))
    return _bytes_edit(at, what, lambda b: sheetedit.add_row(b, _sheet(at), item))


def duplicate_item(pack: Pack, group: str, item_id: str, new_id: str | None = None) -> Edit:
    """A copy of the item just after it, under new_id (default: a fresh `<id>-copy`)."""
    at = locate(pack, group, item_id)
    _writable(at)
    new_id = new_id or _fresh(pack, at, f"{item_id}-copy")
    _check(pack, at, "id", new_id, None)
    _unused(pack, at, new_id)
    what = f"{at.group}: duplicate {item_id} as {new_id}"
    if at.kind == "yaml":
        return _yaml_edit(at, what, lambda t, its, i: yamledit.duplicate_item(t, its, i, new_id))
    return _bytes_edit(at, what, lambda b: sheetedit.duplicate_row(b, _sheet(at), new_id))


def remove_item(pack: Pack, group: str, item_id: str) -> Edit:
    at = locate(pack, group, item_id)
    _writable(at)
    what = f"{at.group}: remove {item_id}"
    if len(at.ids) == 1:
        raise Refused("it is the group's only item; a group needs at least one")
    if at.kind == "yaml":
        return _yaml_edit(at, what, yamledit.remove_item)
    return _bytes_edit(at, what, lambda b: sheetedit.remove_row(b, _sheet(at)))


def set_template(pack: Pack, name: str, text: str) -> Edit:
    """Replace the text of the template `name` (as a group names it: "card.svg.j2",
    "mlem/objective.svg.j2") in the file a build reads it from: the pack's templates/ or the
    shared templates/ beside components/. pnpkit's own templates are refused."""
    parts = name.split("/")
    if any(part in ("", ".", "..") for part in parts) or "\\" in name:
        raise Refused(f"'{name}' is not a template's name (a path inside a templates folder)")
    found = next(
        (d / name for d in template_files.template_dirs(pack) if (d / name).is_file()), None
    )
    if found is None:
        raise Refused(f"there is no template '{name}'")
    if paths.inside(found, (template_files.BUILTIN_TEMPLATES,), itself=False):
        raise Refused(
            f"'{name}' is one of pnpkit's own templates; copy it into the pack's templates/ "
            "folder to change it"
        )
    data = text.encode("utf-8")
    if len(data) > filelimits.MAX_TEMPLATE_BYTES:
        raise Refused(f"a template holds at most {filelimits.MAX_TEMPLATE_BYTES:,} bytes")
    shared = template_files.shared_templates(pack)
    roots = (shared.parent.resolve() / shared.name,)  # as paths.template_roots takes it
    edit = Edit(found.resolve(), _read(found), data, f"template {name}", roots)
    write(pack.root, edit)
    return edit


# ---------------------------------------------------------------- values


def _spec(pack: Pack, at: Located, key: str) -> FieldSpec | None:
    fields = pack.groups[at.group].fields
    if key in fields:
        return fields[key]
    if key in COUNT_KEYS or key == "id":
        return None
    raise Refused(f"'{key}' is not a field of group '{at.group}' ({', '.join(fields)})")


def _typed(value: Any, spec: FieldSpec | None, key: str) -> Any:
    """A form's text as the field reads it (a number field gets a number); other values as
    given. What does not fit is left for the schema's check to refuse."""
    if not isinstance(value, str):
        return value
    kind = spec.type if spec is not None else ("int" if key in COUNT_KEYS else "string")
    if kind in ("int", "number"):
        try:
            return itemsource.number(value.strip())
        except itemsource.TooManyDigits:
            return value
    if kind == "bool" and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if kind == "enum" and spec is not None:
        return next((v for v in spec.values if str(v) == value.strip()), value)
    if kind == "list":
        parts = [p.strip() for p in value.split(";") if p.strip()]
        return [_typed(p, spec.item if spec else None, "") for p in parts]
    return value


def _check(pack: Pack, at: Located, key: str, value: Any, spec: FieldSpec | None) -> None:
    langs = pack.languages
    problems = items.value_problems(
        at.places, at.path + (key,), value, spec, (langs, pack.players[1])
    )
    if problems:
        raise Refused(problems[0].message, problems[0])


def _first_value(spec: FieldSpec, new_id: str) -> Any:
    """A value of the field's type for a new item: the designer changes it next."""
    if spec.type in ("int", "number"):
        return (
            spec.min
            if spec.min is not None and spec.min > 0
            else 0
            if spec.max is None or spec.max >= 0
            else spec.max
        )
    if spec.type == "bool":
        return False
    if spec.type == "enum":
        return spec.values[0] if spec.values else ""
    if spec.type == "list":
        return []
    return new_id


def _unused(pack: Pack, at: Located, new_id: str) -> None:
    taken = {i.id.casefold() for i in pack.items()} | {i.casefold() for i in at.ids}
    if new_id.casefold() in taken:
        raise Refused(f"the id '{new_id}' is taken; ids are unique in a pack")


def _fresh(pack: Pack, at: Located, base: str) -> str:
    taken = {i.id.casefold() for i in pack.items()} | {i.casefold() for i in at.ids}
    candidates = (base if n == 1 else f"{base}-{n}" for n in range(1, 10_000))
    return next(c for c in candidates if c.casefold() not in taken)


def _last_id(pack: Pack, group: str) -> str:
    listed = pack.groups[group].items if group in pack.groups else ()
    if not listed:
        raise Refused(f"group '{group}' has no item to add after")
    return listed[-1].id


def _writable(at: Located) -> None:
    if at.kind == "generated":
        where = at.doc.at((at.group, "generate"))
        raise Refused(
            f"'{at.item_id}' is made by the generator at {where}; edit its product or id "
            "pattern in the file"
        )
    if at.kind == "ods":
        raise Refused(ODS_REFUSED)


def _sheet(at: Located) -> sheetedit.Target:
    row = at.places.values[at.path].line
    return sheetedit.Target(at.file, at.kind, at.sheet, row, at.item_id)


# ---------------------------------------------------------------- files


def _yaml_edit(at: Located, what: str, op: yamledit.Op) -> Edit:
    """op on the item's YAML file (see yamledit.apply)."""
    before = _read(at.file)
    try:
        text = before.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(f"{at.file.name} is not UTF-8 text") from None
    index = at.path[2]
    change = yamledit.apply(at.file, text, at.doc, at.path[:2], index, op)
    return _bytes_edit(at, what, lambda _: change.encode("utf-8"), before)


def _bytes_edit(at: Located, what: str, change: Any, before: bytes | None = None) -> Edit:
    before = _read(at.file) if before is None else before
    edit = Edit(at.file.resolve(), before, change(before), what)
    write(at.root, edit)
    return edit


def _read(file: Path) -> bytes:
    try:
        return file.read_bytes()
    except OSError as exc:
        raise Refused(f"cannot read {file.name}: {exc.strerror or exc}") from None


def write(root: Path, edit: Edit) -> None:
    """Write edit.after over edit.file atomically: only a plain file inside the pack (or
    edit.roots), and only while it still holds edit.before."""
    file = edit.file
    try:
        real = paths.confined(file, paths.pack_roots(root) + edit.roots)
    except paths.Outside as exc:
        raise Refused(f"{exc}; the studio writes only files inside the pack") from None
    if os.path.islink(file) or real != Path(os.path.abspath(file)):
        raise Refused(
            f"{file.name} is a link (or lies through one); the studio writes only plain files"
        )
    if _read(file) != edit.before:
        raise Refused(f"{file.name} changed on disk meanwhile; nothing was written")
    mode = stat.S_IMODE(os.stat(file).st_mode)
    fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=f".{file.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(edit.after)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, file)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(file.parent)


def _sync_folder(folder: Path) -> None:
    """The rename itself made durable (where a folder can be opened: not on Windows)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
