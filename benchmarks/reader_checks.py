"""What the streaming reader's checks cost, and what the label scan saves (ratios in one run).

Writes a 200,000-row svmlight file (20 of 1,000 features per row, about 45 MB; or reads
``--file``), then measures, best of three:

* a full parse (``iter_svmlight``, compiled kernel, two threads on large buffers) and its
  throughput, against ``scan_labels`` (labels, rows, width) and its throughput;
* a pass that reads a valid cache (source SHA-256 re-hashed, every chunk's CRC-32 checked, CSR
  arrays checked) against a full parse, and the share of that pass spent hashing the source.

Run: ``python benchmarks/reader_checks.py`` (``--rows N`` for another size, ``--file F`` for an
existing svmlight file of 1,000 features, e.g. the one ``benchmarks/streaming.py`` writes).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from predtron.data.cache import source_identity
from predtron.data.stream import iter_svmlight, scan_labels


def best(function, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--file", type=Path, help="an existing svmlight file of 1,000 features (read only)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as folder:
        path = args.file or Path(folder) / "data.svm"
        if args.file is None:
            with path.open("w") as handle:
                for i in range(args.rows):
                    columns = np.sort(rng.choice(1000, 20, replace=False)) + 1
                    handle.write(f"{1 if i % 3 else -1} " + " ".join(f"{j}:{v:.6f}" for j, v in
                                                                     zip(columns, rng.random(20), strict=True)) + "\n")
        size = path.stat().st_size / 1e6
        rows = sum(len(c.y) for c in iter_svmlight(path, n_features=1000))  # and load the compiled kernel
        parse = best(lambda: sum(len(c.y) for c in iter_svmlight(path, n_features=1000)))
        scan = best(lambda: scan_labels(path))
        print(f"file: {rows} rows, {size:.0f} MB")
        print(f"full parse {parse:.3f} s ({size / parse:.0f} MB/s), label scan {scan:.3f} s ({size / scan:.0f} MB/s): "
              f"the scan is {parse / scan:.1f}x faster")
        cache = Path(folder) / "data.cache"
        list(iter_svmlight(path, n_features=1000, cache=cache))
        cached = best(lambda: sum(len(c.y) for c in iter_svmlight(path, n_features=1000, cache=cache)))
        hashing = best(lambda: source_identity(path))
        print(f"cached pass (all checks) {cached:.3f} s = {cached / parse:.2f} of a parse; "
              f"of which the source's SHA-256 {hashing:.3f} s ({hashing / parse:.2f} of a parse)")


if __name__ == "__main__":
    main()
