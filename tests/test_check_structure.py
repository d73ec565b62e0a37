"""Plain ``menace check`` (which trusts the games an earlier check verified, by their checksum) still
sees every structural fault: only the replay of verified games may be skipped, never a look at the
rows. Each scenario damages a copy of a database that a check has verified, and both the plain and
the full check must name the fault."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from menace.cli import cli

FIRST_BLOCK = "(SELECT min(id) FROM game_blocks)"
MENACE = "(SELECT id FROM machines WHERE name = 'menace')"
OTHER_BOX = "(SELECT min(b.id) FROM boxes b JOIN machines m ON m.id = b.machine_id WHERE m.name = 'other')"

SCENARIOS: dict[str, tuple[list[str], str]] = {
    # name: (SQL that damages the file, words check must say)
    "a block's kept flag flipped": ([f"UPDATE game_blocks SET kept = 0 WHERE id = {FIRST_BLOCK}"],
                                    "is a summary with games"),
    "a summary's flag flipped to kept": ([f"UPDATE game_blocks SET kept = 1, data = x'' WHERE id = {FIRST_BLOCK}"],
                                         "block from game 1"),
    "a correction pointing at another machine's box": ([f"UPDATE corrections SET box_id = {OTHER_BOX}"],
                                                       "another machine's box"),
    "two rows in alembic_version": (["INSERT INTO alembic_version VALUES ('0004')"], "alembic_version"),
    "garbage colours": ([f"UPDATE machines SET colours = 'garbage' WHERE id = {MENACE}"], "colours"),
    "a rule-breaking machine name": (["UPDATE machines SET name = 'no good/name' WHERE name = 'other'"],
                                     "not a machine name"),
    "orphan beads": (["INSERT INTO beads (box_id, move, count, initial) VALUES (99999, 0, 3, 3)"],
                     "box that does not exist"),
    "an orphan block": (["INSERT INTO game_blocks (machine_id, run_id, first_game, n_games, wins, draws, losses, "
                         "data, kept) VALUES (999, 999, 1, 0, 0, 0, 0, x'', 1)"], "machine that does not exist"),
    "a garbage archive table": (["CREATE TABLE menace_archive (junk TEXT)", "INSERT INTO menace_archive VALUES ('x')"],
                                "menace_archive"),
}


def _menace(db: Path, *args: str) -> tuple[int, str]:
    r = CliRunner().invoke(cli, ["--db", str(db), *args])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output
    return r.exit_code, r.output


@pytest.fixture(scope="module")
def verified(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("verified") / "menace.db"
    for args in (["-m", "other", "init"], ["init"], ["tournament", "--vs", "random", "-n", "21000", "--seed", "1"],
                 ["reconcile", "1", "--count", "W=7", "--count", "K=2", "--count", "G=5"],
                 ["tournament", "--vs", "random", "-n", "40", "--seed", "2"],
                 ["check", "--all"]):
        code, out = _menace(db, *args)
        assert code == 0, out
    con = sqlite3.connect(db)
    try:  # the check verified the history, so that the next plain check trusts it by its checksum
        assert con.execute("SELECT count(*) FROM game_blocks WHERE digest IS NOT NULL").fetchone()[0] > 0
    finally:
        con.close()
    return db


@pytest.mark.parametrize("full", [False, True], ids=["plain", "full"])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_check_sees_every_structural_fault(verified: Path, tmp_path: Path, scenario: str, full: bool) -> None:
    db = tmp_path / "m.db"
    shutil.copyfile(verified, db)
    statements, words = SCENARIOS[scenario]
    con = sqlite3.connect(db)
    try:
        for statement in statements:
            con.execute(statement)
        con.commit()
    finally:
        con.close()
    code, out = _menace(db, "check", "--all", *(["--full"] if full else []))
    assert code == 1, out
    assert words in out, out


def test_the_verified_database_checks(verified: Path) -> None:
    code, out = _menace(verified, "check", "--all")
    assert code == 0, out
