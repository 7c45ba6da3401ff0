"""Binary and multiclass classification, with costs or abstention: :class:`~predtron.sklearn.PredtronClassifier`,
scikit-learn's adapter over :class:`~predtron._models.classifier.ClassifierCore` (the rules; see
:mod:`predtron.sklearn._adapter`)."""

from __future__ import annotations

from sklearn.base import ClassifierMixin

from predtron._models.classifier import ClassifierCore
from predtron.persistence import saveable
from predtron.sklearn._adapter import SklearnAdapter, adapter_params

__all__ = ["PredtronClassifier"]


@adapter_params(ClassifierCore)
@saveable
class PredtronClassifier(ClassifierMixin, SklearnAdapter, ClassifierCore):
    """Binary and multiclass classification with the Predtron.

    Two classes use :class:`~predtron.problems.Binary` (the perceptron), more use
    :class:`~predtron.problems.Multiclass` (Crammer and Singer's multiclass perceptron); a
    ``cost_matrix`` makes either cost-sensitive.

    Parameters
    ----------
    {common}
    cost_matrix : array-like of shape (n_classes, n_classes), optional
        ``cost_matrix[i, j]`` is the cost of predicting ``classes_[i]`` for an example of
        class ``classes_[j]`` (non-negative, zero on the diagonal).  Default: 0-1.
    reject_cost : float in (0, 1), optional
        Allow abstaining at this cost (a mistake costs 1).  The paper's REJECT
        representation (:class:`~predtron.problems.BinaryReject`) never abstains when
        Algorithm 1 starts from ``W = 0`` (every update is antisymmetric in the two class
        scores; see the book's binary chapter), so the estimator abstains by Chow's rule on
        its own scores instead: it predicts ``reject_label`` when the gap between the two
        best class scores is below ``threshold_``, the threshold that minimises the mean
        loss with abstention on the training data.
    reject_label : object, default -1
        What ``predict`` returns for an abstention (must not be one of the classes).

    Attributes
    ----------
    classes_ : ndarray
        The class labels, sorted.
    learner_ : Predtron
        The fitted core learner (``learner_.coef_``, ``learner_.intercept_``).
    threshold_ : float
        Score gap below which the classifier abstains (with ``reject_cost``).
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The weights of the class scores in the original features (standardisation undone;
        the averaged iterate with ``average=True``): one row for two classes without a cost
        matrix (positive favours ``classes_[1]``), else one row per class.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        The bias of the class scores in the original features: ``decision_function(X)`` is
        ``X @ coef_.T + intercept_`` (flattened for two classes).
    n_features_in_ : int
        Number of features seen by ``fit``.

    Notes
    -----
    ``score`` is the accuracy, or the negative mean cost with a cost matrix or an
    abstention cost (higher is better in every case).

    Examples
    --------
    >>> import numpy as np
    >>> from predtron.sklearn import PredtronClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 3))
    >>> y = np.where(X[:, 0] - X[:, 1] > 0, "yes", "no")
    >>> clf = PredtronClassifier(random_state=0).fit(X, y)
    >>> clf.classes_.tolist()
    ['no', 'yes']
    >>> clf.predict([[2.0, -1.0, 0.0], [-2.0, 1.0, 0.0]]).tolist()
    ['yes', 'no']
    >>> clf.score(X, y) > 0.95
    True
    >>> clf.coef_.shape, clf.intercept_.shape
    ((1, 3), (1,))
    >>> bool(np.allclose(X @ clf.coef_[0] + clf.intercept_[0], clf.decision_function(X)))
    True
    """


    # The public methods are the core's (named here so that the class documents them and so that
    # they come before scikit-learn's mixins, whose ``score`` is not the estimator's).
    fit = ClassifierCore.fit
    partial_fit = ClassifierCore.partial_fit
    decision_function = ClassifierCore.decision_function
    predict = ClassifierCore.predict
    score = ClassifierCore.score
