"""Shared fixtures: the problems of the core issue, small enough to enumerate."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import settings

from predtron.engine import jit
from predtron.problems import Binary, BinaryReject, General, Multiclass, Multilabel, Ordinal

# The tests exercise the compiled kernels themselves: compile them on first use (the rule
# that otherwise runs small workloads on NumPy until compiling pays has its own tests,
# tests/test_engine.py, which set the policy they check).
if "PREDTRON_JIT" not in os.environ and jit.POLICY == "auto":
    jit.POLICY = "always"
# The command-line tests start many short processes: without this, each one finding a kernel
# missing would start a background compile worker that outlives it (tests/test_background_compile.py
# checks the worker, clearing this variable for its own processes).
os.environ.setdefault("PREDTRON_JIT_BACKGROUND", "0")

# CI runs the property tests on a fixed set of examples, so a submission's result does not
# depend on the draw; local runs keep exploring new examples.
settings.register_profile("ci", derandomize=True, deadline=None)
# Many more random inputs (the fuzz suite draws max_examples // 30 per entry point), for a
# run by hand: pytest tests/test_fuzz.py --hypothesis-profile=long
settings.register_profile("long", max_examples=3000, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


def pytest_terminal_summary(terminalreporter):
    """The fuzz suite's count of inputs checked (when it ran)."""
    import sys

    core = sys.modules.get("fuzz_core")
    if core is not None and core.COUNTER["cases"]:
        c = core.COUNTER
        terminalreporter.write_line(f"fuzz: {c['cases']} inputs checked ({c['refused']} refused, {c['accepted']} "
                                    f"accepted, {c['skipped']} not constructible)")


def core_problems():
    """One instance of every core problem class (and the interesting loss variants)."""
    rng = np.random.default_rng(3)
    return [
        Binary(),
        Binary(cost_pos=2.0, cost_neg=0.5),
        BinaryReject(0.4, 0.3),
        Multiclass(4),
        Multiclass(3, loss=[[0, 1, 2], [1, 0, 1], [2, 1, 0]]),
        Ordinal(5),
        Multilabel(4, "hamming"),
        Multilabel(3, "hamming", normalize=True),
        Multilabel(4, "subset"),
        Multilabel(5, "errorset"),
        General([[0, 1, 2], [1, 0, 1], [3, 2, 0]], rng.standard_normal((3, 4))),
    ]


def separable_problems():
    """Problems for which random separable data have a positive margin."""
    return [p for p in core_problems() if getattr(p, "loss_name", "") != "errorset"]


def not_ready_at_first(original, every: int, handed: list):
    """A stand-in for ``predtron.engine.run_pass`` as while the background worker compiles: a pass's
    own call gets ``None`` (the pass begins in the NumPy scan), and of the scan's questions
    (``ready_only``) every ``every``-th is answered by ``original``, recording ``(rounds still to
    come, tau0)`` in ``handed``."""
    asked = []

    def run_pass(*args, **kwargs):
        if not (args[9] if len(args) > 9 else kwargs.get("ready_only", False)):
            return None
        asked.append(1)
        if len(asked) % every:
            return None  # still compiling
        handed.append((int(args[2].shape[0]), int(args[8])))
        return original(*args, **kwargs)

    return run_pass


def ranking_stream(n, p0, seed):
    """Queries with 1-7 documents and relevance 0-2 from a noisy linear score."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(p0)
    X, Y = [], []
    for _ in range(n):
        m = int(rng.integers(1, 8))
        x = rng.standard_normal((m, p0))
        X.append(x)
        Y.append(np.digitize(x @ w + 0.3 * rng.standard_normal(m), [-0.5, 0.5]).astype(int))
    return X, Y


@pytest.fixture(params=core_problems(), ids=repr)
def problem(request):
    return request.param
