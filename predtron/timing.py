"""Wall-clock timing for the benchmarks and the book's timing figures.

Times go into figures and benchmark ratios only, never into checked text output: they
depend on the machine and on whatever else it is doing.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from predtron._validation import check_int, excerpt


def best_time(function: Callable[[], object], repeat: int = 5, number: int = 1) -> float:
    """Seconds per call of ``function``: the best of ``repeat`` runs of ``number`` calls.

    The minimum over repeats is the run least disturbed by other load, the usual choice
    for comparing two implementations on a shared machine.
    """
    if not callable(function):
        raise ValueError(f"function must be a callable taking no argument; got {excerpt(function)}")
    repeat = check_int(repeat, "repeat", minimum=1)
    number = check_int(number, "number", minimum=1)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            function()
        best = min(best, (time.perf_counter() - start) / number)
    return best
