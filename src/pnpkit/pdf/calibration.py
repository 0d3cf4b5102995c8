"""The print-check sheet that opens every kit: true size on the front, duplex alignment on the back.

Front: a 100 mm ruler, a 1-inch and a 50 mm square, the settings the kit was
built with. In duplex modes a back page follows (so every kit page after it
starts on a fresh sheet) carrying the other half of a duplex ladder: ticks
on the back sit at the mirror image of the front's ticks, tick k moved by
k x 0.5 mm. Held to the light, the back tick that covers its front partner
says how much to add to --back-offset, across (X) and down (Y). Near each
corner the front has black rings 0.5 mm apart and the back a red cross at
their centre's mirror image: an offset moves all four crosses alike, a back
printed larger or smaller moves the left and right ones apart or together,
and a sheet fed askew moves the top ones across one way and the bottom ones
the other, so the corners show scale and skew that the centre ladders cannot.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TypedDict

from reportlab.lib.colors import Color, black
from reportlab.pdfgen.canvas import Canvas

from pnpkit.pack.model import DUPLEX_MODES
from pnpkit.typeset import fonts, shaping
from pnpkit.units import PT_PER_MM

At = Callable[[float, float], tuple[float, float]]  # mm from the page's top-left -> points


class _Words(TypedDict, total=False):
    words: dict[str, str]  # the page's words (words()), else pnpkit's for `lang`


class Info(_Words):
    """What the print-check page shows of a pack's print settings (build.py fills it in)."""

    page: tuple[float, float]  # mm
    lang: str
    title: str
    axis: str | None  # the duplex flip axis; None: no back page
    back_offset: tuple[float, float]  # mm
    settings: list[str]  # one line each


K = PT_PER_MM
STEP = 0.5  # mm of back offset between neighbouring ticks
LADDER = range(-4, 5)
PITCH = 12.0  # mm between ticks of a ladder
RED = Color(0.8, 0.1, 0.1)
CORNER_INSET = 15.0  # mm from the paper's edges to a corner target's centre (rings reach 2.5 mm)
RINGS = (0.5, 1.0, 1.5, 2.0, 2.5)  # mm: a red cross within ring r is off by less than r
CROSS = 3.0  # mm: half the length of each arm of a back's red cross

_LINES = MappingProxyType(
    {  # the page's sentences in pnpkit's languages, in LINE_KEYS' order
        "en": (
            "Print check",
            "Print at 100% / Actual size, not 'Fit to page'.",
            "The bar must measure exactly 100 mm and the squares 1 inch and 50 mm.",
            "If not, your printer scaled the page (typically to 95-97%): reprint at actual size.",
            "Duplex check: hold this sheet to the light. In each ladder, find the red tick "
            "(printed "
            "on the back)",
            "that covers a black tick: the number under it is what to add to your back offset, X "
            "across, Y down.",
            "Corners: each red cross (back) should sit at the centre of its black rings, 0.5 mm "
            "apart. All four off alike: use the ladders.",
            "Left and right off across in opposite ways: the back is scaled, print both sides at "
            "100%. Top and bottom likewise: skewed, set the paper guides.",
        ),
        "pl": (
            "Kontrola wydruku",
            "Drukuj w skali 100% / rozmiar rzeczywisty, nie 'Dopasuj do strony'.",
            "Pasek musi mieć dokładnie 100 mm, a kwadraty 1 cal i 50 mm.",
            "Jeśli nie, drukarka przeskalowała stronę (zwykle do 95-97%): wydrukuj ponownie w "
            "skali "
            "100%.",
            "Kontrola druku dwustronnego: obejrzyj kartkę pod światło. W każdej drabince znajdź "
            "czerwoną kreskę",
            "(z rewersu), która zakrywa czarną: liczba pod nią to poprawka przesunięcia rewersu, "
            "X w "
            "poziomie, Y w pionie.",
            "Narożniki: czerwony krzyżyk (z rewersu) powinien trafić w środek czarnych kółek co "
            "0,5 "
            "mm. Wszystkie przesunięte tak samo: użyj drabinek.",
            "Lewy i prawy przesunięte w poziomie przeciwnie: rewers jest przeskalowany, drukuj "
            "obie "
            "strony w 100%. Górne i dolne tak: skos, ustaw prowadnice.",
        ),
        "it": (
            "Verifica di stampa",
            "Stampa al 100% / dimensioni effettive, non 'Adatta alla pagina'.",
            "La barra deve misurare esattamente 100 mm e i quadrati 1 pollice e 50 mm.",
            "Altrimenti la stampante ha ridimensionato la pagina (di solito al 95-97%): ristampa "
            "al "
            "100%.",
            "Verifica fronte-retro: guarda il foglio in controluce. In ogni scala trova il segno "
            "rosso (sul retro)",
            "che copre un segno nero: il numero sotto è da aggiungere allo spostamento del "
            "retro, X "
            "in orizzontale, Y in verticale.",
            "Angoli: ogni croce rossa (sul retro) deve cadere al centro dei cerchi neri, distanti "
            "0,5 mm. Tutte spostate uguali: usa le scale.",
            "Sinistra e destra spostate in orizzontale in versi opposti: retro ridimensionato, "
            "stampa i due lati al 100%. Sopra e sotto così: storto, regola le guide.",
        ),
        "eo": (
            "Presa kontrolo",
            "Presu je 100% / reala grandeco, ne 'Adapti al paĝo'.",
            "La stango devas mezuri ĝuste 100 mm kaj la kvadratoj 1 colon kaj 50 mm.",
            "Se ne, via presilo skalis la paĝon (kutime al 95-97%): represu je reala grandeco.",
            "Dupleksa kontrolo: rigardu la folion kontraŭ lumo. En ĉiu ŝtupetaro trovu la ruĝan "
            "streketon (de la dorso)",
            "kiu kovras nigran: la nombro sub ĝi estas aldonota al la dorsa ŝovo, X horizontale, Y "
            "vertikale.",
            "Anguloj: ĉiu ruĝa kruceto (de la dorso) sidu en la centro de siaj nigraj ringoj, je "
            "0,5 "
            "mm. Ĉiuj ŝovitaj same: uzu la ŝtupetarojn.",
            "Maldekstre kaj dekstre ŝovitaj horizontale kontraŭe: la dorso estas skalita, presu "
            "ambaŭ flankojn je 100%. Supre kaj malsupre tiel: oblikva, ĝustigu la gvidilojn.",
        ),
    }
)

LINE_KEYS = (
    "print_check",
    "actual_size",
    "measure",
    "scaled",
    "duplex",
    "duplex_ticks",
    "corners",
    "corners_how",
)
# The one list of the print check's words: key (a pack gives it as the string `pnpkit_<key>`)
# -> pnpkit's English. docs/format.md lists these keys (tests/test_print_check_words.py).
# {name} in a word stands for a setting's value; page labels use `front` to `label_test`.
WORDS: Mapping[str, str] = MappingProxyType(
    {
        **dict(zip(LINE_KEYS, _LINES["en"], strict=True)),
        "paper": "paper: {paper}",
        "backs": "backs: {backs} (back offset {x} mm, {y} mm)",
        "spacing": "bleed: {bleed} mm, margin: {margin} mm, gap: {gap} mm",
        "made_with": "made with pnpkit",
        "front": "front",
        "back": "back",
        "tile": "cut left and top edges along the print, lay on the neighbour, match the targets",
        "fold_pair": "too large to fold beside its front: lay this sheet left of the last one, "
        "edges touching; tape, fold along the join",
        "label_test": "label test: print on plain paper, lay on a label sheet against the light; "
        "each outline should sit on a label's edge",
        # which duplex setting to choose (by the kit's flip axis), and why auto-rotate cannot matter
        "flip_long": "Print double-sided, flipping on the long edge.",
        "flip_short": "Print double-sided, flipping on the short edge.",
        "one_sided": "Print on one side of the paper.",
        "all_portrait": "Every page is portrait: landscape pieces are printed turned on the sheet, "
        "so auto-rotate leaves every page as it is.",
        "printed_at": "printed at {scale} %",  # on a sheet shrunk to fit the paper (shrink.py)
    }
)
_SHORT = MappingProxyType(
    {
        "pl": (
            "papier: {paper}",
            "rewersy: {backs} (przesunięcie rewersu {x} mm, {y} mm)",
            "spad: {bleed} mm, margines: {margin} mm, odstęp: {gap} mm",
            "zrobione w pnpkit",
            "awers",
            "rewers",
            "przytnij lewą i górną krawędź wzdłuż nadruku, połóż na sąsiednim arkuszu, dopasuj "
            "znaczniki",
            "za duży, by złożyć obok awersu: połóż ten arkusz na lewo od poprzedniego, krawędziami "
            "do siebie; sklej taśmą, złóż wzdłuż łączenia",
            "test etykiet: wydrukuj na zwykłym papierze, przyłóż do arkusza etykiet pod światło; "
            "każdy kontur powinien leżeć na krawędzi etykiety",
            "Drukuj dwustronnie, obracając wzdłuż długiej krawędzi.",
            "Drukuj dwustronnie, obracając wzdłuż krótkiej krawędzi.",
            "Drukuj jednostronnie.",
            "Każda strona jest pionowa: elementy poziome są wydrukowane obrócone na arkuszu, więc "
            "autoobracanie niczego nie zmienia.",
            "wydrukowano w skali {scale} %",
        ),
        "it": (
            "carta: {paper}",
            "retro: {backs} (spostamento del retro {x} mm, {y} mm)",
            "abbondanza: {bleed} mm, margine: {margin} mm, spazio: {gap} mm",
            "fatto con pnpkit",
            "fronte",
            "retro",
            "taglia i bordi sinistro e superiore lungo la stampa, appoggia sul foglio vicino, "
            "allinea i segni",
            "troppo grande per piegarlo accanto al fronte: metti questo foglio a sinistra del "
            "precedente, bordi a contatto; fissa con nastro, piega lungo la giunta",
            "prova etichette: stampa su carta comune, appoggia su un foglio di etichette in "
            "controluce; ogni contorno deve cadere sul bordo di un'etichetta",
            "Stampa fronte-retro, capovolgendo sul lato lungo.",
            "Stampa fronte-retro, capovolgendo sul lato corto.",
            "Stampa solo fronte.",
            "Ogni pagina è verticale: i pezzi orizzontali sono stampati ruotati sul foglio, "
            "così la rotazione automatica non cambia nulla.",
            "stampato al {scale} %",
        ),
        "eo": (
            "papero: {paper}",
            "dorsoj: {backs} (dorsa ŝovo {x} mm, {y} mm)",
            "sangado: {bleed} mm, marĝeno: {margin} mm, interspaco: {gap} mm",
            "farita per pnpkit",
            "antaŭo",
            "dorso",
            "tranĉu la maldekstran kaj supran randojn laŭ la preso, metu sur la najbaron, "
            "kongruigu la celojn",
            "tro granda por faldi apud sia antaŭo: metu ĉi tiun folion maldekstre de la lasta, "
            "randoj tuŝantaj; glubendu, faldu laŭ la kunigo",
            "etikeda provo: presu sur ordinara papero, metu sur etikedan folion kontraŭ lumo; ĉiu "
            "konturo sidu sur rando de etikedo",
            "Presu dupleksa, turnante laŭ la longa rando.",
            "Presu dupleksa, turnante laŭ la mallonga rando.",
            "Presu unuflanke.",
            "Ĉiu paĝo estas vertikala: horizontalaj pecoj estas presitaj turnitaj sur la folio, do "
            "aŭtomata turnado ŝanĝas nenion.",
            "presita je {scale} %",
        ),
    }
)
TEXT: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {  # pnpkit's own words in each language it speaks
        "en": WORDS,
        **{
            lang: dict(zip(LINE_KEYS, lines, strict=True))
            | dict(zip(list(WORDS)[len(LINE_KEYS) :], _SHORT[lang], strict=True))
            for lang, lines in _LINES.items()
            if lang != "en"
        },
    }
)
PREFIX = "pnpkit_"
WORD_KEYS = tuple(PREFIX + key for key in WORDS)  # the strings a pack gives them as
HEADING_PT, HEADING_MIN_PT = 16.0, 10.0  # the heading shrinks to 10 pt, then wraps onto two lines


def words(lang: str, strings: dict[str, dict[str, str]]) -> tuple[dict[str, str], list[str]]:
    """The print check's words in `lang`, key by key: the pack's `pnpkit_<key>` string, else
    pnpkit's in that language, else pnpkit's English; and the strings that fell back to English
    in a language pnpkit does not speak (a pack need not give a language pnpkit has)."""
    own = TEXT.get(lang, {})
    out = {
        key: strings.get(PREFIX + key, {}).get(lang) or own.get(key) or english
        for key, english in WORDS.items()
    }
    missing = [] if own else [PREFIX + k for k in WORDS if lang not in strings.get(PREFIX + k, {})]
    return out, missing


def settings(text: dict[str, str], values: dict[str, str]) -> list[str]:
    """The page's settings lines in its words, each {name} replaced by its value (a plain
    replace: a pack's word is text, never a format string that could read attributes)."""
    lines = []
    for key in ("paper", "backs", "spacing", "made_with"):
        line = text[key]
        for name, value in values.items():
            line = line.replace("{" + name + "}", value)
        lines.append(line)
    return lines


def heading(title: str, width_mm: float, min_pt: float) -> tuple[list[str], float]:
    """The heading's lines and size so it fits width_mm: 16 pt shrinking to 10 pt, then two
    lines, shrinking on (below min_pt the caller warns) to fit at all."""
    from pnpkit.typeset import text as textlayout  # layout's wrap, measured with the real font

    bold = fonts.default_face(bold=True)
    size = HEADING_PT
    while size > HEADING_MIN_PT and fonts.string_width(title, bold, size) > width_mm * K:
        size -= 0.5
    if fonts.string_width(title, bold, size) <= width_mm * K:
        return [title], size
    while True:
        lines = textlayout.wrap(title, bold, size / K, width_mm)
        widest = max(fonts.string_width(line, bold, size) for line in lines)
        if (len(lines) <= 2 and widest <= width_mm * K) or size <= min(min_pt, 4.0):
            return lines, size
        size -= 0.25


def page_count(backs: str) -> int:
    """How many pages the print check takes: in duplex modes its back too, so that the kit's
    pages after it start on a fresh sheet."""
    return 2 if backs in DUPLEX_MODES else 1


def draw(c: Canvas, info: Info) -> int:
    """Draw the print-check page (and its back in duplex modes); return how many pages that took."""
    _front(c, info)
    c.showPage()
    if info.get("axis") is None:
        return 1
    _back(c, info)
    c.showPage()
    return 2


def ladder_ticks(
    page: tuple[float, float],
) -> tuple[list[tuple[int, float, float]], list[tuple[int, float, float]]]:
    """Front positions (mm, top-left origin) of the X ladder's and the Y ladder's ticks: (k, x,
    y)."""
    w, h = page
    across = [(k, w / 2 + k * PITCH, h - 48) for k in LADDER]
    down = [(k, w - 22, h - 120 + k * PITCH * 0.55) for k in LADDER]
    return across, down


def corner_targets(page: tuple[float, float]) -> list[tuple[float, float]]:
    """Front centres (mm, top-left origin) of the four corner targets: top left, top right,
    bottom left, bottom right."""
    w, h = page
    near, far_x, far_y = CORNER_INSET, w - CORNER_INSET, h - CORNER_INSET
    return [(near, near), (far_x, near), (near, far_y), (far_x, far_y)]


def back_position(
    info: Info, x: float, y: float, extra: tuple[float, float]
) -> tuple[float, float]:
    """Where on the back page a mark must go to sit behind (x, y) of the front, with the current
    back offset plus `extra` applied as the layout applies back offsets."""
    w, h = info["page"]
    dx, dy = info["back_offset"][0] + extra[0], info["back_offset"][1] + extra[1]
    return (w - x + dx, y + dy) if info["axis"] == "x" else (x + dx, h - y + dy)


def _words(info: Info) -> Mapping[str, str]:
    """The page's words: the pack's (build sets them, see words()), else pnpkit's for the
    language."""
    return info.get("words") or TEXT.get(info.get("lang", "en"), WORDS)


def _rtl(info: Info) -> bool:
    """Whether the page's language is written right to left: its heading's first strong letter."""
    return shaping.base_level(_words(info)["print_check"]) == 1


def _say(c: Canvas, info: Info, x: float, y: float, line: str, face: tuple[str, float]) -> None:
    """One line of the page's words at (x, y) mm from the top-left in `face` (font, size):
    shaped and in visual order (Arabic joins, numbers read left to right), and in a right-to-left
    language (its heading's first strong letter) mirrored: ending x mm from the right edge."""
    w, h = info["page"]
    font, size = face
    c.setFont(font, size)
    rtl = _rtl(info)
    chars, width = shaping.visual_line(line, font, "rtl" if rtl else "ltr")
    c.drawString((w - x) * K - width * size if rtl else x * K, (h - y) * K, chars)


def _front(c: Canvas, info: Info) -> None:
    w, h = info["page"]
    c.setPageSize((w * K, h * K))
    text = _words(info)
    regular, bold = fonts.default_face(), fonts.default_face(bold=True)

    def at(x: float, y: float) -> tuple[float, float]:
        return x * K, (h - y) * K

    lines, size = heading(f"{info['title']} — {text['print_check']}", w - 40, 0.0)
    for i, line in enumerate(lines):  # a long pack name shrinks, then wraps: never off the page
        _say(c, info, 20, 25 - (len(lines) - 1 - i) * size * 1.15 / K, line, (bold, size))
    for i, key in enumerate(LINE_KEYS[1:4]):
        _say(c, info, 20, 35 + i * 6, text[key], (regular, 10))
    _ruler(c, at, 20, 70)
    _sides(c, info, text)
    c.setLineWidth(0.5)
    c.setStrokeColor(black)
    c.rect(*at(20, 110 + 25.4), 25.4 * K, 25.4 * K)
    c.rect(*at(60, 110 + 50), 50 * K, 50 * K)
    c.setFont(regular, 8)
    c.drawString(*at(20, 110 + 25.4 + 5), "1 in")
    c.drawString(*at(60, 110 + 50 + 5), "50 mm")
    inset = 40 if _rtl(info) and info.get("axis") is not None else 20  # clear of the Y ladder
    for i, line in enumerate(info.get("settings", [])):
        _say(c, info, inset, 175 + i * 5, line, (regular, 9))
    if info.get("axis") is not None:
        _front_ladders(c, at, info, (text["duplex"], text["duplex_ticks"]))
        _front_corners(c, at, info, (text["corners"], text["corners_how"]))


FLIP = MappingProxyType(
    {"x": "flip_long", "y": "flip_short", None: "one_sided"}
)  # the duplex flip axis -> its word


def _sides(c: Canvas, info: Info, text: Mapping[str, str]) -> None:
    """Under the ruler: which duplex setting to choose (the flip the backs were laid out for), and
    that every page is portrait (orient.py), each line shrunk to stay between the margins."""
    w = info["page"][0]
    regular, bold = fonts.default_face(), fonts.default_face(bold=True)
    c.setFillColor(black)
    for y, line, font in (
        (88.0, text[FLIP[info.get("axis")]], bold),
        (94.0, text["all_portrait"], regular),
    ):
        size = 10.0
        while size > 5 and fonts.string_width(line, font, size) > (w - 40) * K:
            size -= 0.25
        _say(c, info, 20, y, line, (font, size))


def _front_ladders(c: Canvas, at: At, info: Info, lines: tuple[str, ...]) -> None:
    w, h = info["page"]
    c.setFillColor(black)
    for i, line in enumerate(lines):
        _say(c, info, 20, h - 75 + i * 4.5, line, (fonts.default_face(), 7.5))
    across, down = ladder_ticks(info["page"])
    c.setStrokeColor(black)
    c.setLineWidth(0.6)
    c.setFont(fonts.default_face(), 6)
    for k, x, y in across:
        c.line(*at(x, y - 6), *at(x, y))
        c.drawCentredString(*at(x, y + 3.5), f"{k * STEP:+g}" if k else "0")
    c.drawString(*at(across[0][1] - 10, across[0][2] - 1.5), "X")
    for k, x, y in down:
        c.line(*at(x - 6, y), *at(x, y))
        c.drawString(*at(x + 1.5, y + 1), f"{k * STEP:+g}" if k else "0")
    c.drawString(*at(down[0][1] - 4, down[0][2] - 4), "Y")


def _front_corners(c: Canvas, at: At, info: Info, lines: tuple[str, ...]) -> None:
    """Black rings near each corner, the distances between their centres, and how to read them."""
    w, h = info["page"]
    regular = str(fonts.face_name(fonts.DEFAULT_FAMILY))
    c.setFillColor(black)
    for i, line in enumerate(lines):  # under the ladders' words, shrunk to stay between the margins
        size = 7.5
        while size > 4 and fonts.string_width(line, regular, size) > (w - 40) * K:
            size -= 0.25
        _say(c, info, 20, h - 66 + i * 4.5, line, (regular, size))
    c.setStrokeColor(black)
    c.setLineWidth(0.2)
    for x, y in corner_targets(info["page"]):
        for r in RINGS:
            c.circle(*at(x, y), r * K)
    (left, top), (right, _), _, (_, bottom) = corner_targets(info["page"])
    # what the distances measure: a thin line from ring to ring along the left and the bottom
    # targets, each distance's label beside the middle of its line
    reach = RINGS[-1] + 0.5
    c.setStrokeColor(Color(0.6, 0.6, 0.6))
    c.line(*at(left, top + reach), *at(left, bottom - reach))
    c.line(*at(left + reach, bottom), *at(right - reach, bottom))
    c.setFont(regular, 6)
    c.drawCentredString(
        *at(w / 2, bottom + 3), f"\u2190 {right - left:g} mm \u2192"
    )  # under its line
    c.saveState()  # the height beside the left targets' line, as the width is under the bottom's
    c.translate(*at(left - 1, h / 2))
    c.rotate(90)
    c.drawCentredString(0, 0, f"\u2190 {bottom - top:g} mm \u2192")
    c.restoreState()


def _back(c: Canvas, info: Info) -> None:
    """Red ticks behind the front's, tick k shifted by k x STEP along its ladder."""
    w, h = info["page"]
    c.setPageSize((w * K, h * K))

    def at(x: float, y: float) -> tuple[float, float]:
        return x * K, (h - y) * K

    c.setFont(fonts.default_face(), 7.5)
    c.setFillColor(RED)
    text = _words(info)
    title, regular, size = (
        f"{info['title']} — {text['print_check']}: ↔ ↕",
        fonts.default_face(),
        7.5,
    )
    while size > 3 and fonts.string_width(title, regular, size) > (w - 40) * K:
        size -= (
            0.25  # a note to whoever holds the sheet to the light: it shrinks to stay on the page
        )
    _say(c, info, 20, 25, title, (regular, size))
    across, down = ladder_ticks(info["page"])
    c.setStrokeColor(RED)
    c.setLineWidth(0.6)
    for k, x, y in across:
        bx0, by0 = back_position(info, x, y - 6, (k * STEP, 0))
        bx1, by1 = back_position(info, x, y, (k * STEP, 0))
        c.line(*at(bx0, by0), *at(bx1, by1))
    for k, x, y in down:
        bx0, by0 = back_position(info, x - 6, y, (0, k * STEP))
        bx1, by1 = back_position(info, x, y, (0, k * STEP))
        c.line(*at(bx0, by0), *at(bx1, by1))
    c.setLineWidth(0.25)
    for x, y in corner_targets(info["page"]):  # behind each corner's rings, as the offset puts it
        bx, by = back_position(info, x, y, (0.0, 0.0))
        c.line(*at(bx - CROSS, by), *at(bx + CROSS, by))
        c.line(*at(bx, by - CROSS), *at(bx, by + CROSS))


def _ruler(c: Canvas, at: At, x0: float, y0: float) -> None:
    """A 100 mm bar with a tick every millimetre, longer every 5 and 10."""
    c.setFillColor(black)
    c.setStrokeColor(black)
    c.setLineWidth(0.3)
    c.line(*at(x0, y0), *at(x0 + 100, y0))
    c.setFont(fonts.default_face(), 7)
    for mm in range(101):
        length = 8 if mm % 10 == 0 else 5 if mm % 5 == 0 else 3
        c.line(*at(x0 + mm, y0), *at(x0 + mm, y0 - length))
        if mm % 10 == 0:
            c.drawCentredString(*at(x0 + mm, y0 - 10), str(mm))
