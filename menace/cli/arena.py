"""The ``opponents`` and ``arena`` commands: list the players, and play them all against each other.

A name beginning ``menace:`` is a machine stored in the database, playing frozen (it does not learn).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import click

from menace.app.arena import ArenaError, Entrant, pairings, run_arena
from menace.cli.common import AppContext, FilePath, game_of, game_rule_options, out_file, pass_app, where_options
from menace.core.game import Game, Side
from menace.games import DEFAULT_GAME, find_game, game_names
from menace.players import PlayerParamError, UnknownPlayerError, all_players, find_player, split_name
from menace.render.figures import FORMATS
from menace.render.tables import arena_table

MENACE_PREFIX = "menace:"


@click.command()
@click.option("--game", type=click.Choice(game_names()),
              help="Only the players of this game [default: the game of the machine named with -m, else every game].")
@where_options
@click.pass_context
def opponents(ctx: click.Context, game: str | None) -> None:
    """List every player you can play against or put in the arena.

    Some take a parameter after a colon, as in td:5000 or perfect:det. Each says which games it
    plays (--game: only the players of that game).

    \b
    Examples:
      menace opponents
      menace -m her opponents                 the players of her game (Hexapawn) only
      menace opponents --game nim
      menace tournament --vs td:5000
    """
    app = ctx.find_object(AppContext)
    if game is None and app is not None and _machine_named(ctx):
        from menace.app.machines import machine_header

        game = machine_header(app.database, app.machine)[0].name
    specs = all_players(find_game(game) if game else None)
    names = [spec.name + (f" ({', '.join(spec.aliases)})" if spec.aliases else "") for spec in specs]
    width = max(len(n) for n in names)
    for name, spec in zip(names, specs):
        click.echo(f"{name.ljust(width)}  {spec.description}")
        if spec.param_help:
            click.echo(f"{'':{width}}  parameter: {spec.param_help}")
        if game is None:
            plays = "every game" if spec.games is None else ", ".join(spec.games) + " only"
            click.echo(f"{'':{width}}  plays: {plays}")
    click.echo(f"{'menace:NAME'.ljust(width)}  another stored MENACE machine: it learns in a tournament, "
                   f"plays frozen in the arena")


def _machine_named(ctx: click.Context) -> bool:
    """-m was given, before the command or after it."""
    from click.core import ParameterSource

    return any(c.get_parameter_source("machine") not in (None, ParameterSource.DEFAULT) for c in (ctx, ctx.parent)
               if c is not None)


def _check_heatmap(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    if value is not None and value.suffix.lower() not in tuple(FORMATS):
        raise click.BadParameter(f"give a file ending in {', '.join(tuple(FORMATS))}, not {value.name!r}")
    return out_file(ctx, param, value)


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


def _entrant(app: AppContext, game: Game, name: str, rng: random.Random) -> Entrant:
    """The player behind ``name``, made once: it plays every pairing (a learner keeps learning)."""
    if name.lower().startswith(MENACE_PREFIX):
        from menace.app.machines import frozen_player

        player = frozen_player(app.database, name)
        if player.learner.game.name != game.name:
            raise click.BadParameter(f"{name} plays {player.learner.game.name}, not {game.name}",
                                     param_hint="'--players'")
        return Entrant(name, player, player.learner.settings.sides)
    try:
        spec = find_player(name, game)
        base, param = split_name(name)
        made = spec.create(game, rng, param)
    except (UnknownPlayerError, PlayerParamError) as exc:
        raise click.BadParameter(str(exc), param_hint="'--players'") from None
    label = base if param is None else f"{base}:{param}"
    return Entrant(label, made)


def _header(game: Game, entrants: list[Entrant], games: int, total: int, seed: int) -> str:
    """What the arena plays; a player that takes one side only is named (it meets each player once)."""
    per = f"{len(entrants)} players, {games} game{'s' if games != 1 else ''} per pairing"
    one_sided = [e for e in entrants if len(e.sides) == 1]
    sides = f"as {game.side_names[Side.X]} and as {game.side_names[Side.O]}"
    if not one_sided:
        return f"{per} {sides} ({total:,} games), seed {seed}"
    only = ", ".join(f"{e.label} plays {game.side_names[e.sides[0]]} only" if i == 0
                     else f"{e.label} {game.side_names[e.sides[0]]} only" for i, e in enumerate(one_sided))
    return f"{per}, {sides} where both can ({total:,} games), seed {seed}; {only}"


@click.command()
@click.option("-n", "--games", type=click.IntRange(min=1), default=100, show_default=True,
              help="Games per pairing with each player as X (and as many as O).")
@click.option("--players", metavar="A,B,...", callback=_split_players,
              help="Comma-separated player names (default: every registered player).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), help="Seed the random source, to play the same arena again.")
@click.option("--heatmap", "heatmap_path", metavar="FILE", callback=_check_heatmap,
              type=FilePath(dir_okay=False, writable=True, path_type=Path),
              help="Also draw the results as a heatmap (.png, .svg or .pdf).")
@click.option("--game", type=click.Choice(game_names()), default=DEFAULT_GAME, show_default=True,
              help="The game they play.")
@game_rule_options
@click.option("--machines/--no-machines", "with_machines", default=True, show_default=True,
              help="Without --players: also every machine of the database that plays the game, as menace:NAME.")
@where_options
@pass_app
def arena(
    app: AppContext, games: int, players: list[str] | None, seed: int | None, heatmap_path: Path | None, game: str,
    rules: dict[str, int | str | None], with_machines: bool,
) -> None:
    """Play every player against every other, as X and as O, and print who beat whom.

    The players: every registered player (menace opponents) and every machine of the
    database that plays the game (frozen: they do not learn here), or those --players
    names. A machine built for one side plays that side only, so it meets each other
    player once. Each cell is the row player's wins/draws/losses against the column
    player, both sides together. Players that learn (td) are trained once and keep
    learning through the arena.

    \b
    Examples:
      menace arena -n 200 --players perfect,smart,random --heatmap arena.png
      menace arena --players perfect,td,menace:menace --seed 1
      menace arena -n 20 --no-machines       only the registered players
    """
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    chosen = game_of(game, rules)
    if players is not None:
        names = players
    else:
        names = [spec.name for spec in all_players(chosen)]
        if with_machines:
            from menace.app.machines import machines_for_game

            names += [MENACE_PREFIX + name for name in machines_for_game(app.database, chosen.name)]
    entrants = [_entrant(app, chosen, name, rng) for name in names]
    total = pairings(entrants) * games
    click.echo(_header(chosen, entrants, games, total, seed))
    try:
        if sys.stderr.isatty():
            with click.progressbar(length=total, label="playing", file=sys.stderr) as bar:
                result = run_arena(chosen, entrants, games, rng, progress=bar.update)
        else:  # no bar (and no stray "playing" line) in logs and pipes
            result = run_arena(chosen, entrants, games, rng)
    except ArenaError as exc:
        raise click.ClickException(str(exc)) from None
    for line in arena_table(result):
        click.echo(line)
    if heatmap_path is not None:
        from menace.render.arena import heatmap

        try:
            heatmap(result, heatmap_path)
        except OSError as exc:
            raise click.ClickException(f"cannot write {heatmap_path}: {exc.strerror or exc}") from None
        click.echo(f"heatmap written to {heatmap_path}")
