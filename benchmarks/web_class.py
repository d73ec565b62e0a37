#!/usr/bin/env python3
"""A class on one laptop: 30 simulated devices on a large machine while the server trains it.

    python benchmarks/web_class.py                        # 5,000,000 games, 20 s phases, SQLite and PostgreSQL
    python benchmarks/web_class.py --games 200000 --seconds 10 --on sqlite   # a quick look
    python benchmarks/web_class.py --db sqlite:///big.db  # an existing machine 'menace'

Each device holds the event stream (``/api/events``) open and asks what its page asks, at the
page's own rate: a third are the wall (the boxes every 0.8 s, wall.js's REFETCH_MS), a third the
learning page (the curve at 800 points every second), a third the train page (the curve at 600
points, the summary and the tournament's state every second). The server is ``menace serve``'s
app in a process of its own, its CPU and memory read from /proc; the tournament it starts plays in
a process of its own beside it (its CPU is that process's).

Three phases: the tournament alone (its games per second on an idle server), the class on a
machine at rest, then the class while the server trains the machine. Prints p50/p95 per endpoint
(and how much slower each is while the server trains: the target is 2x at most, p50), the commits the
tournament makes, the server's CPU per request, its RSS and peak RSS, and the tournament's games per second against
the idle figure. On PostgreSQL (a server of its own, started from the PostgreSQL binaries as the
tests start theirs) the same, with the database server's CPU per request beside the server's (and the
part of it spent in the server's own sessions: the rest is the tournament's writes, which on SQLite
are its own process's CPU), the most sessions seen on the database, and the cost per request against
SQLite's, of the server and its sessions. Figures measured
on a shared machine move with its load: say so when quoting them.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import psutil
from served import ServedApp, build_machine, cpu_seconds, tree_cpu

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


TARGET_P95_MS = 250.0


def report(title: str, klass: Class, cpu: float, wall_s: float, db_cpu: float | None = None,
           own_db_cpu: float | None = None) -> dict[str, Any]:
    with klass.lock:
        times = {k: list(v) for k, v in klass.times.items()}
        failed = dict(klass.failed)
    n = sum(len(v) for v in times.values())
    per = cpu / max(n, 1) * 1000
    db_per = None if db_cpu is None else db_cpu / max(n, 1) * 1000
    own_per = None if own_db_cpu is None else own_db_cpu / max(n, 1) * 1000
    print(f"{title}: {n:,} requests in {wall_s:.0f} s, server CPU {per:.2f} ms per request"
          + ("" if db_per is None else f" + the database server's {db_per:.2f} ms")
          + ("" if own_per is None else f" (its sessions for the server {own_per:.2f} ms; the rest is the "
                                        f"tournament's writes and the work they make)"))
    worst = 0.0
    for name in [p[0] for page in PAGES.values() for p in page]:
        v = times.get(name, [])
        p95 = percentile(v, 0.95) * 1000 if v else float("inf")
        worst = max(worst, p95)
        print(f"  {name:<13} {len(v):>6} answers  p50 {percentile(v, 0.5) * 1000:>7.1f} ms  "
              f"p95 {p95:>7.1f} ms" + (f"  {failed[name]} failed" if failed.get(name) else ""))
    return {"requests": n, "cpu_ms": per, "db_cpu_ms": db_per, "own_db_cpu_ms": own_per, "worst_p95": worst,
            "p50": {k: percentile(v, 0.5) * 1000 for k, v in times.items() if v},
            "p95": {k: percentile(v, 0.95) * 1000 for k, v in times.items() if v}}


class Commits:
    """Commits to the database while inside, counted from its own change signal (menace's
    :class:`~menace.storage.database.ChangeWatch`, what the server itself reads) looked at every 2 ms:
    a tournament commits a few times a second, far apart."""

    def __init__(self, url: str) -> None:
        from sqlalchemy import create_engine

        from menace.storage.database import ChangeWatch

        self.engine = create_engine(url)
        self.watch = ChangeWatch(self.engine)
        self.count = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._look, daemon=True)

    def _look(self) -> None:
        last = self.watch.token()
        while not self.stop.wait(0.002):
            now = self.watch.token()
            self.count += now != last
            last = now

    def __enter__(self) -> Commits:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        self.watch.close()
        self.engine.dispose()


class Sessions:
    """The most sessions on a PostgreSQL database, looked at twice a second (this one's own apart)."""

    def __init__(self, url: str) -> None:
        import psycopg
        from sqlalchemy.engine import make_url

        u = make_url(url)
        self.conn = psycopg.connect(host=u.host, port=u.port, user=u.username, dbname=u.database, autocommit=True)
        self.most = 0
        self.server: int | None = None
        self.seen: dict[int, float] = {}
        """The CPU seconds of each session of :attr:`server` when last seen (twice a second): a session
        its pool closed meanwhile counts up to then."""
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def now(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                     "AND pid <> pg_backend_pid()").fetchone()[0])

    def _watch(self) -> None:
        while not self.stop.wait(0.5):  # a gauge read twice a second, not a wait for anything
            self.most = max(self.most, self.now())
            if self.server is not None:
                self.seen.update(self.servers_backends(self.server))

    def servers_backends(self, pid: int) -> dict[int, float]:
        """CPU seconds so far of each database session of process ``pid`` (its pool and its change
        watch): the sessions whose client port is one of its sockets'. The rest of the database
        server's CPU is the tournament's writes (its own process and session) and the background
        work they make (WAL, checkpoints, autovacuum), which on SQLite are the tournament's process's."""
        ports = {c.laddr.port for c in psutil.Process(pid).net_connections(kind="tcp") if c.laddr}
        out = {}
        for backend, port in self.conn.execute("SELECT pid, client_port FROM pg_stat_activity WHERE datname = "
                                               "current_database() AND pid <> pg_backend_pid()").fetchall():
            if port in ports:
                try:
                    out[int(backend)] = cpu_seconds(int(backend))
                except OSError:  # it ended meanwhile
                    pass
        return out

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        self.conn.close()


def blocks(url: str) -> int:
    """Blocks of games in the database (a tournament writes a few to a commit)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(text("SELECT count(*) FROM game_blocks")).scalar_one())
    finally:
        engine.dispose()


def reload_cost(url: str, port: int, pid: int, own_db: Any, commits: int) -> float:
    """The server's CPU (with its database sessions') to answer the pages' four asks once after a commit of
    a tournament in another process (a game each), at the machine's size as built: what every commit of a
    training costs the server while a class looks. CPU seconds, not wall-clock: the load does not move it."""
    paths = sorted({path for page in PAGES.values() for _, path, _ in page if "/machines/" in path})
    for path in paths:
        call(port, "GET", path)
    spent = 0.0
    for i in range(commits):
        subprocess.run([sys.executable, "-m", "menace", "--db", url, "tournament", "--vs", "random", "-n", "1",
                        "--seed", str(i)], check=True, stdout=subprocess.DEVNULL)
        cpu0, since = cpu_seconds(pid), own_db(None)
        for path in paths:
            status, _ = call(port, "GET", path)
            if status != 200:
                raise RuntimeError(f"{path} answered {status}")
        spent += cpu_seconds(pid) - cpu0 + (own_db(since) or 0.0)
    per = spent / max(commits, 1) * 1000
    print(f"after a commit, the {len(paths)} answers the pages ask for read again: {per:.1f} ms CPU of the server"
          + ("" if own_db(None) is None else " and its database sessions") + f" (over {commits} commits)")
    return per


def run_class(url: str, args: argparse.Namespace, postmaster: int | None = None) -> dict[str, Any]:
    """The three phases on the machine 'menace' at ``url``; the figures compared across databases."""
    server = Server(url)
    pid = server.proc.pid

    def db_cpu() -> float | None:
        return None if postmaster is None else tree_cpu(postmaster)

    sessions = Sessions(url) if postmaster is not None else None
    own: dict[int, float] = {}

    def own_db(since: float | None) -> float | None:
        """The CPU seconds of the server's own database sessions so far (one its pool closed counts up to
        when last seen, at most half a second before), or since the reading ``since``."""
        if sessions is None:
            return None
        sessions.server = pid
        sessions.seen.update(sessions.servers_backends(pid))
        now = dict(sessions.seen)
        if since is None:
            own.clear()
            own.update(now)
            return 0.0
        return sum(cpu - own.get(backend, 0.0) for backend, cpu in now.items())
    try:
        reload = reload_cost(url, server.port, pid, own_db, args.commits)
        tour0 = tree_cpu(pid, itself=False)
        idle = server.train(args.seconds)
        idle_rate = idle["games"] / idle["seconds"]
        idle_cpu = tree_cpu(pid, itself=False) - tour0
        print(f"the tournament alone: {idle['games']:,} games in {idle['seconds']:.1f} s, {idle_rate:,.0f} games/s "
              f"({idle_cpu:.1f} s CPU in its process, {idle_cpu / max(idle['games'], 1) * 1e6:.2f} us a game); "
              f"server RSS {memory(pid)[0]} MiB")
        t = time.perf_counter()
        for path in {path for page in PAGES.values() for _, path, _ in page}:
            call(server.port, "GET", path)  # what the server keeps, loaded once before the class comes
        print(f"the pages' first answers (what the server keeps, loaded) in {time.perf_counter() - t:.1f} s")
        with Class(server.port, args.devices) as klass:
            time.sleep(2)  # the devices' first asks
            klass.reset()
            if sessions is not None:
                sessions.most = 0
            cpu0, d0, t0, b0 = cpu_seconds(pid), db_cpu(), time.monotonic(), own_db(None)
            time.sleep(args.seconds)
            d1 = db_cpu()
            rest = report(f"{args.devices} devices, the machine at rest", klass, cpu_seconds(pid) - cpu0,
                          time.monotonic() - t0, None if d0 is None or d1 is None else d1 - d0, own_db(b0))
            if sessions is not None:
                rest["sessions"] = sessions.most
                print(f"  sessions on the database: at most {sessions.most} (the server's pool and its change watch)")
            klass.reset()
            cpu0, d0, t0, tour0 = cpu_seconds(pid), db_cpu(), time.monotonic(), tree_cpu(pid, itself=False)
            b0, blocks0 = own_db(None), blocks(url)
            with Commits(url) as seen:
                busy = server.train(args.seconds)
            tour = tree_cpu(pid, itself=False) - tour0
            d1 = db_cpu()
            server_cpu = cpu_seconds(pid) - cpu0
            training = report(f"{args.devices} devices while the server trains it", klass, server_cpu,
                              time.monotonic() - t0, None if d0 is None or d1 is None else d1 - d0, own_db(b0))
            # Every commit of the tournament changes the database, and what the pages ask is read again:
            # the CPU per request grows with the commits per second, that is with the CPU the tournament is
            # given (on a busy computer, fewer). The CPU per commit does not.
            written, commits = blocks(url) - blocks0, seen.count
            per_request = training["cpu_ms"] + (training["own_db_cpu_ms"] or 0.0)
            at_rest = rest["cpu_ms"] + (rest["own_db_cpu_ms"] or 0.0)
            extra = (per_request - at_rest) * training["requests"] / 1000
            training["per_commit_ms"] = extra / max(commits, 1) * 1000
            print(f"  {written:,} blocks of games written in {commits:,} commits ({commits / args.seconds:.1f} a "
                  f"second): {training['per_commit_ms']:.1f} ms CPU of the server"
                  + ("" if sessions is None else " and its database sessions")
                  + " per commit, beyond what the requests take at rest")
            training["slower"] = {q: {k: training[q][k] / rest[q][k] for k in training[q] if rest[q].get(k)}
                                  for q in ("p50", "p95")}
            for q in ("p50", "p95"):
                print(f"  {q} while it trains against at rest: " + ", ".join(
                    f"{k} {v:.2f}x" for k, v in training["slower"][q].items()))
        rate = busy["games"] / busy["seconds"]
        rss, peak = memory(pid)
        print(f"the tournament with the class: {busy['games']:,} games in {busy['seconds']:.1f} s, {rate:,.0f} "
              f"games/s = {rate / idle_rate:.2f}x its idle speed ({tour:.1f} s CPU in its process, "
              f"{tour / max(busy['games'], 1) * 1e6:.2f} us a game: on a busy computer the speed is the CPU it is "
              f"given, the CPU a game takes is its own)")
        print(f"server RSS {rss} MiB, peak {peak} MiB")
        if sessions is not None:
            print(f"sessions on the database: at most {sessions.most} with the tournament's own")
        worst = max(rest["worst_p95"], training["worst_p95"])
        slowest = max(training["slower"]["p50"].values())
        print(f"targets: p95 {worst:.0f} ms at worst (<= {TARGET_P95_MS:.0f}); training {rate / idle_rate:.2f}x "
              f"its idle speed (>= 0.8); requests while it trains at most {slowest:.2f}x their time at rest, "
              f"p50 (<= 2x)")
        return {"rest": rest, "training": training, "speed": rate / idle_rate, "reload": reload}
    finally:
        if sessions is not None:
            sessions.close()
        server.close()


def postgres() -> Any:
    """A PostgreSQL server of its own, started as the tests start theirs (tests/servers.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from servers import start_postgres

    return start_postgres()


def postmaster_pid(server: Any) -> int:
    return int((Path(server.data) / "postmaster.pid").read_text().split()[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=5_000_000, help="games of the machine built (default 5,000,000)")
    ap.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    ap.add_argument("--devices", type=int, default=30)
    ap.add_argument("--on", default="sqlite,postgres", help="the databases, in order: sqlite, postgres or both")
    ap.add_argument("--db", help="an existing database with a machine 'menace' (else one is built)")
    ap.add_argument("--commits", type=int, default=20,
                    help="commits after which the server's CPU to answer the pages again is measured (default 20)")
    args = ap.parse_args()
    kinds = [] if args.db else [k.strip() for k in args.on.split(",") if k.strip()]
    if not set(kinds) <= {"sqlite", "postgres"}:
        ap.error("--on takes sqlite, postgres or both")
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    figures: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        if args.db:
            run_class(args.db, args)
        for kind in kinds:
            print(f"\n== {'SQLite' if kind == 'sqlite' else 'PostgreSQL'} ==")
            if kind == "sqlite":
                url = f"sqlite:///{Path(tmp) / 'm.db'}"
                build_machine(url, args.games)
                figures[kind] = run_class(url, args)
                continue
            server = postgres()
            try:
                url = server.new_database()
                build_machine(url, args.games)
                figures[kind] = run_class(url, args, postmaster_pid(server))
            finally:
                server.stop()
    if {"sqlite", "postgres"} <= figures.keys():
        print()
        for phase in ("rest", "training"):
            lite, pg = figures["sqlite"][phase], figures["postgres"][phase]
            both = pg["cpu_ms"] + (pg["db_cpu_ms"] or 0.0)
            own = pg["cpu_ms"] + (pg["own_db_cpu_ms"] or 0.0)
            print(f"PostgreSQL against SQLite, {'at rest' if phase == 'rest' else 'while it trains'}: "
                  f"{own:.2f} ms CPU per request (server {pg['cpu_ms']:.2f} + its database sessions "
                  f"{pg['own_db_cpu_ms']:.2f}) against {lite['cpu_ms']:.2f} ms = {own / lite['cpu_ms']:.2f}x "
                  f"(target <= 1.5x); with all the database server's CPU, the tournament's writes included "
                  f"({pg['db_cpu_ms']:.2f} ms): {both:.2f} ms = {both / lite['cpu_ms']:.2f}x")
        lite_r, pg_r = figures["sqlite"]["reload"], figures["postgres"]["reload"]
        print(f"PostgreSQL against SQLite, the pages' answers read again after a commit: {pg_r:.1f} ms CPU (the server "
              f"and its database sessions) against {lite_r:.1f} ms = {pg_r / lite_r:.2f}x (the CPU itself: the load "
              f"does not move it)")
        lite, pg = figures["sqlite"]["training"], figures["postgres"]["training"]
        print(f"PostgreSQL against SQLite, per commit of the tournament while it trains (what the pages read "
              f"again after each, beyond the requests' CPU at rest): {pg['per_commit_ms']:.1f} ms against "
              f"{lite['per_commit_ms']:.1f} ms = "
              f"{pg['per_commit_ms'] / lite['per_commit_ms']:.2f}x")
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
