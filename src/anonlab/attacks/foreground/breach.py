"""Breach probabilities: ``p(t : x)`` of every record given a global distribution (Eqs. 1-3).

Wong et al., "Can the Utility of Anonymized Data be used for Privacy Breaches?" (ACM TKDD
2011). The public entry point of Eqs. (1)-(3): it takes a mined
:class:`~anonlab.attacks.foreground.result.GlobalDistribution`, a mapping from signatures to
``f``, or one ``f`` per record, and evaluates the posterior with the compiled kernel of
:mod:`anonlab.attacks.foreground.kernel`. Generalized releases are attacked through the
worst-case reduction of the paper's §2 (exact quasi-identifiers and group of every record
known); counts of ``x`` are the published sensitive values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from anonlab._validation import takes_release
from anonlab.attacks.foreground.inputs import (
    check_attributes,
    count_x,
    require_groups,
    resolve_targets,
)
from anonlab.attacks.foreground.kernel import GroupLayout
from anonlab.attacks.foreground.result import GlobalDistribution
from anonlab.attacks.foreground.signatures import release_signatures, signature_labels
from anonlab.errors import AnonlabError
from anonlab.release import Release


@takes_release
def breach_probabilities(
    release: Release,
    global_distribution: GlobalDistribution | Mapping | np.ndarray,
    sensitive_values: Any = None,
    *,
    attributes: Sequence[str] | None = None,
) -> np.ndarray:
    """Posterior ``p(t : x)`` of every record given a global distribution (Eqs. 1-3).

    Exact, by the generating-function form of notes §2.1: with ``a_j = f_{s(j)}`` and
    ``b_j = 1 - a_j``,
    ``p(t_j : x) = a_j [z^{n-1}] prod_{i != j}(b_i + a_i z) / [z^n] prod_i (b_i + a_i z)``,
    which equals the sum over possible worlds of Eqs. (1)-(3) without enumerating them. Work is
    ``O(N · min(n, N - n))`` per group, or ``O(runs · K)`` for large groups (the circle method),
    with no under/overflow for groups of thousands (see
    :func:`anonlab.attacks.foreground.kernel._group_link`).

    Parameters
    ----------
    release : Release
        Attacked through the worst-case reduction (exact QIs and group of every record known).
    global_distribution : GlobalDistribution, mapping or ndarray
        ``f = p(s : x)``: a mined :class:`GlobalDistribution`; or a mapping ``{signature: f}``
        over the signatures of ``attributes`` (a signature is a tuple of labels in ``attributes``
        order, or a bare label for one attribute), which must cover every signature in the
        release; or an array of shape (n_rows,) with each record's ``f``.
    sensitive_values : str or sequence of str, optional
        The target ``x`` (a set of values is treated as one value). Default: the target of the
        :class:`GlobalDistribution`; required otherwise.
    attributes : sequence of str, optional
        The attribute set of a mapping ``global_distribution``.

    Returns
    -------
    ndarray of shape (n_rows,)
        ``p(t : x)``; within each group they sum to the group's count of ``x``. A group whose
        worlds all have weight 0 gets the random-world value ``n / N``.

    Raises
    ------
    AnonlabError
        On a release without per-record groups, probabilities outside [0, 1], signatures
        missing from a mapping, or an unknown sensitive value.
    """
    require_groups(release)
    if isinstance(global_distribution, GlobalDistribution):
        f = global_distribution.record_probabilities()
        if sensitive_values is None:
            sensitive_values = list(global_distribution.target)
    elif isinstance(global_distribution, Mapping):
        if attributes is None:
            raise AnonlabError(
                "parameter 'attributes' is required when global_distribution is a mapping"
            )
        attrs = check_attributes(release, attributes)
        codes, inv = release_signatures(release, attrs)
        labels = signature_labels([release.table.values[a] for a in attrs], codes)
        table = {(k if isinstance(k, tuple) else (k,)): v for k, v in global_distribution.items()}
        table = {tuple(str(x) for x in k): v for k, v in table.items()}
        per_sig = np.empty(len(labels))
        for i, s in enumerate(labels):
            key = tuple(str(x) for x in s)
            if key not in table:
                raise AnonlabError(
                    f"global_distribution has no probability for signature {s} of {list(attrs)}"
                )
            per_sig[i] = float(table[key])
        f = per_sig[inv]
    else:
        f = np.asarray(global_distribution, dtype=np.float64)
        if f.shape != (release.table.n_rows,):
            raise AnonlabError(
                f"global_distribution as an array must hold one probability per record "
                f"({release.table.n_rows}), got shape {f.shape}"
            )
    if not np.all(np.isfinite(f)) or np.any(f < 0) or np.any(f > 1):
        raise AnonlabError("global_distribution: probabilities must lie in [0, 1]")
    if sensitive_values is None:
        raise AnonlabError("parameter 'sensitive_values' is required: name the target value(s)")
    targets = resolve_targets(release, sensitive_values)
    if len(targets) != 1:
        raise AnonlabError(
            f"breach_probabilities takes one target x (a value or a value set), got {len(targets)}"
        )
    n_x = count_x(release, targets[0][1])
    return GroupLayout(release.group, release.n_groups, n_x).probabilities(f)
