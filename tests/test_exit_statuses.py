"""The table of exit statuses (docs/reference/exit-statuses.md), one case (or more) per row, and the table itself."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Invoke, catches, invoker, query, wait_until

from menace.cli import common

TABLE_PAGE = (Path(__file__).resolve().parents[1] / "docs" / "reference" / "exit-statuses.md").read_text()


def test_the_documented_table_names_every_status() -> None:
    table = TABLE_PAGE[TABLE_PAGE.index("| status | meaning |"):]
    rows = re.findall(r"^\| (\d+) \|", table, re.M)
    assert rows == ["0", "1", "2", "3", "130", "143"]
    assert [common.EXIT_ERROR, common.EXIT_USAGE, common.EXIT_STOPPED_EARLY, common.EXIT_SIGINT,
            common.EXIT_SIGTERM] == [1, 2, 3, 130, 143]


def test_0_done(menace: Invoke) -> None:
    menace("init")
    assert menace("tournament", "-n", "5").exit_code == 0


@pytest.mark.parametrize("args", [
    ["-m", "nobody", "stats"],                                   # a library error
    ["export", "/nonexistent/dir/out.json"],                     # a file that cannot be written
    ["plot", "boxes", "-o", "/nonexistent/dir/wall.png"],
    ["--db", "/nonexistent/dir/x.db", "stats"],                  # a database that cannot be opened
    ["play"],                                                    # end of input at a prompt
])
def test_1_error(menace: Invoke, args: list[str]) -> None:
    menace("init")
    result = menace(*args, ok=False, input="")
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output


def test_1_a_check_that_finds_a_fault(menace: Invoke, db_url: str) -> None:
    menace("init")
    query(db_url, "UPDATE beads SET count = count + 1 WHERE box_id = (SELECT min(id) FROM boxes)")
    assert menace("check", ok=False).exit_code == 1


@pytest.mark.parametrize("args", [
    ["tournament", "--bogus"],                                   # an unknown option
    ["tournament", "-n", "0"],                                   # a bad value
    ["init", "-m", "short", "--beads", "4,3,2"],                 # a schedule that does not fit the machine
    ["init", "-m", "long", "--beads", "8,4,2,1,1"],
    ["play", "--first", "me"],                                   # a machine that only moves first
])
def test_2_usage(menace: Invoke, args: list[str]) -> None:
    menace("init")
    result = menace(*args, ok=False)
    assert result.exit_code == 2, result.output
    assert "Error" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("opponent", ["nobody", "smart", "posswin:magic"])
def test_2_an_opponent_that_cannot_play_this_machine(menace: Invoke, opponent: str) -> None:
    """An unknown opponent and one that does not play the machine's game are the same condition."""
    menace("-m", "her", "init", "--game", "hexapawn")
    result = menace("-m", "her", "tournament", "--vs", opponent, "-n", "5", ok=False)
    assert result.exit_code == 2, result.output
    assert "'--vs'" in result.output and "Traceback" not in result.output


def test_3_a_tournament_that_stops_early(menace: Invoke) -> None:
    menace("init", "--preset", "michie-1961")
    result = menace("tournament", "--vs", "smart", "-n", "2000", "--seed", "3", ok=False)
    assert result.exit_code == 3 and "Stopped early" in result.output


def test_3_a_tournament_that_cannot_begin_for_the_same_reason(menace: Invoke) -> None:
    """An opening box already empty under resign is the condition a run meets when it empties."""
    menace("init", "--preset", "michie-1961")
    menace("reconcile", "1", "--count", "W=0", "--count", "K=0", "--count", "G=0")
    result = menace("tournament", "--vs", "smart", "-n", "20", ok=False)
    assert result.exit_code == 3, result.output
    assert "the opening box (box 1) of 'menace' is empty" in result.output


def _interactive(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "MENACE_DB": str(tmp_path / "sig.db")}
    invoker(str(tmp_path / "sig.db"))("init")  # in this process: the signal is sent to the command below
    return subprocess.Popen([sys.executable, "-m", "menace", *args], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _leases(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT count(*) FROM machine_locks").fetchone()[0])
    finally:
        con.close()


def _output_so_far(proc: subprocess.Popen[str], seen: list[str]) -> str:
    assert proc.stdout is not None
    try:
        seen.append(os.read(proc.stdout.fileno(), 65536).decode())
    except BlockingIOError:
        pass
    return "".join(seen)


@pytest.mark.parametrize(("args", "prompt"), [(("play",), "Your move"),
                                              (("puzzle", "magic", "--no-instructions"), "Which key?")])
def test_130_ctrl_c_at_a_prompt(tmp_path: Path, args: tuple[str, ...], prompt: str) -> None:
    proc = _interactive(tmp_path, *args)
    assert proc.stdout is not None
    os.set_blocking(proc.stdout.fileno(), False)
    seen: list[str] = []
    wait_until(lambda: prompt in _output_so_far(proc, seen), f"the prompt {prompt!r}")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err


def test_143_sigterm(tmp_path: Path) -> None:
    proc = _interactive(tmp_path, "tournament", "--vs", "random", "--for", "60s")
    # Start-up catches SIGTERM too (one line, status 143) and lets go as the command begins: once the
    # tournament holds the machine, a handler of SIGTERM is the tournament's.
    wait_until(lambda: _leases(tmp_path / "sig.db") == 1 and catches(proc.pid, signal.SIGTERM),
               "the tournament's signal handler")
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert "Stopped by SIGTERM" in out


@pytest.mark.parametrize("args", [["import", "--replace", "a\x00b"], ["export", "a\x00b"],
                                  ["-m", "a\x00b", "stats"], ["plot", "learning", "-o", "a\x00b.png"]])
def test_an_argument_with_a_nul_is_a_usage_error(tmp_path: Path, args: list[str]) -> None:
    """argv from a shell cannot hold a NUL, but a program's can: one line and status 2, no ValueError."""
    from click.testing import CliRunner

    from menace.cli import cli

    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "x.db"), *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2, result.output
    assert "NUL" in result.output and "Traceback" not in result.output
