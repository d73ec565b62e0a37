"""Operations on a machine's history, for the CLI: list, replay, undo, verify and plot.

Every game is stored (compactly, see :mod:`menace.core.records`); what a game did to the beads is
derived by replaying the history from the machine's initial beads (:mod:`menace.core.replay`), so
nothing is stored twice and an undo is exact even where the learning rule cannot be inverted
(a loss that found a colour with no beads left takes nothing).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from itertools import islice

from sqlalchemy.orm import Session

from menace.app import series
from menace.core.errors import InvalidInputError
from menace.core.game import Game, Result
from menace.core.learner import Box, GameRecord
from menace.core.replay import (
    GameDetail,
    GameNotFoundError,
    Replayer,
    bead_history,
    compare,
    game_detail,
    rule_text,
)
from menace.games import find_game
from menace.storage import history_repo as hrepo
from menace.storage import repository as repo
from menace.storage.database import open_database, session_scope
from menace.storage.leases import acquire as acquire_lease


class NothingToUndoError(InvalidInputError):
    """Undo asked of a machine with no games (or fewer than asked)."""


@contextmanager
def _reading(url: str, name: str) -> Iterator[tuple[Session, repo.StoredMachine]]:
    db = open_database(url)
    try:
        with session_scope(db) as s:
            yield s, repo.load_machine(s, name)
    finally:
        db.dispose()


def ended_by_resignation(game: Game, record: GameRecord) -> bool:
    """The game stopped on an undecided board: MENACE found its box empty and resigned."""
    state = game.initial()
    for move in record.moves:
        state = game.play(state, move)
    return game.outcome(state) is None


# -- menace history ------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameList:
    game: Game
    machine: str
    played: int
    games: list[repo.StoredGame]
    """Oldest first."""


DEFAULT_LAST = 20


def list_games(
    url: str, name: str, *, opponent: str | None = None, result: Result | None = None,
    first: int | None = None, last_number: int | None = None, last: int | None = None,
) -> GameList:
    """``menace history``: the games numbered ``first``..``last_number`` that match the filters;
    only the ``last`` of them if given (the last 20 when no range is given either).
    """
    if last is None and first is None and last_number is None:
        last = DEFAULT_LAST
    with _reading(url, name) as (s, stored):
        played = repo.games_played(s, stored.id)
        with closing(hrepo.stream_games(s, stored.id, start=first or 1, stop=last_number,
                                        reverse=last is not None, opponent=opponent, result=result)) as found:
            games = list(found) if last is None else list(islice(found, last))[::-1]
    return GameList(find_game(stored.game), name, played, games)


# -- menace replay -------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReplayedGame:
    game: Game
    machine: str
    stored: repo.StoredGame
    detail: GameDetail
    rule: str
    colours: str | None = None
    boxes: list[Box] = field(default_factory=list)
    """The machine's boxes (for their positions)."""


def replay_game(url: str, name: str, number: int) -> ReplayedGame:
    """``menace replay``: game ``number`` move by move, on the beads it met."""
    with _reading(url, name) as (s, stored):
        played = repo.games_played(s, stored.id)
        if not 1 <= number <= played:
            raise GameNotFoundError(
                f"no game {number}: {name!r} has played {played:,} game{'s' if played != 1 else ''}" if played
                else f"no game {number}: {name!r} has played no games yet"
            )
        with closing(hrepo.stream_games(s, stored.id, start=number, stop=number)) as found:
            one = next(found)
        with closing(hrepo.iter_records(s, stored.id, stop=number)) as records:
            detail = game_detail(find_game(stored.game), stored.settings, stored.boxes, records, number,
                                 corrections=repo.corrections(s, stored.id))
    return ReplayedGame(find_game(stored.game), name, one, detail, rule_text(stored.settings), stored.colours,
                        stored.boxes)


# -- menace undo ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class BeadChange:
    box_number: int
    bead: int
    before: int
    after: int


@dataclass(frozen=True)
class UndoResult:
    game: Game
    machine: str
    removed: list[repo.StoredGame]
    """The games taken back, oldest first."""
    changes: list[BeadChange]
    """Every bead count that changed, by box number and colour."""
    played: int
    """Games left."""
    seconds: float
    colours: str | None = None
    boxes: list[Box] = field(default_factory=list)


def undo_games(url: str, name: str, n: int = 1) -> UndoResult:
    """Take back the last ``n`` games and their reinforcement, exactly.

    The beads are recomputed by replaying every remaining game from the initial beads (the
    rule is not invertible: a loss on a colour with no beads took nothing). The replay reads the
    history outside any write transaction, under the machine's lease, so that a long undo never
    holds up other machines' writers; then the changed counts are written and the games removed
    in one short transaction.
    """
    if n < 1:
        raise NothingToUndoError("undo at least one game")
    start = time.perf_counter()
    db = open_database(url)
    try:
        # Refused while a tournament or a game holds the machine: it would write its beads back.
        with session_scope(db, write=True) as s:
            lease = acquire_lease(s, repo.machine_id(s, name), name, "an undo")
        try:
            with session_scope(db) as s:
                stored = repo.load_machine(s, name)
                played = repo.games_played(s, stored.id)
                if played == 0:
                    raise NothingToUndoError(f"{name!r} has played no games: nothing to undo")
                if n > played:
                    raise NothingToUndoError(f"{name!r} has played only {played:,} game{'s' if played != 1 else ''}; "
                                             f"cannot undo {n:,}")
                keep = played - n
                fixes = [c for c in repo.corrections(s, stored.id) if c.after_game <= keep]
                replayer = Replayer(find_game(stored.game), stored.settings, stored.boxes, corrections=fixes)
                if keep:
                    replayer.apply_all(hrepo.iter_records(s, stored.id, stop=keep))
            changes: list[BeadChange] = []
            updates: list[tuple[int, int, int]] = []
            for d in compare(stored.boxes, replayer.counts):
                changes.append(BeadChange(d.box_number, d.bead, d.stored, d.replayed))
                updates.append((stored.box_ids[d.box_number - 1], d.bead, d.replayed))
            with session_scope(db, write=True) as s:
                lease.prove(s)
                hrepo.write_beads(s, updates)
                removed = hrepo.remove_last_games(s, stored.id, n)
        finally:
            with session_scope(db, write=True) as s:
                lease.release(s)
    finally:
        db.dispose()
    return UndoResult(find_game(stored.game), name, removed, changes, keep, time.perf_counter() - start,
                      stored.colours, stored.boxes)


# -- the series behind the plots ----------------------------------------------------------------
def beads_series(url: str, name: str, box: int = 1) -> series.BeadsData:
    """Box ``box``'s beads after every game, with the changes of opponent."""
    tracker = series.OpponentTracker()
    with _reading(url, name) as (s, stored):
        games = tracker.follow((g.record, opponent_label(g)) for g in hrepo.stream_games(s, stored.id))
        beads = bead_history(find_game(stored.game), stored.settings, stored.boxes, games, box - 1,
                             corrections=repo.corrections(s, stored.id))
    return series.beads_data(find_game(stored.game), name, stored.settings, beads, tracker.changes)


def learning_series(url: str, name: str, window: int | None = None) -> series.LearningData:
    """Every game's result and the running reinforcement, with rolling rates."""
    with _reading(url, name) as (s, stored):
        games = ((g.record.result, opponent_label(g)) for g in hrepo.stream_games(s, stored.id))
        return series.learning_data(name, stored.settings, games, window)


def wall(url: str, name: str) -> series.BoxesData:
    """Every box with its beads now, grouped by MENACE's move."""
    with _reading(url, name) as (s, stored):
        played = repo.games_played(s, stored.id)
    return series.boxes_data(find_game(stored.game), name, stored.boxes, played)


def opponent_label(game: repo.StoredGame) -> str:
    """The opponent as the learning plot names it: ``smart``, ``person (play)``."""
    return game.opponent if game.kind == "tournament" else f"{game.opponent} ({game.kind})"


