"""The timing helper (behaviour only; no speed is asserted)."""

from __future__ import annotations

import pytest

from predtron.book.timing import best_time, best_times


def test_best_time_calls_the_function_repeat_times_number():
    calls = []
    seconds = best_time(lambda: calls.append(1), repeat=3, number=4)
    assert len(calls) == 12 and seconds >= 0


def test_best_time_errors():
    with pytest.raises(ValueError, match="repeat must be an integer >= 1; got 0"):
        best_time(lambda: None, repeat=0)
    with pytest.raises(ValueError, match="number must be an integer >= 1"):
        best_time(lambda: None, number=0)


def test_best_times_runs_the_functions_in_turn():
    calls = []
    seconds = best_times([lambda: calls.append("a"), lambda: calls.append("b")], repeat=3, number=2)
    assert calls == ["a", "a", "b", "b"] * 3
    assert len(seconds) == 2 and all(s >= 0 for s in seconds)


def test_best_times_errors():
    for bad in ([], "ab", None, lambda: None):
        with pytest.raises(ValueError, match="functions must be a non-empty list of callables"):
            best_times(bad)
    with pytest.raises(ValueError, match=r"functions\[1\] must be a callable"):
        best_times([lambda: None, 3])
    with pytest.raises(ValueError, match="repeat must be an integer >= 1; got 0"):
        best_times([lambda: None], repeat=0)
