"""The ``predtron`` command line: fit, predict and evaluate the estimators of :mod:`predtron.sklearn` on files.

::

    predtron fit TRAIN --task {classify,multilabel,ordinal,rank} --model MODEL.npz [options]
    predtron predict TEST --model MODEL.npz [--output FILE]
    predtron evaluate TEST --model MODEL.npz [--k K ...]

Data files are read by the loaders of :mod:`predtron.data` (every malformed line is reported
with its file and line number): svmlight / LibSVM / LETOR text for classification, ordinal
regression and ranking (queries from ``qid:``, from a LightGBM ``.query`` / ``.group`` file
beside the data, or from ``--group-file``), and Mulan ARFF for multilabel data.  A model is
written by :func:`predtron.save` (an ``.npz`` archive with a JSON header, no pickle); it
records its estimator, hence its task, and the number of features, so ``predict`` and
``evaluate`` need neither.

Every hyperparameter option maps to one constructor parameter of the task's estimator; an
option left out keeps the estimator's own default (the help shows the defaults, read from the
estimator classes).  Bad input ends the command with exit status 1 (2 for a usage error) and
one line on stderr, never a traceback.  ``main(argv)`` returns the exit status; the console
script ``predtron`` and ``python -m predtron`` call it.
"""

from __future__ import annotations

import argparse
import os
import sys
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
from sklearn.metrics import accuracy_score, hamming_loss

from predtron._version import __version__
from predtron.cli_stream import (
    add_fit_options,
    add_read_options,
    as_labels,
    checkpointed_fit,
    label_value,
    positive_int,
    stream_fit,
    stream_metrics,
    stream_predictions,
)
from predtron.dask.cli import add_cluster_options, cluster_requested, fit_on_cluster
from predtron.data import load_arff, load_letor, load_svmlight
from predtron.data.opening import DECOMPRESSION_ERRORS, check_file, open_binary
from predtron.persistence import load
from predtron.problems.multilabel import LOSSES as MULTILABEL_LOSSES
from predtron.problems.ranking_measures import F_CHOICES
from predtron.sklearn import (
    PredtronClassifier,
    PredtronMultilabelClassifier,
    PredtronOrdinalClassifier,
    PredtronRanker,
)
from predtron.streaming import atomic_save

PROG = "predtron"

#: The estimator of each task.
ESTIMATORS = {
    "classify": PredtronClassifier,
    "multilabel": PredtronMultilabelClassifier,
    "ordinal": PredtronOrdinalClassifier,
    "rank": PredtronRanker,
}
TASKS = tuple(ESTIMATORS)
TASK_OF = {cls.__name__: task for task, cls in ESTIMATORS.items()}

#: Which file format each task reads.
TASK_FORMATS = {"classify": "svmlight", "ordinal": "svmlight", "rank": "svmlight", "multilabel": "arff"}
FORMATS = ("auto", "svmlight", "arff")
FORMAT_NAMES = {"svmlight": "svmlight", "arff": "ARFF"}
SVMLIGHT_SUFFIXES = (".svm", ".svmlight", ".libsvm", ".letor", ".txt", ".dat")
COMPRESSION_SUFFIXES = (".gz", ".bz2")

#: Number of decimals of the metrics printed by ``evaluate``.
DECIMALS = 4

#: The module's interface: the program (``main``), its parser and the format detection it uses;
#: the other functions are the program's steps.
__all__ = ["build_parser", "detect_format", "main"]


class CommandError(Exception):
    """Bad input found by the command line itself (printed on one line by :func:`main`)."""


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




def _describe(value) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return "none" if value is None else str(value)


def _default_text(param: str) -> str:
    """The default of ``param``, read from the estimator classes that take it."""
    defaults = {task: cls().get_params()[param] for task, cls in ESTIMATORS.items() if param in cls().get_params()}
    shown = {_describe(v) for v in defaults.values()}
    if len(shown) == 1:
        return f"default: {shown.pop()}"
    return "default: " + ", ".join(f"{_describe(v)} for {task}" for task, v in defaults.items())


def tasks_with(param: str) -> tuple[str, ...]:
    """The tasks whose estimator has the constructor parameter ``param``."""
    return tuple(task for task, cls in ESTIMATORS.items() if param in cls().get_params())


class _Option(NamedTuple):
    """A ``fit`` option setting one estimator parameter."""

    flag: str
    param: str
    kwargs: dict
    help: str


_BOOL = {"action": argparse.BooleanOptionalAction}

ESTIMATOR_OPTIONS = (
    _Option("--epochs", "epochs", {"type": int, "metavar": "N"}, "passes over the training data"),
    _Option("--eta", "eta", {"type": float, "metavar": "STEP"}, "step size of the update (> 0)"),
    _Option("--average", "average", _BOOL,
            "predict with the averaged iterate; --no-average keeps the last one, as Algorithm 1 of the paper"),
    _Option("--shuffle", "shuffle", _BOOL,
            "visit the training examples in a new random order at every pass; --no-shuffle keeps file order"),
    _Option("--seed", "random_state", {"type": int, "metavar": "INT"},
            "seed of the shuffling (none: a different order at every run)"),
    _Option("--intercept", "fit_intercept", _BOOL, "learn a bias for every score"),
    _Option("--standardize", "standardize", _BOOL,
            "scale every feature to unit variance with the training statistics (dense input is also centred)"),
    _Option("--update", "update", {"choices": ("oracle", "prediction")},
            "which prediction enters the update: the loss-augmented oracle (Algorithm 1) or the prediction"),
    _Option("--loss-driven", "loss_driven", _BOOL, "Predtron.LD: scale each step by the loss just suffered"),
    _Option("--loss", "loss", {"choices": MULTILABEL_LOSSES}, "the multilabel loss learned"),
    _Option("--k", "k", {"type": positive_int, "metavar": "K"},
            "rank: the cut-off of the NDCG@k that evaluate reports; multilabel: the k of precision@k and recall@k"),
    _Option("--beta", "beta", {"type": float, "metavar": "BETA"}, "the beta of the fbeta loss"),
    _Option("--train-k", "train_k", {"type": positive_int, "metavar": "K"},
            "cut-off of the NDCG loss the ranker learns (none: the full NDCG)"),
    _Option("--f", "f", {"choices": sorted(F_CHOICES)}, "position values of the ranking representation"),
    _Option("--cost-matrix", "cost_matrix", {"metavar": "FILE"},
            "a text file of k rows of k costs: row i, column j is the cost of predicting the i-th class "
            "(classes sorted) for an example of the j-th; zero diagonal (none: 0-1 loss)"),
    _Option("--reject-cost", "reject_cost", {"type": float, "metavar": "COST"},
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
  classify    PredtronClassifier            binary or multiclass labels, optional cost matrix
  multilabel  PredtronMultilabelClassifier  0/1 label columns of a Mulan ARFF file
  ordinal     PredtronOrdinalClassifier     ordered labels, absolute loss
  rank        PredtronRanker                relevance grades of documents grouped in queries

File formats: svmlight / LibSVM / LETOR text ('<label> [qid:<q>] <index>:<value> ...',
plain, .gz or .bz2) for classify, ordinal and rank; ARFF (dense or sparse rows) for
multilabel. Models are .npz files (arrays and a JSON header, no pickle)."""

_FIT_DESCRIPTION = """\
Fit the estimator of --task on TRAIN and save it to --model.

classify and ordinal read the label at the start of each svmlight line; rank reads
relevance grades and queries from 'qid:' fields, or from group sizes (one per line) in
TRAIN.query / TRAIN.group or --group-file; multilabel reads an ARFF file whose label
attributes are the last --labels N ones or those named by a Mulan --xml file.
Options left out keep the estimator's defaults (shown below); with --no-average
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
its labels are ignored, and a ranking file needs no query information."""

_PREDICT_EXAMPLES = """\
examples:
  predtron predict predtron/data/files/letor-mq2008-fold1/test.txt.gz --model mq2008.npz --output scores.txt
  predtron predict predtron/data/files/mulan-emotions/emotions-test.arff.gz --model emotions.npz | head
"""

_EVALUATE_DESCRIPTION = """\
Print the test metrics of a model, one 'name: value' line each, rounded to 4 decimals:
  classify    accuracy (with a cost matrix or an abstention cost: mean cost, accuracy
              and, with abstention, the abstention rate)
  multilabel  hamming loss, subset accuracy (and the mean of the loss the model learned,
              if it is neither of these)
  ordinal     mean absolute error (counted in levels: positions among the sorted training
              labels) and accuracy
  rank        ndcg@k for each --k (default: the k the model was fitted with), averaged over
              queries; a query without relevant documents counts as 1"""

_EVALUATE_EXAMPLES = """\
examples:
  predtron evaluate predtron/data/files/letor-mq2008-fold1/test.txt.gz --model mq2008.npz --k 1 3 5 10
  predtron evaluate test.svm --model digits.npz
"""


def _add_data_options(parser: argparse.ArgumentParser, command: str) -> None:
    group = parser.add_argument_group("data files")
    group.add_argument("--format", choices=FORMATS, default="auto",
                       help="format of the data file; auto: '.arff' (also .arff.gz) is ARFF, a known "
                            "svmlight extension (.svm .svmlight .libsvm .letor .txt .dat) is svmlight, "
                            "otherwise the first line decides ('@' starts ARFF) (default: auto)")
    group.add_argument("--sparse", action="store_true",
                       help="hold the features in a sparse CSR matrix (for many features or many zeros)")
    group.add_argument("--zero-based", action="store_true",
                       help="svmlight feature indices start at 0 (as in files written for LightGBM) instead of 1")
    if command == "fit":
        group.add_argument("--n-features", type=positive_int, metavar="N",
                           help="number of features (default: the largest index in TRAIN); a test file may "
                                "use indices up to N. The model stores it, so predict and evaluate need not")
    if command in ("fit", "evaluate"):
        group.add_argument("--group-file", metavar="FILE",
                           help="rank: documents per query, one number per line, for a file without 'qid:' "
                                "(default: FILE.query or FILE.group beside the data file, if present)")
    label_help = ("ARFF: how many of the last attributes are labels" +
                  ("" if command == "fit" else " (default: the number the model was fitted with)"))
    group.add_argument("--labels", type=positive_int, metavar="N", help=label_help)
    group.add_argument("--xml", metavar="FILE", help="ARFF: a Mulan XML file naming the label attributes")
    group.add_argument("--missing", type=float, metavar="VALUE",
                       help="ARFF: the number a missing feature value '?' stands for (default: a missing value "
                            "is an error)")
    add_read_options(parser.add_argument_group("streaming"), command)
    if command == "fit":
        add_fit_options(parser.add_argument_group("streaming and checkpoints"))


def _add_estimator_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("learner options (each sets the estimator parameter named in brackets)")
    for option in ESTIMATOR_OPTIONS:
        tasks = tasks_with(option.param)
        scope = "" if len(tasks) == len(TASKS) else f"; {', '.join(tasks)} only"
        help_text = f"{option.help} [{option.param}; {_default_text(option.param)}{scope}]"
        group.add_argument(option.flag, dest=_PARAM_PREFIX + option.param, default=argparse.SUPPRESS,
                           help=help_text, **option.kwargs)


def _add_model_option(parser: argparse.ArgumentParser, command: str) -> None:
    if command == "fit":
        parser.add_argument("--task", required=True, choices=TASKS, help="what to learn (see 'predtron --help')")
        parser.add_argument("--model", required=True, metavar="MODEL.npz",
                            help="where to save the fitted model ('.npz' is appended if missing)")
    else:
        parser.add_argument("--model", required=True, metavar="MODEL.npz", help="a model written by 'predtron fit'")
        parser.add_argument("--task", choices=TASKS,
                            help="check that the model was fitted for this task (default: the model's task)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``predtron`` program and its three subcommands."""
    parser = _Parser(prog=PROG, description=_DESCRIPTION, epilog=_EXAMPLES, formatter_class=_Formatter)
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND", required=True,
                                     description="run 'predtron COMMAND --help' for the options of a command",
                                     help="the command to run")

    fit = commands.add_parser("fit", help="fit a model on a training file and save it",
                              description=_FIT_DESCRIPTION, epilog=_FIT_EXAMPLES, formatter_class=_Formatter)
    fit.add_argument("data", metavar="TRAIN", help="the training file")
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
    fit.set_defaults(run=run_fit)

    predict = commands.add_parser("predict", help="write one prediction per line for a data file",
                                  description=_PREDICT_DESCRIPTION, epilog=_PREDICT_EXAMPLES,
                                  formatter_class=_Formatter)
    predict.add_argument("data", metavar="TEST", help="the data file to predict")
    _add_model_option(predict, "predict")
    predict.add_argument("--output", "-o", metavar="FILE", help="write the predictions to FILE (default: stdout)")
    _add_data_options(predict, "predict")
    predict.set_defaults(run=run_predict)

    evaluate = commands.add_parser("evaluate", help="print a model's metrics on a labelled data file",
                                   description=_EVALUATE_DESCRIPTION, epilog=_EVALUATE_EXAMPLES,
                                   formatter_class=_Formatter)
    evaluate.add_argument("data", metavar="TEST", help="the labelled data file")
    _add_model_option(evaluate, "evaluate")
    evaluate.add_argument("--k", type=positive_int, nargs="+", metavar="K",
                          help="rank: report NDCG@K for each K (default: the model's k)")
    _add_data_options(evaluate, "evaluate")
    evaluate.set_defaults(run=run_evaluate)
    return parser


# ------------------------------------------------------------------ data files
class Dataset(NamedTuple):
    """What a command needs from a data file: features, labels and (ranking) the query sizes."""

    X: object
    y: np.ndarray
    group: np.ndarray | None


def detect_format(path, requested: str = "auto") -> str:
    """``"svmlight"`` or ``"arff"``: ``requested`` unless ``"auto"``, else by extension, else by content."""
    if requested != "auto":
        return requested
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] in COMPRESSION_SUFFIXES:
        suffixes.pop()
    if suffixes and suffixes[-1] == ".arff":
        return "arff"
    if suffixes and suffixes[-1] in SVMLIGHT_SUFFIXES:
        return "svmlight"
    return _sniff(path)


def _sniff(path) -> str:
    """ARFF if the first line that is not blank or a comment starts with ``@``, else svmlight."""
    try:
        with open_binary(Path(path)) as handle:
            for raw in handle:
                text = raw.strip()
                if text and not text.startswith((b"%", b"#")):
                    return "arff" if text.startswith(b"@") else "svmlight"
    except DECOMPRESSION_ERRORS as exc:
        if isinstance(exc, FileNotFoundError | PermissionError | IsADirectoryError):
            raise
    return "svmlight"  # the svmlight reader reports an empty or unreadable file


def _check_format_options(args, fmt: str, task: str, path) -> None:
    if fmt != TASK_FORMATS[task]:
        if task == "multilabel":
            raise CommandError(f"{path} is read as {FORMAT_NAMES[fmt]}, but multilabel data are read from ARFF files "
                               "(pass --format arff if it is one)")
        raise CommandError(f"{path} is read as {FORMAT_NAMES[fmt]}, but {task} data are read from svmlight/LETOR files "
                           "(pass --format svmlight if it is one)")
    arff_only = [flag for flag, value in (("--labels", args.labels), ("--xml", args.xml),
                                          ("--missing", args.missing)) if value is not None]
    if fmt != "arff" and arff_only:
        raise CommandError(f"{arff_only[0]} applies to ARFF files; {path} is read as svmlight")
    if getattr(args, "group_file", None) is not None and task != "rank":
        raise CommandError(f"--group-file applies to the rank task, not {task}")
    if fmt == "arff" and args.zero_based:
        raise CommandError(f"--zero-based applies to svmlight files; {path} is read as ARFF")


def read_data(path, task: str, args, *, n_features: int | None = None, n_labels: int | None = None,
              need_groups: bool = True) -> Dataset:
    """Read a data file for ``task`` with the data options of ``args``.

    ``n_features`` fixes the number of feature columns (a model's); ``n_labels`` is the
    default number of ARFF label columns; ``need_groups`` is False where ranking queries are
    not needed (``predict``).
    """
    check_file(path, "data")
    fmt = detect_format(path, args.format)
    _check_format_options(args, fmt, task, path)
    if fmt == "arff":
        return _read_arff(path, args, n_features, n_labels)
    try:
        if task == "rank" and need_groups:
            data = load_letor(path, group_file=args.group_file, n_features=n_features, sparse=args.sparse,
                              zero_based=args.zero_based)
            return Dataset(data.X, data.y, data.group)
        data = load_svmlight(path, n_features=n_features, sparse=args.sparse, zero_based=args.zero_based)
    except ValueError as exc:
        raise _cli_hint(exc) from None
    return Dataset(data.X, as_labels(data.y), None)


def _cli_hint(exc: ValueError) -> Exception:
    """A loader's message with its Python advice (``pass sparse=True``) in the command line's terms."""
    text = str(exc)
    if "pass sparse=True" in text:
        return CommandError(text.replace("pass sparse=True for a scipy CSR matrix",
                                         "pass --sparse to hold the features in a sparse matrix, or --stream to "
                                         "read the file in chunks"))
    return exc


def _read_arff(path, args, n_features: int | None, n_labels: int | None) -> Dataset:
    labels = args.labels if args.labels is not None else (None if args.xml is not None else n_labels)
    if labels is None and args.xml is None:
        raise CommandError(f"{path} is an ARFF file: give --labels N (how many of the last attributes are "
                           "labels) or --xml FILE (a Mulan file naming them)")
    missing = "error" if args.missing is None else args.missing
    try:
        data = load_arff(path, labels, xml=args.xml, sparse=args.sparse, missing=missing)
    except ValueError as exc:
        raise _cli_hint(exc) from None
    if n_features is not None and data.X.shape[1] != n_features:
        raise CommandError(f"{path} has {data.X.shape[1]} features, but {n_features} are expected "
                           "(the training data's)")
    return Dataset(data.X, data.Y, None)


# ------------------------------------------------------------------ models
def estimator_params(task: str, args) -> dict:
    """The estimator parameters given as options (others keep their defaults), checked against ``task``."""
    given = {name[len(_PARAM_PREFIX):]: value for name, value in vars(args).items()
             if name.startswith(_PARAM_PREFIX)}
    accepted = ESTIMATORS[task]().get_params()
    for option in ESTIMATOR_OPTIONS:
        if option.param in given and option.param not in accepted:
            raise CommandError(f"{option.flag} does not apply to --task {task} (it applies to "
                               f"{', '.join(tasks_with(option.param))})")
    if "cost_matrix" in given:
        given["cost_matrix"] = read_cost_matrix(given["cost_matrix"])
    return given


def read_cost_matrix(path) -> np.ndarray:
    """A square matrix of costs from a text file (whitespace-separated numbers, one row per line)."""
    path = check_file(path, "cost-matrix")
    try:
        costs = np.loadtxt(path, dtype=float, ndmin=2)
    except ValueError as exc:
        raise CommandError(f"--cost-matrix {path}: not a matrix of numbers ({exc})") from None
    if costs.shape[0] != costs.shape[1] or not np.all(np.isfinite(costs)):
        raise CommandError(f"--cost-matrix {path}: expected k rows of k finite numbers; got shape {costs.shape}")
    return costs


def fit_model(task: str, data: Dataset, params: dict, verbose: bool):
    """The fitted estimator of ``task``."""
    model = ESTIMATORS[task](**params, verbose=verbose)
    if task == "rank":
        return model.fit(data.X, data.y, group=data.group)
    return model.fit(data.X, data.y)


def check_params(task: str, params: dict) -> None:
    """Validate the hyperparameters before the (possibly long) read of the data."""
    ESTIMATORS[task](**params)._validate_params()


def load_model(path, task: str | None = None):
    """``(task, estimator)`` from a model file; refuses other learners and a model of another task."""
    path = check_file(path, "model")
    if not zipfile.is_zipfile(path):
        raise CommandError(f"{path} is not a predtron model file (not an .npz archive written by 'predtron fit')")
    model = load(path)
    found = TASK_OF.get(type(model).__name__)
    if found is None:
        raise CommandError(f"{path} holds a {type(model).__name__}, not a model written by 'predtron fit' "
                           f"(one of {', '.join(TASK_OF)})")
    if task is not None and task != found:
        raise CommandError(f"{path} holds a {found} model ({type(model).__name__}), not a {task} model")
    return found, model


def _model_arff_labels(model) -> int | None:
    return int(model.n_labels_) if hasattr(model, "n_labels_") else None


def read_for_model(args, task: str, model, need_groups: bool = True) -> Dataset:
    """Read ``args.data`` with the model's number of features (and ARFF label count)."""
    n_features = int(model.n_features_in_)
    try:
        return read_data(args.data, task, args, n_features=n_features, n_labels=_model_arff_labels(model),
                         need_groups=need_groups)
    except ValueError as exc:
        if f"n_features = {n_features}" in str(exc):
            raise CommandError(f"{exc} (the model was fitted on {n_features} features; pass --n-features to "
                               "'predtron fit' when the test file has more)") from None
        raise


# ------------------------------------------------------------------ output
def prediction_lines(task: str, predictions) -> list[str]:
    """One text line per example: a label, a row of 0/1 labels, or a score."""
    predictions = np.asarray(predictions)
    if task == "rank":
        return [repr(float(v)) for v in predictions]
    if task == "multilabel":
        rows = predictions.reshape(len(predictions), -1).astype(np.int64)
        return [" ".join(map(str, row)) for row in rows.tolist()]
    return [str(v) for v in predictions.tolist()]


def write_lines(lines: Sequence[str], output) -> None:
    """Write ``lines`` to ``output`` (a path) or, with ``None`` or ``-``, to stdout."""
    text = "".join(line + "\n" for line in lines)
    if output is None or output == "-":
        sys.stdout.write(text)
    else:
        Path(output).write_text(text)


def metrics(task: str, model, data: Dataset, ks: Sequence[int] | None = None) -> list[tuple[str, float]]:
    """The test metrics of ``model`` on ``data`` as ``(name, value)`` pairs."""
    X, y = data.X, data.y
    if task == "rank":
        ks = [int(model.k)] if ks is None else ks
        values = []
        for k in ks:
            model.set_params(k=k)
            values.append((f"ndcg@{k}", model.score(X, y, group=data.group)))
        return values
    if task == "multilabel":
        return _multilabel_metrics(model, X, y)
    predictions = model.predict(X)
    accuracy = float(np.mean(np.asarray(predictions == y)))
    if task == "ordinal":
        return [("mean absolute error", -model.score(X, y)), ("accuracy", accuracy)]
    if model.cost_matrix is None and model.reject_cost is None:
        return [("accuracy", model.score(X, y))]
    values = [("mean cost", -model.score(X, y)), ("accuracy", accuracy)]
    if model.reject_cost is not None:
        values.append(("abstention rate", float(np.mean(np.asarray(predictions == model.reject_label)))))
    return values


def _multilabel_metrics(model, X, Y) -> list[tuple[str, float]]:
    if Y.shape[1] != model.n_labels_:
        raise CommandError(f"the data have {Y.shape[1]} labels but the model was fitted on {model.n_labels_}")
    predictions = np.asarray(model.predict(X)).reshape(Y.shape)
    values = [("hamming loss", float(hamming_loss(Y, predictions))),
              ("subset accuracy", float(accuracy_score(Y, predictions)))]
    if model.multilabel_ and model.loss not in ("hamming", "subset"):
        values.append((f"{model.loss} loss", -model.score(X, Y)))
    return values


def metric_lines(values: Sequence[tuple[str, float]]) -> list[str]:
    """``name: value`` lines, values rounded to :data:`DECIMALS` decimals."""
    return [f"{name}: {value:.{DECIMALS}f}" for name, value in values]


def _summary(path: Path, task: str, model, data: Dataset) -> str:
    n, p = data.X.shape
    extra = f", {len(data.group)} queries" if data.group is not None else ""
    if task == "multilabel":
        extra = f", {data.y.shape[1]} labels"
    elif task in ("classify", "ordinal"):
        extra = f", {len(model.classes_)} {'levels' if task == 'ordinal' else 'classes'}"
    passes = int(model.n_iter_)  # the passes made (early stopping may end before ``epochs``)
    stopped = f" (of at most {model.epochs})" if passes < model.epochs else ""
    return (f"saved {type(model).__name__} ({task}) to {path}: {n} examples x {p} features{extra}, "
            f"{passes} epoch{'s' if passes != 1 else ''}{stopped}")


# ------------------------------------------------------------------ commands
def run_fit(args) -> int:
    """``predtron fit``: read, fit, save (the model file is replaced only by a complete model)."""
    params = estimator_params(args.task, args)
    check_params(args.task, params)
    on_cluster = cluster_requested(args)
    verbose = sys.stderr.isatty() if args.progress is None else args.progress
    if args.stream:
        _check_stream(args, args.task)
        model, counts = stream_fit(args, args.task, params, verbose)
        path = atomic_save(model, args.model)
        if args.progress is not False:
            print(_stream_summary(path, args.task, model, counts))
        return 0
    data = read_data(args.data, args.task, args, n_features=args.n_features)
    if args.n_features is not None and data.X.shape[1] != args.n_features:
        raise CommandError(f"{args.data} has {data.X.shape[1]} features, not --n-features {args.n_features}")
    if on_cluster:
        model = fit_on_cluster(args.task, data.X, data.y, data.group, params, workers=args.workers,
                               scheduler=args.scheduler, shards=args.shards, mixing=args.mixing)
    elif args.checkpoint is not None or args.resume or args.cache is not None or args.classes is not None:
        model = checkpointed_fit(args, args.task, data, params)
    else:
        model = fit_model(args.task, data, params, verbose)
    path = atomic_save(model, args.model)
    if args.progress is not False:
        print(_summary(path, args.task, model, data))
    return 0


def _check_stream(args, task: str) -> None:
    """``--stream`` reads the task's format (svmlight; ARFF for multilabel) with the same checks."""
    check_file(args.data, "data")
    _check_format_options(args, detect_format(args.data, args.format), task, args.data)


def _stream_summary(path: Path, task: str, model, counts: dict) -> str:
    extra = ""
    if task == "rank":
        extra = f", {counts['queries']} queries" if counts["queries"] else ""
    elif task in ("classify", "ordinal"):
        extra = f", {len(model.classes_)} {'levels' if task == 'ordinal' else 'classes'}"
    rows = f"{counts['rows']} examples" if counts["rows"] else "examples"
    passes = int(model.n_iter_)
    stopped = f" (of at most {model.epochs})" if passes < model.epochs else ""
    return (f"saved {type(model).__name__} ({task}) to {path}: {rows} x {counts['features']} features{extra}, "
            f"{passes} epoch{'s' if passes != 1 else ''}{stopped}, streamed")


def run_predict(args) -> int:
    """``predtron predict``: one prediction per line."""
    task, model = load_model(args.model, args.task)
    if args.stream:
        _check_stream(args, task)
        verbose = sys.stderr.isatty() and args.output not in (None, "-")
        with _output(args.output) as out:
            for predictions in stream_predictions(args, task, model, verbose):
                out.write("".join(line + "\n" for line in prediction_lines(task, predictions)))
        return 0
    data = read_for_model(args, task, model, need_groups=False)
    write_lines(prediction_lines(task, model.predict(data.X)), args.output)
    return 0


class _output:
    """stdout (``None`` or ``-``) or a file opened for writing, as a context manager."""

    def __init__(self, output):
        self.output = output
        self.handle = None

    def __enter__(self):
        if self.output is None or self.output == "-":
            return sys.stdout
        self.handle = open(self.output, "w")
        return self.handle

    def __exit__(self, *exc):
        if self.handle is not None:
            self.handle.close()


def run_evaluate(args) -> int:
    """``predtron evaluate``: one ``name: value`` line per metric."""
    task, model = load_model(args.model, args.task)
    if args.k is not None and task != "rank":
        raise CommandError(f"--k applies to rank models; {args.model} is a {task} model")
    if args.stream:
        _check_stream(args, task)
        values = stream_metrics(args, task, model, args.k, metrics, Dataset)
    else:
        values = metrics(task, model, read_for_model(args, task, model), args.k)
    write_lines(metric_lines(values), None)
    return 0


# ------------------------------------------------------------------ entry point
def one_line(exc: BaseException) -> str:
    """An exception's message on one line (whitespace runs collapsed)."""
    text = " ".join(str(exc).split())
    if isinstance(exc, MemoryError):
        return f"out of memory{': ' + text if text else ''}"
    return text or type(exc).__name__


BAD_INPUT = (CommandError, ValueError, TypeError, OSError, MemoryError)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``predtron`` command line on ``argv`` (default ``sys.argv[1:]``); return the exit status.

    0 on success, 1 on bad input (a message on one line on stderr), 2 on a usage error,
    130 when interrupted.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        return run(args)
    except KeyboardInterrupt:
        print(f"{PROG} {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of stdout went away (e.g. `| head`)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except BAD_INPUT as exc:
        print(f"{PROG} {args.command}: error: {one_line(exc)}", file=sys.stderr)
        return 1
