"""Michie's published experiments run again: the exact random average, the blocks of the runs, the
stereotyped line, the command and its figure, and a stored machine's Fig. 4 score."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import owner
from history_helpers import stored_records
from matplotlib.text import Text
from test_plots import SIGNATURES, _crowded, _drawn

from menace.app import experiments as ex
from menace.app.machines import init_machine, open_machine
from menace.app.tournament import run_tournament
from menace.cli import cli
from menace.core.game import Outcome, Result, Side
from menace.core.settings import MICHIE
from menace.games import find_game

GAME = find_game("tictactoe")


_RULES: dict[tuple[int, ...], tuple[Outcome | None, tuple[tuple[int, ...], ...]]] = {}
"""Per position: the game's own answers (its end, and the position after each legal move), asked once.
The walk below still goes down every game; 5,478 positions answer its 549,946 steps (the rules asked
at every step were five sixths of its CPU)."""


def _rules(state: tuple[int, ...]) -> tuple[Outcome | None, tuple[tuple[int, ...], ...]]:
    known = _RULES.get(state)
    if known is None:
        outcome = GAME.outcome(state)
        after = () if outcome is not None else tuple(GAME.play(state, m) for m in GAME.legal_moves(state))
        known = _RULES[state] = (outcome, after)
    return known


def _every_game(state: tuple[int, ...], share: int, out: dict[Side | None, int]) -> int:
    """Walk every game move by move (no position shared), each legal move equally likely; how many games.

    A game's chance is counted in whole shares of the start's ``share`` (9! shares: the k-th move has
    10 - k choices, so every game's chance is a whole number of them; a remainder would fail here):
    whole numbers add up exactly as fractions do, at a fraction of the cost."""
    outcome, after = _rules(state)
    if outcome is not None:
        out[outcome.winner] += share
        return 1
    part, left = divmod(share, len(after))
    assert not left, (state, share)
    return sum(_every_game(position, part, out) for position in after)


@pytest.mark.slow
def test_the_random_average_is_exact_and_is_every_game_walked() -> None:
    exact = ex.random_outcomes(GAME)
    assert exact == (Fraction(737, 1260), Fraction(8, 63), Fraction(121, 420))
    walked: dict[Side | None, int] = {Side.X: 0, None: 0, Side.O: 0}
    shares = math.factorial(9)
    assert _every_game(GAME.initial(), shares, walked) == 255_168  # as the documentation says
    assert tuple(Fraction(walked[who], shares) for who in (Side.X, None, Side.O)) == exact


def test_the_random_average_is_seen_from_the_counted_side() -> None:
    x_wins, draws, o_wins = ex.random_outcomes(GAME)
    second = ex.Experiment("t", "t", "t", (Side.O,), Side.O, "Fig. 0")
    assert ex.random_average(second, GAME) == (o_wins, draws, x_wins)


def test_random_runs_average_what_the_tree_says() -> None:
    result = ex.run_experiment("random", seeds=20, workers=1)
    assert result.seeds == 20 and len(result.blocks) == 10
    for k in range(3):
        mean = sum(getattr(b, ("wins", "draws", "losses")[k]).mean for b in result.blocks) / 10
        # 20,000 plays: the mean of 200 blocks is within 0.4 of the exact value (one standard error);
        # seeded, so the same every time, and 2 plays per block is 5 of those errors
        assert abs(mean - 100 * float(result.random_average[k])) < 2, (k, mean)
    for run in result.runs:
        assert all(sum(block) == 100 for block in run.blocks)


def test_runs_do_not_depend_on_the_number_of_processes() -> None:
    alone = ex.run_experiment("random", seeds=3, workers=1)
    shared = ex.run_experiment("random", seeds=3, workers=2)
    assert alone.runs == shared.runs and [r.seed for r in alone.runs] == [1, 2, 3]


def test_a_spread_is_the_mean_median_and_quartiles() -> None:
    s = ex.Spread.of([1, 2, 3, 4, 10])
    assert (s.mean, s.median, s.q1, s.q3, s.low, s.high) == (4.0, 3.0, 2.0, 4.0, 1, 10)
    assert ex.Spread.of([7]) == ex.Spread(7.0, 7.0, 7.0, 7.0, 7, 7)


def test_a_line_and_its_images_are_one_line() -> None:
    lines = {ex.canonical_line(GAME, tuple(sym.moves[m] for m in (4, 0, 8, 2, 6))) for sym in GAME.symmetries}
    assert len(lines) == 1
    assert ex.canonical_line(GAME, (4, 0)) != ex.canonical_line(GAME, (4, 1))


def test_a_stereotype_holds_to_the_end_from_its_first_block() -> None:
    a, b = (0, 4, 8), (4, 0, 8)
    assert ex.stereotype([b] * 100 + [a] * 300) == ex.Stereotype(a, 2)
    # half of a block is enough, less is not
    assert ex.stereotype([b] * 50 + [a] * 50) == ex.Stereotype(b, 1)
    assert ex.stereotype([(1,)] * 2 + [b] * 49 + [a] * 49) is None
    # another line before it does not count, nor does one that did not last
    assert ex.stereotype([b] * 100 + [a] * 100) == ex.Stereotype(a, 2)
    assert ex.stereotype([a] * 200 + [b] * 51 + [a] * 49) == ex.Stereotype(b, 3)
    assert ex.stereotype([a] * 200 + [(1,)] * 34 + [b] * 33 + [(2,)] * 33) is None
    assert ex.stereotype([]) is None


def test_unknown_experiments_and_empty_runs_are_refused() -> None:
    with pytest.raises(ex.ExperimentError, match="unknown experiment 'fig-99'; choose from"):
        ex.run_experiment("fig-99")
    with pytest.raises(ex.ExperimentError, match="at least one seed"):
        ex.run_experiment("random", seeds=0)
    with pytest.raises(ex.ExperimentError, match="at least one block"):
        ex.run_experiment("random", seeds=1, plays=50)


# -- the command -----------------------------------------------------------------------------------
def test_the_command_lists_every_experiment_in_a_line() -> None:
    text = CliRunner().invoke(cli, ["experiment", "--help"]).output
    for name, e in ex.EXPERIMENTS.items():
        assert name in text
        assert e.line.split()[0] in text
    assert "michie-1963-fig4" in text


def test_the_command_prints_the_table_and_writes_every_figure(tmp_path: Path) -> None:
    out = [tmp_path / f"random.{fmt}" for fmt in SIGNATURES]
    args = ["experiment", "random", "--seeds", "3", "--workers", "1"]
    for path in out:
        args += ["-o", str(path)]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "(exact: 737/1260, 8/63, 121/420)" in result.output
    assert "901-1,000" in result.output and "The block values of the paper's own runs are not included" in result.output
    for path, (fmt, signature) in zip(out, SIGNATURES.items()):
        assert path.read_bytes().startswith(signature), fmt
        assert f"written to {path}" in result.output


@pytest.mark.parametrize("args, code, message", [
    (["experiment", "nonsense"], 2, "No such command 'nonsense'"),
    (["experiment", "random", "-o", "x.gif"], 2, "end the file name in .png, .svg or .pdf"),
    (["experiment", "random", "--seeds", "0"], 2, "0 is not in the range 1<=x<=100000"),
])
def test_bad_input_is_one_line(args: list[str], code: int, message: str, tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == code and message in result.output, result.output
    assert "Traceback" not in result.output and not list(tmp_path.iterdir())


def test_the_figure_is_a_slide_whose_texts_stay_inside_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from menace.render.experiments import render_experiment

    figures = _drawn(monkeypatch)
    result = ex.run_experiment("random", seeds=2, workers=1)
    render_experiment(result, GAME, tmp_path / "r.png")
    (fig,) = figures
    assert tuple(fig.get_size_inches()) == pytest.approx((13.333, 7.5))
    assert not _crowded(fig), _crowded(fig)
    texts = " ".join(" ".join(t.get_text() for t in fig.findobj(Text)).split())
    assert "The Computer Journal 6(3), 1963, pp. 232-236" in texts
    assert "The block values of the paper's own runs are not included" in texts


# -- Fig. 4: a stored machine's tournament ------------------------------------------------------------
def test_the_fig4_score_is_three_a_win_one_a_draw_less_one_a_loss(db_url: str, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "random", games=120, seed=3)
        run_tournament(m, "smart", games=80, seed=4)
    score = 0
    expected = []
    for record in stored_records(db_url):
        score += {Result.WIN: 3, Result.DRAW: 1, Result.LOSS: -1}[record.result]
        expected.append(score)
    curve = ex.tournament_score(owner(db_url), "menace")
    assert curve.games == list(range(1, 201)) and curve.score == expected
    thinned = ex.tournament_score(owner(db_url), "menace", points=11)
    assert thinned.games[0] == 1 and thinned.games[-1] == 200 and len(thinned.games) == 11
    assert thinned.score == [expected[g - 1] for g in thinned.games]

    figures = _drawn(monkeypatch)
    out = tmp_path / "fig4.png"
    result = CliRunner().invoke(cli, ["--db", db_url, "experiment", "michie-1963-fig4", "-o", str(out)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    w, d, lo = curve.totals
    assert f"menace: 200 games, {w} won, {d} drawn, {lo} lost; 3W + D - L = {expected[-1]}" in result.output
    assert out.read_bytes().startswith(SIGNATURES["png"])
    assert not _crowded(figures[0]), _crowded(figures[0])


def test_fig4_of_a_machine_without_games_is_one_line(db_url: str, tmp_path: Path) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    result = CliRunner().invoke(cli, ["--db", db_url, "experiment", "michie-1963-fig4", "-o",
                                      str(tmp_path / "x.png")])
    assert result.exit_code == 1 and "has played no games yet" in result.output
    assert not (tmp_path / "x.png").exists()


# -- what the runs must show (the bands, on 12 seeds: seeded, so the same every time) ----------
def _mean(result: ex.ExperimentResult, block: int, what: str) -> float:
    b = result.blocks[block - 1]
    assert b.first == 100 * (block - 1) + 1 and b.last == 100 * block
    value: float = getattr(b, what).mean
    return value


def test_fig7_the_opening_learner_wins_more_and_more_but_not_every_game() -> None:
    result = ex.run_experiment("michie-1963-fig7", seeds=12, workers=1)
    assert result.experiment.learners == (Side.X,) and result.experiment.view is Side.X
    assert 55 <= _mean(result, 1, "wins") <= 75
    assert _mean(result, 4, "wins") >= 90
    # "neither of the duplicate runs converged to an infallible standard of play"
    assert _mean(result, 10, "draws") + _mean(result, 10, "losses") >= 1


def test_fig8_the_random_opener_wins_less_and_less_against_the_second_learner() -> None:
    result = ex.run_experiment("michie-1963-fig8", seeds=12, workers=1)
    assert result.experiment.learners == (Side.O,) and result.experiment.view is Side.O
    # the learner's losses are the random opening player's wins
    assert 45 <= _mean(result, 1, "losses") <= 62
    assert _mean(result, 10, "losses") <= 15


def test_fig9_both_learn_the_draws_rise_and_a_line_settles() -> None:
    result = ex.run_experiment("michie-1963-fig9", seeds=12, workers=1)
    draws = [b.draws.mean for b in result.blocks]
    assert draws[0] < 20 and draws[-1] > 80
    found = result.stereotypes()
    assert found is not None and found.stereotyped >= 6 and found.line is not None
    # the line they settled into is a whole game, and a drawn one
    state = GAME.initial()
    for move in found.line:
        state = GAME.play(state, move)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner is None
    for run in result.runs:
        if run.stereotype is not None:
            assert 1 <= run.stereotype.block <= 10


@pytest.mark.slow
def test_the_readme_table_is_fifty_runs_of_each() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    results = [ex.run_experiment(name, seeds=50, workers=1)
               for name in ("michie-1963-fig7", "michie-1963-fig8", "michie-1963-fig9")]
    for block in (1, 4, 10):
        b = results[0].blocks[block - 1]
        cells = [" / ".join(f"{s.mean:.1f}" for s in (r.blocks[block - 1].wins, r.blocks[block - 1].draws,
                                                      r.blocks[block - 1].losses)) for r in results]
        row = f"| {b.first:,}-{b.last:,} | " + " | ".join(cells) + " |"
        assert row in readme, row
    exact = [" / ".join(f"{100 * float(f):.1f}" for f in r.random_average) for r in results]
    assert "| random average (exact) | " + " | ".join(exact) + " |" in readme
