"""A fuzz test of the streaming reader: random valid svmlight files, random read-block sizes.

Each example writes a random valid file (random rows, rows longer than the parser's first
buffers, comments and blank lines, ``qid:``, zero- or one-based indices, numbers in many
spellings; plain or gzip) and reads it with :func:`~predtron.data.stream.iter_svmlight` under a
random read-block size, chunk size, size from which a buffer is parsed by two threads and compile
policy (the compiled parser or its Python twin).
The chunks must equal the in-memory loader and scikit-learn's ``load_svmlight_file`` bit for bit,
and :func:`~predtron.data.stream.scan_labels` must find the loader's labels, rows and width.  A
second property puts one overflowing value (``1e400``) on a random line, and sometimes a malformed
line after it: the reader must report the overflow as the loader does, with its line.  Under
``CI`` the draws are derandomized (tests/conftest.py).
"""

from __future__ import annotations

import gzip
import itertools
import tempfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_svmlight_file

from predtron.data import _svmlight_parse as parse_module
from predtron.data import load_svmlight
from predtron.data import stream as stream_module
from predtron.data.stream import iter_svmlight, scan_labels
from predtron.engine import jit

FORMATS = ["{!r}", "{:.6f}", "{:.17g}", "{:.3e}", "{:.25f}", "{:g}"]
LABELS = ["1", "-1", "+1", "0", "2", "3.5", "-2.000000000000000000000001", "1e0", "7"]


@st.composite
def svmlight_files(draw):
    zero_based = draw(st.booleans())
    qid = draw(st.booleans())
    first = 0 if zero_based else 1
    n_rows = draw(st.integers(1, 40))
    long_rows = draw(st.booleans())
    lines, query = [], 0
    for row in range(n_rows):
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(st.sampled_from(["", "# a comment: 3:4", "   ", "#"])))
        width = draw(st.integers(1, 1500)) if long_rows and draw(st.integers(0, 4)) == 0 else \
            draw(st.integers(0 if row else 1, 12))  # the first row gives a feature: the file has a width
        spread = max(width, draw(st.integers(1, 60)))
        indices = sorted(draw(st.sets(st.integers(first, first + spread), min_size=min(width, 1),
                                      max_size=width))) if width <= 12 else list(range(first, first + width))
        values = draw(st.lists(st.floats(-1e30, 1e30, allow_nan=False, allow_subnormal=False),
                               min_size=len(indices), max_size=len(indices)))
        formats = draw(st.lists(st.sampled_from(FORMATS), min_size=len(indices), max_size=len(indices)))
        tokens = [draw(st.sampled_from(LABELS))]
        if qid:
            query += draw(st.integers(0, 1))
            tokens.append(f"qid:{query}")
        tokens += [f"{j}:{fmt.format(v)}" for j, v, fmt in zip(indices, values, formats, strict=True)]
        sep = draw(st.sampled_from([" ", "\t", "  "]))
        comment = draw(st.sampled_from(["", " # docid = GX1:2", "#x"]))
        lines.append(sep.join(tokens) + comment)
    newline_at_end = draw(st.booleans())
    text = "\n".join(lines) + ("\n" if newline_at_end else "")
    return text, zero_based, qid


def _write(text: str, compress: bool, folder: str) -> Path:
    path = Path(folder) / ("data.svm.gz" if compress else "data.svm")
    path.write_bytes(gzip.compress(text.encode()) if compress else text.encode())
    return path


def _read(path, policy, block, split=1 << 20, **options):
    """The chunks read with read blocks of ``block`` bytes, buffers of ``split`` bytes or more parsed by
    two threads, under the compile ``policy``."""
    saved = parse_module.BLOCK_BYTES, parse_module.SPLIT_BYTES, jit.POLICY
    parse_module.BLOCK_BYTES, parse_module.SPLIT_BYTES, jit.POLICY = block, split, policy
    try:
        return list(iter_svmlight(path, **options))
    finally:
        parse_module.BLOCK_BYTES, parse_module.SPLIT_BYTES, jit.POLICY = saved


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(svmlight_files(), st.booleans(), st.integers(8, 5000), st.integers(1, 50),
       st.sampled_from(["always", "never"]), st.integers(2, 4000))
def test_streamed_chunks_equal_the_loader_and_scikit_learn(file, compress, block, chunk_rows, policy, split):
    text, zero_based, qid = file
    with tempfile.TemporaryDirectory() as folder:
        path = _write(text, compress, folder)
        ref = load_svmlight(path, sparse=True, zero_based=zero_based, max_features=None)
        width = ref.X.shape[1]
        chunks = _read(path, policy, block, split, chunk_rows=chunk_rows, n_features=width, zero_based=zero_based,
                       queries=qid)
        X = sp.vstack([c.X for c in chunks]).tocsr()
        assert np.array_equal(X.indptr, ref.X.indptr) and np.array_equal(X.indices, ref.X.indices)
        assert np.array_equal(X.data.view(np.int64), ref.X.data.view(np.int64))
        y = np.concatenate([c.y for c in chunks])
        assert np.array_equal(y.view(np.int64), ref.y.view(np.int64))
        assert np.array_equal(np.concatenate([c.lines for c in chunks]), ref.lines)
        if qid:
            assert np.array_equal(np.concatenate([c.qid for c in chunks]), ref.qid)
            assert all(c.qid[-1] != d.qid[0] for c, d in itertools.pairwise(chunks))
        # the line of each example, counted here from the text (blank and comment lines hold none)
        data_lines = [k for k, line in enumerate(text.split("\n"), 1) if line.partition("#")[0].split()]
        assert ref.lines.tolist() == data_lines
        # scikit-learn's reader, the peer (of the loader as well as of the chunks)
        peer = load_svmlight_file(str(path), n_features=width, zero_based=zero_based, query_id=qid)
        assert np.array_equal(ref.X.toarray(), peer[0].toarray()) and np.array_equal(ref.y, peer[1])
        assert np.array_equal(X.toarray(), peer[0].toarray())
        assert np.array_equal(y, peer[1])
        if qid:
            assert np.array_equal(np.concatenate([c.qid for c in chunks]), peer[2])
        # the label scan
        saved = stream_module.BLOCK_BYTES, stream_module.SPLIT_SCAN_BYTES, jit.POLICY
        # the compiled scan (by two threads from ``split`` bytes) or its Python twin
        stream_module.BLOCK_BYTES, stream_module.SPLIT_SCAN_BYTES, jit.POLICY = block, split, policy
        try:
            scan = scan_labels(path, zero_based=zero_based)
        finally:
            stream_module.BLOCK_BYTES, stream_module.SPLIT_SCAN_BYTES, jit.POLICY = saved
        assert np.array_equal(scan.labels, np.unique(ref.y))
        assert scan.n_rows == len(ref.y) and scan.n_features == width


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(svmlight_files(), st.data(), st.integers(8, 300), st.integers(1, 20), st.sampled_from(["always", "never"]),
       st.integers(2, 600))
def test_an_overflowing_value_is_reported_with_its_line(file, data, block, chunk_rows, policy, split):
    text, zero_based, _ = file
    lines = text.split("\n")
    rows = [k for k, line in enumerate(lines) if line.partition("#")[0].strip()]
    k = data.draw(st.sampled_from(rows))
    tokens = lines[k].partition("#")[0].split()
    at = data.draw(st.integers(0, len(tokens) - 1))
    if tokens[at].startswith("qid:"):
        at = 0
    tokens[at] = "1e400" if at == 0 else tokens[at].split(":")[0] + ":1e400"
    lines[k] = " ".join(tokens)
    if data.draw(st.booleans()):  # a malformed line after it: the overflow is still the first fault
        lines.insert(data.draw(st.integers(k + 1, len(lines))), data.draw(st.sampled_from(["1 2:abc", "x 1:1", "1 3"])))
    with tempfile.TemporaryDirectory() as folder:
        path = _write("\n".join(lines), False, folder)
        try:
            load_svmlight(path, sparse=True, zero_based=zero_based, max_features=None)
        except ValueError as exc:
            expected = str(exc)
        else:  # pragma: no cover - the loader must refuse an infinite value
            raise AssertionError("the loader accepted 1e400")
        assert f", line {k + 1}:" in expected
        try:
            _read(path, policy, block, split, chunk_rows=chunk_rows, zero_based=zero_based, max_features=None)
        except ValueError as exc:
            assert str(exc) == expected
        else:
            raise AssertionError("the streaming reader accepted 1e400")


# ------------------------------------------------------------------ what the properties above leave out
MALFORMED = ["1 2:abc", "x 1:1", "1 3", "1 3:1 2:1", "1 1:1 1:2", "1 qid:x 1:1", "1 1:nan", "1 1:inf", "1 :1", "1 1:",
             "1 1::2", "nan 1:1", "1 -1:1", "1 1:0x1", "1 1:1,5", "1e400 1:1", "1 99999999999999999999:1",
             "1 1:1 qid:2", "1 1:1\x00", "1 1:\u00a01", "1 1:1_0"]


def _variant(text: str, crlf: bool, indent: str) -> str:
    """``text`` with Windows line ends and/or whitespace before every line."""
    lines = [indent + line if line.strip() else line for line in text.split("\n")]
    return ("\r\n" if crlf else "\n").join(lines)


def _write_any(text: str, compression: str, folder: str) -> Path:
    import bz2

    path = Path(folder) / ("data.svm" + {"": "", "gz": ".gz", "bz2": ".bz2"}[compression])
    data = text.encode()
    path.write_bytes(gzip.compress(data) if compression == "gz" else bz2.compress(data) if compression == "bz2"
                     else data)
    return path


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(svmlight_files(), st.booleans(), st.sampled_from(["", " ", "\t"]), st.sampled_from(["", "gz", "bz2"]),
       st.integers(8, 3000), st.integers(1, 30), st.sampled_from(["always", "never"]), st.booleans())
def test_windows_line_ends_indented_lines_bz2_and_the_cache_read_as_the_loader(file, crlf, indent, compression,
                                                                                 block, chunk_rows, policy, cached):
    """Windows line ends, whitespace before the label and bz2 (which the first property never draws), and a
    second pass read back from a cache: the chunks equal the loader's and scikit-learn's rows."""
    text, zero_based, qid = file
    text = _variant(text, crlf, indent)
    with tempfile.TemporaryDirectory() as folder:
        path = _write_any(text, compression, folder)
        ref = load_svmlight(path, sparse=True, zero_based=zero_based, max_features=None)
        width = ref.X.shape[1]
        peer = load_svmlight_file(str(path), n_features=width, zero_based=zero_based, query_id=qid)
        assert np.array_equal(ref.X.toarray(), peer[0].toarray()) and np.array_equal(ref.y, peer[1])
        cache = Path(folder) / "data.cache" if cached else None
        for _ in range(2 if cached else 1):  # with a cache: the pass that writes it, and the one that reads it
            chunks = _read(path, policy, block, chunk_rows=chunk_rows, n_features=width, zero_based=zero_based,
                           queries=qid, cache=cache)
            X = sp.vstack([c.X for c in chunks]).tocsr()
            assert np.array_equal(X.indptr, ref.X.indptr) and np.array_equal(X.indices, ref.X.indices)
            assert np.array_equal(X.data.view(np.int64), ref.X.data.view(np.int64))
            assert np.array_equal(np.concatenate([c.y for c in chunks]).view(np.int64), ref.y.view(np.int64))
            assert np.array_equal(np.concatenate([c.lines for c in chunks]), ref.lines)
        assert not cached or cache.is_file()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(svmlight_files(), st.data(), st.sampled_from(MALFORMED), st.booleans(), st.sampled_from(["", "gz", "bz2"]),
       st.integers(8, 300), st.integers(1, 20), st.sampled_from(["always", "never"]))
def test_a_malformed_line_anywhere_is_reported_as_the_loader_does(file, data, bad, crlf, compression, block,
                                                                   chunk_rows, policy):
    """Any of many malformed lines (not only an overflow) put at any place, in any compression and line
    end: the streaming reader raises the loader's ValueError, which names the file and the line."""
    text, zero_based, _ = file
    lines = text.split("\n")
    k = data.draw(st.integers(0, len(lines)))
    lines.insert(k, bad)
    text = _variant("\n".join(lines), crlf, "")
    with tempfile.TemporaryDirectory() as folder:
        path = _write_any(text, compression, folder)
        try:
            ref = load_svmlight(path, sparse=True, zero_based=zero_based, max_features=None)
        except ValueError as exc:
            expected = str(exc)
        else:  # a line that is valid after all (e.g. a repeated qid:): the reader must agree
            chunks = _read(path, policy, block, chunk_rows=chunk_rows, n_features=ref.X.shape[1],
                           zero_based=zero_based, max_features=None)
            assert np.array_equal(np.concatenate([c.y for c in chunks]), ref.y)
            return
        assert str(path) in expected and ", line " in expected, expected
        try:
            _read(path, policy, block, chunk_rows=chunk_rows, zero_based=zero_based, max_features=None)
        except ValueError as exc:
            assert str(exc) == expected
        else:
            raise AssertionError(f"the streaming reader accepted {bad!r}")
