"""A game left idle in the browser gives its machine back by itself: no other visitor is needed
for the sweep to run (it used to run only when another browser game opened)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from conftest import owner, wait_until

from menace.app.machines import init_machine
from menace.core.settings import MICHIE
from menace.web.tables import IDLE_SECONDS, GameTables


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _leases(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT count(*) FROM machine_locks").fetchone()[0])
    finally:
        con.close()


def test_an_idle_browser_game_is_abandoned_without_another_visitor(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    url = f"sqlite:///{db}"
    init_machine(owner(url), "menace", MICHIE, "michie")
    clock = Clock()
    tables = GameTables(owner(url), lambda *event: None, clock=clock, sweep_every=0.01)
    tables.orphan_seconds = 10 * IDLE_SECONDS  # its page keeps answering: only the idle time counts here
    try:
        table = tables.open("menace", holder="a game in the browser", seed=1)
        assert _leases(db) == 1
        clock.now += IDLE_SECONDS - 1
        assert tables.seated(table.seat) is table  # its page played: its idle time starts again
        clock.now += IDLE_SECONDS - 1
        assert _leases(db) == 1 and tables.busy_machines() == {"menace"}
        clock.now += 2  # nobody has touched it for IDLE_SECONDS: the server's own sweep abandons it
        wait_until(lambda: _leases(db) == 0, "the idle game's lease to be given back")
        assert tables.busy_machines() == set()
    finally:
        tables.close_all()
