"""Operations on a machine's history, for the CLI: list, replay, undo, verify and plot.

Every game is stored (compactly, see :mod:`menace.core.records`); what a game did to the beads is
derived by replaying the history from the machine's initial beads (:mod:`menace.core.replay`), so
nothing is stored twice and an undo is exact even where the learning rule cannot be inverted
(a loss that found a colour with no beads left takes nothing).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field, replace
from itertools import islice
from typing import TYPE_CHECKING

from sqlalchemy import Connection

from menace.app.database import Database
from menace.core.errors import DamagedError, InvalidInputError, NotFoundError
from menace.core.game import Game, Move, Result, Side, State
from menace.core.learner import Box, GameRecord
from menace.core.records import skip_games, unpack_beads, unpack_block, unpack_box
from menace.core.replay import (
    BeadSeries,
    GameDetail,
    GameNotFoundError,
    Replayer,
    UnknownBoxError,
    compare,
    gc_paused,
    next_game_detail,
)
from menace.core.settings import Settings
from menace.games import find_game
from menace.storage import history_repo as hrepo
from menace.storage import repository as repo
from menace.storage.leases import acquire as acquire_lease

if TYPE_CHECKING:
    from menace.app import series  # numpy: imported by the functions that draw series, not by every command


class NothingToUndoError(InvalidInputError):
    """Undo asked of a machine with no games (or fewer than asked)."""


class SummarizedGameError(NotFoundError):
    """A game the history keeps only in a block's summary (its tally and the beads at its end)."""


class HistoryGapError(DamagedError):
    """Games missing from the stored history."""


def _summary_message(block: hrepo.BlockInfo, what: str) -> str:
    return (f"{what}: games {block.first_game:,} to {block.last_game:,} are kept only as a summary "
            f"(wins, draws, losses and the beads after game {block.last_game:,})")


def replay_to(s: Connection, stored: repo.StoredMachine, game_number: int) -> Replayer:
    """A replayer holding the beads after game ``game_number`` (with the corrections made after it),
    started from the nearest checkpoint at or before it: at most one checkpoint's interval of games
    is replayed, whatever the history's length."""
    game = find_game(stored.game)
    r = Replayer(game, stored.settings, stored.boxes, repo.corrections(s, stored.id))
    found = hrepo.checkpoint_before(s, stored.id, game_number)
    if found is not None:
        r.resume(found[0], unpack_beads(found[1], r.layout(), game.move_count))
    advance(s, stored.id, r, game_number)
    return r


def advance(s: Connection, machine_id: int, r: Replayer, stop: int) -> None:
    """Replay stored games on ``r`` up to game ``stop``, straight from the stored bytes; a summarized
    block is crossed by its checkpoint (so ``stop`` may not fall inside one)."""
    if r.games >= stop:
        return
    with closing(hrepo.stream_blocks(s, machine_id, start=r.games + 1, stop=stop)) as blocks:
        for b in blocks:
            if b.first_game > r.games + 1:
                raise HistoryGapError(f"games {r.games + 1:,} to {b.first_game - 1:,} are missing from the history")
            if not b.kept:
                if b.last_game > stop or b.beads is None:
                    raise SummarizedGameError(_summary_message(b, f"no beads after game {stop:,}"))
                r.resume(b.last_game, unpack_beads(b.beads, r.layout(), r.learner.game.move_count))
            else:
                raw = unpack_block(b.data)
                r.apply_packed(raw, skip_games(raw, r.games + 1 - b.first_game), stop - r.games, learn=not b.frozen)
            if r.games >= stop:
                return
    if r.games < stop:
        raise GameNotFoundError(f"no game {stop:,}: the history ends at game {r.games:,}")


@contextmanager
def _reading(db: Database, name: str) -> Iterator[tuple[Connection, repo.StoredMachine]]:
    with db.reading() as s:
        yield s, repo.load_machine(s, name)


def resigned_side(game: Game, record: GameRecord) -> Side | None:
    """Who resigned, if the game stopped on an undecided board: the side to move there (MENACE at an
    empty box, or the other machine of a ``menace:NAME`` tournament at one of its own)."""
    state = game.initial()
    for move in record.moves:
        state = game.play(state, move)
    return game.to_move(state) if game.outcome(state) is None else None


# -- menace history ------------------------------------------------------------------------------
@dataclass(frozen=True)
class ShownCorrection:
    """Bead counts of one box set by hand after game ``after_game`` (``menace reconcile``, an
    operator's correction): ``(move, before, after)`` per colour; ``before`` is None where the
    history before it is kept only as a summary."""

    after_game: int
    box_number: int
    position: State
    reason: str
    changes: tuple[tuple[Move, int | None, int], ...]


@dataclass(frozen=True)
class GameList:
    game: Game
    machine: str
    played: int
    games: list[repo.StoredGame]
    """Oldest first."""
    corrections: list[ShownCorrection] = field(default_factory=list)
    colours: str | None = None
    """The machine's bead colours, as stored."""
    summarized: tuple[int, int, int] = (0, 0, 0)
    """``(how many, first, last)``: games in the span asked for (from the oldest shown, or ``first``,
    to ``last_number`` or the newest) that are kept only as summaries, so could not be listed."""
    # corrections: those made among the games shown (after the first's, up to after the last), in
    # order; with no games shown, every correction.


DEFAULT_LAST = 20


def list_games(
    db: Database, name: str, *, opponent: str | None = None, result: Result | None = None,
    first: int | None = None, last_number: int | None = None, last: int | None = None,
) -> GameList:
    """``menace history``: the games numbered ``first``..``last_number`` that match the filters;
    only the ``last`` of them if given (the last 20 when no range is given either).
    """
    if last is None and first is None and last_number is None:
        last = DEFAULT_LAST
    with _reading(db, name) as (s, stored):
        played = repo.games_played(s, stored.id)
        with closing(hrepo.stream_games(s, stored.id, start=first or 1, stop=last_number,
                                        reverse=last is not None, opponent=opponent, result=result)) as found:
            games = list(found) if last is None else list(islice(found, last))[::-1]
        fixes = _corrections_among(s, stored, games)
        start = games[0].number if games and first is None else (first or 1)
        summarized = hrepo.summarized_games(s, stored.id, start, min(last_number or played, played))
    return GameList(find_game(stored.game), name, played, games, fixes, stored.colours, summarized)


def _corrections_among(s: Connection, stored: repo.StoredMachine,
                       games: list[repo.StoredGame]) -> list[ShownCorrection]:
    """The corrections made after game ``games[0]`` (or before any game when it is game 1) up to after
    ``games[-1]``, with the counts they replaced, found by replaying that stretch of the history."""
    every = repo.corrections(s, stored.id)
    if games:
        low = 0 if games[0].number == 1 else games[0].number
        high = games[-1].number
    else:
        low, high = 0, repo.games_played(s, stored.id)
    shown = [c for c in every if low <= c.after_game <= high]
    if not shown:
        return []
    before: dict[int, int | None] = {}
    try:
        with gc_paused():
            r = replay_to(s, stored, max(low - 1, 0))
            advance(s, stored.id, r, high)
        # The replayer holds its own copies, applied in the order made: equal corrections (same
        # game, box, colour and count) take the counts they replaced in that same order.
        olds: dict[repo.Correction, deque[int]] = {}
        for c, old in r.corrected:
            if isinstance(c, repo.Correction):
                olds.setdefault(c, deque()).append(old)
        before = {i: olds[c].popleft() for i, c in enumerate(every) if olds.get(c)}
    except (SummarizedGameError, HistoryGapError, GameNotFoundError):
        pass  # a stretch kept only as a summary: the counts before are not known, the counts set are
    out: list[ShownCorrection] = []
    for i, c in enumerate(every):
        if not low <= c.after_game <= high:
            continue
        change = (c.move, before.get(i), c.count)
        last = out[-1] if out else None
        same = last is not None and (last.after_game, last.box_number, last.reason) == (
            c.after_game, c.box_number, c.reason)
        if last is not None and same:
            out[-1] = ShownCorrection(last.after_game, last.box_number, last.position, last.reason,
                                      (*last.changes, change))
        else:
            out.append(ShownCorrection(c.after_game, c.box_number, stored.boxes[c.box_number - 1].position,
                                       c.reason, (change,)))
    return out


# -- menace replay -------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReplayedGame:
    game: Game
    machine: str
    stored: repo.StoredGame
    detail: GameDetail
    settings: Settings
    colours: str | None = None
    boxes: list[Box] = field(default_factory=list)
    """The machine's boxes (for their positions)."""


def replay_game(db: Database, name: str, number: int) -> ReplayedGame:
    """``menace replay``: game ``number`` move by move, on the beads it met."""
    with _reading(db, name) as (s, stored):
        played = repo.games_played(s, stored.id)
        if not 1 <= number <= played:
            raise GameNotFoundError(
                f"no game {number}: {name!r} has played {played:,} game{'s' if played != 1 else ''}" if played
                else f"no game {number}: {name!r} has played no games yet"
            )
        summary = hrepo.summarized_block_at(s, stored.id, number)
        if summary is not None:
            raise SummarizedGameError(_summary_message(summary, f"game {number:,} cannot be shown move by move"))
        with closing(hrepo.stream_games(s, stored.id, start=number, stop=number)) as found:
            one = next(found)
        detail = next_game_detail(replay_to(s, stored, number - 1), one.record, learn=not one.frozen)
    return ReplayedGame(find_game(stored.game), name, one, detail, stored.settings, stored.colours,
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
    dropped: list[repo.Correction] = field(default_factory=list)
    """Bead counts set by hand after the games taken back: they go with them."""
    odds: bool = False
    """The machine keeps odds (the Pegasus rule): :attr:`changes` are weights, not bead counts."""


def _undo_bounds(s: Connection, name: str, n: int) -> tuple[repo.StoredMachine, int, int]:
    """The machine, its games and the games kept by undoing ``n``; refused when that cannot be done."""
    stored = repo.load_machine(s, name)
    played = repo.games_played(s, stored.id)
    if played == 0:
        raise NothingToUndoError(f"{name!r} has played no games: nothing to undo")
    if n > played:
        raise NothingToUndoError(f"{name!r} has played only {played:,} game{'s' if played != 1 else ''}; "
                                 f"cannot undo {n:,}")
    keep = played - n
    inside = hrepo.summarized_block_at(s, stored.id, keep)
    if inside is not None and inside.last_game > keep:
        raise NothingToUndoError(
            _summary_message(inside, f"cannot stop at game {keep:,}"),
            hint=" or ".join(f"undo {k:,} games" for k in (played - inside.last_game,
                                                         played - inside.first_game + 1) if k)
            + ": a summary goes back a whole block at a time")
    return stored, played, keep


def undo_games(db: Database, name: str, n: int = 1) -> UndoResult:
    """Take back the last ``n`` games and their reinforcement, exactly.

    The beads are recomputed by replaying the remaining games from the last checkpoint before
    them (the rule is not invertible: a loss on a colour with no beads took nothing). The replay reads the
    history outside any write transaction, under the machine's lease, so that a long undo never
    holds up other machines' writers; then the changed counts are written and the games removed
    in one short transaction.
    """
    if n < 1:
        raise NothingToUndoError("undo at least one game")
    start = time.perf_counter()
    # What cannot be undone is refused before anything is written (the lease row included).
    with db.reading() as s:
        _undo_bounds(s, name, n)
    # Refused while a tournament or a game holds the machine: it would write its beads back.
    with db.writing() as s:
        lease = acquire_lease(s, repo.machine_id(s, name), name, "an undo")
    try:
        with db.reading() as s:
            stored, played, keep = _undo_bounds(s, name, n)  # again: a writer may have been before us
            replayer = replay_to(s, stored, keep)
            dropped = [c for c in repo.corrections(s, stored.id) if c.after_game > keep]
        changes: list[BeadChange] = []
        updates: list[tuple[int, int, int]] = []
        for d in compare(stored.boxes, replayer.counts):
            changes.append(BeadChange(d.box_number, d.bead, d.stored, d.replayed))
            updates.append((stored.box_ids[d.box_number - 1], d.bead, d.replayed))
        with db.writing() as s:
            lease.prove(s)
            hrepo.write_beads(s, updates)
            if stored.settings.keeps_mean and replayer.learner.pegasus is not None:
                repo.save_mean_outcome(s, stored.id, replayer.learner.pegasus.mean.state)
            removed = hrepo.remove_last_games(s, stored.id, n)
    finally:
        with db.writing() as s:
            lease.release(s)
    return UndoResult(find_game(stored.game), name, removed, changes, keep, time.perf_counter() - start,
                      stored.colours, stored.boxes, dropped, odds=stored.settings.pegasus is not None)


# -- the series behind the plots ----------------------------------------------------------------
BEAD_POINTS = 4000
"""Points of a bead series by default: what a page can show."""
LEARNING_POINTS = 16_000
REPLAY_GAMES = 250_000
"""A bead series replays the kept games of its range when there are at most this many (well under a
second); beyond, it is read from the checkpoints alone (a point per checkpoint nearest each point
asked for: a tournament writes one every 20,000 games at most), plus the replay of at most one
checkpoint's interval at each end."""


def _opponents(s: Connection, machine_id: int, first: int, last: int) -> list[tuple[int, str]]:
    """``(first game, opponent)`` at ``first`` and wherever the opponent changes up to ``last``."""
    known = hrepo.runs(s, machine_id)
    changes: list[tuple[int, str]] = []
    previous: str | None = None
    for block_first, run_id in hrepo.block_runs(s, machine_id, first, last):
        run = known[run_id]
        label = run.opponent if run.kind == "tournament" else f"{run.opponent} ({run.kind})"
        if label != previous:
            changes.append((max(block_first, first), label))
            previous = label
    return changes


def _range(played: int, first: int | None, last: int | None) -> tuple[int, int]:
    first = 1 if first is None else first
    last = played if last is None else min(last, played)
    if first < 1 or first > max(last, 1):
        raise GameNotFoundError(f"no games {first:,} to {last:,}: the history has {played:,} games")
    return first, last


def beads_series(db: Database, name: str, box: int = 1, points: int = BEAD_POINTS, first: int | None = None,
                 last: int | None = None) -> series.BeadsData:
    """Box ``box``'s beads over games ``first``..``last`` (all by default), at most ``points`` points.

    From the beads before ``first`` to those after ``last``; in between, evenly spaced points, replayed
    straight from the stored bytes when the range keeps at most :data:`REPLAY_GAMES` games, else read
    from the checkpoints nearest to them. Memory is bounded by ``points``, whatever the history's length.
    """
    from menace.app import series

    with _reading(db, name) as (s, stored), gc_paused():
        if not 1 <= box <= len(stored.boxes):
            raise UnknownBoxError(f"no box {box}: the machine has boxes 1 to {len(stored.boxes)}")
        played = repo.games_played(s, stored.id)
        lo, hi = _range(played, first, last) if played else (1, 0)
        target = stored.boxes[box - 1]
        beads = tuple(sorted(target.initial))
        out = BeadSeries(target, beads)
        at = series.sample_points(lo - 1, hi, max(points, 2))
        if hrepo.games_with_results(s, stored.id, lo, hi) <= REPLAY_GAMES:
            _beads_by_replay(s, stored, box - 1, at, out)
        else:
            _beads_from_checkpoints(s, stored, box - 1, at, out)
        opponents = _opponents(s, stored.id, lo, hi) if hi else []
    return series.beads_data(find_game(stored.game), name, stored.settings, out, opponents, played)


def _record(out: BeadSeries, game: int, row: list[int]) -> None:
    values = tuple(row[m] for m in out.beads)
    if out.games and out.games[-1] == game:
        out.counts[-1] = values
    else:
        out.games.append(game)
        out.counts.append(values)


def _beads_by_replay(s: Connection, stored: repo.StoredMachine, index: int, at: list[int], out: BeadSeries) -> None:
    r = replay_to(s, stored, at[0])
    row = r.counts[index]
    _record(out, at[0], row)
    want = iter(at[1:])
    goal = next(want, None)
    with closing(hrepo.stream_blocks(s, stored.id, start=at[0] + 1, stop=at[-1])) as blocks:
        for b in blocks:
            if goal is None:
                break
            if not b.kept:
                r.resume(b.last_game, unpack_beads(b.beads or b"", r.layout(), r.learner.game.move_count))
                while goal is not None and goal <= b.last_game:
                    goal = next(want, None)
                _record(out, b.last_game, row)
                continue
            raw = unpack_block(b.data)
            i = skip_games(raw, r.games + 1 - b.first_game)
            while goal is not None and goal <= b.last_game:
                i = r.apply_packed(raw, i, goal - r.games, learn=not b.frozen)
                _record(out, r.games, row)
                goal = next(want, None)
            r.apply_packed(raw, i, learn=not b.frozen)


def _beads_from_checkpoints(s: Connection, stored: repo.StoredMachine, index: int, at: list[int],
                            out: BeadSeries) -> None:
    first, last = at[0], at[-1]
    marks = hrepo.checkpoint_games(s, stored.id, first + 1, last)
    # Up to the first checkpoint the games are replayed (one interval at most): the growth of a new
    # machine, its fastest, is drawn as it happened, not from the beads before it to those 20,000
    # games later.
    head_end = marks[0][0] if marks else last
    _beads_by_replay(s, stored, index, [g for g in at if g <= head_end], out)
    chosen: dict[int, int] = {}
    j = 0
    for goal in (g for g in at[1:-1] if g > head_end):
        while j + 1 < len(marks) and marks[j + 1][0] <= goal:
            j += 1
        if marks and marks[j][0] <= goal:
            chosen[marks[j][1]] = marks[j][0]
    end = replay_to(s, stored, last)
    layout = end.layout()
    width = end.learner.game.move_count
    for block_id, packed in hrepo.checkpoints_by_id(s, sorted(chosen)):
        _record(out, chosen[block_id], unpack_box(packed, layout, index, width))
    _record(out, last, end.counts[index])


def learning_series(db: Database, name: str, window: int | None = None, points: int = LEARNING_POINTS,
                    first: int | None = None, last: int | None = None, *,
                    allow_empty: bool = False, from_start: bool = False) -> series.LearningData:
    """Games ``first``..``last`` (all by default): the running reinforcement and rolling win/draw/loss
    rates, at most ``points`` points each, computed while streaming the blocks (a block's tally where
    no point falls inside it, its games' headers otherwise; inside a summarized block the running
    totals are interpolated between its ends). Memory is bounded by ``points``, not the history.

    A machine without games is a :class:`~menace.app.series.PlotError`, or a curve without points
    with ``allow_empty`` (a web page shows it as "no games yet"). With ``from_start`` the cumulative
    reinforcement of a range counts from the history's first game, as the whole curve does (a
    zoomed chart goes on from the value it had there instead of starting again at 0).

    A server's owner keeps each answer until the database changes (see :meth:`Database.kept`)."""
    return db.kept(("learning", name, window, points, first, last, allow_empty, from_start),
                   lambda: _learning_series(db, name, window, points, first, last, allow_empty, from_start))


def _learning_series(db: Database, name: str, window: int | None, points: int, first: int | None,
                     last: int | None, allow_empty: bool, from_start: bool) -> series.LearningData:
    from menace.app import series

    whole = _whole_history(db, name) if first is None and last is None else None
    if whole is not None:
        if not whole.played and allow_empty:
            return series.no_learning(name, whole.settings)
        if not whole.played:
            raise series.PlotError(f"{name!r} has played no games yet: nothing to plot")
        sampler = _feed(series.LearningSampler(1, whole.played, window, points), whole.blocks)
        return sampler.data(name, whole.settings, whole.opponents, whole.played)
    with db.reading() as s, gc_paused():
        machine_id, settings = repo.machine_settings(s, name)  # not its boxes: 2,201 take 90 ms
        played = repo.games_played(s, machine_id)
        if not played and allow_empty:
            return series.no_learning(name, settings)
        if not played:
            raise series.PlotError(f"{name!r} has played no games yet: nothing to plot")
        lo, hi = _range(played, first, last)
        sampler = _learning_sampled(s, machine_id, series.LearningSampler(lo, hi, window, points),
                                    _kept_results(db, s, machine_id))
        data = sampler.data(name, settings, _opponents(s, machine_id, lo, hi), played)
        if from_start and lo > 1:
            before = _totals_before(s, machine_id, lo)
            win, draw, loss = settings.curve_values
            offset = before[0] * win + before[1] * draw + before[2] * loss
            data = replace(data, cumulative=data.cumulative + offset)
        return data


def running_results(db: Database, name: str,
                    points: int = LEARNING_POINTS) -> tuple[list[int], list[tuple[int, int, int]]]:
    """The machine's wins, draws and losses so far at up to ``points`` game numbers spread over its whole
    history (every game when it has played no more), streamed as :func:`learning_series` streams them.
    A machine without games is a :class:`~menace.app.series.PlotError`."""
    from menace.app import series

    with db.reading() as s, gc_paused():
        machine_id, _ = repo.machine_settings(s, name)
        played = repo.games_played(s, machine_id)
        if not played:
            raise series.PlotError(f"{name!r} has played no games yet: nothing to plot")
        sampler = _learning_sampled(s, machine_id, series.LearningSampler(1, played, 1, points),
                                    _kept_results(db, s, machine_id))
        return sampler.curve, [sampler.totals[g] for g in sampler.curve]


RESULTS_AT_ONCE = 4_000_000
"""Games whose results the learning curve counts at a time (a megabyte of them): memory stays bounded."""


def _kept_results(db: Database, s: Connection, machine_id: int) -> hrepo.KeptResults | None:
    """The results of the machine's blocks a server's owner read before (PostgreSQL), else None."""
    if not hrepo.KeptResults.works_on(s):
        return None
    return db.held(("results", machine_id), hrepo.KeptResults)


@dataclass(frozen=True)
class _History:
    """What every learning curve of a machine's whole history reads from the database, read once
    per change of the database for all of them (the learning page's curve and the train page's are asked
    at different numbers of points): the blocks' results here are those a
    :class:`~menace.storage.history_repo.KeptResults` holds already, so keeping them costs no memory."""

    settings: Settings
    played: int
    blocks: tuple[hrepo.ResultBlock, ...]
    opponents: list[tuple[int, str]]


def _whole_history(db: Database, name: str) -> _History | None:
    """The machine's whole history as its learning curves read it, kept until the database changes,
    where the owner keeps its blocks' results (a server's owner on PostgreSQL); else None, and
    each curve streams its blocks."""
    if not db.keep or not hrepo.KeptResults.works_on(db.engine):
        return None
    return db.kept(("whole history", name), lambda: _read_whole_history(db, name))


def _read_whole_history(db: Database, name: str) -> _History | None:
    with db.reading() as s, gc_paused():
        machine_id, settings = repo.machine_settings(s, name)
        kept = db.held(("results", machine_id), hrepo.KeptResults)
        if kept is None or kept.overflowed:  # results it cannot hold would be held here: each curve streams them
            return None
        with closing(kept.stream(s, machine_id)) as blocks:  # all of them: those an undo dropped are forgotten
            read = tuple(blocks)
        # The games played are the blocks' own, read by the same statement: each statement sees the
        # commits made before it, and a count read apart could be from before an undo the blocks are after.
        played = read[-1].first_game + read[-1].n_games - 1 if read else 0
        if kept.overflowed:
            return None
        return _History(settings, played, read, _opponents(s, machine_id, 1, played) if played else [])


def _learning_sampled(s: Connection, machine_id: int, sampler: series.LearningSampler,
                      kept: hrepo.KeptResults | None = None) -> series.LearningSampler:
    """``sampler`` fed the blocks of its range (see :func:`_feed`). With ``kept``, the results of
    blocks read before are not read again."""
    stream = hrepo.stream_results if kept is None else kept.stream
    with closing(stream(s, machine_id, start=sampler.first, stop=sampler.last)) as blocks:
        return _feed(sampler, blocks)


def _feed(sampler: series.LearningSampler, blocks: Iterable[hrepo.ResultBlock]) -> series.LearningSampler:
    """``sampler`` fed ``blocks``, those of its range in order: the results kept with the games (counted
    for a run of blocks at once), a summary's tally (points inside it are interpolated), and the games
    themselves of a kept block stored without results (a damaged database)."""
    lo, hi = sampler.first, sampler.last
    run: list[tuple[int, int, bytes]] = []
    held = 0
    for b in blocks:
        if b.results is not None:
            if run and (run[-1][0] + run[-1][1] != b.first_game or held >= RESULTS_AT_ONCE):
                sampler.feed_results(run)  # a gap (a damaged history) or enough held
                run, held = [], 0
            run.append((b.first_game, b.n_games, b.results))
            held += b.n_games
            continue
        sampler.feed_results(run)
        run, held = [], 0
        cut = b.first_game < lo or b.last_game > hi
        if b.kept and b.data is not None and (cut or sampler.inside(b.first_game, b.last_game)):
            sampler.feed_games(b.first_game, unpack_block(b.data))
        else:
            sampler.feed_tally(b.first_game, b.n_games, b.tally)
    sampler.feed_results(run)
    return sampler


def _totals_before(s: Connection, machine_id: int, game: int) -> tuple[int, int, int]:
    """Wins, draws and losses of games 1 to ``game - 1``: the tallies of the blocks before (summed by
    the database), and the part of a block that ``game`` cuts (counted from its results; a summary's
    share of its tally, as the curve interpolates inside it)."""
    from menace.app import series

    w, d, l_ = hrepo.tallies_before(s, machine_id, game)
    with closing(hrepo.stream_results(s, machine_id, start=game - 1, stop=game - 1)) as blocks:
        cut = next((b for b in blocks if b.last_game >= game), None)
    if cut is None:
        return w, d, l_
    part = series.LearningSampler(cut.first_game, game - 1, 1, 2)
    if cut.results is not None:
        part.feed_results([(cut.first_game, cut.n_games, cut.results)])
    elif cut.kept and cut.data is not None:
        part.feed_games(cut.first_game, unpack_block(cut.data))
    else:
        part.feed_tally(cut.first_game, cut.n_games, cut.tally)
    pw, pd, pl = part.totals[game - 1]
    return w + pw, d + pd, l_ + pl


def box_at(db: Database, name: str, box: int, game_number: int) -> dict[int, int]:
    """Box ``box``'s beads by colour after game ``game_number`` (0: as built), replayed from the nearest
    checkpoint: at most one checkpoint's interval of games, whatever the history's length."""
    with _reading(db, name) as (s, stored), gc_paused():
        if not 1 <= box <= len(stored.boxes):
            raise UnknownBoxError(f"no box {box}: the machine has boxes 1 to {len(stored.boxes)}")
        played = repo.games_played(s, stored.id)
        if not 0 <= game_number <= played:
            raise GameNotFoundError(f"no game {game_number:,}: {name!r} has played {played:,} games")
        counts = replay_to(s, stored, game_number).counts[box - 1]
        return {m: counts[m] for m in sorted(stored.boxes[box - 1].initial)}


def wall(db: Database, name: str) -> series.BoxesData:
    """Every box with its beads now, grouped by MENACE's move."""
    from menace.app import series

    with _reading(db, name) as (s, stored):
        played = repo.games_played(s, stored.id)
    return series.boxes_data(find_game(stored.game), name, stored.boxes, played,
                             odds=stored.settings.pegasus is not None)
