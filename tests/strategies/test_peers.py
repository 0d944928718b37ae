"""scikit-activeml's named peers in the registry (``PEER_NAMES``, :func:`mri_theory.strategies.skactiveml.peer`).

Every peer's scores are checked against scikit-activeml called directly on the same
input (its ``query`` with a scikit-learn model wrapped by scikit-activeml's own
``SklearnClassifier``, its ``ParzenWindowClassifier``), or against closed forms
(uncertainty scores from the base classifier's probabilities, CoreSet's
distances with scipy, committees refitted by hand on the same bootstrap
resamples); the argmax of every peer is a candidate scikit-activeml's own
``query`` (without utilities) would pick.  Without scikit-activeml (an import
blocked in a subprocess) the registry and the runners' ``"all"`` keep working
and a peer named explicitly raises an ``ImportError`` naming the extra.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _optional import installed
from _shared import QUIET
from scipy import stats
from scipy.spatial.distance import cdist

from mri_theory.strategies import PEER_NAMES, list_strategies, strategy_names

DOCS = Path(__file__).resolve().parents[2] / "docs" / "user-guide" / "strategies.md"
#: The peers the issue asks for, in the registry's order.
EXPECTED = ["SkUS-margin", "SkUS-LC", "SkUS-entropy", "SkDWUS", "SkMcPAL", "SkDWUS-scott", "SkMcPAL-scott",
            "SkQBC-VE", "SkQBC-KL", "SkMC-EER", "SkVOI-EER", "SkCoreSet"]
#: Blocks scikit-activeml in a subprocess: ``import skactiveml`` then raises ImportError.
BLOCK = "import sys; sys.modules['skactiveml'] = None\n"
ULPS = 8 * np.finfo(float).eps
SEED_BOUND = 2**31 - 1  # the adapter's seeds: one draw of ctx.rng.integers(2**31 - 1)

# ------------------------------------------------------------------ registry, docs, no scikit-activeml


def test_the_peers_are_registered_in_order_after_ours_where_scikit_activeml_is_installed():
    assert list(PEER_NAMES) == EXPECTED
    names = list_strategies()
    if installed("skactiveml"):  # the peers together, in their order, after every one of ours
        first = names.index(EXPECTED[0])
        assert names[first:first + len(EXPECTED)] == EXPECTED
        assert all(names.index(name) < first for name in strategy_names("ours"))
    else:
        assert not set(PEER_NAMES) & set(names)


def test_every_peer_is_named_where_the_docs_list_strategies():
    import mri_theory.strategies as strategies

    table = DOCS.read_text()
    for name in PEER_NAMES:
        assert re.search(rf"^\| `{re.escape(name)}` \|", table, re.M), name
        assert re.search(rf"^{re.escape(name)} ", strategies.__doc__, re.M), name


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def test_without_scikit_activeml_all_works_and_a_named_peer_says_how_to_install_it():
    code = BLOCK + (
        "from mri_theory.strategies import PEER_NAMES, STRATEGY_REGISTRY, get_strategy, list_strategies\n"
        "from mri_theory.runners import Execution, _resolve, score_states\n"
        "names = list_strategies()\n"
        "print(names == [n for n in STRATEGY_REGISTRY.names() if n not in PEER_NAMES],\n"
        "      bool(set(PEER_NAMES) & set(names)))\n"
        "print(sorted(_resolve.strategy_objects('all', 'error')) == sorted(names))\n"
        "for call in (lambda: get_strategy('SkMC-EER'),\n"
        "             lambda: score_states('four-gaussian', 'lda', 'peers', replicates=1, steps=(0,), pool_size=5,\n"
        "                                  population_size=50, execution=Execution(progress=False))):\n"
        "    try:\n        call()\n    except ImportError as e:\n        print('ImportError', e)\n")
    lines = _run(code).splitlines()
    assert lines[0] == "True False" and lines[1] == "True"
    assert len(lines) == 4
    for line in lines[2:]:
        assert line.startswith("ImportError") and 'pip install "mri-theory[peers]"' in line


def test_listing_and_registering_do_not_import_scikit_activeml():
    code = ("import sys; from mri_theory.strategies import list_strategies, get_strategy\n"
            "names = list_strategies(); print('skactiveml' in sys.modules)")
    assert _run(code).strip() == "False"


# ------------------------------------------------------------------ the rest needs scikit-activeml

skactiveml_needed = pytest.mark.skipif(not installed("skactiveml"),
                                       reason='skactiveml is not installed: pip install -e ".[test]"')


def _state(seed: int, extra: int = 8, pool_size: int = 25):
    from mri_theory.problems import get_problem
    from mri_theory.runners.sandbox import initial_labelled_set

    problem = get_problem("four-gaussian")
    rng = np.random.default_rng(seed)
    X0, y0 = initial_labelled_set(problem, rng)
    X1, y1 = problem.sample(extra, rng)
    pool, _ = problem.sample(pool_size, rng)
    return np.vstack([X0, X1]), np.concatenate([y0, y1]), pool


def _ctx(X, y, pool, classifier, seed: int = 0, candidates=None):
    from mri_theory.strategies import Context

    return Context(X, y, pool if candidates is None else candidates, pool, classifier, 2, np.random.default_rng(seed))


def _direct_input(X, y, pool):
    """scikit-activeml's input: labelled rows, then the pool unlabelled; the candidates' indices."""
    from skactiveml.utils import MISSING_LABEL

    X_all = np.vstack([X, pool])
    y_all = np.concatenate([y.astype(float), np.full(pool.shape[0], MISSING_LABEL)])
    return X_all, y_all, np.arange(X.shape[0], X_all.shape[0])


def _adapter_seed(seed: int) -> int:
    return int(np.random.default_rng(seed).integers(SEED_BOUND))


@skactiveml_needed
@pytest.mark.parametrize("name, formula", [
    ("SkUS-margin", lambda p: 1 - (np.sort(p, axis=1)[:, -1] - np.sort(p, axis=1)[:, -2])),
    ("SkUS-LC", lambda p: 1 - p.max(axis=1)),
    ("SkUS-entropy", lambda p: stats.entropy(p, axis=1)),
])
@pytest.mark.parametrize("classifier", ["lda", "kknn5", "svm"])
def test_uncertainty_peers_score_the_base_classifiers_probabilities(name, formula, classifier):
    from mri_theory.classifiers import get_classifier
    from mri_theory.strategies import get_strategy

    X, y, pool = _state(1)
    scores = get_strategy(name).scores(_ctx(X, y, pool, get_classifier(classifier)))
    p = get_classifier(classifier).fit(X, y, 2).predict_proba(pool)
    np.testing.assert_allclose(scores, formula(p), rtol=0, atol=ULPS)


def _density(X_all, seed):
    from skactiveml.classifier import ParzenWindowClassifier

    return ParzenWindowClassifier(classes=[0, 1]).fit(X_all, np.zeros(len(X_all))).predict_freq(X_all)[:, 0]


@skactiveml_needed
def test_density_weighted_uncertainty_is_entropy_times_the_parzen_density():
    from mri_theory.classifiers import get_classifier
    from mri_theory.strategies import get_strategy

    X, y, pool = _state(2)
    scores = get_strategy("SkDWUS").scores(_ctx(X, y, pool, get_classifier("qda")))
    X_all, _, index = _direct_input(X, y, pool)
    # The kernel density by hand: the rbf kernel (scikit-learn's default gamma = 1 / n_features) over all rows.
    density = np.exp(-cdist(X_all, X_all, "sqeuclidean") / X_all.shape[1]).sum(axis=1)
    entropy = stats.entropy(get_classifier("qda").fit(X, y, 2).predict_proba(pool), axis=1)
    # entropies to a few ulps (numpy's and scipy's logarithms), times densities of up to len(X_all)
    np.testing.assert_allclose(scores, entropy * density[index], rtol=1e-12, atol=ULPS * density.max())


@skactiveml_needed
def test_mcpal_equals_scikit_activemls_example_called_directly():
    from skactiveml.classifier import ParzenWindowClassifier
    from skactiveml.pool import ProbabilisticAL

    from mri_theory.classifiers import get_classifier
    from mri_theory.strategies import get_strategy

    X, y, pool = _state(3)
    scores = get_strategy("SkMcPAL").scores(_ctx(X, y, pool, get_classifier("lda"), seed=5))
    X_all, y_all, index = _direct_input(X, y, pool)
    seed = _adapter_seed(5)
    clf = ParzenWindowClassifier(classes=[0, 1], random_state=seed)
    _, utilities = ProbabilisticAL(random_state=seed).query(X_all, y_all, clf, utility_weight=_density(X_all, seed),
                                                             candidates=index, return_utilities=True)
    np.testing.assert_allclose(scores, utilities[0, index], rtol=1e-12, atol=0)
    assert np.ptp(scores) > 0


def test_scotts_gamma_is_scipys_kde_bandwidth_made_isotropic():
    from mri_theory.strategies.skactiveml import scott_gamma

    rng = np.random.default_rng(4)
    for n, d in ((30, 1), (250, 2), (60, 5)):
        X = rng.normal(size=(n, d)) * rng.uniform(0.1, 3.0, size=d)
        kde = stats.gaussian_kde(X.T)  # Scott's rule: the data's covariance times factor**2
        h2 = np.trace(np.atleast_2d(kde.covariance)) / d  # one bandwidth: the mean of the diagonal
        assert scott_gamma(X) == pytest.approx(1 / (2 * h2), rel=1e-12)
    with pytest.raises(ValueError, match="^X: its rows do not vary"):
        scott_gamma(np.ones((5, 2)))
    with pytest.raises(ValueError, match="^X must be a 2-d array"):
        scott_gamma(np.ones(5))


@skactiveml_needed
def test_the_scott_peers_use_the_data_scaled_kernel_in_both_windows():
    from skactiveml.classifier import ParzenWindowClassifier
    from skactiveml.pool import ProbabilisticAL

    from mri_theory.classifiers import get_classifier
    from mri_theory.strategies import get_strategy

    X, y, pool = _state(3)
    X_all, y_all, index = _direct_input(X, y, pool)
    n, d = X_all.shape
    h2 = n ** (-2 / (d + 4)) * np.mean(np.var(X_all, axis=0, ddof=1))
    kernel = np.exp(-cdist(X_all, X_all, "sqeuclidean") / (2 * h2))  # by hand: Gaussian windows of Scott's width
    density = kernel.sum(axis=1)
    assert 1 / (2 * h2) > 2 / d  # Four-Gaussian's components (sd 0.17) are much narrower than the default's
    scores = get_strategy("SkDWUS-scott").scores(_ctx(X, y, pool, get_classifier("qda")))
    entropy = stats.entropy(get_classifier("qda").fit(X, y, 2).predict_proba(pool), axis=1)
    np.testing.assert_allclose(scores, entropy * density[index], rtol=1e-12, atol=ULPS * density.max())
    scores = get_strategy("SkMcPAL-scott").scores(_ctx(X, y, pool, get_classifier("lda"), seed=5))
    seed = _adapter_seed(5)
    clf = ParzenWindowClassifier(classes=[0, 1], metric_dict={"gamma": 1 / (2 * h2)}, random_state=seed)
    _, utilities = ProbabilisticAL(random_state=seed).query(X_all, y_all, clf, utility_weight=density,
                                                             candidates=index, return_utilities=True)
    np.testing.assert_allclose(scores, utilities[0, index], rtol=1e-9, atol=0)
    default = get_strategy("SkMcPAL").scores(_ctx(X, y, pool, get_classifier("lda"), seed=5))
    assert not np.allclose(scores / scores.max(), default / default.max())  # the kernel width matters


@skactiveml_needed
def test_parzen_gamma_is_checked_and_shown_only_when_changed():
    from skactiveml.classifier import ParzenWindowClassifier
    from skactiveml.pool import UncertaintySampling

    from mri_theory.strategies.skactiveml import SkactivemlStrategy, peer

    assert "parzen_gamma" not in repr(peer("SkMcPAL")) and "parzen_gamma='scott'" in repr(peer("SkMcPAL-scott"))
    assert peer("SkDWUS", parzen_gamma=2.5).parzen_gamma == 2.5
    with pytest.raises(ValueError, match="^parzen_gamma must be one of 'default', 'scott'"):
        peer("SkDWUS", parzen_gamma="silverman")
    with pytest.raises(ValueError, match="^parzen_gamma must be > 0"):
        peer("SkDWUS", parzen_gamma=0.0)
    with pytest.raises(TypeError, match="parzen_gamma"):
        peer("SkDWUS", parzen_gamma=[1.0])
    with pytest.raises(ValueError, match="^parzen_gamma: this strategy uses no Parzen window"):
        peer("SkUS-margin", parzen_gamma="scott")
    with pytest.raises(ValueError, match="^parzen_gamma: the classifier's metric is 'linear'"):
        SkactivemlStrategy(UncertaintySampling(), classifier=ParzenWindowClassifier(metric="linear"),
                           parzen_gamma=1.0)


def _bagged_probabilities(X, y, pool, fit_predict, size, seed):
    """The committee refitted by hand: the adapter's bootstrap draws, every member fitted directly."""
    rng = np.random.default_rng(seed)
    probas = []
    for _ in range(size):
        rows = rng.integers(len(y), size=len(y))
        rng.integers(SEED_BOUND)  # the member's seed (unused by these deterministic members)
        probas.append(fit_predict(X[rows], y[rows], pool))
    return np.array(probas)


@skactiveml_needed
@pytest.mark.parametrize("classifier", ["lda", "nb"])
def test_query_by_committee_peers_equal_a_committee_refitted_by_hand(classifier):
    from skactiveml.pool import average_kl_divergence

    from mri_theory.classifiers import get_classifier
    from mri_theory.strategies import get_strategy

    X, y, pool = _state(4, extra=12)

    def fit_predict(X_b, y_b, Z):
        return get_classifier(classifier).fit(X_b, y_b, 2).predict_proba(Z)

    probas = _bagged_probabilities(X, y, pool, fit_predict, 10, _adapter_seed(7))
    kl = get_strategy("SkQBC-KL").scores(_ctx(X, y, pool, get_classifier(classifier), seed=7))
    clipped = np.clip(probas, 1e-7, 1)  # QueryByCommittee's eps: probabilities below 1e-7 count as 1e-7
    clipped /= clipped.sum(axis=2, keepdims=True)
    by_hand = np.mean([stats.entropy(p, clipped.mean(axis=0), axis=1) for p in clipped], axis=0)
    np.testing.assert_allclose(kl, by_hand, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(kl, average_kl_divergence(probas.copy()), rtol=1e-9, atol=1e-12)
    votes = probas.argmax(axis=2)  # no exact ties of two classes in these continuous probabilities
    counts = np.stack([(votes == c).mean(axis=0) for c in range(2)], axis=1)
    ve = get_strategy("SkQBC-VE").scores(_ctx(X, y, pool, get_classifier(classifier), seed=7))
    np.testing.assert_allclose(ve, stats.entropy(counts, axis=1), rtol=0, atol=ULPS)
    assert np.ptp(kl) > 0 and np.ptp(ve) > 0


@skactiveml_needed
@pytest.mark.parametrize("name, query_class", [("SkMC-EER", "MonteCarloEER"), ("SkVOI-EER", "ValueOfInformationEER")])
def test_eer_peers_equal_scikit_activeml_called_directly(name, query_class):
    """With a scikit-learn model (the peer's classifier option), against scikit-activeml's own SklearnClassifier."""
    import skactiveml.pool
    from skactiveml.classifier import SklearnClassifier
    from sklearn.linear_model import LogisticRegression

    from mri_theory.classifiers import get_classifier
    from mri_theory.strategies import get_strategy

    X, y, pool = _state(5)
    peer = get_strategy(name, classifier=LogisticRegression())
    scores = peer.scores(_ctx(X, y, pool, get_classifier("lda"), seed=2))
    X_all, y_all, index = _direct_input(X, y, pool)
    seed = _adapter_seed(2)
    qs = getattr(skactiveml.pool, query_class)(**({"method": "misclassification_loss"} if name == "SkMC-EER" else {}),
                                               random_state=seed)
    clf = SklearnClassifier(LogisticRegression(), classes=[0, 1], random_state=seed)
    _, utilities = qs.query(X_all, y_all, clf, candidates=index, return_utilities=True)
    np.testing.assert_allclose(scores, utilities[0, index], rtol=1e-12, atol=1e-12)
    assert np.ptp(scores) > 0 and peer.costly


@skactiveml_needed
def test_coreset_scores_the_distance_to_the_nearest_labelled_point():
    from mri_theory.classifiers import get_classifier
    from mri_theory.strategies import get_strategy

    X, y, pool = _state(6)
    scores = get_strategy("SkCoreSet").scores(_ctx(X, y, pool, get_classifier("svm")))
    np.testing.assert_allclose(scores, cdist(pool, X).min(axis=1), rtol=1e-12, atol=0)


@skactiveml_needed
@pytest.mark.parametrize("name", PEER_NAMES)
def test_a_peers_argmax_is_what_scikit_activeml_itself_would_query(name):
    """Larger is better: ``query`` without utilities (same seed, same input) picks a candidate tied at the top."""
    from mri_theory.classifiers import get_classifier
    from mri_theory.strategies import get_strategy, near_maximum
    from mri_theory.strategies.skactiveml import SkactivemlStrategy

    X, y, pool = _state(8, pool_size=15)
    peer = get_strategy(name)
    ctx = _ctx(X, y, pool, get_classifier("lda"), seed=3)
    scores = peer.scores(ctx)
    seen: dict[str, object] = {}

    base = type(peer.query_strategy)

    class Spy(base):  # records the exact input the adapter gives query
        @functools.wraps(base.query)
        def query(self, *args, **kwargs):
            seen.update(kwargs, X=args[0], y=args[1])
            return super().query(*args, **kwargs)

    spy = SkactivemlStrategy(Spy(**peer.query_strategy.get_params()), name=name, classifier=peer.classifier,
                             density_weight=peer.density_weight, ensemble_size=peer.ensemble_size,
                             parzen_gamma=peer.parzen_gamma)
    np.testing.assert_array_equal(spy.scores(_ctx(X, y, pool, get_classifier("lda"), seed=3)), scores)
    kwargs = {k: v for k, v in seen.items() if k not in ("X", "y", "return_utilities", "batch_size")}
    queried = type(peer.query_strategy)(**{**peer.query_strategy.get_params(), "random_state": _adapter_seed(3)}) \
        .query(seen["X"], seen["y"], **kwargs)
    position = int(np.flatnonzero(np.asarray(seen["candidates"]) == queried[0])[0])
    assert near_maximum(scores)[position], (name, position, scores)


# ------------------------------------------------------------------ in the runners; determinism


@skactiveml_needed
@pytest.mark.parametrize("classifier", ["lda", "kknn5"])
def test_every_peer_runs_in_score_states_and_run_curves(classifier):
    from mri_theory.runners import score_states
    from mri_theory.runners.sandbox import run_curves

    states = score_states("four-gaussian", classifier, [*PEER_NAMES, "MRI-best"], replicates=1, steps=(0, 3),
                          pool_size=12, population_size=300, seed=1, execution=QUIET)
    assert list(dict.fromkeys(states.strategy)) == [*PEER_NAMES, "MRI-best"]
    assert np.isfinite(states.score).all()
    curves = run_curves("four-gaussian", classifier, "peers", pool_size=8, budget=3, replicates=1,
                        population_size=300, subsample=4, seed=2, execution=QUIET)
    assert list(dict.fromkeys(curves.strategy)) == list(PEER_NAMES)
    assert (curves.groupby("strategy").size() == 4).all() and curves.loss.between(0, 1).all()


_SCORES = ("import json, numpy as np\n"
           "from mri_theory.runners import Execution, score_states\n"
           "s = score_states('three-gaussians', 'nb', 'peers', replicates=1, steps=(0, 2), pool_size=10,\n"
           "                 population_size=200, seed=9,\n"
           "                 execution=Execution(progress=False))\n"
           "print(json.dumps({n: s[s.strategy == n].score.tolist() for n in s.strategy.unique()}))\n")


@skactiveml_needed
def test_peers_are_deterministic_in_a_process_and_across_processes():
    """Same seed, same scores (three classes); a second process gives identical scores, bit for bit."""
    namespace: dict[str, object] = {}
    from contextlib import redirect_stdout
    from io import StringIO

    out = StringIO()
    with redirect_stdout(out):
        exec(_SCORES, namespace)  # noqa: S102 - the same code as the subprocess runs
    here = json.loads(out.getvalue())
    assert list(here) == list(PEER_NAMES)
    assert json.loads(_run(_SCORES)) == here
    other = json.loads(_run(_SCORES.replace("seed=9", "seed=10")))
    assert other != here  # the seed matters


@skactiveml_needed
def test_peer_options_and_bad_names_are_refused_naming_them():
    from sklearn.linear_model import LogisticRegression

    from mri_theory.strategies import RandomSelection, get_strategy, register_strategy
    from mri_theory.strategies.skactiveml import peer

    assert get_strategy("SkUS-LC", classifier=LogisticRegression()).classifier is not None
    assert get_strategy("SkMC-EER", costly=False).costly is False
    with pytest.raises(TypeError, match=r"options \['nope'\] are not options of the peer 'SkUS-LC'"):
        get_strategy("SkUS-LC", nope=1)
    with pytest.raises(TypeError, match=r"options \['query_strategy'\] are not options"):
        peer("SkUS-LC", query_strategy=None)
    with pytest.raises(ValueError, match="name: unknown peer 'SkNope'; the peers are SkUS-margin"):
        peer("SkNope")
    with pytest.raises(ValueError, match="density_weight: CoreSet.query takes no utility_weight"):
        peer("SkCoreSet", density_weight=True)
    with pytest.raises(ValueError, match="ensemble_size: UncertaintySampling.query takes no ensemble"):
        peer("SkUS-LC", ensemble_size=3)
    with pytest.raises(ValueError, match="ensemble_size must be <= 1_000"):
        peer("SkQBC-KL", ensemble_size=1001)
    with pytest.raises(ValueError, match=r"query_params must not set \['ensemble'\]"):
        peer("SkQBC-KL", query_params={"ensemble": []})
    with pytest.raises(ValueError, match="name 'peers' is reserved"):
        register_strategy("peers", RandomSelection)
