"""``anonlab anonymize --on-workers``: a Parquet or CSV file in, a release written by the
cluster's workers out, the records never on this machine
(:mod:`anonlab.distributed.worker_release`).

The command's own checks and loading options are reused: the template (roles, types,
hierarchies, domains) is read, with the same options as a table would be, from a frame of the
file's *distinct values* counted on the workers (:func:`~anonlab.distributed.worker_input.
domain_frame`), written to a temporary file of the same kind (Parquet, or CSV with the same
separator, so that the same reader decides the types). The written release is
then checked from its own files by map-reduce
(:func:`~anonlab.distributed.written_checks.check_written_release`) and the verdicts printed.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from pathlib import Path
from typing import Any

from anonlab.cli.loading import DataOptions
from anonlab.cli.output import column_summary, emit_json, say, stage
from anonlab.errors import AnonlabError

#: Options of ``anonlab anonymize`` spelled otherwise than their parameter.
OPTION_NAMES = {"min_expectation": "--min-exp"}


def check_on_workers_options(
    data: DataOptions, algorithm: str, cluster: str | None, workers: int | None,
    resample: int | None, params: dict[str, Any],
) -> None:  # fmt: skip
    """Refuse, before any work, what ``--on-workers`` cannot do, naming the option."""
    from anonlab.distributed.worker_release import ALGORITHMS, PARAMETERS, check_parameters

    if cluster is None and workers is None:
        raise AnonlabError(
            "--on-workers runs on a Dask cluster: give --cluster ADDRESS or --workers N"
        )
    if data.data is None:
        raise AnonlabError(
            "--on-workers reads a file's row groups (Parquet) or blocks (CSV) on the workers: "
            "give --data FILE (a bundled --dataset is read on this machine)"
        )
    if data.drop_missing:
        raise AnonlabError("--on-workers drops no records: --drop-missing is not available")
    if resample is not None:
        raise AnonlabError("--resample draws records on this machine; not with --on-workers")
    if algorithm not in ALGORITHMS:
        raise AnonlabError(
            f"--algorithm {algorithm!r} does not run with --on-workers; use one of "
            f"{list(ALGORITHMS)} (or leave out --on-workers)"
        )
    given = [name for name, v in params.items() if v is not None and name not in PARAMETERS]
    if given:
        option = OPTION_NAMES.get(given[0], "--" + given[0].replace("_", "-"))
        raise AnonlabError(f"{option} is not available with --on-workers")
    check_parameters(algorithm, params)  # e.g. --k for Anatomy, before any work


def template(client: object, data: DataOptions, as_json: bool):
    """The table's :class:`~anonlab.distributed.worker_input.FileTemplate` (no records),
    read with the command's options from the file's distinct values; prints the column
    decisions as any command does."""
    from anonlab.distributed.worker_input import FileTemplate, InputFile, domain_frame

    source = InputFile.of(data.data)
    frame = domain_frame(client, source)
    with tempfile.TemporaryDirectory(prefix="anonlab-domains-") as folder:
        path = Path(folder) / data.data.name  # the same name and kind, for the messages
        if source.kind == "parquet":
            frame.to_parquet(path, index=False)
        else:  # the distinct cells as the CSV reader will read them, same separator
            frame.to_csv(path, index=False, sep=source.sep)
        table = dataclasses.replace(data, data=path).load(as_json=as_json, publishes=True)
    return FileTemplate.from_domain_table(frame, table)


def run(
    client: object,
    data: DataOptions,
    algorithm: str,
    out_dir: Path,
    *,
    seed: int,
    published_format: str,
    export_key: bytes | None,
    force: bool,
    as_json: bool,
    params: dict[str, Any],
) -> None:
    """Make, write and check the release on the workers; print the summary."""
    from anonlab.distributed.worker_release import anonymize_on_workers
    from anonlab.distributed.written_checks import check_written_release

    with stage("distinct values on the workers", as_json):
        file_template = template(client, data, as_json)
    table = file_template.table
    wanted = {k: v for k, v in params.items() if v is not None}
    t0 = time.perf_counter()
    with stage(f"{algorithm} on the workers", as_json):
        result = anonymize_on_workers(
            client, str(data.data), file_template, algorithm, out_dir, seed=seed,
            published_format=published_format, export_key=export_key, force=force, **wanted,
        )  # fmt: skip
    elapsed = time.perf_counter() - t0
    with stage("privacy checks over the written parts", as_json):
        checks = check_written_release(client, out_dir, table)
    published = sorted(f for f in result.files if f.startswith("published/"))
    summary = {
        "out": str(out_dir),
        "algorithm": algorithm,
        "scheme": result.manifest["scheme"],
        "rows": result.n_rows,
        "groups": result.n_groups,
        "parts": result.n_parts,
        "seconds": round(elapsed, 4),
        "timings": {k: round(v, 4) for k, v in result.timings.items()},
        "columns": column_summary(table),
        "published_files": [str(out_dir / f) for f in published],
        "checks": [
            {
                "model": c.model,
                "parameters": c.parameters,
                "holds": c.holds,
                "value": c.value,
                "violating_groups": c.n_violating_groups,
                "violating_records": c.violating_records,
            }
            for c in checks
        ],
    }
    if as_json:
        emit_json(summary)
        return
    say(
        f"{algorithm} on the workers: {result.n_rows:,} records in {result.n_groups:,} groups "
        f"({summary['scheme']}), {result.n_parts:,} parts, in {elapsed:.3f} s -> {out_dir}"
    )
    folders = sorted({str(Path(f).parent) for f in published})
    say(f"publish: {', '.join(str(out_dir / f) for f in folders)} ({len(published)} files)")
    say("checked from the written files:")
    for c in checks:
        say(f"  {c.summary()}")
