"""``menace check``: is a database exactly what its history says it should be?"""

from __future__ import annotations

from dataclasses import dataclass, field

from menace.core.game import IllegalMoveError, canonical
from menace.core.learner import build_boxes
from menace.core.records import CorruptHistoryError
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


@dataclass
class CheckReport:
    database: str
    machines: list[str] = field(default_factory=list)
    games: int = 0
    faults: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.faults


def check_database(url: str, machine: str | None = None) -> CheckReport:
    """Check the schema, every box and bead, and replay every game against the stored beads."""
    check_location(url, create=False)
    db = make_engine(url)
    report = CheckReport(describe(db))
    try:
        state, rev = schema_state(db)
        if state is not SchemaState.CURRENT:
            report.faults.append(f"schema is {state.value} (revision {rev}, this menace expects {head_revision()})")
            return report
        with session_scope(db) as s:
            names = [machine] if machine else repo.machine_names(s)
            for name in names:
                report.machines.append(name)
                _check_machine(s, name, report)
    except StorageError:
        raise
    finally:
        db.dispose()
    return report


def _check_machine(s: object, name: str, report: CheckReport) -> None:
    from sqlalchemy.orm import Session

    assert isinstance(s, Session)
    faults = report.faults
    try:
        stored = repo.load_machine(s, name)
    except (IllegalMoveError, ValueError) as exc:
        faults.append(f"{name}: a box cannot be read: {exc}")
        return
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
                name = game.move_name(move) if 0 <= move < game.move_count else str(move)
                faults.append(f"{where}: beads for {name}, which is not a legal move there")
            if count < 0:
                faults.append(f"{where}: {count} beads for {game.move_name(move)} (negative)")
        if i < len(expected):
            exp = expected[i]
            if exp.position != box.position or exp.initial != box.initial:
                faults.append(f"{where}: position or initial beads differ from what the settings build")
    # Replay: initial beads + every stored game + every correction, in order, must give the beads.
    replayer = Replayer(game, settings, expected, repo.corrections(s, stored.id))
    try:
        for g in hrepo.stream_games(s, stored.id):
            if g.number != replayer.games + 1:
                faults.append(f"{name}: games {replayer.games + 1} to {g.number - 1} are missing from the history")
                return
            try:
                replayer.apply(g.record)
            except ReplayError as exc:
                faults.append(f"{name}: a stored game cannot be replayed: {exc}")
                return
    except CorruptHistoryError as exc:
        faults.append(f"{name}: stored games are damaged: {exc}")
        return
    report.games += replayer.games
    for diff in compare(stored.boxes[: len(expected)], replayer.counts):
        faults.append(f"{name}: box {diff.box_number} beads differ from its history "
                      f"({game.move_name(diff.bead)}: stored {diff.stored}, history gives {diff.replayed})")
