"""runs played without learning (a frozen machine)

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-06 01:30:00

A run may be ``frozen``: the machine played its games without learning from them (a teacher shows
that a trained machine has stopped learning; a researcher measures a machine without changing it).
Its games are stored like any others, and a replay follows them without reinforcing. Every run so
far learnt: the column starts false.

A downgrade keeps the frozen runs' marks aside (the run's id, machine, and when it started), since
an older menace would read their games as learnt. The upgrade puts a mark back only on a run that is
still the same one (same id, machine and start), never on a run an older menace made meanwhile.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from menace.migrations.archive import stash_rows, take_rows

revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ARCHIVE_KEY = 'runs:0007'
"""Where a downgrade keeps the frozen runs' marks, so that going back up loses nothing."""

runs = sa.table('runs', sa.column('id', sa.Integer), sa.column('machine_id', sa.Integer),
                sa.column('started_at', sa.DateTime), sa.column('frozen', sa.Boolean))


# Plain ALTER TABLE, not a batch: a batch copies the table on SQLite (see 0003).
def upgrade() -> None:
    op.add_column('runs', sa.Column('frozen', sa.Boolean(), nullable=False, server_default=sa.false()))
    rows = take_rows(ARCHIVE_KEY)
    if not rows:
        return
    bind = op.get_bind()
    now = {i: (m, started) for i, m, started in bind.execute(
        sa.select(runs.c.id, runs.c.machine_id, runs.c.started_at))}
    same = [row['id'] for row in rows if now.get(row['id']) == (row['machine_id'], row['started_at'])]
    if same:
        bind.execute(sa.update(runs).where(runs.c.id.in_(same)).values(frozen=True))


def downgrade() -> None:
    bind = op.get_bind()
    kept = [dict(r._mapping) for r in bind.execute(
        sa.select(runs.c.id, runs.c.machine_id, runs.c.started_at).where(runs.c.frozen == sa.true()))]
    stash_rows(ARCHIVE_KEY, kept)
    if bind.dialect.name == 'sqlite':
        op.execute('ALTER TABLE runs DROP COLUMN frozen')  # SQLite 3.35 and later
    else:
        op.drop_column('runs', 'frozen')
