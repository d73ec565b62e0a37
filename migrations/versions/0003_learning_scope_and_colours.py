"""learning scope, forced boxes and bead colours kept with each machine

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 21:10:00

Gardner's Hexapawn rule reinforces only the machine's last bead and keeps a box for every
position where the machine is to move (forced moves included); a machine also remembers the
bead colours its builder chose. Existing machines keep Michie's rule (``every``), no forced
boxes and the standard colours (``colours`` empty).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from menace.migrations.archive import stash_rows, take_rows

revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# Plain ALTER TABLE, not a batch: on SQLite a batch copies the table and drops the old one, and
# with foreign keys on (as menace runs) dropping ``machines`` would cascade to every box.
ARCHIVE_KEY = 'machines:0003'
"""Where a downgrade keeps the dropped columns' values (a Hexapawn machine's scope above all:
replayed under the wrong rule, its history would no longer give its beads)."""
machines = sa.table('machines', sa.column('id', sa.Integer), sa.column('scope', sa.String),
                    sa.column('forced_boxes', sa.Boolean), sa.column('colours', sa.Text))


def upgrade() -> None:
    op.add_column('machines', sa.Column('scope', sa.String(length=8), nullable=False, server_default='every'))
    op.add_column('machines', sa.Column('forced_boxes', sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column('machines', sa.Column('colours', sa.Text(), nullable=True))
    for row in take_rows(ARCHIVE_KEY):
        op.get_bind().execute(sa.update(machines).where(machines.c.id == row['machine_id']).values(
            scope=row['scope'], forced_boxes=row['forced_boxes'], colours=row['colours']))


def downgrade() -> None:
    stash_rows(ARCHIVE_KEY, [
        {'machine_id': r.id, 'scope': r.scope, 'forced_boxes': r.forced_boxes, 'colours': r.colours}
        for r in op.get_bind().execute(sa.select(machines).where(sa.or_(
            machines.c.scope != 'every', machines.c.forced_boxes == sa.true(), machines.c.colours.is_not(None))))
    ])
    for column in ('colours', 'forced_boxes', 'scope'):
        if op.get_bind().dialect.name == 'sqlite':
            op.execute(f'ALTER TABLE machines DROP COLUMN {column}')  # SQLite 3.35 and later
        else:
            op.drop_column('machines', column)
