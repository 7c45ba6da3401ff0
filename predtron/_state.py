"""Reading a saved learner's state back, validating every value (:mod:`predtron.persistence`).

A learner's ``_get_state()`` returns ``(scalars, arrays)``: plain JSON values and NumPy
arrays.  Its ``_set_state(scalars, arrays)`` reads them back through a :class:`State`,
whose getters check the type, range, dtype, shape and finiteness of each value and raise
``ValueError`` naming the entry; a file's state is never trusted (the loader adds the
file's name to the message).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from predtron._history import LossTrace
from predtron._validation import MAX_DENSE_ENTRIES, excerpt


class State:
    """Validating access to ``(scalars, arrays)`` of a saved learner.

    Parameters
    ----------
    scalars : dict
        JSON values by name.
    arrays : dict
        Arrays by name.
    where : str
        Prefix of the entries' names in messages (``"learner."`` for a nested state).
    """

    def __init__(self, scalars, arrays, where: str = ""):
        if not isinstance(scalars, dict):
            raise ValueError(f"state {where or 'header'} must be a JSON object; got {type(scalars).__name__}")
        if not isinstance(arrays, dict):
            raise ValueError(f"arrays of {where or 'the state'} must be a mapping; got {type(arrays).__name__}")
        self.scalars, self.arrays, self.where = scalars, arrays, where
        self._read: set[str] = set()  # the scalar entries read (see unread)
        self._read_arrays: set[str] = set()
        self._children: list[State] = []

    @classmethod
    def of(cls, scalars, arrays) -> State:
        """``scalars`` itself when it is already a :class:`State`, else a new one."""
        return scalars if isinstance(scalars, State) else cls(scalars, arrays)

    # ---------------------------------------------------------------- scalars
    def _get(self, key: str):
        self._read.add(key)
        if key not in self.scalars:
            raise ValueError(f"state entry {self.where}{key!r} is missing")
        return self.scalars[key]

    def has(self, key: str) -> bool:
        """Whether a scalar entry exists."""
        return key in self.scalars

    def int(self, key: str, minimum: int = 0, maximum: int | None = None) -> int:
        value = self._get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum or (
                maximum is not None and value > maximum):
            bound = f">= {minimum}" + (f" and <= {maximum}" if maximum is not None else "")
            raise ValueError(f"state entry {self.where}{key!r} must be an integer {bound}; got {value!r}"[:300])
        return int(value)

    def real(self, key: str, minimum: float | None = None) -> float:
        value = self._get(key)
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or (
                minimum is not None and value < minimum):
            raise ValueError(f"state entry {self.where}{key!r} must be a finite number"
                             f"{'' if minimum is None else f' >= {minimum}'}; got {value!r}"[:300])
        return float(value)

    def bool(self, key: str) -> bool:
        value = self._get(key)
        if not isinstance(value, bool):
            raise ValueError(f"state entry {self.where}{key!r} must be true or false; got {value!r}"[:300])
        return value

    def value(self, key: str):
        """A raw JSON value (checked by the caller)."""
        return self._get(key)

    def names(self, key: str, length: int) -> np.ndarray:
        """A list of ``length`` distinct strings (the columns' names, ``feature_names_in_``), as an
        object array as scikit-learn holds them.

        Parameters
        ----------
        key : str
            The entry.
        length : int
            The number of names expected (one per feature).

        Returns
        -------
        ndarray of shape (length,) and dtype object
            The names, in order.

        Raises
        ------
        ValueError
            If the entry is missing, is not a list of strings, holds a name twice or has another length.
        """
        value = self._get(key)
        name = f"state entry {self.where}{key!r}"
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"{name} must be a list of strings (one name per feature); got {excerpt(value)}")
        if len(value) != length:
            raise ValueError(f"{name} must hold {length} names (n_features_in_); got {len(value)}: {excerpt(value)}")
        if len(set(value)) != len(value):
            twice = sorted({v for v in value if value.count(v) > 1})
            raise ValueError(f"{name} must hold distinct names; {excerpt(twice)} appear more than once")
        return np.asarray(value, dtype=object)

    def sub(self, key: str) -> State:
        """The nested state ``key`` (scalars ``scalars[key]``, arrays prefixed ``key.``)."""
        prefix = key + "."
        arrays = {k[len(prefix):]: v for k, v in self.arrays.items() if k.startswith(prefix)}
        child = State(self._get(key), arrays, f"{self.where}{key}.")
        self._children.append(child)
        return child

    def unread(self) -> list[str]:
        """The entries of the state that no getter has read, scalars and arrays, with their nested
        prefix (``learner.foo``), those of the nested states read by :meth:`sub` included.

        A learner's ``_set_state`` reads every entry its ``_get_state`` writes, so an entry left
        unread is one the class does not know: a file edited, or written for another class (a
        threshold left behind by a removed ``reject_cost`` would otherwise be ignored silently, and
        the model would predict differently).  The arrays under a scalar entry read whole
        (``estimators.0.w`` under ``estimators``: sub-learners restored on their own) count as
        read."""
        covered = tuple(k + "." for k in self._read)
        names = [f"{self.where}{k}" for k in self.scalars if k not in self._read]
        names += [f"{self.where}{k} (array)" for k in self.arrays
                  if k not in self._read_arrays and not k.startswith(covered)]
        for child in self._children:
            names += child.unread()
        return names

    # ----------------------------------------------------------------- arrays
    def has_array(self, key: str) -> bool:
        return key in self.arrays

    def array(self, key: str, shape: tuple, kind: str = "f", minimum: float | None = None) -> np.ndarray:
        """Array ``key`` of ``shape`` (``None`` entries: any size), floats (``"f"``, finite) or
        integers (``"i"``), at least ``minimum`` everywhere."""
        self._read_arrays.add(key)
        if key not in self.arrays:
            raise ValueError(f"state array {self.where}{key!r} is missing")
        arr = np.asarray(self.arrays[key])
        name = f"state array {self.where}{key!r}"
        if arr.dtype.kind not in ("iuf" if kind == "f" else "iu"):
            raise ValueError(f"{name} must hold {'real numbers' if kind == 'f' else 'integers'}; got dtype {arr.dtype}")
        if kind == "f" and arr.dtype != np.float64:  # what save writes: another dtype is an edit that rounds
            raise ValueError(f"{name} must be float64, as saved; got dtype {arr.dtype}")
        if arr.ndim != len(shape) or any(s is not None and s != a for s, a in zip(shape, arr.shape, strict=True)):
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
            raise ValueError(f"{name} must have shape {want}; got {arr.shape}")
        if kind == "f":
            arr = arr.astype(np.float64)
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"{name} must be finite; it holds NaN or infinite values")
        else:
            arr = arr.astype(np.int64)
        if minimum is not None and arr.size and arr.min() < minimum:
            raise ValueError(f"{name} must be >= {minimum}; got {arr.min()!r}")
        return arr

    # ------------------------------------------------------------------ trace
    def trace(self, prefix: str = "trace") -> LossTrace:
        """A :class:`~predtron._history.LossTrace` from its totals and its non-zero rounds, checked
        for consistency (rounds increasing inside ``1..n_rounds``, positive losses summing to the total)."""
        record = self.bool(f"{prefix}_record")
        n_rounds = self.int(f"{prefix}_n_rounds")
        total = self.real(f"{prefix}_total", minimum=0.0)
        n_nonzero = self.int(f"{prefix}_n_nonzero", maximum=n_rounds)
        rounds = self.array(f"{prefix}_rounds", (n_nonzero if record else 0,), kind="i")
        losses = self.array(f"{prefix}_losses", (len(rounds),))
        if len(rounds) and (rounds.min() < 1 or rounds.max() > n_rounds or np.any(np.diff(rounds) <= 0)):
            raise ValueError(f"state array {self.where}{prefix}_rounds must be increasing round numbers in "
                             f"1..{n_rounds}")
        if len(losses) and losses.min() <= 0:
            raise ValueError(f"state array {self.where}{prefix}_losses must hold the positive losses of the rounds")
        if record and not math.isclose(float(losses.sum()), total, rel_tol=1e-9, abs_tol=1e-9):
            raise ValueError(f"state entry {self.where}{prefix}_total ({total!r}) is not the sum of the recorded "
                             f"losses ({float(losses.sum())!r})")
        return LossTrace.restore(record, n_rounds, total, n_nonzero, rounds, losses)


def learner_state(learner) -> tuple[dict, dict]:
    """``(scalars, arrays)`` every online learner saves: its loss trace, ``n_features_in_`` and
    ``n_updates_`` (read back by :func:`restore_learner`)."""
    scalars, arrays = trace_state(learner._trace)
    scalars.update(n_features_in_=int(learner.n_features_in_), n_updates_=int(learner.n_updates_))
    return scalars, arrays


def restore_learner(learner, state: State) -> None:
    """Set ``n_features_in_``, the loss trace and ``n_updates_`` of ``learner`` from ``state``,
    each value checked (the inverse of :func:`learner_state`)."""
    learner.n_features_in_ = state.int("n_features_in_", minimum=1, maximum=MAX_DENSE_ENTRIES)
    learner._trace = state.trace()
    learner.n_updates_ = state.int("n_updates_", maximum=learner._trace.n_rounds)


def trace_state(trace: LossTrace, prefix: str = "trace") -> tuple[dict, dict]:
    """``(scalars, arrays)`` of a trace, read back by :meth:`State.trace`."""
    rounds, losses = trace.nonzero()
    scalars = {f"{prefix}_record": trace.record, f"{prefix}_n_rounds": trace.n_rounds, f"{prefix}_total": trace.total,
               f"{prefix}_n_nonzero": trace.n_nonzero}
    return scalars, {f"{prefix}_rounds": rounds, f"{prefix}_losses": losses}


def run_differences(saved, run: dict) -> str:
    """Where two descriptions of a fit (a checkpoint's and this run's) differ, one entry per
    difference: ``name (checkpoint: A; this fit: B)``.  The entries ``params`` and
    ``file_options`` (dicts of named values) are compared value by value, under their own
    names; a saved description that is not a dict differs everywhere."""
    def flat(description) -> dict:
        out = {}
        for key, value in (description.items() if isinstance(description, dict) else ()):
            if key in ("params", "file_options") and isinstance(value, dict):
                out.update({str(k): v for k, v in value.items()})
            else:
                out[str(key)] = value
        return out

    def shown(value) -> str:  # a long value keeps its end, where a file's size and content are
        text = "not given" if value is _ABSENT else value if isinstance(value, str) else repr(value)
        return text if len(text) <= 120 else text[:50] + "..." + text[-67:]

    old, new = flat(saved), flat(run)
    entries = []
    for key in dict.fromkeys([*new, *old]):
        a, b = old.get(key, _ABSENT), new.get(key, _ABSENT)
        if a == b:
            continue
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):  # the items that differ
            entries += [(f"{key}[{i}]", x, y) for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        else:
            entries.append((key, a, b))
    return ", ".join(f"{k} (checkpoint: {shown(a)}; this fit: {shown(b)})" for k, a, b in entries) or "its layout"


_ABSENT = object()
