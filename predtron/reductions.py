"""Multiclass prediction by reduction to binary classification (UML Section 17.1).

* One-vs-all trains, for every class ``i``, a binary classifier ``h_i`` on the whole
  sample relabelled ``+1`` for class ``i`` and ``-1`` otherwise, and predicts
  ``argmax_i h_i(x)``.
* All-pairs trains, for every pair ``i < j``, a classifier ``h_ij`` on the examples of
  classes ``i`` and ``j`` only (``+1`` for ``i``, ``-1`` for ``j``), and predicts
  ``argmax_i sum_{j != i} sign(j - i) h_ij(x)`` where ``h_ij`` for ``i > j`` means
  ``h_ji``: every classifier votes for one of its two classes.

The binary learner is any object with ``fit(X, y)`` and ``decision_function(X)`` (a
real score, positive for ``+1``) -- ours (``Predtron(Binary())``) or, say, a
scikit-learn classifier -- produced by a factory so that every sub-problem gets a
fresh one.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Any

import numpy as np

from predtron._validation import check_choice, check_class_labels, check_matrix, excerpt
from predtron.persistence import dump, restore, saveable
from predtron.problems.base import first_argmax_trusted

VOTES = ("sign", "score")

_NO_LABELS = object()


def _binary_scores(learner: Any, X: np.ndarray) -> np.ndarray:
    """The real-valued output of a fitted binary learner, as a 1-D array."""
    try:
        scores = np.asarray(learner.decision_function(X), dtype=float)
    except (TypeError, ValueError) as exc:
        if "X" in str(exc):
            raise
        raise type(exc)(f"the binary learner made by factory failed on X: {exc}") from exc
    if scores.size != X.shape[0] or not np.all(np.isfinite(scores)):
        raise ValueError(
            f"the binary learner made by factory must return one finite score per example from "
            f"decision_function; got {excerpt(scores)} for {X.shape[0]} examples"
        )
    return scores.reshape(X.shape[0])


class _Reduction:
    """Shared validation of the two reductions."""

    #: Parameters that are code and are not saved by :func:`predtron.save` (a loaded reduction
    #: predicts and scores; it needs a factory again to be refitted).
    _unsaved_params = ("factory",)

    def __init__(self, factory: Callable[[], Any], fit_params: dict | None = None):
        self.factory = factory
        self.fit_params = fit_params

    def get_params(self, deep: bool = True) -> dict:
        """The constructor parameters (as scikit-learn's ``get_params``)."""
        params = {"factory": self.factory, "fit_params": self.fit_params}
        if hasattr(self, "vote"):
            params["vote"] = self.vote
        return params

    # -------------------------------------------------------------- persistence
    def _learners(self) -> list:
        return self.estimators_ if isinstance(self.estimators_, list) else list(self.estimators_.values())

    def _get_state(self) -> tuple[dict, dict]:
        """The classes and, for every fitted binary learner, its own saved form (it must be a
        predtron learner: the factory and foreign learners are code and are not saved)."""
        self._check_fitted()
        components, arrays = [], {}
        for i, learner in enumerate(self._learners()):
            header, sub_arrays = dump(learner, f"estimators_[{i}]")
            components.append(header)
            arrays.update({f"estimators.{i}.{k}": v for k, v in sub_arrays.items()})
        classes = self.classes_.tolist()
        scalars = {"classes": classes, "n_features_in_": int(self.n_features_in_), "estimators": components}
        if isinstance(self.estimators_, dict):
            scalars["pairs"] = [list(pair) for pair in self.estimators_]
        return scalars, arrays

    def _set_state(self, scalars, arrays: dict) -> None:
        """Inverse of :meth:`_get_state`: classes, pairs and every sub-learner checked."""
        from predtron._state import State

        state = State.of(scalars, arrays)
        self.n_features_in_ = state.int("n_features_in_", minimum=1)
        classes = check_class_labels(state.value("classes"), "state entry 'classes'")
        if classes.size < 2 or np.any(classes[1:] <= classes[:-1]):
            raise ValueError("state entry 'classes' must hold at least 2 sorted distinct classes")
        components = state.value("estimators")
        if not isinstance(components, list):
            raise ValueError("state entry 'estimators' must be a list of saved binary learners")
        k = classes.size
        pairs = list(combinations(range(k), 2)) if hasattr(self, "vote") else None
        expected = len(pairs) if pairs is not None else k
        if len(components) != expected:
            raise ValueError(f"state entry 'estimators' must hold {expected} binary learners for {k} classes; got "
                             f"{len(components)}")
        if pairs is not None and state.value("pairs") != [list(p) for p in pairs]:
            raise ValueError("state entry 'pairs' must list the class pairs (i, j), i < j, in order")
        learners = []
        for i, header in enumerate(components):
            prefix = f"estimators.{i}."
            sub = {key[len(prefix):]: value for key, value in arrays.items() if key.startswith(prefix)}
            learner = restore(header, sub, f"estimators_[{i}]", depth=1)
            if getattr(learner, "n_features_in_", self.n_features_in_) != self.n_features_in_:
                raise ValueError(f"estimators_[{i}] was fitted with {learner.n_features_in_} features, not "
                                 f"{self.n_features_in_}")
            learners.append(learner)
        self.classes_ = classes
        self.estimators_ = dict(zip(pairs, learners, strict=True)) if pairs is not None else learners

    def _check_factory(self) -> None:
        if not callable(self.factory):
            raise ValueError(
                "factory must be a callable returning a fresh binary learner, e.g. "
                f"lambda: Predtron(Binary()); got {type(self.factory).__name__}"
            )

    def _check(self, X, Y=_NO_LABELS):
        if self.fit_params is not None and not (isinstance(self.fit_params, dict) and
                                               all(isinstance(k, str) for k in self.fit_params)):
            raise ValueError(f"fit_params must be None or a dict of keyword arguments of fit; got "
                             f"{excerpt(self.fit_params)}")
        X = check_matrix(X, "X")
        if hasattr(self, "n_features_in_") and X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but this {type(self).__name__} was fitted with "
                             f"{self.n_features_in_} features")
        if Y is _NO_LABELS:
            return X, None
        return X, check_class_labels(Y, "Y", X.shape[0])

    def _train(self, X: np.ndarray, y: np.ndarray):
        try:
            learner = self.factory()
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"factory() failed: {exc}") from exc
        for name in ("fit", "decision_function"):
            if not callable(getattr(learner, name, None)):
                raise ValueError(
                    f"the factory must return a binary learner with fit and decision_function; "
                    f"{type(learner).__name__} has no {name}"
                )
        try:
            learner.fit(X, y, **(self.fit_params or {}))
        except TypeError as exc:
            raise TypeError(f"the binary learner made by factory did not accept fit_params "
                            f"{excerpt(self.fit_params)}: {exc}") from exc
        return learner

    def _check_fitted(self):
        if not hasattr(self, "classes_"):
            raise ValueError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def predict(self, X) -> np.ndarray:
        """The class with the highest score; ties go to the first class in ``classes_``."""
        scores = self.decision_function(X)
        return self.classes_[[first_argmax_trusted(row) for row in scores]]

    def mean_loss(self, X, Y) -> float:
        """Mean 0-1 loss on ``(X, Y)`` (lower is better; ``score`` is its negative)."""
        self._check_fitted()
        X, Y = self._check(X, Y)
        if X.shape[0] == 0:
            raise ValueError("X is empty; a mean loss needs at least one example")
        return float(np.mean(self.predict(X) != Y))

    def score(self, X, Y) -> float:
        """Negative mean 0-1 loss (higher is better)."""
        return -self.mean_loss(X, Y)


@saveable
class OneVsAll(_Reduction):
    """One-vs-all (UML Section 17.1, first algorithm).

    Parameters
    ----------
    factory : callable
        ``factory()`` returns an unfitted binary learner with ``fit(X, y)`` (labels
        ``-1``/``+1``) and ``decision_function(X)``.
    fit_params : dict, optional
        Extra keyword arguments of every ``fit`` call (e.g. ``{"epochs": 5}``).

    Attributes
    ----------
    classes_ : ndarray
        The sorted classes seen by ``fit``.
    estimators_ : list
        ``h_i``, one fitted binary learner per class.
    """

    def fit(self, X, Y) -> OneVsAll:
        self._check_factory()
        for name in ("n_features_in_", "classes_", "estimators_"):  # a new fit starts from scratch
            vars(self).pop(name, None)
        X, Y = self._check(X, Y)
        classes = np.unique(Y)
        if classes.size < 2:
            raise ValueError(f"Y must contain at least 2 classes; got {excerpt(classes)}")
        self.estimators_ = [self._train(X, np.where(Y == c, 1, -1)) for c in classes]
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        return self

    def decision_function(self, X) -> np.ndarray:
        """``(n_samples, n_classes)`` matrix of ``h_i(x)``."""
        self._check_fitted()
        X, _ = self._check(X)
        return np.column_stack([_binary_scores(h, X) for h in self.estimators_])


@saveable
class AllPairs(_Reduction):
    """All-pairs (UML Section 17.1, second algorithm).

    Parameters
    ----------
    factory : callable
        As in :class:`OneVsAll`.
    fit_params : dict, optional
        Extra keyword arguments of every ``fit`` call.
    vote : {"sign", "score"}, default "sign"
        ``"sign"``: the textbook's rule, each ``h_ij`` casts one vote ``sign(h_ij(x))``
        (a score of exactly 0 casts none); ``"score"``: sum the real-valued scores.

    Attributes
    ----------
    classes_ : ndarray
        The sorted classes.
    estimators_ : dict
        ``{(i, j): h_ij}`` for class indices ``i < j``; ``h_ij > 0`` votes for class ``i``.

    Notes
    -----
    Votes tie often; ``predict`` then returns the first tied class in ``classes_`` (the
    smallest).  A pair whose two classes never both appear cannot exist, since every
    class in ``classes_`` comes from the data.
    """

    def __init__(self, factory: Callable[[], Any], fit_params: dict | None = None, vote: str = "sign"):
        super().__init__(factory, fit_params)
        self.vote = vote

    def fit(self, X, Y) -> AllPairs:
        check_choice(self.vote, "vote", VOTES)
        self._check_factory()
        for name in ("n_features_in_", "classes_", "estimators_"):  # a new fit starts from scratch
            vars(self).pop(name, None)
        X, Y = self._check(X, Y)
        classes = np.unique(Y)
        if classes.size < 2:
            raise ValueError(f"Y must contain at least 2 classes; got {excerpt(classes)}")
        estimators = {}
        for i, j in combinations(range(classes.size), 2):
            keep = (Y == classes[i]) | (Y == classes[j])
            estimators[(i, j)] = self._train(X[keep], np.where(Y[keep] == classes[i], 1, -1))
        self.estimators_ = estimators
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        return self

    def decision_function(self, X) -> np.ndarray:
        """``(n_samples, n_classes)`` matrix of ``sum_j sign(j - i) h_ij(x)`` (votes or scores)."""
        self._check_fitted()
        check_choice(self.vote, "vote", VOTES)
        X, _ = self._check(X)
        totals = np.zeros((X.shape[0], self.classes_.size))
        for (i, j), h in self.estimators_.items():
            s = _binary_scores(h, X)
            if self.vote == "sign":
                s = np.sign(s)
            totals[:, i] += s
            totals[:, j] -= s
        return totals
