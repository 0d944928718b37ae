"""The old module paths keep working for one version, warn, and are used nowhere any more.

The contract is the old modules' ``__all__`` (written out below from the code before the move to
subpackages): every name is still offered at the old path, each access warns with a
:class:`DeprecationWarning` naming the new module, and gives the very object of the new module.
Nothing else imports an old path: not the package (but the shims), the tests, the scripts, the
benchmarks, the notebooks or the examples of the README and of the documentation (``docs/``).
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mri_theory"

#: Old module -> its ``__all__`` before the move.
OLD_NAMES = {
    "mri_theory.sandbox": ("RESULT_COLUMNS", "CurveConfig", "DamagedPartWarning", "Execution", "initial_labelled_set",
                           "read_curves", "run_curves"),
    "mri_theory.study": ("ASYMPTOTIC_COLUMNS", "CLASSIFIER_SETS", "PRESETS", "PROBLEM_GROUPS", "STRATEGY_SETS",
                         "Execution", "StudyResults", "read_study", "report", "run_study"),
    "mri_theory.metrics": ("BEST", "CURVE_COLUMNS", "LOSS_KINDS", "MAX_LOSS", "MAX_N_TRAIN", "MAX_POPULATION",
                           "MAX_REPLICATES", "METRIC_COLUMNS", "ORACLES", "RANKED_METRICS", "REFERENCE", "WEIGHTINGS",
                           "LabelComplexity", "Regret", "alc", "asymptotic_loss", "aua", "curve_metrics",
                           "label_complexity", "mean_loss", "metric_columns", "q_c_shortfall", "ranked_metrics",
                           "regret", "wi"),
    "mri_theory.ranking": ("ABSTRACT_PROBLEMS", "DEFAULT_GROUPS", "LEVELS", "MAX_BOOT", "StudyRanks", "aggregate",
                           "beats_rs_counts", "bootstrap_ranks", "metric_ranks", "overall_rank", "rank_pairings",
                           "rank_study"),
    "mri_theory.tables": ("PAPER_ABSTRACT_ORDERINGS", "PAPER_BEATS_RS", "PAPER_CLASSIFIERS", "PAPER_FINAL",
                          "PAPER_METHODS", "Tau", "PaperOrdering", "kendall_tau", "paper_rank_table", "write_report"),
    "mri_theory.population": ("Population", "check_population", "qmc_uniforms"),
    "mri_theory.losses": ("LOSSES", "LOG_LOSS_FLOOR", "TIE_LOG_ODDS", "check_loss", "predicted_class",
                          "pointwise_loss", "pointwise_loss_from_scores"),
    "mri_theory.retraining": ("METHODS", "check_method", "current_and_future_losses", "current_loss", "fit_on",
                              "future_losses"),
    "mri_theory.targets": ("true_q_c", "true_q_c_and_loss", "true_q_a", "true_b_c"),
    "mri_theory.two_gaussians": ("TwoGaussians", "MeanClassifier", "error_rate", "future_losses", "q_a", "q_c", "b_c",
                                 "BatchChoice", "optimal_batch", "greedy_batch", "optimal_selection",
                                 "worst_selection", "se_selection", "se_uncertainty", "rs_density", "PAPER_CASES",
                                 "paper_cases_table"),
    "mri_theory.guarantee": ("selection_probability", "beta", "monte_carlo_selection_probability", "Noise",
                             "GaussianNoise", "StudentTNoise", "UniformNoise", "BiasedNoise", "HeteroscedasticNoise",
                             "EmpiricalNoise", "NOISE_FAMILIES", "SelectionSimulation", "simulate_selection"),
    "mri_theory.nonmyopic": ("POLICIES", "OBJECTIVES", "MAX_STATES", "MAX_STATES_GENERAL", "MAX_STATES_LIMIT",
                             "MAX_WIDTHS", "PolicyResult", "optimal_policy", "policy_value", "policy_values",
                             "value_curves", "sample_state"),
    "mri_theory.symbolic": ("SYMBOLS", "error_rate_expr", "q_c_expr", "lambdify_error_rate", "lambdify_q_c"),
    "mri_theory.quadrature": ("error_rate_quad", "q_c_quad"),
    "mri_theory.noisy_selection": ("DEFAULT_RELATIVE_SIGMAS", "POPULATION_SIZE", "NoisyOracle",
                                   "noisy_selection_curves"),
    "mri_theory.bayes_error": ("compute_bayes_error", "mixture_bayes_error", "grouped_logsumexp"),
    "mri_theory.adapters": ("SkactivemlStrategy",),
    "mri_theory.diagnostics": ("STATE_COLUMNS", "Execution", "StatesPlan", "estimator_errors", "execute_states",
                               "plan_states", "read_states", "score_states", "summarise_states"),
    "mri_theory.diagnostics.states": ("STATE_COLUMNS", "Execution", "StatesPlan", "execute_states", "plan_states",
                                      "read_states", "score_states"),
    "mri_theory.diagnostics.summaries": ("estimator_errors", "summarise_states"),
    "mri_theory.classifiers.base": ("Classifier", "check_points", "check_retraining_args", "refit_future_losses"),
}

#: Old module -> the module that now holds its names (the layout of the move).
NEW_HOME = {
    "mri_theory.sandbox": "mri_theory.runners.sandbox",
    "mri_theory.study": "mri_theory.runners.study",
    "mri_theory.metrics": "mri_theory.evaluation.metrics",
    "mri_theory.ranking": "mri_theory.evaluation.ranking",
    "mri_theory.tables": "mri_theory.evaluation.tables",
    "mri_theory.population": "mri_theory.engine.population",
    "mri_theory.losses": "mri_theory.engine.losses",
    "mri_theory.retraining": "mri_theory.engine.retraining",
    "mri_theory.targets": "mri_theory.engine.targets",
    "mri_theory.two_gaussians": "mri_theory.analytic.two_gaussians",
    "mri_theory.guarantee": "mri_theory.analytic.guarantee",
    "mri_theory.nonmyopic": "mri_theory.analytic.nonmyopic",
    "mri_theory.symbolic": "mri_theory.analytic.symbolic",
    "mri_theory.quadrature": "mri_theory.analytic.quadrature",
    "mri_theory.noisy_selection": "mri_theory.runners.noisy_selection",
    "mri_theory.bayes_error": "mri_theory.problems.bayes_error",
    "mri_theory.adapters": "mri_theory.strategies.skactiveml",
    "mri_theory.diagnostics": "mri_theory.runners.states",
    "mri_theory.diagnostics.states": "mri_theory.runners.states",
    "mri_theory.diagnostics.summaries": "mri_theory.evaluation.summaries",
    "mri_theory.classifiers.base": "mri_theory.engine.contract",
}

#: (old module, name) -> its new module, where that is not the old module's NEW_HOME.
MOVED_ELSEWHERE = {
    **{("mri_theory.metrics", name): "mri_theory.runners.asymptotic"
       for name in ("MAX_N_TRAIN", "MAX_POPULATION", "MAX_REPLICATES", "asymptotic_loss")},
    ("mri_theory.diagnostics", "estimator_errors"): "mri_theory.evaluation.summaries",
    ("mri_theory.diagnostics", "summarise_states"): "mri_theory.evaluation.summaries",
}

#: The subpackages whose paths did not change -> their ``__all__`` before the move.
UNMOVED_NAMES = {
    "mri_theory.problems": ("Problem", "GaussianMixtureProblem", "DataProblem", "get_problem", "list_problems",
                            "register_problem", "unregister_problem", "registered_problem", "check_problem",
                            "initial_labelled_set"),
    "mri_theory.strategies": ("Context", "Strategy", "select", "get_strategy", "list_strategies",
                              "register_strategy", "registered_strategy", "unregister_strategy",
                              "second_classifier", "COMMITTEE", "FOREST_TREES", "BMRI_FOREST_TREES",
                              "MAX_RESAMPLES", "TIE_TOLERANCE"),
    "mri_theory.classifiers": ("Classifier", "KNN", "LDA", "QDA", "GaussianNaiveBayes", "GaussianMeanClassifier",
                               "GaussianClassifier", "LogisticRegression", "SVM", "RandomForest",
                               "SklearnClassifier", "get_classifier", "list_classifiers", "register_classifier",
                               "registered_classifier", "unregister_classifier", "refit_future_losses"),
}

SHIM_FILES = {PACKAGE / (old.removeprefix("mri_theory.").replace(".", "/") + ".py") for old in OLD_NAMES} | {
    PACKAGE / "diagnostics" / "__init__.py"}
SHIM_FILES.discard(PACKAGE / "diagnostics.py")

PAIRS = [(old, name) for old, names in OLD_NAMES.items() for name in names]


def home(old: str, name: str) -> str:
    return MOVED_ELSEWHERE.get((old, name), NEW_HOME[old])


def subprocess_env() -> dict[str, str]:
    """The environment of a child interpreter that imports this tree's package."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


# ------------------------------------------------------------------ the old paths still work, and warn


def test_the_tables_cover_every_old_module_once():
    assert set(NEW_HOME) == set(OLD_NAMES)
    assert all(old in OLD_NAMES and name in OLD_NAMES[old] for old, name in MOVED_ELSEWHERE)
    assert len(PAIRS) == len(set(PAIRS)) > 150


@pytest.mark.parametrize("old, name", PAIRS, ids=[f"{old}.{name}" for old, name in PAIRS])
def test_an_old_name_warns_and_is_the_new_object(old, name):
    module = importlib.import_module(old)
    new = importlib.import_module(home(old, name))
    with pytest.warns(DeprecationWarning) as record:
        obj = getattr(module, name)
    assert len(record) == 1
    message = str(record[0].message)
    assert old in message and re.search(rf"\b{re.escape(home(old, name))}\b", message), message
    assert record[0].filename == __file__, "the warning points at the line that used the old path"
    assert obj is getattr(new, name)


@pytest.mark.parametrize("old", OLD_NAMES)
def test_the_old_all_and_dir_still_list_every_old_name(old):
    module = importlib.import_module(old)
    assert set(OLD_NAMES[old]) <= set(module.__all__)
    assert set(OLD_NAMES[old]) <= set(dir(module))


@pytest.mark.parametrize("old", OLD_NAMES)
def test_star_import_from_an_old_path_gives_the_new_objects(old):
    namespace: dict = {}
    with pytest.warns(DeprecationWarning):
        exec(f"from {old} import *", namespace)
    for name in OLD_NAMES[old]:
        assert namespace[name] is getattr(importlib.import_module(home(old, name)), name), name


@pytest.mark.parametrize("old", OLD_NAMES)
def test_private_and_unknown_names_are_not_forwarded(old):
    module = importlib.import_module(old)
    new = importlib.import_module(NEW_HOME[old])
    private = [name for name in vars(new) if name.startswith("_") and not name.startswith("__")]
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # refused without a warning
        for name in [*private, "_no_such_name", "no_such_name"]:
            with pytest.raises(AttributeError, match=re.escape(old)):
                getattr(module, name)


def test_the_new_paths_import_without_a_deprecation_warning():
    modules = sorted(".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                     for path in PACKAGE.rglob("*.py") if path not in SHIM_FILES)
    assert "mri_theory.runners.sandbox" in modules and "mri_theory.sandbox" not in modules
    code = "import " + ", ".join(modules)
    res = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", code], cwd=ROOT,
                         env=subprocess_env(), capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize("package", UNMOVED_NAMES)
def test_the_unmoved_subpackages_still_offer_their_old_names(package):
    module = importlib.import_module(package)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        missing = [name for name in UNMOVED_NAMES[package] if not hasattr(module, name)]
        namespace: dict = {}
        exec(f"from {package} import {', '.join(UNMOVED_NAMES[package])}", namespace)
    assert missing == []


# ------------------------------------------------------------------ nothing imports an old path any more


def old_paths_imported(source: str, package: str | None = None) -> list[str]:
    """The old module paths that ``source`` imports (``package``: the module's package, for relative imports)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = (package or "").split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        elif (isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))
              and getattr(node.func, "attr", getattr(node.func, "id", None)) in ("import_module", "__import__")
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            targets = [node.args[0].value]
        else:
            continue
        found += [target for target in targets
                  if any(target == old or target.startswith(old + ".") for old in OLD_NAMES)]
    return found


def notebook_code(path: Path) -> str:
    """The code cells of a notebook, IPython magics and shell escapes left out."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    lines = [line for cell in cells if cell["cell_type"] == "code" for line in "".join(cell["source"]).splitlines()
             if not line.lstrip().startswith(("%", "!"))]
    return "\n".join(lines)


def sources() -> list[tuple[str, str, str | None]]:
    """``(where, code, package)`` for every place that must not import an old path."""
    out = []
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    out += [(f"README.md python block {i}", block, None)
            for i, block in enumerate(re.findall(r"^```python\n(.*?)^```", readme, re.M | re.S))]
    for page in sorted((ROOT / "docs").rglob("*.md")):
        if "_build" in page.parts:
            continue
        text = page.read_text(encoding="utf-8")
        out += [(f"{page.relative_to(ROOT)} python block {i}", block, None)
                for i, block in enumerate(re.findall(r"^```python\n(.*?)^```", text, re.M | re.S))]
    out += [(str(p.relative_to(ROOT)), notebook_code(p), None) for p in sorted((ROOT / "notebooks").glob("*.ipynb"))]
    for folder in ("benchmarks", "scripts", "tests", "mri_theory"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path in SHIM_FILES or path == Path(__file__).resolve():
                continue
            package = ".".join(path.relative_to(ROOT).parent.parts) if folder == "mri_theory" else None
            out.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"), package))
    return out


def test_the_import_finder_sees_every_form_of_import():
    assert old_paths_imported("import mri_theory.sandbox as s") == ["mri_theory.sandbox"]
    assert old_paths_imported("from mri_theory import sandbox, runners") == ["mri_theory.sandbox"]
    assert old_paths_imported("from mri_theory.diagnostics.states import score_states")
    assert old_paths_imported("from mri_theory.classifiers import base") == ["mri_theory.classifiers.base"]
    assert old_paths_imported("from .. import metrics", package="mri_theory.runners") == ["mri_theory.metrics"]
    assert old_paths_imported("from .base import Classifier", package="mri_theory.classifiers")
    assert old_paths_imported("importlib.import_module('mri_theory.study')") == ["mri_theory.study"]
    assert old_paths_imported("from mri_theory.runners import sandbox\nfrom mri_theory.classifiers import LDA") == []
    assert old_paths_imported("from mri_theory.evaluation import metrics") == []


def test_nothing_imports_an_old_path():
    places = sources()
    assert any(where.startswith("README.md") for where, _, _ in places)
    assert any(where.startswith("docs") for where, _, _ in places)
    assert any(where.startswith("notebooks") for where, _, _ in places)
    offenders = {where: found for where, code, package in places if (found := old_paths_imported(code, package))}
    assert offenders == {}
