"""Saving and loading fitted learners without pickle.

A learner is written as one ``.npz`` file: its learned arrays as arrays, and a JSON
header with the format version, the learner's class, its constructor parameters (a
problem, a link or a feature map is written as its class name and its own parameters,
recursively) and the scalars of its state.  Loading never executes code from the file
(``allow_pickle=False``), only classes of this package can be named, and the parameters
go through the constructors' own checks.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

FORMAT = "predtron-learner/2"
_ARRAY_PREFIX = "state__"


def _registry() -> dict[str, type]:
    import predtron
    import predtron.links as links
    import predtron.problems as problems
    import predtron.sklearn as estimators

    classes: dict[str, type] = {}
    for module in (problems, predtron, links, estimators):
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if isinstance(obj, type):
                classes[name] = obj
    return classes


def _encode(value, where: str):
    """A constructor parameter as JSON: plain values as they are, objects by class and parameters."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, np.bool_):
        return value.item() if hasattr(value, "item") else value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        return {"__array__": value.tolist()}
    if isinstance(value, (list, tuple)):
        return [_encode(v, where) for v in value]
    if isinstance(value, dict):
        return {"__dict__": {str(k): _encode(v, where) for k, v in value.items()}}
    if hasattr(value, "get_params") and type(value).__name__ in _registry():
        params = value.get_params(deep=False)
        return {"__class__": type(value).__name__,
                "params": {k: _encode(v, f"{where}.{k}") for k, v in params.items()}}
    raise ValueError(
        f"cannot save: parameter {where} is a {type(value).__name__}, which is not a plain value or a "
        "predtron object (callables and other code are not stored)"
    )


def _decode(value, classes: dict[str, type], path):
    if isinstance(value, list):
        return [_decode(v, classes, path) for v in value]
    if isinstance(value, dict):
        if "__array__" in value:
            return np.asarray(value["__array__"], dtype=float)
        if "__dict__" in value:
            return {k: _decode(v, classes, path) for k, v in value["__dict__"].items()}
        name = value.get("__class__")
        if name not in classes:
            raise ValueError(f"{path} names an unknown class {name!r}")
        params = {k: _decode(v, classes, path) for k, v in value.get("params", {}).items()}
        try:
            return classes[name](**params)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{path}: invalid parameters for {name}: {exc}") from None
    return value


def save(learner, path) -> Path:
    """Write a fitted learner to ``path`` (a ``.npz`` file).

    Parameters
    ----------
    learner : OnlineLearner
        A fitted learner whose parameters are plain numbers, strings, lists, arrays or
        predtron objects (problems, links, feature maps).
    path : str or Path
        Destination; ``.npz`` is appended if missing.

    Returns
    -------
    Path
        The file written.
    """
    if not hasattr(learner, "_get_state"):
        raise ValueError(f"{type(learner).__name__} cannot be saved by predtron.save")
    learner._check_fitted()
    scalars, arrays = learner._get_state()
    header = {
        "format": FORMAT,
        "learner": type(learner).__name__,
        "params": {k: _encode(v, k) for k, v in learner.get_params(deep=False).items()},
        "state": scalars,
    }
    try:
        text = json.dumps(header)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"cannot save: a value is not plain JSON ({exc})") from None
    path = Path(path)
    if path.suffix != ".npz":
        path = path.with_suffix(path.suffix + ".npz")
    np.savez(path, __header__=np.array(text), **{_ARRAY_PREFIX + k: np.asarray(v) for k, v in arrays.items()})
    return path


def load(path):
    """Read a learner written by :func:`save`; it predicts and continues learning as before."""
    try:
        archive = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path} is not a readable predtron model file ({type(exc).__name__}: {exc})") from None
    with archive as data:
        if "__header__" not in data.files:
            raise ValueError(f"{path} is not a predtron learner file (no header)")
        try:
            header = json.loads(str(data["__header__"]))
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"{path} has a malformed header ({exc})") from None
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            found = header.get("format") if isinstance(header, dict) else None
            raise ValueError(f"{path} is not a predtron learner file (format {found!r}, expected {FORMAT!r})")
        classes = _registry()
        name = header.get("learner")
        if name not in classes:
            raise ValueError(f"{path} names an unknown learner class {name!r}")
        params = {k: _decode(v, classes, path) for k, v in header.get("params", {}).items()}
        try:
            learner = classes[name](**params)
            learner._validate_params()
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{path}: invalid parameters for {name}: {exc}") from None
        arrays = {k[len(_ARRAY_PREFIX):]: np.array(data[k]) for k in data.files if k.startswith(_ARRAY_PREFIX)}
        try:
            learner._set_state(header["state"], arrays)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path} holds a malformed state for {name} ({type(exc).__name__}: {exc})") from None
    return learner
