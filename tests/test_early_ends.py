"""A game that stopped before its board was decided is a resignation, and only that: `import` and
`check --full` check every early end against the beads at that moment and name the game."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import Invoke, owner

from menace.app.machines import open_machine
from menace.cli import cli
from menace.core.game import Side
from menace.core.learner import DRAWN, O_WINS, X_WINS, GameRecord

# X (MENACE) b2, O a1, X a2, O c2: MENACE to move at a box of its third move, with beads in it.
MIDGAME = [4, 0, 1, 7]

FORGED: dict[str, tuple[GameRecord, str]] = {
    "a resignation at the opening box, which this machine refills": (
        GameRecord(Side.X, [], O_WINS), "game 1 ends with MENACE resigning at box 1, which this machine refills"),
    "a resignation at a full box, scored as a loss": (
        GameRecord(Side.X, MIDGAME, O_WINS),
        "game 1 ends with MENACE resigning at box 97, which holds beads (2, 2, 2, 2, 2)"),
    "a resignation at a full box, scored as a draw": (
        GameRecord(Side.X, MIDGAME, DRAWN), "game 1 ends with MENACE resigning at box 97 but is stored as a draw"),
    "a resignation scored as MENACE's win": (
        GameRecord(Side.X, MIDGAME, X_WINS), "a resignation is a loss"),
    "the opponent to move, scored as MENACE's loss": (
        GameRecord(Side.X, [4, 0, 1], O_WINS), "the side that resigns loses"),
    "a decided board scored the other way": (
        GameRecord(Side.X, [4, 0, 1, 3, 7], O_WINS), "game 1 is stored as a win for O, but its board is a win for X"),
}


def _store(url: str, records: list[GameRecord]) -> None:
    with open_machine(owner(url), "menace", holder="a test") as m:
        run = m.start_run("play", "person", None)
        m.save(run, records, end_run=True)


@pytest.mark.parametrize("case", list(FORGED))
def test_an_early_end_that_is_not_a_resignation_is_refused(sqlite_menace: Invoke, sqlite_url: str, tmp_path: Path,
                                                            case: str) -> None:
    forged, message = FORGED[case]
    sqlite_menace("init")
    _store(sqlite_url, [forged])
    check = sqlite_menace("check", "--full", ok=False)
    assert check.exit_code == 1 and message in check.output, check.output
    sqlite_menace("export", str(tmp_path / "m.json"))
    target = tmp_path / "target.db"
    r = CliRunner().invoke(cli, ["--db", str(target), "import", str(tmp_path / "m.json")])
    assert r.exit_code == 1 and message in r.output and "Traceback" not in r.output, r.output
    assert not target.exists()  # refused before the database was made


def test_a_resignation_at_an_empty_box_is_accepted(sqlite_menace: Invoke, sqlite_url: str, tmp_path: Path) -> None:
    sqlite_menace("init", "--preset", "michie-1961")
    sqlite_menace("reconcile", "1", "--count", "W=0", "--count", "K=0", "--count", "G=0")
    _store(sqlite_url, [GameRecord(Side.X, [], O_WINS)])  # the opening box is empty: MENACE resigns
    assert "OK" in sqlite_menace("check", "--full").output
    sqlite_menace("export", str(tmp_path / "m.json"))
    r = CliRunner().invoke(cli, ["--db", str(tmp_path / "t.db"), "import", str(tmp_path / "m.json")],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
