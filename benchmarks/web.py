"""How fast ``menace serve`` is, measured in one run: python benchmarks/web.py [--games 1000000]

Prints: the wall drawn in Chromium for 304 and 2,201 boxes (target < 1 s), the time for the wall
to reflect a finished game (< 100 ms), how much 50 SSE clients slow a running tournament (< 10%)
and the learning series of a 1,000,000-game machine served (< 200 ms).

The server runs as ``menace serve`` in a subprocess, so the clients of this process do not share
its interpreter. Needs Debian's chromium and playwright (``pip install -e '.[test]'``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]


def menace(db: Path, *args: str) -> None:
    subprocess.run([sys.executable, "-m", "menace", "--db", str(db), *args], check=True, stdout=subprocess.DEVNULL)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, db: Path, machine: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen([sys.executable, "-m", "menace", "--db", str(db), "-m", machine, "serve",
                                      "--port", str(self.port)], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(self.base + "/api/health", timeout=1):
                    return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.base + "/api" * (not path.startswith("/api")) + path, timeout=60) as r:
            return json.loads(r.read())

    def post(self, path: str, body: dict[str, Any]) -> Any:
        req = urllib.request.Request(self.base + path, json.dumps(body).encode(), {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read())

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def wall_times(browser: Any, srv: Server, rounds: int = 5) -> tuple[list[float], list[float]]:
    """Milliseconds from navigation (the page's time origin) to the wall on screen: the boxes in
    view and a screen either side drawn, and the next frame painted (the page records
    ``data-painted-at``). Then every other box drawn too, forced, and painted: the cost of a
    whole 2,201-box wall, which the page otherwise spreads over scrolling."""
    shown, everything = [], []
    for _ in range(rounds):
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.goto(srv.base + "/")
        page.wait_for_selector("#wall[data-painted-at]", timeout=30_000)
        shown.append(float(page.get_attribute("#wall", "data-painted-at") or "nan"))
        everything.append(float(page.evaluate("""() => new Promise((done) => {
            const t0 = performance.now();
            window.menaceWallDrawAll();
            requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0), 0));
        })""")))
        page.close()
    return shown, everything


def ledger_time(browser: Any, srv: Server) -> tuple[float, float]:
    """Seconds from the person's last move sent (from the wall page itself) to the wall redrawn,
    and of that the page's own part: the game's end event applied to the boxes it changed."""
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.goto(srv.base + "/")
    page.wait_for_selector("#wall[data-ready='1'][data-live='1']")
    total = float(page.evaluate("""async () => {
        const post = (p, b) => fetch('/api' + p, {method: 'POST', headers: {'Content-Type': 'application/json'},
                                                  body: JSON.stringify(b)}).then(r => r.json());
        let t = await post('/play', {});
        const seat = t.seat;
        const wall = document.getElementById('wall');
        for (;;) {
            // the moment the page marks the wall updated (it may come before the move's answer)
            let mo;
            const changed = new Promise((done) => {
                mo = new MutationObserver(() => done(performance.now()));
                mo.observe(wall, {attributes: true, attributeFilter: ['data-last-game']});
            });
            const t0 = performance.now();
            t = await post(`/play/${seat}/move`, {move: t.legal[0]});
            if (t.over) {
                const at = await changed;
                mo.disconnect();
                return (at - t0) / 1000;
            }
            mo.disconnect();
        }
    }"""))
    in_page = float(page.get_attribute("#wall", "data-ledger-ms") or "nan") / 1000
    page.close()
    return total, in_page


def tournament_rate(srv: Server, games: int) -> float:
    srv.post("/api/train", {"opponent": "random", "games": games, "seed": 5})
    while srv.get("/api/train")["running"]:
        time.sleep(0.05)
    s = srv.get("/api/train")
    return float(s["games"] / s["seconds"])


def sse_clients(srv: Server, n: int) -> tuple[list[threading.Thread], list[int], Any]:
    """``n`` event streams read in threads, as ``n`` open pages would; call the returned ``stop``
    to close them all at once."""
    counts = [0] * n
    socks = [socket.create_connection(("127.0.0.1", srv.port)) for _ in range(n)]

    def listen(i: int) -> None:
        sock = socks[i]
        sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        with sock.makefile("rb") as f:
            try:
                for line in f:
                    if line.startswith(b"event:"):
                        counts[i] += 1
            except OSError:
                return

    def stop() -> None:
        for sock in socks:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    threads = [threading.Thread(target=listen, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    return threads, counts, stop


def wait_for_clients(srv: Server, n: int) -> None:
    """Until the server counts ``n`` event streams open (``/api/info`` says how many)."""
    deadline = time.monotonic() + 30
    while srv.get("/api/info").get("watchers") != n:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the server never had {n} event streams open")
        time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="games of the big machine [1,000,000]")
    parser.add_argument("--tournament", type=int, default=400_000, help="games per timed tournament [400,000]")
    parser.add_argument("--pairs", type=int, default=6, help="quiet/busy tournament pairs [6]")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="menace-web-bench-"))
    db = folder / "bench.db"
    menace(db, "init")
    menace(db, "-m", "big", "init", "--no-symmetry")
    print(f"Building a {args.games:,}-game machine...", file=sys.stderr)
    menace(db, "-m", "million", "init")
    menace(db, "-m", "million", "tournament", "--vs", "random", "-n", str(args.games), "--seed", "1")
    rows: list[tuple[str, str, str]] = []
    chromium = shutil.which("chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=ARGS)
        for machine, label in (("menace", "304"), ("big", "2,201")):
            srv = Server(db, machine)
            try:
                shown, everything = wall_times(browser, srv)
                rows.append((f"wall of {label} boxes: navigation to the boxes in view drawn and painted (median of 5)",
                             f"{statistics.median(shown):.0f} ms", "< 1 s"))
                rows.append((f"...then all {label} boxes drawn and painted, forced (median of 5)",
                             f"{statistics.median(everything):.0f} ms", ""))
            finally:
                srv.close()
        srv = Server(db, "menace")
        try:
            lt = [ledger_time(browser, srv) for _ in range(7)]
            rows.append(("wall reflects a finished game (last move sent to wall redrawn, median of 7)",
                         f"{statistics.median(t for t, _ in lt) * 1000:.0f} ms", "< 100 ms"))
            rows.append(("...of which the page applies the end event to the changed boxes (median of 7)",
                         f"{statistics.median(p for _, p in lt) * 1000:.1f} ms", ""))
            # A first run brings the machine to its steady pace (a fresh machine plays slower games);
            # then quiet and busy runs alternate, each pair in the other order to the last.
            tournament_rate(srv, args.tournament)
            quiet, busy, ratios = [], [], []
            received = 0
            for round_ in range(args.pairs):
                pair: dict[str, float] = {}
                for kind in (("quiet", "busy") if round_ % 2 == 0 else ("busy", "quiet")):
                    if kind == "quiet":
                        pair[kind] = tournament_rate(srv, args.tournament)
                        continue
                    threads, counts, stop = sse_clients(srv, 50)
                    wait_for_clients(srv, 50)
                    pair[kind] = tournament_rate(srv, args.tournament)
                    stop()
                    received = min(counts)
                    wait_for_clients(srv, 0)
                quiet.append(pair["quiet"])
                busy.append(pair["busy"])
                ratios.append(1 - pair["busy"] / pair["quiet"])
            q, b = statistics.median(quiet), statistics.median(busy)
            rows.append(("tournament vs random in the server, no page open (games/s, median)", f"{q:,.0f}", ""))
            rows.append(("...with 50 SSE clients listening (games/s, median, alternated)", f"{b:,.0f}", ""))
            each = ", ".join(f"{r * 100:+.0f}%" for r in ratios)
            rows.append((f"slow-down by 50 SSE clients (median of the {args.pairs} pairs)",
                         f"{statistics.median(ratios) * 100:.1f}% (pairs {each}; each client got >= {received} events)",
                         "< 10%"))
        finally:
            srv.close()
        browser.close()
    # Nothing per game is kept between requests: the first request after a start is the same work
    # as any other. Each start is timed, then the same server at the other zooms.
    path = "/machines/million/learning?points=600"
    cold: list[float] = []
    at: dict[str, list[float]] = {"again": [], "zoom": [], "deep": [], "dense": []}
    # The zooms are the same share of any history: the middle fifth, and 100 games at the middle.
    n = args.games
    zoom = (n * 2 // 5, n * 3 // 5)
    deep = (n // 2, n // 2 + 100)
    for _ in range(3):
        srv = Server(db, "million")
        try:
            def timed(query: str, srv: Server = srv) -> float:
                t0 = time.perf_counter()
                srv.get(query)
                return time.perf_counter() - t0

            cold.append(timed(path))
            at["again"] += [timed(path) for _ in range(3)]
            at["zoom"] += [timed(path + f"&first={zoom[0]}&last={zoom[1]}") for _ in range(3)]
            at["deep"] += [timed(path + f"&first={deep[0]}&last={deep[1]}") for _ in range(3)]
            at["dense"] += [timed("/machines/million/learning?points=2000") for _ in range(3)]
        finally:
            srv.close()
    ms = {k: statistics.median(v) * 1000 for k, v in at.items()}
    rows.append((f"learning series of a {args.games:,}-game machine, 600 points, first request after a start "
                 "(median of 3 starts)", f"{statistics.median(cold) * 1000:.0f} ms", "< 200 ms"))
    rows.append(("...asked again, median of 9", f"{ms['again']:.0f} ms", "< 200 ms"))
    rows.append((f"...zoomed to games {zoom[0]:,}-{zoom[1]:,}, median of 9", f"{ms['zoom']:.0f} ms", "< 200 ms"))
    rows.append((f"...zoomed to games {deep[0]:,}-{deep[1]:,}, median of 9", f"{ms['deep']:.0f} ms", "< 200 ms"))
    rows.append(("...the whole history at 2,000 points (the most), median of 9", f"{ms['dense']:.0f} ms", "< 200 ms"))
    width = max(len(r[0]) for r in rows)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"menace serve, measured {time.strftime('%Y-%m-%d')} on {os.cpu_count()} cores (load average at the end "
          f"{load}: other work on the machine slows every figure):")
    for what, value, target in rows:
        print(f"  {what:<{width}}  {value:>12}  {target}")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
