"""The command line's output: consoles, markup-safe printing of user data, tables, JSON,
the notes printed after a command succeeds, and the progress spinner."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable
from rich.text import Text

# User data (values, column names, paths, rules, messages that quote them) must never be read
# as console markup (``[bold]``, ``[/]``, ``[link=...]``: a crash or silent styling) nor as
# emoji codes (``:smile:``). The one mechanism: whatever holds user data is printed as a Text
# (never parsed), through the helpers below: :func:`say` for a line, :func:`new_table` and
# :func:`add_row` for tables, :func:`styled` for the CLI's own colours. The consoles keep markup
# on for literal CLI strings; code that still writes markup around data escapes it with
# :func:`esc` (``rich.markup.escape``).
out = Console(emoji=False, highlight=False)


err = Console(stderr=True, emoji=False, highlight=False)


Cell = str | Text


def esc(value: object) -> str:
    """``value`` as text that console markup shows as itself (``rich.markup.escape``)."""
    return escape(str(value))


def plain(value: object) -> Text:
    """``value`` as a Text that is never read as markup (a str) or kept as it is (a Text)."""
    return value if isinstance(value, Text) else Text(str(value))


def styled(text: object, style: str) -> Text:
    """``text`` in ``style`` (e.g. ``"green"``, ``"bold"``), never read as console markup: the
    one way the CLI colours output (a cell ``styled("yes", "green")``, a line
    ``say(styled(name, "bold"), ": ", citation)``)."""
    return Text(str(text), style=style)


def say(*parts: Cell, console: Console | None = None, **options: Any) -> None:
    """Print one line made of ``parts``: each str literally (user data safe), each Text with
    its style. ``options`` go to ``Console.print`` (e.g. ``soft_wrap=True``)."""
    (console or out).print(Text.assemble(*(plain(p) for p in parts)), **options)


def new_table(title: Cell | None = None, **options: Any) -> RichTable:
    """A rich Table whose title is shown literally (titles quote paths and names)."""
    return RichTable(title=None if title is None else plain(title), **options)


def add_column(table: RichTable, header: Cell, **options: Any) -> None:
    """Add a column whose header is shown literally (headers quote column names)."""
    table.add_column(plain(header), **options)


def format_value(value: object) -> str:
    """A table cell for a measured value: floats to 4 significant digits, anything else as str."""
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def add_row(table: RichTable, *cells: Cell) -> None:
    """Add a row: str cells literally (they hold data), Text cells with their style."""
    table.add_row(*(plain(c) for c in cells))


def print_table(
    title: Cell | None,
    columns: Sequence[Cell],
    rows: Iterable[Sequence[Cell]],
    right: Collection[int] = (),
) -> None:
    """Print a table: a column per header of ``columns``, aligned left, or right for the
    positions in ``right`` (0 the first column); then ``rows``, each a sequence of cells
    (:func:`add_row`)."""
    table = new_table(title)
    for i, column in enumerate(columns):
        add_column(table, column, justify="right" if i in right else "left")
    for row in rows:
        add_row(table, *row)
    out.print(table)


def print_measures(title: Cell, columns: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """Print a table of measures: the column ``measure`` (each row's label), then ``columns``
    aligned right (e.g. ``["value"]``, or one per release or method); one row per
    ``(label, *values)``, each value shown by :func:`format_value` (a str as it is)."""
    print_table(
        title,
        ["measure", *columns],
        ((label, *(format_value(v) for v in values)) for label, *values in rows),
        right=range(1, len(columns) + 1),
    )


@contextmanager
def stage(description: str, quiet: bool = False) -> Iterator[None]:
    """A spinner with elapsed time on stderr while a step runs (hidden when not a terminal);
    the step is also written to the progress file where one is set (:func:`progress_event`)."""
    progress_event(description)
    if quiet or not err.is_terminal:
        yield
        return
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}", markup=False),  # descriptions hold user data
        TimeElapsedColumn(),
        console=err,
        transient=True,
    ) as progress:
        progress.add_task(description, total=None)
        yield


#: The environment variable naming the file a command writes its progress to (JSON, replaced
#: whole): how ``anonlab serve``, which runs the commands, shows their progress on its page.
PROGRESS_FILE = "ANONLAB_PROGRESS_FILE"


def progress_file() -> str | None:
    """The progress file this command writes to, or None (``$ANONLAB_PROGRESS_FILE`` unset)."""
    return os.environ.get(PROGRESS_FILE) or None


def progress_event(step: str, done: int | None = None, total: int | None = None) -> None:
    """Replace the progress file's content with ``{"step", "done", "total"}`` (atomically: a
    reader sees the last event or the one before, never half of one); nothing when no progress
    file is set. ``done``/``total`` count the step's iterations, None where it has none."""
    path = progress_file()
    if path is None:
        return
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump({"step": step, "done": done, "total": total}, fh)
        os.replace(tmp, path)
    except OSError:  # progress is a courtesy: never the reason a command fails
        pass


@contextmanager
def counting_bar(
    label: str, total: int, quiet: bool = False
) -> Iterator[Callable[[int, int], None] | None]:
    """A bar of ``total`` steps with elapsed time on stderr while a loop runs; yields the
    callback ``progress(done, total)`` that moves it, or None where :func:`stage` hides its
    spinner (``quiet``, or stderr not a terminal)."""
    if progress_file() is not None:  # a command run by `anonlab serve`: the page draws it
        progress_event(label, 0, total)
        yield lambda done, steps: progress_event(label, done, steps)
        return
    if quiet or not err.is_terminal:
        yield None
        return
    with Progress(
        TextColumn(label, markup=False),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=total)
        yield lambda done, _total: bar.update(task, completed=done)


#: Lines about the loaded columns, printed once the command has succeeded (:func:`flush_notes`,
#: called by :func:`anonlab.cli.main`), so that a command that fails writes nothing to stdout.
_NOTES: list[str] = []


def note(line: str) -> None:
    """Print ``line`` after the command's own output, if the command succeeds."""
    _NOTES.append(line)


def flush_notes() -> None:
    """Print the pending notes (then forget them)."""
    lines = list(_NOTES)
    _NOTES.clear()
    for line in lines:
        say(line)


def drop_notes() -> None:
    """Forget the pending notes (the command failed, or a new one starts)."""
    _NOTES.clear()


def column_summary(table) -> dict[str, Any]:
    """What loading decided about the columns, for a command's JSON summary: each kept
    column's type (and how it was decided), the columns given no role (not published), the
    identifiers dropped and the quasi-identifiers published as value sets by choice."""
    return {
        "types": dict(table.types),
        "not_published": list(table.dropped.get("columns") or []),
        "identifiers_dropped": list(table.dropped.get("identifiers") or []),
        "value_sets": list(table.schema.value_sets),
    }


def column_lines(
    table, types: bool = True, publishes: bool = True, schema: Path | None = None
) -> list[str]:
    """The lines a command prints about the columns it loaded: each column's type (with
    ``types``; a bundled dataset's are its catalog's and not printed), then the columns left
    out for want of a role ("not published" for a command that writes a release, else "not
    used") and the identifiers dropped. With ``schema`` (the ``--schema`` file) the roles and
    types came from that file, and the lines say so."""
    lines = []
    if types and table.types:
        change = "--types COLUMN=TYPE" if schema is None else f"the 'type' fields of {schema}"
        lines.append(f"column types (change with {change}):")
        lines.extend(f"  {line}" for line in table.type_lines())
    unassigned = table.dropped.get("columns") or []
    if unassigned and schema is not None:
        lines.append(
            f"{'not published' if publishes else 'not used'} (role 'drop' in {schema}): "
            f"{', '.join(map(str, unassigned))}"
        )
    elif unassigned:
        lines.append(
            f"{'not published' if publishes else 'not used'} (no role given; give one with "
            "--qi, --sensitive, --insensitive or --identifiers, or refuse such data with "
            f"--unassigned error): {', '.join(map(str, unassigned))}"
        )
    identifiers = table.dropped.get("identifiers") or []
    if identifiers:
        why = "--identifiers" if schema is None else f"role 'identifier' in {schema}"
        lines.append(
            f"identifiers dropped ({why}; never published): {', '.join(map(str, identifiers))}"
        )
    chosen = table.schema.value_sets
    if chosen and publishes:
        lines.append(
            "published as the set of each group's values, by choice (every member's exact "
            f"value; --value-sets): {', '.join(chosen)}"
        )
    return lines


def emit_json(payload: object) -> None:
    """Print ``payload`` as JSON; NaN and infinities become null (JSON has no NaN)."""
    out.print_json(json.dumps(_finite(payload), default=jsonable))


def _finite(obj: object) -> object:
    if isinstance(obj, float):
        return obj if obj == obj and obj not in (float("inf"), float("-inf")) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    return obj


def jsonable(obj: object) -> object:

    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return None if not np.isfinite(obj) else float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if hasattr(obj, "to_json"):
        return obj.to_json()
    return str(obj)
