"""The workload error: the mean relative error ``|act - est| / act`` of a release's answers
(:class:`WorkloadError`, :func:`workload_error`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.utility.workload.answers import (
    actual_counts,
    estimated_counts,
)
from anonlab.utility.workload.generation import (
    Workload,
    generate_workload,
)


@dataclass(frozen=True)
class WorkloadError:
    """Relative error of a release on a COUNT-query workload.

    Attributes
    ----------
    mean_relative_error : float
        Mean of ``|act - est| / act`` over the queries with ``act > 0`` (the papers' measure).
    median_relative_error : float
    n_queries : int
        Queries the error is averaged over.
    n_excluded : int
        Queries left out because their actual answer is 0 (always 0 for a generated workload
        evaluated on the table it was generated from).
    n_redrawn : int
        Queries redrawn during generation because their actual answer was 0.
    scheme : str
    settings : dict
        The workload's settings (``n_queries``, ``qd``, ``selectivity``, ``seed``,
        ``predicate_sizes``, ...).
    seed : int or None
    actual, estimated, relative_error : ndarray of shape (n_queries_in_workload,)
        Per query; ``relative_error`` is NaN where ``actual`` is 0.
    """

    mean_relative_error: float
    median_relative_error: float
    n_queries: int
    n_excluded: int
    n_redrawn: int
    scheme: str
    settings: dict
    seed: int | None
    actual: np.ndarray = field(repr=False)
    estimated: np.ndarray = field(repr=False)
    relative_error: np.ndarray = field(repr=False)

    @property
    def value(self) -> float:
        """The headline number: :attr:`mean_relative_error`."""
        return self.mean_relative_error

    def to_json(self) -> dict:
        return {
            "measure": "workload-error",
            "mean_relative_error": self.mean_relative_error,
            "median_relative_error": self.median_relative_error,
            "n_queries": self.n_queries,
            "n_excluded": self.n_excluded,
            "n_redrawn": self.n_redrawn,
            "scheme": self.scheme,
            "seed": self.seed,
            "settings": dict(self.settings),
        }


def workload_error(
    release: Release,
    workload: Workload | None = None,
    *,
    n_queries: int = 10_000,
    qd: int = 3,
    selectivity: float = 0.05,
    seed: int = 0,
) -> WorkloadError:
    """Average relative error of COUNT queries answered from a release.

    Parameters
    ----------
    release : Release
    workload : Workload, optional
        Queries to answer; give the same workload to compare releases of one table. Default: one
        drawn by :func:`generate_workload` with the parameters below.
    n_queries, qd, selectivity, seed
        Passed to :func:`generate_workload` when ``workload`` is None (defaults: 10,000 queries,
        ``qd=3``, ``s=0.05``, seed 0, the settings of Jin et al., §8).

    Returns
    -------
    WorkloadError

    References
    ----------
    X. Xiao and Y. Tao. Anatomy: simple and effective privacy preservation. VLDB 2006, §6.
    T. Li and N. Li. Injector: mining background knowledge for data anonymization. ICDE 2008,
    §VI.D.
    """
    if not isinstance(release, Release):
        raise AnonlabError(f"expected a Release, got {type(release).__name__}")
    if workload is None:
        workload = generate_workload(release.table, n_queries, qd, selectivity, seed)
        act = workload.actual
    else:
        act = actual_counts(release.table, workload)
    return workload_error_from_counts(release, workload, act, estimated_counts(release, workload))


def workload_error_from_counts(
    release: Release, workload: Workload, act: np.ndarray, est: np.ndarray
) -> WorkloadError:
    """The :class:`WorkloadError` of actual answers ``act`` and estimates ``est`` (also the
    finishing step of the Dask backend's map-reduce workload error)."""
    valid = act > 0
    rel = np.full(len(workload), np.nan)
    rel[valid] = np.abs(act[valid] - est[valid]) / act[valid]
    if not valid.any():
        raise AnonlabError("every query of the workload has an actual answer of 0 on this table")
    good = rel[valid]
    settings = workload.to_json()
    settings["perturbed_records"] = release.manifest.get("perturbed_records", 0)
    return WorkloadError(
        mean_relative_error=float(good.mean()),
        median_relative_error=float(np.median(good)),
        n_queries=int(valid.sum()),
        n_excluded=int((~valid).sum()),
        n_redrawn=workload.n_redrawn,
        scheme=release.scheme,
        settings=settings,
        seed=workload.seed,
        actual=act,
        estimated=est,
        relative_error=rel,
    )
