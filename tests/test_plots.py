"""Each plot's data series equal the history; the files are what their names say."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import built_database, owner
from history_helpers import play_person_games, stored_machine, stored_records

from menace.app import series
from menace.app.history import beads_series as beads_plot_data
from menace.app.history import learning_series as learning_plot_data
from menace.app.history import wall as boxes_plot_data
from menace.app.machines import init_machine, machine_summary, open_machine
from menace.app.tournament import run_tournament
from menace.core.learner import Box
from menace.core.replay import UnknownBoxError
from menace.core.settings import MICHIE, Settings
from menace.render import plots
from menace.render.text import rule_text

SIGNATURES = {"png": b"\x89PNG\r\n\x1a\n", "svg": b"<?xml", "pdf": b"%PDF-"}


def train_mixed(url: str) -> None:
    init_machine(owner(url), "menace", MICHIE, None)
    with open_machine(owner(url), "menace", holder="a test") as m:
        run_tournament(m, "random", games=200, seed=1)
        play_person_games(m, 2, seed=2)
        run_tournament(m, "smart", games=300, seed=3)
        run_tournament(m, "random", games=100, seed=4)


@pytest.fixture
def trained(request: pytest.FixtureRequest, db_url: str) -> str:
    """Michie's machine after 200 games against random, 2 at the terminal, 300 against smart, 100 random."""
    return built_database(request, db_url, "mixed-700", train_mixed)


def test_beads_series_ends_at_the_stored_beads(trained: str) -> None:
    stored = stored_machine(trained)
    for box in (1, 2, 14):
        data = beads_plot_data(owner(trained), "menace", box)
        series = data.series
        assert data.box.number == box and data.games_played == 602
        assert series.at(0) == stored.boxes[box - 1].initial
        assert dict(zip(series.beads, series.counts[-1])) == stored.boxes[box - 1].beads
        assert all(c >= 0 for point in series.counts for c in point)
        assert all(a < b for a, b in zip(series.games, series.games[1:]))
    assert data.opponents == [(1, "random"), (201, "person (play)"), (203, "smart"), (503, "random")]
    with pytest.raises(UnknownBoxError, match="no box 305"):
        beads_plot_data(owner(trained), "menace", 305)


def test_the_opening_box_changes_after_every_game_it_learns_from(trained: str) -> None:
    series = beads_plot_data(owner(trained), "menace", 1).series
    # Michie's rule adds or takes beads after every game, and every game opens box 1.
    assert len(series.games) > 500


def _results(url: str) -> np.ndarray:
    """Every stored game's result for MENACE: 0 win, 1 draw, 2 loss."""
    return np.array([series.RESULT_CODE[r.result] for r in stored_records(url)], dtype=np.int64)


def test_learning_series_equal_the_results(trained: str) -> None:
    data = learning_plot_data(owner(trained), "menace")
    summary = machine_summary(owner(trained), "menace")
    n = summary.games
    results = _results(trained)
    assert data.played == len(data.games) == n == 602  # a short history: every game is a point
    assert list(data.games) == list(range(1, n + 1))
    assert data.cumulative[-1] == summary.wins * 3 + summary.draws * 1 + summary.losses * -1
    assert data.totals == (summary.wins, summary.draws, summary.losses)
    assert np.all(np.diff(data.cumulative) == np.array([3, 1, -1])[results[1:]])
    assert data.window == 60  # a tenth of a short history
    assert data.rate_games[0] == data.window and data.rate_games[-1] == n
    rates = np.stack([data.win_rate, data.draw_rate, data.loss_rate])
    assert rates.shape == (3, n - data.window + 1)
    assert np.all((rates >= 0) & (rates <= 1))
    assert np.allclose(rates.sum(axis=0), 1.0)
    last = results[-data.window:]
    assert data.win_rate[-1] == pytest.approx(np.mean(last == 0))
    assert data.opponents == [(1, "random"), (201, "person (play)"), (203, "smart"), (503, "random")]
    assert rule_text(data.settings) == "+3 win, +1 draw, \u22121 loss"


def test_a_thinned_learning_series_keeps_its_points_exact(trained: str) -> None:
    full = learning_plot_data(owner(trained), "menace", window=50)
    thin = learning_plot_data(owner(trained), "menace", window=50, points=40)
    assert len(thin.games) <= 40 and len(thin.rate_games) <= 40
    assert thin.games[0] == 1 and thin.games[-1] == 602
    index = {g: i for i, g in enumerate(full.games)}
    assert [full.cumulative[index[g]] for g in thin.games] == list(thin.cumulative)
    rate_index = {g: i for i, g in enumerate(full.rate_games)}
    assert [full.loss_rate[rate_index[g]] for g in thin.rate_games] == pytest.approx(list(thin.loss_rate))
    part = learning_plot_data(owner(trained), "menace", window=10, first=203, last=502)
    results = _results(trained)[202:502]
    assert part.games[0] == 203 and part.games[-1] == 502
    assert part.cumulative[-1] == int(np.array([3, 1, -1])[results].sum())
    assert part.opponents == [(203, "smart")]


def test_learning_window_and_rule_follow_the_machine(db_url: str) -> None:
    init_machine(owner(db_url), "ruby", Settings(win=2, draw=0, loss=-1), None)
    with open_machine(owner(db_url), "ruby", holder="a test") as m:
        run_tournament(m, "random", games=50, seed=1)
    data = learning_plot_data(owner(db_url), "ruby", window=500)
    assert data.window == 50 and len(data.win_rate) == 1  # a window longer than the history: all of it
    assert rule_text(data.settings) == "+2 win, +0 draw, \u22121 loss"
    w, d, l_ = data.totals
    assert data.cumulative[-1] == 2 * w - l_
    with pytest.raises(plots.PlotError, match="at least 1"):
        learning_plot_data(owner(db_url), "ruby", window=0)


def test_no_games_no_learning_plot(db_url: str) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    with pytest.raises(plots.PlotError, match="has played no games yet"):
        learning_plot_data(owner(db_url), "menace")


def test_boxes_data_are_the_stored_boxes(trained: str) -> None:
    data = boxes_plot_data(owner(trained), "menace")
    stored = stored_machine(trained)
    assert data.games_played == 602
    assert [move for move, _ in data.groups] == [1, 2, 3, 4]
    assert [len(g) for _, g in data.groups] == [1, 12, 108, 183]
    assert [b.beads for b in data.boxes] == [b.beads for b in stored.boxes]


def plot_beads(url: str, name: str, out: Path, box: int = 1) -> None:
    plots.output_format(out)  # as the command does: a bad file name is refused before any work
    plots.render_beads(beads_plot_data(owner(url), name, box), out)


def plot_learning(url: str, name: str, out: Path) -> None:
    plots.output_format(out)
    plots.render_learning(learning_plot_data(owner(url), name), out)


def plot_boxes(url: str, name: str, out: Path) -> None:
    plots.output_format(out)
    plots.render_boxes(boxes_plot_data(owner(url), name), out)


def test_dot_sizes() -> None:
    assert series.dot_fraction(0, 10) == 0
    assert series.dot_fraction(10, 10) == 1
    assert series.dot_fraction(5, 10) == 0.5
    assert series.dot_fraction(1, 1000) == series.MIN_DOT


# The drawing's own properties, on SQLite: the data are read from PostgreSQL in the tests above, and
# each plot's file formats are tested from the command line (tests/test_cli_history.py).
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("fmt", ["svg", "pdf"])
def test_vector_files_are_byte_identical_for_the_same_data(trained: str, tmp_path: Path, fmt: str) -> None:
    data = learning_plot_data(owner(trained), "menace")
    plots.render_learning(data, tmp_path / f"a.{fmt}")
    plots.render_learning(data, tmp_path / f"b.{fmt}")
    assert (tmp_path / f"a.{fmt}").read_bytes() == (tmp_path / f"b.{fmt}").read_bytes()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_png_size_reads_on_a_projector(trained: str, tmp_path: Path) -> None:
    import struct

    plot_beads(trained, "menace", tmp_path / "b.png")
    header = (tmp_path / "b.png").read_bytes()[16:24]
    assert struct.unpack(">II", header) == (1800, 1050)  # 12 x 7 inches at 150 dpi


def test_other_extensions_are_refused_before_any_work(tmp_path: Path) -> None:
    with pytest.raises(plots.PlotError, match=r"end the file name in \.png, \.svg or \.pdf"):
        plot_beads("sqlite:///nowhere/at/all.db", "menace", tmp_path / "beads.jpg")
    with pytest.raises(plots.PlotError):
        plots.output_format("plot")
    assert plots.output_format("A.PDF") == "pdf"


def test_a_fresh_machine_shows_its_starting_box_and_ranges_and_log_draw(db_url: str, tmp_path: Path) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    plot_beads(db_url, "menace", tmp_path / "fresh.png")
    assert (tmp_path / "fresh.png").read_bytes().startswith(SIGNATURES["png"])
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "smart", games=300, seed=1)
    data = beads_plot_data(owner(db_url), "menace", 1)
    plots.render_beads(data, tmp_path / "first50.png", last=50)
    plots.render_beads(data, tmp_path / "log.svg", log=True)
    with pytest.raises(plots.PlotError, match="no games from 200 to 100"):
        plots.render_beads(data, tmp_path / "bad.png", first=200, last=100)
    assert [plots.compact(n) for n in (950, 12_500, 450_000, 1_200_000, 2_249_640)] == \
        ["950", "12.5k", "450k", "1.2M", "2.25M"]
    assert series.default_window(21) == 10 and series.default_window(5) == 5  # no "last 2 games" zigzag


def test_a_long_history_is_drawn_where_it_is_known(sqlite_url: str, monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    """Past REPLAY_GAMES the series comes from checkpoints 20,000 games apart: the first interval is
    replayed (box 1 grows fastest there), and every point drawn is a count the history gives at that
    game, joined by straight lines; nothing is held flat from one checkpoint to the next."""
    import menace.app.history as app_history
    from menace.core.replay import bead_history
    from menace.games import find_game

    monkeypatch.setattr(app_history, "REPLAY_GAMES", 1_000)
    init_machine(owner(sqlite_url), "menace", MICHIE, "michie")
    with open_machine(owner(sqlite_url), "menace", holder="a test") as m:
        run_tournament(m, "random", games=50_000, seed=4)
    stored = stored_machine(sqlite_url)
    exact = bead_history(find_game("tictactoe"), MICHIE, stored.boxes, stored_records(sqlite_url), 0)
    data = beads_plot_data(owner(sqlite_url), "menace", 1)
    games, counts = series.bead_growth(data.series, plots.MAX_POINTS)
    assert sum(1 for g in games if 0 < g < 20_000) >= 10  # the first interval, replayed
    for g, c in zip(games, counts):
        assert c == tuple(exact.at(g)[m] for m in data.series.beads), g
    figures: list[plots.Figure] = []
    monkeypatch.setattr(plots, "save", lambda fig, path: figures.append(fig) or Path(path))
    plots.render_beads(data, tmp_path / "b.png", log=True)
    ticks = [t.get_text() for t in figures[0].axes[0].get_yticklabels()]
    assert "0" not in ticks and "1" in ticks and "1,000" in ticks, ticks


def _drawn(monkeypatch: pytest.MonkeyPatch) -> list[plots.Figure]:
    figures: list[plots.Figure] = []
    original = plots.save

    def keep(fig: plots.Figure, path: str | Path) -> Path:
        out = original(fig, path)
        figures.append(fig)
        return out

    monkeypatch.setattr(plots, "save", keep)
    return figures


def _crowded(fig: plots.Figure) -> list[str]:
    """Texts that leave the figure or overlap another, as they were written."""
    boxes = plots.text_boxes(fig)
    frame = fig.bbox
    out = [f"outside: {t.get_text()!r}" for t, b in boxes
           if b.x0 < frame.x0 - 1 or b.x1 > frame.x1 + 1 or b.y0 < frame.y0 - 1 or b.y1 > frame.y1 + 1]
    for i, (t, b) in enumerate(boxes):
        for u, c in boxes[i + 1:]:
            if b.overlaps(c) and min(b.x1, c.x1) - max(b.x0, c.x0) > 1 and min(b.y1, c.y1) - max(b.y0, c.y0) > 1:
                out.append(f"overlap: {t.get_text()!r} / {u.get_text()!r}")
    return out


@pytest.mark.parametrize("games", [1_300_000, 10**9])
def test_plots_stay_legible_with_counts_up_to_a_billion(games: int, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from menace.core.replay import BeadSeries
    from menace.games import find_game

    figures = _drawn(monkeypatch)
    # Each figure as plots.save leaves it, its titles fitted (legible()) and laid out as the file would
    # be (the same dpi, no cropping): where its texts are is the layout's, so no file is painted.
    monkeypatch.setattr(plots, "save_figure", lambda fig, path, fmt: Path(path))
    game = find_game("tictactoe")
    box = stored_boxes = machine_boxes()
    box = stored_boxes[0]
    n = games
    beads = BeadSeries(box, tuple(sorted(box.initial)), [0, n // 100, n // 2, n],
                       [(4, 4, 4), (n // 50, n // 90, n // 7), (n // 5, n // 40, n),
                        (3 * n // 10, n // 30, 3 * n // 2)])
    data = series.beads_data(game, "menace", MICHIE, beads, [(1, "random"), (n // 3, "perfect")], n)
    plots.render_beads(data, tmp_path / "b.png")
    plots.render_beads(data, tmp_path / "r.png", 0, n // 13)
    plots.render_beads(data, tmp_path / "l.png", log=True)
    points = np.linspace(1, n, 400).astype(np.int64)
    learning = series.LearningData(
        "menace", MICHIE, points, points * 3, n // 200, points, np.full(400, 0.95), np.full(400, 0.04),
        np.full(400, 0.01), [(1, "random"), (n // 3, "perfect")], (n * 95 // 100, n * 4 // 100, n // 100), 1, n, n)
    plots.render_learning(learning, tmp_path / "c.png")
    assert len(figures) == 4
    for fig in figures:
        assert not _crowded(fig), _crowded(fig)


def machine_boxes() -> list[Box]:
    from menace.core.learner import build_boxes
    from menace.games import find_game

    return build_boxes(find_game("tictactoe"), MICHIE)


def test_a_pegasus_hexapawn_machine_is_plotted_in_outcomes_and_chances(sqlite_url: str, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Gardner's HER learning by the Pegasus rule: its learning curve adds up each game's outcome (+1, 0,
    −1), not the Gardner beads its preset names (0, 0, −1: the curve only fell while it won); its wall
    of boxes gives each move's chance, not weights of about 4.3 billion written over one another."""
    from conftest import invoker

    figures = _drawn(monkeypatch)
    menace = invoker(sqlite_url)
    menace("init", "--game", "hexapawn", "--rule", "pegasus")
    menace("tournament", "--vs", "random", "-n", "120", "--seed", "2")
    data = learning_plot_data(owner(sqlite_url), "menace")
    w, d, l_ = data.totals
    assert w > l_ and data.cumulative[-1] == w - l_
    menace("plot", "learning", "-o", str(tmp_path / "l.png"))
    menace("plot", "boxes", "-o", str(tmp_path / "w.png"))
    texts = [t.get_text() for fig in figures for t, _ in plots.text_boxes(fig)]
    assert "cumulative\noutcome\n(+1 win, +0 draw, \u22121 loss)" in texts
    assert not [t for t in texts if "bead" in t or "4,294" in t], texts
    for fig in figures:
        assert not _crowded(fig), _crowded(fig)
