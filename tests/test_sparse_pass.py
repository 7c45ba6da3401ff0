"""The compiled sparse pass on both layouts of ``W``: a long pass runs on feature-major copies of ``W``
and ``U`` (``engine.vectors.TRANSPOSE_RATIO``), a short one on ``W`` itself; both equal the
per-example reference loop and the dense pass bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from predtron import Predtron, PredtronLD
from predtron.engine.vectors import TRANSPOSE_RATIO
from predtron.problems import General, Multiclass, Multilabel
from predtron.testing import reference_fit

# up to eight classes the scores are summed in registers, above in a loop over the classes
PROBLEMS = [Multiclass(4), Multiclass(11), Multilabel(5), Multilabel(12),
            General([[0, 1, 2], [1, 0, 1], [3, 2, 0]], np.random.default_rng(3).standard_normal((3, 4)))]
OPTIONS = [{}, {"average": True, "fit_intercept": True}, {"update": "prediction", "shuffle": True, "random_state": 2},
           {"average": True, "shuffle": True, "random_state": 5}]


def _data(problem, n: int, p: int, per_row: int, seed: int):
    """``n`` CSR rows of ``p`` features with ``per_row`` non-zeros each (one feature repeated in some
    rows, as an uncanonical CSR matrix may hold), labels of a noisy linear concept."""
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, p, size=(n, per_row))
    indices[::5, 1] = indices[::5, 0]  # a repeated feature: its two updates in the row's order
    data = rng.standard_normal((n, per_row))
    X = sp.csr_matrix((data.ravel(), indices.ravel(), np.arange(0, n * per_row + 1, per_row)), shape=(n, p))
    classes = problem.n_classes if isinstance(problem, Multiclass) else 3
    scores = X @ rng.standard_normal((p, classes)) + 0.5 * rng.standard_normal((n, classes))
    if isinstance(problem, Multilabel):
        scores = X @ rng.standard_normal((p, problem.n_labels))
        return X, (scores > 0).astype(int)
    return X, list(np.argmax(scores, axis=1))


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "plain")
@pytest.mark.parametrize("learner", [Predtron, PredtronLD], ids=lambda c: c.__name__)
@pytest.mark.parametrize("problem", PROBLEMS, ids=repr)
@pytest.mark.parametrize("shape", [(400, 30, 6), (30, 2000, 6)], ids=["feature-major", "row-major"])
def test_sparse_pass_equals_reference_and_dense(shape, problem, learner, options):
    n, p, per_row = shape
    X, Y = _data(problem, n, p, per_row, seed=n)
    transposed = n * per_row >= TRANSPOSE_RATIO * (p + 1)
    assert transposed == (shape[0] == 400)  # the case tests the layout it names
    fit = learner(problem, eta=0.7, **options).fit(X, Y, epochs=2)
    reference = reference_fit(learner(problem, eta=0.7, **options), X, Y, epochs=2)
    np.testing.assert_array_equal(fit.loss_history_, reference.losses)
    assert fit.n_updates_ == reference.n_updates > 0
    if options.get("average"):
        np.testing.assert_allclose(fit._params, reference.params, rtol=1e-10, atol=1e-12)
    else:
        np.testing.assert_array_equal(fit._params, reference.params)
    dense = learner(problem, eta=0.7, **options).fit(X.toarray(), Y, epochs=2)
    np.testing.assert_array_equal(fit.loss_history_, dense.loss_history_)
    np.testing.assert_allclose(fit._params, dense._params, rtol=1e-12, atol=1e-12)
