"""How many bytes a tournament game adds to the database, against the bound of 32 MB per million.

Builds Michie's machine in a temporary database, runs a tournament through the library (as
``menace tournament`` does), and prints the database's size before and after, the bytes per
game and the projection for a million games. Then it times a full replay of the history and
an undo of the last game (which replays every remaining game).

    python benchmarks/history_size.py                   # 100,000 games against smart
    python benchmarks/history_size.py --games 1000000   # the full check
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from menace.app.check import check_database
from menace.app.database import Database
from menace.app.history import undo_games
from menace.app.machines import init_machine, open_machine
from menace.app.tournament import run_tournament
from menace.core.settings import MICHIE
from menace.storage.database import database_bytes

BOUND_MB = 32
MILLION = 1_000_000




def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="tournament length [100,000]")
    parser.add_argument("--vs", default="smart", help="opponent [smart]")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-undo", action="store_true", help="skip the replay and undo timings")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        url = f"sqlite:///{path}"
        init_machine(Database(url), "menace", MICHIE, "michie")
        before = database_bytes(path)
        start = time.perf_counter()
        with open_machine(Database(url), "menace", holder="a benchmark") as m:
            result = run_tournament(m, args.vs, games=args.games, seed=args.seed)
        played = time.perf_counter() - start
        after = database_bytes(path)
        per_game = (after - before) / result.games
        projected = per_game * MILLION / 2**20
        print(f"tournament: {result.games:,} games against {args.vs} in {played:.1f} s "
              f"({result.wins:,} won, {result.draws:,} drawn, {result.losses:,} lost)")
        print(f"database:   {before:,} bytes before, {after:,} after: {after - before:,} bytes for the games")
        print(f"per game:   {per_game:.2f} bytes")
        verdict = "within" if projected <= BOUND_MB else "OVER"
        print(f"projected:  {projected:.1f} MB per 1,000,000 games ({verdict} the {BOUND_MB} MB bound)")
        if not args.no_undo:
            start = time.perf_counter()
            report = check_database(Database(url), "menace")
            seconds = time.perf_counter() - start
            games = report.games
            print(f"replay:     {games:,} games from the initial beads in {seconds:.2f} s "
                  f"({games / seconds:,.0f} games/s, reading included, menace check); "
                  f"{'equal to the stored beads' if report.ok else f'{len(report.faults)} FAULTS'}")
            done = undo_games(Database(url), "menace", 1)
            print(f"undo:       the last game of {games:,} taken back in {done.seconds:.2f} s "
                  f"({len(done.changes)} bead counts restored)")
        return 0 if projected <= BOUND_MB else 1


if __name__ == "__main__":
    sys.exit(main())
