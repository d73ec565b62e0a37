#!/usr/bin/env python3
"""What the server's kept state saves: the summary, the wall and the learning curve of a
1,000,000-game machine, asked for again and again as the pages do, with the owner's cache off
(every request reads the database) and on (read again only after the database changed).

    python benchmarks/web_kept.py                  # builds a 1M-game machine first (a few seconds)
    python benchmarks/web_kept.py --games 200000 --requests 50

The server is the web app of ``menace serve`` in a process of its own (started here so that the
cache can be switched off); its CPU is read from /proc per request. Prints, per endpoint, the
median and p95 milliseconds a request takes and the server's CPU milliseconds per request, off
then on. On a shared machine the figures move with the load: read them as such.
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import tempfile
import time
from pathlib import Path

from served import ServedApp, build_machine, cpu_seconds

ENDPOINTS = {
    "summary": "/api/machines/menace",
    "wall": "/api/machines/menace/boxes",
    "learning": "/api/machines/menace/learning?points=600",
}
class Server(ServedApp):
    def get(self, path: str, conn: http.client.HTTPConnection | None = None) -> int:
        own = conn is None
        c = conn or http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            c.request("GET", path)
            answer = c.getresponse()
            answer.read()
            return answer.status
        finally:
            if own:
                c.close()


def measure(server: Server, path: str, requests: int) -> tuple[float, float, float]:
    """(median ms, p95 ms, server CPU ms) per request, over ``requests`` on one kept-alive connection."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
    try:
        server.get(path, conn)  # the first: loads what is kept (and warms the statements)
        times = []
        cpu0 = cpu_seconds(server.proc.pid)
        for _ in range(requests):
            t = time.perf_counter()
            if server.get(path, conn) != 200:
                raise RuntimeError(f"{path} failed")
            times.append(time.perf_counter() - t)
        cpu = cpu_seconds(server.proc.pid) - cpu0
    finally:
        conn.close()
    times.sort()
    return statistics.median(times) * 1000, times[int(0.95 * (len(times) - 1))] * 1000, cpu / requests * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--requests", type=int, default=100)
    ap.add_argument("--db", help="an existing database with a machine 'menace' (else one is built)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db
        if url is None:
            url = f"sqlite:///{Path(tmp) / 'm.db'}"
            build_machine(url, args.games)
        results: dict[str, dict[bool, tuple[float, float, float]]] = {}
        for keep in (False, True):
            server = Server(url, keep)
            try:
                for name, path in ENDPOINTS.items():
                    results.setdefault(name, {})[keep] = measure(server, path, args.requests)
            finally:
                server.close()
        print(f"per request, {args.requests} requests each on one connection (ms; server CPU from /proc):")
        print(f"  {'endpoint':<10} {'cache off: median  p95   CPU':>30} {'cache on: median  p95   CPU':>30}  CPU saved")
        for name, r in results.items():
            off, on = r[False], r[True]
            print(f"  {name:<10} {off[0]:>21.2f} {off[1]:>6.2f} {off[2]:>5.2f} {on[0]:>21.2f} {on[1]:>6.2f} "
                  f"{on[2]:>5.2f}  {off[2] / on[2] if on[2] else float('inf'):>6.1f}x")


if __name__ == "__main__":
    main()
