"""Imports refuse, never crash, never believe: each crafted machine file is refused with one
line, exit 1 (2 for a bad --as), and the database stays byte for byte what it was."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from menace.app.transfer import checksum
from menace.cli import cli

Body = dict[str, Any]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Body, Path]:
    """A small machine with games and a correction, exported once; and a database beside it."""
    folder = tmp_path_factory.mktemp("import")
    db = folder / "source.db"
    runner = CliRunner()
    for args in (["init"], ["tournament", "--vs", "random", "-n", "40", "--seed", "2"],
                 ["reconcile", "1", "--count", "W=9", "--count", "K=3", "--count", "G=2"],
                 ["tournament", "--vs", "smart", "-n", "30", "--seed", "3"], ["export", str(folder / "m.json")]):
        r = runner.invoke(cli, ["--db", str(db), *args], catch_exceptions=False)
        assert r.exit_code == 0, r.output
    target = folder / "target.db"
    r = runner.invoke(cli, ["--db", str(target), "-m", "other", "init"], catch_exceptions=False)
    assert r.exit_code == 0
    return json.loads((folder / "m.json").read_text()), target


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _sealed(body: Body) -> str:
    body["checksum"] = checksum(body)
    return json.dumps(body)


def _block(body: Body, i: int = 0) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = body["history"]["blocks"]
    return blocks[i]


def _set(path: str, value: Any) -> Callable[[Body], None]:
    def change(body: Body) -> None:
        keys: list[Any] = [int(k) if k.isdigit() else k for k in path.split(".")]
        here: Any = body
        for k in keys[:-1]:
            here = here[k]
        here[keys[-1]] = value
    return change


def _beads_a3_and_3(body: Body) -> None:
    beads = body["boxes"][0]["beads"]  # a1, a2 and b2 in the opening box
    beads["1"] = dict(beads["a1"])  # a1 again, by its number


def _two_blocks_one_first_game(body: Body) -> None:
    blocks = body["history"]["blocks"]
    blocks.append(dict(blocks[0]))
    body["history"]["games"] += blocks[0]["games"]


def _forged_tally(body: Body) -> None:
    b = _block(body)
    b["wins"], b["losses"] = b["wins"] + b["losses"], 0


def _bomb(body: Body) -> None:
    b = _block(body)
    b["data"] = base64.b64encode(zlib.compress(bytes(50_000_000), 9)).decode()


def _bomb_of_games(body: Body) -> None:
    b = _block(body)
    game = bytes([7 << 4 | 1 << 2 | 1, 4, 0, 8, 2, 6, 1, 3])
    b["data"] = base64.b64encode(zlib.compress(game * 2_000_000, 9)).decode()


CONTENT_CASES: dict[str, Callable[[Body], None]] = {
    "a seed as a list": _set("history.runs.0.seed", [1, 2]),
    "a seed of 10^30": _set("history.runs.0.seed", 10**29),
    "a preset of 10^30": _set("machine.preset", 10**29),
    "a schedule of 10^20": _set("machine.settings.schedule.0", 10**20),
    "a schedule of 0": _set("machine.settings.schedule.0", 0),
    "a reinforcement of true": _set("machine.settings.reinforcement.win", True),
    "a correction for box 0": _set("history.corrections.0.box", 0),
    "a correction for box 99999": _set("history.corrections.0.box", 99999),
    "a correction of -5": _set("history.corrections.0.count", -5),
    "a correction for a square the box has no bead for": _set("history.corrections.0.square", "zz"),
    "a1 and 1 in one box": _beads_a3_and_3,
    "two blocks with one first_game": _two_blocks_one_first_game,
    "version true": _set("version", True),
    "version -7": _set("version", -7),
    "version 99": _set("version", 99),
    "a count of true": _set("boxes.0.beads.a1.count", True),
    "a count as text": _set("boxes.0.beads.a1.count", "4"),
    "a negative bead count": _set("boxes.0.beads.a1.count", -1),
    "a count at the 64-bit maximum": _set("boxes.0.beads.a1.count", 2**63 - 1),
    "box numbers out of order": _set("boxes.0.number", 7),
    "a side Z": _set("boxes.0.side", "Z"),
    "game chess": _set("machine.game", "chess"),
    "forged tallies": _forged_tally,
    "n_games off by 7": _set("history.games", 7),
    "a block's game count off": lambda b: _block(b).__setitem__("games", _block(b)["games"] + 1),
    "a block for a run that does not exist": lambda b: _block(b).__setitem__("run", 99),
    "a zip bomb of zeros": _bomb,
    "a zip bomb of games": _bomb_of_games,
    "data not base64": lambda b: _block(b).__setitem__("data", "@@@"),
    "an opponent with an ANSI escape": _set("history.runs.0.opponent", "\x1b[2J\x1b[31mPWNED"),
    "a machine named '; DROP TABLE boxes; --": _set("machine.name", "'; DROP TABLE boxes; --"),
    "an empty machine name": _set("machine.name", ""),
    "a name of 10,000 characters": _set("machine.name", "x" * 10_000),
    "a name with a NUL byte": _set("machine.name", "a\x00b"),
    "a name ../../../etc/passwd": _set("machine.name", "../../../etc/passwd"),
    "a name with ANSI escapes": _set("machine.name", "\x1b[2J\x1b[31mPWNED"),
    "a time that is not a time": _set("machine.created_at", "yesterday"),
    "boxes that are not a list": _set("boxes", {"1": 2}),
    "a bad empty-box policy": _set("machine.settings.empty_box", "explode"),
    "colours that are not colours": _set("machine.colours", "red"),
}

FLOAT_CASES = {
    "a float count, silently truncated before": ('"count": 4', '"count": 4.0'),
    "a float version": ('"version": 2', '"version": 2.0'),
}

TEXT_CASES: dict[str, Callable[[str], str]] = {
    "a number over 4,300 digits": lambda t: t.replace('"seed": 2', '"seed": ' + "9" * 5000, 1),
    "a schedule of 10^1000": lambda t: t.replace('"schedule": [', '"schedule": [1' + "0" * 1000 + ", ", 1),
    "nesting 985 deep": lambda t: t[:-2] + ', "x": ' + "[" * 985 + "]" * 985 + "}",
    "NaN": lambda t: t.replace('"games": ', '"games": NaN, "g": ', 1),
    "truncated": lambda t: t[: len(t) // 2],
    "not JSON": lambda t: "\x00\x01 binary",
}


def _refused(target: Path, file: Path, *extra: str, status: int = 1) -> str:
    before = digest(target)
    r = CliRunner().invoke(cli, ["--db", str(target), "import", str(file), *extra])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code == status, r.output
    assert "Traceback" not in r.output and "\x1b" not in r.output and "\x00" not in r.output
    assert len(r.output.strip().splitlines()) == 1 or status == 2, r.output
    assert digest(target) == before
    return r.output


@pytest.mark.parametrize("case", list(CONTENT_CASES))
def test_a_crafted_machine_file_is_refused(exported: tuple[Body, Path], tmp_path: Path, case: str) -> None:
    body, target = exported
    crafted = copy.deepcopy(body)
    CONTENT_CASES[case](crafted)
    file = tmp_path / "crafted.json"
    file.write_text(_sealed(crafted))
    _refused(target, file)


@pytest.mark.parametrize("case", list(FLOAT_CASES))
def test_floats_are_refused_not_truncated(exported: tuple[Body, Path], tmp_path: Path, case: str) -> None:
    body, target = exported
    old, new = FLOAT_CASES[case]
    text = json.dumps(body, indent=1)
    assert old in text
    file = tmp_path / "crafted.json"
    file.write_text(text.replace(old, new, 1))
    assert "whole number" in _refused(target, file) or "version" in _refused(target, file)


@pytest.mark.parametrize("case", list(TEXT_CASES))
def test_a_malformed_file_is_refused(exported: tuple[Body, Path], tmp_path: Path, case: str) -> None:
    body, target = exported
    file = tmp_path / "crafted.json"
    file.write_text(TEXT_CASES[case](json.dumps(body)))
    _refused(target, file)


def test_a_rename_follows_the_name_rule(exported: tuple[Body, Path], tmp_path: Path) -> None:
    body, target = exported
    file = tmp_path / "good.json"
    file.write_text(json.dumps(body))
    for bad in ("", "bad name/../x", "\x1b[31mx"):
        _refused(target, file, "--as", bad, status=2)


def test_the_untouched_file_imports_and_checks(exported: tuple[Body, Path], tmp_path: Path) -> None:
    body, target = exported
    file = tmp_path / "good.json"
    file.write_text(json.dumps(body))
    copy_db = tmp_path / "copy.db"
    copy_db.write_bytes(target.read_bytes())
    r = CliRunner().invoke(cli, ["--db", str(copy_db), "import", str(file), "--as", "visitor"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["--db", str(copy_db), "check", "--all"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
