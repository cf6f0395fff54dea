"""Fitting the match-confidence model (`eval_search.py --fit`): a logistic regression on
the top result of each labelled query, cross-validated, with its cut calibrated on the
held-out folds.

The decision the model serves is "is there an answer in these results at all", made on
the top result, so each query gives one row: its top result's features and 1 if the top
5 answer it (an unanswerable query, or an answer the top 5 missed, counts 0).

Generalising rather than memorising, with ~400 rows and ~90 negatives:

- few features (`FITTED`), each domain-independent: the share of the query's idf weight
  (among the words the store holds) and of its words the result holds, the idf it holds
  in all, the share in its summary, its lead over the next result, the query's length and
  whether it is one word;
- Newton's method on the weighted log-loss with a little L2: exact, and instant;
- the cut where the model says "confident" is chosen on held-out folds (5-fold, repeated),
  not in-sample: the one that best meets both targets at once (answers kept, unanswerable
  recognised), then folded into the bias so `confidence.THRESHOLD` stays where it is;
- the rows come from more than one store (a model fitted on one store's score ranges did not
  carry over to another), and the check holds out by store too: fit on one, judge the other
  (`cross_store`), beside the pooled folds' figures split by store (`by_store`).
"""

from __future__ import annotations

import math
import random

FITTED = (
    "known_coverage",
    "gap",
    "weight",
    "summary",
    "matched",
    "length",
    "single",
    "rarest_share",
)
# With vectors, `rarest_share` did not help a model fitted on two stores judge the third.
SEMANTIC_FITTED = (*(n for n in FITTED if n != "rarest_share"), "cosine")
NEGATIVE_WEIGHT = 3.0  # unanswerable queries are ~15 % of a realistic mix, and cost most
L2 = 1e-4
KEPT_TARGET = 0.95  # of answerable queries whose answer is in the top 5, kept confident
RECOGNISED_TARGET = 0.85  # of unanswerable queries, shown nothing in agent contexts

Row = tuple[dict[str, float], int, bool]  # features, label, unanswerable


def fit(rows: list[Row], names: tuple[str, ...]) -> dict[str, float]:
    """Weighted L2-regularised logistic regression by Newton's method."""
    keys = ("bias", *names)
    beta = [0.0] * len(keys)
    samples = [([1.0, *(x[n] for n in names)], y) for x, y, _ in rows]
    total = sum(1.0 if y else NEGATIVE_WEIGHT for _, y in samples)
    for _ in range(50):
        grad = [L2 * total * b if i else 0.0 for i, b in enumerate(beta)]
        hess = [[(L2 * total if i == j and i else 0.0) for j in keys] for i in keys]
        for x, y in samples:
            p = _sigmoid(sum(b * v for b, v in zip(beta, x, strict=True)))
            weight = 1.0 if y else NEGATIVE_WEIGHT
            for i, xi in enumerate(x):
                grad[i] += weight * (p - y) * xi
                for j, xj in enumerate(x):
                    hess[i][j] += weight * p * (1 - p) * xi * xj
        step = _solve(hess, grad)
        beta = [b - s for b, s in zip(beta, step, strict=True)]
        if max(abs(s) for s in step) < 1e-9:
            break
    return dict(zip(keys, beta, strict=True))


def held_out_probabilities(
    rows: list[Row], names: tuple[str, ...], folds: int = 5, repeats: int = 4
) -> list[list[float]]:
    """Per repeat, each row's probability from a model fitted without its fold."""
    out = []
    for repeat in range(repeats):
        order = list(range(len(rows)))
        random.Random(repeat).shuffle(order)
        probabilities = [0.0] * len(rows)
        for fold in range(folds):
            held = set(order[fold::folds])
            model = fit([r for i, r in enumerate(rows) if i not in held], names)
            for i in held:
                probabilities[i] = predict(rows[i][0], model)
        out.append(probabilities)
    return out


def figures(rows: list[Row], runs: list[list[float]], cut: float) -> dict[str, float]:
    """Kept (of the answerable rows labelled 1) and recognised (of the unanswerable), at
    `cut`, averaged over the repeats."""
    kept = recognised = 0.0
    answered = sum(1 for _, y, none in rows if y and not none) or 1
    unanswerable = sum(1 for _, _, none in rows if none) or 1
    for probabilities in runs:
        kept += sum(
            p >= cut for p, (_, y, n) in zip(probabilities, rows, strict=True) if y and not n
        )
        recognised += sum(p < cut for p, (_, _, n) in zip(probabilities, rows, strict=True) if n)
    return {
        "cut": round(cut, 3),
        "kept_of_found": round(kept / len(runs) / answered, 3),
        "unanswerable_recognised": round(recognised / len(runs) / unanswerable, 3),
    }


def balanced_cut(rows: list[Row], runs: list[list[float]]) -> dict[str, float]:
    """The held-out cut whose worse margin over the two targets is largest."""
    candidates = [figures(rows, runs, cut / 200) for cut in range(10, 140)]
    return max(
        candidates,
        key=lambda f: min(
            f["kept_of_found"] - KEPT_TARGET, f["unanswerable_recognised"] - RECOGNISED_TARGET
        ),
    )


def cross_store(train: list[Row], test: list[Row], names: tuple[str, ...]) -> dict[str, float]:
    """Fit on one store (its cut chosen on its own held-out folds) and judge on another:
    what a model fitted on one store's vocabulary and score ranges does elsewhere. Beside
    the figures at the cut, which move with where the cut lands, the separation itself."""
    cut = balanced_cut(train, held_out_probabilities(train, names))["cut"]
    model = fit(train, names)
    probabilities = [predict(x, model) for x, _, _ in test]
    return {**figures(test, [probabilities], cut), "auc": auc(test, probabilities)}


def auc(rows: list[Row], probabilities: list[float]) -> float:
    """The chance that a row labelled 1 scores above a row labelled 0 (ties count half):
    how well the model separates them, whatever the cut."""
    ones = sorted(p for p, (_, y, _) in zip(probabilities, rows, strict=True) if y)
    zeros = sorted(p for p, (_, y, _) in zip(probabilities, rows, strict=True) if not y)
    if not ones or not zeros:
        return 0.5
    import bisect

    wins = sum(bisect.bisect_left(zeros, p) + bisect.bisect_right(zeros, p) for p in ones) / 2
    return round(wins / (len(ones) * len(zeros)), 3)


def by_store(
    rows: list[Row], stores: list[str], runs: list[list[float]], cut: float
) -> dict[str, dict[str, float]]:
    """The pooled held-out figures at `cut`, split by the store each row came from."""
    out = {}
    for store in dict.fromkeys(stores):
        keep = [i for i, s in enumerate(stores) if s == store]
        out[store] = figures([rows[i] for i in keep], [[r[i] for i in keep] for r in runs], cut)
    return out


def calibrated(model: dict[str, float], cut: float, threshold: float) -> dict[str, float]:
    """The model with its bias moved so that probability `cut` now reads `threshold`."""
    shifted = dict(model)
    shifted["bias"] += _logit(threshold) - _logit(cut)
    return {k: round(v, 3) for k, v in shifted.items()}


def predict(x: dict[str, float], model: dict[str, float]) -> float:
    return _sigmoid(model["bias"] + sum(w * x[n] for n, w in model.items() if n != "bias"))


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(min(z, 30.0), -30.0)))


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting: eight unknowns need no numpy."""
    n = len(vector)
    a = [[*row, v] for row, v in zip(matrix, vector, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        if abs(a[col][col]) < 1e-12:
            a[col][col] = 1e-12
        for r in range(col + 1, n):
            factor = a[r][col] / a[col][col]
            for c in range(col, n + 1):
                a[r][c] -= factor * a[col][c]
    solution = [0.0] * n
    for r in range(n - 1, -1, -1):
        solution[r] = (a[r][n] - sum(a[r][c] * solution[c] for c in range(r + 1, n))) / a[r][r]
    return solution
