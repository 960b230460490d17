"""Start ``anonlab serve``: bind the socket, print the login address, run uvicorn."""

from __future__ import annotations

import ipaddress
import socket
import sys
from pathlib import Path

from anonlab.errors import AnonlabError

LOOPBACK = ("127.0.0.1", "::1", "localhost")


def missing_extra() -> str | None:
    """Which of the app's packages is missing (the extra ``anonlab[app]``), or None."""
    for module in ("starlette", "uvicorn", "jinja2", "multipart"):
        try:
            __import__(module)
        except ImportError:
            return module
    return None


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one), or an error naming why not."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        raise AnonlabError(f"--port {port}: cannot listen on {host}:{port} ({exc.strerror}); "
                           "choose another port (0: any free one)") from None  # fmt: skip
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(host: str, port: int, workdir: Path, max_upload: int, *, announce=print) -> None:
    """Serve the app until interrupted; ``announce`` gets the login address."""
    import uvicorn

    from anonlab.app import create_app
    from anonlab.app.security import Sessions

    workdir.mkdir(parents=True, exist_ok=True)
    sock = bind(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    hosts = {f"{shown}:{bound}"}
    if is_loopback(host):
        hosts |= {f"127.0.0.1:{bound}", f"localhost:{bound}", f"[::1]:{bound}"}
    sessions = Sessions()
    app = create_app(workdir, sessions, hosts, max_upload=max_upload)
    announce(f"http://{shown}:{bound}/login?token={sessions.token}")
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        app.app.state.anonlab.jobs.cancel_all()  # no job's process outlives the server
        sock.close()
        sys.stdout.flush()
