#!/usr/bin/env python3
"""How soon and in how much memory ``menace import`` refuses junk: a 31 MB list of zeros where a
machine file's boxes go, and a machine file of 200,000 runs (28 MB), each refused in one line.

    python benchmarks/import_junk.py

Prints each refusal with the CPU time (user + system) and the peak memory (RSS) of the whole
``menace import`` process. Before the reading bounded each part of the file, the junk took
754-815 MiB and 50-100 s before its refusal, and the runs 265 MiB and 345 s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from processes import _LAUNCHER  # noqa: E402


def measure(args: list[str], cwd: Path) -> tuple[float, float, str]:
    """CPU seconds, peak MiB and the last line on stderr of ``python ARGS`` (a refusal exits 1)."""
    done = subprocess.run([sys.executable, "-c", _LAUNCHER, sys.executable, *args], cwd=cwd, capture_output=True,
                          text=True)
    _, cpu, peak, code = done.stdout.split()
    if int(code) != 1:
        raise SystemExit(f"expected a refusal (exit 1), got {code}: {done.stderr}")
    return float(cpu), int(peak) / 1024, done.stderr.strip().splitlines()[-1]


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        menace = [sys.executable, "-m", "menace"]
        subprocess.run([*menace, "init"], cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        subprocess.run([*menace, "export", "m.json"], cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        body = json.loads((cwd / "m.json").read_text())
        head = json.dumps({"format": "menace-machine", "version": 2, "machine": body["machine"]})[:-1]
        (cwd / "junk.json").write_text(head + ', "boxes": [' + "0," * 15_500_000 + "0]}")
        run = {"kind": "tournament", "opponent": "random", "seed": 1, "started_at": "2026-12-02T15:25:15",
               "ended_at": None}
        body["history"]["runs"] = [run] * 200_000
        from menace.app.transfer import checksum

        body["checksum"] = checksum(body)
        (cwd / "runs.json").write_text(json.dumps(body, indent=1))
        del body
        print(f"menace import of junk, {date.today()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}: "
              f"CPU, peak RSS, the refusal")
        for name, label in (("junk.json", "31 MB of zeros"), ("runs.json", "200,000 runs")):
            size = (cwd / name).stat().st_size / 1e6
            cpu, peak, said = measure(["-m", "menace", "--db", "target.db", "import", name], cwd)
            print(f"  {label:<15} ({size:4.1f} MB)  CPU {cpu:5.2f} s  {peak:6.1f} MiB  {said}")


if __name__ == "__main__":
    main()
