"""lease holders named by a random id and the place their process runs

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02 15:30:00

Host name and pid did not tell holders apart: two hosts may share a name, and a process in another
pid namespace has a pid this one cannot see. ``token`` is a random id each holder draws when it takes
a lease (the fencing token it proves at every write); ``place`` names the host's boot and pid
namespace, so that a holder's process is looked for only where it runs. A lease taken before this
revision has neither: it runs out by its heartbeat.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = ('token', 'place')


# Plain ALTER TABLE, not a batch: a batch copies the table on SQLite (see 0003).
def upgrade() -> None:
    op.add_column('machine_locks', sa.Column('token', sa.String(length=64), nullable=False, server_default=''))
    op.add_column('machine_locks', sa.Column('place', sa.String(length=200), nullable=False, server_default=''))


def downgrade() -> None:
    # A lease lasts seconds: nothing of these columns is kept aside (a live holder's next write is
    # refused, as its token is gone, and it stores nothing more).
    bind = op.get_bind()
    for column in reversed(COLUMNS):
        if bind.dialect.name == 'sqlite':
            op.execute(f'ALTER TABLE machine_locks DROP COLUMN {column}')  # SQLite 3.35 and later
        else:
            op.drop_column('machine_locks', column)
