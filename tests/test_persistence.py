"""Every learner and reduction round-trips through save/load without pickle, and load trusts nothing.

For every learner x every problem it supports (and PRank, MMP, the passive-aggressive
learners, the reductions and the scikit-learn estimators): after ``load``, predictions,
scores, the loss record and the result of continued ``partial_fit`` are identical.  Then
malformed files of every kind -- truncated, corrupt, not a zip, a wrong or tampered header,
unknown classes, invalid parameters, NaN, wrongly shaped or inconsistent arrays -- are
refused with a ``ValueError`` naming the file.
"""

from __future__ import annotations

import copy
import json
import re
import warnings
import zipfile

import numpy as np
import pytest
from fuzz_registry import LEARNERS, flat_ranking, problem_cases

from predtron import AllPairs, OneVsAll, Predtron, PredtronLD
from predtron.baselines import MMP, PRank
from predtron.learners import NotSeparatedWarning
from predtron.pa import CalibratedMultilabelPA, CalibratedPA, PairedPA
from predtron.persistence import FORMAT, _content_digest, _digest, load, save, saveable_classes
from predtron.problems import Binary, Multiclass
from predtron.sklearn import (
    PredtronClassifier,
    PredtronMultilabelClassifier,
    PredtronOrdinalClassifier,
    PredtronRanker,
)


def _supported(learner: str, problem: str) -> bool:
    return not (learner == "KernelPredtron" and problem in ("Chain", "JointMulticlass"))


def _halves(X, Y):
    h = len(X) // 2
    return (X[:h], Y[:h]), (X[h:], Y[h:])


def _same(a, b):
    if isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
    else:
        np.testing.assert_array_equal(a, b)


def _round_trip(tmp_path, model):
    path = save(model, tmp_path / "model")
    assert path.suffix == ".npz"
    with zipfile.ZipFile(path) as archive:  # no pickled object anywhere
        assert all(name.endswith(".npy") for name in archive.namelist())
    return load(path)


CASES = [(lname, pname) for lname in LEARNERS for pname in problem_cases() if _supported(lname, pname)]


@pytest.mark.parametrize(("learner", "problem"), CASES, ids=[f"{a}-{b}" for a, b in CASES])
def test_every_learner_and_problem_round_trips(tmp_path, learner, problem):
    prob, data = problem_cases()[problem]
    (X1, Y1), (X2, Y2) = _halves(data["X"], data["Y"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotSeparatedWarning)
        model = LEARNERS[learner](copy.deepcopy(prob)).fit(X1, Y1)
        again = _round_trip(tmp_path, model)
        assert type(again) is type(model) and repr(again) == repr(model)
        for X in (data["X"], X2):
            _same(again.predict(X), model.predict(X))
            _same(again.decision_function(X), model.decision_function(X))
        assert again.score(data["X"], data["Y"]) == model.score(data["X"], data["Y"])
        np.testing.assert_array_equal(again.loss_history_, model.loss_history_)
        assert again.n_updates_ == model.n_updates_
        for attr in ("converged_", "n_epochs_", "n_iter_", "n_support_", "n_removed_"):
            if hasattr(model, attr):
                assert getattr(again, attr) == getattr(model, attr)
        model.partial_fit(X2, Y2)
        again.partial_fit(X2, Y2)
        _same(again.decision_function(data["X"]), model.decision_function(data["X"]))
        np.testing.assert_array_equal(again.loss_history_, model.loss_history_)


@pytest.mark.parametrize("learner", ["Predtron", "PredtronLD", "PredtronLink", "KernelPredtron"])
def test_ranking_flat_layout_round_trips(tmp_path, learner):
    X, y, qid, group = flat_ranking()
    from predtron.problems import SubsetRanking

    model = LEARNERS[learner](SubsetRanking()).fit(X, y, qid=qid)
    again = _round_trip(tmp_path, model)
    _same(again.decision_function(X, group=group), model.decision_function(X, group=group))
    model.partial_fit(X, y, group=group)
    again.partial_fit(X, y, group=group)
    _same(again.decision_function(X, group=group), model.decision_function(X, group=group))


@pytest.mark.parametrize("options", [dict(average=True, fit_intercept=True, shuffle=True, random_state=3),
                                     dict(average=False, fit_intercept=True, record_losses=False)])
@pytest.mark.parametrize("cls", [Predtron, PredtronLD])
def test_options_round_trip(tmp_path, cls, options):
    prob, data = problem_cases()["Multiclass"]
    model = cls(prob, eta=0.3, **options).fit(data["X"], data["Y"], epochs=3)
    again = _round_trip(tmp_path, model)
    np.testing.assert_array_equal(again.coef_, model.coef_)
    np.testing.assert_array_equal(again.intercept_, model.intercept_)
    assert again.cumulative_loss_ == model.cumulative_loss_ and again.n_rounds_ == model.n_rounds_


def _baselines():
    rng = np.random.default_rng(4)
    X = np.round(rng.standard_normal((12, 3)) * 8) / 8
    levels = rng.integers(0, 3, 12)
    Ym = rng.integers(0, 2, (12, 3))
    pm = np.where(np.arange(12) % 2 == 0, 1, -1)
    return [
        ("PRank", PRank(3), X, levels, {"epochs": 2}),
        ("MMP", MMP(3, "error_set_size"), X, Ym, {"epochs": 2}),
        ("PairedPA", PairedPA("dca", C=2.0), X, pm, {"n_rounds": 6}),
        ("CalibratedPA", CalibratedPA(3, "auc"), X, levels, {"n_rounds": 6}),
        ("CalibratedMultilabelPA", CalibratedMultilabelPA(3), X, np.maximum(Ym, np.eye(12, 3, dtype=int)),
         {"n_rounds": 6}),
    ]


@pytest.mark.parametrize(("name", "model", "X", "Y", "fit_kwargs"), _baselines(), ids=lambda v: v if isinstance(v, str)
                         else "")
def test_baselines_and_passive_aggressive_round_trip(tmp_path, name, model, X, Y, fit_kwargs):
    model.fit(X, Y, **fit_kwargs)
    again = _round_trip(tmp_path, model)
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    np.testing.assert_array_equal(again.loss_history_, model.loss_history_)
    assert again.score(X, Y) == model.score(X, Y)
    batch = (X[:2], Y[:2]) if name == "PairedPA" else (X[:6], Y[:6])
    if name == "PairedPA":
        batch = (X[:2], np.array([1, -1]))
    model.partial_fit(*batch)
    again.partial_fit(*batch)
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))


@pytest.mark.parametrize("cls", [OneVsAll, AllPairs])
def test_reductions_save_their_binary_learners(tmp_path, cls):
    rng = np.random.default_rng(5)
    X = np.round(rng.standard_normal((15, 3)) * 8) / 8
    Y = np.array(["a", "b", "c"] * 5)
    model = cls(lambda: PredtronLD(Binary(), eta=0.5), {"epochs": 3}).fit(X, Y)
    again = _round_trip(tmp_path, model)
    assert again.factory is None  # code is not saved
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    assert again.score(X, Y) == model.score(X, Y)
    with pytest.raises(ValueError, match="factory must be a callable"):
        again.fit(X, Y)
    again.factory = model.factory
    again.fit(X, Y)
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))


def test_reduction_with_a_foreign_learner_cannot_be_saved(tmp_path):
    class Foreign:
        def fit(self, X, y):
            self.w = np.ones(X.shape[1])
            return self

        def decision_function(self, X):
            return X @ self.w

    model = OneVsAll(Foreign).fit(np.eye(3), [0, 1, 2])
    with pytest.raises(ValueError, match=r"cannot save estimators_\[0\]: a Foreign is not a predtron learner"):
        save(model, tmp_path / "m")


def _sklearn_models():
    rng = np.random.default_rng(6)
    X = np.round(rng.standard_normal((20, 3)) * 8) / 8
    ranking_X, ranking_y, qid, _ = flat_ranking()
    return [
        (PredtronClassifier(epochs=3, random_state=1), X, rng.choice(["x", "y", "z"], 20), {}),
        (PredtronClassifier(epochs=2, random_state=1, reject_cost=0.3), X, rng.integers(0, 2, 20), {}),
        (PredtronMultilabelClassifier(epochs=2, random_state=2), X, rng.integers(0, 2, (20, 3)), {}),
        (PredtronOrdinalClassifier(epochs=2, random_state=3, standardize=False), X, rng.integers(1, 5, 20), {}),
        (PredtronRanker(epochs=2, random_state=4), ranking_X, ranking_y, {"qid": qid}),
    ]


@pytest.mark.parametrize(("model", "X", "y", "kw"), _sklearn_models(), ids=lambda v: type(v).__name__)
def test_sklearn_estimators_round_trip(tmp_path, model, X, y, kw):
    model.fit(X, y, **kw)
    again = _round_trip(tmp_path, model)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    if hasattr(model, "decision_function"):
        np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    assert again.score(X, y, **kw) == model.score(X, y, **kw)


@pytest.mark.parametrize(("model", "X", "y", "kw"), _sklearn_models(), ids=lambda v: type(v).__name__)
def test_sklearn_estimators_keep_their_feature_names(tmp_path, model, X, y, kw):
    """Fitted on a DataFrame, a reloaded estimator holds the column names and refuses reordered columns as the
    original does; fitted on an array, it has none and still loads."""
    pd = pytest.importorskip("pandas")
    columns = [f"c{j}" for j in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=columns)
    model.fit(frame, y, **kw)
    again = _round_trip(tmp_path, model)
    assert again.feature_names_in_.dtype == object and again.feature_names_in_.tolist() == columns
    np.testing.assert_array_equal(again.predict(frame), model.predict(frame))
    for estimator in (model, again):
        with pytest.raises(ValueError, match="The feature names should match those that were passed during fit"):
            estimator.predict(frame[columns[::-1]])
    model.fit(X, y, **kw)
    assert not hasattr(_round_trip(tmp_path, model), "feature_names_in_")


def test_a_core_refitted_on_arrays_drops_the_loaded_feature_names(tmp_path):
    """The command line reads an estimator as its core, which sees arrays without names: refitted on other
    columns, it no longer holds the file's names, and what it saves loads."""
    pd = pytest.importorskip("pandas")
    from predtron._models import ClassifierCore
    from predtron.persistence import saved_as

    rng = np.random.default_rng(1)
    X, y = rng.standard_normal((30, 4)), rng.integers(0, 2, 30)
    save(PredtronClassifier(epochs=1).fit(pd.DataFrame(X, columns=list("abcd")), y), tmp_path / "named")
    core = load(tmp_path / "named.npz", classes={saved_as(ClassifierCore): ClassifierCore})
    assert core.feature_names_in_.tolist() == list("abcd")
    core.fit(X[:, :3], y)
    assert not hasattr(core, "feature_names_in_")
    assert load(save(core, tmp_path / "refitted")).n_features_in_ == 3


def test_malformed_feature_names_are_refused(tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = np.eye(3), ["a", "b", "a"]
    good = save(PredtronClassifier(epochs=1).fit(pd.DataFrame(X, columns=["x", "y", "z"]), y), tmp_path / "good")
    header = _header(good)
    assert header["state"]["feature_names_in_"] == ["x", "y", "z"]
    bad = {
        "a string": ("xyz", "must be a list of strings"),
        "a number": (["x", 1, "z"], "must be a list of strings"),
        "too short": (["x", "y"], "must hold 3 names"),
        "twice": (["x", "y", "x"], "must hold distinct names; \\['x'\\] appear"),
    }
    for i, (value, message) in enumerate(bad.values()):
        path = _rewrite(good, tmp_path / f"n{i}.npz", header={**header, "state": {**header["state"],
                                                                                   "feature_names_in_": value}})
        with pytest.raises(ValueError, match=rf"n{i}\.npz.*'feature_names_in_' {message}"):
            load(path)


def test_every_saveable_class_is_tested():
    tested = set(LEARNERS) | {name for name, *_ in _baselines()} | {"OneVsAll", "AllPairs"} | {
        type(m).__name__ for m, *_ in _sklearn_models()}
    # the Dask estimators register when predtron.dask.estimators is imported; tests/test_dask.py saves them
    local = {name for name, cls in saveable_classes().items() if not cls.__module__.startswith("predtron.dask.")}
    assert local == tested


# ------------------------------------------------------------------ malformed files
def _saved(tmp_path, learner=None):
    prob, data = problem_cases()["Multiclass"]
    model = (learner or Predtron(prob, eta=0.5, average=True)).fit(data["X"], data["Y"])
    return save(model, tmp_path / "good"), data


def _rewrite(path, target, header=None, arrays=None, drop=()):
    """Copy the archive at ``path`` to ``target`` with a new header and/or replaced arrays.

    The header gets the digests of the replaced arrays and of its own content (as a forger who
    recomputes them would), so that the checks behind the digests are reached;
    ``test_swapped_arrays_are_refused`` and ``test_an_edited_header_is_refused`` check the
    digests themselves."""
    with np.load(path) as data:
        content = {k: data[k] for k in data.files if k not in drop}
    if header is not None:
        content["__header__"] = np.array(header if isinstance(header, str) else json.dumps(header))
    for key, value in (arrays or {}).items():
        content["state__" + key] = value
    try:
        parsed = json.loads(str(content["__header__"]))
    except (ValueError, RecursionError):  # a malformed header, written as given
        parsed = None
    if isinstance(parsed, dict):
        if arrays and isinstance(parsed.get("digests"), dict):
            parsed["digests"].update({key: _digest(np.asarray(value)) for key, value in arrays.items()})
        if "content" in parsed:
            parsed["content"] = _content_digest(parsed)
        content["__header__"] = np.array(json.dumps(parsed))
    np.savez(target, **content)
    return target


def _header(path):
    with np.load(path) as data:
        return json.loads(str(data["__header__"]))


def test_corrupt_files_are_refused_naming_the_file(tmp_path):
    good, _ = _saved(tmp_path)
    raw = good.read_bytes()
    cases = {
        "empty.npz": b"",
        "text.npz": b"not a zip file at all\n",
        "truncated.npz": raw[: len(raw) // 2],
        "flipped.npz": raw[:200] + bytes(b ^ 0xFF for b in raw[200:400]) + raw[400:],
        "gzip.npz": b"\x1f\x8b\x08\x00" + raw[:50],
    }
    for name, content in cases.items():
        path = tmp_path / name
        path.write_bytes(content)
        with pytest.raises(ValueError, match=name.replace(".", r"\.")):
            load(path)
    np.save(tmp_path / "array.npy", np.zeros(3))
    with pytest.raises(ValueError, match=r"array\.npy"):
        load(tmp_path / "array.npy")
    with pytest.raises(TypeError, match="path must be a str"):
        load(3)
    with pytest.raises(FileNotFoundError, match=r"missing\.npz"):
        load(tmp_path / "missing.npz")


def test_a_file_that_is_not_an_archive_is_refused_without_advice_to_unpickle(tmp_path):
    # NumPy takes any file that is neither a zip nor a .npy for a pickle: its error advised loading
    # a damaged or foreign model file "unsafely" with allow_pickle, which a model file never needs.
    cases = {"text.npz": (b"hello, not a model\n", r"beginning with b'hell'"), "empty.npz": (b"", "an empty file"),
             "pickle.npz": (b"\x80\x04\x95" + b"\x00" * 20, r"beginning with b'\\x80")}
    for name, (content, found) in cases.items():
        path = tmp_path / name
        path.write_bytes(content)
        with pytest.raises(ValueError) as error:
            load(path)
        message = str(error.value)
        assert name in message and "(zip) archive" in message and re.search(found, message), message
        assert "allow_pickle" not in message and "unsafely" not in message, message


def test_notes_that_are_not_plain_json_are_refused_naming_notes(tmp_path):
    # save refused NaN or an array in notes as "cannot save learner: a value is not plain JSON" (not
    # naming notes), raised a RecursionError for deeply nested notes, and wrote int keys that load
    # gave back as strings.
    model = PredtronClassifier(random_state=0, epochs=2).fit([[0.0], [1.0], [2.0], [3.0]], [0, 1, 0, 1])
    deep: dict = {}
    for _ in range(5000):
        deep = {"a": deep}
    cases = [({"a": float("nan")}, r"notes must be a dict of plain JSON values .*got \{'a': nan\}"),
             ({"a": np.arange(3)}, r"notes must be a dict of plain JSON values .*got \{'a': array"),
             (deep, "notes must be a dict of plain JSON values; got one nested too deeply to write"),
             ({1: 2}, r"notes must be plain JSON that load gives back unchanged .*got \{1: 2\}"),
             ({"a": (1, 2)}, "notes must be plain JSON that load gives back unchanged")]
    for notes, message in cases:
        with pytest.raises(ValueError, match=message):
            save(model, tmp_path / "m.npz", notes=notes)
        assert not (tmp_path / "m.npz").exists()
    save(model, tmp_path / "m.npz", notes={"reader": {"zero_based": False, "names": ["a", "b"]}, "n": 1.5})
    assert load(tmp_path / "m.npz", notes=True)[1] == {"reader": {"zero_based": False, "names": ["a", "b"]}, "n": 1.5}


def test_tampered_headers_are_refused(tmp_path):
    good, _ = _saved(tmp_path)
    header = _header(good)
    bad = {
        "no format": {k: v for k, v in header.items() if k != "format"},
        "old format": {**header, "format": "predtron-learner/2"},
        "unknown class": {**header, "class": "os.system"},
        "not a dict": [1, 2],
        "bad params": {**header, "params": {**header["params"], "eta": -1.0}},
        "bad problem": {**header, "params": {**header["params"], "problem": {"__class__": "Multiclass",
                                                                              "params": {"n_classes": 1}}}},
        "evil problem": {**header, "params": {**header["params"], "problem": {"__class__": "subprocess.Popen",
                                                                               "params": {}}}},
        "bool as int": {**header, "state": {**header["state"], "n_features_in_": True}},
        "negative": {**header, "state": {**header["state"], "n_updates_": -1}},
        "missing": {**header, "state": {k: v for k, v in header["state"].items() if k != "block"}},
        "bad intercept": {**header, "state": {**header["state"], "intercept": True}},
    }
    for i, (what, content) in enumerate(bad.items()):
        path = _rewrite(good, tmp_path / f"h{i}.npz", header=content)
        with pytest.raises(ValueError, match=rf"h{i}\.npz") as info:
            load(path)
        assert len(str(info.value)) < 600, what
    for i, text in enumerate(["{not json", '{"format": NaN}', "[" * 100000 + "]" * 100000]):
        path = _rewrite(good, tmp_path / f"t{i}.npz", header=text)
        with pytest.raises(ValueError, match=rf"t{i}\.npz"):
            load(path)


def test_tampered_arrays_are_refused(tmp_path):
    good, _ = _saved(tmp_path)
    w = np.zeros((3, 3))
    bad = {
        "nan": {"w": np.full((3, 3), np.nan)},
        "shape": {"w": np.zeros((2, 3))},
        "features": {"w": np.zeros((3, 4))},
        "strings": {"w": np.array(["a"] * 9).reshape(3, 3)},
        "average": {"u": np.zeros((3, 2))},
        "rounds": {"trace_rounds": np.array([5, 3, 1])},
        "losses": {"trace_losses": np.full(len(np.load(good)["state__trace_losses"]), -1.0)},
    }
    for i, arrays in enumerate(bad.values()):
        path = _rewrite(good, tmp_path / f"a{i}.npz", arrays=arrays)
        with pytest.raises(ValueError, match=rf"a{i}\.npz"):
            load(path)
    path = _rewrite(good, tmp_path / "missing.npz", drop=("state__w",))
    with pytest.raises(ValueError, match=r"missing\.npz.*'w' is missing"):
        load(path)
    path = _rewrite(good, tmp_path / "extra.npz", arrays={"w": w})
    np.savez(tmp_path / "extra2.npz", **dict(np.load(path)), sneaky=np.zeros(1))
    with pytest.raises(ValueError, match=r"extra2\.npz.*unexpected entries"):
        load(tmp_path / "extra2.npz")


@pytest.mark.parametrize(("model", "X", "y", "kw"), _sklearn_models(), ids=lambda v: type(v).__name__)
def test_every_deleted_array_of_an_estimator_is_refused(tmp_path, model, X, y, kw):
    """Each array deleted from the archive in turn -- among them the scaler's mean, which the estimator reads
    only when it is there -- is refused, naming the array and the file."""
    good = save(model.fit(X, y, **kw), tmp_path / "good")
    with np.load(good) as data:
        members = [k for k in data.files if k != "__header__"]
    assert ("state__mean" in members) == model.standardize
    for i, member in enumerate(members):
        path = _rewrite(good, tmp_path / f"d{i}.npz", drop=(member,))
        name = re.escape(member.removeprefix("state__").rpartition(".")[2])
        with pytest.raises(ValueError, match=rf"d{i}\.npz: .*array [\w.']*{name}'"):
            load(path)


def test_an_optional_array_stays_optional_and_cannot_be_added(tmp_path):
    """A scaler fitted on sparse data has no mean (it only scales): the file lists no mean and loads; a mean added
    to the archive (which would centre the inputs) is refused.  A file whose header lists no arrays (written before
    headers did) is read as before; a malformed list is refused."""
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(7)
    X = sp.random(30, 4, density=0.5, format="csr", random_state=7)
    y = rng.integers(0, 3, 30)
    model = PredtronClassifier(epochs=2, random_state=0).fit(X, y)
    good = save(model, tmp_path / "good")
    with np.load(good) as data:
        assert "state__scale" in data.files and "state__mean" not in data.files
    np.testing.assert_array_equal(load(good).decision_function(X), model.decision_function(X))
    path = _rewrite(good, tmp_path / "added.npz", arrays={"mean": np.ones(4)})
    with pytest.raises(ValueError, match=r"added\.npz: the archive holds the state array 'mean', which the header "
                                         "does not list"):
        load(path)
    header = _header(good)
    legacy = _rewrite(good, tmp_path / "legacy.npz", header={k: v for k, v in header.items() if k != "arrays"})
    np.testing.assert_array_equal(load(legacy).decision_function(X), model.decision_function(X))
    for i, listed in enumerate(["scale", [*header["arrays"], "scale"], [*header["arrays"], 3]]):
        path = _rewrite(good, tmp_path / f"l{i}.npz", header={**header, "arrays": listed})
        with pytest.raises(ValueError, match=rf"l{i}\.npz: header entry 'arrays' must be a list of distinct array "
                                             "names"):
            load(path)


def test_a_wrong_coef_on_a_three_class_model_is_refused(tmp_path):
    good, _ = _saved(tmp_path, Predtron(Multiclass(3)))
    path = _rewrite(good, tmp_path / "two.npz", arrays={"w": np.zeros((2, 3))})
    with pytest.raises(ValueError, match=r"two\.npz.*'w' must have shape \(3, 3\)"):
        load(path)
    header = _header(good)
    header["state"]["n_features_in_"] = 5
    path = _rewrite(good, tmp_path / "features.npz", header=header)
    with pytest.raises(ValueError, match=r"features\.npz.*'w' must have shape \(3, 5\)"):
        load(path)


def test_what_cannot_be_saved_is_named(tmp_path):
    from predtron import KernelPredtron
    from predtron.problems import CallableMap, JointMulticlass

    prob, data = problem_cases()["Multiclass"]
    model = KernelPredtron(prob, kernel=lambda A, B: A @ B.T).fit(data["X"], data["Y"])
    with pytest.raises(ValueError, match=r"cannot save: parameter learner\.kernel is a function"):
        save(model, tmp_path / "k")
    joint = JointMulticlass(CallableMap(lambda x, y: np.r_[x, float(y)], 3))
    model = Predtron(joint).fit(data["X"], data["Y"])
    with pytest.raises(ValueError, match=r"cannot save: parameter learner\.problem\.feature_map is a CallableMap"):
        save(model, tmp_path / "c")
    with pytest.raises(ValueError, match="not fitted"):
        save(Predtron(prob), tmp_path / "u")
    with pytest.raises(ValueError, match="not a predtron learner"):
        save(object(), tmp_path / "o")
    assert FORMAT == "predtron-learner/3"


# ------------------------------------------------------------------ the registry
def test_registry_refuses_a_second_class_under_a_registered_name():
    from predtron.persistence import saveable

    class Impostor:
        def get_params(self, deep=False):
            return {}

        def _get_state(self):
            return {}, {}

        def _set_state(self, scalars, arrays):
            pass

    Impostor.__name__ = "Predtron"  # the name of a registered learner, another class
    with pytest.raises(ValueError, match=r"predtron\.learners\.predtron\.Predtron is registered under the name"):
        saveable(Impostor)
    assert saveable_classes()["Predtron"] is Predtron


def test_registry_refuses_a_class_without_the_state_methods():
    from predtron.persistence import saveable

    class NoState:
        def get_params(self, deep=False):
            return {}

    with pytest.raises(TypeError, match="NoState as saveable: it has no _get_state, _set_state"):
        saveable(NoState)
    with pytest.raises(TypeError, match="registers a class; got function"):
        saveable(lambda: None)
    assert "NoState" not in saveable_classes()


def test_unregistered_subclass_is_not_saved(tmp_path):
    class MyPredtron(Predtron):
        pass

    model = MyPredtron(Multiclass(3)).fit(np.eye(3), [0, 1, 2], epochs=1)
    with pytest.raises(ValueError, match="a MyPredtron is not a predtron learner"):
        save(model, tmp_path / "m.npz")


def test_an_estimator_core_is_saved_as_its_public_estimator(tmp_path):
    """The command line's streaming fit runs an estimator's core (predtron._models, no scikit-learn): the file
    names the public class, loads as it, and is the file the public estimator writes, byte for byte."""
    from predtron._models import ClassifierCore, RankerCore
    from predtron.persistence import saveable_as
    from predtron.sklearn import PredtronClassifier, PredtronRanker

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = np.where(X[:, 0] > 0, "a", "b")
    core = ClassifierCore(random_state=0, epochs=3).fit(X, y)
    public = PredtronClassifier(random_state=0, epochs=3).fit(X, y)
    save(core, tmp_path / "core.npz")
    save(public, tmp_path / "public.npz")
    assert (tmp_path / "core.npz").read_bytes() == (tmp_path / "public.npz").read_bytes()
    again = load(tmp_path / "core.npz")
    assert type(again) is PredtronClassifier
    np.testing.assert_array_equal(again.predict(X), public.predict(X))
    group = [20, 20, 20]
    grades = rng.integers(0, 3, 60)
    save(RankerCore(random_state=0).fit(X, grades, group=group), tmp_path / "ranker.npz")
    assert type(load(tmp_path / "ranker.npz")) is PredtronRanker
    with pytest.raises(TypeError, match="cannot register Plain as saveable: it has no get_params"):
        saveable_as("PredtronClassifier")(type("Plain", (), {}))


def test_notes_are_kept_with_the_model_and_checked_as_an_object(tmp_path):
    prob, data = problem_cases()["Multiclass"]
    model = Predtron(prob, eta=0.5).fit(data["X"], data["Y"])
    path = save(model, tmp_path / "noted", notes={"zero_based": True, "source": ["a", 1]})
    loaded, notes = load(path, notes=True)
    assert notes == {"zero_based": True, "source": ["a", 1]}
    np.testing.assert_array_equal(loaded.coef_, model.coef_)
    assert load(save(model, tmp_path / "plain"), notes=True)[1] == {}
    with pytest.raises(TypeError, match="notes must be a dict"):
        save(model, tmp_path / "bad", notes=["zero_based"])
    header = _header(path)
    bad = _rewrite(path, tmp_path / "bad.npz", header={**header, "notes": [1, 2]})
    with pytest.raises(ValueError, match=r"bad\.npz: header entry 'notes' must be a JSON object"):
        load(bad)


def test_entries_the_class_does_not_read_are_refused(tmp_path):
    """An edited header whose every value is valid on its own, but which leaves an entry the class
    never reads, used to load and predict differently (or ignore the entry): a removed
    ``reject_cost`` left its ``threshold_`` behind and the model stopped abstaining; a flipped
    ``average`` left the averaged iterate ``u`` unread and predicted with the last iterate; a
    flipped ``standardize`` kept the scaler it said it did not have; unknown entries were ignored."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 4))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    cautious = save(PredtronClassifier(random_state=0, reject_cost=0.3).fit(X, y), tmp_path / "cautious")
    header = _header(cautious)
    params, state = header["params"], header["state"]
    bad = {
        "reject_cost removed": ({**header, "params": {**params, "reject_cost": None}}, r"\['threshold_'\]"),
        "average flipped": ({**header, "params": {**params, "average": False}}, r"\['learner\.u \(array\)'\]"),
        "standardize flipped": ({**header, "params": {**params, "standardize": False}},
                                "standardize=False but the state has the array 'scale'"),
        "unknown state entry": ({**header, "state": {**state, "note": 1}}, r"\['note'\]"),
        "unknown learner entry": ({**header, "state": {**state, "learner": {**state["learner"], "x": 0}}},
                                  r"\['learner\.x'\]"),
        "unknown header entry": ({**header, "signature": "abc"}, r"the header holds entries a model file does not "
                                                                 r"have: \['signature'\]"),
    }
    for i, (content, match) in enumerate(bad.values()):
        path = _rewrite(cautious, tmp_path / f"e{i}.npz", header=content)
        with pytest.raises(ValueError, match=rf"e{i}\.npz.*{match}"):
            load(path)
    np.testing.assert_array_equal(load(cautious).predict(X), PredtronClassifier(random_state=0, reject_cost=0.3)
                                  .fit(X, y).predict(X))


@pytest.mark.parametrize("seed", [np.random.RandomState(3), np.random.default_rng(3)], ids=["RandomState", "Generator"])
@pytest.mark.parametrize("make", [
    lambda seed: (PredtronClassifier(random_state=seed), "y"),
    lambda seed: (PredtronMultilabelClassifier(random_state=seed), "Y"),
    lambda seed: (PredtronOrdinalClassifier(random_state=seed), "y"),
    lambda seed: (Predtron(Multiclass(3), eta=0.5, shuffle=True, random_state=np.random.default_rng(3)), "y"),
], ids=["classifier", "multilabel", "ordinal", "Predtron"])
def test_a_model_seeded_by_a_numpy_generator_is_saved_without_it(tmp_path, make, seed):
    """``random_state=np.random.RandomState(0)`` (scikit-learn's idiom) made a fitted model
    unsaveable ("parameter learner.random_state is a RandomState ..."); the generator only seeded
    the passes already made, so it is written as ``None`` under ``not_saved`` and the loaded
    model predicts bit for bit as the original (the learners take only a ``Generator``)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 4))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    model, target = make(copy.deepcopy(seed))
    model.fit(X, (X[:, :3] > 0).astype(int) if target == "Y" else y)
    path = save(model, tmp_path / "seeded")
    assert _header(path)["not_saved"] == ["random_state"] and _header(path)["params"]["random_state"] is None
    again = load(path)
    assert again.random_state is None
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))


@pytest.mark.parametrize("make", [
    lambda X, y, Y, qid: PredtronClassifier(random_state=0).fit(X, y),
    lambda X, y, Y, qid: PredtronMultilabelClassifier(random_state=0).fit(X, Y),
    lambda X, y, Y, qid: PredtronOrdinalClassifier(random_state=0).fit(X, y),
    lambda X, y, Y, qid: PredtronRanker(random_state=0).fit(X, y, qid=qid),
], ids=["classifier", "multilabel", "ordinal", "ranker"])
def test_a_loaded_estimator_keeps_n_iter(tmp_path, make):
    """``n_iter_`` (the passes ``fit`` made, documented) was missing from a loaded estimator
    (``AttributeError``) although the file holds it (the learner's ``n_epochs_``); a model fitted
    by ``partial_fit`` alone has none, before and after."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 4))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    model = make(X, y, (X[:, :3] > 0).astype(int), np.repeat(np.arange(12), 5))
    again = load(save(model, tmp_path / "model"))
    assert isinstance(again.n_iter_, int) and again.n_iter_ == model.n_iter_
    streamed = load(save(PredtronClassifier().partial_fit(X, y, classes=[0, 1, 2]), tmp_path / "streamed"))
    assert not hasattr(streamed, "n_iter_")


@pytest.mark.parametrize("cls", [PredtronClassifier, PredtronOrdinalClassifier])
@pytest.mark.parametrize("labels", [
    np.array([3, 5, 7], dtype=np.uint8), np.array([1.0, 2.0, 4.0], dtype=np.float32),
    np.array(["low", "mid", "top"], dtype=object), np.array(["low", "mid", "top"]), np.array([-2, 0, 2], np.int16),
], ids=["uint8", "float32", "object", "str", "int16"])
def test_a_loaded_classifier_predicts_labels_of_the_original_dtype(tmp_path, cls, labels):
    """The saved classes were JSON values only, so a loaded model predicted ``int64`` for ``uint8``
    labels, ``float64`` for ``float32`` ones and ``<U`` strings for an object array: the same values
    in another dtype, not the original's predictions bit for bit.  A ``classes_dtype`` that cannot
    hold the labels unchanged (a truncating string width) is refused."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 4))
    y = labels[np.digitize(X[:, 0], [-0.5, 0.5])]
    model = cls(random_state=0).fit(X, y)
    path = save(model, tmp_path / "model")
    again = load(path)
    assert again.classes_.dtype == model.classes_.dtype and again.predict(X).dtype == model.predict(X).dtype
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    header = _header(path)
    if labels.dtype.kind in "UO":
        narrow = {**header, "state": {**header["state"], "classes_dtype": "<U1"}}
        with pytest.raises(ValueError, match=r"classes_dtype' \(<U1\) cannot hold the saved classes"):
            load(_rewrite(path, tmp_path / "narrow.npz", header=narrow))
    wrong = {**header, "state": {**header["state"], "classes_dtype": "not a dtype"}}
    with pytest.raises(ValueError, match="classes_dtype' must be a NumPy dtype of the saved classes"):
        load(_rewrite(path, tmp_path / "wrong.npz", header=wrong))


@pytest.mark.parametrize("ids", [np.repeat(np.arange(4), 5), np.repeat(np.array(["q0", "q1", "q2", "q3"]), 5)],
                         ids=["numbers", "strings"])
def test_a_loaded_ranker_refuses_a_query_cut_across_partial_fit_calls_as_the_original(tmp_path, ids):
    """``partial_fit`` refuses a call whose first query id is the last one of the previous call (a
    query cut in two would be learned as two queries); the id was not saved, so a model saved
    between two calls of a stream accepted the cut silently after ``load``."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 3))
    y = np.digitize(X[:, 0], [0.0, 1.0])
    ranker = PredtronRanker(random_state=0).partial_fit(X[:12], y[:12], qid=ids[:12])  # cuts query 2
    again = load(save(ranker, tmp_path / "stream"))
    for model in (ranker, again):
        with pytest.raises(ValueError, match="continues the last query of the previous call"):
            model.partial_fit(X[12:], y[12:], qid=ids[12:])
    header = _header(save(ranker, tmp_path / "stream"))
    for i, bad in enumerate([[1], True, {"__float__": "inf"}]):
        content = {**header, "state": {**header["state"], "last_qid": bad}}
        with pytest.raises(ValueError, match="state entry 'last_qid' must be null, a finite number or a string"):
            load(_rewrite(tmp_path / "stream.npz", tmp_path / f"b{i}.npz", header=content))
    fitted = load(save(PredtronRanker(random_state=0).fit(X, y, qid=ids), tmp_path / "fitted"))
    fitted.partial_fit(X[:5], y[:5], qid=ids[:5])  # after fit nothing continues


def test_a_model_wider_than_a_saved_state_may_be_is_refused_at_fit():
    """A fit on sparse ``X`` of more than ``MAX_DENSE_ENTRIES`` columns (hashed features) succeeded and
    saved, but its file could not be loaded ("n_features_in_ must be ... <= 268435456"): the fit
    now refuses such ``X``, naming it, before allocating the weights."""
    import scipy.sparse as sp

    from predtron._validation import MAX_DENSE_ENTRIES
    n = 12
    X = sp.csr_matrix((np.ones(n), (np.arange(n), np.arange(n) * 1000)), shape=(n, MAX_DENSE_ENTRIES + 1))
    y = np.arange(n) % 2
    with pytest.raises(ValueError, match=r"X has 268,435,457 features, more than the 268,435,456 a model can hold"):
        PredtronClassifier(standardize=False, eta=1.0).fit(X, y)
    with pytest.raises(ValueError, match=r"X has 268,435,457 features"):
        Predtron(Binary(), eta=1.0).fit(X, np.where(y == 1, 1, -1))


def test_a_failed_save_leaves_the_model_already_there(tmp_path, monkeypatch):
    """``save`` wrote the archive in place: a write that failed half-way (a full disk, Ctrl-C) left a
    truncated file instead of the model saved before, which ``load`` then refused.  It now writes
    beside the destination and renames, and leaves no temporary behind."""
    import predtron.persistence as persistence
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    path = save(PredtronClassifier(random_state=0).fit(X, y), tmp_path / "model.npz")
    before = path.read_bytes()
    real = np.savez

    def interrupted(file, **arrays):
        real(file, **arrays)
        with open(file, "r+b") as handle:
            handle.truncate(100)  # half written
        raise KeyboardInterrupt

    monkeypatch.setattr(persistence.np, "savez", interrupted)
    with pytest.raises(KeyboardInterrupt):
        save(PredtronClassifier(random_state=1, epochs=2).fit(X, y), path)
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["model.npz"]
    monkeypatch.setattr(persistence.np, "savez", real)
    np.testing.assert_array_equal(load(path).predict(X), PredtronClassifier(random_state=0).fit(X, y).predict(X))


@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.float16, np.uint8])
def test_a_weight_array_in_another_dtype_is_refused(tmp_path, dtype):
    """``save`` writes every real array as float64; the same array as integers (the weights
    truncated) or float32 (rounded) loaded, and the first predicted differently."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    path = save(PredtronClassifier(random_state=0).fit(X, y), tmp_path / "model")
    with np.load(path) as data:
        w = data["state__learner.w"]
    edited = _rewrite(path, tmp_path / "edited.npz", arrays={"learner.w": (w * 10).astype(dtype)})
    with pytest.raises(ValueError, match=rf"edited\.npz.*state array learner\.'w' must be float64, as saved; got "
                                         rf"dtype {np.dtype(dtype)}"):
        load(edited)


@pytest.mark.parametrize("name", ["mean", "scale"])
def test_scaling_statistics_beyond_any_input_are_refused(tmp_path, name):
    """Inputs are at most ``MAX_ABS_INPUT`` in magnitude, and so are their mean and scale; a file
    edited to a mean of 1e308 loaded, and every prediction then failed with "X has an entry of
    magnitude 1.1e+308", blaming the caller's X."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    path = save(PredtronClassifier(random_state=0).fit(X, y), tmp_path / "model")
    with np.load(path) as data:
        values = data[f"state__{name}"].copy()
    values[0] = 1e308
    with pytest.raises(ValueError, match=rf"state array '{name}' must hold statistics of inputs, at most 1e\+100"):
        load(_rewrite(path, tmp_path / "edited.npz", arrays={name: values}))


@pytest.mark.parametrize("change", [
    {"cost_matrix": [[0, 1], [5, 0]]}, {"average": False}, {"standardize": False}, {"fit_intercept": False},
], ids=lambda change: next(iter(change)))
def test_save_refuses_a_model_whose_parameters_changed_since_its_fit(tmp_path, change):
    """``save`` writes the current parameters with the fitted state: after ``set_params`` (a cost
    matrix given to a fitted binary classifier, ``average`` turned off, ...) it wrote a file that
    ``load`` refused, or one that loaded with entries left unread.  It now refuses to write, naming
    the reason, and writes nothing; set back, the same model saves and loads."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = (X[:, 0] > 0).astype(int)
    model = PredtronClassifier(random_state=0).fit(X, y)
    before = model.get_params()
    model.set_params(**change)
    with pytest.raises(ValueError, match=r"cannot save learner: the file would not load \(learner: malformed state "
                                         r"of PredtronClassifier: .*\); .*set_params since the fit"):
        save(model, tmp_path / "changed")
    assert not list(tmp_path.iterdir())
    model.set_params(**before)
    np.testing.assert_array_equal(load(save(model, tmp_path / "same")).predict(X), model.predict(X))


def test_a_reject_cost_set_after_fit_is_refused_naming_it(tmp_path):
    """A ``reject_cost`` given by ``set_params`` to a model fitted without one has no threshold:
    ``predict`` and ``save`` raised ``AttributeError: ... no attribute 'threshold_'``."""
    X = np.random.default_rng(0).standard_normal((40, 3))
    model = PredtronClassifier(random_state=0).fit(X, (X[:, 0] > 0).astype(int)).set_params(reject_cost=0.3)
    for call in (lambda: model.predict(X), lambda: save(model, tmp_path / "model")):
        with pytest.raises(ValueError, match=r"reject_cost=0\.3 was set after a fit without it"):
            call()


def test_load_reads_the_path_given_to_save(tmp_path):
    """``save(model, "m")`` writes ``m.npz`` (it appends the suffix), but ``load("m")`` raised
    ``FileNotFoundError``: the path of the one call did not open the file of the other.  A file
    named exactly as given is read first."""
    X = np.random.default_rng(0).standard_normal((40, 3))
    model = PredtronClassifier(random_state=0).fit(X, (X[:, 0] > 0).astype(int))
    save(model, tmp_path / "model")
    np.testing.assert_array_equal(load(tmp_path / "model").predict(X), model.predict(X))
    np.testing.assert_array_equal(load(str(tmp_path / "model")).predict(X), model.predict(X))
    (tmp_path / "other").write_bytes(b"not a model")
    save(model, tmp_path / "other")  # other.npz beside a file named other: that file is read
    with pytest.raises(ValueError, match="other is not a readable predtron model file"):
        load(tmp_path / "other")
    with pytest.raises(FileNotFoundError, match="model file not found"):
        load(tmp_path / "missing")


def test_swapped_arrays_are_refused(tmp_path):
    """Arrays each valid on its own but under another array's name loaded and predicted
    differently: the last iterate swapped with the averaged one, a scaler's scale given as its
    mean.  The header's digests name the array that is not the one saved (a file without the
    entry, written before it existed, still loads)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    model = PredtronClassifier(random_state=0).fit(X, y)
    path = save(model, tmp_path / "model")
    with np.load(path) as data:
        w, u, scale = data["state__learner.w"], data["state__learner.u"], data["state__scale"]
    for i, (name, swapped) in enumerate([("learner.u", {"learner.w": u, "learner.u": w}),
                                         ("mean", {"mean": np.abs(scale)})]):
        edited = tmp_path / f"swapped{i}.npz"
        with np.load(path) as data:
            content = {k: data[k] for k in data.files}
        content.update({"state__" + k: v for k, v in swapped.items()})
        np.savez(edited, **content)
        with pytest.raises(ValueError, match=rf"swapped{i}\.npz: state array '{name}' is not the array saved under "
                                             r"that name .*edited or swapped"):
            load(edited)
    header = _header(path)
    old = _rewrite(path, tmp_path / "old.npz", header={k: v for k, v in header.items() if k != "digests"})
    np.testing.assert_array_equal(load(old).predict(X), model.predict(X))
    bad = _rewrite(path, tmp_path / "bad.npz", header={**header, "digests": {"learner.w": "0" * 64}})
    with pytest.raises(ValueError, match="header entry 'digests' must give one digest for each state array"):
        load(bad)


def test_an_edited_header_is_refused(tmp_path):
    """Header edits that leave every value valid on its own loaded a model that predicted or scored
    differently: a parameter removed (it then took its default), a cost matrix removed, a
    multilabel loss changed.  The header's digest of its own content names the edit; the notes
    are not part of it, and a file written before the entry existed still loads."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    model = PredtronClassifier(random_state=0, average=False, cost_matrix=[[0, 1, 1], [1, 0, 1], [4, 1, 0]]).fit(X, y)
    path = save(model, tmp_path / "model", notes={"by": "test"})
    header = _header(path)
    params = header["params"]
    edits = [{**header, "params": {k: v for k, v in params.items() if k != "average"}},
             {**header, "params": {**params, "cost_matrix": None}},
             {**header, "state": {**header["state"], "eta_": 2 * header["state"]["eta_"]}},
             {**header, "content": None}]
    for i, edited in enumerate(edits):
        target = tmp_path / f"edited{i}.npz"
        with np.load(path) as data:
            content = {k: data[k] for k in data.files}
        content["__header__"] = np.array(json.dumps(edited))
        np.savez(target, **content)
        with pytest.raises(ValueError, match=rf"edited{i}\.npz: the header is not the one saved with the model"):
            load(target)
    notes = _rewrite(path, tmp_path / "notes.npz", header={**header, "notes": {"by": "someone else"}})
    np.testing.assert_array_equal(load(notes).predict(X), model.predict(X))  # the notes are not the model
    old = {k: v for k, v in header.items() if k != "content"}
    np.testing.assert_array_equal(load(_rewrite(path, tmp_path / "old.npz", header=old)).predict(X), model.predict(X))
