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
from menace.core.game import Result
from menace.core.learner import Settings, build_boxes, parse_numbers
from menace.core.records import CorruptHistoryError, iter_block
from menace.core.replay import Replayer, ReplayError
from menace.games import find_game
from menace.storage import repository as repo
from menace.storage.database import DatabaseDamagedError, open_database, session_scope
from menace.storage.leases import acquire as acquire_lease
from menace.storage.transfer_repo import (
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
            "blocks": [{"run": b.run, "first_game": b.first_game, "games": b.n_games, "wins": b.wins,
                        "draws": b.draws, "losses": b.losses, "data": base64.b64encode(b.data).decode("ascii")}
                       for b in d.blocks],
            "corrections": [{"after_game": c.after_game, "box": c.box_number, "square": game.move_name(c.move),
                             "count": c.count, "reason": c.reason, "created_at": _time(c.created_at)}
                            for c in d.corrections],
        },
    }
    body["checksum"] = checksum(body)
    return body


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
    try:
        for block in sorted(dump.blocks, key=lambda b: b.first_game):
            if block.first_game != replayer.games + 1 or not 0 <= block.run < len(dump.runs):
                raise MachineFileError(f"the history's games are out of order at game {block.first_game}")
            # Streamed, never more than the block says it holds: a zip bomb stops at that size.
            tally = {r: 0 for r in Result}
            for record in iter_block(block.data, block.n_games):
                replayer.apply(record)
                tally[record.result] += 1
            # The tally is recomputed from the games, never taken from the file.
            if (block.wins, block.draws, block.losses) != (tally[Result.WIN], tally[Result.DRAW], tally[Result.LOSS]):
                raise MachineFileError(
                    f"the block from game {block.first_game:,} says {block.wins}/{block.draws}/{block.losses} "
                    f"won/drawn/lost, but its games give {tally[Result.WIN]}/{tally[Result.DRAW]}/"
                    f"{tally[Result.LOSS]}")
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


