"""The fuzz suite's registry: every public entry point of predtron with valid arguments.

:func:`registry` maps the qualified name of each public class or function
(``module.qualname`` of its definition) to the :class:`~fuzz_core.Call` objects that fuzz it;
:data:`EXCLUDED` names the few public objects that are not fuzzed, each with the reason.
``tests/test_fuzz.py::test_registry_covers_every_public_name`` fails when a public name of the
package is in neither.
"""

from __future__ import annotations

import copy
import functools
import warnings

import numpy as np
from fuzz_core import Call
from fuzz_values import EITHER, FREE, REFUSE, SAME

import predtron
from predtron import problems as P
from predtron.learners import (
    SGDSVM,
    BatchPerceptron,
    KernelPredtron,
    NotSeparatedWarning,
    Predtron,
    PredtronLD,
    PredtronLink,
)
from predtron.links import PNormLink

N, P0 = 6, 3  # examples and features of the small data sets


def _grid(shape, seed):
    """Values on a 1/16 grid (exact in float32), none of them zero."""
    rng = np.random.default_rng(seed)
    values = np.round(rng.standard_normal(shape) * 16) / 16
    values[values == 0] = 0.0625
    return values


# ------------------------------------------------------------------ problems
@functools.cache
def problem_cases():
    """``name -> (problem, data)``: one instance per concrete problem class with small data.

    ``data`` holds ``X`` (the learners' input), ``Y`` (labels), the kinds of both, the score
    vector ``t`` with its label ``y`` and prediction ``sigma``, and the label structure.
    """
    cases = {}

    def vector_case(name, problem, Y, structure):
        X = _grid((N, P0), 1)
        t = _grid((problem.score_shape()[0],), 2)
        cases[name] = (problem, dict(X=X, Y=Y, xkind="matrix_sparse", ykind=f"labels_{structure}", t=t,
                                     y=Y[0], sigma=problem.pred(t), structure=structure))

    rng = np.random.default_rng(5)
    pm1 = [1, -1, 1, 1, -1, -1]
    classes = [0, 1, 2, 1, 0, 2]
    vector_case("Binary", P.Binary(2.0, 0.5), pm1, "scalar")
    vector_case("BinaryReject", P.BinaryReject(0.4, 0.3), pm1, "scalar")
    vector_case("Multiclass", P.Multiclass(3), classes, "scalar")
    vector_case("Ordinal", P.Ordinal(4), [0, 3, 2, 1, 0, 2], "scalar")
    vector_case("General", P.General([[0, 1, 2], [1, 0, 1], [2, 2, 0]], _grid((3, 4), 3)), classes, "scalar")
    vector_case("Multilabel", P.Multilabel(4, "hamming"), rng.integers(0, 2, (N, 4)).tolist(), "vector")
    vector_case("Multilabel-f1", P.Multilabel(4, "f1"), rng.integers(0, 2, (N, 4)).tolist(), "vector")
    vector_case("Multilabel-precision@k", P.Multilabel(4, "precision@k", k=2),
                rng.integers(0, 2, (N, 4)).tolist(), "vector")
    vector_case("MultilabelRanking", P.MultilabelRanking(4, y_max=2), rng.integers(0, 3, (N, 4)).tolist(), "vector")
    # Joint feature map: vector inputs, scalar labels; the feature map refuses sparse rows.
    joint = P.JointMulticlass(P.MultivectorMap(3))
    t = _grid((3,), 2)
    cases["JointMulticlass"] = (joint, dict(X=_grid((N, P0), 1), Y=classes, xkind="matrix", ykind="labels_scalar",
                                            t=t, y=0, sigma=joint.pred(t), structure="scalar"))
    # Ranking: a list of query matrices and relevance arrays.
    sizes = [3, 1, 4, 2]
    Xs = [_grid((m, P0), 10 + i) for i, m in enumerate(sizes)]
    Ys = [np.array(y) for y in ([2, 0, 1], [1], [0, 2, 2, 1], [0, 1])]
    ranking = P.SubsetRanking()
    t = _grid((3,), 4)
    cases["SubsetRanking"] = (ranking, dict(X=Xs, Y=Ys, xkind="queries", ykind="labels_ragged", t=t, y=Ys[0],
                                            sigma=ranking.pred(t), structure="ragged"))
    chain = P.Chain(3, 2)
    t = _grid((chain.score_shape()[0],), 6)
    cases["Chain"] = (chain, dict(X=[_grid((P0, 2), 20 + i) for i in range(N)],
                                  Y=[[0, 1], [2, 2], [1, 0], [0, 0], [2, 1], [1, 2]], xkind="queries",
                                  ykind="labels_vector", t=t, y=np.array([0, 1]), sigma=chain.pred(t),
                                  structure="vector"))
    return cases


def flat_ranking():
    """The ranking data of :func:`problem_cases` in the flat layout (rows, grades, qid, group)."""
    _, data = problem_cases()["SubsetRanking"]
    X = np.concatenate(data["X"])
    y = np.concatenate(data["Y"])
    group = np.array([len(x) for x in data["X"]])
    qid = np.repeat(np.arange(len(group)) + 7, group)
    return X, y, qid, group


# ------------------------------------------------------------------ learners
LEARNERS = {
    "Predtron": lambda p: Predtron(p, eta=0.5),
    "PredtronLD": lambda p: PredtronLD(p, eta=0.5, average=True),
    "PredtronLink": lambda p: PredtronLink(p, link=PNormLink(1.5), eta=0.5),
    "KernelPredtron": lambda p: KernelPredtron(p, kernel="rbf", budget=5, average=True),
    "BatchPerceptron": lambda p: BatchPerceptron(p, max_epochs=3),
    "SGDSVM": lambda p: SGDSVM(p, lam=0.1, seed=3),
}
LEARNER_CLASSES = {"Predtron": Predtron, "PredtronLD": PredtronLD, "PredtronLink": PredtronLink,
                   "KernelPredtron": KernelPredtron, "BatchPerceptron": BatchPerceptron, "SGDSVM": SGDSVM}


def _supported(learner: str, problem_name: str) -> bool:
    if learner == "KernelPredtron" and problem_name in ("Chain", "JointMulticlass"):
        return False  # kernels need inputs compared row by row (refused with a clear message)
    return True


def _quiet(fn):
    @functools.wraps(fn)
    def run(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotSeparatedWarning)
            return fn(*args, **kwargs)
    return run


def _fit_kwargs(learner):
    return {"epochs": 1} if learner not in ("BatchPerceptron",) else {}


def learner_calls():
    """Every learner x problem x method, with ``X`` and ``Y`` fuzzed (and the fit parameters)."""
    calls = []
    for lname, make in LEARNERS.items():
        cls = LEARNER_CLASSES[lname]
        key = f"{cls.__module__}.{cls.__qualname__}"
        for pname, (problem, data) in problem_cases().items():
            if not _supported(lname, pname):
                continue
            X, Y = data["X"], data["Y"]
            xkind = data["xkind"]
            if lname == "KernelPredtron" and xkind == "matrix_sparse":
                xkind = "matrix"
            fit_kwargs = _fit_kwargs(lname)
            fitted = _quiet(lambda m=make, p=problem, X=X, Y=Y, fk=fit_kwargs: m(copy.deepcopy(p)).fit(X, Y, **fk))()
            probe = _probe(X)

            def after_fit(model, probe=probe):
                return model.decision_function(probe), model.n_updates_

            base = f"{lname}/{pname}"
            fit_kinds = {"X": xkind, "Y": data["ykind"], "verbose": "bool"}
            if "epochs" in fit_kwargs:
                fit_kinds["epochs"] = "int"
            calls.append(Call(f"{base}/fit", _quiet(lambda m=make, p=problem, **kw: m(copy.deepcopy(p)).fit(**kw)),
                              dict(X=X, Y=Y, verbose=False, **fit_kwargs), fit_kinds, post=after_fit,
                              expect={("X", "zero_rows"): REFUSE, ("Y", "empty"): REFUSE},
                              covers=(key, f"{key}.fit")))
            calls.append(Call(f"{base}/partial_fit",
                              _quiet(lambda f=fitted, **kw: copy.deepcopy(f).partial_fit(**kw)),
                              dict(X=X, Y=Y), {"X": xkind, "Y": data["ykind"]}, post=after_fit,
                              expect={("X", "extra_feature"): REFUSE, ("X", "zero_rows"): REFUSE},
                              covers=(f"{key}.partial_fit",)))
            n = len(X)
            for method in ("predict", "decision_function"):
                calls.append(Call(f"{base}/{method}", lambda f=fitted, m=method, **kw: getattr(f, m)(**kw),
                                  dict(X=X), {"X": xkind}, n=n, expect={"extra_feature": REFUSE},
                                  covers=(f"{key}.{method}",)))
            for method in ("score", "mean_loss"):
                calls.append(Call(f"{base}/{method}", lambda f=fitted, m=method, **kw: getattr(f, m)(**kw),
                                  dict(X=X, Y=Y), {"X": xkind, "Y": data["ykind"]},
                                  expect={"extra_feature": REFUSE, "zero_rows": REFUSE, ("Y", "empty"): REFUSE},
                                  covers=(f"{key}.{method}",)))
    calls += flat_ranking_calls()
    calls += learner_parameter_calls()
    return calls


def _probe(X):
    return X[:3] if isinstance(X, list) else X[:3].copy()


def flat_ranking_calls():
    """Ranking learners on the flat layout: one row per document with ``qid`` or ``group``."""
    X, y, qid, group = flat_ranking()
    problem = P.SubsetRanking()
    calls = []
    for lname in ("Predtron", "PredtronLD", "PredtronLink", "KernelPredtron"):
        make = LEARNERS[lname]
        fitted = make(P.SubsetRanking()).fit(X, y, group=group)
        xkind = "matrix" if lname == "KernelPredtron" else "matrix_sparse"
        for layout, value in (("qid", qid), ("group", group)):
            base = f"{lname}/SubsetRanking-flat-{layout}"
            calls.append(Call(f"{base}/fit", lambda m=make, **kw: m(P.SubsetRanking()).fit(**kw),
                              {"X": X, "Y": y, layout: value}, {"X": xkind, "Y": "labels_scalar", layout: layout},
                              post=lambda model: model.decision_function(X, group=group),
                              names={"X": ("X", layout, "qid", "group"), "Y": ("Y",), layout: (layout,)},
                              expect={("X", "zero_rows"): REFUSE, ("Y", "empty"): REFUSE}))
            for method in ("predict", "decision_function"):
                calls.append(Call(f"{base}/{method}", lambda f=fitted, m=method, **kw: getattr(f, m)(**kw),
                                  {"X": X, layout: value}, {"X": xkind, layout: layout},
                                  names={"X": ("X", layout), layout: (layout,)},
                                  expect={"extra_feature": REFUSE}))
            for method in ("score", "mean_loss", "partial_fit"):
                fn = (lambda f=fitted, m=method, **kw: getattr(copy.deepcopy(f), m)(**kw)) if method == "partial_fit" \
                    else (lambda f=fitted, m=method, **kw: getattr(f, m)(**kw))
                calls.append(Call(f"{base}/{method}", fn, {"X": X, "Y": y, layout: value},
                                  {"X": xkind, "Y": "labels_scalar", layout: layout},
                                  post=(lambda model: model.decision_function(X, group=group))
                                  if method == "partial_fit" else None,
                                  names={"X": ("X", layout), layout: (layout,)},
                                  expect={"extra_feature": REFUSE, "zero_rows": REFUSE, ("Y", "empty"): REFUSE}))
    del problem
    return calls


def learner_parameter_calls():
    """Constructor parameters of every learner, checked by ``fit`` on multiclass data."""
    problem, data = problem_cases()["Multiclass"]
    X, Y = data["X"], data["Y"]
    probe = X[:3]
    specs = {
        Predtron: dict(problem=problem, eta=0.5, update="oracle", average=False, shuffle=True, random_state=3,
                       fit_intercept=True, record_losses=True),
        PredtronLD: dict(problem=problem, eta=0.5, update="prediction", average=True, shuffle=False,
                         random_state=5, fit_intercept=False, record_losses=False),
        PredtronLink: dict(problem=problem, link=PNormLink(1.5), eta=0.5, update="oracle", loss_driven=True,
                           average=True, shuffle=True, random_state=1, fit_intercept=True, record_losses=True),
        KernelPredtron: dict(problem=problem, kernel="poly", eta=0.5, update="oracle", loss_driven=False, budget=4,
                             kernel_params={"degree": 2}, average=True, shuffle=True, random_state=2,
                             fit_intercept=True, record_losses=True),
        BatchPerceptron: dict(problem=problem, max_epochs=4),
        SGDSVM: dict(problem=problem, lam=0.1, average=True, seed=4),
    }
    kinds = {"problem": "object", "eta": "real", "update": "choice", "average": "bool", "shuffle": "bool",
             "random_state": "int", "fit_intercept": "bool", "record_losses": "bool", "link": "object",
             "loss_driven": "bool", "kernel": "choice", "budget": "int", "kernel_params": "any",
             "max_epochs": "int", "lam": "real", "seed": "int"}
    calls = []
    for cls, kwargs in specs.items():
        fit_kwargs = {} if cls is BatchPerceptron else {"epochs": 1}
        calls.append(Call(f"{cls.__name__}/parameters",
                          _quiet(lambda c=cls, fk=fit_kwargs, **kw: c(**kw).fit(X, Y, **fk)), kwargs,
                          {k: kinds[k] for k in kwargs},
                          post=lambda model: model.decision_function(probe),
                          expect={("problem", "none"): REFUSE}))
    return calls


# ------------------------------------------------------------------ problems
PROBLEM_OPERATIONS = ("rep", "pred", "loss", "correct", "oracle", "objective", "surrogate", "margin", "is_correct",
                      "check_label", "check_prediction", "check_scores", "label_for", "score_shape")


def problem_calls():
    """The validated operations of every problem on a fuzzed score vector, label or prediction."""
    calls = []
    for pname, (problem, data) in problem_cases().items():
        key = f"{type(problem).__module__}.{type(problem).__qualname__}"
        structure = data["structure"]
        t, y, sigma = data["t"], data["y"], data["sigma"]
        lk, sk = f"label_{structure}", f"label_{structure}"
        if pname in ("BinaryReject",):
            pass
        specs = {
            "rep": (dict(sigma=sigma), {"sigma": sk}),
            "pred": (dict(t=t), {"t": "vector"}),
            "loss": (dict(sigma=sigma, y=y), {"sigma": sk, "y": lk}),
            "correct": (dict(y=y), {"y": lk}),
            "oracle": (dict(t=t, y=y), {"t": "vector", "y": lk}),
            "objective": (dict(sigma=sigma, t=t, y=y), {"sigma": sk, "t": "vector", "y": lk}),
            "surrogate": (dict(t=t, y=y), {"t": "vector", "y": lk}),
            "margin": (dict(t=t, y=y), {"t": "vector", "y": lk}),
            "is_correct": (dict(sigma=sigma, y=y), {"sigma": sk, "y": lk}),
            "check_label": (dict(y=y), {"y": lk}),
            "check_prediction": (dict(sigma=sigma, y=y), {"sigma": sk, "y": lk}),
            "check_scores": (dict(t=t, y=y), {"t": "vector", "y": lk}),
            "label_for": (dict(sigma=sigma), {"sigma": sk}),
            "score_shape": (dict(y=y), {"y": lk}),
        }
        names = {"sigma": ("sigma", "prediction"), "y": ("y", "label"), "t": ("t",)}
        for op, (kwargs, kinds) in specs.items():
            expect = {("sigma", "shorter"): REFUSE, ("sigma", "longer"): REFUSE} if structure != "ragged" else {}
            if op in ("check_scores", "check_prediction", "score_shape"):  # y is optional there
                expect.update({("y", "none"): EITHER, ("y", "junk_none"): EITHER})
            post = (lambda r: (r is None, 0 if r is None else r)) if op == "label_for" else None
            calls.append(Call(f"{pname}/{op}", lambda p=problem, o=op, **kw: getattr(p, o)(**kw), kwargs, kinds,
                              post=post,
                              names=names, nonfinite=(op == "margin"), covers=(key, f"{key}.{op}"),
                              expect=expect, optional=("y",) if "none" in str(expect) else ()))
    return calls


# ------------------------------------------------------------------ functions
def fn_call(fn, kwargs: dict, kinds: dict, *, id: str | None = None, **extra) -> Call:
    """A module-level function called with keyword arguments (grouped by module)."""
    key = f"{fn.__module__}.{fn.__qualname__}"
    module = fn.__module__.removeprefix("predtron.")
    return Call(id or f"{module}.{fn.__name__}", lambda **kw: fn(**kw), kwargs, kinds, covers=(key,),
                group=extra.pop("group", module), **extra)


def bound_calls():
    from predtron import bounds as B

    multiclass, data = problem_cases()["Multiclass"]
    X, Y = data["X"], data["Y"]
    W = _grid((3, P0), 7)
    queries = problem_cases()["SubsetRanking"][1]["X"]
    real = "real"
    return [
        fn_call(B.radius, dict(problem=multiclass, X=X), dict(problem="object", X="matrix_sparse")),
        fn_call(B.parameter_norm, dict(W=W, norm="l1"), dict(W="matrix", norm="choice"),
                expect={"one_d": EITHER, "series": EITHER}),
        fn_call(B.empirical_margin, dict(problem=multiclass, W=W, X=X, Y=Y, norm="fro"),
                dict(problem="object", W="matrix", X="matrix_sparse", Y="labels_scalar", norm="choice"),
                names={"X": ("X", "W")}),
        fn_call(B.theorem1_eta, dict(R=2.0, c_L=0.5), dict(R=real, c_L=real)),
        fn_call(B.theorem1_bound, dict(R=2.0, gamma=0.25, c_L=0.5, C_L=2.0, eta=0.01),
                dict(R=real, gamma=real, c_L=real, C_L=real, eta=real), optional=("eta",)),
        fn_call(B.predtron_bound, dict(problem=multiclass, R=2.0, gamma=0.25),
                dict(problem="object", R=real, gamma=real)),
        fn_call(B.corollary2_bound, dict(R=2.0, gamma=0.25, cost_pos=2.0, cost_neg=0.5),
                dict(R=real, gamma=real, cost_pos=real, cost_neg=real)),
        fn_call(B.ordinal_bound, dict(R=2.0, gamma=0.25, n_levels=4), dict(R=real, gamma=real, n_levels="int")),
        fn_call(B.reject_bound, dict(R=2.0, gamma=0.25, reject_cost_pos=0.4, reject_cost_neg=0.3),
                dict(R=real, gamma=real, reject_cost_pos=real, reject_cost_neg=real)),
        fn_call(B.reject_bound_paper, dict(R=2.0, gamma=0.25, reject_cost_pos=0.4, reject_cost_neg=0.3),
                dict(R=real, gamma=real, reject_cost_pos=real, reject_cost_neg=real)),
        fn_call(B.loss_driven_bound, dict(R=2.0, gamma=0.25, C_L=2.0, c_L=0.5, update="oracle"),
                dict(R=real, gamma=real, C_L=real, c_L=real, update="choice")),
        fn_call(B.loss_driven_squared_bound, dict(R=2.0, gamma=0.25, C_L=2.0), dict(R=real, gamma=real, C_L=real)),
        fn_call(B.operator_norm_radius, dict(X=queries), dict(X="queries")),
        fn_call(B.column_norm_radius, dict(X=queries), dict(X="queries")),
        fn_call(B.l2_radius, dict(X=X), dict(X="matrix")),
        fn_call(B.linf_radius, dict(X=X), dict(X="matrix")),
        fn_call(B.corollary5_bound, dict(R=2.0, gamma=0.25, n_items=5, y_max=2),
                dict(R=real, gamma=real, n_items="int", y_max="int")),
        fn_call(B.corollary6_bound, dict(R=2.0, gamma=0.25, n_items=5, y_max=2, n_features=10),
                dict(R=real, gamma=real, n_items="int", y_max="int", n_features="int")),
        fn_call(B.corollary7_bound, dict(R=2.0, gamma=0.25, n_labels=5, y_max=2),
                dict(R=real, gamma=real, n_labels="int", y_max="int")),
        fn_call(B.corollary8_bound, dict(R=2.0, gamma=0.25, n_labels=5, y_max=2, n_features=10),
                dict(R=real, gamma=real, n_labels="int", y_max="int", n_features="int")),
        fn_call(B.ndcg_loss_floor, dict(n_items=5, y_max=2), dict(n_items="int", y_max="int")),
        fn_call(B.link_exponent, dict(n_features=10), dict(n_features="int")),
        fn_call(B.link_factor, dict(n_features=10), dict(n_features="int")),
        fn_call(B.link_eta, dict(R=2.0, c_L=0.5, n_features=10), dict(R=real, c_L=real, n_features="int")),
        fn_call(B.link_bound, dict(R=2.0, gamma=0.25, c_L=0.5, C_L=2.0, n_features=10),
                dict(R=real, gamma=real, c_L=real, C_L=real, n_features="int")),
    ]


def metric_calls():
    from predtron import metrics as M

    y = np.array([1, -1, 1, 1, -1, -1, 1])
    scores = _grid((7,), 8)
    Yc = np.array([0, 1, 2, 1, 0, 2, 1])
    S = _grid((7, 3), 9)
    Ym = np.array([[1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [0, 1], [1, 0]])
    Sm = _grid((7, 2), 10)
    return [
        fn_call(M.pairwise_auc, dict(pos_scores=scores[:3], neg_scores=scores[3:]),
                dict(pos_scores="vector", neg_scores="vector")),
        fn_call(M.auc, dict(y=y, scores=scores), dict(y="labels_scalar", scores="vector")),
        fn_call(M.brute_force_auc, dict(y=y, scores=scores), dict(y="labels_scalar", scores="vector")),
        fn_call(M.mistake_rates, dict(y=y, scores=scores, threshold=0.25),
                dict(y="labels_scalar", scores="vector", threshold="real")),
        fn_call(M.auc_bound, dict(y=y, scores=scores, threshold=0.25),
                dict(y="labels_scalar", scores="vector", threshold="real")),
        fn_call(M.pairwise_auc_matrix, dict(Y=Yc, S=S, n_classes=3),
                dict(Y="labels_scalar", S="matrix", n_classes="int"), nonfinite=True, optional=("n_classes",)),
        fn_call(M.all_pairs_auc, dict(Y=Yc, S=S, n_classes=3), dict(Y="labels_scalar", S="matrix", n_classes="int"),
                optional=("n_classes",)),
        fn_call(M.one_vs_all_auc, dict(Y=Yc, S=S, n_classes=3, average=False),
                dict(Y="labels_scalar", S="matrix", n_classes="int", average="bool"), optional=("n_classes",),
                expect={("average", "other"): FREE}),
        fn_call(M.multilabel_auc, dict(Y=Ym, S=Sm, average=True), dict(Y="labels_vector", S="matrix", average="bool"),
                expect={("average", "other"): FREE}),
        fn_call(M.class_mistake_matrix, dict(Y=Yc, S=S, n_classes=3, threshold=0.25),
                dict(Y="labels_scalar", S="matrix", n_classes="int", threshold="real"), optional=("n_classes",)),
        fn_call(M.all_pairs_auc_bound, dict(Y=Yc, S=S, n_classes=3, threshold=0.25),
                dict(Y="labels_scalar", S="matrix", n_classes="int", threshold="real"), optional=("n_classes",)),
    ]


def link_calls():
    from predtron import links as L

    v = _grid((6,), 11)
    W = _grid((3, 4), 12)
    calls = [
        fn_call(L.default_exponent, dict(p=10), dict(p="int")),
        fn_call(L.check_exponent, dict(r=1.5, name="r"), dict(r="real"), expect={("r", "none"): FREE}),
        fn_call(L.conjugate_exponent, dict(r=1.5), dict(r="real")),
        fn_call(L.pnorm, dict(v=v, r=1.5), dict(v="array", r="real")),
        fn_call(L.pnorm_map, dict(v=v, r=1.5), dict(v="array", r="real"), free=("v",)),
    ]
    for cls, r in ((L.EuclideanLink, None), (L.PNormLink, 1.5), (L.GroupNormLink, 1.3), (L.SchattenLink, 1.7)):
        key = f"{cls.__module__}.{cls.__qualname__}"
        ctor = {} if r is None else {"r": r}

        def make(c=cls, a=ctor):
            return c(**a)

        if r is not None:
            calls.append(Call(f"links.{cls.__name__}/init", lambda c=cls, **kw: c(**kw).to_primal(W), ctor,
                              {"r": "real"}, optional=("r",), covers=(key,), group="links.classes"))
        for method, arg, value in (("psi", "W", W), ("psi_star", "theta", W), ("to_dual", "W", W),
                                   ("to_primal", "theta", W)):
            calls.append(Call(f"links.{cls.__name__}/{method}", lambda m=make, me=method, **kw: getattr(m(), me)(**kw),
                              {arg: value}, {arg: "array"}, covers=(key, f"{key}.{method}"), group="links.classes",
                              free=(arg,), expect={"nested_3d": REFUSE} if cls in (L.GroupNormLink, L.SchattenLink)
                              else {}))
        for method in ("exponent", "dual_exponent", "n_terms"):
            calls.append(Call(f"links.{cls.__name__}/{method}", lambda m=make, me=method, **kw: getattr(m(), me)(**kw),
                              {"shape": (3, 4)}, {"shape": "any"}, covers=(f"{key}.{method}",), group="links.classes"))
    return calls


def kernel_calls():
    from predtron import kernels as K

    A, B = _grid((4, 3), 13), _grid((2, 3), 14)
    kinds = {"A": "matrix", "B": "matrix"}
    free = ("B",)  # the rows of B are the columns of the Gram matrix
    rbf = K.get_kernel("rbf", gamma=0.5)
    calls = [
        fn_call(K.linear_kernel, dict(A=A, B=B), kinds, free=free),
        fn_call(K.rbf_kernel, dict(A=A, B=B, gamma=0.5), {**kinds, "gamma": "real"}, optional=("gamma",), free=free),
        fn_call(K.poly_kernel, dict(A=A, B=B, degree=2, gamma=0.5, coef0=1.0),
                {**kinds, "degree": "int", "gamma": "real", "coef0": "real"}, optional=("gamma",), free=free),
        fn_call(K.get_kernel, dict(spec="rbf", gamma=0.5), dict(spec="choice", gamma="real"), optional=("gamma",),
                post=lambda k: k(A, B), names={"spec": ("spec", "kernel")}),
        Call("kernels.KernelFunction/init", lambda **kw: K.KernelFunction(**kw)(A, B),
             dict(function=K.linear_kernel, params={}, name="lin"), dict(function="callable", params="any"),
             covers=("predtron.kernels.KernelFunction",), group="kernels"),
        Call("kernels.KernelFunction/call", lambda **kw: rbf(**kw), dict(A=A, B=B), kinds,
             covers=("predtron.kernels.KernelFunction",), group="kernels", free=free),
    ]
    return calls


def pa_calls():
    from predtron.pa import dual as D
    from predtron.pa import learners as PL
    from predtron.pa import reference as R
    from predtron.pa import rules as RU
    from predtron.pa import streams as ST

    X = _grid((4, 3), 15)
    y = np.array([1, -1, 1, -1])
    w = _grid((3,), 16)
    alpha = np.array([0.25, 0.0, 0.5, 0.125])
    sw = np.array([1.0, 0.5, 0.5, 1.0])
    batch = {"X": "matrix", "y": "labels_scalar"}
    calls = [
        fn_call(D.check_C, dict(C=1.0), dict(C="real"), nonfinite=True),
        fn_call(D.check_batch, dict(X=X, y=y), batch),
        fn_call(D.check_sample_weight, dict(sample_weight=sw, k=4), dict(sample_weight="vector", k="int"),
                optional=("sample_weight",)),
        fn_call(D.check_w, dict(w=w, n_features=3, name="w"), dict(w="vector", n_features="int")),
        fn_call(D.check_alpha, dict(alpha=alpha, k=4, C=1.0), dict(alpha="vector", k="int", C="real")),
        fn_call(D.check_index_set, dict(J=[0, 2], k=4), dict(J="labels_scalar", k="int"), free=("J",),
                expect={("J", "shorter"): FREE}),
        fn_call(D.signed_samples, dict(X=X, y=y, sample_weight=sw), {**batch, "sample_weight": "vector"},
                optional=("sample_weight",), free=("X",)),
        fn_call(D.hinge_losses, dict(w=w, X=X, y=y), {**batch, "w": "vector"}),
        fn_call(D.batch_primal_objective, dict(w=w, w_t=w * 0.5, X=X, y=y, C=1.0, sample_weight=sw),
                {**batch, "w": "vector", "w_t": "vector", "C": "real", "sample_weight": "vector"},
                optional=("sample_weight",), nonfinite=True),
        fn_call(D.primal_from_dual, dict(alpha=alpha, w_t=w, X=X, y=y, sample_weight=sw),
                {**batch, "alpha": "vector", "w_t": "vector", "sample_weight": "vector"}, optional=("sample_weight",)),
        fn_call(D.batch_dual_objective, dict(alpha=alpha, w_t=w, X=X, y=y, sample_weight=sw),
                {**batch, "alpha": "vector", "w_t": "vector", "sample_weight": "vector"}, optional=("sample_weight",)),
        fn_call(D.dual_gradient, dict(w=w, X=X, y=y, sample_weight=sw),
                {**batch, "w": "vector", "sample_weight": "vector"}, optional=("sample_weight",)),
        fn_call(D.kkt_violation, dict(w=w, alpha=alpha, X=X, y=y, C=1.0, sample_weight=sw),
                {**batch, "w": "vector", "alpha": "vector", "C": "real", "sample_weight": "vector"},
                optional=("sample_weight",)),
        fn_call(D.step_bounds, dict(alpha=alpha, J=[0, 2], C=1.0), dict(alpha="vector", J="labels_scalar", C="real"),
                nonfinite=True, expect={("J", "shorter"): FREE}, free=("J",)),
        fn_call(D.step_size, dict(w=w, alpha=alpha, X=X, y=y, J=[0, 1], C=1.0, sample_weight=sw),
                {**batch, "w": "vector", "alpha": "vector", "J": "labels_scalar", "C": "real",
                 "sample_weight": "vector"}, optional=("sample_weight",), expect={("J", "shorter"): FREE}, free=("J",)),
        fn_call(D.dual_step, dict(w=w, alpha=alpha, X=X, y=y, J=[0, 1], C=1.0, sample_weight=sw),
                {**batch, "w": "vector", "alpha": "vector", "J": "labels_scalar", "C": "real",
                 "sample_weight": "vector"}, optional=("sample_weight",), expect={("J", "shorter"): FREE}, free=("J",)),
        fn_call(RU.index_sets, dict(rule="max_violators", w_t=w, X=X, y=y),
                {**batch, "rule": "choice", "w_t": "vector"}, free=("rule",)),
        fn_call(RU.pa_update, dict(w_t=w, X=X, y=y, rule="dca", C=1.0, sample_weight=sw, tol=1e-8, max_iter=50),
                {**batch, "w_t": "vector", "rule": "choice", "C": "real", "sample_weight": "vector", "tol": "real",
                 "max_iter": "int"}, optional=("sample_weight",)),
        fn_call(R.brute_force_batch_qp, dict(w_t=w, X=X, y=y, C=1.0, sample_weight=sw, tol=1e-9),
                {**batch, "w_t": "vector", "C": "real", "sample_weight": "vector", "tol": "real"},
                optional=("sample_weight",)),
        fn_call(ST.balanced_rounds, dict(groups=[[0, 1], [2]], n_rounds=5, seed=1),
                dict(groups="labels_ragged", n_rounds="int", seed="int"), free=("n_rounds", "groups"),
                expect={("groups", k): FREE for k in ("shorter", "longer", "short_row", "long_row", "entry_huge_int",
                                                      "flat")}),
        fn_call(ST.balanced_pairs, dict(y=y, n_rounds=5, seed=1), dict(y="labels_scalar", n_rounds="int", seed="int"),
                free=("n_rounds", "y"), expect={("y", "shorter"): FREE, ("y", "longer"): FREE}),
    ]
    # the learners: every method, X and labels fuzzed, and the parameters through fit
    Xc = _grid((6, 3), 17)
    specs = [
        (PL.PairedPA, dict(rule="auc", C=1.0, tol=1e-10, max_iter=100), np.array([1, -1, 1, -1, 1, -1])),
        (PL.CalibratedPA, dict(n_classes=3, rule="correct_mistakes", C=1.0, tol=1e-10, max_iter=100),
         np.array([0, 1, 2, 0, 1, 2])),
        (PL.CalibratedMultilabelPA, dict(n_labels=2, rule="dca", C=2.0, tol=1e-8, max_iter=100),
         np.array([[1, 0], [0, 1], [1, 1], [1, 0], [0, 1], [0, 0]])),
    ]
    pkinds = {"rule": "choice", "C": "real", "tol": "real", "max_iter": "int", "n_classes": "int", "n_labels": "int"}
    for cls, params, Y in specs:
        key = f"{cls.__module__}.{cls.__qualname__}"
        ykind = "labels_vector" if Y.ndim == 2 else "labels_scalar"
        fitted = cls(**params).fit(Xc, Y, n_rounds=8, seed=1)
        base = f"pa.{cls.__name__}"
        calls.append(Call(f"{base}/parameters",
                          lambda c=cls, Y=Y, **kw: c(**kw).fit(Xc, Y, n_rounds=4).decision_function(Xc),
                          params, {k: pkinds[k] for k in params}, covers=(key,), group=base))
        calls.append(Call(f"{base}/fit", lambda c=cls, p=params, **kw: c(**p).fit(**kw).decision_function(Xc),
                          dict(X=Xc, y=Y, n_rounds=4, seed=2) if cls is PL.PairedPA else
                          dict(X=Xc, Y=Y, n_rounds=4, seed=2),
                          {"X": "matrix", ("y" if cls is PL.PairedPA else "Y"): ykind, "n_rounds": "int",
                           "seed": "int"},
                          optional=("n_rounds",), expect={("X", "zero_rows"): REFUSE}, covers=(f"{key}.fit",),
                          group=base))
        ylab = "y" if cls is PL.PairedPA else "Y"
        batch = (Xc[:2], Y[:2]) if cls is PL.PairedPA else (Xc[:3], Y[:3])
        calls.append(Call(f"{base}/partial_fit",
                          lambda f=fitted, **kw: copy.deepcopy(f).partial_fit(**kw).decision_function(Xc),
                          {"X": batch[0], ylab: batch[1]}, {"X": "matrix", ylab: ykind},
                          expect={("X", "zero_rows"): REFUSE, ("X", "extra_feature"): REFUSE},
                          covers=(f"{key}.partial_fit",), group=base))
        for method in ("predict", "decision_function"):
            calls.append(Call(f"{base}/{method}", lambda f=fitted, m=method, **kw: getattr(f, m)(**kw),
                              {"X": Xc}, {"X": "matrix"}, n=6, expect={"extra_feature": REFUSE},
                              covers=(f"{key}.{method}",), group=base))
        for method in ("score", "mean_loss"):
            calls.append(Call(f"{base}/{method}", lambda f=fitted, m=method, **kw: getattr(f, m)(**kw),
                              {"X": Xc, ylab: Y}, {"X": "matrix", ylab: ykind},
                              expect={"extra_feature": REFUSE, "zero_rows": REFUSE, "empty": REFUSE},
                              covers=(f"{key}.{method}",), group=base))
    return calls


def _estimator_calls(base, key, fitted, make, X, Y, ykind, ylab="Y", fit_extra=None, pkinds=None, params=None,
                     xkind="matrix", fit_free=()):
    """fit / partial_fit / predict / decision_function / score / mean_loss of an estimator, and its parameters."""
    n = len(X)
    calls = []
    if params:
        calls.append(Call(f"{base}/parameters", lambda **kw: type(make())(**kw).fit(X, Y).decision_function(X),
                          params, {k: pkinds[k] for k in params}, covers=(key,), group=base))
    fit_kwargs = {"X": X, ylab: Y, **(fit_extra or {})}
    fit_kinds = {"X": xkind, ylab: ykind, **{k: "int" for k in (fit_extra or {})}}

    def positional(method, **kw):  # the labels positionally: Estimator.fit names them Y, PRank documents y
        return method(kw.pop("X"), kw.pop(ylab), **kw)

    calls.append(Call(f"{base}/fit", lambda **kw: positional(make().fit, **kw).decision_function(X), fit_kwargs,
                      fit_kinds,
                      expect={("X", "zero_rows"): REFUSE, (ylab, "empty"): REFUSE}, covers=(key, f"{key}.fit"),
                      group=base, free=fit_free))
    if hasattr(fitted, "partial_fit"):
        calls.append(Call(f"{base}/partial_fit",
                          lambda **kw: positional(copy.deepcopy(fitted).partial_fit, **kw).decision_function(X),
                          {"X": X, ylab: Y}, {"X": xkind, ylab: ykind},
                          expect={("X", "zero_rows"): EITHER, ("X", "extra_feature"): REFUSE},
                          covers=(f"{key}.partial_fit",), group=base))
    for method in ("predict", "decision_function"):
        calls.append(Call(f"{base}/{method}", lambda m=method, **kw: getattr(fitted, m)(**kw), {"X": X}, {"X": xkind},
                          n=n, expect={"extra_feature": REFUSE}, covers=(f"{key}.{method}",), group=base))
    for method in ("score", "mean_loss"):
        if hasattr(fitted, method):
            calls.append(Call(f"{base}/{method}", lambda m=method, **kw: positional(getattr(fitted, m), **kw),
                              {"X": X, ylab: Y}, {"X": xkind, ylab: ykind},
                              expect={"extra_feature": REFUSE, "zero_rows": REFUSE, (ylab, "empty"): REFUSE},
                              covers=(f"{key}.{method}",), group=base))
    return calls


def baseline_calls():
    from predtron.baselines import mmp as MM
    from predtron.baselines import prank as PR

    X = _grid((6, 3), 18)
    levels = np.array([0, 2, 1, 1, 0, 2])
    Ym = np.array([[1, 0, 0], [0, 1, 1], [1, 1, 0], [0, 0, 1], [1, 0, 1], [0, 1, 0]])
    prank = PR.PRank(3).fit(X, levels, epochs=2)
    mmp = MM.MMP(3, "error_set_size").fit(X, Ym, epochs=2)
    t = _grid((3,), 19)
    W = _grid((3, 3), 20)
    calls = _estimator_calls("baselines.PRank", "predtron.baselines.prank.PRank", prank, lambda: PR.PRank(3), X,
                             levels, "labels_scalar", ylab="y", fit_extra={"epochs": 2},
                             params={"n_levels": 3}, pkinds={"n_levels": "int"})
    calls += _estimator_calls("baselines.MMP", "predtron.baselines.mmp.MMP", mmp, lambda: MM.MMP(3, "error_set_size"),
                              X, Ym, "labels_vector", fit_extra={"epochs": 2},
                              params={"n_labels": 3, "loss": "is_error"}, pkinds={"n_labels": "int", "loss": "choice"})
    w_star, thresholds = np.array([0.5, -0.25, 0.0]), np.array([-0.5, 0.5])
    calls += [
        fn_call(MM.error_set, dict(t=t, y=Ym[1]), dict(t="vector", y="label_vector")),
        fn_call(MM.max_loss, dict(n_labels=5, loss="error_set_size"), dict(n_labels="int", loss="choice")),
        fn_call(MM.mmp_bound, dict(R=2.0, gamma=0.25, n_labels=5, loss="is_error"),
                dict(R="real", gamma="real", n_labels="int", loss="choice")),
        fn_call(MM.mmp_loss, dict(t=t, y=Ym[1], loss="error_set_size"), dict(t="vector", y="label_vector",
                                                                              loss="choice")),
        fn_call(MM.mmp_margin, dict(W=W, X=X, Y=Ym), dict(W="matrix", X="matrix", Y="labels_vector"), nonfinite=True),
        fn_call(MM.ranking_from_scores, dict(t=t), dict(t="vector"), free=("t",)),
        fn_call(PR.prank_bound, dict(R=2.0, gamma=0.25, n_levels=3), dict(R="real", gamma="real", n_levels="int")),
        fn_call(PR.rank_margin, dict(w=w_star, thresholds=thresholds, X=X, y=levels),
                dict(w="vector", thresholds="vector", X="matrix", y="labels_scalar")),
        fn_call(PR.multiclass_target, dict(w=w_star, thresholds=thresholds, bias=1.0),
                dict(w="vector", thresholds="vector", bias="real"), free=("thresholds", "w")),
        fn_call(PR.make_ranked_data, dict(n_samples=20, n_features=3, n_levels=3, gap=0.05, noise=0.0, bias=1.0,
                                          seed=1),
                dict(n_samples="size", n_features="size", n_levels="int", gap="real", noise="real", bias="real",
                     seed="int"), post=lambda d: (d.X, d.y), free=("n_samples", "n_features", "n_levels")),
    ]
    return calls


def reduction_calls():
    from predtron.reductions import AllPairs, OneVsAll

    X = _grid((9, 3), 21)
    Y = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2])

    def factory():
        return Predtron(P.Binary())

    calls = []
    for cls, extra in ((OneVsAll, {}), (AllPairs, {"vote": "score"})):
        key = f"{cls.__module__}.{cls.__qualname__}"
        fitted = cls(factory, {"epochs": 2}, **extra).fit(X, Y)
        base = f"reductions.{cls.__name__}"
        params = {"factory": factory, "fit_params": {"epochs": 2}, **extra}
        calls += _estimator_calls(base, key, fitted, lambda c=cls, e=extra: c(factory, {"epochs": 2}, **e), X, Y,
                                  "labels_scalar", params=params,
                                  pkinds={"factory": "callable", "fit_params": "any", "vote": "choice"})
    for call in calls:
        if call.id.endswith(("/fit", "/score", "/mean_loss")):
            # classes may be any values (as in scikit-learn): Python and NumPy booleans, strings,
            # floats and out-of-range integers are classes like any other
            call.expect.update({("Y", k): EITHER for k in ("py_bools", "np_bools", "bool_element", "strings",
                                                           "fractions", "element_huge_int", "element_big_int",
                                                           "element_negative", "element_fraction",
                                                           "element_string")})
            call.free = ("Y",) if call.id.endswith("/fit") else ()
            call.any_classes = ("Y",)
    return calls


def problem_extra_calls():
    """Constructors, enumeration and helpers of the problems, and the problems' module functions."""
    from predtron.problems import base as PB
    from predtron.problems import binary as BI
    from predtron.problems import bipartite as BP
    from predtron.problems import chain as CH
    from predtron.problems import general as GE
    from predtron.problems import psi as PS
    from predtron.problems import ranking_grades as RG
    from predtron.problems import ranking_losses as RL
    from predtron.problems import ranking_margin as RM
    from predtron.problems import ranking_measures as RS

    L3 = np.array([[0.0, 1, 2], [1, 0, 1], [2, 2, 0]])
    reps = _grid((3, 4), 3)

    def probe(p):
        return p._rep(p.pred_default()) if not isinstance(p, P.SubsetRanking) else p.rep([1, 0, 2])

    ctor = [
        (P.Binary, dict(cost_pos=2.0, cost_neg=0.5), dict(cost_pos="real", cost_neg="real")),
        (P.BinaryReject, dict(reject_cost_pos=0.4, reject_cost_neg=0.3),
         dict(reject_cost_pos="real", reject_cost_neg="real")),
        (P.Multiclass, dict(n_classes=3, loss=L3), dict(n_classes="size", loss="matrix")),
        (P.Ordinal, dict(n_levels=4), dict(n_levels="size")),
        (P.General, dict(loss_matrix=L3, reps=reps), dict(loss_matrix="matrix", reps="matrix")),
        (P.Multilabel, dict(n_labels=4, loss="fbeta", normalize=False, beta=2.0),
         dict(n_labels="size", loss="choice", normalize="bool", beta="real")),
        (P.Multilabel, dict(n_labels=4, loss="recall@k", k=2), dict(k="int")),
        (P.MultilabelRanking, dict(n_labels=4, f="inverse", loss="ndcg", k=3, gain="linear", oracle="auto", y_max=2),
         dict(n_labels="size", f="choice", loss="choice", k="int", gain="choice", oracle="choice", y_max="int")),
        (P.SubsetRanking, dict(f="square", loss="precision", k=2, gain="exponential", oracle="assignment"),
         dict(f="choice", loss="choice", k="int", gain="choice", oracle="choice")),
        (P.Chain, dict(n_letters=3, length=4), dict(n_letters="size", length="size")),
        (P.JointMulticlass, dict(feature_map=P.MultivectorMap(3), loss=L3), dict(feature_map="object", loss="matrix")),
    ]
    calls = []
    for cls, kwargs, kinds in ctor:
        key = f"{cls.__module__}.{cls.__qualname__}"
        optional = tuple(k for k in ("loss", "k", "f") if k in kwargs)
        calls.append(Call(f"problems.{cls.__name__}/init-{'-'.join(kinds)}", lambda c=cls, **kw: probe(c(**kw)),
                          kwargs, kinds, covers=(key,), group="problems.init", optional=optional,
                          free=tuple(kinds), expect={("loss", "one_row"): REFUSE}))
    # enumeration and constants of every problem (guarded against huge spaces)
    for pname, (problem, data) in problem_cases().items():
        key = f"{type(problem).__module__}.{type(problem).__qualname__}"
        lk = f"label_{data['structure']}"
        small = pname not in ("SubsetRanking",)
        methods = {
            "predictions": (lambda p=problem, **kw: list(p.predictions(**kw))[:50], {"y": data["y"]}, {"y": lk}),
            "n_predictions": (lambda p=problem, **kw: (lambda n: -1 if n is None else n)(p.n_predictions(**kw)),
                              {"y": data["y"]}, {"y": lk}),
            "same": (lambda p=problem, **kw: p.same(**kw), {"a": data["sigma"], "b": data["sigma"]}, {}),
            "stack": (lambda p=problem, **kw: p.stack(**kw), {"predictions": [data["sigma"]] * 2}, {}),
            "random_label": (lambda p=problem, **kw: p.random_label(**kw), {"rng": np.random.default_rng(1)},
                             {"rng": "object"}),
        }
        if small:
            methods.update({
                "labels": (lambda p=problem: list(p.labels())[:50], {}, {}),
                "n_labels_space": (lambda p=problem: p.n_labels_space(), {}, {}),
                "loss_matrix": (lambda p=problem: p.loss_matrix(), {}, {}),
                "c_L": (lambda p=problem: p.c_L, {}, {}),
                "C_L": (lambda p=problem: p.C_L, {}, {}),
                "pred_default": (lambda p=problem: p.pred_default(), {}, {}),
                "check_labels": (lambda p=problem, d=data, **kw: p.check_labels(kw["Y"], p.scoring.prepare(d["X"])),
                                 {"Y": data["Y"]}, {"Y": data["ykind"]}),
            })
        for method, (fn, kwargs, kinds) in methods.items():
            calls.append(Call(f"{pname}/{method}", fn, kwargs, kinds, covers=(f"{key}.{method}",),
                              names={"y": ("y", "label"), "Y": ("Y",)}, optional=("y", "rng"),
                              nonfinite=method in ("c_L",), free=("y",)))
    ranking, rdata = problem_cases()["SubsetRanking"]
    mlr = problem_cases()["MultilabelRanking"][0]
    chain, cdata = problem_cases()["Chain"]
    joint, jdata = problem_cases()["JointMulticlass"]
    y3 = np.array([2, 0, 1])
    y_mlr = np.array([2, 0, 1, 1])
    for rp, rkey in ((ranking, "predtron.problems.subset_ranking.SubsetRanking"),
                     (mlr, "predtron.problems.multilabel_ranking.MultilabelRanking")):
        y = y3 if rp is ranking else y_mlr
        lk = "label_ragged" if rp is ranking else "label_vector"
        name = type(rp).__name__
        calls += [
            Call(f"{name}/sort_exact", lambda p=rp, **kw: p.sort_exact(**kw), {"m": 4}, {"m": "size"},
                 covers=(f"{rkey}.sort_exact",), group=f"{name}-extra"),
            Call(f"{name}/zero_loss_pattern", lambda p=rp, **kw: p.zero_loss_pattern(**kw), {"y": y}, {"y": lk},
                 covers=(f"{rkey}.zero_loss_pattern",), group=f"{name}-extra", free=("y",),
                 names={"y": ("y", "label")}),
            Call(f"{name}/separating_scores", lambda p=rp, **kw: p.separating_scores(**kw),
                 {"y": y, "margin": 0.5, "jitter": 0.1, "rng": np.random.default_rng(0)},
                 {"y": lk, "margin": "real", "jitter": "real", "rng": "object"}, optional=("rng",),
                 covers=(f"{rkey}.separating_scores",), group=f"{name}-extra", free=("y",),
                 names={"y": ("y", "label")}),
            Call(f"{name}/label_loss_range", lambda p=rp, **kw: p.label_loss_range(**kw), {"y": y}, {"y": lk},
                 covers=(f"{rkey}.label_loss_range",), group=f"{name}-extra", nonfinite=True,
                 names={"y": ("y", "label")}),
            Call(f"{name}/loss_bounds_for", lambda p=rp, **kw: p.loss_bounds_for(**kw), {"Y": [y, y]},
                 {"Y": "labels_ragged" if rp is ranking else "labels_vector"},
                 covers=(f"{rkey}.loss_bounds_for",), group=f"{name}-extra", free=("Y",),
                 expect={("Y", k): FREE for k in ("shorter", "longer", "short_row", "long_row", "flat")}),
            Call(f"{name}/loss_bounds", lambda p=rp, **kw: p.loss_bounds(**kw), {"m": 3, "y_max": 2},
                 {"m": "size", "y_max": "size"}, covers=(f"{rkey}.loss_bounds",), group=f"{name}-extra"),
        ]
    calls += [
        Call("SubsetRanking/check_pair", lambda **kw: ranking.check_pair(**kw),
             {"x": rdata["X"][0], "y": y3, "i": 0}, {"x": "matrix", "y": "label_ragged", "i": "int"},
             names={"y": ("y", "label"), "x": ("x",)},
             covers=("predtron.problems.subset_ranking.SubsetRanking.check_pair",), group="SubsetRanking-extra"),
        Call("SubsetRanking/random_label2", lambda **kw: ranking.random_label(**kw),
             {"rng": np.random.default_rng(0), "n_items": 4, "y_max": 2},
             {"rng": "object", "n_items": "size", "y_max": "size"}, free=("n_items",), optional=("n_items",),
             covers=("predtron.problems.subset_ranking.SubsetRanking.random_label",), group="SubsetRanking-extra"),
        Call("Chain/score_sequence", lambda **kw: chain.score_sequence(**kw),
             {"t": cdata["t"], "sigma": cdata["sigma"]},
             {"t": "vector", "sigma": "label_vector"}, covers=("predtron.problems.chain.Chain.score_sequence",),
             group="Chain-extra"),
        Call("General/n_labels", lambda: problem_cases()["General"][0].n_labels, {}, {},
             covers=("predtron.problems.general.General.n_labels",), group="General-extra"),
        Call("JointMulticlass/generalized_hinge", lambda **kw: joint.generalized_hinge(**kw),
             {"w": _grid((9,), 22), "x": jdata["X"][0], "y": 1}, {"w": "vector", "x": "vector", "y": "label_scalar"},
             covers=("predtron.problems.joint.JointMulticlass.generalized_hinge",), group="Chain-extra",
             names={"y": ("y", "label")}),
    ]
    # module functions
    t = _grid((5,), 23)
    fv = np.array([1.0, 0.875, 0.625, 0.5, 0.25])
    allowed = RS.RankingLoss().allowed(np.array([2, 1, 1, 0, 0]))
    blocks = [np.array([0]), np.array([1, 2]), np.array([3, 4])]
    emission, transition = _grid((3, 2), 24), _grid((2, 2, 2), 25)
    calls += [
        fn_call(BI.check_pm1_labels, dict(Y=[1, -1, 1], n=3, name="Y"), dict(Y="labels_scalar", n="int"),
                names={"n": ("n", "inputs")}),
        fn_call(PB.first_argmax, dict(values=t), dict(values="vector")),
        fn_call(PB.first_argmax_rows, dict(values=_grid((3, 4), 26)), dict(values="matrix"), n=3,
                expect={"extra_feature": EITHER}),
        fn_call(GE.check_loss_matrix, dict(loss_matrix=L3, name="loss_matrix"), dict(loss_matrix="matrix"),
                free=("loss_matrix",)),
        fn_call(GE.check_reps, dict(reps=reps, k=3, name="reps"), dict(reps="matrix", k="int"), free=("reps",)),
        fn_call(CH.viterbi, dict(emission=emission, transition=transition),
                dict(emission="matrix", transition="any"), free=("emission", "transition"),
                names={"emission": ("emission", "transition")}),
        fn_call(RM.lemma4_margin, dict(t=t, y=np.array([2, 1, 1, 0, 0]), f="linear"),
                dict(t="vector", y="label_ragged", f="choice"), nonfinite=True),
        fn_call(RM.best_with_forced_pair, dict(t=t, fvals=fv), dict(t="vector", fvals="vector")),
        fn_call(RM.pattern_margin, dict(t=t, allowed=allowed, fvals=fv), dict(t="vector", allowed="matrix",
                                                                               fvals="vector"), nonfinite=True,
                free=("allowed",), names={"t": ("t", "allowed", "fvals"), "fvals": ("fvals", "t")}),
        fn_call(RM.block_structure, dict(allowed=allowed), dict(allowed="matrix"), free=("allowed",),
                post=lambda b: None if b is None else [x.tolist() for x in b]),
        fn_call(RM.block_margin, dict(t=t, blocks=blocks, fvals=fv), dict(t="vector", blocks="labels_ragged",
                                                                           fvals="vector"), nonfinite=True,
                expect={("blocks", "flat"): REFUSE}, names={"t": ("t", "fvals"), "fvals": ("fvals", "t")}),
        fn_call(RS.discount, dict(positions=np.arange(1, 6)), dict(positions="vector"), free=("positions",)),
        fn_call(RS.gain, dict(y=np.array([2, 0, 1]), kind="linear"), dict(y="vector", kind="choice"),
                free=("y",)),
        fn_call(RS.position_values, dict(f="power1.1", m=5), dict(f="choice", m="size"), free=("m",)),
        fn_call(RS.sort_positions, dict(t=t), dict(t="vector"), free=("t",)),
        fn_call(RS.assignment_argmax, dict(profit=_grid((4, 4), 27)), dict(profit="matrix"), free=("profit",)),
        fn_call(RS.check_relevance, dict(y=np.array([2, 0, 1]), name="y", length=3, y_max=2),
                dict(y="label_ragged", length="int", y_max="int"), optional=("length", "y_max"), free=("y",)),
        fn_call(RL.kendall_tau_loss, dict(y_pred=t, y=np.array([2, 0, 1, 1, 0])),
                dict(y_pred="vector", y="vector")),
        fn_call(RL.kendall_tau_hinge, dict(scores=t, y=np.array([2, 0, 1, 1, 0])),
                dict(scores="vector", y="vector")),
        fn_call(RL.kendall_tau_hinge_gradient, dict(scores=t, y=np.array([2, 0, 1, 1, 0])),
                dict(scores="vector", y="vector")),
        fn_call(RL.topk_discount, dict(r=5, k=3), dict(r="size", k="int"), free=("r",)),
        fn_call(RL.check_permutation, dict(sigma=np.array([2, 0, 1]), r=3), dict(sigma="label_vector", r="int")),
        fn_call(RL.ndcg_topk_loss, dict(sigma=np.array([2, 0, 1, 4, 3]), y=np.array([2, 0, 1, 1, 0]), k=3),
                dict(sigma="label_vector", y="vector", k="int")),
        fn_call(RL.ndcg_hinge_argmax, dict(scores=t, y=np.array([2, 0, 1, 1, 0]), k=3),
                dict(scores="vector", y="vector", k="int")),
        fn_call(RL.ndcg_hinge, dict(scores=t, y=np.array([2, 0, 1, 1, 0]), k=3),
                dict(scores="vector", y="vector", k="int")),
        fn_call(RL.ndcg_hinge_gradient, dict(scores=t, y=np.array([2, 0, 1, 1, 0]), k=3),
                dict(scores="vector", y="vector", k="int")),
        fn_call(RL.brute_force_kendall_tau, dict(y_pred=t, y=np.array([2, 0, 1, 1, 0])),
                dict(y_pred="vector", y="vector")),
        fn_call(RL.brute_force_ndcg_hinge, dict(scores=t, y=np.array([2, 0, 1, 1, 0]), k=3),
                dict(scores="vector", y="vector", k="int")),
        fn_call(RG.grades_argmax, dict(t=t, w=np.array([0.5, 0.0, 0.25, 0.25, 0.0]), fvals=fv,
                                       b=np.linspace(1.0, 0.5, 5), width=2, max_passes=5, max_states=500),
                dict(t="vector", w="vector", fvals="vector", b="vector", width="int", max_passes="int",
                     max_states="int"), optional=("width",)),
        fn_call(RG.band_states, dict(G=3, W=2), dict(G="size", W="size"), free=("G", "W")),
        fn_call(RG.choose_method, dict(m=50, G=3), dict(m="size", G="size")),
        fn_call(RG.default_width, dict(G=3), dict(G="size")),
        fn_call(RG.oracle_costs, dict(m=50, G=3), dict(m="size", G="size"), nonfinite=True),
        fn_call(RG.smallest_grades_size, {}, {}),
        Call("problems.BipartiteMeasure/init", lambda **kw: BP.BipartiteMeasure(**kw).loss_values(),
             dict(name="fbeta", n_labels=4, beta=2.0, k=None), dict(name="choice", n_labels="size", beta="real"),
             covers=("predtron.problems.bipartite.BipartiteMeasure",), group="problems.bipartite", free=("n_labels",)),
        Call("problems.RankingLoss/init", lambda **kw: RS.RankingLoss(**kw).position_weights(4),
             dict(name="ndcg", k=3, gain="linear"), dict(name="choice", k="int", gain="choice"), optional=("k",),
             names={"name": ("name", "loss")},
             covers=("predtron.problems.ranking_measures.RankingLoss",), group="problems.measures"),
    ]
    loss = RS.RankingLoss("ndcg", 3)
    v = loss.item_values(np.array([2, 0, 1]))
    for method, kwargs, kinds in (
            ("item_values", {"y": np.array([2, 0, 1])}, {"y": "label_ragged"}),
            ("position_weights", {"m": 4}, {"m": "size"}),
            ("ideal", {"v": v, "b": np.array([1.0, 0.625, 0.5])}, {"v": "vector", "b": "vector"}),
            ("value", {"sigma": np.array([2, 0, 1]), "y": np.array([2, 0, 1])},
             {"sigma": "label_vector", "y": "label_ragged"}),
            ("allowed", {"y": np.array([2, 0, 1])}, {"y": "label_ragged"})):
        calls.append(Call(f"problems.RankingLoss/{method}", lambda _meth=method, **kw: getattr(loss, _meth)(**kw),
                          kwargs, kinds, covers=(f"predtron.problems.ranking_measures.RankingLoss.{method}",),
                          group="problems.measures", free=tuple(kinds)))
    # feature maps
    mv = P.MultivectorMap(3)
    tf = P.TfidfMap(3, "occurrences", 1.0).fit(np.abs(_grid((6, 4), 28)), [0, 1, 2, 0, 1, 2])
    cm = P.CallableMap(lambda x, y: np.r_[x, float(y)], 3)
    x4 = np.abs(_grid((4,), 29))
    for fm, name in ((mv, "MultivectorMap"), (tf, "TfidfMap"), (cm, "CallableMap")):
        key = f"predtron.problems.psi.{name}"
        calls.append(Call(f"problems.{name}/call", lambda f=fm, **kw: f(**kw), {"x": x4, "y": 1},
                          {"x": "vector", "y": "label_scalar"}, covers=(key,), group="problems.psi",
                          free=("x",), names={"y": ("y",), "x": ("x",)},
                          expect={("x", "scalar"): EITHER} if name == "CallableMap" else {}))
    calls += [
        Call("problems.MultivectorMap/init", lambda **kw: PS.MultivectorMap(**kw).matrix(x4), {"n_classes": 3},
             {"n_classes": "size"}, covers=("predtron.problems.psi.MultivectorMap",), group="problems.psi",
             free=("n_classes",)),
        Call("problems.TfidfMap/init", lambda **kw: PS.TfidfMap(**kw).fit(np.abs(_grid((6, 4), 28)),
                                                                          [0, 1, 2, 0, 1, 2]).idf_,
             {"n_classes": 3, "count": "documents", "smoothing": 0.5},
             {"n_classes": "size", "count": "choice", "smoothing": "real"}, covers=("predtron.problems.psi.TfidfMap",),
             group="problems.psi", free=("n_classes",)),
        Call("problems.TfidfMap/fit", lambda **kw: PS.TfidfMap(3).fit(**kw).idf_,
             {"X": np.abs(_grid((6, 4), 28)), "Y": [0, 1, 2, 0, 1, 2]}, {"X": "matrix", "Y": "labels_scalar"},
             covers=("predtron.problems.psi.TfidfMap.fit",), group="problems.psi", free=("X",),
             expect={("X", "zero_rows"): REFUSE}),
        Call("problems.CallableMap/init", lambda **kw: PS.CallableMap(**kw).matrix(x4),
             {"psi": lambda x, y: np.r_[x, float(y)], "n_classes": 3}, {"psi": "callable", "n_classes": "size"},
             covers=("predtron.problems.psi.CallableMap",), group="problems.psi", free=("n_classes",)),
        Call("problems.JointScoring/init", lambda **kw: PS.JointScoring(**kw).init_params(4),
             {"feature_map": mv}, {"feature_map": "object"}, covers=("predtron.problems.psi.JointScoring",),
             group="problems.psi"),
        Call("problems.JointScoring/prepare", lambda **kw: PS.JointScoring(mv).prepare(**kw).n,
             {"X": _grid((5, 4), 30)}, {"X": "matrix"}, group="problems.psi", free=("X",)),
        Call("problems.ChainScoring/init", lambda **kw: CH.ChainScoring(**kw).init_params(3),
             {"n_letters": 3, "length": 2}, {"n_letters": "size", "length": "size"},
             covers=("predtron.problems.chain.ChainScoring",), group="problems.chain", free=("n_letters", "length")),
        Call("problems.ChainScoring/prepare", lambda **kw: chain.scoring.prepare(**kw).n,
             {"X": cdata["X"]}, {"X": "queries"}, group="problems.chain", free=("X",)),
    ]
    return calls


SVMLIGHT = b"1 1:0.5 3:1.25\n0 2:0.75\n1 1:1 2:2 3:3\n"
LETOR = b"2 qid:1 1:0.5 2:0.25 #docid = a\n0 qid:1 1:1 2:0\n1 qid:2 1:0.25 2:1 #docid = c\n"
ARFF = (b"@relation r\n@attribute f1 numeric\n@attribute f2 numeric\n@attribute l1 {0,1}\n@attribute l2 {0,1}\n"
        b"@data\n0.5,0.25,1,0\n1.0,0.0,0,1\n")
GROUPS = b"2\n1\n"
XML = b"<labels xmlns='http://mulan.sourceforge.net/labels'><label name='l1'/><label name='l2'/></labels>"


def data_calls():
    from fuzz_values import write_file

    from predtron.data import generators as G
    from predtron.data import layout as LA
    from predtron.data import letor as LE
    from predtron.data import mulan as MU
    from predtron.data import ranking as RA
    from predtron.data import sequences as SE
    from predtron.data import shipped as SH
    from predtron.data import svmlight as SV

    svm = write_file("valid.svm", SVMLIGHT)
    letor = write_file("valid.letor", LETOR)
    plain = write_file("plain.svm", SVMLIGHT)
    groups = write_file("plain.svm.query", GROUPS)
    arff = write_file("valid.arff", ARFF)
    xml = write_file("valid.xml", XML)
    problem = P.Multiclass(3)
    ranking = P.SubsetRanking()
    X, y, qid, group = flat_ranking()
    Xs, Ys = problem_cases()["SubsetRanking"][1]["X"], problem_cases()["SubsetRanking"][1]["Y"]
    opt = ("n_features", "max_features", "group", "group_file", "xml", "n_labels", "data_home")
    return [
        fn_call(SV.load_svmlight, dict(path=svm, n_features=4, sparse=False, zero_based=False, max_features=100),
                dict(path="file_svmlight", n_features="size", sparse="bool", zero_based="bool",
                     max_features="size"), post=lambda d: (d.X, d.y), optional=opt, free=("n_features", "sparse",
                                                                                         "zero_based", "path")),
        fn_call(SV.check_flag, dict(value=True, name="sparse"), dict(value="bool"), names={"value": ("sparse",)}),
        fn_call(LE.load_letor, dict(path=letor, n_features=3, sparse=True, zero_based=False, max_features=50),
                dict(path="file_letor", n_features="size", sparse="bool", zero_based="bool", max_features="size"),
                post=lambda d: (d.X, d.y, d.qid, d.group), optional=opt,
                free=("n_features", "sparse", "zero_based", "path")),
        fn_call(LE.load_letor, dict(path=plain, group=[2, 1]), dict(group="group"), id="data.letor.load_letor-group",
                post=lambda d: (d.X, d.group), optional=opt),
        fn_call(LE.load_letor, dict(path=plain, group_file=groups), dict(group_file="file_group"),
                id="data.letor.load_letor-group_file", post=lambda d: (d.X, d.group), optional=opt,
                names={"group_file": ("group_file", "group")}),
        fn_call(LE.read_group_file, dict(path=groups, n_rows=3), dict(path="file_group", n_rows="size"),
                optional=("n_rows",), free=("path",)),
        fn_call(LE.find_sidecar, dict(path=plain), dict(path="any"), post=lambda p: str(p),
                expect={("path", "string"): FREE, ("path", "bytes"): FREE}),
        fn_call(MU.load_arff, dict(path=arff, n_labels=2, xml=xml, sparse=False, missing=0.0),
                dict(path="file_arff", n_labels="size", xml="file_xml", sparse="bool", missing="real"),
                post=lambda d: (d.X, d.Y), optional=opt, free=("sparse", "path", "xml"),
                expect={("path", "line_missing_value"): EITHER}),
        fn_call(MU.read_mulan_xml, dict(path=xml), dict(path="file_xml"), free=("path",)),
        fn_call(SH.get_data_home, dict(data_home=None), dict(data_home="any"), post=str, optional=("data_home",),
                free=("data_home",), expect={("data_home", "string"): FREE}),
        fn_call(SH.shipped_file, dict(relative="mulan-emotions/emotions-test.arff.gz", data_home=None),
                dict(relative="choice", data_home="any"), post=str, optional=("data_home",),
                paths=("data_home", "relative")),
        fn_call(SH.load_mq2008, dict(split="test", sparse=True, data_home=None),
                dict(split="choice", sparse="bool", data_home="any"), post=lambda d: d.y[:3], optional=("data_home",),
                free=("sparse", "split"), paths=("data_home",)),
        fn_call(SH.load_emotions, dict(split="test", sparse=False, data_home=None),
                dict(split="choice", sparse="bool", data_home="any"), post=lambda d: d.Y[:3], optional=("data_home",),
                free=("sparse", "split"), paths=("data_home",)),
        fn_call(SH.load_bibtex, dict(split="test", sparse=True, data_home=None),
                dict(split="choice", sparse="bool", data_home="any"), post=lambda d: d.Y[:3], optional=("data_home",),
                free=("sparse", "split"), paths=("data_home",)),
        fn_call(G.make_separable, dict(problem=problem, n_samples=6, n_features=3, margin=0.05, radius=1.0, seed=1,
                                       max_draws=2000),
                dict(problem="object", n_samples="size", n_features="size", margin="real", radius="real",
                     seed="int", max_draws="int"), post=lambda d: (d.X, d.margin),
                free=("n_samples", "n_features", "problem", "margin", "radius", "seed", "max_draws")),
        fn_call(G.make_noisy, dict(problem=problem, n_samples=6, n_features=3, noise=0.5, seed=1),
                dict(problem="object", n_samples="size", n_features="size", noise="real", seed="int"),
                post=lambda d: d[0], free=("n_samples", "n_features", "problem", "noise", "seed")),
        fn_call(RA.make_separable_ranking, dict(problem=ranking, n_samples=4, n_features=3, margin=0.05,
                                                n_items=(2, 4), y_max=2, noise=1.0, jitter=0.5, seed=1, max_tries=50),
                dict(problem="object", n_samples="size", n_features="size", margin="real", n_items="any",
                     y_max="int", noise="real", jitter="real", seed="int", max_tries="int"),
                post=lambda d: (d.X, d.margin), free=("n_samples", "n_features", "problem", "margin", "n_items",
                                                      "y_max", "noise", "jitter", "seed", "max_tries")),
        fn_call(RA.make_figure1_ranking, dict(n_samples=3, n_items=5, n_features=6, noise=1e-3, sparsity=2, seed=1,
                                              shuffle=True),
                dict(n_samples="size", n_items="size", n_features="size", noise="real", sparsity="int", seed="int",
                     shuffle="bool"), post=lambda d: d.X, optional=("sparsity",),
                free=("n_samples", "n_items", "n_features", "noise", "sparsity", "seed", "shuffle")),
        fn_call(RA.figure1_thresholds, dict(n_items=5), dict(n_items="size"), free=("n_items",), nonfinite=True),
        fn_call(RA.figure1_centres, dict(n_items=5), dict(n_items="size"), free=("n_items",)),
        fn_call(RA.figure1_labels, dict(scores=_grid((5,), 31), n_items=5), dict(scores="vector", n_items="size"),
                free=("scores",)),
        fn_call(RA.figure1_sparse_target, dict(n_features=6, sparsity=2, norm=0.5, rng=np.random.default_rng(0)),
                dict(n_features="size", sparsity="int", norm="real", rng="object"), optional=("rng",),
                free=("n_features",)),
        fn_call(SE.make_sequences, dict(n_samples=3, length=4, n_letters=3, n_pixels=5, noise=0.5, stickiness=5.0,
                                        seed=1),
                dict(n_samples="size", length="size", n_letters="size", n_pixels="size", noise="real",
                     stickiness="real", seed="int"), post=lambda d: d.X,
                free=("n_samples", "length", "n_letters", "n_pixels", "noise", "stickiness", "seed")),
        fn_call(LA.check_group_sizes, dict(group=group, n_rows=len(X), name="group"), dict(group="group",
                                                                                          n_rows="size"),
                optional=("n_rows",), names={"n_rows": ("n_rows", "rows")}),
        fn_call(LA.split_queries, dict(X=X, y=y, qid=qid, group=None, sort=False),
                dict(X="matrix", y="labels_scalar", qid="qid", sort="bool"), optional=("qid", "group"),
                names={"X": ("X",), "qid": ("qid",)}, free=("sort",)),
        fn_call(LA.split_queries, dict(X=X, y=y, qid=None, group=group, sort=False), dict(group="group"),
                id="data.layout.split_queries-group", optional=("qid", "group")),
        fn_call(LA.flatten_queries, dict(Xs=Xs, ys=Ys), dict(Xs="queries", ys="labels_ragged"),
                names={"Xs": ("Xs", "X"), "ys": ("ys", "Y", "y")}, expect={("ys", "flat"): EITHER}),
    ]


#: Words of scikit-learn's own input messages (validate_data), which the estimators of
#: predtron.sklearn keep: check_estimator requires them.
SKLEARN_X = ("X", "array", "Input", "data", "Complex", "samples", "features", "sparse", "dtype", "matrix")
SKLEARN_Y = ("y", "Y", "classes", "target", "label", "labels", "Unknown", "array", "Input", "class", "samples",
             "levels", "indicator", "dtype", "Complex")
#: scikit-learn refuses np.matrix (with a TypeError naming it), unlike the core learners.
SKLEARN_MATRIX = {("X", "np_matrix"): REFUSE}
#: A sparse X is standardized without centring (it stays sparse): another model than on dense X.
SKLEARN_SPARSE_FIT = {("X", f"sparse_{f}"): FREE for f in ("csr", "csc", "coo", "bsr", "lil", "dok", "dia",
                                                           "array_csr")}


def sklearn_calls():
    from predtron import sklearn as SK

    rng = np.random.default_rng(8)
    X = _grid((12, 3), 32)
    yc = np.array(["a", "b", "c"] * 4)
    ym = rng.integers(0, 2, (12, 3))
    yo = np.array([1, 2, 3, 4] * 3)
    Xr, yr, qid, _ = flat_ranking()
    common = {"eta": "real", "epochs": "int", "average": "bool", "shuffle": "bool", "random_state": "int",
              "fit_intercept": "bool", "standardize": "bool", "update": "choice", "loss_driven": "bool",
              "verbose": "bool"}
    specs = [
        (SK.PredtronClassifier, dict(epochs=2, random_state=1, reject_cost=0.3, reject_label="none"), X, yc, {},
         {**common, "reject_cost": "real", "reject_label": "any"}),
        (SK.PredtronClassifier, dict(epochs=2, random_state=1, cost_matrix=1.0 - np.eye(3)), X, yc, {},
         {"cost_matrix": "matrix"}),
        (SK.PredtronMultilabelClassifier, dict(epochs=2, random_state=2, loss="fbeta", beta=2.0), X, ym, {},
         {**common, "loss": "choice", "beta": "real"}),
        (SK.PredtronMultilabelClassifier, dict(epochs=2, random_state=2, loss="recall@k", k=2), X, ym, {},
         {"k": "int"}),
        (SK.PredtronOrdinalClassifier, dict(epochs=2, random_state=3), X, yo, {}, common),
        (SK.PredtronRanker, dict(epochs=2, random_state=4, f="inverse", k=3, train_k=2), Xr, yr, {"qid": qid},
         {**{k: v for k, v in common.items() if k != "fit_intercept"}, "f": "choice", "k": "int", "train_k": "int"}),
    ]
    calls = []
    for i, (cls, params, Xd, y, fit_extra, pkinds) in enumerate(specs):
        key = f"{cls.__module__}.{cls.__qualname__}"
        base = f"sklearn.{cls.__name__}-{i}"
        fitted = cls(**params).fit(Xd, y, **fit_extra)
        ykind = "labels_vector" if np.ndim(y) == 2 else "labels_scalar"
        names = {"X": SKLEARN_X, "y": SKLEARN_Y, "qid": ("qid",), "group": ("group",)}
        loose = {("y", k): FREE for k in ("py_bools", "np_bools", "bool_element", "strings", "fractions", "floats",
                                           "element_huge_int", "element_big_int", "element_negative",
                                           "element_fraction", "element_string", "complex", "series", "array",
                                           "shorter", "longer", "two_d", "column", "dataframe_column")}
        if cls is SK.PredtronRanker:
            loose = {("y", k): FREE for k in ("floats", "series", "array", "column", "dataframe_column")}
        if cls is SK.PredtronMultilabelClassifier:  # a 1-D y is a multiclass target
            loose[("y", "one_d")] = FREE
        calls.append(Call(f"{base}/parameters", lambda c=cls, Xd=Xd, y=y, fe=fit_extra, **kw:
                          c(**kw).fit(Xd, y, **fe).predict(Xd), params, {k: pkinds[k] for k in pkinds if k in params},
                          covers=(key,), group=base, free=tuple(params), optional=tuple(params),
                          expect={("reject_label", "*"): FREE}))
        calls.append(Call(f"{base}/fit", lambda c=cls, p=params, Xd=Xd, **kw: c(**p).fit(**kw).predict(Xd),
                          {"X": Xd, "y": y, **fit_extra}, {"X": "matrix_sparse", "y": ykind,
                                                          **{k: k for k in fit_extra}},
                          names=names, covers=(f"{key}.fit",), group=base, free=("y", "X"), any_classes=("y",),
                          expect={("X", "zero_rows"): REFUSE, **SKLEARN_MATRIX, **SKLEARN_SPARSE_FIT, **loose}))
        for method in ("predict", "decision_function"):
            if not hasattr(fitted, method):
                continue
            calls.append(Call(f"{base}/{method}", lambda f=fitted, m=method, **kw: getattr(f, m)(**kw), {"X": Xd},
                              {"X": "matrix_sparse"}, names=names, n=len(Xd), covers=(f"{key}.{method}",), group=base,
                              expect={"extra_feature": REFUSE, **SKLEARN_MATRIX}))
        calls.append(Call(f"{base}/score", lambda f=fitted, **kw: f.score(**kw), {"X": Xd, "y": y, **fit_extra},
                          {"X": "matrix_sparse", "y": ykind, **{k: k for k in fit_extra}}, names=names,
                          covers=(f"{key}.score",), group=base, any_classes=("y",),
                          expect={"extra_feature": REFUSE, "zero_rows": REFUSE, ("y", "empty"): REFUSE,
                                  **SKLEARN_MATRIX, **loose}))
    return calls


# ------------------------------------------------------------------ persistence
def persistence_calls():
    from fuzz_values import file_dir, write_file

    from predtron import persistence as PE

    problem, data = problem_cases()["Multiclass"]
    X, Y = data["X"], data["Y"]
    fitted = Predtron(problem, eta=0.5, random_state=1).fit(X, Y, epochs=2)
    path = str(PE.save(fitted, f"{file_dir()}/canonical.npz"))
    with open(path, "rb") as handle:
        saved = write_file("model.npz", handle.read())
    header, arrays = PE.dump(fitted)
    counter = [0]

    def save(**kw):
        counter[0] += 1
        return str(PE.save(kw["learner"], f"{file_dir()}/saved-{counter[0]}.npz")).rsplit("/", 1)[0] == file_dir()

    return [
        fn_call(PE.load, dict(path=saved), dict(path="file_npz"), post=lambda m: m.decision_function(X)),
        Call("persistence.save", save, dict(learner=fitted), dict(learner="object"),
             covers=("predtron.persistence.save",),
             group="persistence", names={"learner": ("learner",)}),
        fn_call(PE.dump, dict(estimator=fitted, where="learner"), dict(estimator="object"),
                post=lambda out: out[1], names={"estimator": ("estimator", "learner")}),
        fn_call(PE.restore, dict(header=header, arrays=arrays, where="learner"), dict(header="any", arrays="any"),
                post=lambda m: m.decision_function(X), names={"header": ("header", "learner"),
                                                               "arrays": ("arrays", "learner", "state")}),
        fn_call(PE.saveable_classes, {}, {}, post=lambda d: sorted(d)),
        fn_call(PE.parameter_classes, {}, {}, post=lambda d: sorted(d)),
    ]


# ------------------------------------------------------------------ testing, timing, scoring, helpers
def testing_calls():
    from predtron import testing as T
    from predtron.book import timing as TI
    from predtron.learners import base as LB
    from predtron.learners import sgd as SG

    problem, data = problem_cases()["Multiclass"]
    X, Y, t = data["X"], data["Y"], data["t"]
    binary = P.Binary(2.0, 0.5)
    params = _grid((3, P0), 40)
    return [
        fn_call(T.brute_force_pred, dict(problem=problem, t=t, y=None), dict(problem="object", t="vector"),
                optional=("y",)),
        fn_call(T.brute_force_oracle, dict(problem=problem, t=t, y=1),
                dict(problem="object", t="vector", y="label_scalar"),
                names={"y": ("y", "label")}),
        fn_call(T.brute_force_ranking, dict(problem=P.SubsetRanking(), t=np.array([0.5, -0.25, 1.0]),
                                            y=np.array([1, 0, 2])),
                dict(t="vector", y="label_vector"), post=lambda d: sorted(d.items(), key=repr)[:1],
                names={"t": ("t",), "y": ("y", "label")}, free=("t", "y"), expect={("t", "two_d"): FREE}),
        fn_call(T.check_problem, dict(problem=binary, n_trials=3, seed=0, labels=None),
                dict(problem="object", n_trials="size", seed="int"), optional=("labels",),
                expect={("n_trials", "zero"): EITHER}),
        fn_call(T.check_learner, dict(make_learner=lambda p: Predtron(p, eta=0.5), problem=problem, X=X, Y=Y,
                                      fit_params=None),
                dict(X="matrix_sparse", Y="labels_scalar", fit_params="any"), optional=("fit_params",),
                expect={("X", "zero_rows"): REFUSE, ("Y", "empty"): REFUSE},
                names={"X": ("X", "t"), "fit_params": ("fit_params", "argument")}),
        # a huge X gives scores the brute force refuses, naming them t; fit_params go to fit as they are
        fn_call(T.reference_fit, dict(learner=Predtron(problem, eta=0.5), X=X, Y=Y, epochs=2),
                dict(learner="object", X="matrix_sparse", Y="labels_scalar", epochs="int"), post=lambda r: r.params,
                expect={("X", "zero_rows"): REFUSE, ("Y", "empty"): REFUSE}, free=("epochs", "X")),
        fn_call(TI.best_time, dict(function=lambda: None, repeat=2, number=1),
                dict(function="callable", repeat="int", number="int"), post=lambda s: 0.0,
                names={"function": ("function", "on purpose")},
                expect={("function", "returns_none"): FREE, ("function", "returns_string"): FREE}),
        fn_call(TI.best_times, dict(functions=[lambda: None, lambda: 0], repeat=2, number=1),
                dict(functions="object", repeat="int", number="int"), post=lambda s: [0.0] * len(s),
                names={"functions": ("functions",)}),
        fn_call(LB.check_problem, dict(problem=problem), dict(problem="object"), post=lambda p: 0,
                names={"problem": ("problem",)}),
        fn_call(SG.generalized_hinge, dict(problem=problem, params=params, X=X, Y=Y),
                dict(problem="object", params="matrix", X="matrix_sparse", Y="labels_scalar"), n=N,
                names={"params": ("params", "w", "W")}),
    ]


def scoring_calls():
    from predtron import scoring as SC

    X, _, qid, _ = flat_ranking()
    Xv = _grid((N, P0), 41)
    return [
        Call("scoring.VectorScoring/prepare", lambda dim, X: SC.VectorScoring(dim).prepare(X).n, dict(dim=3, X=Xv),
             dict(dim="size", X="matrix_sparse"), covers=("predtron.scoring.VectorScoring",), group="scoring",
             free=("dim",)),
        Call("scoring.DocumentScoring/prepare", lambda X, qid: SC.DocumentScoring().prepare(X, qid=qid).n,
             dict(X=X, qid=qid), dict(X="matrix_sparse", qid="qid"), covers=("predtron.scoring.DocumentScoring",),
             group="scoring", names={"X": ("X", "qid")}, free=("X", "qid")),
    ]


# ------------------------------------------------------------------ experiments
def experiment_calls():
    import pandas as pd

    from predtron.book.experiments import figure1 as F1
    from predtron.book.experiments import plots as PL
    from predtron.book.experiments import protocol as PR
    from predtron.data.ranking import make_figure1_ranking

    data = make_figure1_ranking(6, n_items=6, n_features=5, noise=1e-4, seed=0)
    model = PR.make_learner("l2", "square").fit(data.X[:4], data.Y[:4], epochs=2)
    tiny = dict(m=6, p0=5, n_test=4)
    runs = pd.DataFrame({"f": ["a"] * 2 + ["b"] * 2, "seed": [0, 1] * 2, "mean": [1e-4, 2e-4, 0.0, 1e-6],
                         "median": [0.0, 1e-5, 0.0, 0.0], "perfect": [0.5, 0.6, 1.0, 0.9]})
    per_query = pd.DataFrame({"f": ["a"] * 4 + ["b"] * 2, "seed": [0] * 6, "query": [0, 1, 2, 3, 0, 1],
                              "loss": [0.0, 0.0, 0.1, 0.3, 0.2, 0.2]})
    table = pd.DataFrame({"x": [1.23456e-7, 0.123456, 2.5], "k": [1, 2, 3]})
    fs = ("inverse", "square")
    return [
        fn_call(PR.make_learner, dict(learner="l1", f="square", eta=0.5, r=1.5),
                dict(learner="choice", f="choice", eta="real", r="real"), optional=("r",),
                post=lambda m: m.fit(data.X[:2], data.Y[:2]).coef_, free=("learner", "f", "r")),
        fn_call(PR.query_losses, dict(model=model, X=data.X[4:], Y=data.Y[4:]),
                dict(model="object", X="queries", Y="labels_ragged"), n=2),
        fn_call(PR.untrained_losses, dict(Y=data.Y[4:], f="linear"), dict(Y="labels_ragged", f="choice"), n=2,
                free=("f", "Y"), expect={("Y", k): FREE for k in ("shorter", "longer", "empty", "flat", "short_row",
                                                                 "long_row")}),
        fn_call(PR.summarize_losses, dict(losses=[0.0, 0.0, 0.3125, 0.125]), dict(losses="vector"), post=lambda d: d),
        fn_call(PR.complete_setting, dict(setting={"n": 3, **tiny}), dict(setting="any"), post=lambda d: d["n"]),
        fn_call(PR.round_significant, dict(table=table, digits=3), dict(table="any", digits="size"),
                post=lambda t: t.to_numpy(dtype=float), free=("digits",)),
        fn_call(PR.seed_summary, dict(results=runs, by=["f"]), dict(results="any", by="any"),
                post=lambda t: t.select_dtypes("number").to_numpy(dtype=float)),
        fn_call(PR.per_run, dict(per_query_table=per_query), dict(per_query_table="any"),
                post=lambda t: t.select_dtypes("number").to_numpy(dtype=float)),
        fn_call(PR.run_settings, dict(settings=[{"n": 3, **tiny}], seeds=[0], per_query=False),
                dict(settings="any", seeds="any", per_query="bool"),
                post=lambda t: t.select_dtypes("number").to_numpy(dtype=float), free=("per_query",)),
        fn_call(F1.centre_margin, dict(f="inverse", m=6), dict(f="choice", m="size"), free=("f",)),
        fn_call(F1.smallest_nonzero_loss, dict(m=6), dict(m="size")),
        fn_call(F1.theorem1_step, dict(X=data.X, Y=data.Y, f="linear"), dict(X="queries", Y="labels_ragged",
                                                                           f="choice"), free=("f",)),
        fn_call(F1.passes_to_separate, dict(model=PR.make_learner("l2", "square"), X=data.X, Y=data.Y, max_passes=5),
                dict(model="object", X="queries", Y="labels_ragged", max_passes="int"), post=lambda k: k or 0,
                free=("max_passes",)),
        fn_call(F1.loss_distribution, dict(per_query=per_query, by=("f",), quantiles=(0.5,), tail=0.25),
                dict(per_query="any", by="any", quantiles="vector", tail="real"),
                post=lambda t: t.select_dtypes("number").to_numpy(dtype=float), free=("quantiles",)),
        fn_call(F1.panel_a, dict(n_grid=(0, 3), fs=fs, seeds=[0], **tiny),
                dict(n_grid="any", fs="any", m="size", p0="size", seeds="any", n_test="size"),
                post=lambda t: t["mean"].to_numpy(), free=("n_grid", "seeds")),
        fn_call(F1.panel_b, dict(m_grid=(5, 6), fs=("inverse",), n=3, p0=5, seeds=[0], n_test=4),
                dict(m_grid="any", n="size"), post=lambda t: t["mean"].to_numpy(), free=("m_grid",)),
        fn_call(F1.panel_c, dict(p_grid=(60,), sparsity=5, n=4, m=6, seeds=[0], n_test=3),
                dict(p_grid="any", sparsity="size"), post=lambda t: t["mean"].to_numpy(), free=("p_grid",)),
        fn_call(F1.sensitivity, dict(parameter="noise", values=[0.0, 0.1], fs=("square",), n=3, seeds=[0], **tiny),
                dict(parameter="choice", values="any"), post=lambda t: t["mean"].to_numpy(), free=("values",)),
        fn_call(F1.margin_study, dict(fs=("square",), m=6, n=5, p0=5, noise=1e-4, max_passes=3, seeds=[0]),
                dict(fs="any", m="size", n="size", noise="real", max_passes="int"),
                post=lambda t: t.select_dtypes("number").to_numpy(dtype=float), nonfinite=True),
        fn_call(PL.floor_below, dict(values=[1e-3, 0.0, 0.5]), dict(values="vector"),
                expect={("values", k): FREE for k in ("scalar", "two_d", "column", "empty", "huge")}),
    ]


# ------------------------------------------------------------------ registry
def registry() -> dict[str, list[Call]]:
    """Qualified public name -> the calls that fuzz it."""
    out: dict[str, list[Call]] = {}
    calls = learner_calls() + problem_calls() + bound_calls() + metric_calls() + link_calls() + kernel_calls()
    calls += pa_calls() + baseline_calls() + reduction_calls() + problem_extra_calls() + data_calls()
    calls += sklearn_calls() + persistence_calls() + testing_calls() + scoring_calls() + experiment_calls()
    for call in calls:
        for name in call.covers or (call.id,):
            out.setdefault(name, []).append(call)
    return out


_RECORD = "a result record (NamedTuple/dataclass) built by the function that returns it, which is fuzzed"
_ABSTRACT = "an abstract base class: its concrete subclasses are fuzzed"
_DRAWING = ("draws on a matplotlib Axes; its inputs are the tables and arrays the fuzzed functions return, "
            "and its failures are matplotlib's")
_INPUTS = ("validated-data container built by LinearScoring.prepare (fuzzed through VectorScoring/DocumentScoring "
           "and every learner); not meant to be built by hand")
_BATCH = ("unchecked batch kernel of the ranking problems (predtron.problems.ranking_batch, the integrator's "
          "hot path): callers validate, and it is exercised through every ranking learner and score")

_KERNEL = ("unchecked arithmetic kernel (scores summed the same way for every row, predtron.scoring): callers "
           "validate, and it is exercised through every learner's rounds, MMP and the ranking data generator")

_CLI = ("the command line reads strings and files: tests/test_cli.py runs it on malformed options, values and "
        "files (each must end with a non-zero exit status and a one-line message naming the option or file)")

_FILES = ("reads or writes files (paths, not arrays): tests/test_stream.py and tests/test_streaming.py run it on real "
          "files on disk, malformed lines, truncated and corrupt files, and compare it with the loaders and with fit")
_SIZES = ("the group-size rules shared by load_letor and iter_letor, called with sizes those readers have checked: "
          "tests/test_loaders.py gives both readers sizes that contradict the qid: fields or the number of rows")
_STREAM_CLI = ("a step of the command line's --stream/--checkpoint options, called with the parsed arguments; "
               "tests/test_streaming.py runs the program through it on good and malformed files and options")

_ENGINE = ("compiled kernel of predtron.engine (or its exact NumPy twin) behind the public boundary: its arrays come "
           "from the problems' EngineSpec constructors and validated Inputs; tests/test_engine.py, "
           "tests/test_fast_loop.py and tests/test_compiled_kernels.py check it against its twin and reference_fit")
_COMPILE_WORKER = ("the background compile worker's plumbing (numba types to text and back, waiting for its answers): "
                   "tests/test_background_compile.py runs it in fresh interpreters with empty numba caches")
_DASK = ("needs a running Dask cluster: tests/test_dask.py runs it on a real distributed.LocalCluster, with the "
         "malformed inputs it refuses (queries split across partitions, bad options, a killed worker)")

_MIXING = ("iterative parameter mixing over a map of shards (predtron.mixing), the protocol the Dask estimators drive: "
           "its shards come from an estimator's validated data; tests/test_statistics.py runs it over a local map "
           "(one shard == the serial fit) and tests/test_dask.py on a real LocalCluster with malformed inputs")
_STATISTICS = ("the estimators' statistics before their passes, on data the estimator's fit has validated (not a "
               "boundary); tests/test_statistics.py checks them exact and equal bit for bit over any cut of the rows")

EXCLUDED: dict[str, str] = {
    "predtron.bounds.mean_squared_norm": _STATISTICS,
    "predtron.bounds.squared_norms": _STATISTICS,
    "predtron.bounds.theorem1_step_of": _STATISTICS,
    "predtron.dask.cli.expand_paths": _CLI,
    "predtron.dask.cli.fit_files_on_cluster": _DASK,
    "predtron.dask.cli.is_pattern": _CLI,
    "predtron.dask.mixing.client_map": _DASK,
    "predtron.learners.base.check_sample_weight": (
        "checks sample_weight of the learners' and estimators' fit/partial_fit, which are fuzzed; "
        "tests/test_sample_weight.py gives it every malformed weight (negative, NaN, inf, wrong length, all zero)"),
    "predtron.mixing.MixingResult": _RECORD,
    "predtron.mixing.check_checkpoint_folder": _MIXING,
    "predtron.mixing.PassResult": _RECORD,
    "predtron.mixing.iterative_parameter_mixing": _MIXING,
    "predtron.mixing.local_map": _MIXING,
    "predtron.mixing.mix_states": _MIXING,
    "predtron.mixing.mixing_weights": _MIXING,
    "predtron.mixing.read_checkpoint": _MIXING,
    "predtron.mixing.shard_orders": _MIXING,
    "predtron.mixing.shard_pass": _MIXING,
    "predtron.mixing.write_checkpoint": _MIXING,
    "predtron._models.statistics.FitStatistics": _STATISTICS,
    "predtron.streaming.stream_statistics": _FILES,
    "predtron.streaming.statistics_reads": "how often stream_statistics reads a stream (see there)",
    "predtron.streaming.check_checkpoint_folder": _FILES,
    "predtron.engine.fbeta.fbeta_loss": _ENGINE,
    "predtron.engine.fbeta.fbeta_oracle": _ENGINE,
    "predtron.engine.grade_dp._cost": _ENGINE,
    "predtron.engine.grade_dp.grade_dp_argmax": _ENGINE,
    "predtron.engine.grade_dp.grade_dp_covers": _ENGINE,
    "predtron.engine.grade_dp.grade_dp_into": _ENGINE,
    "predtron.engine.grade_dp.grade_dp_is_cheap": _ENGINE,
    "predtron.engine.grade_dp.scratch_sizes": _ENGINE,
    "predtron.engine.grade_dp.sort_desc": _ENGINE,
    "predtron.engine.jit.Tiered": _ENGINE,
    "predtron.engine.jit.decode_signature": _COMPILE_WORKER,
    "predtron.engine.jit.encode_signature": _COMPILE_WORKER,
    "predtron.engine.jit.wait_for_background": _COMPILE_WORKER,
    "predtron.engine.jit.discard_early_worker": _COMPILE_WORKER,
    "predtron.engine.run.pass_signatures": _COMPILE_WORKER,
    "predtron.engine.run.prefetch_passes": _COMPILE_WORKER,
    "predtron.engine.run.signatures_text": _COMPILE_WORKER,
    "predtron.engine.ranking.pass_documents": _ENGINE,
    "predtron.engine.run.run_pass": _ENGINE,
    "predtron.engine.scans._finite_max_abs": _ENGINE,
    "predtron.engine.scans._running_sum": _ENGINE,
    "predtron.engine.scans.exact_bins": ("exact column sums behind ExactSums (the estimators' finite, validated "
                                         "inputs): tests/test_exact_sums.py checks every path against the "
                                         "reference and Fraction on arrays of every scale"),
    "predtron.engine.spec.EngineSpec": _ENGINE,
    "predtron.engine.spec.Kind": _ENGINE,
    "predtron.engine.vectors.first_argmax": _ENGINE,
    "predtron.engine.vectors.pass_binary": _ENGINE,
    "predtron.engine.vectors.pass_finite": _ENGINE,
    "predtron.engine.vectors.pass_multiclass": _ENGINE,
    "predtron.engine.vectors.pass_fbeta": _ENGINE,
    "predtron.engine.vectors.pass_multilabel": _ENGINE,
    "predtron.engine.vectors.feature_major": _ENGINE,
    "predtron.engine.vectors.transpose_pays": _ENGINE,
    "predtron.engine.vectors.write_back": _ENGINE,
    "predtron.dask.cli.add_cluster_options": _DASK,
    "predtron.dask.cli.cluster_client": _DASK,
    "predtron.dask.cli.cluster_requested": _DASK,
    "predtron.dask.cli.fit_on_cluster": _DASK,
    "predtron.dask.cli.row_blocks": _DASK,
    "predtron.dask.cli.shard_bounds": _DASK,
    "predtron.dask.estimators.DaskPredtronClassifier": _DASK,
    "predtron.dask.estimators.DaskPredtronMultilabelClassifier": _DASK,
    "predtron.dask.estimators.DaskPredtronOrdinalClassifier": _DASK,
    "predtron.dask.estimators.DaskPredtronRanker": _DASK,
    "predtron.learners.base.check_order": ("checks the order= of OnlineLearner.partial_fit (a permutation of "
                                           "the batch); tests/test_dask.py runs partial_fit with bad orders"),
    "predtron.data.stream.SvmlightChunk": _RECORD,
    "predtron.data.stream.LetorChunk": _RECORD,
    "predtron.data.stream.iter_svmlight": _FILES,
    "predtron.data.stream.iter_letor": _FILES,
    "predtron.data.stream.prefetch": _FILES,
    "predtron.data.stream.scan_labels": _FILES,
    "predtron.data.stream.LabelScan": _RECORD,
    "predtron.data.mulan.find_mulan_xml": _FILES,
    "predtron.data.mulan.arff_rows_are_sparse": ("peeks at a file's first data row (paths, not arrays): "
                                                 "tests/test_loaders.py gives it sparse, dense, empty, missing, "
                                                 "binary and compressed files"),
    "predtron.data.mulan.mulan_xml_names": ("the file names find_mulan_xml looks for, from a path's text (no file "
                                            "is read); tests/test_loaders.py checks them and their order"),
    "predtron.data.mulan.iter_arff": _FILES,
    "predtron.data.cache.DamagedCache": "an exception class (raised by the cache reader on a checksum mismatch)",
    "predtron.data.cache.HashingFile": _FILES,
    "predtron.data.cache.check_cache_path": _FILES,
    "predtron.data.cache.read_cache": _FILES,
    "predtron.data.cache.source_identity": _FILES,
    "predtron.data.cache.write_cache": _FILES,
    "predtron.data.svmlight.rows_matrix": ("builds the matrix of rows the parser has checked (no boundary of its "
                                           "own); fuzzed through load_svmlight, load_letor and iter_svmlight in "
                                           "tests/test_stream_fuzz.py and tests/test_loaders.py"),
    "predtron.data.svmlight.check_inferred_dense": ("a check of the dense loaders on a parsed CSR matrix and its line "
                                                    "numbers; tests/test_loaders.py runs it through load_svmlight, "
                                                    "load_letor and iter_svmlight on a file with a stray index"),
    "predtron.streaming.atomic_save": _FILES,
    "predtron.streaming.read_checkpoint": _FILES,
    "predtron.streaming.fit_passes": ("drives an estimator's partial_fit (fuzzed with the estimators) over a chunk "
                                      "source; tests/test_streaming.py compares it with fit and checkpoints it"),
    "predtron.streaming.permuted_chunks": "a chunk source of fit_passes (see there)",
    "predtron.learners.stopping.EarlyStopping": ("the stopping rule of the estimators' tol/n_iter_no_change, fuzzed "
                                                 "through every estimator's fit"),
    **{f"predtron.cli_stream.{name}": _STREAM_CLI for name in (
        "StreamFit", "check_fit_args", "checkpointed_fit", "release_freed_chunks",
        "stream_fit", "stream_metrics", "stream_predictions")},
    **{f"predtron.cli_data.{name}": _CLI for name in (
        "Dataset", "ReadOptions", "as_labels", "detect_format", "discard_spools", "flag_message", "label_value",
        "local_path", "positive_int", "read", "stream_chunks", "survey")},
    **{f"predtron.tasks.{name}": ("the command line's task registry and its metrics: tests/test_cli.py checks them "
                                  "against scikit-learn's and the estimators' own scores")
       for name in ("Task", "f1_counts", "f1_scores", "metrics", "multilabel_values", "task_of_model")},
    "predtron.cli.model_path": _CLI,
    **{f"predtron.cli_compile.{name}": ("predtron compile, a command without data (it runs the package's own fits on "
                                        "tiny generated data); tests/test_compile_command.py runs it on an empty, a "
                                        "filled and an unwritable cache folder and interrupts it")
       for name in ("CacheError", "add_compile_command", "build", "cache_folders", "check_cache_folders",
                    "kernel_report", "run_compile")},
    "predtron.dask.cli.file_options": _CLI,
    "predtron.dask.cli.with_flags": ("rewrites a refused checkpoint's message with flag names; "
                                     "tests/test_dask_files.py checks the messages of every refused resume"),
    "predtron.data.cache.describe_source": _FILES,
    "predtron.engine.jit.cache_folder": ("reads where numba keeps a compiled dispatcher's disk cache (no data); "
                                         "predtron compile's folder check uses it (tests/test_compile_command.py: "
                                         "unwritable folders)"),
    "predtron.load": "persistence.load after importing the registering modules; fuzzed as persistence.load",
    "predtron.baselines.prank.RankedData": _RECORD,
    "predtron.data.generators.SeparableData": _RECORD,
    "predtron.data.letor.LetorData": _RECORD,
    "predtron.data.letor.check_sizes_cover_rows": _SIZES,
    "predtron.data.letor.check_sizes_match_queries": _SIZES,
    "predtron.data.letor.size_source": _SIZES,
    "predtron.data.mulan.MultilabelData": _RECORD,
    "predtron.data.ranking.Figure1Data": _RECORD,
    "predtron.data.sequences.SequenceData": _RECORD,
    "predtron.data.svmlight.SvmlightData": _RECORD,
    "predtron.pa.dual.DualStep": _RECORD,
    "predtron.pa.reference.QPSolution": _RECORD,
    "predtron.pa.rules.PAUpdate": _RECORD,
    "predtron.problems.ranking_grades.GradesResult": _RECORD,
    "predtron.testing.Reference": _RECORD,
    "predtron.learners.base.OnlineLearner": _ABSTRACT,
    "predtron.learners.base.PrimalLearner": _ABSTRACT,
    "predtron.links.Link": _ABSTRACT,
    "predtron.problems.base.FiniteProblem": _ABSTRACT,
    "predtron.problems.base.Problem": _ABSTRACT,
    "predtron.problems.psi.FeatureMap": _ABSTRACT,
    "predtron.problems.ranking.RankingProblem": _ABSTRACT,
    "predtron.scoring.LinearScoring": _ABSTRACT,
    "predtron.scoring.Inputs": _ABSTRACT,
    "predtron.scoring.VectorInputs": _INPUTS,
    "predtron.scoring.DocumentInputs": _INPUTS,
    "predtron.scoring.ListInputs": _INPUTS,
    "predtron.scoring.column_order_dot": _KERNEL,
    "predtron.scoring.row_dot": _KERNEL,
    "predtron.scoring.row_scores": _KERNEL,
    "predtron.learners.kernel.SupportSet": ("the kernel learner's internal storage of support vectors (arrays it "
                                            "appends to); fuzzed through KernelPredtron and its persistence"),
    "predtron.problems.ranking_batch.losses": _BATCH,
    "predtron.problems.ranking_batch.losses_of_scores": _BATCH,
    "predtron.problems.ranking_batch.rankings": _BATCH,
    "predtron.problems.ranking_batch.segment_ids": _BATCH,
    "predtron.problems.ranking_batch.sort_segments": _BATCH,
    "predtron.problems.ranking_batch.tie_keys": _BATCH,
    "predtron.problems.ranking_batch.segment_sums": _BATCH,
    "predtron.problems.ranking_batch.average_precisions": _BATCH,
    "predtron.data.opening.check_file": ("resolves and checks the path of a data file; fuzzed through every loader "
                                       "and tests/test_cli.py's missing and unreadable files"),
    "predtron.data.opening.missing_file": ("builds the error of a missing file from any value (str() of it); "
                                         "tests/test_loaders.py and tests/test_cli_hardening.py check its URL form"),
    "predtron.data.opening.open_binary": ("opens a checked path (plain, gzip or bz2); fuzzed through every loader and "
                                        "tests/test_loaders.py's compressed and damaged files"),
    "predtron.persistence.saveable": ("a class decorator run when the package is imported; "
                                      "tests/test_persistence.py checks what it refuses"),
    "predtron.persistence.saveable_as": ("a class decorator run when the package is imported (the estimators' cores); "
                                         "tests/test_persistence.py checks what it refuses and what it writes"),
    "predtron.persistence.saved_as": ("a lookup in the registry of saveable_as (any object is a missing key); "
                                      "tests/test_streaming.py resumes a checkpoint of an estimator's core with it"),
    "predtron.problems.base.first_argmax_trusted": ("unchecked kernel behind first_argmax (fuzzed): callers "
                                                    "validate, exercised through every finite problem's pred"),
    "predtron.problems.base.first_argmax_rows_trusted": ("unchecked kernel behind first_argmax_rows (fuzzed): "
                                                         "callers validate"),
    "predtron.bounds.theorem1_step": ("Theorem 1's step on data an estimator's fit has validated (not a boundary: "
                                      "it trusts its arguments); fuzzed through every estimator with eta='auto', "
                                      "its value checked against the per-query loop in tests/test_ranking_bounds.py"),
    "predtron.cli.main": _CLI,
    "predtron.cli.build_parser": _CLI,
    "predtron.book.experiments.claims.claims_table": ("asserts the chapter's claims on the three panel tables; its "
                                                 "inputs are the outputs of panel_a/b/c, which are fuzzed"),
    "predtron.book.experiments.figure1.protocol_table": ("formats the panels' settings as a table for the book; its "
                                                    "input is the panels' outputs"),
    "predtron.book.experiments.plots.plot_loss_ecdf": _DRAWING,
    "predtron.book.experiments.plots.plot_margin_passes": _DRAWING,
    "predtron.book.experiments.plots.plot_statistic": _DRAWING,
    "predtron.book.experiments.plots.statistics_figure": _DRAWING,
    "predtron.book.plotting.plot_cumulative_loss": _DRAWING,
    "predtron.book.plotting.plot_loss_matrix": _DRAWING,
    "predtron.book.plotting.plot_mean_band": _DRAWING,
    "predtron.book.plotting.plot_mean_bands": _DRAWING,
    "predtron.book.plotting.plot_timings": _DRAWING,
    "predtron.book.plotting.plot_tradeoff": _DRAWING,
    "predtron.book.plotting.use_book_style": "sets matplotlib's style; takes no argument",
    "predtron.learners.batch_perceptron.NotSeparatedWarning": "a warning category (raised by BatchPerceptron)",
}

__all__ = ["EITHER", "EXCLUDED", "SAME", "predtron", "registry"]
