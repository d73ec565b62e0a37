#!/usr/bin/env python3
"""A class on one laptop: 30 simulated devices on a large machine while the server trains it.

    python benchmarks/web_class.py                        # a 1,000,000-game machine, 20 s phases
    python benchmarks/web_class.py --games 5000000 --seconds 30 --devices 30
    python benchmarks/web_class.py --db sqlite:///big.db  # an existing machine 'menace'

Each device holds the event stream (``/api/events``) open and asks what its page asks, at the
page's own rate: a third are the wall (the boxes every 0.8 s, wall.js's REFETCH_MS), a third the
learning page (the curve at 800 points every second), a third the train page (the curve at 600
points, the summary and the tournament's state every second). The server is ``menace serve``'s
app in a process of its own, its CPU, threads and memory read from /proc.

Three phases: the tournament alone (its games per second on an idle server), the class on a
machine at rest, then the class while the server trains the machine. Prints p50/p95 per endpoint,
the server's CPU per request (all its threads but the tournament's, found as the thread that used
the most CPU while it ran), its RSS and peak RSS, and the tournament's games per second against
the idle figure. Figures measured on a shared machine move with its load: say so when quoting them.
"""

from __future__ import annotations

import argparse
import http.client
import json
import selectors
import socket
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from served import ServedApp, build_machine, thread_cpu

PAGES: dict[str, list[tuple[str, str, float]]] = {
    # page: [(endpoint's name, path, seconds between asks)]
    "wall": [("boxes", "/api/machines/menace/boxes", 0.8)],
    "learning": [("learning 800", "/api/machines/menace/learning?points=800", 1.0)],
    "train": [("learning 600", "/api/machines/menace/learning?points=600", 1.0),
              ("summary", "/api/machines/menace", 1.0), ("train", "/api/train", 1.0)],
}


def memory(pid: int) -> tuple[int, int]:
    """(RSS, peak RSS) in MiB."""
    got = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            got[key] = int(value.split()[0]) // 1024
    return got["VmRSS"], got["VmHWM"]


def call(port: int, method: str, path: str, body: dict[str, Any] | None = None,
         conn: http.client.HTTPConnection | None = None) -> tuple[int, Any]:
    c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    try:
        c.request(method, path, body=json.dumps(body) if body else None,
                  headers={"Content-Type": "application/json"} if body else {})
        answer = c.getresponse()
        data = answer.read()
        return answer.status, json.loads(data) if data[:1] in (b"{", b"[") else None
    finally:
        if conn is None:
            c.close()


class Server(ServedApp):
    def train(self, seconds: float) -> dict[str, Any]:
        status, started = call(self.port, "POST", "/api/train", {"opponent": "random", "seconds": seconds})
        if status != 202:
            raise RuntimeError(f"the tournament did not start: {status} {started}")
        while True:
            time.sleep(0.25)  # polling the tournament's state, as the train page does
            st = call(self.port, "GET", "/api/train")[1]
            if not st["running"]:
                return dict(st)


class Class:
    """The devices: their event streams on one selector thread, their pages' asks on a thread each."""

    def __init__(self, port: int, devices: int) -> None:
        self.port = port
        self.stop = threading.Event()
        self.times: dict[str, list[float]] = defaultdict(list)
        self.failed: dict[str, int] = defaultdict(int)
        self.lock = threading.Lock()
        self.sel = selectors.DefaultSelector()
        self.socks = []
        for _ in range(devices):
            s = socket.create_connection(("127.0.0.1", port), timeout=60)
            s.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            s.setblocking(False)
            self.sel.register(s, selectors.EVENT_READ)
            self.socks.append(s)
        pages = list(PAGES)
        self.threads = [threading.Thread(target=self._device, args=(pages[i % len(pages)], i), daemon=True)
                        for i in range(devices)]
        self.threads.append(threading.Thread(target=self._events, daemon=True))

    def __enter__(self) -> Class:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(300)
        for s in self.socks:
            s.close()

    def reset(self) -> None:
        with self.lock:
            self.times.clear()
            self.failed.clear()

    def _events(self) -> None:
        while not self.stop.is_set():
            for key, _ in self.sel.select(0.2):
                try:
                    key.fileobj.recv(65536)  # type: ignore[union-attr]
                except (BlockingIOError, ConnectionError):
                    pass

    def _device(self, page: str, i: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        due = {name: time.monotonic() + (i % 10) / 10 for name, _, _ in PAGES[page]}  # the class does not click in step
        while not self.stop.is_set():
            for name, path, every in PAGES[page]:
                if time.monotonic() < due[name]:
                    continue
                t = time.perf_counter()
                try:
                    status, _ = call(self.port, "GET", path, conn=conn)
                except (OSError, http.client.HTTPException):
                    status = 0
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
                took = time.perf_counter() - t
                with self.lock:
                    if status == 200:
                        self.times[name].append(took)
                    else:
                        self.failed[name] += 1
                due[name] = max(due[name] + every, time.monotonic())  # the page waits for its answer
            time.sleep(max(0.0, min(due.values()) - time.monotonic()))
        conn.close()


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def report(title: str, klass: Class, cpu: float, wall_s: float) -> None:
    with klass.lock:
        times = {k: list(v) for k, v in klass.times.items()}
        failed = dict(klass.failed)
    n = sum(len(v) for v in times.values())
    print(f"{title}: {n:,} requests in {wall_s:.0f} s, server CPU {cpu / max(n, 1) * 1000:.2f} ms per request"
          f" (its threads but the tournament's)")
    for name in [p[0] for page in PAGES.values() for p in page]:
        v = times.get(name, [])
        print(f"  {name:<13} {len(v):>6} answers  p50 {percentile(v, 0.5) * 1000:>7.1f} ms  "
              f"p95 {percentile(v, 0.95) * 1000:>7.1f} ms" + (f"  {failed[name]} failed" if failed.get(name) else ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    ap.add_argument("--devices", type=int, default=30)
    ap.add_argument("--db", help="an existing database with a machine 'menace' (else one is built)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db
        if url is None:
            url = f"sqlite:///{Path(tmp) / 'm.db'}"
            build_machine(url, args.games)
        server = Server(url)
        pid = server.proc.pid
        try:
            idle = server.train(args.seconds)
            idle_rate = idle["games"] / idle["seconds"]
            print(f"the tournament alone: {idle['games']:,} games in {idle['seconds']:.1f} s, "
                  f"{idle_rate:,.0f} games/s; server RSS {memory(pid)[0]} MiB")
            with Class(server.port, args.devices) as klass:
                time.sleep(2)  # the devices' first asks (each loads what the server keeps)
                klass.reset()
                cpu0, t0 = sum(thread_cpu(pid).values()), time.monotonic()
                time.sleep(args.seconds)
                report(f"{args.devices} devices, the machine at rest", klass,
                       sum(thread_cpu(pid).values()) - cpu0, time.monotonic() - t0)
                klass.reset()
                before, t0 = thread_cpu(pid), time.monotonic()
                busy = server.train(args.seconds)
                after = thread_cpu(pid)
                used = {tid: after[tid] - before.get(tid, 0.0) for tid in after}
                tournament = max(used, key=lambda tid: used[tid])
                report(f"{args.devices} devices while the server trains it", klass,
                       sum(used.values()) - used[tournament], time.monotonic() - t0)
            rate = busy["games"] / busy["seconds"]
            rss, peak = memory(pid)
            print(f"the tournament with the class: {busy['games']:,} games in {busy['seconds']:.1f} s, {rate:,.0f} "
                  f"games/s = {rate / idle_rate:.2f}x its idle speed (its thread: {used[tournament]:.1f} s CPU)")
            print(f"server RSS {rss} MiB, peak {peak} MiB")
        finally:
            server.close()


if __name__ == "__main__":
    main()
