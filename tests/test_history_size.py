"""Storage stays small: a million-game tournament adds at most 32 MB to the database."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import owner

from menace.app.machines import init_machine, open_machine
from menace.app.tournament import run_tournament
from menace.core.settings import MICHIE
from menace.storage.database import database_bytes

BOUND_BYTES_PER_MILLION = 32 * 2**20




@pytest.mark.parametrize("opponent", ["smart", "random"])
def test_bytes_per_game_stay_under_the_bound(db_path: Path, sqlite_url: str, opponent: str) -> None:
    # SQLite only: the bound is on the file's size (database_bytes counts a SQLite file's pages).
    db_url = sqlite_url
    init_machine(owner(db_url), "menace", MICHIE, None)
    before = database_bytes(db_path)
    games = 20_000
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        # Flushing often makes many small blocks: the worst case for the per-block overhead.
        result = run_tournament(m, opponent, games=games, seed=1, flush_seconds=0.02)
    assert result.games == games
    per_game = (database_bytes(db_path) - before) / games
    assert per_game * 1_000_000 < BOUND_BYTES_PER_MILLION, f"{per_game:.2f} bytes per game"
    assert per_game < 8, f"{per_game:.2f} bytes per game"  # in practice 1.5 to 3
