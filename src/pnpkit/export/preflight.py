"""Preflight: check a PDF against the rules of its target and report located problems.

Targets:
* `home` (the sheets pnpkit writes for home printers, and every other PDF):
  the file is sound (qpdf's own check), every font is embedded, and where a
  page has a TrimBox or BleedBox they nest: Trim inside Bleed inside Media.
* `pdfx` (PDF/X-1a:2003, print-standards.md §3.2): all of the above, and PDF
  1.4 at most, one GTS_PDFX OutputIntent with an OutputConditionIdentifier and
  a CMYK profile, GTS_PDFXVersion/Conformance, Title, dates and Trapped in
  Info, an ID, no encryption or JavaScript, TrimBox and BleedBox on every
  page, colour only as DeviceCMYK, DeviceGray or Separation (operators,
  images, shadings), no transparency (soft masks, alpha below 1, blend
  modes), no LZW.

A problem is placed at the file and the page (as `file:page:0`), and says
which form or image holds it; the same fault repeated on a page is one problem.
`pnpkit build` runs this on every PDF it writes; `pnpkit preflight FILE…` on any PDF.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from pnpkit.errors import Location, Problem
from pnpkit.export.rastercache import RasterCache

if TYPE_CHECKING:  # pikepdf is imported where a PDF is read
    import pikepdf

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in points

TARGETS = ("home", "pdfx")
PDFX_VERSION = "PDF/X-1a:2003"
_GOOD_SPACES = frozenset(
    {
        "/DeviceCMYK",
        "/DeviceGray",
        "/Separation",
        "/Pattern",
        "/G",
        "/CMYK",
    }
)  # inline-image abbreviations too
_OK_BLEND = frozenset({"/Normal", "/Compatible"})


def check(path: Path, target: str | None = None) -> list[Problem]:
    """Every problem of one PDF for its target (default: pdfx when it has a PDF/X OutputIntent,
    else home)."""
    import pikepdf

    try:
        pdf = pikepdf.open(path)  # qpdf opens the path itself: no Python call per read
    except (pikepdf.PdfError, OSError) as exc:
        return [Problem(Location(str(path)), f"not a readable PDF: {exc}", "preflight")]
    with pdf:
        target = target or ("pdfx" if _intents(pdf) else "home")
        run = _Run(path, pdf, target)
        run.document()
        for number, page in enumerate(pdf.pages, 1):
            run.page(number, page)
        return run.problems


class _Run:
    def __init__(self, path: Path, pdf: pikepdf.Pdf, target: str) -> None:
        self.path, self.pdf, self.pdfx = path, pdf, target == "pdfx"
        self.problems: list[Problem] = []
        self.seen: set[tuple[int, str]] = set()  # (page, message): one problem per fault and page
        self.checked: dict[
            tuple[int, int] | None, list[str]
        ] = {}  # objgen of a form or image -> the messages it gave, so a shared one is read once

    def add(self, page: int, message: str) -> None:
        if (page, message) not in self.seen:
            self.seen.add((page, message))
            where = f"page {page}: " if page else ""
            self.problems.append(
                Problem(Location(str(self.path), page, 0), where + message, "preflight")
            )

    # ---------------------------------------------------------- the document

    def document(self) -> None:
        for message in self.pdf.check_pdf_syntax():
            self.add(0, f"damaged file: {message}")
        if not self.pdfx:
            return
        import pikepdf

        if self.pdf.pdf_version > "1.4":
            self.add(0, f"PDF {self.pdf.pdf_version}; {PDFX_VERSION} allows 1.4 at most")
        if self.pdf.is_encrypted:
            self.add(0, "the file is encrypted; PDF/X forbids it")
        intents = _intents(self.pdf)
        if len(intents) != 1:
            self.add(0, f"{len(intents)} GTS_PDFX OutputIntents; PDF/X needs exactly one")
        for intent in intents:
            if not str(intent.get("/OutputConditionIdentifier", "")):
                self.add(0, "the OutputIntent has no OutputConditionIdentifier")
            profile = intent.get("/DestOutputProfile")
            if profile is None:
                if str(intent.get("/OutputConditionIdentifier", "")) in ("", "Custom"):
                    self.add(
                        0,
                        "the OutputIntent names no registered condition "
                        "and embeds no profile (DestOutputProfile)",
                    )
            elif int(profile.get("/N", 0)) != 4 or profile.read_bytes()[16:20] != b"CMYK":
                self.add(0, "the OutputIntent's profile is not a CMYK profile")
        info = self.pdf.trailer.get("/Info", pikepdf.Dictionary())
        for key in ("/GTS_PDFXVersion", "/GTS_PDFXConformance"):
            if str(info.get(key, "")) != PDFX_VERSION:
                self.add(
                    0, f"Info {key[1:]} is {str(info.get(key, 'missing'))!r}, not {PDFX_VERSION!r}"
                )
        for key in ("/Title", "/CreationDate", "/ModDate"):
            if key not in info:
                self.add(0, f"Info has no {key[1:]}")
        if str(info.get("/Trapped", "")) not in ("/True", "/False"):
            self.add(0, "Info Trapped must be True or False")
        if "/ID" not in self.pdf.trailer:
            self.add(0, "the trailer has no document ID")
        root = self.pdf.Root
        if "/JavaScript" in root.get("/Names", {}) or "/OpenAction" in root or "/AA" in root:
            self.add(0, "the document has actions or JavaScript; PDF/X forbids them")

    # ---------------------------------------------------------- pages

    def page(self, number: int, page: pikepdf.Page) -> None:
        boxes = {
            name: _box(page.obj.get(f"/{name}"))
            for name in ("MediaBox", "BleedBox", "TrimBox", "ArtBox")
        }
        media = _box(page.mediabox)
        assert media is not None  # pikepdf gives every page a MediaBox
        if self.pdfx:
            if boxes["TrimBox"] is None and boxes["ArtBox"] is None:
                self.add(number, "no TrimBox; PDF/X needs one on every page")
            if boxes["BleedBox"] is None:
                self.add(number, "no BleedBox; a page with bleed needs one")
        trim, bleed = boxes["TrimBox"], boxes["BleedBox"] or media
        if trim is not None and not _inside(trim, bleed):
            self.add(number, f"the TrimBox {_fmt(trim)} is not inside the BleedBox {_fmt(bleed)}")
        if boxes["BleedBox"] is not None and not _inside(boxes["BleedBox"], media):
            self.add(
                number,
                f"the BleedBox {_fmt(boxes['BleedBox'])} is not inside the MediaBox {_fmt(media)}",
            )
        for message in self.content(page.obj, "the page"):
            self.add(number, message)

    def content(self, holder: pikepdf.Object, name: str) -> list[str]:
        """Problems of a page or form: its fonts, colour operators, graphics states and
        XObjects, inner forms too."""
        key = holder.objgen if holder.objgen != (0, 0) else None
        if key is not None and key in self.checked:
            return self.checked[key]
        self.checked[key] = []  # a form that draws itself must not loop
        import pikepdf

        out: list[str] = []
        resources = holder.get("/Resources", pikepdf.Dictionary())
        for font_name, font in resources.get("/Font", {}).items():
            if not _embedded(font):
                out.append(
                    f"font {str(font.get('/BaseFont', font_name)).lstrip('/')} "
                    f"in {name} is not embedded"
                )
        if self.pdfx:
            out += self.colours(holder, resources, name)
        for xname, xobject in _named(resources, "/XObject"):
            subtype = xobject.get("/Subtype")
            if subtype == "/Form":
                out += self.content(xobject, f"form {xname}")
            elif subtype == "/Image" and self.pdfx:
                out += [f"{m} (image {xname} in {name})" for m in _image_faults(xobject)]
        if key is not None:
            self.checked[key] = out
        return out

    def colours(self, holder: pikepdf.Object, resources: pikepdf.Object, name: str) -> list[str]:
        import pikepdf

        out: list[str] = []
        for gs_name, state in _named(resources, "/ExtGState"):
            for key in ("/ca", "/CA"):
                if key in state and float(state[key]) < 1:
                    out.append(
                        f"transparency: graphics state {gs_name} in "
                        f"{name} sets {key[1:]} {float(state[key]):g}"
                    )
            if str(state.get("/SMask", "/None")) != "/None":
                out.append(f"transparency: graphics state {gs_name} in {name} has a soft mask")
            if "/BM" in state and str(state["/BM"]) not in _OK_BLEND:
                out.append(
                    f"transparency: graphics state {gs_name} "
                    f"in {name} uses blend mode {state['/BM']}"
                )
        for space_name, space in _named(resources, "/ColorSpace"):
            if _space_name(space) not in _GOOD_SPACES:
                out.append(
                    f"colour space {space_name} in {name} is {_space_name(space)[1:]}; "
                    "PDF/X-1a allows CMYK, grey and spot colours only"
                )
        for shading_name, shading in _named(resources, "/Shading"):
            if _space_name(shading.get("/ColorSpace")) not in _GOOD_SPACES:
                out.append(
                    f"shading {shading_name} in {name} is in "
                    f"{_space_name(shading.get('/ColorSpace'))[1:]}"
                )
        rgb: list[str] = []
        for operands, operator in pikepdf.parse_content_stream(holder):  # type: ignore[misc]
            op = str(operator)
            if op in ("rg", "RG"):
                rgb.append(f"{' '.join(f'{float(v):g}' for v in operands)} {op}")
            elif op in ("cs", "CS") and str(operands[0]) in ("/DeviceRGB", "/CalRGB", "/Lab"):
                out.append(f"colour space {str(operands[0])[1:]} in {name} ({op})")
            elif op == "INLINE IMAGE":
                out += [f"{m} (inline image in {name})" for m in _image_faults(operands[0].obj)]
        if rgb:
            out.append(f"RGB colour in {name}: {len(rgb)} operator(s), the first '{rgb[0]}'")
        return out


def _named(resources: pikepdf.Object, kind: str) -> list[tuple[str, pikepdf.Object]]:
    """(name without its slash, object) of one kind of resource."""
    return [(str(name).lstrip("/"), value) for name, value in resources.get(kind, {}).items()]


def _intents(pdf: pikepdf.Pdf) -> list[pikepdf.Object]:
    return [i for i in pdf.Root.get("/OutputIntents", []) if str(i.get("/S", "")) == "/GTS_PDFX"]


def _embedded(font: pikepdf.Object | None) -> bool:
    assert font is not None  # a font dictionary of a page's resources
    subtype = str(font.get("/Subtype", ""))
    if subtype == "/Type3":
        return True  # its glyphs are content streams in the file
    if subtype == "/Type0":
        font = font.get("/DescendantFonts", [None])[0]
        if font is None:
            return False
    descriptor = font.get("/FontDescriptor")
    return descriptor is not None and any(
        k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3")
    )


def _space_name(space: pikepdf.Object | None) -> str:
    """/DeviceCMYK, /ICCBased, /Indexed(base) …: the family a colour space belongs to."""
    import pikepdf

    if space is None:
        return "/None"
    if isinstance(space, pikepdf.Array):
        family = str(space[0])
        if family == "/Indexed":
            return _space_name(space[1])
        if family == "/ICCBased":
            return {1: "/DeviceGray", 4: "/DeviceCMYK"}.get(
                int(space[1].get("/N", 0)), "/ICCBased RGB"
            )
        return family
    return str(space)


def _image_faults(image: pikepdf.Object) -> list[str]:
    faults: list[str] = []
    if image.get("/ImageMask", False) is True or str(image.get("/ImageMask", "")) == "true":
        return faults  # a stencil mask paints with the current (checked) colour
    space = image.get("/ColorSpace", image.get("/CS"))
    if _space_name(space) not in _GOOD_SPACES:
        faults.append(f"colour space {_space_name(space)[1:]}")
    if "/SMask" in image:
        faults.append("transparency: a soft mask")
    import pikepdf

    filters = image.get("/Filter", image.get("/F"))
    names = [str(f) for f in filters] if isinstance(filters, pikepdf.Array) else [str(filters)]
    if any(f in ("/LZWDecode", "/LZW") for f in names):
        faults.append("LZW compression")
    return faults


def _box(value: pikepdf.Object | None) -> Box | None:
    if value is None:
        return None
    x0, y0, x1, y1 = (float(v) for v in value)
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


def _inside(inner: Box, outer: Box, tolerance: float = 0.01) -> bool:
    return (
        inner[0] >= outer[0] - tolerance
        and inner[1] >= outer[1] - tolerance
        and inner[2] <= outer[2] + tolerance
        and inner[3] <= outer[3] + tolerance
    )


def _fmt(box: Box) -> str:
    return "[" + " ".join(f"{v:g}" for v in box) + "]"


# ---------------------------------------------------------- after a build


def check_build(
    folder: Path, pdfx_folders: set[str], passed: RasterCache | None = None
) -> list[Problem]:
    """Preflight every PDF under a built kit's folder: PDF/X rules in the folders of PDF/X profiles.

    With `passed` (the export's raster cache), a file whose exact bytes passed before
    (the same target, the same pnpkit) is not parsed again: a warm export serves its
    PDFs byte-identical from the cache, and parsing them was a fifth of its time.
    Only passes are remembered, so a file with problems reports them every time.
    """
    problems = []
    for path in sorted(folder.rglob("*.pdf")):
        target = _target(path.relative_to(folder).parts[0], pdfx_folders)
        key = _pass_key(path, target) if passed is not None else None
        if passed is not None and passed.get(key, PASSED) is not None:
            continue
        found = check(path, target)
        problems += found
        if passed is not None and not found:
            passed.mark(key, PASSED)
    return problems


PASSED = ".preflight"  # the suffix of a pass's mark in the raster cache


def _target(first: str, pdfx_folders: set[str]) -> str:
    """The target of a kit's PDF whose path in the kit starts with `first`: PDF/X in the folders
    of PDF/X profiles, else home."""
    return "pdfx" if first in pdfx_folders else "home"


def _pass_key(path: Path, target: str) -> str | None:
    """The hash of what a preflight's verdict depends on: the file's bytes, the target, pnpkit."""
    try:
        with open(path, "rb") as f:
            return _file_key(f, target)
    except OSError:
        return None


def _file_key(f: BinaryIO, target: str) -> str:
    """_pass_key() of the open file f, read from where it is to its end a part at a time (a
    10,000-card kit's PDF is 18 MB)."""
    h = _key_hash(target)
    while part := f.read(1 << 20):
        h.update(part)
    return h.hexdigest()


def _key_hash(target: str) -> hashlib._Hash:
    """A pass key's hash before the file's bytes."""
    from pnpkit.build.cachefile import engine

    return hashlib.sha256(engine() + target.encode() + b"\0")


# ---------------------------------------------------------- the command


def configure(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "preflight",
        help="check PDFs for the rules of their target (home sheets, PDF/X-1a)",
        description="Check PDFs: fonts embedded and page boxes "
        "nested; with --target pdfx (the default "
        "for files with a PDF/X OutputIntent) also the "
        "PDF/X-1a:2003 rules: CMYK only, no transparency, "
        "OutputIntent, Info keys, TrimBox and BleedBox on every page.",
        epilog="Problems print as file:page:0: error: message "
        "[preflight]. Exit 0 clean, 1 problems, 2 usage error.",
    )
    p.add_argument("files", nargs="+", type=Path, metavar="FILE.pdf")
    p.add_argument(
        "--target",
        choices=TARGETS,
        help="the rules to check (default: pdfx for PDF/X files, else home)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    missing = [f for f in args.files if not f.is_file()]
    if missing:
        print(f"pnpkit: error: no such file: {missing[0]}", file=sys.stderr)
        return 2
    failed = False
    for path in args.files:
        problems = check(path, args.target)
        for problem in problems:
            print(problem)
        print(f"{path}: {len(problems)} problem(s)", file=sys.stderr)
        failed |= bool(problems)
    return 1 if failed else 0
