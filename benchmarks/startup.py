#!/usr/bin/env python3
"""How long the ``menace`` command takes to start: wall time (median of several runs, each a fresh
process) and peak memory, for the commands a user types most, and what Python itself costs.

    python benchmarks/startup.py             # 7 runs each
    python benchmarks/startup.py --runs 15

On a shared machine the CPU time (user + system) is steadier than the wall time. Every run is a new
``python -m menace ...`` process in a scratch folder holding one machine (built
first with ``menace init``), so imports are measured as a user meets them (the files in the page
cache, the game's tree in the cache folder, as after the first run of the day; the cache folder is
one in the scratch folder, ``$MENACE_CACHE_DIR``). Peak memory is the child's own (``os.wait4``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

COMMANDS: list[tuple[str, list[str]]] = [
    ("python -c pass (Python alone)", ["-c", "pass"]),
    ("python -c 'import sqlalchemy'", ["-c", "import sqlalchemy"]),
    ("menace --help", ["-m", "menace", "--help"]),
    ("menace tournament --help", ["-m", "menace", "tournament", "--help"]),
    ("menace stats", ["-m", "menace", "stats"]),
    ("menace tournament -n 1", ["-m", "menace", "tournament", "-n", "1", "--seed", "1"]),
]


def run_once(args: list[str], cwd: Path) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (KiB) of one ``python ARGS`` process."""
    env = {**os.environ, "MENACE_CACHE_DIR": str(cwd / "cache")}
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, *args], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.stderr is not None
    err = child.stderr.read()
    child.stderr.close()
    if child.returncode != 0:
        raise SystemExit(f"python {' '.join(args)} failed ({child.returncode}): {err.decode()[-400:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss  # KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per command (default 7)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        subprocess.run([sys.executable, "-m", "menace", "init"], cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                       env={**os.environ, "MENACE_CACHE_DIR": str(cwd / "cache")})
        for _, command in COMMANDS:  # once each to warm the page cache and the bytecode
            run_once(command, cwd)
        print(f"menace start-up, {date.today()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
              f"median of {args.runs} runs: wall (min-max), CPU (user + system), peak RSS")
        for label, command in COMMANDS:
            # Interleaving would mix the commands' caches; each runs its rounds back to back.
            samples = [run_once(command, cwd) for _ in range(args.runs)]
            walls = [w for w, _, _ in samples]
            cpu = statistics.median(c for _, c, _ in samples)
            rss = max(r for _, _, r in samples)
            print(f"  {label:<36} {statistics.median(walls):6.3f} s  ({min(walls):.3f}-{max(walls):.3f})  "
                  f"CPU {cpu:6.3f} s  {rss / 1024:6.1f} MiB")


if __name__ == "__main__":
    main()
