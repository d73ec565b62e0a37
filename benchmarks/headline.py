#!/usr/bin/env python3
"""README's main command for every seed: how many runs play all their games.

For each seed 1..N it runs what ``menace init && menace tournament --vs smart -n 2000 --seed S``
runs (a fresh machine in its own SQLite file, then :func:`menace.app.tournament.run_tournament`),
in process, once for the default preset ``michie`` and once for Michie's exact machine
``michie-1961``, and prints how many runs completed and where the others stopped.

    python benchmarks/headline.py                     # seeds 1..100, about 40 s
    python benchmarks/headline.py --seeds 30 --vs perfect -n 500
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from menace.app.database import Database
from menace.app.machines import init_machine, open_machine
from menace.app.tournament import run_tournament
from menace.core.settings import PRESETS


def completed(preset: str, opponent: str, games: int, seeds: int, folder: Path) -> tuple[int, dict[int, int]]:
    """How many seeds played all ``games``, and the game each other seed stopped after."""
    base = folder / f"{preset}.db"
    with Database(f"sqlite:///{base}") as built:  # closed: the machine is in the file, none in its -wal
        init_machine(built, "menace", PRESETS[preset], preset)
    done = 0
    stopped: dict[int, int] = {}
    for seed in range(1, seeds + 1):
        db = folder / f"{preset}-{seed}.db"
        shutil.copy(base, db)
        with Database(f"sqlite:///{db}") as owner, open_machine(owner, "menace", holder="benchmarks/headline.py") as m:
            result = run_tournament(m, opponent, games=games, seed=seed)
        if result.games == games and result.stopped is None:
            done += 1
        else:
            stopped[seed] = result.games
        db.unlink()
    return done, stopped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--vs", default="smart")
    parser.add_argument("-n", "--games", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for preset in ("michie", "michie-1961"):
            start = time.perf_counter()
            done, stopped = completed(preset, args.vs, args.games, args.seeds, Path(tmp))
            where = ", ".join(f"seed {s} after game {g}" for s, g in stopped.items())
            print(f"--preset {preset:<12} --vs {args.vs} -n {args.games:,}: {done}/{args.seeds} seeds played every "
                  f"game ({time.perf_counter() - start:.1f} s)" + (f"; stopped: {where}" if where else ""))


if __name__ == "__main__":
    main()
