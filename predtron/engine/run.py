"""One pass of Algorithm 1 for an :class:`~predtron.engine.spec.EngineSpec`: the engine's entry point."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from predtron.engine import vectors
from predtron.engine.grade_dp import scratch_sizes
from predtron.engine.jit import Tiered, discard_early_worker, encode_signature
from predtron.engine.ranking import _FEW_GRADES, pass_documents
from predtron.engine.spec import EngineSpec, Kind
from predtron.engine.vectors import pass_binary, pass_fbeta, pass_finite, pass_multiclass, pass_multilabel

#: The weights of an unweighted pass.
_NO_WEIGHTS = np.empty(0)

#: The grade programme's states that a ranking pass holds at first (32 KB of ``best``): a query of up to
#: about 30 documents in three grades, or 60 in two, needs no more, so that a short pass (a
#: ``partial_fit`` of a few queries) calls its kernel once; a pass that needs more grows them.
_STATES = 4096

#: Rounds run by the NumPy block scan after which a pass kernel is compiled: a NumPy round
#: with a mistake costs tens of microseconds (a query with its oracle, about a millisecond),
#: a compilation a few seconds.
ROUNDS_BEFORE_COMPILING = 50_000
QUERIES_BEFORE_COMPILING = 3_000


def _no_kernel(*args) -> None:
    return None


def _rounds(*args) -> int:
    return args[5].shape[0]  # ``order``, the sixth argument of every vector pass


def _queries(*args) -> int:
    return args[6].shape[0]  # ``order`` of the document pass


_PASSES = {  # priority 1: compiled before the small kernels by the background worker
    Kind.BINARY: Tiered(pass_binary, _no_kernel, _rounds, ROUNDS_BEFORE_COMPILING, 1),
    Kind.MULTICLASS: Tiered(pass_multiclass, _no_kernel, _rounds, ROUNDS_BEFORE_COMPILING, 1),
    Kind.FINITE: Tiered(pass_finite, _no_kernel, _rounds, ROUNDS_BEFORE_COMPILING, 1),
    Kind.HAMMING: Tiered(pass_multilabel, _no_kernel, _rounds, ROUNDS_BEFORE_COMPILING, 1),
    Kind.FBETA: Tiered(pass_fbeta, _no_kernel, _rounds, ROUNDS_BEFORE_COMPILING, 1),
    Kind.RANKING: Tiered(pass_documents, _no_kernel, _queries, QUERIES_BEFORE_COMPILING, 1),
}
_PASSES[Kind.SUBSET] = _PASSES[Kind.HAMMING]  # one kernel for the Hamming and subset losses

#: The pass kernels in the order a fresh environment asks the background worker for them at import
#: (:func:`prefetch_passes`): those whose NumPy scan costs the most next to the kernel first.  A
#: multilabel round scores, rounds and moves every label (the bibtex fit of the estimators: 8 s in
#: NumPy, 0.34 s compiled); a ranking round runs its oracle on a whole query, then the vector
#: kinds by the number of scores a round handles; the F-beta and finite kinds, rarer, last.
PREFETCH_ORDER = (Kind.HAMMING, Kind.RANKING, Kind.MULTICLASS, Kind.BINARY, Kind.FBETA, Kind.FINITE)

#: The argument types the package's fits hand each pass kernel (:func:`pass_signatures` after the
#: workloads of ``predtron compile``; ``tests/test_background_compile.py`` keeps them equal), a CSR
#: input's first: what :func:`prefetch_passes` asks for.
SIGNATURES_FILE = Path(__file__).with_name("pass_signatures.json")


def pass_signatures() -> dict[str, list]:
    """The signatures each pass kernel is compiled for in this process (from numba's dispatchers),
    encoded by :func:`~predtron.engine.jit.encode_signature`, by kernel name in
    :data:`PREFETCH_ORDER`; for each kernel, a CSR input's first (``X`` is ``None``)."""
    out: dict[str, list] = {}
    for kind in PREFETCH_ORDER:
        kernel = _PASSES[kind].kernel
        encoded = [encode_signature(signature) for signature in kernel.overloads]
        out[kernel.__name__] = sorted(encoded, key=lambda sig: (sig[0] != ["none"], json.dumps(sig)))
    return out


def signatures_text(signatures: dict[str, list]) -> str:
    """:data:`SIGNATURES_FILE`'s text for ``signatures``: JSON, one signature per line."""
    kernels = [f"{json.dumps(name)}: [\n" + ",\n".join(f"  {json.dumps(sig)}" for sig in sigs) + "\n]"
               if sigs else f"{json.dumps(name)}: []" for name, sigs in signatures.items()]
    return "{\n" + ",\n".join(kernels) + "\n}\n"


def _signatures_asked_ahead() -> dict[str, list]:
    """:data:`SIGNATURES_FILE` read: the encoded signatures (lists) of each pass kernel by name, or
    nothing when the file is missing, not JSON, or not of that form (a damaged installation asks
    nothing ahead of need; its imports still work)."""
    try:
        signatures = json.loads(SIGNATURES_FILE.read_text())
    except (OSError, ValueError):  # an installation without the file: nothing ahead
        return {}
    if not isinstance(signatures, dict) or not all(
            isinstance(sigs, list) and all(isinstance(sig, list) for sig in sigs) for sigs in signatures.values()):
        return {}
    return signatures


def prefetch_passes() -> int:
    """In a fresh environment, ask the background worker for every pass kernel ahead of need
    (:meth:`~predtron.engine.jit.Tiered.prefetch`, in :data:`PREFETCH_ORDER`); the number of
    requests made (0 when the kernels are cached, or compiled otherwise).  When it makes none, the
    worker that the engine's import started early (:func:`predtron.engine._launch.start_early`, the
    cache judged fresh) is ended: nothing else would adopt it before a kernel is missing, and it would
    sit idle as long as this process lives (a request then starts a worker as usual)."""
    signatures = _signatures_asked_ahead()
    made = sum(_PASSES[kind].prefetch(signatures.get(_PASSES[kind].kernel.__name__, [])) for kind in PREFETCH_ORDER)
    if not made:
        discard_early_worker()
    return made


def _forms(inputs) -> tuple:
    """``(X, data, indices, indptr, p)`` of the kernels for ``inputs``: a dense ``X`` and ``None``
    for the CSR arrays, or ``None`` for ``X`` and the CSR arrays (a kernel compiled for one form
    holds none of the other's code)."""
    if inputs.sparse:
        X = inputs.X
        return (None, X.data, X.indices, X.indptr, inputs.n_features)
    return (inputs.X, None, None, None, inputs.X.shape[1])


def run_pass(spec: EngineSpec, inputs, order: np.ndarray, W: np.ndarray, U: np.ndarray, eta: float,
             use_oracle: bool, loss_driven: bool, tau0: int, ready_only: bool = False,
             weights: np.ndarray | None = None):
    """One pass of Algorithm 1 over the instances ``order`` (int64) of ``inputs``.

    ``W`` (and ``U = sum_tau tau Delta_tau`` when averaging, else an empty array of the same
    number of dimensions) are updated in place; ``tau0`` is the number of rounds before this
    pass.  ``inputs`` are what the problem's scoring makes: ``X`` (dense, or CSR with
    ``n_features``), ``sparse``, ``intercept`` and, for :attr:`Kind.RANKING`, the query
    ``offsets``.  Returns ``(rounds done, mistakes, mistake rounds, their losses, status)``
    (status 1: the scores stopped being finite), or ``None`` when the compiled kernel is not
    used (see :mod:`predtron.engine.jit`) or the inputs hold no matrix ``X`` (another
    scoring's): the caller then runs its NumPy block scan.  With ``ready_only``, the kernel runs only
    if it is ready without compiling (:meth:`~predtron.engine.jit.Tiered.if_ready`): how a scan
    hands the rest of its pass over.  ``weights`` (float64, one per instance, or per query for
    :attr:`Kind.RANKING`) weigh the rounds; ``order`` must then hold no instance of weight 0.
    """
    if getattr(inputs, "X", None) is None:
        return None
    forms = _forms(inputs)
    tier = _PASSES[spec.kind]
    weights = _NO_WEIGHTS if weights is None else weights
    if spec.kind == Kind.RANKING:
        return _pass_queries(tier, forms, inputs.offsets, order, W, U, spec, eta, use_oracle, loss_driven, tau0,
                             weights, ready_only)
    n, d = order.shape[0], W.shape[0]
    rounds, losses = np.empty(n, dtype=np.int64), np.empty(n)
    options = (eta, use_oracle, loss_driven, bool(inputs.intercept), tau0, weights)
    if spec.kind == Kind.BINARY:
        args = (*forms, order, W, U, spec.labels, *spec.costs, *options, rounds, losses)
        return _outcome(tier.kernel(*args), rounds, losses) if _chosen(tier, args, ready_only) else None
    if spec.kind == Kind.MULTICLASS:
        head = (spec.labels, spec.loss_matrix, spec.correct)
        work = (np.zeros(d),)
    elif spec.kind == Kind.FINITE:
        head = (spec.labels, spec.reps, spec.loss_matrix, spec.correct)
        work = (np.zeros(2 * spec.reps.shape[0]),)
    elif spec.kind == Kind.FBETA:
        head = (spec.labels, spec.scale, spec.coef, spec.beta2)
        work = ()
    else:
        head = (spec.labels, int(spec.kind), spec.scale, spec.unit, spec.normalize)
        work = (np.zeros(2 * d),)
    scratch = (np.zeros(d), np.zeros(d), *work, rounds, losses)  # the scores t, the direction g, the round's work
    args = (*forms, order, W, U, *head, *options, vectors.ROW_MAJOR, *scratch)
    if not _chosen(tier, args, ready_only):  # (decided on the row-major layout: the same types)
        return None
    if not vectors.transpose_pays(forms[3], order, forms[4], d):
        return _outcome(tier.kernel(*args), rounds, losses)
    WU = vectors.feature_major(W, U)  # a long sparse pass: on feature-major copies, copied back
    result = tier.kernel(*forms, order, W, U, *head, *options, WU, *scratch)
    vectors.write_back(W, U, WU)
    return _outcome(result, rounds, losses)


def _chosen(tier: Tiered, args: tuple, ready_only: bool) -> bool:
    """Whether the kernel runs ``args`` (:meth:`~predtron.engine.jit.Tiered.compiled`, or with
    ``ready_only`` :meth:`~predtron.engine.jit.Tiered.runs_ready`); else the caller's NumPy scan does."""
    return tier.runs_ready(args) if ready_only else tier.compiled(args)


def _outcome(result: tuple, rounds: np.ndarray, losses: np.ndarray) -> tuple:
    """What :func:`run_pass` returns from a vector kernel's ``(rounds done, mistakes, status)``: with
    the mistake rounds and losses the kernel wrote at the front of ``rounds`` and ``losses``."""
    done, mistakes, status = result
    return done, mistakes, rounds[:mistakes], losses[:mistakes], status


def _pass_queries(tier: Tiered, forms: tuple, offsets: np.ndarray, order: np.ndarray, w: np.ndarray, u: np.ndarray,
                  spec: EngineSpec, eta: float, use_oracle: bool, loss_driven: bool, tau0: int,
                  weights: np.ndarray, ready_only: bool):
    """:func:`run_pass` for :attr:`Kind.RANKING`: the work arrays of
    :func:`~predtron.engine.ranking.pass_documents` allocated here, and the kernel called again on
    the rest of ``order`` each time its grade programme asks for more scratch (status 2: the
    sizes it needs in ``needs``, the query it stopped at not played), after growing that scratch
    (``best`` and ``move``, of :data:`_STATES` at first, at least doubled, so that a pass grows them
    a few times at most): the same rounds, in the same order, on the same weights as one call with
    large enough scratch."""
    n, p = order.shape[0], forms[4]
    width = max(1, int(np.max(np.diff(offsets)))) if offsets.shape[0] > 1 else 1
    n_ints, n_floats = scratch_sizes(width)
    ints, floats = np.zeros(n_ints, dtype=np.int64), np.zeros(n_floats)
    best, move = np.zeros(_STATES), np.zeros(_STATES, dtype=np.int8)
    needs = np.zeros(3, dtype=np.int64)
    work = (np.zeros(width), np.zeros(width), np.zeros(width), np.zeros(width),  # t, g, keys, c
            *(np.zeros(width, dtype=np.int64) for _ in range(5)),  # by_pred, by_grade, chosen, sigma, sort_buf
            np.zeros(_FEW_GRADES + 1, dtype=np.int64), np.zeros(p))  # tally, adj
    rounds, losses = np.zeros(n, dtype=np.int64), np.zeros(n)
    head = (*forms, offsets)
    tail = (w, u, spec.labels, spec.gains, spec.f_table, spec.f_start, spec.alphas, spec.position_weights, eta,
            use_oracle, loss_driven)
    args = (*head, order, *tail, tau0, weights, *work, ints, floats, best, move, needs, rounds, losses)
    if not _chosen(tier, args, ready_only):
        return None
    done, mistakes, status = tier.kernel(*args)
    while status == 2:  # grow the programme's scratch, then the rest of the pass
        if needs[0] > ints.shape[0]:
            ints = np.zeros(needs[0], dtype=np.int64)
        if needs[1] > floats.shape[0]:
            floats = np.zeros(needs[1])
        if needs[2] > best.shape[0]:
            best = np.zeros(max(int(needs[2]), 2 * best.shape[0]))
            move = np.zeros(best.shape[0], dtype=np.int8)
        more, extra, status = tier.kernel(*head, order[done:], *tail, tau0 + done, weights, *work, ints, floats,
                                          best, move, needs, rounds[mistakes:], losses[mistakes:])
        rounds[mistakes:mistakes + extra] += done  # its rounds were relative to order[done:]
        done, mistakes = done + more, mistakes + extra
    return _outcome((done, mistakes, status), rounds, losses)
