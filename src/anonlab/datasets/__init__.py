"""Real microdata shipped with anonlab, and generalization hierarchies for it.

Four datasets, read from package data only (no network, no path outside the package):

======================  ======  ================================================================
name                    rows    what
======================  ======  ================================================================
``adult``               45,222  UCI Adult, adult.data + adult.test, rows with a '?' removed
``adult-train``         30,162  the first 30,162 rows of ``adult`` (adult.data only)
``census-kdd``          99,762  UCI Census-Income (KDD) test half, 15 of 42 columns
``census-kdd-workers``  49,479  ``census-kdd`` rows that have an occupation
======================  ======  ================================================================

Hierarchy sets are named after their source: ``arx`` (ARX's Adult hierarchies), ``martin``
(Martin et al., ICDE 2007), ``li-injector`` (Li & Li, ICDE 2008, Table III) and ``jin-asap``
(Jin et al., Table 6; for Adult and Census-KDD). ``docs/datasets.md`` gives provenance,
licenses, the cleaning steps and the trees. ``scripts/build_datasets.py`` builds every file here.

Examples
--------
>>> from anonlab import datasets
>>> datasets.names()
['adult', 'adult-train', 'census-kdd', 'census-kdd-workers']
>>> frame = datasets.load_frame("adult-train")
>>> len(frame), datasets.info("adult-train").default_sensitive
(30162, 'occupation')
>>> sorted(datasets.load_hierarchies("adult", "martin"))
['age', 'marital-status', 'race', 'sex']
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy

__all__ = ["DatasetInfo", "info", "load_frame", "load_hierarchies", "names"]


@dataclass(frozen=True)
class DatasetInfo:
    """What the catalog says about one bundled dataset.

    Attributes
    ----------
    name : str
        The name to pass to :func:`load_frame` and :func:`load_hierarchies`.
    rows : int
        Number of rows of the loaded frame.
    description : str
        One paragraph: what the data is and which papers use this variant.
    source : str
        Where the data comes from: repository page and DOI.
    license : str
        The data's license (CC BY 4.0 for both UCI datasets).
    citation : str
        How to cite the data.
    numeric : tuple of str
        Columns loaded as int64; every other column holds Python ``str`` values.
    default_qi : tuple of str
        A sensible default set of quasi-identifiers.
    default_sensitive : str
        A sensible default sensitive attribute.
    hierarchy_sets : tuple of str
        Hierarchy sets available for this dataset, the default first.
    cleaning : str
        The cleaning steps, in words.
    columns : tuple of str
        All columns, in order.
    default_hierarchy_set : str
        The set :func:`load_hierarchies` uses when none is named.
    """

    name: str
    rows: int
    description: str
    source: str
    license: str
    citation: str
    numeric: tuple[str, ...]
    default_qi: tuple[str, ...]
    default_sensitive: str
    hierarchy_sets: tuple[str, ...]
    cleaning: str
    columns: tuple[str, ...] = ()
    default_hierarchy_set: str = ""


def names() -> list[str]:
    """Names of the bundled datasets.

    Returns
    -------
    list of str
        In catalog order: ``adult``, ``adult-train``, ``census-kdd``, ``census-kdd-workers``.
    """
    return list(_catalog()["datasets"])


def info(name: str) -> DatasetInfo:
    """Describe a bundled dataset without loading it.

    Parameters
    ----------
    name : str
        One of :func:`names`.

    Returns
    -------
    DatasetInfo

    Raises
    ------
    AnonlabError
        If ``name`` is not a bundled dataset (the message lists the valid names).
    """
    e = _entry(name)
    src = e["source"]
    return DatasetInfo(
        name=name,
        rows=int(e["rows"]),
        description=e["description"],
        source=f"{src['name']}, {src['url']}, {src['doi']}",
        license=e["license"],
        citation=e["citation"],
        numeric=tuple(e["numeric"]),
        default_qi=tuple(e["default_qi"]),
        default_sensitive=e["default_sensitive"],
        hierarchy_sets=tuple(e["hierarchy_sets"]),
        cleaning=e["cleaning"],
        columns=tuple(e["columns"]),
        default_hierarchy_set=e["default_hierarchy_set"],
    )


def load_frame(name: str) -> pd.DataFrame:
    """Load a bundled dataset as a DataFrame.

    Parameters
    ----------
    name : str
        One of :func:`names`.

    Returns
    -------
    pandas.DataFrame
        A fresh copy on every call (changing it does not change later loads), with index
        ``0..rows-1``, the numeric columns (:attr:`DatasetInfo.numeric`) as ``int64`` and the
        other columns as ``object`` holding Python ``str``.

    Raises
    ------
    AnonlabError
        If ``name`` is unknown, or if the installed data file is damaged.
    """
    e = _entry(name)
    base = _base_frame(e["file"], e["file_sha256"])
    sel = e["selection"] or {}
    mask = np.ones(len(base), dtype=bool)
    if "first_rows" in sel:
        mask[int(sel["first_rows"]) :] = False
    for col, excluded in sel.get("exclude", {}).items():
        mask &= ~base[col].isin(list(excluded)).to_numpy()
    frame = base.loc[mask].reset_index(drop=True).copy(deep=True)
    if len(frame) != e["rows"]:
        raise AnonlabError(
            f"bundled dataset {name!r} has {len(frame)} rows but its catalog entry says "
            f"{e['rows']}; the installed package data is inconsistent, reinstall anonlab"
        )
    return frame


def load_hierarchies(name: str, hierarchy_set: str | None = None) -> dict[str, Hierarchy]:
    """Load the generalization hierarchies of a bundled dataset.

    Parameters
    ----------
    name : str
        One of :func:`names`.
    hierarchy_set : str, optional
        One of :attr:`DatasetInfo.hierarchy_sets`; default: the dataset's default set
        (``arx`` for Adult, ``jin-asap`` for Census-KDD).

    Returns
    -------
    dict of str to Hierarchy
        One hierarchy per attribute the set covers (not every column has one). Every value of
        the attribute in the data is a leaf.

    Raises
    ------
    AnonlabError
        If ``name`` or ``hierarchy_set`` is unknown (the message lists the valid ones).
    """
    e = _entry(name)
    sets = list(e["hierarchy_sets"])
    chosen = e["default_hierarchy_set"] if hierarchy_set is None else hierarchy_set
    if chosen not in sets:
        raise AnonlabError(
            f"unknown hierarchy set {chosen!r} for dataset {name!r}; its sets are {', '.join(sets)}"
        )
    files = _catalog()["hierarchy_sets"][chosen]["bases"][e["hierarchy_base"]]
    out: dict[str, Hierarchy] = {}
    for attr, meta in files.items():
        with resources.as_file(_resource(meta["file"])) as path:
            out[attr] = Hierarchy.read_csv(path, name=attr)
    return out


# ---------------------------------------------------------------------------------- internals


def _resource(relative: str) -> Traversable:
    ref = resources.files(__name__)
    for part in relative.split("/"):
        ref = ref.joinpath(part)
    return ref


@functools.cache
def _catalog() -> dict:
    return json.loads(_resource("catalog.json").read_text(encoding="utf-8"))


def _entry(name: str) -> dict:
    datasets = _catalog()["datasets"]
    if not isinstance(name, str) or name not in datasets:
        raise AnonlabError(
            f"unknown dataset {name!r}; the bundled datasets are {', '.join(datasets)}"
        )
    return datasets[name]


@functools.cache
def _base_frame(file: str, sha256: str) -> pd.DataFrame:
    """The whole Parquet file as a DataFrame (cached; callers copy before returning it)."""
    data = _resource(file).read_bytes()
    if hashlib.sha256(data).hexdigest() != sha256:
        raise AnonlabError(
            f"bundled data file {file!r} does not match its catalog checksum; the installed "
            "package data is damaged, reinstall anonlab"
        )
    table = pq.read_table(pa.BufferReader(data))
    columns: dict[str, np.ndarray] = {}
    for field, chunked in zip(table.schema, table.columns, strict=True):
        if pa.types.is_integer(field.type):
            columns[field.name] = chunked.to_numpy().astype(np.int64)
        else:
            # Dictionary-encode so each distinct value is one Python str shared by its rows.
            enc = chunked.combine_chunks().dictionary_encode()
            labels = np.array(enc.dictionary.to_pylist(), dtype=object)
            columns[field.name] = labels[enc.indices.to_numpy()]
    return pd.DataFrame({k: pd.Series(v, dtype=v.dtype, copy=False) for k, v in columns.items()})
