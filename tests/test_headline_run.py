"""README's main command, ``menace init && menace tournament --vs smart -n 2000 --seed S``, plays
all its games for every seed 1..100; Michie's exact machine (``--preset michie-1961``) is one
option away and stops early, with exit status 3, where its opening box runs dry."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from conftest import Invoke, owner

from menace.app.machines import load_stored
from menace.app.sweep import SweepSetting, Trainer
from menace.core.settings import MICHIE, MICHIE_1961, PRESETS, EmptyPolicy
from menace.games import find_game

SEEDS = range(1, 101)
GAMES = 2000


def _runs(settings: SweepSetting) -> dict[int, int]:
    """Seed -> the game after which MENACE would resign every game (0: never), for ``settings``.

    The sweep's trainer plays a tournament's games exactly (the same random source, the same
    tabulated opponent): the test below checks that on the seeds where the old default stopped.
    """
    trainer = Trainer(find_game("tictactoe"))
    stalled = {}
    for seed in SEEDS:
        run = trainer.run_one(settings, "smart", GAMES, seed, eval_games=0, keep=True)
        assert run.trained is not None and run.trained.records is not None
        records = run.trained.records
        assert len(records) == GAMES
        resigned_at_once = [i + 1 for i, r in enumerate(records) if not r.moves]
        stalled[seed] = resigned_at_once[0] - 1 if resigned_at_once else 0
    return stalled


def test_the_default_machine_plays_every_game_for_seeds_1_to_100() -> None:
    assert PRESETS["michie"] is MICHIE and MICHIE.empty_policy is EmptyPolicy.REVIVE
    stalled = _runs(SweepSetting("michie", MICHIE))
    assert [seed for seed, at in stalled.items() if at] == []


def test_michies_exact_machine_is_one_preset_away_and_would_stall() -> None:
    assert MICHIE_1961.empty_policy is EmptyPolicy.RESIGN
    assert {k: v for k, v in MICHIE_1961.__dict__.items() if k != "empty_policy"} == \
        {k: v for k, v in MICHIE.__dict__.items() if k != "empty_policy"}
    stalled = _runs(SweepSetting("michie-1961", MICHIE_1961))
    # 20 of the 100 seeds run the opening box dry within 2,000 games against smart, between game 14 and 38.
    assert sum(1 for at in stalled.values() if at) == 20
    assert stalled[3] == 20


@pytest.mark.parametrize("seed", [3, 20])
def test_readmes_main_command_completes(menace: Invoke, db_url: str, seed: int) -> None:
    """Seeds 3 and 20 stopped at about game 21 when ``resign`` was the default."""
    menace("init")
    out = menace("tournament", "--vs", "smart", "-n", str(GAMES), "--seed", str(seed)).output
    assert f"{GAMES:,} games against smart" in out and "Stopped" not in out
    # The same beads as the trainer the seed count above used.
    run = Trainer(find_game("tictactoe")).run_one(SweepSetting("michie", MICHIE), "smart", GAMES, seed,
                                                  eval_games=0, keep=True)
    assert run.trained is not None
    stored = load_stored(owner(db_url), "menace")
    assert [b.beads for b in stored.boxes] == [{m: counts[m] for m in b.initial}
                                               for b, counts in zip(stored.boxes, run.trained.counts)]


def test_the_exact_machine_stops_early_with_status_3(menace: Invoke) -> None:
    menace("init", "--preset", "michie-1961")
    result = menace("tournament", "--vs", "smart", "-n", str(GAMES), "--seed", "3", ok=False)
    assert result.exit_code == 3, result.output
    assert "Stopped early, after game" in result.output and "MENACE resigns every game" in result.output
    # the ways on, as commands for this database and machine: rebuilt as it was, or revived
    assert "-m menace init --replace --preset michie-1961)" in result.output
    assert "-m menace init --replace --preset michie)" in result.output
    # ... and so does a run by time: --for never ends early in silence.
    result = menace("tournament", "--vs", "smart", "--for", "8h", ok=False)
    assert result.exit_code == 3 and "is empty" in result.output  # refused before it starts, as when it empties


def test_the_benchmark_that_prints_the_figure_runs(tmp_path: Path) -> None:
    """benchmarks/headline.py prints README's figure; a few seeds of it run here (it copies a built
    machine's file for each seed: what was built must be in that file, not left in a write-ahead log)."""
    spec = importlib.util.spec_from_file_location("headline", Path(__file__).parents[1] / "benchmarks" / "headline.py")
    assert spec is not None and spec.loader is not None
    headline = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(headline)
    assert headline.completed("michie", "smart", 30, 2, tmp_path) == (2, {})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["michie.db"]
