"""How fast a Pegasus-rule machine trains against random, as a share of a Michie-rule (bead) machine's
speed (issue 26: at least half as fast).

Two measures, each the CPU seconds of this process (not wall-clock: the machine may be shared):
the tournament's own loop in memory (``Learner.play_batch``, the loop a tournament spends its night
in), and a whole stored tournament (``run_tournament`` on a fresh SQLite database: the loop, packing
and writing the games, the odds or beads that changed). The ratio printed is Pegasus games per CPU
second over Michie games per CPU second. Exits 1 if the stored tournament's ratio is under the target.

    python benchmarks/pegasus_speed.py [--games N] [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

TARGET = 0.5


def loop_rate(settings: object, games: int) -> float:
    """Games per CPU second of the in-memory tournament loop against random, as X."""
    from menace.core.game import Side
    from menace.core.learner import Learner, build_boxes
    from menace.games import find_game

    game = find_game("tictactoe")
    learner = Learner(game, settings, build_boxes(game, settings))  # type: ignore[arg-type]
    table = learner.options_table(game.legal_moves)
    rng = random.Random(1963)
    data, outcomes = bytearray(), [0] * 16
    start = time.process_time()
    played = 0
    while played < games:
        played += learner.play_batch(Side.X, table, rng, min(5000, games - played), data, outcomes)
        data.clear()
    return games / (time.process_time() - start)


def stored_rate(rule: str, games: int, folder: Path) -> float:
    """Games per CPU second of ``menace tournament --vs random`` on a fresh SQLite machine (in process)."""
    from menace.app.database import Database
    from menace.app.machines import init_machine, open_machine, settings_for
    from menace.app.tournament import run_tournament

    db = Database(f"sqlite:///{folder / f'{rule}.db'}")
    try:
        game, settings, label = settings_for(rule=rule)
        init_machine(db, "m", settings, label, game=game)
        with open_machine(db, "m", holder="a benchmark") as m:
            start = time.process_time()
            run_tournament(m, "random", games=games, seed=1)
            return games / (time.process_time() - start)
    finally:
        db.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="games per measure [default: 100,000]")
    parser.add_argument("--repeat", type=int, default=3, help="best of N [default: 3]")
    opts = parser.parse_args()
    from menace.core.pegasus import PegasusRule
    from menace.core.settings import MICHIE

    pegasus = replace(MICHIE, pegasus=PegasusRule())
    load = os.getloadavg()[0]
    print(f"{opts.games:,} games against random, as X; CPU seconds of this process, best of {opts.repeat}; "
          f"load average {load:.2f} on {os.cpu_count()} cores")
    michie_loop = max(loop_rate(MICHIE, opts.games) for _ in range(opts.repeat))
    pegasus_loop = max(loop_rate(pegasus, opts.games) for _ in range(opts.repeat))
    print(f"loop in memory:     michie {michie_loop:10,.0f} games/s, pegasus {pegasus_loop:10,.0f} games/s, "
          f"ratio {pegasus_loop / michie_loop:.2f}")
    rates: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for rule in ("michie", "pegasus"):
            best = 0.0
            for i in range(opts.repeat):
                folder = Path(tmp) / f"{rule}{i}"
                folder.mkdir()
                best = max(best, stored_rate(rule, opts.games, folder))
            rates[rule] = best
    ratio = rates["pegasus"] / rates["michie"]
    print(f"stored tournament:  michie {rates['michie']:10,.0f} games/s, pegasus {rates['pegasus']:10,.0f} games/s, "
          f"ratio {ratio:.2f} (target {TARGET})")
    return 0 if ratio >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
