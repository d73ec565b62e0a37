"""The machine file: a whole machine as versioned JSON (see docs/machine-file.md).

:func:`export_machine` reads a machine into the file's structure; :func:`import_machine`
checks a file completely (format, version, checksum, the boxes its settings build, and every
game replayed against the beads) before it writes anything, in one transaction.
"""

from __future__ import annotations

import base64
import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import Any

from menace.app.files import write_text
from menace.app.machine_file import (
    FORMAT,
    MAX_FILE_BYTES,
    VERSION,
    MachineFileError,
    check_machine_content,
    loads,
)
from menace.core.learner import DRAWN, Settings, build_boxes, parse_numbers
from menace.core.records import CorruptHistoryError, Layout, results_in, unpack_beads, unpack_block_bounded
from menace.core.replay import Replayer, ReplayError
from menace.games import find_game
from menace.storage import repository as repo
from menace.storage.database import DatabaseDamagedError, open_database, session_scope
from menace.storage.leases import acquire as acquire_lease
from menace.storage.transfer_repo import (
    BlockDump,
    MachineDump,
    dump_machine,
    load_machine_dump,
)


def _time(t: datetime | None) -> str | None:
    return None if t is None else t.isoformat()


def export_machine(url: str, name: str) -> dict[str, Any]:
    """The machine as the file's JSON structure (with its checksum)."""
    db = open_database(url)
    try:
        with session_scope(db) as s:
            d = dump_machine(s, name)
    finally:
        db.dispose()
    game = find_game(d.game)
    if any(not 0 <= mv < game.move_count for b in d.boxes for mv, _, _ in b.beads) \
            or any(not 0 <= c.move < game.move_count for c in d.corrections):
        raise DatabaseDamagedError(f"machine {name!r} holds beads for moves {game.name} has not; nothing was "
                                   f"exported; run 'menace check' to see what is damaged")
    body: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "machine": {
            "name": d.name, "game": d.game, "preset": d.preset, "created_at": _time(d.created_at),
            "colours": d.colours,
            "settings": {
                "side": d.side, "schedule": list(parse_numbers(d.schedule)),
                "reinforcement": {"win": d.reward_win, "draw": d.reward_draw, "loss": d.reward_loss},
                "all_squares": d.all_squares, "symmetry": d.symmetry, "empty_box": d.empty_policy,
                "scope": d.scope, "forced_boxes": d.forced_boxes,
            },
        },
        "boxes": [
            {"number": b.number, "position": b.position, "side": b.side, "move": b.move_number,
             "beads": {game.move_name(mv): {"initial": ini, "count": c} for mv, ini, c in b.beads}}
            for b in d.boxes
        ],
        "history": {
            "games": sum(b.n_games for b in d.blocks),
            "runs": [{"kind": r.kind, "opponent": r.opponent, "seed": r.seed, "started_at": _time(r.started_at),
                      "ended_at": _time(r.ended_at)} for r in d.runs],
            "blocks": [_block_json(b) for b in d.blocks],
            "corrections": [{"after_game": c.after_game, "box": c.box_number, "square": game.move_name(c.move),
                             "count": c.count, "reason": c.reason, "created_at": _time(c.created_at)}
                            for c in d.corrections],
        },
    }
    body["checksum"] = checksum(body)
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


def _replay_block(replayer: Replayer, block: BlockDump, layout: Layout, width: int) -> None:
    """Learn from one block of the file: its games, checked against its checkpoint if it has one; a
    summary is crossed by its checkpoint."""
    if not block.kept:
        if block.beads is None or block.data:
            raise MachineFileError(f"the summary of games {block.first_game} on has no beads, or has games")
        counts = unpack_beads(block.beads, layout, width)
        if any(c < 0 for row in counts for c in row):
            raise MachineFileError(f"the beads after game {block.first_game + block.n_games - 1} are negative")
        replayer.resume(block.first_game + block.n_games - 1, counts)
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
    end = replayer.apply_packed(raw, 0, block.n_games, settle_end=False)
    if end != len(raw) or replayer.games != block.first_game + block.n_games - 1:
        raise MachineFileError(f"a block of the history does not hold the {block.n_games} games it says")
    if block.beads is not None and unpack_beads(block.beads, layout, width) != replayer.counts:
        raise MachineFileError(f"the beads after game {replayer.games} do not follow from the history in the file")
    replayer.settle()


def checksum(body: dict[str, Any]) -> str:
    content = {k: v for k, v in body.items() if k != "checksum"}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


def write_machine_file(body: dict[str, Any], path: Path | str) -> None:
    """Write the file safely (:mod:`menace.app.files`): whole or not at all, never through a link."""
    write_text(path, json.dumps(body, indent=1, ensure_ascii=False) + "\n")


def read_machine_file(path: Path) -> dict[str, Any]:
    """The file's JSON, read within bounds, with its format, version and checksum checked (see
    :func:`parse_machine_file`); the content is checked by :func:`import_machine`."""
    if "\0" in str(path):
        raise MachineFileError(f"{str(path)!r} is not a file name: it holds a NUL character")
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise MachineFileError(f"{path} is {size:,} bytes: too large for a machine file")
        data = path.read_bytes()
    except FileNotFoundError:
        raise MachineFileError(f"no file {path}") from None
    except OSError as exc:
        raise MachineFileError(f"{path} cannot be read as a machine file: {exc}") from None
    return parse_machine_file(data, str(path))


def parse_machine_file(data: bytes, label: str = "the file") -> dict[str, Any]:
    """A machine file's bytes read within bounds (:func:`~menace.app.machine_file.loads`: digits,
    depth, no floats) and checked for format, version and checksum; :class:`MachineFileError`
    naming ``label`` (the file's name) otherwise. Its content is checked by :func:`import_machine`."""
    if len(data) > MAX_FILE_BYTES:
        raise MachineFileError(f"{label} is {len(data):,} bytes: too large for a machine file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MachineFileError(f"{label} cannot be read as a machine file: {exc}") from None
    body = loads(text, label)
    if body.get("checksum") != checksum(body):
        raise MachineFileError(f"{label} is damaged: its checksum does not match its content")
    return body


def verify(dump: MachineDump, settings: Settings) -> None:
    """The boxes are those the settings build, and replaying the history gives the beads."""
    game = find_game(dump.game)
    expected = build_boxes(game, settings)
    if len(expected) != len(dump.boxes):
        raise MachineFileError(f"the file has {len(dump.boxes)} boxes but its settings build {len(expected)}")
    for exp, b in zip(expected, dump.boxes):
        if (exp.number != b.number or game.encode(exp.position) != b.position or exp.side.name != b.side
                or {mv: ini for mv, ini, _ in b.beads} != exp.initial):
            raise MachineFileError(f"box {b.number} in the file is not the box its settings build")
    replayer = Replayer(game, settings, expected, dump.corrections)
    layout = replayer.layout()
    try:
        for block in sorted(dump.blocks, key=lambda b: b.first_game):
            if block.first_game != replayer.games + 1 or not 0 <= block.run < len(dump.runs):
                raise MachineFileError(f"the history's games are out of order at game {block.first_game}")
            _replay_block(replayer, block, layout, game.move_count)
    except (CorruptHistoryError, ReplayError) as exc:
        raise MachineFileError(f"the history is damaged: {exc}") from None
    for i, b in enumerate(dump.boxes):
        if {mv: c for mv, _, c in b.beads} != {mv: replayer.counts[i][mv] for mv, _, _ in b.beads}:
            raise MachineFileError(f"box {b.number}'s beads do not follow from the history in the file")


def import_machine(url: str, body: dict[str, Any], rename: str | None = None,
                   replace: bool = False) -> tuple[str, int, int]:
    """Check the file's content, then store the machine in one transaction: (name, boxes, games)."""
    dump, settings = check_machine_content(body, rename)  # the strict schema, before anything else
    verify(dump, settings)
    db = open_database(url, create=True)
    try:
        with session_scope(db, write=True) as s:
            if dump.name in repo.machine_names(s):
                if not replace:
                    raise repo.MachineExistsError(f"a machine named {dump.name!r} exists")
                acquire_lease(s, repo.machine_id(s, dump.name), dump.name, "an import replacing it")
                repo.delete_machine(s, dump.name)
                s.flush()
            load_machine_dump(s, dump)
    finally:
        db.dispose()
    return dump.name, len(dump.boxes), sum(b.n_games for b in dump.blocks)


