r"""Iterated AL on the §3.2 problem with noisy estimates of the exact :math:`Q^c`.

The demonstration of §3.3's guarantee: at every step each strategy selects
from a finite pool by the argmax of :math:`\hat Q = Q^c + M` with
:math:`M \sim N(0, \sigma^2)` i.i.d. over the pool, where :math:`Q^c` is the
exact closed form of :func:`mri_theory.two_gaussians.q_c`.  ``sigma = 0`` is
the optimal selection, ``sigma = inf`` is random selection (RS), and the
``worst`` strategy takes the argmin of :math:`Q^c`.  The learning curve is the
exact error rate (Eq. ``le_equation_1``) after each label.

Noise levels are *relative*: ``sigma = relative_sigma * sd(Q^c over the pool)``
at each step, because the scale of :math:`Q^c` shrinks as the classifier
improves; a fixed absolute ``sigma`` would drift from "precise" to "pure
noise" along the curve.
"""

from __future__ import annotations

import warnings
from typing import Sequence

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from mri_theory import _validation as check
from mri_theory.guarantee import _argmax_random_ties
from mri_theory.two_gaussians import MeanClassifier, TwoGaussians, error_rate, q_c

__all__ = ["DEFAULT_RELATIVE_SIGMAS", "strategy_label", "noisy_selection_curves"]

#: Default noise levels, relative to the pool's sd of Q^c: optimal, three noisy, RS.
DEFAULT_RELATIVE_SIGMAS: tuple[float, ...] = (0.0, 0.5, 1.0, 2.0, np.inf)

WORST = "worst"


def strategy_label(relative_sigma: float) -> str:
    """Display name of the noisy-argmax strategy at a relative noise level."""
    if relative_sigma == 0:
        return "optimal (sigma=0)"
    if np.isinf(relative_sigma):
        return "RS (sigma=inf)"
    return f"noisy (sigma={relative_sigma:g} sd)"


def _select(q: np.ndarray, relative_sigma: float | None, rng: np.random.Generator) -> int:
    """Index chosen from pool values ``q``: noisy argmax, or argmin when ``relative_sigma`` is None."""
    if relative_sigma is None:
        return int(_argmax_random_ties(-q[None, :], rng)[0])
    if np.isinf(relative_sigma):
        return int(rng.integers(q.size))
    noisy = q + rng.normal(0.0, relative_sigma * q.std(), size=q.size)
    return int(_argmax_random_ties(noisy[None, :], rng)[0])


def _one_replicate(problem, relative_sigmas, pool_size, budget, seed_seq) -> list[dict]:
    data_seq, *strategy_seqs = seed_seq.spawn(1 + len(relative_sigmas) + 1)
    data_rng = np.random.default_rng(data_seq)
    x0, y0 = problem.sample_with_counts((1, 1), data_rng)
    x_pool, y_pool = problem.sample(pool_size, data_rng)  # labels revealed when selected
    rows = []
    for level, seq in zip(list(relative_sigmas) + [None], strategy_seqs):
        rng = np.random.default_rng(seq)
        name = WORST if level is None else strategy_label(level)
        clf = MeanClassifier.fit(x0, y0, sigma=problem.sigma, prior=problem.prior)
        available = np.arange(pool_size)
        for n_labelled in range(2, 2 + budget + 1):
            rows.append({"strategy": name, "relative_sigma": np.nan if level is None else level,
                         "n_labelled": n_labelled, "error_rate": error_rate(problem, clf)})
            if n_labelled == 2 + budget:
                break
            pick = available[_select(q_c(problem, clf, x_pool[available]), level, rng)]
            clf = clf.retrained(x_pool[pick], y_pool[pick])
            available = available[available != pick]
    return rows


def noisy_selection_curves(
    relative_sigmas: Sequence[float] = DEFAULT_RELATIVE_SIGMAS,
    replicates: int = 200,
    pool_size: int = 100,
    budget: int = 30,
    seed: int = 0,
    problem: TwoGaussians | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    r"""Learning curves of noisy-:math:`Q^c` selection on the two-Gaussian problem.

    Each replicate draws one labelled point per class and a pool of
    ``pool_size`` labelled points from ``problem`` (labels hidden until
    selected); every strategy starts from the *same* data (a paired design)
    and labels ``budget`` pool points one at a time, retraining the
    :class:`~mri_theory.two_gaussians.MeanClassifier` after each.

    Parameters
    ----------
    relative_sigmas : sequence of float
        Noise levels ``>= 0`` relative to the sd of :math:`Q^c` over the
        remaining pool; ``0`` is optimal, ``inf`` is RS.  A ``worst``
        strategy (argmin of :math:`Q^c`) is always added.
    replicates : int
        Monte Carlo replicates; replicate ``r`` uses the ``r``-th child of
        ``numpy.random.SeedSequence(seed)``, so results do not depend on how
        many replicates are run.
    pool_size, budget : int
        Pool size, and number of labels to acquire (``budget <= pool_size``).
    seed : int
    problem : TwoGaussians, optional
        Default: the paper's problem.
    progress : bool
        Show a tqdm progress bar over replicates.

    Returns
    -------
    pandas.DataFrame
        Tidy: ``strategy, relative_sigma, replicate, n_labelled, error_rate``
        (``n_labelled`` from 2 to ``2 + budget``).  If interrupted
        (``KeyboardInterrupt``) the finished replicates are returned with a
        warning.
    """
    problem = TwoGaussians() if problem is None else problem
    if not isinstance(problem, TwoGaussians):
        raise TypeError(f"problem must be a TwoGaussians, got {type(problem).__name__}")
    levels = [float(s) for s in np.atleast_1d(check.real_array(relative_sigmas, "relative_sigmas"))]
    if any(np.isnan(s) or s < 0 for s in levels):
        raise ValueError(f"relative_sigmas must be >= 0 (inf allowed), got {relative_sigmas!r}")
    replicates = check.count(replicates, "replicates")
    pool_size = check.count(pool_size, "pool_size")
    budget = check.count(budget, "budget")
    if budget > pool_size:
        raise ValueError(f"budget ({budget}) must not exceed pool_size ({pool_size})")
    seeds = np.random.SeedSequence(check.count(seed, "seed", minimum=0)).spawn(replicates)
    frames = []
    try:
        for r, seq in enumerate(tqdm(seeds, desc="replicates", disable=not progress)):
            frame = pd.DataFrame(_one_replicate(problem, levels, pool_size, budget, seq))
            frames.append(frame.assign(replicate=r))
    except KeyboardInterrupt:
        warnings.warn(f"interrupted: returning the {len(frames)} finished replicates", stacklevel=2)
    if not frames:
        raise KeyboardInterrupt
    columns = ["strategy", "relative_sigma", "replicate", "n_labelled", "error_rate"]
    return pd.concat(frames, ignore_index=True)[columns]
