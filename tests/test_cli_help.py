from __future__ import annotations

from pathlib import Path

import click
from click.testing import CliRunner

from menace.cli import cli

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def all_commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    out = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        assert cmd is not None, name
        full = f"{prefix}{name}"
        out.append((full, cmd))
        if isinstance(cmd, click.Group):
            out.extend(all_commands(cmd, full + " "))
    return out


def test_every_command_has_help_with_an_example_and_is_in_the_readme() -> None:
    commands = all_commands(cli)
    assert len(commands) >= 6
    for name, cmd in commands:
        assert cmd.help and len(cmd.help) > 20, name
        if not isinstance(cmd, click.Group):
            assert "menace " in cmd.help, f"{name}: no example in its help"
        assert f"menace {name}" in README, f"{name} is not in README.md"
        result = CliRunner().invoke(cli, [*name.split(), "--help"])
        assert result.exit_code == 0 and "Usage:" in result.output


def test_python_dash_m_and_version() -> None:
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0 and "menace" in result.output


def test_play_help_says_how_to_type_a_move_in_every_game() -> None:
    from menace.games import find_game, game_names

    text = " ".join(CliRunner().invoke(cli, ["play", "--help"]).output.split())
    for name in game_names():
        family = find_game(name).title.split(" (")[0]
        assert f"in {family}" in text, (family, text)
