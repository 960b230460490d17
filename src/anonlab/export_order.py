"""Unlinkable export: the published row order and group ids come from a secret export key.

What leaves the publisher (``published/``) must carry no trace of the input's row order, the
seed, or the algorithm's internal order. Shuffling with the release's seed does not do that: the
seed is small and guessable, so a reader of the published file finds it by brute force and maps
every published row back to its input row (on a file sorted by the sensitive attribute, that
reveals each record's sensitive value). Numbering groups in order of first appearance in the
input leaks the same order directly.

So the export uses a 256-bit *export key* drawn from the operating system
(:func:`secrets.token_bytes`), kept only in the publisher's copy (``publisher/export-key``),
never in ``published/`` nor in a report:

* a per-release key is derived with HMAC-SHA-256 from the export key and a fingerprint of the
  release (its groups, published sensitive values, algorithm, parameters and seed), so two
  different releases exported with the same key get unrelated orders (rows of two releases of
  the same people cannot be lined up by position);
* the row order is the ``argsort`` of one 64-bit SHAKE-256 output per row, keyed by that
  per-release key: a uniformly random permutation to anyone without the key (ties, with
  probability below n²/2⁶⁵, are broken by position);
* published group ids are a second such permutation of ``0..G-1``, so a group's id says
  nothing about where its members stood in the input or when the algorithm formed it.

The same release and the same key give byte-identical published files; a fresh key (the
default) gives a fresh order. The seed still decides every random choice of the *algorithm*
(which records share a group), as before; it just no longer decides what the export reveals.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path

import numpy as np

from anonlab.errors import AnonlabError

#: Bytes in an export key (256 bits).
KEY_BYTES = 32
#: Where the key is kept in a release directory (the publisher's copy).
KEY_FILE = "publisher/export-key"


def new_export_key() -> bytes:
    """A fresh 256-bit export key from the operating system's random source."""
    return secrets.token_bytes(KEY_BYTES)


def key_to_text(key: bytes) -> str:
    """The key as written to a key file: 64 lowercase hex digits and a newline."""
    return key.hex() + "\n"


def parse_export_key(text: str, source: str) -> bytes:
    """The key in ``text`` (64 hex digits; surrounding whitespace ignored); ``source`` names
    where it came from in the error."""
    s = text.strip()
    if len(s) != 2 * KEY_BYTES or any(c not in "0123456789abcdefABCDEF" for c in s):
        raise AnonlabError(
            f"{source} does not hold an export key: expected {2 * KEY_BYTES} hexadecimal digits "
            f"(e.g. the publisher/export-key file of an earlier release, or the output of "
            '`python -c "import secrets; print(secrets.token_hex(32))"`)'
        )
    return bytes.fromhex(s)


def read_export_key(path: str | os.PathLike, option: str = "--export-key-file") -> bytes:
    """Read an export key file (64 hex digits)."""
    path = Path(path)
    if not path.is_file():
        raise AnonlabError(f"{option} {str(path)!r} is not a file")
    try:
        raw = path.read_bytes()[:1024]
    except OSError as exc:
        raise AnonlabError(f"cannot read {option} {str(path)!r}: {exc.strerror}") from None
    return parse_export_key(raw.decode("ascii", errors="replace"), f"{option} {str(path)!r}")


def release_fingerprint(
    group: np.ndarray,
    published_sensitive: np.ndarray | None,
    manifest: dict,
) -> bytes:
    """SHA-256 of what makes a release this release: its groups, published sensitive values
    and how it was made (algorithm, parameters, seed, scheme)."""
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(group, dtype=np.int64).tobytes())
    if published_sensitive is not None:
        h.update(np.ascontiguousarray(published_sensitive, dtype=np.int64).tobytes())
    how = {k: manifest.get(k) for k in ("algorithm", "parameters", "seed", "scheme")}
    h.update(json.dumps(how, sort_keys=True, default=str).encode("utf-8"))
    return h.digest()


def release_key(export_key: bytes, fingerprint: bytes) -> bytes:
    """The per-release key: HMAC-SHA-256(export key, fingerprint)."""
    if len(export_key) != KEY_BYTES:
        raise AnonlabError(f"an export key has {KEY_BYTES} bytes, got {len(export_key)}")
    return hmac.new(export_key, b"anonlab export v1\x00" + fingerprint, "sha256").digest()


def keyed_permutation(key: bytes, purpose: bytes, n: int) -> np.ndarray:
    """A permutation of ``0..n-1`` that is uniformly random to anyone without ``key``."""
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    stream = hashlib.shake_256(key + b"\x00" + purpose).digest(8 * n)
    return np.argsort(np.frombuffer(stream, dtype="<u8"), kind="stable")


def export_plan(
    export_key: bytes, group: np.ndarray, n_groups: int, fingerprint: bytes
) -> tuple[np.ndarray, np.ndarray]:
    """``(row_order, published_id)``: published row ``j`` is record ``row_order[j]``; internal
    group ``g`` is published as ``published_id[g]``."""
    key = release_key(export_key, fingerprint)
    row_order = keyed_permutation(key, b"row order", len(group))
    published_id = np.empty(n_groups, dtype=np.int64)
    published_id[keyed_permutation(key, b"group ids", n_groups)] = np.arange(n_groups)
    return row_order, published_id


def mac(export_key: bytes, payload: bytes) -> str:
    """HMAC-SHA-256 of ``payload`` under the export key, as hex (the manifest's seal)."""
    return hmac.new(export_key, b"anonlab manifest v1\x00" + payload, "sha256").hexdigest()
