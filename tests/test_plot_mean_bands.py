"""plot_mean_bands (predtron.book.plotting): curves, the floor for log axes, validation."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from predtron.book.plotting import plot_mean_bands


def test_one_line_per_label_with_floor_and_log_axis():
    fig, ax = plt.subplots()
    runs = {"a": np.array([[0.0, 1e-3], [0.0, 3e-3]]), "b": np.ones((2, 2))}
    plot_mean_bands(ax, [1, 2], runs, floor=1e-10, log=True)
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["a", "b"]
    np.testing.assert_allclose(lines[0].get_ydata(), [1e-10, 2e-3])
    assert ax.get_yscale() == "log"
    plt.close(fig)


def test_validation():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="floor must be > 0"):
        plot_mean_bands(ax, [1, 2], {"a": np.ones((2, 2))}, floor=0.0)
    with pytest.raises(ValueError, match="runs for 'a' have 3 columns but x has 2 points"):
        plot_mean_bands(ax, [1, 2], {"a": np.ones((2, 3))})
    plt.close(fig)
