from __future__ import annotations

import json
import random
import statistics
from pathlib import Path

import pytest
from conftest import Invoke, owner, query
from history_helpers import stored_beads

from menace.app.machines import machine_summary, settings_for
from menace.app.sweep import (
    STRETCH,
    SweepError,
    SweepSetting,
    Trainer,
    expand_settings,
    last_games,
    run_one,
    run_sweep,
    store_machines,
    summarize,
    sweep_settings,
    write_csv,
    write_json,
)
from menace.core.learner import DRAWN
from menace.core.settings import MICHIE, MICHIE_1961, RUBYQUIZ, EmptyPolicy, SettingsError
from menace.games import find_game
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


def test_the_rule_is_swept_like_any_option_and_the_pegasus_rule_built_as_init_builds_it() -> None:
    settings = sweep_settings("tictactoe", rules=["michie", "pegasus"], beads=[(4, 3, 2, 1), (8, 4, 2, 1)],
                              side=["X"], pegasus_a=[1.025, 1.05])
    assert [s.label for s in settings] == ["rule=michie beads=4,3,2,1 side=X", "rule=michie beads=8,4,2,1 side=X",
                                           "rule=pegasus A=1.025 side=X", "rule=pegasus A=1.05 side=X"]
    assert settings[1].settings == expand_settings(MICHIE, beads=[(8, 4, 2, 1)])[0].settings
    assert settings[3].settings == settings_for(rule="pegasus", a=1.05)[1]
    # without --rule the labels are those of before: the preset, or the options given
    assert [s.label for s in sweep_settings("tictactoe")] == ["michie"]
    hexapawn = sweep_settings("hexapawn", rules=["pegasus"], refined=["per-play"], decay=[0.25])
    assert [s.label for s in hexapawn] == ["rule=pegasus refined=per-play D=0.25"]
    assert hexapawn[0].settings == settings_for("hexapawn", rule="pegasus", refinement="per-play", decay=0.25)[1]


@pytest.mark.parametrize(("options", "message"), [
    ({"rules": ["pegasus"], "beads": [(8, 4, 2, 1)]}, "the Pegasus rule keeps odds, not beads: it takes no initial"),
    ({"rules": ["pegasus"], "empty_box": [EmptyPolicy.RESTOCK]}, "it takes no empty-box policy"),
    ({"decay": [0.3]}, "are parameters of the Pegasus rule: choose that rule for them"),
    ({"rules": ["pegasus"], "pegasus_a": [0.5]}, "A must be a number above 1, not 0.5"),
    ({"rules": ["hebb"]}, "the learning rule must be michie or pegasus, not 'hebb'"),
])
def test_settings_that_do_not_fit_the_rule_are_refused(options: dict[str, object], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        sweep_settings("tictactoe", **options)  # type: ignore[arg-type]


def test_a_pegasus_run_is_the_same_on_a_reused_trainer() -> None:
    # A trainer serves many seeds one after the other: the refined rule's mean outcome starts afresh each time.
    setting = SweepSetting("p", settings_for(rule="pegasus", refinement="per-play")[1])
    result = run_sweep([setting], "random", 60, 3, workers=1, eval_games=10)
    assert result.runs == [run_one(setting, "random", 60, seed, eval_games=10) for seed in (1, 2, 3)]


def test_a_pegasus_machine_is_measured_frozen() -> None:
    """The frozen figures are those of the trained machine playing random without changing its odds."""
    game = find_game("tictactoe")
    setting = SweepSetting("p", settings_for(rule="pegasus", refinement="per-play")[1])
    run = run_one(setting, "random", 80, seed=5, eval_games=150, keep=True)
    assert run.trained is not None
    trainer = Trainer(game)
    learner = trainer.learner(setting.settings)
    table = trainer.table("random", learner)
    assert table is not None
    rng = random.Random(5)
    for _ in range(80):
        learner.play_table(learner.settings.sides[0], table, rng)
    assert learner.counts == run.trained.counts
    trained, mean = [list(c) for c in learner.counts], learner.pegasus and learner.pegasus.mean.state
    frozen = [0, 0, 0]
    for _ in range(150):
        res, _moves = learner.play_table(learner.settings.sides[0], table, rng, learn=False)
        frozen[1 if res == DRAWN else 0 if res == learner.settings.sides[0] else 2] += 1
    assert (run.eval_wins, run.eval_draws, run.eval_losses) == tuple(frozen) and sum(frozen) == 150
    assert learner.counts == trained and (learner.pegasus and learner.pegasus.mean.state) == mean
    assert run.eval_wins > 100  # trained, it beats random most of the time


def test_a_pegasus_sweep_gives_the_figures_and_machines_of_init_and_tournament(
    menace: Invoke, db_url: str, tmp_path: Path
) -> None:
    json_path = tmp_path / "s.json"
    result = menace("sweep", "--rule", "michie", "--rule", "pegasus", "--refined", "per-play", "--seeds", "2",
                           "--games", "120", "--vs", "random", "--eval-games", "30", "--workers", "1",
                           "--json", str(json_path), "--store", "sw")
    rows = result.stdout.splitlines()
    assert rows[1].split()[:2] == ["rule=michie", "2"]
    assert rows[2].split()[:3] == ["rule=pegasus", "refined=per-play", "2"]
    assert "stored 4 machines, sw-1-1 to sw-2-2" in result.stdout
    data = json.loads(json_path.read_text())
    assert [(s["rule"], s["pegasus"]) for s in data["settings"]] == [
        ("michie", None), ("pegasus", {"a": 1.025, "b": 2.0, "refinement": "per-play", "decay": 0.5})]
    runs = [r for r in data["runs"] if r["label"] == "rule=pegasus refined=per-play"]
    for seed, run in zip((1, 2), runs):
        menace("-m", f"p{seed}", "init", "--rule", "pegasus", "--refined", "per-play")
        menace("-m", f"p{seed}", "tournament", "--vs", "random", "-n", "120", "--seed", str(seed))
        summary = machine_summary(owner(db_url), f"p{seed}")
        assert (summary.wins, summary.draws, summary.losses) == (run["wins"], run["draws"], run["losses"])
        stored = machine_summary(owner(db_url), f"sw-2-{seed}")
        assert stored.settings == summary.settings
        assert (stored.games, stored.wins, stored.draws, stored.losses) == (120, summary.wins, summary.draws,
                                                                            summary.losses)
        assert stored_beads(db_url, f"sw-2-{seed}") == stored_beads(db_url, f"p{seed}")
        mean = "SELECT mean_mu, mean_sum, mean_plays FROM machines WHERE name = :n"
        assert query(db_url, mean, n=f"sw-2-{seed}") == query(db_url, mean, n=f"p{seed}")
        assert "OK" in menace("-m", f"sw-2-{seed}", "check").output
        assert "Pegasus" in menace("-m", f"sw-2-{seed}", "stats").output


def test_a_plot_of_long_settings_keeps_every_text_inside_the_figure(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings of the Pegasus rule have long labels (``rule=pegasus A=1.025 refined=per-play``): they
    and the axes' labels stay whole inside the figure (the right panel's label ran off its edge)."""
    from matplotlib.figure import Figure

    from menace.render import plots
    from menace.render import sweep as drawn

    settings = sweep_settings("tictactoe", rules=["michie", "pegasus"], pegasus_a=[1.025, 1.1],
                              refined=["hundred", "per-play"])
    result = run_sweep(settings, "random", 40, 2, workers=1, eval_games=20)
    figures: list[Figure] = []
    monkeypatch.setattr(drawn, "save_figure", lambda fig, *_args, **_kw: figures.append(fig))
    plot_distributions(result, tmp_path / "s.png")
    (fig,) = figures
    frame = fig.bbox
    outside = [t.get_text() for t, b in plots.text_boxes(fig)
               if b.x0 < frame.x0 - 1 or b.x1 > frame.x1 + 1 or b.y0 < frame.y0 - 1 or b.y1 > frame.y1 + 1]
    assert outside == []
