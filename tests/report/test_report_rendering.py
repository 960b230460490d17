"""The report's rendering glitches of issue 19, item 2: coinciding curves drawn once, no empty
chart, nested measures as tables (never raw JSON), parameters in words."""

from __future__ import annotations

import re

from anonlab.report.html import kv_table, parameters_text
from anonlab.report.plots import bar_plot, curve_plot, render


def _lines(svg: str) -> int:
    # the data lines (legend samples and ticks are other elements)
    return len(re.findall(r'<polyline class="curve"', svg))


def test_coinciding_curves_are_drawn_once():
    same = curve_plot({"implications": [0.2, 0.5, 1.0], "negations": [0.2, 0.5, 1.0]}, "x")
    apart = curve_plot({"implications": [0.2, 0.5, 1.0], "negations": [0.2, 0.4, 0.9]}, "x")
    single = curve_plot({"implications": [0.2, 0.5, 1.0]}, "x")
    assert _lines(same) == _lines(single) == _lines(apart) - 1 == 1
    assert "implications = negations" in same and "implications = negations" not in apart


def test_chart_text_is_escaped_and_the_output_deterministic():
    """A label holding markup reaches the page as text, and the same input gives the same
    bytes (the redacted and the internal report compare their charts)."""
    hostile = {"<script>alert(1)</script>": 0.5, "a & b": 0.2}
    svg = bar_plot(hostile, "<b>share</b>")
    assert "<script>" not in svg and "&lt;script&gt;alert(1)&lt;/script&gt;" in svg
    assert "a &amp; b" in svg and "&lt;b&gt;share&lt;/b&gt;" in svg
    assert svg == bar_plot(dict(hostile), "<b>share</b>")
    curve = curve_plot({"<i>x</i>": [0.1, 0.9]}, "t")
    assert "<i>" not in curve and "&lt;i&gt;x&lt;/i&gt;" in curve


def test_no_chart_without_a_positive_bar():
    assert bar_plot({"age": 0.0, "sex": 0.0}, "share") is None
    assert render({"kind": "bars", "data": {}, "label": "share"}) is None
    assert bar_plot({"age": 0.1, "sex": 0.0}, "share").startswith("<svg")


def test_nested_measures_render_as_tables_not_json():
    page = kv_table(
        {
            "workload-error": {"mean_relative_error": 0.123456, "queries": 100},
            "ncp": {"value": 0.5, "per_attribute": {"age": 0.25, "sex": 0.75}},
            "curve": list(range(40)),
            "targets": ["flu", "cold"],
        }
    )
    assert "{" not in page and "[" not in page
    assert "0.1235" in page and "40 values from 0 to 39" in page and "flu, cold" in page
    assert page.count("<table>") == 4  # the outer one, two measures, one nested per attribute


def test_parameters_in_words():
    text = parameters_text({"l": 3, "k": None, "sensitive_values": ["a", "b"], "t": 0.2})
    assert text == "l = 3; sensitive_values = a, b; t = 0.2"
    assert parameters_text({}) == "no parameters"


def test_distributions_original_beside_released(make_table):
    import numpy as np

    from anonlab.anonymize import anonymize
    from anonlab.report import audit
    from anonlab.report.distributions import column_distributions

    rng = np.random.default_rng(0)
    n = 400
    table = make_table(
        {"age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n),
         "s": rng.choice(list("abcde"), n)},
        qi=["age", "sex"], sensitive="s", value_sets=["sex"],
    )  # fmt: skip
    generalized = anonymize(table, "mondrian", l=3, seed=0)
    d = column_distributions(generalized, top=12)
    assert set(d) == {"age", "sex", "s"}
    for name in d:
        assert sum(d[name]["original"].values()) == sum(d[name]["released"].values()) == n
    assert len(d["age"]["original"]) <= 12  # 72 ages binned into at most 12 ranges
    labels = set(np.asarray(generalized.generalization["age"].labels).astype(str))
    assert set(d["age"]["released"]) - {"other"} <= labels
    assert d["s"]["released"] == d["s"]["original"]  # nothing perturbed
    bucketized = anonymize(table, "anatomy", l=3, seed=0)
    b = column_distributions(bucketized)
    assert b["sex"]["released"] == b["sex"]["original"] and "exactly" in b["sex"]["how"]
    finding = audit(generalized, stages=["distributions"]).finding("distributions")
    assert finding.plot["has_values"] and finding.redacted().plot is None
    tables = render(finding.plot)
    assert tables.count("<table class='distribution'>") == 3 and "<script" not in tables
    hostile = {"q": {"original": {"<b>x</b>": 3}, "released": {"[1-2]": 3}, "how": "h"}}
    page = render({"kind": "distributions", "columns": hostile})
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page


def test_charts_stay_valid_svg_with_values_that_are_not_finite():
    """NaN, infinite, negative or mismatched values and control characters in labels: every
    chart still parses as XML and no coordinate reads nan or inf."""
    import xml.etree.ElementTree as ET

    import numpy as np

    from anonlab.report.plots import error_plot, possible_plot, posterior_plot

    nan, inf = float("nan"), float("inf")
    charts = [
        curve_plot({"a": [0.0, nan, 1.0], "b": 0.5}, "x"),
        posterior_plot(np.array([0.1, 0.5]), np.array([0.2]), nan, "l"),
        posterior_plot(np.array([0.1]), np.array([0.2]), inf, "l"),
        bar_plot({"a": inf, "b": 0.5, "c\x00d": 0.3}, "s"),
        possible_plot(np.array([1.0, nan]), np.array([2.0, 3.0]), "p"),
        error_plot(np.array([-1.0, -2.0]), "e"),
        error_plot(np.array([-1.0, 0.5, inf, 2.0]), "e"),
    ]
    for svg in charts:
        ET.fromstring(svg)
        assert not re.search(r'="[^"]*(nan|inf)', svg), svg
    assert "promise" not in charts[1] and "c\ufffdd" in charts[3]
    zero = render(
        {
            "kind": "distributions",
            "columns": {"c": {"original": {"a": 0}, "released": {"a": 0}, "how": "h"}},
        }
    )
    assert "<table class='distribution'>" in zero  # fmt: skip
