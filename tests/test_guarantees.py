"""Nothing lost: kills, signals, two writers, and bad input never damage a database."""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import owner, query, stored_games, wait_until
from forked_menace import MenaceForks
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine, text

from menace.app.check import check_database
from menace.app.machines import init_machine, open_machine
from menace.cli import cli
from menace.core.settings import MICHIE
from menace.storage.database import downgrade, make_engine
from menace.storage.leases import MachineBusyError


def init_here(url: str, *args: str) -> None:
    """``menace init`` in this process: a test's setup, not what it tests, needs no process of its own."""
    result = CliRunner().invoke(cli, ["--db", url, "init", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output


KILLS = 10
"""How many times the crash test kills a running tournament (docs/explanation/guarantees.md says so)."""


class Watch:
    """Looks at a test's database while it waits on another process, through one engine: ``query``
    makes an engine (and on PostgreSQL a connection, a server process) for each look, fifty a second."""

    def __init__(self, url: str) -> None:
        self.engine = create_engine(url)

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        with self.engine.begin() as conn:
            return [tuple(r) for r in conn.execute(text(sql))]

    def games(self) -> int:
        """The games stored (as ``conftest.stored_games`` counts them)."""
        return int(self.rows("SELECT coalesce(sum(n_games), 0) FROM game_blocks")[0][0])

    def first_block_stored(self) -> bool:
        """Ready when the tournament has stored its first block: its signal handlers are in place."""
        return self.games() > 0


@pytest.fixture
def watch(db_url: str) -> Iterator[Watch]:
    looks = Watch(db_url)
    yield looks
    looks.engine.dispose()  # before the database is given back (PostgreSQL drops or empties it)


@pytest.mark.slow
def test_sigkill_at_random_moments_never_leaves_an_inconsistent_database(db_url: str, watch: Watch,
                                                                         forks: MenaceForks) -> None:
    # Ten kills at random moments in the first half second (the lock held before the first game,
    # play, and the writes: against `perfect`, tabulated like random, some 300,000 games a second,
    # a block of 20,000 games is written every few hundredths of a second), each followed by the
    # full `menace check`, which starts from the checkpoints and stays quick; a restocking machine
    # never stops on an empty opening box. (Each tournament is a process of its own, forked: the
    # random moment counts from its lock, after its imports, so where they were made does not matter.)
    init_here(db_url, "--empty-box", "restock")
    rng = random.Random(2026)
    kills = 0
    previous = 0
    for round_ in range(KILLS):
        proc = forks.popen("tournament", "--vs", "perfect", "--for", "60s", "--seed", str(round_), url=db_url)
        # the random moment counts from when the tournament holds the machine, however slow the start-up
        wait_until(lambda p=proc: p.poll() is not None  # type: ignore[misc]
                   or watch.rows("SELECT pid FROM machine_locks") == [(p.pid,)], "the tournament's lock")
        time.sleep(rng.uniform(0.0, 0.5))  # the random moment itself, not a wait for readiness
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        kills += 1
        report = check_database(owner(db_url))
        assert report.ok, report.faults
        games = watch.games()
        assert games >= previous  # every game saved before the kill is still there
        previous = games
    assert kills == KILLS
    # ...and the next tournament goes on from there (taking over the lock a killed one may hold)
    done = forks.run("tournament", "--vs", "smart", "-n", "500", "--seed", "1", url=db_url)
    assert done.returncode == 0, done.stderr
    assert stored_games(db_url) == previous + 500
    assert check_database(owner(db_url)).ok


def test_a_killed_holders_lock_is_taken_over(db_url: str, watch: Watch, forks: MenaceForks) -> None:
    init_here(db_url)
    proc = forks.popen("tournament", "--vs", "perfect", "--for", "60s", url=db_url)
    wait_until(watch.first_block_stored, "the tournament's first stored block")
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert query(db_url, "SELECT pid FROM machine_locks") == [(proc.pid,)]  # the dead holder's lock is left
    games = stored_games(db_url)
    again = forks.run("tournament", "--vs", "smart", "-n", "100", url=db_url)
    assert again.returncode == 0, again.stderr
    assert stored_games(db_url) == games + 100
    assert query(db_url, "SELECT count(*) FROM machine_locks") == [(0,)]
    assert check_database(owner(db_url)).ok


def test_sigterm_stops_after_the_current_game_and_saves(db_url: str, watch: Watch, forks: MenaceForks) -> None:
    init_here(db_url)
    proc = forks.popen("tournament", "--vs", "random", "--for", "60s", url=db_url)
    wait_until(watch.first_block_stored, "the tournament's first stored block")
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert "Stopped by SIGTERM" in out
    games = int(out.split("has played ")[1].split(" games")[0].replace(",", ""))
    assert stored_games(db_url) == games > 0
    assert check_database(owner(db_url)).ok


def test_a_second_writer_is_refused_naming_the_first(db_url: str, watch: Watch, forks: MenaceForks) -> None:
    init_here(db_url)
    # (perfect is tabulated like random: a few hundred thousand games a second, which the check
    # below verifies from the checkpoints the tournament writes)
    # (it runs until the test stops it: a limit of its own ran out before the last check on a busy
    # machine, and the player was let in)
    first = forks.popen("tournament", "--vs", "perfect", "--for", "1h", url=db_url)
    try:
        wait_until(watch.first_block_stored, "the first tournament's first stored block")
        second = forks.run("tournament", "--vs", "smart", "-n", "100", url=db_url, timeout=30)
        assert second.returncode == 1
        assert "is in use by a tournament against perfect (menace tournament)" in second.stderr
        assert f"pid {first.pid}" in second.stderr
        assert "Traceback" not in second.stderr
        player = forks.run("play", url=db_url, input="5\n", timeout=30)
        assert player.returncode == 1 and "is in use by" in player.stderr
    finally:
        first.send_signal(signal.SIGINT)
        out, _ = first.communicate(timeout=30)
    assert first.returncode == 130
    report = check_database(owner(db_url))
    assert report.ok, report.faults
    # once the first has finished, the machine is free again
    again = forks.run("tournament", "--vs", "smart", "-n", "100", url=db_url)
    assert again.returncode == 0, again.stderr


def test_several_processes_train_different_machines_at_once(db_url: str, forks: MenaceForks) -> None:
    """Four tournaments on four machines of one database at once: each keeps every game."""
    names = [f"m{i}" for i in range(4)]
    for name in names:
        init_here(db_url, "-m", name)
    games = 30_000
    procs = [forks.popen("-m", name, "tournament", "--vs", "random", "-n", str(games), "--seed", str(i), url=db_url)
             for i, name in enumerate(names)]
    rates = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        rates.append(out.split("games/s")[0].rsplit("(", 1)[1])
    print(f"games/s of each of {len(names)} concurrent tournaments on {db_url.split(':')[0]}: {', '.join(rates)}")
    for name in names:
        assert query(db_url, "SELECT coalesce(sum(g.n_games), 0) FROM game_blocks g JOIN machines m "
                             "ON m.id = g.machine_id WHERE m.name = :n", n=name) == [(games,)]
    check = forks.run("check", "--all", url=db_url)
    assert check.returncode == 0, check.stdout + check.stderr
    assert query(db_url, "SELECT count(*) FROM machine_locks") == [(0,)]


def test_lock_in_process(db_url: str) -> None:
    init_machine(owner(db_url), "menace", MICHIE, "michie")
    with open_machine(owner(db_url), "menace", holder="a test"):
        # the same process may reopen (nested use), another holder on another pid may not
        query(db_url, "UPDATE machine_locks SET pid = 1, host = host")  # pid 1 is alive: init
        with pytest.raises(MachineBusyError, match="in use by a test"):
            with open_machine(owner(db_url), "menace", holder="another"):
                pass


def test_check_names_a_hand_corrupted_box(db_url: str) -> None:
    init_machine(owner(db_url), "menace", MICHIE, "michie")
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        from menace.app.tournament import run_tournament

        run_tournament(m, "smart", games=400, seed=5)
    assert check_database(owner(db_url)).ok
    box_id, move = query(db_url, "SELECT b.id, d.move FROM boxes b JOIN beads d ON d.box_id = b.id "
                                 "WHERE b.number = 42 ORDER BY d.move LIMIT 1")[0]
    query(db_url, "UPDATE beads SET count = count + 2 WHERE box_id = :b AND move = :m", b=box_id, m=move)
    query(db_url, "UPDATE beads SET count = -1 WHERE box_id = (SELECT id FROM boxes WHERE number = 7) "
                  "AND move = (SELECT min(move) FROM beads WHERE box_id = (SELECT id FROM boxes WHERE number = 7))")
    result = CliRunner().invoke(cli, ["--db", db_url, "check"])
    assert result.exit_code == 1
    assert "box 42 beads differ from its history" in result.output
    assert "box 7: -1 beads" in result.output


def runner_result(db_path: Path, *args: str, input: str | None = None) -> tuple[int, str]:
    r = CliRunner().invoke(cli, ["--db", str(db_path), *args], input=input)
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.output


def snapshot(path: Path) -> bytes:
    return path.read_bytes() if path.exists() else b""


def contents(path: Path) -> list[str]:
    """Every row of the database as SQL: the same list means the same data (a lock taken and
    given back may move pages about, but changes no row)."""
    con = sqlite3.connect(path)
    try:
        return list(con.iterdump())
    finally:
        con.close()


def test_bad_inputs_are_one_line_errors_and_change_nothing(tmp_path: Path) -> None:
    db = tmp_path / "menace.db"
    assert runner_result(db, "init")[0] == 0
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    before = contents(db)
    cases = [
        (["stats"], 0, None),
        (["-m", "nobody", "stats"], 1, "no machine named 'nobody'; machines here: menace"),
        (["show", "999"], 1, "no box 999: 'menace' has boxes 1 to 304"),
        (["show", "XXXXXXXXX"], 1, "cannot happen in a game"),
        (["show", "X........"], 1, "no box for 'X........'"),
        (["init", "--beads", "-4,3,2,1"], 2, "every move needs at least 1 bead"),
        (["init", "--beads", "4,3,two"], 2, "not a comma-separated list"),
        (["init", "--reinforce", "3,1"], 2, "needs exactly 3 numbers"),
        (["init"], 1, "exists; rebuild it with --replace"),
        (["tournament", "-n", "0"], 2, "-n"),
        (["tournament", "--vs", "grandmaster"], 2, "unknown opponent 'grandmaster'"),
        (["tournament", "--vs", "random:3"], 2, "random takes no parameter"),
        (["tournament", "--side", "O"], 2, "has no boxes for O"),
        (["tournament", "--seed", "99999999999999999999999"], 2, "--seed"),
        (["init", "--beads", "99999999999,1"], 2, "within 1,000,000 beads"),
        (["reconcile", "1", "--count", "W=99999999999"], 2, "from 0 to 1,000,000"),
        (["-m", "", "stats"], 2, "a machine's name is 1 to 64 letters"),
        (["export", "/nonexistent/folder/x.json"], 1, "does not exist"),  # cannot be written: 1
    ]
    for args, code, message in cases:
        exit_code, output = runner_result(db, *args)
        assert exit_code == code, (args, output)
        if message:
            assert message in output, (args, output)
            assert "Traceback" not in output
            error_lines = [line for line in output.splitlines() if line.startswith(("Error", "FAULT"))]
            assert len(error_lines) == 1, output
    assert contents(db) == before


def test_database_files_that_cannot_be_used(tmp_path: Path) -> None:
    text_file = tmp_path / "notes.db"
    text_file.write_text("not a database\n" * 200)
    code, out = runner_result(text_file, "stats")
    assert code == 1 and "damaged or not a database at all" in out
    assert text_file.read_text() == "not a database\n" * 200
    code, out = runner_result(tmp_path / "no" / "such" / "dir.db", "init")
    assert code == 1 and "does not exist" in out
    code, out = runner_result(tmp_path / "absent.db", "stats")
    assert code == 1 and "create one with: menace --db" in out and "-m menace init" in out
    for url, message in (("foo://bar", "no database of the kind"), ("nosuchdb://u@h/m", "no database of the kind"),
                         ("postgresql://u@h:notaport/m", "is not a database URL or path")):
        r = CliRunner().invoke(cli, ["--db", url, "stats"])
        assert r.exit_code == 1 and message in r.output, r.output
        assert r.exception is None or isinstance(r.exception, SystemExit)


def test_read_only_database(tmp_path: Path) -> None:
    db = tmp_path / "ro.db"
    assert runner_result(db, "init")[0] == 0
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=DELETE")
    con.close()
    before = snapshot(db)
    url = f"sqlite:///file:{db}?mode=ro&uri=true"
    ok = CliRunner().invoke(cli, ["--db", url, "stats"])
    assert ok.exit_code == 0, ok.output
    r = CliRunner().invoke(cli, ["--db", url, "tournament", "-n", "10"])
    assert r.exit_code == 1 and "read-only" in r.output, r.output
    assert "Traceback" not in r.output
    assert snapshot(db) == before


def test_newer_and_older_schemas(tmp_path: Path) -> None:
    newer = tmp_path / "newer.db"
    assert runner_result(newer, "init")[0] == 0
    con = sqlite3.connect(newer)
    con.execute("UPDATE alembic_version SET version_num = '9999'")
    con.commit()
    con.close()
    before = snapshot(newer)
    code, out = runner_result(newer, "stats")
    assert code == 1 and "written by a newer menace" in out
    code, out = runner_result(newer, "tournament", "-n", "5")
    assert code == 1 and snapshot(newer) == before

    older = tmp_path / "older.db"
    assert runner_result(older, "init")[0] == 0
    db = make_engine(f"sqlite:///{older}")
    downgrade(db, "0001")
    db.dispose()
    code, out = runner_result(older, "stats")
    assert code == 1 and "-m menace upgrade' (it backs the file up first)" in out and "run 'menace --db " in out
    code, out = runner_result(older, "upgrade")
    assert code == 0 and "Backed up to" in out and "from schema 0001" in out
    backups = list(tmp_path.glob("older.db.*.bak"))
    assert len(backups) == 1
    assert runner_result(older, "stats")[0] == 0
    assert runner_result(older, "check")[0] == 0


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=12))
def test_random_text_at_the_move_prompt_never_breaks_play(tmp_path_factory: pytest.TempPathFactory,
                                                          text: str) -> None:
    db = prepared_db(tmp_path_factory)
    junk = text.replace("\r", "")
    script = "\n".join([junk, junk, *[str(i) for i in range(1, 10)]] * 2) + "\n"
    r = CliRunner().invoke(cli, ["--db", str(db), "play", "--seed", "3"], input=script)
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code in (0, 1)
    assert "Traceback" not in r.output


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(option=st.sampled_from(["--beads", "--reinforce", "--side", "--empty-box", "--preset"]),
       value=st.text(max_size=10))
def test_random_option_values_are_clean_errors(tmp_path_factory: pytest.TempPathFactory, option: str,
                                               value: str) -> None:
    db = tmp_path_factory.mktemp("opts") / "m.db"
    r = CliRunner().invoke(cli, ["--db", str(db), "-m", "x", "init", option, value])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code in (0, 1, 2)
    if r.exit_code:
        assert "Error" in r.output and "Traceback" not in r.output


_PREPARED: dict[str, Path] = {}


def prepared_db(factory: pytest.TempPathFactory) -> Path:
    if "db" not in _PREPARED:
        path = factory.mktemp("prompt") / "m.db"
        CliRunner().invoke(cli, ["--db", str(path), "init", "--empty-box", "keep-last"])
        _PREPARED["db"] = path
    copy = factory.mktemp("prompt-copy") / "m.db"
    shutil.copy(_PREPARED["db"], copy)
    return copy


@settings(max_examples=80, deadline=None)
@given(st.text(min_size=1, max_size=30).filter(lambda t: "\x00" not in t))
def test_random_database_names_are_clean_errors(text: str) -> None:
    import contextlib
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):
        r = CliRunner().invoke(cli, ["--db", text, "stats"])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code in (1, 2) and "Traceback" not in r.output


def test_a_writer_asking_while_another_takes_the_lock_is_refused(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lock's race made certain: B asks for the machine while A's transaction taking it is still open.

    B must wait for A and then be refused; taking the machine is not a read-then-insert that lets both
    pass (PostgreSQL would then fail B on the lock row's primary key). A plays another process (pid 1).
    """
    import threading

    from menace.storage import repository as repo
    from menace.storage.database import open_database, session_scope
    from menace.storage.leases import acquire as acquire_lease

    init_machine(owner(db_url), "menace", MICHIE, None)
    engine = open_database(db_url)
    real_pid, a_thread = os.getpid(), threading.get_ident()
    monkeypatch.setattr(os, "getpid", lambda: 1 if threading.get_ident() == a_thread else real_pid)
    outcome: list[str] = []

    def b() -> None:
        try:
            with session_scope(engine, write=True) as s:
                acquire_lease(s, repo.machine_id(s, "menace"), "menace", "B")
            outcome.append("took it")
        except MachineBusyError:
            outcome.append("refused")
        except Exception as exc:
            outcome.append(f"{type(exc).__name__}: {exc}")

    try:
        with session_scope(engine, write=True) as s:
            acquire_lease(s, repo.machine_id(s, "menace"), "menace", "A")
            other = threading.Thread(target=b)
            other.start()
            if engine.dialect.name == "postgresql":  # B is waiting on A's transaction
                wait_until(lambda: query(db_url, "SELECT count(*) FROM pg_stat_activity WHERE datname = "
                                                 "current_database() AND wait_event_type = 'Lock'") == [(1,)],
                           "the second writer to wait for the first")
            # (SQLite: B's BEGIN IMMEDIATE waits for A's commit whenever B gets there)
        other.join(timeout=60)
        assert outcome == ["refused"]
    finally:
        engine.dispose()
