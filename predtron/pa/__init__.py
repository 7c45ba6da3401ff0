"""Paired (multi-sample) passive-aggressive updates and the calibrated multiclass update.

Implements the draft "Paired passive aggressive for ranking and classification"
(``seeds/004``): the batch problem and its dual (:mod:`predtron.pa.dual`), the update
rules PA-DCA, PA-sequential, PA-AUC, PA-correctMistakes and PA-maxViolators
(:mod:`predtron.pa.rules`), balanced streams (:mod:`predtron.pa.streams`), the online
learners (:mod:`predtron.pa.learners`) and an exact reference solver for tests
(:mod:`predtron.pa.reference`).  The AUC metrics and bounds are in :mod:`predtron.metrics`.
"""

from predtron.pa.dual import (
    DualStep,
    batch_dual_objective,
    batch_primal_objective,
    dual_gradient,
    dual_step,
    hinge_losses,
    kkt_violation,
    primal_from_dual,
    step_bounds,
    step_size,
)
from predtron.pa.learners import CalibratedMultilabelPA, CalibratedPA, PairedPA
from predtron.pa.reference import QPSolution, brute_force_batch_qp
from predtron.pa.rules import RULES, PAUpdate, index_sets, pa_update
from predtron.pa.streams import balanced_pairs, balanced_rounds

__all__ = [
    "RULES",
    "CalibratedMultilabelPA",
    "CalibratedPA",
    "DualStep",
    "PAUpdate",
    "PairedPA",
    "QPSolution",
    "balanced_pairs",
    "balanced_rounds",
    "batch_dual_objective",
    "batch_primal_objective",
    "brute_force_batch_qp",
    "dual_gradient",
    "dual_step",
    "hinge_losses",
    "index_sets",
    "kkt_violation",
    "pa_update",
    "primal_from_dual",
    "step_bounds",
    "step_size",
]
