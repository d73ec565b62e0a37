"""Commands for the physical machine: ``operate`` and ``reconcile``; and the machine file:
``export`` and ``import``. They parse, call the library and print, like every command."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from menace.cli.common import colours_option, opening_empty_help
from menace.core.colours import BeadColour, ColourError, find_colour
from menace.core.game import IllegalMoveError, Side
from menace.core.learner import MAX_BEADS
from menace.games.tictactoe import TICTACTOE, draw_board, square_name


class Abandoned(Exception):
    """End of input or Ctrl-C in the middle of a game."""


def _ask(text: str, **kwargs: Any) -> Any:
    try:
        return click.prompt(text, prompt_suffix=" > ", **kwargs)
    except (click.Abort, EOFError, KeyboardInterrupt):
        raise Abandoned from None


def _confirm(text: str) -> bool:
    try:
        return click.confirm(text, default=False)
    except (click.Abort, EOFError, KeyboardInterrupt):
        raise Abandoned from None


@click.command()
@click.option("--first", type=click.Choice(["me", "menace"]),
              help="Who starts, when the machine plays both sides [default: ask].")
@click.option("--colours", callback=colours_option, metavar="LIST",
              help="The bead colours of your machine, as given to menace labels --colours.")
@click.pass_obj
def operate(app: Any, first: str | None, colours: tuple[BeadColour, ...]) -> None:
    """Run a game on the real matchbox machine, with the database as its twin.

    For each MENACE move it says which box to open and where it stands on the shelves,
    how to turn or flip the real board to match the box's drawing, then asks which colour
    came out and says which square that means. Type the other side's moves as a1..c3 or
    1..9. At the end it prints the bead ledger (what to put back in each box) and applies
    the same change to the twin in one transaction. End of input or Ctrl-C changes nothing.

    Example: menace operate
    """
    from menace.app.machines import PendingCorrection, open_machine
    from menace.app.shelf import shelf_place
    from menace.core.turns import TurnByTurnGame

    with open_machine(app.url, app.machine, holder="an operated game (menace operate)") as m:
        sides = m.engine.settings.sides
        try:
            if len(sides) == 1:
                menace_side = sides[0]
            else:
                who = first or _ask("Who starts?", type=click.Choice(["me", "menace"]), default="menace")
                menace_side = Side.X if who == "menace" else Side.O
            if menace_side is Side.X and m.engine.opening_empty(menace_side):
                raise click.ClickException(opening_empty_help(app, m.engine, menace_side))
            g = TurnByTurnGame(m.engine, menace_side, random.Random())
            fixes: list[PendingCorrection] = []
            click.echo(f"MENACE ({app.machine!r}) plays {menace_side.name}; "
                       f"the other side is {menace_side.other.name}.")
            while not g.over:
                if g.menace_to_move:
                    _operator_turn(g, m, colours, fixes, shelf_place)
                else:
                    _print_board(g.state)
                    while True:
                        text = _ask(f"{menace_side.other.name}'s move (a1-c3 or 1-9)")
                        try:
                            g.person_move(TICTACTOE.parse_move(text))
                            break
                        except IllegalMoveError as exc:
                            click.echo(f"  {exc}")
        except Abandoned:
            m.discard_unsaved()
            click.echo("\nGame abandoned: the twin is unchanged. Put the drawn beads back in their boxes.", err=True)
            sys.exit(1)
        _print_board(g.state)
        ledger = g.finish()
        run = m.start_run("operate", "operator", None)
        m.save(run, [g.record()], end_run=True, corrections=fixes)
    words = {"win": "MENACE wins.", "draw": "A draw.", "loss": "MENACE loses."}
    click.echo(words[g.result.value])
    click.echo("Bead ledger (the twin now holds the same):")
    for line in ledger:
        colour = colours[line.bead]
        back = line.after - (line.before - 1)
        if back > 0:
            what = f"put {back} {colour.name} ({colour.letter}) in" + (" (the drawn one and more)" if back > 1 else "")
        elif back == 0:
            what = f"keep the drawn {colour.name} ({colour.letter}) bead out"
        else:
            what = f"keep the drawn {colour.name} ({colour.letter}) bead out and take {-back} more out"
        click.echo(f"  box {line.box_number:>3}: {what}; it then holds {line.after} {colour.name}")
    if not ledger:
        click.echo("  (MENACE drew no bead this game)")


def _operator_turn(g: Any, m: Any, colours: tuple[BeadColour, ...], fixes: list[Any],
                   shelf_place: Callable[..., Any]) -> None:
    from menace.app.machines import PendingCorrection

    opened = g.box_to_open()
    if opened is None:
        turn = g.operator_move(0)
        click.echo(f"MENACE's move is forced (one square left): {square_name(turn.square)}.")
        return
    index, sym_name = opened
    box = m.engine.boxes[index]
    counts = m.engine.counts[index]
    click.echo(f"Open box {box.number} ({shelf_place(m.engine.boxes, box.number)}).")
    if sym_name != "as it is":
        click.echo(f"To match its drawing, {sym_name}:")
    else:
        click.echo("The board matches its drawing as it is:")
    for line in draw_board(box.position, {mv: colours[mv].letter for mv in box.initial}):
        click.echo("    " + line)
    held = ", ".join(f"{colours[mv].name} {counts[mv]}" for mv in box.initial)
    click.echo(f"  the twin says it holds: {held}")
    if not any(counts[mv] for mv in box.initial) and g.engine.settings.empty_policy.value == "resign":
        if _confirm("The twin says this box is empty. Is the real box empty too?"):
            g.resign()
            click.echo("  MENACE resigns.")
            return
    while True:
        text = _ask("Shake out one bead: which colour came out?")
        try:
            bead = find_colour(text, colours)
        except ColourError as exc:
            click.echo(f"  {exc}")
            continue
        if bead not in box.initial:
            click.echo(f"  box {box.number} holds no {colours[bead].name} beads at all; put it back where it "
                       f"belongs and shake again")
            continue
        if counts[bead] <= 0:
            if not _confirm(f"  The twin says box {box.number} has no {colours[bead].name} beads. "
                            f"Did a {colours[bead].name} bead come out?"):
                click.echo("  Put it back and shake again.")
                continue
            fixes.append(PendingCorrection(index, bead, 1, f"operator drew {colours[bead].name} from box "
                                                               f"{box.number}, which the twin had as empty"))
            counts[bead] = 1
            click.echo(f"  Noted: the twin now has 1 {colours[bead].name} bead in box {box.number} (a correction).")
        turn = g.operator_move(bead)
        colour = colours[bead]
        click.echo(f"  {colour.name.capitalize()} ({colour.letter}) means {square_name(bead)} on the drawing: play "
                   f"{g.menace_side.name} there, which is {square_name(turn.square)} on the board as it usually "
                   f"stands. Keep the bead on top of its box.")
        return


def _print_board(state: tuple[int, ...]) -> None:
    click.echo("")
    for line in draw_board(state):
        click.echo("  " + line)
    click.echo("")


@click.command()
@click.argument("box", type=click.IntRange(min=1))
@click.option("--count", "counts", multiple=True, metavar="COLOUR=N",
              help="A colour's real count, e.g. --count W=3 (repeat; the others are asked for).")
@click.option("--colours", callback=colours_option, metavar="LIST", help="Your machine's bead colours.")
@click.pass_obj
def reconcile(app: Any, box: int, counts: tuple[str, ...], colours: tuple[BeadColour, ...]) -> None:
    """Set a box's beads from a count of the real beads, recorded as a correction.

    \b
    Examples:
      menace reconcile 17                 asks for each colour's count
      menace reconcile 17 --count W=3 --count G=0
    """
    from menace.app.machines import open_machine

    given: dict[int, int] = {}
    for item in counts:
        name, sep, number = item.partition("=")
        try:
            if not sep:
                raise ValueError
            n = int(number)
            if not 0 <= n <= MAX_BEADS:
                raise ValueError
            given[find_colour(name, colours)] = n
        except ColourError as exc:
            raise click.BadParameter(str(exc), param_hint="'--count'") from None
        except ValueError:
            raise click.BadParameter(f"{item!r}: write COLOUR=N with N a whole number from 0 to {MAX_BEADS:,}",
                                     param_hint="'--count'") from None
    with open_machine(app.url, app.machine, holder="a recount (menace reconcile)") as m:
        if box > len(m.engine.boxes):
            raise click.BadParameter(f"no box {box}: {app.machine!r} has boxes 1 to {len(m.engine.boxes)}",
                                     param_hint="'BOX'")
        b = m.engine.boxes[box - 1]
        unknown = [mv for mv in given if mv not in b.initial]
        if unknown:
            raise click.BadParameter(f"box {box} holds no {colours[unknown[0]].name} beads", param_hint="'--count'")
        current = m.engine.counts[box - 1]
        new: dict[int, int] = {}
        try:
            for mv in b.initial:
                if mv in given:
                    new[mv] = given[mv]
                else:
                    new[mv] = _ask(f"{colours[mv].name} ({colours[mv].letter}, {square_name(mv)}): twin says "
                                   f"{current[mv]}; real count", type=click.IntRange(0, MAX_BEADS), default=current[mv])
        except Abandoned:
            click.echo("\nRecount abandoned: nothing changed.", err=True)
            sys.exit(1)
        changed = m.correct(box - 1, new, f"recount of box {box} (menace reconcile)")
    if not changed:
        click.echo(f"Box {box} already matches the count: nothing to change.")
        return
    for mv, before, after in changed:
        click.echo(f"Box {box} {colours[mv].name}: {before} -> {after}")
    click.echo("Recorded as a correction in the history.")


@click.command("export")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.pass_obj
def export_cmd(app: Any, file: Path) -> None:
    """Write the whole machine (settings, boxes, beads, history) to a JSON file.

    The format is described in docs/machine-file.md.

    Example: menace export menace.json
    """
    from menace.app.transfer import export_machine, write_machine_file

    if not file.parent.exists():
        raise click.BadParameter(f"folder {file.parent} does not exist", param_hint="'FILE'")
    data = export_machine(app.url, app.machine)
    try:
        write_machine_file(data, file)
    except OSError as exc:
        raise click.ClickException(f"cannot write {file}: {exc.strerror or exc}") from None
    click.echo(f"Exported {app.machine!r}: {len(data['boxes'])} boxes, {data['history']['games']:,} games "
               f"-> {file}")


@click.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--as", "rename", metavar="NAME", help="Store it under this name instead of the file's.")
@click.option("--replace", is_flag=True, help="Replace a machine of the same name.")
@click.pass_obj
def import_cmd(app: Any, file: Path, rename: str | None, replace: bool) -> None:
    """Read a machine file written by menace export into the database.

    The file is checked (format, version, checksum, and every game replayed against the
    beads) before anything is written; a damaged, truncated or foreign file changes nothing.

    \b
    Examples:
      menace import menace.json
      menace --db club.db import menace.json --as visitor
    """
    from menace.app.transfer import import_machine, read_machine_file

    data = read_machine_file(file)
    name, boxes, games = import_machine(app.url, data, rename=rename, replace=replace)
    click.echo(f"Imported {name!r}: {boxes} boxes, {games:,} games, beads checked against the history.")
