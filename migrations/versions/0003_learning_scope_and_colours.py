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

revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# Plain ALTER TABLE, not a batch: on SQLite a batch copies the table and drops the old one, and
# with foreign keys on (as menace runs) dropping ``machines`` would cascade to every box.
def upgrade() -> None:
    op.add_column('machines', sa.Column('scope', sa.String(length=8), nullable=False, server_default='every'))
    op.add_column('machines', sa.Column('forced_boxes', sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column('machines', sa.Column('colours', sa.Text(), nullable=True))


def downgrade() -> None:
    for column in ('colours', 'forced_boxes', 'scope'):
        if op.get_bind().dialect.name == 'sqlite':
            op.execute(f'ALTER TABLE machines DROP COLUMN {column}')  # SQLite 3.35 and later
        else:
            op.drop_column('machines', column)
