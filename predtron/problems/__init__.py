"""Prediction problems: one module per setting of the paper (Sections 2-5)."""

from predtron.problems.base import FiniteProblem, Problem
from predtron.problems.binary import REJECT, Binary, BinaryReject
from predtron.problems.bipartite import BIPARTITE_LOSSES, BipartiteMeasure
from predtron.problems.chain import Chain, ChainScoring, viterbi
from predtron.problems.general import General
from predtron.problems.joint import JointMulticlass
from predtron.problems.multiclass import Multiclass
from predtron.problems.multilabel import Multilabel
from predtron.problems.multilabel_ranking import MultilabelRanking
from predtron.problems.ordinal import Ordinal
from predtron.problems.psi import CallableMap, FeatureMap, JointScoring, MultivectorMap, TfidfMap
from predtron.problems.ranking import RankingLoss, RankingProblem, lemma4_margin
from predtron.problems.subset_ranking import SubsetRanking

__all__ = [
    "BIPARTITE_LOSSES",
    "REJECT",
    "Binary",
    "BinaryReject",
    "BipartiteMeasure",
    "CallableMap",
    "Chain",
    "ChainScoring",
    "FeatureMap",
    "FiniteProblem",
    "General",
    "JointMulticlass",
    "JointScoring",
    "Multiclass",
    "Multilabel",
    "MultilabelRanking",
    "MultivectorMap",
    "Ordinal",
    "Problem",
    "RankingLoss",
    "RankingProblem",
    "SubsetRanking",
    "TfidfMap",
    "lemma4_margin",
    "viterbi",
]
