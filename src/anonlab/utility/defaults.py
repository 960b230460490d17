"""The utility and risk measures reported for every release (``anonlab utility``, demo, audit)."""

from __future__ import annotations

from typing import Any

from anonlab.release import Release


def default_measures(
    release: Release,
    queries: int = 10_000,
    qd: int = 3,
    selectivity: float = 0.05,
    seed: int = 0,
) -> dict[str, Any]:
    """COUNT-query workload error, discernibility, AECS, NCP, prosecutor risk; ARX's Loss for a
    full-domain release. Returns ``{name: result}``. A release without a sensitive attribute
    (plain k-anonymity) has no workload: the papers' queries all carry a sensitive predicate."""
    from anonlab.utility import measure

    res: dict[str, Any] = {}
    if release.table.sensitive is not None:
        res["workload-error"] = measure(
            release, "workload-error", n_queries=queries, qd=qd, selectivity=selectivity, seed=seed
        )
    for name in ("discernibility", "average-class-size", "ncp", "prosecutor-risk"):
        res[name] = measure(release, name)
    if release.levels is not None:  # a full-domain node: ARX's Loss applies
        res["arx-loss"] = measure(release, "arx-loss")
    return res
