"""Utility, risk, rule mining and the foreground attack of a release the workers wrote, by
map-reduce over its part files (issue 21, "the audit's measures run as map-reduce over the
written parts").

A release written by :func:`anonlab.distributed.worker_release.anonymize_on_workers` keeps, per
part, the publisher's records (``publisher/records/part-NNNNN.parquet``: input row, published
group id and every attribute's codes in the template's domains). Each worker reads its part's
file (checked against its size and SHA-256 in the sealed manifest where it is read,
:func:`~anonlab.distributed.written_release.verify_file`) into one block of the map-reduce
measures (:class:`~anonlab.distributed.mapreduce.Partition`, keyed by the published group ids,
which are global: each part's ids start at its offset). The blocks stay on the workers; every
measure of :mod:`anonlab.distributed.measures` then runs on them unchanged:

* :func:`utility_of_written_release`: what ``anonlab utility`` reports (the COUNT-query workload
  error, discernibility, average class size, NCP, prosecutor risk), as
  :func:`~anonlab.distributed.measures.default_measures_distributed`;
* :func:`rules_of_written_release`: negative (or association) rules mined from the records, as
  :func:`~anonlab.distributed.measures.mine_rules_distributed`;
* :func:`foreground_of_written_release`: the foreground-knowledge attack, as
  :func:`~anonlab.distributed.measures.foreground_attack_distributed`. Its result is per
  record, so for it the driver gathers each record's group id and input row (not its values);
* :func:`risk_of_written_release`: the re-identification measures without a population, from
  the published classes counted on the workers (per record too: :func:`record_groups`);
* :func:`rule_attack_of_written_release`: the negative-association-rule attack, part by part
  (groups never span parts), counts only.

The driver holds the release's **template** (schema and domains), its counts and the reduced
statistics (per group: size and published sensitive histogram; per group and quasi-identifier:
the smallest and largest code, for the generalization estimate), never the records. Its
:class:`~anonlab.release.Release` is a candidate known by those statistics
(``Release._from_statistics``) over a table that has the release's number of rows but no codes:
reading a column raises (:class:`~anonlab.distributed.written_release.RecordsOnWorkers`), so
that a measure that would read the records on the driver fails rather than runs on stand-ins.
Results equal the single machine's on the same groups (tested): the groups themselves are the
single machine's (:mod:`.worker_release`).

Choices where the issue is silent: the deFinetti statistics and the population-based measures
are not run here (the Gibbs sweeps run on one machine; a population is matched against the
classes' records); matching ℓ-diversity is not distributed
(:mod:`anonlab.distributed.measures`). A release written before the publisher's records held
their codes is refused, naming the fix.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from anonlab.distributed.written_release import no_histogram, table_without_records
from anonlab.errors import AnonlabError

if TYPE_CHECKING:  # pragma: no cover
    from anonlab.distributed.mapreduce import ScatteredPartitions
    from anonlab.release import Release
    from anonlab.table import Table

RECORDS = "publisher/records/"


@dataclass(eq=False)
class WrittenParts:
    """A written release opened for the map-reduce measures.

    Attributes
    ----------
    path : Path
    manifest : dict
        The sealed manifest (``publisher/manifest.json``).
    release : Release
        The driver's release: template, counts, group sizes and published sensitive histogram
        (module docstring); no records.
    partitions : ScatteredPartitions
        One block per part, read and kept on the workers.
    """

    path: Path
    manifest: dict
    release: Release
    partitions: ScatteredPartitions


# ------------------------------------------------------------------------------- worker side
def _read_part(root: str, rel: str, info: dict, template: Table, n_groups: int, start: int,
               index: int):  # fmt: skip
    """On a worker: one part's publisher records as a map-reduce block, after checking the file
    against the manifest."""
    import pyarrow.parquet as pq

    from anonlab.distributed.mapreduce import Partition
    from anonlab.distributed.worker_release import CODE_COLUMN, PUBLISHED_SENSITIVE_COLUMN
    from anonlab.distributed.written_release import verify_file
    from anonlab.table import Table

    verify_file(root, rel, info)
    frame = pq.read_table(Path(root) / rel)
    names = template.schema.names
    missing = [CODE_COLUMN + a for a in names if CODE_COLUMN + a not in frame.column_names]
    if missing:
        raise AnonlabError(
            f"{rel!r} holds no codes of {missing[0][len(CODE_COLUMN) :]!r}: the template's "
            "columns are not the release's (give the table it was made from, or none)"
        )
    if frame.num_rows != info["rows"]:
        raise AnonlabError(
            f"{rel!r} holds {frame.num_rows:,} records, its manifest {info['rows']:,}; the "
            "release is damaged"
        )
    codes = {a: frame.column(CODE_COLUMN + a).to_numpy() for a in names}
    for a in names:  # a sealed file cannot hold others; checked because codes index domains
        c = codes[a]
        if len(c) and (int(c.min()) < 0 or int(c.max()) >= len(template.values[a])):
            raise AnonlabError(
                f"{rel!r}: codes of {a!r} outside its domain; the release is damaged"
            )
    row_id = frame.column("row").to_numpy().astype(np.int64)
    table = Table(template.schema, codes, template.values, row_id=row_id, types=template.types)
    if PUBLISHED_SENSITIVE_COLUMN in frame.column_names:
        published = frame.column(PUBLISHED_SENSITIVE_COLUMN).to_numpy().astype(np.int32)
    else:
        published = table.codes[template.require_sensitive()]
    group = frame.column("group").to_numpy().astype(np.int64)
    return Partition(table, group, published, n_groups, start, index)


# ------------------------------------------------------------------------------- driver side
def _groups_and_rows(part, _: Any) -> dict:
    """A block's published group ids (narrowed) and input rows, in its order."""
    from anonlab.distributed.measures.keys import narrow

    return {"group": narrow(part.group), "row": part.table.row_id}


def open_written_parts(
    client: Any, path: str | Path, template: Table | None = None
) -> WrittenParts:
    """Open the release the workers wrote at ``path`` (seal and template checked,
    :func:`~anonlab.distributed.written_release.open_written`) and read its parts' publisher
    records on ``client``'s workers, one block per part, placed round robin (each part file is
    checked where it is read); count the group statistics by map-reduce. ``template``: the
    table the release was made from, to use instead of the folder's own."""
    from anonlab.distributed.mapreduce import (
        ScatteredPartitions,
        block_workers,
        place,
        placement,
    )
    from anonlab.distributed.measures import group_statistics_distributed
    from anonlab.distributed.written_release import open_written
    from anonlab.release import Release

    root = Path(path)
    manifest, kept = open_written(root)
    template = (kept if template is None else template).take(np.zeros(0, dtype=np.int64))
    template.require_sensitive()
    files = manifest["files"]
    rels = sorted(f for f in files if f.startswith(RECORDS))
    if not rels:
        raise AnonlabError(f"{str(root)!r}: the manifest lists no publisher records")
    old = [f for f in rels if "rows" not in files[f]]
    if old:
        raise AnonlabError(
            f"{old[0]!r}: the release was written before the publisher's records kept the "
            "records' codes; make it again (anonlab anonymize --on-workers) to measure it from "
            "its parts"
        )
    rows = [int(files[f]["rows"]) for f in rels]
    n_rows, n_groups = int(manifest["rows"]), int(manifest["groups"])
    if sum(rows) != n_rows:
        raise AnonlabError(
            f"{str(root)!r}: its parts hold {sum(rows):,} records, its manifest {n_rows:,}; the "
            "release is damaged"
        )
    starts = np.concatenate([[0], np.cumsum(rows)[:-1]]).astype(np.int64).tolist()
    workers = block_workers(client, len(rels))
    root_s = str(root)
    token = uuid.uuid4().hex  # fresh keys: no race with another job
    [template_future] = place(client, [template], "template")
    futures = [
        client.submit(
            _read_part,
            root_s,
            rel,
            files[rel],
            template_future,
            n_groups,
            starts[i],
            i,
            pure=False,
            retries=2,
            key=f"anonlab-written-part-{i}-{token}",
            **placement(workers, i),
        )  # fmt: skip
        for i, rel in enumerate(rels)
    ]
    parts = ScatteredPartitions(
        client=client,
        futures=futures,
        n_rows=n_rows,
        n_groups=n_groups,
        starts=tuple(starts),
        held=(template_future,),
        workers=workers,
    )
    table = table_without_records(template, n_rows)
    scheme = manifest["scheme"]
    bare = Release._from_statistics(table, n_groups, np.zeros(0), no_histogram, scheme)
    stats = group_statistics_distributed(bare, partitions=parts)
    release = Release._from_statistics(
        table, n_groups, stats.sizes, lambda: stats.histogram, scheme
    )
    release.manifest = {k: v for k, v in manifest.items() if k != "files"}
    return WrittenParts(root, manifest, release, parts)


def utility_of_written_release(
    client: Any,
    path: str | Path | WrittenParts,
    queries: int = 10_000,
    qd: int = 3,
    selectivity: float = 0.05,
    seed: int = 0,
) -> dict[str, Any]:
    """What ``anonlab utility`` reports, for the release the workers wrote at ``path`` (or
    opened by :func:`open_written_parts`), by map-reduce over its parts
    (:func:`~anonlab.distributed.measures.default_measures_distributed`: the same workload,
    drawn from ``seed``, and the same results as the single machine on the same groups)."""
    from anonlab.distributed.measures import GroupStatistics, default_measures_distributed

    parts = path if isinstance(path, WrittenParts) else open_written_parts(client, path)
    release = parts.release  # its group statistics were counted when the parts were opened
    statistics = GroupStatistics(release.group_sizes, release.sensitive_histogram)
    return default_measures_distributed(
        release, queries, qd, selectivity, seed, statistics=statistics, partitions=parts.partitions
    )


def rules_of_written_release(
    client: Any, path: str | Path | WrittenParts, kind: str = "negative", **options: Any
) -> Any:
    """Negative (``kind="negative"``) or association rules mined from the records of the
    release the workers wrote (:func:`~anonlab.distributed.measures.mine_rules_distributed`,
    with its ``options``): the rules an attacker's background knowledge is taken from in the
    negative-association-rule attack (Li and Li). Same rule set as the single machine."""
    from anonlab.distributed.measures import mine_rules_distributed

    parts = path if isinstance(path, WrittenParts) else open_written_parts(client, path)
    return mine_rules_distributed(parts.release.table, kind, partitions=parts.partitions, **options)


@dataclass(eq=False)
class RecordGroups:
    """The driver's view of a written release for the measures whose results are per record:
    each record's group and input row (12 bytes a record, gathered from the parts), never its
    values.

    Attributes
    ----------
    release : Release
        Over the parts' records in order (no codes on the driver; ``table.row_id``
        each record's input row), its groups numbered as :class:`~anonlab.release.Release`
        numbers them (in order of first appearance), with the group statistics counted.
    partitions : ScatteredPartitions
        The parts' blocks with the same group numbers (renumbered on the workers).
    """

    release: Release
    partitions: ScatteredPartitions


def record_groups(client: Any, path: str | Path | WrittenParts) -> RecordGroups:
    """Gather each record's group and input row of the release the workers wrote at ``path``
    (or opened by :func:`open_written_parts`), for the measures whose results are per record
    (:func:`foreground_of_written_release`, :func:`risk_of_written_release`: give them the
    result to gather once)."""
    from anonlab.distributed.mapreduce import derive_partitions, map_blocks
    from anonlab.distributed.measures.checks import GroupStatistics, release_with_statistics
    from anonlab.release import Release

    parts = path if isinstance(path, WrittenParts) else open_written_parts(client, path)
    blocks = map_blocks(_groups_and_rows, parts.partitions, None)
    group = np.concatenate([b["group"] for b in blocks]).astype(np.int64)
    row_id = np.concatenate([b["row"] for b in blocks])
    del blocks
    table = table_without_records(parts.release.table, len(group), row_id)
    release = Release(table, group, parts.release.scheme, dict(parts.release.manifest))
    if release.n_groups != parts.release.n_groups:
        raise AnonlabError(
            f"{str(parts.path)!r}: its parts hold {release.n_groups:,} groups, its manifest "
            f"{parts.release.n_groups:,}; the release is damaged"
        )
    # Release numbers the groups in order of first appearance: the blocks get the same ids
    renumber = np.empty(release.n_groups, dtype=np.int32)
    renumber[group] = release.group
    del group
    blocks = derive_partitions(_renumbered, parts.partitions, renumber)
    order = np.argsort(renumber)  # the driver's id -> the published one
    counted = parts.release
    stats = GroupStatistics(counted.group_sizes[order], counted.sensitive_histogram[order])
    return RecordGroups(release_with_statistics(release, stats), blocks)


def _records(client: Any, path: str | Path | WrittenParts | RecordGroups) -> RecordGroups:
    return path if isinstance(path, RecordGroups) else record_groups(client, path)


def foreground_of_written_release(
    client: Any,
    path: str | Path | WrittenParts | RecordGroups,
    sensitive_values: Any = None,
    **options: Any,
) -> tuple[Any, Release]:
    """The foreground-knowledge attack (Wong et al., Algorithm 1) on the release the workers
    wrote, by map-reduce over its parts
    (:func:`~anonlab.distributed.measures.foreground_attack_distributed`, with its
    ``options``): the passes over the records (the group statistics, the distinct rows of the
    searched attributes with each record's row) run on the workers.

    Its result is per record, so the driver holds what the single machine's result is indexed
    by (:func:`record_groups`). Returns ``(result, release)``: the
    :class:`~anonlab.attacks.foreground.ForegroundResult`, its per-record arrays in the order of
    the parts' records, and the driver's release whose ``table.row_id`` gives each of those
    records' input row. Equal to the single machine's attack on the same groups, record by
    record (tested)."""
    from anonlab.distributed.measures import foreground_attack_distributed

    records = _records(client, path)
    result = foreground_attack_distributed(
        records.release, sensitive_values, partitions=records.partitions, **options
    )
    return result, records.release


def risk_of_written_release(
    client: Any,
    path: str | Path | WrittenParts | RecordGroups,
    sampling_fraction: float | None = None,
    threshold: float = 0.2,
) -> tuple[dict[str, Any], Release]:
    """The re-identification measures ``anonlab utility`` reports without a population
    (``reidentification-risk``: prosecutor, journalist and marketer risk and sample uniques;
    ``population-uniqueness``, with ``sampling_fraction``) of the release the workers wrote.

    They read the release's *classes* (records with the same published quasi-identifiers,
    :mod:`anonlab.utility.published_classes`), which can span parts; counted on the workers:
    under bucketization the exact quasi-identifier rows, found by the same map-reduce as the
    foreground attack's (each block's distinct rows with each record's row, merged on the
    driver in code order, as ``np.unique`` orders them); under generalization each group's
    published values, reduced from per-group extremes
    (:func:`~anonlab.distributed.measures.published_generalization`), grouped on the driver.
    The per-record results are in the parts' order (the driver release's ``table.row_id``
    gives each record's input row). Equal to the single machine's on the same groups (tested).
    ``threshold``: a record is at risk above it. Returns ``(measures, release)``."""
    from anonlab.distributed.measures import published_generalization
    from anonlab.distributed.measures.foreground import row_index
    from anonlab.utility import measure
    from anonlab.utility.published_classes import (
        PublishedClasses,
        published_classes,
        set_published_classes,
    )

    records = _records(client, path)
    release = records.release
    if release.scheme == "generalization":
        release.__dict__["generalization"] = published_generalization(
            release, partitions=records.partitions
        )
        published_classes(release)  # from the groups' published values: no record read
    else:
        index = row_index(release, records.partitions, tuple(release.quasi_identifiers))
        record_class = np.asarray(index.record_row, dtype=np.int64)
        _, first = np.unique(record_class, return_index=True)
        set_published_classes(
            release,
            PublishedClasses(record_class, index.count, first.astype(np.int64), release.scheme),
        )
    measures = {
        "reidentification-risk": measure(release, "reidentification-risk", threshold=threshold),
        "population-uniqueness": measure(
            release, "population-uniqueness", sampling_fraction=sampling_fraction
        ),
    }
    return measures, release


def _renumbered(part, renumber: np.ndarray):
    """The block with its group ids mapped by ``renumber`` (published id -> the driver's)."""
    from dataclasses import replace

    return replace(part, group=renumber[part.group])


#: The negative-rule attack's counts, each a sum over the parts (groups never span parts).
RULE_ATTACK_COUNTS = (
    "records",
    "vulnerable_matching",
    "pinned_matching",
    "vulnerable_simple",
    "pinned_simple",
    "vulnerable_baseline",
    "pinned_baseline",
    "vulnerable_groups_matching",
    "inconsistent_groups",
    "excluded_pairs",
    "true_value_possible_matching",
    "disclosed_matching",
    "true_value_possible_simple",
    "disclosed_simple",
)


def _rule_attack_part(part, shared: tuple) -> dict:
    """On a worker: the negative-rule attack on one part (whole groups), its counts and the
    records' histogram of possible values per reading, scored against the part's records."""
    from anonlab.attacks.negative_rules import negative_rule_attack
    from anonlab.release import Release

    rules, l, scheme = shared
    sens = part.table.require_sensitive()
    perturbed = not np.array_equal(part.published_sensitive, part.table.codes[sens])
    release = Release(
        part.table, part.group, scheme, {"parameters": {"l": l}},
        published_sensitive=part.published_sensitive if perturbed else None,
    )  # fmt: skip
    result = negative_rule_attack(release, rules, l=l)
    out = {k: np.int64(v) for k, v in {**result.counts(), **result.score(release)}.items()
           if k in RULE_ATTACK_COUNTS}  # fmt: skip
    n_values = len(result.values)
    for reading in ("matching", "simple", "baseline"):
        out[f"hist:{reading}"] = np.bincount(result.n_possible(reading), minlength=n_values + 1)
    return out


def rule_attack_of_written_release(
    client: Any,
    path: str | Path | WrittenParts,
    rules: Any = None,
    *,
    l: int | None = None,
    min_expectation: float = 0.9,
    max_conditions: int = 1,
) -> dict[str, Any]:
    """The negative-association-rule attack (Li and Li, Injector;
    :func:`anonlab.attacks.negative_rules.negative_rule_attack`) on the release the workers
    wrote, part by part on the workers: a group never spans two parts, and the attack reads a
    record only with its group (the rules excluding values of its group, a one-to-one
    assignment per group), so each part is attacked where it lies and only counts travel.

    ``rules``: a :class:`~anonlab.mining.negative_rules.NegativeRuleSet` (the adversary's
    knowledge); default: mined from the release's own records on the workers
    (:func:`rules_of_written_release` with ``min_expectation`` and ``max_conditions``), what
    ``anonlab attack rules --data ORIGINAL`` mines from the original. ``l``: default the
    release's. Returns the single machine's summary (``to_json()`` without per-record data,
    with ``score``: whether each record's true value stays possible, and how many are
    disclosed), equal to it (tested), plus ``n_rules``.
    """
    from anonlab._validation import check_int
    from anonlab.distributed.mapreduce import map_reduce

    parts = path if isinstance(path, WrittenParts) else open_written_parts(client, path)
    if l is None:
        l = parts.manifest.get("parameters", {}).get("l")
        if l is None:
            raise AnonlabError("parameter 'l' is required: the release's manifest names no ℓ")
    l = check_int("l", l, minimum=1)
    if rules is None:
        rules = rules_of_written_release(
            client, parts, min_expectation=min_expectation, max_conditions=max_conditions
        )
    how = {k: "sum" for k in RULE_ATTACK_COUNTS}
    how.update({f"hist:{r}": "sum" for r in ("matching", "simple", "baseline")})
    out = map_reduce(_rule_attack_part, parts.partitions, (rules, l, parts.release.scheme), how)
    summary: dict[str, Any] = {"attack": "negative-rules", "l": l}
    summary.update({k: int(out[k]) for k in RULE_ATTACK_COUNTS})
    summary["records_by_possible_values"] = {
        r: out[f"hist:{r}"].astype(np.int64).tolist() for r in ("matching", "simple", "baseline")
    }
    summary["n_rules"] = len(rules) if hasattr(rules, "__len__") else None
    return summary
