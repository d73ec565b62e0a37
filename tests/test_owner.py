"""One object owns the database: made once per command and per server, the schema checked once, the
engine (and its pool and statement cache) kept for its life; and the one tournament flow the command
line and the web both call."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import Invoke, owner
from held_training import broken
from starlette.testclient import TestClient

import menace.app.database as owner_module
from menace.app import wall
from menace.app.database import Database
from menace.app.history import beads_series
from menace.app.machines import machine_summary, settings_for
from menace.app.tournament import NoSuchSideError, parse_side, train
from menace.cli import cli
from menace.core.errors import InvalidInputError
from menace.core.game import Side
from menace.players import UnknownPlayerError
from menace.storage.database import StorageError
from menace.web.app import create_app


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many databases are made, engines opened and schemas checked."""
    seen = {"made": 0, "engines": 0, "checks": 0}
    real_init, real_engine, real_prepare = Database.__init__, owner_module.make_engine, owner_module.prepare_schema

    def init(self: Database, url: str | None = None) -> None:
        seen["made"] += 1
        real_init(self, url)

    def engine(url: str) -> Any:
        seen["engines"] += 1
        return real_engine(url)

    def prepare(engine: Any, create: bool = False) -> None:
        seen["checks"] += 1
        real_prepare(engine, create)

    monkeypatch.setattr(Database, "__init__", init)
    monkeypatch.setattr(owner_module, "make_engine", engine)
    monkeypatch.setattr(owner_module, "prepare_schema", prepare)
    return seen


def test_use_cases_share_one_engine_and_one_schema_check(menace: Invoke, db_url: str,
                                                         counted: dict[str, int]) -> None:
    menace("init")
    menace("tournament", "--vs", "random", "-n", "30", "--seed", "1")
    counted.update(made=0, engines=0, checks=0)
    with Database(db_url) as db:
        assert machine_summary(db, "menace").games == 30
        wall.box_series(db, "menace", 1)  # reads the beads series too: no second opening
        beads_series(db, "menace", 2)
        assert db.engine is db.engine
    assert counted == {"made": 1, "engines": 1, "checks": 1}


def test_a_closed_database_refuses_to_be_used(menace: Invoke, db_url: str) -> None:
    menace("init")
    db = Database(db_url)
    machine_summary(db, "menace")
    db.close()
    with pytest.raises(StorageError, match="closed"):
        machine_summary(db, "menace")


def test_nothing_is_opened_until_a_use_case_needs_it(tmp_path: Path) -> None:
    db = Database(str(tmp_path / "none.db"))
    db.close()
    assert not (tmp_path / "none.db").exists()
    with pytest.raises(StorageError, match="no database at"):
        machine_summary(Database(str(tmp_path / "none.db")), "menace")
    assert not (tmp_path / "none.db").exists()


def test_a_command_makes_one_database_and_closes_it(menace: Invoke, db_url: str, counted: dict[str, int],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    menace("init")
    closed = []
    real_close = Database.close
    monkeypatch.setattr(Database, "close", lambda self: (closed.append(self), real_close(self))[1])
    counted.update(made=0, engines=0, checks=0)
    result = CliRunner().invoke(cli, ["--db", db_url, "show", "1", "--at", "0"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert counted == {"made": 1, "engines": 1, "checks": 1}
    assert len(closed) == 1


def test_the_server_holds_one_database_for_every_request(menace: Invoke, db_url: str,
                                                         counted: dict[str, int]) -> None:
    menace("init")
    counted.update(made=0, engines=0, checks=0)
    with TestClient(create_app(db_url, "menace"), base_url="http://127.0.0.1:8000") as c:
        for path in ("/api/machines", "/api/machines/menace", "/api/machines/menace/boxes",
                     "/api/machines/menace/learning", "/api/machines/menace/boxes/1/series"):
            assert c.get(path).status_code == 200, path
    assert counted == {"made": 1, "engines": 1, "checks": 1}


def test_side_words_are_read_in_one_place() -> None:
    assert [parse_side(w) for w in ("X", "first", "White", "o", "second", "black")] == [Side.X] * 3 + [Side.O] * 3
    with pytest.raises(InvalidInputError, match="'middle' is not a side"):
        parse_side("middle")


def test_the_command_line_offers_the_librarys_side_words() -> None:
    """``init --side`` and ``tournament --side`` offer the words the library reads, written once
    (in the core, so that the command line reads them without loading the use cases)."""
    import click

    from menace.cli.machines import init
    from menace.cli.tournament import tournament
    from menace.core import settings

    def choices(command: click.Command) -> set[str]:
        [side] = [p for p in command.params if p.name == "side"]
        assert isinstance(side.type, click.Choice)
        return {str(c).lower() for c in side.type.choices}

    assert choices(init) == set(settings.SIDE_WORDS)
    assert choices(tournament) == set(settings.ONE_SIDE_WORDS)
    assert all(parse_side(w) is side for w, side in settings.ONE_SIDE_WORDS.items())
    assert all(settings_for(side=w)[1].side == side for w, side in settings.SIDE_WORDS.items())


def test_train_refuses_before_it_writes(menace: Invoke, db_url: str) -> None:
    menace("init")
    db = owner(db_url)
    with pytest.raises(UnknownPlayerError):
        train(db, "menace", "nobody", holder="a test", games=5)
    with pytest.raises(NoSuchSideError, match="no boxes for O"):
        train(db, "menace", "random", holder="a test", games=5, side=Side.O)
    assert machine_summary(db, "menace").games == 0


def test_train_against_another_stored_machine_stores_both(menace: Invoke, db_url: str) -> None:
    menace("init")
    menace("-m", "second", "init", "--side", "O")
    db = owner(db_url)
    done = train(db, "menace", "menace:second", holder="a test of {opponent}", games=40, seed=3)
    assert done.partner is not None and done.partner.machine.name == "second"
    assert done.result.games == 40
    assert machine_summary(db, "menace").games == machine_summary(db, "second").games == 40


def test_a_failed_training_run_in_the_server_logs_its_traceback(menace: Invoke, db_url: str,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    import menace.web.training as training

    menace("init")
    trainer = training.Trainer(lambda event, data, remember=True: None, play=broken)
    with caplog.at_level(logging.ERROR, logger="menace.web.training"):
        trainer.start(owner(db_url), "menace", "random", 10, None)
        trainer.stop()
    assert trainer.status.error == "a bug"
    [record] = caplog.records
    # the tournament's process failed: its traceback, from there, is in the server's log
    assert "Traceback (most recent call last)" in record.getMessage()
    assert "ZeroDivisionError: a bug" in record.getMessage()
