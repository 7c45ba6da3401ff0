"""Iterative parameter mixing (McDonald, Hall and Mann, NAACL 2010) over a map of shards.

The loop knows nothing of where the shards live: it is given ``map_shards(function, arguments)``,
which applies ``function`` to every shard's argument tuple and returns the results in order (a
list comprehension in one process; :mod:`predtron.dask` submits the calls to a cluster and
gathers them).  A second distributed backend is one module that provides such a map.

The data are cut into shards, fixed by the data and the options (the partitions of a Dask
collection, or the files given), never by which worker is alive.  Every epoch:

1. each shard runs ONE pass of the core learner (:class:`~predtron.Predtron`), starting from
   the mixed parameters, over its own examples (in a new random order per epoch with
   ``shuffle=True``): :func:`shard_pass`, a pure function of (parameters, shard, epoch
   shard's order of the epoch), so that a backend may run it anywhere and run it again when a
   worker dies;
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
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from predtron._estimator import EpochOrders, run_epochs
from predtron._files import atomic_path
from predtron._seal import check_folder, check_fresh_folder, check_sealed, sealed, state_files, state_pattern
from predtron._state import run_differences
from predtron._validation import check_choice, check_int, check_random_state, excerpt

__all__ = ["MixingResult", "PassResult", "check_checkpoint_folder", "iterative_parameter_mixing", "local_map",
           "mix_states", "mixing_weights", "read_checkpoint", "shard_orders", "shard_pass", "write_checkpoint"]

MIXINGS = ("uniform", "loss")


class PassResult(NamedTuple):
    """What :func:`shard_pass` returns for one shard and one epoch."""

    scalars: dict
    arrays: dict
    orders: EpochOrders | None
    n_rounds: int
    loss: float


class MixingResult(NamedTuple):
    """The outcome of :func:`iterative_parameter_mixing`.

    Attributes
    ----------
    scalars, arrays : dict, dict
        The mixed learner's state (the core learner's ``get_state`` format).
    shard_losses : ndarray of shape (n_epochs, n_shards)
        Loss every shard suffered in every epoch's pass.
    weights : ndarray of shape (n_epochs, n_shards)
        The mixing weights ``mu`` of every epoch.
    n_epochs : int
        Epochs made (fewer than asked when ``stop`` ended the fit).
    orders : list
        Every shard's ``EpochOrders`` (the seeded orders of its passes) or ``None``, after the last epoch.
    totals : (float, int, int)
        The running cumulative loss, mistakes and updates (several shards).
    stopped : bool
        Whether the stopping rule ended the fit.
    """

    scalars: dict
    arrays: dict
    shard_losses: np.ndarray
    weights: np.ndarray
    n_epochs: int
    orders: list | None = None
    totals: tuple = (0.0, 0, 0)
    stopped: bool = False


def shard_pass(prototype, state: tuple[dict, dict] | None, shard: tuple, orders: EpochOrders | None,
               epoch: int = 1, part: tuple[int, int] = (0, 1)) -> PassResult:
    """One pass of the core learner over one shard, from ``state`` (``None``: ``W_1 = 0``).

    A pure function of its arguments: the learner is a copy of ``prototype`` restored from
    ``state`` through its public state API, and ``orders`` is copied before it draws the epoch's
    permutation (:func:`predtron._estimator.epoch_order` of the shard), so a backend may run it
    again (a retry after a lost worker) and get the same result.

    Parameters
    ----------
    prototype : OnlineLearner
        An unfitted core learner with the fit's parameters.
    state : (dict, dict) or None
        ``(scalars, arrays)`` of the learner at the start of the pass.
    shard : tuple or streamed shard
        ``(X, target, split)``: the shard's prepared inputs, labels and ranking keywords; or a
        streamed shard, an object with ``n_examples`` and ``chunks(begin, end)`` (the prepared
        ``(X, target, split)`` chunks of its examples ``begin..end - 1`` in their order, e.g.
        ``predtron.dask.estimators.FileStream``), visited without shuffling: the learner's
        ``partial_fit`` over the chunks is the pass over the whole shard, so the two forms give
        the same result bit for bit.
    orders : EpochOrders or None
        The shard's orders (``None``: no shuffling); returned advanced in the result.
    epoch : int
        The epoch (from 1).
    part : (int, int)
        ``(r, R)``: visit only the ``r``-th of ``R`` consecutive segments of the epoch's order (a
        mixing round of :func:`iterative_parameter_mixing` with ``rounds=R``); ``(0, 1)``: the
        whole pass.
    """
    learner = copy.deepcopy(prototype)
    before_rounds, before_loss = 0, 0.0
    if state is not None:
        learner.set_state(*state)
        before_rounds, before_loss = learner.n_rounds_, learner.cumulative_loss_
    if not isinstance(shard, tuple):
        return _streamed_pass(learner, shard, orders, part, state is None, before_rounds, before_loss)
    X, target, split = shard
    order = None
    n = _n_examples(X, split)
    if orders is not None:
        orders = copy.deepcopy(orders)
        order = orders.order(epoch, n)
    if part == (0, 1):
        learner.partial_fit(X, target, order=order, **split)
    else:
        segment = np.array_split(np.arange(n) if order is None else order, part[1])[part[0]]
        if len(segment) == 0 and state is None:
            raise ValueError(f"a shard of {n} examples cannot be cut into {part[1]} mixing rounds; lower rounds")
        if len(segment):
            sub_X, sub_target, sub_split = _subset(X, target, split, segment)
            learner.partial_fit(sub_X, sub_target, **sub_split)
    scalars, arrays = learner.get_state()
    return PassResult(scalars, arrays, orders, learner.n_rounds_ - before_rounds,
                      learner.cumulative_loss_ - before_loss)


def _streamed_pass(learner, shard, orders, part: tuple[int, int], first: bool, before_rounds: int,
                   before_loss: float) -> PassResult:
    """:func:`shard_pass` over a streamed shard: its examples of the round's segment (the same
    segment of file order as an in-memory shard's), chunk by chunk through the learner's
    ``partial_fit``, the shard never held whole."""
    if orders is not None:
        raise ValueError("a streamed shard is visited in file order; shuffle=False")
    n = int(shard.n_examples)
    begin, end = _segment(n, part)
    if begin == end and first and part != (0, 1):
        raise ValueError(f"a shard of {n} examples cannot be cut into {part[1]} mixing rounds; lower rounds")
    if begin < end:
        for X, target, split in shard.chunks(begin, end):
            learner.partial_fit(X, target, **split)
    scalars, arrays = learner.get_state()
    return PassResult(scalars, arrays, None, learner.n_rounds_ - before_rounds, learner.cumulative_loss_ - before_loss)


def _segment(n: int, part: tuple[int, int]) -> tuple[int, int]:
    """``[begin, end)`` of the ``part[0]``-th of ``part[1]`` consecutive segments of ``n`` examples
    (the cut of :func:`numpy.array_split`, as :func:`shard_pass` cuts an in-memory shard's order)."""
    size, extra = divmod(n, part[1])
    begin = part[0] * size + min(part[0], extra)
    return begin, begin + size + (part[0] < extra)


def _subset(X, target, split: dict, examples: np.ndarray) -> tuple:
    """``(X, target, keywords)`` of the shard's ``examples`` in that order (queries for ranking)."""
    if "group" not in split:
        return X[examples], np.asarray(target)[examples], {}
    group = np.asarray(split["group"])
    offsets = np.concatenate([[0], np.cumsum(group)])
    rows = np.concatenate([np.arange(offsets[q], offsets[q + 1]) for q in examples])
    return X[rows], np.asarray(target)[rows], {"group": group[examples]}


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
    if losses.ndim != 1 or len(losses) == 0 or not np.all(np.isfinite(losses)) or np.any(losses < 0):
        raise ValueError(f"losses must be one finite, non-negative loss per shard (at least one shard); got "
                         f"{excerpt(losses)}")
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


def shard_orders(random_state, n_shards: int) -> list[EpochOrders]:
    """The orders of every shard: shard 0 draws as the serial ``fit`` (so one shard shuffles
    exactly as it), the others from independent children spawned from ``random_state``; fixed by
    ``random_state`` and the shard's index alone (:func:`~predtron._estimator.epoch_order`)."""
    base = copy.deepcopy(check_random_state(random_state))  # one draw of fresh entropy for None
    return [EpochOrders(base, shard) for shard in range(n_shards)]


def local_map(function, arguments: Sequence[tuple]) -> list:
    """``map_shards`` in this process: ``[function(*a) for a in arguments]``."""
    return [function(*a) for a in arguments]


def iterative_parameter_mixing(map_shards: Callable[[Callable, Sequence[tuple]], list], prototype,
                               shards: Sequence, epochs: int, *, mixing: str = "uniform", shuffle: bool = False,
                               random_state=None, stop: Callable[[int, float], bool] | None = None,
                               start: MixingResult | None = None, rounds: int = 1,
                               after_epoch: Callable[[MixingResult], None] | None = None) -> MixingResult:
    """Fit ``prototype``'s learner on ``shards`` by iterative parameter mixing, through the one
    epoch driver (:func:`predtron._estimator.run_epochs`).

    Parameters
    ----------
    map_shards : callable
        ``map_shards(function, arguments)``: ``[function(*a) for a in arguments]``, computed
        anywhere (:func:`local_map` here; :mod:`predtron.dask` on a cluster).
    prototype : OnlineLearner
        An unfitted core learner with the fit's parameters (its own ``shuffle`` is ignored:
        the permutations are drawn here, per shard and epoch).
    shards : sequence
        The prepared shards ``(X, target, split)`` (or the backend's handles of them), in their
        fixed order.
    epochs : int
        Largest number of epochs.
    mixing : {"uniform", "loss"}
        How the shards' parameters are weighted.
    shuffle : bool
        Visit every shard's examples in a new random order at every epoch.
    random_state : int, numpy Generator or None
        Seed of the permutations (see :func:`shard_orders`).
    stop : callable, optional
        ``stop(n_rounds, cumulative_loss)`` after every epoch with the mixed fit's running
        totals (:meth:`~predtron.learners.stopping.EarlyStopping.update`: with one shard, the
        numbers the serial fit's rule sees); ``True`` ends the fit.
    start : MixingResult, optional
        Continue from this result (a checkpoint's): its state, orders and epoch.
    rounds : int
        Mixing rounds per epoch: every shard's pass is cut into ``rounds`` consecutive segments of
        its order, and the parameters are mixed after each (``1``: once per epoch, McDonald et
        al.'s rule).  The book's proof of Theorem 1 for the mixed loss holds for any mixing
        round, so it holds for these too.  ``shard_losses`` then sums an epoch's rounds and
        ``weights`` holds the epoch's last round's weights.
    after_epoch : callable, optional
        Called with the result so far after every epoch (checkpoints, progress).
    """
    check_choice(mixing, "mixing", MIXINGS)
    rounds = check_int(rounds, "rounds", minimum=1)
    epochs = check_int(epochs, "epochs", minimum=1)
    n_shards = len(shards)
    if n_shards == 0:
        raise ValueError("shards must hold at least one shard")
    if start is not None and len(start.orders) != n_shards:
        raise ValueError(f"start was made on {len(start.orders)} shards; shards has {n_shards}")
    if start is None:
        orders: list = shard_orders(random_state, n_shards) if shuffle else [None] * n_shards
        state, tracked, losses, weights, done = None, [0.0, 0, 0], [], [], 0
    else:
        orders, state, done = list(start.orders), (start.scalars, start.arrays), start.n_epochs
        tracked = list(start.totals)
        losses, weights = [list(row) for row in start.shard_losses], [np.asarray(w) for w in start.weights]
    current = {"state": state, "stopped": False}

    def one_pass(epoch: int) -> None:
        nonlocal orders
        epoch_losses = np.zeros(n_shards)
        returned = orders
        for r in range(rounds):
            state = current["state"]
            begin = state if state is None or n_shards == 1 else _start_state(*state)
            results: list[PassResult] = map_shards(shard_pass, [
                (prototype, begin, shard, orders[i], epoch, (r, rounds)) for i, shard in enumerate(shards)])
            returned = [result.orders for result in results]
            round_losses = [result.loss for result in results]
            epoch_losses += round_losses
            mu = mixing_weights(round_losses, mixing)
            clock = (0 if state is None else int(state[0]["trace_n_rounds"])) + sum(r.n_rounds for r in results)
            for result in results:
                tracked[0] += result.scalars["trace_total"] if n_shards > 1 else 0.0
                tracked[1] += result.scalars["trace_n_nonzero"] if n_shards > 1 else 0
                tracked[2] += result.scalars["n_updates_"] if n_shards > 1 else 0
            current["state"] = mix_states(results, mu, clock, tuple(tracked))
        orders = returned
        losses.append(epoch_losses.tolist())
        weights.append(mu)

    def should_stop(epoch: int) -> bool:
        scalars = current["state"][0]
        current["stopped"] = stop is not None and stop(int(scalars["trace_n_rounds"]),
                                                       float(scalars["trace_total"])) is True
        return current["stopped"]

    def result(epoch: int) -> MixingResult:
        scalars, arrays = current["state"]
        return MixingResult(dict(scalars, n_epochs_=int(epoch)), arrays, np.array(losses, dtype=np.float64),
                            np.array(weights), int(epoch), orders, tuple(tracked), current["stopped"])

    hooks = () if after_epoch is None else (lambda epoch: after_epoch(result(epoch)),)
    epoch, _ = run_epochs(one_pass, epochs, first=done + 1, stop=should_stop, after=hooks)
    if current["state"] is None:
        raise ValueError(f"start has already made {done} epochs of {epochs}")
    return result(epoch)


# ------------------------------------------------------------------ checkpoints
CHECKPOINT_FORMAT = "predtron-mixing-checkpoint/2"  # 2: sealed (predtron._seal)
#: Checkpoints of format 1 (not sealed) are still read.
_FORMAT_1 = "predtron-mixing-checkpoint/1"
PROGRESS_FILE = "progress.json"
#: The files a checkpoint writes (and replaces, or removes when stale) in its folder, as glob patterns.
CHECKPOINT_FILES = (PROGRESS_FILE, state_pattern("mixing"))


def check_checkpoint_folder(directory) -> None:
    """Refuse a folder for a new checkpoint when writing one there would replace or remove a file that
    is not a checkpoint file of this package (:func:`predtron._seal.check_fresh_folder`); a folder
    that does not exist yet is fine; a path that is not a folder is refused."""
    directory = check_folder(directory, "checkpoint")
    if directory.is_dir():
        check_fresh_folder(directory, PROGRESS_FILE, ["mixing"], "shard_losses.npy",
                           "predtron-mixing-checkpoint/")


def write_checkpoint(directory, result: MixingResult, *, run: dict, stopping: dict | None = None) -> None:
    """Write ``result`` (the mixed state after an epoch) to ``directory``: ``mixing-k.npz`` (the
    arrays), then ``progress.json`` naming it (the one commit point: a crash at any moment leaves
    the previous complete checkpoint), then remove the other epochs' files.  ``run`` describes the
    data and options and must match on :func:`read_checkpoint`; ``stopping`` is the stopping rule's
    state.  npz + JSON, never pickle."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    model = f"mixing-{result.n_epochs}.npz"
    arrays = {f"state.{k}": np.asarray(v) for k, v in result.arrays.items()}
    arrays.update(shard_losses=np.asarray(result.shard_losses, dtype=np.float64),
                  weights=np.asarray(result.weights, dtype=np.float64))
    with atomic_path(directory / model, suffix=".tmp.npz") as temporary, open(temporary, "wb") as handle:
        np.savez(handle, **arrays)
    progress = {"format": CHECKPOINT_FORMAT, "epoch": int(result.n_epochs), "stopped": bool(result.stopped),
                "model": model, "scalars": result.scalars,
                "orders": [None if o is None else o.state() for o in result.orders],
                "totals": [float(result.totals[0]), int(result.totals[1]), int(result.totals[2])],
                "stopping": stopping, "run": run}
    with atomic_path(directory / PROGRESS_FILE) as temporary:
        temporary.write_text(json.dumps(sealed(progress, directory / model)))
    for stale in state_files(directory, "mixing"):  # the other epochs' states, never another file
        if stale.name != model:
            stale.unlink(missing_ok=True)


def read_checkpoint(directory, run: dict) -> tuple[MixingResult, dict | None]:
    """``(result, stopping state)`` of the checkpoint in ``directory``; refuses one of another run
    (``run`` differs), a damaged one (a missing or malformed entry, named) or none."""
    directory = Path(directory)
    path = directory / PROGRESS_FILE
    if not path.is_file():
        raise ValueError(f"resume: no checkpoint in {directory} (no {PROGRESS_FILE}); run without resume to start one")
    try:
        progress = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path} is not a readable checkpoint ({exc})") from None
    if not isinstance(progress, dict) or progress.get("format") not in (CHECKPOINT_FORMAT, _FORMAT_1):
        raise ValueError(f"{path} is not a predtron mixing checkpoint (format {CHECKPOINT_FORMAT!r})")
    if progress["format"] == CHECKPOINT_FORMAT:
        check_sealed(progress, path, directory / str(progress.get("model", "")))
    missing = [k for k in ("epoch", "stopped", "model", "scalars", "orders", "totals", "stopping", "run")
               if k not in progress]
    if missing:
        raise ValueError(f"{path} is a damaged checkpoint: it has no entry {', '.join(map(repr, missing))}")
    if progress["run"] != run:
        differs = run_differences(progress["run"], run)
        raise ValueError(f"the checkpoint in {directory} was written by another fit (it differs in: {differs}); "
                         "resume with the same data and options, or start afresh")
    epoch = progress["epoch"]
    if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
        raise ValueError(f"{path}: entry 'epoch' must be a whole number >= 1; got {epoch!r}")
    if progress["model"] != f"mixing-{epoch}.npz" or not isinstance(progress["scalars"], dict):
        raise ValueError(f"{path}: entries 'model' and 'scalars' must name epoch {epoch}'s state")
    _check_entries(path, progress)
    try:
        with np.load(directory / progress["model"], allow_pickle=False) as data:
            arrays = {k[len("state."):]: data[k] for k in data.files if k.startswith("state.")}
            losses, weights = data["shard_losses"], data["weights"]
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(f"{directory / progress['model']} is not a readable checkpoint state ({exc})") from None
    if losses.shape != weights.shape or losses.ndim != 2 or losses.shape[0] != epoch:
        raise ValueError(f"{directory / progress['model']}: the shard losses and weights must cover {epoch} epochs")
    try:
        orders = [None if o is None else EpochOrders.from_state(o) for o in progress["orders"]]
    except ValueError as exc:
        raise ValueError(f"{path}: entry 'orders': {exc}") from None
    totals = progress["totals"]
    result = MixingResult(progress["scalars"], arrays, losses, weights, epoch, orders,
                          (float(totals[0]), int(totals[1]), int(totals[2])), bool(progress["stopped"]))
    return result, progress["stopping"]


def _is_number(value, integral: bool = False) -> bool:
    kinds = (int,) if integral else (int, float)
    return isinstance(value, kinds) and not isinstance(value, bool)


def _check_entries(path: Path, progress: dict) -> None:
    """The types of a mixing checkpoint's entries (a hand-edited file is refused naming the entry)."""
    problems = []
    if not isinstance(progress["stopped"], bool):
        problems.append(("stopped", "true or false"))
    orders = progress["orders"]
    if not isinstance(orders, list) or not orders or not all(o is None or isinstance(o, dict) for o in orders):
        problems.append(("orders", "a list of one sample order (or null) per shard"))
    totals = progress["totals"]
    if not (isinstance(totals, list) and len(totals) == 3 and _is_number(totals[0])
            and _is_number(totals[1], True) and _is_number(totals[2], True)):
        problems.append(("totals", "[cumulative loss, mistakes, updates]"))
    from predtron.learners.stopping import EarlyStopping

    stopping = progress["stopping"]
    problem = None if stopping is None else EarlyStopping.state_problem(stopping)
    if problem is not None:
        problems.append(("stopping", f"null or the stopping rule's state (best, stall, rounds, total): {problem}"))
    if problems:
        name, expected = problems[0]
        raise ValueError(f"{path}: entry {name!r} must be {expected}; got {str(progress[name])[:80]}")
