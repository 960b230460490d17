"""``anonlab attack algorithm`` and ``anonlab asap-check``: algorithm-based disclosure.

Jin, Zhang, Das (ASAP, Information Systems 2011). ``attack algorithm RELEASE`` runs the attacks
that target the release's algorithm (read from its manifest): Algorithm 7 against Hilb (and
Hilb+/Hilb++), PhD-25 against MASK (and its repairs), and the brute-force ASAP checker when the
release is tiny. ``asap-check`` publishes a tiny table with any anonymizer of the registry and
compares the naive and smart posteriors of every record.
"""

from __future__ import annotations

from pathlib import Path

import typer

from anonlab.cli.common import (
    IDENTIFIERS,
    INSENSITIVE,
    JSON,
    QI,
    SEED,
    SENSITIVE,
    SENSITIVE_VALUES,
    TYPES,
    UNASSIGNED,
    add_column,
    add_row,
    check_group_sizes,
    column_lines,
    column_summary,
    emit_json,
    new_table,
    note,
    open_release,
    out,
    parse_types,
    say,
    split_list,
    stage,
    styled,
)
from anonlab.errors import AnonlabError


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add ``attack algorithm`` and ``asap-check``."""
    attack_app.command("algorithm")(attack_algorithm)
    app.command("asap-check")(asap_check_command)


def _check_n_seeds(n_seeds: int | None) -> None:
    """``--n-seeds`` within the checker's run budget (candidate tables × seeds), before the
    checker lists the seeds."""
    from anonlab._validation import check_int
    from anonlab.attacks.asap_checker import MAX_RUNS

    if n_seeds is None:
        return
    n_seeds = check_int("--n-seeds", n_seeds, minimum=1)
    if n_seeds > MAX_RUNS:
        raise AnonlabError(
            f"--n-seeds {n_seeds:,}: the ASAP checker runs the algorithm at most {MAX_RUNS:,} "
            f"times (candidate tables × seeds); give at most {MAX_RUNS:,} seeds"
        )


def _fmt(v: object) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return "-" if v is None else str(v)


def attack_algorithm(
    release_dir: Path = typer.Argument(..., help="A release directory."),
    tie_break: str = typer.Option(
        "rank", "--tie-break", help="Algorithm 7: rank (Hilb's order) or index (raw Hilbert)."
    ),
    n_seeds: int | None = typer.Option(
        None, "--n-seeds", help="ASAP checker: seeds per candidate (randomized algorithms)."
    ),
    as_json: bool = JSON,
) -> None:
    """Attacks on the release's algorithm (Jin et al.): Algorithm 7, PhD-25, the ASAP checker."""
    from anonlab.attacks.algorithm_disclosure import run_algorithm_attacks

    if tie_break not in ("rank", "index"):
        raise AnonlabError(f"--tie-break must be rank or index, got {tie_break!r}")
    _check_n_seeds(n_seeds)
    release = open_release(release_dir)
    with stage("algorithm-based disclosure attacks", as_json):
        result = run_algorithm_attacks(release, tie_break=tie_break, n_seeds=n_seeds)
    result["release"] = str(release_dir)
    if as_json:
        emit_json(result)
        return
    algorithm = result["algorithm"]
    if not result["applied"]:
        say(f"No algorithm-based attack applies to this release (algorithm {algorithm!r}):")
        for name, why in result["skipped"].items():
            say(f"  {name}: {why}")
        return
    for name, res in result["applied"].items():
        if name == "asap-check":
            say(styled("ASAP checker", "bold"), f": {res['verdict']}")
            continue
        tab = new_table(f"{name} on {release_dir} ({algorithm})")
        tab.add_column("measure")
        tab.add_column("value", justify="right")
        for key, value in res.items():
            if key != "attack":
                add_row(tab, key.replace("_", " "), _fmt(value))
        out.print(tab)
    for name, why in result["skipped"].items():
        say(f"not run: {name} ({why})")


def _parse_params(items: list[str] | None) -> dict:
    """``--param variant=cut`` -> {"variant": "cut"} (ints and floats converted)."""
    params: dict = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise AnonlabError(f"--param {item!r} is not NAME=VALUE (e.g. variant=cut)")
        value = value.strip()
        for cast in (int, float):
            try:
                params[name.strip()] = cast(value)
                break
            except ValueError:
                continue
        else:
            params[name.strip()] = value
    return params


def _parse_facts(items: list[str] | None) -> list[tuple[int, str]]:
    """``--not 3=AIDS`` (row 3, 0-based, does not hold AIDS)."""
    facts = []
    for item in items or []:
        row, sep, value = item.partition("=")
        if not sep or not row.strip().isdigit():
            raise AnonlabError(f"--not {item!r} is not ROW=VALUE (0-based row, e.g. 3=AIDS)")
        facts.append((int(row), value.strip()))
    return facts


def asap_check_command(
    table_file: Path = typer.Argument(..., help="A tiny CSV or Parquet table."),
    algorithm: str = typer.Option(..., "--algorithm", help="An anonymizer of the registry."),
    qi: str | None = QI,
    sensitive: str | None = SENSITIVE,
    insensitive: str | None = INSENSITIVE,
    identifiers: str | None = IDENTIFIERS,
    unassigned: str = UNASSIGNED,
    types: str | None = TYPES,
    sensitive_values: str | None = SENSITIVE_VALUES,
    k: int | None = typer.Option(None, "--k"),
    l: int | None = typer.Option(None, "--l"),
    m: int | None = typer.Option(None, "--m"),
    param: list[str] | None = typer.Option(
        None, "--param", help="Other algorithm parameters, NAME=VALUE (repeatable)."
    ),
    knowledge: str = typer.Option(
        "multiset", "--knowledge", help="multiset (original values' counts known) or domain."
    ),
    naive: str = typer.Option(
        "minimal-change",
        "--naive",
        help="Naive world of perturbing algorithms (MASK family): minimal-change (the paper's "
        "reading: published values believed except the fewest the knowledge forces to be "
        "fake), face-value, or free.",
    ),
    negative: list[str] | None = typer.Option(
        None, "--not", help="External knowledge ROW=VALUE: 0-based row does not hold VALUE."
    ),
    n_seeds: int | None = typer.Option(
        None, "--n-seeds", help="Seeds per candidate for randomized algorithms."
    ),
    seed: int = SEED,
    as_json: bool = JSON,
) -> None:
    """Brute-force ASAP check (Jin et al. Defs. 3-5) of one algorithm on a tiny table."""
    from anonlab.attacks.asap_checker import MAX_RECORDS, asap_check
    from anonlab.table import Table, read_frame

    _check_n_seeds(n_seeds)
    qi_list = split_list(qi)
    if not qi_list:
        raise AnonlabError("--qi is required (e.g. --qi age,sex)")
    if sensitive is None:
        raise AnonlabError("--sensitive is required")
    frame = read_frame(table_file)
    if len(frame) > MAX_RECORDS:
        raise AnonlabError(
            f"asap-check enumerates every candidate table: at most {MAX_RECORDS} records, "
            f"{str(table_file)!r} has {len(frame)}"
        )
    table = Table.from_frame(
        frame,
        quasi_identifiers=qi_list,
        sensitive=sensitive,
        insensitive=split_list(insensitive) or [],
        identifiers=split_list(identifiers) or [],
        types=parse_types(types),
        unassigned=unassigned,
    )
    if not as_json:
        for line in column_lines(table):
            note(line)
    check_group_sizes(table.n_rows, k=k, l=l, m=m)
    params = {"k": k, "l": l, "m": m, "sensitive_values": split_list(sensitive_values)}
    params = {key: v for key, v in params.items() if v is not None}
    params.update(_parse_params(param))
    with stage(f"asap-check {algorithm} on {table.n_rows} records", as_json):
        res = asap_check(
            table,
            algorithm,
            params,
            seed=seed,
            knowledge=knowledge,
            naive=naive,
            negative_facts=_parse_facts(negative),
            n_seeds=n_seeds,
        )
    if as_json:
        emit_json({"table": str(table_file), "columns": column_summary(table), **res.to_json()})
        return
    tab = new_table(f"ASAP check: {algorithm} {params} on {table_file}")
    for col in ("row", *qi_list, "largest rise", "naive", "smart"):
        add_column(tab, col, justify="right" if col in ("row", "naive", "smart") else "left")
    rise = res.increase
    for i in range(table.n_rows):
        v = int(rise[i].argmax())
        add_row(
            tab,
            str(i),
            *[str(table.column(q)[i]) for q in qi_list],
            res.values[v],
            f"{res.naive[i, v]:.4f}",
            f"{res.smart[i, v]:.4f}",
        )
    out.print(tab)
    say(
        f"{res.n_worlds:,} candidate tables ({res.n_naive_worlds:,} naive), "
        f"{res.n_smart_worlds:,} reproduce the release; "
        + (
            "deterministic algorithm"
            if res.deterministic
            else f"randomized: {len(res.seeds)} seeds per candidate, {res.accepted_runs:,} "
            "reproducing runs"
        )
        + f"; knowledge: {knowledge}; max rise {res.max_increase:.4g}."
    )
    say(res.verdict)
