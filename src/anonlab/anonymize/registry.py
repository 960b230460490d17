"""The anonymizer registry: one :class:`Anonymizer` record per algorithm, holding every fact the
rest of anonlab reads about it (issue 18, item 1).

The command line (``anonlab anonymize --algorithm`` and its help), ``compare``, the memory
check (:mod:`anonlab.resources`), the Dask backend (:mod:`anonlab.distributed.anonymize`) and
:func:`anonlab.anonymize.publication_scheme` all read these records; none keeps a table keyed
by anonymizer name. Adding an anonymizer is its module and one entry in :data:`ANONYMIZERS`
(below), with its tests and its section in docs/anonymizers.md; a test may add one for its own
duration with :func:`registered`.

What a record states and how it is checked (tests/anonymize/test_registry.py):

* ``scheme``, ``full_domain``: on a tiny table the release's scheme is the record's;
* ``parameters``, ``privacy_parameters``: read from the function's signature, never written;
* ``l_eligible``: an anonymizer that says so refuses a table that is not ℓ-eligible with
  :class:`~anonlab.errors.IneligibleError` (Xiao & Tao's Property I, :mod:`.eligibility`);
* ``bytes_per_row``: fitted from ``benchmarks/scaling.py`` (see :mod:`anonlab.resources`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from anonlab.anonymize.anatomy import anatomy
from anonlab.anonymize.generalize import generalize
from anonlab.anonymize.hilb import hilb
from anonlab.anonymize.hilb_plus import hilb_plus, hilb_plus_plus
from anonlab.anonymize.injector import injector
from anonlab.anonymize.lattice import lattice
from anonlab.anonymize.lightning import lightning
from anonlab.anonymize.mask import mask
from anonlab.anonymize.mask_plus import mask_plus, mask_plus_plus
from anonlab.anonymize.mondrian import mondrian
from anonlab.anonymize.mondrian_plus import mondrian_plus, mondrian_plus_plus
from anonlab.errors import AnonlabError
from anonlab.named_registry import NamedRegistry
from anonlab.release import SCHEMES, Release

#: The parameters that set a privacy model's level (or, for the lattice search, the model).
PRIVACY_PARAMETERS = ("k", "l", "m", "c", "t", "model")
#: How the Dask backend partitions a table for an anonymizer
#: (:func:`anonlab.distributed.anonymize.partition_for`).
PARTITIONINGS = ("mondrian-cuts", "random-runs", "hilbert-runs")

_AUTO = "auto"


@dataclass(frozen=True)
class Anonymizer:
    """One anonymizer and the facts about it that the rest of anonlab reads.

    Attributes
    ----------
    name : str
        The registry key (``anonymize(table, name)``, ``--algorithm NAME``, the manifest's
        ``algorithm``).
    function : callable
        ``function(table, ..., seed=0) -> Release``.
    paper : str
        The paper that defines it (authors, venue, year; the section where it matters).
    description : str
        One line for listings.
    scheme : {"generalization", "bucketization"}
        How it publishes its groups when no ``scheme=`` is given.
    full_domain : bool
        Every quasi-identifier is published at one level of its hierarchy (so every
        quasi-identifier needs one, and no group publishes its values as a set).
    l_eligible : bool
        It needs an ℓ-eligible table (no protected value in more than n/ℓ records; Xiao & Tao,
        VLDB 2006, Property I) and raises :class:`~anonlab.errors.IneligibleError` otherwise.
    bytes_per_row : int or None
        Memory it adds per record beyond the table and one int32 copy of its codes, fitted
        from ``benchmarks/scaling.py`` (:mod:`anonlab.resources`); None if unmeasured.
    memory_as : str or None
        An anonymizer whose measured memory this one's follows (it runs a variant of it);
        default: ``variant_of``.
    variant_of : str or None
        The anonymizer this one is a version of (Jin et al.'s algorithm-safe ``+``/``++``
        repairs of Mondrian, Hilb and MASK).
    partitioning : str or None
        How the Dask backend partitions a table for it (one of :data:`PARTITIONINGS`); None
        when it has no Dask backend.
    ell_as : str or None
        The parameter that takes the value of ℓ when ``compare`` sweeps ℓ (default: ``"l"`` if
        it takes ``l``, else None: it is not compared). The MASK family says ``"m"``; an
        anonymizer whose ℓ goes to ``m`` and that also takes ``k`` gets ``k = ℓ`` unless
        ``compare`` is given ``mask_k``.
    several_sensitive : bool
        It protects several sensitive attributes at once (each must satisfy the model; issue
        19). Any other refuses a table with several before it starts, naming the ones that
        take them.
    compare_parameters : mapping
        Fixed parameters ``compare`` adds (the lattice search's model, Injector's
        suppression).
    parameters : tuple of str
        Its keyword parameters besides the table (from the signature).
    privacy_parameters : tuple of str
        Those of :data:`PRIVACY_PARAMETERS` it takes (from the signature).
    schemes : tuple of str
        The schemes it can publish: both where it takes ``scheme=``, else ``(scheme,)``.
    """

    name: str
    function: Callable[..., Release]
    paper: str
    description: str
    scheme: str
    full_domain: bool = False
    l_eligible: bool = False
    bytes_per_row: int | None = None
    memory_as: str | None = None
    variant_of: str | None = None
    partitioning: str | None = None
    ell_as: str | None = _AUTO
    several_sensitive: bool = False
    compare_parameters: Mapping[str, Any] = field(default_factory=dict)
    parameters: tuple[str, ...] = field(init=False)
    privacy_parameters: tuple[str, ...] = field(init=False)
    schemes: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        if not callable(self.function):
            raise AnonlabError(f"anonymizer {self.name!r}: function must be callable")
        if self.scheme not in SCHEMES:
            raise AnonlabError(
                f"anonymizer {self.name!r}: scheme must be one of {list(SCHEMES)}, "
                f"got {self.scheme!r}"
            )
        if self.partitioning is not None and self.partitioning not in PARTITIONINGS:
            raise AnonlabError(
                f"anonymizer {self.name!r}: partitioning must be one of {list(PARTITIONINGS)} "
                f"or None, got {self.partitioning!r}"
            )
        sig = inspect.signature(self.function).parameters
        params = tuple(p for p in sig if p != "table")
        object.__setattr__(self, "parameters", params)
        object.__setattr__(
            self, "privacy_parameters", tuple(p for p in PRIVACY_PARAMETERS if p in params)
        )
        if "scheme" in sig:
            default = sig["scheme"].default
            if default != self.scheme:
                raise AnonlabError(
                    f"anonymizer {self.name!r}: the record says scheme {self.scheme!r} but the "
                    f"function's scheme= defaults to {default!r}"
                )
            object.__setattr__(self, "schemes", tuple(SCHEMES))
        else:
            object.__setattr__(self, "schemes", (self.scheme,))
        ell = self.ell_as
        if ell == _AUTO:
            ell = "l" if "l" in params else None
            object.__setattr__(self, "ell_as", ell)
        if ell is not None and ell not in params:
            raise AnonlabError(
                f"anonymizer {self.name!r}: ell_as {ell!r} is not one of its parameters {params}"
            )
        if self.memory_as is None and self.variant_of is not None:
            object.__setattr__(self, "memory_as", self.variant_of)
        object.__setattr__(self, "compare_parameters", dict(self.compare_parameters))

    def ell_parameters(self, l: int, *, k: int | None = None) -> dict[str, Any]:
        """The parameters that make this anonymizer's release for ℓ = ``l`` in ``compare``:
        ``{ell_as: l}``, ``k`` (default ℓ) where ℓ goes to ``m`` and it takes ``k``, and
        :attr:`compare_parameters`."""
        if self.ell_as is None:
            raise AnonlabError(f"algorithm {self.name!r} takes no ℓ parameter")
        params: dict[str, Any] = {}
        if self.ell_as == "m" and "k" in self.parameters:
            params["k"] = l if k is None else k
        params[self.ell_as] = l
        params.update(self.compare_parameters)
        return params


def _entries() -> tuple[Anonymizer, ...]:
    jin = (
        "X. Jin, N. Zhang, G. Das. ASAP: eliminating algorithm-based disclosure in "
        "privacy-preserving data publishing. Information Systems 36(5), 2011"
    )
    return (
        Anonymizer(
            "anatomy",
            anatomy,
            "X. Xiao, Y. Tao. Anatomy: simple and effective privacy preservation. VLDB 2006",
            "ℓ-diverse buckets of the sensitive values, exact quasi-identifiers (QIT + ST)",
            "bucketization",
            l_eligible=True,
            bytes_per_row=72,
            partitioning="random-runs",
        ),
        Anonymizer(
            "mondrian",
            mondrian,
            "K. LeFevre, D. J. DeWitt, R. Ramakrishnan. Mondrian multidimensional "
            "k-anonymity. ICDE 2006",
            "strict multidimensional top-down partitioning for k, frequency ℓ and/or t",
            "generalization",
            l_eligible=True,
            several_sensitive=True,
            bytes_per_row=12,
            partitioning="mondrian-cuts",
        ),
        Anonymizer(
            "hilb",
            hilb,
            "G. Ghinita, P. Karras, P. Kalnis, N. Mamoulis. Fast data anonymization with low "
            "information loss. VLDB 2007 (VLDBJ 2009)",
            "ℓ-diverse groups along the Hilbert curve",
            "generalization",
            l_eligible=True,
            bytes_per_row=60,
            partitioning="hilbert-runs",
        ),
        Anonymizer(
            "mask",
            mask,
            "R. C.-W. Wong, A. W.-C. Fu, K. Wang, J. Pei. Minimality attack in privacy "
            "preserving data publishing. VLDB 2007",
            "Mondrian k-anonymity, then m-confidentiality by perturbing sensitive values",
            "generalization",
            ell_as="m",
        ),
        Anonymizer(
            "generalize",
            generalize,
            "P. Samarati. Protecting respondents' identities in microdata release. IEEE TKDE "
            "13(6), 2001 (full-domain generalization)",
            "every quasi-identifier at the given level of its hierarchy (one lattice node)",
            "generalization",
            full_domain=True,
            several_sensitive=True,
        ),
        Anonymizer(
            "lattice",
            lattice,
            "K. LeFevre, D. J. DeWitt, R. Ramakrishnan. Incognito: efficient full-domain "
            "k-anonymity. SIGMOD 2005; F. Kohlmayer et al. Flash. PASSAT 2012",
            "the least-loss full-domain node that satisfies a privacy model",
            "generalization",
            full_domain=True,
            several_sensitive=True,
            compare_parameters={"model": "l-diversity"},
        ),
        Anonymizer(
            "lightning",
            lightning,
            "F. Prasser, R. Bild, J. Eicher, H. Spengler, K. A. Kuhn. Lightning: utility-driven "
            "anonymization of high-dimensional data. TDP 9(2), 2016",
            "the best full-domain node a budgeted search finds, with a lower bound on the optimum",
            "generalization",
            full_domain=True,
            several_sensitive=True,
            compare_parameters={"model": "l-diversity"},
        ),
        Anonymizer(
            "injector",
            injector,
            "T. Li, N. Li. Injector: mining background knowledge for data anonymization. ICDE 2008",
            "buckets that keep every record matching ℓ-diverse under mined negative rules",
            "bucketization",
            memory_as="anatomy",
            compare_parameters={"suppress": True},
        ),
        Anonymizer(
            "mondrian+",
            mondrian_plus,
            f"{jin}, §6.2.1 (Algorithm 1)",
            "Mondrian with global look-ahead (algorithm-safe)",
            "generalization",
            l_eligible=True,
            variant_of="mondrian",
            partitioning="mondrian-cuts",
        ),
        Anonymizer(
            "mondrian++",
            mondrian_plus_plus,
            f"{jin}, §7 (Algorithms 5 and 6)",
            "Mondrian+ then stratified pick-up",
            "generalization",
            l_eligible=True,
            variant_of="mondrian",
            partitioning="mondrian-cuts",
        ),
        Anonymizer(
            "hilb+",
            hilb_plus,
            f"{jin}, §6.2.2 (Algorithm 2)",
            "Hilb with global look-ahead (algorithm-safe)",
            "generalization",
            l_eligible=True,
            variant_of="hilb",
            partitioning="hilbert-runs",
        ),
        Anonymizer(
            "hilb++",
            hilb_plus_plus,
            f"{jin}, §7",
            "Hilb+ then stratified pick-up",
            "generalization",
            l_eligible=True,
            variant_of="hilb",
            partitioning="hilbert-runs",
        ),
        Anonymizer(
            "mask+",
            mask_plus,
            f"{jin}, §6.3 (Algorithm 3)",
            "MASK with local look-ahead (algorithm-safe)",
            "generalization",
            variant_of="mask",
            ell_as="m",
        ),
        Anonymizer(
            "mask++",
            mask_plus_plus,
            f"{jin}, §7, §8.2",
            "MASK+ then stratified pick-up with ℓ = m",
            "generalization",
            variant_of="mask",
            ell_as="m",
        ),
    )


#: name -> :class:`Anonymizer`, in the order listed (the command line's help shows this order).
ANONYMIZERS: dict[str, Anonymizer] = {a.name: a for a in _entries()}


_REGISTRY = NamedRegistry("anonymizer", Anonymizer, ANONYMIZERS)
#: Add an :class:`Anonymizer` to :data:`ANONYMIZERS` (a name twice is an error).
register = _REGISTRY.register
#: Remove an anonymizer (for tests of the registry itself).
unregister = _REGISTRY.unregister
#: ``with registered(toy): ...``: the anonymizer is registered inside the block only.
registered = _REGISTRY.registered


def get(name: str) -> Anonymizer:
    """The anonymizer registered as ``name``; an error lists the registered names."""
    try:
        return ANONYMIZERS[name]
    except (KeyError, TypeError):
        raise AnonlabError(
            f"unknown algorithm {name!r}; available: {', '.join(sorted(ANONYMIZERS))}"
        ) from None


def taking(parameter: str) -> list[str]:
    """Names of the anonymizers that take ``parameter``, in registry order (for help texts)."""
    return [a.name for a in ANONYMIZERS.values() if parameter in a.parameters]


def by(parameter: str) -> str:
    """``"anatomy, mask+, mask++"``: the anonymizers that take ``parameter``, for help texts."""
    return ", ".join(taking(parameter))


def listing() -> str:
    """The anonymizers for the command line's help, each version after the originals:
    ``"anatomy, mondrian, ...; versions: mondrian+, ..."``."""
    originals = [a.name for a in ANONYMIZERS.values() if a.variant_of is None]
    versions = [a.name for a in ANONYMIZERS.values() if a.variant_of is not None]
    text = ", ".join(originals)
    return f"{text}; versions of them: {', '.join(versions)}" if versions else text


def compared(via: str | None = None) -> list[str]:
    """Names of the anonymizers ``compare`` sweeps ℓ over (an :attr:`Anonymizer.ell_as`), in
    registry order; with ``via``, only those whose ℓ goes to that parameter."""
    return [
        a.name
        for a in ANONYMIZERS.values()
        if a.ell_as is not None and (via is None or a.ell_as == via)
    ]


def distributed() -> list[str]:
    """Names of the anonymizers with a Dask backend (a :attr:`Anonymizer.partitioning`)."""
    return [a.name for a in ANONYMIZERS.values() if a.partitioning is not None]


def measured_bytes_per_row(name: str) -> int | None:
    """The fitted memory constant of ``name``: its own, else that of the anonymizer it follows
    (:attr:`Anonymizer.memory_as`); None for an unknown or unmeasured anonymizer."""
    seen: set[str] = set()
    record = ANONYMIZERS.get(name)
    while record is not None and record.name not in seen:
        if record.bytes_per_row is not None:
            return record.bytes_per_row
        seen.add(record.name)
        record = ANONYMIZERS.get(record.memory_as) if record.memory_as else None
    return None


def largest_bytes_per_row() -> int:
    """The largest fitted constant over the measured anonymizers (the guess for the others)."""
    return max(a.bytes_per_row for a in ANONYMIZERS.values() if a.bytes_per_row is not None)


class FieldView(Mapping[str, Any]):
    """name -> one field of each record, read live from :data:`ANONYMIZERS`, over the records
    where the field is not None (``ALGORITHMS`` is ``FieldView("function")``; the Dask
    backend's ``PARTITIONING`` is ``FieldView("partitioning")``)."""

    def __init__(self, field_name: str) -> None:
        self.field_name = field_name

    def _items(self) -> dict[str, Any]:
        values = {n: getattr(a, self.field_name) for n, a in ANONYMIZERS.items()}
        return {n: v for n, v in values.items() if v is not None}

    def __getitem__(self, name: str) -> Any:
        return self._items()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items())

    def __len__(self) -> int:
        return len(self._items())

    def __repr__(self) -> str:
        return f"FieldView({self.field_name!r}: {self._items()!r})"


__all__ = [
    "ANONYMIZERS",
    "PARTITIONINGS",
    "PRIVACY_PARAMETERS",
    "Anonymizer",
    "FieldView",
    "by",
    "compared",
    "distributed",
    "get",
    "largest_bytes_per_row",
    "listing",
    "measured_bytes_per_row",
    "register",
    "registered",
    "taking",
    "unregister",
]
