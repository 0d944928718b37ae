"""A whole sandbox table as per-pairing arrays, and their metrics (shared by metrics and ranking).

:func:`check_inputs` checks the arguments of
:func:`mri_theory.evaluation.metrics.curve_metrics` (and of the ranking
functions built on it) and splits the table into pairings (:class:`Pairing`:
the curves of one (problem, classifier) pairing as one array of strategy x
replicate x curve point).  :func:`pairing_metrics` computes every metric of
every strategy of a pairing for any number of replicate weightings (one row:
the plain mean over replicates; many rows: bootstrap draws), and
:func:`metrics_frame` lays them out as the long table of ``curve_metrics``.
"""

from __future__ import annotations

from typing import Any, NamedTuple, cast

import numpy as np
import pandas as pd

from mri_theory.evaluation import _checks as evc
from mri_theory.evaluation import _kernels as kernel

#: The benchmark strategy (random selection) that WI compares against.
REFERENCE = "RS"
#: The oracle whose curve defines the regret (Appendix E, line ~1658).
BEST = "MRI-best"
#: Strategies that see the truth: never ranked (§5.1 compares practical methods only).
ORACLES = ("MRI-best", "MRI-worst")
#: Columns of the sandbox table that :func:`mri_theory.evaluation.metrics.curve_metrics` needs.
CURVE_COLUMNS = ["problem", "classifier", "strategy", "replicate", "n_labelled", "loss"]


class Pairing(NamedTuple):
    """One (problem, classifier) pairing's curves as arrays."""

    problem: str
    classifier: str
    strategies: list[str]
    n: np.ndarray  # (N,)
    loss: np.ndarray  # (S, R, N): strategy, replicate, curve point


class Inputs(NamedTuple):
    """The checked arguments of :func:`mri_theory.evaluation.metrics.curve_metrics`, the table split into
    pairings and the asymptotic loss of each pairing looked up."""

    pairings: list[Pairing]
    targets: dict[tuple[str, str], float]  # (problem, classifier) -> asymptotic loss
    mode: str
    alpha: float
    epsilon: float
    loss: str


def check_curves(curves: Any, loss: str = "error") -> pd.DataFrame:
    """The sandbox table (columns :data:`CURVE_COLUMNS`) of curves of the loss kind ``loss``, checked: names
    in the key columns, whole numbers >= 0 for the replicates and ``n_labelled``, losses in the kind's range."""
    evc.frame(curves, "curves", CURVE_COLUMNS)
    evc.frame_labels(curves, ["problem", "classifier", "strategy"], "curves", text=True)
    for column in ("replicate", "n_labelled"):
        evc.counts(curves[column].to_numpy(), f"curves[{column!r}]")
    evc.losses(evc.number_array(curves["loss"].to_numpy(), "curves['loss']"), "curves['loss']", loss)
    if curves.duplicated(["problem", "classifier", "strategy", "replicate", "n_labelled"]).any():
        raise ValueError("curves has duplicate rows for a (problem, classifier, strategy, replicate, n_labelled)")
    return curves


def split_pairings(curves: pd.DataFrame) -> list[Pairing]:
    """Split a checked sandbox table into pairings; every curve of a pairing must share ``n`` and replicates."""
    out = []
    for (problem, classifier), part in curves.groupby(["problem", "classifier"], sort=True):
        strategies = list(dict.fromkeys(part["strategy"]))
        if REFERENCE not in strategies:
            raise ValueError(f"curves: the pairing ({problem}, {classifier}) has no {REFERENCE} curve, "
                             "which WI needs")
        replicates = sorted(part["replicate"].unique())
        n = np.sort(part["n_labelled"].unique()).astype(float)
        if n.size < 2:
            raise ValueError(f"curves: the pairing ({problem}, {classifier}) has curves of fewer than 2 points")
        full = pd.MultiIndex.from_product([strategies, replicates, n], names=["strategy", "replicate", "n_labelled"])
        indexed = pd.Series(part["loss"].to_numpy(dtype=float), index=pd.MultiIndex.from_arrays(
            [part["strategy"], part["replicate"], part["n_labelled"].astype(float)]))
        if len(indexed) != len(full):
            raise ValueError(f"curves: in the pairing ({problem}, {classifier}) not every strategy has every "
                             f"replicate {replicates} at the same n values {n.tolist()} (paired curves are needed)")
        loss = indexed.reindex(full).to_numpy(dtype=float).reshape(len(strategies), len(replicates), n.size)
        # The key columns hold names (check_curves: text labels).
        out.append(Pairing(cast(str, problem), cast(str, classifier), strategies, n, loss))
    return out


def check_asymptotic(asymptotic: Any, pairings: list[Pairing], loss: str = "error"
                     ) -> dict[tuple[str, str], float]:
    """The asymptotic loss of each pairing (of the loss kind ``loss``), from the table ``asymptotic``."""
    evc.frame(asymptotic, "asymptotic", ["problem", "classifier", "asymptotic_loss"])
    evc.frame_labels(asymptotic, ["problem", "classifier"], "asymptotic", text=True)
    if asymptotic.duplicated(["problem", "classifier"]).any():
        raise ValueError("asymptotic has more than one row for a (problem, classifier)")
    values = evc.number_array(asymptotic["asymptotic_loss"].to_numpy(), "asymptotic['asymptotic_loss']")
    evc.losses(values, "asymptotic['asymptotic_loss']", loss)
    table = dict(zip(zip(asymptotic["problem"], asymptotic["classifier"], strict=True), values, strict=True))
    missing = [(p.problem, p.classifier) for p in pairings if (p.problem, p.classifier) not in table]
    if missing:
        raise ValueError(f"asymptotic has no row for the pairings {missing}")
    return {key: float(table[key]) for key in ((p.problem, p.classifier) for p in pairings)}


def check_inputs(curves: Any, asymptotic: Any, mode: Any, alpha: Any, epsilon: Any, loss: Any) -> Inputs:
    """The arguments of :func:`mri_theory.evaluation.metrics.curve_metrics`, checked in this order: ``loss``,
    ``mode``, ``alpha``, ``epsilon``, ``curves`` (split into pairings), ``asymptotic`` and the label-complexity
    target of each pairing."""
    loss = evc.loss_kind(loss)
    mode = evc.mode(mode)
    alpha = evc.nonnegative(alpha, "alpha")
    epsilon = evc.nonnegative(epsilon, "epsilon")
    pairings = split_pairings(check_curves(curves, loss))
    targets = check_asymptotic(asymptotic, pairings, loss)
    for asymptotic_value in targets.values():
        evc.lc_target(asymptotic_value, epsilon)
    return Inputs(pairings, targets, mode, alpha, epsilon, loss)


def pairing_metrics(pairing: Pairing, inputs: Inputs, weights: np.ndarray) -> dict[str, np.ndarray]:
    """Every metric of every strategy of one pairing, for each row of replicate ``weights`` (B, R).

    ``inputs.mode == "curve"``: the metrics of the weighted mean curve;
    ``"replicate"``: the weighted mean of the per-replicate metrics (WI against
    RS in the same replicate).  Returns arrays of shape (B, S).  ``regret`` is
    NaN without an MRI-best curve.  The area metric follows ``inputs.loss``
    (:func:`mri_theory.evaluation.metrics.metric_columns`).
    """
    n, loss, names = pairing.n, pairing.loss, pairing.strategies
    rs = names.index(REFERENCE)
    target = evc.lc_target(inputs.targets[(pairing.problem, pairing.classifier)], inputs.epsilon)
    alpha, kind = inputs.alpha, inputs.loss
    if inputs.mode == "curve":
        curves = np.einsum("br,srn->bsn", weights, loss)  # (B, S, N)
        lc, censored = kernel.label_complexity(n, curves, np.full(curves.shape[:2], target))
        out = {"label_complexity": lc, "lc_censored": censored.astype(float), **kernel.area(n, curves, kind),
               "alc": kernel.alc(n, curves)}
        for w in kernel.WEIGHTINGS:
            out[f"wi_{w}"] = kernel.wi(n, curves, curves[:, rs:rs + 1], w, alpha)
    else:
        lc, censored = kernel.label_complexity(n, loss, np.full(loss.shape[:2], target))
        per_replicate = {"label_complexity": lc, "lc_censored": censored.astype(float),
                         **kernel.area(n, loss, kind), "alc": kernel.alc(n, loss)}
        for w in kernel.WEIGHTINGS:
            per_replicate[f"wi_{w}"] = kernel.wi(n, loss, loss[rs:rs + 1], w, alpha)
        out = {k: weights @ v.T for k, v in per_replicate.items()}  # (B, R) @ (R, S)
    if BEST in names:
        gap = (loss - loss[names.index(BEST)]).mean(axis=-1)  # (S, R); linear, so the same in both modes
        out["regret"] = weights @ gap.T
    else:
        out["regret"] = np.full((weights.shape[0], len(names)), np.nan)
    return out


def metrics_frame(pairing: Pairing, values: dict[str, np.ndarray], columns: list[str],
                  draws: bool = False) -> pd.DataFrame:
    """Long table of the :func:`pairing_metrics` ``values`` named ``columns`` without the oracles; a ``draw``
    column (the row of the weights) when ``draws``."""
    keep = [i for i, s in enumerate(pairing.strategies) if s not in ORACLES]
    n_draws = values["label_complexity"].shape[0]
    frame = pd.DataFrame({"problem": pairing.problem, "classifier": pairing.classifier,
                          "method": np.tile([pairing.strategies[i] for i in keep], n_draws)})
    if draws:
        frame.insert(0, "draw", np.repeat(np.arange(n_draws), len(keep)))
    for column in columns:
        frame[column] = values[column][:, keep].ravel()
    frame["n_replicates"] = pairing.loss.shape[1]
    return frame


def draw_weights(rng: np.random.Generator, n_draws: int, r: int) -> np.ndarray:
    """``(n_draws, r)``: each draw's share of each of ``r`` replicates resampled with replacement (one
    ``rng.integers(0, r, (n_draws, r))`` call; a bincount per draw, without an ``r x r`` array)."""
    draws = rng.integers(0, r, size=(n_draws, r))
    counts = np.bincount((draws + r * np.arange(n_draws)[:, None]).ravel(), minlength=n_draws * r)
    return counts.reshape(n_draws, r) / r


def draw_slots(rng: np.random.Generator, strata: np.ndarray, n_draws: int) -> np.ndarray:
    """``(n_draws, P)``: the pairing that fills each of the ``P`` slots of each draw of the two-level bootstrap.

    Slot ``k`` keeps the stratum ``strata[k]`` of pairing ``k`` (its problem group): in each draw a stratum's
    slots are filled by its own pairings drawn with replacement, so every group keeps its number of pairings.
    One ``rng.integers`` call per stratum, strata in order of first appearance.
    """
    slots = np.empty((n_draws, strata.size), dtype=np.int64)
    for stratum in dict.fromkeys(strata.tolist()):
        members = np.flatnonzero(strata == stratum)
        slots[:, members] = members[rng.integers(0, members.size, size=(n_draws, members.size))]
    return slots


def two_level_weights(rng: np.random.Generator, pairings: list[Pairing], strata: np.ndarray, n_draws: int
                      ) -> tuple[np.ndarray, list[np.ndarray]]:
    """The two-level bootstrap's draws: the slots (:func:`draw_slots`), then, pairing by pairing (in order), the
    replicate weights (:func:`draw_weights`) of every (draw, slot) it fills, in row-major order of those slots.

    Returns ``slots`` ``(n_draws, P)`` and, per pairing ``j``, its weights ``(count of slots == j, r_j)``.
    """
    slots = draw_slots(rng, strata, n_draws)
    weights = [draw_weights(rng, int(np.count_nonzero(slots == j)), p.loss.shape[1]) for j, p in enumerate(pairings)]
    return slots, weights
