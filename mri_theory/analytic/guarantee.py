r"""The guarantee of §3.3: unbiased :math:`\hat Q^c` estimation beats random selection.

The paper models an unbiased estimator as :math:`\hat Q_i = Q_i + M_i` with
independent :math:`M_i \sim N(0, \sigma^2)`.  For two candidates with
:math:`\Delta = Q_1 - Q_2 > 0` the better one is picked with probability
(Eq. ``lambda``)

.. math:: \lambda = \tfrac12 + \beta, \qquad
          \beta = P(0 \le N < \Delta), \quad N = M_2 - M_1 \sim N(0, 2\sigma^2),

so :math:`\lambda = \Phi(\Delta / (\sigma\sqrt2))`: above ``1/2`` (random
selection) for every finite :math:`\sigma`, tending to ``1/2`` as
:math:`\sigma \to \infty` (Appendix A) and to ``1`` as :math:`\sigma \to 0`
(Appendix B).

This module makes the argument computable (:func:`selection_probability`,
:func:`beta`), checkable by simulation
(:func:`monte_carlo_selection_probability`), and extends it to pools of any size
and to other noise families (:func:`simulate_selection`), including estimators
that break the assumption and fall below random selection.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from mri_theory._utils import validation as check
from mri_theory._utils.ties import TIE_TOLERANCE, near_maximum

__all__ = [
    "selection_probability",
    "beta",
    "monte_carlo_selection_probability",
    "Noise",
    "GaussianNoise",
    "StudentTNoise",
    "UniformNoise",
    "BiasedNoise",
    "HeteroscedasticNoise",
    "EmpiricalNoise",
    "NOISE_FAMILIES",
    "SelectionSimulation",
    "simulate_selection",
]

_CHUNK_CELLS = 2**21  # estimates generated per chunk (bounded memory)


def _delta_sigma(delta: ArrayLike, sigma: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    delta = check.finite_array(delta, "delta")
    sigma = check.real_array(sigma, "sigma")
    if np.any(np.isnan(sigma)) or np.any(sigma < 0):
        raise ValueError(f"sigma must be >= 0 (inf allowed), got {sigma!r}")
    try:
        np.broadcast_shapes(delta.shape, sigma.shape)
    except ValueError as exc:
        raise ValueError(f"delta and sigma must broadcast together, "
                         f"got shapes {delta.shape} and {sigma.shape}") from exc
    return delta, sigma


def check_sigma(sigma: Any) -> float:
    """``sigma`` as one noise level ``>= 0`` (``inf`` allowed)."""
    arr = _delta_sigma(0.0, sigma)[1]
    if arr.ndim != 0:
        raise TypeError(f"sigma must be a scalar, got shape {arr.shape}")
    return float(arr)


def beta(delta: ArrayLike, sigma: ArrayLike) -> np.ndarray | float:
    r"""The ranking term :math:`\beta = P(0 \le N < |\Delta|) = \tfrac12\,\mathrm{erf}(|\Delta| / (2\sigma))`.

    Appendix A: :math:`\beta \to 0` as :math:`\sigma \to \infty`; Appendix B:
    :math:`\beta \to 1/2` as :math:`\sigma \to 0`.  Broadcasts over arrays.

    Parameters
    ----------
    delta : array_like
        :math:`\Delta = Q_1 - Q_2` (finite).  Its sign only says which
        candidate is optimal; :math:`\beta` depends on :math:`|\Delta|` (the
        paper's :math:`\beta_2` for :math:`\Delta < 0`).
    sigma : array_like
        Noise sd of each estimate, ``>= 0``; ``inf`` allowed.

    Returns
    -------
    float or ndarray
        In ``[0, 1/2]``; ``0`` when ``delta = 0``, ``1/2`` when
        ``sigma = 0 < |delta|``.

    See Also
    --------
    mri_theory.analytic.selection_probability : :math:`\lambda = 1/2 + \beta`.

    Examples
    --------
    >>> import math
    >>> from mri_theory.analytic import beta
    >>> round(beta(1.0, 1.0), 6), round(0.5 * math.erf(0.5), 6)
    (0.26025, 0.26025)

    Appendix B's limit (no noise) and Appendix A's (infinite noise), and no gap to rank:

    >>> beta(1.0, 0.0), beta(1.0, float("inf")), beta(0.0, 1.0)
    (0.5, 0.0, 0.0)
    """
    delta, sigma = _delta_sigma(delta, sigma)
    gap = np.abs(delta)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = np.where(gap == 0, 0.0, gap / (2 * sigma))  # erf(inf) = 1, erf(0) = 0
    out = 0.5 * special.erf(z)
    return float(out) if out.ndim == 0 else out


def selection_probability(delta: ArrayLike, sigma: ArrayLike) -> np.ndarray | float:
    r"""Probability :math:`\lambda` that argmax of the noisy estimates picks the better of two candidates.

    :math:`\lambda = \tfrac12 + \beta = \Phi(|\Delta| / (\sigma\sqrt2))` (Eq. ``lambda``),
    since :math:`N = M_2 - M_1` has variance :math:`2\sigma^2`.

    Parameters
    ----------
    delta : array_like
        :math:`\Delta = Q_1 - Q_2`, finite.  For :math:`\Delta < 0` (the
        paper's second case) the optimal candidate is :math:`x_2` and the
        function returns the probability of picking *it*,
        :math:`\tfrac12 + \beta_2` with :math:`\beta_2 = P(0 \le N < -\Delta)`:
        the result is symmetric in :math:`\Delta`.  For :math:`\Delta = 0` both
        candidates are optimal and ``1/2`` is returned (a fair tie-break).
    sigma : array_like
        Noise sd of each estimate, ``>= 0``; ``sigma = 0`` with
        :math:`\Delta \ne 0` gives ``1``, ``sigma = inf`` gives ``1/2``.

    Returns
    -------
    float or ndarray
        :math:`\lambda \in [1/2, 1]`, broadcast over ``delta`` and ``sigma``.

    See Also
    --------
    mri_theory.analytic.beta : The ranking term :math:`\lambda - 1/2`.
    mri_theory.analytic.monte_carlo_selection_probability : The same probability by simulation.

    Examples
    --------
    :math:`\lambda = \Phi(\Delta / (\sigma\sqrt2))`, above 1/2 for every finite noise level:

    >>> import math
    >>> from scipy.stats import norm
    >>> from mri_theory.analytic import selection_probability
    >>> round(selection_probability(1.0, 1.0), 6), round(float(norm.cdf(1 / math.sqrt(2))), 6)
    (0.76025, 0.76025)
    >>> selection_probability(1.0, [0.0, 1.0, 10.0, float("inf")]).round(4).tolist()
    [1.0, 0.7602, 0.5282, 0.5]

    Symmetric in :math:`\Delta`, and a fair coin for a tie:

    >>> selection_probability([1.0, -1.0, 0.0], 1.0).round(4).tolist()
    [0.7602, 0.7602, 0.5]
    """
    out = 0.5 + np.asarray(beta(delta, sigma))
    return float(out) if out.ndim == 0 else out


def _sampling_args(n_draws: Any, rng: Any) -> tuple[int, np.random.Generator]:
    return check.count(n_draws, "n_draws"), check.generator(rng)


def monte_carlo_selection_probability(
    delta: float, sigma: float, n_draws: int, rng: np.random.Generator
) -> tuple[float, float]:
    r"""Monte Carlo estimate of :math:`\lambda` for two candidates, with its standard error.

    Draws :math:`M_1, M_2 \sim N(0, \sigma^2)` independently ``n_draws``
    times, selects the argmax of :math:`Q_i + M_i` (exact ties broken by a fair
    coin; ``sigma = inf`` selects uniformly at random) and counts how often the
    optimal candidate is chosen: :math:`x_1` when :math:`\Delta \ge 0`,
    :math:`x_2` when :math:`\Delta < 0` (for :math:`\Delta = 0`, the frequency
    of :math:`x_1`, whose probability is ``1/2``).

    Parameters
    ----------
    delta, sigma : float
        As in :func:`selection_probability` (scalars).
    n_draws : int
        Number of Monte Carlo draws, ``>= 1``.
    rng : numpy.random.Generator

    Returns
    -------
    estimate, standard_error : float
        The frequency and its binomial standard error
        :math:`\sqrt{\hat\lambda(1-\hat\lambda)/n}`.

    See Also
    --------
    mri_theory.analytic.selection_probability : The exact probability.
    mri_theory.analytic.simulate_selection : The same simulation for a pool of any size.

    Examples
    --------
    The frequency lies within three standard errors of the exact :math:`\lambda`:

    >>> import numpy as np
    >>> from mri_theory.analytic import monte_carlo_selection_probability, selection_probability
    >>> estimate, se = monte_carlo_selection_probability(1.0, 1.0, 10_000, np.random.default_rng(0))
    >>> abs(estimate - selection_probability(1.0, 1.0)) < 3 * se
    True
    >>> round(se, 3)  # about sqrt(lambda (1 - lambda) / n_draws)
    0.004

    Without noise the better candidate always wins:

    >>> monte_carlo_selection_probability(1.0, 0.0, 100, np.random.default_rng(0))
    (1.0, 0.0)
    """
    delta = check.finite_scalar(delta, "delta")
    sigma = check_sigma(sigma)
    n_draws, rng = _sampling_args(n_draws, rng)
    sim = simulate_selection(np.array([delta, 0.0]), sigma, n_draws, rng)
    hits = sim.frequencies[1] if delta < 0 else sim.frequencies[0]
    return float(hits), float(np.sqrt(hits * (1 - hits) / n_draws))


# --------------------------------------------------------------------------
# Noise families for pools of any size
# --------------------------------------------------------------------------


class Noise:
    r"""A model of estimation error: :math:`\hat Q = Q + \text{draw}`.

    Subclasses implement :meth:`draw` returning an ``(n, m)`` array of errors
    for the pool values ``q`` (shape ``(m,)``) at noise level ``sigma``.
    :attr:`unbiased` says whether every error has mean zero; :attr:`iid`
    whether the errors are independent of ``q`` and of each other with one
    common distribution.  The guarantee needs both (:attr:`guarantee_holds`).

    See Also
    --------
    mri_theory.analytic.simulate_selection : Selects from a pool with estimates perturbed by a Noise.

    Examples
    --------
    The built-in families and whether §3.3's guarantee covers them:

    >>> from mri_theory.analytic import NOISE_FAMILIES
    >>> {name: noise.guarantee_holds for name, noise in NOISE_FAMILIES.items()}
    {'gaussian': True, 'student-t': True, 'uniform': True, 'biased': False, 'heteroscedastic': False}

    A family of one's own implements :meth:`draw`, here Laplace errors of standard deviation ``sigma``:

    >>> import numpy as np
    >>> from mri_theory.analytic import Noise, simulate_selection
    >>> class LaplaceNoise(Noise):
    ...     name = "laplace"
    ...     def draw(self, q, sigma, n, rng):
    ...         return rng.laplace(0.0, sigma / np.sqrt(2), size=(n, q.size))
    >>> sim = simulate_selection([0.3, 0.2, 0.1], 0.1, 1000, np.random.default_rng(0), noise=LaplaceNoise())
    >>> sim.rs < sim.expected_q < sim.optimum
    True
    """

    name: str = "noise"
    unbiased: bool = True
    iid: bool = True

    @property
    def guarantee_holds(self) -> bool:
        """Both assumptions of §3.3: unbiased and i.i.d. errors."""
        return self.unbiased and self.iid

    def draw(self, q: np.ndarray, sigma: float, n: int, rng: np.random.Generator) -> np.ndarray:
        """Draws of the estimators' errors for a pool.

        Parameters
        ----------
        q : ndarray of shape (m,)
            The candidates' true :math:`Q^c`.
        sigma : float
            The noise scale.
        n : int
            The number of independent draws.
        rng : Generator
            The random generator.

        Returns
        -------
        ndarray of shape (n, m)
            The errors added to ``q`` in each draw.
        """
        raise NotImplementedError

    def limit_draw(self, q: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        r"""Draws of :math:`\lim_{\sigma\to\infty} \text{error}/\sigma`: the selection at ``sigma = inf``.

        For i.i.d. errors their argmax is uniform (random selection); for
        errors whose spread depends on ``q`` it is not.

        Parameters
        ----------
        q : ndarray of shape (m,)
            The candidates' true :math:`Q^c`.
        n : int
            The number of independent draws.
        rng : Generator
            The random generator.

        Returns
        -------
        ndarray of shape (n, m)
            The limiting errors.
        """
        return self.draw(q, 1.0, n, rng)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class GaussianNoise(Noise):
    r"""The paper's assumption: i.i.d. :math:`M_i \sim N(0, \sigma^2)`.

    See Also
    --------
    mri_theory.analytic.selection_probability : The exact selection probability under this noise.

    Examples
    --------
    For two candidates, the simulated frequency of picking the better one agrees with the exact
    :math:`\lambda`:

    >>> import numpy as np
    >>> from mri_theory.analytic import GaussianNoise, selection_probability, simulate_selection
    >>> noise = GaussianNoise()
    >>> noise.guarantee_holds, noise.draw(np.zeros(3), 0.5, 4, np.random.default_rng(0)).shape
    (True, (4, 3))
    >>> sim = simulate_selection([1.0, 0.0], 1.0, 20_000, np.random.default_rng(0), noise=noise)
    >>> bool(abs(sim.frequencies[0] - selection_probability(1.0, 1.0)) < 0.01)
    True
    """

    name = "gaussian"

    def draw(self, q, sigma, n, rng):
        return rng.normal(0.0, sigma, size=(n, q.size))


@dataclass(repr=False)
class StudentTNoise(Noise):
    r"""Symmetric heavy tails: i.i.d. Student-t with ``df`` degrees of freedom, scaled to sd :math:`\sigma`.

    ``df`` must exceed 2 (a finite variance).

    Parameters
    ----------
    df : float, default 3.0
        The degrees of freedom (> 2).

    Examples
    --------
    Heavy tails with standard deviation ``sigma``; unbiased and i.i.d., so the guarantee still holds:

    >>> import numpy as np
    >>> from mri_theory.analytic import StudentTNoise, simulate_selection
    >>> errors = StudentTNoise(df=5).draw(np.zeros(1), 2.0, 100_000, np.random.default_rng(0))
    >>> round(float(errors.std()), 1)
    2.0
    >>> sim = simulate_selection([0.3, 0.2, 0.1], 0.1, 2000, np.random.default_rng(0), noise=StudentTNoise())
    >>> StudentTNoise().guarantee_holds, sim.expected_q > sim.rs
    (True, True)
    >>> StudentTNoise(df=2)
    Traceback (most recent call last):
    ...
    ValueError: df must be > 2 for a finite variance, got 2.0
    """

    df: float = 3.0
    name = "student-t"

    def __post_init__(self) -> None:
        self.df = check.finite_scalar(self.df, "df")
        if self.df <= 2:
            raise ValueError(f"df must be > 2 for a finite variance, got {self.df}")

    def draw(self, q, sigma, n, rng):
        return sigma * np.sqrt((self.df - 2) / self.df) * rng.standard_t(self.df, size=(n, q.size))


class UniformNoise(Noise):
    r"""Symmetric, bounded: i.i.d. uniform on :math:`[-\sigma\sqrt3, \sigma\sqrt3]` (sd :math:`\sigma`).

    Examples
    --------
    Bounded by ``sigma sqrt(3)``, with standard deviation ``sigma``:

    >>> import math
    >>> import numpy as np
    >>> from mri_theory.analytic import UniformNoise
    >>> errors = UniformNoise().draw(np.zeros(1), 2.0, 100_000, np.random.default_rng(0))
    >>> bool(np.abs(errors).max() <= 2.0 * math.sqrt(3)), round(float(errors.std()), 1)
    (True, 2.0)
    """

    name = "uniform"

    def draw(self, q, sigma, n, rng):
        half = sigma * np.sqrt(3.0)
        return rng.uniform(-half, half, size=(n, q.size))


@dataclass(repr=False)
class BiasedNoise(Noise):
    r"""A biased estimator: :math:`\hat Q_i = Q_i + b\,(Q_i - \bar Q) + M_i`, :math:`M_i \sim N(0, \sigma^2)`.

    The bias :math:`b (Q_i - \bar Q)` is correlated with :math:`Q`.  With
    ``slope < -1`` the estimator's mean ranks the pool backwards, so for small
    :math:`\sigma` it prefers the worst candidates and falls below random
    selection.  Breaks unbiasedness (:math:`E[M_i] = 0`).

    Parameters
    ----------
    slope : float, default -2.0
        The bias's slope :math:`b`.

    Examples
    --------
    With the default slope ``-2`` the noiseless estimates are ``2 mean(q) - q``, which rank the pool
    backwards, so the worst candidate is always picked:

    >>> import numpy as np
    >>> from mri_theory.analytic import BiasedNoise, simulate_selection
    >>> q = np.array([0.3, 0.2, 0.1])
    >>> (q + BiasedNoise().draw(q, 0.0, 1, np.random.default_rng(0))).round(6).tolist()
    [[0.1, 0.2, 0.3]]
    >>> sim = simulate_selection(q, 0.0, 100, np.random.default_rng(0), noise=BiasedNoise())
    >>> sim.frequencies.tolist(), BiasedNoise().guarantee_holds
    ([0.0, 0.0, 1.0], False)
    """

    slope: float = -2.0
    name = "biased"
    unbiased = False
    iid = False  # the bias depends on Q_i, so the errors are not identically distributed

    def __post_init__(self) -> None:
        self.slope = check.finite_scalar(self.slope, "slope")

    def draw(self, q, sigma, n, rng):
        return self.slope * (q - q.mean()) + rng.normal(0.0, sigma, size=(n, q.size))

    def limit_draw(self, q, n, rng):
        return rng.standard_normal((n, q.size))  # the fixed bias vanishes against the noise


@dataclass(repr=False)
class HeteroscedasticNoise(Noise):
    r"""Unbiased but unequal variances: :math:`M_i \sim N(0, \sigma_i^2)`, :math:`\sigma_i = \sigma e^{-\kappa z_i}`.

    ``z_i = (Q_i - \bar Q) / (\max Q - \min Q)``: with ``rate > 0`` the worse
    candidates have the noisier estimates.  Every estimate is unbiased, yet the
    argmax favours whichever candidates have the largest spread (the winner's
    curse), here the worst ones, and can fall below random selection.  Breaks
    the assumption that the errors are identically distributed and independent
    of :math:`Q`.

    Parameters
    ----------
    rate : float, default 3.0
        :math:`\kappa`: how fast the spread grows towards the worse candidates.

    Examples
    --------
    Every estimate is unbiased, yet with the noise dominating the worst (noisiest) candidate wins most
    often and the selection falls below random selection:

    >>> import numpy as np
    >>> from mri_theory.analytic import HeteroscedasticNoise, simulate_selection
    >>> noise = HeteroscedasticNoise()
    >>> sim = simulate_selection([0.3, 0.2, 0.1], float("inf"), 2000, np.random.default_rng(0), noise=noise)
    >>> noise.unbiased, noise.guarantee_holds, int(np.argmax(sim.frequencies)), sim.expected_q < sim.rs
    (True, False, 2, True)
    """

    rate: float = 3.0
    name = "heteroscedastic"
    unbiased = True  # every error has mean zero ...
    iid = False  # ... but its spread depends on Q_i

    def __post_init__(self) -> None:
        self.rate = check.finite_scalar(self.rate, "rate")

    def draw(self, q, sigma, n, rng):
        spread = np.ptp(q)
        z = (q - q.mean()) / spread if spread > 0 else np.zeros_like(q)
        return rng.standard_normal((n, q.size)) * (sigma * np.exp(-self.rate * z))


class EmpiricalNoise(Noise):
    r"""A measured error distribution: i.i.d. draws, with replacement, from ``errors``, scaled by :math:`\sigma`.

    Each candidate's error is ``sigma * errors[k]`` with ``k`` uniform over the
    given values, independently of ``q`` and of the other candidates: the
    errors keep their measured *marginal* distribution (skew, heavy tails,
    atoms) but satisfy §3.3's independence and identical-distribution
    assumptions by construction.  ``sigma = 1`` reproduces the measured scale.
    :func:`mri_theory.evaluation.estimator_errors` uses it to predict the
    shortfall an estimator *would* have if its errors were i.i.d.

    Parameters
    ----------
    errors : 1-D array_like
        The error values (finite, non-empty), used as given: pass centred
        errors for an unbiased estimator.  A constant bias shifts every
        estimate alike and never changes the argmax.

    Attributes
    ----------
    unbiased : bool
        Whether the mean of ``errors`` is zero within the tie tolerance
        (:data:`mri_theory._utils.ties.TIE_TOLERANCE` times ``max(1, max |errors|)``).

    See Also
    --------
    mri_theory.evaluation.estimator_errors : Measures an estimator's errors and predicts its shortfall with this.

    Examples
    --------
    Each draw is one of the measured errors times ``sigma``:

    >>> import numpy as np
    >>> from mri_theory.analytic import EmpiricalNoise
    >>> noise = EmpiricalNoise([-0.2, 0.0, 0.2])
    >>> draws = noise.draw(np.zeros(3), 1.0, 50, np.random.default_rng(0))
    >>> draws.shape, sorted(set(draws.round(6).ravel().tolist()))
    ((50, 3), [-0.2, 0.0, 0.2])
    >>> noise.unbiased, EmpiricalNoise([0.5, 1.5]).unbiased
    (True, False)
    """

    name = "empirical"
    iid = True

    def __init__(self, errors: ArrayLike) -> None:
        errors = check.finite_array(errors, "errors")
        if errors.ndim != 1 or errors.size == 0:
            raise ValueError(f"errors must be a non-empty 1-D array, got shape {errors.shape}")
        self.errors = errors
        self.unbiased = bool(abs(errors.mean()) <= TIE_TOLERANCE * max(1.0, float(np.max(np.abs(errors)))))

    def draw(self, q, sigma, n, rng):
        return sigma * self.errors[rng.integers(0, self.errors.size, size=(n, q.size))]


#: Default instances by name, accepted by :func:`simulate_selection`.
NOISE_FAMILIES: dict[str, Noise] = {
    noise.name: noise
    for noise in (GaussianNoise(), StudentTNoise(), UniformNoise(), BiasedNoise(), HeteroscedasticNoise())
}


def _noise(noise: str | Noise) -> Noise:
    if isinstance(noise, Noise):
        return noise
    if isinstance(noise, str) and noise in NOISE_FAMILIES:
        return NOISE_FAMILIES[noise]
    raise ValueError(f"unknown noise {noise!r}; known: {', '.join(NOISE_FAMILIES)} or a Noise instance")


@dataclass(frozen=True)
class SelectionSimulation:
    """What :func:`simulate_selection` measured.

    Parameters
    ----------
    frequencies : ndarray, shape (m,)
        How often each candidate was selected (sums to 1).
    expected_q : float
        Mean true ``Q`` of the selected candidate.
    standard_error : float
        Monte Carlo standard error of ``expected_q``.
    rs : float
        Random selection's expected ``Q``: ``mean(q)``.
    optimum : float
        The optimal selection's ``Q``: ``max(q)``.
    n_draws : int
        The number of draws.

    Examples
    --------
    Without noise the best candidate is always chosen, so the mean selected ``Q`` is the optimum, with no
    spread:

    >>> import numpy as np
    >>> from mri_theory.analytic import simulate_selection
    >>> sim = simulate_selection([0.1, 0.4, 0.2], 0.0, 100, np.random.default_rng(0))
    >>> sim.frequencies.tolist(), sim.expected_q, sim.standard_error
    ([0.0, 1.0, 0.0], 0.4, 0.0)
    >>> round(sim.rs, 6), sim.optimum, sim.n_draws
    (0.233333, 0.4, 100)
    """

    frequencies: np.ndarray
    expected_q: float
    standard_error: float
    rs: float
    optimum: float
    n_draws: int


def _argmax_random_ties(est: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Row-wise argmax; near-ties (:func:`mri_theory._utils.ties.near_maximum`) are broken uniformly at random."""
    tied_mask = near_maximum(est)
    choice = np.argmax(tied_mask, axis=1)  # the first of the (near-)maxima
    tied = np.flatnonzero(np.sum(tied_mask, axis=1) > 1)
    if tied.size:
        keys = np.where(tied_mask[tied], rng.random((tied.size, est.shape[1])), -1.0)
        choice[tied] = np.argmax(keys, axis=1)
    return choice


def simulate_selection(
    q: ArrayLike,
    sigma: float,
    n_draws: int,
    rng: np.random.Generator,
    noise: str | Noise = "gaussian",
) -> SelectionSimulation:
    r"""Select ``argmax(q + noise)`` from a pool ``n_draws`` times and score the choices.

    Extends the two-candidate argument of §3.3 to a pool of any size ``m``:
    with true values ``q``, each draw forms estimates ``q + error`` (the error
    from ``noise`` at level ``sigma``), selects the argmax (exact ties broken
    at random) and records the selected candidate's true ``Q``.

    Parameters
    ----------
    q : 1-D array_like
        True :math:`Q^c` values of the pool (finite, non-empty).
    sigma : float
        Noise level ``>= 0``; ``0`` gives the optimal selection for the
        families without bias.  ``inf`` selects by the noise alone
        (:meth:`Noise.limit_draw`): uniform random selection (RS) for i.i.d.
        errors, but not for :class:`HeteroscedasticNoise`, whose noisiest
        (worst) candidates keep winning.
    n_draws : int
        Number of independent draws.
    rng : numpy.random.Generator
    noise : str or Noise
        ``"gaussian"`` (the paper's assumption), ``"student-t"``,
        ``"uniform"``, ``"biased"``, ``"heteroscedastic"``, or a :class:`Noise`.

    Returns
    -------
    SelectionSimulation
        Selection frequencies, mean selected ``Q`` with its standard error, and
        the RS and optimal benchmarks.

    See Also
    --------
    mri_theory.analytic.monte_carlo_selection_probability : The two-candidate case, with its exact counterpart.
    mri_theory.analytic.Noise : The noise families.

    Examples
    --------
    Unbiased i.i.d. noise lands between random selection (``sigma = inf``) and the optimum (``sigma = 0``):

    >>> import numpy as np
    >>> from mri_theory.analytic import simulate_selection
    >>> q = [0.3, 0.2, 0.1]
    >>> simulate_selection(q, 0.0, 1000, np.random.default_rng(0)).expected_q
    0.3
    >>> sim = simulate_selection(q, 0.1, 1000, np.random.default_rng(0))
    >>> round(sim.rs, 6), sim.rs < sim.expected_q < sim.optimum
    (0.2, True)
    >>> at_infinity = simulate_selection(q, float("inf"), 1000, np.random.default_rng(0))
    >>> abs(at_infinity.expected_q - at_infinity.rs) < 3 * at_infinity.standard_error
    True
    """
    q = check.finite_array(q, "q")
    if q.ndim != 1 or q.size == 0:
        raise ValueError(f"q must be a non-empty 1-D array (the pool), got shape {q.shape}")
    sigma = check_sigma(sigma)
    n_draws, rng = _sampling_args(n_draws, rng)
    noise = _noise(noise)
    counts = np.zeros(q.size, dtype=np.int64)
    chunk = max(1, _CHUNK_CELLS // q.size)
    for start in range(0, n_draws, chunk):
        n = min(chunk, n_draws - start)
        est = noise.limit_draw(q, n, rng) if np.isinf(sigma) else q + noise.draw(q, sigma, n, rng)
        choice = _argmax_random_ties(est, rng)
        counts += np.bincount(choice, minlength=q.size)
    freq = counts / n_draws
    mean = float(freq @ q)
    var = float(freq @ (q - mean) ** 2)
    se = float(np.sqrt(var / max(n_draws - 1, 1)))
    return SelectionSimulation(freq, mean, se, float(q.mean()), float(q.max()), n_draws)
