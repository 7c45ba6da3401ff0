"""Input checks shared by every public entry point; every message says what was expected and what came.

The rules (issue "reliability"): arrays must hold real numbers (booleans and integers are
converted to float; complex numbers, dates, strings and arbitrary objects are refused), be
finite and of the expected shape, and not be empty where a result needs at least one
example.  Entries are limited to ``|x| <= MAX_ABS_INPUT`` so that the scores, sums of
products of inputs, stay finite in float64; larger inputs are refused with a request to
rescale.  pandas objects are accepted through their NumPy values and scipy sparse matrices
are converted to canonical CSR (sorted indices, no duplicates) without densifying.
Messages show a short excerpt of the offending value, never a whole input.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import scipy.sparse as sp

#: Largest number of entries of a dense array the package allocates on request (2**28 float64
#: values = 2 GiB): a size parameter above it is refused before anything is allocated.
MAX_DENSE_ENTRIES = 2**28

#: Largest number of classes of a problem or feature map: ``k x k`` loss matrices and the
#: ``k``-row representations stay within :data:`MAX_DENSE_ENTRIES`.
MAX_CLASSES = 2**14

#: Largest magnitude accepted in an input array.  Scores are sums of products of inputs
#: (and of parameters, themselves sums of inputs), so keeping inputs below 1e100 keeps
#: them far from the float64 overflow at about 1.8e308.
MAX_ABS_INPUT = 1e100

_EXCERPT = 60


def excerpt(value, width: int = _EXCERPT) -> str:
    """A short, one-line description of ``value`` for an error message."""
    if isinstance(value, np.ndarray):
        with np.printoptions(threshold=6, edgeitems=2, precision=4, linewidth=10_000):
            text = " ".join(np.array2string(value, separator=", ").split())
        if value.size > 6 or value.dtype.kind not in "biuf":
            text = f"array of shape {value.shape} and dtype {value.dtype}: {text}"
    else:
        text = " ".join(repr(value).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _type_name(value) -> str:
    return type(value).__name__


# ---------------------------------------------------------------- scalars
def _as_float(value, name: str) -> float:
    """One real number (not a boolean, a string or a complex number) as a float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number; got {excerpt(value)}")
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{name} must be finite; got an integer too large for a float ({excerpt(value)})") from None


def check_positive(value, name: str, *, allow_zero: bool = False, maximum: float | None = None,
                   minimum: float | None = None) -> float:
    """Return ``value`` as a float after checking it is finite and positive (and within
    ``[minimum, maximum]``)."""
    value = _as_float(value, name)
    ok = value >= 0 if allow_zero else value > 0
    if not np.isfinite(value) or not ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be finite and {bound}; got {value!r}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum:g}; got {value!r}")
    if minimum is not None and value < minimum and not (allow_zero and value == 0):
        raise ValueError(f"{name} must be at least {minimum:g}; got {value!r}")
    return value


def check_real(value, name: str, *, finite: bool = True) -> float:
    """Return ``value`` as a float after checking it is one real number (not a boolean, a
    string, a complex number or an array) and, with ``finite``, neither NaN nor infinite."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    value = _as_float(value, name)
    if math.isnan(value) or (finite and math.isinf(value)):
        raise ValueError(f"{name} must be a finite real number; got {value!r}")
    return value


def check_int(value, name: str, *, minimum: int, maximum: int | None = None) -> int:
    """Return ``value`` as an int after checking it is an integer in ``[minimum, maximum]``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {excerpt(value)}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be an integer <= {maximum}; got {value!r}")
    return int(value)


def check_seed(value, name: str = "seed") -> int:
    """A seed of ``numpy.random.default_rng``: an integer ``>= 0``."""
    return check_int(value, name, minimum=0)


def check_generator(value, name: str = "rng") -> np.random.Generator | None:
    """``None`` or a ``numpy.random.Generator``."""
    if value is not None and not isinstance(value, np.random.Generator):
        raise ValueError(f"{name} must be a numpy.random.Generator or None; got {excerpt(value)}")
    return value


def check_bool(value, name: str) -> bool:
    """``True`` or ``False`` (Python or NumPy booleans only: a truthy string is refused)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {excerpt(value)}")
    return bool(value)


def check_choice(value, name: str, choices) -> str:
    """Check that ``value`` is one of ``choices``."""
    try:
        ok = value in choices
    except TypeError:  # unhashable
        ok = False
    if not ok or isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be one of {sorted(choices)}; got {excerpt(value)}")
    return value


def check_random_state(value, name: str = "random_state") -> np.random.Generator:
    """A NumPy generator from ``None`` (fresh entropy), an int ``>= 0`` or a ``Generator``."""
    if value is None:
        return np.random.default_rng()
    if isinstance(value, np.random.Generator):
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name} must be None, an integer >= 0 or a numpy Generator; got {excerpt(value)}")
    return np.random.default_rng(int(value))


# ----------------------------------------------------------------- arrays
def _real_dtype_error(arr: np.ndarray, name: str) -> ValueError | None:
    kind = arr.dtype.kind
    if kind == "c":
        return ValueError(f"{name} must hold real numbers (Complex data not supported); got complex values "
                          f"({excerpt(arr)})")
    if kind in "mM":
        return ValueError(f"{name} must hold real numbers; got {arr.dtype} dates or durations")
    if kind in "USV":
        return ValueError(f"{name} must hold real numbers; got strings ({excerpt(arr)})")
    return None


def as_finite_array(value, name: str, dtype=float, *, max_abs: float | None = MAX_ABS_INPUT,
                    check: bool = True) -> np.ndarray:
    """Convert ``value`` to an array of real ``dtype`` and (with ``check``) reject NaN, infinity
    and, with ``max_abs``, entries larger than ``max_abs`` in magnitude.

    ``None``, generators and other non-array objects, complex numbers, dates and strings
    are refused with a message naming ``name``.
    """
    if value is None:
        raise ValueError(f"{name} must be an array of real numbers; got None")
    if sp.issparse(value):
        raise ValueError(f"{name} must be a dense array here; got a scipy sparse {value.format} matrix")
    _check_not_iterator(value, name, "an array of real numbers")
    if isinstance(value, (str, bytes, dict, set, frozenset)):
        raise ValueError(f"{name} must be an array of real numbers; got a {_type_name(value)}: {excerpt(value)}")
    raw = value.to_numpy() if hasattr(value, "to_numpy") and not isinstance(value, np.ndarray) else value
    probe = raw if isinstance(raw, np.ndarray) else None
    if probe is None:
        try:
            probe = np.asarray(raw)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be numeric; could not convert it ({_first_line(exc)})") from None
    error = _real_dtype_error(probe, name)
    if error is not None:
        raise error
    if probe.dtype.kind == "O":
        _check_real_objects(probe, name)
    try:
        arr = np.asarray(probe, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"{name} must be numeric; could not convert {excerpt(probe)} ({_first_line(exc)})") from None
    if check and arr.dtype.kind == "f":
        finite, top = _scan(arr)
        if not finite:
            _raise_not_finite(arr, name)
        if max_abs is not None:
            _check_magnitude(arr, name, max_abs, top)
    return arr


def _raise_not_finite(arr: np.ndarray, name: str) -> None:
    finite = np.isfinite(arr)
    bad = int(arr.size - np.count_nonzero(finite))
    where = tuple(int(i) for i in np.argwhere(~finite)[0]) if arr.ndim else ()
    at = f" (first at index {where[0] if len(where) == 1 else where})" if where else ""
    raise ValueError(f"{name} must contain only finite values; found {bad} NaN or infinite{at}")


def _raise_not_finite_sparse(X: sp.csr_matrix, name: str) -> None:
    """As :func:`_raise_not_finite` for a canonical CSR matrix: the first non-finite entry named by its
    ``(row, column)`` in the matrix, not by its place among the stored values."""
    bad = np.flatnonzero(~np.isfinite(X.data))
    first = int(bad[0])
    row = int(np.searchsorted(X.indptr, first, side="right") - 1)
    raise ValueError(f"{name} must contain only finite values; found {len(bad)} NaN or infinite (first at index "
                     f"{(row, int(X.indices[first]))})")


def _scan(values: np.ndarray) -> tuple[bool, float]:
    """``(all finite, largest magnitude)`` of a float array, in one pass
    available (:func:`predtron.engine.finite_max_abs`) for float64, else with NumPy reductions."""
    from predtron import engine

    if values.size == 0:
        return True, 0.0
    if values.dtype == np.float64:
        flat = values.reshape(-1) if values.flags.c_contiguous or values.flags.f_contiguous else values.ravel()
        finite, top = engine.finite_max_abs(flat if flat.flags.c_contiguous else np.ascontiguousarray(flat))
        return bool(finite), float(top)
    with np.errstate(invalid="ignore"):
        top = max(float(np.max(values)), -float(np.min(values)))
    return bool(np.isfinite(top)), top


def _check_real_objects(values: np.ndarray, name: str) -> None:
    """An object array must hold real numbers only (no strings such as ``"1.5"``, no ``None``)."""
    for index, item in np.ndenumerate(values):
        if not isinstance(item, numbers.Real):
            at = index[0] if len(index) == 1 else index
            message = f"{name} must hold real numbers; got {excerpt(item)} ({_type_name(item)}) at index {at}"
            if isinstance(item, (str, bytes)) or item is None:
                raise ValueError(message)
            # a wrong type: TypeError, as float() raises it (scikit-learn's convention too)
            raise TypeError(f"{message}: an argument must be a string or a number")


def _first_line(exc: BaseException) -> str:
    return str(exc).split("\n")[0][:80]


def _check_not_iterator(value, name: str, what: str) -> None:
    if hasattr(value, "__next__") and not isinstance(value, np.ndarray):
        raise ValueError(f"{name} must be {what}; got a {_type_name(value)} (an iterator, which can be read "
                         "only once); pass a list or an array")


def check_vector(value, name: str, *, length: int | None = None, min_size: int = 1,
                 length_name: str = "") -> np.ndarray:
    """A finite 1-D float array with at least ``min_size`` entries (and ``length`` entries if given)."""
    v = as_finite_array(value, name)
    if v.ndim != 1 or v.size < min_size:
        raise ValueError(f"{name} must be a 1-D array with at least {min_size} entr{'y' if min_size == 1 else 'ies'}; "
                         f"got shape {v.shape}")
    if length is not None and v.size != length:
        raise ValueError(f"{name} must have {length} entries{' (' + length_name + ')' if length_name else ''}; got "
                         f"{v.size}")
    return v


def _check_magnitude(values: np.ndarray, name: str, max_abs: float = MAX_ABS_INPUT,
                     top: float | None = None) -> None:
    if top is None:
        top = _scan(values)[1]
    if values.size and top > max_abs:
        raise ValueError(
            f"{name} has an entry of magnitude {top:.3g} > {max_abs:g}; scores are sums of products "
            "of inputs and would overflow float64: rescale it"
        )


def check_matrix(X, name: str = "X", *, accept_sparse: bool = False, min_rows: int = 0,
                 min_features: int = 1) -> np.ndarray | sp.csr_matrix:
    """A 2-D array of real numbers of shape ``(n_samples, n_features)``.

    Dense input comes back as a C-contiguous float64 array (so results never depend on the
    memory layout); with ``accept_sparse`` a scipy sparse matrix comes back as canonical
    float64 CSR (sorted indices, duplicates summed), never densified.
    """
    if sp.issparse(X):
        if not accept_sparse:
            raise ValueError(f"{name} must be a dense array here; got a scipy sparse {X.format} matrix "
                             "(convert it with .toarray())")
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-D; got a sparse matrix with shape {X.shape}")
        if X.dtype.kind == "c":  # what came: the matrix and its stored values, not an empty array of its dtype
            raise ValueError(f"{name} must hold real numbers (Complex data not supported); got a sparse {X.format} "
                             f"matrix of shape {X.shape} with complex values (stored: {excerpt(X.tocoo().data)})")
        error = _real_dtype_error(np.empty(0, dtype=X.dtype), name)
        if error is not None:
            raise error
        if X.dtype.kind not in "biuf":
            raise ValueError(f"{name} must hold real numbers; got a sparse matrix of dtype {X.dtype}")
        if X.format == "csr" and X.dtype == np.float64 and X.has_canonical_format:
            X = sp.csr_matrix(X, copy=False)  # already canonical: no copy (the package never writes to X)
        else:
            X = sp.csr_matrix(X, dtype=np.float64, copy=True)
            X.sum_duplicates()
            X.sort_indices()
        finite, top = _scan(X.data)
        if not finite:
            _raise_not_finite_sparse(X, name)
        _check_magnitude(X.data, name, top=top)
    else:
        X = as_finite_array(X, name, check=False)
        if X.ndim != 2:
            hint = f"; Reshape your data with {name}.reshape(1, -1) for one sample" if X.ndim == 1 else ""
            raise ValueError(
                f"{name} must be a 2-D array of shape (n_samples, n_features); got an array with shape {X.shape}{hint}"
            )
        X = np.ascontiguousarray(X, dtype=np.float64)
        finite, top = _scan(X)
        if not finite:
            _raise_not_finite(X, name)
        _check_magnitude(X, name, top=top)
    if X.shape[0] < min_rows:
        raise ValueError(f"{name} must have at least {min_rows} row(s); got shape {X.shape}")
    if X.shape[1] < min_features:
        raise ValueError(f"{name} has {X.shape[1]} feature(s) (shape={X.shape}) while a minimum of {min_features} is "
                         "required")
    return X


def _check_container(values, name: str, what: str) -> None:
    """Refuse what cannot hold one item per example: ``None``, iterators, sets, dicts, strings, scalars."""
    if values is None:
        raise ValueError(f"{name} must be {what}; got None")
    _check_not_iterator(values, name, what)
    if isinstance(values, (set, frozenset, dict, str, bytes)):
        raise ValueError(f"{name} must be {what}; got a {_type_name(values)}: {excerpt(values)}")
    if isinstance(values, np.generic) or (isinstance(values, np.ndarray) and values.ndim == 0) or not (
            hasattr(values, "__len__") or hasattr(values, "__array__")):
        raise ValueError(f"{name} must be {what}, one per example; got {excerpt(values)}")


def _is_bool(value) -> bool:
    return isinstance(value, (bool, np.bool_)) or (isinstance(value, np.ndarray) and value.dtype.kind == "b")


def _contains_bool(values) -> bool:
    """Whether a sequence (or an object array) holds booleans, at its top level or one level down."""
    if isinstance(values, np.ndarray):
        if values.dtype.kind == "b":
            return True
        if values.dtype.kind != "O":
            return False
        values = values.ravel().tolist()
    if not isinstance(values, (list, tuple)):
        return False
    for value in values:
        if _is_bool(value):
            return True
        if isinstance(value, (list, tuple)) and any(_is_bool(v) for v in value):
            return True
    return False


def as_label_array(Y, name: str = "Y", *, booleans: bool = True) -> np.ndarray:
    """Labels as an array, refusing ``None``, scalars, iterators, sets and dicts (pandas via
    ``to_numpy``, sparse matrices densified).

    With ``booleans=False`` Python and NumPy booleans are refused alike (labels that are
    numbers -- classes, levels, grades -- are not ``True``/``False``).
    """
    _check_container(Y, name, "an array-like of labels")
    if sp.issparse(Y):
        Y = Y.toarray()
    if hasattr(Y, "to_numpy") and not isinstance(Y, np.ndarray):
        Y = Y.to_numpy()
    if not booleans and _contains_bool(Y):
        raise ValueError(f"{name} must hold numbers, not booleans (True/False); got {excerpt(Y)}; "
                         "convert them, e.g. with numpy.asarray(Y, dtype=int)")
    try:
        arr = np.asarray(Y)
    except (TypeError, ValueError, OverflowError):
        arr = np.empty(len(Y), dtype=object)
        for i, y in enumerate(Y):
            arr[i] = y
    if arr.ndim == 0:
        raise ValueError(f"{name} must be an array-like with one label per example; got {excerpt(Y)}")
    if arr.dtype.kind in "US" and not isinstance(Y, np.ndarray):
        # NumPy turns numbers, None and NaN mixed with strings into strings ("1", "None", "nan"):
        # keep the original values so the label checks see them.
        mixed = np.empty(arr.shape, dtype=object)
        mixed[...] = np.asarray(Y, dtype=object).reshape(arr.shape)
        if not all(isinstance(v, (str, bytes, np.str_, np.bytes_)) for v in mixed.ravel().tolist()):
            return mixed
    return arr


def check_n_labels(Y, n: int, name: str = "Y") -> None:
    """One label per example."""
    if len(Y) != n:
        raise ValueError(f"X and {name} must have the same number of examples; got {n} inputs and {len(Y)} labels")


def _sized(size_name: str | None, n: int) -> str:
    return f" ({size_name}={n})" if size_name else ""


def check_int_label(y, name: str, n: int, size_name: str | None = None) -> int:
    """A label that must be an integer in ``0..n-1`` (``size_name``: the parameter that sets ``n``,
    named in the message)."""
    if isinstance(y, np.ndarray) and y.ndim == 0:
        y = y.item()
    if isinstance(y, (bool, np.bool_)):
        raise ValueError(f"{name} must be an integer in 0..{n - 1}, not a boolean; got {y!r}{_sized(size_name, n)}")
    if not isinstance(y, (numbers.Integral, np.integer)):
        if isinstance(y, (numbers.Real, np.floating)) and math.isfinite(y) and float(y).is_integer():
            y = int(y)
        else:
            raise ValueError(f"{name} must be an integer in 0..{n - 1}; got {excerpt(y)}{_sized(size_name, n)}")
    if not 0 <= int(y) < n:
        raise ValueError(f"{name} must be an integer in 0..{n - 1}; got {y!r}{_sized(size_name, n)}")
    return int(y)


def check_int_labels(Y, name: str, n: int, size_name: str | None = None) -> np.ndarray:
    """A 1-D array of integer labels in ``0..n-1`` (integral floats accepted, booleans refused)."""
    arr = as_label_array(Y, name, booleans=False)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, one integer label per example; got shape {arr.shape}")
    if arr.dtype.kind == "b":
        raise ValueError(f"{name} must hold integer labels in 0..{n - 1}; got booleans{_sized(size_name, n)}")
    if arr.dtype.kind == "O":
        return np.array([check_int_label(y, f"{name}[{i}]", n, size_name) for i, y in enumerate(arr)], dtype=np.int64)
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must hold integer labels in 0..{n - 1}; got {excerpt(arr)}{_sized(size_name, n)}")
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{name}[{i}] must be an integer in 0..{n - 1}; got {arr[i].item()!r}{_sized(size_name, n)}")
    out_of_range = (arr < 0) | (arr >= n)
    if out_of_range.any():
        i = int(np.flatnonzero(out_of_range)[0])
        raise ValueError(f"{name}[{i}] must be an integer in 0..{n - 1}; got {arr[i].item()!r}{_sized(size_name, n)}")
    return arr.astype(np.int64)


def check_binary_vector(y, name: str, m: int, size_name: str = "n_labels") -> np.ndarray:
    """A 0/1 vector of length ``m`` (``size_name``: the parameter that sets ``m``)."""
    arr = as_label_array(y, name)
    if arr.shape != (m,):
        raise ValueError(f"{name} must be a 0/1 array of length {m}; got shape {arr.shape} ({size_name}={m})")
    if arr.dtype.kind not in "biuf" or not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name} must contain only 0 and 1; got {excerpt(arr)}")
    return arr.astype(np.int64)


def check_binary_matrix(Y, name: str, m: int, size_name: str = "n_labels") -> np.ndarray:
    """An ``(n, m)`` matrix of 0/1 label vectors (booleans accepted as 0/1 indicators)."""
    arr = as_label_array(Y, name)
    if arr.dtype.kind == "O":
        try:
            arr = np.array([np.asarray(row) for row in arr])
        except ValueError:
            raise ValueError(
                f"{name} must be an (n_samples, {m}) 0/1 matrix; its rows have different lengths"
            ) from None
    if arr.ndim != 2 or arr.shape[1] != m:
        raise ValueError(f"{name} must be an (n_samples, {m}) 0/1 matrix; got shape {arr.shape} ({size_name}={m})")
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} must contain only 0 and 1; got {excerpt(arr)}")
    bad = ~((arr == 0) | (arr == 1))
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"{name}[{i}, {j}] must be 0 or 1; got {arr[i, j]!r}")
    return arr.astype(np.int64)


def check_each(values, check, name: str = "Y", n_inputs: int | None = None) -> list:
    """Apply ``check`` to every element, naming the failing one (``Y[3]: ...``).

    With ``n_inputs``, first require one element per input (labels paired with ``X``).
    """
    _check_container(values, name, "a sequence with one entry per example")
    if sp.issparse(values):
        values = values.toarray()
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):  # pandas: rows, not column labels
        values = values.to_numpy()
    if n_inputs is not None:
        check_n_labels(values, n_inputs, name)
    out = []
    for i, value in enumerate(values):
        try:
            out.append(check(value))
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{name}[{i}]: {exc}") from None
    return out


def check_class_labels(Y, name: str = "Y", n: int | None = None) -> np.ndarray:
    """One class label per example, of any kind scikit-learn accepts as a class: numbers (finite,
    real; booleans included), strings; ``None``, NaN, complex numbers and nested values refused."""
    arr = as_label_array(Y, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, one class label per example; got shape {arr.shape}")
    if n is not None:
        check_n_labels(arr, n, name)
    if arr.dtype.kind in "cmMV":
        raise ValueError(f"{name} must hold numbers or strings as classes; got dtype {arr.dtype}")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        i = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(f"{name}[{i}] is {arr[i].item()!r}; a class must be a finite number or a string")
    if arr.dtype.kind == "O":
        for i, y in enumerate(arr.tolist()):
            ok = isinstance(y, str) or (isinstance(y, numbers.Real) and math.isfinite(y))
            if not ok:
                raise ValueError(f"{name}[{i}] is {excerpt(y)}; a class must be a finite number or a string")
        kinds = {isinstance(y, str) for y in arr.tolist()}
        if len(kinds) > 1:
            raise ValueError(f"{name} mixes strings and numbers as classes; got {excerpt(arr)}")
    return arr


def check_size(name: str, *dims: int) -> None:
    """Refuse, before allocating, a dense array of more than :data:`MAX_DENSE_ENTRIES` entries."""
    total = math.prod(int(d) for d in dims)
    if total > MAX_DENSE_ENTRIES:
        raise ValueError(f"{name} asks for an array of {' x '.join(str(d) for d in dims)} = {total:,} values, more "
                         f"than the limit of {MAX_DENSE_ENTRIES:,}; ask for less")


def finite_result(compute, **args) -> float:
    """Evaluate ``compute()`` in float64; a value that overflows is refused, naming the arguments."""
    with np.errstate(all="ignore"):
        try:
            value = float(compute())
        except (OverflowError, ZeroDivisionError):
            value = math.inf
    if not math.isfinite(value):
        shown = ", ".join(f"{k}={float(v):g}" for k, v in args.items())
        raise ValueError(f"the result is not a finite float64 number for {shown}; it overflows: rescale the inputs")
    return value


# ---------------------------------------------------------- query structure
def check_group_sizes(group, n_rows: int, name: str = "group") -> np.ndarray:
    """Row offsets ``(n_queries + 1,)`` from group sizes (integral floats accepted)."""
    sizes = as_label_array(group, name, booleans=False)
    if sizes.ndim != 1 or sizes.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of group sizes; got shape {sizes.shape}")
    if sizes.dtype.kind == "b" or sizes.dtype.kind not in "iuf":
        raise ValueError(f"{name} must hold integer group sizes; got {excerpt(sizes)}")
    if sizes.dtype.kind == "f":
        bad = ~np.isfinite(sizes) | (sizes != np.round(sizes))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{name}[{i}] must be a whole number of rows; got {sizes[i]!r}")
    if np.any(sizes <= 0):
        i = int(np.flatnonzero(sizes <= 0)[0])
        raise ValueError(f"{name}[{i}] must be >= 1 (every query has a row); got {sizes[i]}")
    if np.any(sizes > n_rows):
        i = int(np.flatnonzero(sizes > n_rows)[0])
        raise ValueError(f"{name}[{i}] = {sizes[i]} is more than the {n_rows} rows of X")
    sizes = sizes.astype(np.int64)
    total = int(sizes.sum())
    if total != n_rows:
        raise ValueError(f"{name} sizes sum to {total} but X has {n_rows} rows")
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def check_query_ids(qid, n_rows: int, name: str = "qid") -> np.ndarray:
    """Row offsets ``(n_queries + 1,)`` from one query id per row (each query's rows contiguous)."""
    ids = as_label_array(qid, name)
    if ids.shape != (n_rows,):
        raise ValueError(f"{name} must have one query id per row of X ({n_rows}); got shape {ids.shape}")
    if ids.dtype.kind == "f" and not np.all(np.isfinite(ids)):
        i = int(np.flatnonzero(~np.isfinite(ids))[0])
        raise ValueError(f"{name}[{i}] is {ids[i]!r}; query ids must be finite numbers or strings")
    if ids.dtype.kind == "O" and any(q is None or (isinstance(q, float) and not np.isfinite(q)) for q in ids):
        i = next(i for i, q in enumerate(ids) if q is None or (isinstance(q, float) and not np.isfinite(q)))
        raise ValueError(f"{name}[{i}] is {ids[i]!r}; query ids must be finite numbers or strings")
    if ids.dtype.kind in "cmMV":
        raise ValueError(f"{name} must hold numbers or strings; got dtype {ids.dtype}")
    if n_rows == 0:
        return np.zeros(1, dtype=np.int64)
    starts, runs = query_runs(ids)
    check_query_runs(starts, runs, name, ids)
    return np.concatenate([starts, [n_rows]]).astype(np.int64)


def query_runs(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(starts, runs)`` of one query id per row: the first row of every run of equal ids and
    the id of each run (consecutive runs differ)."""
    ids = np.asarray(ids)
    change = np.flatnonzero(ids[1:] != ids[:-1]) + 1
    starts = np.concatenate([[0], change]).astype(np.int64)
    return starts, ids[starts]


def check_query_runs(starts: np.ndarray, runs: np.ndarray, name: str = "qid", ids=None) -> None:
    """Refuse a query whose rows are not contiguous: ``runs[i]`` is the id of the run of rows that
    begins at row ``starts[i]`` (:func:`query_runs`, of all rows or of consecutive parts of them put
    end to end); an id of two runs is a query cut by other queries' rows.  ``ids`` (the ids per row,
    when at hand) only shows in the message of ids that are not hashable."""
    try:
        distinct = len(set(runs.tolist()))
    except TypeError:
        raise ValueError(f"{name} must hold hashable numbers or strings; got "
                         f"{excerpt(runs if ids is None else ids)}") from None
    if distinct != len(runs):
        seen: set = set()
        for start, q in zip(np.asarray(starts).tolist(), runs.tolist(), strict=True):
            if q in seen:
                raise ValueError(
                    f"the rows of query {q!r} are not contiguous (row {start} follows rows of other queries); sort "
                    f"the rows by query id first, keeping their order within a query: order = "
                    f"numpy.argsort({name}, kind='stable'), then index X, y and {name} with order"
                )
            seen.add(q)


def check_query_keywords(qid, group) -> None:
    """Refuse anything but exactly one of ``qid`` and ``group`` (the queries of a ranking fit)."""
    if (qid is None) == (group is None):
        raise ValueError("give exactly one of qid (a query id per row) and group (rows per query)")


def query_offsets(n_rows: int, qid=None, group=None) -> np.ndarray:
    """Offsets of the queries of a flat ranking layout, from exactly one of ``qid`` and ``group``."""
    check_query_keywords(qid, group)
    if group is not None:
        return check_group_sizes(group, n_rows)
    return check_query_ids(qid, n_rows)


def _dtype_kind(values) -> str:
    """NumPy's kind of ``values`` as an array (``""`` when they make no array, e.g. ragged lists):
    what a check asks before converting values whose conversion would lose something silently."""
    try:
        return np.asarray(values).dtype.kind
    except (TypeError, ValueError):
        return ""
