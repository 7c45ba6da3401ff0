"""What the four estimators share, without scikit-learn: their parameters (declared once), their
validation, the core learner they drive and the state they save (:class:`EstimatorCore`).

The public estimators of :mod:`predtron.sklearn` are thin adapters over these cores (as
``lightgbm.sklearn`` sits over LightGBM's ``Booster``): they add scikit-learn's base classes, its
validation at the public boundary (``validate_data``, ``check_is_fitted``,
``check_classification_targets``: the hooks :meth:`EstimatorCore._validate_data`,
:meth:`EstimatorCore._check_fitted` and :meth:`EstimatorCore._check_targets`) and its tags.  A
core alone is what the command line's streaming fit runs, so that it never imports
scikit-learn; a saved core is written under its public class's name (``persistence.saveable_as``),
so that :func:`predtron.load` gives the public estimator.

Every estimator's constructor is made from one table, :data:`COMMON_PARAMS` plus the
estimator's own parameters (:func:`estimator_params`), and every parameter has one checker in
``_parameter_constraints`` (scikit-learn's convention: a dict from parameter name to its
constraint; here the constraint is the package's own checker, so an error names the parameter,
what was expected and what came).  ``fit`` validates the parameters once
(:meth:`EstimatorCore._validate_params`) and the data once, then hands trusted arrays to
the core learner.
"""

from __future__ import annotations

import contextlib
import inspect
import re
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from predtron._estimator import EpochOrders, Params, epoch_progress, not_fitted, run_epochs
from predtron._models.checks import _canonical, _check_input, as_float64
from predtron._models.statistics import FitStatistics, _Standardizer
from predtron._state import State
from predtron._validation import (
    MAX_ABS_INPUT,
    MAX_DENSE_ENTRIES,
    check_bool,
    check_choice,
    check_class_labels,
    check_int,
    check_positive,
    excerpt,
)
from predtron.learners.predtron import Predtron, PredtronLD
from predtron.learners.stopping import EarlyStopping
from predtron.scoring import DocumentInputs, Inputs, VectorInputs

_COMMON_DOC_TEXT = """
    eta : float or "auto", default "auto"
        Step size of Algorithm 1.  ``"auto"`` is Theorem 1's step ``c_L / (4 R^2)`` with
        ``R^2`` the mean squared norm of the (standardised) training inputs (see
        :func:`~predtron.bounds.theorem1_step`); ``eta_`` holds the value used.  With the oracle update,
        ``eta`` times the squared input norm sets how much the loss term of the oracle weighs
        against the scores, so a step on the data's own scale makes the estimator
        independent of how the features were scaled.
    epochs : int, default 50
        Largest number of passes over the training data (see ``tol``).
    tol : float or None, default 1e-3
        Stop when the mean loss the learner suffers in a pass has not improved on the best
        pass by ``tol`` for ``n_iter_no_change`` passes in a row (as scikit-learn's linear
        models stop); ``None`` makes exactly ``epochs`` passes.  ``n_iter_`` is the number
        of passes made.
    n_iter_no_change : int, default 5
        Patience of the stopping rule.
    average : bool, default True
        Predict with the averaged iterate (Freund and Schapire; Collins).
    shuffle : bool, default True
        Visit the examples in a new random order at every pass.
    random_state : int, RandomState, numpy Generator or None, default None
        Seed of the shuffling.
    fit_intercept : bool, default True
        A bias per score coordinate.
    standardize : bool, default True
        Rescale the features with the training statistics.  Dense input: centre every
        feature and scale it to unit variance, except 0/1 features (indicators such as a
        word's presence), which are left alone.  Sparse input: divide every feature by its
        largest absolute value (centring would densify the matrix), which also leaves 0/1
        features alone; a model fitted on a CSR matrix of real values then differs from one
        fitted on the same data dense (with ``standardize=False`` they are identical).  The
        perceptron's mistake bounds grow with the input radius ``R``, and a feature on a much
        larger scale than the others dominates it (on Mulan emotions, without it the
        estimator predicts no label at all); standardising a rare indicator would make it
        such a feature (a word in one document of 400 would become a 20).
    update : {"oracle", "prediction"}, default "oracle"
        Which prediction enters the update: the loss-augmented argmax (Algorithm 1) or the
        prediction itself (perceptron-style).
    loss_driven : bool, default False
        Use Predtron.LD, which scales each step by the loss just suffered.
    verbose : bool, default False
        Show a progress bar over the passes and examples of ``fit``.
"""

#: What every ``partial_fit`` docstring says of scaling and the step (its ``{partial_scaling}``).
_PARTIAL_SCALING_DOC = """        Feature scaling and the step: with ``standardize=True`` the scaling statistics, and
        with ``eta="auto"`` Theorem 1's step, are estimated from the first batch and then
        frozen (give a first batch that represents the data, or give the whole stream's
        statistics first: ``preset_statistics``, ``predtron.streaming.fit_passes(...,
        statistics=True)``);
        with ``standardize=False`` and a numeric ``eta``, ``partial_fit`` over the batches of
        a data set in order is exactly ``fit`` with ``shuffle=False`` and ``epochs=1``, and
        repeating the batches ``k`` times is ``fit`` with ``shuffle=False``, ``epochs=k`` and
        ``tol=None``.  ``partial_fit`` never stops early: with the default ``tol`` a ``fit`` may
        stop before ``k`` passes (its ``n_iter_``), and the two then differ;
        :func:`predtron.streaming.fit_passes` applies the stopping rule to a stream of batches.
"""

#: The shared parameters' numpydoc entries, by name.
_COMMON_DOC: dict[str, str] = {
    re.match(r"(\w+)", entry).group(1): "    " + entry
    for entry in re.split(r"(?m)^    (?=\w+ : )", _COMMON_DOC_TEXT.lstrip("\n")) if entry.strip()
}

#: The parameters every estimator shares, with their defaults (the ranker has no
#: ``fit_intercept``: ranking scores ignore shifts).
COMMON_PARAMS: dict[str, object] = {
    "eta": "auto", "epochs": 50, "tol": 1e-3, "n_iter_no_change": 5, "average": True, "shuffle": True,
    "random_state": None, "fit_intercept": True, "standardize": True, "update": "oracle", "loss_driven": False,
    "verbose": False,
}


def _eta(value, name: str) -> None:
    if not (isinstance(value, str) and value == "auto"):
        check_positive(value, name)


def _optional(check: Callable) -> Callable:
    """A checker that also accepts ``None``."""
    def checker(value, name: str) -> None:
        if value is not None:
            check(value, name)
    return checker


def _at_least_one(value, name: str) -> None:
    check_int(value, name, minimum=1)


#: One checker per shared parameter (``None``: any value; ``random_state`` is checked where it
#: is used, by the learner).
COMMON_CONSTRAINTS: dict[str, Callable | None] = {
    "eta": _eta,
    "epochs": _at_least_one,
    "tol": _optional(lambda v, n: check_positive(v, n, allow_zero=True)),
    "n_iter_no_change": _at_least_one,
    "average": check_bool,
    "shuffle": check_bool,
    "random_state": None,
    "fit_intercept": check_bool,
    "standardize": check_bool,
    "update": lambda v, n: check_choice(v, n, ("oracle", "prediction")),
    "loss_driven": check_bool,
    "verbose": check_bool,
}


def estimator_params(own: dict[str, object] | None = None, constraints: dict[str, Callable | None] | None = None, *,
                     exclude: tuple[str, ...] = ()):
    """Class decorator: give an estimator its constructor, made from :data:`COMMON_PARAMS` (less
    ``exclude``) and its ``own`` parameters, and its ``_parameter_constraints``.

    The constructor only stores the parameters (scikit-learn's rule); its signature lists every
    parameter as keyword-only with its default, so ``get_params``, ``clone`` and the API
    reference see an ordinary ``__init__``.  The docstring's ``{common}`` marker is replaced by
    the shared parameters' documentation (less those in ``own``, which the estimator documents).
    """
    own = dict(own or {})

    def decorate(cls):
        defaults = {k: v for k, v in COMMON_PARAMS.items() if k not in exclude} | own
        checks = {k: v for k, v in COMMON_CONSTRAINTS.items() if k not in exclude} | dict(constraints or {})
        missing = set(defaults) ^ set(checks)
        if missing:
            raise TypeError(f"{cls.__name__}: parameters and constraints differ on {sorted(missing)}")

        def __init__(self, **params):
            unknown = sorted(set(params) - set(defaults))
            if unknown:
                raise TypeError(f"{type(self).__name__}() got unexpected keyword argument(s) {unknown}; "
                                f"its parameters are {sorted(defaults)}")
            for name, default in defaults.items():
                setattr(self, name, params.get(name, default))

        __init__.__signature__ = inspect.Signature(
            [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            + [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=v) for k, v in defaults.items()])
        __init__.__qualname__ = f"{cls.__name__}.__init__"
        __init__.__doc__ = f"Store the parameters of {cls.__name__} (see the class docstring)."
        cls.__init__ = __init__
        cls._parameter_constraints = checks
        cls._declared_params = (own, dict(constraints or {}), exclude)  # for the adapters (adapter_params)
        partial = getattr(cls, "partial_fit", None)
        if partial is not None and partial.__doc__ and "{partial_scaling}" in partial.__doc__:
            partial.__doc__ = partial.__doc__.replace("        {partial_scaling}\n", _PARTIAL_SCALING_DOC)
        if cls.__doc__ and "    {common}\n" in cls.__doc__:
            # A shared parameter the estimator redefines (its own default) is documented by the
            # estimator itself.
            shared = "".join(_COMMON_DOC[k] for k in COMMON_PARAMS if k not in exclude and k not in own)
            cls.__doc__ = cls.__doc__.replace("    {common}\n", shared)
        return cls

    return decorate


def adapter_params(core: type):
    """Class decorator of a public estimator over ``core`` (a class made by :func:`estimator_params`):
    the same constructor and constraints, and its own docstring's ``{common}`` filled in."""
    own, constraints, exclude = core._declared_params
    return estimator_params(own, constraints, exclude=exclude)


def _weights(sample_weight) -> dict:
    """``{"sample_weight": w}`` with ``w`` one weight per instance of the core learner (a row, or a
    query for ranking), as the estimator checked them at its boundary
    (:mod:`predtron._models.weights`), or ``{}`` without weights: the learner is given the keyword
    only when there are weights (and checks them at its own boundary, by the same rule)."""
    return {} if sample_weight is None else {"sample_weight": sample_weight}


class EstimatorCore(Params):
    """Shared parameters, validation and the core learner of the estimators, without scikit-learn.

    Validation at the public boundary goes through three hooks, which the adapters of
    :mod:`predtron.sklearn` replace by scikit-learn's own functions: :meth:`_validate_data` (the
    arrays as float64, ``n_features_in_`` set or checked), :meth:`_check_targets` (labels that are
    classes) and :meth:`_check_fitted`.
    """

    # ------------------------------------------------------------ boundary hooks
    def _validate_data(self, X, y=None, *, reset: bool, multi_output: bool = False, y_numeric: bool = False):
        """``X`` (after :func:`~predtron._models.checks._check_input`) as float64 (a dense array or a
        CSR matrix), and ``y`` as an array of one label per row (2-D with ``multi_output``);
        ``reset`` sets ``n_features_in_``, else ``X`` must have that many columns.  Returns ``X``, or
        ``(X, y)`` when ``y`` is given (the adapters use scikit-learn's ``validate_data``)."""
        X = as_float64(X)
        if X.shape[1] == 0:  # as scikit-learn's validate_data: no feature, no score to learn
            raise ValueError(f"X must have at least one feature (column); got shape {X.shape}")
        if reset:
            self.n_features_in_ = int(X.shape[1])
            self.__dict__.pop("feature_names_in_", None)  # a loaded file's column names; these columns have none
        elif X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                             f"{self.n_features_in_} features as input.")
        if y is None:
            return X
        y = y.toarray() if sp.issparse(y) else np.asarray(y)  # a sparse indicator matrix (multilabel)
        if not multi_output and y.ndim == 2 and y.shape[1] == 1:
            y = y.ravel()
        if y_numeric and y.dtype.kind == "O":
            y = y.astype(np.float64)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"Found input variables with inconsistent numbers of samples: [{X.shape[0]}, "
                             f"{y.shape[0]}]")
        return X, y

    def _check_targets(self, y) -> None:
        """Labels that are classes: refuses continuous values (non-whole floats), as scikit-learn's
        ``check_classification_targets``."""
        y = np.asarray(y)
        if y.dtype.kind == "f" and y.size and np.any(y != np.round(y)):
            raise ValueError("Unknown label type: continuous. Maybe you are trying to fit a classifier, which "
                             "expects discrete classes on a regression target with continuous values.")

    def _accuracy(self, X, y, sample_weight=None) -> float:
        """The (weighted) fraction of rows of ``X`` whose prediction equals ``y`` (the adapters use
        scikit-learn's ``ClassifierMixin.score``)."""
        correct = np.asarray(self.predict(X)) == np.asarray(y).reshape(-1)
        return float(np.average(correct, weights=sample_weight))

    def _check_fitted(self) -> None:
        """Refuse an unfitted estimator (scikit-learn's rule: no attribute ending in ``_``)."""
        if not any(k.endswith("_") and not k.startswith("__") for k in vars(self)):
            raise not_fitted(f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with appropriate "
                             "arguments before using this estimator.")

    #: Whether ``tol`` is relative to the first pass's mean loss (see
    #: :class:`~predtron.learners.stopping.EarlyStopping`) rather than in the loss's own units.
    _relative_tol = False

    def _learner(self, problem, eta=None):
        cls = PredtronLD if self.loss_driven else Predtron
        eta = getattr(self, "eta_", self.eta) if eta is None else eta
        return cls(problem, eta=eta, update=self.update, average=self.average, shuffle=self.shuffle,
                   random_state=self._seed(), fit_intercept=self.fit_intercept, record_losses=False)

    def _fit_learner(self, problem, X, target, sample_weight=None) -> None:
        """Fit the core learner: a reset, then passes of the one ``partial_fit`` path
        (:meth:`~predtron.learners.base.OnlineLearner.partial_fit_inputs`) through the epoch driver
        (:func:`predtron._estimator.run_epochs`), each pass in the order of
        :func:`predtron._estimator.epoch_order`, stopping early when the online loss of a pass stops
        improving (as scikit-learn's SGD).

        ``X`` is a matrix ``fit`` validated (wrapped here as vector inputs, with the labels
        checked once by the problem), or an :class:`~predtron.scoring.Inputs` with ``target``
        the labels ``problem.check_labels`` returned for it: the learner trusts both and checks
        nothing again."""
        self.learner_ = self._learner(problem)
        if not isinstance(X, Inputs):  # a matrix validated by fit: trusted from here on
            X = VectorInputs(_canonical(X), problem.scoring.dim, bool(self.fit_intercept))
            target = problem.check_labels(target, X)
        weights = _weights(sample_weight)  # one per instance (per query, for ranking)
        learner, stopper = self.learner_, self._stopper()
        orders = EpochOrders(learner.random_state) if self.shuffle else None
        unit = "query" if hasattr(X, "offsets") else "ex"  # ranking inputs count queries
        with epoch_progress(self.verbose, self.epochs, X.n, unit=unit, desc=type(learner).__name__) as progress:

            def one_pass(epoch: int) -> None:
                order = None if orders is None else orders.order(epoch, X.n)
                learner.partial_fit_inputs(X, target, order=order, progress=progress,
                                           **weights)
                learner.n_epochs_ = epoch

            run_epochs(one_pass, self.epochs, stop=None if stopper is None else (lambda epoch: stopper(learner, epoch)))
        self.n_iter_ = learner.n_epochs_

    def core_learner(self, problem):
        """An unfitted core learner with this estimator's parameters and ``eta_`` (for the drivers:
        :mod:`predtron.streaming`, :mod:`predtron.dask`)."""
        return self._learner(problem)

    def make_problem(self):
        """The prediction problem of the fitted labels (``classes_`` and the like set)."""
        return self._problem()

    def stopping_rule(self):
        """The early-stopping rule of ``tol``/``n_iter_no_change`` (``None`` with ``tol=None``): a
        fresh :class:`~predtron.learners.stopping.EarlyStopping`."""
        return self._stopper()

    def _stopper(self):
        """Early stopping as scikit-learn's ``tol``/``n_iter_no_change``: stop once the mean loss the
        learner suffers in a pass has not improved on the best pass by ``tol`` for
        ``n_iter_no_change`` passes in a row."""
        if self.tol is None:
            return None
        return EarlyStopping(self.tol, self.n_iter_no_change, relative=self._relative_tol)

    def _resolve_eta(self, problem, X, labels, offsets=None) -> float:
        """The step size: ``eta`` as given, or for ``eta="auto"`` the step of the fit's statistics
        (:meth:`FitStatistics.step` after :meth:`FitStatistics.update_norms` on the scaled ``X``)."""
        if isinstance(self.eta, str) and self.eta == "auto":
            statistics = getattr(self, "statistics_", None)
            if statistics is None or statistics.n_examples:  # not from _fit_scaler of this fit
                statistics = FitStatistics(standardize=False, fit_intercept=bool(self.fit_intercept))
            statistics.update_norms(X, labels, problem, offsets)
            return self.step_from(statistics, problem)
        return float(self.eta)

    def step_from(self, statistics: FitStatistics, problem) -> float:
        """``eta_`` for ``eta="auto"`` from a training set's complete statistics: Theorem 1's step
        (:meth:`FitStatistics.step`) times the estimator's factor (1, except the multilabel
        Hamming loss; see :class:`PredtronMultilabelClassifier`).  The one rule of the local fit,
        the streaming fit and the cluster fit."""
        return statistics.step(problem) * self._step_factor(statistics)

    def _step_factor(self, statistics: FitStatistics) -> float:
        return 1.0

    def _seed(self):
        state = self.random_state
        if isinstance(state, np.random.RandomState):
            return int(state.randint(0, 2**31 - 1))
        return state

    def check_params(self) -> None:
        """Check every parameter, with its checker in ``_parameter_constraints`` (as ``fit`` does)."""
        self._validate_params()

    def _validate_params(self) -> None:
        """Check every parameter once, with its checker in ``_parameter_constraints``."""
        for name, check in self._parameter_constraints.items():
            if check is not None:
                check(getattr(self, name), name)

    #: Whether the labels are relevance grades (numbers) rather than classes.
    _relevance_labels = False

    def check_training_labels(self, X, y) -> None:
        """Check a part of the training data as ``fit`` checks the whole (the same messages): real
        finite numbers in ``X``, labels that are finite numbers or strings (relevance grades:
        numbers), and for a classifier labels that are classes, not continuous values.  For the
        drivers that see the data in parts (:mod:`predtron.dask`)."""
        _check_input(X, y, fitting=True, relevance=self._relevance_labels, type_name=type(self).__name__)
        if not self._relevance_labels:
            self._check_targets(y)

    def _fit_classes(self, X, y, unit: str = "classes"):
        """Validate the parameters and the data once, learn ``classes_`` (sorted), and return the
        validated ``X`` with each row's class index."""
        self._validate_params()
        _check_input(X, y, fitting=True, type_name=type(self).__name__)
        X, y = self._validate_data(X, y, reset=True)
        self._check_targets(y)
        self.classes_, indices = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"y must hold at least 2 {unit} to learn from; got 1 class ({excerpt(self.classes_)})")
        return X, indices

    # ------------------------------------------------------------ partial_fit
    def _partial_data(self, X, y, **validate):
        """Validate one ``partial_fit`` batch: ``(first, X, y)``, ``first`` True when no state exists yet
        (the parameters are then checked and ``n_features_in_`` set; later batches must agree)."""
        first = not hasattr(self, "learner_")
        if first:
            self._validate_params()
        _check_input(X, y, fitting=True, relevance=validate.pop("relevance", False), type_name=type(self).__name__)
        X, y = self._validate_data(X, y, reset=first, **validate)
        return first, X, y

    def _partial_classes(self, classes, first: bool, unit: str = "classes") -> None:
        """``classes_`` from the first call's ``classes``; later calls may repeat the same classes."""
        if first:
            if classes is None:
                raise ValueError(f"classes must be passed on the first call to partial_fit: all the {unit} the "
                                 "stream will hold (the batches may not show them all)")
            classes = check_class_labels(classes, "classes")
            self._check_targets(classes)
            self.classes_ = np.unique(classes)
            if len(self.classes_) < 2:
                raise ValueError(f"classes must hold at least 2 {unit}; got {excerpt(self.classes_)}")
        elif classes is not None and not np.array_equal(np.unique(check_class_labels(classes, "classes")),
                                                        self.classes_):
            raise ValueError(f"classes must equal the classes of the first call to partial_fit "
                             f"({excerpt(self.classes_)}); got {excerpt(np.unique(classes))}")

    def _class_indices(self, y) -> np.ndarray:
        """The index in ``classes_`` of every label of ``y``; a label not in ``classes_`` is refused."""
        y = check_class_labels(y, "y")
        indices = np.searchsorted(self.classes_, y)
        inside = indices < len(self.classes_)
        known = np.zeros(len(y), dtype=bool)
        known[inside] = self.classes_[indices[inside]] == y[inside]
        if not known.all():
            raise ValueError(f"y holds labels not in classes_ {excerpt(self.classes_)}: "
                             f"{excerpt(np.unique(y[~known]))}")
        return indices.astype(np.int64)

    def _scored_indices(self, y, n: int, unit: str) -> np.ndarray:
        """The index in ``classes_`` of every label of ``y``, the labels of ``n`` scored rows.

        A label not seen in fit is refused, naming the distinct unseen ones (sorted, a short
        excerpt when many) and the ``classes_`` seen in fit; ``unit`` names one label in the
        message (``"level"``, ``"label"``)."""
        y = check_class_labels(y, "y", n=n)
        index = {c: i for i, c in enumerate(self.classes_.tolist())}
        values = y.tolist()
        unseen = [v for v in dict.fromkeys(values) if v not in index]
        if unseen:
            with contextlib.suppress(TypeError):
                unseen.sort()
            count = f"{len(unseen)} {unit}{'s' if len(unseen) != 1 else ''}"
            raise ValueError(f"y holds {count} not seen in fit: {excerpt(unseen)}; the {unit}s seen in fit are "
                             f"{excerpt(self.classes_.tolist())}")
        return np.array([index[v] for v in values], dtype=np.int64)

    def _partial_pass(self, first: bool, X, target, offsets=None, sample_weight=None, **split) -> None:
        """One online pass of the core learner over the batch, in order (Algorithm 1 continued).

        On the first call the scaler (``standardize=True``) and Theorem 1's step
        (``eta="auto"``) are estimated from this batch and then frozen: later batches are
        scaled with the same statistics and learned with the same step.  Ranking: ``offsets``
        carry the queries (``split``, the group sizes, is implied by them).  ``sample_weight``
        (one per row, checked once here) reaches the learner only when given."""
        preset = self.__dict__.pop("_preset_statistics", None) if first else None
        if preset is not None:  # the whole stream's statistics (preset_statistics)
            X = self.use_statistics(preset)(X)
            problem = self._problem()
            auto = isinstance(self.eta, str) and self.eta == "auto"
            self.eta_ = self.step_from(preset, problem) if auto else float(self.eta)
            self.learner_ = self._learner(problem)
        elif first:
            X = self._fit_scaler(X)
            problem = self._problem()
            self.eta_ = self._resolve_eta(problem, X, target, offsets)
            self.learner_ = self._learner(problem)
        else:
            X = self._transform(X)
        problem = self.learner_.problem
        if offsets is not None:
            inputs = DocumentInputs(_canonical(X), offsets)
        else:  # the intercept of the learner being continued (a fit_intercept set since is for the next fit)
            inputs = VectorInputs(_canonical(X), problem.scoring.dim, bool(self.learner_.fit_intercept))
        weights = _weights(sample_weight)  # one per instance (per query, for ranking)
        self.learner_.partial_fit_inputs(inputs, problem.check_labels(target, inputs), **weights)

    def _validate_X(self, X, reset: bool):
        _check_input(X)
        X = self._validate_data(X, reset=reset)
        return self._transform(X)

    def _transform(self, X):
        return self.scaler_(X) if getattr(self, "scaler_", None) is not None else X

    def _fit_scaler(self, X):
        """Learn the training set's statistics (``statistics_``) and scaler (``scaler_``) from ``X``;
        return ``X`` scaled."""
        self.statistics_ = FitStatistics(standardize=self.standardize, fit_intercept=bool(self.fit_intercept))
        self.statistics_.update(X)
        return self.use_statistics(self.statistics_)(X)

    def use_statistics(self, statistics: FitStatistics):
        """Take the scaler of a training set's statistics (phase 1 complete: the whole array, every
        chunk, or every shard combined) as this estimator's ``scaler_``, and set
        ``n_features_in_``; returns the transform to apply to the inputs (the identity without
        ``standardize``)."""
        self.statistics_ = statistics
        self.scaler_ = self.scaler_from(statistics)
        return self.transform_inputs

    def scaler_from(self, statistics: FitStatistics):
        """``scaler_`` from a training set's statistics (phase 1 complete): :meth:`FitStatistics.scaler`
        (the multilabel estimator's with one common scale for dense features in ``[0, 1]``).  The one
        rule of the local fit, the streaming fit and the cluster fit."""
        return statistics.scaler()

    def preset_statistics(self, statistics: FitStatistics) -> None:
        """Give the first ``partial_fit`` call the statistics of the whole stream (both phases of
        :class:`FitStatistics` complete) instead of estimating the scaler and the step from its
        batch: the scaler and ``eta_`` are then those ``fit`` computes on all the data, bit for
        bit (:func:`predtron.streaming.stream_statistics` computes them in two reads)."""
        if hasattr(self, "learner_"):
            raise ValueError("preset_statistics applies before the first partial_fit call (the estimator is fitted)")
        self._preset_statistics = statistics

    def start_pass(self) -> None:
        """Tell the estimator that the next ``partial_fit`` call begins a new pass over the stream
        (:func:`predtron.streaming.fit_passes` calls it before every epoch): nothing is learned or
        reset, but a check that spans calls within one pass (the ranker's query cut between two
        calls) does not span the end of one pass and the start of the next."""
        return None

    def transform_inputs(self, X):
        """``X`` (validated) scaled by the fitted ``scaler_`` (unchanged without one)."""
        return self._transform(X)

    # -------------------------------------------------------------- persistence
    def get_state(self) -> tuple[dict, dict]:
        """``(scalars, arrays)`` of the fitted estimator, as :func:`predtron.save` writes them (for the
        drivers that carry an estimator's state: :mod:`predtron.dask`)."""
        return self._get_state()

    def set_state(self, scalars, arrays) -> EstimatorCore:
        """Restore :meth:`get_state` (``scalars`` a dict or a checked ``State``); every entry is checked."""
        self._set_state(scalars, arrays)
        return self

    def _get_state(self) -> tuple[dict, dict]:
        self._check_fitted()
        scalars, arrays = self.learner_._get_state()
        arrays = {f"learner.{k}": v for k, v in arrays.items()}
        scalars = {"learner": scalars, "n_features_in_": int(self.n_features_in_), "eta_": float(self.eta_)}
        names = getattr(self, "feature_names_in_", None)  # set by scikit-learn's validation on a DataFrame
        if names is not None:
            scalars["feature_names_in_"] = [str(name) for name in names]
        if self.scaler_ is not None:
            arrays["scale"] = self.scaler_.scale
            if self.scaler_.mean is not None:
                arrays["mean"] = self.scaler_.mean
        scalars.update(self._extra_state())
        return scalars, arrays

    def _set_state(self, scalars: dict, arrays: dict) -> None:
        state = State.of(scalars, arrays)
        self.n_features_in_ = state.int("n_features_in_", minimum=1, maximum=MAX_DENSE_ENTRIES)
        self.eta_ = state.real("eta_", minimum=0.0)
        if self.eta_ <= 0:
            raise ValueError(f"state entry 'eta_' must be positive; got {self.eta_}")
        if state.has("feature_names_in_"):  # absent when fitted on arrays without column names
            self.feature_names_in_ = state.names("feature_names_in_", self.n_features_in_)
        else:
            self.__dict__.pop("feature_names_in_", None)
        self._restore_extra(state)
        if state.has_array("scale"):
            if not self.standardize:  # the fit writes a scaler only with standardize=True
                raise ValueError("standardize=False but the state has the array 'scale' of a fitted scaler")
            scaler = _Standardizer.__new__(_Standardizer)
            scaler.scale = state.array("scale", (self.n_features_in_,))
            if np.any(scaler.scale <= 0):
                raise ValueError("state array 'scale' must be positive")
            scaler.mean = state.array("mean", (self.n_features_in_,)) if state.has_array("mean") else None
            # Statistics of inputs |x| <= MAX_ABS_INPUT are at most that large: a larger mean or scale
            # is an edit, and would make every prediction fail blaming X.
            for name, values in (("scale", scaler.scale), ("mean", scaler.mean)):
                if values is not None and np.any(np.abs(values) > MAX_ABS_INPUT):
                    raise ValueError(f"state array {name!r} must hold statistics of inputs, at most {MAX_ABS_INPUT:g} "
                                     f"in magnitude; got {float(np.max(np.abs(values))):.3g}")
            self.scaler_ = scaler
        elif self.standardize:
            raise ValueError("standardize=True but the state has no array 'scale'")
        else:
            self.scaler_ = None
        self.learner_ = self._learner(self._problem())
        self.learner_._validate_params()
        self.learner_._set_state(state.sub("learner"), None)
        if self.learner_.n_features_in_ != self.n_features_in_:
            raise ValueError(f"state entry 'learner.n_features_in_' ({self.learner_.n_features_in_}) must equal "
                             f"n_features_in_ ({self.n_features_in_})")
        if hasattr(self.learner_, "n_epochs_"):  # the passes of fit (a model only partial_fit has none)
            self.n_iter_ = int(self.learner_.n_epochs_)
        else:
            self.__dict__.pop("n_iter_", None)

    def _extra_state(self) -> dict:
        return {}

    def _restore_extra(self, state) -> None:
        return None
