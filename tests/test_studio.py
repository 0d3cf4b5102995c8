"""`pnpkit studio`: its server answers only local hosts and writes only with the session's
token, never while another build holds the output; the template pane draws unsaved text through
the sandbox; and, in a real headless browser, a designer clicks a face, edits a YAML field, a
CSV cell and an XLSX cell, sees the new faces, breaks the pack and undoes it all."""

from __future__ import annotations

import http.client
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from browser import Browser, needs_chromium
from conftest import ROOT, write_pack
from pnpkit.build import output
from pnpkit.commands import studioserver
from pnpkit.commands.studiosession import Studio, StudioWatcher
from sheetfiles import write_xlsx

CARDS = """\
# The heroes: written in YAML, with comments the studio keeps.
heroes:
  kind: card
  size: poker
  front: card.svg.j2
  back: back.svg.j2
  fields:
    title: text
    power: {type: int, min: 0, max: 99}
    colour: string
  defaults: {colour: '#d8c8a0'}   # every hero's paper
  items:
    - id: knight      # the first hero
      title: Brave Knight
      power: 5
    - id: witch
      title: Old Witch
      power: 7
      count: 2
notes:
  kind: card
  size: poker
  front: card.svg.j2
  fields:
    title: text
    power: int
    colour: string
  items: notes.csv
market:
  kind: card
  size: poker
  front: card.svg.j2
  fields:
    title: text
    power: int
    colour: string
  items: {from: market.xlsx, sheet: Market}
"""
NOTES = "id,title,power,colour\nn1,First Note,1,#a0c8d8\nn2,Second Note,2,#a0d8b0\nn3,Third Note,3,#d8a0b0\n"  # noqa: E501
CARD = """{% extends "_face.svg.j2" %}
{% block content %}
<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" width="{{ face.w + 2 * face.bleed }}" height="{{ face.h + 2 * face.bleed }}" fill="{{ item.colour }}"/>
{{ text_box(item.title, 5, 8, face.w - 10, 12, size=12, bold=true, anchor='middle') }}
{{ text_box(item.power ~ '', 5, 30, face.w - 10, 20, size=30, anchor='middle') }}
{% endblock %}
"""  # noqa: E501 (data: markup kept as written)
BACK = """{% extends "_face.svg.j2" %}
{% block content %}
<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" width="{{ face.w + 2 * face.bleed }}" height="{{ face.h + 2 * face.bleed }}" fill="#333366"/>
{% endblock %}
"""  # noqa: E501


def probe_pack(root: Path) -> Path:
    """Heroes in YAML, notes in a CSV, a market in a workbook's second sheet."""
    write_pack(
        root,
        {
            "game.yaml": "name: Studio Probe\nlanguages: [en]\nplayers: {min: 1, max: 2}\n",
            "cards.yaml": CARDS,
            "notes.csv": NOTES,
            "templates/card.svg.j2": CARD,
            "templates/back.svg.j2": BACK,
        },
    )
    rows = [["id", "title", "power", "colour"], ["m1", "Market Stall", 4, "#e0d090"]]
    write_xlsx(root / "market.xlsx", rows + [["m2", "Bazaar", 6, "#c0e090"]], "Market", "Notes")
    return root


class Running:
    """A studio over a pack, its watch loop in a thread, served on a free port."""

    def __init__(self, pack: Path, out: Path, good: bool = True) -> None:
        self.pack = pack
        self.watcher = StudioWatcher(pack, out)
        self.studio = Studio(self.watcher)
        self.server = studioserver.server(self.studio, 0)
        self.url = self.server.url
        self.loop = threading.Thread(target=self.watcher.loop, args=(lambda b: None,))
        self.loop.start()
        deadline = time.monotonic() + 120
        while (self.watcher.good if good else self.watcher.last) is None:
            assert time.monotonic() < deadline, "the studio never built the pack"
            time.sleep(0.05)

    def close(self) -> None:
        self.watcher.stop.set()
        self.loop.join(60)
        self.server.close()

    def request(self, path: str, body: dict | None = None, token: str | None = None,
                headers: dict | None = None) -> tuple[int, dict]:  # fmt: skip
        """(status, JSON answer) of a GET, or of a POST when body is given."""
        sent = {"Content-Type": "application/json", **(headers or {})}
        if token is not None:
            sent[studioserver.TOKEN_HEADER] = token
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path.lstrip("/"), data, sent)
        try:
            with urllib.request.urlopen(request, timeout=60) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as exc:
            text = exc.read()
            return exc.code, json.loads(text) if text.startswith(b"{") else {"text": text}


@pytest.fixture
def running(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    studio = Running(probe_pack(tmp_path / "probe"), tmp_path / "out")
    yield studio
    studio.close()


EDIT = {"lang": "en", "group": "heroes", "item": "knight", "op": "set", "field": "title",
        "value": "Sir Lancelot"}  # fmt: skip


def test_a_write_without_the_session_token_is_refused_and_writes_nothing(running):
    before = (running.pack / "cards.yaml").read_bytes()
    assert running.request("/__studio/edit", EDIT) == (403, {"error": "no valid token: refused"})
    status, _ = running.request("/__studio/edit", EDIT, token="guessed")
    assert status == 403
    status, _ = running.request("/__studio/undo", {}, token="")
    assert status == 403
    assert (running.pack / "cards.yaml").read_bytes() == before


def test_only_local_host_names_are_answered(running):
    status, answer = running.request("/__studio/state", headers={"Host": "evil.example"})
    assert status == 421
    assert answer == {"text": b"pnpkit studio: wrong host\n"}
    status, state = running.request("/__studio/state", headers={"Host": "localhost"})
    assert status == 200 and state["ok"] and state["serial"] == 1


def test_its_answers_carry_these_headers_in_this_order(running):
    """Pinned header by header: no Content-Length on a build file's answer, and the studio's
    own frames only (it shows faces with art in them)."""
    port = running.server.httpd.server_address[1]
    answers = {
        "/__studio/state": [("Content-Type", "application/json"), ("Content-Length", None),
                            ("Cache-Control", "no-store")],
        "/svg/en/heroes/knight-front.svg?v=1": [("Content-Type", "image/svg+xml"),
                                                ("Cache-Control", "max-age=31536000, immutable")],
    }  # fmt: skip
    for path, expected in answers.items():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        conn.close()
        headers = [h for h in response.getheaders() if h[0] not in ("Server", "Date")]
        expected = [(k, str(len(body)) if v is None else v) for k, v in expected]
        assert response.status == 200, path
        assert headers == [*expected, ("X-Content-Type-Options", "nosniff"),
                           ("X-Frame-Options", "SAMEORIGIN")], path  # fmt: skip


def test_the_page_carries_the_token_and_the_build_files_only(running):
    with urllib.request.urlopen(running.url, timeout=60) as r:
        page = r.read().decode()
    assert f'<meta name="pnpkit-token" content="{running.studio.token}">' in page
    assert "<script src=" not in page and "https://" not in page  # nothing from elsewhere
    faces = running.request("/__studio/faces")[1]
    groups = {g["name"]: [i["id"] for i in g["items"]] for g in faces["langs"][0]["groups"]}
    assert groups == {"heroes": ["knight", "witch"], "notes": ["n1", "n2", "n3"],
                      "market": ["m1", "m2"]}  # fmt: skip
    assert faces["pdfs"] == ["probe-en.pdf"]
    knight = faces["langs"][0]["groups"][0]["items"][0]["faces"][0]["src"]
    with urllib.request.urlopen(running.url + knight, timeout=60) as r:
        assert b"Brave Knight" in r.read()
    for outside in ("../probe/cards.yaml", "%2e%2e/probe/cards.yaml", ".spare/x.svg"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(running.url + outside, timeout=60)
        assert refused.value.code == 404


def test_the_template_pane_draws_unsaved_text_and_points_at_its_lines(running):
    token = running.studio.token
    status, template = running.request("/__studio/template?group=heroes&item=knight&side=front")
    assert status == 200
    assert template["name"] == "card.svg.j2" and template["file"] == "templates/card.svg.j2"
    assert template["text"] == CARD and template["writable"]
    face = {"lang": "en", "group": "heroes", "item": "knight", "side": "front",
            "name": "card.svg.j2"}  # fmt: skip
    changed = CARD.replace("item.title,", "item.title ~ ' the Bold',")
    status, drawn = running.request("/__studio/draw", {**face, "text": changed}, token)
    assert status == 200 and drawn["problems"] == []
    assert "Brave Knight the Bold" in drawn["svg"]
    broken = CARD.replace("{{ text_box(item.power", "{{ item.nope }}{{ text_box(item.power")
    drawn = running.request("/__studio/draw", {**face, "text": broken}, token)[1]
    assert drawn["svg"] == ""
    [problem] = drawn["problems"]
    assert problem["at"] == 5
    assert "'item' has no key 'nope'" in problem["message"]
    syntax = running.request("/__studio/draw", {**face, "text": CARD + "{% if %}\n"}, token)[1]
    assert [(p["at"], p["message"]) for p in syntax["problems"]] == [
        (7, "template syntax error: Expected an expression, got 'end of statement block'")
    ]
    assert (running.pack / "templates/card.svg.j2").read_text() == CARD  # nothing written


def test_an_edit_is_refused_while_another_build_holds_the_output(running):
    before = (running.pack / "cards.yaml").read_bytes()
    with output.locked(running.watcher.out, "pnpkit build (the test)"):
        status, answer = running.request("/__studio/edit", EDIT, running.studio.token)
    assert (status, answer) == (
        409,
        {"error": "a build is writing out; the edit was not made (try again when it finishes)"},
    )
    assert (running.pack / "cards.yaml").read_bytes() == before


def wait_built(running: Running, after: int) -> dict:
    """The studio's state once a build newer than serial `after` is done."""
    deadline = time.monotonic() + 120
    while True:
        state = running.request("/__studio/state")[1]
        if state["serial"] > after:
            return state
        assert time.monotonic() < deadline, "no rebuild after the edit"
        time.sleep(0.05)


def test_an_edit_writes_one_value_rebuilds_the_face_and_undo_puts_the_bytes_back(running):
    cards = running.pack / "cards.yaml"
    before = cards.read_bytes()
    status, done = running.request("/__studio/edit", EDIT, running.studio.token)
    assert status == 200, done
    assert done["file"] == "cards.yaml" and done["undo"] == 1
    assert cards.read_text() == CARDS.replace("title: Brave Knight", "title: Sir Lancelot")
    state = wait_built(running, done["serial"])
    assert state["ok"] and state["good"] == state["serial"]
    faces = running.request("/__studio/faces")[1]
    src = faces["langs"][0]["groups"][0]["items"][0]["faces"][0]["src"]
    with urllib.request.urlopen(running.url + src, timeout=60) as r:
        assert b"Sir Lancelot" in r.read()
    status, undone = running.request("/__studio/undo", {}, running.studio.token)
    assert status == 200 and undone["undo"] == 0
    assert cards.read_bytes() == before
    status, nothing = running.request("/__studio/undo", {}, running.studio.token)
    assert (status, nothing["error"]) == (422, "nothing to undo")


def test_the_sources_of_a_face_name_the_place_of_each_value(running):
    status, knight = running.request("/__studio/sources?lang=en&group=heroes&item=knight")
    assert status == 200
    assert [(f["name"], f["value"], f["place"]) for f in knight["fields"]] == [
        ("title", "Brave Knight", "cards.yaml:14:14"),
        ("power", "5", "cards.yaml:15:14"),
        ("colour", "#d8c8a0", "cards.yaml:11:22"),  # not written: the group's default
    ]
    assert [(d["name"], d["value"], d["place"]) for d in knight["defaults"]] == [
        ("colour", "#d8c8a0", "cards.yaml:11:22")
    ]
    assert [knight["fields"][2]["origin"], knight["fields"][0]["origin"]] == ["defaults", "item"]
    assert (knight["count"]["value"], knight["count"]["origin"]) == ("1", "")  # not written
    assert [(t["side"], t["name"], t["place"]) for t in knight["templates"]] == [
        ("front", "card.svg.j2", "cards.yaml:5:10"),
        ("back", "back.svg.j2", "cards.yaml:6:9"),
    ]
    note = running.request("/__studio/sources?lang=en&group=notes&item=n2")[1]
    assert [(f["name"], f["value"], f["place"]) for f in note["fields"]][0] == (
        "title",
        "Second Note",
        "notes.csv:3:4",
    )
    market = running.request("/__studio/sources?lang=en&group=market&item=m2")[1]
    assert [(f["name"], f["value"], f["place"]) for f in market["fields"]] == [
        ("title", "Bazaar", "market.xlsx:Market!B3"),
        ("power", "6", "market.xlsx:Market!C3"),
        ("colour", "#c0e090", "market.xlsx:Market!D3"),
    ]


# ---------------------------------------------------------------- in a real browser


def _docs_shot(browser: Browser, name: str) -> None:
    """The studio as the docs show it: docs/img/NAME when PNPKIT_DOCS_SCREENSHOTS=1 (refresh the
    docs' pictures), otherwise a temporary file, so a test run leaves the checkout as it was."""
    if os.environ.get("PNPKIT_DOCS_SCREENSHOTS") == "1":
        path = ROOT / "docs" / "img" / name
    else:
        path = Path(tempfile.mkdtemp(prefix="pnpkit-shot-")) / name
    browser.screenshot(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _select(browser: Browser, key: str) -> None:
    """Click the item's figure and wait for its form."""
    browser.js(f"document.querySelector('figure[data-key={json.dumps(key)}]').click()")
    item = key.rsplit("/", 1)[1]
    browser.wait_for(f"document.querySelector('#inspector h2')?.textContent === {json.dumps(item)}")


def _type(browser: Browser, field: str, value: str) -> None:
    """Type a value into a field of the form and leave it (a change event)."""
    found = f"document.querySelector('#inspector .field[data-name={json.dumps(field)}]')"
    browser.js(
        f"(() => {{ const i = {found}.querySelector('input, textarea'); i.value = "
        f"{json.dumps(value)}; i.dispatchEvent(new Event('change')); return true; }})()"
    )


def _face_shows(browser: Browser, key: str, text: str) -> None:
    """Wait until the item's first face, as the page shows it now, draws `text`."""
    img = f"document.querySelector('figure[data-key={json.dumps(key)}] .face img')"
    browser.wait_for(
        f"(async () => (await (await fetch({img}.src)).text()).includes({json.dumps(text)}))()"
    )


def _face_src(browser: Browser, key: str) -> str:
    return browser.js(f"document.querySelector('figure[data-key={json.dumps(key)}] .face img').src")


@needs_chromium
def test_a_designer_edits_yaml_csv_and_xlsx_in_the_browser_and_undoes_it(running):
    import openpyxl

    browser = Browser()
    try:
        browser.open(running.url)
        browser.wait_for("document.querySelectorAll('figure.item').length === 7")
        _select(browser, "en/heroes/knight")
        places = browser.js(
            "[...document.querySelectorAll('#inspector .field')].map(f => f.dataset.place)"
        )
        assert places == [
            "cards.yaml:13:7",
            "cards.yaml:14:14",
            "cards.yaml:15:14",
            "cards.yaml:11:22",
        ]
        market = (running.pack / "market.xlsx").read_bytes()

        # a YAML field: only the value changes, comments and all the rest kept
        _type(browser, "title", "Sir Lancelot")
        _face_shows(browser, "en/heroes/knight", "Sir Lancelot")
        cards = running.pack / "cards.yaml"
        assert cards.read_text() == CARDS.replace("title: Brave Knight", "title: Sir Lancelot")
        witch = _face_src(browser, "en/heroes/witch")

        # a CSV cell: every other row byte for byte
        _select(browser, "en/notes/n2")
        _type(browser, "title", "Second Thought")
        _face_shows(browser, "en/notes/n2", "Second Thought")
        assert (running.pack / "notes.csv").read_text() == NOTES.replace(
            "Second Note", "Second Thought"
        )
        assert _face_src(browser, "en/heroes/witch") == witch  # an unchanged face not reloaded

        # an XLSX cell: the workbook's other sheet and rows kept
        _select(browser, "en/market/m1")
        _type(browser, "power", "9")
        _face_shows(browser, "en/market/m1", ">9</tspan>")
        book = openpyxl.load_workbook(running.pack / "market.xlsx")
        assert book.sheetnames == ["Notes", "Market"]
        assert [[c.value for c in row] for row in book["Market"].iter_rows()] == [
            ["id", "title", "power", "colour"],
            ["m1", "Market Stall", 9, "#e0d090"],
            ["m2", "Bazaar", 6, "#c0e090"],
        ]

        # undo, three times: every file back byte for byte
        for _ in range(3):
            serial = running.request("/__studio/state")[1]["serial"]
            browser.js("document.getElementById('undo').click()")
            wait_built(running, serial)
        assert cards.read_text() == CARDS
        assert (running.pack / "notes.csv").read_text() == NOTES
        assert (running.pack / "market.xlsx").read_bytes() == market
        _face_shows(browser, "en/heroes/knight", "Brave Knight")
    finally:
        browser.close()


@needs_chromium
def test_a_break_shows_its_message_and_keeps_the_last_good_faces(running):
    browser = Browser()
    cards = running.pack / "cards.yaml"
    try:
        browser.open(running.url)
        browser.wait_for("document.querySelectorAll('figure.item').length === 7")
        _select(browser, "en/heroes/knight")
        # a value the pack refuses: its located message beside the field, nothing written
        _type(browser, "power", "200")
        said = browser.wait_for(
            "document.querySelector('.field[data-name=\"power\"] .problem')?.textContent"
        )
        assert said == (
            "probe/cards.yaml:15:14: error: 'power' must be between 0 and 99 (got 200) [schema]"
        )
        assert cards.read_text() == CARDS
        _docs_shot(browser, "studio.png")
        # a write without the session's token, from the page itself: refused
        status = browser.js(
            "(async () => (await fetch('/__studio/edit', {method: 'POST', "
            "body: JSON.stringify({op: 'remove', group: 'heroes', item: 'witch'})})).status)()"
        )
        assert status == 403 and cards.read_text() == CARDS

        # a value written that breaks the build: its problem beside the field, the faces kept
        knight = _face_src(browser, "en/heroes/knight")
        _type(browser, "title", "word " * 80)
        said = browser.wait_for(
            "document.querySelector('.field[data-name=\"title\"] .problem')?.textContent"
        )
        assert said.startswith("probe/cards.yaml:14:14: error: text overflows its 53.5x12mm box")
        assert browser.js("document.getElementById('status').textContent").endswith(
            "broken: showing the last good faces"
        )
        assert _face_src(browser, "en/heroes/knight") == knight
        browser.js("document.getElementById('undo').click()")
        browser.wait_for("document.getElementById('problems').hidden")
        assert cards.read_text() == CARDS
    finally:
        browser.close()


@needs_chromium
def test_the_template_pane_draws_as_the_designer_types_and_saves(running):
    browser = Browser()
    template = running.pack / "templates" / "card.svg.j2"
    try:
        browser.open(running.url)
        browser.wait_for("document.querySelectorAll('figure.item').length === 7")
        _select(browser, "en/heroes/knight")
        knight = _face_src(browser, "en/heroes/knight")
        browser.js("[...document.querySelectorAll('#inspector button')][0].click()")
        browser.wait_for("document.getElementById('template-text').value.includes('text_box')")
        broken = CARD.replace("{{ text_box(item.power", "{{ item.nope }}{{ text_box(item.power")
        browser.js(
            "(() => { const t = document.getElementById('template-text'); t.value = "
            f"{json.dumps(broken)}; t.dispatchEvent(new Event('input')); return true; }})()"
        )
        bad = browser.wait_for("document.querySelector('#gutter .bad')?.textContent")
        assert bad == "5"
        _docs_shot(browser, "studio-template.png")
        serial = running.request("/__studio/state")[1]["serial"]
        browser.js("document.getElementById('template-save').click()")
        wait_built(running, serial)
        assert template.read_text() == broken
        shown = browser.wait_for("!document.getElementById('problems').hidden && "
                                 "document.getElementById('problems').textContent")  # fmt: skip
        assert (
            "template 'card.svg.j2' line 5: undefined variable: 'item' has no key 'nope'" in shown
        )
        assert _face_src(browser, "en/heroes/knight") == knight  # the last good face stays
        browser.js("document.getElementById('undo').click()")
        browser.wait_for("document.getElementById('problems').hidden")
        assert template.read_text() == CARD
    finally:
        browser.close()


def test_duplicate_count_and_remove_write_the_item_list_and_undo_takes_each_back(running):
    token, cards = running.studio.token, running.pack / "cards.yaml"
    item = {"lang": "en", "group": "heroes", "item": "witch"}
    status, done = running.request(
        "/__studio/edit", {**item, "op": "duplicate", "new_id": "hag"}, token
    )
    assert status == 200 and done["item"] == "hag"
    status, _ = running.request(
        "/__studio/edit", {**item, "item": "hag", "op": "count", "value": "3"}, token
    )
    assert status == 200
    witch = "    - id: witch\n      title: Old Witch\n      power: 7\n      count: 2\n"
    assert cards.read_text() == CARDS.replace(witch, witch + witch.replace("witch", "hag", 1)
                                              .replace("count: 2", "count: 3"))  # fmt: skip
    status, _ = running.request("/__studio/edit", {**item, "op": "remove"}, token)
    assert status == 200 and "id: witch" not in cards.read_text()
    assert running.request("/__studio/state")[1]["undo"] == 3  # the page's undo button is on
    for _ in range(3):
        assert running.request("/__studio/undo", {}, token)[0] == 200
    assert cards.read_text() == CARDS


def test_a_face_that_draws_art_is_shown_from_the_previews_copy_linking_the_art(
    tmp_path, monkeypatch
):
    from test_preview import art_pack

    monkeypatch.chdir(tmp_path)
    studio = Running(art_pack(tmp_path), tmp_path / "out")
    try:
        faces = studio.request("/__studio/faces")[1]
        [face] = faces["langs"][0]["groups"][0]["items"][0]["faces"]
        assert face["framed"] and face["src"].startswith("preview/en/cards/one-front.svg?v=")
        with urllib.request.urlopen(studio.url + face["src"], timeout=60) as r:
            assert b'href="../../art/' in r.read()
    finally:
        studio.close()


def test_the_command_serves_the_studio_and_stops_cleanly_on_sigterm(tmp_path):
    probe_pack(tmp_path / "probe")
    proc = subprocess.Popen(
        [sys.executable, "-m", "pnpkit", "studio", "probe", "--port", "0"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stderr], daemon=True).start()
    seen: list[str] = []
    while not any(" built " in line for line in seen):
        seen.append(lines.get(timeout=120))
    url = next(line.split()[-1] for line in seen if line.startswith("the studio is on "))
    with urllib.request.urlopen(url + "__studio/state", timeout=60) as r:
        assert json.loads(r.read())["ok"]
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(60) == 0
    time.sleep(0.1)
    while not lines.empty():
        seen.append(lines.get())
    said = "".join(seen)
    assert "the studio stopped" in said and "Traceback" not in said
    assert (tmp_path / "probe" / "cards.yaml").read_text() == CARDS


@pytest.mark.parametrize("command", [["studio"], ["watch", "--serve"]])
def test_a_taken_port_is_a_usage_error_said_in_one_line(tmp_path, command):
    """watch --serve and the studio start alike (watch.serve_until_stopped): a port in use
    ends the command before any build, exit 2, nothing else said."""
    probe_pack(tmp_path / "probe")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        done = subprocess.run(
            [sys.executable, "-m", "pnpkit", *command[:1], "probe", *command[1:], "--port", port],
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("pnpkit: error: ") and done.stderr.count("\n") == 1
    assert not (tmp_path / "build" / "probe").exists()  # no build was made


def test_a_shared_template_is_shown_but_never_written(tmp_path, monkeypatch):
    """templates/ beside components/ serves other packs too: the studio writes only the pack."""
    monkeypatch.chdir(tmp_path)
    pack = probe_pack(tmp_path / "components" / "probe")
    (tmp_path / "templates").mkdir()
    (pack / "templates" / "card.svg.j2").rename(tmp_path / "templates" / "card.svg.j2")
    studio = Running(pack, tmp_path / "out")
    try:
        shown = studio.request("/__studio/template?group=heroes&item=knight&side=front")[1]
        assert (shown["writable"], shown["text"]) == (False, CARD)
        assert shown["why"] == "this template lies outside the pack: edit it in your editor"
        save = {"name": "card.svg.j2", "text": "{{ oops }}"}
        status, said = studio.request("/__studio/save-template", save, studio.studio.token)
        assert (status, said["error"]) == (
            400,
            "template 'card.svg.j2' is not a file of the pack: edit it in your editor",
        )
        assert (tmp_path / "templates" / "card.svg.j2").read_text() == CARD
    finally:
        studio.close()


def test_a_request_too_large_or_not_json_is_refused(running):
    token = running.studio.token
    request = urllib.request.Request(
        running.url + "__studio/edit",
        b"x" * 10,
        {studioserver.TOKEN_HEADER: token, "Content-Length": str(studioserver.MAX_BODY + 1)},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=60)
    assert refused.value.code == 413
    request = urllib.request.Request(
        running.url + "__studio/edit", b"[1, 2", {studioserver.TOKEN_HEADER: token}
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=60)
    assert (refused.value.code, json.loads(refused.value.read())) == (
        400,
        {"error": "the request is not JSON"},
    )


@needs_chromium
def test_the_art_of_a_face_is_drawn_in_the_page(tmp_path, monkeypatch):
    """The preview's copy, framed, loads the pack's art (the page's frames are its own)."""
    from PIL import Image

    from test_preview import art_pack

    monkeypatch.chdir(tmp_path)
    studio = Running(art_pack(tmp_path), tmp_path / "out")
    browser = Browser()
    try:
        browser.open(studio.url)
        browser.wait_for("document.querySelectorAll('figure.item iframe').length === 1")
        shot = tmp_path / "page.png"
        deadline = time.monotonic() + 60
        green = 0
        while not green and time.monotonic() < deadline:  # the frame loads after the page
            time.sleep(0.2)
            browser.screenshot(shot)
            data = Image.open(shot).convert("RGB").tobytes()
            pixels = zip(data[0::3], data[1::3], data[2::3])
            green = sum(1 for r, g, b in pixels if r < 30 and 100 < g < 160 and b < 30)
        assert green > 100  # art/p.png, 10 mm wide at 2 px/mm: 400 pixels
    finally:
        browser.close()
        studio.close()


def test_an_edit_waits_for_the_studios_own_build_to_finish(running):
    """The studio's builds hold `busy` while they read the pack: an edit waits for it."""
    held = threading.Event()

    def build_for_a_while() -> None:
        with running.watcher.busy:
            held.set()
            time.sleep(0.5)

    builder = threading.Thread(target=build_for_a_while)
    builder.start()
    held.wait(10)
    started = time.monotonic()
    status, _ = running.request("/__studio/edit", EDIT, running.studio.token)
    waited = time.monotonic() - started
    builder.join()
    assert status == 200 and waited >= 0.3
    assert "title: Sir Lancelot" in (running.pack / "cards.yaml").read_text()


def test_a_pack_that_never_built_shows_its_problems_and_nothing_to_edit(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pack = probe_pack(tmp_path / "probe")
    (pack / "cards.yaml").write_text(CARDS.replace("power: 5", "power: five"))
    studio = Running(pack, tmp_path / "out", good=False)
    try:
        state = studio.request("/__studio/state")[1]
        assert (state["ok"], state["good"], state["serial"]) == (False, 0, 1)
        assert [p["text"] for p in state["problems"]] == [
            "probe/cards.yaml:15:14: error: 'power' must be a whole number (got 'five') [schema]"
        ]
        assert studio.request("/__studio/faces")[1]["langs"] == []
        assert studio.request("/__studio/sources?group=heroes&item=knight") == (
            409,
            {"error": "the pack has not built yet: fix the problems listed first"},
        )
    finally:
        studio.close()
