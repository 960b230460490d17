"""Privacy checks of a release the workers wrote, by map-reduce over its part files (issue 21).

A release written by :func:`anonlab.distributed.worker_release.anonymize_on_workers` is a folder
of part files; no group spans two parts. So every per-group check runs on the worker that
reads the part, and only each part's verdict travels to the driver:

1. **Global distribution** (one map-reduce): each worker counts the published sensitive values
   of its part (from ``published/generalized/`` or Anatomy's ``published/st/``, coded with the
   template's sensitive domain); the driver sums them (one integer per value). t-closeness
   measures every group against this distribution, as on one machine.
2. **Per part** (one map): the worker builds the part's group sizes and sensitive histogram from
   its published file and runs the single-machine checks
   (:func:`anonlab.models.defaults.default_checks`) on a release known only by these statistics
   (``Release._from_statistics``, the lattice search's candidate), with the global
   distribution as ``reference_counts``. It returns, per model, the part's achieved level, its
   worst group (published id), its violating groups (at most :data:`MAX_LISTED` ids) and
   records.
3. **Reduce** (driver): ``holds`` = every part holds; the achieved level = the worst of the
   parts' (``min`` or ``max`` as the model's registry entry says); violations summed; the worst
   group the lowest published id among the parts' worst at that level.

The checks read what is published (what a reader of the files has), so they verify the files
themselves. The results equal ``default_checks`` on the single-machine release of the same
groups (tested), except that per-group arrays are not returned (one number per group would be
the records' scale on the driver) and violating group ids are listed up to :data:`MAX_LISTED`
per part. Matching ℓ-diversity reads per-record incompatibilities and is not run here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from anonlab.distributed.written_release import no_histogram, table_without_records
from anonlab.errors import AnonlabError

if TYPE_CHECKING:  # pragma: no cover
    from anonlab.table import Table
    from distributed import Client

#: Violating group ids listed per part (the counts are always exact).
MAX_LISTED = 1_000


@dataclass
class WrittenCheck:
    """One model's verdict over the whole written release (a :class:`CheckResult` without the
    per-group arrays)."""

    model: str
    parameters: dict[str, Any]
    holds: bool
    value: float
    worst_group: int | None
    worst_value: float | None
    n_groups: int
    n_violating_groups: int
    violating_records: int
    violating_groups: list[int] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain Python types (for ``--json``), as :meth:`CheckResult.to_json` without the
        per-group values; ``violating_groups`` lists at most :data:`MAX_LISTED` ids per part."""
        from anonlab.models.result import plain_json

        return {
            "model": self.model,
            "parameters": plain_json(self.parameters),
            "holds": bool(self.holds),
            "value": plain_json(self.value),
            "worst_group": plain_json(self.worst_group),
            "worst_value": plain_json(self.worst_value),
            "n_groups": int(self.n_groups),
            "n_violating_groups": int(self.n_violating_groups),
            "violating_groups": [int(g) for g in self.violating_groups],
            "violating_records": int(self.violating_records),
            "details": plain_json(self.details),
        }

    def summary(self) -> str:
        """One line, as :meth:`CheckResult.summary`."""
        from anonlab.models.result import summary_line

        return summary_line(
            self.model, self.parameters, self.holds, self.value, self.n_violating_groups,
            self.n_groups, self.violating_records,
        )  # fmt: skip


# ------------------------------------------------------------------------------- worker side
def _part_statistics(
    root: str, stem: str, scheme: str, fmt: str, sensitive: str, domain, info: dict
):
    """(published group ids, group sizes, histogram groups x values) of one part's files:
    reads the group and sensitive columns only (and the ST's counts), after checking the file
    against its size and SHA-256 in the manifest (``info``)."""
    import pyarrow.parquet as pq

    from anonlab.distributed.worker_cuts import encode, encode_arrow
    from anonlab.distributed.written_release import verify_file

    folder = "st" if scheme == "bucketization" else "generalized"
    rel = f"published/{folder}/{stem}.{fmt}"
    verify_file(root, rel, info)
    path = Path(root) / rel
    if fmt == "parquet":
        names = pq.read_schema(path).names
        wanted = names[:3] if scheme == "bucketization" else [names[0], sensitive]
        table = pq.read_table(path, columns=wanted)
        groups = table.column(0).to_numpy().astype(np.int64)
        codes = encode_arrow(table.column(1), np.asarray(domain), sensitive, str(path))
        count = table.column(2).to_numpy().astype(np.int64) if len(wanted) == 3 else None
    else:  # CSV cells are text, guarded against formulas: compare with the domain so written
        import pandas as pd

        from anonlab.formula_guard import guard_series

        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        groups = frame.iloc[:, 0].to_numpy().astype(np.int64)
        guarded = guard_series(pd.Series(np.asarray(domain), dtype=object))
        text = np.array([str(v) for v in guarded.tolist()], dtype=object)
        values = (frame.iloc[:, 1] if scheme == "bucketization" else frame[sensitive]).to_numpy()
        codes = encode(values.astype(object), text, sensitive, str(path))
        count = frame.iloc[:, 2].to_numpy().astype(np.int64) if scheme == "bucketization" else None
    ids, local = np.unique(groups, return_inverse=True)
    n_values = len(domain)
    weights = np.ones(len(local), dtype=np.int64) if count is None else count
    hist = np.bincount(
        local.astype(np.int64) * n_values + codes, weights=weights, minlength=len(ids) * n_values
    ).astype(np.int64)
    hist = hist.reshape(len(ids), n_values)
    return ids, hist.sum(axis=1), hist


def _value_counts(statistics) -> np.ndarray:
    return statistics[2].sum(axis=0)


def _check_part(
    statistics: tuple,
    scheme: str,
    template: Table,
    manifest_parameters: dict,
    reference: np.ndarray,
    check_args: dict,
) -> list[dict]:
    """On a worker: the default checks of one part, with the global distribution."""
    from anonlab.models import get
    from anonlab.models.defaults import default_checks
    from anonlab.release import Release

    ids, sizes, hist = statistics
    release = Release._from_statistics(
        template, len(ids), sizes, lambda: hist, scheme, reference_counts=reference
    )
    release.manifest["parameters"] = dict(manifest_parameters)
    out = []
    for result in default_checks(release, **check_args):
        worst = get(result.model).worst
        violating = ids[result.violating_groups]
        out.append(
            {
                "model": result.model,
                "parameters": result.parameters,
                "worst": worst,
                "holds": bool(result.holds),
                "value": float(result.value),
                "worst_group": None if result.worst_group is None else int(ids[result.worst_group]),
                "worst_value": None if result.worst_value is None else float(result.worst_value),
                "n_groups": len(ids),
                "n_violating_groups": int(len(violating)),
                "violating_records": int(result.violating_records),
                "violating_groups": violating[:MAX_LISTED].tolist(),
                "details": result.details,
            }
        )
    return out


def _profiles(statistics: tuple) -> tuple[np.ndarray, np.ndarray]:
    """On a worker: the part's distinct count profiles (each group's sensitive counts sorted in
    decreasing order, what maximum disclosure reads of a group) with their multiplicities."""
    profiles, counts = np.unique(-np.sort(-statistics[2], axis=1), axis=0, return_counts=True)
    return profiles, counts


def _ck_part(statistics: tuple, profiles: np.ndarray, values: np.ndarray, c: float,
             witness: int, parameters: dict) -> dict:  # fmt: skip
    """On a worker: the part's (c,k)-safety verdict from each profile's maximum disclosure
    with the target in a group of that profile (``values``, computed on the driver), and the
    part's lowest group id holding the witness profile with that group's most frequent value."""
    ids, sizes, hist = statistics
    own = -np.sort(-hist, axis=1)
    both = np.vstack([profiles, own])
    _, inverse = np.unique(both, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    slot = np.full(int(inverse.max()) + 1, -1, dtype=np.int64)
    slot[inverse[: len(profiles)]] = np.arange(len(profiles))
    profile = slot[inverse[len(profiles) :]]
    if (profile < 0).any():
        raise AnonlabError("internal: a group's count profile was not sent to the driver")
    per_group = values[profile]
    violating = np.flatnonzero(per_group >= c)
    top = float(per_group.max())
    at = profile == witness
    target, target_code = None, None
    if at.any():
        g = int(np.flatnonzero(at)[np.argmin(ids[at])])
        target = int(ids[g])
        target_code = int(np.argsort(-hist[g], kind="stable")[0])
    return {
        "model": "ck-safety",
        "parameters": parameters,
        "worst": "max",
        "holds": not len(violating),
        "value": top,
        "worst_group": int(ids[per_group == top].min()),
        "worst_value": top,
        "n_groups": len(ids),
        "n_violating_groups": int(len(violating)),
        "violating_records": int(sizes[violating].sum()),
        "violating_groups": np.sort(ids[violating])[:MAX_LISTED].tolist(),
        "details": {},
        "target": (target, target_code),
    }


# ------------------------------------------------------------------------------- driver side
def _reduce(per_part: list[list[dict]]) -> list[WrittenCheck]:
    out = []
    for answers in zip(*per_part, strict=True):
        first = answers[0]
        worst = first["worst"]
        values = [a["value"] for a in answers]
        value = min(values) if worst == "min" else max(values)
        at_worst = [a for a in answers if a["value"] == value and a["worst_group"] is not None]
        worst_group = min((a["worst_group"] for a in at_worst), default=None)
        listed = sorted(g for a in answers for g in a["violating_groups"])
        out.append(
            WrittenCheck(
                model=first["model"],
                parameters=first["parameters"],
                holds=all(a["holds"] for a in answers),
                value=value,
                worst_group=worst_group,
                worst_value=value if worst_group is not None else None,
                n_groups=sum(a["n_groups"] for a in answers),
                n_violating_groups=sum(a["n_violating_groups"] for a in answers),
                violating_records=sum(a["violating_records"] for a in answers),
                violating_groups=listed,
                details=first["details"],
            )
        )
    return out


def check_written_release(
    client: Client,
    path: str | Path,
    template: Table | None = None,
    *,
    k: int | None = None,
    l: int | None = None,
    c: float | None = None,
    t: float | None = None,
    m: int | None = None,
    sensitive_values: Sequence[str] | None = None,
    only: Sequence[str] | None = None,
    on_gather: Callable[[str, Any], None] | None = None,
) -> list[WrittenCheck]:
    """The default privacy checks (:func:`anonlab.models.defaults.check_specs`: the same
    arguments, parameters from the release's manifest by default) of the release the workers
    wrote at ``path``, by map-reduce over its part files (module docstring).

    The folder is opened with :func:`anonlab.distributed.written_release.open_written` (seal,
    template); every part file is checked against its SHA-256 on the worker that reads it.
    ``template``: the table the release was made from, to use instead of the folder's own."""
    from anonlab.distributed.written_release import open_written
    from anonlab.models.defaults import check_specs
    from anonlab.release import Release

    root = Path(path)
    manifest, kept = open_written(root)
    template = kept if template is None else template
    if only and "matching-l-diversity" in only:
        raise AnonlabError(
            "matching-l-diversity reads per-record incompatibilities; check it on one machine "
            "(anonlab.models.check)"
        )
    scheme, fmt = manifest["scheme"], manifest["published_format"]
    stems = sorted({Path(f).stem for f in manifest["files"] if f.startswith("publisher/records/")})
    folder = "st" if scheme == "bucketization" else "generalized"
    infos = [manifest["files"][f"published/{folder}/{stem}.{fmt}"] for stem in stems]
    template = template.take(np.zeros(0, dtype=np.int64))  # its schema and domains travel
    sens = template.require_sensitive()
    domain = template.values[sens]
    n = len(stems)
    root_s = str(root)
    # each part's statistics stay on its worker, for the checks after the reference
    statistics = client.map(
        _part_statistics,
        [root_s] * n,
        stems,
        [scheme] * n,
        [fmt] * n,
        [sens] * n,
        [domain] * n,
        infos,
        pure=False,
    )  # fmt: skip
    reference = np.zeros(len(domain), dtype=np.int64)
    for answer in client.gather(client.map(_value_counts, statistics, pure=False)):
        reference += answer
    if on_gather is not None:
        on_gather("value counts", reference)
    # the models and their parameters, as each part will decide them (from the manifest)
    named = Release._from_statistics(template, 0, np.zeros(0), no_histogram, scheme)
    named.manifest["parameters"] = dict(manifest.get("parameters", {}))
    specs = check_specs(named, k, l, c, t, m, sensitive_values, only)
    per_part_models = [name for name, _ in specs if name != "ck-safety"]
    results: dict[str, WrittenCheck] = {}
    if per_part_models:
        check_args = {"k": k, "l": l, "c": c, "t": t, "m": m,
                      "sensitive_values": sensitive_values, "only": per_part_models}  # fmt: skip
        per_part = client.gather(
            client.map(
                _check_part,
                statistics,
                [scheme] * n,
                [template] * n,
                [manifest.get("parameters", {})] * n,
                [reference] * n,
                [check_args] * n,
                pure=False,
            )  # fmt: skip
        )
        if on_gather is not None:
            on_gather("part checks", per_part)
        results.update((r.model, r) for r in _reduce(per_part))
    for name, parameters in specs:
        if name == "ck-safety":
            results[name] = _ck_safety(client, statistics, template, scheme, parameters,
                                       on_gather)  # fmt: skip
    return [results[name] for name, _ in specs]


def _ck_safety(client, statistics: list, template: Table, scheme: str, parameters: dict,
               on_gather) -> WrittenCheck:  # fmt: skip
    """(c,k)-safety over the parts: maximum disclosure couples groups (the attacker's
    implications may mention people of any group, notes §4.4), so it is not decided per part.

    It reads a group only through its *count profile* (sensitive counts sorted in decreasing
    order), and at most ``k + 1`` groups besides the target's receive the attacker's
    statements: the workers send their distinct profiles with multiplicities; the driver runs
    the single machine's check (:func:`anonlab.models.ck_safety.ck_safety`) on a release of one
    group per profile instance (each profile repeated at most ``k + 2`` times), which gives each
    profile's maximum disclosure with the target in a group of that profile; the workers then
    map their groups to those values (violations, worst group). Equal to the single machine's
    verdict, value, per-group violations and worst group (tested). The witness's statements
    name the stand-in groups, so they are not listed; its target group is the lowest published
    id with the witness's profile, and its value that group's most frequent value."""
    from anonlab.models.ck_safety import ck_safety
    from anonlab.release import Release

    answers = client.gather(client.map(_profiles, statistics, pure=False))
    if on_gather is not None:
        on_gather("count profiles", answers)
    profiles, inverse = np.unique(np.vstack([a[0] for a in answers]), axis=0, return_inverse=True)
    counts = np.bincount(inverse.ravel(), weights=np.concatenate([a[1] for a in answers]))
    k = int(parameters["k"])
    copies = np.minimum(counts.astype(np.int64), k + 2)
    rows = np.repeat(profiles, copies, axis=0)
    table = table_without_records(template, int(rows.sum()))
    stand_in = Release._from_statistics(table, len(rows), rows.sum(axis=1), lambda: rows, scheme)
    result = ck_safety(stand_in, c=parameters["c"], k=k)
    first = np.concatenate([[0], np.cumsum(copies)[:-1]])
    values = result.per_group[first]  # each profile's maximum disclosure, target in it
    witness = int(np.searchsorted(first, result.details["target_group"], side="right") - 1)
    per_part = client.gather(
        client.map(
            _ck_part,
            statistics,
            [profiles] * len(statistics),
            [values] * len(statistics),
            [float(parameters["c"])] * len(statistics),
            [witness] * len(statistics),
            [dict(result.parameters)] * len(statistics),
            pure=False,
        )  # fmt: skip
    )
    [reduced] = _reduce([[a] for a in per_part])
    targets = [a["target"] for a in per_part if a["target"][0] is not None]
    group, code = min(targets)
    reduced.details = {
        "max_disclosure": float(result.details["max_disclosure"]),
        "target_group": group,
        "target_record": None,
        "target_value": str(template.values[template.require_sensitive()][code]),
        "knowledge": [],
        "knowledge_note": "checked from the parts' count profiles: the statements are not "
        "listed (check the release on one machine for them)",
    }
    return reduced
