"""A registry of named records (anonymizers, attacks): register, unregister, and register for
the length of a ``with`` block. The records' own modules add what is particular to them (the
lookup's error message, the order they are listed in)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

from anonlab.errors import AnonlabError

T = TypeVar("T")


class NamedRegistry(Generic[T]):
    """Records of type ``record_type`` by their ``name`` attribute, in order of registration.

    ``records`` is the live mapping (it may be given, to share one dict with a module constant).
    """

    def __init__(self, kind: str, record_type: type[T], records: dict[str, T] | None = None):
        self.kind = kind
        self.record_type = record_type
        self.records: dict[str, T] = {} if records is None else records

    def register(self, record: T) -> T:
        """Add ``record`` and return it. A name registered twice is an error unless it is the
        same record (a module imported twice)."""
        if not isinstance(record, self.record_type):
            raise AnonlabError(
                f"register takes an {self.record_type.__name__} record, got {type(record).__name__}"
            )
        name = record.name  # type: ignore[attr-defined]
        old = self.records.get(name)
        if old is not None and old is not record:
            raise AnonlabError(f"an {self.kind} named {name!r} is already registered")
        self.records[name] = record
        return record

    def unregister(self, name: str) -> None:
        """Remove a record (for tests of the registry itself); an unknown name is ignored."""
        self.records.pop(name, None)

    @contextmanager
    def registered(self, record: T) -> Iterator[T]:
        """``with registered(toy): ...``: the record is registered inside the block only."""
        self.register(record)
        try:
            yield record
        finally:
            self.unregister(record.name)  # type: ignore[attr-defined]
