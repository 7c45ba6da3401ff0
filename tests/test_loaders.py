"""File loaders on small files the tests write: every layout, every rule with its line number, fuzzing."""

from __future__ import annotations

import bz2
import gzip
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from predtron.data import (
    check_group_sizes,
    flatten_queries,
    iter_arff,
    iter_letor,
    load_arff,
    load_letor,
    load_svmlight,
    read_group_file,
    read_mulan_xml,
    split_queries,
)
from predtron.data.opening import MAX_DENSE_ENTRIES
from predtron.data.shipped import BIBTEX_FILES, EMOTIONS_FILES, shipped_file


def _write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    if isinstance(text, str):
        text = text.encode("utf-8")
    path.write_bytes(text)
    return path


# ------------------------------------------------------------------ svmlight / LETOR: layouts
LETOR_TEXT = """# a comment line before the data
2 qid:10 1:0.5 3:1.0 #docid = A-1 inc = 1 prob = 0.2
0 qid:10 2:0.25 #docid = A-2 inc = 0

1 qid:3 1:1 2:2 3:3
"""
X_DENSE = np.array([[0.5, 0, 1.0], [0, 0.25, 0], [1, 2, 3]])


def test_letor_with_qid_flat_layout(tmp_path):
    data = load_letor(_write(tmp_path, "small.txt", LETOR_TEXT))
    assert isinstance(data.X, np.ndarray) and np.array_equal(data.X, X_DENSE)
    assert data.y.dtype == np.int64 and data.y.tolist() == [2, 0, 1]
    assert data.qid.tolist() == [10, 10, 3] and data.group.tolist() == [2, 1]
    assert data.query_ids.tolist() == [10, 3]
    assert data.docids.tolist() == ["A-1", "A-2", None]
    Xs, ys = data.queries()
    assert [x.shape for x in Xs] == [(2, 3), (1, 3)] and [v.tolist() for v in ys] == [[2, 0], [1]]
    # the per-query lists are those of split_queries and flatten back to the file's arrays
    Xq, yq = split_queries(data.X, data.y, qid=data.qid)
    for a, b in zip(Xs + ys, Xq + yq, strict=True):
        assert np.array_equal(a, b)
    X, y, group = flatten_queries(Xs, ys)
    assert np.array_equal(X, data.X) and np.array_equal(y, data.y) and np.array_equal(group, data.group)
    assert load_letor(tmp_path / "small.txt", n_features=5).X.shape == (3, 5)


def test_letor_sparse_matches_dense(tmp_path):
    path = _write(tmp_path, "small.txt", LETOR_TEXT.replace("1:1 2:2", "1:1 2:0"))
    dense = load_letor(path)
    data = load_letor(path, sparse=True)
    assert isinstance(data.X, sp.csr_matrix) and data.X.shape == (3, 3)
    assert np.array_equal(data.X.toarray(), dense.X)
    assert data.X.nnz == 5  # the explicit zero "2:0" is not stored
    Xs_sparse, _ = data.queries(dense=False)
    Xs, _ = data.queries()
    assert all(sp.issparse(a) and np.array_equal(a.toarray(), b) for a, b in zip(Xs_sparse, Xs, strict=True))


def test_a_qid_like_token_on_every_line_is_not_dropped(tmp_path):
    with pytest.raises(ValueError, match=r"line 1: expected qid:<integer> after the label; got 'qidx:3'"):
        load_svmlight(_write(tmp_path, "q.txt", "1 qidx:3 1:1\n0 qidx:3 1:2\n"))


def test_svmlight_without_qid_and_zero_based(tmp_path):
    path = _write(tmp_path, "plain.txt", "-1 0:1.5 4:2\n+1 2:-3e-2\n")
    data = load_svmlight(path, zero_based=True)
    assert data.qid is None and data.docids is None and data.lines.tolist() == [1, 2]
    assert data.y.tolist() == [-1.0, 1.0]
    assert np.array_equal(data.X, [[1.5, 0, 0, 0, 2], [0, 0, -0.03, 0, 0]])
    with pytest.raises(ValueError, match=r"plain.txt, line 1: feature index 0 .*zero_based=True"):
        load_svmlight(path)


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress], ids=["gzip", "bz2"])
def test_compressed_files(tmp_path, compress):
    path = _write(tmp_path, "small.dat", compress(LETOR_TEXT.encode()))
    assert np.array_equal(load_letor(path).X, X_DENSE)
    broken = _write(tmp_path, "broken.gz", compress(LETOR_TEXT.encode())[:30])
    with pytest.raises(ValueError, match=r"broken\.gz could not be read"):
        load_letor(broken)


PLAIN = "2 1:0.5 3:1\n0 2:0.25\n1 1:1 2:2 3:3\n"


@pytest.mark.parametrize("suffix", [".query", ".group"])
def test_lightgbm_sidecar_found_next_to_the_file(tmp_path, suffix):
    path = _write(tmp_path, "train.txt", PLAIN)
    _write(tmp_path, "train.txt" + suffix, "2\n1\n")
    data = load_letor(path)
    assert data.group.tolist() == [2, 1] and data.qid.tolist() == [0, 0, 1]
    assert np.array_equal(data.X, X_DENSE) and data.y.tolist() == [2, 0, 1]


def test_group_file_argument_and_group_array(tmp_path):
    path = _write(tmp_path, "train.txt", PLAIN)
    sizes = _write(tmp_path, "sizes.txt", "2.0\n\n1.000000000000000000e+00\n")  # as np.savetxt writes them
    assert load_letor(path, group_file=sizes).group.tolist() == [2, 1]
    assert load_letor(path, group=[2, 1]).group.tolist() == [2, 1]
    assert load_letor(path, group=np.array([2.0, 1.0])).group.tolist() == [2, 1]  # np.loadtxt gives floats
    with pytest.raises(ValueError, match="at most one of group"):
        load_letor(path, group=[2, 1], group_file=sizes)
    with pytest.raises(TypeError, match="pass a file of group sizes as group_file="):
        load_letor(path, group=str(sizes))
    with pytest.raises(ValueError, match=r"train.txt has no qid: .*train.txt.query"):
        load_letor(path)


def test_given_sizes_must_match_the_qids(tmp_path):
    path = _write(tmp_path, "small.txt", LETOR_TEXT)
    assert load_letor(path, group=[2, 1]).group.tolist() == [2, 1]
    with pytest.raises(ValueError, match=r"^the sizes in group do not match the queries of .*small.txt given by its "
                                         r"qid: fields: query 1 \(from line 2\) has 2 lines, where the sizes give 1$"):
        load_letor(path, group=[1, 2])


@pytest.mark.parametrize(("sizes", "message"), [
    ("1\n3\n", r"do not match the queries of .*r.txt given by its qid: fields: query 1 \(from line 1\) has 2 lines, "
               r"where the sizes give 1$"),
    ("2\n1\n1\n", r"do not .* query 2 \(from line 3\) has 2 lines, where the sizes give 1$"),
    ("2\n2\n1\n", r"give 3 queries, but .*r.txt has 2 by its qid: fields$"),
    ("2\n", r"give 1 query, but .*r.txt has more by its qid: fields \(query 2 starts at line 3\)$"),
], ids=["first query", "second query", "more sizes", "fewer sizes"])
def test_a_sidecar_contradicting_the_qids_is_refused_as_the_stream_refuses_it(tmp_path, sizes, message):
    """``load_letor`` looks for a sidecar beside a file with ``qid:`` too (it used the ``qid:`` fields and
    ignored the sidecar, where ``iter_letor`` refused it): both refuse with the same message."""
    path = _write(tmp_path, "r.txt", "2 qid:1 1:1 2:0\n0 qid:1 1:0 2:1\n1 qid:2 1:1\n0 qid:2 2:1\n")
    _write(tmp_path, "r.txt.query", sizes)
    with pytest.raises(ValueError, match=r"^the group sizes in .*r.txt.query " + message) as memory:
        load_letor(path)
    with pytest.raises(ValueError) as stream:
        list(iter_letor(path, chunk_rows=1))
    assert str(stream.value) == str(memory.value)
    _write(tmp_path, "r.txt.query", "2\n2\n")
    assert load_letor(path).group.tolist() == [2, 2]


@pytest.mark.parametrize(("group", "message"), [
    ([2.5, 0.5], r"group sizes must be whole numbers; group\[0\] = 2.5"),
    ([3, 0], r"group sizes must be >= 1; group\[1\] = 0"),
    ([1, 1], r"group sizes sum to 2 but there are 3 rows"),
    ([True, 2], "integer group sizes; got dtype object"),
    ([True, True, True], "integer group sizes; got dtype bool"),
    (["2", "1"], "integer group sizes"),
    ([[2, 1]], "1-D array"),
    ([np.nan, 1], "whole numbers"),
])
def test_bad_group_arrays(tmp_path, group, message):
    path = _write(tmp_path, "train.txt", PLAIN)
    with pytest.raises(ValueError, match=message):
        load_letor(path, group=group)


def test_group_messages_show_an_excerpt_only():
    with pytest.raises(ValueError, match=r"sum to 10000 but there are 3 rows; group = \[1, 1, 1, 1, 1, 1, \.\.\.\] "
                                         r"\(10000 values\)$"):
        check_group_sizes(np.ones(10_000), 3)
    assert check_group_sizes(np.array([3.0, 4.0]), 7).dtype == np.int64


@pytest.mark.parametrize(("text", "message"), [
    ("2\nx\n", r"sizes.txt, line 2: expected one group size"),
    ("2\n0.5\n", r"sizes.txt, line 2: a group size must be a whole number >= 1"),
    ("2\n-1\n", r"sizes.txt, line 2: a group size must be a whole number"),
    ("2\n2\n", r"sizes.txt: (the group sizes sum to 4 but the data have 3 rows|2 sizes summing to 4 do not match "
                 r"the 3 rows of .*train.txt)"),
    ("\n\n", r"sizes.txt contains no group sizes"),
])
def test_bad_group_files(tmp_path, text, message):
    path = _write(tmp_path, "train.txt", PLAIN)
    sizes = _write(tmp_path, "sizes.txt", text)
    with pytest.raises(ValueError, match=message):
        load_letor(path, group_file=sizes)
    with pytest.raises(ValueError, match=message):
        read_group_file(sizes, 3)


# ------------------------------------------------------------------ svmlight / LETOR: one test per rule
GOOD = "1 qid:1 1:0.5 2:1\n"


@pytest.mark.parametrize(("bad_line", "message"), [
    ("x qid:1 1:0.5", r"the label 'x' is not a number"),
    ("nan qid:1 1:0.5", r"labels must be finite"),
    ("1 qid:1 1:0.5 2", r"expected <index>:<value>; got '2'"),
    ("1 qid:1 a:0.5", r"the feature index 'a' in 'a:0.5' is not an integer"),
    ("1 qid:1 1:zz", r"the feature value 'zz' in '1:zz' is not a number"),
    ("1 qid:1 1:nan", r"feature 1 has the value 'nan'; values must be finite"),
    ("1 qid:1 1:inf", r"values must be finite"),
    ("1 qid:1 -2:1", r"feature index -2 in '-2:1': indices start at 1"),
    ("1 qid:1 0:1", r"feature index 0 .*zero_based=True"),
    ("1 qid:1 2:1 2:3", r"feature index 2 appears twice"),
    ("1 qid:1 3:1 2:3", r"feature index 2 comes after 3; indices must increase"),
    ("1 qid:1 10000000000:1", r"feature index 10000000000 is beyond max_features = 1000000"),
    ("1 qid:1 2000000:1", r"feature index 2000000 is beyond max_features"),
    ("1 qid:x 1:1", r"expected qid:<integer> after the label; got 'qid:x'"),
    ("1 qid: 1:1", r"expected qid:<integer>"),
    ("1 qidx:1 1:1", r"expected qid:<integer> after the label; got 'qidx:1'"),
    ("1 qid:99999999999999999999 1:1", r"does not fit in a 64-bit integer"),
    ("1 1:1", r"this line has no qid: but earlier lines do"),
    ("1 qid:1 1:1 qid:2", r"qid: must come right after the label"),
    ("1 qid:1 1:\x001", r"NUL byte"),
])
def test_malformed_svmlight_line_reports_its_number(tmp_path, bad_line, message):
    # the bad line is line 4: a good line, a comment, a blank line before it, good lines after
    text = GOOD + "# comment\n\n" + bad_line + " # docid = D\n" + GOOD * 3
    path = _write(tmp_path, "bad.txt", text)
    with pytest.raises(ValueError, match=r"bad.txt, line 4: .*" + message):
        load_letor(path)
    with pytest.raises(ValueError, match=r"bad.txt, line 4: .*" + message):
        load_svmlight(path, sparse=True)


@pytest.mark.parametrize(("bad_line", "message"), [
    ("-1 qid:1 1:0.5", r"the relevance grade -1 must be a whole number >= 0"),
    ("1.5 qid:1 1:0.5", r"the relevance grade 1.5 must be a whole number >= 0"),
    ("5000 qid:1 1:0.5", r"relevance grade 5000 must be at most 1000"),
    ("1 qid:2 1:0.5\n1 qid:1 1:1", r"query 1 continues here after lines of other queries \(it starts at line 1\)"
                                   r".*sort the file by qid"),
])
def test_ranking_rules_report_the_line(tmp_path, bad_line, message):
    path = _write(tmp_path, "bad.txt", GOOD + "\n" + bad_line + "\n")
    with pytest.raises(ValueError, match=r"bad.txt, line [34]: .*" + message):
        load_letor(path)


def test_feature_limit_and_file_errors(tmp_path):
    path = _write(tmp_path, "small.txt", LETOR_TEXT)
    with pytest.raises(ValueError, match=r"small.txt, line 2: feature index 3 is beyond n_features = 2"):
        load_letor(path, n_features=2)
    with pytest.raises(ValueError, match="beyond max_features = 2"):
        load_letor(path, max_features=2)
    # an index of 2e9 fits the reader but not the guard; a dense matrix that big is refused before allocation
    huge = _write(tmp_path, "huge.txt", "1 qid:1 1:1\n0 qid:1 2000000000:1\n")
    with pytest.raises(ValueError, match=r"huge\.txt, line 2: feature index 2000000000 is beyond max_features"):
        load_letor(huge)
    with pytest.raises(ValueError, match=rf"more than the limit of {MAX_DENSE_ENTRIES:,}; pass sparse=True"):
        load_letor(huge, max_features=None)
    assert load_letor(huge, max_features=None, sparse=True).X.shape == (2, 2_000_000_000)
    with pytest.raises(FileNotFoundError, match=r"svmlight file not found: .*nope\.txt"):
        load_letor(tmp_path / "nope.txt")
    # a URL as the user wrote it (a Path showed "https:/host/..."), named as one
    with pytest.raises(FileNotFoundError, match=r"not found: https://example\.org/f\.txt is a URL, .*download it"):
        load_letor("https://example.org/f.txt")
    with pytest.raises(ValueError, match="not a regular file"):
        load_letor(tmp_path)
    with pytest.raises(TypeError, match="path must be a str or path-like"):
        load_letor(3)
    for text, message in [("# only a comment\n\n", "contains no data lines"),
                          ("1 qid:1\n0 qid:1\n", "no line gives a feature value.*pass n_features")]:
        with pytest.raises(ValueError, match=message):
            load_letor(_write(tmp_path, "empty.txt", text))
    assert load_letor(_write(tmp_path, "nofeat.txt", "1 qid:1\n0 qid:1\n"), n_features=2).X.shape == (2, 2)


@pytest.mark.parametrize(("kwargs", "error"), [
    ({"sparse": "no"}, TypeError), ({"zero_based": 1}, TypeError), ({"n_features": 0}, ValueError),
    ({"n_features": 2.0}, ValueError), ({"max_features": -1}, ValueError),
])
def test_bad_arguments(tmp_path, kwargs, error):
    path = _write(tmp_path, "small.txt", LETOR_TEXT)
    with pytest.raises(error):
        load_letor(path, **kwargs)


# ------------------------------------------------------------------ ARFF
ARFF_DENSE = """% emotions-like header
@relation 'tiny data'

@attribute f1 numeric
@attribute 'feature two' REAL
@attribute "third one" {0,1}
@attribute lab1 {0,1}
@attribute 'label 2' {0,1}

@data
0.5,-1,1,0,1
% a comment row
1e-3,2,0,1,1
"""
X_ARFF = np.array([[0.5, -1, 1], [1e-3, 2, 0]])
Y_ARFF = np.array([[0, 1], [1, 1]])


def test_arff_dense_quoted_names(tmp_path):
    data = load_arff(_write(tmp_path, "tiny.arff", ARFF_DENSE), 2)
    assert np.array_equal(data.X, X_ARFF) and np.array_equal(data.Y, Y_ARFF) and data.Y.dtype == np.int64
    assert data.feature_names == ["f1", "feature two", "third one"]
    assert data.label_names == ["lab1", "label 2"]
    sparse = load_arff(tmp_path / "tiny.arff", 2, sparse=True)
    assert isinstance(sparse.X, sp.csr_matrix) and np.array_equal(sparse.X.toarray(), X_ARFF)


def test_arff_sparse_rows_give_the_same_arrays(tmp_path):
    text = ARFF_DENSE.split("@data")[0] + "@data\n{0 0.5, 1 -1, 2 1, 4 1}\n{0 1e-3,1 2,3 1,4 1}\n{}\n"
    data = load_arff(_write(tmp_path, "tiny.arff", text), 2)
    assert np.array_equal(data.X, np.vstack([X_ARFF, np.zeros(3)]))
    assert np.array_equal(data.Y, np.vstack([Y_ARFF, [0, 0]]))
    sparse = load_arff(tmp_path / "tiny.arff", 2, sparse=True)
    assert sparse.X.nnz == 5 and np.array_equal(sparse.X.toarray(), data.X)


def test_arff_missing_values_rule(tmp_path):
    path = _write(tmp_path, "tiny.arff", ARFF_DENSE.replace("1e-3,2", "?,2"))
    with pytest.raises(ValueError, match=r"tiny.arff, line 13: the value of 'f1' is missing \('\?'\); pass missing="):
        load_arff(path, 2)
    assert load_arff(path, 2, missing=-7.0).X[1, 0] == -7.0
    assert load_arff(path, 2, missing=0).X[1, 0] == 0.0
    quoted = _write(tmp_path, "q.arff", ARFF_DENSE.replace("1e-3,2,0", "1e-3,2,'0'"))
    assert np.array_equal(load_arff(quoted, 2).X, X_ARFF)  # a quoted nominal value
    label = _write(tmp_path, "lab.arff", ARFF_DENSE.replace("0,1,1\n", "0,?,1\n"))
    with pytest.raises(ValueError, match=r"line 13: the label 'lab1' is missing"):
        load_arff(label, 2, missing=0.0)
    for bad in ("nan", True, "zero"):
        with pytest.raises(ValueError, match="missing must be 'error' or a finite number"):
            load_arff(path, 2, missing=bad)


def test_arff_labels_named_by_mulan_xml(tmp_path):
    # labels in the middle of the attributes; Y keeps the ARFF order whatever the XML order
    text = "@relation r\n@attribute a numeric\n@attribute L2 {0,1}\n@attribute b numeric\n@attribute L1 {0,1}\n" \
           "@data\n1,1,2,0\n3,0,4,1\n"
    path = _write(tmp_path, "mid.arff", text)
    xml = _write(tmp_path, "mid.xml", '<?xml version="1.0" encoding="utf-8"?>\n'
                 '<labels xmlns="http://mulan.sourceforge.net/labels">\n'
                 '<label name="L1"></label>\n<label name="L2"><label name="L2"/></label>\n</labels>\n')
    with pytest.raises(ValueError, match="the label 'L2' is named twice"):
        read_mulan_xml(xml)
    xml.write_text('<labels xmlns="http://mulan.sourceforge.net/labels"><label name="L1"/>'
                   '<label name="L2"></label></labels>')
    assert read_mulan_xml(xml) == ["L1", "L2"]
    data = load_arff(path, xml=xml)
    assert data.feature_names == ["a", "b"] and data.label_names == ["L2", "L1"]
    assert np.array_equal(data.X, [[1, 2], [3, 4]]) and np.array_equal(data.Y, [[1, 0], [0, 1]])
    assert load_arff(path, 2, xml=xml).label_names == ["L2", "L1"]
    with pytest.raises(ValueError, match=r"n_labels = 1 but .* names 2 labels"):
        load_arff(path, 1, xml=xml)
    xml.write_text('<labels><label name="L1"/><label name="L9"/></labels>')
    with pytest.raises(ValueError, match=r"names labels that .*mid.arff does not declare: \['L9'\]"):
        load_arff(path, xml=xml)
    xml.write_text('<labels><label name="L1"/>\n<label name="L9">\n</labels>')
    with pytest.raises(ValueError, match=r"mid.xml, line 3: not well-formed XML"):
        load_arff(path, xml=xml)
    with pytest.raises(ValueError, match=r"mid.xml, line 3: not well-formed XML"):
        load_arff(path)  # the XML beside the file is read when no labels are named
    xml.unlink()
    with pytest.raises(ValueError, match=r"give n_labels .*; no Mulan XML file was found beside .*mid.arff"):
        load_arff(path)


@pytest.mark.parametrize(("name", "xml_name"), [("toy.arff", "toy.xml"), ("toy-train.arff", "toy.xml"),
                                                ("toy_test.arff.gz", "toy.xml"), ("toy-train.arff", "toy-train.xml")])
def test_the_mulan_xml_beside_an_arff_file_is_used_when_no_labels_are_named(tmp_path, name, xml_name):
    from predtron.data.mulan import find_mulan_xml

    text = "@relation r\n@attribute a numeric\n@attribute L2 {0,1}\n@attribute b numeric\n@attribute L1 {0,1}\n" \
           "@data\n1,1,2,0\n3,0,4,1\n"
    path = tmp_path / name
    path.write_bytes(gzip.compress(text.encode()) if name.endswith(".gz") else text.encode())
    assert find_mulan_xml(path) is None
    _write(tmp_path, xml_name, '<labels xmlns="http://mulan.sourceforge.net/labels"><label name="L1"/>'
                               '<label name="L2"/></labels>')
    assert find_mulan_xml(path) == tmp_path / xml_name
    data = load_arff(path)
    assert data.feature_names == ["a", "b"] and data.label_names == ["L2", "L1"]
    assert np.array_equal(data.Y, [[1, 0], [0, 1]])
    chunks = list(iter_arff(path, chunk_rows=1))
    assert [c.label_names for c in chunks] == [["L2", "L1"]] * 2
    # n_labels alone keeps its meaning (the trailing attributes), whatever XML lies beside
    assert load_arff(path, 1).label_names == ["L1"]


HEADER = "@relation r\n@attribute x numeric\n@attribute 'y y' numeric\n@attribute lab {0,1}\n@data\n1,2,0\n"


@pytest.mark.parametrize(("row", "message"), [
    ("1,2", r"expected 3 values \(one per attribute\); got 2"),
    ("1,2,0,1", r"expected 3 values"),
    ("1,abc,0", r"the value 'abc' of 'y y' is not a number"),
    ("nan,2,0", r"the value 'nan' of 'x' is not finite"),
    ("1,-inf,0", r"is not finite"),
    ("1,2,2", r"'2' is not one of the values '0,1' of attribute 'lab'"),
    ("1,?,0", r"the value of 'y y' is missing"),
    ("1,2,'0", r"quote is not closed"),
    ("1,'2'x,0", r"must be one quoted string"),
    ("{0 1, 0 2}", r"the index 0 appears twice in the row"),
    ("{1 1, 0 2}", r"the index 0 comes after 1; indices must increase"),
    ("{3 1}", r"the index 3 is outside 0..2"),
    ("{-1 1}", r"the index -1 is outside"),
    ("{a 1}", r"the index 'a' is not an integer"),
    ("{0}", r"expected '<index> <value>' in a sparse row; got '0'"),
    ("{0 1", r"a sparse row must end with '}'"),
    ("{0 1}, {3}", r"instance weights"),
    ("{0 1, 2 7}", r"'7' is not one of the values"),
    ("{0 1, 2 ?}", r"the label 'lab' is missing"),
    ("1,2\x00,0", r"NUL character"),
])
def test_malformed_arff_row_reports_its_number(tmp_path, row, message):
    path = _write(tmp_path, "bad.arff", HEADER + "% comment\n\n" + row + "\n1,2,1\n")
    with pytest.raises(ValueError, match=r"bad.arff, line 9: .*" + message):
        load_arff(path, 1)


@pytest.mark.parametrize(("header", "message"), [
    ("@relation r\n@attribute x numeric\n@attribute x numeric\n@attribute l {0,1}\n@data\n",
     r"line 3: attribute 'x' is declared twice \(first at line 2\)"),
    ("@relation r\n@attribute x\n@attribute l {0,1}\n@data\n", r"line 2: attribute 'x' has no type"),
    ("@relation r\n@attribute x complex\n@attribute l {0,1}\n@data\n", r"line 2: .*unknown type 'complex'"),
    ("@relation r\n@attribute 'x numeric\n@attribute l {0,1}\n@data\n", r"line 2: the quoted name .* not closed"),
    ("@relation r\n@attribute x {0,1\n@attribute l {0,1}\n@data\n", r"line 2: .*must end with '}'"),
    ("@relation r\n@attribute x string\n@attribute l {0,1}\n@data\n",
     r"line 2: feature attribute 'x' is of type string"),
    ("@relation r\n@attribute x date 'yyyy'\n@attribute l {0,1}\n@data\n", r"line 2: .*of type date"),
    ("@relation r\n@attribute x {red,blue}\n@attribute l {0,1}\n@data\n",
     r"line 2: feature attribute 'x' is nominal with non-numeric values"),
    ("@relation r\n@attribute x numeric\n@attribute l {0,2}\n@data\n",
     r"line 3: label attribute 'l' has values '0,2'; labels must be 0 or 1"),
    ("@relation r\n@attribute x numeric\nhello\n@data\n", r"line 3: expected @relation, @attribute or @data"),
    ("@relation r\n@data\n", r"line 2: @data comes before any @attribute"),
    ("@relation r\n@attribute x numeric\n", r"has no @data line"),
    ("@relation r\n@attribute x numeric\n@attribute l {0,1}\n@data\n% nothing\n",
     r"line 4: the @data section has no rows"),
    ("@relation r\n@attribute x numeric\n@attribute l {1,0}\n@data\n{0 1}\n",
     r"line 5: attribute 'l' \(line 3\) is nominal with first value '1'"),
    (b"@relation r\n@attribute x\xff numeric\n", r"line 2: not valid UTF-8"),
])
def test_malformed_arff_header(tmp_path, header, message):
    path = _write(tmp_path, "bad.arff", header)
    with pytest.raises(ValueError, match=r"bad\.arff" + (", " if message.startswith("line") else " ") + message):
        load_arff(path, 1)


def test_arff_label_choices(tmp_path):
    path = _write(tmp_path, "ok.arff", HEADER)
    with pytest.raises(ValueError, match="n_labels must be between 1 and 2"):
        load_arff(path, 3)
    with pytest.raises(ValueError, match="n_labels must be an integer >= 1"):
        load_arff(path, 0)
    with pytest.raises(ValueError, match=r"line 6: the label 'y y' is '2'"):
        load_arff(path, 2)  # 'y y' is numeric, but a label must be 0/1
    with pytest.raises(FileNotFoundError, match="ARFF file not found"):
        load_arff(tmp_path / "missing.arff", 1)
    gz = _write(tmp_path, "ok.arff.gz", gzip.compress(HEADER.encode()))
    assert load_arff(gz, 1).X.tolist() == [[1.0, 2.0]]


# ------------------------------------------------------------------ fuzzing
TOKENS = ["1", "0", "-1", "2.5", "1e400", "nan", "inf", "qid:", "qid:1", "qid:x", "3:1", "1:0.5", "0:1", ":",
          "1:", ":1", "2:1", "2:2", "10000000000:1", "2147483647:1", "#", "docid", "=", " ", "\t", "{", "}",
          ",", "?", "'", '"', "@data", "@attribute", "a", "\x00", "\xff", "%", "\r"]
line_strategy = st.lists(st.sampled_from(TOKENS), max_size=8).map(lambda t: " ".join(t).encode("utf-8"))
garbage = st.one_of(line_strategy, st.text(max_size=30).map(lambda t: t.encode("utf-8", "surrogatepass")),
                    st.binary(max_size=30))
files = st.lists(garbage, min_size=1, max_size=8).map(b"\n".join)
# the number of examples comes from the active hypothesis profile (100 by default)
FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _fuzz_file(body: bytes, suffix: str) -> Path:
    return _write(Path(tempfile.mkdtemp(prefix="predtron-fuzz-")), "f" + suffix, body)


def _only_value_errors(load, path: Path) -> None:
    try:
        load(path)
    except ValueError as exc:
        assert str(path) in str(exc) or "n_features" in str(exc)
    finally:
        for child in path.parent.iterdir():
            child.unlink()
        path.parent.rmdir()


@FUZZ
@given(files, st.booleans())
def test_fuzz_letor_raises_only_value_error(body, sparse):
    _only_value_errors(lambda p: load_letor(p, sparse=sparse), _fuzz_file(GOOD.encode() + body, ".txt"))


@FUZZ
@given(files)
def test_fuzz_svmlight_raises_only_value_error(body):
    _only_value_errors(lambda p: load_svmlight(p, max_features=None), _fuzz_file(body, ".txt"))


@FUZZ
@given(files, st.booleans())
def test_fuzz_arff_rows_raise_only_value_error(body, header_too):
    text = (body if header_too else HEADER.encode()) + b"\n" + body
    _only_value_errors(lambda p: load_arff(p, 1), _fuzz_file(text, ".arff"))


@FUZZ
@given(st.lists(st.one_of(st.integers(-3, 5).map(str), st.sampled_from(["2.0", "2.5", "nan", "x", "", "1e300"])),
                max_size=6).map("\n".join))
def test_fuzz_group_files_raise_only_value_error(body):
    folder = Path(tempfile.mkdtemp(prefix="predtron-fuzz-"))
    data = _write(folder, "t.txt", PLAIN)
    sizes = _write(folder, "t.txt.query", body)
    try:
        assert load_letor(data).group.sum() == 3
    except ValueError as exc:
        assert re.search(r"t\.txt(\.query)?", str(exc))
    finally:
        for child in folder.iterdir():
            child.unlink()
        folder.rmdir()
    assert not sizes.exists()


def test_arff_header_spellings(tmp_path):
    text = "% comment\n@RELATION r\n@ATTRIBUTE\tx\tNUMERIC\n@Attribute lab{0,1}\n@attribute 'l 2' {'0', '1'}\n" \
           "@DATA\n1.5,1,'1'\n"
    data = load_arff(_write(tmp_path, "caps.arff", text), 2)
    assert data.feature_names == ["x"] and data.label_names == ["lab", "l 2"]
    assert data.X.tolist() == [[1.5]] and data.Y.tolist() == [[1, 1]]
    with pytest.raises(ValueError, match=r"line 6: expected @data alone on its line"):
        load_arff(_write(tmp_path, "extra.arff", text.replace("@DATA", "@DATA 1,2")), 2)
    with pytest.raises(ValueError, match=r"line 2: expected @relation, @attribute or @data"):
        load_arff(_write(tmp_path, "db.arff", "@relation r\n@database\n"), 1)


# ------------------------------------------------------------------ a stray large index, read dense
def _stray_index_file(tmp_path, rows=200, stray_line=137, index=900_000):
    rng = np.random.default_rng(0)
    lines = [f"{i % 2} " + " ".join(f"{j}:{v:.3f}" for j, v in
                                    zip(range(1, 21), rng.random(20), strict=True)) for i in range(rows)]
    lines[stray_line - 1] += f" {index}:1"
    path = tmp_path / "stray.svm"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_stray_large_index_is_refused_dense_with_its_line_and_the_ways_on(tmp_path):
    from predtron.data.stream import iter_svmlight

    path = _stray_index_file(tmp_path)
    pattern = (r"stray.svm, line 137: feature index 900000 makes a dense matrix of 200 rows x 900000 features "
               r"\(1.3 GiB\) of which 4,001 values are given; read it as a sparse matrix \(sparse=True, --sparse "
               r"on the command line\), or give the number of features \(n_features, --n-features\)")
    with pytest.raises(ValueError, match=pattern):
        load_svmlight(path)
    with pytest.raises(ValueError, match="line 137: feature index 900000 makes a dense matrix"):
        list(iter_svmlight(path, sparse=False))
    with pytest.raises(ValueError, match="line 137: feature index 900000 makes a dense matrix"):
        load_letor(path, group=[100, 100])
    # the two ways on: sparse, or an explicit width (which names the stray index)
    assert load_svmlight(path, sparse=True).X.shape == (200, 900000)
    with pytest.raises(ValueError, match=r"line 137: feature index 900000 is beyond n_features = 20"):
        load_svmlight(path, n_features=20)
    # a dense file that is really wide and full is not refused
    wide = tmp_path / "wide.svm"
    wide.write_text("\n".join("1 " + " ".join(f"{j}:1" for j in range(1, 4001)) for _ in range(5)) + "\n")
    assert load_svmlight(wide).X.shape == (5, 4000)


@pytest.mark.parametrize("block", [1, 7, 32, 1 << 22])
@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_docids_are_read_across_blocks_of_any_size(tmp_path, monkeypatch, block, ending):
    """The document ids come from a pass over the file's blocks that only counts the lines of a block
    without the word ``docid``: each example gets the id of its own line, whatever the blocks' cuts."""
    from predtron.data import svmlight as svmlight_module

    monkeypatch.setattr(svmlight_module, "BLOCK_BYTES", block)
    lines = ["# a comment line: docid = NOT-AN-EXAMPLE", "", "2 qid:1 1:0.5 #docid = A-1 inc = 1",
             "0 qid:1 1:0.25", "   ", "1 qid:2 1:1 # docid=B-2", "# docid = ALSO-NOT", "0 qid:2 1:2 #no id here",
             "1 qid:3 1:3 #docid = C-3"]
    path = tmp_path / "d.txt"
    path.write_bytes(ending.join(lines).encode())  # no newline after the last line
    data = load_svmlight(path)
    assert data.lines.tolist() == [3, 4, 6, 8, 9]
    assert data.docids.tolist() == ["A-1", None, "B-2", None, "C-3"]
    path.write_bytes(ending.join(line.partition("#")[0] for line in lines).encode())
    assert load_svmlight(path).docids is None


@pytest.mark.parametrize(("name", "names"), [
    ("emotions-train.arff.gz", ["emotions-train.xml", "emotions.xml"]),
    ("bibtex.arff", ["bibtex.xml"]),
    ("yeast_test.ARFF.bz2", ["yeast_test.xml", "yeast.xml"]),
    ("data.txt", ["data.xml"]),
])
def test_the_mulan_xml_names_looked_for_are_the_ones_messages_give(tmp_path, name, names):
    from predtron.data.mulan import find_mulan_xml, mulan_xml_names

    assert mulan_xml_names(tmp_path / name) == names
    assert find_mulan_xml(tmp_path / name) is None
    (tmp_path / names[-1]).write_text("<labels/>")
    assert find_mulan_xml(tmp_path / name) == tmp_path / names[-1]
    (tmp_path / names[0]).write_text("<labels/>")
    assert find_mulan_xml(tmp_path / name) == tmp_path / names[0]  # the first name wins


def test_a_huge_grade_is_shown_short(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("1e308 qid:1 1:1\n0 qid:1 1:0\n")
    with pytest.raises(ValueError, match=r"line 1: the relevance grade 1e\+308 must be at most \d+ \(the gain") as info:
        load_letor(path)
    assert len(str(info.value)) < 200


def test_the_first_data_row_of_an_arff_file_tells_its_layout(tmp_path):
    from predtron.data.mulan import arff_rows_are_sparse

    header = "@relation r\n@attribute a numeric\n@attribute b {0,1}\n@DATA\n% a comment\n\n"
    cases = {"sparse.arff": header + "{0 1.5, 1 1}\n", "dense.arff": header + "1.5,1\n", "empty.arff": header,
             "nodata.arff": "@relation r\n@attribute a numeric\n", "binary.arff": "\x00\xff{"}
    for name, text in cases.items():
        _write(tmp_path, name, text.encode("latin-1"))
    _write(tmp_path, "sparse.arff.gz", gzip.compress(cases["sparse.arff"].encode()))
    got = {name: arff_rows_are_sparse(tmp_path / name) for name in [*cases, "sparse.arff.gz", "missing.arff"]}
    assert got == {"sparse.arff": True, "dense.arff": False, "empty.arff": False, "nodata.arff": False,
                   "binary.arff": False, "sparse.arff.gz": True, "missing.arff": False}
    assert arff_rows_are_sparse(shipped_file(BIBTEX_FILES["train"])) is True
    assert arff_rows_are_sparse(str(shipped_file(EMOTIONS_FILES["train"]))) is False
