"""Maximum disclosure of a bucketized release under worst-case background knowledge: the engine.

The computation behind the worst-case attack (:mod:`anonlab.attacks.worst_case`) and the
(c,k)-safety check (:mod:`anonlab.models.ck_safety`), kept below both layers so that neither
imports the other's private parts (issue 18, item 3).

Martin, Kifer, Machanavajjhala, Gehrke and Halpern, "Worst-Case Background Knowledge for
Privacy-Preserving Data Publishing" (ICDE 2007); reading notes in
``notes/martin-worst-case-background-knowledge.md``.

The attacker knows who is in which bucket (full identification information) and ``k`` pieces of
background knowledge. Under the random-worlds assumption every table consistent with the release
is equally likely. Two knowledge languages are supported:

* ``"implications"``: ``L^k_basic``, conjunctions of ``k`` basic implications
  (Def. 2, 4). By Theorem 9 and Lemmas 10-11 the worst case is ``k`` *simple* implications
  with a common consequent, ``AND_i (A_i -> A)``, and by Formula (1)

      Pr(A | B, AND_i (A_i -> A)) = 1 / (1 + R),
      R = Pr(not A and AND_i not A_i | B) / Pr(A | B),

  so maximum disclosure is ``1 / (1 + R*)`` with ``R*`` the minimum of ``R`` over atoms.
  Within one bucket the minimum of ``Pr(AND not A_ij | B)`` is Lemma 12's closed form
  ``prod_i (n_b - i - sum_{j<k_i} n_b(s^j)) / (n_b - i)`` minimised over the non-increasing
  compositions ``k_0 >= k_1 >= ...`` of the atoms (Algorithm 1, MINIMIZE1). Buckets are
  independent, so ``R*`` is Algorithm 2 (MINIMIZE2), a min-product knapsack over buckets.
* ``"negations"``: ``k`` negated atoms ``not (t_p[S] = s)``, the attacker of ℓ-diversity (the
  baseline curve of the paper's Figure 5). The paper gives no algorithm; the closed form
  (notes §6, checked by brute force) is ``max_b n_b(s^0) / (n_b - sum_{j=1..k} n_b(s^j))``.

Fixes to the paper's pseudo-code (notes §4.2, §4.4, §9):

1. MINIMIZE1 returns 1 once the person index reaches ``n_b`` (the printed line 4 divides by
   zero when ``k > n_b``); the left-over atoms are wasted, which is legal because implications
   may repeat.
2. Each Lemma-12 factor is clamped at 0 (``max(0, n_b - i - S(k_i)) / (n_b - i)``).
3. MINIMIZE2's base case returns 1 when the target atom ``A`` has been placed and ∞ otherwise
   (the printed base case always returns ∞), and the top-level call is
   ``MINIMIZE2(0, k, false)`` (the text says ``true``, which would place ``A`` nowhere).

Implementation. Only a bucket's size and its value counts sorted in decreasing order matter,
so MINIMIZE1 runs once per distinct count profile, vectorised over profiles with the O(k³)
recurrence of notes §4.2(3). MINIMIZE2 is evaluated as the equivalent min-product knapsack
(notes §4.4), combining buckets pairwise in a balanced tree (each level one vectorised
min-convolution), which yields the whole curve ``k = 0..K`` at once and a witness by
backtracking. At most ``k + 1`` buckets receive atoms, so each profile enters the knapsack at
most ``k + 1`` times. Maximum disclosure is 1 as soon as some bucket has at most ``k + 1``
distinct values (notes §7.6(2)), so the work never exceeds ``k = min_b d_b - 1``.

Values are floats by default; ``exact=True`` computes with :class:`fractions.Fraction` (numpy
object arrays; meant for small releases).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from anonlab._validation import check_choice, check_int
from anonlab.errors import AnonlabError
from anonlab.release import Release

LANGUAGES = ("implications", "negations")

Number = float | Fraction


# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Statement:
    """One piece of the attacker's background knowledge.

    ``kind == "implication"``: "if record ``if_record`` has ``if_value`` then record
    ``then_record`` has ``then_value``" (a simple implication ``A_i -> A``). When both records
    are the same person it says that person does not have ``if_value``.
    ``kind == "negation"``: "record ``if_record`` does not have ``if_value``"; the ``then_*``
    fields are None.

    Records are positions in the release's table (row 0, 1, ...), or None when the release
    carries no per-record groups (a candidate known by its statistics); ``*_group`` is the
    record's group (bucket).
    """

    kind: str
    if_record: int | None
    if_group: int
    if_value: str
    then_record: int | None
    then_group: int | None
    then_value: str | None
    sentence: str

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "if_record": self.if_record,
            "if_group": self.if_group,
            "if_value": self.if_value,
            "then_record": self.then_record,
            "then_group": self.then_group,
            "then_value": self.then_value,
            "sentence": self.sentence,
        }


@dataclass(frozen=True)
class DisclosureResult:
    """Maximum disclosure of a release and a witness that achieves it.

    Attributes
    ----------
    value : float or Fraction
        The maximum, over target persons and values and over the attacker's ``k`` statements,
        of the probability of the target atom (Def. 6).
    k : int
    language : {"implications", "negations"}
    exact : bool
        Whether ``value`` and ``prior`` are exact fractions.
    group : int
        The target's group (bucket).
    record : int or None
        The target's position in the release (None for a statistics-only release).
    sensitive_value : str
        The value the attacker infers.
    prior : float or Fraction
        The probability of the target atom with no background knowledge, ``n_b(s)/n_b``.
    statements : tuple of Statement
        The background knowledge. It may hold fewer than ``k`` statements: the remaining ones
        would add nothing (any of them repeated).
    """

    value: Number
    k: int
    language: str
    exact: bool
    group: int
    record: int | None
    sensitive_value: str
    prior: Number
    statements: tuple[Statement, ...]

    @property
    def sentences(self) -> tuple[str, ...]:
        """The statements in words."""
        return tuple(s.sentence for s in self.statements)

    def explain(self) -> str:
        """A paragraph a publisher can read."""
        who = _person(self.record, self.group)
        head = (
            f"With {self.k} piece(s) of background knowledge ({self.language}), an attacker "
            f"concludes that {who} has {self.sensitive_value!r} with probability "
            f"{float(self.value):.4g} (prior {float(self.prior):.4g})"
        )
        if not self.statements:
            return head + "."
        body = "; ".join(f"({i + 1}) {s}" for i, s in enumerate(self.sentences))
        return f"{head}, knowing: {body}."

    def to_json(self) -> dict[str, Any]:
        return {
            "value": float(self.value),
            "value_exact": str(self.value) if self.exact else None,
            "k": self.k,
            "language": self.language,
            "group": self.group,
            "record": self.record,
            "sensitive_value": self.sensitive_value,
            "prior": float(self.prior),
            "statements": [s.to_json() for s in self.statements],
        }


def _person(record: int | None, group: int) -> str:
    return f"a person in group {group}" if record is None else f"record {record} (group {group})"


def check_disclosure_inputs(release, k, language, exact, name="k"):
    """``(release, k, language, exact)`` checked, each error naming the parameter; the
    release must have records."""
    if not isinstance(release, Release):
        raise AnonlabError(
            f"parameter 'release' must be an anonlab Release, got {type(release).__name__}"
        )
    k = check_int(name, k, minimum=0)
    language = check_choice("language", language, LANGUAGES)
    if not isinstance(exact, bool | np.bool_):
        raise AnonlabError(f"parameter 'exact' must be True or False, got {exact!r}")
    if release.table.n_rows == 0 or release.n_groups == 0:
        raise AnonlabError("the release has no records: maximum disclosure is undefined")
    return release, k, language, bool(exact)


# ---------------------------------------------------------------------------------------------
# Numerics
# ---------------------------------------------------------------------------------------------


def _ratio(num: int, den: int, exact: bool) -> Number:
    return Fraction(num, den) if exact else num / den


def _as_number(x: Any, exact: bool) -> Number:
    return Fraction(x) if exact else float(x)


def _minimize1_table(prefix: np.ndarray, n: np.ndarray, H: int, exact: bool) -> np.ndarray:
    """``g(h) = MINIMIZE1(b, 0, h, h)`` for ``h = 0..H``, for every profile at once.

    ``prefix[:, m]`` is ``S(m) = sum_{j<m} n_b(s^j)`` (shape ``(P, H + 1)``), ``n`` the bucket
    sizes. O(H³) vector operations over profiles, with the recurrence of notes §4.2(3):
    ``f(i, c, r) = min(f(i, c - 1, r), φ(i, c) · f(i + 1, c, r - c))`` for ``c <= r``,
    ``f(i, c, r) = f(i, r, r)`` for ``c > r`` and 1 when ``r = 0``, ``c = 0`` or ``i >= n_b``
    (fix 1), ``φ`` being Lemma 12's factor clamped at 0 (fix 2).
    """
    P = len(n)
    dtype = object if exact else np.float64
    one = Fraction(1) if exact else 1.0
    nxt = np.full((H + 1, H + 1, P), one, dtype=dtype)  # f(i + 1, c, r)
    for i in range(H - 1, -1, -1):  # person index: each person takes >= 1 atom, so i < H
        alive = n > i
        den = np.maximum(n - i, 1)
        num = np.maximum(n[:, None] - i - prefix, 0)  # (P, H + 1) over c
        if exact:
            phi = np.empty((H + 1, P), dtype=object)
            for c in range(H + 1):
                phi[c] = [Fraction(int(a), int(b)) for a, b in zip(num[:, c], den, strict=True)]
        else:
            phi = (num / den[:, None]).T
        cur = np.full((H + 1, H + 1, P), one, dtype=dtype)
        for r in range(1, H + 1):
            for c in range(1, r + 1):
                cand = phi[c] * nxt[c, r - c]
                cur[c, r] = np.minimum(cur[c - 1, r], cand)
            for c in range(r + 1, H + 1):
                cur[c, r] = cur[r, r]
        cur[:, :, ~alive] = one
        nxt = cur
    return np.stack([nxt[h, h] for h in range(H + 1)], axis=1)  # (P, H + 1)


def _composition(prefix: list[int], n: int, h: int) -> tuple[int, ...]:
    """An argmin composition ``k_0 >= k_1 >= ...`` of ``MINIMIZE1(b, 0, h, h)`` (Lemma 12).

    Exact arithmetic, O(h³) memoised; used to write out the witness of a few buckets.
    """
    memo: dict[tuple[int, int, int], tuple[Fraction, tuple[int, ...]]] = {}

    def f(i: int, c: int, r: int) -> tuple[Fraction, tuple[int, ...]]:
        if r == 0 or c == 0 or i >= n:
            return Fraction(1), ()
        if c > r:
            return f(i, r, r)
        key = (i, c, r)
        if key not in memo:
            best = f(i, c - 1, r)
            val, comp = f(i + 1, c, r - c)
            cand = Fraction(max(0, n - i - prefix[c]), n - i) * val
            if cand < best[0]:
                best = (cand, (c, *comp))
            memo[key] = best
        return memo[key]

    return f(0, h, h)[1]


def _conv(L: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Min-product convolution of rows: ``out[:, h] = min_m L[:, h - m] * R[:, m]``.

    Returns the values and the argmin ``m`` (atoms given to ``R``), smallest among ties.
    """
    H1 = L.shape[1]
    hh = np.arange(H1)[:, None]
    mm = np.arange(H1)[None, :]
    valid = mm <= hh
    idx = np.where(valid, hh - mm, 0)
    prod = L[:, idx] * R[:, None, :]
    prod = np.where(valid, prod, np.inf)
    arg = prod.argmin(axis=2)
    val = np.take_along_axis(prod, arg[..., None], 2)[..., 0]
    return val, arg


class DisclosureEngine:
    """Shared state of one computation: profiles, MINIMIZE1 tables, knapsack tree."""

    def __init__(
        self, release: Release, k: int, language: str, exact: bool, *, cap: bool = True
    ) -> None:
        self.release = release
        self.language = language
        self.exact = exact
        hist = np.asarray(release.sensitive_histogram, dtype=np.int64)
        self.hist = hist
        self.n = hist.sum(axis=1)
        if np.any(self.n == 0):
            raise AnonlabError("the release has an empty group: maximum disclosure is undefined")
        self.order = np.argsort(-hist, axis=1, kind="stable")  # s_b^0, s_b^1, ... (codes)
        counts = np.take_along_axis(hist, self.order, axis=1)
        self.distinct = (hist > 0).sum(axis=1)
        # The maximum is 1 once some bucket has at most k + 1 distinct values (notes §7.6(2)),
        # so the curve stops there. Per group it does not: a target in a bucket with many
        # values is pinned only when the k atoms can rule out a whole bucket (this one or
        # another), so the per-group diagnosis runs the full k (``cap=False``).
        self.k_cap = int(self.distinct.min()) - 1 if cap else k
        self.K = min(k, self.k_cap)
        width = self.K + 2
        if counts.shape[1] < width:
            counts = np.pad(counts, ((0, 0), (0, width - counts.shape[1])))
        self.counts = counts[:, :width]
        key = np.column_stack([self.n, self.counts])
        prof, self.first, self.inverse = np.unique(
            key, axis=0, return_index=True, return_inverse=True
        )
        self.inverse = self.inverse.ravel()
        self.p_n = prof[:, 0]
        self.p_counts = prof[:, 1:]
        self.p_prefix = np.concatenate(
            [np.zeros((len(prof), 1), dtype=np.int64), np.cumsum(self.p_counts, axis=1)], axis=1
        )
        self._tree = None

    # ----------------------------------------------------------------- negations (notes §6)
    def _neg_values(self, K: int) -> np.ndarray:
        """``(P, K + 1)``: per profile, ``n0 / (n - sum_{j=1..k} n_j)`` for ``k = 0..K``."""
        P = len(self.p_n)
        out = np.empty((P, K + 1), dtype=object if self.exact else np.float64)
        c0 = self.p_counts[:, 0]
        for kk in range(K + 1):
            den = self.p_n - (self.p_prefix[:, kk + 1] - c0)
            if self.exact:
                out[:, kk] = [Fraction(int(a), int(b)) for a, b in zip(c0, den, strict=True)]
            else:
                out[:, kk] = c0 / den
        return out

    # ----------------------------------------------------------------- implications
    def _g(self) -> np.ndarray:
        if not hasattr(self, "_g_table"):
            self._g_table = _minimize1_table(
                self.p_prefix[:, : self.K + 2], self.p_n, self.K + 1, self.exact
            )
        return self._g_table

    def _leaves(self):
        """Knapsack items: each profile ``min(multiplicity, K + 1)`` times."""
        g = self._g()
        H = self.K
        c0 = self.p_counts[:, 0]
        if self.exact:
            scale = np.array(
                [Fraction(int(a), int(b)) for a, b in zip(self.p_n, c0, strict=True)], dtype=object
            )
        else:
            scale = self.p_n / c0
        F0 = g[:, : H + 1]
        F1 = g[:, 1 : H + 2] * scale[:, None]  # G_b(h) = g_b(h + 1) n_b / n_b(s^0)
        sort = np.argsort(self.inverse, kind="stable")
        prof_of_sorted = self.inverse[sort]
        starts = np.searchsorted(prof_of_sorted, np.arange(len(self.p_n)))
        rank = np.arange(len(sort)) - starts[prof_of_sorted]
        keep = rank <= H
        item_bucket = sort[keep]
        item_prof = prof_of_sorted[keep]
        return F0[item_prof], F1[item_prof], item_bucket, item_prof

    def _build(self):
        if self._tree is not None:
            return self._tree
        F0, F1, item_bucket, item_prof = self._leaves()
        levels = [(F0, F1)]
        choices = []
        while len(levels[-1][0]) > 1:
            A0, A1 = levels[-1]
            m = len(A0) // 2
            L0, R0, L1, R1 = (
                A0[0 : 2 * m : 2],
                A0[1 : 2 * m : 2],
                A1[0 : 2 * m : 2],
                A1[1 : 2 * m : 2],
            )
            v0, a0 = _conv(L0, R0)
            va, aa = _conv(L1, R0)  # A on the left
            vb, ab = _conv(L0, R1)  # A on the right
            right = vb < va
            v1 = np.where(right, vb, va)
            a1 = np.where(right, ab, aa)
            if len(A0) % 2:
                v0 = np.concatenate([v0, A0[-1:]])
                v1 = np.concatenate([v1, A1[-1:]])
            choices.append((m, a0, right, a1))
            levels.append((v0, v1))
        self._tree = (levels, choices, item_bucket, item_prof)
        return self._tree

    # ----------------------------------------------------------------- outputs
    def _finish(self, R: Any) -> Number:
        if self.exact:
            return Fraction(1) / (1 + Fraction(R))
        return 1.0 / (1.0 + float(R))

    def curve(self, k_max: int):
        K = self.K
        if self.language == "negations":
            best = self._neg_values(K).max(axis=0)
            vals = [_as_number(v, self.exact) for v in best]
        else:
            levels = self._build()[0]
            vals = [self._finish(v) for v in levels[-1][1][0]]
        one = Fraction(1) if self.exact else 1.0
        vals = vals + [one] * (k_max - K)
        return vals if self.exact else np.array(vals, dtype=np.float64)

    def by_group(self, k: int):
        curve = self.by_group_curve()
        return curve[self.K]

    def by_group_curve(self):
        """Per group, the maximum disclosure for ``k = 0..K``: shape (K + 1, n_groups) (a list
        of lists of Fractions when exact). One dynamic program gives every ``k``."""
        if self.language == "negations":
            per_prof = self._neg_values(self.K)
        else:
            per_prof = self._target_fixed()  # (profiles, K + 1)
        if self.exact:
            done = [[self._finish_prob(v) for v in row] for row in per_prof]
            return [[done[p][k] for p in self.inverse] for k in range(self.K + 1)]
        values = per_prof.astype(np.float64)
        if self.language != "negations":
            values = 1.0 / (1.0 + values)  # as _finish, vectorised over profiles
        return values[self.inverse].T

    def _finish_prob(self, v):
        if self.language == "negations":
            return _as_number(v, self.exact)
        return self._finish(v)

    def _target_fixed(self) -> np.ndarray:
        """Per profile, ``R`` minimised with the target atom in a bucket of that profile and
        the other atoms anywhere else: ``min_h G_j(h) · C_j(k - h)`` where ``C_j`` is the
        knapsack of every other bucket (computed top-down over the tree)."""
        levels, choices, item_bucket, item_prof = self._build()
        one = Fraction(1) if self.exact else 1.0
        comp = np.full((1, self.K + 1), one, dtype=object if self.exact else np.float64)
        for t in range(len(choices) - 1, -1, -1):
            A0 = levels[t][0]
            m = choices[t][0]
            new = np.empty((len(A0), self.K + 1), dtype=comp.dtype)
            new[0 : 2 * m : 2] = _conv(comp[:m], A0[1 : 2 * m : 2])[0]
            new[1 : 2 * m : 2] = _conv(comp[:m], A0[0 : 2 * m : 2])[0]
            if len(A0) % 2:
                new[-1] = comp[m]
            comp = new
        R = _conv(levels[0][1], comp)[0]  # (items, K + 1)
        out = np.empty((len(self.p_n), self.K + 1), dtype=R.dtype)
        out[item_prof] = R  # every copy of a profile gives the same value
        return out

    def _backtrack(self, k: int) -> list[tuple[int, int, bool]]:
        """(item, atoms, holds A) of every item that receives atoms at the optimum for k."""
        levels, choices, _, _ = self._build()
        out = []
        stack = [(len(levels) - 1, 0, k, True)]
        while stack:
            t, i, h, a = stack.pop()
            if h == 0 and not a:
                continue
            if t == 0:
                out.append((i, h, a))
                continue
            m, a0, right, a1 = choices[t - 1]
            if i == m:  # carried up unpaired
                stack.append((t - 1, 2 * i, h, a))
            elif not a:
                x = int(a0[i, h])
                stack += [(t - 1, 2 * i, h - x, False), (t - 1, 2 * i + 1, x, False)]
            else:
                x = int(a1[i, h])
                r = bool(right[i, h])
                stack += [(t - 1, 2 * i, h - x, not r), (t - 1, 2 * i + 1, x, r)]
        return out

    # ----------------------------------------------------------------- witness
    def _records(self, b: int, count: int) -> list[int | None]:
        group = self.release.group
        if group is None:
            return [None] * count
        return np.flatnonzero(group == b)[:count].tolist()

    def _label(self, b: int, j: int) -> str:
        code = int(self.order[b, j])
        return str(self.release.table.values[self.release.sensitive][code])

    def witness(self, k: int) -> DisclosureResult:
        K = self.K
        S = self.release.sensitive
        if self.language == "negations":
            vals = self._neg_values(K)[:, K]
            p = int(np.argmax(vals))
            b = int(self.first[p])
            rec = self._records(b, 1)[0]
            who = _person(rec, b)
            stmts = []
            for j in range(1, min(K, int(self.distinct[b]) - 1) + 1):
                v = self._label(b, j)
                stmts.append(
                    Statement(
                        "negation", rec, b, v, None, None, None, f"{who} does not have {S} = {v!r}"
                    )
                )
            value = _as_number(vals[p], self.exact)
            return self._result(value, k, b, rec, stmts)
        levels, _, item_bucket, _ = self._build()
        value = self._finish(levels[-1][1][0][K])
        placed = self._backtrack(K)
        target = next(x for x in placed if x[2])
        others = [x for x in placed if not x[2]]
        tb = int(item_bucket[target[0]])
        comp = _composition(
            self.p_prefix[self.inverse[tb]].tolist(), int(self.n[tb]), target[1] + 1
        )
        recs = self._records(tb, len(comp))
        rec = recs[0]
        who = _person(rec, tb)
        a_val = self._label(tb, 0)
        stmts = []

        def add(b: int, persons: list, comp: tuple[int, ...], in_target_bucket: bool) -> None:
            # Lemma 12: person t of the composition is denied s^0 .. s^{k_t - 1}; in the
            # target's bucket person 0's first atom is the target atom A itself.
            for t, (p, kt) in enumerate(zip(persons, comp, strict=True)):
                for j in range(kt):
                    if self.hist[b, self.order[b, j]] == 0:
                        continue  # a value absent from the bucket: the atom is vacuous
                    is_target = in_target_bucket and t == 0
                    if is_target and j == 0:
                        continue
                    v = self._label(b, j)
                    if is_target:
                        text = (
                            f"{who} does not have {S} = {v!r} "
                            f"(if it has {v!r} then it has {a_val!r})"
                        )
                    else:
                        text = f"if {_person(p, b)} has {S} = {v!r}, then {who} has {S} = {a_val!r}"
                    stmts.append(Statement("implication", p, b, v, rec, tb, a_val, text))

        add(tb, recs, comp, True)
        for item, h, _ in sorted(others, key=lambda x: int(item_bucket[x[0]])):
            b = int(item_bucket[item])
            c = _composition(self.p_prefix[self.inverse[b]].tolist(), int(self.n[b]), h)
            add(b, self._records(b, len(c)), c, False)
        return self._result(value, k, tb, rec, stmts)

    def _result(self, value, k, b, rec, stmts) -> DisclosureResult:
        c0 = int(self.hist[b, self.order[b, 0]])
        return DisclosureResult(
            value=value,
            k=k,
            language=self.language,
            exact=self.exact,
            group=b,
            record=rec,
            sensitive_value=self._label(b, 0),
            prior=_ratio(c0, int(self.n[b]), self.exact),
            statements=tuple(stmts),
        )
