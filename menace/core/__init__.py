"""The pure core: the game contract, the learner, game records and replay.

Standard library only, and it never names a particular game: games live in :mod:`menace.games`
and are found by name.
"""
