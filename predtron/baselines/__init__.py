"""Baselines the book compares the Predtron with (classic algorithms, not instances of it)."""

from predtron.baselines.prank import (
    PRank,
    RankedData,
    make_ranked_data,
    multiclass_target,
    prank_bound,
    rank_margin,
)

__all__ = ["PRank", "RankedData", "make_ranked_data", "multiclass_target", "prank_bound", "rank_margin"]
