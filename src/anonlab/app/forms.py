"""What the app's forms mean: schema edits, hierarchy choices, and the ``anonlab`` command lines
that the anonymize, audit and compare forms run. Pure functions (no request, no disk besides
what they are given), so every rule is tested without a browser.

Every value a form sends is checked against a closed list or a pattern here, or passed to the
CLI as one argument (never through a shell), where the CLI's own checks name what is wrong.
No value from a form becomes a path: paths are the project's own (:mod:`anonlab.app.projects`),
and the hierarchy builders' ``file`` parameter (a path) is refused (upload the file instead).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from anonlab.errors import AnonlabError

ROLES = ("quasi-identifier", "sensitive", "insensitive", "identifier", "drop")
TYPES = ("text", "integer", "decimal", "categorical", "date", "datetime")

#: Algorithms the anonymize form offers, in the order shown (the CLI's registry names).
ALGORITHMS = (
    "mondrian", "lattice", "lightning", "anatomy", "hilb", "mask", "injector",
    "mondrian+", "mondrian++", "hilb+", "hilb++", "mask+", "mask++", "generalize",
)  # fmt: skip
#: Algorithms that protect several sensitive attributes at once (the others take one).
SEVERAL_SENSITIVE = ("mondrian", "lattice", "lightning", "generalize")
#: Algorithms ``anonlab compare`` runs at each ℓ.
COMPARE_ALGORITHMS = (
    "anatomy", "mondrian", "hilb", "mask", "lattice", "lightning", "injector",
    "mondrian+", "mondrian++", "hilb+", "hilb++", "mask+", "mask++",
)  # fmt: skip
#: Models the lattice search combines (``--model a,b``), with the parameter each needs.
LATTICE_MODELS = {
    "k-anonymity": "k",
    "distinct-l-diversity": "l",
    "l-diversity": "l",
    "entropy-l-diversity": "l",
    "recursive-cl-diversity": "l",
    "t-closeness": "t",
}
METRICS = ("arx-loss", "height", "precision", "discernibility", "aecs")
SCHEMES = ("generalization", "bucketization")
#: The published files' format (``--published-format``).
PUBLISHED_FORMATS = ("csv", "parquet")
#: Numeric fields of the anonymize form: CLI option and kind.
NUMBERS = {
    "k": ("--k", int), "l": ("--l", int), "m": ("--m", int), "t": ("--t", float),
    "c": ("--c", float), "suppression": ("--suppression", float), "seed": ("--seed", int),
}  # fmt: skip
#: Audit thresholds: form field, CLI option.
THRESHOLDS = {"max_risk": "--max-risk", "max_share_at_risk": "--max-share-at-risk"}


class FormError(AnonlabError):
    """A form value that is not valid; the message names the field and what would be."""


def _number(name: str, raw: object, kind: type) -> str | None:
    text = str(raw or "").strip()
    if not text:
        return None
    try:
        value = kind(text)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise FormError(f"{name}: {text!r} is not {what}") from None
    return str(value)


def edit_schema(schema: Mapping[str, Any], form: Mapping[str, str]) -> dict[str, Any]:
    """The schema with each column's role and type from the schema form (fields ``role-i``
    and ``type-i`` for column ``i``; type ``""``: inferred). A column that stops being a
    quasi-identifier or sensitive attribute loses its hierarchy; one that becomes a
    quasi-identifier keeps none until one is chosen. The result still has to pass
    :func:`anonlab.schema_file.validate_schema_file` (the caller's check)."""
    new = copy.deepcopy(dict(schema))
    for i, column in enumerate(new.get("columns", [])):
        role = form.get(f"role-{i}", column.get("role"))
        if role not in ROLES:
            raise FormError(f"column {column.get('name')!r}: role {role!r} is not one of {ROLES}")
        kind = form.get(f"type-{i}", column.get("type") or "")
        if kind and kind not in TYPES:
            raise FormError(f"column {column.get('name')!r}: type {kind!r} is not one of {TYPES}")
        if role not in ("quasi-identifier", "sensitive"):
            column.pop("hierarchy", None)
            column.pop("value_sets", None)
        if role != "quasi-identifier":
            column.pop("value_sets", None)
        if role == "sensitive" and column.get("role") != "sensitive":
            column["hierarchy"] = None  # a QI's placeholder builder does not carry over
        column["role"] = role
        if kind:
            column["type"] = kind
        else:
            column.pop("type", None)
    return new


def parse_builder_params(text: str) -> dict[str, Any]:
    """A builder's parameters from the hierarchy form: one ``NAME=VALUE`` per line or per
    ``;`` (as the CLI's ``--param``, :func:`anonlab.cli.hierarchy.parse_params`), with
    ``file`` refused: a path is never taken from a form."""
    from anonlab.cli.hierarchy import parse_params

    items = [p.strip() for p in re.split(r"[\n;]", text or "") if p.strip()]
    params = parse_params(items)
    if "file" in params:
        raise FormError(
            "parameters: 'file' names a path on the server, which the app does not take; "
            "upload the hierarchy as an ARX file instead"
        )
    return params


def with_hierarchy(schema: Mapping[str, Any], column: int, hierarchy: Any) -> dict[str, Any]:
    """The schema with column ``column``'s hierarchy set (None, a builder spec, or a file name
    relative to the schema's folder)."""
    new = copy.deepcopy(dict(schema))
    columns = new.get("columns", [])
    if not 0 <= column < len(columns):
        raise FormError(f"no column {column}")
    entry = columns[column]
    if entry.get("role") not in ("quasi-identifier", "sensitive"):
        raise FormError(
            f"column {entry.get('name')!r} is {entry.get('role')!r}: only a quasi-identifier or "
            "a sensitive attribute has a hierarchy"
        )
    entry["hierarchy"] = hierarchy
    if hierarchy is not None:
        entry.pop("value_sets", None)
    return new


def anonymize_argv(form: Mapping[str, Any], data: str, out: str) -> tuple[list[str], dict]:
    """``anonlab anonymize`` for the anonymize form (data and schema are the project's), and
    the request as recorded beside the release (the form's meaningful fields)."""
    algorithm = str(form.get("algorithm") or "")
    if algorithm not in ALGORITHMS:
        raise FormError(f"algorithm: choose one of {', '.join(ALGORITHMS)}, not {algorithm!r}")
    argv = ["anonymize", "--data", data, "--schema", "schema.json", "--out", out,
            "--algorithm", algorithm, "--json"]  # fmt: skip
    request: dict[str, Any] = {"algorithm": algorithm}
    for field, (option, kind) in NUMBERS.items():
        value = _number(field, form.get(field), kind)
        if value is not None:
            argv += [option, value]
            request[field] = value
    models = [m for m in LATTICE_MODELS if form.get(f"model-{m}")]
    if models:
        if algorithm not in ("lattice", "lightning"):
            raise FormError(
                f"models: several models at once are searched by lattice and lightning, not "
                f"{algorithm}; leave the model boxes empty (it uses k and ℓ)"
            )
        argv += ["--model", ",".join(models)]
        request["model"] = ",".join(models)
    for field, allowed, option in (("metric", METRICS, "--metric"),
                                   ("scheme", SCHEMES, "--scheme"),
                                   ("published_format", PUBLISHED_FORMATS,
                                    "--published-format")):  # fmt: skip
        value = str(form.get(field) or "")
        if value:
            if value not in allowed:
                raise FormError(f"{field}: choose one of {', '.join(allowed)}, not {value!r}")
            argv += [option, value]
            request[field] = value
    return argv, request


def audit_argv(form: Mapping[str, Any], release: str) -> list[str]:
    """``anonlab audit`` of ``release`` with the form's thresholds, writing from one run the
    internal report (with the records at risk, keyed by input row id) and the shareable
    (redacted) one."""
    argv = ["audit", release, "--force",
            "--report", f"{release}/audit.html", "--summary", f"{release}/audit.json",
            "--at-risk", f"{release}/at-risk.csv",
            "--redacted-report", f"{release}/audit-redacted.html",
            "--redacted-summary", f"{release}/audit-redacted.json"]  # fmt: skip
    for field, option in THRESHOLDS.items():
        value = _number(field, form.get(field), float)
        if value is not None:
            argv += [option, value]
    return argv


def compare_argv(form: Mapping[str, Any], data: str) -> list[str]:
    """``anonlab compare`` for the compare form: the algorithms ticked, the ℓ values, the
    thresholds."""
    chosen = [a for a in COMPARE_ALGORITHMS if form.get(f"algorithm-{a}")]
    if not chosen:
        raise FormError("algorithms: tick at least one")
    ls = str(form.get("l") or "").strip()
    if not re.fullmatch(r"\d+(\.\.\d+)?(,\d+)*", ls):
        raise FormError(f"ℓ: give a range (2..5), a list (2,4,6) or one value, not {ls!r}")
    argv = ["compare", "--data", data, "--schema", "schema.json", "--out", "compare",
            "--force", "--algorithms", ",".join(chosen), "--l", ls, "--json"]  # fmt: skip
    for field, option in THRESHOLDS.items():
        value = _number(field, form.get(field), float)
        if value is not None:
            argv += [option, value]
    return argv
