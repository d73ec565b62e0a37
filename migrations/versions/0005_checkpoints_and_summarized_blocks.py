"""checkpoints, summarized blocks and the verified checksum of the history

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30 21:30:00

A block of games may carry the beads as they stood after its last game (``beads``, a checkpoint),
so that undo, replay and the plots start from the nearest checkpoint instead of game 1. Beyond the
first games of a long run a block keeps only its tally and its checkpoint (``kept`` false, no
game bytes). ``digest`` is the running checksum of the history up to a block that ``menace check``
has verified. Existing blocks keep every game, with no checkpoint and nothing verified yet.

A downgrade keeps the three columns' values aside, each with a fingerprint of the history up to its
block (the block and every block and correction before it). An older menace may meanwhile undo games
and play new ones, whose blocks take the ids of those it removed; the upgrade puts a value back only
on a block whose fingerprint is still the same, so a checkpoint or checksum never lands on other games.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from menace.migrations.archive import stash_rows, take_rows

revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = ('beads', 'kept', 'digest')
ARCHIVE_KEY = 'game_blocks:0005'
"""Where a downgrade keeps the dropped columns' values, so that going back up loses nothing."""

FINGERPRINT = 'fingerprint'
"""A kept row's extra key: :func:`_fingerprints` of its block when the row was kept."""

blocks = sa.table('game_blocks', sa.column('id', sa.Integer), sa.column('machine_id', sa.Integer),
                  sa.column('run_id', sa.Integer), sa.column('first_game', sa.BigInteger),
                  sa.column('n_games', sa.BigInteger), sa.column('wins', sa.BigInteger),
                  sa.column('draws', sa.BigInteger), sa.column('losses', sa.BigInteger),
                  sa.column('data', sa.LargeBinary), sa.column('beads', sa.LargeBinary),
                  sa.column('kept', sa.Boolean), sa.column('digest', sa.String))
corrections = sa.table('corrections', sa.column('id', sa.Integer), sa.column('machine_id', sa.Integer),
                       sa.column('after_game', sa.BigInteger), sa.column('box_id', sa.Integer),
                       sa.column('move', sa.Integer), sa.column('count', sa.BigInteger))


def _fingerprints(bind: sa.engine.Connection) -> dict[int, str]:
    """Every block's id and a checksum of its machine's history up to the block's last game: every
    block up to it (numbers, tally, run, games) and every correction taking effect before that game.

    Written here, not imported, so that it stays what it was when the values were kept aside.
    """
    fixes: dict[int, list[tuple[int, int, int, int]]] = {}
    for machine_id, after, box_id, move, count in bind.execute(
            sa.select(corrections.c.machine_id, corrections.c.after_game, corrections.c.box_id, corrections.c.move,
                      corrections.c.count).order_by(corrections.c.machine_id, corrections.c.after_game,
                                                    corrections.c.id)):
        fixes.setdefault(machine_id, []).append((after, box_id, move, count))
    out: dict[int, str] = {}
    chain: dict[int, Any] = {}
    for block_id, machine_id, run_id, first, n, wins, draws, losses, data in bind.execute(
            sa.select(blocks.c.id, blocks.c.machine_id, blocks.c.run_id, blocks.c.first_game, blocks.c.n_games,
                      blocks.c.wins, blocks.c.draws, blocks.c.losses, blocks.c.data)
            .order_by(blocks.c.machine_id, blocks.c.first_game)):
        h = chain.setdefault(machine_id, hashlib.sha256())
        last = first + n - 1
        for after, box_id, move, count in fixes.get(machine_id, []):
            if first - 1 <= after < last:
                h.update(f"correction {after} {box_id} {move} {count};".encode())
        h.update(f"block {first} {n} {wins} {draws} {losses} {run_id} {len(data or b'')}:".encode())
        h.update(bytes(data or b''))
        out[block_id] = h.copy().hexdigest()
    return out


# Plain ALTER TABLE, not a batch: a batch copies the table on SQLite (see 0003).
def upgrade() -> None:
    op.add_column('game_blocks', sa.Column('beads', sa.LargeBinary(), nullable=True))
    op.add_column('game_blocks', sa.Column('kept', sa.Boolean(), nullable=False, server_default=sa.true()))
    op.add_column('game_blocks', sa.Column('digest', sa.String(length=64), nullable=True))
    rows = take_rows(ARCHIVE_KEY)
    if not rows:
        return
    bind = op.get_bind()
    now = _fingerprints(bind)
    empty = {i for (i,) in bind.execute(sa.select(blocks.c.id).where(
        sa.func.coalesce(sa.func.length(blocks.c.data), 0) == 0))}
    for row in rows:
        if FINGERPRINT in row:
            if now.get(row['id']) != row[FINGERPRINT]:
                continue  # the block was removed or changed (an older menace's undo): its id now means other games
            values = {'beads': row['beads'], 'kept': row['kept'], 'digest': row['digest']}
        elif not row['kept'] and row['id'] in empty:
            # Kept aside by a version that took no fingerprint: only a summary (its games gone, which no
            # older menace writes) is surely the same block; other checkpoints are made again by 'check'.
            values = {'beads': row['beads'], 'kept': False}
        else:
            continue
        bind.execute(sa.update(blocks).where(blocks.c.id == row['id']).values(**values))


def downgrade() -> None:
    bind = op.get_bind()
    fingerprints = _fingerprints(bind)
    kept = [{**r._mapping, FINGERPRINT: fingerprints[r.id]} for r in bind.execute(
        sa.select(blocks.c.id, blocks.c.beads, blocks.c.kept, blocks.c.digest).where(
            sa.or_(blocks.c.beads.is_not(None), blocks.c.kept == sa.false(), blocks.c.digest.is_not(None)))
    )]
    stash_rows(ARCHIVE_KEY, kept)
    for column in reversed(COLUMNS):
        if bind.dialect.name == 'sqlite':
            op.execute(f'ALTER TABLE game_blocks DROP COLUMN {column}')  # SQLite 3.35 and later
        else:
            op.drop_column('game_blocks', column)
