"""A Java program kept running beside a benchmark: compile it against ARX's libraries, send it one
request per line, read one ``key=value ...`` answer per line (ArxAlternate.java, ArxHeuristic.java).
One JVM for the whole run, so ARX is timed warm, as anonlab is."""

from __future__ import annotations

import os
import pathlib
import platform
import subprocess


def compile_java(arx: pathlib.Path, build: pathlib.Path, sources: list[pathlib.Path]) -> str:
    """Compile ``sources`` against ARX's jars in ``arx/lib``; the class path to run them with."""
    build.mkdir(parents=True, exist_ok=True)
    classpath = os.pathsep.join([str(build), str(arx / "lib" / "*")])
    subprocess.run(["javac", "-cp", classpath, "-d", str(build), *map(str, sources)], check=True)
    return classpath


def environment(title: str, repeat: int) -> str:
    """The heading and the sentence every ARX side-by-side benchmark prints first: machine, CPU,
    load, the Python side's versions, the JVM's, and how times are taken."""
    import numba
    import numpy as np
    import pandas as pd

    import anonlab
    from timing import cpu_name

    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    return (
        f"## {title}\n\n"
        f"{platform.machine()}, {cpu_name()}, {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.2f} at start; Python {platform.python_version()}, numpy "
        f"{np.__version__}, pandas {pd.__version__}, numba {numba.__version__}, anonlab from "
        f"{pathlib.Path(anonlab.__file__).parent}; {java.splitlines()[0]} "
        f"({java.splitlines()[-1].strip()}); median of {repeat} alternating pairs after "
        f"one warm-up each.\n"
    )


class JavaLoop:
    """``java -cp CLASSPATH MAIN ARGS...`` answering one line per request after a "ready" line."""

    def __init__(self, classpath: str, main: str, *args: str) -> None:
        self.process = subprocess.Popen(
            ["java", "-XX:+UseParallelGC", "-cp", classpath, main, *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
        )  # fmt: skip
        ready = self.process.stdout.readline()
        if not ready.startswith("ready"):
            raise RuntimeError(f"{main} did not start: {ready!r}")

    def ask(self, request: str) -> dict[str, str]:
        """Send one request line; the answer's ``key=value`` fields."""
        self.process.stdin.write(request + "\n")
        self.process.stdin.flush()
        return dict(f.split("=", 1) for f in self.process.stdout.readline().split())

    def close(self) -> None:
        self.process.stdin.write("\n")
        self.process.stdin.close()
        self.process.wait(timeout=60)
