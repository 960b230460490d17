"""Hierarchy builders: a column's generalization hierarchy from a short spec, as ARX builds them.

:func:`build_hierarchy` turns a spec such as ``{"builder": "prefix"}`` or
``{"builder": "date", "levels": ["month", "year"]}`` and a column's distinct values into a
:class:`~anonlab.hierarchy.Hierarchy` (rows ``leaf;level1;...;*``, the ARX CSV format), so a
publisher need not write hierarchies by hand. The six builders (:data:`BUILDERS`), each in its
module, whose docstring gives its parameters and the choices made where ARX and the papers are
silent:

``interval`` (numbers; :mod:`.intervals`)
    ARX's ``HierarchyBuilderIntervalBased``: bands ``[lo, hi)`` of ``width`` from ``origin``,
    ``fanout`` adjacent bands merged per level, or explicit ``bands``; then ``*``.
``date`` (ISO dates and datetimes; :mod:`.date_levels`)
    ``levels`` from ``day, week, month, quarter, year, 5-year, 10-year`` (default
    ``["month", "year", "5-year"]``), then ``*``; with ``age_at`` ages at a reference date, then
    age bands.
``prefix`` (codes and zip codes kept as text; :mod:`.masking`)
    ARX's ``HierarchyBuilderRedactionBased``: each level masks one more trailing character
    (``02139`` → ``0213*`` → ... → ``*****``).
``order`` (ordered categories; :mod:`.ordering`)
    ARX's ordering builder: runs of ``fanout ** j`` adjacent values of ``order``, labelled
    ``first-last``; then ``*``.
``mapping`` (a user table; :mod:`.mapping`)
    A CSV ``file`` (the leaf column, then one column per level) or inline ``levels``.
``suppress`` (any values; :mod:`.suppression`)
    Each value, then ``*``.

:mod:`.spec` holds the spec's checks and :func:`build_hierarchy`, :mod:`.common` what every
builder shares (messages, parameters, distinct values, rows).

Choices made for every builder
------------------------------
* Values are the column's values as text (a Table's domain values); each is stripped of
  surrounding blanks, as :class:`~anonlab.hierarchy.Hierarchy` does. A missing value (``None``,
  NaN, an empty string) is refused: missing cells are dropped or refused when the table is
  loaded, so a hierarchy never has a leaf for them.
* Rows come in the values' natural order (numbers ascending, dates chronological, prefix codes
  lexically, ``order``'s order, the mapping file's or dicts' order), which fixes the leaf order
  that Mondrian and Hilbert use (:mod:`anonlab.hierarchy`).
* Parameters may be given as text where a number or list is expected (``"5"``, ``"month,year"``),
  as a command line passes them.

References
----------
Prasser, F., Kohlmayer, F. (2015). Putting statistical disclosure control into practice: the ARX
data anonymization tool. In *Medical Data Privacy Handbook*, Springer (hierarchy builders).
"""

from __future__ import annotations

from anonlab.hierarchy_builders.date_levels import (
    DATE_LEVELS,
    DEFAULT_DATE_LEVELS,
    automatic_date_spec,
)
from anonlab.hierarchy_builders.intervals import automatic_interval_spec
from anonlab.hierarchy_builders.spec import (
    BUILDERS,
    build_hierarchy,
    builder_params,
    describe_builders,
    fitting_builders,
)

__all__ = [
    "BUILDERS",
    "DATE_LEVELS",
    "DEFAULT_DATE_LEVELS",
    "automatic_date_spec",
    "automatic_interval_spec",
    "build_hierarchy",
    "builder_params",
    "describe_builders",
    "fitting_builders",
]
