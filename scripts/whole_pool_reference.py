"""The regret's two references compared: MRI-best over the whole pool against MRI-best over the sub-sample.

The study's MRI-best, the regret's reference, maximises the true :math:`Q^c` over the 100 random candidates the
costly methods score at each step; the sensitivity reading ``"MRI-best whole pool"``
(:data:`mri_theory.runners.RECOMPUTED`) reruns it over every pool point.  This script puts the two references'
curves side by side: the paired difference (whole pool minus sub-sample) of their AUA and mean loss, averaged over
the pairings, with percentile bootstrap intervals (:func:`mri_theory.evaluation.ranking.paired_differences`, 1,000
draws, seed 0), replicate-only and two-level over all pairings, replicate-only per classifier, and writes them to
``--out`` as ``whole-pool-reference.csv`` with its checksum (``checksums.json``: a reader verifies the table
against it, :func:`mri_theory.runners._store.verified_table`).

Usage (from the repository root, after the sensitivity run of ``docs/robustness.md``, "The committed run"; a few
seconds)::

    python scripts/whole_pool_reference.py results/study-full results/sensitivity/variants/MRI-best-whole-pool \\
        --out figures/study/sensitivity/whole-pool-reference
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from mri_theory.evaluation.metrics import BEST, REFERENCE
from mri_theory.evaluation.ranking import paired_differences
from mri_theory.runners import _store
from mri_theory.runners.study import default_groups, read_study

#: The whole-pool reference's label in the table.
WHOLE_POOL = "MRI-best whole pool"
COLUMNS = ["classifier", "resample", "metric", "difference", "ci_low", "ci_high", "first_better", "pairings"]


def reference_differences(base: Path, variant: Path, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """The table described in the module docstring, from the base study's and the variant's verified folders."""
    curves, asymptotic = read_study(base)
    whole = read_study(variant)[0]
    whole = whole[whole.strategy == BEST].assign(strategy=WHOLE_POOL)
    both = pd.concat([curves[curves.strategy.isin([BEST, REFERENCE])], whole], ignore_index=True)
    pairs = [(WHOLE_POOL, BEST)]
    groups = default_groups(sorted(curves.problem.unique()))
    frames = []
    for resample in ("replicates", "pairings"):
        frames.append(paired_differences(both, asymptotic, pairs, rng=np.random.default_rng(seed), n_boot=n_boot,
                                         resample=resample, groups=groups if resample == "pairings" else None)
                      .assign(classifier="all", resample=resample))
    for classifier, part in both.groupby("classifier", sort=True):
        frames.append(paired_differences(part, asymptotic[asymptotic.classifier == classifier], pairs,
                                         rng=np.random.default_rng(seed), n_boot=n_boot)
                      .assign(classifier=classifier, resample="replicates"))
    table = pd.concat(frames, ignore_index=True)
    return table[table.metric != "regret"][COLUMNS].reset_index(drop=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path, help="the study folder (results/study-full)")
    parser.add_argument("variant", type=Path, help="the reading's folder (.../variants/MRI-best-whole-pool)")
    parser.add_argument("--out", type=Path, required=True, help="where whole-pool-reference.csv is written")
    args = parser.parse_args(argv)
    table = reference_differences(args.base, args.variant)
    args.out.mkdir(parents=True, exist_ok=True)
    _store.write_tables(args.out, {"whole-pool-reference.csv": table.to_csv(index=False, float_format="%.10g")
                                   .encode()}, None)
    with pd.option_context("display.width", 200):
        print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
