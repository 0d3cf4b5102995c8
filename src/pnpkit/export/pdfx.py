"""PDF/X-1a:2003 in CMYK: colour separation at replay time, flattening, and the PDF/X marking.

Faces are compiled SVG replayed onto a ReportLab canvas (svgdraw), so a face
goes to CMYK by replaying it onto `CmykCanvas`, which converts every colour
and image on its way into the PDF:

* vector colours through the press's ICC profile with littleCMS (Pillow's
  ImageCms; sRGB source, relative colorimetric with black-point compensation,
  as Acrobat converts), held within the press's total ink limit; neutral
  greys print on K alone so text and hairlines stay sharp and free of colour
  casts, and black areas of at least RICH_AREA get the press's rich black;
* gradients as DeviceCMYK shadings: the RGB ramp sampled between its stops,
  every sample separated as a vector colour;
* images the same way (a CMYK image is taken as it is).

PDF/X-1a forbids transparency, so a face that uses any (opacity, an image with
an alpha channel) is flattened: rasterised whole at FLATTEN_DPI through the
same PDF renderer the image exports use, then separated like any image, with
a located warning. `mark()` then adds what ReportLab cannot write, with pikepdf:
the OutputIntent carrying the ICC profile and the PDF/X keys of the Info
dictionary. `ink_problems()` reports faces over the press's total ink limit
(only what is taken as it is, a CMYK image, can be: the rest is limited).
"""

from __future__ import annotations

import dataclasses
import io
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias, cast

from PIL import Image, ImageCms, ImageMath
from reportlab.lib.colors import CMYKColor, Color
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas
from reportlab.pdfgen.pathobject import PDFPathObject

from pnpkit import workspace
from pnpkit.errors import Problem
from pnpkit.export import facepages
from pnpkit.pack.model import Face
from pnpkit.pdf.internals import inside, reader_image
from pnpkit.svg.drawing import Drawing
from pnpkit.svg.ops import Fill, Gradient, ImageOp, PathOp, Stroke, TextOp
from pnpkit.typeset import fonts

# what ReportLab's canvas takes as a colour
_Colour: TypeAlias = (
    Color | tuple[float, float, float, float] | tuple[float, float, float] | list[float] | str
)

ICC_DIR = Path(__file__).parent.parent / "icc"
DEFAULT_ICC = ICC_DIR / "pnpkit-coated-cmyk.icc"
VERSION = "PDF/X-1a:2003"
FLATTEN_DPI = (
    300  # transparent faces become images at this resolution, the usual one for print images
)
# samples between two stops of a gradient: separation is not linear, so a CMYK ramp between the
# separated ends alone would drift from the profile's conversion of the RGB ramp in the middle
GRADIENT_STEPS = 8
# mm^2: a black fill at least this big prints rich black (1 cm^2, far more than any glyph)
RICH_AREA = 100.0
_NUM = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)")
_PT_PER_MM = 72 / 25.4


@dataclass(frozen=True)
class Press:
    """The printing condition a PDF/X file is separated for."""

    icc: Path = DEFAULT_ICC
    # OutputConditionIdentifier: a registered name, or Custom with the profile embedded
    condition: str = "Custom"
    ink_limit: float = 300.0  # % total area coverage
    rich_black: tuple[float, float, float, float] = (0.6, 0.4, 0.4, 1.0)

    @property
    def description(self) -> str:
        profile = ImageCms.getOpenProfile(str(self.icc))
        return ImageCms.getProfileDescription(profile).strip() or self.icc.name


class Separation:
    """RGB to CMYK through one press's ICC profile; every result is cached."""

    def __init__(self, press: Press) -> None:
        self.press = press
        self.icc = press.icc.read_bytes()
        profile = ImageCms.ImageCmsProfile(io.BytesIO(self.icc))
        srgb = ImageCms.createProfile("sRGB")
        intent = ImageCms.Intent.RELATIVE_COLORIMETRIC
        flags = ImageCms.Flags.BLACKPOINTCOMPENSATION
        self._to_cmyk = ImageCms.buildTransform(srgb, profile, "RGB", "CMYK", intent, flags=flags)
        back = ImageCms.buildTransform(profile, srgb, "CMYK", "RGB", intent, flags=flags)
        ramp = Image.new("CMYK", (256, 1))
        ramp.putdata([(0, 0, 0, k) for k in range(256)])
        # the grey each amount of K alone prints as, to put neutral greys on K
        grey = ImageCms.applyTransform(ramp, back)
        assert grey is not None  # applyTransform returns None only when told to work in place
        self._k_grey = list(grey.tobytes()[1::3])  # the green of each RGB pixel
        self._images: dict[object, tuple[Image.Image, Image.Image]] = {}

    def canvas(self, path: str, **options: object) -> CmykCanvas:
        """A canvas that separates everything drawn on it for this press."""
        return CmykCanvas(path, self, **options)

    def mark(self, path: Path, title: str) -> None:
        """Make the CMYK file written on canvas() a PDF/X-1a file for this press."""
        mark(path, self.press, title)

    def colour(self, rgb: tuple[float, float, float]) -> tuple[float, float, float, float]:
        """CMYK (0..1) for an sRGB colour (0..1)."""
        return _colour(self, tuple(round(v * 255) for v in rgb[:3]))

    def grey(self, level: int) -> tuple[float, float, float, float]:
        """A neutral grey (0..255) on K alone: the K whose print is as light as the grey."""
        ramp = self._k_grey
        if level >= ramp[0]:
            return (0.0, 0.0, 0.0, 0.0)
        for k in range(1, 256):
            if ramp[k] <= level:  # interpolate between k-1 and k
                span = ramp[k - 1] - ramp[k]
                frac = (ramp[k - 1] - level) / span if span else 1.0
                return (0.0, 0.0, 0.0, round((k - 1 + frac) / 255, 4))
        return (0.0, 0.0, 0.0, 1.0)

    def image(self, key: object, image: Image.Image) -> Image.Image:
        """A CMYK copy of an image (taken as it is when it is CMYK already); alpha is dropped,
        see flatten."""
        if key not in self._images:
            if image.mode == "CMYK":
                out = image.copy()
            else:
                cmyk = ImageCms.applyTransform(_on_white(image), self._to_cmyk)
                assert cmyk is not None  # as above
                out = limit_image(cmyk, self.press.ink_limit)
            self._images[key] = (
                image,
                out,
            )  # holding the source keeps an id() key from being reused
        return self._images[key][1]


@workspace.memoized(8)
def separation(press: Press) -> Separation:
    """One Separation per press for the whole run: building littleCMS transforms costs
    milliseconds."""
    return Separation(press)


@workspace.memoized(4096)
def _colour(sep: Separation, rgb: tuple[int, int, int]) -> tuple[float, float, float, float]:
    if rgb[0] == rgb[1] == rgb[2]:
        return sep.grey(rgb[0])
    image = ImageCms.applyTransform(Image.new("RGB", (1, 1), rgb), sep._to_cmyk)
    assert image is not None  # as above
    pixel = cast(tuple[int, int, int, int], image.getpixel((0, 0)))
    c, m, y, k = limit(tuple(round(v / 255, 4) for v in pixel), sep.press.ink_limit)
    return c, m, y, k


def limit(cmyk: tuple[float, ...], percent: float) -> tuple[float, ...]:
    """Within the total ink limit: C, M and Y scaled down together, K kept (what an ink-limited
    profile does)."""
    c, m, y, k = cmyk
    over = c + m + y + k - percent / 100
    if over <= 1e-6 or c + m + y == 0:
        return cmyk
    scale = max(0.0, percent / 100 - k) / (c + m + y)
    return (round(c * scale, 4), round(m * scale, 4), round(y * scale, 4), k)


def limit_image(cmyk: Image.Image, percent: float) -> Image.Image:
    """limit() for every pixel of a CMYK image."""
    c, m, y, k = cmyk.split()
    cap = percent / 100 * 255

    def scaled(
        a: dict[str, Any],
    ) -> Any:  # 1 where within the limit, else the share of C, M and Y that fits beside K
        cmy = a["float"](a["c"] + a["m"] + a["y"])
        room = a["max"](a["float"](a["k"]) * -1.0 + cap, 0.0)
        return a["min"](room / a["max"](cmy, 1.0), 1.0)

    factor = ImageMath.lambda_eval(scaled, c=c, m=m, y=y, k=k)
    channels = [
        ImageMath.lambda_eval(lambda a: a["convert"](a["ch"] * a["f"] + 0.5, "L"), ch=ch, f=factor)
        for ch in (c, m, y)
    ]
    return Image.merge("CMYK", (*channels, k))


def _on_white(image: Image.Image) -> Image.Image:
    if image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, rgba).convert("RGB")
    return image.convert("RGB")


class CmykCanvas(Canvas):
    """A ReportLab canvas that writes DeviceCMYK only: colours and images are separated on the
    way in."""

    def __init__(self, path: str, separation: Separation, **kwargs: Any) -> None:
        # ReportLab's default initial font is Helvetica, a base-14 font it never embeds
        kwargs.setdefault("initialFontName", fonts.for_canvas())
        super().__init__(path, **kwargs)
        self.separation = separation
        self._fill_black = False

    def setFillColor(self, aColor: _Colour, alpha: float | None = None) -> None:
        self._fill_black = _rgb(aColor) == (0.0, 0.0, 0.0)
        super().setFillColor(self._cmyk(aColor), alpha)

    def setStrokeColor(self, aColor: _Colour, alpha: float | None = None) -> None:
        super().setStrokeColor(self._cmyk(aColor), alpha)

    def _cmyk(self, colour: _Colour) -> _Colour:
        rgb = _rgb(colour)
        return colour if rgb is None else CMYKColor(*self.separation.colour(rgb))

    def setFillAlpha(self, a: float) -> None:
        _opaque(a)

    def setStrokeAlpha(self, a: float) -> None:
        _opaque(a)

    def drawPath(
        self, aPath: PDFPathObject, stroke: int = 1, fill: int = 0, fillMode: int | None = None
    ) -> None:
        """Large black fills print rich black (flat K looks grey beside other inks); text stays
        K."""
        if fill and self._fill_black and _area_mm2(aPath, inside(self)._currentMatrix) >= RICH_AREA:
            super().setFillColor(CMYKColor(*self.separation.press.rich_black))
            super().drawPath(aPath, stroke, fill, fillMode)
            super().setFillColor(CMYKColor(0, 0, 0, 1))
        else:
            super().drawPath(aPath, stroke, fill, fillMode)

    def linearGradient(
        self,
        x0: float,
        y0: float,
        x1: float,
        y1: float,
        colors: list[object],
        positions: list[float] | None = None,
        extend: bool = True,
    ) -> None:
        super().linearGradient(x0, y0, x1, y1, *self._cmyk_stops(colors, positions), extend=extend)

    def radialGradient(
        self,
        x: float,
        y: float,
        radius: float,
        colors: list[object],
        positions: list[float] | None = None,
        extend: bool = True,
    ) -> None:
        super().radialGradient(x, y, radius, *self._cmyk_stops(colors, positions), extend=extend)

    def _cmyk_stops(
        self, colors: list[object], positions: list[float] | None
    ) -> tuple[list[object], list[float] | None]:
        """A gradient's stops as a DeviceCMYK shading's: the RGB ramp sampled between stops, each
        sample separated like any colour, so the CMYK ramp follows the profile, not a straight
        line."""
        rgb = [c for c in map(_rgb, colors) if c is not None]
        if len(rgb) < len(colors):  # CMYK given already: taken as it is
            return list(colors), positions
        if positions is None:
            positions = [i / max(1, len(rgb) - 1) for i in range(len(rgb))]
        stops = sorted(zip(positions, rgb), key=lambda stop: stop[0])
        out = [stops[0]]
        for (p0, c0), (p1, c1) in zip(stops, stops[1:]):
            steps = GRADIENT_STEPS if p1 > p0 and c0 != c1 else 1
            out += [
                (p0 + (p1 - p0) * k / steps, _mix(c0, c1, k / steps)) for k in range(1, steps + 1)
            ]
        return [CMYKColor(*self.separation.colour(c)) for _, c in out], [p for p, _ in out]

    def drawImage(  # type: ignore[override]  # the keywords it does not name pass through
        self,
        image: str | Path | ImageReader,
        x: float,
        y: float,
        width: float | None = None,
        height: float | None = None,
        mask: object = None,
        preserveAspectRatio: bool = False,
        anchor: str = "c",
        **kwargs: Any,
    ) -> Any:
        pil = Image.open(image) if isinstance(image, (str, Path)) else reader_image(image)
        key = (
            str(image) if isinstance(image, (str, Path)) else id(pil)
        )  # the cache holds pil, so its id stays unique
        cmyk = self.separation.image(key, pil)
        return super().drawImage(
            ImageReader(cmyk), x, y, width, height, None, preserveAspectRatio, anchor, **kwargs
        )


def _rgb(colour: object) -> tuple[float, float, float] | None:
    """The RGB of a colour given as a tuple or a ReportLab Color; None for CMYK (kept as it is)."""
    if isinstance(colour, CMYKColor):
        return None
    if isinstance(colour, Color):
        return (colour.red, colour.green, colour.blue)
    if isinstance(colour, (tuple, list)) and len(colour) == 3:
        r, g, b = (float(v) for v in colour)
        return r, g, b
    return None


def _mix(
    a: tuple[float, float, float], b: tuple[float, float, float], t: float
) -> tuple[float, float, float]:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t)


def _opaque(alpha: float) -> None:
    if alpha < 1:  # faces with transparency are flattened before they reach this canvas
        raise ValueError(f"transparency (alpha {alpha}) reached a PDF/X-1a canvas")


def _area_mm2(path: PDFPathObject, matrix: tuple[float, ...]) -> float:
    """The bounding-box area of a path on the page, in mm^2."""
    xs: list[float] = []
    ys: list[float] = []
    a, b, c, d, e, f = matrix
    # the path's operators; each takes an even count of numbers (m, l: 2, c: 6, v, y, re: 4,
    # h: none), so pairs read across them are its points, as read one operator at a time
    numbers = [float(n) for n in _NUM.findall(path.getCode())]
    for px, py in zip(numbers[0::2], numbers[1::2]):
        xs.append(a * px + c * py + e)
        ys.append(b * px + d * py + f)
    if not xs:
        return 0.0
    return (max(xs) - min(xs)) * (max(ys) - min(ys)) / _PT_PER_MM**2


# ------------------------------------------------------------------ transparency


def transparency(face: Face) -> str | None:
    """What in the face's drawing is transparent, or None when nothing is."""
    assert isinstance(face.drawing, Drawing)  # callers pass compiled faces only
    for op in face.drawing.ops:
        if isinstance(op, (PathOp, TextOp)):
            if (op.fill and op.fill.alpha < 1) or (op.stroke and op.stroke.alpha < 1):
                return "opacity"
        elif isinstance(op, Gradient) and op.alpha < 1:
            return "a gradient's opacity"
        elif isinstance(op, ImageOp):
            if op.alpha < 1:
                return "an image's opacity"
            if _has_alpha(op.source):
                return "an image with transparent pixels"
    return None


@workspace.memoized(64)
def _has_alpha(source: bytes | str) -> bool:
    image = Image.open(io.BytesIO(source) if isinstance(source, bytes) else source)
    if image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info):
        extrema = cast(tuple[tuple[int, int], ...], image.convert("RGBA").getextrema())
        return extrema[3][0] < 255
    return False


@dataclass
class Raster:
    """A drawing that is one image: a flattened face, drawn at the same size."""

    image: Image.Image
    width_mm: float
    height_mm: float

    def draw(self, canvas: Canvas, x_pt: float = 0, y_pt: float = 0) -> None:
        canvas.drawImage(
            ImageReader(self.image),
            x_pt,
            y_pt,
            self.width_mm * _PT_PER_MM,
            self.height_mm * _PT_PER_MM,
        )


def transparency_problems(faces: list[Face]) -> list[Problem]:
    """A warning for each distinct face that flatten() will turn into an image."""
    problems, seen = [], set()
    for face in faces:
        what = transparency(face) if face.drawing is not None and face.svg not in seen else None
        seen.add(face.svg)
        if what:
            problems.append(
                Problem(
                    face.where,
                    (
                        f"the {face.side} of '{face.item}' uses {what}, "
                        "which PDF/X-1a forbids: it is flattened to a "
                        f"{FLATTEN_DPI} dpi image in the PDF/X files "
                        "(text included); draw it opaque to keep it vector"
                    ),
                    "pdfx",
                    "warning",
                )
            )
    return problems


def flatten(faces: list[Face], dpi: int = FLATTEN_DPI) -> list[Face]:
    """The faces, those with transparency replaced by an RGB image of themselves (separated when
    drawn)."""
    todo = {}
    for face in faces:
        if face.drawing is not None and face.svg not in todo and transparency(face):
            todo[face.svg] = face
    if not todo:
        return faces
    rasters = {}
    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp) / "flatten.pdf"
        firsts = list(todo.values())
        facepages.write_faces_pdf([facepages.Sheet(f, f.full_size) for f in firsts], pdf, "flatten")
        shots = [facepages.Shot(i, _pixels(f, dpi), dpi) for i, f in enumerate(firsts)]
        for face, image in zip(firsts, facepages.rasterise(pdf, shots)):
            assert image is not None  # a shot without a path comes back as an image
            rasters[face.svg] = Raster(image, *face.full_size)
    return [
        dataclasses.replace(face, drawing=rasters[face.svg]) if face.svg in rasters else face
        for face in faces
    ]


def _pixels(face: Face, dpi: int) -> tuple[int, int]:
    w, h = (max(1, round(s / 25.4 * dpi)) for s in face.full_size)
    return w, h


# ------------------------------------------------------------------ ink limit


def ink_problems(faces: list[Face], separation: Separation, service: str) -> list[Problem]:
    """A warning for each face whose ink somewhere exceeds the press's limit, naming the worst
    colour."""
    limit = separation.press.ink_limit
    problems, seen = [], set()
    for face in faces:
        if face.drawing is None or face.svg in seen:
            continue
        seen.add(face.svg)
        worst = _worst_ink(face, separation)
        if worst is not None and worst[0] > limit + 0.5:
            total, what = worst
            problems.append(
                Problem(
                    face.where,
                    (
                        f"the {face.side} of '{face.item}' needs {total:.0f} "
                        f"% ink where {service} allows {limit:g} %: {what}"
                    ),
                    "ink-limit",
                    "warning",
                )
            )
    return problems


def _worst_ink(face: Face, sep: Separation) -> tuple[float, str] | None:
    """(total %, description) of the heaviest colour or image pixel of a face."""
    worst, candidates = None, []
    assert isinstance(face.drawing, Drawing)  # the caller skips faces without a drawing
    for op in (
        face.drawing.ops
    ):  # the vector drawing, also of a face that will be flattened: same colours
        paints: list[Fill | Stroke | None] = (
            [op.fill, op.stroke] if isinstance(op, (PathOp, TextOp)) else []
        )
        for paint in (p for p in paints if p is not None):
            cmyk = sep.colour(paint.rgb)
            candidates.append((100 * sum(cmyk), _describe(paint.rgb, cmyk)))
        if isinstance(op, ImageOp):
            source = op.source
            image = Image.open(io.BytesIO(source) if isinstance(source, bytes) else source)
            name = (
                "an embedded image" if isinstance(source, bytes) else f"image {Path(source).name}"
            )
            candidates.append((_image_ink(sep.image(source, image)), name))
    for total, what in candidates:
        if worst is None or total > worst[0]:
            worst = (total, what)
    return worst


def _image_ink(cmyk: Image.Image) -> float:
    """The highest total ink of any pixel, in %."""
    c, m, y, k = cmyk.split()
    total = ImageMath.lambda_eval(
        lambda a: a["c"] + a["m"] + a["y"] + a["k"], c=c, m=m, y=y, k=k
    )  # 32-bit: no clipping at 255
    return cast(tuple[int, int], total.getextrema())[1] / 255 * 100


def _describe(rgb: tuple[float, ...], cmyk: tuple[float, ...]) -> str:
    hexa = "#" + "".join(f"{round(v * 255):02x}" for v in rgb)
    c, m, y, k = (round(v * 100) for v in cmyk)
    return f"colour {hexa} separates to C{c} M{m} Y{y} K{k}"


# ------------------------------------------------------------------ marking the file


def mark(path: Path, press: Press, title: str) -> None:
    """Make a CMYK-only PDF a PDF/X-1a:2003 file: OutputIntent with the profile, PDF/X keys in Info.

    pikepdf (qpdf) edits the file in place without touching its content
    streams; ReportLab has no way to write an OutputIntent.
    """
    import pikepdf

    with pikepdf.open(path, allow_overwriting_input=True) as pdf:
        icc = pikepdf.Stream(pdf, press.icc.read_bytes())
        icc.N = 4
        intent = pikepdf.Dictionary(
            Type=pikepdf.Name.OutputIntent,
            S=pikepdf.Name.GTS_PDFX,
            OutputConditionIdentifier=press.condition,
            OutputCondition=press.description,
            Info=press.description,
            RegistryName="http://www.color.org",
            DestOutputProfile=pdf.make_indirect(icc),
        )
        pdf.Root.OutputIntents = pikepdf.Array([pdf.make_indirect(intent)])
        info = pdf.docinfo
        info.Title = title
        info.GTS_PDFXVersion = VERSION
        info.GTS_PDFXConformance = VERSION
        info.Trapped = pikepdf.Name("/False")
        # invariant output: keep ReportLab's fixed dates and ID, and the PDF 1.4 header X-1a:2003
        # needs
        pdf.save(
            path,
            force_version="1.4",
            deterministic_id=True,
            stream_decode_level=pikepdf.StreamDecodeLevel.none,
        )  # keep ReportLab's compressed streams as they are
