"""Shared pieces of the command line: the apps, consoles, option vocabulary and plumbing.

Command modules (``anonlab.cli.<topic>``) import from here and register their commands with
``register(app, attack_app)``; this module imports no command module, so there is no cycle.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable
from rich.text import Text

from anonlab.errors import AnonlabError

app = typer.Typer(
    name="anonlab",
    help="Publish microdata without exposing the people in it: anonymize, check, measure.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
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


def add_row(table: RichTable, *cells: Cell) -> None:
    """Add a row: str cells literally (they hold data), Text cells with their style."""
    table.add_row(*(plain(c) for c in cells))


DATASET = typer.Option(None, "--dataset", help="A bundled dataset (see `anonlab datasets`).")
DATA = typer.Option(None, "--data", help="A CSV (header row) or Parquet file.")
QI = typer.Option(None, "--qi", help="Quasi-identifiers, comma-separated.")
SENSITIVE = typer.Option(None, "--sensitive", help="The sensitive attribute.")
SENSITIVE_VALUES = typer.Option(
    None, "--sensitive-values", help="Only these sensitive values are protected (comma-separated)."
)
HIERARCHIES = typer.Option(
    None, "--hierarchies", help="Folder of ARX-format hierarchy files named <column>.csv."
)
HIERARCHY_SET = typer.Option(
    None, "--hierarchy-set", help="A bundled dataset's hierarchy set (e.g. arx, martin)."
)
DROP_MISSING = typer.Option(
    False, "--drop-missing", help="Drop rows with a missing value (counted in the manifest)."
)
SEED = typer.Option(0, "--seed", help="Seed for every random choice; stored in the manifest.")
JSON = typer.Option(False, "--json", help="Print JSON for scripts instead of tables.")
RESAMPLE = typer.Option(
    None,
    "--resample",
    help="Draw N records with replacement from the data (seeded by --seed; for scale tests; "
    "stated in the manifest).",
)
CLUSTER = typer.Option(
    None,
    "--cluster",
    help="Run on the Dask scheduler at ADDRESS (e.g. tcp://10.0.0.1:8786); needs the extra "
    "anonlab[distributed].",
)
EXPORT_KEY_FILE = typer.Option(
    None,
    "--export-key-file",
    help="A file with the 64-hex-digit key that orders the published rows and group ids (e.g. "
    "an earlier release's publisher/export-key): with the same --seed, byte-identical files. "
    "Default: a fresh secret key, kept in publisher/export-key.",
)
WORKERS = typer.Option(
    None,
    "--workers",
    help="Run on a local Dask cluster of N worker processes (extra anonlab[distributed]).",
)


@contextmanager
def client_from_options(cluster: str | None, workers: int | None) -> Iterator[object | None]:
    """A ``distributed.Client`` for ``--cluster ADDRESS`` or ``--workers N`` (closed on exit), or
    None when neither is given (run on this machine). Both given is an error."""
    if cluster is None and workers is None:
        yield None
        return
    from anonlab.distributed.cluster import connect

    check_workers_option(workers)

    with connect(cluster, workers) as client:
        yield client


def check_workers_option(workers: int | None) -> None:
    """``--workers N`` within the CPUs and memory of this machine (None passes); call before
    any work (:func:`anonlab.resources.check_workers`)."""
    if workers is not None:
        from anonlab.resources import check_workers

        check_workers(workers)


def check_group_sizes(n_records: int, **params: int | None) -> None:
    """Group-size parameters (``l=..., k=..., m=...``; None passes) at most ``n_records``, each
    named as its option (``--l``) with the record count."""
    from anonlab._validation import check_at_most_records

    symbols = {"l": "ℓ"}
    for name, value in params.items():
        option = "--" + name.replace("_", "-")
        check_at_most_records(option, value, n_records, symbols.get(name, name))


@contextmanager
def stage(description: str, quiet: bool = False) -> Iterator[None]:
    """A spinner with elapsed time on stderr while a step runs (hidden when not a terminal)."""
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


def split_list(value: str | None) -> list[str] | None:
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    return items or None


def parse_levels(value: str | None) -> dict[str, int] | None:
    """``age=3,sex=1`` -> {"age": 3, "sex": 1}."""
    if value is None:
        return None
    out = {}
    for item in split_list(value) or []:
        name, sep, level = item.partition("=")
        if not sep or not level.strip().lstrip("-").isdigit():
            raise AnonlabError(f"--levels: {item!r} is not NAME=LEVEL (e.g. age=3,sex=1)")
        out[name.strip()] = int(level)
    return out


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
    import numpy as np

    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return None if not np.isfinite(obj) else float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if hasattr(obj, "to_json"):
        return obj.to_json()
    return str(obj)


def load_table(
    dataset: str | None,
    data: Path | None,
    qi: str | None,
    sensitive: str | None,
    hierarchies: Path | None = None,
    hierarchy_set: str | None = None,
    drop_missing: bool = False,
    resample: int | None = None,
    seed: int = 0,
    algorithm: str | None = None,
    memory_check: bool = True,
):
    """The original table from ``--dataset`` or ``--data`` with the given roles.

    With ``resample=N``: N records drawn with replacement (:meth:`Table.resample`, seeded by
    ``seed``); state it in the manifest with :func:`resample_manifest`. Before drawing, N is
    checked against the memory available (:func:`anonlab.resources.check_resample`, counting
    ``algorithm``'s work when given) unless ``memory_check`` is False.
    """
    if resample is not None and (isinstance(resample, bool) or resample < 1):
        raise AnonlabError(f"--resample must be a positive number of rows, got {resample}")
    table = _load_table(dataset, data, qi, sensitive, hierarchies, hierarchy_set, drop_missing)
    if resample is None:
        return table
    from anonlab.resources import check_resample

    check_resample(resample, len(table.schema.attributes), algorithm, override=not memory_check)
    return table.resample(resample, seed)


def resample_manifest(resample: int, seed: int, dataset: str | None, data: Path | None) -> dict:
    """What ``manifest["resample"]`` says: rows drawn, the seed, and the source drawn from."""
    return {
        "rows": int(resample),
        "seed": int(seed),
        "source": dataset if dataset is not None else str(data),
        "with_replacement": True,
    }


def _load_table(dataset, data, qi, sensitive, hierarchies, hierarchy_set, drop_missing):
    from anonlab.hierarchy import Hierarchy
    from anonlab.table import Table

    if (dataset is None) == (data is None):
        raise AnonlabError("give exactly one of --dataset NAME and --data FILE")
    qi_list = split_list(qi)
    hier: dict = {}
    if hierarchies is not None:
        if not hierarchies.is_dir():
            raise AnonlabError(f"--hierarchies {str(hierarchies)!r} is not a folder")
        for f in sorted(hierarchies.glob("*.csv")):
            hier[f.stem] = Hierarchy.read_csv(f, name=f.stem)
    if dataset is not None:
        from anonlab import datasets

        if qi_list is None and sensitive is not None:
            qi_list = list(datasets.info(dataset).default_qi)
        table = Table.from_dataset(
            dataset, quasi_identifiers=qi_list, sensitive=sensitive, hierarchy_set=hierarchy_set
        )
        if hier:
            table = table.with_roles(table.quasi_identifiers, table.sensitive, hier)
        return table
    if qi_list is None:
        raise AnonlabError("--qi is required with --data (e.g. --qi age,sex,zipcode)")
    # Chunked reading: the peak is the codes plus one chunk, not the file's text
    parquet = data.suffix.lower() in (".parquet", ".pq")
    columns = _header(data, parquet)
    reader = Table.from_parquet if parquet else Table.from_csv
    return reader(
        data,
        quasi_identifiers=qi_list,
        sensitive=sensitive,
        hierarchies={k: v for k, v in hier.items() if k in columns},
        drop_missing=drop_missing,
    )


def _header(path: Path, parquet: bool) -> list[str]:
    """The column names of a CSV or Parquet file, read without its rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from anonlab.table import check_input_path, read_csv_header

    path = check_input_path(path)  # names a missing file or a directory
    try:
        if parquet:
            return [str(c) for c in pq.read_schema(path).names]
        return read_csv_header(path)  # as written: not renamed, formula guard removed
    except (OSError, ValueError, UnicodeDecodeError, pa.ArrowException) as exc:
        raise AnonlabError(f"cannot read {str(path)!r}: {exc}") from None


def open_release(path: Path):
    from anonlab.release_io import load_release

    return load_release(path)


attack_app = typer.Typer(
    help="Attacks on a release: what an adversary can infer.", no_args_is_help=True
)
app.add_typer(attack_app, name="attack")


def truth_from_data(release, data: Path) -> np.ndarray:
    """The original's sensitive codes, after checking it is the release's table row by row
    (``--data ORIGINAL`` of the attack and audit commands)."""
    from anonlab.table import read_frame

    frame = read_frame(data)
    table = release.table
    if len(frame) != table.n_rows:
        raise AnonlabError(
            f"--data {str(data)!r} has {len(frame):,} rows but the release has "
            f"{table.n_rows:,}; give the original table the release was made from"
        )
    needed = [*release.quasi_identifiers, release.sensitive]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise AnonlabError(
            f"--data {str(data)!r} lacks column(s) {missing}; the release needs {needed}"
        )
    for name in release.quasi_identifiers:
        ours = table.column(name).astype(str)
        theirs = frame[name].astype(str).to_numpy()
        bad = np.flatnonzero(ours != theirs)
        if len(bad):
            i = int(bad[0])
            raise AnonlabError(
                f"release and --data do not match: row {i} has {name} = {theirs[i]!r} in the "
                f"data but {ours[i]!r} in the release ({len(bad):,} rows differ)"
            )
    labels = [str(v) for v in table.values[release.sensitive]]
    values = frame[release.sensitive].astype(str).to_numpy()
    codes = pd.Index(labels).get_indexer(values)  # -1 where the value is not in the domain
    if (codes < 0).any():
        unknown = sorted(set(values[codes < 0]))
        raise AnonlabError(
            f"--data column {release.sensitive!r} has value(s) {unknown[:5]} that the release's "
            f"domain lacks ({labels})"
        )
    return codes.astype(np.int64)
