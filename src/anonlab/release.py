"""The published table T*: a group id per record, how the groups are published, and provenance.

A :class:`Release` is the publisher's copy. It holds the original :class:`~anonlab.table.Table`
(ground truth: original sensitive values and input row ids) beside what is published, so that
attacks can be scored. What an attacker sees is :meth:`Release.published`, a
:class:`PublishedView` that carries no original sensitive value and no input row id.
As DataFrames: :meth:`Release.published_frames` is what is published (the files of a release's
``published/`` folder), :meth:`Release.publisher_frame` the ground truth, never to be published.

Two publishing schemes (Xiao & Tao, VLDB 2006; Wong et al., "foreground knowledge", §2):

* *generalization*: each record's quasi-identifiers are replaced by its group's generalized
  values — for a numeric attribute the range ``[min-max]`` of the group, for a categorical one the
  lowest common ancestor of the group's values in the attribute's hierarchy, or, without a
  hierarchy, the set of values that occur in the group (``{a,b}``; a value with ``,``, ``{``,
  ``}`` or ``\\`` in it, or the value ``*``, is escaped with a backslash: see
  :func:`escape_member` for the grammar). Sensitive values are listed per record.
* *bucketization* (Anatomy): a quasi-identifier table (QIT) with exact values and the group id,
  and a sensitive table (ST) of (group, value, count).

Choice where the papers are silent: numeric ranges are the group's own minimum and maximum (as
Mondrian publishes them), not hierarchy intervals; under the uniformity assumption used for
estimation, a range covers the distinct values of the attribute's domain between its ends.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from anonlab._version import __version__
from anonlab.errors import AnonlabError
from anonlab.grouping import dense_group_ids, group_histogram, group_min_max, group_sizes
from anonlab.schema import Kind
from anonlab.table import Table

if TYPE_CHECKING:
    import pandas as pd

SCHEMES = ("generalization", "bucketization")


@dataclass(frozen=True)
class GeneralizedAttribute:
    """How one quasi-identifier is published under generalization, per group.

    Attributes
    ----------
    name : str
    labels : ndarray of shape (n_groups,), dtype=object
        The published value of each group (``[20-29]``, a hierarchy node, ``{a,b}``).
    lo, hi : ndarray of shape (n_groups,), dtype=int32
        For numeric attributes: the covered code range (inclusive).
    mask : ndarray of shape (n_groups, n_values), dtype=bool, or None
        For categorical attributes: which values each group's published value covers. Built
        on first use from ``mask_factory``: it is ``n_groups x n_values`` booleans (4.4 GB for
        200,000 groups over 22,000 birth dates), and the export needs only the labels.
    """

    name: str
    labels: np.ndarray
    lo: np.ndarray | None = None
    hi: np.ndarray | None = None
    mask_factory: Callable[[], np.ndarray] | None = field(default=None, repr=False, compare=False)

    @cached_property
    def mask(self) -> np.ndarray | None:
        """See the class docstring."""
        return None if self.mask_factory is None else self.mask_factory()

    def cover_size(self) -> np.ndarray:
        """Number of domain values each group's published value covers."""
        if self.mask is not None:
            return self.mask.sum(axis=1)
        return (self.hi - self.lo + 1).astype(np.int64)

    def covered(self, predicate: np.ndarray) -> np.ndarray:
        """Per group, how many covered values a predicate (bool mask over the domain) selects."""
        if self.mask is not None:
            return self.mask.astype(np.int64) @ predicate.astype(np.int64)
        cum = np.r_[0, np.cumsum(predicate, dtype=np.int64)]
        return cum[self.hi + 1] - cum[self.lo]


@dataclass(frozen=True)
class PublishedView:
    """What the adversary sees: no original sensitive value, no input row id.

    Record ``i`` of the view is record ``i`` of the table (the worst-case assumption of the
    literature: the adversary knows each target's exact quasi-identifiers and group).
    """

    scheme: str
    quasi_identifiers: tuple[str, ...]
    sensitive: str
    sensitive_values: np.ndarray
    group: np.ndarray
    n_groups: int
    sensitive_histogram: np.ndarray
    qi_codes: dict[str, np.ndarray] = field(repr=False)
    generalization: dict[str, GeneralizedAttribute] | None = field(default=None, repr=False)


class Release:
    """T*, the publisher's copy: groups, scheme, published sensitive values and manifest.

    Parameters
    ----------
    table : Table
        The original table (ground truth).
    group : ndarray of shape (n_rows,)
        Group (QI-group, equivalence class, bucket) of each record; renumbered to 0..G-1.
    scheme : {"generalization", "bucketization"}
    manifest : dict
        How the release was made: algorithm, parameters, seed. Schema, sizes and the anonlab
        version are added here.
    published_sensitive : ndarray of shape (n_rows,), optional
        Sensitive codes as published, where an algorithm perturbs them (MASK); default: original.
    """

    def __init__(
        self,
        table: Table,
        group: np.ndarray,
        scheme: str,
        manifest: dict | None = None,
        published_sensitive: np.ndarray | None = None,
        levels: dict[str, int] | None = None,
        reference_counts: np.ndarray | None = None,
    ) -> None:
        if scheme not in SCHEMES:
            raise AnonlabError(f"scheme must be one of {list(SCHEMES)}, got {scheme!r}")
        group = np.asarray(group)
        if group.shape != (table.n_rows,):
            raise AnonlabError(
                f"group must have one id per record ({table.n_rows}), got shape {group.shape}"
            )
        several = table.sensitive_attributes
        if len(several) > 1 and (scheme == "bucketization" or published_sensitive is not None):
            raise AnonlabError(
                f"the table has {len(several)} sensitive attributes ({', '.join(several)}): a "
                "bucketized or perturbed release publishes one sensitive attribute per group "
                "(Anatomy's sensitive table, MASK's perturbed values); publish several by "
                "generalization (mondrian, lattice, lightning, generalize), or name one "
                f"(--sensitive {several[0]})"
            )
        if not several and (scheme == "bucketization" or published_sensitive is not None):
            raise AnonlabError(
                "a bucketized release publishes each group's sensitive values: the table needs a "
                "sensitive attribute (--sensitive); without one, publish by generalization "
                "(k-anonymity: mondrian --k, lattice --model k-anonymity, generalize)"
            )
        self.table = table
        self.group, self.n_groups = _dense_ids(group)
        self.scheme = scheme
        self.group.flags.writeable = False
        if published_sensitive is not None:
            published_sensitive = np.array(published_sensitive, dtype=np.int32)
            n_values = table.domain_size(table.sensitive)
            if published_sensitive.shape != (table.n_rows,) or (
                len(published_sensitive)
                and (published_sensitive.min() < 0 or published_sensitive.max() >= n_values)
            ):
                raise AnonlabError(
                    f"published_sensitive must hold one code in 0..{n_values - 1} per record "
                    f"({table.n_rows}); got shape {published_sensitive.shape}"
                )
            published_sensitive.flags.writeable = False
        self.published_sensitive = published_sensitive
        # The secret that orders the export (anonlab.export_order); drawn when first saved.
        self.export_key: bytes | None = None
        manifest = dict(manifest or {})
        manifest.setdefault("algorithm", "unknown")
        manifest.setdefault("parameters", {})
        manifest.setdefault("seed", None)
        manifest["scheme"] = scheme
        manifest["schema"] = table.schema.to_json()
        manifest["rows"] = int(table.n_rows)
        manifest["groups"] = int(self.n_groups)
        manifest["dropped"] = dict(table.dropped)
        if table.types:  # how each column's type was decided (dates are read back as dates)
            manifest.setdefault("column_types", {k: dict(v) for k, v in table.types.items()})
        manifest["perturbed_records"] = int(
            0
            if self.published_sensitive is None
            else np.count_nonzero(
                self.published_sensitive != table.codes[table.require_sensitive()]
            )
        )
        manifest.setdefault("anonlab_version", __version__)
        # Sensitive counts of the whole input when records were withheld (suppression): the
        # reference distribution of t-closeness, as ARX computes it.
        self.reference_counts = (
            None
            if reference_counts is None
            else _read_only(np.array(reference_counts, dtype=np.int64))
        )
        self.levels = None if levels is None else self._check_levels(levels)
        if self.levels is not None:
            manifest["levels"] = dict(self.levels)
        if self.reference_counts is not None:
            manifest["reference_counts"] = self.reference_counts.tolist()
        self.manifest = manifest

    def for_sensitive(self, name: str) -> Release:
        """This release (its groups, levels, manifest) with ``name`` its one sensitive attribute
        and the other sensitive attributes insensitive (:meth:`Table.for_sensitive
        <anonlab.table.Table.for_sensitive>`): what a check or an attack that reads one
        sensitive attribute sees, run once per attribute of a release with several. With
        several, ``reference_counts`` holds each attribute's counts one after the other, in the
        order of ``table.sensitive_attributes``; the view takes its own, and so does a search
        candidate (:meth:`_from_statistics`) from its histogram, which then holds each
        attribute's counts side by side."""
        table = self.table
        names = table.sensitive_attributes
        view_table = table.for_sensitive(name)  # raises for a name that is not sensitive
        sizes = [table.domain_size(a) for a in names]
        start = sum(sizes[: names.index(name)])
        stop = start + table.domain_size(name)
        reference = self.reference_counts
        if reference is not None and len(names) > 1:
            reference = reference[start:stop]
        if self.group is None:  # a search candidate: its histogram holds every attribute's
            full = self._histogram
            return Release._from_statistics(
                view_table, self.n_groups, self.group_sizes,
                (lambda: full()[:, start:stop]) if len(names) > 1 else full,
                self.scheme, reference,
            )  # fmt: skip
        out = Release.__new__(Release)
        out.__dict__.update(self.__dict__)  # groups, sizes and generalization are shared
        out.__dict__.pop("sensitive_histogram", None)  # the one cache that reads the attribute
        out.table = view_table
        out.reference_counts = reference
        return out

    @classmethod
    def _from_statistics(
        cls,
        table: Table,
        n_groups: int,
        sizes: np.ndarray,
        histogram: Callable[[], np.ndarray],
        scheme: str = "generalization",
        reference_counts: np.ndarray | None = None,
    ) -> Release:
        """A release known only by its per-group statistics, for checking many candidate
        partitions fast (the lattice search). It has no per-record groups: only
        ``group_sizes``, ``sensitive_histogram`` and what they imply can be asked of it.
        ``histogram`` is called only if a check asks for the sensitive histogram.
        """
        self = cls.__new__(cls)
        self.table = table
        self.group = None
        self.n_groups = int(n_groups)
        self.scheme = scheme
        self.published_sensitive = None
        self.export_key = None
        self.levels = None
        self.reference_counts = (
            None
            if reference_counts is None
            else _read_only(np.asarray(reference_counts, dtype=np.int64))
        )
        self.manifest = {"algorithm": "candidate", "scheme": scheme}
        self.__dict__["group_sizes"] = _read_only(np.asarray(sizes, dtype=np.int64))
        self._histogram = histogram
        return self

    def _check_levels(self, levels: dict[str, int]) -> dict[str, int]:
        """Full-domain generalization: every group must share one node per quasi-identifier.

        Each quasi-identifier's codes are mapped to their nodes on the domain (small), and one
        compiled pass over the records compares each record's nodes with its group's first
        record's (:func:`_first_split_attribute`)."""
        out, node_of_code = {}, []
        for q in self.quasi_identifiers:
            if q not in levels:
                raise AnonlabError(f"levels: no level given for quasi-identifier {q!r}")
            h = self.table.schema[q].hierarchy
            if h is None:
                raise AnonlabError(f"levels: quasi-identifier {q!r} has no hierarchy")
            out[q] = int(levels[q])
            node_of_code.append(
                np.ascontiguousarray(h.map(out[q])[self.table.leaf_codes(q)], dtype=np.int64)
            )
        if not out:
            return out
        split = _compiled(_first_split_attribute)(
            np.ascontiguousarray(self.group, dtype=np.int32), self.n_groups,
            tuple(np.ascontiguousarray(self.table.codes[q], dtype=np.int32) for q in out),
            tuple(node_of_code),
        )  # fmt: skip
        if split >= 0:
            q = list(out)[split]
            raise AnonlabError(
                f"levels: a group holds two different nodes of {q!r} at level {out[q]}; "
                "full-domain groups are the classes of equal generalized values"
            )
        return out

    def __repr__(self) -> str:
        return (
            f"Release({self.manifest['algorithm']!r}, scheme={self.scheme!r}, "
            f"rows={self.table.n_rows}, groups={self.n_groups})"
        )

    # ------------------------------------------------------------------ basics
    @property
    def quasi_identifiers(self) -> tuple[str, ...]:
        return self.table.quasi_identifiers

    @property
    def sensitive(self) -> str:
        """The sensitive attribute's name; a release without one (plain k-anonymity) raises, as
        everything that asks for it needs sensitive values that release does not have."""
        if self.table.sensitive is None:
            raise AnonlabError(
                "this release has no sensitive attribute (plain k-anonymity): there are no "
                "sensitive values to attack, check or count"
            )
        return self.table.sensitive

    @property
    def sensitive_codes(self) -> np.ndarray:
        """The sensitive codes as published (perturbed where the algorithm perturbs)."""
        if self.published_sensitive is not None:
            return self.published_sensitive
        return self.table.codes[self.sensitive]

    @cached_property
    def group_sizes(self) -> np.ndarray:
        return _read_only(group_sizes(self.group, self.n_groups))

    @cached_property
    def sensitive_histogram(self) -> np.ndarray:
        """Published sensitive counts, shape (n_groups, n_sensitive_values)."""
        if self.group is None:  # a candidate known by its statistics (_from_statistics)
            return _read_only(np.asarray(self._histogram(), dtype=np.int64))
        return _read_only(
            group_histogram(
                self.group,
                self.sensitive_codes,
                self.n_groups,
                self.table.domain_size(self.sensitive),
            )
        )

    def sensitive_mask(self, sensitive_values: Sequence[str] | None) -> np.ndarray:
        """Bool mask over the sensitive domain for a list of value labels (None: all values)."""
        return self.table.value_mask(self.sensitive, sensitive_values)

    # ------------------------------------------------------------------ published form
    @cached_property
    def generalization(self) -> dict[str, GeneralizedAttribute]:
        """Each quasi-identifier's published value per group, under the generalization scheme."""
        return {q: self._generalize(q) for q in self.quasi_identifiers}

    @cached_property
    def _group_order(self) -> np.ndarray:
        """The records sorted by group (one sort shared by every attribute's code range)."""
        return np.argsort(self.group, kind="stable")

    def code_range(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Each group's smallest and largest code of attribute ``name``."""
        return group_min_max(
            self.group, self.table.codes[name], self.n_groups, order=self._group_order
        )

    def _generalize(self, name: str) -> GeneralizedAttribute:
        table = self.table
        att = table.schema[name]
        codes = table.codes[name]
        values = table.values[name]
        lo, hi = self.code_range(name)
        if self.levels is not None:
            return self._generalize_at_level(name, lo)
        if att.kind is Kind.NUMERIC:
            # Labels are built once per distinct (lo, hi) pair, not once per group.
            pairs, inverse = np.unique(np.stack([lo, hi]), axis=1, return_inverse=True)
            texts = np.array(
                [
                    f"{values[a]}" if a == b else f"[{values[a]}-{values[b]}]"
                    for a, b in pairs.T.tolist()
                ],
                dtype=object,
            )
            return GeneralizedAttribute(
                name, texts[inverse.ravel()], lo=lo.astype(np.int32), hi=hi.astype(np.int32)
            )
        if att.hierarchy is not None:
            h = att.hierarchy
            leaf = table.leaf_codes(name)
            level = h.lowest_common_level(leaf[lo], leaf[hi])
            node = h.matrix[leaf[lo], level]
            per_value = h.matrix[leaf]  # (n_values, height + 1)
            offsets = np.cumsum([0] + [len(h.labels(j)) for j in range(h.height + 1)])
            all_labels = np.concatenate([h.labels(j) for j in range(h.height + 1)])
            return GeneralizedAttribute(
                name,
                all_labels[offsets[level] + node],
                mask_factory=lambda: per_value[:, level].T == node[:, None],
            )
        mask = group_histogram(self.group, codes, self.n_groups, len(values)) > 0
        rows, inverse = np.unique(mask, axis=0, return_inverse=True)
        members = np.array([escape_member(str(v)) for v in values], dtype=object)
        texts = np.array([set_label(members[row]) for row in rows], dtype=object)
        return GeneralizedAttribute(name, texts[inverse.ravel()], mask_factory=lambda: mask)

    def _generalize_at_level(self, name: str, some_code: np.ndarray) -> GeneralizedAttribute:
        """Full-domain generalization: each group publishes its node at the attribute's level."""
        table = self.table
        h = table.schema[name].hierarchy
        level = self.levels[name]
        per_value = h.map(level)[table.leaf_codes(name)]  # code -> node at the level
        node = per_value[some_code]
        labels = h.labels(level)[node]
        if table.schema[name].kind is Kind.NUMERIC:  # numeric: the covered code range
            mask = per_value[None, :] == node[:, None]
            lo = np.argmax(mask, axis=1).astype(np.int32)
            hi = (mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)).astype(np.int32)
            return GeneralizedAttribute(name, labels, lo=lo, hi=hi)
        return GeneralizedAttribute(
            name, labels, mask_factory=lambda: per_value[None, :] == node[:, None]
        )

    def published(self) -> PublishedView:
        """The adversary's view of this release (see :class:`PublishedView`)."""
        return PublishedView(
            scheme=self.scheme,
            quasi_identifiers=self.quasi_identifiers,
            sensitive=self.sensitive,
            sensitive_values=self.table.values[self.sensitive],
            group=self.group,
            n_groups=self.n_groups,
            sensitive_histogram=self.sensitive_histogram,
            qi_codes={q: self.table.codes[q] for q in self.quasi_identifiers},
            generalization=self.generalization if self.scheme == "generalization" else None,
        )

    # ------------------------------------------------------------------ pandas out
    def published_frames(self) -> dict[str, pd.DataFrame]:
        """What is published, as DataFrames: exactly the files of ``published/``.

        This is what may leave the publisher. Under generalization: ``{"generalized": frame}``
        (a group id, each quasi-identifier's published value, the insensitive columns, the
        published sensitive value); under bucketization: ``{"qit": frame, "st": frame}`` (exact
        quasi-identifiers with a group id; each group's sensitive values as counts). Rows and
        group ids are in the order of the release's secret export key
        (:mod:`anonlab.export_order`), never the input's, and sensitive values are the
        *published* ones (perturbed where the algorithm perturbs them, as MASK does); no input
        row id is included. The frames are those :func:`anonlab.release_io.save_release` writes
        as ``published/generalized.csv`` or ``published/qit.csv`` and ``published/st.csv``,
        cell for cell, except that the spreadsheet formula guard is a CSV concern and is not
        applied here (:mod:`anonlab.formula_guard`): guard text cells before writing them to a
        file a spreadsheet may open.

        A release without an export key gets a fresh one here (kept on the release), so a later
        ``save_release(release, ...)`` writes these same rows in this same order.

        The publisher's ground truth is elsewhere and must never be published:
        :meth:`publisher_frame` (or ``release.table.to_frame()``) holds the original values,
        the input row ids and the internal group of every record.

        Returns
        -------
        dict of str to pandas.DataFrame
            Keys ``"generalized"``, or ``"qit"`` and ``"st"``.
        """
        from anonlab.release_io import bucketized_frames, generalized_frame

        self._require_groups("published_frames")
        if self.scheme == "generalization":
            return {"generalized": generalized_frame(self)}
        qit, st = bucketized_frames(self)
        return {"qit": qit, "st": st}

    def publisher_frame(self) -> pd.DataFrame:
        """The publisher's ground truth as one DataFrame: **never to be published**.

        One row per record in input order: the input row id (``__row_id__``), the record's
        internal group id (``__group__``, the algorithm's numbering, not the published one), every
        attribute's original value, and, where the algorithm perturbs sensitive values, the
        published one (``__published_sensitive__``). It is the content of the release folder's
        ``publisher/records.parquet``; attacks are scored against it. What may be published is
        :meth:`published_frames`.
        """
        from anonlab.table import GROUP_ID_COLUMN, PUBLISHED_SENSITIVE_COLUMN, ROW_ID_COLUMN

        self._require_groups("publisher_frame")
        frame = self.table.to_frame()
        frame.insert(0, GROUP_ID_COLUMN, self.group)
        frame.insert(0, ROW_ID_COLUMN, self.table.row_id)
        if self.published_sensitive is not None:
            values = self.table.values[self.sensitive]
            frame[PUBLISHED_SENSITIVE_COLUMN] = values[self.published_sensitive]
        return frame

    def _require_groups(self, what: str) -> None:
        if self.group is None:
            raise AnonlabError(
                f"{what}: this release is a search candidate known only by its group statistics "
                "(no group per record); use a release returned by an anonymizer"
            )

    def with_truth(self, sensitive_codes: np.ndarray) -> Release:
        """This release (groups, scheme, levels, published sensitive values, manifest) over a
        table whose *original* sensitive values are ``sensitive_codes``.

        The published sensitive values stay as published: a release that perturbs them (MASK)
        keeps its ``published_sensitive``; any other publishes the per-group histogram of its
        table, so ``sensitive_codes`` must keep each group's multiset for the published files
        to stay the same (:meth:`with_truth_permuted` and :meth:`adversary_copy` do).
        """
        self._require_groups("with_truth")
        table = self.table
        codes = dict(table.codes)
        codes[table.require_sensitive()] = np.asarray(sensitive_codes, dtype=np.int32)
        new_table = type(table)(
            table.schema, codes, table.values, table.row_id, table.dropped, table.types
        )
        out = Release(
            new_table,
            self.group,
            self.scheme,
            dict(self.manifest),
            self.published_sensitive,
            self.levels,
            self.reference_counts,
        )
        out.manifest = dict(self.manifest)  # what was published (perturbed_records) is unchanged
        return out

    def with_truth_permuted(self, rng: np.random.Generator) -> Release:
        """The same published release over a different ground truth: the original sensitive
        values permuted at random among the members of each group (``rng``).

        Every published file is unchanged (each group's sensitive multiset, its quasi-identifier
        ranges and, under MASK, the perturbed values); only the record-to-value link the
        publisher keeps differs. An attack that reads only what is published gives the same
        output on both (the ground-truth scramble test of issue 18, item 2).
        """
        self._require_groups("with_truth_permuted")
        truth = np.asarray(self.table.codes[self.sensitive])
        by_group = np.argsort(self.group, kind="stable")
        shuffled = np.lexsort((rng.random(len(truth)), self.group))
        codes = np.empty_like(truth)
        codes[by_group] = truth[shuffled]
        return self.with_truth(codes)

    def adversary_copy(self) -> Release:
        """What an attacker can rebuild from the published files: this release with the ground
        truth replaced by the *published* sensitive values, sorted by code within each group.

        Under bucketization and generalization that is each group's published multiset laid
        over its members in record order; under MASK the perturbed values themselves. Nothing
        of the original record-to-value link is left, so an attack run on the copy reads the
        truth by construction only through what is published (:func:`anonlab.attacks.contract.run`
        gives attacks this copy; scoring reads ``self``).
        """
        self._require_groups("adversary_copy")
        published = np.asarray(self.sensitive_codes)
        by_group = np.argsort(self.group, kind="stable")
        canonical = np.lexsort((published, self.group))
        codes = np.empty_like(published)
        codes[by_group] = published[canonical]
        out = self.with_truth(codes)
        if self.published_sensitive is not None:
            out.published_sensitive = _read_only(codes.astype(np.int32))
        return out

    def with_scheme(self, scheme: str) -> Release:
        """The same groups published under the other scheme."""
        return Release(
            self.table,
            self.group,
            scheme,
            dict(self.manifest),
            self.published_sensitive,
            self.levels,
            self.reference_counts,
        )


# ---------------------------------------------------------------------------------------------
def value_set_columns(table: Table) -> list[str]:
    """Quasi-identifiers that a generalized release would publish as the set of each group's
    values without the publisher having chosen it: text or categorical, no hierarchy, not
    marked ``value_sets`` (:class:`~anonlab.schema.Attribute`)."""
    return [
        q
        for q in table.quasi_identifiers
        if (att := table.schema[q]).kind is not Kind.NUMERIC
        and att.hierarchy is None
        and not att.value_sets
    ]


#: Values of a column that :func:`require_no_value_sets` judges the fitting builders on.
_SUGGEST_ON = 100_000


def require_no_value_sets(table: Table, scheme: str, levels: object = None) -> None:
    """Refuse to publish a generalized release in which a quasi-identifier would be the set of
    its group members' exact values (issue 17, item 3).

    Under generalization a text or categorical quasi-identifier without a hierarchy is
    published as ``{a,b,...}``: every member's exact value, dressed up as a generalization.
    The error names each such column, the builders that fit its values
    (:func:`~anonlab.hierarchy_builders.fitting_builders`, judged on its first
    100,000 distinct values) and the explicit way to publish the sets anyway (``value_sets``).
    Nothing is refused for bucketization (Anatomy publishes exact quasi-identifiers by design)
    or a full-domain release (``levels``: every quasi-identifier has a hierarchy).

    Raises
    ------
    AnonlabError
        Naming the columns, the builders that fit each, and the options.
    """
    if scheme != "generalization" or levels is not None:
        return
    columns = value_set_columns(table)
    if not columns:
        return
    from anonlab.hierarchy_builders import fitting_builders

    lines = []
    for q in columns:
        values = [str(v) for v in np.asarray(table.values[q][:_SUGGEST_ON]).tolist()]
        lines.append(f"  {q}: builders that fit its values: {', '.join(fitting_builders(values))}")
    names = ",".join(columns)
    listed = ", ".join(map(repr, columns))
    raise AnonlabError(
        f"quasi-identifier{'s' if len(columns) > 1 else ''} {listed} "
        f"{'have' if len(columns) > 1 else 'has'} no hierarchy, so a generalized group would "
        "publish the set of its members' exact values ({a,b,...}). Give each a hierarchy: a "
        'builder (`anonlab hierarchy build`, or "hierarchy": {"builder": ...} in a schema '
        "file; the suppress builder publishes a value or *) or an ARX hierarchy file "
        "(--hierarchies DIR); or publish the sets knowingly with --value-sets "
        f"{names} (value_sets={columns!r} in Python). A bucketized release (Anatomy) "
        "publishes exact quasi-identifiers by design and needs none.\n" + "\n".join(lines)
    )


# Set labels of categorical attributes without a hierarchy (grammar: escape_member)
# ---------------------------------------------------------------------------------------------
_SPECIAL = ("\\", ",", "{", "}")


def escape_member(value: str) -> str:
    r"""A value as a member of a set label.

    Grammar of a published categorical label (no hierarchy), so every label reads back to exactly
    the values it covers:

        label   := "*"                          every value of the domain (suppressed)
                 | "{" member ("," member)* "}"  the set of the members' values
                 | member                       exactly one value
        member  := a value, with "\" put before each "\", ",", "{" and "}" in it, and written
                   "\*" when the value is exactly "*"

    So ``{a\,b,c}`` is the set {"a,b", "c"}, ``\*`` is the real value "*", ``\{x\}`` is the
    single value "{x}", and values without those characters are written as they are (``{a,b}``,
    ``a``), as before. Labels of numeric attributes (``[lo-hi]``, a number) and hierarchy nodes are
    not escaped: they are not sets.
    """
    if value == "*":
        return "\\*"
    for ch in _SPECIAL:  # backslash first, so added backslashes are not doubled
        value = value.replace(ch, "\\" + ch)
    return value


def set_label(members: Sequence[str]) -> str:
    """The label of a group holding the (already escaped) ``members``: the member itself if
    there is one, else ``{m1,m2,...}``."""
    if len(members) == 1:
        return members[0]
    return "{" + ",".join(members) + "}"


def parse_label(label: str) -> list[str] | None:
    """The values a categorical label names, unescaped; None for ``*`` (every value).

    Inverse of :func:`set_label` over :func:`escape_member`: ``parse_label(set_label([
    escape_member(v) for v in values])) == values`` for any values (not ``"*"`` alone, which
    reads as itself only when escaped). A trailing lone backslash reads as a backslash.
    """
    if label == "*":
        return None
    is_set = len(label) >= 2 and label[0] == "{" and label[-1] == "}" and not _escaped_end(label)
    body = label[1:-1] if is_set else label
    out: list[str] = []
    cur: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            cur.append(body[i + 1])
            i += 2
            continue
        if ch == "," and is_set:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    out.append("".join(cur))
    return out


def _escaped_end(label: str) -> bool:
    """Whether the last character of ``label`` is escaped (an odd run of backslashes before)."""
    run = len(label) - 1 - len(label[:-1].rstrip("\\"))
    return run % 2 == 1


def _read_only(array: np.ndarray) -> np.ndarray:
    """Cached per-group statistics are shared with attacks: freeze them."""
    array.flags.writeable = False
    return array


def _first_split_attribute(group, n_groups, codes, node_of_code):  # compiled by _compiled
    """The first attribute ``j`` (in the order given) such that some group's records map, by
    ``node_of_code[j][codes[j]]``, to two different nodes; -1 when there is none. Records are
    compared with their group's first record."""
    q = len(codes)
    first = np.full((n_groups, q), -1, dtype=np.int64)
    split = q
    for i in range(len(group)):
        g = group[i]
        for j in range(q):
            v = node_of_code[j][codes[j][i]]
            if first[g, j] < 0:
                first[g, j] = v
            elif first[g, j] != v and j < split:
                split = j
    return split if split < q else -1


_COMPILED: dict = {}


def _compiled(function):
    """``function`` compiled by numba (cached on disk), imported on first use so that importing
    anonlab does not import numba."""
    if function not in _COMPILED:
        from numba import njit

        _COMPILED[function] = njit(cache=True)(function)
    return _COMPILED[function]


def _dense_ids(group: np.ndarray) -> tuple[np.ndarray, int]:
    """:func:`~anonlab.grouping.dense_group_ids` of ``group`` (a new int32 array), with one
    compiled pass instead where the ids already are 0..G-1 in order of first appearance (as an
    anonymizer that numbers its classes so gives them) and numba is already loaded."""
    if (
        "numba" in sys.modules
        and group.ndim == 1
        and len(group)
        and np.issubdtype(group.dtype, np.integer)
    ):
        n_groups = _compiled(_dense_in_first_appearance)(group)
        if n_groups >= 0:
            return group.astype(np.int32), int(n_groups)
    return dense_group_ids(group)


def _dense_in_first_appearance(labels):  # compiled by _compiled
    """G when ``labels`` are 0..G-1 numbered in order of first appearance (each label is at
    most one more than every label before it), else -1."""
    top = -1
    for i in range(len(labels)):
        v = labels[i]
        if v > top + 1 or v < 0:
            return -1
        if v > top:
            top = v
    return top + 1
