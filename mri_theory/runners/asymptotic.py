r"""The asymptotic loss :math:`L_\infty` of a (problem, classifier) pairing (§5.2-5.3): a simulation.

The loss after training on a much larger dataset, the target of the label complexity
(:func:`mri_theory.evaluation.metrics.label_complexity`); the study computes one per pairing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mri_theory._utils import limits
from mri_theory._utils import validation as check
from mri_theory.engine.losses import check_loss
from mri_theory.engine.population import Population
from mri_theory.problems import DataProblem
from mri_theory.runners._resolve import resolve

__all__ = ["MAX_N_TRAIN", "MAX_POPULATION", "MAX_REPLICATES", "asymptotic_loss"]

#: Bounds on the sizes of :func:`asymptotic_loss` (a simulation), so that memory and time stay bounded: the
#: runners' bounds (:mod:`mri_theory._utils.limits`), so a study whose settings pass its checks also passes these.
MAX_N_TRAIN = limits.MAX_POPULATION_SIZE
MAX_REPLICATES = limits.MAX_REPLICATES
MAX_POPULATION = limits.MAX_POPULATION_SIZE


def asymptotic_loss(problem: Any, classifier: Any, n_train: int = 5000, replicates: int = 5, *,
                    rng: np.random.Generator, population_size: int = 20_000, loss: str = "error") -> float:
    r"""The classifier's loss after training on a large sample, exact on a population (§5.2, line ~1044).

    The paper's asymptotic loss is "the loss from training on a much larger
    dataset"; here each of ``replicates`` i.i.d. training samples of
    ``n_train`` points from the problem trains the classifier, whose *true*
    loss is computed on its own QMC population with the exact Bayes posteriors
    (:meth:`mri_theory.engine.population.Population.from_problem`, ``method="qmc"``),
    and the losses are averaged.  The target of :func:`mri_theory.evaluation.metrics.label_complexity`.

    For a :class:`~mri_theory.problems.DataProblem` (real data, no truth) the
    largest training set there is stands in for "a much larger dataset": in
    each replicate the data are split at random as in the sandbox
    (:meth:`~mri_theory.problems.DataProblem.split`, the same held-out test set
    size), the classifier is trained on *every* row outside the test set (the
    initial set, the whole pool and the rows a replicate leaves unused) and
    its empirical loss on the test set is averaged over the replicates;
    ``n_train`` and ``population_size`` are then ignored (still validated).

    Parameters
    ----------
    problem : Problem or str
        A problem object or a registered name (:func:`mri_theory.problems.get_problem`).
    classifier : Classifier or str
        A classifier object (cloned, never fitted in place) or a registered
        name (:func:`mri_theory.classifiers.get_classifier`).
    n_train : int
        Training-sample size, at most :data:`MAX_N_TRAIN` (ignored for a
        DataProblem).
    replicates : int
        Independent training samples (and populations) averaged, at most
        :data:`MAX_REPLICATES`; for a DataProblem, random train/test splits.
    rng : numpy.random.Generator
        Draws the training samples and populations (the splits), in replicate order.
    population_size : int
        QMC points of each population, at most :data:`MAX_POPULATION`
        (ignored for a DataProblem).
    loss : {"error", "log"}

    Returns
    -------
    float
    """
    (_, problem), (_, classifier) = resolve(problem, "problem", "problem"), resolve(classifier, "classifier",
                                                                                    "classifier")
    n_train = check.count(n_train, "n_train", maximum=MAX_N_TRAIN)
    replicates = check.count(replicates, "replicates", maximum=MAX_REPLICATES)
    rng = check.generator(rng)
    population_size = check.count(population_size, "population_size", maximum=MAX_POPULATION)
    loss = check_loss(loss)
    values = []
    for _ in range(replicates):
        if isinstance(problem, DataProblem):
            X, y, population = problem.split(rng)
        else:
            X, y = problem.sample(n_train, rng)
            population = Population.from_problem(problem, population_size, rng, method="qmc")
        values.append(population.loss(classifier.clone().fit(X, y, problem.n_classes), loss))
    return float(np.mean(values))
