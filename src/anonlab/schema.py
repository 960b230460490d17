"""The schema of a microdata table: each attribute's role and kind, and its optional hierarchy.

Roles follow ARX's ``AttributeType``: a *quasi-identifier* can be linked to outside data and is
generalized or bucketized; the *sensitive* attribute is what must not be inferred; an
*insensitive* attribute is published unchanged; an *identifier* is removed before anything else.

Types (issue 17, item 1) say how a column's cells are read; :class:`ColumnType` lists them.
``integer`` and ``decimal`` columns are of :class:`Kind` ``numeric`` (ordered by value); ``text``
and ``categorical`` columns are of kind ``categorical`` (labels exactly as written, leading zeros
kept, ordered by label or by their hierarchy). ``text`` and ``categorical`` are encoded alike;
``categorical`` says the values are a closed set of categories (a pandas ``category`` column,
whose order is kept when it is ordered). ``date`` and ``datetime`` columns are of kind
``categorical`` too, with canonical ISO 8601 labels (:mod:`anonlab.dates`) in chronological
order; as quasi-identifiers they get an automatic date hierarchy unless one is given, so a
group publishes a month, a year or a span of years, never the set of its members' dates (the
choice, and why they are not ``numeric``: :mod:`anonlab.table`). How a type is inferred when
none is declared: :mod:`anonlab.table`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy


class Role(StrEnum):
    QUASI_IDENTIFIER = "quasi-identifier"
    SENSITIVE = "sensitive"
    INSENSITIVE = "insensitive"
    IDENTIFIER = "identifier"


class Kind(StrEnum):
    NUMERIC = "numeric"
    CATEGORICAL = "categorical"


class ColumnType(StrEnum):
    """How a column's cells are read (``--types col=TYPE``, ``types={col: TYPE}``)."""

    TEXT = "text"
    INTEGER = "integer"
    DECIMAL = "decimal"
    CATEGORICAL = "categorical"
    DATE = "date"
    DATETIME = "datetime"

    @property
    def temporal(self) -> bool:
        """Whether the type is ``date`` or ``datetime``."""
        return self in (ColumnType.DATE, ColumnType.DATETIME)

    @property
    def kind(self) -> Kind:
        """The kind the type is encoded as: numeric for integer and decimal."""
        numeric = self in (ColumnType.INTEGER, ColumnType.DECIMAL)
        return Kind.NUMERIC if numeric else Kind.CATEGORICAL


def parse_column_types(types: object, option: str = "types") -> dict[str, ColumnType]:
    """``{"zip": "text", "age": "integer"}`` (or None) as ColumnTypes, or an error naming the
    entry and the valid types.

    Raises
    ------
    AnonlabError
        If ``types`` is not a mapping of column names to one of :class:`ColumnType`'s values.
    """
    if types is None:
        return {}
    valid = ", ".join(t.value for t in ColumnType)
    if not isinstance(types, Mapping):
        raise AnonlabError(
            f"{option} must map column names to a type ({valid}), got {type(types).__name__}"
        )
    out: dict[str, ColumnType] = {}
    for name, value in types.items():
        try:
            out[str(name)] = ColumnType(str(value).strip().lower())
        except ValueError:
            raise AnonlabError(
                f"{option}: column {str(name)!r} has type {value!r}; a type is one of {valid}"
            ) from None
    return out


@dataclass(frozen=True)
class Attribute:
    """One column: its name, role, kind and (optional) generalization hierarchy.

    ``value_sets``: the publisher chose to publish this quasi-identifier, which has no
    hierarchy, as the set of each generalized group's values (``{a,b}``: every member's exact
    value). Without it such a release is refused when published (issue 17, item 3:
    :func:`anonlab.release.require_no_value_sets`)."""

    name: str
    role: Role
    kind: Kind
    hierarchy: Hierarchy | None = field(default=None, compare=False)
    value_sets: bool = False

    def to_json(self) -> dict:
        out = {
            "name": self.name,
            "role": self.role.value,
            "kind": self.kind.value,
            "hierarchy_height": None if self.hierarchy is None else self.hierarchy.height,
        }
        if self.value_sets:
            out["value_sets"] = True
        return out


def several_sensitive_message(names: Sequence[str]) -> str:
    """The error of a step that reads one sensitive attribute, given several."""
    return (
        f"this step reads one sensitive attribute and the table has {len(names)} "
        f"({', '.join(map(repr, names))}); the steps that take several are the generalization "
        "algorithms (mondrian, lattice, lightning, generalize), the privacy-model checks and "
        "the audit, which run per attribute; for any other, name one (--sensitive "
        f"{names[0]}) or run it per attribute (Table.for_sensitive)"
    )


@dataclass(frozen=True)
class Schema:
    """The attributes of a table, in column order. Any number may be sensitive (a hospital's
    diagnosis and insurer): :attr:`sensitive_attributes` lists them; :attr:`sensitive`, for the
    steps that read one, names it and refuses a schema with several (so that no step silently
    protects only the first); :meth:`for_sensitive` is the schema seen by such a step for one
    of them."""

    attributes: tuple[Attribute, ...]

    def __post_init__(self) -> None:
        names = [a.name for a in self.attributes]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise AnonlabError(f"column {dup!r} appears twice in the schema")

    def __getitem__(self, name: str) -> Attribute:
        for a in self.attributes:
            if a.name == name:
                return a
        raise AnonlabError(
            f"unknown column {name!r}; the table has columns {[a.name for a in self.attributes]}"
        )

    def __contains__(self, name: object) -> bool:
        return any(a.name == name for a in self.attributes)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attributes)

    @property
    def quasi_identifiers(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attributes if a.role is Role.QUASI_IDENTIFIER)

    @property
    def sensitive_attributes(self) -> tuple[str, ...]:
        """Every sensitive attribute, in column order (empty for plain k-anonymity)."""
        return tuple(a.name for a in self.attributes if a.role is Role.SENSITIVE)

    @property
    def sensitive(self) -> str | None:
        """The sensitive attribute (None if there is none).

        Raises
        ------
        AnonlabError
            When there are several: the step that asked reads one sensitive attribute; it runs
            per attribute on :meth:`for_sensitive`.
        """
        names = self.sensitive_attributes
        if len(names) > 1:
            raise AnonlabError(several_sensitive_message(names))
        return names[0] if names else None

    def for_sensitive(self, name: str) -> Schema:
        """The schema with ``name`` its one sensitive attribute and the other sensitive
        attributes insensitive (published as they are, as they are in the release): what a
        step that reads one sensitive attribute sees when it runs for ``name``."""
        if name not in self.sensitive_attributes:
            raise AnonlabError(
                f"{name!r} is not a sensitive attribute; the sensitive attributes are "
                f"{list(self.sensitive_attributes)}"
            )
        return Schema(
            tuple(
                replace(a, role=Role.INSENSITIVE)
                if a.role is Role.SENSITIVE and a.name != name
                else a
                for a in self.attributes
            )
        )

    @property
    def value_sets(self) -> tuple[str, ...]:
        """Quasi-identifiers the publisher chose to publish as value sets."""
        return tuple(a.name for a in self.attributes if a.value_sets)

    @property
    def insensitive(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attributes if a.role is Role.INSENSITIVE)

    def to_json(self) -> list[dict]:
        return [a.to_json() for a in self.attributes]
