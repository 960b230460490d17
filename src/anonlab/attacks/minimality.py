"""The minimality attack on generalization, by brute force (Jin, Zhang, Das, ASAP, Example 1).

Wong et al. (VLDB 2007) observed that an algorithm which generalizes *only as much as needed*
for ℓ-diversity reveals, by generalizing at all, that the ungeneralized data violated it. Jin et
al.'s Example 1 (Table 1) makes it concrete with one quasi-identifier, Sex, and only AIDS
sensitive: the 2-diverse output ``F gastritis; F heart disease; * cancer; * diabetes; * AIDS;
* AIDS`` can only come from a table with exactly two males, both with AIDS — naive Nash puts
Tom's chance of AIDS at 1/2, smart Sam at 1 (notes/jin-asap-algorithm-safe-publishing.md §3.1,
§3.4).

This module reproduces the inference exactly (fractions, no sampling):

* :func:`minimal_suppression` is the toy publishing algorithm of the notes' §3.1 test:
  suppress (publish as ``*``) the quasi-identifier of the fewest records such that every
  published group — the records sharing a published value, ``*`` included — has a share of
  sensitive values of at most ``1/ℓ``. Where several choices are minimal, one is taken uniformly
  at random, so the algorithm is a distribution over published tables.
* :func:`minimality_attack` enumerates every original table the published one can come from
  (each ``*`` row may hold any QI value; the sensitive values are published), optionally
  restricted by the adversary's count of each QI value (Table 1c, a voter list), and weighs each
  by ``Pr[algorithm(T') = T*]`` (the smart world, Def. 4 normalised) against the uniform naive
  world (Def. 3).
* :func:`holder_worlds` is Table 5's view: a world is the set of people who hold a sensitive
  value; external rules (e.g. "Amy and Grace do not have AIDS", "at least one male has AIDS")
  filter the worlds.

Choices where the paper is silent: a group is the set of records with the same published value
(so ``*`` records form one group); empty groups impose nothing; the tie among minimal
suppressions is broken uniformly at random. Inputs are tiny (at most :data:`MAX_RECORDS`
records): everything is enumerated.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from anonlab._validation import check_int
from anonlab.errors import AnonlabError

SUPPRESSED = "*"
#: Largest table enumerated (2**n suppression sets per original).
MAX_RECORDS = 14

Row = tuple[str, str]  # (quasi-identifier value, sensitive value)
PublishedTable = tuple[Row, ...]  # sorted rows: tables are multisets


def _canonical(rows: Sequence[Row]) -> PublishedTable:
    return tuple(sorted((str(q), str(s)) for q, s in rows))


def _diverse(rows: Sequence[Row], l: int, sensitive: frozenset[str]) -> bool:
    groups: dict[str, list[int]] = {}
    for q, s in rows:
        c = groups.setdefault(q, [0, 0])
        c[0] += 1
        c[1] += s in sensitive
    return all(l * k <= n for n, k in groups.values())


def minimal_suppression(
    rows: Sequence[Row], l: int, sensitive_values: Sequence[str]
) -> dict[PublishedTable, Fraction]:
    """The toy algorithm of Example 1: fewest suppressions giving sensitive share <= 1/ℓ.

    Parameters
    ----------
    rows : sequence of (qi, sensitive) pairs
        The original table.
    l : int
    sensitive_values : sequence of str
        The values whose share is limited (Example 1: ``["AIDS"]``).

    Returns
    -------
    dict
        Each published table (sorted rows, suppressed QI as ``"*"``) with its probability; the
        algorithm picks uniformly among the minimal suppression sets.
    """
    l = check_int("l", l, minimum=1)
    rows = [(str(q), str(s)) for q, s in rows]
    if len(rows) > MAX_RECORDS:
        raise AnonlabError(
            f"minimal_suppression enumerates every suppression set: at most {MAX_RECORDS} "
            f"records, got {len(rows)}"
        )
    sensitive = frozenset(map(str, sensitive_values))
    n = len(rows)
    for size in range(n + 1):
        outputs: Counter[PublishedTable] = Counter()
        for chosen in itertools.combinations(range(n), size):
            pub = [(SUPPRESSED if i in chosen else q, s) for i, (q, s) in enumerate(rows)]
            if _diverse(pub, l, sensitive):
                outputs[_canonical(pub)] += 1
        if outputs:
            total = sum(outputs.values())
            return {t: Fraction(c, total) for t, c in outputs.items()}
    raise AnonlabError(
        f"no suppression makes the table {l}-diverse: more than 1/{l} of all records hold "
        f"{sorted(sensitive)}"
    )


@dataclass(frozen=True)
class MinimalityResult:
    """The naive and smart worlds of a generalized release with one quasi-identifier.

    Attributes
    ----------
    published : tuple of rows
        The published rows, in the order given.
    worlds : list of (tuple of str, Fraction, Fraction)
        Each candidate original (the QI of each published row, in ``published`` order) with its
        naive and smart probability.
    """

    published: PublishedTable
    sensitive_values: frozenset[str]
    worlds: list[tuple[tuple[str, ...], Fraction, Fraction]]

    def row_posterior(self, row: int, value: str, world: str = "smart") -> Fraction:
        """Probability that published row ``row`` originally had QI ``value``."""
        col = 2 if world == "smart" else 1
        return sum((w[col] for w in self.worlds if w[0][row] == value), Fraction(0))

    def sensitive_given_qi(self, value: str, world: str = "smart") -> Fraction:
        """Probability that a person with QI ``value`` (e.g. Tom, male) holds a sensitive value.

        In a world, people with QI ``value`` are matched to its rows uniformly, so the chance is
        the share of sensitive values among those rows; worlds without such a row are skipped
        (the person exists, so they are impossible) and the rest renormalised.
        """
        col = 2 if world == "smart" else 1
        num = Fraction(0)
        den = Fraction(0)
        for qi, *weights in self.worlds:
            w = weights[col - 1]
            idx = [i for i, q in enumerate(qi) if q == value]
            if not idx or not w:
                continue
            k = sum(self.published[i][1] in self.sensitive_values for i in idx)
            num += w * Fraction(k, len(idx))
            den += w
        if not den:
            raise AnonlabError(f"no {world} world has a record with QI {value!r}")
        return num / den

    @property
    def smart_worlds(self) -> list[tuple[str, ...]]:
        return [w[0] for w in self.worlds if w[2] > 0]


def minimality_attack(
    published: Sequence[Row],
    l: int,
    sensitive_values: Sequence[str],
    qi_domain: Sequence[str],
    *,
    qi_counts: Mapping[str, int] | None = None,
    algorithm: Callable[..., dict] = minimal_suppression,
) -> MinimalityResult:
    """Enumerate the originals of a published table and weigh them by the algorithm.

    Parameters
    ----------
    published : sequence of (qi, sensitive) pairs
        ``qi`` is a value of ``qi_domain`` or ``"*"``.
    l, sensitive_values
        The algorithm's parameters.
    qi_domain : sequence of str
        The values a suppressed QI may hide (Example 1: ``["F", "M"]``).
    qi_counts : mapping, optional
        External knowledge: how many people have each QI value (Table 1c gives F 4, M 2).
    algorithm : callable
        ``algorithm(rows, l, sensitive_values) -> {published table: probability}``.

    Returns
    -------
    MinimalityResult
    """
    pub = [(str(q), str(s)) for q, s in published]
    if len(pub) > MAX_RECORDS:
        raise AnonlabError(f"at most {MAX_RECORDS} published rows can be enumerated")
    domain = [str(v) for v in qi_domain]
    for q, _ in pub:
        if q != SUPPRESSED and q not in domain:
            raise AnonlabError(f"published QI value {q!r} is not in qi_domain {domain}")
    target = _canonical(pub)
    choices = [domain if q == SUPPRESSED else [q] for q, _ in pub]
    raw = []
    for qi in itertools.product(*choices):
        if qi_counts is not None:
            counts = Counter(qi)
            if any(counts.get(v, 0) != c for v, c in qi_counts.items()):
                continue
        original = list(zip(qi, (s for _, s in pub), strict=True))
        outputs = algorithm(original, l, sensitive_values)
        raw.append((tuple(qi), outputs.get(target, Fraction(0))))
    if not raw:
        raise AnonlabError("no original table is consistent with the published one and qi_counts")
    naive = Fraction(1, len(raw))
    total = sum(w for _, w in raw)
    if not total:
        raise AnonlabError("the algorithm cannot produce this published table from any original")
    worlds = [(qi, naive, w / total) for qi, w in raw]
    return MinimalityResult(tuple(pub), frozenset(map(str, sensitive_values)), worlds)


def holder_worlds(
    people: Mapping[str, str],
    published: Sequence[Row],
    l: int,
    sensitive_values: Sequence[str],
    *,
    rules: Sequence[Callable[[frozenset[str]], bool]] = (),
) -> tuple[list[frozenset[str]], list[frozenset[str]]]:
    """Table 5: worlds are the sets of people who hold a sensitive value.

    A world is *naive-consistent* when some matching of people to published rows covers each
    person's QI and gives the holders exactly the sensitive rows, and it satisfies every rule;
    it is *smart* when, moreover, the algorithm run on it (holders get a sensitive value, the
    others a non-sensitive one; only the share matters to it) can publish a table with the
    published (QI, sensitive-or-not) rows.

    Returns
    -------
    (naive worlds, smart worlds)
    """
    names = list(people)
    if len(names) > MAX_RECORDS:
        raise AnonlabError(f"at most {MAX_RECORDS} people can be enumerated")
    sensitive = frozenset(map(str, sensitive_values))
    pub = [(str(q), str(s) in sensitive) for q, s in published]
    if len(pub) != len(names):
        raise AnonlabError(f"{len(names)} people but {len(pub)} published rows")
    n_holders = sum(flag for _, flag in pub)
    target = sorted((q, flag) for q, flag in pub)
    naive: list[frozenset[str]] = []
    smart: list[frozenset[str]] = []
    for holders in itertools.combinations(names, n_holders):
        world = frozenset(holders)
        if not all(rule(world) for rule in rules):
            continue
        # a matching exists iff, per published QI value v != *, the rows (v, flag) can be
        # filled by people with QI v and that flag; the * rows take anyone left
        need = Counter((q, f) for q, f in pub if q != SUPPRESSED)
        have = Counter((people[p], p in world) for p in names)
        if any(have[key] < c for key, c in need.items()):
            continue
        naive.append(world)
        marker = sorted(sensitive)[0]
        rows = [(people[p], marker if p in world else "\x00other") for p in names]
        outputs = minimal_suppression(rows, l, [marker])
        reachable = any(sorted((q, s == marker) for q, s in t) == target for t in outputs)
        if reachable:
            smart.append(world)
    return naive, smart
