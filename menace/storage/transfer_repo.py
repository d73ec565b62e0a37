"""Whole machines out of and into the database, row for row (for export and import)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from menace.core.names import check_machine_name
from menace.storage.models import BeadRow, BoxRow, CorrectionRow, GameBlockRow, MachineRow, RunRow
from menace.storage.repository import machine_row


@dataclass
class RunDump:
    kind: str
    opponent: str
    seed: int | None
    started_at: datetime
    ended_at: datetime | None


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


BLOCKS_AT_ONCE = 64
"""Blocks held in memory at once while they are streamed out or in (a block is at most ~100 kB)..."""
BYTES_AT_ONCE = 1 << 18
"""...or, as they are stored, as many as hold this many bytes of games and checkpoints: a bulk insert
gains nothing from more when its rows are this large."""


def dump_machine(session: Session, name: str, with_blocks: bool = True) -> MachineDump:
    """A whole machine; without ``with_blocks``, its history's blocks are left out (see
    :func:`stream_blocks`, which reads them a few at a time)."""
    m = machine_row(session, name)
    boxes = session.execute(
        select(BoxRow.id, BoxRow.number, BoxRow.position, BoxRow.side, BoxRow.move_number)
        .where(BoxRow.machine_id == m.id).order_by(BoxRow.number)
    ).all()
    beads: dict[int, list[tuple[int, int, int]]] = {}
    for box_id, move, initial, count in session.execute(
        select(BeadRow.box_id, BeadRow.move, BeadRow.initial, BeadRow.count)
        .join(BoxRow, BoxRow.id == BeadRow.box_id).where(BoxRow.machine_id == m.id)
        .order_by(BeadRow.box_id, BeadRow.move)
    ):
        beads.setdefault(box_id, []).append((move, initial, count))
    runs = list(session.scalars(select(RunRow).where(RunRow.machine_id == m.id).order_by(RunRow.id)))
    run_index = {r.id: i for i, r in enumerate(runs)}
    blocks = list(_blocks(session, m.id, run_index)) if with_blocks else []
    number_of = {box_id: number for box_id, number, *_ in boxes}
    fixes = [
        CorrectionDump(c.after_game, number_of[c.box_id], c.move, c.count, c.reason, c.created_at)
        for c in session.scalars(select(CorrectionRow).where(CorrectionRow.machine_id == m.id)
                                 .order_by(CorrectionRow.id))
    ]
    return MachineDump(
        m.name, m.game, m.side, m.schedule, m.reward_win, m.reward_draw, m.reward_loss, m.all_squares,
        m.symmetry, m.empty_policy, m.preset, m.created_at,
        [BoxDump(number, position, side, move_number, beads.get(box_id, []))
         for box_id, number, position, side, move_number in boxes],
        [RunDump(r.kind, r.opponent, r.seed, r.started_at, r.ended_at) for r in runs],
        blocks, fixes, m.scope, m.forced_boxes, m.colours,
    )


def _blocks(session: Session, machine_id: int, run_index: dict[int, int]) -> Iterator[BlockDump]:
    rows = session.execute(
        select(GameBlockRow.run_id, GameBlockRow.first_game, GameBlockRow.n_games, GameBlockRow.wins,
               GameBlockRow.draws, GameBlockRow.losses, GameBlockRow.data, GameBlockRow.beads, GameBlockRow.kept)
        .where(GameBlockRow.machine_id == machine_id).order_by(GameBlockRow.first_game)
        .execution_options(yield_per=BLOCKS_AT_ONCE))
    for run_id, first, n, wins, draws, losses, data, beads, kept in rows:
        yield BlockDump(run_index[run_id], first, n, wins, draws, losses, data, beads, kept)


def stream_blocks(session: Session, name: str) -> Iterator[BlockDump]:
    """The machine's blocks in order, as :func:`dump_machine` gives them, read a few at a time."""
    m = machine_row(session, name)
    runs = session.scalars(select(RunRow.id).where(RunRow.machine_id == m.id).order_by(RunRow.id))
    yield from _blocks(session, m.id, {r: i for i, r in enumerate(runs)})


def history_size(session: Session, name: str) -> tuple[int, int]:
    """The machine's stored blocks and the games in them."""
    m = machine_row(session, name)
    blocks, games = session.execute(select(func.count(), func.coalesce(func.sum(GameBlockRow.n_games), 0))
                                    .where(GameBlockRow.machine_id == m.id)).one()
    return int(blocks), int(games)


def load_machine_dump(session: Session, d: MachineDump, blocks: Iterable[BlockDump] | None = None) -> None:
    """Insert a whole machine (its name must be free), all rows in bulk; its history's blocks are
    ``blocks`` if given (instead of ``d.blocks``: read as they are stored), a few at a time
    (:data:`BLOCKS_AT_ONCE`, :data:`BYTES_AT_ONCE`)."""
    check_machine_name(d.name)
    m = MachineRow(
        name=d.name, game=d.game, side=d.side, schedule=d.schedule, reward_win=d.reward_win,
        reward_draw=d.reward_draw, reward_loss=d.reward_loss, all_squares=d.all_squares, symmetry=d.symmetry,
        empty_policy=d.empty_policy, preset=d.preset, created_at=d.created_at, scope=d.scope,
        forced_boxes=d.forced_boxes, colours=d.colours,
    )
    session.add(m)
    session.flush()
    ids = list(session.scalars(
        insert(BoxRow).returning(BoxRow.id, sort_by_parameter_order=True),
        [{"machine_id": m.id, "number": b.number, "position": b.position, "side": b.side,
          "move_number": b.move_number} for b in d.boxes],
    ))
    bead_rows = [{"box_id": i, "move": mv, "initial": ini, "count": c}
                 for i, b in zip(ids, d.boxes) for mv, ini, c in b.beads]
    if bead_rows:
        session.execute(insert(BeadRow), bead_rows)
    run_ids = []
    for r in d.runs:
        row = RunRow(machine_id=m.id, kind=r.kind, opponent=r.opponent, seed=r.seed, started_at=r.started_at,
                     ended_at=r.ended_at)
        session.add(row)
        session.flush()
        run_ids.append(row.id)
    rows: list[dict[str, object]] = []
    held = 0
    for b in d.blocks if blocks is None else blocks:
        rows.append({"machine_id": m.id, "run_id": run_ids[b.run], "first_game": b.first_game, "n_games": b.n_games,
                     "wins": b.wins, "draws": b.draws, "losses": b.losses, "data": b.data, "beads": b.beads,
                     "kept": b.kept})
        held += len(b.data) + len(b.beads or b"")
        if len(rows) == BLOCKS_AT_ONCE or held >= BYTES_AT_ONCE:
            session.execute(insert(GameBlockRow), rows)
            rows, held = [], 0
    if rows:
        session.execute(insert(GameBlockRow), rows)
    box_id = {b.number: i for i, b in zip(ids, d.boxes)}
    if d.corrections:
        session.execute(insert(CorrectionRow), [
            {"machine_id": m.id, "after_game": c.after_game, "box_id": box_id[c.box_number], "move": c.move,
             "count": c.count, "reason": c.reason, "created_at": c.created_at} for c in d.corrections
        ])
