"""Keeping data through a downgrade: a migration's downgrade stashes the rows of the tables it
drops, and the upgrade that recreates them puts the rows back.

Going down to an older schema and up again therefore loses nothing (``menace export`` before and
after gives the same file). While rows wait, they sit as JSON in one table,
``menace_archive``; the upgrade that empties it drops it again.

This module belongs to the migrations, beside them, and nothing else in menace imports it: the
migrations are history, so what they run must not change when the live code does. Treat it as
frozen: a migration that needs other behaviour gets a new function here (or its own code), never a
changed one.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

ARCHIVE = "menace_archive"
"""The table where rows wait, named here as every release has named it (the live code that looks for
it, ``menace.storage.database.ARCHIVE_TABLE``, says the same: a test holds the two together)."""


def _archive_table(bind: sa.engine.Connection) -> sa.Table:
    meta = sa.MetaData()
    table = sa.Table(
        ARCHIVE, meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("table_name", sa.String(64), nullable=False),
        sa.Column("rows", sa.Text, nullable=False),
    )
    meta.create_all(bind, checkfirst=True)
    return table


def _encode(value: Any) -> Any:
    if isinstance(value, datetime):
        return {"datetime": value.isoformat()}
    if isinstance(value, bytes):
        return {"bytes": base64.b64encode(value).decode("ascii")}
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and "datetime" in value:
        return datetime.fromisoformat(value["datetime"])
    if isinstance(value, dict) and "bytes" in value:
        return base64.b64decode(value["bytes"])
    return value


BORN = "_machine_born"
"""A kept row's extra key: when its machine was made, so that a machine replaced while the rows
waited (an older menace's ``init --replace`` reuses the ids) does not get the old one's rows."""


def machine_births(bind: sa.engine.Connection) -> dict[int, str]:
    """Every machine's id and when it was made (as text), the identity of a machine over time."""
    if not sa.inspect(bind).has_table("machines"):
        return {}
    return {int(i): str(born) for i, born in bind.execute(sa.text("SELECT id, created_at FROM machines"))}


def _with_birth(row: dict[str, Any], births: dict[int, str]) -> dict[str, Any]:
    if "machine_id" in row and row["machine_id"] in births:
        return {**row, BORN: births[row["machine_id"]]}
    return row


def _still_there(row: dict[str, Any], births: dict[int, str]) -> bool:
    """Whether a kept row's machine is still the one it belonged to (rows of a machine deleted
    or replaced meanwhile are dropped, as deleting the machine would have dropped them)."""
    if "machine_id" not in row:
        return True
    born = births.get(row["machine_id"])
    return born is not None and row.get(BORN, born) == born


def _orphan_filter(bind: sa.engine.Connection, table: sa.Table) -> Callable[[dict[str, Any]], bool]:
    """Whether a row's parent rows all exist (read once per foreign key, not once per row)."""
    keys = []
    for fk in table.foreign_key_constraints:
        cols = [e.parent.name for e in fk.elements]
        refs = [fk.referred_table.c[e.column.name] for e in fk.elements]
        keys.append((cols, {tuple(r) for r in bind.execute(sa.select(*refs))}))
    return lambda row: all(tuple(row[c] for c in cols) in have for cols, have in keys)


def stash(*tables: str) -> None:
    """Before dropping ``tables``: keep their rows in the archive."""
    bind = op.get_bind()
    archive = _archive_table(bind)
    births = machine_births(bind)
    for name in tables:
        table = sa.Table(name, sa.MetaData(), autoload_with=bind)
        rows = [{k: _encode(v) for k, v in _with_birth(dict(row._mapping), births).items()}
                for row in bind.execute(sa.select(table))]
        if rows:
            bind.execute(sa.insert(archive).values(table_name=name, rows=json.dumps(rows)))


def _advance_sequences(bind: sa.engine.Connection, table: sa.Table) -> None:
    """Rows put back keep their ids; a PostgreSQL sequence does not see them, so move it past
    them (else the next new row would get an id already taken). SQLite needs nothing."""
    if bind.dialect.name != "postgresql":
        return
    for column in table.primary_key.columns:
        if column.autoincrement is True or (column.autoincrement == "auto" and len(table.primary_key.columns) == 1
                                            and isinstance(column.type, sa.Integer)):
            bind.execute(sa.text(
                f"SELECT setval(pg_get_serial_sequence(:table, :column), coalesce(max({column.name}), 0) + 1, false) "
                f"FROM {table.name}"
            ), {"table": table.name, "column": column.name})


def restore(*tables: str) -> None:
    """After creating ``tables`` again: put back the rows a downgrade kept, parents first.

    A row whose machine was deleted or replaced while it waited (by an older menace, at the older
    schema) is dropped, as are rows whose parent rows are gone: deleting the machine would have
    deleted them (every foreign key cascades).
    """
    bind = op.get_bind()
    if not sa.inspect(bind).has_table(ARCHIVE):
        return
    archive = _archive_table(bind)
    for name in tables:
        table = sa.Table(name, sa.MetaData(), autoload_with=bind)
        births = machine_births(bind)  # machines put back just before count too
        for row_id, text in bind.execute(
            sa.select(archive.c.id, archive.c.rows).where(archive.c.table_name == name).order_by(archive.c.id)
        ).all():
            rows = [{k: _decode(v) for k, v in r.items() if k != BORN} for r in json.loads(text)
                    if _still_there(r, births)]
            rows = list(filter(_orphan_filter(bind, table), rows))
            if rows:
                bind.execute(sa.insert(table), rows)
            bind.execute(sa.delete(archive).where(archive.c.id == row_id))
        _advance_sequences(bind, table)
    if bind.execute(sa.select(sa.func.count()).select_from(archive)).scalar() == 0:
        op.drop_table(ARCHIVE)


def stash_rows(key: str, rows: list[dict[str, Any]]) -> None:
    """Keep ``rows`` (values of columns a downgrade drops) in the archive under ``key``.

    A row with a ``machine_id`` also keeps when its machine was made (see :func:`take_rows`).
    """
    if rows:
        bind = op.get_bind()
        archive = _archive_table(bind)
        births = machine_births(bind)
        bind.execute(sa.insert(archive).values(table_name=key, rows=json.dumps(
            [{k: _encode(v) for k, v in _with_birth(r, births).items()} for r in rows])))


def take_rows(key: str) -> list[dict[str, Any]]:
    """The rows :func:`stash_rows` kept under ``key``, taken out of the archive (dropped when empty).

    Rows of a machine that was deleted or replaced meanwhile are left out.
    """
    bind = op.get_bind()
    if not sa.inspect(bind).has_table(ARCHIVE):
        return []
    archive = _archive_table(bind)
    births = machine_births(bind)
    out: list[dict[str, Any]] = []
    for row_id, text in bind.execute(
        sa.select(archive.c.id, archive.c.rows).where(archive.c.table_name == key).order_by(archive.c.id)
    ).all():
        out.extend({k: _decode(v) for k, v in r.items() if k != BORN} for r in json.loads(text)
                   if _still_there(r, births))
        bind.execute(sa.delete(archive).where(archive.c.id == row_id))
    if bind.execute(sa.select(sa.func.count()).select_from(archive)).scalar() == 0:
        op.drop_table(ARCHIVE)
    return out
