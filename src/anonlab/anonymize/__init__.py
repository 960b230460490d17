"""Anonymizers: each turns a :class:`~anonlab.table.Table` into a :class:`~anonlab.release.Release`.

Found by name through :func:`anonymize`, so the CLI, reports and experiments list them without
special cases.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from anonlab.anonymize.anatomy import anatomy
from anonlab.anonymize.generalize import generalize
from anonlab.anonymize.hilb import hilb
from anonlab.anonymize.hilb_plus import hilb_plus, hilb_plus_plus
from anonlab.anonymize.injector import injector
from anonlab.anonymize.lattice import lattice
from anonlab.anonymize.mask import mask
from anonlab.anonymize.mask_plus import mask_plus, mask_plus_plus
from anonlab.anonymize.mondrian import mondrian
from anonlab.anonymize.mondrian_plus import mondrian_plus, mondrian_plus_plus
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.table import Table

#: name -> function(table, **parameters) -> Release
ALGORITHMS: dict[str, Callable[..., Release]] = {
    "anatomy": anatomy,
    "generalize": generalize,
    "hilb": hilb,
    "injector": injector,
    "lattice": lattice,
    "mask": mask,
    "mondrian": mondrian,
    # Jin, Zhang, Das (ASAP): look-ahead repairs ("+") and + stratified pick-up ("++")
    "hilb+": hilb_plus,
    "hilb++": hilb_plus_plus,
    "mask+": mask_plus,
    "mask++": mask_plus_plus,
    "mondrian+": mondrian_plus,
    "mondrian++": mondrian_plus_plus,
}


def available() -> list[str]:
    """Names of the anonymizers."""
    return sorted(ALGORITHMS)


def parameters(algorithm: str) -> list[str]:
    """The keyword parameters an anonymizer accepts."""
    fn = _lookup(algorithm)
    return [p for p in inspect.signature(fn).parameters if p != "table"]


def anonymize(table: Table, algorithm: str, **params: object) -> Release:
    """Anonymize ``table`` with the algorithm called ``algorithm``.

    Parameters that the algorithm does not take raise an error naming them; ``None`` values are
    dropped so callers (the CLI) can pass every option they have.
    """
    fn = _lookup(algorithm)
    accepted = parameters(algorithm)
    params = {k: v for k, v in params.items() if v is not None}
    unknown = [p for p in params if p not in accepted]
    if unknown:
        raise AnonlabError(
            f"algorithm {algorithm!r} does not take parameter(s) {unknown}; it takes {accepted}"
        )
    return fn(table, **params)


def _lookup(algorithm: str) -> Callable[..., Release]:
    try:
        return ALGORITHMS[algorithm]
    except KeyError:
        raise AnonlabError(
            f"unknown algorithm {algorithm!r}; available: {', '.join(available())}"
        ) from None


__all__ = [
    "ALGORITHMS",
    "anatomy",
    "anonymize",
    "available",
    "generalize",
    "hilb",
    "injector",
    "lattice",
    "mask",
    "mondrian",
    "parameters",
]
