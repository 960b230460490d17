"""What a search over the generalization lattice takes: the privacy model and its parameters,
a table with a hierarchy on every quasi-identifier, a lattice small enough to list, and whether
the model lets a failing node prune the nodes below it.

The checks are shared by the exact search (:func:`anonlab.anonymize.lattice.lattice`) and the
heuristic one (:func:`anonlab.anonymize.lightning.lightning`), so both refuse the same inputs
with the same messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from anonlab import models
from anonlab._validation import check_choice, check_float, check_seed
from anonlab.errors import AnonlabError
from anonlab.release import SCHEMES
from anonlab.table import Table

#: The privacy models' parameters the lattice searches take, in the order the manifest lists them
#: (as :func:`anonlab.models.check` takes them).
MODEL_PARAMETERS = ("k", "l", "c", "t", "m", "distance", "sensitive_values")


def model_parameters(model: str, **given: object) -> tuple[str, dict]:
    """The model's registered name and the parameters given (those not None), as the lattice
    searches pass them to the model's check. ``model`` may name several models at once,
    joined by :data:`anonlab.models.COMBINATION` (``"k-anonymity,distinct-l-diversity"``) or
    as a sequence: a node must satisfy all, as ARX combines criteria; each takes the
    parameters it has (``k`` to k-anonymity, ``l`` to each ℓ-model).

    ``given``: any of :data:`MODEL_PARAMETERS` (``k``, ``l``, ``c``, ``t``, ``m``,
    ``distance``, ``sensitive_values``), as :func:`~anonlab.anonymize.lattice.lattice` takes
    them; ``sensitive_values`` becomes a list.

    Raises
    ------
    AnonlabError
        For a model that :mod:`anonlab.models` does not know.
    TypeError
        For a keyword that is not one of :data:`MODEL_PARAMETERS`.
    """
    unknown = [key for key in given if key not in MODEL_PARAMETERS]
    if unknown:
        raise TypeError(f"model_parameters() got unexpected keyword arguments {unknown}")
    name = models.combined_name(model)  # raises naming an unknown model
    params = {key: given[key] for key in MODEL_PARAMETERS if given.get(key) is not None}
    if "sensitive_values" in params:
        params["sensitive_values"] = list(params["sensitive_values"])
    return name, params


def searchable_table(table: Table) -> Table:
    """``table`` with automatic intervals for numbers without a hierarchy, checked to have a
    hierarchy on every quasi-identifier (what a search over the generalization lattice needs).

    Raises
    ------
    AnonlabError
        Naming a quasi-identifier that has no hierarchy.
    """
    table = table.with_automatic_intervals()  # a number without a hierarchy gets intervals
    for q in table.quasi_identifiers:
        if table.schema[q].hierarchy is None:
            raise AnonlabError(
                f"quasi-identifier {q!r} has no hierarchy; the lattice search needs one per "
                "quasi-identifier (a builder: `anonlab hierarchy build` or a schema file; "
                "--hierarchies DIR; or a bundled --hierarchy-set)"
            )
    return table


#: The most nodes the exact search (:func:`~anonlab.anonymize.lattice.lattice`) lists: beyond this
#: (10 and more quasi-identifiers, ~250 MB of node rows at 2.6 million nodes) it refuses and
#: names the heuristic search.
MAX_NODES = 1_000_000


def check_lattice_size(heights: np.ndarray) -> None:
    """Refuse a lattice of more than :data:`MAX_NODES` nodes (``heights``: each
    quasi-identifier's hierarchy height), naming its size and the heuristic search.

    Raises
    ------
    AnonlabError
        Naming the number of nodes, the quasi-identifiers' levels, and ``lightning``.
    """
    n_nodes = int(np.prod([float(h) + 1 for h in np.asarray(heights).tolist()]))
    if n_nodes > MAX_NODES:
        shape = " x ".join(str(int(h) + 1) for h in np.asarray(heights).tolist())
        raise AnonlabError(
            f"the generalization lattice of the {len(heights)} quasi-identifiers has "
            f"{n_nodes:,} nodes ({shape} levels), more than the exact search lists "
            f"({MAX_NODES:,}); use the heuristic search, which checks nodes within a budget and "
            "reports its gap to the optimum: `anonlab anonymize --algorithm lightning "
            "--max-checks N` (anonlab.anonymize.lightning.lightning(table, model, ..., "
            "max_checks=N)), or use fewer quasi-identifiers or shallower hierarchies"
        )


def check_model_fits(table: Table, model: str, params: dict) -> None:
    """Refuse, before any search, a table that lacks what ``model`` needs with ``params``
    (:meth:`anonlab.models.Model.missing`: a sensitive attribute, a hierarchy on it).

    Raises
    ------
    AnonlabError
        Naming the model and what the table lacks.
    """
    lacks = [
        need
        for spec in models.parts(model)
        for need in spec.missing(table, **models.parameters_for(spec, params))
    ]
    if lacks:
        raise AnonlabError(
            f"the lattice search for {model} needs {' and '.join(lacks)}; the table has none"
        )


def prunes_failures(model: str, limit: int) -> bool:
    """Whether a node that fails ``model`` (with at most ``limit`` records suppressed) proves
    that every more specific node fails, so that a search may skip them: the model's
    ``monotone`` without suppression, its ``monotone_with_suppression`` with it
    (:class:`anonlab.models.Model`). Otherwise every node is judged by its own check.

    A combination of models prunes when every one of them does: a failing node fails some
    model, which then fails below it too; and where every model's violating classes only
    violate when all their parts do (``monotone_with_suppression``), so do the classes that
    violate any of them, so the suppressed records never grow as classes merge."""
    return all(
        spec.monotone and (limit == 0 or spec.monotone_with_suppression)
        for spec in models.parts(model)
    )


class SearchInputs(NamedTuple):
    """A lattice search's arguments as :func:`search_inputs` checks them."""

    #: As :func:`searchable_table` returns it.
    table: Table
    #: The model's registered name and its parameters (:func:`model_parameters`).
    model: str
    params: dict
    metric: str
    scheme: str
    #: The share of records that may be suppressed, and their number: ``floor(suppression * n)``.
    suppression: float
    limit: int
    seed: int


def search_inputs(
    table: Table,
    model: str,
    *,
    metrics: Sequence[str],
    metric: str,
    scheme: str,
    suppression: float,
    seed: int,
    **given: object,
) -> SearchInputs:
    """The arguments that :func:`~anonlab.anonymize.lattice.lattice` and
    :func:`~anonlab.anonymize.lightning.lightning` share, checked in this order: ``metric``
    (one of ``metrics``), ``scheme``, ``suppression`` (a share in [0, 1]), ``seed``, the model
    and its parameters ``given`` (:func:`model_parameters`), and the table
    (:func:`searchable_table`); the suppression limit is counted in records of that table.

    Raises
    ------
    AnonlabError
        Naming the first argument that is not valid.
    """
    metric = check_choice("metric", metric, metrics)
    scheme = check_choice("scheme", scheme, SCHEMES)
    suppression = check_float("suppression", suppression, low=0.0, high=1.0)
    seed = check_seed(seed)
    model, params = model_parameters(model, **given)
    table = searchable_table(table)
    limit = int(np.floor(suppression * table.n_rows + 1e-9))
    return SearchInputs(table, model, params, metric, scheme, suppression, limit, seed)
