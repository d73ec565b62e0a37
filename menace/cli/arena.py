"""The ``opponents`` and ``arena`` commands: list the players, and play them all against each other.

The commands stand alone; the main group attaches them. A name beginning ``menace:`` is looked up
through ``resolve_player(name)`` on the click context object, when the group provides one: it
returns a frozen MENACE player.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path

import click

from menace.app.arena import HEATMAP_FORMATS, ArenaError, Entrant, format_table, heatmap, pairings, run_arena
from menace.core.game import Side
from menace.core.match import MenacePlayer
from menace.games.tictactoe import TICTACTOE
from menace.players import Player, PlayerParamError, UnknownPlayerError, all_players, find_player, split_name

MENACE_PREFIX = "menace:"


@click.command()
@click.pass_context
def opponents(ctx: click.Context) -> None:
    """List every player you can play against or put in the arena.

    Some take a parameter after a colon, as in td:5000 or perfect:det.

    \b
    Examples:
      menace opponents
      menace tournament --vs td:5000
    """
    specs = all_players()
    names = [spec.name + (f" ({', '.join(spec.aliases)})" if spec.aliases else "") for spec in specs]
    width = max(len(n) for n in names)
    for name, spec in zip(names, specs):
        click.echo(f"{name.ljust(width)}  {spec.description}")
        if spec.param_help:
            click.echo(f"{'':{width}}  parameter: {spec.param_help}")
    if getattr(ctx.obj, "resolve_player", None) is not None:
        click.echo(f"{'menace:NAME'.ljust(width)}  another stored MENACE machine: it learns in a tournament, "
                   f"plays frozen in the arena")


def _check_heatmap(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    if value is not None and value.suffix.lower() not in HEATMAP_FORMATS:
        raise click.BadParameter(f"give a file ending in {', '.join(HEATMAP_FORMATS)}, not {value.name!r}")
    return value


def _split_players(ctx: click.Context, param: click.Parameter, value: str | None) -> list[str] | None:
    if value is None:
        return None
    names = [n.strip() for n in value.split(",")]
    if any(not n for n in names):
        raise click.BadParameter("separate names with single commas, as in perfect,smart,random")
    seen: set[str] = set()
    for n in names:
        if n.lower() in seen:
            raise click.BadParameter(f"{n!r} is listed twice")
        seen.add(n.lower())
    if len(names) < 2:
        raise click.BadParameter("an arena needs at least two players")
    return names


def _entrant(ctx: click.Context, name: str, rng: random.Random) -> Entrant:
    """The player behind ``name``, made once: it plays every pairing (a learner keeps learning)."""
    resolve: Callable[[str], object] | None = getattr(ctx.obj, "resolve_player", None)
    if name.lower().startswith(MENACE_PREFIX) and resolve is not None:
        try:
            player = resolve(name)
        except ValueError as exc:
            raise click.BadParameter(str(exc), ctx, param_hint="'--players'") from None
        if not isinstance(player, Player):
            raise TypeError(f"resolve_player({name!r}) gave {player!r}, not a Player")
        sides = player.engine.settings.sides if isinstance(player, MenacePlayer) else (Side.X, Side.O)
        return Entrant(name, player, sides)
    try:
        spec = find_player(name)
        base, param = split_name(name)
        made = spec.create(TICTACTOE, rng, param)
    except (UnknownPlayerError, PlayerParamError) as exc:
        raise click.BadParameter(str(exc), ctx, param_hint="'--players'") from None
    label = base if param is None else f"{base}:{param}"
    return Entrant(label, made)


@click.command()
@click.option("-n", "--games", type=click.IntRange(min=1), default=100, show_default=True,
              help="Games per pairing with each player as X (and as many as O).")
@click.option("--players", metavar="A,B,...", callback=_split_players,
              help="Comma-separated player names (default: every registered player).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), help="Seed the random source, to play the same arena again.")
@click.option("--heatmap", "heatmap_path", metavar="FILE", callback=_check_heatmap,
              type=click.Path(dir_okay=False, writable=True, path_type=Path),
              help="Also draw the results as a heatmap (.png, .svg or .pdf).")
@click.pass_context
def arena(
    ctx: click.Context, games: int, players: list[str] | None, seed: int | None, heatmap_path: Path | None
) -> None:
    """Play every player against every other, as X and as O, and print who beat whom.

    Each cell is the row player's wins/draws/losses against the column player, both sides
    together. Players that learn (td) are trained once and keep learning through the arena.

    \b
    Examples:
      menace arena -n 200 --players perfect,smart,random --heatmap arena.png
      menace arena --players perfect,td,menace:first --seed 1
    """
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    names = players if players is not None else [spec.name for spec in all_players()]
    entrants = [_entrant(ctx, name, rng) for name in names]
    total = pairings(entrants) * games
    click.echo(f"{len(entrants)} players, {games} game{'s' if games != 1 else ''} per pairing as X and "
               f"as O ({total:,} games), seed {seed}")
    try:
        if sys.stderr.isatty():
            with click.progressbar(length=total, label="playing", file=sys.stderr) as bar:
                result = run_arena(TICTACTOE, entrants, games, rng, progress=bar.update)
        else:  # no bar (and no stray "playing" line) in logs and pipes
            result = run_arena(TICTACTOE, entrants, games, rng)
    except ArenaError as exc:
        raise click.ClickException(str(exc)) from None
    for line in format_table(result):
        click.echo(line)
    if heatmap_path is not None:
        try:
            heatmap(result, heatmap_path)
        except OSError as exc:
            raise click.ClickException(f"cannot write {heatmap_path}: {exc.strerror or exc}") from None
        click.echo(f"heatmap written to {heatmap_path}")
