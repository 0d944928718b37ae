"""Copy a finished leaderboard run's tables into ``figures/leaderboard/`` for the figure ``leaderboard``.

Usage (from the repository root, after the two runs of ``docs/leaderboard.md`` have finished)::

    python scripts/leaderboard_tables.py results/leaderboard-design results/leaderboard-eval
    mri-theory figures --only leaderboard

Each run folder (``mri-theory leaderboard --out DIR``) is read with
:func:`mri_theory.runners.read_leaderboard`, so a table that does not match the
checksum the run wrote, or a folder still being written, is refused (exit
status 2, nothing written for that split); then
:func:`mri_theory.runners.copy_leaderboard` copies ``leaderboard.csv``,
``differences.csv`` and ``statistics.csv.xz`` (byte for byte),
``leaderboard.json`` and ``cost.csv`` into ``OUT/design`` and
``OUT/evaluation`` and writes their ``checksums.json`` (the tables' SHA-256,
the run's, and that of ``leaderboard.json``).  The states are not copied:
``statistics.csv.xz`` recomputes every cell.

The script then prints, for each split, the phase ``all`` of the table: each
strategy's mean normalised shortfall and Spearman correlation with their
bootstrap intervals, as Markdown rows for ``docs/leaderboard.md``, and the
paired differences of the normalised shortfall that Holm's correction leaves
significant in that phase.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mri_theory.runners import copy_leaderboard, read_leaderboard

SPLITS = ("design", "evaluation")


def markdown_rows(folder: Path) -> str:
    """The ``all`` phase of the leaderboard in ``folder`` as a Markdown table (normalised shortfall, Spearman)."""
    stored = read_leaderboard(folder)
    table = stored.table[stored.table.phase == "all"]
    level = f"{100 * stored.record['settings']['level']:g} % CI"
    lines = [f"| strategy | normalised shortfall [{level}] | Spearman [{level}] | states |", "|---|---|---|---|"]
    for row in table.itertuples(index=False):
        name = f"**{row.strategy}**" if row.anchor else row.strategy
        lines.append(f"| {name} | {row.normalised_shortfall:.3f} [{row.normalised_shortfall_ci_low:.3f}, "
                     f"{row.normalised_shortfall_ci_high:.3f}] | {row.spearman:.3f} [{row.spearman_ci_low:.3f}, "
                     f"{row.spearman_ci_high:.3f}] | {row.states} |")
    return "\n".join(lines)


def significant_differences(folder: Path) -> str:
    """The ``all`` phase's paired differences in ``folder`` whose Holm-adjusted p-value is below ``1 - level``."""
    stored = read_leaderboard(folder)
    if stored.differences is None:
        return "(no differences.csv: a run written before it was added)"
    alpha = 1 - stored.record["settings"]["level"]
    rows = stored.differences[(stored.differences.phase == "all") & (stored.differences.p_holm < alpha)]
    lines = ["| first − second | difference [Holm-level interval] | p (Holm) |", "|---|---|---|"]
    for row in rows.sort_values("difference", kind="stable").itertuples(index=False):
        lines.append(f"| {row.first} − {row.second} | {row.difference:+.3f} [{row.ci_low:+.3f}, {row.ci_high:+.3f}]"
                     f" | {row.p_holm:.3f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("design", type=Path, help="the design run's folder (four-gaussian, quadratic)")
    parser.add_argument("evaluation", type=Path, help="the evaluation run's folder (triangles, oscillating, sharp)")
    parser.add_argument("--out", type=Path, default=Path("figures/leaderboard"),
                        help="folder of the committed tables (default: figures/leaderboard)")
    args = parser.parse_args(argv)
    try:
        for source in (args.design, args.evaluation):
            read_leaderboard(source)  # both runs verified before either copy is written
        for split, source in zip(SPLITS, (args.design, args.evaluation), strict=True):
            for path in copy_leaderboard(source, args.out / split):
                print(path)
    except (ValueError, TypeError, OSError) as exc:
        print(f"leaderboard_tables: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    for split in SPLITS:
        print(f"\n{split} (phase all):\n{markdown_rows(args.out / split)}")
        print(f"\n{split}, significant paired differences (phase all):\n{significant_differences(args.out / split)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
