"""Privacy-model checks on a :class:`~anonlab.release.Release`, found by name.

Every check reads the release's group sizes and its *published* sensitive histogram (shape
(n_groups, n_values)), is vectorised over groups, and returns a :class:`CheckResult` with the
verdict, the release's achieved level and a per-group report::

    from anonlab import models
    models.available()                       # ['distinct-l-diversity', 'entropy-l-diversity', ...]
    r = models.check(release, "t-closeness", t=0.2)
    r.holds, r.value, r.violating_groups

Each model family has its module, whose function can also be called directly, e.g.
``anonlab.models.t_closeness.t_closeness(release, t=0.2)``. Formulas, citations and the choices
made where papers or peers differ: ``docs/models.md``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from anonlab._validation import require_release
from anonlab.errors import AnonlabError
from anonlab.models import ck_safety as _ck
from anonlab.models import k_anonymity as _k
from anonlab.models import l_diversity as _l
from anonlab.models import m_confidentiality as _m
from anonlab.models import matching_l_diversity as _ml
from anonlab.models import multi_attribute as _ma
from anonlab.models import t_closeness as _t
from anonlab.models.result import CheckResult, build_result
from anonlab.release import Release
from anonlab.table import Table


@dataclass(frozen=True)
class Model:
    """A registered privacy model.

    Attributes
    ----------
    name : str
        Registry name.
    function : callable
        ``function(release, **parameters) -> CheckResult``; validates its parameters.
    description : str
        One line for listings (``anonlab check``, reports).
    worst : {"min", "max"}
        Whether a smaller (``"min"``) or a larger (``"max"``) per-group value is worse.
    monotone : bool
        Monotone under generalization: if every group of a release satisfies the model, so
        does every release whose groups are unions of its groups (a coarser node of the
        generalization lattice). A lattice search may prune with it (LeFevre et al., SIGMOD
        2005, §3).
    monotone_with_suppression : bool
        The records in violating groups never increase when groups merge, so "at most n
        records suppressed" is monotone too (ARX's ``monotonicWithSuppression``).
    reads_sensitive : bool
        The check reads the sensitive values (k-anonymity reads only the group sizes).
    group_statistics : bool
        The check reads only the group sizes and the published sensitive histogram, so it can
        be computed from map-reduced statistics; False for a check that reads the records
        (matching ℓ-diversity's per-record incompatibilities).
    all_attributes : bool
        The check reads every sensitive attribute of a release at once (multi-attribute
        ℓ-diversity); any other model reading sensitive values is checked once per attribute
        by :func:`check`.
    sensitive_hierarchy_when : mapping
        Parameter values under which the check needs a hierarchy on the sensitive attribute
        (t-closeness with ``distance="hierarchical"``); empty if it never does.
    parameters : tuple of str
        Keyword parameters, read from ``function``'s signature.
    required : tuple of str
        Those without a default.
    """

    name: str
    function: Callable[..., CheckResult]
    description: str
    worst: str
    monotone: bool = True
    monotone_with_suppression: bool = False
    reads_sensitive: bool = True
    group_statistics: bool = True
    all_attributes: bool = False
    sensitive_hierarchy_when: Mapping[str, object] = field(default_factory=dict)
    parameters: tuple[str, ...] = field(init=False)
    required: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        sig = inspect.signature(self.function)
        kw = [p for p in sig.parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY]
        object.__setattr__(self, "parameters", tuple(p.name for p in kw))
        object.__setattr__(
            self, "required", tuple(p.name for p in kw if p.default is inspect.Parameter.empty)
        )
        object.__setattr__(self, "sensitive_hierarchy_when", dict(self.sensitive_hierarchy_when))
        unknown = [p for p in self.sensitive_hierarchy_when if p not in self.parameters]
        if unknown:
            raise AnonlabError(
                f"model {self.name!r}: sensitive_hierarchy_when names {unknown}, not among its "
                f"parameters {list(self.parameters)}"
            )

    def __call__(self, release: Release, **parameters: object) -> CheckResult:
        return check(release, self.name, **parameters)

    def needs_sensitive_hierarchy(self, **parameters: object) -> bool:
        """Whether the check with these parameters needs a hierarchy on the sensitive
        attribute (:attr:`sensitive_hierarchy_when`)."""
        when = self.sensitive_hierarchy_when
        return bool(when) and all(parameters.get(p) == v for p, v in when.items())

    def missing(self, table: Table, **parameters: object) -> list[str]:
        """What ``table`` lacks for this model with these parameters, in words (empty when
        nothing): a sensitive attribute, a hierarchy on it. For checks made before the work
        (a lattice search, an audit)."""
        names = table.sensitive_attributes
        if not names:
            return [f"a sensitive attribute (model {self.name!r})"] if self.reads_sensitive else []
        if not self.needs_sensitive_hierarchy(**parameters):
            return []
        said = ", ".join(f"{p}={v!r}" for p, v in self.sensitive_hierarchy_when.items())
        return [
            f"a hierarchy on the sensitive attribute {sens!r} ({self.name} with {said})"
            for sens in names
            if table.schema[sens].hierarchy is None
        ]


MODELS: dict[str, Model] = {
    m.name: m
    for m in (
        Model(
            "k-anonymity",
            _k.k_anonymity,
            "every group has >= k records",
            "min",
            monotone_with_suppression=True,
            reads_sensitive=False,
        ),
        Model(
            "l-diversity",
            _l.l_diversity,
            "frequency form: |G| >= l * S_max(G), optionally over given sensitive values",
            "min",
        ),
        Model(
            "distinct-l-diversity",
            _l.distinct_l_diversity,
            "every group has >= l distinct sensitive values",
            "min",
            monotone_with_suppression=True,
        ),
        Model(
            "entropy-l-diversity",
            _l.entropy_l_diversity,
            "every group's sensitive entropy >= ln l (natural log)",
            "min",
        ),
        Model(
            "recursive-cl-diversity",
            _l.recursive_cl_diversity,
            "r_1 < c * (r_l + ... + r_m), counts sorted descending",
            "max",
        ),
        Model(
            "t-closeness",
            _t.t_closeness,
            "EMD(group, whole table) <= t (equal / ordered / hierarchical distance)",
            "max",
            sensitive_hierarchy_when={"distance": "hierarchical"},
        ),
        Model(
            "ck-safety",
            _ck.ck_safety,
            "maximum disclosure under k basic implications < c (Martin et al., ICDE 2007)",
            "max",
        ),
        Model(
            "m-confidentiality",
            _m.m_confidentiality,
            "frequency condition: no value of the set occurs > floor(|G|/m) times",
            "min",
        ),
        Model(
            "matching-l-diversity",
            _ml.matching_l_diversity,
            "every record keeps >= l values possible in a one-to-one assignment under negative "
            "rules (Li & Li, ICDE 2008)",
            "min",
            group_statistics=False,
        ),
        Model(
            "multi-attribute-l-diversity",
            _ma.multi_attribute_l_diversity,
            "each sensitive attribute l-diverse among the records of a group sharing the other "
            "sensitive attributes' values (Machanavajjhala et al.)",
            "min",
            group_statistics=False,
            all_attributes=True,
        ),
    )
}


#: Other names in use for the same models (the issues and ARX say "recursive ℓ-diversity").
ALIASES = {"recursive-l-diversity": "recursive-cl-diversity"}


def available() -> list[str]:
    """Names of the registered privacy models, sorted."""
    return sorted(MODELS)


def get(model: str) -> Model:
    """The registered model called ``model`` (or an alias); raises naming the valid names."""
    if isinstance(model, str):
        model = ALIASES.get(model, model)
    if not isinstance(model, str) or model not in MODELS:
        raise AnonlabError(f"parameter 'model' must be one of {available()}, got {model!r}")
    return MODELS[model]


#: Joins the models of a combination: ``"k-anonymity,distinct-l-diversity"`` (issue 19).
COMBINATION = ","


def parts(model: str | Sequence[str]) -> list[Model]:
    """The registered models of ``model``: one name, several joined by :data:`COMBINATION`
    (``"k-anonymity,l-diversity,t-closeness"``, as ARX combines criteria), or a sequence of
    names; each once, in the order given. Raises naming an unknown one."""
    names = model.split(COMBINATION) if isinstance(model, str) else list(model)
    found: list[Model] = []
    for name in names:
        name = name.strip() if isinstance(name, str) else name
        if not isinstance(name, str) or (name not in MODELS and name not in ALIASES):
            raise AnonlabError(f"unknown model {name!r}; available: {available()}")
        spec = get(name)
        if spec in found:
            raise AnonlabError(f"model {spec.name!r} is named twice in {model!r}")
        found.append(spec)
    if not found:
        raise AnonlabError(f"parameter 'model' names no model; available: {available()}")
    return found


def combined_name(model: str | Sequence[str]) -> str:
    """The registered name of ``model`` (:func:`parts`), several joined by :data:`COMBINATION`."""
    return COMBINATION.join(spec.name for spec in parts(model))


def parameters_for(spec: Model, params: Mapping[str, object]) -> dict:
    """The parameters of ``params`` that model ``spec`` takes (a combination's parameters are
    shared: ``l`` goes to every ℓ-model named)."""
    return {key: value for key, value in params.items() if key in spec.parameters}


def check(release: Release, model: str, **params: object) -> CheckResult:
    """Check ``release`` against the privacy model called ``model``.

    Parameters
    ----------
    release : Release
    model : str
        One of :func:`available`.
    **params
        The model's parameters (e.g. ``k=5``; ``l=3, sensitive_values=["HIV"]``; ``t=0.2``).

    Returns
    -------
    CheckResult

    Raises
    ------
    AnonlabError
        For an unknown model, an unknown or missing parameter, or an invalid value; the message
        names the parameter and the valid choices.
    """
    require_release(release, where="models.check")
    if isinstance(model, str) and COMBINATION in model:
        return _check_combination(release, parts(model), params)
    spec = get(model)
    unknown = [p for p in params if p not in spec.parameters]
    if unknown:
        raise AnonlabError(
            f"model {spec.name!r} has no parameter {unknown[0]!r}; its parameters are "
            f"{list(spec.parameters)}"
        )
    missing = [p for p in spec.required if p not in params]
    if missing:
        raise AnonlabError(
            f"model {spec.name!r} needs parameter {missing[0]!r}; its parameters are "
            f"{list(spec.parameters)} (required: {list(spec.required)})"
        )
    names = release.table.sensitive_attributes
    if spec.reads_sensitive and len(names) > 1 and not spec.all_attributes:
        return _check_each(release, spec, names, params)
    return spec.function(release, **params)


def _check_combination(release: Release, specs: list[Model], params: dict) -> CheckResult:
    """Several models at once: each checked with the parameters it takes, the release holds
    only if every one holds (ARX's combined criteria).

    The models' levels are not comparable (k counts records, t is a distance), so a group's
    value is the number of the models it violates (0 where it satisfies all), the achieved
    level the largest such number, and ``details["per_model"]`` each model's own verdict and
    level. Every parameter given must be taken by some model of the combination.
    """
    taken = {p for spec in specs for p in spec.parameters}
    unknown = [p for p in params if p not in taken]
    if unknown:
        raise AnonlabError(
            f"no model of {COMBINATION.join(s.name for s in specs)!r} takes parameter "
            f"{unknown[0]!r}; their parameters are {sorted(taken)}"
        )
    results = [check(release, spec.name, **parameters_for(spec, params)) for spec in specs]
    count = np.zeros(len(results[0].per_group), dtype=np.int64)
    for r in results:
        count[np.asarray(r.violating_groups, dtype=np.int64)] += 1
    details = {
        "per_model": {
            r.model: {
                "parameters": r.parameters,
                "holds": bool(r.holds),
                "value": r.value,
                "violating_groups": r.n_violating_groups,
                "violating_records": int(r.violating_records),
            }
            for r in results
        },
        "value": "the number of models a group violates",
    }
    parameters = {key: value for r in results for key, value in r.parameters.items()}
    return build_result(
        COMBINATION.join(r.model for r in results), parameters, count, count > 0,
        release.group_sizes, worst="max", details=details,
    )  # fmt: skip


def _check_each(release: Release, spec: Model, names: tuple[str, ...], params: dict) -> CheckResult:
    """``spec`` on a release with several sensitive attributes: checked on each
    (:meth:`Release.for_sensitive <anonlab.release.Release.for_sensitive>`) and held only if it
    holds for every one, as ARX applies a criterion per sensitive attribute.

    Each group's value is its worst over the attributes, the achieved level the worst of
    those, and a group violates the model if it does for any attribute;
    ``details["per_attribute"]`` gives each attribute's verdict, level and violations; a
    parameter the checks filled in differently per attribute (t-closeness's automatic
    distance) is given per attribute. ``sensitive_values`` names values of one attribute and is
    refused. This is not Machanavajjhala et al.'s multi-attribute ℓ-diversity (ICDE 2006 /
    TKDD 2007, multiple sensitive attributes; :mod:`anonlab.models.multi_attribute` checks
    it), which also treats the other sensitive attributes as quasi-identifiers (an attacker
    who knows a person's insurer); the audit's attacks run per attribute as well.
    """
    if params.get("sensitive_values") is not None:
        raise AnonlabError(
            f"sensitive_values names values of one sensitive attribute and the release has "
            f"{len(names)} ({', '.join(names)}); every value of each is protected, or check "
            "one attribute (release.for_sensitive(name))"
        )
    results = {
        name: spec.function(release.for_sensitive(name), **_for_attribute(params, name, names))
        for name in names
    }
    first = next(iter(results.values()))
    stack = np.stack([np.asarray(r.per_group, dtype=np.float64) for r in results.values()])
    per_group = stack.min(axis=0) if spec.worst == "min" else stack.max(axis=0)
    if all(np.asarray(r.per_group).dtype.kind in "iu" for r in results.values()):
        per_group = per_group.astype(np.int64)
    violating = np.zeros(len(per_group), dtype=bool)
    for r in results.values():
        violating[np.asarray(r.violating_groups, dtype=np.int64)] = True
    details = {
        "per_attribute": {
            name: {
                "holds": bool(r.holds),
                "value": r.value,
                "violating_groups": r.n_violating_groups,
                "violating_records": int(r.violating_records),
                **({"details": r.details} if r.details else {}),
            }
            for name, r in results.items()
        }
    }
    parameters: dict = {}
    for key in first.parameters:  # one value, or one per attribute where they differ
        values = {name: r.parameters.get(key) for name, r in results.items()}
        same = all(v == values[names[0]] for v in values.values())
        parameters[key] = values[names[0]] if same else values
    parameters["sensitive_attributes"] = list(names)
    return build_result(
        spec.name, parameters, per_group, violating, release.group_sizes,
        worst=spec.worst, details=details,
    )  # fmt: skip


def _for_attribute(params: dict, name: str, names: tuple[str, ...]) -> dict:
    """``params`` for sensitive attribute ``name``: a value given per attribute (a mapping
    keyed by exactly the sensitive attributes, as Mondrian records t-closeness's distance)
    becomes that attribute's."""
    return {
        key: value[name] if isinstance(value, Mapping) and set(value) == set(names) else value
        for key, value in params.items()
    }


__all__ = [
    "ALIASES",
    "COMBINATION",
    "MODELS",
    "CheckResult",
    "Model",
    "available",
    "check",
    "combined_name",
    "get",
    "parameters_for",
    "parts",
]
