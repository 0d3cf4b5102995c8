"""The form-byte cache (cacheforms.FormDrawing) replays a face's finished PDF form in a later PDF.
Its text operators hold the codes the PDF's fonts gave its characters, and those codes depend on
every character the PDF sets: a kept form replayed under other codes would print other glyphs
without any error. These tests write a face, then a PDF where other characters shift its codes,
with the same cache, and read the text back from every page."""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import SimpleNamespace

import pypdfium2
import pytest
from reportlab.pdfgen.canvas import Canvas

from pnpkit.build import cacheforms
from pnpkit.build.cache import Cache
from pnpkit.pdf.forms import face_form
from pnpkit.typeset import fonts

SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="40mm" height="10mm" viewBox="0 0 40 10">'
    '<text x="1" y="5" font-family="DejaVu Sans" font-size="3">{}</text></svg>'
)
KEPT = "żółw ćma"  # the face written in both PDFs
# sorted before KEPT's letters, so seeding the fonts in order shifts every code KEPT had
SHIFTING = "ĄĆĘŁŃÓŚŹŻ ąęń"


def _face(c: Cache, text: str) -> SimpleNamespace:
    svg = SVG.format(text)
    return SimpleNamespace(
        drawing=c.drawing(svg, None),
        svg=svg,
        svg_key=svg,
        svg_key_is_name=False,
        full_size=(40.0, 10.0),
        scale=1.0,
    )


def _write(c: Cache, faces: list[SimpleNamespace], path: Path) -> list[str]:
    """One page per face, through the cache's forms as write_pdf() goes; each page's text."""
    pages = [SimpleNamespace(placements=[SimpleNamespace(face=f)]) for f in faces]
    with cacheforms.pdf_forms(c, pages):  # type: ignore[arg-type]  # what pdf_forms reads of a Page
        canvas = Canvas(str(path), invariant=1, pageCompression=1)
        forms: dict[str, str] = {}
        for face in faces:
            canvas.doForm(face_form(canvas, face, forms))  # type: ignore[arg-type]
            canvas.showPage()
        canvas.save()
    pdf = pypdfium2.PdfDocument(str(path))
    try:
        return [page.get_textpage().get_text_range().strip() for page in pdf]
    finally:
        pdf.close()


def _codes_left_out(
    self: cacheforms.FormDrawing, inside: object, settings: object, library: object
):
    """FormDrawing._form_key as it would be if it forgot the characters' codes."""
    return hashlib.sha256(self.key + repr((settings, library)).encode()).digest()


@pytest.mark.parametrize("codes_in_key", [True, False])
def test_a_kept_form_replayed_under_other_codes_prints_its_own_text(
    tmp_path, monkeypatch, codes_in_key
):
    """The second PDF sets other characters first, so the fonts give KEPT's characters other
    codes: its form must be drawn again, not replayed, and every page reads as written. With a
    key that leaves the codes out (the parametrised mutation), the replay prints wrong text."""
    if not codes_in_key:
        monkeypatch.setattr(cacheforms.FormDrawing, "_form_key", _codes_left_out)
    fonts.for_canvas()
    c = Cache()
    kept = _face(c, KEPT)
    assert _write(c, [kept], tmp_path / "1.pdf") == [KEPT]
    shifting = _face(c, SHIFTING)
    texts = _write(c, [shifting, kept], tmp_path / "2.pdf")
    if codes_in_key:
        assert texts == [SHIFTING, KEPT]
        assert c.stats["forms reused"] == 0 and c.stats["forms drawn"] == 3
    else:  # the test above can fail: a stale form prints other glyphs
        assert texts[1] != KEPT and c.stats["forms reused"] == 1


def test_a_kept_form_replayed_under_the_same_codes_is_reused_and_reads_right(tmp_path):
    """The same characters in the same PDF: the form's bytes are replayed and still read right."""
    fonts.for_canvas()
    c = Cache()
    faces = [_face(c, SHIFTING), _face(c, KEPT)]
    assert _write(c, faces, tmp_path / "1.pdf") == [SHIFTING, KEPT]
    assert _write(c, faces, tmp_path / "2.pdf") == [SHIFTING, KEPT]
    assert c.stats["forms reused"] == 2
    assert (tmp_path / "1.pdf").read_bytes() == (tmp_path / "2.pdf").read_bytes()
