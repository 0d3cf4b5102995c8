"""A large build's faces drawn into their PDF forms as soon as they are checked, so their
drawings can go: bounded memory at scale (issue 16).

The compiled drawings are most of what a large build holds (ops and shaped glyphs, about
27 kB a card with what shaping's memo shares with them, against 1.5 kB for the form they
become), and the PDF is written only once every face of every language has passed its checks.
So, in a build of STREAM_FROM faces or more, build._streamed() renders, compiles and checks
BATCH faces at a time, and each batch is drawn, right after its checks, into a scratch
document set up as the language's PDF will be (its print-check page, then its fonts given
every character the faces so far use, in the order cache.FormPlan gives them). The forms'
bytes go into the cache under their form keys (cache.FormDrawing.form_key: the drawing, its
box, the canvas settings and the codes its characters have), and each drawing is released:
it keeps its characters, whether it draws images and its keys, and makes its ops again only
if something asks for them.

When pdf.write_pdf() draws the real PDF, each face asks the cache for its form under the key
the real document gives: the same bytes whenever its characters have the same codes there,
which is the usual case (a deck's characters are all seen within its first batches). A face
whose codes did shift (a character first used late sorts before some of its own) is compiled
and drawn again there, exactly as a build without this would draw it: the PDF is the same
byte for byte either way, only that face costs a compile more. A drawing with images or
gradients (objects of each document's own) is kept whole and drawn in the PDF as before.
"""

from __future__ import annotations

from collections.abc import Callable

from reportlab.pdfgen.canvas import Canvas

from pnpkit.build.cache import Cache
from pnpkit.build.cacheforms import FormDrawing, FormPlan
from pnpkit.pack.model import Face
from pnpkit.pdf import calibration
from pnpkit.pdf import writer as pdf
from pnpkit.pdf.forms import face_form
from pnpkit.pdf.marks import K
from pnpkit.svg.ops import Op

STREAM_FROM = 2500  # faces in a language from which a build streams (smaller: drawings kept)
BATCH = 256  # faces compiled, checked and drawn at a time


class EarlyForms:
    """One language's faces, drawn a batch at a time into scratch documents (see the module)."""

    def __init__(
        self,
        cache: Cache,
        info: calibration.Info,
        placed: Callable[[Face], bool],
        again: Callable[[str], tuple[Op, ...]],
    ) -> None:
        self.cache = cache
        self.info = info  # the print-check page the real PDF starts with
        self.placed = placed  # whether a face goes onto the PDF's pages (its chars count)
        self.again = again  # a released drawing's ops from its SVG
        self.chars: dict[str, set[str]] = {}  # per font, every character of the faces so far
        self.released = 0

    def add(self, faces: list[Face]) -> None:
        """Draw these checked faces' forms (their characters joining the ones before), keep
        their bytes in the cache and release the drawings whose form it kept."""
        todo: dict[int, tuple[Face, FormDrawing]] = {}
        for face in faces:
            d = face.drawing
            if isinstance(d, FormDrawing) and not face.broken and self.placed(face):
                if d.plan is None and d.held and not d.images:
                    todo.setdefault(id(d), (face, d))
                for font, used in d.chars.items():
                    self.chars.setdefault(font, set()).update(used)
        if not todo:
            return
        # A fresh document per batch: its fonts seeded with all the characters seen so far, and
        # svgdraw's per-document memo of formatted runs (which holds their glyphs) let go.
        canvas, _ = pdf.start_canvas([], "scratch.pdf", "", self.info)  # never saved
        plan = FormPlan(self.cache, [], {font: set(used) for font, used in self.chars.items()})
        forms: dict[str, str] = {}
        for face, d in todo.values():
            self._draw(canvas, plan, face, d, forms)

    def _draw(
        self, canvas: Canvas, plan: FormPlan, face: Face, d: FormDrawing, forms: dict[str, str]
    ) -> None:
        """Draw one face's form (or find it kept under its key) and release its drawing."""
        d.plan = plan  # bound for this form alone, as cacheforms.pdf_forms() binds it for its PDF
        try:
            face_form(canvas, face, forms)
            w, h = face.full_size
            key = d.form_key(canvas, (w * K, h * K))  # as face_form asked: known
        finally:
            d.plan = None
        if key is not None and key in self.cache.forms:
            d.release(_Again(self.again, face))
            self.released += 1


class _Again:
    """A released drawing's ops, compiled again from its face's SVG. The compiler and the face,
    not the EarlyForms: the faces outlive the build, and through it the cache (its drawings'
    rows, the forms' bytes) would outlive it with them; the face, not its SVG text, which it
    lets go once drawn (cache.KeptFace). An object of two slots, not a closure (one per card of
    a large build, to its end: a closure and its cells took 0.2 kB more)."""

    __slots__ = ("compile", "face")

    def __init__(self, compile: Callable[[str], tuple[Op, ...]], face: Face) -> None:
        self.compile, self.face = compile, face

    def __call__(self) -> tuple[Op, ...]:
        return self.compile(self.face.svg)
