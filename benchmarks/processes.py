"""Timing whole ``python`` processes, as a user meets them: shared by the benchmarks that do."""

from __future__ import annotations

import statistics
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

_LAUNCHER = """
import os, subprocess, sys, time
start = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
err = child.stderr.read()
_, status, usage = os.wait4(child.pid, 0)
wall = time.perf_counter() - start
sys.stderr.buffer.write(err[-400:])
print(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""
"""Runs the measured process and reports its wall time, CPU and peak from ``os.wait4``. A child's
peak (``ru_maxrss``) starts at the resident size of the process that started it (Linux carries it
over the exec), so a benchmark holding learners and tables of its own would pass its own size off
as the command's: this small process starts the command instead."""


def run_once(args: list[str], cwd: Path, env: Mapping[str, str] | None = None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (KiB on Linux) of one ``python ARGS``
    process: the child's own, measured by a small launcher (see :data:`_LAUNCHER`)."""
    done = subprocess.run([sys.executable, "-c", _LAUNCHER, sys.executable, *args], cwd=cwd,
                          env=None if env is None else dict(env), capture_output=True, text=True)
    try:
        wall, cpu, peak, code = done.stdout.split()
    except ValueError:
        raise SystemExit(f"the launcher failed: {done.stderr[-400:]}") from None
    if int(code) != 0:
        raise SystemExit(f"python {' '.join(args)} failed ({code}): {done.stderr}")
    return float(wall), float(cpu), int(peak)


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
