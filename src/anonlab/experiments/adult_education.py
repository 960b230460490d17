"""The Adult setting that Wong et al. (TKDD 2011, §5) and Jin et al. (ASAP, Information Systems
2011, §8.2 and Table 6a: "the same settings as [Wong et al.]") share: Adult without missing
values (45,222 rows), eight attributes in the papers' order (Age, Work Class, Marital Status,
Occupation, Race, Sex, Native Country, Salary Class), Education the sensitive attribute, and the
sensitive set of the education levels below high school ("before secondary"), 1,566 records.

Both :mod:`anonlab.experiments.wong` and :mod:`anonlab.experiments.jin` read these names from
here, so the two reproductions cannot drift apart; each chooses its own hierarchies.
"""

from __future__ import annotations

#: The papers' eight non-sensitive attributes, in their order (Wong: the first ``d`` are the QI).
ATTRIBUTES = (
    "age",
    "workclass",
    "marital-status",
    "occupation",
    "race",
    "sex",
    "native-country",
    "income",
)
#: The sensitive attribute.
SENSITIVE = "education"
#: The sensitive set: education below high school (1,566 of Adult's 45,222 records).
LOW_EDUCATION = ("Preschool", "1st-4th", "5th-6th", "7th-8th")
