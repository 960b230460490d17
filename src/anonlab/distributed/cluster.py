"""Connecting to a Dask cluster: an existing scheduler by address, or a local one with N workers.

The distributed backend is optional (extra ``anonlab[distributed]``); this module imports
``distributed`` only when a connection is asked for and names the extra when it is missing.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from anonlab.errors import AnonlabError

if TYPE_CHECKING:  # pragma: no cover
    from distributed import Client

#: Seconds to wait for a scheduler at ``--cluster ADDRESS`` before giving up.
CONNECT_TIMEOUT = 10


def require_distributed():
    """The ``distributed`` module, or an AnonlabError naming the extra that provides it."""
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - the test environment has it
        raise AnonlabError(
            f"the Dask backend needs dask.distributed: pip install 'anonlab[distributed]' ({exc})"
        ) from None
    return distributed


@contextmanager
def connect(cluster: str | None = None, workers: int | None = None) -> Iterator[Client]:
    """A ``distributed.Client``: on the scheduler at ``cluster`` (e.g. ``tcp://host:8786``),
    or on a LocalCluster of ``workers`` processes with one thread each. Closed on exit.

    Exactly one of ``cluster`` and ``workers`` must be given. One thread per worker because the
    per-partition work is numpy/numba on one partition: parallelism comes from partitions.
    """
    if (cluster is None) == (workers is None):
        raise AnonlabError(
            "give exactly one of --cluster ADDRESS (a running Dask scheduler, e.g. "
            "tcp://10.0.0.1:8786) and --workers N (a local cluster of N worker processes)"
        )
    if workers is not None:
        from anonlab.resources import check_workers

        # at most the CPUs (and the memory) of this machine: a LocalCluster of 100,000
        # processes would hang starting them
        check_workers(workers)
    distributed = require_distributed()
    if workers is not None:
        n = int(workers)
        with warnings.catch_warnings():
            # no dashboard, but the scheduler's HTTP server still binds a port (8787 if free)
            # and warns when it is taken
            warnings.filterwarnings("ignore", message="Port .* is already in use")
            local = distributed.LocalCluster(
                n_workers=n,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=40,  # logging.ERROR
            )
        client = distributed.Client(local)
        try:
            client.wait_for_workers(n, timeout=120)
            yield client
        finally:
            client.close()
            local.close()
        return
    address = _check_address(str(cluster).strip())
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise AnonlabError(
            f"--cluster {address!r}: no Dask scheduler answered within {CONNECT_TIMEOUT} s "
            f"({type(exc).__name__}: {exc}); give the address a running `dask scheduler` "
            "prints, e.g. tcp://10.0.0.1:8786, or use --workers N"
        ) from None
    try:
        yield client
    finally:
        client.close()


def _check_address(address: str) -> str:
    """Parse ``address`` (``[scheme://]host:port``) and, for tcp, check that something listens
    there, so a wrong address fails at once with a clear message instead of a Client that times
    out (and, half-built, times out again when garbage-collected)."""
    import socket

    from distributed.comm.addressing import parse_address, parse_host_port

    hint = "give e.g. tcp://10.0.0.1:8786 (the address `dask scheduler` prints)"
    if not address:
        raise AnonlabError(f"--cluster: an empty address; {hint}")
    try:
        scheme, location = parse_address(address)
        host, port = parse_host_port(location)
    except ValueError as exc:
        raise AnonlabError(
            f"--cluster {address!r} is not a scheduler address ({exc}); {hint}"
        ) from None
    if scheme == "tcp":
        try:
            with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT):
                pass
        except OSError as exc:
            raise AnonlabError(
                f"--cluster {address!r}: nothing listens at {host}:{port} ({exc}); start a "
                f"scheduler with `dask scheduler` or use --workers N; {hint}"
            ) from None
    return address


def worker_count(client: Client) -> int:
    """How many workers the client's scheduler has now."""
    return len(client.scheduler_info(n_workers=-1)["workers"])
