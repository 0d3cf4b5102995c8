"""The pipeline on one screen: load -> check -> render -> compile -> impose -> write.

This is the only module that knows every stage; the core stages hand data
on and do not call each other (the plug-ins, hexes, dice and labels, reach
layout, render and rules through the registry validate() hands them). validate()
stops after layout, so it reports everything a build would (template errors,
overflowing text, missing glyphs, faces that do not fit) without writing
anything. Render and compile go through a content-keyed cache
(cache.py): build() keeps it in OUT/pnpkit-cache/, so a rebuild redoes only the
faces whose inputs changed.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import jinja2

from pnpkit import filelimits, workspace
from pnpkit.build import cacheforms, changes, earlyforms, output, preview, prewarm, svgfiles
from pnpkit.build.buildoptions import BuildOptions as BuildOptions  # re-exported
from pnpkit.build.buildoptions import Code as Code  # re-exported
from pnpkit.build.buildoptions import WatchHooks as WatchHooks  # re-exported
from pnpkit.build.cache import Cache
from pnpkit.build.cachefile import Findings
from pnpkit.checks import cvd, overlap, rules, textcheck, trust
from pnpkit.errors import Location, Problem
from pnpkit.faces import render, textplaces
from pnpkit.faces.problems import find_in_template
from pnpkit.faces.sandbox import environment
from pnpkit.faces.templates import template_family
from pnpkit.impose import layout
from pnpkit.impose.backs import mirror_axis
from pnpkit.impose.page import Page, part_names
from pnpkit.kinds.registry import Registry, default_registry
from pnpkit.kit import guide
from pnpkit.pack import paths, schema
from pnpkit.pack.loader import display_path
from pnpkit.pack.model import Face, Item, Pack, PrintOverrides
from pnpkit.pdf import calibration, foldmarks
from pnpkit.pdf import writer as pdf
from pnpkit.svg import compiler as svgdraw
from pnpkit.svg.drawing import Drawing
from pnpkit.svg.ops import Op, Resolver, SvgError
from pnpkit.typeset import fonts, shaping
from pnpkit.units import SIZES

CACHE_DIR = "pnpkit-cache"  # under OUT; visible, and no pack id would choose it


@dataclass
class Result:
    """What validation found: the pack (if it parsed), its faces per language, every problem."""

    pack: Pack | None
    faces: dict[str, list[Face]] = field(default_factory=dict)  # lang -> its faces
    pages: dict[str, list[Page]] = field(default_factory=dict)  # lang -> its pages
    registry: Registry = field(default_factory=default_registry)  # what validate() used
    written: bool = False  # build() replaced the output folder
    notes: list[str] = field(default_factory=list)  # news for the user not about the pack
    changes: list[changes.Changes] = field(default_factory=list)  # with --changes: per language
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.is_error]


def validate(
    root: Path,
    langs: list[str] | None = None,
    overrides: PrintOverrides | None = None,
    cache: Cache | None = None,
    code: Code | None = None,
    registry: Registry | None = None,
    stream: bool = False,
) -> Result:
    """Every check short of writing files, for the given languages (default: all of the pack's).

    `cache` serves faces and drawings whose inputs did not change (default: none, everything is
    made). `code` says whether the pack's own Python may run (default: if the user trusts its
    folder). `registry` holds the packers, template helpers and rules (default: pnpkit's own).
    `stream` (build(), with a cache): a language of earlyforms.STREAM_FROM faces or more has
    its faces drawn into their PDF forms as they are checked, and their drawings released."""
    reg = registry or default_registry()
    # what each item's reading, keys, layout, form and figure worked out is kept for the next
    # build only by a long-lived process's (watch's: its cache saves when idle, `deferred`)
    workspace.current().hand_on = cache is not None and cache.deferred
    store = cache.folder / "fonts" if cache is not None and cache.folder is not None else None
    pack, problems = schema.load_pack(root, store)
    if pack is None:
        return Result(None, problems=_sorted(problems))
    if overrides:
        pack = dataclasses.replace(pack, print=dataclasses.replace(pack.print, **overrides))
    fonts.use(pack.fonts, pack.font_fallback)  # the families templates may name, for this pack
    too_many = layout.too_many_faces(
        [(i.id, i.count, i.where) for i in pack.items()], pack.print.max_faces
    )
    if too_many:  # before rendering: fifty thousand distinct items would take minutes
        return Result(pack, problems=_sorted(problems + too_many))
    code = code or Code(trust.is_trusted(root))
    problems += rules.check(pack, reg, code.trusted, code.seconds)
    problems += cvd.problems(pack)  # player colours for colour-blind players
    problems += _print_check_problems(pack)
    problems += guide.problems(pack)  # the kit guide's words, the tuck boxes' room
    result = Result(pack, problems=problems, registry=reg)
    usage = _usage_problems(pack, langs, overrides)
    if usage:
        result.problems = _sorted(problems + usage)
        return result
    env = environment(pack, reg)
    env.pnpkit_code = (code.trusted, code.seconds)  # whether the pack's Python faces may run
    if cache is not None:
        cache.begin(pack)
    problems += _faces(pack, langs or pack.languages, env, reg, cache, result, stream)
    if cache is not None:
        cache.hold()
    result.problems = _sorted(problems)
    return result


def _usage_problems(
    pack: Pack, langs: list[str] | None, overrides: PrintOverrides | None
) -> list[Problem]:
    """Languages and variants asked for that the pack does not have."""
    out = []
    unknown = [lang for lang in langs or [] if lang not in pack.languages]
    if unknown:
        out.append(
            Problem(
                pack.where,
                f"the pack has no language {', '.join(unknown)} "
                f"(it has {', '.join(pack.languages)})",
                "usage",
            )
        )
    variants = sorted({g.variant for g in pack.groups.values() if g.variant})
    strangers = [v for v in (overrides or {}).get("variants") or () if v not in variants]
    if strangers:
        out.append(
            Problem(
                pack.where,
                f"the pack has no variant {', '.join(strangers)} "
                f"(it has {', '.join(variants) or 'none'})",
                "usage",
            )
        )
    return out


def _faces(
    pack: Pack,
    langs: Sequence[str],
    env: jinja2.Environment,
    reg: Registry,
    cache: Cache | None,
    result: Result,
    stream: bool = False,
) -> list[Problem]:
    """Render, compile, check and impose each language's faces into result; their problems
    (result.problems: the pack's, found before). `stream`: see validate()."""
    problems: list[Problem] = []
    compiled: dict[str, Drawing | None] = {}
    if cache is not None and _faces_in(pack) < earlyforms.STREAM_FROM:
        if prewarm.worth_it(cache, _faces_in(pack)):
            prewarm.prewarm(pack, cache, lambda part: _made(part, langs, env, cache, result))
    for lang in langs:
        if stream and cache is not None and _faces_in(pack) >= earlyforms.STREAM_FROM:
            faces = _streamed(pack, lang, env, cache, result, compiled, problems)
        else:
            faces, found = (
                cache.render(pack, lang, env) if cache else render.render(pack, lang, env)
            )
            problems += found
            problems += _compile(
                pack, faces, cache.drawing if cache else svgdraw.compile_svg, compiled, env
            )
            # text_box() refused a size (rendering): the checks do not measure sizes again
            sizes_reported = any(p.rule == "font-size" for p in result.problems + problems)
            problems += _check_texts(pack, faces, _places(pack, lang, env), sizes_reported, cache)
        result.faces[lang] = faces
        result.pages[lang], found = layout.impose_again(
            faces, pack.print, reg.packers
        )  # it has problems of its own; watch's rebuilds take the last layout of faces alike
        problems += found
    return problems


def _made(
    part: Pack, langs: Sequence[str], env: jinja2.Environment, cache: Cache, result: Result
) -> None:
    """prewarm's work on part of the pack: each language's faces rendered, compiled and their
    texts checked into the cache, as _faces() does; the problems are left to _faces()'s pass,
    which makes a face with a problem again and reports them all."""
    for lang in langs:
        faces, found = cache.render(part, lang, env)
        _compile(part, faces, cache.drawing, {}, env)
        sized = any(p.rule == "font-size" for p in result.problems + found)
        for face in faces:
            if face.drawing is not None and not face.broken:
                _text_findings(part, face, sized, cache)


def _faces_in(pack: Pack) -> int:
    """The faces a language of the pack renders (each item's sides)."""
    return sum(len(item.templates) for group in pack.groups.values() for item in group.items)


def _streamed(
    pack: Pack,
    lang: str,
    env: jinja2.Environment,
    cache: Cache,
    result: Result,
    compiled: dict[str, Drawing | None],
    problems: list[Problem],
) -> list[Face]:
    """_faces() for one language of a large build: render, compile and check its faces a batch
    at a time, each batch drawn into its PDF forms and its drawings released (earlyforms), the
    problems added to `problems`. The text checks measure sizes unless text_box() refused one
    (see _check_texts): when a later batch is the first to refuse one, the checks are made
    again for every face, as a build checking them all at once makes them."""
    early = earlyforms.EarlyForms(cache, _calibration(pack, lang), _placed(pack), _compiler(pack))
    cache.packed = True  # see Cache.packed
    faces: list[Face] = []
    texts: list[Problem] = []
    checked: set[str] = set()  # SVGs checked already, by the batches before (svg_key)
    sized = any(p.rule == "font-size" for p in result.problems + problems)
    again = False
    places = _places(pack, lang, env)
    for batch, found in cache.render_batches(pack, lang, env, earlyforms.BATCH):
        problems += found
        if not sized and any(p.rule == "font-size" for p in found):
            sized, again = True, bool(faces)
        faces += batch
        problems += _compile(pack, batch, cache.drawing, compiled, env)
        texts += _check_texts(pack, batch, places, sized, cache, checked)
        early.add(batch)
        cache.keep_texts(batch)  # their SVG texts wait in a file, read back when asked for
        # The text shapes of the batch (held by shaping's memos: a line's glyphs, about 8 kB a
        # card, and each word's) are used again by its own checks, seldom by later cards: let
        # them go (2,500 cards: 195 -> 163 MB peak, no slower)
        shaping.forget_shapes()
    if again:  # rare, and a build that fails: the released drawings are compiled again
        texts = _check_texts(pack, faces, places, sized, cache)
    problems += texts
    return faces


def _placed(pack: Pack) -> Callable[[Face], bool]:
    """Whether a face goes onto the PDF's pages (layout.impose's choice, near enough: a face
    counted wrongly only costs its form being drawn again, see earlyforms)."""
    settings = pack.print

    def placed(face: Face) -> bool:
        if not settings.prints(face.variant) or face.count <= 0:
            return False
        return face.side == "front" or settings.backs != "none"

    return placed


def _compiler(pack: Pack) -> Callable[[str], tuple[Op, ...]]:
    """A released drawing's ops, compiled again from its SVG (it drew without a problem)."""

    def again(svg: str) -> tuple[Op, ...]:
        return svgdraw.compile_svg(svg, lambda href: paths.image_file(pack.root, href)).ops

    return again


def _compile(
    pack: Pack,
    faces: list[Face],
    compile_svg: Callable[[str, Resolver], Drawing],
    compiled: dict[str, Drawing | None],
    env: jinja2.Environment,
) -> list[Problem]:
    """Compile each distinct SVG once (compile_svg may take it from the cache); faces with the same
    SVG share the Drawing.

    Faces whose rendering already failed are skipped: their problems are
    reported, and the SVG would only repeat them less precisely.
    """
    problems: list[Problem] = []
    arts: set[str] = set()  # the SVG art files drawn: their notes (svgnorm.image_note)

    def resolve(href: str) -> str | None:  # raises paths.Outside, which compile_svg reports
        path = paths.image_file(pack.root, href)
        if path is not None and path.lower().endswith(".svg"):
            arts.add(path)
        return path

    for face in faces:
        if face.broken:
            continue
        key = face.svg_key
        if key not in compiled:
            try:
                compiled[key] = compile_svg(face.svg, resolve)
            except SvgError as exc:
                compiled[key] = None
                problems += [
                    _svg_problem(env, face, line, message, *art)
                    for line, message, *art in exc.problems
                ]
        face.drawing = compiled[key]
    notes = [_art_note(art) for art in sorted(arts)]
    return problems + [note for note in notes if note is not None]


def _art_note(path: str) -> Problem | None:
    """The warning that part of an SVG art file is drawn as an image, if it is."""
    from pnpkit.svg import normalise as svgnorm  # only a pack with art files loads it

    try:
        note = svgnorm.image_note(filelimits.read(path, filelimits.MAX_ART_BYTES))
    except OSError:
        return None  # the compile says so
    if note is None:
        return None
    return Problem(Location(display_path(Path(path)), note[0], 1), note[1], "art-image", "warning")


def _places(pack: Pack, lang: str, env: jinja2.Environment) -> textplaces.Places:
    """What locates the text warnings of the pack's faces in lang: a face the cache served is
    rendered again to learn which text_box() call drew what (only a face with a warning)."""
    shared: list[dict[str, object]] = []  # render.pack_context(), made when first needed

    def redraw(face: Face, item: Item) -> textplaces.Drawn | None:
        group = pack.groups[face.group]  # Places.item() found the item in it
        shared[:] = shared or [render.pack_context(pack, lang)]
        again = render.render_face(
            env, pack, group, item, face.side, face.template, lang, shared[0], []
        )
        return again.drawn if again is not None else None

    return textplaces.Places(pack, lang, lambda name: template_family(env, name), redraw)


def _check_texts(
    pack: Pack,
    faces: list[Face],
    places: textplaces.Places,
    sizes_reported: bool,
    cache: Cache | None,
    seen: set[str] | None = None,
) -> list[Problem]:
    """Every text the faces draw, raw <text> too, at its printed size and place (textcheck): once
    per template line that wrote it, else once per item. When text_box() has refused a size already
    (an error), the sizes are not measured again: that would repeat it for every item. The cache
    keeps each drawing's findings; where they stand in the templates is looked up every time.
    `seen`: the SVGs checked before, by svg_key (a large build checks its faces a batch at a
    time), added to."""
    out: list[Problem] = []
    seen = set() if seen is None else seen
    for face in faces:
        if face.drawing is None or face.broken or face.svg_key in seen:
            continue  # a broken face has its errors (text_box's own size check among them)
        seen.add(face.svg_key)
        for text, message, rule in _text_findings(pack, face, sizes_reported, cache):
            where, detail = places.locate(face, text)
            out.append(Problem(where, message + detail, rule, "warning"))
    return list(dict.fromkeys(out))


def _text_findings(pack: Pack, face: Face, sizes_reported: bool, cache: Cache | None) -> Findings:
    """The text checks of a compiled face (see _check_texts), from the cache when it has them."""
    min_pt = 0.0 if sizes_reported else pack.print.min_font_pt
    safe = pack.print.safe

    def check() -> Findings:
        found = textcheck.problems(face, min_pt, safe=safe, contrasts=True)
        return overlap.with_rules(found, face.drawing)

    settings = (face.full_size, face.bleed, min_pt, safe, True)
    return cache.text_findings(face.drawing, settings, check) if cache else check()


def _svg_problem(
    env: jinja2.Environment, face: Face, line: int, message: str, art: str | None = None
) -> Problem:
    """Point at the template line that wrote the offending markup when it can be found there;
    a problem inside an SVG image file points into that file."""
    if art is not None:
        return Problem(Location(display_path(Path(art)), line, 1), message, "svg")
    found = find_in_template(env, face.template, message)
    if found is not None:
        return Problem(found, message, "svg")
    return Problem(
        face.where,
        f"{message} (line {line} of the SVG for the {face.side} of '{face.item}')",
        "svg",
    )


def _sorted(problems: list[Problem]) -> list[Problem]:
    return sorted(
        set(problems), key=lambda p: (p.where.file, p.where.line, p.where.column, p.message)
    )


def build(root: Path, options: BuildOptions) -> Result:
    """Validate, then write PDFs, per-face SVGs and the preview page to out/<pack id>/; on any
    error write nothing. BuildOptions says how; the build runs in options.workspace (default:
    this thread's), which keeps what the next build may take over."""
    with (options.workspace or workspace.current()).active():
        return _build(root, options)


def _build(root: Path, options: BuildOptions) -> Result:
    out = options.out
    unsafe = None if options.cache else output.unsafe_cache(out)  # a link, another user's
    cache = options.cache or Cache(None if unsafe else out / CACHE_DIR)
    stream = not (cache.deferred or options.keep_drawings)  # watch keeps drawings for the next
    result = validate(root, options.langs, options.overrides, cache, options.code, stream=stream)
    if unsafe:
        result.notes.append(unsafe)
    if result.errors or (options.strict and result.problems) or result.pack is None:
        return result
    try:
        with output.locked(out, f"building {root}"):
            # what a killed build left: a kit to put back, staging folders; watch's spare kit
            output.tidy(out, keep_spares=options.watch is not None)
            _write(result, cache, options)
    except (output.Busy, output.NotKit) as exc:
        result.problems.append(Problem(Location(str(out)), str(exc), "output"))
        return result
    cache.save()
    if cache.error:  # the build is fine; the next one will just be slower
        result.notes.append(cache.error)
    return result


def _write(result: Result, cache: Cache, options: BuildOptions) -> None:
    """Write the kit into a staging folder beside out/<pack id>/, then swap it in whole (the
    previous kit, left in the staging folder's place, removed unless watch's, whose `ready`
    must agree)."""
    pack = result.pack
    assert pack is not None  # build() writes only a pack that loaded
    final = options.out / pack.id
    tidy_later = options.watch is not None  # watch: the previous kit goes once reported
    output.replaceable(final)  # before any work: a folder not pnpkit's is never replaced
    staging = output.staging_for(final)
    reused = tidy_later and svgfiles.take_spare(final, staging, set(result.faces))
    if reused:
        output.mark(staging)
    else:
        output.new_staging(final)
    dropped = False
    try:
        for lang in result.faces:
            _write_language(result, lang, staging, final, cache, options)
        folders = [
            (faces, staging / "svg" / lang, final / "svg" / lang)
            for lang, faces in result.faces.items()
        ]
        svgfiles.SvgWriter(folders, reused).write()
        dropped = not _finish(result, staging, final, options)
    finally:
        if dropped and tidy_later:
            svgfiles.keep_as_spare(staging, final)
        elif not (result.written and tidy_later):  # a failure leaves no trace
            output.remove_kit(staging)  # gone already after a swap


def _write_language(
    result: Result, lang: str, staging: Path, final: Path, cache: Cache, options: BuildOptions
) -> None:
    """One language's PDFs (the kit, its A3 one, its changes) into staging."""
    pack = result.pack
    assert pack is not None  # build() writes only a pack that loaded
    faces, pages = result.faces[lang], result.pages[lang]
    kit = guide.plan(pack, lang, faces, pages)
    _label(pages, pack, lang, kit.before, kit.after)
    progress = options.progress
    on_page = (lambda n, t: progress(f"{pack.id} ({lang})", n, t)) if progress else None
    with cacheforms.pdf_forms(cache, pages):
        pdf.write_pdf(
            pages,
            staging / f"{pack.id}-{lang}.pdf",
            f"{pack.name[lang]}",
            pack.print.crop_marks,
            _calibration(pack, lang),
            on_page,
            _stamp(pack),
            kit,
            foldmarks.Folds.of(pack, lang),
        )
    _write_large(pages, pack, lang, staging, cache, result.registry)
    if options.changed:  # compared with the previous build's SVGs, still in place until the swap
        result.changes.append(
            _write_changes(faces, pack, lang, final / "svg" / lang, staging, cache, result.registry)
        )


def _finish(result: Result, staging: Path, final: Path, options: BuildOptions) -> bool:
    """The rest of the kit once its PDFs are written, swapped in for the previous kit; False
    when watch's `ready` said no (the previous kit stays live)."""
    if options.changed:
        (staging / "changes.txt").write_text(
            "".join(f"{line}\n" for c in result.changes for line in c.lines()), encoding="utf-8"
        )
    preview.write_index(result, staging, final)
    ready = options.watch.ready if options.watch else None
    if ready is not None and not ready():
        return False
    output.swap_in(staging, final, remove_old=options.watch is None)
    result.written = True
    return True


def _write_large(
    pages: list[Page], pack: Pack, lang: str, folder: Path, cache: Cache, reg: Registry
) -> None:
    """Faces split over several sheets also get a PDF on A3, where most fit whole."""
    split = {id(part.face): part.face for p in pages for part in p.parts}
    if not split or pack.print.paper == "a3":
        return
    settings = dataclasses.replace(pack.print, paper="a3", backs="none")
    on_a3 = dataclasses.replace(pack, print=settings)  # no backs: one print-check page first
    large, _ = layout.impose(list(split.values()), settings, reg.packers)
    _label(large, on_a3, lang)
    title = f"{pack.name[lang]} (A3)"
    with cacheforms.pdf_forms(cache, large):
        pdf.write_pdf(
            large,
            folder / f"{pack.id}-{lang}-a3.pdf",
            title,
            settings.crop_marks,
            _calibration(on_a3, lang),
            stamp=_stamp(pack),
            folds=foldmarks.Folds.of(pack, lang),
        )


def _write_changes(
    faces: list[Face],
    pack: Pack,
    lang: str,
    previous: Path,
    folder: Path,
    cache: Cache,
    reg: Registry,
) -> changes.Changes:
    """<id>-<lang>-changes.pdf: the print check, then only the faces that differ, imposed as
    usual; none when no face differs."""
    report, subset = changes.compare(faces, previous, lang)
    if not subset:
        return report  # nothing to reprint: no PDF of the print check alone (its lines say so)
    pages, _ = layout.impose(subset, pack.print, reg.packers)
    _label(pages, pack, lang)
    with cacheforms.pdf_forms(cache, pages):
        pdf.write_pdf(
            pages,
            folder / f"{pack.id}-{lang}-changes.pdf",
            f"{pack.name[lang]} (changes)",
            pack.print.crop_marks,
            _calibration(pack, lang),
            stamp=_stamp(pack),
            folds=foldmarks.Folds.of(pack, lang),
        )
    return report


def _stamp(pack: Pack) -> str | None:
    """print.stamp: the pack's version and the build's date (SOURCE_DATE_EPOCH for reproducible
    builds)."""
    if not pack.print.stamp:
        return None
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    when = (
        datetime.fromtimestamp(int(epoch), timezone.utc)
        if epoch.isdigit()
        else datetime.now(timezone.utc)
    )
    return " · ".join(
        p for p in (pack.id, pack.version and f"v{pack.version}", when.strftime("%Y-%m-%d")) if p
    )


def _label(pages: list[Page], pack: Pack, lang: str, guide_pages: int = 0, after: int = 0) -> None:
    """Each page's footer: the kit, the language, the side, its number of the PDF's pages
    (`guide_pages` before the print check, `after` after the faces: guide.Kit), and what
    the sheet is for."""
    before = guide_pages + calibration.page_count(pack.print.backs)
    total = len(pages) + before + after
    words = calibration.words(lang, pack.strings)[0]
    side = {"front": words["front"], "back": words["back"]}  # in the kit's language
    for n, page in enumerate(pages, before + 1):
        page.label = f"{pack.name[lang]} · {lang} · {side.get(page.side, page.side)} · {n}/{total}"
        if page.tile is not None:
            page.label += f" · {', '.join(part_names(page))} · {words['tile']}"
        if page.note:
            page.label += f" · {words.get(page.note, page.note)}"
        if page.fold_pair:
            page.label += f" · {words['fold_pair']}"


def _print_check_problems(pack: Pack) -> list[Problem]:
    """pnpkit's own print-check page: its words in each of the pack's languages (else English,
    a warning), and a heading that fits the page at a readable size."""
    out = []
    for lang in pack.languages:
        words, missing = calibration.words(lang, pack.strings)
        if missing:
            out.append(
                Problem(
                    pack.where,
                    f"pnpkit has no words for its print-check page in '{lang}'; it prints them"
                    f" in English (strings {', '.join(missing)} give them: docs/format.md)",
                    "words",
                    "warning",
                )
            )
        width = min(SIZES[pack.print.paper]) - 40  # the narrower way: portrait
        title = f"{pack.name[lang]} — {words['print_check']}"
        lines, size = calibration.heading(title, width, pack.print.min_font_pt)
        if size < pack.print.min_font_pt - 1e-9:
            out.append(
                Problem(
                    pack.where,
                    f"the print-check heading '{title[:40]}…' only fits at "
                    f"{size:g}pt, below the minimum {pack.print.min_font_pt:g}pt",
                    "words",
                    "warning",
                )
            )
    return out


def _calibration(pack: Pack, lang: str) -> calibration.Info:
    s = pack.print
    words = calibration.words(lang, pack.strings)[0]
    values = {"paper": s.paper, "backs": s.backs}
    values |= {"x": f"{s.back_offset[0]:g}", "y": f"{s.back_offset[1]:g}"}
    values |= {"bleed": f"{s.bleed:g}", "margin": f"{s.margin:g}", "gap": f"{s.gap:g}"}
    return {
        "page": SIZES[s.paper],
        "lang": lang,
        "title": pack.name[lang],
        "words": words,
        "axis": mirror_axis(s, SIZES[s.paper]) if s.duplex else None,
        "back_offset": s.back_offset,
        "settings": calibration.settings(words, values),
    }


def forget_kept() -> None:
    """Forget what this thread's workspace keeps from one build for the next (what `watch`
    lives on: the YAML parses and the items read from them, the layouts, the PDF's drawn pages,
    streams and form names, the preview's figures, the compiled templates and the names they
    import, the face SVG files written, the compiler's, shaper's and text checks' memos): the
    next build does that work again, as a build in a new process does. The benchmarks call it
    so that each run times a build from scratch."""
    workspace.current().forget()
