"""Malformed and equivalent values for the fuzz suite (tests/test_fuzz.py).

Every value comes as a :class:`Variant` of a valid (*canonical*) argument: a factory that
builds a fresh value (generators are consumed once) and what the call must do with it:

``"refuse"``
    raise ``ValueError`` or ``TypeError`` whose message names the argument;
``"same"``
    give the result of the canonical value (or refuse exactly when it refuses): a list for
    an array, Fortran order, a DataFrame, float32 copies of values exact in float32...;
``"either"``
    refuse as above, or return a finite, correctly shaped result;
``"free"``
    refuse as above, or return a finite result of any shape (the argument sets the shape).

Two families: a fixed catalogue per kind of argument (:func:`catalogue`, every entry run in
every profile, so every kind of malformed input reaches every entry point) and hypothesis
strategies that draw random variants (:func:`strategy`: random shapes, dtypes, containers,
special values and label junk) whose expectation follows from what was drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from hypothesis import strategies as st

REFUSE, SAME, EITHER, FREE = "refuse", "same", "either", "free"

SPARSE_FORMATS = ("csr", "csc", "coo", "bsr", "lil", "dok", "dia")


@dataclass(frozen=True)
class Variant:
    """One value of an argument: ``make()`` builds it; ``expect`` is what the call must do."""

    name: str
    make: Callable[[], Any]
    expect: str
    n: int | None = None  # number of examples, when the variant changes it
    why: str = ""  # for a refusal: "magnitude", "shape" or "length" when that is the only reason
    # for a random variant refused for junk entries: the catalogue variants of every reason (the
    # entries, and "shorter"/"longer" if the length changed); a call that declares all of them
    # valid (a huge index in an index set of free length, say) may accept it
    junk: tuple = ()

    def __repr__(self) -> str:
        return f"<{self.name}: {self.expect}>"


def _v(name, make, expect, n=None) -> Variant:
    return Variant(name, make, expect, n)


def _copy(value):
    return value.copy() if hasattr(value, "copy") else value


def _gen(items):
    return lambda: (x for x in items)


# ------------------------------------------------------------------ shared junk
def junk_variants(include_none: str = EITHER) -> list[Variant]:
    """Values no numeric argument accepts (``None`` is allowed by some parameters)."""
    return [
        _v("none", lambda: None, include_none),
        _v("string", lambda: "abc", REFUSE),
        _v("bytes", lambda: b"\x00\x01", REFUSE),
        _v("object", lambda: object(), REFUSE),
        _v("dict", lambda: {"a": 1}, REFUSE),
        _v("set", lambda: {1, 2}, REFUSE),
    ]


# --------------------------------------------------------------------- matrices
def matrix_variants(X: np.ndarray, sparse: str = REFUSE) -> list[Variant]:
    """Variants of a valid 2-D float64 input ``X`` (entries exact in float32, not all integers).

    ``sparse``: the expectation for scipy sparse matrices (``"same"`` where they are accepted).
    """
    X = np.ascontiguousarray(X, dtype=float)
    n, p = X.shape
    wide = np.zeros((n, 2 * p))
    wide[:, ::2] = X
    with_nan = X.copy()
    with_nan[n // 2, p // 2] = np.nan
    with_inf = X.copy()
    with_inf[-1, 0] = np.inf
    with_ninf = X.copy()
    with_ninf[0, -1] = -np.inf
    huge = X.copy()
    huge[0, 0] = 1e150
    max_ok = X.copy()
    max_ok[0, 0] = 1e99
    tiny = X * 1e-300
    readonly = X.copy()
    readonly.flags.writeable = False
    out = [
        _v("list", lambda: X.tolist(), SAME),
        _v("tuple", lambda: tuple(map(tuple, X.tolist())), SAME),
        _v("fortran", lambda: np.asfortranarray(X), SAME),
        _v("strided", lambda: wide.copy()[:, ::2], SAME),
        _v("readonly", lambda: readonly, SAME),
        _v("float32", lambda: X.astype(np.float32), SAME),
        _v("object_floats", lambda: X.astype(object), SAME),
        _v("np_matrix", lambda: np.asmatrix(X), SAME),
        _v("dataframe", lambda: pd.DataFrame(X, columns=[f"f{j}" for j in range(p)]), SAME),
        _v("dataframe_str_column", lambda: pd.DataFrame(X).assign(bad="x"), REFUSE),
        _v("series", lambda: pd.Series(X[:, 0]), REFUSE, n),
        _v("complex", lambda: X + 1j, REFUSE),
        _v("complex_zero_imag", lambda: X.astype(complex), REFUSE),
        _v("datetime", lambda: np.full((n, p), np.datetime64("2020-01-01")), REFUSE),
        _v("timedelta", lambda: np.full((n, p), np.timedelta64(3, "s")), REFUSE),
        _v("strings", lambda: X.astype(str), REFUSE),
        _v("object_strings", lambda: np.full((n, p), "a", dtype=object), REFUSE),
        _v("object_none", lambda: np.where(np.eye(n, p, dtype=bool), None, X.astype(object)), REFUSE),
        _v("scalar", lambda: 1.5, REFUSE),
        _v("generator", _gen([row for row in X]), REFUSE),
        _v("ragged", lambda: [X[0].tolist(), X[1, :-1].tolist(), *X[2:].tolist()], REFUSE),
        _v("nested_3d", lambda: X[None], REFUSE),
        _v("one_d", lambda: X[0].copy(), REFUSE),
        _v("zero_features", lambda: np.empty((n, 0)), REFUSE),
        _v("nan", lambda: with_nan, REFUSE),
        _v("inf", lambda: with_inf, REFUSE),
        _v("minus_inf", lambda: with_ninf, REFUSE),
        _v("huge", lambda: huge, REFUSE),
        _v("max_ok", lambda: max_ok, EITHER),
        _v("tiny", lambda: tiny, EITHER),
        _v("zeros", lambda: np.zeros_like(X), EITHER),
        _v("int", lambda: np.round(X * 4).astype(np.int64), EITHER),
        _v("bool", lambda: X > 0, EITHER),
        _v("zero_rows", lambda: np.empty((0, p)), EITHER, 0),
        _v("extra_feature", lambda: np.hstack([X, X[:, :1]]), EITHER),
        _v("one_row", lambda: X[:1].copy(), EITHER, 1),
        *junk_variants(REFUSE),
    ]
    for fmt in SPARSE_FORMATS:
        out.append(_v(f"sparse_{fmt}", (lambda f: lambda: sp.csr_matrix(X).asformat(f))(fmt), sparse))
    out.append(_v("sparse_array_csr", lambda: sp.csr_array(X), sparse))
    out.append(_v("sparse_complex", lambda: sp.csr_matrix(X.astype(complex)), REFUSE))
    bad_sparse = sp.csr_matrix(X)
    out.append(_v("sparse_nan", lambda: _with_sparse_value(bad_sparse, np.nan), REFUSE))
    out.append(_v("sparse_huge", lambda: _with_sparse_value(bad_sparse, 1e150), REFUSE))
    return out


def _with_sparse_value(M, value):
    M = M.copy()
    if M.nnz:
        M.data[0] = value
    return M


def vector_variants(v: np.ndarray) -> list[Variant]:
    """Variants of a valid 1-D real vector (scores, weights, thresholds)."""
    v = np.asarray(v, dtype=float)
    k = v.size
    with_nan = v.copy()
    with_nan[k // 2] = np.nan
    with_inf = v.copy()
    with_inf[0] = np.inf
    huge = v.copy()
    huge[-1] = 1e150
    return [
        _v("list", lambda: v.tolist(), SAME),
        _v("tuple", lambda: tuple(v.tolist()), SAME),
        _v("float32", lambda: v.astype(np.float32), SAME),
        _v("strided", lambda: np.repeat(v, 2)[::2], SAME),
        _v("series", lambda: pd.Series(v), SAME),
        _v("object_floats", lambda: v.astype(object), SAME),
        _v("complex", lambda: v + 1j, REFUSE),
        _v("complex_zero_imag", lambda: v.astype(complex), REFUSE),
        _v("datetime", lambda: np.full(k, np.datetime64("2021-01-01")), REFUSE),
        _v("strings", lambda: v.astype(str), REFUSE),
        _v("object_none", lambda: np.array([None] * k, dtype=object), REFUSE),
        _v("scalar", lambda: 0.5, REFUSE),
        _v("generator", _gen(v.tolist()), REFUSE),
        _v("two_d", lambda: v[None, :].copy(), REFUSE),
        _v("column", lambda: v[:, None].copy(), REFUSE),
        _v("empty", lambda: np.zeros(0), REFUSE),
        _v("shorter", lambda: v[:-1].copy(), EITHER),
        _v("longer", lambda: np.append(v, 0.25), EITHER),
        _v("nan", lambda: with_nan, REFUSE),
        _v("inf", lambda: with_inf, REFUSE),
        _v("huge", lambda: huge, REFUSE),
        _v("zeros", lambda: np.zeros(k), EITHER),
        _v("ties", lambda: np.full(k, 0.375), EITHER),
        _v("negative", lambda: -v, EITHER),
        _v("int", lambda: np.round(v * 4).astype(np.int64), EITHER),
        _v("bool", lambda: v > 0, EITHER),
        _v("ragged", lambda: [v.tolist(), [1.0]], REFUSE),
        *junk_variants(REFUSE),
    ]


def queries_variants(Xs) -> list[Variant]:
    """Variants of a valid list of 2-D inputs (ranking queries, chain inputs)."""
    Xs = [np.asarray(x, dtype=float) for x in Xs]
    n = len(Xs)

    def replace_first(value):
        return lambda: [value() if callable(value) else value, *[x.copy() for x in Xs[1:]]]

    def first_with(entry):
        def make():
            x = Xs[0].copy()
            x.flat[0] = entry
            return [x, *[x.copy() for x in Xs[1:]]]
        return make

    return [
        _v("lists", lambda: [x.tolist() for x in Xs], SAME),
        _v("tuple", lambda: tuple(x.copy() for x in Xs), SAME),
        _v("fortran", lambda: [np.asfortranarray(x) for x in Xs], SAME),
        _v("float32", lambda: [x.astype(np.float32) for x in Xs], SAME),
        _v("dataframes", lambda: [pd.DataFrame(x) for x in Xs], SAME),
        _v("none", lambda: None, REFUSE),
        _v("scalar", lambda: 1.0, REFUSE),
        _v("string", lambda: "abc", REFUSE),
        _v("dict", lambda: {0: Xs[0]}, REFUSE),
        _v("generator", _gen(Xs), REFUSE),
        _v("flat_matrix", lambda: np.concatenate(Xs), REFUSE),
        _v("empty_list", lambda: [], EITHER, 0),
        _v("one", lambda: [Xs[0].copy()], EITHER, 1),
        _v("nan", first_with(np.nan), REFUSE),
        _v("inf", first_with(np.inf), REFUSE),
        _v("huge", first_with(1e150), REFUSE),
        _v("complex", replace_first(lambda: Xs[0] + 1j), REFUSE),
        _v("strings", replace_first(lambda: Xs[0].astype(str)), REFUSE),
        _v("datetime", replace_first(lambda: np.full(Xs[0].shape, np.datetime64("2020-01-01"))), REFUSE),
        _v("none_entry", replace_first(None), REFUSE),
        _v("one_d_entry", replace_first(lambda: Xs[0][0].copy()), REFUSE),
        _v("three_d_entry", replace_first(lambda: Xs[0][None]), REFUSE),
        _v("zero_rows_entry", replace_first(lambda: np.empty((0, Xs[0].shape[1]))), REFUSE),
        _v("zero_columns_entry", replace_first(lambda: np.empty((Xs[0].shape[0], 0))), REFUSE),
        _v("wider_entry", replace_first(lambda: np.hstack([Xs[0], Xs[0][:, :1]])), REFUSE),
        _v("wider_all", lambda: [np.hstack([x, x[:, :1]]) for x in Xs], EITHER, n),
        _v("sparse_entry", replace_first(lambda: sp.csr_matrix(Xs[0])), EITHER),
        _v("ragged_entry", replace_first(lambda: [Xs[0][0].tolist(), Xs[0][0, :-1].tolist()]), REFUSE),
    ]


# ------------------------------------------------------------------------ labels
_ELEMENT_JUNK = [
    ("nan", float("nan")), ("inf", float("inf")), ("none", None), ("string", "a"), ("complex", 1 + 1j),
    ("huge_int", 10**6), ("big_int", 2**70), ("negative", -7), ("fraction", 0.5), ("nested", [1, 2]),
    ("dict", {"a": 1}),
]


def label_variants(Y, structure: str) -> list[Variant]:
    """Variants of valid labels ``Y`` (one per example).

    ``structure``: ``"scalar"`` (one number per example), ``"vector"`` (rows of one length),
    ``"ragged"`` (1-D arrays of varying lengths, ranking relevance).
    """
    Y = list(Y)
    n = len(Y)
    arr = np.asarray(Y) if structure != "ragged" else None
    out = [
        _v("list", lambda: [_copy(y) for y in Y], SAME),
        _v("tuple", lambda: tuple(_copy(y) for y in Y), SAME),
        _v("none", lambda: None, REFUSE),
        _v("generator", _gen(Y), REFUSE),
        _v("set", lambda: {0, 1}, REFUSE),
        _v("dict", lambda: dict(enumerate(Y)), REFUSE),
        _v("string", lambda: "abc" * n, REFUSE),
        _v("object", lambda: object(), REFUSE),
        _v("shorter", lambda: [_copy(y) for y in Y[:-1]], REFUSE),
        _v("longer", lambda: [_copy(y) for y in Y] + [_copy(Y[0])], REFUSE),
        _v("empty", lambda: [], REFUSE),
    ]
    if structure == "scalar":
        out += [
            _v("array", lambda: arr.copy(), SAME),
            _v("floats", lambda: arr.astype(float), SAME),
            _v("series", lambda: pd.Series(arr), SAME),
            _v("scalar", lambda: Y[0], REFUSE),
            _v("column", lambda: arr[:, None].copy(), REFUSE),
            _v("dataframe_column", lambda: pd.DataFrame({"y": arr}), REFUSE),
            _v("py_bools", lambda: [bool(i % 2) for i in range(n)], REFUSE),
            _v("np_bools", lambda: np.arange(n) % 2 == 1, REFUSE),
            _v("bool_element", lambda: [True, *Y[1:]], REFUSE),
            _v("complex", lambda: arr.astype(complex), REFUSE),
            _v("strings", lambda: arr.astype(str), REFUSE),
            _v("datetime", lambda: np.full(n, np.datetime64("2020-01-01")), REFUSE),
            _v("two_d", lambda: np.tile(arr, (2, 1)), REFUSE),
            _v("fractions", lambda: arr + 0.5, REFUSE),
        ]
        for name, junk in _ELEMENT_JUNK:
            out.append(_v(f"element_{name}", (lambda j: lambda: [j, *Y[1:]])(junk), REFUSE))
    elif structure == "vector":
        m = arr.shape[1]
        out += [
            _v("array", lambda: arr.copy(), SAME),
            _v("dataframe", lambda: pd.DataFrame(arr), SAME),
            _v("rows_as_arrays", lambda: [np.asarray(y) for y in Y], SAME),
            _v("floats", lambda: arr.astype(float), SAME),
            _v("fortran", lambda: np.asfortranarray(arr), SAME),
            _v("py_bools", lambda: arr.astype(bool).tolist(), EITHER),
            _v("np_bools", lambda: arr.astype(bool), EITHER),
            _v("scalar", lambda: 1, REFUSE),
            _v("one_d", lambda: arr[:, 0].copy(), REFUSE),
            _v("three_d", lambda: arr[:, :, None].copy(), REFUSE),
            _v("transposed", lambda: arr.T.copy(), REFUSE),
            _v("short_row", lambda: [list(Y[0])[:-1], *[list(y) for y in Y[1:]]], REFUSE),
            _v("long_row", lambda: [[*list(Y[0]), 0], *[list(y) for y in Y[1:]]], REFUSE),
            _v("complex", lambda: arr.astype(complex), REFUSE),
            _v("strings", lambda: arr.astype(str), REFUSE),
            _v("fractions", lambda: arr + 0.5, REFUSE),
            _v("sparse", lambda: sp.csr_matrix(arr), EITHER),
        ]
        for name, junk in _ELEMENT_JUNK:
            def make(j=junk):
                rows = [list(np.asarray(y).tolist()) for y in Y]
                rows[0][m // 2] = j
                return rows
            out.append(_v(f"entry_{name}", make, REFUSE))
    elif structure == "ragged":
        out += [
            _v("lists", lambda: [np.asarray(y).tolist() for y in Y], SAME),
            _v("float_rows", lambda: [np.asarray(y, dtype=float) for y in Y], SAME),
            _v("scalar", lambda: 1, REFUSE),
            _v("flat", lambda: np.concatenate([np.asarray(y) for y in Y]), SAME),
            _v("short_row", lambda: [np.asarray(Y[0])[:-1], *Y[1:]] if len(Y[0]) > 1 else [[], *Y[1:]],
               REFUSE),
            _v("long_row", lambda: [np.append(Y[0], 0), *Y[1:]], REFUSE),
            _v("py_bools", lambda: [[bool(v) for v in np.asarray(y).tolist()] for y in Y], EITHER),
            _v("np_bools", lambda: [np.asarray(y).astype(bool) for y in Y], EITHER),
            _v("complex", lambda: [np.asarray(y, dtype=complex) for y in Y], REFUSE),
            _v("strings", lambda: [np.asarray(y).astype(str) for y in Y], REFUSE),
            _v("fractions", lambda: [np.asarray(y) + 0.5 for y in Y], REFUSE),
        ]
        for name, junk in _ELEMENT_JUNK:
            def make(j=junk):
                rows = [list(np.asarray(y).tolist()) for y in Y]
                rows[0][0] = j
                return rows
            out.append(_v(f"entry_{name}", make, REFUSE))
    else:
        raise ValueError(structure)
    return out


def label_variant_single(y, structure: str) -> list[Variant]:
    """Variants of ONE valid label (a problem's ``check_label``, ``loss``, ``oracle``...)."""
    if structure == "scalar":
        out = [
            _v("np_int", lambda: np.int64(y), SAME),
            _v("float", lambda: float(y), SAME),
            _v("py_bool", lambda: bool(y), REFUSE),
            _v("np_bool", lambda: np.bool_(y), REFUSE),
            _v("array_1", lambda: np.array([y]), REFUSE),
            _v("list_1", lambda: [y], REFUSE),
            _v("zero_d", lambda: np.array(y), EITHER),
        ]
        out += [_v(f"junk_{name}", (lambda j: lambda: j)(junk), REFUSE) for name, junk in _ELEMENT_JUNK]
        out += [_v("generator", _gen([y]), REFUSE), _v("bytes", lambda: b"1", REFUSE)]
        return out
    arr = np.asarray(y)
    out = [
        _v("list", lambda: arr.tolist(), SAME),
        _v("floats", lambda: arr.astype(float), SAME),
        _v("tuple", lambda: tuple(arr.tolist()), SAME),
        _v("py_bools", lambda: arr.astype(bool).tolist(), EITHER),
        _v("np_bools", lambda: arr.astype(bool), EITHER),
        _v("scalar", lambda: 1, REFUSE),
        _v("two_d", lambda: arr[None, :].copy(), REFUSE),
        _v("shorter", lambda: arr[:-1].copy(), EITHER if structure == "ragged" else REFUSE),
        _v("longer", lambda: np.append(arr, 0), EITHER if structure == "ragged" else REFUSE),
        _v("empty", lambda: np.zeros(0, dtype=int), REFUSE),
        _v("complex", lambda: arr.astype(complex), REFUSE),
        _v("strings", lambda: arr.astype(str), REFUSE),
        _v("fractions", lambda: arr + 0.5, REFUSE),
        _v("generator", _gen(arr.tolist()), REFUSE),
        _v("none", lambda: None, REFUSE),
        _v("object", lambda: object(), REFUSE),
    ]
    for name, junk in _ELEMENT_JUNK:
        def make(j=junk):
            values = arr.tolist()
            values[0] = j
            return values
        out.append(_v(f"entry_{name}", make, REFUSE))
    return out


# ------------------------------------------------------------------ query layout
def qid_variants(qid) -> list[Variant]:
    """Variants of valid query ids (one per row, each query's rows contiguous)."""
    qid = np.asarray(qid)
    n = qid.size
    interleaved = qid.copy()
    interleaved[0] = qid[-1]  # the last query's id also on the first row: not contiguous
    with_nan = qid.astype(float)
    with_nan[-1] = np.nan
    return [
        _v("list", lambda: qid.tolist(), SAME),
        _v("floats", lambda: qid.astype(float), SAME),
        _v("strings", lambda: np.array([f"q{q}" for q in qid.tolist()]), SAME),
        _v("series", lambda: pd.Series(qid), SAME),
        _v("shifted", lambda: qid + 100, SAME),
        _v("nan", lambda: with_nan, REFUSE),
        _v("all_nan", lambda: np.full(n, np.nan), REFUSE),
        _v("inf", lambda: np.where(np.arange(n) == 0, np.inf, qid.astype(float)), REFUSE),
        _v("none_element", lambda: [None, *qid.tolist()[1:]], REFUSE),
        _v("not_contiguous", lambda: interleaved, REFUSE),
        _v("shorter", lambda: qid[:-1].copy(), REFUSE),
        _v("longer", lambda: np.append(qid, qid[-1]), REFUSE),
        _v("two_d", lambda: qid[:, None].copy(), REFUSE),
        _v("scalar", lambda: 1, REFUSE),
        _v("generator", _gen(qid.tolist()), REFUSE),
        _v("complex", lambda: qid.astype(complex), REFUSE),
        _v("datetime", lambda: np.full(n, np.datetime64("2020-01-01")), REFUSE),
        _v("bools", lambda: qid.astype(bool), EITHER),
        _v("single_query", lambda: np.zeros(n, dtype=int), EITHER),
        _v("one_per_row", lambda: np.arange(n), EITHER),
        _v("string", lambda: "abc", REFUSE),
        _v("object", lambda: object(), REFUSE),
        _v("dict", lambda: {"a": 1}, REFUSE),
    ]


def group_variants(group) -> list[Variant]:
    """Variants of valid group sizes (rows per query, summing to the number of rows)."""
    group = np.asarray(group)
    n = int(group.sum())
    return [
        _v("list", lambda: group.tolist(), SAME),
        _v("floats", lambda: group.astype(float), SAME),
        _v("series", lambda: pd.Series(group), SAME),
        _v("fraction", lambda: np.append(group[:-1] + 0.5, group[-1] - 0.5), REFUSE),
        _v("nan", lambda: np.append(group[:-1].astype(float), np.nan), REFUSE),
        _v("zero", lambda: np.append(group, 0), REFUSE),
        _v("negative", lambda: np.append(group[:-1], -group[-1]), REFUSE),
        _v("too_few", lambda: group[:-1].copy(), REFUSE),
        _v("too_many", lambda: np.append(group, 1), REFUSE),
        _v("bools", lambda: np.ones(n, dtype=bool), REFUSE),
        _v("py_bools", lambda: [True] * n, REFUSE),
        _v("strings", lambda: group.astype(str), REFUSE),
        _v("two_d", lambda: group[:, None].copy(), REFUSE),
        _v("empty", lambda: [], REFUSE),
        _v("scalar", lambda: n, REFUSE),
        _v("generator", _gen(group.tolist()), REFUSE),
        _v("complex", lambda: group.astype(complex), REFUSE),
        _v("huge", lambda: [2**62, 2**62], REFUSE),
        _v("one_per_row", lambda: np.ones(n, dtype=int), EITHER),
        _v("single_query", lambda: [n], EITHER),
        _v("string", lambda: "abc", REFUSE),
        _v("object", lambda: object(), REFUSE),
    ]


# --------------------------------------------------------------------- parameters
def real_variants(value) -> list[Variant]:
    """Variants of a real parameter (step size, cost, margin, bound argument...)."""
    value = float(value)
    out = [
        _v("np_float", lambda: np.float64(value), SAME),
        _v("nan", lambda: float("nan"), REFUSE),
        _v("np_nan", lambda: np.float64("nan"), REFUSE),
        _v("inf", lambda: float("inf"), EITHER),
        _v("minus_inf", lambda: float("-inf"), EITHER),
        _v("negative", lambda: -abs(value) - 1.0, EITHER),
        _v("zero", lambda: 0.0, EITHER),
        _v("huge", lambda: 1e308, EITHER),
        _v("tiny", lambda: 5e-324, EITHER),
        _v("int_overflow", lambda: 10**400, EITHER),
        _v("true", lambda: True, REFUSE),
        _v("np_true", lambda: np.bool_(True), REFUSE),
        _v("numeric_string", lambda: str(value), REFUSE),
        _v("complex", lambda: complex(value, 0), REFUSE),
        _v("list", lambda: [value], REFUSE),
        _v("array_1", lambda: np.array([value]), REFUSE),
        *junk_variants(EITHER),
    ]
    if value.is_integer():
        out.append(_v("int", lambda: int(value), SAME))
    if float(np.float32(value)) == value:
        out.append(_v("np_float32", lambda: np.float32(value), SAME))
    return out


def int_variants(value, *, size: bool = False) -> list[Variant]:
    """Variants of an integer parameter; ``size``: it sets an allocation (huge values refused)."""
    value = int(value)
    out = [
        _v("np_int", lambda: np.int64(value), SAME),
        _v("np_int32", lambda: np.int32(value), SAME),
        _v("float_integral", lambda: float(value), EITHER),
        _v("fraction", lambda: value + 0.5, REFUSE),
        _v("nan", lambda: float("nan"), REFUSE),
        _v("inf", lambda: float("inf"), REFUSE),
        _v("true", lambda: True, REFUSE),
        _v("false", lambda: False, REFUSE),
        _v("np_true", lambda: np.bool_(True), REFUSE),
        _v("numeric_string", lambda: str(value), REFUSE),
        _v("complex", lambda: complex(value, 0), REFUSE),
        _v("list", lambda: [value], REFUSE),
        _v("negative", lambda: -3, EITHER),
        _v("zero", lambda: 0, EITHER),
        _v("one", lambda: 1, EITHER),
        *junk_variants(EITHER),
    ]
    if size:
        out += [_v("huge", lambda: 10**30, REFUSE), _v("big", lambda: 2**62, REFUSE)]
    return out


def bool_variants(value) -> list[Variant]:
    """Variants of a boolean parameter: truthy strings and numbers are refused."""
    value = bool(value)
    return [
        _v("np_bool", lambda: np.bool_(value), SAME),
        _v("other", lambda: not value, FREE),
        _v("string_no", lambda: "no", REFUSE),
        _v("string_false", lambda: "False", REFUSE),
        _v("string_true", lambda: "True", REFUSE),
        _v("empty_string", lambda: "", REFUSE),
        _v("one", lambda: 1, REFUSE),
        _v("zero", lambda: 0, REFUSE),
        _v("float", lambda: 1.0, REFUSE),
        _v("none", lambda: None, REFUSE),
        _v("list", lambda: [value], REFUSE),
        _v("nan", lambda: float("nan"), REFUSE),
    ]


def choice_variants(value) -> list[Variant]:
    """Variants of a parameter that takes one of a few strings."""
    out = [
        _v("unknown", lambda: "no-such-choice", REFUSE),
        _v("number", lambda: 3, REFUSE),
        _v("true", lambda: True, REFUSE),
        _v("bytes", lambda: str(value).encode(), REFUSE),
        _v("list", lambda: [value], REFUSE),
        _v("nan", lambda: float("nan"), REFUSE),
        _v("none", lambda: None, EITHER),
        _v("object", lambda: object(), REFUSE),
    ]
    if isinstance(value, str) and value.upper() != value:
        out.append(_v("upper", lambda: value.upper(), EITHER))
    return out


def object_variants(value) -> list[Variant]:
    """Variants of a parameter that takes an object of the package (a problem, a link...)."""
    return [
        _v("none", lambda: None, EITHER),
        _v("class_not_instance", lambda: type(value), REFUSE),
        _v("name", lambda: type(value).__name__, REFUSE),
        _v("number", lambda: 3, REFUSE),
        _v("object", lambda: object(), REFUSE),
        _v("list", lambda: [value], REFUSE),
    ]


def callable_variants(value) -> list[Variant]:
    """Variants of a parameter that takes a callable."""
    return [
        _v("none", lambda: None, EITHER),
        _v("number", lambda: 3, REFUSE),
        _v("string", lambda: "f", REFUSE),
        _v("returns_none", lambda: (lambda *a, **k: None), REFUSE),
        _v("returns_string", lambda: (lambda *a, **k: "x"), REFUSE),
        _v("raises", lambda: _raises, EITHER),
    ]


def _raises(*args, **kwargs):
    raise ValueError("callable argument raised on purpose")


def catalogue(kind: str, value) -> list[Variant]:
    """The fixed variants of an argument of ``kind`` whose valid value is ``value``."""
    if kind == "array":
        base = catalogue("matrix" if np.ndim(value) == 2 else "vector", value)
        return [_any_array(v) for v in base]
    if kind == "matrix":
        return matrix_variants(value)
    if kind == "matrix_sparse":
        return matrix_variants(value, sparse=SAME)
    if kind == "vector":
        return vector_variants(value)
    if kind == "queries":
        return queries_variants(value)
    if kind.startswith("labels_"):
        return label_variants(value, kind.split("_", 1)[1])
    if kind.startswith("label_"):
        return label_variant_single(value, kind.split("_", 1)[1])
    if kind == "qid":
        return qid_variants(value)
    if kind == "group":
        return group_variants(value)
    if kind == "real":
        return real_variants(value)
    if kind == "int":
        return int_variants(value)
    if kind == "size":
        return int_variants(value, size=True)
    if kind == "bool":
        return bool_variants(value)
    if kind == "choice":
        return choice_variants(value)
    if kind == "object":
        return object_variants(value)
    if kind == "callable":
        return callable_variants(value)
    if kind == "any":
        return junk_variants(EITHER)
    if kind.startswith("file_"):
        with open(value, "rb") as handle:
            return file_variants(handle.read(), kind.split("_", 1)[1])
    raise ValueError(f"unknown kind {kind!r}")


# ------------------------------------------------------------ random variants
_SPECIALS = [np.nan, np.inf, -np.inf, 1e150, -1e300]


@st.composite
def random_matrix(draw, p: int, sparse: bool):
    """A random 2-D input: shape, dtype, special values, layout and container all drawn."""
    n = draw(st.integers(0, 7))
    cols = draw(st.sampled_from([p, p, p, 0, 1, p + 1]))
    dtype = draw(st.sampled_from(["float64", "float32", "int64", "bool", "complex", "str", "object"]))
    scale = draw(st.sampled_from([1.0, 1e-6, 1e6, 1e90, 1e-200])) if dtype in ("float64", "object") else 1.0
    values = np.asarray(draw(st.lists(st.floats(-4, 4, allow_nan=False, width=32), min_size=n * cols,
                                      max_size=n * cols)), dtype=float).reshape(n, cols) * scale
    expect = REFUSE if cols == 0 else EITHER
    why = "shape" if cols == 0 else ""
    special = draw(st.sampled_from([None, None, None, *_SPECIALS])) if dtype in ("float64", "float32", "object") \
        else None
    if special is not None and values.size:
        values.flat[draw(st.integers(0, values.size - 1))] = special
        why = "magnitude" if np.isfinite(special) and not (dtype == "float32" and abs(special) > 3e38) and \
            expect != REFUSE else ""
        expect = REFUSE
    else:
        special = None
    if dtype in ("complex", "str") and values.size:
        expect, why = REFUSE, ""
    if dtype == "int64":
        value = np.round(values).astype(np.int64)
    elif dtype == "bool":
        value = values > 0
    elif dtype == "str":
        value = values.astype(str)
    elif dtype == "complex":
        value = values.astype(complex)
    elif dtype == "object":
        value = values.astype(object)
    else:
        with np.errstate(over="ignore"):
            value = values.astype(dtype)
    container = draw(st.sampled_from(["array", "fortran", "list", "dataframe", "sparse"]))
    if container == "fortran":
        value = np.asfortranarray(value)
    elif container == "list":
        value = value.tolist()
    elif container == "dataframe":
        value = pd.DataFrame(value)
    elif container == "sparse" and value.dtype.kind in "biuf":
        value = sp.csr_matrix(value).asformat(draw(st.sampled_from(SPARSE_FORMATS)))
        if not sparse:
            expect, why = REFUSE, ""
    if container == "list" and n == 0 and why == "shape" and special is None:
        # [] is an empty batch with no width to check (the learners document it as such), not a
        # matrix with zero features
        expect, why = EITHER, ""
    v = value
    return Variant(f"random matrix {n}x{cols} {dtype} {container} special={special}", lambda: _copy(v), expect, n,
                   why)


_LABEL_POOL = [-1, 0, 1, 2, 3, 5, 1.0, 2.0]
_LABEL_JUNK = [np.nan, None, "a", 1 + 1j, 10**6, -7, 0.5, [1, 2], True, np.inf]


def _junk_entry(value) -> str:
    """The catalogue variant (``entry_<name>`` of ``_ELEMENT_JUNK``) holding the junk ``value``."""
    for name, entry in _ELEMENT_JUNK:
        same_nan = isinstance(entry, float) and isinstance(value, float) and entry != entry and value != value
        if same_nan or (type(entry) is type(value) and entry == value):
            return f"entry_{name}"
    return f"entry {value!r}"  # no catalogue twin: the random variant's own expectation holds


@st.composite
def random_labels(draw, Y, structure: str):
    """Labels with random entries replaced by random values (junk => refused)."""
    rows = [np.asarray(y).tolist() for y in Y]
    n = len(rows)
    expect = EITHER
    form = draw(st.sampled_from(["list", "array", "series"]))
    bad = {}  # where -> the catalogue entry of a refused junk value there, or None
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, n - 1))
        junk = draw(st.booleans())
        new = draw(st.sampled_from(_LABEL_JUNK if junk else _LABEL_POOL))
        # A boolean among numbers is refused, unless numpy already turned the list into numbers
        # (np.array([True, 2]) is [1, 2]) or the labels are 0/1 indicator rows.
        refused = junk and not (new is True and (structure != "scalar" or form == "array"))
        if structure == "scalar":
            rows[i] = new
            where = (i,)
        elif len(rows[i]):
            j = draw(st.integers(0, len(rows[i]) - 1))
            rows[i][j] = new
            where = (i, j)
        else:
            continue
        bad[where] = _junk_entry(new) if refused else None
    why = ""
    cut = draw(st.sampled_from([None, None, -1, 1]))
    if cut is not None and cut < 0:  # junk in a row that is cut off is not in the input
        bad = {w: r for w, r in bad.items() if w[0] < n + cut}
    if any(bad.values()):
        expect = REFUSE
    if cut is not None:
        rows = rows[:cut] if cut < 0 else rows + rows[:cut]
        if expect != REFUSE:
            why = "length"  # refused only for its number of labels (valid where that number is free)
        expect = REFUSE
    if form == "array":
        try:
            made = np.array(rows, dtype=object) if structure == "ragged" else np.array(rows)
        except ValueError:
            made = rows
        value = made
    elif form == "series" and structure == "scalar":
        value = pd.Series(rows, dtype=object)
    else:
        value = rows
    v = value
    junk = ()
    if any(bad.values()):  # every reason: the junk entries, and "shorter" / "longer" if the length changed
        junk = {entry for entry in bad.values() if entry} | ({"shorter" if cut < 0 else "longer"} if cut else set())
        junk = tuple(sorted(junk))
    return Variant(f"random labels ({structure})", lambda: _copy(v), expect, why=why, junk=junk)


@st.composite
def random_label_one(draw, y, structure: str):
    """One label with random entries replaced (junk => refused; other lengths refused for vectors)."""
    if structure == "scalar":
        junk = draw(st.booleans())
        value = draw(st.sampled_from(_LABEL_JUNK if junk else _LABEL_POOL))
        return Variant(f"random label {value!r}", lambda: value, REFUSE if junk else EITHER)
    row = list(np.asarray(y).tolist())
    expect = EITHER
    size = draw(st.sampled_from([None, None, 0, 1, len(row) + 1]))
    if size is not None:
        row = (row * 2)[:size]
        if structure == "vector" or size == 0:
            expect = REFUSE
    bad = {}
    for _ in range(draw(st.integers(1, 2)) if row else 0):
        j = draw(st.integers(0, len(row) - 1))
        junk = draw(st.booleans())
        row[j] = draw(st.sampled_from(_LABEL_JUNK if junk else _LABEL_POOL))
        bad[j] = junk and row[j] is not True  # True: a 0/1 indicator accepts it, a grade does not
    if any(bad.values()):
        expect = REFUSE
    form = draw(st.sampled_from(["list", "array"]))
    value = row
    if form == "array":
        try:
            value = np.array(row)
        except ValueError:
            value = row
    return Variant(f"random label {row!r}", lambda: _copy(value), expect)


def random_real():
    return st.one_of(
        st.floats(allow_nan=True, allow_infinity=True).map(lambda x: Variant(f"float {x!r}", lambda: x,
                                                                               REFUSE if x != x else EITHER)),
        st.integers(-10, 10**6).map(lambda x: Variant(f"int {x!r}", lambda: x, EITHER)),
        st.sampled_from(["1", "inf", "", "nan"]).map(lambda x: Variant(f"str {x!r}", lambda: x, REFUSE)),
        st.booleans().map(lambda x: Variant(f"bool {x!r}", lambda: x, REFUSE)),
    )


def random_int():
    return st.one_of(
        st.integers(-10, 40).map(lambda x: Variant(f"int {x!r}", lambda: x, EITHER)),
        st.floats(-10, 40).filter(lambda x: not float(x).is_integer())
          .map(lambda x: Variant(f"float {x!r}", lambda: x, REFUSE)),
        st.sampled_from(["3", "", "x"]).map(lambda x: Variant(f"str {x!r}", lambda: x, REFUSE)),
        st.booleans().map(lambda x: Variant(f"bool {x!r}", lambda: x, REFUSE)),
    )


def random_bool():
    return st.one_of(
        st.booleans().map(lambda x: Variant(f"bool {x!r}", lambda: x, FREE)),
        st.text(max_size=5).map(lambda x: Variant(f"str {x!r}", lambda: x, REFUSE)),
        st.integers(-2, 2).map(lambda x: Variant(f"int {x!r}", lambda: x, REFUSE)),
        st.none().map(lambda x: Variant("None", lambda: None, REFUSE)),
    )


def random_choice():
    return st.one_of(
        st.text(max_size=12).map(lambda x: Variant(f"str {x!r}", lambda: x, EITHER)),
        st.integers().map(lambda x: Variant(f"int {x!r}", lambda: x, REFUSE)),
    )


@st.composite
def random_vector(draw, k: int):
    size = draw(st.sampled_from([k, k, k, 0, 1, k + 1, max(k - 1, 0)]))
    values = np.asarray(draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False, width=32), min_size=size,
                                      max_size=size)), dtype=float)
    expect = EITHER if size else REFUSE
    why = "" if size else "shape"
    special = draw(st.sampled_from([None, None, *_SPECIALS]))
    form = draw(st.sampled_from(["array", "list", "column", "float32"]))
    if special is not None and size:
        values[draw(st.integers(0, size - 1))] = special
        why = "magnitude" if np.isfinite(special) and form != "float32" and expect != REFUSE else ""
        expect = REFUSE
    else:
        special = None
    if form == "list":
        value = values.tolist()
    elif form == "column":
        value = values[:, None]
        why = "shape" if expect != REFUSE or why == "shape" else why
        expect = REFUSE
    elif form == "float32":
        with np.errstate(over="ignore"):
            value = values.astype(np.float32)
    else:
        value = values
    v = value
    return Variant(f"random vector {size} {form} special={special}", lambda: _copy(v), expect, None, why)


@st.composite
def random_queries(draw, shapes):
    """A random list of query matrices: counts, sizes, widths, dtypes and special values drawn."""
    count = draw(st.integers(0, len(shapes) + 1))
    width = shapes[0][1]
    widths = [draw(st.sampled_from([width, width, width, width + 1, 0])) for _ in range(count)]
    rows = [draw(st.integers(0, 4)) for _ in range(count)]
    special = draw(st.sampled_from([None, None, *_SPECIALS]))
    expect = EITHER
    out = []
    for i in range(count):
        x = np.asarray(draw(st.lists(st.floats(-4, 4, allow_nan=False, width=32), min_size=rows[i] * widths[i],
                                     max_size=rows[i] * widths[i])), dtype=float).reshape(rows[i], widths[i])
        if special is not None and x.size:
            x.flat[0] = special
            expect = REFUSE
        out.append(x)
    if any(r == 0 for r in rows) or any(w == 0 for w in widths) or len(set(widths)) > 1:
        expect = REFUSE
    v = out
    return Variant(f"random queries rows={rows} widths={widths} special={special}",
                   lambda: [x.copy() for x in v], expect, count)


@st.composite
def random_qid(draw, n: int):
    ids = draw(st.lists(st.sampled_from([0, 1, 2, 3, 2.5, "a", "b", np.nan, None, -1]), min_size=n, max_size=n))
    bad = any(q is None or (isinstance(q, float) and q != q) for q in ids)
    runs = [q for i, q in enumerate(ids) if i == 0 or not _same_id(q, ids[i - 1])]
    keys = [repr(q) for q in runs]
    if len(set(keys)) != len(keys):
        bad = True
    form = draw(st.sampled_from(["list", "array"]))
    value = ids if form == "list" else np.array(ids, dtype=object)
    v = value
    return Variant(f"random qid {ids!r}", lambda: _copy(v), REFUSE if bad else EITHER)


def _same_id(a, b) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:
        return False


@st.composite
def random_group(draw, n: int):
    sizes = draw(st.lists(st.integers(-1, 4), min_size=0, max_size=6))
    expect = EITHER if sizes and all(s >= 1 for s in sizes) and sum(sizes) == n else REFUSE
    v = sizes
    return Variant(f"random group {sizes!r}", lambda: list(v), expect)


_ANY_ARRAY_OK = {"huge", "max_ok", "one_d", "two_d", "column", "series", "nested_3d", "zero_features", "zero_rows",
                 "empty", "scalar_array"}


def _any_array(variant: Variant) -> Variant:
    """For arguments that take a finite real array of any shape and magnitude (norms, link maps)."""
    if variant.expect == REFUSE and (variant.name in _ANY_ARRAY_OK or variant.why in ("magnitude", "shape")):
        return Variant(variant.name, variant.make, FREE, variant.n)
    return variant


def strategy(kind: str, value):
    """A hypothesis strategy of random :class:`Variant` of an argument of ``kind``."""
    if kind.startswith("file_"):
        with open(value, "rb") as handle:
            return random_file(handle.read(), kind.split("_", 1)[1])
    if kind == "array":
        base = strategy("matrix" if np.ndim(value) == 2 else "vector", value)
        return base.map(_any_array)
    if kind in ("matrix", "matrix_sparse"):
        return random_matrix(np.shape(value)[1], kind == "matrix_sparse")
    if kind.startswith("labels_"):
        return random_labels(value, kind.split("_", 1)[1])
    if kind.startswith("label_"):
        return random_label_one(value, kind.split("_", 1)[1])
    if kind == "vector":
        return random_vector(np.size(value))
    if kind == "queries":
        return random_queries([np.shape(x) for x in value])
    if kind == "qid":
        return random_qid(np.size(value))
    if kind == "group":
        return random_group(int(np.sum(value)))
    if kind == "real":
        return random_real()
    if kind in ("int", "size"):
        return random_int()
    if kind == "bool":
        return random_bool()
    if kind == "choice":
        return random_choice()
    return st.sampled_from(catalogue(kind, value))


# --------------------------------------------------------------------- files
_FILE_DIR: list = []


def file_dir():
    """A private temporary folder for the fuzz suite's files (removed at exit)."""
    if not _FILE_DIR:
        import atexit
        import shutil
        import tempfile

        path = tempfile.mkdtemp(prefix="predtron-fuzz-")
        atexit.register(shutil.rmtree, path, True)
        _FILE_DIR.append(path)
    return _FILE_DIR[0]


def write_file(name: str, content: bytes):
    """Write ``content`` to a new file of the fuzz folder and return its path."""
    return _write(name, content)


def _write(name: str, content: bytes):
    import os

    path = os.path.join(file_dir(), name)
    with open(path, "wb") as handle:
        handle.write(content)
    return path


_counter = [0]


def _file(suffix: str, content: bytes):
    def make():
        _counter[0] += 1
        return _write(f"f{_counter[0]}-{suffix}", content)
    return make


def _gzip(content: bytes) -> bytes:
    import gzip

    return gzip.compress(content, mtime=0)


def _bz2(content: bytes) -> bytes:
    import bz2

    return bz2.compress(content)


#: Line corruptions of a text data file, by format: appended line, expectation.
_BAD_LINES = {
    "svmlight": [("garbage_line", b"hello world\n"), ("huge_index", b"1 1:0.5 10000000000:1\n"),
                 ("zero_index", b"1 0:0.5\n"), ("negative_index", b"1 -3:0.5\n"),
                 ("duplicate_index", b"1 2:0.5 2:0.25\n"), ("decreasing_index", b"1 3:0.5 2:0.25\n"),
                 ("nan_value", b"1 1:nan\n"), ("inf_value", b"1 1:inf\n"), ("overflow_value", b"1 1:1e400\n"),
                 ("missing_colon", b"1 1 0.5\n"), ("bad_label", b"abc 1:0.5\n"), ("nan_label", b"nan 1:0.5\n"),
                 ("empty_value", b"1 1:\n"), ("big_int_index", b"1 99999999999999999999999:1\n")],
    "letor": [("garbage_line", b"hello world\n"), ("huge_index", b"1 qid:9 1:0.5 10000000000:1\n"),
              ("bad_qid", b"1 qid:abc 1:0.5\n"), ("missing_qid", b"1 1:0.5\n"), ("negative_relevance",
              b"-1 qid:9 1:0.5\n"), ("fraction_relevance", b"2.5 qid:9 1:0.5\n"), ("nan_value", b"1 qid:9 1:nan\n"),
              ("duplicate_index", b"1 qid:9 2:0.5 2:0.25\n"), ("interleaved_qid", b"1 qid:1 1:0.5\n"),
              ("huge_relevance", b"5000 qid:9 1:0.5\n"), ("nan_qid", b"1 qid:nan 1:0.5\n")],
    "arff": [("garbage_line", b"hello world\n"), ("nan_value", b"nan,0.5,1,0\n"), ("short_row", b"0.5,1\n"),
             ("long_row", b"0.5,0.5,1,0,1\n"), ("bad_label", b"0.5,0.5,2,0\n"), ("missing_label", b"0.5,0.5,?,0\n"),
             ("missing_value", b"?,0.5,1,0\n"), ("sparse_repeat", b"{0 0.5,0 0.25}\n"), ("inf_value", b"inf,0.5,1,0\n"),
             ("sparse_huge_index", b"{10000000000 1}\n"), ("unclosed_quote", b"'0.5,0.5,1,0\n")],
    "group": [("fraction", b"2.5\n"), ("zero", b"0\n"), ("negative", b"-1\n"), ("text", b"abc\n"),
              ("huge", b"1e30\n"), ("nan", b"nan\n")],
    "xml": [("unclosed", b"<labels><label name='a'>"), ("text", b"hello")],
}


def _npz_edit(content: bytes, edit) -> bytes:
    """``content`` (a saved learner) with its entries changed by ``edit(header, arrays)`` (in place)."""
    import io
    import json

    with np.load(io.BytesIO(content), allow_pickle=False) as data:
        entries = {k: data[k] for k in data.files}
    header = json.loads(str(entries.pop("__header__")))
    replaced = edit(header, entries)  # an edit may return a whole new header (a str: raw text)
    if replaced is not None:
        header = replaced
    out = io.BytesIO()
    text = header if isinstance(header, str) else json.dumps(header)
    np.savez(out, __header__=np.array(text), **entries)
    return out.getvalue()


def _first_array(arrays: dict) -> str:
    return sorted(k for k in arrays if np.asarray(arrays[k]).size > 1)[0]


def _pickled(content: bytes) -> bytes:
    """An archive whose first array is an object array (loading it would unpickle)."""
    import io

    with np.load(io.BytesIO(content), allow_pickle=False) as data:
        entries = {k: data[k] for k in data.files}
    key = _first_array(entries)
    entries[key] = np.array([{"a": 1}, None], dtype=object)
    out = io.BytesIO()
    np.savez(out, **entries)
    return out.getvalue()


def _set(path: tuple, value):
    def edit(header, arrays):
        node = header
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return edit


def _arrays(change):
    def edit(header, arrays):
        key = _first_array(arrays)
        arrays[key] = change(np.asarray(arrays[key]))
    return edit


def _nested(header, arrays):
    deep: object = 1
    for _ in range(400):
        deep = [deep]
    header["params"]["eta"] = deep


def _extra_entry(header, arrays):
    arrays["evil"] = np.zeros(3)


def _drop_state(header, arrays):
    arrays.pop(_first_array(arrays))


def npz_variants(content: bytes) -> list[Variant]:
    """Variants of a learner saved by ``predtron.save``: damaged archives, edited headers and arrays."""
    import json

    def edited(name, edit):
        return _v(name, _file("model.npz", _npz_edit(content, edit)), REFUSE)

    mid = len(content) // 2
    return [
        _v("same_copy", _file("model.npz", content), SAME),
        _v("empty", _file("model.npz", b""), REFUSE),
        _v("binary_junk", _file("model.npz", bytes(range(256)) * 4), REFUSE),
        _v("truncated_half", _file("model.npz", content[:mid]), REFUSE),
        _v("truncated_tail", _file("model.npz", content[:-22]), REFUSE),
        _v("corrupt_middle", _file("model.npz", content[:mid] + b"\x00" * 64 + content[mid + 64:]), REFUSE),
        _v("gzip", _file("model.npz.gz", _gzip(content)), REFUSE),
        _v("json_text", _file("model.npz", b'{"format": "predtron-learner/3"}'), REFUSE),
        _v("pickled_array", _file("model.npz", _pickled(content)), REFUSE),
        _v("empty_zip", _file("model.npz", _empty_zip()), REFUSE),
        edited("old_format", _set(("format",), "predtron-learner/2")),
        edited("unknown_class", _set(("class",), "os.system")),
        edited("foreign_class", _set(("class",), "sklearn.linear_model.Perceptron")),
        edited("header_not_object", lambda h, a: [1, 2]),
        edited("header_not_json", lambda h, a: "{not json"),
        edited("header_nan_token", lambda h, a: json.dumps(h).replace('"state": {', '"state": {"x": NaN, ', 1)),
        edited("header_format_list", _set(("format",), ["x"])),
        edited("nan_parameter", _set(("params", "eta"), float("nan"))),
        edited("negative_parameter", _set(("params", "eta"), -1.0)),
        edited("string_parameter", _set(("params", "eta"), "fast")),
        edited("unknown_parameter", _set(("params", "colour"), "red")),
        edited("nested_parameter", _nested),
        edited("extra_entry", _extra_entry),
        edited("missing_array", _drop_state),
        edited("nan_array", _arrays(lambda a: np.full(a.shape, np.nan))),
        edited("huge_array", _arrays(lambda a: np.full(a.shape, 1e300))),
        edited("string_array", _arrays(lambda a: np.full(a.shape, "x"))),
        edited("complex_array", _arrays(lambda a: a.astype(complex))),
        edited("short_array", _arrays(lambda a: a.ravel()[:-1])),
        edited("transposed_array", _arrays(lambda a: a.T if a.ndim == 2 and a.shape[0] != a.shape[1]
                                           else a.reshape(1, -1, 1))),
        edited("bool_array", _arrays(lambda a: a != 0)),
        _v("directory", lambda: file_dir(), REFUSE),
        _v("missing", lambda: file_dir() + "/does-not-exist.npz", REFUSE),
        _v("none", lambda: None, REFUSE),
        _v("number", lambda: 3, REFUSE),
        _v("list", lambda: [file_dir()], REFUSE),
    ]


def _empty_zip() -> bytes:
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w"):
        pass
    return out.getvalue()


def file_variants(content: bytes, fmt: str) -> list[Variant]:
    """Variants of a valid data file of format ``fmt`` (the value is a path written on demand)."""
    if fmt == "npz":
        return npz_variants(content)
    out = [
        _v("same_copy", _file(fmt, content), SAME),
        _v("gzip", _file(fmt + ".gz", _gzip(content)), SAME),
        _v("bz2", _file(fmt + ".bz2", _bz2(content)), SAME),
        _v("crlf", _file(fmt, content.replace(b"\n", b"\r\n")), EITHER),
        _v("trailing_blank", _file(fmt, content + b"\n\n   \n"), EITHER),
        _v("empty", _file(fmt, b""), REFUSE),
        _v("only_blank", _file(fmt, b"\n\n  \n"), REFUSE),
        _v("binary_junk", _file(fmt, bytes(range(256)) * 4), REFUSE),
        _v("nul_byte", _file(fmt, content[: len(content) // 2] + b"\x00" + content[len(content) // 2:]), REFUSE),
        _v("non_utf8", _file(fmt, content + b"\xff\xfe\xfd\n"), REFUSE),
        _v("truncated_gzip", _file(fmt + ".gz", _gzip(content)[:-12]), REFUSE),
        _v("corrupt_gzip", _file(fmt + ".gz", _gzip(content)[:10] + b"\x00" * 40), REFUSE),
        _v("corrupt_bz2", _file(fmt + ".bz2", b"BZh91AY&SY" + b"\x00" * 40), REFUSE),
        _v("truncated_mid_line", _file(fmt, content.rstrip(b"\n")[:-3]), EITHER),
        _v("directory", lambda: file_dir(), REFUSE),
        _v("missing", lambda: file_dir() + "/does-not-exist.txt", REFUSE),
        _v("none", lambda: None, REFUSE),
        _v("number", lambda: 3, REFUSE),
        _v("list", lambda: [file_dir()], REFUSE),
    ]
    for name, line in _BAD_LINES.get(fmt, []):
        out.append(_v(f"line_{name}", _file(fmt, content + line), REFUSE))
    if fmt == "xml":
        out.append(_v("no_labels", _file(fmt, b"<labels></labels>"), REFUSE))
        out.append(_v("duplicate_labels", _file(fmt, b"<labels><label name='a'/><label name='a'/></labels>"), REFUSE))
    return out


def random_file(content: bytes, fmt: str):
    """A valid file with random bytes flipped, cut or inserted (must be refused cleanly or read)."""
    @st.composite
    def build(draw):
        data = bytearray(content)
        for _ in range(draw(st.integers(1, 4))):
            op = draw(st.sampled_from(["flip", "cut", "insert", "dup"]))
            i = draw(st.integers(0, max(len(data) - 1, 0)))
            if op == "flip" and data:
                data[i] = draw(st.integers(0, 255))
            elif op == "cut":
                del data[i: i + draw(st.integers(1, 20))]
            elif op == "insert":
                data[i:i] = draw(st.sampled_from([b" ", b":", b"\n", b"-", b"9" * 12, b"nan", b"#", b"?", b",", b"{",
                                                  b"qid:", b"1e999", b"\x00"]))
            else:
                data[i:i] = data[i: i + 30]
        value = bytes(data)
        return Variant(f"random {fmt} file ({len(value)} bytes)", _file(fmt, value), EITHER)
    return build()
