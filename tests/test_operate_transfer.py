"""The physical machine's twin (operate, reconcile) and the machine file (export, import)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner
from conftest import Invoke, is_sqlite, owner, query

from menace.app.check import check_database
from menace.cli import cli
from menace.core.colours import DEFAULT_COLOURS
from menace.core.learner import Learner, build_boxes
from menace.core.settings import MICHIE
from menace.games.tictactoe import TICTACTOE, square_name

PREFERENCE = [4, 0, 8, 2, 6, 1, 3, 5, 7]


def bead_counts(db_url: str) -> dict[tuple[int, int], int]:
    rows = query(db_url, "SELECT b.number, d.move, d.count FROM beads d JOIN boxes b ON b.id = d.box_id")
    return {(n, m): c for n, m, c in rows}


def contents(db_url: str) -> list[list[tuple[object, ...]]]:
    """Every row of every table (a SQLite file: every byte, its log folded in)."""
    if is_sqlite(db_url):
        query(db_url, "PRAGMA wal_checkpoint(TRUNCATE)")
        return [[(Path(db_url.removeprefix("sqlite:///")).read_bytes(),)]]
    tables = ("machines", "boxes", "beads", "runs", "game_blocks", "corrections", "machine_locks")
    return [query(db_url, f"SELECT * FROM {t} ORDER BY 1, 2") for t in tables]


def operator_script(learner: Learner, pick: int = 0, first_bead: int | None = None) -> tuple[str, list[int]]:
    """What an operator types for one game: the bead colour for each MENACE move (the
    ``pick``-th colour the twin has in the box; ``first_bead`` for the first move, confirmed
    as a correction) and the other side's squares."""
    state = TICTACTOE.initial()
    lines: list[str] = []
    boxes: list[int] = []
    while TICTACTOE.outcome(state) is None:
        if TICTACTOE.to_move(state).name == "X":
            found = learner.box_for(state)
            if found is None:
                square = TICTACTOE.legal_moves(state)[0]
            else:
                index, real = found
                if first_bead is not None:
                    bead, first_bead = first_bead, None
                    lines.append(DEFAULT_COLOURS[bead].name)
                    lines.append("y")
                else:
                    have = [m for m in learner.boxes[index].initial if learner.counts[index][m] > 0]
                    bead = have[min(pick, len(have) - 1)]
                    lines.append(DEFAULT_COLOURS[bead].letter)
                boxes.append(index + 1)
                square = real[bead]
        else:
            square = next(s for s in PREFERENCE if state[s] == 0)
            lines.append(square_name(square))
        state = TICTACTOE.play(state, square)
    return "\n".join(lines) + "\n", boxes


def test_an_operated_game_leaves_the_twin_as_the_ledger_says(menace: Invoke, db_url: str) -> None:
    menace("init")
    learner = Learner(TICTACTOE, MICHIE, build_boxes(TICTACTOE, MICHIE))
    script, boxes = operator_script(learner, pick=1)
    before = bead_counts(db_url)
    out = menace("operate", input=script).output
    assert "Open box 1 (move 1 shelf, row 1, place 1 from the left)." in out
    assert "which colour came out?" in out
    ledger = re.findall(r"box +(\d+): (put (\d+) ([a-z ]+) \(.\) in|keep the drawn ([a-z ]+) \(.\) bead out)"
                        r"[^;]*; it then holds (\d+) ([a-z ]+)", out)
    assert ledger, out
    after = bead_counts(db_url)
    names = {c.name: i for i, c in enumerate(DEFAULT_COLOURS)}
    for number, _, put, put_colour, kept_colour, holds, colour in ledger:
        assert (put_colour or kept_colour) == colour
        move = names[colour]
        assert after[(int(number), move)] == int(holds)  # the twin holds what the ledger says
        added = int(put) if put else 0
        assert int(holds) == before[(int(number), move)] - 1 + added  # bead drawn, then put back
    assert sorted({int(n) for n, *_ in ledger}) == sorted(set(boxes))
    assert check_database(owner(db_url)).ok


def test_a_colour_the_twin_lacks_is_confirmed_and_recorded_as_a_correction(menace: Invoke, db_url: str) -> None:
    menace("init")
    # the twin has drifted from the real machine: it thinks box 1 has no green (centre) beads
    query(db_url, "UPDATE beads SET count = 0 WHERE box_id = (SELECT id FROM boxes WHERE number = 1) AND move = 4")
    query(db_url, "INSERT INTO corrections (machine_id, after_game, box_id, move, count, reason, created_at) "
                  "VALUES (1, 0, (SELECT id FROM boxes WHERE number = 1), 4, 0, 'test: drift', '2026-01-01')")
    learner = Learner(TICTACTOE, MICHIE, build_boxes(TICTACTOE, MICHIE))
    learner.counts[0][4] = 0
    script, _ = operator_script(learner, first_bead=4)
    out = menace("operate", input=script).output
    assert "The twin says box 1 has no green beads. Did a green bead come out?" in out
    assert "Noted: the twin now has 1 green bead in box 1 (a correction)." in out
    reasons = [r[0] for r in query(db_url, "SELECT reason FROM corrections ORDER BY id")]
    assert len(reasons) == 2 and "which the twin had as empty" in reasons[1]
    report = check_database(owner(db_url))
    assert report.ok, report.faults


def test_a_confirmed_correction_is_kept_when_the_game_is_then_abandoned(menace: Invoke, db_url: str) -> None:
    menace("init")
    query(db_url, "UPDATE beads SET count = 0 WHERE box_id = (SELECT id FROM boxes WHERE number = 1) AND move = 4")
    query(db_url, "INSERT INTO corrections (machine_id, after_game, box_id, move, count, reason, created_at) "
                  "VALUES (1, 0, (SELECT id FROM boxes WHERE number = 1), 4, 0, 'test: drift', '2026-01-01')")
    r = menace("operate", input="green\ny\n", ok=False)  # then end of input: the game is abandoned
    assert "Noted: the twin now has 1 green bead in box 1 (a correction)." in r.output
    assert r.exit_code == 1 and "the twin is unchanged" not in r.output, r.output
    assert "the correction you confirmed is kept (box 1)" in r.output
    assert bead_counts(db_url)[(1, 4)] == 1  # the twin knows what the real box holds
    reasons = [r[0] for r in query(db_url, "SELECT reason FROM corrections ORDER BY id")]
    assert len(reasons) == 2 and "which the twin had as empty" in reasons[1]
    assert query(db_url, "SELECT count(*) FROM game_blocks") == [(0,)]  # and no game
    report = check_database(owner(db_url))
    assert report.ok, report.faults


def test_operate_refuses_unknown_colours_and_end_of_input_changes_nothing(menace: Invoke, db_url: str) -> None:
    menace("init")
    before = bead_counts(db_url)
    r = menace("operate", input="mauve\npurple\n", ok=False)
    assert "'mauve' is not a bead colour" in r.output
    assert "box 1 holds no purple beads at all" in r.output
    assert r.exit_code == 1 and "Game abandoned: the twin is unchanged" in r.output
    assert bead_counts(db_url) == before


def test_reconcile_records_a_correction_that_check_replays(menace: Invoke, db_url: str) -> None:
    menace("init")
    menace("tournament", "--vs", "smart", "-n", "300", "--seed", "2")
    out = menace("reconcile", "1", input="9\n7\n5\n").output
    assert "Recorded as a correction in the history." in out
    counts = bead_counts(db_url)
    assert [counts[(1, m)] for m in (0, 1, 4)] == [9, 7, 5]
    assert "OK" in menace("check").output
    menace("tournament", "--vs", "smart", "-n", "100", "--seed", "3")
    assert "OK" in menace("check").output
    r = menace("reconcile", "1", "--count", "W=-2", ok=False)
    assert r.exit_code == 2


def test_export_import_export_is_identical(menace: Invoke, new_db_url: Callable[[], str], tmp_path: Path) -> None:
    menace("init")
    menace("tournament", "--vs", "smart", "-n", "700", "--seed", "5")
    menace("reconcile", "2", input="3\n" * 9)
    menace("play", "--seed", "1", input="\n".join(str(i) for i in range(1, 10)) * 2 + "\n")
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    menace("export", str(a))
    other = new_db_url()
    r = CliRunner().invoke(cli, ["--db", str(other), "import", str(a)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["--db", str(other), "export", str(b)])
    assert r.exit_code == 0, r.output
    assert a.read_bytes() == b.read_bytes()
    body = json.loads(a.read_text())
    assert body["format"] == "menace-machine" and body["version"] == 2 and body["history"]["games"] == 701
    assert check_database(owner(other)).ok


def test_bad_machine_files_are_refused_and_change_nothing(menace: Invoke, db_url: str, tmp_path: Path) -> None:
    menace("init")
    menace("tournament", "--vs", "random", "-n", "200", "--seed", "5")
    good = tmp_path / "good.json"
    menace("export", str(good))
    text = good.read_text()
    body = json.loads(text)
    cases: dict[str, tuple[str, str]] = {}
    cases["truncated"] = (text[: len(text) // 2], "damaged or truncated")
    cases["foreign"] = (json.dumps({"hello": "world"}), "not a menace machine file")
    cases["newer"] = (json.dumps({**body, "version": 99}), "version 99")
    tampered = json.loads(text)
    tampered["boxes"][0]["beads"]["b2"]["count"] += 1
    cases["tampered"] = (json.dumps(tampered), "checksum does not match")
    from menace.app.transfer import checksum

    resealed = json.loads(text)
    resealed["boxes"][0]["beads"]["b2"]["count"] += 1
    resealed["checksum"] = checksum(resealed)
    cases["resealed"] = (json.dumps(resealed), "do not follow from the history")
    before = contents(db_url)
    for name, (content, message) in cases.items():
        f = tmp_path / f"{name}.json"
        f.write_text(content)
        r = menace("import", str(f), "--replace", ok=False)
        assert r.exit_code == 1, (name, r.output)
        assert message in r.output, (name, r.output)
        assert "Traceback" not in r.output
    r = menace("import", str(good), ok=False)
    assert r.exit_code == 1 and "replace it with --replace" in r.output
    assert contents(db_url) == before
    assert menace("import", str(good), "--replace").exit_code == 0
    assert menace("import", str(good), "--as", "copy").exit_code == 0
    assert "copy" in menace("machines").output


def test_a_confirmed_bead_that_then_loses_leaves_the_twin_consistent(menace: Invoke, db_url: str) -> None:
    menace("init")
    menace("reconcile", "1", "--count", "W=0", "--count", "K=4", "--count", "G=4")
    # the operator reports white from box 1 (the twin has none), confirms it, and the game is lost
    out = menace("operate", input="W\ny\nb2\nK\na3\nS\nc1\n").output
    assert "MENACE loses." in out
    assert "box   1: keep the drawn white (W) bead out; it then holds 0 white" in out
    assert bead_counts(db_url)[(1, 0)] == 0  # the twin holds what the ledger says
    report = check_database(owner(db_url))
    assert report.ok, report.faults
