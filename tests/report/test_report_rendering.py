"""The report's rendering glitches of issue 19, item 2: coinciding curves drawn once, no empty
chart, nested measures as tables (never raw JSON), parameters in words."""

from __future__ import annotations

import re

from anonlab.report.html import kv_table, parameters_text
from anonlab.report.plots import bar_plot, curve_plot, render


def _lines(svg: str) -> int:
    # the data lines of an Axes (tick marks are line2d too, but the same in both plots)
    return len(re.findall(r'<g id="line2d_\d+">', svg))


def test_coinciding_curves_are_drawn_once():
    same = curve_plot({"implications": [0.2, 0.5, 1.0], "negations": [0.2, 0.5, 1.0]}, "x")
    apart = curve_plot({"implications": [0.2, 0.5, 1.0], "negations": [0.2, 0.4, 0.9]}, "x")
    single = curve_plot({"implications": [0.2, 0.5, 1.0]}, "x")
    # a curve is two line2d groups: its line and its legend sample
    assert _lines(same) == _lines(single) == _lines(apart) - 2


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
