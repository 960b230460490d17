"""The ``anonlab`` command line: a thin layer over the public API.

One flag vocabulary across commands: ``--dataset NAME | --data FILE`` for the original table,
``--qi a,b,c``, ``--sensitive COL``, ``--sensitive-values v1,v2``, ``--algorithm``, ``--k``,
``--l``, ``--seed``, ``--out DIR``, ``--force``, ``--json``. Bad input prints one line naming the
parameter, column or value and exits with code 2, with no traceback and no partial output.
"""

from __future__ import annotations

import sys

import typer

from anonlab import __version__
from anonlab.cli.common import app, attack_app, drop_notes, flush_notes, out
from anonlab.errors import AnonlabError


def main() -> None:
    """Entry point: run the app, turning anonlab's input errors into exit code 2. What loading
    decided about the columns (:func:`anonlab.cli.common.note`) is printed after a command's
    output when it succeeds, never when it fails."""
    drop_notes()
    try:
        _add_attack_commands()
        app(standalone_mode=False)
        flush_notes()
    except AnonlabError as exc:
        drop_notes()  # plain text: never read as console markup
        sys.stderr.write(f"error: {exc}\n")
        sys.exit(2)
    except MemoryError as exc:  # a size no up-front check foresaw: still no traceback
        sys.stderr.write(
            f"error: out of memory ({exc or 'MemoryError'}); the command stopped (outputs are "
            "written atomically, so none is half-written). Use smaller sizes (--resample, "
            "--queries, --targets, --chains, --k...), or run on Dask (--workers N or --cluster "
            "ADDRESS)\n"
        )
        sys.exit(2)
    except (typer.Exit, SystemExit) as exc:
        code = getattr(exc, "exit_code", getattr(exc, "code", 0))
        sys.exit(code)
    except Exception as exc:  # usage errors of the click that typer bundles, abort, bad files
        if hasattr(exc, "show") and hasattr(exc, "exit_code"):
            exc.show()
            sys.exit(2)
        if type(exc).__name__ == "Abort":
            sys.stderr.write("aborted\n")
            sys.exit(1)
        if isinstance(exc, OSError):
            sys.stderr.write(f"error: {exc}\n")
            sys.exit(2)
        raise


# Commands that live in their own modules (one per topic). Each module defines
# ``register(app, attack_app)``; add one line per module here.
_COMMAND_MODULES: tuple[str, ...] = (
    "datasets",
    "anonymize",
    "check",
    "utility",
    "import_release",
    "worst_case",
    "foreground",
    "demo",
    "definetti",
    "rules",
    "rules_attack",
    "algorithm",
    "audit",
    "compare",
    "reproduce",
    "hierarchy",
    "init",
    "serve",
    "attack",
)


def _register_command_modules() -> None:
    import importlib

    for name in _COMMAND_MODULES:
        importlib.import_module(f"anonlab.cli.{name}").register(app, attack_app)
    _add_attack_commands()


def _add_attack_commands() -> None:
    """``attack NAME`` for every registered attack without a hand-written command; run again
    when the command line starts, for attacks registered after import."""
    from anonlab.cli.attack import add_attack_commands

    add_attack_commands(attack_app)


# ---------------------------------------------------------------------- commands
@app.command()
def version() -> None:
    """Print anonlab's version."""
    out.print(__version__)


if __name__ == "__main__":  # pragma: no cover
    main()


_register_command_modules()
