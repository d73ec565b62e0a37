"""Queries on a machine's stored games: streaming them with filters, taking the last ones back.

Games live in blocks (see :class:`~menace.storage.models.GameBlockRow`); every function here
reads block by block, so a million games never sit in memory at once, and skips whole blocks
where it can (a block's win/draw/loss tally, its run's opponent, its range of game numbers).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from contextlib import closing
from dataclasses import dataclass

from sqlalchemy import delete, exists, select, update
from sqlalchemy.orm import Session

from menace.core.game import Result
from menace.core.learner import GameRecord
from menace.core.records import decode_block, encode_block
from menace.storage.models import BeadRow, CorrectionRow, GameBlockRow, RunRow
from menace.storage.repository import StoredGame, games_played

STREAM = {"yield_per": 64}
"""Fetch blocks a few at a time: a block of a tournament holds thousands of games."""

_TALLY = {Result.WIN: GameBlockRow.wins, Result.DRAW: GameBlockRow.draws, Result.LOSS: GameBlockRow.losses}


@dataclass(frozen=True)
class RunInfo:
    id: int
    kind: str
    opponent: str
    seed: int | None


def runs(session: Session, machine_id: int) -> dict[int, RunInfo]:
    """Every run of the machine by id."""
    rows = session.execute(
        select(RunRow.id, RunRow.kind, RunRow.opponent, RunRow.seed).where(RunRow.machine_id == machine_id)
    )
    return {i: RunInfo(i, k, o, s) for i, k, o, s in rows}


def iter_records(
    session: Session, machine_id: int, start: int = 1, stop: int | None = None,
) -> Generator[GameRecord, None, None]:
    """The games numbered ``start`` to ``stop`` (inclusive; None: the last), in order."""
    with closing(stream_games(session, machine_id, start=start, stop=stop)) as games:
        for g in games:
            yield g.record


def stream_games(
    session: Session, machine_id: int, *, start: int = 1, stop: int | None = None, reverse: bool = False,
    opponent: str | None = None, result: Result | None = None,
) -> Generator[StoredGame, None, None]:
    """Stored games numbered ``start`` to ``stop`` (inclusive), optionally only those against
    ``opponent`` or with ``result`` (from MENACE's side), in order or (``reverse``) last first.
    """
    known = runs(session, machine_id)
    q = select(GameBlockRow.first_game, GameBlockRow.run_id, GameBlockRow.data).where(
        GameBlockRow.machine_id == machine_id, GameBlockRow.first_game + GameBlockRow.n_games > start,
    )
    if stop is not None:
        q = q.where(GameBlockRow.first_game <= stop)
    if opponent is not None:
        ids = [r.id for r in known.values() if r.opponent == opponent]
        q = q.where(GameBlockRow.run_id.in_(ids))
    if result is not None:
        q = q.where(_TALLY[result] > 0)
    order = GameBlockRow.first_game.desc() if reverse else GameBlockRow.first_game
    rows = session.execute(q.order_by(order).execution_options(**STREAM))
    try:
        for first, run_id, data in rows:
            run = known[run_id]
            games = [
                StoredGame(first + i, run_id, run.kind, run.opponent, record)
                for i, record in enumerate(decode_block(data))
                if start <= first + i and (stop is None or first + i <= stop)
                and (result is None or record.result is result)
            ]
            yield from (reversed(games) if reverse else games)
    finally:
        rows.close()  # a caller that stops early (the last 20 games) leaves no cursor open


def write_beads(session: Session, updates: Sequence[tuple[int, int, int]]) -> None:
    """Set bead counts in bulk: ``(box_id, move, count)``."""
    if updates:
        session.execute(update(BeadRow), [{"box_id": b, "move": m, "count": c} for b, m, c in updates])


def remove_last_games(session: Session, machine_id: int, n: int) -> list[StoredGame]:
    """Take the last ``n`` games out of the history; the games removed, in order.

    Blocks after the new last game go; the block holding it is cut short and re-packed with
    its tally. A run left without games (a game at the terminal, a tournament undone
    entirely) goes too, and so do bead counts set by hand after the new last game. The beads
    themselves are the caller's business (see :func:`write_beads`).
    """
    keep = max(games_played(session, machine_id) - n, 0)
    known = runs(session, machine_id)
    blocks = session.execute(
        select(GameBlockRow.id, GameBlockRow.first_game, GameBlockRow.run_id, GameBlockRow.data)
        .where(GameBlockRow.machine_id == machine_id, GameBlockRow.first_game + GameBlockRow.n_games - 1 > keep)
        .order_by(GameBlockRow.first_game)
    ).all()
    removed: list[StoredGame] = []
    for block_id, first, run_id, data in blocks:
        games = decode_block(data)
        cut = max(keep - first + 1, 0)
        run = known[run_id]
        removed.extend(StoredGame(first + i, run_id, run.kind, run.opponent, record)
                       for i, record in enumerate(games) if i >= cut)
        if cut == 0:
            session.execute(delete(GameBlockRow).where(GameBlockRow.id == block_id))
            continue
        kept = games[:cut]
        tally = {r: 0 for r in Result}
        for record in kept:
            tally[record.result] += 1
        session.execute(update(GameBlockRow).where(GameBlockRow.id == block_id).values(
            n_games=len(kept), wins=tally[Result.WIN], draws=tally[Result.DRAW], losses=tally[Result.LOSS],
            data=encode_block(kept),
        ))
    emptied = {g.run_id for g in removed}
    if emptied:
        session.execute(delete(RunRow).where(
            RunRow.id.in_(emptied), ~exists().where(GameBlockRow.run_id == RunRow.id),
        ))
    session.execute(delete(CorrectionRow).where(
        CorrectionRow.machine_id == machine_id, CorrectionRow.after_game > keep,
    ))
    return removed


@dataclass(frozen=True)
class BlockInfo:
    """Where one stored block sits in the history, without its games."""

    id: int
    first_game: int
    n_games: int
    run_id: int


def block_index(session: Session, machine_id: int) -> list[BlockInfo]:
    """Every block of the machine's history, oldest first (a cheap query: no game data)."""
    rows = session.execute(
        select(GameBlockRow.id, GameBlockRow.first_game, GameBlockRow.n_games, GameBlockRow.run_id)
        .where(GameBlockRow.machine_id == machine_id).order_by(GameBlockRow.first_game)
    )
    return [BlockInfo(*r) for r in rows]


def block_data(session: Session, machine_id: int, start: int = 1) -> Generator[tuple[int, bytes], None, None]:
    """``(first game, compressed games)`` of every block ending at or after game ``start``, in order."""
    rows = session.execute(
        select(GameBlockRow.first_game, GameBlockRow.data)
        .where(GameBlockRow.machine_id == machine_id, GameBlockRow.first_game + GameBlockRow.n_games > start)
        .order_by(GameBlockRow.first_game).execution_options(**STREAM)
    )
    try:
        yield from ((first, data) for first, data in rows)
    finally:
        rows.close()
