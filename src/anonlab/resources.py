"""Memory a job needs, estimated up front from its size, and the check that refuses a job that
would not fit (issue 10 §3: "out-of-memory risk is checked up front from the input size").

A job on ``n`` records of a table with ``a`` attributes (quasi-identifiers + sensitive +
insensitive) holds the table, ``n (4 a + 8)`` bytes (one int32 code per attribute and an int64
row id per record, see :class:`anonlab.table.Table`), and while it runs the algorithm adds its own
working arrays. The model here is linear in ``n``::

    added(n, a, algorithm) = n * (FIXED[algorithm] + 4 a) * SAFETY

``4 a`` is one int32 copy of the codes (the quasi-identifier matrix that Mondrian and Hilb stack,
the gathers that Anatomy makes); ``FIXED[algorithm]`` (the anonymizer's registry record,
:attr:`anonlab.anonymize.registry.Anonymizer.bytes_per_row`) is the rest per record (sort
permutations, group ids, per-record float work arrays), fitted from ``benchmarks/scaling.py``:
the peak RSS of a subprocess minus its RSS once the input was built, at the largest size
measured, divided by the number of records, less ``4 a`` (see :func:`fixed_bytes_per_row`).
``SAFETY`` covers what one measurement does not (allocator slack, other inputs).

Choices (no paper covers this):

* The check compares the *added* memory with what the system can still give,
  ``MemAvailable`` of ``/proc/meminfo`` (Linux; the kernel's estimate of memory available
  without swapping), read after the table is loaded, so the table itself is already accounted
  for. Where ``/proc/meminfo`` is missing, ``os.sysconf("SC_AVPHYS_PAGES")`` (free pages, an
  underestimate) is used; where neither exists, the check passes and says it could not check.
* An anonymizer with no measurement (MASK, the lattice search, generalize) uses the largest
  fitted anonymizer constant; this is a guess, not a measurement.
* Override: ``check_memory(..., override=True)`` (CLI ``--no-memory-check``) reports the
  estimate and does not refuse.

Count-like parameters (issue 16 §3: "check every such parameter against what the machine can do
before allocating"): :func:`check_fits` refuses a count whose memory, from a model that is
monotone in the count, exceeds what is available, naming the parameter and the largest value
that fits. The models (:func:`workload_bytes`, :func:`definetti_bytes`, :func:`worst_case_bytes`,
:func:`k_range_bytes`, :func:`resample_bytes`) count the arrays the code allocates, times
:data:`SAFETY`; they are upper bounds, not measurements. :func:`check_workers` bounds ``--workers``
by the CPUs this process may use. :func:`check_audit_sizes` is the bundle the audit, ``compare``
and ``demo`` commands call.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from anonlab._validation import check_int
from anonlab.errors import AnonlabError

# Bytes per record an anonymizer adds beyond the input table and one int32 copy of its codes
# are a fact of its registry record (``Anonymizer.bytes_per_row`` in
# anonlab/anonymize/registry.py, read by :func:`fixed_bytes_per_row`), fitted from
# ``python benchmarks/scaling.py`` at 10,000,000 records of census-kdd-workers resampled
# (8 attributes; measured under load, see docs/benchmarks.md "Scale"):
# ``(peak RSS - RSS after the input was built) / n - 4 * 8``, rounded up. Anatomy's release
# at 10M added 104 B/record (72), Mondrian's (k = 10 and ℓ = 3) 44 (12), Hilb's 92 (60). An
# anonymizer that runs a variant of a measured one says so (``Anonymizer.memory_as``:
# Mondrian+ and Mondrian++ follow Mondrian, Hilb+ and Hilb++ Hilb, Injector Anatomy).

#: The same for the attacks, beyond the input table *and the release* they attack: the
#: negative-rule attack (mining + attack, 10M records: 196 B/record) and the foreground attack
#: (10M records: 136 B/record: the per-target layout of the groups, the distinct-row index and
#: the per-record results ``p*``, best set and target, baseline; the result keeps one shared
#: row index, not one per attribute set).
ATTACK_BYTES_PER_ROW: dict[str, int] = {
    "negative-rules": 164,
    "foreground": 104,
}
#: Factor on the estimate for what one measurement does not cover.
SAFETY = 1.25
#: Bytes per record per attribute of the table (int32 code) and per record (int64 row id).
CODE_BYTES = 4
ROW_ID_BYTES = 8


@dataclass(frozen=True)
class MemoryEstimate:
    """An estimate of the memory a job adds, and the memory available when it was made.

    Attributes
    ----------
    rows, attributes : int
    algorithm : str
    table_bytes : int
        The input table (already loaded when the check runs).
    added_bytes : int
        What the job adds beyond the table (the estimate compared with ``available_bytes``).
    available_bytes : int or None
        ``MemAvailable`` (or free pages); None if it could not be read.
    source : str
        Where ``available_bytes`` came from.
    fits : bool
        ``added_bytes <= available_bytes`` (True when unknown).
    """

    rows: int
    attributes: int
    algorithm: str
    table_bytes: int
    added_bytes: int
    available_bytes: int | None
    source: str
    fits: bool

    def to_json(self) -> dict:
        return dict(self.__dict__)


def table_bytes(n_rows: int, n_attributes: int) -> int:
    """Bytes of an integer-coded table: ``n (4 a + 8)``."""
    return int(n_rows) * (CODE_BYTES * int(n_attributes) + ROW_ID_BYTES)


def fixed_bytes_per_row(algorithm: str) -> int:
    """The fitted constant of ``algorithm`` (an attack's, an anonymizer's, or for an
    unmeasured anonymizer the largest anonymizer constant).

    An anonymizer's constant is a fact of its registry record; the registry (layer 4) is read
    here when the function is called, not imported with this module (layer 2)."""
    if algorithm in ATTACK_BYTES_PER_ROW:
        return ATTACK_BYTES_PER_ROW[algorithm]
    from anonlab.anonymize.registry import largest_bytes_per_row, measured_bytes_per_row

    measured = measured_bytes_per_row(algorithm)
    return largest_bytes_per_row() if measured is None else measured


def estimate_added_bytes(n_rows: int, n_attributes: int, algorithm: str) -> int:
    """Memory ``algorithm`` adds beyond the input table on ``n_rows`` x ``n_attributes``."""
    n_rows = check_int("n_rows", n_rows, minimum=0)
    n_attributes = check_int("n_attributes", n_attributes, minimum=1)
    per_row = fixed_bytes_per_row(algorithm) + CODE_BYTES * n_attributes
    return int(n_rows * per_row * SAFETY)


def available_memory(meminfo: str = "/proc/meminfo") -> tuple[int | None, str]:
    """(bytes available, where the number came from); (None, reason) if it cannot be read."""
    try:
        with open(meminfo, encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    parts = line.split()
                    scale = {"kB": 1024, "mB": 2**20, "gB": 2**30}.get(parts[2], 1)
                    return int(parts[1]) * scale, "MemAvailable in /proc/meminfo"
    except (OSError, ValueError, IndexError):
        pass
    try:
        pages = os.sysconf("SC_AVPHYS_PAGES")
        size = os.sysconf("SC_PAGE_SIZE")
        if pages > 0 and size > 0:
            return int(pages) * int(size), "free pages (sysconf SC_AVPHYS_PAGES)"
    except (OSError, ValueError, AttributeError):
        pass
    return None, "unknown (no /proc/meminfo, no sysconf)"


def _gb(n: int) -> str:
    return f"{n / 2**30:.2f} GB"


def check_memory(
    n_rows: int,
    n_attributes: int,
    algorithm: str,
    *,
    available: int | None = None,
    override: bool = False,
) -> MemoryEstimate:
    """Refuse, before it starts, a job whose estimated memory exceeds what is available.

    Parameters
    ----------
    n_rows, n_attributes : int
        Size of the (loaded) input table.
    algorithm : str
        An anonymizer name (``anonlab.anonymize.ALGORITHMS``) or ``"foreground"`` /
        ``"negative-rules"``.
    available : int, optional
        Bytes available; default :func:`available_memory` (given explicitly in tests).
    override : bool
        Do not refuse; the estimate is still returned.

    Returns
    -------
    MemoryEstimate

    Raises
    ------
    AnonlabError
        If the estimate exceeds the available memory and ``override`` is False; the message
        gives the rows, the estimate, the memory available and what to do instead.
    """
    added = estimate_added_bytes(n_rows, n_attributes, algorithm)
    if available is None:
        available, source = available_memory()
    else:
        available = check_int("available", available, minimum=0)
        source = "given"
    fits = available is None or added <= available
    estimate = MemoryEstimate(
        rows=int(n_rows),
        attributes=int(n_attributes),
        algorithm=algorithm,
        table_bytes=table_bytes(n_rows, n_attributes),
        added_bytes=added,
        available_bytes=available,
        source=source,
        fits=fits,
    )
    if not fits and not override:
        raise AnonlabError(
            f"not enough memory for {algorithm} on {int(n_rows):,} records x "
            f"{int(n_attributes)} attributes: it needs about {_gb(added)} more "
            f"(estimate from benchmarks/scaling.py, table of {_gb(estimate.table_bytes)} "
            f"already loaded) but only {_gb(available)} is available ({source}). Run it on "
            "Dask (--workers N or --cluster ADDRESS), take a smaller --resample N, or skip this "
            "check with --no-memory-check"
        )
    return estimate


# ------------------------------------------------------------------ count-like parameters
def human_bytes(n: int | float) -> str:
    """``123456789`` -> ``"118 MB"`` (powers of 1024, three significant digits)."""
    value = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if abs(value) < 1024 or unit == "PB":
            break
        value /= 1024
    if unit == "PB" and value >= 1e4:
        return f"{value:.3g} PB"
    return f"{value:.3g} {unit}" if unit != "B" else f"{int(value)} B"


def largest_fitting(need: Callable[[int], int], limit: int, budget: int, minimum: int = 0) -> int:
    """The largest ``v`` in ``[minimum, limit]`` with ``need(v) <= budget`` (``need`` is
    non-decreasing), or ``minimum - 1`` if even ``minimum`` does not fit. Bisection: no
    allocation, any size of ``limit``."""
    if need(minimum) > budget:
        return minimum - 1
    lo, hi = minimum, int(limit)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if need(mid) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return lo


def check_fits(
    parameter: str,
    value: int,
    need: Callable[[int], int],
    *,
    minimum: int = 1,
    what: str = "",
    available: int | None = None,
    override: bool = False,
) -> int:
    """Refuse ``value`` of a count-like parameter when ``need(value)`` bytes exceed the memory
    available, before anything is allocated.

    Parameters
    ----------
    parameter : str
        How the user gave it, e.g. ``"--queries"``; the message names it.
    value : int
        The count asked for (any size: ``need`` is evaluated on Python ints).
    need : callable
        Bytes the job needs for a count; non-decreasing.
    minimum : int
        The smallest valid count (the message says when not even that fits).
    what : str
        What the count is of, for the message (e.g. ``" on 48,842 records"``).
    available : int, optional
        Bytes available; default :func:`available_memory`.
    override : bool
        Do not refuse.

    Returns
    -------
    int
        ``value``.

    Raises
    ------
    AnonlabError
        ``"--queries 1,000,000,000 needs ~120 GB; at most 40,000,000 fit in the 20 GB
        available (...)"``.
    """
    value = int(value)
    if available is None:
        available, source = available_memory()
    else:
        source = "given"
    if available is None or override:
        return value
    needed = need(value)
    if needed <= available:
        return value
    best = largest_fitting(need, value, available, minimum)
    room = f"{human_bytes(available)} available ({source})"
    if best < minimum:
        limit = f"not even {minimum:,} fits in the {room}"
    else:
        limit = f"at most {best:,} fit in the {room}"
    raise AnonlabError(f"{parameter} {value:,}{what} needs ~{human_bytes(needed)}; {limit}")


@dataclass(frozen=True)
class Shape:
    """The sizes the memory models need, read from a Release or (before anonymizing, as upper
    bounds) a Table: records, groups, sensitive values, QI domains."""

    rows: int
    groups: int
    values: int
    qi_domains: tuple[int, ...]
    qi_numeric: tuple[bool, ...]
    profiles: int

    @classmethod
    def of(cls, obj: Any, profiles: bool = False) -> Shape:
        """``Shape`` of a :class:`~anonlab.release.Release` or a :class:`~anonlab.table.Table`
        (a table's groups are bounded by its records).

        ``profiles``: count a release's distinct count profiles (what the worst-case program
        is sized by: groups alike up to the order of their values), from the checks' compact
        histogram a block of groups at a time; otherwise, and for a table, the bound is the
        number of groups (counting them costs a sort of the histogram, seconds at millions of
        groups, which the other models do not need)."""
        from anonlab.schema import Kind

        table = getattr(obj, "table", obj)
        groups = int(getattr(obj, "n_groups", table.n_rows))
        qis = tuple(table.quasi_identifiers)
        sens = table.sensitive
        n_profiles = max(groups, 1)
        if profiles and hasattr(obj, "table"):
            try:
                n_profiles = _count_profiles(obj)
            except (AnonlabError, ValueError, TypeError, AttributeError):
                pass  # no groups to count: the bound stays the number of groups
        return cls(
            rows=int(table.n_rows),
            groups=max(groups, 1),
            values=int(table.domain_size(sens)) if sens is not None else 1,
            qi_domains=tuple(int(table.domain_size(q)) for q in qis),
            qi_numeric=tuple(table.schema[q].kind is Kind.NUMERIC for q in qis),
            profiles=n_profiles,
        )


def _count_profiles(release: Any) -> int:
    """Distinct count profiles (each group's sensitive counts, sorted) of ``release``, a block
    of groups at a time over the checks' compact histogram
    (:func:`anonlab.models.result.sensitive_counts`, shared with them)."""
    import numpy as np

    from anonlab.grouping import row_blocks
    from anonlab.models.result import sensitive_counts

    counts = sensitive_counts(release)
    seen = [np.unique(np.sort(counts[b], axis=1), axis=0)
            for b in row_blocks(len(counts), counts.shape[1])]  # fmt: skip
    if not seen:
        return 1
    return max(1, len(np.unique(np.concatenate(seen), axis=0)))


def workload_bytes(shape: Shape, queries: int) -> int:
    """Memory of a COUNT-query workload of ``queries`` queries
    (:func:`anonlab.utility.workload.generate_workload` and its error): per query the drawn batch
    and its kept copy (a ``uses`` bool per QI, a bool per value of each categorical predicate,
    two int64 per numeric one, the answer), the transient keys of the widest attribute (8 bytes
    per value) and of the QI choice (16 per QI), and the answers and errors (48 bytes); plus
    64 MB for the chunked answer products. Measured on Adult (7 QIs): 622 bytes per query; the
    model says 955."""
    sens_values = shape.values
    kept = len(shape.qi_domains) + 8
    widest = sens_values
    for size, numeric in zip(shape.qi_domains, shape.qi_numeric, strict=True):
        kept += 16 if numeric else size
        widest = max(widest, 0 if numeric else size)
    kept += sens_values  # the sensitive predicate (categorical)
    per_query = 2 * kept + 8 * widest + 16 * len(shape.qi_domains) + 48
    return int(int(queries) * per_query * SAFETY) + 64 * 2**20


def definetti_bytes(shape: Shape, targets: int, chains: int, sweeps: int) -> int:
    """Memory of the deFinetti attack (:func:`anonlab.attacks.definetti.definetti_attack`):
    per chain its assignment (8 n), its posterior and the combined copy (24 R V for R targets),
    its trace (8 per sweep) and the sampler's counts and scratch (16 C V + 8 n, C cells = the QI
    values); plus the layout (8 n per QI and 48 n)."""
    n, v = shape.rows, shape.values
    r = min(int(targets), n)
    cells = sum(shape.qi_domains) or 1
    per_chain = 16 * n + 24 * r * v + 8 * int(sweeps) + 16 * cells * v
    fixed = 8 * n * (len(shape.qi_domains) + 6)
    return int((int(chains) * per_chain + fixed) * SAFETY)


def worst_case_bytes(shape: Shape, k_max: int, per_group: bool = True) -> int:
    """Memory of the worst-case dynamic program (:mod:`anonlab.attacks.worst_case`) to
    ``k_max`` implications. Per group (``per_group=True``, the audit's
    ``disclosure_by_group_curve``, not capped): MINIMIZE1's two ``(k + 2)^2`` tables per
    profile and the min-product convolutions, two ``(k + 1)^2`` arrays per knapsack item (each
    profile at most ``k + 1`` times, at most one per group); the result ``(k + 1)`` per group
    and four copies of the group histogram. The capped curve (``per_group=False``) stops where
    every bucket can be pinned, so only its length grows. Plus 1 MB for the Python objects of
    the program. Measured on Adult (Anatomy and Mondrian, ℓ = 4, k = 6..80): 0.3 to 0.7 of the
    model."""
    k = int(k_max)
    g, p = shape.groups, shape.profiles
    if not per_group:
        return int(16 * (k + 1) * SAFETY)
    items = min(g, p * (k + 1))
    arrays = 16 * items * (k + 1) ** 2 + 16 * p * (k + 2) ** 2 + 24 * g * (k + 1)
    arrays += 32 * g * shape.values  # the histogram, its order, sorted counts, profile keys
    return int(arrays * SAFETY) + 2**20  # + the interpreter's objects of the program


#: Bytes per value of k the ``attack worst-case`` command holds beside the curve: a point
#: (a dict of an int and a float), its JSON text and its highlighted rendering.
K_POINT_BYTES = 2048


def k_range_bytes(low: int, high: int) -> int:
    """Memory of the ``attack worst-case --k LOW..HIGH`` output: one point per k."""
    return int((int(high) - int(low) + 1) * K_POINT_BYTES * SAFETY)


def resample_bytes(n_rows: int, n_attributes: int, algorithm: str | None = None) -> int:
    """Memory of ``--resample N``: the drawn row indices (8 N), the new table and, when
    ``algorithm`` is given, what it adds (:func:`estimate_added_bytes`)."""
    n_rows = int(n_rows)
    need = ROW_ID_BYTES * n_rows + table_bytes(n_rows, n_attributes)
    if algorithm is not None:
        need += estimate_added_bytes(n_rows, n_attributes, algorithm)
    return need


def check_resample(
    resample: int,
    n_attributes: int,
    algorithm: str | None = None,
    *,
    available: int | None = None,
    override: bool = False,
) -> int:
    """Refuse ``--resample N`` before drawing when the resampled table (and ``algorithm``'s
    work on it) would not fit in memory."""
    return check_fits(
        "--resample",
        resample,
        lambda n: resample_bytes(n, n_attributes, algorithm),
        what=f" rows x {int(n_attributes)} attributes"
        + (f" with {algorithm}" if algorithm else ""),
        available=available,
        override=override,
    )


def check_queries(obj: Any, queries: int, *, parameter: str = "--queries",
                  available: int | None = None) -> int:  # fmt: skip
    """Refuse a COUNT-query workload of ``queries`` queries on ``obj`` (Release or Table) that
    would not fit in memory."""
    queries = check_int(parameter, queries, minimum=1)
    shape = Shape.of(obj)
    return check_fits(parameter, queries, lambda q: workload_bytes(shape, q), available=available)


def check_definetti(
    obj: Any,
    targets: int,
    chains: int,
    sweeps: int,
    *,
    names: tuple[str, str, str] = ("--targets", "--chains", "--sweeps"),
    available: int | None = None,
) -> None:
    """Refuse a deFinetti attack whose chains, sweeps or targets would not fit in memory; the
    message names the first of them (in the order chains, sweeps, targets) that does not fit
    with the others as given."""
    shape = Shape.of(obj)
    targets = min(check_int(names[0], targets, minimum=1), shape.rows)
    chains = check_int(names[1], chains, minimum=1)
    sweeps = check_int(names[2], sweeps, minimum=1)
    params = {names[0]: targets, names[1]: chains, names[2]: sweeps}

    def need(name: str) -> Callable[[int], int]:
        def bytes_for(x: int) -> int:
            values = dict(params, **{name: x})
            return definetti_bytes(shape, values[names[0]], values[names[1]], values[names[2]])

        return bytes_for

    budget = available if available is not None else available_memory()[0]
    if budget is None or definetti_bytes(shape, targets, chains, sweeps) <= budget:
        return
    # Blame the parameter that must shrink the most (value / largest that fits); one whose
    # minimum does not fit either only when none can be shrunk enough.
    ratios = {}
    for name in (names[1], names[2], names[0]):
        best = largest_fitting(need(name), params[name], budget, 1)
        ratios[name] = params[name] / best if best >= 1 else 0.0
    blamed = max(ratios, key=lambda n: ratios[n]) if max(ratios.values()) > 0 else names[1]
    check_fits(blamed, params[blamed], need(blamed), available=available)


def check_worst_case_k(
    obj: Any,
    k_max: int,
    *,
    parameter: str = "--k-max",
    per_group: bool = True,
    available: int | None = None,
) -> int:
    """Refuse a worst-case ``k_max`` whose dynamic program would not fit in memory (the
    audit's ``--k-max``: ``per_group=True``). ``obj`` is a Release or a Table."""
    k_max = check_int(parameter, k_max, minimum=0)
    shape = Shape.of(obj, profiles=per_group)
    return check_fits(
        parameter,
        k_max,
        lambda k: worst_case_bytes(shape, k, per_group),
        minimum=0,
        what=f" implications over {shape.groups:,} groups",
        available=available,
    )


def check_audit_sizes(
    obj: Any,
    *,
    targets: int,
    chains: int,
    sweeps: int,
    k_max: int,
    queries: int,
    available: int | None = None,
) -> None:
    """The audit's count-like parameters (``--targets``, ``--chains``, ``--sweeps``,
    ``--k-max``, ``--queries``) against the memory available, before any stage runs. ``obj`` is
    the release (``anonlab audit``) or the table (``compare``, ``demo``: bounds for any release
    of it). With several sensitive attributes the attacks run once per attribute, so each
    attribute's view (``obj.for_sensitive(name)``) is checked."""
    table = getattr(obj, "table", obj)
    names = table.sensitive_attributes
    for view in [obj.for_sensitive(a) for a in names] if len(names) > 1 else [obj]:
        check_definetti(view, targets, chains, sweeps, available=available)
        check_worst_case_k(view, k_max, available=available)
        check_queries(view, queries, available=available)


#: Memory a local Dask worker process needs before it holds any data (interpreter, numpy,
#: dask, distributed): a round upper bound.
WORKER_BYTES = 256 * 2**20


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity where the OS tells it, else the count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def check_workers(workers: int, *, parameter: str = "--workers",
                  available: int | None = None) -> int:  # fmt: skip
    """Refuse ``--workers N`` beyond the CPUs this machine gives the process (or beyond the
    worker processes its memory can start), before any process is started."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise AnonlabError(
            f"{parameter} must be a whole number of worker processes >= 1, got {workers!r}"
        )
    cpus = usable_cpus()
    source = "given"
    if available is None:
        available, source = available_memory()
    by_memory = None if available is None else max(1, available // WORKER_BYTES)
    largest = cpus if by_memory is None else min(cpus, by_memory)
    if workers > largest:
        memory = (
            ""
            if by_memory is None
            else f" and memory for about {by_memory:,} worker processes "
            f"({human_bytes(available)} available ({source}), ~{human_bytes(WORKER_BYTES)} each)"
        )
        raise AnonlabError(
            f"{parameter} {workers:,}: this machine has {cpus:,} CPU(s){memory}; use at most "
            f"{largest:,} local workers, or --cluster ADDRESS for a larger Dask cluster"
        )
    return workers


__all__ = [
    "MemoryEstimate",
    "Shape",
    "check_audit_sizes",
    "check_definetti",
    "check_fits",
    "check_queries",
    "check_resample",
    "check_worst_case_k",
    "check_workers",
    "definetti_bytes",
    "human_bytes",
    "k_range_bytes",
    "largest_fitting",
    "resample_bytes",
    "usable_cpus",
    "workload_bytes",
    "worst_case_bytes",
    "available_memory",
    "check_memory",
    "estimate_added_bytes",
    "fixed_bytes_per_row",
    "table_bytes",
]
