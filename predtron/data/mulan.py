"""Reader of multilabel ARFF files (dense and sparse rows), the format of the Mulan repository.

An ARFF file is a header of ``@attribute <name> <type>`` lines and an ``@data`` section of
rows, either dense (``0.12,3.4,...,0,1``: one value per attribute) or sparse
(``{3 0.5,17 1,102 1}``: ``index value`` pairs, 0-based, increasing; omitted values are 0).  A
Mulan data set stores its labels as 0/1 attributes, by convention the last ``n_labels`` ones,
and names them in an XML file (``<label name="..."/>`` elements).

What is read, and the rules:

* attribute names may be quoted with ``'`` or ``"`` (spaces inside allowed); keywords are
  case-insensitive; lines starting with ``%`` are comments;
* feature attributes must be ``numeric`` / ``real`` / ``integer``, or nominal with numeric
  values such as ``{0,1}`` (read as those numbers); string, date and relational attributes and
  nominal attributes with non-numeric values are refused with the attribute's line;
* label attributes must be ``numeric`` or nominal, with every value 0 or 1;
* ``?`` (a missing value) is refused with file and line by default; ``missing=v`` fills
  missing *feature* values with the number ``v``; a missing label is always refused;
* NaN and infinity are refused; in a sparse row an index repeated or out of order is refused;
* every fault raises ``ValueError`` naming the file and the line.

Why not a library: :mod:`scipy.io.arff` reads dense ARFF only; liac-arff (last release 2.5.0,
2020; scikit-learn vendors its 2.4 code, which is what we read) handles sparse rows but keeps
the last of two equal indices silently, accepts NaN, and gives no line number for a faulty row
when it streams.  The subset used by multilabel data
(numeric and nominal attributes) is small enough to read here with every rule above.
"""

from __future__ import annotations

import math
import numbers
import os
import xml.etree.ElementTree as ET
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from predtron._validation import MAX_ABS_INPUT, check_int, check_real
from predtron.data._svmlight_rules import _lines as _numbered
from predtron.data.opening import (
    DECOMPRESSION_ERRORS,
    check_dense_size,
    check_file,
    open_binary,
    show,
    where,
)
from predtron.data.svmlight import check_flag

_QUOTES = "'\""
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}


class MultilabelData(NamedTuple):
    """Features ``X`` (n, p; dense or CSR), 0/1 labels ``Y`` (n, m; int64), and the attribute names."""

    X: np.ndarray | sp.csr_matrix
    Y: np.ndarray
    feature_names: list[str]
    label_names: list[str]


class _Bad(Exception):
    """A fault in one line; the caller adds the file and the line number."""


class _Attribute(NamedTuple):
    name: str
    kind: str  # numeric, nominal, string, date or relational
    values: tuple[str, ...]  # the declared values of a nominal attribute
    line: int


# ---------------------------------------------------------------- tokens
def _split(text: str, sep: str = ",") -> list[str]:
    """Split ``text`` at ``sep`` outside quotes; each piece stripped (quotes kept)."""
    if "'" not in text and '"' not in text:
        return [piece.strip() for piece in text.split(sep)]
    pieces, start, quote, i = [], 0, None, 0
    while i < len(text):
        c = text[i]
        if quote is not None:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in _QUOTES:
            quote = c
        elif c == sep:
            pieces.append(text[start:i].strip())
            start = i + 1
        i += 1
    if quote is not None:
        raise _Bad(f"a {quote} quote is not closed in {show(text)}")
    pieces.append(text[start:].strip())
    return pieces


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            i += 1
            out.append(_ESCAPES.get(text[i], text[i]))
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _closing(text: str) -> int:
    """Index of the quote closing the one at ``text[0]`` (backslash escapes skipped), or -1."""
    quote, i = text[0], 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            return i
        i += 1
    return -1


def _unquote(piece: str) -> tuple[str, bool]:
    """The value of one token and whether it was quoted."""
    if piece[:1] in _QUOTES and piece:
        end = _closing(piece)
        if end != len(piece) - 1:
            raise _Bad(f"the quoted value {show(piece)} must be one quoted string")
        return _unescape(piece[1:-1]), True
    return piece, False


def _name_and_rest(text: str) -> tuple[str, str]:
    """Split ``<name> <rest>`` where the name may be quoted."""
    if text[:1] in _QUOTES:
        end = _closing(text)
        if end < 0:
            raise _Bad(f"the quoted name in {show(text)} is not closed")
        return _unescape(text[1:end]), text[end + 1:].strip()
    end = next((i for i, c in enumerate(text) if c.isspace() or c == "{"), len(text))
    return text[:end], text[end:].strip()


# ---------------------------------------------------------------- header
def _attribute(text: str, line: int) -> _Attribute:
    rest = text[len("@attribute"):]
    if not rest[:1].isspace():
        raise _Bad(f"expected '@attribute <name> <type>'; got {show(text)}")
    name, kind = _name_and_rest(rest.strip())
    if not name:
        raise _Bad("an attribute needs a name")
    if not kind:
        raise _Bad(f"attribute {name!r} has no type")
    lower = kind.lower()
    if lower in ("numeric", "real", "integer"):
        return _Attribute(name, "numeric", (), line)
    if lower == "string" or lower.startswith("date") or lower == "relational":
        return _Attribute(name, lower.split()[0], (), line)
    if kind.startswith("{"):
        if not kind.endswith("}"):
            raise _Bad(f"the values of attribute {name!r} must end with '}}'; got {show(kind)}")
        values = tuple(_unquote(piece)[0] for piece in _split(kind[1:-1]))
        if any(not v for v in values):
            raise _Bad(f"attribute {name!r} declares an empty nominal value: {show(kind)}")
        return _Attribute(name, "nominal", values, line)
    raise _Bad(f"attribute {name!r} has the unknown type {show(kind)}")


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _read_header(lines, path) -> tuple[list[_Attribute], int]:
    """The attributes, and the number of the ``@data`` line."""
    attributes: list[_Attribute] = []
    seen: dict[str, int] = {}
    for number, text in lines:
        keyword = text.split(None, 1)[0].lower()
        if keyword == "@relation":
            continue
        if keyword.startswith("@attribute"):
            try:
                attribute = _attribute(text, number)
            except _Bad as exc:
                raise ValueError(f"{where(path, number)}: {exc}") from None
            if attribute.name in seen:
                raise ValueError(f"{where(path, number)}: attribute {attribute.name!r} is declared twice "
                                 f"(first at line {seen[attribute.name]})")
            seen[attribute.name] = number
            attributes.append(attribute)
            continue
        if keyword == "@data":
            if not attributes:
                raise ValueError(f"{where(path, number)}: @data comes before any @attribute")
            if text.split(None, 1)[1:]:
                raise ValueError(f"{where(path, number)}: expected @data alone on its line; got {show(text)}")
            return attributes, number
        raise ValueError(f"{where(path, number)}: expected @relation, @attribute or @data in the header; "
                         f"got {show(text)}")
    raise ValueError(f"{path} has no @data line (is it an ARFF file?)")


# ---------------------------------------------------------------- Mulan XML
_SPLIT_SUFFIXES = ("-train", "-test", "_train", "_test", ".train", ".test")


def find_mulan_xml(path) -> Path | None:
    """The Mulan label file beside an ARFF file, if there is one.

    Mulan ships ``<name>.xml`` beside ``<name>.arff`` or beside its splits ``<name>-train.arff`` and
    ``<name>-test.arff``; for ``path`` = ``<folder>/<stem>.arff`` (optionally ``.gz`` / ``.bz2``)
    this returns ``<folder>/<stem>.xml`` if it exists, else ``<folder>/<name>.xml`` where ``<name>``
    is ``<stem>`` without a trailing ``-train``/``-test`` (or ``_``/``.`` forms), else ``None``.
    """
    if isinstance(path, (bytes, bytearray)):
        path = os.fsdecode(path)
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or path-like naming an ARFF file; got {type(path).__name__}")
    path = Path(path)
    for candidate in mulan_xml_names(path):
        xml = path.with_name(candidate)
        if xml.is_file():
            return xml
    return None


def mulan_xml_names(path) -> list[str]:
    """The names :func:`find_mulan_xml` looks for beside ``path``, in its order (``emotions-train.xml``,
    then ``emotions.xml`` for ``emotions-train.arff.gz``)."""
    name = Path(path).name
    for ending in (".gz", ".bz2"):
        if name.lower().endswith(ending):
            name = name[:-len(ending)]
    stem = name[:-len(".arff")] if name.lower().endswith(".arff") else Path(name).stem
    stems = [stem] + [stem[:-len(s)] for s in _SPLIT_SUFFIXES if stem.lower().endswith(s) and len(stem) > len(s)]
    return [candidate + ".xml" for candidate in stems]


def read_mulan_xml(path) -> list[str]:
    """The label names of a Mulan XML file (``<label name="...">`` elements, nested ones included)."""
    path = check_file(path, "Mulan label XML")
    try:
        with open_binary(path) as handle:
            tree = ET.parse(handle)
    except ET.ParseError as exc:
        raise ValueError(f"{where(path, exc.position[0])}: not well-formed XML ({exc})") from None
    except DECOMPRESSION_ERRORS as exc:
        if isinstance(exc, FileNotFoundError | PermissionError):
            raise
        raise ValueError(f"{path} could not be read: {type(exc).__name__}: {exc}") from None
    names: list[str] = []
    for element in tree.iter():
        if isinstance(element.tag, str) and element.tag.rsplit("}", 1)[-1] == "label":
            name = element.get("name")
            if not name:
                raise ValueError(f"{path}: a <label> element has no name attribute")
            if name in names:
                raise ValueError(f"{path}: the label {name!r} is named twice")
            names.append(name)
    if not names:
        raise ValueError(f"{path} names no labels (no <label name=...> elements)")
    return names


# ---------------------------------------------------------------- data
class _Column(NamedTuple):
    attribute: _Attribute
    label: bool
    target: int  # column of X or of Y
    allowed: dict[str, float] | None  # nominal value -> number


def _columns(attributes: list[_Attribute], is_label: list[bool], path) -> list[_Column]:
    columns, n_x, n_y = [], 0, 0
    for attribute, label in zip(attributes, is_label, strict=True):
        at = where(path, attribute.line)
        allowed = None
        if attribute.kind == "nominal":
            allowed = {v: _number(v) for v in attribute.values}
            if any(number is None for number in allowed.values()):
                role = "label" if label else "feature"
                raise ValueError(f"{at}: {role} attribute {attribute.name!r} is nominal with non-numeric "
                                 f"values {show(','.join(attribute.values))}; only numbers are read")
        elif attribute.kind != "numeric":
            role = "label" if label else "feature"
            raise ValueError(f"{at}: {role} attribute {attribute.name!r} is of type {attribute.kind}; only "
                             "numeric attributes and nominal ones with numeric values are read")
        if label and allowed is not None and not set(allowed.values()) <= {0.0, 1.0}:
            raise ValueError(f"{at}: label attribute {attribute.name!r} has values "
                             f"{show(','.join(attribute.values))}; labels must be 0 or 1")
        columns.append(_Column(attribute, label, n_y if label else n_x, allowed))
        if label:
            n_y += 1
        else:
            n_x += 1
    return columns


def _value(token: str, column: _Column, missing) -> float:
    value, quoted = _unquote(token)
    name = column.attribute.name
    if value == "?" and not quoted:
        if column.label:
            raise _Bad(f"the label {name!r} is missing ('?'); labels must be 0 or 1")
        if missing == "error":
            raise _Bad(f"the value of {name!r} is missing ('?'); pass missing=<number> to fill missing "
                       "feature values")
        return missing
    if column.allowed is not None:
        if value not in column.allowed:
            raise _Bad(f"{show(value)} is not one of the values {show(','.join(column.attribute.values))} "
                       f"of attribute {name!r}")
        return column.allowed[value]
    try:
        number = float(value)
    except ValueError:
        raise _Bad(f"the value {show(value)} of {name!r} is not a number") from None
    if not math.isfinite(number):
        raise _Bad(f"the value {show(value)} of {name!r} is not finite; values must be finite numbers")
    if column.label and number not in (0.0, 1.0):
        raise _Bad(f"the label {name!r} is {show(value)}; labels must be 0 or 1")
    return number


def _lines(handle, path):
    """``(number, text)`` for every line that is neither blank nor a ``%`` comment."""
    for number, raw in _numbered(handle, path):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{where(path, number)}: not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
        text = text.strip().lstrip("\ufeff").strip() if number == 1 else text.strip()
        if "\x00" in text:
            raise ValueError(f"{where(path, number)}: the line contains a NUL character")
        if text and not text.startswith("%"):
            yield number, text


def _check_arff_options(path, n_labels, xml, sparse, missing):
    path = check_file(path, "ARFF")
    sparse = check_flag(sparse, "sparse")
    if not (isinstance(missing, str) and missing == "error"):
        if isinstance(missing, str) or isinstance(missing, bool) or not isinstance(missing, numbers.Real):
            raise ValueError(f"missing must be 'error' or a finite number; got {missing!r}"[:200])
        missing = check_real(missing, "missing")
        if abs(missing) > MAX_ABS_INPUT:  # it would be refused later as an input of the fit, named X
            raise ValueError(f"missing must be a finite number of magnitude at most {MAX_ABS_INPUT:g} (larger inputs "
                             f"overflow the scores); got {missing!r}")
    if n_labels is None and xml is None:
        xml = find_mulan_xml(path)
        if xml is None:
            raise ValueError("give n_labels (how many trailing attributes are labels) or xml (a Mulan label file); "
                             f"no Mulan XML file was found beside {path} (looked for "
                             f"{' and '.join(mulan_xml_names(path))})")
    if n_labels is not None:
        n_labels = check_int(n_labels, "n_labels", minimum=1)
    if xml is not None and not isinstance(xml, (str, bytes, bytearray, os.PathLike)):
        raise TypeError(f"xml must be a str or path-like naming a Mulan label XML file; got {type(xml).__name__}")
    names_from_xml = read_mulan_xml(xml) if xml is not None else None
    return path, sparse, missing, n_labels, names_from_xml, xml


def load_arff(path, n_labels: int | None = None, *, xml=None, sparse: bool = False,
              missing="error") -> MultilabelData:
    """Read a multilabel ARFF file (dense or sparse rows, plain, gzip or bz2).

    Parameters
    ----------
    path : str or path-like
        The ``.arff`` file.
    n_labels : int, optional
        How many trailing attributes are the labels (6 for emotions, 14 for yeast).
    xml : str or path-like, optional
        A Mulan XML file naming the label attributes (which may then stand anywhere; ``Y``
        keeps the ARFF file's attribute order).  Give ``n_labels``, ``xml`` or both (they
        must then agree).  When neither is given, the Mulan XML file beside ``path`` is used
        (:func:`find_mulan_xml`: ``emotions.xml`` for ``emotions-train.arff``).
    sparse : bool, default False
        Return ``X`` as a :class:`scipy.sparse.csr_matrix`.
    missing : "error" or float, default "error"
        What a ``?`` feature value becomes: an error naming file and line, or this number.

    Returns
    -------
    MultilabelData
        ``X`` (float), ``Y`` (0/1 int64), ``feature_names``, ``label_names``.

    Raises
    ------
    FileNotFoundError
        If ``path`` (or ``xml``) does not exist.
    ValueError
        For every malformed line, with the file and the line number (see the module
        docstring for the rules), and for label choices that do not fit the file.
    """
    path, sparse, missing, n_labels, names_from_xml, xml = _check_arff_options(path, n_labels, xml, sparse, missing)
    try:
        with open_binary(path) as handle:
            return _read(path, handle, n_labels, names_from_xml, xml, sparse, missing)
    except DECOMPRESSION_ERRORS as exc:
        if isinstance(exc, FileNotFoundError | PermissionError):
            raise
        raise ValueError(f"{path} could not be read: {type(exc).__name__}: {exc}") from None


def arff_rows_are_sparse(path) -> bool:
    """Whether the data rows of the ARFF file ``path`` are written sparse (``{index value, ...}``):
    its first data row decides (``False`` for a file without one, or one that cannot be read:
    the reader then reports what is wrong).  Only the header and that row are read."""
    path = Path(path)
    try:
        with open_binary(path) as handle:
            for _number, raw in _numbered(handle, path):
                text = raw.strip()
                if text.lower().startswith(b"@data"):
                    break
            for _number, raw in _numbered(handle, path):
                text = raw.strip()
                if text and not text.startswith(b"%"):
                    return text.startswith(b"{")
    except (OSError, ValueError, *DECOMPRESSION_ERRORS):
        pass
    return False


def iter_arff(path, n_labels: int | None = None, *, xml=None, chunk_rows: int = 65_536, sparse: bool = True,
              missing="error") -> Iterator[MultilabelData]:
    """Read a multilabel ARFF file in chunks of at most ``chunk_rows`` rows, in file order.

    The streaming counterpart of :func:`load_arff` (same parameters, same rules and messages;
    the rows of the chunks are the loader's rows, bit for bit), for files larger than memory:
    the file is read as the chunks are consumed.  ``sparse`` defaults to True here (CSR
    chunks).  Every chunk has all the feature and label columns.
    """
    path, sparse, missing, n_labels, names_from_xml, xml = _check_arff_options(path, n_labels, xml, sparse, missing)
    chunk_rows = check_int(chunk_rows, "chunk_rows", minimum=1)
    try:
        with open_binary(path) as handle:
            yield from _chunks(path, handle, n_labels, names_from_xml, xml, sparse, missing, chunk_rows)
    except DECOMPRESSION_ERRORS as exc:
        if isinstance(exc, FileNotFoundError | PermissionError):
            raise
        raise ValueError(f"{path} could not be read: {type(exc).__name__}: {exc}") from None


def _read(path: Path, handle, n_labels, names_from_xml, xml, sparse: bool, missing) -> MultilabelData:
    return next(_chunks(path, handle, n_labels, names_from_xml, xml, sparse, missing, None))


def _chunks(path: Path, handle, n_labels, names_from_xml, xml, sparse: bool, missing, chunk_rows: int | None):
    """The rows of an ARFF file as :class:`MultilabelData` chunks of at most ``chunk_rows`` rows
    (``None``: one chunk of every row)."""
    lines = _lines(handle, path)
    attributes, data_line = _read_header(lines, path)
    n_attributes = len(attributes)
    names = [a.name for a in attributes]
    if names_from_xml is not None:
        unknown = [name for name in names_from_xml if name not in names]
        if unknown:
            raise ValueError(f"{xml} names labels that {path} does not declare: {unknown[:5]}"
                             + (" ..." if len(unknown) > 5 else ""))
        wanted = set(names_from_xml)
        is_label = [name in wanted for name in names]
        if n_labels is not None and n_labels != len(names_from_xml):
            raise ValueError(f"n_labels = {n_labels} but {xml} names {len(names_from_xml)} labels")
    else:
        if n_labels >= n_attributes:
            raise ValueError(f"n_labels must be between 1 and {n_attributes - 1} for {path} (it has "
                             f"{n_attributes} attributes, and at least one must be a feature); got {n_labels}")
        is_label = [i >= n_attributes - n_labels for i in range(n_attributes)]
    if all(is_label):
        raise ValueError(f"every attribute of {path} is a label; at least one feature is needed")
    columns = _columns(attributes, is_label, path)
    n_x = sum(not c.label for c in columns)
    n_y = n_attributes - n_x
    # in a sparse row an omitted nominal value stands for the attribute's first declared value
    nonzero_default = [c.attribute for c in columns if c.allowed is not None
                       and c.allowed[c.attribute.values[0]] != 0.0]
    feature_names = [c.attribute.name for c in columns if not c.label]
    label_names = [c.attribute.name for c in columns if c.label]
    rows, cols, vals = array("q"), array("q"), array("d")
    labels = array("b")
    n_rows = total = 0
    for number, text in lines:
        if chunk_rows is not None and n_rows == chunk_rows:
            yield _chunk(path, rows, cols, vals, labels, n_rows, n_x, n_y, sparse, feature_names, label_names)
            rows, cols, vals = array("q"), array("q"), array("d")
            labels = array("b")
            n_rows = 0
        here = where(path, number)
        y_row = [0] * n_y
        try:
            if text.startswith("{"):
                if not text.endswith("}"):
                    raise _Bad("a sparse row must end with '}'")
                if nonzero_default:
                    first = nonzero_default[0]
                    raise _Bad(f"attribute {first.name!r} (line {first.line}) is nominal with first value "
                               f"{first.values[0]!r}; an omitted value in a sparse row stands for the first "
                               "value, which is read here only when it is 0: declare 0 first")
                inner = text[1:-1].strip()
                if "{" in inner or "}" in inner:
                    raise _Bad("instance weights ({...} after a row) are not supported")
                previous = -1
                for piece in (_split(inner) if inner else []):
                    parts = piece.split(None, 1)
                    if len(parts) != 2:
                        raise _Bad(f"expected '<index> <value>' in a sparse row; got {show(piece)}")
                    try:
                        j = int(parts[0])
                    except ValueError:
                        raise _Bad(f"the index {show(parts[0])} is not an integer") from None
                    if not 0 <= j < n_attributes:
                        raise _Bad(f"the index {j} is outside 0..{n_attributes - 1} (the attributes)")
                    if j == previous:
                        raise _Bad(f"the index {j} appears twice in the row")
                    if j < previous:
                        raise _Bad(f"the index {j} comes after {previous}; indices must increase along a row")
                    previous = j
                    column = columns[j]
                    value = _value(parts[1], column, missing)
                    if column.label:
                        y_row[column.target] = int(value)
                    elif value != 0.0:
                        rows.append(n_rows)
                        cols.append(column.target)
                        vals.append(value)
            else:
                tokens = _split(text)
                if len(tokens) != n_attributes:
                    raise _Bad(f"expected {n_attributes} values (one per attribute); got {len(tokens)}")
                for token, column in zip(tokens, columns, strict=True):
                    value = _value(token, column, missing)
                    if column.label:
                        y_row[column.target] = int(value)
                    elif value != 0.0:
                        rows.append(n_rows)
                        cols.append(column.target)
                        vals.append(value)
        except _Bad as exc:
            raise ValueError(f"{here}: {exc}") from None
        labels.extend(y_row)
        n_rows += 1
        total += 1
    if total == 0:
        raise ValueError(f"{where(path, data_line)}: the @data section has no rows")
    if n_rows:
        yield _chunk(path, rows, cols, vals, labels, n_rows, n_x, n_y, sparse, feature_names, label_names)


def _chunk(path, rows, cols, vals, labels, n_rows, n_x, n_y, sparse, feature_names, label_names) -> MultilabelData:
    X = sp.csr_matrix((np.frombuffer(vals, dtype=np.float64), (np.frombuffer(rows, dtype=np.int64),
                                                               np.frombuffer(cols, dtype=np.int64))),
                      shape=(n_rows, n_x)) if len(vals) else sp.csr_matrix((n_rows, n_x))
    if not sparse:
        check_dense_size(n_rows, n_x, path)
        X = X.toarray()
    Y = np.frombuffer(labels, dtype=np.int8).astype(np.int64).reshape(n_rows, n_y)
    return MultilabelData(X, Y, feature_names, label_names)
