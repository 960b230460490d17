"""Independent pieces of compiled work run on threads, their results taken in order.

Numba kernels compiled with ``nogil=True`` release the interpreter lock, so a few threads run
them side by side while the Python around them (small numpy steps, the solver's bookkeeping)
takes turns. :func:`in_order` runs such pieces and yields their results in the order given, so
whatever the caller folds them into (a maximum with ties broken by enumeration order, a list)
is the same for any number of threads.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from anonlab.resources import usable_cpus

T = TypeVar("T")


def in_order(calls: Iterable[Callable[[], T]], threads: int | None = None) -> Iterator[T]:
    """Yield ``call()`` for every call of ``calls``, in order, running up to ``threads`` at
    once (default: the CPUs this process may use).

    ``calls`` is consumed lazily: at most ``2 * threads`` calls are started and not yet
    yielded, so their inputs and results (one posterior per record each, in the foreground
    attack) do not pile up. One thread, or one call, runs in the caller's thread. The first
    exception a call raises is raised here, at its turn; the calls started after it still
    finish before it propagates (a thread cannot be stopped)."""
    threads = usable_cpus() if threads is None else threads
    if threads <= 1:
        for call in calls:
            yield call()
        return
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="anonlab") as pool:
        pending: deque[Future[T]] = deque()
        for call in calls:
            pending.append(pool.submit(call))
            if len(pending) >= 2 * threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
