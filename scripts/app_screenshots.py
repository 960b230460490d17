"""Regenerate the screenshots of ``anonlab serve`` in ``docs/app/`` (one PNG per step).

    python scripts/app_screenshots.py [--out docs/app]

Runs the browser test's own flow (:class:`Flow` of ``tests/app/test_browser_flow.py``, with its
assertions) on the same synthetic discharge CSV as the test (``write_discharges`` of
``tests/app/conftest.py``: 300 rows, zip codes, birth dates, two sensitive attributes): a fresh
``python -m anonlab serve --port 0`` in a temporary folder, headless Chromium at 1280×900,
and at each step a screenshot:

    01-load.png         the home page, the CSV chosen
    02-schema.png       roles and types set (full page)
    03-hierarchies.png  the zip code's prefix hierarchy previewed (full page)
    04-anonymize.png    Mondrian, k = 5, ℓ = 2 (full page)
    05-verdict.png      the audit's verdict and findings (full page)
    06-compare.png      Mondrian and lattice on the privacy–utility frontier (full page)
    07-download.png     the release's downloads

Needs what the test needs: Selenium, Chromium and chromedriver (no driver is downloaded), and
the extra ``anonlab[app]``.
"""

from __future__ import annotations

import argparse
import base64
import importlib.util
import math
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests" / "app"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _shooter(out: Path, size: tuple[int, int]):
    """``shot(name, driver, full)``: ``out/name.png``, the viewport or the whole page."""

    def shot(name: str, driver, full: bool) -> None:
        path = out / f"{name}.png"
        driver.execute_script("document.activeElement && document.activeElement.blur()")
        if not full:
            driver.save_screenshot(str(path))
        else:
            content = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
            height = max(size[1], math.ceil(content["height"]))
            clip = {"x": 0, "y": 0, "width": size[0], "height": height, "scale": 1}
            png = driver.execute_cdp_cmd(
                "Page.captureScreenshot",
                {"format": "png", "captureBeyondViewport": True, "clip": clip},
            )
            path.write_bytes(base64.b64decode(png["data"]))
        print(f"wrote {path}")

    return shot


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "app",
                        help="folder of the PNGs (default: docs/app)")  # fmt: skip
    args = parser.parse_args(argv)
    try:
        flows = _load("anonlab_app_browser_flow", TESTS / "test_browser_flow.py")
        data = _load("anonlab_app_test_data", TESTS / "conftest.py")
    except pytest.skip.Exception as exc:  # what the test would skip for: what to install
        print(f"cannot take the screenshots: {exc.msg}", file=sys.stderr)
        return 2
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    size = flows.WINDOW
    with tempfile.TemporaryDirectory(prefix="anonlab-screenshots-") as tmp:
        source = data.write_discharges(Path(tmp) / "discharges.csv", n=300)
        server = flows.Server(Path(tmp) / "work")
        driver = None
        try:
            driver = flows.new_driver(size)
            # the viewport itself 1280×900, whatever the window's frame takes
            driver.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": False},
            )
            flow = flows.Flow(driver, server, shot=_shooter(out, size))
            flow.login()
            flow.upload(source)
            flow.schema()
            flow.hierarchies()
            flow.anonymize(k=5, l=2)
            flow.audit()
            flow.report()
            flow.compare(("mondrian", "lattice"), "2")
            flow.download()
        finally:
            if driver is not None:
                driver.quit()
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
