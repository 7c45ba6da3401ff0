"""Baselines the book compares the Predtron with (classic algorithms, not instances of it)."""

from predtron.baselines.mmp import MMP, mmp_bound, mmp_margin
from predtron.baselines.prank import (
    PRank,
    RankedData,
    make_ranked_data,
    multiclass_target,
    prank_bound,
    rank_margin,
)

__all__ = [
    "MMP",
    "PRank",
    "RankedData",
    "make_ranked_data",
    "mmp_bound",
    "mmp_margin",
    "multiclass_target",
    "prank_bound",
    "rank_margin",
]
