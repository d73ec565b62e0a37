"""What slow, half-sent and guessing clients cost ``menace serve``: python benchmarks/web_guard.py [--games 1500000]

Prints, for a server run as ``menace serve`` in a subprocess with ``ulimit -n 256``:

* 300 half-sent requests (headers never finished): how long until each is dropped, and how long a
  visitor arriving in the middle of them waits for an answer (before the header timeout existed the
  half-sent requests stayed open for good and, past 256 descriptors, the server answered no one);
* one client guessing tokens as fast as it can for 10 s: how many guesses are looked at (before the
  limiter: 194 a second, 1,944 in 10 s);
* 4 concurrent downloads of the machine file of a ``--games`` machine: the server's peak memory
  above its idle size (before the export was streamed: ~29 MiB per request at 1.5M games).
"""

from __future__ import annotations

import argparse
import http.client
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def menace(db: Path, *args: str) -> None:
    subprocess.run([sys.executable, "-m", "menace", "--db", f"sqlite:///{db}", *args], check=True,
                   stdout=subprocess.DEVNULL)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def limit_files() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))


def get(port: int, path: str, headers: dict[str, str] | None = None, timeout: float = 30) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        r = conn.getresponse()
        while r.read(1 << 16):
            pass
        return r.status
    finally:
        conn.close()


def peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_500_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "menace.db"
        menace(db, "init")
        print(f"building a {args.games:,}-game machine...", flush=True)
        menace(db, "tournament", "--vs", "random", "-n", str(args.games), "--seed", "1")
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "menace", "--db", f"sqlite:///{db}", "serve", "--port",
                                   str(port), "--tokens"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                  preexec_fn=limit_files)
        try:
            assert server.stdout is not None
            while "Admin token" not in server.stdout.readline():
                pass
            while True:
                try:
                    get(port, "/api/health", timeout=1)
                    break
                except OSError:
                    time.sleep(0.05)
            half_sent(port)
            guessing(port)
            downloads(port, server.pid)
        finally:
            server.terminate()
            server.wait(30)


def half_sent(port: int) -> None:
    socks = []
    start = time.monotonic()
    for i in range(300):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
        except OSError:
            break
        s.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n" if i % 2 else b"GET /")
        socks.append(s)
    opened = len(socks)
    t0 = time.monotonic()
    status = get(port, "/api/info", timeout=60)
    answered = time.monotonic() - t0
    dropped = []
    for s in socks:
        s.settimeout(60)
        try:
            while s.recv(4096):
                pass
        except (TimeoutError, ConnectionResetError):
            pass
        dropped.append(time.monotonic() - start)
        s.close()
    print(f"300 half-sent requests ({opened} connected): a visitor among them answered {status} in {answered:.2f} s; "
          f"all dropped after {max(dropped):.1f} s")


def guessing(port: int) -> None:
    looked_at = refused = 0
    end = time.monotonic() + 10
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    while time.monotonic() < end:
        conn.request("GET", "/api/access", headers={"X-Menace-Token": f"guess-{looked_at + refused}"})
        r = conn.getresponse()
        r.read()
        if r.status == 429:
            refused += 1
        else:
            looked_at += 1
    conn.close()
    print(f"guessing tokens for 10 s: {looked_at} guesses looked at, {refused} told to wait (429)")


def downloads(port: int, pid: int) -> None:
    before = peak_kib(pid)
    sizes: list[int] = []

    def one() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        conn.request("GET", "/api/machines/menace/export", headers={"Accept-Encoding": "identity"})
        r = conn.getresponse()
        size = 0
        while chunk := r.read(1 << 16):
            size += len(chunk)
        sizes.append(size)
        conn.close()

    threads = [threading.Thread(target=one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    grown = (peak_kib(pid) - before) / 1024
    print(f"4 concurrent downloads of a {sizes[0] / 2**20:.1f} MiB machine file: the server's peak memory grew "
          f"{grown:.1f} MiB ({grown / 4:.1f} MiB a download)")


if __name__ == "__main__":
    main()
