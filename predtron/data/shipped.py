"""The real data sets shipped with the package (``predtron/data/files/``; see its README).

* LETOR 4.0 MQ2008, Fold 1: ``vali.txt`` (157 queries, 2707 documents) serves as the training
  split and ``test.txt`` (156 queries, 2874 documents) as the test split; 46 features,
  relevance 0-2.  :func:`load_mq2008`.
* Mulan emotions: 391 training and 202 test rows, 72 numeric features, 6 labels.
  :func:`load_emotions`.
* Mulan bibtex: 4880 training and 2515 test rows, 1836 binary word features, 159 labels
  (tags).  :func:`load_bibtex`.

The files are package data (as scikit-learn ships its small data sets): a git clone, an
editable install and an installed wheel all find them.  Where they are looked for, in this
order: the ``data_home`` argument, the environment variable ``PREDTRON_DATA``, and the
package's own ``files/`` folder beside this module.  A missing file raises
``FileNotFoundError`` saying where it was looked for.
"""

from __future__ import annotations

import os
from pathlib import Path

from predtron._validation import check_choice
from predtron.data.letor import LetorData, load_letor
from predtron.data.mulan import MultilabelData, load_arff
from predtron.data.svmlight import check_flag

#: Environment variable naming a folder that holds the shipped files (overrides the repository's).
DATA_ENV = "PREDTRON_DATA"

MQ2008_FILES = {"train": "letor-mq2008-fold1/vali.txt.gz", "test": "letor-mq2008-fold1/test.txt.gz"}
MQ2008_FEATURES = 46
EMOTIONS_FILES = {"train": "mulan-emotions/emotions-train.arff.gz", "test": "mulan-emotions/emotions-test.arff.gz"}
EMOTIONS_LABELS = 6
BIBTEX_FILES = {"train": "mulan-bibtex/bibtex-train.arff.gz", "test": "mulan-bibtex/bibtex-test.arff.gz"}
BIBTEX_LABELS = 159

#: The package's own copy of the files.
PACKAGE_DATA = Path(__file__).resolve().parent / "files"


def get_data_home(data_home=None) -> Path:
    """The folder holding the shipped files: ``data_home``, else ``$PREDTRON_DATA``, else the package's
    ``predtron/data/files``."""
    if data_home is not None:
        if not isinstance(data_home, (str, os.PathLike)):
            raise TypeError(f"data_home must be a str or path-like; got {type(data_home).__name__}")
        return Path(data_home)
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV])
    return PACKAGE_DATA


def shipped_file(relative: str, data_home=None) -> Path:
    """The path of one shipped file, or a ``FileNotFoundError`` saying where it was expected."""
    if not isinstance(relative, str):
        raise TypeError(f"relative must be a str naming a file inside the data folder; got {type(relative).__name__}")
    if not relative.strip():
        raise ValueError("relative must name a file inside the data folder (for example "
                         "'mulan-emotions/emotions-train.arff.gz'); got an empty string")
    home = get_data_home(data_home)
    path = home / relative
    if not path.is_file():
        origin = ("the data_home argument" if data_home is not None else
                  f"${DATA_ENV}" if os.environ.get(DATA_ENV) else "the package's own data folder")
        raise FileNotFoundError(
            f"shipped data file not found: {path} (looked in {home}, from {origin}). The files are package data "
            f"in predtron/data/files/; unset {DATA_ENV} (or pass data_home=) to use them, or point it at a folder "
            f"holding {relative}"
        )
    return path


def load_mq2008(split: str = "train", *, sparse: bool = False, data_home=None) -> LetorData:
    """LETOR 4.0 MQ2008 Fold 1 in the flat layout (``.queries()`` for per-query lists).

    Parameters
    ----------
    split : {"train", "test"}
        ``"train"`` is the fold's ``vali.txt`` (157 queries), ``"test"`` its ``test.txt``
        (156 queries); their query ids are disjoint.
    sparse : bool, default False
        Return ``X`` as a CSR matrix.
    data_home : str or path-like, optional
        Folder holding ``letor-mq2008-fold1/`` (default: see :func:`get_data_home`).
    """
    check_choice(split, "split", MQ2008_FILES)
    sparse = check_flag(sparse, "sparse")
    return load_letor(shipped_file(MQ2008_FILES[split], data_home), n_features=MQ2008_FEATURES, sparse=sparse)


def load_emotions(split: str = "train", *, sparse: bool = False, data_home=None) -> MultilabelData:
    """Mulan emotions (music clips, 72 features, 6 emotion labels): the published train/test split.

    Parameters
    ----------
    split : {"train", "test"}
        391 training or 202 test rows.
    sparse : bool, default False
        Return ``X`` as a CSR matrix.
    data_home : str or path-like, optional
        Folder holding ``mulan-emotions/`` (default: see :func:`get_data_home`).
    """
    check_choice(split, "split", EMOTIONS_FILES)
    sparse = check_flag(sparse, "sparse")
    return load_arff(shipped_file(EMOTIONS_FILES[split], data_home), EMOTIONS_LABELS, sparse=sparse)


def load_bibtex(split: str = "train", *, sparse: bool = True, data_home=None) -> MultilabelData:
    """Mulan bibtex (BibSonomy publications: 1836 binary word features, 159 tags): the published split.

    Sparse text with many rare labels: about 2.4 tags per row, and predicting no tag at all
    already has a Hamming loss of 0.015, so judge a model by its F1 scores too.

    Parameters
    ----------
    split : {"train", "test"}
        4880 training or 2515 test rows.
    sparse : bool, default True
        Return ``X`` as a CSR matrix (about 4% of its entries are non-zero).
    data_home : str or path-like, optional
        Folder holding ``mulan-bibtex/`` (default: see :func:`get_data_home`).
    """
    check_choice(split, "split", BIBTEX_FILES)
    sparse = check_flag(sparse, "sparse")
    return load_arff(shipped_file(BIBTEX_FILES[split], data_home), BIBTEX_LABELS, sparse=sparse)
