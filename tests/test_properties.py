"""Property tests (hypothesis): surrogate >= loss >= 0, homogeneity, equivariance."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from predtron.problems import Multiclass, Multilabel, Ordinal

# no subnormal scores: c * t may underflow to zero and lose its sign, which is not a property of pred
finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False, allow_subnormal=False)


@settings(max_examples=200, deadline=None)
@given(t=arrays(float, 6, elements=finite), bits=arrays(np.int64, 6, elements=st.integers(0, 1)),
       loss=st.sampled_from(["hamming", "subset", "errorset"]), c=st.floats(0.01, 100))
def test_multilabel_surrogate_dominates_loss_and_pred_is_homogeneous(t, bits, loss, c):
    problem = Multilabel(6, loss)
    assert problem.surrogate(t, bits) >= problem.loss(problem.pred(t), bits) - 1e-9 >= -1e-9
    np.testing.assert_array_equal(problem.pred(c * t), problem.pred(t))


@settings(max_examples=200, deadline=None)
@given(t=arrays(float, 5, elements=finite), y=st.integers(0, 4), perm=st.permutations(range(5)))
def test_multiclass_zero_one_is_permutation_equivariant(t, y, perm):
    problem = Multiclass(5)
    perm = np.array(perm)
    # relabelling classes permutes the scores: the surrogate is unchanged
    inverse = np.argsort(perm)
    assert np.isclose(problem.surrogate(t, y), problem.surrogate(t[inverse], perm[y]))
    # pred breaks near-ties (within 1e-12 relative) towards the first index, so the
    # inequality holds up to that rounding
    assert problem.surrogate(t, y) >= problem.loss(problem.pred(t), y) - 1e-9 >= -1e-9


@settings(max_examples=200, deadline=None)
@given(t=arrays(float, 4, elements=finite), y=st.integers(0, 3), c=st.floats(0.01, 100))
def test_ordinal_surrogate_and_homogeneity(t, y, c):
    problem = Ordinal(4)
    assert problem.surrogate(t, y) >= problem.loss(problem.pred(t), y) - 1e-9 >= -1e-9
    assert problem.pred(c * t) == problem.pred(t)


@settings(max_examples=100, deadline=None)
@given(t=arrays(float, 5, elements=finite), bits=arrays(np.int64, 5, elements=st.integers(0, 1)),
       perm=st.permutations(range(5)), loss=st.sampled_from(["hamming", "subset", "errorset"]))
def test_multilabel_permutation_equivariance(t, bits, perm, loss):
    problem = Multilabel(5, loss)
    perm = np.array(perm)
    np.testing.assert_array_equal(problem.pred(t[perm]), problem.pred(t)[perm])
    assert np.isclose(problem.surrogate(t[perm], bits[perm]), problem.surrogate(t, bits))
