"""The round robin: tallies add up, the perfect players never lose, a frozen MENACE stays frozen."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from menace.app.arena import (
    ArenaError,
    ArenaResult,
    Entrant,
    EntrantFactory,
    Tally,
    pairings,
    run_arena,
)
from menace.core.game import Side
from menace.core.learner import Learner, build_boxes
from menace.core.match import MenacePlayer
from menace.core.settings import Settings
from menace.games.tictactoe import TICTACTOE
from menace.players import Player, all_players
from menace.players.basic import RandomPlayer
from menace.render.arena import heatmap
from menace.render.tables import arena_table

G = TICTACTOE
GAMES = 20


@pytest.fixture(scope="module")
def seven() -> ArenaResult:
    entrants = [(spec.name, spec.create(G, random.Random(7))) for spec in all_players()]
    return run_arena(G, entrants, GAMES, random.Random(7))


def test_every_ordered_pair_plays_its_games(seven: ArenaResult) -> None:
    labels = seven.labels
    assert len(labels) == 7
    assert len(seven.pairs) == 7 * 6
    assert all(t.games == GAMES for t in seven.pairs.values())
    assert seven.games == 42 * GAMES
    for row in labels:
        assert seven.total(row).games == 12 * GAMES
        for col in labels:
            if row != col:
                assert seven.versus(row, col).games == 2 * GAMES
                assert seven.versus(row, col) == seven.versus(col, row).reversed()
    wins = sum(seven.total(label).wins for label in labels)
    assert wins == sum(seven.total(label).losses for label in labels)


def test_perfect_and_movetable_never_lose(seven: ArenaResult) -> None:
    for label in ("perfect", "movetable"):
        assert seven.total(label).losses == 0
    assert seven.versus("perfect", "random").wins > 0


def test_table_shape(seven: ArenaResult) -> None:
    lines = arena_table(seven)
    assert len(lines) == 8
    assert lines[0].split() == [*seven.labels, "total", "points"]
    for label, line in zip(seven.labels, lines[1:]):
        cells = line.split()
        assert cells[0] == label and len(cells) == 10
        assert cells[1 + seven.labels.index(label)] == "-"
        for col, cell in zip(seven.labels, cells[1:8]):
            if col != label:
                assert cell == str(seven.versus(label, col))
                assert sum(map(int, cell.split("/"))) == 2 * GAMES
        assert cells[8] == str(seven.total(label))


def test_same_seed_same_arena() -> None:
    def once() -> ArenaResult:
        entrants = [(name, RandomPlayer(G)) for name in ("a", "b", "c")]
        return run_arena(G, entrants, 10, random.Random(42))

    assert once() == once()


def test_factories_make_a_fresh_player_for_every_pairing() -> None:
    made: list[Player] = []

    def factory(rng: random.Random) -> Player:
        made.append(RandomPlayer(G))
        return made[-1]

    shared = RandomPlayer(G)
    entrants: list[tuple[str, Player | EntrantFactory]] = [
        ("fresh", factory), ("shared", shared), ("other", RandomPlayer(G))
    ]
    result = run_arena(G, entrants, 3, random.Random(0))
    assert len(made) == 4  # one per pairing it plays: twice as X, twice as O
    assert len(result.pairs) == 6


def test_a_frozen_menace_does_not_learn_and_plays_only_its_sides() -> None:
    settings = Settings(side="X")
    learner = Learner(G, settings, build_boxes(G, settings))
    before = learner.snapshot()
    menace = MenacePlayer(learner, Side.X, learn=False)
    entrants = [Entrant("menace:x", menace, (Side.X,)), Entrant("random", RandomPlayer(G))]
    assert pairings(entrants) == 1
    result = run_arena(G, entrants, 50, random.Random(0))
    assert list(result.pairs) == [("menace:x", "random")]
    assert result.versus("menace:x", "random").games == 50
    assert learner.snapshot() == before
    assert result.as_x("random", "menace:x").games == 0  # MENACE has no boxes for O


def test_bad_arenas_are_refused() -> None:
    with pytest.raises(ArenaError, match="at least two"):
        run_arena(G, [("a", RandomPlayer(G))], 1, random.Random(0))
    with pytest.raises(ArenaError, match="listed twice"):
        run_arena(G, [("a", RandomPlayer(G)), ("a", RandomPlayer(G))], 1, random.Random(0))
    with pytest.raises(ArenaError, match="at least one game"):
        run_arena(G, [("a", RandomPlayer(G)), ("b", RandomPlayer(G))], 0, random.Random(0))


def test_tally_arithmetic() -> None:
    t = Tally(3, 2, 1)
    assert (t.games, t.points, str(t)) == (6, 4.0, "3/2/1")
    assert t.share == pytest.approx(4 / 6)
    assert t.reversed() == Tally(1, 2, 3)
    assert t + Tally(1, 1, 1) == Tally(4, 3, 2)


@pytest.mark.parametrize(
    ("suffix", "signature"),
    [(".png", b"\x89PNG\r\n\x1a\n"), (".svg", b"<?xml"), (".pdf", b"%PDF-")],
)
def test_heatmap_writes_the_format_of_its_extension(
    seven: ArenaResult, tmp_path: Path, suffix: str, signature: bytes
) -> None:
    path = tmp_path / f"arena{suffix}"
    heatmap(seven, path)
    assert path.read_bytes().startswith(signature)


def test_heatmap_is_reproducible_as_pdf(seven: ArenaResult, tmp_path: Path) -> None:
    heatmap(seven, tmp_path / "a.pdf")
    heatmap(seven, tmp_path / "b.pdf")
    assert (tmp_path / "a.pdf").read_bytes() == (tmp_path / "b.pdf").read_bytes()


def test_heatmap_refuses_other_formats(seven: ArenaResult, tmp_path: Path) -> None:
    with pytest.raises(ArenaError, match="png"):
        heatmap(seven, tmp_path / "arena.jpg")
