"""Queries on a machine's stored games: streaming them with filters, taking the last ones back.

Games live in blocks (see :data:`~menace.storage.models.block_table`); every function here
reads block by block, so a million games never sit in memory at once, and skips whole blocks
where it can (a block's win/draw/loss tally, its run's opponent, its range of game numbers).
"""

from __future__ import annotations

import threading
from collections.abc import Generator, Iterable, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import (
    BigInteger,
    Connection,
    Engine,
    Text,
    bindparam,
    case,
    cast,
    delete,
    exists,
    func,
    insert,
    literal_column,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY

from menace.core.errors import InvalidInputError
from menace.core.game import Result
from menace.core.learner import GameRecord
from menace.core.records import decode_block, encode_block, encode_games, result_codes, result_planes
from menace.storage.models import block_result_table, block_table, correction_table, run_table
from menace.storage.repository import StoredGame, games_played, set_bead_counts

_BLOCK, _RUN, _FIX, _RESULTS = block_table.c, run_table.c, correction_table.c, block_result_table.c

STREAM = {"yield_per": 64}
"""Fetch blocks a few at a time: a block of a tournament holds thousands of games."""

_TALLY = {Result.WIN: _BLOCK.wins, Result.DRAW: _BLOCK.draws, Result.LOSS: _BLOCK.losses}


@dataclass(frozen=True)
class RunInfo:
    id: int
    kind: str
    opponent: str
    seed: int | None
    frozen: bool = False
    """The machine played the run without learning."""


def runs(conn: Connection, machine_id: int) -> dict[int, RunInfo]:
    """Every run of the machine by id."""
    rows = conn.execute(
        select(_RUN.id, _RUN.kind, _RUN.opponent, _RUN.seed, _RUN.frozen).where(_RUN.machine_id == machine_id)
    )
    return {i: RunInfo(i, k, o, s, bool(f)) for i, k, o, s, f in rows}


def frozen_runs(conn: Connection, machine_id: int) -> set[int]:
    """The ids of the machine's runs played without learning."""
    return set(conn.scalars(select(_RUN.id).where(_RUN.machine_id == machine_id, _RUN.frozen)))


def iter_records(
    conn: Connection, machine_id: int, start: int = 1, stop: int | None = None,
) -> Generator[GameRecord, None, None]:
    """The games numbered ``start`` to ``stop`` (inclusive; None: the last), in order."""
    with closing(stream_games(conn, machine_id, start=start, stop=stop)) as games:
        for g in games:
            yield g.record


def stream_games(
    conn: Connection, machine_id: int, *, start: int = 1, stop: int | None = None, reverse: bool = False,
    opponent: str | None = None, result: Result | None = None,
) -> Generator[StoredGame, None, None]:
    """Stored games numbered ``start`` to ``stop`` (inclusive), optionally only those against
    ``opponent`` or with ``result`` (from MENACE's side), in order or (``reverse``) last first.
    """
    known = runs(conn, machine_id)
    q = select(_BLOCK.first_game, _BLOCK.run_id, _BLOCK.data).where(
        _BLOCK.machine_id == machine_id, _BLOCK.first_game + _BLOCK.n_games > start,
        _BLOCK.kept,  # a summary holds no games to list
    )
    if stop is not None:
        q = q.where(_BLOCK.first_game <= stop)
    if opponent is not None:
        ids = [r.id for r in known.values() if r.opponent == opponent]
        q = q.where(_BLOCK.run_id.in_(ids))
    if result is not None:
        q = q.where(_TALLY[result] > 0)
    order = _BLOCK.first_game.desc() if reverse else _BLOCK.first_game
    rows = conn.execute(q.order_by(order).execution_options(**STREAM))
    try:
        for first, run_id, data in rows:
            run = known[run_id]
            games = [
                StoredGame(first + i, run_id, run.kind, run.opponent, record, run.frozen)
                for i, record in enumerate(decode_block(data))
                if start <= first + i and (stop is None or first + i <= stop)
                and (result is None or record.result is result)
            ]
            yield from (reversed(games) if reverse else games)
    finally:
        rows.close()  # a caller that stops early (the last 20 games) leaves no cursor open


@dataclass(frozen=True)
class BlockInfo:
    """A stored block as the history's readers need it (the games still packed)."""

    id: int
    first_game: int
    n_games: int
    run_id: int
    tally: tuple[int, int, int]
    """Wins, draws and losses."""
    data: bytes
    beads: bytes | None
    """The checkpoint after its last game, if it has one."""
    kept: bool
    digest: str | None
    frozen: bool = False
    """Its run was played without learning: its games changed no bead."""

    @property
    def last_game(self) -> int:
        return self.first_game + self.n_games - 1


_BLOCK_COLUMNS = (_BLOCK.id, _BLOCK.first_game, _BLOCK.n_games, _BLOCK.run_id,
                  _BLOCK.wins, _BLOCK.draws, _BLOCK.losses)


def _info(row: Any, data: bytes = b"", beads: bytes | None = None, kept: bool = True,
          digest: str | None = None, frozen: frozenset[int] | set[int] = frozenset()) -> BlockInfo:
    i, first, n, run, w, d, l_ = row[:7]
    return BlockInfo(i, first, n, run, (w, d, l_), data, beads, kept, digest, run in frozen)


def stream_blocks(conn: Connection, machine_id: int, *, start: int = 1, stop: int | None = None,
                  with_data: bool = True, with_beads: bool = True) -> Generator[BlockInfo, None, None]:
    """The blocks holding games ``start`` to ``stop`` (inclusive), in order, a few at a time;
    without their bytes (``with_data``/``with_beads`` false) where a reader only wants tallies."""
    cols: list[Any] = [*_BLOCK_COLUMNS, _BLOCK.kept, _BLOCK.digest]
    if with_data:
        cols.append(_BLOCK.data)
    if with_beads:
        cols.append(_BLOCK.beads)
    q = select(*cols).where(_BLOCK.machine_id == machine_id,
                            _BLOCK.first_game + _BLOCK.n_games > start)
    if stop is not None:
        q = q.where(_BLOCK.first_game <= stop)
    frozen = frozen_runs(conn, machine_id)  # read before the stream opens: one cursor at a time
    rows = conn.execute(q.order_by(_BLOCK.first_game).execution_options(**STREAM))
    try:
        for row in rows:
            data: bytes = row[9] if with_data else b""
            beads: bytes | None = row[-1] if with_beads else None
            yield _info(row, data, beads, bool(row[7]), row[8], frozen)
    finally:
        rows.close()


class ResultBlock(NamedTuple):
    """A stored block as the learning curve reads it: its tally and its games' results. (A named
    tuple: a long history has a thousand blocks and the curve is asked for every second.)"""

    first_game: int
    n_games: int
    tally: tuple[int, int, int]
    kept: bool
    results: bytes | None
    """Its games' results as bit planes (see :func:`menace.core.records.result_planes`); None for a
    summary, and for a kept block without them (a damaged database), whose games are then in ``data``."""
    data: bytes | None

    @property
    def last_game(self) -> int:
        return self.first_game + self.n_games - 1


def stream_results(conn: Connection, machine_id: int, *, start: int = 1,
                   stop: int | None = None) -> Generator[ResultBlock, None, None]:
    """The blocks holding games ``start`` to ``stop`` (inclusive), in order, with their results and
    not their games (read only for a kept block that has no results)."""
    # A block with results never reads its kept flag or its games (on SQLite both lie after them).
    kept = case((_RESULTS.results.is_not(None), True), else_=_BLOCK.kept)
    games = case((_RESULTS.results.is_(None) & _BLOCK.kept, _BLOCK.data))
    q = select(_BLOCK.first_game, _BLOCK.n_games, _BLOCK.wins, _BLOCK.draws, _BLOCK.losses, kept,
               _RESULTS.results, games).select_from(block_table.outerjoin(
                   block_result_table, _RESULTS.block_id == _BLOCK.id)).where(
        _BLOCK.machine_id == machine_id, _BLOCK.first_game + _BLOCK.n_games > start)
    if stop is not None:
        q = q.where(_BLOCK.first_game <= stop)
    rows = conn.execute(q.order_by(_BLOCK.first_game).execution_options(**STREAM))
    try:
        for first, n, w, d, l_, kept, results, data in rows:
            yield ResultBlock(first, n, (w, d, l_), bool(kept), results if results is None else bytes(results),
                              data if data is None else bytes(data))
    finally:
        rows.close()


KEPT_RESULTS_BYTES = 64 * 1024 * 1024
"""The most bytes of results a :class:`KeptResults` holds (those of some 250 million kept games); blocks
beyond are read every time."""


def _numbers(name: str, values: Iterable[int]) -> Any:
    """``values`` as one PostgreSQL ``bigint[]`` parameter, sent as its text (``{1,2,3}``, built here at
    once: the driver turns a list into an array one element at a time in Python)."""
    return cast(bindparam(name, "{" + ",".join(map(str, values)) + "}", type_=Text), ARRAY(BigInteger))


def _unprepared(conn: Connection, statement: Any) -> Sequence[Any]:
    """The rows of ``statement``, run as a statement the driver does not prepare (psycopg prepares a
    statement at its sixth run), so that PostgreSQL plans it for the values of its parameters.

    The plan PostgreSQL keeps for a prepared statement is made for any value of its parameters: it
    counts 10 elements in an array parameter's ``unnest``, and joined with the blocks (whose count
    it does not know before the table is analyzed) that plan was a nested loop comparing every block
    with every known one: 12.5 ms of the database's CPU at each look at 500 blocks instead of 1.4 ms,
    growing with the square of the history's blocks."""
    driver = conn.connection.driver_connection
    threshold = getattr(driver, "prepare_threshold", None)
    if threshold is None:
        return conn.execute(statement).all()
    driver.prepare_threshold = None  # type: ignore[union-attr]
    try:
        return conn.execute(statement).all()
    finally:
        driver.prepare_threshold = threshold  # type: ignore[union-attr]


class KeptResults:
    """The blocks' results a long-lived reader (a server's owner) has read, kept so that the learning
    curve of a growing history reads only the blocks written since it last looked (PostgreSQL).

    Each block's results are kept with a stamp of the row versions they were read from: PostgreSQL's
    ``xmin`` of the block's row and of its results' row, the id of the transaction that wrote each
    version (an insert or an update writes a new version with a new id; ids are not given twice).
    A stream sends the stamps it knows; the database sends a block's results again only when its
    stamps differ (a block written, cut by an undo or written again under the same id since) and
    tells which it did not send, in the same statement, so what is streamed is one snapshot. On
    another database :meth:`works_on` is False and the results are read every time
    (:func:`stream_results`): SQLite has no row version to tell a block written again from the old one.
    """

    def __init__(self, most_bytes: int = KEPT_RESULTS_BYTES) -> None:
        self._known: dict[int, tuple[tuple[int, int], bytes]] = {}
        self._bytes = 0
        self._most = most_bytes
        self._lock = threading.Lock()
        self.sent = 0
        """Blocks whose results the database has sent to this keeper (not known, or known at an older version)."""
        self.overflowed = False
        """Whether results were sent that it could not hold (more than ``most_bytes`` in all)."""

    @staticmethod
    def works_on(bind: Connection | Engine) -> bool:
        return bind.dialect.name == "postgresql"

    def __len__(self) -> int:
        return len(self._known)

    def stream(self, conn: Connection, machine_id: int, *, start: int = 1,
               stop: int | None = None) -> Generator[ResultBlock, None, None]:
        """:func:`stream_results`' blocks, the results of those known since the last look not sent again."""
        with self._lock:
            known = dict(self._known)
        stamps = list(known.values())
        told = func.unnest(_numbers("ids", known), _numbers("block_versions", (v[0][0] for v in stamps)),
                           _numbers("result_versions", (v[0][1] for v in stamps))
                           ).table_valued("id", "block_version", "result_version").render_derived(name="told")
        block_version = cast(cast(literal_column("game_blocks.xmin"), Text), BigInteger)
        result_version = func.coalesce(cast(cast(literal_column("block_results.xmin"), Text), BigInteger), -1)
        same = func.coalesce((told.c.block_version == block_version) & (told.c.result_version == result_version),
                             False)
        kept = case((_RESULTS.results.is_not(None), True), else_=_BLOCK.kept)
        games = case((_RESULTS.results.is_(None) & _BLOCK.kept, _BLOCK.data))
        q = select(_BLOCK.id, _BLOCK.first_game, _BLOCK.n_games, _BLOCK.wins, _BLOCK.draws, _BLOCK.losses, kept,
                   block_version, result_version, same, case((same, None), else_=_RESULTS.results), games
                   ).select_from(block_table.outerjoin(block_result_table, _RESULTS.block_id == _BLOCK.id)
                                 .outerjoin(told, told.c.id == _BLOCK.id)).where(
            _BLOCK.machine_id == machine_id, _BLOCK.first_game + _BLOCK.n_games > start)
        if stop is not None:
            q = q.where(_BLOCK.first_game <= stop)
        whole = start <= 1 and stop is None
        seen: set[int] = set()
        # Not streamed from a server-side cursor: the rows of known blocks are a few bytes each, and
        # only the first look reads every block's results at once (a quarter of a megabyte per million games).
        rows = _unprepared(conn, q.order_by(_BLOCK.first_game))  # at once: a row at a time costs twice the CPU
        for block_id, first, n, w, d, l_, is_kept, bv, rv, unchanged, results, data in rows:
            seen.add(block_id)
            if unchanged:
                results = known[block_id][1]
            else:
                results = results if results is None else bytes(results)
                self._remember(block_id, (bv, rv), results)
            yield ResultBlock(first, n, (w, d, l_), bool(is_kept), results, data if data is None else bytes(data))
        if whole:  # blocks gone from the machine's history (an undo) are forgotten
            with self._lock:
                for block_id in [b for b in known if b not in seen and b in self._known]:
                    self._bytes -= len(self._known.pop(block_id)[1])

    def _remember(self, block_id: int, version: tuple[int, int], results: bytes | None) -> None:
        with self._lock:
            self.sent += results is not None
            old = self._known.pop(block_id, None)
            if old is not None:
                self._bytes -= len(old[1])
            if results is not None and self._bytes + len(results) <= self._most:
                self._known[block_id] = (version, results)
                self._bytes += len(results)
            elif results is not None:
                self.overflowed = True


def block_runs(conn: Connection, machine_id: int, start: int, stop: int) -> list[tuple[int, int]]:
    """``(first game, run id)`` of the blocks holding games ``start`` to ``stop``, in order (nothing
    else of them is read)."""
    return [(int(f), int(r)) for f, r in conn.execute(
        select(_BLOCK.first_game, _BLOCK.run_id).where(
            _BLOCK.machine_id == machine_id, _BLOCK.first_game + _BLOCK.n_games > start, _BLOCK.first_game <= stop)
        .order_by(_BLOCK.first_game)).all()]


def games_with_results(conn: Connection, machine_id: int, start: int, stop: int) -> int:
    """Games of the blocks holding games ``start`` to ``stop`` that keep their games (and results)."""
    return int(conn.execute(
        select(func.coalesce(func.sum(_BLOCK.n_games), 0))
        .select_from(block_table.join(block_result_table, _RESULTS.block_id == _BLOCK.id))
        .where(_BLOCK.machine_id == machine_id, _BLOCK.first_game + _BLOCK.n_games > start, _BLOCK.first_game <= stop)
    ).scalar_one())


def tallies_before(conn: Connection, machine_id: int, game: int) -> tuple[int, int, int]:
    """Wins, draws and losses of the blocks that end before game ``game`` (summed by the database)."""
    w, d, l_ = conn.execute(
        select(func.coalesce(func.sum(_BLOCK.wins), 0), func.coalesce(func.sum(_BLOCK.draws), 0),
               func.coalesce(func.sum(_BLOCK.losses), 0))
        .where(_BLOCK.machine_id == machine_id, _BLOCK.first_game + _BLOCK.n_games <= game)
    ).one()
    return int(w), int(d), int(l_)


def checkpoint_before(conn: Connection, machine_id: int, game: int) -> tuple[int, bytes] | None:
    """The latest checkpoint at or before game ``game``: (its game number, the packed beads)."""
    row = conn.execute(
        select(_BLOCK.first_game + _BLOCK.n_games - 1, _BLOCK.beads)
        .where(_BLOCK.machine_id == machine_id, _BLOCK.beads.is_not(None),
               _BLOCK.first_game + _BLOCK.n_games - 1 <= game)
        .order_by(_BLOCK.first_game.desc()).limit(1)
    ).first()
    return None if row is None or row[1] is None else (int(row[0]), bytes(row[1]))


def last_checkpoint_game(conn: Connection, machine_id: int) -> int:
    """The game of the machine's latest checkpoint; 0 if it has none."""
    found = conn.execute(
        select(_BLOCK.first_game + _BLOCK.n_games - 1)
        .where(_BLOCK.machine_id == machine_id, _BLOCK.beads.is_not(None))
        .order_by(_BLOCK.first_game.desc()).limit(1)
    ).scalar()
    return int(found or 0)


def checkpoint_games(conn: Connection, machine_id: int, first: int, last: int) -> list[tuple[int, int]]:
    """``(game, block id)`` of every checkpoint from game ``first`` to ``last``, in order (no beads read)."""
    end = _BLOCK.first_game + _BLOCK.n_games - 1
    rows = conn.execute(
        select(end, _BLOCK.id)
        .where(_BLOCK.machine_id == machine_id, _BLOCK.beads.is_not(None), end >= first, end <= last)
        .order_by(_BLOCK.first_game)
    )
    return [(int(g), int(i)) for g, i in rows]


def checkpoints_by_id(conn: Connection, block_ids: Sequence[int]) -> Generator[tuple[int, bytes], None, None]:
    """``(block id, packed beads)`` of the given blocks' checkpoints, a few hundred per query."""
    for at in range(0, len(block_ids), 500):
        chunk = block_ids[at:at + 500]
        for i, beads in conn.execute(
            select(_BLOCK.id, _BLOCK.beads).where(_BLOCK.id.in_(chunk)).order_by(_BLOCK.id)
        ):
            if beads is not None:
                yield int(i), bytes(beads)


def summarized_block_at(conn: Connection, machine_id: int, game: int) -> BlockInfo | None:
    """The summarized block that game ``game`` falls in (None if the game is kept or absent)."""
    row = conn.execute(
        select(*_BLOCK_COLUMNS).where(
            _BLOCK.machine_id == machine_id, ~_BLOCK.kept, _BLOCK.first_game <= game,
            _BLOCK.first_game + _BLOCK.n_games > game)
    ).first()
    return None if row is None else _info(row, kept=False)


def summarized_games(conn: Connection, machine_id: int, first: int, last: int) -> tuple[int, int, int]:
    """``(how many, first, last)``: the summarized games (their blocks keep no games) among games
    ``first`` to ``last``; ``(0, 0, 0)`` when there are none."""
    end = _BLOCK.first_game + _BLOCK.n_games - 1
    count, low, high = conn.execute(
        select(func.sum(_BLOCK.n_games), func.min(_BLOCK.first_game), func.max(end))
        .where(_BLOCK.machine_id == machine_id, ~_BLOCK.kept, _BLOCK.first_game <= last, end >= first)
    ).one()
    if not count:
        return 0, 0, 0
    # a block the range cuts counts only its games inside the range
    low, high = max(int(low), first), min(int(high), last)
    return min(int(count), high - low + 1), low, high


def set_block_extras(conn: Connection, updates: Sequence[tuple[int, int, bytes | None, str | None]]) -> None:
    """Give blocks a checkpoint and/or a verified checksum: ``(block id, its n_games, beads or None,
    digest or None)``; a None leaves that column as it is, and a block whose length changed since it
    was read (an undo cut it) is left alone."""
    for block_id, n_games, beads, digest in updates:
        values: dict[str, Any] = {}
        if beads is not None:
            values["beads"] = beads
        if digest is not None:
            values["digest"] = digest
        if values:
            conn.execute(update(block_table).where(_BLOCK.id == block_id, _BLOCK.n_games == n_games)
                         .values(**values))


def write_beads(conn: Connection, updates: Sequence[tuple[int, int, int]]) -> None:
    """Set bead counts in bulk: ``(box_id, move, count)``."""
    set_bead_counts(conn, updates)


def remove_last_games(conn: Connection, machine_id: int, n: int) -> list[StoredGame]:
    """Take the last ``n`` games out of the history; the games removed, in order.

    Blocks after the new last game go; the block holding it is cut short and re-packed with
    its tally. A run left without games (a game at the terminal, a tournament undone
    entirely) goes too, and so do bead counts set by hand after the new last game. The beads
    themselves are the caller's business (see :func:`write_beads`).
    """
    keep = max(games_played(conn, machine_id) - n, 0)
    known = runs(conn, machine_id)
    blocks = conn.execute(
        select(_BLOCK.id, _BLOCK.first_game, _BLOCK.run_id, _BLOCK.data, _BLOCK.kept, _BLOCK.n_games)
        .where(_BLOCK.machine_id == machine_id, _BLOCK.first_game + _BLOCK.n_games - 1 > keep)
        .order_by(_BLOCK.first_game)
    ).all()
    removed: list[StoredGame] = []
    emptied: set[int] = set()
    for block_id, first, run_id, data, whole, n_games in blocks:
        if not whole:
            if first <= keep:
                raise InvalidInputError(
                    f"game {keep} is inside a summarized block (games {first} to {first + n_games - 1})")
            conn.execute(delete(block_table).where(_BLOCK.id == block_id))
            emptied.add(run_id)
            continue
        games = decode_block(data)
        cut = max(keep - first + 1, 0)
        run = known[run_id]
        removed.extend(StoredGame(first + i, run_id, run.kind, run.opponent, record, run.frozen)
                       for i, record in enumerate(games) if i >= cut)
        if cut == 0:
            conn.execute(delete(block_table).where(_BLOCK.id == block_id))
            continue
        kept = games[:cut]
        tally = {r: 0 for r in Result}
        for record in kept:
            tally[record.result] += 1
        conn.execute(update(block_table).where(_BLOCK.id == block_id).values(
            n_games=len(kept), wins=tally[Result.WIN], draws=tally[Result.DRAW], losses=tally[Result.LOSS],
            data=encode_block(kept), beads=None, digest=None,  # its checkpoint was for its old last game
        ))
        conn.execute(delete(block_result_table).where(_RESULTS.block_id == block_id))
        conn.execute(insert(block_result_table).values(block_id=block_id,
                                                       results=result_planes(result_codes(encode_games(kept)))))
    emptied |= {g.run_id for g in removed}
    if emptied:
        conn.execute(delete(run_table).where(
            _RUN.id.in_(emptied), ~exists().where(_BLOCK.run_id == _RUN.id),
        ))
    conn.execute(delete(correction_table).where(
        _FIX.machine_id == machine_id, _FIX.after_game > keep,
    ))
    return removed


