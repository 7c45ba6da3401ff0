"""The compiled engine: Algorithm 1's passes and the exact oracles that need machine code.

Why compiled code.  The exact block scan of :mod:`predtron.learners.base` runs a pass at
matrix-product speed while the learner makes few mistakes, but every mistake still costs
one Python-level round of some twenty NumPy calls, several microseconds each.  When
mistakes are frequent that per-call overhead, not arithmetic, sets the speed
(``benchmarks/passes.py``), so the problems whose round is a few lines of arithmetic run
their passes here.

Modules, one job each (none imports anything else of predtron):

* :mod:`~predtron.engine.spec`: the contract: :class:`Kind`, :class:`EngineSpec` (what a
  problem's ``_compiled_spec`` returns, built once per fit) and the one
  :data:`TIE_TOLERANCE`;
* :mod:`~predtron.engine.jit`: how kernels are compiled and when compiled code is used
  (:class:`~predtron.engine.jit.Tiered`: the kernel when it is compiled or cached, an exact
  NumPy twin while the background worker ``predtron.engine._compile_worker`` compiles it);
* :mod:`~predtron.engine.vectors`: the passes over vector instances, one kernel per kind;
* :mod:`~predtron.engine.ranking`: the pass over queries of documents;
* :mod:`~predtron.engine.grade_dp`: the grade dynamic programme (Lemma 3's argmax) and its
  cost model;
* :mod:`~predtron.engine.fbeta`: the F-beta loss and its loss-augmented argmax;
* :mod:`~predtron.engine.scans`: whole-array scans (finiteness, running sums, the exact column sums
  behind ``predtron._exact.ExactSums``);
* :mod:`~predtron.engine.run`: :func:`run_pass`, from a spec and the inputs to a kernel.

Exactness: ``tests/test_fast_loop.py`` checks every compiled pass against
:func:`predtron.testing.reference_fit` for every problem and option;
``tests/test_compiled_kernels.py`` and ``tests/test_ranking_oracle_dp.py`` check the kernels
and their twins.
"""

from predtron.engine.fbeta import fbeta_loss, fbeta_oracle
from predtron.engine.grade_dp import MAX_DP_STATES, grade_dp_argmax, grade_dp_cost, grade_dp_covers, grade_dp_is_cheap
from predtron.engine.jit import AVAILABLE
from predtron.engine.run import run_pass
from predtron.engine.scans import finite_max_abs, running_sum
from predtron.engine.spec import TIE_TOLERANCE, EngineSpec, Kind

__all__ = ["AVAILABLE", "MAX_DP_STATES", "TIE_TOLERANCE", "EngineSpec", "Kind", "fbeta_loss", "fbeta_oracle",
           "finite_max_abs", "grade_dp_argmax", "grade_dp_cost", "grade_dp_covers", "grade_dp_is_cheap", "run_pass",
           "running_sum"]
