"""What the web benchmarks share: a trained machine to serve, ``menace serve``'s app in a process of
its own (ready once /api/health answers), and that process's CPU read from /proc.

Imported by benchmarks/web_kept.py and benchmarks/web_class.py (run as scripts from this folder).
"""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

SERVE = """
import sys
from menace.web.app import create_app
from menace.web.server import MenaceServer, server_config
app = create_app(sys.argv[1], "menace", keep=sys.argv[3] == "on")
MenaceServer(server_config(app, port=int(sys.argv[2]), log_level="warning"), app).run()
"""
TICK = os.sysconf("SC_CLK_TCK")


def build_machine(url: str, games: int) -> None:
    """Michie's machine 'menace' at ``url``, trained for ``games`` against random (seed 1)."""
    t = time.perf_counter()
    for cmd in (["init"], ["tournament", "--vs", "random", "-n", str(games), "--seed", "1"]):
        subprocess.run([sys.executable, "-m", "menace", "--db", url, *cmd], check=True, stdout=subprocess.DEVNULL)
    print(f"built a {games:,}-game machine in {time.perf_counter() - t:.1f} s")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stat_cpu(stat: Path) -> float:
    """User and system CPU seconds in a /proc stat file (fields 14 and 15)."""
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def cpu_seconds(pid: int) -> float:
    """The process's CPU seconds so far."""
    return _stat_cpu(Path(f"/proc/{pid}/stat"))


def _parents() -> dict[int, int]:
    """Each process's parent, from /proc."""
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(stat.parent.name)] = int(fields[1])
    return out


def tree_cpu(pid: int, itself: bool = True) -> float:
    """CPU seconds so far of ``pid``'s descendants (and of ``pid`` itself with ``itself``), those that
    ended included: a process's reaped children are in its stat's fields 16 and 17."""
    parents = _parents()
    total = 0.0
    todo = [pid] if itself else [c for c, p in parents.items() if p == pid]
    while todo:
        proc = todo.pop()
        try:
            fields = Path(f"/proc/{proc}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15]) / TICK
        todo.extend(c for c, p in parents.items() if p == proc)
    return total


class ServedApp:
    """``menace serve``'s app for the machine 'menace' at ``url``, in a process of its own, with the
    owner's kept state on or off; ready once /api/health answers."""

    def __init__(self, url: str, keep: bool = True) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen([sys.executable, "-c", SERVE, url, str(self.port), "on" if keep else "off"])
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
                try:
                    conn.request("GET", "/api/health")
                    if conn.getresponse().status == 200:
                        break
                finally:
                    conn.close()
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.05)  # polling for readiness

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(60)
