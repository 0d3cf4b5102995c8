"""The kit guide's words (guide.py) and the tuck boxes' marks (tuckbox.py), in the languages of
pnpkit's own print check. A pack gives its own as strings `pnpkit_guide_<key>` (any of them, per
language), as it gives the print check's (`pnpkit_print_check`, ...); a language pnpkit has no
words for falls back to English key by key, and validate warns."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from pnpkit.errors import Problem
from pnpkit.pack.model import Pack

PREFIX = "pnpkit_guide_"

EN = MappingProxyType(
    {
        "kit": "Print-and-play kit",
        "players": "{min}–{max} players",
        "one": "players: {n}",
        "contents": "Contents",
        "component": "Component",
        "count": "Count",
        "size": "Size",
        "supplies": "You also need",
        "sheet_map": "Sheet map",
        "map_intro": "Page numbers are this PDF's. A sheet printed on both sides has two: "
        "its front, then its back.",
        "pages": "Pages",
        "on_it": "On it",
        "todo": "To do",
        "cut": "cut",
        "fold": "fold",
        "glue": "glue",
        "tuckbox": "tuck box: {name}",
        "part": "{name}: part {part} of {parts}",
        "assembly": "Assembly",
        "card": "Cards: cut along the crop marks at the sheet's edges, a whole row or column at "
        "a time with a ruler and a craft knife. Backs are printed behind their fronts.",
        "tile": "Tiles: cut along the crop marks; glue the sheet onto card (a cereal box) first "
        "for sturdier tiles.",
        "hex": "Hex tiles: cut the straight rows first, then each tile along its printed outline.",
        "token": "Tokens: cut along each printed outline; round ones with scissors or a circle "
        "punch.",
        "standee": "Standees: cut out, fold along the middle line so the two figures are back to "
        "back, glue them together, and fold the base tabs outwards to stand it up.",
        "sheet": "Sheets: cut along the crop marks.",
        "board": "Boards: cut along the crop marks.",
        "die": "Dice: cut out the net, fold every inner line, glue each tab under its neighbour "
        "face; a dab of glue and a minute's hold per tab.",
        "split": "Boards on several sheets: cut each part's left and top edges along the print, "
        "lay it on its neighbour so the targets match, and tape or glue along the seam.",
        "tuck": "Tuck box: cut along the solid outline, fold every dashed line, glue the side tab "
        "inside the opposite side panel; the flaps tuck in at top and bottom.",
        "gutter": "Fold-over sheets: fold each sheet along its middle line, glue the halves back "
        "to back, then cut.",
        "labels": "Label sheets: print on the named sheet of stickers; peel each label off.",
        "printing": "Printing",
        "advice_scale": "Print at 100 % / Actual size, never 'Fit to page': the print check after "
        "this guide must measure true.",
        "advice_duplex": "Print double-sided, flipping on the {edge} edge; first print the "
        "print check alone and read its back.",
        "advice_single": "Print single-sided.",
        "advice_paper": "Paper: {paper}. Thicker paper (160-200 g/m²) or card makes sturdier "
        "pieces.",
        "long": "long",
        "short": "short",
        "blank": "This page is left blank: the print check starts on a fresh sheet.",
        "guide": "guide",
    }
)

PL = MappingProxyType(
    {
        "kit": "Zestaw do samodzielnego wydruku",
        "players": "{min}–{max} graczy",
        "one": "liczba graczy: {n}",
        "contents": "Zawartość",
        "component": "Element",
        "count": "Liczba",
        "size": "Rozmiar",
        "supplies": "Potrzebne będą też",
        "sheet_map": "Mapa arkuszy",
        "map_intro": "Numery stron tego pliku PDF. Arkusz drukowany dwustronnie ma dwa: "
        "awers, potem rewers.",
        "pages": "Strony",
        "on_it": "Zawiera",
        "todo": "Co zrobić",
        "cut": "wytnij",
        "fold": "zegnij",
        "glue": "sklej",
        "tuckbox": "pudełko: {name}",
        "part": "{name}: część {part} z {parts}",
        "assembly": "Składanie",
        "card": "Karty: tnij wzdłuż znaczników cięcia na brzegach arkusza, cały rząd lub kolumnę "
        "naraz, linijką i nożykiem. Rewersy są wydrukowane za awersami.",
        "tile": "Żetony i płytki: tnij wzdłuż znaczników; dla sztywności najpierw naklej arkusz "
        "na tekturę (np. pudełko po płatkach).",
        "hex": "Heksy: najpierw przetnij proste rzędy, potem każdą płytkę wzdłuż jej obrysu.",
        "token": "Znaczniki: tnij wzdłuż obrysów; okrągłe nożyczkami lub dziurkaczem do kół.",
        "standee": "Figurki: wytnij, zegnij wzdłuż środkowej linii tak, by obie postacie były "
        "plecami do siebie, sklej je i odegnij podstawki na zewnątrz.",
        "sheet": "Arkusze: tnij wzdłuż znaczników cięcia.",
        "board": "Plansze: tnij wzdłuż znaczników cięcia.",
        "die": "Kości: wytnij siatkę, zegnij wszystkie wewnętrzne linie, przyklej każdą zakładkę "
        "pod sąsiednią ściankę; przytrzymaj chwilę.",
        "split": "Plansze na kilku arkuszach: przytnij lewy i górny brzeg każdej części wzdłuż "
        "druku, połóż ją na sąsiedniej tak, by celowniki się pokryły, i sklej lub sklej taśmą.",
        "tuck": "Pudełko: wytnij wzdłuż ciągłej linii, zegnij wszystkie przerywane, przyklej "
        "boczną zakładkę od środka do przeciwległej ścianki; klapki wsuń u góry i u dołu.",
        "gutter": "Arkusze składane: zegnij arkusz wzdłuż środkowej linii, sklej połówki, potem "
        "tnij.",
        "labels": "Arkusze etykiet: drukuj na wskazanych naklejkach i odklejaj je po kolei.",
        "printing": "Drukowanie",
        "advice_scale": "Drukuj w skali 100% / rozmiar rzeczywisty, nigdy 'Dopasuj do strony': "
        "kontrola wydruku po tym przewodniku musi się zgadzać.",
        "advice_duplex": "Drukuj dwustronnie, obracając wzdłuż {edge} krawędzi; najpierw wydrukuj "
        "samą kontrolę wydruku i odczytaj jej rewers.",
        "advice_single": "Drukuj jednostronnie.",
        "advice_paper": "Papier: {paper}. Grubszy papier (160-200 g/m²) lub karton da sztywniejsze "
        "elementy.",
        "long": "dłuższej",
        "short": "krótszej",
        "blank": "Ta strona jest pusta: kontrola wydruku zaczyna się na nowym arkuszu.",
        "guide": "przewodnik",
    }
)

IT = MappingProxyType(
    {
        "kit": "Kit print-and-play",
        "players": "{min}–{max} giocatori",
        "one": "giocatori: {n}",
        "contents": "Contenuto",
        "component": "Componente",
        "count": "Quantità",
        "size": "Misura",
        "supplies": "Serve anche",
        "sheet_map": "Mappa dei fogli",
        "map_intro": "I numeri sono le pagine di questo PDF. Un foglio stampato fronte-retro ne ha "
        "due: il fronte, poi il retro.",
        "pages": "Pagine",
        "on_it": "Contiene",
        "todo": "Da fare",
        "cut": "taglia",
        "fold": "piega",
        "glue": "incolla",
        "tuckbox": "scatolina: {name}",
        "part": "{name}: parte {part} di {parts}",
        "assembly": "Montaggio",
        "card": "Carte: taglia lungo i segni di taglio ai bordi del foglio, una riga o colonna "
        "intera alla volta, con righello e taglierino. I retri sono stampati dietro i fronti.",
        "tile": "Tessere: taglia lungo i segni; per tessere più robuste incolla prima il foglio "
        "su cartoncino (una scatola di cereali).",
        "hex": "Esagoni: taglia prima le file dritte, poi ogni tessera lungo il suo contorno.",
        "token": "Segnalini: taglia lungo ogni contorno; quelli rotondi con le forbici o una "
        "fustella tonda.",
        "standee": "Sagome: ritaglia, piega lungo la linea centrale con le due figure schiena "
        "contro schiena, incollale e piega le basi verso l'esterno.",
        "sheet": "Fogli: taglia lungo i segni di taglio.",
        "board": "Plance: taglia lungo i segni di taglio.",
        "die": "Dadi: ritaglia lo sviluppo, piega ogni linea interna, incolla ogni linguetta sotto "
        "la faccia vicina tenendo premuto un momento.",
        "split": "Plance su più fogli: rifila i bordi sinistro e superiore di ogni parte lungo la "
        "stampa, sovrapponila alla vicina facendo combaciare i mirini e fissa con nastro o colla.",
        "tuck": "Scatolina: taglia lungo la linea continua, piega ogni linea tratteggiata, incolla "
        "la linguetta laterale dentro il fianco opposto; le alette si infilano sopra e sotto.",
        "gutter": "Fogli da piegare: piega ogni foglio lungo la linea centrale, incolla le metà "
        "schiena contro schiena, poi taglia.",
        "labels": "Fogli di etichette: stampa sul foglio adesivo indicato e stacca le etichette.",
        "printing": "Stampa",
        "advice_scale": "Stampa al 100% / dimensioni effettive, mai 'Adatta alla pagina': la "
        "verifica di stampa dopo questa guida deve misurare giusto.",
        "advice_duplex": "Stampa fronte-retro, capovolgendo sul lato {edge}; prima stampa da "
        "sola la "
        "verifica di stampa e leggi il suo retro.",
        "advice_single": "Stampa solo fronte.",
        "advice_paper": "Carta: {paper}. Carta più spessa (160-200 g/m²) o cartoncino rende i "
        "pezzi "
        "più robusti.",
        "long": "lungo",
        "short": "corto",
        "blank": "Pagina lasciata vuota: la verifica di stampa inizia su un foglio nuovo.",
        "guide": "guida",
    }
)

EO = MappingProxyType(
    {
        "kit": "Presebla ludilaro",
        "players": "{min}–{max} ludantoj",
        "one": "ludantoj: {n}",
        "contents": "Enhavo",
        "component": "Ero",
        "count": "Nombro",
        "size": "Grandeco",
        "supplies": "Vi ankaŭ bezonas",
        "sheet_map": "Mapo de la folioj",
        "map_intro": "La numeroj estas paĝoj de ĉi tiu PDF. Folio presita ambaŭflanke havas du: "
        "sian antaŭon, poste sian dorson.",
        "pages": "Paĝoj",
        "on_it": "Enhavas",
        "todo": "Farenda",
        "cut": "tondu",
        "fold": "faldu",
        "glue": "gluu",
        "tuckbox": "skatoleto: {name}",
        "part": "{name}: parto {part} el {parts}",
        "assembly": "Muntado",
        "card": "Kartoj: tranĉu laŭ la tranĉ-markoj ĉe la randoj de la folio, tutan vicon aŭ "
        "kolumnon samtempe, per liniilo kaj tranĉilo. La dorsoj estas presitaj malantaŭ la "
        "antaŭoj.",
        "tile": "Kaheloj: tranĉu laŭ la markoj; por pli fortikaj kaheloj unue gluu la folion sur "
        "kartonon (cerealan skatolon).",
        "hex": "Sesangulaj kaheloj: unue tranĉu la rektajn vicojn, poste ĉiun kahelon laŭ ĝia "
        "konturo.",
        "token": "Ĵetonoj: tranĉu laŭ ĉiu presita konturo; rondajn per tondilo aŭ rondtruilo.",
        "standee": "Starfiguroj: eltondu, faldu laŭ la meza linio tiel ke la du figuroj estu dorso "
        "kontraŭ dorso, kungluu ilin kaj faldu la bazojn eksteren.",
        "sheet": "Folioj: tranĉu laŭ la tranĉ-markoj.",
        "board": "Tabuloj: tranĉu laŭ la tranĉ-markoj.",
        "die": "Ĵetkuboj: eltondu la reton, faldu ĉiun internan linion, gluu ĉiun langeton sub la "
        "najbaran edron kaj tenu momenton.",
        "split": "Tabuloj sur pluraj folioj: tranĉu la maldekstran kaj supran randojn de ĉiu parto "
        "laŭ la preso, metu ĝin sur la najbaran tiel ke la celiloj kongruu, kaj glubendu aŭ gluu.",
        "tuck": "Skatoleto: tranĉu laŭ la plena linio, faldu ĉiun strekitan linion, gluu la "
        "flankan "
        "langeton interne de la kontraŭa flanko; la klapoj enŝoviĝas supre kaj malsupre.",
        "gutter": "Faldotaj folioj: faldu ĉiun folion laŭ ĝia meza linio, kungluu la duonojn, "
        "poste tranĉu.",
        "labels": "Etikedaj folioj: presu sur la nomita glufolio kaj deprenu la etikedojn.",
        "printing": "Presado",
        "advice_scale": "Presu je 100% / reala grandeco, neniam 'Adapti al paĝo': la presa "
        "kontrolo "
        "post ĉi tiu gvidilo devas mezuri ĝuste.",
        "advice_duplex": "Presu ambaŭflanke, turnante laŭ la {edge} rando; unue presu nur la "
        "presan "
        "kontrolon kaj legu ĝian dorson.",
        "advice_single": "Presu unuflanke.",
        "advice_paper": "Papero: {paper}. Pli dika papero (160-200 g/m²) aŭ kartono faras pli "
        "fortikajn erojn.",
        "long": "longa",
        "short": "mallonga",
        "blank": "Ĉi tiu paĝo restas malplena: la presa kontrolo komenciĝas sur nova folio.",
        "guide": "gvidilo",
    }
)

WORDS = MappingProxyType({"en": EN, "pl": PL, "it": IT, "eo": EO})


def words(lang: str, strings: dict[str, dict[str, str]]) -> dict[str, str]:
    """The guide's words in `lang`: the pack's `pnpkit_guide_<key>` strings where it gives them,
    else pnpkit's in that language, else English."""
    own: Mapping[str, str] = WORDS.get(lang) or {}
    return {
        key: strings.get(PREFIX + key, {}).get(lang) or own.get(key) or english
        for key, english in EN.items()
    }


def missing(lang: str, strings: dict[str, dict[str, str]]) -> list[str]:
    """The guide's keys that fall back to English in `lang` (none in pnpkit's own languages)."""
    if lang in WORDS:
        return []
    return [PREFIX + key for key in EN if lang not in strings.get(PREFIX + key, {})]


def problems(pack: Pack) -> list[Problem]:
    """A warning for each language the guide prints partly in English."""
    out = []
    for lang in pack.languages:
        keys = missing(lang, pack.strings)
        if keys:
            out.append(
                Problem(
                    pack.where,
                    f"pnpkit has no words for its kit guide in '{lang}'; it prints them in "
                    f"English (strings {keys[0]} ... {keys[-1]} give them: docs/kit-guide.md)",
                    "words",
                    "warning",
                )
            )
    return out
