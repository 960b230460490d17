"""anonlab.threads.in_order: results in the order given, calls run side by side, a bounded
number started ahead, exceptions raised at their turn."""

from __future__ import annotations

import threading
import time

import pytest

from anonlab.threads import in_order


@pytest.mark.parametrize("threads", [1, 2, 5])
def test_results_come_in_the_order_given(threads):
    # the first calls take longest, so with threads they finish last
    def call(i):
        def run():
            time.sleep((12 - i) / 1000)
            return i * i

        return run

    assert list(in_order([call(i) for i in range(12)], threads)) == [i * i for i in range(12)]


def test_two_threads_run_two_calls_at_once():
    # each call waits for the other at a barrier: only concurrent calls get through
    barrier = threading.Barrier(2, timeout=10)
    assert list(in_order([barrier.wait, barrier.wait], threads=2)) in ([0, 1], [1, 0])
    lone = threading.Barrier(2, timeout=0.2)
    with pytest.raises(threading.BrokenBarrierError):
        list(in_order([lone.wait, lone.wait], threads=1))


def test_at_most_twice_the_threads_are_started_ahead():
    started = []

    def calls():
        for i in range(20):

            def run(i=i):
                started.append(i)
                return i

            yield run

    results = in_order(calls(), threads=3)
    first = next(results)
    assert first == 0
    # the generator has drawn the first 2 * 3 calls, not all 20, before the first result
    assert len(started) <= 7
    assert [first, *results] == list(range(20))


def test_an_exception_is_raised_at_its_turn():
    def boom():
        raise ValueError("call 2 failed")

    calls = [lambda: 0, lambda: 1, boom, lambda: 3]
    got = []
    with pytest.raises(ValueError, match="call 2 failed"):
        for value in in_order(calls, threads=2):
            got.append(value)
    assert got == [0, 1]
