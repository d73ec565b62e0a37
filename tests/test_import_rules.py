"""An import checks what the file says against the game's rules and the blocks around it, and
refuses junk early in bounded memory: each refusal is one line, exit 1, nothing stored."""

from __future__ import annotations

import base64
import copy
import hashlib
import io
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import owner

from menace.app.machine_file import MachineFileError, read_streamed
from menace.app.transfer import checksum, export_machine
from menace.cli import cli
from menace.core.records import pack_beads, unpack_beads
from menace.core.settings import MICHIE

Body = dict[str, Any]


@pytest.fixture(scope="module")
def summarized(tmp_path_factory: pytest.TempPathFactory) -> tuple[Body, Path]:
    """Three runs of ten games, the last kept only as a summary (its tally and the beads at its end,
    which are the machine's beads); and a database to import into."""
    from menace.app.machines import init_machine, open_machine
    from menace.app.tournament import run_tournament

    folder = tmp_path_factory.mktemp("rules")
    url = f"sqlite:///{folder / 'source.db'}"
    init_machine(owner(url), "menace", MICHIE, None)
    for i, keep in enumerate([None, None, 0]):
        with open_machine(owner(url), "menace", holder="a test") as m:
            run_tournament(m, "random", games=10, seed=i, keep_games=keep)
    body = export_machine(owner(url), "menace")
    assert [b.get("kept", True) for b in body["history"]["blocks"]] == [True, True, False]
    target = folder / "target.db"
    assert CliRunner().invoke(cli, ["--db", str(target), "-m", "other", "init"]).exit_code == 0
    return body, target


def _refused(target: Path, body: Body, tmp_path: Path, reason: str) -> None:
    body["checksum"] = checksum(body)
    file = tmp_path / "crafted.json"
    file.write_text(json.dumps(body))
    own = tmp_path / "target.db"  # each test its own copy: an import let through changes it
    own.write_bytes(target.read_bytes())
    target = own
    before = hashlib.sha256(target.read_bytes()).hexdigest()
    r = CliRunner().invoke(cli, ["--db", str(target), "import", str(file)])
    assert r.exit_code == 1, r.output
    assert len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output, r.output
    assert reason in r.output, r.output
    assert hashlib.sha256(target.read_bytes()).hexdigest() == before


def _summary_beads(body: Body, change: Any) -> None:
    """The summary's checkpoint with ``change(counts, layout)`` applied, packed again, and the boxes'
    beads made to agree with it (they are the beads after the last game)."""
    from menace.core.learner import build_boxes
    from menace.core.replay import Replayer
    from menace.games import find_game

    game = find_game("tictactoe")
    layout = Replayer(game, MICHIE, build_boxes(game, MICHIE), []).layout()
    block = body["history"]["blocks"][-1]
    counts = unpack_beads(base64.b64decode(block["beads"]), layout, game.move_count)
    change(counts, layout)
    block["beads"] = base64.b64encode(pack_beads(counts, layout)).decode("ascii")
    for box, moves in zip(body["boxes"], layout):
        for mv in moves:
            box["beads"][game.move_name(mv)]["count"] = counts[box["number"] - 1][mv]


def test_a_box_whose_move_is_wrong_is_refused(summarized: tuple[Body, Path], tmp_path: Path) -> None:
    body, target = copy.deepcopy(summarized[0]), summarized[1]
    body["boxes"][20]["move"] += 1  # `check` found it right after such an import
    _refused(target, body, tmp_path, "box 21 in the file is not the box its settings build")


def test_a_summary_whose_beads_cannot_follow_from_its_games_is_refused(
        summarized: tuple[Body, Path], tmp_path: Path) -> None:
    body, target = copy.deepcopy(summarized[0]), summarized[1]

    def huge(counts: list[list[int]], layout: Any) -> None:
        counts[0][layout[0][0]] = 10**15  # ten games cannot put 10^15 beads of a colour in a box
        assert all(len(moves) for moves in layout)

    _summary_beads(body, huge)
    _refused(target, body, tmp_path, "could not follow from")


def test_a_summary_of_more_games_than_a_block_holds_is_refused(
        summarized: tuple[Body, Path], tmp_path: Path) -> None:
    body, target = copy.deepcopy(summarized[0]), summarized[1]
    block = body["history"]["blocks"][-1]
    more = 10**9 - block["games"]  # a thousand million games, all won, in one block: a second of play
    block.update(games=10**9, wins=10**9, draws=0, losses=0)
    body["history"]["games"] += more
    _refused(target, body, tmp_path, "more than")


def test_the_untouched_file_imports(summarized: tuple[Body, Path], tmp_path: Path) -> None:
    body, target = copy.deepcopy(summarized[0]), summarized[1]
    file = tmp_path / "good.json"
    file.write_text(json.dumps(body))
    copy_db = tmp_path / "copy.db"
    copy_db.write_bytes(target.read_bytes())
    r = CliRunner().invoke(cli, ["--db", str(copy_db), "import", str(file), "--as", "copy"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["--db", str(copy_db), "check", "--all", "--full"], catch_exceptions=False)
    assert r.exit_code == 0, r.output


# -- junk, refused early in bounded memory -------------------------------------------------------------
def _peak_mib(data: bytes) -> tuple[float, str]:
    """The refusal of ``data`` by the streamed reading, and the most memory it held (tracemalloc)."""
    tracemalloc.start()
    try:
        with pytest.raises(MachineFileError) as refused:
            body = read_streamed(io.BytesIO(data), "junk.json")
            from menace.app.machine_file import check_machine_content

            check_machine_content(body)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20, str(refused.value)


def test_a_junk_file_is_refused_before_it_is_held(summarized: tuple[Body, Path]) -> None:
    """A 20 MB list of zeros where the boxes go: refused as soon as the list passes what a machine
    file's boxes can take, holding a few MiB, not the list (150 MiB as Python values)."""
    body = summarized[0]
    head = json.dumps({"format": "menace-machine", "version": 2, "machine": body["machine"]})[:-1]
    data = (head + ', "boxes": [' + "0," * 10_000_000 + "0]}").encode()
    assert len(data) > 20_000_000
    peak, why = _peak_mib(data)
    assert "boxes" in why and peak < 40, (peak, why)


def test_two_hundred_thousand_empty_runs_are_refused_early(summarized: tuple[Body, Path]) -> None:
    body = copy.deepcopy(summarized[0])
    run = body["history"]["runs"][0]
    body["history"]["runs"] = [run] * 200_000
    body["checksum"] = checksum(body)
    data = json.dumps(body).encode()
    peak, why = _peak_mib(data)
    assert "runs" in why and peak < 40, (peak, why)

