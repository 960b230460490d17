"""Algorithm-based disclosure (Jin, Zhang, Das, ASAP, Information Systems 2011): the attacks.

An adversary who knows the publishing algorithm learns from its decisions. The attacks live one
per module; this module says which apply to a release and runs them (``anonlab attack
algorithm RELEASE``):

* :mod:`anonlab.attacks.minimality` — the minimality attack on generalization (Example 1,
  Table 1, Table 5), by exact enumeration over a toy minimal-suppression algorithm;
* :mod:`anonlab.attacks.mask_phd25` — the PhD-25 attack on MASK (§8.2.1);
* :mod:`anonlab.attacks.hilb_algorithm7` — Algorithm 7 against Hilb (§8.3.1), union and strict
  counts;
* :mod:`anonlab.attacks.asap_checker` — the generic brute-force ASAP checker for tiny tables
  (any anonymizer of the registry, by name).

It also holds :func:`minimal_change_naive`, the naive reading of Example 2 (Table 2) used by the
paper's hand computation (naive Nash's 3/8 and 5/12).

Which attack applies to which algorithm (:data:`ATTACKS`): Algorithm 7 to Hilb and to Hilb+/Hilb++
(whose greedy groups are also the lowest frontier heads, notes I1); PhD-25 to MASK and to its
repairs when the release has a numeric ``age`` quasi-identifier and a ``Doctorate`` sensitive
value (Adult's education); the ASAP checker to any algorithm of the registry when the release
has at most :data:`~anonlab.attacks.asap_checker.MAX_RECORDS` records.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from anonlab._validation import takes_release
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.schema import Kind

#: algorithm name (manifest) -> attacks that target it
ATTACKS: dict[str, tuple[str, ...]] = {
    "hilb": ("hilb-algorithm7",),
    "hilb+": ("hilb-algorithm7",),
    "hilb++": ("hilb-algorithm7",),
    "mask": ("mask-phd25",),
    "mask+": ("mask-phd25",),
    "mask++": ("mask-phd25",),
}


@takes_release
def applicable_attacks(release: Release) -> list[tuple[str, str | None]]:
    """Each attack with ``None`` if it applies to the release, else the reason it does not."""
    from anonlab.anonymize import available
    from anonlab.attacks.asap_checker import MAX_RECORDS

    algorithm = str(release.manifest.get("algorithm", "unknown"))
    table = release.table
    out: list[tuple[str, str | None]] = []
    targeted = ATTACKS.get(algorithm, ())
    for name in ("hilb-algorithm7", "mask-phd25"):
        if name not in targeted:
            out.append((name, f"targets {_targets(name)}, not {algorithm}"))
            continue
        if name == "hilb-algorithm7" and release.manifest.get("parameters", {}).get("l") is None:
            out.append((name, "the manifest has no ℓ (parameter 'l')"))
        elif name == "mask-phd25":
            reason = None
            if "age" not in table.quasi_identifiers or table.schema["age"].kind is not Kind.NUMERIC:
                reason = "needs a numeric quasi-identifier 'age'"
            elif "Doctorate" not in {str(v) for v in table.values[release.sensitive]}:
                reason = f"needs the value 'Doctorate' in {release.sensitive!r}"
            out.append((name, reason))
        else:
            out.append((name, None))
    if algorithm not in available():
        out.append(("asap-check", f"{algorithm!r} is not in the anonymizer registry"))
    elif table.n_rows > MAX_RECORDS:
        out.append(("asap-check", f"enumerates at most {MAX_RECORDS} records, not {table.n_rows}"))
    else:
        out.append(("asap-check", None))
    return out


def _targets(name: str) -> str:
    return ", ".join(a for a, names in ATTACKS.items() if name in names)


@takes_release
def run_algorithm_attacks(release: Release, **options: Any) -> dict[str, Any]:
    """Run every applicable attack; ``{"applied": {name: result json}, "skipped": {name: why}}``.

    ``options`` go to the attacks that take them (``tie_break`` for Algorithm 7; ``n_seeds`` for
    the checker).
    """
    from anonlab.attacks.asap_checker import check_release
    from anonlab.attacks.hilb_algorithm7 import hilb_algorithm7
    from anonlab.attacks.mask_phd25 import phd25_attack

    applied: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for name, reason in applicable_attacks(release):
        if reason is not None:
            skipped[name] = reason
            continue
        if name == "hilb-algorithm7":
            applied[name] = hilb_algorithm7(
                release, tie_break=options.get("tie_break", "rank")
            ).to_json()
        elif name == "mask-phd25":
            applied[name] = phd25_attack(release).to_json()
        else:
            applied[name] = check_release(release, n_seeds=options.get("n_seeds")).to_json()
    return {
        "algorithm": release.manifest.get("algorithm"),
        "applied": applied,
        "skipped": skipped,
    }


@takes_release
def minimal_change_naive(
    release: Release,
    rule: Callable[[np.ndarray], bool],
    *,
    max_changes: int = 3,
) -> np.ndarray:
    """Naive Nash of Jin et al.'s Example 2: the fewest published values are fake.

    Nash does not know MASK but knows values may have been perturbed. He assumes the fewest
    published sensitive values were changed such that the per-group histogram satisfies his
    external knowledge ``rule`` (a function of the ``(n_groups, n_values)`` histogram); each
    choice of fake records, and of an original value for each (any value but the published
    one), is equally likely; a record then holds each value with its group's share. This is
    the reading that gives the paper's 3/8 ("Japanese have very low heart-disease incidence")
    and 5/12 ("only 1 of 8 patients has cancer") on Table 2.

    Returns
    -------
    ndarray of shape (n_rows, n_values)
        Nash's posterior per record.
    """
    group = release.group
    pub = np.asarray(release.sensitive_codes, dtype=np.int64)
    n_values = release.table.domain_size(release.sensitive)
    base = np.asarray(release.sensitive_histogram, dtype=np.int64)
    sizes = release.group_sizes
    n = len(pub)
    for changes in range(max_changes + 1):
        total = np.zeros((release.n_groups, n_values))
        count = 0
        for fake in itertools.combinations(range(n), changes):
            others = [[v for v in range(n_values) if v != pub[r]] for r in fake]
            for originals in itertools.product(*others):
                hist = base.copy()
                for r, v in zip(fake, originals, strict=True):
                    hist[group[r], pub[r]] -= 1
                    hist[group[r], v] += 1
                if rule(hist):
                    total += hist / sizes[:, None]
                    count += 1
        if count:
            return (total / count)[group]
    raise AnonlabError(
        f"no change of at most {max_changes} published values satisfies the rule; raise max_changes"
    )
