"""Parameter checks shared by every public entry point (one message style everywhere)."""

from __future__ import annotations

import functools
import inspect
import numbers
import os
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from anonlab.errors import AnonlabError

if TYPE_CHECKING:  # imported inside the checks: table.py and release.py import this module
    from anonlab.release import Release
    from anonlab.table import Table


def check_int(name: str, value: object, *, minimum: int | None = None) -> int:
    """Return ``value`` as an int, or raise naming ``name`` and the valid range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise AnonlabError(f"parameter {name!r} must be an integer, got {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise AnonlabError(f"parameter {name!r} must be an integer >= {minimum}, got {value}")
    return value


def check_float(
    name: str, value: object, *, low: float | None = None, high: float | None = None
) -> float:
    """Return ``value`` as a float within [low, high], or raise naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise AnonlabError(f"parameter {name!r} must be a number, got {value!r}")
    value = float(value)
    if (
        not np.isfinite(value)
        or (low is not None and value < low)
        or (high is not None and value > high)
    ):
        if high is None:
            wanted = "a finite number" if low is None else f"a finite number >= {low}"
        elif low is None:
            wanted = f"a finite number <= {high}"
        else:
            wanted = f"a number in [{low}, {high}]"
        raise AnonlabError(f"parameter {name!r} must be {wanted}, got {value!r}")
    return value


def check_choice(name: str, value: object, choices: Iterable[str]) -> str:
    choices = list(choices)
    if value not in choices:
        raise AnonlabError(f"parameter {name!r} must be one of {choices}, got {value!r}")
    return str(value)


def check_seed(seed: object) -> int:
    """A seed is a non-negative integer; it is stored in the release's manifest."""
    return check_int("seed", seed, minimum=0)


def rng_from_seed(seed: int) -> np.random.Generator:
    """The one way anonlab turns a seed into randomness."""
    return np.random.default_rng(check_seed(seed))


def check_at_most_records(name: str, value: object, n_records: int, symbol: str = "") -> int | None:
    """``value`` (a group-size parameter such as k, ℓ or m; None passes) checked to be at most
    the number of records: a group cannot be larger than the table. Raises naming ``name``
    (e.g. ``"--l"``) and the record count; checked before any array is sized from it."""
    if value is None:
        return None
    value = check_int(name, value)
    if value > n_records:
        what = symbol or name.lstrip("-")
        raise AnonlabError(
            f"{name}: {what} = {value} is larger than the number of records ({n_records:,}); "
            f"the largest {what} is {n_records:,}"
        )
    return value


# ---------------------------------------------------------------------------------------------
# The first argument of a public entry point: a Table, a Release, or (anonymizers) a DataFrame
# ---------------------------------------------------------------------------------------------
#: How to make a Table from a DataFrame, quoted in every message about a DataFrame input.
FROM_FRAME_HINT = "Table.from_frame(df, quasi_identifiers=[...], sensitive=...)"

_F = TypeVar("_F", bound=Callable[..., Any])


def _received(obj: object) -> str:
    """The type of ``obj`` as a message says it: ``a pandas DataFrame``, ``str 'data.csv'``."""
    if obj is None:
        return "None"
    cls = type(obj)
    module = cls.__module__.split(".")[0]
    if module == "pandas":
        return f"a pandas {cls.__name__}"
    if isinstance(obj, str | os.PathLike):
        text = os.fspath(obj)
        shown = text if len(text) <= 60 else text[:57] + "..."
        return f"{cls.__name__} {shown!r}"
    if module in ("builtins", "anonlab"):
        return cls.__name__
    return f"{module}.{cls.__name__}"


def _is_frame(obj: object) -> bool:
    """Whether ``obj`` is a pandas DataFrame (without importing pandas for a plain object)."""
    return type(obj).__module__.split(".")[0] == "pandas" and hasattr(obj, "columns")


def _prefix(where: str | None, parameter: str) -> str:
    return f"{where}: parameter {parameter!r}" if where else f"parameter {parameter!r}"


def require_table(
    obj: object, parameter: str = "table", *, where: str | None = None, takes_frame: bool = False
) -> Table:
    """Return ``obj`` if it is a :class:`~anonlab.table.Table`, else raise an
    :class:`AnonlabError` naming ``parameter`` (and the function ``where``), the type received,
    the type expected and how to make one. ``takes_frame=True`` adds to a DataFrame's
    message that the function also takes the DataFrame with ``quasi_identifiers=`` and
    ``sensitive=`` (the anonymizers do)."""
    from anonlab.release import Release
    from anonlab.table import Table

    if isinstance(obj, Table):
        return obj
    if _is_frame(obj):
        hint = f"make one with {FROM_FRAME_HINT} (from anonlab import Table)"
        if takes_frame:
            hint += (
                f", or pass the DataFrame with quasi_identifiers=[...] and sensitive=... to "
                f"{where or 'the anonymizer'} and it builds the Table"
            )
    elif isinstance(obj, Release):
        hint = "a Release is already anonymized; its input table is release.table"
    elif isinstance(obj, str | os.PathLike):
        hint = (
            "to read a file use Table.from_csv(path, quasi_identifiers=[...], sensitive=...) "
            "or Table.from_parquet(...)"
        )
    else:
        hint = f"make one with {FROM_FRAME_HINT}, Table.from_csv(...) or Table.from_dataset(...)"
    raise AnonlabError(
        f"{_prefix(where, parameter)} must be an anonlab Table, got {_received(obj)}; {hint}"
    )


def require_release(
    obj: object, parameter: str = "release", *, where: str | None = None
) -> Release:
    """Return ``obj`` if it is a :class:`~anonlab.release.Release`, else raise an
    :class:`AnonlabError` naming ``parameter`` (and the function ``where``), the type received,
    the type expected and how to get one."""
    from anonlab.release import Release
    from anonlab.table import Table

    if isinstance(obj, Release):
        return obj
    how = "anonymize(table, 'mondrian', k=5) from anonlab.anonymize"
    if isinstance(obj, Table):
        hint = f"anonymize the Table first: {how}"
    elif _is_frame(obj):
        hint = (
            f"a DataFrame is not a release: make a Table with {FROM_FRAME_HINT} and anonymize "
            f"it ({how}), or load a saved release with anonlab.release_io.load_release(path)"
        )
    elif isinstance(obj, str | os.PathLike):
        hint = "to read a saved release use anonlab.release_io.load_release(path)"
    else:
        hint = (
            f"anonymize a Table ({how}) or load a saved release with "
            "anonlab.release_io.load_release(path)"
        )
    raise AnonlabError(
        f"{_prefix(where, parameter)} must be an anonlab Release, got {_received(obj)}; {hint}"
    )


def _first_argument(fn: Callable[..., Any]) -> str:
    return next(iter(inspect.signature(fn).parameters))


def _split_first(
    name: str, args: tuple, kwargs: dict[str, Any]
) -> tuple[object, tuple, dict[str, Any]] | None:
    """(first argument, the other positional arguments, the keywords), or None if absent."""
    if args:
        return args[0], args[1:], kwargs
    if name in kwargs:
        kwargs = dict(kwargs)
        return kwargs.pop(name), (), kwargs
    return None


def takes_release(fn: _F) -> _F:
    """Decorator: the function's first argument must be a Release (:func:`require_release`,
    checked before anything else runs). The signature seen by :mod:`inspect` is unchanged."""
    name = _first_argument(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        split = _split_first(name, args, kwargs)
        if split is not None:
            require_release(split[0], name, where=fn.__name__)
        return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def takes_table(fn: _F) -> _F:
    """Decorator: the function's first argument must be a Table (:func:`require_table`)."""
    name = _first_argument(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        split = _split_first(name, args, kwargs)
        if split is not None:
            require_table(split[0], name, where=fn.__name__)
        return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def frame_keywords(exclude: Iterable[str] = ()) -> tuple[str, ...]:
    """The keywords of :meth:`Table.from_frame` (``quasi_identifiers``, ``sensitive``,
    ``insensitive``, ``identifiers``, ...), read from its signature, less ``exclude`` (an
    anonymizer's own parameters win)."""
    skip = set(exclude)
    return tuple(k for k in _from_frame_keywords() if k not in skip)


@functools.cache
def _from_frame_keywords() -> tuple[str, ...]:
    from anonlab.table import Table

    return tuple(
        p.name
        for p in inspect.signature(Table.from_frame).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    )


def table_from_input(
    obj: object, keywords: Mapping[str, Any], *, where: str, parameter: str = "table"
) -> tuple[Table, dict[str, str] | None]:
    """The Table an anonymizer works on, and the role of every input column when it was built
    here from a DataFrame (None for a Table).

    ``obj`` is a Table (``keywords`` must then be empty: its roles are fixed), or a pandas
    DataFrame with ``keywords`` for :meth:`Table.from_frame`, of which ``quasi_identifiers``
    and ``sensitive`` are required. Every column of the DataFrame must get a role: the ones
    given none are an error that lists them (``insensitive=[...]`` publishes a column
    unchanged, ``identifiers=[...]`` removes it), so nothing is dropped silently, unless
    ``unassigned=`` is given explicitly (where :meth:`Table.from_frame` takes it), which then
    decides; such columns are recorded with the role ``"dropped"``.
    """
    from anonlab.table import Table

    keywords = dict(keywords)
    if not _is_frame(obj):
        table = require_table(obj, parameter, where=where, takes_frame=True)
        if keywords:
            raise AnonlabError(
                f"{where}: {', '.join(f'{k}=' for k in keywords)} apply only when {parameter!r} "
                "is a pandas DataFrame; a Table has its roles already (change them with "
                "table.with_roles(quasi_identifiers, sensitive))"
            )
        return table, None
    missing = [k for k in ("quasi_identifiers", "sensitive") if keywords.get(k) is None]
    if missing:
        raise AnonlabError(
            f"{where}: parameter {parameter!r} is a pandas DataFrame, so "
            f"{' and '.join(f'{k}=' for k in missing)} must be given to build the Table "
            f"({where}(df, quasi_identifiers=[...], sensitive=..., ...)); or make the Table "
            f"yourself with {FROM_FRAME_HINT}"
        )
    columns = [str(c) for c in obj.columns]  # type: ignore[attr-defined]
    roles: dict[str, str] = {}
    for role, key in (
        ("identifier", "identifiers"),
        ("insensitive", "insensitive"),
        ("quasi-identifier", "quasi_identifiers"),
        ("sensitive", "sensitive"),
    ):
        value = keywords.get(key) or ()
        names = [value] if isinstance(value, str) else list(value)
        for c in names:
            roles[str(c)] = role
    unassigned = [c for c in columns if c not in roles]
    if unassigned and "unassigned" not in keywords:
        drop = (
            ', or pass unassigned="drop" to leave them out'
            if "unassigned" in frame_keywords()
            else ""
        )
        raise AnonlabError(
            f"{where}: every column of the DataFrame needs a role; {len(unassigned)} have none: "
            f"{unassigned[:20]}{' ...' if len(unassigned) > 20 else ''}. Name them in "
            "insensitive=[...] (published unchanged) or identifiers=[...] (removed before "
            f"anonymizing), select the columns you want first (df[[...]]){drop}"
        )
    for c in unassigned:  # unassigned="..." given: Table.from_frame decides (and may refuse)
        roles[c] = "dropped"
    table = Table.from_frame(obj, **keywords)  # checks the names and values (errors name them)
    return table, {c: roles[c] for c in columns}


def record_column_roles(release: Release, roles: Mapping[str, str] | None) -> Release:
    """Write the role of every input column into ``release.manifest["column_roles"]`` (for a
    release made from a DataFrame; nothing for a Table) and return the release."""
    if roles is not None:
        release.manifest["column_roles"] = dict(roles)
    return release


def takes_table_or_frame(fn: _F) -> _F:
    """Decorator for anonymizers: the first argument is a Table, or a pandas DataFrame with the
    keywords of :meth:`Table.from_frame` (``quasi_identifiers=`` and ``sensitive=`` required),
    from which the Table is built (:func:`table_from_input`); the role given to each column is
    then recorded in the manifest's ``column_roles``. Any other type raises naming the parameter,
    the type received and the type expected. :mod:`inspect` sees the anonymizer's own signature
    (the registry and the command line list its parameters only)."""
    name = _first_argument(fn)
    own = tuple(inspect.signature(fn).parameters)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        split = _split_first(name, args, kwargs)
        if split is None:
            return fn(*args, **kwargs)
        obj, rest, kwargs = split
        accepted = frame_keywords(exclude=own)
        frame_kw = {k: kwargs.pop(k) for k in list(kwargs) if k in accepted}
        table, roles = table_from_input(obj, frame_kw, where=fn.__name__, parameter=name)
        return record_column_roles(fn(table, *rest, **kwargs), roles)

    return wrapper  # type: ignore[return-value]
