"""A full disk (``ulimit -f``: RLIMIT_FSIZE set in the child, SIGXFSZ ignored so that a write fails
with EFBIG instead of killing the process) during ``init``, ``tournament`` and ``import``: one line,
status 1, nothing shown as played or imported that is not stored, no file left beside the database,
and the database still usable (``menace check`` OK once the limit is gone)."""

from __future__ import annotations

import os
import resource
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from menace.cli import cli


def _limited(limit: int) -> Callable[[], None]:
    def preexec() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return preexec


def _run_full(db: Path, limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    # The child writes no compiled files: under the limit one could be cut short, and the next run
    # of the suite would read it back.
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-m", "menace", "--db", str(db), *args], cwd=db.parent, env=env,
                          preexec_fn=_limited(limit), capture_output=True, text=True, timeout=120)


def _menace(db: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--db", str(db), *args])
    assert result.exit_code == 0, result.output
    return result.output


def _one_line_disk_full(run: subprocess.CompletedProcess[str]) -> None:
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: cannot write") and "disk is full" in lines[0], run.stderr


def _stored_games(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT coalesce(sum(n_games), 0) FROM game_blocks").fetchone()[0])
    finally:
        con.close()


def test_init_on_a_full_disk(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    run = _run_full(db, 40_000, "init")
    _one_line_disk_full(run)
    assert run.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) in ([], ["m.db"])
    _menace(db, "init")  # what is left is an empty database, not a damaged one
    _menace(db, "check")


def test_tournament_on_a_full_disk(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    _menace(db, "init")
    # Room for the first writes (a write holds up to a second of games, the first ones an eighth), not
    # for the 2,000,000 games (some 7 MB).
    run = _run_full(db, db.stat().st_size + 1_000_000, "tournament", "--vs", "random", "-n", "2000000", "--seed", "1")
    _one_line_disk_full(run)
    assert "games against" not in run.stdout  # no summary of games that were not all stored
    stored = _stored_games(db)
    assert 0 < stored < 2_000_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.db"]
    _menace(db, "check")
    _menace(db, "tournament", "-n", "1")  # and with room, it goes on
    assert _stored_games(db) == stored + 1


def test_import_on_a_full_disk(tmp_path: Path) -> None:
    source = tmp_path / "source.db"
    _menace(source, "init")
    _menace(source, "tournament", "--vs", "random", "-n", "60000", "--seed", "2")
    machine_file = tmp_path / "menace.json"
    _menace(source, "export", str(machine_file))
    db = tmp_path / "m.db"
    _menace(db, "-m", "other", "init")
    run = _run_full(db, db.stat().st_size + 50_000, "import", str(machine_file))
    _one_line_disk_full(run)
    assert "Imported" not in run.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.db", "menace.json", "source.db"]
    assert "menace" not in _menace(db, "machines").split()  # nothing of it stored
    _menace(db, "check", "--all")
    _menace(db, "import", str(machine_file))  # and with room, it goes in
    _menace(db, "check", "--all")
