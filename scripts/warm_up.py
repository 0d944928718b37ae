"""Compile every numba kernel of ``mri_theory`` into numba's on-disk cache, before the notebooks run.

The classifiers' and the exact truth's kernels are compiled by numba on first use and cached on disk
(``cache=True``: next to their modules, or under ``NUMBA_CACHE_DIR``).  A fresh process that finds them there loads
them in milliseconds; one that does not compiles them, about 100 s of CPU for what the notebooks use.  A notebook
kernel is such a fresh process, and the compilation fell into its first heavy cell: under load (a load average
of 5 on 2 cores) that cell ran past the per-cell timeout of the documentation build (issue 54, part 2).  So the
documentation build (``docs/conf.py``) and the notebook tests (``tests/test_notebooks.py``) run this script first,
outside any timed cell; the per-cell timeout then bounds the notebooks' own work only.

It runs the classifiers with compiled code through the engine at tiny sizes (the true Q^c on a sampled and on
the exact population, and one sandbox step of the strategies that retrain; error loss), on a 1-D, a two-class and
a three-class problem: the calls the notebooks make, so the kernels are compiled for the same argument types
(checked with a fresh ``NUMBA_CACHE_DIR``: the 54 compiled signatures the eight notebooks leave in numba's cache
index are among the 69 this script leaves).  About a minute of CPU on a fresh clone; with the cache filled, a few
seconds (imports and loads).  It computes nothing that is kept.

Usage: ``python scripts/warm_up.py`` (prints the seconds it took).
"""

from __future__ import annotations

import time
import warnings

#: The problems it runs on: 1-D, 2-D with two classes, 2-D with three classes.
PROBLEMS = ("two-gaussians", "four-gaussian", "three-gaussians")
#: The classifiers with compiled code (k-NN's plain and rank-weighted votes, the logistic regression's Newton
#: loop, the SVM's solver and Platt fit) or an exact truth (integrated by compiled code).
CLASSIFIERS = ("knn5", "kknn5", "lda", "qda", "nb", "mean", "logreg", "svm")
#: The strategies whose scores go through the classifiers' retraining paths (plus RS, the reference).
STRATEGIES = ("RS", "SE", "EfeLc", "SMRI", "BMRI", "MRI-best")


def warm_up() -> float:
    """Run the tiny workload (module docstring); return its wall seconds.

    Returns
    -------
    float
        The seconds it took.
    """
    start = time.perf_counter()
    import numpy as np

    from mri_theory.classifiers import get_classifier
    from mri_theory.engine import Population, exact_truth_available, true_q_c
    from mri_theory.problems import get_problem, initial_labelled_set
    from mri_theory.runners import Execution, run_curves

    quiet = Execution(progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tiny sizes: convergence and small-sample warnings are expected
        for problem_name in PROBLEMS:
            problem, rng = get_problem(problem_name), np.random.default_rng(0)
            X0, y0 = initial_labelled_set(problem, rng)
            X1, y1 = problem.sample(4 * problem.n_classes, rng)  # more points than k-NN's k: its usual paths
            X, y = np.concatenate([X0, X1]), np.concatenate([y0, y1])
            candidates = problem.sample(4, rng)[0]
            populations = {"sampled": Population.from_problem(problem, 256, rng, method="qmc"),
                           "exact": Population.exact(problem)}
            for classifier in CLASSIFIERS:
                exact = exact_truth_available(problem, get_classifier(classifier))
                truths = ["sampled", "exact"] if exact else ["sampled"]
                for truth in truths:
                    true_q_c(problem, get_classifier(classifier), X, y, candidates, populations[truth])
                # the strategies' paths from one point per class (the exact truth of a 2-point QDA on three
                # classes is slow to integrate: two classes only)
                for truth in truths if problem.n_classes == 2 else ["sampled"]:
                    run_curves(problem, classifier, list(STRATEGIES), pool_size=16, replicates=1, seed=0,
                               budget=1, population_size=256, subsample=4, truth=truth, record_q_c=True,
                               execution=quiet)
    return time.perf_counter() - start


if __name__ == "__main__":
    print(f"warm-up: {warm_up():.1f} s")
