"""The guard of ``anonlab serve``: who may use the app, from where, and what every answer says
to the browser.

* **One-time token.** The server prints ``http://127.0.0.1:PORT/login?token=T``. The first
  request with ``T`` gets a session cookie (random, ``HttpOnly``, ``SameSite=Strict``) and is
  redirected to ``/`` (so the token leaves the address bar); ``T`` is then spent. Every other
  request needs the cookie. A lost cookie (another browser, a restart) needs a new token:
  restart the server; the projects on disk are all still there.
* **Host header.** Only the host names the server was started for (``127.0.0.1:PORT``,
  ``localhost:PORT``) are answered: a web page elsewhere cannot reach the app through DNS
  rebinding.
* **CSRF.** Every form carries the session's CSRF token (``csrf`` field); a POST without it is
  refused before it is read further (:func:`check_csrf`). The cookie is ``SameSite=Strict`` as
  a second line. A POST with an ``Origin`` header from another origin is refused.
* **Headers.** A Content-Security-Policy that allows scripts and styles from the app itself
  only (no inline script: data written into a page can never run), no framing, the referrer
  sent to the app itself only (``same-origin``: no address of the app leaves for another site;
  ``no-referrer`` would make Chromium send ``Origin: null`` with every form, which the check
  above refuses), ``nosniff``, and no caching of pages that hold data.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from urllib.parse import parse_qs

COOKIE = "anonlab_session"

#: Every page: the app's own scripts, styles and images only; nothing framed, no form sent
#: elsewhere. Reports are served with :data:`REPORT_POLICY` instead.
PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'self'; base-uri 'none'; "
    "frame-src 'self'"
)
#: The audit and compare reports (self-contained HTML with inline styles and SVG): no script
#: at all, and sandboxed (an opaque origin: even a script that got in could not read the app).
REPORT_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'; "
    "base-uri 'none'; form-action 'none'; "
    "sandbox allow-popups allow-top-navigation-by-user-activation"
)


@dataclass
class Sessions:
    """The one-time token and the sessions it opened (in memory: a restart needs a new token)."""

    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    spent: bool = False
    sessions: dict[str, str] = field(default_factory=dict)  # session id -> CSRF token

    def login(self, token: str) -> str | None:
        """A new session id if ``token`` is the unspent token (then spent), else None."""
        if self.spent or not hmac.compare_digest(token.encode(), self.token.encode()):
            return None
        self.spent = True
        session = secrets.token_urlsafe(32)
        self.sessions[session] = secrets.token_urlsafe(32)
        return session

    def csrf_of(self, session: str | None) -> str | None:
        """The CSRF token of a valid session, else None."""
        if not session:
            return None
        return self.sessions.get(session)


def _header(scope: dict, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1")
    return None


def session_of(scope: dict) -> str | None:
    """The session cookie's value in a request, or None."""
    raw = _header(scope, b"cookie")
    if not raw:
        return None
    cookie = SimpleCookie()
    try:
        cookie.load(raw)
    except Exception:  # a malformed cookie header is no session
        return None
    morsel = cookie.get(COOKIE)
    return morsel.value if morsel is not None else None


def check_csrf(sessions: Sessions, session: str | None, given: object) -> bool:
    """Whether ``given`` (a form's ``csrf`` field) is the session's CSRF token."""
    expected = sessions.csrf_of(session)
    return (
        expected is not None
        and isinstance(given, str)
        and hmac.compare_digest(given.encode(), expected.encode())
    )


def security_headers(policy: str = PAGE_POLICY) -> list[tuple[bytes, bytes]]:
    """The headers every answer carries (see the module docstring)."""
    return [
        (b"content-security-policy", policy.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"same-origin"),
        (b"cache-control", b"no-store"),
        (b"x-frame-options", b"SAMEORIGIN"),
        (b"cross-origin-opener-policy", b"same-origin"),
        (b"cross-origin-resource-policy", b"same-origin"),
    ]


class Guard:
    """ASGI middleware: host check, login by token, session required, headers added."""

    def __init__(self, app, sessions: Sessions, hosts: Iterable[str]) -> None:
        self.app = app
        self.sessions = sessions
        self.hosts = {h.lower() for h in hosts}

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = (_header(scope, b"host") or "").lower()
        if host not in self.hosts:
            await _plain(send, 421, "this server answers only at the address it printed")
            return
        if scope["method"] == "POST":
            origin = _header(scope, b"origin")
            if origin is not None and origin.lower() not in {f"http://{h}" for h in self.hosts}:
                await _plain(send, 403, "a form from another site is refused")
                return
        path = scope["path"]
        if path == "/login":
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            session = self.sessions.login((query.get("token") or [""])[0])
            if session is None:
                await _plain(
                    send, 403,
                    "this login link is not valid or was already used: restart `anonlab serve` "
                    "for a new one (your projects are kept on disk)",
                )  # fmt: skip
                return
            cookie = f"{COOKIE}={session}; Path=/; HttpOnly; SameSite=Strict"
            await send(
                {
                    "type": "http.response.start",
                    "status": 303,
                    "headers": [(b"location", b"/"), (b"set-cookie", cookie.encode()),
                                *security_headers()],
                }
            )  # fmt: skip
            await send({"type": "http.response.body", "body": b""})
            return
        session = session_of(scope)
        if self.sessions.csrf_of(session) is None:
            await _plain(
                send, 401,
                "open the address `anonlab serve` printed (with its token) to use this app",
            )  # fmt: skip
            return
        scope.setdefault("state", {})["session"] = session

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = [
                    (k, v)
                    for k, v in message.get("headers", [])
                    if k.lower() not in {b"content-security-policy", b"cache-control"}
                ]
                policy = next(
                    (v.decode() for k, v in message.get("headers", [])
                     if k.lower() == b"content-security-policy"),
                    PAGE_POLICY,
                )  # fmt: skip
                message = dict(message, headers=headers + security_headers(policy))
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _plain(send, status: int, text: str) -> None:
    body = (text + "\n").encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                        (b"content-length", str(len(body)).encode()), *security_headers()],
        }
    )  # fmt: skip
    await send({"type": "http.response.body", "body": body})
