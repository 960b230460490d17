"""Which privacy models to check on a release, with parameters from the release's manifest.

Used by ``anonlab check``, ``anonlab demo`` and the audit, so all three check the same models
with the same defaults.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from anonlab.errors import AnonlabError
from anonlab.models.result import CheckResult
from anonlab.release import Release


def check_specs(
    release: Release,
    k: int | None = None,
    l: int | None = None,
    c: float | None = None,
    t: float | None = None,
    m: int | None = None,
    sensitive_values: Sequence[str] | None = None,
    only: Sequence[str] | None = None,
) -> list[tuple[str, dict]]:
    """The models to check, with parameters from the arguments or the release's manifest;
    only those named in ``only``, if given.

    Defaults: an ℓ-diverse release (frequency form) has groups of at least ℓ, so k = ℓ is
    checked when no k is known; ℓ = 2 when nothing is known; recursive (c,ℓ) with c = 3;
    t-closeness at t = 0.2 with the distance the attribute's kind suggests; m = ℓ.
    (c,k)-safety has no natural default (c, k): it is checked when asked for (``only``) or when
    the release was made for it (lattice search).
    """
    params = release.manifest.get("parameters", {})
    made_for_ck = params.get("model") == "ck-safety"
    ck = {
        "c": c if c is not None else params.get("c"),
        "k": k if k is not None else params.get("k"),
    }
    k = k if k is not None else params.get("k") or params.get("l") or 2
    l = l if l is not None else params.get("l") or 2
    sv = sensitive_values if sensitive_values is not None else params.get("sensitive_values")
    specs = [
        ("k-anonymity", {"k": k}),
        ("l-diversity", {"l": l, "sensitive_values": sv}),
        ("distinct-l-diversity", {"l": l}),
        ("entropy-l-diversity", {"l": l}),
        ("recursive-cl-diversity", {"c": 3.0 if c is None or made_for_ck else c, "l": l}),
        (
            "t-closeness",
            {
                "t": t if t is not None else params.get("t", 0.2),
                "distance": params.get("distance") or "auto",
            },
        ),
        ("m-confidentiality", {"m": m if m is not None else l, "sensitive_values": sv}),
    ]
    if len(release.table.sensitive_attributes) > 1 or (
        only and "multi-attribute-l-diversity" in only
    ):  # an attacker who knows some of a person's sensitive values (Machanavajjhala et al.)
        specs.append(("multi-attribute-l-diversity", {"l": l}))
    if made_for_ck or (only and "ck-safety" in only):
        if ck["c"] is None or ck["k"] is None:
            raise AnonlabError("ck-safety needs --c (in (0, 1]) and --k (implications, >= 0)")
        specs.append(("ck-safety", ck))
    if not release.table.sensitive_attributes:  # plain k-anonymity: models of the groups alone
        from anonlab.models import get

        specs = [(name, p) for name, p in specs
                 if not get(name).reads_sensitive or (only and name in only)]  # fmt: skip
    return [(name, p) for name, p in specs if not only or name in only]


def default_checks(release: Release, *args: Any, **kwargs: Any) -> list[CheckResult]:
    """Run the models of :func:`check_specs` (same arguments: ``k``, ``l``, ``c``, ``t``,
    ``m``, ``sensitive_values``, ``only``), each with its parameters."""
    from anonlab.models import check

    return [check(release, name, **p) for name, p in check_specs(release, *args, **kwargs)]
