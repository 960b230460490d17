"""How fast the pages of ``anonlab serve`` load on Adult-sized data (issue 22: "under 1 s on
Adult-sized data, with long work behind a progress bar").

    python benchmarks/bench_app_pages.py [--repeat 5]

Starts the real server (``python -m anonlab serve --port 0``, uvicorn, in its own process),
logs in with its token, and builds two projects the way a publisher would:

* **Adult, uploaded**: the bundled Adult data written as a CSV (45,222 rows, 15 columns) and
  uploaded through the form; the drafted schema's roles are set (the catalog's 8
  quasi-identifiers, occupation sensitive, the rest dropped); Mondrian ℓ = 4, audited.
* **Adult, bundled**: the same data opened from the bundled-dataset form (with its ARX
  hierarchies); Mondrian ℓ = 4, audited; a comparison of Anatomy and Mondrian at ℓ = 4.

Then every page of each project is fetched over HTTP (``httpx``, loopback): the first load
(which, for the schema page, reads the data file to show its values) and the median of
``--repeat`` loads after it. The long steps (reading and drafting, anonymizing, auditing,
comparing) run as jobs behind the progress bar; their wall times are printed too. This measures
the server's answer (the whole HTML received), not the browser's rendering.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from timing import cpu_name, row


def _start(workdir: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "anonlab", "serve", "--port", "0", "--workdir", str(workdir)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    for line in proc.stdout:
        found = re.search(r"(http://\S+/login\?token=\S+)", line)
        if found:
            return proc, found.group(1)
    raise RuntimeError("the server printed no login address")


def _wait(client: httpx.Client, project: str) -> tuple[dict, float]:
    start = time.perf_counter()
    while True:
        job = client.get(f"/p/{project}/job").json()
        if job["state"] != "running":
            return job, time.perf_counter() - start
        time.sleep(0.1)


def _time_page(client: httpx.Client, path: str, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat + 1):
        start = time.perf_counter()
        r = client.get(path)
        times.append(time.perf_counter() - start)
        assert r.status_code == 200, (path, r.status_code, r.text[:200])
    return times[0], statistics.median(times[1:])


def _in_process(workdir: Path, pages: list[tuple[str, str]], repeat: int) -> dict[str, float]:
    """The same pages rendered in this process (Starlette's TestClient over the same work
    folder, no socket): the median of ``repeat`` after one warm-up load."""
    from starlette.testclient import TestClient

    from anonlab.app import Sessions, create_app

    sessions = Sessions()
    client = TestClient(create_app(workdir, sessions, {"testserver"}))
    client.cookies = client.get(f"/login?token={sessions.token}", follow_redirects=False).cookies
    return {name: _time_page(client, path, repeat)[1] for name, path in pages}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from anonlab import datasets

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        proc, url = _start(tmp / "work")
        base = url.split("/login")[0]
        jobs: list[tuple[str, float]] = []
        try:
            client = httpx.Client(base_url=base, follow_redirects=False, timeout=600)
            r = client.get(url[len(base) :])
            client.cookies = r.cookies
            csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/").text).group(1)
            info = datasets.info("adult")
            csv = tmp / "adult.csv"
            datasets.load_frame("adult").to_csv(csv, index=False)
            with open(csv, "rb") as fh:
                r = client.post("/projects/upload", data={"csrf": csrf},
                                files={"file": ("adult.csv", fh, "text/csv")})  # fmt: skip
            uploaded = r.headers["location"].rsplit("/", 1)[1]
            jobs.append(("read and draft the schema (upload)", _wait(client, uploaded)[1]))
            start = time.perf_counter()  # the first view reads the file for its values
            schema = client.get(f"/p/{uploaded}/schema").text
            first_schema = time.perf_counter() - start
            names = re.findall(r'<td class="name">([^<]+)</td>', schema)
            form = {"csrf": csrf}
            for i, name in enumerate(names):
                role = ("quasi-identifier" if name in info.default_qi else
                        "sensitive" if name == info.default_sensitive else "drop")  # fmt: skip
                form[f"role-{i}"], form[f"type-{i}"] = role, ""
            client.post(f"/p/{uploaded}/schema", data=form)
            r = client.post("/projects/dataset", data={"csrf": csrf, "dataset": "adult"})
            bundled = r.headers["location"].rsplit("/", 1)[1]
            jobs.append(("read and draft the schema (bundled)", _wait(client, bundled)[1]))
            for project, label in ((uploaded, "upload"), (bundled, "bundled")):
                client.post(f"/p/{project}/anonymize",
                            data={"csrf": csrf, "algorithm": "mondrian", "l": "4"})  # fmt: skip
                job, seconds = _wait(client, project)
                assert job["state"] == "done", job
                jobs.append((f"anonymize, Mondrian ℓ = 4 ({label})", seconds))
                client.post(f"/p/{project}/r/r1/audit", data={"csrf": csrf})
                job, seconds = _wait(client, project)
                assert job["state"] == "done", job
                jobs.append((f"audit, internal and redacted ({label})", seconds))
            client.post(
                f"/p/{bundled}/compare",
                data={"csrf": csrf, "algorithm-anatomy": "1", "algorithm-mondrian": "1", "l": "4"},
            )
            job, seconds = _wait(client, bundled)
            assert job["state"] == "done", job
            jobs.append(("compare Anatomy and Mondrian at ℓ = 4 (bundled)", seconds))
            pages = [("home", "/")]
            for project, label in ((uploaded, "upload"), (bundled, "bundled")):
                for page, path in (("overview", ""), ("schema", "/schema"),
                                   ("hierarchies", "/hierarchies"), ("anonymize", "/anonymize"),
                                   ("release and verdict", "/r/r1")):  # fmt: skip
                    pages.append((f"{page} ({label})", f"/p/{project}{path}"))
            pages.append(("compare, with the frontier (bundled)", f"/p/{bundled}/compare"))
            pages.append(("the audit report (bundled)", f"/p/{bundled}/r/r1/file/report"))
            results = [(name, *_time_page(client, path, args.repeat)) for name, path in pages]
            local = _in_process(tmp / "work", pages, args.repeat)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    print("## `anonlab serve` on Adult\n")
    print(f"{cpu_name()}; Adult 45,222 rows; first load, then the median of {args.repeat}.\n")
    print("| page | first load | median | in one process (no socket), median | goal |")
    print("| --- | --- | --- | --- | --- |")
    print(row("schema (upload), its very first view: reads the 45,222 rows for the values shown",
              f"{first_schema * 1000:.0f} ms", "–", "–", "1 s"))  # fmt: skip
    for name, first, median in results:
        print(row(name, f"{first * 1000:.0f} ms", f"{median * 1000:.0f} ms",
                  f"{local[name] * 1000:.1f} ms", "1 s"))  # fmt: skip
    print("\n| job (behind the progress bar) | wall time |")
    print("| --- | --- |")
    for name, seconds in jobs:
        print(row(name, f"{seconds:.1f} s"))


if __name__ == "__main__":
    main()
