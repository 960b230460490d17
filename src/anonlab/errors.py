"""Errors that anonlab raises on bad input.

Every message names the column, value or parameter at fault and says what would be valid, so
the CLI can print it as it is (exit code 2, no traceback).
"""

from __future__ import annotations


class AnonlabError(ValueError):
    """Bad input to anonlab: a parameter, a file, a column or a value that cannot be used."""


class IneligibleError(AnonlabError):
    """The table cannot satisfy the requested privacy model (e.g. it is not ℓ-eligible)."""
