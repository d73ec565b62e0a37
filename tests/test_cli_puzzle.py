"""The ``puzzle`` command group, driven through click's CliRunner with scripted input."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner, Result

from menace.cli.puzzle import puzzle
from menace.puzzles import pegboard as pb

SEED_START = "0 0 0 / 1 0 0 / 0 0 0"


def run(args: list[str], input: str | None = None, *, ok: bool = True) -> Result:
    return CliRunner().invoke(puzzle, args, input=input, catch_exceptions=not ok)


def test_every_command_has_help_with_an_example() -> None:
    assert puzzle.help and "Examples" in puzzle.help
    assert isinstance(puzzle, click.Group)
    for name, command in puzzle.commands.items():
        assert command.help and f"menace puzzle {name}" in command.help
        result = run([name, "--help"])
        assert result.exit_code == 0 and "Examples" in result.output


# ---------------------------------------------------------------------------- MAGIC


def test_magic_solve_prints_the_fewest_presses() -> None:
    result = run(["magic", "--solve", "000100000"])
    assert result.exit_code == 0
    assert "Fewest presses: 3" in result.output
    assert "Keys: 1 6 7" in result.output
    assert "Every one of the 512 grids solvable: yes" in result.output
    assert "Most presses any grid needs: 9" in result.output


def test_magic_solve_accepts_the_seed_layout() -> None:
    assert "Fewest presses: 3" in run(["magic", "--solve", SEED_START]).output


@pytest.mark.parametrize("grid", ["0001", "00010000x", "0 0 0 / 1 0 0 / 0 0 2"])
def test_magic_solve_rejects_a_bad_grid(grid: str) -> None:
    result = run(["magic", "--solve", grid], ok=False)
    assert result.exit_code == 2
    assert "Invalid value for '--solve'" in result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_magic_play_the_seed_game_to_a_win() -> None:
    result = run(["magic", "--start", SEED_START], input="y\n7\n1\n6\n")
    assert result.exit_code == 0
    output = result.output
    assert "Would you like instructions?" in output
    assert "  7           8           9" in output
    assert output.count("Which key? 1-9") == 3
    assert " 0 0 0\n 0 1 0\n 1 1 0" in output
    assert "GOOD! A WIN! in 3 presses." in output


def test_magic_bad_keys_get_a_message_and_a_new_prompt() -> None:
    result = run(["magic", "--start", SEED_START, "--no-instructions"], input="x\n0\n12\n7\n1\n6\n")
    assert result.exit_code == 0
    assert "'x' is not a key" in result.output
    assert "0 is not a key" in result.output
    assert "12 is not a key" in result.output
    assert result.output.count("Which key? 1-9") == 6
    assert "GOOD! A WIN!" in result.output


def test_magic_hint_names_a_key_on_a_shortest_path() -> None:
    result = run(["magic", "--start", SEED_START, "--no-instructions"], input="hint\nq\n")
    assert result.exit_code == 0
    assert "Hint: press 7 (3 presses to go at best)." in result.output
    assert "Quit after 0 presses." in result.output


def test_magic_end_of_input_exits_cleanly() -> None:
    result = run(["magic", "--start", SEED_START, "--no-instructions"], input="7\n", ok=False)
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit)
    assert "Stopped: the puzzle was left unsolved." in result.output


def test_magic_end_of_input_at_the_instructions_question() -> None:
    result = run(["magic", "--seed", "1"], input="", ok=False)
    assert result.exit_code == 1
    assert "Stopped: the puzzle was left unsolved." in result.output


def test_magic_seed_gives_the_same_start() -> None:
    first = run(["magic", "--seed", "42", "--no-instructions"], input="q\n")
    second = run(["magic", "--seed", "42", "--no-instructions"], input="q\n")
    assert first.output == second.output


# ------------------------------------------------------------------------- pegboard


def test_pegboard_prints_the_lecture_table() -> None:
    result = run(["pegboard"])
    assert result.exit_code == 0
    table = result.output.split("Every complete game, by pegs left:\n")[1].split("\n\n")[0]
    rows = {line.split()[0]: line.split()[1:] for line in table.splitlines()[1:-1]}
    assert rows["1"][:2] == ["1,550", "1.12%"] and " ".join(rows["1"][2:]) == "You're Genius"
    assert rows["2"][0] == "20,686" and " ".join(rows["2"][2:]) == "You're Purty Smart"
    assert rows["3"][0] == "62,736" and " ".join(rows["3"][2:]) == "Just Plain Dumb"
    assert rows["10"][0] == "2" and " ".join(rows["10"][2:]) == "Just Plain Eg-no-ra-moose"
    assert rows["Total"] == ["137,846"]
    assert "hole 5 (3,2) empty" in result.output
    assert "One game that leaves a single peg (13 jumps):" in result.output
    assert "Jump 13: " in result.output


def test_pegboard_default_empty_is_the_seed_start() -> None:
    assert run(["pegboard"]).output == run(["pegboard", "--empty", "3,2"]).output
    assert "hole 5 (3,2) empty at the start." in run(["pegboard"]).output


def test_pegboard_other_empty_hole_and_rows() -> None:
    assert "568,630" in run(["pegboard", "--empty", "1,1"]).output
    assert "No peg can jump into that hole" in run(["pegboard", "--rows", "4"]).output


@pytest.mark.parametrize("empty", ["6,1", "0", "x"])
def test_pegboard_rejects_a_bad_empty_hole(empty: str) -> None:
    result = run(["pegboard", "--empty", empty], ok=False)
    assert result.exit_code == 2
    assert "Invalid value for '--empty'" in result.output


def test_pegboard_refuses_to_count_seven_rows() -> None:
    result = run(["pegboard", "--rows", "7"], ok=False)
    assert result.exit_code == 1
    assert "too large to search" in result.output


def _winning_moves() -> str:
    board = pb.Board(5)
    game = pb.one_peg_game(board, board.start(board.hole_at(3, 2)))
    assert game is not None
    return "".join(f"{jump.start + 1}-{jump.end + 1}\n" for jump in game)


def test_pegboard_play_to_a_single_peg() -> None:
    result = run(["pegboard", "--play"], input="hint\n" + _winning_moves())
    assert result.exit_code == 0
    assert "Hint: jump 12 (5,2) over 8 (4,2) to 5 (3,2)." in result.output
    assert "No jump is left: 1 peg left. You're Genius!" in result.output


def test_pegboard_play_rejects_illegal_jumps() -> None:
    result = run(["pegboard", "--play"], input="4-1\n1 2 3\nfoo\nq\n")
    assert result.exit_code == 0
    assert "Illegal jump: hole 1 (1,1) is not empty." in result.output
    assert "are not two holes apart" in result.output
    assert "'foo' is not a jump" in result.output
    assert "Stopped with 14 pegs left." in result.output


def test_pegboard_play_ends_with_the_rating() -> None:
    # From the apex on four rows every game leaves three pegs.
    moves = "4-1\n6-4\n1-6\n7-2\n9-7\n10-3\n"
    result = run(["pegboard", "--play", "--rows", "4", "--empty", "1,1"], input="hint\n" + moves)
    assert "No jump from here can still leave a single peg." in result.output
    assert "No jump is left: 3 pegs left. Just Plain Dumb!" in result.output


def test_pegboard_play_end_of_input_exits_cleanly() -> None:
    result = run(["pegboard", "--play"], input="12-5\n", ok=False)
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit)
    assert "Stopped: the game was left unfinished." in result.output
