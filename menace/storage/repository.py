"""Reading and writing machines, boxes, beads and games. Every query lives here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, Row, Table, bindparam, delete, func, insert, select, update

from menace.core.errors import ConflictError, NotFoundError
from menace.core.game import Game, Side, State
from menace.core.learner import Box, GameRecord, build_boxes, check_schedule
from menace.core.names import check_machine_name
from menace.core.pegasus import PegasusRule, Refinement
from menace.core.records import GameBuffer, PackedGames
from menace.core.settings import EmptyPolicy, Scope, Settings, format_numbers, parse_numbers
from menace.games import find_game
from menace.storage.database import DatabaseDamagedError
from menace.storage.models import (
    bead_table,
    block_result_table,
    block_table,
    box_table,
    correction_table,
    machine_table,
    run_table,
)


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
    mean: tuple[float, int, int] = (0.0, 0, 0)
    """The refined Pegasus rule's mean outcome after the stored games (see :class:`MeanOutcome`)."""


def settings_of(row: Row[Any]) -> Settings:
    """The settings a machine's row holds."""
    pegasus = None
    if row.rule == "pegasus":
        pegasus = PegasusRule(row.pegasus_a, row.pegasus_b, Refinement(row.refinement), row.decay)
    elif row.rule != "michie":
        raise DatabaseDamagedError(f"machine {row.name!r} learns by a rule this menace does not know "
                                   f"({str(row.rule)[:20]!r})")
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
        pegasus=pegasus,
    )


RULE_COLUMNS = ("rule", "pegasus_a", "pegasus_b", "refinement", "decay", "mean_mu", "mean_sum", "mean_plays")
"""The columns of ``machines`` that say how a machine learns."""


def rule_columns(settings: Settings) -> dict[str, Any]:
    """The columns of ``machines`` that say how a machine learns (its rule), for a new machine."""
    rule = settings.pegasus
    if rule is None:
        return {"rule": "michie"}
    return {"rule": "pegasus", "pegasus_a": rule.a, "pegasus_b": rule.b, "refinement": rule.refinement.value,
            "decay": rule.decay, "mean_mu": 0.0, "mean_sum": 0, "mean_plays": 0}


def mean_outcome(row: Row[Any]) -> tuple[float, int, int]:
    """The refined rule's mean outcome as a machine's row holds it (see :class:`MeanOutcome`)."""
    if row.rule != "pegasus" or row.mean_mu is None:
        return (0.0, 0, 0)
    return (float(row.mean_mu), int(row.mean_sum or 0), int(row.mean_plays or 0))


def save_mean_outcome(conn: Connection, machine_id: int, state: tuple[float, int, int]) -> None:
    """Store the refined rule's mean outcome after the games just stored."""
    conn.execute(update(machine_table).where(machine_table.c.id == machine_id)
                 .values(mean_mu=state[0], mean_sum=state[1], mean_plays=state[2]))


def machine_names(conn: Connection) -> list[str]:
    return list(conn.scalars(select(machine_table.c.name).order_by(machine_table.c.id)))


def machine_names_for_game(conn: Connection, game: str) -> list[str]:
    """The machines that play ``game``, oldest first."""
    return list(conn.scalars(
        select(machine_table.c.name).where(machine_table.c.game == game).order_by(machine_table.c.id)))


def machine_row(conn: Connection, name: str) -> Row[Any]:
    """The machine's row (every column of ``machines``, by name); :class:`UnknownMachineError` naming
    the machines there are otherwise."""
    row = conn.execute(select(machine_table).where(machine_table.c.name == name)).first()
    if row is None:
        known = machine_names(conn)
        hint = f"; machines here: {', '.join(known)}" if known else "; create one with: menace init"
        raise UnknownMachineError(f"no machine named {name!r}{hint}")
    return row


def machine_id(conn: Connection, name: str) -> int:
    found: int = machine_row(conn, name).id
    return found


def machine_settings(conn: Connection, name: str) -> tuple[int, Settings]:
    """A machine's id and settings, without its boxes (a reader of its history only)."""
    row = machine_row(conn, name)
    return row.id, settings_of(row)


def insert_row(conn: Connection, table: Table, **values: Any) -> int:
    """Insert one row into ``table`` (a table whose key is an ``id``); the id it was given."""
    new_id: int = conn.execute(insert(table).returning(table.c.id), values).scalar_one()
    return new_id


def create_machine(
    conn: Connection, name: str, game: Game, settings: Settings, preset: str | None,
    replace: bool = False, colours: str | None = None,
) -> StoredMachine:
    """Build a machine's boxes and store them (all rows in bulk)."""
    check_machine_name(name)
    boxes = build_boxes(game, settings)
    check_schedule(settings, boxes)
    existing = conn.scalar(select(machine_table.c.id).where(machine_table.c.name == name))
    if existing is not None:
        if not replace:
            raise MachineExistsError(f"a machine named {name!r} exists")
        conn.execute(delete(machine_table).where(machine_table.c.id == existing))
    created_at = datetime.now()
    mid = insert_row(
        conn, machine_table,
        name=name, game=game.name, side=settings.side, schedule=format_numbers(settings.schedule),
        reward_win=settings.win, reward_draw=settings.draw, reward_loss=settings.loss,
        all_squares=settings.all_squares, symmetry=settings.symmetry,
        empty_policy=settings.empty_policy.value, preset=preset, created_at=created_at,
        scope=settings.scope.value, forced_boxes=settings.forced_boxes, colours=colours,
        **rule_columns(settings),
    )
    box_rows = [
        {"machine_id": mid, "number": b.number, "position": game.encode(b.position),
         "side": b.side.name, "move_number": b.move_number}
        for b in boxes
    ]
    ids = list(conn.scalars(insert(box_table).returning(box_table.c.id, sort_by_parameter_order=True), box_rows))
    conn.execute(insert(bead_table), [
        {"box_id": box_id, "move": move, "count": count, "initial": box.initial[move]}
        for box_id, box in zip(ids, boxes)
        for move, count in box.beads.items()
    ])
    return StoredMachine(mid, name, game.name, settings, preset, created_at, boxes, ids, colours)


@lru_cache(maxsize=16_384)
def _decode(game: str, position: str) -> State:
    """A stored position, decoded once per process (a server reads a machine's boxes at every change)."""
    return find_game(game).decode(position)


@lru_cache(maxsize=64)
def _layout(game: str, settings: Settings) -> list[tuple[int, State, Side]]:
    """``(number, position, side)`` of the boxes ``settings`` build, in order (made once per process)."""
    return [(i + 1, b.position, b.side) for i, b in enumerate(build_boxes(find_game(game), settings))]


def load_machine(conn: Connection, name: str, strict: bool = True) -> StoredMachine:
    """A machine with every box and bead, in two queries.

    ``strict``: the boxes must be the ones its settings build (each position where the settings
    put one, in order, none missing or added): a learner cannot play on others. ``menace check``
    reads them as they are, to name what differs.
    """
    row = machine_row(conn, name)
    game = find_game(row.game)
    box, bead = box_table.c, bead_table.c
    box_rows = conn.execute(
        select(box.id, box.number, box.position, box.side, box.move_number)
        .where(box.machine_id == row.id).order_by(box.number)
    ).all()
    beads: dict[int, list[tuple[int, int, int]]] = {}
    for box_id, move, count, initial in conn.execute(  # fetched at once: a row at a time costs twice the CPU
        select(bead.box_id, bead.move, bead.count, bead.initial)
        .join(box_table, box.id == bead.box_id).where(box.machine_id == row.id)
        .order_by(bead.box_id, bead.move)
    ).all():
        beads.setdefault(box_id, []).append((move, count, initial))
    boxes = []
    for box_id, number, position, side, move_number in box_rows:
        rows = beads.get(box_id, [])
        if any(type(m) is not int or type(c) is not int or type(i) is not int or not 0 <= m < game.move_count
               for m, c, i in rows) or side not in ("X", "O"):
            raise DatabaseDamagedError(f"box {number} of {name!r} holds values no {game.name} box has; "
                                       f"run 'menace check' to see what is damaged")
        try:
            state = _decode(game.name, position)
        except ValueError:
            if strict:
                raise DatabaseDamagedError(f"box {number} of {name!r} holds a position that is not one "
                                           f"({str(position)[:20]!r}); run 'menace check' to see what is "
                                           f"damaged") from None
            raise
        boxes.append(Box(
            number, state, Side[side], move_number,
            initial={m: i for m, _, i in rows}, beads={m: c for m, c, _ in rows},
        ))
    settings = settings_of(row)
    if strict:
        if [(b.number, b.position, b.side) for b in boxes] != _layout(game.name, settings):
            raise DatabaseDamagedError(f"the boxes of {name!r} are not the ones its settings build (a box "
                                       f"deleted, added or changed); run 'menace check' to see what is damaged")
    return StoredMachine(
        row.id, row.name, row.game, settings, row.preset, row.created_at, boxes,
        [r[0] for r in box_rows], row.colours, mean_outcome(row),
    )


def delete_machine(conn: Connection, name: str) -> None:
    row = machine_row(conn, name)
    conn.execute(delete(machine_table).where(machine_table.c.id == row.id))


def start_run(conn: Connection, machine_id: int, kind: str, opponent: str, seed: int | None,
              frozen: bool = False) -> int:
    """A new run; ``frozen``: its games are played without learning (they change no bead)."""
    return insert_row(conn, run_table, machine_id=machine_id, kind=kind, opponent=opponent, seed=seed,
                      started_at=datetime.now(), frozen=frozen)


def end_run(conn: Connection, run_id: int) -> None:
    conn.execute(update(run_table).where(run_table.c.id == run_id).values(ended_at=datetime.now()))


def games_played(conn: Connection, machine_id: int) -> int:
    block = block_table.c
    last = conn.execute(
        select(block.first_game, block.n_games)
        .where(block.machine_id == machine_id)
        .order_by(block.first_game.desc()).limit(1)
    ).first()
    return 0 if last is None else int(last[0] + last[1] - 1)


_SET_COUNT = (
    update(bead_table)
    .where(bead_table.c.box_id == bindparam("b_box"), bead_table.c.move == bindparam("b_move"))
    .values(count=bindparam("b_count"))
)


def set_bead_counts(conn: Connection, updates: Sequence[tuple[int, int, int]]) -> None:
    """Set bead counts by primary key in one executemany: ``(box_id, move, count)``.

    Every row must be there: a bead row gone (a damaged database) raises
    :class:`DatabaseDamagedError` and the transaction rolls back, instead of a count silently lost.
    """
    if not updates:
        return
    done = conn.execute(_SET_COUNT, [{"b_box": b, "b_move": m, "b_count": c} for b, m, c in updates])
    if done.rowcount != len(updates):
        raise DatabaseDamagedError(f"{len(updates) - done.rowcount} of {len(updates)} bead counts to write have "
                                   f"no row in the database; run 'menace check' to see what is damaged")


def save_games(
    conn: Connection, machine_id: int, run_id: int, first_game: int,
    games: Sequence[GameRecord] | GameBuffer | PackedGames, bead_updates: Sequence[tuple[int, int, int]],
    checkpoint: bytes | None = None, kept: bool = True,
) -> None:
    """One block of games and the bead counts they changed: ``(box_id, move, count)``.

    ``checkpoint``: the beads after the block's last game, packed; ``kept`` false stores only the
    block's tally and its checkpoint (a summary), not the games.
    """
    if isinstance(games, Sequence):
        buf = GameBuffer()
        for g in games:
            buf.add(int(g.menace_side), g.moves, g.winner)
        games = buf
    if games.games and not kept and checkpoint is None:
        raise ValueError("a summarized block needs its checkpoint")
    if games.games:
        block_id = conn.execute(insert(block_table).values(
            machine_id=machine_id, run_id=run_id, first_game=first_game, n_games=games.games, wins=games.wins,
            draws=games.draws, losses=games.losses, data=games.block() if kept else b"", beads=checkpoint, kept=kept,
        ).returning(block_table.c.id)).scalar_one()
        if kept:
            # a row left by a block deleted with foreign keys off (by hand) must not stand for this one
            conn.execute(delete(block_result_table).where(block_result_table.c.block_id == block_id))
            conn.execute(insert(block_result_table).values(block_id=block_id, results=games.results()))
    set_bead_counts(conn, bead_updates)


def totals(conn: Connection, machine_id: int) -> tuple[int, int, int]:
    """Wins, draws and losses over every stored game."""
    block = block_table.c
    w, d, l_ = conn.execute(
        select(func.coalesce(func.sum(block.wins), 0), func.coalesce(func.sum(block.draws), 0),
               func.coalesce(func.sum(block.losses), 0))
        .where(block.machine_id == machine_id)
    ).one()
    return int(w), int(d), int(l_)


def frozen_totals(conn: Connection, machine_id: int) -> tuple[int, int, int]:
    """Wins, draws and losses over the games the machine played without learning (frozen runs)."""
    block, run = block_table.c, run_table.c
    w, d, l_ = conn.execute(
        select(func.coalesce(func.sum(block.wins), 0), func.coalesce(func.sum(block.draws), 0),
               func.coalesce(func.sum(block.losses), 0))
        .join_from(block_table, run_table, run.id == block.run_id)
        .where(block.machine_id == machine_id, run.frozen)
    ).one()
    return int(w), int(d), int(l_)


@dataclass(frozen=True)
class StoredGame:
    number: int
    run_id: int
    kind: str
    opponent: str
    record: GameRecord
    frozen: bool = False
    """Played without learning (its run is frozen): it changed no bead."""


# -- corrections ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Correction:
    after_game: int
    box_number: int
    move: int
    count: int
    reason: str


def add_corrections(conn: Connection, machine_id: int, after_game: int,
                    changes: Sequence[tuple[int, int, int]], reason: str) -> None:
    """Record bead counts set by hand, ``(box_id, move, count)``, and apply them."""
    if not changes:
        return
    now = datetime.now()
    conn.execute(insert(correction_table), [
        {"machine_id": machine_id, "after_game": after_game, "box_id": box_id, "move": move, "count": count,
         "reason": reason, "created_at": now}
        for box_id, move, count in changes
    ])
    set_bead_counts(conn, changes)


def corrections(conn: Connection, machine_id: int) -> list[Correction]:
    fix, box = correction_table.c, box_table.c
    rows = conn.execute(
        select(fix.after_game, box.number, fix.move, fix.count, fix.reason)
        .join(box_table, box.id == fix.box_id)
        .where(fix.machine_id == machine_id).order_by(fix.id)
    ).all()
    return [Correction(*r) for r in rows]


def set_colours(conn: Connection, machine_id: int, colours: str | None) -> None:
    """Keep the builder's bead colours with the machine (None: back to the standard set)."""
    conn.execute(update(machine_table).where(machine_table.c.id == machine_id).values(colours=colours))
