"""What the foreground-knowledge attack reads from a release, checked: groups, targets, options.

Wong et al., "Can the Utility of Anonymized Data be used for Privacy Breaches?" (ACM TKDD
2011). The attack needs each record's group (the worst-case reduction of the paper's §2: the
adversary knows every record's exact quasi-identifiers and its group), an attribute set ``A``
of quasi-identifiers, a target ``x`` (a sensitive value, or a value set treated as one value, as
the paper's §5 does with low education), the *published* count ``n_k`` of ``x`` in each group,
and the mining options of Theorem 1 and Eq. (4). These checks are shared by the single-machine
attack and its map-reduce version (:mod:`anonlab.distributed.measures`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from anonlab._validation import check_choice, check_float, check_int
from anonlab.attacks.foreground.small_signature import (
    SMALL_SIGNATURE,
    hoeffding_support,
)
from anonlab.errors import AnonlabError
from anonlab.release import Release


def require_groups(release: Release) -> None:
    """Raise unless ``release`` is a :class:`~anonlab.release.Release` with per-record groups.

    The attack weights the possible worlds of each group (Eqs. 1-3), so it needs to know which
    records share a group; a release known only by its group statistics (a lattice candidate)
    cannot be attacked.
    """
    if not isinstance(release, Release):
        raise AnonlabError(f"release must be an anonlab Release, got {type(release).__name__}")
    if release.group is None:
        raise AnonlabError(
            "the foreground-knowledge attack needs per-record groups; this release is known "
            "only by its group statistics"
        )


def resolve_targets(
    release: Release, sensitive_values: Any
) -> list[tuple[tuple[str, ...], np.ndarray]]:
    """Normalise ``sensitive_values`` to a list of (labels, mask over the sensitive domain).

    ``str``: one value. A sequence of str: one value *set*, treated as one ``x``. A sequence
    of sequences: several targets. ``None``: every value of the domain on its own. Assumes a
    release with a sensitive attribute; an unknown value raises (``Release.sensitive_mask``).
    """
    sens = release.sensitive
    values = release.table.values[sens]
    if sensitive_values is None:
        return [((str(v),), release.sensitive_mask([v])) for v in values]
    if isinstance(sensitive_values, str):
        sensitive_values = [sensitive_values]
    items = list(sensitive_values)
    if not items:
        raise AnonlabError("parameter 'sensitive_values' must name at least one value")
    if all(isinstance(v, str) or not isinstance(v, Sequence) for v in items):
        groups = [items]
    else:
        groups = [[g] if isinstance(g, str) else list(g) for g in items]
    out = []
    for g in groups:
        if not g:
            raise AnonlabError("parameter 'sensitive_values': a target value set is empty")
        out.append((tuple(str(v) for v in g), release.sensitive_mask(g)))
    return out


def check_attributes(release: Release, attributes: Sequence[str] | str) -> tuple[str, ...]:
    """The attribute set ``A`` as a tuple: each a quasi-identifier of ``release``, none twice.

    A single name is a set of one attribute; the empty set is allowed (its one signature ``()``
    matches every record). Raises naming the attribute and the valid ones otherwise.
    """
    if isinstance(attributes, str):
        attributes = [attributes]
    attributes = tuple(attributes)
    qi = release.quasi_identifiers
    for a in attributes:
        if a not in qi:
            raise AnonlabError(
                f"attribute {a!r} is not a quasi-identifier of the release; they are {list(qi)}"
            )
    if len(set(attributes)) != len(attributes):
        raise AnonlabError(f"parameter 'attributes' repeats an attribute: {list(attributes)}")
    return attributes


def count_x(release: Release, mask: np.ndarray) -> np.ndarray:
    """Published count ``n_k`` of the target ``x`` in each group (int64, one per group).

    ``mask`` is a boolean mask over the sensitive domain (from :func:`resolve_targets`); the
    counts are read from ``release.sensitive_histogram`` (perturbed values where the algorithm
    perturbs, as in MASK), so a release whose histogram was reduced elsewhere (the map-reduce
    path) gives the same counts.
    """
    return (np.asarray(release.sensitive_histogram)[:, mask]).sum(axis=1).astype(np.int64)


def mining_options(
    epsilon: float,
    sigma: float,
    min_support: int | None,
    small_signature: str,
    tol: float,
    max_iter: int,
) -> tuple[int, str, float, int]:
    """Checked mining options: ``(J, small_signature, tol, max_iter)``.

    ``J`` is Theorem 1's support :func:`hoeffding_support` ``(epsilon, sigma)`` unless
    ``min_support`` overrides it (at least 1); ``small_signature`` must be one of
    ``SMALL_SIGNATURE``; ``tol >= 0`` and ``max_iter >= 0`` are the solver's settings for Eq. (4).
    """
    J = hoeffding_support(epsilon, sigma)
    if min_support is not None:
        J = check_int("min_support", min_support, minimum=1)
    small_signature = check_choice("small_signature", small_signature, SMALL_SIGNATURE)
    tol = check_float("tol", tol, low=0.0)
    max_iter = check_int("max_iter", max_iter, minimum=0)
    return J, small_signature, tol, max_iter
