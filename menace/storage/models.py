"""The database schema as SQLAlchemy 2 typed ORM models. Alembic migrations create it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, LargeBinary, MetaData, String, Text, UniqueConstraint, false, true
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class MachineRow(Base):
    """A MENACE machine: its name and the settings it was built with."""

    __tablename__ = "machines"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    game: Mapped[str] = mapped_column(String(32))
    side: Mapped[str] = mapped_column(String(4))
    schedule: Mapped[str] = mapped_column(String(64))
    reward_win: Mapped[int]
    reward_draw: Mapped[int]
    reward_loss: Mapped[int]
    all_squares: Mapped[bool]
    symmetry: Mapped[bool]
    empty_policy: Mapped[str] = mapped_column(String(16))
    preset: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime]
    scope: Mapped[str] = mapped_column(String(8), server_default="every")
    """Which beads a result reinforces: ``every`` bead drawn (Michie) or the ``last`` (Gardner)."""
    forced_boxes: Mapped[bool] = mapped_column(server_default=false())
    """Boxes also for positions with one legal move."""
    colours: Mapped[str | None] = mapped_column(Text)
    """The builder's bead colours as given to ``--colours``; None: the standard set."""

    boxes: Mapped[list[BoxRow]] = relationship(
        back_populates="machine", cascade="all, delete-orphan", passive_deletes=True,
        order_by="BoxRow.number",
    )


class BoxRow(Base):
    """A matchbox: a position where MENACE is to move, with a stable number 1..N."""

    __tablename__ = "boxes"
    __table_args__ = (
        UniqueConstraint("machine_id", "number"),
        UniqueConstraint("machine_id", "position"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id", ondelete="CASCADE"))
    number: Mapped[int]
    position: Mapped[str] = mapped_column(String(16))
    side: Mapped[str] = mapped_column(String(1))
    move_number: Mapped[int]

    machine: Mapped[MachineRow] = relationship(back_populates="boxes")
    beads: Mapped[list[BeadRow]] = relationship(
        back_populates="box", cascade="all, delete-orphan", passive_deletes=True,
        order_by="BeadRow.move",
    )


class BeadRow(Base):
    """One bead colour in a box: the move it stands for (in the box's frame) and how many."""

    __tablename__ = "beads"

    box_id: Mapped[int] = mapped_column(ForeignKey("boxes.id", ondelete="CASCADE"), primary_key=True)
    move: Mapped[int] = mapped_column(primary_key=True)
    count: Mapped[int] = mapped_column(BigInteger)
    initial: Mapped[int] = mapped_column(BigInteger)

    box: Mapped[BoxRow] = relationship(back_populates="beads")


class RunRow(Base):
    """A session of games: a tournament, a game at the terminal, an operated game, ..."""

    __tablename__ = "runs"

    id: Mapped[int] = mapped_column(primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    opponent: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int | None] = mapped_column(BigInteger)
    started_at: Mapped[datetime]
    ended_at: Mapped[datetime | None]


class GameBlockRow(Base):
    """Consecutive games of one run, packed (see :mod:`menace.core.records`).

    Games are numbered per machine from 1; a block holds games ``first_game`` to
    ``first_game + n_games - 1``. Tournaments write one block per batch, so a million games
    take a few megabytes; a game at the terminal is a block of one.
    """

    __tablename__ = "game_blocks"
    __table_args__ = (Index("ix_game_blocks_machine_first", "machine_id", "first_game", unique=True),)

    id: Mapped[int] = mapped_column(primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id", ondelete="CASCADE"))
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    first_game: Mapped[int] = mapped_column(BigInteger)
    n_games: Mapped[int] = mapped_column(BigInteger)
    wins: Mapped[int] = mapped_column(BigInteger)
    draws: Mapped[int] = mapped_column(BigInteger)
    losses: Mapped[int] = mapped_column(BigInteger)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    """The games, packed; empty when the block is a summary (``kept`` false)."""
    beads: Mapped[bytes | None] = mapped_column(LargeBinary)
    """A checkpoint: every box's beads after the block's last game (packed, see
    :func:`menace.core.records.pack_beads`), before corrections made after that game."""
    kept: Mapped[bool] = mapped_column(server_default=true())
    """Every game is stored; false: only the tally and the checkpoint (see the history policy)."""
    digest: Mapped[str | None] = mapped_column(String(64))
    """The running checksum of the history up to this block, set when ``check`` verified it."""


class CorrectionRow(Base):
    """A bead count set by hand so the database follows the real machine (``reconcile``,
    an operator's correction). It takes effect after game ``after_game`` of the history."""

    __tablename__ = "corrections"

    id: Mapped[int] = mapped_column(primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id", ondelete="CASCADE"), index=True)
    after_game: Mapped[int] = mapped_column(BigInteger)
    box_id: Mapped[int] = mapped_column(ForeignKey("boxes.id", ondelete="CASCADE"))
    move: Mapped[int]
    count: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime]


class MachineLockRow(Base):
    """Who is writing to a machine now (a tournament, a game at the terminal, ...)."""

    __tablename__ = "machine_locks"

    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id", ondelete="CASCADE"), primary_key=True)
    holder: Mapped[str] = mapped_column(String(200))
    host: Mapped[str] = mapped_column(String(200))
    pid: Mapped[int]
    acquired_at: Mapped[datetime]
    heartbeat_at: Mapped[datetime]
