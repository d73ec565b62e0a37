"""Timing whole ``python`` processes, as a user meets them: shared by the benchmarks that do."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


def run_once(args: list[str], cwd: Path, env: Mapping[str, str] | None = None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (KiB on Linux) of one ``python ARGS``
    process, read from ``os.wait4`` (the child's own, not the benchmark's)."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, *args], cwd=cwd, env=None if env is None else dict(env),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.stderr is not None
    err = child.stderr.read()
    child.stderr.close()
    if child.returncode != 0:
        raise SystemExit(f"python {' '.join(args)} failed ({child.returncode}): {err.decode()[-400:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


@dataclass(frozen=True)
class Runs:
    """Several runs of one process: the median wall and its range, the median CPU, the highest peak."""

    wall: float
    fastest: float
    slowest: float
    cpu: float
    peak_mib: float


def summarise(samples: Sequence[tuple[float, float, int]]) -> Runs:
    walls = [w for w, _, _ in samples]
    return Runs(statistics.median(walls), min(walls), max(walls), statistics.median(c for _, c, _ in samples),
                max(r for _, _, r in samples) / 1024)
