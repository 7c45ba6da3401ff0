"""Class-sensitive feature maps ``Psi(x, y)`` (Understanding Machine Learning, Section 17.2).

A linear multiclass predictor scores label ``y`` by ``<w, Psi(x, y)>`` and predicts the
best-scoring label.  The scores ``t_y = <w, Psi(x, y)>`` are linear in ``w``, so a
feature map is a linear score map of the framework (:class:`JointScoring`): its adjoint
sends ``g`` to ``sum_y g_y Psi(x, y)``.  With the standard basis as representation
(:class:`~predtron.problems.joint.JointMulticlass`) the Predtron update becomes
``w <- w - eta (Psi(x, y~) - Psi(x, y))``.

Three maps are provided: the multivector construction (:class:`MultivectorMap`), the
TF-IDF construction (:class:`TfidfMap`) and any user function (:class:`CallableMap`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

import numpy as np
import scipy.sparse as sp

from predtron._params import Parametrized
from predtron._validation import (
    MAX_CLASSES,
    as_finite_array,
    check_choice,
    check_each,
    check_int,
    check_int_label,
    check_int_labels,
    check_matrix,
    check_positive,
)
from predtron.scoring import LinearScoring

DF_COUNTS = ("documents", "occurrences")


class FeatureMap(Parametrized, ABC):
    """A class-sensitive feature map ``Psi : X x [k] -> R^d``.

    Subclasses implement :meth:`n_features`, :meth:`dim` and :meth:`matrix`; the score
    and adjoint methods have generic versions built on :meth:`matrix` that subclasses
    may speed up.

    Attributes
    ----------
    n_classes : int
        ``k``, the number of labels.
    """

    n_classes: int

    def check_input(self, x) -> np.ndarray:
        """Validate one input; the default accepts any finite numeric 1-D array."""
        x = as_finite_array(x, "x")
        if x.ndim != 1 or x.size == 0:
            raise ValueError(f"x must be a non-empty 1-D feature vector; got shape {x.shape}")
        return x

    @abstractmethod
    def n_features(self, x: np.ndarray) -> int:
        """The size that fixes the dimension of ``w`` (checked equal across inputs)."""

    @abstractmethod
    def dim(self, n_features: int) -> int:
        """``d``, the dimension of ``Psi(x, y)`` for inputs with ``n_features`` features."""

    @abstractmethod
    def matrix(self, x: np.ndarray) -> np.ndarray:
        """The ``(k, d)`` matrix whose row ``y`` is ``Psi(x, y)``."""

    def __call__(self, x, y) -> np.ndarray:
        """``Psi(x, y)``."""
        y = check_int_label(y, "y", self.n_classes, "n_classes")
        return self.matrix(self.check_input(x))[y]

    def scores(self, w: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``t_y = <w, Psi(x, y)>`` for every ``y``."""
        return self.matrix(x) @ w

    def adjoint(self, g: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``sum_y g_y Psi(x, y)``."""
        return self.matrix(x).T @ g

    def operator_norm(self, x: np.ndarray) -> float:
        """Largest singular value of the ``(k, d)`` matrix: ``||adjoint(g)|| <= norm ||g||``."""
        return float(np.linalg.norm(self.matrix(x), 2))


class MultivectorMap(FeatureMap):
    """The multivector construction: ``Psi(x, y)`` puts ``x`` in block ``y`` of ``R^{k n}``.

    ``Psi(x, y) = (0, ..., 0, x, 0, ..., 0)`` with ``x`` in coordinates ``y n .. (y + 1) n
    - 1``.  Then ``<w, Psi(x, y)> = <w_y, x>`` for the ``y``-th block ``w_y`` of ``w``,
    so the predictor is the usual ``argmax_y <w_y, x>`` and, with the standard-basis
    representation, the Predtron on this map is the Multiclass Predtron with
    ``W = w.reshape(k, n)``.

    Parameters
    ----------
    n_classes : int
        ``k >= 2``.
    """

    def __init__(self, n_classes: int):
        check_int(n_classes, "n_classes", minimum=2, maximum=MAX_CLASSES)
        self.n_classes = n_classes

    def n_features(self, x: np.ndarray) -> int:
        return int(x.shape[0])

    def dim(self, n_features: int) -> int:
        return self.n_classes * n_features

    def matrix(self, x: np.ndarray) -> np.ndarray:
        return np.kron(np.eye(self.n_classes), x[None, :])

    def scores(self, w, x):
        return w.reshape(self.n_classes, -1) @ x

    def adjoint(self, g, x):
        return np.outer(g, x).ravel()

    def operator_norm(self, x) -> float:
        return float(np.linalg.norm(x))


class TfidfMap(FeatureMap):
    """The TF-IDF construction of Section 17.2.1 for bag-of-words documents.

    An input is a vector of term counts ``TF(j, x)`` over a vocabulary of ``n`` words;
    ``Psi_j(x, y) = TF(j, x) log(m / DF(j, y))`` where ``m`` is the number of training
    documents and ``DF(j, y)`` measures how often word ``j`` occurs in the training
    documents that are *not* on topic ``y``.  A word frequent outside topic ``y`` gets a
    small weight for ``y``; a word rare outside ``y`` gets a large one.  ``d = n``: the
    weight vector is shared by all topics.

    Parameters
    ----------
    n_classes : int
        Number of topics ``k >= 2``.
    count : {"documents", "occurrences"}
        ``"documents"``: ``DF(j, y)`` is the number of off-topic documents containing word
        ``j``; ``"occurrences"``: the total count of word ``j`` in them (the literal
        reading of the notes).
    smoothing : float
        ``s >= 0``; the weight is ``log((m + s) / (DF(j, y) + s))``.  With ``s = 0`` (the
        textbook's formula) a word that never occurs outside topic ``y`` has
        ``DF(j, y) = 0`` and an infinite weight: :meth:`fit` then raises and asks for
        ``smoothing > 0``.

    Attributes
    ----------
    idf_ : ndarray of shape (k, n)
        ``log((m + s) / (DF(j, y) + s))``, set by :meth:`fit`.
    df_ : ndarray of shape (k, n)
        ``DF(j, y)``.
    """

    def __init__(self, n_classes: int, count: str = "documents", smoothing: float = 1.0):
        check_int(n_classes, "n_classes", minimum=2, maximum=MAX_CLASSES)
        check_choice(count, "count", DF_COUNTS)
        self._smoothing = check_positive(smoothing, "smoothing", allow_zero=True)
        self.n_classes = n_classes
        self.count = count
        self.smoothing = smoothing

    def fit(self, X, Y) -> TfidfMap:
        """Count ``DF(j, y)`` on a training corpus of term-count vectors ``X`` and topics ``Y``."""
        X = as_finite_array(X, "X")
        if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"X must be a 2-D (n_documents, n_words) count matrix; got shape {X.shape}")
        if np.any(X < 0):
            raise ValueError("X holds term counts and must be non-negative")
        topics = check_int_labels(Y, "Y", self.n_classes, "n_classes")
        if len(topics) != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} documents but Y has {len(topics)} topics")
        present = (X > 0).astype(float) if self.count == "documents" else X
        total = present.sum(axis=0)
        on_topic = np.array([present[topics == y].sum(axis=0) for y in range(self.n_classes)])
        df = total[None, :] - on_topic
        m = X.shape[0]
        if self._smoothing == 0 and np.any(df == 0):
            y, j = np.argwhere(df == 0)[0]
            raise ValueError(
                f"DF(j={j}, y={y}) = 0: word {j} never occurs outside topic {y}, so log(m / DF) is "
                "infinite; use smoothing > 0"
            )
        self.df_ = df
        self.n_documents_ = m
        self.idf_ = np.log((m + self._smoothing) / (df + self._smoothing))
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "idf_"):
            raise ValueError("this TfidfMap is not fitted yet; call fit(X, Y) on a training corpus first")

    def check_input(self, x) -> np.ndarray:
        self._check_fitted()
        x = super().check_input(x)
        if x.shape[0] != self.idf_.shape[1]:
            raise ValueError(
                f"x must hold counts for the {self.idf_.shape[1]} words the map was fitted on; "
                f"got {x.shape[0]}"
            )
        return x

    def n_features(self, x: np.ndarray) -> int:
        return int(x.shape[0])

    def dim(self, n_features: int) -> int:
        return n_features

    def matrix(self, x: np.ndarray) -> np.ndarray:
        return self.idf_ * x[None, :]


class CallableMap(FeatureMap):
    """Any user function ``psi(x, y) -> R^d`` as a feature map.

    Parameters
    ----------
    psi : callable
        ``psi(x, y)`` for an input ``x`` (a finite numeric array of any shape) and a label
        ``y`` in ``0..k-1``; must return a 1-D array whose length ``d`` is the same for
        every label.
    n_classes : int
        ``k >= 2``.
    """

    def __init__(self, psi: Callable[[np.ndarray, int], Sequence[float]], n_classes: int):
        if not callable(psi):
            raise ValueError(f"psi must be callable as psi(x, y); got {type(psi).__name__}")
        check_int(n_classes, "n_classes", minimum=2, maximum=MAX_CLASSES)
        self.psi = psi
        self.n_classes = n_classes

    def check_input(self, x) -> np.ndarray:
        x = as_finite_array(x, "x")
        if x.size == 0:
            raise ValueError("x must be a non-empty numeric array")
        return x

    def matrix(self, x: np.ndarray) -> np.ndarray:
        rows = [as_finite_array(self._call(x, y), f"psi(x, {y})") for y in range(self.n_classes)]
        sizes = {r.shape for r in rows}
        if len(sizes) != 1 or rows[0].ndim != 1 or rows[0].size == 0:
            raise ValueError(
                f"psi(x, y) must return non-empty 1-D arrays of one length for every y; got shapes "
                f"{sorted(sizes)}"
            )
        return np.stack(rows)

    def _call(self, x: np.ndarray, y: int):
        try:
            return self.psi(x, y)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"psi(x, {y}) failed on x of shape {np.shape(x)}: {exc}") from exc

    def n_features(self, x: np.ndarray) -> int:
        return int(as_finite_array(self._call(x, 0), "psi(x, 0)").size)

    def dim(self, n_features: int) -> int:
        return n_features


class JointScoring(LinearScoring):
    """The linear score map ``w -> (<w, Psi(x, y)>)_y`` of a class-sensitive feature map.

    Its adjoint is ``g -> sum_y g_y Psi(x, y)``, so the Predtron step with the
    standard-basis representation is ``w -= eta (Psi(x, y~) - Psi(x, y))``.  ``R`` is the
    largest singular value of the ``(k, d)`` matrix of the ``Psi(x, y)``.

    Parameters
    ----------
    feature_map : FeatureMap
        The map ``Psi``.
    """

    def __init__(self, feature_map: FeatureMap):
        if not isinstance(feature_map, FeatureMap):
            raise ValueError(
                "feature_map must be a predtron.problems.psi.FeatureMap (e.g. MultivectorMap(k)); "
                f"got {type(feature_map).__name__}"
            )
        self.feature_map = feature_map

    def split(self, X) -> list[np.ndarray]:
        if sp.issparse(X):
            raise ValueError(f"X must be dense for a feature map Psi(x, y); got a scipy sparse {X.format} matrix "
                             "(convert it with .toarray())")
        if hasattr(X, "to_numpy") and not isinstance(X, np.ndarray):  # pandas: rows, not column labels
            X = X.to_numpy()
        if isinstance(X, np.ndarray):
            # A 2-D array holds one input per row (np.matrix included); other arrays one per entry.
            X = list(check_matrix(X, "X") if X.ndim == 2 else X)
        if not isinstance(X, Sequence) or isinstance(X, (str, bytes)):
            raise ValueError(f"X must be an array or a list of inputs; got {type(X).__name__}")
        return check_each(X, self.feature_map.check_input, "X")

    def n_features(self, x: np.ndarray) -> int:
        return self.feature_map.n_features(x)

    def init_params(self, n_features: int) -> np.ndarray:
        return np.zeros(self.feature_map.dim(n_features))

    def scores(self, params: np.ndarray, x: np.ndarray) -> np.ndarray:
        return self.feature_map.scores(params, x)

    def gradient(self, g: np.ndarray, x: np.ndarray) -> np.ndarray:
        return self.feature_map.adjoint(np.asarray(g, dtype=float), x)

    def instance_norm(self, x: np.ndarray) -> float:
        return self.feature_map.operator_norm(x)

    def kernel_scores(self, kernel, support, coefs, x):
        raise ValueError(
            "kernels are not supported with a class-sensitive feature map Psi(x, y); put the "
            "features in Psi itself and use a primal learner (e.g. Predtron)"
        )
