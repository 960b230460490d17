"""Value generalization hierarchies, stored as ARX-format CSV files.

A hierarchy has one row per leaf value, from the leaf (level 0) to the most general level
(usually ``*``): ``leaf;level1;level2;...;*``. This is the format of the ARX Data Anonymization
Tool, so users can bring hierarchies made there and edit ours in a spreadsheet.

Internally a hierarchy is an integer matrix ``map[leaf, level]`` of node codes, as in ARX's
``GeneralizationHierarchy`` ("input -> level -> output"): generalizing a coded column to level
``L`` is ``map[codes, L]``.

Leaf order. The rows are put in depth-first order on construction (siblings kept in their order of
first appearance in the file), so every subtree covers a contiguous run of leaf codes. Algorithms
that need a total order on a categorical attribute (Mondrian's median split, the Hilbert curve) use
this order, as LeFevre et al. (ICDE 2006) suggest.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from anonlab.errors import AnonlabError
from anonlab.formula_guard import guard_text, unguard_text

ROOT = "*"


class Hierarchy:
    """A generalization hierarchy over the values of one attribute.

    Parameters
    ----------
    rows : sequence of sequence of str
        One row per leaf: the leaf label followed by its ancestors, most general last. All rows have
        the same length. If the last level has more than one node, a root level ``*`` is added.
    name : str, optional
        The attribute the hierarchy is for (used in messages only).
    root : bool, default=True
        Rows of a single column (leaves only) get a root level ``*`` added, so the values can be
        generalized to ``*``. ``root=False`` keeps them as they are: a hierarchy of height 0,
        whose values are never generalized (ARX's reading of a hierarchy file with only the leaf
        column; :meth:`read_csv` builds file hierarchies so). Rows of two or more columns always
        end in a single root, whatever ``root`` says.

    Attributes
    ----------
    leaves : tuple of str
        Leaf labels in leaf order (depth-first).
    height : int
        Number of levels above the leaves (a flat ``leaf;*`` hierarchy has height 1; a hierarchy
        of leaves only, ``root=False``, has height 0).
    """

    def __init__(
        self, rows: Sequence[Sequence[str]], name: str | None = None, *, root: bool = True
    ) -> None:
        self.name = name
        label = f"hierarchy of {name!r}" if name else "hierarchy"
        rows = [[str(c).strip() for c in r] for r in rows]
        if not rows:
            raise AnonlabError(f"{label} has no rows; give one row per leaf value")
        width = len(rows[0])
        for i, r in enumerate(rows):
            if len(r) != width:
                raise AnonlabError(
                    f"{label}: row {i + 1} ({';'.join(r)!r}) has {len(r)} levels, row 1 has "
                    f"{width}; every row must list the leaf and all its ancestors"
                )
        if width < 1:
            raise AnonlabError(f"{label}: rows are empty")
        if width == 1 and not root:
            pass  # leaves only: never generalized (height 0)
        elif len({r[-1] for r in rows}) > 1 or width == 1:
            rows = [r + [ROOT] for r in rows]
            width += 1
        leaves = [r[0] for r in rows]
        if len(set(leaves)) != len(leaves):
            dup = next(v for v in leaves if leaves.count(v) > 1)
            raise AnonlabError(f"{label}: leaf value {dup!r} appears in more than one row")
        # Tree check: each node at level j has exactly one parent at level j + 1.
        for j in range(1, width - 1):
            parent: dict[str, str] = {}
            for r in rows:
                p = parent.setdefault(r[j], r[j + 1])
                if p != r[j + 1]:
                    raise AnonlabError(
                        f"{label}: node {r[j]!r} at level {j} has two parents, {p!r} and "
                        f"{r[j + 1]!r}; a hierarchy must be a tree"
                    )
        # Depth-first order, siblings in order of first appearance.
        first = [dict() for _ in range(width)]
        for r in rows:
            for j, v in enumerate(r):
                first[j].setdefault(v, len(first[j]))
        order = sorted(
            range(len(rows)),
            key=lambda i: tuple(first[j][rows[i][j]] for j in range(width - 1, -1, -1)),
        )
        rows = [rows[i] for i in order]
        self._rows = rows
        self.leaves: tuple[str, ...] = tuple(r[0] for r in rows)
        self.height: int = width - 1
        self._labels: list[np.ndarray] = []
        cols = []
        for j in range(width):
            uniq: dict[str, int] = {}
            codes = np.fromiter((uniq.setdefault(r[j], len(uniq)) for r in rows), dtype=np.int32)
            cols.append(codes)
            self._labels.append(np.array(list(uniq), dtype=object))
        self.matrix: np.ndarray = np.stack(cols, axis=1)
        self._leaf_index = {v: i for i, v in enumerate(self.leaves)}

    # ------------------------------------------------------------------ access
    def __len__(self) -> int:
        return len(self.leaves)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hierarchy) and self._rows == other._rows

    def __repr__(self) -> str:
        return f"Hierarchy({self.name!r}, leaves={len(self.leaves)}, height={self.height})"

    def rows(self) -> list[list[str]]:
        """The rows in leaf order, leaf first (a copy)."""
        return [list(r) for r in self._rows]

    def labels(self, level: int) -> np.ndarray:
        """Node labels at ``level``, indexed by node code."""
        return self._labels[self._check_level(level)]

    def map(self, level: int) -> np.ndarray:
        """Leaf code -> node code at ``level`` (int32 array of length ``len(self)``)."""
        return self.matrix[:, self._check_level(level)]

    def leaf_index(self, values: Sequence[str], attribute: str | None = None) -> np.ndarray:
        """Leaf codes of ``values``; raises naming the first value absent from the hierarchy."""
        out = np.empty(len(values), dtype=np.int32)
        for i, v in enumerate(values):
            code = self._leaf_index.get(leaf_label(v))
            if code is None:
                raise AnonlabError(
                    f"value {v!r} of attribute {attribute or self.name!r} is not a leaf of its "
                    f"hierarchy (leaves: {_preview(self.leaves)}); add a row for it"
                )
            out[i] = code
        return out

    def node_size(self, level: int) -> np.ndarray:
        """Number of leaves under each node of ``level``."""
        return np.bincount(self.map(level), minlength=len(self.labels(level)))

    def lowest_common_level(self, leaf_min: np.ndarray, leaf_max: np.ndarray) -> np.ndarray:
        """For leaf-code ranges [leaf_min, leaf_max], the lowest level where both ends meet.

        Because subtrees are contiguous in leaf order, the lowest common ancestor of any set of
        leaves is that of its smallest and largest leaf code.

        Raises
        ------
        AnonlabError
            If the hierarchy has height 0 (leaves only: its values are never generalized) and a
            range spans two different leaves, which no node of it covers.
        """
        if self.height == 0 and np.any(np.asarray(leaf_min) != np.asarray(leaf_max)):
            raise AnonlabError(
                f"the hierarchy of {self.name!r} has only its leaf column, which means its values "
                "are never generalized (as in ARX); a group holding two of its values cannot be "
                "published through it. Give the hierarchy levels above the leaves, or use a "
                "full-domain search (lattice) that keeps this attribute's values as they are"
            )
        level = np.full(np.shape(leaf_min), self.height, dtype=np.int32)
        for j in range(self.height - 1, -1, -1):
            same = self.matrix[leaf_min, j] == self.matrix[leaf_max, j]
            level = np.where(same, j, level)
        return level

    def _check_level(self, level: int) -> int:
        if not 0 <= level <= self.height:
            raise AnonlabError(
                f"level {level} of the hierarchy of {self.name!r} does not exist; valid levels are "
                f"0..{self.height}"
            )
        return level

    # ------------------------------------------------------------------ files
    @classmethod
    def read_csv(
        cls, path: str | os.PathLike, name: str | None = None, sep: str = ";"
    ) -> Hierarchy:
        """Read an ARX-format hierarchy file (one row per leaf, ``sep``-separated).

        A file whose rows hold only the leaf column is read as ARX reads it: the attribute is not
        generalized, the hierarchy has height 0 and no ``*`` root is added (``root=False`` of
        :class:`Hierarchy`), so a lattice search keeps the attribute at its values and reaches
        k-anonymity through the other attributes and record suppression only. ARX 3.9.2, given its
        Adult data with ``adult_hierarchy_education.csv`` cut to its leaf column, builds a lattice
        whose top node has education at level 0; its 5-anonymous optimum at 0% suppression keeps
        education at level 0 (Loss 0.640670712015275, 32 classes), where the full hierarchy's
        optimum generalizes it to ``*``. anonlab's lattice search finds the same node, classes
        and Loss from the same file (tests/test_arx_parity.py). Before, anonlab added a ``*``
        root to such a file, which let a search generalize the attribute away where ARX would
        not.

        Parsed with Python's :mod:`csv` module, so a value that contains ``sep``, a quote or a
        line break may be quoted (``"a;b"``; a quote inside doubled), as :meth:`to_csv` writes it;
        ARX files without quotes read as before. Blank lines are skipped. The formula guard is
        removed from every value (``'=x`` reads as ``=x``; see :mod:`anonlab.formula_guard`).
        """
        path = Path(path)
        label = f"hierarchy file {str(path)!r}"
        if not isinstance(sep, str) or len(sep) != 1:
            raise AnonlabError(f"{label}: sep must be a single character, got {sep!r}")
        try:
            text = path.read_text(encoding="utf-8-sig")
        except OSError as exc:
            raise AnonlabError(f"cannot read {label}: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise AnonlabError(
                f"cannot read {label}: byte {exc.start} is not UTF-8 text ({exc.reason}); a "
                "hierarchy is a UTF-8 text file with one row per leaf, e.g. 'Paris;France;*'"
            ) from None
        if "\x00" in text:
            line = text[: text.index("\x00")].count("\n") + 1
            raise AnonlabError(
                f"cannot read {label}: line {line} holds a NUL byte (a binary file?); a "
                "hierarchy is a text file with one row per leaf, e.g. 'Paris;France;*'"
            )
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, strict=True)
        try:
            rows = [[unguard_text(c) for c in r] for r in reader if any(c.strip() for c in r)]
        except csv.Error as exc:
            raise AnonlabError(
                f"cannot read {label}, line {reader.line_num}: {exc}; a value that holds "
                f"{sep!r} or a double quote must be in double quotes (e.g. 'Paris{sep}FR' as "
                f"'\"Paris{sep}FR\"'), with each double quote inside written twice"
            ) from None
        return cls(rows, name=name or path.stem, root=not rows or len(rows[0]) != 1)

    def to_csv(self, path: str | os.PathLike | None = None, sep: str = ";") -> str:
        """Write in ARX format; returns the text. Written to a temporary file, then renamed.

        Values are written with Python's :mod:`csv` module (quoted only where they contain
        ``sep``, a quote or a line break, so ordinary hierarchies stay plain ARX files), and
        formula-guarded (:func:`anonlab.formula_guard.guard_text`), so the file is safe to open
        in a spreadsheet and :meth:`read_csv` gives back the same hierarchy.
        """
        buf = io.StringIO()
        writer = csv.writer(buf, delimiter=sep, lineterminator="\n")
        for r in self._rows:
            writer.writerow([guard_text(c) for c in r])
        text = buf.getvalue()
        if path is not None:
            path = Path(path)
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
        return text

    # ------------------------------------------------------------------ builders
    @classmethod
    def flat(cls, values: Sequence[str], name: str | None = None) -> Hierarchy:
        """Suppression only: every value generalizes directly to ``*`` (height 1)."""
        return cls([[str(v), ROOT] for v in values], name=name)

    @classmethod
    def intervals(
        cls,
        values: Sequence[float] | np.ndarray,
        widths: Sequence[float],
        *,
        origin: float = 0,
        name: str | None = None,
    ) -> Hierarchy:
        """Fixed-width interval levels over numeric leaves, then ``*``.

        ``widths`` must each divide the next so the levels nest (e.g. ``(5, 10, 20, 40)`` as in
        Martin et al., ICDE 2007, §6). A value ``v`` at width ``w`` falls in
        ``[origin + w*floor((v-origin)/w), ... + w[``, written ``[a-b[`` as ARX does.
        """
        widths = [float(w) for w in widths]
        if not widths or any(not np.isfinite(w) or w <= 0 for w in widths):
            raise AnonlabError(f"interval widths must be positive numbers, got {widths}")
        for a, b in zip(widths, widths[1:], strict=False):
            if b % a:
                raise AnonlabError(
                    f"interval widths {widths} must be positive and each must divide the next"
                )
        vals = np.unique(np.asarray(values, dtype=float))
        rows = []
        for v in vals:
            row = [_fmt(v)]
            for w in widths:
                lo = origin + w * np.floor((v - origin) / w)
                row.append(f"[{_fmt(lo)}-{_fmt(lo + w)}[")
            rows.append(row + [ROOT])
        return cls(rows, name=name)


def leaf_label(v: object) -> str:
    """The label a value has in a hierarchy file (39.0 -> '39')."""
    if isinstance(v, float | np.floating) and float(v).is_integer():
        return str(int(v))
    return str(v).strip()


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _preview(items: Sequence[str], n: int = 8) -> str:
    shown = ", ".join(map(str, items[:n]))
    return shown + (f", ... ({len(items)} in all)" if len(items) > n else "")
