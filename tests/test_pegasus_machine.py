"""A machine stored with the Pegasus program's rule (``menace init --rule pegasus``): tournament,
play, history, replay, undo, check, export/import and show on both databases; what needs beads is
refused in one line; a replay reproduces the stored odds exactly."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import Invoke, query
from history_helpers import stored_beads, stored_records
from hypothesis import given, settings
from hypothesis import strategies as st

from menace.core.game import Side
from menace.core.learner import Learner, build_boxes
from menace.core.pegasus import UNIT, PegasusRule, Refinement
from menace.core.replay import Replayer
from menace.core.settings import MICHIE, Settings
from menace.games import find_game

EVERY_SQUARE = "\n".join(str(i) for i in range(1, 10)) + "\n"
GAME = find_game("tictactoe")


def mean_of(url: str, name: str = "menace") -> tuple[float, int, int]:
    (row,) = query(url, "SELECT mean_mu, mean_sum, mean_plays FROM machines WHERE name = :n", n=name)
    return float(row[0]), int(row[1]), int(row[2])


def test_michie_stays_the_default_rule(menace: Invoke, db_url: str) -> None:
    menace("init")
    assert query(db_url, "SELECT rule, pegasus_a FROM machines") == [("michie", None)]
    assert "beads now      1,720" in menace("stats").output


@pytest.mark.parametrize("refined", [None, "per-play", "hundred"])
def test_a_pegasus_machine_trains_checks_and_undoes_exactly(menace: Invoke, db_url: str, refined: str | None) -> None:
    extra = ["--refined", refined, "--decay", "0.25"] if refined else []
    out = menace("init", "--rule", "pegasus", *extra).output
    assert "Pegasus: M_n = 1.025^(2^(8-n))" in out and "bead" not in out.split("\n")[2]
    menace("tournament", "--vs", "random", "-n", "230", "--seed", "3")
    after_230 = stored_beads(db_url)
    mean_230 = mean_of(db_url)
    assert all(set(b.values()) != {UNIT} for b in after_230[:1]), "the opening box learnt"
    menace("tournament", "--vs", "random", "-n", "40", "--seed", "4")
    assert "OK" in menace("check").output
    # a replay of the stored games gives the stored odds (and mean outcome) to the unit
    settings = Settings(pegasus=PegasusRule(refinement=Refinement(refined or "none"), decay=0.25 if refined else 0.5))
    r = Replayer(GAME, settings, build_boxes(GAME, settings))
    r.apply_all(stored_records(db_url))
    assert [dict(zip(b, (row[m] for m in b))) for b, row in zip(stored_beads(db_url), r.counts)] == stored_beads(db_url)
    if refined:
        assert r.learner.pegasus is not None and r.learner.pegasus.mean.state == mean_of(db_url)
    out = menace("undo", "--games", "40").output
    assert "Odds restored in" in out
    assert stored_beads(db_url) == after_230
    if refined:
        assert mean_of(db_url) == mean_230
    assert "OK" in menace("check").output


def test_show_history_replay_and_stats_speak_of_chances(menace: Invoke) -> None:
    menace("init", "--rule", "pegasus")
    menace("tournament", "--vs", "random", "-n", "60", "--seed", "1")
    shown = menace("show", "1").output
    assert "each move's chance" in shown and "started at 33.33%" in shown and "beads:" not in shown
    stats = menace("stats").output
    assert "Pegasus" in stats and "beads now" not in stats and "empty boxes" not in stats
    replayed = menace("replay", "60").output
    assert "chances in the box:" in replayed and "-> " in replayed and "%" in replayed
    assert "60" in menace("history", "--last", "2").output


def test_a_person_plays_a_pegasus_machine(menace: Invoke, db_url: str) -> None:
    menace("init", "--rule", "pegasus")
    out = menace("play", "--seed", "4", "--games", "1", input=EVERY_SQUARE * 2).output
    assert "MENACE" in out
    assert stored_beads(db_url) != [dict.fromkeys(b, UNIT) for b in stored_beads(db_url)]
    assert "OK" in menace("check").output


def test_export_and_import_keep_the_rule_and_the_odds(menace: Invoke, db_url: str, new_db_url: Callable[[], str],
                                                      tmp_path: Path) -> None:
    menace("init", "--rule", "pegasus", "--pegasus-a", "1.05", "--pegasus-b", "1.5", "--refined", "hundred")
    menace("tournament", "--vs", "random", "-n", "150", "--seed", "2")
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    menace("export", str(first))
    body = json.loads(first.read_text())
    assert body["version"] == 4 and body["machine"]["settings"]["rule"]["a"] == "1.05"
    assert body["machine"]["mean_outcome"]["plays"] == 50
    other = new_db_url()
    out = menace("--db", other, "import", str(first)).output  # the last --db wins
    assert "Imported" in out and "odds checked against the history" in out, out
    assert stored_beads(other) == stored_beads(db_url) and mean_of(other) == mean_of(db_url)
    menace("--db", other, "export", str(second))
    assert first.read_bytes() == second.read_bytes()
    # a mean outcome that does not follow from the history is refused, and nothing is imported
    body["machine"]["mean_outcome"]["sum"] += 1
    from menace.app.machine_file import checksum

    body.pop("checksum")
    body["checksum"] = checksum(body)
    first.write_text(json.dumps(body))
    third = new_db_url()
    bad = menace("--db", third, "import", str(first), ok=False)
    assert bad.exit_code == 1 and "mean outcome" in bad.output and "Traceback" not in bad.output


REFUSED = {"labels": "matchbox kit with beads to count", "operate": "matchbox machine to operate",
           "reconcile": "bead to recount"}


@pytest.mark.parametrize("args", [["labels", "--out", "x.pdf"], ["operate"], ["reconcile", "1", "--count", "W=3"]])
def test_what_needs_beads_is_refused_in_one_line(menace: Invoke, args: list[str]) -> None:
    menace("init", "--rule", "pegasus")
    result = menace(*args, ok=False, input="")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: machine 'menace' learns by the Pegasus program's rule: it keeps odds, not beads, so there is no "
        f"{REFUSED[args[0]]} for it"]


@pytest.mark.parametrize("args", [["--rule", "pegasus", "--beads", "1,2"], ["--pegasus-a", "2"],
                                  ["--rule", "pegasus", "--pegasus-a", "1"], ["--rule", "pegasus", "--decay", "2"]])
def test_options_that_do_not_fit_the_rule_are_refused(menace: Invoke, db_url: str, args: list[str]) -> None:
    result = menace("init", *args, ok=False)
    assert result.exit_code == 2 and "Traceback" not in result.output  # a bad option, as any other
    assert len([line for line in result.output.splitlines() if line.startswith("Error")]) == 1


# -- replay reproduces the stored odds exactly ------------------------------------------------------------
_RANDOM: list[list[tuple[int, ...]]] = []


def _random_table(learner: Learner) -> list[tuple[int, ...]]:
    """The random player's choices in every position of the game's tree: the same whatever the machine's
    settings, made once for all the examples (and the learner reuses what it works out from one table)."""
    if not _RANDOM:
        _RANDOM.append(learner.options_table(GAME.legal_moves))
    return _RANDOM[0]


# Up to 250 games: a run of 101 or more crosses the 'hundred' refinement's update of its mean outcome
# (its longest period), the per-play one updates at every play; 400 cost half as much again to check
# nothing more.
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), games=st.integers(1, 250), side=st.sampled_from([Side.X, Side.O]),
       refinement=st.sampled_from(list(Refinement)), symmetry=st.booleans(),
       a=st.sampled_from([1.025, 1.1, 1.5]), b=st.sampled_from([2.0, 1.5, 3.0]))
def test_a_replay_gives_back_the_odds_a_run_left(seed: int, games: int, side: Side, refinement: Refinement,
                                                  symmetry: bool, a: float, b: float) -> None:
    rule = PegasusRule(a, b, refinement, 0.3)
    s = replace(MICHIE, side=side.name, symmetry=symmetry, pegasus=rule)
    boxes = build_boxes(GAME, s)
    learner = Learner(GAME, s, boxes)
    table = _random_table(learner)
    data, outcomes = bytearray(), [0] * 16
    rng = random.Random(seed)
    played = 0
    while played < games:
        played += learner.play_batch(side, table, rng, games - played, data, outcomes)
    r = Replayer(GAME, s, boxes)
    assert r.apply_packed(bytes(data)) == len(data)
    assert r.counts == learner.counts
    assert r.learner.pegasus is not None and learner.pegasus is not None
    assert r.learner.pegasus.mean.state == learner.pegasus.mean.state
    assert all(sum(row) > 0 for row in learner.counts), "no box ever empties"


def test_the_wall_gives_each_moves_chance_in_percent(menace: Invoke, db_url: str) -> None:
    from starlette.testclient import TestClient

    from menace.web.app import create_app

    menace("init", "--rule", "pegasus")
    menace("tournament", "--vs", "random", "-n", "100", "--seed", "5")
    with TestClient(create_app(db_url, "menace"), base_url="http://127.0.0.1:8000") as client:
        wall = client.get("/api/machines/menace/boxes").json()
        kit = client.get("/api/machines/menace/labels.pdf")
        game = client.get("/api/machines/menace/games/100").json()
    assert wall["odds"] is True
    for box in wall["boxes"]:
        shares = [row[1] for row in box[4]]
        assert abs(sum(shares) - 100) < 0.1 * len(shares) + 1e-9
        assert {row[3] for row in box[4]} == {round(100 / len(shares), 1)}
    assert kit.status_code == 400 and "keeps odds, not beads" in kit.text
    boxes = [ply["beads"] for ply in game["plies"] if ply.get("beads")]
    assert boxes and all(b["percent"] and 0 <= b["count"] <= 100 for beads in boxes for b in beads)
    assert game["reinforcement"] and all(line["percent"] for line in game["reinforcement"])


@pytest.mark.parametrize(("opponent", "partner_rule"), [("menace:p2", "pegasus"), ("menace:p2", "michie"),
                                                         ("td", None)])
def test_a_pegasus_machine_learns_by_its_rule_against_a_machine_or_td(menace: Invoke, opponent: str,
                                                                       partner_rule: str | None) -> None:
    """Against another machine (of either rule) or td both learners keep their own rule: a replay of
    each one's stored games gives back its stored odds or beads (the fast loops of two machines and of
    td reinforce beads only)."""
    menace("init", "--rule", "pegasus")
    if partner_rule is not None:
        menace("init", "-m", "p2", "--rule", partner_rule, "--side", "O")
    menace("tournament", "--vs", opponent, "-n", "400", "--seed", "5")
    assert "OK" in menace("check").output
    if partner_rule is not None:
        assert "OK" in menace("check", "-m", "p2").output
    menace("init", "-m", "bead", "--side", "O")  # a bead machine against the Pegasus machine on X
    if partner_rule is not None:
        menace("tournament", "-m", "bead", "--vs", "menace:menace", "-n", "300", "--seed", "6")
        assert "OK" in menace("check", "-m", "bead").output
        assert "OK" in menace("check").output


def test_plot_beads_of_a_pegasus_machine_draws_each_moves_chance(menace: Invoke, tmp_path: Path) -> None:
    """A Pegasus box has weights, not beads: the plot gives each move's chance in % (0-100), and the
    box's drawing names chances, never weights of about 4.3 billion."""
    from pdfread import page_text

    menace("init", "--rule", "pegasus")
    menace("tournament", "--vs", "random", "-n", "200", "--seed", "2")
    out = tmp_path / "box.pdf"
    menace("plot", "beads", "-o", str(out))
    text = page_text(out.read_bytes())
    assert "chance" in text and "beads in the box" not in text, text
    assert "100" in text and "4.3G" not in text and "4.29G" not in text, text
    assert "per bead" not in text, text


def test_a_boxs_history_on_the_wall_and_learning_pages_is_in_chances(menace: Invoke, db_url: str) -> None:
    """The box series the wall's and the learning page's charts draw: each move's chance in % for a
    Pegasus machine (weights of about 4.3 billion before), flagged so the pages name it."""
    from starlette.testclient import TestClient

    from menace.web.app import create_app

    menace("init", "--rule", "pegasus")
    menace("tournament", "--vs", "random", "-n", "150", "--seed", "7")
    with TestClient(create_app(db_url, "menace"), base_url="http://127.0.0.1:8000") as client:
        s = client.get("/api/machines/menace/boxes/1/series?points=50").json()
    assert s["odds"] is True
    for i in range(len(s["games"])):
        assert abs(sum(col["counts"][i] for col in s["series"]) - 100) < 0.1 * len(s["series"]) + 1e-9
    assert all(0 <= col["count"] <= 100 for col in s["series"])


def test_the_learning_and_machines_pages_speak_of_a_pegasus_machines_outcomes_not_beads(sqlite_menace: Invoke,
                                                                                       sqlite_url: str) -> None:
    """Gardner's HER learning by the Pegasus rule: the learning chart adds up each game's outcome and says so
    (its preset's Gardner beads, 0 per win, made a curve that only fell while it won); the machines page
    has no bead count for it (it listed the sum of its weights, some 64 thousand billion, as beads)."""
    from starlette.testclient import TestClient

    from menace.web.app import create_app

    sqlite_menace("init", "--game", "hexapawn", "--rule", "pegasus")
    sqlite_menace("tournament", "--vs", "random", "-n", "80", "--seed", "3")
    with TestClient(create_app(sqlite_url, "menace"), base_url="http://127.0.0.1:8000") as client:
        s = client.get("/api/machines/menace/learning?points=20").json()
        listed = client.get("/api/machines").json()["machines"]
        exported = client.get("/api/machines/menace/export").content
        imported = client.post("/api/import?as=copy", content=exported, headers={"Content-Type": "application/json"})
    assert imported.status_code == 201 and imported.json()["odds"] is True, imported.text
    assert s["cumulative"][-1] == s["wins"] - s["losses"] and s["wins"] > s["losses"]
    assert s["curve"] == "cumulative outcome (+1 win, +0 draw, \u22121 loss)"
    assert s["rule"].startswith("Pegasus: M_n")
    assert [(m["name"], m["odds"], m["beads"]) for m in listed] == [("menace", True, None)]


HEXAPAWN_TRIES = "a1-a2\nb1-b2\nc1-c2\na2-a3\nb2-b3\nc2-c3\na1-b2\nb1-a2\nb1-c2\nc1-b2\n" * 2
"""A person's tries at Hexapawn, one a line: the game takes the first legal one each turn."""


def test_a_person_playing_her_reads_each_moves_chance_not_its_weight(sqlite_menace: Invoke) -> None:
    """Gardner's HER learning by the Pegasus rule, played at the terminal: MENACE's box and the
    reinforcement give each move's chance in %, never weights of about 4.3 billion called beads."""
    sqlite_menace("init", "--game", "hexapawn", "--rule", "pegasus")
    sqlite_menace("tournament", "--vs", "random", "-n", "30", "--seed", "2")  # odds no longer all equal
    out = sqlite_menace("play", "--seed", "1", "--games", "1", input=HEXAPAWN_TRIES).output
    assert "  chances: " in out and "beads:" not in out and " bead (" not in out, out
    assert not re.search(r"\d,\d{3},\d{3}", out), out
    assert re.search(r"box +\d+: [a-z ]+ \(\w\) [a-c][1-3]-[a-c][1-3]: chance \d+\.\d\d% -> \d+\.\d\d%", out), out
    assert "OK" in sqlite_menace("check").output


def test_the_play_page_gives_a_pegasus_machines_reinforcement_in_chances(sqlite_menace: Invoke,
                                                                        sqlite_url: str) -> None:
    from starlette.testclient import TestClient

    from menace.web.app import create_app

    sqlite_menace("init", "--game", "hexapawn", "--rule", "pegasus")
    with TestClient(create_app(sqlite_url, "menace"), base_url="http://127.0.0.1:8000") as client:
        view = client.post("/api/play", json={"first": "me", "seed": 3}).json()
        seat = view["seat"]
        while not view["over"]:
            view = client.post(f"/api/play/{seat}/move", json={"move": view["legal"][0]}).json()
    ledger = view["end"]["ledger"]
    assert ledger and all(line["percent"] and 0 <= line["before"] <= 100 and 0 <= line["after"] <= 100
                          for line in ledger), ledger
    assert any(line["before"] != line["after"] for line in ledger)


def test_check_undo_and_a_frozen_run_of_her_speak_of_odds_not_beads(sqlite_menace: Invoke) -> None:
    """What a person reads after checking, freezing and undoing a Pegasus machine names its odds: it has no beads."""
    sqlite_menace("init", "--game", "hexapawn", "--rule", "pegasus")
    sqlite_menace("tournament", "--vs", "random", "-n", "40", "--seed", "1")
    frozen = sqlite_menace("tournament", "--vs", "random", "-n", "5", "--seed", "2", "--frozen").output
    assert "Played without learning (frozen): no odds changed;" in frozen, frozen
    assert "odds match)." in sqlite_menace("check", "--full").output
    assert "bead" not in sqlite_menace("replay", "45").output.split("Result:")[1]
    undone = sqlite_menace("undo", "--games", "5").output
    assert "No odds changed (the games were played without learning" in undone, undone
    sqlite_menace("init", "-m", "beads")
    both = sqlite_menace("check", "--all").output
    assert "beads and odds match)." in both, both


def test_operating_a_pegasus_machine_that_plays_both_sides_is_refused_before_any_question(
    sqlite_menace: Invoke,
) -> None:
    """The classroom's Nim machine learning by the Pegasus rule plays both sides: operate refused it only after
    asking who starts (and then, at the end of input, told the person to put beads back)."""
    sqlite_menace("init", "--game", "nim", "--rule", "pegasus")
    result = sqlite_menace("operate", ok=False, input="")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: machine 'menace' learns by the Pegasus program's rule: it keeps odds, not beads, so there is no "
        f"{REFUSED['operate']} for it"]


def test_the_machines_page_builds_a_pegasus_machine_as_init_does(sqlite_url: str) -> None:
    """``POST /api/machines`` takes init's rule and its parameters (it built only machines of beads)."""
    from starlette.testclient import TestClient

    from menace.app.machines import settings_for
    from menace.web.app import create_app

    with TestClient(create_app(sqlite_url, "menace"), base_url="http://127.0.0.1:8000") as client:
        built = client.post("/api/machines", json={"name": "her", "game": "hexapawn", "rule": "pegasus",
                                                   "pegasus_a": 1.05, "pegasus_b": 2, "refined": "per-play",
                                                   "decay": 0.25})
        refused = client.post("/api/machines", json={"name": "q", "rule": "pegasus", "beads": "4,3,2,1"})
        bad_a = client.post("/api/machines", json={"name": "q", "rule": "pegasus", "pegasus_a": "big"})
    assert built.status_code == 201, built.text
    assert built.json()["odds"] is True and built.json()["preset"] == "pegasus"
    assert built.json()["settings"] == settings_for("hexapawn", rule="pegasus", a=1.05, b=2, refinement="per-play",
                                                    decay=0.25)[1].describe()
    assert refused.status_code == 400 and "keeps odds, not beads" in refused.json()["error"]
    assert bad_a.status_code == 400 and "'pegasus_a' must be a number" in bad_a.json()["error"]
