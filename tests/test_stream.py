"""The streaming readers (:mod:`predtron.data.stream`) and the chunk cache, on real files on disk.

Every chunked read is compared with the in-memory loader of the same file: equal values bit
for bit, equal labels, query ids and line numbers, and the same error message (file and line)
for a malformed line.  Small read blocks force partial lines across block boundaries.
"""

from __future__ import annotations

import bz2
import gzip
import itertools
import os
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from predtron._files import pending
from predtron.data import _svmlight_parse as parse_module
from predtron.data import cache as cache_module
from predtron.data import load_letor, load_svmlight
from predtron.data import stream as stream_module
from predtron.data.stream import iter_letor, iter_svmlight

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted((ROOT / "predtron" / "data" / "files" / "letor-mq2008-fold1").glob("*.txt.gz"))
SHARED = Path("/work/shared/data/letor-mq2008-fold1")


def stacked(chunks, sparse=True):
    chunks = list(chunks)
    X = sp.vstack([c.X for c in chunks]).tocsr() if sparse else np.vstack([c.X for c in chunks])
    return chunks, X


def assert_same_csr(A, B):
    assert A.shape == B.shape
    assert np.array_equal(A.indptr, B.indptr) and np.array_equal(A.indices, B.indices)
    assert np.array_equal(A.data.view(np.int64), B.data.view(np.int64))  # bit for bit (signed zeros too)


@pytest.fixture
def small_blocks(monkeypatch):
    """Read 64 bytes at a time, so lines straddle block boundaries, and parse every buffer of 100 bytes or
    more with two threads."""
    monkeypatch.setattr(parse_module, "BLOCK_BYTES", 64)
    monkeypatch.setattr(stream_module, "BLOCK_BYTES", 64)  # the label scan's reads
    monkeypatch.setattr(parse_module, "SPLIT_BYTES", 100)


# ------------------------------------------------------------------ real files
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
@pytest.mark.parametrize("chunk_rows", [5, 1000])
def test_letor_chunks_equal_the_loader_on_shipped_files(path, chunk_rows):
    ref = load_letor(path, sparse=True)
    chunks, X = stacked(iter_letor(path, chunk_rows=chunk_rows, n_features=ref.X.shape[1]))
    assert_same_csr(X, ref.X)
    assert np.array_equal(np.concatenate([c.y for c in chunks]), ref.y)
    assert np.array_equal(np.concatenate([c.qid for c in chunks]), ref.qid)
    assert np.array_equal(np.concatenate([c.group for c in chunks]), ref.group)
    for c in chunks:  # whole queries: a chunk ends where a query ends
        assert c.group.sum() == len(c.y)
        assert len(c.y) <= max(chunk_rows, c.group.max())
    qid_runs = np.concatenate([c.qid[np.r_[0, np.cumsum(c.group)[:-1]]] for c in chunks])
    assert len(np.unique(qid_runs)) == len(qid_runs)


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared data folder ../shared/data is not present (a clone has "
                                                "only the shipped copies, tested above)")
@pytest.mark.parametrize("name", ["vali.txt", "test.txt"])
def test_letor_chunks_equal_the_loader_on_shared_files(name):
    ref = load_letor(SHARED / name, sparse=False)
    chunks, X = stacked(iter_letor(SHARED / name, chunk_rows=4096, n_features=ref.X.shape[1], sparse=False),
                        sparse=False)
    assert np.array_equal(X.view(np.int64), ref.X.view(np.int64))
    assert np.array_equal(np.concatenate([c.y for c in chunks]), ref.y)


# ------------------------------------------------------------------ written files
LINES = [
    "+1 1:0.5 3:-2.25e-3 7:1e5  # a comment",
    "",
    "# a comment line",
    "-1 2:.5 3:1. 5:-0 6:0.12345678901234567 8:123456789012345678901234",
    "2 1:1E+2 4:3.14159265358979311599796346854 9:-7e-30",
    "0\t1:4.9406564584124654e-324 2:1.7976931348623157e308",
    "1.5e0 3:0.000000000000000000000000000001 4:+2.5\r",
    "-3 1:1_000 02:00.5",  # unusual spellings the Python reader takes as the loader does
    "1",
]


def write(tmp_path, lines, name="data.svm", compress=None):
    text = "\n".join(lines) + "\n"
    path = tmp_path / name
    data = text.encode()
    if compress == "gz":
        data = gzip.compress(data)
    elif compress == "bz2":
        data = bz2.compress(data)
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("compress", [None, "gz", "bz2"])
@pytest.mark.parametrize("chunk_rows", [1, 2, 100])
def test_svmlight_chunks_equal_the_loader_bit_for_bit(tmp_path, small_blocks, compress, chunk_rows):
    try:
        path = write(tmp_path, LINES, compress=compress)
        ref = load_svmlight(path, sparse=True, n_features=10)
    except ValueError:  # pragma: no cover - the loader must read this file
        raise
    chunks, X = stacked(iter_svmlight(path, chunk_rows=chunk_rows, n_features=10))
    assert_same_csr(X, ref.X)
    assert np.array_equal(np.concatenate([c.y for c in chunks]).view(np.int64), ref.y.view(np.int64))
    assert np.array_equal(np.concatenate([c.lines for c in chunks]), ref.lines)
    assert all(len(c.y) <= chunk_rows for c in chunks)


def test_random_numbers_parse_as_python_floats(tmp_path, small_blocks):
    rng = np.random.default_rng(1)
    values = np.concatenate([rng.standard_normal(300) * 10.0 ** rng.integers(-40, 40, 300), rng.random(300)])
    formats = ["{!r}", "{:.6f}", "{:.17g}", "{:.3e}", "{:.20f}"]
    lines = []
    for i in range(0, len(values), 6):
        tokens = [f"{j + 1}:" + formats[(i + j) % len(formats)].format(float(v)) for j, v in enumerate(values[i:i + 6])]
        lines.append(f"{(-1) ** i} qid:{i // 12} " + " ".join(tokens))
    path = write(tmp_path, lines)
    ref = load_svmlight(path, sparse=True)
    chunks, X = stacked(iter_svmlight(path, chunk_rows=7, n_features=ref.X.shape[1], queries=True))
    assert_same_csr(X, ref.X)
    assert np.array_equal(np.concatenate([c.qid for c in chunks]), ref.qid)
    assert all(c.qid[-1] != d.qid[0] for c, d in itertools.pairwise(chunks))


BAD = [
    ("1 3:abc", 2),
    ("1 2:1 2:3", 2),
    ("1 0:1", 2),
    ("nan 1:2", 2),
    ("1 1:inf", 2),
    ("1 1:1e400", 2),
    ("1 qid:x 1:2", 2),
    ("1 qid:3 1:2", 2),  # qid: on some lines only
    ("1 1:2 3", 2),
    ("1 1:2\x00", 2),
]


@pytest.mark.parametrize("bad,line", BAD)
def test_a_bad_line_is_reported_as_the_loader_reports_it(tmp_path, small_blocks, bad, line):
    path = write(tmp_path, ["1 1:0.5 2:1", bad, "1 1:1"])
    with pytest.raises(ValueError) as expected:
        load_svmlight(path, sparse=True)
    with pytest.raises(ValueError) as got:
        list(iter_svmlight(path, chunk_rows=1))
    assert str(got.value) == str(expected.value)
    assert f"{path}, line {line}:" in str(got.value)


def test_a_bad_line_late_in_the_file_names_its_line(tmp_path):
    lines = [f"1 1:{i} 2:0.5" for i in range(5000)] + ["1 1:0.5 1:0.25"]
    path = write(tmp_path, lines, compress="gz")
    with pytest.raises(ValueError, match=rf"{path.name}, line 5001: feature index 1 appears twice"):
        for _ in iter_svmlight(path, chunk_rows=100):
            pass


def test_truncated_gzip_is_reported_with_file_and_line(tmp_path):
    path = write(tmp_path, [f"1 1:{i} 2:0.5 3:0.25" for i in range(200_000)], compress="gz")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    seen = 0
    with pytest.raises(ValueError, match=rf"{path.name} could not be read after line \d+: the file ends or is "
                                         r"damaged inside its compressed data") as info:
        for chunk in iter_svmlight(path, chunk_rows=1000):
            seen += len(chunk.y)
    line = int(str(info.value).split("after line ")[1].split(":")[0])
    assert seen < line <= 200_000


def test_group_sidecar_and_its_mismatch(tmp_path):
    path = write(tmp_path, [f"{i % 3} 1:{i} 2:1" for i in range(10)], name="rank.txt")
    (tmp_path / "rank.txt.query").write_text("3\n4\n3\n")
    ref = load_letor(path, sparse=True)
    chunks = list(iter_letor(path, chunk_rows=4))
    assert [c.group.tolist() for c in chunks] == [[3], [4], [3]]
    assert np.array_equal(np.concatenate([c.qid for c in chunks]), ref.qid)
    (tmp_path / "rank.txt.query").write_text("3\n4\n4\n")
    with pytest.raises(ValueError, match="sizes summing to 11 do not match the 10 rows"):
        list(iter_letor(path, chunk_rows=4))


def test_a_query_split_across_the_file_is_refused_with_both_lines(tmp_path):
    lines = ["1 qid:1 1:1", "0 qid:1 1:2", "1 qid:2 1:1", "0 qid:1 1:3"]
    path = write(tmp_path, lines)
    with pytest.raises(ValueError, match=r"line 4: query 1 continues here after lines of other queries \(it starts "
                                         r"at line 1\)"):
        list(iter_letor(path, chunk_rows=1))


def test_empty_file_and_bad_arguments(tmp_path):
    path = write(tmp_path, ["# only a comment", ""])
    with pytest.raises(ValueError, match="contains no data lines"):
        list(iter_svmlight(path))
    with pytest.raises(ValueError, match="chunk_rows"):
        iter_svmlight(path, chunk_rows=0)
    with pytest.raises(TypeError, match="sparse"):
        iter_svmlight(path, sparse="yes")


# ------------------------------------------------------------------ cache
def test_cache_is_written_by_a_complete_pass_read_later_and_rebuilt_on_change(tmp_path, monkeypatch):
    path = write(tmp_path, [f"1 1:{i} 2:0.5" for i in range(50)])
    cache = tmp_path / "data.cache"
    first = list(iter_svmlight(path, chunk_rows=8, cache=cache))
    assert cache.is_file()

    def no_parse(*args, **kwargs):
        raise AssertionError("the cache should have been read")

    with monkeypatch.context() as m:
        m.setattr(stream_module, "_chunks", no_parse)
        again = list(iter_svmlight(path, chunk_rows=8, cache=cache))
    for a, b in zip(first, again, strict=True):
        assert_same_csr(a.X, b.X)
        assert np.array_equal(a.y, b.y) and np.array_equal(a.lines, b.lines)
    # another option: not this cache
    with monkeypatch.context() as m:
        m.setattr(stream_module, "_chunks", no_parse)
        with pytest.raises(AssertionError, match="cache should have been read"):
            list(iter_svmlight(path, chunk_rows=9, cache=cache))
    # the source changes (same size, new time): rebuilt with the new values
    path.write_text(path.read_text().replace("1 1:7 2:0.5", "1 1:8 2:0.5"))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    rebuilt = list(iter_svmlight(path, chunk_rows=8, cache=cache))
    assert rebuilt[0].X[7, 0] == 8.0 and first[0].X[7, 0] == 7.0
    with monkeypatch.context() as m:
        m.setattr(stream_module, "_chunks", no_parse)
        assert next(iter(iter_svmlight(path, chunk_rows=8, cache=cache))).X[7, 0] == 8.0


def test_an_interrupted_pass_leaves_no_cache(tmp_path):
    path = write(tmp_path, [f"1 1:{i} 2:0.5" for i in range(50)])
    cache = tmp_path / "data.cache"
    chunks = iter_svmlight(path, chunk_rows=8, cache=cache)
    next(chunks)
    chunks.close()
    assert not cache.exists()
    assert list(tmp_path.glob("*data.cache*")) == []
    assert pending() == []


def test_a_damaged_cache_is_ignored_and_rebuilt(tmp_path):
    path = write(tmp_path, [f"1 1:{i} 2:0.5" for i in range(50)])
    cache = tmp_path / "data.cache"
    list(iter_svmlight(path, chunk_rows=8, cache=cache))
    cache.write_bytes(cache.read_bytes()[:-5])
    chunks = list(iter_svmlight(path, chunk_rows=8, cache=cache))
    assert sum(len(c.y) for c in chunks) == 50
    assert cache.read_bytes().endswith(b"PTCACHE2")


def _same_values(chunks, reference):
    _, X = stacked(chunks)
    assert_same_csr(X, reference.X)
    assert np.array_equal(np.concatenate([c.y for c in chunks]), reference.y)
    assert np.array_equal(np.concatenate([c.lines for c in chunks]), reference.lines)


@pytest.mark.parametrize("alias", ["same", "relative", "symlink", "hardlink"])
def test_a_cache_that_is_the_data_file_is_refused_and_the_data_file_untouched(tmp_path, monkeypatch, alias):
    path = write(tmp_path, [f"1 qid:{i // 5} 1:{i} 2:0.5" for i in range(50)])
    before, stat = path.read_bytes(), path.stat()
    if alias == "same":
        cache = path
    elif alias == "relative":
        monkeypatch.chdir(tmp_path)
        cache = Path(".") / ".." / tmp_path.name / path.name
    elif alias == "symlink":
        cache = tmp_path / "link.cache"
        cache.symlink_to(path)
    else:
        cache = tmp_path / "hard.cache"
        os.link(path, cache)
    with pytest.raises(ValueError, match=r"cache .* is the input path .*: writing it would destroy the input"):
        list(iter_svmlight(path, cache=cache, chunk_rows=8))
    with pytest.raises(ValueError, match="is the input path"):
        list(iter_letor(path, cache=str(cache), chunk_rows=8))
    assert path.read_bytes() == before and path.stat().st_mtime_ns == stat.st_mtime_ns
    assert pending() == []


def test_a_cache_that_is_the_group_file_or_a_foreign_file_is_refused(tmp_path):
    path = write(tmp_path, [f"1 1:{i} 2:0.5" for i in range(6)])
    sizes = tmp_path / "data.svm.query"
    sizes.write_text("2\n4\n")
    with pytest.raises(ValueError, match="is the input group_file"):
        list(iter_letor(path, cache=sizes))
    assert sizes.read_text() == "2\n4\n"
    other = tmp_path / "notes.txt"
    other.write_text("my notes")
    with pytest.raises(ValueError, match="exists and is not a cache written by predtron"):
        list(iter_svmlight(path, cache=other))
    assert other.read_text() == "my notes"
    with pytest.raises(ValueError, match="does not exist"):
        iter_svmlight(path, cache=tmp_path / "missing" / "data.cache")
    with pytest.raises(TypeError, match="cache must be a str or path-like"):
        iter_svmlight(path, cache=3)


def test_a_source_rewritten_with_the_same_size_and_time_is_not_read_from_the_cache(tmp_path):
    path = write(tmp_path, [f"1 1:{i % 10} 2:0.5" for i in range(9000)] + ["1 1:7 2:0.25"])  # 100 kB
    cache = tmp_path / "data.cache"
    list(iter_svmlight(path, chunk_rows=800, cache=cache))
    stat = path.stat()
    path.write_text(path.read_text().replace("1 1:7 2:0.25", "1 1:8 2:0.25"))  # the last line, far from the head
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns
    chunks = list(iter_svmlight(path, chunk_rows=800, cache=cache))
    assert chunks[-1].X[-1, 0] == 8.0
    _same_values(chunks, load_svmlight(path, sparse=True))


def _cache_entries(cache):
    index = cache_module._index(Path(cache))
    assert index is not None
    return index["chunks"]


def _flip(cache, offset, bit):
    data = bytearray(Path(cache).read_bytes())
    data[offset] ^= 1 << bit
    Path(cache).write_bytes(bytes(data))


@pytest.mark.parametrize(("array", "bit"), [("values", 3), ("values", 6), ("indices", 7), ("indptr", 6),
                                            ("y", 1), ("lines", 0)])
@pytest.mark.parametrize("chunk", [0, 3])
def test_a_flipped_bit_in_a_cached_chunk_is_detected_and_the_cache_rebuilt(tmp_path, array, bit, chunk):
    path = write(tmp_path, [f"{i % 3} 1:{i}.5 {2 + i % 5}:0.25 9:{i}" for i in range(50)])
    cache = tmp_path / "data.cache"
    list(iter_svmlight(path, chunk_rows=8, cache=cache, n_features=9))
    dtype, shape, offset, _ = _cache_entries(cache)[chunk][array]
    byte = offset + np.dtype(dtype).itemsize * (shape[0] // 2) + np.dtype(dtype).itemsize - 1
    _flip(cache, byte, bit)  # the most significant byte of an element in the middle
    with pytest.warns(RuntimeWarning, match=rf"chunk {chunk} of the cache is damaged .* rebuilt from"):
        chunks = list(iter_svmlight(path, chunk_rows=8, cache=cache, n_features=9))
    reference = load_svmlight(path, sparse=True, n_features=9)
    _same_values(chunks, reference)
    for c in chunks:
        c.X.toarray()
    # the cache was written anew, and is read without a warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _same_values(list(iter_svmlight(path, chunk_rows=8, cache=cache, n_features=9)), reference)


def _craft(cache, index: bytes, arrays: bytes = b""):
    """A cache file holding ``index`` with a valid trailer (so that the structure checks are what refuse it)."""
    Path(cache).write_bytes(b"PTCACHE2" + arrays + index + cache_module.trailer(index))


@pytest.mark.parametrize("index", [
    b"{}", b"[]", b"null", b'{"format": 2}', b'{"format": 2, "chunks": 5, "source": {}, "options": {}}',
    b'{"format": 2, "chunks": [{"y": "abc"}], "source": {"size": 1, "sha256": "x"}, "options": {}}',
    b'{"format": 2, "chunks": [{"y": ["float64", [2], 8, -1]}], "source": {"size": 1, "sha256": "x"}, '
    b'"options": {}}',
    b'{"format": 2, "chunks": [{"y": ["object", [2], 8, 0]}], "source": [], "options": {}}',
    b'{"format": 2, "chunks": [{"y": ["float64", [99999], 8, 0]}], "source": {"size": 1, "sha256": "x"}, '
    b'"options": {}}',
    b'{"key": {"source": 1}, "chunks": [[1, 2]]}', b"\xff\xfe", b"[" * 100000 + b"]" * 100000,
])
def test_a_cache_index_of_the_wrong_structure_is_rebuilt(tmp_path, index):
    path = write(tmp_path, [f"1 1:{i} 2:0.5" for i in range(20)])
    cache = tmp_path / "data.cache"
    _craft(cache, index)
    _same_values(list(iter_svmlight(path, chunk_rows=8, cache=cache)), load_svmlight(path, sparse=True))
    assert cache_module._index(cache) is not None


@pytest.mark.parametrize("edit", ["drop", "swap", "byte"])
def test_an_edited_cache_index_is_detected_and_the_cache_rebuilt(tmp_path, edit):
    """Chunks dropped from the index (the pass would read a part of the file), swapped, or any byte of
    the index changed: the index's checksum no longer matches, and the pass parses the file."""
    import json
    import struct

    path = write(tmp_path, [f"{i % 2} 1:{i} 2:0.5" for i in range(40)])
    cache = tmp_path / "data.cache"
    reference = list(iter_svmlight(path, chunk_rows=8, cache=cache))
    raw = cache.read_bytes()
    length, crc, tag = struct.unpack("<QI8s", raw[-20:])
    body, index = raw[:-20 - length], json.loads(raw[-20 - length:-20])
    if edit == "drop":
        del index["chunks"][2:]
    elif edit == "swap":
        index["chunks"][0], index["chunks"][1] = index["chunks"][1], index["chunks"][0]
    new = json.dumps(index).encode()
    if edit == "byte":
        new = raw[-20 - length:-20].replace(b'"format"', b'"Format"')
    cache.write_bytes(body + new + struct.pack("<QI8s", len(new), crc, tag))  # the old checksum kept
    assert cache_module._index(cache) is None
    again = list(iter_svmlight(path, chunk_rows=8, cache=cache))
    _same_values(again, load_svmlight(path, sparse=True))
    assert len(again) == len(reference) == 5 and cache_module._index(cache) is not None  # rebuilt



@pytest.mark.parametrize("edit", ["drop", "drop-last", "swap", "repeat", "spec-order", "huge-shape", "no-qid",
                                  "offset"])
@pytest.mark.parametrize("letor", [False, True], ids=["svmlight", "letor"])
def test_a_hand_edited_cache_index_with_its_checksum_recomputed_is_rebuilt(tmp_path, edit, letor):
    """An index edited by hand and given a new checksum (each array still matching its own): chunks
    dropped, swapped or repeated, a chunk's arrays mislaid, entries of the wrong type or size.  The
    arrays must fill the data in the index's order, so the cache is rebuilt before any chunk is
    read: the values are the file's, never another chunk's, and no error escapes (a dtype given as
    a list raised TypeError, a shape of 2**64 OverflowError, a letor chunk without qid NumPy's
    'object of too small depth', a repeated chunk blamed the data file's queries)."""
    import json
    import struct

    path = write(tmp_path, [f"{i % 3} qid:{i // 4} 1:{i} {2 + i % 3}:0.5" for i in range(48)])
    cache = tmp_path / "data.cache"
    read = iter_letor if letor else iter_svmlight
    reference = [(c.X.toarray(), c.y, c.lines) for c in read(path, chunk_rows=8)]
    list(read(path, chunk_rows=8, cache=cache))
    raw = cache.read_bytes()
    length = struct.unpack("<QI8s", raw[-20:])[0]
    body, index = raw[:-20 - length], json.loads(raw[-20 - length:-20])
    chunks = index["chunks"]
    if edit == "drop":
        del chunks[1]
    elif edit == "drop-last":
        del chunks[-1]
    elif edit == "swap":
        chunks[1], chunks[4] = chunks[4], chunks[1]
    elif edit == "repeat":
        chunks.insert(2, chunks[1])
    elif edit == "spec-order":
        spec = chunks[2]["indptr"]
        spec[0], spec[1] = spec[1], spec[0]
    elif edit == "huge-shape":
        chunks[2]["y"][1] = [2**64]
    elif edit == "no-qid":
        del chunks[3]["qid"]
    else:
        chunks[2]["y"][2] += 8
    new = json.dumps(index).encode()
    cache.write_bytes(body + new + cache_module.trailer(new))
    assert cache_module._index(cache) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = [(c.X.toarray(), c.y, c.lines) for c in read(path, chunk_rows=8, cache=cache)]
    assert len(again) == len(reference)
    for a, b in zip(again, reference, strict=True):
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert cache_module._index(cache) is not None  # rebuilt


def test_cached_chunks_whose_lines_go_back_are_refused_as_damaged():
    """The last check of a cached chunk (behind the index's): its lines follow those of the chunk before."""
    first = {"values": np.ones(1), "indices": np.zeros(1, np.int32), "indptr": np.array([0, 1]), "y": np.ones(1),
             "lines": np.array([5])}
    stream_module._check_raw(first, 1)
    stream_module._check_raw({**first, "lines": np.array([6])}, 1, first)
    with pytest.raises(cache_module.DamagedCache, match="lines do not follow"):
        stream_module._check_raw({**first, "lines": np.array([5])}, 1, first)
    with pytest.raises(cache_module.DamagedCache, match="other arrays"):
        stream_module._check_raw({**first, "lines": np.array([6]), "qid": np.zeros(1, np.int64)}, 1, first)

def test_a_cache_with_valid_checksums_but_impossible_arrays_is_refused_before_use(tmp_path, monkeypatch):
    """A cache written by other code (the checksums right, the CSR arrays wrong) is rebuilt, never
    handed to scipy (a column index beyond the width would make it read outside the array)."""
    path = write(tmp_path, [f"1 1:{i} 2:0.5" for i in range(20)])
    cache = tmp_path / "data.cache"
    first = list(iter_svmlight(path, chunk_rows=8, cache=cache, n_features=2))
    real = cache_module._chunks

    def forged(path_, index):
        for arrays in real(path_, index):
            arrays["indices"] = arrays["indices"] + 1000
            yield arrays

    monkeypatch.setattr(cache_module, "_chunks", forged)
    with pytest.warns(RuntimeWarning, match="inconsistent"):
        again = list(iter_svmlight(path, chunk_rows=8, cache=cache, n_features=2))
    for a, b in zip(first, again, strict=True):
        assert_same_csr(a.X, b.X)


# ------------------------------------------------------------------ prefetch
def test_prefetch_keeps_order_raises_where_the_reader_fails_and_stops_when_closed(tmp_path):
    from predtron.data.stream import prefetch

    path = write(tmp_path, [f"1 1:{i} 2:0.5" for i in range(50)] + ["1 1:x"])
    got = []
    with pytest.raises(ValueError, match=r"line 51: the feature value 'x'"):
        for chunk in prefetch(iter_svmlight(path, chunk_rows=8)):
            got.append(chunk.X[:, 0].toarray().ravel())
    assert np.array_equal(np.concatenate(got), np.arange(48))  # every chunk before the bad one, in order
    cache = tmp_path / "c.cache"
    chunks = prefetch(iter_svmlight(write(tmp_path, [f"1 1:{i}" for i in range(50)], name="ok.svm"), chunk_rows=8,
                                    cache=cache))
    next(chunks)
    chunks.close()
    assert not cache.exists()


# ------------------------------------------------------------------ ARFF
@pytest.mark.parametrize("name", ["emotions-train.arff.gz", "emotions-test.arff.gz"])
def test_arff_chunks_equal_the_loader(name):
    from predtron.data import load_arff
    from predtron.data.mulan import iter_arff

    path = ROOT / "predtron" / "data" / "files" / "mulan-emotions" / name
    ref = load_arff(path, 6, sparse=True)
    chunks = list(iter_arff(path, 6, chunk_rows=50))
    assert all(len(c.Y) <= 50 for c in chunks) and len(chunks) > 1
    assert_same_csr(sp.vstack([c.X for c in chunks]).tocsr(), ref.X)
    assert np.array_equal(np.vstack([c.Y for c in chunks]), ref.Y)
    assert chunks[0].feature_names == ref.feature_names and chunks[0].label_names == ref.label_names


def test_arff_bad_row_is_reported_by_line(tmp_path):
    from predtron.data.mulan import iter_arff

    rows = [f"{i}.5,{i % 2}" for i in range(30)] + ["1.5,2"]
    path = write(tmp_path, ["@relation r", "@attribute x numeric", "@attribute y {0,1}", "@data", *rows],
                 name="bad.arff")
    got = []
    with pytest.raises(ValueError, match=r"bad\.arff, line 35: "):
        for chunk in iter_arff(path, 1, chunk_rows=8):
            got.append(len(chunk.Y))
    assert got == [8, 8, 8]


# ------------------------------------------------------------------ long rows, long tokens, block boundaries
def _counting_kernel(monkeypatch, limit=50):
    """Wrap the compiled parser so that a parse that returns FULL again and again fails (it looped)."""
    from predtron.data import _svmlight_kernel as kernel_module

    real = kernel_module.parse_block.kernel
    calls = {"full": 0}

    def counted(*args):
        out = real(*args)
        if out[0] == kernel_module.FULL:
            calls["full"] += 1
            if calls["full"] > limit:
                raise AssertionError("the parser asked for room again and again (a row is parsed forever)")
        return out

    monkeypatch.setattr(kernel_module.parse_block, "kernel", counted)
    return calls


@pytest.mark.parametrize("width", [1025, 1500, 5000])
def test_rows_longer_than_the_buffers_are_parsed_once(tmp_path, monkeypatch, width):
    calls = _counting_kernel(monkeypatch)
    rng = np.random.default_rng(width)
    lines = [f"{i % 2} " + " ".join(f"{j}:{v:.3f}" for j, v in enumerate(rng.random(width), start=1))
             for i in range(20)]
    path = write(tmp_path, lines)
    ref = load_svmlight(path, sparse=True)  # the same parser: at most 6 growths for its pieces too
    assert calls["full"] <= 6
    calls["full"] = 0
    _, X = stacked(iter_svmlight(path, chunk_rows=7, n_features=width))
    assert_same_csr(X, ref.X)
    assert calls["full"] <= 6  # each growth at least doubles the room, and fits the whole row


@pytest.mark.parametrize("block", range(20, 130, 2))
def test_a_long_label_across_a_block_boundary_parses(tmp_path, monkeypatch, block):
    monkeypatch.setattr(parse_module, "BLOCK_BYTES", block)
    label = "1." + "0" * 30 + "1"  # 1.0, but more digits than the fast conversion takes
    lines = [f"{label if i % 2 else 2} qid:{i // 10} 1:0.5 2:1.{'0' * 25}3" for i in range(40)]
    lines[5::7] = ["# comment lines make the reader parse to the end of its buffer"] * len(lines[5::7])
    path = write(tmp_path, lines, name="data.txt")
    ref = load_letor(path, sparse=True)
    chunks, X = stacked(iter_letor(path, chunk_rows=4, n_features=2))
    assert_same_csr(X, ref.X)
    assert np.array_equal(np.concatenate([c.y for c in chunks]), ref.y)
    assert np.array_equal(np.concatenate([c.group for c in chunks]), ref.group)


@pytest.mark.parametrize("first", ["1e400 1:2", "1 1:1e400", "1 qid:1 1:1e400", "-1e400 qid:1 1:2",
                                   "1.00000000000000000000001 1:0.5 2:1e400", "1 1:1e400 2:1.00000000000000000000001"])
@pytest.mark.parametrize("block", [7, 16, 64, 1 << 22])
@pytest.mark.parametrize("chunk_rows", [1, 3, 100])
@pytest.mark.parametrize("later", ["", "1 2:abc"])
def test_an_overflow_on_line_one_is_reported_on_line_one(tmp_path, monkeypatch, first, block, chunk_rows, later):
    monkeypatch.setattr(parse_module, "BLOCK_BYTES", block)
    qid = "qid:" in first
    rest = [f"{i % 2} {'qid:1 ' if qid else ''}1:{i}.12345678901234567890123 2:2" for i in range(6)]
    if later:  # a malformed line after it, in the same block: line 1 is still the first fault
        rest[2] = later.replace("1 ", "1 qid:1 ", 1) if qid else later
    path = write(tmp_path, [first, "# comment", *rest])
    with pytest.raises(ValueError) as expected:
        load_svmlight(path, sparse=True)
    with pytest.raises(ValueError) as got:
        list(iter_svmlight(path, chunk_rows=chunk_rows))
    assert str(got.value) == str(expected.value)
    assert f"{path}, line 1:" in str(got.value)


@pytest.mark.parametrize("label", ["9007199254740993", "-9007199254740993", "+18014398509481985.000",
                                   "123456789012345678901234567890"])
@pytest.mark.parametrize("block", [7, 64, 1 << 22])
@pytest.mark.parametrize("line", [1, 4])
def test_a_whole_label_that_float64_cannot_hold_is_refused(tmp_path, monkeypatch, label, block, line):
    # 2**53 + 1 reads as 2**53: two classes that differ only there would become one, silently
    # (scikit-learn's loader merges them).
    monkeypatch.setattr(parse_module, "BLOCK_BYTES", block)
    lines = ["9007199254740992 1:1", "# comment", "3 1:2", "1 2:1"]
    lines.insert(line - 1, f"{label} 1:0.5")
    path = write(tmp_path, lines)
    with pytest.raises(ValueError) as expected:
        load_svmlight(path, sparse=True)
    with pytest.raises(ValueError) as got:
        list(iter_svmlight(path, chunk_rows=2))
    assert str(got.value) == str(expected.value)
    assert str(expected.value).startswith(f"{path}, line {line}: the label {label} is a whole number beyond 2**53")


def test_whole_labels_that_float64_holds_are_read_exactly(tmp_path):
    labels = ["9007199254740992", "9007199254740994", "-9007199254740994", "1e30", "18014398509481984.0", "2.5"]
    path = write(tmp_path, [f"{label} 1:1" for label in labels])
    expected = [float(label) for label in labels]
    assert load_svmlight(path, sparse=True).y.tolist() == expected
    assert [v for chunk in iter_svmlight(path, chunk_rows=2) for v in chunk.y.tolist()] == expected


# ------------------------------------------------------------------ the compile policy of the parser
@pytest.mark.parametrize("policy", ["never", "always"])
def test_the_parser_obeys_the_engine_compile_policy(tmp_path, monkeypatch, policy):
    from predtron.data import _svmlight_kernel as kernel_module
    from predtron.engine import jit

    calls = {"kernel": 0}
    real = kernel_module.parse_block.kernel

    def counted(*args):
        calls["kernel"] += 1
        return real(*args)

    monkeypatch.setattr(kernel_module.parse_block, "kernel", counted)
    monkeypatch.setattr(jit, "POLICY", policy)
    path = write(tmp_path, LINES)
    ref = load_svmlight(path, sparse=True, n_features=10)
    chunks, X = stacked(iter_svmlight(path, chunk_rows=3, n_features=10))
    assert_same_csr(X, ref.X)
    assert np.array_equal(np.concatenate([c.lines for c in chunks]), ref.lines)
    assert (calls["kernel"] > 0) == (policy == "always")


# ------------------------------------------------------------------ the label scan
@pytest.mark.parametrize("compress", [None, "gz"])
def test_the_label_scan_finds_the_loaders_labels_rows_and_width(tmp_path, small_blocks, compress):
    from predtron.data.stream import scan_labels

    lines = ["1 qid:1 1:0.5 3:2 # docid = a:9 77:1", "", "# 99:1", "-1 qid:1", "+1 qid:2 12:1 13:0.5",
             " 2.5 qid:2 4:1", "1e0 qid:3 1234567:1 #", "-0 qid:3 2:1"]
    path = write(tmp_path, lines, compress=compress)
    ref = load_svmlight(path, sparse=True, max_features=None)
    scan = scan_labels(path)
    assert np.array_equal(scan.labels, np.unique(ref.y)) and scan.labels.tolist() == [-1.0, 0.0, 1.0, 2.5]
    assert (scan.n_rows, scan.n_features) == (6, ref.X.shape[1]) == (6, 1234567)
    zero = write(tmp_path, ["1 0:1", "2"], name="zero.svm")
    assert scan_labels(zero, zero_based=True).n_features == 1 and scan_labels(zero).n_features == 0
    long_index = write(tmp_path, ["1 12345678901234567890:1"], name="long.svm")
    assert scan_labels(long_index).n_features == 2**62  # beyond any reader's limit: counted as 2**62
    bad = write(tmp_path, ["1 1:2", "# x", "nan 1:2"], name="bad.svm")
    with pytest.raises(ValueError, match=r"bad.svm, line 3: the label is 'nan'; labels must be finite numbers"):
        scan_labels(bad)
    with pytest.raises(ValueError, match="contains no data lines"):
        scan_labels(write(tmp_path, ["# only a comment"], name="empty.svm"))


@pytest.mark.parametrize("bad", [[], [3], [70], [3, 70], [99]])
def test_the_label_scan_by_two_threads_finds_what_one_finds(tmp_path, monkeypatch, bad):
    from predtron.data.stream import scan_labels

    lines = [f"{k % 5 - 2} {k % 7 + 1}:1 {k % 11 + 9}:0.5" if k % 9 else "# 99:1" for k in range(100)]
    for k in bad:
        lines[k] = "inf 1:1"
    path = write(tmp_path, lines)

    def outcome():
        try:
            scan = scan_labels(path)
        except ValueError as exc:
            return str(exc)
        return scan.labels.tolist(), scan.n_rows, scan.n_features

    monkeypatch.setattr(stream_module, "SPLIT_SCAN_BYTES", 1 << 40)  # one thread
    serial = outcome()
    monkeypatch.setattr(stream_module, "BLOCK_BYTES", 64)
    monkeypatch.setattr(stream_module, "SPLIT_SCAN_BYTES", 100)
    threads, thread = [], threading.Thread
    monkeypatch.setattr(stream_module.threading, "Thread",
                        lambda *args, **kwargs: threads.append(1) or thread(*args, **kwargs))
    assert outcome() == serial and threads
    if bad:
        assert f"line {bad[0] + 1}: " in serial
    else:
        assert serial == ([-2.0, -1.0, 0.0, 1.0, 2.0], 88, 19)


@pytest.mark.parametrize("compress", ["gz", "bz2"])
def test_a_cache_of_a_compressed_file_records_its_bytes_on_disk(tmp_path, monkeypatch, compress):
    path = write(tmp_path, [f"1 1:{i} 2:0.5" for i in range(300)], name=f"data.{compress}", compress=compress)
    cache = tmp_path / "data.cache"
    first = list(iter_svmlight(path, chunk_rows=64, cache=cache))
    assert cache_module._index(cache)["source"] == cache_module.source_identity(path)

    def no_parse(*args, **kwargs):
        raise AssertionError("the cache should have been read")

    with monkeypatch.context() as m:
        m.setattr(stream_module, "_chunks", no_parse)
        again = list(iter_svmlight(path, chunk_rows=64, cache=cache))
    for a, b in zip(first, again, strict=True):
        assert_same_csr(a.X, b.X)


@pytest.mark.parametrize("size", [0, 1, 2, 7, 100_001])
def test_the_source_is_identified_by_the_sha256_of_each_half_read_or_hashed_again(tmp_path, monkeypatch, size):
    import hashlib

    data = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8).tobytes()
    path = tmp_path / "data.bin"
    path.write_bytes(data)
    half = size // 2
    expected = {"size": size, "half": half,
                "sha256": [hashlib.sha256(data[:half]).hexdigest(), hashlib.sha256(data[half:]).hexdigest()]}
    monkeypatch.setattr(cache_module, "_READ", 1000)  # reads that straddle the middle
    with path.open("rb") as handle:
        hashing = cache_module.HashingFile(handle)
        hashing.read(min(size, 5))
        assert hashing.identity() == expected
    assert cache_module.source_identity(path) == expected


def test_an_interrupt_while_two_threads_parse_reaches_the_caller(tmp_path, monkeypatch):
    path = write(tmp_path, [f"1 1:{i} 2:0.5" for i in range(2000)])
    monkeypatch.setattr(parse_module, "SPLIT_BYTES", 100)  # every chunk after the first in pieces, on two threads
    original, raised, main_took_one = parse_module._Parser._parse_range, [], threading.Event()

    def interrupted(self, *args, **kwargs):
        if threading.current_thread() is not threading.main_thread():
            # the second thread waits in its first piece until the main thread has taken one: on a
            # busy machine it could otherwise parse every piece first, and nothing would be interrupted
            main_took_one.wait(timeout=30)
        elif self.qid_mode >= 0 and not raised:
            raised.append(True)  # once: a reader that swallowed it would parse the piece again and go on
            main_took_one.set()
            raise KeyboardInterrupt
        return original(self, *args, **kwargs)

    monkeypatch.setattr(parse_module._Parser, "_parse_range", interrupted)
    with pytest.raises(KeyboardInterrupt):
        list(iter_svmlight(path, chunk_rows=500))
    assert raised


def test_a_view_of_the_read_buffer_held_elsewhere_does_not_stop_the_reader(tmp_path, monkeypatch):
    """A sampling profiler (``distributed``'s, in every Dask worker) can hold a frame after its call has
    returned, and with it the view of the read buffer the call was given: the reader must then still
    grow its buffer (Python refuses to resize a bytearray while a view of it exists), as it did not
    in a Dask worker reading a file in memory ('BufferError: Existing exports of data')."""
    lines = [f"{1 if i % 3 else -1} 1:{i}.25 2:0.5 7:{i % 11}" for i in range(3000)]
    path = write(tmp_path, lines)
    expected = load_svmlight(path, sparse=True)
    held, read = [], parse_module._Reader.readinto

    def holding(self, view, line):
        held.append(view)  # as a frame kept by a profiler keeps its arguments
        return read(self, view, line)

    monkeypatch.setattr(parse_module._Reader, "readinto", holding)
    monkeypatch.setattr(parse_module, "BLOCK_BYTES", 256)  # many reads, and buffers that must grow
    got = load_svmlight(path, sparse=True)
    assert held  # the reads went through the holder
    assert_same_csr(got.X, expected.X)
    assert np.array_equal(got.y, expected.y)
    _, X = stacked(iter_svmlight(path, chunk_rows=700, n_features=7))
    assert_same_csr(X, expected.X)
