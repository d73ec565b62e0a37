from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from alembic import command
from conftest import owner, query
from sqlalchemy import insert, inspect, select, text, update

from menace.app.machines import init_machine, open_machine
from menace.app.tournament import run_tournament
from menace.core.settings import MICHIE, Settings
from menace.storage.database import (
    DatabaseDamagedError,
    StorageError,
    alembic_config,
    downgrade,
    make_engine,
    open_database,
    sqlite_path,
    upgrade,
)

ROWS = ("SELECT (SELECT version_num FROM alembic_version), (SELECT count(*) FROM beads), "
        "(SELECT sum(count) FROM beads), (SELECT count(*) FROM machine_locks)")


def test_fresh_database_matches_the_models(db_url: str) -> None:
    db = open_database(db_url, create=True)
    with db.begin() as conn:
        command.check(alembic_config(conn))  # raises if models and migrations drift apart
    db.dispose()


def test_sqlite_connection_settings(sqlite_url: str) -> None:
    # SQLite only: PRAGMAs are how SQLite is set up; PostgreSQL needs none of them.
    db = open_database(sqlite_url, create=True)
    with db.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert conn.execute(text("PRAGMA busy_timeout")).scalar() > 0
    db.dispose()


def test_reopened_database_shows_the_same_beads(db_url: str) -> None:
    init_machine(owner(db_url), "menace", MICHIE, "michie")
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "random", games=500, seed=3)
        after = m.learner.snapshot()
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        assert m.learner.snapshot() == after
        assert m.games_played == 500


def test_several_machines_in_one_database(db_url: str) -> None:
    init_machine(owner(db_url), "first", MICHIE, "michie")
    init_machine(owner(db_url), "second", Settings(side="O"), None)
    with open_machine(owner(db_url), "second", holder="a test") as m:
        assert len(m.stored.boxes) == 289
    with open_machine(owner(db_url), "first", holder="a test") as m:
        assert len(m.stored.boxes) == 304


def test_not_a_database(tmp_path: Path) -> None:
    bad = tmp_path / "notes.db"
    bad.write_text("shopping: beads, matchboxes\n" * 100)
    before = bad.read_bytes()
    with pytest.raises(DatabaseDamagedError, match="damaged or not a database at all"):
        open_database(f"sqlite:///{bad}")
    assert bad.read_bytes() == before


def test_foreign_sqlite_database_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    with pytest.raises(StorageError, match="not a menace one"):
        open_database(f"sqlite:///{other}", create=True)


def test_missing_folder_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="does not exist"):
        open_database(f"sqlite:///{tmp_path}/nowhere/menace.db", create=True)
    with pytest.raises(StorageError, match="menace init"):
        open_database(f"sqlite:///{tmp_path}/absent.db")


def test_newer_schema_is_refused_and_untouched(db_url: str) -> None:
    init_machine(owner(db_url), "menace", MICHIE, "michie")
    query(db_url, "UPDATE alembic_version SET version_num = 'ffff_from_the_future'")
    path = sqlite_path(db_url)
    before = (path.read_bytes() if path else b"", query(db_url, ROWS))
    with pytest.raises(StorageError, match="newer menace"):
        open_database(db_url)
    assert (path.read_bytes() if path else b"", query(db_url, ROWS)) == before  # a file: not a byte changed


def test_down_to_base_and_up_to_head_keeps_every_row(db_url: str, tmp_path: Path) -> None:
    from menace.app.machines import open_machine as open_
    from menace.app.transfer import export_machine

    init_machine(owner(db_url), "menace", MICHIE, "michie")
    init_machine(owner(db_url), "second", Settings(side="O"), None)
    with open_(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "smart", games=300, seed=1)
        m.correct(0, {0: 7, 1: 2, 4: 9}, "test recount")
        run_tournament(m, "random", games=200, seed=2)
        run_tournament(m, "random", games=50, seed=3, frozen=True)  # its mark is kept aside too (0007)
    before = {name: export_machine(owner(db_url), name) for name in ("menace", "second")}
    assert before["menace"]["version"] == 3
    db = make_engine(db_url)
    downgrade(db, "base")
    with db.connect() as conn:
        tables = set(inspect(conn).get_table_names())
    assert tables <= {"alembic_version", "menace_archive"}  # the schema is gone; the rows wait
    upgrade(db)
    with db.begin() as conn:
        assert "menace_archive" not in inspect(conn).get_table_names()
        command.check(alembic_config(conn))
    db.dispose()
    after = {name: export_machine(owner(db_url), name) for name in ("menace", "second")}
    assert after == before
    from menace.app.check import check_database

    assert check_database(owner(db_url), "menace").ok
    # rows put back keep their ids: new rows of every table still get ids of their own
    init_machine(owner(db_url), "third", MICHIE, None)
    with open_(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "random", games=100, seed=3)
        m.correct(0, {0: 5}, "another recount")
    assert check_database(owner(db_url)).ok


def test_upgrade_command_backs_up_first(tmp_path: Path, db_url: str, db_path: Path) -> None:
    init_machine(owner(db_url), "menace", MICHIE, "michie")
    before, after, backup = owner(db_url).upgrade()
    assert backup is None and before == after  # already current: nothing to do
    engine = make_engine(db_url)
    upgrade(engine)
    engine.dispose()


def test_known_revisions_match_the_migration_scripts() -> None:
    from alembic.script import ScriptDirectory

    from menace.storage.database import SCHEMA_REVISIONS

    script = ScriptDirectory.from_config(alembic_config())
    walked = [rev.revision for rev in script.walk_revisions()]
    assert tuple(reversed(walked)) == SCHEMA_REVISIONS
    assert script.get_current_head() == SCHEMA_REVISIONS[-1]


def test_counters_past_two_to_the_31(db_url: str) -> None:
    """Bead counts, game numbers, tallies and seeds are 64-bit: a long night of training (or a
    big seed) must not overflow a 32-bit column, which PostgreSQL would refuse."""
    from menace.storage import repository as repo
    from menace.storage.database import session_scope
    from menace.storage.models import bead_table, block_table, box_table, correction_table, run_table

    big = 2**31 + 12_345
    init_machine(owner(db_url), "menace", MICHIE, None)
    engine = open_database(db_url)
    try:
        with session_scope(engine, write=True) as s:
            mid = repo.machine_id(s, "menace")
            box, bead = box_table.c, bead_table.c
            box_id = s.scalar(select(box.id).where(box.machine_id == mid, box.number == 1))
            run_id = repo.start_run(s, mid, "tournament", "random", 2**63 - 1)
            s.execute(insert(block_table).values(machine_id=mid, run_id=run_id, first_game=big, n_games=big,
                                                 wins=big, draws=big, losses=big, data=b""))
            s.execute(update(bead_table).where(bead.box_id == box_id, bead.move == 0)
                      .values(count=big, initial=big))
            repo.add_corrections(s, mid, big, [(box_id, 4, big)], "a big recount")
        with session_scope(engine) as s:
            assert repo.games_played(s, mid) == 2 * big - 1
            assert repo.totals(s, mid) == (big, big, big)
            assert s.scalar(select(bead.count).where(bead.box_id == box_id, bead.move == 0)) == big
            assert s.scalar(select(bead.count).where(bead.box_id == box_id, bead.move == 4)) == big
            assert s.scalar(select(correction_table.c.after_game)) == big
            assert s.scalar(select(run_table.c.seed).where(run_table.c.id == run_id)) == 2**63 - 1
    finally:
        engine.dispose()


def test_bead_counts_with_no_row_are_damage_and_roll_back(db_url: str) -> None:
    """Bead counts are written by primary key in one statement; a row gone since the machine was read
    is refused as damage (no count is silently lost) and the block of games goes with it."""
    init_machine(owner(db_url), "menace", MICHIE, None)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        query(db_url, "DELETE FROM beads WHERE box_id = :b", b=m.stored.box_ids[0])  # the opening box
        with pytest.raises(DatabaseDamagedError, match="bead counts to write have no row"):
            run_tournament(m, "random", games=5, seed=1)
    assert query(db_url, "SELECT count(*) FROM game_blocks") == [(0,)]
