"""Headless Chromium driven over the DevTools protocol, for the tests that look at a page in a
real browser (the preview's, the studio's); those tests skip, saying why, without Chromium."""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Debian's chromium is not installed (apt-get install "
    "chromium): the browser tests need it",
)


class Browser:
    """Headless Chromium driven over the DevTools protocol (a minimal WebSocket client)."""

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="pnpkit-chromium-")
        self.proc = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--no-first-run",
                "--no-default-browser-check",
                f"--user-data-dir={self.profile}",
                "--remote-debugging-port=0",
                "--window-size=1400,1000",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.is_file() and port_file.read_text().count("\n") >= 1):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("chromium did not start")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        targets = json.loads(
            urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30).read()
        )
        url = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
        self.sock = self._connect(url)
        self.buffer = b""
        self.next_id = 0

    def close(self):
        try:
            self.sock.close()
        finally:
            self.proc.terminate()
            self.proc.wait(30)
            shutil.rmtree(self.profile, ignore_errors=True)

    def call(self, method: str, **params):
        self.next_id += 1
        self._send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self._receive())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(message["error"])
                return message["result"]

    def open(self, url: str) -> None:
        """Go to url and wait until it has loaded."""
        self.call("Page.navigate", url=url)
        self.wait_for(f"location.href === {json.dumps(url)} && document.readyState === 'complete'")

    def js(self, expression: str):
        """The value of a JavaScript expression in the page (promises awaited); None while it
        reloads."""
        result = self.call(
            "Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True
        )
        if "exceptionDetails" in result:
            return None
        return result["result"].get("value")

    def screenshot(self, path: Path) -> None:
        """Save what the page shows now as a PNG."""
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def wait_for(self, expression: str, timeout: float = 60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                value = self.js(expression)
            except RuntimeError:  # the page is navigating
                value = None
            if value:
                return value
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for: {expression}")

    # -- WebSocket (RFC 6455), just what the DevTools protocol needs

    @staticmethod
    def _connect(url: str) -> socket.socket:
        u = urlsplit(url)
        sock = socket.create_connection((u.hostname, u.port), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall(
            (
                f"GET {u.path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\n"
                "Connection: Upgrade\r\nSec-WebSocket-Key: "
                f"{key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(1)
        assert b" 101 " in head.split(b"\r\n")[0], head
        return sock

    def _send(self, text: str) -> None:
        data = text.encode()
        header = bytearray([0x81])
        if len(data) < 126:
            header.append(0x80 | len(data))
        elif len(data) < 1 << 16:
            header += bytes([0x80 | 126]) + len(data).to_bytes(2, "big")
        else:
            header += bytes([0x80 | 127]) + len(data).to_bytes(8, "big")
        mask = os.urandom(4)
        self.sock.sendall(bytes(header) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _exactly(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("chromium closed the connection")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def _receive(self) -> str:
        parts = []
        while True:
            b0, b1 = self._exactly(2)
            n = b1 & 0x7F
            if n == 126:
                n = int.from_bytes(self._exactly(2), "big")
            elif n == 127:
                n = int.from_bytes(self._exactly(8), "big")
            payload = self._exactly(n)
            if b0 & 0x0F in (0x8, 0x9, 0xA):  # close, ping, pong: not messages
                continue
            parts.append(payload)
            if b0 & 0x80:
                return b"".join(parts).decode()
