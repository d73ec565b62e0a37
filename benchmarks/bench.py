#!/usr/bin/env python3
"""Speed and memory of menace, measured side by side with the plain in-memory baseline.

Prints every figure of issue 7 with its target. The machine is shared and noisy, so each
comparison is a ratio of rates measured in the same run, interleaved, median of --rounds.

    python benchmarks/bench.py              # the full run (about a minute)
    python benchmarks/bench.py --quick      # smaller counts, for a smoke test

The baseline is ../shared/bench/ref_menace.py (``speed --engine table``), run as a subprocess.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from processes import run_once  # noqa: E402

from menace.core.game import Side
from menace.core.learner import Learner, build_boxes
from menace.core.records import GameBuffer
from menace.core.settings import MICHIE
from menace.games.tictactoe import TICTACTOE
from menace.players import RulePlayer, find_player
from menace.storage.database import database_bytes

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REF = ROOT.parent / "shared" / "bench" / "ref_menace.py"
MENACE = [sys.executable, "-m", "menace"]


def in_memory_rate(opponent: str, games: int, seed: int = 1) -> float:
    """Games per second of our learner (Learner.play_table) on a fresh Michie machine."""
    learner = Learner(TICTACTOE, MICHIE, build_boxes(TICTACTOE, MICHIE))
    rng = random.Random(seed)
    player = find_player(opponent).create(TICTACTOE, rng)
    assert isinstance(player, RulePlayer)
    table = learner.options_table(player.options)
    play = learner.play_table
    t0 = time.perf_counter()
    for _ in range(games):
        play(Side.X, table, rng)
    return games / (time.perf_counter() - t0)


def batch_rate(games: int, seed: int = 1) -> float:
    """Games per second of :meth:`Learner.play_batch`, the loop a tournament runs (games packed as
    they are played), on a fresh Michie machine against ``random``."""
    learner = Learner(TICTACTOE, MICHIE, build_boxes(TICTACTOE, MICHIE))
    rng = random.Random(seed)
    player = find_player("random").create(TICTACTOE, rng)
    assert isinstance(player, RulePlayer)
    table = learner.options_table(player.options)
    buf = GameBuffer()
    t0 = time.perf_counter()
    left = games
    while left:
        left -= learner.play_batch(Side.X, table, rng, min(left, 256), buf.data, buf.outcomes)
        if len(buf.data) > 400_000:
            buf.clear()
    return games / (time.perf_counter() - t0)


def baseline_rate(ref: Path, opponent: str, games: int, seed: int = 1) -> float:
    out = subprocess.run(
        [sys.executable, str(ref), "speed", "--engine", "table", "--opp", opponent, "-n", str(games),
         "--runs", "1", "--seed", str(seed)],
        check=True, capture_output=True, text=True,
    ).stdout
    return float(json.loads(out)["median_games_per_s"])


def run(cmd: list[str], db: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*cmd[:3], "--db", str(db), *cmd[3:]], check=True, capture_output=True, text=True,
                          cwd=db.parent)


def timed_process(cmd: list[str], db: Path) -> tuple[float, int]:
    """Wall seconds and peak resident memory (KiB) of a whole menace process (its own, not this
    benchmark's: see ``processes.run_once``)."""
    wall, _, peak = run_once([*cmd[1:3], "--db", str(db), *cmd[3:]], db.parent)
    return wall, peak


def median_of(rounds: int, f: Callable[[], float]) -> float:
    return statistics.median(f() for _ in range(rounds))


def line(name: str, value: str, target: str = "", ok: bool | None = None) -> None:
    mark = "" if ok is None else ("  ok" if ok else "  MISSED")
    print(f"  {name:<52} {value:>16}   {target}{mark}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller counts (a smoke test, figures are rough)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds per comparison (median)")
    ap.add_argument("--ref", type=Path, default=DEFAULT_REF, help="the baseline ref_menace.py")
    ap.add_argument("--no-sweep", action="store_true", help="skip the sweep timing")
    args = ap.parse_args()
    n_mem = 50_000 if args.quick else 300_000
    n_tour = 200_000 if args.quick else 2_000_000  # about ten seconds: start-up is paid once a night
    n_small, n_big = (20_000, 200_000) if args.quick else (100_000, 1_000_000)
    rounds = 1 if args.quick else args.rounds
    missed = 0

    print(f"menace benchmark, {date.today()}, Python {sys.version.split()[0]}, {os.cpu_count()} cores")
    print("\nLearner speed (games per second, Michie's machine as X, learning on)")
    ours_r, base_r, ratios, batch_ratios = [], [], [], []
    for _ in range(rounds):
        a = in_memory_rate("random", n_mem)
        b = baseline_rate(args.ref, "random", n_mem) if args.ref.exists() else float("nan")
        c = batch_rate(n_mem)
        ours_r.append(a)
        base_r.append(b)
        ratios.append(a / b)
        batch_ratios.append(c / b)
    ours_random = statistics.median(ours_r)
    ratio = statistics.median(ratios)
    line("ours, in memory, vs random (play_table)", f"{ours_random:,.0f}")
    line("ours, in memory, vs smart", f"{median_of(rounds, lambda: in_memory_rate('smart', n_mem)):,.0f}")
    if args.ref.exists():
        line("baseline ref_menace.py --engine table, vs random", f"{statistics.median(base_r):,.0f}")
        ok = ratio >= 0.8
        missed += not ok
        line("ratio ours / baseline (vs random)", f"{ratio:.2f}x", ">= 0.8x", ok)
        # The loop a tournament runs: the games packed as they are played (issue's target 1.3x).
        batch = statistics.median(batch_ratios)
        ok = batch >= 1.3
        missed += not ok
        line("ratio tournament loop (play_batch) / baseline", f"{batch:.2f}x", ">= 1.3x", ok)
    else:
        print(f"  (baseline not found at {args.ref}; ratio not measured)")

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        print("\nWhole processes")
        t_init, _ = timed_process([*MENACE, "init"], d / "init304.db")
        ok = t_init <= 1.0
        missed += not ok
        line("menace init, 304 boxes (wall)", f"{t_init:.2f} s", "<= 1 s", ok)
        t_raw, _ = timed_process([*MENACE, "init", "--no-symmetry"], d / "init2201.db")
        line("menace init --no-symmetry, 2,201 boxes (wall)", f"{t_raw:.2f} s")

        run([*MENACE, "init"], d / "start.db")
        t_start, _ = timed_process([*MENACE, "tournament", "--vs", "random", "-n", "1"], d / "start.db")
        line("menace tournament -n 1 (start-up and one game)", f"{t_start:.2f} s")
        persisted, mem_ratios = [], []
        for r in range(rounds):
            db = d / f"tour{r}.db"
            run([*MENACE, "init"], db)
            before = database_bytes(db)
            mem = in_memory_rate("random", n_mem, seed=r + 1)
            wall, _ = timed_process([*MENACE, "tournament", "--vs", "random", "-n", str(n_tour),
                                     "--seed", str(r + 1)], db)
            rate = n_tour / wall
            persisted.append(rate)
            mem_ratios.append(rate / mem)
            per_game = (database_bytes(db) - before) / n_tour
        line(f"menace tournament -n {n_tour:,} (whole process)", f"{statistics.median(persisted):,.0f}/s")
        ok = statistics.median(mem_ratios) >= 0.7
        missed += not ok
        line("ratio persisted / in-memory learner", f"{statistics.median(mem_ratios):.2f}x", ">= 0.7x", ok)
        ok = per_game * 1_000_000 <= 32e6
        missed += not ok
        line("database bytes per stored game", f"{per_game:.2f} B",
             f"{per_game * 1e6 / 1e6:.1f} MB per 1,000,000 games (<= 32 MB)", ok)

        print("\nMemory (peak resident, whole tournament process)")
        peaks = {}
        for n in (n_small, n_big):
            db = d / f"mem{n}.db"
            run([*MENACE, "init"], db)
            _, peaks[n] = timed_process([*MENACE, "tournament", "--vs", "random", "-n", str(n), "--seed", "7"], db)
            line(f"after {n:,} games", f"{peaks[n] / 1024:.1f} MiB")
        growth = peaks[n_big] / peaks[n_small]
        ok = growth <= 1.10
        missed += not ok
        line(f"peak after {n_big:,} / after {n_small:,}", f"{growth:.3f}x", "<= 1.10x", ok)

        if not args.no_sweep:
            print("\nSweep (menace sweep, whole process)")
            cmd = [*MENACE, "sweep", "--seeds", "200", "--games", "1000", "--vs", "perfect"]
            t0 = time.perf_counter()
            res = subprocess.run([*cmd[:3], "--db", str(d / "sweep.db"), *cmd[3:]], capture_output=True,
                                 text=True, cwd=d)
            t_sweep = time.perf_counter() - t0
            if res.returncode != 0:
                line("200 seeds x 1,000 games vs perfect", "failed", res.stderr.strip()[-80:])
                missed += 1
            else:
                ok = t_sweep <= 10
                missed += not ok
                line("200 seeds x 1,000 games vs perfect", f"{t_sweep:.1f} s", "<= 10 s", ok)

    print(f"\n{'all targets met' if not missed else f'{missed} target(s) missed'}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
