"""(c,k)-safety (Martin et al., ICDE 2007, Def. 13): worst-case background knowledge."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from anonlab._validation import check_float
from anonlab.disclosure import DisclosureEngine, check_disclosure_inputs
from anonlab.errors import AnonlabError
from anonlab.models.result import CheckResult, build_result
from anonlab.release import Release


def ck_safety(release: Release, *, c: float, k: int, exact: bool = False) -> CheckResult:
    """Check (c,k)-safety: maximum disclosure under ``k`` basic implications is below ``c``.

    The attacker knows who is in which group and any ``k`` basic implications (``L^k_basic``);
    the release is (c,k)-safe iff the maximum disclosure (Def. 6, computed as in
    :func:`anonlab.attacks.maximum_disclosure`) is *strictly* below ``c`` (Def. 13). A
    generalized release is checked as a bucketization with one bucket per group. By Theorem 14
    merging groups never raises maximum disclosure, so the check is monotone under
    generalization (a lattice search may prune with it).

    Per-group diagnosis: ``per_group[g]`` is the maximum disclosure when the *target* person is
    in group ``g`` and the ``k`` implications may mention people of any group (they usually sit
    in ``g`` itself, but spending some in another group can be worse; notes §4.4). The largest
    of them is the release's maximum disclosure, so a group violates iff its own value is
    ``>= c``: those are the groups whose people an attacker can learn too much about.

    Parameters
    ----------
    release : Release
    c : float
        Disclosure threshold, ``0 < c <= 1``.
    k : int
        Number of basic implications the attacker knows, ``k >= 0``.
    exact : bool, default=False
        Decide with exact fractions (small releases): float rounding can flip a comparison when
        the disclosure equals ``c`` (e.g. ``c = 2/3``).

    Returns
    -------
    CheckResult
        ``value`` is the maximum disclosure (float); ``per_group`` float64 as above;
        ``details`` holds the witness (target, value, statements as sentences).

    References
    ----------
    .. [1] D. J. Martin, D. Kifer, A. Machanavajjhala, J. Gehrke, J. Y. Halpern. "Worst-Case
       Background Knowledge for Privacy-Preserving Data Publishing". ICDE 2007.
    """
    release, k, _, exact = check_disclosure_inputs(release, k, "implications", exact)
    if isinstance(c, Fraction):
        c_num: float | Fraction = c
        check_float("c", float(c), low=0.0, high=1.0)
    else:
        c_num = check_float("c", c, low=0.0, high=1.0)
    if c_num <= 0:
        raise AnonlabError(f"parameter 'c' must be a number in (0, 1], got {c!r}")
    core = DisclosureEngine(release, k, "implications", exact)
    per = core.by_group(k)
    violating = np.array([v >= c_num for v in per], dtype=bool)
    per_group = np.array([float(v) for v in per], dtype=np.float64)
    witness = core.witness(k)
    details = {
        "max_disclosure": str(witness.value) if exact else float(witness.value),
        "target_group": witness.group,
        "target_record": witness.record,
        "target_value": witness.sensitive_value,
        "knowledge": list(witness.sentences),
    }
    sizes = np.asarray(release.group_sizes, dtype=np.int64)
    return build_result(
        "ck-safety",
        {"c": float(c_num), "k": k},
        per_group,
        violating,
        sizes,
        worst="max",
        details=details,
    )
