"""The damage matrix: damaged databases (generated scenarios) x every command that reads or
writes a machine. No command shows a traceback, and ``menace check`` names every fault planted.

One small database is built once; each scenario damages a copy, and the commands run in this
process through click's CliRunner, so the whole matrix takes seconds.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from menace.cli import cli

Damage = Callable[[Path], None]


def _sql(*statements: str) -> Damage:
    def damage(db: Path) -> None:
        con = sqlite3.connect(db)
        try:
            con.execute("PRAGMA foreign_keys = OFF")
            for statement in statements:
                con.execute(statement)
            con.commit()
        finally:
            con.close()
    return damage


def _overwrite(offset: int | None, page: int | None = None) -> Damage:
    def damage(db: Path) -> None:
        data = bytearray(db.read_bytes())
        at = offset if offset is not None else (page or 1) * 4096  # a page's b-tree header
        data[at:at + 16] = bytes(range(0xE0, 0xF0))
        db.write_bytes(bytes(data))
    return damage


FIRST_BLOCK = "(SELECT min(id) FROM game_blocks)"
SCENARIOS: dict[str, tuple[Damage, str | None]] = {
    # name: (damage, words check must say; None: check may only refuse the file as damaged)
    "16 bytes over the header": (_overwrite(0), None),
    "16 bytes over the page-size field": (_overwrite(16), None),
    **{f"16 bytes over page {p}": (_overwrite(None, p), None) for p in (1, 3, 7)},
    **{f"table {t} dropped": (_sql(f"DROP TABLE {t}"), f"table {t} is missing")
       for t in ("game_blocks", "beads", "runs", "corrections", "machine_locks", "boxes")},
    "a bead on move 99": (_sql("UPDATE beads SET move = 99 WHERE rowid = (SELECT min(rowid) FROM beads)"),
                          "move 99"),
    "a count of 'many'": (_sql("UPDATE beads SET count = 'many' WHERE rowid = 5"), "'many'"),
    "a count at the 64-bit maximum": (_sql("UPDATE beads SET count = 9223372036854775807 WHERE rowid = 1"),
                                      "9,223,372,036,854,775,807 beads"),
    "a negative count": (_sql("UPDATE beads SET count = -3 WHERE rowid = 2"), "negative"),
    "side Z": (_sql("UPDATE boxes SET side = 'Z' WHERE number = 3"), "side 'Z'"),
    "game chess": (_sql("UPDATE machines SET game = 'chess'"), "game 'chess'"),
    "machine side Q": (_sql("UPDATE machines SET side = 'Q'"), "side 'Q'"),
    "schedule abc": (_sql("UPDATE machines SET schedule = 'abc'"), "'abc'"),
    "empty-box policy bogus": (_sql("UPDATE machines SET empty_policy = 'bogus'"), "'bogus'"),
    "a block pointing at a missing run": (_sql(f"UPDATE game_blocks SET run_id = 999 WHERE id = {FIRST_BLOCK}"),
                                          "run 999, which does not exist"),
    "forged block tallies": (_sql(f"UPDATE game_blocks SET wins = wins + 5, losses = losses - 5 "
                                  f"WHERE id = {FIRST_BLOCK}"), "forged or damaged tallies"),
    "n_games off by 7": (_sql(f"UPDATE game_blocks SET n_games = n_games + 7 WHERE id = {FIRST_BLOCK}"),
                         "says it holds"),
    "a wrong box move_number": (_sql("UPDATE boxes SET move_number = 3 WHERE number = 2"),
                                "stored as MENACE's move 3"),
    "a garbage lock row": (_sql("INSERT INTO machine_locks (machine_id, holder, host, pid, acquired_at, "
                                "heartbeat_at) VALUES (1, 'x', 'h', 1, 'garbage', 'garbage')"),
                           "lease on machine #1 is unreadable"),
    "a garbage run date": (_sql("UPDATE runs SET started_at = 'not a date' WHERE id = 1"), "not one"),
    "stored beads that differ from the history": (_sql("UPDATE beads SET count = count + 1 WHERE rowid = 1"),
                                                  "beads differ from its history"),
    "alembic_version removed": (_sql("DROP TABLE alembic_version"), "schema is"),
    "schema revision unknown": (_sql("UPDATE alembic_version SET version_num = 'zzzz'"), "schema is"),
}

COMMANDS: list[tuple[str, ...]] = [
    ("stats",), ("show", "1"), ("machines",), ("history",), ("replay", "1"), ("tournament", "-n", "5", "--seed", "1"),
    ("play", "--games", "1"), ("undo",), ("export", "{tmp}/out.json"), ("plot", "beads", "-o", "{tmp}/p.png"),
    ("labels", "--out", "{tmp}/l.pdf"), ("reconcile", "1", "--count", "W=1", "--count", "K=1", "--count", "G=1"),
    ("colours",), ("upgrade",), ("unlock", "--yes"), ("operate",),
]


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("healthy") / "menace.db"
    runner = CliRunner()
    for args in (["init"], ["tournament", "--vs", "random", "-n", "60", "--seed", "1"],
                 ["reconcile", "2", "--count", "A=5"], ["tournament", "--vs", "smart", "-n", "40", "--seed", "2"]):
        r = runner.invoke(cli, ["--db", str(db), *args], input="\n" * 20, catch_exceptions=False)
        assert r.exit_code == 0, r.output
    return db


def _damaged(healthy: Path, tmp_path: Path, scenario: str) -> Path:
    db = tmp_path / "damaged.db"
    shutil.copyfile(healthy, db)
    SCENARIOS[scenario][0](db)
    return db


@pytest.fixture
def few_labels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Labels read the machine as ever but draw only its first boxes (304 labels take seconds)."""
    import menace.render.labels as render_labels  # menace labels imports its drawing when it runs

    real = render_labels.write_pdf
    monkeypatch.setattr(render_labels, "write_pdf",
                        lambda out, boxes, spec, progress=None: real(out, boxes[:2], spec, progress))


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_no_command_shows_a_traceback_on_a_damaged_database(healthy: Path, tmp_path: Path, scenario: str,
                                                            few_labels: None) -> None:
    db = _damaged(healthy, tmp_path, scenario)
    for command in COMMANDS:
        args = [a.replace("{tmp}", str(tmp_path)) for a in command]
        r = CliRunner().invoke(cli, ["--db", str(db), *args], input="")
        assert r.exception is None or isinstance(r.exception, SystemExit), (scenario, command, repr(r.exception))
        assert "Traceback" not in r.output, (scenario, command, r.output)


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_check_names_every_planted_fault(healthy: Path, tmp_path: Path, scenario: str) -> None:
    db = _damaged(healthy, tmp_path, scenario)
    r = CliRunner().invoke(cli, ["--db", str(db), "check", "--all"])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code == 1, r.output
    words = SCENARIOS[scenario][1]
    if words is not None:
        assert words in r.output, r.output
    else:
        assert "damaged" in r.output or "FAULT" in r.output, r.output


def test_the_healthy_database_checks(healthy: Path) -> None:
    r = CliRunner().invoke(cli, ["--db", str(healthy), "check", "--all"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
