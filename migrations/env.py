"""Alembic environment: menace runs migrations itself, passing one connection in."""

from __future__ import annotations

from alembic import context

from menace.storage.database import make_engine
from menace.storage.models import metadata

config = context.config
target_metadata = metadata


def run_migrations_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is None:
        url = config.get_main_option("sqlalchemy.url")
        if not url:
            raise RuntimeError("no connection passed and no sqlalchemy.url set")
        engine = make_engine(url)
        try:
            with engine.begin() as conn:
                context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
                context.run_migrations()
        finally:
            engine.dispose()
        return
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
