"""Data: seeded generators of separable data, loaders of the field's file formats, shipped real data.

Loaders (every malformed line raises ``ValueError`` naming the file and the line):

* :func:`load_svmlight` -- svmlight / LibSVM files, dense or CSR (:mod:`predtron.data.svmlight`);
* :func:`load_letor` -- learning-to-rank files, with ``qid:`` or with LightGBM group sizes,
  in the flat layout; ``.queries()`` gives per-query lists (:mod:`predtron.data.letor`);
* :func:`load_arff` -- multilabel ARFF, dense and sparse rows, labels last or named by a Mulan
  XML file (:mod:`predtron.data.mulan`);
* :func:`iter_svmlight`, :func:`iter_letor`, :func:`iter_arff` -- the same files read in chunks
  of whole examples (whole queries), for files larger than memory (:mod:`predtron.data.stream`);
* :func:`scan_labels` -- the labels, rows and width of an svmlight / LETOR file without a parse;
* :func:`load_mq2008`, :func:`load_emotions`, :func:`load_bibtex` -- the copies shipped as
  package data in ``predtron/data/files/`` (:mod:`predtron.data.shipped`).
"""

from predtron.data.generators import SeparableData, make_noisy, make_separable
from predtron.data.layout import check_group_sizes, flatten_queries, split_queries
from predtron.data.letor import LetorData, load_letor, read_group_file
from predtron.data.mulan import MultilabelData, find_mulan_xml, iter_arff, load_arff, read_mulan_xml
from predtron.data.ranking import Figure1Data, make_figure1_ranking, make_separable_ranking
from predtron.data.sequences import SequenceData, make_sequences
from predtron.data.shipped import get_data_home, load_bibtex, load_emotions, load_mq2008
from predtron.data.stream import LabelScan, iter_letor, iter_svmlight, scan_labels
from predtron.data.svmlight import SvmlightData, load_svmlight

__all__ = [
    "Figure1Data",
    "LabelScan",
    "LetorData",
    "MultilabelData",
    "SeparableData",
    "SequenceData",
    "SvmlightData",
    "check_group_sizes",
    "find_mulan_xml",
    "flatten_queries",
    "get_data_home",
    "iter_arff",
    "iter_letor",
    "iter_svmlight",
    "load_arff",
    "load_bibtex",
    "load_emotions",
    "load_letor",
    "load_mq2008",
    "load_svmlight",
    "make_figure1_ranking",
    "make_noisy",
    "make_separable",
    "make_separable_ranking",
    "make_sequences",
    "read_group_file",
    "read_mulan_xml",
    "scan_labels",
    "split_queries",
]
