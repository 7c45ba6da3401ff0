"""The fuzz suite's runner: a registry entry (:class:`Call`) and the check applied to every input.

A :class:`Call` is one public entry point with valid (canonical) arguments.  The suite
replaces one argument at a time by a :class:`~fuzz_values.Variant` and requires, for every
input:

* a ``ValueError`` or ``TypeError`` whose message names the argument and stays short, or
* a result that is finite (every number of it) and shaped like the canonical result
  (the same trailing shape; as many rows as the variant has examples);
* for an equivalent variant (``"same"``), the canonical result itself;
* within :data:`TIME_LIMIT` seconds (a hang fails the test instead of blocking it).

Any other exception (``IndexError``, ``ZeroDivisionError``, ``KeyError``, ``MemoryError``,
a NumPy ``RuntimeWarning`` turned into an error by the test configuration...) fails.
"""

from __future__ import annotations

import copy
import math
import numbers
import os
import re
import signal
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from fuzz_values import EITHER, FREE, REFUSE, SAME, Variant

#: Seconds a single call may take before it counts as a hang.
TIME_LIMIT = 10.0

#: Longest accepted error message (a message must show an excerpt, never a whole input).
MAX_MESSAGE = 600

#: Number of inputs checked so far (reported at the end of the session).
COUNTER = {"cases": 0, "refused": 0, "accepted": 0, "skipped": 0}


class Hang(Exception):
    """A call exceeded :data:`TIME_LIMIT`."""


@contextmanager
def time_limit(seconds: float):
    def handler(signum, frame):
        raise Hang(f"no answer after {seconds} s")

    previous = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class Call:
    """One public entry point with valid arguments, and which of them to fuzz.

    Attributes
    ----------
    id : str
        Test id (``"Predtron/Multiclass/fit"``).
    fn : callable
        Called as ``fn(**kwargs)``.
    kwargs : dict
        Valid arguments (deep-copied for every call).
    kinds : dict
        Argument -> kind of :func:`fuzz_values.catalogue` (the arguments fuzzed).
    names : dict
        Argument -> the names its error messages may use (default: the argument's own name).
    expect : dict
        Overrides of variant expectations: ``{"zero_rows": "refuse"}``,
        ``{("X", "zero_rows"): "refuse"}`` or ``{("X", "*"): "free"}`` (every variant of ``X``).
    post : callable, optional
        Applied to the result (e.g. predictions of a fitted learner) before the checks.
    n : int, optional
        Number of examples of the canonical call (checks the length of results).
    nonfinite : bool
        The result may hold ``inf``/``nan`` by definition (documented, e.g. an infinite margin).
    covers : tuple
        Qualified names this call covers (for the registry's completeness test).
    """

    id: str
    fn: Callable[..., Any]
    kwargs: dict
    kinds: dict
    names: dict = field(default_factory=dict)
    expect: dict = field(default_factory=dict)
    post: Callable[[Any], Any] | None = None
    n: int | None = None
    nonfinite: bool = False
    covers: tuple = ()
    optional: tuple = ()  # arguments for which None is a valid value
    free: tuple = ()  # arguments whose valid variants may change the result's shape
    any_classes: tuple = ()  # label arguments whose classes may be any values (random junk may be a class)
    paths: tuple = ()  # arguments naming files or folders (a FileNotFoundError naming them is a refusal)
    group: str = ""  # calls of one group run in one test (default: the id up to its last "/")

    def __post_init__(self):
        if not self.group:
            self.group = self.id.rsplit("/", 1)[0] if "/" in self.id else self.id

    def run(self, overrides: dict):
        kwargs = {k: copy.deepcopy(v) for k, v in self.kwargs.items() if k not in overrides}
        kwargs.update(overrides)
        with time_limit(TIME_LIMIT):
            result = self.fn(**kwargs)
            return self.post(result) if self.post is not None else result

    def expectation(self, arg: str, variant: Variant) -> str:
        return self.expect.get((arg, variant.name), self.expect.get((arg, "*"), self.expect.get(
            variant.name, variant.expect)))

    def accepted_names(self, arg: str) -> tuple[str, ...]:
        return self.names.get(arg, (arg,))


# ------------------------------------------------------------------ result checks
def _names(message: str, names) -> bool:
    return any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message) for name in names)


def nonfinite_part(value, depth: int = 0) -> str | None:
    """Where ``value`` holds a NaN or an infinity (``None`` if it is finite everywhere)."""
    if depth > 6 or value is None or isinstance(value, (str, bytes, bool, np.bool_)):
        return None
    if isinstance(value, numbers.Number):
        if isinstance(value, complex):
            return f"complex value {value!r}"
        return None if math.isfinite(value) else repr(value)
    if sp.issparse(value):
        return None if np.all(np.isfinite(value.data)) else "sparse data"
    if isinstance(value, (pd.DataFrame, pd.Series)):
        value = value.to_numpy()
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc":
            return None if np.all(np.isfinite(value)) else f"array {value.ravel()[:6]!r}"
        if value.dtype.kind == "O":
            for item in value.ravel()[:1000]:
                bad = nonfinite_part(item, depth + 1)
                if bad:
                    return bad
        return None
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        for item in value[:1000]:
            bad = nonfinite_part(item, depth + 1)
            if bad:
                return bad
    return None


def _shape(value):
    if isinstance(value, (pd.DataFrame, pd.Series)) or sp.issparse(value):
        return tuple(value.shape)
    if isinstance(value, np.ndarray):
        return value.shape
    return None


def _rows(value) -> int | None:
    """The number of rows (or items) of an argument's value, if it has one."""
    shape = _shape(value)
    if shape is not None:
        return shape[0] if shape else None
    return len(value) if isinstance(value, (list, tuple)) else None


def shape_problem(result, canonical, n_canonical: int | None, n_variant: int | None) -> str | None:
    """Why ``result`` is not shaped like ``canonical`` (``None`` when it is)."""
    a, b = _shape(result), _shape(canonical)
    if b is not None:
        if a is None:
            return f"expected an array like {b}; got {type(result).__name__}"
        if len(a) != len(b) or a[1:] != b[1:]:
            return f"expected shape (*, {b[1:]}) like {b}; got {a}"
        if n_canonical is not None and n_variant is not None and b and b[0] == n_canonical and a[0] != n_variant:
            return f"expected {n_variant} rows; got shape {a}"
        return None
    if isinstance(canonical, list) and n_canonical is not None and n_variant is not None \
            and len(canonical) == n_canonical:
        if not isinstance(result, list) or len(result) != n_variant:
            return f"expected a list of {n_variant}; got {type(result).__name__}"
    if isinstance(canonical, numbers.Real) and not isinstance(canonical, (bool, np.bool_)):
        if not isinstance(result, numbers.Real):
            return f"expected a number; got {type(result).__name__}"
    return None


def same_result(a, b, depth: int = 0) -> str | None:
    """Why ``a`` differs from ``b`` (``None`` when they agree up to rounding)."""
    if depth > 6:
        return None
    if sp.issparse(a) or sp.issparse(b):
        a = a.toarray() if sp.issparse(a) else a
        b = b.toarray() if sp.issparse(b) else b
    if isinstance(a, (pd.DataFrame, pd.Series)):
        a = a.to_numpy()
    if isinstance(b, (pd.DataFrame, pd.Series)):
        b = b.to_numpy()
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return f"lengths {len(a)} != {len(b)}"
        for x, y in zip(a, b, strict=True):
            why = same_result(x, y, depth + 1)
            if why:
                return why
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return "different keys"
        return next((w for k in a if (w := same_result(a[k], b[k], depth + 1))), None)
    if isinstance(a, (np.ndarray, numbers.Number)) and isinstance(b, (np.ndarray, numbers.Number)):
        x, y = np.asarray(a), np.asarray(b)
        if x.shape != y.shape:
            return f"shapes {x.shape} != {y.shape}"
        if x.dtype.kind in "biuf" and y.dtype.kind in "biuf":
            if not np.allclose(x, y, rtol=1e-9, atol=1e-12, equal_nan=True):
                return f"values differ: {x.ravel()[:4]} vs {y.ravel()[:4]}"
            return None
        if x.dtype.kind == "O" or y.dtype.kind == "O":
            return next((w for p, q in zip(x.ravel(), y.ravel(), strict=True)
                         if (w := same_result(p, q, depth + 1))), None)
        return None if np.array_equal(x, y) else "values differ"
    if type(a) is not type(b) and not (isinstance(a, str) and isinstance(b, str)):
        return f"types {type(a).__name__} != {type(b).__name__}"
    try:
        return None if a == b else f"{a!r} != {b!r}"
    except Exception:
        return None


REFUSED = object()


def check_input(call: Call, arg: str, variant: Variant, canonical) -> tuple[str | None, Any]:
    """Run ``call`` with ``arg`` replaced by ``variant``; return (failure or None, outcome)."""
    COUNTER["cases"] += 1
    expect = call.expectation(arg, variant)
    if expect == EITHER and arg in call.free:
        expect = FREE
    if expect == REFUSE and arg in call.any_classes and variant.name.startswith("random"):
        expect = FREE
    if expect == REFUSE and arg in call.free and variant.why == "length":
        expect = FREE  # the number of labels of this argument is free (e.g. an index set)
    if (expect == REFUSE and variant.junk
            and all(call.expect.get((arg, entry)) in (FREE, EITHER, SAME) for entry in variant.junk)):
        expect = FREE if arg in call.free else EITHER  # every junk entry is one this call declares valid
    label = f"{call.id}: {arg}={variant.name}"
    try:
        value = variant.make()
    except Exception:  # a variant this argument's value cannot take (not the package's failure)
        COUNTER["skipped"] += 1
        return None, REFUSED
    if variant.name.startswith("random"):
        label += f" [{_short(value)}]"
    if value is None and arg in call.optional:
        expect = EITHER
    is_file = call.kinds.get(arg, "").startswith("file_") or arg in call.paths
    try:
        result = call.run({arg: value})
    except (ValueError, TypeError, FileNotFoundError) as exc:
        COUNTER["refused"] += 1
        message = str(exc)
        if isinstance(exc, FileNotFoundError) and not is_file:
            return f"{label}: FileNotFoundError for an argument that is not a file: {message[:200]}", REFUSED
        if expect == SAME and canonical is not REFUSED:
            return f"{label}: refused an equivalent input: {type(exc).__name__}: {message[:300]}", REFUSED
        names = call.accepted_names(arg)
        if is_file and isinstance(value, str) and value:  # a file is named by its path
            names = (*names, os.path.basename(value), value)
        if not _names(message, names):
            return (f"{label}: {type(exc).__name__} does not name {names}: "
                    f"{message[:300]!r}"), REFUSED
        if len(message) > MAX_MESSAGE:
            return f"{label}: message of {len(message)} characters (at most {MAX_MESSAGE})", REFUSED
        return None, REFUSED
    except Hang as exc:
        return f"{label}: HANG ({exc})", REFUSED
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        return f"{label}: {type(exc).__name__}: {str(exc)[:300]}", REFUSED
    COUNTER["accepted"] += 1
    if expect == REFUSE:
        return f"{label}: accepted (expected a ValueError/TypeError naming {arg}); result {_short(result)}", result
    if not call.nonfinite:
        bad = nonfinite_part(result)
        if bad:
            return f"{label}: non-finite result ({bad})", result
    if expect == SAME:
        if canonical is REFUSED:
            return f"{label}: accepted an input equivalent to a refused one", result
        why = same_result(result, canonical)
        if why:
            return f"{label}: result differs from the canonical input's ({why})", result
    elif expect != FREE:
        # A variant's row count tells the result's only for an argument that carries the examples (its
        # canonical value has the call's n rows): a parameter matrix of another valid shape does not.
        carries_rows = call.n is not None and _rows(call.kwargs[arg]) == call.n
        why = shape_problem(result, canonical, call.n, variant.n if carries_rows else None)
        if why:
            return f"{label}: badly shaped result ({why})", result
    return None, result


def _short(value) -> str:
    text = " ".join(repr(value).split())
    return text if len(text) < 120 else text[:117] + "..."


def consistency(call: Call, arg: str, outcomes: dict) -> list[str]:
    """Python and NumPy booleans must be treated alike (both refused, or the same result)."""
    failures = []
    for a, b in (("py_bools", "np_bools"), ("py_bool", "np_bool")):
        if a in outcomes and b in outcomes:
            x, y = outcomes[a], outcomes[b]
            if (x is REFUSED) != (y is REFUSED):
                failures.append(f"{call.id}: {arg}: {a} and {b} treated differently "
                                f"({'refused' if x is REFUSED else 'accepted'} vs "
                                f"{'refused' if y is REFUSED else 'accepted'})")
            elif x is not REFUSED and same_result(x, y):
                failures.append(f"{call.id}: {arg}: {a} and {b} give different results")
    return failures


def canonical_result(call: Call):
    """The result on the valid arguments (it must succeed)."""
    return call.run({})


__all__ = ["COUNTER", "EITHER", "REFUSE", "REFUSED", "SAME", "Call", "canonical_result", "check_input",
           "consistency"]
