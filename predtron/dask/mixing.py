"""Iterative parameter mixing (McDonald, Hall and Mann, NAACL 2010) on Dask futures.

The data are cut into shards, fixed by the data and the options (the partitions of a Dask
collection, or the files given), never by which worker is alive.  Every epoch:

1. each shard runs ONE pass of the core learner (:class:`~predtron.Predtron`), starting from
   the mixed parameters, over its own examples (in a new random order per epoch with
   ``shuffle=True``): :func:`shard_pass`, a pure function of (parameters, shard, epoch
   generator), submitted with :meth:`distributed.Client.submit` so that Dask may run it on any
   worker and run it again when a worker dies;
2. the coordinator mixes the shards' parameters, ``W = sum_i mu_i W_i``, with weights
   :func:`mixing_weights` (``"uniform"``: ``mu_i = 1 / S``; ``"loss"``: ``mu_i`` proportional
   to the loss shard ``i`` suffered in the pass), and sends ``W`` back with the next epoch's
   tasks.

The book's chapter on scaling out proves that this keeps Theorem 1 for the mixing-weighted
loss: ``sum_epochs sum_i mu_i L_i <= 4 R^2 C_L^2 / (c_L gamma^2)`` with ``eta = c_L / (4 R^2)``.

The averaged iterate (``average=True``) is kept with the learner's lazy accumulator ``U``
(see :class:`~predtron.learners.base.PrimalLearner`), mixed with the same weights as ``W``.
Every shard of an epoch starts at the same round clock ``T``; shard ``i`` runs rounds
``T + 1, ..., T + n_i`` and then holds its last iterate, and the clock of the mixed state is
``T + sum_i n_i``: the mixed average is the mixture of the shards' averages of their
iterates on that common clock.  With one shard, mixing is the identity and the epochs are the
serial ``fit`` (the same passes, the same permutations, the same state, bit for bit).
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from predtron._validation import check_choice

MIXINGS = ("uniform", "loss")

#: Prefix of the keys of the shard passes in the Dask scheduler (shown on its dashboard).
PASS_KEY = "predtron-ipm-pass"


class PassResult(NamedTuple):
    """What :func:`shard_pass` returns for one shard and one epoch."""

    scalars: dict
    arrays: dict
    rng: np.random.Generator | None
    n_rounds: int
    loss: float


class MixingResult(NamedTuple):
    """The outcome of :func:`iterative_parameter_mixing`.

    Attributes
    ----------
    scalars, arrays : dict, dict
        The mixed learner's state (the core learner's ``_get_state`` format).
    shard_losses : ndarray of shape (n_epochs, n_shards)
        Loss every shard suffered in every epoch's pass.
    weights : ndarray of shape (n_epochs, n_shards)
        The mixing weights ``mu`` of every epoch.
    n_epochs : int
        Epochs made (fewer than asked when ``stop`` ended the fit).
    """

    scalars: dict
    arrays: dict
    shard_losses: np.ndarray
    weights: np.ndarray
    n_epochs: int


def shard_pass(prototype, state: tuple[dict, dict] | None, shard: tuple, rng: np.random.Generator | None) \
        -> PassResult:
    """One pass of the core learner over one shard, from ``state`` (``None``: ``W_1 = 0``).

    A pure function of its arguments: the learner is a copy of ``prototype`` restored from
    ``state``, and ``rng`` is copied before it draws the pass's permutation, so Dask may run it
    again (a retry after a lost worker) and get the same result.

    Parameters
    ----------
    prototype : OnlineLearner
        An unfitted core learner with the fit's parameters.
    state : (dict, dict) or None
        ``(scalars, arrays)`` of the learner at the start of the pass.
    shard : tuple
        ``(X, target, split)``: the shard's prepared inputs, labels and ranking keywords.
    rng : numpy Generator or None
        The shard's generator at this epoch (``None``: no shuffling).
    """
    X, target, split = shard
    learner = copy.deepcopy(prototype)
    before_rounds, before_loss = 0, 0.0
    if state is not None:
        learner._validate_params()
        learner._set_state(*state)
        before_rounds, before_loss = learner.n_rounds_, learner.cumulative_loss_
    order = None
    if rng is not None:
        rng = copy.deepcopy(rng)
        order = rng.permutation(_n_examples(X, split))
    learner.partial_fit(X, target, order=order, **split)
    scalars, arrays = learner._get_state()
    return PassResult(scalars, arrays, rng, learner.n_rounds_ - before_rounds,
                      learner.cumulative_loss_ - before_loss)


def _n_examples(X, split: dict) -> int:
    """Examples of a prepared shard: queries for ranking (``group``), else rows."""
    return len(split["group"]) if "group" in split else X.shape[0]


def mixing_weights(losses: Sequence[float], mixing: str) -> np.ndarray:
    """The weights ``mu`` of one epoch (non-negative, summing to 1).

    ``"uniform"``: ``1 / S``.  ``"loss"``: ``L_i / sum_j L_j`` (McDonald et al.'s
    error-weighted mixing); uniform when no shard suffered any loss (then every shard returns
    the parameters it started from, and any weights give the same mixture).
    """
    check_choice(mixing, "mixing", MIXINGS)
    losses = np.asarray(losses, dtype=np.float64)
    total = float(losses.sum())
    if mixing == "uniform" or total <= 0:
        return np.full(len(losses), 1.0 / len(losses))
    return losses / total


def mix_states(results: Sequence[PassResult], weights: np.ndarray, clock: int, totals: tuple[float, int, int]) \
        -> tuple[dict, dict]:
    """The mixed state ``sum_i mu_i (W_i, U_i)`` with the round clock ``clock`` and the fit's
    running totals ``(cumulative loss, mistakes, updates)``; one shard is returned unchanged."""
    if len(results) == 1:
        return results[0].scalars, results[0].arrays
    scalars = dict(results[0].scalars)
    arrays = {}
    for key in results[0].arrays:
        if key.startswith("trace_"):
            arrays[key] = results[0].arrays[key][:0]
            continue
        mixed = weights[0] * results[0].arrays[key]
        for mu, result in zip(weights[1:], results[1:], strict=True):
            mixed += mu * result.arrays[key]
        arrays[key] = mixed
    total, mistakes, updates = totals
    scalars.update(trace_n_rounds=int(clock), trace_total=float(total), trace_n_nonzero=int(mistakes),
                   n_updates_=int(updates))
    scalars.pop("n_epochs_", None)
    return scalars, arrays


def _start_state(scalars: dict, arrays: dict) -> tuple[dict, dict]:
    """The state a shard starts an epoch from (several shards): the mixed parameters and clock,
    with the pass totals at zero (each shard reports the loss of its own pass)."""
    scalars = dict(scalars, trace_total=0.0, trace_n_nonzero=0, n_updates_=0)
    return scalars, arrays


class _Totals:
    """What an early-stopping callback reads: the running totals of the mixed fit."""

    def __init__(self):
        self.n_rounds_, self.cumulative_loss_ = 0, 0.0


def shard_generators(random_state, n_shards: int) -> list[np.random.Generator]:
    """One generator per shard: shard 0 draws from ``random_state`` itself (so one shard
    shuffles exactly as the serial ``fit``), the others from independent children spawned
    from it; fixed by ``random_state`` and the number of shards alone."""
    from predtron._validation import check_random_state

    base = copy.deepcopy(check_random_state(random_state))
    return [base, *base.spawn(n_shards - 1)] if n_shards > 1 else [base]


def iterative_parameter_mixing(client, prototype, shards: Sequence, epochs: int, *, mixing: str = "uniform",
                               shuffle: bool = False, random_state=None,
                               stop: Callable[[object, int], bool] | None = None) -> MixingResult:
    """Fit ``prototype``'s learner on ``shards`` by iterative parameter mixing.

    Parameters
    ----------
    client : distributed.Client
        The cluster's client.
    prototype : OnlineLearner
        An unfitted core learner with the fit's parameters (its own ``shuffle`` is ignored:
        the permutations are drawn here, per shard and epoch).
    shards : sequence of Future
        The prepared shards ``(X, target, split)``, in their fixed order.
    epochs : int
        Largest number of epochs.
    mixing : {"uniform", "loss"}
        How the shards' parameters are weighted.
    shuffle : bool
        Visit every shard's examples in a new random order at every epoch.
    random_state : int, numpy Generator or None
        Seed of the permutations (see :func:`shard_generators`).
    stop : callable, optional
        ``stop(totals, epoch)`` after every epoch, with ``totals.n_rounds_`` and
        ``totals.cumulative_loss_`` of the mixed fit so far; ``True`` ends the fit (the
        early-stopping rule of the estimators, which sees, with one shard, exactly the
        numbers the serial fit's callback sees).
    """
    check_choice(mixing, "mixing", MIXINGS)
    n_shards = len(shards)
    rngs: list = shard_generators(random_state, n_shards) if shuffle else [None] * n_shards
    run = uuid.uuid4().hex[:12]
    state = None
    totals, tracked = _Totals(), [0.0, 0, 0]
    losses, weights = [], []
    for epoch in range(1, epochs + 1):
        start = state if state is None or n_shards == 1 else _start_state(*state)
        # Each pass runs where its shard is (a preference: another worker may take it if that one dies).
        where = client.who_has(shards)
        futures = [client.submit(shard_pass, prototype, start, shard, rngs[i], key=f"{PASS_KEY}-{run}-{epoch}-{i}",
                                 workers=list(where.get(shard.key, ())) or None, allow_other_workers=True)
                   for i, shard in enumerate(shards)]
        results: list[PassResult] = client.gather(futures)
        del futures
        rngs = [result.rng for result in results]
        epoch_losses = [result.loss for result in results]
        mu = mixing_weights(epoch_losses, mixing)
        clock = (0 if state is None else int(state[0]["trace_n_rounds"])) + sum(r.n_rounds for r in results)
        for result in results:
            tracked[0] += result.scalars["trace_total"] if n_shards > 1 else 0.0
            tracked[1] += result.scalars["trace_n_nonzero"] if n_shards > 1 else 0
            tracked[2] += result.scalars["n_updates_"] if n_shards > 1 else 0
        state = mix_states(results, mu, clock, tuple(tracked))
        losses.append(epoch_losses)
        weights.append(mu)
        totals.n_rounds_, totals.cumulative_loss_ = clock, float(state[0]["trace_total"])
        if stop is not None and stop(totals, epoch) is True:
            break
    scalars, arrays = state
    scalars = dict(scalars, n_epochs_=int(epoch))
    return MixingResult(scalars, arrays, np.array(losses, dtype=np.float64), np.array(weights), int(epoch))
