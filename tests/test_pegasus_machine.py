"""Machines that learn by the Pegasus rule, stored: built, trained, checked, undone, on both databases;
and games played without learning (frozen), for both rules."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest
from conftest import Invoke, query

from menace.app.pegasus_history import replay_to
from menace.core.pegasus import EVEN, GRID, Memory, Odds
from menace.storage import repository as repo
from menace.storage.database import open_database, session_scope


def stored(url: str, name: str) -> repo.StoredMachine:
    db = open_database(url)
    try:
        with session_scope(db) as s:
            return repo.load_machine(s, name)
    finally:
        db.dispose()


def replayed(url: str, name: str, upto: int | None = None) -> tuple[list[dict[int, Odds]], Memory]:
    db = open_database(url)
    try:
        with session_scope(db) as s:
            learner, _ = replay_to(s, repo.load_machine(s, name), upto)
        return learner.all_odds(), learner.memory
    finally:
        db.dispose()


def test_a_pegasus_machine_learns_and_its_odds_replay_exactly(menace: Invoke, db_url: str) -> None:
    out = menace("init", "-m", "peg", "--rule", "pegasus").output
    assert "304 boxes" in out and "odds" in out and "beads" not in out.split("\n")[2]
    assert stored(db_url, "peg").odds == [{m: EVEN for m in box.initial} for box in stored(db_url, "peg").boxes]
    menace("tournament", "-m", "peg", "--vs", "random", "-n", "400", "--seed", "7")
    machine = stored(db_url, "peg")
    assert machine.odds != [{m: EVEN for m in box.initial} for box in machine.boxes]
    odds, memory = replayed(db_url, "peg")
    assert odds == machine.odds and memory == machine.memory
    # A move that won at once is certain: level one (M_1 is infinite).
    assert any(o.level == 1 for box in machine.odds for o in box.values())
    assert "beads match" in menace("check", "--all").output
    # The bead rows are only the list of moves: one each, never changed.
    assert {c for (c,) in query(db_url, "SELECT DISTINCT count FROM beads")} == {1}


def test_check_finds_odds_that_differ_from_the_history(menace: Invoke, db_url: str) -> None:
    menace("init", "-m", "peg", "--rule", "pegasus")
    menace("tournament", "-m", "peg", "--vs", "random", "-n", "50", "--seed", "1")
    box_id = query(db_url, "SELECT id FROM boxes WHERE number = 1")[0][0]
    query(db_url, "UPDATE odds SET value = '0 5' WHERE box_id = :b AND move = 4", b=box_id)
    result = menace("check", "--all", ok=False)
    assert result.exit_code != 0
    assert "peg: box 1 odds differ from its history (b2: stored 0 5, history gives" in result.output


def test_undo_restores_the_odds_exactly(menace: Invoke, db_url: str) -> None:
    menace("init", "-m", "peg", "--rule", "pegasus", "--refine", "per-100", "--decay", "0.9")
    menace("tournament", "-m", "peg", "--vs", "random", "-n", "260", "--seed", "3")
    after_200, memory_200 = replayed(db_url, "peg", 200)
    assert memory_200.plays == 0 and memory_200.mu != 0  # two sets of one hundred made mu move
    out = menace("undo", "-m", "peg", "-n", "60").output
    assert "Chances restored" in out
    machine = stored(db_url, "peg")
    assert machine.odds == after_200 and machine.memory == memory_200
    menace("undo", "-m", "peg", "-n", "200")
    machine = stored(db_url, "peg")
    assert machine.odds == [{m: EVEN for m in box.initial} for box in machine.boxes]
    assert machine.memory == Memory()
    assert "beads match" in menace("check", "--all").output


def test_playing_without_learning_changes_nothing_and_is_marked(menace: Invoke, db_url: str) -> None:
    for rule in ("michie", "pegasus"):
        name = f"m-{rule}"
        menace("init", "-m", name, "--rule", rule)
        menace("tournament", "-m", name, "--vs", "random", "-n", "100", "--seed", "2")
        before = stored(db_url, name)
        out = menace("tournament", "-m", name, "--vs", "smart", "-n", "100", "--seed", "5", "--no-learning").output
        assert "without learning" in out
        after = stored(db_url, name)
        assert after.odds == before.odds and [b.beads for b in after.boxes] == [b.beads for b in before.boxes]
        assert after.memory == before.memory
        assert "tournament, no learning" in menace("history", "-m", name, "--last", "1").output
        assert menace("check", "--all").exit_code == 0
        # More learning after the frozen games: the replay must skip them to agree.
        menace("tournament", "-m", name, "--vs", "random", "-n", "50", "--seed", "9")
        assert "beads match" in menace("check", "--all").output
        menace("undo", "-m", name, "-n", "50")
        again = stored(db_url, name)
        assert again.odds == before.odds and [b.beads for b in again.boxes] == [b.beads for b in before.boxes]
        assert "without learning" in menace("undo", "-m", name, "-n", "3").output
        assert "beads match" in menace("check", "--all").output
    assert "Played without learning: no box changed." in menace("replay", "-m", "m-michie", "197").output
    assert query(db_url, "SELECT count(*) FROM runs WHERE frozen")[0][0] == 2


def test_a_hexapawn_machine_learns_by_the_pegasus_rule(menace: Invoke, db_url: str) -> None:
    menace("init", "-m", "her", "--game", "hexapawn", "--rule", "pegasus")
    menace("tournament", "-m", "her", "--vs", "random", "-n", "300", "--seed", "4")
    machine = stored(db_url, "her")
    assert machine.rule is not None and machine.rule.longest == 7
    assert replayed(db_url, "her")[0] == machine.odds
    assert "beads match" in menace("check", "--all").output


def test_the_rule_is_stored_with_its_parameters(menace: Invoke, db_url: str) -> None:
    menace("init", "-m", "p", "--rule", "pegasus", "--a", "1.05", "--b", "1.5", "--refine", "per-play",
           "--decay", "0.75")
    rule = stored(db_url, "p").rule
    assert rule is not None and (rule.a, rule.b, rule.refinement.value, rule.decay) == (
        Fraction(21, 20), Fraction(3, 2), "per-play", Fraction(3, 4))
    assert rule.scale % GRID == 0
    out = menace("stats", "-m", "p").output
    assert "pegasus" in out and "A" in out and "per-play" in out


@pytest.mark.parametrize("args,message", [
    (["--rule", "pegasus", "--beads", "8,4,2,1"], "--beads sets beads"),
    (["--rule", "pegasus", "--a", "0.9"], "A must be above 1"),
    (["--rule", "pegasus", "--decay", "1"], "decay"),
    (["--refine", "per-100"], "add --rule pegasus"),
    (["--rule", "pegasus", "--a", "x"], "A 'x' is not a number"),
])
def test_bad_rule_options_are_one_line(menace: Invoke, args: list[str], message: str) -> None:
    result = menace("init", "-m", "bad", *args, ok=False)
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_a_pegasus_machine_refuses_opponents_it_cannot_tabulate(menace: Invoke) -> None:
    menace("init", "-m", "peg", "--rule", "pegasus")
    result = menace("tournament", "-m", "peg", "--vs", "td", "-n", "5", ok=False)
    assert result.exit_code == 1 and "chooses by the position alone" in result.output


def test_show_gives_each_moves_chance_and_exact_odds(menace: Invoke) -> None:
    menace("init", "-m", "peg", "--rule", "pegasus")
    out = menace("show", "-m", "peg", "1").output
    assert "odds, not beads" in out and out.count("33.33%") == 3 and "odds 1" in out
    menace("tournament", "-m", "peg", "--vs", "random", "-n", "100", "--seed", "1")
    assert menace("show", "-m", "peg", "1", "--at", "0").output.count("33.33%") == 3
    assert "A^" in menace("show", "-m", "peg", "1").output


def test_replay_shows_the_chances_a_game_met_and_left(menace: Invoke) -> None:
    menace("init", "-m", "peg", "--rule", "pegasus")
    menace("tournament", "-m", "peg", "--vs", "random", "-n", "5", "--seed", "1")
    out = menace("replay", "-m", "peg", "1").output
    assert "from box 1: its chance was 33.3%" in out and "learns by the Pegasus rule" in out


def test_play_chooses_by_the_odds_and_learns_or_not(menace: Invoke, db_url: str) -> None:
    menace("init", "-m", "peg", "--rule", "pegasus")
    moves = "\n".join(["a1", "a2", "a3", "b1", "b3", "c1", "c2", "c3", "b2"] * 2) + "\n"
    out = menace("play", "-m", "peg", "--seed", "1", "--games", "1", input=moves).output
    assert "its chances (Pegasus rule)" in out and "Its odds are multiplied" in out
    after_one = stored(db_url, "peg")
    assert after_one.odds == replayed(db_url, "peg")[0]
    out = menace("play", "-m", "peg", "--seed", "2", "--games", "1", "--no-learning", input=moves).output
    assert "Played without learning" in out
    assert stored(db_url, "peg").odds == after_one.odds
    assert "play, no learning" in menace("history", "-m", "peg").output


@pytest.mark.parametrize("args,what", [
    (["labels", "--out", "kit.pdf"], "printing its kit"),
    (["plot", "beads", "-o", "beads.png"], "drawing its bead counts"),
    (["plot", "boxes", "-o", "boxes.png"], "drawing its bead counts"),
    (["reconcile", "1", "--count", "W=3"], "counting its beads"),
    (["operate"], "operating a physical machine"),
])
def test_physical_operations_are_refused_in_one_line(menace: Invoke, args: list[str], what: str) -> None:
    menace("init", "-m", "peg", "--rule", "pegasus")
    result = menace("-m", "peg", *args, ok=False, input="")
    assert result.exit_code == 1 and "learns by the Pegasus rule" in result.output and what in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_export_and_import_keep_the_rule_the_odds_and_frozen_runs(menace: Invoke, db_url: str,
                                                                  tmp_path: Any) -> None:
    menace("init", "-m", "peg", "--rule", "pegasus", "--refine", "per-100")
    menace("tournament", "-m", "peg", "--vs", "random", "-n", "150", "--seed", "1")
    menace("tournament", "-m", "peg", "--vs", "random", "-n", "20", "--seed", "2", "--no-learning")
    menace("tournament", "-m", "peg", "--vs", "random", "-n", "30", "--seed", "3")
    menace("init", "-m", "bead")
    menace("tournament", "-m", "bead", "--vs", "random", "-n", "40", "--seed", "4", "--no-learning")
    menace("tournament", "-m", "bead", "--vs", "random", "-n", "40", "--seed", "5")
    for name in ("peg", "bead"):
        path = tmp_path / f"{name}.json"
        menace("export", "-m", name, str(path))
        body = json.loads(path.read_text())
        assert body["version"] == 3 and body["history"]["runs"][0 if name == "bead" else 1]["frozen"] is True
        menace("import", str(path), "--as", f"{name}2")
        a, b = stored(db_url, name), stored(db_url, f"{name}2")
        assert (a.rule, a.odds, a.memory) == (b.rule, b.odds, b.memory)
        assert [x.beads for x in a.boxes] == [x.beads for x in b.boxes]
    assert "beads match" in menace("check", "--all").output
    # Odds that do not follow from the history are refused (the checksum made to match the change).
    from menace.app.machine_file import checksum

    body = json.loads((tmp_path / "peg.json").read_text())
    body["boxes"][0]["odds"]["b2"] = "0 1"
    body.pop("checksum")
    body["checksum"] = checksum(body)
    (tmp_path / "bad.json").write_text(json.dumps(body))
    result = menace("import", str(tmp_path / "bad.json"), "--as", "bad", ok=False)
    assert result.exit_code == 1 and "box 1's odds do not follow from the history" in result.output


def test_the_machine_list_says_odds(menace: Invoke) -> None:
    menace("init", "-m", "peg", "--rule", "pegasus")
    line = [x for x in menace("machines").output.splitlines() if x.startswith("peg ")][0]
    assert "odds" in line


def test_a_bead_machine_that_never_played_frozen_exports_version_2(menace: Invoke, tmp_path: Any) -> None:
    menace("init")
    menace("tournament", "--vs", "random", "-n", "10", "--seed", "1")
    menace("export", str(tmp_path / "m.json"))
    assert json.loads((tmp_path / "m.json").read_text())["version"] == 2


def test_michie_score_curve(menace: Invoke, db_url: str) -> None:
    from menace.app.history import learning_series
    from menace.app.series import MICHIE_SCORE

    menace("init")
    menace("tournament", "--vs", "smart", "-n", "220", "--seed", "1")
    data = learning_series(db_url, "menace", score=MICHIE_SCORE)
    w, d, loss = data.totals
    assert data.cumulative[-1] == 3 * w + d - loss and data.rule == "3W + D \u2212 L"
    menace("init", "-m", "peg", "--rule", "pegasus")
    menace("tournament", "-m", "peg", "--vs", "smart", "-n", "50", "--seed", "1")
    peg = learning_series(db_url, "peg")
    w, d, loss = peg.totals
    assert peg.cumulative[-1] == 3 * w + d - loss
