"""each block's results as bit planes, for the learning curve

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06 03:20:00

A block that keeps its games has beside them, in a table of its own (``block_results``), its games'
results from MENACE's side: a bit per game for the wins, then one for the draws, each padded to whole
64-bit words (a quarter of a byte a game). The learning curve counts these bits where it used to read
every game, so that it costs the same at any length of history. (A table, not a column of
``game_blocks``: SQLite reaches a column placed after the games' bytes only through all of them.)

The upgrade fills it for every block that keeps its games (a summary has none); a block whose games
cannot be read (a damaged database) is left without, and the curve reads its games as before. A
downgrade drops the table: the next upgrade makes it again from the games.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0009'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

blocks = sa.table('game_blocks', sa.column('id', sa.Integer), sa.column('kept', sa.Boolean),
                  sa.column('data', sa.LargeBinary))

AT_ONCE = 200
"""Blocks read and written at a time (a tournament's block is some 70 kB of games)."""


def _planes(data: bytes) -> bytes | None:
    """The result planes of a stored block (written here, not imported, so that it stays what this
    revision wrote: :func:`menace.core.records.result_planes` is the same); None if its games cannot be read."""
    try:
        raw = zlib.decompress(data)
    except zlib.error:
        return None
    wins, draws = bytearray(), bytearray()
    i, size = 0, len(raw)
    while i < size:
        head = raw[i]
        side, winner = head >> 2 & 3, head & 3
        wins.append(48 + (winner != 0 and winner == side))
        draws.append(48 + (winner == 3))
        n = head >> 4
        i += 1 + n if n < 15 else 2 + raw[i + 1] if i + 1 < size else 2
    if i != size or not wins:
        return None
    words = (len(wins) + 63) // 64 * 8
    return b"".join(int(bytes(plane[::-1]), 2).to_bytes(words, "little") for plane in (wins, draws))


def upgrade() -> None:
    op.create_table(
        'block_results',
        sa.Column('block_id', sa.Integer(), nullable=False),
        sa.Column('results', sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(['block_id'], ['game_blocks.id'], name=op.f('fk_block_results_block_id_game_blocks'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('block_id', name=op.f('pk_block_results')),
    )
    results = sa.table('block_results', sa.column('block_id', sa.Integer), sa.column('results', sa.LargeBinary))
    bind = op.get_bind()
    ids = list(bind.scalars(sa.select(blocks.c.id).where(blocks.c.kept == sa.true()).order_by(blocks.c.id)))
    for at in range(0, len(ids), AT_ONCE):
        rows = bind.execute(sa.select(blocks.c.id, blocks.c.data).where(blocks.c.id.in_(ids[at:at + AT_ONCE]))).all()
        done = [{'block_id': i, 'results': planes} for i, data in rows
                if data and (planes := _planes(bytes(data))) is not None]
        if done:
            bind.execute(sa.insert(results), done)


def downgrade() -> None:
    op.drop_table('block_results')
