"""Memory a job needs, estimated up front from its size, and the check that refuses a job that
would not fit (issue 10 §3: "out-of-memory risk is checked up front from the input size").

A job on ``n`` records of a table with ``a`` attributes (quasi-identifiers + sensitive +
insensitive) holds the table, ``n (4 a + 8)`` bytes (one int32 code per attribute and an int64
row id per record, see :class:`anonlab.table.Table`), and while it runs the algorithm adds its own
working arrays. The model here is linear in ``n``::

    added(n, a, algorithm) = n * (FIXED[algorithm] + 4 a) * SAFETY

``4 a`` is one int32 copy of the codes (the quasi-identifier matrix that Mondrian and Hilb stack,
the gathers that Anatomy makes); ``FIXED[algorithm]`` is the rest per record (sort permutations,
group ids, per-record float work arrays), fitted from ``benchmarks/scaling.py``: the peak RSS of a
subprocess minus its RSS once the input was built, at the largest size measured, divided by the
number of records, less ``4 a`` (see :data:`FIXED_BYTES_PER_ROW`). ``SAFETY`` covers what one
measurement does not (allocator slack, other inputs).

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
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from anonlab._validation import check_int
from anonlab.errors import AnonlabError

#: Bytes per record an anonymizer adds beyond the input table and one int32 copy of its codes,
#: fitted from ``python benchmarks/scaling.py`` at 10,000,000 records of census-kdd-workers
#: resampled (8 attributes; measured under load, see docs/benchmarks.md "Scale"):
#: ``(peak RSS - RSS after the input was built) / n - 4 * 8``, rounded up. Anatomy's release
#: at 10M added 104 B/record, Mondrian's (k = 10 and ℓ = 3) 44, Hilb's 92.
FIXED_BYTES_PER_ROW: dict[str, int] = {
    "anatomy": 72,
    "mondrian": 12,
    "hilb": 60,
}
#: The same for the attacks, beyond the input table *and the release* they attack: the
#: negative-rule attack (mining + attack, 10M records: 196 B/record) and the foreground attack
#: (10M records: 136 B/record: the per-target layout of the groups, the distinct-row index and
#: the per-record results ``p*``, best set and target, baseline; the result keeps one shared
#: row index, not one per attribute set).
ATTACK_BYTES_PER_ROW: dict[str, int] = {
    "negative-rules": 164,
    "foreground": 104,
}
#: Algorithms that run (a variant of) a measured one.
ALIASES: dict[str, str] = {
    "mondrian+": "mondrian",
    "mondrian++": "mondrian",
    "hilb+": "hilb",
    "hilb++": "hilb",
    "stratified-pickup": "anatomy",
    "injector": "anatomy",
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
    unmeasured anonymizer the largest anonymizer constant)."""
    name = ALIASES.get(algorithm, algorithm)
    if name in ATTACK_BYTES_PER_ROW:
        return ATTACK_BYTES_PER_ROW[name]
    return FIXED_BYTES_PER_ROW.get(name, max(FIXED_BYTES_PER_ROW.values()))


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


__all__ = [
    "MemoryEstimate",
    "available_memory",
    "check_memory",
    "estimate_added_bytes",
    "fixed_bytes_per_row",
    "table_bytes",
]
