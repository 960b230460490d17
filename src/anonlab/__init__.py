"""anonlab: publish microdata without exposing the people in it.

Load a :class:`Table`, anonymize it into a :class:`Release` with a group-based algorithm
(:mod:`anonlab.anonymize`), check its privacy model (:mod:`anonlab.models`) and measure what it
cost in utility (:mod:`anonlab.utility`).
"""

from anonlab._version import __version__
from anonlab.errors import AnonlabError, IneligibleError
from anonlab.hierarchy import Hierarchy
from anonlab.release import PublishedView, Release
from anonlab.schema import Attribute, Kind, Role, Schema
from anonlab.table import Table

__all__ = [
    "AnonlabError",
    "Attribute",
    "Hierarchy",
    "IneligibleError",
    "Kind",
    "PublishedView",
    "Release",
    "Role",
    "Schema",
    "Table",
    "__version__",
]
