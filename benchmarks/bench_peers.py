r"""Benchmark: the CPU seconds per state of every named scikit-activeml peer (``PEER_NAMES``).

What is measured
----------------
Four-Gaussian, a pool of 250, states of ``|D_S| = 4, 12, 32, 82`` labelled points (the sandbox's one point
per class plus 2, 10, 30, 80 points taken from the pool: the leaderboard's default steps), every
remaining pool point a candidate (as :func:`~mri_theory.runners.states.score_states` scores them: 248, 240,
220, 170), for the base classifiers ``svm`` and ``lda``: one ``scores`` call of each peer, CPU seconds
(``time.process_time``, best of ``--repeats``, one BLAS thread, after one warm-up call at the smallest
state).  SE is timed beside them as the reference of a cheap strategy.  The peers are new, so there is no
baseline: the table gives the seconds per state, and flags those above 5 s at ``|D_S| = 82``.

Run: ``python benchmarks/bench_peers.py [--repeats 1] [--classifiers svm lda] [--peers SkMC-EER ...]``
(needs scikit-activeml: ``pip install -e ".[peers]"``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _setting import best_time

POOL = 250
SIZES = (4, 12, 32, 82)
#: The cost per state (CPU s at |D_S| = 82) above which a peer needs a documented option or exclusion.
LIMIT = 5.0


def state(n_labelled: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(X, y, remaining pool)``: the sandbox's initial set plus ``n_labelled - 2`` pool points, labelled."""
    from mri_theory.problems import get_problem
    from mri_theory.runners.sandbox import initial_labelled_set

    problem = get_problem("four-gaussian")
    rng = np.random.default_rng(seed)
    X0, y0 = initial_labelled_set(problem, rng)
    pool, pool_y = problem.sample(POOL, rng)
    taken = n_labelled - X0.shape[0]
    X, y = np.vstack([X0, pool[:taken]]), np.concatenate([y0, pool_y[:taken]])
    return X, y, pool[taken:]


def main(argv: list[str] | None = None) -> None:
    from mri_theory._utils.backends import one_thread
    from mri_theory.classifiers import get_classifier
    from mri_theory.strategies import PEER_NAMES, get_strategy
    from mri_theory.strategies.base import Context

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--classifiers", nargs="+", default=["svm", "lda"])
    parser.add_argument("--peers", nargs="+", default=["SE", *PEER_NAMES])
    args = parser.parse_args(argv)
    states = {n: state(n) for n in SIZES}
    print(f"CPU s per state (best of {args.repeats}, one BLAS thread), Four-Gaussian, pool {POOL}, "
          f"every remaining pool point a candidate")
    print(f"{'classifier':<10} {'strategy':<13} " + " ".join(f"{f'|D_S|={n}':>10}" for n in SIZES))
    with one_thread():
        for classifier in args.classifiers:
            for name in args.peers:
                strategy = get_strategy(name)

                def step(n: int, strategy=strategy, classifier=classifier) -> np.ndarray:
                    X, y, pool = states[n]
                    ctx = Context(X=X, y=y, candidates=pool, pool=pool, classifier=get_classifier(classifier),
                                  n_classes=2, rng=np.random.default_rng(1))
                    return strategy.scores(ctx)

                step(SIZES[0])  # warm-up: imports, compiles
                seconds = [best_time(lambda n=n: step(n), args.repeats, time.process_time)[1] for n in SIZES]
                flag = f"  > {LIMIT:g} s at {SIZES[-1]}" if seconds[-1] > LIMIT else ""
                print(f"{classifier:<10} {name:<13} " + " ".join(f"{s:10.3f}" for s in seconds) + flag, flush=True)


if __name__ == "__main__":
    main()
