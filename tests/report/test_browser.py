"""The audit report in a real browser (headless Chromium): it renders, logs no console message,
shows every plot, and shows a hostile value as text. Skipped when no Chromium is installed
(``.ci/run`` installs Debian's ``chromium``). Screenshots go to ``$ANONLAB_ARTIFACTS`` when set,
else to pytest's temporary folder, for review."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from anonlab.release import Release
from anonlab.report import audit, write_html

HOSTILE = "<script>document.title='pwned'</script>"


def _chromium() -> str | None:
    for name in (os.environ.get("ANONLAB_CHROMIUM"), "chromium", "chromium-browser",
                 "google-chrome", "google-chrome-stable"):  # fmt: skip
        if name and shutil.which(name):
            return shutil.which(name)
    return None


CHROMIUM = _chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium found (install Debian's `chromium`, or set ANONLAB_CHROMIUM): "
    "the browser test of the HTML report is skipped",
)


def _run(*args: str) -> subprocess.CompletedProcess:
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--enable-logging=stderr", "--v=0", "--virtual-time-budget=2000"]  # fmt: skip
    return subprocess.run([*base, *args], capture_output=True, text=True, timeout=120)


def _artifacts(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("ANONLAB_ARTIFACTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _releases(make_table):
    n = 40
    hostile = np.where(np.arange(n) % 4 == 0, HOSTILE, "plain")
    q = ["q0", "q0"] * 5 + ["q1", "q1"] * 5 + ["q0", "q1"] * 10
    s = ["a", "a"] * 5 + ["b", "b"] * 5 + ["a", "b"] * 10
    every = make_table({"q": q, "w": hostile, "s": s}, qi=["q", "w"], sensitive="s")
    nobody = make_table(
        {"q": np.repeat(["q0", "q1"] * 4, 5), "s": np.tile(list("aabbc"), 8)},
        qi=["q"],
        sensitive="s",
    )
    manifest = {"algorithm": "anatomy", "parameters": {"l": 2}}
    return {
        "everybody": Release(every, np.repeat(np.arange(n // 2), 2), "bucketization", manifest),
        "nobody": Release(nobody, np.repeat(np.arange(8), 5), "bucketization", manifest),
    }


@pytest.mark.parametrize("case", ["everybody", "nobody"])
def test_report_renders_in_chromium(make_table, tmp_path, case):
    release = _releases(make_table)[case]
    stages = ["checks", "definetti", "negative-rules", "worst-case", "risk", "utility"]
    result = audit(release, stages=stages, targets=40, chains=2, sweeps=40, k_max=2, queries=100)
    page = write_html(result, tmp_path / f"{case}.html")
    at_risk = result.finding("definetti").at_risk
    assert (at_risk == 40) if case == "everybody" else (at_risk == 0)

    dom = _run("--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    assert "<title>anonlab audit" in html and "pwned" not in html.split("</title>")[0]
    # the banner comes first in the rendered body, above the title
    body = html.split("<body", 1)[1]
    banner = body.find("internal: contains record-level findings; do not publish")
    assert 0 <= banner < body.find("<h1")
    plotted = sum(1 for f in result.findings if f.plot)
    assert html.count("<svg") == plotted
    if case == "everybody":
        assert "&lt;script&gt;document.title=" in html  # shown as text, never run
    console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line]
    assert console == [], console

    shot = _artifacts(tmp_path) / f"audit-{case}.png"
    res = _run(f"--screenshot={shot}", "--window-size=1200,2400", page.as_uri())
    assert res.returncode == 0, res.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
