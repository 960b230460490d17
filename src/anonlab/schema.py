"""The schema of a microdata table: each attribute's role and kind, and its optional hierarchy.

Roles follow ARX's ``AttributeType``: a *quasi-identifier* can be linked to outside data and is
generalized or bucketized; the *sensitive* attribute is what must not be inferred; an
*insensitive* attribute is published unchanged; an *identifier* is removed before anything else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class Attribute:
    """One column: its name, role, kind and (optional) generalization hierarchy."""

    name: str
    role: Role
    kind: Kind
    hierarchy: Hierarchy | None = field(default=None, compare=False)

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "role": self.role.value,
            "kind": self.kind.value,
            "hierarchy_height": None if self.hierarchy is None else self.hierarchy.height,
        }


@dataclass(frozen=True)
class Schema:
    """The attributes of a table, in column order. At most one is sensitive."""

    attributes: tuple[Attribute, ...]

    def __post_init__(self) -> None:
        names = [a.name for a in self.attributes]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise AnonlabError(f"column {dup!r} appears twice in the schema")
        sens = [a.name for a in self.attributes if a.role is Role.SENSITIVE]
        if len(sens) > 1:
            raise AnonlabError(
                f"only one sensitive attribute is supported, got {sens}; mark the rest insensitive"
            )

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
    def sensitive(self) -> str | None:
        return next((a.name for a in self.attributes if a.role is Role.SENSITIVE), None)

    @property
    def insensitive(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attributes if a.role is Role.INSENSITIVE)

    def to_json(self) -> list[dict]:
        return [a.to_json() for a in self.attributes]
