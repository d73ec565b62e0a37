"""``menace check``: is a database exactly what its history says it should be?

The history is replayed from the machine's initial beads straight from the stored bytes, and every
checkpoint met on the way must equal the replayed beads. What a check has verified is remembered:
the running checksum of the history up to the last checkpoint (:func:`menace.core.records.chain_digest`)
is stored with that block, and the next check only re-reads the bytes before it (a checksum, no
replay), trusts that checkpoint if the checksum still comes out the same, and replays the games after
it. ``full`` replays everything. A summarized block (games kept only as a tally) is crossed by its
checkpoint: the beads after it are what the history says they are.
"""

from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from menace.app.history import gc_paused
from menace.app.machines import CHECKPOINT_GAMES
from menace.core.game import IllegalMoveError, canonical
from menace.core.learner import build_boxes
from menace.core.records import CorruptHistoryError, chain_digest, pack_beads, unpack_beads, unpack_block
from menace.core.replay import Replayer, ReplayError, compare
from menace.games import find_game
from menace.storage import history_repo as hrepo
from menace.storage import repository as repo
from menace.storage.database import (
    SchemaState,
    StorageError,
    check_location,
    describe,
    head_revision,
    make_engine,
    schema_state,
    session_scope,
)
from menace.storage.models import GameBlockRow

CHANGED = "has changed since it was verified"


@dataclass
class CheckReport:
    database: str
    machines: list[str] = field(default_factory=list)
    games: int = 0
    """Games in the histories checked."""
    replayed: int = 0
    """Games replayed by this check (the rest trusted from a verified checkpoint or summarized)."""
    faults: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.faults


@dataclass
class _Outcome:
    """What checking one machine found worth writing back: checkpoints and the verified checksum."""

    extras: list[tuple[int, int, bytes | None, str | None]] = field(default_factory=list)
    """``(block id, its n_games, checkpoint or None, digest or None)``."""


def check_database(url: str, machine: str | None = None, full: bool = False) -> CheckReport:
    """Check the schema, every box and bead, and the history against the stored beads.

    ``full``: replay every game, trusting nothing verified before.
    """
    check_location(url, create=False)
    db = make_engine(url)
    report = CheckReport(describe(db))
    try:
        state, rev = schema_state(db)
        if state is not SchemaState.CURRENT:
            report.faults.append(f"schema is {state.value} (revision {rev}, this menace expects {head_revision()})")
            return report
        found: list[_Outcome] = []
        with session_scope(db) as s:
            names = [machine] if machine else repo.machine_names(s)
            for name in names:
                report.machines.append(name)
                found.append(_check_machine(s, name, report, full))
        extras = [e for f in found for e in f.extras]
        if extras:
            try:
                with session_scope(db, write=True) as s:
                    hrepo.set_block_extras(s, extras)
            except StorageError:
                pass  # a read-only or busy database: checked all the same, remembered next time
    finally:
        db.dispose()
    return report


def _check_machine(s: Session, name: str, report: CheckReport, full: bool) -> _Outcome:
    out = _Outcome()
    faults = report.faults
    try:
        stored = repo.load_machine(s, name)
    except (IllegalMoveError, ValueError) as exc:
        faults.append(f"{name}: a box cannot be read: {exc}")
        return out
    game = find_game(stored.game)
    settings = stored.settings
    expected = build_boxes(game, settings)
    if len(expected) != len(stored.boxes):
        faults.append(f"{name}: {len(stored.boxes)} boxes, but its settings give {len(expected)}")
    seen: set[tuple[int, ...]] = set()
    for i, box in enumerate(stored.boxes):
        where = f"{name}: box {box.number}"
        if box.number != i + 1:
            faults.append(f"{where}: numbered out of order (expected {i + 1})")
        if box.position in seen:
            faults.append(f"{where}: position {game.encode(box.position)} appears twice")
        seen.add(box.position)
        if game.outcome(box.position) is not None or game.to_move(box.position) is not box.side:
            faults.append(f"{where}: {game.encode(box.position)} is not a position where {box.side.name} moves")
        if settings.symmetry and canonical(game, box.position)[0] != box.position:
            faults.append(f"{where}: position {game.encode(box.position)} is not in canonical form")
        for move, count in box.beads.items():
            if move not in game.legal_moves(box.position):
                move_name = game.move_name(move) if 0 <= move < game.move_count else str(move)
                faults.append(f"{where}: beads for {move_name}, which is not a legal move there")
            if count < 0:
                faults.append(f"{where}: {count} beads for {game.move_name(move)} (negative)")
        if i < len(expected):
            exp = expected[i]
            if exp.position != box.position or exp.initial != box.initial:
                faults.append(f"{where}: position or initial beads differ from what the settings build")
    fixes = repo.corrections(s, stored.id)
    trusted_at = None if full else s.scalar(
        select(func.max(GameBlockRow.first_game)).where(GameBlockRow.machine_id == stored.id,
                                                        GameBlockRow.digest.is_not(None)))
    with gc_paused():
        replayer = _replay(s, name, stored.id, Replayer(game, settings, expected, fixes), fixes, trusted_at, report,
                           out)
    if replayer is None and trusted_at is not None and faults[-1].endswith(CHANGED):
        # The history changed since a check verified it: replay it all to name what differs.
        out.extras.clear()
        replayer = _replay(s, name, stored.id, Replayer(game, settings, expected, fixes), fixes, None, report, out)
    if replayer is None:
        return out
    report.games += replayer.games
    for diff in compare(stored.boxes[: len(expected)], replayer.counts):
        faults.append(f"{name}: box {diff.box_number} beads differ from its history "
                      f"({game.move_name(diff.bead)}: stored {diff.stored}, history gives {diff.replayed})")
    if any(f.startswith(f"{name}:") for f in faults):
        out.extras = [(i, n, b, None) for i, n, b, _ in out.extras]  # nothing verified when anything is wrong
    return out


def _corrections_text(fixes: list[repo.Correction], lo: int, hi: int) -> str:
    """The corrections taking effect from after game ``lo`` to before game ``hi + 1``, as text."""
    return "".join(f";{c.after_game},{c.box_number},{c.move},{c.count}" for c in fixes if lo <= c.after_game < hi)


def _replay(s: Session, name: str, machine_id: int, r: Replayer, fixes: list[repo.Correction],
            trusted_at: int | None, report: CheckReport, out: _Outcome) -> Replayer | None:
    """Replay the machine's history on ``r`` (trusting the checkpoint verified at the block starting at
    game ``trusted_at``, if its checksum still holds); None when the history cannot be replayed."""
    faults = report.faults
    layout = r.layout()
    width = r.learner.game.move_count
    digest = ""
    last_checkpoint = 0
    verified: list[tuple[int, int, bytes | None, str | None]] = []  # checkpointed blocks' new checksums
    try:
        with closing(hrepo.stream_blocks(s, machine_id)) as blocks:
            for b in blocks:
                trusting = trusted_at is not None and b.first_game <= trusted_at
                if b.first_game != r.games + 1:
                    faults.append(f"{name}: games {r.games + 1:,} to {b.first_game - 1:,} are missing from the "
                                  f"history")
                    return None
                beads = b.beads
                if trusting:
                    r.games = b.last_game  # only the checksum is followed up to the verified checkpoint
                elif not b.kept:
                    if beads is None:
                        faults.append(f"{name}: games {b.first_game:,} to {b.last_game:,} are summarized "
                                      f"without the beads after them")
                        return None
                    counts = unpack_beads(beads, layout, width)
                    if any(c < 0 for row in counts for c in row):
                        faults.append(f"{name}: the checkpoint after game {b.last_game:,} holds negative beads")
                    r.resume(b.last_game, counts)
                else:
                    raw = unpack_block(b.data)
                    end = r.apply_packed(raw, 0, b.n_games, settle_end=False)
                    if r.games != b.last_game or end != len(raw):
                        faults.append(f"{name}: the block of games {b.first_game:,} to {b.last_game:,} holds "
                                      f"{'fewer' if r.games != b.last_game else 'more'} games than it says")
                        return None
                    report.replayed += b.n_games
                    if beads is not None:
                        if unpack_beads(beads, layout, width) != r.counts:
                            faults.append(f"{name}: the checkpoint after game {b.last_game:,} differs from the "
                                          f"beads its history gives")
                    elif b.last_game - last_checkpoint >= CHECKPOINT_GAMES:
                        beads = pack_beads(r.counts, layout)  # an older database: checkpoints from now on
                        out.extras.append((b.id, b.n_games, beads, None))
                    r.settle()
                digest = chain_digest(digest + _corrections_text(fixes, b.first_game - 1, b.last_game),
                                      b.first_game, b.n_games, b.tally, b.data, beads)
                if beads is not None:
                    last_checkpoint = b.last_game
                    if b.digest != digest:
                        verified.append((b.id, b.n_games, None, digest))
                if trusted_at is not None and b.first_game == trusted_at:
                    if b.digest != digest or beads is None:
                        faults.append(f"{name}: the history up to game {b.last_game:,} {CHANGED}")
                        return None
                    r.resume(b.last_game, unpack_beads(beads, layout, width))
                    trusted_at = None
    except CorruptHistoryError as exc:
        faults.append(f"{name}: stored games are damaged: {exc}")
        return None
    except ReplayError as exc:
        faults.append(f"{name}: a stored game cannot be replayed: {exc}")
        return None
    out.extras.extend(verified)
    return r
