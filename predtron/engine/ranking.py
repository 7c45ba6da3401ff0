"""Compiled pass of Algorithm 1 over queries of documents (subset ranking, Section 4).

The scores of a query are ``t = X_q w``; the prediction sorts them (ties within the relative
:data:`~predtron.engine.spec.TIE_TOLERANCE` to the lower document); the oracle is an exact
sort where the problem's ``f`` is an affine function of the position weights, else the
grade dynamic programme of :mod:`predtron.engine.grade_dp`.  The arithmetic is that of
:mod:`predtron.problems.ranking_batch` and ``RankingProblem._oracle``.

Like the vector passes (:mod:`predtron.engine.vectors`), the kernel allocates nothing and returns
plain integers: :func:`predtron.engine.run.run_pass` allocates its work arrays, the grade
programme's scratch and the mistake rounds and losses in NumPy.  A query whose programme needs
more scratch than the kernel holds ends the call (status 2, the sizes in ``needs``): the caller
grows the scratch and calls it again on the rest of the pass.  Its helpers (``_grade_order``,
and ``_sort_desc`` and ``_grade_dp`` of :mod:`~predtron.engine.grade_dp`) are compiled into it
only (:data:`~predtron.engine.jit.jit_callee`), and do not sort (the kernel sorts for them): a
helper's code is compiled again into every function that calls it.  Each allocation, Python
entry point and nested helper is compile time: the kernel took a third less processor time to
compile without them (dense or CSR rows: 2.8 s instead of 4.1 s).  (The grade programme's
scratch is in slices of ``ints`` and ``floats``: offsets into them compiled a little faster, but
the programme ran a quarter slower.)
"""

from __future__ import annotations

import numpy as np

from predtron.engine.grade_dp import _grade_dp, _sort_desc
from predtron.engine.jit import jit, jit_callee
from predtron.engine.spec import TIE_TOLERANCE
from predtron.engine.vectors import _dot

#: Largest grade for which :func:`_grade_order` counts instead of sorting.
_FEW_GRADES = 63


@jit_callee
def _grade_order(y, a, m, out, keys, tally):
    """``out[:m]``: the documents ``a .. a + m - 1`` by decreasing grade ``y``, ties in document
    order (the stable sort of ``-y``), by a counting sort when the grades are at most
    :data:`_FEW_GRADES` (returns ``True``); else the grades into ``keys[:m]`` and ``False``: the
    caller sorts them with :func:`~predtron.engine.grade_dp.sort_desc` (a helper that calls
    another has its code compiled again into it)."""
    top = 0
    for i in range(m):  # (no max(): numba compiles each builtin's overload as a function of its own)
        top = y[a + i] if y[a + i] > top else top
    if top > _FEW_GRADES:
        for i in range(m):
            keys[i] = y[a + i]
        return False
    for g in range(top + 1):
        tally[g] = 0
    for i in range(m):
        tally[y[a + i]] += 1
    start = 0
    for g in range(top, -1, -1):  # the first slot of each grade, highest grade first
        count = tally[g]
        tally[g] = start
        start += count
    for i in range(m):
        g = y[a + i]
        out[tally[g]] = i
        tally[g] += 1
    return True


@jit
def pass_documents(X, data, indices, indptr, p, offsets, order, w, u, y, v, f_flat, f_start, alphas, b, eta,
                   use_oracle, loss_driven, tau0, weights, t, g, keys, c, by_pred, by_grade, chosen, sigma,
                   sort_buf, tally, adj, ints, floats, best, move, needs, rounds, losses):
    """One pass over the queries ``order`` of a flat document matrix (``t = X_q w``).

    The round of ``RankingProblem._round`` on each query: the ideal DCG first (a query without
    a relevant document has loss 0 for every ranking and ends there), then the prediction's
    DCG, and on a mistake the oracle and ``g = rep(sigma~) - rep(sigma_y)``; the update
    ``X_q^T g`` adds the rows with ``g_i != 0`` (the others add zeros), each column's terms in
    document order.  The kernel allocates nothing (see :mod:`predtron.engine.vectors`): its
    caller, :func:`predtron.engine.run.run_pass`, hands it every array it works in.

    Parameters
    ----------
    X, data, indices, indptr : ndarray or None
        The dense document matrix ``X`` (the CSR arrays then ``None``) or, when ``X`` is
        ``None``, the CSR matrix ``(data, indices, indptr)``; numba compiles only the form given.
    p : int
        The number of features (columns).
    offsets : ndarray of int64
        Query ``q`` is the documents ``offsets[q]:offsets[q + 1]``.
    order : ndarray of int64
        The queries of the pass, in order.
    w, u : ndarray of float64
        The weights and, when averaging, ``sum_tau tau Delta_tau`` (else empty), updated in place.
    y, v : ndarray
        Every document's grade (int64) and gain (float64); ``v`` must be a non-decreasing
        function of ``y`` (every loss of :class:`~predtron.problems.ranking.RankingLoss` is), so
        that ``v`` in the order of ``sigma_y`` is ``v`` sorted decreasingly, the order of the
        ideal DCG.
    f_flat, f_start, alphas, b : ndarray
        The problem's ``f`` of every query size ``m`` (``f_flat[f_start[m]:f_start[m] + m]``),
        the exact sort's ``alphas[m]`` (NaN: the grade programme is the oracle) and the
        position weights ``b``.
    eta : float
        The step.
    use_oracle, loss_driven : bool
        The update rule and whether the step is scaled by the loss.
    tau0 : int
        The rounds before ``order[0]``.
    weights : ndarray of float64
        One weight per query (the rounds weighed as in the vector passes), or empty.
    t, g, keys, c : ndarray of float64
        Work arrays of at least ``width`` entries (the largest query's size): the scores, the
        update direction, sort keys, the oracle's item values.
    by_pred, by_grade, chosen, sigma, sort_buf : ndarray of int64
        Work arrays of at least ``width`` entries: the orders of the prediction, of the grades
        and of the oracle, the programme's ranking, a sort's scratch.
    tally : ndarray of int64
        ``_FEW_GRADES + 1`` entries: the counting sort of the grades.
    adj : ndarray of float64
        ``p`` entries: ``X_q^T g``.  Zeros for CSR rows, whose pass leaves them zeros (a dense
        pass sets them to zero before each update).
    ints, floats, best, move : ndarray
        The scratch of :func:`~predtron.engine.grade_dp.grade_dp_into`: ``ints`` (int64) and
        ``floats`` (float64) of at least :func:`~predtron.engine.grade_dp.scratch_sizes`
        ``(width)`` entries, ``best`` (float64) and ``move`` (int8) of any sizes.
    needs : ndarray of int64
        Three entries, written with status 2.
    rounds, losses : ndarray
        One entry per query of ``order`` (int64, float64): their fronts get the mistake rounds
        (1-based, relative to ``order``) and their losses.

    Returns
    -------
    done, mistakes, status : int
        The queries played, the mistakes among them and the status: 0 when the pass is whole,
        1 when the scores stopped being finite at query ``done``, 2 when the grade programme of
        query ``done`` needs more scratch than ``ints``, ``floats``, ``best`` and ``move`` hold.
        The sizes it needs are then in ``needs`` (ints, floats, states), nothing of that query
        has been played (the weights are those after the ``done`` queries before it), and the
        caller grows the scratch and runs the rest of ``order`` (``tau0`` advanced by ``done``).
    """
    n = order.shape[0]
    mistakes = 0
    averaging = u.shape[0] > 0
    for r in range(n):
        q = order[r]
        a, e = offsets[q], offsets[q + 1]
        m = e - a
        for i in range(m):
            if indptr is not None:
                acc = 0.0
                for k in range(indptr[a + i], indptr[a + i + 1]):
                    acc += data[k] * w[indices[k]]
                t[i] = acc
            if X is not None:
                t[i] = _dot(X[a + i], w, p)
            if not np.isfinite(t[i]):
                return r, mistakes, 1
        # sigma_y (the stable sort of y decreasingly) and the ideal DCG, summed in position order
        if not _grade_order(y, a, m, by_grade, keys, tally):
            _sort_desc(keys, m, by_grade, sort_buf)
        ideal = 0.0
        for pos in range(m):
            ideal += v[a + by_grade[pos]] * b[pos]
        if ideal == 0:
            continue
        # pred(t): sort the scores rounded to the relative tie tolerance, ties to the lower document
        scale = 0.0
        for i in range(m):
            s = -t[i] if t[i] < 0 else t[i]
            if s > scale:
                scale = s
        unit = scale * TIE_TOLERANCE
        unit = unit if unit > 0 else 1.0  # (all zero, or so small that the grid underflows: all tie)
        for i in range(m):
            keys[i] = np.rint(t[i] / unit)
        _sort_desc(keys, m, by_pred, sort_buf)
        distinct = True  # rounded scores all different: by_pred is also the order of t itself
        for pos in range(1, m):
            if keys[by_pred[pos]] == keys[by_pred[pos - 1]]:
                distinct = False
                break
        dcg = 0.0
        for pos in range(m):
            dcg += v[a + by_pred[pos]] * b[pos]
        loss = (ideal - dcg) / ideal
        loss = loss if loss > 0.0 else 0.0  # max(0.0, loss), without the builtin's own function
        if loss == 0:
            continue
        fs = f_start[m]
        alpha = alphas[m]
        if use_oracle and np.isnan(alpha):  # no exact sort for this size: dynamic programming
            for i in range(m):
                c[i] = v[a + i] / ideal
            if not distinct:  # by_pred is the order of the rounded scores: the programme's is of t itself
                _sort_desc(t, m, chosen, sort_buf)
            done, need_ints, need_floats, need_states = _grade_dp(
                t, c, f_flat, fs, b, m, sigma, ints, floats, best, move, by_pred if distinct else chosen)
            if not done:  # the caller grows the scratch and plays this query again
                needs[0] = need_ints
                needs[1] = need_floats
                needs[2] = need_states
                return r, mistakes, 2
            for i in range(m):
                chosen[sigma[i]] = i
        elif use_oracle:
            for i in range(m):
                keys[i] = t[i] if alpha == 0 else alpha * t[i] - v[a + i] / ideal
            _sort_desc(keys, m, chosen, sort_buf)
        else:
            for i in range(m):
                chosen[i] = by_pred[i]
        for pos in range(m):
            g[chosen[pos]] = f_flat[fs + pos]
        for pos in range(m):
            g[by_grade[pos]] -= f_flat[fs + pos]
        weight = weights[q] if weights.shape[0] > 0 else 1.0
        rounds[mistakes] = r + 1
        losses[mistakes] = weight * loss
        mistakes += 1
        step = eta * weight * (loss if loss_driven else 1.0)
        alpha = -step
        alpha_u = -step * (tau0 + r + 1)
        if indptr is not None:
            # X_q^T g, accumulated per feature over the query's non-zeros, then applied once per feature
            for i in range(m):
                for k in range(indptr[a + i], indptr[a + i + 1]):
                    adj[indices[k]] += data[k] * g[i]
            for i in range(m):
                for k in range(indptr[a + i], indptr[a + i + 1]):
                    j = indices[k]
                    value = adj[j]
                    if value != 0:
                        w[j] += alpha * value
                        if averaging:
                            u[j] += alpha_u * value
                        adj[j] = 0.0
        if X is not None:
            # X_q^T g row by row: column j gets its terms in document order, as in a column loop
            # (a row with g_i = 0 adds signed zeros, which change no sum that starts at +0.0)
            for j in range(p):
                adj[j] = 0.0
            for i in range(m):
                gi = g[i]
                if gi != 0:
                    for j in range(p):
                        adj[j] += X[a + i, j] * gi
            for j in range(p):
                w[j] += alpha * adj[j]
                if averaging:
                    u[j] += alpha_u * adj[j]
    return n, mistakes, 0
