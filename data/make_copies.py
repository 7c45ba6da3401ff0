"""Write the compact copies shipped in predtron/data/files/ from the original files (see README.md).

Usage: python data/make_copies.py SOURCE_DIR

SOURCE_DIR holds ``letor-mq2008-fold1/{vali,test}.txt``,
``mulan-emotions/emotions-{train,test}.arff`` and ``mulan-bibtex/bibtex-{train,test}.arff``
as distributed.  LETOR lines are rewritten without their zero features, with each value in the
shortest form that reads back as the same float64, and with the comment cut to its docid; the
ARFF files are copied unchanged.  Everything is gzip-compressed with a fixed header (no name, no
time stamp), so the output is byte-for-byte reproducible.
"""

from __future__ import annotations

import gzip
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "predtron" / "data" / "files"


def _number(text: str) -> str:
    value = float(text)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def compact_letor_line(line: str) -> str:
    body, _, comment = line.partition("#")
    label, qid, *features = body.split()
    kept = []
    for token in features:
        index, _, value = token.partition(":")
        if float(value) != 0.0:
            kept.append(f"{index}:{_number(value)}")
    docid = re.search(r"docid\s*=\s*(\S+)", comment)
    tail = f" #docid = {docid.group(1)}" if docid else ""
    return " ".join([_number(label), qid, *kept]) + tail + "\n"


def write_gzip(path: Path, data: bytes) -> None:
    with path.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                                              compresslevel=9) as out:
        out.write(data)


def main(source: Path) -> None:
    letor = HERE / "letor-mq2008-fold1"
    letor.mkdir(exist_ok=True)
    for name in ("vali.txt", "test.txt"):
        lines = (source / "letor-mq2008-fold1" / name).read_text(encoding="utf-8").splitlines()
        text = "".join(compact_letor_line(line) for line in lines if line.partition("#")[0].strip())
        write_gzip(letor / f"{name}.gz", text.encode("utf-8"))
    emotions = HERE / "mulan-emotions"
    emotions.mkdir(exist_ok=True)
    for name in ("emotions-train.arff", "emotions-test.arff"):
        write_gzip(emotions / f"{name}.gz", (source / "mulan-emotions" / name).read_bytes())
    bibtex = HERE / "mulan-bibtex"
    bibtex.mkdir(exist_ok=True)
    for name in ("bibtex-train.arff", "bibtex-test.arff"):
        write_gzip(bibtex / f"{name}.gz", (source / "mulan-bibtex" / name).read_bytes())


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[2])
    main(Path(sys.argv[1]))
