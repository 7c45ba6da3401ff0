"""Saving and loading fitted learners without pickle.

A learner is written as one ``.npz`` file: its arrays as arrays, and a JSON header with
the learner class, its constructor parameters and the problem's class and constructor
parameters.  Loading never executes code from the file (``allow_pickle=False``), and
only classes of this package can be named.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

FORMAT = "predtron-learner/1"


def _registry() -> dict[str, type]:
    import predtron
    import predtron.links as links
    import predtron.problems as problems

    classes: dict[str, type] = {}
    for module in (problems, predtron, links):
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if isinstance(obj, type):
                classes[name] = obj
    return classes


def save(learner, path) -> Path:
    """Write a fitted learner to ``path`` (a ``.npz`` file).

    Parameters
    ----------
    learner : OnlineLearner
        A fitted learner whose problem and parameters are plain numbers, strings, lists
        or problems of :mod:`predtron.problems`.
    path : str or Path
        Destination; ``.npz`` is appended if missing.
    """
    learner._check_fitted()
    params = dict(learner.get_params())
    problem = params.pop("problem")
    for key, value in params.items():
        if hasattr(value, "get_params") and hasattr(value, "to_dual"):  # a link object
            params[key] = {"__class__": type(value).__name__, "params": value.get_params()}
    header = {
        "format": FORMAT,
        "learner": type(learner).__name__,
        "params": params,
        "problem": type(problem).__name__,
        "problem_params": problem.get_params(),
        "n_features_in_": learner.n_features_in_,
        "n_updates_": learner.n_updates_,
    }
    ragged = ValueError(f"{type(learner).__name__} keeps ragged state that save() cannot store")
    try:
        arrays = {name: np.asarray(getattr(learner, name)) for name in learner._state_attributes}
    except ValueError:
        raise ragged from None
    if any(a.dtype == object for a in arrays.values()):
        raise ragged
    try:
        text = json.dumps(header)
    except TypeError as exc:
        raise ValueError(f"cannot save: a parameter is not a plain value ({exc})") from None
    path = Path(path)
    if path.suffix != ".npz":
        path = path.with_suffix(path.suffix + ".npz")
    np.savez(path, __header__=np.array(text), __losses__=learner.loss_history_, **arrays)
    return path


def load(path):
    """Read a learner written by :func:`save`; it predicts and continues learning as before."""
    with np.load(path, allow_pickle=False) as data:
        header = json.loads(str(data["__header__"]))
        if header.get("format") != FORMAT:
            raise ValueError(f"{path} is not a predtron learner file (format {header.get('format')!r})")
        classes = _registry()
        for key in ("learner", "problem"):
            if header[key] not in classes:
                raise ValueError(f"{path} names an unknown {key} class {header[key]!r}")
        problem = classes[header["problem"]](**header["problem_params"])
        params = header["params"]
        for key, value in params.items():
            if isinstance(value, dict) and "__class__" in value:
                if value["__class__"] not in classes:
                    raise ValueError(f"{path} names an unknown class {value['__class__']!r}")
                params[key] = classes[value["__class__"]](**value["params"])
        learner = classes[header["learner"]](problem, **params)
        learner.n_features_in_ = header["n_features_in_"]
        learner.n_updates_ = header["n_updates_"]
        learner._losses = [float(v) for v in data["__losses__"]]
        for name in learner._state_attributes:
            setattr(learner, name, np.array(data[name]))
    return learner
