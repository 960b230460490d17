"""The audit's progress events (report/audit.py stays free of terminal code) and the command
line's progress display built on them."""

from __future__ import annotations

import io
import re

import numpy as np

from anonlab.release import Release
from anonlab.report import audit
from anonlab.report.audit import StageProgress

STAGES = ["checks", "definetti", "worst-case", "utility"]
KW = dict(stages=STAGES, targets=12, chains=2, sweeps=40, k_max=3, queries=100, seed=5)


def _release(make_table) -> Release:
    q = np.repeat(["q0", "q1", "q2"], 8)
    s = np.tile(list("abcd"), 6)
    table = make_table({"q": q, "s": s}, qi=["q"], sensitive="s")
    manifest = {"algorithm": "anatomy", "parameters": {"l": 2}}
    return Release(table, np.repeat(np.arange(6), 4), "bucketization", manifest)


def _without_times(a) -> dict:
    payload = a.to_json()
    for f in payload["findings"]:
        f.pop("seconds")
    return payload


def test_events_per_stage_in_order(make_table):
    events: list[StageProgress] = []
    a = audit(_release(make_table), on_progress=events.append, **KW)
    assert [e.stage for e in events if e.event == "start"] == STAGES
    assert [e.stage for e in events if e.event == "done"] == STAGES
    for index, name in enumerate(STAGES):
        mine = [e for e in events if e.stage == name]
        assert mine[0].event == "start" and mine[-1].event == "done"
        assert all(e.index == index and e.stages == len(STAGES) for e in mine)
        assert mine[-1].finding is a.findings[index]
        steps = [(e.completed, e.total) for e in mine if e.event == "advance"]
        if name == "definetti":  # sweeps, in chunks, ending at the last one
            assert steps[-1] == (40, 40) and len(steps) > 1
            assert [c for c, _ in steps] == sorted(c for c, _ in steps)
        elif name == "worst-case":  # one step per k = 0..k_max
            assert steps == [(1, 4), (2, 4), (3, 4), (4, 4)]
        else:  # no cheap iteration count: a spinner
            assert steps == []


def test_progress_changes_nothing(make_table):
    release = _release(make_table)
    names: list[str] = []
    quiet = audit(release, **KW)
    watched = audit(release, on_progress=lambda e: None, progress=names.append, **KW)
    assert names == STAGES
    assert _without_times(quiet) == _without_times(watched)


def test_terminal_display_shows_every_stage_and_its_verdict(make_table):
    from rich.console import Console

    from anonlab.cli.audit import AuditProgress

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=120)
    with AuditProgress(STAGES, console) as bar:
        a = audit(_release(make_table), on_progress=bar.update, **KW)
        bar.progress.refresh()
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", buffer.getvalue())
    last = screen[screen.rindex("checks") :]  # the last frame drawn
    for f in a.findings:
        assert re.search(rf"{f.key}\s.*{f.verdict}", last), f.key
    assert "40/40" in last and "4/4" in last  # deFinetti sweeps, worst-case k


def test_no_display_with_json_or_without_a_terminal(make_table, tmp_path, cli):
    from anonlab.release_io import save_release

    save_release(_release(make_table), tmp_path / "rel")
    argv = ["audit", str(tmp_path / "rel"), "--stages", "checks,worst-case", "--k-max", "2"]
    code, out, err = cli([*argv, "--json"])
    assert code == 0 and err == "" and out.lstrip().startswith("{")
    code, out, err = cli(argv)  # captured output is not a terminal
    assert code == 0 and err == "" and "Audit of" in out


def test_worst_case_k_option(make_table, tmp_path, cli):
    import json

    from anonlab.release_io import save_release

    save_release(_release(make_table), tmp_path / "rel")
    argv = ["audit", str(tmp_path / "rel"), "--stages", "worst-case", "--k-max", "2"]
    code, out, _ = cli([*argv, "--worst-case-k", "2", "--json"])
    assert code == 0
    f = json.loads(out)["findings"][0]
    assert f["measures"]["verdict_k"] == 2 and f["settings"]["worst_case_k"] == 2
    code, _, err = cli([*argv, "--worst-case-k", "3"])
    assert code == 2 and "--worst-case-k must be between 0 and --k-max (2)" in err
