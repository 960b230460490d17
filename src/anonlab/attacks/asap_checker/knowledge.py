"""What the checker's adversary is told, built by the publisher: :func:`asap_knowledge`.

Jin, Zhang, Das (ASAP, Information Systems 2011) compare two adversaries with the same external
knowledge ``K_e``: here the publishing algorithm, its parameters and seed (the manifest's), the
original multiset of sensitive values (``knowledge="multiset"``) or only the domain, and negative
facts "record does not hold value". The publisher builds it from the original table
(:class:`AsapKnowledge`); the inference then reads only it and the published view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonlab._validation import check_choice, check_int, check_seed, takes_release
from anonlab.attacks.asap_checker.runs import algorithm_takes_seed
from anonlab.attacks.asap_checker.worlds import original_counts
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.table import Table

#: Largest table the checker enumerates.
MAX_RECORDS = 12
KNOWLEDGE = ("multiset", "domain")


@dataclass(frozen=True)
class AsapKnowledge:
    """What the checker's adversary is told, built by the publisher (:func:`asap_knowledge`).

    Attributes
    ----------
    algorithm : str
        The publishing algorithm (a name of the anonymizer registry).
    params : dict
        Its parameters, the seed aside.
    seed : int
        The seed the release states (the smart world's seeds are ``seed + 1, ...`` for a
        randomized algorithm; the seed itself only under ``known_seed``).
    knowledge : {"multiset", "domain"}
    multiset : ndarray of int, shape (n_values,), or None
        The original table's count of each sensitive value (``knowledge="multiset"``): for an
        algorithm that perturbs sensitive values, the constraint on the candidates.
    facts : tuple of (int, int)
        Negative facts "record does not hold value", as (row, code).
    """

    algorithm: str
    params: dict
    seed: int
    knowledge: str
    multiset: np.ndarray | None
    facts: tuple[tuple[int, int], ...] = ()


def _validate_params(table: Table, algorithm: str, params: Mapping[str, Any], seed) -> None:
    """Let the registry reject unknown parameters once, with its message."""
    from anonlab.anonymize import anonymize

    kw = dict(params)
    if seed is not None:
        kw["seed"] = seed
    anonymize(table, algorithm, **kw)


@takes_release
def asap_knowledge(
    release: Release,
    algorithm: str | None = None,
    params: Mapping[str, Any] | None = None,
    *,
    seed: int | None = None,
    knowledge: str = "multiset",
    negative_facts: Sequence[tuple[int, str]] = (),
) -> AsapKnowledge:
    """The checker's stated knowledge, built by the publisher from the release.

    ``algorithm``, ``params`` and ``seed`` default to the manifest's (parameters the algorithm
    does not take are dropped; ``scheme`` is the release's); the parameters are validated by
    running the algorithm once on the original table. ``knowledge="multiset"`` adds the original
    table's count of each sensitive value; ``negative_facts`` (row, value) become codes.
    """
    from anonlab.anonymize import available, parameters

    knowledge = check_choice("knowledge", knowledge, KNOWLEDGE)
    table = release.table
    n = table.n_rows
    if n > MAX_RECORDS:
        raise AnonlabError(
            f"the ASAP checker enumerates every candidate table: at most {MAX_RECORDS} records, "
            f"got {n}"
        )
    algorithm = algorithm or release.manifest.get("algorithm")
    if algorithm not in available():
        raise AnonlabError(
            f"unknown algorithm {algorithm!r} for the ASAP checker; available: "
            f"{', '.join(available())}"
        )
    if params is None:
        accepted = set(parameters(algorithm)) - {"seed"}
        params = {
            k: v
            for k, v in release.manifest.get("parameters", {}).items()
            if k in accepted and v is not None
        }
        if "scheme" in accepted:
            params["scheme"] = release.scheme
    params = dict(params)
    if seed is None:
        seed = release.manifest.get("seed") or 0
    seed = check_seed(seed)
    _validate_params(table, algorithm, params, seed if algorithm_takes_seed(algorithm) else None)
    sens = release.sensitive
    facts = []
    for record, value in negative_facts:
        record = check_int("record", record, minimum=0)
        if record >= n:
            raise AnonlabError(f"negative fact on record {record}: the table has {n} records")
        code = int(np.flatnonzero(table.value_mask(sens, [value]))[0])
        facts.append((record, code))
    return AsapKnowledge(
        algorithm=algorithm,
        params=params,
        seed=seed,
        knowledge=knowledge,
        multiset=original_counts(release, knowledge, None),
        facts=tuple(facts),
    )
