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
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SERVE = """
import sys
from menace.web.app import create_app
from menace.web.server import MenaceServer, server_config
app = create_app(sys.argv[1], "menace", keep=sys.argv[3] == "on")
MenaceServer(server_config(app, port=int(sys.argv[2]), log_level="warning"), app).run()
"""

ENDPOINTS = {
    "summary": "/api/machines/menace",
    "wall": "/api/machines/menace/boxes",
    "learning": "/api/machines/menace/learning?points=600",
}
TICK = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """The process's user and system CPU so far (/proc/PID/stat, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class Server:
    """The app in a process of its own, ready once /api/health answers."""

    def __init__(self, url: str, keep: bool) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen([sys.executable, "-c", SERVE, url, str(self.port), "on" if keep else "off"])
        while True:
            try:
                if self.get("/api/health") == 200:
                    break
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.05)

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

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(60)


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
            t = time.perf_counter()
            for cmd in (["init"], ["tournament", "--vs", "random", "-n", str(args.games), "--seed", "1"]):
                subprocess.run([sys.executable, "-m", "menace", "--db", url, *cmd], check=True,
                               stdout=subprocess.DEVNULL)
            print(f"built a {args.games:,}-game machine in {time.perf_counter() - t:.1f} s")
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
