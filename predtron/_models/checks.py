"""Input checks of the estimators' public methods, before the conversion of the arrays (scikit-learn's
``validate_data`` in the adapters of :mod:`predtron.sklearn`)."""

from __future__ import annotations

import math
import numbers

import numpy as np
import scipy.sparse as sp

from predtron._validation import as_label_array, check_class_labels, check_matrix, check_n_labels, excerpt


def _check_input(X, y=None, *, fitting: bool = False, relevance: bool = False, type_name: str = "this estimator") \
        -> None:
    """The package's checks before scikit-learn's ``validate_data`` (which keeps its own conventions,
    required by ``check_estimator``, and the feature names): real finite numbers below
    ``MAX_ABS_INPUT`` in ``X`` (no dates, no numeric strings), and classes in ``y`` that are finite
    numbers or strings, not a mix (``relevance``: numbers, no booleans).  ``fitting``: ``y`` is
    required."""
    check_matrix(X, "X", accept_sparse=True, min_features=0)
    if y is None:
        if fitting:
            raise ValueError(f"{type_name} requires y to be passed, but the target y is None "
                             "(one label per row of X)")
        return
    labels = as_label_array(y, "y", booleans=not relevance)
    flat = labels.ravel()
    if relevance:
        _check_grades(flat)
        return
    if flat.dtype.kind in "cmMV":
        raise ValueError(f"y must hold numbers or strings (Complex data not supported); got dtype {flat.dtype}")
    if flat.dtype.kind == "f" and not np.all(np.isfinite(flat)):
        raise ValueError("y must not contain NaN or infinite values (a class must be a finite number or a string)")
    if flat.dtype.kind == "O":
        values = flat.tolist()
        if not all(isinstance(v, str) or (isinstance(v, numbers.Real) and math.isfinite(v)) for v in values):
            raise ValueError(f"y must hold finite numbers or strings as classes; got {excerpt(flat)}")
        if 0 < sum(isinstance(v, str) for v in values) < len(values):
            raise ValueError(f"y must hold numbers or strings as classes, not a mix of both; got {excerpt(flat)}")


def _check_grades(flat: np.ndarray) -> None:
    """``y`` of a ranker: relevance grades, finite real numbers (not classes: no strings)."""
    if flat.dtype.kind == "O" and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in flat.tolist()):
        flat = flat.astype(np.float64)
    if flat.dtype.kind not in "iuf":
        raise ValueError(f"y must hold relevance grades (finite numbers, one per row of X); got {excerpt(flat)}")
    if flat.dtype.kind == "f" and not np.all(np.isfinite(flat)):
        raise ValueError(f"y must hold relevance grades (finite numbers, one per row of X); got "
                         f"{excerpt(flat[~np.isfinite(flat)])}")


def _check_score_input(X, y, *, relevance: bool = False) -> None:
    """``_check_input``, at least one row (a score of no rows is undefined) and one label (or row of
    labels) of ``y`` per row of ``X``."""
    _check_input(X, y, fitting=True, relevance=relevance)
    if np.shape(X)[0] == 0:
        raise ValueError(f"X must hold at least one row to score (a mean over no rows is undefined); "
                         f"got shape {np.shape(X)}")
    check_n_labels(as_label_array(y, "y"), np.shape(X)[0], "y")


def _classes_state(classes: np.ndarray) -> dict:
    """``classes_`` as the saved state holds them: the labels as JSON and their NumPy dtype, so that
    a loaded model predicts arrays of the dtype the original predicts (JSON alone turns ``uint8``
    labels into ``int64``, ``float32`` into ``float64`` and an object array of strings into a
    ``<U`` array)."""
    return {"classes_": classes.tolist(), "classes_dtype": classes.dtype.str}


#: The dtype kinds a saved ``classes_dtype`` may give the kind of the saved labels (object: any).
_DTYPE_KINDS = {"b": "bO", "i": "iuO", "u": "iuO", "f": "fO", "U": "UO"}


def _as_saved_dtype(classes: np.ndarray, dtype) -> np.ndarray:
    """The loaded labels ``classes`` in the saved dtype ``dtype`` (a dtype string), which must hold
    the same values: a dtype that would truncate or round a label is refused."""
    name = "state entry 'classes_dtype'"
    try:
        target = np.dtype(dtype) if isinstance(dtype, str) else None
    except TypeError:
        target = None
    if target is None or target.kind not in _DTYPE_KINDS.get(classes.dtype.kind, ""):
        raise ValueError(f"{name} must be a NumPy dtype of the saved classes (kind {classes.dtype.kind!r}); "
                         f"got {excerpt(dtype)}")
    values = classes.tolist()
    if target.kind == "O":
        converted = np.empty(len(values), dtype=object)
        converted[:] = values
    else:
        with np.errstate(all="ignore"):
            converted = np.asarray(values).astype(target)
    if converted.tolist() != values:
        raise ValueError(f"{name} ({target}) cannot hold the saved classes {excerpt(values)} unchanged")
    return converted


def _saved_classes(state) -> np.ndarray:
    """The saved ``classes_``: at least 2 distinct classes (numbers or strings), sorted, in their
    saved dtype (``classes_dtype``; a file without it gives NumPy's dtype of the JSON values)."""
    classes = check_class_labels(state.value("classes_"), "state entry 'classes_'")
    if state.has("classes_dtype"):
        classes = _as_saved_dtype(classes, state.value("classes_dtype"))
    if classes.size < 2 or np.any(classes[1:] <= classes[:-1]):
        raise ValueError("state entry 'classes_' must hold at least 2 sorted distinct classes")
    return classes


class _Count:
    """A stand-in for inputs when only the number of instances is needed."""

    def __init__(self, n: int):
        self.n = n


class _Offsets:
    """A stand-in for ranking inputs when only the query offsets are needed."""

    def __init__(self, offsets: np.ndarray):
        self.offsets = offsets
        self.n = len(offsets) - 1


def as_float64(X):
    """``X`` (already checked: finite real numbers) as float64, a dense array or a CSR matrix, with
    the entries as given (what scikit-learn's ``check_array(X, accept_sparse="csr", dtype=np.float64)``
    returns: no copy when ``X`` is so already)."""
    if sp.issparse(X):
        if X.format == "csr" and X.dtype == np.float64 and isinstance(X, sp.csr_matrix):
            return X
        return sp.csr_matrix(X, dtype=np.float64)
    return np.asarray(X, dtype=np.float64)


def _canonical(X):
    """``X`` (already checked: finite float64 numbers) in the layout the learners take without a
    second check: C-contiguous, or canonical CSR (sorted indices, no duplicates).  No copy when
    it is already so; nothing is scanned again."""
    if sp.issparse(X):
        if X.format != "csr" or not X.has_canonical_format:
            X = sp.csr_matrix(X, dtype=np.float64, copy=True)
            X.sum_duplicates()
        return X
    return np.ascontiguousarray(X, dtype=np.float64)
