"""Fuzz every public entry point of predtron with malformed and equivalent inputs.

For every registered call (tests/fuzz_registry.py) and every argument it fuzzes, the
whole fixed catalogue of variants of that argument runs (tests/fuzz_values.py: complex,
dates, strings, None, generators, ragged lists, empty and NaN/inf/huge arrays, pandas and
every scipy sparse format, Fortran order, float32/int/bool, label junk, query ids,
parameter junk...), then hypothesis draws random variants.  Every input must be refused
with a ``ValueError``/``TypeError`` naming the argument, or give a finite, correctly
shaped result (the canonical result itself for equivalent inputs), within the time limit
of :mod:`fuzz_core`.

Profiles: the default and CI profiles draw ``max_examples // 30`` (3) random inputs per call
(the CI profile derandomised); ``--hypothesis-profile=long`` draws 100 per call.  At the end
of the session pytest prints the number of inputs checked (tests/conftest.py).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from fuzz_core import Call, canonical_result, check_input, consistency
from fuzz_registry import EXCLUDED, registry
from fuzz_values import catalogue, strategy
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import predtron

REGISTRY = registry()
CALLS: list[Call] = list({id(c): c for calls in REGISTRY.values() for c in calls}.values())
GROUPS: dict[str, list[Call]] = {}
for _call in CALLS:
    GROUPS.setdefault(_call.group, []).append(_call)

#: Random inputs per call: a thirtieth of the profile's ``max_examples`` (at least 3; 3 for the
#: default and CI profiles, 100 for ``--hypothesis-profile=long``).
RANDOM_EXAMPLES = max(3, settings.default.max_examples // 30)


def public_names() -> set[str]:
    """Qualified names (``module.qualname``) of the callables every public module exports.

    A public module is one without a component starting with ``_``; its exports are its
    ``__all__`` or, without one, the callables it defines under a name without ``_``.
    """
    names = set()
    modules = ["predtron"] + [m.name for m in pkgutil.walk_packages(predtron.__path__, "predtron.")
                              if not any(part.startswith("_") for part in m.name.split("."))]
    for module_name in modules:
        module = importlib.import_module(module_name)
        exported = getattr(module, "__all__", None)
        if exported is None:
            exported = [k for k, v in vars(module).items()
                        if not k.startswith("_") and getattr(v, "__module__", None) == module_name]
        for name in exported:
            obj = getattr(module, name)
            if inspect.ismodule(obj) or not callable(obj):
                continue
            names.add(f"{obj.__module__}.{obj.__qualname__}")
    return names


def test_registry_covers_every_public_name():
    missing = sorted(public_names() - set(REGISTRY) - set(EXCLUDED))
    assert not missing, f"public names neither fuzzed nor excluded (add them to tests/fuzz_registry.py): {missing}"
    stale = sorted(set(EXCLUDED) - public_names())
    assert not stale, f"exclusions of names that are no longer public: {stale}"


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_fuzz(group: str):
    """Every call of the group: the whole catalogue of every fuzzed argument, then random inputs."""
    calls = GROUPS[group]
    canonical = {c.id: canonical_result(c) for c in calls}
    failures = []
    for call in calls:
        for arg, kind in call.kinds.items():
            outcomes = {}
            for variant in catalogue(kind, call.kwargs[arg]):
                failure, outcomes[variant.name] = check_input(call, arg, variant, canonical[call.id])
                if failure:
                    failures.append(failure)
            failures += consistency(call, arg, outcomes)
    fuzzed = [c for c in calls if c.kinds]
    if fuzzed:
        draws = st.one_of([st.tuples(st.just(c), st.just(arg), strategy(kind, c.kwargs[arg]))
                           for c in fuzzed for arg, kind in c.kinds.items()])

        @settings(max_examples=RANDOM_EXAMPLES * len(fuzzed), deadline=None, database=None,
                  report_multiple_bugs=False, phases=[Phase.explicit, Phase.reuse, Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(draws)
        def explore(drawn):
            call, arg, variant = drawn
            failure, _ = check_input(call, arg, variant, canonical[call.id])
            assert failure is None, failure

        try:
            explore()
        except AssertionError as exc:
            failures.append(str(exc).splitlines()[0])
    assert not failures, f"{len(failures)} failure(s):\n" + "\n".join(failures)
