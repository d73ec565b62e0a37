"""the Pegasus rule's odds and parameters, and runs played without learning

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02 15:40:00

A machine learns by Michie's bead rule (``rule`` 'michie', every machine so far) or by the rule of
Michie and Martin's Pegasus 2 program (``rule`` 'pegasus'): its parameters in ``rule_params``, the
refined rule's memory in ``memory``, and every box's odds in ``odds``, one exact text per move
("level log", two fractions: the move's weight is M_1**level * A**log). A run may be ``frozen``:
its games are stored, but the machine did not learn from them.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('machines', sa.Column('rule', sa.String(length=16), nullable=False, server_default='michie'))
    op.add_column('machines', sa.Column('rule_params', sa.Text(), nullable=True))
    op.add_column('machines', sa.Column('memory', sa.Text(), nullable=True))
    op.add_column('runs', sa.Column('frozen', sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table(
        'odds',
        sa.Column('box_id', sa.Integer(), nullable=False),
        sa.Column('move', sa.Integer(), nullable=False),
        sa.Column('value', sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(['box_id'], ['boxes.id'], name=op.f('fk_odds_box_id_boxes'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('box_id', 'move', name=op.f('pk_odds')),
    )


def downgrade() -> None:
    bind = op.get_bind()
    pegasus = bind.execute(sa.text("SELECT count(*) FROM machines WHERE rule <> 'michie'")).scalar_one()
    if pegasus:
        raise RuntimeError(f"{pegasus} machine(s) learn by the Pegasus rule, which the older schema cannot hold; "
                           "export and remove them first")
    op.drop_table('odds')
    for table, column in (('runs', 'frozen'), ('machines', 'memory'), ('machines', 'rule_params'),
                          ('machines', 'rule')):
        if bind.dialect.name == 'sqlite':
            op.execute(f'ALTER TABLE {table} DROP COLUMN {column}')  # SQLite 3.35 and later
        else:
            op.drop_column(table, column)
