"""The studio's web server: the page (assets/studio/), the last good build's files, and the
session's answers (studiosession.Studio) as JSON, on 127.0.0.1 only.

Every request must name one of the local hosts (serve.local_host: a page elsewhere that points
a name of its own at 127.0.0.1 is refused before anything is read). Every POST, which may write
into the pack or run its templates, must carry the session's token in the X-Pnpkit-Token
header: the page has it from the HTML the server gave it, which another site's page cannot read;
and a header of its own makes a browser ask before sending it from another origin, which this
server never allows. Without the token: 403, nothing done.
"""

from __future__ import annotations

import functools
import json
import secrets
import shutil
import traceback
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import jinja2

from pnpkit import workspace
from pnpkit.commands import serve
from pnpkit.commands.studiosession import Refused

if TYPE_CHECKING:
    from pnpkit.commands.studiosession import Studio

API = "/__studio/"
TOKEN_HEADER = "X-Pnpkit-Token"
MAX_BODY = 2_000_000  # bytes of a request: a template's text at most


@workspace.memoized(1)
def _page() -> jinja2.Template:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("pnpkit", "assets/studio"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    return env.get_template("studio.html.j2")


def page(studio: Studio) -> str:
    """The studio page, with the session's token for the page's writes."""
    return _page().render(name=studio.watcher.pack.name, token=studio.token, api=API)


def server(studio: Studio, port: int | None = None) -> serve.Server:
    """The studio on 127.0.0.1 (the preview's server, answering with the studio's handler)."""
    return serve.Server(studio.watcher, port, functools.partial(_Handler, studio))


class _Handler(serve.LocalHandler):
    """GET: the page, the session's state and the build's files; POST: what the page asks to do."""

    EXTRA_HEADERS = (("X-Frame-Options", "SAMEORIGIN"),)  # its own frames: faces with art

    def __init__(self, studio: Studio, *args: Any, **kwargs: Any) -> None:
        self.studio = studio
        super().__init__(*args, **kwargs)

    def wrong_host(self, port: int) -> bytes:
        return b"pnpkit studio: wrong host\n"

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path in ("/", "/index.html"):
            return self.send_bytes(page(self.studio).encode(), "text/html; charset=utf-8")
        if url.path.startswith(API):
            return self._answer(lambda: self._get(url.path[len(API) :], query))
        found = serve.site_file(self.studio.site(), url.path)
        if found is None:
            return self.send_bytes(b"not found\n", "text/plain; charset=utf-8", 404)
        f, kind = found
        with f:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.end_headers()
            shutil.copyfileobj(f, self.wfile)

    def _get(self, what: str, query: dict[str, str]) -> dict[str, Any]:
        s = self.studio
        if what == "state":
            return s.state(query.get("have", ""))
        if what == "faces":
            return s.faces()
        if what == "sources":
            return s.sources(query)
        if what == "template":
            return s.template(query.get("group", ""), query.get("item", ""), query.get("side", ""))
        raise Refused("not found", 404)

    def do_POST(self) -> None:
        sent = self.headers.get(TOKEN_HEADER, "")
        if not secrets.compare_digest(sent.encode(), self.studio.token.encode()):
            return self.send_bytes(
                b'{"error": "no valid token: refused"}\n', "application/json", 403
            )
        what = urlsplit(self.path).path[len(API) :] if self.path.startswith(API) else ""
        actions = {
            "draw": self.studio.draw,
            "edit": self.studio.edit,
            "undo": self.studio.undo,
            "save-template": self.studio.save_template,
        }
        if what not in actions:
            return self.send_bytes(b'{"error": "not found"}\n', "application/json", 404)
        self._answer(lambda: actions[what](self._body()))

    def _body(self) -> dict[str, Any]:
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            raise Refused("the request has no length", 411) from None
        if not 0 <= length <= MAX_BODY:
            raise Refused("the request is too large", 413)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            raise Refused("the request is not JSON") from None
        if not isinstance(body, dict):
            raise Refused("the request is not a JSON object")
        return body

    def _answer(self, make: Any) -> None:
        try:
            data, status = make(), 200
        except Refused as exc:
            data, status = {"error": exc.message, **exc.more}, exc.status
        except Exception:  # a bug in pnpkit: the page says so, the studio goes on
            data, status = {"error": "pnpkit failed (a bug):\n" + traceback.format_exc()}, 500
        self.send_bytes(json.dumps(data).encode(), "application/json", status)
