"""The catalogue of the named scikit-activeml peers, as plain data (no scikit-activeml import).

Shared by :mod:`mri_theory.strategies.builtin` (which registers the names, with
factories that import :mod:`mri_theory.strategies.skactiveml` on use) and
:mod:`mri_theory.strategies.skactiveml` (whose ``peer`` builds them).  The
user guide (``docs/user-guide/strategies.md``) has their table.
"""

from __future__ import annotations

import importlib.util
from typing import Any, NamedTuple

__all__ = ["PEERS", "PEER_EXTRA", "PeerSpec", "skactiveml_installed"]

#: The extra that installs scikit-activeml.
PEER_EXTRA = "peers"


class PeerSpec(NamedTuple):
    """How a named peer is built: a ``skactiveml.pool`` class and the adapter's options."""

    #: The class's name in ``skactiveml.pool``.
    query_class: str
    #: Its constructor's parameters.
    params: dict[str, Any]
    #: ``None``: the sandbox's base classifier; ``"parzen"``: scikit-activeml's ``ParzenWindowClassifier()``.
    classifier: str | None = None
    #: ``SkactivemlStrategy(density_weight=...)``.
    density_weight: bool = False
    #: ``SkactivemlStrategy(ensemble_size=...)``: bagged members of the classifier (QBC only).
    ensemble_size: int | None = None
    #: ``SkactivemlStrategy(parzen_gamma=...)``: the Parzen windows' kernel width.
    parzen_gamma: str = "default"


#: Members of the peers' QBC committees: scikit-learn's ``BaggingClassifier`` default ``n_estimators``.
_COMMITTEE = 10

#: The named peers, in the order of :func:`~mri_theory.strategies.list_strategies`.
PEERS: dict[str, PeerSpec] = {
    "SkUS-margin": PeerSpec("UncertaintySampling", {"method": "margin_sampling"}),
    "SkUS-LC": PeerSpec("UncertaintySampling", {"method": "least_confident"}),
    "SkUS-entropy": PeerSpec("UncertaintySampling", {"method": "entropy"}),
    "SkDWUS": PeerSpec("UncertaintySampling", {"method": "entropy"}, density_weight=True),
    "SkMcPAL": PeerSpec("ProbabilisticAL", {}, classifier="parzen", density_weight=True),
    # the two Parzen-window peers again, their kernel scaled to the data (Scott's rule) instead of gamma = 1/d
    "SkDWUS-scott": PeerSpec("UncertaintySampling", {"method": "entropy"}, density_weight=True,
                             parzen_gamma="scott"),
    "SkMcPAL-scott": PeerSpec("ProbabilisticAL", {}, classifier="parzen", density_weight=True, parzen_gamma="scott"),
    "SkQBC-VE": PeerSpec("QueryByCommittee", {"method": "vote_entropy"}, ensemble_size=_COMMITTEE),
    "SkQBC-KL": PeerSpec("QueryByCommittee", {"method": "KL_divergence"}, ensemble_size=_COMMITTEE),
    "SkMC-EER": PeerSpec("MonteCarloEER", {"method": "misclassification_loss"}),
    "SkVOI-EER": PeerSpec("ValueOfInformationEER", {}),
    "SkCoreSet": PeerSpec("CoreSet", {}),
}


def skactiveml_installed() -> bool:
    """Whether scikit-activeml can be imported (found without importing it; an import blocked counts as missing)."""
    try:
        return importlib.util.find_spec("skactiveml") is not None
    except (ImportError, ValueError):  # ValueError: sys.modules["skactiveml"] is None (an import blocked)
        return False
