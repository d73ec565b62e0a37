"""the Pegasus program's learning rule (odds per move) stored with a machine

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06 03:20:00

A machine may learn by the rule of Michie and Martin's program for the Ferranti Pegasus 2 (The
Computer Journal 6(3), 1963) instead of by beads: ``rule`` is ``michie`` (beads, every machine so far)
or ``pegasus``. A Pegasus machine keeps, per move of a box, a whole-number weight in the beads' own
``count`` column (a move's chance is its weight over the box's total: see menace.core.pegasus), and
its parameters here: A and B of ``M_n = A^(B^(8-n))``, the refinement of the paper's Table 3 and its
decay D, and the refined rule's mean outcome as it stands (``mean_mu``, and the outcomes summed in
the hundred of plays under way with their number).

A downgrade keeps the Pegasus machines' rule aside, since an older menace would read their weights as
bead counts. Going back up puts it back only on a machine that is still the same one (the archive
keeps when it was made), never on one an older menace made.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from menace.migrations.archive import stash_rows, take_rows

revision: str = '0008'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ARCHIVE_KEY = 'machines:0008'
"""Where a downgrade keeps the Pegasus machines' rule, so that going back up loses nothing."""

RULE_COLUMNS = ('rule', 'pegasus_a', 'pegasus_b', 'refinement', 'decay', 'mean_mu', 'mean_sum', 'mean_plays')

machines = sa.table(
    'machines', sa.column('id', sa.Integer),
    sa.column('rule', sa.String), sa.column('pegasus_a', sa.Float), sa.column('pegasus_b', sa.Float),
    sa.column('refinement', sa.String), sa.column('decay', sa.Float), sa.column('mean_mu', sa.Float),
    sa.column('mean_sum', sa.BigInteger), sa.column('mean_plays', sa.Integer),
)


# Plain ALTER TABLE, not a batch: a batch copies the table on SQLite (see 0003).
def upgrade() -> None:
    op.add_column('machines', sa.Column('rule', sa.String(8), nullable=False, server_default='michie'))
    op.add_column('machines', sa.Column('pegasus_a', sa.Float()))
    op.add_column('machines', sa.Column('pegasus_b', sa.Float()))
    op.add_column('machines', sa.Column('refinement', sa.String(8)))
    op.add_column('machines', sa.Column('decay', sa.Float()))
    op.add_column('machines', sa.Column('mean_mu', sa.Float()))
    op.add_column('machines', sa.Column('mean_sum', sa.BigInteger()))
    op.add_column('machines', sa.Column('mean_plays', sa.Integer()))
    rows = take_rows(ARCHIVE_KEY)
    if not rows:
        return
    bind = op.get_bind()
    for row in rows:  # take_rows leaves out machines deleted or replaced meanwhile
        bind.execute(sa.update(machines).where(machines.c.id == row['machine_id'])
                     .values({c: row[c] for c in RULE_COLUMNS}))


def downgrade() -> None:
    bind = op.get_bind()
    kept = [dict(r._mapping) for r in bind.execute(
        sa.select(machines.c.id.label('machine_id'), *(machines.c[c] for c in RULE_COLUMNS))
        .where(machines.c.rule != 'michie'))]
    stash_rows(ARCHIVE_KEY, kept)
    for column in reversed(RULE_COLUMNS):
        if bind.dialect.name == 'sqlite':
            op.execute(f'ALTER TABLE machines DROP COLUMN {column}')  # SQLite 3.35 and later
        else:
            op.drop_column('machines', column)
