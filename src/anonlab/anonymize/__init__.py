"""Anonymizers: each turns a :class:`~anonlab.table.Table` into a :class:`~anonlab.release.Release`.

Found by name through :func:`anonymize`, so the CLI, reports and experiments list them without
special cases. Each has one :class:`~anonlab.anonymize.registry.Anonymizer` record in
:data:`ANONYMIZERS` (its paper, default scheme, memory constant, Dask partitioning, how
``compare`` gives it ℓ); everything here reads those records.

pandas in: every anonymizer (and :func:`anonymize`) also takes a DataFrame with the keywords of
:meth:`Table.from_frame <anonlab.table.Table.from_frame>` (``quasi_identifiers=`` and
``sensitive=`` required), builds the Table and records each column's role in the manifest's
``column_roles`` (:func:`anonlab._validation.takes_table_or_frame`); any other first argument
raises an :class:`~anonlab.errors.AnonlabError` naming the type received and the one expected.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from anonlab._validation import frame_keywords, record_column_roles, table_from_input
from anonlab.anonymize.anatomy import anatomy
from anonlab.anonymize.generalize import generalize
from anonlab.anonymize.hilb import hilb
from anonlab.anonymize.injector import injector
from anonlab.anonymize.lattice import lattice
from anonlab.anonymize.mask import mask
from anonlab.anonymize.mondrian import mondrian
from anonlab.anonymize.registry import (
    ANONYMIZERS,
    Anonymizer,
    FieldView,
    get,
    register,
    registered,
    unregister,
)
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.table import Table

if TYPE_CHECKING:
    import pandas as pd

#: ``ANONYMIZERS``: name -> :class:`Anonymizer`, every fact about each anonymizer
#: (:mod:`.registry`). ``ALGORITHMS``: name -> function(table, **parameters) -> Release,
#: read live from ``ANONYMIZERS``.
ALGORITHMS: Mapping[str, Callable[..., Release]] = FieldView("function")


def available() -> list[str]:
    """Names of the anonymizers."""
    return sorted(ANONYMIZERS)


def parameters(algorithm: str) -> list[str]:
    """The keyword parameters an anonymizer accepts."""
    return list(get(algorithm).parameters)


class _FullDomain(Sequence[str]):
    """The full-domain anonymizers' names, read live from the registry."""

    def _names(self) -> list[str]:
        return [a.name for a in ANONYMIZERS.values() if a.full_domain]

    def __getitem__(self, index):  # type: ignore[override]
        return self._names()[index]

    def __len__(self) -> int:
        return len(self._names())

    def __repr__(self) -> str:
        return repr(tuple(self._names()))


#: Full-domain anonymizers: every quasi-identifier is published at a level of its hierarchy
#: (:attr:`Anonymizer.full_domain`).
FULL_DOMAIN: Sequence[str] = _FullDomain()


def publication_scheme(algorithm: str, scheme: str | None = None) -> str | None:
    """How ``algorithm`` publishes its groups with ``scheme`` given (or its default,
    :attr:`Anonymizer.scheme`): ``"generalization"`` or ``"bucketization"``, or None for a
    full-domain anonymizer, whose every quasi-identifier needs a hierarchy anyway. For checks
    made before the work, such as :func:`anonlab.release.require_no_value_sets`."""
    record = get(algorithm)
    if record.full_domain:
        return None
    return record.scheme if scheme is None else scheme


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
    several = source.sensitive_attributes
    if len(several) > 1 and not get(algorithm).several_sensitive:
        takes = [a.name for a in ANONYMIZERS.values() if a.several_sensitive]
        raise AnonlabError(
            f"algorithm {algorithm!r} protects one sensitive attribute and the table has "
            f"{len(several)} ({', '.join(several)}); the algorithms that protect several at "
            f"once are {', '.join(takes)}; or name one (--sensitive {several[0]})"
        )
    return record_column_roles(fn(source, **params), roles)


def _lookup(algorithm: str) -> Callable[..., Release]:
    return get(algorithm).function


__all__ = [
    "ALGORITHMS",
    "ANONYMIZERS",
    "FULL_DOMAIN",
    "Anonymizer",
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
    "publication_scheme",
    "register",
    "registered",
    "unregister",
]
