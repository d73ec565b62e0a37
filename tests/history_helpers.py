"""Helpers shared by the history tests: games at the 'terminal', and reading back what was stored."""

from __future__ import annotations

import random

from menace.app.machines import OpenMachine
from menace.core.game import Side
from menace.core.learner import GameRecord
from menace.core.turns import TurnByTurnGame
from menace.games.tictactoe import TICTACTOE
from menace.storage import history_repo as hrepo
from menace.storage import repository as repo
from menace.storage.database import open_database, session_scope


def play_person_games(m: OpenMachine, n: int, seed: int) -> None:
    """``n`` games against a 'person' who plays at random, stored as ``menace play`` stores them."""
    rng = random.Random(seed)
    for i in range(n):
        sides = m.learner.settings.sides
        side = sides[i % len(sides)]
        if side is Side.X and m.learner.opening_empty(Side.X):
            return
        g = TurnByTurnGame(m.learner, side, rng)
        while not g.over:
            if g.menace_to_move:
                g.menace_move()
            else:
                g.person_move(rng.choice(TICTACTOE.legal_moves(g.state)))
        g.finish()
        run = m.start_run("play", "person", None)
        m.save(run, [g.record()], end_run=True)


def stored_machine(url: str, name: str = "menace") -> repo.StoredMachine:
    db = open_database(url)
    try:
        with session_scope(db) as s:
            return repo.load_machine(s, name)
    finally:
        db.dispose()


def stored_records(url: str, name: str = "menace") -> list[GameRecord]:
    db = open_database(url)
    try:
        with session_scope(db) as s:
            return list(hrepo.iter_records(s, repo.machine_id(s, name)))
    finally:
        db.dispose()


def stored_corrections(url: str, name: str = "menace") -> list[repo.Correction]:
    db = open_database(url)
    try:
        with session_scope(db) as s:
            return repo.corrections(s, repo.machine_id(s, name))
    finally:
        db.dispose()


def stored_beads(url: str, name: str = "menace") -> list[dict[int, int]]:
    return [dict(b.beads) for b in stored_machine(url, name).boxes]
