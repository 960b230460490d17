"""CLI commands of this topic; registered by ``anonlab.cli._register_command_modules``."""

from __future__ import annotations

import typer


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add this module's commands to the top-level app and the ``attack`` group."""
