"""Learners round-trip through save/load without pickle."""

from __future__ import annotations

import numpy as np
import pytest

from predtron import Predtron, PredtronLD
from predtron.data import make_separable
from predtron.persistence import load, save
from predtron.problems import General, Multiclass, Multilabel


@pytest.mark.parametrize(
    "problem",
    [Multiclass(3, loss=[[0, 1, 2], [1, 0, 1], [2, 1, 0]]), Multilabel(4, "subset"),
     General([[0, 1], [1, 0], [0.5, 0.5]], [[1, 0], [0, 1], [1, 1]])],
    ids=repr,
)
@pytest.mark.parametrize("learner_class", [Predtron, PredtronLD])
def test_round_trip(tmp_path, problem, learner_class):
    data = make_separable(problem, 80, 5, margin=0.05, seed=1)
    model = learner_class(problem, eta=0.3).fit(data.X[:40], data.Y[:40])
    path = save(model, tmp_path / "model")
    assert path.suffix == ".npz"
    again = load(path)
    assert type(again) is learner_class and again.eta == 0.3
    np.testing.assert_array_equal(again.predict(data.X), model.predict(data.X))
    np.testing.assert_array_equal(again.loss_history_, model.loss_history_)
    model.partial_fit(data.X[40:], data.Y[40:])
    again.partial_fit(data.X[40:], data.Y[40:])
    np.testing.assert_allclose(again.coef_, model.coef_)


def test_errors(tmp_path):
    with pytest.raises(ValueError, match="not fitted yet"):
        save(Predtron(Multiclass(3)), tmp_path / "m.npz")
    np.savez(tmp_path / "other.npz", __header__=np.array('{"format": "x"}'))
    with pytest.raises(ValueError, match="is not a predtron learner file"):
        load(tmp_path / "other.npz")
    header = '{"format": "predtron-learner/2", "learner": "os.system", "params": {}, "state": {}}'
    np.savez(tmp_path / "evil.npz", __header__=np.array(header))
    with pytest.raises(ValueError, match=r"unknown learner class 'os\.system'"):
        load(tmp_path / "evil.npz")


def test_link_learner_round_trip(tmp_path):
    from predtron import PNormLink, PredtronLink

    problem = Multiclass(3)
    data = make_separable(problem, 60, 12, margin=0.05, seed=2)
    model = PredtronLink(problem, link=PNormLink(1.5), eta=0.5).fit(data.X, data.Y)
    again = load(save(model, tmp_path / "link.npz"))
    assert isinstance(again.link, PNormLink) and again.link.r == 1.5
    np.testing.assert_array_equal(again.predict(data.X), model.predict(data.X))
