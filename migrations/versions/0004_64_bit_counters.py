"""64-bit counters: bead counts, game numbers, tallies, corrections and seeds

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 20:30:00.000000

A night of training passes 2**31 games and a bead count can grow as far; a seed is up to 2**63 - 1.
SQLite stores every INTEGER in 64 bits anyway, but PostgreSQL's INTEGER is 32-bit: these columns
become BIGINT. (On SQLite, batch mode copies each table; menace runs migrations with foreign-key
actions off there, so copying a parent table cascades into nothing.)
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = {
    'beads': ('count', 'initial'),
    'game_blocks': ('first_game', 'n_games', 'wins', 'draws', 'losses'),
    'corrections': ('after_game', 'count'),
    'runs': ('seed',),
}
NULLABLE = {('runs', 'seed')}


def _alter(old: sa.types.TypeEngine, new: sa.types.TypeEngine) -> None:
    for table, columns in COLUMNS.items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            for column in columns:
                batch_op.alter_column(column, existing_type=old, type_=new,
                                      existing_nullable=(table, column) in NULLABLE)


def upgrade() -> None:
    _alter(sa.Integer(), sa.BigInteger())


def downgrade() -> None:
    _alter(sa.BigInteger(), sa.Integer())
