"""The preview `pnpkit watch --serve` shows: OUT/<pack>/ on 127.0.0.1, and the build state the
page polls (preview.STATE_URL).

A module of its own, imported by watch only when it serves: Python's web server (http.server:
email, ssl, socket, mimetypes...) took every `pnpkit --help` and every watch 30-40 ms to import.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import stat
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, BinaryIO, cast
from urllib.parse import unquote, urlsplit

from pnpkit.build import preview

if TYPE_CHECKING:  # the watcher serves its builds; watch imports this module, not the reverse
    from pnpkit.commands.watch import Watcher


class Server:
    """The preview of the watched pack on 127.0.0.1, in a background thread."""

    def __init__(
        self,
        watcher: Watcher,
        port: int | None = None,
        handler: Callable[..., LocalHandler] | None = None,
    ):
        """`handler`: what answers the requests (the studio's own); default: the preview's."""
        self.watcher = watcher
        handler = handler or functools.partial(_Handler, watcher)
        ports = [port] if port is not None else range(8000, 8020)
        for candidate in ports:
            try:
                self.httpd = ThreadingHTTPServer(("127.0.0.1", candidate), handler)
                break
            except OSError:
                if candidate == ports[-1]:
                    raise
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, name="pnpkit-preview", daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# Hosts the preview answers to. A web page elsewhere can point a name of its own at
# 127.0.0.1 (DNS rebinding) and read what a local server answers; its requests then carry
# that name, never one of these, so they are refused before anything is read.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
# What a build writes, and so all the preview serves: anything else is "not found".
TYPES = MappingProxyType(
    {
        ".html": "text/html; charset=utf-8",
        ".svg": "image/svg+xml",
        ".pdf": "application/pdf",
        ".png": "image/png",
        ".json": "application/json",
        ".txt": "text/plain; charset=utf-8",
        ".csv": "text/csv; charset=utf-8",
    }
)


class LocalHandler(BaseHTTPRequestHandler):
    """What the preview's and the studio's handlers share: only requests naming a local host
    (local_host) are answered, answers carry no-cache and no-sniff headers, and nothing is
    logged. A subclass says its refusal (wrong_host) and may add headers (EXTRA_HEADERS)."""

    EXTRA_HEADERS: tuple[tuple[str, str], ...] = ()

    def wrong_host(self, port: int) -> bytes:
        """The answer to a request naming another host."""
        raise NotImplementedError

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        port = cast(tuple[str, int], self.server.server_address)[1]  # an (address, port) server
        if not local_host(self.headers.get_all("Host") or [], port):
            self.send_bytes(self.wrong_host(port), "text/plain; charset=utf-8", status=421)
            return False
        return True

    def send_bytes(self, data: bytes, kind: str, status: int = 200, body: bool = True) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if body:
            self.wfile.write(data)

    def end_headers(self) -> None:
        # Face images carry their content hash (?v=...), so they never change under one URL;
        # everything else is asked for again, so a reload shows the new build.
        versioned = "?v=" in self.path
        self.send_header(
            "Cache-Control", "max-age=31536000, immutable" if versioned else "no-store"
        )
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in self.EXTRA_HEADERS:
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
        pass  # the terminal is for the pack's problems


class _Handler(LocalHandler):
    """Files of OUT/<pack>/ as they are after the last good build, plus the build state.

    Only the build's own files: a path with an empty, `.`, `..` or dot-named segment
    (the staging folders), a directory, a type the build does not write, or a file
    reached through a symlink is "not found"; folders are never listed."""

    def __init__(self, watcher: Watcher, *args: Any, **kwargs: Any) -> None:
        self.watcher = watcher
        last = watcher.last
        self.site = last.site if last else watcher.out / watcher.pack.name
        super().__init__(*args, **kwargs)

    def wrong_host(self, port: int) -> bytes:
        return b"pnpkit preview: wrong host; open http://127.0.0.1:%d/\n" % port

    def do_GET(self) -> None:
        self._answer(body=True)

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def _answer(self, body: bool) -> None:
        path = urlsplit(self.path).path
        if path == preview.STATE_URL:
            last = self.watcher.last
            state = (
                last.state()
                if last
                else {
                    "serial": 0,
                    "ok": False,
                    "build": "",
                    "errors": 0,
                    "warnings": 0,
                    "problems": ["building…"],
                    "time": "",
                    "seconds": 0,
                }
            )
            return self.send_bytes(json.dumps(state).encode(), "application/json", body=body)
        if path in ("/", "/index.html") and not (self.site / "index.html").is_file():
            page = preview.waiting_page(f"{self.watcher.pack.name}: waiting for a good build")
            return self.send_bytes(page.encode(), "text/html; charset=utf-8", body=body)
        found = site_file(self.site, path)
        if found is None:
            return self.send_bytes(
                b"not found\n", "text/plain; charset=utf-8", status=404, body=body
            )
        f, kind = found
        with f:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(os.fstat(f.fileno()).st_size))
            self.end_headers()
            if body:
                shutil.copyfileobj(f, self.wfile)


def local_host(values: list[str], port: int) -> bool:
    """Is this request's one Host header 127.0.0.1, localhost or [::1], with our port or none?"""
    if len(values) != 1:
        return False
    host = values[0].strip().lower()
    return any(host in (name, f"{name}:{port}") for name in LOCAL_HOSTS)


def site_file(site: Path, url_path: str) -> tuple[BinaryIO, str] | None:
    """(the file a URL path names inside the build folder `site`, opened; its type), or None unless
    it is one of the build's own files, reached without a symlink."""
    parts = unquote(url_path, errors="replace").split("/")[1:]
    if parts == [""]:
        parts = ["index.html"]
    if not parts or any(p == "" or p.startswith(".") or "\\" in p or "\0" in p for p in parts):
        return None
    if Path(parts[-1]).suffix not in TYPES or site.is_symlink():
        return None
    path = site.joinpath(*parts)
    if os.path.realpath(path) != os.path.join(
        os.path.realpath(site), *parts
    ):  # a symlink on the way
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    f = open(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        f.close()
        return None
    return f, TYPES[Path(parts[-1]).suffix]
