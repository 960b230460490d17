"""How much work an audit may do: one frozen options object for the audit, compare and the CLI.

The audit's stages each take a budget (the deFinetti attack's targets, chains and sweeps; the
worst case's largest k; the workload's queries; the negative rules' minExp; the foreground
attack's largest attribute set). :class:`AuditBudget` holds them with their defaults in one
place, validates them once, and is what :func:`anonlab.report.audit.audit`,
:func:`anonlab.report.compare.compare`, ``anonlab audit`` and ``anonlab compare`` take (issue
18, item 3: the four signatures listed them separately, and the foreground attack's default
was 1 in the audit and 2 in compare; it is 1 everywhere now, which keeps an audit of
Adult-sized data within about a minute on two cores).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from anonlab._validation import check_float, check_int
from anonlab.errors import AnonlabError


@dataclass(frozen=True)
class AuditBudget:
    """The audit's budget per stage (validated on construction).

    Attributes
    ----------
    targets, chains, sweeps : int
        The deFinetti attack: random targets, Gibbs chains, sweeps per chain (at least 2).
    k_max : int
        Largest number of basic implications of the worst-case curve.
    worst_case_k : int
        The worst case's verdict: records whose group's maximum disclosure after this many basic
        implications exceeds the promise are at risk (0..``k_max``).
    queries : int
        COUNT queries in the workload.
    min_expectation : float
        minExp, in (0, 1), of the negative rules mined from the original table.
    foreground_attributes : int or None
        Largest attribute set the foreground attack mines (None: all, the paper's setting).
    """

    targets: int = 1000
    chains: int = 4
    sweeps: int = 100
    k_max: int = 6
    worst_case_k: int = 1
    queries: int = 10_000
    min_expectation: float = 0.9
    foreground_attributes: int | None = 1

    def __post_init__(self) -> None:
        check_int("targets", self.targets, minimum=1)
        check_int("chains", self.chains, minimum=1)
        check_int("sweeps", self.sweeps, minimum=2)
        check_int("k_max", self.k_max, minimum=1)
        check_int("worst_case_k", self.worst_case_k, minimum=0)
        check_int("queries", self.queries, minimum=1)
        check_float("min_expectation", self.min_expectation)
        if not 0 < self.min_expectation < 1:
            raise AnonlabError(
                f"parameter 'min_expectation' must be in (0, 1), got {self.min_expectation}"
            )
        if self.foreground_attributes is not None:
            check_int("foreground_attributes", self.foreground_attributes, minimum=1)
        if self.worst_case_k > self.k_max:
            raise AnonlabError(
                f"parameter 'worst_case_k' = {self.worst_case_k} exceeds k_max = {self.k_max}; "
                "the verdict's k must lie on the curve 0..k_max"
            )

    @classmethod
    def of(cls, budget: AuditBudget | None, **overrides: object) -> AuditBudget:
        """``budget`` (default: the defaults) with ``overrides`` (field names) applied; an
        unknown name is an error naming the fields."""
        names = {f.name for f in fields(cls)}
        unknown = sorted(k for k in overrides if k not in names)
        if unknown:
            raise AnonlabError(
                f"unknown audit budget parameter(s) {unknown}; the budget has {sorted(names)}"
            )
        if budget is not None and not isinstance(budget, AuditBudget):
            raise AnonlabError(
                f"parameter 'budget' must be an AuditBudget, got {type(budget).__name__}"
            )
        base = asdict(budget) if budget is not None else {}
        base.update(overrides)
        return cls(**base)

    def to_dict(self) -> dict[str, object]:
        """The fields by name (an audit's ``settings`` hold them)."""
        return asdict(self)

    def sizes(self) -> dict[str, int]:
        """The count-like fields, as :func:`anonlab.resources.check_audit_sizes` takes them."""
        return {
            "targets": self.targets,
            "chains": self.chains,
            "sweeps": self.sweeps,
            "k_max": self.k_max,
            "queries": self.queries,
        }
