"""The paper's experiments (Section 6, Figure 1) as functions: protocol, panels, claims, figures.

Needs pandas (a book requirement).  ``panel_a``, ``panel_b`` and ``panel_c`` rerun a
panel with any choice changed by keyword; ``sensitivity`` varies one choice alone;
``margin_study`` relates Lemma 4's margin to the passes needed to separate the training
set; ``claims_table`` checks the paper's claims under stated readings; ``seed_summary``
summarises runs over seeds; ``statistics_figure`` draws the three statistics side by side.
"""

from predtron.book.experiments.claims import claims_table
from predtron.book.experiments.figure1 import (
    F_LABELS,
    F_PAPER,
    LEARNER_LABELS,
    SENSITIVITY_PARAMETERS,
    centre_margin,
    loss_distribution,
    margin_study,
    panel_a,
    panel_b,
    panel_c,
    passes_to_separate,
    protocol_table,
    sensitivity,
    smallest_nonzero_loss,
    theorem1_step,
)
from predtron.book.experiments.plots import (
    floor_below,
    plot_loss_ecdf,
    plot_margin_passes,
    plot_statistic,
    statistics_figure,
)
from predtron.book.experiments.protocol import (
    DEFAULTS,
    STATISTIC_NAMES,
    STATISTICS,
    complete_setting,
    make_learner,
    per_run,
    query_losses,
    round_significant,
    run_settings,
    seed_summary,
    summarize_losses,
    untrained_losses,
)

__all__ = [
    "DEFAULTS",
    "F_LABELS",
    "F_PAPER",
    "LEARNER_LABELS",
    "SENSITIVITY_PARAMETERS",
    "STATISTICS",
    "STATISTIC_NAMES",
    "centre_margin",
    "claims_table",
    "complete_setting",
    "floor_below",
    "loss_distribution",
    "make_learner",
    "margin_study",
    "panel_a",
    "panel_b",
    "panel_c",
    "passes_to_separate",
    "per_run",
    "plot_loss_ecdf",
    "plot_margin_passes",
    "plot_statistic",
    "protocol_table",
    "query_losses",
    "round_significant",
    "run_settings",
    "seed_summary",
    "sensitivity",
    "smallest_nonzero_loss",
    "statistics_figure",
    "summarize_losses",
    "theorem1_step",
    "untrained_losses",
]
