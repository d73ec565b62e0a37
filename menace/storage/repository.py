"""Reading and writing machines, boxes, beads and games. Every query lives here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.orm import Session

from menace.core.errors import ConflictError, NotFoundError
from menace.core.game import Game, Side
from menace.core.learner import (
    Box,
    EmptyPolicy,
    GameRecord,
    Scope,
    Settings,
    build_boxes,
    check_schedule,
    format_numbers,
    parse_numbers,
)
from menace.core.names import check_machine_name
from menace.core.records import GameBuffer
from menace.games import find_game
from menace.storage.database import DatabaseDamagedError
from menace.storage.models import BeadRow, BoxRow, GameBlockRow, MachineRow, RunRow

DEFAULT_MACHINE = "menace"


class UnknownMachineError(NotFoundError):
    """No machine of that name in the database."""


class MachineExistsError(ConflictError):
    """A machine of that name exists already."""


@dataclass
class StoredMachine:
    """A machine as read from the database: settings and boxes (with their row ids)."""

    id: int
    name: str
    game: str
    settings: Settings
    preset: str | None
    created_at: datetime
    boxes: list[Box]
    box_ids: list[int]
    """Row id of each box, in box-number order."""
    colours: str | None = None
    """The builder's bead colours, as given to ``--colours`` (None: the standard set)."""


def settings_of(row: MachineRow) -> Settings:
    return Settings(
        side=row.side,
        schedule=parse_numbers(row.schedule),
        win=row.reward_win,
        draw=row.reward_draw,
        loss=row.reward_loss,
        all_squares=row.all_squares,
        symmetry=row.symmetry,
        empty_policy=EmptyPolicy(row.empty_policy),
        scope=Scope(row.scope),
        forced_boxes=row.forced_boxes,
    )


def machine_names(session: Session) -> list[str]:
    return list(session.scalars(select(MachineRow.name).order_by(MachineRow.id)))


def machine_names_for_game(session: Session, game: str) -> list[str]:
    """The machines that play ``game``, oldest first."""
    return list(session.scalars(select(MachineRow.name).where(MachineRow.game == game).order_by(MachineRow.id)))


def machine_row(session: Session, name: str) -> MachineRow:
    row = session.scalar(select(MachineRow).where(MachineRow.name == name))
    if row is None:
        known = machine_names(session)
        hint = f"; machines here: {', '.join(known)}" if known else "; create one with: menace init"
        raise UnknownMachineError(f"no machine named {name!r}{hint}")
    return row


def machine_id(session: Session, name: str) -> int:
    return machine_row(session, name).id


def machine_settings(session: Session, name: str) -> tuple[int, Settings]:
    """A machine's id and settings, without its boxes (a reader of its history only)."""
    row = machine_row(session, name)
    return row.id, settings_of(row)


def create_machine(
    session: Session, name: str, game: Game, settings: Settings, preset: str | None,
    replace: bool = False, colours: str | None = None,
) -> StoredMachine:
    """Build a machine's boxes and store them (all rows in bulk)."""
    check_machine_name(name)
    boxes = build_boxes(game, settings)
    check_schedule(settings, boxes)
    existing = session.scalar(select(MachineRow).where(MachineRow.name == name))
    if existing is not None:
        if not replace:
            raise MachineExistsError(f"a machine named {name!r} exists")
        session.execute(delete(MachineRow).where(MachineRow.id == existing.id))
    row = MachineRow(
        name=name, game=game.name, side=settings.side, schedule=format_numbers(settings.schedule),
        reward_win=settings.win, reward_draw=settings.draw, reward_loss=settings.loss,
        all_squares=settings.all_squares, symmetry=settings.symmetry,
        empty_policy=settings.empty_policy.value, preset=preset, created_at=datetime.now(),
        scope=settings.scope.value, forced_boxes=settings.forced_boxes, colours=colours,
    )
    session.add(row)
    session.flush()
    box_rows = [
        {"machine_id": row.id, "number": b.number, "position": game.encode(b.position),
         "side": b.side.name, "move_number": b.move_number}
        for b in boxes
    ]
    ids = list(session.scalars(insert(BoxRow).returning(BoxRow.id, sort_by_parameter_order=True), box_rows))
    session.execute(insert(BeadRow), [
        {"box_id": box_id, "move": move, "count": count, "initial": box.initial[move]}
        for box_id, box in zip(ids, boxes)
        for move, count in box.beads.items()
    ])
    return StoredMachine(row.id, name, game.name, settings, preset, row.created_at, boxes, ids, colours)


def load_machine(session: Session, name: str) -> StoredMachine:
    """A machine with every box and bead, in two queries."""
    row = machine_row(session, name)
    game = find_game(row.game)
    box_rows = session.execute(
        select(BoxRow.id, BoxRow.number, BoxRow.position, BoxRow.side, BoxRow.move_number)
        .where(BoxRow.machine_id == row.id).order_by(BoxRow.number)
    ).all()
    beads: dict[int, list[tuple[int, int, int]]] = {}
    for box_id, move, count, initial in session.execute(
        select(BeadRow.box_id, BeadRow.move, BeadRow.count, BeadRow.initial)
        .join(BoxRow, BoxRow.id == BeadRow.box_id).where(BoxRow.machine_id == row.id)
        .order_by(BeadRow.box_id, BeadRow.move)
    ):
        beads.setdefault(box_id, []).append((move, count, initial))
    boxes = []
    for box_id, number, position, side, move_number in box_rows:
        rows = beads.get(box_id, [])
        if any(type(m) is not int or type(c) is not int or type(i) is not int or not 0 <= m < game.move_count
               for m, c, i in rows) or side not in ("X", "O"):
            raise DatabaseDamagedError(f"box {number} of {name!r} holds values no {game.name} box has; "
                                       f"run 'menace check' to see what is damaged")
        boxes.append(Box(
            number, game.decode(position), Side[side], move_number,
            initial={m: i for m, _, i in rows}, beads={m: c for m, c, _ in rows},
        ))
    return StoredMachine(
        row.id, row.name, row.game, settings_of(row), row.preset, row.created_at, boxes,
        [r[0] for r in box_rows], row.colours,
    )


def delete_machine(session: Session, name: str) -> None:
    row = machine_row(session, name)
    session.execute(delete(MachineRow).where(MachineRow.id == row.id))


def start_run(session: Session, machine_id: int, kind: str, opponent: str, seed: int | None) -> int:
    run = RunRow(machine_id=machine_id, kind=kind, opponent=opponent, seed=seed, started_at=datetime.now())
    session.add(run)
    session.flush()
    return run.id


def end_run(session: Session, run_id: int) -> None:
    session.execute(update(RunRow).where(RunRow.id == run_id).values(ended_at=datetime.now()))


def games_played(session: Session, machine_id: int) -> int:
    last = session.execute(
        select(GameBlockRow.first_game, GameBlockRow.n_games)
        .where(GameBlockRow.machine_id == machine_id)
        .order_by(GameBlockRow.first_game.desc()).limit(1)
    ).first()
    return 0 if last is None else last[0] + last[1] - 1


def save_games(
    session: Session, machine_id: int, run_id: int, first_game: int,
    games: Sequence[GameRecord] | GameBuffer, bead_updates: Sequence[tuple[int, int, int]],
    checkpoint: bytes | None = None, kept: bool = True,
) -> None:
    """One block of games and the bead counts they changed: ``(box_id, move, count)``.

    ``checkpoint``: the beads after the block's last game, packed; ``kept`` false stores only the
    block's tally and its checkpoint (a summary), not the games.
    """
    if not isinstance(games, GameBuffer):
        buf = GameBuffer()
        for g in games:
            buf.add(int(g.menace_side), g.moves, g.winner)
        games = buf
    if games.games and not kept and checkpoint is None:
        raise ValueError("a summarized block needs its checkpoint")
    if games.games:
        session.execute(insert(GameBlockRow), [{
            "machine_id": machine_id, "run_id": run_id, "first_game": first_game,
            "n_games": games.games, "wins": games.wins, "draws": games.draws,
            "losses": games.losses, "data": games.block() if kept else b"", "beads": checkpoint, "kept": kept,
        }])
    if bead_updates:
        session.execute(
            update(BeadRow),
            [{"box_id": b, "move": m, "count": c} for b, m, c in bead_updates],
        )


def totals(session: Session, machine_id: int) -> tuple[int, int, int]:
    """Wins, draws and losses over every stored game."""
    w, d, l_ = session.execute(
        select(func.coalesce(func.sum(GameBlockRow.wins), 0), func.coalesce(func.sum(GameBlockRow.draws), 0),
               func.coalesce(func.sum(GameBlockRow.losses), 0))
        .where(GameBlockRow.machine_id == machine_id)
    ).one()
    return int(w), int(d), int(l_)


@dataclass(frozen=True)
class StoredGame:
    number: int
    run_id: int
    kind: str
    opponent: str
    record: GameRecord


# -- corrections ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Correction:
    after_game: int
    box_number: int
    move: int
    count: int
    reason: str


def add_corrections(session: Session, machine_id: int, after_game: int,
                    changes: Sequence[tuple[int, int, int]], reason: str) -> None:
    """Record bead counts set by hand, ``(box_id, move, count)``, and apply them."""
    from menace.storage.models import CorrectionRow

    now = datetime.now()
    for box_id, move, count in changes:
        session.add(CorrectionRow(machine_id=machine_id, after_game=after_game, box_id=box_id, move=move,
                                  count=count, reason=reason, created_at=now))
    if changes:
        session.execute(update(BeadRow), [{"box_id": b, "move": m, "count": c} for b, m, c in changes])


def corrections(session: Session, machine_id: int) -> list[Correction]:
    from menace.storage.models import CorrectionRow

    rows = session.execute(
        select(CorrectionRow.after_game, BoxRow.number, CorrectionRow.move, CorrectionRow.count,
               CorrectionRow.reason)
        .join(BoxRow, BoxRow.id == CorrectionRow.box_id)
        .where(CorrectionRow.machine_id == machine_id).order_by(CorrectionRow.id)
    ).all()
    return [Correction(*r) for r in rows]


def set_colours(session: Session, machine_id: int, colours: str | None) -> None:
    """Keep the builder's bead colours with the machine (None: back to the standard set)."""
    session.execute(update(MachineRow).where(MachineRow.id == machine_id).values(colours=colours))
