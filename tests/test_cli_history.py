"""``menace history``, ``replay``, ``undo`` and ``menace plot ...`` from the command line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from conftest import Invoke, built_database, owner, train_300
from history_helpers import stored_beads

from menace.cli import cli
from menace.cli.history import history, plot, replay, undo

COMMANDS = (history, replay, undo, plot)

SIGNATURES = {"png": b"\x89PNG\r\n\x1a\n", "svg": b"<?xml", "pdf": b"%PDF-"}


@pytest.fixture
def played(request: pytest.FixtureRequest, db_url: str, menace: Invoke) -> Invoke:
    built_database(request, db_url, "smart-300", train_300)  # init, then 300 games against smart (seed 1)
    return menace


def table_rows(output: str) -> list[list[str]]:
    lines = output.splitlines()
    assert lines[0].split()[:3] == ["game", "run", "opponent"]
    return [line.split() for line in lines[1:-1]]


def test_history_lists_the_last_twenty_games(played: Invoke) -> None:
    out = played("history").output
    rows = table_rows(out)
    assert [r[0] for r in rows] == [str(n) for n in range(281, 301)]
    assert all(r[1] == "tournament" and r[2] == "smart" and r[3] == "X" for r in rows)
    assert all(r[4] in ("win", "draw", "loss") for r in rows)
    assert all(len(r) >= 5 + 5 or "resigns)" in r for r in rows)  # a game has five moves or more
    assert "20 games shown; 'menace' has played 300. See one move by move with: menace --db " in out
    assert out.rstrip().endswith(" -m menace replay 300")


def test_history_filters(played: Invoke) -> None:
    rows = table_rows(played("history", "--result", "draw", "--last", "5").output)
    assert len(rows) == 5 and all(r[4] == "draw" for r in rows)
    assert [int(r[0]) for r in rows] == sorted(int(r[0]) for r in rows)
    rows = table_rows(played("history", "--from", "10", "--to", "12").output)
    assert [r[0] for r in rows] == ["10", "11", "12"]
    rows = table_rows(played("history", "--from", "100", "--last", "3").output)
    assert [r[0] for r in rows] == ["298", "299", "300"]
    out = played("history", "--opponent", "random").output
    assert out == "No games match; 'menace' has played 300 games.\n"
    played("tournament", "--vs", "random", "-n", "10", "--seed", "2")
    rows = table_rows(played("history", "--opponent", "smart", "--last", "2").output)
    assert [r[0] for r in rows] == ["299", "300"]


def test_history_bad_range_and_no_games(menace: Invoke) -> None:
    menace("init")
    assert "has played no games yet" in menace("history").output
    result = menace("history", "--from", "12", "--to", "10", ok=False)
    assert result.exit_code == 2
    assert "Invalid value for '--from': --from 12 is after --to 10" in result.output


def test_replay_shows_boxes_symmetries_beads_and_reinforcement(played: Invoke) -> None:
    out = played("replay", "1").output
    assert out.startswith("Game 1 of 'menace' (tournament against smart, run 1); MENACE plays X.")
    assert "1. MENACE (X) opens box 1; the board matches its drawing as it is." in out
    assert "   beads in the box: W=4, K=4, G=4" in out
    assert "2. smart (O) plays" in out
    assert "box's drawing" in out and "board after the move" in out
    assert "Result: " in out and "Learning rule +3 win, +1 draw, \u22121 loss" in out
    assert "  box    1: " in out


def test_replay_of_a_missing_game(played: Invoke) -> None:
    result = played("replay", "301", ok=False)
    assert result.exit_code == 1
    assert result.output == "Error: no game 301: 'menace' has played 300 games\n"
    assert played("replay", "0", ok=False).exit_code == 2


def test_undo_five_times_returns_the_beads_of_five_games_earlier(played: Invoke, db_url: str) -> None:
    url = db_url
    before = stored_beads(url)
    played("tournament", "--vs", "smart", "-n", "5", "--seed", "2")
    assert stored_beads(url) != before
    out = played("undo").output
    assert out.startswith("Undid game 305 (tournament against smart, MENACE X, ")
    assert "Beads restored:\n  box    1: " in out
    assert out.endswith("'menace' has played 304 games now.\n")
    for n in (304, 303, 302, 301):
        assert played("undo").output.startswith(f"Undid game {n} ")
    assert stored_beads(url) == before
    assert table_rows(played("history", "--last", "1").output)[0][0] == "300"


def test_undo_several_and_nothing_left(menace: Invoke) -> None:
    menace("init")
    result = menace("undo", ok=False)
    assert result.exit_code == 1
    assert result.output == "Error: 'menace' has played no games: nothing to undo\n"
    menace("tournament", "--vs", "random", "-n", "4", "--seed", "3")
    result = menace("undo", "--games", "5", ok=False)
    assert result.output == "Error: 'menace' has played only 4 games; cannot undo 5\n"
    out = menace("undo", "--games", "4").output
    assert [line.split()[2] for line in out.splitlines() if line.startswith("Undid")] == ["4", "3", "2", "1"]
    assert out.endswith("'menace' has played 0 games now.\n")
    assert menace("undo", "--games", "0", ok=False).exit_code == 2


# Each format on SQLite; the plots read PostgreSQL in test_plots_default_file_names, the format is the same.
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
def test_each_plot_writes_the_format_its_name_says(played: Invoke, tmp_path: Path, fmt: str) -> None:
    """Each plot, written by the command, in each format (an extension in capitals too), is a file of
    that format. (tests/test_plots.py drew the same nine files through the library's functions, which
    the command calls; they are drawn once, here.) The wall of boxes is HER's, 19 boxes: the same
    drawing and writing as tic-tac-toe's 304 boxes at a fifth of the cost; tic-tac-toe's wall is
    written as PNG in test_plots_default_file_names, and as PDF and SVG by the examples of the help
    and the documentation (tests/test_examples.py)."""
    played("-m", "her", "init", "--game", "hexapawn")
    for machine, what, extra in (("menace", "beads", ["--box", "2"]), ("menace", "learning", ["--window", "50"]),
                                 ("her", "boxes", [])):
        out = tmp_path / f"{what}.{fmt.upper() if what == 'boxes' else fmt}"
        result = played("-m", machine, "plot", what, *extra, "--out", str(out))
        assert result.output.startswith(f"Wrote {out}: ")
        assert out.read_bytes().startswith(SIGNATURES[fmt]), out
        assert out.stat().st_size > 10_000, out


def test_plots_default_file_names(played: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert played("plot", "beads").output == "Wrote menace-beads.png: box 1 of 'menace' over 300 games.\n"
    assert played("plot", "learning").output == (
        "Wrote menace-learning.png: 300 games of 'menace', rates over 30 games.\n")
    assert played("plot", "boxes").output == "Wrote menace-boxes.png: 304 boxes of 'menace' after 300 games.\n"
    assert sorted(p.name for p in tmp_path.glob("*.png")) == [
        "menace-beads.png", "menace-boxes.png", "menace-learning.png"]


def test_plot_errors(played: Invoke, tmp_path: Path) -> None:
    result = played("plot", "beads", "--out", str(tmp_path / "beads.jpg"), ok=False)
    assert result.exit_code == 2
    assert "'beads.jpg': end the file name in .png, .svg or .pdf" in result.output
    result = played("plot", "boxes", "--out", str(tmp_path / "nowhere" / "b.png"), ok=False)
    assert result.exit_code == 1 and "does not exist" in result.output  # a file that cannot be written
    result = played("plot", "beads", "--box", "999", "--out", str(tmp_path / "b.png"), ok=False)
    assert result.exit_code == 1
    assert result.output == "Error: no box 999: the machine has boxes 1 to 304\n"
    assert not (tmp_path / "b.png").exists()


def test_plot_learning_with_no_games(menace: Invoke, tmp_path: Path) -> None:
    """As plot beads draws a new machine's box: its empty axes, saying why (it was an error)."""
    menace("init")
    result = menace("plot", "learning", "--out", str(tmp_path / "l.png"))
    assert result.output == f"Wrote {tmp_path / 'l.png'}: 'menace' has played no games yet (an empty plot).\n"


def test_unknown_machine_is_one_line(played: Invoke) -> None:
    result = played("-m", "nobody", "history", ok=False)
    assert result.exit_code == 1 and result.output.startswith("Error: no machine named 'nobody'")
    assert len(result.output.splitlines()) == 1


def test_every_history_command_has_help_with_an_example() -> None:
    def walk(group: click.Group, prefix: str) -> Iterator[tuple[str, click.Command]]:
        for name, cmd in group.commands.items():
            yield f"{prefix}{name}", cmd
            if isinstance(cmd, click.Group):
                yield from walk(cmd, f"{prefix}{name} ")

    names = []
    for cmd in COMMANDS:
        assert cmd.name is not None
        names.append((cmd.name, cmd))
        if isinstance(cmd, click.Group):
            names.extend(walk(cmd, f"{cmd.name} "))
    assert [n for n, _ in names] == ["history", "replay", "undo", "plot", "plot beads", "plot learning",
                                     "plot boxes"]
    for name, cmd in names:
        assert cmd.help and f"menace {name}" in cmd.help, name
        result = CliRunner().invoke(cli, [*name.split(), "--help"])
        assert result.exit_code == 0 and "Usage:" in result.output


def test_history_shows_reconcile_corrections_among_the_games(menace: Invoke) -> None:
    menace("init")
    menace("tournament", "--vs", "smart", "-n", "5", "--seed", "1")
    said = menace("reconcile", "1", "--count", "W=9", "--count", "K=7", "--count", "G=5").output
    # "Box 1 white: 4 -> 9": the counts before, as reconcile itself reported them
    olds = {line.split()[2].rstrip(":"): line.split()[3] for line in said.splitlines() if line.startswith("Box 1 ")}
    assert olds  # the counts changed
    menace("tournament", "--vs", "smart", "-n", "2", "--seed", "2")
    menace("reconcile", "2", "--count", "A=0", input="\n" * 6)  # the other colours as they are
    lines = menace("history").output.splitlines()
    numbers = [line.split()[0] for line in lines[1:-1]]
    assert numbers == ["1", "2", "3", "4", "5", "after", "6", "7", "after"]
    fix = lines[1 + numbers.index("after")]
    letters = {"white": "W", "black": "K", "green": "G"}
    expected = ", ".join(f"{letters[name]} {old} -> {new}" for name, old, new in
                         [(n, olds[n], {"white": 9, "black": 7, "green": 5}[n]) for n in ("white", "black", "green")
                          if n in olds])
    assert fix.split(None, 3)[:3] == ["after", "game", "5:"]
    assert fix.endswith(f"box 1: {expected}; recount of box 1 (menace reconcile)")
    assert lines[-2].startswith("after game 7: box 2: A ")
    assert lines[-2].endswith(" -> 0; recount of box 2 (menace reconcile)")
    # A range shows only the corrections made inside it; a filter keeps them too.
    assert "box 1:" not in menace("history", "--from", "6", "--to", "6").output
    assert "box 1" in menace("history", "--from", "5", "--to", "6").output


def test_plot_beads_from_to_reads_only_that_range(played: Invoke, db_url: str, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """--from/--to ask the history for the range (replayed from the checkpoint nearest its start), not
    the whole history cropped: the series drawn starts at game N-1 and ends at game M."""
    import menace.app.history as app_history

    asked: list[tuple[int | None, int | None, list[int]]] = []
    real = app_history.beads_series

    def spy(url: str, name: str, box: int = 1, points: int = app_history.BEAD_POINTS,
            first: int | None = None, last: int | None = None) -> object:
        data = real(url, name, box, points, first, last)
        asked.append((first, last, list(data.series.games)))
        return data

    monkeypatch.setattr(app_history, "beads_series", spy)
    out = tmp_path / "range.png"
    result = played("plot", "beads", "--from", "120", "--to", "180", "-o", str(out))
    assert result.output == f"Wrote {out}: box 1 of 'menace', games 120 to 180 of 300.\n"
    assert out.read_bytes().startswith(SIGNATURES["png"])
    first, last, games = asked[-1]
    assert (first, last) == (120, 180) and games[0] == 119 and games[-1] == 180
    whole = real(owner(db_url), "menace", 1)
    ranged = real(owner(db_url), "menace", 1, first=120, last=180)
    assert [whole.series.at(g) for g in games] == [ranged.series.at(g) for g in games]
    played("plot", "beads", "--from", "0", "--to", "0", "-o", str(out))  # the box as built
    assert asked[-1][2] == [0]


def test_show_at_game_n_draws_the_box_as_it_stood_then(played: Invoke, db_url: str) -> None:
    """menace show BOX --at N: the box after game N, replayed from the checkpoint before it."""
    from menace.app.history import box_at

    def counts(output: str) -> list[int]:
        # "  G green  b2  1,234 ( 12.3%)  started with 4": the count is the column before the share
        return [int(line.split("(")[0].split()[-1].replace(",", "")) for line in output.splitlines()
                if "started with" in line]

    built = played("show", "1", "--at", "0").output
    assert built.startswith("Box 1 of 'menace' after game 0 (as built): MENACE's move 1")
    assert counts(built) == [4, 4, 4]
    at_150 = played("show", "1", "--at", "150").output
    assert at_150.startswith("Box 1 of 'menace' after game 150: ")
    assert counts(at_150) == list(box_at(owner(db_url), "menace", 1, 150).values())
    assert counts(played("show", "1", "--at", "300").output) == counts(played("show", "1").output)
    by_position = played("show", "X...O....", "--at", "150").output  # a box by its position
    number = int(by_position.split()[1])
    assert counts(by_position) == list(box_at(owner(db_url), "menace", number, 150).values())
    result = played("show", "1", "--at", "301", ok=False)
    assert result.exit_code == 1 and result.output == "Error: no game 301: 'menace' has played 300 games\n"


def test_history_says_when_later_games_are_only_summaries(menace: Invoke, db_url: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import menace.app.tournament as tournament
    from menace.app.machines import open_machine
    from menace.app.tournament import run_tournament

    monkeypatch.setattr(tournament, "FLUSH_GAMES", 500)  # blocks of 500: the first two kept
    # ...and only of 500: no write on the clock, which would cut the blocks where a busy machine happens to be
    monkeypatch.setattr(tournament, "FIRST_FLUSH_SECONDS", 1e9)
    menace("init")
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "random", games=3_000, seed=1, keep_games=1_000, flush_seconds=1e9)
    out = menace("history", "--last", "3").output
    assert "Games 1,001 to 3,000 are kept only as summaries" in out and "1,000  tournament" in out, out


def test_history_names_summarized_games_amid_kept_ones_and_under_filters(menace: Invoke, db_url: str,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Games kept after a run's summaries (a game at the terminal, a --keep-all run) do not hide them,
    and a filter does not either: the list says which games it cannot show."""
    import menace.app.tournament as tournament
    from menace.app.machines import open_machine
    from menace.app.tournament import run_tournament

    monkeypatch.setattr(tournament, "FLUSH_GAMES", 500)
    monkeypatch.setattr(tournament, "FIRST_FLUSH_SECONDS", 1e9)
    menace("init")
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "random", games=3_000, seed=1, keep_games=1_000, flush_seconds=1e9)
        run_tournament(m, "random", games=5, seed=2, keep_games=None, flush_seconds=1e9)
    note = "Games 1,001 to 3,000 are kept only as summaries"
    out = menace("history", "--last", "8").output  # games 998 to 1,000, then 3,001 to 3,005
    assert "\n1,000  tournament" in out and "3,005  tournament" in out and note in out, out
    out = menace("history", "--opponent", "random", "--last", "8").output
    assert note in out, out
    out = menace("history", "--last", "3").output  # 3,003 to 3,005: none missing among them
    assert "3,005  tournament" in out and "only as summaries" not in out, out
    out = menace("history", "--from", "990", "--to", "995").output
    assert "only as summaries" not in out, out  # none of the games asked for is summarized
