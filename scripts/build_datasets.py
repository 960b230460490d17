"""Build the real data that anonlab ships, and its generalization hierarchies.

Reads the raw UCI files from the shared dataset folder, checks their sha256 against the values
listed in each folder's README, cleans them as ``docs/datasets.md`` describes, and
writes into ``src/anonlab/datasets/``:

- ``data/adult.parquet`` and ``data/census-kdd.parquet`` (zstd-compressed Parquet);
- ``hierarchies/<set>/<dataset-base>/<attribute>.csv`` (ARX format, one row per leaf);
- ``catalog.json`` (what the loader in ``anonlab.datasets`` reads).

The output is deterministic: the same inputs give byte-identical files (with the same pyarrow).
Every hierarchy is checked to cover every value of its attribute, and its height is checked
against the paper it is named after, before anything is written.

Usage::

    python scripts/build_datasets.py [DATASETS_DIR] [--out DIR] [--check]

``DATASETS_DIR`` defaults to ``../shared/datasets`` relative to the repository root. ``--check``
builds into a temporary folder and fails if the result differs from what is in ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import filecmp
import gzip
import hashlib
import io
import json
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from anonlab.hierarchy import Hierarchy  # noqa: E402

DEFAULT_INPUT = ROOT / ".." / "shared" / "datasets"
DEFAULT_OUTPUT = ROOT / "src" / "anonlab" / "datasets"

# --------------------------------------------------------------------------------------------
# Raw files and their columns

ADULT_COLUMNS = (
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
    "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week",
    "native-country", "income",
)  # fmt: skip
ADULT_NUMERIC = ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week")

KDD_COLUMNS = (
    "age", "class_of_worker", "detailed_industry_recode", "detailed_occupation_recode",
    "education", "wage_per_hour", "enroll_in_edu_inst_last_wk", "marital_stat",
    "major_industry_code", "major_occupation_code", "race", "hispanic_origin", "sex",
    "member_of_a_labor_union", "reason_for_unemployment", "full_or_part_time_employment_stat",
    "capital_gains", "capital_losses", "dividends_from_stocks", "tax_filer_stat",
    "region_of_previous_residence", "state_of_previous_residence",
    "detailed_household_and_family_stat", "detailed_household_summary_in_household",
    "instance_weight", "migration_code_change_in_msa", "migration_code_change_in_reg",
    "migration_code_move_within_reg", "live_in_this_house_1_year_ago",
    "migration_prev_res_in_sunbelt", "num_persons_worked_for_employer", "family_members_under_18",
    "country_of_birth_father", "country_of_birth_mother", "country_of_birth_self", "citizenship",
    "own_business_or_self_employed", "fill_inc_questionnaire_for_veterans_admin",
    "veterans_benefits", "weeks_worked_in_year", "year", "income",
)  # fmt: skip
#: The columns shipped, in the file's order.
KDD_KEEP = (
    "age", "class_of_worker", "detailed_industry_recode", "detailed_occupation_recode",
    "education", "marital_stat", "major_industry_code", "major_occupation_code", "race",
    "hispanic_origin", "sex", "country_of_birth_self", "citizenship", "weeks_worked_in_year",
    "income",
)  # fmt: skip
KDD_NUMERIC = ("age", "weeks_worked_in_year")
#: Values recoded so that every row is kept and no value reads as missing downstream.
KDD_RECODE = {"country_of_birth_self": {"?": "Unknown"}, "hispanic_origin": {"NA": "Unknown"}}
#: How many values each recoding changes (the cleaning text quotes these numbers).
KDD_RECODED = {"country_of_birth_self": 1764, "hispanic_origin": 405}

ADULT_ROWS = (30162, 15060)  # rows kept from adult.data, adult.test
ADULT_RAW_ROWS = (32561, 16281)
KDD_ROWS = 99762
KDD_WORKERS_ROWS = 49479

# --------------------------------------------------------------------------------------------
# Provenance

ADULT_SOURCE = {
    "name": "UCI Machine Learning Repository: Adult (Becker & Kohavi, 1996)",
    "url": "https://archive.ics.uci.edu/dataset/2/adult",
    "doi": "https://doi.org/10.24432/C5XW20",
}
ADULT_CITATION = (
    "Becker, B. & Kohavi, R. (1996). Adult. UCI Machine Learning Repository. "
    "https://doi.org/10.24432/C5XW20"
)
KDD_SOURCE = {
    "name": "UCI Machine Learning Repository: Census-Income (KDD), dataset 117 "
    "(Lane & Kohavi, from the 1994 and 1995 Current Population Surveys)",
    "url": "https://archive.ics.uci.edu/dataset/117/census+income+kdd",
    "doi": "https://doi.org/10.24432/C5N30T",
}
KDD_CITATION = (
    "Census-Income (KDD). UCI Machine Learning Repository. https://doi.org/10.24432/C5N30T"
)
DATA_LICENSE = "CC BY 4.0"

ADULT_CLEANING = (
    "adult.data (32,561 rows) followed by adult.test (16,281 rows; the shared copy already lacks "
    "the '|1x3 Cross validator' first line). Fields are split on ',' and stripped of surrounding "
    "spaces. The trailing '.' of adult.test's income labels ('<=50K.', '>50K.') is removed. Every "
    "row with '?' in any field is removed (2,399 from adult.data, 1,221 from adult.test), leaving "
    "30,162 + 15,060 = 45,222 rows in file order. age, fnlwgt, education-num, capital-gain, "
    "capital-loss and hours-per-week are integers; the other columns are strings as spelled in "
    "the UCI files."
)
KDD_CLEANING = (
    "census-income.test (the test half of Census-Income (KDD), 99,762 rows, 42 fields, no "
    "header). Fields are split on ',' and stripped of surrounding spaces. 15 of the 42 columns "
    "are kept: " + ", ".join(KDD_KEEP) + ". The trailing '.' of the income label is removed "
    "('- 50000.' -> '- 50000', '50000+.' -> '50000+'). country_of_birth_self is '?' in 1,764 "
    "rows: so that all 99,762 rows are kept, '?' is recoded to the category 'Unknown'. "
    "hispanic_origin is 'NA' (not available) in 405 rows: recoded to 'Unknown', because anonlab "
    "reads the string 'NA' as a missing value. detailed_industry_recode and "
    "detailed_occupation_recode are category codes and stay strings. age and "
    "weeks_worked_in_year are integers. No row is removed."
)

# --------------------------------------------------------------------------------------------
# Hierarchy trees. Each row: leaf, then its ancestors below the root; '*' is added as the root.
# Rows are written in a meaningful order (ordinal where there is one) because anonlab uses the
# hierarchy's leaf order as the attribute's total order (Mondrian, Hilbert curve).

ADULT_WORKCLASS_LI = [
    ["Private", "Private"],
    ["Self-emp-not-inc", "Self-employed"],
    ["Self-emp-inc", "Self-employed"],
    ["Federal-gov", "Government"],
    ["State-gov", "Government"],
    ["Local-gov", "Government"],
    ["Without-pay", "Without pay or never worked"],
    ["Never-worked", "Without pay or never worked"],
]
ADULT_WORKCLASS_JIN = [
    ["Private", "Private", "Private sector"],
    ["Self-emp-not-inc", "Self-employed", "Private sector"],
    ["Self-emp-inc", "Self-employed", "Private sector"],
    ["Without-pay", "Without pay", "Private sector"],
    ["Federal-gov", "Federal government", "Government"],
    ["State-gov", "State or local government", "Government"],
    ["Local-gov", "State or local government", "Government"],
]
KDD_CLASS_OF_WORKER_JIN = [
    ["Private", "Private", "Private sector", "Employed"],
    ["Self-employed-not incorporated", "Self-employed", "Private sector", "Employed"],
    ["Self-employed-incorporated", "Self-employed", "Private sector", "Employed"],
    ["Without pay", "Without pay", "Private sector", "Employed"],
    ["Federal government", "Federal government", "Government", "Employed"],
    ["State government", "State or local government", "Government", "Employed"],
    ["Local government", "State or local government", "Government", "Employed"],
    ["Never worked", "Never worked", "Never worked", "Not employed"],
    ["Not in universe", "Not in universe", "Not in universe", "Not employed"],
]

ADULT_MARITAL_3 = [  # Martin (3 levels) and Li & Li (height 3): married / was married / never
    ["Married-civ-spouse", "Married"],
    ["Married-AF-spouse", "Married"],
    ["Married-spouse-absent", "Married"],
    ["Separated", "Previously married"],
    ["Divorced", "Previously married"],
    ["Widowed", "Previously married"],
    ["Never-married", "Never married"],
]
_MARITAL_JIN_UPPER = {  # leaf -> (level 1, level 2); level 2 is the 3-level tree's level 1
    "civ": ("Married spouse present", "Married"),
    "af": ("Married spouse present", "Married"),
    "absent": ("Married spouse absent", "Married"),
    "separated": ("Separated or divorced", "Previously married"),
    "divorced": ("Separated or divorced", "Previously married"),
    "widowed": ("Widowed", "Previously married"),
    "never": ("Never married", "Never married"),
}
ADULT_MARITAL_SPELLING = {
    "civ": "Married-civ-spouse", "af": "Married-AF-spouse", "absent": "Married-spouse-absent",
    "separated": "Separated", "divorced": "Divorced", "widowed": "Widowed",
    "never": "Never-married",
}  # fmt: skip
KDD_MARITAL_SPELLING = {
    "civ": "Married-civilian spouse present", "af": "Married-A F spouse present",
    "absent": "Married-spouse absent", "separated": "Separated", "divorced": "Divorced",
    "widowed": "Widowed", "never": "Never married",
}  # fmt: skip


def marital_jin(spelling: dict[str, str]) -> list[list[str]]:
    """Height-3 marital tree (Jin et al., Table 6), in the data's spelling."""
    return [[spelling[k], *_MARITAL_JIN_UPPER[k]] for k in _MARITAL_JIN_UPPER]


ADULT_RACE_LI = [
    ["White", "White"],
    ["Black", "Non-white"],
    ["Asian-Pac-Islander", "Non-white"],
    ["Amer-Indian-Eskimo", "Non-white"],
    ["Other", "Non-white"],
]
ADULT_RACE_JIN = [
    ["White", "White"],
    ["Black", "Black"],
    ["Asian-Pac-Islander", "Other races"],
    ["Amer-Indian-Eskimo", "Other races"],
    ["Other", "Other races"],
]
KDD_RACE_JIN = [
    ["White", "White"],
    ["Black", "Black"],
    ["Asian or Pacific Islander", "Other races"],
    ["Amer Indian Aleut or Eskimo", "Other races"],
    ["Other", "Other races"],
]

ADULT_EDUCATION_LI = [  # ordinal order
    ["Preschool", "Preschool to 4th grade", "No high-school diploma"],
    ["1st-4th", "Preschool to 4th grade", "No high-school diploma"],
    ["5th-6th", "5th to 8th grade", "No high-school diploma"],
    ["7th-8th", "5th to 8th grade", "No high-school diploma"],
    ["9th", "9th to 12th grade", "No high-school diploma"],
    ["10th", "9th to 12th grade", "No high-school diploma"],
    ["11th", "9th to 12th grade", "No high-school diploma"],
    ["12th", "9th to 12th grade", "No high-school diploma"],
    ["HS-grad", "High-school graduate", "High school or some college"],
    ["Some-college", "Some college or associate degree", "High school or some college"],
    ["Assoc-voc", "Some college or associate degree", "High school or some college"],
    ["Assoc-acdm", "Some college or associate degree", "High school or some college"],
    ["Bachelors", "Bachelors degree", "University degree"],
    ["Masters", "Graduate degree", "University degree"],
    ["Prof-school", "Graduate degree", "University degree"],
    ["Doctorate", "Graduate degree", "University degree"],
]
KDD_EDUCATION = [  # ordinal order; same shape as ADULT_EDUCATION_LI plus 'Children'
    ["Children", "Children", "Children"],
    ["Less than 1st grade", "Less than 5th grade", "No high-school diploma"],
    ["1st 2nd 3rd or 4th grade", "Less than 5th grade", "No high-school diploma"],
    ["5th or 6th grade", "5th to 8th grade", "No high-school diploma"],
    ["7th and 8th grade", "5th to 8th grade", "No high-school diploma"],
    ["9th grade", "9th to 12th grade", "No high-school diploma"],
    ["10th grade", "9th to 12th grade", "No high-school diploma"],
    ["11th grade", "9th to 12th grade", "No high-school diploma"],
    ["12th grade no diploma", "9th to 12th grade", "No high-school diploma"],
    ["High school graduate", "High-school graduate", "High school or some college"],
    ["Some college but no degree", "Some college or associate degree",
     "High school or some college"],
    ["Associates degree-occup /vocational", "Some college or associate degree",
     "High school or some college"],
    ["Associates degree-academic program", "Some college or associate degree",
     "High school or some college"],
    ["Bachelors degree(BA AB BS)", "Bachelors degree", "University degree"],
    ["Masters degree(MA MS MEng MEd MSW MBA)", "Graduate degree", "University degree"],
    ["Prof school degree (MD DDS DVM LLB JD)", "Graduate degree", "University degree"],
    ["Doctorate degree(PhD EdD)", "Graduate degree", "University degree"],
]  # fmt: skip

ADULT_OCCUPATION_JIN = [  # white collar / blue collar / service / armed forces
    ["Exec-managerial", "White collar"],
    ["Prof-specialty", "White collar"],
    ["Tech-support", "White collar"],
    ["Sales", "White collar"],
    ["Adm-clerical", "White collar"],
    ["Craft-repair", "Blue collar"],
    ["Machine-op-inspct", "Blue collar"],
    ["Handlers-cleaners", "Blue collar"],
    ["Transport-moving", "Blue collar"],
    ["Farming-fishing", "Blue collar"],
    ["Other-service", "Service"],
    ["Priv-house-serv", "Service"],
    ["Protective-serv", "Service"],
    ["Armed-Forces", "Armed forces"],
]

#: Country of birth -> (region, continent). Regions follow the UN geoscheme's subregions, except
#: that the US outlying areas are put with Northern America. Keys are spelling-neutral ids.
COUNTRY_REGIONS: dict[str, tuple[str, str]] = {}
for _region, _continent, _ids in (
    ("Northern America", "North America", "us canada outlying"),
    ("Central America", "North America", "mexico guatemala honduras elsalvador nicaragua panama"),
    ("Caribbean", "North America", "cuba jamaica haiti dominican puertorico trinidad"),
    ("South America", "South America", "columbia ecuador peru"),
    ("Northern Europe", "Europe", "england scotland ireland"),
    ("Western Europe", "Europe", "france germany netherlands"),
    ("Southern Europe", "Europe", "italy portugal greece yugoslavia"),
    ("Eastern Europe", "Europe", "poland hungary"),
    ("Eastern Asia", "Asia", "china japan taiwan hongkong southkorea"),
    ("South-eastern Asia", "Asia", "philippines vietnam laos cambodia thailand"),
    ("Southern Asia", "Asia", "india iran"),
    ("Unknown", "Unknown", "unknown"),
):
    for _id in _ids.split():
        COUNTRY_REGIONS[_id] = (_region, _continent)

_COUNTRY_IDS = [  # id, Adult spelling, Census-KDD spelling (None = absent from that data)
    ("us", "United-States", "United-States"),
    ("canada", "Canada", "Canada"),
    ("outlying", "Outlying-US(Guam-USVI-etc)", "Outlying-U S (Guam USVI etc)"),
    ("mexico", "Mexico", "Mexico"),
    ("guatemala", "Guatemala", "Guatemala"),
    ("honduras", "Honduras", "Honduras"),
    ("elsalvador", "El-Salvador", "El-Salvador"),
    ("nicaragua", "Nicaragua", "Nicaragua"),
    ("panama", None, "Panama"),
    ("cuba", "Cuba", "Cuba"),
    ("jamaica", "Jamaica", "Jamaica"),
    ("haiti", "Haiti", "Haiti"),
    ("dominican", "Dominican-Republic", "Dominican-Republic"),
    ("puertorico", "Puerto-Rico", "Puerto-Rico"),
    ("trinidad", "Trinadad&Tobago", "Trinadad&Tobago"),
    ("columbia", "Columbia", "Columbia"),
    ("ecuador", "Ecuador", "Ecuador"),
    ("peru", "Peru", "Peru"),
    ("england", "England", "England"),
    ("scotland", "Scotland", "Scotland"),
    ("ireland", "Ireland", "Ireland"),
    ("france", "France", "France"),
    ("germany", "Germany", "Germany"),
    ("netherlands", "Holand-Netherlands", "Holand-Netherlands"),
    ("italy", "Italy", "Italy"),
    ("portugal", "Portugal", "Portugal"),
    ("greece", "Greece", "Greece"),
    ("yugoslavia", "Yugoslavia", "Yugoslavia"),
    ("poland", "Poland", "Poland"),
    ("hungary", "Hungary", "Hungary"),
    ("china", "China", "China"),
    ("japan", "Japan", "Japan"),
    ("taiwan", "Taiwan", "Taiwan"),
    ("hongkong", "Hong", "Hong Kong"),
    ("southkorea", "South", "South Korea"),  # Adult's 'South' is South Korea (cf. Census-KDD)
    ("philippines", "Philippines", "Philippines"),
    ("vietnam", "Vietnam", "Vietnam"),
    ("laos", "Laos", "Laos"),
    ("cambodia", "Cambodia", "Cambodia"),
    ("thailand", "Thailand", "Thailand"),
    ("india", "India", "India"),
    ("iran", "Iran", "Iran"),
    ("unknown", None, "Unknown"),
]


def country_rows(column: int) -> list[list[str]]:
    """Country -> region -> continent rows for Adult (column 1) or Census-KDD (column 2)."""
    return [[ids[column], *COUNTRY_REGIONS[ids[0]]] for ids in _COUNTRY_IDS if ids[column]]


def income_rows(values: Sequence[str]) -> list[list[str]]:
    return [[v] for v in values]


# --------------------------------------------------------------------------------------------
# Hierarchy sets. For each: provenance, how its paper counts "height", and for every attribute a
# builder (values present in the data -> Hierarchy) and the paper's stated height and domain size.

HEIGHT_ABOVE_LEAF = "levels above the leaf (anonlab's Hierarchy.height)"
HEIGHT_WITH_LEAF = (
    "number of levels including the leaf and the root; anonlab's Hierarchy.height = paper - 1"
)

Builder = Callable[[Sequence[str]], Hierarchy]


def tree(rows: list[list[str]]) -> Builder:
    return lambda values: Hierarchy([[*r, "*"] for r in rows])


def flat() -> Builder:
    return lambda values: Hierarchy.flat(sorted(values))


def ages(widths: Sequence[int]) -> Builder:
    return lambda values: Hierarchy.intervals(sorted(int(v) for v in values), widths)


HIERARCHY_SETS: dict = {
    "arx": {
        "title": "ARX Data Anonymization Tool's Adult hierarchies",
        "source": "ARX Data Anonymization Tool 3.9.2, data/adult_hierarchy_*.csv, "
        "https://github.com/arx-deidentifier/arx",
        "license": "Apache-2.0",
        "citation": "Prasser, F. & Kohlmayer, F. (2015). Putting statistical disclosure control "
        "into practice: The ARX data anonymization tool. In Medical Data Privacy Handbook, "
        "Springer. https://arx.deidentifier.org",
        "height_convention": HEIGHT_ABOVE_LEAF,
        "notes": "Byte-for-byte copies of ARX's files, renamed to the column names "
        "(adult_hierarchy_salary-class.csv -> income.csv, adult_hierarchy_<column>.csv -> "
        "<column>.csv). age covers 1..100; workclass has the leaf Never-worked, which the cleaned "
        "data lacks. With ARX's quasi-identifiers (age, sex, race, marital-status, education, "
        "native-country, workclass) the generalization lattice has 5*2*2*3*4*3*3 = 2,160 nodes, "
        "as ARX reports.",
        "bases": {
            "adult": {
                "age": {"arx_file": "adult_hierarchy_age.csv"},
                "workclass": {"arx_file": "adult_hierarchy_workclass.csv"},
                "education": {"arx_file": "adult_hierarchy_education.csv"},
                "marital-status": {"arx_file": "adult_hierarchy_marital-status.csv"},
                "occupation": {"arx_file": "adult_hierarchy_occupation.csv"},
                "race": {"arx_file": "adult_hierarchy_race.csv"},
                "sex": {"arx_file": "adult_hierarchy_sex.csv"},
                "native-country": {"arx_file": "adult_hierarchy_native-country.csv"},
                "income": {"arx_file": "adult_hierarchy_salary-class.csv"},
            }
        },
    },
    "martin": {
        "title": "Martin et al., worst-case background knowledge (ICDE 2007), Section 4",
        "source": "Martin, Kifer, Machanavajjhala, Gehrke, Halpern. Worst-Case Background "
        "Knowledge for Privacy-Preserving Data Publishing. ICDE 2007. Experiments section "
        "(Section 4 of the text in papers/martin-worst-case-background-knowledge.txt).",
        "license": "Apache-2.0 (anonlab's own trees; the paper gives only the levels)",
        "height_convention": "number of levels including the leaf and the root (Age has six "
        "levels: exact, 5, 10, 20, 40 years, suppressed); anonlab's Hierarchy.height = paper - 1",
        "notes": "Adult projected onto Age, Marital Status, Race, Gender (quasi-identifiers) and "
        "Occupation (sensitive, no hierarchy): 6*3*2*2 = 72 full-domain generalizations. Age "
        "intervals are aligned at 0 ([15-20[, [40-80[), as in Incognito/ARX; the paper does not "
        "say. Marital status: married (civ-spouse, AF-spouse, spouse-absent) / previously married "
        "(separated, divorced, widowed) / never married; the paper gives only the number of "
        "levels (ARX's spouse-present split is in the 'arx' set).",
        "bases": {
            "adult": {
                "age": {"build": ages((5, 10, 20, 40)), "paper_height": 6, "paper_values": None},
                "marital-status": {"build": tree(ADULT_MARITAL_3), "paper_height": 3},
                "race": {"build": flat(), "paper_height": 2},
                "sex": {"build": flat(), "paper_height": 2},
            }
        },
    },
    "li-injector": {
        "title": "Li & Li, Injector (ICDE 2008), Table III",
        "source": "Li, T. & Li, N. Injector: Mining Background Knowledge for Data "
        "Anonymization. ICDE 2008, pp. 446-455. Table III (papers/li-injector-negative-rules.txt).",
        "license": "Apache-2.0 (anonlab's own trees; the paper gives only the heights)",
        "height_convention": HEIGHT_WITH_LEAF + " (Gender, with 2 values, has height 2: leaf, *)",
        "notes": "Quasi-identifiers age, workclass, education, marital-status, race, sex; "
        "sensitive occupation. Table III says Workclass has 8 values: the cleaned data has 7 "
        "(rows with Never-worked all have occupation '?'), so Never-worked is kept as an 8th leaf. "
        "Trees follow notes/li-injector-negative-rules.md section 9.1; 'Government' is a node, as "
        "the paper's example rule needs.",
        "bases": {
            "adult": {
                "age": {"build": ages((5, 10, 20)), "paper_height": 5, "paper_values": 74},
                "workclass": {
                    "build": tree(ADULT_WORKCLASS_LI), "paper_height": 3, "paper_values": 8,
                },
                "education": {
                    "build": tree(ADULT_EDUCATION_LI), "paper_height": 4, "paper_values": 16,
                },
                "marital-status": {
                    "build": tree(ADULT_MARITAL_3), "paper_height": 3, "paper_values": 7,
                },
                "race": {"build": tree(ADULT_RACE_LI), "paper_height": 3, "paper_values": 5},
                "sex": {"build": flat(), "paper_height": 2, "paper_values": 2},
            }
        },
    },
    "jin-asap": {
        "title": "Jin, Zhang & Das, ASAP (algorithm-safe publishing), Table 6",
        "source": "Jin, X., Zhang, N. & Das, G. ASAP: Eliminating Algorithm-based Disclosure in "
        "Privacy-Preserving Data Publishing. Table 6 "
        "(papers/jin-asap-algorithm-safe-publishing.txt).",
        "license": "Apache-2.0 (anonlab's own trees; the paper gives only the heights)",
        "height_convention": HEIGHT_ABOVE_LEAF
        + " (sex 'suppression' has height 1; age 'ranges-5,10,20' has height 4: 5, 10, 20, *)",
        "notes": "Adult (Table 6a): 8 quasi-identifiers with hierarchies, education is the "
        "sensitive attribute. Census (Table 6b) is IPUMS data with other domains (marital 6, race "
        "9, work class 10, country 83 values); anonlab's census-kdd stands in for it, with the "
        "stated heights over its own values (marital_stat 7, race 5, class_of_worker 9, "
        "country_of_birth_self 43 including 'Unknown'). Table 6b treats age and education as "
        "numerical (no tree); for full-domain algorithms the set adds age (5/10/20-year ranges, "
        "height 4) and an ordinal education tree (height 3) for census-kdd, marked paper_height "
        "null.",
        "bases": {
            "adult": {
                "age": {"build": ages((5, 10, 20)), "paper_height": 4, "paper_values": 74},
                "workclass": {
                    "build": tree(ADULT_WORKCLASS_JIN), "paper_height": 3, "paper_values": 7,
                },
                "marital-status": {
                    "build": tree(marital_jin(ADULT_MARITAL_SPELLING)),
                    "paper_height": 3,
                    "paper_values": 7,
                },
                "occupation": {
                    "build": tree(ADULT_OCCUPATION_JIN), "paper_height": 2, "paper_values": 14,
                },
                "race": {"build": tree(ADULT_RACE_JIN), "paper_height": 2, "paper_values": 5},
                "sex": {"build": flat(), "paper_height": 1, "paper_values": 2},
                "native-country": {
                    "build": tree(country_rows(1)), "paper_height": 3, "paper_values": 41,
                },
                "income": {
                    "build": tree(income_rows(["<=50K", ">50K"])),
                    "paper_height": 1,
                    "paper_values": 2,
                },
            },
            "census-kdd": {
                "age": {"build": ages((5, 10, 20)), "paper_height": None, "paper_values": 79},
                "sex": {"build": flat(), "paper_height": 1, "paper_values": 2},
                "education": {
                    "build": tree(KDD_EDUCATION), "paper_height": None, "paper_values": 17,
                },
                "marital_stat": {
                    "build": tree(marital_jin(KDD_MARITAL_SPELLING)),
                    "paper_height": 3,
                    "paper_values": 6,
                },
                "race": {"build": tree(KDD_RACE_JIN), "paper_height": 2, "paper_values": 9},
                "class_of_worker": {
                    "build": tree(KDD_CLASS_OF_WORKER_JIN), "paper_height": 4, "paper_values": 10,
                },
                "country_of_birth_self": {
                    "build": tree(country_rows(2)), "paper_height": 3, "paper_values": 83,
                },
            },
        },
    },
}  # fmt: skip
#: How to turn the paper's height into Hierarchy.height.
HEIGHT_OFFSET = {"arx": 0, "martin": 1, "li-injector": 1, "jin-asap": 0}

# --------------------------------------------------------------------------------------------
# Datasets

DATASETS = {
    "adult": {
        "file": "adult.parquet",
        "base": "adult",
        "selection": None,
        "rows": 45222,
        "description": "UCI Adult (1994 US Census extract): adult.data followed by adult.test, "
        "rows with a missing value removed; 45,222 rows, 15 columns. The variant used by Wong et "
        "al., Li & Li, Martin et al. and Jin et al.",
        "source": ADULT_SOURCE,
        "license": DATA_LICENSE,
        "citation": ADULT_CITATION,
        "cleaning": ADULT_CLEANING,
        "numeric": ADULT_NUMERIC,
        "default_qi": (
            "age", "workclass", "education", "marital-status", "race", "sex", "native-country",
        ),
        "default_sensitive": "occupation",
        "hierarchy_sets": ("arx", "martin", "li-injector", "jin-asap"),
    },
    "adult-train": {
        "file": "adult.parquet",
        "base": "adult",
        "selection": {"first_rows": 30162},
        "rows": 30162,
        "description": "UCI Adult, adult.data only, rows with a missing value removed; 30,162 "
        "rows (the first 30,162 rows of 'adult'). The variant used by Kifer and by ARX's "
        "adult.csv.",
        "source": ADULT_SOURCE,
        "license": DATA_LICENSE,
        "citation": ADULT_CITATION,
        "cleaning": ADULT_CLEANING + " adult-train keeps the first 30,162 rows (adult.data).",
        "numeric": ADULT_NUMERIC,
        "default_qi": (
            "age", "workclass", "education", "marital-status", "race", "sex", "native-country",
        ),
        "default_sensitive": "occupation",
        "hierarchy_sets": ("arx", "martin", "li-injector", "jin-asap"),
    },
    "census-kdd": {
        "file": "census-kdd.parquet",
        "base": "census-kdd",
        "selection": None,
        "rows": KDD_ROWS,
        "description": "UCI Census-Income (KDD), test half: 99,762 person records from the 1994 "
        "and 1995 Current Population Surveys, 15 of 42 columns. Stands in for the IPUMS 'Census' "
        "table of Jin et al. and others. About half the rows (children and people not in the "
        "labour force) have no occupation (detailed_occupation_recode '0'); use "
        "census-kdd-workers for models that need a diverse sensitive attribute.",
        "source": KDD_SOURCE,
        "license": DATA_LICENSE,
        "citation": KDD_CITATION,
        "cleaning": KDD_CLEANING,
        "numeric": KDD_NUMERIC,
        "default_qi": (
            "age", "sex", "race", "marital_stat", "education", "class_of_worker",
            "country_of_birth_self",
        ),
        "default_sensitive": "detailed_occupation_recode",
        "hierarchy_sets": ("jin-asap",),
    },
    "census-kdd-workers": {
        "file": "census-kdd.parquet",
        "base": "census-kdd",
        "selection": {"exclude": {"major_occupation_code": ["Not in universe"]}},
        "rows": KDD_WORKERS_ROWS,
        "description": "census-kdd restricted to the 49,479 people with an occupation "
        "(major_occupation_code not 'Not in universe'): detailed_occupation_recode has 46 values, "
        "the largest 8.8% of rows; major_occupation_code 14 values, the largest 14.7%.",
        "source": KDD_SOURCE,
        "license": DATA_LICENSE,
        "citation": KDD_CITATION,
        "cleaning": KDD_CLEANING + " census-kdd-workers then drops the rows whose "
        "major_occupation_code is 'Not in universe' (50,283 rows).",
        "numeric": KDD_NUMERIC,
        "default_qi": (
            "age", "sex", "race", "marital_stat", "education", "class_of_worker",
            "country_of_birth_self",
        ),
        "default_sensitive": "detailed_occupation_recode",
        "hierarchy_sets": ("jin-asap",),
    },
}  # fmt: skip


# --------------------------------------------------------------------------------------------
# Reading and checking the inputs


class BuildError(RuntimeError):
    """An input is not what the READMEs describe, or an output fails a check."""


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def readme_hashes(folder: Path) -> dict[str, str]:
    """The ``<sha256>  <file>`` lines of a dataset folder's README."""
    text = (folder / "README.md").read_text(encoding="utf-8")
    found = dict(
        (m.group(2), m.group(1))
        for m in re.finditer(r"^\s*([0-9a-f]{64})\s+(\S+)\s*$", text, flags=re.MULTILINE)
    )
    if not found:
        raise BuildError(f"{folder / 'README.md'} lists no sha256 values")
    return found


def verify_inputs(folder: Path, files: Sequence[str]) -> dict[str, str]:
    """Check each file's sha256 against the README; return file -> sha256."""
    expected = readme_hashes(folder)
    out = {}
    for name in files:
        if name not in expected:
            raise BuildError(f"{folder / 'README.md'} gives no sha256 for {name}")
        path = folder / name
        if not path.is_file():
            raise BuildError(f"input file {path} is missing")
        got = sha256(path)
        if got != expected[name]:
            raise BuildError(f"sha256 of {path} is {got}, the README says {expected[name]}")
        out[name] = got
    return out


def read_records(text: str, n_fields: int, where: str) -> list[list[str]]:
    rows = []
    for i, rec in enumerate(csv.reader(io.StringIO(text), skipinitialspace=True)):
        if not rec:
            continue
        if len(rec) != n_fields:
            raise BuildError(f"{where}, line {i + 1}: {len(rec)} fields, expected {n_fields}")
        rows.append([f.strip() for f in rec])
    return rows


def build_adult(folder: Path) -> dict[str, list]:
    """Adult: adult.data then adult.test, '?' rows dropped, test labels without '.'."""
    parts = []
    for name, raw, expect in zip(
        ("adult.data", "adult.test"), ADULT_RAW_ROWS, ADULT_ROWS, strict=True
    ):
        rows = read_records((folder / name).read_text(encoding="utf-8"), 15, name)
        kept = [r for r in rows if "?" not in r]
        if (len(rows), len(kept)) != (raw, expect):
            raise BuildError(
                f"{name}: {len(rows)} rows, {len(kept)} without '?'; expected {raw} and {expect}"
            )
        parts.extend(kept)
    income = ADULT_COLUMNS.index("income")
    for r in parts:
        r[income] = r[income].removesuffix(".")
    return columns_of(parts, ADULT_COLUMNS, ADULT_COLUMNS, ADULT_NUMERIC)


def build_kdd(folder: Path) -> dict[str, list]:
    """Census-KDD test half: 15 columns, labels without '.', '?'/'NA' recoded, all rows kept."""
    with gzip.open(folder / "census-income.test.gz", "rt", encoding="utf-8") as fh:
        rows = read_records(fh.read(), len(KDD_COLUMNS), "census-income.test")
    if len(rows) != KDD_ROWS:
        raise BuildError(f"census-income.test has {len(rows)} rows, expected {KDD_ROWS}")
    income = KDD_COLUMNS.index("income")
    for r in rows:
        r[income] = r[income].removesuffix(".")
    for col, mapping in KDD_RECODE.items():
        j = KDD_COLUMNS.index(col)
        changed = sum(r[j] in mapping for r in rows)
        if changed != KDD_RECODED[col]:
            raise BuildError(
                f"census-kdd: {changed} values of {col} to recode, expected {KDD_RECODED[col]}"
            )
        for r in rows:
            r[j] = mapping.get(r[j], r[j])
    cols = columns_of(rows, KDD_COLUMNS, KDD_KEEP, KDD_NUMERIC)
    missing = [c for c in KDD_KEEP if c not in KDD_NUMERIC and "?" in set(cols[c])]
    if missing:
        raise BuildError(f"census-kdd: '?' left in kept columns {missing}")
    return cols


def columns_of(
    rows: list[list[str]], names: Sequence[str], keep: Sequence[str], numeric: Sequence[str]
) -> dict[str, list]:
    out: dict[str, list] = {}
    for c in keep:
        j = names.index(c)
        vals = [r[j] for r in rows]
        out[c] = [int(v) for v in vals] if c in numeric else vals
    return out


def write_parquet(cols: dict[str, list], numeric: Sequence[str], path: Path) -> None:
    """Integers as int32 (the loader widens to int64), strings dictionary-encoded, zstd."""
    fields, arrays = [], []
    for name, vals in cols.items():
        typ = pa.int32() if name in numeric else pa.string()
        fields.append(pa.field(name, typ, nullable=False))
        arrays.append(pa.array(vals, type=typ))
    table = pa.Table.from_arrays(arrays, schema=pa.schema(fields))
    pq.write_table(
        table,
        path,
        compression="zstd",
        compression_level=19,
        use_dictionary=True,
        row_group_size=len(table),
        store_schema=False,
    )


# --------------------------------------------------------------------------------------------
# Hierarchies


def select_rows(cols: dict[str, list], selection: dict | None) -> np.ndarray:
    n = len(next(iter(cols.values())))
    mask = np.ones(n, dtype=bool)
    if selection is None:
        return mask
    if "first_rows" in selection:
        mask[selection["first_rows"] :] = False
    for col, bad in selection.get("exclude", {}).items():
        mask &= ~np.isin(np.asarray(cols[col], dtype=object), list(bad))
    return mask


def build_hierarchies(
    data: dict[str, dict[str, list]], arx_folder: Path, out: Path
) -> dict[str, dict]:
    """Write every hierarchy file; return the catalog's ``hierarchy_sets`` section."""
    section: dict[str, dict] = {}
    for set_name, spec in HIERARCHY_SETS.items():
        meta = {k: v for k, v in spec.items() if k != "bases"}
        meta["bases"] = {}
        for base, attrs in spec["bases"].items():
            folder = out / "hierarchies" / set_name / base
            folder.mkdir(parents=True, exist_ok=True)
            meta["bases"][base] = {}
            for attr, a in attrs.items():
                values = sorted({str(v) for v in data[base][attr]})
                path = folder / f"{attr}.csv"
                entry: dict = {"file": f"hierarchies/{set_name}/{base}/{attr}.csv"}
                if "arx_file" in a:
                    src = arx_folder / a["arx_file"]
                    shutil.copyfile(src, path)
                    entry["copied_from"] = f"adult/arx-hierarchies/{a['arx_file']}"
                    entry["source_sha256"] = sha256(src)
                else:
                    h = a["build"](values)
                    h.to_csv(path)
                h = Hierarchy.read_csv(path, name=attr)
                h.leaf_index(values, attribute=attr)  # raises if a value is not a leaf
                entry["height"] = h.height
                entry["leaves"] = len(h)
                entry["values_in_data"] = len(values)
                if "paper_height" in a:
                    entry["paper_height"] = a["paper_height"]
                    entry["paper_values"] = a.get("paper_values")
                    if a["paper_height"] is not None:
                        want = a["paper_height"] - HEIGHT_OFFSET[set_name]
                        if h.height != want:
                            raise BuildError(
                                f"{set_name}/{base}/{attr}: height {h.height}, the paper's "
                                f"{a['paper_height']} means {want}"
                            )
                meta["bases"][base][attr] = entry
        section[set_name] = meta
    return section


# --------------------------------------------------------------------------------------------
# Main


def build(inputs: Path, out: Path) -> None:
    """Build everything from ``inputs`` into ``out`` (the package's datasets folder)."""
    adult_dir = inputs / "adult"
    kdd_dir = inputs / "census-income-kdd"
    adult_sha = verify_inputs(adult_dir, ["adult.data", "adult.test"])
    kdd_sha = verify_inputs(kdd_dir, ["census-income.test.gz"])
    data = {"adult": build_adult(adult_dir), "census-kdd": build_kdd(kdd_dir)}

    (out / "data").mkdir(parents=True, exist_ok=True)
    for stale in (out / "hierarchies").glob("**/*.csv") if (out / "hierarchies").exists() else ():
        stale.unlink()
    numeric = {"adult": ADULT_NUMERIC, "census-kdd": KDD_NUMERIC}
    files = {}
    for base, cols in data.items():
        path = out / "data" / f"{base}.parquet"
        write_parquet(cols, numeric[base], path)
        files[base] = sha256(path)

    sets = build_hierarchies(data, adult_dir / "arx-hierarchies", out)

    catalog: dict = {
        "catalog_version": 1,
        "generated_by": "scripts/build_datasets.py",
        "datasets": {},
        "hierarchy_sets": sets,
    }
    for name, d in DATASETS.items():
        base = d["base"]
        cols = data[base]
        mask = select_rows(cols, d["selection"])
        if int(mask.sum()) != d["rows"]:
            raise BuildError(f"{name}: selection gives {int(mask.sum())} rows, want {d['rows']}")
        source = dict(d["source"])
        source["files"] = adult_sha if base == "adult" else kdd_sha
        domains = {
            c: len(set(np.asarray(v, dtype=object)[mask].tolist()))
            for c, v in cols.items()
            if c not in d["numeric"]
        }
        catalog["datasets"][name] = {
            "file": f"data/{d['file']}",
            "file_sha256": files[base],
            "hierarchy_base": base,
            "selection": d["selection"],
            "rows": d["rows"],
            "description": d["description"],
            "source": source,
            "license": d["license"],
            "citation": d["citation"],
            "cleaning": d["cleaning"],
            "columns": list(cols),
            "numeric": list(d["numeric"]),
            "domain_sizes": domains,
            "default_qi": list(d["default_qi"]),
            "default_sensitive": d["default_sensitive"],
            "hierarchy_sets": list(d["hierarchy_sets"]),
            "default_hierarchy_set": d["hierarchy_sets"][0],
        }
    text = json.dumps(catalog, indent=2, ensure_ascii=False) + "\n"
    (out / "catalog.json").write_text(text, encoding="utf-8")


def compare(built: Path, shipped: Path) -> list[str]:
    """Relative paths whose content differs between two output folders (or exist in one only).

    Parquet files are compared by content (another pyarrow may write other bytes), the catalog
    without its ``file_sha256`` values, hierarchy files byte for byte.
    """

    def listing(root: Path) -> set[str]:
        pats = ("catalog.json", "data/*.parquet", "hierarchies/**/*.csv")
        return {p.relative_to(root).as_posix() for pat in pats for p in root.glob(pat)}

    def catalog(path: Path) -> dict:
        cat = json.loads(path.read_text(encoding="utf-8"))
        for entry in cat["datasets"].values():
            entry.pop("file_sha256", None)
        return cat

    def same(rel: str) -> bool:
        a, b = built / rel, shipped / rel
        if rel.endswith(".parquet"):
            return pq.read_table(a).equals(pq.read_table(b))
        if rel == "catalog.json":
            return catalog(a) == catalog(b)
        return filecmp.cmp(a, b, shallow=False)

    a, b = listing(built), listing(shipped)
    return sorted(a ^ b) + [p for p in sorted(a & b) if not same(p)]


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "inputs", nargs="?", type=Path, default=DEFAULT_INPUT,
        help="the shared datasets folder (default: ../shared/datasets from the repository root)",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=DEFAULT_OUTPUT, help="output folder")
    parser.add_argument(
        "--check", action="store_true",
        help="build into a temporary folder and fail if it differs from --out",
    )  # fmt: skip
    args = parser.parse_args(argv)
    inputs = args.inputs.resolve()
    try:
        if args.check:
            with tempfile.TemporaryDirectory() as tmp:
                build(inputs, Path(tmp))
                diff = compare(Path(tmp), args.out)
            if diff:
                print("out of date: " + ", ".join(diff), file=sys.stderr)
                return 1
            print(f"{args.out} is up to date")
            return 0
        build(inputs, args.out)
    except BuildError as exc:
        print(f"build_datasets: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
