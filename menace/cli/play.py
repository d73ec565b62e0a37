"""Games at the terminal, as thin loops over :class:`~menace.app.session.PlaySession`: ``play``
(a person against the machine), ``operate`` (a physical machine with the database as its twin),
and ``reconcile`` (a recount of a real box)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import click

from menace.cli.common import (
    AppContext,
    ask,
    board_marks,
    colours_option,
    machine_colours,
    pass_app,
    printable,
    where_options,
)
from menace.core.colours import BeadColour, ColourError, find_colour
from menace.core.errors import known
from menace.core.game import IllegalMoveError, Side
from menace.core.numbers import change
from menace.render.beads import places_pieces
from menace.render.text import beads_text, board_lines, box_lines, chances, paint, use_colour

if TYPE_CHECKING:
    from menace.app.session import GameEnd, MenaceMove, PlaySession

ABANDONED = "Game abandoned: nothing was reinforced and nothing was stored."


def _board(s: PlaySession) -> None:
    click.echo("")
    for line in board_lines(s.game, s.state):
        click.echo("  " + line)
    click.echo("")


def _colour_of(s: PlaySession, colours: tuple[BeadColour, ...], position: Any, bead: int) -> BeadColour:
    return colours[s.game.colour_slot(position, bead) % len(colours)]


def _show_menace_move(s: PlaySession, mv: MenaceMove, colours: tuple[BeadColour, ...], colour: bool) -> None:
    t = mv.turn
    if t.box_number is None:
        click.echo(f"MENACE's move is forced: {mv.move_name}.")
        return
    position = known(t.box_position, "the box's position")
    click.echo(f"MENACE opens box {t.box_number}. To match its drawing, {t.symmetry}:")
    for line in box_lines(s.game, position, t.beads, colours, colour):
        click.echo("    " + line)
    odds = s.keeps_odds  # the Pegasus rule: weights of odds, not beads
    if odds:
        share = chances(t.beads)
        click.echo(f"  chances: {', '.join(f'{s.game.move_name(m)} {share[m]:.1f}%' for m in t.beads)}")
    else:
        click.echo(f"  beads: {beads_text(s.game, position, t.beads, colours, colour)}")
    if t.resigned:
        click.echo("  The box is empty: MENACE resigns.")
        return
    if t.restocked:
        click.echo("  The box was empty and is refilled with its first beads.")
    bead = known(t.bead, "the drawn bead")
    c = _colour_of(s, colours, position, bead)
    article = "an" if c.name[:1].lower() in "aeiou" else "a"
    drawn = f"chooses {c.name}" if odds else f"draws {article} {c.name} bead"
    click.echo(f"  It {drawn} ({paint(c.letter, c, colour)}): {s.game.move_name(bead)} on the "
               f"drawing, {mv.move_name} on your board.")


def _choose_side(s_sides: tuple[Side, ...], first: str | None, ask_first: Callable[[], str]) -> Side | None:
    if len(s_sides) == 1:
        return None
    if first is None:
        first = ask_first()
    return Side.X if first == "menace" else Side.O


def _sides_of(app: AppContext) -> tuple[Side, ...]:
    from menace.app.machines import machine_summary

    return machine_summary(app.database, app.machine).settings.sides


def _check_first(app: AppContext, first: str | None, sides: tuple[Side, ...]) -> None:
    if first is not None and len(sides) == 1:
        who = "menace" if sides[0] is Side.X else "me"
        if first != who:
            raise click.BadParameter(
                f"machine {printable(app.machine)!r} only plays {'first' if sides[0] is Side.X else 'second'}, "
                f"so {'MENACE' if who == 'menace' else 'you'} always start; leave out --first or build a "
                f"machine with --side both", param_hint="'--first'")


@click.command()
@click.option("--first", type=click.Choice(["me", "menace"]),
              help="Who starts, when the machine plays both sides [default: ask].")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), help="Seed for MENACE's draws, to repeat a game exactly.")
@click.option("--games", "count", type=click.IntRange(min=1), help="Play this many games, then stop [default: ask "
              "after each game].")
@click.option("--frozen", is_flag=True,
              help="Play without learning: the machine changes no bead; the games are kept in the history "
                   "marked frozen.")
@where_options
@pass_app
def play(app: AppContext, first: str | None, seed: int | None, count: int | None, frozen: bool) -> None:
    """Play a game against the machine at the terminal; it learns from the result.

    Type moves as the board names them: a1..c3 or 1..9 in noughts and crosses, a2-b3 in
    Hexapawn, the number of sticks to take (1, 2, 3) in Nim. For each of its moves MENACE
    shows the box it opens, how your board maps onto the box's drawing, the beads in the box
    and the bead it draws. After a game it asks to play again. End of input or Ctrl-C abandons
    the game and changes nothing.

    \b
    Examples:
      menace play
      menace play --games 3
      menace play --frozen      show that a trained machine no longer learns
    """
    from menace.app.session import PlaySession

    sides = _sides_of(app)
    _check_first(app, first, sides)
    colour = use_colour(sys.stdout.isatty())
    played = 0
    while True:
        side = _choose_side(sides, first, lambda: ask(
            lambda: click.prompt("Who starts?", type=click.Choice(["me", "menace"]), default="menace"), ABANDONED))
        with PlaySession.open(app.database, app.machine, holder="a game at the terminal (menace play)",
                              menace_side=side, seed=None if seed is None else seed + played, frozen=frozen) as s:
            colours = machine_colours(s.machine.stored.colours, None, places_pieces(s.game))
            g = s.game
            click.echo(f"You are {g.side_names[s.menace_side.other]}; MENACE ({printable(app.machine)!r}) is "
                       f"{g.side_names[s.menace_side]}.")
            while not s.over:
                if s.menace_to_move:
                    _show_menace_move(s, s.menace_move(), colours, colour)
                    continue
                _board(s)
                _other_move(s, "Your move", ABANDONED)
            _board(s)
            end = _finish_or_keep(s)
        words = {"win": "MENACE wins.", "draw": "A draw.", "loss": "You win!"}
        click.echo(f"{words[end.result.value]} (game {end.game_number:,})")
        if frozen:
            click.echo(f"Played without learning (frozen): no {'odds' if s.keeps_odds else 'bead'} changed.")
        if end.ledger:
            click.echo("Reinforcement (stored):")
            for line in end.ledger:
                c = colours[g.colour_slot(s.machine.learner.boxes[line.box_number - 1].position, line.bead)
                            % len(colours)]
                if line.chance_before is not None and line.chance_after is not None:  # odds, not beads
                    click.echo(f"  box {line.box_number:>3}: {c.name} ({paint(c.letter, c, colour)}) "
                               f"{g.move_name(line.bead)}: chance {line.chance_before:.2f}% -> "
                               f"{line.chance_after:.2f}%")
                    continue
                click.echo(f"  box {line.box_number:>3}: {c.name} ({paint(c.letter, c, colour)}) "
                           f"{change(line.before, line.after)} ({line.change:+,d})")
        played += 1
        if count is not None:
            if played >= count:
                return
            continue
        if not sys.stdin.isatty() or not ask(lambda: click.confirm("Again?", default=True), "Bye."):
            return


def _finish_or_keep(s: PlaySession) -> GameEnd:
    """Store the game; if this holder lost the machine's lease meanwhile, nothing is stored:
    show the game's moves and offer to write them to a file, then fail with the one-line reason."""
    from menace.storage.leases import LeaseLostError

    try:
        return s.finish()
    except LeaseLostError:
        record = s.record()
        if record is None:
            raise
        moves = " ".join(s.game.move_name(m) for m in record.moves)
        click.echo(f"This game was NOT stored (MENACE {s.game.side_names[s.menace_side]}, "
                   f"{record.result.value} for MENACE): {moves}", err=True)
        if sys.stdin.isatty():
            path = ask(lambda: click.prompt("Write it to a file? Give a name, or press Enter for no", default="",
                                            show_default=False), "Not written.")
            if path.strip():
                from menace.app.files import write_text

                body = {"machine": s.name, "menace_side": s.menace_side.name, "result": record.result.value,
                        "moves": [s.game.move_name(m) for m in record.moves]}
                write_text(path.strip(), json.dumps(body, indent=1) + "\n")
                click.echo(f"Written to {printable(path.strip())}.", err=True)
        raise


def _other_move(s: PlaySession, question: str, abandoned: str) -> None:
    """Ask for the other side's move until it is a legal one, and make it."""
    while True:
        text = ask(lambda: click.prompt(f"{question} ({s.game.move_hint(s.state)})", prompt_suffix=" > "), abandoned)
        try:
            s.other_move(s.parse_move(text))
            return
        except IllegalMoveError as exc:
            click.echo(f"  {exc}")


@click.command()
@click.option("--first", type=click.Choice(["me", "menace"]),
              help="Who starts, when the machine plays both sides [default: ask].")
@click.option("--colours", callback=colours_option, metavar="LIST",
              help="The bead colours of your machine [default: those kept with it, see menace colours].")
@where_options
@pass_app
def operate(app: AppContext, first: str | None, colours: tuple[BeadColour, ...] | None) -> None:
    """Run a game on the real matchbox machine, with the database as its twin.

    For each MENACE move it says which box to open and where it stands on the shelves,
    how to turn or flip the real board to match the box's drawing, then asks which colour
    came out and says which move that means. Type the other side's moves as the board
    names them. At the end it prints the bead ledger (what to put back in each box) and
    applies the same change to the twin in one transaction. End of input or Ctrl-C changes
    nothing.

    Example: menace operate
    """
    from menace.app.machines import machine_header, refuse_without_beads
    from menace.app.session import PlaySession

    settings = machine_header(app.database, app.machine)[1]
    # A machine of the Pegasus rule has no beads to operate: said before any question.
    refuse_without_beads(settings, app.machine, "matchbox machine to operate")
    sides = settings.sides
    _check_first(app, first, sides)
    abandoned = "Game abandoned: the twin is unchanged. Put the drawn beads back in their boxes."
    side = _choose_side(sides, first, lambda: ask(
        lambda: click.prompt("Who starts?", type=click.Choice(["me", "menace"]), default="menace"), abandoned))
    colour = use_colour(sys.stdout.isatty())
    with PlaySession.open(app.database, app.machine, holder="an operated game (menace operate)", menace_side=side,
                          operated=True) as s:
        palette = machine_colours(s.machine.stored.colours, colours, places_pieces(s.game), s.game.colours,
                                  board_marks(s.game))
        g = s.game
        click.echo(f"MENACE ({printable(app.machine)!r}) plays {g.side_names[s.menace_side]}; the other side is "
                   f"{g.side_names[s.menace_side.other]}.")
        while not s.over:
            if s.corrected_boxes:
                kept = ", ".join(map(str, dict.fromkeys(s.corrected_boxes)))
                one = len(s.corrected_boxes) == 1
                abandoned = (f"Game abandoned: the game is not stored, but the correction{'' if one else 's'} you "
                             f"confirmed {'is' if one else 'are'} kept (box{'' if one else 'es'} {kept}). Put the "
                             f"drawn beads back in their boxes.")
            if s.menace_to_move:
                _operator_turn(s, palette, colour, abandoned)
                continue
            _board(s)
            _other_move(s, f"{g.side_names[s.menace_side.other]}'s move", abandoned)
        _board(s)
        end = _finish_or_keep(s)
    words = {"win": "MENACE wins.", "draw": "A draw.", "loss": "MENACE loses."}
    click.echo(words[end.result.value])
    click.echo("Bead ledger (the twin now holds the same):")
    for line in end.ledger:
        position = s.machine.learner.boxes[line.box_number - 1].position
        c = _colour_of(s, palette, position, line.bead)
        back = line.after - (line.before - 1)
        name = f"{c.name} ({paint(c.letter, c, colour)})"
        if back > 0:
            what = f"put the drawn {name} bead back" + (f" with {back - 1:,} more" if back > 1 else "")
        elif back == 0:
            what = f"keep the drawn {name} bead out"
        else:
            what = f"keep the drawn {name} bead out and take {-back:,} more out"
        click.echo(f"  box {line.box_number:>3}: {what}; it then holds {line.after:,} {c.name}")
    if not end.ledger:
        click.echo("  (MENACE drew no bead this game)")


def _operator_turn(s: PlaySession, colours: tuple[BeadColour, ...], colour: bool, abandoned: str) -> None:
    from menace.app.session import TwinDisagreesError

    opened = s.box_to_open()
    if opened is None:
        mv = s.operator_move()
        click.echo(f"MENACE's move is forced (one move left): {mv.move_name}.")
        return
    click.echo(f"Open box {opened.box_number} ({opened.shelf}).")
    click.echo("The board matches its drawing as it is:" if opened.symmetry == "as it is"
               else f"To match its drawing, {opened.symmetry}:")
    for line in box_lines(s.game, opened.position, opened.beads, colours, colour):
        click.echo("    " + line)
    held = ", ".join(f"{_colour_of(s, colours, opened.position, m).name} {n}" for m, n in opened.beads.items())
    click.echo(f"  the twin says it holds: {held}")
    if opened.empty and s.resigns_on_empty:
        if ask(lambda: click.confirm("The twin says this box is empty. Is the real box empty too?", default=False),
               abandoned):
            s.resign()
            click.echo("  MENACE resigns.")
            return
    slots = {s.game.colour_slot(opened.position, m): m for m in opened.beads}
    while True:
        text = ask(lambda: click.prompt("Shake out one bead: which colour came out?", prompt_suffix=" > "), abandoned)
        try:
            slot = find_colour(text, colours)
        except ColourError as exc:
            click.echo(f"  {exc}")
            continue
        if slot not in slots:
            click.echo(f"  box {opened.box_number} holds no {colours[slot].name} beads at all; put it back where it "
                       f"belongs and shake again")
            continue
        bead = slots[slot]
        c = colours[slot]
        try:
            mv = s.operator_move(bead)
        except TwinDisagreesError:
            question = f"  The twin says box {opened.box_number} has no {c.name} beads. Did a {c.name} bead come out?"
            if not ask(partial(click.confirm, question, default=False), abandoned):
                click.echo("  Put it back and shake again.")
                continue
            mv = s.operator_move(bead, confirm_empty=True)
            click.echo(f"  Noted: the twin now has 1 {c.name} bead in box {opened.box_number} (a correction).")
        if not s.game.moves_on_board:  # a named move means the same whatever the drawing
            click.echo(f"  {c.name.capitalize()} ({paint(c.letter, c, colour)}) means "
                       f"{s.game.move_text(bead)}: make that move for {s.game.side_names[s.menace_side]}. "
                       f"Keep the bead on top of its box.")
            return
        click.echo(f"  {c.name.capitalize()} ({paint(c.letter, c, colour)}) means {s.game.move_name(bead)} on the "
                   f"drawing: play {s.game.side_names[s.menace_side]} there, which is {mv.move_name} on the board "
                   f"as it usually stands. Keep the bead on top of its box.")
        return


@click.command()
@click.argument("box", type=click.IntRange(min=1))
@click.option("--count", "counts", multiple=True, metavar="COLOUR=N",
              help="A colour's real count, e.g. --count W=3 (repeat; the others are asked for).")
@click.option("--colours", callback=colours_option, metavar="LIST",
              help="Your machine's bead colours [default: those kept with it].")
@where_options
@pass_app
def reconcile(app: AppContext, box: int, counts: tuple[str, ...], colours: tuple[BeadColour, ...] | None) -> None:
    """Set a box's beads from a count of the real beads, recorded as a correction.

    \b
    Examples:
      menace reconcile 1                  asks for each colour's count
      menace reconcile 1 --count W=3 --count G=0
    """
    from menace.app.machines import recount
    from menace.core.settings import MAX_BEADS

    given: dict[int, int] = {}
    with recount(app.database, app.machine, box, holder="a recount (menace reconcile)") as r:
        game = r.machine.game
        palette = machine_colours(r.machine.stored.colours, colours, places_pieces(game), game.colours)
        b = r.box
        slots = {game.colour_slot(b.position, mv): mv for mv in b.initial}
        for item in counts:
            name, sep, number = item.partition("=")
            try:
                slot = find_colour(name, palette)
            except ColourError as exc:
                raise click.BadParameter(str(exc), param_hint="'--count'") from None
            if not sep or not number.strip().isascii() or not number.strip().isdigit() \
                    or not 0 <= int(number) <= MAX_BEADS:
                raise click.BadParameter(f"{printable(item)!r}: write COLOUR=N with N a whole number from 0 to "
                                         f"{MAX_BEADS:,}", param_hint="'--count'")
            if slot not in slots:
                held = ", ".join(palette[k].letter for k in sorted(slots))
                raise click.BadParameter(f"box {box} holds no {palette[slot].name} beads (it holds {held})",
                                         param_hint="'--count'")
            given[slots[slot]] = int(number)
        new: dict[int, int] = {}
        for mv, now in r.beads.items():
            if mv in given:
                new[mv] = given[mv]
                continue
            c = palette[game.colour_slot(b.position, mv) % len(palette)]
            question = f"{c.name} ({c.letter}, {game.move_name(mv)}): twin says {now}; real count"
            new[mv] = ask(partial(click.prompt, question, type=click.IntRange(0, MAX_BEADS), default=now,
                                  prompt_suffix=" > "), "Recount abandoned: nothing changed.")
        changed = r.apply(new, f"recount of box {box} (menace reconcile)")
    if not changed:
        click.echo(f"Box {box} already matches the count: nothing to change.")
        return
    for mv, before, after in changed:
        c = palette[game.colour_slot(b.position, mv) % len(palette)]
        click.echo(f"Box {box} {c.name}: {change(before, after)}")
    click.echo("Recorded as a correction in the history.")

