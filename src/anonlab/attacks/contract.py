"""The contract every attack keeps: the :class:`Attack` record, the attacker's stated
:class:`Knowledge`, the one result type :class:`Inference`, and the registry the command line,
the audit, ``compare`` and the docs read (issue 18, items 1 and 2).

An attack is registered once, in its own module, with :func:`register`. From the record alone

* ``anonlab attack NAME`` runs it (a generic command where the attack has no hand-written one),
* the audit runs it as a stage (:func:`anonlab.report.audit.audit`),
* ``compare`` counts it among the attacks ("the strongest attack"),
* ``docs/cli.md`` lists it (generated from the command line).

**The adversary's view apart from the ground truth, by structure.** :func:`run` is the only
place an attack is called. It builds the attacker's knowledge from the publisher's copy (the
knowledge is *stated*: the targets, the mined rules, the sensitive values to protect), then
gives the attack :meth:`Release.adversary_copy() <anonlab.release.Release.adversary_copy>`: the
release with the original record-to-value link replaced by what the published files show. The
truth enters only through :attr:`Attack.judge`, which scores the inference against the
publisher's copy and words the :class:`~anonlab.finding.Finding`. A test runs every registered
attack on a release and on the same release with its ground truth permuted within groups and
asserts the inference is the same (tests/attacks/test_contract.py).

Choices:

* One inference per considered record: the **set** of sensitive values the attacker infers the
  record's value lies in, the attacker's **probability** for it, and the **random-worlds
  baseline** of the same set (the probability an attacker with no knowledge beyond the
  published group gives it), with the full posterior where the attack has one (deFinetti).
  An attack that reasons about groups (the worst case) reports each record's group bound.
* An attack's ``cost`` is stated in words (what its running time grows with); the audit's
  budget (:class:`anonlab.report.budget.AuditBudget`) is what bounds it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anonlab.errors import AnonlabError
from anonlab.finding import Finding, plain_json
from anonlab.named_registry import NamedRegistry
from anonlab.release import Release

__all__ = [
    "Attack",
    "Inference",
    "Knowledge",
    "attacks",
    "describe",
    "get",
    "names",
    "promise",
    "register",
    "registered",
    "run",
    "unregister",
]


@dataclass(frozen=True)
class Knowledge:
    """What the attacker is assumed to know beyond the published files, built by the
    publisher from the original data (:attr:`Attack.know`).

    ``facts`` holds the items by name (e.g. ``"targets"``: record positions; ``"rules"``: negative
    association rules mined from the original table); ``words`` says it in a sentence for the
    report. Every attack also knows each record's exact quasi-identifiers and group, the
    literature's worst case, which the published view already carries.
    """

    facts: Mapping[str, Any] = field(default_factory=dict)
    words: str = ""

    def __getitem__(self, name: str) -> Any:
        try:
            return self.facts[name]
        except KeyError:
            raise AnonlabError(
                f"the attacker's knowledge has no {name!r}; it has {sorted(self.facts)}"
            ) from None

    def get(self, name: str, default: Any = None) -> Any:
        return self.facts.get(name, default)


@dataclass
class Inference:
    """What an attack infers, record by record, from the published view and its knowledge.

    Attributes
    ----------
    attack : str
        The registered attack's name.
    values : tuple of str
        The sensitive domain (column order of ``inferred`` and ``posterior``).
    records : ndarray of int, shape (m,)
        Positions of the records the attack considered (its targets, or every record).
    inferred : ndarray of bool, shape (m, d)
        Per record, the set of sensitive values the attacker infers its value lies in.
    probability : ndarray of float, shape (m,)
        The attacker's probability that the record's value lies in ``inferred``.
    baseline : ndarray of float, shape (m,)
        The random-worlds probability of the same set: what the published group alone gives.
    posterior : ndarray of float, shape (m, d), optional
        The full distribution, for attacks that compute one.
    summary : dict
        Aggregate figures the attack computes from the view alone (JSON-ready).
    settings : dict
        The attack's parameters, to run it again.
    detail : object
        The attack's own result object (for its hand-written command's printing).
    """

    attack: str
    values: tuple[str, ...]
    records: np.ndarray
    inferred: np.ndarray
    probability: np.ndarray
    baseline: np.ndarray
    posterior: np.ndarray | None = None
    summary: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    detail: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        m, d = len(self.records), len(self.values)
        self.records = np.asarray(self.records, dtype=np.int64)
        self.inferred = np.asarray(self.inferred, dtype=bool).reshape(m, d)
        self.probability = np.asarray(self.probability, dtype=np.float64).reshape(m)
        self.baseline = np.asarray(self.baseline, dtype=np.float64).reshape(m)
        if self.posterior is not None:
            self.posterior = np.asarray(self.posterior, dtype=np.float64).reshape(m, d)

    def probability_of(self, codes: np.ndarray) -> np.ndarray:
        """The attacker's probability of ``codes`` (one sensitive code per considered record):
        the posterior's entry where the attack has one, else ``probability`` where the code is
        in the inferred set and 0 where the attacker rules it out."""
        codes = np.asarray(codes, dtype=np.int64)
        rows = np.arange(len(self.records))
        if self.posterior is not None:
            return self.posterior[rows, codes]
        return np.where(self.inferred[rows, codes], self.probability, 0.0)

    def holds(self, codes: np.ndarray) -> np.ndarray:
        """Whether each considered record's value (``codes``) lies in its inferred set."""
        codes = np.asarray(codes, dtype=np.int64)
        return self.inferred[np.arange(len(self.records)), codes]

    def same_as(self, other: Inference) -> bool:
        """Equal inferences (the same records, sets, probabilities to 1e-12 and summary)."""

        def close(a: np.ndarray | None, b: np.ndarray | None) -> bool:
            if a is None or b is None:
                return a is None and b is None
            return a.shape == b.shape and bool(np.allclose(a, b, rtol=0, atol=1e-12))

        return (
            self.values == other.values
            and np.array_equal(self.records, other.records)
            and np.array_equal(self.inferred, other.inferred)
            and close(self.probability, other.probability)
            and close(self.baseline, other.baseline)
            and close(self.posterior, other.posterior)
            and plain_json(self.summary) == plain_json(other.summary)
        )

    def to_json(self) -> dict[str, Any]:
        """Per record: position, inferred values, probability and baseline; then the summary
        and settings. Record-level: an internal document, as the audit's findings are."""
        sets = [[self.values[j] for j in np.flatnonzero(row)] for row in self.inferred]
        return plain_json(
            {
                "attack": self.attack,
                "records": [
                    {"record": r, "inferred": s, "probability": p, "random_worlds": b}
                    for r, s, p, b in zip(
                        self.records.tolist(),
                        sets,
                        self.probability.tolist(),
                        self.baseline.tolist(),
                        strict=True,
                    )
                ],
                "summary": self.summary,
                "settings": self.settings,
            }
        )


#: ``know(release, options)``: the attacker's knowledge, built from the publisher's copy.
KnowFunction = Callable[[Release, Mapping[str, Any]], Knowledge]
#: ``infer(view, knowledge, options)``: the inference, from the adversary's copy only.
InferFunction = Callable[[Release, Knowledge, Mapping[str, Any]], Inference]
#: ``judge(release, knowledge, inference, options)``: the finding, scored on the truth.
JudgeFunction = Callable[[Release, Knowledge, Inference, Mapping[str, Any]], Finding]


def _applies_always(release: Release) -> str | None:
    return None


def _know_nothing(release: Release, options: Mapping[str, Any]) -> Knowledge:
    return Knowledge({}, "every record's quasi-identifiers and group")


@dataclass(frozen=True)
class Attack:
    """One attack: who the attacker is, what it needs, and the three steps :func:`run` calls.

    Attributes
    ----------
    name : str
        The registry key: the CLI command (``anonlab attack NAME``), the audit stage, the key of
        its finding.
    title, paper : str
        A title and the paper that defines it.
    attacker : str
        The attacker in words: what they know and do.
    knowledge : tuple of str
        The facts :attr:`know` supplies (besides quasi-identifiers and groups).
    infer : callable
        ``infer(view, knowledge, options) -> Inference``; ``view`` is the adversary's copy.
    judge : callable
        ``judge(release, knowledge, inference, options) -> Finding``: scores the inference
        against the truth and words the verdict.
    know : callable
        ``know(release, options) -> Knowledge``; default: nothing beyond the view.
    applies : callable
        ``applies(release) -> None`` when the attack can run on the release, else the reason it
        cannot (e.g. "needs a release made by Hilb"); the audit shows the reason as "skipped".
    cost : str
        What the running time grows with, in words.
    bound : bool
        True for a worst-case bound over all knowledge of a kind (Martin et al.) rather than
        one concrete attacker; ``compare`` never names a bound "the strongest attack".
    options : tuple of str
        The audit budget's fields the attack reads (its CLI options).
    order : int
        Where the audit runs it among the attacks (smaller first; ties in registration order).
    command : str
        The name of its hand-written ``anonlab attack`` command, where it has one with its own
        options and printing (e.g. ``"rules"``); empty: ``anonlab attack NAME`` is generic.
    """

    name: str
    title: str
    paper: str
    attacker: str
    infer: InferFunction
    judge: JudgeFunction
    knowledge: tuple[str, ...] = ()
    know: KnowFunction = _know_nothing
    applies: Callable[[Release], str | None] = _applies_always
    cost: str = ""
    bound: bool = False
    options: tuple[str, ...] = ()
    order: int = 100
    command: str = ""

    def unavailable(self, release: Release) -> str | None:
        """Why this attack cannot run on ``release`` (None when it can): a release without a
        sensitive attribute has no value to infer, whatever the attack; else :attr:`applies`."""
        if release.table.sensitive is None:
            return (
                "the release has no sensitive attribute (plain k-anonymity): there is no "
                "sensitive value to infer"
            )
        return self.applies(release)

    def finding(self, **fields: Any) -> Finding:
        """A :class:`~anonlab.finding.Finding` of this attack: its key, title, paper and
        attacker from the record, the rest (and any override) from ``fields``."""
        own = {"key": self.name, "title": self.title, "paper": self.paper}
        return Finding(**{**own, "attacker": self.attacker, **fields})


_ATTACKS = NamedRegistry("attack", Attack)
_REGISTRY = _ATTACKS.records
#: Add an :class:`Attack` to the registry and return it (a name twice is an error unless it is
#: the same record, as when a module is imported twice).
register = _ATTACKS.register
#: Remove an attack from the registry (for tests of the registry itself).
unregister = _ATTACKS.unregister
#: ``with registered(toy): ...``: the attack is in the registry inside the block only.
registered = _ATTACKS.registered


def _load() -> None:
    import anonlab.attacks  # noqa: F401  (its modules register the built-in attacks)


def attacks() -> tuple[Attack, ...]:
    """Every registered attack, by ``order`` (ties in order of registration)."""
    _load()
    return tuple(sorted(_REGISTRY.values(), key=lambda a: a.order))


def names() -> tuple[str, ...]:
    """The registered attacks' names."""
    return tuple(a.name for a in attacks())


def get(name: str) -> Attack:
    """The attack registered as ``name``; an error lists the registered names."""
    _load()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise AnonlabError(
            f"no attack named {name!r}; registered attacks: {', '.join(_REGISTRY)}"
        ) from None


def run(
    attack: Attack | str, release: Release, options: Mapping[str, Any] | None = None
) -> tuple[Inference, Finding]:
    """Run one attack on ``release``: knowledge from the publisher's copy, inference from the
    adversary's copy only, the finding scored on the truth.

    Raises :class:`~anonlab.errors.AnonlabError` with the reason when the attack does not apply.
    ``options`` are the audit budget's fields (:class:`anonlab.report.budget.AuditBudget`),
    ``seed`` and an optional ``tick(done, total)`` progress callback.
    """
    attack = get(attack) if isinstance(attack, str) else attack
    options = dict(options or {})
    reason = attack.unavailable(release)
    if reason:
        raise AnonlabError(f"{attack.name}: {reason}")
    knowledge = attack.know(release, options)
    inference = attack.infer(release.adversary_copy(), knowledge, options)
    return inference, attack.judge(release, knowledge, inference, options)


# ------------------------------------------------------------------ shared by the judges
def promise(release: Release) -> tuple[np.ndarray, str]:
    """Per record, the probability its true value should stay under, and the words for it:
    ``1/ℓ`` when the release was made for ℓ, else ``1/m`` (m-confidentiality), else each
    record's own random-worlds probability (the share of its value in its group)."""
    n = release.table.n_rows
    bound, words = stated_promise(release.manifest.get("parameters", {}))
    if bound is not None:
        return np.full(n, bound), words
    hist = np.asarray(release.sensitive_histogram, dtype=np.float64)
    truth = release.table.codes[release.sensitive]
    sizes = np.maximum(release.group_sizes, 1)[release.group]
    return hist[release.group, truth] / sizes, "each record's random-worlds probability"


def stated_promise(parameters: dict) -> tuple[float | None, str]:
    """The promise a release's parameters state, and its words: ``1/ℓ``, else ``1/m``, else
    ``(None, words)``: each record's random-worlds probability, read from its group
    (:func:`promise`)."""
    for key, name in (("l", "ℓ"), ("m", "m")):
        value = parameters.get(key)
        if value:
            return 1.0 / float(value), f"1/{name} = 1/{value}"
    return None, "each record's random-worlds probability"


def describe(release: Release, row: int, attributes: Sequence[str]) -> str:
    """``"age = 39, sex = Male"``: a record's exact values of ``attributes`` ("anyone" if none)."""
    return ", ".join(f"{a} = {release.table.column(a)[row]}" for a in attributes) or "anyone"


def sensitive_labels(release: Release) -> tuple[str, ...]:
    """The sensitive domain's labels, in code order."""
    return tuple(str(v) for v in release.table.values[release.sensitive])


def strongest_sentence(
    release: Release, worst: Sequence[Mapping[str, Any]], *, set_of: bool
) -> str | None:
    """The finding's strongest inference in words, from its first worst record:
    "a person with age = 39 in group 12 has disease = flu with probability 0.83 (random worlds
    0.40)"; ``set_of`` words a set ("has disease in {flu, cold}")."""
    if not worst:
        return None
    top = worst[0]
    known = top["known"]
    who = f"a person with {known}" if known != "anyone" else "a person"
    verb = "in" if set_of else "="
    out = f"{who} in group {top['group']} has {release.sensitive} {verb} {top['inferred']}"
    if top.get("probability") is not None:
        out += f" with probability {top['probability']:.2f}"
        if top.get("random_worlds") is not None:
            out += f" (random worlds {top['random_worlds']:.2f})"
    return out
