"""The ``predtron`` command line: fit, predict and evaluate the estimators of :mod:`predtron.sklearn` on files.

::

    predtron fit TRAIN --task {classify,multilabel,ordinal,rank} --model MODEL.npz [options]
    predtron predict TEST --model MODEL.npz [--output FILE]
    predtron evaluate TEST --model MODEL.npz [--k K ...]

The tasks are one table, :data:`predtron.tasks.TASKS` (estimator, Dask estimator, file format,
metrics); data files are read by :mod:`predtron.cli_data` with the loaders of
:mod:`predtron.data` (every malformed line is reported with its file and line number):
svmlight / LibSVM / LETOR text for classification, ordinal regression and ranking (queries
from ``qid:``, from a LightGBM ``.query`` / ``.group`` file beside the data, or from
``--group-file``), and Mulan ARFF for multilabel data; ``-`` is standard input.  A model is
written by :func:`predtron.save` (an ``.npz`` archive with a JSON header, no pickle) through
:func:`predtron._files.atomic_path`, so an existing model is only ever replaced by a complete
one; it records its estimator, hence its task, and the number of features, so ``predict`` and
``evaluate`` need neither.  Every command adds ``.npz`` to a ``--model`` name without a suffix.

Every hyperparameter option maps to one constructor parameter of the task's estimator (one
table, :func:`estimator_options`); an option left out keeps the estimator's own default (the
help shows the defaults, read from the estimators' cores of :mod:`predtron._models`), except the seed, which is
``DEFAULT_SEED`` so that a command gives the same model at every run.

Start-up: ``--help`` and ``--version`` import neither scikit-learn, Dask, matplotlib nor tqdm;
the parser of a command is built only when that command runs (without importing the streaming
modules), and each command imports what it uses: the estimators' parameters, their checks,
every fit (in memory or ``--stream``) and ``predict``/``evaluate`` use the estimators' cores
(:mod:`predtron._models`) and the package's own readers, so that none of them imports
scikit-learn.
Bad input ends the command with exit status 1 (2 for a usage error: an unknown option, a bad
value, flags that contradict each other) and one line on stderr,
never a traceback; outputs are checked (writable, not a folder, not an input) before any work.
Ctrl-C at any moment runs :func:`_interrupted`: the temporary files being written are removed,
one line is written and the process ends at once with status 130 (no unwinding through
compiled code, no interpreter teardown with reader threads running); SIGTERM the same, with
status 143.  ``main(argv)`` returns the exit status;
the console script ``predtron`` and ``python -m predtron`` call it.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import math
import os
import signal
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from predtron import _files
from predtron._version import __version__
from predtron.cli_data import (
    FORMATS,
    CommandError,
    Dataset,
    FlagError,
    ReadOptions,
    check_data_file,
    detect_format,
    discard_spools,
    label_value,
    local_path,
    positive_int,
    spool_names,
)
from predtron.tasks import TASKS as TASK_TABLE

if TYPE_CHECKING:  # numpy is imported by the commands that use it (start-up time)
    import numpy as np

PROG = "predtron"
TASKS = tuple(TASK_TABLE)

#: The seed of the command line when ``--seed`` is not given (the estimators' own default, ``None``,
#: would give another model at every run).
DEFAULT_SEED = 0

#: Number of decimals of the metrics printed by ``evaluate``.
DECIMALS = 4

#: The exit status of an interrupted command (128 + SIGINT, as a shell reports it).
INTERRUPTED = 130

#: The exit status of a command ended by SIGTERM (``kill``'s default signal), 128 + 15.
TERMINATED = 143

#: The module's interface: the program (``main``), its parser and the format detection it uses;
#: the other functions are the program's steps.
__all__ = ["build_parser", "detect_format", "main", "model_path"]


class UsageError(Exception):
    """A malformed command line (unknown option, missing argument, bad option value)."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (raised, so that :func:`main` returns a status)."""

    def error(self, message):
        raise UsageError(f"{self.prog}: error: {message} (see '{self.prog} --help')")


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keep the layout of descriptions and examples; wrap option help at a readable width."""

    def __init__(self, prog):
        super().__init__(prog, max_help_position=30, width=min(100, _terminal_width()))


def _terminal_width() -> int:
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 100


# ------------------------------------------------------------------ option values
# A value wrong whatever the data (a step of 0, an infinite tolerance, a negative seed) is a usage
# error, refused by the parser (exit status 2, "argument --FLAG: expected ...; got ..."), as a value
# that is not a number is; what only the data can refute (--k beyond the number of labels, a
# --reject-label that is a class) is refused by the estimator's checks (exit status 1).  Flags that
# contradict each other (--resume without --checkpoint, --cache without --stream) are wrong whatever
# the data too: they raise FlagError before any data file is read, printed as the parser's errors
# are (exit status 2).
def _real(text: str, expected: str, accept: Callable[[float], bool]) -> float:
    """The finite number ``text`` if ``accept`` holds for it, else an ``ArgumentTypeError`` saying
    what was ``expected`` and what came."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and accept(value)):
        raise argparse.ArgumentTypeError(f"expected {expected}; got {text!r}")
    return value


def _tol(text: str) -> float | None:
    """``--tol``: a finite number ``>= 0``, or ``none`` (no early stopping)."""
    if text.lower() == "none":
        return None
    return _real(text, "a finite number >= 0 or 'none'", lambda value: value >= 0)


def _eta(text: str) -> float | str:
    """``--eta``: a finite step ``> 0`` or ``auto`` (Theorem 1's step)."""
    if text.lower() == "auto":
        return "auto"
    return _real(text, "a finite number > 0 or 'auto'", lambda value: value > 0)


def _positive(text: str) -> float:
    """``--beta``: a finite number ``> 0``."""
    return _real(text, "a finite number > 0", lambda value: value > 0)


def _reject_cost(text: str) -> float:
    """``--reject-cost``: a cost in ``(0, 1)`` (abstaining must cost less than a mistake, which costs 1)."""
    return _real(text, "a number in (0, 1) (abstaining must cost less than a mistake, which costs 1)",
                 lambda value: 0 < value < 1)


def _seed(text: str) -> int:
    """``--seed``: a whole number ``>= 0`` (a seed of NumPy's generator)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0; got {text!r}")
    return value


def _describe(value) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return "none" if value is None else str(value)


def _defaults(param: str) -> dict[str, object]:
    """The default of ``param`` for each task whose estimator takes it."""
    return {name: task.core_class().get_params()[param] for name, task in TASK_TABLE.items()
            if param in task.core_class().get_params()}


def _default_text(param: str) -> str:
    """The default of ``param``, read from the estimator classes that take it."""
    if param == "random_state":
        return f"default: {DEFAULT_SEED}"
    defaults = _defaults(param)
    shown = {_describe(v) for v in defaults.values()}
    if len(shown) == 1:
        return f"default: {shown.pop()}"
    return "default: " + ", ".join(f"{_describe(v)} for {task}" for task, v in defaults.items())


def tasks_with(param: str) -> tuple[str, ...]:
    """The tasks whose estimator has the constructor parameter ``param``."""
    return tuple(_defaults(param))


class _Option(NamedTuple):
    """A ``fit`` option setting one estimator parameter."""

    flag: str
    param: str
    kwargs: dict
    help: str


_BOOL = {"action": argparse.BooleanOptionalAction}

#: Estimator parameters without an option of their own (``verbose``: ``--progress``/``--quiet``).
NO_OPTION = ("verbose",)


def estimator_options() -> tuple[_Option, ...]:
    """The one table of ``fit`` options that set estimator parameters (imports the problems for the choices)."""
    from predtron.problems.multilabel import LOSSES as MULTILABEL_LOSSES
    from predtron.problems.ranking_measures import F_CHOICES

    return (
        _Option("--epochs", "epochs", {"type": positive_int, "metavar": "N"},
                "largest number of passes over the training data (early stopping may end the fit before)"),
        _Option("--tol", "tol", {"type": _tol, "metavar": "TOL"},
                "early stopping: stop when the mean training loss of a pass has not improved on the best pass by "
                "TOL for --n-iter-no-change passes in a row; 'none' makes exactly --epochs passes"),
        _Option("--no-early-stopping", "tol", {"action": "store_const", "const": None},
                "make exactly --epochs passes (the same as --tol none)"),
        _Option("--n-iter-no-change", "n_iter_no_change", {"type": positive_int, "metavar": "N"},
                "early stopping: the number of passes without improvement that ends the fit"),
        _Option("--eta", "eta", {"type": _eta, "metavar": "STEP"},
                "step size of the update (> 0), or 'auto' for Theorem 1's step on the training data"),
        _Option("--average", "average", _BOOL,
                "predict with the averaged iterate; --no-average keeps the last one, as Algorithm 1 of the paper"),
        _Option("--shuffle", "shuffle", _BOOL,
                "visit the training examples in a new random order at every pass; --no-shuffle keeps file order"),
        _Option("--seed", "random_state", {"type": _seed, "metavar": "INT"},
                "seed of the shuffling: the same seed gives the same model"),
        _Option("--intercept", "fit_intercept", _BOOL, "learn a bias for every score"),
        _Option("--standardize", "standardize", _BOOL,
                "scale every feature with the training statistics (dense input: centred, unit variance; sparse "
                "input: divided by its largest absolute value)"),
        _Option("--update", "update", {"choices": ("oracle", "prediction")},
                "which prediction enters the update: the loss-augmented oracle (Algorithm 1) or the prediction"),
        _Option("--loss-driven", "loss_driven", _BOOL, "Predtron.LD: scale each step by the loss just suffered"),
        _Option("--loss", "loss", {"choices": MULTILABEL_LOSSES}, "the multilabel loss learned"),
        _Option("--k", "k", {"type": positive_int, "metavar": "K"},
                "rank: the cut-off of the NDCG@k that evaluate reports; multilabel: the k of precision@k and "
                "recall@k"),
        _Option("--beta", "beta", {"type": _positive, "metavar": "BETA"}, "the beta of the fbeta loss"),
        _Option("--train-k", "train_k", {"type": positive_int, "metavar": "K"},
                "cut-off of the NDCG loss the ranker learns (none: the full NDCG)"),
        _Option("--f", "f", {"choices": sorted(F_CHOICES)}, "position values of the ranking representation"),
        _Option("--cost-matrix", "cost_matrix", {"metavar": "FILE"},
                "a text file of k rows of k costs: row i, column j is the cost of predicting the i-th class "
                "(classes sorted) for an example of the j-th; zero diagonal ('-': standard input; none: 0-1 loss)"),
        _Option("--reject-cost", "reject_cost", {"type": _reject_cost, "metavar": "COST"},
                "allow abstaining at this cost, in (0, 1); a mistake costs 1"),
        _Option("--reject-label", "reject_label", {"type": label_value, "metavar": "LABEL"},
                "what predict writes for an abstention (must not be a class)"),
    )


_PARAM_PREFIX = "param_"


# ------------------------------------------------------------------ the parser
_EXAMPLES = """\
examples (on the data shipped in the package, from the repository root):
  predtron fit predtron/data/files/letor-mq2008-fold1/vali.txt.gz --task rank --model mq2008.npz --seed 0
  predtron evaluate predtron/data/files/letor-mq2008-fold1/test.txt.gz --model mq2008.npz --k 1 5 10
  predtron predict predtron/data/files/letor-mq2008-fold1/test.txt.gz --model mq2008.npz --output scores.txt
  predtron fit predtron/data/files/mulan-emotions/emotions-train.arff.gz --task multilabel --labels 6 \\
      --model emotions.npz
  predtron evaluate predtron/data/files/mulan-emotions/emotions-test.arff.gz --model emotions.npz
"""

_DESCRIPTION = """\
Fit, apply and score the Predtron learners (Jain, Natarajan and Tewari, NIPS 2015) on files.

Tasks and the estimators behind them (predtron.sklearn):
{tasks}

File formats: svmlight / LibSVM / LETOR text ('<label> [qid:<q>] <index>:<value> ...',
plain, .gz or .bz2) for classify, ordinal and rank; ARFF (dense or sparse rows) for
multilabel; '-' reads standard input. Models are .npz files (arrays and a JSON header, no
pickle); every command appends '.npz' to a --model name without a suffix (m is m.npz).
Ctrl-C stops any command with exit status 130 (kill, SIGTERM: 143) and one line on stderr,
leaving no partial file."""

_FIT_DESCRIPTION = """\
Fit the estimator of --task on TRAIN and save it to --model.

classify and ordinal read the label at the start of each svmlight line; rank reads
relevance grades and queries from 'qid:' fields, or from group sizes (one per line) in
TRAIN.query / TRAIN.group or --group-file; multilabel reads an ARFF file whose label
attributes are the last --labels N ones or those named by a Mulan --xml file.
Options left out keep the estimator's defaults (shown below), except the seed: --seed
is 0 unless given, so that two runs give the same model. Early stopping (--tol,
--n-iter-no-change) ends the fit before --epochs passes when the training loss stops
improving; --no-early-stopping makes exactly --epochs passes. With --no-average
--no-shuffle --no-standardize --epochs 1 (and --no-intercept, except for rank, which
has no intercept) the learner is Algorithm 1 of the paper as stated."""

_FIT_EXAMPLES = """\
examples:
  predtron fit predtron/data/files/letor-mq2008-fold1/vali.txt.gz --task rank --model mq2008.npz --epochs 20 --seed 0
  predtron fit train.svm --task classify --model digits.npz --no-average --eta 0.5
  predtron fit train.txt --task rank --group-file train.txt.query --model ranker.npz --sparse
  predtron fit emotions-train.arff --task multilabel --xml emotions.xml --loss f1 --model m.npz
"""

_PREDICT_DESCRIPTION = """\
Write one prediction per line for the examples of TEST, in file order: the class label
(classify, ordinal; an abstention writes the --reject-label given at fit), a space-separated
row of 0/1 labels (multilabel), or one score per document (rank; higher scores rank first
within a query, as LightGBM's predict writes them). TEST is read like the training file;
its labels are not used (an svmlight line still needs one, a number), and a ranking file needs
no query information."""

_PREDICT_EXAMPLES = """\
examples:
  predtron predict predtron/data/files/letor-mq2008-fold1/test.txt.gz --model mq2008.npz --output scores.txt
  predtron predict predtron/data/files/mulan-emotions/emotions-test.arff.gz --model emotions.npz | head
"""

_EVALUATE_DESCRIPTION = """\
Print the test metrics of a model, one 'name: value' line each, rounded to 4 decimals:
  classify    accuracy (with a cost matrix or an abstention cost: mean cost, accuracy
              and, with abstention, the abstention rate)
  multilabel  hamming loss, subset accuracy, micro f1 (counts pooled over examples and
              labels), example f1 (mean over examples; an example with no true and no
              predicted label counts 1), and the mean of the loss the model learned, if it
              is neither hamming nor subset
  ordinal     mean absolute error (counted in levels: positions among the sorted training
              labels) and accuracy
  rank        ndcg@k for each --k (default: the k the model was fitted with), averaged over
              queries, then map (mean average precision; a document is relevant when its
              grade is positive); a query without relevant documents counts as 1 in both"""

_EVALUATE_EXAMPLES = """\
examples:
  predtron evaluate predtron/data/files/letor-mq2008-fold1/test.txt.gz --model mq2008.npz --k 1 3 5 10
  predtron evaluate test.svm --model digits.npz
"""


#: The number of examples per chunk of a streamed read (the readers' default).
_DEFAULT_CHUNK_ROWS = ReadOptions().chunk_rows


def _add_read_options(group, command: str) -> None:
    """``--stream`` and ``--chunk-rows`` (every command); ``--cache`` (fit): the options of
    :mod:`predtron.cli_stream`, built without importing it."""
    group.add_argument("--stream", action="store_true",
                       help="read the data file in chunks of whole examples (whole queries for rank), so that "
                            "memory does not grow with the file; svmlight/LETOR chunks are sparse unless --dense" + (
                                "; the examples are visited in file order, and --standardize / --eta auto are "
                                "estimated from the first chunk. Without --n-features (and, for classify and "
                                "ordinal, --classes) a first pass reads the whole file to find them (svmlight/LETOR: a "
                                "scan of each line's label and last index, a fraction of a parse, on two threads; "
                                "ARFF: a parse): give both to read it once per epoch. With --workers/--scheduler, each "
                                "worker streams its own files so (file order; each mixing round reads up to its part "
                                "of the file)" if command == "fit" else ""))
    group.add_argument("--chunk-rows", type=positive_int, metavar="N", default=_DEFAULT_CHUNK_ROWS,
                       help=f"examples per chunk with --stream (default: {_DEFAULT_CHUNK_ROWS})")
    if command == "fit":
        group.add_argument("--cache", metavar="FILE",
                           help="with --stream: a binary cache of the parsed chunks, written by the first pass and "
                                "read by later ones instead of the text (rebuilt when TRAIN changes); on a cluster, "
                                "a directory holding one cache per training file")
        group.add_argument("--statistics", choices=("first-chunk", "file"),
                           help="with --stream: where the scaling of --standardize and the step of --eta auto come "
                                "from. first-chunk (the default): the first chunk, frozen; one read per epoch. file: "
                                "the whole file, read once more before the epochs (twice with --eta auto; --cache "
                                "serves those reads), so that the streamed fit equals the in-memory fit of the same "
                                "file with --no-shuffle and the same --sparse/--dense, bit for bit. A cluster fit "
                                "(--workers, --scheduler) always uses the statistics of all its files")


def _add_fit_options(group) -> None:
    """``--classes``, ``--checkpoint`` and ``--resume``."""
    group.add_argument("--classes", nargs="+", type=label_value, metavar="LABEL",
                       help="classify, ordinal with --stream: every label of TRAIN (default: found by a first pass "
                            "over the file)")
    group.add_argument("--checkpoint", metavar="DIR",
                       help="write the model and the fit's progress to DIR after every epoch (atomically)")
    group.add_argument("--resume", action="store_true",
                       help="continue the fit whose checkpoint is in --checkpoint DIR (same data and options); the "
                            "result equals an uninterrupted fit bit for bit")


def _add_data_options(parser: argparse.ArgumentParser, command: str) -> None:
    group = parser.add_argument_group("data files")
    group.add_argument("--format", choices=FORMATS, default="auto",
                       help="format of the data file; auto: '.arff' (also .arff.gz) is ARFF, a known "
                            "svmlight extension (.svm .svmlight .libsvm .letor .txt .dat) is svmlight, "
                            "otherwise the first line decides ('@' starts ARFF) (default: auto)")
    layout = group.add_mutually_exclusive_group()
    layout.add_argument("--sparse", dest="sparse", action="store_const", const=True, default=None,
                        help="hold the features in a sparse CSR matrix. Default: a file read whole is held sparse "
                             "when at most a tenth of its values are non-zero (text), dense otherwise; with "
                             "--stream, svmlight/LETOR chunks are sparse; files that cluster workers read whole are "
                             "dense for svmlight/LETOR; ARFF chunks and workers' files are as the rows are written "
                             "('{i v, ...}' sparse). --standardize only scales sparse features (centring would "
                             "fill them) and also centres dense ones")
    layout.add_argument("--dense", dest="sparse", action="store_const", const=False,
                        help="hold the features in a dense matrix (cheaper only when most values are non-zero; "
                             "with --standardize, features are then also centred)")
    group.add_argument("--zero-based", action="store_true",
                       help="svmlight feature indices start at 0 (as in files written for LightGBM) instead of 1")
    if command == "fit":
        group.add_argument("--n-features", type=positive_int, metavar="N",
                           help="number of features (default: the largest index in TRAIN); a test file may "
                                "use indices up to N. The model stores it, so predict and evaluate need not")
    if command in ("fit", "evaluate"):
        group.add_argument("--group-file", metavar="FILE",
                           help="rank: documents per query, one number per line, for a file without 'qid:' "
                                "('-': standard input; default: FILE.query or FILE.group beside the data file, if "
                                "present)")
    label_help = ("ARFF: how many of the last attributes are labels" +
                  ("" if command == "fit" else " (default: the number the model was fitted with)"))
    group.add_argument("--labels", type=positive_int, metavar="N", help=label_help)
    group.add_argument("--xml", metavar="FILE",
                       help="ARFF: a Mulan XML file naming the label attributes ('-': standard input; default: "
                            "NAME.xml beside the data file, where the data file is NAME.arff or NAME-train.arff / "
                            "NAME-test.arff)")
    group.add_argument("--missing", type=float, metavar="VALUE",
                       help="ARFF: the number a missing feature value '?' stands for (default: a missing value "
                            "is an error)")
    _add_read_options(parser.add_argument_group("streaming"), command)
    if command == "fit":
        _add_fit_options(parser.add_argument_group("streaming and checkpoints"))


def _add_estimator_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("learner options (each sets the estimator parameter named in brackets)")
    # --tol and --no-early-stopping set one parameter: given together, one would silently undo the other
    stopping = group.add_mutually_exclusive_group()
    for option in estimator_options():
        tasks = tasks_with(option.param)
        scope = "" if len(tasks) == len(TASKS) else f"; {', '.join(tasks)} only"
        default = "" if option.kwargs.get("action") == "store_const" else f"; {_default_text(option.param)}"
        help_text = f"{option.help} [{option.param}{default}{scope}]"
        (stopping if option.param == "tol" else group).add_argument(
            option.flag, dest=_PARAM_PREFIX + option.param, default=argparse.SUPPRESS, help=help_text,
            **option.kwargs)


def _add_model_option(parser: argparse.ArgumentParser, command: str) -> None:
    if command == "fit":
        parser.add_argument("--task", required=True, choices=TASKS, help="what to learn (see 'predtron --help')")
        parser.add_argument("--model", required=True, metavar="MODEL.npz",
                            help="where to save the fitted model ('.npz' is appended to a name without a suffix); "
                                 "its folder must exist, and it is replaced only once the new model is complete")
    else:
        parser.add_argument("--model", required=True, metavar="MODEL.npz",
                            help="a model written by 'predtron fit' ('.npz' is appended to a name without a suffix, "
                                 "as fit does)")
        parser.add_argument("--task", choices=TASKS,
                            help="check that the model was fitted for this task (default: the model's task)")


def _add_fit(commands, full: bool) -> None:
    fit = commands.add_parser("fit", help="fit a model on a training file and save it",
                              description=_FIT_DESCRIPTION, epilog=_FIT_EXAMPLES, formatter_class=_Formatter)
    fit.set_defaults(run=run_fit)
    if not full:
        return
    from predtron.dask.cli import add_cluster_options

    fit.add_argument("data", metavar="TRAIN", nargs="+",
                     help="the training file ('-': standard input); with --workers or --scheduler, several files "
                          "or glob patterns that the workers read themselves (one shard per file; with --stream "
                          "each worker reads its file chunk by chunk at every pass, never holding it)")
    _add_model_option(fit, "fit")
    progress = fit.add_mutually_exclusive_group()
    progress.add_argument("--progress", dest="progress", action="store_const", const=True, default=None,
                          help="show a progress bar over the passes and examples (default: when stderr is a "
                               "terminal)")
    progress.add_argument("--quiet", dest="progress", action="store_const", const=False,
                          help="show neither the progress bar nor the summary line")
    _add_data_options(fit, "fit")
    _add_estimator_options(fit)
    add_cluster_options(fit)


def _add_predict(commands, full: bool) -> None:
    predict = commands.add_parser("predict", help="write one prediction per line for a data file",
                                  description=_PREDICT_DESCRIPTION, epilog=_PREDICT_EXAMPLES,
                                  formatter_class=_Formatter)
    predict.set_defaults(run=run_predict)
    if not full:
        return
    predict.add_argument("data", metavar="TEST", help="the data file to predict ('-': standard input)")
    _add_model_option(predict, "predict")
    predict.add_argument("--output", "-o", metavar="FILE",
                         help="write the predictions to FILE, replaced only once complete (default: stdout)")
    _add_data_options(predict, "predict")


def _add_evaluate(commands, full: bool) -> None:
    evaluate = commands.add_parser("evaluate", help="print a model's metrics on a labelled data file",
                                   description=_EVALUATE_DESCRIPTION, epilog=_EVALUATE_EXAMPLES,
                                   formatter_class=_Formatter)
    evaluate.set_defaults(run=run_evaluate)
    if not full:
        return
    evaluate.add_argument("data", metavar="TEST", help="the labelled data file ('-': standard input)")
    _add_model_option(evaluate, "evaluate")
    evaluate.add_argument("--k", type=positive_int, nargs="+", metavar="K",
                          help="rank: report NDCG@K for each K (default: the model's k)")
    _add_data_options(evaluate, "evaluate")


def _add_compile(commands, full: bool) -> None:
    from predtron.cli_compile import add_compile_command

    add_compile_command(commands, full).set_defaults(watch=_watch_temporaries)


_COMMANDS: dict[str, Callable] = {"fit": _add_fit, "predict": _add_predict, "evaluate": _add_evaluate,
                                  "compile": _add_compile}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of the ``predtron`` program and its subcommands (``compile``: :mod:`predtron.cli_compile`).

    With ``command`` (a command's name, or ``""`` for none), only that command's options are
    built: the others are names without options (their options read the estimator classes,
    which imports the problems).  Without it, every command is built in full.
    """
    tasks = "\n".join(f"  {name:<11} {task.class_name:<29} {task.summary}" for name, task in TASK_TABLE.items())
    parser = _Parser(prog=PROG, description=_DESCRIPTION.format(tasks=tasks), epilog=_EXAMPLES,
                     formatter_class=_Formatter)
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND", required=True,
                                     description="run 'predtron COMMAND --help' for the options of a command",
                                     help="the command to run")
    for name, add in _COMMANDS.items():
        add(commands, command is None or command == name)
    return parser


def _command_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of ``command`` among the subcommands of ``parser``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[command]
    return parser


def _command_of(argv: Sequence[str]) -> str:
    """The command named in ``argv`` (its first word that is not an option), or ``""``."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in _COMMANDS else ""
        if word == "--":
            return ""
    return ""


# ------------------------------------------------------------------ options and files
def read_options(args) -> ReadOptions:
    """The typed read options of the parsed command line (``--chunk-rows`` other than its default
    without ``--stream``, which nothing would read, is refused)."""
    if args.chunk_rows != _DEFAULT_CHUNK_ROWS and not args.stream:
        raise FlagError("--chunk-rows applies to --stream (a file read whole is not read in chunks)")
    return ReadOptions(format=args.format, sparse=args.sparse, zero_based=args.zero_based,
                       group_file=getattr(args, "group_file", None), labels=args.labels, xml=args.xml,
                       missing=args.missing, chunk_rows=args.chunk_rows)


def model_path(text) -> Path:
    """The model file named by ``--model``, by every command: ``.npz`` is appended to a name without a
    suffix (``m`` is ``m.npz``); a name with one is used as it is."""
    if str(text) == "-":
        raise FlagError("--model -: a model is a file (an .npz archive), never standard input or output; give "
                           "a file name")
    if not str(text).strip():
        raise FlagError(f"--model needs a file name (such as model.npz); got {str(text)!r}")
    path = Path(text)
    if path.name in ("", ".", "..") or str(text).endswith(("/", os.sep)):  # (a trailing slash names a folder)
        what = "is" if path.is_dir() else "names"
        raise CommandError(f"--model {text} {what} a folder; give a file name (such as {path / 'model.npz'})")
    return path if path.suffix else path.with_name(path.name + ".npz")


def _check_report(what: str, inputs: dict) -> None:
    """Standard output, where ``what`` goes (predictions, a summary line, metrics), refused before
    any work when it is redirected to one of ``inputs`` (``>> data.svm``): the input would be
    changed."""
    try:
        _files.refuse_same_file("-", what, inputs)
    except ValueError as exc:
        raise CommandError(str(exc)) from None


def _check_output(path, flag: str, inputs: dict, *, folder: bool = False, outputs: dict | None = None) -> None:
    """An output refused before any work: it must be writable (its folder exists, a file can be
    created there, a file is not a folder and a folder not a file; ``folder``: the output is a
    directory, created if missing) and none of ``inputs`` (which may hold the command's other
    ``outputs``: a collision with one of them is named as two outputs, not as an input destroyed)."""
    outputs = outputs or {}
    if path is None and flag != "--output":
        return
    if path is None or str(path) == "-":
        if flag == "--output":  # standard output: it may be redirected to an input (> data.svm)
            _check_report(f"{flag} -", inputs)
            return
        raise FlagError(f"{flag} -: standard output cannot hold a {flag[2:]}; give a "
                           f"{'folder' if folder else 'file'} name")
    try:
        _files.check_writable(path, flag, folder=folder)
        _files.refuse_same_file(path, flag, {name: source for name, source in inputs.items() if name not in outputs})
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    for name, other in outputs.items():  # another output of the command, not an input
        try:
            _files.refuse_same_file(path, flag, {name: other})
        except ValueError:
            raise CommandError(f"{flag} {path} is also {name} {other}: one output would write over the other; "
                               f"choose another path for {flag}") from None
    if flag == "--checkpoint":  # the files the checkpoint writers put in the folder (local and cluster fits)
        import fnmatch

        from predtron import mixing, streaming

        patterns = sorted(set(streaming.CHECKPOINT_FILES + mixing.CHECKPOINT_FILES))
        for name, source in inputs.items():
            if (source is not None and str(source) != "-" and isinstance(source, str | Path)
                    and any(fnmatch.fnmatchcase(Path(source).name, pattern) for pattern in patterns)
                    and _files.same_file(Path(source).parent, path)):
                what = name if name in outputs else f"the input {name}"
                raise CommandError(f"--checkpoint {path} would write over {what} {source} (a checkpoint "
                                   f"writes {', '.join(patterns)} there); choose another folder")


def _check_cache_file(cache) -> None:
    """``--cache FILE`` refused before any work when it exists and is not a cache (the reader would refuse
    it only once the first pass begins, calling it ``cache``); such a file is never overwritten."""
    if cache is None or str(cache) == "-":
        return
    from predtron.data.cache import check_cache_path

    try:
        check_cache_path(cache, {}, "--cache")
    except ValueError as exc:
        raise CommandError(str(exc)) from None


def _check_checkpoint(args, model, inputs: dict, *, cluster: bool) -> None:
    """``--checkpoint DIR`` refused before any work: over an input or over another output (``--model``,
    ``--cache``), and, for a new fit, over a file in ``DIR`` that is not a checkpoint's own."""
    if args.checkpoint is None:
        return
    outputs = {"--model": model, "--cache": args.cache}
    _check_output(args.checkpoint, "--checkpoint", {**inputs, **outputs}, folder=True, outputs=outputs)
    if not args.resume:
        from predtron import mixing, streaming

        try:
            (mixing if cluster else streaming).check_checkpoint_folder(args.checkpoint)
        except ValueError as exc:
            raise CommandError(f"--checkpoint: {exc}") from None


def _inputs(args) -> dict:
    """The files a command reads, by the name the user gave them (and the files found beside the
    data file that a reader would use: a ``.query``/``.group`` sidecar, a Mulan XML file)."""
    from predtron.data.letor import find_sidecar
    from predtron.data.mulan import find_mulan_xml

    names = {"the data file": args.data, "--group-file": getattr(args, "group_file", None), "--xml": args.xml}
    params = {k[len(_PARAM_PREFIX):]: v for k, v in vars(args).items() if k.startswith(_PARAM_PREFIX)}
    names["--cost-matrix"] = params.get("cost_matrix")
    for data in ([] if args.data is None else [args.data] if isinstance(args.data, str | Path) else args.data):
        if str(data) != "-" and Path(data).is_file():
            names[f"the group sizes found beside {data}"] = find_sidecar(data)
            names[f"the Mulan XML file found beside {data}"] = find_mulan_xml(data)
    return names


#: The options naming a file that a command reads besides its data file, as ``(attribute, flag)``.
_SIDE_FILES: tuple[tuple[str, str], ...] = (("group_file", "--group-file"), ("xml", "--xml"),
                                            (_PARAM_PREFIX + "cost_matrix", "--cost-matrix"))


def _side_files_from_standard_input(args, data: str) -> None:
    """Read ``-`` given to ``--group-file``, ``--xml`` or ``--cost-matrix`` from standard input, as the
    data file's ``-`` is (a temporary copy, :func:`~predtron.cli_data.local_path`); standard input is
    read once, so ``-`` given to two of them, or to one and the data file (``data``: ``TRAIN`` or
    ``TEST``), is refused before anything is read."""
    _refuse_standard_input_twice(args, data)
    for attribute, _ in _SIDE_FILES:
        if str(getattr(args, attribute, None)) == "-":
            setattr(args, attribute, local_path("-"))


def _refuse_standard_input_twice(args, data: str) -> None:
    """``-`` given to two of the data file (``data``), ``--group-file``, ``--xml`` and ``--cost-matrix``:
    a :class:`FlagError` (standard input is read once)."""
    named = [flag for attribute, flag in _SIDE_FILES if str(getattr(args, attribute, None)) == "-"]
    paths = args.data if isinstance(args.data, list) else [args.data]
    if "-" in map(str, paths):
        named.insert(0, data)
    if len(named) > 1:
        raise FlagError(f"standard input can be read only once, but {' and '.join(named)} are "
                        f"{'both' if len(named) == 2 else 'all'} '-': give a file for all but one of them")


def estimator_params(task: str, args) -> dict:
    """The estimator parameters given as options (others keep their defaults; the seed is
    ``DEFAULT_SEED``), checked against ``task``."""
    given = _given_params(task, args)
    given.setdefault("random_state", DEFAULT_SEED)
    if "cost_matrix" in given:
        given["cost_matrix"] = read_cost_matrix(given["cost_matrix"])
    return given


def _given_params(task: str, args) -> dict:
    """The estimator parameters given as options, as given (``--cost-matrix`` a path, not read): an
    option that the estimator of ``task`` does not have, or would not use (:func:`_refuse_unused`),
    is a :class:`FlagError`."""
    given = {name[len(_PARAM_PREFIX):]: value for name, value in vars(args).items()
             if name.startswith(_PARAM_PREFIX)}
    accepted = TASK_TABLE[task].core_class().get_params()
    for option in estimator_options():
        if option.param in given and option.param not in accepted:
            raise FlagError(f"{option.flag} does not apply to --task {task} (it applies to "
                            f"{', '.join(tasks_with(option.param))})")
    _refuse_unused(task, given, accepted)
    return given


class _UsedWith(NamedTuple):
    """An option that the estimator of ``tasks`` uses only when ``needs`` is one of ``values``
    (``None``: when ``needs`` is given at all), said ``said`` in the message."""

    param: str
    tasks: tuple[str, ...]
    needs: str
    values: tuple | None
    said: str


#: The options that another option's value decides whether the estimator reads (a contradiction
#: on the command line, refused rather than silently ignored).
_USED_ONLY_WITH = (
    _UsedWith("beta", ("multilabel",), "loss", ("fbeta",), "--loss fbeta"),
    _UsedWith("k", ("multilabel",), "loss", ("precision@k", "recall@k"), "--loss precision@k or recall@k"),
    _UsedWith("reject_label", ("classify",), "reject_cost", None, "--reject-cost"),
    _UsedWith("n_iter_no_change", tuple(TASKS), "tol", None,
              "early stopping, which --tol none and --no-early-stopping turn off"),
)


def _refuse_unused(task: str, given: dict, defaults: dict) -> None:
    """Refuse an option of :data:`_USED_ONLY_WITH` given without what makes the estimator use it."""
    flags = {option.param: option.flag for option in estimator_options()}
    for rule in _USED_ONLY_WITH:
        if task not in rule.tasks or rule.param not in given:
            continue
        value = given.get(rule.needs, defaults[rule.needs])
        if (value is None) if rule.values is None else (value not in rule.values):
            raise FlagError(f"{flags[rule.param]} applies only with {rule.said} (the {task} model would not "
                            "use it)")


def read_cost_matrix(path) -> np.ndarray:
    """A square matrix of costs from a text file: one row per line, whitespace-separated finite numbers.

    The file may be compressed (gzip, bz2); blank lines and ``#`` comments are skipped.  A file
    that is not k rows of k finite numbers raises a :class:`CommandError` naming ``--cost-matrix``,
    the file and the first line at fault, with the value found there.
    """
    import math

    import numpy as np

    from predtron.data.opening import DECOMPRESSION_ERRORS, open_binary, show, where

    flag = f"--cost-matrix {path}"
    if not Path(path).exists():
        raise CommandError(f"cost-matrix file not found: {path} (--cost-matrix)")
    if not Path(path).is_file():
        raise CommandError(f"--cost-matrix {path} is not a regular file (a folder, a pipe or a device); give the "
                           "file of costs")
    rows: list[list[float]] = []
    blank = False  # a line of spaces or a comment was seen
    try:
        with open_binary(Path(path)) as handle:
            for number, raw in enumerate(handle, start=1):
                tokens = raw.split(b"#", 1)[0].split()
                if not tokens:
                    blank = blank or bool(raw.strip())
                    continue
                row = []
                for column, token in enumerate(tokens, start=1):
                    try:
                        value = float(token)
                    except ValueError:
                        raise CommandError(f"{where(flag, number)}: row {len(rows) + 1}, column {column} is "
                                           f"{show(token)}, not a number (expected k rows of k costs)") from None
                    if not math.isfinite(value):
                        raise CommandError(f"{where(flag, number)}: row {len(rows) + 1}, column {column} is "
                                           f"{show(token)}; a cost must be a finite number")
                    row.append(value)
                if rows and len(row) != len(rows[0]):
                    raise CommandError(f"{where(flag, number)}: row {len(rows) + 1} has {len(row)} costs, but row 1 "
                                       f"has {len(rows[0])} (expected k rows of k costs)")
                rows.append(row)
    except DECOMPRESSION_ERRORS as exc:
        raise CommandError(f"{flag} could not be read: {type(exc).__name__}: {one_line(exc)}") from None
    if not rows:
        what = "holds only blank lines and comments" if blank else "is empty"
        raise CommandError(f"{flag} {what}: expected k rows of k costs, one row per line")
    if len(rows) != len(rows[0]):
        raise CommandError(f"{flag}: expected k rows of k costs; got {len(rows)} row{'s' * (len(rows) != 1)} of "
                           f"{len(rows[0])}")
    return np.array(rows, dtype=float)


#: Parameter names of the estimators in the messages of their checks, and the flags that set them.
def _flag_names() -> dict[str, str]:
    return {option.param: option.flag for option in estimator_options() if option.param != "tol"} | {"tol": "--tol"}


def check_params(task: str, params: dict) -> None:
    """Validate the hyperparameters before the (possibly long) read of the data; a message names the flag."""
    estimator = TASK_TABLE[task].core_class(**params)  # the estimator's parameters and checks, without scikit-learn
    try:
        estimator.check_params()
    except (ValueError, TypeError) as exc:
        raise CommandError(_with_flags(str(exc))) from None


def _with_flags(text: str) -> str:
    """An estimator's message with its parameter names replaced by the flags that set them: a name
    with an underscore (``cost_matrix``, ``reject_label``, ...) wherever it stands as a word, since
    no English word is one; another name where it is the subject of the message (``eta must ...``,
    ``eta=...``)."""
    import re

    for param, flag in _flag_names().items():
        after = "" if "_" in param else r"(?=( must| =|=| is | takes))"
        text = re.sub(rf"(?<![\w.-]){param}(?![\w-]){after}", flag, text)
    return text


def fit_model(task: str, data: Dataset, params: dict, verbose: bool):
    """The fitted estimator of ``task``."""
    model = TASK_TABLE[task].core_class(**params, verbose=verbose)  # the rules without scikit-learn
    if TASK_TABLE[task].queries:
        return model.fit(data.X, data.y, group=data.group)
    return model.fit(data.X, data.y)


def load_model(path, task: str | None = None):
    """``(task, estimator, notes)`` from a model file (``notes``: how ``predtron fit`` read the training
    file, ``{}`` for a model saved otherwise); refuses other learners and a model of another task."""
    import importlib
    import zipfile

    from predtron.persistence import load
    from predtron.tasks import task_of_model

    path = model_path(path)
    if not path.exists():
        raise CommandError(f"model file not found: {path} (--model)")
    if path.is_dir():  # as fit names it
        raise CommandError(f"--model {path} is a folder; give a model file (an .npz archive written by 'predtron "
                           "fit')")
    if not path.is_file() or not zipfile.is_zipfile(path):
        raise CommandError(f"{path} is not a predtron model file (not an .npz archive written by 'predtron fit')")
    for module in ("predtron.learners", "predtron.baselines", "predtron.pa", "predtron.reductions"):
        importlib.import_module(module)  # registers every learner a file may name, for the message below
    # The estimators are read as their cores (predtron._models: the same rules, no scikit-learn).
    model, notes = load(path, classes={spec.class_name: spec.core_class for spec in TASK_TABLE.values()}, notes=True)
    found = task_of_model(model)
    if found is None:
        raise CommandError(f"{path} holds a {type(model).__name__}, not a model written by 'predtron fit' "
                           f"(one of {', '.join(t.class_name for t in TASK_TABLE.values())})")
    if task is not None and task != found.name:
        raise CommandError(f"{path} holds a {found.name} model ({found.class_name}), not a {task} model")
    return found.name, model, notes


def check_reading(notes: dict, options: ReadOptions, task: str, path, model) -> None:
    """Refuse to read the file ``path`` for a model otherwise than its training file was read (``notes``,
    :func:`load_model`'s): svmlight with another first feature index (``--zero-based``), or ARFF with
    other feature attributes (another order), where every feature would move to another column,
    silently, or with another number of labels (``--labels``)."""
    from predtron.cli_data import arff_feature_names, check_format

    fitted = _model_arff_labels(model)
    if options.labels is not None and options.xml is None and fitted is not None and options.labels != fitted:
        # (with --xml, the reader first holds --labels to the labels the file names)
        raise CommandError(f"--labels {options.labels}, but the model was fitted with {fitted} labels: omit --labels "
                           f"(a multilabel model reads its own number of labels) or pass --labels {fitted}")
    names = notes.get("feature_names")
    trained = notes.get("zero_based")
    other_base = isinstance(trained, bool) and trained != bool(options.zero_based)
    if not isinstance(names, list) and not other_base:
        return
    fmt = check_format(path, task, options)
    if isinstance(names, list) and fmt == "arff":
        found = arff_feature_names(path, options, _model_arff_labels(model))
        if found is not None and found != names:
            at = next((i for i, (a, b) in enumerate(zip(found, names, strict=False)) if a != b), None)
            if at is None:
                raise CommandError(f"{path} has {len(found)} feature attributes; the model was fitted on "
                                   f"{len(names)}")
            raise CommandError(f"{path} does not have the training file's features: its feature {at + 1} is "
                               f"{found[at]!r} where the model was fitted on {names[at]!r}")
    if not other_base or fmt != "svmlight":
        return
    if trained:
        raise CommandError(f"the model was fitted on svmlight feature indices starting at 0 (--zero-based): pass "
                           f"--zero-based to read {path} the same way")
    raise CommandError(f"the model was fitted on svmlight feature indices starting at 1: drop --zero-based to read "
                       f"{path} the same way")


def _model_arff_labels(model) -> int | None:
    return int(model.n_labels_) if hasattr(model, "n_labels_") else None


def read_for_model(path, options: ReadOptions, task: str, model, need_groups: bool = True) -> Dataset:
    """Read a test file with the model's number of features (and ARFF label count)."""
    from predtron.cli_data import read

    n_features = int(model.n_features_in_)
    with _width_named(n_features, model=True):
        return read(path, task, options, n_features=n_features, n_labels=_model_arff_labels(model),
                    need_groups=need_groups)


@contextlib.contextmanager
def _width_named(n_features: int | None, *, model: bool = False) -> Iterator[None]:
    """Name the number of features a reader was given, which its messages call ``n_features = N``:
    ``--n-features N`` at fit; the model's, and the way to a wider model, at predict and evaluate
    (``model``), in memory and with --stream alike."""
    try:
        yield
    except (ValueError, CommandError) as exc:
        text, given = str(exc), f"n_features = {n_features}"
        if n_features is None or given not in text:
            raise
        if not model:
            raise CommandError(text.replace(given, f"--n-features {n_features}")) from None
        width = f"the model's {n_features} features"
        raise CommandError(f"{text.replace(given, width)} (the model was fitted on {n_features} features; pass "
                           "--n-features to 'predtron fit' when the test file has more)") from None


# ------------------------------------------------------------------ output
def prediction_lines(task: str, predictions, classes=None) -> list[str]:
    """One text line per example: a label, a row of 0/1 labels, or a score.

    A label is written as the training file wrote it: when every class of the model (``classes``)
    is a whole number held as a float (labels beyond int64, such as ``100000000000000000000``,
    which :func:`~predtron.cli_data.as_labels` leaves as floats), a whole label is written with all
    its digits (``1e+20`` and ``0.0`` otherwise), in every chunk alike."""
    import numpy as np

    predictions = np.asarray(predictions)
    if task == "rank":
        return [repr(float(v)) for v in predictions]
    if task == "multilabel":
        rows = predictions.reshape(len(predictions), -1).astype(np.int64)
        return [" ".join(map(str, row)) for row in rows.tolist()]
    known = np.asarray([] if classes is None else classes)
    whole = known.dtype.kind == "f" and known.size > 0 and bool(np.all(np.isfinite(known) & (known % 1 == 0)))
    return [str(int(v)) if whole and isinstance(v, float) and v.is_integer() else str(v)
            for v in predictions.tolist()]


def _classes_of(model):
    """The classes a model predicts (``classes_``; ``None`` for a ranker, which predicts scores)."""
    return getattr(model, "classes_", None)


@contextlib.contextmanager
def _stdout_errors() -> Iterator[None]:
    """A write to (or flush of) standard output that fails (a full disk, a device that refuses
    writes) as a :class:`CommandError` naming standard output; a reader that went away still raises
    ``BrokenPipeError``, which :func:`main` handles."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise CommandError(f"standard output could not be written: {exc.strerror or exc}") from None


def _write_stdout(text: str) -> None:
    """Write ``text`` to standard output (:func:`_stdout_errors`)."""
    with _stdout_errors():
        sys.stdout.write(text)


def _flush_stdout() -> None:
    """Flush standard output: what the command wrote must reach it before the command reports
    success (a buffered write to a full disk fails only here; :func:`_stdout_errors`)."""
    with _stdout_errors():
        sys.stdout.flush()


class _Stdout:
    """Standard output as :func:`_output` hands it out: ``write`` is :func:`_write_stdout`."""

    @staticmethod
    def write(text: str) -> None:
        _write_stdout(text)


@contextlib.contextmanager
def _output(output):
    """stdout (``None`` or ``-``), or a file written under a temporary name and renamed when complete."""
    if output is None or output == "-":
        yield _Stdout()
        return
    try:
        with _files.atomic_path(output) as temporary, open(temporary, "w") as handle:
            yield handle
    except OSError as exc:  # a full disk, a device that refuses writes: the flag, the file and the reason
        raise CommandError(f"--output {output}: {exc.strerror or exc}") from None


def metric_lines(values: Sequence[tuple[str, float]]) -> list[str]:
    """``name: value`` lines, values rounded to :data:`DECIMALS` decimals."""
    return [f"{name}: {value:.{DECIMALS}f}" for name, value in values]


def _summary(path: Path, task: str, model, n: int | None, p: int, queries: int | None, streamed: bool,
             files: int | None = None) -> str:
    """The line ``fit`` prints: the model and its file, the data (``n`` examples, or with ``files`` the
    number of files a cluster's workers read), the features, the classes, labels or queries, and the
    epochs made (of at most ``epochs``, when early stopping ended the fit before)."""
    extra = f", {queries} queries" if queries else ""
    if task == "multilabel":
        extra = f", {model.n_labels_} labels"
    elif TASK_TABLE[task].classes:
        extra = f", {len(model.classes_)} {'levels' if task == 'ordinal' else 'classes'}"
    passes = int(model.n_iter_)  # the passes made (early stopping may end before ``epochs``)
    stopped = f" (of at most {model.epochs})" if passes < model.epochs else ""
    rows = f"{n} examples" if n else "examples"
    data = f"{files} file{'s' * (files != 1)} on a Dask cluster, {p} features" if files else f"{rows} x {p} features"
    return (f"saved {TASK_TABLE[task].class_name} ({task}) to {path}: {data}{extra}, "
            f"{passes} epoch{'s' if passes != 1 else ''}{stopped}{', streamed' if streamed else ''}")


def _save(model, path: Path, options: ReadOptions, data_path, task: str) -> Path:
    """Write ``model`` to ``path`` atomically (the temporary is listed for the Ctrl-C handler), with
    the notes of how the training file ``data_path`` was read with ``options`` (:func:`check_reading`):
    svmlight's first feature index, and an ARFF file's feature attributes."""
    from predtron.cli_data import arff_feature_names, check_format
    from predtron.persistence import save

    notes: dict = {"zero_based": bool(options.zero_based)}
    if check_format(data_path, task, options) == "arff":
        names = arff_feature_names(data_path, options)
        if names is not None:
            notes["feature_names"] = names
    try:
        with _files.atomic_path(path, suffix=".npz") as temporary:
            save(model, temporary, notes=notes)
    except OSError as exc:
        raise CommandError(f"--model {path}: {exc.strerror or exc}") from None
    return path


#: The start of an estimator's message about an input value beyond its limit (it names its argument ``X``).
_LARGE_VALUE = "X has an entry of magnitude "


@contextlib.contextmanager
def _large_values_located(paths: Sequence, task: str, options: ReadOptions, n_features: int | None = None,
                          n_labels: int | None = None) -> Iterator[None]:
    """Name the file, line and feature of a value that an estimator refused as too large (its message
    names ``X``, the array it saw): the data files ``paths`` are read again to find it
    (:func:`predtron.cli_data.locate_large_value`)."""
    try:
        yield
    except (ValueError, CommandError) as exc:
        if not str(exc).startswith(_LARGE_VALUE):
            raise
        from predtron.cli_data import locate_large_value

        for path in paths:
            found = locate_large_value(path, task, options, n_features, n_labels)
            if found is not None:
                raise CommandError(found) from None
        files = " or ".join(str(path) for path in paths)
        raise CommandError(f"{files} has a feature value of magnitude {str(exc)[len(_LARGE_VALUE):]}") from None


# ------------------------------------------------------------------ commands
def _cluster_files(args) -> bool:
    """Whether ``fit`` was given several files or a glob pattern (a fit on a cluster whose workers
    read the files); several files without a cluster are refused."""
    from predtron.dask.cli import is_pattern

    several = len(args.data) > 1 or any(is_pattern(d) for d in args.data)
    if args.data != ["-"] and (args.workers is not None or args.scheduler is not None) and (
            args.stream or args.checkpoint is not None or args.resume):
        return True  # one file read (or streamed) by a worker: one shard, checkpointed
    if several and args.workers is None and args.scheduler is None:
        raise FlagError(f"several training files ({len(args.data)} given) or a glob pattern need a cluster: "
                        "add --workers N or --scheduler ADDRESS (each worker then reads its own files), or give "
                        "one file")
    if several and ("-" in args.data):
        raise FlagError("'-' (standard input) cannot be one of several training files")
    return several


def _training_files(paths: Sequence[str]) -> list[str]:
    """The files of ``TRAIN`` for a cluster (its glob patterns expanded), each checked as one training file
    is (:func:`predtron.cli_data.check_data_file`: a missing file, or a folder, is named)."""
    from predtron.dask.cli import expand_paths, is_pattern

    for text in paths:
        if not is_pattern(text):
            check_data_file(text)
    try:
        return expand_paths(paths)
    except ValueError as exc:  # (its message names its Python argument, ``paths``)
        raise CommandError(f"TRAIN: {str(exc).removeprefix('paths: ')}") from None


def _read_by_workers(args) -> str:
    """Why the workers of a cluster fit read its training files themselves: several files, a glob
    pattern, or one file with ``--stream``, ``--checkpoint`` or ``--resume`` (:func:`_cluster_files`)."""
    from predtron.dask.cli import is_pattern

    if len(args.data) > 1:
        return f"{len(args.data)} files"
    if is_pattern(args.data[0]):
        return "a glob pattern"
    flags = [flag for flag, given in (("--stream", args.stream), ("--checkpoint", args.checkpoint is not None),
                                      ("--resume", args.resume)) if given]
    return f"one file with {' and '.join(flags)}"


def _refuse_cluster_file_flags(args) -> None:
    """The flags that do not apply to a fit whose workers read the training files (:func:`_cluster_files`),
    refused (:class:`FlagError`) before any file is checked or read."""
    from predtron.dask.cli import GROUP_FILE_ON_CLUSTER

    refused = [flag for flag, value in (("--classes", args.classes), ("--shards", args.shards),
                                        ("--cache", args.cache and not args.stream)) if value]
    if refused:
        raise FlagError(f"{refused[0]} does not apply to a cluster fit whose workers read the training files "
                        f"themselves ({_read_by_workers(args)}: one shard per file"
                        f"{'; --cache applies to --stream' if refused[0] == '--cache' else ''})")
    if args.statistics is not None and (args.statistics == "first-chunk" or not args.stream):
        raise FlagError("--statistics applies to --stream" if not args.stream else
                        "--statistics first-chunk does not apply to a cluster fit: it scales by the statistics of "
                        "all its files (--statistics file)")
    if getattr(args, "group_file", None) is not None:
        raise FlagError(GROUP_FILE_ON_CLUSTER)
    given = _given_params(args.task, args)  # (an option the task does not have, or would not use, refused)
    if args.stream and given.get("shuffle") is True:
        raise FlagError("--shuffle does not apply to --stream: each worker reads its file in file order "
                        "(shuffle the files beforehand)")
    read_options(args)  # (--chunk-rows without --stream refused)


def _fit_files_on_cluster(args, path) -> int:
    """``predtron fit FILE... --workers N``: the workers read their shards (one per file); the command
    holds only the mixed parameters, checkpointed after every epoch with ``--checkpoint``."""
    from predtron.cli_data import check_format
    from predtron.dask.cli import file_options, fit_files_on_cluster

    options = read_options(args)
    files = _training_files(args.data)
    # the files the workers read, and those read with them (the sidecars found beside each, --xml, --cost-matrix)
    read_with = _inputs(argparse.Namespace(**{**vars(args), "data": files}))
    inputs = {f"the data file {f}": f for f in files} | {k: v for k, v in read_with.items() if k != "the data file"}
    _check_output(path, "--model", inputs)
    if args.progress is not False:
        _check_report(_FIT_SUMMARY, inputs)
    _check_checkpoint(args, path, inputs, cluster=True)
    _check_output(args.cache, "--cache", inputs, folder=True, outputs={"--model": path})
    _watch_temporaries(args.checkpoint, folder=True)
    _watch_temporaries(args.cache, folder=True)
    params = estimator_params(args.task, args)
    check_params(args.task, params)
    if args.stream:
        params = {**params, "shuffle": False}
    verbose = sys.stderr.isatty() if args.progress is None else args.progress
    try:
        for f in files:
            check_format(f, args.task, options)
        reading = file_options(args.task, options, args.n_features, args.stream, files[0])
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    try:
        with _width_named(args.n_features), _large_values_located(files, args.task, options, args.n_features), \
                _mixing_bar(verbose, args.task, params) as progress:
            model = fit_files_on_cluster(args.task, files, params, workers=args.workers, scheduler=args.scheduler,
                                         mixing=args.mixing or "uniform", file_options=reading,
                                         **_rounds(args),
                                         checkpoint=args.checkpoint, resume=args.resume, stream=args.stream,
                                         cache=args.cache, progress=progress)
    except ValueError as exc:
        raise CommandError(_with_flags(str(exc))) from None
    _save(model, path, options, files[0], args.task)
    if args.progress is not False:
        _write_stdout(_summary(path, args.task, model, None, int(model.n_features_in_), None, args.stream,
                               files=len(files)) + "\n")
    return 0



def _rounds(args) -> dict:
    """``--mixing-rounds`` as the Dask estimators' keyword (none: their default)."""
    return {} if args.mixing_rounds is None else {"mixing_rounds": args.mixing_rounds}


@contextlib.contextmanager
def _mixing_bar(verbose: bool, task: str, params: dict) -> Iterator[Callable[[int], None] | None]:
    """The progress bar of a cluster fit (``--progress``): one step per mixing epoch, ended at the
    epochs made (early stopping may end the fit before ``--epochs``); yields the Dask estimators'
    ``progress(epoch)`` callable, ``None`` when not ``verbose``."""
    if not verbose:
        yield None
        return
    from tqdm.auto import tqdm

    bar = tqdm(total=params.get("epochs") or TASK_TABLE[task].core_class().epochs, unit="epoch", desc="mixing",
               leave=True)
    try:
        yield lambda epoch: bar.update(epoch - bar.n)
    finally:
        bar.n = bar.total = max(bar.n, 1)
        bar.close()


#: What ``predtron fit`` writes to standard output (unless ``--quiet``), as its messages name it.
_FIT_SUMMARY = "the summary line of fit (--quiet prints none)"


def run_fit(args) -> int:
    """``predtron fit``: check the outputs, read, fit, save (the model file is replaced only by a complete model)."""
    from predtron.cli_stream import StreamFit, check_fit_args, stream_fit
    from predtron.dask.cli import cluster_requested

    # the flags that contradict each other, refused (FlagError) before any file is checked or read
    path = model_path(args.model)
    _refuse_standard_input_twice(args, "TRAIN")
    if args.resume and args.checkpoint is None:  # (every fit: in memory, streamed, on a cluster)
        raise FlagError("--resume needs --checkpoint DIR (the directory of the checkpoint to continue)")
    if args.classes is not None and not TASK_TABLE[args.task].classes:
        raise FlagError(f"--classes does not apply to --task {args.task} (it applies to "
                        f"{', '.join(name for name, spec in TASK_TABLE.items() if spec.classes)}, with --stream)")
    if getattr(args, "group_file", None) is not None and not TASK_TABLE[args.task].queries:
        raise FlagError(f"--group-file applies to the rank task, not {args.task}")
    if _cluster_files(args):
        _refuse_cluster_file_flags(args)
        _side_files_from_standard_input(args, "TRAIN")
        return _fit_files_on_cluster(args, path)
    args.data = args.data[0]
    given = _given_params(args.task, args)
    cluster_requested(args)
    check_fit_args(StreamFit(args.data, read_options(args), classes=args.classes, cache=args.cache,
                             checkpoint=args.checkpoint, statistics=args.statistics), given, streaming=args.stream)
    _side_files_from_standard_input(args, "TRAIN")
    inputs = _inputs(args)
    _check_output(path, "--model", inputs)
    if args.progress is not False:
        _check_report(_FIT_SUMMARY, inputs)
    _check_output(args.cache, "--cache", inputs, outputs={"--model": path})
    _check_cache_file(args.cache if args.stream else None)  # (without --stream, --cache was refused above)
    _check_checkpoint(args, path, inputs, cluster=False)
    _watch_temporaries(args.cache)
    _watch_temporaries(args.checkpoint, folder=True)
    params = estimator_params(args.task, args)
    check_params(args.task, params)
    on_cluster = cluster_requested(args)
    verbose = sys.stderr.isatty() if args.progress is None else args.progress
    data_path = local_path(args.data)
    options = read_options(args)
    request = StreamFit(data_path, options, n_features=args.n_features,
                        classes=None if args.classes is None else tuple(args.classes), cache=args.cache,
                        checkpoint=args.checkpoint, resume=args.resume, statistics=args.statistics)
    check_fit_args(request, params, streaming=args.stream)
    if args.stream:
        check_data_file(data_path)
        with _width_named(args.n_features), _large_values_located([data_path], args.task, options, args.n_features):
            model, counts = stream_fit(request, args.task, params, verbose)
        _save(model, path, options, data_path, args.task)
        if args.progress is not False:
            _write_stdout(_summary(path, args.task, model, counts["rows"], counts["features"], counts["queries"],
                                   True) + "\n")
        return 0
    from predtron.cli_data import check_format, read

    # (an ARFF file's width is its header's: --n-features is checked against it below, as a flag)
    sized = args.n_features if check_format(check_data_file(data_path), args.task, options) == "svmlight" else None
    with _width_named(args.n_features):
        data = read(data_path, args.task, options, n_features=sized)
    if args.n_features is not None and data.X.shape[1] != args.n_features:
        raise CommandError(f"{args.data} has {data.X.shape[1]} features, not --n-features {args.n_features}")
    with _width_named(args.n_features), _large_values_located([data_path], args.task, options, args.n_features):
        model = _fit_read_data(args, request, data, params, verbose, on_cluster)
    _save(model, path, options, data_path, args.task)
    if args.progress is not False:
        queries = None if data.group is None else len(data.group)
        _write_stdout(_summary(path, args.task, model, data.X.shape[0], data.X.shape[1], queries, False) + "\n")
    return 0


def _fit_read_data(args, request, data: Dataset, params: dict, verbose: bool, on_cluster: bool):
    """The model of ``predtron fit`` on the data read in memory: on a cluster (``on_cluster``),
    checkpointed, or at once."""
    from predtron.cli_stream import checkpointed_fit

    if on_cluster:
        from predtron.dask.cli import fit_on_cluster

        with _mixing_bar(verbose, args.task, params) as progress:
            return fit_on_cluster(args.task, data.X, data.y, data.group, params, workers=args.workers,
                                  scheduler=args.scheduler, shards=args.shards, mixing=args.mixing, progress=progress,
                                  **_rounds(args))
    if args.checkpoint is not None or args.resume:
        return checkpointed_fit(request, args.task, data, params, verbose)
    try:
        return fit_model(args.task, data, params, verbose)
    except ValueError as exc:
        raise CommandError(_with_flags(str(exc))) from None


def run_predict(args) -> int:
    """``predtron predict``: one prediction per line."""
    read_options(args)  # (first: a flag refused is a usage error, whatever the files)
    _refuse_standard_input_twice(args, "TEST")
    _check_output(args.output, "--output", {**_inputs(args), "--model": model_path(args.model)})
    _side_files_from_standard_input(args, "TEST")
    task, model, notes = load_model(args.model, args.task)
    options = read_options(args)  # (with the copies of standard input)
    data_path = local_path(args.data)
    check_reading(notes, options, task, data_path, model)
    located = _large_values_located([data_path], task, options, int(model.n_features_in_), _model_arff_labels(model))
    if args.stream:
        from predtron.cli_stream import stream_predictions

        check_data_file(data_path)
        verbose = sys.stderr.isatty() and args.output not in (None, "-")
        with _width_named(int(model.n_features_in_), model=True), located, _output(args.output) as out:
            for predictions in stream_predictions(data_path, options, task, model, verbose):
                out.write("".join(line + "\n" for line in prediction_lines(task, predictions, _classes_of(model))))
        return 0
    data = read_for_model(data_path, options, task, model, need_groups=False)
    with located:
        lines = prediction_lines(task, model.predict(data.X), _classes_of(model))
    with _output(args.output) as out:
        out.write("".join(line + "\n" for line in lines))
    return 0


#: A model's message about the labels ``y`` it scores, and the same about the labels of the test file.
_SCORED_LABELS: tuple[tuple[str, str], ...] = ((r"^y holds ", "the labels of {file} hold "),
                                               (r"^y must ", "the labels of {file} must "))


@contextlib.contextmanager
def _scored_labels(path) -> Iterator[None]:
    """Name the labels a model scores (``y`` in the estimators' messages) as the labels of the test file ``path``."""
    import re

    from predtron.cli_data import DataError

    try:
        yield
    except ValueError as exc:
        if not isinstance(exc, DataError):  # (the readers' messages name the file already)
            for pattern, replacement in _SCORED_LABELS:
                found = re.match(pattern, str(exc))
                if found:
                    raise CommandError(replacement.format(file=path) + str(exc)[found.end():]) from None
        raise


def run_evaluate(args) -> int:
    """``predtron evaluate``: one ``name: value`` line per metric."""
    read_options(args)  # (first: a flag refused is a usage error, whatever the files)
    model_path(args.model)
    _side_files_from_standard_input(args, "TEST")
    _check_report("the metrics of evaluate", {**_inputs(args), "--model": model_path(args.model)})
    task, model, notes = load_model(args.model, args.task)
    if args.k is not None and task != "rank":  # (the model's task, read from its file: bad input)
        raise CommandError(f"--k applies to rank models; {model_path(args.model)} is a {task} model")
    options = read_options(args)  # (with the copies of standard input)
    data_path = local_path(args.data)
    check_reading(notes, options, task, data_path, model)
    located = _large_values_located([data_path], task, options, int(model.n_features_in_), _model_arff_labels(model))
    if args.stream:
        from predtron.cli_stream import stream_metrics

        check_data_file(data_path)
        with _width_named(int(model.n_features_in_), model=True), located, _scored_labels(data_path):
            values = stream_metrics(data_path, options, task, model, args.k)
    else:
        data = read_for_model(data_path, options, task, model)
        with located, _scored_labels(data_path):
            values = TASK_TABLE[task].metrics(model, data, args.k)
    _write_stdout("".join(line + "\n" for line in metric_lines(values)))
    return 0


# ------------------------------------------------------------------ interrupts
def _kill_children() -> None:
    """End the processes this one started (a local Dask cluster's), if any."""
    if "distributed" not in sys.modules and "multiprocessing" not in sys.modules:
        return
    try:
        import psutil

        children = psutil.Process().children(recursive=True)
    except Exception:
        return
    for child in children:
        with contextlib.suppress(Exception):
            child.kill()


def _interrupted(signum, frame) -> None:  # pragma: no cover (runs in a subprocess test)
    """The SIGINT (and SIGTERM) handler of a command: remove the files being written, one line,
    exit 130 (143 for SIGTERM, ``kill``'s default signal: 128 plus the signal's number) at once.

    ``os._exit`` ends the process without unwinding (a ``KeyboardInterrupt`` raised inside a
    compiled kernel's caller or a reader thread's queue gave tracebacks and segfaults in the
    interpreter's teardown) and without ``atexit`` handlers; everything that must not survive
    (the temporary files of :func:`predtron._files.atomic_path`, the copy of standard input, a
    local cluster's processes) is removed here first.
    """
    _files.discard_pending()
    discard_spools()
    name = f"{PROG} {_RUNNING[-1]}" if _RUNNING and _RUNNING[-1] else PROG
    terminated = signum == signal.SIGTERM
    stderr = _silence_stderr()
    _kill_children()
    _discard_output_temporaries()  # (once the children that write them are gone)
    _files.discard_pending()  # again: the folders a fit made, empty now that their temporaries are gone
    with contextlib.suppress(OSError):
        os.write(stderr, f"{name}: {'terminated' if terminated else 'interrupted'}\n".encode())
    os._exit(TERMINATED if terminated else INTERRUPTED)


def _silence_stderr() -> int:
    """Point file descriptor 2 at the null device and return a copy of the one it was (2 itself if that
    fails), for the handler's one line: what the process's other threads write while it ends (a local
    cluster's threads; multiprocessing's warning and traceback when :func:`_kill_children` has ended
    its resource tracker) goes nowhere."""
    try:
        stderr = os.dup(2)
    except OSError:
        return 2
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    except OSError:
        os.close(stderr)
        return 2
    return stderr


_RUNNING: list[str] = []

#: ``(folder, pattern)`` of the temporaries that writers not yet on :func:`predtron._files.atomic_path`
#: (the stream cache's writer, the checkpoints') make beside an output of this command, and the time it started.
_TEMPORARIES: list[tuple[Path, str]] = []
_STARTED = [0.0]


def _watch_temporaries(output, *, folder: bool = False) -> None:
    """Note where the temporaries of ``output`` (a file; with ``folder``, a directory) would be written."""
    if output is None:
        return
    output = Path(output)
    if folder:
        _TEMPORARIES.append((output, "*.tmp*"))
    else:
        _TEMPORARIES.append((output.parent, f"{glob.escape(output.name)}.*.tmp*"))


def _discard_output_temporaries() -> None:
    """Remove the temporaries noted by :func:`_watch_temporaries` made since the command started."""
    for folder, pattern in _TEMPORARIES:
        with contextlib.suppress(OSError):
            for path in folder.glob(pattern):
                if path.is_file() and path.stat().st_mtime >= _STARTED[0] - 1.0:
                    path.unlink()


@contextlib.contextmanager
def _interrupt_handler(command: str, program: bool = False):
    """Install :func:`_interrupted` for SIGINT while a command runs (main thread only), then restore.

    For the program itself (``program``), SIGINT is ignored once the command has finished instead:
    its files are complete, and a Ctrl-C during the interpreter's teardown must neither print a
    traceback nor kill the process by the signal (the restored default handler did both)."""
    try:
        previous = signal.signal(signal.SIGINT, _interrupted)
    except ValueError:  # not the main thread: leave the handler as it is
        yield
        return
    previous_term = signal.signal(signal.SIGTERM, _interrupted)
    _RUNNING.append(command)
    _STARTED[0] = time.time()
    try:
        yield
    finally:
        _RUNNING.pop()
        _TEMPORARIES.clear()
        signal.signal(signal.SIGINT, signal.SIG_IGN if program else previous)
        signal.signal(signal.SIGTERM, previous_term)


# ------------------------------------------------------------------ entry point
def one_line(exc: BaseException) -> str:
    """An exception's message on one line (whitespace runs collapsed)."""
    text = " ".join(str(exc).split())
    if isinstance(exc, MemoryError):
        return f"out of memory{': ' + text if text else ''}"
    return text or type(exc).__name__


BAD_INPUT = (CommandError, ValueError, TypeError, OSError, MemoryError)


#: An estimator's message in the command line's terms (after :func:`_with_flags`): the seed's
#: accepted values, and the labels the estimators call ``y``.  (The readers' messages are put in
#: the command line's terms by :func:`predtron.cli_data.flag_message`.)
_USER_TERMS: tuple[tuple[str, str], ...] = (
    (r"--seed must be None, an integer >= 0 or a numpy Generator", "--seed must be an integer >= 0"),
    (r"^y holds labels not in classes_ ", "the training labels hold labels not in --classes "),
    (r"^y must hold ", "the training labels must hold "),
    (r"^classes\[\d+\] is (.*); a class must be", r"--classes holds \1; a class must be"),
    (r"\b(classes|a class) of y\b", r"\1 of the training labels"),
    (r"--loss='([^']*)' needs k, ", r"--loss \1 needs --k K, "),
    (r"--k must be at most n_labels=(\d+); got --k=(\d+)", r"--k must be at most \1, the number of labels; got \2"),
    (r"^Unknown label type: continuous\..*", "the training labels are continuous values, not classes (classify and "
                                             "ordinal learn from a finite set of labels)"),
)


def _in_user_terms(exc: BaseException) -> str:
    """The message of ``exc`` for the command line, on one line: the flags for the Python arguments
    of a library's message (:func:`_with_flags`, :data:`_USER_TERMS`; the command's own messages and
    the readers' already name flags) and "standard input" for the temporary copy that ``-`` reads."""
    import re

    from predtron.cli_data import DataError

    text = one_line(exc)
    if not isinstance(exc, CommandError | DataError):
        text = _with_flags(text)
    for pattern, replacement in _USER_TERMS:
        text = re.sub(pattern, replacement, text)
    for spool in spool_names():  # (standard input has no sidecar file to suggest)
        text = re.sub(rf", or put the sizes, one per line, in {re.escape(spool)}\.\w+", "", text)
        text = text.replace(spool, "standard input")
    return text


def _one_line_warning(command: str | None) -> Callable:
    """A ``warnings.showwarning`` for the command line: ``predtron COMMAND: warning: <message>`` on one
    line of stderr (not Python's file name, line number and source line)."""
    name = f"{PROG} {command}" if command else PROG

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        with contextlib.suppress(OSError, ValueError):
            print(f"{name}: warning: {one_line(message)}", file=sys.stderr if file is None else file)

    return show


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``predtron`` command line on ``argv`` (default ``sys.argv[1:]``); return the exit status.

    0 on success, 1 on bad input (a message on one line on stderr), 2 on a usage error (also flags
    that contradict each other, :class:`~predtron.cli_data.FlagError`, found before any data is read),
    130 when interrupted (Ctrl-C ends the process at once, see :func:`_interrupted`), 143 when
    ended by SIGTERM (handled the same way).
    """
    program = argv is None  # the console script or python -m predtron, not a call from Python code
    argv = sys.argv[1:] if argv is None else list(argv)
    command = _command_of(argv)
    with _interrupt_handler(command, program), warnings.catch_warnings():
        warnings.showwarning = _one_line_warning(command)  # restored by catch_warnings
        try:
            parser = build_parser(command)
            args, extra = parser.parse_known_args(argv)
            if extra:  # named by the command's parser ('predtron predict: ... --help'), not the program's
                _command_parser(parser, args.command).error(f"unrecognized arguments: {' '.join(extra)}")
        except UsageError as exc:
            print(exc, file=sys.stderr)
            return 2
        run: Callable[[argparse.Namespace], int] = args.run
        try:
            status = run(args)
            _flush_stdout()
            return status
        except KeyboardInterrupt:
            _files.discard_pending()
            print(f"{PROG} {args.command}: interrupted", file=sys.stderr)
            return INTERRUPTED
        except BrokenPipeError:  # the reader of stdout went away (e.g. `| head`)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 0
        except FlagError as exc:  # a usage error found after parsing: said as the parser says its own
            print(f"{PROG} {args.command}: error: {one_line(exc)} (see '{PROG} {args.command} --help')",
                  file=sys.stderr)
            return 2
        except BAD_INPUT as exc:
            print(f"{PROG} {args.command}: error: {_in_user_terms(exc)}", file=sys.stderr)
            return 1
        finally:
            discard_spools()

