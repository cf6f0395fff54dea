"""The match-confidence fit (scripts/confidence_fit.py): exact, judged on held-out folds,
and calibrated so the shipped threshold means what the folds measured."""

from __future__ import annotations

import math
import random
import sys

from tests.testing import REPO

sys.path.insert(0, str(REPO / "scripts"))

import confidence_fit
from confidence_fit import Row

from orbit_learnings.retrieval import confidence


def synthetic(n: int, seed: int = 7) -> list[Row]:
    """Rows drawn from a known logistic model over two features."""
    rng = random.Random(seed)
    rows: list[Row] = []
    for _ in range(n):
        x = {"a": rng.random(), "b": rng.random()}
        p = 1.0 / (1.0 + math.exp(-(-2.0 + 5.0 * x["a"] - 1.0 * x["b"])))
        label = int(rng.random() < p)
        rows.append((x, label, not label and rng.random() < 0.8))
    return rows


def test_newton_recovers_the_model_the_rows_were_drawn_from() -> None:
    rows = [(x, y, False) for x, y, _ in synthetic(4000)]
    # unanswerable rows weigh NEGATIVE_WEIGHT: with none marked, every 0 still does
    model = confidence_fit.fit(rows, ("a", "b"))
    shift = math.log(confidence_fit.NEGATIVE_WEIGHT)  # weighting the 0s moves only the bias
    assert abs(model["a"] - 5.0) < 0.6 and abs(model["b"] + 1.0) < 0.5
    assert abs(model["bias"] + 2.0 + shift) < 0.5


def test_the_cut_is_judged_on_held_out_folds_and_folded_into_the_bias() -> None:
    rows = synthetic(600)
    runs = confidence_fit.held_out_probabilities(rows, ("a", "b"), folds=3, repeats=2)
    assert len(runs) == 2 and all(len(r) == len(rows) for r in runs)
    chosen = confidence_fit.balanced_cut(rows, runs)
    for cut in (chosen["cut"] - 0.1, chosen["cut"] + 0.1):  # its worse margin is the best
        other = confidence_fit.figures(rows, runs, cut)
        worse = min(
            other["kept_of_found"] - confidence_fit.KEPT_TARGET,
            other["unanswerable_recognised"] - confidence_fit.RECOGNISED_TARGET,
        )
        assert worse <= min(
            chosen["kept_of_found"] - confidence_fit.KEPT_TARGET,
            chosen["unanswerable_recognised"] - confidence_fit.RECOGNISED_TARGET,
        )
    model = confidence_fit.fit(rows, ("a", "b"))
    shipped = confidence_fit.calibrated(model, chosen["cut"], confidence.THRESHOLD)
    for x, _, _ in rows[:50]:  # the same decision at the shipped threshold as at the cut
        before = confidence_fit.predict(x, model) >= chosen["cut"]
        after = confidence_fit.predict(x, shipped) >= confidence.THRESHOLD
        margin = abs(confidence_fit.predict(x, model) - chosen["cut"])
        assert before == after or margin < 0.01


def test_the_shipped_model_reads_only_features_a_search_computes() -> None:
    for model in (confidence.COEFFICIENTS, confidence.SEMANTIC_COEFFICIENTS):
        assert set(model) - {"bias"} <= set(confidence.FEATURES)
    assert set(confidence_fit.FITTED) == set(confidence.COEFFICIENTS) - {"bias"}


def test_a_model_is_judged_on_a_store_it_was_not_fitted_on() -> None:
    home, alike = synthetic(400, seed=1), synthetic(400, seed=2)
    # another store whose scores run higher: the same features mean less there
    shifted = [({"a": x["a"] + 0.4, "b": x["b"]}, y, none) for x, y, none in synthetic(400, 3)]
    on_alike = confidence_fit.cross_store(home, alike, ("a", "b"))
    on_shifted = confidence_fit.cross_store(home, shifted, ("a", "b"))
    assert on_alike["cut"] == on_shifted["cut"]  # the cut is the home store's
    assert on_shifted["unanswerable_recognised"] < on_alike["unanswerable_recognised"] - 0.1


def test_pooled_folds_are_reported_by_store() -> None:
    rows = synthetic(300)
    stores = ["one" if i % 3 else "two" for i in range(len(rows))]
    runs = confidence_fit.held_out_probabilities(rows, ("a", "b"), folds=3, repeats=1)
    split = confidence_fit.by_store(rows, stores, runs, 0.5)
    assert set(split) == {"one", "two"}
    two = [i for i, s in enumerate(stores) if s == "two"]
    alone = confidence_fit.figures([rows[i] for i in two], [[runs[0][i] for i in two]], 0.5)
    assert split["two"] == alone


def test_the_second_tuning_store_loads_without_tasks() -> None:
    from tests.eval.realistic import load

    data = load(REPO / "tests" / "eval" / "tuning2")
    assert len(data.learnings) == 80 and data.tasks == []
    assert sum(1 for q in data.queries if not q.expected) >= 40


def test_the_separation_is_measured_whatever_the_cut() -> None:
    rows: list[Row] = [({}, 1, False), ({}, 1, False), ({}, 0, True), ({}, 0, False)]
    assert confidence_fit.auc(rows, [0.9, 0.8, 0.1, 0.2]) == 1.0
    assert confidence_fit.auc(rows, [0.1, 0.2, 0.9, 0.8]) == 0.0
    assert confidence_fit.auc(rows, [0.5, 0.5, 0.5, 0.5]) == 0.5  # ties count half
    assert confidence_fit.auc(rows, [0.9, 0.3, 0.5, 0.1]) == 0.75  # 0.3 loses to 0.5 only
    home, alike = synthetic(400, seed=1), synthetic(400, seed=2)
    judged = confidence_fit.cross_store(home, alike, ("a", "b"))
    assert 0.6 < judged["auc"] < 1.0  # the features predict, not perfectly
