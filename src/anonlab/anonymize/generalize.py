"""Full-domain generalization at given hierarchy levels (one node of the generalization lattice).

Every quasi-identifier is replaced by its ancestor at one fixed level of its hierarchy, the same
level for every record (Samarati & Sweeney's full-domain recoding, the scheme that Incognito and
ARX's Flash search over). The groups are the classes of equal generalized vectors. No privacy
model is enforced: this applies a node chosen by a user or a search; check the result with
:mod:`anonlab.models`.

Choice: no record is suppressed here; a suppression limit belongs to the lattice search that
chooses the node.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from anonlab._validation import check_choice, check_int, check_seed, takes_table_or_frame
from anonlab.errors import AnonlabError
from anonlab.release import SCHEMES, Release
from anonlab.table import Table


@takes_table_or_frame
def generalize(
    table: Table,
    levels: Mapping[str, int],
    *,
    scheme: str = "generalization",
    seed: int = 0,
) -> Release:
    """Generalize every quasi-identifier to the given level of its hierarchy.

    Parameters
    ----------
    table : Table
        Every quasi-identifier needs a hierarchy.
    levels : mapping of str to int
        One level per quasi-identifier (0 = the value itself, the hierarchy's height = ``*``).
    scheme : {"generalization", "bucketization"}
    seed : int
        Orders the exported rows only; stored in the manifest.

    Returns
    -------
    Release
        ``release.levels`` holds the node; published values are the nodes' labels.

    References
    ----------
    P. Samarati. Protecting respondents' identities in microdata release. IEEE TKDE 13(6), 2001.
    K. LeFevre, D. J. DeWitt, R. Ramakrishnan. Incognito: efficient full-domain k-anonymity.
    SIGMOD 2005.
    """
    scheme = check_choice("scheme", scheme, SCHEMES)
    seed = check_seed(seed)
    table = table.with_automatic_intervals()  # a number without a hierarchy gets intervals
    qi = table.quasi_identifiers
    unknown = [a for a in levels if a not in qi]
    if unknown:
        raise AnonlabError(
            f"levels given for {unknown}, which are not quasi-identifiers; they are {list(qi)}"
        )
    key = np.zeros(table.n_rows, dtype=np.int64)
    checked: dict[str, int] = {}
    radix = 1.0
    for q in qi:
        if q not in levels:
            raise AnonlabError(f"no level given for quasi-identifier {q!r} (levels: {q}=N)")
        h = table.schema[q].hierarchy
        if h is None:
            raise AnonlabError(
                f"quasi-identifier {q!r} has no hierarchy; full-domain generalization needs one "
                "(a builder: `anonlab hierarchy build` or a schema file; --hierarchies DIR; or a "
                "bundled --hierarchy-set)"
            )
        level = check_int(f"levels[{q}]", levels[q], minimum=0)
        if level > h.height:
            raise AnonlabError(
                f"level {level} of {q!r} does not exist; its hierarchy has levels 0..{h.height}"
            )
        node = h.map(level)[table.leaf_codes(q)[table.codes[q]]]
        radix *= len(h.labels(level))
        if radix >= 2.0**62:
            raise AnonlabError(
                "too many combinations of generalized values for 64-bit class keys; "
                "generalize further or use fewer quasi-identifiers"
            )
        key = key * len(h.labels(level)) + node  # mixed radix: one int per generalized vector
        checked[q] = level
    _, group = np.unique(key, return_inverse=True)
    manifest = {
        "algorithm": "generalize",
        "parameters": {"levels": checked},
        "seed": seed,
    }
    return Release(table, group.ravel(), scheme, manifest, levels=checked)
