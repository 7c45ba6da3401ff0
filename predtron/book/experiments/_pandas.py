"""pandas, which :mod:`predtron.book.experiments` needs for its tables (a book dependency, not a core one)."""

from __future__ import annotations

try:
    import pandas as pd
except ImportError as error:  # pragma: no cover - pandas is installed with the book's requirements
    raise ImportError(
        "predtron.book.experiments returns pandas DataFrames; install pandas (it is pinned in "
        "requirements.txt) to use it"
    ) from error

__all__ = ["pd"]
