"""PostgreSQL going away and coming back, and databases menace cannot use.

A server restarted in the middle of a tournament: the tournament reconnects and goes on, every game
it reports is stored, and nothing is called damaged. A database whose encoding is SQL_ASCII (bytes,
no characters) is refused in one line by every command.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from click.testing import CliRunner
from conftest import owner, query
from servers import PostgresServer, PostgresUnavailable, start_postgres

from menace.app.check import check_database
from menace.app.machines import init_machine, open_machine
from menace.app.tournament import Progress, run_tournament
from menace.cli import cli
from menace.core.settings import MICHIE


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresServer]:
    """A server of this module's own: it is restarted, which the session's server must not be."""
    try:
        own = start_postgres()
    except PostgresUnavailable as exc:
        pytest.skip(str(exc))
    try:
        yield own
    finally:
        own.stop()


def _restart(server: PostgresServer) -> None:
    server._run("pg_ctl", "-D", str(server.data), "-l", str(server.log), "-m", "fast", "-w", "restart")
    assert server._wait_ready(60), server.log_text()


@pytest.mark.slow
def test_a_tournament_goes_on_after_the_server_restarts(server: PostgresServer) -> None:
    url = server.new_database()
    init_machine(owner(url), "menace", MICHIE, "michie")
    restarted: list[int] = []

    def progress(p: Progress) -> None:
        if p.games and not restarted:  # games are stored: now the server goes away and comes back
            restarted.append(p.games)
            _restart(server)

    with open_machine(owner(url), "menace", holder="a tournament") as m:
        result = run_tournament(m, "random", games=60_000, seed=1, progress=progress)
    assert restarted and result.games == 60_000
    assert query(url, "SELECT sum(n_games) FROM game_blocks") == [(60_000,)]
    report = check_database(owner(url))
    assert report.ok, report.faults


def test_a_server_gone_for_good_is_said_in_one_line(server: PostgresServer) -> None:
    url = server.url("no_such_database_here")
    r = CliRunner().invoke(cli, ["--db", url, "stats"])
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert len(r.output.strip().splitlines()) == 1 and "damaged" not in r.output, r.output


def test_a_sql_ascii_database_is_refused_in_one_line(server: PostgresServer) -> None:
    server.sql("CREATE DATABASE ascii_db ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
    url = server.url("ascii_db")
    for command in (["init"], ["stats"], ["check"], ["upgrade"], ["machines"]):
        r = CliRunner().invoke(cli, ["--db", url, *command])
        assert r.exit_code == 1 and "Traceback" not in r.output, (command, r.output)
        lines = r.output.strip().splitlines()
        assert len(lines) == 1 and "SQL_ASCII" in lines[0], (command, r.output)
    import psycopg

    with psycopg.connect(host="127.0.0.1", port=server.port, user="postgres", dbname="ascii_db") as conn:
        # nothing made (read with the driver alone: SQLAlchemy trips over the bytes it hands back)
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone() == (0,)


def test_a_connection_dropped_inside_a_transaction_says_the_server_went_away(server: PostgresServer) -> None:
    from menace.storage.database import ServerGoneError, make_engine, session_scope

    url = server.new_database()
    init_machine(owner(url), "menace", MICHIE, "michie")
    engine = make_engine(url)
    try:
        with pytest.raises(ServerGoneError, match="went away"), session_scope(engine) as s:
            pid = s.exec_driver_sql("SELECT pg_backend_pid()").scalar()
            server.sql(f"SELECT pg_terminate_backend({int(pid)})")  # as a restart does to every session
            s.exec_driver_sql("SELECT count(*) FROM boxes").scalar()
    finally:
        engine.dispose()
