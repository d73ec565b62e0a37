"""Whole machines out of and into the database, row for row (for export and import)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, delete, func, insert, select

from menace.core.names import check_machine_name
from menace.core.records import block_results
from menace.storage.models import (
    bead_table,
    block_result_table,
    block_table,
    box_table,
    correction_table,
    machine_table,
    run_table,
)
from menace.storage.repository import RULE_COLUMNS, insert_row, machine_row

_BLOCK = block_table.c


@dataclass
class RunDump:
    kind: str
    opponent: str
    seed: int | None
    started_at: datetime
    ended_at: datetime | None
    frozen: bool = False
    """The machine played the run's games without learning."""


@dataclass
class BlockDump:
    run: int
    """Index into the dump's runs."""
    first_game: int
    n_games: int
    wins: int
    draws: int
    losses: int
    data: bytes
    beads: bytes | None = None
    """The checkpoint after the block's last game, packed (see ``menace.core.records.pack_beads``)."""
    kept: bool = True
    """False: a summary (no games in ``data``)."""


@dataclass
class CorrectionDump:
    after_game: int
    box_number: int
    move: int
    count: int
    reason: str
    created_at: datetime


@dataclass
class BoxDump:
    number: int
    position: str
    side: str
    move_number: int
    beads: list[tuple[int, int, int]]
    """``(move, initial, count)`` by move."""


@dataclass
class MachineDump:
    name: str
    game: str
    side: str
    schedule: str
    reward_win: int
    reward_draw: int
    reward_loss: int
    all_squares: bool
    symmetry: bool
    empty_policy: str
    preset: str | None
    created_at: datetime
    boxes: list[BoxDump]
    runs: list[RunDump]
    blocks: list[BlockDump]
    corrections: list[CorrectionDump]
    scope: str = "every"
    forced_boxes: bool = False
    colours: str | None = None
    rule: dict[str, Any] = field(default_factory=lambda: {"rule": "michie"})
    """The columns of ``machines`` that say how it learns (see ``repository.rule_columns``): the rule,
    the Pegasus rule's parameters and the refined rule's mean outcome."""


BLOCKS_AT_ONCE = 64
"""Blocks held in memory at once while they are streamed out or in (a block is at most ~100 kB)..."""
BYTES_AT_ONCE = 1 << 18
"""...or, as they are stored, as many as hold this many bytes of games and checkpoints: a bulk insert
gains nothing from more when its rows are this large."""


def dump_machine(conn: Connection, name: str, with_blocks: bool = True) -> MachineDump:
    """A whole machine; without ``with_blocks``, its history's blocks are left out (see
    :func:`stream_blocks`, which reads them a few at a time)."""
    m = machine_row(conn, name)
    box, bead, run, fix = box_table.c, bead_table.c, run_table.c, correction_table.c
    boxes = conn.execute(
        select(box.id, box.number, box.position, box.side, box.move_number)
        .where(box.machine_id == m.id).order_by(box.number)
    ).all()
    beads: dict[int, list[tuple[int, int, int]]] = {}
    for box_id, move, initial, count in conn.execute(
        select(bead.box_id, bead.move, bead.initial, bead.count)
        .join(box_table, box.id == bead.box_id).where(box.machine_id == m.id)
        .order_by(bead.box_id, bead.move)
    ):
        beads.setdefault(box_id, []).append((move, initial, count))
    runs = conn.execute(select(run_table).where(run.machine_id == m.id).order_by(run.id)).all()
    run_index = {r.id: i for i, r in enumerate(runs)}
    blocks = list(_blocks(conn, m.id, run_index)) if with_blocks else []
    number_of = {box_id: number for box_id, number, *_ in boxes}
    fixes = [
        CorrectionDump(after, number_of[box_id], move, count, reason, created)
        for after, box_id, move, count, reason, created in conn.execute(
            select(fix.after_game, fix.box_id, fix.move, fix.count, fix.reason, fix.created_at)
            .where(fix.machine_id == m.id).order_by(fix.id))
    ]
    return MachineDump(
        m.name, m.game, m.side, m.schedule, m.reward_win, m.reward_draw, m.reward_loss, m.all_squares,
        m.symmetry, m.empty_policy, m.preset, m.created_at,
        [BoxDump(number, position, side, move_number, beads.get(box_id, []))
         for box_id, number, position, side, move_number in boxes],
        [RunDump(r.kind, r.opponent, r.seed, r.started_at, r.ended_at, bool(r.frozen)) for r in runs],
        blocks, fixes, m.scope, m.forced_boxes, m.colours, {c: getattr(m, c) for c in RULE_COLUMNS},
    )


def _blocks(conn: Connection, machine_id: int, run_index: dict[int, int],
            at_once: int | None = None) -> Iterator[BlockDump]:
    rows = conn.execute(
        select(_BLOCK.run_id, _BLOCK.first_game, _BLOCK.n_games, _BLOCK.wins, _BLOCK.draws, _BLOCK.losses,
               _BLOCK.data, _BLOCK.beads, _BLOCK.kept)
        .where(_BLOCK.machine_id == machine_id).order_by(_BLOCK.first_game)
        .execution_options(yield_per=at_once or BLOCKS_AT_ONCE))
    for run_id, first, n, wins, draws, losses, data, beads, kept in rows:
        yield BlockDump(run_index[run_id], first, n, wins, draws, losses, data, beads, kept)


def stream_blocks(conn: Connection, name: str, at_once: int | None = None) -> Iterator[BlockDump]:
    """The machine's blocks in order, as :func:`dump_machine` gives them, read ``at_once`` at a time
    (:data:`BLOCKS_AT_ONCE` unless given)."""
    m = machine_row(conn, name)
    runs = conn.scalars(select(run_table.c.id).where(run_table.c.machine_id == m.id).order_by(run_table.c.id))
    yield from _blocks(conn, m.id, {r: i for i, r in enumerate(runs)}, at_once)


def history_size(conn: Connection, name: str) -> tuple[int, int]:
    """The machine's stored blocks and the games in them."""
    m = machine_row(conn, name)
    blocks, games = conn.execute(select(func.count(), func.coalesce(func.sum(_BLOCK.n_games), 0))
                                 .where(_BLOCK.machine_id == m.id)).one()
    return int(blocks), int(games)


RUNS_AT_ONCE = 5_000


def _insert_blocks(conn: Connection, rows: list[dict[str, object]]) -> None:
    """Blocks in bulk, and the results of those that keep their games (made from the games)."""
    ids = list(conn.scalars(insert(block_table).returning(block_table.c.id, sort_by_parameter_order=True), rows))
    results = [{"block_id": i, "results": block_results(cast(bytes, r["data"]))}
               for i, r in zip(ids, rows) if r["kept"]]
    if results:
        # rows left by blocks deleted with foreign keys off (by hand) must not stand for these
        conn.execute(delete(block_result_table).where(block_result_table.c.block_id.in_(ids)))
        conn.execute(insert(block_result_table), results)


def load_machine_dump(conn: Connection, d: MachineDump, blocks: Iterable[BlockDump] | None = None) -> None:
    """Insert a whole machine (its name must be free), all rows in bulk; its history's blocks are
    ``blocks`` if given (instead of ``d.blocks``: read as they are stored), a few at a time
    (:data:`BLOCKS_AT_ONCE`, :data:`BYTES_AT_ONCE`)."""
    check_machine_name(d.name)
    mid = insert_row(
        conn, machine_table,
        name=d.name, game=d.game, side=d.side, schedule=d.schedule, reward_win=d.reward_win,
        reward_draw=d.reward_draw, reward_loss=d.reward_loss, all_squares=d.all_squares, symmetry=d.symmetry,
        empty_policy=d.empty_policy, preset=d.preset, created_at=d.created_at, scope=d.scope,
        forced_boxes=d.forced_boxes, colours=d.colours, **d.rule,
    )
    ids = list(conn.scalars(
        insert(box_table).returning(box_table.c.id, sort_by_parameter_order=True),
        [{"machine_id": mid, "number": b.number, "position": b.position, "side": b.side,
          "move_number": b.move_number} for b in d.boxes],
    ))
    bead_rows = [{"box_id": i, "move": mv, "initial": ini, "count": c}
                 for i, b in zip(ids, d.boxes) for mv, ini, c in b.beads]
    if bead_rows:
        conn.execute(insert(bead_table), bead_rows)
    run_ids: list[int] = []
    for at in range(0, len(d.runs), RUNS_AT_ONCE):  # in bulk, a few thousand at a time (one at a time: minutes)
        run_ids += conn.scalars(
            insert(run_table).returning(run_table.c.id, sort_by_parameter_order=True),
            [{"machine_id": mid, "kind": r.kind, "opponent": r.opponent, "seed": r.seed, "started_at": r.started_at,
              "ended_at": r.ended_at, "frozen": r.frozen} for r in d.runs[at:at + RUNS_AT_ONCE]],
        )
    rows: list[dict[str, object]] = []
    held = 0
    for b in d.blocks if blocks is None else blocks:
        rows.append({"machine_id": mid, "run_id": run_ids[b.run], "first_game": b.first_game, "n_games": b.n_games,
                     "wins": b.wins, "draws": b.draws, "losses": b.losses, "data": b.data, "beads": b.beads,
                     "kept": b.kept})
        held += len(b.data) + len(b.beads or b"")
        if len(rows) == BLOCKS_AT_ONCE or held >= BYTES_AT_ONCE:
            _insert_blocks(conn, rows)
            rows, held = [], 0
    if rows:
        _insert_blocks(conn, rows)
    box_id = {b.number: i for i, b in zip(ids, d.boxes)}
    if d.corrections:
        conn.execute(insert(correction_table), [
            {"machine_id": mid, "after_game": c.after_game, "box_id": box_id[c.box_number], "move": c.move,
             "count": c.count, "reason": c.reason, "created_at": c.created_at} for c in d.corrections
        ])
