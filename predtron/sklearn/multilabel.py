"""Multilabel classification: :class:`~predtron.sklearn.PredtronMultilabelClassifier`."""

from __future__ import annotations

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from predtron._validation import MAX_DENSE_ENTRIES, check_choice, excerpt
from predtron.persistence import saveable
from predtron.problems import Binary, Multiclass, Multilabel
from predtron.problems.multilabel import LOSSES as MULTILABEL_LOSSES
from predtron.sklearn._base import _PredtronEstimator, estimator_params
from predtron.sklearn._checks import _check_input, _check_score_input, _Count, _saved_classes

__all__ = ["PredtronMultilabelClassifier"]


@estimator_params({"loss": "hamming", "k": None, "beta": 1.0, "tol": 1e-4},
                  {"loss": lambda v, n: check_choice(v, n, MULTILABEL_LOSSES), "k": None, "beta": None})
@saveable
class PredtronMultilabelClassifier(ClassifierMixin, _PredtronEstimator):
    """Multilabel classification with the Predtron (:class:`~predtron.problems.Multilabel`).

    Labels are an indicator matrix ``Y`` of shape ``(n_samples, n_labels)``; the learner
    predicts all labels jointly under the chosen loss, with the fast oracles of the
    package (no enumeration of the ``2^m`` label sets).

    Parameters
    ----------
    loss : {"hamming", "subset", "errorset", "f1", "fbeta", "balanced", "precision@k", "recall@k"}, default "hamming"
        The multilabel loss (see :class:`~predtron.problems.Multilabel`).
    k : int, optional
        For ``"precision@k"`` and ``"recall@k"``.
    beta : float, default 1.0
        For ``"fbeta"``.
    {common}

    Attributes
    ----------
    classes_ : ndarray
        The label indices ``0..n_labels-1`` for an indicator target (as scikit-learn's
        multilabel classifiers report them), or the class labels of a multiclass target.
    n_labels_ : int
        Number of labels.
    learner_ : Predtron
        The fitted core learner.
    n_features_in_ : int
        Number of features seen by ``fit``.

    Notes
    -----
    ``score`` is the negative mean loss, with the Hamming loss divided by the number of
    labels (the usual Hamming loss, in ``[0, 1]``).

    **Defaults for many labels.**  Three defaults differ from the other estimators', chosen
    on the Mulan sets (``benchmarks/real_data.py --tasks multilabel``):

    * ``eta="auto"`` with the Hamming loss is Theorem 1's step of each label's binary
      problem, ``m`` times the step of the joint problem (``c_L = 1/m``).  With the joint
      step the oracle moves a label whenever its margin is below ``m`` of the learner's own
      steps: on bibtex (159 labels, 2.4 per row) every row with any wrong label pushes all
      other labels far towards "off", and the estimator predicted almost no label
      (micro-F1 0.01).  The per-label step asks one step of margin whatever ``m`` is.
    * ``standardize=True`` leaves 0/1 features alone and scales sparse input by each
      feature's largest absolute value (see ``standardize``): scaling sparse binary words
      to unit second moment made a rare word a feature of size about 20.
    * ``tol=1e-4``: the normalised Hamming loss is a mean over the labels, so a pass
      improves it by about ``1/m`` of what the other estimators' losses move; with
      ``1e-3`` the estimator stopped after 6 passes on bibtex.

    Test split, means over ``random_state`` 0 and 1 (Hamming loss / micro-F1 / macro-F1):

    =============  ========================  ========================  ==========================
    data           these defaults            before (joint step etc.)  one-vs-rest averaged SGD
    =============  ========================  ========================  ==========================
    bibtex         0.0126 / 0.413 / 0.247    0.0153 / 0.011 / 0.001    0.0129 / 0.415 / 0.265
    tmc2007-500    0.0648 / 0.634 / 0.547    0.0651 / 0.621 / 0.497    0.0649 / 0.633 / 0.538
    emotions       0.2120 / 0.652 / 0.633    0.2178 / 0.629 / 0.601    0.2219 / 0.640 / 0.624
    yeast          0.2040 / 0.630 / 0.363    0.1997 / 0.636 / 0.342    0.2015 / 0.635 / 0.354
    =============  ========================  ========================  ==========================

    (The peer is ``SGDClassifier(average=True)`` per label, on the better of raw and
    standardised features: standardised on emotions, raw elsewhere.  "Before" on bibtex and
    tmc2007-500: seed 0 only.)  On yeast the joint step's larger margin regularises a little
    better; pass ``eta`` explicitly (``eta_ / n_labels_`` of a default fit) to get it back.
    ``update="prediction"`` trades Hamming loss for recall of rare labels (bibtex: 0.0136 /
    0.427 / 0.299), and ``loss="f1"`` maximises the example-based F1 it targets on the
    dense sets (yeast: 0.644 against 0.603) but not on text (bibtex: 0.326 against 0.359).

    **Algorithm 1 as stated**: ``average=False, shuffle=False, fit_intercept=False,
    standardize=False, epochs=1, eta=1.0, tol=None``.
    """

    def _problem(self):
        if not self.multilabel_:
            k = len(self.classes_)
            return Binary() if k == 2 else Multiclass(k)
        extra = {"normalize": True} if self.loss == "hamming" else {}
        if self.loss == "fbeta":
            extra["beta"] = self.beta
        if self.loss in ("precision@k", "recall@k"):
            extra["k"] = self.k
        return Multilabel(self.n_labels_, self.loss, **extra)

    def fit(self, X, y):
        """Fit on ``X`` (dense or sparse) and a 0/1 indicator matrix ``Y``.

        A one-dimensional ``Y`` (or a single column) of class labels is a multiclass target,
        the special case where exactly one label is on: it is learned with
        :class:`~predtron.problems.Multiclass` (:class:`~predtron.problems.Binary` for two
        classes) and ``predict`` returns class labels.
        """
        self._validate_params()
        _check_input(X, y, fitting=True, type_name=type(self).__name__)
        X, Y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, multi_output=True,
                             y_numeric=False)
        Y = np.asarray(Y)
        check_classification_targets(Y)
        if Y.ndim == 2 and Y.shape[1] == 1:
            Y = Y[:, 0]
        self.multilabel_ = Y.ndim == 2
        if self.multilabel_:
            values = np.unique(Y)
            if not np.all(np.isin(values, [0, 1])):
                raise ValueError(f"Y must be a 0/1 indicator matrix (one column per label); got values "
                                 f"{excerpt(values)}")
            self.n_labels_ = Y.shape[1]
            self.classes_ = np.arange(self.n_labels_)
            target = Y.astype(np.int64)
        else:
            self.classes_, indices = np.unique(Y, return_inverse=True)
            if len(self.classes_) < 2:
                raise ValueError(f"y must hold at least 2 classes to learn from; got 1 class "
                                 f"({excerpt(self.classes_)})")
            self.n_labels_ = len(self.classes_)
            target = np.where(indices == 1, 1, -1) if len(self.classes_) == 2 else indices
        problem = self._problem()
        X = self._fit_scaler(X)
        self.eta_ = self._resolve_eta(problem, X, target)
        self._fit_learner(problem, X, target)
        return self

    def _resolve_eta(self, problem, X, labels, offsets=None) -> float:
        """``eta="auto"`` with the Hamming loss: Theorem 1's step of each label's binary problem,
        ``m`` times the step of the joint problem (see the class notes)."""
        eta = super()._resolve_eta(problem, X, labels, offsets)
        auto = isinstance(self.eta, str) and self.eta == "auto"
        return eta * self.n_labels_ if auto and self.multilabel_ and self.loss == "hamming" else eta

    def partial_fit(self, X, y, classes=None):
        """One online pass over the batch ``(X, Y)``, in order, continuing from the current state.

        A 0/1 indicator ``Y`` fixes the number of labels at the first call (later batches must
        have as many columns); a one-dimensional ``y`` of class labels (the multiclass case of
        :meth:`fit`) needs ``classes`` on the first call.
        {partial_scaling}
        """
        first, X, Y = self._partial_data(X, y, multi_output=True, y_numeric=False)
        Y = np.asarray(Y)
        check_classification_targets(Y)
        if Y.ndim == 2 and Y.shape[1] == 1:
            Y = Y[:, 0]
        if first:
            self.multilabel_ = Y.ndim == 2
            if self.multilabel_:
                if classes is not None:
                    raise ValueError("classes applies to a one-dimensional y of class labels; an indicator matrix "
                                     "Y gives the labels by its columns")
                self.n_labels_ = Y.shape[1]
                self.classes_ = np.arange(self.n_labels_)
            else:
                self._partial_classes(classes, first)
                self.n_labels_ = len(self.classes_)
        elif (Y.ndim == 2) != self.multilabel_ or (self.multilabel_ and Y.shape[1] != self.n_labels_):
            expected = f"{self.n_labels_} label columns" if self.multilabel_ else "one class label per row"
            raise ValueError(f"y must have the layout of the first call to partial_fit ({expected}); got shape "
                             f"{Y.shape}")
        if self.multilabel_:
            values = np.unique(Y)
            if not np.all(np.isin(values, [0, 1])):
                raise ValueError(f"Y must be a 0/1 indicator matrix (one column per label); got values "
                                 f"{excerpt(values)}")
            target = Y.astype(np.int64)
        else:
            indices = self._class_indices(Y)
            target = np.where(indices == 1, 1, -1) if len(self.classes_) == 2 else indices
        self._partial_pass(first, X, target)
        return self

    def decision_function(self, X) -> np.ndarray:
        """Label scores, ``(n, n_labels)``; a label is predicted where its score is ``>= 0``
        (class scores for a multiclass target, ``(n,)`` for two classes)."""
        check_is_fitted(self)
        T = self.learner_.decision_function(self._validate_X(X, reset=False))
        return T[:, 0] if not self.multilabel_ and len(self.classes_) == 2 else T

    def predict(self, X) -> np.ndarray:
        """The predicted 0/1 indicator matrix (class labels for a multiclass target)."""
        check_is_fitted(self)
        pred = self.learner_.predict(self._validate_X(X, reset=False))
        if self.multilabel_:
            return pred
        return self.classes_[(pred == 1).astype(np.int64) if len(self.classes_) == 2 else pred]

    def score(self, X, y, sample_weight=None) -> float:
        """Negative mean loss (the Hamming loss divided by the number of labels); accuracy for
        a multiclass target."""
        _check_score_input(X, y)
        check_is_fitted(self)
        if not self.multilabel_:
            return ClassifierMixin.score(self, X, y, sample_weight=sample_weight)
        X = self._validate_X(X, reset=False)
        if sample_weight is None:
            return -self.learner_.mean_loss(X, y)
        losses = self.learner_.problem.batch_loss(self.learner_.decision_function(X),
                                                   self.learner_.problem.check_labels(y, _Count(X.shape[0])))
        return -float(np.average(losses, weights=sample_weight))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        tags.target_tags.multi_output = True
        return tags

    def _extra_state(self) -> dict:
        classes = None if self.multilabel_ else self.classes_.tolist()
        return {"n_labels_": int(self.n_labels_), "multilabel_": bool(self.multilabel_), "classes_": classes}

    def _restore_extra(self, state) -> None:
        self.n_labels_ = state.int("n_labels_", minimum=1, maximum=MAX_DENSE_ENTRIES)
        self.multilabel_ = state.bool("multilabel_")
        if self.multilabel_:
            self.classes_ = np.arange(self.n_labels_)
        else:
            self.classes_ = _saved_classes(state)
            if len(self.classes_) != self.n_labels_:
                raise ValueError("state entry 'classes_' must hold n_labels_ classes")
