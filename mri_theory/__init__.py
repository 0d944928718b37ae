"""mri-theory: optimal active learning computed exactly (model retraining improvement, MRI).

Modules, following the data flow problem -> population -> classifier -> future
losses -> targets/strategies -> learning curves -> metrics -> ranks -> figures/tables:

``two_gaussians``   the §3.2 example in closed form (L_e, Q^a, Q^c, B^c, optimal selection)
``nonmyopic``       the exact optimal multi-step AL policy on small pools (expectimax over labelled sets)
``symbolic``        sympy derivations cross-checking the closed forms
``guarantee``       §3.3: lambda = 1/2 + beta, Monte Carlo, pools and noise families
``problems``        simulated problems with known truth (Appendix D)
``population``      evaluation sets with class-probability rows (Rao-Blackwellised losses)
``classifiers``     base classifiers with exact fast retraining paths (Appendix C)
``retraining``      the future-loss engine (Table 1's L')
``targets``         true Q^c, Q^a, B^c on the general path (Eq. eqc)
``strategies``      RS, SE, LC, QbcV, QbcA, EfeLc, SMRI, BMRI, MRI-best, MRI-worst
``sandbox``         iterated AL with paired replicates, verified resumable storage
``metrics``         one learning curve -> AUA, ALC, WI, label complexity; asymptotic loss; regret (§2.2, §5.3)
``ranking``         ranks per metric, overall rank, R1-R5 aggregation, bootstrap intervals (§5.3-5.5)
``study``           the §5 grid problems x classifiers x strategies x replicates, local or Dask; reports
``tables``          the paper's tables (Tables 2, 4-6, 9-13 forms) with its published orderings beside ours
``figures``         the figure registry behind ``mri-theory figures``
"""

__version__ = "0.1.0"  # the single source of the version: pyproject.toml reads this literal statically
