"""Prediction problems: one module per setting of the paper (Sections 2-5)."""

from predtron.problems.base import FiniteProblem, Problem
from predtron.problems.binary import REJECT, Binary, BinaryReject
from predtron.problems.general import General
from predtron.problems.multiclass import Multiclass
from predtron.problems.multilabel import Multilabel
from predtron.problems.ordinal import Ordinal

__all__ = [
    "REJECT",
    "Binary",
    "BinaryReject",
    "FiniteProblem",
    "General",
    "Multiclass",
    "Multilabel",
    "Ordinal",
    "Problem",
]
