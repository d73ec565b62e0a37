"""How fast a Pegasus-rule tournament against random runs beside a Michie-rule one (issue 26: at least
half as fast). Times the library's tournament on a fresh database (playing, packing and storing every
game), best of three, and prints games per second and the pegasus/michie ratio.

    python benchmarks/pegasus_speed.py [--games N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

TARGET_RATIO = 0.5


def rate(rule: str, games: int) -> float:
    from menace.app.machines import init_machine, open_machine, pegasus_rule_for
    from menace.app.tournament import run_tournament
    from menace.core.learner import MICHIE
    from menace.games import find_game

    best = 0.0
    for attempt in range(3):
        with tempfile.TemporaryDirectory() as folder:
            url = f"sqlite:///{Path(folder) / 'bench.db'}"
            game = find_game("tictactoe")
            init_machine(url, "m", MICHIE, "michie", game=game,
                         rule=pegasus_rule_for(game) if rule == "pegasus" else None)
            with open_machine(url, "m", holder="a benchmark") as m:
                start = time.perf_counter()
                result = run_tournament(m, "random", games=games, seed=attempt)
                seconds = time.perf_counter() - start
            best = max(best, result.games / seconds)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    opts = parser.parse_args()
    michie = rate("michie", opts.games)
    pegasus = rate("pegasus", opts.games)
    ratio = pegasus / michie
    print(f"{opts.games:,} games against random, best of three, stored:")
    print(f"  michie rule:  {michie:10,.0f} games/s")
    print(f"  pegasus rule: {pegasus:10,.0f} games/s")
    print(f"  pegasus/michie: {ratio:.2f} (target at least {TARGET_RATIO})")
    return 0 if ratio >= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
