"""Worst-case background knowledge: maximum disclosure of a bucketized release, as an attack.

Martin, Kifer, Machanavajjhala, Gehrke and Halpern, "Worst-Case Background Knowledge for
Privacy-Preserving Data Publishing" (ICDE 2007); reading notes in
``notes/martin-worst-case-background-knowledge.md``. The attacker knows who is in which bucket
and ``k`` pieces of background knowledge (basic implications, or negated atoms); every table
consistent with the release is equally likely. The computation (Lemma 12, MINIMIZE1 and
MINIMIZE2 with the fixes to the paper's pseudo-code, and the witness) is
:mod:`anonlab.disclosure`, shared with the (c,k)-safety check; this module is the attack's
public face.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from anonlab._validation import takes_release
from anonlab.attacks.common import at_risk_fields
from anonlab.attacks.contract import Attack, Inference, Knowledge, promise, register
from anonlab.disclosure import (
    LANGUAGES,
    DisclosureEngine,
    DisclosureResult,
    Number,
    Statement,
    check_disclosure_inputs,
)
from anonlab.finding import Finding
from anonlab.release import Release

__all__ = [
    "ATTACK",
    "LANGUAGES",
    "DisclosureResult",
    "Number",
    "Statement",
    "disclosure_by_group",
    "disclosure_by_group_curve",
    "disclosure_curve",
    "maximum_disclosure",
]


# ---------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------


@takes_release
def maximum_disclosure(
    release: Release,
    k: int,
    *,
    language: str = "implications",
    exact: bool = False,
) -> DisclosureResult:
    """Maximum disclosure of ``release`` against ``k`` pieces of background knowledge.

    Parameters
    ----------
    release : Release
        Any release; a generalized one is treated as bucketized, one bucket per group (the
        paper: "all our results hold for full-domain generalization as well").
    k : int
        Number of pieces of knowledge, ``k >= 0``.
    language : {"implications", "negations"}
        ``"implications"``: ``L^k_basic`` (Def. 4, 6), computed by Lemma 12, MINIMIZE1 and
        MINIMIZE2 with the fixes listed in the module docstring. ``"negations"``: ``k`` negated
        atoms (the ℓ-diversity attacker).
    exact : bool, default=False
        Compute with exact fractions (small releases) instead of floats.

    Returns
    -------
    DisclosureResult
        The value and a witness: target record and value and the statements achieving it.

    Examples
    --------
    >>> import pandas as pd
    >>> from anonlab import Release, Table
    >>> df = pd.DataFrame({"q": range(5), "s": ["a", "a", "b", "b", "c"]})
    >>> t = Table.from_frame(df, quasi_identifiers=["q"], sensitive="s")
    >>> r = maximum_disclosure(Release(t, [0] * 5, "bucketization"), 1, exact=True)
    >>> r.value, r.sentences[0]
    (Fraction(2, 3), "record 0 (group 0) does not have s = 'b' (if it has 'b' then it has 'a')")
    """
    release, k, language, exact = check_disclosure_inputs(release, k, language, exact)
    core = DisclosureEngine(release, k, language, exact)
    return core.witness(k)


@takes_release
def disclosure_curve(
    release: Release,
    k_max: int,
    *,
    language: str = "implications",
    exact: bool = False,
) -> np.ndarray | list[Fraction]:
    """Maximum disclosure for ``k = 0, 1, ..., k_max`` (the paper's Figure 5, as data).

    One run of the dynamic program gives every ``k`` (see :func:`maximum_disclosure`).

    Returns
    -------
    ndarray of shape (k_max + 1,), float64, or, with ``exact=True``, a list of Fractions.
    """
    release, k_max, language, exact = check_disclosure_inputs(
        release, k_max, language, exact, name="k_max"
    )
    return DisclosureEngine(release, k_max, language, exact).curve(k_max)


@takes_release
def disclosure_by_group(
    release: Release,
    k: int,
    *,
    language: str = "implications",
    exact: bool = False,
) -> np.ndarray | list[Fraction]:
    """Per group, the maximum disclosure when the *target* is in that group.

    The ``k`` statements may mention people of any group (for implications, the antecedents
    may be spent in other buckets); the maximum over groups is :func:`maximum_disclosure`.

    Returns
    -------
    ndarray of shape (n_groups,), float64, or, with ``exact=True``, a list of Fractions.
    """
    release, k, language, exact = check_disclosure_inputs(release, k, language, exact)
    # No cap: a group keeps its own value below 1 past the k at which the *maximum* reaches 1
    return DisclosureEngine(release, k, language, exact, cap=False).by_group(k)


@takes_release
def disclosure_by_group_curve(
    release: Release,
    k_max: int,
    *,
    language: str = "implications",
    exact: bool = False,
) -> np.ndarray | list[list[Fraction]]:
    """:func:`disclosure_by_group` for every ``k = 0..k_max`` from one dynamic program.

    Returns
    -------
    ndarray of shape (k_max + 1, n_groups), float64, or, with ``exact=True``, a list of
    ``k_max + 1`` lists of Fractions.
    """
    release, k_max, language, exact = check_disclosure_inputs(
        release, k_max, language, exact, name="k_max"
    )
    return DisclosureEngine(release, k_max, language, exact, cap=False).by_group_curve()


# ---------------------------------------------------------------------------------------------
# The registry's record
# ---------------------------------------------------------------------------------------------


def _know(release: Release, options: Mapping[str, Any]) -> Knowledge:
    k = int(options.get("worst_case_k", 1))
    return Knowledge(
        {"k": k, "k_max": int(options.get("k_max", 5))},
        f"every record's group and {k} basic implication(s) about anyone's sensitive values "
        "(the worst such knowledge)",
    )


def _infer(view: Release, knowledge: Knowledge, options: Mapping[str, Any]) -> Inference:
    """Per record, its group's maximum disclosure at every k to ``k_max`` (both languages),
    from the published groups only; the inferred value is the group's most frequent published
    value (the value the implications expose first), its probability the disclosure at the
    verdict's k, the baseline the disclosure with no knowledge (k = 0)."""
    k_max, k = knowledge["k_max"], knowledge["k"]
    curve = {lang: disclosure_curve(view, k_max, language=lang) for lang in LANGUAGES}
    per_group = disclosure_by_group_curve(view, k_max)  # (k_max + 1, groups)
    hist = np.asarray(view.sensitive_histogram)
    values = tuple(str(v) for v in view.table.values[view.sensitive])
    n = view.table.n_rows
    inferred = np.zeros((n, len(values)), dtype=bool)
    inferred[np.arange(n), hist.argmax(axis=1)[view.group]] = True
    witness = maximum_disclosure(view, k)
    return Inference(
        attack="worst-case",
        values=values,
        records=np.arange(n),
        inferred=inferred,
        probability=per_group[k][view.group],
        baseline=per_group[0][view.group],
        summary={
            "curve_implications": curve["implications"],
            "curve_negations": curve["negations"],
        },  # fmt: skip
        settings={"k_max": k_max, "worst_case_k": k},
        detail={"curve": curve, "per_group": per_group, "witness": witness},
    )


def _judge(
    release: Release, knowledge: Knowledge, inference: Inference, options: Mapping[str, Any]
) -> Finding:
    """Martin et al.'s worst case, judged at a small budget of background knowledge.

    Martin, Kifer, Machanavajjhala, Gehrke and Halpern (ICDE 2007) define (c,k)-safety
    (Definition 13): maximum disclosure under ``k`` basic implications below a threshold ``c``;
    the paper leaves ``c`` and ``k`` to the publisher. The verdict takes ``c`` = the release's
    promise (:func:`~anonlab.attacks.contract.promise`, e.g. ``1/ℓ``) and ``k`` =
    ``worst_case_k`` (default 1: one basic implication, e.g. "if Bob has flu then Ann has
    flu"): a record is *at risk* when the maximum disclosure with the target in its group
    (:func:`disclosure_by_group_curve`; the implications may speak of anyone) exceeds the
    promise after ``worst_case_k`` implications.

    Judging at ``k = k_max`` instead flags almost every record of any ℓ-diverse release: a group
    with ``d`` distinct values is pinned by ``d - 1`` implications, so with ``k_max >= ℓ - 1``
    every group with exactly ℓ values reaches disclosure 1, and the count says nothing about one
    release against another. At ``k = 1`` a group whose most frequent value already sits at the
    promise is still exceeded (any one fact raises it), while a group with slack below the
    promise passes. The whole curve ``k = 0..k_max`` (both languages) is still shown, with, per
    record, the smallest ``k`` at which its group exceeds the promise and the smallest at which
    its value becomes certain. Without ℓ or m the threshold is the group's random-worlds maximum
    (its disclosure at k = 0): disclosure speaks of the group's most exposed value, not of the
    record's own.
    """
    k_max, k_verdict = knowledge["k_max"], knowledge["k"]
    curve = inference.detail["curve"]
    per_group_by_k = inference.detail["per_group"]
    witness = inference.detail["witness"]
    bound, words = promise(release)
    # Disclosure is about the group's most exposed value, not the record's own: compare it with
    # the group's largest promise (the same 1/ℓ for every record; without ℓ or m, the group's
    # random-worlds maximum, so no record is at risk at k = 0).
    group_bound = np.zeros(release.n_groups, dtype=np.float64)
    np.maximum.at(group_bound, release.group, bound)
    n = release.table.n_rows
    sizes = np.asarray(release.group_sizes, dtype=np.int64)
    first_above, first_certain, above_by_k = groups_above_promise(
        per_group_by_k, group_bound, sizes, k_max, tick=options.get("tick")
    )
    risk = ((first_above >= 0) & (first_above <= k_verdict))[release.group]
    worst = []
    if witness.record is not None:
        worst.append(
            {
                "record": witness.record,
                "group": witness.group,
                "known": "; ".join(witness.sentences) or "nothing",
                "inferred": witness.sensitive_value,
                "probability": float(witness.value),
                "random_worlds": float(witness.prior),
                "correct": bool(
                    str(release.table.column(release.sensitive)[witness.record])
                    == witness.sensitive_value
                ),
            }
        )
    return worst_case_finding(
        k_verdict=k_verdict,
        k_max=k_max,
        curve=curve,
        words=words,
        risk_fields=at_risk_fields(risk),
        considered=n,
        above_by_k=above_by_k,
        smallest_k_above=records_by_smallest_k(first_above, sizes, k_max),
        smallest_k_certain=records_by_smallest_k(first_certain, sizes, k_max),
        strongest=witness.explain(),
        worst=worst,
        settings=inference.settings,
    )


def groups_above_promise(
    per_group: np.ndarray, bound: np.ndarray, sizes: np.ndarray, k_max: int, tick: Any = None
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Per group, the smallest ``k`` at which its maximum disclosure (``per_group``, shape
    ``(k_max + 1, n_groups)``) exceeds its promise ``bound`` and the smallest at which it
    reaches 1 (-1: none up to ``k_max``), and the records (``sizes``: per group) above the
    promise at each ``k``; ``tick(done, total)`` after each ``k``."""
    first_above = np.full(len(sizes), -1, dtype=np.int64)
    first_certain = np.full(len(sizes), -1, dtype=np.int64)
    above_by_k = []
    for k in range(k_max + 1):
        above = per_group[k] > bound + 1e-9
        first_above[(first_above < 0) & above] = k
        first_certain[(first_certain < 0) & (per_group[k] >= 1 - 1e-12)] = k
        above_by_k.append(int(sizes[above].sum()))
        if tick is not None:
            tick(k + 1, k_max + 1)
    return first_above, first_certain, above_by_k


def records_by_smallest_k(first: np.ndarray, sizes: np.ndarray, k_max: int) -> dict[str, int]:
    """Records by their group's smallest ``k`` (``first``, per group, -1: none up to
    ``k_max``, counted as ``"> k_max"``), as :func:`groups_above_promise` gives it."""
    out = {str(k): int(sizes[first == k].sum()) for k in range(k_max + 1)}
    out[f"> {k_max}"] = int(sizes[first < 0].sum())
    return out


def worst_case_finding(
    *,
    k_verdict: int,
    k_max: int,
    curve: dict,
    words: str,
    risk_fields: dict[str, Any],
    considered: int,
    above_by_k: list[int],
    smallest_k_above: dict[str, int],
    smallest_k_certain: dict[str, int],
    strongest: str | None,
    worst: list[dict],
    settings: dict[str, Any],
) -> Finding:
    """The worst-case stage's finding from its aggregates: the curves (both languages), the
    promise in words, the records at risk (``risk_fields``: verdict, count and positions, as
    :func:`~anonlab.attacks.common.at_risk_fields` gives them), the records above the promise
    at each ``k`` and the records by the smallest ``k`` at which their group exceeds the
    promise and becomes certain (:func:`groups_above_promise`,
    :func:`records_by_smallest_k`). The judge here and a cluster's audit
    (:mod:`anonlab.distributed.written_audit`) build them from the same per-group arrays."""
    implications = curve["implications"]
    at_risk = int(risk_fields["at_risk"])
    return ATTACK.finding(
        attacker=f"knows every record's group and k basic implications about anyone's sensitive "
        f"values; the verdict is at k = {k_verdict}, the curve runs to k = {k_max}",
        promise=f"{words}, against k = {k_verdict} implication(s) ((c,k)-safety, c = the promise)",
        headline=f"{at_risk:,} records in groups above {words} after {k_verdict} "
        f"implication(s) (maximum disclosure {implications[k_verdict]:.3f}); "
        f"maximum disclosure {implications[0]:.3f} with no knowledge, "
        f"{implications[k_max]:.3f} after {k_max}; {above_by_k[k_max]:,} records above the "
        f"promise at k = {k_max}",
        **risk_fields,
        considered=considered,
        strongest=strongest,
        measures={
            "verdict_k": k_verdict,
            "curve_implications": implications,
            "curve_negations": curve["negations"],
            "records_above_promise_by_k": above_by_k,
            "records_above_promise_at_k1": above_by_k[1] if k_max >= 1 else above_by_k[0],
            "smallest_k_above_promise": smallest_k_above,
            "smallest_k_certain": smallest_k_certain,
        },
        baseline={"max_disclosure_k0": float(implications[0])},
        worst=worst,
        plot={"kind": "curve", "curves": curve, "label": "maximum disclosure against k"},
        settings=settings,
    )


ATTACK = register(
    Attack(
        name="worst-case",
        title="Worst-case background knowledge",
        paper="Martin, Kifer, Machanavajjhala, Gehrke, Halpern, ICDE 2007",
        attacker="knows every record's group and k basic implications about anyone's sensitive "
        "values (the worst such knowledge)",
        knowledge=("k",),
        know=_know,
        infer=_infer,
        judge=_judge,
        command="worst-case",
        order=40,
        cost="grows with groups × k_max × distinct sensitive values (one dynamic program)",
        bound=True,
        options=("k_max", "worst_case_k"),
    )
)
