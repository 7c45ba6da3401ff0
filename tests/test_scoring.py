"""Scores a round decides on: equal rows score equally, whatever the BLAS (issue 17)."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from predtron import scoring
from predtron.baselines.mmp import MMP
from predtron.problems.multilabel_ranking import MultilabelRanking
from predtron.scoring import column_order_dot, row_dot, row_scores


def repeated_rows(rng, n_rows, p):
    """``n_rows`` copies of one random row, interleaved with other rows (BLAS blocks rows)."""
    row = rng.standard_normal(p)
    W = rng.standard_normal((2 * n_rows, p))
    W[::2] = row
    return W


@pytest.mark.parametrize("p", [3, 10, 64, 333])
def test_equal_rows_score_equally_and_each_entry_is_a_correctly_summed_dot(p):
    rng = np.random.default_rng(p)
    for _ in range(20):
        W = repeated_rows(rng, 9, p)
        x = rng.standard_normal(p)
        t = row_dot(W, x)
        assert np.all(t[::2] == t[0])
        exact = np.array([math.fsum(W[i] * x) for i in range(len(W))])
        assert np.all(np.abs(t - exact) <= 1e-12 * (np.abs(W) @ np.abs(x)))


def test_row_scores_is_x_times_w_transposed_in_chunks(monkeypatch):
    rng = np.random.default_rng(0)
    W, X = repeated_rows(rng, 4, 20), rng.standard_normal((37, 20))
    X[5] = X[30]
    whole = row_scores(X, W)
    monkeypatch.setattr(scoring, "_ROW_SCORES_CHUNK", 50)  # 50 // 160 -> one row per chunk
    np.testing.assert_array_equal(row_scores(X, W), whole)
    np.testing.assert_allclose(whole, X @ W.T, rtol=1e-12, atol=1e-12)
    assert np.all(whole[:, ::2] == whole[:, [0]]) and np.all(whole[5] == whole[30])
    for i in range(len(X)):
        np.testing.assert_array_equal(whole[i], row_dot(W, X[i]))


@pytest.mark.parametrize("sparse", [False, True])
def test_one_scores_of_vector_inputs_tie_on_equal_rows(sparse):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((5, 64))
    X[X < -0.5] = 0.0
    problem = MultilabelRanking(10)
    for intercept in (False, True):
        inputs = problem.scoring.prepare(sp.csr_matrix(X) if sparse else X, intercept=intercept)
        W = repeated_rows(rng, 5, 64 + intercept)
        for i in range(inputs.n):
            t = inputs.one_scores(W, i)
            assert np.all(t[::2] == t[0])
            np.testing.assert_allclose(t, W @ np.append(X[i], 1.0)[: W.shape[1]], rtol=1e-12, atol=1e-12)


def test_mmp_scores_labels_with_equal_rows_equally():
    rng = np.random.default_rng(2)
    mmp = MMP(6, loss="error_set_size").partial_fit(rng.standard_normal((1, 40)), [[1, 1, 1, 0, 0, 0]])
    # one update from zero: the relevant rows are equal, and so are the irrelevant ones
    assert np.all(mmp.coef_[:3] == mmp.coef_[0]) and np.all(mmp.coef_[3:] == mmp.coef_[3])
    T = mmp.decision_function(rng.standard_normal((50, 40)))
    assert np.all(T[:, :3] == T[:, [0]]) and np.all(T[:, 3:] == T[:, [3]])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_column_order_dot_is_the_sparse_product_in_any_chunk(n, p, seed):
    """Dense rows scored by column_order_dot equal scipy's CSR product bit for bit, and a row
    scores the same alone or among others (what lets a streamed predict equal the in-memory one)."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, p)) * (rng.random((n, p)) < 0.5)
    x = rng.standard_normal(p) * 10.0 ** rng.integers(-8, 8, size=p)
    whole = column_order_dot(A, x)
    np.testing.assert_array_equal(whole, sp.csr_matrix(A) @ x)
    assert not np.signbit(whole[~A.any(axis=1)]).any()  # an empty row scores +0.0, as scipy's does
    cut = int(rng.integers(0, n + 1))
    np.testing.assert_array_equal(np.concatenate([column_order_dot(A[:cut], x), column_order_dot(A[cut:], x)]),
                                  whole)


def test_ranker_predict_of_a_csr_with_unsorted_indices_equals_the_dense_predict():
    """PredtronRanker.predict promises the same scores bit for bit dense or sparse: a CSR matrix whose
    rows store their non-zeros out of column order is summed in column order too."""
    from predtron.sklearn import PredtronRanker

    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 30)) * (rng.random((400, 30)) < 0.5)
    y, qid = rng.integers(0, 3, 400), np.repeat(np.arange(40), 10)
    model = PredtronRanker(standardize=False, random_state=0).fit(X, y, qid=qid)
    dense = model.predict(X)
    S = sp.csr_matrix(X)
    for i in range(S.shape[0]):  # each row's entries stored in reverse column order
        a, b = S.indptr[i], S.indptr[i + 1]
        S.indices[a:b], S.data[a:b] = S.indices[a:b][::-1].copy(), S.data[a:b][::-1].copy()
    S.has_sorted_indices = False
    assert (S != sp.csr_matrix(X)).nnz == 0
    np.testing.assert_array_equal(model.predict(S), dense)
