"""The two contributor exercises of CONTRIBUTING.md ("How to add"), done from scratch.

Each writes what a contributor would add, in one file, registers it, and runs the existing tests in a fresh
pytest process with that file loaded first (``-p``, before collection): the tests must find the new name by
themselves (they parametrize over the registries), run their checks on it, and pass, with no test edited.

* **Add a strategy:** ``RatioConfidence`` (the ratio of the two largest class probabilities), registered with
  :func:`~mri_theory.strategies.register_strategy`: the strategy contract (``check_strategy``) runs on it.
* **Add a classifier with an exact truth:** ``RDA`` (regularised discriminant analysis, Friedman 1989: each class
  covariance shrunk towards the pooled one), a :class:`~mri_theory.classifiers.GaussianClassifier` (so
  ``exact_truth`` and the rank-one fast path come with the family), registered with
  :func:`~mri_theory.classifiers.register_classifier`: the exact-path tests (fast path = plain refits integrated
  exactly, exact losses within a million-point QMC bound, with an absent class too), the truth-mode tests and the
  classifier contract run on it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STRATEGY = textwrap.dedent('''
    import numpy as np

    from mri_theory.strategies import Strategy, register_strategy


    class RatioConfidence(Strategy):
        """Ratio confidence: the second largest class probability over the largest (1: a tie, 0: certain)."""

        name = "RatioConfidence"

        def scores(self, ctx):
            top = np.sort(ctx.fitted().predict_proba(ctx.candidates), axis=1)
            return top[:, -2] / top[:, -1]


    register_strategy("RatioConfidence", RatioConfidence)
''')

CLASSIFIER = textwrap.dedent('''
    import numpy as np

    import mri_theory.classifiers as classifiers
    from mri_theory.classifiers import GaussianClassifier, register_classifier


    class RDA(GaussianClassifier):
        """Regularised discriminant analysis: covariance alpha S_j / n_j + (1 - alpha) S / n + reg I."""

        name = "rda"

        def __init__(self, alpha: float = 0.5, reg: float = 1e-3) -> None:
            self.alpha, self.reg = alpha, reg

        def _coefficients(self, counts, means, scatters):
            d = means.shape[-1]
            own = scatters / np.maximum(counts, 1)[..., None, None]
            pooled = scatters.sum(axis=-3) / counts.sum(axis=-1)[..., None, None]
            cov = self.alpha * own + (1 - self.alpha) * pooled[..., None, :, :] + self.reg / self.scale_**2 * np.eye(d)
            A = np.linalg.inv(cov)
            b = np.einsum("...ij,...j->...i", A, means)
            with np.errstate(divide="ignore"):
                log_prior = np.log(counts / counts.sum(axis=-1, keepdims=True))
            c = -0.5 * np.einsum("...i,...i->...", means, b) - 0.5 * np.linalg.slogdet(cov)[1] + log_prior
            return A, b, c


    # what the recipe's edit of mri_theory/classifiers/__init__.py does: the registration and the export
    register_classifier("rda", RDA)
    classifiers.RDA = RDA
    classifiers.__all__.append("RDA")
''')


def _run_with(plugin: str, source: str, tests: list[str], keyword: str, tmp_path: Path) -> list[str]:
    """Run ``tests`` (only the ids matching ``keyword``) with ``source`` loaded first; the ids that passed."""
    (tmp_path / f"{plugin}.py").write_text(source)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", plugin, "-q", "-rA", "-p", "no:cacheprovider",
                             "-k", keyword, *tests], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    return re.findall(r"^PASSED (\S+)", result.stdout, re.M)


def test_a_strategy_added_in_one_file_is_found_and_checked_by_the_existing_tests(tmp_path):
    passed = _run_with("scratch_strategy", STRATEGY, ["tests/strategies/test_strategy_contract.py"],
                       "RatioConfidence", tmp_path)
    assert any("test_builtin_strategies_pass_the_check[RatioConfidence]" in test for test in passed), passed


def test_a_classifier_with_an_exact_truth_added_in_one_file_runs_the_exact_path_tests(tmp_path):
    passed = _run_with("scratch_classifier", CLASSIFIER,
                       ["tests/engine/test_exact_population.py", "tests/engine/test_truth_modes.py",
                        "tests/classifiers/test_classifier_contract.py"], "rda", tmp_path)
    names = {test.split("::")[1].split("[")[0] for test in passed}
    assert {"test_the_exact_fast_path_equals_plain_refits",
            "test_exact_losses_lie_within_a_million_point_qmc_population_bound",
            "test_exact_losses_with_an_absent_class_lie_within_a_qmc_population_bound",
            "test_integrable_classifiers_on_the_abstract_problems_get_the_exact_truth"} <= names, passed
