"""The audit's budget (issue 18, item 3): one frozen options object with one set of defaults,
validated once, taken by the audit, compare and both commands."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from anonlab.cli import audit as cli_audit
from anonlab.cli import compare as cli_compare
from anonlab.errors import AnonlabError
from anonlab.report import audit
from anonlab.report.budget import AuditBudget


def test_defaults_and_overrides():
    b = AuditBudget()
    assert b.foreground_attributes == 1  # was 2 in compare, 1 in the audit
    assert AuditBudget.of(b, targets=5, foreground_attributes=None) == dataclasses.replace(
        b, targets=5, foreground_attributes=None
    )
    assert AuditBudget.of(None) == b
    with pytest.raises(dataclasses.FrozenInstanceError):
        b.targets = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"targets": 0}, "targets"),
        ({"sweeps": 1}, "sweeps"),
        ({"min_expectation": 1.0}, "min_expectation"),
        ({"k_max": 2, "worst_case_k": 3}, "exceeds k_max = 2"),
        ({"foreground_attributes": 0}, "foreground_attributes"),
        ({"target": 5}, "unknown audit budget parameter(s) ['target']"),
    ],
)
def test_bad_budgets_are_named(fields, expected):
    with pytest.raises(AnonlabError) as exc:
        AuditBudget.of(None, **fields)
    assert expected in str(exc.value)


def test_both_commands_take_the_budget_defaults_from_one_place():
    for command in (cli_audit.audit_command, cli_compare.compare_command):
        params = inspect.signature(command).parameters
        got = {name: params[name].default.default for name in (
            "targets", "chains", "sweeps", "k_max", "worst_case_k", "queries",
            "foreground_attributes")}  # fmt: skip
        got["min_expectation"] = params["min_exp"].default.default
        assert got == AuditBudget().to_dict(), command.__name__


def test_the_audit_records_its_budget(make_table):
    from anonlab.anonymize import anatomy

    table = make_table({"q": list("aabbccdd") * 3, "s": list("xyzw") * 6}, ["q"], "s")
    release = anatomy(table, l=2, seed=0)
    budget = AuditBudget(targets=5, chains=1, sweeps=4, queries=20, k_max=2)
    a = audit(release, stages=["checks"], budget=budget, sweeps=6, seed=3)
    assert a.settings == {
        "stages": ["checks"],
        **dataclasses.replace(budget, sweeps=6).to_dict(),
        "seed": 3,
        "thresholds": {"max_risk": 0.2, "max_share_at_risk": 0.05, "bounds_decide": False},
    }
