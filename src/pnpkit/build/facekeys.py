"""A face's cache key (cache.py): a hash of everything its SVG depends on, made once per face
and build from parts made once per template, group side and language; watch's long-lived cache
hands the key of an unchanged item to the next build (FaceKeys.kept)."""

from __future__ import annotations

import hashlib

import jinja2

from pnpkit.build import cachefile
from pnpkit.faces import render, sharedreads, templates, textboxes
from pnpkit.pack.model import Group, Item, Pack
from pnpkit.typeset import fonts

Parts = tuple[str, bytes, bytes, str]  # template name, pack-wide part, family hash, geometry


class FaceKeys:
    """The face keys of one build, and what they are made of (`deferred`: watch's, which keeps
    each item's key for the next build)."""

    def __init__(self, deferred: bool = False) -> None:
        self.deferred = deferred
        self.made: dict[tuple[int, str, str], _FaceKey] = {}  # this build's, by item
        self.begin(same=False)

    def begin(self, same: bool) -> None:
        """Start a build; `same`: of the pack the last one built (its keys may be taken over)."""
        # the previous build's keys, by item
        self.kept: dict[tuple[int, str, str], _FaceKey] = self.made if same else {}
        self.made = {}
        self.bases: dict[tuple[str, sharedreads.Reads], bytes] = {}
        self.templates: dict[str, bytes | None] = {}
        self.reads: dict[str, sharedreads.Reads] = {}  # _shared_reads', by template
        self.contexts: dict[tuple[int, str], str] = {}  # _geometry's, by group side
        self.items: dict[tuple[int, str], str] = {}  # _context_repr's, by item and language
        self.parts: dict[tuple[int, str, str, str], Parts | None] = {}

    def key(
        self,
        pack: Pack,
        group: Group,
        item: Item,
        side: str,
        name: str,
        lang: str,
        shared: dict[str, object],
        env: jinja2.Environment,
    ) -> bytes | None:
        """Everything the face's SVG depends on, hashed; None if its template cannot be read.

        The context is the one render_face() hands the template (bar text_box, whose
        behaviour depends on the minimum font size, hashed with the pack's part)."""
        parts = self._parts(pack, group, side, name, lang, shared, env)
        if parts is None:
            return None
        _, base, source, _ = parts
        if not self.deferred:  # a one-shot build: no next build to hand the key to
            return self._digest(pack, group, item, side, lang, base, source)
        # The same item (schema keeps an unchanged item's object from load to load in watch)
        # with the same template, pack-wide part and geometry: the digest made last build.
        slot = (id(item), lang, side)
        kept = self.kept.get(slot)
        if kept is None or kept.item is not item or kept.parts != parts:
            kept = _FaceKey(item, parts, self._digest(pack, group, item, side, lang, base, source))
        self.made[slot] = kept
        return kept.digest

    def _parts(
        self,
        pack: Pack,
        group: Group,
        side: str,
        name: str,
        lang: str,
        shared: dict[str, object],
        env: jinja2.Environment,
    ) -> Parts | None:
        """What a face's key takes from outside its item, made once per group, side, template
        and language in a build: the template's name, the pack-wide part, the template family's
        hash and the geometry; None if the template cannot be read."""
        made = self.parts
        at = (id(group), side, name, lang)  # ids hold: the groups live through the build
        if at not in made:
            source = self._template_sources(env, name)
            base = self._base(pack, lang, shared, self._shared_reads(env, name))
            made[at] = (
                None if source is None else (name, base, source, self._geometry(pack, group, side))
            )
        return made[at]

    def _shared_reads(self, env: jinja2.Environment, name: str) -> sharedreads.Reads:
        """The strings and data keys template `name`'s family reads, once per build."""
        reads = self.reads
        if name not in reads:
            try:
                reads[name] = templates.shared_reads(env, name)
            except jinja2.TemplateError:  # its key is None (_template_sources): never kept
                reads[name] = sharedreads.EVERYTHING
        return reads[name]

    def _digest(
        self, pack: Pack, group: Group, item: Item, side: str, lang: str, base: bytes, source: bytes
    ) -> bytes:
        """The face's key made afresh from the pack-wide part, the template family and the
        face's context."""
        h = hashlib.sha256(base)
        h.update(source)
        h.update(self._context_repr(pack, group, item, side, lang).encode())
        return h.digest()

    def _context_repr(self, pack: Pack, group: Group, item: Item, side: str, lang: str) -> str:
        """repr(render.face_context(...)), its two parts made once per item and per group side
        (a card's front and back see the same item; a group's faces, the same geometry)."""
        memo = self.items
        item_key = (id(item), lang)
        if item_key not in memo:  # ids hold: the pack's groups and items live through the build
            memo[item_key] = repr(render.item_values(item, lang))
        return f"{{'item': {memo[item_key]}, 'face': {self._geometry(pack, group, side)}}}"

    def _geometry(self, pack: Pack, group: Group, side: str) -> str:
        """repr(render.face_geometry(...)), made once per group side and build."""
        memo = self.contexts
        if (id(group), side) not in memo:
            memo[id(group), side] = repr(render.face_geometry(pack, group, side))
        return memo[id(group), side]

    def _base(
        self, pack: Pack, lang: str, shared: dict[str, object], reads: sharedreads.Reads
    ) -> bytes:
        """The pack-wide part of a face's inputs in one language, of the strings and data only
        what its templates read (`reads`), hashed once per build."""
        bases = self.bases
        if (lang, reads) not in bases:
            h = hashlib.sha256(cachefile.engine())
            for part in (
                {k: v for k, v in shared.items() if k not in sharedreads.TABLES},
                sharedreads.values(shared, reads),
                pack.print.min_font_pt,
                fonts.signature(),
                sorted(textboxes.icon_files(pack)),
            ):
                h.update(repr(part).encode() + b"\0")
            if pack.rules_file is not None:  # it may register template functions
                h.update(cachefile._file_bytes(pack.rules_file))
            bases[lang, reads] = h.digest()
        return bases[lang, reads]

    def _template_sources(self, env: jinja2.Environment, name: str) -> bytes | None:
        """The file names and sources of a template and every template it uses (all of them
        when it names one by a variable), hashed; None if one cannot be read or parsed."""
        sources = self.templates
        if name not in sources:
            try:
                family = templates.template_family(env, name)
            except jinja2.TemplateError:
                sources[name] = None
            else:
                sources[name] = _family_hash(family)
        return sources[name]


class _FaceKey:
    """A face's key (FaceKeys.key) and what it was made from: the item (held, so its id stays
    its own), the template's name, the pack-wide part, the template family's hash, the geometry.
    A plain class, not a dataclass: making one compiles its methods at import, which every
    one-shot build would pay for (about a million instructions)."""

    __slots__ = ("item", "parts", "digest")

    def __init__(self, item: Item, parts: Parts, digest: bytes) -> None:
        self.item, self.parts, self.digest = item, parts, digest


def _family_hash(family: list[tuple[str, str, str]]) -> bytes:
    """A hash of a template family's names, files and sources (templates.template_family)."""
    h = hashlib.sha256()
    for current, filename, source in family:
        h.update(f"{current}\0{filename}\0{source}\0".encode())
    return h.digest()
