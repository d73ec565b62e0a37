"""Where a sweep's batches run: the local process pool, or the workers of a Dask cluster.

A pool is a :class:`concurrent.futures.Executor`: ``submit(fn, arg)`` returns a standard future,
and ``concurrent.futures.as_completed`` hears of each batch as it finishes, whichever the pool.
The local pool is :class:`~concurrent.futures.ProcessPoolExecutor` itself; :class:`DaskPool`
sends the same calls to a Dask distributed scheduler. Dask is an optional extra
(``pip install 'menace[dask]'``), imported only when a cluster is asked for.

A Dask worker that dies mid-batch costs nothing but time: the scheduler gives the batch to
another worker (up to ``distributed.scheduler.allowed-failures`` times, 3 by default), and a batch
depends on its seeds alone, so the result is the same. Results come back through the client:
nothing is stored by a worker.
"""

from __future__ import annotations

import concurrent.futures as cf
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from menace.core.errors import InvalidInputError, UnavailableError

CONNECT_SECONDS = 10.0
"""How long to try to reach a scheduler, and then to wait for its first worker."""
EXTRA = "pip install 'menace[dask]'"

R = TypeVar("R")


class ClusterError(UnavailableError):
    """A Dask cluster that cannot be used: Dask not installed, the scheduler out of reach, no
    workers, workers that cannot import menace or keep dying."""


class DaskPool(cf.Executor):
    """The workers of the Dask scheduler at ``address`` (``tcp://HOST:8786``), as an executor.

    Connecting raises :class:`ClusterError` at once when Dask is missing, and after ``timeout``
    seconds (default :data:`CONNECT_SECONDS`) when the scheduler cannot be reached or has no
    worker. ``workers`` is the number of threads the cluster's workers had then (what a sweep
    sizes its batches by). Leaving the ``with`` block (or :meth:`shutdown`) closes the client,
    which cancels whatever is left.

    >>> DaskPool("nonsense")  # doctest: +SKIP
    Traceback (most recent call last):
    menace.core.errors.InvalidInputError: 'nonsense' is not a scheduler address such as tcp://HOST:8786
    """

    def __init__(self, address: str, timeout: float | None = None) -> None:
        timeout = CONNECT_SECONDS if timeout is None else timeout
        try:
            from distributed import Client
            from distributed.comm.addressing import parse_address, parse_host_port
        except ImportError:
            raise ClusterError("sweeping on a Dask cluster needs Dask, which is not installed",
                               hint=EXTRA) from None
        try:
            _, where = parse_address(address)
            parse_host_port(where)
        except ValueError:
            raise InvalidInputError(f"{address!r} is not a scheduler address such as tcp://HOST:8786") from None
        try:
            client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {address} ({exc})") from None
        try:
            client.wait_for_workers(1, timeout=timeout)
        except (OSError, TimeoutError):
            client.close()
            raise ClusterError(f"the Dask scheduler at {address} has had no worker for {timeout:g} s",
                               hint="start some with: dask worker " + address) from None
        self.address = address
        self.workers = max(1, sum(client.nthreads().values()))
        """Threads over the cluster's workers when it was reached."""
        self.client = client
        self._executor = client.get_executor(pure=False)
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> cf.Future[R]:
        """Run ``fn(*args, **kwargs)`` on a worker; the future's error is a :class:`ClusterError`
        when the cluster failed the call rather than ``fn``."""
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot submit to a closed DaskPool")
            inner = self._executor.submit(fn, *args, **kwargs)
        outer: cf.Future[R] = cf.Future()
        outer.set_running_or_notify_cancel()
        address = self.address

        def relay(done: cf.Future[R]) -> None:
            if done.cancelled():
                outer.set_exception(ClusterError(f"lost the Dask scheduler at {address} or its work was cancelled"))
                return
            exc = done.exception()
            if exc is None:
                outer.set_result(done.result())
            else:
                outer.set_exception(_explained(exc))

        inner.add_done_callback(relay)
        return outer

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        # Closing the client releases its futures: the scheduler drops what nobody waits for.
        self.client.close()


def _explained(exc: BaseException) -> BaseException:
    """The cluster's own failures as one-line :class:`ClusterError` s; anything ``fn`` raised as is."""
    from distributed import KilledWorker

    if isinstance(exc, KilledWorker):
        return ClusterError("a batch of runs was lost with every Dask worker that tried it; "
                            "the cluster's workers keep dying (out of memory?)")
    if isinstance(exc, ImportError) and (exc.name or "").split(".")[0] == "menace":
        return ClusterError("the Dask workers cannot import menace",
                            hint=f"install it where every worker runs: {EXTRA}")
    return exc
