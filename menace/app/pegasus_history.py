"""The history of a machine that learns by the Pegasus rule: its odds replayed from its games.

A Pegasus machine keeps every game (no checkpoints of odds), so its odds after any game are its even
starting odds and the games before, learnt from in order (a game played without learning is skipped);
the rule is integer arithmetic on exact units (see :mod:`menace.core.pegasus`), so the replay gives
back the stored odds to the last unit: that is what ``check`` verifies and what ``undo`` writes.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass

from sqlalchemy import Connection

from menace.core.errors import DamagedError
from menace.core.game import IllegalMoveError, Move
from menace.core.learner import GameRecord
from menace.core.pegasus import Memory, Odds, PegasusLearner, chances
from menace.core.records import CorruptHistoryError, decode_block
from menace.games import find_game
from menace.storage import history_repo as hrepo
from menace.storage import repository as repo


class PegasusHistoryError(DamagedError):
    """A Pegasus machine's history that cannot be replayed (a gap, a summary, an illegal move)."""


def fresh(stored: repo.StoredMachine) -> PegasusLearner:
    """The machine as it was built: even odds in every box, an empty memory."""
    assert stored.rule is not None
    return PegasusLearner(find_game(stored.game), stored.settings, stored.rule, stored.boxes)


def replay_records(s: Connection, stored: repo.StoredMachine, stop: int | None = None,
                   ) -> Iterator[tuple[int, bool, GameRecord]]:
    """(game number, frozen, record) of the stored games up to ``stop``, in order; a gap or a summary
    (which a Pegasus machine never writes) raises :class:`PegasusHistoryError`."""
    expect = 1
    with closing(hrepo.stream_blocks(s, stored.id, stop=stop, with_beads=False)) as blocks:
        for b in blocks:
            if b.first_game != expect:
                raise PegasusHistoryError(f"games {expect:,} to {b.first_game - 1:,} are missing from the history")
            if not b.kept:
                raise PegasusHistoryError(f"games {b.first_game:,} to {b.last_game:,} are kept only as a summary, "
                                          f"which a Pegasus machine's odds cannot be replayed from")
            try:
                records = decode_block(b.data)
            except CorruptHistoryError as exc:
                raise PegasusHistoryError(f"stored games are damaged: {exc}") from None
            if len(records) != b.n_games:
                raise PegasusHistoryError(f"the block of games {b.first_game:,} to {b.last_game:,} holds "
                                          f"{len(records)} games")
            for i, record in enumerate(records):
                number = b.first_game + i
                if stop is not None and number > stop:
                    return
                yield number, b.frozen, record
            expect = b.last_game + 1


def replay_to(s: Connection, stored: repo.StoredMachine, game_number: int | None = None) -> tuple[PegasusLearner, int]:
    """The machine's learner after game ``game_number`` (None: the last), and how many games it replayed."""
    learner = fresh(stored)
    n = 0
    for number, frozen, record in replay_records(s, stored, game_number):
        if not frozen:
            try:
                learner.learn(record)
            except (IllegalMoveError, IndexError, ValueError) as exc:
                raise PegasusHistoryError(f"game {number:,} cannot be replayed: {exc}") from None
        n = number
    return learner, n


def odds_faults(name: str, stored: repo.StoredMachine, learner: PegasusLearner) -> list[str]:
    """Where the stored odds and memory differ from what the history gives (nothing: they agree exactly)."""
    faults: list[str] = []
    game = find_game(stored.game)
    assert stored.odds is not None and stored.memory is not None
    for b, (have, box) in enumerate(zip(stored.odds, stored.boxes)):
        want = learner.odds(b)
        for m in box.initial:
            if have.get(m) != want.get(m):
                got = have.get(m)
                faults.append(f"{name}: box {box.number} odds differ from its history ({game.move_name(m)}: stored "
                              f"{got.text() if got else 'none'}, history gives {want[m].text()})")
    if stored.memory != learner.memory:
        faults.append(f"{name}: the Pegasus rule's memory differs from its history (stored {stored.memory.text()}, "
                      f"history gives {learner.memory.text()})")
    for box in stored.boxes:
        if any(c != 1 for c in box.beads.values()):
            faults.append(f"{name}: box {box.number} holds bead counts other than one, which a Pegasus machine "
                          f"never changes")
    return faults


@dataclass(frozen=True)
class OddsChange:
    """A move's chance before and after (an undo, a replayed game)."""

    box_number: int
    move: Move
    before: float
    after: float


def changes(stored: repo.StoredMachine, learner: PegasusLearner) -> tuple[list[tuple[int, int, Odds]],
                                                                          list[OddsChange]]:
    """The odds to write to make ``stored`` equal ``learner`` (box index, move, odds), and the chances that
    change with them."""
    assert stored.odds is not None and stored.rule is not None
    log_a = math.log(stored.rule.a)
    writes: list[tuple[int, int, Odds]] = []
    shown: list[OddsChange] = []
    for b, (have, box) in enumerate(zip(stored.odds, stored.boxes)):
        want = learner.odds(b)
        if want == have:
            continue
        moves = sorted(box.initial)
        before = chances([have[m] for m in moves], log_a)
        after = chances([want[m] for m in moves], log_a)
        for i, m in enumerate(moves):
            if have[m] != want[m]:
                writes.append((b, m, want[m]))
            if abs(before[i] - after[i]) > 1e-12:
                shown.append(OddsChange(box.number, m, before[i], after[i]))
    return writes, shown


def memory_of(learner: PegasusLearner) -> Memory:
    return Memory(learner.memory.mu, learner.memory.plays, learner.memory.total)


@dataclass(frozen=True)
class PegasusPly:
    """One move of a replayed game; for the machine's moves from a box, the box and its chances."""

    number: int
    by_menace: bool
    move: Move
    box_number: int | None = None
    before: dict[Move, float] | None = None
    """Each real move's chance in the box before the play."""
    after: dict[Move, float] | None = None
    """... and after the play's reinforcement."""


@dataclass(frozen=True)
class PegasusGame:
    """A stored game of a Pegasus machine, move by move, with the chances it met and left."""

    number: int
    record: GameRecord
    plies: list[PegasusPly]
    frozen: bool


def game_detail(s: Connection, stored: repo.StoredMachine, number: int) -> PegasusGame:
    """Game ``number`` replayed on the odds it met (the games before it learnt from first)."""
    learner, _ = replay_to(s, stored, number - 1)
    found = [(f, r) for n, f, r in replay_records(s, stored, number) if n == number]
    if not found:
        from menace.core.replay import GameNotFoundError

        raise GameNotFoundError(f"no game {number:,}")
    frozen, record = found[0]
    drawn = learner.drawn_in(record)
    game = find_game(stored.game)
    real_of: dict[int, tuple[int, dict[Move, float], tuple[int, ...]]] = {}
    state = game.initial()
    for ply, move in enumerate(record.moves):
        for b, _, p in drawn:
            if p == ply:
                box = learner.boxes[b]
                ent = learner.fast[record.menace_side][learner.index[state]]
                real = ent[1] if ent is not None and len(ent) == 3 else ()
                real_of[ply] = (box.number, {real[m]: c for m, c in learner.chances(b).items()}, real)
        state = game.play(state, move)
    if not frozen:
        learner.reinforce(drawn, len(record.moves), 0 if record.winner == 3 else
                          1 if record.winner == int(record.menace_side) else -1)
    plies = []
    for ply, move in enumerate(record.moves):
        if ply in real_of:
            number_, before, real = real_of[ply]
            b = number_ - 1
            after = {real[m]: c for m, c in learner.chances(b).items()}
            plies.append(PegasusPly(ply + 1, True, move, number_, before, after))
        else:
            mine = (ply % 2 == 0) == (record.menace_side.name == "X")
            plies.append(PegasusPly(ply + 1, mine, move))
    return PegasusGame(number, record, plies, frozen)
