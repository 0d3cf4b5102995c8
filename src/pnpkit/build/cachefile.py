"""The build cache's storage (cache.py): its entries, the file OUT/pnpkit-cache/<pack id>.marshal
they are saved in and read from, a part at a time, the text checks' findings in a file of their
own, and the temporary files a large build keeps its drawings' rows and its faces' SVG texts in
(_Spill) until they are saved or read back.
"""

from __future__ import annotations

import dataclasses
import hashlib
import marshal
import os
import re
import sys
import tempfile
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, BinaryIO, cast

import jinja2
import lxml.etree
import PIL
import reportlab
import uharfbuzz
import yaml

from pnpkit import memo, workspace
from pnpkit.pack.model import Face
from pnpkit.pdf.forms import form_name

FORMAT = b"pnpkit-cache 4\n"  # 3: drawing ops stored as op_row() rows; 4: in parts
KEEP = 20  # builds an unused entry survives (other languages, --paper variants, undo)
MAX_ROWS = 1 << 26  # bytes a drawing's packed rows may inflate to (a deck's: 9 kB)

# [generation, *what the entry keeps]: a list, so that using it renews it in place. It holds
# plain data for marshal, so its parts are narrowed with isinstance() where they are read.
Entry = list[object]
Dep = tuple[str | None, str | None]  # a file an SVG draws: (resolved path, hash of its content)
Dep3 = tuple[str, str | None, str | None]  # and the href that named it, as an entry keeps it


@workspace.memoized(1)
def engine() -> bytes:
    """A hash of what turns the same inputs into different output: pnpkit's code and fonts,
    the Python and library versions. Computed once per process, i.e. of the code it runs."""
    h = hashlib.sha256(sys.version.encode())
    for name, version in library_versions():
        h.update(f"{name} {version}".encode())
    package = Path(__file__).resolve().parent.parent
    for path in _package_files(package):
        h.update(path.relative_to(package).as_posix().encode())
        h.update(path.read_bytes())
    return h.digest()


def library_versions() -> list[tuple[str, str]]:
    """(distribution, version) of each library that shapes the output, as the modules that the
    build imports anyway say it (their code is what runs): importlib.metadata.version() cost
    every command the import of importlib.metadata (email, zipfile, csv, socket...: 30-40 ms)
    and 10 ms of lookups."""
    return [
        ("jinja2", jinja2.__version__),
        ("lxml", lxml.etree.__version__),
        ("reportlab", reportlab.Version),
        ("pyyaml", yaml.__version__),
        ("uharfbuzz", uharfbuzz.__version__),
        ("pillow", PIL.__version__),  # ReportLab encodes a form's images through it
        ("zlib", zlib.ZLIB_RUNTIME_VERSION),  # every stream of a kept form is compressed by it
    ]


def _package_files(package: Path) -> list[Path]:
    """Every regular file of the package but compiled bytecode, in a fixed order (os.walk:
    pathlib's rglob took 5 ms of the 100 files). os.walk lists whatever is not a folder: an
    editor's dangling lock link (Emacs' `.#cache.py`) or a FIFO is left out, not read."""
    found = []
    for folder, subfolders, files in os.walk(package):
        subfolders[:] = [s for s in subfolders if s != "__pycache__"]
        found += [path for name in files if (path := Path(folder, name)).is_file()]
    return sorted(found)


Findings = list[tuple[str, str, str]]  # (text, message, rule), as overlap.with_rules() gives them


class TextChecks:
    """Text-check findings per drawing and settings: most of a rebuild's checking otherwise.

    They live in a file of their own beside the pack's, <pack id>+texts.marshal, read when a
    build first asks and written by Cache.save(), with the same engine header and ageing."""

    SUFFIX = "+texts.marshal"  # '+': no pack id has it, so no pack's own file is this one

    def __init__(self) -> None:
        self.path: Path | None = None  # the pack cache file these entries belong to
        self.entries: dict[bytes, Entry] = {}  # key -> [generation, ((text, message, rule), ...)]
        self.checked = 0  # checks run (not served) in this process: tests count them

    def get(
        self, path: Path | None, key: bytes, generation: int, check: Callable[[], Findings]
    ) -> Findings:
        if path is not self.path and path != self.path:  # (a Path's == is slow: once a face)
            self.path, self.entries = path, _read_texts(path)
        entry = self.entries.get(key)  # sound: _read_texts() let in no other
        if entry is not None:
            entry[0] = generation
            return list(cast("tuple[tuple[str, str, str], ...]", entry[1]))
        found = check()
        self.checked += 1
        self.entries[key] = [generation, tuple(found)]
        return found

    def take(self, path: Path | None, entries: dict[bytes, Entry]) -> None:
        """Entries another process made for the pack's file at path (prewarm._take)."""
        if path is not self.path and path != self.path:
            self.path, self.entries = path, _read_texts(path)
        for key, entry in entries.items():
            self.entries.setdefault(key, entry)

    def save(self, path: Path | None, oldest: int, stop: Callable[[], bool] | None = None) -> None:
        """Drop entries unused since generation `oldest`; write the file beside path atomically
        (a failure only costs time: the texts are checked again); `stop`: see Cache.save()."""
        if path != self.path:
            return  # nothing asked for this pack's texts
        self.entries = _recent(self.entries, oldest)
        if path is None:
            return
        # a failure only costs time
        _save_marshalled(_texts_path(path), 0, [self.entries], stop)


def _sound(entry: object) -> bool:
    """Whether a text-check entry read from a file is what TextChecks.get() keeps:
    [generation, ((text, message, rule), ...)]."""
    return (
        isinstance(entry, list)
        and len(entry) == 2
        and isinstance(entry[0], int)
        and isinstance(entry[1], tuple)
        and all(_finding(f) for f in entry[1])
    )


def _finding(value: object) -> bool:
    """A (text, message, rule) triple of one-line strings, the rule one the text checks give: a
    planted file's message is printed as a warning, where a control character could move the
    terminal's cursor or fake a line."""
    return (
        isinstance(value, tuple)
        and len(value) == 3
        and all(isinstance(part, str) for part in value)
        and value[2] in _RULES
        and _CONTROL.search("".join(value)) is None
    )


_RULES = frozenset({"text", "overlap"})  # overlap.with_rules()'s


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")  # C0, DEL and C1 control characters


def _texts_path(path: Path) -> Path:
    """The text-check file beside a pack's cache file."""
    return path.with_name(path.name.removesuffix(".marshal") + TextChecks.SUFFIX)


def _read_texts(path: Path | None) -> dict[bytes, Entry]:
    """The text-check entries kept beside a pack's cache file, each checked once here (a
    damaged one is left out: its texts are checked again); none if missing or stale."""
    read = None if path is None else _load_marshalled(_texts_path(path), 1)
    return {k: v for k, v in read[1][0].items() if _sound(v)} if read is not None else {}


class _AsSaved(Mapping[bytes, Entry]):
    """A table's entries as save() writes them: each made whole from what the build kept of
    it (__getitem__), a KeyError leaving it out of the file."""

    def __init__(self, entries: dict[bytes, Entry], spill: _Spill) -> None:
        self.entries = entries
        self.spill = spill

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.entries)


class _Unspilled(_AsSaved):
    """The forms' entries as saved: a form's bytes a large build spilled are read back (an entry
    they cannot be read back for is left out: its form is drawn again)."""

    def __getitem__(self, key: bytes) -> Entry:
        entry = self.entries[key]
        if not isinstance(entry[1], Spilled):
            return entry
        try:
            return [entry[0], self.spill.read(entry[1]), *entry[2:]]
        except ValueError:
            raise KeyError(key) from None


class _Texted(_AsSaved):
    """The faces' entries as saved: a large build's hold its face (KeptFace), whose text is
    read back (an entry it cannot be read back for is left out: the face is rendered again).
    Faces alike get one string (`read`), as a build's own table shares one (_one_copy): marshal
    writes a string a part shares once, where a deck's backs read back each would be written
    each (1.2 kB a card more in the file)."""

    def __init__(self, entries: dict[bytes, Entry], spill: _Spill) -> None:
        super().__init__(entries, spill)
        self.read: dict[str, str] = {}  # texts read back, by svg_key: within a part at least

    def __getitem__(self, key: bytes) -> Entry:
        entry = self.entries[key]
        face = entry[1]
        if not isinstance(face, KeptFace):
            return entry
        text = self.read.get(face.svg_key)
        if text is None:
            try:
                text = memo.remember(self.read, face.svg_key, face.svg, PART)
            except OSError:
                raise KeyError(key) from None
        return [entry[0], text, *entry[2:]]


class KeptFace(Face):
    """A face of a large build (Cache.packed) whose SVG text waits in a temporary file once its
    drawing is compiled, checked and drawn into its form (Cache.keep_texts): the texts were a
    10,000-card deck's largest part at its peak, 4.3 kB a card. Its tables know it meanwhile
    by its form's name (svg_key: a digest of the text), and whatever asks for the text (its SVG
    file, the preview page, the cache file) reads it back. Face's fields and __init__, whose
    `self.svg = svg` sets the text through the property."""

    svg_key_is_name = True

    @property  # a field of Face: set by its __init__, read alike
    def svg(self) -> str:
        text = self._text
        if text is not None:
            return text
        assert self._store is not None and self._at is not None, "keep() wrote it"
        try:  # a damaged read fails to decode: a ValueError too
            return self._store.read(self._at).decode("utf-8")
        except ValueError as exc:
            raise OSError(f"a face's SVG kept in a temporary file is lost: {exc}") from exc

    @svg.setter
    def svg(self, text: str) -> None:
        self._text: str | None = text
        self._name = form_name(text)
        self._store: _Spill | None = None
        self._at: Spilled | None = None

    @property
    def svg_key(self) -> str:
        return self._name

    def keep(self, store: _Spill, written: dict[str, Spilled]) -> None:
        """Write the text to store (unless `written` says where a text alike is) and let it go;
        where there is no file, it stays."""
        text = self._text
        if text is None:
            return
        at = written.get(self._name)
        if at is None:
            kept = store.keep(text.encode("utf-8"))
            if not isinstance(kept, Spilled):
                return
            at = memo.remember(written, self._name, kept, TEXTS_KEPT)
        self._store, self._at, self._text = store, at, None


TEXTS_KEPT = 256  # SVGs whose place in the file keep_texts() remembers; more, and it starts afresh
# Face's fields in order, which Cache._kept() copies into a KeptFace (named each time, 4 us more)
_FACE_FIELDS = tuple(f.name for f in dataclasses.fields(Face))


class _ReadBack:
    """What reads a spilled form's bytes when its PDF is saved. The PDF cannot be written
    without them: a spill file that cannot give them back (closed, or unreadable) fails the
    build as a full disk does (OSError), where lost rows of a drawing only cost a compile. An
    object of two slots, not a closure: one per form of a large build, held until its PDF is
    saved (a closure and its cells took 0.25 kB a card more at the peak)."""

    __slots__ = ("spill", "spilled")

    def __init__(self, spill: _Spill, spilled: Spilled) -> None:
        self.spill, self.spilled = spill, spilled

    def __call__(self) -> bytes:
        try:
            return self.spill.read(self.spilled)
        except ValueError as exc:
            raise OSError(f"a PDF form kept in a temporary file is lost: {exc}") from exc


class Spilled:
    """Where _Spill keeps some bytes (in its file, or waiting for it). Not a tuple: marshal
    refuses it, so an entry holding one is never saved as it is by mistake."""

    __slots__ = ("at", "size")

    def __init__(self, at: int, size: int) -> None:
        self.at, self.size = at, size


class _Spill:
    """Bytes a large build keeps on disk: its drawings' packed rows (2.8 kB a card) and forms'
    bytes until the cache is saved (the rows are read only by save(): a drawing made twice in
    a build is taken from the build's memo), and in a file of their own its faces' SVG texts
    (KeptFace); holding them in memory made every card's share of the peak larger. An unnamed
    temporary file (TMPDIR's: the cache's folder may not exist before the build ends well),
    gone with the cache (the texts' file, with the last face that reads it).

    Nothing kept is ever lost: the bytes not yet written wait in `waiting` (written BUFFER at a
    time), and where a write fails (TMPDIR full) they stay there, with any later bytes kept in
    memory (keep() returns them), so the build goes on as one without a file would. The file
    is read with pread, which leaves its position alone: any process sharing it (a forked
    child) reads it safely."""

    BUFFER = 1 << 20  # bytes written at a time: a write call per drawing cost 1 %

    def __init__(self) -> None:
        self.file: IO[bytes] | None = None
        self.written = 0  # the file holds the bytes kept at [0, written)
        self.waiting = bytearray()  # and those kept after them, not written
        self.full = False  # no file could be made, or a write failed: no more are tried
        self.closed = False  # close(): nothing it held is read back

    def keep(self, data: bytes) -> bytes | Spilled:
        """Where data is kept: in the file (or waiting for it), or data itself when there is
        no file."""
        if self.file is None and not (self.full or self.closed):
            try:
                self.file = tempfile.TemporaryFile(buffering=0)
            except OSError:
                self.full = True
        if self.file is None or self.full or self.closed:
            return data
        spilled = Spilled(self.written + len(self.waiting), len(data))
        self.waiting += data
        if len(self.waiting) >= self.BUFFER:
            self._write()
        return spilled

    def _write(self) -> None:
        """Write what waits; where the disk refuses some, it waits on, and no more is tried."""
        assert self.file is not None
        try:
            while self.waiting:
                done = os.pwrite(self.file.fileno(), self.waiting, self.written)
                if done <= 0:
                    raise OSError("nothing written")
                self.written += done
                del self.waiting[:done]
        except OSError:
            self.full = True

    def read(self, spilled: Spilled) -> bytes:
        """The bytes keep() kept (ValueError when they cannot be read: after close(), or the
        file cannot be read)."""
        if self.closed or self.file is None:
            raise ValueError("the spill file is closed")
        at, end = spilled.at, spilled.at + spilled.size
        on_disk = min(end, self.written) - at  # how much of it the file holds: maybe none
        head = self._pread(at, on_disk) if on_disk > 0 else b""
        if end <= self.written:
            return head
        return head + bytes(self.waiting[max(at - self.written, 0) : end - self.written])

    def _pread(self, at: int, size: int) -> bytes:
        assert self.file is not None
        try:
            data = os.pread(self.file.fileno(), size, at)
        except OSError as exc:
            raise ValueError(str(exc)) from exc
        if len(data) != size:
            raise ValueError("the spill file is short")
        return data

    def close(self) -> None:
        """Let the file go once the cache is saved: nothing it held is read back (an entry
        that points into it costs a compile), and any later bytes stay in memory, so they can
        never be read from a file other than the one they were written to."""
        if self.file is not None:
            self.file.close()
            self.file = None
        self.waiting = bytearray()
        self.closed = True


def _pack_rows(rows: tuple[tuple[Any, ...], ...]) -> bytes:
    """A drawing's rows as the bytes an entry keeps in a large build: marshalled, compressed
    fast (a deck's drawing: 9 kB of rows in 2.8 kB, against about 27 kB for its ops)."""
    return zlib.compress(marshal.dumps(rows), 1)


def _unpack_rows(data: bytes) -> tuple[tuple[Any, ...], ...]:
    """The rows _pack_rows() packed (a damaged entry raises ValueError, as marshal does)."""
    inflate = zlib.decompressobj()
    try:
        raw = inflate.decompress(data, MAX_ROWS)
        if inflate.unconsumed_tail:  # a planted entry that inflates without end: never inflated
            raise ValueError("a drawing's rows larger than any drawing's")
        rows = marshal.loads(raw)
    except (zlib.error, EOFError) as exc:
        raise ValueError(str(exc)) from exc
    if not isinstance(rows, tuple):
        raise ValueError("not a drawing's rows")
    return rows


def _partial(path: Path, pid: int) -> Path:
    """Where process pid writes path before it renames it into place."""
    return path.with_name(f".{path.name}.{pid}.tmp")


class _Stopped(Exception):
    """A save's `stop` said to stop: the file is left as it was."""


def _save_marshalled(
    path: Path,
    generation: int,
    tables: Sequence[Mapping[bytes, Entry]],
    stop: Callable[[], bool] | None = None,
) -> str:
    """Write the generation and the tables behind the format and engine header to path atomically,
    each table in parts of at most PART entries; why it failed, or "" when it did not. Raises
    _Stopped, the file left as it was, when `stop` (asked before each part) says so.

    In parts, because marshal makes the bytes of what it is given whole: a 10,000-card deck's
    cache is 100 MB, made at the end of the build while everything else is still held, which
    was its memory's peak. A part's bytes are a few MB."""
    tmp = _partial(path, os.getpid())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(FORMAT + engine())
            _write_part(f, (generation, len(tables)))
            for n, table in enumerate(tables):
                keys = list(table)
                for at in range(0, len(keys), PART):
                    if stop is not None and stop():
                        raise _Stopped
                    part = {k: v for k in keys[at : at + PART] if (v := table.get(k)) is not None}
                    _write_part(f, (n, part))
        os.replace(tmp, path)
        return ""
    except (OSError, ValueError) as exc:  # ValueError: marshal met a value it cannot write
        return str(exc)
    finally:
        tmp.unlink(missing_ok=True)


PART = 256  # entries marshalled at a time (a deck's drawing entry: about 10 kB)
_LENGTH = 8  # bytes of a part's length, before it


def _write_part(f: BinaryIO, value: Any) -> None:  # what marshal takes: typeshed's own type
    data = marshal.dumps(value)
    f.write(len(data).to_bytes(_LENGTH, "little"))
    f.write(data)


def _load_marshalled(path: Path, count: int) -> tuple[int, list[dict[bytes, Entry]]] | None:
    """The generation and the `count` tables _save_marshalled() wrote to path; None if it is
    missing, damaged or from another engine."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = FORMAT + engine()
    if not data.startswith(head):
        return None
    view = memoryview(data)  # parts are read where they lie, never copied out of the file
    parts, at = [], len(head)
    try:
        while at < len(data):
            size = int.from_bytes(view[at : at + _LENGTH], "little")
            at += _LENGTH
            if size <= 0 or at + size > len(data):
                return None
            parts.append(marshal.loads(view[at : at + size]))
            at += size
    except (EOFError, ValueError, TypeError):
        return None
    return _tables(parts, count)


def _tables(parts: list[object], count: int) -> tuple[int, list[dict[bytes, Entry]]] | None:
    """The generation and tables of a cache file's parts; None if they are not what
    _save_marshalled() writes."""
    first = parts[0] if parts else None
    if (
        not isinstance(first, tuple)
        or len(first) != 2
        or not isinstance(first[0], int)
        or first[1] != count
    ):
        return None
    tables: list[dict[bytes, Entry]] = [{} for _ in range(count)]
    for part in parts[1:]:
        if not (isinstance(part, tuple) and len(part) == 2 and isinstance(part[1], dict)):
            return None
        n, table = part
        if not (isinstance(n, int) and 0 <= n < count):
            return None
        tables[n].update(table)
    return first[0], tables


def _recent(entries: dict[bytes, Entry], oldest: int) -> dict[bytes, Entry]:
    """The entries used since generation `oldest`."""
    return {k: v for k, v in entries.items() if isinstance(v[0], int) and v[0] > oldest}


def _file_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _read(
    path: Path | None,
) -> tuple[int, dict[bytes, Entry], dict[bytes, Entry], dict[bytes, Entry]]:
    """A cache file's generation and entries; nothing if it is missing, damaged or from another
    engine."""
    read = None if path is None else _load_marshalled(path, 3)
    if read is None:
        return 0, {}, {}, {}
    generation, (faces, drawings, forms) = read
    return generation, _entries(faces, 3), _entries(drawings, 3), _entries(forms, 3)


def _entries(table: dict[bytes, Entry], size: int) -> dict[bytes, Entry]:
    """The entries of a table read from a file that are shaped as this module keeps them:
    [generation, ...] of `size` parts under a bytes key (the parts are checked where read)."""
    return {
        k: v
        for k, v in table.items()
        if isinstance(k, bytes) and isinstance(v, list) and len(v) == size and type(v[0]) is int
    }
