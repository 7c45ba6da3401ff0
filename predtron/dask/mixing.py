"""Iterative parameter mixing on a Dask cluster: :func:`client_map`, the map over shards that
:func:`predtron.mixing.iterative_parameter_mixing` runs (the loop itself knows nothing of Dask).

The names of :mod:`predtron.mixing` are re-exported here for the code written against this module.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence

from predtron.mixing import (
    MIXINGS,
    MixingResult,
    PassResult,
    iterative_parameter_mixing,
    local_map,
    mix_states,
    mixing_weights,
    shard_orders,
    shard_pass,
)

__all__ = ["MIXINGS", "MixingResult", "PassResult", "client_map", "iterative_parameter_mixing", "local_map",
           "mix_states", "mixing_weights", "shard_orders", "shard_pass"]

#: Prefix of the keys of the shard passes in the Dask scheduler (shown on its dashboard).
PASS_KEY = "predtron-ipm-pass"


def client_map(client) -> Callable[[Callable, Sequence[tuple]], list]:
    """``map_shards`` on a Dask cluster: each call is submitted where its shard (a future, the
    call's third argument) is held, a preference only (another worker may take it if that one
    dies), and the results are gathered in order."""
    run = uuid.uuid4().hex[:12]
    calls = iter(range(1 << 62))

    def map_shards(function: Callable, arguments: Sequence[tuple]) -> list:
        call = next(calls)
        futures = []
        for i, args in enumerate(arguments):
            shard = args[2]
            where = list(client.who_has([shard]).get(shard.key, ())) if hasattr(shard, "key") else []
            placement = {"workers": where, "allow_other_workers": True} if where else {}
            futures.append(client.submit(function, *args, key=f"{PASS_KEY}-{run}-{call}-{i}", **placement))
        results = client.gather(futures)
        del futures
        return results

    return map_shards
