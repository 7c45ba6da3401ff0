"""Constructor parameters of configuration objects (problems, links, feature maps).

A problem or a link is configured by its constructor and validated there.  scikit-learn
reads and writes such objects through ``get_params``/``set_params`` (``clone`` rebuilds
them from ``get_params(deep=False)`` and checks that the same objects come back, and a
grid search sets nested parameters such as ``problem__n_classes``).  So the constructor
stores every argument verbatim under its own name (or under the attribute named in
``_param_attributes`` when the name is taken by a method, e.g. ``loss``), keeps validated
and derived values in private attributes, and ``set_params`` runs the constructor again so
the new values are validated and everything derived from them is rebuilt.
"""

from __future__ import annotations

import inspect
from typing import ClassVar


class Parametrized:
    """``get_params``/``set_params``/``repr`` from the constructor signature."""

    #: Constructor parameter -> attribute holding it, where the two names differ.
    _param_attributes: ClassVar[dict[str, str]] = {}

    @classmethod
    def _param_names(cls) -> list[str]:
        signature = inspect.signature(cls.__init__)
        return [name for name, p in signature.parameters.items()
                if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]

    def get_params(self, deep: bool = True) -> dict:
        """Constructor parameters as given (with ``deep``, also ``name__sub`` for nested objects)."""
        out = {}
        for name in self._param_names():
            value = getattr(self, self._param_attributes.get(name, name))
            out[name] = value
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                for key, sub in value.get_params(deep=True).items():
                    out[f"{name}__{key}"] = sub
        return out

    def set_params(self, **params):
        """Set constructor parameters (``name`` or nested ``name__sub``) and rebuild the object.

        The constructor runs again with the new values, so they are validated and
        everything derived from them is recomputed; an invalid value raises and leaves
        the object as it was.
        """
        if not params:
            return self
        valid = self._param_names()
        direct, nested = {}, {}
        for key, value in params.items():
            name, _, sub = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"invalid parameter {name!r} for {type(self).__name__}; valid parameters are {sorted(valid)}"
                )
            if sub:
                nested.setdefault(name, {})[sub] = value
            else:
                direct[name] = value
        current = self.get_params(deep=False)
        for name, sub_params in nested.items():
            target = direct.get(name, current[name])
            if not hasattr(target, "set_params"):
                raise ValueError(f"parameter {name!r} of {type(self).__name__} has no parameters of its own")
            target.set_params(**sub_params)
        saved = dict(vars(self))
        try:
            type(self).__init__(self, **{**current, **direct})
        except Exception:
            vars(self).clear()
            vars(self).update(saved)
            raise
        return self

    def __repr__(self) -> str:
        defaults = {name: p.default for name, p in inspect.signature(type(self).__init__).parameters.items()}
        shown = []
        for name, value in self.get_params(deep=False).items():
            default = defaults.get(name, inspect.Parameter.empty)
            try:
                same = default is not inspect.Parameter.empty and bool(value == default)
            except (TypeError, ValueError):
                same = False
            if not same:
                shown.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"
