"""Input checks shared by problems and learners; every message says what was expected."""

from __future__ import annotations

import numbers

import numpy as np


def as_finite_array(value, name: str, dtype=float) -> np.ndarray:
    """Convert ``value`` to an array of ``dtype`` and reject NaN and infinity."""
    try:
        arr = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric; could not convert it ({exc})") from None
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{name} must contain only finite values; found {bad} NaN or infinite")
    return arr


def check_positive(value, name: str, *, allow_zero: bool = False) -> float:
    """Return ``value`` as a float after checking it is finite and positive."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number; got {value!r}")
    value = float(value)
    ok = value >= 0 if allow_zero else value > 0
    if not np.isfinite(value) or not ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be finite and {bound}; got {value!r}")
    return value


def check_int(value, name: str, *, minimum: int) -> int:
    """Return ``value`` as an int after checking it is an integer ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    return int(value)


def check_choice(value, name: str, choices) -> str:
    """Check that ``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}; got {value!r}")
    return value


def check_int_label(y, name: str, n: int) -> int:
    """A label that must be an integer in ``0..n-1``."""
    if isinstance(y, (bool, np.bool_)) or not isinstance(y, (numbers.Integral, np.integer)):
        if isinstance(y, (numbers.Real, np.floating)) and float(y).is_integer():
            y = int(y)
        else:
            raise ValueError(f"{name} must be an integer in 0..{n - 1}; got {y!r}")
    if not 0 <= int(y) < n:
        raise ValueError(f"{name} must be an integer in 0..{n - 1}; got {y!r}")
    return int(y)


def check_binary_vector(y, name: str, m: int) -> np.ndarray:
    """A 0/1 vector of length ``m``."""
    arr = np.asarray(y)
    if arr.shape != (m,):
        raise ValueError(f"{name} must be a 0/1 array of length {m}; got shape {arr.shape}")
    if arr.dtype.kind not in "biuf" or not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name} must contain only 0 and 1; got {arr.tolist()!r}")
    return arr.astype(np.int64)


def check_matrix(X, name: str = "X") -> np.ndarray:
    """A finite 2-D array of shape ``(n_samples, n_features)``."""
    X = as_finite_array(X, name)
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features); got an array with shape {X.shape}"
        )
    return X


def check_each(values, check, name: str = "Y", n_inputs: int | None = None) -> list:
    """Apply ``check`` to every element, naming the failing one (``Y[3]: ...``).

    With ``n_inputs``, first require one element per input (labels paired with ``X``).
    """
    if n_inputs is not None and len(values) != n_inputs:
        raise ValueError(
            f"X and {name} must have the same number of examples; got {n_inputs} inputs and {len(values)} labels"
        )
    out = []
    for i, value in enumerate(values):
        try:
            out.append(check(value))
        except ValueError as exc:
            raise ValueError(f"{name}[{i}]: {exc}") from None
    return out
