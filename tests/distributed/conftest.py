"""A 2-worker Dask LocalCluster shared by the distributed tests (anonymizers and measures).

Session-scoped: starting worker processes costs a few seconds, so every test in
``tests/distributed`` reuses one cluster. Worker processes (``processes=True``) so a test can kill
one and watch Dask's nanny restart it; one thread per worker so a partition's numba/numpy work is
not contended inside a worker; no dashboard (no port to bind in CI).
"""

from __future__ import annotations

import warnings

import pytest

distributed = pytest.importorskip("distributed", reason="needs the extra anonlab[distributed]")


@pytest.fixture(scope="session")
def dask_client():
    """A ``distributed.Client`` on a 2-worker, 1-thread-per-worker local process cluster."""
    from distributed import Client, LocalCluster

    with warnings.catch_warnings():  # the scheduler's HTTP port may be taken: harmless
        warnings.filterwarnings("ignore", message="Port .* is already in use")
        cluster = LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=40,  # logging.ERROR: keep the test output readable
        )
    client = Client(cluster)
    try:
        client.wait_for_workers(2, timeout=60)
        yield client
    finally:
        client.close()
        cluster.close()
