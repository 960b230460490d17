"""The audit report is internal and says so; ``redact`` gives the shareable form (issue 16 §6).

A hostile table whose every quasi-identifier and sensitive value is a unique marker (``MARK``)
with markup, HTML and a spreadsheet formula attached is anonymized by several algorithms and
audited. The internal report carries the banner, names records and escapes them; the redacted
one contains no marker anywhere (HTML or JSON) while every verdict, count, share, curve and plot
equals the internal report's. Neither names the release's seed or export key (§1).
"""

from __future__ import annotations

import html
import json
import re

import pandas as pd
import pytest

from anonlab.anonymize import anonymize
from anonlab.report import INTERNAL, REDACTED, audit, render_html, write_html, write_json
from anonlab.table import Table

RELEASE_SEED = 918273645  # distinctive: must not occur in any report
AUDIT_SEED = 7
HOSTILE = [
    "<script>alert(1)</script>",
    "[bold]x",
    "=cmd|' /C calc'!A0",
    "<img src=x onerror=alert(2)>",
    "&amp;\"'",
    "[/italic]",
]
N = 60
BUDGET = {"targets": 40, "chains": 2, "sweeps": 8, "queries": 100, "seed": AUDIT_SEED}


def _values(prefix: str, codes: list[int]) -> list[str]:
    # every value starts with a marker and carries console markup ("[/]") and a hostile suffix
    return [f"{prefix}{c:04d}[/]{HOSTILE[c % len(HOSTILE)]}" for c in codes]


Q1 = _values("QIMARK", list(range(N)))  # unique per record
Q2 = _values("QJMARK", [i % 4 for i in range(N)])
S = _values("SMARK", [(i % 4 + (i // 4) % 3) % 5 for i in range(N)])  # q2 rules out 2 values
MARKERS = sorted(set(Q1) | set(Q2) | set(S))


def _table(n: int = N) -> Table:
    frame = pd.DataFrame({"q1": Q1[:n], "q2": Q2[:n], "s": S[:n]})
    return Table.from_frame(frame, quasi_identifiers=["q1", "q2"], sensitive="s")


#: name: (records, algorithm, parameters); "hilb-tiny" is small enough for the ASAP checker,
#: whose summary names records and values (its worst extra fact and verdict)
CASES = {
    "anatomy": (N, "anatomy", {"l": 3}),
    "mondrian": (N, "mondrian", {"l": 2}),
    "hilb": (N, "hilb", {"l": 2}),
    "mask": (N, "mask", {"k": 2, "m": 2, "sensitive_values": [S[1], S[2]]}),
    "hilb-tiny": (12, "hilb", {"l": 2}),
}
ALGORITHMS = list(CASES)


@pytest.fixture(scope="module")
def audits():
    """Per case: the internal audit, the redacted one and the four serialisations."""
    out = {}
    for name, (n, algorithm, params) in CASES.items():
        release = anonymize(_table(n), algorithm, seed=RELEASE_SEED, **params)
        full = audit(release, **BUDGET)
        red = full.redacted()
        out[name] = {
            "full": full,
            "red": red,
            "full-html": render_html(full),
            "full-json": json.dumps(full.to_json(), ensure_ascii=False),
            "red-html": render_html(full, redact=True),
            "red-json": json.dumps(red.to_json(), ensure_ascii=False),
        }
    return out


def _leaks(text: str) -> list[str]:
    """Every trace of a data value in ``text``: the marker, a value raw or HTML-escaped."""
    found = [m for m in ("MARK", "calc'", "onerror", "alert(") if m in text]
    found += [v for v in MARKERS if v in text or html.escape(v) in text]
    return found


@pytest.mark.parametrize("form", ["red-html", "red-json"])
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_redacted_report_holds_no_value_of_the_data(audits, algorithm, form):
    text = audits[algorithm][form]
    assert _leaks(text) == []
    assert "redacted: aggregate figures only" in text


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_internal_report_has_the_banner_names_records_and_escapes_them(audits, algorithm):
    a = audits[algorithm]
    page, payload = a["full-html"], json.loads(a["full-json"])
    # the banner is the first thing in the body, above the title
    body = page[page.index("<body>") + len("<body>") :].lstrip()
    assert body.startswith('<div class="banner internal"') and INTERNAL in body.split("</div>")[0]
    assert payload["classification"] == INTERNAL and payload["redacted"] is False
    assert list(payload)[0] == "classification"
    # it does list records (so the redacted test above is not vacuous) ...
    assert any(f["worst"] for f in payload["findings"]) and "MARK" in a["full-json"]
    assert any(html.escape(v) in page for v in MARKERS)
    # ... and escapes every one of them
    assert "<script" not in page.lower() and "<img" not in page.lower()
    assert not any(v in page for v in MARKERS if "<" in v or "&" in v)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_redacted_aggregates_equal_the_internal_report(audits, algorithm):
    full = json.loads(audits[algorithm]["full-json"])
    red = json.loads(audits[algorithm]["red-json"])
    assert red["classification"] == REDACTED and red["redacted"] is True
    assert red["settings"] == full["settings"]
    withheld = {k for k, v in red["release"]["parameters"].items() if str(v).startswith("withh")}
    assert withheld <= {"sensitive_values"}
    assert {k: v for k, v in red["release"].items() if k != "parameters"} == {
        k: v for k, v in full["release"].items() if k != "parameters"
    }
    assert len(red["findings"]) == len(full["findings"]) == 9
    aggregate = ("key", "title", "verdict", "headline", "at_risk", "considered", "baseline",
                 "promise", "paper", "attacker")  # fmt: skip
    for f, r in zip(full["findings"], red["findings"], strict=True):
        assert {k: r[k] for k in aggregate} == {k: f[k] for k in aggregate}
        assert r["worst"] == [] and r["strongest"] is None and r["example"] is None
        for part in ("measures", "settings"):
            assert _without_withheld(r[part], f[part]) == f[part], (r["key"], part)


def _without_withheld(red, full):
    """``red`` with each withheld entry put back from ``full`` (so the rest must be equal)."""
    if isinstance(red, dict) and isinstance(full, dict):
        return {k: _without_withheld(v, full.get(k)) for k, v in red.items()}
    if isinstance(red, str) and red.startswith("withheld"):
        return full
    return red


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_redacted_page_keeps_every_verdict_and_plot(audits, algorithm):
    full, red = audits[algorithm]["full-html"], audits[algorithm]["red-html"]

    def verdicts(page: str) -> str:
        return page[page.index("<h2>Verdicts</h2>") : page.index("<h2>Strongest inferences")]

    assert verdicts(red) == verdicts(full)
    svgs = re.compile(r"<svg.*?</svg>", re.S)

    def without_distributions(page: str) -> str:
        # the per-column distributions are labelled with values of the data: only the
        # internal report draws them
        start = page.index('<h2 id="distributions"')
        return page[:start] + page[page.index("<h2", start + 1) :]

    assert svgs.findall(red) == svgs.findall(without_distributions(full))
    assert len(svgs.findall(red)) >= 3
    assert "class='distribution'" in full and "class='distribution'" not in red
    assert "Worst records" in full and "Worst records" not in red
    assert red.count("Withheld: the redacted report names no record") == 1


@pytest.mark.parametrize("form", ["full-html", "full-json", "red-html", "red-json"])
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_no_report_names_the_release_seed(audits, algorithm, form):
    text = audits[algorithm][form]
    assert str(RELEASE_SEED) not in text
    if form.endswith("json"):
        payload = json.loads(text)
        assert "seed" not in payload["release"] and "seed" not in payload["release"]["parameters"]
        assert payload["settings"]["seed"] == AUDIT_SEED  # the audit's own, stated


def test_redacting_leaves_the_internal_audit_unchanged(audits):
    full = audits["anatomy"]["full"]
    before = json.dumps(full.to_json(), ensure_ascii=False)
    again = full.redacted()
    assert json.dumps(full.to_json(), ensure_ascii=False) == before
    assert again.is_redacted and not full.is_redacted
    assert any(f.worst for f in full.findings) and not any(f.worst for f in again.findings)
    # redacting twice changes nothing more
    assert again.redacted().to_json() == again.to_json()


def test_the_asap_checkers_record_level_entries_are_withheld(audits):
    full, red = audits["hilb-tiny"]["full"], audits["hilb-tiny"]["red"]
    asap = full.finding("algorithm").measures["asap-check"]
    assert "record" in json.dumps(asap["worst_extra_fact"]) and asap["verdict"]
    withheld = red.finding("algorithm").measures["asap-check"]
    assert withheld["worst_extra_fact"].startswith("withheld")
    assert withheld["verdict"] == "withheld" and withheld["worlds"] == asap["worlds"]


def test_the_mined_rule_example_is_record_level(audits):
    # a negative rule quotes values of the data: internal only, in its own field
    f = audits["anatomy"]["full"].finding("negative-rules")
    assert f.example is not None and "MARK" in f.example and "MARK" not in f.attacker
    assert audits["anatomy"]["red"].finding("negative-rules").example is None


@pytest.mark.parametrize("redact", [False, True])
def test_write_html_and_json(audits, tmp_path, redact):
    full = audits["hilb"]["full"]
    page = write_html(full, tmp_path / "a.html", redact=redact).read_text()
    payload = json.loads(write_json(full, tmp_path / "a.json", redact=redact).read_text())
    assert payload["classification"] == (REDACTED if redact else INTERNAL)
    assert html.escape(payload["classification"]) in page
    assert (_leaks(page + json.dumps(payload, ensure_ascii=False)) == []) is redact


@pytest.mark.parametrize("redacted", [(False, False), (True, False), (True, True)])
def test_index_page_banner(audits, redacted):
    from anonlab.report.html import render_index

    pair = [audits["anatomy"], audits["mondrian"]]
    chosen = {
        f"r{i}": a["red" if r else "full"]
        for i, (a, r) in enumerate(zip(pair, redacted, strict=True))
    }
    page = render_index(chosen)
    banner = REDACTED if all(redacted) else INTERNAL
    assert html.escape(banner) in page and page.index("banner") < page.index("<h1>")
    assert _leaks(page) == []  # the index shows verdicts and headlines only


def test_compare_page_and_json_are_marked_internal():
    from anonlab.report.compare import Comparison, render_compare_html

    c = Comparison({"records": 3, "quasi_identifiers": ["q"], "sensitive": "s"}, [], [], {}, [])
    assert html.escape(INTERNAL) in render_compare_html(c)
    assert c.to_json()["classification"] == INTERNAL


# ---------------------------------------------------------------------- the command line
@pytest.fixture(scope="module")
def release_dir(tmp_path_factory):
    from anonlab.release_io import save_release

    release = anonymize(_table(), "anatomy", seed=RELEASE_SEED, l=3)
    path = tmp_path_factory.mktemp("redact") / "rel-[bold]-x"  # markup in the path, too
    save_release(release, path)
    return path


def _secrets(release_dir) -> list[str]:
    """The release's seed and, where the release directory keeps one, its export key."""
    out = [str(RELEASE_SEED)]
    key = release_dir / "publisher" / "export-key"
    if key.is_file():
        raw = key.read_bytes()
        out.append(raw.hex())
        text = raw.decode("ascii", errors="ignore").strip()
        if len(text) >= 16:
            out.append(text)
    return out


@pytest.mark.parametrize("as_json", [False, True])
@pytest.mark.parametrize("redact", [False, True])
def test_cli_audit_both_modes(release_dir, cli, tmp_path, redact, as_json):
    report, summary = tmp_path / "a.html", tmp_path / "a.json"
    argv = ["audit", str(release_dir), "--report", str(report), "--summary", str(summary)]
    argv += ["--targets", "30", "--chains", "2", "--sweeps", "6", "--queries", "100"]
    argv += ["--seed", str(AUDIT_SEED)]
    code, out, err = cli(argv + (["--redact"] if redact else []) + (["--json"] if as_json else []))
    assert code == 0, err
    assert "Traceback" not in err and "MarkupError" not in out + err
    page, payload = report.read_text(), json.loads(summary.read_text())
    assert payload["classification"] == (REDACTED if redact else INTERNAL)
    assert html.escape(payload["classification"]) in page
    written = page + summary.read_text()
    for secret in _secrets(release_dir):
        assert secret not in written and secret not in out
    if redact:
        assert _leaks(written) == [] and _leaks(out) == []
    else:
        assert "MARK" in written and "<script" not in page.lower()
    if as_json:
        assert json.loads(out)["classification"] == payload["classification"]
    else:
        banner = "redacted: aggregate figures only" if redact else "internal: contains record"
        assert banner in out and "report:" in out
        assert "rel-[bold]-x" in out  # the path printed as itself, not read as a style
        if not redact:  # the strongest inferences name QI values holding "[/]": printed as is
            assert "[/]" in out and "QIMARK" in out


def test_a_type_notes_example_value_is_withheld_from_the_redacted_report():
    # the reader's note quotes a value ("leading zeros kept, e.g. '07093'"): the internal
    # report keeps it, the redacted one withholds it and keeps the rest of the note
    zips = [f"{z:05d}" for z in (7093, 7094, 10001, 10002, 2139, 2140)] * 10
    frame = pd.DataFrame({"zip": zips, "s": (["a", "b", "c"] * 20)})
    table = Table.from_frame(frame, quasi_identifiers=["zip"], sensitive="s")
    assert table.types["zip"]["note"] == "leading zeros kept, e.g. '07093'"
    full = audit(anonymize(table, "anatomy", l=2, seed=1), stages=["checks"])
    assert "'07093'" in json.dumps(full.to_json())
    red = json.dumps(full.redacted().to_json())
    assert "07093" not in red and "leading zeros kept, e.g. (a value, withheld)" in red
    assert "07093" not in render_html(full, redact=True)
