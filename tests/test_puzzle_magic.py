"""The MAGIC puzzle core: key patterns, presses, parsing and the breadth-first solver."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from menace.puzzles import magic as mg

grids = st.integers(min_value=0, max_value=mg.GRID_COUNT - 1)
keys = st.sampled_from(mg.KEYS)

SEED_START = "0 0 0 / 1 0 0 / 0 0 0"


def test_key_patterns_match_the_instruction_chart() -> None:
    chart = {
        1: (1, 1, 0, 1, 1, 0, 0, 0, 0),
        2: (1, 1, 1, 0, 0, 0, 0, 0, 0),
        3: (0, 1, 1, 0, 1, 1, 0, 0, 0),
        4: (1, 0, 0, 1, 0, 0, 1, 0, 0),
        5: (0, 1, 0, 1, 1, 1, 0, 1, 0),
        6: (0, 0, 1, 0, 0, 1, 0, 0, 1),
        7: (0, 0, 0, 1, 1, 0, 1, 1, 0),
        8: (0, 0, 0, 0, 0, 0, 1, 1, 1),
        9: (0, 0, 0, 0, 1, 1, 0, 1, 1),
    }
    assert {key: mg.grid_cells(mask) for key, mask in mg.KEY_MASKS.items()} == chart


def test_goal_is_ones_round_a_centre_zero() -> None:
    assert mg.grid_cells(mg.GOAL) == (1, 1, 1, 1, 0, 1, 1, 1, 1)
    assert mg.is_won(mg.GOAL)


def test_the_seed_example_game_wins() -> None:
    grid = mg.parse_grid(SEED_START)
    grid = mg.press(grid, 7)
    assert grid == mg.parse_grid("000 010 110")
    grid = mg.press(grid, 1)
    assert grid == mg.parse_grid("110 100 110")
    grid = mg.press(grid, 6)
    assert mg.is_won(grid)


def test_the_seed_start_needs_three_presses() -> None:
    start = mg.parse_grid(SEED_START)
    assert mg.fewest_presses(start) == 3
    assert mg.shortest_solution(start) == (1, 6, 7)
    assert mg.hint(start) in (1, 6, 7)


@pytest.mark.parametrize("text", ["000100000", "000 100 000", SEED_START, "0,0,0/1,0,0/0,0,0"])
def test_parse_grid_accepts_the_written_forms(text: str) -> None:
    assert mg.parse_grid(text) == 1 << 3


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "0 cells"), ("0000", "4 cells"), ("0000000000", "10 cells"), ("00010002x", "'2', 'x'")],
)
def test_parse_grid_rejects_malformed_text(text: str, message: str) -> None:
    with pytest.raises(mg.BadGridError, match=message):
        mg.parse_grid(text)


@pytest.mark.parametrize("key", [0, 10, -1])
def test_press_rejects_keys_outside_one_to_nine(key: int) -> None:
    with pytest.raises(mg.BadKeyError):
        mg.press(mg.GOAL, key)


@pytest.mark.parametrize("text", ["", "x", "1.5", "10", "0"])
def test_parse_key_rejects_non_keys(text: str) -> None:
    with pytest.raises(mg.BadKeyError):
        mg.parse_key(text)


def test_solution_table_facts_are_computed() -> None:
    table = mg.solution_table()
    assert table.every_grid_solvable
    assert table.solvable_count == mg.GRID_COUNT
    # The nine patterns are independent, so a grid needs k presses for C(9, k) grids.
    assert [len(table.grids_needing(k)) for k in range(10)] == [1, 9, 36, 84, 126, 126, 84, 36, 9, 1]
    assert table.max_presses == 9
    assert table.grids_needing(9) == (mg.parse_grid("010 111 010"),)


def test_hint_at_the_goal_is_none() -> None:
    assert mg.hint(mg.GOAL) is None
    assert mg.shortest_solution(mg.GOAL) == ()


def test_random_start_is_reproducible_and_never_the_goal() -> None:
    first = [mg.random_start(random.Random(seed)) for seed in range(200)]
    again = [mg.random_start(random.Random(seed)) for seed in range(200)]
    assert first == again
    assert mg.GOAL not in first


def test_key_chart_numbers_every_key_under_its_pattern() -> None:
    chart = mg.format_key_chart().splitlines()
    assert chart[0] == " 1 1 0       1 1 1       0 1 1"
    number_lines = [line for line in chart if line.strip() and "0" not in line and "1 " not in line[:3]]
    assert [line.split() for line in number_lines] == [["1", "2", "3"], ["4", "5", "6"], ["7", "8", "9"]]


@given(grids, keys)
def test_pressing_a_key_twice_is_the_identity(grid: int, key: int) -> None:
    assert mg.press(mg.press(grid, key), key) == grid


@given(grids, keys, keys)
def test_presses_commute(grid: int, first: int, second: int) -> None:
    assert mg.press(mg.press(grid, first), second) == mg.press(mg.press(grid, second), first)


@given(grids)
def test_shortest_solution_wins_in_the_fewest_presses(grid: int) -> None:
    solution = mg.shortest_solution(grid)
    assert mg.is_won(mg.press_all(grid, solution))
    assert len(solution) == mg.fewest_presses(grid)


@given(grids)
def test_hint_brings_the_goal_one_press_nearer(grid: int) -> None:
    key = mg.hint(grid)
    if key is None:
        assert mg.is_won(grid)
    else:
        assert mg.fewest_presses(mg.press(grid, key)) == mg.fewest_presses(grid) - 1


@given(grids)
def test_grid_text_round_trips(grid: int) -> None:
    assert mg.parse_grid(mg.grid_text(grid)) == grid
    assert mg.parse_grid(mg.format_grid(grid).replace("\n", "/")) == grid
    assert mg.grid_from_cells(mg.grid_cells(grid)) == grid
