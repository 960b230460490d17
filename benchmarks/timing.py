"""What every benchmark script here shares: best-of-N timing and markdown table rows."""

from __future__ import annotations

import time
from collections.abc import Callable


def best(fn: Callable[[], object], repeat: int, warm_up: bool = True) -> tuple[float, object]:
    """Minimum wall time over ``repeat`` runs (after one untimed run) and the last result."""
    if warm_up:
        fn()
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def row(*cells: object) -> str:
    """One markdown table row."""
    return "| " + " | ".join(str(c) for c in cells) + " |"


def ms(seconds: float | None) -> str:
    """Seconds as '12.3 ms' or '1.23 s' ('–' for None)."""
    if seconds is None:
        return "–"
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def cpu_name() -> str:
    """The machine's CPU model and count, for a benchmark's header."""
    import platform

    try:
        with open("/proc/cpuinfo") as f:
            names = [ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")]
        return f"{names[0]} × {len(names)}"
    except (OSError, IndexError):
        return platform.processor() or "unknown CPU"
