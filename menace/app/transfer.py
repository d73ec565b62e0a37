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

from menace.core.errors import DamagedError
from menace.core.learner import EmptyPolicy, Scope, Settings, build_boxes, format_numbers, parse_numbers
from menace.core.records import CorruptHistoryError, Layout, unpack_beads, unpack_block
from menace.core.replay import Replayer, ReplayError
from menace.games import find_game
from menace.storage import repository as repo
from menace.storage.database import open_database, session_scope
from menace.storage.leases import acquire as acquire_lease
from menace.storage.transfer_repo import (
    BlockDump,
    BoxDump,
    CorrectionDump,
    MachineDump,
    RunDump,
    dump_machine,
    load_machine_dump,
)

FORMAT = "menace-machine"
VERSION = 2
"""2: a block may carry the beads after its last game (``beads``) and be a summary (``kept`` false)."""


class MachineFileError(DamagedError):
    """A machine file that cannot be imported: damaged, truncated, foreign or from a newer menace."""


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


def _block_from_json(b: dict[str, Any]) -> BlockDump:
    beads = b.get("beads")
    kept = b.get("kept", True)
    if not isinstance(kept, bool) or (beads is not None and not isinstance(beads, str)):
        raise TypeError("a block's beads or kept flag")
    return BlockDump(int(b["run"]), int(b["first_game"]), int(b["games"]), int(b["wins"]), int(b["draws"]),
                     int(b["losses"]), base64.b64decode(b["data"], validate=True),
                     None if beads is None else base64.b64decode(beads, validate=True), kept)


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
    raw = unpack_block(block.data)
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


def write_machine_file(body: dict[str, Any], path: Path) -> None:
    text = json.dumps(body, indent=1, ensure_ascii=False) + "\n"
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)  # never a half-written file under the real name


def read_machine_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MachineFileError(f"no file {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MachineFileError(f"{path} cannot be read as a machine file: {exc}") from None
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MachineFileError(
            f"{path} is damaged or truncated (not valid JSON: {exc.msg} at line {exc.lineno})") from None
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise MachineFileError(f"{path} is not a menace machine file")
    version = body.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise MachineFileError(f"{path} is version {version} of the machine file; this menace reads up to {VERSION}")
    if body.get("checksum") != checksum(body):
        raise MachineFileError(f"{path} is damaged: its checksum does not match its content")
    return body


def _parse_time(text: Any) -> datetime:
    if not isinstance(text, str):
        raise TypeError("a time")
    return datetime.fromisoformat(text)


def _to_dump(body: dict[str, Any], rename: str | None) -> tuple[MachineDump, Settings]:
    m = body["machine"]
    st = m["settings"]
    game = find_game(m["game"])
    settings = Settings(
        side=st["side"], schedule=tuple(int(x) for x in st["schedule"]), win=int(st["reinforcement"]["win"]),
        draw=int(st["reinforcement"]["draw"]), loss=int(st["reinforcement"]["loss"]),
        all_squares=bool(st["all_squares"]), symmetry=bool(st["symmetry"]), empty_policy=EmptyPolicy(st["empty_box"]),
        scope=Scope(st.get("scope", "every")), forced_boxes=bool(st.get("forced_boxes", False)),
    )
    boxes = [
        BoxDump(int(b["number"]), str(b["position"]), str(b["side"]), int(b["move"]),
                sorted((game.parse_move(sq), int(v["initial"]), int(v["count"])) for sq, v in b["beads"].items()))
        for b in body["boxes"]
    ]
    h = body["history"]
    runs = [RunDump(str(r["kind"]), str(r["opponent"]), r["seed"], _parse_time(r["started_at"]),
                    None if r["ended_at"] is None else _parse_time(r["ended_at"])) for r in h["runs"]]
    blocks = [_block_from_json(b) for b in h["blocks"]]
    fixes = [CorrectionDump(int(c["after_game"]), int(c["box"]), game.parse_move(c["square"]), int(c["count"]),
                            str(c["reason"]), _parse_time(c["created_at"])) for c in h["corrections"]]
    dump = MachineDump(
        rename or str(m["name"]), game.name, settings.side, format_numbers(settings.schedule), settings.win,
        settings.draw, settings.loss, settings.all_squares, settings.symmetry, settings.empty_policy.value,
        m["preset"], _parse_time(m["created_at"]), boxes, runs, blocks, fixes, settings.scope.value,
        settings.forced_boxes, m.get("colours"),
    )
    return dump, settings


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
    try:
        dump, settings = _to_dump(body, rename)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        if isinstance(exc, MachineFileError):
            raise
        raise MachineFileError(f"the file's content is not a machine ({type(exc).__name__}: {exc})") from None
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


