from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from conftest import owner

from menace.app.machines import machine_summary
from menace.app.sweep import (
    STRETCH,
    SweepError,
    SweepSetting,
    expand_settings,
    last_games,
    run_one,
    run_sweep,
    store_machines,
    summarize,
    write_csv,
    write_json,
)
from menace.core.settings import MICHIE, MICHIE_1961, RUBYQUIZ, EmptyPolicy
from menace.players import UnknownPlayerError
from menace.render.sweep import plot_distributions
from menace.render.tables import sweep_table

MICHIE_SETTING = SweepSetting("michie-1961", MICHIE_1961)
"""Michie's exact machine: an empty box resigns, the opening box too."""


def test_expand_settings_is_the_cross_product_of_the_values_given() -> None:
    settings = expand_settings(
        MICHIE, beads=[(4, 3, 2, 1), (8, 4, 2, 1)], empty_box=[EmptyPolicy.RESIGN, EmptyPolicy.RESTOCK],
        side=["X", "O", "both"],
    )
    assert len(settings) == 12
    assert settings[0].label == "beads=4,3,2,1 empty=resign side=X"
    assert settings[-1].label == "beads=8,4,2,1 empty=restock side=both"
    assert len({s.label for s in settings}) == len({s.settings for s in settings}) == 12
    last = settings[-1].settings
    assert (last.schedule, last.empty_policy, last.side) == ((8, 4, 2, 1), EmptyPolicy.RESTOCK, "both")
    assert (last.win, last.draw, last.loss, last.all_squares) == (MICHIE.win, MICHIE.draw, MICHIE.loss, False)


def test_expand_settings_keeps_the_base_and_counts_repeats_once() -> None:
    assert expand_settings(RUBYQUIZ, base_label="rubyquiz") == [SweepSetting("rubyquiz", RUBYQUIZ)]
    settings = expand_settings(MICHIE, reinforce=[(3, 1, -1), (3, 1, -1), (1, 0, -1)], all_squares=[True])
    assert [s.label for s in settings] == ["reinforce=3,1,-1 squares=all", "reinforce=1,0,-1 squares=all"]
    assert (settings[1].settings.win, settings[1].settings.draw, settings[1].settings.loss) == (1, 0, -1)


def test_a_run_is_reproducible_from_its_seed() -> None:
    a = run_one(MICHIE_SETTING, "smart", 300, seed=7, eval_games=200)
    run_one(MICHIE_SETTING, "smart", 300, seed=8, eval_games=200)  # the engine is reused between runs
    b = run_one(MICHIE_SETTING, "smart", 300, seed=7, eval_games=200)
    assert a == b
    assert a.wins + a.draws + a.losses == 300
    assert a.last_games == last_games(300) == 60
    assert a.last_wins + a.last_draws + a.last_losses == 60
    assert a.eval_wins + a.eval_draws + a.eval_losses == 200


def test_a_resigning_machine_loses_every_game_after_its_opening_box_empties() -> None:
    runs = [run_one(MICHIE_SETTING, "perfect", 400, seed, eval_games=100, keep=True) for seed in range(1, 11)]
    emptied = [r for r in runs if r.opening_emptied is not None]
    assert emptied, "with 4,3,2,1 against perfect some of ten runs empty their opening box"
    for r in emptied:
        assert r.trained is not None and r.opening_emptied is not None
        at = r.opening_emptied
        assert r.trained.records[at - 1].result.value == "loss"
        assert all(len(rec.moves) == 0 for rec in r.trained.records[at:])  # resigned before moving
        assert r.eval_losses == 100
        assert r.first_stretch is None or r.first_stretch <= at
    for r in runs:
        assert r.wins == 0  # perfect never loses


def test_first_stretch_is_the_end_of_the_first_run_of_games_without_a_loss() -> None:
    r = run_one(MICHIE_SETTING, "random", 500, seed=3, eval_games=0, keep=True)
    assert r.trained is not None and r.first_stretch is not None
    lost = [rec.result.value == "loss" for rec in r.trained.records]
    end = r.first_stretch
    assert not any(lost[end - STRETCH:end])
    assert all(any(lost[i - STRETCH:i]) for i in range(STRETCH, end))


def test_results_do_not_depend_on_the_number_of_workers() -> None:
    settings = expand_settings(MICHIE, beads=[(4, 3, 2, 1), (8, 4, 2, 1)])
    one = run_sweep(settings, "perfect", 300, 12, workers=1, eval_games=100)
    two = run_sweep(settings, "perfect", 300, 12, workers=2, eval_games=100)
    assert two.workers == 2
    assert one.runs == two.runs
    assert [(r.label, r.seed) for r in one.runs] == [(s.label, seed) for s in settings for seed in range(1, 13)]


def test_a_learning_opponent_is_made_afresh_for_each_run() -> None:
    one = run_sweep([MICHIE_SETTING], "td:200", 60, 3, workers=1, eval_games=20)
    two = run_sweep([MICHIE_SETTING], "td:200", 60, 3, workers=2, eval_games=20)
    assert one.runs == two.runs
    assert one.runs[0] == run_one(MICHIE_SETTING, "td:200", 60, 1, eval_games=20)


def test_the_summary_agrees_with_the_runs() -> None:
    settings = expand_settings(MICHIE, beads=[(4, 3, 2, 1), (8, 4, 2, 1)])
    progress: list[tuple[int, int]] = []
    result = run_sweep(settings, "perfect", 400, 30, workers=1, eval_games=100,
                       progress=lambda done, total: progress.append((done, total)))
    assert progress[-1] == (60, 60)
    rows = summarize(result)
    assert [r.label for r in rows] == [s.label for s in settings]
    for row in rows:
        runs = result.runs_for(row.label)
        emptied = [r.opening_emptied for r in runs if r.opening_emptied is not None]
        stretches = [r.first_stretch for r in runs if r.first_stretch is not None]
        assert row.runs == 30
        assert row.emptied == len(emptied)
        assert row.emptied_median == (statistics.median(emptied) if emptied else None)
        assert row.stretch_never == 30 - len(stretches)
        assert row.stretch_median == (statistics.median(stretches) if stretches else None)
        assert sum(row.last) == pytest.approx(1000)
        assert row.last[2] == pytest.approx(statistics.mean(1000 * r.last_losses / r.last_games for r in runs))
        assert row.frozen is not None
        assert row.frozen[0] == pytest.approx(statistics.mean(10 * r.eval_wins for r in runs))
    lines = sweep_table(rows)
    assert lines[0].split()[0] == "setting"
    assert lines[1].startswith("beads=4,3,2,1") and lines[2].startswith("beads=8,4,2,1")


def test_michies_beads_empty_the_opening_box_against_perfect_far_more_often() -> None:
    # Measured over 400 seeds in blocks of 40: 4,3,2,1 empties in 20 to 29 runs, 8,4,2,1 in 4 to 10.
    settings = expand_settings(MICHIE, beads=[(4, 3, 2, 1), (8, 4, 2, 1)], empty_box=[EmptyPolicy.RESIGN])
    michie, more = summarize(run_sweep(settings, "perfect", 1000, 40, eval_games=0))
    assert michie.emptied >= 16
    assert more.emptied <= 12
    assert michie.emptied >= 2 * more.emptied


def test_bad_sweeps_are_refused() -> None:
    with pytest.raises(UnknownPlayerError):
        run_sweep([MICHIE_SETTING], "nobody", 10, 1, workers=1)
    with pytest.raises(SweepError):
        run_sweep([], "perfect", 10, 1)
    with pytest.raises(SweepError):
        run_sweep([MICHIE_SETTING, MICHIE_SETTING], "perfect", 10, 1)


def test_files_and_plot(tmp_path: Path) -> None:
    settings = expand_settings(MICHIE, beads=[(4, 3, 2, 1), (8, 4, 2, 1)])
    result = run_sweep(settings, "perfect", 200, 6, workers=1, eval_games=50)
    write_csv(result, tmp_path / "s.csv")
    lines = (tmp_path / "s.csv").read_text().splitlines()
    assert lines[0].startswith("label,seed,games,wins,draws,losses,opening_emptied,first_stretch")
    assert len(lines) == 13
    write_json(result, tmp_path / "s.json")
    data = json.loads((tmp_path / "s.json").read_text())
    assert [s["label"] for s in data["summary"]] == ["beads=4,3,2,1", "beads=8,4,2,1"]
    assert data["settings"][1]["schedule"] == [8, 4, 2, 1]
    assert len(data["runs"]) == 12 and data["runs"][0]["seed"] == 1
    for suffix, magic in ((".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")):
        plot_distributions(result, tmp_path / f"s{suffix}")
        assert (tmp_path / f"s{suffix}").read_bytes().startswith(magic)
    with pytest.raises(SweepError):
        plot_distributions(result, tmp_path / "s.jpg")


def test_stored_machines_hold_the_trained_beads_and_games(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sweep.db'}"
    result = run_sweep([MICHIE_SETTING], "smart", 50, 2, workers=1, eval_games=0, keep=True)
    assert store_machines(owner(url), "sw", result) == ["sw-1-1", "sw-1-2"]
    summary = machine_summary(owner(url), "sw-1-2")
    run = result.runs[1]
    assert run.trained is not None
    assert (summary.games, summary.wins, summary.draws, summary.losses) == (50, run.wins, run.draws, run.losses)
    assert summary.beads == sum(map(sum, run.trained.counts))
