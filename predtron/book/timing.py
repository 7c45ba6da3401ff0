"""Wall-clock timing for the benchmarks and the book's timing figures.

Times go into figures and benchmark ratios only, never into checked text output: they
depend on the machine and on whatever else it is doing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from predtron._validation import check_int, excerpt


def best_time(function: Callable[[], object], repeat: int = 5, number: int = 1) -> float:
    """Seconds per call of ``function``: the best of ``repeat`` runs of ``number`` calls.

    The minimum over repeats is the run least disturbed by other load, the usual choice
    for comparing two implementations on a shared machine.
    """
    if not callable(function):
        raise ValueError(f"function must be a callable taking no argument; got {excerpt(function)}")
    return best_times([function], repeat, number)[0]


def best_times(functions: Sequence[Callable[[], object]], repeat: int = 5, number: int = 1) -> list[float]:
    """:func:`best_time` of several functions, measured in turn.

    Every repeat runs each function (``number`` calls) before the next repeat starts, so a
    change of the machine's load during the measurement reaches all of them alike; a ratio
    of two of the results compares runs made side by side rather than one after the other.
    """
    if isinstance(functions, (str, bytes)) or not isinstance(functions, Sequence) or not functions:
        raise ValueError(f"functions must be a non-empty list of callables taking no argument; got "
                         f"{excerpt(functions)}")
    for i, function in enumerate(functions):
        if not callable(function):
            raise ValueError(f"functions[{i}] must be a callable taking no argument; got {excerpt(function)}")
    repeat = check_int(repeat, "repeat", minimum=1)
    number = check_int(number, "number", minimum=1)
    best = [float("inf")] * len(functions)
    for _ in range(repeat):
        for i, function in enumerate(functions):
            start = time.perf_counter()
            for _ in range(number):
                function()
            best[i] = min(best[i], (time.perf_counter() - start) / number)
    return best
