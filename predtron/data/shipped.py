"""The real data sets shipped with the repository (``data/`` beside the package; see its README).

* LETOR 4.0 MQ2008, Fold 1: ``vali.txt`` (157 queries, 2707 documents) serves as the training
  split and ``test.txt`` (156 queries, 2874 documents) as the test split; 46 features,
  relevance 0-2.  :func:`load_mq2008`.
* Mulan emotions: 391 training and 202 test rows, 72 numeric features, 6 labels.
  :func:`load_emotions`.

Where the files are looked for, in this order: the ``data_home`` argument, the environment
variable ``PREDTRON_DATA``, and the ``data/`` folder of the repository the package was imported
from (``<repository>/predtron/data/shipped.py`` -> ``<repository>/data``).  A git clone (or an
editable install, ``pip install -e .``) finds them without help; a regular installed package
does not contain them, so point ``PREDTRON_DATA`` (or ``data_home``) at a copy of the
repository's ``data/`` folder.  A missing file raises ``FileNotFoundError`` saying this.
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


def get_data_home(data_home=None) -> Path:
    """The folder holding the shipped files: ``data_home``, else ``$PREDTRON_DATA``, else ``<repository>/data``."""
    if data_home is not None:
        if not isinstance(data_home, (str, os.PathLike)):
            raise TypeError(f"data_home must be a str or path-like; got {type(data_home).__name__}")
        return Path(data_home)
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV])
    return Path(__file__).resolve().parents[2] / "data"


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
                  f"${DATA_ENV}" if os.environ.get(DATA_ENV) else "the repository's data/ folder")
        raise FileNotFoundError(
            f"shipped data file not found: {path} (looked in {home}, from {origin}). The files are in the "
            "data/ folder of the predtron repository; an installed package does not include them. "
            f"Clone the repository, or set {DATA_ENV} (or pass data_home=) to a folder holding {relative}"
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
