"""Migrations from every state a downgrade or an older version of menace can leave.

For every revision: a database is downgraded to it, then changed as an older menace at that
revision would change it (a machine replaced, as ``init --replace`` did, then trained: its rows
take the ids the old machine's rows had), and ``menace upgrade`` must finish, ``menace check``
must say OK, and the replaced machine must be exactly the new one (nothing of the deleted one put
back from what the downgrade kept aside).
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from menace.cli import cli
from menace.storage.database import SCHEMA_REVISIONS, downgrade, make_engine

# Child tables of a machine, parents first: what an older version wrote for a machine.
MACHINE_TABLES = ("machines", "boxes", "beads", "runs", "game_blocks", "corrections")


def _menace(db: Path, *args: str, code: int = 0) -> str:
    result = CliRunner().invoke(cli, ["--db", str(db), *args])
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result.output


def _build(db: Path, seed: int, correct: bool) -> None:
    # 'b' first, so that 'menace' holds the highest ids: a replaced 'menace' gets the same ids back.
    _menace(db, "-m", "her", "init", "--game", "hexapawn")  # Gardner's rule: 'last' scope
    _menace(db, "-m", "her", "tournament", "--vs", "perfect", "-n", "30", "--seed", str(seed))
    _menace(db, "-m", "b", "init")
    _menace(db, "-m", "menace", "init")
    _menace(db, "-m", "menace", "tournament", "--vs", "random", "-n", "40", "--seed", str(seed))
    if correct:
        _menace(db, "-m", "menace", "reconcile", "1", "--count", "W=7", "--count", "K=2", "--count", "G=5")
        _menace(db, "-m", "menace", "tournament", "--vs", "random", "-n", "10", "--seed", str(seed + 1))
        # Runs played without learning (0007), which no older version writes: only in the database
        # downgraded, whose marks must come back exactly, and never onto a replaced machine's runs.
        _menace(db, "-m", "her", "tournament", "--vs", "random", "-n", "12", "--seed", str(seed), "--frozen")
        _menace(db, "-m", "menace", "tournament", "--vs", "random", "-n", "15", "--seed", str(seed), "--frozen")
        _menace(db, "-m", "menace", "tournament", "--vs", "smart", "-n", "5", "--seed", str(seed + 2))
    _menace(db, "check", "--all")  # the verified checksums (0005) are set


@pytest.fixture(scope="module")
def databases(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The database to downgrade, and the rows an older menace would write for the new machine."""
    where = tmp_path_factory.mktemp("migrations")
    old, new = where / "old.db", where / "new.db"
    _build(old, seed=1, correct=True)
    _build(new, seed=2, correct=False)
    return old, new


@pytest.fixture(scope="module")
def exported(databases: tuple[Path, Path]) -> dict[tuple[Path, str], str]:
    """(database, machine) -> the machine's file, exported once from the databases as built (the tests
    change only copies of them): what every test compares its round trip with."""
    old, new = databases
    return {(db, name): _export(db, name) for db in (old, new) for name in ("her", "b", "menace")}


def _replace_machine(db: Path, template: Path | None, name: str) -> None:
    """What an older ``init --replace`` and a tournament do: delete the machine (foreign keys on,
    so its rows cascade away), then write the new machine's rows in the columns this schema has
    (``template`` None: only delete it)."""
    con = sqlite3.connect(db)
    try:
        con.execute("PRAGMA foreign_keys = ON")
        if template is None:
            con.execute("DELETE FROM main.machines WHERE name = ?", (name,))
            con.commit()
            return
        con.execute("ATTACH DATABASE ? AS t", (str(template),))
        tables = {row[0] for row in con.execute("SELECT name FROM main.sqlite_master WHERE type = 'table'")}
        (machine_id,) = con.execute("SELECT id FROM t.machines WHERE name = ?", (name,)).fetchone()
        assert con.execute("SELECT id FROM main.machines WHERE name = ?", (name,)).fetchone() == (machine_id,)
        con.execute("DELETE FROM main.machines WHERE name = ?", (name,))
        for table in MACHINE_TABLES:
            if table not in tables:
                continue
            cols = ", ".join(_main_columns(con, table))
            where = "id = ?" if table == "machines" else \
                "box_id IN (SELECT id FROM t.boxes WHERE machine_id = ?)" if table == "beads" else "machine_id = ?"
            con.execute(f"INSERT INTO main.{table} ({cols}) SELECT {cols} FROM t.{table} WHERE {where}",
                        (machine_id,))
        con.commit()
        con.execute("DETACH DATABASE t")
    finally:
        con.close()


def _main_columns(con: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in con.execute(f"PRAGMA main.table_info({table})")]


def _export(db: Path, name: str) -> str:
    return _menace(db, "-m", name, "export", "-")


@pytest.mark.parametrize("replaced", [True, False], ids=["replaced", "deleted"])
@pytest.mark.parametrize("revision", ["base", *SCHEMA_REVISIONS[:-1]])
def test_upgrade_finishes_from_every_revision_after_an_older_version_wrote(
        databases: tuple[Path, Path], exported: dict[tuple[Path, str], str], tmp_path: Path, revision: str,
        replaced: bool) -> None:
    if revision == "base" and not replaced:
        pytest.skip("at base no table is left for an older version to write in")
    old, new = databases
    db = tmp_path / "m.db"
    shutil.copy(old, db)
    before = {name: exported[old, name] for name in ("her", "b")}  # as a copy of old exports them
    engine = make_engine(f"sqlite:///{db}")
    downgrade(engine, revision)
    engine.dispose()
    if revision != "base":  # at base no table is left for an older version to write in
        _replace_machine(db, new if replaced else None, "menace")
    out = _menace(db, "stats", code=1)
    assert "run 'menace --db " in out and " upgrade' (it backs the file up first)" in out
    out = _menace(db, "upgrade")
    assert f"from schema {revision} to {SCHEMA_REVISIONS[-1]}" in out
    if replaced and revision != "base":  # the new machine's blocks were never verified: no old checksum on them
        con = sqlite3.connect(db)
        try:
            assert con.execute("SELECT count(*) FROM game_blocks JOIN machines m ON m.id = machine_id "
                               "WHERE m.name = 'menace' AND digest IS NOT NULL").fetchone() == (0,)
        finally:
            con.close()
    _menace(db, "check", "--all")
    assert {name: _export(db, name) for name in ("her", "b")} == before  # kept through the round trip
    if not replaced:
        assert "no machine" in _menace(db, "-m", "menace", "stats", code=1)
        _menace(db, "-m", "menace", "init")
    else:
        expected = old if revision == "base" else new
        assert _export(db, "menace") == exported[expected, "menace"]
    _menace(db, "-m", "menace", "tournament", "-n", "20")  # and it goes on as usual
    _menace(db, "check", "--all")


def test_a_file_with_only_an_empty_version_table_is_empty(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    _menace(db, "init")
    engine = make_engine(f"sqlite:///{db}")
    downgrade(engine, "base")  # nothing to keep aside: the archive is not even made
    engine.dispose()
    con = sqlite3.connect(db)
    try:
        con.execute("DROP TABLE IF EXISTS menace_archive")
        con.commit()
    finally:
        con.close()
    assert "holds no machine yet" in _menace(db, "stats", code=1)
    _menace(db, "init")
    _menace(db, "check")


FIXTURES = Path(__file__).parent / "fixtures"


def test_an_upgrade_after_the_older_release_undid_and_played_keeps_every_bead(tmp_path: Path) -> None:
    """The previous release (schema 0004), after a downgrade, undid 15,000 games and played 20,000
    new ones (``fixtures/make_older_release_db.py`` writes the file again): its new blocks took the ids
    of the blocks it removed. The checkpoints and checksums kept aside by the downgrade belong to
    the removed blocks and must not land on the new ones."""
    db = tmp_path / "m.db"
    db.write_bytes(gzip.decompress((FIXTURES / "older-release.db.gz").read_bytes()))
    expected = json.loads((FIXTURES / "older-release-beads.json").read_text())
    assert re.search(r"run 'menace .*upgrade'", _menace(db, "stats", code=1))
    _menace(db, "upgrade")
    assert "OK" in _menace(db, "check")
    assert "OK" in _menace(db, "check", "--full")
    assert _beads(db) == expected
    _menace(db, "undo", "-n", "15000")  # back across the older release's games, from a checkpoint
    assert "OK" in _menace(db, "check", "--full")
    _menace(db, "tournament", "--vs", "random", "-n", "3000", "--seed", "3")
    assert "OK" in _menace(db, "check", "--full")


def _beads(db: Path) -> dict[str, dict[str, int]]:
    export, _ = json.JSONDecoder().raw_decode(_menace(db, "export", "-"))  # then the line on stderr
    return {str(b["number"]): {sq: v["count"] for sq, v in b["beads"].items()} for b in export["boxes"]}


def test_values_kept_aside_without_fingerprints_are_put_back_only_where_they_surely_belong(tmp_path: Path) -> None:
    """A downgrade by a version that kept no fingerprints: only summaries (which no older menace writes)
    get their flag and checkpoint back; other checkpoints and checksums are made again by check."""
    db = tmp_path / "m.db"
    _menace(db, "init")
    _menace(db, "tournament", "--vs", "random", "-n", "21000", "--seed", "4")
    _menace(db, "check")
    engine = make_engine(f"sqlite:///{db}")
    downgrade(engine, "0004")
    engine.dispose()
    con = sqlite3.connect(db)
    try:
        (rows,) = con.execute("SELECT rows FROM menace_archive WHERE table_name = 'game_blocks:0005'").fetchone()
        kept = json.loads(rows)
        assert kept and all("fingerprint" in row for row in kept)
        con.execute("UPDATE menace_archive SET rows = ? WHERE table_name = 'game_blocks:0005'",
                    (json.dumps([{k: v for k, v in row.items() if k != "fingerprint"} for row in kept]),))
        con.commit()
    finally:
        con.close()
    _menace(db, "upgrade")
    assert "OK" in _menace(db, "check", "--full")
    _menace(db, "undo", "-n", "5000")
    assert "OK" in _menace(db, "check", "--full")


def test_frozen_marks_kept_aside_never_land_on_a_run_an_older_menace_made_meanwhile(tmp_path: Path) -> None:
    """Runs played without learning (0007): a downgrade keeps their marks aside. An older menace then
    undid the frozen run's games and started a run that took its id: the mark must not land on it
    (its games were learnt from). Without that, going down and up again gives back every mark."""
    db = tmp_path / "m.db"
    _menace(db, "init")
    _menace(db, "tournament", "--vs", "random", "-n", "30", "--seed", "1")
    _menace(db, "tournament", "--vs", "random", "-n", "20", "--seed", "2", "--frozen")
    before = _menace(db, "export", "-")
    engine = make_engine(f"sqlite:///{db}")
    downgrade(engine, "0006")
    engine.dispose()
    _menace(db, "upgrade")
    assert _menace(db, "export", "-") == before  # the mark came back
    engine = make_engine(f"sqlite:///{db}")
    downgrade(engine, "0006")
    engine.dispose()
    con = sqlite3.connect(db)
    try:
        con.execute("PRAGMA foreign_keys = ON")
        (run_id, machine_id) = con.execute("SELECT id, machine_id FROM runs ORDER BY id DESC LIMIT 1").fetchone()
        con.execute("DELETE FROM game_blocks WHERE run_id = ?", (run_id,))  # what an older undo does
        con.execute("DELETE FROM runs WHERE id = ?", (run_id,))
        con.execute("INSERT INTO runs (id, machine_id, kind, opponent, seed, started_at) "
                    "VALUES (?, ?, 'tournament', 'random', 9, '2030-01-01 00:00:00.000000')", (run_id, machine_id))
        con.commit()
    finally:
        con.close()
    _menace(db, "upgrade")
    con = sqlite3.connect(db)
    try:
        assert con.execute("SELECT frozen FROM runs WHERE id = ?", (run_id,)).fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM sqlite_master WHERE name = 'menace_archive'").fetchone() == (0,)
    finally:
        con.close()
