"""The database schema as SQLAlchemy Core tables on one :data:`metadata`. Alembic migrations create it.

Core, not the ORM: every query is a Core statement already, and ``sqlalchemy.orm`` alone costs a
command about 60 ms of start-up (``tests/test_startup.py`` checks that no command imports it).
A row read back is a :class:`sqlalchemy.Row`, its columns by name (``row.name``, ``row.side``).
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    true,
)

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING_CONVENTION)
"""Every table of menace's schema (Alembic's ``target_metadata``)."""


machine_table = Table(
    "machines", metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("game", String(32), nullable=False),
    Column("side", String(4), nullable=False),
    Column("schedule", String(64), nullable=False),
    Column("reward_win", Integer, nullable=False),
    Column("reward_draw", Integer, nullable=False),
    Column("reward_loss", Integer, nullable=False),
    Column("all_squares", Boolean, nullable=False),
    Column("symmetry", Boolean, nullable=False),
    Column("empty_policy", String(16), nullable=False),
    Column("preset", String(32)),
    Column("created_at", DateTime, nullable=False),
    Column("scope", String(8), nullable=False, server_default="every",
           doc="Which beads a result reinforces: ``every`` bead drawn (Michie) or the ``last`` (Gardner)."),
    Column("forced_boxes", Boolean, nullable=False, server_default=false(),
           doc="Boxes also for positions with one legal move."),
    Column("colours", Text, doc="The builder's bead colours as given to ``--colours``; None: the standard set."),
    Column("rule", String(8), nullable=False, server_default="michie",
           doc="``michie`` (beads) or ``pegasus`` (odds kept as weights in the beads' counts)."),
    Column("pegasus_a", Float, doc="The Pegasus rule's A in M_n = A^(B^(8-n))."),
    Column("pegasus_b", Float, doc="The Pegasus rule's B."),
    Column("refinement", String(8), doc="Table 3's refined rule: none, hundred or per-play."),
    Column("decay", Float, doc="The refined rule's decay D over a hundred plays."),
    Column("mean_mu", Float, doc="The refined rule's mean outcome after the machine's last stored game."),
    Column("mean_sum", BigInteger, doc="Outcomes summed in the hundred of plays under way."),
    Column("mean_plays", Integer, doc="Plays in the hundred under way."),
)
"""A MENACE machine: its name and the settings it was built with."""

box_table = Table(
    "boxes", metadata,
    Column("id", Integer, primary_key=True),
    Column("machine_id", Integer, ForeignKey("machines.id", ondelete="CASCADE"), nullable=False),
    Column("number", Integer, nullable=False),
    Column("position", String(16), nullable=False),
    Column("side", String(1), nullable=False),
    Column("move_number", Integer, nullable=False),
    UniqueConstraint("machine_id", "number"),
    UniqueConstraint("machine_id", "position"),
)
"""A matchbox: a position where MENACE is to move, with a stable number 1..N."""

bead_table = Table(
    "beads", metadata,
    Column("box_id", Integer, ForeignKey("boxes.id", ondelete="CASCADE"), primary_key=True),
    Column("move", Integer, primary_key=True),
    Column("count", BigInteger, nullable=False),
    Column("initial", BigInteger, nullable=False),
)
"""One bead colour in a box: the move it stands for (in the box's frame) and how many."""

run_table = Table(
    "runs", metadata,
    Column("id", Integer, primary_key=True),
    Column("machine_id", Integer, ForeignKey("machines.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("kind", String(16), nullable=False),
    Column("opponent", String(64), nullable=False),
    Column("seed", BigInteger),
    Column("started_at", DateTime, nullable=False),
    Column("ended_at", DateTime),
    Column("frozen", Boolean, nullable=False, server_default=false(),
           doc="The machine played the run's games without learning: stored, but they changed no bead."),
)
"""A session of games: a tournament, a game at the terminal, an operated game, ..."""

block_table = Table(
    "game_blocks", metadata,
    Column("id", Integer, primary_key=True),
    Column("machine_id", Integer, ForeignKey("machines.id", ondelete="CASCADE"), nullable=False),
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("first_game", BigInteger, nullable=False),
    Column("n_games", BigInteger, nullable=False),
    Column("wins", BigInteger, nullable=False),
    Column("draws", BigInteger, nullable=False),
    Column("losses", BigInteger, nullable=False),
    Column("data", LargeBinary, nullable=False,
           doc="The games, packed; empty when the block is a summary (``kept`` false)."),
    Column("beads", LargeBinary,
           doc="A checkpoint: every box's beads after the block's last game (packed, see "
               ":func:`menace.core.records.pack_beads`), before corrections made after that game."),
    Column("kept", Boolean, nullable=False, server_default=true(),
           doc="Every game is stored; false: only the tally and the checkpoint (see the history policy)."),
    Column("digest", String(64),
           doc="The running checksum of the history up to this block, set when ``check`` verified it."),
    Index("ix_game_blocks_machine_first", "machine_id", "first_game", unique=True),
)
"""Consecutive games of one run, packed (see :mod:`menace.core.records`).

Games are numbered per machine from 1; a block holds games ``first_game`` to
``first_game + n_games - 1``. Tournaments write one block per batch, so a million games
take a few megabytes; a game at the terminal is a block of one.
"""

block_result_table = Table(
    "block_results", metadata,
    Column("block_id", Integer, ForeignKey("game_blocks.id", ondelete="CASCADE"), primary_key=True),
    Column("results", LargeBinary, nullable=False,
           doc="The block's games' results from MENACE's side, a bit per game for the wins, then one for the "
               "draws (see :func:`menace.core.records.result_planes`)."),
)
"""What the learning curve counts instead of reading a block's games: a row per block that keeps its
games (a summary has none). A table of its own, not a column of the block's: SQLite stores a row's
columns one after the other, and a column after the games' bytes is reached only through all of them."""

correction_table = Table(
    "corrections", metadata,
    Column("id", Integer, primary_key=True),
    Column("machine_id", Integer, ForeignKey("machines.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("after_game", BigInteger, nullable=False),
    Column("box_id", Integer, ForeignKey("boxes.id", ondelete="CASCADE"), nullable=False),
    Column("move", Integer, nullable=False),
    Column("count", BigInteger, nullable=False),
    Column("reason", String(200), nullable=False),
    Column("created_at", DateTime, nullable=False),
)
"""A bead count set by hand so the database follows the real machine (``reconcile``, an operator's
correction). It takes effect after game ``after_game`` of the history."""

lock_table = Table(
    "machine_locks", metadata,
    Column("machine_id", Integer, ForeignKey("machines.id", ondelete="CASCADE"), primary_key=True),
    Column("holder", String(200), nullable=False),
    Column("host", String(200), nullable=False),
    Column("pid", Integer, nullable=False),
    Column("acquired_at", DateTime, nullable=False),
    Column("heartbeat_at", DateTime, nullable=False),
    Column("token", String(64), nullable=False, server_default="",
           doc="A random id the holder drew when it took the lease: what it proves at every write."),
    Column("place", String(200), nullable=False, server_default="",
           doc="Where the holder's process runs (the host's boot and pid namespace): its pid means "
               "something only there."),
)
"""Who is writing to a machine now (a tournament, a game at the terminal, ...). Its times are the
database's clock, never a host's."""
