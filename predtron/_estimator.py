"""The estimator protocol shared by every learner of the package, without importing scikit-learn.

Every learner follows scikit-learn's estimator conventions (:class:`Params`, duck-typed: the
package does not import scikit-learn to fit, so that a command-line fit starts fast): constructor
parameters are stored as given and validated at fit, ``get_params``/``set_params`` work with
nested names such as ``problem__n_classes``, ``sklearn.base.clone`` and ``GridSearchCV`` work
(they call ``get_params``, ``set_params`` and ``__sklearn_tags__``), learned state ends in ``_``,
an unfitted learner raises scikit-learn's ``NotFittedError`` (:func:`not_fitted`), and ``score``
is higher-is-better (the negative mean loss; ``mean_loss`` gives the loss itself).  Losses of the
online rounds are kept in a :class:`~predtron._history.LossTrace`.
"""

from __future__ import annotations

import copy
import inspect
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from predtron._history import LossTrace
from predtron._validation import check_bool, check_int, check_random_state


def not_fitted(message: str) -> Exception:
    """The error of a method called before ``fit``: scikit-learn's ``NotFittedError`` (a
    ``ValueError`` and an ``AttributeError``), imported only on this path, so that fitting never
    imports scikit-learn."""
    from sklearn.exceptions import NotFittedError

    return NotFittedError(message)


class Params:
    """scikit-learn's parameter protocol (``sklearn.base.BaseEstimator``'s ``get_params``,
    ``set_params``, ``__repr__`` and default ``__sklearn_tags__``) without importing scikit-learn.

    The parameters are the keyword arguments of ``__init__`` (sorted by name, as scikit-learn
    lists them), stored as given under their own names; ``set_params`` sets them (nested names
    ``name__sub`` set a parameter of a parameter object), as scikit-learn does.
    """

    @classmethod
    def _get_param_names(cls) -> list[str]:
        init = cls.__init__
        if init is object.__init__:
            return []
        parameters = inspect.signature(init).parameters.values()
        return sorted(p.name for p in parameters if p.name != "self" and p.kind not in (p.VAR_KEYWORD,
                                                                                         p.VAR_POSITIONAL))

    def get_params(self, deep: bool = True) -> dict:
        """The constructor parameters as given (with ``deep``, also ``name__sub`` for the parameters
        of nested parameter objects)."""
        out = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{key}", sub) for key, sub in value.get_params().items())
            out[name] = value
        return out

    def set_params(self, **params):
        """Set constructor parameters (``name``, or ``name__sub`` for a nested object's); returns ``self``."""
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested: dict[str, dict] = {}
        for key, value in params.items():
            name, delim, sub = key.partition("__")
            if name not in valid:
                raise ValueError(f"Invalid parameter {name!r} for estimator {self}. Valid parameters are: "
                                 f"{self._get_param_names()!r}.")
            if delim:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, sub_params in nested.items():
            valid[name].set_params(**sub_params)
        return self

    def __repr__(self) -> str:
        """``Name(p=v, ...)`` with the parameters that differ from their defaults, sorted by name."""
        defaults = {name: p.default for name, p in inspect.signature(type(self).__init__).parameters.items()}
        shown = []
        for name, value in self.get_params(deep=False).items():
            default = defaults.get(name, inspect.Parameter.empty)
            if default is inspect.Parameter.empty or repr(value) != repr(default):
                shown.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    def __sklearn_tags__(self):
        """scikit-learn's default tags (``BaseEstimator``'s); only scikit-learn asks for them, so it is
        imported here."""
        from sklearn.utils import Tags, TargetTags

        return Tags(estimator_type=None, target_tags=TargetTags(required=False), transformer_tags=None,
                    regressor_tags=None, classifier_tags=None)


class Estimator(Params):
    """Parameters, fitted-state bookkeeping and the epoch loop every learner's ``fit`` runs."""

    def reset(self):
        """Forget everything learned (every attribute ending in ``_``, and the private state)."""
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("__")]:
            delattr(self, name)
        for name in ("_trace",):
            vars(self).pop(name, None)
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "n_features_in_"):
            raise not_fitted(f"this {type(self).__name__} is not fitted yet; call fit or partial_fit first")

    def score(self, X, *args, **kwargs) -> float:
        """Negative mean loss on ``(X, Y)``: higher is better, as scikit-learn's model
        selection expects (``mean_loss`` gives the loss itself; the labels are passed on under
        the name ``mean_loss`` gives them, ``Y`` or ``y``)."""
        return -self.mean_loss(X, *args, **kwargs)

    # ----------------------------------------------------------- loss record
    def _new_trace(self, record: bool = True) -> None:
        self._trace = LossTrace(record)

    @property
    def loss_history_(self) -> np.ndarray:
        """Loss suffered in each online round so far (zeros included)."""
        self._check_fitted()
        return self._trace.history()

    @property
    def n_rounds_(self) -> int:
        """Number of online rounds so far."""
        self._check_fitted()
        return self._trace.n_rounds

    @property
    def cumulative_loss_(self) -> float:
        """Sum of the losses suffered so far (the left side of the paper's mistake bounds)."""
        self._check_fitted()
        return self._trace.total

    @property
    def n_mistakes_(self) -> int:
        """Number of rounds with a non-zero loss."""
        self._check_fitted()
        return self._trace.n_nonzero

    def fit(self, X, Y, epochs: int = 1, verbose: bool = False, *, callback=None):
        """Start from scratch and make ``epochs`` online passes over the data in order.

        Parameters
        ----------
        epochs : int
            Number of passes; ``loss_history_`` covers all of them.
        verbose : bool
            Print one line per pass (mean loss and updates) to stderr.
        callback : callable, optional
            Called as ``callback(learner, epoch)`` after every pass; returning ``True`` stops
            (see :meth:`_run_epochs`).
        """
        epochs, verbose, callback = check_epoch_args(epochs, verbose, callback)
        self.reset()
        self._run_epochs(epochs, self._reported(lambda epoch: self.partial_fit(X, Y), epochs, verbose),
                         callback=callback)
        return self

    def _reported(self, one_pass, epochs: int, verbose: bool):
        """``one_pass`` printing, when ``verbose``, one line per pass to stderr: its mean loss and
        its number of updates."""
        if not verbose:
            return one_pass

        def reported(epoch: int):
            trace = getattr(self, "_trace", None)
            before = (trace.n_rounds, trace.total) if trace is not None else (0, 0.0)
            updates = getattr(self, "n_updates_", 0)
            done = one_pass(epoch)
            print(f"epoch {epoch}/{epochs}: mean loss {self._trace.mean_since(*before):.4f}, "
                  f"{self.n_updates_ - updates} updates", file=sys.stderr)
            return done

        return reported

    def _run_epochs(self, epochs: int, one_pass, *, callback=None) -> None:
        """The epoch loop of every learner of the package (one meaning of ``fit``), through
        :func:`run_epochs`.

        Calls ``one_pass(epoch)`` for ``epoch = 1, ..., epochs``; after each pass ``n_epochs_``
        counts the passes made and ``callback(self, epoch)`` (when given) may return ``True``
        to stop there (early stopping).  ``one_pass`` returning ``True`` stops too (a learner's
        own convergence: the batch perceptron's sweep without an update).  The arguments are
        trusted (:func:`check_epoch_args` checked them at the public ``fit``).
        """
        def counted(epoch: int):
            done = one_pass(epoch)
            self.n_epochs_ = epoch
            return done

        run_epochs(counted, epochs, stop=None if callback is None else (lambda epoch: callback(self, epoch) is True))


def run_epochs(one_pass, epochs: int, *, first: int = 1, stop=None, after=()) -> tuple[int, bool]:
    """The one epoch driver: the local fit, the streaming fit (:func:`predtron.streaming.fit_passes`)
    and iterative parameter mixing (:func:`predtron.mixing.iterative_parameter_mixing`) run their
    epochs through it.

    For ``epoch = first, ..., epochs``: ``one_pass(epoch)`` (returning ``True`` when the fit has
    converged by its own rule), then ``stop(epoch)`` (the stopping rule; ``True`` stops), then
    every hook of ``after`` as ``hook(epoch)`` (counting, checkpoints, progress, callbacks; a
    hook may read whether the fit stops from its own state).  Returns ``(last epoch made, stopped
    early)``; ``(first - 1, False)`` when there is no epoch to make.
    """
    epoch, stopped = first - 1, False
    for epoch in range(first, epochs + 1):
        done = one_pass(epoch) is True
        stopped = done or (stop is not None and stop(epoch) is True)
        for hook in after:
            hook(epoch)
        if stopped:
            break
    return epoch, stopped


@contextmanager
def epoch_progress(verbose: bool, epochs: int, n: int, *, unit: str = "ex", desc: str | None = None) -> Iterator:
    """The progress bar of an in-memory fit of at most ``epochs`` passes over ``n`` items (examples,
    or queries with ``unit="query"``), on stderr: a ``tqdm`` bar when ``verbose``, else ``None``
    (``tqdm`` is imported only then, so that commands that fit nothing never load it).

    A fit that ends before its last pass (early stopping, a callback) ends its bar at 100%: the
    total becomes the items done.  An exception (Ctrl-C) leaves the bar where the fit stopped.
    """
    if not verbose:
        yield None
        return
    from tqdm.auto import tqdm

    with tqdm(total=epochs * n, unit=unit, leave=True, desc=desc) as bar:
        yield bar
        if bar.n < bar.total:  # fewer passes than the most allowed: what was done is the whole
            bar.total = bar.n
            bar.refresh()


def _generator(seed, shard: int) -> np.random.Generator:
    """The generator of ``shard`` at epoch 0: ``check_random_state(seed)`` (copied) for shard 0,
    the ``shard``-th child spawned from it for the others."""
    base = copy.deepcopy(check_random_state(seed))
    if shard == 0:
        return base
    ss = base.bit_generator.seed_seq
    child = np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, ss.n_children_spawned + shard - 1),
                                   pool_size=ss.pool_size)
    return np.random.Generator(type(base.bit_generator)(child))


def epoch_order(seed, epoch: int, n: int, shard: int = 0) -> np.ndarray:
    """The visiting order of ``n`` examples at ``epoch`` (from 1): the ``epoch``-th permutation
    drawn from shard ``shard``'s generator of ``seed`` (an int, or a numpy Generator whose
    current state is the seed; shard 0's generator is ``numpy.random.default_rng(seed)``, the
    one ``fit`` with ``shuffle=True`` draws from; shard ``k > 0`` draws from the ``k``-th child
    spawned from it).  The one rule of the sample order of the local fit, the streaming fit and
    every shard of iterative parameter mixing; :class:`EpochOrders` gives the same orders in
    sequence without replaying the earlier epochs."""
    return EpochOrders(seed, shard).order(epoch, n)


class EpochOrders:
    """:func:`epoch_order` for consecutive epochs of one shard, kept as a generator's state (picklable:
    a cluster's task may carry it and return it advanced)."""

    def __init__(self, seed, shard: int = 0):
        self.rng = _generator(seed, shard)
        self.epoch = 0

    def state(self) -> dict:
        """The orders' position as JSON (the generator's state and the last epoch drawn), for a
        checkpoint."""
        return {"generator": self.rng.bit_generator.state, "epoch": int(self.epoch)}

    @classmethod
    def from_state(cls, state: dict) -> EpochOrders:
        """The orders at :meth:`state` (a checkpoint's), checked."""
        try:
            generator = state["generator"]
            bit_generator = getattr(np.random, generator["bit_generator"])
            if not (isinstance(bit_generator, type) and issubclass(bit_generator, np.random.BitGenerator)):
                raise TypeError("not a bit generator")
            rng = np.random.Generator(bit_generator())
            rng.bit_generator.state = generator
            epoch = state["epoch"]
            if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 0:
                raise ValueError(f"epoch {epoch!r}")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"the state of a sample order is malformed ({exc})") from None
        out = cls.__new__(cls)
        out.rng, out.epoch = rng, epoch
        return out

    def order(self, epoch: int, n: int) -> np.ndarray:
        """The order of ``epoch``; epochs must be asked in increasing order (equal to
        ``epoch_order(seed, epoch, n, shard)``)."""
        if epoch <= self.epoch:
            raise ValueError(f"epoch must be after the last epoch drawn ({self.epoch}); got {epoch}")
        while self.epoch < epoch - 1:
            self.rng.permutation(n)
            self.epoch += 1
        self.epoch = epoch
        return self.rng.permutation(n)


def check_epoch_args(epochs, verbose, callback, *, minimum: int = 1) -> tuple[int, bool, object]:
    """The arguments every ``fit`` of the package shares, checked: ``epochs`` (passes, an int
    ``>= 1``), ``verbose`` (a bool) and ``callback`` (``callback(learner, epoch)`` or ``None``)."""
    epochs = check_int(epochs, "epochs", minimum=minimum)
    verbose = check_bool(verbose, "verbose")
    if callback is not None and not callable(callback):
        raise ValueError(f"callback must be a callable callback(learner, epoch) or None; got "
                         f"{type(callback).__name__}")
    return epochs, verbose, callback
