"""The rest of issue 17: sweep workers end with their parent, bad values are clean errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import Invoke, wait_until

from menace.cli import cli


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_killing_a_sweep_ends_its_workers(tmp_path: Path) -> None:
    sweep = subprocess.Popen([sys.executable, "-m", "menace", "--db", str(tmp_path / "x.db"), "sweep", "--seeds",
                              "400", "--games", "3000", "--workers", "2", "--eval-games", "0"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []

    def started() -> bool:
        workers[:] = [c for c in _children(sweep.pid) if _alive(c)]
        return len(workers) >= 2

    try:
        wait_until(started, "the sweep's workers")
    finally:
        sweep.send_signal(signal.SIGKILL)  # (the workers, if any, are this test's)
        sweep.wait()
    try:
        wait_until(lambda: not any(_alive(w) for w in workers), "the workers to end with their sweep", timeout=15)
    finally:
        for w in workers:
            if _alive(w):
                os.kill(w, signal.SIGKILL)


@pytest.mark.parametrize("args", [
    ("history", "--last", str(10**30)), ("history", "--from", str(10**30)), ("show", "٣"), ("show", "99999"),
    ("labels", "--spare", "1e400%"), ("sweep", "--seeds", str(10**30)), ("tournament", "--vs", f"td:{10**30}"),
    ("tournament", "--vs", "td:10**30"), ("export", ""),
])
def test_bad_values_are_clean_errors(menace: Invoke, args: tuple[str, ...]) -> None:
    menace("init")
    r = menace(*args, ok=False)
    assert r.exit_code in (1, 2), r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)


def test_a_read_only_uri_is_a_clean_error(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    CliRunner().invoke(cli, ["--db", str(db), "init"], catch_exceptions=False)
    r = CliRunner().invoke(cli, ["--db", f"{db}?mode=ro", "stats"])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output
