"""``anonlab serve``: the local web app (:mod:`anonlab.app`)."""

from __future__ import annotations

from pathlib import Path

import typer

from anonlab.cli.common import say
from anonlab.errors import AnonlabError


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add the command to the command line."""
    app.command()(serve)


def serve(
    port: int = typer.Option(8765, "--port", help="Port to listen on (0: any free one)."),
    host: str = typer.Option(
        "127.0.0.1",
        "--host",
        help="Address to listen on. Keep the default (this machine only) unless you know why: "
        "anyone who can reach another address and holds the login link can use the app.",
    ),
    workdir: Path = typer.Option(
        Path("anonlab-work"),
        "--workdir",
        help="Folder of the app's projects (data, schemas, releases, reports); kept across "
        "restarts.",
    ),
    max_upload_mb: int = typer.Option(
        500, "--max-upload-mb", help="Largest file an upload may be, in MB."
    ),
) -> None:
    """Start the local web app: load a file, choose roles and hierarchies, anonymize, audit,
    compare and download, in a browser. Prints the address to open (with a one-time login
    token); Ctrl+C stops it. Needs the extra anonlab[app]."""
    from anonlab.app.server import is_loopback, missing_extra

    lacking = missing_extra()
    if lacking is not None:
        raise AnonlabError(
            f"anonlab serve needs the package {lacking!r}: pip install 'anonlab[app]'"
        )
    if not 0 <= port <= 65535:
        raise AnonlabError(f"--port must be 0..65535, got {port}")
    if max_upload_mb < 1:
        raise AnonlabError(f"--max-upload-mb must be at least 1, got {max_upload_mb}")
    if workdir.exists() and not workdir.is_dir():
        raise AnonlabError(f"--workdir {str(workdir)!r} is a file; give a folder")
    from anonlab.app.server import serve as run

    if not is_loopback(host):
        say(f"warning: listening on {host}, not this machine only; keep the link private")

    def announce(url: str) -> None:
        say(f"anonlab serve: open {url}", soft_wrap=True)  # never broken inside the address
        say(f"projects are kept in {workdir.resolve()}; Ctrl+C stops the server")

    run(host, port, workdir, max_upload_mb * 2**20, announce=announce)
