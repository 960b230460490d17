"""Multi-attribute ℓ-diversity: each sensitive attribute ℓ-diverse even against an attacker who
knows the person's other sensitive values (Machanavajjhala, Kifer, Gehrke, Venkitasubramaniam,
"ℓ-diversity: privacy beyond k-anonymity", ICDE 2006 / ACM TKDD 2007, the section on multiple
sensitive attributes).

Their definition: a table with sensitive attributes S_1..S_m is ℓ-diverse if, for every i, it is
ℓ-diverse with S_i the sole sensitive attribute and the *other sensitive attributes added to
the quasi-identifiers*. A group is then split by the values of the other sensitive attributes,
and each part must be ℓ-diverse in S_i: a hospital release whose group of five holds one
privately insured patient discloses that patient's diagnosis to whoever knows the insurer, even
if the group holds five diagnoses.

Choices where the paper leaves them open:

* ℓ-diversity is taken in the frequency form anonlab's ``l-diversity`` uses (``|P| >= ℓ ·
  S_max(P)`` for every part P; the paper states the definition for any instance of
  ℓ-diversity, and uses entropy and recursive ℓ-diversity in its experiments).
* A group's value is the least ℓ its parts achieve over every attribute; it violates the model
  if one part does. With one sensitive attribute the model is ``l-diversity``.
* The parts are read from the records (the joint values of the sensitive attributes), not from
  per-attribute histograms, so the check needs a release with per-record groups; a search
  candidate known only by its statistics is refused (the lattice search cannot use it).
"""

from __future__ import annotations

import numpy as np

from anonlab._validation import check_int
from anonlab.errors import AnonlabError
from anonlab.grouping import dense_group_ids
from anonlab.models.result import CheckResult, build_result, check_release
from anonlab.release import Release


def multi_attribute_l_diversity(release: Release, *, l: int) -> CheckResult:
    """Check multi-attribute ℓ-diversity (module docstring): in every group, for every sensitive
    attribute, the records sharing the other sensitive attributes' values are ℓ-diverse in it.

    Parameters
    ----------
    release : Release
        With per-record groups (not a search candidate).
    l : int
        ℓ >= 1.

    Returns
    -------
    CheckResult
        ``per_group`` is the least ``|P| / S_max(P)`` over the group's parts P and the
        attributes (float); a group violates iff some part has ``S_max(P) > |P| // ℓ``;
        ``details["per_attribute"]`` counts the violating groups per attribute.

    References
    ----------
    .. [1] A. Machanavajjhala, J. Gehrke, D. Kifer and M. Venkitasubramaniam. "ℓ-diversity:
       privacy beyond k-anonymity". ICDE 2006; ACM TKDD 1(1), 2007 (multiple sensitive
       attributes).

    Examples
    --------
    Five patients, five diagnoses: 5-diverse in the diagnosis alone, but the one privately
    insured patient's diagnosis is known to whoever knows the insurer:

    >>> import pandas as pd
    >>> from anonlab import Release, Table
    >>> df = pd.DataFrame({"age": [30, 31, 32, 33, 34],
    ...                    "dx": ["flu", "hiv", "cold", "asthma", "gout"],
    ...                    "ins": ["private", "public", "public", "public", "public"]})
    >>> t = Table.from_frame(df, quasi_identifiers=["age"], sensitive=["dx", "ins"])
    >>> r = multi_attribute_l_diversity(Release(t, [0] * 5, "generalization"), l=2)
    >>> r.holds, r.value
    (False, 1.0)
    """
    release = check_release(release)
    l = check_int("l", l, minimum=1)
    if release.group is None:
        raise AnonlabError(
            "multi-attribute-l-diversity reads the records' joint sensitive values: it needs a "
            "release with per-record groups, not a search candidate (the lattice search cannot "
            "search for it; check its result instead)"
        )
    table = release.table
    names = table.sensitive_attributes
    if not names:
        table.require_sensitive()  # the error names --sensitive
    sizes = np.asarray(release.group_sizes, dtype=np.int64)
    level = np.full(release.n_groups, np.inf)
    violating = np.zeros(release.n_groups, dtype=bool)
    per_attribute: dict[str, int] = {}
    codes = {a: np.asarray(table.codes[a], dtype=np.int64) for a in names}
    if len(names) == 1:  # the one attribute's published values (MASK perturbs them)
        codes[names[0]] = np.asarray(release.sensitive_codes, dtype=np.int64)
    group = np.asarray(release.group, dtype=np.int64)
    for a in names:
        others = [group, *(codes[b] for b in names if b != a)]
        part, n_parts = dense_group_ids(_joint_key(others))
        part = np.asarray(part, dtype=np.int64)
        n_values = table.domain_size(a)
        hist = np.bincount(part * n_values + codes[a], minlength=n_parts * n_values)
        hist = hist.reshape(n_parts, n_values)
        part_size = hist.sum(axis=1)
        s_max = hist.max(axis=1)
        part_group = np.zeros(n_parts, dtype=np.int64)
        part_group[part] = group
        bad = s_max > part_size // l
        np.minimum.at(level, part_group, part_size / s_max)
        hit = np.zeros(release.n_groups, dtype=bool)
        hit[part_group[bad]] = True
        per_attribute[a] = int(hit.sum())
        violating |= hit
    return build_result(
        "multi-attribute-l-diversity",
        {"l": l},
        level,
        violating,
        sizes,
        worst="min",
        details={
            "condition": "|P| >= l * S_max(P) for every part P of a group sharing the other "
            "sensitive attributes' values",
            "violating_groups_per_attribute": per_attribute,
        },
    )


def _joint_key(columns: list[np.ndarray]) -> np.ndarray:
    """One int64 key per record for the joint values of ``columns`` (densified step by step,
    so the key never overflows)."""
    key = np.zeros(len(columns[0]), dtype=np.int64)
    for column in columns:
        width = int(column.max()) + 1 if len(column) else 1
        key, _ = dense_group_ids(key * width + column)
        key = np.asarray(key, dtype=np.int64)
    return key
