"""The command line's option vocabulary: one definition of each shared option (data roles,
the audit budget, the release thresholds, Dask) and the parsers of their values."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import typer

from anonlab.errors import AnonlabError
from anonlab.report.budget import AuditBudget
from anonlab.report.decision import Thresholds

DATASET = typer.Option(None, "--dataset", help="A bundled dataset (see `anonlab datasets`).")


DATA = typer.Option(None, "--data", help="A CSV (header row) or Parquet file.")


QI = typer.Option(None, "--qi", help="Quasi-identifiers, comma-separated.")


SENSITIVE = typer.Option(
    None,
    "--sensitive",
    help="The sensitive attribute; several comma-separated (diagnosis,insurer), each protected "
    "and attacked on its own.",
)


INSENSITIVE = typer.Option(
    None,
    "--insensitive",
    help="Columns published as they are (not generalized), comma-separated.",
)


IDENTIFIERS = typer.Option(
    None,
    "--identifiers",
    help="Direct identifiers (names, record ids), comma-separated: dropped, never published.",
)


UNASSIGNED = typer.Option(
    "drop",
    "--unassigned",
    help="A column of --data given no role: 'drop' (left out; the command names it) or "
    "'error' (refused, listing every such column).",
)


TYPES = typer.Option(
    None,
    "--types",
    help="Declared column types overriding inference, e.g. zip=text,age=integer,"
    "stay=decimal,sex=categorical,born=date (types: text, integer, decimal, categorical, "
    "date, datetime; dates in ISO 8601).",
)


# The audit's budget (anonlab.report.budget.AuditBudget): one definition of each option and
# its default, shared by `anonlab audit` and `anonlab compare`.
TARGETS = typer.Option(AuditBudget.targets, "--targets", help="deFinetti: random targets.")


CHAINS = typer.Option(AuditBudget.chains, "--chains", help="deFinetti: chains.")


SWEEPS = typer.Option(AuditBudget.sweeps, "--sweeps", help="deFinetti: sweeps per chain.")


K_MAX = typer.Option(AuditBudget.k_max, "--k-max", help="Worst case: largest k of the curve.")


WORST_CASE_K = typer.Option(
    AuditBudget.worst_case_k,
    "--worst-case-k",
    help="Worst case: the verdict's k (records above the promise after k implications).",
)


QUERIES = typer.Option(AuditBudget.queries, "--queries", help="COUNT queries in the workload.")


MIN_EXP = typer.Option(
    AuditBudget.min_expectation, "--min-exp", help="Negative rules: minExp in (0, 1)."
)


FOREGROUND_ATTRIBUTES = typer.Option(
    AuditBudget.foreground_attributes,
    "--foreground-attributes",
    help="Foreground: largest attribute set (0: all).",
)


# The publisher's thresholds for the decision to release (anonlab.report.decision.Thresholds),
# shared by `anonlab audit` and `anonlab compare`.
MAX_RISK = typer.Option(
    0.2,
    "--max-risk",
    help="Release threshold: highest re-identification risk (0.2 = classes of at least 5; "
    "0.09 or 0.05 for a public release).",
)


MAX_SHARE_AT_RISK = typer.Option(
    0.05,
    "--max-share-at-risk",
    help="Release threshold: largest share of records at risk under any one attack.",
)


BOUNDS_DECIDE = typer.Option(
    False,
    "--bounds-decide",
    help="Let the worst-case bound also block the release (default: shown, not deciding).",
)


def audit_budget(
    targets: int,
    chains: int,
    sweeps: int,
    k_max: int,
    worst_case_k: int,
    queries: int,
    min_exp: float,
    foreground_attributes: int,
) -> AuditBudget:
    """The audit budget of the command line's options; errors name the option."""
    if not 0 < min_exp < 1:
        raise AnonlabError(f"--min-exp must be in (0, 1), got {min_exp}")
    if not 0 <= worst_case_k <= k_max:
        raise AnonlabError(
            f"--worst-case-k must be between 0 and --k-max ({k_max}), got {worst_case_k}"
        )
    return AuditBudget(
        targets=targets,
        chains=chains,
        sweeps=sweeps,
        k_max=k_max,
        worst_case_k=worst_case_k,
        queries=queries,
        min_expectation=min_exp,
        foreground_attributes=foreground_attributes or None,
    )


#: The audit budget's fields (:class:`~anonlab.report.budget.AuditBudget`) as options: field ->
#: (the option's parameter name, the option).
BUDGET_OPTIONS: dict[str, tuple[str, Any]] = {
    "targets": ("targets", TARGETS),
    "chains": ("chains", CHAINS),
    "sweeps": ("sweeps", SWEEPS),
    "k_max": ("k_max", K_MAX),
    "worst_case_k": ("worst_case_k", WORST_CASE_K),
    "queries": ("queries", QUERIES),
    "min_expectation": ("min_exp", MIN_EXP),
    "foreground_attributes": ("foreground_attributes", FOREGROUND_ATTRIBUTES),
}


@dataclass(frozen=True)
class AuditOptions:
    """The audit budget's and the release thresholds' options as given: one definition for the
    commands that audit (:func:`takes_audit_options`); :meth:`budget` and :meth:`thresholds`
    check and build them."""

    targets: int = TARGETS.default
    chains: int = CHAINS.default
    sweeps: int = SWEEPS.default
    k_max: int = K_MAX.default
    worst_case_k: int = WORST_CASE_K.default
    queries: int = QUERIES.default
    min_exp: float = MIN_EXP.default
    foreground_attributes: int = FOREGROUND_ATTRIBUTES.default
    max_risk: float = MAX_RISK.default
    max_share_at_risk: float = MAX_SHARE_AT_RISK.default
    bounds_decide: bool = BOUNDS_DECIDE.default

    def budget(self) -> AuditBudget:
        """:func:`audit_budget` of these options (errors name the option)."""
        return audit_budget(
            self.targets,
            self.chains,
            self.sweeps,
            self.k_max,
            self.worst_case_k,
            self.queries,
            self.min_exp,
            self.foreground_attributes,
        )

    def thresholds(self) -> Thresholds:
        """The publisher's thresholds (:class:`~anonlab.report.decision.Thresholds`)."""
        return Thresholds(self.max_risk, self.max_share_at_risk, self.bounds_decide)


#: The default of a command's ``audit: AuditOptions`` parameter (replaced by the options of
#: :func:`takes_audit_options`; Python wants a default after the command's own options).
AUDIT_OPTIONS = AuditOptions()


def takes_option_group(
    parameter: str,
    group: type,
    options: Mapping[str, Any],
    *,
    leave_out: Sequence[str] = (),
) -> Callable[[Callable], Callable]:
    """Decorate a command whose function takes ``parameter``, one ``group`` (a dataclass of
    option values): the command line gets the option ``options[field]`` of each field (but
    ``leave_out``), in their one definition, and the function one ``group`` of their values.

    Typer reads the returned function's signature: the command's own parameters, with the
    group's options in the place of ``parameter``, typed as the group's fields. A field named
    as the parameter itself is given to typer as ``<parameter>_<field>``."""
    types = typing.get_type_hints(group)
    fields = [name for name in options if name not in leave_out]

    def given_as(name: str) -> str:
        return f"{parameter}_{name}" if name == parameter else name

    def decorate(fn: Callable) -> Callable:
        hints = typing.get_type_hints(fn)  # the module's own names (annotations are strings)
        signature = inspect.signature(fn)
        params: list[inspect.Parameter] = []
        for param in signature.parameters.values():
            if param.name != parameter:
                params.append(param.replace(annotation=hints.get(param.name, param.annotation)))
                continue
            params.extend(
                inspect.Parameter(
                    given_as(name),
                    inspect.Parameter.POSITIONAL_OR_KEYWORD,
                    default=options[name],
                    annotation=types[name],
                )
                for name in fields
            )

        @functools.wraps(fn)
        def command(**kwargs: Any) -> Any:
            values = {name: kwargs.pop(given_as(name)) for name in fields}
            return fn(**{parameter: group(**values)}, **kwargs)

        command.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=params, return_annotation=None
        )
        command.__annotations__ = {p.name: p.annotation for p in params} | {"return": None}
        return command

    return decorate


def takes_audit_options() -> Callable[[Callable], Callable]:
    """Decorate a command whose function takes ``audit: AuditOptions``: the command line gets
    the audit budget's options (``--targets`` ... ``--foreground-attributes``) and the release
    thresholds' (``--max-risk``, ``--max-share-at-risk``, ``--bounds-decide``), in their one
    definition, and the function one :class:`AuditOptions`."""
    budget = dict(BUDGET_OPTIONS.values())
    thresholds = {
        "max_risk": MAX_RISK,
        "max_share_at_risk": MAX_SHARE_AT_RISK,
        "bounds_decide": BOUNDS_DECIDE,
    }
    return takes_option_group("audit", AuditOptions, budget | thresholds)


VALUE_SETS = typer.Option(
    None,
    "--value-sets",
    help="Quasi-identifiers without a hierarchy to publish, knowingly, as the set of each "
    "group's values ({a,b}: every member's exact value); comma-separated. Without it such a "
    "generalized release is refused, naming the builders that fit.",
)


SCHEMA = typer.Option(
    None,
    "--schema",
    help="A schema file (JSON; draft one with `anonlab init DATA`) giving every column of "
    "--data its role, type and hierarchy or builder; replaces --qi, --sensitive, --insensitive, "
    "--identifiers, --types, --hierarchies.",
)


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


PUBLISHED_FORMAT = typer.Option(
    "csv",
    "--published-format",
    help="Format of the published files: csv (text cells guarded against spreadsheet "
    "formulas) or parquet (typed columns, not guarded; docs/formats.md).",
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


# A command's release argument, and the --force of the commands that write a file or folder.
RELEASE_DIR = typer.Argument(..., help="A release directory.")


ATTACKED = typer.Option(
    None,
    "--sensitive",
    help="When the release has several sensitive attributes: the one to attack or measure "
    "(the audit takes each).",
)


RECORDS = typer.Option(None, "--records", help="Write per-record results (CSV) to this file.")


FORCE_RECORDS = typer.Option(False, "--force", help="Replace the --records file if it exists.")


FORCE_OUT = typer.Option(False, "--force", help="Replace --out if it exists.")


FORCE_OUT_FILE = typer.Option(False, "--force", help="Replace the --out file if it exists.")


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


def require_cluster_for_written(release_dir, cluster: str | None, workers: int | None,
                                verb: str) -> None:  # fmt: skip
    """A release the workers wrote (``anonymize --on-workers``) is read on a cluster: refuse it
    without ``--cluster``/``--workers`` (``verb``: what the command does to it, "checked"),
    then check ``--workers N`` (:func:`check_workers_option`)."""
    if cluster is None and workers is None:
        raise AnonlabError(
            f"{str(release_dir)!r} was written by a cluster's workers (anonymize --on-workers); "
            f"it is {verb} on a cluster too: give --cluster ADDRESS or --workers N"
        )
    check_workers_option(workers)


def check_group_sizes(n_records: int, **params: int | None) -> None:
    """Group-size parameters (``l=..., k=..., m=...``; None passes) at most ``n_records``, each
    named as its option (``--l``) with the record count."""
    from anonlab._validation import check_at_most_records

    symbols = {"l": "ℓ"}
    for name, value in params.items():
        option = "--" + name.replace("_", "-")
        check_at_most_records(option, value, n_records, symbols.get(name, name))


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


def parse_types(value: str | None) -> dict[str, str] | None:
    """``zip=text,age=integer`` -> {"zip": "text", "age": "integer"} (the type names are
    checked by :func:`anonlab.schema.parse_column_types`)."""
    if value is None:
        return None
    from anonlab.schema import ColumnType, parse_column_types

    valid = ", ".join(t.value for t in ColumnType)
    out: dict[str, str] = {}
    for item in split_list(value) or []:
        name, sep, kind = item.partition("=")
        if not sep or not name.strip() or not kind.strip():
            raise AnonlabError(
                f"--types: {item!r} is not COLUMN=TYPE (e.g. zip=text,age=integer; types: {valid})"
            )
        if name.strip() in out:
            raise AnonlabError(f"--types: column {name.strip()!r} is given a type twice")
        out[name.strip()] = kind.strip()
    parse_column_types(out, "--types")  # each type one of the valid ones, named if not
    return out
