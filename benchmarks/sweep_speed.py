"""How long a 200-seed x 1,000-game sweep against perfect takes (issue 7: at most 10 s).

Times the library call in this process, then the command as a whole new process (start-up,
imports, worker processes, table building and printing included), for one setting and for the
two settings of the issue's example. Exits 1 if the one-setting command is over the target.

    python benchmarks/sweep_speed.py [--workers N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

TARGET_SECONDS = 10.0
SEEDS, GAMES = 200, 1000
ONE = ["--beads", "4,3,2,1"]
TWO = ["--beads", "4,3,2,1", "--beads", "8,4,2,1"]


def command_prefix() -> list[str]:
    """``python -m menace sweep`` once the main group has the command, else the command alone."""
    from menace.cli import cli

    if "sweep" in cli.commands:
        return [sys.executable, "-m", "menace", "sweep"]
    return [sys.executable, "-c", "from menace.cli.sweep import sweep; sweep(prog_name='menace sweep')"]


def time_command(args: list[str]) -> float:
    cmd = [*command_prefix(), "--seeds", str(SEEDS), "--games", str(GAMES), "--vs", "perfect", *args]
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode:
        sys.exit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, help="worker processes [default: every core]")
    opts = parser.parse_args()
    worker_args = ["--workers", str(opts.workers)] if opts.workers else []

    from menace.app.sweep import expand_settings, run_sweep
    from menace.core.settings import MICHIE

    print(f"{os.cpu_count()} cores; {SEEDS} seeds x {GAMES:,} games vs perfect, 1,000 frozen games each vs random")
    start = time.perf_counter()
    result = run_sweep(expand_settings(MICHIE, beads=[(4, 3, 2, 1)]), "perfect", GAMES, SEEDS, opts.workers)
    lib = time.perf_counter() - start
    print(f"library, one setting, in process:      {lib:5.2f} s ({result.workers} workers)")
    one = time_command(ONE + worker_args)
    print(f"command, one setting, whole process:   {one:5.2f} s (target {TARGET_SECONDS:.0f} s)")
    two = time_command(TWO + worker_args)
    print(f"command, two settings, whole process:  {two:5.2f} s")
    if one > TARGET_SECONDS:
        print(f"OVER TARGET: {one:.2f} s > {TARGET_SECONDS:.0f} s")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
