"""The machine file: a whole machine as versioned JSON (see menace/docs/machine-file.md).

:func:`export_machine` reads a machine into the file's structure (:func:`export_to_file` streams it
out); :func:`import_file` checks a file completely (format, version, checksum, the boxes its
settings build, and every game replayed against the beads) before it writes anything, in one
transaction, holding one block of the history at a time (:func:`~menace.app.machine_file.read_streamed`).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Generator, Iterable, Iterator
from contextlib import closing, contextmanager
from datetime import datetime
from pathlib import Path
from typing import IO, Any, BinaryIO

from menace.app.database import Database
from menace.app.files import open_for_writing, write_text
from menace.app.machine_file import (
    FORMAT,
    FROZEN_VERSION,
    LEARNING_VERSION,
    MAX_FILE_BYTES,
    VERSION,
    MachineFileError,
    canonical,
    check_machine_content,
    checksum,
    loads,
    mean_outcome_entry,
    read_streamed,
    rule_settings,
)
from menace.core.errors import InternalError
from menace.core.learner import DRAWN, build_boxes
from menace.core.records import CorruptHistoryError, Layout, results_in, unpack_beads, unpack_block_bounded
from menace.core.replay import Replayer, ReplayError
from menace.core.settings import Settings, parse_numbers
from menace.games import find_game
from menace.storage import repository as repo
from menace.storage.database import DatabaseDamagedError
from menace.storage.leases import acquire as acquire_lease
from menace.storage.transfer_repo import (
    BlockDump,
    MachineDump,
    dump_machine,
    history_size,
    load_machine_dump,
    stream_blocks,
)


def _time(t: datetime | None) -> str | None:
    return None if t is None else t.isoformat()


def export_machine(db: Database, name: str) -> dict[str, Any]:
    """The machine as the file's JSON structure (with its checksum)."""
    with db.reading() as s:
        d = dump_machine(s, name)
    body = _body(d, sum(b.n_games for b in d.blocks), [_block_json(b) for b in d.blocks])
    body["checksum"] = checksum(body)
    return body


_BLOCKS = "\u0000the blocks\u0000"
"""Where the blocks go in the file while it is streamed out (no machine file holds this string)."""


def export_to_file(db: Database, name: str, path: Path | str) -> tuple[int, int]:
    """Write the machine file to ``path`` (as :func:`write_machine_file` writes
    :func:`export_machine`'s structure, byte for byte) with the blocks streamed out of the database a
    few at a time and the checksum computed on the way: memory bounded whatever the history's length.
    The boxes and games written.

    Standard output, a pipe or a device, which may stall as long as whoever reads it likes, gets the
    file only once it is whole in a temporary file and the database's snapshot is let go: a stalled
    reader would otherwise keep SQLite from ever resetting its write-ahead log, which then grows with
    every write of everyone else for as long as the reader stalls.
    """
    if not _may_stall(path):
        return _export(db, name, path)
    with tempfile.TemporaryFile(prefix="menace-export-") as spool:  # unnamed where the system allows
        result = _export(db, name, spool)
        spool.seek(0)
        with open_for_writing(path) as f:
            shutil.copyfileobj(spool, f, 1 << 20)
    return result


def _may_stall(path: Path | str) -> bool:
    if str(path) == "-":
        return True
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False  # a new file: said by open_for_writing


def _export(db: Database, name: str, path: Path | str | IO[bytes]) -> tuple[int, int]:
    stream = ExportStream(db, name)
    with closing(stream):
        chunks = iter(stream)
        first = next(chunks)  # the machine is read (or refused) before the file is opened
        with _target(path) as f:
            f.write(first)
            for chunk in chunks:
                f.write(chunk)
    return stream.boxes, stream.games


class ExportStream:
    """The machine file of a machine (the bytes :func:`export_to_file` writes) as chunks: the part
    before the blocks, then a few blocks at a time, the checksum computed on the way. Memory stays
    bounded whatever the history's length (a web download streams these). The database stays open
    while the chunks are taken; :meth:`close` lets it go early. Once the first chunk is taken,
    :attr:`boxes` and :attr:`games` say what the file holds."""

    def __init__(self, db: Database, name: str) -> None:
        self.boxes = 0
        self.games = 0
        self._chunks = self._make(db, name)

    def __iter__(self) -> Iterator[bytes]:
        return self._chunks

    def close(self) -> None:
        self._chunks.close()

    def _make(self, db: Database, name: str) -> Generator[bytes, None, None]:
        with db.reading() as s:
            d = dump_machine(s, name, with_blocks=False)
            n_blocks, games = history_size(s, name)
            self.boxes, self.games = len(d.boxes), games
            if not n_blocks:
                body = _body(d, 0, [])
                body["checksum"] = checksum(body)
                yield (json.dumps(body, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
                return
            body = _body(d, games, [_BLOCKS])
            around = canonical(body).split(canonical(_BLOCKS))
            body["checksum"] = _BLOCKS
            pretty = (json.dumps(body, indent=1, ensure_ascii=False) + "\n").split(json.dumps(_BLOCKS))
            if len(around) != 2 or len(pretty) != 3:  # around the blocks; the checksum in the end
                raise InternalError("the blocks' place in the machine file is not where it is written")
            digest = hashlib.sha256(around[0].encode("ascii"))
            yield pretty[0].encode("utf-8")
            between = ""
            pending: list[bytes] = []
            size = 0
            for b in stream_blocks(s, name, EXPORT_BLOCKS_AT_ONCE):
                j = _block_json(b)
                digest.update((between and ",").encode("ascii") + canonical(j).encode("ascii"))
                pending.append((between + json.dumps(j, indent=1, ensure_ascii=False).replace("\n", "\n   "))
                               .encode("utf-8"))
                size += len(pending[-1])
                between = ",\n   "
                if size >= CHUNK_BYTES:
                    yield b"".join(pending)
                    pending, size = [], 0
            digest.update(around[1].encode("ascii"))
            pending.append((pretty[1] + json.dumps("sha256:" + digest.hexdigest()) + pretty[2]).encode("utf-8"))
            yield b"".join(pending)


CHUNK_BYTES = 64 * 1024
"""About how much of the file an :class:`ExportStream` hands out at a time."""
EXPORT_BLOCKS_AT_ONCE = 8
"""Blocks an :class:`ExportStream` reads at a time: a few concurrent web downloads each hold ~2 MiB
at 1.5M games (64 at a time: ~6 MiB), and a 1.5M-game export is no slower."""


@contextmanager
def _target(path: Path | str | IO[bytes]) -> Iterator[IO[bytes]]:
    if isinstance(path, (str, Path)):
        with open_for_writing(path) as f:
            yield f
    else:
        yield path


def _body(d: MachineDump, games: int, blocks: list[Any]) -> dict[str, Any]:
    """The file's structure around its blocks (given as they are to appear), without its checksum."""
    game = find_game(d.game)
    if any(not 0 <= mv < game.move_count for b in d.boxes for mv, _, _ in b.beads) \
            or any(not 0 <= c.move < game.move_count for c in d.corrections):
        raise DatabaseDamagedError(f"machine {d.name!r} holds beads for moves {game.name} has not; nothing was "
                                   f"exported; run 'menace check' to see what is damaged")
    body: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION if d.rule.get("rule") == "pegasus" else FROZEN_VERSION if any(r.frozen for r in d.runs)
        else LEARNING_VERSION,
        "machine": {
            "name": d.name, "game": d.game, "preset": d.preset, "created_at": _time(d.created_at),
            "colours": d.colours,
            "settings": {
                "side": d.side, "schedule": list(parse_numbers(d.schedule)),
                "reinforcement": {"win": d.reward_win, "draw": d.reward_draw, "loss": d.reward_loss},
                "all_squares": d.all_squares, "symmetry": d.symmetry, "empty_box": d.empty_policy,
                "scope": d.scope, "forced_boxes": d.forced_boxes, **rule_settings(d.rule),
            },
            **mean_outcome_entry(d.rule),
        },
        "boxes": [
            {"number": b.number, "position": b.position, "side": b.side, "move": b.move_number,
             "beads": {game.move_name(mv): {"initial": ini, "count": c} for mv, ini, c in b.beads}}
            for b in d.boxes
        ],
        "history": {
            "games": games,
            "runs": [{"kind": r.kind, "opponent": r.opponent, "seed": r.seed, "started_at": _time(r.started_at),
                      "ended_at": _time(r.ended_at), **({"frozen": True} if r.frozen else {})} for r in d.runs],
            "blocks": blocks,
            "corrections": [{"after_game": c.after_game, "box": c.box_number, "square": game.move_name(c.move),
                             "count": c.count, "reason": c.reason, "created_at": _time(c.created_at)}
                            for c in d.corrections],
        },
    }
    return body


# -- history policy: checkpoints and summarized blocks (format version 2) ---------------------------
def _block_json(b: BlockDump) -> dict[str, Any]:
    out: dict[str, Any] = {"run": b.run, "first_game": b.first_game, "games": b.n_games, "wins": b.wins,
                           "draws": b.draws, "losses": b.losses, "data": base64.b64encode(b.data).decode("ascii")}
    if b.beads is not None:
        out["beads"] = base64.b64encode(b.beads).decode("ascii")
    if not b.kept:
        out["kept"] = False
    return out


def _replay_block(replayer: Replayer, block: BlockDump, layout: Layout, width: int,
                  step: list[int] | None = None, learn: bool = True) -> None:
    """Learn from one block of the file: its games, checked against its checkpoint if it has one; a
    summary is crossed by its checkpoint, which must be within reach of the beads before it: in
    ``n`` games no bead count of box ``i`` moves by more than ``n * step[i]``."""
    if not block.kept:
        if block.beads is None or block.data:
            raise MachineFileError(f"the summary of games {block.first_game} on has no beads, or has games")
        counts = unpack_beads(block.beads, layout, width)
        last = block.first_game + block.n_games - 1
        if any(c < 0 for row in counts for c in row):
            raise MachineFileError(f"the beads after game {last} are negative")
        if step is not None:
            for i, moves in enumerate(layout):
                reach = block.n_games * step[i]
                for mv in moves:
                    if abs(counts[i][mv] - replayer.counts[i][mv]) > reach:
                        raise MachineFileError(
                            f"the beads after game {last:,} could not follow from the {block.n_games:,} games "
                            f"summarized before them: box {i + 1} goes from {replayer.counts[i][mv]:,} to "
                            f"{counts[i][mv]:,} beads of one colour (at most {reach:,} apart)")
        replayer.resume(last, counts)
        return
    # Inflated no further than the block says it holds (a zip bomb stops there), then replayed.
    raw = unpack_block_bounded(block.data, block.n_games)
    tally = [0, 0, 0]
    for side, winner in results_in(raw):
        if side not in (1, 2) or not winner:
            raise CorruptHistoryError(f"a bad game record in the block from game {block.first_game:,}")
        tally[0 if winner == side else 1 if winner == DRAWN else 2] += 1
    # The tally is recomputed from the games, never taken from the file.
    if [block.wins, block.draws, block.losses] != tally:
        raise MachineFileError(
            f"the block from game {block.first_game:,} says {block.wins}/{block.draws}/{block.losses} "
            f"won/drawn/lost, but its games give {tally[0]}/{tally[1]}/{tally[2]}")
    end = replayer.apply_packed(raw, 0, block.n_games, settle_end=False, learn=learn)
    if end != len(raw) or replayer.games != block.first_game + block.n_games - 1:
        raise MachineFileError(f"a block of the history does not hold the {block.n_games} games it says")
    if block.beads is not None and unpack_beads(block.beads, layout, width) != replayer.counts:
        raise MachineFileError(f"the beads after game {replayer.games} do not follow from the history in the file")
    replayer.settle()


def write_machine_file(body: dict[str, Any], path: Path | str) -> None:
    """Write the file safely (:mod:`menace.app.files`): whole or not at all, never through a link."""
    write_text(path, json.dumps(body, indent=1, ensure_ascii=False) + "\n")


def read_machine_file(path: Path) -> dict[str, Any]:
    """The file's whole JSON, read within bounds (:func:`~menace.app.machine_file.loads`), with its
    format, version and checksum checked; the content is checked by :func:`import_machine`. It holds
    the whole file: :func:`import_file` reads it in bounded memory instead."""
    _check_name(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise MachineFileError(f"{path} is {size:,} bytes: too large for a machine file")
        text = path.read_text(encoding="utf-8")  # no copy of the file's bytes beside its text
    except FileNotFoundError:
        raise MachineFileError(f"no file {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MachineFileError(f"{path} cannot be read as a machine file: {exc}") from None
    body = loads(text, str(path))
    del text
    if body.get("checksum") != checksum(body):
        raise MachineFileError(f"{path} is damaged: its checksum does not match its content")
    return body


def _check_name(path: Path) -> None:
    if "\0" in str(path):
        raise MachineFileError(f"{str(path)!r} is not a file name: it holds a NUL character")


def import_file(db: Database, path: Path, rename: str | None = None, replace: bool = False) -> tuple[str, int, int]:
    """``menace import``: the file read in memory bounded by its largest block, whatever its length
    (:func:`~menace.app.machine_file.read_streamed`), then :func:`import_machine`: the blocks are
    read again from the file, one at a time, to be replayed and then to be stored."""
    with _open_machine_file(path) as f:
        return _import(db, read_streamed(f, str(path)), rename, replace)


@contextmanager
def _open_machine_file(path: Path) -> Iterator[BinaryIO]:
    """The file, open for reading from its start as often as the import needs; what cannot be read
    twice (a pipe) is copied into a temporary file first."""
    _check_name(path)
    try:
        f = path.open("rb")
    except FileNotFoundError:
        raise MachineFileError(f"no file {path}") from None
    except OSError as exc:
        raise MachineFileError(f"{path} cannot be read as a machine file: {exc}") from None
    with f:
        try:
            size = os.fstat(f.fileno()).st_size
            if size > MAX_FILE_BYTES:
                raise MachineFileError(f"{path} is {size:,} bytes: too large for a machine file")
            if f.seekable():
                yield f
                return
            with tempfile.TemporaryFile() as copy:
                while chunk := f.read(1 << 20):
                    copy.write(chunk)
                    if copy.tell() > MAX_FILE_BYTES:
                        raise MachineFileError(f"{path} is more than {MAX_FILE_BYTES:,} bytes: too large for a "
                                               f"machine file")
                yield copy
        except OSError as exc:
            raise MachineFileError(f"{path} cannot be read as a machine file: {exc}") from None


def parse_machine_file(data: bytes, label: str = "the file") -> dict[str, Any]:
    """A machine file's bytes read within bounds as :func:`import_file` reads a file
    (:func:`~menace.app.machine_file.read_streamed`: digits, depth, no floats) and checked for
    format, version and checksum; :class:`MachineFileError` naming ``label`` (the file's name)
    otherwise. Its content is checked by :func:`import_machine` (which reads ``history.blocks``
    from ``data`` again, one block at a time)."""
    if len(data) > MAX_FILE_BYTES:
        raise MachineFileError(f"{label} is {len(data):,} bytes: too large for a machine file")
    return read_streamed(io.BytesIO(data), label)


def verify(dump: MachineDump, settings: Settings, blocks: Iterable[BlockDump]) -> None:
    """The boxes are those the settings build, and replaying the history (``blocks``, in the order of
    their games) gives the beads."""
    game = find_game(dump.game)
    expected = build_boxes(game, settings)
    if len(expected) != len(dump.boxes):
        raise MachineFileError(f"the file has {len(dump.boxes)} boxes but its settings build {len(expected)}")
    for exp, b in zip(expected, dump.boxes):
        if (exp.number != b.number or game.encode(exp.position) != b.position or exp.side.name != b.side
                or exp.move_number != b.move_number or {mv: ini for mv, ini, _ in b.beads} != exp.initial):
            raise MachineFileError(f"box {b.number} in the file is not the box its settings build")
    replayer = Replayer(game, settings, expected, dump.corrections)
    layout = replayer.layout()
    # The most one game can change a bead count by: its largest reward, or a refill of the box.
    reward = max(abs(settings.win), abs(settings.draw), abs(settings.loss))
    # (A Pegasus machine's odds may move by any factor in one game: no such bound.)
    step = None if settings.pegasus is not None else [reward + max(box.initial.values(), default=0)
                                                      for box in expected]
    try:
        for block in blocks:
            if block.first_game != replayer.games + 1 or not 0 <= block.run < len(dump.runs):
                raise MachineFileError(f"the history's games are out of order at game {block.first_game}")
            _replay_block(replayer, block, layout, game.move_count, step, not dump.runs[block.run].frozen)
    except (CorruptHistoryError, ReplayError) as exc:
        raise MachineFileError(f"the history is damaged: {exc}") from None
    for i, b in enumerate(dump.boxes):
        if {mv: c for mv, _, c in b.beads} != {mv: replayer.counts[i][mv] for mv, _, _ in b.beads}:
            raise MachineFileError(f"box {b.number}'s beads do not follow from the history in the file")
    mean = replayer.learner.pegasus.mean.state if replayer.learner.pegasus is not None else None
    if settings.keeps_mean and mean != (dump.rule["mean_mu"], dump.rule["mean_sum"], dump.rule["mean_plays"]):
        raise MachineFileError("the refined rule's mean outcome does not follow from the history in the file")


def import_machine(db: Database, body: dict[str, Any], rename: str | None = None,
                   replace: bool = False) -> tuple[str, int, int]:
    """Check the file's content (``body``: :func:`parse_machine_file`'s or :func:`read_machine_file`'s),
    then store the machine in one transaction: (name, boxes, games)."""
    return _import(db, body, rename, replace)


def _import(db: Database, body: dict[str, Any], rename: str | None, replace: bool) -> tuple[str, int, int]:
    """:func:`import_machine`: the history's blocks are read twice, one at a time: checked and replayed
    (nothing is written before the last is), then stored."""
    dump, settings, blocks = check_machine_content(body, rename)  # the strict schema, before anything else
    verify(dump, settings, blocks)
    db.creating()
    with db.writing() as s:
        if dump.name in repo.machine_names(s):
            if not replace:
                raise repo.MachineExistsError(f"a machine named {dump.name!r} exists")
            acquire_lease(s, repo.machine_id(s, dump.name), dump.name, "an import replacing it")
            repo.delete_machine(s, dump.name)
        load_machine_dump(s, dump, blocks)
    return dump.name, len(dump.boxes), blocks.games


