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


@pytest.fixture
def kill_worker_once(dask_client, tmp_path):
    """``kill_worker_once(prefix)``: a context manager under which the first task whose key
    starts with ``prefix`` SIGKILLs its worker process as it starts executing (once: a marker
    file, which receives the killed pid). Yields the marker path; afterwards the plugin is
    removed and the nanny's restart awaited. The plugin class is local to this function, so
    cloudpickle sends it by value to the workers."""
    import contextlib
    import os
    import signal

    from distributed.diagnostics.plugin import WorkerPlugin

    class KillOnce(WorkerPlugin):
        name = "anonlab-test-kill-once"

        def __init__(self, path: str, prefix: str):
            self.path, self.prefix = path, prefix

        def transition(self, key, start, finish, **kwargs):
            if finish != "executing" or not str(key).startswith(self.prefix):
                return
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
            os.kill(os.getpid(), signal.SIGKILL)

    @contextlib.contextmanager
    def arm(prefix: str):
        marker = tmp_path / "killed"
        dask_client.register_plugin(KillOnce(str(marker), prefix))
        try:
            yield marker
        finally:
            dask_client.unregister_worker_plugin(KillOnce.name)
            # the nanny restarts the killed worker; on a 2-core machine shared with other work
            # that took over 60 s once (WorkerStartTimeoutError), so wait up to 180 s (it
            # returns as soon as both workers are back)
            dask_client.wait_for_workers(2, timeout=180)

    return arm
