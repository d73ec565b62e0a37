"""Tournaments: a machine trains against an opponent, in memory, saved in batches."""

from __future__ import annotations

import random
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass
from types import FrameType

from menace.app.database import Database
from menace.app.machines import LearningPartner, OpenMachine, learning_partner, machine_header, open_machine
from menace.app.session import OpeningBoxEmptyError
from menace.core.errors import InvalidInputError, UnavailableError, known
from menace.core.game import Game, Side
from menace.core.learner import DRAWN, Learner, TreeOpponent, play_learners, play_learners_batch
from menace.core.match import MenacePlayer, play_game
from menace.core.records import GameBuffer
from menace.core.settings import ONE_SIDE_WORDS
from menace.players import Player, RulePlayer, default_opponent, find_player, split_name
from menace.storage.database import DatabaseBusyError

FLUSH_SECONDS = 1.0
"""How often a tournament writes its games: a killed process loses at most this much."""
FIRST_FLUSH_SECONDS = 0.125
"""...but the first write comes this soon, and the gaps double from there up to
:data:`FLUSH_SECONDS`: the first games show (progress, the web page's curve, ``stats`` elsewhere)
at once instead of after a second, for three writes more per run."""
FLUSH_BYTES = 400_000
"""...or once this many bytes of games wait (about 50,000 games), whichever comes first, so that
memory stays flat however fast the games go."""
FLUSH_GAMES = 20_000
"""...or once this many games wait: a block holds at most this many, so that undo, replay and the
bead plot, starting from the checkpoint at a block's end, replay at most about this many games.
Blocks that end this way wait to be written with the next write on the clock, several in one
commit (see :meth:`~menace.app.machines.OpenMachine.seal`): at full speed a tournament ends 25 a
second, and every commit makes a server's pages read the machine again."""
HELD_BYTES = 2_000_000
"""...but blocks waiting are written at once when they hold this many bytes (packed as stored: about
half a million games, a second at full speed), so that memory stays flat however fast the games go."""
CHECK_EVERY = 256
"""Games between looks at the clock."""
KEEP_GAMES = 10_000_000
"""The history policy: a tournament stores every game of its first 10 million (35 MB or so);
beyond them, it writes a block per second of play that keeps only its wins, draws and losses and the
beads after its last game. The learning curve, undo to a block's end, the bead plot and ``check``
still work on those; a game beyond them cannot be listed or replayed move by move. A whole night
at full speed (5-6 billion games) stays near 160 MB instead of ~20 GB. ``keep_games=None`` (the
command line's keep-all) stores every game."""


class StopFlag:
    """Set by a signal handler (or a test) to stop a tournament after the current game."""

    def __init__(self) -> None:
        self.requested = False
        self.signal_name: str | None = None


@contextmanager
def stop_on_signals(flag: StopFlag) -> Iterator[StopFlag]:
    """While inside, SIGINT and SIGTERM set ``flag`` instead of killing the process."""

    def handler(signum: int, _frame: FrameType | None) -> None:
        flag.requested = True
        flag.signal_name = signal.Signals(signum).name

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield flag
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


class Interrupted(Exception):
    """A signal arrived before the first game (while an opponent such as ``td`` prepared)."""

    def __init__(self, signal_name: str) -> None:
        super().__init__(signal_name)
        self.signal_name = signal_name


@contextmanager
def interrupt_on_signals() -> Iterator[None]:
    """While inside, SIGINT and SIGTERM raise :class:`Interrupted` (nothing to save yet)."""

    def handler(signum: int, _frame: FrameType | None) -> None:
        raise Interrupted(signal.Signals(signum).name)

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


@dataclass
class Progress:
    games: int
    target: int | None
    seconds: float
    limit_seconds: float | None
    wins: int
    draws: int
    losses: int


@dataclass
class TournamentResult:
    machine: str
    opponent: str
    seed: int
    games: int
    wins: int
    draws: int
    losses: int
    seconds: float
    stopped: str | None
    """Why it stopped early: a signal's name, :data:`OPENING_EMPTY` or :data:`PARTNER_EMPTY`."""
    total_games: int
    last_side: Side | None = None
    """MENACE's side in the last game (the side whose first box emptied, if that stopped it)."""


OPENING_EMPTY = "opening box empty"
PARTNER_EMPTY = "the opponent machine's opening box empty"


def new_seed() -> int:
    return random.SystemRandom().randrange(2**31)


def run_tournament(
    machine: OpenMachine,
    opponent: str,
    games: int | None = None,
    seconds: float | None = None,
    seed: int | None = None,
    side: Side | None = None,
    stop: StopFlag | None = None,
    progress: Callable[[Progress], None] | None = None,
    resolve: Callable[[str], Player] | None = None,
    flush_seconds: float = FLUSH_SECONDS,
    handle_signals: bool = False,
    keep_games: int | None = KEEP_GAMES,
    waiting: Waiting | None = None,
    frozen: bool = False,
) -> TournamentResult:
    """Play ``games`` games (or for ``seconds``) against ``opponent``, saving every second.

    The same seed on the same starting machine gives the same games and the same beads.
    ``resolve`` turns names that are not in the player registry (``menace:NAME``) into players.
    With ``handle_signals``, SIGINT and SIGTERM stop it after the current game once the games
    have begun; while the opponent prepares (``td`` trains itself first) they raise
    :class:`Interrupted`: no game has been played, nothing is stored. Every game of the run's
    first ``keep_games`` is stored, then per-block summaries (see :data:`KEEP_GAMES`); None keeps all.
    A save that meets a busy database waits and tries again (see :func:`save_with_retry`), telling
    ``waiting``; ``progress`` hears only of games already stored. ``frozen``: the machine plays
    without learning (no bead changes), against an opponent that does not learn either; the run is
    marked so in the history.
    """
    if games is None and seconds is None:
        raise InvalidInputError("give a number of games or a duration")
    seed = new_seed() if seed is None else seed
    rng = random.Random(seed)
    learner = machine.learner
    sides = (side,) if side is not None else learner.settings.sides
    if any(s not in learner.settings.sides for s in sides):
        raise InvalidInputError(f"machine {machine.name!r} has no boxes for "
                                f"{machine.game.side_names[side] if side else ''}")
    base, param = split_name(opponent)
    with interrupt_on_signals() if handle_signals else nullcontext():
        if base == "menace" and resolve is not None:
            player: Player = resolve(opponent)
        else:
            player = find_player(opponent, machine.game).create(machine.game, rng, param)
    if frozen and not isinstance(player, RulePlayer):
        raise FrozenOpponentError(f"a machine plays without learning only against a player that chooses by "
                                  f"the position alone; {opponent} learns or looks ahead")
    stop = stop or StopFlag()
    signals = stop_on_signals(stop) if handle_signals else nullcontext(stop)
    with signals:
        return _play_tournament(machine, player, opponent, seed, rng, sides, games, seconds, stop, progress,
                                flush_seconds, keep_games, waiting, frozen)


def _play_tournament(
    machine: OpenMachine, player: Player, opponent: str, seed: int, rng: random.Random, sides: tuple[Side, ...],
    games: int | None, seconds: float | None, stop: StopFlag, progress: Callable[[Progress], None] | None,
    flush_seconds: float, keep_games: int | None = KEEP_GAMES, waiting: Waiting | None = None,
    frozen: bool = False,
) -> TournamentResult:
    learner = machine.learner
    learn = not frozen
    table = learner.opponent_table(player.options, sides) if isinstance(player, RulePlayer) else None
    # Fast loops for the players that cannot be tabulated: another machine, and any player that can
    # move by tree position (td). Decided once here, not per game.
    partner = player if isinstance(player, LearningPartner) else None
    if partner is not None:
        partner.side = sides[0].other  # a machine playing both sides takes the side left free
    by_tree: TreeOpponent | None = None
    if table is None and partner is None and hasattr(player, "tree_opponent"):
        by_tree = player.tree_opponent()
    pending = GameBuffer()
    wins = draws = losses = 0  # of the games stored (those in blocks sealed wait in the machine)
    runs: list[int] = []
    save_with_retry(lambda: runs.append(machine.start_run("tournament", opponent, seed, frozen)), 0, waiting)
    run_id = runs[0]
    start = last_flush = last_report = time.perf_counter()
    gap = min(FIRST_FLUSH_SECONDS, flush_seconds)
    stopped: str | None = None
    nsides = len(sides)
    play_table = learner.play_table
    # The loops of two machines and of td in one go reinforce beads: a Pegasus machine's odds learn
    # game by game, through its own rule.
    beads_only = learner.pegasus is None and (partner is None or partner.learner.pegasus is None)
    s = sides[0]
    try:
        while stopped is None:
            done = wins + draws + losses + machine.sealed_games + pending.games
            batch = CHECK_EVERY if games is None else min(CHECK_EVERY, games - done)
            # The pending games are kept if the games stored so far are fewer than keep_games (see
            # _save): then the block is bounded, the one that crosses the line too.
            if keep_games is None or wins + draws + losses + machine.sealed_games < keep_games:
                batch = min(batch, max(1, FLUSH_GAMES - pending.games))  # a kept block: FLUSH_GAMES at most
            if batch <= 0:
                break
            if table is not None and nsides == 1:
                stopped = _fast_batch(learner, sides[0], table, rng, batch, pending, stop, learn)
            elif (partner is not None or by_tree is not None) and beads_only:
                # Another machine or td: every game in one loop, packed as it ends (both machines' games).
                played = 0
                while played < batch:
                    first = done + played
                    if partner is not None:
                        n, res, length = play_learners_batch(learner, partner.learner, sides, first, rng,
                                                             batch - played, pending.data, pending.outcomes,
                                                             partner.buffer.data, partner.buffer.outcomes, stop)
                    else:
                        by = known(by_tree, "the opponent by tree position")
                        n, res, length = learner.play_batch_against(sides, first, by, rng, batch - played,
                                                                    pending.data, pending.outcomes, stop)
                    played += n
                    s = sides[(first + n - 1) % nsides]
                    if partner is not None:
                        partner.side = s.other
                    if length <= 2 or stop.requested:
                        stopped = _why_stop(learner, s, res, length, stop, player)
                        if stopped:
                            break
            else:
                for i in range(batch):
                    s = sides[(done + i) % nsides]
                    if table is not None:
                        res, moves = play_table(s, table, rng, learn)
                    elif partner is not None:  # a machine of the Pegasus rule on either side
                        if nsides > 1:
                            partner.side = s.other
                        if s is Side.X:
                            res, moves = play_learners(learner, partner.learner, rng)
                        else:
                            res, moves = play_learners(partner.learner, learner, rng)
                        partner.record_game(moves, res)
                    elif by_tree is not None:
                        res, moves = learner.play_against(s, by_tree, rng)
                    else:
                        res, moves = _play_general(machine, player, s, rng)
                    pending.add(s, moves, res)
                    if len(moves) <= 2 or stop.requested:
                        stopped = _why_stop(learner, s, res, len(moves), stop, player)
                        if stopped:
                            break
            now = time.perf_counter()
            # Kept games are cut in blocks of bounded size, written together on the clock; summaries
            # once a second (their games' bytes are not stored: a second of them is a megabyte or two
            # in memory).
            keeping = keep_games is None or wins + draws + losses + machine.sealed_games < keep_games
            if keeping and (len(pending.data) >= FLUSH_BYTES or pending.games >= FLUSH_GAMES):
                machine.seal(pending)  # emptied: it takes the next block's games
                if isinstance(player, LearningPartner):
                    player.seal()
            if now - last_flush >= gap or machine.sealed_bytes >= HELD_BYTES:
                wins, draws, losses = _save(machine, player, run_id, pending, (wins, draws, losses), keep=keep_games,
                                            waiting=waiting)
                last_flush = now
                gap = min(2 * gap, flush_seconds)
            if progress is not None and now - last_report >= 0.2:
                # Only stored games: never show a game as played that might not be stored.
                progress(Progress(wins + draws + losses, games, now - start, seconds, wins, draws, losses))
                last_report = now
            if seconds is not None and now - start >= seconds:
                break
    finally:
        # Whatever ends the loop (the target, a signal, an error in a player), every finished
        # game is written before we go; unless the database stayed busy past the bound already.
        if not isinstance(sys.exc_info()[1], SaveWaitError):
            wins, draws, losses = _save(machine, player, run_id, pending, (wins, draws, losses), end=True,
                                        keep=keep_games, waiting=waiting)
    elapsed = time.perf_counter() - start
    done = wins + draws + losses
    if progress is not None:
        progress(Progress(done, games, elapsed, seconds, wins, draws, losses))
    return TournamentResult(
        machine.name, opponent, seed, done, wins, draws, losses, elapsed, stopped, machine.games_played, s,
    )


def _fast_batch(learner: Learner, side: Side, table: list[tuple[int, ...]], rng: random.Random, batch: int,
                pending: GameBuffer, stop: StopFlag, learn: bool = True) -> str | None:
    """``batch`` games against a tabulated opponent, packed into ``pending`` as they finish.

    This is the loop a tournament spends its night in: :meth:`Learner.play_batch` plays and packs
    the games itself. Returns why it stopped early, if it did.
    """
    played = 0
    while played < batch:
        played += learner.play_batch(side, table, rng, batch - played, pending.data, pending.outcomes, stop, learn)
        if stop.requested:
            return stop.signal_name or "stopped"
        if played < batch and learner.opening_empty(side):
            return OPENING_EMPTY  # a game of one move at most: MENACE resigned at its first box
    return None


def _why_stop(learner: Learner, side: Side, res: int, length: int, stop: StopFlag,
              player: Player | None = None) -> str | None:
    """After a game of ``length`` moves: stop if a signal asked, or if a machine resigned at its first
    move and will go on doing so (MENACE, or a MENACE opponent)."""
    if stop.requested:
        return stop.signal_name or "stopped"
    if length <= 1 and res != side and res != DRAWN and learner.opening_empty(side):
        return OPENING_EMPTY
    if (isinstance(player, MenacePlayer) and length <= 2 and res == side
            and player.learner.opening_empty(player.side)):
        return PARTNER_EMPTY
    return None


def _play_general(machine: OpenMachine, player: Player, side: Side, rng: random.Random) -> tuple[int, list[int]]:
    me = MenacePlayer(machine.learner, side)
    if isinstance(player, MenacePlayer):
        player.side = side.other  # a machine playing both sides takes the side left free
    x, o = (me, player) if side is Side.X else (player, me)
    played = play_game(machine.game, x, o, rng)
    rec = played.record(side)
    if isinstance(player, LearningPartner):
        player.record_game(rec.moves, rec.winner)
    return rec.winner, rec.moves


BUSY_WAIT_SECONDS = 300.0
"""How long a flush waits, in all, for a database another writer keeps busy (a long ``undo`` on
another machine of the same file) before the tournament gives up; it tries again meanwhile."""
BUSY_RETRY_SECONDS = 1.0


class SaveWaitError(UnavailableError):
    """The database stayed busy for longer than :data:`BUSY_WAIT_SECONDS`: games not stored."""


Waiting = Callable[[float, float, int], None]
"""Hears ``(seconds waited, the most it will wait, games waiting to be stored)`` while a flush waits."""


def save_with_retry(save: Callable[[], None], games: int, waiting: Waiting | None = None,
                    limit: float | None = None, pause: float | None = None) -> None:
    """Run ``save`` (one transaction); while the database is busy, wait and try again, up to
    ``limit`` seconds in all (each try waits the busy timeout too). Nothing is dropped: either
    the games are stored, or :class:`SaveWaitError` says how many were not."""
    limit = BUSY_WAIT_SECONDS if limit is None else limit
    pause = BUSY_RETRY_SECONDS if pause is None else pause
    start = time.monotonic()
    while True:
        try:
            save()
            return
        except DatabaseBusyError:
            waited = time.monotonic() - start
            if waited >= limit:
                raise SaveWaitError(
                    f"the database stayed busy for {waited:.0f} s (another writer); the last {games:,} games "
                    f"played could not be stored and are lost; every game before them is stored",
                    hint="run the long command (an undo, an import) when no tournament is running",
                ) from None
            if waiting is not None:
                waiting(waited, limit, games)
            time.sleep(pause)


def _save(machine: OpenMachine, player: Player, run_id: int, pending: GameBuffer,
          tally: tuple[int, int, int], end: bool = False, keep: int | None = KEEP_GAMES,
          waiting: Waiting | None = None) -> tuple[int, int, int]:
    """Write the blocks sealed and the pending games, waiting out a busy database (bounded, reported
    through ``waiting``); the running wins, draws and losses including them (``tally``: those of the
    games stored before).

    The games are kept while the run has stored fewer than ``keep`` (a block that crosses the
    line is kept whole); after that, only the block's summary.
    """
    (w, d, l_), (sw, sd, sl) = tally, machine.sealed_tally  # the sealed blocks are written with the pending games
    w, d, l_ = w + sw, d + sd, l_ + sl
    kept = keep is None or w + d + l_ < keep
    if isinstance(player, LearningPartner):
        partner = player
        save_with_retry(lambda: partner.save(end, kept), partner.buffer.games + partner.machine.sealed_games, waiting)
    save_with_retry(lambda: machine.save(run_id, pending, end_run=end, kept=kept),
                    pending.games + machine.sealed_games, waiting)
    tally = (w + pending.wins, d + pending.draws, l_ + pending.losses)
    pending.clear()
    return tally


# -- a tournament of a stored machine: the flow every front end calls ----------------------------
def parse_side(text: str) -> Side:
    """``"first"`` -> ``Side.X``; :class:`InvalidInputError` naming the words that are understood."""
    try:
        return ONE_SIDE_WORDS[text.strip().lower()]
    except KeyError:
        raise InvalidInputError(f"{text!r} is not a side: say {', '.join(ONE_SIDE_WORDS)}") from None


class FrozenOpponentError(InvalidInputError):
    """A machine asked to play without learning against an opponent that learns or looks ahead."""


def check_frozen_opponent(opponent: str, game: Game, frozen: bool) -> None:
    """Refuse, before anything is made, a machine playing without learning against an opponent that
    learns (another machine, td): the measure would change as it goes."""
    if not frozen:
        return
    base = split_name(opponent)[0]
    if base == "menace" or find_player(opponent, game).learns:
        raise FrozenOpponentError(f"a machine plays without learning only against a player that does not learn; "
                                  f"{opponent} learns as it plays")


class NoSuchSideError(InvalidInputError):
    """The machine has no boxes for the side asked for."""


class OpeningEmptyError(OpeningBoxEmptyError):
    """A box for MENACE's first move is empty under ``resign``: the tournament would stop at once."""

    def __init__(self, machine: OpenMachine, side: Side) -> None:
        super().__init__(f"a box of {machine.name!r} for MENACE's first move is empty")
        self.machine = machine
        self.side = side


@dataclass
class Training:
    """What :func:`train` did: the tournament's result, and the machines that played it."""

    result: TournamentResult
    machine: OpenMachine
    partner: LearningPartner | None = None


def check_opponent(opponent: str, game: Game | None = None) -> None:
    """Refuse an unknown player, one that does not play ``game``, or a parameter it cannot take
    (``menace:NAME`` is checked when it is opened)."""
    base, param = split_name(opponent)
    if base != "menace":
        find_player(opponent, game).check_param(param)


def machine_sides(db: Database, machine: str, side: Side | None) -> tuple[Game, tuple[Side, ...]]:
    """The machine's game and the sides it plays, refusing a ``side`` it has no boxes for; read from its
    row alone, before anything is written (a refusal leaves the database as it was)."""
    game, settings = machine_header(db, machine)
    if side is not None and side not in settings.sides:
        raise NoSuchSideError(f"machine {machine!r} has no boxes for {game.side_names[side]}; it plays "
                              f"{'/'.join(game.side_names[s] for s in settings.sides)}")
    return game, settings.sides


def train(db: Database, machine: str, opponent: str | None = None, *, holder: str,
          games: int | None = None, seconds: float | None = None, seed: int | None = None,
          side: Side | None = None, stop: StopFlag | None = None,
          progress: Callable[[Progress], None] | None = None, handle_signals: bool = False,
          keep_games: int | None = KEEP_GAMES, waiting: Waiting | None = None, frozen: bool = False) -> Training:
    """Train the stored ``machine`` against ``opponent`` (a player's name, ``menace:NAME`` for another
    stored machine, which learns too; None: the game's default opponent), holding the machine (and
    the partner machine) under ``holder`` while it plays (``{opponent}`` in it names the opponent).

    Refused before any game, changing nothing: an unknown opponent, a side the machine has no boxes
    for, and (for one side) an empty first-move box under ``resign`` (:class:`OpeningEmptyError`).
    ``frozen``: the machine plays without learning (see :func:`run_tournament`); the opponent must
    not learn either (:class:`FrozenOpponentError`, before the machine is taken).
    """
    game, _ = machine_sides(db, machine, side)
    opponent = opponent or default_opponent(game)
    check_opponent(opponent, game)
    check_frozen_opponent(opponent, game, frozen)
    with open_machine(db, machine, holder=holder.replace("{opponent}", opponent)) as m:
        sides = m.learner.settings.sides
        if side is not None and side not in sides:
            raise NoSuchSideError(f"machine {machine!r} has no boxes for {game.side_names[side]}; it plays "
                                  f"{'/'.join(game.side_names[s] for s in sides)}")
        playing = side or sides[0]
        if (len(sides) == 1 or side is not None) and m.learner.opening_empty(playing):
            raise OpeningEmptyError(m, playing)
        with ExitStack() as stack:
            partner: LearningPartner | None = None
            resolve: Callable[[str], Player] | None = None
            if split_name(opponent)[0] == "menace":
                partner = stack.enter_context(learning_partner(db, opponent, m, side, machine))
                resolve = lambda _name: partner  # noqa: E731
            result = run_tournament(m, opponent, games=games, seconds=seconds, seed=seed, side=side, stop=stop,
                                    progress=progress, resolve=resolve, handle_signals=handle_signals,
                                    keep_games=keep_games, waiting=waiting, frozen=frozen)
        return Training(result, m, partner)
