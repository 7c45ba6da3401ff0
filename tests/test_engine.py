"""The engine's contract and its compile rule: specs of the built-in problems, the NumPy twins
against the kernels bit for bit, and fits that start on NumPy and move to compiled code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from predtron import Predtron, engine
from predtron.engine import EngineSpec, Kind, grade_dp, jit, run, scans
from predtron.problems import Binary, BinaryReject, Multiclass, Multilabel, Ordinal, SubsetRanking
from predtron.problems.ranking_batch import TIE_TOLERANCE as BATCH_TIE
from predtron.testing import reference_fit

ROOT = Path(__file__).resolve().parents[1]


def test_one_tie_tolerance():
    from predtron.problems import base

    assert base.TIE_TOLERANCE is engine.TIE_TOLERANCE is BATCH_TIE


@pytest.mark.parametrize(("problem", "labels", "kind"), [
    (Binary(cost_pos=2.0), np.array([1, -1, 1]), Kind.BINARY),
    (Multiclass(3), np.array([0, 2, 1]), Kind.MULTICLASS),
    (BinaryReject(0.4, 0.3), np.array([1, -1]), Kind.FINITE),
    (Multilabel(4, "hamming"), np.array([[0, 1, 1, 0]]), Kind.HAMMING),
    (Multilabel(4, "subset"), np.array([[0, 1, 1, 0]]), Kind.SUBSET),
    (Multilabel(4, "fbeta", beta=0.5), np.array([[0, 1, 1, 0]]), Kind.FBETA),
])
def test_built_in_problems_describe_their_rounds_with_a_spec(problem, labels, kind):
    checked = problem.check_labels(labels, problem.scoring.prepare(np.zeros((len(labels), 2))))
    spec = problem._compiled_spec(checked)
    assert isinstance(spec, EngineSpec) and spec.kind is kind
    assert spec.labels.dtype == np.int64 and spec.labels.flags.c_contiguous and len(spec.labels) == len(labels)
    with pytest.raises(AttributeError):
        spec.kind = Kind.BINARY  # frozen


def test_a_problem_without_arithmetic_rounds_has_no_spec():
    assert Multilabel(4, "errorset")._compiled_spec(np.zeros((1, 4), dtype=np.int64)) is None


def test_spec_is_built_once_per_fit(monkeypatch):
    problem = Multiclass(3)
    built = []
    original = type(problem)._compiled_spec
    monkeypatch.setattr(type(problem), "_compiled_spec", lambda self, y: built.append(1) or original(self, y))
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((40, 3)), rng.integers(0, 3, 40)
    Predtron(problem).fit(X, y, epochs=4)
    assert len(built) == 1


# ----------------------------------------------------------------------------- twins
@st.composite
def dp_queries(draw):
    m = draw(st.integers(1, 12))
    grades = draw(st.lists(st.integers(0, 3), min_size=m, max_size=m))
    t = draw(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 1.0]) | st.floats(-3, 3), min_size=m, max_size=m))
    f = np.sort(np.array(draw(st.lists(st.floats(-2, 2), min_size=m, max_size=m, unique=True))))[::-1].copy()
    b = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]) | st.floats(0, 1), min_size=m, max_size=m)))
    return np.array(t), np.array(grades, dtype=float) / 3.0, f, b


@settings(max_examples=300, deadline=None)
@given(dp_queries())
def test_grade_dp_twin_equals_the_kernel(case):
    t, c, f, b = case
    np.testing.assert_array_equal(grade_dp._argmax_numpy(t, c, f, b), grade_dp._argmax(t, c, f, b))
    assert grade_dp._cost_numpy(c) == tuple(grade_dp._cost(c))
    offsets = np.array([0, len(c) // 2, len(c)], dtype=np.int64)
    for needed in (np.array([True, True]), np.array([False, True])):
        for cheap in (False, True):
            assert grade_dp._covers_numpy(c, offsets, needed, cheap) == grade_dp._covers(c, offsets, needed, cheap)


def test_grade_dp_cost_twin_stops_where_the_kernel_does():
    c = np.repeat(np.arange(8.0), 6)
    assert grade_dp._cost_numpy(c) == tuple(grade_dp._cost(c))


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.integers(0, 70), elements=st.floats(allow_nan=True, allow_infinity=True, width=64)))
def test_finite_max_abs_twin_equals_the_kernel(values):
    assert scans._finite_max_abs_numpy(values) == tuple(scans._finite_max_abs(values))


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e6, 1e6), st.lists(st.floats(-1e6, 1e6), max_size=50))
def test_running_sum_twin_equals_the_kernel(start, values):
    values = np.array(values, dtype=np.float64)
    assert scans._running_sum_numpy(start, values) == scans._running_sum(start, values)


# ----------------------------------------------------------------------------- the compile rule
def test_tiered_runs_the_twin_until_the_work_pays_for_compiling(monkeypatch):
    monkeypatch.setattr(jit, "POLICY", "auto")
    kernel = numba.njit(lambda x: x + 1.0)  # not cached on disk
    calls = []
    tiered = jit.Tiered(kernel, lambda x: calls.append(x) or x + 1.0, lambda x: 10, 25)
    assert [tiered(float(i)) for i in range(4)] == [1.0, 2.0, 3.0, 4.0]
    assert calls == [0.0, 1.0]  # 10 + 10 < 25; the third call would reach the budget: compiled
    assert tiered.ready((1.0,))  # compiled now: used from then on without counting
    monkeypatch.setattr(jit, "POLICY", "never")
    assert tiered(5.0) == 6.0 and calls[-1] == 5.0


def test_a_kernel_in_the_disk_cache_is_ready_in_a_new_process(tmp_path):
    """A fresh interpreter with an empty cache runs the twin; once a run compiled the kernel,
    the next interpreter finds it on disk and uses it at once."""
    script = ("import numpy as np; from predtron.engine import scans, jit; v = np.arange(3.0); "
              "print(scans.running_sum.ready((0.0, v))); scans.running_sum(0.0, v)")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT), "PREDTRON_JIT_BACKGROUND": "0"}
    env.pop("PREDTRON_NO_JIT", None)

    def ready(policy):
        out = subprocess.run([sys.executable, "-c", script], env={**env, "PREDTRON_JIT": policy}, check=True,
                             capture_output=True, text=True).stdout
        return out.strip() == "True"

    assert not ready("auto")  # empty cache, small work: NumPy, nothing compiled
    assert not ready("always")  # still nothing on disk; this run compiles and saves
    assert ready("auto")


def _multiclass_data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4))
    y = np.argmax(X @ rng.standard_normal((4, 3)) + 0.3 * rng.standard_normal((n, 3)), axis=1)
    return X, y


@pytest.mark.parametrize("problem", [Ordinal(3), Multilabel(3, "subset"), Multilabel(3, "f1")], ids=repr)
def test_a_fit_moving_from_numpy_to_compiled_passes_stays_exact(problem, monkeypatch):
    """The first passes run the NumPy block scan (the budget is not reached), the later ones
    the compiled kernel: the result is still the per-example reference's."""
    monkeypatch.setattr(jit, "POLICY", "auto")
    X, y = _multiclass_data()
    if isinstance(problem, Multilabel):
        y = (X[:, :3] > 0).astype(int)
    spec = problem._compiled_spec(problem.check_labels(y, problem.scoring.prepare(X)))
    tier = run._PASSES[spec.kind]
    kernel = tier.kernel
    monkeypatch.setattr(tier, "kernel", numba.njit(kernel.py_func))  # a fresh, uncached dispatcher
    monkeypatch.setattr(tier, "budget", 2.5 * len(X))
    monkeypatch.setattr(tier, "spent", 0.0)
    monkeypatch.setattr(tier, "_ready", set())
    monkeypatch.setattr(tier, "_not_on_disk", set())
    fast = Predtron(problem, eta=0.7, average=True).fit(X, y, epochs=5)
    assert tier.spent == 2 * len(X) and tier.kernel.overloads  # two NumPy passes, then compiled
    slow = reference_fit(Predtron(problem, eta=0.7, average=True), X, y, epochs=5)
    np.testing.assert_array_equal(fast.loss_history_, slow.losses)
    assert fast.n_updates_ == slow.n_updates
    np.testing.assert_allclose(fast._params, slow.params, rtol=1e-10, atol=1e-12)


def test_ranking_fit_on_the_numpy_tier_equals_the_compiled_one(monkeypatch):
    """The dynamic-programming oracle's twin and the NumPy scan decide as the compiled pass."""
    from predtron.data import load_mq2008

    data = load_mq2008("train")
    group = np.asarray(data.group)[:40]
    X, y = data.X[:group.sum()], data.y[:group.sum()]
    problem = SubsetRanking(f="linear")
    compiled = Predtron(problem).fit(X, y, group=group, epochs=3)
    monkeypatch.setattr(jit, "POLICY", "never")
    numpy = Predtron(problem).fit(X, y, group=group, epochs=3)
    np.testing.assert_array_equal(compiled.loss_history_, numpy.loss_history_)
    np.testing.assert_allclose(compiled.coef_, numpy.coef_, rtol=1e-10, atol=1e-12)


def test_an_empty_disk_cache_is_seen_without_numba_s_loader(tmp_path, monkeypatch):
    """A kernel whose cache index does not exist is not on disk, found with a ``stat`` (the
    loader's first use sets up numba's contexts, 0.25 s a fresh process would pay for nothing);
    once the kernel is compiled into that cache, the loader finds it."""
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))  # read when a dispatcher is made
    kernel = numba.njit(cache=True)(_twice)
    signature = (numba.types.float64,)
    assert jit._index_missing(kernel)
    with monkeypatch.context() as patched:
        patched.setattr(type(kernel._cache), "load_overload", lambda *a: pytest.fail("the loader ran"))
        assert not jit._on_disk(kernel, signature)
    kernel.compile(signature)
    assert not jit._index_missing(kernel)
    assert jit._on_disk(numba.njit(cache=True)(_twice), signature)  # a new dispatcher finds it on disk


def _twice(x):
    return 2.0 * x
