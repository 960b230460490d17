"""`anonlab reproduce`: the claim protocol, the Markdown summary, one real adapter, the CLI."""

from __future__ import annotations

import json
import math
import re

import pytest

from anonlab.errors import AnonlabError
from anonlab.experiments import reproduce as rep
from anonlab.experiments.claims import (
    Claim,
    Figure,
    PaperResult,
    Tolerance,
    as_printed,
    at_least,
    at_most,
    claim,
    claims_table,
    escape_cell,
    paper_inside,
    printed_precision,
    render_summary,
    reported,
    trend,
    within,
)


# ---------------------------------------------------------------------- pass / miss
@pytest.mark.parametrize(
    ("tolerance", "paper", "ours", "expected"),
    [
        (within(0.03), 0.8917, 0.8852, True),  # Wong's headline: inside ± 0.03
        (within(0.03), 0.8917, 0.8600, False),  # 0.0317 away
        (within(0.03), 0.8917, 0.9217, True),  # exactly on the edge
        (within(0), 1566, 1566, True),
        (within(0), 1566, 1565, False),
        (at_least(0.70), 0.77, 0.7372, True),
        (at_least(0.70), 0.77, 0.6999, False),
        (at_most(0.06), 0.06, 0.0223, True),
        (at_most(0.06), 0.06, 0.0893, False),
        (paper_inside(0.675, 0.799, "w"), 0.770, "0.705–0.769", True),
        (paper_inside(0.438, 0.499, "w"), 0.406, "0.468–0.469", False),
        (Tolerance("relative", "± 10%", amount=0.1), 200.0, 219.0, True),
        (Tolerance("relative", "± 10%", amount=0.1), 200.0, 221.0, False),
    ],
)
def test_tolerance_inside_and_outside(tolerance, paper, ours, expected):
    c = claim("p", "item", paper, ours, tolerance, "settings")
    assert c.passed is expected
    assert c.mark == ("pass" if expected else "miss")


def test_difference_is_ours_minus_paper_and_only_for_numbers():
    c = claim("p", "i", 0.8917, 0.8852, within(0.03), "s")
    assert c.difference == pytest.approx(0.8852 - 0.8917)
    assert claim("p", "i", "rises with m", "1 < 2", trend(), "s", holds=True).difference is None


def test_missing_number_is_a_miss_not_a_pass():
    assert claim("p", "i", 0.5, float("nan"), within(1.0), "s").passed is False
    assert claim("p", "i", 0.5, None, at_least(0.0), "s").passed is False


def test_trends_and_reported_numbers():
    assert claim("p", "i", "falls", "yes", trend(), "s", holds=True).passed is True
    assert claim("p", "i", "falls", "no", trend(), "s", holds=False).passed is False
    r = claim("p", "i", 0.464, 0.69, reported(), "s")
    assert r.passed is None and r.mark == "reported"
    with pytest.raises(AnonlabError, match="holds"):
        claim("p", "i", "falls", "?", trend(), "s")
    with pytest.raises(AnonlabError, match="kind"):
        Tolerance("roughly", "w")


def test_numpy_values_become_plain_numbers():
    np = pytest.importorskip("numpy")
    c = claim("p", "i", np.float64(0.5), np.int64(3), at_least(1), "s")
    assert type(c.ours) is int and type(c.paper_value) is float
    assert json.dumps(c.to_json())  # serialisable


@pytest.mark.parametrize(
    ("value", "decimals", "expected"),
    [(0.02, None, 0.005), (0.8917, None, 0.00005), (1333.33, None, 0.005), (1000.0, None, 0.5),
     (0.5, 3, 0.0005), (750.0, 2, 0.005)],
)  # fmt: skip
def test_printed_precision(value, decimals, expected):
    assert printed_precision(value, decimals) == pytest.approx(expected)
    tol = as_printed(value, decimals)
    assert tol.check(value, value + 0.9 * expected) is True
    assert tol.check(value, value + 1.1 * expected) is False


# ---------------------------------------------------------------------- Markdown
def _cells(line: str) -> list[str]:
    """Split a Markdown table row on unescaped pipes."""
    parts = re.split(r"(?<!\\)\|", line.strip())
    assert parts[0] == "" and parts[-1] == ""
    return parts[1:-1]


def test_cells_escape_pipes_backslashes_and_newlines():
    assert escape_cell("a|b") == "a\\|b"
    assert escape_cell("x\\y") == "x\\\\y"
    assert escape_cell("two\nlines") == "two lines"
    assert escape_cell(1566) == "1,566"
    assert escape_cell(0.891734) == "0.8917"
    assert escape_cell(None) == ""
    assert escape_cell(math.nan) == "nan"


def test_claims_table_keeps_seven_columns_with_hostile_values():
    claims = [
        claim("p", "attributes a|b|c", 1.0, 1.05, within(0.1, "± 0.1 | loose"), "q | r"),
        claim("p", "plain", "trend", "ok", trend(), "q | r", holds=False),
    ]
    text = claims_table(claims)
    lines = text.splitlines()
    rows = [ln for ln in lines if ln.startswith("|")]
    assert len(rows) == 4  # header, rule, two claims
    for row in rows[2:]:
        assert len(_cells(row)) == 7
    first = _cells(rows[2])
    assert first[0].strip() == "attributes a\\|b\\|c"
    assert first[3].strip() == "+0.05"
    assert first[5].strip() == "S1" and first[6].strip() == "pass"
    assert _cells(rows[3])[6].strip() == "**miss**"
    assert "- S1: q \\| r" in lines  # one settings entry, shared by both rows


def test_summary_has_counts_figures_and_trends():
    r = PaperResult("p", "Paper | One")
    r.claims = [
        claim("p", "a", 1.0, 1.0, within(0), "s"),
        claim("p", "b", 1.0, 2.0, within(0), "s"),
        claim("p", "c", 1.0, 2.0, reported(), "s"),
    ]
    r.figures = [Figure("figures/p/f.png", "Figure 1", "rises with k")]
    bad = PaperResult("q", "Q", error="ValueError: a|b")
    text = render_summary([r, bad], "# Title")
    overview = [ln for ln in text.splitlines() if ln.startswith("| Paper")][0]
    cells = [c.strip() for c in _cells(overview)]
    assert cells[:7] == ["Paper \\| One", "—", "3", "1", "1", "1", "0 held"]
    assert "![Figure 1](figures/p/f.png)" in text
    assert "The paper: rises with k" in text
    assert "failed to run" in text and "a\\|b" in text


# ---------------------------------------------------------------------- adapters and runner
def test_paper_names_and_unknown_paper():
    assert rep.resolve_papers(None) == list(rep.PAPERS)
    assert rep.resolve_papers(["all"]) == list(rep.PAPERS)
    assert rep.resolve_papers(["jin", "martin"]) == ["martin", "jin"]
    with pytest.raises(AnonlabError, match="valid: martin, kifer, wong, li, jin"):
        rep.resolve_papers(["martin", "smith"])


@pytest.fixture(scope="module")
def martin_run(tmp_path_factory):
    """The Martin adapter end to end (Adult, seconds): folder, JSON and a summary copy."""
    root = tmp_path_factory.mktemp("rep")
    results = rep.reproduce(["martin"], root / "out", quick=True, summary=root / "docs.md")
    return root, results


def test_martin_adapter_claims_and_figures(martin_run):
    from anonlab.experiments import martin

    root, (result,) = martin_run
    assert result.error is None and result.key == "martin"
    # Figure 5: the two theorems are sanity checks, the gap is the one reproduction
    checks = result.sanity_checks()
    assert {c.paper_value for c in checks} == {
        "negated atoms never exceed implications (every k)",
        "disclosure reaches 1 by k = 13",
    }
    assert all(c.why for c in checks)
    five = [c for c in result.paper_claims() if c.item == "Figure 5"]
    assert len(five) == 1 and "gap is small" in five[0].paper_value
    # Figure 6: both readings for each k the paper draws, side by side, for implications and
    # for negated atoms (the paper's unshown "analogous graph"); the negation curve's numbers
    # beside the implications' are reported (no goal)
    six = [c for c in result.claims if c.item.startswith("Figure 6") and c.reading]
    assert len(six) == 2 * 2 * len(martin.FIGURE6_KS)
    assert result.readings() == ["trend", "strict"]
    for reading in ("trend", "strict"):
        items = {c.item for c in six if c.reading == reading}
        assert len(items) == 2 * len(martin.FIGURE6_KS)
    side = [c for c in result.claims if "beside implications" in c.item]
    assert len(side) == len(martin.FIGURE6_KS) and all(c.passed is None for c in side)
    assert all(isinstance(c.passed, bool) for c in result.claims if c not in side)
    for fig in result.figures:
        png = root / "out" / fig.path
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_written_folder_matches_claims(martin_run):
    root, (result,) = martin_run
    out = root / "out"
    payload = json.loads((out / "claims.json").read_text())
    (paper,) = payload["papers"]
    assert paper["counts"] == result.counts()
    assert [c["passed"] for c in paper["claims"]] == [c.passed for c in result.claims]
    text = (out / "reproduction.md").read_text()
    assert "--quick" in text and "do not edit by hand" in text
    # the copy's links are relative to its own folder and resolve to the written PNGs
    copy = (root / "docs.md").read_text()
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", copy)
    assert links and all((root / link).is_file() for link in links)
    assert not [p for p in root.iterdir() if p.name.startswith(".out.")]  # no temp leftovers


def test_existing_output_is_refused_and_kept(martin_run):
    root, _ = martin_run
    before = (root / "out" / "reproduction.md").read_text()
    with pytest.raises(AnonlabError, match="already exists"):
        rep.reproduce(["martin"], root / "out", quick=True)
    assert (root / "out" / "reproduction.md").read_text() == before


def test_a_failing_adapter_is_reported_not_hidden(monkeypatch, tmp_path, cli):
    def broken(quick, figures):
        raise RuntimeError("no data")

    monkeypatch.setitem(rep.PAPERS, "martin", broken)
    code, out, err = cli(["reproduce", "martin", "--quick", "--out", str(tmp_path / "o")])
    assert code == 1
    assert "failed" in err
    text = (tmp_path / "o" / "reproduction.md").read_text()
    assert "failed to run" in text and "RuntimeError: no data" in text


# ---------------------------------------------------------------------- CLI
def test_cli_unknown_paper_exits_2_listing_valid_ones(tmp_path, cli):
    out = tmp_path / "o"
    code, _, err = cli(["reproduce", "martin", "nosuch", "--out", str(out)])
    assert code == 2
    assert "Traceback" not in err
    assert "'nosuch'" in err
    for name in rep.PAPERS:
        assert name in err
    assert not out.exists()


def test_cli_json_counts(tmp_path, cli, monkeypatch):
    def tiny(quick, figures):
        r = PaperResult("martin", "Tiny")
        r.claims = [claim("martin", "x", 1.0, 1.0, within(0), "s")]
        return r

    monkeypatch.setitem(rep.PAPERS, "martin", tiny)
    code, out, _ = cli(["reproduce", "martin", "--out", str(tmp_path / "o"), "--json"])
    assert code == 0
    payload = json.loads(out)
    assert payload["papers"]["martin"]["pass"] == 1
    assert payload["quick"] is False


def test_claim_is_frozen():
    c = claim("p", "i", 1.0, 1.0, within(0), "s")
    assert isinstance(c, Claim)
    with pytest.raises(AttributeError):
        c.passed = False  # type: ignore[misc]
