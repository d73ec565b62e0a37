"""The ``menace puzzle`` commands: thin click wrappers round the pure puzzle modules."""

from __future__ import annotations

import math
import random

import click

from menace.cli.common import EXIT_ERROR, EXIT_SIGINT, plural
from menace.puzzles import magic as mg
from menace.puzzles import pegboard as pb

_QUIT_WORDS = frozenset({"q", "quit", "exit"})
_HINT_WORDS = frozenset({"h", "hint", "?"})
_MAX_PLAY_ROWS = 12  # keeps the drawn board on a terminal; counting stops earlier, at 6


def _grid_option(ctx: click.Context, param: click.Parameter, value: str | None) -> mg.Grid | None:
    """Read a GRID option (nine 0/1 digits, e.g. ``000100000`` or ``"0 0 0 / 1 0 0 / 0 0 0"``)."""
    if value is None:
        return None
    try:
        return mg.parse_grid(value)
    except mg.BadGridError as error:
        raise click.BadParameter(str(error), ctx=ctx, param=param) from None


class _InputEnded(Exception):
    """The player closed the input (end of file, or Ctrl-C if ``interrupted``) in the middle of a game."""

    def __init__(self, interrupted: bool = False) -> None:
        super().__init__()
        self.interrupted = interrupted


def _ended(exc: click.Abort) -> _InputEnded:
    # click turns both end of input and Ctrl-C into Abort; what caused it is still its context.
    return _InputEnded(isinstance(exc.__context__, KeyboardInterrupt))


def _ask(text: str) -> str:
    try:
        answer: str = click.prompt(text, prompt_suffix=" ", type=str)
    except click.Abort as exc:
        raise _ended(exc) from None
    return answer.strip().lower()


def _leave(ctx: click.Context, message: str, ended: _InputEnded) -> None:
    click.echo()
    click.echo(message, err=True)
    ctx.exit(EXIT_SIGINT if ended.interrupted else EXIT_ERROR)


@click.group()
def puzzle() -> None:
    """Two classic puzzles to play or solve beside MENACE.

    \b
    Examples:
      menace puzzle magic                    # play McLean's MAGIC grid
      menace puzzle magic --solve 000100000  # fewest presses for a grid
      menace puzzle pegboard                 # count every game on the 15-hole triangle
      menace puzzle pegboard --play          # jump pegs yourself
    """


# ---------------------------------------------------------------------------- MAGIC


@puzzle.command(short_help="Play W. W. McLean's MAGIC puzzle, or solve a grid (--solve).")
@click.option(
    "--solve",
    "solve_grid",
    callback=_grid_option,
    metavar="GRID",
    help="Do not play: print the fewest presses and the keys that solve GRID.",
)
@click.option("--start", callback=_grid_option, metavar="GRID", help="Start from GRID instead of a random grid.")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), help="Seed for the random start, to replay the same game.")
@click.option(
    "--instructions/--no-instructions",
    default=None,
    help="Show or skip the instructions without being asked.",
)
@click.pass_context
def magic(
    ctx: click.Context,
    solve_grid: mg.Grid | None,
    start: mg.Grid | None,
    seed: int | None,
    instructions: bool | None,
) -> None:
    """Play W. W. McLean's MAGIC puzzle: turn the grid into 1s round a centre 0.

    Each key 1-9 complements (0 to 1, 1 to 0) the cells its pattern marks. At the
    prompt type a key, "hint" (or "h") for a key on a shortest path, or "q" to quit.
    A GRID is nine 0/1 digits row by row; spaces and "/" between rows are ignored.
    Quitting with "q" exits with status 0; end of input with 1, Ctrl-C with 130.

    \b
    Examples:
      menace puzzle magic
      menace puzzle magic --seed 7 --no-instructions
      menace puzzle magic --start "0 0 0 / 1 0 0 / 0 0 0"
      menace puzzle magic --solve 000100000
    """
    if solve_grid is not None:
        _print_solution(solve_grid)
        return
    grid = start if start is not None else mg.random_start(random.Random(seed))
    try:
        _play_magic(grid, instructions)
    except _InputEnded as ended:
        _leave(ctx, "Stopped: the puzzle was left unsolved.", ended)


def _print_solution(grid: mg.Grid) -> None:
    table = mg.solution_table()
    click.echo(mg.format_grid(grid))
    try:
        keys = mg.shortest_solution(grid)
    except mg.UnsolvableGridError as error:
        raise click.ClickException(str(error)) from None
    if keys:
        click.echo(f"Fewest presses: {len(keys)}")
        click.echo(f"Keys: {' '.join(map(str, keys))} (in any order: presses commute)")
    else:
        click.echo("Fewest presses: 0 (this grid is already the goal)")
    solvable = "yes" if table.every_grid_solvable else f"no, only {table.solvable_count}"
    click.echo(f"Every one of the {mg.GRID_COUNT} grids solvable: {solvable}")
    hardest = table.grids_needing(table.max_presses)
    click.echo(
        f"Most presses any grid needs: {table.max_presses} "
        f"({plural(len(hardest), 'grid')}: {', '.join(mg.grid_text(g) for g in hardest)})"
    )


def _play_magic(grid: mg.Grid, instructions: bool | None) -> None:
    if instructions is None:
        try:
            instructions = click.confirm("Would you like instructions?", default=False)
        except click.Abort as exc:
            raise _ended(exc) from None
    if instructions:
        click.echo()
        click.echo(mg.format_key_chart())
        click.echo()
        click.echo("Pressing a key (1 - 9) complements the boxes its pattern marks with 1s:")
        click.echo("0 becomes 1 and 1 becomes 0. The object is a centre 0 surrounded by 1s:")
        click.echo(mg.format_grid(mg.GOAL))
        click.echo()
    click.echo("Your grid:")
    click.echo(mg.format_grid(grid))
    presses = 0
    while not mg.is_won(grid):
        answer = _ask("Which key? 1-9")
        if answer in _QUIT_WORDS:
            click.echo(f"Quit after {plural(presses, 'press', 'presses')}.")
            return
        if answer in _HINT_WORDS:
            click.echo(
                f"Hint: press {mg.hint(grid)} ({plural(mg.fewest_presses(grid), 'press', 'presses')} to go at best)."
            )
            continue
        try:
            key = mg.parse_key(answer)
        except mg.BadKeyError as error:
            click.echo(f"{error}. Type 'hint' for a key or 'q' to quit.")
            continue
        grid = mg.press(grid, key)
        presses += 1
        click.echo()
        click.echo(mg.format_grid(grid))
    click.echo(f"GOOD! A WIN! in {plural(presses, 'press', 'presses')}.")


# ------------------------------------------------------------------------- pegboard


@puzzle.command()
@click.option(
    "--rows",
    type=click.IntRange(min=pb.MIN_ROWS, max=_MAX_PLAY_ROWS),
    default=pb.DEFAULT_ROWS,
    show_default=True,
    help=f"Rows of the triangle; counting and hints work up to {pb.MAX_SEARCH_ROWS}.",
)
@click.option(
    "--empty",
    default="{},{}".format(*pb.DEFAULT_EMPTY),
    show_default=True,
    metavar="R,P",
    help="The hole left empty at the start, as row,position from 1 (or a hole number).",
)
@click.option("--play", is_flag=True, help="Play by hand instead of counting every game.")
@click.pass_context
def pegboard(ctx: click.Context, rows: int, empty: str, play: bool) -> None:
    """Count every game of the triangle pegboard, or play it (--play).

    Holes are named row,position counting from 1 (the apex is 1,1) or by number,
    1 at the apex counting row by row. The default start leaves the middle hole of
    the third row empty (3,2).

    \b
    Examples:
      menace puzzle pegboard                       # the table of all 137,846 games
      menace puzzle pegboard --empty 1,1           # start with the apex empty
      menace puzzle pegboard --rows 6 --empty 5,2
      menace puzzle pegboard --play                # at the prompt: 4 2 1, 4-1, hint, q
    """
    board = pb.Board(rows)
    try:
        hole = pb.parse_hole(board, empty)
    except pb.BadHoleError as error:
        raise click.BadParameter(str(error), ctx=ctx, param_hint="'--empty'") from None
    if play:
        try:
            _play_pegboard(board, hole)
        except _InputEnded as ended:
            _leave(ctx, "Stopped: the game was left unfinished.", ended)
        return
    try:
        tally = pb.count_games(board, hole)
        game = pb.one_peg_game(board, board.start(hole))
    except pb.BoardTooLargeError as error:
        raise click.ClickException(f"{error} (--play still works)") from None
    _print_tally(board, hole, tally)
    _print_game(board, hole, game)


def _print_tally(board: pb.Board, hole: pb.Hole, tally: pb.GameTally) -> None:
    click.echo(
        f"Pegboard with {board.rows} rows ({board.hole_count} holes), "
        f"hole {pb.hole_label(board, hole)} empty at the start."
    )
    if not pb.legal_jumps(board, board.start(hole)):
        click.echo("No peg can jump into that hole: choose another with --empty, e.g. 1,1.")
    click.echo("Every complete game, by pegs left:")
    width = max(len("Games"), len(f"{tally.total:,}"))
    shares = {left: _percent(tally.fraction(left)) for left in tally.games}
    share_width = max(len("Share"), *(len(share) for share in shares.values()))
    click.echo(f"  Pegs left  {'Games':>{width}}  {'Share':>{share_width}}  Rating")
    for left, games in tally.games.items():
        click.echo(f"  {left:>9}  {games:>{width},}  {shares[left]:>{share_width}}  {pb.rating(left)}")
    click.echo(f"  {'Total':>9}  {tally.total:>{width},}")
    click.echo(f"({plural(tally.positions, 'distinct position')} counted)")


def _percent(fraction: float) -> str:
    # Three significant figures, in plain decimals, so rare endings do not round to zero.
    percent = 100 * fraction
    if percent == 0:
        return "0%"
    decimals = max(0, 2 - math.floor(math.log10(percent)))
    return f"{percent:.{decimals}f}%"


def _print_game(board: pb.Board, hole: pb.Hole, game: tuple[pb.Jump, ...] | None) -> None:
    click.echo()
    if game is None:
        click.echo("No game from this start leaves a single peg.")
        return
    click.echo(f"One game that leaves a single peg ({plural(len(game), 'jump')}):")
    pegs = board.start(hole)
    click.echo(pb.format_board(board, pegs, numbers=True))
    after_each = pb.replay(board, pegs, game)
    for number, (jump, after) in enumerate(zip(game, after_each, strict=True), start=1):
        click.echo()
        click.echo(f"Jump {number}: {pb.jump_text(board, jump)}")
        click.echo(pb.format_board(board, after))
    click.echo(f"One peg left: {pb.rating(1)}!")


def _play_pegboard(board: pb.Board, hole: pb.Hole) -> None:
    pegs = board.start(hole)
    click.echo("Jump a peg over a neighbour into an empty hole; the peg jumped over is removed.")
    click.echo("Type a jump as from over to (e.g. 4 2 1) or from-to (4-1), holes by number or")
    click.echo("row,position; 'hint' for a jump that can still leave one peg, 'q' to quit.")
    click.echo(pb.format_board(board, pegs, numbers=True))
    while not pb.is_over(board, pegs):
        answer = _ask("Your jump:")
        if answer in _QUIT_WORDS:
            click.echo(f"Stopped with {plural(pb.peg_count(pegs), 'peg')} left.")
            return
        if answer in _HINT_WORDS:
            click.echo(_peg_hint(board, pegs))
            continue
        try:
            jump = pb.parse_jump(board, answer)
        except (pb.BadHoleError, pb.BadJumpError) as error:
            click.echo(f"{error}.")
            continue
        try:
            pegs = pb.apply_jump(board, pegs, jump)
        except pb.IllegalJumpError as error:
            click.echo(f"Illegal jump: {error}.")
            continue
        click.echo()
        click.echo(pb.format_board(board, pegs, numbers=True))
    left = pb.peg_count(pegs)
    click.echo(f"No jump is left: {plural(left, 'peg')} left. {pb.rating(left)}!")


def _peg_hint(board: pb.Board, pegs: pb.Pegs) -> str:
    try:
        jump = pb.hint(board, pegs)
    except pb.BoardTooLargeError as error:
        return f"No hint: {error}."
    if jump is None:
        return "No jump from here can still leave a single peg."
    return f"Hint: jump {pb.jump_text(board, jump)}."
