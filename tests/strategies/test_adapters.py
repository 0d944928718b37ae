"""scikit-activeml's query strategies in the sandbox: :class:`mri_theory.strategies.skactiveml.SkactivemlStrategy`.

Every score is checked against an independent computation: the package's own SE
and scipy's entropy of the same fitted model, a brute-force Monte-Carlo EER
with plain refits, and scikit-learn models fitted directly.  The two traps of
scikit-activeml (``sample_weight`` passed positionally; k-NN with fewer than k
training points) are shown to fail when scikit-activeml is called directly and
to work through the adapter.
"""

from __future__ import annotations

import pickle
import re
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from _optional import given, need, settings, st
from scipy import stats

skactiveml = need("skactiveml")  # the whole file but its two import checks

from _shared import QUIET, TWO_WORKERS
from skactiveml.classifier import ParzenWindowClassifier
from skactiveml.classifier import SklearnClassifier as SkalSklearnClassifier
from skactiveml.pool import (
    MonteCarloEER,
    QueryByCommittee,
    RandomSampling,
    UncertaintySampling,
    ValueOfInformationEER,
)
from skactiveml.utils import MISSING_LABEL
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from mri_theory._utils.ties import TIE_TOLERANCE, near_maximum
from mri_theory.classifiers import get_classifier
from mri_theory.problems import get_problem
from mri_theory.runners import score_states
from mri_theory.runners.sandbox import (
    DamagedPartWarning,
    initial_labelled_set,
    run_curves,
)
from mri_theory.strategies import Context, Strategy, get_strategy, select
from mri_theory.strategies.skactiveml import SkactivemlStrategy

FOUR = get_problem("four-gaussian")
K = FOUR.n_classes  # 2: four Gaussian components, two classes
#: Entropies are at most ln 2 < 1: scipy/numpy and scikit-activeml take logarithms by different code paths.
ULPS = 4 * np.finfo(float).eps


def _state(seed: int, extra: int = 6, pool_size: int = 30) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A Four-Gaussian state: one point per class plus ``extra`` labelled points, and a pool."""
    rng = np.random.default_rng(seed)
    X0, y0 = initial_labelled_set(FOUR, rng)
    X, y = X0, y0
    if extra:
        X1, y1 = FOUR.sample(extra, rng)
        X, y = np.vstack([X0, X1]), np.concatenate([y0, y1])
    pool, _ = FOUR.sample(pool_size, rng)
    return X, y, pool


def _ctx(X, y, pool, classifier, candidates=None, seed: int = 0) -> Context:
    candidates = pool if candidates is None else candidates
    return Context(X, y, candidates, pool, classifier, FOUR.n_classes, np.random.default_rng(seed))


def _same_order(a: np.ndarray, b: np.ndarray) -> bool:
    """``a`` orders every pair that ``b`` separates by more than the tie tolerance the same way."""
    gap = b[:, None] - b[None, :]
    clear = np.abs(gap) > TIE_TOLERANCE * max(1.0, np.abs(b).max())
    return bool(np.all(np.sign(a[:, None] - a[None, :])[clear] == np.sign(gap)[clear]))


# ------------------------------------------------------------------ import hygiene and construction


def test_importing_the_package_and_the_module_does_not_import_skactiveml():
    code = ("import sys, mri_theory, mri_theory.strategies.skactiveml, mri_theory.strategies, "
            "mri_theory.runners.sandbox; print('skactiveml' in sys.modules)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.strip() == "False"


def test_without_scikit_activeml_the_adapter_says_how_to_install_it():
    code = ("import sys; sys.modules['skactiveml'] = None\n"  # makes `import skactiveml` raise ImportError
            "from mri_theory.strategies.skactiveml import SkactivemlStrategy\n"
            "try:\n    SkactivemlStrategy(object())\nexcept ImportError as e:\n    print(e)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert 'pip install "mri-theory[peers]"' in res.stdout


def test_default_names_are_safe_labels_and_costly_follows_the_family():
    us, eer, voi = (SkactivemlStrategy(UncertaintySampling()), SkactivemlStrategy(MonteCarloEER()),
                    SkactivemlStrategy(ValueOfInformationEER()))
    assert (us.name, eer.name, voi.name) == ("skal-UncertaintySampling", "skal-MonteCarloEER",
                                             "skal-ValueOfInformationEER")
    assert all(re.fullmatch(r"[A-Za-z0-9._+-]+", s.name) and "__" not in s.name for s in (us, eer, voi))
    assert (us.costly, eer.costly, voi.costly) == (False, True, True)
    assert SkactivemlStrategy(UncertaintySampling(), costly=True).costly is True
    assert SkactivemlStrategy(UncertaintySampling(), name="mine").name == "mine"
    assert isinstance(us, Strategy) and not us.needs_truth and not us.estimates_t_e


def test_repr_shows_every_parameter_so_two_adapters_are_told_apart():
    a = SkactivemlStrategy(MonteCarloEER(method="log_loss"))
    b = SkactivemlStrategy(MonteCarloEER())
    assert repr(a) != repr(b)
    assert "method='log_loss'" in repr(a)
    # Default parameters are shown too (scikit-learn's repr would hide them).
    for param in ("method='misclassification_loss'", "subtract_current=False", "random_state=None"):
        assert param in repr(b)
    knn = SkactivemlStrategy(UncertaintySampling(), classifier=KNeighborsClassifier(3))
    assert "n_neighbors=3" in repr(knn) and "n_neighbors=5" in repr(
        SkactivemlStrategy(UncertaintySampling(), classifier=KNeighborsClassifier()))
    assert "KNN(" in repr(SkactivemlStrategy(UncertaintySampling(), classifier=get_classifier("knn21")))


@pytest.mark.parametrize("kwargs, error, match", [
    ({"query_strategy": UncertaintySampling}, TypeError, "query_strategy must be a scikit-activeml pool"),
    ({"query_strategy": get_strategy("SE")}, TypeError, "query_strategy must be a scikit-activeml pool"),
    ({"name": 3}, TypeError, "name must be a str"),
    ({"name": "  "}, ValueError, "name must be a non-empty name"),
    ({"name": "a/b"}, ValueError, "name must be a non-empty name"),
    ({"classifier": "knn5"}, TypeError, "classifier must be None, an mri_theory Classifier"),
    ({"classifier": StandardScaler()}, TypeError, "classifier must be None, an mri_theory Classifier"),
    ({"classifier": SkalSklearnClassifier(KNeighborsClassifier(), classes=[0, 1],
                                          cost_matrix=[[0, 1], [2, 0]])}, ValueError,
     "classifier: a scikit-activeml SklearnClassifier .* must not set cost_matrix"),
    ({"query_strategy": RandomSampling(), "classifier": get_classifier("lda")}, ValueError,
     "classifier: this query strategy's query takes no clf"),
    ({"query_params": [("fit_clf", False)]}, TypeError, "query_params must be a mapping"),
    ({"query_params": {"candidates": [0]}}, ValueError, r"query_params must not set \['candidates'\]"),
    ({"query_params": {"ensemble_size": 3}}, TypeError, r"query_params \['ensemble_size'\] are not arguments"),
    ({"query_strategy": QueryByCommittee()}, ValueError, r"query_params must give query's required arg.*'ensemble'"),
    ({"costly": "yes"}, TypeError, "costly must be True or False"),
])
def test_bad_arguments_are_refused_naming_the_argument(kwargs, error, match):
    kwargs = {"query_strategy": UncertaintySampling(), **kwargs}
    with pytest.raises(error, match=match):
        SkactivemlStrategy(**kwargs)


# ------------------------------------------------------------------ scores against independent computations


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), extra=st.integers(0, 8),
       classifier=st.sampled_from(["lda", "qda", "nb", "kknn5", "knn5", "logreg", "mean"]))
def test_uncertainty_entropy_gives_shannon_entropy_on_the_same_classifier(seed, extra, classifier):
    """skactiveml's entropy sampling on the sandbox's classifier = SE = scipy's entropy of the same model."""
    X, y, pool = _state(seed, extra)
    ctx = _ctx(X, y, pool, get_classifier(classifier))
    peer = SkactivemlStrategy(UncertaintySampling(method="entropy")).scores(ctx)
    se = get_strategy("SE").scores(ctx)
    independent = stats.entropy(get_classifier(classifier).fit(X, y, FOUR.n_classes).predict_proba(pool), axis=1)
    np.testing.assert_allclose(peer, independent, rtol=0, atol=ULPS)
    np.testing.assert_allclose(peer, se, rtol=0, atol=ULPS)
    assert np.array_equal(near_maximum(peer), near_maximum(se))  # the same candidates are best
    assert _same_order(peer, se)


def test_candidates_outside_the_pool_are_scored_too():
    X, y, pool = _state(3)
    outside = FOUR.sample(5, np.random.default_rng(99))[0]
    candidates = np.vstack([pool[[4, 0, 7]], outside])  # a sub-sample in another order, and new points
    ctx = _ctx(X, y, pool, get_classifier("lda"), candidates)
    expected = stats.entropy(get_classifier("lda").fit(X, y, K).predict_proba(candidates), axis=1)
    np.testing.assert_allclose(SkactivemlStrategy(UncertaintySampling(method="entropy")).scores(ctx), expected,
                               rtol=0, atol=ULPS)


def _brute_force_monte_carlo_eer(classifier, X, y, pool, candidates) -> np.ndarray:
    """Roy & McCallum's expected error with 0-1 cost, by plain refits: ``-sum_c p(c|x) sum_e (1 - max p'(e))``.

    The error is estimated on every sample given to scikit-activeml (labelled and pool).
    """
    k = FOUR.n_classes
    evaluation = np.vstack([X, pool])
    p_hat = classifier.clone().fit(X, y, k).predict_proba(candidates)
    out = np.empty(candidates.shape[0])
    for i, x in enumerate(candidates):
        errors = [np.sum(1.0 - classifier.clone().fit(np.vstack([X, x]), np.append(y, c), k)
                         .predict_proba(evaluation).max(axis=1)) for c in range(k)]
        out[i] = -np.dot(p_hat[i], errors)
    return out


@pytest.mark.parametrize("classifier", ["lda", "kknn5", "logreg"])
def test_monte_carlo_eer_equals_a_brute_force_expected_error(classifier):
    X, y, pool = _state(11, extra=4, pool_size=15)
    base = get_classifier(classifier)
    candidates = pool[::3]
    ctx = _ctx(X, y, pool, base, candidates)
    scores = SkactivemlStrategy(MonteCarloEER()).scores(ctx)
    expected = _brute_force_monte_carlo_eer(base, X, y, pool, candidates)
    np.testing.assert_allclose(scores, expected, rtol=1e-12, atol=1e-12)


def test_value_of_information_eer_runs_and_select_picks_a_best_candidate():
    X, y, pool = _state(5, extra=2, pool_size=20)
    ctx = _ctx(X, y, pool, get_classifier("kknn5"), pool[:8])
    peer = SkactivemlStrategy(ValueOfInformationEER())
    index, scores = select(peer, ctx)
    assert scores.shape == (8,) and np.all(np.isfinite(scores))
    assert near_maximum(scores)[index]
    # Its value of information is an expected error reduction: it is not constant over candidates.
    assert np.ptp(scores) > 0


# ------------------------------------------------------------------ seeds


def test_scores_are_reproducible_from_ctx_rng_and_depend_on_it():
    """A random forest left without random_state is seeded from ctx.rng: equal generators, equal scores."""
    X, y, pool = _state(2)
    peer = SkactivemlStrategy(UncertaintySampling(method="entropy"),
                              classifier=RandomForestClassifier(n_estimators=5))
    first = peer.scores(_ctx(X, y, pool, get_classifier("lda"), seed=1))
    again = peer.scores(_ctx(X, y, pool, get_classifier("lda"), seed=1))
    other = peer.scores(_ctx(X, y, pool, get_classifier("lda"), seed=2))
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)
    # The seed is one integer drawn from ctx.rng, given to the forest.
    seed = int(np.random.default_rng(1).integers(2**31 - 1))
    forest = RandomForestClassifier(n_estimators=5, random_state=seed).fit(X, y)
    np.testing.assert_allclose(first, stats.entropy(forest.predict_proba(pool), axis=1), rtol=0, atol=ULPS)
    assert peer.query_strategy.random_state is None  # the adapter's own objects are never modified
    assert peer.classifier.random_state is None


def test_eer_is_deterministic_and_the_generator_advances_by_one_draw():
    X, y, pool = _state(4, pool_size=12)
    peer = SkactivemlStrategy(MonteCarloEER(method="log_loss"))
    ctx_a, ctx_b = (_ctx(X, y, pool, get_classifier("logreg"), seed=7) for _ in range(2))
    assert np.array_equal(peer.scores(ctx_a), peer.scores(ctx_b))
    reference = np.random.default_rng(7)
    reference.integers(2**31 - 1)
    assert ctx_a.rng.random() == reference.random()


def test_the_adapter_pickles_for_worker_processes():
    X, y, pool = _state(8)
    peer = SkactivemlStrategy(UncertaintySampling(method="margin_sampling"), name="skal-margin",
                              classifier=make_pipeline(StandardScaler(), SkLogisticRegression()))
    copy = pickle.loads(pickle.dumps(peer))
    assert repr(copy) == repr(peer)
    assert np.array_equal(copy.scores(_ctx(X, y, pool, get_classifier("lda"))),
                          peer.scores(_ctx(X, y, pool, get_classifier("lda"))))


# ------------------------------------------------------------------ classifiers and scikit-activeml's traps


class _SklearnKNN:
    """scikit-learn's k-NN fitted directly, columns 0..k-1: the independent model for the brute force."""

    def __init__(self, k: int) -> None:
        self.k = k

    def clone(self) -> _SklearnKNN:
        return _SklearnKNN(self.k)

    def fit(self, X, y, n_classes):
        self.n_classes, self.model = n_classes, KNeighborsClassifier(min(self.k, len(y))).fit(X, y)
        return self

    def predict_proba(self, X):
        out = np.zeros((len(X), self.n_classes))
        out[:, self.model.classes_] = self.model.predict_proba(X)
        return out


def test_sample_weight_trap_fails_directly_and_works_through_the_adapter():
    """EER calls ``clf.fit(X, y, sample_weight)``; scikit-activeml's wrapper of a k-NN has no such argument."""
    X, y, pool = _state(6, extra=8, pool_size=10)
    wrapped = SkalSklearnClassifier(KNeighborsClassifier(3), classes=np.arange(K))
    X_all = np.vstack([X, pool])
    y_all = np.concatenate([y, np.full(len(pool), MISSING_LABEL)])
    with pytest.raises(TypeError, match="positional argument"):
        MonteCarloEER().query(X_all, y_all, wrapped, candidates=np.arange(len(y), len(y_all)))
    candidates = pool[:4]
    scores = SkactivemlStrategy(MonteCarloEER(), classifier=wrapped).scores(
        _ctx(X, y, pool, get_classifier("lda"), candidates))
    # The same expected error with scikit-learn's 3-NN fitted directly.
    expected = _brute_force_monte_carlo_eer(_SklearnKNN(3), X, y, pool, candidates)
    np.testing.assert_allclose(scores, expected, rtol=1e-12, atol=1e-12)


def test_knn_trap_fails_directly_and_uses_all_points_through_the_adapter():
    """One point per class (the sandbox's start) and 5-NN: scikit-learn refuses, the adapter lets both vote."""
    X, y, pool = _state(9, extra=0)
    assert len(y) == K == 2
    X_all = np.vstack([X, pool])
    y_all = np.concatenate([y, np.full(len(pool), MISSING_LABEL)])
    direct = SkalSklearnClassifier(KNeighborsClassifier(5), classes=np.arange(K))
    with pytest.raises(ValueError, match="Expected n_neighbors <= n_samples_fit"):
        UncertaintySampling().query(X_all, y_all, direct, candidates=np.arange(K, len(y_all)))
    expected = stats.entropy(KNeighborsClassifier(2).fit(X, y).predict_proba(pool), axis=1)
    for classifier in (KNeighborsClassifier(5), direct,
                       make_pipeline(StandardScaler(), KNeighborsClassifier(5))):
        peer = SkactivemlStrategy(UncertaintySampling(method="entropy"), classifier=classifier)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no silent fallback to class frequencies
            scores = peer.scores(_ctx(X, y, pool, get_classifier("lda")))
        if isinstance(classifier, KNeighborsClassifier) or classifier is direct:
            np.testing.assert_allclose(scores, expected, rtol=0, atol=ULPS)
        else:  # the pipeline: 2-NN on standardised data
            scaled = StandardScaler().fit(X)
            knn = KNeighborsClassifier(2).fit(scaled.transform(X), y)
            np.testing.assert_allclose(scores, stats.entropy(knn.predict_proba(scaled.transform(pool)), axis=1),
                                       rtol=0, atol=ULPS)


def test_a_scikit_activeml_classifier_is_used_as_it_is():
    X, y, pool = _state(12)
    peer = SkactivemlStrategy(UncertaintySampling(method="entropy"), classifier=ParzenWindowClassifier())
    scores = peer.scores(_ctx(X, y, pool, get_classifier("lda")))
    direct = ParzenWindowClassifier(classes=np.arange(K)).fit(X, y)
    np.testing.assert_allclose(scores, stats.entropy(direct.predict_proba(pool), axis=1), rtol=0, atol=ULPS)


def test_weights_are_refused_by_the_unweighted_classifiers():
    X, y, pool = _state(1, pool_size=6)
    weights = np.linspace(1.0, 2.0, len(y) + len(pool))
    peer = SkactivemlStrategy(MonteCarloEER(), query_params={"sample_weight": weights})
    with pytest.raises(ValueError, match="sample_weight: mri-theory classifiers are unweighted"):
        peer.scores(_ctx(X, y, pool, get_classifier("lda")))


def test_a_strategy_without_clf_scores_all_candidates_alike():
    X, y, pool = _state(0)
    scores = SkactivemlStrategy(RandomSampling()).scores(_ctx(X, y, pool, get_classifier("lda")))
    assert np.all(scores == scores[0])  # the sandbox's tie-break then chooses uniformly, as RS


def test_query_params_reach_query():
    """QueryByCommittee with an ensemble given through query_params: vote entropy of two fixed members."""
    X, y, pool = _state(13)
    members = [SkalSklearnClassifier(SkLogisticRegression(), classes=np.arange(K)),
               ParzenWindowClassifier(classes=np.arange(K))]
    peer = SkactivemlStrategy(QueryByCommittee(method="vote_entropy"), query_params={"ensemble": members})
    scores = peer.scores(_ctx(X, y, pool, get_classifier("lda")))
    votes = np.stack([SkLogisticRegression().fit(X, y).predict(pool),
                      ParzenWindowClassifier(classes=np.arange(K)).fit(X, y).predict(pool)])
    counts = np.stack([(votes == c).mean(axis=0) for c in range(K)], axis=1)
    np.testing.assert_allclose(scores, stats.entropy(counts, axis=1), rtol=0, atol=ULPS)


# ------------------------------------------------------------------ in the sandbox


def test_in_score_states_the_entropy_peer_scores_every_state_like_se():
    """The same candidates in the same states (score_states): skactiveml's entropy = SE, to rounding."""
    peer = SkactivemlStrategy(UncertaintySampling(method="entropy"))
    states = score_states("four-gaussian", "lda", ["SE", peer, "MRI-best"], replicates=2, steps=(0, 5), pool_size=25,
                          population_size=500, seed=4, execution=QUIET)
    se = states[states.strategy == "SE"].reset_index(drop=True)
    ours = states[states.strategy == peer.name].reset_index(drop=True)
    assert len(ours) == len(se) > 0
    assert np.array_equal(ours.candidate, se.candidate)
    np.testing.assert_allclose(ours.score, se.score, rtol=0, atol=ULPS)


SANDBOX = {"problem": "four-gaussian", "classifier": "lda", "pool_size": 30, "budget": 6, "replicates": 2,
           "population_size": 500, "subsample": 10, "seed": 3, "execution": QUIET}


def test_run_curves_takes_the_adapter_object_serially_and_in_worker_processes():
    peers = [SkactivemlStrategy(MonteCarloEER()),
             SkactivemlStrategy(UncertaintySampling(method="entropy"), classifier=KNeighborsClassifier(5),
                                name="skal-US-5nn")]
    serial = run_curves(strategies=["RS", *peers], **SANDBOX)
    assert list(dict.fromkeys(serial.strategy)) == ["RS", "skal-MonteCarloEER", "skal-US-5nn"]
    per_curve = serial.groupby(["strategy", "replicate"]).size()
    assert (per_curve == SANDBOX["budget"] + 1).all()
    initial = serial[serial.n_labelled == 2].pivot(index="replicate", columns="strategy", values="loss")
    assert (initial.nunique(axis=1) == 1).all()  # paired: every strategy starts from the same classifier
    assert serial.q_c_chosen.notna().any()  # the truth is recorded for the peers' choices too
    parallel = run_curves(strategies=["RS", *peers], **{**SANDBOX, "execution": TWO_WORKERS})
    pd.testing.assert_frame_equal(parallel, serial)


def test_run_curves_resumes_the_adapter_and_recomputes_a_changed_one(tmp_path):
    first = run_curves(strategies=[SkactivemlStrategy(MonteCarloEER(), name="EER")], out=tmp_path, **SANDBOX)
    again = run_curves(strategies=[SkactivemlStrategy(MonteCarloEER(), name="EER")], out=tmp_path, **SANDBOX)
    pd.testing.assert_frame_equal(again, first, check_exact=False, rtol=1e-12)
    with pytest.warns(DamagedPartWarning):
        changed = run_curves(strategies=[SkactivemlStrategy(MonteCarloEER(method="log_loss"), name="EER")],
                             out=tmp_path, **SANDBOX)
    assert not changed.chosen.equals(first.chosen)


def test_a_peer_runs_on_real_data_without_the_truth():
    curves = run_curves(problem="wine", classifier="lda", strategies=["RS", SkactivemlStrategy(MonteCarloEER())],
                        pool_size=40, budget=4, replicates=2, subsample=10, record_q_c=False, seed=0,
                        execution=QUIET)
    assert set(curves.strategy) == {"RS", "skal-MonteCarloEER"}
    assert curves.loss.between(0, 1).all() and curves.q_c_chosen.isna().all()
