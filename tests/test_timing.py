"""The timing helper (behaviour only; no speed is asserted)."""

from __future__ import annotations

import pytest

from predtron.timing import best_time


def test_best_time_calls_the_function_repeat_times_number():
    calls = []
    seconds = best_time(lambda: calls.append(1), repeat=3, number=4)
    assert len(calls) == 12 and seconds >= 0


def test_best_time_errors():
    with pytest.raises(ValueError, match="repeat must be an integer >= 1; got 0"):
        best_time(lambda: None, repeat=0)
    with pytest.raises(ValueError, match="number must be an integer >= 1"):
        best_time(lambda: None, number=0)
