"""The preview server of `watch --serve` against a hostile page or a curious path: real HTTP
requests on 127.0.0.1, with the Host header and the path set by hand."""

from __future__ import annotations

import http.client
import json
import os

import pytest

from conftest import colour_pack
from pnpkit.build import preview
from pnpkit.commands.serve import Server
from pnpkit.commands.watch import Watcher

SECRET = b"the user's private notes"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A built probe pack served by watch's server, a secret file beside its kit and above it."""
    root = tmp_path_factory.mktemp("serve")
    pack = colour_pack(root / "probe", n=2)
    out = root / "out"
    watcher = Watcher(pack, out)
    assert watcher.rebuild().ok
    (out / "secret.txt").write_bytes(SECRET)
    (root / "secret.svg").write_bytes(SECRET)
    server = Server(watcher, port=0)
    yield server, out / "probe"
    server.close()


def ask(server, path: str, host: str | None = "127.0.0.1", method: str = "GET", hosts: int = 1):
    """(status, headers, body) of one request; `host` None sends no Host header."""
    port = server.httpd.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    for _ in range(hosts if host is not None else 0):
        conn.putheader("Host", host.replace("PORT", str(port)))
    conn.endheaders()
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, response.headers, body


def test_it_listens_on_the_loopback_address_only(served):
    server, _ = served
    assert server.httpd.server_address[0] == "127.0.0.1"


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "127.0.0.1:PORT", "localhost", "LocalHost:PORT", "[::1]", "[::1]:PORT"]
)
def test_it_answers_to_the_local_names_with_or_without_the_port(served, host):
    status, headers, body = ask(served[0], "/", host)
    assert status == 200 and b"<html" in body


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "evil.example:PORT",
        "127.0.0.1.evil.example:PORT",
        "localhost.evil.example",
        "localhost:1",
        "127.0.0.2:PORT",
        "0.0.0.0:PORT",
        "[::1]:1",
        "localhost:PORT@evil.example",
        "",
    ],
)
@pytest.mark.parametrize("path", ["/", preview.STATE_URL, "/probe-en.pdf"])
def test_a_page_reaching_it_under_another_name_gets_nothing(served, host, path):
    """DNS rebinding: a site points its own name at 127.0.0.1; its requests carry that name."""
    server, _ = served
    status, headers, body = ask(server, path, host)
    port = server.httpd.server_address[1]
    assert (status, body) == (
        421,
        f"pnpkit preview: wrong host; open http://127.0.0.1:{port}/\n".encode(),
    )


def test_a_request_without_one_host_header_gets_nothing(served):
    server, _ = served
    assert ask(server, "/", None)[0] == 421
    assert ask(server, "/", "127.0.0.1", hosts=2)[0] == 421


def test_the_build_state_and_the_build_files_are_served(served):
    server, kit = served
    status, headers, body = ask(server, preview.STATE_URL)
    assert status == 200 and json.loads(body)["ok"]
    status, headers, body = ask(server, "/svg/en/cards/c0-front.svg?v=1")
    assert (status, headers["Content-Type"]) == (200, "image/svg+xml")
    assert body == (kit / "svg/en/cards/c0-front.svg").read_bytes()
    status, headers, body = ask(server, "/probe-en.pdf", method="HEAD")
    assert (status, headers["Content-Type"], body) == (200, "application/pdf", b"")
    assert int(headers["Content-Length"]) == (kit / "probe-en.pdf").stat().st_size


@pytest.mark.parametrize(
    "path",
    [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/svg/%2E%2E/%2e%2e/secret.txt",
        "/svg/..%2f..%2fsecret.txt",
        "/svg/en/../../../secret.txt",
        "//secret.txt",
        "/%2fetc%2fpasswd",
        "/..%5csecret.txt",
        "/secret.txt%00.svg",
        "/../../secret.svg",
        "http://127.0.0.1/../secret.txt",
    ],
)
def test_no_path_leads_out_of_the_build_folder(served, path):
    status, _, body = ask(served[0], path)
    assert (status, body) == (404, b"not found\n")


@pytest.mark.parametrize("path", ["/svg/", "/svg", "/svg/en/", "/svg/en/cards/", "/svg/en/cards"])
def test_folders_are_never_listed(served, path):
    status, _, body = ask(served[0], path)
    assert (status, body) == (404, b"not found\n")


def test_dot_folders_and_files_the_build_does_not_write_are_not_served(served):
    server, kit = served
    hidden = kit / ".probe.partial"
    hidden.mkdir(exist_ok=True)
    (hidden / "face.svg").write_bytes(SECRET)
    (kit / ".hidden.svg").write_bytes(SECRET)
    (kit / "notes.py").write_bytes(SECRET)
    for path in ("/.probe.partial/face.svg", "/.hidden.svg", "/notes.py", "/%2ehidden.svg"):
        assert ask(server, path)[:3:2] == (404, b"not found\n"), path


def test_a_symlink_in_the_build_folder_is_not_followed(served, tmp_path):
    server, kit = served
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "face.svg").write_bytes(SECRET)
    os.symlink(kit.parent.parent / "secret.svg", kit / "leak.svg")
    os.symlink(tmp_path / "outside", kit / "art")
    os.symlink(
        kit / "svg" / "en" / "cards" / "c0-front.svg", kit / "inside.svg"
    )  # even one that stays inside
    for path in ("/leak.svg", "/art/face.svg", "/inside.svg"):
        assert ask(server, path)[:3:2] == (404, b"not found\n"), path


def test_its_answers_carry_these_headers_in_this_order(served):
    """Pinned header by header (the preview and the studio share serve.LocalHandler)."""
    server, kit = served
    size = str((kit / "probe-en.pdf").stat().st_size)
    answers = {
        "/probe-en.pdf": [("Content-Type", "application/pdf"), ("Content-Length", size),
                          ("Cache-Control", "no-store")],
        "/svg/en/cards/c0-front.svg?v=1": [
            ("Content-Type", "image/svg+xml"),
            ("Content-Length", str((kit / "svg/en/cards/c0-front.svg").stat().st_size)),
            ("Cache-Control", "max-age=31536000, immutable")],
        "/nothing.pdf": [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "10"),
                         ("Cache-Control", "no-store")],
    }  # fmt: skip
    for path, expected in answers.items():
        headers = ask(server, path)[1].items()
        assert [h for h in headers if h[0] not in ("Server", "Date")] == [
            *expected,
            ("X-Content-Type-Options", "nosniff"),
        ], path
