"""Data: seeded generators of separable data and loaders of real benchmark files."""

from predtron.data.generators import SeparableData, make_noisy, make_separable
from predtron.data.letor import LetorData, load_letor
from predtron.data.mulan import MultilabelData, load_arff
from predtron.data.ranking import (
    Figure1Data,
    flatten_queries,
    make_figure1_ranking,
    make_separable_ranking,
    split_queries,
)
from predtron.data.sequences import SequenceData, make_sequences

__all__ = [
    "Figure1Data",
    "LetorData",
    "MultilabelData",
    "SeparableData",
    "SequenceData",
    "flatten_queries",
    "load_arff",
    "load_letor",
    "make_figure1_ranking",
    "make_noisy",
    "make_separable",
    "make_separable_ranking",
    "make_sequences",
    "split_queries",
]
