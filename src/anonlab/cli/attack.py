"""``anonlab attack list`` and ``anonlab attack NAME`` for every registered attack.

The attacks come from the registry (:mod:`anonlab.attacks.contract`). An attack with a
hand-written command (``attack definetti``, ``attack foreground``, ...) keeps it; every other
registered attack gets a generic command here: it runs the attack through
:func:`anonlab.attacks.contract.run` (knowledge from the publisher's copy, inference from what is
published, scoring on the truth) and prints the same verdict and headline as the audit's
finding, or with ``--json`` the finding and the per-record inference. Its options are the audit
budget's fields the attack declares (:attr:`Attack.options`). Commands are added when the
command line starts (:func:`add_attack_commands`), so an attack registered before then, by a
plug-in or a test, appears without touching this file.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import typer

from anonlab.attacks import contract
from anonlab.cli.common import (
    ATTACKED,
    BUDGET_OPTIONS,
    JSON,
    SEED,
    emit_json,
    open_release,
    print_table,
    say,
)
from anonlab.errors import AnonlabError
from anonlab.report.budget import AuditBudget

RELEASE = typer.Argument(..., help="A release folder written by `anonlab anonymize`.")


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add ``attack list``; the generic commands are added by :func:`add_attack_commands`."""
    attack_app.command("list")(attack_list)


def _command_names(attack_app: typer.Typer) -> set[str]:
    return {
        info.name or info.callback.__name__.replace("_", "-")
        for info in attack_app.registered_commands
        if info.callback is not None
    }


def add_attack_commands(attack_app: typer.Typer) -> None:
    """Give every registered attack without a command a generic ``attack NAME`` command, and
    drop the generic commands of attacks no longer registered (a test's toy)."""
    registered = set(contract.names())
    attack_app.registered_commands[:] = [
        info
        for info in attack_app.registered_commands
        if getattr(info.callback, "generic_attack", None) in (None, *registered)
    ]
    have = _command_names(attack_app)
    for attack in contract.attacks():
        if attack.name not in have and attack.command not in have and attack.name != "list":
            attack_app.command(attack.name, help=_help(attack))(_generic(attack))


def _help(attack: contract.Attack) -> str:
    lines = [f"{attack.title} ({attack.paper}).", "", f"The attacker {attack.attacker}."]
    if attack.cost:
        lines += ["", f"Cost: {attack.cost}."]
    return "\n".join(lines)


def _generic(attack: contract.Attack):
    """A command function for ``attack`` whose signature typer reads: the release folder, the
    attack's budget options, ``--seed`` and ``--json``."""

    def command(
        release_dir: Path, seed: int, as_json: bool, sensitive: str | None, **budget: Any
    ) -> None:
        fields = {field: budget[param] for field, (param, _) in BUDGET_OPTIONS.items()
                  if param in budget}  # fmt: skip
        if fields.get("foreground_attributes") == 0:
            fields["foreground_attributes"] = None
        options = AuditBudget.of(None, **fields).to_dict()
        release = open_release(release_dir, sensitive)
        inference, finding = contract.run(attack, release, {**options, "seed": seed})
        if as_json:
            emit_json({"finding": finding.to_json(), "inference": inference.to_json()})
            return
        say(f"{finding.title}: {finding.verdict}", style="bold")
        say(finding.headline)
        if finding.strongest:
            say(f"strongest inference: {finding.strongest}")
        say(f"promise: {finding.promise}; attacker: {finding.attacker}")

    params = [
        inspect.Parameter(
            "release_dir", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=RELEASE, annotation=Path
        )
    ]
    for field in attack.options:
        if field not in BUDGET_OPTIONS:
            raise AnonlabError(
                f"attack {attack.name!r} declares option {field!r}, which is not a field of the "
                f"audit budget ({', '.join(BUDGET_OPTIONS)})"
            )
        name, option = BUDGET_OPTIONS[field]
        kind = float if field == "min_expectation" else int
        params.append(
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=kind)
        )
    params += [
        inspect.Parameter(
            "sensitive", inspect.Parameter.KEYWORD_ONLY, default=ATTACKED, annotation=str | None
        ),
        inspect.Parameter("seed", inspect.Parameter.KEYWORD_ONLY, default=SEED, annotation=int),
        inspect.Parameter("as_json", inspect.Parameter.KEYWORD_ONLY, default=JSON, annotation=bool),
    ]

    def run(**kwargs: Any) -> None:
        release_dir = kwargs.pop("release_dir")
        seed = kwargs.pop("seed")
        as_json = kwargs.pop("as_json")
        sensitive = kwargs.pop("sensitive")
        command(release_dir, seed, as_json, sensitive, **kwargs)

    run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    run.generic_attack = attack.name  # type: ignore[attr-defined]
    run.__name__ = f"attack_{attack.name.replace('-', '_')}"
    run.__doc__ = _help(attack)
    return run


def attack_list(
    release_dir: Path | None = typer.Argument(
        None, help="A release folder: also say whether each attack applies to it, and why not."
    ),
    as_json: bool = JSON,
) -> None:
    """List the registered attacks: the paper, the attacker, the knowledge, the cost."""
    release = None if release_dir is None else open_release(release_dir)
    rows = []
    for a in contract.attacks():
        row = {
            "name": a.name,
            "title": a.title,
            "paper": a.paper,
            "attacker": a.attacker,
            "knowledge": list(a.knowledge),
            "cost": a.cost,
            "bound": a.bound,
            "options": list(a.options),
        }
        if release is not None:
            reason = a.unavailable(release)
            row["applies"] = reason is None
            row["reason"] = reason
        rows.append(row)
    if as_json:
        emit_json({"attacks": rows})
        return
    columns = ["attack", "paper", "attacker knows", "options"]
    if release is not None:
        columns.append("applies to this release")
    table = []
    for row in rows:
        cells = [row["name"], row["paper"], row["attacker"], ", ".join(row["options"]) or "—"]
        if release is not None:
            cells.append("yes" if row["applies"] else f"no: {row['reason']}")
        table.append(cells)
    print_table("Registered attacks", columns, table)
