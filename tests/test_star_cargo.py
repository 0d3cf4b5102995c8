"""Starfreight (seed 003): each CARGO rule fires on a broken copy of the pack, and the built
PDFs put the board's grid labels and overlap marks where they belong and print the cards'
Esperanto text inside the cards."""

from __future__ import annotations

import pypdfium2
import pytest
from pypdf import PdfReader

from conftest import ROOT, Kit, kit_start, page_texts
from pnpkit.build.pipeline import validate
from pnpkit.commands.cli import main
from pnpkit.pack.schema import load_pack
from pnpkit.pdf.marks import alignment_marks
from registered import REGISTRY, impose

S = "components/star-cargo"
MM = 72 / 25.4  # PDF points per mm
DPI = 150
PX = DPI / 25.4  # pixels per mm
ESPERANTO = "ĉĝĥĵŝŭĈĜĤĴŜ"


@pytest.fixture
def cargo(reused):
    """A breakable copy of the Starfreight kit (the module's one, put back after each test)."""
    return reused("star-cargo")


def broken(kit: Kit, *edits: tuple[str, str, str], lang: str | None = "eo") -> list[str]:
    """Validate the copy after each (file, old, new) edit; the problem lines. In Esperanto
    alone unless told: the rules look at the pack, not a language (the clean pack is validated
    in both), and one language's faces take half the time."""
    for file, old, new in edits:
        kit.edit(f"{S}/{file}", old, new)
    return kit.run("validate", str(kit.pack), *(("--lang", lang) if lang else ())).lines


def test_the_banknotes_sheet_gives_the_items_the_yaml_list_gave():
    """banknotes.csv replaced a YAML list (the PDFs stayed byte for byte the same): the same
    items."""
    pack, problems = load_pack(ROOT / S)
    assert problems == []
    notes = [(i.id, i.count, i.fields, i.provenance) for i in pack.items("banknotes")]
    assert notes == [
        (f"note-{v}", n, {"value": v, "colour": c}, {"*": "design"})
        for v, n, c in (
            (1, 20, "#8a8f98"),
            (5, 20, "#3f8f7a"),
            (10, 25, "#4a78b5"),
            (50, 20, "#7b58a6"),
            (100, 30, "#b8862b"),
            (500, 12, "#b5473c"),
            (1000, 8, "#2b2f3a"),
        )
    ]
    assert str(pack.items("banknotes")[2].field_where["value"]) == f"{S}/banknotes.csv:4:9"


def test_the_pack_is_clean():
    result = validate(ROOT / S)
    assert [str(p) for p in result.problems] == []
    assert set(result.faces) == {"eo", "en"}


def test_an_untrusted_build_stops_at_the_python_board_with_one_located_line(
    tmp_path, monkeypatch, capsys
):
    """The board is a Python face: a player who has not trusted the kit gets one error at the
    face, naming the command, and no PDF (a kit without its board would print wrong), while the
    skipped rules.py stays a warning."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "nobody"))
    monkeypatch.chdir(ROOT)
    capsys.readouterr()
    assert main(["build", S, "--out", str(tmp_path / "out"), "--lang", "en"]) == 1
    out = capsys.readouterr()
    lines = (out.out + out.err).splitlines()
    assert [line for line in lines if ": error: " in line] == [
        f"{S}/board.yaml:10:10: error: the pack is not trusted, "
        "so its Python faces (board.py:draw: 1 face(s)) were not "
        f"drawn; if you trust its author: pnpkit trust {S} (or --trust for one run) [trust]"
    ]
    assert [line.split(": warning: ")[0] for line in lines if ": warning: " in line] == [
        f"{S}/game.yaml:7:1"
    ]
    assert not list((tmp_path / "out").rglob("*.pdf"))


class TestCounts:
    def test_c01_five_cards_dealt_one_drawn(self, cargo):
        assert broken(
            cargo,
            ("game.yaml", "hand_size: 5", "hand_size: 6"),
            ("game.yaml", "draw_per_turn: 1", "draw_per_turn: 2"),
        ) == [
            f"{S}/game.yaml:59:16: error: data.setup.hand_size is 6; the game needs 5 [CARGO-C01]",
            f"{S}/game.yaml:60:20: error: data.setup.draw_per_turn "
            "is 2; the game needs 1 [CARGO-C01]",
        ]

    def test_c02_movement_deck_deals_six_players(self, cargo):
        assert broken(
            cargo,
            ("movement.yaml", "id: steps-2, count: 8", "id: steps-2, count: 1"),
            ("movement.yaml", "id: steps-3, count: 10", "id: steps-3, count: 1"),
        ) == [
            f"{S}/game.yaml:123:5: error: setup deals 36 from group "
            "'movement' at 6 players, but it holds only 32 [CARGO-C02]",
        ]

    def test_c03_players_plus_two_active_contracts(self, cargo):
        assert broken(cargo, ("game.yaml", "active_extra: 2", "active_extra: 3")) == [
            f"{S}/game.yaml:61:19: error: data.setup.active_extra "
            "is 3; the game needs 2 [CARGO-C03]",
        ]

    def test_c03_contract_deck_covers_the_active_row(self, cargo):
        lines = broken(
            cargo, ("game.yaml", "players: {min: 2, max: 6,", "players: {min: 2, max: 40,")
        )
        assert (
            f"{S}/game.yaml:125:5: error: setup deals 42 from group "
            "'contracts' at 40 players, but it holds only 36 [CARGO-C03]" in lines
        )

    def test_c04_start_money(self, cargo):
        assert broken(cargo, ("game.yaml", "start_money: 1000", "start_money: 900")) == [
            f"{S}/game.yaml:62:18: error: data.setup.start_money "
            "is 900; the game needs 1000 [CARGO-C04]",
        ]

    def test_c04_notes_run_from_one_to_a_thousand(self, cargo):
        assert broken(
            cargo,
            ("banknotes.csv", "note-1,1,20,#8a8f98\n", ""),
            ("banknotes.csv", "note-1000,1000,8", "note-1000,2000,8"),
        ) == [
            f"{S}/banknotes.csv:7:11: error: banknote 'note-1000' is "
            "worth ✯2,000; notes run from ✯1 to ✯1,000 [CARGO-C04]",
            f"{S}/game.yaml:127:5: error: no banknote is worth "
            "✯1,000; the notes run from ✯1 to ✯1,000 [CARGO-C04]",
            f"{S}/game.yaml:127:5: error: no banknote is worth "
            "✯1; the notes run from ✯1 to ✯1,000 [CARGO-C04]",
        ]

    def test_c04_bank_covers_purses_and_payoffs(self, cargo):
        assert broken(cargo, ("banknotes.csv", "note-1000,1000,8", "note-1000,1000,2")) == [
            f"{S}/game.yaml:127:5: error: the bank holds ✯12,370; it needs at least ✯14,610 "
            "(✯1,000 for each of 6 players plus ✯8,610 of payoffs) [CARGO-C04]",
        ]

    def test_c05_one_ship_and_one_marker_per_player(self, cargo):
        assert broken(
            cargo,
            ("players.yaml", "{id: ship-red, colour: red", "{id: ship-red, colour: blue"),
            ("players.yaml", "    - {id: marker-orange", "    # - {id: marker-orange"),
        ) == [
            f"{S}/players.yaml:49:7: error: colour orange has a "
            "ship ('ship-orange') but no cargo marker [CARGO-C05]",
            f"{S}/players.yaml:50:31: error: 'ship-red' and 'ship-blue' are "
            "both blue: each player has one piece of their colour [CARGO-C05]",
            f"{S}/players.yaml:56:1: error: group 'markers' prints 5 "
            "pieces; the game needs exactly one per player, 6 [CARGO-C05]",
            f"{S}/players.yaml:64:7: error: colour red has a "
            "cargo marker ('marker-red') but no ship [CARGO-C05]",
        ]

    def test_c06_one_ordinary_die(self, cargo):
        assert broken(
            cargo,
            ("players.yaml", "'5', '6']", "'5', '7']"),
            ("players.yaml", "    - {id: die, faces", "    - {id: die, count: 2, faces"),
        ) == [
            f"{S}/game.yaml:129:5: error: group 'dice' has 2 "
            "components; the game needs exactly 1 [CARGO-C06]",
            f"{S}/players.yaml:81:34: error: die 'die' has faces ['1', '2', '3', '4', "
            "'5', '7']; the game needs ['1', '2', '3', '4', '5', '6'] [CARGO-C06]",
        ]


class TestBoard:
    def test_b01_home_is_open_space_at_g8(self, cargo):
        assert broken(cargo, ("game.yaml", "home: G8 ", "home: G7 ")) == [
            f"{S}/game.yaml:70:11: error: Home (G7) is a "
            "void space; every ship must enter it [CARGO-B01]",
            f"{S}/game.yaml:70:11: error: Home is at G7; the seed puts it at G8 [CARGO-B01]",
        ]

    def test_b01_no_planet_on_home(self, cargo):
        assert broken(cargo, ("game.yaml", "fermonto: {cell: E7", "fermonto: {cell: G8")) == [
            f"{S}/game.yaml:86:22: error: planet 'fermonto' lies on Home "
            "(G8); Home is the open space every ship starts from [CARGO-B01]",
        ]

    def test_b02_contracts_name_planets_on_the_board(self, cargo):
        assert broken(
            cargo,
            (
                "contracts.yaml",
                "destination: gardeno, payoff: 330",
                "destination: gardenno, payoff: 330",
            ),
            (
                "contracts.yaml",
                "cargo: ore, destination: stormo",
                "cargo: ore, destination: fermonto",
            ),
            (
                "contracts.yaml",
                "{id: tr-05, kind: transport, pickup: teatro,",
                "{id: tr-05, kind: transport,",
            ),
        ) == [
            f"{S}/contracts.yaml:19:81: error: contract 'tr-01': destination 'gardenno' "
            "is not a planet on the board (did you mean 'gardeno'?) [CARGO-B02]",
            f"{S}/contracts.yaml:21:79: error: transport contract 'tr-03' "
            "picks up and delivers at the same planet 'fermonto' [CARGO-B02]",
            f"{S}/contracts.yaml:23:7: error: transport "
            "contract 'tr-05' names no pickup planet [CARGO-B02]",
        ]

    def test_b03_demanded_cargo_is_supplied_elsewhere(self, cargo):
        assert broken(
            cargo,
            ("game.yaml", "supplies: [ice, seafood]", "supplies: [seafood]"),
            ("game.yaml", "supplies: [ice, troupe]", "supplies: [troupe]"),
            ("game.yaml", "supplies: [parcels, books, medicine]", "supplies: [parcels, books]"),
            (
                "contracts.yaml",
                "cargo: medicine, destination: haoso",
                "cargo: medicine, destination: nebulo",
            ),
        ) == [
            f"{S}/contracts.yaml:49:64: error: deliver contract 'dl-13' asks for "
            "medicine at 'nebulo', the only planet that supplies it [CARGO-B03]",
            f"{S}/contracts.yaml:50:41: error: deliver contract "
            "'dl-14' asks for ice, which no planet supplies [CARGO-B03]",
        ]

    def test_b04_fee_table_is_the_seeds(self, cargo):
        assert broken(
            cargo,
            ("game.yaml", 'colonists: {glyph: "”", fee: free', 'colonists: {glyph: "”", fee: ten'),
            ("game.yaml", "ore: {fee: other", "ore: {fee: ten"),
            ("game.yaml", 'books: {glyph: "§", fee: fifteen', "books: {fee: other"),
            (
                "contracts.yaml",
                "cargo: seafood, destination: gardeno",
                "cargo: gold, destination: gardeno",
            ),
        ) == [
            f"{S}/contracts.yaml:19:59: error: contract 'tr-01' carries "
            "'gold', which is not a cargo type in the fee table [CARGO-B04]",
            f"{S}/game.yaml:96:5: error: no cargo type "
            "decodes the seed's '§' (fee 15%) [CARGO-B04]",
            f"{S}/game.yaml:96:34: error: cargo type 'colonists' ('”') pays "
            "'ten' (10%); the seed's table puts it at 'free' (0) [CARGO-B04]",
            f"{S}/game.yaml:106:16: error: cargo type 'ore' is not in the "
            "seed's table, so it pays 'other' (5%), not 'ten' (10%) [CARGO-B04]",
        ]

    def test_b04_some_planets_inspect(self, cargo):
        assert broken(cargo, *[("game.yaml", "inspection: true", "inspection: false")] * 4) == [
            f"{S}/game.yaml:78:5: error: no planet inspects cargo; "
            "the seed's board has spaces with a magnifier [CARGO-B04]",
        ]

    def test_b05_a_planet_walled_in_by_void_fails(self, cargo):
        # Ĵaspo (N9) sits by the right edge: void on its five neighbours walls it in
        assert broken(cargo, ("game.yaml", "I10, J10]", "I10, J10, M8, N8, M9, M10, N10]")) == [
            f"{S}/game.yaml:89:19: error: planet 'jaspo' at N9 cannot be reached "
            "from Home (G8) with step cards: void spaces wall it in [CARGO-B05]",
        ]

    def test_b05_follows_the_boards_neighbours(self, cargo):
        # with N8, M9 and N10 void, only diagonal steps reach N9: fine with 8 neighbours, walled
        # with 4
        assert broken(cargo, ("game.yaml", "I10, J10]", "I10, J10, N8, M9, N10]")) == []
        assert broken(cargo, ("game.yaml", "neighbours: 8", "neighbours: 4")) == [
            f"{S}/game.yaml:89:19: error: planet 'jaspo' at N9 cannot be reached "
            "from Home (G8) with step cards: void spaces wall it in [CARGO-B05]",
        ]

    def test_b05_a_planet_on_void(self, cargo):
        found = broken(cargo, ("game.yaml", "kanelo: {cell: L10", "kanelo: {cell: J10"), lang=None)
        assert [line for line in found if ": error: " in line] == [
            f"{S}/game.yaml:91:20: error: planet 'kanelo' lies on "
            "a void space (J10); no ship can enter it [CARGO-B05]",
        ]  # and its name, drawn on the dark void, is a contrast warning: in English and in
        # Esperanto (Kanelo), alike, so one line
        assert any(
            "'Cinnamon' has a contrast of 1.0:1" in line
            and line.endswith("; … and 1 more like this; --all-warnings lists them [text]")
            for line in found
        )

    def test_b05_reads_the_same_data_the_board_draws(self):
        from pnpkit.checks import rules as engine_rules

        pack, problems = load_pack(ROOT / S)
        assert problems == []
        loaded, _ = engine_rules.load_rules(pack, REGISTRY)
        read_board = loaded.rules["reachable"].fn.__globals__["read_board"]  # the pack's rules.py
        check = next(c for c in pack.checks if c.rule == "reachable")
        board, problems = read_board(engine_rules.Context(pack, check, {}))
        assert problems == []
        dist = board.steps_from("G8")
        # every planet is reachable, and the nearest are two steps from Home (E7, F10)
        assert {
            pid: dist[p["cell"]] for pid, p in board.planets.items() if dist[p["cell"]] <= 2
        } == {"fermonto": 2, "biblioteko": 2}
        assert all(p["cell"] in dist for p in board.planets.values())


class TestKindsAndData:
    def test_k01_jumps_and_card_kinds(self, cargo):
        assert broken(
            cargo,
            (
                "movement.yaml",
                "      jump: true\n      icon: jump\n",
                "      jump: false\n      icon: jump\n",
            ),
            (
                "movement.yaml",
                "      jump: true\n      icon: hyperjump",
                "      jump: false\n      icon: hyperjump",
            ),
            (
                "movement.yaml",
                "{id: steps-4, count: 8, kind: steps, steps: 4,",
                "{id: steps-4, count: 8, kind: steps, steps: 4, jump: true,",
            ),
            (
                "contracts.yaml",
                "{id: dl-01, kind: deliver, cargo: colonists,",
                "{id: dl-01, kind: deliver, pickup: auroro, cargo: colonists,",
            ),
        ) == [
            f"{S}/contracts.yaml:37:42: error: deliver contract 'dl-01' "
            "names a pickup planet; a deliver contract names a "
            "cargo type, picked up wherever it is supplied [CARGO-K01]",
            f"{S}/movement.yaml:5:1: error: no special card jumps a space; the rules "
            "rely on jumping over void, occupied and inspection spaces [CARGO-K01]",
            f"{S}/movement.yaml:20:60: error: step card "
            "'steps-4' jumps; only special cards jump [CARGO-K01]",
        ]

    def test_k01_two_contract_kinds_only(self, cargo):
        assert broken(
            cargo, ("contracts.yaml", "{id: tr-01, kind: transport", "{id: tr-01, kind: shuttle")
        ) == [
            f"{S}/contracts.yaml:19:25: error: 'kind' must be one "
            "of transport, deliver (got 'shuttle') [CARGO-K01]",
        ]

    def test_d01_board_data_is_well_formed(self, cargo):
        assert broken(
            cargo,
            ("game.yaml", "void: [I1,", "void: [Z1, I1,"),
            ("game.yaml", "glacio: {cell: M1,", "glacio: {cel: M1,"),
        ) == [
            f"{S}/game.yaml:74:12: error: a void space Z1 is "
            "off the board (columns A–N, rows 1–10) [CARGO-D01]",
            f"{S}/game.yaml:79:13: error: planet 'glacio' needs 'cell' [CARGO-D01]",
            f"{S}/game.yaml:79:14: error: unknown key 'cel' in "
            "planet 'glacio' (did you mean 'cell'?) [CARGO-D01]",
        ]

    def test_d01_grid_fills_the_board(self, cargo):
        assert broken(cargo, ("game.yaml", "cell: 22 ", "cell: 21 ")) == [
            f"{S}/game.yaml:71:11: error: the grid needs a "
            "board of 312x270mm (2 edges + 14 columns x cell, "
            "2 edges + 10 rows x cell + band), but group 'board' is 326x280mm [CARGO-D01]",
        ]


# ------------------------------------------------------------------ the printed kit


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The kit built once: the output folder, and the checked pack with its faces."""
    out = tmp_path_factory.mktemp("star-cargo")
    assert main(["build", str(ROOT / S), "--out", str(out)]) == 0
    return out / "star-cargo", validate(ROOT / S, ["eo"])  # the tests impose its Esperanto faces


def pdf_page(path, index: int):
    return pypdfium2.PdfDocument(str(path))[index]


def image(page, dpi: int = DPI):
    return (
        page.render(scale=dpi / 72, no_smoothpath=True, no_smoothtext=True).to_pil().convert("RGB")
    )


def inked(img, box_px) -> int:
    """Dark pixels (text and lines) inside a (left, top, right, bottom) pixel box."""
    rgb = img.crop(tuple(round(v) for v in box_px)).tobytes()
    return sum(1 for i in range(0, len(rgb), 3) if rgb[i] + rgb[i + 1] + rgb[i + 2] < 3 * 110)


def chars(page) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Every printed character on a PDF page with its box (left, top, right, bottom) in page mm
    from the top-left."""
    h_pt, text = page.get_height(), page.get_textpage()
    out = []
    for i in range(text.count_chars()):
        ch = text.get_text_range(i, 1)
        if not ch.isspace():
            left, bottom, right, top = text.get_charbox(i)
            out.append((ch, (left / MM, (h_pt - top) / MM, right / MM, (h_pt - bottom) / MM)))
    return out


def laid_out(path, index: int):
    """A landscape page (the board's on A3) as its layout has it, turned back from the portrait
    paper it prints on (orient.py): its characters (as chars()), its image and its trim box
    (left, top, right, bottom mm from the top-left)."""
    page = pdf_page(path, index)
    h_pt = page.get_height()
    w = h_pt / MM  # the layout page's width is the paper's height

    def back(box):  # paper mm (left, top, right, bottom) -> the layout page's
        return (w - box[3], box[0], w - box[1], box[2])

    x0, y0, x1, y1 = [float(v) for v in PdfReader(path).pages[index].trimbox]
    trim = back((x0 / MM, (h_pt - y1) / MM, x1 / MM, (h_pt - y0) / MM))
    found = [(ch, back(b)) for ch, b in chars(page)]
    return found, image(page).rotate(-90, expand=True), trim


def label_in(found, box) -> tuple[str, float, float]:
    """The text whose characters' centres lie in box, and how far its centre is from the box's
    (mm)."""
    inside = [
        (ch, b)
        for ch, b in found
        if box[0] <= (b[0] + b[2]) / 2 <= box[2] and box[1] <= (b[1] + b[3]) / 2 <= box[3]
    ]
    if not inside:
        return "", 99.0, 99.0
    left, top = min(b[0] for _, b in inside), min(b[1] for _, b in inside)
    right, bottom = max(b[2] for _, b in inside), max(b[3] for _, b in inside)
    return (
        "".join(ch for ch, _ in inside),
        (left + right - box[0] - box[2]) / 2,
        (top + bottom - box[1] - box[3]) / 2,
    )


def label_boxes(data: dict) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Every grid label the board should print, with its strip cell in the board's trim mm (the
    part of the strip 3 mm or more inside the cut: the safe zone)."""
    b = data["board"]
    e, c, cols, rows, s = b["edge"], b["cell"], b["columns"], b["rows"], 3
    out = []
    for i, letter in enumerate(cols):
        out.append((letter, (e + i * c, s, e + (i + 1) * c, e)))
        out.append((letter, (e + i * c, e + rows * c, e + (i + 1) * c, 2 * e + rows * c - s)))
    for r in range(1, rows + 1):
        out.append((str(r), (s, e + (r - 1) * c, e, e + r * c)))
        out.append(
            (str(r), (e + len(cols) * c, e + (r - 1) * c, 2 * e + len(cols) * c - s, e + r * c))
        )
    return out


class TestBoardPrint:
    def test_board_is_two_a4_sheets_and_one_a3_page(self, built):
        out, _ = built
        labels = page_texts(out / "star-cargo-eo.pdf")
        assert sum("galaxy: sheet A1 of 1x2" in t for t in labels) == 1
        assert sum("galaxy: sheet A2 of 1x2" in t for t in labels) == 1
        a3 = PdfReader(out / "star-cargo-eo-a3.pdf").pages
        assert len(a3) == 2  # calibration, then the whole board
        # landscape A3, printed turned onto portrait paper as every page is (orient.py)
        assert (round(float(a3[1].mediabox.width)), round(float(a3[1].mediabox.height))) == (
            842,
            1191,
        )

    def test_grid_labels_sit_on_their_columns_and_rows_on_a3(self, built):
        out, result = built
        found, img, trim = laid_out(out / "star-cargo-eo-a3.pdf", 1)
        assert trim[2] - trim[0] == pytest.approx(326, abs=0.01)
        left, top = trim[:2]  # the board's top-left corner, page mm from the top-left
        for label, (x0, y0, x1, y1) in label_boxes(result.pack.data):
            box = (left + x0, top + y0, left + x1, top + y1)
            text, dx, dy = label_in(found, box)
            assert text == label and abs(dx) < 0.5 and abs(dy) < 0.5, (
                label,
                box,
                text,
                dx,
                dy,
            )  # centred on its column or row
            assert inked(img, [v * PX for v in box]) > 20, (label, box)  # printed, not just present

    def test_row_numbers_keep_clear_of_the_grid_frame(self, built):
        """Each row number, "10" too, stays 1 mm or more off the grid's frame on either side
        (at 12 pt "10" filled its strip and touched the frame)."""
        out, result = built
        found, _, trim = laid_out(out / "star-cargo-eo-a3.pdf", 1)
        left, top = trim[:2]
        b = result.pack.data["board"]
        e, c = b["edge"], b["cell"]
        frame = (left + e, left + e + len(b["columns"]) * c)  # the grid's left and right edges
        for r in range(1, b["rows"] + 1):
            row_top, row_bottom = top + e + (r - 1) * c, top + e + r * c
            digits = [
                box
                for ch, box in found
                if ch.isdigit()
                and row_top <= (box[1] + box[3]) / 2 <= row_bottom
                and not frame[0] < (box[0] + box[2]) / 2 < frame[1]
            ]
            assert len(digits) == 2 * len(str(r)), (r, digits)
            for x0, _, x1, _ in digits:
                assert (
                    min(
                        abs(x1 - frame[0]),
                        abs(x0 - frame[0]),
                        abs(x0 - frame[1]),
                        abs(x1 - frame[1]),
                    )
                    >= 1.0
                ), (r, x0, x1)

    def test_split_sheets_show_the_labels_of_their_part_and_matching_targets(self, built):
        out, result = built
        data, bleed = result.pack.data, 3.0
        pages, _ = impose(result.faces["eo"], result.pack.print)
        first = kit_start(out / "star-cargo-eo.pdf")  # after the kit guide and the print check
        parts = [(n, p.parts[0]) for n, p in enumerate(pages, first) if p.tile is not None]
        sheets = [(n, part.tile) for n, part in parts]
        assert [t.name for _, t in sheets] == ["A1", "A2"]
        (n1, t1), (n2, t2) = sheets
        seen = {}
        for (n, t), (_, part) in zip(sheets, parts, strict=True):
            page = pdf_page(out / "star-cargo-eo.pdf", n)
            img, found = image(page), chars(page)

            def on(fx, fy, t=t):  # board trim mm -> page mm on this sheet
                return t.origin[0] + fx + bleed - t.window[0], t.origin[1] + fy + bleed - t.window[
                    1
                ]

            for label, (x0, y0, x1, y1) in label_boxes(data):
                if t.window[0] <= x0 + bleed and x1 + bleed <= t.window[2]:  # wholly on this sheet
                    box = (*on(x0, y0), *on(x1, y1))
                    text, dx, dy = label_in(found, box)
                    assert text == label and abs(dx) < 0.5 and abs(dy) < 0.5, (
                        t.name,
                        label,
                        text,
                        dx,
                        dy,
                    )
                    assert inked(img, [v * PX for v in box]) > 20
                    seen.setdefault(label, set()).add(t.name)
            # the targets: in the shared strip, at the same board points on both sheets
            for fx, fy in alignment_marks(part.tile):
                assert t2.window[0] < fx < t1.window[2]
                x, y = on(fx - bleed, fy - bleed)
                assert (
                    inked(img, ((x - 0.8) * PX, (y - 0.8) * PX, (x + 0.8) * PX, (y + 0.8) * PX)) > 0
                ), (t.name, fx, fy)
        assert alignment_marks(parts[0][1].tile) == alignment_marks(parts[1][1].tile)
        letters = data["board"]["columns"]
        assert {ch for ch in letters if "A1" in seen.get(ch, ())} == set(
            letters[:8]
        )  # A..H on the left sheet
        assert {ch for ch in letters if "A2" in seen.get(ch, ())} == set(
            letters[8:]
        )  # I..N on the right one
        assert all(
            seen[str(r)] == {"A1", "A2"} for r in range(1, 11)
        )  # left strip on A1, right strip on A2

    def test_the_left_sheet_marks_where_the_right_one_goes(self, built):
        out, result = built
        pages, _ = impose(result.faces["eo"], result.pack.print)
        first = kit_start(out / "star-cargo-eo.pdf")
        (n1, t1), (_, t2) = [(n, p.tile) for n, p in enumerate(pages, first) if p.tile is not None]
        img = image(pdf_page(out / "star-cargo-eo.pdf", n1))
        x = (t1.origin[0] + t2.window[0] - t1.window[0]) * PX
        column = [
            any(sum(img.getpixel((round(x) + d, y))) < 3 * 110 for d in (-1, 0, 1))
            for y in range(img.height)
        ]
        top, bottom = t1.origin[1] * PX, (t1.origin[1] + t1.window[3] - t1.window[1]) * PX
        inside = [hit for y, hit in enumerate(column) if top + 5 < y < bottom - 5]
        assert (
            0.3 < sum(inside) / len(inside) < 0.95
        )  # a dashed line down the whole sheet, not solid


class TestCardsPrint:
    def test_card_text_stays_on_its_card_and_prints_esperanto_letters(self, built):
        """Every character on a card page lies on one card, at least 2 mm inside its cut; each of
        ĉĝĥĵŝŭ (and the capitals) is printed there as ink."""
        out, result = built
        pages, _ = impose(result.faces["eo"], result.pack.print)
        printed = set()
        checked = 0
        for n, page in enumerate(pages, kit_start(out / "star-cargo-eo.pdf")):
            cards = [
                p for p in page.placements if p.face.group in ("contracts", "movement", "aids")
            ]
            if page.tile is not None or not cards:
                continue
            pdf = pdf_page(out / "star-cargo-eo.pdf", n)
            img = None
            for ch, box in chars(pdf):
                if box[1] > page.ink[3]:  # the page label, below the inked area
                    continue
                card = next(
                    (
                        p
                        for p in page.placements
                        if p.x <= box[0]
                        and box[2] <= p.x + p.w
                        and p.y <= box[1]
                        and box[3] <= p.y + p.h
                    ),
                    None,
                )
                assert card is not None, (n, ch, box)
                assert (
                    min(
                        box[0] - card.x,
                        box[1] - card.y,
                        card.x + card.w - box[2],
                        card.y + card.h - box[3],
                    )
                    >= 2.0
                ), (n, ch, card.face.item)
                checked += 1
                if ch in ESPERANTO and ch not in printed:
                    img = img or image(pdf, 300)
                    px = 300 / 25.4
                    if inked(img, [v * px for v in box]) > 3:
                        printed.add(ch)
        assert checked > 5000
        assert printed == set(ESPERANTO)

    def test_both_languages_are_real_text(self, built):
        out, _ = built
        eo = "".join(page_texts(out / "star-cargo-eo.pdf"))
        en = "".join(page_texts(out / "star-cargo-en.pdf"))
        assert (
            "Transporta kontrakto" in eo and "Livera kontrakto" in eo and "Inspekta elspezo" in eo
        )
        assert "Transport contract" in en and "Deliver contract" in en and "Inspection fee" in en
        assert "Ĵaspo" in eo and "Jasper" in en and "✯ 1 000" in eo and "✯ 1,000" in en
