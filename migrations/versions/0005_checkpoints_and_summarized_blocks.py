"""checkpoints, summarized blocks and the verified checksum of the history

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30 21:30:00

A block of games may carry the beads as they stood after its last game (``beads``, a checkpoint),
so that undo, replay and the plots start from the nearest checkpoint instead of game 1. Beyond the
first games of a long run a block keeps only its tally and its checkpoint (``kept`` false, no
game bytes). ``digest`` is the running checksum of the history up to a block that ``menace check``
has verified. Existing blocks keep every game, with no checkpoint and nothing verified yet.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from menace.storage.archive import stash_rows, take_rows

revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = ('beads', 'kept', 'digest')
ARCHIVE_KEY = 'game_blocks:0005'
"""Where a downgrade keeps the dropped columns' values, so that going back up loses nothing."""

blocks = sa.table('game_blocks', sa.column('id', sa.Integer), sa.column('beads', sa.LargeBinary),
                  sa.column('kept', sa.Boolean), sa.column('digest', sa.String))


# Plain ALTER TABLE, not a batch: a batch copies the table on SQLite (see 0003).
def upgrade() -> None:
    op.add_column('game_blocks', sa.Column('beads', sa.LargeBinary(), nullable=True))
    op.add_column('game_blocks', sa.Column('kept', sa.Boolean(), nullable=False, server_default=sa.true()))
    op.add_column('game_blocks', sa.Column('digest', sa.String(length=64), nullable=True))
    for row in take_rows(ARCHIVE_KEY):
        op.get_bind().execute(sa.update(blocks).where(blocks.c.id == row['id']).values(
            beads=row['beads'], kept=row['kept'], digest=row['digest']))


def downgrade() -> None:
    bind = op.get_bind()
    kept = [dict(r._mapping) for r in bind.execute(
        sa.select(blocks.c.id, blocks.c.beads, blocks.c.kept, blocks.c.digest).where(
            sa.or_(blocks.c.beads.is_not(None), blocks.c.kept == sa.false(), blocks.c.digest.is_not(None)))
    )]
    stash_rows(ARCHIVE_KEY, kept)
    for column in reversed(COLUMNS):
        if bind.dialect.name == 'sqlite':
            op.execute(f'ALTER TABLE game_blocks DROP COLUMN {column}')  # SQLite 3.35 and later
        else:
            op.drop_column('game_blocks', column)
