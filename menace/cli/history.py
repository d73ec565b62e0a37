"""The history commands: ``menace history``, ``replay``, ``undo`` and ``menace plot ...``.

Attach them to the main group with ``cli.add_command(history)`` (and ``replay``, ``undo``,
``plot``). They take the shared context (``.url``, ``.machine``) with :func:`click.pass_obj`
and import nothing from :mod:`menace.cli`, so that module can import this one.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from menace.cli.common import AppContext, machine_colours, pass_app, plural, printable, where_options
from menace.core.colours import BeadColour
from menace.core.errors import known
from menace.core.game import Game, Result
from menace.core.learner import GameRecord
from menace.core.numbers import change, count
from menace.render.beads import places_pieces
from menace.render.text import beads_text, board_lines, box_lines, chances, paint, rule_text, signed, use_colour

if TYPE_CHECKING:
    from menace.app.history import ShownCorrection
    from menace.storage.repository import StoredGame


def _moves(game: Game, record: GameRecord) -> str:
    return " ".join(game.move_name(m) for m in record.moves)


def _result_word(record: GameRecord) -> str:
    return record.result.value


# -- menace history ------------------------------------------------------------------------------
@click.command()
@click.option("--opponent", metavar="NAME", help="Only games against this opponent (e.g. smart, person).")
@click.option("--result", type=click.Choice([r.value for r in Result]), help="Only games MENACE won, drew or lost.")
@click.option("--from", "first", type=click.IntRange(min=1), metavar="N", help="From game number N.")
@click.option("--to", "last_number", type=click.IntRange(min=1), metavar="N", help="Up to game number N.")
@click.option("--last", type=click.IntRange(min=1), metavar="N",
              help="Only the last N matching games [default: 20 when no --from/--to].")
@where_options
@pass_app
def history(app: AppContext, opponent: str | None, result: str | None, first: int | None, last_number: int | None,
            last: int | None) -> None:
    """List the games a machine has played, newest last.

    Columns: game number, run (tournament or play), opponent, MENACE's side, result for
    MENACE, and the moves (a1..c3). Bead counts set by hand (menace reconcile, an
    operator's correction) appear among the games, after the game they followed, with the
    box and each colour's count before and after.

    \b
    Examples:
      menace history                          the last 20 games
      menace history --result loss --last 5   the last five games MENACE lost
      menace history --opponent person        every game against people (the last 20)
      menace history --from 100 --to 120
    """
    from menace.app.history import list_games, resigned_side

    if first is not None and last_number is not None and first > last_number:
        raise click.BadParameter(f"--from {first} is after --to {last_number}", param_hint="'--from'")
    found = list_games(app.database, app.machine, opponent=opponent, result=Result(result) if result else None,
                           first=first, last_number=last_number, last=last)
    colours = machine_colours(found.colours, None, places_pieces(found.game))
    if not found.played:
        for made in found.corrections:
            click.echo(_correction_line(found.game, made, colours))
        from menace.players import training_opponent

        click.echo(f"{found.machine!r} has played no games yet; try: "
                   f"{app.command('tournament', '--vs', training_opponent(found.game), '-n', '1000')}")
        return
    if not found.games:
        click.echo(f"No games match; {found.machine!r} has played {plural(found.played, 'game')}.")
        return
    width = max(len(f"{found.games[-1].number:,}"), 4)
    opp_width = max(8, *(len(g.opponent) for g in found.games))
    side_width = max(4, *(len(name) for name in found.game.side_names.values()))
    run_width = max(10, *(len(_run_label(g)) for g in found.games))
    click.echo(f"{'game':>{width}}  {'run':<{run_width}}  {'opponent':<{opp_width}}  {'side':<{side_width}}  "
               f"result  moves")
    fixes = iter(found.corrections)
    fix: ShownCorrection | None = next(fixes, None)
    while fix is not None and fix.after_game == 0:  # made before the first game
        click.echo(_correction_line(found.game, fix, colours))
        fix = next(fixes, None)
    for g in found.games:
        moves = _moves(found.game, g.record)
        resigned = resigned_side(found.game, g.record)
        if resigned is not None:
            moves += " (MENACE resigns)" if resigned == g.record.menace_side else f" ({g.opponent} resigns)"
        side = found.game.side_names[g.record.menace_side]
        click.echo(f"{g.number:>{width},}  {_run_label(g):<{run_width}}  {g.opponent:<{opp_width}}  "
                   f"{side:<{side_width + 1}} {_result_word(g.record):<6}  {moves}")
        while fix is not None and fix.after_game <= g.number:
            click.echo(_correction_line(found.game, fix, colours))
            fix = next(fixes, None)
    while fix is not None:  # after the last game shown, before the next (filtered out) one
        click.echo(_correction_line(found.game, fix, colours))
        fix = next(fixes, None)
    shown = len(found.games)
    if any(g.frozen for g in found.games):
        click.echo(f"{FROZEN}: the machine played without learning; those games changed no bead.")
    count, low, high = found.summarized
    if count:
        which = (f"Games {low:,} to {high:,} are" if count == high - low + 1
                 else f"{count:,} games between {low:,} and {high:,} are")
        click.echo(f"{which} kept only as summaries (their wins, draws and losses, and the beads after them): "
                   f"they cannot be listed or replayed.")
    click.echo(f"{plural(shown, 'game')} shown; {found.machine!r} has played {found.played:,}. "
               f"See one move by move with: {app.command('replay', str(found.games[-1].number))}")


FROZEN = "frozen"
"""How the history marks a game the machine played without learning."""


def _run_label(g: StoredGame) -> str:
    return f"{g.kind} ({FROZEN})" if g.frozen else g.kind


def _correction_line(game: Game, fix: ShownCorrection, colours: Sequence[BeadColour]) -> str:
    """``after game 5: box 1: W 4 -> 9, K 4 -> 7; recount of box 1 (menace reconcile)``: counts set by hand."""
    when = f"after game {fix.after_game:,}" if fix.after_game else "before game 1"
    changes = ", ".join(
        f"{colours[game.colour_slot(fix.position, move) % len(colours)].letter} "
        f"{change(old, new)}" for move, old, new in fix.changes)
    return f"{when}: box {fix.box_number}: {changes}; {printable(fix.reason)}"


# -- menace replay -------------------------------------------------------------------------------
def _side_by_side(left: list[str], right: list[str], gap: int = 6) -> list[str]:
    width = max(len(line) for line in left)
    return [f"{a:<{width}}{' ' * gap}{b}" for a, b in zip(left, right)]


@click.command()
@click.argument("number", metavar="GAME", type=click.IntRange(min=1))
@where_options
@pass_app
def replay(app: AppContext, number: int) -> None:
    """Show one stored game move by move, with MENACE's boxes and beads.

    For each of MENACE's moves: the box it opened, how the real board maps onto the box's
    drawing, the beads in the box before the draw (by colour letter, on the drawing), the
    bead drawn and the square it means; then the result and the beads each box gained or
    lost. The beads are those the box held at that point of the history.

    Example: menace replay 1
    """
    from menace.app.history import replay_game

    shown = replay_game(app.database, app.machine, number)
    g, d, game = shown.stored, shown.detail, shown.game
    colours = machine_colours(shown.colours, None, places_pieces(game))
    tty = use_colour(sys.stdout.isatty())
    me = g.record.menace_side
    against = f"{g.kind} against {g.opponent}"
    frozen = ", played without learning" if g.frozen else ""
    click.echo(f"Game {g.number:,} of {shown.machine!r} ({against}, run {g.run_id}{frozen}); MENACE plays "
               f"{game.side_names[me]}.")
    for ply in d.plies:
        click.echo("")
        mover = game.side_names[ply.side]
        who = f"MENACE ({mover})" if ply.by_menace else f"{g.opponent} ({mover})"
        if not ply.by_menace:
            click.echo(f"{ply.number}. {who} plays {game.move_name(ply.square)}.")
            board = board_lines(game, ply.board)
            click.echo("\n".join("    " + line for line in board))
            continue
        if ply.box_number is None:
            click.echo(f"{ply.number}. {who}: one move left, no box: plays {game.move_name(ply.square)}.")
            click.echo("\n".join("    " + line for line in board_lines(game, ply.board)))
            continue
        position, bead = known(ply.box_position, "the box's position"), known(ply.bead, "the drawn bead")
        colour = colours[game.colour_slot(position, bead) % len(colours)]
        beads = beads_text(game, position, ply.beads, colours, tty)
        turn = "the board matches its drawing as it is" if ply.symmetry == "as it is" \
            else f"to match its drawing, {ply.symmetry}"
        click.echo(f"{ply.number}. {who} opens box {ply.box_number}; {turn}.")
        restock = " (empty: restocked with its first beads)" if ply.restocked else ""
        if shown.settings.pegasus is not None:
            share = chances(ply.beads)
            beads = ", ".join(f"{game.move_name(m)} {share[m]:.1f}%" for m in ply.beads)
            click.echo(f"   chances in the box: {beads}")
        else:
            click.echo(f"   beads in the box: {beads}{restock}")
        click.echo(f"   draws {colour.name} ({paint(colour.letter, colour, tty)}): {game.move_name(bead)} on the "
                   f"drawing = {game.move_name(ply.square)} on the board.")
        rows = _side_by_side(["box's drawing", *box_lines(game, position, ply.beads, colours)],
                             ["board after the move", *board_lines(game, ply.board)])
        click.echo("\n".join("    " + line for line in rows))
    click.echo("")
    if d.resigned_box is not None:
        click.echo(f"MENACE opens box {d.resigned_box}, finds it empty and resigns.")
    words = {Result.WIN: "MENACE wins", Result.DRAW: "a draw", Result.LOSS: "MENACE loses"}
    each = "on the last bead drawn" if d.last_only else "per bead drawn"
    if d.frozen:
        unchanged = "no odds changed" if shown.settings.pegasus is not None else "no bead changed"
        click.echo(f"Result: {words[d.result]}. The machine played this game without learning: {unchanged}.")
        return
    if shown.settings.pegasus is not None:
        click.echo(f"Result: {words[d.result]}. Learning rule {rule_text(shown.settings)}: each move's odds "
                   f"multiplied by M_n after a win, divided after a defeat (n: moves from the end).")
        for line, (before, after) in zip(d.reinforcement, d.chances):
            colour = colours[game.colour_slot(shown.boxes[line.box_number - 1].position, line.bead) % len(colours)]
            click.echo(f"  box {line.box_number:>4}: {colour.name} ({paint(colour.letter, colour, tty)}) "
                       f"{game.move_name(line.bead)}: chance {before:.2f}% -> {after:.2f}%")
        return
    click.echo(f"Result: {words[d.result]}. Learning rule {rule_text(shown.settings)}: {signed(d.delta)} {each}.")
    if not d.reinforcement:
        click.echo("No beads were drawn, so no box changed.")
    for line in d.reinforcement:
        colour = colours[game.colour_slot(shown.boxes[line.box_number - 1].position, line.bead) % len(colours)]
        note = "" if line.change == d.delta else f" (only {count(line.before)} to take)" if line.after == 0 \
            else " (the box's last bead stays)"
        click.echo(f"  box {line.box_number:>4}: {colour.name} ({paint(colour.letter, colour, tty)}) "
                   f"{change(line.before, line.after)} ({line.change:+,d}){note}")


# -- menace undo ---------------------------------------------------------------------------------
SHOW_AT_MOST = 10


@click.command()
@click.option("-n", "--games", "count", type=click.IntRange(min=1), default=1, show_default=True,
              help="How many of the last games to take back.")
@where_options
@pass_app
def undo(app: AppContext, count: int) -> None:
    """Take back the last game and its reinforcement, exactly.

    For a mis-entered game at a demonstration. The beads are recomputed from the machine's
    first beads and every remaining game, so the undo is exact even where a loss found no
    bead to take. Repeat it (or give --games N) to walk back further.

    \b
    Examples:
      menace undo
      menace undo --games 5
    """
    from menace.app.history import undo_games

    done = undo_games(app.database, app.machine, count)
    colours = machine_colours(done.colours, None, places_pieces(done.game))
    for g in done.removed[-SHOW_AT_MOST:][::-1]:
        side = done.game.side_names[g.record.menace_side]
        frozen = ", played without learning" if g.frozen else ""
        click.echo(f"Undid game {g.number:,} ({g.kind} against {g.opponent}{frozen}, MENACE {side}, "
                   f"{g.record.result.value}): {_moves(done.game, g.record)}")
    if len(done.removed) > SHOW_AT_MOST:
        click.echo(f"... and {len(done.removed) - SHOW_AT_MOST:,} earlier games "
                   f"(from game {done.removed[0].number:,})")
    if done.changes and done.odds:
        boxes = sorted({c.box_number for c in done.changes})
        click.echo(f"Odds restored in {plural(len(boxes), 'box', 'boxes')}: "
                   f"{', '.join(map(str, boxes[:SHOW_AT_MOST * 2]))}{' ...' if len(boxes) > SHOW_AT_MOST * 2 else ''}")
    elif done.changes:
        click.echo("Beads restored:")
        for c in done.changes[: SHOW_AT_MOST * 2]:
            colour = colours[done.game.colour_slot(done.boxes[c.box_number - 1].position, c.bead) % len(colours)]
            click.echo(f"  box {c.box_number:>4}: {colour.name} ({colour.letter}) {change(c.before, c.after)}")
        if len(done.changes) > SHOW_AT_MOST * 2:
            click.echo(f"  ... and {len(done.changes) - SHOW_AT_MOST * 2:,} more bead counts")
    else:
        click.echo("No odds changed (the games were played without learning or drawn, or the changes cancelled out)."
                   if done.odds else "No bead count changed (no beads were drawn, or the changes cancelled out).")
    if done.dropped:
        boxes = sorted({c.box_number for c in done.dropped})
        where = ", ".join(map(str, boxes))
        # the games they followed, as history lists them ("after game 5")
        after = sorted({c.after_game for c in done.dropped})
        when = (f"game {after[0]:,}" if len(after) == 1
                else f"games {', '.join(f'{n:,}' for n in after[:-1])} and {after[-1]:,}")
        click.echo(f"The bead counts set by hand after {when} went with the games "
                   f"({plural(len(done.dropped), 'count')}, box{'es' if len(boxes) > 1 else ''} {where}: "
                   f"{printable(done.dropped[-1].reason)}); if the real box still holds them, count it again: "
                   f"{app.command('reconcile', str(boxes[0]))}")
    click.echo(f"{printable(done.machine)!r} has played {plural(done.played, 'game')} now.")


# -- menace plot ---------------------------------------------------------------------------------
def _out_file(ctx: click.Context, param: click.Parameter, value: str) -> Path:
    from menace.app.series import PlotError
    from menace.render.plots import output_format

    try:
        output_format(value)
    except PlotError as exc:
        raise click.BadParameter(str(exc)) from None
    path = Path(value)
    if path.parent != Path("") and not path.parent.is_dir():
        # exit 1 as for any file that cannot be written (a bad option's form is 2)
        raise click.ClickException(f"cannot write {path}: folder {path.parent} does not exist")
    return path


F = TypeVar("F", bound=Callable[..., Any])


def _out_option(default: str) -> Callable[[F], F]:
    return click.option("-o", "--out", default=default, show_default=True, callback=_out_file, metavar="FILE",
                        help="The picture to write: .png, .svg or .pdf.")


@click.group()
def plot() -> None:
    """Draw a machine's history as a picture (PNG, SVG or PDF, from the file name).

    \b
    Examples:
      menace plot beads                 the opening box's beads over the games
      menace plot learning -o learning.pdf
      menace plot boxes -o wall.svg
    """


@plot.command("beads")
@click.option("--box", type=click.IntRange(min=1), default=1, show_default=True, help="The box's number.")
@click.option("--from", "first", type=click.IntRange(min=0), metavar="N", help="Show from game N.")
@click.option("--to", "last", type=click.IntRange(min=0), metavar="N", help="Show up to game N.")
@click.option("--log", is_flag=True, help="Beads on a logarithmic scale (a long history and its start both show).")
@_out_option("menace-beads.png")
@where_options
@pass_app
def plot_beads_command(app: AppContext, box: int, first: int | None, last: int | None, log: bool, out: Path) -> None:
    """The beads of each colour in one box over the games played, stacked.

    The default is box 1, the opening box: the classic MENACE plot. A machine that has
    played no games shows its box as built.

    \b
    Examples:
      menace plot beads
      menace plot beads --box 12 -o box12.svg
      menace plot beads --to 50                the first 50 games
      menace plot beads --log
    """
    from menace.app.history import beads_series
    from menace.render.plots import render_beads

    if first is not None and last is not None and first > last:
        raise click.BadParameter(f"--from {first} is after --to {last}", param_hint="'--from'")
    # Only the range is read: replayed from the checkpoint nearest its start (game 0: the box as built).
    data = beads_series(app.database, app.machine, box, first=None if first is None else max(first, 1), last=last)
    render_beads(data, out, first, last, log)
    if first is None and last is None:
        click.echo(f"Wrote {out}: box {box} of {app.machine!r} over {plural(data.games_played, 'game')}.")
    else:
        lo, hi = data.series.games[0], data.series.games[-1]
        click.echo(f"Wrote {out}: box {box} of {app.machine!r}, games {lo + 1 if first else lo:,} to {hi:,} "
                   f"of {data.games_played:,}.")


@plot.command("learning")
@click.option("--window", type=click.IntRange(min=1), metavar="N",
              help="Games in the rolling win/draw/loss rates [default: 100; for a short history a tenth of it "
                   "(10 at least); from 20,000 games on, 0.5% of them: 6,689 for 1,337,800 games].")
@_out_option("menace-learning.png")
@where_options
@pass_app
def plot_learning_command(app: AppContext, window: int | None, out: Path) -> None:
    """The cumulative reinforcement and rolling win/draw/loss rates, opponents marked.

    \b
    Examples:
      menace plot learning
      menace plot learning --window 500 -o learning.pdf
    """
    from menace.app.history import learning_series
    from menace.render.plots import render_learning

    data = learning_series(app.database, app.machine, window, allow_empty=True)
    render_learning(data, out)
    if not data.games_played:
        click.echo(f"Wrote {out}: {app.machine!r} has played no games yet (an empty plot).")
        return
    rates = plural(data.window, "game")
    click.echo(f"Wrote {out}: {plural(data.played, 'game')} of {app.machine!r}, rates over {rates}.")


@plot.command("boxes")
@_out_option("menace-boxes.png")
@where_options
@pass_app
def plot_boxes_command(app: AppContext, out: Path) -> None:
    """Every box of the machine as a small board with its beads: the matchbox wall.

    Example: menace plot boxes -o wall.pdf
    """
    from menace.app.history import wall
    from menace.render.plots import render_boxes

    data = wall(app.database, app.machine)
    render_boxes(data, out)
    click.echo(f"Wrote {out}: {plural(len(data.boxes), 'box', 'boxes')} of {app.machine!r} after "
               f"{plural(data.games_played, 'game')}.")



