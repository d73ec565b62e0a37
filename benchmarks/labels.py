#!/usr/bin/env python3
"""How long ``menace labels`` takes for Michie's 304 boxes and for the 2,201 boxes of a machine
without symmetry, as a user runs it (a whole process: start-up, loading the machine, drawing and
writing the PDF).

    python benchmarks/labels.py              # 3 runs of 304 labels, 1 run of 2,201
    python benchmarks/labels.py --runs 5

Prints the median wall time, the CPU time (user + system, steadier than the wall time on a shared
machine) and the peak memory of each, and the size of the PDF. A trained machine draws the same
labels with other numbers, so a fresh one is measured. The 304 labels' CPU time is held against
its budget of 3.5 s (three times faster than the matplotlib-era 10.1-10.3 s), and the PDF's fonts
are listed: TrueType subsets, embedded.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from processes import run_once, summarise  # noqa: E402

CPU_BUDGET = 3.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of the 304 labels (default 3)")
    parser.add_argument("--big-runs", type=int, default=1, help="runs of the 2,201 labels (default 1)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        for init in (["init"], ["-m", "big", "init", "--no-symmetry"]):
            subprocess.run([sys.executable, "-m", "menace", *init], cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        print(f"menace labels, {date.today()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}: "
              f"median wall (min-max), CPU, peak RSS, PDF size")
        for label, machine, runs in (("304 labels", "menace", args.runs), ("2,201 labels", "big", args.big_runs)):
            out = cwd / f"{machine}.pdf"
            r = summarise([run_once(["-m", "menace", "-m", machine, "labels", "--out", str(out)], cwd)
                           for _ in range(runs)])
            print(f"  {label:<13} {r.wall:6.2f} s ({r.fastest:.2f}-{r.slowest:.2f})  "
                  f"CPU {r.cpu:6.2f} s  {r.peak_mib:6.1f} MiB  {out.stat().st_size / 1e6:5.2f} MB")
            if machine == "menace":
                verdict = "within" if r.cpu < CPU_BUDGET else "OVER"
                print(f"  {'':<13} {verdict} the budget of {CPU_BUDGET} s of CPU for 304 labels")
                data = out.read_bytes()
                fonts = sorted(set(re.findall(rb"/BaseFont /([A-Z]{6}\+[\w-]+)", data)))
                print(f"  {'':<13} fonts: {', '.join(f.decode() for f in fonts)} "
                      f"({data.count(b'/FontFile2')} embedded TrueType subsets, {data.count(b'/Type3')} Type 3)")


if __name__ == "__main__":
    main()
