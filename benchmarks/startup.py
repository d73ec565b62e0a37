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
The read commands (``stats``, ``show``, ``history``) are held to a target: at most 0.25 s of CPU each.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from processes import run_once as run_process  # noqa: E402
from processes import summarise  # noqa: E402

COMMANDS: list[tuple[str, list[str]]] = [
    ("python -c pass (Python alone)", ["-c", "pass"]),
    ("python -c 'import sqlalchemy'", ["-c", "import sqlalchemy"]),
    ("menace --help", ["-m", "menace", "--help"]),
    ("menace tournament --help", ["-m", "menace", "tournament", "--help"]),
    ("menace stats", ["-m", "menace", "stats"]),
    ("menace show 1", ["-m", "menace", "show", "1"]),
    ("menace history", ["-m", "menace", "history"]),
    ("menace tournament -n 1", ["-m", "menace", "tournament", "-n", "1", "--seed", "1"]),
]


READ_TARGET = 0.25
"""CPU seconds (user + system) a read command may take from start to finish, however short its answer."""
READ_COMMANDS = ("menace stats", "menace show 1", "menace history")


def run_once(args: list[str], cwd: Path) -> tuple[float, float, int]:
    """One ``python ARGS`` process with the scratch folder's tree cache (see :mod:`processes`)."""
    return run_process(args, cwd, {**os.environ, "MENACE_CACHE_DIR": str(cwd / "cache")})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per command (default 7)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        env = {**os.environ, "MENACE_CACHE_DIR": str(cwd / "cache")}
        subprocess.run([sys.executable, "-m", "menace", "init"], cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                       env=env)
        # A short history for `history` to list (its answer: the last games of the machine).
        subprocess.run([sys.executable, "-m", "menace", "tournament", "--vs", "random", "-n", "2000", "--seed", "1"],
                       cwd=cwd, check=True, stdout=subprocess.DEVNULL, env=env)
        for _, command in COMMANDS:  # once each to warm the page cache and the bytecode
            run_once(command, cwd)
        print(f"menace start-up, {date.today()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
              f"median of {args.runs} runs: wall (min-max), CPU (user + system), peak RSS")
        missed = 0
        for label, command in COMMANDS:
            # Interleaving would mix the commands' caches; each runs its rounds back to back.
            r = summarise([run_once(command, cwd) for _ in range(args.runs)])
            target = ""
            if label in READ_COMMANDS:
                ok = r.cpu <= READ_TARGET
                missed += not ok
                target = f"  (target CPU <= {READ_TARGET} s){'' if ok else '  MISSED'}"
            print(f"  {label:<36} {r.wall:6.3f} s  ({r.fastest:.3f}-{r.slowest:.3f})  "
                  f"CPU {r.cpu:6.3f} s  {r.peak_mib:6.1f} MiB{target}")
        print(f"  load {os.getloadavg()[0]:.1f} at the end")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
