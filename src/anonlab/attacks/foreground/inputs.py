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

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonlab._validation import check_choice, check_float, check_int
from anonlab.attacks import common
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
    common.require_groups(release, "the foreground-knowledge attack")


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


def count_target(release: Release, mask: np.ndarray) -> tuple[np.ndarray, float]:
    """The published counts ``n_k`` of the target in each group (:func:`count_x`) and its base
    rate ``#x / |T*|``, the solver's starting point (the fixed ``f`` under ``"base-rate"``)."""
    n_x = count_x(release, mask)
    return n_x, float(n_x.sum()) / max(release.table.n_rows, 1)


def search_attributes(
    release: Release, attributes: Sequence[str] | None, max_attributes: int | None
) -> tuple[tuple[str, ...], int]:
    """The quasi-identifiers Algorithm 1 searches (default: all of the release's; checked by
    :func:`check_attributes`) and the largest attribute-set
    size (``max_attributes``, at least 0; default: all of them)."""
    attrs = check_attributes(
        release, release.quasi_identifiers if attributes is None else attributes
    )
    top = (
        len(attrs)
        if max_attributes is None
        else check_int("max_attributes", max_attributes, minimum=0)
    )
    return attrs, top


def target_counts(
    release: Release, targets: Sequence[tuple[tuple[str, ...], np.ndarray]]
) -> list[tuple[tuple[tuple[str, ...], np.ndarray], np.ndarray, np.ndarray, float]]:
    """Per target: the target, its published count ``n_k`` per group, its rate
    ``n_k / |G_k|`` per group (the random-world probability of the group's members), and its
    base rate ``#x / |T*|`` (:func:`count_target`). Reads
    only ``release.group_sizes`` and ``release.sensitive_histogram``."""
    sizes = np.asarray(release.group_sizes, dtype=np.float64)
    out = []
    for target in targets:
        n_x, base = count_target(release, target[1])
        out.append((target, n_x, n_x / np.maximum(sizes, 1), base))
    return out


@dataclass(frozen=True)
class MiningOptions:
    """Checked mining options (from :func:`mining_options`): Theorem 1's support ``J``, the
    rule for smaller signatures, and the solver's settings for Eq. (4)."""

    J: int
    small_signature: str
    tol: float
    max_iter: int
    newton: bool = True
    accelerate: bool | str = True


def mining_options(
    epsilon: float,
    sigma: float,
    min_support: int | None,
    small_signature: str,
    tol: float,
    max_iter: int,
    newton: bool = True,
    accelerate: bool | str = True,
) -> MiningOptions:
    """Checked mining options as a :class:`MiningOptions`.

    ``J`` is Theorem 1's support :func:`hoeffding_support` ``(epsilon, sigma)`` unless
    ``min_support`` overrides it (at least 1); ``small_signature`` must be one of
    ``SMALL_SIGNATURE``; ``tol >= 0`` and ``max_iter >= 0`` are the solver's settings for Eq. (4);
    ``newton`` and ``accelerate`` are passed to the solver as given.
    """
    J = hoeffding_support(epsilon, sigma)
    if min_support is not None:
        J = check_int("min_support", min_support, minimum=1)
    small_signature = check_choice("small_signature", small_signature, SMALL_SIGNATURE)
    tol = check_float("tol", tol, low=0.0)
    max_iter = check_int("max_iter", max_iter, minimum=0)
    return MiningOptions(J, small_signature, tol, max_iter, newton, accelerate)


def keyword_options(function: Callable[..., Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword-only parameters of ``function`` as a call with ``options`` binds them: the
    given values, the defaults for the others.

    Lets a function that takes ``**options`` on behalf of ``function`` (the map-reduce attack)
    accept exactly its options, with its defaults. An unknown name raises ``TypeError``, as
    the call would.
    """
    params = inspect.signature(function).parameters.values()
    defaults = {p.name: p.default for p in params if p.kind is p.KEYWORD_ONLY}
    for name in options:
        if name not in defaults:
            raise TypeError(f"{function.__name__}() got an unexpected keyword argument {name!r}")
    return {**defaults, **options}
