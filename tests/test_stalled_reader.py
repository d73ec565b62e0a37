"""A reader that stops reading (``menace export - | sleep 100``) must not hold the database's
snapshot meanwhile: SQLite cannot reset its write-ahead log past a reader's snapshot, so every
tournament write would make the log grow for as long as the reader stalls."""

from __future__ import annotations

import fcntl
import os
import select
import sqlite3
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from menace.cli import cli

F_SETPIPE_SZ = 1031  # Linux's fcntl to size a pipe (not in the fcntl module before Python 3.10 on every build)


def _menace(db: Path, *args: str) -> str:
    r = CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


def test_an_export_into_a_stalled_pipe_holds_no_snapshot(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    _menace(db, "init")
    _menace(db, "tournament", "--vs", "random", "-n", "3000", "--seed", "1", "--keep-all")
    read, write = os.pipe()
    fcntl.fcntl(write, F_SETPIPE_SZ, 4096)  # a small pipe: the export fills it at once
    proc = subprocess.Popen([sys.executable, "-m", "menace", "--db", str(db), "export", "-"], stdout=write,
                            stderr=subprocess.DEVNULL)
    os.close(write)
    try:
        # The export has begun writing (the readiness signal), and nobody reads: it stalls.
        ready, _, _ = select.select([read], [], [], 60)
        assert ready, "the export wrote nothing"
        _menace(db, "tournament", "--vs", "random", "-n", "200", "--seed", "2")  # writes land in the log
        con = sqlite3.connect(db, timeout=0)
        try:
            busy, log, done = con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            con.close()
        assert (busy, log) == (0, 0), "a stalled reader keeps the write-ahead log from being reset"
        assert proc.poll() is None  # still stalled, and yet the log could be reset
    finally:
        proc.kill()
        proc.wait()
        os.close(read)
