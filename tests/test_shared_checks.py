"""The shared contract, run over EVERY problem class and EVERY learner class of the package.

The registries below must name each concrete class that ``predtron.problems`` and
``predtron.learners`` export: a new class that is not registered here fails
``test_every_class_is_registered``, so nothing escapes the shared checks.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from conftest import ranking_stream

import predtron.learners as learners_module
import predtron.problems as problems_module
from predtron.data import make_noisy
from predtron.learners import (
    SGDSVM,
    BatchPerceptron,
    KernelPredtron,
    OnlineLearner,
    Predtron,
    PredtronLD,
    PredtronLink,
)
from predtron.links import PNormLink
from predtron.problems import (
    Binary,
    BinaryReject,
    Chain,
    General,
    JointMulticlass,
    Multiclass,
    Multilabel,
    MultilabelRanking,
    MultivectorMap,
    Ordinal,
    Problem,
    SubsetRanking,
)
from predtron.problems.multilabel import LOSSES
from predtron.testing import check_learner, check_problem

ABSTRACT = {"Problem", "FiniteProblem", "RankingProblem"}
RELEVANCE = [np.array(y) for y in ([2, 0, 1], [1, 1, 0, 0], [0, 0], [3], [0, 2, 2, 1, 0])]


def _multilabel(loss):
    return Multilabel(5, loss, k=2) if loss.endswith("@k") else Multilabel(5, loss)


PROBLEMS = {
    "Binary": [(Binary(), None), (Binary(3.0, 0.5), None)],
    "BinaryReject": [(BinaryReject(0.4, 0.2), None)],
    "General": [(General([[0, 1, 2], [1, 0, 1], [2, 2, 0]], np.random.default_rng(0).standard_normal((3, 4))), None)],
    "Multiclass": [(Multiclass(4), None), (Multiclass(3, loss=[[0, 2, 1], [1, 0, 1], [3, 1, 0]]), None)],
    "Ordinal": [(Ordinal(5), None)],
    "Multilabel": [(_multilabel(loss), None) for loss in LOSSES],
    "MultilabelRanking": [(MultilabelRanking(4), None), (MultilabelRanking(4, f="inverse", y_max=2), None)],
    "SubsetRanking": [(SubsetRanking(), RELEVANCE), (SubsetRanking(f="square", loss="ndcg", k=2), RELEVANCE)],
    "Chain": [(Chain(3, 3), None)],
    "JointMulticlass": [(JointMulticlass(MultivectorMap(3)), None)],
}

LEARNERS = {
    "Predtron": (lambda p: Predtron(p, eta=0.5), None),
    "PredtronLD": (lambda p: PredtronLD(p, eta=0.5), None),
    "PredtronLink": (lambda p: PredtronLink(p, link=PNormLink(1.5), eta=0.5), None),
    "KernelPredtron": (lambda p: KernelPredtron(p, kernel="rbf", budget=25), None),
    "BatchPerceptron": (lambda p: BatchPerceptron(p, max_epochs=3), {}),
    "SGDSVM": (lambda p: SGDSVM(p, lam=0.1, seed=3), None),
}


def _exported(module, base):
    return {
        name for name in module.__all__
        if inspect.isclass(getattr(module, name)) and issubclass(getattr(module, name), base)
    }


def test_every_class_is_registered():
    assert _exported(problems_module, Problem) - ABSTRACT == set(PROBLEMS)
    assert _exported(learners_module, OnlineLearner) - {"OnlineLearner"} == set(LEARNERS)


@pytest.mark.parametrize(
    ("problem", "labels"),
    [pair for pairs in PROBLEMS.values() for pair in pairs],
    ids=lambda v: repr(v) if isinstance(v, Problem) else "",
)
def test_problem_contract(problem, labels):
    check_problem(problem, n_trials=40, seed=5, labels=labels)


def _data(problem):
    if isinstance(problem, SubsetRanking):
        return ranking_stream(n=24, p0=4, seed=2)
    return make_noisy(problem, 24, 4, noise=0.5, seed=2)


@pytest.mark.parametrize("learner", sorted(LEARNERS))
@pytest.mark.parametrize("problem", [Multiclass(3), Multilabel(3, "hamming"), SubsetRanking()], ids=repr)
def test_learner_contract(learner, problem):
    make, fit_params = LEARNERS[learner]
    X, Y = _data(problem)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", learners_module.NotSeparatedWarning)
        check_learner(make, problem, X, Y, fit_params=fit_params)
