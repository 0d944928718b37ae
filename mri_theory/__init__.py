"""mri-theory: optimal active learning computed exactly (model retraining improvement, MRI).

Subpackages, in layers along the data flow problem -> population -> classifier -> future losses ->
targets/strategies -> learning curves -> metrics -> ranks -> figures/tables, lowest first; a module imports
only from its own subpackage or a lower one (``scripts/layout.py`` checks it).  Import from the subpackages
(``from mri_theory.runners import run_curves``):

=================================  =====================================================================================
:mod:`~mri_theory.engine`          the future-loss engine: populations, losses, the Classifier contract, future losses
                                   (Table 1's L'), the true Q^c, Q^a, B^c (Eq. eqc)
:mod:`~mri_theory.problems`        simulated problems with known truth (Appendix D), Bayes errors, real data
:mod:`~mri_theory.classifiers`     base classifiers with exact fast retraining paths (Appendix C)
:mod:`~mri_theory.strategies`      RS, SE, LC, QbcV, QbcA, EfeLc, SMRI, BMRI, MRI-best, MRI-worst; ours: CvMRI,
                                   PoolMRI, Margin; scikit-activeml peers
:mod:`~mri_theory.analytic`        the §3.2 example in closed form, the §3.3 guarantee, the exact optimal multi-step
                                   policy
:mod:`~mri_theory.evaluation`      one learning curve -> AUA, ALC, WI, label complexity, regret; ranks, R1-R5; the
                                   paper's tables; the estimators measured against the true Q^c
:mod:`~mri_theory.runners`         the sandbox (iterated AL, paired replicates, verified resumable storage), the §5
                                   study, the scored states, the asymptotic loss, the §3.3 noisy selection
:mod:`~mri_theory.testing`         check_classifier and check_strategy: the contracts, for your own classes
:mod:`~mri_theory.figures`         the figure registry behind ``mri-theory figures``
:mod:`~mri_theory.cli`             the ``mri-theory`` command
=================================  =====================================================================================

Below them all, the package-private ``_utils`` holds helpers without domain knowledge (argument checks, ties,
registries, backends); it is not part of the API.

The old module paths (``mri_theory.sandbox``, ``mri_theory.metrics``, ...) were removed in 0.2.0 (CHANGELOG.md
says where each name went).  This module imports nothing.
"""

__version__ = "0.2.0"  # the single source of the version: pyproject.toml reads this literal statically
