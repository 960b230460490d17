"""Anonymizers: each turns a :class:`~anonlab.table.Table` into a :class:`~anonlab.release.Release`.

Found by name through :func:`anonymize`, so the CLI, reports and experiments list them without
special cases.

pandas in: every anonymizer (and :func:`anonymize`) also takes a DataFrame with the keywords of
:meth:`Table.from_frame <anonlab.table.Table.from_frame>` (``quasi_identifiers=`` and
``sensitive=`` required), builds the Table and records each column's role in the manifest's
``column_roles`` (:func:`anonlab._validation.takes_table_or_frame`); any other first argument
raises an :class:`~anonlab.errors.AnonlabError` naming the type received and the one expected.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING

from anonlab._validation import frame_keywords, record_column_roles, table_from_input
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

if TYPE_CHECKING:
    import pandas as pd

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


#: Full-domain anonymizers: every quasi-identifier is published at a level of its hierarchy.
FULL_DOMAIN = ("generalize", "lattice")


def publication_scheme(algorithm: str, scheme: str | None = None) -> str | None:
    """How ``algorithm`` publishes its groups with ``scheme`` given (or its default):
    ``"generalization"`` or ``"bucketization"``, or None for a full-domain anonymizer, whose
    every quasi-identifier needs a hierarchy anyway. For checks made before the work, such as
    :func:`anonlab.release.require_no_value_sets`."""
    fn = _lookup(algorithm)
    if algorithm in FULL_DOMAIN:
        return None
    if scheme is not None:
        return scheme
    param = inspect.signature(fn).parameters.get("scheme")
    return "bucketization" if param is None else str(param.default)


def anonymize(table: Table | pd.DataFrame, algorithm: str, **params: object) -> Release:
    """Anonymize ``table`` with the algorithm called ``algorithm``.

    Parameters
    ----------
    table : Table or pandas.DataFrame
        A :class:`~anonlab.table.Table`, or a DataFrame together with the keywords of
        :meth:`Table.from_frame <anonlab.table.Table.from_frame>` (``quasi_identifiers=`` and
        ``sensitive=`` required; ``insensitive=``, ``identifiers=``, ``hierarchies=``, ...).
        From a DataFrame every column needs a role (a column given none is an error that lists
        it) and the manifest's ``column_roles`` records the role of each. Any other type raises
        an error naming the type received and how to make a Table.
    algorithm : str
        One of :func:`available`.
    **params
        The algorithm's parameters (:func:`parameters`). Parameters that the algorithm does not
        take raise an error naming them; ``None`` values are dropped so callers (the CLI) can
        pass every option they have.

    Returns
    -------
    Release
    """
    fn = _lookup(algorithm)
    accepted = parameters(algorithm)
    params = {k: v for k, v in params.items() if v is not None}
    from_frame = frame_keywords(exclude=accepted)
    frame_params = {k: params.pop(k) for k in list(params) if k in from_frame}
    source, roles = table_from_input(table, frame_params, where=f"anonymize({algorithm!r})")
    unknown = [p for p in params if p not in accepted]
    if unknown:
        raise AnonlabError(
            f"algorithm {algorithm!r} does not take parameter(s) {unknown}; it takes {accepted}"
        )
    return record_column_roles(fn(source, **params), roles)


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
