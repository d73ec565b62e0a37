"""``opponents`` and ``arena``, invoked directly as click commands."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from menace.cli.arena import arena, opponents
from menace.players import all_players


def test_opponents_lists_every_player_with_its_help() -> None:
    result = CliRunner().invoke(opponents, [], catch_exceptions=False)
    assert result.exit_code == 0
    for spec in all_players():
        assert spec.name in result.output and spec.description in result.output
        if spec.param_help:
            assert spec.param_help in result.output
    assert "random (dumb)" in result.output
    assert "menace:NAME" in result.output


def test_opponents_mentions_menace_machines_when_the_group_can_resolve_them() -> None:
    result = CliRunner().invoke(opponents, [], catch_exceptions=False)
    assert "menace:NAME" in result.output


def test_arena_prints_the_table() -> None:
    result = CliRunner().invoke(arena, ["-n", "5", "--players", "perfect,random,smart", "--seed", "3"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "3 players, 5 games per pairing as X and as O (30 games), seed 3"
    assert lines[1].split() == ["perfect", "random", "smart", "total", "points"]
    assert [line.split()[0] for line in lines[2:5]] == ["perfect", "random", "smart"]
    assert lines[2].split()[3].endswith("/0")  # perfect never loses to smart


def test_arena_is_reproducible_with_a_seed() -> None:
    args = ["-n", "10", "--players", "oxo,td:300,random", "--seed", "11"]
    first = CliRunner().invoke(arena, args, catch_exceptions=False)
    second = CliRunner().invoke(arena, args, catch_exceptions=False)
    assert first.exit_code == 0 and first.stdout == second.stdout
    assert "td:300" in first.stdout


def test_arena_defaults_to_every_registered_player(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # In a folder of its own: a menace.db where the tests run (README's main job leaves one in the
    # checkout) adds its machines to the players.
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(arena, ["-n", "1", "--seed", "1"], catch_exceptions=False)
    assert result.exit_code == 0
    assert result.stdout.startswith(f"{len(all_players())} players, 1 game per pairing")
    assert "playing" not in result.stderr  # no progress bar when stderr is not a terminal


def test_arena_draws_a_heatmap(tmp_path: Path) -> None:
    path = tmp_path / "arena.png"
    result = CliRunner().invoke(arena, ["-n", "2", "--players", "perfect,random", "--seed", "1",
                                        "--heatmap", str(path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert f"heatmap written to {path}" in result.output


def test_unknown_player_is_a_usage_error() -> None:
    result = CliRunner().invoke(arena, ["--players", "perfect,chess"])
    assert result.exit_code == 2
    error = [line for line in result.stderr.splitlines() if line.startswith("Error")]
    assert error == [
        "Error: Invalid value for '--players': unknown opponent 'chess'; choose from "
        "random, smart, movetable, posswin, perfect, oxo, td or menace:NAME"
    ]
    assert "Traceback" not in result.output


def test_menace_names_are_machines_in_the_database(tmp_path: Path) -> None:
    from menace.cli import cli

    db = str(tmp_path / "arena.db")
    CliRunner().invoke(cli, ["--db", db, "-m", "first", "init"], catch_exceptions=False)
    result = CliRunner().invoke(cli, ["--db", db, "arena", "-n", "4", "--players", "menace:first,random",
                                      "--seed", "2"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    # A machine built for X only plays its one side: 4 games in all.
    assert "(4 games)" in result.output
    unknown = CliRunner().invoke(cli, ["--db", db, "arena", "--players", "menace:second,random"])
    assert unknown.exit_code == 1 and "no machine named 'second'" in unknown.stderr


def test_bad_options_are_usage_errors(tmp_path: Path) -> None:
    cases = [
        (["--players", "td:lots,random"], "td takes a number of training games"),
        (["--players", "perfect"], "at least two players"),
        (["--players", "perfect,,random"], "single commas"),
        (["--players", "random,Random"], "listed twice"),
        (["--heatmap", str(tmp_path / "arena.jpg")], ".png, .svg, .pdf"),
        (["-n", "0"], "0 is not in the range x>=1"),
    ]
    for args, message in cases:
        result = CliRunner().invoke(arena, args)
        assert result.exit_code == 2, args
        assert message in result.stderr, (args, result.stderr)


def test_every_command_has_help_with_an_example() -> None:
    for command in (opponents, arena):
        result = CliRunner().invoke(command, ["--help"], catch_exceptions=False)
        assert result.exit_code == 0
        assert "Examples:\n    menace " in result.output


def _club(tmp_path: Path) -> str:
    from menace.cli import cli

    db = str(tmp_path / "club.db")
    for args in (["-m", "first", "init"], ["-m", "second", "init", "--side", "O"],
                 ["-m", "hex", "init", "--game", "hexapawn"]):
        made = CliRunner().invoke(cli, ["--db", db, *args], catch_exceptions=False)
        assert made.exit_code == 0, made.output
    return db


def test_arena_takes_the_database_machines_of_its_game_by_default(tmp_path: Path) -> None:
    from menace.cli import cli

    db = _club(tmp_path)
    result = CliRunner().invoke(cli, ["--db", db, "arena", "-n", "1", "--seed", "1"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{len(all_players()) + 2} players, 1 game per pairing")
    rows = [line.split()[0] for line in lines[2:]]
    assert rows[-2:] == ["menace:first", "menace:second"] and "menace:hex" not in result.stdout
    left_out = CliRunner().invoke(cli, ["--db", db, "arena", "-n", "1", "--seed", "1", "--no-machines"],
                                  catch_exceptions=False)
    assert left_out.exit_code == 0 and "menace:" not in left_out.stdout
    assert left_out.stdout.startswith(f"{len(all_players())} players, 1 game per pairing as X and as O (")
    hexapawn = CliRunner().invoke(cli, ["--db", db, "arena", "-n", "1", "--seed", "1", "--game", "hexapawn"],
                                  catch_exceptions=False)
    assert hexapawn.exit_code == 0 and "menace:hex" in hexapawn.stdout and "menace:first" not in hexapawn.stdout


def test_arena_without_a_database_has_only_the_registered_players(tmp_path: Path) -> None:
    from menace.cli import cli

    missing = tmp_path / "none.db"
    result = CliRunner().invoke(cli, ["--db", str(missing), "arena", "-n", "1", "--seed", "1"],
                                catch_exceptions=False)
    assert result.exit_code == 0 and result.stdout.startswith(f"{len(all_players())} players")
    assert not missing.exists()  # looking for machines made no database


def test_arena_header_says_which_players_take_one_side_only(tmp_path: Path) -> None:
    from menace.cli import cli

    db = _club(tmp_path)
    result = CliRunner().invoke(cli, ["--db", db, "arena", "-n", "4", "--players", "menace:first,random",
                                      "--seed", "2"], catch_exceptions=False)
    assert result.stdout.splitlines()[0] == ("2 players, 4 games per pairing, as X and as O where both can "
                                             "(4 games), seed 2; menace:first plays X only")
    both = CliRunner().invoke(cli, ["--db", db, "arena", "-n", "4", "--players",
                                    "menace:first,menace:second,random", "--seed", "2"], catch_exceptions=False)
    assert both.stdout.splitlines()[0] == (
        "3 players, 4 games per pairing, as X and as O where both can (12 games), seed 2; menace:first plays "
        "X only, menace:second O only")
