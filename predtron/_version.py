"""The package version (one place: the root package and the command line read it)."""

__version__ = "0.1.0"
