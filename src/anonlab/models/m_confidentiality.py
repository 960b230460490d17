"""m-confidentiality's frequency condition (Wong et al., VLDB 2007)."""

from __future__ import annotations

from collections.abc import Sequence

from anonlab.models.l_diversity import frequency_check
from anonlab.models.result import CheckResult
from anonlab.release import Release


def m_confidentiality(
    release: Release, *, m: int, sensitive_values: Sequence[object] | None = None
) -> CheckResult:
    """Check the frequency condition of m-confidentiality.

    A group G violates it iff some value of the sensitive set occurs in G more than
    ⌊|G| / m⌋ times (Wong, Fu, Wang and Pei 2007). Without ``sensitive_values`` every value
    of the sensitive attribute is in the set.

    **This is only the frequency condition.** m-confidentiality itself asks that an adversary
    who also knows the anonymization algorithm (and can therefore mount the *minimality
    attack*) links no individual to a sensitive value with probability above 1/m. A release
    that passes this check can still fail that; whether it does depends on how the algorithm
    chose the groups, which a check on the published release cannot see.

    Parameters
    ----------
    release : Release
    m : int
        m >= 1.
    sensitive_values : sequence, optional
        The sensitive value set (default: every value).

    Returns
    -------
    CheckResult
        ``per_group`` is |G| / S_max(G), S_max(G) the largest count in G of a value of the set
        (``inf`` when G holds none of them): the largest m the group satisfies is its floor.
        ``value`` is the minimum. Because counts are integers, "count <= ⌊|G|/m⌋" is the same
        as "m · count <= |G|": this condition equals frequency ℓ-diversity
        (:func:`~anonlab.models.l_diversity.l_diversity`) with ℓ = m over the same value set.

    References
    ----------
    .. [1] R. C.-W. Wong, A. W.-C. Fu, K. Wang and J. Pei. "Minimality attack in privacy
       preserving data publishing". VLDB 2007, 543-554.
    """
    return frequency_check(
        release,
        "m-confidentiality",
        "m",
        m,
        sensitive_values,
        details={
            "condition": "every value of the set occurs at most floor(|G|/m) times",
            "scope": "frequency condition only; no protection against the minimality attack",
        },
    )
