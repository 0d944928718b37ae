r"""Real data as a problem: :class:`DataProblem` (no densities, a held-out test set per replicate, §5.2).
"""

from __future__ import annotations

import csv
import hashlib
import math
import numbers
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from mri_theory._utils import validation as check
from mri_theory._utils.tables import read_csv_exact
from mri_theory.engine.population import Population
from mri_theory.problems._mixture import MAX_ABS_X
from mri_theory.problems.base import Problem

__all__ = ["DataProblem"]


class DataProblem(Problem):
    r"""A real dataset as a problem of the sandbox: no truth, a held-out test set per replicate (§5.2).

    In the paper's experiments "the classification data is randomly
    reshuffled" for each Monte Carlo replicate (§5.2) and "the labelled, pool
    and test data are drawn from the population, as different independent
    subsamples" (§5.4, "Aggregate Results"); the loss of each classifier is
    its empirical loss on the test set.  The paper gives neither the test
    fraction nor whether the split is stratified: the choices here are
    documented under ``test_size``.  :meth:`draw_replicate` does this, and the test set becomes a
    one-hot :class:`~mri_theory.engine.population.Population`, so every metric and
    rank of the sandbox works unchanged.  There are no class densities, so
    :attr:`has_truth` is False: :meth:`sample`, the densities, the posterior and
    the Bayes error raise ``NotImplementedError``, and the sandbox refuses the
    strategies that need the truth and ``record_q_c=True``.

    Build one with :meth:`from_arrays` or :meth:`from_csv` (the constructor
    takes the same arguments as :meth:`from_arrays`).

    Parameters
    ----------
    X : array_like, shape (n, d)
        Finite numeric covariates (a 1-D array is one covariate).
    y : array_like, shape (n,)
        Class labels of any sortable type; mapped to ``0..k-1`` in sorted
        order (``classes`` keeps the original labels).  At least two
        classes, each with at least two rows.
    test_size : float or int, default 0.3
        The held-out test set: a fraction in (0, 1) of the rows (rounded up,
        as :func:`sklearn.model_selection.train_test_split` does) or a count
        ``>= 1``.  The split is stratified: class ``j`` contributes its
        proportional share (largest remainders, in exact integer
        arithmetic), but at least one row and at most all but one, so every
        class is in the test set and in the initial set; ``n_test`` is the
        resulting size (it can differ from the request by at most ``k``).
    name : str, default "data"
        The label of the problem in result tables.
    standardize : bool, default False
        Centre each covariate and divide by its standard deviation over all
        rows (constant covariates are only centred), once, before any split.
        The paper's R classifiers standardise internally (``kknn``, ``svm``);
        ours do not, so distance-based classifiers (k-NN, the RBF SVM) need
        this on data whose covariates have different units.  The transform
        uses no labels; it sees the test rows' covariates, a negligible
        leak that the paper's per-fit scaling would avoid.

    Attributes
    ----------
    X : ndarray, shape (n, d), read-only
    y : ndarray, shape (n,), read-only
        Labels ``0..k-1``.
    classes : ndarray, shape (k,)
        The original label of class ``j`` is ``classes[j]``.
    test_size : float or int
        As given.
    n_test : int
        Rows held out for testing in every replicate.
    max_pool_size : int
        The largest pool a replicate can draw: ``n - n_test - k``.
    sha256 : str
        SHA-256 of the data (shape, ``X`` as float64, ``y``, the classes),
        shown in :func:`repr` so that resumed runs tell datasets apart.
    prior : ndarray, shape (k,)
        The empirical class frequencies.

    Examples
    --------
    A real data set as a problem: each replicate splits it into a stratified test set, one labelled point per class
    and a pool:

    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from mri_theory.problems import DataProblem
    >>> X, y = load_iris(return_X_y=True)
    >>> problem = DataProblem(X, y, test_size=0.3, name="iris")
    >>> problem.has_truth, problem.n_classes, problem.dim, problem.prior.round(4).tolist()  # empirical priors
    (False, 3, 4, [0.3333, 0.3333, 0.3333])
    >>> X0, y0, pool_X, pool_y, test = problem.draw_replicate(20, None, np.random.default_rng(0))
    >>> y0.tolist(), pool_X.shape, test.size  # one point per class; a pool of 20; the 30 % test set (45 rows)
    ([0, 1, 2], (20, 4), 45)
    """

    has_truth = False

    def __init__(self, X: ArrayLike, y: ArrayLike, test_size: float | int = 0.3, name: str = "data",
                 standardize: bool = False) -> None:
        name, test_size, standardize = _check_data_options(name, test_size, standardize)
        X = check.finite_array(X, "X")
        if X.ndim == 1:
            X = X.reshape(-1, 1)
        if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"X must be a non-empty 2-D array (n, d), got shape {X.shape}")
        if np.max(np.abs(X)) > MAX_ABS_X:
            raise ValueError(f"X entries must be at most {MAX_ABS_X:g} in absolute value")
        classes, y = _encode_labels(y, X.shape[0])
        counts = np.bincount(y, minlength=classes.size)
        n, k = X.shape[0], classes.size
        n_test = math.ceil(test_size * n) if isinstance(test_size, float) else test_size
        if n_test >= n:
            raise ValueError(f"test_size must leave rows outside the test set: {test_size!r} of {n} rows")
        quota = _stratified_quota(n_test, counts)
        if n - quota.sum() - k < 1:
            raise ValueError(f"test_size {test_size!r} leaves no row for the pool: {n} rows, "
                             f"{quota.sum()} for testing, {k} for the initial set")
        if standardize:
            sd = X.std(axis=0)
            lost = np.flatnonzero((np.ptp(X, axis=0) > 0) & (sd < np.finfo(float).tiny))
            if lost.size:  # the squares underflowed: the column varies but its sd is 0 or subnormal
                raise ValueError(f"X columns {lost.tolist()} vary by too little to standardize (their standard "
                                 f"deviation underflows: {sd[lost].tolist()}); rescale them first")
            X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
        X = np.ascontiguousarray(X, dtype=float)
        super().__init__(name, k, X.shape[1], counts / n)
        for a in (X, y):
            a.setflags(write=False)
        self.X, self.y, self.classes = X, y, classes
        self.test_size, self.standardize = test_size, standardize
        self._quota = quota
        self.n_test = int(quota.sum())
        self.max_pool_size = n - self.n_test - k
        digest = hashlib.sha256()
        digest.update(repr((X.shape, classes.tolist())).encode())
        digest.update(X.tobytes())
        digest.update(y.astype(np.int64).tobytes())
        self.sha256 = digest.hexdigest()

    @classmethod
    def from_arrays(cls, X: ArrayLike, y: ArrayLike, test_size: float | int = 0.3, name: str = "data",
                    standardize: bool = False) -> DataProblem:
        """A problem from covariates ``X`` (n, d) and labels ``y`` (n,); see :class:`DataProblem`.

        Parameters
        ----------
        X, y, test_size, name, standardize
            As in :class:`DataProblem` (passed to its constructor unchanged).

        Returns
        -------
        DataProblem
            ``cls(X, y, test_size=test_size, name=name, standardize=standardize)``.
        """
        return cls(X, y, test_size=test_size, name=name, standardize=standardize)

    @classmethod
    def from_csv(cls, path: str | os.PathLike, target: str, test_size: float | int = 0.3,
                 name: str | None = None, standardize: bool = False) -> DataProblem:
        """A problem from a CSV file with a header row: column ``target`` holds the labels, the others the covariates.

        Parameters
        ----------
        path : str or path-like
            The file, read by :func:`pandas.read_csv`.
        target : str
            The label column.
        test_size, standardize
            As in :class:`DataProblem`.
        name : str, optional
            Defaults to the file's stem (``"wine"`` for ``data/wine.csv``).

        Raises
        ------
        ValueError
            Naming the file: if ``path`` is not a file or cannot be read as a
            CSV file (encoding, parser errors, empty), has no data rows after its header, the header repeats a
            name, ``target`` is not a column or has missing labels, there is
            no covariate column, or a covariate is missing (NaN) or not finite.
        TypeError
            If a covariate column is not numeric (the message names it).
        """
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or path-like, got {type(path).__name__}")
        path = Path(path)
        if not isinstance(target, str):
            raise TypeError(f"target must be a column name (str), got {type(target).__name__}")
        name, test_size, standardize = _check_data_options(path.stem if name is None else name, test_size,
                                                           standardize)  # before the file is read
        if not path.is_file():
            raise ValueError(f"path {str(path)!r} is not a file")
        frame = _read_csv(path)
        if target not in frame.columns:
            raise ValueError(f"target {target!r} is not a column of {str(path)!r}; columns: {list(frame.columns)}")
        covariates = frame.drop(columns=[target])
        if covariates.shape[1] == 0:
            raise ValueError(f"{str(path)!r} has no covariate column besides target {target!r}")
        bad = [c for c in covariates.columns if not pd.api.types.is_numeric_dtype(covariates[c])
               or pd.api.types.is_bool_dtype(covariates[c])]
        if bad:
            raise TypeError(f"covariate columns of {str(path)!r} must be numeric; not numeric: {bad}")
        missing = [c for c in covariates.columns if not np.all(np.isfinite(covariates[c].to_numpy(float)))]
        if missing:
            raise ValueError(f"covariate columns of {str(path)!r} must be finite (no missing values); "
                             f"not finite: {missing}")
        empty = np.flatnonzero(frame[target].isna().to_numpy())
        if empty.size:
            raise ValueError(f"target column {target!r} of {str(path)!r} has missing labels in data rows "
                             f"{(empty + 1).tolist()[:5]} (row 1 is the first after the header)")
        return cls(covariates.to_numpy(float), frame[target].to_numpy(), test_size=test_size, name=name,
                   standardize=standardize)

    def __repr__(self) -> str:
        return (f"DataProblem(name={self.name!r}, n={self.X.shape[0]}, dim={self.dim}, "
                f"n_classes={self.n_classes}, test_size={self.test_size!r}, "
                f"standardize={self.standardize}, sha256={self.sha256!r})")

    # -- replicates -------------------------------------------------------

    def _shuffle(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A random permutation of the rows and, along it, the test rows and the initial rows.

        Within each class (in permutation order) the first ``quota[j]`` rows
        are the test rows and the next one is the initial row.
        """
        perm = rng.permutation(self.X.shape[0])
        labels = self.y[perm]
        rank = np.cumsum(np.eye(self.n_classes, dtype=np.int64)[labels], axis=0)[np.arange(labels.size), labels] - 1
        quota = self._quota[labels]
        return perm, rank < quota, rank == quota

    def draw_replicate(
        self, pool_size: int, population_size: int | None, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Any]:
        r"""One replicate of the real-data protocol (§5.2, §5.4): test set, initial set and pool, disjoint.

        The rows are permuted with ``rng``; along the permutation, the first
        ``quota_j`` rows of each class ``j`` (stratified, ``n_test`` in
        all, see :class:`DataProblem`) form the test set and the next row of
        each class the initial labelled set (one point per class, in class
        order, as :func:`initial_labelled_set` gives for simulated problems);
        the pool is a uniformly random ``pool_size``-subset of the remaining
        rows, in random order (a second permutation).  Rows outside the pool
        are unused in this replicate.

        Parameters
        ----------
        pool_size : int
            ``1 <= pool_size <=`` ``max_pool_size``.
        population_size : int or None
            Ignored (the test set is the evaluation population); accepted so
            that the sandbox calls every problem alike.  If given it must be a
            count ``>= 1``.
        rng : numpy.random.Generator

        Returns
        -------
        X0 : ndarray, shape (k, d)
        y0 : ndarray, shape (k,)
        pool_X : ndarray, shape (pool_size, d)
        pool_y : ndarray, shape (pool_size,)
        population : Population
            The test set, one-hot (:meth:`~mri_theory.engine.Population.from_labels`): its loss is
            the empirical test loss.

        Raises
        ------
        ValueError
            If ``pool_size`` exceeds ``max_pool_size``.
        """
        pool_size = check.count(pool_size, "pool_size")
        if pool_size > self.max_pool_size:
            raise ValueError(f"pool_size must be at most {self.max_pool_size} for {self.name!r} "
                             f"({self.X.shape[0]} rows, {self.n_test} for testing, {self.n_classes} "
                             f"for the initial set), got {pool_size}")
        if population_size is not None:
            check.count(population_size, "population_size")
        rng = check.generator(rng)
        perm, test, initial = self._shuffle(rng)
        first = perm[initial]
        first = first[np.argsort(self.y[first])]
        rest = perm[~test & ~initial]
        # A fresh shuffle: along perm, the rest of a class with a large test share comes late.
        pool = rest[rng.permutation(rest.size)[:pool_size]]
        held_out = perm[test]
        population = Population.from_labels(self.X[held_out], self.y[held_out], self.n_classes)
        return self.X[first], self.y[first], self.X[pool], self.y[pool], population

    def split(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, Any]:
        """Every row outside a random test set, and the test set as a one-hot population.

        The same split as :meth:`draw_replicate` with the same ``rng`` state
        (the training rows are the initial set, the pool and the rows the
        replicate leaves unused); :func:`mri_theory.runners.asymptotic.asymptotic_loss`
        trains on them.

        Parameters
        ----------
        rng : numpy.random.Generator
            One permutation of the rows is drawn from it, as the first draw of
            :meth:`draw_replicate`.

        Returns
        -------
        X_train : ndarray, shape (n - n_test, d)
        y_train : ndarray, shape (n - n_test,)
        population : Population
            The ``n_test`` test rows, one-hot (:meth:`~mri_theory.engine.Population.from_labels`).
        """
        rng = check.generator(rng)
        perm, test, _ = self._shuffle(rng)
        train, held_out = perm[~test], perm[test]
        return (self.X[train], self.y[train],
                Population.from_labels(self.X[held_out], self.y[held_out], self.n_classes))

    # -- no truth ---------------------------------------------------------

    def _no_truth(self, what: str) -> NotImplementedError:
        return NotImplementedError(
            f"{what} needs the truth, but {self.name!r} is a DataProblem (real data, has_truth=False): "
            "it has no class densities, posterior or Bayes error")

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Refused: real data cannot be sampled from (use :meth:`draw_replicate`).

        Parameters
        ----------
        n : int
            Ignored.
        rng : numpy.random.Generator
            Ignored.

        Raises
        ------
        NotImplementedError
            Always.
        """
        raise self._no_truth("sample")

    def _no_uniform_sampler(self) -> NotImplementedError:
        return self._no_truth("sample_from_uniform (and uniform_dim, for method='qmc' populations)")

    def class_log_densities(self, X: ArrayLike) -> np.ndarray:
        """Refused: real data has no class densities (every density and posterior method goes through here).

        Parameters
        ----------
        X : array_like
            Ignored.

        Raises
        ------
        NotImplementedError
            Always.
        """
        raise self._no_truth("the class densities (and the posterior)")

    def _class_log_densities(self, X: np.ndarray) -> np.ndarray:
        raise self._no_truth("the class densities (and the posterior)")

    def _compute_bayes_error(self) -> float:
        raise self._no_truth("the Bayes error")

    def bayes_error_monte_carlo(self, n: int, rng: np.random.Generator) -> tuple[float, float]:
        """Refused: real data has no Bayes posterior.

        Parameters
        ----------
        n : int
            Ignored.
        rng : numpy.random.Generator
            Ignored.

        Raises
        ------
        NotImplementedError
            Always.
        """
        raise self._no_truth("the Bayes error")


def _read_csv(path: Path) -> pd.DataFrame:
    """``pandas.read_csv(path)``, floats read exactly (``mri_theory._utils.tables.read_csv_exact``); a
    ValueError naming the file for anything that makes it unreadable.

    Repeated header names are refused too (pandas would rename them ``a.1``, silently).
    """
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            header = next(csv.reader(handle), [])
        frame = read_csv_exact(path)
    except (OSError, UnicodeDecodeError, csv.Error, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise ValueError(f"path {str(path)!r} cannot be read as a CSV file with a header row: "
                         f"{type(exc).__name__}: {exc}") from None
    repeated = sorted({c for c in header if header.count(c) > 1})
    if repeated:
        raise ValueError(f"path {str(path)!r}: the header names the columns {repeated} more than once")
    if frame.shape[0] == 0:  # pandas reads the columns of a header-only file as text: say what is missing
        raise ValueError(f"path {str(path)!r} has a header row but no data rows")
    return frame


def _check_data_options(name: Any, test_size: Any, standardize: Any) -> tuple[str, float | int, bool]:
    """The checked ``name``, ``test_size`` and ``standardize`` of a :class:`DataProblem`."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty str, got {name!r}")
    return name, _check_test_size(test_size), check.flag(standardize, "standardize")


def _check_test_size(test_size: Any) -> float | int:
    """A fraction in (0, 1) (float) or a count >= 1 (int)."""
    if isinstance(test_size, (bool, np.bool_)) or not isinstance(test_size, numbers.Real):
        raise TypeError(f"test_size must be a fraction in (0, 1) or a count >= 1, got {test_size!r}")
    if isinstance(test_size, numbers.Integral):
        return check.count(test_size, "test_size")
    test_size = float(test_size)
    if not 0.0 < test_size < 1.0:
        raise ValueError(f"test_size must be a fraction in (0, 1) or an int count >= 1, got {test_size!r}")
    return test_size


def _encode_labels(y: ArrayLike, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct labels and ``y`` coded ``0..k-1``; at least two classes of at least two rows."""
    if isinstance(y, (str, bytes)):
        raise TypeError(f"y must be an array of labels, got {type(y).__name__}")
    labels = np.asarray(y)
    if labels.ndim != 1 or labels.shape[0] != n:
        raise ValueError(f"y must have shape ({n},) like the rows of X, got shape {labels.shape}")
    if labels.dtype.kind == "O" and any(v is None for v in labels):
        raise ValueError("y must not hold missing labels (None)")
    if labels.dtype.kind == "O" and np.any(pd.isna(labels)):  # NaN, pd.NA or NaT among other labels
        raise ValueError("y must not hold missing labels (NaN, pd.NA, NaT)")
    if labels.dtype.kind in "fc" and not np.all(np.isfinite(labels)):
        raise ValueError("y must not hold missing or infinite labels (NaN, inf)")
    try:
        classes, codes = np.unique(labels, return_inverse=True)
    except TypeError as exc:
        raise TypeError("y labels must be of one sortable type, "
                        f"got {sorted({type(v).__name__ for v in labels})}") from exc
    counts = np.bincount(codes, minlength=classes.size)
    if classes.size < 2:
        raise ValueError(f"y must hold at least two classes, got {classes.tolist()}")
    if np.any(counts < 2):
        raise ValueError(f"every class of y needs at least two rows (one to test, one to start), "
                         f"got {dict(zip(classes.tolist(), counts.tolist(), strict=True))}")
    return classes, codes.astype(int)


def _stratified_quota(n_test: int, counts: np.ndarray) -> np.ndarray:
    """Test rows per class: proportional shares by largest remainders (exact integers), clipped to [1, n_j - 1]."""
    n = int(counts.sum())
    share = n_test * counts
    quota = share // n
    extra = n_test - int(quota.sum())
    quota[np.argsort(-(share % n), kind="stable")[:extra]] += 1
    return np.clip(quota, 1, counts - 1)
