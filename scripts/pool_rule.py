"""The paper's pool rule on a grid: per (problem, classifier), the smallest pool whose final loss is close to L∞.

The paper sets each simulated problem's pool "such that when all of the pool has been labelled, the final
classifier loss is close to its asymptotic loss" (§5.2, line 1044); the study uses a fixed 250.  This script
applies the rule (:func:`mri_theory.runners.asymptotic_pool_size`) to every pairing of a grid, by default the
abstract group and the paper's six classifiers with the study's asymptotic settings (5,000 training points,
5 replicates, populations of 20,000), and writes into ``--out``:

``pool-rule.csv``
    one row per pairing and pool size tried: the asymptote and its standard error, the mean final loss after
    labelling the whole pool (training on the pool and the initial set) and its standard error, their ratio
    with its standard error, and whether it is within the tolerance.
``POOL-RULE.md``
    per pairing the ratio at the study's pool (250) and the pool the rule gives, with the command, the
    settings, the library versions and the time.

Usage (from the repository root; about 4 CPU-minutes for the default grid)::

    python scripts/pool_rule.py --out figures/study/sensitivity/pool-rule

Each pairing draws from its own stream (:func:`mri_theory.runners.pool_rule_generator`), so a pairing's numbers do
not depend on the grid it is run in, and ``run_study(pool_size="asymptotic")`` under the paper preset (20 replicates,
5,000 training points, populations of 20,000, seed 0) finds the same pools.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from mri_theory._utils.versions import library_versions
from mri_theory.runners import (
    CLASSIFIER_SETS,
    POOL_RULE_SIZES,
    POOL_RULE_TOLERANCE,
    PROBLEM_GROUPS,
    SIMULATED_POOL_SIZE,
    asymptotic_pool_size,
    pool_rule_generator,
)

COLUMNS = ["problem", "classifier", "asymptote", "asymptote_se", "pool_size", "loss", "loss_se", "ratio", "ratio_se",
           "close"]


def rule_table(problems: list[str], classifiers: list[str], *, seed: int, tolerance: float, sizes: tuple[int, ...],
               replicates: int, n_train: int, population_size: int) -> tuple[pd.DataFrame, dict[tuple, int | None]]:
    """Every pairing's :func:`asymptotic_pool_size` table (columns :data:`COLUMNS`) and the pool it gives."""
    frames, pools = [], {}
    pairings = [(p, c) for p in problems for c in classifiers]
    for problem, classifier in tqdm(pairings, desc="pool rule", unit="pairing"):
        rng = pool_rule_generator(seed, problem, classifier)
        found = asymptotic_pool_size(problem, classifier, rng=rng, tolerance=tolerance, sizes=sizes,
                                     replicates=replicates, n_train=n_train, population_size=population_size)
        frames.append(found.table.assign(problem=problem, classifier=classifier, asymptote=found.asymptote,
                                         asymptote_se=found.asymptote_se)[COLUMNS])
        pools[(problem, classifier)] = found.pool_size
    return pd.concat(frames, ignore_index=True), pools


def report(table: pd.DataFrame, pools: dict[tuple, int | None], settings: dict, seconds: tuple[float, float],
           command: str) -> str:
    """``POOL-RULE.md``: per pairing the ratio at the study's pool and the rule's pool, then the provenance."""
    fixed = table[table.pool_size == SIMULATED_POOL_SIZE].set_index(["problem", "classifier"])
    tolerance = settings["tolerance"]
    lines = ["# The paper's pool rule on the abstract group", "",
             f"Final loss after labelling the whole pool / asymptotic loss, per pairing; the rule's pool is the "
             f"smallest of {', '.join(map(str, settings['sizes']))} whose ratio is at most {1 + tolerance:g} "
             f"(§5.2, line 1044: \"close to its asymptotic loss\"). Means over {settings['replicates']} "
             "replicates ± their standard errors.", "",
             f"| pairing | L∞ | ratio at {SIMULATED_POOL_SIZE} | rule's pool |", "|---|---|---|---|"]
    for (problem, classifier), pool in pools.items():
        row = fixed.loc[(problem, classifier)] if (problem, classifier) in fixed.index else None
        ratio = "—" if row is None else f"{row.ratio:.3f} ± {row.ratio_se:.3f}"
        asymptote = table[(table.problem == problem) & (table.classifier == classifier)].iloc[0]
        lines.append(f"| {problem} / {classifier} | {asymptote.asymptote:.4f} ± {asymptote.asymptote_se:.4f} | "
                     f"{ratio} | {'> ' + str(max(settings['sizes'])) if pool is None else pool} |")
    needing = [f"{p} / {c}" for (p, c), pool in pools.items() if pool is None or pool > SIMULATED_POOL_SIZE]
    lines += ["", f"{len(needing)} of {len(pools)} pairings need more than {SIMULATED_POOL_SIZE} points by the rule"
              + (f": {', '.join(needing)}." if needing else "."), "",
              "## Settings", "", f"`{command}`", "",
              *[f"- {key}: {value}" for key, value in settings.items()], "",
              "## Versions", "", *[f"- {name} {version}" for name, version in library_versions().items()], "",
              "## Time", "", f"- wall: {seconds[0]:.0f} s", f"- CPU: {seconds[1]:.0f} s", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", nargs="+", default=list(PROBLEM_GROUPS["abstract"]))
    parser.add_argument("--classifiers", nargs="+", default=list(CLASSIFIER_SETS["paper"]))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tolerance", type=float, default=POOL_RULE_TOLERANCE)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(POOL_RULE_SIZES))
    parser.add_argument("--replicates", type=int, default=5)
    parser.add_argument("--n-train", type=int, default=5000)
    parser.add_argument("--population", type=int, default=20_000)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    settings = {"problems": args.problems, "classifiers": args.classifiers, "seed": args.seed,
                "tolerance": args.tolerance, "sizes": tuple(args.sizes), "replicates": args.replicates,
                "n_train": args.n_train, "population_size": args.population}
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        table, pools = rule_table(args.problems, args.classifiers, **{k: v for k, v in settings.items()
                                                                      if k not in ("problems", "classifiers")})
    except (TypeError, ValueError) as exc:
        print(f"pool_rule: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    seconds = (time.perf_counter() - wall, time.process_time() - cpu)
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "pool-rule.csv", index=False, lineterminator="\n")
    command = "python scripts/pool_rule.py " + " ".join(argv if argv is not None else sys.argv[1:])
    (args.out / "POOL-RULE.md").write_text(report(table, pools, settings, seconds, command), encoding="utf-8")
    print(args.out / "POOL-RULE.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
