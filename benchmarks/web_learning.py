#!/usr/bin/env python3
"""The learning curve and a box's bead series at any length of history: the server's CPU per request
on machines of 20,000, 1,000,000 and 5,000,000 games, every request read from the database.

    python benchmarks/web_learning.py                          # builds the three machines (a minute or two)
    python benchmarks/web_learning.py --games 20000 1000000    # other lengths
    python benchmarks/web_learning.py --db sqlite:///big.db    # an existing machine 'menace' (repeatable)

Each machine is built with the fast tournament (``menace tournament --vs random``; past 10,000,000
games a tournament keeps only summaries, as a night's does). The server is ``menace serve``'s app
in a process of its own with the owner's kept answers off, so that every request reads the database
as the first request after a change does (with them on, a repeated request costs nothing: see
web_kept.py). Prints, per endpoint, the median milliseconds a request takes and the server's CPU
milliseconds per request (from /proc). The issue's target: the learning curve at <= 25 ms of server
CPU at 18,000,000 games. On a shared machine the figures move with its load: say so when quoting them.
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import tempfile
import time
from pathlib import Path

from served import ServedApp, build_machine, cpu_seconds

ENDPOINTS = {
    "learning (train page, 600 points)": "/api/machines/menace/learning?points=600",
    "learning (learning page, 800)": "/api/machines/menace/learning?points=800",
    "learning zoom (a tenth, 800)": "/api/machines/menace/learning?points=800&first={a}&last={b}",
    "box 1's beads (wall, 400)": "/api/machines/menace/boxes/1/series?points=400",
}


def measure(server: ServedApp, path: str, requests: int) -> tuple[float, float]:
    """(median ms, server CPU ms) per request, over ``requests`` on one kept-alive connection."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=300)
    try:
        def get() -> None:
            conn.request("GET", path)
            answer = conn.getresponse()
            answer.read()
            if answer.status != 200:
                raise RuntimeError(f"{path} answered {answer.status}")

        get()  # the first warms the compiled statements and the imports
        times = []
        cpu0 = cpu_seconds(server.proc.pid)
        for _ in range(requests):
            t = time.perf_counter()
            get()
            times.append(time.perf_counter() - t)
        cpu = cpu_seconds(server.proc.pid) - cpu0
    finally:
        conn.close()
    return statistics.median(times) * 1000, cpu / requests * 1000


def played(url: str) -> int:
    from menace.app.database import Database
    from menace.app.machines import machine_summary

    with Database(url) as db:
        return machine_summary(db, "menace").games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, nargs="+", default=[20_000, 1_000_000, 5_000_000])
    ap.add_argument("--db", nargs="+", help="existing databases with a machine 'menace' (instead of building)")
    ap.add_argument("--requests", type=int, default=20)
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    rows: list[tuple[int, dict[str, tuple[float, float]]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        urls = args.db or []
        if not urls:
            for n in args.games:
                url = f"sqlite:///{Path(tmp) / f'm{n}.db'}"
                build_machine(url, n)
                urls.append(url)
        for url in urls:
            n = played(url)
            server = ServedApp(url, keep=False)
            try:
                found = {}
                for name, path in ENDPOINTS.items():
                    found[name] = measure(server, path.format(a=n * 4 // 10, b=n // 2), args.requests)
            finally:
                server.close()
            rows.append((n, found))
    print(f"per request, {args.requests} requests each, every one read from the database "
          f"(ms; server CPU from /proc); load average after: {os.getloadavg()[0]:.1f}")
    print(f"  {'endpoint':<36}" + "".join(f"{f'{n:,} games: median   CPU':>32}" for n, _ in rows))
    for name in ENDPOINTS:
        print(f"  {name:<36}" + "".join(f"{found[name][0]:>26.1f} {found[name][1]:>5.1f}" for _, found in rows))


if __name__ == "__main__":
    main()
