"""A sweep on the local process pool against the same sweep on a Dask LocalCluster (issue 16).

Times, in one run and on the same machine: a SEEDS x GAMES sweep against perfect (Michie's
machine, 1,000 frozen games each against random) on the local pool of WORKERS processes, then on a
``distributed.LocalCluster`` of WORKERS single-threaded worker processes on 127.0.0.1 (started
before the clock starts; its start-up is printed apart). Checks that both give the same runs,
then prints the ratio and what going through Dask costs per run. A second measure isolates that
cost: many one-game runs with no evaluation, where nearly all the time is overhead, and a bare
round trip per task (a no-op submitted N times) on each pool.

    python benchmarks/sweep_dask.py                      # 1,000 seeds x 10,000 games (about 3 minutes on 2 cores)
    python benchmarks/sweep_dask.py --seeds 200 --games 2000   # smaller, said so in the output
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed

FULL_SEEDS, FULL_GAMES = 1000, 10_000


def noop(x: int) -> int:
    return x


def round_trips(pool: Executor, n: int) -> float:
    """Seconds per task for ``n`` no-op tasks submitted at once and collected as they finish."""
    list(as_completed([pool.submit(noop, 0) for _ in range(4)]))  # warm: processes started, modules loaded
    start = time.perf_counter()
    for future in as_completed([pool.submit(noop, i) for i in range(n)]):
        future.result()
    return (time.perf_counter() - start) / n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=FULL_SEEDS)
    parser.add_argument("--games", type=int, default=FULL_GAMES)
    parser.add_argument("--workers", type=int, default=2, help="local processes, and Dask workers [2]")
    opts = parser.parse_args()

    from distributed import LocalCluster

    from menace.app.pools import DaskPool
    from menace.app.sweep import expand_settings, run_sweep
    from menace.core.settings import MICHIE

    settings = expand_settings(MICHIE, beads=[(4, 3, 2, 1)])
    runs = len(settings) * opts.seeds
    print(f"{datetime.date.today().isoformat()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"{opts.workers} local processes vs a LocalCluster of {opts.workers} worker processes x 1 thread")
    size = f"{opts.seeds:,} seeds x {opts.games:,} games vs perfect (+1,000 frozen games vs random each)"
    if (opts.seeds, opts.games) != (FULL_SEEDS, FULL_GAMES):
        size += f"  -- SMALLER than the issue's {FULL_SEEDS:,} x {FULL_GAMES:,}"
    print(size)

    start = time.perf_counter()
    local = run_sweep(settings, "perfect", opts.games, opts.seeds, workers=opts.workers)
    local_s = time.perf_counter() - start
    print(f"local pool:             {local_s:8.2f} s  ({runs / local_s:7.1f} runs/s)")

    start = time.perf_counter()
    with LocalCluster(n_workers=opts.workers, processes=True, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address="127.0.0.1:0") as cluster:
        print(f"LocalCluster start-up:  {time.perf_counter() - start:8.2f} s  (not counted below)")
        address = cluster.scheduler_address
        start = time.perf_counter()
        dask = run_sweep(settings, "perfect", opts.games, opts.seeds, cluster=address)
        dask_s = time.perf_counter() - start
        print(f"Dask LocalCluster:      {dask_s:8.2f} s  ({runs / dask_s:7.1f} runs/s)")
        if dask.runs != local.runs:
            print("DIFFERENT RESULTS on Dask and on the local pool")
            return 1
        print(f"same {runs:,} runs on both; Dask / local time: {dask_s / local_s:.3f}x; "
              f"Dask's cost per run: {1000 * (dask_s - local_s) / runs:+.2f} ms "
              f"(of {1000 * local_s * opts.workers / runs:.1f} ms of work per run)")

        # Overhead alone: runs of one game, no evaluation, so the time is nearly all overhead.
        tiny = 4000
        start = time.perf_counter()
        run_sweep(settings, "perfect", 1, tiny, workers=opts.workers, eval_games=0)
        tiny_local = time.perf_counter() - start
        start = time.perf_counter()
        run_sweep(settings, "perfect", 1, tiny, eval_games=0, cluster=address)
        tiny_dask = time.perf_counter() - start
        print(f"{tiny:,} one-game runs: local {tiny_local:.2f} s, Dask {tiny_dask:.2f} s (connecting included): "
              f"{1000 * (tiny_dask - tiny_local) / tiny:+.3f} ms per run")
        n = 2000
        with ProcessPoolExecutor(max_workers=opts.workers) as pool:
            local_trip = round_trips(pool, n)
        with DaskPool(address) as dpool:
            dask_trip = round_trips(dpool, n)
        print(f"a bare task ({n:,} no-ops): local pool {1000 * local_trip:.3f} ms, Dask {1000 * dask_trip:.3f} ms "
              f"per task; a sweep sends about {4 * opts.workers} tasks, a few per worker, whatever its size")
    return 0


if __name__ == "__main__":
    sys.exit(main())
