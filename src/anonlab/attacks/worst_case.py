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

from fractions import Fraction

import numpy as np

from anonlab._validation import takes_release
from anonlab.disclosure import (
    LANGUAGES,
    DisclosureEngine,
    DisclosureResult,
    Number,
    Statement,
    check_disclosure_inputs,
)
from anonlab.release import Release

__all__ = [
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
