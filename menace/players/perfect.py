"""Rich & Knight's Program 3: minimax over the whole game tree.

Every position's worth is worked out once per process and kept. A score is from the point of
view of the side to move: positive wins, negative loses, zero draws, and the further from zero
the sooner the end, so the player takes the fastest win and, when it is lost, holds out longest.

>>> from menace.games.tictactoe import TICTACTOE
>>> PerfectPlayer(TICTACTOE, deterministic=True).options(TICTACTOE.decode("XX.OO...."))
(2,)
"""

from __future__ import annotations

from menace.core.game import Game, Move, State, once_per_game
from menace.players.base import PlayerParamError, RulePlayer

WIN = 100
"""The score of a win on the spot; each further move towards it costs one point."""

DETERMINISTIC_PARAMS = ("det", "deterministic", "first")


class Solver:
    """Minimax scores of a game's positions, memoized as they are asked for."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self._scores: dict[State, int] = {}
        self._best: dict[State, tuple[Move, ...]] = {}

    def score(self, state: State) -> int:
        """The worth of ``state`` to the side to move, with best play on both sides."""
        known = self._scores.get(state)
        if known is not None:
            return known
        game = self.game
        outcome = game.outcome(state)
        if outcome is not None:
            # The side to move did not make the last move, so a winner here is its opponent.
            value = 0 if outcome.winner is None else -WIN
        else:
            value = max(self.move_score(state, m) for m in game.legal_moves(state))
        self._scores[state] = value
        return value

    def move_score(self, state: State, move: Move) -> int:
        """The worth to the side to move of playing ``move`` in ``state``."""
        theirs = -self.score(self.game.play(state, move))
        # One move further from the end: a win is worth a little less, a loss hurts a little less.
        return theirs - 1 if theirs > 0 else theirs + 1 if theirs < 0 else 0

    def best_moves(self, state: State) -> tuple[Move, ...]:
        """Every legal move with the best score, in move order; ``()`` when the game is over."""
        known = self._best.get(state)
        if known is not None:
            return known
        legal = self.game.legal_moves(state)
        if not legal or self.game.outcome(state) is not None:
            best: tuple[Move, ...] = ()
        else:
            scores = {m: self.move_score(state, m) for m in legal}
            top = max(scores.values())
            best = tuple(m for m in legal if scores[m] == top)
        self._best[state] = best
        return best


solver = once_per_game(Solver)
"""The one :class:`Solver` of a game in this process."""


class PerfectPlayer(RulePlayer):
    """Never loses: uniform among the best moves, or the lowest-numbered one if deterministic."""

    name = "perfect"

    def __init__(self, game: Game, deterministic: bool = False) -> None:
        self.solver = solver(game)
        self.deterministic = deterministic

    def options(self, state: State) -> tuple[Move, ...]:
        best = self.solver.best_moves(state)
        return best[:1] if self.deterministic else best


def parse_param(param: str | None) -> bool:
    """Whether ``perfect:PARAM`` asks for the deterministic player."""
    if param is None:
        return False
    if param.strip().lower() in DETERMINISTIC_PARAMS:
        return True
    raise PlayerParamError(f"perfect takes 'det' (deterministic) or nothing, not {param!r}")
