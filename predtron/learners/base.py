"""The online loop shared by the mistake-driven learners: an exact block scan.

A learner consumes any :class:`~predtron.problems.Problem` through its operations and its
``scoring`` map; it never looks at which problem it has.  Subclasses decide how the
parameters are stored and updated (primal matrix, mirror-descent dual, kernel expansion)
by implementing :meth:`OnlineLearner._init_state`, :meth:`OnlineLearner._iterate_scores`,
:meth:`OnlineLearner._apply` and :meth:`OnlineLearner._predictor_scores`.

The exact block scan
--------------------
Algorithm 1 changes ``W`` only on rounds with a non-zero loss.  Between two such rounds
``W`` is constant, so the scores of the next rounds can all be computed with one matrix
product: the loop scores a *block* of upcoming instances with the current ``W``, asks the
problem for the loss of ``pred(t)`` on every one of them at once
(:meth:`~predtron.problems.Problem.batch_loss`), skips the leading zero-loss rounds, and
performs the update of Algorithm 1 on the first round with a non-zero loss, exactly as
the per-example loop would; then it continues from the next instance.  The block grows
while no mistake appears and shrinks after one, so a pass over data the learner already
fits costs a few matrix products.  The result (parameters, losses, every decision) is the
per-example loop's: :func:`predtron.testing.reference_fit` is that loop, and the tests
compare the two for every problem and option.

Options (defaults are the paper's Algorithm 1)
-----------------------------------------------
``average``
    Predict with the average of the iterates ``W_2, ..., W_{T+1}`` after each of the ``T``
    rounds so far (the averaged perceptron of Freund and Schapire, 1999, and Collins,
    2002), maintained lazily: an update costs the same order as a plain one.
``shuffle``, ``random_state``
    ``fit`` visits the examples in a fresh random order at every pass; ``partial_fit``
    keeps the order of the stream.
``fit_intercept``
    Scores ``t = W x + b`` (vector inputs): the augmented input ``(x, 1)``, so the bounds
    hold with ``R^2 + 1`` in place of ``R^2`` and the margin of ``(W, b)``.
``record_losses``
    Keep the non-zero losses with their rounds (``loss_history_``); the totals
    ``n_rounds_``, ``cumulative_loss_``, ``n_mistakes_`` and ``n_updates_`` are always kept.

Sample weights
--------------
``fit``, ``partial_fit`` and ``fit_inputs`` take ``sample_weight``, one non-negative weight
per example (per query, for ranking).  An example of weight ``w > 0`` is one round whose loss
is ``w L(sigma_tau, y_tau)`` (the weighted loss ``L_alpha`` of the paper's binary section,
with the weight of the example in place of that of its class), and so whose update is
``w`` times Algorithm 1's: ``W <- W - eta w (rep(sigma~) - rep(sigma_y)) X^T``, the
subgradient of ``w phi(W X, y)`` (``eta w L`` times the direction for Predtron.LD).  The
oracle ``sigma~`` is that of the unweighted loss: ``w phi`` and ``phi`` have the same
maximiser for ``w > 0``.  ``loss_history_`` and ``cumulative_loss_`` hold the weighted
losses.  An example of weight 0 is no round at all: the parameters, the averaged
iterate, ``n_rounds_`` and the losses are exactly those of the same pass without it.

Theorem 1 with weights (same proof): on a round of weight ``w`` and loss ``L >= c_L`` the
squared distance to ``U = (C_L / gamma) W*`` falls by at least ``2 eta w L (1 - 2 eta w
||x||^2 / c_L)``, so with ``R_w^2 = max_tau w_tau ||x_tau||^2`` in place of ``R^2`` the
weighted cumulative loss ``sum_tau w_tau L_tau`` obeys Theorem 1's bound for every
``eta < c_L / (2 R_w^2)`` (:func:`~predtron.bounds.theorem1_bound` with ``R = R_w``), and
the step ``c_L / (4 R_w^2)`` gives ``4 R_w^2 C_L^2 / (c_L gamma^2)``: the largest weight
plays the part of a larger input radius, and a common factor on all the weights acts as
the same factor on ``eta``.

The averaged iterate counts every round once, whatever its weight (as scikit-learn's
averaged SGD counts its steps); weights act on the steps.  An integer weight ``k`` equals
the example repeated ``k`` times in a row exactly when each of the ``k`` copies would
still suffer a loss with the same update direction (the oracle's, or the prediction's,
unchanged by the steps before it), and ``average=False``; otherwise the copies differ: a
copy the earlier steps already fit makes no update (the weighted round makes all ``k``
steps at once), and the loss-augmented oracle may pick another ``sigma~`` once the scores
have moved.  A weighted pass runs where an unweighted one does: the compiled pass of
:mod:`predtron.engine` (the instances of weight 0 left out of its order, each round's loss and
step scaled by its weight, the NumPy scan's arithmetic), else the exact NumPy block scan;
``sample_weight=None`` takes the unweighted path, unchanged.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod

import numpy as np

from predtron import engine
from predtron._estimator import EpochOrders, Estimator, check_epoch_args, epoch_progress
from predtron._history import LossTrace
from predtron._state import State, learner_state, restore_learner
from predtron._validation import (
    MAX_DENSE_ENTRIES,
    _dtype_kind,
    check_bool,
    check_choice,
    check_positive,
    check_random_state,
    excerpt,
)
from predtron.engine import jit
from predtron.problems.base import Problem
from predtron.scoring import Inputs

UPDATES = ("oracle", "prediction")

#: Largest step size accepted (larger steps only rescale ``W`` until scores overflow).
MAX_ETA = 1e100

#: Whether the compiled passes of :mod:`predtron.engine` may be used: the engine's one policy,
#: :data:`predtron.engine.jit.POLICY` (``PREDTRON_JIT=never`` or ``PREDTRON_NO_JIT`` set, read
#: there and only there, force the NumPy block scan everywhere).
USE_COMPILED = engine.AVAILABLE and jit.POLICY != "never"

#: Number of instances the block scan scores together in its first block, and the floor of the
#: block size after an update (twice the rounds the last block got through) for instances of one
#: score each (binary classification).  The floor holds about ``2 * MIN_BLOCK`` scores
#: (``OnlineLearner._block_floor``): an instance of many scores (an example with a score per
#: label, a query with one per document) costs as much to score as many binary ones, and after an
#: update the rest of the block is work thrown away; measured with ``PREDTRON_JIT=never``, a floor
#: of 32 instances made the NumPy scan of the bibtex multilabel fit (159 labels) and of the MQ2008
#: ranker (17 documents a query) 1.5-2 times slower than this floor, while binary and few-class
#: fits change little between floors of 8 and 32.
MIN_BLOCK = 32
#: Largest number of instances the block scan scores together: a block with no mistake
#: doubles the next one up to this size, and prediction scores blocks of this size.
MAX_BLOCK = 4096
#: Seconds between two questions of a block scan to the engine: is the kernel of this pass ready
#: (compiled by the background worker meanwhile), to take the rest of the pass over?
HANDOVER_SECONDS = 0.05

#: ``Y`` omitted (prediction): distinct from ``Y=None``, which is refused.
_NO_LABELS = object()


def check_problem(problem) -> Problem:
    """The ``problem`` parameter of every learner."""
    if not isinstance(problem, Problem):
        raise ValueError(
            "problem must be a predtron.problems.Problem instance (e.g. Binary()); "
            f"got {type(problem).__name__}"
        )
    return problem


def check_order(order, n: int) -> np.ndarray:
    """The ``order`` of :meth:`OnlineLearner.partial_fit`: a permutation of ``0, ..., n - 1``."""
    arr = np.asarray(order)
    if arr.shape != (n,) or arr.dtype.kind not in "iu" or not np.array_equal(np.sort(arr), np.arange(n)):
        raise ValueError(f"order must be a permutation of 0..{n - 1} (one index per example); got "
                         f"{excerpt(arr)} of shape {arr.shape}")
    return arr.astype(np.int64, copy=False)


def check_sample_weight(sample_weight, n: int, *, fitting: bool = False, what: str = "example") -> np.ndarray | None:
    """The ``sample_weight`` of ``fit``/``partial_fit``: ``None``, a non-negative number (every
    example's weight), or ``n`` finite non-negative numbers, one per ``what``; returned as a new
    float64 array (the caller's array is never written).  ``fitting``: ``fit`` starts from
    scratch, so at least one weight must be positive."""
    if sample_weight is None:
        return None
    if isinstance(sample_weight, (str, bytes, bool, np.bool_)):
        raise TypeError(f"sample_weight must be an array of {n} non-negative numbers (one per {what}); "
                        f"got {excerpt(sample_weight)}")
    kind = _dtype_kind(sample_weight)
    if kind in ("b", "c", "U", "S"):  # booleans, complex numbers, text: converted silently (the real part)
        what_came = {"b": "booleans", "c": "complex numbers"}.get(kind, "text")
        raise TypeError(f"sample_weight must hold real numbers, not {what_came}; got {excerpt(sample_weight)}")
    try:
        arr = np.array(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"sample_weight must be an array of {n} non-negative numbers (one per {what}); "
                        f"got {excerpt(sample_weight)}") from None
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.shape != (n,):
        raise ValueError(f"sample_weight must have shape ({n},) (one weight per {what}); got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        bad = arr[~(np.isfinite(arr) & (arr >= 0))]
        raise ValueError(f"sample_weight must hold finite non-negative numbers; got {excerpt(bad)}")
    if fitting and n and not np.any(arr > 0):
        raise ValueError("sample_weight must hold at least one positive weight: with every weight zero there is "
                         "nothing to learn")
    return arr


class OnlineLearner(Estimator, ABC):
    """Base class of the mistake-driven learners (Algorithm 1 and its variants).

    Parameters
    ----------
    problem : Problem
        The prediction problem.
    eta : float, default 1.0
        Step size ``eta > 0``.
    update : {"oracle", "prediction"}, default "oracle"
        Which prediction enters the update on a mistake round: ``"oracle"`` uses the
        loss-augmented argmax ``sigma~`` (Algorithm 1, line 8); ``"prediction"`` uses the
        prediction ``sigma_tau`` itself (the classic perceptron-style variant, whose
        predictions do not depend on ``eta`` because ``W_1 = 0``).
    average : bool, default False
        Predict with the averaged iterate (see the module notes).
    shuffle : bool, default False
        Visit the examples in a new random order at every pass of ``fit``.
    random_state : int, numpy Generator or None, default None
        Seed of the shuffling (``None``: fresh entropy).
    fit_intercept : bool, default False
        Add a bias per score coordinate, ``t = W x + b`` (vector inputs only).
    record_losses : bool, default True
        Keep the per-round losses for ``loss_history_``.

    Attributes
    ----------
    coef_ : ndarray
        The parameters used for prediction (the average when ``average=True``).
    intercept_ : ndarray
        The bias ``b`` (only with ``fit_intercept=True``).
    loss_history_ : ndarray of shape (n_rounds,)
        Loss suffered in every online round, in order (with ``record_losses=True``).
    n_rounds_ : int
        Number of online rounds so far.
    cumulative_loss_ : float
        Sum of the losses of those rounds.
    n_mistakes_ : int
        Number of rounds with a non-zero loss.
    n_updates_ : int
        Number of rounds with an update (for Algorithm 1, the rounds with non-zero loss).
    n_features_in_ : int
        Number of input features seen by the first call to ``partial_fit``.
    """

    #: Whether updates happen exactly on the rounds with a non-zero loss (Algorithm 1).
    mistake_driven: bool = True

    #: Names of the arrays that hold the learned state (for :mod:`predtron.persistence`).
    _state_attributes: tuple[str, ...] = ()

    def __init__(self, problem: Problem, eta: float = 1.0, update: str = "oracle", *, average: bool = False,
                 shuffle: bool = False, random_state=None, fit_intercept: bool = False,
                 record_losses: bool = True):
        self.problem = problem
        self.eta = eta
        self.update = update
        self.average = average
        self.shuffle = shuffle
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.record_losses = record_losses

    # --------------------------------------------------------------- subclasses
    @abstractmethod
    def _init_state(self, inputs) -> None:
        """Create the learned state for these inputs (``W_1 = 0``)."""

    @abstractmethod
    def _iterate_scores(self, inputs, rows):
        """Scores of the instances ``rows`` under the current iterate (what Algorithm 1 predicts with)."""

    def _compiled_pass(self, inputs, labels, order, progress, ready_only: bool = False,
                       weights: np.ndarray | None = None) -> bool:
        """Run the pass with :mod:`predtron.engine` when it covers this learner, problem and
        input (with ``ready_only``, only if its kernel is ready without compiling; with
        ``weights``, the weighted pass); return whether it did."""
        return False

    def _iterate_one(self, inputs, i: int) -> np.ndarray:
        """Scores of instance ``i`` alone under the current iterate (the per-example computation)."""
        return self._iterate_scores(inputs, np.array([i]))[0]

    @abstractmethod
    def _apply(self, g: np.ndarray, inputs, i: int, step: float, tau: int) -> None:
        """Move the iterate by ``-step * A_{x_i}^*(g)`` at round ``tau``, keeping the average up to date."""

    @abstractmethod
    def _predictor_scores(self, inputs, rows):
        """Scores under the predictor (the average when ``average=True``)."""

    def _finish_pass(self) -> None:
        """Refresh what the predictor reads after a pass (e.g. the averaged parameters)."""

    #: Whether the step on a mistake round is ``eta`` times the loss (Predtron.LD).
    _loss_driven_steps: bool = False

    def _step_scale(self, loss: float) -> float:
        """Multiplier of ``eta`` on a mistake round (1 for Algorithm 1, the loss for Predtron.LD)."""
        return loss if self._loss_driven_steps else 1.0

    # ---------------------------------------------------------------- checking
    def _validate_params(self) -> None:
        check_problem(self.problem)
        check_positive(self.eta, "eta", maximum=MAX_ETA)
        check_choice(self.update, "update", UPDATES)
        for name in ("average", "shuffle", "fit_intercept", "record_losses"):
            check_bool(getattr(self, name), name)
        if self.random_state is not None:
            check_random_state(self.random_state)
        if self.fit_intercept and not self.problem.scoring.supports_intercept:
            raise ValueError(
                f"fit_intercept=True is not supported by {type(self.problem).__name__}: "
                + ("ranking scores t = X w are shift-invariant (a common bias changes no ranking)"
                   if type(self.problem.scoring).__name__ == "DocumentScoring"
                   else f"its {type(self.problem.scoring).__name__} has no bias column")
            )

    def _prepare(self, X, Y=_NO_LABELS, qid=None, group=None, *, fitting: bool = False):
        """Validate ``X`` (and ``Y`` unless it is omitted) once: :class:`~predtron.scoring.Inputs`
        and the labels (``Y=None`` is refused like any other malformed labels)."""
        intercept = bool(self.fit_intercept) if fitting else getattr(self, "_intercept", False)
        inputs = self.problem.scoring.prepare(X, qid=qid, group=group, intercept=intercept)
        if not fitting or hasattr(self, "n_features_in_"):
            expected = self.n_features_in_
            # Without instances the width is known only from a matrix (an empty list has none).
            if (inputs.n or inputs.n_features) and inputs.n_features != expected:
                raise ValueError(
                    f"X has {inputs.n_features} features, but this {type(self).__name__} was fitted with "
                    f"{expected} features"
                )
        labels = None if Y is _NO_LABELS else self.problem.check_labels(Y, inputs)
        return inputs, labels

    def _start(self, inputs) -> None:
        if inputs.n_features > MAX_DENSE_ENTRIES:  # the bound a saved state's n_features_in_ is read with
            raise ValueError(f"X has {inputs.n_features:,} features, more than the {MAX_DENSE_ENTRIES:,} a model can "
                             "hold (a dense weight per feature, and the most a saved model may declare); hash them "
                             "into fewer columns (sklearn.feature_extraction.FeatureHasher) or drop the empty ones")
        self.n_features_in_ = inputs.n_features
        self._intercept = inputs.intercept
        self._trace = LossTrace(self.record_losses)
        self.n_updates_ = 0
        self._block = MIN_BLOCK
        self._init_state(inputs)

    # -------------------------------------------------------------- online loop
    def partial_fit(self, X, Y, *, qid=None, group=None, order=None, sample_weight=None) -> OnlineLearner:
        """One online pass over ``(X, Y)`` in order (Algorithm 1, lines 2-13).

        Parameters
        ----------
        X : array-like or sparse matrix
            Inputs in the form the problem's ``scoring`` takes: a 2-D array (or scipy
            sparse matrix) of shape ``(n_samples, n_features)``, or for ranking a list of
            per-query document matrices.
        Y : array-like
            One label per input, in the problem's label convention.
        qid, group : array-like, optional
            Ranking only: ``X`` is one flat ``(N, p0)`` matrix of documents (dense or
            sparse) and ``Y`` their ``(N,)`` relevance grades, with a query id per row
            (``qid``, as XGBoost) or the number of rows of each query (``group``, as
            LightGBM).
        order : array-like of int, optional
            Visit the examples (the queries, for ranking) in this order, a permutation of
            ``0, ..., n - 1``: one pass of ``fit`` with ``shuffle=True`` is this call with
            ``order`` the pass's permutation (:mod:`predtron.dask` runs its shard passes so).
            ``None``: the order of the stream.
        sample_weight : array-like of shape (n,), optional
            One non-negative weight per example (per query, for ranking): the example's loss
            and its update are scaled by it, and a zero weight leaves the model unchanged
            (see the module notes).  ``None``: every weight is 1 (Algorithm 1).
        """
        self._validate_params()
        inputs, labels = self._prepare(X, Y, qid, group, fitting=True)
        if inputs.n == 0:
            raise ValueError("X is empty; at least one example is needed to learn")
        if order is not None:
            order = check_order(order, inputs.n)
        weights = self._check_weights(sample_weight, inputs.n, fitting=False)
        if not hasattr(self, "n_features_in_"):
            self._start(inputs)
        self._any_pass(inputs, labels, order, weights)
        self._finish_pass()
        return self

    def partial_fit_inputs(self, inputs: Inputs, labels, *, order=None, progress=None,
                           sample_weight=None) -> OnlineLearner:
        """:meth:`partial_fit` on data its caller has validated once (as :meth:`fit_inputs`): one pass
        over ``inputs`` in ``order`` (a permutation its caller made, e.g. by
        :func:`predtron._estimator.epoch_order`; ``None``: in order), continuing from the current
        state.  The estimators' ``fit`` is a reset and passes of this method, and their
        ``partial_fit`` one pass of it.  ``progress``: a ``tqdm`` bar advanced by the examples;
        ``sample_weight``: one weight per instance, as in :meth:`partial_fit`."""
        if inputs.n == 0:
            raise ValueError("X is empty; at least one example is needed to learn")
        weights = self._check_weights(sample_weight, inputs.n, fitting=False)
        if not hasattr(self, "n_features_in_"):
            self._validate_params()
            self._start(inputs)
        self._any_pass(inputs, labels, order, weights, progress)
        self._finish_pass()
        return self

    def fit(self, X, Y, epochs: int = 1, verbose: bool = False, *, qid=None, group=None,
            callback=None, sample_weight=None) -> OnlineLearner:
        """Start from ``W_1 = 0`` and make ``epochs`` online passes over the data.

        Parameters
        ----------
        epochs : int
            Number of passes; the loss history covers all of them.  With ``shuffle=True``
            every pass visits the examples in a new random order.
        verbose : bool
            Show a progress bar over the examples of all passes (on stderr).
        qid, group : array-like, optional
            Flat ranking input, as in :meth:`partial_fit`.
        callback : callable, optional
            Called as ``callback(learner, epoch)`` after every pass (``epoch`` counts from 1),
            with the predictor up to date (the averaged parameters when ``average=True``);
            returning ``True`` stops fitting there (early stopping).  ``n_epochs_`` is the
            number of passes made.
        sample_weight : array-like of shape (n,), optional
            One non-negative weight per example, at least one positive (see :meth:`partial_fit`).
        """
        self._validate_params()
        epochs, verbose, callback = check_epoch_args(epochs, verbose, callback)
        self.reset()
        inputs, labels = self._prepare(X, Y, qid, group, fitting=True)
        weights = self._check_weights(sample_weight, inputs.n, fitting=True)
        return self._fit_prepared(inputs, labels, epochs, verbose, callback, weights)

    def fit_inputs(self, inputs: Inputs, labels, epochs: int = 1, verbose: bool = False, *,
                   callback=None, sample_weight=None) -> OnlineLearner:
        """:meth:`fit` on data its caller has validated once: nothing of the data is checked again.

        For callers at a public boundary that have already checked the data (the estimators
        of :mod:`predtron.sklearn`): ``inputs`` is an :class:`~predtron.scoring.Inputs` of this
        problem's ``scoring`` (what :meth:`~predtron.scoring.LinearScoring.prepare` returns, or
        one built from a checked matrix, e.g. ``DocumentInputs(X, offsets)`` with a canonical
        float64 ``X``), with ``intercept`` equal to ``fit_intercept``, and ``labels`` are what
        :meth:`~predtron.problems.Problem.check_labels` returns for them.  The parameters and
        ``epochs``, ``verbose``, ``callback`` and ``sample_weight`` (one per instance of
        ``inputs``) are checked as in :meth:`fit`.
        """
        self._validate_params()
        epochs, verbose, callback = check_epoch_args(epochs, verbose, callback)
        if not isinstance(inputs, Inputs):
            raise TypeError(f"inputs must be a predtron.scoring.Inputs (use fit for raw data); got "
                            f"{type(inputs).__name__}")
        if inputs.intercept != bool(self.fit_intercept):
            raise ValueError(f"inputs.intercept={inputs.intercept} must match fit_intercept={self.fit_intercept}")
        weights = self._check_weights(sample_weight, inputs.n, fitting=True)
        self.reset()
        return self._fit_prepared(inputs, labels, epochs, verbose, callback, weights)

    def _check_weights(self, sample_weight, n: int, *, fitting: bool) -> np.ndarray | None:
        """:func:`check_sample_weight`, and a refusal by a learner whose pass is not the block scan."""
        if sample_weight is not None and type(self)._pass is not OnlineLearner._pass:
            raise TypeError(f"{type(self).__name__} does not take sample_weight (its pass is not Algorithm 1's "
                            "block scan)")
        return check_sample_weight(sample_weight, n, fitting=fitting,
                                   what="query" if type(self.problem.scoring).__name__ == "DocumentScoring"
                                   else "example")

    def _any_pass(self, inputs, labels, order, weights, progress=None) -> None:
        """The unweighted pass, or the weighted one when ``weights`` is given."""
        if weights is None:
            self._pass(inputs, labels, order, progress)
        else:
            self._weighted_pass(inputs, labels, order, weights, progress)

    def _fit_prepared(self, inputs, labels, epochs: int, verbose: bool, callback, weights=None) -> OnlineLearner:
        """The passes of :meth:`fit` on validated data, through the shared epoch loop."""
        if inputs.n == 0:
            raise ValueError("X is empty; at least one example is needed to learn")
        self._start(inputs)
        orders = EpochOrders(self.random_state) if self.shuffle else None  # the one sample order
        unit = "query" if hasattr(inputs, "offsets") else "ex"  # ranking inputs count queries
        with epoch_progress(verbose, epochs, inputs.n, unit=unit, desc=type(self).__name__) as progress:

            def one_pass(epoch: int) -> None:
                order = orders.order(epoch, inputs.n) if orders is not None else None
                self._any_pass(inputs, labels, order, weights, progress)
                if verbose:
                    progress.set_postfix(epoch=epoch, mistakes=self.n_mistakes_, refresh=False)
                if callback is not None:
                    self._finish_pass()  # the callback sees the predictor (the average, with average=True)

            self._run_epochs(epochs, one_pass, callback=callback)
        self._finish_pass()
        return self

    def _pass(self, inputs, labels, order, progress=None) -> None:
        """One pass over ``inputs`` in ``order`` (``None``: stream order): the compiled pass when
        the problem has one, else the exact block scan (:meth:`_scan`)."""
        if self._compiled_pass(inputs, labels, order, progress):
            return
        self._scan(inputs, labels, order, None, progress, handover=True)

    def _weighted_pass(self, inputs, labels, order, weights: np.ndarray, progress=None) -> None:
        """:meth:`_pass` with a weight per example (see the module notes), where an example of
        weight 0 is no round and the loss and the step of a round of weight ``w`` are ``w`` times
        the unweighted ones: the compiled pass when the problem has one, else the exact block scan."""
        if self._compiled_pass(inputs, labels, order, progress, weights=weights):
            return
        self._scan(inputs, labels, order, weights, progress, handover=True)

    def _scan(self, inputs, labels, order, weights: np.ndarray | None, progress=None,
              handover: bool = False) -> None:
        """The exact block scan: score a block of examples at once, find its first mistake, run
        that one round on the instance's own scores, and continue after it (``weights``: one per
        example, or ``None`` for Algorithm 1's unweighted rounds).

        With ``handover`` (a pass whose kernel was not ready when it began: the background
        worker was compiling it), every :data:`HANDOVER_SECONDS` the scan asks whether the
        kernel is ready now, and if so hands it the rest of the pass (the rounds still to come,
        after the ``trace.n_rounds`` played, with their weights): the same rounds in the same
        order, so the same result, without waiting for the next pass."""
        problem, trace = self.problem, self._trace
        oracle = self.update == "oracle"
        n, i, block, floor = inputs.n, 0, self._block, self._block_floor(inputs)
        next_check = time.monotonic() + HANDOVER_SECONDS
        while i < n:
            if handover and time.monotonic() >= next_check:
                rest = np.arange(i, n, dtype=np.int64) if order is None else order[i:]
                if self._compiled_pass(inputs, labels, rest, progress, ready_only=True, weights=weights):
                    break
                next_check = time.monotonic() + HANDOVER_SECONDS
            stop = min(n, i + block)
            rows = slice(i, stop) if order is None else order[i:stop]
            live = None if weights is None else weights[rows] > 0
            T = self._iterate_scores(inputs, rows)
            _check_finite_scores(T, self)
            losses = problem.batch_loss(T, labels[rows])
            hits = np.flatnonzero(losses) if live is None else np.flatnonzero((np.asarray(losses) != 0) & live)
            if hits.size == 0:
                trace.skip(stop - i if live is None else int(np.count_nonzero(live)))
                if progress is not None:
                    progress.update(stop - i)
                i, block = stop, min(2 * block, MAX_BLOCK)
                continue
            j = int(hits[0])
            trace.skip(j if live is None else int(np.count_nonzero(live[:j])))
            r = i + j if order is None else int(order[i + j])
            # The round itself runs on the instance's own scores, exactly as in the
            # per-example loop; the block only located it.
            loss, g = problem._round(self._iterate_one(inputs, r), labels[r], oracle)
            if g is not None:
                if weights is None:
                    trace.add(loss)
                    self._apply(g, inputs, r, self.eta * self._step_scale(loss), trace.n_rounds)
                else:
                    weight = float(weights[r])
                    trace.add(weight * loss)
                    self._apply(g, inputs, r, self.eta * weight * self._step_scale(loss), trace.n_rounds)
                self.n_updates_ += 1
            else:  # the block's rounding saw a mistake that the instance's own scores do not
                trace.skip(1)
            if progress is not None:
                progress.update(j + 1)
            i += j + 1
            block = max(floor, min(MAX_BLOCK, 2 * (j + 1)))
        self._block = block

    def _block_floor(self, inputs) -> int:
        """The smallest block of :meth:`_scan` after an update: about ``2 * MIN_BLOCK`` scores, in
        instances of this problem (documents per query on average for ranking inputs), between 1
        and :data:`MIN_BLOCK`; any block gives the same rounds, only its cost changes."""
        offsets = getattr(inputs, "offsets", None)
        if offsets is not None:
            width = float(offsets[-1] - offsets[0]) / max(inputs.n, 1)
        else:
            width = float(self._score_width() or 1)
        return int(min(MIN_BLOCK, max(1, round(2 * MIN_BLOCK / max(width, 1.0)))))

    # ------------------------------------------------------------ persistence
    def get_state(self) -> tuple[dict, dict]:
        """``(scalars, arrays)`` of the fitted learner: the public form of the saved state, for the
        drivers that move a learner between processes (:mod:`predtron.mixing`)."""
        return self._get_state()

    def set_state(self, scalars: dict, arrays: dict) -> OnlineLearner:
        """Restore :meth:`get_state` (checked against the constructor parameters); returns ``self``."""
        self._validate_params()
        self._set_state(scalars, arrays)
        return self

    def _get_state(self) -> tuple[dict, dict]:
        """``(scalars, arrays)`` that, with the constructor parameters, restore this fitted
        learner exactly (predictions, scores and continued learning); see :mod:`predtron.persistence`."""
        self._check_fitted()
        scalars, arrays = learner_state(self)
        scalars.update({"intercept": bool(self._intercept), "block": int(getattr(self, "_block", MIN_BLOCK))})
        if hasattr(self, "n_epochs_"):  # set by fit (not by partial_fit alone)
            scalars["n_epochs_"] = int(self.n_epochs_)
        return scalars, arrays

    def _set_state(self, scalars: dict, arrays: dict) -> None:
        """Inverse of :meth:`_get_state`: every value is checked (type, range, shape, finiteness)
        against the constructor parameters, and a ``ValueError`` names a malformed one."""
        state = State.of(scalars, arrays)
        restore_learner(self, state)
        self._intercept = state.bool("intercept")
        if self._intercept and not self.fit_intercept:
            raise ValueError("state entry 'intercept' is true but the learner has fit_intercept=False")
        self._block = state.int("block", minimum=1, maximum=MAX_BLOCK)
        if state.has("n_epochs_"):
            self.n_epochs_ = state.int("n_epochs_", maximum=self._trace.n_rounds)

    def _param_shape(self) -> tuple[int, ...]:
        """Shape of the parameters of a fitted learner (for checking a saved state)."""
        return self.problem.scoring.param_shape(self.n_features_in_, self._intercept)

    # ------------------------------------------------------------- prediction
    def _blocks(self, inputs):
        for start in range(0, inputs.n, MAX_BLOCK):
            yield slice(start, min(inputs.n, start + MAX_BLOCK))

    def decision_function(self, X, *, qid=None, group=None) -> np.ndarray | list:
        """Scores ``t`` for each input (an ``(n, d)`` array, or a list of arrays for ranking)."""
        self._check_fitted()
        inputs, _ = self._prepare(X, _NO_LABELS, qid, group)
        blocks = [self._predictor_scores(inputs, rows) for rows in self._blocks(inputs)]
        return _concatenate_scores(blocks, self._score_width())

    def _score_width(self) -> int | None:
        try:
            return self.problem.score_shape()[0]
        except (ValueError, TypeError):
            return None

    def predict(self, X, *, qid=None, group=None):
        """Predictions ``pred(t)`` for each input (``qid``/``group``: flat ranking input)."""
        self._check_fitted()
        inputs, _ = self._prepare(X, _NO_LABELS, qid, group)
        parts = [self.problem.batch_pred(self._predictor_scores(inputs, rows)) for rows in self._blocks(inputs)]
        return _concatenate_predictions(parts, self.problem)

    def mean_loss(self, X, Y, *, qid=None, group=None) -> float:
        """Mean loss ``L(pred(t), y)`` on ``(X, Y)`` (lower is better; ``score`` is its negative)."""
        self._check_fitted()
        inputs, labels = self._prepare(X, Y, qid, group)
        if inputs.n == 0:
            raise ValueError("X is empty; a mean loss needs at least one example")
        total = 0.0
        for rows in self._blocks(inputs):
            total += float(np.sum(self.problem.batch_loss(self._predictor_scores(inputs, rows), labels[rows])))
        return total / inputs.n

    def _coef_views(self, full: np.ndarray) -> None:
        """Expose predictor parameters as ``coef_`` (and ``intercept_`` with an intercept)."""
        if self._intercept:
            self.coef_ = full[..., :-1]
            self.intercept_ = full[..., -1]
        else:
            self.coef_ = full


def _check_finite_scores(T, learner) -> None:
    values = T.values if hasattr(T, "values") else T
    if isinstance(values, list):
        values = np.concatenate([np.ravel(v) for v in values]) if values else np.zeros(0)
    # One reduction: a NaN or an infinity anywhere makes the sum non-finite.
    if not np.isfinite(np.sum(values)):
        raise ValueError(
            f"the scores of {type(learner).__name__} overflowed to infinity or NaN after "
            f"{learner.n_updates_} updates: eta * ||x||^2 is too large for float64; lower eta or rescale X"
        )


def _concatenate_scores(blocks: list, width: int | None):
    if not blocks:
        return np.zeros((0, width)) if width is not None else []
    if hasattr(blocks[0], "offsets"):  # ragged ranking scores: one array per query
        return [segment.copy() for block in blocks for segment in block]
    if isinstance(blocks[0], list):
        scores = [t for block in blocks for t in block]
        return np.zeros((0, width)) if not scores and width is not None else scores
    return np.concatenate(blocks)


def _concatenate_predictions(parts: list, problem: Problem):
    if not parts or all(len(part) == 0 for part in parts):
        return problem.stack([])
    if isinstance(parts[0], list):
        return [p for part in parts for p in part]
    return np.concatenate(parts)


class PrimalLearner(OnlineLearner):
    """An online learner whose parameters are one primal matrix ``W``.

    ``W_1 = 0`` and an update moves ``W`` by ``-step * A_x^*(g)``; subclasses choose when
    to update and by how much.  With ``average=True`` the average of the iterates is kept
    lazily: besides ``W`` the learner keeps ``U = sum_tau tau * Delta_tau`` (each update
    ``Delta_tau`` weighted by its round), and after ``T`` rounds the average of
    ``W_2, ..., W_{T+1}`` is ``W + (W - U) / T``, so an update costs two sparse adjoint
    applications and nothing is done on rounds without an update.
    """

    _state_attributes = ("_w", "_u")

    def _init_state(self, inputs) -> None:
        shape = self.problem.scoring.param_shape(inputs.n_features, inputs.intercept)
        self._w = inputs.zeros(shape)
        self._u = inputs.zeros(shape) if self.average else None
        self._averaged = bool(self.average)
        self._params = self._w
        self._coef_views(self._w)

    def _iterate_scores(self, inputs, rows):
        return inputs.scores(self._w, rows)

    def _iterate_one(self, inputs, i):
        return inputs.one_scores(self._w, i)

    def _predictor_scores(self, inputs, rows):
        return inputs.scores(self._params, rows)

    def _apply(self, g, inputs, i, step, tau) -> None:
        inputs.add_adjoint(self._w, g, i, -step)
        if self._u is not None:
            inputs.add_adjoint(self._u, g, i, -step * tau)

    def _compiled_pass(self, inputs, labels, order, progress, ready_only: bool = False,
                       weights: np.ndarray | None = None) -> bool:
        if not USE_COMPILED:
            return False
        spec = self._engine_spec(labels)
        if spec is None:
            return False
        order = np.arange(inputs.n, dtype=np.int64) if order is None else np.asarray(order, dtype=np.int64)
        visited = order.shape[0]
        if weights is not None:  # an instance of weight 0 is no round: left out
            weights = np.ascontiguousarray(weights, dtype=np.float64)
            order = order[weights[order] > 0]
        U = self._u if self._u is not None else np.zeros((0,) * self._w.ndim)
        trace = self._trace
        result = engine.run_pass(spec, inputs, order, self._w, U, float(self.eta), self.update == "oracle",
                                 self._loss_driven_steps, trace.n_rounds, ready_only, weights)
        if result is None:
            return False
        done, mistakes, rounds, losses, status = result
        trace.extend(done, rounds, losses)
        self.n_updates_ += int(mistakes)
        if progress is not None:  # the instances of the pass (of weight 0 too), once it is whole
            progress.update(visited if done == order.shape[0] else done)
        if status:
            raise ValueError(
                f"the scores of {type(self).__name__} overflowed to infinity or NaN after {self.n_updates_} "
                "updates: eta * ||x||^2 is too large for float64; lower eta or rescale X"
            )
        return True

    def _engine_spec(self, labels) -> engine.EngineSpec | None:
        """The problem's :class:`~predtron.engine.EngineSpec` for these labels, built on the
        first pass over them and reused by the next passes of the same fit."""
        cached = getattr(self, "_spec_cache", None)
        if cached is None or cached[0] is not labels:
            cached = (labels, self.problem._compiled_spec(labels))
            self._spec_cache = cached
        return cached[1]

    def _get_state(self) -> tuple[dict, dict]:
        scalars, arrays = super()._get_state()
        arrays["w"] = self._w
        if self._u is not None:
            arrays["u"] = self._u
        return scalars, arrays

    def _set_state(self, scalars: dict, arrays: dict) -> None:
        state = State.of(scalars, arrays)
        super()._set_state(state, arrays)
        shape = self._param_shape()
        self._w = state.array("w", shape)
        self._u = state.array("u", shape) if self.average else None
        self._averaged = bool(self.average)
        self._finish_pass()

    def _finish_pass(self) -> None:
        T = self._trace.n_rounds
        if self._u is not None and T > 0:
            # w + (w - u) / T with one temporary (the same operations: the sum is commutative)
            params = np.subtract(self._w, self._u)
            params /= T
            params += self._w
            self._params = params
        else:
            self._params = self._w
        self._coef_views(self._params)


# In a fresh environment (no pass kernel in numba's disk cache), the background worker starts
# compiling the pass kernels now, while the process goes on importing and loading its data
# (:func:`predtron.engine.run.prefetch_passes`; a stat per kernel otherwise).
engine.run.prefetch_passes()
