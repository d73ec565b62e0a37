"""The numpy walk over packed games finds exactly the headers the loop over games finds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from menace.app.series import game_heads
from menace.core.records import CorruptHistoryError, outcome_codes


def _packed(n: int, code: int, moves: bytes) -> bytes:
    """A game as records.py packs it: 15 moves or more put 15 in the header, the length after it."""
    return (bytes([n << 4 | code]) if n < 15 else bytes([15 << 4 | code, n])) + moves


# Games of 0 to 40 moves: the short form and the long one (Nim's games), side by side.
record = st.integers(0, 40).flatmap(lambda n: st.tuples(st.integers(0, 15), st.binary(min_size=n, max_size=n)).map(
    lambda t: _packed(n, t[0], t[1])))


@given(st.lists(record, max_size=400))
def test_game_heads_equal_the_loop(records: list[bytes]) -> None:
    raw = b"".join(records)
    heads = game_heads(raw)
    assert len(heads) == len(records)
    assert bytes(np.frombuffer(raw, dtype=np.uint8)[heads] & 15) == bytes(outcome_codes(raw))


def test_a_cut_game_is_refused() -> None:
    with pytest.raises(CorruptHistoryError):
        game_heads(bytes([0x31, 4, 0]))
