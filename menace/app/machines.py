"""Operations on stored machines: what the CLI calls. Storage below, the pure learner above."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import Connection

from menace.app.database import Database
from menace.core.errors import ConflictError, InvalidInputError, NotFoundError
from menace.core.game import Game, IllegalMoveError, Side, canonical
from menace.core.learner import Box, GameRecord, Learner
from menace.core.match import MenacePlayer
from menace.core.pegasus import MeanOutcome, PegasusRule, PegasusRuleError, Refinement
from menace.core.records import GameBuffer, PackedGames, pack_beads
from menace.core.settings import (
    MAX_BEADS,
    SIDE_WORDS,
    EmptyPolicy,
    Scope,
    Settings,
    SettingsError,
    find_preset,
    parse_reinforcement,
    parse_schedule,
)
from menace.games import DEFAULT_GAME, DEFAULT_PRESETS, PRESET_GAMES, family_of, find_game
from menace.storage import history_repo as hrepo
from menace.storage import repository as repo
from menace.storage.database import DatabaseBusyError
from menace.storage.leases import Heartbeat, HeldLease, Lease, break_lease, lease_on, refuse_if_held
from menace.storage.leases import acquire as acquire_lease

CHECKPOINT_GAMES = 20_000
"""A stored block carries the beads after its last game when the previous checkpoint is this many
games back or more: undo, replay and the bead plot then replay at most this many games plus one
block (a tournament cuts a block every 20,000 games at most), whatever the history's length."""


class BoxNotFoundError(NotFoundError):
    """No box with that number or position."""


@dataclass(frozen=True)
class PendingCorrection:
    """A bead count set by hand during a game, stored with the game."""

    box: int
    move: int
    count: int
    reason: str


@dataclass
class MachineSummary:
    game: Game
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
    frozen: tuple[int, int, int] = (0, 0, 0)
    """Wins, draws and losses among the games played without learning (counted in the totals too)."""


def summarize(stored: repo.StoredMachine, boxes: Sequence[Box]) -> MachineSummary:
    by_move: Counter[int] = Counter()
    beads_by_move: Counter[int] = Counter()
    for b in boxes:
        by_move[b.move_number] += 1
        beads_by_move[b.move_number] += b.total
    return MachineSummary(
        find_game(stored.game), stored.name, stored.settings, stored.preset, stored.created_at, len(boxes),
        dict(sorted(by_move.items())), sum(beads_by_move.values()), dict(sorted(beads_by_move.items())),
        [b.number for b in boxes if b.total == 0],
    )


def settings_for(game: str = DEFAULT_GAME, preset: str | None = None, *, side: str | None = None,
                 schedule: str | None = None, reinforcement: str | None = None, scope: str | None = None,
                 all_squares: bool | None = None, symmetry: bool | None = None,
                 empty_box: str | None = None, rule: str | None = None, a: float | None = None,
                 b: float | None = None, refinement: str | None = None,
                 decay: float | None = None) -> tuple[Game, Settings, str]:
    """What ``menace init`` builds from its options given as text (a web form, say): the game,
    the settings and the label stored with them (``"michie"`` or ``"michie, modified"``).
    :class:`SettingsError` (or an unknown game's error) for anything that makes no sense.

    >>> settings_for(schedule="8,4,2,1")[1].schedule, settings_for(schedule="8,4,2,1")[2]
    ((8, 4, 2, 1), 'michie, modified')
    """
    chosen = find_game(game)
    family = family_of(chosen.name)
    base = find_preset(preset or DEFAULT_PRESETS[family])
    preset = (preset or DEFAULT_PRESETS[family]).lower()
    if PRESET_GAMES[preset] != family:
        raise SettingsError(f"{preset} is a preset for {PRESET_GAMES[preset]}, not {chosen.name}")
    changes: dict[str, object] = {}
    if side is not None:
        if side.lower() not in SIDE_WORDS:
            raise SettingsError(f"side must be X, O or both, not {side!r}")
        changes["side"] = SIDE_WORDS[side.lower()]
    if schedule is not None:
        changes["schedule"] = parse_schedule(schedule)
    if reinforcement is not None:
        changes["win"], changes["draw"], changes["loss"] = parse_reinforcement(reinforcement)
    for key, value, kind in (("scope", scope, Scope), ("empty_policy", empty_box, EmptyPolicy)):
        if value is not None:
            try:
                changes[key] = kind(value)
            except ValueError:
                raise SettingsError(f"{key.replace('_', ' ')} must be one of "
                                    f"{', '.join(str(v.value) for v in kind)}, not {value!r}") from None
    if all_squares is not None:
        changes["all_squares"] = all_squares
    if symmetry is not None:
        changes["symmetry"] = symmetry
    if rule is not None:
        check_rule(rule)
    if rule == "pegasus":
        beads = [what for what, value in (("initial beads", schedule), ("bead reinforcement", reinforcement),
                                          ("scope", scope), ("empty-box policy", empty_box)) if value is not None]
        if beads:
            raise no_beads(beads)
        settings = pegasus_settings(replace(base, **changes), a, b, refinement, decay)  # type: ignore[arg-type]
        return chosen, settings, "pegasus"
    if (a, b, refinement, decay) != (None, None, None, None):
        raise SettingsError(PEGASUS_ONLY)
    settings = replace(base, **changes)  # type: ignore[arg-type]
    return chosen, settings, preset if settings == base else f"{preset}, modified"


LEARNING_RULES = ("michie", "pegasus")
"""How a machine may learn: the matchbox machine's beads, or the Pegasus program's odds."""


def check_rule(rule: str) -> None:
    """:class:`SettingsError` unless ``rule`` is one of :data:`LEARNING_RULES`."""
    if rule not in LEARNING_RULES:
        raise SettingsError(f"the learning rule must be {' or '.join(LEARNING_RULES)}, not {rule!r}")


PEGASUS_ONLY = "A, B, the refinement and the decay D are parameters of the Pegasus rule: choose that rule for them"
"""Why parameters of the Pegasus rule are refused for a machine of beads."""


def no_beads(options: Sequence[str]) -> SettingsError:
    """The refusal of options that set beads (``"initial beads"``, ...) for a machine of the Pegasus rule."""
    return SettingsError(f"the Pegasus rule keeps odds, not beads: it takes no {', '.join(options)}")


def pegasus_settings(base: Settings, a: float | None = None, b: float | None = None, refinement: str | None = None,
                     decay: float | None = None) -> Settings:
    """``base`` (its side, squares and symmetry) learning by the Pegasus program's rule with these
    parameters (None: the paper's trial runs' A = 1.025, B = 2, no refinement, D = 0.5).
    :class:`SettingsError` for parameters that make no sense.

    >>> pegasus_settings(Settings(), a=1.05).describe()["rule"]
    'Pegasus: M_n = 1.05^(2^(8-n))'
    """
    try:
        refined = Refinement(refinement or "none")
    except ValueError:
        raise SettingsError(f"the refinement must be one of {', '.join(r.value for r in Refinement)}, "
                            f"not {refinement!r}") from None
    default = PegasusRule()
    try:
        rule = PegasusRule(default.a if a is None else a, default.b if b is None else b, refined,
                           default.decay if decay is None else decay)
    except PegasusRuleError as exc:  # a parameter of the machine, refused as any other setting is
        raise SettingsError(str(exc)) from None
    # Odds are reinforced for every move made, and a box never empties (a move stays possible).
    return replace(base, pegasus=rule, scope=Scope.EVERY, empty_policy=EmptyPolicy.RESIGN)


def init_machine(db: Database, name: str, settings: Settings, preset: str | None, replace: bool = False,
                 game: Game | None = None, colours: str | None = None) -> MachineSummary:
    """Create the database if need be and build a machine of ``game`` (tic-tac-toe by default) in it."""
    game = game or find_game(DEFAULT_GAME)
    db.creating()
    with db.writing() as s:
        if replace and name in repo.machine_names(s):
            acquire_lease(s, repo.machine_id(s, name), name, "a rebuild of the machine")
        stored = repo.create_machine(s, name, game, settings, preset, replace, colours)
    return summarize(stored, stored.boxes)


@dataclass(frozen=True)
class _Block:
    """Games to be written as one block of the history (see :meth:`OpenMachine.seal`)."""

    first_game: int
    games: int
    records: Sequence[GameRecord] | GameBuffer | PackedGames
    checkpoint: bytes | None
    kept: bool
    checkpointed: int
    """The last game with a checkpoint once this block is written."""


class OpenMachine:
    """A stored machine loaded into a learning :class:`Learner`, written back in batches.

    The engine plays on plain lists in memory; :meth:`save` writes a block of finished games
    and the bead counts that changed since the last save, in one transaction.
    """

    def __init__(self, db: Database, stored: repo.StoredMachine, lease: Lease | None = None) -> None:
        self.db = db
        self.lease = lease
        """Held while this machine may be written; every write proves it (None: read only)."""
        self.stored = stored
        self.game = find_game(stored.game)
        self.learner = Learner(self.game, stored.settings, stored.boxes)
        if self.learner.pegasus is not None:
            self.learner.pegasus.mean = MeanOutcome(self.learner.pegasus.rule, stored.mean)
        self._saved = self.learner.snapshot()
        # The replayer's tables, imported here: a command that only reads a machine needs none.
        from menace.core.replay import bead_layout

        self.layout = bead_layout(stored.boxes)
        with db.reading() as s:
            self.games_played = repo.games_played(s, stored.id)
            self._checkpoint_game = hrepo.last_checkpoint_game(s, stored.id)
        self._sealed: list[_Block] = []

    @property
    def name(self) -> str:
        return self.stored.name

    @contextmanager
    def writing(self) -> Iterator[Connection]:
        """A write transaction that first proves this holder still has the machine's lease."""
        if self.lease is None:
            raise RuntimeError("this machine was opened to read, not to write")
        with self.db.writing() as s:
            self.lease.prove(s)
            yield s

    def start_run(self, kind: str, opponent: str, seed: int | None, frozen: bool = False) -> int:
        """A new run; ``frozen``: the machine plays its games without learning."""
        with self.writing() as s:
            return repo.start_run(s, self.stored.id, kind, opponent, seed, frozen)

    def changed_beads(self) -> list[tuple[int, int, int]]:
        out: list[tuple[int, int, int]] = []
        ids = self.stored.box_ids
        for i, (now, then) in enumerate(zip(self.learner.counts, self._saved)):
            if now != then:
                out.extend((ids[i], m, now[m]) for m in self.stored.boxes[i].initial if now[m] != then[m])
        return out

    def seal(self, records: GameBuffer) -> None:
        """Close ``records`` as a block of its own that keeps its games, with its checkpoint (the beads
        now) where :meth:`save` would give it one, to be written by the next :meth:`save` with the
        blocks sealed before it, in one transaction; ``records`` is emptied (the block is held packed).

        A tournament at full speed ends a block every 20,000 games, 25 times a second; writing them
        a few at a time keeps the blocks as small (undo and the bead plot replay at most one), for
        a commit a second instead of 25 (each makes a server's pages read the machine again)."""
        if records.games:
            self._sealed.append(self._block(records.packed(), kept=True))
            records.clear()

    @property
    def sealed_bytes(self) -> int:
        """The bytes of the blocks sealed and not written yet (the memory they hold)."""
        return sum(b.records.size for b in self._sealed if isinstance(b.records, PackedGames))

    @property
    def sealed_games(self) -> int:
        """The games of the blocks sealed and not written yet."""
        return sum(b.games for b in self._sealed)

    @property
    def sealed_tally(self) -> tuple[int, int, int]:
        """The wins, draws and losses of the blocks sealed and not written yet."""
        packed = [b.records for b in self._sealed if isinstance(b.records, PackedGames)]
        return sum(p.wins for p in packed), sum(p.draws for p in packed), sum(p.losses for p in packed)

    def _block(self, records: Sequence[GameRecord] | GameBuffer | PackedGames, kept: bool) -> _Block:
        """``records`` as the next block, after those sealed: its first game and its checkpoint."""
        last = self._sealed[-1] if self._sealed else None
        first = last.first_game + last.games if last is not None else self.games_played + 1
        checkpointed = last.checkpointed if last is not None else self._checkpoint_game
        n = len(records) if isinstance(records, Sequence) else records.games
        checkpoint = None
        if self.stored.settings.keeps_mean:
            kept = True  # the refined rule's mean outcome is replayed from the first game: keep them all
        elif n and (not kept or first - 1 + n - checkpointed >= CHECKPOINT_GAMES):
            checkpoint = pack_beads(self.learner.counts, self.layout)
        return _Block(first, n, records, checkpoint, kept,
                      first - 1 + n if checkpoint is not None else checkpointed)

    def save(self, run_id: int, records: Sequence[GameRecord] | GameBuffer, end_run: bool = False,
             corrections: Sequence[PendingCorrection] = (), kept: bool = True) -> None:
        """Store ``records`` (games played since the last save, after the blocks sealed since:
        see :meth:`seal`) and the beads they changed.

        ``corrections`` (bead counts set by hand before these games) are stored with them, in
        the same transaction. The block gets a checkpoint (the beads now) when the last one is
        :data:`CHECKPOINT_GAMES` games back or more; ``kept`` false stores only its tally and a
        checkpoint (see the history policy in :mod:`menace.app.tournament`). Nothing is counted
        as stored unless the transaction commits: a save that failed can be made again.
        """
        block = self._block(records, kept)
        blocks = [*self._sealed, block] if block.games or not self._sealed else list(self._sealed)
        updates = self.changed_beads()
        ids = self.stored.box_ids
        for c in corrections:
            # A corrected count may have changed again in the game (or come back to where it was
            # before the correction): write it whatever the diff says, after the correction.
            row = (ids[c.box], c.move, self.learner.counts[c.box][c.move])
            if row not in updates:
                updates.append(row)
        with self.writing() as s:
            for c in corrections:
                repo.add_corrections(s, self.stored.id, block.first_game - 1,
                                     [(self.stored.box_ids[c.box], c.move, c.count)], c.reason)
            for b in blocks:
                repo.save_games(s, self.stored.id, run_id, b.first_game, b.records, (), b.checkpoint, b.kept)
            repo.set_bead_counts(s, updates)
            if self.stored.settings.keeps_mean and self.learner.pegasus is not None:
                repo.save_mean_outcome(s, self.stored.id, self.learner.pegasus.mean.state)
            if end_run:
                repo.end_run(s, run_id)
        self._sealed = []
        self.games_played = blocks[-1].first_game - 1 + blocks[-1].games
        self._checkpoint_game = blocks[-1].checkpointed
        self._saved = self.learner.snapshot()

    def correct(self, box: int, counts: dict[int, int], reason: str) -> list[tuple[int, int, int]]:
        """Set box ``box`` (an index)'s counts by hand, recorded as corrections in the history.

        Returns ``(move, before, after)`` for each colour that changed.
        """
        current = self.learner.counts[box]
        changed = [(m, current[m], c) for m, c in counts.items() if current[m] != c]
        if not changed:
            return []
        with self.writing() as s:
            repo.add_corrections(s, self.stored.id, self.games_played,
                                 [(self.stored.box_ids[box], m, c) for m, _, c in changed], reason)
        for m, _, c in changed:
            current[m] = c
            self._saved[box][m] = c
        self.learner.counts_changed()
        return changed

    def discard_unsaved(self) -> None:
        """Forget bead changes not yet saved (an abandoned game)."""
        for counts, saved in zip(self.learner.counts, self._saved):
            counts[:] = saved
        self.learner.counts_changed()
        if self.learner.pegasus is not None:  # the refined rule's mean outcome as last saved
            with self.db.reading() as s:
                mean = repo.mean_outcome(repo.machine_row(s, self.stored.name))
            self.learner.pegasus.mean = MeanOutcome(self.learner.pegasus.rule, mean)


@contextmanager
def open_machine(db: Database, name: str, holder: str | None = None) -> Iterator[OpenMachine]:
    """A machine loaded for play. With ``holder`` (what is writing, e.g. "a tournament") it
    holds the machine's lease until the block ends, renewed by a heartbeat while it waits, and
    a second writer is refused at once with a message naming the first."""
    if holder is None:
        with db.reading() as s:
            stored = repo.load_machine(s, name)
        yield OpenMachine(db, stored)
        return
    # Loaded in the lease's own transaction: boxes that cannot be played on (damaged rows) are
    # refused with the lease rolled back, and nothing of the file has changed.
    with db.writing() as s:
        lease = acquire_lease(s, repo.machine_id(s, name), name, holder)
        stored = repo.load_machine(s, name)
    beat = Heartbeat(db.engine, lease).start()
    try:
        yield OpenMachine(db, stored, lease)
    finally:
        beat.stop()
        # A database busy past the timeout here costs nothing: the lease expires by itself.
        with suppress(DatabaseBusyError), db.writing() as s:
            lease.release(s)


@dataclass(frozen=True)
class MachineNow:
    """A stored machine with its boxes and beads and its history's totals, read in one transaction:
    what its summary and its wall are made from."""

    stored: repo.StoredMachine
    games: int
    totals: tuple[int, int, int]
    frozen: tuple[int, int, int]


def machine_now(db: Database, name: str) -> MachineNow:
    """The machine as stored now. A server's owner keeps it until the database changes (see
    :meth:`Database.kept`): the summary and the wall, read again after every commit of a training,
    are made from one read of the boxes instead of one each."""
    return db.kept(("machine now", name), lambda: _machine_now(db, name))


def _machine_now(db: Database, name: str) -> MachineNow:
    with db.reading() as s:
        stored = repo.load_machine(s, name)
        return MachineNow(stored, repo.games_played(s, stored.id), repo.totals(s, stored.id),
                          repo.frozen_totals(s, stored.id))


def machine_summary(db: Database, name: str) -> MachineSummary:
    """``menace stats`` (kept by a server's owner until the database changes: see :meth:`Database.kept`)."""
    return db.kept(("summary", name), lambda: _machine_summary(db, name))


def _machine_summary(db: Database, name: str) -> MachineSummary:
    now = machine_now(db, name)
    summary = summarize(now.stored, now.stored.boxes)
    summary.wins, summary.draws, summary.losses = now.totals
    summary.games = now.games
    summary.frozen = now.frozen
    return summary


def machine_header(db: Database, name: str) -> tuple[Game, Settings]:
    """The game machine ``name`` plays and its settings (its row alone: no box is read)."""
    with db.reading() as s:
        row = repo.machine_row(s, name)
        return find_game(row.game), repo.settings_of(row)


def machines_for_game(db: Database, game: str) -> list[str]:
    """The names of the machines stored in ``db`` that play ``game``, oldest first: none where there
    is no database yet (a missing SQLite file, an empty database), and nothing is created."""
    if not db.exists():
        return []
    with db.reading() as s:
        return repo.machine_names_for_game(s, game)


def list_machines(db: Database) -> list[MachineSummary]:
    with db.reading() as s:
        names = repo.machine_names(s)
    return [machine_summary(db, n) for n in names]


@dataclass
class BoxView:
    game: Game
    box: Box
    machine: str
    settings: Settings
    matched_from: tuple[int, ...] | None = None
    symmetry: str | None = None
    colours: str | None = None
    """The machine's own bead colours (None: the standard set)."""
    at: int | None = None
    """The game after which the box's beads are shown (None: now)."""


def find_box(db: Database, name: str, which: str, at: int | None = None) -> BoxView:
    """``menace show``: a box by number (``17``) or by a position typed as nine characters; with
    ``at``, its beads as they stood after game ``at`` (0: as built), replayed from the checkpoint
    before it (:func:`menace.app.history.box_at`)."""
    with db.reading() as s:
        stored = repo.load_machine(s, name)
    view = _find_box(stored, name, which)
    if at is None:
        return view
    from menace.app.history import box_at

    beads = box_at(db, name, view.box.number, at)
    return replace(view, box=replace(view.box, beads=beads), at=at)


def _find_box(stored: repo.StoredMachine, name: str, which: str) -> BoxView:
    boxes = stored.boxes
    if which.strip().isascii() and which.strip().isdigit():  # not "٣": a digit of another script
        n = int(which) if len(which.strip()) <= 12 else 10**12  # never a 5,000-digit conversion
        if not 1 <= n <= len(boxes):
            raise BoxNotFoundError(f"no box {n}: {name!r} has boxes 1 to {len(boxes)}")
        return BoxView(find_game(stored.game), boxes[n - 1], name, stored.settings, colours=stored.colours)
    game = find_game(stored.game)
    state = game.decode(which)
    target, sym = canonical(game, state) if stored.settings.symmetry else (state, game.symmetries[0])
    for box in boxes:
        if box.position == target:
            return BoxView(game, box, name, stored.settings, state, sym.name, stored.colours)
    if game.outcome(state) is not None:
        raise IllegalMoveError(f"{which!r} is a finished game: no box for it")
    raise BoxNotFoundError(
        f"no box for {which!r}: MENACE ({stored.settings.side}) is not to move there or the move is forced"
    )


MENACE_PREFIX = "menace:"


def partner_name(name: str) -> str:
    """``menace:first`` -> ``first``; :class:`UnknownMachineError` for a bare ``menace:``."""
    machine = name[len(MENACE_PREFIX):].strip() if name.lower().startswith(MENACE_PREFIX) else ""
    if not machine:
        raise repo.UnknownMachineError(f"{name!r}: name the machine, as in menace:NAME")
    return machine


def frozen_player(db: Database, name: str) -> MenacePlayer:
    """A stored machine as a player that does not learn (for the arena): ``menace:NAME``."""
    with db.reading() as s:
        stored = repo.load_machine(s, partner_name(name))
    learner = Learner(find_game(stored.game), stored.settings, stored.boxes)
    return MenacePlayer(learner, stored.settings.sides[0], learn=False, name=name)


def empty_first_boxes(learner: Learner, side: Side) -> tuple[list[int], int]:
    """The numbers of the empty boxes for ``side``'s first move, and how many such boxes there are."""
    first = learner.first_boxes(side)
    return [learner.boxes[i].number for i in first if not any(learner.counts[i])], len(first)


class LearningPartner(MenacePlayer):
    """Another stored machine as a tournament opponent: it learns too, and its games and
    beads are stored with it (``menace tournament --vs menace:NAME``)."""

    def __init__(self, machine: OpenMachine, side: Side, run_id: int, name: str) -> None:
        super().__init__(machine.learner, side, learn=True, name=name)
        self.machine = machine
        self.run_id = run_id
        self.buffer = GameBuffer()

    def record_game(self, moves: Sequence[int], winner: int) -> None:
        """Keep a game it played, to be stored with it at the next :meth:`save`."""
        self.buffer.add(int(self.side), moves, winner)

    def seal(self) -> None:
        """End the block of games it played since the last seal or save (see :meth:`OpenMachine.seal`)."""
        self.machine.seal(self.buffer)

    def save(self, end: bool, kept: bool = True) -> None:
        """Store the games it played since the last save (or their summary), and its beads."""
        self.machine.save(self.run_id, self.buffer, end_run=end, kept=kept)
        self.buffer.clear()


@contextmanager
def learning_partner(db: Database, name: str, against: OpenMachine, side: Side | None,
                     opponent_of: str) -> Iterator[LearningPartner]:
    """Open ``menace:NAME`` for a tournament against ``against``, locked while it plays."""
    partner = partner_name(name)
    if partner == against.name:
        raise InvalidInputError("a machine cannot play itself here", hint="build a second machine to play against it")
    sides = (side,) if side else against.learner.settings.sides
    with open_machine(db, partner, holder=f"a tournament against {opponent_of}") as m:
        if m.game.name != against.game.name:
            raise InvalidInputError(f"machine {partner!r} plays {m.game.title}, not {against.game.title}")
        needed = {s.other for s in sides}
        missing = needed - set(m.learner.settings.sides)
        if missing:
            names = "/".join(sorted(x.name for x in missing))
            raise InvalidInputError(
                f"machine {partner!r} has no boxes for {names}",
                hint=f"build it to play {'both sides' if len(needed) > 1 else names}",
            )
        run = m.start_run("tournament", f"menace:{against.name}", None)
        yield LearningPartner(m, next(iter(needed)), run, name)


def machine_colours_text(db: Database, name: str) -> tuple[str | None, Game]:
    """The bead colours kept with the machine, as text (None: the standard set), and its game."""
    with db.reading() as s:
        stored = repo.load_machine(s, name)
        return stored.colours, find_game(stored.game)


def set_machine_colours(db: Database, name: str, colours: str | None) -> None:
    """Keep ``colours`` (as :func:`~menace.core.colours.format_colours` writes them) with the machine."""
    with db.writing() as s:
        repo.set_colours(s, repo.machine_id(s, name), colours)


def machine_lease(db: Database, name: str) -> HeldLease | None:
    """The machine's lease, unless nobody holds it or it has expired."""
    with db.reading() as s:
        return lease_on(s, repo.machine_id(s, name))


def remove_lease(db: Database, name: str, seen: HeldLease) -> None:
    """Remove the lease ``seen`` on the machine (``menace unlock``, once the person agreed).

    Raises :class:`ConflictError` when it has changed hands since it was seen: the new holder keeps it.
    """
    with db.writing() as s:
        machine_id = repo.machine_id(s, name)
        if not break_lease(s, machine_id, seen):
            now_held = lease_on(s, machine_id)
            raise ConflictError(
                f"the lease on {name!r} changed hands since it was shown"
                f"{f' (now held by {now_held})' if now_held else ''}; nothing was removed")


def load_stored(db: Database, name: str) -> repo.StoredMachine:
    """A machine's settings and boxes, read once (for labels and other pictures)."""
    with db.reading() as s:
        return repo.load_machine(s, name)


class NoBeadsError(InvalidInputError):
    """A physical operation (a build kit, an operated game, a recount) on a machine that keeps odds,
    not beads (the Pegasus rule)."""


def refuse_without_beads(settings: Settings, name: str, what: str) -> None:
    """:class:`NoBeadsError` when the machine learns by the Pegasus rule: there are no beads for ``what``."""
    if settings.pegasus is not None:
        raise NoBeadsError(f"machine {name!r} learns by the Pegasus program's rule: it keeps odds, not beads, "
                           f"so there is no {what} for it")


def load_for_kit(db: Database, name: str) -> repo.StoredMachine:
    """:func:`load_stored` for a build kit (labels with bead counts): refused for a machine without beads."""
    stored = load_stored(db, name)
    refuse_without_beads(stored.settings, name, "matchbox kit with beads to count")
    return stored


@dataclass(frozen=True)
class Recount:
    """A box being counted by hand (``menace reconcile``).

    The box is read without taking the machine (so that a count abandoned at a prompt writes
    nothing at all); :meth:`apply` takes the machine's lease and refuses when the box changed
    while it was being counted.
    """

    machine: OpenMachine
    """The machine as it was read (not held)."""
    box: Box
    beads: dict[int, int]
    """What the database says the box holds now, by bead."""
    db: Database
    holder: str

    def apply(self, counts: dict[int, int], reason: str) -> list[tuple[int, int, int]]:
        """Set the counted beads, recorded as a correction; ``(bead, before, after)`` for each change."""
        unknown = [m for m in counts if m not in self.box.initial]
        if unknown:
            game, move = self.machine.game, unknown[0]
            what = game.move_name(move) if 0 <= move < game.move_count else \
                f"bead {_shortened(str(move))} (beads are moves 0 to {game.move_count - 1})"
            raise InvalidInputError(f"box {self.box.number} holds no beads for {what}")
        with open_machine(self.db, self.machine.name, holder=self.holder) as m:
            now = m.learner.counts[self.box.number - 1]
            if {mv: now[mv] for mv in self.box.initial} != self.beads:
                raise ConflictError(f"box {self.box.number} of {self.machine.name!r} changed while it was being "
                                    f"counted (a game was played or another recount stored); nothing was changed",
                                    hint="count it again")
            return m.correct(self.box.number - 1, {**self.beads, **counts}, reason)


def _shortened(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[:width] + "..."


@contextmanager
def recount(db: Database, name: str, box_number: int, holder: str) -> Iterator[Recount]:
    """Read box ``box_number`` of a machine to be recounted; ``holder`` takes the machine to write it."""
    with open_machine(db, name) as m:
        refuse_without_beads(m.stored.settings, name, "bead to recount")
        with m.db.reading() as s:  # a busy machine is refused before anyone counts
            refuse_if_held(s, m.stored.id, name)
        boxes = m.learner.boxes
        if not 1 <= box_number <= len(boxes):
            raise BoxNotFoundError(f"no box {box_number}: {name!r} has boxes 1 to {len(boxes)}")
        box = boxes[box_number - 1]
        counts = m.learner.counts[box_number - 1]
        yield Recount(m, box, {mv: counts[mv] for mv in box.initial}, db, holder)


def reconcile_box(db: Database, name: str, box_number: int, counts: dict[int, int], holder: str,
                  ) -> list[tuple[int, int, int]]:
    """Set some of a box's bead counts (``{bead: count}``) from a count of the real beads, in one go
    (``menace reconcile`` without the questions), recorded as a correction under the machine's
    lease; ``(bead, before, after)`` for each bead changed."""
    if any(not 0 <= n <= MAX_BEADS for n in counts.values()):
        raise InvalidInputError(f"a bead count is a whole number from 0 to {MAX_BEADS:,}")
    with recount(db, name, box_number, holder=holder) as r:
        return r.apply(counts, f"recount of box {box_number} (menace serve)")
