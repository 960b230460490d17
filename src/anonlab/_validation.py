"""Parameter checks shared by every public entry point (one message style everywhere)."""

from __future__ import annotations

import numbers
from collections.abc import Iterable

import numpy as np

from anonlab.errors import AnonlabError


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
        raise AnonlabError(f"parameter {name!r} must be a number in [{low}, {high}], got {value!r}")
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
