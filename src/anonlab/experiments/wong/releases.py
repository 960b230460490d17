"""Wong et al. (TKDD 2011), §5: the releases attacked — Anatomy, MASK, Injector (grouped on the
merged low-education label, publishing the original values) and t-closeness."""

from __future__ import annotations

import numpy as np

from anonlab.anonymize import anatomy, injector, lattice, mask
from anonlab.errors import AnonlabError
from anonlab.experiments.wong.data import ALGORITHMS, MERGED, READINGS, SENSITIVE
from anonlab.release import Release
from anonlab.table import Table


def anatomy_release(
    table: Table, merged: Table, l: int, *, reading: str = "set-only", seed: int = 0
) -> Release:
    """Anatomy grouped on the merged labels, publishing the original Education values."""
    if reading not in READINGS:
        raise ValueError(f"reading must be one of {READINGS}, got {reading!r}")
    values = [MERGED] if reading == "set-only" else None
    grouped = anatomy(merged, l, sensitive_values=values, seed=seed)
    manifest = dict(grouped.manifest)
    manifest = {
        "algorithm": "anatomy",
        "parameters": {"l": l, "reading": reading, "grouped_on": "merged low-education label"},
        "seed": seed,
        "residue_records": manifest.get("residue_records"),
    }
    return Release(table, grouped.group, "bucketization", manifest)


def mask_release(table: Table, merged: Table, r: int, *, seed: int = 0) -> Release:
    """MASK with ``k = m = r`` on the merged labels; the original values are published except
    where MASK perturbed a record (its new, non-sensitive label, mapped to the original domain)."""
    rel = mask(merged, r, r, sensitive_values=[MERGED], seed=seed)
    pub_m = np.asarray(rel.published_sensitive if rel.published_sensitive is not None else [])
    orig_codes = table.codes[SENSITIVE]
    if not len(pub_m):
        published = None
    else:
        changed = pub_m != merged.codes[SENSITIVE]
        labels = merged.values[SENSITIVE][pub_m[changed]]
        domain = {str(v): i for i, v in enumerate(table.values[SENSITIVE])}
        published = orig_codes.copy()
        published[changed] = [domain[str(v)] for v in labels]
    manifest = {
        "algorithm": "mask",
        "parameters": {"k": r, "m": r, "grouped_on": "merged low-education label"},
        "seed": seed,
    }
    return Release(table, rel.group, rel.scheme, manifest, published_sensitive=published)


def injector_release(
    table: Table, merged: Table, l: int, *, suppress: bool = False, seed: int = 0
) -> Release:
    """Injector (``minConf = 1``, ``minExp = 0.9``, ℓ = r; rules mined from the merged table
    as Injector does) grouped on the merged labels, publishing the original Education values.

    With ``suppress=True`` the records Injector withholds are left out of the published table
    too (``table.dropped["suppressed_records"]``; the original table's Education counts are kept
    as ``reference_counts``). Raises :class:`~anonlab.errors.IneligibleError` where Injector
    does (``suppress=False`` and records no bucketization protects).
    """
    grouped = injector(merged, l, min_expectation=0.9, suppress=suppress, seed=seed)
    m = grouped.manifest
    keep = np.asarray(grouped.table.row_id)  # positions in ``merged`` = positions in ``table``
    suppressed = int(m.get("suppressed_records", 0))
    manifest = {
        "algorithm": "injector",
        "parameters": {
            "l": l,
            "min_expectation": 0.9,
            "max_conditions": m["parameters"].get("max_conditions"),
            "suppress": bool(suppress),
            "grouped_on": "merged low-education label",
        },
        "seed": seed,
        "n_rules": m.get("n_rules"),
        "suppressed_records": suppressed,
    }
    if suppressed:
        published = table.take(keep)
        published.dropped = dict(table.dropped, suppressed_records=suppressed)
        reference = np.bincount(table.codes[SENSITIVE], minlength=table.domain_size(SENSITIVE))
        return Release(
            published, grouped.group, "bucketization", manifest, reference_counts=reference
        )
    return Release(table, grouped.group, "bucketization", manifest)


def tcloseness_release(table: Table, t: float = 0.2) -> Release:
    """Full-domain t-closeness (equal ground distance) with the table's hierarchies."""
    return lattice(table, "t-closeness", t=t, distance="equal")


def release_for(alg: str, table: Table, merged: Table, r: int, seed: int) -> Release:
    """The release of one algorithm of :data:`ALGORITHMS` at privacy parameter ``r``."""
    if alg == "anatomy":
        return anatomy_release(table, merged, r, seed=seed)
    if alg == "mask":
        return mask_release(table, merged, r, seed=seed)
    if alg in ("injector", "injector-suppress"):
        return injector_release(table, merged, r, suppress=alg == "injector-suppress", seed=seed)
    if alg == "t-closeness":
        return tcloseness_release(table)
    raise AnonlabError(f"algorithm must be one of {ALGORITHMS}, got {alg!r}")
