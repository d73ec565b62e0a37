#!/usr/bin/env python3
"""How soon the classroom Nim machine (21 sticks, take 1-3, the last stick loses) stops losing.

For each opponent (perfect and random) it trains N machines, seeds 1..N, moving second, for G games
each (what ``menace sweep --game nim --side O --vs OPPONENT`` runs), and prints the median and the
latest game each machine lost last: from the game after it, that machine never lost again. Then the
same machines moving first against perfect, which cannot win: 21 = 4 x 5 + 1 is a lost heap.

    python benchmarks/nim_learning.py                   # 200 seeds x 2,000 games, about 20 s
    python benchmarks/nim_learning.py --seeds 50 --games 500
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

from menace.app.sweep import SweepSetting, run_sweep, summarize
from menace.core.settings import CLASSROOM


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    print(f"Nim, 21 sticks, take 1-3, last stick loses; classroom preset; {args.seeds} machines x "
          f"{args.games:,} games each")
    for side, words in (("O", "moving second"), ("X", "moving first")):
        setting = SweepSetting(f"side={side}", replace(CLASSROOM, side=side))
        for opponent in ("perfect", "random") if side == "O" else ("perfect",):
            result = run_sweep([setting], opponent, args.games, args.seeds, workers=args.workers, eval_games=0,
                               game="nim")
            row = summarize(result)[0]
            if side == "O":
                late = sum(1 for run in result.runs if (run.last_loss or 0) > args.games * 0.8)
                median = row.last_loss_median or 0
                print(f"  {words} vs {opponent:<8} loses for the last time at game {median:.0f} (median; the "
                      f"latest {row.last_loss_max:,}), then never again; {late} machines lost in the last fifth")
            else:
                wins = sum(run.wins for run in result.runs)
                print(f"  {words} vs {opponent:<8} won {wins} of {args.seeds * args.games:,} games "
                      f"(21 is a lost heap: it cannot win)")
    print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
