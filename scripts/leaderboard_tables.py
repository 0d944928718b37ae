"""Copy a finished leaderboard run's tables into ``figures/leaderboard/`` for the figure ``leaderboard``.

Usage (from the repository root, after the two runs of ``docs/leaderboard.md`` have finished)::

    python scripts/leaderboard_tables.py results/leaderboard-design results/leaderboard-eval
    mri-theory figures --only leaderboard

Each run folder (``mri-theory leaderboard --out DIR``) is read with
:func:`mri_theory.runners.read_leaderboard`, so a table that does not match the
checksum the run wrote, or a folder still being written, is refused (exit
status 2, nothing written for that split); then
:func:`mri_theory.runners.copy_leaderboard` copies ``leaderboard.csv`` (byte
for byte), ``leaderboard.json`` and ``cost.csv`` into ``OUT/design`` and
``OUT/evaluation`` and writes their ``checksums.json`` (the table's SHA-256,
the run's, and that of ``leaderboard.json``).  The states are not copied.

The script then prints, for each split, the phase ``all`` of the table: each
strategy's mean normalised shortfall and Spearman correlation with their
bootstrap intervals, as Markdown rows for ``docs/leaderboard.md``.
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
