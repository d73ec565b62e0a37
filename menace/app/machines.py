"""Operations on stored machines: what the CLI calls. Storage below, the pure learner above."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime

from sqlalchemy import Engine as DbEngine

from menace.core.game import Game, IllegalMoveError, Side, canonical
from menace.core.learner import (
    Box,
    EmptyPolicy,
    Engine,
    GameRecord,
    Settings,
    SettingsError,
    find_preset,
    parse_reinforcement,
    parse_schedule,
)
from menace.core.match import MenacePlayer
from menace.core.records import GameBuffer
from menace.games.tictactoe import TICTACTOE
from menace.storage import repository as repo
from menace.storage.database import open_database, session_scope

GAMES: dict[str, Game] = {TICTACTOE.name: TICTACTOE}


class BoxNotFoundError(LookupError):
    """No box with that number or position."""


@dataclass(frozen=True)
class PendingCorrection:
    """A bead count set by hand during a game, stored with the game."""

    box: int
    move: int
    count: int
    reason: str


def game_named(name: str) -> Game:
    return GAMES[name]


@dataclass
class MachineSummary:
    name: str
    settings: Settings
    preset: str | None
    created_at: datetime
    boxes: int
    boxes_by_move: dict[int, int]
    beads: int
    beads_by_move: dict[int, int]
    empty_boxes: list[int]
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0


def summarize(stored: repo.StoredMachine, boxes: Sequence[Box]) -> MachineSummary:
    by_move: Counter[int] = Counter()
    beads_by_move: Counter[int] = Counter()
    for b in boxes:
        by_move[b.move_number] += 1
        beads_by_move[b.move_number] += b.total
    return MachineSummary(
        stored.name, stored.settings, stored.preset, stored.created_at, len(boxes),
        dict(sorted(by_move.items())), sum(beads_by_move.values()), dict(sorted(beads_by_move.items())),
        [b.number for b in boxes if b.total == 0],
    )


def settings_for(preset: str = "michie", *, side: str | None = None, schedule: str | None = None,
                 reinforcement: str | None = None, all_squares: bool | None = None, symmetry: bool | None = None,
                 empty_box: str | None = None) -> tuple[Settings, str]:
    """The settings ``menace init`` builds from a preset and its options given as text, and the
    label stored with them (``"michie"``, or ``"michie, modified"``). :class:`SettingsError`
    for anything that makes no sense.

    >>> settings_for("michie", schedule="8,4,2,1")[0].schedule, settings_for("michie", schedule="8,4,2,1")[1]
    ((8, 4, 2, 1), 'michie, modified')
    """
    base = find_preset(preset)
    changes: dict[str, object] = {}
    if side is not None:
        changes["side"] = side
    if schedule is not None:
        changes["schedule"] = parse_schedule(schedule)
    if reinforcement is not None:
        changes["win"], changes["draw"], changes["loss"] = parse_reinforcement(reinforcement)
    if all_squares is not None:
        changes["all_squares"] = all_squares
    if symmetry is not None:
        changes["symmetry"] = symmetry
    if empty_box is not None:
        try:
            changes["empty_policy"] = EmptyPolicy(empty_box)
        except ValueError:
            raise SettingsError(f"empty-box policy must be one of {', '.join(p.value for p in EmptyPolicy)}, "
                                f"not {empty_box!r}") from None
    settings = replace(base, **changes)  # type: ignore[arg-type]
    return settings, preset if not changes else f"{preset}, modified"


def init_machine(url: str, name: str, settings: Settings, preset: str | None, replace: bool = False) -> MachineSummary:
    """``menace init``: create the database if need be and build a machine in it."""
    db = open_database(url, create=True)
    try:
        with session_scope(db, write=True) as s:
            if replace and name in repo.machine_names(s):
                repo.acquire_lock(s, repo.machine_id(s, name), name, "menace init --replace")
            stored = repo.create_machine(s, name, TICTACTOE, settings, preset, replace)
        return summarize(stored, stored.boxes)
    finally:
        db.dispose()


class OpenMachine:
    """A stored machine loaded into a learning :class:`Engine`, written back in batches.

    The engine plays on plain lists in memory; :meth:`save` writes a block of finished games
    and the bead counts that changed since the last save, in one transaction.
    """

    def __init__(self, db: DbEngine, stored: repo.StoredMachine, locked: bool = False) -> None:
        self.db = db
        self.locked = locked
        self.stored = stored
        self.game = game_named(stored.game)
        self.engine = Engine(self.game, stored.settings, stored.boxes)
        self._saved = self.engine.snapshot()
        with session_scope(db) as s:
            self.games_played = repo.games_played(s, stored.id)

    @property
    def name(self) -> str:
        return self.stored.name

    def start_run(self, kind: str, opponent: str, seed: int | None) -> int:
        with session_scope(self.db, write=True) as s:
            return repo.start_run(s, self.stored.id, kind, opponent, seed)

    def end_run(self, run_id: int) -> None:
        with session_scope(self.db, write=True) as s:
            repo.end_run(s, run_id)

    def changed_beads(self) -> list[tuple[int, int, int]]:
        out: list[tuple[int, int, int]] = []
        ids = self.stored.box_ids
        for i, (now, then) in enumerate(zip(self.engine.counts, self._saved)):
            if now != then:
                out.extend((ids[i], m, now[m]) for m in self.stored.boxes[i].initial if now[m] != then[m])
        return out

    def save(self, run_id: int, records: Sequence[GameRecord] | GameBuffer, end_run: bool = False,
             corrections: Sequence[PendingCorrection] = ()) -> None:
        """Store ``records`` (games played since the last save) and the beads they changed.

        ``corrections`` (bead counts set by hand before these games) are stored with them, in
        the same transaction.
        """
        updates = self.changed_beads()
        ids = self.stored.box_ids
        for c in corrections:
            # A corrected count may have changed again in the game (or come back to where it was
            # before the correction): write it whatever the diff says, after the correction.
            row = (ids[c.box], c.move, self.engine.counts[c.box][c.move])
            if row not in updates:
                updates.append(row)
        with session_scope(self.db, write=True) as s:
            for c in corrections:
                repo.add_corrections(s, self.stored.id, self.games_played,
                                     [(self.stored.box_ids[c.box], c.move, c.count)], c.reason)
            repo.save_games(s, self.stored.id, run_id, self.games_played + 1, records, updates)
            if self.locked:
                repo.heartbeat(s, self.stored.id)
            if end_run:
                repo.end_run(s, run_id)
        self.games_played += records.games if isinstance(records, GameBuffer) else len(records)
        self._saved = self.engine.snapshot()

    def correct(self, box: int, counts: dict[int, int], reason: str) -> list[tuple[int, int, int]]:
        """Set box ``box`` (an index)'s counts by hand, recorded as corrections in the history.

        Returns ``(move, before, after)`` for each colour that changed.
        """
        current = self.engine.counts[box]
        changed = [(m, current[m], c) for m, c in counts.items() if current[m] != c]
        if not changed:
            return []
        with session_scope(self.db, write=True) as s:
            repo.add_corrections(s, self.stored.id, self.games_played,
                                 [(self.stored.box_ids[box], m, c) for m, _, c in changed], reason)
        for m, _, c in changed:
            current[m] = c
            self._saved[box][m] = c
        return changed

    def discard_unsaved(self) -> None:
        """Forget bead changes not yet saved (an abandoned game)."""
        for counts, saved in zip(self.engine.counts, self._saved):
            counts[:] = saved


@contextmanager
def open_machine(url: str, name: str, holder: str | None = None) -> Iterator[OpenMachine]:
    """A machine loaded for play. With ``holder`` (what is writing, e.g. "a tournament") the
    machine is locked for this process until the block ends, and a second writer is refused
    at once with a message naming the first."""
    db = open_database(url)
    try:
        if holder is not None:
            with session_scope(db, write=True) as s:
                row_id = repo.machine_id(s, name)
                repo.acquire_lock(s, row_id, name, holder)
        try:
            with session_scope(db) as s:
                stored = repo.load_machine(s, name, TICTACTOE)
            yield OpenMachine(db, stored, locked=holder is not None)
        finally:
            if holder is not None:
                with session_scope(db, write=True) as s:
                    repo.release_lock(s, row_id)
    finally:
        db.dispose()


def machine_summary(url: str, name: str) -> MachineSummary:
    """``menace stats``."""
    db = open_database(url)
    try:
        with session_scope(db) as s:
            stored = repo.load_machine(s, name, TICTACTOE)
            summary = summarize(stored, stored.boxes)
            summary.wins, summary.draws, summary.losses = repo.totals(s, stored.id)
            summary.games = repo.games_played(s, stored.id)
        return summary
    finally:
        db.dispose()


def list_machines(url: str) -> list[MachineSummary]:
    db = open_database(url)
    try:
        with session_scope(db) as s:
            names = repo.machine_names(s)
    finally:
        db.dispose()
    return [machine_summary(url, n) for n in names]


@dataclass
class BoxView:
    box: Box
    machine: str
    settings: Settings
    matched_from: tuple[int, ...] | None = None
    symmetry: str | None = None
    raw_beads: dict[int, int] = field(default_factory=dict)


def find_box(url: str, name: str, which: str) -> BoxView:
    """``menace show``: a box by number (``17``) or by a position typed as nine characters."""
    db = open_database(url)
    try:
        with session_scope(db) as s:
            stored = repo.load_machine(s, name, TICTACTOE)
    finally:
        db.dispose()
    boxes = stored.boxes
    if which.strip().isdigit():
        n = int(which)
        if not 1 <= n <= len(boxes):
            raise BoxNotFoundError(f"no box {n}: {name!r} has boxes 1 to {len(boxes)}")
        return BoxView(boxes[n - 1], name, stored.settings)
    game = TICTACTOE
    state = game.decode(which)
    target, sym = canonical(game, state) if stored.settings.symmetry else (state, game.symmetries[0])
    for box in boxes:
        if box.position == target:
            return BoxView(box, name, stored.settings, state, sym.name)
    if game.outcome(state) is not None:
        raise IllegalMoveError(f"{which!r} is a finished game: no box for it")
    raise BoxNotFoundError(
        f"no box for {which!r}: MENACE ({stored.settings.side}) is not to move there or the move is forced"
    )


def box_sides(stored: repo.StoredMachine) -> set[Side]:
    return {b.side for b in stored.boxes}


MENACE_PREFIX = "menace:"


def partner_name(name: str) -> str:
    """``menace:first`` -> ``first``; :class:`UnknownMachineError` for a bare ``menace:``."""
    machine = name[len(MENACE_PREFIX):].strip() if name.lower().startswith(MENACE_PREFIX) else ""
    if not machine:
        raise repo.UnknownMachineError(f"{name!r}: name the machine, as in menace:NAME")
    return machine


def frozen_player(url: str, name: str) -> MenacePlayer:
    """A stored machine as a player that does not learn (for the arena): ``menace:NAME``."""
    db = open_database(url)
    try:
        with session_scope(db) as s:
            stored = repo.load_machine(s, partner_name(name), TICTACTOE)
    finally:
        db.dispose()
    engine = Engine(game_named(stored.game), stored.settings, stored.boxes)
    return MenacePlayer(engine, stored.settings.sides[0], learn=False, name=name)


class LearningPartner(MenacePlayer):
    """Another stored machine as a tournament opponent: it learns too, and its games and
    beads are stored with it (``menace tournament --vs menace:NAME``)."""

    def __init__(self, machine: OpenMachine, side: Side, run_id: int, name: str) -> None:
        super().__init__(machine.engine, side, learn=True, name=name)
        self.machine = machine
        self.run_id = run_id
        self.buffer = GameBuffer()

    def note_game(self, moves: Sequence[int], winner: int) -> None:
        self.buffer.add(int(self.side), moves, winner)

    def save_partner(self, end: bool) -> None:
        self.machine.save(self.run_id, self.buffer, end_run=end)
        self.buffer.clear()


@contextmanager
def learning_partner(url: str, name: str, against: OpenMachine, side: Side | None,
                     opponent_of: str) -> Iterator[LearningPartner]:
    """Open ``menace:NAME`` for a tournament against ``against``, locked while it plays."""
    partner = partner_name(name)
    if partner == against.name:
        raise repo.UnknownMachineError("a machine cannot play itself here; build a second one (menace -m other init)")
    sides = (side,) if side else against.engine.settings.sides
    with open_machine(url, partner, holder=f"a tournament against {opponent_of} (menace tournament)") as m:
        needed = {s.other for s in sides}
        missing = needed - set(m.engine.settings.sides)
        if missing:
            names = "/".join(sorted(x.name for x in missing))
            raise repo.UnknownMachineError(
                f"machine {partner!r} has no boxes for {names}; build one with: menace -m {partner} init --side "
                f"{'both' if len(needed) > 1 else names}"
            )
        run = m.start_run("tournament", f"menace:{against.name}", None)
        yield LearningPartner(m, next(iter(needed)), run, name)
