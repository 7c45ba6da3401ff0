"""Prediction problems: one module per setting of the paper (Sections 2-5)."""

from predtron.problems.base import FiniteProblem, Problem
from predtron.problems.binary import REJECT, Binary, BinaryReject
from predtron.problems.general import General
from predtron.problems.multiclass import Multiclass
from predtron.problems.multilabel import Multilabel
from predtron.problems.multilabel_ranking import MultilabelRanking
from predtron.problems.ordinal import Ordinal
from predtron.problems.ranking import RankingLoss, RankingProblem, lemma4_margin
from predtron.problems.subset_ranking import SubsetRanking

__all__ = [
    "REJECT",
    "Binary",
    "BinaryReject",
    "FiniteProblem",
    "General",
    "Multiclass",
    "Multilabel",
    "MultilabelRanking",
    "Ordinal",
    "Problem",
    "RankingLoss",
    "RankingProblem",
    "SubsetRanking",
    "lemma4_margin",
]
