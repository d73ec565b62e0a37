from __future__ import annotations

import re

from conftest import Invoke, query

EVERY_SQUARE = "\n".join(str(i) for i in range(1, 10)) + "\n"


def bead_rows(db_url: str) -> list[tuple[int, ...]]:
    return query(db_url, "SELECT box_id, move, count FROM beads ORDER BY box_id, move")


def test_a_whole_game_by_hand(menace: Invoke, db_url: str) -> None:
    menace("init")
    before = bead_rows(db_url)
    result = menace("play", "--seed", "4", input=EVERY_SQUARE * 2)
    out = result.output
    assert "MENACE opens box 1. To match its drawing, as it is:" in out
    assert re.search(r"It draws a [a-z ]+ bead \([A-Z]\): .. on the drawing, .. on your board", out)
    assert any(word in out for word in ("MENACE wins.", "A draw.", "You win!"))
    assert "Reinforcement (stored):" in out
    after = bead_rows(db_url)
    assert after != before
    stats = menace("stats").output
    assert "games          1:" in stats


def test_occupied_and_invalid_squares_get_a_new_prompt(menace: Invoke) -> None:
    menace("init")
    result = menace("play", "--seed", "4", input="z9\n" + EVERY_SQUARE * 2)
    assert "'z9' is not a square: type a1..c3 or 1..9" in result.output
    assert "is taken; choose an empty square" in result.output


def test_end_of_input_abandons_the_game(menace: Invoke, db_url: str) -> None:
    menace("init")
    before = bead_rows(db_url)
    result = menace("play", "--seed", "4", input="", ok=False)
    assert result.exit_code == 1
    assert "Game abandoned: nothing was reinforced and nothing was stored." in result.output
    assert "Traceback" not in result.output
    assert bead_rows(db_url) == before
    assert "none yet" in menace("stats").output


def test_both_sides_machine_lets_the_person_start(menace: Invoke) -> None:
    menace("init", "--side", "both")
    result = menace("play", "--first", "me", "--seed", "2", input=EVERY_SQUARE * 2)
    assert "You are X; MENACE ('menace') is O." in result.output


def test_play_refuses_an_exhausted_opening_box(menace: Invoke, db_url: str) -> None:
    menace("init", "--empty-box", "resign")
    query(db_url, "UPDATE beads SET count = 0 WHERE box_id = (SELECT id FROM boxes WHERE number = 1)")
    result = menace("play", input=EVERY_SQUARE, ok=False)
    assert result.exit_code == 1
    assert "box 1 of 'menace', for MENACE's first move, is empty" in result.output
    assert "-m menace reconcile 1)" in result.output  # runnable as shown: tests/test_hints.py
