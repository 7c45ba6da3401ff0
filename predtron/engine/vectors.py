"""Compiled passes of Algorithm 1 over vector instances (``t = W x``), one kernel per kind.

Every kernel runs the same loop (score a row, play the problem's round, update on a
non-zero loss), with every option of the learners (averaging through ``U``, intercept,
loss-driven steps, both update rules, any visiting order), on the dense ``X`` (the CSR arrays
then ``None``) or, when ``X`` is ``None``, on the CSR matrix ``(data, indices, indptr)`` with
``p`` columns, whose rows' non-zeros alone are read and updated.  numba decides a test of an
argument against ``None`` from its type when it compiles, so a kernel compiled for CSR rows
holds no dense code and the other way round.  The loop's parts are inlined helpers; only the
round differs, so a fit compiles the kernel of
its problem's kind and nothing else (the Hamming and subset losses share one kernel; the
F-beta loss, whose oracle sorts, has its own, which a Hamming fit, the default, never
compiles: on a fresh machine that is seconds less before the background worker has the
kernel ready).  The few lines of the loop are written out in each kernel: a round passed to
one shared loop as a function value is compiled by numba as a call of its own (a Hamming
kernel built so took about half as long again to compile), and further layers of inlined
helpers also add to the compile time the worker spends before a fresh fit runs compiled.
Each helper serves one form of rows (``_scores_csr``, ``_scores_dense``, ...), and the kernel
tests the form before it calls one: numba removes a branch that the argument types decide
*before* it inlines helpers, and inlining copies a helper's code (a third of a kernel's compile
time), so a kernel copies only its own form's helpers.

A long CSR pass (its rows hold at least :data:`TRANSPOSE_RATIO` non-zeros per column of ``W``) runs
on feature-major copies of ``W`` and ``U`` (``(p + 1, d)``, made by :func:`feature_major` and copied
back by :func:`write_back` around the kernel): a non-zero then
reads its ``d`` weights from one or two cache lines instead of ``d`` rows ``8 p`` bytes apart, which
matters once ``W`` leaves the core's cache (100,000 features and 5 classes: 4 MB).  Every weight and
score gets the same additions in the same order on either layout, so the results are the same bit
for bit (``tests/test_sparse_pass.py``).

Each round is the arithmetic of the problem's ``_round`` (same tie rule, same update
direction, the update applied as ``alpha * (g_i * x_j)`` like NumPy's ``alpha * outer(g, x)``).
The scores are summed in a fixed order here and by BLAS in the NumPy path, so they can
differ in the last bit; decisions agree because ties are decided with the relative
:data:`~predtron.engine.spec.TIE_TOLERANCE`.

``weights`` (the last argument): one weight per instance, or empty for Algorithm 1's rounds.  A
round of weight ``w`` suffers ``w`` times its loss and steps ``eta w`` (the weighted NumPy scan's
rule); the caller leaves the instances of weight 0, which are no rounds, out of ``order``.

A kernel allocates nothing and returns plain integers: its caller (:func:`predtron.engine.run.run_pass`)
hands it the scratch arrays of a round (the scores ``t``, the update direction ``g``, the round's
work), the arrays ``rounds`` and ``losses`` whose front it fills with the mistake rounds (1-based,
relative) and their losses, and the layout ``WU`` (the feature-major copies, or :data:`ROW_MAJOR`);
it returns ``(rounds done, mistakes, status)``, status 1 when the scores stopped being finite at the
last round.  Allocating, slicing and returning arrays in a kernel compiles numba's array machinery
into it: the multilabel kernel took twice as long to compile (2.7 s against 1.4 s), time a fresh
environment's first fit waits for.
"""

from __future__ import annotations

import numpy as np

from predtron.engine.fbeta import fbeta_loss, fbeta_oracle
from predtron.engine.jit import jit, jit_inline, jit_sum
from predtron.engine.spec import TIE_TOLERANCE, Kind

#: The subset loss of :func:`pass_multilabel` (a plain integer, a constant to numba).
_SUBSET = int(Kind.SUBSET)


@jit_sum
def _dot(a, b, n):
    """``sum_j a[j] b[j]`` over the first ``n`` entries (vectorised)."""
    acc = 0.0
    for j in range(n):
        acc += a[j] * b[j]
    return acc


@jit
def first_argmax(values):
    """First index within the relative tie tolerance of the maximum."""
    top = values[0]
    low = values[0]
    for i in range(1, values.shape[0]):
        v = values[i]
        if v > top:
            top = v
        if v < low:
            low = v
    threshold = top - TIE_TOLERANCE * max(top, -low)
    for i in range(values.shape[0]):
        if values[i] >= threshold:
            return i
    return 0


#: A sparse pass copies ``W`` (and ``U``) to feature-major copies when its rows hold at least this
#: many non-zeros per column of ``W``: the copies (forth and back) cost about ``2 d (p + 1)`` moves,
#: and each non-zero then reads its ``d`` weights from one cache line instead of ``d`` rows far apart.
TRANSPOSE_RATIO = 2


def transpose_pays(indptr: np.ndarray | None, order: np.ndarray, p: int, d: int) -> bool:
    """Whether the sparse pass over the rows ``order`` runs on feature-major copies of ``W`` (never
    for dense rows, ``indptr`` ``None``, nor for one score)."""
    if indptr is None or d < 2:
        return False
    entries = int(np.sum(indptr[order + 1] - indptr[order]))
    return entries >= TRANSPOSE_RATIO * (p + 1)


def feature_major(W: np.ndarray, U: np.ndarray) -> np.ndarray:
    """``[W.T, U.T]`` side by side as one C-contiguous copy (``(p + 1, d)``, or ``(p + 1, 2 d)`` when
    averaging: a feature's ``d`` weights, then its ``d`` entries of ``U``, so an update of ``U``
    finds its line next to the one the scores just read)."""
    d = W.shape[0]
    averaging = U.shape[0] > 0
    WU = np.empty((W.shape[1], 2 * d if averaging else d))
    WU[:, :d] = W.T
    if averaging:
        WU[:, d:] = U.T
    return WU


def write_back(W: np.ndarray, U: np.ndarray, WU: np.ndarray) -> None:
    """Copy the feature-major ``WU`` of :func:`feature_major` back into ``W`` and ``U``."""
    d = W.shape[0]
    W[...] = WU[:, :d].T
    if U.shape[0] > 0:
        U[...] = WU[:, d:].T


#: The layout of a pass that does not run on feature-major copies (a dense one, or a short sparse one).
ROW_MAJOR = np.empty((0, 0))


@jit_inline
def _scores_dense(t, W, X, p, row, intercept):
    """``t = W x_row`` (plus the bias column) for a dense row; whether every score is finite."""
    d = t.shape[0]
    for i in range(d):
        t[i] = _dot(W[i], X[row], p) + (W[i, p] if intercept else 0.0)
    for i in range(d):
        if not np.isfinite(t[i]):
            return False
    return True


@jit_inline
def _scores_csr(t, W, WU, data, indices, indptr, p, row, intercept):
    """``t = W x_row`` (plus the bias column) for a CSR row, on ``W`` or on its feature-major copy
    ``WU`` (when not empty: ``W``'s ``d`` columns first, as :func:`feature_major` makes them) with
    the same additions in the same order (each score from 0, a product per non-zero in the row's
    order, then the bias), so the same scores bit for bit; whether every score is finite."""
    d = t.shape[0]
    for i in range(d):
        t[i] = 0.0
    if WU.shape[0] > 0:  # one vectorised loop over a feature's weights per non-zero
        for q in range(indptr[row], indptr[row + 1]):
            j = indices[q]
            xj = data[q]
            for i in range(d):
                t[i] += WU[j, i] * xj
        if intercept:
            for i in range(d):
                t[i] += WU[p, i]
    else:
        for q in range(indptr[row], indptr[row + 1]):
            j = indices[q]
            xj = data[q]
            for i in range(d):
                t[i] += W[i, j] * xj
        if intercept:
            for i in range(d):
                t[i] += W[i, p]
    for i in range(d):
        if not np.isfinite(t[i]):
            return False
    return True


@jit_inline
def _scores_csr_few(t, W, WU, data, indices, indptr, p, row, intercept):
    """:func:`_scores_csr` for the kernels whose scores are few (classes, a finite problem's
    dimensions): up to eight on the feature-major copy, they are summed in registers in one sweep of
    the row (a score held in memory would wait on its own store at every non-zero), with the same
    additions in the same order.  The multilabel kernels, whose labels are usually more, do not
    compile this."""
    d = t.shape[0]
    if d > 8 or WU.shape[0] == 0:
        return _scores_csr(t, W, WU, data, indices, indptr, p, row, intercept)
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
    for q in range(indptr[row], indptr[row + 1]):
        j = indices[q]
        x = data[q]
        a0 += WU[j, 0] * x
        if d > 1:
            a1 += WU[j, 1] * x
            if d > 2:
                a2 += WU[j, 2] * x
                if d > 3:
                    a3 += WU[j, 3] * x
                    if d > 4:
                        a4 += WU[j, 4] * x
                        if d > 5:
                            a5 += WU[j, 5] * x
                            if d > 6:
                                a6 += WU[j, 6] * x
                                if d > 7:
                                    a7 += WU[j, 7] * x
    t[0] = a0
    if d > 1:
        t[1] = a1
    if d > 2:
        t[2] = a2
    if d > 3:
        t[3] = a3
    if d > 4:
        t[4] = a4
    if d > 5:
        t[5] = a5
    if d > 6:
        t[6] = a6
    if d > 7:
        t[7] = a7
    for i in range(d):
        if intercept:
            t[i] += WU[p, i]
        if not np.isfinite(t[i]):
            return False
    return True


@jit_inline
def _move_dense(W, U, g, X, p, row, alpha, alpha_u, intercept):
    """``W += alpha A_x^*(g)`` and ``U += alpha_u A_x^*(g)`` (when averaging) for a dense row, one
    row of ``W`` at a time with its coefficient in a register; rows with ``g_i = 0`` are unchanged."""
    averaging = U.shape[0] > 0
    for i in range(W.shape[0]):
        gi = g[i]
        if gi == 0:  # adding alpha * (0 * x) would change nothing
            continue
        for j in range(p):
            W[i, j] += alpha * (gi * X[row, j])
        if averaging:
            for j in range(p):
                U[i, j] += alpha_u * (gi * X[row, j])
        if intercept:
            W[i, p] += alpha * gi
            if averaging:
                U[i, p] += alpha_u * gi


@jit_inline
def _move_csr(W, U, WU, g, data, indices, indptr, p, row, alpha, alpha_u, intercept):
    """:func:`_move_dense` for a CSR row, whose non-zeros alone are updated, on ``W`` and ``U`` or on
    their feature-major copy ``WU`` (when not empty: ``W``'s ``d`` columns, then ``U``'s when
    averaging): every weight gets the same additions in the same order (a feature repeated in the
    row: in the row's order), one sweep of the row per moved score, its coefficient in a register."""
    d = g.shape[0]
    averaging = U.shape[0] > 0
    lo, hi = indptr[row], indptr[row + 1]
    if WU.shape[0] > 0:
        for i in range(d):
            gi = g[i]
            if gi == 0:  # adding alpha * (0 * x) would change nothing
                continue
            for q in range(lo, hi):
                WU[indices[q], i] += alpha * (gi * data[q])
            if averaging:
                for q in range(lo, hi):
                    WU[indices[q], d + i] += alpha_u * (gi * data[q])
        if intercept:
            for i in range(d):
                gi = g[i]
                if gi != 0:
                    WU[p, i] += alpha * gi
                    if averaging:
                        WU[p, d + i] += alpha_u * gi
        return
    for i in range(d):
        gi = g[i]
        if gi == 0:
            continue
        for q in range(lo, hi):
            W[i, indices[q]] += alpha * (gi * data[q])
        if averaging:
            for q in range(lo, hi):
                U[i, indices[q]] += alpha_u * (gi * data[q])
        if intercept:
            W[i, p] += alpha * gi
            if averaging:
                U[i, p] += alpha_u * gi


@jit_inline
def _sweep_two(A, c0, f0, c1, f1, data, indices, lo, hi):
    """``A[j, c0] += f0 * x_j`` then ``A[j, c1] += f1 * x_j`` for the row's non-zeros in order (as
    ``alpha * (g_i * x_j)`` with ``f = (alpha, g_i)``), in one sweep of the row."""
    for q in range(lo, hi):
        j = indices[q]
        x = data[q]
        A[j, c0] += f0[0] * (f0[1] * x)
        A[j, c1] += f1[0] * (f1[1] * x)


@jit_inline
def _sweep_four(A, c0, c1, d, alpha, alpha_u, g0, g1, data, indices, lo, hi):
    """:func:`_sweep_two` of ``W``'s columns ``c0``, ``c1`` and ``U``'s (``d`` further) in one sweep."""
    for q in range(lo, hi):
        j = indices[q]
        x = data[q]
        A[j, c0] += alpha * (g0 * x)
        A[j, c1] += alpha * (g1 * x)
        A[j, d + c0] += alpha_u * (g0 * x)
        A[j, d + c1] += alpha_u * (g1 * x)


@jit_inline
def _move_csr_pair(W, U, WU, g, data, indices, indptr, p, row, alpha, alpha_u, intercept):
    """:func:`_move_csr` where a mistake moves two classes (a multiclass round: the chosen class and
    the correct one): on the feature-major copy, both, with their ``U`` entries, in one sweep of the
    row (the same additions in the same order on each weight).  Only the multiclass kernel compiles
    it: the other kinds' rounds move any number of scores."""
    d = g.shape[0]
    count, c0, c1 = 0, 0, 0
    for i in range(d):
        if g[i] != 0:
            if count == 0:
                c0 = i
            elif count == 1:
                c1 = i
            count += 1
    if count != 2 or WU.shape[0] == 0:
        _move_csr(W, U, WU, g, data, indices, indptr, p, row, alpha, alpha_u, intercept)
        return
    averaging = U.shape[0] > 0
    lo, hi = indptr[row], indptr[row + 1]
    if averaging:
        _sweep_four(WU, c0, c1, d, alpha, alpha_u, g[c0], g[c1], data, indices, lo, hi)
    else:
        _sweep_two(WU, c0, (alpha, g[c0]), c1, (alpha, g[c1]), data, indices, lo, hi)
    if intercept:
        for i in (c0, c1):
            WU[p, i] += alpha * g[i]
            if averaging:
                WU[p, d + i] += alpha_u * g[i]


@jit_inline
def _record(rounds, losses, mistakes, r, loss, eta, loss_driven, tau0, weights, row):
    """Note the mistake of round ``r``; the steps ``(alpha, alpha_u)`` of its update.  With
    ``weights`` (one per instance, else empty), the round of ``row`` weighs ``w = weights[row]``:
    its loss counts ``w`` times and its step is ``eta w``, the arithmetic of the weighted NumPy
    scan (``w = 1`` changes no bit)."""
    weight = weights[row] if weights.shape[0] > 0 else 1.0
    rounds[mistakes] = r + 1
    losses[mistakes] = weight * loss
    step = eta * weight * (loss if loss_driven else 1.0)
    return -step, -step * (tau0 + r + 1)


@jit
def pass_binary(X, data, indices, indptr, p, order, W, U, labels, alpha_pos, alpha_neg, eta, use_oracle,
                loss_driven, intercept, tau0, weights, rounds, losses):
    """One pass of :attr:`~predtron.engine.spec.Kind.BINARY` over the rows ``order``: the round
    of ``Binary._round`` on the one score ``t = <w, x>``, with ``t``, ``g`` and the step
    coefficient in registers (``W`` has one row)."""
    n = order.shape[0]
    averaging = U.shape[0] > 0
    mistakes = 0
    for r in range(n):
        row = order[r]
        t = 0.0
        if indptr is not None:
            for q in range(indptr[row], indptr[row + 1]):
                t += W[0, indices[q]] * data[q]
            if intercept:
                t += W[0, p]
        if X is not None:
            t = _dot(W[0], X[row], p) + (W[0, p] if intercept else 0.0)
        if not np.isfinite(t):
            return r, mistakes, 1
        label = labels[row, 0]
        sigma = 1 if t >= 0 else -1
        if sigma == label:
            continue
        loss = alpha_pos if label == 1 else alpha_neg
        chosen = sigma
        if use_oracle:
            chosen = -label if loss - 2.0 * label * t > 0 else label
        g = float(chosen) - float(label)
        alpha, alpha_u = _record(rounds, losses, mistakes, r, loss, eta, loss_driven, tau0, weights, row)
        mistakes += 1
        if g == 0:  # adding alpha * (0 * x) would change nothing
            continue
        if indptr is not None:
            for q in range(indptr[row], indptr[row + 1]):
                W[0, indices[q]] += alpha * (g * data[q])
            if averaging:
                for q in range(indptr[row], indptr[row + 1]):
                    U[0, indices[q]] += alpha_u * (g * data[q])
        if X is not None:
            for j in range(p):
                W[0, j] += alpha * (g * X[row, j])
            if averaging:
                for j in range(p):
                    U[0, j] += alpha_u * (g * X[row, j])
        if intercept:
            W[0, p] += alpha * g
            if averaging:
                U[0, p] += alpha_u * g
    return n, mistakes, 0


@jit_inline
def _multiclass_round(t, label, L, correct, use_oracle, g, work):
    """:attr:`~predtron.engine.spec.Kind.MULTICLASS`: ``Multiclass._round``."""
    d = g.shape[0]
    sigma = first_argmax(t)
    loss = L[sigma, label]
    if loss == 0:
        return 0.0
    cy = correct[label]
    chosen = sigma
    if use_oracle:
        for i in range(d):
            work[i] = L[i, label] + (t[i] - t[cy])
        chosen = first_argmax(work[:d])
    for i in range(d):
        g[i] = 0.0
    g[chosen] += 1.0
    g[cy] -= 1.0
    return loss


@jit
def pass_multiclass(X, data, indices, indptr, p, order, W, U, labels, L, correct, eta, use_oracle, loss_driven,
                    intercept, tau0, weights, WU, t, g, work, rounds, losses):
    """One pass of :attr:`~predtron.engine.spec.Kind.MULTICLASS` over the rows ``order``."""
    n = order.shape[0]
    mistakes = 0
    for r in range(n):
        row = order[r]
        if indptr is not None:  # (numba keeps the branch of the form given, before it inlines a helper)
            finite = _scores_csr_few(t, W, WU, data, indices, indptr, p, row, intercept)
        if X is not None:
            finite = _scores_dense(t, W, X, p, row, intercept)
        if not finite:
            return r, mistakes, 1
        loss = _multiclass_round(t, labels[row, 0], L, correct, use_oracle, g, work)
        if loss == 0:
            continue
        alpha, alpha_u = _record(rounds, losses, mistakes, r, loss, eta, loss_driven, tau0, weights, row)
        mistakes += 1
        if indptr is not None:
            _move_csr_pair(W, U, WU, g, data, indices, indptr, p, row, alpha, alpha_u, intercept)
        if X is not None:
            _move_dense(W, U, g, X, p, row, alpha, alpha_u, intercept)
    return n, mistakes, 0


@jit_inline
def _finite_round(t, column, reps, L, correct, use_oracle, g, work):
    """:attr:`~predtron.engine.spec.Kind.FINITE`: ``FiniteProblem._round`` (scores of the
    predictions ``<rep(s), t>`` in ``work[:k]``, the oracle's in ``work[k:2k]``)."""
    d = g.shape[0]
    k = reps.shape[0]
    for s in range(k):
        acc = 0.0
        for i in range(d):
            acc += reps[s, i] * t[i]
        work[s] = acc
    sigma = first_argmax(work[:k])
    loss = L[sigma, column]
    if loss == 0:
        return 0.0
    cy = correct[column]
    chosen = sigma
    if use_oracle:
        base = work[cy]
        for s in range(k):
            work[k + s] = L[s, column] - (base - work[s])
        chosen = first_argmax(work[k:2 * k])
    for i in range(d):
        g[i] = reps[chosen, i] - reps[cy, i]
    return loss


@jit
def pass_finite(X, data, indices, indptr, p, order, W, U, labels, reps, L, correct, eta, use_oracle, loss_driven,
                intercept, tau0, weights, WU, t, g, work, rounds, losses):
    """One pass of :attr:`~predtron.engine.spec.Kind.FINITE` over the rows ``order``."""
    n = order.shape[0]
    mistakes = 0
    for r in range(n):
        row = order[r]
        if indptr is not None:  # (numba keeps the branch of the form given, before it inlines a helper)
            finite = _scores_csr_few(t, W, WU, data, indices, indptr, p, row, intercept)
        if X is not None:
            finite = _scores_dense(t, W, X, p, row, intercept)
        if not finite:
            return r, mistakes, 1
        loss = _finite_round(t, labels[row, 0], reps, L, correct, use_oracle, g, work)
        if loss == 0:
            continue
        alpha, alpha_u = _record(rounds, losses, mistakes, r, loss, eta, loss_driven, tau0, weights, row)
        mistakes += 1
        if indptr is not None:
            _move_csr(W, U, WU, g, data, indices, indptr, p, row, alpha, alpha_u, intercept)
        if X is not None:
            _move_dense(W, U, g, X, p, row, alpha, alpha_u, intercept)
    return n, mistakes, 0


@jit_inline
def _fbeta_round(t, labels, row, scale, coef, beta2, use_oracle, g):
    """:attr:`~predtron.engine.spec.Kind.FBETA`: the F-beta round of ``Multilabel``."""
    d = g.shape[0]
    a, b, P = 0, 0, 0
    for j in range(d):
        yj = labels[row, j]
        on = 1 if t[j] >= 0 else 0
        P += yj
        a += on * yj
        b += on * (1 - yj)
    loss = fbeta_loss(a, b, P, beta2)
    if loss == 0:
        return 0.0
    if use_oracle:
        chosen = fbeta_oracle(t, labels[row], coef, beta2)
        for j in range(d):
            g[j] = (2.0 * chosen[j] - 1.0) * scale - (2.0 * labels[row, j] - 1.0) * scale
    else:
        for j in range(d):
            on = 1.0 if t[j] >= 0 else 0.0
            g[j] = (2.0 * on - 1.0) * scale - (2.0 * labels[row, j] - 1.0) * scale
    return loss


@jit_inline
def _multilabel_round(kind, t, labels, row, scale, unit, normalize, use_oracle, g, work):
    """:attr:`~predtron.engine.spec.Kind.HAMMING` / ``SUBSET``: ``Multilabel._round`` (the gains
    ``a_j`` of ``Multilabel._gains`` in ``work[:d]``, the oracle's labels in ``work[d:2d]``)."""
    subset = kind == _SUBSET
    d = g.shape[0]
    wrong = 0
    for j in range(d):
        if (1 if t[j] >= 0 else 0) != labels[row, j]:
            wrong += 1
    if wrong == 0:
        return 0.0
    if subset:
        loss = 1.0
    else:
        loss = wrong / d if normalize else float(wrong)
    for j in range(d):
        work[j] = 2.0 * (2.0 * labels[row, j] - 1.0) * t[j] * scale
    for j in range(d):
        chosen = 1 if t[j] >= 0 else 0
        if use_oracle:
            flip = work[j] < 0 if subset else unit - work[j] > 0
            chosen = 1 - labels[row, j] if flip else labels[row, j]
        work[d + j] = chosen
    if use_oracle and subset:
        any_error = False
        for j in range(d):
            if work[j] < 0:
                any_error = True
        if not any_error:
            best = 0
            for j in range(1, d):
                if work[j] < work[best]:
                    best = j
            work[d + best] = 1 - labels[row, best]
        value = 1.0
        for j in range(d):
            if work[d + j] != labels[row, j]:
                value -= work[j]
        if not value > 0:
            for j in range(d):
                work[d + j] = labels[row, j]
    for j in range(d):
        g[j] = (2.0 * work[d + j] - 1.0) * scale - (2.0 * labels[row, j] - 1.0) * scale
    return loss


@jit
def pass_multilabel(X, data, indices, indptr, p, order, W, U, labels, kind, scale, unit, normalize, eta, use_oracle,
                    loss_driven, intercept, tau0, weights, WU, t, g, work, rounds, losses):
    """One pass of the multilabel ``kind`` (:attr:`~predtron.engine.spec.Kind.HAMMING` or
    ``SUBSET``, as an integer) over the rows ``order``."""
    n = order.shape[0]
    mistakes = 0
    for r in range(n):
        row = order[r]
        if indptr is not None:  # (numba keeps the branch of the form given, before it inlines a helper)
            finite = _scores_csr(t, W, WU, data, indices, indptr, p, row, intercept)
        if X is not None:
            finite = _scores_dense(t, W, X, p, row, intercept)
        if not finite:
            return r, mistakes, 1
        loss = _multilabel_round(kind, t, labels, row, scale, unit, normalize, use_oracle, g, work)
        if loss == 0:
            continue
        alpha, alpha_u = _record(rounds, losses, mistakes, r, loss, eta, loss_driven, tau0, weights, row)
        mistakes += 1
        if indptr is not None:
            _move_csr(W, U, WU, g, data, indices, indptr, p, row, alpha, alpha_u, intercept)
        if X is not None:
            _move_dense(W, U, g, X, p, row, alpha, alpha_u, intercept)
    return n, mistakes, 0


@jit
def pass_fbeta(X, data, indices, indptr, p, order, W, U, labels, scale, coef, beta2, eta, use_oracle, loss_driven,
               intercept, tau0, weights, WU, t, g, rounds, losses):
    """One pass of :attr:`~predtron.engine.spec.Kind.FBETA` over the rows ``order``: a kernel of its
    own, so that a Hamming or subset fit never compiles the F-beta oracle's sorts (seconds of
    compilation)."""
    n = order.shape[0]
    mistakes = 0
    for r in range(n):
        row = order[r]
        if indptr is not None:  # (numba keeps the branch of the form given, before it inlines a helper)
            finite = _scores_csr(t, W, WU, data, indices, indptr, p, row, intercept)
        if X is not None:
            finite = _scores_dense(t, W, X, p, row, intercept)
        if not finite:
            return r, mistakes, 1
        loss = _fbeta_round(t, labels, row, scale, coef, beta2, use_oracle, g)
        if loss == 0:
            continue
        alpha, alpha_u = _record(rounds, losses, mistakes, r, loss, eta, loss_driven, tau0, weights, row)
        mistakes += 1
        if indptr is not None:
            _move_csr(W, U, WU, g, data, indices, indptr, p, row, alpha, alpha_u, intercept)
        if X is not None:
            _move_dense(W, U, g, X, p, row, alpha, alpha_u, intercept)
    return n, mistakes, 0
