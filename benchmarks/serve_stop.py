#!/usr/bin/env python3
"""How long ``menace serve`` takes to stop on SIGTERM with 200 event streams open and a tournament
running (the issue asks for 1 s at most), on a quiet machine and beside two busy-loop processes
(a busy two-core laptop).

    python benchmarks/serve_stop.py                   # 5 stops each way
    python benchmarks/serve_stop.py --runs 3 --streams 200 --signal INT

Prints, per run, the seconds from the signal to the process's exit and to the last stream's end,
then the median and the worst of each. Every run checks what the test checks: the exit status,
and that the stored games replay to the stored beads (``menace check``).
"""

from __future__ import annotations

import argparse
import http.client
import json
import selectors
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def menace(*args: str) -> list[str]:
    return [sys.executable, "-m", "menace", *args]


def call(port: int, method: str, path: str, body: dict[str, object] | None = None) -> tuple[int, dict[str, object]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request(method, path, body=json.dumps(body) if body else None,
                     headers={"Content-Type": "application/json"} if body else {})
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read() or b"null")
    finally:
        conn.close()


def one_stop(url: str, streams: int, sig: signal.Signals) -> tuple[float, float]:
    """Serve, open the streams, train until games are stored, signal; (exit s, last stream's end s)."""
    proc = subprocess.Popen(menace("--db", url, "serve", "--port", "0"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().split("127.0.0.1:")[1].split("/")[0])
        while True:
            try:
                if call(port, "GET", "/api/health")[0] == 200:
                    break
            except OSError:
                time.sleep(0.02)
        sel = selectors.DefaultSelector()
        socks = []
        for _ in range(streams):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            socks.append(s)
        for s in socks:
            s.settimeout(60)
            if not s.recv(4096).startswith(b"HTTP/1.1 200"):
                raise RuntimeError("an event stream was refused")
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
        status, _ = call(port, "POST", "/api/train", {"opponent": "random", "seconds": 3600})
        if status != 202:
            raise RuntimeError(f"the tournament did not start ({status})")
        while call(port, "GET", "/api/train")[1]["games"] == 0:
            time.sleep(0.05)
        time.sleep(0.5)  # a tournament in full flight, writing every few tenths of a second
        start = time.monotonic()
        proc.send_signal(sig)
        open_ = len(socks)
        last_end = None
        while open_:
            for key, _ in sel.select(30):
                try:
                    data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                except BlockingIOError:
                    continue
                except ConnectionError:
                    data = b""
                if not data:
                    sel.unregister(key.fileobj)
                    open_ -= 1
            last_end = time.monotonic() - start
        proc.wait(60)
        exited = time.monotonic() - start
        for s in socks:
            s.close()
        expected = 143 if sig == signal.SIGTERM else 130
        if proc.returncode != expected:
            err = proc.stderr.read() if proc.stderr else ""
            raise RuntimeError(f"exit status {proc.returncode}, not {expected}: {err}")
        check = subprocess.run(menace("--db", url, "check"), capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"check failed: {check.stdout}{check.stderr}")
        return exited, last_end or 0.0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--streams", type=int, default=200)
    ap.add_argument("--signal", choices=["TERM", "INT"], default="TERM")
    args = ap.parse_args()
    sig = signal.Signals[f"SIG{args.signal}"]
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'm.db'}"
        subprocess.run(menace("--db", url, "init"), check=True, capture_output=True)
        print(f"menace serve stopped by SIG{args.signal} with {args.streams} event streams open and a tournament "
              f"against random running (seconds from the signal)")
        for loops in (0, 2):
            busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(loops)]
            try:
                stops = [one_stop(url, args.streams, sig) for _ in range(args.runs)]
            finally:
                for p in busy:
                    p.kill()
                    p.wait()
            exits = [e for e, _ in stops]
            ends = [s for _, s in stops]
            where = "quiet" if not loops else f"beside {loops} busy loops"
            print(f"  {where:<22} exit: median {statistics.median(exits):.2f} s, worst {max(exits):.2f} s; "
                  f"last stream ended: median {statistics.median(ends):.2f} s, worst {max(ends):.2f} s")
            print("    runs: " + ", ".join(f"{e:.2f}" for e in exits))


if __name__ == "__main__":
    main()
