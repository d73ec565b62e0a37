"""Nim's cups through every front-end command, as a teacher would run them, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import Invoke

from menace.cli import cli
from menace.games.nim import NIM


def test_init_builds_20_cups_and_59_beads(menace: Invoke) -> None:
    out = menace("-m", "nim", "init", "--game", "nim").output
    assert "Built machine 'nim' (Nim (21 sticks, take 1-3, last stick loses), classroom)" in out
    assert "20 boxes" in out and "59 beads" in out
    stats = menace("-m", "nim", "stats").output
    assert "matchboxes     20 " in stats and "beads now      59 " in stats
    assert "side           first player and second player" in stats


def test_a_second_player_trained_2000_games_against_perfect(menace: Invoke, tmp_path: Path) -> None:
    """The issue's walk: init, 2,000 games against perfect moving second, check, history, replay,
    undo, export and import, plots and labels."""
    out = menace("-m", "nim", "init", "--game", "nim", "--side", "second").output
    assert "19 boxes" in out and "56 beads" in out  # heaps 2 to 20
    out = menace("-m", "nim", "tournament", "--vs", "perfect", "-n", "2000", "--seed", "5").output
    assert "2,000 games against perfect" in out
    assert "OK (nim; 2,000 games replayed, beads match)" in menace("-m", "nim", "check").output
    # Trained: the last 100 games are all won.
    history = menace("-m", "nim", "history", "--last", "100").output
    assert history.count(" win ") == 100, history
    replay = menace("-m", "nim", "replay", "2000").output
    assert "MENACE plays second player" in replay and "sticks" in replay and "opens box" in replay
    menace("-m", "nim", "export", str(tmp_path / "nim.json"))
    dump = json.loads((tmp_path / "nim.json").read_text())
    assert dump["machine"]["game"] == "nim"
    menace("-m", "nim", "undo", "--games", "3")
    assert "1,997 games replayed" in menace("-m", "nim", "check").output
    menace("import", str(tmp_path / "nim.json"), "--as", "copy")
    assert "2,000 games replayed" in menace("-m", "copy", "check").output
    menace("-m", "nim", "plot", "learning", "-o", str(tmp_path / "learning.png"))
    menace("-m", "nim", "plot", "boxes", "-o", str(tmp_path / "boxes.png"))
    menace("-m", "nim", "plot", "beads", "--box", "3", "-o", str(tmp_path / "beads.svg"))
    assert all((tmp_path / f).stat().st_size > 1000 for f in ("learning.png", "boxes.png", "beads.svg"))
    out = menace("-m", "nim", "labels", "--out", str(tmp_path / "cups.pdf")).output
    assert "19 labels" in out


def test_a_variant_keeps_its_rules_through_export_and_import(menace: Invoke, tmp_path: Path) -> None:
    out = menace("-m", "big", "init", "--game", "nim", "--heap", "50", "--take", "2", "--last-stick", "wins").output
    assert "Nim (50 sticks, take 1-2, last stick wins)" in out and "49 boxes" in out
    # Games of 25 to 50 moves: stored with their length in a byte of their own.
    menace("-m", "big", "tournament", "--vs", "random", "-n", "300", "--seed", "2")
    assert "300 games replayed" in menace("-m", "big", "check").output
    menace("-m", "big", "export", str(tmp_path / "big.json"))
    assert json.loads((tmp_path / "big.json").read_text())["machine"]["game"] == "nim-50-2-normal"
    menace("import", str(tmp_path / "big.json"), "--as", "big2")
    assert "300 games replayed" in menace("-m", "big2", "check").output
    assert "Nim (50 sticks" in menace("-m", "big2", "stats").output


def test_a_person_plays_at_the_terminal(menace: Invoke) -> None:
    menace("init", "--game", "nim", "--side", "second")
    # The person (first) takes 1 every time; a bad number gets a new prompt.
    out = menace("play", "--games", "1", input="\n".join(["9", "x"] + ["1"] * 21) + "\n").output
    assert "You are first player; MENACE ('menace') is second player." in out
    assert "21 sticks" in out and "| | | | | | | | | |" in out
    assert "'9' is not a move: type how many sticks to take, 1 to 3" in out
    assert "MENACE opens box" in out and ("MENACE wins." in out or "You win!" in out)
    assert "1 game replayed" in menace("check").output


def test_operate_and_reconcile_a_real_set_of_cups(menace: Invoke) -> None:
    menace("init", "--game", "nim", "--side", "second")
    # The other side takes 1 each time; the operator always shakes out amber (take 1).
    out = menace("operate", input="1\nA\n" * 11).output
    assert "Amber (A) means take 1: make that move for second player." in out
    assert "1 game replayed" in menace("check").output
    out = menace("reconcile", "2", "--count", "A=3", "--count", "S=0", "--count", "G=1").output
    assert "Recorded as a correction" in out
    assert "A=3, S=0, G=1" in menace("show", "2").output
    assert "beads match" in menace("check").output


def run(*args: str, code: int) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == code, result.output
    return result.output


def test_opponents_says_who_plays_nim() -> None:
    out = run("opponents", "--game", "nim", code=0)
    assert out.startswith("random") and "perfect" in out and "smart" not in out and "td" not in out
    assert "plays: tictactoe only" in run("opponents", code=0)


def test_a_player_that_does_not_fit_is_refused_in_one_line(tmp_path: Path) -> None:
    db = str(tmp_path / "nim.db")
    run("--db", db, "init", "--game", "nim", code=0)
    for args in (("--db", db, "tournament", "--vs", "smart", "-n", "5"),
                 ("arena", "--game", "nim", "--players", "random,smart", "-n", "2"),
                 ("sweep", "--game", "nim", "--vs", "td", "--seeds", "2", "--games", "10")):
        out = CliRunner().invoke(cli, list(args)).output
        lines = [line for line in out.splitlines() if line.strip()]
        assert "plays tictactoe only" in out and len([line for line in lines if "Error" in line]) == 1, out
        assert "Traceback" not in out


@pytest.mark.parametrize("args,message", [
    (("--heap", "4"), "'--heap': 4 is not in the range 5<=x<=50"),
    (("--take", "6"), "'--take': 6 is not in the range 2<=x<=5"),
    (("--last-stick", "maybe"), "'--last-stick': 'maybe' is not one of 'loses', 'wins'"),
])
def test_rules_out_of_range_are_usage_errors(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    out = run("--db", str(tmp_path / "x.db"), "init", "--game", "nim", *args, code=2)
    assert message in out and not (tmp_path / "x.db").exists()


def test_a_rule_for_another_game_is_a_usage_error(tmp_path: Path) -> None:
    out = run("--db", str(tmp_path / "x.db"), "init", "--heap", "15", code=2)
    assert "Invalid value for '--heap': noughts and crosses has no rule 'heap' to choose" in out


def test_arena_and_sweep_play_nim() -> None:
    out = run("arena", "--game", "nim", "--heap", "15", "--players", "random,perfect", "-n", "50", "--seed", "1",
              code=0)
    assert "perfect" in out and "random" in out
    out = run("sweep", "--game", "nim", "--vs", "perfect", "--side", "O", "--seeds", "8", "--games", "300",
              "--eval-games", "50", "--workers", "1", code=0)
    assert "side=O" in out and "1000/0/0" in out


def test_the_cup_drawn_in_text() -> None:
    from menace.render.text import board_lines

    lines = board_lines(NIM, NIM.decode("13"))
    assert lines[0].split() == ["|"] * 10 and lines[1].split() == ["|"] * 3 and lines[-1].strip() == "13 sticks"
