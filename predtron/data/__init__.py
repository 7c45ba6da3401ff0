"""Data: seeded generators of separable data (and loaders of real benchmark files)."""

from predtron.data.generators import SeparableData, make_separable

__all__ = ["SeparableData", "make_separable"]
