"""Sphinx extension of the book: resolve references to re-exported predtron names.

The package re-exports its classes from the subpackages (``predtron.problems.Binary``
is ``predtron.problems.binary.Binary``) and docstrings refer to either spelling, or to a
name relative to the module or class being documented (``RankingProblem.margin``).  The
API reference documents every object once, under the module that defines it.  When
Sphinx cannot resolve a Python reference, this hook imports the target, finds the
module and qualified name where it is defined, and resolves the reference there.
A bare name that none of these finds (a docstring re-exported into another module, such
as ``GradesResult`` in the copy of ``grades_argmax`` that ``predtron.problems.ranking``
re-exports) resolves to the one documented predtron object with that last name, when
there is exactly one.  References it cannot map stay unresolved, so ``-n`` still
reports them.
"""

from __future__ import annotations

import importlib

from sphinx.application import Sphinx


def _lookup(dotted: str):
    """The object named ``dotted`` (a module path followed by attributes), or None."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:  # any import failure means "not this prefix"
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def _canonical(obj, fallback: str) -> str:
    """``module.qualname`` where ``obj`` is defined (functions, classes, methods)."""
    target = getattr(obj, "fget", obj)  # properties
    module, qualname = getattr(target, "__module__", None), getattr(target, "__qualname__", None)
    if module and qualname and "<" not in qualname:
        return f"{module}.{qualname}"
    return fallback


def _resolve(app: Sphinx, env, node, contnode):
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    if not target.startswith("predtron") and "." not in target and not node.get("py:module"):
        return None
    candidates = [target]
    module, klass = node.get("py:module"), node.get("py:class")
    if module and klass:
        candidates.append(f"{module}.{klass}.{target}")
        candidates.append(f"{module}.{klass.split('.')[0]}.{target}")
    if module:
        candidates.append(f"{module}.{target}")
        package = module.rsplit(".", 1)[0]
        candidates.append(f"{package}.{target}")
    domain = env.get_domain("py")
    for candidate in candidates:
        if not candidate.startswith("predtron"):
            continue
        obj = _lookup(candidate)
        if obj is None:
            continue
        canonical = _canonical(obj, candidate)
        for name in dict.fromkeys([canonical, candidate]):
            if name in domain.objects:
                found = domain.resolve_any_xref(env, node["refdoc"], app.builder, name, node, contnode)
                if found:
                    return found[0][1]
        # Data (constants) carry no __module__: find the documented name bound to it.
        leaf = "." + candidate.rsplit(".", 1)[-1]
        for name in [n for n in domain.objects if n.endswith(leaf)]:
            if _lookup(name) is obj:
                found = domain.resolve_any_xref(env, node["refdoc"], app.builder, name, node, contnode)
                if found:
                    return found[0][1]
    if "." not in target:
        matches = [n for n in domain.objects if n.startswith("predtron.") and n.endswith("." + target)]
        if len(matches) == 1:
            found = domain.resolve_any_xref(env, node["refdoc"], app.builder, matches[0], node, contnode)
            if found:
                return found[0][1]
    return None


def setup(app: Sphinx) -> dict:
    app.connect("missing-reference", _resolve)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
