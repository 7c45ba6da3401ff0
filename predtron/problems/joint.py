"""Cost-sensitive multiclass prediction with a class-sensitive feature map (UML Section 17.2).

The predictor is ``h_w(x) = argmax_y <w, Psi(x, y)>`` and the loss any ``k x k`` matrix
``Delta(y', y)`` (Section 17.2.2).  In the framework this is the multiclass problem
(standard-basis representation, ``pred = argmax``) whose scores come from
:class:`~predtron.problems.psi.JointScoring` instead of ``t = W x``.  Its surrogate
eq. (2) is then the generalized hinge loss of Section 17.2.4,

    phi(t, y) = max_{y'} [ Delta(y', y) + <w, Psi(x, y') - Psi(x, y)> ],

and Algorithm 1 updates ``w <- w - eta (Psi(x, y~) - Psi(x, y))``.
"""

from __future__ import annotations

from predtron._validation import as_finite_array
from predtron.problems.multiclass import Multiclass
from predtron.problems.psi import FeatureMap, JointScoring


class JointMulticlass(Multiclass):
    """Linear multiclass prediction ``argmax_y <w, Psi(x, y)>`` with a cost matrix ``Delta``.

    Parameters
    ----------
    feature_map : FeatureMap
        ``Psi``; its ``n_classes`` fixes ``k``.
    loss : array-like of shape (k, k), optional
        ``loss[y', y] = Delta(y', y)``: non-negative with a zero in every column (checked
        by :func:`predtron.problems.general.check_loss_matrix`).  Default: 0-1.

    Notes
    -----
    Everything but the scoring is inherited from
    :class:`~predtron.problems.multiclass.Multiclass`: ``pred`` and ``oracle`` are
    ``O(k)`` given the scores ``t_y = <w, Psi(x, y)>``, and ties go to the smallest label.

    Examples
    --------
    >>> import numpy as np

    >>> from predtron import Predtron
    >>> from predtron.problems.joint import JointMulticlass
    >>> from predtron.problems.psi import MultivectorMap
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]); Y = [0, 1, 2]
    >>> Predtron(JointMulticlass(MultivectorMap(3))).fit(X, Y, epochs=3).predict(X).tolist()
    [0, 1, 2]
    """

    def __init__(self, feature_map: FeatureMap, loss=None):
        if not isinstance(feature_map, FeatureMap):
            raise ValueError(
                "feature_map must be a predtron.problems.psi.FeatureMap (e.g. MultivectorMap(k)); "
                f"got {type(feature_map).__name__}"
            )
        super().__init__(feature_map.n_classes, loss)
        self.feature_map = feature_map
        self.scoring = JointScoring(feature_map)

    def _compiled_spec(self, labels) -> None:
        """``None``: the engine's multiclass kernel scores ``t = W x``, not ``<w, Psi(x, y)>``."""
        return None

    def generalized_hinge(self, w, x, y) -> float:
        """``max_{y'} [Delta(y', y) + <w, Psi(x, y') - Psi(x, y)>]`` (Definition, Section 17.2.4)."""
        x = self.feature_map.check_input(x)
        y = self.check_label(y)
        w = as_finite_array(w, "w")
        expected = (self.feature_map.dim(self.feature_map.n_features(x)),)
        if w.shape != expected:
            raise ValueError(f"w must have shape {expected} for x with {self.feature_map.n_features(x)} features; got "
                             f"{w.shape}")
        return self.surrogate(self.scoring.scores(w, x), y)
