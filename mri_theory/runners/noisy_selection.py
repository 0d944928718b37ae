r"""The §3.3 demonstration: iterated AL selecting by noisy estimates of the true :math:`Q^c`.

§3.3 argues that an *unbiased* estimator of :math:`Q^c` with i.i.d. errors
selects better than random selection (RS) at every noise level.
:class:`NoisyOracle` is that estimator as a sandbox strategy: at every step it
scores each candidate by :math:`\hat Q = Q^c + M`, :math:`M \sim N(0, \sigma^2)`
i.i.d. over the candidates, where :math:`Q^c` is the true value of Eq. ``eqc``
(:func:`mri_theory.engine.targets.true_q_c`, as MRI-best).  ``sigma = 0`` is
MRI-best's choice (optimal single selection), ``sigma = inf`` is RS.

:func:`noisy_selection_curves` runs the demonstration in the sandbox
(:func:`mri_theory.runners.sandbox.run_curves`) on the §3.2 problem
(``"two-gaussians"``, :math:`N(\mp 1, 1)`) with the mean classifier
(``"mean"``): one AL loop, one seeding scheme and one column vocabulary with
every other strategy.

Noise levels are *relative* by default: ``sigma`` times the sd of :math:`Q^c`
over the scored candidates at each step, because the scale of :math:`Q^c`
shrinks as the classifier improves; a fixed absolute ``sigma`` would drift from
"precise" to "pure noise" along the curve.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mri_theory._utils import validation as check
from mri_theory._utils.backends import Execution
from mri_theory.analytic.guarantee import check_sigma
from mri_theory.engine.targets import true_q_c
from mri_theory.runners._docstrings import fill_doc
from mri_theory.runners.sandbox import run_curves
from mri_theory.strategies import Context, MRIWorst, Strategy

__all__ = ["DEFAULT_RELATIVE_SIGMAS", "POPULATION_SIZE", "NoisyOracle", "noisy_selection_curves"]

#: Default noise levels, relative to the sd of Q^c over the candidates: optimal, three noisy, RS.
DEFAULT_RELATIVE_SIGMAS: tuple[float, ...] = (0.0, 0.5, 1.0, 2.0, np.inf)

#: Sampled evaluation population of :func:`noisy_selection_curves` with ``truth="sampled"`` (a scrambled
#: Sobol' sequence of :math:`2^{10}` points, exact posteriors).  Against the exact error rate of
#: :func:`mri_theory.analytic.two_gaussians.error_rate` its loss has sd about 2e-4 (unbiased) over
#: random mean classifiers; it is shared by all strategies in a replicate.  With the default
#: ``truth="auto"`` the truth is exact and the population only fixes the replicate's data stream.
POPULATION_SIZE = 1024


def _level_text(sigma: float) -> str:
    """``sigma`` in a file-safe text that round-trips (``0.5``, ``1e-05``, ``inf``)."""
    short = f"{sigma:g}"
    return short if float(short) == sigma else repr(sigma)


class NoisyOracle(Strategy):
    r"""Argmax of the true :math:`Q^c` plus Gaussian noise: the unbiased estimator of §3.3.

    Scores :math:`\hat Q(x) = Q^c(x) + M(x)` with :math:`M(x) \sim N(0, s^2)`
    i.i.d. over the candidates, drawn from ``ctx.rng``; :math:`Q^c` is the
    true value of Eq. ``eqc`` on the problem's population
    (:func:`mri_theory.engine.targets.true_q_c`, as :class:`~mri_theory.strategies.MRIBest`).
    The noise sd is :math:`s = \sigma \cdot \mathrm{sd}(Q^c)` over the scored
    candidates (``relative=True``, population sd) or :math:`s = \sigma`.

    * ``sigma = 0`` (or :math:`s = 0`): the scores are MRI-best's, and
      :func:`~mri_theory.strategies.select` makes MRI-best's choice with the
      same draws from ``ctx.rng``.
    * ``sigma = inf``: all scores 0 and no :math:`Q^c` is computed, so the
      tie-break picks uniformly: RS.

    Parameters
    ----------
    sigma : float
        Noise level ``>= 0``; ``inf`` allowed.
    relative : bool, default True
        Scale ``sigma`` by the sd of :math:`Q^c` over the candidates.
    loss : {"error", "log"}
        The loss whose :math:`Q^c` is estimated.

    Attributes
    ----------
    name : str
        ``"noisy-{sigma}sd"`` (relative) or ``"noisy-{sigma}"`` (absolute),
        with ``"-log"`` appended for the log loss: distinct parameters give
        distinct names, safe in file names, so several run side by side.
        The ``repr`` (:class:`~mri_theory.strategies.Strategy`'s) shows the
        parameters: ``NoisyOracle(sigma=0.5, relative=True, loss='error')``.

    See Also
    --------
    mri_theory.strategies.MRIBest : The noiseless oracle, ``sigma = 0``.
    mri_theory.runners.noisy_selection_curves : The learning curves of several noise levels.

    Examples
    --------
    >>> import numpy as np
    >>> from mri_theory.runners import NoisyOracle
    >>> NoisyOracle(0.5).name, NoisyOracle(np.inf).name, NoisyOracle(0.01, relative=False, loss="log").name
    ('noisy-0.5sd', 'noisy-infsd', 'noisy-0.01-log')

    The scores of 5 candidates of the §3.2 problem for the mean classifier trained on 6 points: without noise
    they are the true :math:`Q^c`, with infinite noise all 0 (random selection), and otherwise the true
    :math:`Q^c` plus noise drawn from the context's generator, of sd ``sigma`` times the sd of :math:`Q^c`:

    >>> from mri_theory.classifiers import get_classifier
    >>> from mri_theory.engine import Population, true_q_c
    >>> from mri_theory.problems import get_problem
    >>> from mri_theory.strategies import Context
    >>> problem, rng, mean = get_problem("two-gaussians"), np.random.default_rng(0), get_classifier("mean")
    >>> X, y = problem.sample(6, rng)
    >>> pool = problem.sample(5, rng)[0]
    >>> ctx = Context(X, y, candidates=pool, pool=pool, classifier=mean, n_classes=2, rng=np.random.default_rng(1),
    ...               problem=problem, population=Population.exact(problem))
    >>> truth = true_q_c(problem, mean, X, y, pool, ctx.population)
    >>> bool(np.allclose(NoisyOracle(0).scores(ctx), truth)), NoisyOracle(np.inf).scores(ctx).tolist()
    (True, [0.0, 0.0, 0.0, 0.0, 0.0])
    >>> noise = np.random.default_rng(1).normal(0.0, 2 * truth.std(), size=5)
    >>> bool(np.allclose(NoisyOracle(2.0).scores(ctx), truth + noise))
    True
    """

    costly = True
    needs_truth = True

    def __init__(self, sigma: float, relative: bool = True, loss: str = "error") -> None:
        self.sigma = check_sigma(sigma)
        self.relative = check.flag(relative, "relative")
        if loss not in ("error", "log"):
            raise ValueError(f"loss must be 'error' or 'log' (a loss of the truth), got {loss!r}")
        self.loss = loss

    # Read-only, computed from the parameters (Strategy.name is a plain attribute: the runners only read it).
    @property
    def name(self) -> str:  # type: ignore[override]
        """The label of the oracle's rows: ``noisy-<sigma>`` (``sd`` appended when relative, the loss when not
        the error rate)."""
        return (f"noisy-{_level_text(self.sigma)}{'sd' if self.relative else ''}"
                f"{'' if self.loss == 'error' else '-' + self.loss}")

    def scores(self, ctx: Context) -> np.ndarray:
        """The true :math:`Q^c` of each candidate plus Gaussian noise of sd ``sigma`` (relative: times the sd of
        :math:`Q^c` over the candidates); all zero (random selection) for an infinite ``sigma``.

        Parameters
        ----------
        ctx : Context
            The state; it must carry the problem and its population (the truth).

        Returns
        -------
        ndarray of shape (m,)
            The scores of the candidates.
        """
        if ctx.problem is None or ctx.population is None:
            raise ValueError(f"{self.name} needs the truth: pass problem and population")
        m = ctx.candidates.shape[0]
        if np.isinf(self.sigma):
            return np.zeros(m)
        q = true_q_c(ctx.problem, ctx.classifier, ctx.X, ctx.y, ctx.candidates, ctx.population, self.loss)
        scale = self.sigma * q.std() if self.relative else self.sigma
        if scale == 0:
            return q
        return q + ctx.rng.normal(0.0, scale, size=m)


@fill_doc
def noisy_selection_curves(
    relative_sigmas: Sequence[float] = DEFAULT_RELATIVE_SIGMAS,
    replicates: int = 200,
    pool_size: int = 100,
    budget: int = 30,
    seed: int = 0,
    population_size: int = POPULATION_SIZE,
    record_q_c: bool = False,
    *,
    truth: str = "auto",
    execution: Execution | None = None,
) -> pd.DataFrame:
    r"""Learning curves of noisy-:math:`Q^c` selection on the §3.2 problem (the §3.3 demonstration).

    Exactly :func:`mri_theory.runners.sandbox.run_curves` with ``problem="two-gaussians"``,
    ``classifier="mean"``, ``loss="error"``, ``subsample=None`` (every
    remaining pool point is scored) and the strategies
    ``[NoisyOracle(s) for s in relative_sigmas] + [MRIWorst()]``.  Each
    replicate draws one labelled point per class, a pool and a QMC evaluation
    population; every strategy starts from the *same* data (paired) and
    labels ``budget`` pool points one at a time, retraining after each.

    Parameters
    ----------
    relative_sigmas : sequence of float
        Distinct noise levels ``>= 0`` relative to the sd of :math:`Q^c` over
        the remaining pool (:class:`NoisyOracle`); ``0`` is MRI-best's
        choice, ``inf`` is RS.  MRI-worst (argmin of :math:`Q^c`) is always added.
    replicates, pool_size, budget, seed, execution
        As in :func:`~mri_theory.runners.sandbox.run_curves` (``budget <= pool_size``).
    population_size : int, default :data:`POPULATION_SIZE`
        The sampled evaluation population (``truth="sampled"``; see
        :data:`POPULATION_SIZE`).
    %(truth)s
        The mean classifier on this problem has an exact path, so ``"auto"``
        makes the learning curve the exact error rate, Eq. ``le_equation_1``
        (:func:`mri_theory.analytic.two_gaussians.error_rate`), and the oracles'
        :math:`Q^c` exact; ``"sampled"`` measures both on the population.
        The rest as in :func:`~mri_theory.runners.sandbox.run_curves`.
    record_q_c : bool, default False
        Record the true :math:`Q^c` of the chosen and best candidates (one
        more :func:`~mri_theory.engine.targets.true_q_c` per step and strategy).

    Returns
    -------
    pandas.DataFrame
        The table of :func:`~mri_theory.runners.sandbox.run_curves`, columns
        :data:`mri_theory.runners.sandbox.RESULT_COLUMNS` (the curve is ``loss``, the
        error rate; ``strategy`` holds :attr:`NoisyOracle.name`, e.g.
        ``noisy-0.5sd``, and ``MRI-worst``).

    Raises
    ------
    ValueError, TypeError
        Naming the argument, before any work is done.

    See Also
    --------
    mri_theory.runners.NoisyOracle : The noisy estimator of one level.
    mri_theory.analytic.error_rate : The exact error rate of the mean classifier, the curve's loss.

    Examples
    --------
    The noiseless oracle (0) and random selection (``inf``), with MRI-worst, labelling 3 of a pool of 5 in two
    replicates:

    >>> import numpy as np
    >>> from mri_theory.runners import Execution, noisy_selection_curves
    >>> curves = noisy_selection_curves((0.0, np.inf), replicates=2, pool_size=5, budget=3, record_q_c=True,
    ...                                 execution=Execution(progress=False))
    >>> curves.groupby("strategy", sort=False).size().to_dict()  # 2 replicates x (the initial set, then 3 labels)
    {'noisy-0sd': 8, 'noisy-infsd': 8, 'MRI-worst': 8}

    Without noise the choice is the best true :math:`Q^c` at every step; no classifier beats the Bayes error
    :math:`\Phi(-1)`:

    >>> best = curves[(curves.strategy == "noisy-0sd") & (curves.chosen >= 0)]
    >>> bool((best.q_c_chosen == best.q_c_best).all())
    True
    >>> from mri_theory.problems import get_problem
    >>> bool((curves.loss >= get_problem("two-gaussians").bayes_error).all())
    True

    The truth is exact (``truth="auto"``): the first loss of replicate 0 is the closed-form error rate of the
    mean classifier of its initial set, one point per class, drawn as :func:`~mri_theory.runners.run_curves`
    draws it:

    >>> from mri_theory.analytic import MeanClassifier, TwoGaussians, error_rate
    >>> stream = np.random.default_rng(np.random.SeedSequence(0, spawn_key=(0, 0)))
    >>> X0, y0 = get_problem("two-gaussians").draw_replicate(5, 1024, stream)[:2]
    >>> exact = error_rate(TwoGaussians(), MeanClassifier(mu_hat=(X0[y0 == 0, 0][0], X0[y0 == 1, 0][0]), n=(1, 1)))
    >>> first = curves.loc[(curves.replicate == 0) & (curves.n_labelled == 2), "loss"]
    >>> bool(np.allclose(first, exact)), round(exact, 4)
    (True, 0.2221)
    """
    sigmas = check.real_array(relative_sigmas, "relative_sigmas")
    if sigmas.ndim > 1 or sigmas.size == 0:
        raise ValueError(f"relative_sigmas must be a non-empty sequence of noise levels, got {relative_sigmas!r}")
    if np.any(np.isnan(sigmas)) or np.any(sigmas < 0):
        raise ValueError(f"relative_sigmas must be >= 0 (inf allowed), got {relative_sigmas!r}")
    levels = [float(s) for s in np.atleast_1d(sigmas)]
    if len(set(levels)) != len(levels):
        raise ValueError(f"relative_sigmas must be distinct, got {relative_sigmas!r}")
    strategies = [NoisyOracle(s) for s in levels] + [MRIWorst()]
    return run_curves(problem="two-gaussians", classifier="mean", strategies=strategies, pool_size=pool_size,
                      replicates=replicates, seed=seed, budget=budget,
                      population_size=population_size, loss="error", subsample=None, record_q_c=record_q_c,
                      truth=truth, execution=execution)
