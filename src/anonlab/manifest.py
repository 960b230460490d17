"""The release manifest (``manifest.json``): its declared JSON Schema and its validation.

A release directory's ``manifest.json`` says how the release was made and lists every file of
the release with its SHA-256 and size. It is untrusted input when a release is loaded: edited by
hand, truncated, written by another tool or by a newer anonlab. :func:`validate_manifest` checks
it before anything reads a field, in three steps:

1. the outer shape: a JSON object declaring ``"format": "anonlab-release"`` and a
   ``format_version`` this anonlab reads (a newer one gives "written by a newer anonlab");
2. the declared JSON Schema, ``manifest.schema.json`` shipped with the package (Draft 2020-12,
   validated with :mod:`jsonschema`; "integer" is strict there: ``1.0`` and ``true`` are not
   integers);
3. what a schema cannot say: exactly one sensitive attribute, unique attribute names,
   ``rows >= groups >= (1 if rows else 0)``, ``levels`` naming quasi-identifiers within their
   hierarchy's height, every referenced file listed in ``files``, counts that add up.

Every failure raises :class:`~anonlab.errors.AnonlabError` naming the file, the field path
(``manifest.json: schema[2].role: 'bogus' is not one of [...]``) and what would be valid; the
value at fault is shown truncated, so a huge or binary value never floods the terminal.
:func:`read_manifest` adds reading and parsing the file (size limit, UTF-8, strict JSON,
duplicate keys refused).
"""

from __future__ import annotations

import functools
import json
import os
import re
import reprlib
import stat
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError, best_match

from anonlab.errors import AnonlabError

#: The value of the manifest's ``format`` field.
FORMAT = "anonlab-release"
#: The manifest format version this anonlab writes and the newest it reads.
FORMAT_VERSION = 1
#: Name of the schema file shipped in the package.
SCHEMA_RESOURCE = "manifest.schema.json"
#: A manifest larger than this is refused before it is parsed.
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
#: The publisher's records file, which every release lists in ``files``.
RECORDS_FILE = "publisher/records.parquet"

_SHORT = 80  # characters of a value shown in a message
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxdict, _REPR.maxstring, _REPR.maxother = 3, 8, 8, 40, 40


# ---------------------------------------------------------------------- the schema
@functools.cache
def manifest_schema() -> dict[str, Any]:
    """The declared JSON Schema of ``manifest.json`` (Draft 2020-12), as shipped."""
    text = resources.files("anonlab").joinpath(SCHEMA_RESOURCE).read_text(encoding="utf-8")
    return json.loads(text)


def _strict_integer(checker: object, instance: object) -> bool:
    """JSON Schema's "integer", without floats that happen to be whole (``1.0``) or booleans."""
    return isinstance(instance, int) and not isinstance(instance, bool)


@functools.cache
def _validator() -> jsonschema.protocols.Validator:
    base = jsonschema.Draft202012Validator
    cls = jsonschema.validators.extend(
        base, type_checker=base.TYPE_CHECKER.redefine("integer", _strict_integer)
    )
    schema = manifest_schema()
    base.check_schema(schema)
    return cls(schema)


def is_release_path(path: object) -> bool:
    """Whether ``path`` is a relative POSIX path that stays inside the release directory.

    No leading ``/``, no ``.`` or ``..`` segment, no backslash, no empty segment, no control
    character (the rule of the schema's ``files`` keys and ``hierarchy_file``).
    """
    if not isinstance(path, str) or not path or len(path) > 1024:
        return False
    if path.startswith("/") or "\\" in path or _CONTROL.search(path):
        return False
    return all(part not in ("", ".", "..") for part in path.split("/"))


# ---------------------------------------------------------------------- messages
def short_repr(value: object) -> str:
    """``repr`` of a value, cut to a readable length (a huge value is described, not echoed)."""
    if isinstance(value, str):
        if len(value) <= _SHORT:
            return repr(value)
        return f"{value[:_SHORT]!r}... ({len(value):,} characters)"
    if isinstance(value, list | dict):
        text = _REPR.repr(value)  # bounded work however large the value
        if len(text) <= _SHORT and "..." not in text:
            return text
        return _sized(value)
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"an integer of about {int(value.bit_length() * 0.30103):,} digits"
    text = repr(value)
    return text if len(text) <= _SHORT else f"{text[:_SHORT]}... ({len(text):,} characters)"


def describe_got(value: object) -> str:
    """What a value is, for "must be X, got ...": its JSON type and (short) value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int):
        return f"an integer ({short_repr(value)})"
    if isinstance(value, float):
        return f"a number ({short_repr(value)})"
    if isinstance(value, str):
        return f"a string {short_repr(value)}"
    if isinstance(value, list | dict):
        return _sized(value)
    return type(value).__name__


def _sized(value: list | dict) -> str:
    """A JSON array or object by its size: "a list of 3 items", "an object with 1 key"."""
    if isinstance(value, list):
        return f"a list of {_count(len(value), 'item')}"
    return f"an object with {_count(len(value), 'key')}"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def field_path(path: Iterable[str | int]) -> str:
    """``schema[2].role``, ``files["publisher/x.csv"].sha256``: a readable path to a field."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENT.match(part) and len(part) <= _SHORT:
            out += f".{part}" if out else part
        else:
            key = part if len(part) <= _SHORT else part[:_SHORT] + "..."
            out += f"[{json.dumps(key)}]"
    return out or "(the manifest)"


def _fail(source: str, path: Iterable[str | int], message: str) -> AnonlabError:
    return AnonlabError(f"{source}: {field_path(path)}: {message}")


_TYPE_WORDS = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "array": "a list",
    "object": "an object",
    "boolean": "true or false",
    "null": "null",
}


def _describe(error: ValidationError) -> tuple[list[str | int], str]:
    """The field path and message of one manifest schema error: the shared wording
    (:func:`describe_schema_error`) with the manifest's own hints on its format fields."""
    path: list[str | int] = list(error.absolute_path)
    kind, value, inst = error.validator, error.validator_value, error.instance
    if kind == "const" and path == ["format_version"]:
        return path, (
            f"{short_repr(inst)} is not a format version this anonlab reads; it must be "
            f"{FORMAT_VERSION}"
        )
    if kind == "const" and path == ["format"]:
        return path, f"{short_repr(inst)} is not {value!r}: this is not an anonlab release manifest"
    path, message = describe_schema_error(error)
    if kind == "required" and path in (["format"], ["format_version"], ["files"]):
        message += (
            "; a release manifest declares "
            f'"format": "{FORMAT}", "format_version": {FORMAT_VERSION} and "files" '
            "(releases written before format_version 1 must be made again)"
        )
    return path, message


def describe_schema_error(
    error: ValidationError, fallback: str = "as the manifest schema says"
) -> tuple[list[str | int], str]:
    """The field path and a one-line message for a JSON Schema error (values shown cut short);
    ``fallback`` says what is valid where the failing part of the schema has no
    ``description``. Shared by the manifest and the schema file (:mod:`anonlab.schema_file`)."""
    path: list[str | int] = list(error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    valid = schema.get("description", fallback)
    kind, value, inst = error.validator, error.validator_value, error.instance
    if "propertyNames" in error.absolute_schema_path:
        return path, f"key {short_repr(inst)} is not valid; each key must be {valid}"
    if kind == "required":
        missing = [p for p in value if p not in inst]
        path.append(missing[0])
        more = f" (also missing: {', '.join(missing[1:])})" if len(missing) > 1 else ""
        sub = schema.get("properties", {}).get(missing[0], {})
        return path, (
            f"required field is missing{more}; it must be {sub.get('description', 'present')}"
        )
    if kind == "additionalProperties":
        allowed = list(schema.get("properties", {}))
        extra = [k for k in inst if k not in allowed]
        path.append(extra[0])
        return path, f"unknown field; allowed fields are {allowed}"
    if kind == "type":
        types = [value] if isinstance(value, str) else list(value)
        wanted = " or ".join(_TYPE_WORDS.get(t, t) for t in types)
        return path, f"must be {wanted}, got {describe_got(inst)}"
    if kind == "enum":
        return path, f"{short_repr(inst)} is not one of {value}"
    if kind == "const":
        return path, f"{short_repr(inst)} must be {value!r}"
    if kind in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        op = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}
        return path, f"{short_repr(inst)} must be {op[kind]} {value}"
    if kind in ("minItems", "minProperties"):
        return path, f"must not be empty; it must be {valid}"
    if kind == "uniqueItems":
        seen: set[str] = set()
        dup = next((x for x in inst if json.dumps(x) in seen or seen.add(json.dumps(x))), None)
        return path, f"{short_repr(dup)} is listed twice; it must be {valid}"
    if kind in ("pattern", "maxLength", "minLength"):
        return path, f"{short_repr(inst)} is not valid; it must be {valid}"
    message = error.message if len(error.message) <= 200 else error.message[:200] + "..."
    return path, f"{message}; it must be {valid}"


# ---------------------------------------------------------------------- validation
def validate_manifest(obj: object, source: str) -> dict:
    """Check a parsed ``manifest.json`` and return it (the same dict) if it is valid.

    Parameters
    ----------
    obj : object
        The parsed JSON (anything ``json.loads`` can return).
    source : str
        How to name the file in messages, e.g. ``"manifest.json"`` or its path.

    Raises
    ------
    AnonlabError
        Naming ``source``, the field path and what would be valid, e.g.
        ``manifest.json: schema[2].role: 'bogus' is not one of ['quasi-identifier', ...]``.
        Of several schema errors the most relevant is reported
        (:func:`jsonschema.exceptions.best_match`).
    """
    if not isinstance(obj, dict):
        raise AnonlabError(
            f"{source}: the manifest must be a JSON object with the release's fields "
            f"(format, schema, files, ...), got {describe_got(obj)}"
        )
    fmt = obj.get("format")
    if "format" in obj and fmt != FORMAT:
        raise _fail(
            source,
            ["format"],
            f"{short_repr(fmt)} is not {FORMAT!r}: not an anonlab release manifest",
        )
    version = obj.get("format_version")
    if _strict_integer(None, version) and version > FORMAT_VERSION:
        raise _fail(
            source,
            ["format_version"],
            f"{short_repr(version)}: the release was written by a newer anonlab (this one reads "
            f"format_version {FORMAT_VERSION}); upgrade anonlab to read it",
        )
    try:
        error = best_match(_validator().iter_errors(obj))
        if error is not None:
            path, message = _describe(error)
            raise _fail(source, path, message)
        _check_semantics(obj, source)
    except RecursionError:
        raise AnonlabError(
            f"{source}: a value is nested too deeply to be part of a release manifest"
        ) from None
    return obj


def _check_semantics(m: Mapping[str, Any], source: str) -> None:
    """The rules of a valid manifest that its JSON Schema cannot express."""
    schema: list[dict] = m["schema"]
    first: dict[str, int] = {}
    for i, a in enumerate(schema):
        if a["name"] in first:
            raise _fail(
                source,
                ["schema", i, "name"],
                f"{short_repr(a['name'])} is also the name of schema[{first[a['name']]}]; "
                "attribute names must be unique",
            )
        first[a["name"]] = i
    sensitive = [i for i, a in enumerate(schema) if a["role"] == "sensitive"]
    if not sensitive and m.get("scheme") == "bucketization":
        raise _fail(
            source,
            ["schema"],
            "no attribute has role 'sensitive'; a bucketized release publishes one sensitive "
            "attribute (only a generalized release, plain k-anonymity, may have none)",
        )
    if len(sensitive) > 1 and m.get("scheme") == "bucketization":
        raise _fail(
            source,
            ["schema", sensitive[1], "role"],
            f"{short_repr(schema[sensitive[1]]['name'])} is a second sensitive attribute (after "
            f"{short_repr(schema[sensitive[0]]['name'])}); a bucketized release publishes one "
            "sensitive attribute (only a generalized release may have several)",
        )
    for i, a in enumerate(schema):
        if a.get("hierarchy_file") is not None and a["hierarchy_height"] is None:
            raise _fail(
                source,
                ["schema", i, "hierarchy_file"],
                "names a file but hierarchy_height is null; an attribute with a hierarchy file "
                "has a hierarchy height (an integer >= 0), one without has hierarchy_file null",
            )
    rows, groups = m["rows"], m["groups"]
    n = short_repr(rows)
    if groups > rows:
        raise _fail(
            source,
            ["groups"],
            f"{short_repr(groups)} is more than rows ({n}); groups must be <= rows",
        )
    if rows > 0 and groups == 0:
        raise _fail(source, ["groups"], f"0 with {n} rows; a non-empty release has >= 1 group")
    perturbed = m["perturbed_records"]
    if perturbed > rows:
        raise _fail(
            source,
            ["perturbed_records"],
            f"{short_repr(perturbed)} is more than rows ({n}); it must be <= rows",
        )
    _check_counts(m, source)
    _check_levels(m, schema, source)
    _check_files(m, schema, source)


def _check_counts(m: Mapping[str, Any], source: str) -> None:
    rows = m["rows"]
    n = short_repr(rows)
    ref = m.get("reference_counts")
    if ref is not None and sum(ref) < rows:
        raise _fail(
            source,
            ["reference_counts"],
            f"the counts sum to {short_repr(sum(ref))}, fewer than rows ({n}); they count the "
            "whole input, published and withheld records",
        )
    n_in = m.get("input_rows")
    if n_in is not None and n_in < rows:
        raise _fail(source, ["input_rows"], f"{short_repr(n_in)} is fewer than rows ({n})")
    suppressed = m.get("suppressed_records")
    if n_in is not None and suppressed is not None and rows + suppressed != n_in:
        raise _fail(
            source,
            ["suppressed_records"],
            f"{short_repr(suppressed)} plus rows ({n}) is not input_rows ({short_repr(n_in)}); "
            "published and suppressed records add up to the input's rows",
        )


def _check_levels(m: Mapping[str, Any], schema: Sequence[dict], source: str) -> None:
    levels = m.get("levels")
    if levels is None:
        return
    qi = {a["name"]: a for a in schema if a["role"] == "quasi-identifier"}
    for name, level in levels.items():
        if name not in qi:
            names = list(qi)
            raise _fail(
                source,
                ["levels", name],
                f"{short_repr(name)} is not a quasi-identifier of the schema; levels are given "
                f"for quasi-identifiers only ({short_repr(names)})",
            )
        height = qi[name]["hierarchy_height"]
        if level > (height or 0):
            raise _fail(
                source,
                ["levels", name],
                f"level {short_repr(level)} is above the height of the hierarchy of "
                f"{short_repr(name)} ({'no hierarchy' if height is None else height}); it must "
                "be 0.."
                f"{short_repr(height or 0)}",
            )


def _check_files(m: Mapping[str, Any], schema: Sequence[dict], source: str) -> None:
    files: dict[str, dict] = m["files"]
    for path in files:
        if not is_release_path(path):  # the schema's pattern says the same; belt and braces
            raise _fail(
                source,
                ["files"],
                f"key {short_repr(path)} is not a relative path inside the release",
            )
    if RECORDS_FILE not in files:
        raise _fail(
            source,
            ["files"],
            f"does not list {RECORDS_FILE!r}; every release has it (with its sha256 and bytes)",
        )
    for i, name in enumerate(m["published_files"]):
        if f"published/{name}" not in files:
            raise _fail(
                source,
                ["published_files", i],
                f"{short_repr(name)} is not listed in files as {short_repr('published/' + name)}; "
                "every published file is listed there with its checksum",
            )
    published = set(m["published_files"])
    for path in files:
        if path.startswith("published/") and path[len("published/") :] not in published:
            raise _fail(
                source,
                ["published_files"],
                f"does not name {short_repr(path)}, which files lists; published_files names "
                "every file under published/",
            )
    for i, a in enumerate(schema):
        hfile = a.get("hierarchy_file")
        if hfile is not None and hfile not in files:
            raise _fail(
                source,
                ["schema", i, "hierarchy_file"],
                f"{short_repr(hfile)} is not listed in files; every file of the release is "
                "listed there with its checksum",
            )


# ---------------------------------------------------------------------- reading
def no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {short_repr(key)} appears twice in one object")
        out[key] = value
    return out


def parse_manifest(data: bytes, source: str) -> dict:
    """Parse and validate the bytes of a ``manifest.json`` (strict UTF-8 JSON, no duplicate
    keys), naming ``source`` in every error."""
    if len(data) > MAX_MANIFEST_BYTES:
        raise AnonlabError(
            f"{source}: {len(data):,} bytes is too large for a manifest (at most "
            f"{MAX_MANIFEST_BYTES:,})"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AnonlabError(
            f"{source}: not UTF-8 text (byte {exc.start}); a manifest is a JSON file"
        ) from None
    obj = parse_json(text, source, "manifest", "a manifest is a JSON file (truncated or edited?)")
    return validate_manifest(obj, source)


def parse_json(text: str, source: str, what: str, hint: str) -> object:
    """``text`` as JSON with no key given twice (:func:`no_duplicate_keys`), or an error naming
    ``source``, the line and column and ``hint`` (what the file should be), or "not a valid
    ``what``" and why (a key twice, nesting too deep, a number too long). Shared by the manifest
    and the schema file."""
    try:
        return json.loads(text, object_pairs_hook=no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise AnonlabError(
            f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); {hint}"
        ) from None
    except (ValueError, RecursionError) as exc:  # a key twice, too deep, a huge number
        message = str(exc) or "a value is nested too deeply"
        message = message if len(message) <= 200 else message[:200] + "..."
        raise AnonlabError(f"{source}: not a valid {what}: {message}") from None


def read_manifest(path: str | os.PathLike, source: str | None = None) -> dict:
    """Read, parse and validate a ``manifest.json``; a symlink or non-file is refused.

    ``source`` names the file in messages (default: the path as given).
    """
    path = Path(path)
    source = str(path) if source is None else source
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise AnonlabError(
            f"{source}: no such file; a release directory has a manifest.json"
        ) from None
    except OSError as exc:
        raise AnonlabError(f"{source}: cannot be read: {exc.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise AnonlabError(f"{source}: is a symbolic link; release files must be regular files")
    if not stat.S_ISREG(info.st_mode):
        raise AnonlabError(f"{source}: is not a regular file")
    if info.st_size > MAX_MANIFEST_BYTES:
        raise AnonlabError(
            f"{source}: {info.st_size:,} bytes is too large for a manifest (at most "
            f"{MAX_MANIFEST_BYTES:,})"
        )
    try:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags)
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(MAX_MANIFEST_BYTES + 1)
    except OSError as exc:
        raise AnonlabError(f"{source}: cannot be read: {exc.strerror}") from None
    return parse_manifest(data, source)


__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "MAX_MANIFEST_BYTES",
    "RECORDS_FILE",
    "field_path",
    "is_release_path",
    "manifest_schema",
    "parse_manifest",
    "read_manifest",
    "validate_manifest",
]
