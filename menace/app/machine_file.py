"""The machine file, parsed strictly: the first step of an import, before anything else.

:func:`loads` (and :func:`load_json` for a path) reads the file's text within bounds (its size, integers of at most
:data:`MAX_DIGITS` digits, no floats, no NaN, a limited nesting depth) and
:func:`check_machine_content` checks every field against the schema of docs/machine-file.md:
types (an integer is never a bool or a float), bounds the same as ``menace init``'s, names
by the machine-name rule, printable text, unique moves per box, corrections for boxes and beads
that exist, runs that exist. It returns typed values (a :class:`MachineDump` and its
:class:`Settings`); figures the games determine (a block's tally, the game count) are not
taken from the file but recomputed when the games are replayed (:func:`menace.app.transfer.verify`).

Version 2 adds to a block the beads after its last game (``beads``, a checkpoint) and ``kept``
(false: a summary, no games, its tally and beads taken as they are); version 1 files read as
before. Keys this version does not know are left alone.
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime
from pathlib import Path
from typing import Any

from menace.core.colours import ColourError, parse_colours
from menace.core.errors import DamagedError
from menace.core.game import Game, IllegalMoveError
from menace.core.learner import MAX_BEADS, SIDE_CHOICES, EmptyPolicy, Scope, Settings, SettingsError, format_numbers
from menace.core.names import is_machine_name, safe_text
from menace.games import find_game, game_names
from menace.storage.transfer_repo import BlockDump, BoxDump, CorrectionDump, MachineDump, RunDump

FORMAT = "menace-machine"
VERSION = 2
"""2: a block may carry the beads after its last game (``beads``) and be a summary (``kept`` false)."""
MAX_FILE_BYTES = 1 << 30
"""A machine file larger than 1 GiB is refused before it is read."""
MAX_DIGITS = 30
"""No number in a machine file needs more digits (a 64-bit seed has 19)."""
MAX_DEPTH = 32
"""The file's JSON nests 5 levels deep; anything much deeper is not a machine file."""
MAX_TEXT = 1_000
MAX_COUNT = 10**15
"""A bead count beyond this cannot come from any history a person could play."""
MAX_GAMES = 10**10
MAX_BEADS_TEXT = 1 << 26
"""A checkpoint (a block's ``beads``) is a few kilobytes; 64 MiB of base64 is far beyond any machine's."""
MAX_SEED = 2**63 - 1


class MachineFileError(DamagedError):
    """A machine file that cannot be imported: damaged, truncated, foreign or from a newer menace."""


class _Refused(ValueError):
    pass


def _no_float(text: str) -> Any:
    raise _Refused(f"a fraction ({text[:20]}) where only whole numbers belong")


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _Refused(f"a number of {len(text)} digits")
    return int(text)


def _no_constant(text: str) -> Any:
    raise _Refused(f"{text}, which is not a number a machine file holds")


def _depth_ok(text: str) -> bool:
    """The brackets never nest deeper than :data:`MAX_DEPTH` (strings skipped): checked before
    parsing, so that no nesting can exhaust the parser's recursion."""
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def load_json(path: Path) -> dict[str, Any]:
    """The file's JSON, read within bounds; :class:`MachineFileError` for anything else."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise MachineFileError(f"{path} is {size:,} bytes: too large for a machine file")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MachineFileError(f"no file {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MachineFileError(f"{path} cannot be read as a machine file: {exc}") from None
    return loads(text, str(path))


def loads(text: str, where: str = "the file") -> dict[str, Any]:
    if not _depth_ok(text):
        raise MachineFileError(f"{where} is not a menace machine file (nested more than {MAX_DEPTH} deep)")
    try:
        body = json.loads(text, parse_int=_bounded_int, parse_float=_no_float, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise MachineFileError(
            f"{where} is damaged or truncated (not valid JSON: {exc.msg} at line {exc.lineno})") from None
    except (_Refused, RecursionError, ValueError) as exc:
        raise MachineFileError(f"{where} is not a menace machine file: {str(exc)[:200]}") from None
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise MachineFileError(f"{where} is not a menace machine file")
    version = body.get("version")
    if type(version) is not int or not 1 <= version <= VERSION:
        shown = safe_text(repr(version))[:40]
        if type(version) is int and version > VERSION:
            raise MachineFileError(f"{where} is version {version} of the machine file; this menace reads up to "
                                   f"{VERSION}", hint="upgrade menace to import it")
        raise MachineFileError(f"{where} has no valid version (found {shown}); this menace reads versions 1 to "
                               f"{VERSION}")
    return body


# -- the schema -----------------------------------------------------------------------------
def _fail(where: str, what: str) -> MachineFileError:
    return MachineFileError(f"the file's {where} {what}")


def _obj(value: Any, where: str, required: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(where, "is not an object")
    missing = [k for k in required if k not in value]
    if missing:
        raise _fail(where, f"lacks {', '.join(missing)}")
    return value


def _list(value: Any, where: str, most: int) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(where, "is not a list")
    if len(value) > most:
        raise _fail(where, f"has {len(value):,} items, more than {most:,}")
    return value


def _int(value: Any, where: str, low: int, high: int) -> int:
    if type(value) is not int:  # not a bool, not a float, not a string of digits
        raise _fail(where, f"is {safe_text(repr(value))[:40]}, not a whole number")
    if not low <= value <= high:
        raise _fail(where, f"is {value:,}, outside {low:,} to {high:,}")
    return value


def _bool(value: Any, where: str) -> bool:
    if type(value) is not bool:
        raise _fail(where, f"is {safe_text(repr(value))[:40]}, not true or false")
    return value


def _text(value: Any, where: str, most: int = MAX_TEXT, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _fail(where, f"is {safe_text(repr(value))[:40]}, not text")
    if len(value) > most:
        raise _fail(where, f"is {len(value):,} characters long, more than {most:,}")
    if safe_text(value) != value:
        raise _fail(where, "holds control characters")
    return value


def _choice(value: Any, where: str, choices: list[str]) -> str:
    text = _text(value, where, 40)
    if text not in choices:
        raise _fail(where, f"is {safe_text(repr(value))[:40]}, not one of {', '.join(choices)}")
    assert text is not None
    return text


def _base64(value: Any, where: str, most: int) -> bytes:
    # Not checked for control characters one character at a time as _text does (3 s of CPU for a history
    # of 20M games): the base64 alphabet has none, and anything outside it is refused.
    if not isinstance(value, str):
        raise _fail(where, f"is {safe_text(repr(value))[:40]}, not text")
    if len(value) > most:
        raise _fail(where, f"is {len(value):,} characters long, more than {most:,}")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise _fail(where, "is not base64") from None


def _time(value: Any, where: str, optional: bool = False) -> datetime | None:
    text = _text(value, where, 40, optional)
    if text is None:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise _fail(where, f"is {text!r}, not a date and time") from None


def _settings(st: Any, game: Game) -> Settings:
    st = _obj(st, "machine.settings", ("side", "schedule", "reinforcement", "all_squares", "symmetry", "empty_box"))
    schedule = tuple(_int(v, f"machine.settings.schedule[{i}]", 1, MAX_BEADS)
                     for i, v in enumerate(_list(st["schedule"], "machine.settings.schedule", 16)))
    if not schedule:
        raise _fail("machine.settings.schedule", "is empty")
    r = _obj(st["reinforcement"], "machine.settings.reinforcement", ("win", "draw", "loss"))
    win, draw, loss = (_int(r[k], f"machine.settings.reinforcement.{k}", -MAX_BEADS, MAX_BEADS)
                       for k in ("win", "draw", "loss"))
    try:
        return Settings(
            side=_choice(st["side"], "machine.settings.side", list(SIDE_CHOICES)), schedule=schedule, win=win,
            draw=draw, loss=loss, all_squares=_bool(st["all_squares"], "machine.settings.all_squares"),
            symmetry=_bool(st["symmetry"], "machine.settings.symmetry"),
            empty_policy=EmptyPolicy(_choice(st["empty_box"], "machine.settings.empty_box",
                                             [p.value for p in EmptyPolicy])),
            scope=Scope(_choice(st.get("scope", "every"), "machine.settings.scope", [s.value for s in Scope])),
            forced_boxes=_bool(st.get("forced_boxes", False), "machine.settings.forced_boxes"),
        )
    except SettingsError as exc:
        raise _fail("machine.settings", f"make no machine: {exc}") from None


def _move(game: Game, value: Any, where: str) -> int:
    text = _text(value, where, 16)
    assert text is not None
    try:
        return game.parse_move(text)
    except (IllegalMoveError, ValueError):
        raise _fail(where, f"is {text!r}, not a move of {game.name}") from None


def _boxes(value: Any, game: Game) -> list[BoxDump]:
    boxes = []
    for i, b in enumerate(_list(value, "boxes", 100_000)):
        where = f"boxes[{i}]"
        b = _obj(b, where, ("number", "position", "side", "move", "beads"))
        beads = _obj(b["beads"], f"{where}.beads", ())
        if len(beads) > game.move_count:
            raise _fail(f"{where}.beads", f"has {len(beads)} beads, more than the game has moves")
        by_move: dict[int, tuple[int, int, int]] = {}
        for name, bead in beads.items():
            mv = _move(game, name, f"{where}.beads key")
            if mv in by_move:
                raise _fail(f"{where}.beads", f"name the move {game.move_name(mv)} twice")
            bead = _obj(bead, f"{where}.beads.{name}", ("initial", "count"))
            by_move[mv] = (mv, _int(bead["initial"], f"{where}.beads.{name}.initial", 0, MAX_BEADS),
                           _int(bead["count"], f"{where}.beads.{name}.count", 0, MAX_COUNT))
        boxes.append(BoxDump(
            _int(b["number"], f"{where}.number", 1, 100_000), _text(b["position"], f"{where}.position", 64) or "",
            _choice(b["side"], f"{where}.side", ["X", "O"]), _int(b["move"], f"{where}.move", 1, 64),
            sorted(by_move.values()),
        ))
        if boxes[-1].number != i + 1:
            raise _fail(f"{where}.number", f"is {boxes[-1].number}, not {i + 1}: boxes are numbered 1, 2, 3, ...")
    return boxes


def check_machine_content(body: dict[str, Any], rename: str | None = None) -> tuple[MachineDump, Settings]:
    """The file's content as typed values, every field checked (see the module's docstring).

    ``rename`` (``--as``) replaces the file's name; both follow the machine-name rule.
    """
    m = _obj(body.get("machine"), "machine", ("name", "game", "settings", "created_at"))
    name = rename if rename is not None else m["name"]
    if not is_machine_name(name):
        raise _fail("machine name" if rename is None else "new name",
                    f"{safe_text(repr(name))[:80]} breaks the rule: 1 to 64 letters, digits, '-', '_' or '.', "
                    f"starting with a letter or digit")
    game = find_game(_choice(m["game"], "machine.game", game_names()))
    settings = _settings(m["settings"], game)
    colours = _text(m.get("colours"), "machine.colours", 2_000, optional=True)
    if colours is not None:
        try:
            parse_colours(colours)
        except ColourError as exc:
            raise _fail("machine.colours", f"are not a colour list: {exc}") from None
    boxes = _boxes(body.get("boxes"), game)
    h = _obj(body.get("history"), "history", ("games", "runs", "blocks", "corrections"))
    declared = _int(h["games"], "history.games", 0, MAX_GAMES)
    runs = []
    for i, r in enumerate(_list(h["runs"], "history.runs", 10_000_000)):
        where = f"history.runs[{i}]"
        r = _obj(r, where, ("kind", "opponent", "seed", "started_at", "ended_at"))
        seed = None if r["seed"] is None else _int(r["seed"], f"{where}.seed", 0, MAX_SEED)
        started = _time(r["started_at"], f"{where}.started_at")
        assert started is not None
        runs.append(RunDump(_text(r["kind"], f"{where}.kind", 40) or "", _text(r["opponent"], f"{where}.opponent", 200)
                            or "", seed, started, _time(r["ended_at"], f"{where}.ended_at", optional=True)))
    blocks = []
    for i, b in enumerate(_list(h["blocks"], "history.blocks", 10_000_000)):
        where = f"history.blocks[{i}]"
        b = _obj(b, where, ("run", "first_game", "games", "data"))
        n = _int(b["games"], f"{where}.games", 1, MAX_GAMES)
        kept = _bool(b.get("kept", True), f"{where}.kept")
        data = _base64(b["data"], f"{where}.data", n * 32 + 64 if kept else 0)
        beads = None if b.get("beads") is None else _base64(b["beads"], f"{where}.beads", MAX_BEADS_TEXT)
        tally = [_int(b.get(k, 0), f"{where}.{k}", 0, n) for k in ("wins", "draws", "losses")]
        if not kept:
            # A summary has no games to recompute its tally from: its wins, draws and losses are
            # all there is, and they must at least add up to its games; its beads carry the history on.
            if beads is None:
                raise _fail(where, "is a summary without the beads after its last game")
            if sum(tally) != n:
                raise _fail(where, f"is a summary of {n:,} games whose wins, draws and losses add up to "
                                   f"{sum(tally):,}")
        blocks.append(BlockDump(_int(b["run"], f"{where}.run", 0, max(len(runs) - 1, 0)),
                                _int(b["first_game"], f"{where}.first_game", 1, MAX_GAMES), n, tally[0], tally[1],
                                tally[2], data, beads, kept))
        if not runs:
            raise _fail(where, "belongs to no run")
    firsts = [b.first_game for b in blocks]
    if len(set(firsts)) != len(firsts):
        raise _fail("history.blocks", "has two blocks starting at the same game")
    total = sum(b.n_games for b in blocks)
    if declared != total:
        raise _fail("history.games", f"is {declared:,}, but its blocks hold {total:,}")
    fixes = []
    for i, c in enumerate(_list(h["corrections"], "history.corrections", 10_000_000)):
        where = f"history.corrections[{i}]"
        c = _obj(c, where, ("after_game", "box", "square", "count", "reason", "created_at"))
        box = _int(c["box"], f"{where}.box", 1, len(boxes))
        mv = _move(game, c["square"], f"{where}.square")
        if mv not in {bead[0] for bead in boxes[box - 1].beads}:
            raise _fail(f"{where}.square", f"is {game.move_name(mv)}, which box {box} holds no beads for")
        created = _time(c["created_at"], f"{where}.created_at")
        assert created is not None
        fixes.append(CorrectionDump(_int(c["after_game"], f"{where}.after_game", 0, total), box, mv,
                                    _int(c["count"], f"{where}.count", 0, MAX_BEADS),
                                    _text(c["reason"], f"{where}.reason") or "", created))
    created_at = _time(m["created_at"], "machine.created_at")
    assert created_at is not None
    preset = _text(m.get("preset"), "machine.preset", 40, optional=True)
    dump = MachineDump(
        name, game.name, settings.side, format_numbers(settings.schedule), settings.win, settings.draw,
        settings.loss, settings.all_squares, settings.symmetry, settings.empty_policy.value, preset, created_at,
        boxes, runs, blocks, fixes, settings.scope.value, settings.forced_boxes, colours,
    )
    return dump, settings
