r"""Active-learning strategies (§2.3, §4, §5.1) behind one interface.

A strategy *scores* candidate points given the labelled data, the base
classifier and a ``numpy.random.Generator``; :func:`select` takes the best
score, breaking ties with the generator.  Larger scores are better.  Scores
within :data:`TIE_TOLERANCE` (1e-12, relative) of the maximum count as tied,
so that a choice never depends on the last bit of a floating-point sum (see
``mri_theory._utils.ties``).  Every
retrain-and-score loop (EfeLc, SMRI, BMRI, CvMRI, PoolMRI, the oracles) runs on the
future-loss engine (:func:`mri_theory.engine.retraining.future_losses` for the estimators, which need
only the future losses; :func:`~mri_theory.engine.retraining.current_and_future_losses` for the oracles).

Registry (:func:`get_strategy`, :func:`list_strategies`, :func:`register_strategy` for your own), by the
paper's names:

========== ==============================================================
RS         uniform random selection (all scores equal)
SE         Shannon entropy of the base classifier's :math:`\hat{\mathbf p}`
LC         least confidence :math:`1 - \max_j \hat p_j`
QbcV       vote entropy of a committee (logistic regression, 5-NN, 21-NN,
           random forest) trained on the labelled data
QbcA       average Kullback-Leibler divergence of each member to the
           committee mean
EfeLc      Roy & McCallum, Eq. ``efelc``: :math:`-\sum_j \hat p_j \sum_{x_i \in X_P} U_L(x_i, \theta(D \cup (x, c_j)))`
SMRI       SimpleMRI (Algorithm 1): :math:`-\hat{\mathbf p}\cdot\hat{\mathbf{L'}}` with
           :math:`D_P = D_T = D_E = D_S`
BMRI       BootstrapMRI (Algorithm 2): the median over ``n_b = 25`` bootstrap
           triples :math:`(D_P, D_T, D_E)` of :math:`-\hat{\mathbf p}\cdot\hat{\mathbf{L'}}`
MRI-best   argmax of the true :math:`Q^c` (known truth only)
MRI-worst  argmin of the true :math:`Q^c`
========== ==============================================================

and three of ours, not the paper's (registered after the paper's; they are not in the paper's study set):

========== ==============================================================
CvMRI      :math:`-\hat{\mathbf p}\cdot\hat{\mathbf{L'}}` with each future loss
           cross-validated on ``folds`` (5) stratified folds of :math:`D_S`
           (tested on points the retrained model did not see)
PoolMRI    :math:`-\hat{\mathbf p}\cdot\hat{\mathbf{L'}}` with each future loss the
           expected error on the pool under :math:`\theta_2`'s probabilities
Margin     margin sampling :math:`-(\hat p_{(1)} - \hat p_{(2)})`
========== ==============================================================

the literature's label-peeking oracle baselines (:mod:`mri_theory.strategies.oracles`; registered after the
peers; they see the candidates' drawn labels, :attr:`Strategy.peeks`):

================ ==============================================================
GreedyOracle     CDALBench's oracle: of ``tau`` (20) random candidates, the one
                 whose retraining with its drawn label lowers the loss most
LookaheadOracle  the non-myopic oracle policy: the best candidate of the best set
                 of up to ``depth`` (2) candidates retrained with their drawn
                 labels (``sets``, 200, of each size)
AnnealingOracle  Zhou et al.'s oracle: simulated annealing over the order of the
                 whole budget (the lowest mean loss over the curve), its
                 points then labelled in turn
BossOracle       a BoSS-like oracle: of the candidates that several strategies
                 propose on random subsets (``batches``, 100), the one whose
                 retraining with its drawn label lowers the loss most
================ ==============================================================

and scikit-activeml's pool strategies as named peers (:data:`PEER_NAMES`, the ``peers`` extra; listed by
:func:`list_strategies` only where scikit-activeml is installed, see :mod:`mri_theory.strategies.builtin`):

============= ==============================================================
SkUS-margin   ``UncertaintySampling(method="margin_sampling")``, base classifier
SkUS-LC       ``UncertaintySampling(method="least_confident")``, base classifier
SkUS-entropy  ``UncertaintySampling(method="entropy")``, base classifier
SkDWUS        the same entropy times each point's kernel density
SkMcPAL       ``ProbabilisticAL()`` (McPAL) on a ``ParzenWindowClassifier``, density-weighted
SkDWUS-scott  SkDWUS, its kernel's width Scott's rule on the data (``parzen_gamma="scott"``)
SkMcPAL-scott SkMcPAL, both Parzen windows of Scott's width (``parzen_gamma="scott"``)
SkQBC-VE      ``QueryByCommittee(method="vote_entropy")``, 10 bagged base classifiers
SkQBC-KL      ``QueryByCommittee(method="KL_divergence")``, 10 bagged base classifiers
SkMC-EER      ``MonteCarloEER(method="misclassification_loss")``, base classifier
SkVOI-EER     ``ValueOfInformationEER()``, base classifier
SkCoreSet     ``CoreSet()``: distance to the nearest labelled point
============= ==============================================================

SMRI, BMRI, CvMRI and PoolMRI estimate only term :math:`T_e` of Eq. ``eqc`` (term :math:`T_c`
does not depend on the candidate), and score :math:`-\hat T_e`.  Their
class-probability estimator :math:`\theta_2` is 5-NN, or a random forest when
the base classifier is a nearest-neighbour method (§4; the classifier's
``nearest_neighbour`` attribute), unless their ``theta2`` parameter gives one.
The paper's open choices are named options: BMRI's ``aggregate`` (median or
mean), the kernel of the default 5-NN :math:`\theta_2` (``theta2_kernel``) and
of the QBC committee's k-NNs (``knn_kernel``), EfeLc's ``candidates``
(:doc:`/deviations`).
BMRI draws its 25 bootstrap triples once per selection step and uses them for
every candidate (common random numbers: the candidates are compared on the
same resamples); CvMRI likewise draws its folds once per step.
"""

from __future__ import annotations

from mri_theory.strategies.base import (
    ORIGINS,
    TIE_TOLERANCE,
    Context,
    Strategy,
    near_maximum,
    select,
)
from mri_theory.strategies.builtin import (
    BMRI_AGGREGATES,
    BMRI_FOREST_TREES,
    CANDIDATES,
    COMMITTEE,
    CV_FOLDS,
    EFELC_CANDIDATES,
    FOREST_TREES,
    KNN_KERNELS,
    MAX_RESAMPLES,
    PEER_NAMES,
    STRATEGY_REGISTRY,
    AverageKL,
    BootstrapMRI,
    CrossValidatedMRI,
    EfeLc,
    LeastConfidence,
    MarginSampling,
    MRIBest,
    MRIWorst,
    PoolMRI,
    RandomSelection,
    ShannonEntropy,
    SimpleMRI,
    VoteEntropy,
    get_strategy,
    list_strategies,
    register_strategy,
    registered_strategy,
    second_classifier,
    strategy_names,
    unregister_strategy,
)
from mri_theory.strategies.oracles import AnnealingOracle, BossOracle, GreedyOracle, LookaheadOracle

# The scikit-activeml adapter is imported on use: ``from mri_theory.strategies.skactiveml import SkactivemlStrategy``;
# the registry's peers (PEER_NAMES) import it when one is asked for.

__all__ = [
    "Context",
    "Strategy",
    "select",
    "get_strategy",
    "list_strategies",
    "register_strategy",
    "registered_strategy",
    "unregister_strategy",
    "strategy_names",
    "STRATEGY_REGISTRY",
    "ORIGINS",
    "second_classifier",
    "RandomSelection",
    "ShannonEntropy",
    "LeastConfidence",
    "VoteEntropy",
    "AverageKL",
    "EfeLc",
    "SimpleMRI",
    "BootstrapMRI",
    "MRIBest",
    "MRIWorst",
    "CrossValidatedMRI",
    "PoolMRI",
    "MarginSampling",
    "GreedyOracle",
    "LookaheadOracle",
    "AnnealingOracle",
    "BossOracle",
    "COMMITTEE",
    "KNN_KERNELS",
    "BMRI_AGGREGATES",
    "CANDIDATES",
    "EFELC_CANDIDATES",
    "FOREST_TREES",
    "BMRI_FOREST_TREES",
    "MAX_RESAMPLES",
    "CV_FOLDS",
    "PEER_NAMES",
    "TIE_TOLERANCE",
    "near_maximum",
]
