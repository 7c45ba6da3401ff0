"""Saving and loading fitted learners without pickle.

A learner is written as one ``.npz`` file: its learned arrays as arrays, and a JSON
header with the format version, the learner's class, its constructor parameters (a
problem, a link or a feature map is written as its class name and its own parameters,
recursively) and the scalars of its state (among them, for an estimator fitted on a DataFrame,
the columns' names ``feature_names_in_``, so that the loaded estimator refuses columns in
another order as the original does).

Loading trusts nothing in the file:

* it never executes code from it (``allow_pickle=False``; JSON only);
* the header must have the expected format version and fields, and only the classes of
  :func:`saveable_classes` (learners) and of the package's parameter objects (problems,
  links, feature maps) can be named;
* the parameters go through the constructors' own checks and the learner's parameter
  checks;
* every array must have the SHA-256 digest the header lists for it (its entry ``digests``): an
  array replaced by another valid one, or two arrays swapped, is refused; and the header must
  have the digest of its own content (its entry ``content``, the notes excepted): a parameter
  removed or changed, a state value edited, is refused even when valid on its own.  The
  digests detect edits, not a forger who recomputes them: they are not a signature;
* the archive's arrays must be exactly those the header lists (its entry ``arrays``): an
  array deleted from the archive or added to it is refused, including one the learner reads
  only when it is there (the mean of a scaler, absent by design when the scaler was fitted on
  sparse data, is then simply not listed).  A file written before headers listed their arrays
  has no such entry, and its arrays are checked by the learner alone;
* every array and scalar of the state is checked by the learner's ``_set_state`` (type,
  range, dtype, shape against ``n_features_in_`` and the problem, finiteness);
* the header has no entry but those :func:`save` writes, and the state no entry the class does
  not read (:meth:`predtron._state.State.unread`): a valid-looking edit that leaves an entry
  behind (the threshold of a removed ``reject_cost``, the averaged iterate of an ``average``
  turned off) is refused instead of changing the predictions silently.

Anything malformed raises ``ValueError`` naming the file.

Which learner classes can be saved is a registry: a class joins it with the :func:`saveable`
decorator where it is defined (the file names the class; loading accepts only registered
names).  What can be saved: every learner of :mod:`predtron.learners`, PRank and MMP, the
passive-aggressive learners, the estimators of :mod:`predtron.sklearn`, and the reductions
``OneVsAll`` and ``AllPairs`` with their fitted binary learners when those are predtron
learners.  A parameter holding a NumPy random generator (``random_state``) is written as
``None`` and listed under ``not_saved``: the fitted state does not depend on it.  What cannot:
code -- a callable ``kernel``, a ``CallableMap``, a fitted ``TfidfMap`` (its corpus
statistics), a reduction's ``factory`` (a loaded reduction predicts and scores; give it a
factory again before calling ``fit``) and a foreign binary learner inside a reduction.
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
import zlib
from pathlib import Path

import numpy as np

from predtron import links, problems
from predtron._files import atomic_path
from predtron._state import State
from predtron._validation import as_finite_array, excerpt

FORMAT = "predtron-learner/3"
_ARRAY_PREFIX = "state__"

#: Deepest nesting of parameter objects and sub-learners read from a file.
MAX_DEPTH = 8


#: The learner classes :func:`save` writes and :func:`load` may name, by class name (filled by
#: :func:`saveable` as the modules defining them are imported; ``import predtron`` imports them all).
_SAVEABLE: dict[str, type] = {}


def saveable(cls: type) -> type:
    """Class decorator: register a learner class for :func:`save` and :func:`load`.

    The class is written and read under its ``__name__`` (the ``class`` field of the file's
    header), so that name must be unique among the registered classes.  It must provide
    ``get_params`` (its constructor parameters), ``_get_state`` (``(scalars, arrays)``) and
    ``_set_state`` (their checked inverse).  Only registered classes are written, and a file
    can name only registered classes: a subclass is not saveable unless it is registered too.

    Raises
    ------
    TypeError
        If ``cls`` is not a class or lacks one of the three methods.
    ValueError
        If another class is already registered under the same name.
    """
    if not isinstance(cls, type):
        raise TypeError(f"saveable registers a class; got {type(cls).__name__}")
    missing = [m for m in ("get_params", "_get_state", "_set_state") if not callable(getattr(cls, m, None))]
    if missing:
        raise TypeError(f"cannot register {cls.__name__} as saveable: it has no {', '.join(missing)}")
    known = _SAVEABLE.get(cls.__name__)
    same = known is not None and (known.__module__, known.__qualname__) == (cls.__module__, cls.__qualname__)
    if known is not None and not same:
        raise ValueError(f"cannot register {cls.__module__}.{cls.__qualname__} as saveable: "
                         f"{known.__module__}.{known.__qualname__} is registered under the name {cls.__name__!r}")
    _SAVEABLE[cls.__name__] = cls  # a re-imported module replaces its own class
    return cls


#: Classes written under another registered class's name, by class (filled by :func:`saveable_as`).
_SAVED_AS: dict[type, str] = {}


def saveable_as(name: str):
    """Class decorator: :func:`save` writes an instance of the class under the registered name
    ``name``, so that :func:`load` reads it as that class (the estimators' cores of
    :mod:`predtron._models` are written as their public estimators of :mod:`predtron.sklearn`,
    which hold the same parameters and state).  The class must provide ``get_params``,
    ``_get_state`` and ``_set_state``."""
    def decorate(cls: type) -> type:
        missing = [m for m in ("get_params", "_get_state", "_set_state") if not callable(getattr(cls, m, None))]
        if missing:
            raise TypeError(f"cannot register {cls.__name__} as saveable: it has no {', '.join(missing)}")
        _SAVED_AS[cls] = name
        return cls

    return decorate


def saved_as(cls: type) -> str | None:
    """The registered name an instance of ``cls`` is written under by :func:`saveable_as` (``None``
    for a class written under its own name): pass ``classes={saved_as(cls): cls}`` to :func:`load`
    to read such a file as ``cls``."""
    return _SAVED_AS.get(cls)


def saveable_classes() -> dict[str, type]:
    """The learner classes :func:`save` writes and :func:`load` may name, by class name (those
    registered with :func:`saveable`)."""
    return dict(_SAVEABLE)


def parameter_classes() -> dict[str, type]:
    """The classes a saved parameter may name: problems, links and parameter-only feature maps."""
    out: dict[str, type] = {}
    for module in (problems, links):
        for name, obj in vars(module).items():
            if isinstance(obj, type) and obj.__module__.startswith("predtron.") and not name.startswith("_") \
                    and not getattr(obj, "__abstractmethods__", None) and hasattr(obj, "get_params"):
                out[name] = obj
    for name in ("CallableMap", "TfidfMap", "ChainScoring", "JointScoring", "BipartiteMeasure"):  # code or data
        out.pop(name, None)
    return out


# ------------------------------------------------------------------ encoding
def _encode(value, where: str):
    """A constructor parameter as JSON: plain values as they are, objects by class and parameters."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        value = value.item() if hasattr(value, "item") else value
        if isinstance(value, float) and not np.isfinite(value):
            return {"__float__": repr(value)}
        return value
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf" or not np.all(np.isfinite(value)):
            raise ValueError(f"cannot save: parameter {where} is an array that is not finite and numeric")
        return {"__array__": value.tolist()}
    if isinstance(value, (list, tuple)):
        return [_encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise ValueError(f"cannot save: parameter {where} is a dict with keys that are not strings")
        return {"__dict__": {k: _encode(v, f"{where}.{k}") for k, v in value.items()}}
    name = type(value).__name__
    if parameter_classes().get(name) is type(value) and hasattr(value, "get_params"):
        params = value.get_params(deep=False)
        return {"__class__": name, "params": {k: _encode(v, f"{where}.{k}") for k, v in params.items()}}
    raise ValueError(
        f"cannot save: parameter {where} is a {name}, which is not a plain value or a predtron problem, link or "
        "feature map (callables, fitted feature maps and other code are not stored)"
    )


def _decode(value, where: str, depth: int = 0):
    if depth > MAX_DEPTH:
        raise ValueError(f"parameter {where} is nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, list):
        return [_decode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
    if not isinstance(value, dict):
        return value
    if set(value) == {"__float__"} and value["__float__"] in ("inf", "-inf"):
        return float(value["__float__"])
    if set(value) == {"__array__"}:
        return as_finite_array(value["__array__"], f"parameter {where}", max_abs=None)
    if set(value) == {"__dict__"} and isinstance(value["__dict__"], dict):
        return {k: _decode(v, f"{where}.{k}", depth + 1) for k, v in value["__dict__"].items()}
    if set(value) <= {"__class__", "params"} and "__class__" in value:
        name = value["__class__"]
        classes = parameter_classes()
        if not isinstance(name, str) or name not in classes:
            raise ValueError(f"parameter {where} names a class that is not a predtron problem, link or feature map: "
                             f"{str(name)[:60]!r}")
        params = value.get("params", {})
        if not isinstance(params, dict):
            raise ValueError(f"parameter {where}: the parameters of {name} must be a JSON object")
        kwargs = {k: _decode(v, f"{where}.{k}", depth + 1) for k, v in params.items()}
        try:
            return classes[name](**kwargs)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"parameter {where}: invalid parameters for {name}: {exc}") from None
    raise ValueError(f"parameter {where} is a JSON object of an unknown form (keys {sorted(value)[:5]})")


# ------------------------------------------------------------------ components
def _unsaved_generators(params: dict) -> tuple[str, ...]:
    """The parameters holding a NumPy random generator (``random_state=np.random.RandomState(0)``
    or ``np.random.default_rng(0)``, as scikit-learn users pass them): a generator is a running
    state, not a plain value, and the fitted model does not depend on it (it seeded the passes
    already made), so it is written as ``None`` and listed under ``not_saved``, as a reduction's
    ``factory`` is; the loaded model predicts and scores the same, and a later ``fit`` of it draws
    a fresh order unless given a seed again."""
    generators = (np.random.RandomState, np.random.Generator)
    return tuple(k for k, v in params.items() if isinstance(v, generators))


def dump(estimator, where: str = "learner") -> tuple[dict, dict]:
    """``(header, arrays)`` of a fitted saveable estimator (used recursively for sub-learners)."""
    name = _SAVED_AS.get(type(estimator), type(estimator).__name__)
    if type(estimator) not in _SAVED_AS and saveable_classes().get(name) is not type(estimator):
        raise ValueError(
            f"cannot save {where}: a {name} is not a predtron learner (saveable: "
            f"{', '.join(sorted(saveable_classes()))})"
        )
    given = estimator.get_params(deep=False)
    unsaved = tuple(getattr(estimator, "_unsaved_params", ())) + _unsaved_generators(given)
    params = {k: (None if k in unsaved else _encode(v, f"{where}.{k}")) for k, v in given.items()}
    scalars, arrays = estimator._get_state()
    header = {"class": name, "params": params, "state": scalars}
    if unsaved:
        header["not_saved"] = list(unsaved)
    return header, arrays


def restore(header, arrays: dict, where: str = "learner", depth: int = 0, classes: dict[str, type] | None = None):
    """The estimator described by ``header`` (from :func:`dump`) with its state checked (``classes``: see
    :func:`load`)."""
    if depth > MAX_DEPTH:
        raise ValueError(f"{where} is nested deeper than {MAX_DEPTH} levels")
    if not isinstance(header, dict) or not {"class", "params", "state"} <= set(header):
        raise ValueError(f"{where} must be a JSON object with class, params and state")
    name = header["class"]
    classes = saveable_classes() | (classes or {})
    if not isinstance(name, str) or name not in classes:
        raise ValueError(f"{where} names an unknown learner class {str(name)[:60]!r}")
    if not isinstance(header["params"], dict):
        raise ValueError(f"{where}: params must be a JSON object")
    params = {k: _decode(v, f"{where}.{k}") for k, v in header["params"].items()}
    try:
        estimator = classes[name](**params)
        validate = getattr(estimator, "_check_common", None) or getattr(estimator, "_validate_params", None)
        if validate is not None and name not in ("OneVsAll", "AllPairs"):
            validate()
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: invalid parameters for {name}: {exc}") from None
    try:
        state = State(header["state"], arrays, "")
        estimator._set_state(state, arrays)
        unread = state.unread()
        if unread:
            raise ValueError(f"it holds {len(unread)} entr{'y' if len(unread) == 1 else 'ies'} that {name} does not "
                             f"read: {excerpt(unread)} (a file edited, or written for another class)")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: malformed state of {name}: {exc}") from None
    return estimator


# ------------------------------------------------------------------ files
def _check_path(path, for_writing: bool = False) -> Path:
    if isinstance(path, (bytes, bytearray)):
        path = os.fsdecode(path)
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or path-like naming a .npz file; got {type(path).__name__}")
    return Path(path)


def _check_notes(notes) -> dict:
    """``notes`` of :func:`save`: a dict of plain JSON values that :func:`load` gives back unchanged
    (string keys; no NaN, array, tuple or object; not nested too deeply to write), checked before
    anything is written; the error names ``notes``."""
    if not isinstance(notes, dict):
        raise TypeError(f"notes must be a dict of plain JSON values; got {type(notes).__name__}")
    try:
        same = json.loads(json.dumps(notes, allow_nan=False)) == notes
    except (TypeError, ValueError) as exc:
        raise ValueError(f"notes must be a dict of plain JSON values (strings, finite numbers, booleans, None, "
                         f"lists and dicts); got {excerpt(notes)} ({exc})") from None
    except RecursionError:
        raise ValueError("notes must be a dict of plain JSON values; got one nested too deeply to write") from None
    if not same:
        raise ValueError(f"notes must be plain JSON that load gives back unchanged (string keys, lists rather than "
                         f"tuples); got {excerpt(notes)}")
    return notes


def save(learner, path, *, notes: dict | None = None) -> Path:
    """Write a fitted learner to ``path`` (a ``.npz`` file).

    Parameters
    ----------
    learner : estimator
        A fitted learner of :func:`saveable_classes` whose parameters are plain values,
        arrays or predtron problems, links and feature maps.
    path : str or Path
        Destination; ``.npz`` is appended if missing.
    notes : dict, optional
        Plain JSON kept with the model for the program that wrote it (the command line records
        how it read the training file); :func:`load` returns them with ``notes=True``.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    ValueError
        If the learner cannot be saved (a parameter that is code, a foreign sub-learner), or if
        :func:`load` would refuse the file: a parameter changed by ``set_params`` after the fit
        (a ``cost_matrix`` given to a fitted binary classifier, ``average`` turned off) no
        longer matches the fitted state.  Nothing is written then.
    """
    path = _check_path(path, for_writing=True)
    if not hasattr(learner, "_get_state"):
        raise ValueError(f"cannot save learner: a {type(learner).__name__} is not a predtron learner")
    header, arrays = dump(learner, "learner")
    header = {"format": FORMAT, **header, "arrays": sorted(arrays),
              "digests": {k: _digest(np.asarray(v)) for k, v in sorted(arrays.items())}}
    try:
        header["content"] = _content_digest(json.loads(json.dumps(header, allow_nan=False)))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"cannot save learner: a value is not plain JSON ({exc})") from None
    if notes is not None:
        header["notes"] = _check_notes(notes)
    try:
        text = json.dumps(header, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"cannot save learner: a value is not plain JSON ({exc})") from None
    try:  # what load will do: a file it would refuse is not written (a core read as itself, as the CLI does)
        as_itself = {_SAVED_AS[type(learner)]: type(learner)} if type(learner) in _SAVED_AS else None
        restore(json.loads(text), arrays, "learner", classes=as_itself)
    except ValueError as exc:
        raise ValueError(f"cannot save learner: the file would not load ({exc}); the parameters are written with the "
                         "state, so a parameter changed by set_params since the fit must be set back, or the "
                         "learner fitted again, before saving") from None
    if path.suffix != ".npz":
        path = path.with_suffix(path.suffix + ".npz")
    # Written beside the destination and renamed onto it: a write that fails or is interrupted
    # (a full disk, Ctrl-C) leaves the model already there, never a truncated file in its place.
    with atomic_path(path, suffix=".npz") as temporary:
        np.savez(temporary, __header__=np.array(text), **{_ARRAY_PREFIX + k: np.asarray(v) for k, v in arrays.items()})
    return path


#: The entries of a file's header (:func:`save`; ``not_saved`` from :func:`dump`): any other is refused.
_HEADER_ENTRIES = frozenset({"format", "class", "params", "state", "arrays", "digests", "content", "notes",
                             "not_saved"})

#: Errors of reading a damaged archive (truncated, corrupt member, wrong compression).
_READ_ERRORS = (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error, KeyError, RuntimeError)


def _no_constants(token: str):
    raise ValueError(f"the header holds {token}, which is not a finite number")


#: The first bytes of a file :func:`save` writes (an ``.npz`` is a zip archive), and of a lone ``.npy``
#: array (refused below, naming it).
_ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06")
_NPY_SIGNATURE = b"\x93NUMPY"


def _check_signature(handle, path: Path) -> None:
    """Refuse a file that is neither a zip archive nor a ``.npy`` array by its first bytes, before
    ``numpy.load`` reads it: NumPy takes any other file for a pickle and its error would advise
    loading it "unsafely" with ``allow_pickle``, which a model file never needs."""
    start = handle.read(len(_NPY_SIGNATURE))
    handle.seek(0)
    if start.startswith(_ZIP_SIGNATURES) or start == _NPY_SIGNATURE:
        return
    what = "an empty file" if not start else f"a file beginning with {start[:4]!r}"
    raise ValueError(f"{path} is not a readable predtron model file: a model file is an .npz (zip) archive, beginning "
                     f"with b'PK'; got {what}")


def _read_archive(handle, path: Path) -> tuple[np.ndarray, dict]:
    """The raw header and the state arrays of an open model file (every entry read, checked as numbers)."""
    _check_signature(handle, path)
    try:
        archive = np.load(handle, allow_pickle=False)
    except _READ_ERRORS as exc:
        raise ValueError(f"{path} is not a readable predtron model file ({type(exc).__name__}: "
                         f"{str(exc)[:120]})") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ValueError(f"{path} is not a predtron model file (a single .npy array, not an .npz archive)")
    with archive as data:
        try:
            files = list(data.files)
            if "__header__" not in files:
                raise ValueError("no header")
            unexpected = [k for k in files if k != "__header__" and not k.startswith(_ARRAY_PREFIX)]
            if unexpected:
                raise ValueError(f"unexpected entries {unexpected[:3]}")
            raw = data["__header__"]
            arrays = {k[len(_ARRAY_PREFIX):]: data[k] for k in files if k.startswith(_ARRAY_PREFIX)}
        except _READ_ERRORS as exc:
            raise ValueError(f"{path} is not a readable predtron model file ({type(exc).__name__}: "
                             f"{str(exc)[:120]})") from None
    return raw, arrays


def _check_listed_arrays(header: dict, arrays: dict) -> None:
    """Refuse a file whose archive does not hold exactly the arrays its header lists.

    A learner reads some arrays only when they are there (a scaler's mean), so a member deleted
    from the archive, or one added to it, would otherwise load and predict differently.

    Parameters
    ----------
    header : dict
        The file's header; its entry ``arrays`` lists the state's arrays (:func:`save`).  A header
        without the entry (written before headers listed their arrays) is not checked here.
    arrays : dict
        The state's arrays read from the archive, by name (without the member prefix).

    Raises
    ------
    ValueError
        If the entry is not a list of distinct names, or an array it lists is missing, or the archive
        holds an array it does not list.
    """
    if "arrays" not in header:
        return
    listed = header["arrays"]
    if not isinstance(listed, list) or not all(isinstance(k, str) for k in listed) or len(set(listed)) != len(listed):
        raise ValueError(f"header entry 'arrays' must be a list of distinct array names; got {excerpt(listed)}")
    missing = [k for k in listed if k not in arrays]
    if missing:
        more = f" ({len(missing)} listed arrays are missing)" if len(missing) > 1 else ""
        raise ValueError(f"state array {missing[0]!r} is missing: the header lists it, the archive has no member "
                         f"{_ARRAY_PREFIX + missing[0] + '.npy'!r}{more}")
    unlisted = sorted(set(arrays) - set(listed))
    if unlisted:
        more = f" ({len(unlisted)} arrays are not listed)" if len(unlisted) > 1 else ""
        raise ValueError(f"the archive holds the state array {unlisted[0]!r}, which the header does not list{more}")


def _digest(array: np.ndarray) -> str:
    """SHA-256 of an array's dtype, shape and values (in C order), as hex: what the header's entry
    ``digests`` holds for every state array."""
    hasher = hashlib.sha256(f"{array.dtype.str}{array.shape}".encode())
    hasher.update(np.ascontiguousarray(array).tobytes())
    return hasher.hexdigest()


def _content_digest(header: dict) -> str:
    """SHA-256 of a header's canonical JSON (sorted keys, no spaces) without its entries ``content``
    and ``notes``: the class, the parameters, the state's scalars and the arrays' digests, as
    :func:`save` wrote them (its entry ``content``)."""
    body = {k: v for k, v in header.items() if k not in ("content", "notes")}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _check_content(header: dict) -> None:
    """Refuse a header edited after :func:`save`: its entry ``content`` must be the digest of the
    rest (:func:`_content_digest`; the notes excepted).

    Many edits leave every value valid on its own (a parameter removed, which then takes its
    default; a cost matrix removed or added; a loss changed), and would load a model that
    predicts or scores differently.  A file written before headers held the entry is not
    checked here.

    Raises
    ------
    ValueError
        If the entry is not the digest of the header.
    """
    if "content" not in header:
        return
    try:
        expected = _content_digest(header)
    except (TypeError, ValueError):
        expected = None
    if header["content"] != expected:
        raise ValueError("the header is not the one saved with the model (it differs from its digest, the entry "
                         "'content'): the class, parameters or state were edited")


def _check_digests(header: dict, arrays: dict) -> None:
    """Refuse a file whose state arrays are not those :func:`save` wrote: every array must have the
    digest the header lists for it (:func:`_digest`).

    Every array taken alone may be valid (the right shape, finite), yet another array under its
    name, such as the last iterate swapped with the averaged one, or a scaler's mean with its
    scale, would load and predict differently.  The digests detect such an edit of the archive
    (not an edit of the header and the archive together: they are not a signature).  A file
    written before headers held digests has no such entry and is not checked here.

    Raises
    ------
    ValueError
        If the entry is not an object of hex digests naming exactly the archive's arrays, or an
        array differs from its digest.
    """
    if "digests" not in header:
        return
    digests = header["digests"]
    if not isinstance(digests, dict) or set(digests) != set(arrays) or not all(
            isinstance(v, str) for v in digests.values()):
        raise ValueError(f"header entry 'digests' must give one digest for each state array "
                         f"{sorted(arrays)}; got {excerpt(digests)}")
    for name in sorted(arrays):
        if _digest(arrays[name]) != digests[name]:
            raise ValueError(f"state array {name!r} is not the array saved under that name (it differs from its "
                             "digest in the header): the archive's arrays were edited or swapped")


def load(path, *, classes: dict[str, type] | None = None, notes: bool = False):
    """Read a learner written by :func:`save`; it predicts and continues learning as before.

    ``path`` is the file, or the path given to :func:`save` (which appends ``.npz`` to a name
    without it): a missing ``path`` without the suffix reads ``path`` + ``.npz``.

    With ``notes=True`` the result is ``(learner, notes)``: the ``notes`` given to :func:`save`
    (``{}`` when none were).

    ``classes`` maps registered names to the classes to read them as, each of which is written under
    that name (:func:`saveable_as`): the command line reads the estimators as their cores of
    :mod:`predtron._models`, so that ``predict`` and ``evaluate`` never import scikit-learn.

    Raises ``ValueError`` naming the file for anything malformed (see the module notes).
    """
    for name, cls in (classes or {}).items():
        if _SAVED_AS.get(cls) != name:
            raise ValueError(f"classes: {getattr(cls, '__name__', cls)!r} is not saved as {name!r} (saveable_as)")
    path = _check_path(path)
    if path.suffix != ".npz" and not path.exists() and path.with_suffix(path.suffix + ".npz").is_file():
        path = path.with_suffix(path.suffix + ".npz")  # the file save(learner, path) wrote
    try:
        handle = open(path, "rb")  # our handle, closed on every path (np.load leaks its own on a bad zip)
    except FileNotFoundError:
        raise FileNotFoundError(f"model file not found: {path}") from None
    except OSError as exc:
        raise ValueError(f"{path} is not a readable predtron model file ({type(exc).__name__}: "
                         f"{str(exc)[:120]})") from None
    with handle:
        raw, arrays = _read_archive(handle, path)
    if raw.shape != () or raw.dtype.kind != "U":
        raise ValueError(f"{path} has a malformed header (expected one string, got an array of shape {raw.shape} "
                         f"and dtype {raw.dtype})")
    try:
        header = json.loads(str(raw), parse_constant=_no_constants)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{path} has a malformed header ({str(exc)[:120]})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        found = header.get("format") if isinstance(header, dict) else None
        raise ValueError(f"{path} is not a predtron learner file of this version (format {str(found)[:40]!r}, "
                         f"expected {FORMAT!r})")
    unknown = sorted(set(header) - _HEADER_ENTRIES)
    if unknown:
        raise ValueError(f"{path}: the header holds entries a model file does not have: {excerpt(unknown)} (its "
                         f"entries are {sorted(_HEADER_ENTRIES)})")
    for key, value in arrays.items():
        if value.dtype.kind not in "biuf":
            raise ValueError(f"{path}: array {key!r} has dtype {value.dtype}; saved states hold numbers only")
    try:
        _check_content(header)
        _check_listed_arrays(header, arrays)
        _check_digests(header, arrays)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    saved_notes = header.get("notes", {})
    if not isinstance(saved_notes, dict):
        raise ValueError(f"{path}: header entry 'notes' must be a JSON object; got {excerpt(saved_notes)}")
    try:
        learner = restore(header, arrays, "learner", classes=classes)
        return (learner, saved_notes) if notes else learner
    except RecursionError:
        raise ValueError(f"{path} has a header nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
